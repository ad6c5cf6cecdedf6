// SPDX-License-Identifier: GPL-2.0
/*
 * predict-index: answering at every event without re-running attempts.
 *
 * The index keeps a copy of the model's per-pageblock counters (model_range_counts()
 * of one whole pageblock is O(1)) and, per candidate of the search lattice, their sum.
 * Events mark the pageblocks they touch dirty (pr_after_event()); a question refreshes
 * only those, applies the differences to the candidates that contain them, and
 * re-classifies those candidates:
 *
 *   FAIL   a hole, uninitialised, reserved or unmovable page, or an isolated
 *          pageblock: pfn_range_valid_contig(), has_unmovable_pages() or the test
 *          fail in the model whatever else happens (v4: the pre-screen fails);
 *   FREE   nothing in use: isolation, drain and test succeed;
 *   MIXED  movable (or unknown, pcp-like) pages in use: the outcome depends on
 *          migration, so a real
 *          hypothetical attempt decides it; its result is cached until the pins
 *          change, the movable count grows by half, or free memory gets short.
 *
 * The candidates that are not FAIL are a bitmap in search order, so the signature
 * (the first K likely successes) is found with a few word scans. Candidates must be
 * pageblock-aligned for this; otherwise the index says so and every signature differs
 * (callers then ask at every point).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "model/model.h"
#include "predict/predict-local.h"

enum { CL_FAIL, CL_FREE, CL_MIXED };

struct ix_cand {
	uint64_t s, e;
	uint32_t pb0, npb;		/* pageblocks, relative to ix->pb_base */
	uint32_t sum[MODEL_NR_PBC];
	uint32_t isolated;
	uint8_t cls;
	/* cached attempt of a MIXED candidate */
	bool cached, cached_ok;
	uint32_t cached_pins_gen;
	uint64_t cached_movable;
	uint64_t cached_migrated;
};

struct pr_index {
	struct pr_ctx *c;
	struct pr_opts o;
	bool usable;
	unsigned int pb_order;
	uint64_t pb_base;		/* pageblock number of pb[0] */
	uint32_t nr_pb;
	uint16_t (*pbc)[MODEL_NR_PBC];	/* copies of the model's counters */
	uint8_t *pb_iso;
	uint8_t *pb_dirty;
	uint32_t *dirty;		/* list of dirty pageblocks */
	uint32_t nr_dirty;
	bool all_dirty;
	struct ix_cand *cand;		/* in search order */
	uint32_t nr_cand;
	uint32_t *by_start;		/* candidate indices sorted by start pfn */
	uint64_t *nonfail;		/* bitmap over cand[] */
	uint32_t *reclass;		/* candidates to re-classify */
	uint32_t nr_reclass;
	uint8_t *in_reclass;
	uint32_t *pb_first;		/* per pageblock: first by_start[] position that may
					 * contain it (candidates ending after it) */
	bool sig_valid;			/* nothing changed since last_sig */
	uint64_t last_sig;
	uint32_t last_pins_gen;
	uint64_t free_cache;		/* free pages, refreshed every FREE_EVERY questions */
	uint64_t free_age;
	uint64_t nonce;			/* for unusable indexes: every signature differs */
	struct pr_index_stats st;
};

static int add_cand(void *arg, uint64_t s, uint64_t e)
{
	struct pr_index *ix = arg;

	if ((ix->nr_cand & (ix->nr_cand - 1)) == 0) {
		uint32_t cap = ix->nr_cand ? 2 * ix->nr_cand : 1;
		struct ix_cand *g = realloc(ix->cand, cap * sizeof(*g));

		if (!g)
			return -1;
		ix->cand = g;
	}
	memset(&ix->cand[ix->nr_cand], 0, sizeof(ix->cand[0]));
	ix->cand[ix->nr_cand].s = s;
	ix->cand[ix->nr_cand].e = e;
	ix->nr_cand++;
	return 0;
}

