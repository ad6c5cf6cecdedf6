// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - one operation per kmem tracepoint (see the table in model.h), plus the
 * page-kind, uncertainty and pageblock-type setters. Each operation checks that the
 * event fits the model's state; when it does not, the event is counted as an anomaly
 * (first occurrences kept) and the state is repaired so that replay can continue.
 */
#include <limits.h>

#include "model/model-local.h"

#define TAGBIT(t) (1u << (t))
#define FREE_TAGS (TAGBIT(WT_BUDDY) | TAGBIT(WT_FREE_TAIL) | TAGBIT(WT_PCP))
#define USED_TAGS (TAGBIT(WT_ALLOC) | TAGBIT(WT_TAIL))

/* Largest order an event may carry: a gigantic (1 GiB) folio. */
#define MAX_EVENT_ORDER 18

static uint32_t scan_tags(const struct model *m, uint32_t idx, uint32_t n, uint32_t *nr_uninit)
{
	uint32_t mask = 0, i, u = 0;

	for (i = idx; i < idx + n; i++) {
		unsigned int t = wtag(m->words[i]);

		mask |= TAGBIT(t);
		u += t == WT_UNINIT;
	}
	if (nr_uninit)
		*nr_uninit = u;
	return mask;
}

/* Every event op starts here: a broken model refuses it, a working one counts it. */
static int event_begin(struct model *m)
{
	int ret = model_broken(m);

	if (!ret)
		m->ops++;
	return ret;
}

/* An order no request of this event can have: counted where its pfn is in the model. */
static struct mzone *bad_order(struct model *m, uint64_t pfn, unsigned int order)
{
	uint32_t idx;

	if (pfn_to_idx(m, pfn, &idx))
		model_anomaly(m, MODEL_ANOM_BAD_ORDER, idx, order);
	return NULL;
}

/*
 * Resolve pfn/order to an index and zone. Events with an order above @max_order,
 * outside every zone, crossing a zone's end or misaligned are counted and dropped.
 */
static struct mzone *event_range(struct model *m, uint64_t pfn, unsigned int order,
				 unsigned int max_order, uint32_t *idx)
{
	int zi;
	struct mzone *z;

	if (order > max_order)
		return bad_order(m, pfn, order);
	if (!pfn_to_idx(m, pfn, idx)) {
		model_anomaly(m, MODEL_ANOM_PFN_OUTSIDE, UINT32_MAX, order);
		m->an.rec[MODEL_ANOM_PFN_OUTSIDE][m->an.nrec[MODEL_ANOM_PFN_OUTSIDE] ?
			m->an.nrec[MODEL_ANOM_PFN_OUTSIDE] - 1 : 0].pfn = pfn;
		return NULL;
	}
	if (order > MAX_EVENT_ORDER || (*idx & ((1u << order) - 1))) {
		model_anomaly(m, MODEL_ANOM_BAD_ORDER, *idx, order);
		return NULL;
	}
	zi = model_idx_zone(m, *idx);
	if (zi < 0) {
		model_anomaly(m, MODEL_ANOM_PFN_OUTSIDE, *idx, order);
		return NULL;
	}
	z = &m->zones[zi];
	if (*idx + (1u << order) > z->iend) {
		model_anomaly(m, MODEL_ANOM_PFN_OUTSIDE, *idx, order);
		return NULL;
	}
	return z;
}

static int valid_cpu(const struct model *m, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < m->nr_cpus ? cpu : 0;
}

/* Every page after the head of [idx, idx + n) is an allocation tail. */
static int tails_clean(const struct model *m, uint32_t idx, uint32_t n)
{
	uint32_t i;

	for (i = idx + 1; i < idx + n; i++)
		if (wtag(m->words[i]) != WT_TAIL)
			return 0;
	return 1;
}

/*
 * Every page of [idx, idx + n) was seeded with flags 0: a page on a pcp list at the
 * snapshot, a tail of a non-compound allocation or a driver page. An alloc or a drain
 * of such a page settles what it was; it is not an anomaly.
 */
static int seeded_unknown(struct model *m, uint32_t idx, uint32_t n)
{
	const uint32_t want = w_alloc(0, W_MT_UNKNOWN, MODEL_KIND_UNKNOWN, MODEL_GFP_UNKNOWN,
				      W_SEEDED);
	uint32_t i;

	for (i = idx; i < idx + n; i++)
		if ((m->words[i] & ~W_UNCERTAIN) != want)
			return 0;
	m->unknown_settled += n;
	return 1;
}

