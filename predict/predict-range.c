// SPDX-License-Identifier: GPL-2.0
/*
 * predict-range: one hypothetical attempt on a candidate [s, e), and its verdict.
 *
 * The attempt is model_alloc_contig_range() inside a checkpoint that is rolled back;
 * the stage that decided gives the verdict:
 *
 *   pre-screen (pfn_range_valid_contig())            -> invalid-range
 *   isolation (has_unmovable_pages(), an LRU batch)  -> isolation-fails (fail pfn)
 *   migration (-ENOMEM: gigantic, no target; a pin)  -> migration-fails
 *   test_pages_isolated(outer_start, e)              -> migration-fails (fin pfn)
 *
 * Predict's own knowledge enters through the request's hooks: LRU-batch pages, the
 * seeded flags-0 pages the drain would free, pages an earlier real attempt could not
 * migrate. A success that is kept (the next of --count K, pr_keep_range()) stays
 * applied inside the question's outer checkpoint.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "model/model.h"
#include "predict/predict-local.h"

/* Why the page at @pfn blocks (static text). */
const char *pr_page_reason(struct pr_ctx *c, uint64_t pfn, enum pr_verdict v)
{
	int cma = model_mt_of_name(model_get_profile(c->m), "CMA"), mt;
	struct model_pfn_info pi;

	/* has_unmovable_pages(): a MIGRATE_CMA block fails all isolation but cma_alloc()'s */
	if (v == PR_V_ISOLATION && cma >= 0 && !model_pageblock_mt(c->m, pfn, &mt, NULL, NULL) &&
	    mt == cma)
		return "MIGRATE_CMA pageblock (only a CMA allocation may isolate it)";
	if (v == PR_V_ISOLATION && pr_lru_pending_in(c, pfn, pfn + 1) == pfn)
		return "user page not on the LRU yet (per-cpu LRU batch; alloc_contig_range() "
		       "isolates before lru_cache_disable())";
	if (model_pfn_info(c->m, pfn, &pi))
		return "outside the model";
	switch (pi.state) {
	case MODEL_PFN_HOLE:
		return "hole (no memmap / not System RAM)";
	case MODEL_PFN_UNINIT:
		return "uninitialised memory (lazy struct page init)";
	case MODEL_PFN_BUDDY:
		return v == PR_V_ISOLATION ? "free page in an already isolated pageblock" :
		       "free page";
	case MODEL_PFN_PCP:
		return "page on a per-cpu list";
	default:
		break;
	}
	switch (pi.kind) {
	case MODEL_KIND_RESERVED:
		return "reserved page";
	case MODEL_KIND_HUGETLB:
		return v == PR_V_INVALID ? "hugetlb page (pfn_range_valid_contig rejects it)" :
		       "gigantic hugetlb page (cannot be migrated)";
	case MODEL_KIND_SLAB:
		return "slab page (unmovable)";
	case MODEL_KIND_PGTABLE:
		return "page table (unmovable)";
	case MODEL_KIND_KERNEL:
		return pi.drained ? "kernel page (flags 0, left by a full pcp drain: in use)" :
		       "kernel page (unmovable)";
	case MODEL_KIND_ZERO:
		return "zero page (unmovable)";
	case MODEL_KIND_COMPOUND:
		return "non-LRU compound page (unmovable)";
	case MODEL_KIND_UNKNOWN:
		if (pi.mt < 0)
			return "in-use page of unknown use (from the snapshot)";
		return pi.mt == 1 ? "movable allocation not yet confirmed" :
		       "non-movable allocation (unmovable)";
	case MODEL_KIND_ANON:
	case MODEL_KIND_FILE:
	case MODEL_KIND_THP:
		return v == PR_V_MIGRATION ? "LRU page that could not be migrated" : "LRU page";
	default:
		return model_kind_name(pi.kind);
	}
}

/* In-use pages of [s, e) by kind, counted per allocation. */
static void count_in_use(struct pr_ctx *c, uint64_t s, uint64_t e, struct pr_attempt_info *ai)
{
	struct model_pfn_info pi;
	uint64_t p = s, n;

	while (p < e) {
		if (model_pfn_info(c->m, p, &pi)) {
			p++;
			continue;
		}
		if (pi.state == MODEL_PFN_BUDDY || pi.state == MODEL_PFN_PCP) {
			p = pi.head + (1ull << pi.order);
			continue;
		}
		if (pi.state != MODEL_PFN_ALLOC) {
			p++;
			continue;
		}
		n = 1;
		if (pi.head == p && !pi.seeded && pi.order < 40)
			n = 1ull << pi.order;
		if (p + n > e)
			n = e - p;
		ai->in_use += n;
		if (pi.kind == MODEL_KIND_THP)
			ai->thp += n;
		else if (pi.kind == MODEL_KIND_FILE)
			ai->file += n;
		else if (pi.kind == MODEL_KIND_UNKNOWN && pi.mt < 0)
			ai->unknown += n;
		p += n;
	}
}

