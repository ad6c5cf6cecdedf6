// SPDX-License-Identifier: GPL-2.0
/* cmp-run: one what-if layout run (cmp-run.h). */
#include <string.h>

#include "common/err.h"
#include "compare/cmp-run.h"
#include "model/decide.h"
#include "model/model.h"
#include "sim/sim-apply.h"
#include "sim/sim-requests.h"
#include "sim/sim.h"

#define TRACE_MT_CMA	4	/* with CONFIG_CMA (model_set_cma()) */

struct run {
	const struct cmp_opts *o;
	struct cmp_result *r;
	struct cmp_area res, cma;	/* nr_pages 0: none */
	int next_ts;
	uint64_t next_every;
	uint64_t last_ts, last_idle;
	bool have_ts;
	uint64_t nreq;
};

static int place(void *arg, struct model_layout *L, struct model_profile *p)
{
	struct run *R = arg;
	struct cmp_layout *c = &R->r->layout;
	int ret = cmp_layout_place(L, c);
	unsigned int z;

	(void)p;
	for (z = 0; !ret && z < L->nr_zones; z++)
		if (L->zones[z].movable && !R->r->movable_start)
			R->r->movable_start = L->zones[z].start_pfn;
	if (!ret && c->reserve_pages)
		ret = cmp_area_init(&R->res, c->reserve_pfn, c->reserve_pages, 0);
	if (!ret && c->cma_pages)
		ret = cmp_area_init(&R->cma, c->cma_pfn, c->cma_pages, 1);
	return ret;
}

static bool movable_kind(enum model_kind k)
{
	return k == MODEL_KIND_ANON || k == MODEL_KIND_FILE || k == MODEL_KIND_THP ||
	       k == MODEL_KIND_HUGETLB;
}

/*
 * Seed pages in use and not movable inside [@s, @e) move to what the model's own
 * allocator gives an unmovable page of @zone (never CMA nor ZONE_MOVABLE); the pfn map
 * follows them, so their later frees release the new place.
 */
static int evacuate(struct cmp_result *r, struct model *m, struct sim_apply *ap, int zone,
		    uint64_t s, uint64_t e)
{
	struct model_pfn_info pi;
	uint64_t p, np, n;
	unsigned int order;
	int ret;

	for (p = s; p < e; p += n) {
		n = 1;
		if (model_pfn_info(m, p, &pi) || pi.state != MODEL_PFN_ALLOC ||
		    movable_kind(pi.kind) || pi.head != p)
			continue;
		/* a seed page's order is not known: page by page */
		order = pi.seeded ? 0 : pi.order;
		n = 1ull << order;
		ret = model_alloc_block(m, (unsigned int)zone, order, 0, pi.kind, &np);
		if (ret)
			return ret;
		sim_apply_map(ap, p, np, n);
		ret = model_give(m, 0, p, order);
		if (ret)
			return ret;
		r->seed_moved_pages += n;
	}
	return 0;
}

static uint64_t share(uint64_t v, uint64_t part, uint64_t whole)
{
	return whole ? (uint64_t)((double)v * (double)part / (double)whole) : v;
}

/*
 * The carved ZONE_MOVABLE has no zoneinfo of its own: its watermarks and the cut
 * zone's are the seed's split by managed pages, as __setup_per_zone_wmarks() shares
 * min_free_kbytes; pcp batch as the cut zone's, high bounds by managed pages;
 * lowmem_reserve against Movable from sysctl_lowmem_reserve_ratio (256 DMA/DMA32, 32
 * Normal). An assumption, stated in the help.
 */
static int movable_limits(struct model *m, int mz)
{
	const struct model_layout *L = model_get_layout(m);
	uint64_t lo = L->zones[mz - 1].managed, hi = L->zones[mz].managed, all = lo + hi;
	struct model_zone_limits a, b;
	int z, t, ret = model_get_zone_limits(m, (unsigned int)mz - 1, &a);

	if (ret)
		return ret;
	b = a;
	b.wmark_min = share(a.wmark_min, hi, all);
	b.wmark_low = share(a.wmark_low, hi, all);
	b.wmark_high = share(a.wmark_high, hi, all);
	b.pcp_high_max = (uint32_t)share(a.pcp_high_max, hi, all);
	a.wmark_min = share(a.wmark_min, lo, all);
	a.wmark_low = share(a.wmark_low, lo, all);
	a.wmark_high = share(a.wmark_high, lo, all);
	a.pcp_high_max = (uint32_t)share(a.pcp_high_max, lo, all);
	ret = model_set_zone_limits(m, (unsigned int)mz - 1, &a);
	if (!ret)
		ret = model_set_zone_limits(m, (unsigned int)mz, &b);
	for (z = 0; !ret && z < mz; z++) {
		ret = model_get_zone_limits(m, (unsigned int)z, &a);
		t = model_zone_type_of_name(L->zones[z].name);
		if (ret || t < 0 || t >= 3)
			continue;
		a.lowmem_reserve[3] = a.lowmem_reserve[2] + hi / (t == 2 ? 32 : 256);
		ret = model_set_zone_limits(m, (unsigned int)z, &a);
	}
	return ret;
}

