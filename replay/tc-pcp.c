// SPDX-License-Identifier: GPL-2.0
/* tc-pcp: the model's pcp sizing asked along the kernel's events (tc-pcp.h). */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/u64set.h"
#include "common/grow.h"
#include "db/tdb.h"
#include "model/decide.h"
#include "model/model.h"
#include "replay/tc-pcp.h"
#include "trace/tr-event.h"

/*
 * mm_page_free events a batch commits later, found in the first pass: a batch frees a
 * folio_batch (31) or, before v6.10, a whole list (an mmu_gather batch: up to 510
 * pages) between its two events; a cpu's last RING frees are looked at, from the
 * oldest not matched yet (a batch commits in the order it prepared).
 */
#define RING	1024

struct ring {
	uint64_t seq[RING], pfn[RING];
	unsigned int next, from;	/* the next slot written; the oldest to look at */
	uint64_t written;		/* frees written in all */
	uint64_t from_n;		/* ... of which before from */
};

/* A page a batch put on the list that its commit has not reached yet. */
struct prep {
	uint64_t pfn;
	unsigned int order;
	int zone;
};

enum open_kind { OPEN_NONE, OPEN_COMMIT, OPEN_DECAY };

struct cpu_state {
	struct prep *prep;
	size_t nr_prep, cap_prep;
	int64_t uncommitted[MODEL_MAX_ZONES];	/* their pages, per zone */
	enum open_kind open;		/* the decision whose drains come now */
	int zone;
	int64_t predicted, actual;
};

/* A later snapshot's zone-files window and the pages its pcp events moved per list. */
struct sync_window {
	uint64_t begin, end;
	int64_t *moved;			/* per zone and cpu, summed absolute */
};

struct tc_pcp {
	uint64_t seed_begin;
	struct sync_window *win;
	size_t nr_win, cap_win, next_win, scan_win;
	int64_t *zoneinfo;		/* the seed's pcp->count per zone and cpu, NULL none */
	int64_t *window;		/* the read window's change of them (first pass) */
	int64_t *phantom;		/* the kernel's count less the model's, per zone and cpu:
					 * pages no event named yet (< 0: the model holds more) */
	bool phantom_set;
	unsigned int nr_zones;
	int off_zone;			/* zone_pcp_disable()d, -1: none */
	struct model_zone_limits off_lim;	/* its limits before */
	unsigned int nr_cpus;
	uint64_t seed_end;
	struct ring *ring;		/* first pass, per cpu */
	uint64_t *batched;		/* seqs of the mm_page_free a batch commits later */
	size_t nr_batched, cap_batched;
	struct cpu_state *cpu;
};

/* The last block of a drain may overshoot the count (free_pcppages_bulk()). */
#define OVERSHOOT	512

int tc_pcp_create(const struct model *m, uint64_t seed_begin, uint64_t seed_end,
		  const uint32_t *counts, struct tc_pcp **out)
{
	const struct model_layout *L = model_get_layout(m);
	unsigned int nr_cpus = L->nr_cpus, nz = L->nr_zones < MODEL_MAX_ZONES ?
					       L->nr_zones : MODEL_MAX_ZONES;
	size_t n = (size_t)(nz ? nz : 1) * (nr_cpus ? nr_cpus : 1), i;
	struct tc_pcp *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (p) {
		p->ring = calloc(nr_cpus ? nr_cpus : 1, sizeof(*p->ring));
		p->cpu = calloc(nr_cpus ? nr_cpus : 1, sizeof(*p->cpu));
		p->window = calloc(n, sizeof(*p->window));
		p->phantom = calloc(n, sizeof(*p->phantom));
		if (counts)
			p->zoneinfo = calloc(n, sizeof(*p->zoneinfo));
	}
	if (!p || !p->ring || !p->cpu || !p->window || !p->phantom ||
	    (counts && !p->zoneinfo)) {
		tc_pcp_destroy(p);
		return bc_error(BC_E_NOMEM, "simulate: out of memory");
	}
	for (i = 0; counts && i < (size_t)nz * nr_cpus; i++)
		p->zoneinfo[i] = counts[i];
	p->nr_cpus = nr_cpus;
	p->nr_zones = nz;
	p->seed_begin = seed_begin;
	p->seed_end = seed_end;
	p->off_zone = -1;
	*out = p;
	return 0;
}

