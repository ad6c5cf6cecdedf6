/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the predict module (the files of predict/); never included elsewhere. */
#ifndef BC_PREDICT_LOCAL_H
#define BC_PREDICT_LOCAL_H

#include "predict/predict.h"
#include "predict/predict-run.h"
#include "db/tdb-snap.h"		/* struct tdb_pins */

/* A page a real attempt could not migrate, kept while it stays the same allocation. */
struct pr_pin {
	uint64_t pfn;
	uint64_t head;			/* its allocation head when noted */
	uint32_t alloc;			/* alloc_seq[head] when noted */
	uint64_t seq;			/* the attempt's test event */
	bool assumed;			/* not seen: a sibling of a pin (predict-pins.c) */
	char why[48];
};

/* A failed offline probe whose pins are learned when the replay reaches @seq. */
struct pr_pin_note {
	uint64_t seq;			/* its end marker */
	uint64_t start, end;		/* its block */
	uint64_t culprit;		/* the pfn the kernel named, UINT64_MAX if none */
	bool pins;			/* it failed with failed migrations: learn pins */
	int slab_vote;			/* order-0 slab pages passed: 1 yes, -1 no, 0 unknown */
};

struct pr_ctx {
	struct replay *rp;		/* borrowed */
	struct model *m;		/* borrowed (rp's) */
	struct tdb *db;			/* borrowed (rp's) */
	const struct model_layout *L;
	uint64_t base, span;		/* pfns covered by alloc_seq[] */
	/*
	 * seq + 1 of the last mm_page_alloc whose pfn is this head; 0 = none (seeded
	 * from a snapshot, or freed since). 4 bytes per pfn; seqs above 2^32 saturate.
	 */
	uint32_t *alloc_seq;
	struct pr_pin *pins;
	unsigned int nr_pins, cap_pins;
	uint32_t pins_gen;		/* bumped when a pin is added */
	struct pr_pin_note *notes;	/* by seq (probes are in time order) */
	unsigned int nr_notes, next_note;
	struct pr_index *ix;		/* the one index fed by pr_after_event(), or NULL */
	/*
	 * In-use user pages (anonymous or mapped) the newest snapshot shows off the LRU:
	 * waiting in a per-cpu LRU batch (lru_add). has_unmovable_pages() takes them as
	 * unmovable, and alloc_contig_range() isolates before lru_cache_disable() drains
	 * the batches, so they stop it until some attempt gets as far as migrating (or an
	 * offlining, which drains first). A bit per pfn; an event on the page clears it.
	 */
	uint64_t *lru_pending;
	uint64_t nr_lru_pending;
	bool lru_drained;		/* this question's search drained the batches */
	uint64_t attempts_run;		/* hypothetical attempts, all callers */
	/* has_unmovable_pages() passes order-0 slab pages (pr_learn_slab_rule()) */
	bool slab_passes;
	int slab_votes;			/* sum of the votes of the probes passed so far */
	/*
	 * The newest snapshot's longterm_pins (io_uring registered buffers, by pfn): pinned
	 * until the next snapshot replaces them (pr_refresh_seen_pins()). Empty when that
	 * snapshot has no such file (its reader did not look).
	 */
	struct tdb_pins seen;
	bool seen_listed;		/* that snapshot had the file */
};

/* What one attempt found besides its verdict. */
struct pr_attempt_info {
	const char *reason;		/* why the deciding page blocks */
	uint64_t migrated;		/* pages moved by the model's migration */
	uint64_t in_use, thp, file, unknown;	/* in-use pages of the range by kind */
	unsigned int assumptions;
};

/* ---- predict-ctx.c ---- */

/* Is @pfn covered by the per-pfn arrays (alloc_seq[], lru_pending[])? */
static inline bool pr_in_span(const struct pr_ctx *c, uint64_t pfn)
{
	return pfn >= c->base && pfn - c->base < c->span;
}

/* seq + 1 of the last allocation event whose head is @head, 0 when none. */
uint32_t pr_alloc_seq_at(const struct pr_ctx *c, uint64_t head);
/* The first likely-pinned page in [s, e) that is still the same allocation. */
bool pr_pinned_in(struct pr_ctx *c, uint64_t s, uint64_t e, uint64_t *pfn);

/* pr_feed_run(): predict/predict-run.h */

/* Remember @pfn as assumed pinned (PR_ASSUME_PIN_SIBLING); false if known already. */
bool pr_note_pin_assumed(struct pr_ctx *c, uint64_t pfn, uint64_t seq);
/* Is the pin noted at @pfn an assumption (a sibling), not seen? */
bool pr_pin_assumed(const struct pr_ctx *c, uint64_t pfn);
/* Does the newest snapshot's longterm_pins list @pfn? */
bool pr_pin_listed(const struct pr_ctx *c, uint64_t pfn);
/* Take snapshot @snap's longterm_pins as the pages pinned from now on. */
int pr_refresh_seen_pins(struct pr_ctx *c, int64_t snap);

