/* SPDX-License-Identifier: GPL-2.0 */
/*
 * chk: invariant checkers of the page allocator, run over a capture's events and over
 * the model during replay (replay/replay.h), and callable on the model's hypothetical
 * contiguous attempts (predict). The checkers and their rules are listed once, with
 * stable names, in checkers/invariants.def and documented in checkers/README.md.
 *
 * A struct chk_ctx owns:
 *   - a shadow map of every pfn the events touched (allocated, freed to pcp or buddy,
 *     taken off a free list, held by a contiguous allocation), each stamped with the
 *     lost-event epoch it was set in, so that pages last seen before a ring-buffer gap
 *     are inconclusive rather than passed;
 *   - the real contiguous attempts of the capture (from replay, or found in a first
 *     pass in trace-only mode) and the lost-event windows;
 *   - a shadow of every pageblock's type and isolation as the model holds it, to tell
 *     the changes the kernel may make from those it may not;
 *   - the violations found (up to max_errors kept, all counted) and per-checker counts.
 *
 * Checkers report and keep going: no function here aborts or exits. Every function
 * returns 0 or a negative enum bc_err (common/err.h) unless stated otherwise; a
 * violation is not an error.
 */
#ifndef BC_CHK_H
#define BC_CHK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tdb;
struct model;
struct model_contig_req;
struct model_contig_result;
struct replay;
struct tr_event;
struct tr_attempt;
struct rp_score;
struct rp_hooks;

#define CHECKER(id, name, rule, fn) CHK_##id,
enum chk_checker {
#include "checkers/invariants.def"
	CHK_NR_CHECKERS
};

#define INV(id, chk, name, text) CHK_INV_##id,
enum chk_inv {
#include "checkers/invariants.def"
	CHK_NR_INV
};

/* Names and docs from invariants.def (static strings). */
const char *chk_checker_name(enum chk_checker c);
const char *chk_checker_rule(enum chk_checker c);
const char *chk_checker_functions(enum chk_checker c);
/* Checker of that name, or -1. */
int chk_checker_from_name(const char *name);
const char *chk_inv_name(enum chk_inv i);
const char *chk_inv_text(enum chk_inv i);
enum chk_checker chk_inv_checker(enum chk_inv i);

#define CHK_NO_SEQ	UINT64_MAX	/* a violation not tied to a trace event */
#define CHK_NO_PFN	UINT64_MAX

struct chk_violation {
	enum chk_inv inv;
	uint64_t seq, ts;		/* the event (CHK_NO_SEQ: model or hypothetical check) */
	int cpu;			/* -1 when none */
	uint64_t pfn;			/* CHK_NO_PFN when none */
	unsigned int order;
	char text[240];			/* one sentence */
};

struct chk_opts {
	unsigned int checkers;		/* bit (1 << enum chk_checker) per checker; 0 = all */
	uint64_t max_errors;		/* violations kept (all are counted); 0 = 100 */
	uint64_t recount_every;		/* events between full model recounts; 0 = 1048576 */
	bool trace_only;		/* do not replay, even when the capture could be */
	/* Passed on to replay (struct rp_opts): progress and notes for the user. */
	void (*progress)(void *arg, uint64_t next_seq, uint64_t total, bool done);
	void (*note)(void *arg, const char *text);
	void *arg;
};

enum chk_status {
	CHK_PASS,			/* ran, nothing violated, nothing inconclusive */
	CHK_FAIL,			/* at least one violation */
	CHK_INCONCLUSIVE,		/* no violation, but lost events hid some pages */
	CHK_NOT_RUN,			/* not selected, or impossible on this capture */
};

struct chk_result {
	uint64_t checks;		/* things examined (events, blocks, comparisons) */
	uint64_t violations;		/* found (all, not only those kept) */
	uint64_t inconclusive;		/* would-be violations on pages of lost windows */
	uint64_t explained;		/* would-be violations a known kernel behaviour accounts
					 * for (counted apart, not failures; checkers/README.md) */
	enum chk_status status;
	const char *not_run;		/* why CHK_NOT_RUN (static string), or NULL */
};

struct chk_summary {
	struct chk_result r[CHK_NR_CHECKERS];
	uint64_t events;		/* events examined */
	uint64_t attempts;		/* real contiguous attempts in the capture */
	uint64_t lost_windows;		/* ring-buffer gaps */
	uint64_t pfns_outside;		/* event pfns beyond the memory map, not tracked */
	uint64_t hypothetical;		/* chk_after_contig() calls */
	uint64_t violations, inconclusive;
	uint64_t kept;			/* violations stored (max_errors) */
	bool replayed;			/* the model ran (else trace-only) */
};

struct chk_ctx;

/* Return: 0 and *@out (caller frees with chk_destroy()), or -BC_E_NOMEM. */
int chk_create(const struct chk_opts *opts, struct chk_ctx **out);
void chk_destroy(struct chk_ctx *c);

/**
 * chk_run_capture() - check every event of @db: replay it through the model when the
 * capture has a snapshot to seed from (and opts.trace_only is not set), else check
 * the trace alone (freecount and pageblock-type then do not run).
 * Return: 0 (whatever was found), or a negative bc_err when @db is unusable.
 */
int chk_run_capture(struct chk_ctx *c, struct tdb *db);

/* ---- building blocks (chk_run_capture() uses these; tests and predict may too) ---- */

/*
 * Take the layout (zones, System RAM), attempts and lost windows from a replay that
 * rp_create() prepared, and the model's pageblock types. Call before rp_run() with the
 * hooks of chk_replay_hooks(); @rp stays borrowed until chk_destroy().
 */