void tc_pcp_destroy(struct tc_pcp *p)
{
	if (!p)
		return;
	for (unsigned int i = 0; p->cpu && i < p->nr_cpus; i++)
		free(p->cpu[i].prep);
	free(p->cpu);
	free(p->ring);
	free(p->batched);
	for (size_t i = 0; i < p->nr_win; i++)
		free(p->win[i].moved);
	free(p->win);
	free(p->zoneinfo);
	free(p->window);
	free(p->phantom);
	free(p);
}

static bool cpu_ok(const struct tc_pcp *p, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < p->nr_cpus;
}

/* pcp_allowed_order() of the traced kernel's profile. */
static bool pcp_order(const struct model *m, unsigned int order)
{
	return order < 32 && (model_get_profile(m)->pcp_orders & (1u << order));
}

int64_t tc_pcp_moved(const struct model *m, const struct tr_event *ev)
{
	int64_t n = ev->order < 32 ? 1ll << ev->order : 0;
	bool pcp = pcp_order(m, ev->order);

	switch (ev->kind) {
	case TR_EV_PAGE_FREE:
		return pcp ? n : 0;
	case TR_EV_ZONE_LOCKED:
		return model_zone_locked_refill(m, ev->order, ev->mt, ev->percpu_refill) ? n : 0;
	case TR_EV_PAGE_ALLOC:
		return pcp ? -n : 0;
	case TR_EV_PCPU_DRAIN:
		return -n;
	default:
		return 0;
	}
}

int tc_pcp_add_window(struct tc_pcp *p, uint64_t begin, uint64_t end)
{
	int ret = bc_grow(&p->win, p->nr_win, &p->cap_win, sizeof(*p->win), 8, "simulate");

	if (ret)
		return ret;
	p->win[p->nr_win] = (struct sync_window){ begin, end,
		calloc((size_t)(p->nr_zones ? p->nr_zones : 1) * p->nr_cpus + 1, sizeof(int64_t)) };
	if (!p->win[p->nr_win].moved)
		return bc_error(BC_E_NOMEM, "simulate: out of memory");
	p->nr_win++;
	return 0;
}

int tc_pcp_scan(struct tc_pcp *p, const struct model *m, const struct tr_event *ev)
{
	struct ring *r;
	unsigned int i, k;
	int zone;

	if (!cpu_ok(p, ev->cpu) || ev->pfn == UINT64_MAX)
		return 0;
	zone = model_pfn_zone(m, ev->pfn);
	if (ev->seq >= p->seed_begin && ev->seq < p->seed_end && zone >= 0 &&
	    (unsigned int)zone < p->nr_zones)
		p->window[(unsigned int)zone * p->nr_cpus + (unsigned int)ev->cpu] +=
			tc_pcp_moved(m, ev);
	while (p->scan_win < p->nr_win && ev->seq >= p->win[p->scan_win].end)
		p->scan_win++;
	if (p->scan_win < p->nr_win && ev->seq >= p->win[p->scan_win].begin && zone >= 0 &&
	    (unsigned int)zone < p->nr_zones) {
		int64_t d = tc_pcp_moved(m, ev);

		p->win[p->scan_win].moved[(unsigned int)zone * p->nr_cpus + (unsigned int)ev->cpu] +=
			d < 0 ? -d : d;
	}
	r = &p->ring[ev->cpu];
	if (ev->kind == TR_EV_PAGE_FREE) {
		r->seq[r->next] = ev->seq;
		r->pfn[r->next] = ev->pfn;
		r->next = (r->next + 1) % RING;
		r->written++;
		return 0;
	}
	if (ev->kind != TR_EV_FREE_BATCHED)
		return 0;
	/* those overwritten are out of reach */
	if (r->written - r->from_n > RING) {
		r->from_n = r->written - RING;
		r->from = r->next;
	}
	/* the oldest free of the page not committed yet: the batch's order */
	for (k = 0, i = r->from; r->from_n + k < r->written; k++, i = (i + 1) % RING) {
		if (r->pfn[i] != ev->pfn)
			continue;
		r->from = (i + 1) % RING;
		r->from_n += k + 1;
		if (bc_grow(&p->batched, p->nr_batched, &p->cap_batched, sizeof(*p->batched),
			    1024, "simulate"))
			return -BC_E_NOMEM;
		p->batched[p->nr_batched++] = r->seq[i];
		break;
	}
	return 0;
}

