// SPDX-License-Identifier: GPL-2.0
/* wmark: a zone left below its low watermark by an allocation (decide.h). */
#include "model/model-local.h"

/* gfp_zone() on x86_64 (no HIGHMEM), as decide.c's: the highest zone type allowed. */
static int gfp_highest(uint32_t gfp)
{
	if (gfp & 0x01u)			/* __GFP_DMA */
		return 0;
	if (gfp & 0x04u)			/* __GFP_DMA32 */
		return 1;
	if ((gfp & 0x0au) == 0x0au)		/* __GFP_MOVABLE | __GFP_HIGHMEM */
		return 3;
	return 2;
}

bool model_low_wmark_breached(const struct model *m, unsigned int zone, uint32_t gfp,
			      int migratetype)
{
	const struct dzone *d = m->dz && zone < m->nr_zones ? &m->dz[zone] : NULL;
	const struct mzone *z;
	int64_t free;

	if (!d || !d->lim_known)
		return false;		/* no zoneinfo: no watermark (as decide.c) */
	z = &m->zones[zone];
	free = z->nr_free;	/* NR_FREE_PAGES */
	/* __zone_watermark_unusable_free(): ALLOC_CMA only for movable requests */
	if (!(m->prof.cma && model_imt_from_trace(m, migratetype) == IMT_MOVABLE))
		free -= z->free_pages[IMT_CMA];
	free -= z->free_pages[IMT_HIGHATOMIC];	/* no ALLOC_RESERVES on the fast path */
	return free <= (int64_t)(d->lim.wmark_low + d->lim.lowmem_reserve[gfp_highest(gfp)]);
}