/*
 * __drain_all_pages() of a zone (zone_pcp_disable() in offline_pages(), drain_all_pages()
 * in alloc_contig_range()) left no page on its per-cpu lists: a seeded flags-0 page
 * that the drain did not free was not a pcp page but in use, a kernel page whose
 * refcount no snapshot shows (kpagecount is the mapcount). A tail of a non-compound
 * allocation (refcount 0) is taken so too; its head, in use and first in pfn order,
 * decides has_unmovable_pages() before it.
 */
int model_zone_pcp_drained(struct model *m, uint64_t pfn, uint64_t *nr)
{
	const uint32_t want = w_alloc(0, W_MT_UNKNOWN, MODEL_KIND_UNKNOWN, MODEL_GFP_UNKNOWN,
				      W_SEEDED);
	const uint32_t kernel = w_alloc(0, W_MT_UNKNOWN, MODEL_KIND_KERNEL, MODEL_GFP_UNKNOWN,
					W_SEEDED | W_DRAINED);
	uint32_t idx, i, pbn = 1u << m->pb_order;
	uint64_t n = 0;
	struct mzone *z;
	int zi, ret = model_broken(m);

	if (nr)
		*nr = 0;
	if (ret)
		return ret;
	if (pfn < m->base || pfn - m->base >= m->span)
		return 0;
	idx = (uint32_t)(pfn - m->base);
	zi = model_idx_zone(m, idx);
	if (zi < 0)
		return 0;
	z = &m->zones[zi];
	for (idx = z->istart & ~(pbn - 1); idx < z->iend; idx += pbn) {
		if (!pb_of(m, idx)->cnt[MODEL_PBC_UNKNOWN])
			continue;
		for (i = idx > z->istart ? idx : z->istart; i < idx + pbn && i < z->iend; i++) {
			uint32_t w = m->words[i];

			if ((w & ~W_UNCERTAIN) != want)
				continue;
			model_write_word(m, i, kernel | (w & W_UNCERTAIN));
			n++;
		}
	}
	if (nr)
		*nr = n;
	return 0;
}

/* zone_locked or extfrag took this block of @order off the buddy; its alloc is to come. */
static int pending_block(const struct model *m, uint32_t idx, unsigned int order)
{
	uint32_t w = m->words[idx];

	return wtag(w) == WT_ALLOC && w_gfp(w) == MODEL_GFP_PENDING && w_order(w) == order &&
	       tails_clean(m, idx, 1u << order);
}

static uint32_t alloc_word(unsigned int order, int imt, unsigned int kind, unsigned int gfp)
{
	return w_alloc(order, imt < 0 ? W_MT_UNKNOWN : (unsigned int)imt, kind, gfp, 0);
}

/* write_alloc() over a block whose tails are free words (just unlinked or carved). */
static void fill_alloc(struct model *m, uint32_t idx, unsigned int order, int imt,
		       unsigned int kind, unsigned int gfp)
{
	unsigned int mt = imt < 0 ? W_MT_UNKNOWN : (unsigned int)imt;

	model_fill_range(m, idx, 1u << order, alloc_word(order, imt, kind, gfp),
			 w_tail(mt, kind), MODEL_PBC_FREE);
}

static void write_alloc(struct model *m, uint32_t idx, unsigned int order, int imt,
			unsigned int kind, unsigned int gfp)
{
	unsigned int mt = imt < 0 ? W_MT_UNKNOWN : (unsigned int)imt;

	model_write_range(m, idx, 1u << order, alloc_word(order, imt, kind, gfp),
			  w_tail(mt, kind));
}

/* ---- mm_page_alloc -------------------------------------------------------------- */

