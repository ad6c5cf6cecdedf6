/* SPDX-License-Identifier: GPL-2.0 */
/*
 * predict: would a contiguous allocation succeed on the replayed state, where, at
 * what cost, and if not, which page stops it and which event made it so.
 *
 * Two policies answer on the same model state (model/model.h), always as
 * hypothetical attempts inside model_checkpoint()/model_rollback():
 *
 *   mainline  alloc_contig_pages() of the traced kernel as hugetlb calls it for
 *             gigantic pages (GFP_HIGHUSER | __GFP_THISNODE | __GFP_COMP): zones
 *             highest first (Normal, DMA32, DMA; never Movable), candidates
 *             ALIGN(zone_start, nr) stepping by nr while the last pfn is in the
 *             zone span, pfn_range_valid_contig(), then alloc_contig_range():
 *             isolation with has_unmovable_pages(), pcp drain, migration (targets
 *             from the model's own allocator, outside the isolated range),
 *             test_pages_isolated() from outer_start.
 *   v4        alloc_contig_pages(base, end, nr, align) of the 2010 "big chunk memory
 *             allocator v4": within [base, end) of System RAM, align raised to the
 *             2010 MAX_ORDER (11: 2048 pages), nr rounded up to 2048, a pre-screen
 *             (every page free, refcount 0 or PageLRU, not Reserved) that skips past
 *             the first offending page, isolation, migration, test, tail freed.
 *
 * A struct pr_ctx follows a replay through its hooks (pr_after_event() etc.) and
 * keeps what the model does not: the seq of the last allocation event of every
 * allocation head (to name the event that made a blocker), pages that earlier real
 * attempts failed to migrate (likely pinned), and the per-pageblock counter copies
 * of the cheap index used by pr_index_*() (evaluation at every event).
 *
 * Pinned pages are invisible to tracepoints and snapshots: every success that needs
 * migration says how many in-use pages it assumes movable.
 *
 * predict-run.h is the driver on top: one replay of a capture, the question asked at
 * the points wanted, the run stored. predict.c lists which file does which job.
 */
#ifndef BC_PREDICT_H
#define BC_PREDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

struct replay;
struct tr_event;
struct tr_attempt;
struct tdb;

enum pr_policy {
	PR_POLICY_MAINLINE,
	PR_POLICY_V4,
};
const char *pr_policy_name(enum pr_policy p);
/* Return: 0 and *@p for "mainline" / "v4", else -BC_E_INVAL. */
int pr_policy_parse(const char *s, enum pr_policy *p);

/* A candidate's fate. Stable numbers and names. */
#define PR_VERDICTS							\
	_V(NOT_TRIED,	"not-tried")					\
	_V(INVALID,	"invalid-range")	/* pfn_range_valid_contig() */	\
	_V(PRESCREEN,	"prescreen-fails")	/* v4: not free/LRU/refcount 0 */ \
	_V(ISOLATION,	"isolation-fails")	/* start_isolate_page_range() */ \
	_V(MIGRATION,	"migration-fails")	/* a page stayed: test fails */	\
	_V(SUCCESS,	"success")

#define _V(v, s) PR_V_##v,
enum pr_verdict { PR_VERDICTS PR_NR_VERDICTS };
#undef _V
const char *pr_verdict_name(enum pr_verdict v);

/* What an answer assumes (bits of pr_answer.assumptions). */
enum {
	PR_ASSUME_MOVABLE_UNPINNED = 1 << 0,	/* success needs migrating in-use pages */
	PR_ASSUME_LIKELY_PINNED = 1 << 1,	/* a page an earlier attempt could not migrate */
	PR_ASSUME_UNCERTAIN = 1 << 2,		/* pages in lost-event windows in the range */
	PR_ASSUME_SEEDED_UNKNOWN = 1 << 3,	/* snapshot pages of unknown use decided it */
	PR_ASSUME_V4_UNDO_QUIRK = 1 << 4,	/* v4: the seed's no-op undo is not modelled */
	PR_ASSUME_PIN_SIBLING = 1 << 5,		/* pinned with a page that could not migrate */
	PR_ASSUME_SNAPSHOT_PIN = 1 << 6,	/* a snapshot's longterm_pins lists it */
	PR_NR_ASSUME = 7,
};
/* One sentence per bit (bit index), for reports. */
const char *pr_assumption_text(unsigned int bit);
const char *pr_assumption_name(unsigned int bit);

struct pr_opts {
	enum pr_policy policy;
	uint64_t nr_pages;		/* size of one allocation, pages (> 0) */
	unsigned int count;		/* allocations in a row (>= 1; 0 = 1) */
	bool has_range;			/* restrict to [range_start, range_end) */
	uint64_t range_start, range_end;
	int align_order;		/* -1: the policy's own (mainline: the size) */
	/*
	 * offline_pages() semantics instead of alloc_contig_range() (verify of memory
	 * block offline probes): one candidate = the range, MEM_OFFLINE isolation,
	 * migration without a retry limit (pinned pages fail it), the MEM_OFFLINE test.
	 */
	bool offline;
};

/* Reject @o with a message when it makes no sense (size 0, range too small...). */
int pr_opts_check(const struct pr_opts *o);

