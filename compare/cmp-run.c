// SPDX-License-Identifier: GPL-2.0
/* cmp-run: one what-if layout run (cmp-run.h). */
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "compare/cmp-apply.h"
#include "compare/cmp-run.h"
#include "model/decide.h"
#include "model/model.h"
#include "sim/sim-apply.h"
#include "sim/sim-requests.h"
#include "sim/sim.h"

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
	/* only a zone the layout carved: a traced ZONE_MOVABLE is as the kernel had it */
	for (z = 0; !ret && (c->movablecore_pages || c->kernelcore_pages) && z < L->nr_zones; z++)
		if (L->zones[z].movable && !R->r->movable_start)
			R->r->movable_start = L->zones[z].start_pfn;
	if (!ret && c->reserve_pages)
		ret = cmp_area_init(&R->res, c->reserve_pfn, c->reserve_pages, 0);
	if (!ret && (c->reserve_pfn == CMP_NOWHERE) != !c->reserve_pages)
		ret = bc_error(BC_E_INVAL, "%s: the reservation was not placed", c->name);
	if (!ret && (c->cma_pfn == CMP_NOWHERE) != !c->cma_pages)
		ret = bc_error(BC_E_INVAL, "%s: the CMA area was not placed", c->name);
	if (!ret && c->cma_pages)
		ret = cmp_area_init(&R->cma, c->cma_pfn, c->cma_pages, 1);
	return ret;
}

static bool areas_overlap(const struct cmp_area *x, const struct cmp_area *y)
{
	return x->nr_pages && y->nr_pages && x->start < y->start + y->nr_pages &&
	       y->start < x->start + x->nr_pages;
}

