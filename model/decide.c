// SPDX-License-Identifier: GPL-2.0
/*
 * decide.c - the allocator's decisions (model/decide.h): which zone, which list,
 * which block, as get_page_from_freelist() -> rmqueue() of mm/page_alloc.c makes them.
 * Choosing is pure (a "plan" over the lists, the state untouched): model_decide()
 * stops there, model_take() executes the plan (and a refill's further blocks) with
 * the buddy primitives of buddy.c. model_give() is free_frozen_pages().
 */
#include <limits.h>
#include <stdlib.h>

#include "model/decide.h"
#include "model/model-local.h"

/* mm/internal.h alloc flags (the ones the decision reads). */
#define ALLOC_WMARK_MIN		0x00
#define ALLOC_WMARK_LOW		0x01
#define ALLOC_WMARK_MASK	0x03
#define ALLOC_NON_BLOCK		0x10
#define ALLOC_MIN_RESERVE	0x20
#define ALLOC_HIGHATOMIC	0x200
#define ALLOC_NOFRAGMENT	0x100
#define ALLOC_CMA		0x80
#define ALLOC_RESERVES		(ALLOC_NON_BLOCK | ALLOC_MIN_RESERVE | ALLOC_HIGHATOMIC)

/* include/linux/gfp_types.h bits (6.1 to 6.18). */
#define GFP_DMA			0x01u
#define GFP_HIGHMEM		0x02u
#define GFP_DMA32		0x04u
#define GFP_MOVABLE		0x08u
#define GFP_HIGH		0x20u
#define GFP_DIRECT_RECLAIM	0x400u
#define GFP_NOMEMALLOC		(1u << 19)

enum { ZT_DMA, ZT_DMA32, ZT_NORMAL, ZT_MOVABLE, ZT_DEVICE };

#define PAGE_ALLOC_COSTLY_ORDER	3

/* How a plan takes its block. */
enum { PL_PCP, PL_SMALLEST, PL_CLAIM_WHOLE, PL_CLAIM_PART, PL_STEAL, PL_OLD_STEAL };
/* enum rmqueue_mode (v6.15, 6.12.118): kept across one rmqueue_bulk(). */
enum { RQ_NORMAL, RQ_CMA, RQ_CLAIM, RQ_STEAL };

struct plan {
	int how;			/* PL_* */
	uint32_t head;			/* the free block taken (buddy or pcp) */
	unsigned int k;			/* its order */
	uint32_t idx;			/* first page handed out */
	int fallback_mt;		/* imt of the fallback list, -1 */
	int start_mt;			/* imt the pages are for */
	bool block_claimed;		/* PL_OLD_STEAL: the pageblock is re-typed */
	bool can_move;			/* PL_OLD_STEAL: its free pages move (whole_block) */
	bool pcp_path;			/* rmqueue_pcplist(): a pcp hit or a refill */
};

/* fallbacks[] (imt numbers are the kernel's for the pcp types). */
static const int fallbacks[3][2] = {
	[IMT_UNMOVABLE]   = { IMT_RECLAIMABLE, IMT_MOVABLE },
	[IMT_MOVABLE]     = { IMT_RECLAIMABLE, IMT_UNMOVABLE },
	[IMT_RECLAIMABLE] = { IMT_UNMOVABLE, IMT_MOVABLE },
};

const char *model_source_name(enum model_source s)
{
	static const char *const n[] = { "pcp", "refill", "buddy", "fallback", "none" };

	return (unsigned int)s <= MODEL_SRC_NONE ? n[s] : "?";
}

int model_zone_type_of_name(const char *name)
{
	static const char *const n[] = { "DMA", "DMA32", "Normal", "Movable", "Device" };
	int i;

	for (i = 0; i < MODEL_NR_ZONE_TYPES; i++)
		if (!strcmp(name, n[i]))
			return i;
	return -1;
}

static int zone_type(const struct model *m, unsigned int zi)
{
	return m->zone_type[zi];
}

/* NR_FREE_PAGES: buddy pages not on the ISOLATE lists (account_freepages()). */
static uint64_t nr_free(const struct mzone *z)
{
	return z->nr_free;	/* free_pages[] below IMT_ISOLATE, kept by buddy.c */
}

uint64_t model_zone_nr_free(const struct model *m, unsigned int zone)
{
	return zone < m->nr_zones ? nr_free(&m->zones[zone]) : 0;
}

unsigned int model_zones_nr_free(const struct model *m, uint64_t *out, unsigned int n)
{
	unsigned int zi;

	for (zi = 0; zi < m->nr_zones && zi < n; zi++)
		out[zi] = nr_free(&m->zones[zi]);
	return zi;
}

/* The per-cpu NR_FREE_PAGES diffs not folded into the zone's counter. */
static int64_t vmstat_pending(const struct model *m, unsigned int zi)
{
	const struct dzone *d = m->dz ? &m->dz[zi] : NULL;
	int64_t n = 0;
	unsigned int cpu;

	if (!d || !d->dpcp)
		return 0;
	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		n += (int32_t)d->dpcp[cpu].vm_free_diff;
	return n;
}

/* ---- pcp sizes --------------------------------------------------------------------- */

/* zone_batchsize() and the high bounds without percpu_pagelist_high_fraction. */
static void default_limits(const struct model *m, unsigned int zi, struct model_zone_limits *l)
{
	uint64_t managed = m->layout.zones[zi].managed, b = managed >> 12, p = 1;

	memset(l, 0, sizeof(*l));
	if (b > 64)
		b = 64;
	if (b < 1)
		b = 1;
	b += b / 2;
	while (p * 2 <= b)
		p *= 2;
	l->pcp_batch = (uint32_t)(p > 1 ? p - 1 : 1);
	l->pcp_high_min = 4 * l->pcp_batch;
	l->pcp_high_max = (uint32_t)(managed / 8 / (m->nr_cpus ? m->nr_cpus : 1));
	if (l->pcp_high_max < l->pcp_high_min)
		l->pcp_high_max = l->pcp_high_min;
}

/* The decide state of zone @zi, allocated on first use; NULL when out of memory. */
static struct dzone *dzone(struct model *m, unsigned int zi)
{
	if (!m->dz) {
		m->dz = calloc(m->nr_zones, sizeof(*m->dz));
		if (!m->dz) {
			model_nomem(m, "out of memory for the zone limits");
			return NULL;
		}
	}
	return &m->dz[zi];
}

/* The zoneinfo limits of @zi, NULL when not known (no watermark then). */
static const struct model_zone_limits *known_limits(const struct model *m, unsigned int zi)
{
	return m->dz && m->dz[zi].lim_known ? &m->dz[zi].lim : NULL;
}

int model_set_zone_limits(struct model *m, unsigned int zone,
			  const struct model_zone_limits *lim)
{
	struct dzone *d;
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (zone >= m->nr_zones)
		return bc_error(BC_E_INVAL, "model: zone %u out of range", zone);
	d = dzone(m, zone);
	if (!d)
		return -BC_E_NOMEM;
	d->lim = *lim;
	d->lim_known = true;
	return 0;
}

/* The limits pcp sizing uses: zoneinfo's, or the defaults (computed once). */
static const struct model_zone_limits *limits(struct model *m, unsigned int zi)
{
	static const struct model_zone_limits none = { .pcp_batch = 1 };
	struct dzone *d = dzone(m, zi);

	if (!d)
		return &none;
	if (!d->lim_known && !d->lim.pcp_batch)
		default_limits(m, zi, &d->lim);
	return &d->lim;
}

int model_get_zone_limits(struct model *m, unsigned int zone, struct model_zone_limits *out)
{
	if (zone >= m->nr_zones)
		return bc_error(BC_E_INVAL, "model: zone %u out of range", zone);
	*out = *limits(m, zone);
	return 0;
}

int model_zone_pcp_disable(struct model *m, unsigned int zone, struct model_zone_limits *saved)
{
	struct model_zone_limits off;
	int ret = model_get_zone_limits(m, zone, saved);

	if (ret)
		return ret;
	off = *saved;
	off.pcp_batch = 1;
	off.pcp_high_min = off.pcp_high_max = 0;
	return model_set_zone_limits(m, zone, &off);
}

/* The per-cpu tuning of @zi (allocated on first use, zeroed = as after boot). */
static struct dpcp *pcp_state(struct model *m, unsigned int zi, unsigned int cpu)
{
	struct dzone *d = dzone(m, zi);

	if (!d)
		return NULL;
	if (!d->dpcp) {
		d->dpcp = calloc(m->nr_cpus, sizeof(*d->dpcp));
		if (!d->dpcp) {
			model_nomem(m, "out of memory for the pcp state");
			return NULL;
		}
	}
	return &d->dpcp[cpu];
}

/* Free pages at or below the high watermark. */
static bool under_high(const struct model *m, unsigned int zi)
{
	const struct model_zone_limits *l = known_limits(m, zi);

	return l && nr_free(&m->zones[zi]) <= l->wmark_high;
}

/*
 * ZONE_BELOW_HIGH. A flag, not the state: get_page_from_freelist() sets it when a
 * request finds the zone at or under its high watermark (the flag clear), the free path
 * clears it after a drain that leaves the zone over it (free_unref_page_commit()), so
 * it can stay set while the zone is over the mark and clear while under it, for as
 * long as no allocation looks or no drain comes; meanwhile pcp->high shrinks or grows
 * by it (nr_pcp_high(), nr_pcp_alloc()). Before model_take() keeps it: the state.
 */