static int ready(void *arg, struct model *m, struct sim_apply *ap)
{
	struct run *R = arg;
	struct cmp_result *r = R->r;
	uint64_t pb = 1ull << model_get_layout(m)->pageblock_order, p;
	int ret = 0, z;

	if (r->movable_start) {
		z = model_pfn_zone(m, r->movable_start);
		ret = movable_limits(m, z);
		if (!ret)
			ret = evacuate(r, m, ap, z - 1, r->movable_start,
				       r->movable_start + model_get_layout(m)->zones[z].spanned);
	}
	if (!ret && R->cma.nr_pages) {
		/* init_cma_reserved_pageblock(): the area's pageblocks become MIGRATE_CMA */
		model_set_cma(m, true);
		for (p = R->cma.start; !ret && p < R->cma.start + R->cma.nr_pages; p += pb)
			ret = model_set_pageblock_mt(m, p, TRACE_MT_CMA);
		if (!ret)
			ret = evacuate(r, m, ap, model_pfn_zone(m, R->cma.start), R->cma.start,
				       R->cma.start + R->cma.nr_pages);
	}
	return ret;
}

/* Pages the layout holds apart and nothing uses: reserved, or CMA and free. */
static uint64_t idle_now(struct run *R, struct model *m)
{
	struct model_range_counts rc;
	uint64_t n = 0;

	if (R->res.nr_pages)
		n += R->res.nr_pages - cmp_area_used(&R->res);
	if (R->cma.nr_pages &&
	    !model_range_counts(m, R->cma.start, R->cma.start + R->cma.nr_pages, &rc))
		n += rc.pages[MODEL_PBC_FREE] + rc.pages[MODEL_PBC_PCP];
	return n;
}

static void idle_tick(struct run *R, struct model *m, uint64_t ts, bool sample)
{
	if (R->have_ts && ts > R->last_ts)
		R->r->idle_page_seconds += (double)R->last_idle * (double)(ts - R->last_ts) / 1e9;
	R->last_ts = ts;
	R->have_ts = true;
	if (sample)
		R->last_idle = idle_now(R, m);
}

/* The demand at one time: count requests, from the layout's areas or on demand. */
static int ask(struct run *R, struct model *m)
{
	unsigned int i;
	uint64_t pfn;
	int ret = 0;

	for (i = 0; i < R->o->count && ret >= 0; i++) {
		if (R->res.nr_pages && cmp_area_used(&R->res) + R->o->nr_pages <= R->res.nr_pages)
			ret = cmp_demand_one(m, &R->res, R->o->nr_pages, &R->r->demand, &pfn);
		else if (R->cma.nr_pages)
			ret = cmp_demand_one(m, &R->cma, R->o->nr_pages, &R->r->demand, &pfn);
		else if (R->res.nr_pages)
			ret = cmp_demand_one(m, &R->res, R->o->nr_pages, &R->r->demand, &pfn);
		else
			ret = cmp_demand_one(m, NULL, R->o->nr_pages, &R->r->demand, &pfn);
	}
	return ret < 0 ? ret : 0;
}

static int before(void *arg, struct model *m, struct sim_apply *ap, const struct sim_request *rq)
{
	struct run *R = arg;
	uint64_t pfn;
	int ret;

	idle_tick(R, m, rq->ts, !(R->nreq++ & 1023));
	while (R->next_ts < R->o->nr_ts && rq->ts >= R->o->ts[R->next_ts]) {
		R->next_ts++;
		ret = ask(R, m);
		if (ret)
			return ret;
		R->last_idle = idle_now(R, m);
	}
	if (R->o->every_ns && !R->next_every)
		R->next_every = rq->ts;
	for (; R->o->every_ns && rq->ts >= R->next_every; R->next_every += R->o->every_ns) {
		ret = ask(R, m);
		if (ret)
			return ret;
		R->last_idle = idle_now(R, m);
	}
	if (rq->kind != SIM_REQ_CONTIG)
		return 0;
	/* the capture's own attempt: asked on demand under every layout */
	R->r->real_attempts++;
	ret = cmp_demand_one(m, NULL, rq->nr_pages, &R->r->demand, &pfn);
	if (ret == 0) {
		R->r->real_served++;
		sim_apply_map(ap, rq->pfn, pfn, rq->nr_pages);
	}
	return ret < 0 ? ret : 1;
}

/* Pageblocks holding unmovable pages (sim-figures' count, without its contig counts). */
static uint64_t unmovable_pageblocks(struct model *m)
{
	const struct model_layout *L = model_get_layout(m);
	uint64_t pb = 1ull << L->pageblock_order, p, n = 0;
	struct model_range_counts rc;
	unsigned int z;

	for (z = 0; z < L->nr_zones; z++)
		for (p = L->zones[z].start_pfn; p < L->zones[z].start_pfn + L->zones[z].spanned;
		     p += pb)
			n += !model_range_counts(m, p, p + pb, &rc) &&
			     rc.pages[MODEL_PBC_UNMOVABLE];
	return n;
}

static int done(void *arg, struct model *m, struct sim_apply *ap)
{
	struct run *R = arg;
	int ret = 0;

	(void)ap;
	while (!ret && R->next_ts < R->o->nr_ts) {
		R->next_ts++;
		ret = ask(R, m);
	}
	R->r->unmovable_pageblocks = unmovable_pageblocks(m);
	return ret;
}

int cmp_run(struct tdb *db, const struct cmp_layout *c, const struct cmp_opts *o,
	    struct cmp_result *out)
{
	struct run R = { .o = o, .r = out };
	struct sim_opts so = { .until_seq = UINT64_MAX, .note = o->note, .arg = o->arg,
			       .no_figures = true, .layout = place, .ready = ready,
			       .before = before, .done = done, .hook_arg = &R };
	struct sim_result sr;
	int ret;

	memset(out, 0, sizeof(*out));
	out->layout = *c;
	ret = sim_run(db, &so, &sr);
	if (!ret) {
		out->requests = sr.st.requests;
		out->fallbacks = sr.st.fallbacks;
		out->needed_reclaim = sr.st.needed_reclaim;
		sim_result_release(&sr);
	}
	cmp_area_release(&R.res);
	cmp_area_release(&R.cma);
	return ret;
}
