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

long model_recount(const struct model *m, char *buf, size_t len)
{
	struct rc rc = { buf, len, 0, 0 };
	uint32_t pbn = 1u << m->pb_order, i, b;
	uint64_t heads = 0, listed = 0;
	uint32_t (*free_pages)[NR_IMT], *pcp_cpu, (*nr_pb)[NR_IMT], *pcp_zone;
	uint16_t cnt[MODEL_NR_PBC];
	unsigned int zi, o, t, c;
	char what[96];

	if (buf && len)
		buf[0] = 0;
	free_pages = calloc(m->nr_zones, sizeof(*free_pages));
	nr_pb = calloc(m->nr_zones, sizeof(*nr_pb));
	pcp_cpu = calloc((size_t)m->nr_zones * m->nr_cpus, sizeof(*pcp_cpu));
	pcp_zone = calloc(m->nr_zones, sizeof(*pcp_zone));
	if (!free_pages || !nr_pb || !pcp_cpu || !pcp_zone) {
		bad(&rc, "recount: out of memory");
		goto out;
	}

	/* Pageblock counters and zone pageblock counts. */
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
				bad(&rc, "pageblock %#llx: %s counter %u, recount %u",
				    (unsigned long long)idx_to_pfn(m, b * pbn),
				    model_pb_counter_name(k), pb->cnt[k], cnt[k]);
		if (pb->zone != PB_NOZONE && cnt[MODEL_PBC_HOLE] < pbn)
			nr_pb[pb->zone][pb_eff_mt(pb)]++;
	}

	/* Free heads and their blocks. */
	i = 0;
	while (i < m->span) {
		uint32_t w = m->words[i], n, k, j;
		unsigned int tag = wtag(w), order;
		const struct fnode *nd;
		int z;

		if (tag == WT_FREE_TAIL) {
			bad(&rc, "pfn %#llx: free tail without a head",
			    (unsigned long long)idx_to_pfn(m, i));
			i++;
			continue;
		}
		if (tag != WT_BUDDY && tag != WT_PCP) {
			i++;
			continue;
		}
		heads++;
		if ((w & W_PAYLOAD) >= m->pool_top) {
			bad(&rc, "pfn %#llx: node %#x out of range",
			    (unsigned long long)idx_to_pfn(m, i), w & W_PAYLOAD);
			i++;
			continue;
		}
		nd = node_of(m, w & W_PAYLOAD);
		order = nd->info & FN_ORDER_MASK;
		n = 1u << order;
		z = model_idx_zone(m, i);
		if (order > m->max_order || (i & (n - 1)) || z < 0 ||
		    i + n > m->zones[z].iend) {
			bad(&rc, "pfn %#llx: bad free block order %u",
			    (unsigned long long)idx_to_pfn(m, i), order);
			i++;
			continue;
		}
		if (!!(nd->info & FN_PCP) != (tag == WT_PCP))
			bad(&rc, "pfn %#llx: node pcp flag disagrees with the tag",
			    (unsigned long long)idx_to_pfn(m, i));
		for (k = 1; k < n; k++)
			if (wtag(m->words[i + k]) != WT_FREE_TAIL) {
				bad(&rc, "pfn %#llx: page %u of the free block has tag %u",
				    (unsigned long long)idx_to_pfn(m, i), k,
				    wtag(m->words[i + k]));
				break;
			}
		if (tag == WT_PCP) {
			unsigned int cpu = nd->info >> FN_CPU_SHIFT;

			if (cpu < m->nr_cpus)
				pcp_cpu[(unsigned int)z * m->nr_cpus + cpu] += n;
			pcp_zone[z] += n;
		} else {
			int mt = (nd->info >> FN_MT_SHIFT) & 7;

			if (mt < NR_IMT)
				free_pages[z][mt] += n;
			/* free-list hygiene (v6.10+) */
			for (j = i; j < i + n; j += pbn)
				if (pb_eff_mt(pb_of(m, j)) != mt) {
					bad(&rc, "pfn %#llx: order-%u block on list %d, pageblock "
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
					bad(&rc, "pfn %#llx: free order-%u buddies not merged",
					    (unsigned long long)idx_to_pfn(m, i), order);
			}
		}
		i += n;
	}

	/* Lists. */
	for (zi = 0; zi < m->nr_zones; zi++) {
		const struct mzone *z = &m->zones[zi];

		for (o = 0; o < m->nr_orders; o++)
			for (t = 0; t < NR_IMT; t++) {
				snprintf(what, sizeof(what), "zone %u free list order %u mt %u",
					 zi, o, t);
				check_list(m, &rc, z, &z->free[o * NR_IMT + t],
					   o | (t << FN_MT_SHIFT), what, &listed);
			}
		for (c = 0; c < m->nr_cpus; c++) {
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
					check_list(m, &rc, z, &z->pcp[c * NR_PCP_LISTS + pi],
						   o | (t << FN_MT_SHIFT) | FN_PCP |
						   (c << FN_CPU_SHIFT), what, &listed);
				}
			}
			if (z->pcp_count[c] != pcp_cpu[zi * m->nr_cpus + c])
				bad(&rc, "zone %u cpu %u: pcp count %u, recount %u", zi, c,
				    z->pcp_count[c], pcp_cpu[zi * m->nr_cpus + c]);
		}
		if (z->pcp_pages != pcp_zone[zi])
			bad(&rc, "zone %u: pcp pages %u, recount %u", zi, z->pcp_pages,
			    pcp_zone[zi]);
		for (t = 0; t < NR_IMT; t++) {
			if (z->free_pages[t] != free_pages[zi][t])
				bad(&rc, "zone %u: free pages mt %u: %u, recount %u", zi, t,
				    z->free_pages[t], free_pages[zi][t]);
			if (z->nr_pb[t] != nr_pb[zi][t])
				bad(&rc, "zone %u: pageblocks mt %u: %u, recount %u", zi, t,
				    z->nr_pb[t], nr_pb[zi][t]);
		}
	}
	if (listed != heads)
		bad(&rc, "free heads in the map %llu, on lists %llu",
		    (unsigned long long)heads, (unsigned long long)listed);
	if (m->pool_used != heads)
		bad(&rc, "pool nodes in use %u, free heads %llu", m->pool_used,
		    (unsigned long long)heads);
out:
	free(free_pages);
	free(nr_pb);
	free(pcp_cpu);
	free(pcp_zone);
	return rc.bad;
}