int tc_pcp_scan_done(struct tc_pcp *p)
{
	u64set_sort(p->batched, p->nr_batched);
	return 0;
}

/*
 * The kernel's pcp->count of @cpu in @zone: the model's, less what no commit reached,
 * and the pages no event named yet.
 */
static int64_t kernel_count(const struct tc_pcp *p, struct model *m, unsigned int zone,
			    unsigned int cpu)
{
	uint32_t count = 0, high;

	if (model_get_pcp(m, zone, cpu, &count, &high))
		return 0;
	return (int64_t)count - p->cpu[cpu].uncommitted[zone] +
	       (zone < p->nr_zones ? p->phantom[zone * p->nr_cpus + cpu] : 0);
}

/* At the seed's end: the kernel's count (zoneinfo's, with the read's) less the model's. */
static void phantom_set(struct tc_pcp *p, struct model *m)
{
	p->phantom_set = true;
	for (unsigned int z = 0; p->zoneinfo && z < p->nr_zones; z++)
		for (unsigned int c = 0; c < p->nr_cpus; c++) {
			size_t i = (size_t)z * p->nr_cpus + c;
			uint32_t count = 0, high;

			if (model_get_pcp(m, z, c, &count, &high))
				continue;
			p->phantom[i] = p->zoneinfo[i] + p->window[i] - (int64_t)count;
		}
}

void tc_pcp_sync(struct tc_pcp *p, struct model *m, const uint32_t *counts,
		 struct tc_pcp_counts *c)
{
	const int64_t *moved = p->next_win < p->nr_win ? p->win[p->next_win].moved : NULL;

	p->next_win++;
	/* a snapshot read right after the seed's comes before any event */
	if (!p->phantom_set)
		phantom_set(p, m);
	for (unsigned int z = 0; counts && z < p->nr_zones; z++)
		for (unsigned int cpu = 0; cpu < p->nr_cpus; cpu++) {
			int64_t d = (int64_t)counts[(size_t)z * p->nr_cpus + cpu] -
				    kernel_count(p, m, z, cpu);
			struct model_zone_limits l;

			p->phantom[(size_t)z * p->nr_cpus + cpu] += d;
			if (moved && !model_get_zone_limits(m, z, &l) &&
			    moved[(size_t)z * p->nr_cpus + cpu] > (int64_t)l.pcp_batch) {
				c->synced_lists_moving++;
				continue;
			}
			c->synced_lists++;
			c->synced_count_off += (uint64_t)(d < 0 ? -d : d);
		}
}

void tc_pcp_sync_high(struct tc_pcp *p, struct model *m, const uint32_t *before,
		      struct tc_pcp_counts *c)
{
	for (unsigned int z = 0; z < p->nr_zones; z++)
		for (unsigned int cpu = 0; cpu < p->nr_cpus; cpu++) {
			uint32_t count, high, was = before[(size_t)z * p->nr_cpus + cpu];

			if (model_get_pcp(m, z, cpu, &count, &high) || !high)
				continue;
			c->synced_high_lists++;
			c->synced_high_equal += was == high;
			c->synced_high_off += was > high ? was - high : high - was;
		}
}

/*
 * An event names a page of a list the model did not hold: one phantom less, of the
 * event's cpu, else (a remote drain) of the cpu with most.
 */
static void phantom_named(struct tc_pcp *p, struct model *m, const struct tr_event *ev)
{
	struct model_pfn_info pi;
	int zone = model_pfn_zone(m, ev->pfn);
	int64_t *ph, n = ev->order < 32 ? 1ll << ev->order : 0;
	unsigned int c, best;

	/* the model holds it as a seeded page of flags 0 (replay.c takes it so) */
	if (zone < 0 || (unsigned int)zone >= p->nr_zones || ev->order >= 32 ||
	    model_pfn_info(m, ev->pfn, &pi) || pi.state != MODEL_PFN_ALLOC || !pi.seeded ||
	    pi.kind != MODEL_KIND_UNKNOWN)
		return;
	ph = &p->phantom[(unsigned int)zone * p->nr_cpus];
	best = (unsigned int)ev->cpu;
	for (c = 0; ph[best] < n && c < p->nr_cpus; c++)
		if (ph[c] > ph[best])
			best = c;
	if (ph[best] > 0)
		ph[best] = ph[best] > n ? ph[best] - n : 0;
}