/* v4 lattice: every align-aligned window inside a System RAM chunk of a zone. */
static int v4_lattice(struct pr_index *ix)
{
	const struct model_layout *L = ix->c->L;
	uint64_t align = 1ull << (ix->o.align_order > 11 ? ix->o.align_order : 11);
	uint64_t nr = (ix->o.nr_pages + 2047) / 2048 * 2048;
	uint64_t base = ix->o.has_range ? ix->o.range_start : 0;
	uint64_t end = ix->o.has_range ? ix->o.range_end : UINT64_MAX;
	int i;

	for (i = (int)L->nr_zones - 1; i >= 0; i--) {
		const struct model_zone_layout *z = &L->zones[i];
		uint64_t zs = z->start_pfn, ze = zs + z->spanned;
		unsigned int r, nram = L->nr_ram ? L->nr_ram : 1;

		if (!z->spanned || z->movable || !strcmp(z->name, "Movable"))
			continue;
		zs = zs > base ? zs : base;
		ze = ze < end ? ze : end;
		for (r = 0; r < nram; r++) {
			uint64_t cs = L->nr_ram ? L->ram[r].start : zs;
			uint64_t ce = L->nr_ram ? L->ram[r].end : ze;
			uint64_t pos;

			cs = cs > zs ? cs : zs;
			ce = ce < ze ? ce : ze;
			cs = (cs + align - 1) / align * align;
			ce = ce / 2048 * 2048;
			for (pos = cs; pos + nr <= ce; pos += align)
				if (add_cand(ix, pos, pos + nr))
					return -1;
		}
	}
	return 0;
}

static int cmp_start(const void *a, const void *b, void *keys)
{
	const uint64_t *k = keys;
	uint64_t x = k[*(const uint32_t *)a], y = k[*(const uint32_t *)b];

	return (x > y) - (x < y);
}

static void classify(struct pr_index *ix, uint32_t i)
{
	struct ix_cand *cd = &ix->cand[i];
	const uint32_t *s = cd->sum;
	uint8_t cls;

	/* a MIXED candidate's movable count matters to its cached attempt */
	if (cd->cls == CL_MIXED)
		ix->sig_valid = false;

	if (s[MODEL_PBC_HOLE] || s[MODEL_PBC_UNINIT] || s[MODEL_PBC_RESERVED] ||
	    s[MODEL_PBC_UNMOVABLE] || cd->isolated)
		cls = CL_FAIL;
	else if (!s[MODEL_PBC_MOVABLE] && !s[MODEL_PBC_UNKNOWN])
		cls = CL_FREE;
	else
		cls = CL_MIXED;
	if (cls != cd->cls)
		ix->sig_valid = false;
	cd->cls = cls;
	if (cls == CL_FAIL)
		ix->nonfail[i / 64] &= ~(1ull << (i % 64));
	else
		ix->nonfail[i / 64] |= 1ull << (i % 64);
}

static void queue_reclass(struct pr_index *ix, uint32_t i)
{
	if (!ix->in_reclass[i]) {
		ix->in_reclass[i] = 1;
		ix->reclass[ix->nr_reclass++] = i;
	}
}

/* Read pageblock @p from the model; push the differences into its candidates. */
static void refresh_pb(struct pr_index *ix, uint32_t p)
{
	uint64_t pfn = (ix->pb_base + p) << ix->pb_order, pbn = 1ull << ix->pb_order;
	struct model_range_counts rc;
	int32_t d[MODEL_NR_PBC], diso;
	bool changed = false;
	uint32_t k;
	int c;

	model_range_counts(ix->c->m, pfn, pfn + pbn, &rc);
	for (c = 0; c < MODEL_NR_PBC; c++) {
		d[c] = (int32_t)rc.pages[c] - (int32_t)ix->pbc[p][c];
		if (d[c]) {
			changed = true;
			ix->pbc[p][c] = (uint16_t)rc.pages[c];
		}
	}
	diso = (int32_t)(rc.isolated_pageblocks ? 1 : 0) - (int32_t)ix->pb_iso[p];
	if (diso) {
		changed = true;
		ix->pb_iso[p] = rc.isolated_pageblocks ? 1 : 0;
	}
	ix->st.pageblocks_refreshed++;
	if (!changed)
		return;
	/* candidates with pb0 <= p < pb0 + npb: starts in (pfn - size, pfn] */
	for (k = ix->pb_first[p]; k < ix->nr_cand; k++) {
		struct ix_cand *cd = &ix->cand[ix->by_start[k]];

		if (cd->s > pfn)
			break;
		if (cd->e <= pfn)
			continue;
		for (c = 0; c < MODEL_NR_PBC; c++)
			cd->sum[c] = (uint32_t)((int64_t)cd->sum[c] + d[c]);
		cd->isolated = (uint32_t)((int64_t)cd->isolated + diso);
		queue_reclass(ix, ix->by_start[k]);
	}
}

