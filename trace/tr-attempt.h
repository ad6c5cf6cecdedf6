/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tr-attempt: the real contiguous attempts a capture shows (alloc_contig_range(),
 * offline_pages()), found in one pass over the events. Replay isolates their range in
 * the model when the kernel did; predict --verify compares with them; the checkers
 * follow them.
 */
#ifndef BC_TR_ATTEMPT_H
#define BC_TR_ATTEMPT_H

#include <stdbool.h>
#include <stdint.h>

struct tdb;
struct tr_decoder;

enum tr_attempt_kind {
	TR_ATTEMPT_CONTIG,		/* alloc_contig_range(): hugetlb, CMA, virtio-mem ... */
	TR_ATTEMPT_OFFLINE,		/* offline_pages(): migrate reason memory_hotplug */
};

struct tr_attempt {
	enum tr_attempt_kind kind;
	uint64_t start_pfn, end_pfn;	/* requested range (test_pages_isolated end) */
	uint64_t outer_start;		/* test_pages_isolated start (may be below start) */
	uint64_t seq_begin;		/* first event of the attempt (drain burst) */
	uint64_t seq_test;		/* the (last) test_pages_isolated event */
	uint64_t seq_end;		/* last event of the attempt */
	uint64_t ts_begin, ts_test;
	int pid;
	bool success;			/* fin_pfn >= end_pfn at the last test */
	uint64_t fin_pfn;
	unsigned int nr_tests;		/* offline retries test once per pass */
	uint64_t migrated, migrate_failed;	/* from mm_migrate_pages in the window */
	bool from_probe;		/* an offline probe's window, no test event */
	bool continued;			/* failed, and the same alloc_contig_pages() call
					 * tried another range after it (tr_contig_calls()) */
};

/* What the finder needs to know of the machine. */
struct tr_attempt_geometry {
	unsigned int pageblock_order;	/* isolation works on whole pageblocks */
	uint64_t memory_block_pages;	/* offline works on whole memory blocks; 0 unknown */
};

/**
 * tr_find_attempts() - one pass over @db's events, decoded with @dec.
 * Return: 0 and *@out (*@nr entries by seq_begin, caller frees with free(); NULL when
 * none), or a negative bc_err.
 */
int tr_find_attempts(struct tdb *db, const struct tr_decoder *dec,
		     const struct tr_attempt_geometry *geo, struct tr_attempt **out, int *nr);

/**
 * tr_probe_attempts() - add to *@v (*@nr entries, kept sorted by seq_begin) the
 * offline probes of @db (record --probe-offline) that failed after isolating their
 * block: migration failed or the time limit hit while offline_pages() retried. Those
 * never reach test_pages_isolated(), so tr_find_attempts() cannot see them, yet the
 * kernel held the block isolated (start_isolate_page_range() .. undo) from the probe's
 * begin marker to its end marker. Return: 0, or a negative bc_err (*@v unchanged).
 */
int tr_probe_attempts(struct tdb *db, struct tr_attempt **v, int *nr);

/**
 * tr_probe_refusals() - like tr_probe_attempts(), the offline probes whose isolation
 * start_isolate_page_range() refused: has_unmovable_pages() dumped an "unmovable page"
 * (fin_pfn: its pfn). No event shows them, yet the blocks isolated before the refusal
 * were undone to MIGRATE_MOVABLE (before 6.17): a silent re-type the model must make.
 * seq_begin .. seq_end is the probe's window between its markers.
 */
int tr_probe_refusals(struct tdb *db, struct tr_attempt **v, int *nr);

/**
 * tr_contig_calls() - the capture's alloc_contig_pages() calls among the attempts *@v
 * (*@nr, sorted by seq_begin), for what-if runs that ask each call again:
 *   - a failed CONTIG attempt after which the same task tried another range of the same
 *     size further on in the search is marked continued (alloc_contig_pages(): zones
 *     highest first, pfns ascending within a zone; @zone_start: the zones' first pfns,
 *     ascending, @nr_zones of them): the call is the later attempt;
 *   - a step of a hugetlb_1g probe that got no page, and in whose window no attempt
 *     stands, is added as a failed CONTIG attempt of 1 GiB at the step's end
 *     (from_probe; start_pfn 0: no range reached alloc_contig_range()).
 * Return: 0, or a negative bc_err (*@v unchanged).
 */
int tr_contig_calls(struct tdb *db, const uint64_t *zone_start, int nr_zones,
		    struct tr_attempt **v, int *nr);
/* The first part of tr_contig_calls(): the continued marks of @v (@nr, by seq_begin). */
void tr_contig_mark(struct tr_attempt *v, int nr, const uint64_t *zone_start, int nr_zones);

/*
 * The marker "bigchunk probe ID offline WHAT" (WHAT: begin, end) of @db: true and its
 * *@seq (the first event after it) and *@ts; false when there is none.
 */
bool tr_offline_probe_marker(struct tdb *db, int64_t id, const char *what, uint64_t *seq,
			     uint64_t *ts);

#endif
