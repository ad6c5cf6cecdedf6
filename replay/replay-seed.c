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
 * exact at the seed; later snapshots measure how far the replay drifts from them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-snap.h"
#include "replay/replay-local.h"

#define SEED_CHUNK	(1u << 20)	/* pfns read at a time; a multiple of MAX_ORDER blocks */

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

/* Migratetype numbers of pagetypeinfo's names for this profile; -1 unknown. */
static int mt_of_name(const struct model_profile *p, const char *name)
{
	if (!strcmp(name, "Unmovable"))
		return 0;
	if (!strcmp(name, "Movable"))
		return 1;
	if (!strcmp(name, "Reclaimable"))
		return 2;
	if (!strcmp(name, "HighAtomic"))
		return 3;
	if (!strcmp(name, "CMA"))
		return p->cma ? 4 : -1;
	if (!strcmp(name, "Isolate"))
		return p->cma ? 5 : 4;
	return -1;
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
		int mt = mt_of_name(&rp->profile, row[i].migratetype);

		if (mt >= 0 && mt < 8)
			want[mt] = row[i].nr;
	}
	free(row);

	/* Blocks pagetypeinfo does not count (holes, uninitialised) get no type. */
	for (k = 0; k < nr; k++) {
		struct model_range_counts rc;
		uint64_t pb = 1ull << rp->layout.pageblock_order;

		if (!model_range_counts(rp->m, rank[k].pfn < z->start_pfn ? z->start_pfn : rank[k].pfn,
					rank[k].pfn + pb, &rc) &&
		    rc.pages[MODEL_PBC_HOLE] + rc.pages[MODEL_PBC_UNINIT] >= pb)
			rank[k].score = INT64_MIN;
	}
	qsort(rank, nr, sizeof(*rank), cmp_rank);
	for (k = 0; k < sizeof(order_of_handout) / sizeof(order_of_handout[0]); k++) {
		int mt = order_of_handout[k];
		int64_t i;

		for (i = 0; i < want[mt] && next < nr; i++, next++) {
			while (next < nr && rank[next].score != INT64_MIN &&
			       in_large_free(rp, rank[next].pfn < z->start_pfn ? z->start_pfn :
					     rank[next].pfn))
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

static int refine_types(struct replay *rp, int64_t snap, unsigned int zi,
			const struct pb_rank *rank, uint64_t nr)
{
	const struct model_zone_layout *z = &rp->layout.zones[zi];
	unsigned int pbo = rp->layout.pageblock_order, orders = rp->layout.max_page_order + 1;
	int64_t want[RF_TYPES][RF_ORDERS], cur[RF_TYPES][RF_ORDERS] = { { 0 } };
	struct rf_block *bl;
	uint64_t k, n = 0, zend = z->start_pfn + z->spanned;
	struct tdb_zone_count *row;
	bool any = false;
	uint64_t looked = 0;
	int pass, nrow, i, ret = 0;

	if (orders > RF_ORDERS)
		orders = RF_ORDERS;
	memset(want, 0xff, sizeof(want));	/* -1: not known, not scored */
	ret = zone_counts(rp, TDB_PAGETYPE_FREE, snap, z, &row, &nrow);
	if (ret)
		return ret;
	for (i = 0; i < nrow; i++) {
		int mt = mt_of_name(&rp->profile, row[i].migratetype);
		int o = row[i].ord;

		if (mt >= 0 && mt < RF_TYPES && o >= 0 && (unsigned int)o < orders) {
			want[mt][o] = row[i].nr;
			any = true;
		}
	}
	free(row);
	if (!any || !nr)
		return 0;

	bl = calloc(nr, sizeof(*bl));
	if (!bl)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (k = 0; k < nr; k++) {
		uint64_t pfn = rank[k].pfn, end = pfn + (1ull << pbo), p;
		struct rf_block *b = &bl[n];
		int stored, eff;
		bool iso;

		if (rank[k].score == INT64_MIN ||
		    model_pageblock_mt(rp->m, pfn < z->start_pfn ? z->start_pfn : pfn, &stored,
				       &eff, &iso) || stored < 0 || stored >= RF_TYPES)
			continue;
		*b = (struct rf_block){ .pfn = pfn, .score = rank[k].score, .mt = stored };
		for (p = pfn < z->start_pfn ? z->start_pfn : pfn; p < end && p < zend;) {
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
		for (p = 0; p < orders; p++) {
			cur[b->mt][p] += b->nfree[p];
			b->none = b->none && !b->nfree[p];
		}
		n++;
	}

	for (pass = 0; pass < RF_PASSES && looked < RF_BUDGET; pass++) {
		bool moved = false;
		uint64_t i, j;

		for (i = 0; i < n && looked < RF_BUDGET; i++) {
			struct rf_block *a = &bl[i];
			int64_t best = 0, best_ev = 0, none_gain[RF_TYPES];
			bool none_done[RF_TYPES] = { false };
			uint64_t bj = UINT64_MAX;

			if (a->fixed || a->mt == 1)
				continue;	/* non-movable blocks look for a partner */
			looked += n;
			for (j = 0; j < n; j++) {
				struct rf_block *b = &bl[j];
				int64_t g, ev;

				if (b->fixed || b->mt == a->mt)
					continue;
				if (b->none) {
					if (!none_done[b->mt]) {
						none_gain[b->mt] = rf_gain(cur, want, a, b, orders);
						none_done[b->mt] = true;
					}
					g = none_gain[b->mt];
				} else {
					g = rf_gain(cur, want, a, b, orders);
				}
				ev = b->score - a->score;	/* evidence b gains, a gives up */
				if (g > best || (g == best && g > 0 && ev > best_ev)) {
					best = g;
					best_ev = ev;
					bj = j;
				}
			}
			if (bj == UINT64_MAX)
				continue;
			{
				struct rf_block *b = &bl[bj];
				int t = a->mt, o;

				for (o = 0; o < (int)orders; o++) {
					cur[a->mt][o] += (int64_t)b->nfree[o] - a->nfree[o];
					cur[b->mt][o] += (int64_t)a->nfree[o] - b->nfree[o];
				}
				a->mt = b->mt;
				b->mt = t;
				moved = true;
			}
		}
		if (!moved)
			break;
	}
	for (k = 0; k < n && !ret; k++)
		ret = model_set_pageblock_mt(rp->m, bl[k].pfn < z->start_pfn ? z->start_pfn :
					     bl[k].pfn, bl[k].mt);
	free(bl);
	return ret;
}

int rp_seed(struct replay *rp, int64_t snap)
{
	uint64_t *flags = NULL, *count = NULL, nr_pfns = 0;
	const struct model_layout *L = &rp->layout;
	unsigned int zi, pb_shift = L->pageblock_order;
	struct pb_rank *rank = NULL;
	int ret = 0, i;

	for (i = 0; i < rp->nr_snaps; i++)
		if (rp->snaps[i].id == snap)
			nr_pfns = rp->snaps[i].nr_pfns;
	flags = malloc(SEED_CHUNK * sizeof(*flags));
	count = malloc(SEED_CHUNK * sizeof(*count));
	if (!flags || !count) {
		ret = bc_error(BC_E_NOMEM, "out of memory");
		goto out;
	}
	for (zi = 0; zi < L->nr_zones; zi++) {
		const struct model_zone_layout *z = &L->zones[zi];
		uint64_t zend = z->start_pfn + z->spanned, pfn, nblocks, b;

		if (zend > nr_pfns)
			zend = nr_pfns;
		if (zend <= z->start_pfn)
			continue;
		nblocks = ((zend - 1) >> pb_shift) - (z->start_pfn >> pb_shift) + 1;
		free(rank);
		rank = calloc(nblocks, sizeof(*rank));
		if (!rank) {
			ret = bc_error(BC_E_NOMEM, "out of memory");
			goto out;
		}
		for (b = 0; b < nblocks; b++)
			rank[b].pfn = ((z->start_pfn >> pb_shift) + b) << pb_shift;

		for (pfn = z->start_pfn; pfn < zend;) {
			uint64_t end = ((pfn / SEED_CHUNK) + 1) * SEED_CHUNK, j;

			if (end > zend)
				end = zend;
			ret = tdb_snap_pages_read(rp->db, snap, pfn, end - pfn, flags, count);
			if (ret)
				goto out;
			for (j = 0; j < end - pfn; j++) {
				struct pb_rank *r = &rank[((pfn + j) >> pb_shift) -
							  (z->start_pfn >> pb_shift)];

				switch (rp_class_of_flags(flags[j])) {
				case RP_CLASS_UNMOVABLE:
					r->score += 1 << 10;	/* one slab page outweighs movables */
					break;
				case RP_CLASS_MOVABLE:
					r->score -= 1;
					break;
				default:
					break;
				}
			}
			ret = model_seed_pfn_range(rp->m, pfn, end - pfn, flags, count);
			if (ret)
				goto out;
			pfn = end;
		}
		ret = assign_types(rp, snap, zi, rank, nblocks);
		if (!ret)
			ret = refine_types(rp, snap, zi, rank, nblocks);
		if (ret)
			goto out;
	}
out:
	free(rank);
	free(flags);
	free(count);
	return ret;
}

static bool touched_any(const struct replay *rp, uint64_t pfn, uint64_t n)
{
	uint64_t i;

	if (!rp->touched)
		return false;
	for (i = pfn; i < pfn + n; i++)
		if (i / 64 < rp->touched_words && (rp->touched[i / 64] >> (i % 64)) & 1)
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

		if (flags[j - w] & KPF_BIT(KPF_BUDDY))
			continue;
		if (j / 64 < rp->touched_words && (rp->touched[j / 64] >> (j % 64)) & 1)
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

int rp_resync(struct replay *rp, int64_t snap, uint64_t *resynced, uint64_t *kinds)
{
	const struct model_layout *L = &rp->layout;
	uint64_t win = 1ull << L->max_page_order, *flags, *count, nr_pfns = 0;
	unsigned int zi;
	int ret = 0, i;

	/*
	 * Windows of a memory block: no free block crosses one, and the seed can only
	 * recognise lazily uninitialised memory (a whole block reading 0) at that size.
	 */
	if (L->memory_block_pages > win && !(L->memory_block_pages & (L->memory_block_pages - 1)))
		win = L->memory_block_pages;
	*resynced = 0;
	*kinds = 0;
	for (i = 0; i < rp->nr_snaps; i++)
		if (rp->snaps[i].id == snap)
			nr_pfns = rp->snaps[i].nr_pfns;
	flags = malloc(SEED_CHUNK * sizeof(*flags));
	count = malloc(SEED_CHUNK * sizeof(*count));
	if (!flags || !count) {
		ret = bc_error(BC_E_NOMEM, "out of memory");
		goto out;
	}
	for (zi = 0; zi < L->nr_zones; zi++) {
		const struct model_zone_layout *z = &L->zones[zi];
		uint64_t zend = z->start_pfn + z->spanned, pfn;

		if (zend > nr_pfns)
			zend = nr_pfns;
		for (pfn = z->start_pfn; pfn < zend;) {
			uint64_t end = ((pfn / SEED_CHUNK) + 1) * SEED_CHUNK, w;

			if (end > zend)
				end = zend;
			ret = tdb_snap_pages_read(rp->db, snap, pfn, end - pfn, flags, count);
			if (ret)
				goto out;
			/* Windows are aligned: no free block crosses one. */
			for (w = pfn; w < end;) {
				uint64_t wend = (w / win + 1) * win, j;
				bool differ = false;

				if (wend > end)
					wend = end;
				for (j = w; j < wend && !differ; j++) {
					struct model_pfn_info pi;
					bool kfree = flags[j - pfn] & KPF_BIT(KPF_BUDDY);

					if (model_pfn_info(rp->m, j, &pi))
						continue;
					if (pi.state == MODEL_PFN_HOLE)
						continue;
					differ = kfree != (pi.state == MODEL_PFN_BUDDY);
				}
				/* After lost events, the snapshot settles uncertain pages too. */
				if (!differ && rp->lost_since_snapshot)
					differ = model_count_uncertain(rp->m, w, wend - w) > 0;
				if (differ && !touched_any(rp, w, wend - w)) {
					ret = model_seed_pfn_range(rp->m, w, wend - w, flags + (w - pfn),
								   count + (w - pfn));
					if (ret)
						goto out;
					*resynced += wend - w;
				} else if (!differ) {
					*kinds += refresh_kinds(rp, w, wend, flags + (w - pfn),
								count + (w - pfn));
				}
				w = wend;
			}
			pfn = end;
		}
	}
	rp->lost_since_snapshot = false;
out:
	free(flags);
	free(count);
	return ret;
}
