// SPDX-License-Identifier: GPL-2.0
/*
 * guess.c - pageblock types that are assumptions.
 *
 * No kernel file gives one pageblock's type; /proc/pagetypeinfo counts them per zone
 * ("Number of blocks type"). The seed (replay/) hands the counted types out by the
 * pages' evidence and marks every block it typed PB_GUESS. An event that shows a
 * block's type (a drain's migratetype, the free list a zone_locked took it from)
 * either confirms the guess or corrects it. A correction means the guess was wrong,
 * and since the seeded counts were the kernel's, another block guessed with the new
 * type must really have the old one: the guessed block of that type with the weakest
 * evidence for it (fewest unmovable pages against movable ones, as the seed ranked
 * them) takes the old type. Without this the per-type counts drift one way only.
 */
#include "model/model-local.h"

void model_pb_confirm(struct model *m, uint32_t pbi)
{
	struct pblock *b = &m->pb[pbi];

	if (b->flags & PB_GUESS)
		jset8(m, &b->flags, b->flags & ~PB_GUESS);
}

/* Unmovable evidence of a block, as the seed ranks it: a slab page outweighs movables. */
static int64_t pb_evidence(const struct pblock *b)
{
	return (int64_t)b->cnt[MODEL_PBC_UNMOVABLE] * 1024 - b->cnt[MODEL_PBC_MOVABLE];
}

/* Is the block inside a free block above pageblock order (its buddies share a type)? */
static bool pb_in_large_free(const struct model *m, uint32_t pbi)
{
	uint32_t head;

	if (model_find_free_head(m, pbi << m->pb_order, &head) != WT_BUDDY)
		return false;
	return (node_of(m, m->words[head] & W_PAYLOAD)->info & FN_ORDER_MASK) > m->pb_order;
}

/* Is the block one free buddy block of exactly pageblock order (on a free list)? */
static bool pb_whole_free(const struct model *m, uint32_t pbi)
{
	uint32_t w = m->words[pbi << m->pb_order];

	return wtag(w) == WT_BUDDY &&
	       (node_of(m, w & W_PAYLOAD)->info & FN_ORDER_MASK) == m->pb_order;
}

/*
 * The guessed block of zone @zone and type @mt least likely of that type; UINT32_MAX.
 * @whole_free: 1 only blocks that are one free pageblock-order block, -1 none of them,
 * 0 either.
 */
static uint32_t weakest_guess(const struct model *m, unsigned int zone, int mt, int want,
			      uint32_t not, int whole_free)
{
	uint32_t p, best = UINT32_MAX;
	int64_t best_ev = 0;

	for (p = 0; p < m->nr_pb; p++) {
		const struct pblock *b = &m->pb[p];
		int64_t ev;

		if (p == not || b->zone != zone || !(b->flags & PB_GUESS) ||
		    (b->flags & (PB_ISOLATE | PB_STRADDLE | PB_ABSENT)) || b->mt != mt ||
		    pb_in_large_free(m, p))
			continue;
		if (whole_free && pb_whole_free(m, p) != (whole_free > 0))
			continue;
		/* the block most likely of type @want */
		ev = want == IMT_MOVABLE ? -pb_evidence(b) : pb_evidence(b);
		if (best == UINT32_MAX || ev > best_ev) {
			best = p;
			best_ev = ev;
		}
	}
	return best;
}

int model_pb_fix_guess(struct model *m, uint32_t pbi, int mt)
{
	struct pblock *b = &m->pb[pbi];
	int old = b->mt, ret;
	uint32_t partner;

	if (!(b->flags & PB_GUESS) || (b->flags & PB_ISOLATE) || old == mt ||
	    !imt_mergeable(old) || !imt_mergeable(mt))
		return 0;
	partner = weakest_guess(m, b->zone, mt, old, pbi, 0);
	ret = model_retype_block(m, pbi, mt);
	model_pb_confirm(m, pbi);
	if (!ret && partner != UINT32_MAX) {
		ret = model_retype_block(m, partner, old);
		/* the partner's type is deduced from the counts: still an assumption */
		jset8(m, &m->pb[partner].flags, m->pb[partner].flags | PB_GUESS);
	}
	jset64(m, &m->guess_fixes, m->guess_fixes + 1);
	return ret ? ret : 1;
}

int model_seed_drain_type(struct model *m, uint64_t pfn, int mt)
{
	int imt = model_imt_from_trace(m, mt), ret = model_broken(m);
	uint32_t idx, pbi;

	if (ret)
		return ret;
	if (!pfn_to_idx(m, pfn, &idx) || imt < 0 || imt >= NR_IMT)
		return 0;
	pbi = idx >> m->pb_order;
	if (!(m->pb[pbi].flags & PB_GUESS) || pb_in_large_free(m, pbi))
		return 0;
	if (pb_eff_mt(&m->pb[pbi]) == imt) {
		model_pb_confirm(m, pbi);
		return 0;
	}
	ret = model_pb_fix_guess(m, pbi, imt);
	return ret < 0 ? ret : ret > 0;
}

int model_mark_pageblock_guessed(struct model *m, uint64_t pfn)
{
	uint32_t idx;
	struct pblock *b;
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (!pfn_to_idx(m, pfn, &idx))
		return -BC_E_INVAL;
	b = pb_of(m, idx);
	if (b->zone != PB_NOZONE && !(b->flags & PB_GUESS))
		jset8(m, &b->flags, b->flags | PB_GUESS);
	return 0;
}

