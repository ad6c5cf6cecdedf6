// SPDX-License-Identifier: GPL-2.0
/*
 * isolate.c - pageblock isolation (mm/page_isolation.c), test_pages_isolated(),
 * drain_all_pages(), the model's own allocator (__rmqueue() of mm/page_alloc.c) and
 * migration of a range (__alloc_contig_migrate_range() seen from the allocator): the
 * stages that contig.c sequences into alloc_contig_range(). All of it runs on the
 * replayed state; wrap it in model_checkpoint()/model_rollback() for a hypothetical
 * attempt.
 */
#include "model/model-fault.h"
#include "model/model-local.h"

static struct mzone *zone_of_idx(struct model *m, uint32_t idx)
{
	int zi = model_idx_zone(m, idx);

	return zi < 0 ? NULL : &m->zones[zi];
}

int model_range_idx(const struct model *m, uint64_t start, uint64_t end, uint32_t *s,
		    uint32_t *e)
{
	if (start >= end || start < m->base || end > m->base + m->span)
		return 0;
	*s = (uint32_t)(start - m->base);
	*e = (uint32_t)(end - m->base);
	return 1;
}

/* The order of the folio whose first page is @head (seeded order-0 pages: 0). */
static unsigned int folio_order(const struct model *m, uint32_t head)
{
	return w_order(m->words[head]);
}

/*
 * page_is_unmovable() / has_unmovable_pages() on [s, e) inside one pageblock.
 * Returns the first unmovable index or NIL.
 */
static uint32_t has_unmovable(const struct model *m, uint32_t s, uint32_t e,
			      enum model_isolate_mode mode, unsigned int flags)
{
	const struct pblock *b = pb_of(m, s);
	const struct mzone *z;
	int zi = model_idx_zone(m, s);
	uint32_t p;

	/* A MIGRATE_CMA block: movable only for CMA allocations. */
	if (b->mt == IMT_CMA && !(b->flags & PB_ISOLATE))
		return mode == MODEL_ISOLATE_CMA_ALLOC ? NIL : s;
	z = zi < 0 ? NULL : &m->zones[zi];
	for (p = s; p < e; p++) {
		uint32_t w = m->words[p], head;
		unsigned int kind;

		switch (wtag(w)) {
		case WT_HOLE:
			continue;
		case WT_UNINIT:
			/* An initialised-but-unused memmap has refcount 1. */
			return p;
		case WT_BUDDY:
			p += (1u << (node_of(m, w & W_PAYLOAD)->info & FN_ORDER_MASK)) - 1;
			continue;
		case WT_FREE_TAIL:
		case WT_PCP:
			continue;	/* refcount 0 */
		default:
			break;
		}
		kind = w_kind(w);
		if (kind == MODEL_KIND_RESERVED)
			return p;
		if (z && m->layout.zones[zi].movable)
			continue;
		if (kind == MODEL_KIND_HUGETLB || kind == MODEL_KIND_THP ||
		    kind == MODEL_KIND_COMPOUND ||
		    ((kind == MODEL_KIND_SLAB || kind == MODEL_KIND_KERNEL) &&
		     model_find_alloc_head(m, p, &head) && folio_order(m, head) > 0)) {
			/* PageHuge || PageTransCompound: skip to the folio's end. */
			if (kind != MODEL_KIND_HUGETLB && kind != MODEL_KIND_THP)
				return p;
			if (model_find_alloc_head(m, p, &head))
				p = head + (1u << folio_order(m, head)) - 1;
			continue;
		}
		if (kind == MODEL_KIND_OFFLINE)
			continue;	/* MEM_OFFLINE skips it; else movable_ops (balloon) */
		if (kind == MODEL_KIND_SLAB && (flags & MODEL_CONTIG_SLAB_REFCOUNT_ZERO) &&
		    wtag(w) == WT_ALLOC && !w_order(w))
			continue;	/* refcount 0: taken for a free page */
		if (kind == MODEL_KIND_ANON || kind == MODEL_KIND_FILE)
			continue;	/* PageLRU */
		if (kind == MODEL_KIND_UNKNOWN) {
			if (w_mt(w) == W_MT_UNKNOWN || w_mt(w) == IMT_MOVABLE)
				continue;	/* seeded flags 0: refcount 0; or a movable alloc */
			return p;
		}
		return p;	/* slab, page tables, zero page, kernel */
	}
	return NIL;
}

