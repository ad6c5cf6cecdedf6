/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the predict module (the files of predict/); never included elsewhere. */
#ifndef BC_PREDICT_LOCAL_H
#define BC_PREDICT_LOCAL_H

#include "predict/predict.h"

/* A page a real attempt could not migrate, kept while it stays the same allocation. */
struct pr_pin {
	uint64_t pfn;
	uint64_t head;			/* its allocation head when noted */
	uint32_t alloc;			/* alloc_seq[head] when noted */
	uint64_t seq;			/* the attempt's test event */
	char why[48];
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
};

/* What one attempt found besides its verdict. */
struct pr_attempt_info {
	const char *reason;		/* why the deciding page blocks */
	uint64_t migrated;		/* pages moved by the model's migration */
	uint64_t in_use, thp, file, unknown;	/* in-use pages of the range by kind */
	unsigned int assumptions;
};

uint32_t pr_alloc_seq_at(const struct pr_ctx *c, uint64_t head);
int pr_try_range(struct pr_ctx *c, const struct pr_opts *o, uint64_t s, uint64_t e,
		 struct pr_candidate *cd, struct pr_attempt_info *ai);
void pr_describe_blocker(struct pr_ctx *c, uint64_t pfn, const char *reason,
			 struct pr_blocker *b);
int pr_mainline_candidates(const struct model_layout *L, const struct pr_opts *o,
			   int (*fn)(void *arg, uint64_t s, uint64_t e), void *arg);

/* predict-index.c */
void pr_index_touch(struct pr_index *ix, uint64_t pfn, uint64_t n);
void pr_index_touch_all(struct pr_index *ix);

#endif