static void refresh(struct pr_index *ix)
{
	uint32_t i;

	if (ix->all_dirty) {
		for (i = 0; i < ix->nr_pb; i++)
			refresh_pb(ix, i);
		memset(ix->pb_dirty, 0, ix->nr_pb);
		ix->nr_dirty = 0;
		ix->all_dirty = false;
	} else {
		for (i = 0; i < ix->nr_dirty; i++) {
			ix->pb_dirty[ix->dirty[i]] = 0;
			refresh_pb(ix, ix->dirty[i]);
		}
		ix->nr_dirty = 0;
	}
	for (i = 0; i < ix->nr_reclass; i++) {
		ix->in_reclass[ix->reclass[i]] = 0;
		classify(ix, ix->reclass[i]);
	}
	ix->nr_reclass = 0;
}

void pr_index_touch(struct pr_index *ix, uint64_t pfn, uint64_t n)
{
	uint64_t first, last, p;

	if (ix->all_dirty || !n)
		return;
	first = pfn >> ix->pb_order;
	last = (pfn + n - 1) >> ix->pb_order;
	if (last < ix->pb_base || first >= ix->pb_base + ix->nr_pb)
		return;
	if (first < ix->pb_base)
		first = ix->pb_base;
	if (last >= ix->pb_base + ix->nr_pb)
		last = ix->pb_base + ix->nr_pb - 1;
	if (last - first + 1 > ix->nr_pb / 4) {
		ix->all_dirty = true;
		return;
	}
	for (p = first - ix->pb_base; p <= last - ix->pb_base; p++) {
		if (!ix->pb_dirty[p]) {
			ix->pb_dirty[p] = 1;
			ix->dirty[ix->nr_dirty++] = (uint32_t)p;
		}
	}
}

void pr_index_touch_all(struct pr_index *ix)
{
	ix->all_dirty = true;
	ix->sig_valid = false;
}

void pr_index_destroy(struct pr_index *ix)
{
	if (!ix)
		return;
	if (ix->c && ix->c->ix == ix)
		ix->c->ix = NULL;
	free(ix->pbc);
	free(ix->pb_iso);
	free(ix->pb_dirty);
	free(ix->dirty);
	free(ix->cand);
	free(ix->by_start);
	free(ix->nonfail);
	free(ix->reclass);
	free(ix->in_reclass);
	free(ix->pb_first);
	free(ix);
}

/* The copies of the per-pageblock counters, over the pageblocks of the model's span. */
static int index_pageblocks(struct pr_index *ix)
{
	const struct pr_ctx *c = ix->c;
	uint64_t pbn = 1ull << ix->pb_order;

	ix->pb_base = c->base >> ix->pb_order;
	ix->nr_pb = (uint32_t)(((c->base + c->span + pbn - 1) >> ix->pb_order) - ix->pb_base);
	ix->pbc = calloc(ix->nr_pb, sizeof(*ix->pbc));
	ix->pb_iso = calloc(ix->nr_pb, 1);
	ix->pb_dirty = calloc(ix->nr_pb, 1);
	ix->dirty = calloc(ix->nr_pb, sizeof(*ix->dirty));
	ix->pb_first = calloc(ix->nr_pb + 1, sizeof(*ix->pb_first));
	if (!ix->pbc || !ix->pb_iso || !ix->pb_dirty || !ix->dirty || !ix->pb_first)
		return -BC_E_NOMEM;
	return 0;
}

/*
 * The candidates of the policy's search, in search order, unclassified. The index is
 * usable only when they lie on pageblock boundaries (and for at most 64 allocations).
 */