int model_mark_pageblock_absent(struct model *m, uint64_t pfn)
{
	int ret = model_mark_pageblock_guessed(m, pfn);
	uint32_t idx;
	struct pblock *b;

	if (ret || !pfn_to_idx(m, pfn, &idx))
		return ret;
	b = pb_of(m, idx);
	if (b->flags & PB_GUESS)
		jset8(m, &b->flags, b->flags | PB_ABSENT);
	return 0;
}

void model_count_guessed_pageblocks(const struct model *m, unsigned int zone, uint64_t out[8])
{
	uint32_t p;
	int t;

	memset(out, 0, 8 * sizeof(*out));
	for (p = 0; p < m->nr_pb; p++) {
		const struct pblock *b = &m->pb[p];

		if (b->zone != zone || !(b->flags & PB_GUESS) ||
		    b->cnt[MODEL_PBC_HOLE] + b->cnt[MODEL_PBC_UNINIT] >= (1u << m->pb_order))
			continue;
		t = model_imt_to_trace(m, pb_eff_mt(b));
		if (t >= 0 && t < 8)
			out[t]++;
	}
}

bool model_pageblock_guessed(const struct model *m, uint64_t pfn)
{
	uint32_t idx;

	return pfn_to_idx(m, pfn, &idx) && (pb_of(m, idx)->flags & PB_GUESS);
}

uint64_t model_guess_fixes(const struct model *m)
{
	return m->guess_fixes;
}

int model_fit_guessed_pageblocks(struct model *m, unsigned int zone, const int64_t want[8],
				 const int64_t want_free[8])
{
	uint64_t cur[8];
	int64_t free_diff[8] = { 0 };
	bool free_known[8] = { false };
	int n = 0, t, u, ret = model_broken(m);

	if (ret)
		return ret;
	if (zone >= m->nr_zones)
		return -BC_E_INVAL;
	model_count_pageblocks(m, zone, cur);
	if (want_free) {
		struct model_zone_stats zs;

		model_zone_stats(m, zone, &zs);
		for (t = 0; t < 8; t++)
			if (want_free[t] >= 0) {
				free_diff[t] = want_free[t] - (int64_t)zs.nr_free[m->pb_order][t];
				free_known[t] = true;
			}
	}
	for (t = 0; t < 8; t++) {
		int it = model_imt_from_trace(m, t);

		if (it < 0 || !imt_mergeable(it))
			continue;
		for (u = 0; u < 8 && (int64_t)cur[t] > want[t]; u++) {
			int iu = model_imt_from_trace(m, u);

			if (u == t || iu < 0 || !imt_mergeable(iu))
				continue;
			while ((int64_t)cur[t] > want[t] && (int64_t)cur[u] < want[u]) {
				/*
				 * A whole free pageblock moves one free block of its order from
				 * t's list to u's: re-type one when pagetypeinfo's free counts
				 * at that order ask for exactly that, and none when they agree;
				 * without those counts, by evidence alone.
				 */
				int wf = !free_known[t] || !free_known[u] ? 0 :
					 free_diff[t] < 0 && free_diff[u] > 0 ? 1 : -1;
				uint32_t p = weakest_guess(m, zone, it, iu, UINT32_MAX, wf);

				if (p == UINT32_MAX)
					p = weakest_guess(m, zone, it, iu, UINT32_MAX, 0);
				if (p == UINT32_MAX)
					break;
				if (pb_whole_free(m, p)) {
					free_diff[t]++;
					free_diff[u]--;
				}
				ret = model_retype_block(m, p, iu);
				if (ret)
					return ret;
				jset8(m, &m->pb[p].flags, m->pb[p].flags | PB_GUESS);
				cur[t]--;
				cur[u]++;
				n++;
				jset64(m, &m->guess_fixes, m->guess_fixes + 1);
			}
		}
	}
	/*
	 * The counts agree and the free lists of pageblock order do not: a whole free
	 * pageblock guessed t where pagetypeinfo has one fewer of t and one more of u
	 * there. It takes u, and the guessed u block not free most likely of t takes t,
	 * so the counts stay.
	 */
	for (t = 0; t < 8; t++) {
		int it = model_imt_from_trace(m, t);

		if (it < 0 || !imt_mergeable(it) || !free_known[t])
			continue;
		for (u = 0; u < 8 && free_diff[t] < 0; u++) {
			int iu = model_imt_from_trace(m, u);

			if (u == t || iu < 0 || !imt_mergeable(iu) || !free_known[u])
				continue;
			while (free_diff[t] < 0 && free_diff[u] > 0) {
				uint32_t p = weakest_guess(m, zone, it, iu, UINT32_MAX, 1);
				uint32_t q = p == UINT32_MAX ? UINT32_MAX :
					     weakest_guess(m, zone, iu, it, p, -1);

				if (q == UINT32_MAX)
					break;
				ret = model_retype_block(m, p, iu);
				if (!ret)
					ret = model_retype_block(m, q, it);
				if (ret)
					return ret;
				jset8(m, &m->pb[p].flags, m->pb[p].flags | PB_GUESS);
				jset8(m, &m->pb[q].flags, m->pb[q].flags | PB_GUESS);
				free_diff[t]++;
				free_diff[u]--;
				n += 2;
				jset64(m, &m->guess_fixes, m->guess_fixes + 2);
			}
		}
	}
	return n;
}