struct pr_candidate {
	uint64_t start_pfn, end_pfn;
	enum pr_verdict verdict;
	uint64_t pfn;			/* first pfn that decided it (UINT64_MAX: none) */
	uint64_t migrate_pages;		/* in-use pages it had to move (tried ones) */
	bool cheap;			/* decided from pageblock counters, no attempt run */
};

/* The allocation event behind a blocking page (from the capture). */
struct pr_alloc_event {
	bool found;			/* false: allocated before the capture (snapshot) */
	uint64_t seq, ts;		/* seq: also without a capture (pr_create_model()) */
	int cpu, pid;
	char comm[32];
	unsigned int order;
	uint64_t gfp;
	int mt;
	char *stack;			/* malloc'ed frames (record --stacks), or NULL */
};

struct pr_blocker {
	uint64_t pfn;
	enum model_pfn_state state;
	enum model_kind kind;
	uint64_t head;			/* allocation or free block holding pfn */
	unsigned int order;
	int mt;				/* -1 unknown */
	int pageblock_mt;		/* effective type of its pageblock */
	const char *reason;		/* static text: "unmovable page", "hole", ... */
	bool uncertain;
	struct pr_alloc_event ev;
};

/* One allocation asked for. */
struct pr_answer {
	uint64_t at_seq, at_ts;		/* state before event at_seq */
	unsigned int index;		/* 0..count-1 within one question */
	enum pr_policy policy;
	uint64_t nr_pages;
	bool success;
	uint64_t start_pfn, end_pfn;	/* the chosen range; UINT64_MAX on failure */
	uint64_t migrate_pages;		/* in-use pages moved (chosen range) */
	uint64_t migrate_thp;		/* ... of which THP pages (could be split/reclaimed) */
	uint64_t migrate_file;		/* ... of which page cache (clean ones reclaimable) */
	struct pr_candidate *cand;	/* every candidate tried, in search order */
	unsigned int nr_cand;
	bool has_blocker;		/* failure: the page that decided it */
	struct pr_blocker blocker;
	unsigned int assumptions;	/* PR_ASSUME_* */
};

struct pr_ctx;

/**
 * pr_create() - prepare predictions on the model of @rp (borrowed until
 * pr_destroy()); the tdb of @rp is used to describe blocking events.
 * Return: 0 and *@out (caller frees with pr_destroy()), or a negative bc_err.
 */
int pr_create(struct replay *rp, struct pr_ctx **out);
/* The same on a bare model (tests, tools): no capture, so blockers carry only the
 * seq of their allocation event (pr_blocker.ev.seq, found = false). */
int pr_create_model(struct model *m, struct pr_ctx **out);
void pr_destroy(struct pr_ctx *c);

/* Feed from the replay hooks: after_event (every event), attempt_end, at_snapshot. */
void pr_after_event(struct pr_ctx *c, const struct tr_event *ev);
void pr_attempt_end(struct pr_ctx *c, const struct tr_attempt *a);
/* Everything may have changed (snapshot resync, attempt isolation). */
void pr_touch_all(struct pr_ctx *c);
/*
 * at_snapshot (and for the seed, in pr_create()): the user pages snapshot @snap shows
 * off the LRU become the LRU-batch pages (pr_mark_lru_batch()), replacing the earlier
 * snapshot's. The pages' kinds are replay's (rp_resync()). Return: 0 or a negative
 * bc_err.
 */
int pr_refresh_lru_batches(struct pr_ctx *c, int64_t snap);
/*
 * pr_mark_lru_batch() - take the in-use pages of [pfn, pfn + npfns) (allocated before
 * @snap_seq) as user pages waiting in a per-cpu LRU batch, as a snapshot shows them
 * (anonymous or mapped, no LRU flag): they stop mainline isolation (has_unmovable_pages();
 * alloc_contig_range() drains the batches only later, in lru_cache_disable()) until an
 * event on the page, a real attempt, or a hypothetical one that reaches migration.
 * pr_refresh_lru_batches() calls it. Return: pages marked.
 */
uint64_t pr_mark_lru_batch(struct pr_ctx *c, uint64_t pfn, uint64_t npfns, uint64_t snap_seq);
/*
 * Remember @pfn as likely pinned: a real attempt (@why) could not migrate it. Kept
 * while the page stays the same allocation.
 */
void pr_note_pinned(struct pr_ctx *c, uint64_t pfn, uint64_t seq, const char *why);

/**
 * pr_ask() - answer @o on the current model state (left unchanged).
 * @at_seq, @at_ts: where the state is (stored in the answers).
 * @out: malloc'ed array of *@nr answers (1..count: stops after the first failure);
 *       free with pr_answers_free().
 * Return: 0, or a negative bc_err.
 */
int pr_ask(struct pr_ctx *c, const struct pr_opts *o, uint64_t at_seq, uint64_t at_ts,
	   struct pr_answer **out, unsigned int *nr);
void pr_answers_free(struct pr_answer *a, unsigned int nr);
/*
 * pr_ask() from a before_event hook: the state before @ev, with the snapshots that end
 * at @ev already scored (and resynchronised), and the isolation of a real attempt
 * beginning at @ev (done by replay just before) left out.
 */
