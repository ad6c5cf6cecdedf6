// SPDX-License-Identifier: GPL-2.0
/*
 * recount.c - model_recount(): recompute every incremental counter and list from the
 * per-pfn words and compare (the model's integrity check; it reports and never
 * aborts). Checked:
 *   - pageblock counters against a scan of the words;
 *   - every free head: a valid node, aligned, tails of the right tag, inside its zone;
 *   - every list: links consistent both ways, count, each entry's node matching the
 *     list (order, type, cpu), the entry a head of the right tag;
 *   - heads on lists == heads in the map == pool nodes in use;
 *   - zone free pages per type, pcp pages per cpu, pageblocks per effective type;
 *   - free-list hygiene: a buddy block's list is its pageblocks' effective type;
 *   - no two free buddies of the same order below pageblock order left unmerged
 *     outside isolated blocks (__free_one_page() always merges there).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/model-local.h"

struct rc {
	char *buf;
	size_t len, used;
	long bad;
	/* recounted, per zone */
	uint32_t (*free_pages)[NR_IMT];	/* buddy pages per list type */
	uint32_t (*nr_pb)[NR_IMT];	/* pageblocks per effective type */
	uint32_t *pcp_cpu;		/* [zone * nr_cpus + cpu] pcp pages */
	uint32_t *pcp_zone;		/* pcp pages */
	uint64_t heads;			/* free heads in the map */
	uint64_t listed;		/* free heads on lists */
};

static void __attribute__((format(printf, 2, 3))) bad(struct rc *rc, const char *fmt, ...)
{
	va_list ap;
	int n;

	rc->bad++;
	if (!rc->buf || rc->used + 1 >= rc->len || rc->bad > 64)
		return;
	va_start(ap, fmt);
	n = vsnprintf(rc->buf + rc->used, rc->len - rc->used, fmt, ap);
	va_end(ap);
	if (n > 0) {
		rc->used += (size_t)n;
		if (rc->used >= rc->len)
			rc->used = rc->len - 1;
	}
	if (rc->used + 1 < rc->len) {
		rc->buf[rc->used++] = '\n';
		rc->buf[rc->used] = 0;
	}
}

static unsigned int pindex(unsigned int order, int mt)
{
	if (order < PCP_LOW_ORDERS)
		return order * 3 + (unsigned int)mt;
	return PCP_LOW_ORDERS * 3 + (mt == IMT_MOVABLE);
}

static void check_list(const struct model *m, struct rc *rc, const struct mzone *z,
		       const struct flist *fl, uint32_t want_info, const char *what,
		       uint64_t *heads_seen)
{
	uint32_t idx = fl->head, prev = NIL, count = 0;
	unsigned int tag = (want_info & FN_PCP) ? WT_PCP : WT_BUDDY;

	while (idx != NIL) {
		uint32_t w;
		const struct fnode *nd;

		if (idx >= m->span || idx < z->istart || idx >= z->iend) {
			bad(rc, "%s: entry index %#x outside the zone", what, idx);
			return;
		}
		w = m->words[idx];
		if (wtag(w) != tag) {
			bad(rc, "%s: pfn %#llx on the list is not a free head (tag %u)", what,
			    (unsigned long long)idx_to_pfn(m, idx), wtag(w));
			return;
		}
		if ((w & W_PAYLOAD) >= m->pool_top) {
			bad(rc, "%s: pfn %#llx node out of range", what,
			    (unsigned long long)idx_to_pfn(m, idx));
			return;
		}
		nd = node_of(m, w & W_PAYLOAD);
		if (nd->info != want_info)
			bad(rc, "%s: pfn %#llx node info %#x, list wants %#x", what,
			    (unsigned long long)idx_to_pfn(m, idx), nd->info, want_info);
		if (nd->prev != prev)
			bad(rc, "%s: pfn %#llx prev link %#x, expected %#x", what,
			    (unsigned long long)idx_to_pfn(m, idx), nd->prev, prev);
		prev = idx;
		idx = nd->next;
		if (++count > m->span) {
			bad(rc, "%s: cycle", what);
			return;
		}
	}
	if (fl->tail != prev)
		bad(rc, "%s: tail %#x, last entry %#x", what, fl->tail, prev);
	if (fl->count != count)
		bad(rc, "%s: count %u, walked %u", what, fl->count, count);
	*heads_seen += count;
}