static int ready(void *arg, struct model *m, struct sim_apply *ap)
{
	struct run *R = arg;
	struct cmp_result *r = R->r;
	uint64_t pb = 1ull << model_get_layout(m)->pageblock_order, a;
	int ret = 0;

	/* a default place is aligned to the demand too (as hugetlb_cma_reserve() aligns) */
	a = R->o->nr_pages > pb ? R->o->nr_pages : pb;
	if (r->layout.reserve_default)
		ret = cmp_apply_online_window(m, &R->res.start, R->res.nr_pages,
					      a <= R->res.nr_pages ? a : pb);
	/* memblock places the CMA area top-down around what memmap= reserved already */
	if (!ret && r->layout.cma_default && areas_overlap(&R->res, &R->cma) &&
	    R->res.start >= R->cma.nr_pages)
		R->cma.start = R->res.start - R->cma.nr_pages;
	if (!ret && r->layout.cma_default)
		ret = cmp_apply_online_window(m, &R->cma.start, R->cma.nr_pages,
					      a <= R->cma.nr_pages ? a : pb);
	if (!ret && areas_overlap(&R->res, &R->cma))
		ret = bc_error(BC_E_INVAL, "%s: the reservation [0x%llx, 0x%llx) and the CMA "
			       "area [0x%llx, 0x%llx) overlap: place them apart with @PFN",
			       r->layout.name, (unsigned long long)R->res.start,
			       (unsigned long long)(R->res.start + R->res.nr_pages),
			       (unsigned long long)R->cma.start,
			       (unsigned long long)(R->cma.start + R->cma.nr_pages));
	r->layout.cma_pfn = R->cma.start;
	r->layout.reserve_pfn = R->res.start;
	if (!ret && r->movable_start)
		ret = cmp_apply_movable(m, ap, r->movable_start, r->layout.movable_traced_pfn,
					&r->seed_moved_pages, &r->initialised);
	if (!ret && R->cma.nr_pages)
		ret = cmp_apply_cma(m, ap, R->cma.start, R->cma.nr_pages, &r->seed_moved_pages,
				    &r->initialised);
	if (!ret && R->res.nr_pages)
		ret = cmp_apply_reserve(m, ap, R->res.start, R->res.nr_pages, &r->seed_moved_pages);
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

/*
 * One request of the demand: from the reservation while it fits, else from the CMA
 * area (cma_alloc()), else on demand (alloc_contig_pages()), as a driver falling back
 * would (dma_alloc_contiguous(), then the buddy).
 */
static int ask_one(struct run *R, struct model *m, uint64_t *pfn)
{
	struct cmp_demand_stats *d = &R->r->demand;
	int ret = 1;

	if (R->res.nr_pages) {
		ret = cmp_demand_one(m, &R->res, R->o->nr_pages, d, pfn);
		R->r->served_reserve += ret == 0;
	}
	if (ret == 1 && R->cma.nr_pages) {
		d->asked -= R->res.nr_pages != 0;	/* one request */
		ret = cmp_demand_one(m, &R->cma, R->o->nr_pages, d, pfn);
		R->r->served_cma += ret == 0;
	}
	if (ret == 1) {
		d->asked -= R->res.nr_pages || R->cma.nr_pages;
		ret = cmp_demand_one(m, NULL, R->o->nr_pages, d, pfn);
	}
	cmp_demand_settle(d, ret == 1);
	return ret;
}

/* The demand at one time: count requests. */
static int ask(struct run *R, struct model *m)
{
	unsigned int i;
	uint64_t pfn;
	int ret = 0;

	for (i = 0; i < R->o->count && ret >= 0; i++) {
		ret = ask_one(R, m, &pfn);
		if (ret == 0 && R->r->nr_served_pfns < CMP_MAX_PFNS)
			R->r->served_pfns[R->r->nr_served_pfns++] = pfn;
	}
	return ret < 0 ? ret : 0;
}

static bool in_area(const struct cmp_area *a, uint64_t pfn)
{
	return a->nr_pages && pfn >= a->start && pfn < a->start + a->nr_pages;
}

/* Inside a range cmp-apply.h moved the seed out of. */
static bool moved_out(const struct run *R, uint64_t pfn)
{
	return in_area(&R->res, pfn) || in_area(&R->cma, pfn) ||
	       (R->r->movable_start && pfn >= R->r->movable_start);
}

/*
 * A free of a block whose seed pages moved out page by page (cmp-apply.c: a seed
 * page's order is not known): each page is freed where it went. Return: 1 done, 0
 * not such a free (the driver makes it), < 0 error.
 */
static int free_scattered(struct run *R, struct model *m, struct sim_apply *ap,
			  const struct sim_request *rq)
{
	uint64_t sp0 = sim_apply_sim_pfn(ap, rq->pfn), sp, i;
	int ret;

	if (rq->kind != SIM_REQ_FREE || !rq->order || sp0 == UINT64_MAX || !moved_out(R, rq->pfn))
		return 0;
	for (i = 1; i < rq->nr_pages && sim_apply_sim_pfn(ap, rq->pfn + i) == sp0 + i; i++)
		;
	if (i == rq->nr_pages)
		return 0;
	for (i = 0; i < rq->nr_pages; i++) {
		sp = sim_apply_sim_pfn(ap, rq->pfn + i);
		if (sp == UINT64_MAX)
			continue;
		sim_apply_unmap(ap, rq->pfn + i, 1);
		ret = model_give(m, rq->cpu, sp, 0);
		if (ret)
			return ret;
	}
	R->r->frees_scattered++;
	return 1;
}

/*
 * A free of a block the seed held in use (no simulated page) whose pages are not all in
 * use any more: the layout moved the simulation's pages through it (an evacuation's
 * pcp refill). Freeing the whole block would free pages others hold: skipped, counted.
 */
static bool free_overlaps(struct model *m, struct sim_apply *ap, const struct sim_request *rq)
{
	struct model_pfn_info pi;
	uint64_t i;

	if (rq->kind != SIM_REQ_FREE || !rq->order || sim_apply_sim_pfn(ap, rq->pfn) != UINT64_MAX)
		return false;
	for (i = 0; i < rq->nr_pages; i++)
		if (model_pfn_info(m, rq->pfn + i, &pi) || pi.state != MODEL_PFN_ALLOC)
			return i > 0;
	return false;
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
	/*
	 * A drain naming a seed page of unknown use (sim-apply.c do_drain()) inside a range
	 * the seed was moved out of: that page is not there any more.
	 */
	if (rq->kind == SIM_REQ_PCP_DRAIN && moved_out(R, rq->pfn))
		return 1;
	/* a page the seed did not show in use inside a reservation: not RAM for the layout */
	if (rq->kind == SIM_REQ_FREE && in_area(&R->res, rq->pfn) &&
	    sim_apply_sim_pfn(ap, rq->pfn) == UINT64_MAX) {
		R->r->frees_in_reserve++;
		return 1;
	}
	ret = free_scattered(R, m, ap, rq);
	if (ret)
		return ret;
	if (free_overlaps(m, ap, rq)) {
		R->r->frees_overlapping++;
		return 1;
	}
	if (rq->kind != SIM_REQ_CONTIG)
		return 0;
	/* the capture's own attempt, served or failed: asked on demand under every layout */
	R->r->real_attempts++;
	R->r->real_kernel_served += !rq->failed;
	ret = cmp_demand_one(m, NULL, rq->nr_pages, &R->r->demand, &pfn);
	if (ret < 0)
		return ret;
	cmp_demand_settle(&R->r->demand, ret == 1);
	if (R->r->nr_real < CMP_MAX_PFNS)
		R->r->real[R->r->nr_real++] = (struct cmp_real){
			.ts = rq->ts, .nr_pages = rq->nr_pages, .kernel_served = !rq->failed,
			.served = ret == 0, .pfn = ret == 0 ? pfn : 0 };
	if (ret == 0) {
		R->r->real_served++;
		if (!rq->failed)	/* the kernel's pages, freed later: where they are here */
			sim_apply_map(ap, rq->pfn, pfn, rq->nr_pages);
	}
	return 1;
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

static int end_zones(struct cmp_result *r, struct model *m)
{
	const struct model_layout *L = model_get_layout(m);
	struct model_zone_stats zs;
	unsigned int z;
	int ret = 0;

	r->nr_zones = L->nr_zones;
	for (z = 0; !ret && z < L->nr_zones; z++) {
		struct cmp_zone *cz = &r->zone[z];

		snprintf(cz->name, sizeof(cz->name), "%s", L->zones[z].name);
		cz->start_pfn = L->zones[z].start_pfn;
		cz->spanned = L->zones[z].spanned;
		cz->present = L->zones[z].present;
		cz->managed = L->zones[z].managed;
		ret = model_zone_stats(m, z, &zs);
		cz->free_pages = zs.free_pages;
		cz->pcp_pages = zs.pcp_pages;
		memcpy(cz->pageblocks, zs.pageblocks, sizeof(cz->pageblocks));
	}
	return ret;
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
	return ret ? ret : end_zones(R->r, m);
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
		out->wmark_breaches = sr.st.wmark_breaches;
		sim_result_release(&sr);
	}
	cmp_area_release(&R.res);
	cmp_area_release(&R.cma);
	return ret;
}