int model_page_alloc(struct model *m, uint64_t pfn, unsigned int order, uint64_t gfp,
		     int mt, int cpu)
{
	struct mzone *z;
	uint32_t idx, w, n, mask, head;
	int imt;
	unsigned int gc, kind;
	int ret = event_begin(m);

	if (ret)
		return ret;
	if (pfn == UINT64_MAX) {
		m->alloc_failed++;
		return 0;
	}
	z = event_range(m, pfn, order, m->max_order, &idx);
	if (!z)
		return 0;
	imt = model_imt_from_trace(m, mt);
	if (imt >= IMT_HIGHATOMIC)
		imt = -1;
	gc = model_gfp_classify(gfp, order, m->pb_order);
	kind = model_alloc_kind(m, gfp, order);
	m->hugetlb_allocs += kind == MODEL_KIND_HUGETLB;
	n = 1u << order;
	w = m->words[idx];

	/* Fast path: the block is on a pcp list (any cpu: __rmqueue_pcplist()). */
	if (wtag(w) == WT_PCP &&
	    (node_of(m, w & W_PAYLOAD)->info & FN_ORDER_MASK) == order) {
		model_del_free(m, idx);
		fill_alloc(m, idx, order, imt, kind, gc);
		return 0;
	}
	/* Confirms a block that zone_locked or extfrag already took off the buddy. */
	if (pending_block(m, idx, order)) {
		write_alloc(m, idx, order, imt, kind, gc);
		return 0;
	}
	/* A buddy block without zone_locked: claim/steal whose extfrag we did not see. */
	if (wtag(w) == WT_BUDDY || wtag(w) == WT_FREE_TAIL) {
		if (model_find_free_head(m, idx, &head) == WT_BUDDY) {
			const struct fnode *nd = node_of(m, m->words[head] & W_PAYLOAD);

			if (head + (1u << (nd->info & FN_ORDER_MASK)) >= idx + n) {
				ret = model_carve(m, z, head, idx, order, -1);
				if (ret)
					return ret;
				fill_alloc(m, idx, order, imt, kind, gc);
				return 0;
			}
		}
	}
	mask = scan_tags(m, idx, n, NULL);
	if (mask & TAGBIT(WT_HOLE)) {
		model_anomaly(m, MODEL_ANOM_PFN_OUTSIDE, idx, order);
		return 0;
	}
	if ((mask & USED_TAGS) && !(mask == TAGBIT(WT_ALLOC) && seeded_unknown(m, idx, n)))
		model_anomaly(m, MODEL_ANOM_ALLOC_IN_USE, idx, order);
	else if (mask & TAGBIT(WT_UNINIT))
		model_anomaly(m, MODEL_ANOM_ALLOC_UNINIT, idx, order);
	else if (mask & FREE_TAGS)
		model_anomaly(m, MODEL_ANOM_TAKE_ORDER, idx, order);
	if (mask & FREE_TAGS) {
		ret = model_unfree_range(m, idx, n);
		if (ret)
			return ret;
	}
	write_alloc(m, idx, order, imt, kind, gc);
	return 0;
}

/* ---- mm_page_free ----------------------------------------------------------------- */

/* Blocks wholly uninitialised get MOVABLE, as init_pageblock_migratetype() does. */
static void init_growth(struct model *m, uint32_t idx, uint32_t n, uint32_t nr_uninit)
{
	uint32_t p, pbn = 1u << m->pb_order;

	m->init_pages += nr_uninit;
	for (p = idx & ~(pbn - 1); p < idx + n; p += pbn) {
		struct pblock *b = pb_of(m, p);

		if (b->cnt[MODEL_PBC_UNINIT] + b->cnt[MODEL_PBC_HOLE] == pbn &&
		    b->cnt[MODEL_PBC_UNINIT])
			model_pb_set_mt(m, p >> m->pb_order, IMT_MOVABLE);
	}
}

/*
 * Before v6.12 a gigantic folio goes back with free_contig_range(): 262,144 order-0
 * frees, not one order-18 free. @head is the allocation's head.
 */
static int gigantic_piece(const struct model *m, uint32_t head, unsigned int order)
{
	uint32_t w = m->words[head];

	return !m->prof.gigantic_free_order18 && wtag(w) == WT_ALLOC &&
	       w_order(w) > m->max_order && order < w_order(w);
}

/* force_pcp: 1 to the pcp list even in an isolated block, -1 never to a pcp list. */
static int do_free(struct model *m, uint64_t pfn, unsigned int order, int cpu, int force_pcp)
{
	struct mzone *z;
	uint32_t idx, w, n;
	int eff, ret, to_tail = 0;

	/* a gigantic folio's free may carry an order above max_order (event_range()) */
	z = event_range(m, pfn, order, UINT_MAX, &idx);
	if (!z)
		return 0;
	n = 1u << order;
	w = m->words[idx];
	if (!(wtag(w) == WT_ALLOC && w_order(w) == order && !(w & W_SEEDED) &&
	      w_gfp(w) != MODEL_GFP_PENDING && tails_clean(m, idx, n))) {
		uint32_t nr_uninit, mask = scan_tags(m, idx, n, &nr_uninit), head;

		if (mask & TAGBIT(WT_HOLE)) {
			model_anomaly(m, MODEL_ANOM_PFN_OUTSIDE, idx, order);
			return 0;
		}
		if (mask & FREE_TAGS) {
			uint32_t h;
			int hk = model_find_free_head(m, idx, &h);

			/*
			 * A page we hold on a pcp list: alloc_pages_bulk() takes order-0 pcp
			 * pages with __rmqueue_pcplist() and no mm_page_alloc, so their frees
			 * land here. Where the profile says so, this is that allocation
			 * (an assumption, counted); the page leaves the pcp list as it did.
			 */
			if (hk == WT_PCP && !order && h == idx && m->prof.bulk_untraced)
				jset64(m, &m->bulk_allocs, m->bulk_allocs + 1);
			else
				model_anomaly(m, hk == WT_PCP ? MODEL_ANOM_FREE_OF_PCP :
					      MODEL_ANOM_FREE_OF_FREE, idx, order);
			ret = model_unfree_range(m, idx, n);
			if (ret)
				return ret;
		}
		/*
		 * Memory coming into use: online_pages() -> generic_online_page() and lazy
		 * init both free through __free_pages_core(), FPI_TO_TAIL.
		 */
		if (nr_uninit) {
			init_growth(m, idx, n, nr_uninit);
			to_tail = 1;
		}
		if (wtag(w) == WT_ALLOC && !(w & W_SEEDED) && w_order(w) != order &&
		    !gigantic_piece(m, idx, order))
			model_anomaly(m, MODEL_ANOM_FREE_ORDER, idx, order);
		else if (wtag(w) == WT_TAIL && model_find_alloc_head(m, idx, &head) &&
			 !(m->words[head] & W_SEEDED) && !gigantic_piece(m, head, order))
			model_anomaly(m, MODEL_ANOM_FREE_ORDER, idx, order);
	}
	eff = pb_eff_mt(pb_of(m, idx));
	/*
	 * free_frozen_pages(): pcp orders go to the head of this cpu's list unless the
	 * block is isolated; other orders and isolated blocks go to free_one_page().
	 */
	if (model_pcp_allowed(m, order) && force_pcp >= 0 && (force_pcp || eff != IMT_ISOLATE))
		return model_pcp_add(m, z, idx, order, eff, valid_cpu(m, cpu), 0, 0);
	model_write_range(m, idx, n, wmake(WT_FREE_TAIL, 0), wmake(WT_FREE_TAIL, 0));
	return model_free_split(m, z, idx, order, to_tail);
}

