// SPDX-License-Identifier: GPL-2.0
/*
 * buddy.c - free lists of the model: the node pool, buddy lists per zone, order and
 * migratetype, per-cpu lists, and the kernel's list algorithms (__free_one_page,
 * expand, split_large_buddy, __move_freepages_block). Each free block has one node
 * holding its list links (pfn indices) and its order, list type and pcp cpu; the
 * block's first word points at the node, so a block named by a trace event is
 * unlinked in O(1).
 */
#include <stdlib.h>

#include "model/model-fault.h"
#include "model/model-local.h"

/* ---- node pool ----------------------------------------------------------------- */

/* One more chunk of nodes. Nothing is changed when it fails. */
static int pool_grow(struct model *m)
{
	struct fnode *c;

	if (m->nr_chunks == m->cap_chunks) {
		uint32_t cap = m->cap_chunks ? m->cap_chunks * 2 : 64;
		struct fnode **a;

		if (cap > POOL_MAX_CHUNKS)
			return model_nomem(m, "free-list node pool exhausted (%u nodes)",
					   POOL_MAX_CHUNKS * POOL_CHUNK);
		a = model_fault(m, MODEL_FAULT_NOMEM) ? NULL : realloc(m->chunks, cap * sizeof(*a));
		if (!a)
			return model_nomem(m, "out of memory for the free-list node pool");
		m->chunks = a;
		m->cap_chunks = cap;
	}
	c = model_fault(m, MODEL_FAULT_NOMEM) ? NULL : calloc(POOL_CHUNK, sizeof(*c));
	if (!c)
		return model_nomem(m, "out of memory for the free-list node pool");
	/* Chunks are never freed before model_destroy(): no journaling. */
	m->chunks[m->nr_chunks++] = c;
	return 0;
}

int model_node_alloc(struct model *m, uint32_t *out)
{
	uint32_t n;
	int ret;

	if (m->pool_free != NIL) {
		n = m->pool_free;
		jset32(m, &m->pool_free, node_of(m, n)->next);
	} else {
		n = m->pool_top;
		if ((n >> POOL_CHUNK_SHIFT) >= m->nr_chunks) {
			ret = pool_grow(m);
			if (ret)
				return ret;
		}
		jset32(m, &m->pool_top, n + 1);
	}
	jadd32(m, &m->pool_used, 1);
	*out = n;
	return 0;
}

void model_node_free(struct model *m, uint32_t n)
{
	jset32(m, &node_of(m, n)->next, m->pool_free);
	jset32(m, &m->pool_free, n);
	jadd32(m, &m->pool_used, -1);
}

/* ---- lists --------------------------------------------------------------------- */

static inline struct fnode *node_at(const struct model *m, uint32_t idx)
{
	return node_of(m, m->words[idx] & W_PAYLOAD);
}

/* Link @idx between @prev and @next of @fl (NIL at the list's ends). */
static void list_link(struct model *m, struct flist *fl, uint32_t idx, struct fnode *nd,
		      uint32_t prev, uint32_t next)
{
	jset32(m, &nd->prev, prev);
	jset32(m, &nd->next, next);
	jset32(m, prev != NIL ? &node_at(m, prev)->next : &fl->head, idx);
	jset32(m, next != NIL ? &node_at(m, next)->prev : &fl->tail, idx);
	jadd32(m, &fl->count, 1);
}

static void list_add(struct model *m, struct flist *fl, uint32_t idx, struct fnode *nd, int tail)
{
	if (tail)
		list_link(m, fl, idx, nd, fl->tail, NIL);
	else
		list_link(m, fl, idx, nd, NIL, fl->head);
}

static void list_del(struct model *m, struct flist *fl, uint32_t idx, struct fnode *nd)
{
	jset32(m, nd->prev != NIL ? &node_at(m, nd->prev)->next : &fl->head, nd->next);
	jset32(m, nd->next != NIL ? &node_at(m, nd->next)->prev : &fl->tail, nd->prev);
	jadd32(m, &fl->count, -1);
}

