// SPDX-License-Identifier: GPL-2.0
/*
 * seed.c - state from a snapshot of /proc/kpageflags (and /proc/kpagecount).
 *
 * Free blocks: every page of a free buddy block reads KPF_BUDDY, but the order is not
 * exported, so maximal BUDDY runs are split greedily into the largest naturally
 * aligned power-of-two blocks <= MAX_PAGE_ORDER within the zone. This is exact below
 * pageblock order, where buddies always merge (__free_one_page()); an order-10 block
 * is only formed when both pageblocks may merge.
 */
#include "common/kpageflags.h"
#include "model/model-local.h"

#define F(b) KPF_BIT(b)

/* The first of these flags a page has names its kind, whatever else it has. */
static const struct {
	uint64_t flag;
	enum model_kind kind;
} kind_of_flag[] = {
	{ F(KPF_RESERVED), MODEL_KIND_RESERVED },
	{ F(KPF_HUGE), MODEL_KIND_HUGETLB },
	{ F(KPF_SLAB), MODEL_KIND_SLAB },
	{ F(KPF_PGTABLE), MODEL_KIND_PGTABLE },
	{ F(KPF_OFFLINE), MODEL_KIND_OFFLINE },
	{ F(KPF_ZERO_PAGE), MODEL_KIND_ZERO },
	{ F(KPF_THP), MODEL_KIND_THP },
};

enum model_kind model_kind_of_flags(uint64_t f, uint64_t mapcount)
{
	size_t i;

	for (i = 0; i < sizeof(kind_of_flag) / sizeof(kind_of_flag[0]); i++)
		if (f & kind_of_flag[i].flag)
			return kind_of_flag[i].kind;
	if (f & F(KPF_LRU))
		return (f & F(KPF_ANON)) ? MODEL_KIND_ANON : MODEL_KIND_FILE;
	/*
	 * Anonymous or mapped but not (yet) on the LRU: a user page in a per-cpu LRU batch
	 * (lru_add), movable. (predict also remembers that alloc_contig_range()'s isolation
	 * sees it off the LRU until the batches drain.)
	 */
	if (f & F(KPF_ANON))
		return MODEL_KIND_ANON;
	if (mapcount && (f & F(KPF_MMAP)))
		return MODEL_KIND_FILE;
	/* page-cache state (uptodate, dirty, writeback, private) off the LRU for a moment */
	if (f & (F(KPF_UPTODATE) | F(KPF_DIRTY) | F(KPF_WRITEBACK) | F(KPF_PRIVATE)))
		return MODEL_KIND_FILE;
	if (f & (F(KPF_COMPOUND_HEAD) | F(KPF_COMPOUND_TAIL)))
		return MODEL_KIND_COMPOUND;
	/*
	 * No flags at all: a pcp page or a non-compound tail. A map count beside flags 0
	 * means kpagecount (read after kpageflags) saw the page mapped since: a mapped
	 * page has KPF_MMAP (stable_page_flags(), fs/proc/page.c), so it was free or in
	 * transit when its flags were read, not a kernel page.
	 */
	if (!f)
		return MODEL_KIND_UNKNOWN;
	return MODEL_KIND_KERNEL;
}

static unsigned int ilog2_exact(uint64_t n)
{
	unsigned int o = 0;

	if (!n || (n & (n - 1)))
		return 64;
	while ((1ull << o) < n)
		o++;
	return o;
}

/* Add the BUDDY run [s, e) (indices, one zone) as greedy aligned blocks. */
static int seed_buddy_run(struct model *m, struct mzone *z, uint32_t s, uint32_t e)
{
	while (s < e) {
		unsigned int k = m->max_order;
		int mt, ret;

		while (k && ((s & ((1u << k) - 1)) || s + (1u << k) > e))
			k--;
		if (k > m->pb_order) {
			/* The pageblocks must be able to merge (__free_one_page()). */
			uint32_t p, n = 1u << (k - m->pb_order);
			int first = pb_eff_mt(pb_of(m, s)), ok = 1;

			for (p = 1; p < n; p++) {
				int t = pb_eff_mt(pb_of(m, s + (p << m->pb_order)));

				if (t != first && (!imt_mergeable(t) || !imt_mergeable(first)))
					ok = 0;
			}
			if (!ok) {
				k = m->pb_order;
			} else {
				for (p = 1; p < n; p++)
					model_pb_set_mt(m, (s >> m->pb_order) + p, first);
			}
		}
		mt = pb_eff_mt(pb_of(m, s));
		model_write_range(m, s, 1u << k, wmake(WT_FREE_TAIL, 0), wmake(WT_FREE_TAIL, 0));
		/* merges with free buddies just outside the seeded range too */
		ret = model_free_one(m, z, s, k, mt, 1);
		if (ret)
			return ret;
		s += 1u << k;
	}
	return 0;
}