int model_page_free(struct model *m, uint64_t pfn, unsigned int order, int cpu)
{
	int ret = event_begin(m);

	if (ret)
		return ret;
	return do_free(m, pfn, order, cpu, 0);
}

int model_page_free_nopcp(struct model *m, uint64_t pfn, unsigned int order, int cpu)
{
	int ret = event_begin(m);

	if (ret)
		return ret;
	m->nopcp_frees++;
	return do_free(m, pfn, order, cpu, -1);
}

/* mm_page_free_batched: free_unref_folios() put the folio on this cpu's pcp list. */
int model_free_batched(struct model *m, uint64_t pfn, int cpu)
{
	uint32_t idx, w, head;
	struct mzone *z;
	int ret = event_begin(m);

	if (ret)
		return ret;
	z = event_range(m, pfn, 0, 0, &idx);
	if (!z)
		return 0;
	w = m->words[idx];
	if (wtag(w) == WT_PCP)
		return 0;
	if (wtag(w) == WT_BUDDY) {
		/* We sent it to the buddy (block thought isolated?): move it to the pcp. */
		uint32_t info = node_of(m, w & W_PAYLOAD)->info;
		unsigned int order = info & FN_ORDER_MASK;

		model_anomaly(m, MODEL_ANOM_PCP_MISSING, idx, order);
		if (!model_pcp_allowed(m, order))
			return 0;
		model_del_free(m, idx);
		return model_pcp_add(m, z, idx, order, pb_eff_mt(pb_of(m, idx)), valid_cpu(m, cpu),
				     0, 1);
	}
	if (wtag(w) == WT_ALLOC) {
		/* The mm_page_free was lost (or the page was seeded with flags 0). */
		if (!seeded_unknown(m, idx, 1))
			model_anomaly(m, MODEL_ANOM_PCP_MISSING, idx, w_order(w));
		return do_free(m, pfn, w_order(w), cpu, 1);
	}
	if (wtag(w) == WT_TAIL && model_find_alloc_head(m, idx, &head)) {
		model_anomaly(m, MODEL_ANOM_PCP_MISSING, idx, 0);
		return 0;
	}
	if (wtag(w) != WT_FREE_TAIL)
		model_anomaly(m, MODEL_ANOM_PCP_MISSING, idx, 0);
	return 0;
}

/* ---- mm_page_alloc_zone_locked ---------------------------------------------------- */

/*
 * zone_locked took the free block @head (order @k) from list @lmt for a request of
 * type @imt: explain the difference (an untraced claim or re-type) and adopt it.
 */