/* @overshoot: a drain's last block may take it past the count (not a refill's). */
static void compare(struct tc_pcp_kind *k, int64_t predicted, int64_t actual,
		    int64_t overshoot)
{
	k->asked++;
	k->pages_model += (uint64_t)predicted;
	k->pages_kernel += (uint64_t)actual;
	if (predicted == actual ||
	    (predicted > 0 && actual > predicted && actual - predicted < overshoot))
		k->alike++;
	else if (!predicted)
		k->missed++;
	else if (!actual)
		k->extra++;
}

static int close_open(struct tc_pcp *p, struct model *m, int cpu, struct tc_pcp_counts *c)
{
	struct cpu_state *s = &p->cpu[cpu];
	enum open_kind kind = s->open;

	if (kind == OPEN_NONE)
		return 0;
	s->open = OPEN_NONE;
	compare(kind == OPEN_COMMIT ? &c->commit : &c->decay, s->predicted, s->actual,
		OVERSHOOT);
	/* free_unref_page_commit(): after its drain, ZONE_BELOW_HIGH over the high mark */
	return kind == OPEN_COMMIT && s->actual ? model_pcp_drained(m, (unsigned int)s->zone) : 0;
}

/* A page of a batch its commit did not reach: out of the count, until it does. */
static int prep_add(struct cpu_state *s, const struct tr_event *ev, int zone)
{
	int ret = bc_grow(&s->prep, s->nr_prep, &s->cap_prep, sizeof(*s->prep), 32, "simulate");

	if (ret)
		return ret;
	s->prep[s->nr_prep++] = (struct prep){ ev->pfn, ev->order, zone };
	s->uncommitted[zone] += 1ll << ev->order;
	return 0;
}

static bool prep_take(struct cpu_state *s, uint64_t pfn)
{
	for (size_t i = 0; i < s->nr_prep; i++)
		if (s->prep[i].pfn == pfn) {
			s->uncommitted[s->prep[i].zone] -= 1ll << s->prep[i].order;
			s->prep[i] = s->prep[--s->nr_prep];
			return true;
		}
	return false;
}

/* A batch whose commits no longer come (its cpu moved on): its pages count again. */
static void prep_drop(struct cpu_state *s)
{
	for (size_t i = 0; i < s->nr_prep; i++)
		s->uncommitted[s->prep[i].zone] -= 1ll << s->prep[i].order;
	s->nr_prep = 0;
}

int tc_pcp_before(struct tc_pcp *p, struct model *m, const struct tr_event *ev,
		  struct tc_pcp_counts *c)
{
	struct cpu_state *s;

	if (ev->seq < p->seed_end || !cpu_ok(p, ev->cpu) || ev->kind == TR_EV_OTHER)
		return 0;
	if (!p->phantom_set)
		phantom_set(p, m);
	/* a drain, or a pcp hit, of a page the model did not hold on a list */
	if ((ev->kind == TR_EV_PCPU_DRAIN || ev->kind == TR_EV_PAGE_ALLOC) &&
	    ev->pfn != UINT64_MAX)
		phantom_named(p, m, ev);
	if (ev->kind == TR_EV_PCPU_DRAIN)
		return 0;
	s = &p->cpu[ev->cpu];
	if (ev->kind != TR_EV_PAGE_FREE && ev->kind != TR_EV_FREE_BATCHED && s->nr_prep)
		prep_drop(s);
	return close_open(p, m, ev->cpu, c);
}

/* free_unref_page_commit() of the page at @pfn, on the list the model holds it on. */
static int commit(struct tc_pcp *p, struct model *m, const struct tr_event *ev, int zone,
		  const struct model_pfn_info *pi)
{
	struct cpu_state *s = &p->cpu[ev->cpu];
	int64_t nr = 0;
	int ret;

	if (!cpu_ok(p, pi->cpu))
		return 0;
	ret = model_pcp_free_decide(m, (unsigned int)zone, (unsigned int)pi->cpu, pi->order,
				    kernel_count(p, m, (unsigned int)zone, (unsigned int)pi->cpu),
				    &nr);
	if (ret)
		return ret;
	s->open = OPEN_COMMIT;
	s->zone = zone;
	s->predicted = nr;
	s->actual = 0;
	return 0;
}

