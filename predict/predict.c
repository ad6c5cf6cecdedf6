// SPDX-License-Identifier: GPL-2.0
/*
 * predict: the two search policies and the hypothetical attempts behind every
 * answer (see predict.h).
 *
 * One attempt on a candidate [s, e) is model_alloc_contig_range() inside a checkpoint
 * that is rolled back; the stage that decided gives the verdict:
 *
 *   pre-screen (pfn_range_valid_contig())            -> invalid-range
 *   isolation (has_unmovable_pages(), an LRU batch)  -> isolation-fails (fail pfn)
 *   migration (-ENOMEM: gigantic, no target; a pin)  -> migration-fails
 *   test_pages_isolated(outer_start, e)              -> migration-fails (fin pfn)
 *
 * Predict's own knowledge enters through the request's hooks: LRU-batch pages, the
 * seeded flags-0 pages the drain would free, pages an earlier real attempt could not
 * migrate. A success that is kept (the next of --count K) stays applied inside the
 * question's outer checkpoint.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/kpageflags.h"
#include "db/tdb.h"
#include "db/tdb-pages.h"
#include "db/tdb-snap.h"
#include "db/tdb-trace.h"
#include "model/model.h"
#include "predict/predict-local.h"
#include "replay/replay.h"

#define _V(v, s) [PR_V_##v] = s,
static const char *const verdict_names[] = { PR_VERDICTS };
#undef _V

const char *pr_verdict_name(enum pr_verdict v)
{
	return v < PR_NR_VERDICTS ? verdict_names[v] : "?";
}

const char *pr_policy_name(enum pr_policy p)
{
	return p == PR_POLICY_V4 ? "v4" : "mainline";
}

int pr_policy_parse(const char *s, enum pr_policy *p)
{
	if (!strcmp(s, "mainline"))
		*p = PR_POLICY_MAINLINE;
	else if (!strcmp(s, "v4"))
		*p = PR_POLICY_V4;
	else
		return bc_error(BC_E_INVAL, "policy '%s' is not mainline or v4", s);
	return 0;
}

static const char *const assume_names[PR_NR_ASSUME] = {
	"movable-unpinned", "likely-pinned", "uncertain-pages", "seeded-unknown",
	"v4-undo-quirk",
};

static const char *const assume_texts[PR_NR_ASSUME] = {
	"the success migrates in-use pages: pins are invisible to tracepoints and "
	"snapshots, so a pinned page among them would make it fail",
	"a page that an earlier real attempt in the capture failed to migrate is taken as "
	"still pinned",
	"some pages of the range lie in lost-event windows: their state is a guess",
	"pages of unknown use from the snapshot (refcount 0 or a driver page) decided it",
	"v4: the seed's undo_isolate_page_range() with a count as end pfn (a no-op) is not "
	"modelled: failed candidates are un-isolated",
};

const char *pr_assumption_name(unsigned int bit)
{
	return bit < PR_NR_ASSUME ? assume_names[bit] : "?";
}

const char *pr_assumption_text(unsigned int bit)
{
	return bit < PR_NR_ASSUME ? assume_texts[bit] : "?";
}

int pr_opts_check(const struct pr_opts *o)
{
	if (!o->nr_pages)
		return bc_error(BC_E_INVAL, "the size must be at least one page");
	if (o->has_range && o->range_end <= o->range_start)
		return bc_error(BC_E_INVAL, "empty range [%#" PRIx64 ", %#" PRIx64 ")",
				o->range_start, o->range_end);
	if (o->has_range && !o->offline && o->range_end - o->range_start < o->nr_pages)
		return bc_error(BC_E_INVAL, "the range [%#" PRIx64 ", %#" PRIx64 ") is smaller "
				"than the size (%" PRIu64 " pages)", o->range_start, o->range_end,
				o->nr_pages);
	if (o->align_order > 30)
		return bc_error(BC_E_INVAL, "--align %d is too large", o->align_order);
	if (o->count > 1u << 20)
		return bc_error(BC_E_INVAL, "--count %u is too large", o->count);
	return 0;
}

/* ---- context ----------------------------------------------------------------------- */