/* order_to_pindex(). */
unsigned int model_pcp_pindex(unsigned int order, int mt)
{
	if (order < PCP_LOW_ORDERS)
		return order * 3 + (unsigned int)mt;
	return PCP_LOW_ORDERS * 3 + (mt == IMT_MOVABLE);
}

static struct flist *node_list(struct model *m, struct mzone *z, uint32_t info)
{
	unsigned int order = info & FN_ORDER_MASK;
	int mt = (info >> FN_MT_SHIFT) & 7;

	if (info & FN_PCP) {
		unsigned int cpu = info >> FN_CPU_SHIFT;

		return &z->pcp[cpu * NR_PCP_LISTS + model_pcp_pindex(order, mt)];
	}
	return free_list(m, z, order, mt);
}

/*
 * A list type's buddy pages change by @d, and with them the zone's NR_FREE_PAGES (all
 * types but MIGRATE_ISOLATE: __mod_zone_freepage_state()), kept as it goes so the
 * watermark checks and each simulated request do not sum the types again.
 */
static inline void zone_free_add(struct model *m, struct mzone *z, int mt, int32_t d)
{
	jadd32(m, &z->free_pages[mt], d);
	if (mt < IMT_ISOLATE)
		jadd32(m, &z->nr_free, d);
}

static struct mzone *zone_at(struct model *m, uint32_t idx)
{
	int zi = model_idx_zone(m, idx);

	MODEL_BUG_ON(zi < 0, m, idx_to_pfn(m, idx));
	return &m->zones[zi];
}

/* pcp_allowed_order() of the profile. */
int model_pcp_allowed(const struct model *m, unsigned int order)
{
	return order < 32 && (m->prof.pcp_orders & (1u << order));
}

int model_add_free(struct model *m, struct mzone *z, uint32_t idx, unsigned int order,
		   int mt, int tail)
{
	uint32_t n, info = order | ((uint32_t)mt << FN_MT_SHIFT);
	struct fnode *nd;
	int ret = model_node_alloc(m, &n);

	if (ret)
		return ret;
	nd = node_of(m, n);
	MODEL_BUG_ON(idx & ((1u << order) - 1), m, idx_to_pfn(m, idx));
	MODEL_BUG_ON(mt < 0 || mt >= NR_IMT, m, idx_to_pfn(m, idx));
	jset32(m, &nd->info, info);
	model_write_word(m, idx, wmake(WT_BUDDY, n));
	list_add(m, free_list(m, z, order, mt), idx, nd, tail);
	if (!model_fault(m, MODEL_FAULT_NR_FREE))	/* fault: the block is not counted */
		zone_free_add(m, z, mt, (int32_t)(1u << order));
	return 0;
}

/* Add a block to a pcp list: head (free_frozen_page_commit) or tail (rmqueue_bulk). */
/* Move the @n - 1 tails of the pcp block at @idx between the FREE and PCP counters. */
static void pcp_tails(struct model *m, uint32_t idx, uint32_t n, int to_pcp)
{
	struct pblock *b = pb_of(m, idx);
	int32_t d = to_pcp ? (int32_t)(n - 1) : -(int32_t)(n - 1);

	if (n < 2)
		return;
	jset16(m, &b->cnt[MODEL_PBC_FREE], (uint16_t)(b->cnt[MODEL_PBC_FREE] - d));
	jset16(m, &b->cnt[MODEL_PBC_PCP], (uint16_t)(b->cnt[MODEL_PBC_PCP] + d));
}

