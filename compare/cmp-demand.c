// SPDX-License-Identifier: GPL-2.0
/* cmp-demand: the demand served by a reservation, a CMA area or on demand (cmp-demand.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "compare/cmp-demand.h"
#include "model/model.h"
#include "sim/sim-contig.h"

int cmp_area_init(struct cmp_area *a, uint64_t start, uint64_t nr_pages, int cma)
{
	a->start = start;
	a->nr_pages = nr_pages;
	a->cma = cma;
	a->used = calloc(nr_pages ? nr_pages : 1, 1);
	return a->used ? 0 : bc_error(BC_E_NOMEM, "out of memory");
}

void cmp_area_release(struct cmp_area *a)
{
	free(a->used);
	a->used = NULL;
}

uint64_t cmp_area_used(const struct cmp_area *a)
{
	uint64_t i, n = 0;

	for (i = 0; i < a->nr_pages; i++)
		n += a->used[i];
	return n;
}

static void set_add(struct cmp_blocker_set *set, const char *name, uint64_t n)
{
	int i;

	for (i = 0; i < set->nr; i++)
		if (!strcmp(set->v[i].name, name))
			break;
	if (i == set->nr) {
		if (i == CMP_MAX_BLOCKERS)
			i--;		/* the last slot gathers the rest */
		else
			set->nr++;
		snprintf(set->v[i].name, sizeof(set->v[i].name), "%s", name);
	}
	set->v[i].n += n;
}

static void blocker(struct cmp_demand_stats *st, const char *name)
{
	set_add(&st->rejected, name, 1);
	set_add(&st->pending, name, 1);
}

void cmp_demand_settle(struct cmp_demand_stats *st, int failed)
{
	int i;

	for (i = 0; failed && i < st->pending.nr; i++)
		set_add(&st->blockers, st->pending.v[i].name, st->pending.v[i].n);
	st->pending.nr = 0;
	memset(st->pending.v, 0, sizeof(st->pending.v));
}

/* What stopped a range: the deciding stage and the kind of page it stopped at. */
static void range_blocker(struct model *m, const struct model_contig_result *r,
			  struct cmp_demand_stats *st)
{
	struct model_pfn_info pi;
	char buf[48];
	const char *kind = "?";

	if (r->pfn != UINT64_MAX && !model_pfn_info(m, r->pfn, &pi))
		kind = pi.state == MODEL_PFN_ALLOC ? model_kind_name(pi.kind) :
		       pi.state == MODEL_PFN_PCP ? "pcp" : pi.state == MODEL_PFN_BUDDY ? "free" :
		       "hole";
	snprintf(buf, sizeof(buf), "%s:%s", model_contig_stage_name(r->stage), kind);
	blocker(st, buf);
}

static int has_cma_block(struct model *m, uint64_t s, uint64_t e)
{
	uint64_t pb = 1ull << model_get_layout(m)->pageblock_order, p;
	int stored, eff;
	bool iso;

	if (!model_get_profile(m)->cma)
		return 0;
	for (p = s / pb * pb; p < e; p += pb)
		if (!model_pageblock_mt(m, p, &stored, &eff, &iso) && stored == 4)
			return 1;
	return 0;
}

/* alloc_contig_range() on one candidate. Return: 0 served, 1 not, < 0 error. */
static int try_range(struct model *m, uint64_t s, uint64_t nr, enum model_isolate_mode mode,
		     struct cmp_demand_stats *st, uint64_t *tried)
{
	struct model_contig_result res;
	int ret = sim_contig_range(m, s, nr, mode, NULL, &res);

	if (ret)
		return ret;
	*tried += nr;
	if (res.ret == 0) {
		st->pages_migrated += res.migrated;
		return 0;
	}
	range_blocker(m, &res, st);
	return 1;
}

static int area_fits(const struct cmp_area *a, uint64_t off, uint64_t nr)
{
	uint64_t i;

	for (i = 0; i < nr; i++)
		if (a->used[off + i])
			return 0;
	return 1;
}

/* First fit in @a at @nr's alignment (cma_alloc(): bitmap_find_next_zero_area_off()). */
static int from_area(struct model *m, struct cmp_area *a, uint64_t nr,
		     struct cmp_demand_stats *st, uint64_t *pfn, uint64_t *tried)
{
	uint64_t align = nr & (nr - 1) ? 1ull << model_get_layout(m)->pageblock_order : nr;
	uint64_t off;
	int ret;

	for (off = (a->start + align - 1) / align * align - a->start; off + nr <= a->nr_pages;
	     off += align) {
		if (!area_fits(a, off, nr))
			continue;
		ret = a->cma ? try_range(m, a->start + off, nr, MODEL_ISOLATE_CMA_ALLOC, st, tried) : 0;
		if (ret < 0)
			return ret;
		if (ret)
			continue;	/* -EBUSY: the next aligned position */
		memset(a->used + off, 1, nr);
		*pfn = a->start + off;
		return 0;
	}
	blocker(st, "area-full");
	return 1;
}

/* alloc_contig_pages() (see the header). */
static int on_demand(struct model *m, uint64_t nr, struct cmp_demand_stats *st, uint64_t *pfn,
		     uint64_t *tried)
{
	const struct model_layout *L = model_get_layout(m);
	bool gigantic = nr > (1ull << L->max_page_order);
	int z, ret;

	if (nr & (nr - 1))
		return -BC_E_INVAL;
	for (z = (int)L->nr_zones - 1; z >= 0; z--) {
		const struct model_zone_layout *zl = &L->zones[z];
		uint64_t s, end = zl->start_pfn + zl->spanned;

		if (!zl->spanned || (zl->movable && gigantic))
			continue;
		for (s = (zl->start_pfn + nr - 1) / nr * nr; s + nr <= end; s += nr) {
			if (has_cma_block(m, s, s + nr))
				continue;
			ret = try_range(m, s, nr, MODEL_ISOLATE_OTHER, st, tried);
			if (ret <= 0) {
				*pfn = s;
				return ret;
			}
		}
	}
	blocker(st, "no-range");
	return 1;
}

int cmp_demand_one(struct model *m, struct cmp_area *a, uint64_t nr,
		   struct cmp_demand_stats *st, uint64_t *pfn)
{
	uint64_t tried = 0;
	int ret;

	st->asked++;
	ret = a ? from_area(m, a, nr, st, pfn, &tried) : on_demand(m, nr, st, pfn, &tried);
	if (ret == 0) {
		st->served++;
		st->pages_scanned += tried ? tried : nr;
	}
	return ret;
}