static int index_candidates(struct pr_index *ix)
{
	uint64_t pbn = 1ull << ix->pb_order;
	uint32_t i;
	int ret;

	if (ix->o.policy == PR_POLICY_V4)
		ret = v4_lattice(ix);
	else
		ret = pr_mainline_candidates(ix->c->L, &ix->o, add_cand, ix);
	if (ret)
		return ret;
	ix->usable = !ix->o.offline && ix->o.count <= 64;
	for (i = 0; i < ix->nr_cand; i++) {
		struct ix_cand *cd = &ix->cand[i];

		if ((cd->s & (pbn - 1)) || (cd->e & (pbn - 1)))
			ix->usable = false;
		cd->pb0 = (uint32_t)((cd->s >> ix->pb_order) - ix->pb_base);
		cd->npb = (uint32_t)((cd->e - cd->s) >> ix->pb_order);
		cd->cls = 0xff;	/* unclassified */
	}
	ix->by_start = calloc(ix->nr_cand + 1, sizeof(*ix->by_start));
	ix->nonfail = calloc(ix->nr_cand / 64 + 1, sizeof(*ix->nonfail));
	ix->reclass = calloc(ix->nr_cand + 1, sizeof(*ix->reclass));
	ix->in_reclass = calloc(ix->nr_cand + 1, 1);
	if (!ix->by_start || !ix->nonfail || !ix->reclass || !ix->in_reclass)
		return -BC_E_NOMEM;
	return 0;
}

/*
 * by_start: the candidates sorted by start pfn; pb_first: per pageblock, the first
 * by_start[] position that may contain it (candidates ending after it).
 */
static int index_by_start(struct pr_index *ix)
{
	uint64_t *keys = calloc(ix->nr_cand + 1, sizeof(*keys));
	uint32_t i, k = 0;

	if (!keys)
		return -BC_E_NOMEM;
	for (i = 0; i < ix->nr_cand; i++) {
		ix->by_start[i] = i;
		keys[i] = ix->cand[i].s;
	}
	qsort_r(ix->by_start, ix->nr_cand, sizeof(*ix->by_start), cmp_start, keys);
	free(keys);
	for (i = 0; i < ix->nr_pb; i++) {
		uint64_t pfn = (ix->pb_base + i) << ix->pb_order;

		while (k < ix->nr_cand && ix->cand[ix->by_start[k]].e <= pfn)
			k++;
		ix->pb_first[i] = k;
	}
	return 0;
}

int pr_index_create(struct pr_ctx *c, const struct pr_opts *o, struct pr_index **out)
{
	struct pr_index *ix;
	uint32_t i;
	int ret;

	*out = NULL;
	ret = pr_opts_check(o);
	if (ret)
		return ret;
	ix = calloc(1, sizeof(*ix));
	if (ix) {
		ix->c = c;
		ix->o = *o;
		ix->free_cache = UINT64_MAX;
		ix->pb_order = c->L->pageblock_order;
	}
	if (!ix || index_pageblocks(ix) || index_candidates(ix) || index_by_start(ix)) {
		pr_index_destroy(ix);
		return bc_error(BC_E_NOMEM, "predict: out of memory");
	}
	/* initial sums: every pageblock once (the copies start at 0) */
	ix->all_dirty = true;
	refresh(ix);
	for (i = 0; i < ix->nr_cand; i++)
		classify(ix, i);
	c->ix = ix;
	*out = ix;
	return 0;
}

/* Free pages of all zones (buddy, not isolated) plus pcp. */
static uint64_t free_total(struct pr_index *ix)
{
	struct model_zone_stats zs;
	uint64_t sum = 0;
	unsigned int z;

	for (z = 0; z < ix->c->L->nr_zones; z++)
		if (!model_zone_stats(ix->c->m, z, &zs))
			sum += zs.free_pages + zs.pcp_pages;
	return sum;
}