int model_pcp_add(struct model *m, struct mzone *z, uint32_t idx, unsigned int order,
		  int mt, int cpu, int tail, int tails_free)
{
	uint32_t n, info;
	struct fnode *nd;
	int ret = model_node_alloc(m, &n);

	if (ret)
		return ret;
	nd = node_of(m, n);

	/* HIGHATOMIC and CMA pages are filed as MOVABLE (free_frozen_pages()). */
	if (mt >= IMT_HIGHATOMIC)
		mt = IMT_MOVABLE;
	/* The THP-order lists are only "movable" and "not movable". */
	if (order >= PCP_LOW_ORDERS && mt != IMT_MOVABLE)
		mt = IMT_UNMOVABLE;
	info = order | ((uint32_t)mt << FN_MT_SHIFT) | FN_PCP | ((uint32_t)cpu << FN_CPU_SHIFT);
	jset32(m, &nd->info, info);
	MODEL_BUG_ON(order > m->pb_order, m, idx_to_pfn(m, idx));
	if (tails_free)
		model_write_word(m, idx, wmake(WT_PCP, n));
	else
		model_write_range(m, idx, 1u << order, wmake(WT_PCP, n), wmake(WT_FREE_TAIL, 0));
	pcp_tails(m, idx, 1u << order, 1);
	list_add(m, &z->pcp[(unsigned int)cpu * NR_PCP_LISTS + model_pcp_pindex(order, mt)],
		 idx, nd, tail);
	jadd32(m, &z->pcp_count[cpu], (int32_t)(1u << order));
	jadd32(m, &z->pcp_pages, (int32_t)(1u << order));
	return 0;
}

uint32_t model_del_free(struct model *m, uint32_t idx)
{
	uint32_t w = m->words[idx], n = w & W_PAYLOAD;
	struct fnode *nd = node_of(m, n);
	uint32_t info = nd->info;
	struct mzone *z = zone_at(m, idx);
	unsigned int order = info & FN_ORDER_MASK;

	MODEL_BUG_ON(wtag(w) != WT_BUDDY && wtag(w) != WT_PCP, m, idx_to_pfn(m, idx));
	list_del(m, node_list(m, z, info), idx, nd);
	if (info & FN_PCP) {
		unsigned int cpu = info >> FN_CPU_SHIFT;

		jadd32(m, &z->pcp_count[cpu], -(int32_t)(1u << order));
		jadd32(m, &z->pcp_pages, -(int32_t)(1u << order));
		pcp_tails(m, idx, 1u << order, 0);
	} else {
		zone_free_add(m, z, (info >> FN_MT_SHIFT) & 7, -(int32_t)(1u << order));
	}
	model_node_free(m, n);
	return info;
}

/* ---- pageblock type changes ----------------------------------------------------- */

static int pb_present(const struct model *m, const struct pblock *b)
{
	return b->zone != PB_NOZONE && b->cnt[MODEL_PBC_HOLE] < (1u << m->pb_order);
}

void model_pb_set_mt(struct model *m, uint32_t pbi, int mt)
{
	struct pblock *b = &m->pb[pbi];
	int old = pb_eff_mt(b);

	if (b->mt == mt)
		return;
	jset8(m, &b->mt, (uint8_t)mt);
	if (b->flags & PB_GUESS)	/* an event re-typed it: known from now on */
		jset8(m, &b->flags, b->flags & ~PB_GUESS);
	if (pb_present(m, b) && old != pb_eff_mt(b)) {
		struct mzone *z = &m->zones[b->zone];

		jadd32(m, &z->nr_pb[old], -1);
		jadd32(m, &z->nr_pb[pb_eff_mt(b)], 1);
	}
}

void model_pb_set_isolate(struct model *m, uint32_t pbi, int on)
{
	struct pblock *b = &m->pb[pbi];
	int old = pb_eff_mt(b);
	uint8_t f = on ? (b->flags | PB_ISOLATE) : (b->flags & ~PB_ISOLATE);

	if (f == b->flags)
		return;
	jset8(m, &b->flags, f);
	if (pb_present(m, b)) {
		struct mzone *z = &m->zones[b->zone];

		jadd32(m, &z->nr_pb[old], -1);
		jadd32(m, &z->nr_pb[pb_eff_mt(b)], 1);
	}
}

/*
 * __move_freepages_block(): every buddy block inside the pageblock moves to the
 * @new_mt list (list_move_tail, no merging). The caller sets the type or bit.
 */