/* isolate_single_pageblock(): a non-hugetlb compound folio across @boundary fails. */
static uint32_t straddles(const struct model *m, uint32_t boundary)
{
	uint32_t head;
	uint32_t w;

	if (boundary >= m->span || !boundary)
		return NIL;
	w = m->words[boundary];
	if (wtag(w) != WT_TAIL || !model_find_alloc_head(m, boundary, &head) || head >= boundary)
		return NIL;
	switch (w_kind(m->words[head])) {
	case MODEL_KIND_HUGETLB:
		return NIL;	/* skipped since the 2025 change (6.12.118 too) */
	case MODEL_KIND_THP:
	case MODEL_KIND_COMPOUND:
	case MODEL_KIND_SLAB:
		return head;
	default:
		return NIL;	/* a non-compound high-order allocation: not a folio */
	}
}

/*
 * set_migratetype_isolate() -> __move_freepages_block_isolate(): split a covering
 * free block of order > pageblock order into pageblock halves, each freed onto its own
 * block's list (the isolated one onto ISOLATE), else move the block's free pages to
 * the ISOLATE lists; then the bit.
 */
static void isolate_block(struct model *m, uint32_t pbi, enum model_isolate_mode mode)
{
	uint32_t h = model_find_large_buddy(m, pbi);

	/*
	 * The old type is lost (< 6.17): undo_isolate_page_range() sets the caller's
	 * migratetype, MIGRATE_CMA for cma_alloc()'s alloc_contig_range(), else MOVABLE.
	 */
	if (!m->prof.isolate_bit)
		model_pb_set_mt(m, pbi, mode == MODEL_ISOLATE_CMA_ALLOC ? IMT_CMA : IMT_MOVABLE);
	if (h != NIL) {
		struct mzone *z = zone_of_idx(m, h);
		uint32_t info = model_del_free(m, h);

		model_write_word(m, h, wmake(WT_FREE_TAIL, 0));
		model_pb_set_isolate(m, pbi, 1);
		model_free_split(m, z, h, info & FN_ORDER_MASK, 0);
		return;
	}
	model_move_freepages_block(m, pbi, IMT_ISOLATE);
	model_pb_set_isolate(m, pbi, 1);
}

/* unset_migratetype_isolate(). */
static void unisolate_block(struct model *m, uint32_t pbi)
{
	struct pblock *b = &m->pb[pbi];
	uint32_t s = pbi << m->pb_order, w = m->words[s];

	if (!(b->flags & PB_ISOLATE))
		return;
	if (model_fault(m, MODEL_FAULT_UNDO_RETYPE))	/* fault: type lost on undo */
		model_pb_set_mt(m, pbi, IMT_MOVABLE);
	if (wtag(w) == WT_BUDDY) {
		unsigned int order = node_of(m, w & W_PAYLOAD)->info & FN_ORDER_MASK;
		uint32_t buddy = s ^ (1u << order);

		if (order >= m->pb_order && order < m->max_order && buddy < m->span &&
		    wtag(m->words[buddy]) == WT_BUDDY &&
		    (node_of(m, m->words[buddy] & W_PAYLOAD)->info & FN_ORDER_MASK) == order &&
		    !(pb_of(m, buddy)->flags & PB_ISOLATE)) {
			/* __isolate_free_page() + __putback_isolated_page(): merges, tail */
			struct mzone *z = zone_of_idx(m, s);

			model_del_free(m, s);
			model_write_word(m, s, wmake(WT_FREE_TAIL, 0));
			model_pb_set_isolate(m, pbi, 0);
			model_free_one(m, z, s, order, pb_eff_mt(b), 1);
			return;
		}
	}
	model_split_cover(m, pbi);
	model_pb_set_isolate(m, pbi, 0);
	model_move_freepages_block(m, pbi, pb_eff_mt(b));
}

