// SPDX-License-Identifier: GPL-2.0
/*
 * decide-shim: TEMPORARY placeholder of model/decide.h, deleted when the decide
 * branch (the real decision procedure) is merged. It only strings existing model
 * calls together, so the free-running simulation can run before that:
 *   model_take()  zones of gfp_zone() from the highest down (no watermarks, no
 *                 ALLOC_NOFRAGMENT, no lowmem_reserve), each through
 *                 model_alloc_block() (__rmqueue(): smallest, claim, steal); never
 *                 the pcp lists (source BUDDY); 1 when no zone has a block;
 *   model_give()  free_one_page() straight to the buddy (model_page_free_nopcp()):
 *                 with no pcp high/batch rules the lists would only grow;
 *   model_decide() model_take() inside a checkpoint, rolled back.
 */
#include "common/err.h"
#include "model/decide.h"
#include "model/model.h"

#include <string.h>

/* gfp zone modifiers (include/linux/gfp_types.h) */
#define SHIM_GFP_DMA		0x01u
#define SHIM_GFP_HIGHMEM	0x02u
#define SHIM_GFP_DMA32		0x04u
#define SHIM_GFP_MOVABLE	0x08u

/* Rank of a zone name in gfp_zone()'s terms; -1 for zones no request takes. */
static int zone_rank(const char *name)
{
	static const char *const names[] = { "DMA", "DMA32", "Normal", "Movable" };
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

/* gfp_zone() on x86_64: the highest zone rank the request may use. */
static int gfp_rank(uint32_t gfp)
{
	if (gfp & SHIM_GFP_DMA)
		return 0;
	if (gfp & SHIM_GFP_DMA32)
		return 1;
	if ((gfp & (SHIM_GFP_MOVABLE | SHIM_GFP_HIGHMEM)) == (SHIM_GFP_MOVABLE | SHIM_GFP_HIGHMEM))
		return 3;
	return 2;
}

int model_take(struct model *m, const struct model_request *rq, struct model_decision *out)
{
	const struct model_layout *L = model_get_layout(m);
	int top = gfp_rank(rq->gfp), mt = rq->migratetype, z;
	enum model_kind kind;

	kind = model_gfp_hugetlb(rq->gfp, rq->order, L->hugetlb_orders) ? MODEL_KIND_HUGETLB :
	       model_gfp_kind(rq->gfp, rq->order);
	if (mt < 0 || mt > 2)
		mt = 0;
	memset(out, 0, sizeof(*out));
	out->fallback_mt = -1;
	/* the zonelist: the highest allowed zone first, then the lower ones */
	for (z = (int)L->nr_zones - 1; z >= 0; z--) {
		int r = zone_rank(L->zones[z].name);
		uint64_t pfn;

		if (r < 0 || r > top || !L->zones[z].spanned)
			continue;
		if (!model_alloc_block(m, (unsigned int)z, rq->order, mt, kind, &pfn)) {
			out->pfn = pfn;
			out->source = MODEL_SRC_BUDDY;
			out->zone = z;
			return 0;
		}
	}
	out->pfn = UINT64_MAX;
	out->source = MODEL_SRC_NONE;
	out->zone = -1;
	return 1;
}

int model_decide(struct model *m, const struct model_request *rq, struct model_decision *out)
{
	int ret = model_checkpoint(m), ret2;

	if (ret)
		return ret;
	ret = model_take(m, rq, out);
	ret2 = model_rollback(m);
	return ret2 ? ret2 : ret;	/* 1: none, as model_take() */
}

int model_give(struct model *m, int cpu, uint64_t pfn, unsigned int order)
{
	return model_page_free_nopcp(m, pfn, order, cpu);
}