uint32_t model_move_freepages_block(struct model *m, uint32_t pbi, int new_mt)
{
	uint32_t start = pbi << m->pb_order, end = start + (1u << m->pb_order), i = start;
	uint32_t moved = 0;

	while (i < end) {
		uint32_t w = m->words[i];

		if (wtag(w) == WT_BUDDY) {
			struct fnode *nd = node_of(m, w & W_PAYLOAD);
			unsigned int order = nd->info & FN_ORDER_MASK;
			int mt = (nd->info >> FN_MT_SHIFT) & 7;
			struct mzone *z = zone_at(m, i);

			if (mt != new_mt) {
				list_del(m, free_list(m, z, order, mt), i, nd);
				zone_free_add(m, z, mt, -(int32_t)(1u << order));
				jset32(m, &nd->info, order | ((uint32_t)new_mt << FN_MT_SHIFT));
				list_add(m, free_list(m, z, order, new_mt), i, nd, 1);
				zone_free_add(m, z, new_mt, (int32_t)(1u << order));
			}
			moved += 1u << order;
			i += 1u << order;
		} else {
			i++;
		}
	}
	return moved;
}

/* ---- merging -------------------------------------------------------------------- */

/* page_is_buddy(): a free buddy head of @order in zone @z. */
static int is_buddy(const struct model *m, const struct mzone *z, uint32_t idx,
		    unsigned int order)
{
	uint32_t w;

	if (idx < z->istart || idx >= z->iend)
		return 0;
	w = m->words[idx];
	if (wtag(w) != WT_BUDDY)
		return 0;
	return (node_of(m, w & W_PAYLOAD)->info & FN_ORDER_MASK) == order;
}

/*
 * __free_one_page() (mm/page_alloc.c). The block's pages must already be free words
 * (WT_FREE_TAIL). Below pageblock order buddies always merge; at and above it, not
 * when one side is HIGHATOMIC/CMA/ISOLATE and the types differ, and from v6.10 a
 * mergeable buddy of a different type is re-typed to the freeing type
 * (change_pageblock_range()); before, its pageblock keeps its type and the merged block
 * goes on the freeing type's list (seen on 6.1).
 * Insertion: tail for FPI_TO_TAIL, else tail when buddy_merge_likely().
 */
int model_free_one(struct model *m, struct mzone *z, uint32_t idx, unsigned int order,
		   int mt, int to_tail)
{
	uint32_t buddy = 0;

	MODEL_BUG_ON(idx & ((1u << order) - 1), m, idx_to_pfn(m, idx));
	while (order < m->max_order) {
		int buddy_mt = mt;

		buddy = idx ^ (1u << order);
		if (!is_buddy(m, z, buddy, order))
			break;
		if (order >= m->pb_order) {
			buddy_mt = pb_eff_mt(pb_of(m, buddy));
			if (mt != buddy_mt && (!imt_mergeable(mt) || !imt_mergeable(buddy_mt)) &&
			    !model_fault(m, MODEL_FAULT_MERGE_ISOLATED))	/* fault: merge anyway */
				break;
		}
		model_del_free(m, buddy);
		model_write_word(m, buddy, wmake(WT_FREE_TAIL, 0));
		if (buddy_mt != mt && m->prof.freelist_hygiene &&
		    !model_fault(m, MODEL_FAULT_MERGE_ISOLATED)) {
			uint32_t p = buddy >> m->pb_order, n = 1u << (order - m->pb_order);

			while (n--)
				model_pb_set_mt(m, p++, mt);
		}
		idx &= buddy;
		order++;
	}
	if (!to_tail && order < m->max_order - 1) {
		/* buddy_merge_likely(): is the buddy of the next-higher block free? */
		uint32_t higher = idx & ~(1u << order);

		to_tail = is_buddy(m, z, higher ^ (1u << (order + 1)), order + 1);
	}
	return model_add_free(m, z, idx, order, mt, to_tail);
}

/*
 * free_one_page() -> split_large_buddy(): a free of more than pageblock order is cut
 * into pageblock-order pieces, each freed with its own block's type. The pages must
 * be free words already.
 */
int model_free_split(struct model *m, struct mzone *z, uint32_t idx, unsigned int order,
		     int to_tail)
{
	uint32_t end = idx + (1u << order);
	unsigned int o = order > m->pb_order ? m->pb_order : order;
	int ret;

	do {
		ret = model_free_one(m, z, idx, o, pb_eff_mt(pb_of(m, idx)), to_tail);
		if (ret)
			return ret;
		idx += 1u << o;
	} while (idx < end);
	return 0;
}