/* Pageblock counters against a scan of the words; zone pageblock counts. */
static void recount_pageblocks(const struct model *m, struct rc *rc)
{
	uint32_t pbn = 1u << m->pb_order, i, b;
	uint16_t cnt[MODEL_NR_PBC];

	for (b = 0; b < m->nr_pb; b++) {
		const struct pblock *pb = &m->pb[b];
		int k;

		memset(cnt, 0, sizeof(cnt));
		for (i = b * pbn; i < (b + 1) * pbn && i < m->span; i++) {
			uint32_t w = m->words[i], j, n;

			cnt[model_word_cat(w)]++;
			if (wtag(w) != WT_PCP || (w & W_PAYLOAD) >= m->pool_top)
				continue;
			/* the tails of a pcp block are free words counted as pcp */
			n = 1u << (node_of(m, w & W_PAYLOAD)->info & FN_ORDER_MASK);
			for (j = i + 1; j < i + n && j < (b + 1) * pbn; j++) {
				enum model_pb_counter c = model_word_cat(m->words[j]);

				cnt[c == MODEL_PBC_FREE ? MODEL_PBC_PCP : c]++;
			}
			i = j - 1;
		}
		for (k = 0; k < MODEL_NR_PBC; k++)
			if (cnt[k] != pb->cnt[k])
				bad(rc, "pageblock %#llx: %s counter %u, recount %u",
				    (unsigned long long)idx_to_pfn(m, b * pbn),
				    model_pb_counter_name(k), pb->cnt[k], cnt[k]);
		if (pb->zone != PB_NOZONE && cnt[MODEL_PBC_HOLE] < pbn)
			rc->nr_pb[pb->zone][pb_eff_mt(pb)]++;
	}
}

/* A buddy block at @i: counted, on its pageblocks' list (hygiene), merged. */
static void check_buddy(const struct model *m, struct rc *rc, uint32_t i, int z,
			const struct fnode *nd)
{
	uint32_t w = m->words[i], pbn = 1u << m->pb_order, j;
	unsigned int order = nd->info & FN_ORDER_MASK;
	uint32_t n = 1u << order;
	int mt = (nd->info >> FN_MT_SHIFT) & 7;

	if (mt < NR_IMT)
		rc->free_pages[z][mt] += n;
	/* free-list hygiene (v6.10+); before, a merge keeps the buddy's pageblock type */
	for (j = i; m->prof.freelist_hygiene && j < i + n; j += pbn)
		if (pb_eff_mt(pb_of(m, j)) != mt) {
			bad(rc, "pfn %#llx: order-%u block on list %d, pageblock "
			    "%#llx type %d", (unsigned long long)idx_to_pfn(m, i),
			    order, mt, (unsigned long long)idx_to_pfn(m, j),
			    pb_eff_mt(pb_of(m, j)));
			break;
		}
	/* unmerged buddies */
	if (order < m->pb_order && !(pb_of(m, i)->flags & PB_ISOLATE)) {
		uint32_t bud = i ^ n, bw = m->words[bud];

		if (bud > i && wtag(bw) == WT_BUDDY &&
		    (w & W_PAYLOAD) < m->pool_top &&
		    (node_of(m, bw & W_PAYLOAD)->info & FN_ORDER_MASK) == order)
			bad(rc, "pfn %#llx: free order-%u buddies not merged",
			    (unsigned long long)idx_to_pfn(m, i), order);
	}
}

/* The free head at @i (a valid node, aligned, its tails). Return: the next index. */
static uint32_t check_free_head(const struct model *m, struct rc *rc, uint32_t i)
{
	uint32_t w = m->words[i], n, k;
	unsigned int tag = wtag(w), order;
	const struct fnode *nd;
	int z;

	rc->heads++;
	if ((w & W_PAYLOAD) >= m->pool_top) {
		bad(rc, "pfn %#llx: node %#x out of range",
		    (unsigned long long)idx_to_pfn(m, i), w & W_PAYLOAD);
		return i + 1;
	}
	nd = node_of(m, w & W_PAYLOAD);
	order = nd->info & FN_ORDER_MASK;
	n = 1u << order;
	z = model_idx_zone(m, i);
	if (order > m->max_order || (i & (n - 1)) || z < 0 || i + n > m->zones[z].iend) {
		bad(rc, "pfn %#llx: bad free block order %u",
		    (unsigned long long)idx_to_pfn(m, i), order);
		return i + 1;
	}
	if (!!(nd->info & FN_PCP) != (tag == WT_PCP))
		bad(rc, "pfn %#llx: node pcp flag disagrees with the tag",
		    (unsigned long long)idx_to_pfn(m, i));
	for (k = 1; k < n; k++)
		if (wtag(m->words[i + k]) != WT_FREE_TAIL) {
			bad(rc, "pfn %#llx: page %u of the free block has tag %u",
			    (unsigned long long)idx_to_pfn(m, i), k, wtag(m->words[i + k]));
			break;
		}
	if (tag == WT_PCP) {
		unsigned int cpu = nd->info >> FN_CPU_SHIFT;

		if (cpu < m->nr_cpus)
			rc->pcp_cpu[(unsigned int)z * m->nr_cpus + cpu] += n;
		rc->pcp_zone[z] += n;
	} else {
		check_buddy(m, rc, i, z, nd);
	}
	return i + n;
}

