// SPDX-License-Identifier: GPL-2.0
/* sim-figures: the figures of a model state (sim-figures.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "model/decide.h"
#include "sim/sim-contig.h"
#include "sim/sim-figures.h"

#define SIM_2M_PAGES	512ull
#define SIM_1G_PAGES	262144ull

const char *sim_mt_name(bool has_cma, int mt)
{
	static const char *const cma[] = { "Unmovable", "Movable", "Reclaimable", "HighAtomic",
					   "CMA", "Isolate" };
	static const char *const nocma[] = { "Unmovable", "Movable", "Reclaimable",
					     "HighAtomic", "Isolate" };

	if (mt < 0 || mt >= sim_nr_mts(has_cma))
		return "?";
	return has_cma ? cma[mt] : nocma[mt];
}

int sim_nr_mts(bool cma)
{
	return cma ? 6 : 5;
}

/*
 * Per pageblock of zone @zi: unmovable pages, and the largest aligned run of wholly
 * free pageblocks (whole pageblocks only: a run's order is at least pageblock_order).
 */
static int scan_pageblocks(struct model *m, unsigned int zi, struct sim_zone_figures *zf)
{
	const struct model_layout *L = model_get_layout(m);
	const struct model_zone_layout *zl = &L->zones[zi];
	uint64_t pbn = 1ull << L->pageblock_order, end = zl->start_pfn + zl->spanned;
	uint64_t p, run = 0, run_start = 0;
	int best = -1, ret;

	for (p = zl->start_pfn / pbn * pbn; p < end; p += pbn) {
		struct model_range_counts rc;
		uint64_t s = p < zl->start_pfn ? zl->start_pfn : p, e = p + pbn > end ? end : p + pbn;

		ret = model_range_counts(m, s, e, &rc);
		if (ret)
			return ret;
		zf->unmovable_pages += rc.pages[MODEL_PBC_UNMOVABLE];
		zf->pb_unmovable += rc.pages[MODEL_PBC_UNMOVABLE] > 0;
		zf->pb_unmovable_unknown += rc.pages[MODEL_PBC_UNMOVABLE] +
					    rc.pages[MODEL_PBC_UNKNOWN] > 0;
		if (e - s != pbn || rc.pages[MODEL_PBC_FREE] != pbn || rc.isolated_pageblocks) {
			run = 0;
			continue;
		}
		if (!run)
			run_start = p;
		run++;
		/* the largest aligned power of two inside the run that ends here */
		for (int k = 0; (1ull << k) <= run; k++) {
			uint64_t sz = pbn << k, a = (p + pbn) - sz;

			if (a % sz == 0 && a >= run_start && (int)L->pageblock_order + k > best)
				best = (int)L->pageblock_order + k;
		}
	}
	if (best > zf->largest_free_order)
		zf->largest_free_order = best;
	return 0;
}

static int zone_figures(struct model *m, unsigned int zi, struct sim_zone_figures *zf)
{
	const struct model_layout *L = model_get_layout(m);
	int iso = sim_nr_mts(model_get_profile(m)->cma) - 1;
	struct model_zone_stats zs;
	unsigned int o;
	int mt, ret;

	memset(zf, 0, sizeof(*zf));
	snprintf(zf->name, sizeof(zf->name), "%s", L->zones[zi].name);
	zf->largest_free_order = -1;
	ret = model_zone_stats(m, zi, &zs);
	if (ret)
		return ret;
	zf->free_pages = zs.free_pages;
	zf->pcp_pages = zs.pcp_pages;
	for (o = 0; o < L->nr_cpus; o++) {
		uint32_t count, high;

		if (!model_get_pcp(m, zi, o, &count, &high))
			zf->pcp_count += count;
	}
	for (o = 0; o < SIM_ORDERS && o <= L->max_page_order; o++)
		for (mt = 0; mt < SIM_MTS; mt++) {
			zf->nr_free[o][mt] = zs.nr_free[o][mt];
			if (zs.nr_free[o][mt] && mt != iso)
				zf->largest_free_order = (int)o;
		}
	model_count_pageblocks(m, zi, zf->pageblocks);
	return scan_pageblocks(m, zi, zf);
}

int sim_figures_compute(struct model *m, const struct sim_contig_env *env,
			struct sim_figures *out)
{
	const struct model_layout *L = model_get_layout(m);
	unsigned int zi;
	int ret = 0, mt;

	memset(out, 0, sizeof(*out));
	out->nr_zones = L->nr_zones;
	out->max_order = L->max_page_order;
	out->cma = model_get_profile(m)->cma;
	for (zi = 0; !ret && zi < L->nr_zones; zi++) {
		struct sim_zone_figures *zf = &out->zone[zi];

		ret = zone_figures(m, zi, zf);
		for (mt = 0; mt < SIM_MTS; mt++)
			out->pageblocks += zf->pageblocks[mt];
		out->pb_unmovable += zf->pb_unmovable;
		out->pb_unmovable_unknown += zf->pb_unmovable_unknown;
		out->unmovable_pages += zf->unmovable_pages;
		out->present_pages += L->zones[zi].present;
	}
	if (!ret) {
		const uint64_t sizes[2] = { SIM_2M_PAGES, SIM_1G_PAGES };
		uint64_t counts[2];

		ret = sim_contig_count(m, sizes, counts, 2, env);
		out->contig_2m = counts[0];
		out->contig_1g = counts[1];
	}
	return ret;
}