/* ---- lookups -------------------------------------------------------------------- */

int model_find_free_head(const struct model *m, uint32_t idx, uint32_t *head)
{
	uint32_t w = m->words[idx];
	unsigned int k, tag = wtag(w);

	if (tag == WT_BUDDY || tag == WT_PCP) {
		*head = idx;
		return (int)tag;
	}
	if (tag != WT_FREE_TAIL)
		return 0;
	for (k = 1; k <= m->max_order; k++) {
		uint32_t h = idx & ~((1u << k) - 1);
		uint32_t hw = m->words[h];

		if (wtag(hw) == WT_BUDDY || wtag(hw) == WT_PCP) {
			unsigned int o = node_of(m, hw & W_PAYLOAD)->info & FN_ORDER_MASK;

			if (h + (1u << o) > idx) {
				*head = h;
				return (int)wtag(hw);
			}
			return 0;
		}
	}
	return 0;
}

int model_find_alloc_head(const struct model *m, uint32_t idx, uint32_t *head)
{
	uint32_t w = m->words[idx];
	unsigned int k;

	if (wtag(w) == WT_ALLOC) {
		*head = idx;
		return 1;
	}
	if (wtag(w) != WT_TAIL)
		return 0;
	for (k = 1; k < 31; k++) {
		uint32_t h = idx & ~((1u << k) - 1);
		uint32_t hw = m->words[h];

		if (wtag(hw) == WT_ALLOC) {
			if (h + (1u << w_order(hw)) > idx) {
				*head = h;
				return 1;
			}
			return 0;
		}
		if (wtag(hw) != WT_TAIL)
			return 0;
		if (h == 0)
			break;
	}
	return 0;
}

/* ---- carving -------------------------------------------------------------------- */

/*
 * expand() (and page_del_and_expand()): take the buddy block at @head off its list and
 * split it, keeping [idx, idx + 2^order); each split-off piece goes to the head of the
 * @mt list (-1: the list the block was on). With idx == head this is the kernel's
 * expand(): the upper halves, largest first, each at the list head.
 */