static int ctx_create(struct replay *rp, struct model *m, struct pr_ctx **out)
{
	struct pr_ctx *c;
	const struct model_layout *L;
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned int i;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return bc_error(BC_E_NOMEM, "predict: out of memory");
	c->rp = rp;
	c->m = m;
	c->db = rp ? rp_tdb(rp) : NULL;
	L = model_get_layout(c->m);
	c->L = L;
	for (i = 0; i < L->nr_zones; i++) {
		if (!L->zones[i].spanned)
			continue;
		if (L->zones[i].start_pfn < lo)
			lo = L->zones[i].start_pfn;
		if (L->zones[i].start_pfn + L->zones[i].spanned > hi)
			hi = L->zones[i].start_pfn + L->zones[i].spanned;
	}
	if (lo >= hi) {
		free(c);
		return bc_error(BC_E_INVAL, "predict: the model has no zones");
	}
	c->base = lo;
	c->span = hi - lo;
	c->alloc_seq = calloc(c->span, sizeof(*c->alloc_seq));
	c->lru_pending = calloc((c->span + 63) / 64, sizeof(*c->lru_pending));
	if (!c->alloc_seq || !c->lru_pending) {
		free(c->alloc_seq);
		free(c->lru_pending);
		free(c);
		return bc_error(BC_E_NOMEM, "predict: out of memory (%" PRIu64 " pfns)", hi - lo);
	}
	*out = c;
	return 0;
}

int pr_create(struct replay *rp, struct pr_ctx **out)
{
	int ret = ctx_create(rp, rp_model(rp), out);

	/* the seed's user pages off the LRU wait in LRU batches too */
	if (!ret)
		ret = pr_refresh_lru_batches(*out, rp_seed_snapshot(rp));
	if (ret) {
		pr_destroy(*out);
		*out = NULL;
	}
	return ret;
}

int pr_create_model(struct model *m, struct pr_ctx **out)
{
	return ctx_create(NULL, m, out);
}

void pr_destroy(struct pr_ctx *c)
{
	if (!c)
		return;
	free(c->alloc_seq);
	free(c->lru_pending);
	free(c->pins);
	free(c);
}

static inline bool in_span(const struct pr_ctx *c, uint64_t pfn)
{
	return pfn >= c->base && pfn - c->base < c->span;
}

/* seq + 1 of the last allocation event whose head is @head, 0 when none. */
uint32_t pr_alloc_seq_at(const struct pr_ctx *c, uint64_t head)
{
	return in_span(c, head) ? c->alloc_seq[head - c->base] : 0;
}

/* Forget the LRU-batch pages in [pfn, pfn + n): an event settled them. */
static void lru_settle(struct pr_ctx *c, uint64_t pfn, uint64_t n)
{
	uint64_t p;

	if (!c->nr_lru_pending)
		return;
	for (p = pfn; p < pfn + n; p++) {
		uint64_t i;

		if (!in_span(c, p))
			continue;
		i = p - c->base;
		if (c->lru_pending[i / 64] & (1ull << (i % 64))) {
			c->lru_pending[i / 64] &= ~(1ull << (i % 64));
			c->nr_lru_pending--;
		}
	}
}

static void lru_drain_all(struct pr_ctx *c)
{
	if (!c->nr_lru_pending)
		return;
	memset(c->lru_pending, 0, (c->span + 63) / 64 * sizeof(*c->lru_pending));
	c->nr_lru_pending = 0;
	pr_touch_all(c);
}

/* The first LRU-batch page in [s, e) while the batches are not drained, or UINT64_MAX. */
static uint64_t lru_pending_in(const struct pr_ctx *c, uint64_t s, uint64_t e)
{
	uint64_t p;

	if (!c->nr_lru_pending || c->lru_drained)
		return UINT64_MAX;
	for (p = s; p < e; p++) {
		uint64_t i = p - c->base, w;

		if (!in_span(c, p))
			continue;
		w = c->lru_pending[i / 64] >> (i % 64);
		if (!w) {
			p += 63 - i % 64;	/* the rest of this word is clear */
			continue;
		}
		return p + (uint64_t)__builtin_ctzll(w);
	}
	return UINT64_MAX;
}