/*
 * Slab pages have refcount 0 on the traced 6.18 kernel (measured: dump_page() of a
 * slab page prints "refcount:0"), so has_unmovable_pages() takes an order-0 slab page
 * for a free one (its rule 5) and only migration and the test stop at it; compound
 * slab pages still fail isolation (rule 4).
 */
static bool slab_refcount_zero(const struct pr_ctx *c)
{
	return c->slab_passes;
}

/*
 * Pages that read flags 0 in the newest snapshot and saw no event since are on a
 * per-cpu list (refcount 0: has_unmovable_pages() passes them, drain_all_pages() frees
 * them); some are kernel pages with a refcount, which no snapshot shows (measured:
 * taking pages seen with flags 0 in two snapshots as kernel memory got more 1 GiB
 * landings wrong than it got culprit pfns right). The model keeps them as in-use pages
 * of unknown use, off every pcp list, so the drain cannot free them: free them here,
 * after the isolation (onto the isolated free lists), as the drain would. Measured:
 * 1 GiB probes succeed over them. Once a real drain of the whole zone has left such a
 * page in place it is a kernel page in use (model_zone_pcp_drained()), not freed here.
 */
static int free_seeded_unknown(struct pr_ctx *c, uint64_t s, uint64_t e,
			       struct pr_attempt_info *ai)
{
	uint64_t pbn = 1ull << c->L->pageblock_order, b, p;
	struct model_range_counts rc;
	struct model_pfn_info pi;
	int ret;

	for (b = s; b < e; b = (b & ~(pbn - 1)) + pbn) {
		uint64_t be = ((b & ~(pbn - 1)) + pbn) < e ? (b & ~(pbn - 1)) + pbn : e;

		model_range_counts(c->m, b, be, &rc);
		if (!rc.pages[MODEL_PBC_UNKNOWN])
			continue;
		for (p = b; p < be; p++) {
			if (model_pfn_info(c->m, p, &pi))
				continue;
			if (pi.state == MODEL_PFN_BUDDY || pi.state == MODEL_PFN_PCP) {
				p = pi.head + (1ull << pi.order) - 1;
				continue;
			}
			if (pi.state != MODEL_PFN_ALLOC ||
			    pi.kind != MODEL_KIND_UNKNOWN || pi.mt >= 0 || !pi.seeded ||
			    pr_alloc_seq_at(c, p))
				continue;
			ret = model_page_free(c->m, p, 0, 0);
			if (ret)
				return ret;
			ai->assumptions |= PR_ASSUME_SEEDED_UNKNOWN;
		}
	}
	return 0;
}

/* One attempt's view for model_alloc_contig_range()'s hooks. */
struct attempt {
	struct pr_ctx *c;
	struct pr_attempt_info *ai;
};

/*
 * A user page in a per-cpu LRU batch: alloc_contig_range() isolates before
 * lru_cache_disable() drains the batches.
 */
static uint64_t lru_batch_refused(void *arg, uint64_t s, uint64_t e)
{
	return pr_lru_pending_in(((struct attempt *)arg)->c, s, e);
}

/* After the drain: free the seeded flags-0 pages, count the in-use pages, find a pin. */
static int before_migrate(void *arg, struct model *m, uint64_t s, uint64_t e, uint64_t *pin)
{
	struct attempt *A = arg;
	int ret;

	(void)m;
	ret = free_seeded_unknown(A->c, s, e, A->ai);
	if (ret)
		return ret;
	count_in_use(A->c, s, e, A->ai);
	if (pr_pinned_in(A->c, s, e, pin)) {
		bool sibling = pr_pin_assumed(A->c, *pin);

		if (pr_pin_listed(A->c, *pin)) {
			A->ai->reason = "pinned (an io_uring registered buffer the snapshot lists)";
			A->ai->assumptions |= PR_ASSUME_SNAPSHOT_PIN;
			return 0;
		}
		A->ai->reason = sibling ? "assumed pinned (allocated with a page that a real "
			"attempt could not migrate)" :
			"likely pinned (an earlier real attempt could not migrate it)";
		A->ai->assumptions |= sibling ? PR_ASSUME_PIN_SIBLING : PR_ASSUME_LIKELY_PINNED;
	}
	return 0;
}

/* The verdict, page and reason of an attempt that model_alloc_contig_range() decided. */
static void judge(struct pr_ctx *c, const struct model_contig_result *res,
		  struct pr_candidate *cd, struct pr_attempt_info *ai)
{
	static const enum pr_verdict verdicts[] = {
		[MODEL_CONTIG_PRESCREEN] = PR_V_INVALID,
		[MODEL_CONTIG_ISOLATION] = PR_V_ISOLATION,
		[MODEL_CONTIG_MIGRATION] = PR_V_MIGRATION,
		[MODEL_CONTIG_TEST] = PR_V_MIGRATION,
		[MODEL_CONTIG_SUCCESS] = PR_V_SUCCESS,
	};
	struct model_pfn_info pi;