int model_carve(struct model *m, struct mzone *z, uint32_t head, uint32_t idx,
		unsigned int order, int mt)
{
	uint32_t info = model_del_free(m, head);
	unsigned int k = info & FN_ORDER_MASK;
	uint32_t cur = head;
	int ret;

	if (mt < 0)
		mt = (info >> FN_MT_SHIFT) & 7;
	MODEL_BUG_ON(info & FN_PCP, m, idx_to_pfn(m, head));
	MODEL_BUG_ON(idx < head || idx + (1u << order) > head + (1u << k), m, idx_to_pfn(m, idx));
	model_write_word(m, head, wmake(WT_FREE_TAIL, 0));
	while (k > order) {
		uint32_t half, piece;

		k--;
		half = 1u << k;
		if (idx >= cur + half) {
			piece = cur;
			cur += half;
		} else {
			piece = cur + half;
		}
		ret = model_add_free(m, z, piece, k, mt, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/* Re-add the parts of the free block [h, h + 2^k) outside [s, e) as buddy blocks. */
static int readd_outside(struct model *m, struct mzone *z, uint32_t h, unsigned int k,
			 int mt, uint32_t s, uint32_t e)
{
	uint32_t end = h + (1u << k);
	int ret;

	if (h >= s && end <= e)
		return 0;
	if (end <= s || h >= e)
		return model_add_free(m, z, h, k, mt, 1);
	ret = readd_outside(m, z, h, k - 1, mt, s, e);
	if (ret)
		return ret;
	return readd_outside(m, z, h + (1u << (k - 1)), k - 1, mt, s, e);
}

/*
 * Detach every free block (buddy or pcp) overlapping [idx, idx + n). Pages inside the
 * range are left as buddy free words for the caller to overwrite; parts of the blocks
 * outside it go back to the buddy on their block's list.
 */
int model_unfree_range(struct model *m, uint32_t idx, uint32_t n)
{
	uint32_t p = idx, end = idx + n;

	while (p < end) {
		uint32_t h, info;
		unsigned int k;
		int mt, ret;
		struct mzone *z;

		if (!model_find_free_head(m, p, &h)) {
			p++;
			continue;
		}
		z = zone_at(m, h);
		info = model_del_free(m, h);
		k = info & FN_ORDER_MASK;
		mt = pb_eff_mt(pb_of(m, h));
		if (!(info & FN_PCP))
			mt = (info >> FN_MT_SHIFT) & 7;
		model_write_range(m, h, 1u << k, wmake(WT_FREE_TAIL, 0), wmake(WT_FREE_TAIL, 0));
		ret = readd_outside(m, z, h, k, mt, idx, end);
		if (ret)
			return ret;
		p = h + (1u << k);
	}
	return 0;
}

uint32_t model_find_large_buddy(const struct model *m, uint32_t pbi)
{
	uint32_t start = pbi << m->pb_order;
	unsigned int k;

	for (k = m->pb_order; k <= m->max_order; k++) {
		uint32_t h = start & ~((1u << k) - 1);
		uint32_t w = m->words[h];

		if (wtag(w) == WT_BUDDY) {
			unsigned int o = node_of(m, w & W_PAYLOAD)->info & FN_ORDER_MASK;

			if (o > m->pb_order && h + (1u << o) > start)
				return h;
			return NIL;
		}
		if (wtag(w) != WT_FREE_TAIL)
			return NIL;
	}
	return NIL;
}

int model_split_cover(struct model *m, uint32_t pbi)
{
	uint32_t h = model_find_large_buddy(m, pbi), info, p, end;
	struct mzone *z;
	int ret;

	if (h == NIL)
		return 0;
	z = zone_at(m, h);
	info = model_del_free(m, h);
	end = h + (1u << (info & FN_ORDER_MASK));
	model_write_word(m, h, wmake(WT_FREE_TAIL, 0));
	for (p = h; p < end; p += 1u << m->pb_order) {
		ret = model_add_free(m, z, p, m->pb_order, pb_eff_mt(pb_of(m, p)), 1);
		if (ret)
			return ret;
	}
	return 0;
}

static long walk_list(const struct model *m, const struct flist *fl, uint64_t *pfns,
		      unsigned int max)
{
	uint32_t idx = fl->head;
	unsigned int i = 0;

	while (idx != NIL && i < max) {
		if (pfns)
			pfns[i] = idx_to_pfn(m, idx);
		i++;
		idx = node_at(m, idx)->next;
	}
	return fl->count;
}

long model_free_list(const struct model *m, unsigned int zone, unsigned int order, int mt,
		     uint64_t *pfns, unsigned int max)
{
	int imt = model_imt_from_trace(m, mt);

	if (zone >= m->nr_zones || order > m->max_order || imt < 0)
		return -BC_E_INVAL;
	return walk_list(m, &m->zones[zone].free[order * NR_IMT + imt], pfns, max);
}

long model_pcp_list(const struct model *m, unsigned int zone, unsigned int cpu,
		    unsigned int order, int mt, uint64_t *pfns, unsigned int max)
{
	int imt = model_imt_from_trace(m, mt);

	if (zone >= m->nr_zones || cpu >= m->nr_cpus || !model_pcp_allowed(m, order) ||
	    imt < 0 || imt >= IMT_HIGHATOMIC)
		return -BC_E_INVAL;
	return walk_list(m, &m->zones[zone].pcp[cpu * NR_PCP_LISTS + model_pcp_pindex(order, imt)],
			 pfns, max);
}

/* move_freepages_block() + set_pageblock_migratetype(), after cutting a covering buddy. */
int model_retype_block(struct model *m, uint32_t pbi, int mt)
{
	int ret = model_split_cover(m, pbi);

	if (ret)
		return ret;
	if (!(m->pb[pbi].flags & PB_ISOLATE))
		model_move_freepages_block(m, pbi, mt);
	model_pb_set_mt(m, pbi, mt);
	return 0;
}
