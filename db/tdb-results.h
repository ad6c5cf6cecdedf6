/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdb-results: the result tables of replay, predict (and predict --verify) and check
 * (db/schema.sql, db/README.md), written through a result writer.
 *
 * A writer is one stored run: tdb_results_begin() opens a transaction, the
 * tdb_results_*() row functions prepare their INSERT once (on first use) and then only
 * bind and step, tdb_results_commit() commits. Any error of a row function leaves the
 * writer failed: commit then refuses, and tdb_results_abort() (also the only thing to
 * call after a failed commit) rolls the whole run back, so a run is stored whole or not
 * at all, whatever the error (a full disk included) or a kill -9 at any point.
 *
 * Values: a uint64_t of UINT64_MAX, an int64_t below 0 where the comment says "-1:
 * none", and a NULL or empty string are stored as SQL NULL.
 */
#ifndef BC_TDB_RESULTS_H
#define BC_TDB_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

struct tdb;
struct tdb_results;

/**
 * tdb_results_begin() - start a stored run on @db (opened with TDB_WRITE, or created):
 * events still buffered by a writer of @db are flushed and committed first.
 * Return: 0 and *@out (end it with tdb_results_commit() or tdb_results_abort()), or a
 * negative bc_err.
 */
int tdb_results_begin(struct tdb *db, struct tdb_results **out);

/**
 * tdb_results_commit() - commit the run and free @w. On failure (or when a row
 * function failed before) nothing is committed and @w stays: call tdb_results_abort().
 * Return: 0, or a negative bc_err with the message of the first error.
 */
int tdb_results_commit(struct tdb_results *w);

/* Roll the run back (if a transaction is still open) and free @w; NULL is allowed.
 * Keeps the message of the error that led here. */
void tdb_results_abort(struct tdb_results *w);

/* ---- replay (replay_scores, replay_anomalies) ---- */

/* A new replay replaces the previous one's rows: delete them (in the run). */
int tdb_results_replay_clear(struct tdb_results *w);

struct tdb_replay_score {
	int64_t snap;				/* snapshots.id */
	uint64_t ts, seq;
	uint64_t pfns_compared, pfns_changed, pfns_uncertain, state_agree;
	uint64_t kind_compared, kind_agree;
	double pfn_agree_state, pfn_agree_kind;
	double buddyinfo_max_rel_err, pagetypeinfo_max_rel_err;
	double buddyinfo_free_err;
	double buddyinfo_order_err;		/* worst order's pages off over the zone's free */
	uint64_t model_free_kernel_used, model_used_kernel_free, resynced_pfns;
};
int tdb_results_replay_score(struct tdb_results *w, const struct tdb_replay_score *s);

struct tdb_replay_anomaly {
	const char *class_name;
	uint64_t count;
	bool has_first;				/* first_* known */
	uint64_t first_seq, first_ts, first_pfn;
	unsigned int first_order;
};
int tdb_results_replay_anomaly(struct tdb_results *w, const struct tdb_replay_anomaly *a);

/* ---- simulate (simulate_figures) ---- */

/* A new simulate run replaces the previous one's rows: delete them (in the run). */
int tdb_results_simulate_clear(struct tdb_results *w);
/* One figure: @snap (-1: the run's totals), @side "sim", "kernel" or "run", @zone
 * ("" for the whole machine), @name, @value. */
int tdb_results_simulate_figure(struct tdb_results *w, int64_t snap, const char *side,
				const char *zone, const char *name, int64_t value);

/* ---- predict (prediction_runs, predictions, prediction_candidates, verify_results) ---- */

struct tdb_prediction_run {
	const char *mode;			/* 'end', 'at', 'every', 'attempts', 'verify' */
	const char *policy;
	uint64_t nr_pages;
	unsigned int count;
	uint64_t range_start, range_end;	/* UINT64_MAX: no --range */
	int align_order;			/* -1: the policy's own */
	const char *command;
};
/* Return: 0 and *@run (the new prediction_runs.id), or a negative bc_err. */
int tdb_results_prediction_run(struct tdb_results *w, const struct tdb_prediction_run *r,
			       int64_t *run);

