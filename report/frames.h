/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frames: the pictures' data, gathered in one replay of a capture. A frame is the
 * state at one point: the physical map (report/pbmap.h), the 1 GiB question asked of
 * every row (predict/predict.h, mainline policy, the row as --range: its verdict and
 * the page and allocation that stop it) and each zone's largest free block; for the
 * report also every pageblock's page counts, every page's class and how many 2 MiB
 * allocations would succeed in a row (frm_opts). Points:
 * the seed snapshot, every later snapshot (after it is scored and resynchronised),
 * the times asked for, and the end of the replay (rp_opts.until_seq).
 */
#ifndef BC_FRAMES_H
#define BC_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"
#include "predict/predict.h"
#include "report/pbmap.h"

struct replay;

struct frm_frame {
	uint64_t seq, ts;		/* the state before event seq */
	char label[48];			/* "seed #1", "snapshot #3", "at 2.5s", "end" */
	uint8_t *cells;			/* geometry.nr_pb cells */
	struct pr_answer *rows;		/* nr_rows answers, one per 1 GiB row (nr_cand 0:
					 * no candidate in the row) */
	/* frm_opts.pages: every pageblock's counts and every page's class, encoded as
	 * pbm_fill_all() does (report/pbmap.h) */
	struct pbm_buf counts, runs;
	/* frm_opts.contig_2m: how many 2 MiB allocations would succeed in a row
	 * (sim_contig_count(), the free-running simulator's figure) */
	uint64_t contig_2m;
	int largest_free[MODEL_MAX_ZONES];	/* order of the largest aligned free block:
						 * the buddy's, or above MAX_PAGE_ORDER aligned
						 * free pageblocks; -1 none */
	uint64_t free_pages[MODEL_MAX_ZONES];
	unsigned int rows_ok;		/* rows where a 1 GiB allocation would succeed */
};

struct frm_set {
	struct pbm_geometry g;
	struct model_layout layout;	/* copy of the model's */
	struct frm_frame *f;
	unsigned int nr;
	bool has_2m;			/* frames carry contig_2m */
};

struct frm_opts {
	bool snapshots;			/* a frame at the seed and at every snapshot */
	bool pages;			/* frm_frame.counts and .runs */
	bool contig_2m;			/* frm_frame.contig_2m */
	const uint64_t *at_seq;		/* frames before these events (ascending) */
	const char *const *at_label;
	unsigned int nr_at;
};

/**
 * frm_collect() - run @rp (fresh: nothing run yet) to its end and take the frames of
 * @o, then one at the end.
 * Return: 0 and @out filled (free with frm_release()), or a negative bc_err.
 */
int frm_collect(struct replay *rp, const struct frm_opts *o, struct frm_set *out);
void frm_release(struct frm_set *s);

/* The verdict of row @r of @f (PR_V_NOT_TRIED: no candidate there). */
enum pr_verdict frm_row_verdict(const struct frm_frame *f, unsigned int r);
/*
 * The pageblock (index within the row) of the page that stops row @r, or -1: the row
 * succeeds, is no valid candidate (a hole, two zones: no page to show), or names none.
 */
long frm_row_blocker(const struct frm_set *s, const struct frm_frame *f, unsigned int r);

#endif