void pr_after_event(struct pr_ctx *c, const struct tr_event *ev)
{
	unsigned int order = ev->order;

	switch (ev->kind) {
	case TR_EV_PAGE_ALLOC:
		if (ev->pfn == UINT64_MAX)
			return;
		lru_settle(c, ev->pfn, order < 40 ? 1ull << order : 1);
		if (in_span(c, ev->pfn))
			c->alloc_seq[ev->pfn - c->base] = ev->seq + 1 > UINT32_MAX ? UINT32_MAX :
							   (uint32_t)(ev->seq + 1);
		break;
	case TR_EV_PAGE_FREE:
		if (ev->pfn != UINT64_MAX)
			lru_settle(c, ev->pfn, order < 40 ? 1ull << order : 1);
		if (ev->pfn != UINT64_MAX && in_span(c, ev->pfn))
			c->alloc_seq[ev->pfn - c->base] = 0;
		break;
	case TR_EV_EXTFRAG:
		order = ev->fallback_order;
		break;
	case TR_EV_ZONE_LOCKED:
	case TR_EV_PCPU_DRAIN:
	case TR_EV_FREE_BATCHED:
		break;
	case TR_EV_ISOLATE_MIGRATE:
	case TR_EV_ISOLATE_FREE:
	case TR_EV_TEST_ISOLATED:
		if (c->ix && ev->end_pfn > ev->start_pfn && ev->end_pfn != UINT64_MAX)
			pr_index_touch(c->ix, ev->start_pfn, ev->end_pfn - ev->start_pfn);
		return;
	default:
		return;
	}
	/*
	 * The counters the index reads change only for the pages of the event: splits and
	 * merges around them move free pages between free blocks, not between counters.
	 */
	if (c->ix && ev->pfn != UINT64_MAX)
		pr_index_touch(c->ix, ev->pfn, order < 40 ? 1ull << order : 1);
}

void pr_touch_all(struct pr_ctx *c)
{
	if (c->ix)
		pr_index_touch_all(c->ix);
}

void pr_note_pinned(struct pr_ctx *c, uint64_t pfn, uint64_t seq, const char *why)
{
	struct model_pfn_info pi;
	struct pr_pin *p;
	unsigned int i;

	if (model_pfn_info(c->m, pfn, &pi) || pi.state != MODEL_PFN_ALLOC)
		return;		/* the model has it free: nothing to remember */
	for (i = 0; i < c->nr_pins; i++)
		if (c->pins[i].pfn == pfn)
			break;
	if (i == c->nr_pins) {
		if (c->nr_pins == c->cap_pins) {
			unsigned int cap = c->cap_pins ? 2 * c->cap_pins : 16;
			struct pr_pin *g = realloc(c->pins, cap * sizeof(*g));

			if (!g)
				return;
			c->pins = g;
			c->cap_pins = cap;
		}
		c->nr_pins++;
	}
	p = &c->pins[i];
	p->pfn = pfn;
	p->head = pi.head;
	p->alloc = pr_alloc_seq_at(c, pi.head);
	p->seq = seq;
	snprintf(p->why, sizeof(p->why), "%s", why ? why : "");
	c->pins_gen++;
}

void pr_attempt_end(struct pr_ctx *c, const struct tr_attempt *a)
{
	if (!a->success && a->fin_pfn >= a->start_pfn && a->fin_pfn < a->end_pfn)
		pr_note_pinned(c, a->fin_pfn, a->seq_test, "earlier attempt failed here");
	/* It got as far as test_pages_isolated(): it migrated, so the batches drained. */
	lru_drain_all(c);
	pr_touch_all(c);
}

/* The first likely-pinned page in [s, e) that is still the same allocation. */
static bool pinned_in(struct pr_ctx *c, uint64_t s, uint64_t e, uint64_t *pfn)
{
	struct model_pfn_info pi;
	bool found = false;
	unsigned int i;

	for (i = 0; i < c->nr_pins; i++) {
		const struct pr_pin *p = &c->pins[i];

		if (p->pfn < s || p->pfn >= e || (found && p->pfn >= *pfn))
			continue;
		if (model_pfn_info(c->m, p->pfn, &pi) || pi.state != MODEL_PFN_ALLOC ||
		    pi.head != p->head || pr_alloc_seq_at(c, pi.head) != p->alloc)
			continue;
		*pfn = p->pfn;
		found = true;
	}
	return found;
}

/*
 * What a snapshot says beyond page kinds (those replay's resync takes over): which
 * user pages wait in per-cpu LRU batches, off the LRU, at that moment.
 */

/* Anonymous or mapped, in use, not on the LRU and nothing else: a page in an LRU batch. */
static bool lru_batch_flags(uint64_t f, uint64_t mapcount)
{
	const uint64_t other = KPF_BIT(KPF_LRU) | KPF_BIT(KPF_SLAB) | KPF_BIT(KPF_BUDDY) |
			       KPF_BIT(KPF_COMPOUND_HEAD) | KPF_BIT(KPF_COMPOUND_TAIL) |
			       KPF_BIT(KPF_HUGE) | KPF_BIT(KPF_NOPAGE) | KPF_BIT(KPF_THP) |
			       KPF_BIT(KPF_OFFLINE) | KPF_BIT(KPF_ZERO_PAGE) |
			       KPF_BIT(KPF_PGTABLE) | KPF_BIT(KPF_RESERVED);

	return !(f & other) && ((f & KPF_BIT(KPF_ANON)) || (mapcount && (f & KPF_BIT(KPF_MMAP))));
}

