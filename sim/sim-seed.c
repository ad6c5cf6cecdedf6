// SPDX-License-Identifier: GPL-2.0
/* sim-seed: the snapshot's pcp lists from the trace (sim-seed.h). */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/grow.h"
#include "common/kpageflags.h"
#include "common/u64set.h"
#include "db/tdb-snap.h"
#include "db/tdb-pages.h"
#include "db/tdb.h"
#include "model/decide.h"
#include "model/model.h"
#include "sim/sim-ahead.h"
#include "sim/sim-seed.h"
#include "trace/tr-event.h"

/* last[pfn] of sim_seed_pcp_behind(): a free's cpu + 1 and order, 0 when none */
#define LAST_ORDER_BITS	5

/*
 * A pcp candidate: a block of the seed's unknown pages (flags 0, not settled since), or
 * a block a fallback took off the buddy in the seed's read window whose allocation
 * no event showed (pending, MODEL_GFP_PENDING): rmqueue_bulk() put it on a pcp list
 * (6.10+ traces no zone_locked for a fallback's block). @order: the event's.
 */
static bool seed_pcp_candidate(const struct model *m, uint64_t pfn, unsigned int order)
{
	struct model_pfn_info pi;

	if (model_pfn_info(m, pfn, &pi) || pi.state != MODEL_PFN_ALLOC)
		return false;
	if (pi.seeded)
		return pi.kind == MODEL_KIND_UNKNOWN;
	return pi.gfp_class == MODEL_GFP_PENDING && pi.head == pfn && pi.order == order;
}

/*
 * The list of a drained page: the drainer's while the zoneinfo count of its list
 * leaves room after what allocations name, else the cpu with the most room left.
 */
static int drain_owner(int64_t *room, unsigned int nr_cpus, int cpu, uint64_t pages,
		       const bool *empty)
{
	unsigned int c, best = UINT_MAX;

	if (cpu >= 0 && (unsigned int)cpu < nr_cpus && room[cpu] >= (int64_t)pages &&
	    !empty[cpu])
		return cpu;
	for (c = 0; c < nr_cpus; c++)
		if (!empty[c] && (best == UINT_MAX || room[c] > room[best]))
			best = c;
	return best != UINT_MAX && room[best] > 0 ? (int)best : cpu;
}

/* First refill of each pcp list after the seed: [zone][cpu][order][mt], seq or UINT64_MAX. */
#define REFILL_ORDERS	16
#define REFILL_MTS	8

static uint64_t *refill_at(uint64_t *refill, unsigned int nr_cpus, int z, int cpu,
			   unsigned int order, int mt)
{
	if (!refill || cpu < 0 || (unsigned int)cpu >= nr_cpus || order >= REFILL_ORDERS ||
	    mt < 0 || mt >= REFILL_MTS)
		return NULL;
	return &refill[(((size_t)z * nr_cpus + (unsigned int)cpu) * REFILL_ORDERS + order) *
		       REFILL_MTS + (unsigned int)mt];
}

/*
 * Whose lists a drain burst emptied. drain_all_pages() drains every cpu's lists from the
 * calling cpu (__drain_all_pages(): drain_pages_zone() of each cpu with pcp pages, in
 * cpu order), each a whole pcp->count in calls of at most batch << 5 pages, each call
 * from pindex 0 up (free_pcppages_bulk() takes the lists round-robin). So in a run of
 * one cpu's mm_page_pcpu_drain events of one zone (no other event of that cpu between)
 * a call that came back to a lower list after fewer than batch << 5 pages, and not after
 * a decay's batch (decay_pcp_high() drains batch at a time, from pindex 0 too), then
 * took a list at or above the one the call before began with (a single call wraps
 * round only below its first list), was another cpu's. A run that shows as many
 * cpus' calls as the zone has cpus names each block's cpu; others name none.
 */
#define DRAIN_SCALE	5		/* CONFIG_PCP_BATCH_SCALE_MAX */

struct drain_hint {
	uint64_t seq;
	int cpu;			/* the run's call: its cpu once the run ended */
};

struct drain_call {
	unsigned int first, high;	/* its first and highest pindex */
	uint64_t pages;
	size_t hint;			/* its first event in the run's seqs */
};

struct drain_run {
	bool on, decay, after_vmstat;	/* a decay's (vmstat_update() came just before) */
	int zone;
	unsigned int last;		/* the last event's pindex */
	struct drain_call *calls;
	size_t nr_calls, cap_calls;
	uint64_t *seqs;			/* its events */
	size_t nr_seqs, cap_seqs;
};

struct drain_bursts {
	struct drain_hint *hints;	/* the named runs' events, sorted by seq at the end */
	size_t nr, cap, next;
	struct drain_run *runs;		/* by drainer cpu: runs of cpus interleave */
	unsigned int nr_cpus;
};

/* @b came back to a lower list than @a ended at: another cpu's lists, or @a's again? */
static bool other_cpu(const struct drain_call *a, const struct drain_call *b, uint64_t batch)
{
	return a->pages != batch && a->pages < batch << DRAIN_SCALE && b->high >= a->first;
}

/* The end of @r: when it names each event's cpu, its events join the hints. */
static int run_end(struct drain_bursts *B, struct drain_run *r, struct model *m)
{
	struct model_zone_limits l;
	unsigned int cpus = 1;
	size_t i, k;
	int ret;

	if (!r->on)
		return 0;
	r->on = false;
	if (r->decay || r->nr_calls < 2 ||
	    model_get_zone_limits(m, (unsigned int)r->zone, &l) || !l.pcp_batch)
		return 0;
	for (i = 1; i < r->nr_calls; i++)
		cpus += other_cpu(&r->calls[i - 1], &r->calls[i], l.pcp_batch);
	if (cpus < 2 || cpus != B->nr_cpus)
		return 0;
	for (cpus = 0, i = 0; i < r->nr_calls; i++) {
		const struct drain_call *b = &r->calls[i];
		size_t end = i + 1 < r->nr_calls ? r->calls[i + 1].hint : r->nr_seqs;

		cpus += i && other_cpu(&r->calls[i - 1], b, l.pcp_batch);
		for (k = b->hint; k < end; k++) {
			ret = bc_grow(&B->hints, B->nr, &B->cap, sizeof(*B->hints), 1024,
				      "simulate");
			if (ret)
				return ret;
			B->hints[B->nr++] = (struct drain_hint){ r->seqs[k], (int)cpus };
		}
	}
	return 0;
}