int pr_ask_before(struct pr_ctx *c, const struct pr_opts *o, const struct tr_event *ev,
		  struct pr_answer **out, unsigned int *nr);

/*
 * Cheap index for asking at every event: per-pageblock counter copies summed per
 * candidate, refreshed only where events touched. pr_index_sig() gives a signature of
 * the answer (outcome and ranges) that costs no attempt in the common case; callers
 * run pr_ask() only when it changes.
 */
struct pr_index;
int pr_index_create(struct pr_ctx *c, const struct pr_opts *o, struct pr_index **out);
void pr_index_destroy(struct pr_index *ix);
/* Signature of the answer now; equal signatures = same outcome and ranges. */
uint64_t pr_index_sig(struct pr_index *ix);

struct pr_index_stats {
	uint64_t questions;		/* pr_index_sig() calls */
	uint64_t pageblocks_refreshed;
	uint64_t cheap_decisions;	/* candidates decided from counters */
	uint64_t attempts_run;		/* hypothetical attempts the index had to run */
};
void pr_index_get_stats(const struct pr_index *ix, struct pr_index_stats *st);

/* ---- storing answers (tables predictions, prediction_candidates; db/schema.sql) ---- */

/**
 * pr_store_answers() - store one predict run in @db (open with TDB_WRITE): a
 * prediction_runs row describing @o (@mode: "end", "at", "every", "attempts") and
 * @cmdline, and the @nr answers @ans with their candidates, in one transaction.
 * Return: 0, or a negative bc_err; then nothing of the run is in @db.
 */
int pr_store_answers(struct tdb *db, const struct pr_opts *o, const char *mode,
		     const char *cmdline, const struct pr_answer *ans, unsigned int nr);

struct pr_verify;
/* The same for a predict --verify run (mode "verify", rows of verify_results). */
int pr_store_verify(struct tdb *db, const struct pr_opts *o, const char *cmdline,
		    const struct pr_verify *v);

/* ---- verify (predict-verify.c) ---------------------------------------------------- */

enum pr_attempt_class {
	PR_VK_HUGETLB_1G,		/* a record --probe 1G probe (K pages in a row) */
	PR_VK_OFFLINE,			/* a record --probe-offline block */
	PR_VK_TRACE,			/* a test_pages_isolated attempt found by replay */
	PR_NR_VK,
};
const char *pr_attempt_class_name(enum pr_attempt_class k);

struct pr_verify_item {
	enum pr_attempt_class kind;
	int64_t probe_id;		/* probes.id, -1 for trace attempts */
	uint64_t seq;			/* predicted from the state before this event */
	uint64_t ts;
	uint64_t start_pfn, end_pfn;	/* offline / trace: the range; hugetlb: 0 */
	bool offline_semantics;		/* predicted as offline_pages() */
	uint64_t seq_end;		/* offline probe: its end marker (0: unknown) */
	/* the kernel */
	bool k_success;
	unsigned int k_nr;		/* hugetlb: pages obtained */
	uint64_t *k_ranges;		/* hugetlb: landing start pfns, k_nr of them */
	uint64_t k_pfn;			/* failure: fin_pfn or culprit, UINT64_MAX if none */
	char k_culprit[64];
	uint64_t k_migrate_failed;	/* failure: pages its migrations failed on */
	/* the prediction */
	bool p_success;
	unsigned int p_nr;
	uint64_t *p_ranges;
	uint64_t p_pfn;
	char p_reason[128];
	unsigned int p_assumptions;
	/* the comparison */
	bool agree;
	/*
	 * The kernel's outcome may hinge on state no trace or snapshot shows: "pin" (a
	 * GUP pin keeps an LRU page from migrating) or "refcount" (a page of unknown
	 * use from the snapshot: refcount 0 on a pcp list, or a kernel page). NULL: no.
	 */
	const char *invisible;
	bool depends_on_pins;		/* invisible != NULL */
#define PR_RACE "race"			/* invisible: the culprit was allocated during the attempt */
#define PR_LOST "lost events"		/* invisible: the culprit lies in a lost-event window */
/* invisible: an order-0 slab page the model passed: this build's rule, not yet learned */
#define PR_SLAB_RULE "isolation rule for slab pages (learned from the first failed offline on)"
	char why[384];			/* disagreement: what differs */
};

struct pr_verify {
	struct pr_verify_item *items;
	unsigned int nr;
	unsigned int agree;
	unsigned int by_kind[PR_NR_VK][2];	/* [kind][0] = attempts, [1] = agree */
	unsigned int pin_dependent, pin_dependent_agree;
};

/**
 * pr_verify_run() - replay the capture of @rp from its start and, before every real
 * attempt (probe markers, rp_attempts()), predict it with @policy; compare with what
 * the kernel did. @rp must be fresh (nothing run yet).
 * Return: 0 and @out filled (free with pr_verify_release()), or a negative bc_err.
 */
int pr_verify_run(struct replay *rp, enum pr_policy policy, struct pr_verify *out);
void pr_verify_release(struct pr_verify *v);

#endif