int model_undo_isolate_range(struct model *m, uint64_t start, uint64_t end)
{
	uint32_t s, e, p;

	if (!model_range_idx(m, start, end, &s, &e))
		return model_range_error(m, start, end);
	for (p = s >> m->pb_order; p <= (e - 1) >> m->pb_order; p++)
		unisolate_block(m, p);
	return 0;
}

/*
 * set_migratetype_isolate() of block @pbi, has_unmovable_pages() on its intersection
 * with [s, e). Returns the index that refused it, or NIL (isolated, or all holes).
 */
static uint32_t isolate_one(struct model *m, uint32_t pbi, uint32_t s, uint32_t e,
			    enum model_isolate_mode mode, unsigned int flags, uint32_t refused)
{
	uint32_t bs = pbi << m->pb_order, be = bs + (1u << m->pb_order), bad;

	if (m->pb[pbi].flags & PB_ISOLATE)
		return bs;
	if (m->pb[pbi].cnt[MODEL_PBC_HOLE] == (1u << m->pb_order))
		return NIL;	/* no online page */
	if (refused != NIL)	/* the kernel's verdict: only the block it refused */
		bad = refused >> m->pb_order == pbi ? refused : NIL;
	else
		bad = has_unmovable(m, bs > s ? bs : s, be < e ? be : e, mode, flags);
	if (bad == NIL)
		isolate_block(m, pbi, mode);
	return bad;
}

/*
 * start_isolate_page_range(): isolate_single_pageblock() on the first block (the whole
 * block is checked), then on the last, each followed by the check for a folio across
 * the range's pageblock-aligned edge; then the middle blocks in order. The first
 * refusal in that order undoes every block isolated so far.
 */
static int isolate_range(struct model *m, uint64_t start, uint64_t end,
			 enum model_isolate_mode mode, unsigned int flags, uint32_t refused,
			 uint64_t *fail_pfn)
{
	uint32_t s, e, p, first, last, bad, span = (uint32_t)m->span;
	bool did_first = false, did_last = false, mid = false;

	if (fail_pfn)
		*fail_pfn = UINT64_MAX;
	if (!model_range_idx(m, start, end, &s, &e))
		return model_range_error(m, start, end);
	first = s >> m->pb_order;
	last = (e - 1) >> m->pb_order;
	p = first + 1;
	bad = isolate_one(m, first, 0, span, mode, flags, refused);
	did_first = bad == NIL;
	if (bad == NIL && refused == NIL)
		bad = straddles(m, first << m->pb_order);
	if (bad == NIL && last != first) {
		bad = isolate_one(m, last, 0, span, mode, flags, refused);
		did_last = bad == NIL;
	}
	if (bad == NIL && refused == NIL)
		bad = straddles(m, (last + 1) << m->pb_order);
	while (bad == NIL && p < last) {
		bad = isolate_one(m, p, s, e, mode, flags, refused);
		mid = bad != NIL;
		if (bad == NIL)
			p++;
	}
	if (bad == NIL)
		return 0;
	/* the kernel's undo order: an edge block itself first, then the range from the start */
	if (!mid && did_last)
		unisolate_block(m, last);
	if (did_first)
		unisolate_block(m, first);
	while (++first < p)
		unisolate_block(m, first);
	if (mid && did_last)
		unisolate_block(m, last);
	if (fail_pfn)
		*fail_pfn = idx_to_pfn(m, bad);
	return -BC_E_BUSY;
}

int model_isolate_range_flags(struct model *m, uint64_t start, uint64_t end,
			      enum model_isolate_mode mode, unsigned int flags,
			      uint64_t *fail_pfn)
{
	return isolate_range(m, start, end, mode, flags, NIL, fail_pfn);
}

int model_isolate_refused(struct model *m, uint64_t start, uint64_t end,
			  enum model_isolate_mode mode, uint64_t refused_pfn)
{
	uint32_t s, e, r;
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (!model_range_idx(m, start, end, &s, &e))
		return model_range_error(m, start, end);
	if (!pfn_to_idx(m, refused_pfn, &r) || r >> m->pb_order < s >> m->pb_order ||
	    r >> m->pb_order > (e - 1) >> m->pb_order)
		return bc_error(BC_E_INVAL, "model: refused pfn %#llx outside [%#llx, %#llx)",
				(unsigned long long)refused_pfn, (unsigned long long)start,
				(unsigned long long)end);
	ret = isolate_range(m, start, end, mode, 0, r, NULL);
	return ret == -BC_E_BUSY ? 0 : ret;
}