static bool below_high(const struct model *m, unsigned int zi)
{
	const struct dzone *d = m->dz ? &m->dz[zi] : NULL;

	return d && d->bh_kept ? d->below_high != 0 : under_high(m, zi);
}

static uint32_t clamp32(int64_t v, int64_t lo, int64_t hi)
{
	return (uint32_t)(v < lo ? lo : v > hi ? hi : v);
}

/*
 * nr_pcp_alloc() from v6.7 with alloc_factor @af, pcp->high @high and pcp->count
 * @count, nothing changed: the pages; *@new_high pcp->high after, *@af_up whether
 * alloc_factor grows.
 */
static unsigned int pcp_alloc_size(const struct model_zone_limits *l, bool grow, int64_t high,
				   int64_t count, unsigned int af, unsigned int order,
				   int64_t *new_high, bool *af_up)
{
	int64_t batch = l->pcp_batch, b, max_nr;

	*af_up = false;
	high = clamp32(high, l->pcp_high_min, l->pcp_high_max);
	*new_high = high;
	if (high < batch)
		return 1;
	b = order ? batch : batch << af;
	if (grow) {
		high = high + b < l->pcp_high_max ? high + b : l->pcp_high_max;
		*new_high = high;
	}
	if (!order) {
		max_nr = high - count - batch;
		if (max_nr < batch)
			max_nr = batch;
		*af_up = b <= max_nr && af < PCP_BATCH_SCALE_MAX;
		if (b > max_nr)
			b = max_nr;
	}
	if (b > 1) {
		b >>= order;
		if (b < 2)
			b = 2;
	}
	return (unsigned int)b;
}

/* nr_pcp_alloc() raises pcp->high first: a tuned list of a zone over its high mark. */
static bool refill_grows_high(struct model *m, unsigned int zi,
			      const struct model_zone_limits *l)
{
	return l->pcp_high_min != l->pcp_high_max && !below_high(m, zi);
}

/*
 * nr_pcp_alloc(): blocks rmqueue_bulk() takes for an empty list, @count the cpu's
 * pcp->count then; tunes high.
 */
static unsigned int nr_pcp_alloc(struct model *m, unsigned int zi, struct dpcp *p,
				 int64_t count, unsigned int order)
{
	const struct model_zone_limits *l = limits(m, zi);
	int64_t batch = l->pcp_batch, high;
	unsigned int b;
	bool af_up;

	/* before v6.7 (no alloc_factor, no high tuning): batch, scaled by order */
	if (m->prof.version < MODEL_KVER(6, 7, 0))
		return batch > 1 ? (unsigned int)(batch >> order > 2 ? batch >> order : 2) :
				   (unsigned int)batch;
	b = pcp_alloc_size(l, refill_grows_high(m, zi, l), p->high, count, p->alloc_factor,
			   order, &high, &af_up);
	jset32(m, &p->high, (uint32_t)high);
	if (af_up)
		jset32(m, &p->alloc_factor, p->alloc_factor + 1);
	return b;
}

int model_pcp_infer_alloc_factor(struct model *m, unsigned int zone, unsigned int cpu,
				 unsigned int pages)
{
	const struct model_zone_limits *l;
	struct dpcp *p;
	int64_t high;
	unsigned int af, best = UINT_MAX;
	bool af_up, grow;
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (zone >= m->nr_zones || cpu >= m->nr_cpus)
		return bc_error(BC_E_INVAL, "model: no pcp list of zone %u cpu %u", zone, cpu);
	if (m->prof.version < MODEL_KVER(6, 7, 0))
		return 0;
	l = limits(m, zone);
	p = pcp_state(m, zone, cpu);
	if (!p)
		return -BC_E_NOMEM;
	grow = refill_grows_high(m, zone, l);
	/* the model's own, where it gives the kernel's pages */
	if (pcp_alloc_size(l, grow, p->high, m->zones[zone].pcp_count[cpu], p->alloc_factor, 0,
			   &high, &af_up) == pages)
		return 0;
	/* else the smallest that gives them (a capped refill fits several) */
	for (af = 0; af <= PCP_BATCH_SCALE_MAX && best == UINT_MAX; af++)
		if (pcp_alloc_size(l, grow, p->high, m->zones[zone].pcp_count[cpu], af, 0, &high,
				   &af_up) == pages)
			best = af;
	if (best == UINT_MAX)
		return 0;
	if (best != p->alloc_factor)
		jset32(m, &p->alloc_factor, best);
	return 1;
}

/* ---- planning (pure) ----------------------------------------------------------------- */

static struct flist *pcp_list(struct model *m, struct mzone *z, unsigned int cpu,
			      unsigned int order, int mt)
{
	return &z->pcp[cpu * NR_PCP_LISTS + model_pcp_pindex(order, mt)];
}

/* __rmqueue_smallest(): the head of the smallest order with a block of @mt. */
static bool plan_smallest(struct model *m, struct mzone *z, unsigned int order, int mt,
			  struct plan *pl)
{
	unsigned int o;

	for (o = order; o < m->nr_orders; o++) {
		uint32_t h = free_list(m, z, o, mt)->head;

		if (h != NIL) {
			*pl = (struct plan){ .how = PL_SMALLEST, .head = h, .k = o, .idx = h,
					     .fallback_mt = -1, .start_mt = mt };
			return true;
		}
	}
	return false;
}

/* find_suitable_fallback(): the first fallback type with a block of @co. */
static int find_fallback(struct model *m, struct mzone *z, unsigned int co, int start,
			 bool *can_claim)
{
	int i;

	for (i = 0; i < 2; i++) {
		int fb = fallbacks[start][i];

		if (free_list(m, z, co, fb)->head == NIL)
			continue;
		/* should_try_claim_block() (6.12.118: can_steal_fallback()), found order */
		*can_claim = co >= m->pb_order || co >= m->pb_order / 2 ||
			     start != IMT_MOVABLE;
		return fb;
	}
	return -1;
}

/*
 * The block __rmqueue_smallest() takes after the free pages of pageblock @pbi moved
 * to @start's lists (at the tail, in pfn order, onto lists that were empty from
 * @order up): the lowest pfn of the smallest order >= @order.
 */
static uint32_t smallest_in_block(const struct model *m, uint32_t pbi, unsigned int order,
				  unsigned int *k)
{
	uint32_t i = pbi << m->pb_order, end = i + (1u << m->pb_order), best = NIL;
	unsigned int bo = UINT32_MAX;

	while (i < end) {
		uint32_t w = m->words[i];

		if (wtag(w) == WT_BUDDY) {
			unsigned int o = node_of(m, w & W_PAYLOAD)->info & FN_ORDER_MASK;

			if (o >= order && o < bo) {
				bo = o;
				best = i;
			}
			i += 1u << o;
		} else {
			i++;
		}
	}
	*k = bo;
	return best;
}

/* try_to_claim_block()'s test below pageblock order: free + alike >= half a block. */
static bool claim_part_ok(const struct model *m, uint32_t pbi, int start, int block_type)
{
	const struct pblock *b = &m->pb[pbi];
	uint32_t pbn = 1u << m->pb_order, free = b->cnt[MODEL_PBC_FREE];
	uint32_t movable = b->cnt[MODEL_PBC_MOVABLE], alike = 0;

	/* prep_move_freepages_block(): a block across the zone's edge is not moved */
	if (b->flags & PB_STRADDLE)
		return false;
	if (start == IMT_MOVABLE)
		alike = movable;
	else if (block_type == IMT_MOVABLE)
		alike = pbn - free - movable;
	return free + alike >= pbn / 2;
}

/* __rmqueue_claim() (6.12.118 and v6.15+): largest fallback block first. */
static bool plan_claim(struct model *m, struct mzone *z, unsigned int order, int start,
		       unsigned int aflags, struct plan *pl)
{
	int co, min_order = (int)order;

	if (order < m->pb_order && (aflags & ALLOC_NOFRAGMENT))
		min_order = (int)m->pb_order;
	for (co = (int)m->max_order; co >= min_order; co--) {
		bool can = false;
		int fb = find_fallback(m, z, (unsigned int)co, start, &can), bt;
		uint32_t h, pbi;
		unsigned int k;

		if (fb < 0)
			continue;
		if (!can)
			break;
		h = free_list(m, z, (unsigned int)co, fb)->head;
		pbi = h >> m->pb_order;
		bt = pb_eff_mt(&m->pb[pbi]);
		if (bt == IMT_HIGHATOMIC)
			continue;
		if ((unsigned int)co >= m->pb_order) {
			*pl = (struct plan){ .how = PL_CLAIM_WHOLE, .head = h, .k = (unsigned int)co,
					     .idx = h, .fallback_mt = fb, .start_mt = start,
					     .block_claimed = true };
			return true;
		}
		if (!claim_part_ok(m, pbi, start, bt))
			continue;
		h = smallest_in_block(m, pbi, order, &k);
		*pl = (struct plan){ .how = PL_CLAIM_PART, .head = h, .k = k, .idx = h,
				     .fallback_mt = fb, .start_mt = start, .block_claimed = true };
		return true;
	}
	return false;
}

/* __rmqueue_steal(): the smallest fallback block, expanded onto its own list. */
static bool plan_steal(struct model *m, struct mzone *z, unsigned int order, int start,
		       struct plan *pl)
{
	unsigned int co;