int chk_attach_replay(struct chk_ctx *c, struct replay *rp);
/*
 * Whether the capture can show the isolations the kernel refused (bigchunk record's
 * probe records; chk_attach_replay() sets it from the capture). Without them a
 * pre-6.17 re-type to Movable with no cause is such a refusal's undo (explained).
 */
void chk_set_probe_records(struct chk_ctx *c, bool have);
/* Fill @h (arg = @c) with the checkers' replay hooks. */
void chk_replay_hooks(struct chk_ctx *c, struct rp_hooks *h);

/*
 * Trace-only mode: read @db's lost windows and layout (zones/system_ram of its first
 * snapshot, when present), and find its contiguous attempts in a first pass.
 */
int chk_attach_trace(struct chk_ctx *c, struct tdb *db);

/*
 * Without a capture (tests, predict): the layout to check pfns against and the
 * pageblock types to follow (taken from @m now), and real attempts / lost windows
 * (seq of the first event after each gap) to honour. @attempts is copied.
 */
int chk_set_layout(struct chk_ctx *c, const struct model *m);
int chk_set_attempts(struct chk_ctx *c, const struct tr_attempt *attempts, int nr);
int chk_add_lost(struct chk_ctx *c, uint64_t seq);

/*
 * One event, in seq order: chk_before_event() with the model (may be NULL) in its
 * state before the event, chk_after_event() after it. Attempts and snapshots:
 * chk_attempt_begin() once the model has isolated the range, chk_attempt_end() after
 * the attempt's last event, chk_at_snapshot() with the replay's score.
 */
int chk_before_event(struct chk_ctx *c, const struct model *m, const struct tr_event *ev);
int chk_after_event(struct chk_ctx *c, const struct model *m, const struct tr_event *ev);
int chk_attempt_begin(struct chk_ctx *c, const struct model *m, const struct tr_attempt *a);
int chk_attempt_end(struct chk_ctx *c, const struct model *m, const struct tr_attempt *a);
int chk_at_snapshot(struct chk_ctx *c, const struct model *m, struct tdb *db,
		    const struct rp_score *sc);
/* An offline probe refused at isolation, before (@done false) and after it was made. */
int chk_refusal(struct chk_ctx *c, const struct model *m, const struct tr_attempt *a,
		bool done);
/* End of the events: final recount and pageblock scan. */
int chk_finish(struct chk_ctx *c, const struct model *m);

/*
 * Model-wide checks at any point: freecount (model_recount()) and the pageblock scan
 * against the shadow taken at the last check. Violations carry the current event, if
 * any.
 */
int chk_model(struct chk_ctx *c, const struct model *m);

/*
 * Hypothetical attempts (predict): chk_contig_begin() before the model tries
 * [@start, @end) (it records the range's unmovable pages and pageblock types),
 * chk_after_contig() after the attempt returned @rc (0 = the range is allocated).
 * Checks: contig-exact (exactly the range allocated, nothing unmovable was in it),
 * isolation-escape (no isolated pageblock left, no free block crossing the range
 * edges of another isolation state), pageblock-type (types restored by the undo), and
 * freecount (recount). Nest them pairwise with model_checkpoint()/model_rollback():
 * the pageblock shadow keeps the state from before the attempt, so after a
 * model_commit() of one call chk_set_layout() to take the new state.
 */
int chk_contig_begin(struct chk_ctx *c, const struct model *m, uint64_t start, uint64_t end);
int chk_after_contig(struct chk_ctx *c, const struct model *m, uint64_t start, uint64_t end,
		     int rc);
/*
 * model_alloc_contig_range() checked: chk_contig_begin(), the attempt, chk_after_contig()
 * with the attempt's outcome (res->ret). A drop-in for predict; @c may be NULL (then it
 * is model_alloc_contig_range() alone).
 * Return: what model_alloc_contig_range() returned (the checkers' findings are in @c).
 */
int chk_alloc_contig_range(struct chk_ctx *c, struct model *m,
			   const struct model_contig_req *req, struct model_contig_result *res);

/* ---- results ---------------------------------------------------------------------- */

/* Violations kept, in the order found (borrowed until chk_destroy()). */
const struct chk_violation *chk_violations(const struct chk_ctx *c, size_t *nr);
/* Count of violations (all, not only kept) of invariant @i. */
uint64_t chk_inv_count(const struct chk_ctx *c, enum chk_inv i);
void chk_get_summary(const struct chk_ctx *c, struct chk_summary *out);

/**
 * chk_store() - append the results to @db (opened with TDB_WRITE) as one run: tables
 * check_runs (run, events, attempts, lost_windows, replayed), check_results (run,
 * checker, status, checks, violations, inconclusive) and check_violations (run,
 * checker, rule, seq, ts, cpu, pfn, ord, text) with the kept violations. Names are
 * those of invariants.def; seq/pfn are NULL when the violation has none. One
 * transaction: on any error nothing of the run is in @db.
 * Return: 0 and *@run (may be NULL), or a negative bc_err.
 */
int chk_store(const struct chk_ctx *c, struct tdb *db, int64_t *run);

enum chk_format { CHK_FMT_TEXT, CHK_FMT_TAP, CHK_FMT_JUNIT };

/**
 * chk_report() - write the violations and the summary to @fp.
 * @capture: the capture's name for the report headers.
 * Return: 0, or -BC_E_IO when writing failed.
 */
int chk_report(const struct chk_ctx *c, FILE *fp, enum chk_format fmt, const char *capture);

#endif