int model_isolate_range(struct model *m, uint64_t start, uint64_t end,
			enum model_isolate_mode mode, uint64_t *fail_pfn)
{
	return model_isolate_range_flags(m, start, end, mode, 0, fail_pfn);
}

int model_test_pages_isolated(const struct model *m, uint64_t start, uint64_t end,
			      enum model_isolate_mode mode, uint64_t *fin_pfn)
{
	uint32_t s, e, p, pbn = 1u << m->pb_order;
	int online = 0;

	if (!model_range_idx(m, start, end, &s, &e))
		return model_range_error(m, start, end);
	/* Pageblock loop from @start (not aligned): the first valid page's block. */
	for (p = s; p < e; p += pbn) {
		uint32_t q, qe = p + pbn < e ? p + pbn : e;

		for (q = p; q < qe && wtag(m->words[q]) == WT_HOLE; q++)
			;
		if (q < qe) {
			online = 1;
			if (!(pb_of(m, q)->flags & PB_ISOLATE))
				break;
		}
	}
	if (p < e || !online) {
		if (fin_pfn)
			*fin_pfn = idx_to_pfn(m, p);
		return -BC_E_BUSY;
	}
	/* __test_page_isolated_in_pageblock() */
	p = s;
	while (p < e) {
		uint32_t w = m->words[p];

		if (wtag(w) == WT_BUDDY)
			p += 1u << (node_of(m, w & W_PAYLOAD)->info & FN_ORDER_MASK);
		else if (mode == MODEL_ISOLATE_MEM_OFFLINE &&
			 (wtag(w) == WT_ALLOC || wtag(w) == WT_TAIL) &&
			 w_kind(w) == MODEL_KIND_OFFLINE)
			p++;
		else if (model_fault(m, MODEL_FAULT_TEST_SKIPS_USED) && wtag(w) != WT_HOLE)
			p++;	/* fault: a page in use does not stop the walk */
		else
			break;
	}
	if (fin_pfn)
		*fin_pfn = idx_to_pfn(m, p);
	return p < e ? -BC_E_BUSY : 0;
}

/* drain_all_pages(zone): every cpu's pcp lists of the zone, tail first. */
int model_drain_zone(struct model *m, uint64_t pfn)
{
	uint32_t idx, l;
	struct mzone *z;

	if (!pfn_to_idx(m, pfn, &idx) || !(z = zone_of_idx(m, idx)))
		return bc_error(BC_E_INVAL, "model: pfn %#llx is in no zone",
				(unsigned long long)pfn);
	for (l = 0; l < m->nr_cpus * NR_PCP_LISTS; l++) {
		struct flist *fl = &z->pcp[l];

		while (fl->tail != NIL) {
			uint32_t h = fl->tail, info = model_del_free(m, h);
			unsigned int order = info & FN_ORDER_MASK;

			model_write_word(m, h, wmake(WT_FREE_TAIL, 0));
			model_free_one(m, z, h, order, pb_eff_mt(pb_of(m, h)), 0);
		}
	}
	return 0;
}

/* ---- the model's allocator --------------------------------------------------------- */

/* fallbacks[] of mm/page_alloc.c */
static const int fallbacks[3][2] = {
	[IMT_UNMOVABLE] = { IMT_RECLAIMABLE, IMT_MOVABLE },
	[IMT_MOVABLE] = { IMT_RECLAIMABLE, IMT_UNMOVABLE },
	[IMT_RECLAIMABLE] = { IMT_UNMOVABLE, IMT_MOVABLE },
};

/* __rmqueue_smallest(): first entry of the first non-empty list of order >= @order. */
static uint32_t rmqueue_smallest(struct model *m, struct mzone *z, unsigned int order, int mt)
{
	unsigned int o;

	for (o = order; o <= m->max_order; o++) {
		struct flist *fl = free_list(m, z, o, mt);

		if (fl->head != NIL) {
			uint32_t h = fl->head;

			model_carve(m, z, h, h, order, -1);
			return h;
		}
	}
	return NIL;
}

