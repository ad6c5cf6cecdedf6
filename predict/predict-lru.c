// SPDX-License-Identifier: GPL-2.0
/*
 * predict-lru: user pages waiting in a per-cpu LRU batch (lru_add), off the LRU. A
 * snapshot shows them (anonymous or mapped, in use, no LRU flag); no tracepoint does.
 * has_unmovable_pages() takes them as unmovable and alloc_contig_range() isolates
 * before lru_cache_disable() drains the batches, so they stop a mainline attempt until
 * an event settles the page, a real attempt migrates (drains), or a hypothetical one
 * of the same question gets past isolation. A bit per pfn in pr_ctx.lru_pending.
 */
#include <stdlib.h>
#include <string.h>

#include "common/kpageflags.h"
#include "db/tdb.h"
#include "db/tdb-pages.h"
#include "db/tdb-snap.h"
#include "model/model.h"
#include "predict/predict-local.h"

/* Forget the LRU-batch pages in [pfn, pfn + n): an event settled them. */
void pr_lru_settle(struct pr_ctx *c, uint64_t pfn, uint64_t n)
{
	uint64_t p;

	if (!c->nr_lru_pending)
		return;
	for (p = pfn; p < pfn + n; p++) {
		uint64_t i;

		if (!pr_in_span(c, p))
			continue;
		i = p - c->base;
		if (c->lru_pending[i / 64] & (1ull << (i % 64))) {
			c->lru_pending[i / 64] &= ~(1ull << (i % 64));
			c->nr_lru_pending--;
		}
	}
}

void pr_lru_drain_all(struct pr_ctx *c)
{
	if (!c->nr_lru_pending)
		return;
	memset(c->lru_pending, 0, (c->span + 63) / 64 * sizeof(*c->lru_pending));
	c->nr_lru_pending = 0;
	pr_touch_all(c);
}

/* The first LRU-batch page in [s, e) while the batches are not drained, or UINT64_MAX. */
uint64_t pr_lru_pending_in(const struct pr_ctx *c, uint64_t s, uint64_t e)
{
	uint64_t p;

	if (!c->nr_lru_pending || c->lru_drained)
		return UINT64_MAX;
	for (p = s; p < e; p++) {
		uint64_t i = p - c->base, w;

		if (!pr_in_span(c, p))
			continue;
		w = c->lru_pending[i / 64] >> (i % 64);
		if (!w) {
			p += 63 - i % 64;	/* the rest of this word is clear */
			continue;
		}
		return p + (uint64_t)__builtin_ctzll(w);
	}
	return UINT64_MAX;
}

/*
 * What a snapshot says beyond page kinds (those replay's resync takes over): which
 * user pages wait in per-cpu LRU batches, off the LRU, at that moment.
 */

/* Anonymous or mapped, in use, not on the LRU and nothing else: a page in an LRU batch. */
static bool lru_batch_flags(uint64_t f, uint64_t mapcount)
{
	const uint64_t other = KPF_BIT(KPF_LRU) | KPF_BIT(KPF_SLAB) | KPF_BIT(KPF_BUDDY) |
			       KPF_BIT(KPF_COMPOUND_HEAD) | KPF_BIT(KPF_COMPOUND_TAIL) |
			       KPF_BIT(KPF_HUGE) | KPF_BIT(KPF_NOPAGE) | KPF_BIT(KPF_THP) |
			       KPF_BIT(KPF_OFFLINE) | KPF_BIT(KPF_ZERO_PAGE) |
			       KPF_BIT(KPF_PGTABLE) | KPF_BIT(KPF_RESERVED);

	return !(f & other) && ((f & KPF_BIT(KPF_ANON)) || (mapcount && (f & KPF_BIT(KPF_MMAP))));
}

static uint64_t mark_lru_batch(struct pr_ctx *c, uint64_t pfn, uint64_t npfns,
			       uint64_t snap_seq)
{
	struct model_pfn_info pi;
	uint64_t p, n = 0;

	for (p = pfn; p < pfn + npfns; p++) {
		uint64_t i = p - c->base;

		if (!pr_in_span(c, p) || model_pfn_info(c->m, p, &pi) || pi.state != MODEL_PFN_ALLOC)
			continue;
		if (!pi.seeded && pr_alloc_seq_at(c, pi.head) > snap_seq)
			continue;	/* allocated after the snapshot began */
		if (c->lru_pending[i / 64] & (1ull << (i % 64)))
			continue;
		c->lru_pending[i / 64] |= 1ull << (i % 64);
		c->nr_lru_pending++;
		n++;
	}
	return n;
}

uint64_t pr_mark_lru_batch(struct pr_ctx *c, uint64_t pfn, uint64_t npfns, uint64_t snap_seq)
{
	uint64_t n = mark_lru_batch(c, pfn, npfns, snap_seq);

	if (n)
		pr_touch_all(c);
	return n;
}

int pr_refresh_lru_batches(struct pr_ctx *c, int64_t snap)
{
	struct tdb_page_run run;
	struct tdb_snap_runs *it;
	struct tdb_snap_info si;
	uint64_t changed = 0, snap_seq = 0;
	int ret;

	if (!c->db)
		return 0;
	if (!tdb_snap_get(c->db, snap, &si) && si.seq_begin >= 0)
		snap_seq = (uint64_t)si.seq_begin;
	ret = tdb_snap_runs_open(c->db, snap, c->base, c->base + c->span, &it);
	if (ret)
		return ret;
	if (c->nr_lru_pending)
		changed++;
	memset(c->lru_pending, 0, (c->span + 63) / 64 * sizeof(*c->lru_pending));
	c->nr_lru_pending = 0;
	/* (kinds themselves are refreshed by replay's resync, rp_resync()) */
	while ((ret = tdb_snap_runs_next(it, &run)) == 1)
		if (lru_batch_flags(run.flags, run.count))
			changed += mark_lru_batch(c, run.pfn, run.npfns, snap_seq);
	tdb_snap_runs_close(it);
	if (changed)
		pr_touch_all(c);
	return ret < 0 ? ret : 0;
}