	cd->verdict = verdicts[res->stage];
	cd->pfn = res->pfn;
	cd->migrate_pages = res->migrated;
	ai->migrated = res->migrated;
	switch (res->stage) {
	case MODEL_CONTIG_SUCCESS:
		if (ai->migrated)
			ai->assumptions |= PR_ASSUME_MOVABLE_UNPINNED;
		return;
	case MODEL_CONTIG_MIGRATION:
		if (res->ret == -BC_E_BUSY)
			return;		/* a likely pin: before_migrate() said why */
		ai->reason = !model_pfn_info(c->m, cd->pfn, &pi) && pi.state == MODEL_PFN_ALLOC &&
			     pi.kind == MODEL_KIND_HUGETLB ? "gigantic hugetlb page (cannot be migrated)" :
			     "no free memory for a migration target";
		return;
	default:
		break;
	}
	ai->reason = pr_page_reason(c, cd->pfn, cd->verdict);
	/* a flags-0 page decided it: its refcount is assumed (0 for pcp, > 0 if drained) */
	if (res->stage != MODEL_CONTIG_PRESCREEN && !model_pfn_info(c->m, cd->pfn, &pi) &&
	    pi.state == MODEL_PFN_ALLOC &&
	    ((pi.kind == MODEL_KIND_UNKNOWN && pi.mt < 0) || pi.drained))
		ai->assumptions |= PR_ASSUME_SEEDED_UNKNOWN;
}

/*
 * A given range (a real attempt's, verify) on a MIGRATE_CMA pageblock is cma_alloc()'s
 * alloc_contig_range(MIGRATE_CMA): alloc_contig_pages() refuses CMA ranges.
 */
static bool cma_block(const struct model *m, uint64_t pfn)
{
	int stored, eff;
	bool iso;

	return model_get_profile(m)->cma && !model_pageblock_mt(m, pfn, &stored, &eff, &iso) &&
	       stored == 4;
}

/*
 * alloc_contig_range() (or offline_pages() with @o->offline) on [s, e) as a
 * hypothetical attempt; with @keep, a success stays applied (the range becomes one
 * hugetlb allocation, or offline memory) and its checkpoint is committed into the
 * caller's, so that --count sees exactly what the attempt did.
 */
static int try_range(struct pr_ctx *c, const struct pr_opts *o, uint64_t s, uint64_t e,
		     struct pr_candidate *cd, struct pr_attempt_info *ai, bool keep)
{
	struct attempt A = { c, ai };
	struct model_contig_req req = {
		.start = s,
		.end = e,
		.mode = o->offline ? MODEL_ISOLATE_MEM_OFFLINE :
			o->has_range && cma_block(c->m, s) ? MODEL_ISOLATE_CMA_ALLOC :
			MODEL_ISOLATE_OTHER,
		.kind = MODEL_KIND_HUGETLB,
		.flags = slab_refcount_zero(c) ? MODEL_CONTIG_SLAB_REFCOUNT_ZERO : 0,
		/* offline_pages() drains the LRU batches before isolating; alloc_contig_range() not */
		.unmovable_pfn = o->offline || o->policy != PR_POLICY_MAINLINE ? NULL :
				 lru_batch_refused,
		.before_migrate = before_migrate,
		.arg = &A,
	};
	struct model_contig_result res;
	int ret, ret2;

	memset(ai, 0, sizeof(*ai));
	cd->start_pfn = s;
	cd->end_pfn = e;
	cd->pfn = UINT64_MAX;
	cd->migrate_pages = 0;
	cd->cheap = false;
	c->attempts_run++;
	ret = model_checkpoint(c->m);
	if (ret)
		return ret;
	ret = model_alloc_contig_range(c->m, &req, &res);
	if (!ret) {
		/* past the isolation, alloc_contig_range() ran lru_cache_disable() */
		if (res.stage > MODEL_CONTIG_ISOLATION && !o->offline)
			c->lru_drained = true;
		judge(c, &res, cd, ai);
	}
	if (!ret && keep && res.stage == MODEL_CONTIG_SUCCESS)
		return model_commit(c->m);
	ret2 = model_rollback(c->m);
	return ret ? ret : ret2;
}

int pr_try_range(struct pr_ctx *c, const struct pr_opts *o, uint64_t s, uint64_t e,
		 struct pr_candidate *cd, struct pr_attempt_info *ai)
{
	return try_range(c, o, s, e, cd, ai, false);
}

/* Apply a success to the hypothetical state (inside the question's checkpoint). */
int pr_apply_success(struct pr_ctx *c, const struct pr_opts *o, uint64_t s, uint64_t e)
{
	struct pr_attempt_info ai;
	struct pr_candidate cd;
	uint64_t p, want;
	int ret;

	ret = try_range(c, o, s, e, &cd, &ai, true);
	if (ret)
		return ret;
	if (cd.verdict != PR_V_SUCCESS)
		return 1;	/* cannot happen: the same attempt just succeeded */
	if (o->offline)
		return 0;
	/* v4: nr_pages was rounded up to MAX_ORDER; the tail goes back */
	want = s + o->nr_pages;
	for (p = want; p < e;) {
		unsigned int order = 0;

		while (order < 10 && !(p & ((2ull << order) - 1)) && p + (2ull << order) <= e)
			order++;
		model_page_free(c->m, p, order, 0);
		p += 1ull << order;
	}
	return 0;
}