struct tdb_prediction {
	uint64_t seq, ts;
	unsigned int idx;
	bool success;
	uint64_t start_pfn, end_pfn;		/* UINT64_MAX: none */
	uint64_t migrate_pages, migrate_thp, migrate_file;
	unsigned int nr_candidates;
	bool has_blocker;			/* blocker_* below */
	uint64_t blocker_pfn;
	const char *blocker_kind, *blocker_reason;
	bool blocker_has_event;			/* blocker_seq .. blocker_mt */
	uint64_t blocker_seq, blocker_ts;
	int blocker_cpu, blocker_pid;
	const char *blocker_comm;
	unsigned int blocker_order;
	uint64_t blocker_gfp;
	int blocker_mt;
	const char *assumptions;		/* comma list */
};
/* Return: 0 and *@id (predictions.id: 1, 2, ... within @run), or a negative bc_err. */
int tdb_results_prediction(struct tdb_results *w, int64_t run, const struct tdb_prediction *p,
			   int64_t *id);

struct tdb_prediction_candidate {
	unsigned int idx;
	uint64_t start_pfn, end_pfn;
	const char *verdict;
	uint64_t pfn;				/* UINT64_MAX: none */
	uint64_t migrate_pages;
};
int tdb_results_candidate(struct tdb_results *w, int64_t run, int64_t answer,
			  const struct tdb_prediction_candidate *c);

struct tdb_verify_row {
	unsigned int idx;
	const char *kind;
	int64_t probe;				/* -1: none (trace attempts) */
	uint64_t seq, ts;
	bool has_range;				/* start_pfn, end_pfn */
	uint64_t start_pfn, end_pfn;
	bool kernel_success;
	uint64_t kernel_pfn;			/* UINT64_MAX: none */
	const char *kernel_ranges;
	bool predicted_success;
	uint64_t predicted_pfn;			/* UINT64_MAX: none */
	const char *predicted_ranges;
	bool agree, depends_on_pins;
	const char *why;
};
int tdb_results_verify(struct tdb_results *w, int64_t run, const struct tdb_verify_row *v);

/* ---- check (check_runs, check_results, check_violations) ---- */

struct tdb_check_run {
	uint64_t events, attempts, lost_windows;
	bool replayed;
};
/* Return: 0 and *@run (the new check_runs.run), or a negative bc_err. */
int tdb_results_check_run(struct tdb_results *w, const struct tdb_check_run *r, int64_t *run);

struct tdb_check_result {
	const char *checker, *status;
	uint64_t checks, violations, inconclusive, explained;
};
int tdb_results_check_result(struct tdb_results *w, int64_t run,
			     const struct tdb_check_result *r);

struct tdb_check_violation {
	const char *checker, *rule;
	bool has_seq;				/* seq, ts */
	uint64_t seq, ts;
	int cpu;				/* -1: none */
	uint64_t pfn;				/* UINT64_MAX: none */
	unsigned int order;
	const char *text;
};
int tdb_results_check_violation(struct tdb_results *w, int64_t run,
				const struct tdb_check_violation *v);

/* ---- simulate --teacher (simulate_teacher, simulate_disagreements) ---- */

/* A new run replaces the previous one's rows. */
int tdb_results_teacher_clear(struct tdb_results *w);
/* One figure row; @same_pfn UINT64_MAX: a count only (same_* NULL). */
int tdb_results_teacher(struct tdb_results *w, const char *key, uint64_t requests,
			uint64_t same_pfn, uint64_t same_pageblock);

struct tdb_teacher_dis {
	uint64_t seq;
	int cpu;
	unsigned int order;
	uint64_t kernel_pfn;
	uint64_t model_pfn;			/* UINT64_MAX: none */
	const char *kernel_source, *model_source, *why;
};
int tdb_results_teacher_disagreement(struct tdb_results *w, const struct tdb_teacher_dis *d);

#endif