static uint64_t mark_lru_batch(struct pr_ctx *c, uint64_t pfn, uint64_t npfns,
			       uint64_t snap_seq)
{
	struct model_pfn_info pi;
	uint64_t p, n = 0;

	for (p = pfn; p < pfn + npfns; p++) {
		uint64_t i = p - c->base;

		if (!in_span(c, p) || model_pfn_info(c->m, p, &pi) || pi.state != MODEL_PFN_ALLOC)
			continue;
		if (!pi.seeded && pr_alloc_seq_at(c, pi.head) > snap_seq)
			continue;	/* allocated after the snapshot began */
		if (c->lru_pending[i / 64] & (1ull << (i % 64)))
			continue;
		c->lru_pending[i / 64] |= 1ull << (i % 64);
		c->nr_lru_pending++;
		n++;
	}
	return n;
}

uint64_t pr_mark_lru_batch(struct pr_ctx *c, uint64_t pfn, uint64_t npfns, uint64_t snap_seq)
{
	uint64_t n = mark_lru_batch(c, pfn, npfns, snap_seq);

	if (n)
		pr_touch_all(c);
	return n;
}

int pr_refresh_lru_batches(struct pr_ctx *c, int64_t snap)
{
	struct tdb_page_run run;
	struct tdb_snap_runs *it;
	struct tdb_snap_info si;
	uint64_t changed = 0, snap_seq = 0;
	int ret;

	if (!c->db)
		return 0;
	if (!tdb_snap_get(c->db, snap, &si) && si.seq_begin >= 0)
		snap_seq = (uint64_t)si.seq_begin;
	ret = tdb_snap_runs_open(c->db, snap, c->base, c->base + c->span, &it);
	if (ret)
		return ret;
	if (c->nr_lru_pending)
		changed++;
	memset(c->lru_pending, 0, (c->span + 63) / 64 * sizeof(*c->lru_pending));
	c->nr_lru_pending = 0;
	/* (kinds themselves are refreshed by replay's resync, rp_resync()) */
	while ((ret = tdb_snap_runs_next(it, &run)) == 1)
		if (lru_batch_flags(run.flags, run.count))
			changed += mark_lru_batch(c, run.pfn, run.npfns, snap_seq);
	tdb_snap_runs_close(it);
	if (changed)
		pr_touch_all(c);
	return ret < 0 ? ret : 0;
}

/* ---- one attempt --------------------------------------------------------------------- */

/* Why the page at @pfn blocks (static text). */
static const char *page_reason(struct pr_ctx *c, uint64_t pfn, enum pr_verdict v)
{
	struct model_pfn_info pi;

	if (v == PR_V_ISOLATION && lru_pending_in(c, pfn, pfn + 1) == pfn)
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
		return "kernel page (unmovable)";
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
	return model_get_profile(c->m)->version >= MODEL_KVER(6, 18, 0);
}

/*
 * Pages that read flags 0 in the newest snapshot and saw no event since are on a
 * per-cpu list (refcount 0: has_unmovable_pages() passes them, drain_all_pages() frees
 * them); some are kernel pages with a refcount, which no snapshot shows (measured:
 * taking pages seen with flags 0 in two snapshots as kernel memory got more 1 GiB
 * landings wrong than it got culprit pfns right). The model keeps them as in-use pages of unknown use, off every pcp
 * list, so the drain cannot free them: free them here, after the isolation (onto the
 * isolated free lists), as the drain would. Measured: 1 GiB probes succeed over them.
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
	return lru_pending_in(((struct attempt *)arg)->c, s, e);
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
	if (pinned_in(A->c, s, e, pin)) {
		A->ai->reason = "likely pinned (an earlier real attempt could not migrate it)";
		A->ai->assumptions |= PR_ASSUME_LIKELY_PINNED;
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
	ai->reason = page_reason(c, cd->pfn, cd->verdict);
	if (res->stage != MODEL_CONTIG_PRESCREEN && !model_pfn_info(c->m, cd->pfn, &pi) &&
	    pi.state == MODEL_PFN_ALLOC && pi.kind == MODEL_KIND_UNKNOWN && pi.mt < 0)
		ai->assumptions |= PR_ASSUME_SEEDED_UNKNOWN;
}

/*
 * alloc_contig_range() (or offline_pages() with @o->offline) on [s, e) as a
 * hypothetical attempt: the model is left as it was. Fills @cd and @ai.
 */
