// SPDX-License-Identifier: GPL-2.0
/*
 * Seeding the model from a snapshot: the physical layout (zones, System RAM, memory
 * blocks, orders), every pfn's state from kpageflags, and the pageblock migratetypes.
 *
 * Pageblock types are not exported by the kernel per block, only counted per zone in
 * /proc/pagetypeinfo ("Number of blocks type"). We rank each zone's pageblocks by how
 * many unmovable pages (slab, page tables, other kernel pages) they hold against
 * movable ones (LRU, THP) and hand out the counted Unmovable, Reclaimable and
 * HighAtomic types in that order; the rest are Movable. The per-zone counts are then
 * exact at the seed. Every type handed out is marked a guess (model/guess.c): events
 * correct wrong guesses in pairs, and each later snapshot refits the remaining guesses
 * to its counts after scoring (rp_refit_types()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-snap.h"
#include "model/decide.h"
#include "replay/replay-local.h"

#define PAGES_CHUNK	(1u << 20)	/* pfns read at a time; a multiple of MAX_ORDER blocks */

int rp_walk_pages(struct replay *rp, const struct rp_snap *s, const struct rp_page_walk *w,
		  void *arg)
{
	const struct model_layout *L = &rp->layout;
	struct rp_pages pg = { 0 };
	uint64_t *flags, *count = NULL;
	int ret = 0;

	flags = malloc(PAGES_CHUNK * sizeof(*flags));
	if (w->with_count)
		count = malloc(PAGES_CHUNK * sizeof(*count));
	if (!flags || (w->with_count && !count))
		ret = bc_error(BC_E_NOMEM, "out of memory");
	pg.flags = flags;
	pg.count = count;
	for (pg.zone = 0; !ret && pg.zone < L->nr_zones; pg.zone++) {
		const struct model_zone_layout *z = &L->zones[pg.zone];
		uint64_t zend = z->start_pfn + z->spanned;

		if (zend > s->nr_pfns)
			zend = s->nr_pfns;
		if (zend <= z->start_pfn)
			continue;
		if (w->zone_begin)
			ret = w->zone_begin(rp, pg.zone, zend, arg);
		for (pg.pfn = z->start_pfn; !ret && pg.pfn < zend; pg.pfn += pg.n) {
			uint64_t end = (pg.pfn / PAGES_CHUNK + 1) * PAGES_CHUNK;

			pg.n = (end > zend ? zend : end) - pg.pfn;
			ret = tdb_snap_pages_read(rp->db, s->id, pg.pfn, pg.n, flags, count);
			if (!ret)
				ret = w->chunk(rp, &pg, arg);
		}
		if (!ret && w->zone_end)
			ret = w->zone_end(rp, pg.zone, arg);
	}
	free(flags);
	free(count);
	return ret;
}

/* A zone's first pageblock may begin below the zone: its first pfn in the zone. */
static uint64_t in_zone(const struct model_zone_layout *z, uint64_t pfn)
{
	return pfn < z->start_pfn ? z->start_pfn : pfn;
}

enum rp_class rp_class_of_flags(uint64_t f)
{
	if (f & KPF_BIT(KPF_NOPAGE))
		return RP_CLASS_HOLE;
	if (f & KPF_BIT(KPF_BUDDY))
		return RP_CLASS_FREE;
	if (!f)
		return RP_CLASS_NOFLAGS;
	if (f & KPF_BIT(KPF_RESERVED))
		return RP_CLASS_RESERVED;
	if (f & KPF_BIT(KPF_HUGE))
		return RP_CLASS_HUGETLB;
	if (f & (KPF_BIT(KPF_SLAB) | KPF_BIT(KPF_PGTABLE)))
		return RP_CLASS_UNMOVABLE;
	if (f & (KPF_BIT(KPF_LRU) | KPF_BIT(KPF_THP) | KPF_BIT(KPF_ANON) |
		 KPF_BIT(KPF_SWAPBACKED)))
		return RP_CLASS_MOVABLE;
	if (f & (KPF_BIT(KPF_OFFLINE) | KPF_BIT(KPF_ZERO_PAGE)))
		return RP_CLASS_OTHER;
	return RP_CLASS_UNMOVABLE;
}