/* Does MIXED candidate @i succeed? The cached attempt, re-run when stale. */
static bool mixed_ok(struct pr_index *ix, uint32_t i, uint64_t *free_cache)
{
	struct ix_cand *cd = &ix->cand[i];
	uint64_t movable = cd->sum[MODEL_PBC_MOVABLE] + cd->sum[MODEL_PBC_UNKNOWN];
	struct pr_attempt_info ai;
	struct pr_candidate pc;
	uint64_t bad;

	/*
	 * An attempt over a 1 GiB range with its migration costs milliseconds: re-run it
	 * only when the movable pages grew by half (or 4096), or halved.
	 */
	if (cd->cached && cd->cached_pins_gen == ix->c->pins_gen &&
	    movable <= cd->cached_movable + cd->cached_movable / 2 + 4096 &&
	    movable + 4096 >= cd->cached_movable / 2) {
		if (!cd->cached_ok)
			return false;
		if (*free_cache == UINT64_MAX) {
			/* a slightly stale figure is good enough for the slack test below */
			if (ix->free_cache == UINT64_MAX || ix->st.questions - ix->free_age >= 1024) {
				ix->free_cache = free_total(ix);
				ix->free_age = ix->st.questions;
			}
			*free_cache = ix->free_cache;
		}
		/* enough room for the targets outside: the cached success still holds */
		if (*free_cache >= cd->sum[MODEL_PBC_FREE] + 2 * movable + 1024)
			return true;
	}
	ix->st.attempts_run++;
	cd->cached = true;
	cd->cached_pins_gen = ix->c->pins_gen;
	cd->cached_movable = movable;
	cd->cached_ok = false;
	if (ix->o.policy == PR_POLICY_V4) {
		/* the exact pre-screen (non-LRU movable pages fail it) */
		struct model_pfn_info pi;
		uint64_t p = cd->s;

		for (; p < cd->e; p++) {
			if (model_pfn_info(ix->c->m, p, &pi))
				return false;
			if (pi.state == MODEL_PFN_BUDDY || pi.state == MODEL_PFN_PCP) {
				p = pi.head + (1ull << pi.order) - 1;
				continue;
			}
			if (pi.state != MODEL_PFN_ALLOC)
				return false;
			if (pi.kind != MODEL_KIND_ANON && pi.kind != MODEL_KIND_FILE &&
			    pi.kind != MODEL_KIND_THP &&
			    !(pi.kind == MODEL_KIND_UNKNOWN && (pi.mt < 0 || pi.mt == 1)))
				return false;
		}
		(void)bad;
	}
	if (pr_try_range(ix->c, &ix->o, cd->s, cd->e, &pc, &ai))
		return false;
	cd->cached_ok = pc.verdict == PR_V_SUCCESS;
	cd->cached_migrated = ai.migrated;
	return cd->cached_ok;
}

uint64_t pr_index_sig(struct pr_index *ix)
{
	unsigned int want = ix->o.count ? ix->o.count : 1, found = 0;
	uint64_t h = 1469598103934665603ull, free_cache = UINT64_MAX;
	uint32_t w, nw = ix->nr_cand / 64 + 1;

	ix->st.questions++;
	if (!ix->usable)
		return ++ix->nonce;
	if (ix->nr_dirty || ix->all_dirty)
		refresh(ix);
	if (ix->sig_valid && ix->last_pins_gen == ix->c->pins_gen)
		return ix->last_sig;
	for (w = 0; w < nw && found < want; w++) {
		uint64_t bits = ix->nonfail[w];

		while (bits && found < want) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);
			bool ok;

			bits &= bits - 1;
			if (i >= ix->nr_cand)
				break;
			if (ix->cand[i].cls == CL_FREE) {
				ok = true;
				ix->st.cheap_decisions++;
			} else {
				ok = mixed_ok(ix, i, &free_cache);
			}
			if (ok) {
				found++;
				h = (h ^ (i + 1)) * 1099511628211ull;
			}
		}
	}
	h = (h ^ (0x9e3779b97f4a7c15ull * (found + 1))) * 1099511628211ull;
	ix->last_sig = h;
	ix->last_pins_gen = ix->c->pins_gen;
	ix->sig_valid = true;
	return h;
}

void pr_index_get_stats(const struct pr_index *ix, struct pr_index_stats *st)
{
	*st = ix->st;
}
