// SPDX-License-Identifier: GPL-2.0
/*
 * predict-search: the candidate ranges of each policy in the order the kernel tries
 * them, each judged by pr_try_range() until one succeeds (predict.h describes both
 * policies). The candidate that got furthest is kept to explain a failure.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "model/model.h"
#include "predict/predict-local.h"

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

struct pr_candidate *pr_search_add(struct pr_search *S)
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

void pr_search_note(struct pr_search *S, const struct pr_candidate *cd,
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
	struct pr_search *S;
	int err;
	bool found;
};

static int ml_try(void *arg, uint64_t s, uint64_t e)
{
	struct ml_arg *A = arg;
	struct pr_attempt_info ai;
	struct pr_candidate *cd = pr_search_add(A->S);

	if (!cd) {
		A->err = bc_error(BC_E_NOMEM, "predict: out of memory");
		return 1;
	}
	A->err = pr_try_range(A->c, A->o, s, e, cd, &ai);
	if (A->err)
		return 1;
	pr_search_note(A->S, cd, &ai);
	if (cd->verdict == PR_V_SUCCESS) {
		A->found = true;
		return 1;
	}
	return 0;
}

int pr_search_mainline(struct pr_ctx *c, const struct pr_opts *o, struct pr_search *S,
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

int pr_search_v4(struct pr_ctx *c, const struct pr_opts *o, struct pr_search *S,
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
				struct pr_candidate *cd = pr_search_add(S);

				if (!cd)
					return bc_error(BC_E_NOMEM, "predict: out of memory");
				if (!v4_prescreen(c, pos, pos + nr, &bad)) {
					cd->start_pfn = pos;
					cd->end_pfn = pos + nr;
					cd->verdict = PR_V_PRESCREEN;
					cd->pfn = bad;
					memset(&ai, 0, sizeof(ai));
					ai.reason = pr_page_reason(c, bad, PR_V_PRESCREEN);
					pr_search_note(S, cd, &ai);
					pos = align_up(bad + 1, align);
					continue;
				}
				ret = pr_try_range(c, o, pos, pos + nr, cd, &ai);
				if (ret)
					return ret;
				ai.assumptions |= PR_ASSUME_V4_UNDO_QUIRK;
				pr_search_note(S, cd, &ai);
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