	for (co = order; co < m->nr_orders; co++) {
		bool can;
		int fb = find_fallback(m, z, co, start, &can);

		if (fb < 0)
			continue;
		*pl = (struct plan){ .how = PL_STEAL, .head = free_list(m, z, co, fb)->head,
				     .k = co, .fallback_mt = fb, .start_mt = start };
		pl->idx = pl->head;
		return true;
	}
	return false;
}

/*
 * __rmqueue_fallback() before the claim/steal split (6.1): the largest fallback
 * block, or for a MOVABLE request that may not claim it the smallest one; then
 * steal_suitable_fallback() moves the block's free pages to the request's lists
 * (re-typing the pageblock when free + alike >= half) and __rmqueue_smallest()
 * takes the smallest of them.
 */
static bool plan_old_fallback(struct model *m, struct mzone *z, unsigned int order, int start,
			      unsigned int aflags, struct plan *pl)
{
	int co, min_order = (int)order, fb = -1;
	bool can = false;
	uint32_t h, pbi;
	unsigned int k;

	if (order < m->pb_order && (aflags & ALLOC_NOFRAGMENT))
		min_order = (int)m->pb_order;
	for (co = (int)m->max_order; co >= min_order; co--) {
		fb = find_fallback(m, z, (unsigned int)co, start, &can);
		if (fb < 0)
			continue;
		if (!can && start == IMT_MOVABLE && co > (int)order) {
			for (co = (int)order; co < (int)m->nr_orders; co++)
				if ((fb = find_fallback(m, z, (unsigned int)co, start, &can)) >= 0)
					break;
		}
		break;
	}
	if (fb < 0 || co < min_order || co >= (int)m->nr_orders)
		return false;
	h = free_list(m, z, (unsigned int)co, fb)->head;
	pbi = h >> m->pb_order;
	*pl = (struct plan){ .how = PL_OLD_STEAL, .head = h, .k = (unsigned int)co, .idx = h,
			     .fallback_mt = fb, .start_mt = start };
	if (pb_eff_mt(&m->pb[pbi]) == IMT_HIGHATOMIC || (unsigned int)co >= m->pb_order) {
		pl->block_claimed = (unsigned int)co >= m->pb_order;
		return true;
	}
	if (can && !(m->pb[pbi].flags & PB_STRADDLE)) {
		pl->block_claimed = claim_part_ok(m, pbi, start, pb_eff_mt(&m->pb[pbi]));
		pl->idx = pl->head = smallest_in_block(m, pbi, order, &k);
		pl->k = k;
		pl->can_move = true;
	}
	return true;
}

/* __rmqueue(): CMA balance, own type, CMA, claim, steal; *@mode as rmqueue_bulk(). */
static bool plan_rmqueue(struct model *m, struct mzone *z, unsigned int order, int start,
			 unsigned int aflags, int *mode, struct plan *pl)
{
	bool cma = m->prof.cma && (aflags & ALLOC_CMA);

	if (cma && z->free_pages[IMT_CMA] > nr_free(z) / 2 &&
	    plan_smallest(m, z, order, IMT_CMA, pl))
		return true;
	if (start >= IMT_HIGHATOMIC)
		return plan_smallest(m, z, order, start, pl);
	if (!m->prof.claim_steal) {
		if (plan_smallest(m, z, order, start, pl))
			return true;
		if (cma && plan_smallest(m, z, order, IMT_CMA, pl))
			return true;
		return plan_old_fallback(m, z, order, start, aflags, pl);
	}
	switch (*mode) {
	case RQ_NORMAL:
		if (plan_smallest(m, z, order, start, pl))
			return true;
		/* fallthrough */
	case RQ_CMA:
		if (cma && plan_smallest(m, z, order, IMT_CMA, pl)) {
			*mode = RQ_CMA;
			return true;
		}
		/* fallthrough */
	case RQ_CLAIM:
		if (plan_claim(m, z, order, start, aflags, pl)) {
			*mode = RQ_NORMAL;
			return true;
		}
		/* fallthrough */
	default:
		if (!(aflags & ALLOC_NOFRAGMENT) && plan_steal(m, z, order, start, pl)) {
			*mode = RQ_STEAL;
			return true;
		}
	}
	return false;
}

/* rmqueue_buddy(): the highatomic reserve first for ALLOC_HIGHATOMIC, last for
 * non-blocking requests. */
static bool plan_buddy(struct model *m, struct mzone *z, unsigned int order, int start,
		       unsigned int aflags, struct plan *pl)
{
	int mode = RQ_NORMAL;

	if ((aflags & ALLOC_HIGHATOMIC) && plan_smallest(m, z, order, IMT_HIGHATOMIC, pl))
		return true;
	if (plan_rmqueue(m, z, order, start, aflags, &mode, pl))
		return true;
	return (aflags & ALLOC_NON_BLOCK) && plan_smallest(m, z, order, IMT_HIGHATOMIC, pl);
}

/* rmqueue() in zone @zi: the pcp head, a refill's first block, or the buddy's. */
static enum model_source plan_zone(struct model *m, unsigned int zi, unsigned int cpu,
				   unsigned int order, int start, unsigned int aflags,
				   struct plan *pl)
{
	struct mzone *z = &m->zones[zi];
	int mode = RQ_NORMAL;

	if (model_pcp_allowed(m, order) && start < IMT_HIGHATOMIC) {
		uint32_t h = pcp_list(m, z, cpu, order, start)->head;

		if (h != NIL) {
			*pl = (struct plan){ .how = PL_PCP, .head = h, .k = order, .idx = h,
					     .fallback_mt = -1, .start_mt = start,
					     .pcp_path = true };
			return MODEL_SRC_PCP;
		}
		if (plan_rmqueue(m, z, order, start, aflags, &mode, pl)) {
			pl->pcp_path = true;
			return pl->fallback_mt >= 0 ? MODEL_SRC_FALLBACK : MODEL_SRC_REFILL;
		}
	}
	if (plan_buddy(m, z, order, start, aflags, pl))
		return pl->fallback_mt >= 0 ? MODEL_SRC_FALLBACK : MODEL_SRC_BUDDY;
	return MODEL_SRC_NONE;
}

/* ---- zones and watermarks -------------------------------------------------------------- */

/* gfp_zone() on x86_64 (no HIGHMEM): the highest zone type the request may use. */
static int gfp_zone_type(uint32_t gfp)
{
	if (gfp & GFP_DMA)
		return ZT_DMA;
	if (gfp & GFP_DMA32)
		return ZT_DMA32;
	if ((gfp & (GFP_MOVABLE | GFP_HIGHMEM)) == (GFP_MOVABLE | GFP_HIGHMEM))
		return ZT_MOVABLE;
	return ZT_NORMAL;
}

/*
 * The zonelist: zones of type <= @highest, the highest first, node 0's before the
 * others (the request's node is not traced: an assumption on NUMA machines).
 */
static unsigned int zonelist(const struct model *m, int highest, unsigned int *zl)
{
	unsigned int n = 0, i, j;

	for (i = 0; i < m->nr_zones; i++) {
		int t = zone_type(m, i);

		if (t < 0 || t > highest || !m->layout.zones[i].managed)
			continue;
		for (j = n; j > 0; j--) {
			const struct model_zone_layout *a = &m->layout.zones[zl[j - 1]];
			int ta = zone_type(m, zl[j - 1]);

			if (a->nid < m->layout.zones[i].nid ||
			    (a->nid == m->layout.zones[i].nid && ta > t))
				break;
			zl[j] = zl[j - 1];
		}
		zl[j] = i;
		n++;
	}
	return n;
}

/* alloc_flags_nofragment(): the preferred zone is Normal and its node has DMA32. */
static bool nofragment(const struct model *m, unsigned int pref)
{
	unsigned int i;

	if (zone_type(m, pref) != ZT_NORMAL)
		return false;
	for (i = 0; i < m->nr_zones; i++)
		if (zone_type(m, i) == ZT_DMA32 && m->layout.zones[i].managed &&
		    m->layout.zones[i].nid == m->layout.zones[pref].nid)
			return true;
	return false;
}

/* __zone_watermark_ok() with zone_watermark_fast()'s order-0 shortcut. */
static bool watermark_ok(struct model *m, unsigned int zi, unsigned int order,
			 uint64_t mark, int highest, unsigned int aflags)
{
	struct mzone *z = &m->zones[zi];
	const struct model_zone_limits *l = known_limits(m, zi);
	int64_t free, min = (int64_t)mark, reserve;
	unsigned int o;
	int mt;

	if (!l)
		return true;
	/* zone_page_state(zone, NR_FREE_PAGES): the counter, per-cpu diffs unfolded */
	free = (int64_t)nr_free(z) - vmstat_pending(m, zi);
	reserve = (int64_t)l->lowmem_reserve[highest];
	if (!(aflags & ALLOC_CMA))
		free -= z->free_pages[IMT_CMA];
	if (!order && free > min + reserve)
		return true;
	free -= (1 << order) - 1;
	if (!(aflags & ALLOC_RESERVES))
		free -= z->free_pages[IMT_HIGHATOMIC];
	if (aflags & ALLOC_MIN_RESERVE) {
		min -= min / 2;
		if (aflags & ALLOC_NON_BLOCK)
			min -= min / 4;
	}
	if (free <= min + reserve)
		return false;
	if (!order)
		return true;
	for (o = order; o < m->nr_orders; o++) {
		for (mt = 0; mt < IMT_HIGHATOMIC; mt++)
			if (free_list(m, z, o, mt)->count)
				return true;
		if ((aflags & ALLOC_CMA) && free_list(m, z, o, IMT_CMA)->count)
			return true;
		if ((aflags & ALLOC_RESERVES) && free_list(m, z, o, IMT_HIGHATOMIC)->count)
			return true;
	}
	return false;
}