int tc_pcp_after(struct tc_pcp *p, struct model *m, const struct tr_event *ev,
		 struct tc_pcp_counts *c)
{
	struct model_pfn_info pi;
	struct cpu_state *s;
	int zone;

	if (ev->seq < p->seed_end || !cpu_ok(p, ev->cpu))
		return 0;
	s = &p->cpu[ev->cpu];
	switch (ev->kind) {
	case TR_EV_PCPU_DRAIN:
		if (ev->pfn == UINT64_MAX || ev->order >= 32)
			return 0;
		if (s->open != OPEN_NONE)
			s->actual += 1ll << ev->order;
		else
			c->unexplained_drain_pages += 1ull << ev->order;
		return 0;
	case TR_EV_PAGE_FREE:
	case TR_EV_FREE_BATCHED:
		if (ev->pfn == UINT64_MAX || (zone = model_pfn_zone(m, ev->pfn)) < 0 ||
		    zone >= MODEL_MAX_ZONES)
			return 0;
		if (ev->kind == TR_EV_FREE_BATCHED && !prep_take(s, ev->pfn))
			return 0;
		if (model_pfn_info(m, ev->pfn, &pi) || pi.state != MODEL_PFN_PCP)
			return 0;
		if (ev->kind == TR_EV_PAGE_FREE && u64set_has(p->batched, p->nr_batched, ev->seq))
			return prep_add(s, ev, zone);
		return commit(p, m, ev, zone, &pi);
	case TR_EV_VMSTAT_UPDATE: {
		unsigned int nz = model_get_layout(m)->nr_zones, zi;
		int64_t sum = 0;

		for (zi = 0; zi < nz && zi < MODEL_MAX_ZONES; zi++) {
			int64_t nr;
			int ret = model_pcp_decay_decide(m, zi, (unsigned int)ev->cpu,
							 kernel_count(p, m, zi, (unsigned int)ev->cpu),
							 &nr);

			if (ret)
				return ret;
			sum += nr;
		}
		s->open = OPEN_DECAY;
		s->zone = -1;
		s->predicted = sum;
		s->actual = 0;
		return 0;
	}
	default:
		return 0;
	}
}

int tc_pcp_alloc(struct tc_pcp *p, struct model *m, const struct model_request *q,
		 unsigned int zone, bool pcp, bool refill, uint64_t kernel_pages,
		 struct tc_pcp_counts *c)
{
	int64_t nr = 0;
	int ret;

	if (!cpu_ok(p, q->cpu))
		return 0;
	ret = model_note_request(m, q, zone);
	if (ret == -BC_E_INVAL)		/* a request the procedure does not take */
		return 0;
	if (ret || !pcp)
		return ret;
	ret = model_pcp_alloc_decide(m, zone, (unsigned int)q->cpu, q->order, refill,
				     kernel_count(p, m, zone, (unsigned int)q->cpu), &nr);
	if (!ret && refill)
		compare(&c->refill, nr, (int64_t)kernel_pages, 0);
	return ret;
}

int tc_pcp_offline(struct tc_pcp *p, struct model *m, uint64_t pfn, bool begin)
{
	int zone, ret;

	if (!begin) {
		zone = p->off_zone;
		p->off_zone = -1;
		return zone < 0 ? 0 : model_set_zone_limits(m, (unsigned int)zone, &p->off_lim);
	}
	zone = model_pfn_zone(m, pfn);
	if (zone < 0 || p->off_zone >= 0)
		return 0;
	ret = model_zone_pcp_disable(m, (unsigned int)zone, &p->off_lim);
	if (!ret)
		p->off_zone = zone;
	return ret;
}

int tc_pcp_finish(struct tc_pcp *p, struct model *m, struct tc_pcp_counts *c)
{
	int ret = 0;

	for (unsigned int i = 0; i < p->nr_cpus && !ret; i++)
		ret = close_open(p, m, (int)i, c);
	return ret;
}

/* ---- the seed's read window ---- */

struct window_pass {
	struct model *m;
	unsigned int nr_cpus, nr_zones;
	int64_t *count;			/* the kernel's pcp->count per [zone * nr_cpus + cpu] */
	bool *in_refill;		/* per cpu: its last event was a refill's zone_locked */
	struct last_refill *last;	/* before the window, per [zone * nr_cpus + cpu] */
};