int model_seed_pfn_range(struct model *m, uint64_t pfn, uint64_t n,
			 const uint64_t *kpageflags, const uint64_t *mapcount)
{
	uint32_t idx, end, i, mb;
	uint64_t off = 0;
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (!kpageflags)
		return -BC_E_INVAL;
	if (pfn < m->base) {
		off = m->base - pfn;
		if (off >= n)
			return 0;
		pfn = m->base;
		n -= off;
	}
	if (!pfn_to_idx(m, pfn, &idx))
		return 0;
	if (n > m->span - idx)
		n = m->span - idx;
	end = idx + (uint32_t)n;
	kpageflags += off;
	if (mapcount)
		mapcount += off;

	ret = model_unfree_range(m, idx, (uint32_t)n);
	if (ret)
		return ret;
	mb = (uint32_t)m->layout.memory_block_pages;
	i = idx;
	while (i < end) {
		uint64_t f = kpageflags[i - idx];
		uint64_t mc = mapcount ? mapcount[i - idx] : 0;
		int zi = model_idx_zone(m, i);
		struct mzone *z;

		if (zi < 0 || wtag(m->words[i]) == WT_HOLE) {
			i++;
			continue;
		}
		z = &m->zones[zi];
		if (f & F(KPF_NOPAGE)) {
			model_write_word(m, i, wmake(WT_HOLE, 0));
			i++;
			continue;
		}
		if (f & F(KPF_BUDDY)) {
			uint32_t j = i + 1;

			while (j < end && j < z->iend && (kpageflags[j - idx] & F(KPF_BUDDY)) &&
			       !(kpageflags[j - idx] & F(KPF_NOPAGE)))
				j++;
			ret = seed_buddy_run(m, z, i, j);
			if (ret)
				return ret;
			i = j;
			continue;
		}
		if (!f) {
			/* A whole memory block reading 0 is not initialised (lazy init). */
			if (mb && !(i & (mb - 1)) && i + mb <= end) {
				uint32_t j;

				for (j = i; j < i + mb; j++)
					if (kpageflags[j - idx] || (mapcount && mapcount[j - idx]))
						break;
				if (j == i + mb) {
					for (j = i; j < i + mb; j++)
						if (wtag(m->words[j]) != WT_HOLE)
							model_write_word(m, j, wmake(WT_UNINIT, 0));
					model_release_uninit(m, i, mb);
					i += mb;
					continue;
				}
			}
			/* pcp page, tail of a non-compound allocation, driver page */
			model_write_word(m, i, w_alloc(0, W_MT_UNKNOWN, MODEL_KIND_UNKNOWN,
						       MODEL_GFP_UNKNOWN, W_SEEDED) | W_UNCERTAIN);
			i++;
			continue;
		}
		if (f & F(KPF_COMPOUND_HEAD)) {
			uint32_t j = i + 1;
			unsigned int o, kind = model_kind_of_flags(f, mc);

			while (j < end && (kpageflags[j - idx] & F(KPF_COMPOUND_TAIL)) &&
			       !(kpageflags[j - idx] & F(KPF_COMPOUND_HEAD)))
				j++;
			o = ilog2_exact(j - i);
			if (o < 31 && !(i & ((1u << o) - 1))) {
				uint32_t k;

				model_write_word(m, i, w_alloc(o, W_MT_UNKNOWN, kind,
							       MODEL_GFP_UNKNOWN, 0));
				for (k = i + 1; k < j; k++)
					model_write_word(m, k, w_tail(W_MT_UNKNOWN,
						model_kind_of_flags(kpageflags[k - idx],
								mapcount ? mapcount[k - idx] : 0)));
				i = j;
				continue;
			}
		}
		model_write_word(m, i, w_alloc(0, W_MT_UNKNOWN, model_kind_of_flags(f, mc),
					       MODEL_GFP_UNKNOWN, W_SEEDED));
		i++;
	}
	return 0;
}