struct choice {
	unsigned int zone;
	unsigned int aflags;
	enum model_source src;
	struct plan pl;
};

/*
 * get_page_from_freelist(): before the zone's own watermark, a zone whose
 * ZONE_BELOW_HIGH is clear is tested against its high watermark, and the flag set when
 * that fails (v6.7+; only when the request is made, model_take(), not when asked).
 */
static void note_below_high(struct model *m, unsigned int zi, unsigned int order,
			    int highest, unsigned int aflags)
{
	struct dzone *d = m->dz ? &m->dz[zi] : NULL;
	const struct model_zone_limits *l = known_limits(m, zi);

	if (d && d->bh_kept && !d->below_high && l &&
	    !watermark_ok(m, zi, order, l->wmark_high, highest, aflags))
		jset32(m, &d->below_high, 1);
}

/* get_page_from_freelist() over the zonelist with @aflags. */
static bool try_zones(struct model *m, const unsigned int *zl, unsigned int n, int highest,
		      unsigned int cpu, unsigned int order, int start, unsigned int aflags,
		      bool take, struct choice *c)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct model_zone_limits *l = known_limits(m, zl[i]);
		uint64_t mark = !l ? 0 : (aflags & ALLOC_WMARK_MASK) == ALLOC_WMARK_LOW ?
				l->wmark_low : l->wmark_min;

		if (take)
			note_below_high(m, zl[i], order, highest, aflags);
		if (!watermark_ok(m, zl[i], order, mark, highest, aflags))
			continue;
		c->src = plan_zone(m, zl[i], cpu, order, start, aflags, &c->pl);
		if (c->src != MODEL_SRC_NONE) {
			c->zone = zl[i];
			c->aflags = aflags;
			return true;
		}
	}
	return false;
}

/*
 * model_request.zone_fixed: the zonelist cut to that zone; each zone before it was
 * visited (its ZONE_BELOW_HIGH check made) and failed, as in the kernel's pass.
 */
static unsigned int fix_zone(struct model *m, const struct model_request *rq, int highest,
			     bool take, unsigned int *zl, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && zl[i] != rq->zone; i++)
		;
	if (i == n)
		return n;
	if (take)
		for (unsigned int k = 0; k < i; k++)
			note_below_high(m, zl[k], rq->order, highest, ALLOC_WMARK_LOW);
	zl[0] = rq->zone;
	return 1;
}

/*
 * __alloc_pages(): the fast path (low watermark, ALLOC_NOFRAGMENT where it applies,
 * then without it), then the slow path's first attempt (gfp_to_alloc_flags(): min
 * watermark, __GFP_HIGH reserves, ALLOC_HIGHATOMIC for non-blocking order > 0).
 * Returns 0 with *@c, 1 when no zone serves it without reclaim, or -BC_E_INVAL.
 */
static int choose(struct model *m, const struct model_request *rq, bool take,
		  struct choice *c)
{
	unsigned int zl[MODEL_MAX_ZONES], n, cpu, af;
	int highest = gfp_zone_type(rq->gfp), start = model_imt_from_trace(m, rq->migratetype);
	bool cma;

	if (start < 0 || start >= IMT_CMA || rq->order > m->max_order)
		return bc_error(BC_E_INVAL, "model: request of order %u, migratetype %d",
				rq->order, rq->migratetype);
	cpu = rq->cpu >= 0 && (unsigned int)rq->cpu < m->nr_cpus ? (unsigned int)rq->cpu : 0;
	n = zonelist(m, highest, zl);
	if (!n)
		return 1;
	if (rq->zone_fixed)
		n = fix_zone(m, rq, highest, take, zl, n);
	/* gfp_to_alloc_flags_cma(): movable requests may use CMA */
	cma = start == IMT_MOVABLE && m->prof.cma;
	af = ALLOC_WMARK_LOW | (cma ? ALLOC_CMA : 0);
	if (nofragment(m, zl[0]) &&
	    try_zones(m, zl, n, highest, cpu, rq->order, start, af | ALLOC_NOFRAGMENT, take, c))
		return 0;
	if (try_zones(m, zl, n, highest, cpu, rq->order, start, af, take, c))
		return 0;
	af = ALLOC_WMARK_MIN | (cma ? ALLOC_CMA : 0) | (rq->gfp & GFP_HIGH ? ALLOC_MIN_RESERVE : 0);
	if (!(rq->gfp & GFP_DIRECT_RECLAIM) && !(rq->gfp & GFP_NOMEMALLOC))
		af |= ALLOC_NON_BLOCK | (rq->order ? ALLOC_HIGHATOMIC : 0);
	if (try_zones(m, zl, n, highest, cpu, rq->order, start, af, take, c))
		return 0;
	return 1;
}

static void fill_decision(const struct model *m, const struct choice *c,
			  struct model_decision *out)
{
	out->pfn = idx_to_pfn(m, c->pl.idx);
	out->source = c->src;
	out->zone = (int)c->zone;
	out->fallback_mt = c->pl.fallback_mt >= 0 ? model_imt_to_trace(m, c->pl.fallback_mt) : -1;
	out->claimed = c->pl.how == PL_CLAIM_WHOLE || c->pl.how == PL_CLAIM_PART ||
		       (c->pl.how == PL_OLD_STEAL && c->pl.block_claimed);
}

/* The common start of model_decide() and model_take(): *@out NONE, or the choice. */
static int decide_begin(struct model *m, const struct model_request *rq, bool take,
			struct choice *c, struct model_decision *out)
{
	int ret = model_broken(m);

	*out = (struct model_decision){ 0, MODEL_SRC_NONE, -1, -1, false };
	if (ret)
		return ret;
	ret = choose(m, rq, take, c);
	if (!ret)
		fill_decision(m, c, out);
	return ret;
}

int model_decide(struct model *m, const struct model_request *rq, struct model_decision *out)
{
	struct choice c;

	return decide_begin(m, rq, false, &c, out);
}

/* ---- doing it ------------------------------------------------------------------------ */

/* Re-type the pageblocks a block of order @k at @head covers (change_pageblock_range()). */
static void retype_cover(struct model *m, uint32_t head, unsigned int k, int mt)
{
	uint32_t p = head >> m->pb_order, n = k > m->pb_order ? 1u << (k - m->pb_order) : 1;

	while (n--)
		model_pb_set_mt(m, p++, mt);
}

/* Take the plan's block off the buddy: the pages [idx, idx + 2^order) stay free words. */
static int exec_plan(struct model *m, struct mzone *z, const struct plan *pl,
		     unsigned int order)
{
	uint32_t pbi = pl->head >> m->pb_order;

	switch (pl->how) {
	case PL_CLAIM_WHOLE:
		/* try_to_claim_block(): whole blocks re-typed, expand() onto the new type */
		retype_cover(m, pl->head, pl->k, pl->start_mt);
		return model_carve(m, z, pl->head, pl->idx, order, pl->start_mt);
	case PL_CLAIM_PART:
		/* __move_freepages_block() to the tail of the new lists, then smallest */
		model_move_freepages_block(m, pbi, pl->start_mt);
		model_pb_set_mt(m, pbi, pl->start_mt);
		return model_carve(m, z, pl->head, pl->idx, order, -1);
	case PL_OLD_STEAL:
		/* steal_suitable_fallback(), then __rmqueue_smallest() of the request's type */
		if (pl->k >= m->pb_order && pl->block_claimed) {
			retype_cover(m, pl->head, pl->k, pl->start_mt);
		} else if (pl->can_move) {
			model_move_freepages_block(m, pbi, pl->start_mt);
			if (pl->block_claimed)
				model_pb_set_mt(m, pbi, pl->start_mt);
			return model_carve(m, z, pl->head, pl->idx, order, -1);
		}
		return model_carve(m, z, pl->head, pl->idx, order, pl->start_mt);
	default:
		/* expand() onto the list the block was on (a steal keeps the type) */
		return model_carve(m, z, pl->head, pl->idx, order, -1);
	}
}

/* The pages [idx, idx + 2^order), free words, become the request's allocation. */
static void make_alloc(struct model *m, uint32_t idx, const struct model_request *rq, int imt)
{
	unsigned int kind = model_alloc_kind(m, rq->gfp, rq->order);
	unsigned int gc = model_gfp_classify(rq->gfp, rq->order, m->pb_order);

	model_fill_range(m, idx, 1u << rq->order, w_alloc(rq->order, (unsigned int)imt, kind, gc, 0),
			 w_tail((unsigned int)imt, kind), MODEL_PBC_FREE);
}