/* A list's last order-0 refill before zoneinfo was read, and what moved it since. */
struct last_refill {
	int64_t pages;			/* the refill's (0: none) */
	int64_t moved;			/* pcp->count moved since its start, its own pages too */
	unsigned int frees;		/* frees to the list since (each halves alloc_factor) */
	bool decayed;			/* a vmstat_update() since: pcp->high moved */
	bool told;			/* it gave the list a non-zero alloc_factor */
};

/*
 * @ev on its cpu: its zone's list index (-1: no page of a zone), and whether it is
 * the first zone_locked of a pcp refill (rmqueue_bulk() for an empty list).
 */
static int window_list(struct window_pass *w, const struct tr_event *ev, bool *refill_start)
{
	unsigned int cpu = (unsigned int)ev->cpu;
	bool refill, was_refill = w->in_refill[cpu];
	int zone;

	*refill_start = false;
	if (ev->kind == TR_EV_VMSTAT_UPDATE) {
		w->in_refill[cpu] = false;
		return -1;
	}
	if (ev->pfn == UINT64_MAX || (zone = model_pfn_zone(w->m, ev->pfn)) < 0 ||
	    (unsigned int)zone >= w->nr_zones)
		return -1;
	refill = ev->kind == TR_EV_ZONE_LOCKED &&
		 model_zone_locked_refill(w->m, ev->order, ev->mt, ev->percpu_refill);
	w->in_refill[cpu] = refill;
	*refill_start = refill && !was_refill;
	return (int)((unsigned int)zone * w->nr_cpus + cpu);
}

/* An event before the window: the last order-0 refill of each list, and what followed. */
static int before_event(struct window_pass *w, const struct tr_event *ev)
{
	struct last_refill *r;
	bool start;
	int k = window_list(w, ev, &start);
	unsigned int z;

	if (ev->kind == TR_EV_VMSTAT_UPDATE) {
		for (z = 0; z < w->nr_zones; z++)
			w->last[z * w->nr_cpus + (unsigned int)ev->cpu].decayed = true;
		return 0;
	}
	if (k < 0)
		return 0;
	r = &w->last[k];
	if (start && !ev->order)
		*r = (struct last_refill){ 0 };
	if (ev->kind == TR_EV_ZONE_LOCKED && w->in_refill[ev->cpu] && !ev->order)
		r->pages++;
	if (ev->kind == TR_EV_PAGE_FREE && pcp_order(w->m, ev->order))
		r->frees++;
	r->moved += tc_pcp_moved(w->m, ev);
	return 0;
}

/*
 * alloc_factor when zoneinfo was read (@count, @high), from the list's last order-0
 * refill before: nr_pcp_alloc() took min(batch << af, max(high - count - batch, batch))
 * (high already raised by it: zoneinfo's), and raised af when batch << af fitted; each
 * free since halved it. -1: no refill, or a decay since, or sizes that fit no af.
 */
static int af_before(const struct last_refill *r, int64_t count, int64_t high, int64_t batch)
{
	int64_t max_nr = high - (count - r->moved) - batch;
	int af;

	if (!r->pages || r->decayed || batch <= 0)
		return -1;
	max_nr = max_nr > batch ? max_nr : batch;
	for (af = 0; af <= 5; af++) {
		int64_t b = batch << af;

		if ((b < max_nr ? b : max_nr) != r->pages)
			continue;
		/* raised when the whole batch fitted */
		af += b <= max_nr && af < 5;
		return (int)((unsigned int)af >> (r->frees < 8 ? r->frees : 8));
	}
	return -1;
}

/* One event of the read window on its cpu's pcp state. */
static int window_event(struct window_pass *w, const struct tr_event *ev)
{
	unsigned int cpu = (unsigned int)ev->cpu, z, zone;
	bool was_refill = w->in_refill[cpu], start;
	int k = window_list(w, ev, &start), ret = 0;
	int64_t *count, nr;

	if (ev->kind == TR_EV_VMSTAT_UPDATE) {
		for (z = 0; !ret && z < w->nr_zones; z++)
			ret = model_pcp_decay_decide(w->m, z, cpu, w->count[z * w->nr_cpus + cpu],
						     &nr);
		return ret;
	}
	if (k < 0)
		return 0;
	zone = (unsigned int)k / w->nr_cpus;
	count = &w->count[k];
	switch (ev->kind) {
	case TR_EV_ZONE_LOCKED:
		/* rmqueue_pcplist() found the list empty: nr_pcp_alloc() once, at its first */
		if (start)
			ret = model_pcp_alloc_decide(w->m, zone, cpu, ev->order, true, *count, &nr);
		break;
	case TR_EV_PAGE_ALLOC:
		/* a pcp hit (the allocation a refill made was asked at its refill) */
		if (!was_refill && pcp_order(w->m, ev->order))
			ret = model_pcp_alloc_decide(w->m, zone, cpu, ev->order, false, *count,
						     &nr);
		break;
	case TR_EV_PAGE_FREE:
		if (pcp_order(w->m, ev->order))
			ret = model_pcp_free_decide(w->m, zone, cpu, ev->order,
						    *count + (1ll << ev->order), &nr);
		break;
	default:
		break;
	}
	*count += tc_pcp_moved(w->m, ev);
	return ret;
}