static int adopt_list_type(struct model *m, uint32_t idx, unsigned int order, uint32_t head,
			   unsigned int k, int lmt, int imt)
{
	struct pblock *b = pb_of(m, idx);
	int ret = 0;

	if (k == m->pb_order && imt_mergeable(lmt) && imt_mergeable(imt) &&
	    pb_eff_mt(b) == lmt && (b->flags & PB_GUESS)) {
		/*
		 * __rmqueue_smallest() found the block on the list of the requested type:
		 * the block's guessed type was wrong (the kernel's lists are by type).
		 */
		ret = model_pb_fix_guess(m, head >> m->pb_order, imt);
		if (ret > 0) {
			model_anomaly(m, MODEL_ANOM_PB_TYPE_LEARNED, idx, order);
			model_move_freepages_block(m, head >> m->pb_order, imt);
			return 0;
		}
		if (ret < 0)
			return ret;
	}
	if (k < m->pb_order && imt_mergeable(imt) && imt_mergeable(pb_eff_mt(b))) {
		/*
		 * try_to_claim_block() below pageblock order: the whole block's free
		 * pages move to the new type, then __rmqueue_smallest() emits this
		 * event. The extfrag event follows it.
		 */
		ret = model_retype_block(m, idx >> m->pb_order, imt);
		m->implicit_claims++;
	} else if (k >= m->pb_order - 1 && imt == IMT_MOVABLE && imt_mergeable(lmt)) {
		/*
		 * __isolate_free_page() of a block of order >= pageblock_order - 1
		 * re-types its mergeable pageblocks to MOVABLE without a tracepoint: free
		 * page reporting (virtio-balloon) and the compaction free scanner do this
		 * on this machine.
		 */
		uint32_t p = head >> m->pb_order;
		uint32_t nb = k > m->pb_order ? 1u << (k - m->pb_order) : 1;

		model_anomaly(m, MODEL_ANOM_REPORT_RETYPE, idx, order);
		if (k < m->pb_order) {
			ret = model_retype_block(m, p, IMT_MOVABLE);
		} else {
			/* the block covers its pageblocks: move it, type them */
			model_move_freepages_block(m, p, IMT_MOVABLE);
			while (nb--)
				model_pb_set_mt(m, p++, IMT_MOVABLE);
		}
	} else if (k >= m->pb_order && imt_mergeable(imt) && imt_mergeable(lmt) &&
		   m->prof.freelist_hygiene) {
		/* The free list is the block's type (v6.10+): adopt it. */
		uint32_t p = head >> m->pb_order, nb = 1u << (k - m->pb_order);

		model_anomaly(m, MODEL_ANOM_PB_TYPE_LEARNED, idx, order);
		model_move_freepages_block(m, p, imt);
		while (nb--)
			model_pb_set_mt(m, p++, imt);
	} else {
		model_anomaly(m, MODEL_ANOM_MT_MISMATCH, idx, order);
	}
	return ret;
}

bool model_zone_locked_refill(const struct model *m, unsigned int order, int mt,
			      bool percpu_refill)
{
	return percpu_refill ||
	       (model_imt_from_trace(m, mt) == IMT_CMA && model_pcp_allowed(m, order));
}

int model_zone_locked(struct model *m, uint64_t pfn, unsigned int order, int mt,
		      bool percpu_refill, int cpu)
{
	struct mzone *z;
	uint32_t idx, w, head = 0, n;
	int imt, hk, tails_free = 1, ret = event_begin(m);

	if (ret)
		return ret;
	z = event_range(m, pfn, order, m->max_order, &idx);
	if (!z)
		return 0;
	imt = model_imt_from_trace(m, mt);
	percpu_refill = model_zone_locked_refill(m, order, mt, percpu_refill);
	n = 1u << order;
	w = m->words[idx];
	if (imt < 0) {
		model_anomaly(m, MODEL_ANOM_MT_MISMATCH, idx, order);
		imt = pb_eff_mt(pb_of(m, idx));
	}
	hk = model_find_free_head(m, idx, &head);
	if (hk == WT_BUDDY) {
		struct fnode *nd = node_of(m, m->words[head] & W_PAYLOAD);
		unsigned int k = nd->info & FN_ORDER_MASK;
		int lmt = (nd->info >> FN_MT_SHIFT) & 7;

		if (head != idx || head + (1u << k) < idx + n) {
			model_anomaly(m, MODEL_ANOM_TAKE_ORDER, idx, order);
			if (head + (1u << k) < idx + n) {
				tails_free = 0;
				goto generic;
			}
		}
		if (lmt != imt) {
			ret = adopt_list_type(m, idx, order, head, k, lmt, imt);
			if (ret)
				return ret;
		} else if (k <= m->pb_order && pb_eff_mt(pb_of(m, idx)) == imt) {
			model_pb_confirm(m, idx >> m->pb_order);
		}
		ret = model_carve(m, z, head, idx, order, -1);
		if (ret)
			return ret;
		goto place;
	}
	tails_free = 0;
	if (!m->prof.claim_steal && pending_block(m, idx, order)) {
		/*
		 * Before the claim/steal split (v6.15, 6.12.y), __rmqueue_fallback() traces
		 * extfrag when steal_suitable_fallback() has moved the block, then retries
		 * __rmqueue_smallest(), which takes it (this event): the block extfrag left
		 * pending (seen on 6.1).
		 */
		goto place;
	}
	if (hk == WT_PCP) {
		/* A free that looked like a pcp free went to the buddy (trylock failed). */
		model_anomaly(m, MODEL_ANOM_PCP_IN_BUDDY, idx, order);
	} else if (wtag(w) == WT_UNINIT) {
		model_anomaly(m, MODEL_ANOM_ALLOC_UNINIT, idx, order);
	} else if (wtag(w) == WT_HOLE) {
		model_anomaly(m, MODEL_ANOM_PFN_OUTSIDE, idx, order);
		return 0;
	} else {
		model_anomaly(m, MODEL_ANOM_TAKE_NOT_FREE, idx, order);
	}
generic:
	ret = model_unfree_range(m, idx, n);
	if (ret)
		return ret;
place:
	if (percpu_refill && (imt < IMT_HIGHATOMIC || imt == IMT_CMA) &&
	    model_pcp_allowed(m, order)) {
		/* rmqueue_bulk(): appended to the pcp list of the requested type (CMA: movable) */
		return model_pcp_add(m, z, idx, order, imt, valid_cpu(m, cpu), 1, tails_free);
	} else if (tails_free) {
		fill_alloc(m, idx, order, imt < IMT_HIGHATOMIC ? imt : -1, MODEL_KIND_UNKNOWN,
			   MODEL_GFP_PENDING);
	} else {
		write_alloc(m, idx, order, imt < IMT_HIGHATOMIC ? imt : -1, MODEL_KIND_UNKNOWN,
			    MODEL_GFP_PENDING);
	}
	return 0;
}