/* rmqueue_bulk(): nr_pcp_alloc() blocks from __rmqueue(), appended at the tail. */
static int refill(struct model *m, const struct choice *c, unsigned int cpu,
		  unsigned int order, int start)
{
	struct mzone *z = &m->zones[c->zone];
	struct dpcp *p = pcp_state(m, c->zone, cpu);
	unsigned int i, n;
	int mode = RQ_NORMAL, ret;

	if (!p)
		return -BC_E_NOMEM;
	n = nr_pcp_alloc(m, c->zone, p, m->zones[c->zone].pcp_count[cpu], order);
	for (i = 0; i < n; i++) {
		struct plan pl;

		if (!plan_rmqueue(m, z, order, start, c->aflags, &mode, &pl))
			break;
		ret = exec_plan(m, z, &pl, order);
		if (!ret)
			ret = model_pcp_add(m, z, pl.idx, order, start, (int)cpu, 1, 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* From the first model_take() on, ZONE_BELOW_HIGH is kept (v6.7+), from the state. */
static int keep_below_high(struct model *m)
{
	unsigned int zi;

	if (m->prof.version < MODEL_KVER(6, 7, 0) || (m->dz && m->dz[0].bh_kept))
		return 0;
	for (zi = 0; zi < m->nr_zones; zi++) {
		struct dzone *d = dzone(m, zi);

		if (!d)
			return -BC_E_NOMEM;
		jset32(m, &d->below_high, under_high(m, zi));
		jset32(m, &d->bh_kept, 1);
	}
	return 0;
}

int model_take(struct model *m, const struct model_request *rq, struct model_decision *out)
{
	struct choice c;
	struct mzone *z;
	unsigned int cpu;
	int ret = keep_below_high(m);

	if (!ret)
		ret = decide_begin(m, rq, true, &c, out);

	if (ret)
		return ret;
	z = &m->zones[c.zone];
	cpu = rq->cpu >= 0 && (unsigned int)rq->cpu < m->nr_cpus ? (unsigned int)rq->cpu : 0;
	if (c.pl.pcp_path) {
		struct dpcp *p = pcp_state(m, c.zone, cpu);

		if (!p)
			return -BC_E_NOMEM;
		/* rmqueue_pcplist(): an allocation halves the batch-free count */
		jset32(m, &p->free_count, p->free_count >> 1);
		/* rmqueue_bulk() fills the request's list: a CMA plan is a movable request's */
		if (c.pl.start_mt == IMT_CMA)
			c.pl.start_mt = IMT_MOVABLE;
		if (c.src != MODEL_SRC_PCP) {
			ret = refill(m, &c, cpu, rq->order, c.pl.start_mt);
			if (ret)
				return ret;
		}
		c.pl.idx = pcp_list(m, z, cpu, rq->order, c.pl.start_mt)->head;
		out->pfn = idx_to_pfn(m, c.pl.idx);
		model_del_free(m, c.pl.idx);
	} else {
		ret = exec_plan(m, z, &c.pl, rq->order);
		if (ret)
			return ret;
	}
	make_alloc(m, c.pl.idx, rq, c.pl.start_mt);
	return 0;
}

/* ---- freeing --------------------------------------------------------------------------- */

/* free_pcppages_bulk(): @count pages from the list tails, round-robin from @pindex. */
static int pcp_drain(struct model *m, unsigned int zi, unsigned int cpu, int64_t count,
		     unsigned int pindex)
{
	struct mzone *z = &m->zones[zi];
	struct flist *lists = &z->pcp[cpu * NR_PCP_LISTS];
	int ret;

	if (count > z->pcp_count[cpu])
		count = z->pcp_count[cpu];
	pindex = pindex ? pindex - 1 : NR_PCP_LISTS - 1;
	while (count > 0) {
		struct flist *fl;

		do {
			pindex = pindex + 1 < NR_PCP_LISTS ? pindex + 1 : 0;
			fl = &lists[pindex];
		} while (fl->head == NIL);
		do {
			uint32_t idx = fl->tail;
			unsigned int order = model_del_free(m, idx) & FN_ORDER_MASK;

			count -= 1 << order;
			model_write_word(m, idx, wmake(WT_FREE_TAIL, 0));
			ret = model_free_one(m, z, idx, order, pb_eff_mt(pb_of(m, idx)), 0);
			if (ret)
				return ret;
		} while (count > 0 && fl->head != NIL);
	}
	return 0;
}

/* nr_pcp_high() without ZONE_RECLAIM_ACTIVE (not modelled). */
static int64_t nr_pcp_high(struct model *m, unsigned int zi, struct dpcp *p, int64_t count,
			   int64_t batch, bool free_high)
{
	const struct model_zone_limits *l = limits(m, zi);
	int64_t high = clamp32(p->high, l->pcp_high_min, l->pcp_high_max);

	jset32(m, &p->high, (uint32_t)high);
	if (!high)
		return 0;
	if (free_high) {
		high -= batch << PCP_BATCH_SCALE_MAX;
		jset32(m, &p->high, (uint32_t)(high > l->pcp_high_min ? high : l->pcp_high_min));
		return 0;
	}
	if (l->pcp_high_min == l->pcp_high_max)
		return high;
	if (below_high(m, zi)) {
		int64_t fc = p->free_count > batch ? p->free_count : batch;

		jset32(m, &p->high, clamp32(high - fc, l->pcp_high_min, INT64_MAX));
		high = count > l->pcp_high_min ? count : l->pcp_high_min;
	} else if (count >= high && p->high < p->free_count + batch) {
		jset32(m, &p->high, clamp32(p->free_count + batch, l->pcp_high_min,
					    l->pcp_high_max));
	}
	return high;
}

/* nr_pcp_free(). */
static int64_t nr_pcp_free(const struct dpcp *p, int64_t count, int64_t batch, int64_t high,
			   bool free_high)
{
	if (free_high)
		return count < batch << PCP_BATCH_SCALE_MAX ? count : batch << PCP_BATCH_SCALE_MAX;
	if (high < batch)
		return 1;
	return clamp32(p->free_count, batch, high - batch > batch ? high - batch : batch);
}

/*
 * free_unref_page_commit() before v6.7 (v6.0-v6.6): pcp->high does not move; free_factor
 * (kept in free_count: an allocation halves it there too) doubles each batch freed
 * without an allocation between, up to high - batch; a freed order 1-3 page while it
 * is non-zero frees the whole list (free_high). The caller added the page.
 */
static int64_t commit_decide_v6_1(struct model *m, unsigned int zi, struct dpcp *p,
				  unsigned int order, int64_t count)
{
	const struct model_zone_limits *l = limits(m, zi);
	int64_t batch = l->pcp_batch, nr;
	int64_t high = clamp32(p->high, l->pcp_high_min, l->pcp_high_max);
	bool free_high = p->free_count && order && order <= PAGE_ALLOC_COSTLY_ORDER;

	/* nr_pcp_high(): 0 when free_high (or no high) */
	if (free_high)
		high = 0;
	if (count < high)
		return 0;
	/* nr_pcp_free() */
	if (free_high)
		return count;
	if (high < batch)
		return 1;
	nr = batch << p->free_count;
	if (nr < high - batch && p->free_count < PCP_BATCH_SCALE_MAX)
		jset32(m, &p->free_count, p->free_count + 1);
	nr = nr < batch ? batch : nr;
	return nr > high - batch ? high - batch : nr;
}

/*
 * free_unref_page_commit() / free_frozen_page_commit() after the page of @order went
 * onto the list, @count pages there now: the state it leaves, and the pages it has
 * free_pcppages_bulk() drain (0: none).
 */
static int64_t commit_decide(struct model *m, unsigned int zi, struct dpcp *p,
			     unsigned int order, int64_t count)
{
	int64_t batch = limits(m, zi)->pcp_batch, high, thresh = batch;
	bool free_high = false;

	/* no effect before v6.7: nr_pcp_alloc() has no alloc_factor there */
	jset32(m, &p->alloc_factor, p->alloc_factor >> 1);
	if (m->prof.version < MODEL_KVER(6, 7, 0))
		return commit_decide_v6_1(m, zi, p, order, count);
	/* the free_high threshold grew by high_min / 2 after 6.12 */
	if (m->prof.version > MODEL_KVER(6, 12, 255))
		thresh += limits(m, zi)->pcp_high_min / 2;
	if (order && order <= PAGE_ALLOC_COSTLY_ORDER) {
		/* PCPF_FREE_HIGH_BATCH (setup_pcp_cacheinfo()): a batch stays */
		bool keep_batch = !m->prof.data_slice_pages ||
				  m->prof.data_slice_pages > 3 * (uint64_t)batch;

		free_high = p->free_count >= thresh && p->prev_free_high &&
			    (!keep_batch || count >= batch);
		jset32(m, &p->prev_free_high, 1);
	} else if (p->prev_free_high) {
		jset32(m, &p->prev_free_high, 0);
	}
	if (p->free_count < (batch << PCP_BATCH_SCALE_MAX))
		jset32(m, &p->free_count, p->free_count + (1u << order));
	high = nr_pcp_high(m, zi, p, count, batch, free_high);
	if (count < high)
		return 0;
	return nr_pcp_free(p, count, batch, high, free_high);
}

/* After the free path drained: ZONE_BELOW_HIGH cleared over the high watermark. */
static void drained_clear(struct model *m, unsigned int zi)
{
	/* zone_watermark_ok(zone, 0, high_wmark_pages(zone), ZONE_MOVABLE, 0) */
	if (m->dz[zi].bh_kept && m->dz[zi].below_high &&
	    watermark_ok(m, zi, 0, limits(m, zi)->wmark_high, ZT_MOVABLE, 0))
		jset32(m, &m->dz[zi].below_high, 0);
}

/*
 * Leave a drain of @total pages pending (model_pcp_drain_step()): free_pcppages_bulk()
 * calls of @batch pages each (0: one), from list @pindex. A drain still pending is
 * made first: the cpu decided this one after it.
 */
static int drain_defer(struct model *m, unsigned int zi, unsigned int cpu, int64_t total,
		       int64_t batch, unsigned int pindex, bool clear)
{
	struct dpcp *p = &m->dz[zi].dpcp[cpu];
	int ret = model_pcp_drain_step(m, zi, cpu, INT64_MAX, false);

	if (ret)
		return ret;
	if (total > UINT32_MAX)
		total = UINT32_MAX;
	jset32(m, &p->drain_total, (uint32_t)total);
	jset32(m, &p->drain_batch, (uint32_t)batch);
	jset32(m, &p->drain_start, pindex);
	jset32(m, &p->drain_left, 0);
	jset32(m, &p->drain_in_list, 0);
	jset32(m, &p->drain_clear, clear);
	if (total > 0)
		jset32(m, &m->drains_pending, m->drains_pending + 1);
	return 0;
}

void model_set_drain_deferred(struct model *m, bool on)
{
	m->drain_deferred = on;
}

bool model_drains_pending(const struct model *m)
{
	return m->drains_pending != 0;
}

bool model_pcp_drain_pending(const struct model *m, unsigned int zone, unsigned int cpu)
{
	const struct dpcp *p = zone < m->nr_zones && cpu < m->nr_cpus && m->dz &&
			       m->dz[zone].dpcp ? &m->dz[zone].dpcp[cpu] : NULL;

	return p && (p->drain_total || (int32_t)p->drain_left > 0);
}

int model_pcp_drain_step(struct model *m, unsigned int zone, unsigned int cpu,
			 int64_t max_pages, bool skip)
{
	struct mzone *z;
	struct flist *lists;
	struct dpcp *p;
	int64_t done = 0, left;
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (!model_pcp_drain_pending(m, zone, cpu))
		return 0;
	p = &m->dz[zone].dpcp[cpu];
	z = &m->zones[zone];
	lists = &z->pcp[cpu * NR_PCP_LISTS];
	while (done < max_pages) {
		unsigned int pindex = p->drain_pindex, order;
		struct flist *fl;
		uint32_t idx;

		left = (int32_t)p->drain_left;
		if (left <= 0) {
			/* the next free_pcppages_bulk() call: count = min(pcp->count, count) */
			if (!p->drain_total)
				break;
			left = p->drain_batch && p->drain_batch < p->drain_total ? p->drain_batch :
										    p->drain_total;
			jset32(m, &p->drain_total, p->drain_total - (uint32_t)left);
			if (left > z->pcp_count[cpu])
				left = z->pcp_count[cpu];
			if (left <= 0) {
				jset32(m, &p->drain_total, 0);
				break;
			}
			pindex = p->drain_start ? p->drain_start - 1 : NR_PCP_LISTS - 1;
			jset32(m, &p->drain_in_list, 0);
		}
		if (skip) {
			/* the caller freed a block of the drain itself */
			left -= max_pages - done;
			done = max_pages;
			jset32(m, &p->drain_left, (uint32_t)(int32_t)left);
			jset32(m, &p->drain_pindex, pindex);
			break;
		}
		if (!p->drain_in_list || lists[pindex].head == NIL) {
			unsigned int n;

			for (n = 0; n < NR_PCP_LISTS; n++) {
				pindex = pindex + 1 < NR_PCP_LISTS ? pindex + 1 : 0;
				if (lists[pindex].head != NIL)
					break;
			}
			if (n == NR_PCP_LISTS) {	/* nothing left on the lists */
				jset32(m, &p->drain_total, 0);
				left = 0;
				jset32(m, &p->drain_left, 0);
				break;
			}
			jset32(m, &p->drain_in_list, 1);
		}
		fl = &lists[pindex];
		idx = fl->tail;
		order = model_del_free(m, idx) & FN_ORDER_MASK;
		left -= 1 << order;
		done += 1 << order;
		model_write_word(m, idx, wmake(WT_FREE_TAIL, 0));
		ret = model_free_one(m, z, idx, order, pb_eff_mt(pb_of(m, idx)), 0);
		if (ret)
			return ret;
		if (fl->head == NIL)
			jset32(m, &p->drain_in_list, 0);
		jset32(m, &p->drain_left, (uint32_t)(int32_t)left);
		jset32(m, &p->drain_pindex, pindex);
	}
	if (model_pcp_drain_pending(m, zone, cpu))
		return 0;
	jset32(m, &m->drains_pending, m->drains_pending - 1);
	if (p->drain_clear) {
		jset32(m, &p->drain_clear, 0);
		drained_clear(m, zone);
	}
	return 0;
}

/* free_unref_page_commit() / free_frozen_page_commit(). */
static int pcp_commit(struct model *m, unsigned int zi, unsigned int cpu, uint32_t idx,
		      unsigned int order, int mt)
{
	struct dpcp *p = pcp_state(m, zi, cpu);
	int lmt = mt >= IMT_HIGHATOMIC ? IMT_MOVABLE : mt;
	unsigned int pindex = model_pcp_pindex(order, order >= PCP_LOW_ORDERS &&
					       lmt != IMT_MOVABLE ? IMT_UNMOVABLE : lmt);
	int64_t nr;
	int ret;

	if (!p)
		return -BC_E_NOMEM;
	ret = model_pcp_add(m, &m->zones[zi], idx, order, mt, (int)cpu, 0, 0);
	if (ret)
		return ret;
	nr = commit_decide(m, zi, p, order, m->zones[zi].pcp_count[cpu]);
	if (!nr)
		return 0;
	if (m->drain_deferred)
		return drain_defer(m, zi, cpu, nr, 0, pindex, true);
	ret = pcp_drain(m, zi, cpu, nr, pindex);
	/* before v6.7 there is no ZONE_BELOW_HIGH (bh_kept stays clear) */
	if (!ret)
		drained_clear(m, zi);
	return ret;
}

/* decay_pcp_high(): the cpu's pcp->high decays; the pages over it are drained. */
static int64_t decay_decide(struct model *m, unsigned int zone, struct dpcp *p, int64_t count)
{
	const struct model_zone_limits *l = limits(m, zone);
	int64_t high, batch;

	/* bounds not known (replay/zone-limits.c computes them where zoneinfo has none) */
	if (m->prof.version < MODEL_KVER(6, 7, 0) || !l->pcp_high_min)
		return 0;
	batch = l->pcp_batch;
	/* pcp->high as the free and refill paths read it (0 = not yet tuned: high_min) */
	high = clamp32(p->high, l->pcp_high_min, l->pcp_high_max);
	if (high > l->pcp_high_min) {
		int64_t h = high - (high >> 3), c = count - (batch << PCP_BATCH_SCALE_MAX);

		if (h < c)
			h = c;
		if (h < l->pcp_high_min)
			h = l->pcp_high_min;
		high = h;
		jset32(m, &p->high, (uint32_t)high);
	}
	return count > high ? count - high : 0;
}

/* The dpcp of a zone and cpu asked by a caller; NULL with *@ret set when none. */
static struct dpcp *asked_pcp(struct model *m, unsigned int zone, unsigned int cpu, int *ret)
{
	struct dpcp *p;

	*ret = model_broken(m);
	if (*ret)
		return NULL;
	if (zone >= m->nr_zones || cpu >= m->nr_cpus) {
		*ret = bc_error(BC_E_INVAL, "model: no pcp list of zone %u cpu %u", zone, cpu);
		return NULL;
	}
	p = pcp_state(m, zone, cpu);
	if (!p)
		*ret = -BC_E_NOMEM;
	return p;
}

int model_decay_pcp_high(struct model *m, unsigned int zone, unsigned int cpu)
{
	int64_t batch, to_drain;
	int ret;
	struct dpcp *p = asked_pcp(m, zone, cpu, &ret);

	if (!p)
		return ret;
	batch = limits(m, zone)->pcp_batch;
	to_drain = decay_decide(m, zone, p, m->zones[zone].pcp_count[cpu]);
	if (to_drain > 0 && m->drain_deferred)
		return drain_defer(m, zone, cpu, to_drain, batch, 0, false);
	/* free_pcppages_bulk(zone, min(to_drain, batch), pcp, 0) until under high */
	for (; to_drain > 0 && !ret; to_drain -= batch)
		ret = pcp_drain(m, zone, cpu, to_drain < batch ? to_drain : batch, 0);
	return ret;
}

int model_pcp_free_decide(struct model *m, unsigned int zone, unsigned int cpu,
			  unsigned int order, int64_t count, int64_t *nr_drain)
{
	int ret;
	struct dpcp *p = asked_pcp(m, zone, cpu, &ret);

	*nr_drain = p ? commit_decide(m, zone, p, order, count) : 0;
	return ret;
}

int model_pcp_alloc_decide(struct model *m, unsigned int zone, unsigned int cpu,
			   unsigned int order, bool refill, int64_t count, int64_t *nr_pages)
{
	int ret;
	struct dpcp *p = asked_pcp(m, zone, cpu, &ret);

	*nr_pages = 0;
	if (!p)
		return ret;
	/* rmqueue_pcplist(): halved before __rmqueue_pcplist() looks at the list */
	jset32(m, &p->free_count, p->free_count >> 1);
	if (refill)
		*nr_pages = (int64_t)nr_pcp_alloc(m, zone, p, count, order) << order;
	return 0;
}

int model_pcp_decay_decide(struct model *m, unsigned int zone, unsigned int cpu,
			   int64_t count, int64_t *to_drain)
{
	int ret;
	struct dpcp *p = asked_pcp(m, zone, cpu, &ret);

	*to_drain = p ? decay_decide(m, zone, p, count) : 0;
	return ret;
}

int model_pcp_drained(struct model *m, unsigned int zone)
{
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (zone >= m->nr_zones)
		return bc_error(BC_E_INVAL, "model: no zone %u", zone);
	if (m->dz && known_limits(m, zone))
		drained_clear(m, zone);
	return 0;
}

int model_note_request(struct model *m, const struct model_request *rq, unsigned int zone)
{
	struct model_request q = *rq;
	struct choice c;
	int ret = model_broken(m);

	if (!ret)
		ret = keep_below_high(m);
	if (ret)
		return ret;
	q.zone_fixed = true;
	q.zone = zone;
	ret = choose(m, &q, true, &c);
	return ret < 0 ? ret : 0;
}

int model_set_pcp_high(struct model *m, unsigned int zone, unsigned int cpu, uint32_t high)
{
	int ret;
	struct dpcp *p = asked_pcp(m, zone, cpu, &ret);

	if (p)
		jset32(m, &p->high, high);
	return ret;
}

int model_set_pcp_alloc_factor(struct model *m, unsigned int zone, unsigned int cpu,
			       unsigned int af)
{
	int ret;
	struct dpcp *p = asked_pcp(m, zone, cpu, &ret);

	if (p)
		jset32(m, &p->alloc_factor, af < PCP_BATCH_SCALE_MAX ? af : PCP_BATCH_SCALE_MAX);
	return ret;
}

int model_get_pcp(struct model *m, unsigned int zone, unsigned int cpu, uint32_t *count,
		  uint32_t *high)
{
	struct dpcp *p;

	if (zone >= m->nr_zones || cpu >= m->nr_cpus)
		return bc_error(BC_E_INVAL, "model: no pcp list of zone %u cpu %u", zone, cpu);
	p = m->dz && m->dz[zone].dpcp ? &m->dz[zone].dpcp[cpu] : NULL;
	*count = m->zones[zone].pcp_count[cpu];
	*high = p ? p->high : 0;
	return 0;
}

static int vmstat_mod(struct model *m, unsigned int zone, unsigned int cpu, int64_t delta,
		      bool hold);

/* __mod_zone_page_state(): the diff folds into the counter past the threshold. */
int model_vmstat_mod_free(struct model *m, unsigned int zone, unsigned int cpu, int64_t delta)
{
	return vmstat_mod(m, zone, cpu, delta, false);
}

int model_vmstat_hold_free(struct model *m, unsigned int zone, unsigned int cpu, int64_t delta)
{
	return vmstat_mod(m, zone, cpu, delta, true);
}

/*
 * @cpu's NR_FREE_PAGES diff of @zone (*@p) and the zone's threshold (*@thresh).
 * Return: 1, 0 when no threshold is known (the counter is exact), or a negative bc_err.
 */
static int vmstat_diff(struct model *m, unsigned int zone, unsigned int cpu, struct dpcp **p,
		       int64_t *thresh)
{
	const struct model_zone_limits *l;
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (zone >= m->nr_zones || cpu >= m->nr_cpus)
		return bc_error(BC_E_INVAL, "model: no vmstat diff of zone %u cpu %u", zone, cpu);
	l = known_limits(m, zone);
	if (!l || !l->stat_threshold)
		return 0;
	*p = pcp_state(m, zone, cpu);
	if (!*p)
		return -BC_E_NOMEM;
	*thresh = l->stat_threshold;
	return 1;
}

/* @x, or 0 past the threshold: zone_page_state_add(x) folded it into the zone's counter. */
static int64_t vmstat_folded(int64_t x, int64_t thresh)
{
	return x > thresh || x < -thresh ? 0 : x;
}

/* @delta into @cpu's diff; folded past the threshold unless @hold (0: a settle) */
static int vmstat_mod(struct model *m, unsigned int zone, unsigned int cpu, int64_t delta,
		      bool hold)
{
	struct dpcp *p;
	int64_t thresh, x;
	int ret = vmstat_diff(m, zone, cpu, &p, &thresh);

	if (ret <= 0 || (!delta && hold))
		return ret;
	x = (int32_t)p->vm_free_diff + delta;
	jset32(m, &p->vm_free_diff, (uint32_t)(int32_t)(hold ? x : vmstat_folded(x, thresh)));
	return 0;
}

int model_vmstat_release_free(struct model *m, unsigned int zone, unsigned int cpu,
			      int64_t held)
{
	struct dpcp *p;
	int64_t thresh, x;
	int ret = vmstat_diff(m, zone, cpu, &p, &thresh);

	if (ret <= 0)
		return ret;
	/* the part not held now: what was, with the pages released */
	x = vmstat_folded((int32_t)p->vm_free_diff - held, thresh);
	jset32(m, &p->vm_free_diff, (uint32_t)(int32_t)(x + held));
	return 0;
}

int model_vmstat_get_diff(struct model *m, unsigned int zone, unsigned int cpu,
			  int64_t *diff, int64_t *thresh)
{
	struct dpcp *p;
	int ret = vmstat_diff(m, zone, cpu, &p, thresh);

	if (ret == 1)
		*diff = (int32_t)p->vm_free_diff;
	return ret;
}

int model_vmstat_set_diff(struct model *m, unsigned int zone, unsigned int cpu, int64_t diff)
{
	struct dpcp *p;
	int64_t thresh;
	int ret = vmstat_diff(m, zone, cpu, &p, &thresh);

	if (ret == 1 && (diff > INT32_MAX || diff < INT32_MIN))
		return bc_error(BC_E_INVAL, "model: vmstat diff %lld out of range",
				(long long)diff);
	if (ret == 1)
		jset32(m, &p->vm_free_diff, (uint32_t)(int32_t)diff);
	return ret;
}

/* refresh_cpu_vm_stats(): this_cpu_xchg(vm_stat_diff[NR_FREE_PAGES], 0) into the zone. */
int model_vmstat_fold(struct model *m, unsigned int zone, unsigned int cpu)
{
	struct dzone *d;
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (zone >= m->nr_zones || cpu >= m->nr_cpus)
		return bc_error(BC_E_INVAL, "model: no vmstat diff of zone %u cpu %u", zone, cpu);
	d = m->dz ? &m->dz[zone] : NULL;
	if (d && d->dpcp && d->dpcp[cpu].vm_free_diff)
		jset32(m, &d->dpcp[cpu].vm_free_diff, 0);
	return 0;
}

/*
 * A free of part of an allocation (a non-compound high-order allocation the kernel
 * split: split_page(); alloc_contig_range()'s pages, which free_contig_range() frees
 * page by page on 6.1): the allocation holding [idx, idx + 2^order) becomes aligned
 * allocations of the same type and kind, halved as expand() halves a free block, one
 * of them exactly that range. 0, or 1 when no allocation holds the whole range.
 */
static int split_allocation(struct model *m, uint32_t idx, unsigned int order)
{
	uint32_t head, hw, start;
	unsigned int k;

	if (!model_find_alloc_head(m, idx, &head))
		return 1;
	hw = m->words[head];
	k = w_order(hw);
	if (idx + (1u << order) > head + (1u << k))
		return 1;
	start = head;
	while (k > order) {
		uint32_t other;

		k--;
		other = idx < start + (1u << k) ? start + (1u << k) : start;
		/* the half not freed: an allocation of its own */
		model_write_word(m, other, (m->words[other] & W_UNCERTAIN) |
				 ((hw & ~(W_UNCERTAIN | W_ORDER_MASK)) | k));
		if (other == start)
			start += 1u << k;
	}
	if (start != head)
		model_write_word(m, start, (m->words[start] & W_UNCERTAIN) |
				 ((hw & ~(W_UNCERTAIN | W_ORDER_MASK)) | order));
	else
		model_write_word(m, head, (hw & ~W_ORDER_MASK) | order);
	return 0;
}

/* [@idx, @idx + 2^@order) wholly in use: allocations that end inside it, one after another. */
static bool range_in_use(const struct model *m, uint32_t idx, unsigned int order)
{
	uint32_t i = idx, end = idx + (1u << order);

	while (i < end) {
		uint32_t w = m->words[i];

		if (wtag(w) != WT_ALLOC || w_order(w) > order || i + (1u << w_order(w)) > end)
			return false;
		i += 1u << w_order(w);
	}
	return true;
}

/* [@pfn, @pfn + 2^@order) an aligned block inside one zone: 1, *@idx and *@zi. */
static bool zone_block(const struct model *m, uint64_t pfn, unsigned int order, uint32_t *idx,
		       int *zi)
{
	/* above MAX_PAGE_ORDER only a gigantic folio's free (free_one_page() splits it) */
	return order <= 30 && pfn_to_idx(m, pfn, idx) && !(*idx & ((1u << order) - 1)) &&
	       (*zi = model_idx_zone(m, *idx)) >= 0 && *idx + (1u << order) <= m->zones[*zi].iend;
}

bool model_block_in_use(const struct model *m, uint64_t pfn, unsigned int order)
{
	uint32_t idx, head;
	int zi;

	if (!zone_block(m, pfn, order, &idx, &zi))
		return false;
	/* part of one larger allocation (split_allocation() frees the part) */
	if (wtag(m->words[idx]) != WT_ALLOC || w_order(m->words[idx]) > order)
		return model_find_alloc_head(m, idx, &head) &&
		       idx + (1u << order) <= head + (1u << w_order(m->words[head]));
	return range_in_use(m, idx, order);
}

int model_give(struct model *m, int cpu, uint64_t pfn, unsigned int order)
{
	uint32_t idx, w;
	int zi, mt, ret = model_broken(m);

	if (ret)
		return ret;
	if (!zone_block(m, pfn, order, &idx, &zi))
		return bc_error(BC_E_INVAL, "model: cannot free pfn %#llx order %u",
				(unsigned long long)pfn, order);
	w = m->words[idx];
	if ((wtag(w) == WT_TAIL || (wtag(w) == WT_ALLOC && w_order(w) > order)) &&
	    !split_allocation(m, idx, order))
		w = m->words[idx];
	/* a block of free pages among the allocations: the free would corrupt the lists */
	if (wtag(w) != WT_ALLOC || !range_in_use(m, idx, order))
		return bc_error(BC_E_INVAL, "model: pfn %#llx order %u is not an allocation",
				(unsigned long long)pfn, order);
	if (cpu < 0 || (unsigned int)cpu >= m->nr_cpus)
		cpu = 0;
	mt = pb_eff_mt(pb_of(m, idx));
	/* free_frozen_pages(): isolated blocks and non-pcp orders go to free_one_page() */
	if (model_pcp_allowed(m, order) && mt != IMT_ISOLATE)
		return pcp_commit(m, (unsigned int)zi, (unsigned int)cpu, idx, order, mt);
	model_write_range(m, idx, 1u << order, wmake(WT_FREE_TAIL, 0), wmake(WT_FREE_TAIL, 0));
	return model_free_split(m, &m->zones[zi], idx, order, 0);
}

/* ---- seeding the pcp lists ------------------------------------------------------------- */

/* A page seeded with flags 0 that nothing has told apart since (model_seed_pfn_range()). */
static bool seed_unknown_word(uint32_t w)
{
	return (w & ~W_UNCERTAIN) ==
	       w_alloc(0, W_MT_UNKNOWN, MODEL_KIND_UNKNOWN, MODEL_GFP_UNKNOWN, W_SEEDED);
}

int model_seed_pcp(struct model *m, uint64_t pfn, unsigned int order, int mt, int cpu)
{
	uint32_t idx, i;
	int zi, imt = model_imt_from_trace(m, mt), ret = model_broken(m);

	if (ret)
		return ret;
	if (!model_pcp_allowed(m, order) || imt < 0 || imt >= IMT_HIGHATOMIC ||
	    cpu < 0 || (unsigned int)cpu >= m->nr_cpus || !pfn_to_idx(m, pfn, &idx) ||
	    (idx & ((1u << order) - 1)) || (zi = model_idx_zone(m, idx)) < 0 ||
	    idx + (1u << order) > m->zones[zi].iend)
		return bc_error(BC_E_INVAL, "model: no pcp page at pfn %#llx order %u",
				(unsigned long long)pfn, order);
	/* a fallback's block of the read window, its allocation never shown: as it is */
	if (wtag(m->words[idx]) != WT_ALLOC || w_gfp(m->words[idx]) != MODEL_GFP_PENDING ||
	    w_order(m->words[idx]) != order)
		for (i = idx; i < idx + (1u << order); i++)
			if (!seed_unknown_word(m->words[i]))
				return 1;
	return model_pcp_add(m, &m->zones[zi], idx, order, imt, cpu, 1, 0);
}

int model_seed_alloc_mt(struct model *m, uint64_t pfn, int mt)
{
	int imt = model_imt_from_trace(m, mt), ret = model_broken(m);
	uint32_t idx;

	if (ret)
		return ret;
	if (imt < 0 || imt >= (int)W_MT_UNKNOWN || !pfn_to_idx(m, pfn, &idx))
		return bc_error(BC_E_INVAL, "model: no seeded page at pfn %#llx of type %d",
				(unsigned long long)pfn, mt);
	if (!seed_unknown_word(m->words[idx]))
		return 1;
	model_write_word(m, idx, w_alloc(0, (unsigned int)imt, MODEL_KIND_UNKNOWN,
					 MODEL_GFP_UNKNOWN, W_SEEDED) |
				 (m->words[idx] & W_UNCERTAIN));
	return 0;
}

int model_seed_putback(struct model *m, uint64_t pfn, unsigned int order)
{
	uint32_t idx, i, n;
	int zi, ret = model_broken(m);

	if (ret)
		return ret;
	if (order > m->max_order || !pfn_to_idx(m, pfn, &idx) ||
	    (idx & ((1u << order) - 1)) || (zi = model_idx_zone(m, idx)) < 0 ||
	    idx + (1u << order) > m->zones[zi].iend)
		return bc_error(BC_E_INVAL, "model: no free block of order %u at pfn %#llx",
				order, (unsigned long long)pfn);
	n = 1u << order;
	for (i = idx; i < idx + n; i++)
		if (!seed_unknown_word(m->words[i]))
			return 1;
	/* __putback_isolated_page(): __free_one_page(..., FPI_TO_TAIL) */
	model_write_range(m, idx, n, wmake(WT_FREE_TAIL, 0), wmake(WT_FREE_TAIL, 0));
	return model_free_split(m, &m->zones[zi], idx, order, 1);
}

/*
 * Unlink the free block whose first pfn is @pfn (its head word tagged @tag, WT_BUDDY
 * or WT_PCP) and link it again at its list's head or @tail. Returns 1 when there is no
 * such block.
 */
static int relink(struct model *m, uint64_t pfn, unsigned int tag, int tail)
{
	uint32_t idx, info;
	int zi, mt, ret = model_broken(m);

	if (ret)
		return ret;
	if (!pfn_to_idx(m, pfn, &idx) || (zi = model_idx_zone(m, idx)) < 0 ||
	    wtag(m->words[idx]) != tag)
		return 1;
	info = model_del_free(m, idx);
	mt = (int)((info >> FN_MT_SHIFT) & 7);
	if (tag == WT_BUDDY)
		return model_add_free(m, &m->zones[zi], idx, info & FN_ORDER_MASK, mt, tail);
	return model_pcp_add(m, &m->zones[zi], idx, info & FN_ORDER_MASK, mt,
			     (int)(info >> FN_CPU_SHIFT), tail, 1);
}

int model_seed_free_move(struct model *m, uint64_t pfn, bool tail)
{
	return relink(m, pfn, WT_BUDDY, tail);
}

int model_seed_pcp_relist(struct model *m, uint64_t pfn, int mt)
{
	int imt = model_imt_from_trace(m, mt), zi, ret = model_broken(m);
	uint32_t idx, info;

	if (ret)
		return ret;
	if (imt < 0 || imt >= IMT_HIGHATOMIC)
		return bc_error(BC_E_INVAL, "model: no pcp list of type %d", mt);
	if (!pfn_to_idx(m, pfn, &idx) || (zi = model_idx_zone(m, idx)) < 0 ||
	    wtag(m->words[idx]) != WT_PCP)
		return 1;
	info = model_del_free(m, idx);
	return model_pcp_add(m, &m->zones[zi], idx, info & FN_ORDER_MASK, imt,
			     (int)(info >> FN_CPU_SHIFT), 1, 1);
}

int model_seed_free_relist(struct model *m, uint64_t pfn, int mt)
{
	int imt = model_imt_from_trace(m, mt), zi, ret = model_broken(m);
	uint32_t idx, info;

	if (ret)
		return ret;
	if (imt < 0 || imt > IMT_HIGHATOMIC)
		return bc_error(BC_E_INVAL, "model: no free list of type %d", mt);
	if (!pfn_to_idx(m, pfn, &idx) || (zi = model_idx_zone(m, idx)) < 0 ||
	    wtag(m->words[idx]) != WT_BUDDY)
		return 1;
	info = model_del_free(m, idx);
	return model_add_free(m, &m->zones[zi], idx, info & FN_ORDER_MASK, imt, 1);
}

int model_seed_pageblock_type(struct model *m, uint64_t pfn, int mt)
{
	uint32_t idx, pbi;
	int imt = model_imt_from_trace(m, mt), ret = model_broken(m);

	if (ret)
		return ret;
	if (!pfn_to_idx(m, pfn, &idx) || imt < 0 || !imt_mergeable(imt))
		return 1;
	pbi = idx >> m->pb_order;
	if (!(m->pb[pbi].flags & PB_GUESS))
		return 1;
	if (pb_eff_mt(&m->pb[pbi]) == imt) {
		model_pb_confirm(m, pbi);
		return 0;
	}
	/* no partner re-typed (model_pb_fix_guess()): a partner is a guess again */
	ret = model_retype_block(m, pbi, imt);
	model_pb_confirm(m, pbi);
	jset64(m, &m->guess_fixes, m->guess_fixes + 1);
	return ret;
}

int model_seed_pcp_move(struct model *m, uint64_t pfn)
{
	return relink(m, pfn, WT_PCP, 1);
}