uint64_t sim_order_tolerance(uint64_t k, unsigned int o)
{
	uint64_t t = (k * 5 + 99) / 100, pages = o < 64 ? SIM_ORDER_TOLERANCE >> o : 0;

	if (t < pages)
		t = pages;
	return t ? t : 1;
}

void sim_figures_verdict(const struct sim_figures *sim, const struct sim_figures *kernel,
			 struct sim_verdict *out)
{
	unsigned int zi, o;

	memset(out, 0, sizeof(*out));
	out->pb_unmovable_err = fabs((double)sim->pb_unmovable - (double)kernel->pb_unmovable) /
				(double)(kernel->pb_unmovable ? kernel->pb_unmovable : 1);
	for (zi = 0; zi < kernel->nr_zones && zi < sim->nr_zones; zi++) {
		const struct sim_zone_figures *s = &sim->zone[zi], *k = &kernel->zone[zi];

		for (o = 0; o < SIM_ORDERS && o <= kernel->max_order; o++) {
			uint64_t bs = 0, bk = 0, d;
			double err;

			for (int mt = 0; mt < SIM_MTS; mt++) {
				bs += s->nr_free[o][mt];
				bk += k->nr_free[o][mt];
			}
			d = bs > bk ? bs - bk : bk - bs;
			err = (double)d * (double)(1ull << o) /
			      (double)(k->free_pages ? k->free_pages : 1);
			if (bk << o >= SIM_ORDER_MEANINGFUL &&
			    (double)d / (double)bk > out->free_order_rel_err) {
				out->free_order_rel_err = (double)d / (double)bk;
				snprintf(out->free_order_rel_worst,
					 sizeof(out->free_order_rel_worst), "%s order %u",
					 k->name, o);
			}
			if (err > out->free_order_err) {
				out->free_order_err = err;
				snprintf(out->free_order_worst, sizeof(out->free_order_worst),
					 "%s order %u", k->name, o);
			}
			if (d > sim_order_tolerance(bk, o)) {
				if (out->nr_misses < SIM_MAX_MISSES) {
					struct sim_order_miss *mi = &out->misses[out->nr_misses];

					snprintf(mi->zone, sizeof(mi->zone), "%s", k->name);
					mi->order = o;
					mi->sim = bs;
					mi->kernel = bk;
					mi->tolerance = sim_order_tolerance(bk, o);
				}
				out->nr_misses++;
			}
		}
	}
	out->pb_unmovable_ok = out->pb_unmovable_err <= 0.05;
	out->free_order_ok = !out->nr_misses;
	out->contig_2m_ok = sim->contig_2m == kernel->contig_2m;
	out->contig_1g_ok = sim->contig_1g == kernel->contig_1g;
}

static int zone_each(const struct sim_figures *f, const struct sim_zone_figures *z,
		     int (*fn)(void *arg, const char *zone, const char *name, int64_t value),
		     void *arg)
{
	const struct { const char *name; int64_t v; } t[] = {
		{ "pageblocks_unmovable", (int64_t)z->pb_unmovable },
		{ "pageblocks_unmovable_or_unknown", (int64_t)z->pb_unmovable_unknown },
		{ "unmovable_pages", (int64_t)z->unmovable_pages },
		{ "largest_free_order", z->largest_free_order },
	};
	int nmt = sim_nr_mts(f->cma), mt, ret;
	char name[64];
	unsigned int o, i;

	ret = fn(arg, z->name, "free_pages", (int64_t)z->free_pages);
	if (!ret)
		ret = fn(arg, z->name, "pcp_pages", (int64_t)z->pcp_pages);
	if (!ret)
		ret = fn(arg, z->name, "pcp_count", (int64_t)z->pcp_count);
	for (mt = 0; !ret && mt < nmt; mt++)
		for (o = 0; !ret && o <= f->max_order && o < SIM_ORDERS; o++) {
			snprintf(name, sizeof(name), "free_blocks.%s.%u", sim_mt_name(f->cma, mt), o);
			ret = fn(arg, z->name, name, (int64_t)z->nr_free[o][mt]);
		}
	for (mt = 0; !ret && mt < nmt; mt++) {
		snprintf(name, sizeof(name), "pageblocks.%s", sim_mt_name(f->cma, mt));
		ret = fn(arg, z->name, name, (int64_t)z->pageblocks[mt]);
	}
	for (i = 0; !ret && i < sizeof(t) / sizeof(t[0]); i++)
		ret = fn(arg, z->name, t[i].name, t[i].v);
	return ret;
}

int sim_figures_each(const struct sim_figures *f,
		     int (*fn)(void *arg, const char *zone, const char *name, int64_t value),
		     void *arg)
{
	const struct { const char *name; uint64_t v; } t[] = {
		{ "pageblocks", f->pageblocks }, { "pageblocks_unmovable", f->pb_unmovable },
		{ "pageblocks_unmovable_or_unknown", f->pb_unmovable_unknown },
		{ "unmovable_pages", f->unmovable_pages }, { "present_pages", f->present_pages },
		{ "contig_2m", f->contig_2m }, { "contig_1g", f->contig_1g },
	};
	unsigned int zi;
	int ret = 0;

	for (zi = 0; !ret && zi < f->nr_zones; zi++)
		ret = zone_each(f, &f->zone[zi], fn, arg);
	for (zi = 0; !ret && zi < sizeof(t) / sizeof(t[0]); zi++)
		ret = fn(arg, "", t[zi].name, (int64_t)t[zi].v);
	return ret;
}