/* ---- mm_page_pcpu_drain --------------------------------------------------------------- */

int model_pcpu_drain(struct model *m, uint64_t pfn, unsigned int order, int mt, int cpu)
{
	struct mzone *z;
	uint32_t idx, w, n;
	int imt, eff, fmt, ret = event_begin(m);

	if (ret)
		return ret;
	/* pcp lists hold orders up to pageblock order only */
	z = event_range(m, pfn, order, m->pb_order, &idx);
	if (!z)
		return 0;
	n = 1u << order;
	w = m->words[idx];
	imt = model_imt_from_trace(m, mt);
	eff = pb_eff_mt(pb_of(m, idx));
	if (imt == eff) {
		model_pb_confirm(m, idx >> m->pb_order);
	} else if (imt >= 0 && imt < NR_IMT) {
		/*
		 * free_pcppages_bulk() names the block's type (6.10+: at drain; before:
		 * when the page was freed, get_pcppage_migratetype()): a guessed type
		 * that contradicts it was wrong.
		 */
		ret = model_pb_fix_guess(m, idx >> m->pb_order, imt);
		if (ret < 0)
			return ret;
		if (ret)
			eff = imt;
	}
	if ((m->opts & MODEL_OPT_DRAIN_TYPES) && imt >= 0 && imt != eff && imt_mergeable(imt) &&
	    imt_mergeable(eff)) {
		/*
		 * The drain names the block's type at drain time: the seeded (inferred)
		 * type was wrong, or an untraced re-type happened. Adopt it.
		 */
		model_anomaly(m, MODEL_ANOM_PB_TYPE_LEARNED, idx, order);
		ret = model_retype_block(m, idx >> m->pb_order, imt);
		if (ret)
			return ret;
		eff = imt;
	}
	/*
	 * free_pcppages_bulk() frees onto the list of the block's type at drain from v6.10;
	 * before, of the type the page was freed with (get_pcppage_migratetype()), which
	 * the event carries (6.1).
	 */
	fmt = !m->prof.freelist_hygiene && imt >= 0 && imt < NR_IMT && imt != IMT_ISOLATE ?
	      imt : eff;
	if (wtag(w) == WT_PCP) {
		uint32_t info = node_of(m, w & W_PAYLOAD)->info;

		if ((info & FN_ORDER_MASK) != order) {
			model_anomaly(m, MODEL_ANOM_TAKE_ORDER, idx, order);
			ret = model_unfree_range(m, idx, n);
			if (ret)
				return ret;
		} else {
			/* the usual case: the tails are free words already */
			model_del_free(m, idx);
			if (imt != eff)
				model_anomaly(m, MODEL_ANOM_MT_MISMATCH, idx, order);
			model_write_word(m, idx, wmake(WT_FREE_TAIL, 0));
			return model_free_one(m, z, idx, order, fmt, 0);
		}
	} else if (pending_block(m, idx, order)) {
		/* A claimed/stolen block that rmqueue_bulk() put on a pcp list. */
	} else if (wtag(w) == WT_BUDDY || wtag(w) == WT_FREE_TAIL) {
		model_anomaly(m, MODEL_ANOM_PCP_MISSING, idx, order);
		return 0;
	} else if (wtag(w) == WT_UNINIT || wtag(w) == WT_HOLE) {
		model_anomaly(m, MODEL_ANOM_PFN_OUTSIDE, idx, order);
		return 0;
	} else if (seeded_unknown(m, idx, n)) {
		/* it was on a pcp list when the snapshot was read */
	} else {
		model_anomaly(m, MODEL_ANOM_PCP_MISSING, idx, order);
		if (scan_tags(m, idx, n, NULL) & FREE_TAGS) {
			ret = model_unfree_range(m, idx, n);
			if (ret)
				return ret;
		}
	}
	if (imt != eff)
		model_anomaly(m, MODEL_ANOM_MT_MISMATCH, idx, order);
	/* free_pcppages_bulk(): __free_one_page() with that type. */
	model_write_range(m, idx, n, wmake(WT_FREE_TAIL, 0), wmake(WT_FREE_TAIL, 0));
	(void)cpu;
	return model_free_one(m, z, idx, order, fmt, 0);
}