/* Free heads and their blocks. */
static void recount_free_blocks(const struct model *m, struct rc *rc)
{
	uint32_t i = 0;

	while (i < m->span) {
		unsigned int tag = wtag(m->words[i]);

		if (tag == WT_FREE_TAIL) {
			bad(rc, "pfn %#llx: free tail without a head",
			    (unsigned long long)idx_to_pfn(m, i));
			i++;
		} else if (tag != WT_BUDDY && tag != WT_PCP) {
			i++;
		} else {
			i = check_free_head(m, rc, i);
		}
	}
}

/* The pcp lists of @cpu in zone @zi, and its pcp count. */
static void check_pcp_lists(const struct model *m, struct rc *rc, unsigned int zi,
			    unsigned int c)
{
	const struct mzone *z = &m->zones[zi];
	unsigned int o, t;
	char what[96];

	for (o = 0; o <= m->pb_order; o++) {
		if (!model_pcp_allowed(m, o))
			continue;
		for (t = 0; t < 3; t++) {
			unsigned int pi = pindex(o, (int)t);

			/* the two THP lists hold NON-MOVABLE as type 0 and 2 alike */
			if (o >= PCP_LOW_ORDERS && t == IMT_RECLAIMABLE)
				continue;
			snprintf(what, sizeof(what), "zone %u cpu %u pcp order %u mt %u",
				 zi, c, o, t);
			check_list(m, rc, z, &z->pcp[c * NR_PCP_LISTS + pi],
				   o | (t << FN_MT_SHIFT) | FN_PCP | (c << FN_CPU_SHIFT), what,
				   &rc->listed);
		}
	}
	if (z->pcp_count[c] != rc->pcp_cpu[zi * m->nr_cpus + c])
		bad(rc, "zone %u cpu %u: pcp count %u, recount %u", zi, c, z->pcp_count[c],
		    rc->pcp_cpu[zi * m->nr_cpus + c]);
}

/* Zone @zi's lists and counts against the recount. */
static void check_zone(const struct model *m, struct rc *rc, unsigned int zi)
{
	const struct mzone *z = &m->zones[zi];
	unsigned int o, t, c;
	uint64_t sum;
	char what[96];

	for (o = 0; o < m->nr_orders; o++)
		for (t = 0; t < NR_IMT; t++) {
			snprintf(what, sizeof(what), "zone %u free list order %u mt %u", zi, o, t);
			check_list(m, rc, z, &z->free[o * NR_IMT + t], o | (t << FN_MT_SHIFT),
				   what, &rc->listed);
		}
	for (c = 0; c < m->nr_cpus; c++)
		check_pcp_lists(m, rc, zi, c);
	if (z->pcp_pages != rc->pcp_zone[zi])
		bad(rc, "zone %u: pcp pages %u, recount %u", zi, z->pcp_pages, rc->pcp_zone[zi]);
	for (t = 0, sum = 0; t < IMT_ISOLATE; t++)
		sum += rc->free_pages[zi][t];
	if (z->nr_free != sum)
		bad(rc, "zone %u: NR_FREE_PAGES %u, recount %llu", zi, z->nr_free,
		    (unsigned long long)sum);
	for (t = 0; t < NR_IMT; t++) {
		if (z->free_pages[t] != rc->free_pages[zi][t])
			bad(rc, "zone %u: free pages mt %u: %u, recount %u", zi, t,
			    z->free_pages[t], rc->free_pages[zi][t]);
		if (z->nr_pb[t] != rc->nr_pb[zi][t])
			bad(rc, "zone %u: pageblocks mt %u: %u, recount %u", zi, t,
			    z->nr_pb[t], rc->nr_pb[zi][t]);
	}
}

long model_recount(const struct model *m, char *buf, size_t len)
{
	struct rc rc = { .buf = buf, .len = len };
	unsigned int zi;

	if (buf && len)
		buf[0] = 0;
	rc.free_pages = calloc(m->nr_zones, sizeof(*rc.free_pages));
	rc.nr_pb = calloc(m->nr_zones, sizeof(*rc.nr_pb));
	rc.pcp_cpu = calloc((size_t)m->nr_zones * m->nr_cpus, sizeof(*rc.pcp_cpu));
	rc.pcp_zone = calloc(m->nr_zones, sizeof(*rc.pcp_zone));
	if (!rc.free_pages || !rc.nr_pb || !rc.pcp_cpu || !rc.pcp_zone) {
		bad(&rc, "recount: out of memory");
		goto out;
	}
	recount_pageblocks(m, &rc);
	recount_free_blocks(m, &rc);
	for (zi = 0; zi < m->nr_zones; zi++)
		check_zone(m, &rc, zi);
	if (rc.listed != rc.heads)
		bad(&rc, "free heads in the map %llu, on lists %llu",
		    (unsigned long long)rc.heads, (unsigned long long)rc.listed);
	if (m->pool_used != rc.heads)
		bad(&rc, "pool nodes in use %u, free heads %llu", m->pool_used,
		    (unsigned long long)rc.heads);
out:
	free(rc.free_pages);
	free(rc.nr_pb);
	free(rc.pcp_cpu);
	free(rc.pcp_zone);
	return rc.bad;
}