static int try_range(struct pr_ctx *c, const struct pr_opts *o, uint64_t s, uint64_t e,
		     struct pr_candidate *cd, struct pr_attempt_info *ai, bool keep);

int pr_try_range(struct pr_ctx *c, const struct pr_opts *o, uint64_t s, uint64_t e,
		 struct pr_candidate *cd, struct pr_attempt_info *ai)
{
	return try_range(c, o, s, e, cd, ai, false);
}

/*
 * The attempt itself; with @keep, a success stays applied (the range becomes one
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
		.mode = o->offline ? MODEL_ISOLATE_MEM_OFFLINE : MODEL_ISOLATE_OTHER,
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

/* v4 pre-screen: the first page of [s, e) that is not free, refcount 0 or LRU. */
static bool v4_prescreen(struct pr_ctx *c, uint64_t s, uint64_t e, uint64_t *bad)
{
	struct model_pfn_info pi;
	uint64_t p = s;

	while (p < e) {
		if (model_pfn_info(c->m, p, &pi))
			goto fail;
		switch (pi.state) {
		case MODEL_PFN_HOLE:
		case MODEL_PFN_UNINIT:
			goto fail;
		case MODEL_PFN_BUDDY:
		case MODEL_PFN_PCP:
			p = pi.head + (1ull << pi.order);
			continue;
		default:
			break;
		}
		switch (pi.kind) {
		case MODEL_KIND_ANON:
		case MODEL_KIND_FILE:
		case MODEL_KIND_THP:
			break;		/* PageLRU */
		case MODEL_KIND_UNKNOWN:
			if (pi.mt < 0)
				break;	/* seeded flags 0: refcount 0 (pcp, tail) */
			if (pi.mt == 1)
				break;	/* a movable allocation: user or page cache */
			goto fail;
		default:
			goto fail;
		}
		if (pi.head == p && !pi.seeded && pi.order < 40)
			p += 1ull << pi.order;
		else
			p++;
	}
	return true;
fail:
	*bad = p;
	return false;
}

/* ---- the searches ------------------------------------------------------------------- */

struct search {
	struct pr_answer *a;
	unsigned int cap;
	struct pr_attempt_info best_ai;	/* of the best failed candidate */
	int best;			/* its index, -1 */
	struct pr_attempt_info win_ai;
};

static int rank(enum pr_verdict v)
{
	switch (v) {
	case PR_V_MIGRATION: return 4;
	case PR_V_ISOLATION: return 3;
	case PR_V_PRESCREEN: return 2;
	case PR_V_INVALID: return 1;
	default: return 0;
	}
}

static struct pr_candidate *add_cand(struct search *S)
{
	struct pr_answer *a = S->a;

	if (a->nr_cand == S->cap) {
		unsigned int cap = S->cap ? 2 * S->cap : 32;
		struct pr_candidate *g = realloc(a->cand, cap * sizeof(*g));

		if (!g)
			return NULL;
		a->cand = g;
		S->cap = cap;
	}
	memset(&a->cand[a->nr_cand], 0, sizeof(a->cand[0]));
	return &a->cand[a->nr_cand++];
}

static void note_result(struct search *S, const struct pr_candidate *cd,
			const struct pr_attempt_info *ai)
{
	int i = (int)(cd - S->a->cand);

	if (cd->verdict == PR_V_SUCCESS) {
		S->win_ai = *ai;
		return;
	}
	if (S->best < 0 || rank(cd->verdict) > rank(S->a->cand[S->best].verdict)) {
		S->best = i;
		S->best_ai = *ai;
	}
}

/* Zones in the order alloc_contig_pages() walks them for GFP_HIGHUSER: highest
 * first, never ZONE_MOVABLE (gfp_zone() is ZONE_NORMAL). */