/* ---- mm_page_alloc_extfrag ------------------------------------------------------------ */

int model_extfrag(struct model *m, uint64_t pfn, unsigned int alloc_order,
		  unsigned int fallback_order, int alloc_mt, int fallback_mt,
		  bool change_ownership)
{
	struct mzone *z;
	uint32_t idx, w, head = 0, pbi;
	int a, f, hk, ret = event_begin(m);
	unsigned int k;

	if (ret)
		return ret;
	/* the allocation comes out of the fallback block: alloc_order <= fallback_order */
	if (fallback_order > m->max_order || alloc_order > fallback_order)
		z = bad_order(m, pfn, fallback_order);
	else
		z = event_range(m, pfn, alloc_order, m->max_order, &idx);
	if (!z)
		return 0;
	a = model_imt_from_trace(m, alloc_mt);
	f = model_imt_from_trace(m, fallback_mt);
	if (a < 0 || f < 0 || !imt_mergeable(a) || !imt_mergeable(f)) {
		model_anomaly(m, MODEL_ANOM_MT_MISMATCH, idx, fallback_order);
		return 0;
	}
	pbi = idx >> m->pb_order;
	w = m->words[idx];

	if (change_ownership && fallback_order < m->pb_order) {
		/*
		 * Partial claim (try_to_claim_block() with free + alike >= half a
		 * block): its zone_locked came first and normally re-typed the block
		 * already; make sure of it.
		 */
		if (pb_eff_mt(pb_of(m, idx)) == f)
			return model_retype_block(m, pbi, a);
		return 0;
	}
	if (wtag(w) == WT_ALLOC && w_gfp(w) == MODEL_GFP_PENDING)
		return 0;
	hk = model_find_free_head(m, idx, &head);
	if (hk == WT_BUDDY) {
		struct fnode *nd = node_of(m, m->words[head] & W_PAYLOAD);
		int lmt = (nd->info >> FN_MT_SHIFT) & 7;

		k = nd->info & FN_ORDER_MASK;
		if (head != idx || k != fallback_order)
			model_anomaly(m, MODEL_ANOM_TAKE_ORDER, idx, fallback_order);
		if (lmt != f)
			model_anomaly(m, MODEL_ANOM_MT_MISMATCH, idx, fallback_order);
		if (head + (1u << k) < idx + (1u << alloc_order)) {
			ret = model_unfree_range(m, idx, 1u << alloc_order);
		} else if (change_ownership && k >= m->pb_order) {
			/* Whole-block claim: change_pageblock_range(), expand() onto @a. */
			uint32_t p = head >> m->pb_order, nb = 1u << (k - m->pb_order);

			while (nb--)
				model_pb_set_mt(m, p++, a);
			ret = model_carve(m, z, head, idx, alloc_order, a);
		} else {
			/* __rmqueue_steal(): expand() onto the fallback list, type kept. */
			ret = model_carve(m, z, head, idx, alloc_order, -1);
		}
	} else if (hk == WT_PCP) {
		/* compaction_capture() of a page we put on a pcp list. */
		ret = model_unfree_range(m, idx, 1u << alloc_order);
	} else {
		model_anomaly(m, MODEL_ANOM_TAKE_NOT_FREE, idx, alloc_order);
		if (scan_tags(m, idx, 1u << alloc_order, NULL) &
		    (TAGBIT(WT_HOLE) | TAGBIT(WT_UNINIT)))
			return 0;
		ret = model_unfree_range(m, idx, 1u << alloc_order);
	}
	if (ret)
		return ret;
	write_alloc(m, idx, alloc_order, a, MODEL_KIND_UNKNOWN, MODEL_GFP_PENDING);
	return 0;
}

