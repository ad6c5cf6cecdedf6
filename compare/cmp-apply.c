// SPDX-License-Identifier: GPL-2.0
/* cmp-apply: a what-if layout applied to a seeded model (cmp-apply.h). */
#include <stdbool.h>
#include <stdlib.h>

#include "common/err.h"
#include "compare/cmp-apply.h"
#include "model/decide.h"
#include "model/model.h"
#include "sim/sim-apply.h"

static bool movable_kind(enum model_kind k)
{
	return k == MODEL_KIND_ANON || k == MODEL_KIND_FILE || k == MODEL_KIND_THP ||
	       k == MODEL_KIND_HUGETLB;
}

/* GFP_KERNEL, GFP_HIGHUSER_MOVABLE (trace bits) */
#define CMP_GFP_KERNEL		0xcc0u
#define CMP_GFP_MOVABLE		0x100ccau

/* A block as the allocator hands it out (model_take()). Return: 0, 1 none, < 0. */
static int take(struct model *m, unsigned int order, bool movable, uint64_t *pfn)
{
	struct model_request rq = { .cpu = 0, .order = order, .migratetype = movable ? 1 : 0,
				    .gfp = movable ? CMP_GFP_MOVABLE : CMP_GFP_KERNEL };
	struct model_decision d;
	int ret = model_take(m, &rq, &d);

	*pfn = d.pfn;
	return ret;
}

/*
 * Pages in use in [@s, @e) (@all: every one; else those not movable) move to what
 * model_alloc_block() gives a block of their order and type in @zone.
 */
struct moved_block {
	uint64_t pfn;
	unsigned int order;
};

/* Give back the old places, once every page has its new one (none is handed out twice). */
static int give_all(struct model *m, const struct moved_block *v, size_t n, uint64_t *moved)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < n; i++) {
		ret = model_give(m, 0, v[i].pfn, v[i].order);
		*moved += 1ull << v[i].order;
	}
	return ret;
}

/* What evacuate() moves: every page in use, the unmovable ones, or (up to a limit) movable. */
enum ev_what { EV_ALL, EV_UNMOVABLE, EV_MOVABLE };

static int evacuate_some(struct model *m, struct sim_apply *ap, uint64_t s, uint64_t e,
			 enum ev_what what, uint64_t limit, uint64_t *moved)
{
	struct moved_block *v = NULL, *nv;
	size_t nr = 0, cap = 0;
	struct model_pfn_info pi;
	uint64_t p, np, n, done = 0;
	int ret = 0;

	for (p = s; !ret && p < e && done < limit; p += n) {
		n = 1;
		/* PageReserved pages (and the reservation's own) stay: boot memory */
		if (model_pfn_info(m, p, &pi) || pi.state != MODEL_PFN_ALLOC || pi.head != p ||
		    pi.kind == MODEL_KIND_RESERVED ||
		    (what == EV_UNMOVABLE && movable_kind(pi.kind)) ||
		    (what == EV_MOVABLE && !movable_kind(pi.kind)))
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 1024;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				ret = bc_error(BC_E_NOMEM, "out of memory");
				break;
			}
			v = nv;
		}
		/* a seed page's order is not known: page by page */
		v[nr].pfn = p;
		v[nr].order = pi.seeded ? 0 : pi.order;
		n = 1ull << v[nr].order;
		ret = take(m, v[nr].order, movable_kind(pi.kind), &np);
		if (ret > 0 && what == EV_MOVABLE) {
			ret = 0;	/* best effort: no room outside, the rest stays */
			break;
		}
		done += n;
		if (ret > 0)
			ret = bc_error(BC_E_INVAL, "no room outside [0x%llx, 0x%llx) for the "
				       "seed's %s page at 0x%llx (the layout leaves too little "
				       "memory the page may use): give a smaller SIZE or another "
				       "@PFN", (unsigned long long)s, (unsigned long long)e,
				       model_kind_name(pi.kind), (unsigned long long)p);
		if (!ret)
			ret = model_set_page_kind(m, np, n, pi.kind);
		if (!ret && ap)
			sim_apply_map(ap, p, np, n);
		nr++;
	}
	if (!ret)
		ret = give_all(m, v, nr, moved);
	free(v);
	return ret;
}

static int evacuate(struct model *m, struct sim_apply *ap, uint64_t s, uint64_t e, bool all,
		    uint64_t *moved)
{
	return evacuate_some(m, ap, s, e, all ? EV_ALL : EV_UNMOVABLE, UINT64_MAX, moved);
}

/*
 * Movable seed pages in a CMA area move out while the rest of the zone has more free
 * pages than the area: a boot with the area would not have put them there, since
 * __rmqueue() takes CMA pages for movable requests only once the zone's free CMA pages
 * exceed half its free pages. Moving k pages makes the area's free pages k more and
 * the others k fewer, so k = (others - area) / 2 at most. An assumption (stated in
 * cmp-run.h): the balance held from boot.
 */