static int zone_order(const struct model_layout *L, int *z)
{
	int i, n = 0;

	for (i = (int)L->nr_zones - 1; i >= 0; i--) {
		if (!L->zones[i].spanned || L->zones[i].movable ||
		    !strcmp(L->zones[i].name, "Movable"))
			continue;
		z[n++] = i;
	}
	return n;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

static uint64_t align_down(uint64_t v, uint64_t a)
{
	return a ? v / a * a : v;
}

/* Candidates of the mainline search, in order; calls @fn until it returns non-zero. */
int pr_mainline_candidates(const struct model_layout *L, const struct pr_opts *o,
			   int (*fn)(void *arg, uint64_t s, uint64_t e), void *arg)
{
	uint64_t nr = o->nr_pages, step, pfn;
	int zones[MODEL_MAX_ZONES], nz, i, ret;

	step = o->align_order >= 0 ? 1ull << o->align_order : nr;
	if (o->has_range) {
		pfn = o->align_order >= 0 ? align_up(o->range_start, step) : o->range_start;
		if (o->align_order < 0)
			step = nr;
		for (; pfn + nr <= o->range_end; pfn += step) {
			ret = fn(arg, pfn, pfn + nr);
			if (ret)
				return ret;
		}
		return 0;
	}
	nz = zone_order(L, zones);
	for (i = 0; i < nz; i++) {
		const struct model_zone_layout *z = &L->zones[zones[i]];
		uint64_t zend = z->start_pfn + z->spanned;

		/* zone_spans_last_pfn(): the last pfn inside the zone span */
		for (pfn = align_up(z->start_pfn, step); pfn + nr - 1 < zend; pfn += step) {
			ret = fn(arg, pfn, pfn + nr);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct ml_arg {
	struct pr_ctx *c;
	const struct pr_opts *o;
	struct search *S;
	int err;
	bool found;
};

static int ml_try(void *arg, uint64_t s, uint64_t e)
{
	struct ml_arg *A = arg;
	struct pr_attempt_info ai;
	struct pr_candidate *cd = add_cand(A->S);

	if (!cd) {
		A->err = bc_error(BC_E_NOMEM, "predict: out of memory");
		return 1;
	}
	A->err = pr_try_range(A->c, A->o, s, e, cd, &ai);
	if (A->err)
		return 1;
	note_result(A->S, cd, &ai);
	if (cd->verdict == PR_V_SUCCESS) {
		A->found = true;
		return 1;
	}
	return 0;
}

static int search_mainline(struct pr_ctx *c, const struct pr_opts *o, struct search *S,
			   uint64_t *win_s, uint64_t *win_e)
{
	struct ml_arg A = { c, o, S, 0, false };

	pr_mainline_candidates(c->L, o, ml_try, &A);
	if (A.err)
		return A.err;
	if (A.found) {
		*win_s = S->a->cand[S->a->nr_cand - 1].start_pfn;
		*win_e = S->a->cand[S->a->nr_cand - 1].end_pfn;
	}
	return 0;
}

#define V4_MAX_ORDER	11	/* MAX_ORDER of 2010 (exclusive): 2048 pages */

static int search_v4(struct pr_ctx *c, const struct pr_opts *o, struct search *S,
		     uint64_t *win_s, uint64_t *win_e)
{
	const struct model_layout *L = c->L;
	unsigned int align_order = o->align_order > V4_MAX_ORDER ? (unsigned int)o->align_order :
				   V4_MAX_ORDER;
	uint64_t align = 1ull << align_order, maxb = 1ull << V4_MAX_ORDER;
	uint64_t nr = align_up(o->nr_pages, maxb);
	uint64_t base = o->has_range ? o->range_start : 0;
	uint64_t end = o->has_range ? o->range_end : UINT64_MAX;
	int zones[MODEL_MAX_ZONES], nz, i, ret;
	unsigned int r;

	nz = zone_order(L, zones);
	for (i = 0; i < nz; i++) {
		const struct model_zone_layout *z = &L->zones[zones[i]];
		uint64_t zs = z->start_pfn, ze = z->start_pfn + z->spanned;
		uint64_t ss = align_up(base > zs ? base : zs, align), se = end < ze ? end : ze;
		unsigned int nram = L->nr_ram ? L->nr_ram : 1;

		for (r = 0; r < nram; r++) {
			uint64_t cs = L->nr_ram ? L->ram[r].start : zs;
			uint64_t ce = L->nr_ram ? L->ram[r].end : ze;
			uint64_t pos, bad;

			/* walk_system_ram_range(): start aligned up, end down to MAX_ORDER */
			cs = align_up(cs > ss ? cs : ss, align);
			ce = align_down(ce < se ? ce : se, maxb);
			pos = cs;
			while (pos + nr <= ce) {
				struct pr_attempt_info ai;
				struct pr_candidate *cd = add_cand(S);

				if (!cd)
					return bc_error(BC_E_NOMEM, "predict: out of memory");
				if (!v4_prescreen(c, pos, pos + nr, &bad)) {
					cd->start_pfn = pos;
					cd->end_pfn = pos + nr;
					cd->verdict = PR_V_PRESCREEN;
					cd->pfn = bad;
					memset(&ai, 0, sizeof(ai));
					ai.reason = page_reason(c, bad, PR_V_PRESCREEN);
					note_result(S, cd, &ai);
					pos = align_up(bad + 1, align);
					continue;
				}
				ret = pr_try_range(c, o, pos, pos + nr, cd, &ai);
				if (ret)
					return ret;
				ai.assumptions |= PR_ASSUME_V4_UNDO_QUIRK;
				note_result(S, cd, &ai);
				if (cd->verdict == PR_V_SUCCESS) {
					*win_s = pos;
					*win_e = pos + nr;
					return 0;
				}
				if (cd->verdict == PR_V_ISOLATION || cd->pfn == UINT64_MAX ||
				    cd->pfn < pos || cd->pfn >= pos + nr)
					pos += align;
				else	/* resume after the page that stayed */
					pos = align_up(cd->pfn + 1, align);
			}
		}
	}
	return 0;
}

/* ---- describing the blocker ---------------------------------------------------------- */

static int read_event(struct pr_ctx *c, uint64_t seq, struct tr_event *ev)
{
	struct tdb_cursor *cur;
	struct bc_event raw;
	int ret;

	ret = tdb_cursor_open(c->db, seq, seq + 1, &cur);
	if (ret)
		return ret;
	ret = tdb_cursor_next(cur, &raw);
	if (ret == 1)
		tr_decode(rp_decoder(c->rp), &raw, ev);
	tdb_cursor_close(cur);
	return ret == 1 ? 0 : -BC_E_NOENT;
}

void pr_describe_blocker(struct pr_ctx *c, uint64_t pfn, const char *reason,
			 struct pr_blocker *b)
{
	struct model_pfn_info pi;
	uint32_t aseq;
	int eff = -1;

	memset(b, 0, sizeof(*b));
	b->pfn = pfn;
	b->reason = reason ? reason : "";
	b->mt = -1;
	b->pageblock_mt = -1;
	if (model_pfn_info(c->m, pfn, &pi))
		return;
	b->state = pi.state;
	b->kind = pi.kind;
	b->head = pi.head;
	b->order = pi.order;
	b->mt = pi.mt;
	b->uncertain = pi.uncertain;
	if (!model_pageblock_mt(c->m, pfn, NULL, &eff, NULL))
		b->pageblock_mt = eff;
	if (pi.state != MODEL_PFN_ALLOC)
		return;
	aseq = pr_alloc_seq_at(c, pi.head);
	b->ev.seq = aseq ? aseq - 1 : 0;
	if (aseq && aseq != UINT32_MAX && c->rp) {
		struct tr_event ev;

		if (!read_event(c, aseq - 1, &ev) && ev.kind == TR_EV_PAGE_ALLOC &&
		    ev.pfn <= pfn && ev.order < 40 && pfn < ev.pfn + (1ull << ev.order)) {
			b->ev.found = true;
			b->ev.seq = ev.seq;
			b->ev.ts = ev.ts;
			b->ev.cpu = ev.cpu;
			b->ev.pid = ev.pid;
			b->ev.order = ev.order;
			b->ev.gfp = ev.gfp;
			b->ev.mt = ev.mt;
			/* names only: the answer stands without them */
			tdb_comm(c->db, ev.pid, b->ev.comm, sizeof(b->ev.comm));
			tdb_stack(c->db, ev.seq, &b->ev.stack);
		}
	}
}

/* ---- questions ------------------------------------------------------------------------ */

void pr_answers_free(struct pr_answer *a, unsigned int nr)
{
	unsigned int i;

	if (!a)
		return;
	for (i = 0; i < nr; i++) {
		free(a[i].cand);
		free(a[i].blocker.ev.stack);
	}
	free(a);
}

/* Apply a success to the hypothetical state (inside the question's checkpoint). */
static int apply_success(struct pr_ctx *c, const struct pr_opts *o, uint64_t s, uint64_t e)
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

int pr_ask(struct pr_ctx *c, const struct pr_opts *opts, uint64_t at_seq, uint64_t at_ts,
	   struct pr_answer **out, unsigned int *nr)
{
	unsigned int count = opts->count ? opts->count : 1, i;
	struct pr_answer *ans;
	struct pr_opts o = *opts;
	int ret, ret2;

	*out = NULL;
	*nr = 0;
	ret = pr_opts_check(&o);
	if (ret)
		return ret;
	if (o.offline)
		count = 1;
	ans = calloc(count, sizeof(*ans));
	if (!ans)
		return bc_error(BC_E_NOMEM, "predict: out of memory");
	ret = model_checkpoint(c->m);
	if (ret) {
		free(ans);
		return ret;
	}
	c->lru_drained = false;		/* one question: K writes of nr_hugepages in a row */
	for (i = 0; i < count; i++) {
		struct pr_answer *a = &ans[i];
		struct search S = { .a = a, .best = -1 };
		uint64_t ws = UINT64_MAX, we = UINT64_MAX;

		a->at_seq = at_seq;
		a->at_ts = at_ts;
		a->index = i;
		a->policy = o.policy;
		a->nr_pages = o.nr_pages;
		a->start_pfn = a->end_pfn = UINT64_MAX;
		(*nr)++;
		if (o.offline) {
			struct pr_attempt_info ai;
			struct pr_candidate *cd = add_cand(&S);

			ret = cd ? pr_try_range(c, &o, o.range_start, o.range_end, cd, &ai) :
			      bc_error(BC_E_NOMEM, "predict: out of memory");
			if (!ret) {
				note_result(&S, cd, &ai);
				if (cd->verdict == PR_V_SUCCESS)
					ws = o.range_start, we = o.range_end;
			}
		} else if (o.policy == PR_POLICY_V4) {
			ret = search_v4(c, &o, &S, &ws, &we);
		} else {
			ret = search_mainline(c, &o, &S, &ws, &we);
		}
		if (ret)
			break;
		if (ws != UINT64_MAX) {
			a->success = true;
			a->start_pfn = ws;
			a->end_pfn = we;
			a->migrate_pages = S.win_ai.migrated;
			a->migrate_thp = S.win_ai.thp;
			a->migrate_file = S.win_ai.file;
			a->assumptions = S.win_ai.assumptions;
			if (model_count_uncertain(c->m, ws, we - ws))
				a->assumptions |= PR_ASSUME_UNCERTAIN;
			if (i + 1 < count) {
				ret = apply_success(c, &o, ws, we);
				if (ret > 0) {
					/* the model's own alloc_contig_range() disagrees: stop */
					ret = 0;
					break;
				}
				if (ret)
					break;
			}
			continue;
		}
		if (S.best >= 0) {
			const struct pr_candidate *cd = &a->cand[S.best];

			a->assumptions = S.best_ai.assumptions;
			if (model_count_uncertain(c->m, cd->start_pfn, cd->end_pfn - cd->start_pfn))
				a->assumptions |= PR_ASSUME_UNCERTAIN;
			if (cd->pfn != UINT64_MAX) {
				a->has_blocker = true;
				pr_describe_blocker(c, cd->pfn, S.best_ai.reason, &a->blocker);
			}
		}
		break;		/* the pool stops growing at the first failure */
	}
	ret2 = model_rollback(c->m);
	if (!ret)
		ret = ret2;
	if (ret) {
		pr_answers_free(ans, *nr);
		*nr = 0;
		return ret;
	}
	*out = ans;
	return 0;
}

int pr_ask_before(struct pr_ctx *c, const struct pr_opts *o, const struct tr_event *ev,
		  struct pr_answer **out, unsigned int *nr)
{
	const struct tr_attempt *a;
	int n = 0, i, ret, ret2;

	ret = model_checkpoint(c->m);
	if (ret)
		return ret;
	/* attempt_begin ran just before this event's hooks: the kernel had not yet */
	a = c->rp ? rp_attempts(c->rp, &n) : NULL;
	for (i = 0; i < n; i++)
		if (a[i].seq_begin == ev->seq && rp_attempt_isolated(c->rp, i))
			model_undo_isolate_range(c->m, a[i].start_pfn, a[i].end_pfn);
	ret = pr_ask(c, o, ev->seq, ev->ts, out, nr);
	ret2 = model_rollback(c->m);
	if (!ret && ret2) {
		pr_answers_free(*out, *nr);
		*out = NULL;
		*nr = 0;
	}
	return ret ? ret : ret2;
}