/* should_try_claim_block() on the found order (v6.15; can_steal_fallback() in 6.12). */
static int can_claim(const struct model *m, unsigned int found_order, int start_mt)
{
	return found_order >= m->pb_order || found_order >= m->pb_order / 2 ||
	       start_mt == IMT_RECLAIMABLE || start_mt == IMT_UNMOVABLE;
}

/* try_to_claim_block() */
static uint32_t try_claim(struct model *m, struct mzone *z, uint32_t h, unsigned int cur,
			  unsigned int order, int start_mt)
{
	uint32_t pbi = h >> m->pb_order;
	struct pblock *b = &m->pb[pbi];
	int block_type = pb_eff_mt(b);
	uint32_t free_pages, movable, alike, pbn = 1u << m->pb_order;

	if (!imt_mergeable(block_type))
		return NIL;
	if (cur >= m->pb_order) {
		uint32_t p = pbi, n = 1u << (cur - m->pb_order);

		model_carve(m, z, h, h, order, start_mt);
		while (n--)
			model_pb_set_mt(m, p++, start_mt);
		return h;
	}
	/* prep_move_freepages_block(): no block straddling the zone edge */
	if ((pbi << m->pb_order) < z->istart || (pbi << m->pb_order) + pbn > z->iend)
		return NIL;
	free_pages = b->cnt[MODEL_PBC_FREE];
	movable = b->cnt[MODEL_PBC_MOVABLE];
	if (start_mt == IMT_MOVABLE)
		alike = movable;
	else if (block_type == IMT_MOVABLE)
		alike = pbn - (free_pages + movable);
	else
		alike = 0;
	if (free_pages + alike >= pbn / 2) {
		model_retype_block(m, pbi, start_mt);
		return rmqueue_smallest(m, z, order, start_mt);
	}
	return NIL;
}

static uint32_t rmqueue(struct model *m, struct mzone *z, unsigned int order, int mt)
{
	uint32_t h;
	int cur, i;

	h = rmqueue_smallest(m, z, order, mt);
	if (h != NIL || mt >= IMT_HIGHATOMIC)
		return h;
	/* __rmqueue_claim(): largest fallback block first */
	for (cur = (int)m->max_order; cur >= (int)order; cur--) {
		int fmt = -1;

		for (i = 0; i < 2; i++)
			if (free_list(m, z, (unsigned int)cur, fallbacks[mt][i])->head != NIL) {
				fmt = fallbacks[mt][i];
				break;
			}
		if (fmt < 0)
			continue;
		if (!can_claim(m, (unsigned int)cur, mt))
			break;
		h = try_claim(m, z, free_list(m, z, (unsigned int)cur, fmt)->head,
			      (unsigned int)cur, order, mt);
		if (h != NIL)
			return h;
	}
	/* __rmqueue_steal(): smallest fallback block, type kept */
	for (cur = (int)order; cur <= (int)m->max_order; cur++)
		for (i = 0; i < 2; i++) {
			struct flist *fl = free_list(m, z, (unsigned int)cur, fallbacks[mt][i]);

			if (fl->head != NIL) {
				h = fl->head;
				model_carve(m, z, h, h, order, -1);
				return h;
			}
		}
	return NIL;
}

int model_alloc_block(struct model *m, unsigned int zone, unsigned int order, int mt,
		      enum model_kind kind, uint64_t *pfn)
{
	struct mzone *z;
	int imt = model_imt_from_trace(m, mt);
	uint32_t h;
	unsigned int wmt;

	if (zone >= m->nr_zones || order > m->max_order || imt < 0 || imt > IMT_HIGHATOMIC ||
	    (unsigned int)kind >= MODEL_NR_KINDS)
		return -BC_E_INVAL;
	z = &m->zones[zone];
	h = rmqueue(m, z, order, imt);
	if (h == NIL)
		return -BC_E_NOMEM;
	wmt = imt < IMT_HIGHATOMIC ? (unsigned int)imt : W_MT_UNKNOWN;
	model_write_range(m, h, 1u << order,
			  w_alloc(order, wmt, kind, imt == IMT_MOVABLE ? MODEL_GFP_USER_MOVABLE :
				  MODEL_GFP_KERNEL, 0), w_tail(wmt, kind));
	if (pfn)
		*pfn = idx_to_pfn(m, h);
	return 0;
}