struct pb_rank {
	uint64_t pfn;
	int64_t score;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct pb_rank *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/* The rows of table @t of one snapshot for zone @z (caller frees *@out). */
static int zone_counts(struct replay *rp, enum tdb_zone_table t, int64_t snap,
		       const struct model_zone_layout *z, struct tdb_zone_count **out, int *nr)
{
	int n, i, k = 0, ret;

	ret = tdb_snap_zone_counts(rp->db, snap, t, out, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if ((*out)[i].node == z->nid && !strcmp((*out)[i].zone, z->name))
			(*out)[k++] = (*out)[i];
	*nr = k;
	return 0;
}

/*
 * Is the pageblock at @pfn part of a free block above pageblock order? Its pageblocks
 * share one type in the kernel (__free_one_page() re-types the buddy it merges with,
 * and claims re-type the whole range), so they keep the type they were merged with.
 */
static bool in_large_free(const struct replay *rp, uint64_t pfn)
{
	struct model_pfn_info pi;

	return !model_pfn_info(rp->m, pfn, &pi) && pi.state == MODEL_PFN_BUDDY &&
	       pi.order > rp->layout.pageblock_order;
}

/* Assign the zone's counted pageblock types to its best-matching pageblocks. */
static int assign_types(struct replay *rp, int64_t snap, unsigned int zi, struct pb_rank *rank,
			uint64_t nr)
{
	const struct model_zone_layout *z = &rp->layout.zones[zi];
	static const int order_of_handout[] = { 0, 2, 3 };	/* Unmovable, Reclaimable, HighAtomic */
	int64_t want[8] = { 0 };
	struct tdb_zone_count *row;
	uint64_t next = 0;
	int nrow, i, ret;
	size_t k;

	ret = zone_counts(rp, TDB_PAGETYPE_BLOCKS, snap, z, &row, &nrow);
	if (ret)
		return ret;
	for (i = 0; i < nrow; i++) {
		int mt = model_mt_of_name(&rp->profile, row[i].migratetype);

		if (mt >= 0 && mt < 8)
			want[mt] = row[i].nr;
	}
	free(row);

	/* Blocks pagetypeinfo does not count (holes, uninitialised) get no type. */
	for (k = 0; k < nr; k++) {
		struct model_range_counts rc;
		uint64_t pb = 1ull << rp->layout.pageblock_order;

		if (!model_range_counts(rp->m, in_zone(z, rank[k].pfn), rank[k].pfn + pb, &rc) &&
		    rc.pages[MODEL_PBC_HOLE] + rc.pages[MODEL_PBC_UNINIT] >= pb)
			rank[k].score = INT64_MIN;
	}
	qsort(rank, nr, sizeof(*rank), cmp_rank);
	for (k = 0; k < sizeof(order_of_handout) / sizeof(order_of_handout[0]); k++) {
		int mt = order_of_handout[k];
		int64_t i;

		for (i = 0; i < want[mt] && next < nr; i++, next++) {
			while (next < nr && rank[next].score != INT64_MIN &&
			       in_large_free(rp, in_zone(z, rank[next].pfn)))
				next++;
			if (next >= nr)
				break;
			ret = model_set_pageblock_mt(rp->m, rank[next].pfn, mt);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * Refine the handed-out types with pagetypeinfo's free blocks per migratetype and
 * order: the free pages of a pageblock sit on its type's lists, so a block's free
 * blocks say which type it can have. Swap the types of two pageblocks while that
 * brings the model's per-type free counts closer to the kernel's (sum of absolute
 * differences; per-type block counts stay exact). Among equal gains the block with
 * more unmovable evidence takes the non-movable type. Blocks under a free block above
 * pageblock order keep their type (their buddies share it, __free_one_page()).
 */
#define RF_ORDERS	16
#define RF_TYPES	4		/* Unmovable, Movable, Reclaimable, HighAtomic */
#define RF_PASSES	64
#define RF_BUDGET	200000000ull	/* pairs looked at, at most (a 1 TiB host stops early) */

struct rf_block {
	uint64_t pfn;
	int64_t score;
	int mt;
	bool fixed;
	bool none;			/* no free block: every such partner gains the same */
	uint16_t nfree[RF_ORDERS];
};

static int64_t rf_gain(const int64_t (*cur)[RF_ORDERS], const int64_t (*want)[RF_ORDERS],
		       const struct rf_block *a, const struct rf_block *b, unsigned int orders)
{
	int64_t g = 0;
	unsigned int o;

	for (o = 0; o < orders; o++) {
		int64_t d = (int64_t)b->nfree[o] - a->nfree[o], x, y;

		if (!d)
			continue;
		if (want[a->mt][o] >= 0) {
			x = cur[a->mt][o] - want[a->mt][o];
			g += llabs(x) - llabs(x + d);
		}
		if (want[b->mt][o] >= 0) {
			y = cur[b->mt][o] - want[b->mt][o];
			g += llabs(y) - llabs(y - d);
		}
	}
	return g;
}

/* The refinement's state for one zone: its blocks, and free blocks per type and order. */
struct rf_zone {
	struct rf_block *bl;
	uint64_t n;
	unsigned int orders;			/* orders scored */
	int64_t want[RF_TYPES][RF_ORDERS];	/* pagetypeinfo's; -1: not known, not scored */
	int64_t cur[RF_TYPES][RF_ORDERS];	/* the model's, as the types stand */
};

/* pagetypeinfo's free blocks per type and order of zone @z; *@any when it has some. */
static int rf_load_want(struct replay *rp, int64_t snap, const struct model_zone_layout *z,
			struct rf_zone *rz, bool *any)
{
	struct tdb_zone_count *row;
	int nrow, i, ret;

	*any = false;
	memset(rz->want, 0xff, sizeof(rz->want));
	ret = zone_counts(rp, TDB_PAGETYPE_FREE, snap, z, &row, &nrow);
	if (ret)
		return ret;
	for (i = 0; i < nrow; i++) {
		int mt = model_mt_of_name(&rp->profile, row[i].migratetype);
		int o = row[i].ord;

		if (mt >= 0 && mt < RF_TYPES && o >= 0 && (unsigned int)o < rz->orders) {
			rz->want[mt][o] = row[i].nr;
			*any = true;
		}
	}
	free(row);
	return 0;
}

/* The model's free blocks per order in pageblock @b (its part inside zone @z). */
static void rf_scan_block(struct replay *rp, const struct model_zone_layout *z,
			  struct rf_block *b, unsigned int orders)
{
	unsigned int pbo = rp->layout.pageblock_order, o;
	uint64_t end = b->pfn + (1ull << pbo), zend = z->start_pfn + z->spanned, p;

	for (p = in_zone(z, b->pfn); p < end && p < zend;) {
		struct model_pfn_info pi;

		if (model_pfn_info(rp->m, p, &pi)) {
			p++;
			continue;
		}
		if (pi.state == MODEL_PFN_BUDDY && pi.head == p) {
			if (pi.order > pbo)
				b->fixed = true;
			else if (pi.order < orders && b->nfree[pi.order] < UINT16_MAX)
				b->nfree[pi.order]++;
			p += 1ull << pi.order;
		} else if (pi.state == MODEL_PFN_BUDDY && pi.head < p) {
			b->fixed = true;	/* tail of a free block from the block below */
			p = pi.head + (1ull << pi.order);
		} else {
			p++;
		}
	}
	b->none = true;
	for (o = 0; o < orders; o++)
		b->none = b->none && !b->nfree[o];
}

/* The ranked pageblocks with a type the refinement may swap, and the free counts. */
static int rf_collect(struct replay *rp, const struct model_zone_layout *z,
		      const struct pb_rank *rank, uint64_t nr, struct rf_zone *rz)
{
	unsigned int o;
	uint64_t k;

	rz->bl = calloc(nr, sizeof(*rz->bl));
	if (!rz->bl)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (k = 0; k < nr; k++) {
		struct rf_block *b = &rz->bl[rz->n];
		int stored, eff;
		bool iso;

		if (rank[k].score == INT64_MIN ||
		    model_pageblock_mt(rp->m, in_zone(z, rank[k].pfn), &stored, &eff, &iso) ||
		    stored < 0 || stored >= RF_TYPES)
			continue;
		*b = (struct rf_block){ .pfn = rank[k].pfn, .score = rank[k].score, .mt = stored };
		rf_scan_block(rp, z, b, rz->orders);
		for (o = 0; o < rz->orders; o++)
			rz->cur[b->mt][o] += b->nfree[o];
		rz->n++;
	}
	return 0;
}

/* @a's partner of most gain (equal gains: most unmovable evidence); UINT64_MAX none. */
static uint64_t rf_best_partner(const struct rf_zone *rz, const struct rf_block *a)
{
	int64_t best = 0, best_ev = 0, none_gain[RF_TYPES];
	bool none_done[RF_TYPES] = { false };
	uint64_t j, bj = UINT64_MAX;

	for (j = 0; j < rz->n; j++) {
		const struct rf_block *b = &rz->bl[j];
		int64_t g, ev;

		if (b->fixed || b->mt == a->mt)
			continue;
		if (b->none) {
			if (!none_done[b->mt]) {
				none_gain[b->mt] = rf_gain(rz->cur, rz->want, a, b, rz->orders);
				none_done[b->mt] = true;
			}
			g = none_gain[b->mt];
		} else {
			g = rf_gain(rz->cur, rz->want, a, b, rz->orders);
		}
		ev = b->score - a->score;	/* evidence b gains, a gives up */
		if (g > best || (g == best && g > 0 && ev > best_ev)) {
			best = g;
			best_ev = ev;
			bj = j;
		}
	}
	return bj;
}

static void rf_swap(struct rf_zone *rz, struct rf_block *a, struct rf_block *b)
{
	int t = a->mt;
	unsigned int o;

	for (o = 0; o < rz->orders; o++) {
		rz->cur[a->mt][o] += (int64_t)b->nfree[o] - a->nfree[o];
		rz->cur[b->mt][o] += (int64_t)a->nfree[o] - b->nfree[o];
	}
	a->mt = b->mt;
	b->mt = t;
}

/* Swap passes until one moves no type or the budget is spent. */
static void rf_swap_passes(struct rf_zone *rz)
{
	uint64_t looked = 0, i, bj;
	int pass;

	for (pass = 0; pass < RF_PASSES && looked < RF_BUDGET; pass++) {
		bool moved = false;

		for (i = 0; i < rz->n && looked < RF_BUDGET; i++) {
			struct rf_block *a = &rz->bl[i];

			if (a->fixed || a->mt == 1)
				continue;	/* non-movable blocks look for a partner */
			looked += rz->n;
			bj = rf_best_partner(rz, a);
			if (bj == UINT64_MAX)
				continue;
			rf_swap(rz, a, &rz->bl[bj]);
			moved = true;
		}
		if (!moved)
			break;
	}
}

/* The model's free blocks of trace type @mt and order @o in zone @zi. */
static int64_t list_len(struct replay *rp, unsigned int zi, unsigned int o, int mt)
{
	long n = model_free_list(rp->m, zi, o, mt, NULL, 0);

	return n < 0 ? 0 : n;
}

/*
 * Move free blocks of order @o from type @t's list, which has @surplus too many, to
 * the types pagetypeinfo (@want) has more of: blocks whose pageblock has the receiving
 * type first (the list its pages would take now), then from the list's head.
 */
static int relist_order(struct replay *rp, unsigned int zi, unsigned int o, int t,
			int64_t surplus, const int64_t (*want)[RF_ORDERS])
{
	int64_t n = list_len(rp, zi, o, t), k;
	uint64_t *pf = n ? calloc((size_t)n, sizeof(*pf)) : NULL;
	int pass, u, stored, eff, ret = 0;
	bool iso;

	if (!pf)
		return n ? bc_error(BC_E_NOMEM, "out of memory") : 0;
	model_free_list(rp->m, zi, o, t, pf, (unsigned int)n);
	for (pass = 0; pass < 2 && surplus > 0 && !ret; pass++)
		for (k = 0; k < n && surplus > 0 && !ret; k++) {
			if (pf[k] == UINT64_MAX ||
			    model_pageblock_mt(rp->m, pf[k], &stored, &eff, &iso))
				continue;
			for (u = 0; u < RF_TYPES; u++)
				if (u != t && want[u][o] > list_len(rp, zi, o, u) &&
				    (pass || stored == u))
					break;
			if (u == RF_TYPES)
				continue;
			ret = model_seed_free_relist(rp->m, pf[k], u);
			ret = ret < 0 ? ret : 0;
			pf[k] = UINT64_MAX;
			surplus--;
		}
	free(pf);
	return ret;
}

/*
 * Before v6.10 a free block's list need not be its pageblock's type
 * (model_seed_free_relist()), so pageblock types alone may not give pagetypeinfo's free
 * blocks per type. Where an order's free blocks in all are the kernel's but their
 * split over the types is not, blocks move from the types with too many to those with
 * too few (which blocks, no file says: a guess, as the pageblock types are).
 */
static int relist_free(struct replay *rp, unsigned int zi, const int64_t (*want)[RF_ORDERS],
		       unsigned int orders)
{
	unsigned int o;
	int t, ret = 0;

	for (o = 0; o < orders && !ret; o++) {
		int64_t have = 0, total = 0;

		for (t = 0; t < RF_TYPES; t++) {
			if (want[t][o] < 0)
				break;
			have += list_len(rp, zi, o, t);
			total += want[t][o];
		}
		if (t < RF_TYPES || have != total)
			continue;	/* a count the read itself may have moved: left */
		for (t = 0; t < RF_TYPES && !ret; t++)
			if (list_len(rp, zi, o, t) > want[t][o])
				ret = relist_order(rp, zi, o, t, list_len(rp, zi, o, t) - want[t][o],
						   want);
	}
	return ret;
}

static int refine_types(struct replay *rp, int64_t snap, unsigned int zi,
			const struct pb_rank *rank, uint64_t nr)
{
	const struct model_zone_layout *z = &rp->layout.zones[zi];
	struct rf_zone rz = { .orders = rp->layout.max_page_order + 1 };
	uint64_t k;
	bool any;
	int ret;

	if (rz.orders > RF_ORDERS)
		rz.orders = RF_ORDERS;
	ret = rf_load_want(rp, snap, z, &rz, &any);
	if (ret || !any || !nr)
		return ret;
	ret = rf_collect(rp, z, rank, nr, &rz);
	if (!ret)
		rf_swap_passes(&rz);
	for (k = 0; k < rz.n && !ret; k++)
		ret = model_set_pageblock_mt(rp->m, in_zone(z, rz.bl[k].pfn), rz.bl[k].mt);
	free(rz.bl);
	if (!ret && !rp->profile.freelist_hygiene)
		ret = relist_free(rp, zi, (const int64_t (*)[RF_ORDERS])rz.want, rz.orders);
	return ret;
}

/* rp_seed() per zone: its pageblocks ranked by their pages' evidence, then typed. */
struct seed_walk {
	const struct rp_snap *s;
	struct pb_rank *rank;
	uint64_t nblocks;
	uint64_t first_deferred;	/* see deferred_first_pfn(); UINT64_MAX: none */
	char *cma_areas;		/* the snapshot's "cma_areas" text, NULL without */
};

/* PAGES_PER_SECTION with 4 KiB pages (SECTION_SIZE_BITS 27 on x86_64 and arm64) */
#define SEED_SECTION_PAGES	(1ull << 15)

/*
 * Where CONFIG_DEFERRED_STRUCT_PAGE_INIT (Debian's kernels) deferred the struct pages of
 * zone @zi: only in the node's last zone, from the first section boundary after one
 * section of pages (defer_init()). There memmap_init_range() typed no pageblock; the
 * deferred init typed Movable only the pageblocks whose first page it freed
 * (deferred_free_pages()), so a pageblock whose first page was reserved at boot kept
 * type 0, MIGRATE_UNMOVABLE, for good: the memmap and other memblock allocations at the
 * top of memory, even inside ZONE_MOVABLE. UINT64_MAX when the zone is not deferred.
 */
static uint64_t deferred_first_pfn(const struct model_layout *L, unsigned int zi)
{
	const struct model_zone_layout *z = &L->zones[zi];
	unsigned int k;

	for (k = zi + 1; k < L->nr_zones; k++)
		if (L->zones[k].nid == z->nid && L->zones[k].present)
			return UINT64_MAX;
	return (z->start_pfn + 2 * SEED_SECTION_PAGES - 1) & ~(SEED_SECTION_PAGES - 1);
}

/*
 * The pageblocks of the snapshot's CMA areas ("NAME BASE_PFN COUNT" lines, from debugfs)
 * are MIGRATE_CMA: cma_activate_area() -> init_cma_reserved_pageblock() types them before
 * their pages reach the buddy, so they are typed before the zone's pages are seeded
 * (@type: free blocks then merge as the kernel's did, up to MAX_PAGE_ORDER) and, known,
 * not guessed, left out of the handout after (score INT64_MIN).
 */
static int seed_cma_blocks(struct replay *rp, struct seed_walk *sw, unsigned int zi, bool type)
{
	const struct model_zone_layout *z = &rp->layout.zones[zi];
	int cma_mt = model_mt_of_name(&rp->profile, "CMA"), ret = 0;
	unsigned long long base, count;
	const char *line;
	uint64_t k;

	if (cma_mt < 0)
		return 0;
	for (line = sw->cma_areas; line && *line && !ret; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (sscanf(line, "%*s %llu %llu", &base, &count) != 2)
			continue;
		for (k = 0; k < sw->nblocks && !ret; k++) {
			if (sw->rank[k].pfn < base || sw->rank[k].pfn >= base + count)
				continue;
			if (type)
				ret = model_set_pageblock_mt(rp->m, in_zone(z, sw->rank[k].pfn), cma_mt);
			else
				sw->rank[k].score = INT64_MIN;
		}
	}
	return ret;
}

static int seed_zone_begin(struct replay *rp, unsigned int zi, uint64_t zend, void *arg)
{
	struct seed_walk *sw = arg;
	unsigned int pb_shift = rp->layout.pageblock_order;
	uint64_t first = rp->layout.zones[zi].start_pfn >> pb_shift, b;

	sw->nblocks = ((zend - 1) >> pb_shift) - first + 1;
	sw->first_deferred = deferred_first_pfn(&rp->layout, zi);
	free(sw->rank);
	sw->rank = calloc(sw->nblocks, sizeof(*sw->rank));
	if (!sw->rank)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (b = 0; b < sw->nblocks; b++)
		sw->rank[b].pfn = (first + b) << pb_shift;
	return seed_cma_blocks(rp, sw, zi, true);
}

static int seed_chunk(struct replay *rp, const struct rp_pages *pg, void *arg)
{
	struct seed_walk *sw = arg;
	unsigned int pb_shift = rp->layout.pageblock_order;
	uint64_t first = rp->layout.zones[pg->zone].start_pfn >> pb_shift, j;

	for (j = 0; j < pg->n; j++) {
		struct pb_rank *r = &sw->rank[((pg->pfn + j) >> pb_shift) - first];

		switch (rp_class_of_flags(pg->flags[j])) {
		case RP_CLASS_UNMOVABLE:
			r->score += 1 << 10;	/* one slab page outweighs movables */
			break;
		case RP_CLASS_MOVABLE:
			r->score -= 1;
			break;
		case RP_CLASS_RESERVED:
			/* reserved at boot, never typed: Unmovable (deferred_first_pfn()) */
			if (!((pg->pfn + j) & ((1ull << pb_shift) - 1)) &&
			    pg->pfn + j >= sw->first_deferred)
				r->score += 1;
			break;
		default:
			break;
		}
	}
	return model_seed_pfn_range(rp->m, pg->pfn, pg->n, pg->flags, pg->count);
}

static int seed_zone_end(struct replay *rp, unsigned int zi, void *arg)
{
	struct seed_walk *sw = arg;
	int ret = seed_cma_blocks(rp, sw, zi, false);
	uint64_t k;

	if (!ret)
		ret = assign_types(rp, sw->s->id, zi, sw->rank, sw->nblocks);
	if (!ret)
		ret = refine_types(rp, sw->s->id, zi, sw->rank, sw->nblocks);
	/* every type handed out is an assumption until an event shows it (model/guess.c) */
	for (k = 0; k < sw->nblocks && !ret; k++)
		if (sw->rank[k].score != INT64_MIN)
			ret = model_mark_pageblock_guessed(rp->m, in_zone(&rp->layout.zones[zi],
									 sw->rank[k].pfn));
	return ret;
}

int rp_seed(struct replay *rp, const struct rp_snap *s)
{
	static const struct rp_page_walk walk = {
		.with_count = true, .zone_begin = seed_zone_begin, .chunk = seed_chunk,
		.zone_end = seed_zone_end,
	};
	struct seed_walk sw = { .s = s };
	int ret = tdb_snap_file(rp->db, s->id, "cma_areas", &sw.cma_areas);

	if (!ret)
		ret = rp_walk_pages(rp, s, &walk, &sw);
	free(sw.rank);
	free(sw.cma_areas);
	return ret;
}

static bool touched_any(const struct replay *rp, uint64_t pfn, uint64_t n)
{
	uint64_t i;

	if (!rp->touched)
		return false;
	for (i = pfn; i < pfn + n; i++)
		if (rp_touched(rp, i))
			return true;
	return false;
}

static bool definite_kind(enum model_kind k)
{
	return k != MODEL_KIND_UNKNOWN && k != MODEL_KIND_KERNEL && k != MODEL_KIND_COMPOUND;
}

/* In-use, untouched pages of [w, wend) take the snapshot's kind where it is definite. */
static uint64_t refresh_kinds(struct replay *rp, uint64_t w, uint64_t wend,
			      const uint64_t *flags, const uint64_t *count)
{
	uint64_t j, n = 0;

	for (j = w; j < wend; j++) {
		struct model_pfn_info pi;
		enum model_kind k;

		if ((flags[j - w] & KPF_BIT(KPF_BUDDY)) || rp_touched(rp, j))
			continue;
		k = model_kind_of_flags(flags[j - w], count[j - w]);
		if (!definite_kind(k) || model_pfn_info(rp->m, j, &pi) ||
		    pi.state != MODEL_PFN_ALLOC || pi.kind == k)
			continue;
		if (!model_set_page_kind(rp->m, j, 1, k))
			n++;
	}
	return n;
}

/* Does the model disagree with the snapshot (@flags from @w on) about [w, wend)? */
static bool window_differs(struct replay *rp, uint64_t w, uint64_t wend, const uint64_t *flags)
{
	uint64_t j;

	for (j = w; j < wend; j++) {
		struct model_pfn_info pi;
		bool kfree = flags[j - w] & KPF_BIT(KPF_BUDDY);

		if (model_pfn_info(rp->m, j, &pi) || pi.state == MODEL_PFN_HOLE)
			continue;
		if (kfree != (pi.state == MODEL_PFN_BUDDY))
			return true;
	}
	/* After lost events, the snapshot settles uncertain pages too. */
	return rp->lost_since_snapshot && model_count_uncertain(rp->m, w, wend - w) > 0;
}

/*
 * A window the events touched while the snapshot was read keeps the model's state, but
 * its untouched pages that the model knows only as flags-0 pages of an older snapshot
 * (pcp or kernel: no event since told which) take the new snapshot's word, one by one:
 * a page that left a pcp list or a reporting round without an event (free page
 * reporting is silent) is no longer taken for a kernel page after the next drain.
 */
static int reseed_stale_unknown(struct replay *rp, uint64_t w, uint64_t wend,
				const uint64_t *flags, const uint64_t *count, uint64_t *n)
{
	uint64_t j;
	int ret;

	for (j = w; j < wend; j++) {
		struct model_pfn_info pi;

		if (!flags[j - w] || rp_touched(rp, j) || model_pfn_info(rp->m, j, &pi) ||
		    pi.state != MODEL_PFN_ALLOC || pi.kind != MODEL_KIND_UNKNOWN || pi.mt >= 0 ||
		    !pi.seeded || pi.order)
			continue;
		ret = model_seed_pfn_range(rp->m, j, 1, flags + (j - w), count + (j - w));
		if (ret)
			return ret;
		(*n)++;
	}
	return 0;
}

/*
 * A pcp block of the model whose every page the snapshot reads as free buddy pages
 * (kpageflags marks each page of a free block, is_free_buddy_page()), untouched while
 * it was read: its free had gone past the pcp list to the buddy with no event to show
 * it (free_one_page() after a failed pcp_spin_trylock(): a free from interrupt context
 * while the cpu held its pcp lock). To the buddy now, as a drain would (merging), and
 * counted with the trylock failures found later.
 */
static int drain_read_free(struct replay *rp, uint64_t w, uint64_t wend, const uint64_t *flags)
{
	uint64_t j, k;
	int ret;

	for (j = w; j < wend; j++) {
		struct model_pfn_info pi;
		uint64_t n;

		if (!(flags[j - w] & KPF_BIT(KPF_BUDDY)) || model_pfn_info(rp->m, j, &pi) ||
		    pi.state != MODEL_PFN_PCP || pi.head != j || pi.order >= 32)
			continue;
		n = 1ull << pi.order;
		if (j + n > wend || touched_any(rp, j, n))
			continue;
		for (k = j; k < j + n && (flags[k - w] & KPF_BIT(KPF_BUDDY)); k++)
			;
		ret = k < j + n ? 0 : rp_pcp_past_list(rp, j, pi.order, pi.cpu);
		if (ret)
			return ret;
	}
	return 0;
}

/* rp_resync() window by window. */
struct resync_walk {
	uint64_t win;			/* aligned: no free block crosses one */
	uint64_t resynced, kinds;
};

static int resync_chunk(struct replay *rp, const struct rp_pages *pg, void *arg)
{
	struct resync_walk *rw = arg;
	uint64_t end = pg->pfn + pg->n, w, wend;
	int ret;

	for (w = pg->pfn; w < end; w = wend) {
		const uint64_t *flags = pg->flags + (w - pg->pfn), *count = pg->count + (w - pg->pfn);
		bool differ;

		wend = (w / rw->win + 1) * rw->win;
		if (wend > end)
			wend = end;
		differ = window_differs(rp, w, wend, flags);
		if (differ && !touched_any(rp, w, wend - w)) {
			ret = model_seed_pfn_range(rp->m, w, wend - w, flags, count);
			if (ret)
				return ret;
			rw->resynced += wend - w;
		} else if (differ) {
			ret = drain_read_free(rp, w, wend, flags);
			if (!ret)
				ret = reseed_stale_unknown(rp, w, wend, flags, count,
							   &rw->resynced);
			if (ret)
				return ret;
		} else {
			rw->kinds += refresh_kinds(rp, w, wend, flags, count);
		}
	}
	return 0;
}

int rp_resync(struct replay *rp, const struct rp_snap *s, uint64_t *resynced, uint64_t *kinds)
{
	static const struct rp_page_walk walk = { .with_count = true, .chunk = resync_chunk };
	const struct model_layout *L = &rp->layout;
	struct resync_walk rw = { .win = 1ull << L->max_page_order };
	int ret;

	/*
	 * Windows of a memory block: no free block crosses one, and the seed can only
	 * recognise lazily uninitialised memory (a whole block reading 0) at that size.
	 */
	if (L->memory_block_pages > rw.win && !(L->memory_block_pages & (L->memory_block_pages - 1)))
		rw.win = L->memory_block_pages;
	ret = rp_walk_pages(rp, s, &walk, &rw);
	*resynced = rw.resynced;
	*kinds = rw.kinds;
	if (!ret)
		rp->lost_since_snapshot = false;
	return ret;
}

/* "Movable 418->424, " for each type of @zone whose count moved, into @buf. */
static void refit_note(struct replay *rp, unsigned int zi, const uint64_t *before,
		       const uint64_t *after, char *buf, size_t len)
{
	static const char *const names[] = { "Unmovable", "Movable", "Reclaimable",
					     "HighAtomic" };
	size_t o;
	int t;

	o = (size_t)snprintf(buf, len, "zone %s", rp->layout.zones[zi].name);
	for (t = 0; t < 4 && o < len; t++)
		if (before[t] != after[t])
			o += (size_t)snprintf(buf + o, len - o, " %s %llu->%llu", names[t],
					      (unsigned long long)before[t],
					      (unsigned long long)after[t]);
}

int rp_refit_types(struct replay *rp, const struct rp_snap *s, struct rp_score *sc)
{
	unsigned int zi;

	for (zi = 0; zi < rp->layout.nr_zones; zi++) {
		const struct model_zone_layout *z = &rp->layout.zones[zi];
		uint64_t before[8], after[8];
		int64_t want[8], want_free[8];
		struct tdb_zone_count *row;
		int nrow, i, n, ret;

		ret = zone_counts(rp, TDB_PAGETYPE_BLOCKS, s->id, z, &row, &nrow);
		if (ret)
			return ret;
		model_count_pageblocks(rp->m, zi, before);
		for (i = 0; i < 8; i++)
			want[i] = (int64_t)before[i];
		for (i = 0; i < nrow; i++) {
			int mt = model_mt_of_name(&rp->profile, row[i].migratetype);

			if (mt >= 0 && mt < 8)
				want[mt] = row[i].nr;
		}
		free(row);
		/* free blocks of pageblock order per type: which guessed blocks to re-type */
		ret = zone_counts(rp, TDB_PAGETYPE_FREE, s->id, z, &row, &nrow);
		if (ret)
			return ret;
		for (i = 0; i < 8; i++)
			want_free[i] = -1;
		for (i = 0; i < nrow; i++) {
			int mt = model_mt_of_name(&rp->profile, row[i].migratetype);

			if (mt >= 0 && mt < 8 && row[i].ord == (int)rp->layout.pageblock_order)
				want_free[mt] = row[i].nr;
		}
		free(row);
		n = model_fit_guessed_pageblocks(rp->m, zi, want, want_free);
		if (n < 0)
			return n;
		if (!n)
			continue;
		if (!sc->pb_refit) {
			model_count_pageblocks(rp->m, zi, after);
			refit_note(rp, zi, before, after, sc->pb_refit_note,
				   sizeof(sc->pb_refit_note));
		}
		sc->pb_refit += (uint64_t)n;
	}
	return 0;
}