static int balance_cma(struct model *m, struct sim_apply *ap, uint64_t s, uint64_t e,
		       uint64_t *moved)
{
	const struct model_layout *L = model_get_layout(m);
	struct model_range_counts rc;
	struct model_zone_stats zs;
	uint64_t area_free, others;
	unsigned int z;

	for (z = 0; z < L->nr_zones; z++)
		if (s >= L->zones[z].start_pfn && s < L->zones[z].start_pfn + L->zones[z].spanned)
			break;
	if (z == L->nr_zones || model_zone_stats(m, z, &zs) || model_range_counts(m, s, e, &rc))
		return 0;
	area_free = rc.pages[MODEL_PBC_FREE];
	others = zs.free_pages > area_free ? zs.free_pages - area_free : 0;
	if (others <= area_free + 1)
		return 0;
	return evacuate_some(m, ap, s, e, EV_MOVABLE, (others - area_free) / 2, moved);
}

static uint64_t share(uint64_t v, uint64_t part, uint64_t whole)
{
	return whole ? (uint64_t)((double)v * (double)part / (double)whole) : v;
}

/*
 * The carved ZONE_MOVABLE has no zoneinfo of its own: its watermarks and the cut
 * zone's are the seed's split by managed pages, as __setup_per_zone_wmarks() shares
 * min_free_kbytes; pcp batch as the cut zone's, high bounds shared as the
 * watermarks and managed pages they follow (zone_highsize());
 * lowmem_reserve against Movable from sysctl_lowmem_reserve_ratio (256 DMA/DMA32, 32
 * Normal). An assumption.
 */