/* @fn on each pcp event of [@from, @to) of a cpu of the layout. */
static int window_walk(struct tdb *db, const struct tr_decoder *dec, struct window_pass *w,
		       uint64_t from, uint64_t to,
		       int (*fn)(struct window_pass *w, const struct tr_event *ev))
{
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	int ret = from < to ? tdb_cursor_open(db, from, to, &cur) : 0, got = 0;

	if (ret || from >= to)
		return ret;
	while (!ret && (got = tdb_cursor_next(cur, &raw)) == 1) {
		tr_decode(dec, &raw, &ev);
		if (ev.kind != TR_EV_OTHER && ev.cpu >= 0 && (unsigned int)ev.cpu < w->nr_cpus)
			ret = fn(w, &ev);
	}
	tdb_cursor_close(cur);
	return ret ? ret : got < 0 ? got : 0;
}

int tc_pcp_seed_window(struct tdb *db, const struct tr_decoder *dec, struct model *m,
		       uint64_t seq_begin, uint64_t seq_end, const uint32_t *counts,
		       uint64_t *nr)
{
	const struct model_layout *L = model_get_layout(m);
	struct window_pass w = { .m = m, .nr_cpus = L->nr_cpus, .nr_zones = L->nr_zones };
	size_t n = (size_t)L->nr_zones * L->nr_cpus, k;
	uint32_t *before = calloc(n + 1, sizeof(*before));
	int ret = 0;

	*nr = 0;
	w.count = calloc(n + 1, sizeof(*w.count));
	w.in_refill = calloc(L->nr_cpus + 1, sizeof(*w.in_refill));
	w.last = calloc(n + 1, sizeof(*w.last));
	if (!before || !w.count || !w.in_refill || !w.last) {
		ret = bc_error(BC_E_NOMEM, "out of memory");
		goto out;
	}
	for (k = 0; k < n; k++) {
		uint32_t count;

		w.count[k] = counts[k];
		ret = model_get_pcp(m, (unsigned int)(k / L->nr_cpus),
				    (unsigned int)(k % L->nr_cpus), &count, &before[k]);
		if (ret)
			goto out;
	}
	/* alloc_factor from the last refill before zoneinfo was read */
	ret = window_walk(db, dec, &w, 0, seq_begin, before_event);
	for (k = 0; !ret && k < n; k++) {
		struct model_zone_limits lim;
		int af;

		if (model_get_zone_limits(m, (unsigned int)(k / L->nr_cpus), &lim))
			continue;
		af = af_before(&w.last[k], counts[k], before[k], lim.pcp_batch);
		w.last[k].told = af > 0;
		if (af >= 0)
			ret = model_set_pcp_alloc_factor(m, (unsigned int)(k / L->nr_cpus),
							 (unsigned int)(k % L->nr_cpus),
							 (unsigned int)af);
	}
	memset(w.in_refill, 0, (L->nr_cpus + 1) * sizeof(*w.in_refill));
	if (!ret)
		ret = window_walk(db, dec, &w, seq_begin, seq_end, window_event);
	for (k = 0; ret >= 0 && k < n; k++) {
		uint32_t count, high;

		ret = model_get_pcp(m, (unsigned int)(k / L->nr_cpus),
				    (unsigned int)(k % L->nr_cpus), &count, &high);
		*nr += !ret && (high != before[k] || w.last[k].told);
	}
out:
	free(before);
	free(w.count);
	free(w.in_refill);
	free(w.last);
	return ret < 0 ? ret : 0;
}