/* ---- migration ----------------------------------------------------------------------- */

static int migratable(uint32_t w)
{
	switch (w_kind(w)) {
	case MODEL_KIND_ANON:
	case MODEL_KIND_FILE:
	case MODEL_KIND_THP:
	case MODEL_KIND_HUGETLB:
	case MODEL_KIND_OFFLINE:
		return 1;
	case MODEL_KIND_UNKNOWN:
		return w_mt(w) == IMT_MOVABLE && w_gfp(w) != MODEL_GFP_PENDING;
	default:
		return 0;
	}
}

int model_migrate_range(struct model *m, uint64_t start, uint64_t end,
			struct model_migrate_result *res)
{
	uint32_t s, e, p;
	struct model_migrate_result r = { 0, 0, UINT64_MAX };
	int ret = 0;

	if (!model_range_idx(m, start, end, &s, &e))
		return model_range_error(m, start, end);
	p = s;
	while (p < e) {
		uint32_t w = m->words[p], head = p, n;
		unsigned int order, kind, zi, tries;
		uint64_t dst = 0;
		int done = 0;
		struct mzone *z;

		if (wtag(w) != WT_ALLOC && wtag(w) != WT_TAIL) {
			if (wtag(w) == WT_BUDDY)
				p += 1u << (node_of(m, w & W_PAYLOAD)->info & FN_ORDER_MASK);
			else
				p++;
			continue;
		}
		if (wtag(w) == WT_TAIL && !model_find_alloc_head(m, p, &head))
			head = p;
		w = m->words[head];
		order = wtag(w) == WT_ALLOC ? w_order(w) : 0;
		if (wtag(w) == WT_ALLOC && (w & W_SEEDED))
			order = 0;
		n = 1u << order;
		kind = w_kind(m->words[p]);
		if (!migratable(m->words[p])) {
			if (r.first_failed_pfn == UINT64_MAX)
				r.first_failed_pfn = idx_to_pfn(m, p);
			r.failed += 1;
			p++;
			continue;
		}
		if (kind == MODEL_KIND_HUGETLB && order > m->max_order) {
			/* isolate_or_dissolve_huge_folio(): gigantic folios abort it all. */
			if (r.first_failed_pfn == UINT64_MAX)
				r.first_failed_pfn = idx_to_pfn(m, head);
			ret = -BC_E_NOMEM;
			break;
		}
		if (order > m->max_order)
			order = 0, n = 1;
		for (tries = 1; tries < n; tries++)
			if (wtag(m->words[head + tries]) != WT_TAIL) {
				/* a repaired folio: migrate the named page alone */
				head = p;
				order = 0;
				n = 1;
				break;
			}
		/* alloc_migration_target(): the preferred zone first, then the others */
		z = zone_of_idx(m, head);
		zi = z ? (unsigned int)(z - m->zones) : 0;
		for (tries = 0; tries < m->nr_zones && !done; tries++) {
			unsigned int zz = (zi + m->nr_zones - tries) % m->nr_zones;

			if (!model_alloc_block(m, zz, order, 1, kind, &dst))
				done = 1;
		}
		if (!done) {
			if (r.first_failed_pfn == UINT64_MAX)
				r.first_failed_pfn = idx_to_pfn(m, head);
			r.failed += n;
			ret = -BC_E_NOMEM;
			break;
		}
		if (m->migrate_hook)
			m->migrate_hook(m->migrate_arg, idx_to_pfn(m, head), dst, order);
		/* The source is freed: onto ISOLATE lists when its block is isolated. */
		model_write_range(m, head, n, wmake(WT_FREE_TAIL, 0), wmake(WT_FREE_TAIL, 0));
		model_free_split(m, z, head, order, 0);
		r.migrated += n;
		p = head + n;
	}
	if (res)
		*res = r;
	return ret;
}