static int movable_limits(struct model *m, int mz, bool traced)
{
	const struct model_layout *L = model_get_layout(m);
	uint64_t lo = L->zones[mz - 1].managed, hi = L->zones[mz].managed, all = lo + hi;
	struct model_zone_limits a, b;
	int z, t, ret = model_get_zone_limits(m, (unsigned int)mz - 1, &a);

	if (!ret && traced)
		ret = model_get_zone_limits(m, (unsigned int)mz, &b);
	if (ret)
		return ret;
	if (traced) {
		/* a resized traced ZONE_MOVABLE: the two zones' shares, joined again */
		a.wmark_min += b.wmark_min;
		a.wmark_low += b.wmark_low;
		a.wmark_high += b.wmark_high;
		a.pcp_high_max += b.pcp_high_max;
		a.pcp_high_min += b.pcp_high_min;
	}
	b = a;
	b.wmark_min = share(a.wmark_min, hi, all);
	b.wmark_low = share(a.wmark_low, hi, all);
	b.wmark_high = share(a.wmark_high, hi, all);
	b.pcp_high_max = (uint32_t)share(a.pcp_high_max, hi, all);
	/* zone_highsize(): high_min follows the low watermark, at least batch << 2 */
	b.pcp_high_min = (uint32_t)share(a.pcp_high_min, hi, all);
	if (b.pcp_high_min < a.pcp_batch << 2)
		b.pcp_high_min = a.pcp_batch << 2;
	if (b.pcp_high_max < b.pcp_high_min)
		b.pcp_high_max = b.pcp_high_min;
	a.wmark_min = share(a.wmark_min, lo, all);
	a.wmark_low = share(a.wmark_low, lo, all);
	a.wmark_high = share(a.wmark_high, lo, all);
	a.pcp_high_max = (uint32_t)share(a.pcp_high_max, lo, all);
	a.pcp_high_min = (uint32_t)share(a.pcp_high_min, lo, all);
	if (a.pcp_high_min < a.pcp_batch << 2)
		a.pcp_high_min = a.pcp_batch << 2;
	if (a.pcp_high_max < a.pcp_high_min)
		a.pcp_high_max = a.pcp_high_min;
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

static bool online(struct model *m, uint64_t s, uint64_t n)
{
	struct model_range_counts rc;

	return !model_range_counts(m, s, s + n, &rc) && !rc.pages[MODEL_PBC_HOLE] &&
	       !rc.pages[MODEL_PBC_UNINIT] && !rc.pages[MODEL_PBC_RESERVED];
}

int cmp_apply_online_window(struct model *m, uint64_t *start, uint64_t nr_pages,
			    uint64_t align)
{
	int z = model_pfn_zone(m, *start);
	uint64_t lo, s;

	if (z < 0)
		return bc_error(BC_E_INVAL, "pfn 0x%llx is in no zone", (unsigned long long)*start);
	lo = model_get_layout(m)->zones[z].start_pfn;
	for (s = *start / align * align; s >= lo; s -= align) {
		if (online(m, s, nr_pages)) {
			*start = s;
			return 0;
		}
		if (s < align)
			break;
	}
	return bc_error(BC_E_INVAL, "no %llu pages online together for the area",
			(unsigned long long)nr_pages);
}

/*
 * Pages of [@s, @e) the seed shows uninitialised (a lazily initialised memmap: the
 * capture's kernel had not yet grown into them) are freed into their zone in blocks of
 * the largest aligned order, as deferred init does at boot (deferred_init_memmap() ->
 * deferred_free_pages() -> __free_pages_core()): find_zone_movable_pfns_for_nodes()
 * sized the zone on present pages, and defer_init() defers only the node's last zone
 * range, which deferred init then frees. An assumption for kernels that grow lazily.
 */
static int init_uninit(struct model *m, uint64_t s, uint64_t e, uint64_t *freed)
{
	unsigned int max = model_get_layout(m)->max_page_order, o;
	struct model_pfn_info pi;
	uint64_t p = s, q;
	int ret = 0;

	while (!ret && p < e) {
		if (model_pfn_info(m, p, &pi) || pi.state != MODEL_PFN_UNINIT) {
			p++;
			continue;
		}
		for (q = p; q < e && !model_pfn_info(m, q, &pi) && pi.state == MODEL_PFN_UNINIT; q++)
			;
		while (!ret && p < q) {
			for (o = max; o && ((p & ((1ull << o) - 1)) || p + (1ull << o) > q); o--)
				;
			ret = model_page_free(m, p, o, 0);
			*freed += 1ull << o;
			p += 1ull << o;
		}
	}
	return ret;
}

int cmp_apply_movable(struct model *m, struct sim_apply *ap, uint64_t movable_start,
		      uint64_t traced_start, uint64_t *moved, uint64_t *initialised)
{
	int z = model_pfn_zone(m, movable_start), ret;
	uint64_t end;

	if (z < 1 || !model_get_layout(m)->zones[z].movable)
		return bc_error(BC_E_INVAL, "no ZONE_MOVABLE at pfn 0x%llx",
				(unsigned long long)movable_start);
	end = movable_start + model_get_layout(m)->zones[z].spanned;
	ret = movable_limits(m, z, traced_start != 0);
	/* what the traced kernel placed in its own ZONE_MOVABLE stays */
	if (!ret && traced_start && traced_start < end)
		end = traced_start;
	if (!ret && movable_start < end)
		ret = evacuate(m, ap, movable_start, end, false, moved);
	end = movable_start + model_get_layout(m)->zones[z].spanned;
	if (!ret)
		ret = init_uninit(m, movable_start, end, initialised);
	return ret;
}

/* Every pageblock of [@s, @s + @n) to trace type @mt. */
static int retype(struct model *m, uint64_t s, uint64_t n, int mt)
{
	uint64_t pb = 1ull << model_get_layout(m)->pageblock_order, p;
	int ret = 0;

	for (p = s / pb * pb; !ret && p < s + n; p += pb)
		ret = model_set_pageblock_mt(m, p, mt);
	return ret;
}

/*
 * The seed's pcp pages inside the area go to the buddy (free_pcppages_bulk() with the
 * block's type, CMA): they sit on another type's list (Unmovable, Reclaimable) where a
 * boot with the area never put them (free_unref_page() files a CMA page on the Movable
 * list), and an unmovable request would take them from there.
 */
static int drain_area(struct model *m, uint64_t s, uint64_t e)
{
	struct model_pfn_info pi;
	uint64_t p;
	int ret = 0;

	for (p = s; !ret && p < e; p++)
		if (!model_pfn_info(m, p, &pi) && pi.state == MODEL_PFN_PCP && pi.head == p)
			ret = model_pcpu_drain(m, p, pi.order, CMP_TRACE_MT_CMA, pi.cpu);
	return ret;
}

int cmp_apply_cma(struct model *m, struct sim_apply *ap, uint64_t start, uint64_t nr_pages,
		  uint64_t *moved, uint64_t *initialised)
{
	int ret;

	model_set_cma(m, true);
	ret = retype(m, start, nr_pages, CMP_TRACE_MT_CMA);
	/* cma_activate_area() -> init_cma_reserved_pageblock() frees every page at boot */
	if (!ret && initialised)
		ret = init_uninit(m, start, start + nr_pages, initialised);
	if (!ret)
		ret = drain_area(m, start, start + nr_pages);
	if (!ret)
		ret = evacuate(m, ap, start, start + nr_pages, false,
			       moved);
	if (!ret)
		ret = balance_cma(m, ap, start, start + nr_pages, moved);
	return ret;
}

/* Every run of free buddy pages in [@s, @e) becomes a reserved allocation. */
static int take_free(struct model *m, uint64_t s, uint64_t e)
{
	struct model_pfn_info pi;
	uint64_t p = s, q;
	int ret = model_drain_zone(m, s);

	while (!ret && p < e) {
		for (q = p; q < e && !model_pfn_info(m, q, &pi) && pi.state == MODEL_PFN_BUDDY; q++)
			;
		if (q > p)
			ret = model_take_range(m, p, q, MODEL_KIND_RESERVED);
		p = q > p ? q : p + 1;
	}
	return ret;
}

int cmp_apply_reserve(struct model *m, struct sim_apply *ap, uint64_t start,
		      uint64_t nr_pages, uint64_t *moved)
{
	/* free pages first, so that no page moved out is handed back inside */
	int ret = take_free(m, start, start + nr_pages);

	if (!ret)
		ret = evacuate(m, ap, start, start + nr_pages, true, moved);
	if (!ret)
		ret = take_free(m, start, start + nr_pages);
	return ret;
}