/* ---- setters ------------------------------------------------------------------------- */

/* A setter's range [pfn, pfn + n): its index, -BC_E_INVAL unless the model spans it all. */
static int setter_range(struct model *m, uint64_t pfn, uint64_t n, uint32_t *idx)
{
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (!pfn_to_idx(m, pfn, idx) || n > m->span - *idx)
		return model_range_error(m, pfn, pfn + n);
	return 0;
}

int model_set_page_kind(struct model *m, uint64_t pfn, uint64_t n, enum model_kind kind)
{
	uint32_t idx, i;
	int ret = setter_range(m, pfn, n, &idx);

	if (ret)
		return ret;
	if ((unsigned int)kind >= MODEL_NR_KINDS)
		return bc_error(BC_E_INVAL, "model: page kind %d unknown", (int)kind);
	for (i = idx; i < idx + n; i++) {
		uint32_t w = m->words[i];

		if (wtag(w) != WT_ALLOC && wtag(w) != WT_TAIL)
			continue;
		w = (w & ~(0xfu << W_KIND_SHIFT)) | ((uint32_t)kind << W_KIND_SHIFT);
		model_write_word(m, i, w);
	}
	return 0;
}

int model_set_page_untraced(struct model *m, uint64_t pfn, uint64_t n)
{
	const uint32_t alloc_bits = (7u << W_MT_SHIFT) | (0xfu << W_KIND_SHIFT) |
				    (7u << W_GFP_SHIFT);
	const uint32_t tail_bits = (7u << W_MT_SHIFT) | (0xfu << W_KIND_SHIFT);
	uint32_t idx, i;
	int ret = setter_range(m, pfn, n, &idx);

	if (ret)
		return ret;
	for (i = idx; i < idx + n; i++) {
		uint32_t w = m->words[i];

		if (wtag(w) == WT_ALLOC)
			w = (w & ~alloc_bits) | (W_MT_UNKNOWN << W_MT_SHIFT) |
			    ((uint32_t)MODEL_KIND_UNKNOWN << W_KIND_SHIFT) |
			    ((uint32_t)MODEL_GFP_UNKNOWN << W_GFP_SHIFT);
		else if (wtag(w) == WT_TAIL)
			w = (w & ~tail_bits) | (W_MT_UNKNOWN << W_MT_SHIFT) |
			    ((uint32_t)MODEL_KIND_UNKNOWN << W_KIND_SHIFT);
		else
			continue;
		model_write_word(m, i, w);
	}
	return 0;
}

int model_mark_uncertain(struct model *m, uint64_t pfn, uint64_t n)
{
	uint32_t idx, i;
	int ret = setter_range(m, pfn, n, &idx);

	if (ret)
		return ret;
	for (i = idx; i < idx + n; i++)
		if (wtag(m->words[i]) != WT_HOLE)
			jset32(m, &m->words[i], m->words[i] | W_UNCERTAIN);
	return 0;
}

uint64_t model_count_uncertain(const struct model *m, uint64_t pfn, uint64_t n)
{
	uint32_t idx, i;
	uint64_t c = 0;

	if (!pfn_to_idx(m, pfn, &idx))
		return 0;
	if (n > m->span - idx)
		n = m->span - idx;
	for (i = idx; i < idx + n; i++)
		c += !!(m->words[i] & W_UNCERTAIN);
	return c;
}

int model_set_uninit(struct model *m, uint64_t pfn, uint64_t n)
{
	uint32_t idx, i;
	int ret = setter_range(m, pfn, n, &idx);

	if (ret)
		return ret;
	ret = model_unfree_range(m, idx, (uint32_t)n);
	if (ret)
		return ret;
	for (i = idx; i < idx + n; i++)
		if (wtag(m->words[i]) != WT_HOLE)
			model_write_word(m, i, wmake(WT_UNINIT, 0));
	model_release_uninit(m, idx, (uint32_t)n);
	return 0;
}

int model_set_pageblock_mt(struct model *m, uint64_t pfn, int mt)
{
	uint32_t idx = 0, pbi;
	int imt = -1, ret = setter_range(m, pfn, 1, &idx);
	struct pblock *b;

	if (ret)
		return ret;
	imt = model_imt_from_trace(m, mt);
	if (imt < 0 || imt == IMT_ISOLATE)
		return bc_error(BC_E_INVAL, "model: cannot set migratetype %d", mt);
	pbi = idx >> m->pb_order;
	b = &m->pb[pbi];
	if (b->mt == imt)
		return 0;
	return model_retype_block(m, pbi, imt);
}