/* ---- predict-pins.c ---- */
/* The most pages one mm_migrate_pages (offline, alloc_contig) in [@seq_from, @seq_to)
 * counted failed; 0: no failed migration. */
uint64_t pr_migrate_failed(struct pr_ctx *c, uint64_t seq_from, uint64_t seq_to);
/*
 * An attempt on [@s, @e) failed with its migrations failing (@culprit: the page the
 * kernel named, or UINT64_MAX): the user pages still in use there did not move, so
 * note each allocation as pinned (@why), and the other allocations of their tasks at
 * their orders as assumed pins. Return: pins noted.
 */
unsigned int pr_learn_pins(struct pr_ctx *c, uint64_t s, uint64_t e, uint64_t culprit,
			   uint64_t seq, const char *why);
/* The offline probes of the capture (c->notes): each drained its zone's pcp lists,
 * and those that failed with failed migrations show pins. */
int pr_load_probe_pins(struct pr_ctx *c);
/*
 * Does the traced kernel's has_unmovable_pages() pass order-0 slab pages? Sets the
 * release's default in c->slab_passes and each failed offline probe's vote in its
 * note; pr_pins_due() counts a vote once the replay has passed that probe, so a
 * question never learns from an attempt that ends after it (predict-ctx.c).
 * Return: 0 or a negative bc_err.
 */
int pr_learn_slab_rule(struct pr_ctx *c);
/* Apply the probes that ended before event @seq (UINT64_MAX: all): their zone's pcp
 * drain, their pins. */
int pr_pins_due(struct pr_ctx *c, uint64_t seq);

/* ---- predict-lru.c ---- */

/* Forget the LRU-batch pages in [pfn, pfn + n): an event settled them. */
void pr_lru_settle(struct pr_ctx *c, uint64_t pfn, uint64_t n);
/* A real attempt migrated: lru_cache_disable() drained every batch. */
void pr_lru_drain_all(struct pr_ctx *c);
/* The first LRU-batch page in [s, e) while the batches are not drained, or UINT64_MAX. */
uint64_t pr_lru_pending_in(const struct pr_ctx *c, uint64_t s, uint64_t e);

/* ---- predict-range.c ---- */

/* Why the page at @pfn blocks a candidate with verdict @v (static text). */
const char *pr_page_reason(struct pr_ctx *c, uint64_t pfn, enum pr_verdict v);
/*
 * pr_try_range() - alloc_contig_range() (or offline_pages() with @o->offline) on
 * [s, e) as a hypothetical attempt: the model is left as it was. Fills @cd and @ai.
 * Return: 0, or a negative bc_err.
 */
int pr_try_range(struct pr_ctx *c, const struct pr_opts *o, uint64_t s, uint64_t e,
		 struct pr_candidate *cd, struct pr_attempt_info *ai);
/*
 * The same attempt on a range that just succeeded, kept applied inside the caller's
 * checkpoint (the next of --count K sees it). Return: 0, 1 if the model's attempt now
 * fails, or a negative bc_err.
 */
int pr_apply_success(struct pr_ctx *c, const struct pr_opts *o, uint64_t s, uint64_t e);

/* ---- predict-search.c ---- */

/* One search: the candidates of an answer, the winner and the best failure. */
struct pr_search {
	struct pr_answer *a;		/* a->cand grows as candidates are tried */
	unsigned int cap;
	struct pr_attempt_info best_ai;	/* of the best failed candidate */
	int best;			/* its index, -1 */
	struct pr_attempt_info win_ai;
};

/* A zeroed candidate appended to S->a, or NULL when out of memory. */
struct pr_candidate *pr_search_add(struct pr_search *S);
/* Remember @cd if it won, or if it got further than the best failure so far. */
void pr_search_note(struct pr_search *S, const struct pr_candidate *cd,
		    const struct pr_attempt_info *ai);
/*
 * The searches of the two policies: candidates in the kernel's order until one
 * succeeds ([*win_s, *win_e), left alone when none does). Return: 0 or a negative bc_err.
 */
int pr_search_mainline(struct pr_ctx *c, const struct pr_opts *o, struct pr_search *S,
		       uint64_t *win_s, uint64_t *win_e);
int pr_search_v4(struct pr_ctx *c, const struct pr_opts *o, struct pr_search *S,
		 uint64_t *win_s, uint64_t *win_e);
/* Candidates of the mainline search, in order; calls @fn until it returns non-zero. */
int pr_mainline_candidates(const struct model_layout *L, const struct pr_opts *o,
			   int (*fn)(void *arg, uint64_t s, uint64_t e), void *arg);

/* ---- predict-ask.c ---- */

/* Fill @b for the page at @pfn, with the allocation event behind it when known. */
void pr_describe_blocker(struct pr_ctx *c, uint64_t pfn, const char *reason,
			 struct pr_blocker *b);

/* predict-index.c */
void pr_index_touch(struct pr_index *ix, uint64_t pfn, uint64_t n);
void pr_index_touch_all(struct pr_index *ix);

#endif