static int hint_cmp(const void *a, const void *b)
{
	const struct drain_hint *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* An event of the first pass: a drain joins its cpu's run; another ends that run. */
static int bursts_event(struct drain_bursts *B, struct model *m, const struct tr_event *ev,
			unsigned int pbo)
{
	struct drain_run *r;
	struct drain_call *c;
	int zone, p, ret;

	if (ev->cpu < 0 || (unsigned int)ev->cpu >= B->nr_cpus)
		return 0;
	r = &B->runs[ev->cpu];
	if (ev->kind != TR_EV_PCPU_DRAIN) {
		ret = run_end(B, r, m);
		r->after_vmstat = ev->kind == TR_EV_VMSTAT_UPDATE;
		return ret;
	}
	zone = model_pfn_zone(m, ev->pfn);
	p = sim_pcp_pindex(ev->order, ev->mt, pbo);
	if (zone < 0 || p < 0)
		return run_end(B, r, m);
	if (r->on && r->zone != zone && (ret = run_end(B, r, m)))
		return ret;
	if (!r->on) {
		r->on = true;
		r->decay = r->after_vmstat;
		r->zone = zone;
		r->last = (unsigned int)p;
		r->nr_calls = r->nr_seqs = 0;
	}
	if (!r->nr_calls || (unsigned int)p < r->last) {
		ret = bc_grow(&r->calls, r->nr_calls, &r->cap_calls, sizeof(*r->calls), 8,
			      "simulate");
		if (ret)
			return ret;
		r->calls[r->nr_calls++] = (struct drain_call){ (unsigned int)p, (unsigned int)p, 0,
							       r->nr_seqs };
	}
	c = &r->calls[r->nr_calls - 1];
	c->pages += 1ull << ev->order;
	if ((unsigned int)p > c->high)
		c->high = (unsigned int)p;
	r->last = (unsigned int)p;
	ret = bc_grow(&r->seqs, r->nr_seqs, &r->cap_seqs, sizeof(*r->seqs), 256, "simulate");
	if (!ret)
		r->seqs[r->nr_seqs++] = ev->seq;
	return ret;
}

/* The cpu a run named for drain event @seq (asked in seq order), -1 none. */
static int bursts_owner(struct drain_bursts *B, uint64_t seq)
{
	while (B->next < B->nr && B->hints[B->next].seq < seq)
		B->next++;
	return B->next < B->nr && B->hints[B->next].seq == seq ? B->hints[B->next].cpu : -1;
}

/*
 * One pass over [from, to): @room == NULL: the pages allocations name per zone and cpu
 * are taken off @quota; else the blocks are seeded. Only an event that first names a
 * pfn counts.
 */
static int seed_pass(struct tdb *db, const struct tr_decoder *dec, struct model *m,
		     uint64_t from, uint64_t to, int64_t *quota, uint64_t *refill,
		     struct drain_bursts *B, bool seed, uint64_t *nr)
{
	const struct model_layout *L = model_get_layout(m);
	uint64_t end = model_pfn_end(m);
	uint64_t *seen = calloc(end / 64 + 1, sizeof(*seen));
	bool *empty = calloc(L->nr_cpus + 1, sizeof(*empty));
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	int ret, z, cpu;

	if (!seen || !empty) {
		free(seen);
		free(empty);
		return bc_error(BC_E_NOMEM, "out of memory");
	}
	ret = tdb_cursor_open(db, from, to, &cur);
	if (ret) {
		free(seen);
		free(empty);
		return ret;
	}
	while ((ret = tdb_cursor_next(cur, &raw)) == 1) {
		uint64_t bit, pages, *r;

		tr_decode(dec, &raw, &ev);
		if (!seed && B && (ret = bursts_event(B, m, &ev, L->pageblock_order)))
			break;
		if (ev.kind == TR_EV_OTHER || ev.pfn >= end)
			continue;
		/* rmqueue_bulk() refills a list only when it is empty (__rmqueue_pcplist()) */
		if (!seed && ev.kind == TR_EV_ZONE_LOCKED && (z = model_pfn_zone(m, ev.pfn)) >= 0 &&
		    model_zone_locked_refill(m, ev.order, ev.mt, ev.percpu_refill) &&
		    (r = refill_at(refill, L->nr_cpus, z, ev.cpu, ev.order, ev.mt)) &&
		    *r == UINT64_MAX)
			*r = ev.seq;
		bit = 1ull << (ev.pfn % 64);
		if (seen[ev.pfn / 64] & bit)
			continue;
		seen[ev.pfn / 64] |= bit;
		/* only a first alloc or drain says "pcp page" */
		if ((ev.kind != TR_EV_PAGE_ALLOC && ev.kind != TR_EV_PCPU_DRAIN) ||
		    ev.order > 20 || !seed_pcp_candidate(m, ev.pfn, ev.order) ||
		    (z = model_pfn_zone(m, ev.pfn)) < 0)
			continue;
		pages = 1ull << ev.order;
		cpu = ev.cpu;
		/* a drain_all_pages() run named the list (the first pass found the runs) */
		if (ev.kind == TR_EV_PCPU_DRAIN && quota &&
		    (!seed || !B || (cpu = bursts_owner(B, ev.seq)) < 0)) {
			unsigned int c;

			/* a list the kernel refilled before this drain did not hold the page */
			for (c = 0; c < L->nr_cpus; c++) {
				r = refill_at(refill, L->nr_cpus, z, (int)c, ev.order, ev.mt);
				empty[c] = r && *r < ev.seq;
			}
			cpu = drain_owner(&quota[(unsigned int)z * L->nr_cpus], L->nr_cpus, ev.cpu,
					  pages, empty);
		}
		if (!seed) {
			if (ev.kind == TR_EV_PAGE_ALLOC && quota && cpu >= 0 &&
			    (unsigned int)cpu < L->nr_cpus)
				quota[(unsigned int)z * L->nr_cpus + (unsigned int)cpu] -=
					(int64_t)pages;
			continue;
		}
		ret = model_seed_pcp(m, ev.pfn, ev.order, ev.mt, cpu);
		if (ret == -BC_E_INVAL || ret == 1) {
			ret = 0;
			continue;
		}
		if (ret)
			break;
		if (ev.kind == TR_EV_PCPU_DRAIN && quota && cpu >= 0 &&
		    (unsigned int)cpu < L->nr_cpus)
			quota[(unsigned int)z * L->nr_cpus + (unsigned int)cpu] -= (int64_t)pages;
		(*nr)++;
	}
	tdb_cursor_close(cur);
	free(seen);
	free(empty);
	return ret < 0 ? ret : 0;
}

int sim_seed_pcp(struct tdb *db, const struct tr_decoder *dec, struct model *m,
		 uint64_t seq_from, uint64_t seq_to, const uint32_t *counts, uint64_t *nr)
{
	const struct model_layout *L = model_get_layout(m);
	size_t n = (size_t)L->nr_zones * L->nr_cpus, i;
	size_t nr_refill = (n ? n : 1) * REFILL_ORDERS * REFILL_MTS;
	struct drain_bursts B = { .nr_cpus = L->nr_cpus };
	uint64_t *refill = NULL;
	int64_t *quota = NULL;
	unsigned int c;
	int ret;

	*nr = 0;
	if (counts) {
		quota = calloc(n ? n : 1, sizeof(*quota));
		refill = malloc(nr_refill * sizeof(*refill));
		B.runs = calloc(L->nr_cpus ? L->nr_cpus : 1, sizeof(*B.runs));
		if (!quota || !refill || !B.runs) {
			free(quota);
			free(refill);
			free(B.runs);
			return bc_error(BC_E_NOMEM, "out of memory");
		}
		for (i = 0; i < n; i++)
			quota[i] = counts[i];
		for (i = 0; i < nr_refill; i++)
			refill[i] = UINT64_MAX;
	}
	ret = counts ? seed_pass(db, dec, m, seq_from, seq_to, quota, refill, &B, false, nr) : 0;
	for (c = 0; !ret && B.runs && c < B.nr_cpus; c++)
		ret = run_end(&B, &B.runs[c], m);
	if (B.nr)
		qsort(B.hints, B.nr, sizeof(*B.hints), hint_cmp);
	B.next = 0;
	if (!ret)
		ret = seed_pass(db, dec, m, seq_from, seq_to, quota, refill,
				counts ? &B : NULL, true, nr);
	for (c = 0; B.runs && c < B.nr_cpus; c++) {
		free(B.runs[c].calls);
		free(B.runs[c].seqs);
	}
	free(B.runs);
	free(B.hints);
	free(quota);
	free(refill);
	return ret;
}

/* Did an untraced allocation take the page @ev (a free, a refill) put on its list? */
static bool was_taken(const struct sim_taken *t, const struct tr_event *ev)
{
	if (!t)
		return false;
	return ev->kind == TR_EV_PAGE_FREE ? u64set_has(t->frees, t->nr_frees, ev->seq) :
	       u64set_has(t->refills, t->nr_refills, ev->seq);
}

/*
 * The last events' frees: their cpu and order per pfn (see sim-seed.h); and in @amt the
 * migratetype + 1 of the allocation each page's last event made, 0 when none.
 */
static int last_frees(struct tdb *db, const struct tr_decoder *dec, uint64_t end,
		      uint64_t seq_to, const struct sim_taken *taken, uint16_t *last,
		      uint8_t *amt)
{
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	int ret = tdb_cursor_open(db, 0, seq_to, &cur);

	if (ret)
		return ret;
	while ((ret = tdb_cursor_next(cur, &raw)) == 1) {
		uint64_t n;

		tr_decode(dec, &raw, &ev);
		if (ev.pfn >= end || ev.kind == TR_EV_OTHER || ev.kind >= TR_EV_MIGRATE_START)
			continue;
		n = ev.order < 32 ? 1ull << ev.order : 1;
		if (n > end - ev.pfn)
			n = end - ev.pfn;
		memset(amt + ev.pfn, ev.kind == TR_EV_PAGE_ALLOC && ev.mt >= 0 && ev.mt < 8 ?
		       ev.mt + 1 : 0, n);
		if (ev.kind == TR_EV_FREE_BATCHED)
			continue;
		last[ev.pfn] = (ev.kind == TR_EV_PAGE_FREE || ev.kind == TR_EV_ZONE_LOCKED) &&
			       ev.cpu >= 0 && ev.cpu < 2047 &&
			       ev.order < (1u << LAST_ORDER_BITS) && !was_taken(taken, &ev) ?
			       (uint16_t)((unsigned int)(ev.cpu + 1) << LAST_ORDER_BITS | ev.order) : 0;
	}
	tdb_cursor_close(cur);
	return ret;
}

int sim_seed_pcp_behind(struct tdb *db, const struct tr_decoder *dec, struct model *m,
			uint64_t seq_to, const struct sim_taken *taken, uint64_t *nr,
			uint64_t *nr_typed)
{
	uint64_t end = model_pfn_end(m), pfn;
	uint16_t *last = calloc(end + 1, sizeof(*last));
	uint8_t *amt = calloc(end + 1, 1);
	int ret, stored, eff;
	bool iso;

	*nr = 0;
	*nr_typed = 0;
	if (!last || !amt) {
		free(last);
		free(amt);
		return bc_error(BC_E_NOMEM, "out of memory");
	}
	ret = last_frees(db, dec, end, seq_to, taken, last, amt);
	for (pfn = 0; !ret && pfn < end; pfn++) {
		if (!last[pfn] || model_pageblock_mt(m, pfn, &stored, &eff, &iso))
			continue;
		ret = model_seed_pcp(m, pfn, last[pfn] & ((1u << LAST_ORDER_BITS) - 1), eff,
				     (last[pfn] >> LAST_ORDER_BITS) - 1);
		if (ret == -BC_E_INVAL || ret == 1) {
			ret = 0;
			continue;
		}
		*nr += !ret;
	}
	/* the pages still unknown that the trace saw allocated: their request's type */
	for (pfn = 0; !ret && pfn < end; pfn++) {
		if (!amt[pfn])
			continue;
		ret = model_seed_alloc_mt(m, pfn, amt[pfn] - 1);
		if (ret == -BC_E_INVAL || ret == 1) {
			ret = 0;
			continue;
		}
		*nr_typed += !ret;
	}
	free(last);
	free(amt);
	return ret < 0 ? ret : 0;
}

/* Every pfn an event of [from, to) names (an event's block: its order's pages): a bit each. */
static int named_pfns(struct tdb *db, const struct tr_decoder *dec, uint64_t end,
		      uint64_t from, uint64_t to, uint64_t *named)
{
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	int ret = tdb_cursor_open(db, from, to, &cur);

	if (ret)
		return ret;
	while ((ret = tdb_cursor_next(cur, &raw)) == 1) {
		uint64_t p, last;

		tr_decode(dec, &raw, &ev);
		if (ev.kind == TR_EV_TEST_ISOLATED || ev.kind == TR_EV_ISOLATE_FREE ||
		    ev.kind == TR_EV_ISOLATE_MIGRATE) {
			/*
			 * Free pages taken without a page event: alloc_contig_range() and
			 * offline_pages() (their test_pages_isolated() range), compaction's
			 * free scanner (its window)
			 */
			if (ev.end_pfn <= ev.start_pfn || ev.start_pfn >= end)
				continue;
			p = ev.start_pfn;
			last = (ev.end_pfn < end ? ev.end_pfn : end) - 1;
		} else if (ev.kind == TR_EV_OTHER || ev.pfn >= end) {
			continue;
		} else {
			p = ev.pfn;
			last = ev.order < 32 ? ev.pfn + (1ull << ev.order) - 1 : ev.pfn;
		}
		if (last >= end)
			last = end - 1;
		for (; p <= last; p++)
			named[p / 64] |= 1ull << (p % 64);
	}
	tdb_cursor_close(cur);
	return ret < 0 ? ret : 0;
}

/* Snapshot @other's flags, one stored row (TDB_PAGE_CHUNK pfns) at a time. */
struct snap_rows {
	const struct tdb_snap_info *snap;
	uint64_t base, n;		/* the row held: [base, base + n) */
	uint64_t *flags;
};

/* Does snapshot @r->snap read @pfn PageBuddy? 1 yes, 0 no, or a negative bc_err. */
static int reads_buddy(struct tdb *db, struct snap_rows *r, uint64_t pfn)
{
	int ret;

	if (pfn >= r->snap->nr_pfns)
		return 0;
	if (pfn < r->base || pfn - r->base >= r->n) {
		r->base = pfn / TDB_PAGE_CHUNK * TDB_PAGE_CHUNK;
		r->n = r->snap->nr_pfns - r->base < TDB_PAGE_CHUNK ?
		       r->snap->nr_pfns - r->base : TDB_PAGE_CHUNK;
		ret = tdb_snap_pages_read(db, r->snap->id, r->base, r->n, r->flags, NULL);
		if (ret) {
			r->n = 0;
			return ret;
		}
	}
	return (r->flags[pfn - r->base] & (KPF_BIT(KPF_BUDDY) | KPF_BIT(KPF_NOPAGE))) ==
	       KPF_BIT(KPF_BUDDY);
}

int sim_seed_reported(struct tdb *db, const struct tr_decoder *dec, struct model *m,
		      const struct tdb_snap_info *other, uint64_t seq_from, uint64_t seq_to,
		      uint64_t *nr)
{
	const struct model_layout *L = model_get_layout(m);
	struct snap_rows rows = { .snap = other };
	uint64_t end = model_pfn_end(m), *named, q;
	unsigned int zi;
	int ret;

	*nr = 0;
	named = calloc(end / 64 + 1, sizeof(*named));
	rows.flags = calloc(TDB_PAGE_CHUNK, sizeof(*rows.flags));
	if (!named || !rows.flags) {
		ret = bc_error(BC_E_NOMEM, "out of memory");
		goto out;
	}
	ret = named_pfns(db, dec, end, seq_from, seq_to, named);
	for (zi = 0; !ret && zi < L->nr_zones; zi++) {
		const struct model_zone_layout *zl = &L->zones[zi];

		for (q = zl->start_pfn; !ret && q < zl->start_pfn + zl->spanned; q++) {
			struct model_pfn_info pi;

			if (model_pfn_info(m, q, &pi))
				continue;
			if (pi.state != MODEL_PFN_ALLOC || !pi.seeded ||
			    pi.kind != MODEL_KIND_UNKNOWN) {
				/* the rest of a free block or an allocation: no seeded page */
				if (pi.state != MODEL_PFN_HOLE && pi.state != MODEL_PFN_UNINIT &&
				    pi.head <= q && pi.order < 32 &&
				    pi.head + (1ull << pi.order) - 1 > q)
					q = pi.head + (1ull << pi.order) - 1;
				continue;
			}
			if (named[q / 64] & (1ull << (q % 64)))
				continue;
			ret = reads_buddy(db, &rows, q);
			if (ret <= 0)
				continue;
			ret = model_seed_putback(m, q, 0);
			if (ret == 1)
				ret = 0;
			else
				*nr += !ret;
		}
	}
out:
	free(named);
	free(rows.flags);
	return ret < 0 ? ret : 0;
}

int sim_seed_free_order(struct tdb *db, const struct tr_decoder *dec, struct model *m,
			uint64_t seq_from, uint64_t seq_to, uint64_t *nr)
{
	uint64_t end = model_pfn_end(m), *seen, *takes = NULL, nt = 0;
	size_t cap = 0;
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	int ret;

	*nr = 0;
	seen = calloc(end / 64 + 1, sizeof(*seen));
	if (!seen)
		return bc_error(BC_E_NOMEM, "out of memory");
	ret = tdb_cursor_open(db, seq_from, seq_to, &cur);
	if (ret) {
		free(seen);
		return ret;
	}
	while ((ret = tdb_cursor_next(cur, &raw)) == 1) {
		uint64_t bit;

		tr_decode(dec, &raw, &ev);
		if (ev.kind == TR_EV_OTHER || ev.pfn >= end)
			continue;
		bit = 1ull << (ev.pfn % 64);
		if (seen[ev.pfn / 64] & bit)
			continue;
		seen[ev.pfn / 64] |= bit;
		/* first named by a take off the buddy: rmqueue_bulk(), rmqueue_buddy(), a fallback */
		if (ev.kind != TR_EV_ZONE_LOCKED && ev.kind != TR_EV_EXTFRAG)
			continue;
		ret = bc_grow(&takes, nt, &cap, sizeof(*takes), 1024, "simulate");
		if (ret)
			break;
		takes[nt++] = ev.pfn;
	}
	tdb_cursor_close(cur);
	/* from the last take to the first: the first block taken ends at its list's head */
	while (ret >= 0 && nt-- > 0) {
		ret = model_seed_free_move(m, takes[nt], false);
		*nr += !ret;
	}
	free(seen);
	free(takes);
	return ret < 0 ? ret : 0;
}

/* Blocks of one take that the kernel's free lists did not hold (see absent_blocks()). */
#define ABSENT_MAX	8
#define LIST_MAX	4096
/*
 * Free page reporting (page_reporting_cycle()) holds blocks of pageblock order and up
 * off the free lists while it reports them, a batch of PAGE_REPORTING_CAPACITY at a
 * time, for as long as the device takes to answer (milliseconds); a reported block
 * stays PageReported and is not held again until it merges. Such a block missing
 * from a take is a wrong type only when a take a second later misses it too.
 */
#define HELD_MAX	64
#define HELD_NS		1000000000ull

struct types_pass {
	struct model *m;
	unsigned int pbo;
	uint64_t *done;			/* pageblocks whose type an event told */
	uint64_t *touched;		/* pfns an event named since the seed */
	uint64_t *list;			/* LIST_MAX pfns: a free list walked */
	uint64_t nr, nr_absent;
	unsigned int report_order;	/* reporting may hold blocks of this order up */
	struct held {			/* such blocks seen absent once */
		uint64_t pfn, ts;
		int mt;
		bool confirmed;		/* ... and again a second later */
	} held[HELD_MAX];
	int nr_held;
};

/*
 * The order from which free page reporting may hold blocks off the lists, as snapshot
 * @snap read it (file page_reporting): UINT_MAX when no device reports (a kernel
 * without it, or the parameter's unset value: no device registered); pageblock order
 * when the snapshot did not look (the order a device asks by default).
 */
static int report_order(struct tdb *db, int64_t snap, const struct model *m, unsigned int *out)
{
	const struct model_layout *L = model_get_layout(m);
	char *text, *end;
	long long v;
	int ret = tdb_snap_file(db, snap, "page_reporting", &text);

	*out = L->pageblock_order;
	if (ret || !text)
		return ret;
	v = strtoll(text, &end, 10);
	if (!strncmp(text, "none", 4))
		*out = UINT_MAX;
	else if (end != text)	/* 6.12 prints its unset -1 signed, 6.1 its MAX_ORDER */
		*out = v < 0 || v > L->max_page_order ? UINT_MAX : (unsigned int)v;
	free(text);
	return 0;
}


struct pending_take {
	struct tr_event ev;		/* a zone_locked its extfrag may follow; pfn ~0: none */
	uint64_t absent[ABSENT_MAX];
	int nr_absent;
};

/* An event named [@pfn, +2^@order): those pages are no longer the seed's. */
static void touch(struct types_pass *p, uint64_t pfn, unsigned int order, uint64_t end)
{
	uint64_t q, last = order < 40 ? pfn + (1ull << order) : pfn + 1;

	for (q = pfn; q < last && q < end; q++)
		p->touched[q / 64] |= 1ull << (q % 64);
}

/* Did an event name a page of the aligned block [@pfn, +2^@order) since the seed? */
static bool touched(const struct types_pass *p, uint64_t pfn, unsigned int order)
{
	uint64_t q = pfn & ~((1ull << order) - 1), last = q + (1ull << order);

	for (; q < last; q++)
		if (p->touched[q / 64] >> (q % 64) & 1)
			return true;
	return false;
}

/*
 * Did @pfn's order-@order block stay that block since the seed? It did when no event
 * named it and its buddy holds a page in use at the seed that no event named (never
 * freed: the buddy was never wholly free, so the block never merged).
 */
static bool stayed(const struct types_pass *p, uint64_t pfn, unsigned int order)
{
	uint64_t q = pfn ^ (1ull << order), last = q + (1ull << order);
	struct model_pfn_info pi;

	if (touched(p, pfn, order))
		return false;
	for (; q < last; q++)
		if (!(p->touched[q / 64] >> (q % 64) & 1) && !model_pfn_info(p->m, q, &pi) &&
		    pi.state == MODEL_PFN_ALLOC)
			return true;
	return false;
}

/* A pageblock-order block missing from @ev's take: absent when it was a second ago. */
static bool held_long(struct types_pass *p, uint64_t pfn, const struct tr_event *ev)
{
	int i;

	for (i = 0; i < p->nr_held; i++)
		if (p->held[i].pfn == pfn && p->held[i].mt == ev->mt) {
			if (ev->ts >= p->held[i].ts + HELD_NS)
				p->held[i].confirmed = true;
			return p->held[i].confirmed;
		}
	if (p->nr_held < HELD_MAX)
		p->held[p->nr_held++] = (struct held){ pfn, ev->ts, ev->mt, false };
	return false;
}

/*
 * __rmqueue_smallest() takes the head of the smallest order that has a free block of
 * the type asked for. A take (@ev, mm_page_alloc_zone_locked) of a seed block of order
 * k, untouched since the seed (or merged into a larger one: the same), for an order-r
 * request says that list was empty at the orders r..k-1 then. A seed block still on
 * one of them that cannot have left it (no event named its aligned order-k
 * neighbourhood, or it stayed() as it was) was not there in the kernel: its
 * pageblock's type is not the one guessed; at pageblock order and up only when a
 * take a second later misses it too (held_long(): free page reporting).
 * Return: the blocks found (at most ABSENT_MAX, in @out), 0 when the take shows none
 * (or when more than that are, or a list is longer than LIST_MAX: the seed is off
 * there in another way).
 */
static int absent_blocks(struct types_pass *p, const struct tr_event *ev, uint64_t *out)
{
	uint64_t *list = p->list;
	struct model_pfn_info pi;
	unsigned int j;
	int z, n = 0;

	if (ev->mt < 0 || ev->mt > 2 || model_pfn_info(p->m, ev->pfn, &pi) ||
	    pi.state != MODEL_PFN_BUDDY || pi.mt != ev->mt || pi.order <= ev->order ||
	    touched(p, pi.head, pi.order) || (z = model_pfn_zone(p->m, ev->pfn)) < 0)
		return 0;
	for (j = ev->order; j < pi.order; j++) {
		long len = model_free_list(p->m, (unsigned int)z, j, ev->mt, list, LIST_MAX), i;

		if (len > LIST_MAX)
			return 0;
		for (i = 0; i < len; i++) {
			if (touched(p, list[i], pi.order) && !stayed(p, list[i], j))
				continue;
			if (j >= p->report_order && !held_long(p, list[i], ev))
				continue;
			if (n == ABSENT_MAX)
				return 0;
			out[n++] = list[i];
		}
	}
	return n;
}

/*
 * A block the kernel's list of type @mt did not hold: its pageblock takes the other
 * type most likely to hold a free block of its order (the most such blocks in the
 * zone). No other guessed block takes @mt in exchange (model_seed_pageblock_type()):
 * nothing names one, and a blind pick put blocks on lists the kernel's did not have
 * (anon.db: Normal order 0 off by 5.1% instead of 0).
 */
static int learn_absent(struct types_pass *p, uint64_t pfn, int mt)
{
	struct model_zone_stats zs;
	struct model_pfn_info pi;
	int z = model_pfn_zone(p->m, pfn), t, best = -1, ret;

	if (z < 0 || model_pfn_info(p->m, pfn, &pi) || pi.state != MODEL_PFN_BUDDY ||
	    pi.mt != mt || !model_pageblock_guessed(p->m, pfn) ||
	    model_zone_stats(p->m, (unsigned int)z, &zs))
		return 0;
	for (t = 0; t <= 2; t++)
		if (t != mt && (best < 0 || zs.nr_free[pi.order][t] > zs.nr_free[pi.order][best]))
			best = t;
	ret = model_seed_pageblock_type(p->m, pfn, best);
	p->nr_absent += ret == 0;
	/* still an inference: the first event naming the block tells it (learn_type()) */
	if (!ret)
		ret = model_mark_pageblock_absent(p->m, pfn);
	return ret < 0 ? ret : 0;
}

/* The first event that names @pfn's pageblock tells its type at the seed (@mt < 0: no). */
static int learn_type(struct types_pass *p, uint64_t pfn, int mt)
{
	uint64_t pb = pfn >> p->pbo, bit = 1ull << (pb % 64);
	int ret;

	if (p->done[pb / 64] & bit)
		return 0;
	p->done[pb / 64] |= bit;
	if (mt < 0)
		return 0;
	ret = model_seed_drain_type(p->m, pfn, mt);
	p->nr += ret > 0;
	return ret < 0 ? ret : 0;
}

/* A fallback: the fallback block's pageblocks were of its type before (a claim re-types). */
static int learn_fallback(struct types_pass *p, const struct tr_event *ev, uint64_t end)
{
	unsigned int o = ev->fallback_order > p->pbo ? ev->fallback_order : p->pbo;
	uint64_t q, first = ev->pfn & ~((1ull << o) - 1);
	int ret = 0;

	for (q = first; !ret && o < 32 && q < first + (1ull << o) && q < end; q += 1ull << p->pbo)
		ret = learn_type(p, q, ev->fallback_mt);
	return ret;
}

int sim_seed_types(struct tdb *db, const struct tr_decoder *dec, struct model *m, int64_t snap,
		   uint64_t read_from, uint64_t seq_from, uint64_t seq_to, uint64_t *nr,
		   uint64_t *nr_held)
{
	const struct model_layout *L = model_get_layout(m);
	unsigned int nr_cpus = L->nr_cpus ? L->nr_cpus : 1;
	struct types_pass p = { .m = m, .pbo = L->pageblock_order };
	uint64_t end = model_pfn_end(m), words = (end >> p.pbo) / 64 + 1;
	struct pending_take *pending;	/* per cpu */
	struct tdb_cursor *cur = NULL;
	struct bc_event raw;
	struct tr_event ev;
	struct { uint64_t pfn; int mt; } *hits = NULL;	/* pcp hits while the seed was read */
	size_t nr_hits = 0, cap_hits = 0;
	unsigned int c;
	int ret, k;

	*nr = 0;
	ret = report_order(db, snap, m, &p.report_order);
	if (ret)
		return ret;
	p.done = calloc(words, sizeof(*p.done));
	p.touched = calloc(end / 64 + 1, sizeof(*p.touched));
	p.list = malloc(LIST_MAX * sizeof(*p.list));
	pending = calloc(nr_cpus, sizeof(*pending));
	if (!p.done || !p.touched || !p.list || !pending) {
		free(p.done);
		free(p.touched);
		free(p.list);
		free(pending);
		return bc_error(BC_E_NOMEM, "out of memory");
	}
	for (c = 0; c < nr_cpus; c++)
		pending[c].ev.pfn = UINT64_MAX;
	ret = tdb_cursor_open(db, read_from < seq_from ? read_from : seq_from, seq_to, &cur);
	while (!ret && (ret = tdb_cursor_next(cur, &raw)) == 1) {
		struct pending_take *pd;

		ret = 0;
		tr_decode(dec, &raw, &ev);
		if (ev.kind == TR_EV_OTHER || ev.pfn >= end)
			continue;
		if (ev.seq < seq_from) {
			ret = ev.kind == TR_EV_PAGE_ALLOC && ev.order < 4 ?
			      bc_grow(&hits, nr_hits, &cap_hits, sizeof(*hits), 256, "simulate") : 0;
			if (!ret && ev.kind == TR_EV_PAGE_ALLOC && ev.order < 4) {
				hits[nr_hits].pfn = ev.pfn;
				hits[nr_hits++].mt = ev.mt;
			}
			continue;
		}
		pd = &pending[ev.cpu >= 0 && (unsigned int)ev.cpu < nr_cpus ? ev.cpu : 0];
		if (pd->ev.pfn != UINT64_MAX) {
			/*
			 * try_to_claim_block() re-types the block, then __rmqueue_smallest()
			 * takes it by the new type: its extfrag names the type it had, and
			 * the lists the claim passed over say nothing
			 */
			if (ev.kind != TR_EV_EXTFRAG || (ev.pfn ^ pd->ev.pfn) >> p.pbo) {
				ret = learn_type(&p, pd->ev.pfn, pd->ev.mt);
				for (k = 0; !ret && k < pd->nr_absent; k++)
					ret = learn_absent(&p, pd->absent[k], pd->ev.mt);
			}
			pd->ev.pfn = UINT64_MAX;
		}
		if (ret)
			break;
		switch (ev.kind) {
		case TR_EV_ZONE_LOCKED:
			pd->ev = ev;
			pd->nr_absent = absent_blocks(&p, &ev, pd->absent);
			break;
		case TR_EV_EXTFRAG:
			ret = learn_fallback(&p, &ev, end);
			break;
		case TR_EV_PCPU_DRAIN:
			ret = learn_type(&p, ev.pfn, ev.mt);
			break;
		case TR_EV_PAGE_ALLOC:
			/* a pcp hit: its list is its block's type (the THP lists are not by type) */
			if (ev.order < 4)
				ret = learn_type(&p, ev.pfn, ev.mt);
			break;
		default:
			break;
		}
		touch(&p, ev.pfn, ev.kind == TR_EV_EXTFRAG ?
		      (ev.fallback_order > p.pbo ? ev.fallback_order : p.pbo) : ev.order, end);
	}
	for (c = 0; ret >= 0 && c < nr_cpus; c++) {
		if (pending[c].ev.pfn == UINT64_MAX)
			continue;
		ret = learn_type(&p, pending[c].ev.pfn, pending[c].ev.mt);
		for (k = 0; ret >= 0 && k < pending[c].nr_absent; k++)
			ret = learn_absent(&p, pending[c].absent[k], pending[c].ev.mt);
	}
	/*
	 * then the pcp hits while the seed was read, for blocks no later event names, the
	 * latest first (a page listed before its block changed type names the old one)
	 */
	while (ret >= 0 && nr_hits-- > 0)
		ret = learn_type(&p, hits[nr_hits].pfn, hits[nr_hits].mt);
	free(hits);
	if (cur)
		tdb_cursor_close(cur);
	*nr = p.nr + p.nr_absent;
	if (nr_held)
		for (*nr_held = 0, k = 0; k < p.nr_held; k++)
			*nr_held += !p.held[k].confirmed;
	free(p.done);
	free(p.touched);
	free(p.list);
	free(pending);
	return ret < 0 ? ret : 0;
}

/* A block on a seed pcp list: where it stands, and the first event after the seed naming it. */
struct seed_blk {
	uint64_t pfn;
	uint32_t list;			/* index of its list in the walk (struct seed_lists) */
	uint32_t pos;			/* its place there, from the head */
	uint64_t seq;			/* the first event naming it; 0: none */
	int cpu, mt;
	enum tr_event_kind kind;
};

static int blk_pfn_cmp(const void *a, const void *b)
{
	const struct seed_blk *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/* A pcp list: (zone, cpu, order, mt); above the low orders the unmovable types share one. */
struct list_id {
	unsigned int zone, cpu, order;
	int mt;
};

/* Every block on the model's pcp lists, by list: *@lists, *@blk (list order). */
static int walk_lists(struct model *m, struct list_id **lists, size_t *nl,
		      struct seed_blk **blk, size_t *nb)
{
	const struct model_layout *L = model_get_layout(m);
	size_t cl = 0, cb = 0;
	uint64_t *pfns = NULL;
	unsigned int z, cpu, order;
	int ret = 0, mt;

	*lists = NULL;
	*blk = NULL;
	*nl = *nb = 0;
	for (z = 0; !ret && z < L->nr_zones; z++)
		for (cpu = 0; !ret && cpu < L->nr_cpus; cpu++)
			for (order = 0; !ret && order < REFILL_ORDERS; order++)
				for (mt = 0; !ret && mt < 3; mt++) {
					long n;

					if (order > 3 && mt == 2)
						continue;
					n = model_pcp_list(m, z, cpu, order, mt, NULL, 0);
					if (n <= 0)
						continue;
					free(pfns);
					pfns = malloc((size_t)n * sizeof(*pfns));
					ret = pfns ? bc_grow(lists, *nl, &cl, sizeof(**lists), 16,
							     "simulate") :
						     bc_error(BC_E_NOMEM, "out of memory");
					if (ret)
						break;
					n = model_pcp_list(m, z, cpu, order, mt, pfns, (unsigned int)n);
					(*lists)[*nl] = (struct list_id){ z, cpu, order, mt };
					for (long p = 0; !ret && p < n; p++) {
						ret = bc_grow(blk, *nb, &cb, sizeof(**blk), 1024,
							      "simulate");
						if (!ret)
							(*blk)[(*nb)++] = (struct seed_blk){
								.pfn = pfns[p], .list = (uint32_t)*nl,
								.pos = (uint32_t)p, .kind = TR_EV_OTHER };
					}
					(*nl)++;
				}
	free(pfns);
	return ret;
}

/*
 * Where a block goes on its list (smaller first): the ones the kernel hands out from
 * this cpu's list next, in that order (rmqueue_pcplist() takes the head); then those no
 * event names, as they stand; then the drained ones, the first drained last
 * (free_pcppages_bulk() takes the tail).
 */
static void blk_key(const struct seed_blk *b, int cpu, uint64_t *k1, uint64_t *k2)
{
	if (b->seq && b->kind == TR_EV_PAGE_ALLOC && b->cpu == cpu) {
		*k1 = 0;
		*k2 = b->seq;
	} else if (b->seq && b->kind == TR_EV_PCPU_DRAIN) {
		*k1 = 2;
		*k2 = UINT64_MAX - b->seq;
	} else {
		*k1 = 1;
		*k2 = b->pos;
	}
}

struct list_key {
	const struct seed_blk *b;
	uint64_t k1, k2;
};

static int list_key_cmp(const void *a, const void *b)
{
	const struct list_key *x = a, *y = b;

	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

/* One list, given its blocks in list order: put in key order when it is not. */
static int order_list(struct model *m, struct seed_blk *const *lb, size_t n, int cpu,
		      uint64_t *moved)
{
	struct list_key *k;
	bool sorted = true;
	size_t i;
	int ret = 0;

	if (n < 2)
		return 0;
	k = malloc(n * sizeof(*k));
	if (!k)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		k[i].b = lb[i];
		blk_key(lb[i], cpu, &k[i].k1, &k[i].k2);
		if (i && list_key_cmp(&k[i - 1], &k[i]) > 0)
			sorted = false;
	}
	if (!sorted) {
		qsort(k, n, sizeof(*k), list_key_cmp);
		for (i = 0; !ret && i < n; i++)
			ret = model_seed_pcp_move(m, k[i].b->pfn) < 0 ? -BC_E_NOMEM : 0;
		if (!ret)
			(*moved)++;
	}
	free(k);
	return ret;
}

/* The first event after @seq_from naming each of @blk (sorted by pfn), until all are. */
static int first_events(struct tdb *db, const struct tr_decoder *dec, uint64_t seq_from,
			struct seed_blk *blk, size_t nb)
{
	struct tdb_cursor *cur = NULL;
	struct bc_event raw;
	struct tr_event ev;
	size_t named = 0;
	int ret = nb ? tdb_cursor_open(db, seq_from, UINT64_MAX, &cur) : 0;

	while (!ret && nb && named < nb && (ret = tdb_cursor_next(cur, &raw)) == 1) {
		struct seed_blk key, *b;

		ret = 0;
		tr_decode(dec, &raw, &ev);
		if (ev.kind == TR_EV_OTHER || ev.pfn == UINT64_MAX)
			continue;
		key.pfn = ev.pfn;
		b = bsearch(&key, blk, nb, sizeof(*blk), blk_pfn_cmp);
		if (!b || b->seq)
			continue;
		b->seq = ev.seq;
		b->cpu = ev.cpu;
		b->mt = ev.mt;
		b->kind = ev.kind;
		named++;
	}
	if (cur)
		tdb_cursor_close(cur);
	return ret < 0 ? ret : 0;
}

int sim_seed_pcp_order(struct tdb *db, const struct tr_decoder *dec, struct model *m,
		       uint64_t seq_from, uint64_t *nr, uint64_t *nr_relisted)
{
	struct seed_blk *blk = NULL, *now = NULL, **byl = NULL;
	struct list_id *lists = NULL;
	size_t nb = 0, nl = 0, nn = 0, i, j;
	size_t *start = NULL;
	int ret;

	*nr = *nr_relisted = 0;
	ret = walk_lists(m, &lists, &nl, &blk, &nb);
	if (!ret && nb)
		qsort(blk, nb, sizeof(*blk), blk_pfn_cmp);
	if (!ret)
		ret = first_events(db, dec, seq_from, blk, nb);
	/*
	 * A low-order block this cpu's allocation of another migratetype takes first lay
	 * on that type's list: the list a free files a page on is its pageblock's type
	 * then, which the seed guessed (a later correction moves the buddy's pages only).
	 */
	for (i = 0; !ret && i < nb; i++) {
		const struct list_id *li = &lists[blk[i].list];

		if (blk[i].kind != TR_EV_PAGE_ALLOC || blk[i].cpu != (int)li->cpu ||
		    li->order > 3 || blk[i].mt == li->mt || blk[i].mt < 0 || blk[i].mt > 2)
			continue;
		ret = model_seed_pcp_relist(m, blk[i].pfn, blk[i].mt);
		if (ret == 1)
			ret = 0;
		else if (!ret)
			(*nr_relisted)++;
	}
	/* the lists as they stand now, each block with its first event */
	free(lists);
	lists = NULL;
	if (!ret)
		ret = walk_lists(m, &lists, &nl, &now, &nn);
	for (i = 0; !ret && i < nn; i++) {
		struct seed_blk *b = bsearch(&now[i], blk, nb, sizeof(*blk), blk_pfn_cmp);

		if (b) {
			now[i].seq = b->seq;
			now[i].cpu = b->cpu;
			now[i].mt = b->mt;
			now[i].kind = b->kind;
		}
	}
	if (!ret && nn) {
		byl = malloc(nn * sizeof(*byl));
		start = calloc(nl + 1, sizeof(*start));
		if (!byl || !start)
			ret = bc_error(BC_E_NOMEM, "out of memory");
	}
	for (i = 0; !ret && i < nn; i++)
		start[now[i].list + 1]++;
	for (i = 0; !ret && nn && i < nl; i++)
		start[i + 1] += start[i];
	for (i = 0; !ret && i < nn; i++)
		byl[start[now[i].list] + now[i].pos] = &now[i];
	for (i = 0; !ret && nn && i < nl; i++) {
		j = start[i];
		ret = order_list(m, byl + j, start[i + 1] - j, (int)lists[i].cpu, nr);
	}
	free(start);
	free(byl);
	free(now);
	free(blk);
	free(lists);
	return ret < 0 ? ret : 0;
}
