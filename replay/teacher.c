// SPDX-License-Identifier: GPL-2.0
/*
 * teacher.c - the teacher-forced replay (replay/teacher.h): group the trace's
 * allocation requests, ask model_decide() before each, compare and classify.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/grow.h"
#include "db/tdb.h"
#include "db/tdb-results.h"
#include "db/tdb-snap.h"
#include "model/decide.h"
#include "model/model.h"
#include "replay/replay.h"
#include "replay/teacher.h"
#include "replay/zone-limits.h"
#include "trace/tr-attempt.h"
#include "trace/tr-marks.h"

#define _W(w, s) s,
static const char *const why_names[] = { TC_WHYS };
#undef _W

const char *tc_why_name(enum tc_why w)
{
	return (unsigned int)w < TC_NR_WHY ? why_names[w] : "?";
}

/* One request as the trace shows it. */
struct tc_req {
	uint64_t start_seq;		/* first event of the request */
	uint64_t seq;			/* its mm_page_alloc */
	uint64_t pfn, gfp;
	uint64_t zl_pfn;		/* the first zone_locked's pfn, UINT64_MAX none */
	int cpu, mt;
	unsigned int order;
	unsigned int nr_zl;		/* zone_locked events in the group */
	unsigned int nr_extfrag;	/* extfrag events in the group */
	enum model_source src;
	bool first_touch;		/* no earlier event named its pfn */
	bool refill;			/* its zone_locked events were a pcp refill */
};

/* An event showing a pageblock's type (mt -1: a claim changed it: later ones do not
 * tell the type at the snapshot). */
struct tc_type {
	uint64_t pfn;
	int mt;
};

/* An event naming a pfn (first pass), sorted by pfn then seq. */
struct tc_pev {
	uint64_t pfn, seq;
	int kind;			/* enum tr_event_kind */
};

/* A set of pfns (open addressing, 0 = empty: pfn + 1 is stored). */
struct pfn_set {
	uint64_t *slot;
	size_t cap, nr;
};

/* An open group per cpu: zone_locked/extfrag seen, mm_page_alloc to come. */
struct tc_open {
	uint64_t start_seq, zl_pfn;
	unsigned int nr_zl, nr_extfrag, order;
	bool open, refill, extfrag;
};

struct teacher {
	const struct model *m;
	struct tc_pcp *pcp;		/* the pcp sizing asked along */
	struct tdb *db;
	struct tdb_snap_info *snaps;	/* later snapshots: their zoneinfo syncs pcp state */
	int nr_snaps, next_snap;
	struct tc_req *req;
	size_t nr, cap, next;
	struct tc_open *open;
	int nr_open;
	struct pfn_set seen;		/* pfns named by an event so far (first pass) */
	uint64_t *takes;		/* first-named blocks the buddy handed out, in order */
	size_t nr_takes, cap_takes;
	struct tc_type *types;		/* pageblock types the events show, in order */
	size_t nr_types, cap_types;
	struct tc_pev *pev;		/* order-0 page events, for what comes next */
	size_t nr_pev, cap_pev;
	struct tc_pev *ent;		/* pcp list entries while the seed was read */
	size_t nr_ent, cap_ent;
	bool reordered;			/* the pcp lists' order at the seed's end rebuilt */
	uint64_t seed_end;		/* requests begun before are not asked */
	unsigned int pb_order;
	unsigned int max_dis;
	struct tc_result *res;
	/* NR_FREE_PAGES per-cpu diffs (vm_track()) */
	uint64_t *vm_last;		/* [zone] the model's free pages after the last event */
	int64_t *vm_refill;		/* [cpu * zones + zone] a refill's change, pending */
	int vm_cpu;			/* the last event's cpu, -1 none */
	bool vm_was_refill;		/* the last event was a pcp refill's zone_locked */
	uint64_t vm_next_fold;		/* ts of the next vmstat_update() round, 0 unset */
};

/* Add @pfn; returns 1 when it was there, 0 when added, or -BC_E_NOMEM. */
static int pfn_set_add(struct pfn_set *s, uint64_t pfn)
{
	size_t i;

	if (2 * (s->nr + 1) > s->cap) {
		struct pfn_set n = { .cap = s->cap ? s->cap * 2 : 65536 };

		n.slot = calloc(n.cap, sizeof(*n.slot));
		if (!n.slot)
			return bc_error(BC_E_NOMEM, "simulate: out of memory");
		for (i = 0; i < s->cap; i++)
			if (s->slot[i])
				pfn_set_add(&n, s->slot[i] - 1);
		free(s->slot);
		*s = n;
	}
	for (i = (size_t)(pfn * 0x9e3779b97f4a7c15ull >> 20) & (s->cap - 1); s->slot[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == pfn + 1)
			return 1;
	s->slot[i] = pfn + 1;
	s->nr++;
	return 0;
}

static int add_take(struct teacher *t, uint64_t pfn)
{
	int ret = bc_grow(&t->takes, t->nr_takes, &t->cap_takes, sizeof(*t->takes), 1024,
			  "simulate");

	if (ret)
		return ret;
	t->takes[t->nr_takes++] = pfn;
	return 0;
}

static int add_type(struct teacher *t, const struct tr_event *ev)
{
	int mt = ev->mt;

	if (ev->kind == TR_EV_PAGE_ALLOC && ev->order >= 4)
		return 0;	/* the THP lists are only "movable or not" */
	if (ev->kind == TR_EV_EXTFRAG) {
		/* every pageblock of the fallback block: a claim re-types them all */
		unsigned int o = ev->fallback_order > t->pb_order ? ev->fallback_order :
				 t->pb_order;
		uint64_t p = ev->pfn & ~((1ull << o) - 1), end = p + (1ull << o);
		struct tr_event e = *ev;
		int ret = 0;

		e.kind = TR_EV_OTHER;
		for (e.pfn = p; !ret && e.pfn < end && o <= 18; e.pfn += 1ull << t->pb_order)
			ret = add_type(t, &e);
		return ret;
	}
	if (ev->kind == TR_EV_OTHER)
		mt = -1;
	if (bc_grow(&t->types, t->nr_types, &t->cap_types, sizeof(*t->types), 4096, "simulate"))
		return -BC_E_NOMEM;
	t->types[t->nr_types++] = (struct tc_type){ ev->pfn, mt };
	return 0;
}

static int add_pev(struct tc_pev **a, size_t *nr, size_t *cap, const struct tr_event *ev,
		   int kind)
{
	if (bc_grow(a, *nr, cap, sizeof(**a), 16384, "simulate"))
		return -BC_E_NOMEM;
	(*a)[(*nr)++] = (struct tc_pev){ ev->pfn, ev->seq, kind };
	return 0;
}

/* A pcp list entry while the seed was read: a free (head) or a refill (tail). */
#define ENT_HEAD(cpu)	(2 * (cpu))
#define ENT_TAIL(cpu)	(2 * (cpu) + 1)

static int seed_read_event(struct teacher *t, const struct tr_event *ev)
{
	int cpu = ev->cpu < 0 ? 0 : ev->cpu;

	if (ev->kind == TR_EV_PAGE_FREE && ev->order <= 3)
		return add_pev(&t->ent, &t->nr_ent, &t->cap_ent, ev, ENT_HEAD(cpu));
	if (ev->kind == TR_EV_ZONE_LOCKED && ev->percpu_refill)
		return add_pev(&t->ent, &t->nr_ent, &t->cap_ent, ev, ENT_TAIL(cpu));
	return 0;
}

static int cmp_pev(const void *a, const void *b)
{
	const struct tc_pev *x = a, *y = b;

	if (x->pfn != y->pfn)
		return x->pfn < y->pfn ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The index of the first of @a (sorted) at or after (@pfn, @seq). */
static size_t pev_find(const struct tc_pev *a, size_t n, uint64_t pfn, uint64_t seq)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid].pfn < pfn || (a[mid].pfn == pfn && a[mid].seq < seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The kind of the first event naming @pfn at or after @seq; TR_EV_OTHER: none. */
static int next_event(const struct teacher *t, uint64_t pfn, uint64_t seq)
{
	size_t i = pev_find(t->pev, t->nr_pev, pfn, seq);

	return i < t->nr_pev && t->pev[i].pfn == pfn ? t->pev[i].kind : TR_EV_OTHER;
}

static int grow_open(struct teacher *t, int cpu)
{
	struct tc_open *o;
	int n = cpu + 1;

	if (cpu < t->nr_open)
		return 0;
	if (cpu >= 65536)
		return bc_error(BC_E_INVAL, "simulate: cpu %d in the trace", cpu);
	o = realloc(t->open, (size_t)n * sizeof(*o));
	if (!o)
		return bc_error(BC_E_NOMEM, "simulate: out of memory");
	memset(o + t->nr_open, 0, (size_t)(n - t->nr_open) * sizeof(*o));
	t->open = o;
	t->nr_open = n;
	return 0;
}

/* A zone_locked or extfrag on @ev's cpu: part of the request to come. */
static void group_event(struct tc_open *o, const struct tr_event *ev)
{
	if (ev->kind == TR_EV_ZONE_LOCKED && o->open && o->nr_zl && o->order != ev->order)
		o->open = false;	/* another order: the earlier ones were no request's */
	if (!o->open) {
		memset(o, 0, sizeof(*o));
		o->open = true;
		o->start_seq = ev->seq;
		o->zl_pfn = UINT64_MAX;
	}
	if (ev->kind == TR_EV_EXTFRAG) {
		o->extfrag = true;
		o->nr_extfrag++;
		return;
	}
	if (!o->nr_zl++) {
		o->zl_pfn = ev->pfn;
		o->order = ev->order;
	}
	o->refill |= ev->percpu_refill;
}

static int add_request(struct teacher *t, struct tc_open *o, const struct tr_event *ev)
{
	struct tc_req *r;
	bool grouped = o->open && (!o->nr_zl || o->order == ev->order);

	if (bc_grow(&t->req, t->nr, &t->cap, sizeof(*t->req), 4096, "simulate: the requests"))
		return -BC_E_NOMEM;
	r = &t->req[t->nr++];
	*r = (struct tc_req){ .start_seq = grouped ? o->start_seq : ev->seq, .seq = ev->seq,
			      .pfn = ev->pfn, .gfp = ev->gfp, .zl_pfn = UINT64_MAX,
			      .cpu = ev->cpu, .mt = ev->mt, .order = ev->order,
			      .src = MODEL_SRC_PCP };
	if (grouped) {
		r->zl_pfn = o->zl_pfn;
		r->nr_zl = o->nr_zl;
		r->src = o->extfrag ? MODEL_SRC_FALLBACK : o->refill ? MODEL_SRC_REFILL :
			 o->nr_zl ? MODEL_SRC_BUDDY : MODEL_SRC_PCP;
		r->refill = o->refill && o->nr_zl;
		r->nr_extfrag = o->nr_extfrag;
	}
	o->open = false;
	return 0;
}

/* The first pass: every request of [0, until) with its group's first event. */
static int find_requests(struct teacher *t, struct tdb *db, const struct tr_decoder *dec,
			 uint64_t until)
{
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	bool first = false;
	int ret = tdb_cursor_open(db, 0, until, &cur);

	if (ret)
		return ret;
	while ((ret = tdb_cursor_next(cur, &raw)) == 1) {
		tr_decode(dec, &raw, &ev);
		if (ev.kind == TR_EV_ZONE_LOCKED)	/* a CMA take is a refill too */
			ev.percpu_refill = model_zone_locked_refill(t->m, (unsigned int)ev.order,
								    ev.mt, ev.percpu_refill);
		ret = grow_open(t, ev.cpu < 0 ? 0 : ev.cpu);
		if (!ret)
			ret = tc_pcp_scan(t->pcp, t->m, &ev);
		if (ret)
			break;
		if (ev.seq < t->seed_end && ev.pfn != UINT64_MAX) {
			ret = seed_read_event(t, &ev);
			/*
			 * A drain or a pcp hit while the seed was read names its block's
			 * type too (free_pcppages_bulk(); free_unref_page() listed the page
			 * by get_pfnblock_migratetype()).
			 */
			if (!ret && (ev.kind == TR_EV_PCPU_DRAIN ||
				     (ev.kind == TR_EV_PAGE_ALLOC &&
				      !t->open[0 > ev.cpu ? 0 : ev.cpu].open)))
				ret = add_type(t, &ev);
			if (ret)
				break;
		}
		/* the seed has the state its read ended with: events after it count */
		if (ev.kind != TR_EV_OTHER && ev.pfn != UINT64_MAX && ev.seq >= t->seed_end) {
			ret = pfn_set_add(&t->seen, ev.pfn);
			if (ret < 0)
				break;
			if (ev.kind == TR_EV_PAGE_ALLOC)
				first = !ret;
			else if (!ret && (ev.kind == TR_EV_ZONE_LOCKED || ev.kind == TR_EV_EXTFRAG))
				ret = add_take(t, ev.pfn);
			if (ret < 0)
				break;
			if (ret >= 0 && !ev.order && ev.kind != TR_EV_MIGRATE_START &&
			    ev.kind != TR_EV_MIGRATE_END)
				ret = add_pev(&t->pev, &t->nr_pev, &t->cap_pev, &ev, (int)ev.kind);
			if (ret < 0)
				break;
			if (ev.kind == TR_EV_ZONE_LOCKED || ev.kind == TR_EV_PCPU_DRAIN ||
			    ev.kind == TR_EV_EXTFRAG ||
			    (ev.kind == TR_EV_PAGE_ALLOC && !t->open[0 > ev.cpu ? 0 : ev.cpu].open))
				ret = add_type(t, &ev);
			if (ret < 0)
				break;
		}
		if (ev.kind != TR_EV_ZONE_LOCKED && ev.kind != TR_EV_EXTFRAG &&
		    ev.kind != TR_EV_PAGE_ALLOC)
			continue;
		if (ev.kind != TR_EV_PAGE_ALLOC) {
			group_event(&t->open[ev.cpu < 0 ? 0 : ev.cpu], &ev);
			continue;
		}
		if (ev.pfn == UINT64_MAX) {
			t->res->failed_allocs++;
			t->open[ev.cpu < 0 ? 0 : ev.cpu].open = false;
			continue;
		}
		ret = add_request(t, &t->open[ev.cpu < 0 ? 0 : ev.cpu], &ev);
		if (ret)
			break;
		t->req[t->nr - 1].first_touch = first;
	}
	tdb_cursor_close(cur);
	if (ret < 0)
		return ret;
	/* by first event: the hook meets them in that order */
	return tc_pcp_scan_done(t->pcp);
}

/*
 * Pages seeded with flags 0 that a pcp hit hands out before any other event names
 * them were on that cpu's pcp list at the snapshot: rebuild the lists in the order the
 * kernel hands them out (requests are still in seq order here).
 */
static int seed_pcp_lists(struct teacher *t, struct model *m)
{
	unsigned int pbo = model_get_layout(m)->pageblock_order;
	struct pfn_set done = { 0 };
	size_t i;

	/* guessed pageblock types first (a re-type moves free blocks to list tails) */
	for (i = 0; i < t->nr_types; i++) {
		int ret = pfn_set_add(&done, t->types[i].pfn >> pbo);

		if (!ret && t->types[i].mt >= 0)
			ret = model_seed_pageblock_type(m, t->types[i].pfn, t->types[i].mt);
		if (ret < 0) {
			free(done.slot);
			return ret;
		}
		t->res->types_learned += !ret && t->types[i].mt >= 0;
	}
	free(done.slot);

	for (i = 0; i < t->nr; i++) {
		const struct tc_req *r = &t->req[i];
		int ret;

		if (!r->first_touch || r->src != MODEL_SRC_PCP || r->start_seq < t->seed_end)
			continue;
		ret = model_seed_pcp(m, r->pfn, r->order, r->mt, r->cpu);
		if (ret == -BC_E_INVAL || ret == 1)
			continue;
		if (ret)
			return ret;
		t->res->pcp_seeded++;
	}
	/* the buddy's lists: the first block taken ends at the head */
	for (i = t->nr_takes; i-- > 0;) {
		int ret = model_seed_free_move(m, t->takes[i], false);

		if (ret < 0)
			return ret;
		t->res->free_reordered += !ret;
	}
	return 0;
}

static int cmp_start(const void *a, const void *b)
{
	const struct tc_req *x = a, *y = b;

	return x->start_seq < y->start_seq ? -1 : x->start_seq > y->start_seq;
}

/* Why the model's answer @d was not the kernel's page of @r (state at the question). */
static enum tc_why classify(const struct teacher *t, struct model *m, const struct tc_req *r,
			    const struct model_decision *d)
{
	struct model_pfn_info pi;

	if (d->source == MODEL_SRC_NONE)
		return TC_WHY_NEEDS_RECLAIM;
	if (model_pfn_info(m, r->pfn, &pi))
		return TC_WHY_OTHER;
	if (pi.state == MODEL_PFN_ALLOC && pi.seeded && pi.kind == MODEL_KIND_UNKNOWN)
		return TC_WHY_STATE_UNKNOWN;
	if (pi.uncertain)
		return TC_WHY_LOST_EVENTS;
	if (model_pfn_zone(m, r->pfn) != d->zone)
		return TC_WHY_ZONE;
	switch (pi.state) {
	case MODEL_PFN_PCP:
		if (pi.cpu != r->cpu)
			return TC_WHY_PCP_OTHER_CPU;
		if (d->source == MODEL_SRC_PCP && model_pageblock_guessed(m, d->pfn))
			return TC_WHY_TYPE_GUESS;
		if (d->source == MODEL_SRC_PCP &&
		    next_event(t, d->pfn, r->start_seq) == TR_EV_OTHER)
			return TC_WHY_PCP_HEAD_UNSEEN;
		return TC_WHY_PCP_ORDER;
	case MODEL_PFN_BUDDY:
		if (r->src == MODEL_SRC_PCP)
			return TC_WHY_PCP_IN_BUDDY;
		if (d->source == MODEL_SRC_PCP)
			return r->nr_zl == 1 && r->zl_pfn == r->pfn ? TC_WHY_PCP_TRYLOCK :
			       TC_WHY_PCP_STALE;
		return TC_WHY_BUDDY_ORDER;
	case MODEL_PFN_ALLOC:
		if (pi.seeded && pi.kind == MODEL_KIND_UNKNOWN)
			return TC_WHY_STATE_UNKNOWN;
		return TC_WHY_UNTRACED_FREE;
	default:
		return TC_WHY_OTHER;
	}
}

/*
 * model_decide(), after the pages alloc_pages_bulk() took without a tracepoint: an
 * order-0 pcp head whose next event is its free (no mm_page_alloc) had left the
 * kernel's list; it leaves the model's too (as replay does at that free), and the
 * question is asked again.
 */
static int decide_bulk(struct teacher *t, struct model *m, const struct tc_req *r,
		       const struct model_request *q, struct model_decision *d)
{
	uint64_t first_moved = UINT64_MAX;
	int ret, n, mt;

	for (n = 0; n < 256; n++) {
		int next;

		ret = model_decide(m, q, d);
		if (ret || d->pfn == r->pfn)
			return ret;
		next = next_event(t, d->pfn, r->start_seq);
		if (d->pfn == first_moved)
			return 0;	/* every block of the list is such a block */
		if (d->source != MODEL_SRC_PCP && d->fallback_mt < 0 && next == TR_EV_OTHER &&
		    q->migratetype == 0 && model_pageblock_guessed(m, d->pfn) &&
		    !model_pageblock_mt(m, d->pfn, NULL, &mt, NULL) && mt == 0) {
			/*
			 * A free block on the UNMOVABLE list no later event names, in a
			 * pageblock whose UNMOVABLE type is a guess: __rmqueue_smallest()
			 * never took it for an unmovable request, so the block is not of
			 * that type: MOVABLE, the type of most blocks (counted).
			 */
			ret = model_seed_pageblock_type(m, d->pfn, 1);
			if (ret < 0)
				return ret;
			t->res->stale_types_fixed++;
			continue;
		}
		if (d->source != MODEL_SRC_PCP && d->fallback_mt < 0 && next == TR_EV_OTHER) {
			/*
			 * A free block at the head of its list that no later event names:
			 * the kernel's list did not have it there (its type or state is
			 * not the model's). To the tail (counted).
			 */
			ret = model_seed_free_move(m, d->pfn, true);
			if (ret < 0)
				return ret;
			if (first_moved == UINT64_MAX)
				first_moved = d->pfn;
			t->res->stale_free_moved++;
			continue;
		}
		if (d->source != MODEL_SRC_PCP || r->order)
			return 0;
		if (next == TR_EV_PAGE_FREE || next == TR_EV_OTHER) {
			/*
			 * Taken by alloc_pages_bulk() (no mm_page_alloc): freed later, or,
			 * when no later event names it, held to the end (vmalloc'd kernel
			 * stacks: a refill's pages the kernel then skipped). Not in the
			 * buddy: a free to the buddy past the list would have left
			 * NR_FREE_PAGES higher than the kernel's zone choices show.
			 */
			ret = model_page_alloc(m, d->pfn, 0, 0, r->mt, r->cpu);
			if (next == TR_EV_OTHER)
				t->res->bulk_held++;
			else
				t->res->bulk_inferred++;
		} else if ((next == TR_EV_ZONE_LOCKED || next == TR_EV_EXTFRAG) &&
			   !model_pageblock_mt(m, d->pfn, NULL, &mt, NULL)) {
			/*
			 * The buddy hands it out next: the kernel's pcp list did not hold
			 * it, its free went past the list (pcp trylock).
			 */
			ret = model_pcpu_drain(m, d->pfn, 0, mt, r->cpu);
			t->res->bypass_inferred++;
		} else {
			return 0;
		}
		if (ret)
			return ret;
	}
	return model_decide(m, q, d);
}

/*
 * The kind of the first event naming @pfn after @r began that is not one of @r's own
 * zone_locked events; TR_EV_OTHER: none.
 */
static int next_after_group(const struct teacher *t, const struct tc_req *r, uint64_t pfn)
{
	size_t i = pev_find(t->pev, t->nr_pev, pfn, r->start_seq);

	while (i < t->nr_pev && t->pev[i].pfn == pfn && t->pev[i].seq < r->seq &&
	       t->pev[i].kind == TR_EV_ZONE_LOCKED)
		i++;
	return i < t->nr_pev && t->pev[i].pfn == pfn ? t->pev[i].kind : TR_EV_OTHER;
}

/*
 * A refill the model makes for an order-0 request: alloc_pages_bulk() refills a pcp
 * list through __rmqueue_pcplist() as a single allocation does, but traces no
 * mm_page_alloc for the pages it takes. A page of the model's refill whose next event
 * after the refill is its free (or none) was taken so: under the undo journal the
 * model makes the refill, takes such pages off the head one by one, and answers with
 * the head that is left; then rolls back (replay applies the kernel's events).
 */
static int refill_bulk(struct teacher *t, struct model *m, const struct tc_req *r,
		       const struct model_request *q, struct model_decision *d)
{
	struct model_decision e = *d;
	unsigned int n;
	int ret, ret2;

	if (d->source != MODEL_SRC_REFILL || r->order || r->nr_zl < 2)
		return 0;
	ret = model_checkpoint(m);
	for (n = 0; !ret && n + 1 < r->nr_zl; n++) {
		int next = next_after_group(t, r, e.pfn);

		if (next != TR_EV_PAGE_FREE && next != TR_EV_OTHER)
			break;
		ret = model_take(m, q, &e);
		if (!ret)
			ret = model_decide(m, q, &e);
		if (ret || e.source == MODEL_SRC_NONE)
			break;
	}
	if (!ret && n && e.source != MODEL_SRC_NONE) {
		t->res->bulk_refills++;
		d->pfn = e.pfn;
	}
	ret2 = model_rollback(m);
	return ret < 0 ? ret : ret2;
}

/* refresh_cpu_vm_stats() on @cpu: each zone's NR_FREE_PAGES diff folded. */
static int fold_cpu(struct model *m, unsigned int cpu)
{
	unsigned int nz = model_get_layout(m)->nr_zones, zi;
	int ret = 0;

	for (zi = 0; zi < nz && !ret; zi++)
		ret = model_vmstat_fold(m, zi, cpu);
	return ret;
}

/* ... on every cpu. */
static int fold_all(struct model *m)
{
	unsigned int ncpu = model_get_layout(m)->nr_cpus, cpu;
	int ret = 0;

	for (cpu = 0; cpu < ncpu && !ret; cpu++)
		ret = fold_cpu(m, cpu);
	return ret;
}

/*
 * The smallest move of one cpu's NR_FREE_PAGES diff of @zone, in direction @dir and
 * within the stat threshold, with which the model chooses zone @kz for @q; the
 * requesting cpu first, another only for a smaller move. *@cpu, *@diff: the move
 * (*@cpu -1: none does). Made and rolled back under the undo journal.
 */
static int counter_move(struct model *m, const struct model_request *q, unsigned int zone,
			int dir, int kz, int *cpu, int64_t *diff)
{
	unsigned int ncpu = model_get_layout(m)->nr_cpus, k;
	int64_t best = INT64_MAX;
	int ret = 0;

	*cpu = -1;
	for (k = 0; k < ncpu && !ret; k++) {
		unsigned int c = (unsigned int)(q->cpu >= 0 && (unsigned int)q->cpu < ncpu ?
				 ((unsigned int)q->cpu + k) % ncpu : k);
		int64_t x0, thresh, x;
		int r2;

		ret = model_vmstat_get_diff(m, zone, c, &x0, &thresh);
		if (ret <= 0)
			break;
		ret = 0;
		for (x = x0 + dir; x >= -thresh && x <= thresh && llabs(x - x0) < best && !ret;
		     x += dir) {
			struct model_decision e;

			ret = model_checkpoint(m);
			if (ret)
				break;
			ret = model_vmstat_set_diff(m, zone, c, x);
			if (ret == 1)
				ret = model_decide(m, q, &e);
			r2 = model_rollback(m);
			if (!ret)
				ret = r2;
			if (!ret && e.source != MODEL_SRC_NONE && e.zone == kz) {
				best = llabs(x - x0);
				*cpu = (int)c;
				*diff = x;
			}
		}
	}
	return ret < 0 ? ret : 0;
}

/*
 * The kernel served the request from another zone than the model chose: the zone it
 * passed over was under its watermark, or the zone it took over it, as the kernel's
 * NR_FREE_PAGES counter read. The counter is the zone's free pages less the per-cpu
 * diffs not yet folded; each cpu's diffs are folded by its vmstat_update() (at a phase
 * vm_fold_tick() guesses where the capture does not trace it) and by quiet_vmstat()
 * when the cpu goes idle, which no event shows. If the model, with every diff folded,
 * would choose the kernel's zone, the kernel had them folded: fold them now
 * (vm_folds_inferred). Else, if one cpu's diff of the deciding zone, moved within the
 * stat threshold (a diff the kernel keeps), would: an idle fold earlier and the
 * changes since left it there; move it by the least that does (vm_diffs_inferred).
 * So the next questions read the counter the kernel read. Nothing else of the state
 * is learned from a disagreement.
 */
static int infer_counter(struct teacher *t, struct model *m, const struct tc_req *r,
			 const struct model_request *q, const struct model_decision *d)
{
	const struct model_layout *lay = model_get_layout(m);
	int kz = model_pfn_zone(m, r->pfn), ret, ret2, cpu, dir;
	struct model_decision e;
	unsigned int zone;
	int64_t diff = 0;

	if (kz < 0 || d->source == MODEL_SRC_NONE || d->zone == kz)
		return 0;
	ret = model_checkpoint(m);
	if (ret)
		return ret;
	ret = fold_all(m);
	if (!ret)
		ret = model_decide(m, q, &e);
	ret2 = model_rollback(m);
	if (ret || ret2)
		return ret ? ret : ret2;
	if (e.source != MODEL_SRC_NONE && e.zone == kz) {
		t->res->vm_folds_inferred++;
		return fold_all(m);
	}
	/* one node's zonelist: the higher zone first */
	if (d->zone < 0 || (unsigned int)d->zone >= lay->nr_zones ||
	    lay->zones[kz].nid != lay->zones[d->zone].nid)
		return 0;
	dir = kz < d->zone ? 1 : -1;
	zone = (unsigned int)(dir > 0 ? d->zone : kz);
	ret = counter_move(m, q, zone, dir, kz, &cpu, &diff);
	if (ret || cpu < 0)
		return ret;
	t->res->vm_diffs_inferred++;
	ret = model_vmstat_set_diff(m, zone, (unsigned int)cpu, diff);
	return ret < 0 ? ret : 0;
}

static int ask(struct teacher *t, struct replay *rp, const struct tc_req *r)
{
	struct model *m = rp_model(rp);
	const struct model_layout *lay = model_get_layout(m);
	struct model_request q = { .cpu = r->cpu, .order = r->order, .migratetype = r->mt,
				   .gfp = (uint32_t)r->gfp };
	struct model_decision d;
	struct tc_result *res = t->res;
	struct tc_counts *c = &res->by_source[r->src];
	bool same_pb;
	int ret;

	ret = decide_bulk(t, m, r, &q, &d);
	if (!ret)
		ret = refill_bulk(t, m, r, &q, &d);
	if (ret == -BC_E_INVAL)		/* a request the procedure does not take (order, type) */
		d.source = MODEL_SRC_NONE;
	else if (ret < 0)
		return ret;
	res->all.requests++;
	c->requests++;
	if (d.source == MODEL_SRC_NONE) {
		res->model_none++;
		d.pfn = UINT64_MAX;
	}
	same_pb = d.source != MODEL_SRC_NONE &&
		  d.pfn >> lay->pageblock_order == r->pfn >> lay->pageblock_order;
	res->all.same_pageblock += same_pb;
	c->same_pageblock += same_pb;
	if (d.source != MODEL_SRC_NONE && d.pfn == r->pfn) {
		res->all.same_pfn++;
		c->same_pfn++;
		return 0;
	}
	{
		enum tc_why w = classify(t, m, r, &d);

		if (w == TC_WHY_ZONE && (ret = infer_counter(t, m, r, &q, &d)))
			return ret;
		res->why[w]++;
		if (res->nr_dis >= t->max_dis) {
			res->dis_left_off++;
			return 0;
		}
		res->dis[res->nr_dis++] = (struct tc_dis){
			.seq = r->seq, .cpu = r->cpu, .order = r->order, .kernel_pfn = r->pfn,
			.model_pfn = d.pfn, .kernel_src = r->src, .model_src = d.source, .why = w };
	}
	return 0;
}

/*
 * One pcp list at the seed's end, in the order the trace implies: pages no event of
 * the read put there keep their order (the snapshot's pcp pages, model_seed_pcp()),
 * then each list entry of the read in time order, a free at the head, a refill at the
 * tail. The pages move to the tail in that order.
 */
static int reorder_list(struct teacher *t, struct model *m, uint64_t *pfns, long n, int cpu)
{
	uint64_t *dq = malloc((size_t)(3 * n) * sizeof(*dq)), *touched = dq + 2 * n;
	long front = n, back = n, nt = 0, i;
	int ret = 0;

	if (!dq)
		return bc_error(BC_E_NOMEM, "simulate: out of memory");
	for (i = 0; i < n; i++) {
		size_t e = pev_find(t->ent, t->nr_ent, pfns[i], t->seed_end);

		if (e > 0 && t->ent[e - 1].pfn == pfns[i] && t->ent[e - 1].kind / 2 == cpu)
			touched[nt++] = e - 1;
		else
			dq[back++] = pfns[i];
	}
	/* entries by time: a selection, lists are short */
	while (nt > 0) {
		long best = 0, k;
		const struct tc_pev *p;

		for (k = 1; k < nt; k++)
			if (t->ent[touched[k]].seq < t->ent[touched[best]].seq)
				best = k;
		p = &t->ent[touched[best]];
		if (p->kind & 1)
			dq[back++] = p->pfn;
		else
			dq[--front] = p->pfn;
		touched[best] = touched[--nt];
	}
	for (i = front; !ret && i < back; i++)
		ret = model_seed_pcp_move(m, dq[i]) < 0 ? -BC_E_NOMEM : 0;
	free(dq);
	return ret;
}

static int reorder_pcp_lists(struct teacher *t, struct model *m)
{
	const struct model_layout *lay = model_get_layout(m);
	unsigned int zone, cpu, o, orders[5] = { 0, 1, 2, 3, lay->pageblock_order };
	int mt, ret = 0;

	for (zone = 0; zone < lay->nr_zones; zone++)
		for (cpu = 0; cpu < lay->nr_cpus; cpu++)
			for (o = 0; o < 5; o++)
				for (mt = 0; mt < 3; mt++) {
					long n = model_pcp_list(m, zone, cpu, orders[o], mt, NULL, 0);
					uint64_t *pfns;

					if (n < 2)
						continue;
					pfns = malloc((size_t)n * sizeof(*pfns));
					if (!pfns)
						return bc_error(BC_E_NOMEM, "simulate: out of memory");
					model_pcp_list(m, zone, cpu, orders[o], mt, pfns, (unsigned int)n);
					ret = reorder_list(t, m, pfns, n, (int)cpu);
					free(pfns);
					if (ret)
						return ret;
				}
	return 0;
}

/*
 * vmstat_update() runs on each cpu about once a second (sysctl_stat_interval, HZ) and
 * folds its diffs into the counter (refresh_cpu_vm_stats()). Where the capture traces
 * it, each run folds its cpu's diffs (vm_track()); otherwise its phase is guessed:
 * each second of trace time from the first event, every cpu. Without it a diff under
 * the threshold would stay unfolded for as long as the cpu leaves the zone alone, and
 * a zone a few pages from its low watermark be taken on the wrong side of it (seen
 * on 6.12 in QEMU: Normal at 5,132 free pages, low 5,143, a diff of -24 never folded:
 * 36,439 requests the kernel served from DMA32 asked of Normal).
 */
#define TC_STAT_INTERVAL_NS	1000000000ull

static int vm_fold_tick(struct teacher *t, struct model *m, uint64_t ts)
{
	if (t->res->vmstat_traced)
		return 0;
	if (!t->vm_next_fold) {
		t->vm_next_fold = ts + TC_STAT_INTERVAL_NS;
		return 0;
	}
	if (ts < t->vm_next_fold)
		return 0;
	/* one round folds everything: a quiet gap of many seconds is one round */
	t->vm_next_fold += TC_STAT_INTERVAL_NS * ((ts - t->vm_next_fold) / TC_STAT_INTERVAL_NS + 1);
	return fold_all(m);
}

/*
 * The kernel changes a zone's NR_FREE_PAGES with __mod_zone_page_state() on the cpu
 * at work, and the watermark checks read the counter without the diffs not yet
 * folded (model_vmstat_mod_free()). Where it does, as the events show: each block a
 * free puts in the buddy (__free_one_page(): free_one_page(), and free_pcppages_bulk()
 * per drained page), a buddy allocation (rmqueue_buddy()), and before v6.10 a pcp
 * refill once for all its blocks at its end (rmqueue_bulk(): -(i << order)); from
 * v6.10 account_freepages() at each list operation, taken per event here (the
 * expand() halves of one take are not told apart: an approximation). The change an
 * event makes is read from the model's free pages after it, at the next event.
 */
static int vm_track(struct teacher *t, struct model *m, const struct tr_event *ev)
{
	unsigned int nz = model_get_layout(m)->nr_zones, ncpu = model_get_layout(m)->nr_cpus;
	bool grouped = !model_get_profile(m)->freelist_hygiene;
	bool refill = ev->kind == TR_EV_ZONE_LOCKED && ev->percpu_refill && grouped;
	unsigned int zi;
	int ret = 0;

	if (!t->vm_last) {
		t->vm_last = calloc(nz, sizeof(*t->vm_last));
		t->vm_refill = calloc((size_t)nz * ncpu, sizeof(*t->vm_refill));
		if (!t->vm_last || !t->vm_refill)
			return bc_error(BC_E_NOMEM, "simulate: out of memory");
		for (zi = 0; zi < nz; zi++)
			t->vm_last[zi] = model_zone_nr_free(m, zi);
		t->vm_cpu = -1;
	}
	for (zi = 0; zi < nz && !ret; zi++) {
		uint64_t f = model_zone_nr_free(m, zi);
		int64_t d = (int64_t)f - (int64_t)t->vm_last[zi];

		t->vm_last[zi] = f;
		if (t->vm_cpu < 0 || (unsigned int)t->vm_cpu >= ncpu || !d)
			continue;
		if (t->vm_was_refill)
			t->vm_refill[(unsigned int)t->vm_cpu * nz + zi] += d;
		else
			ret = model_vmstat_mod_free(m, zi, (unsigned int)t->vm_cpu, d);
	}
	/* the refill on this cpu is over: rmqueue_bulk()'s one change */
	if (!ret && !refill && ev->cpu >= 0 && (unsigned int)ev->cpu < ncpu) {
		int64_t *r = &t->vm_refill[(unsigned int)ev->cpu * nz];

		for (zi = 0; zi < nz && !ret; zi++)
			if (r[zi]) {
				ret = model_vmstat_mod_free(m, zi, (unsigned int)ev->cpu, r[zi]);
				r[zi] = 0;
			}
	}
	t->vm_cpu = ev->cpu;
	t->vm_was_refill = refill;
	if (!ret && ev->kind == TR_EV_VMSTAT_UPDATE && t->res->vmstat_traced &&
	    ev->cpu >= 0 && (unsigned int)ev->cpu < ncpu) {
		t->res->vmstat_updates++;
		ret = fold_cpu(m, (unsigned int)ev->cpu);
	}
	return ret ? ret : vm_fold_tick(t, m, ev->ts);
}

/*
 * The request's pcp sizing after its question: the zones the kernel visited (its
 * ZONE_BELOW_HIGH checks) and, through the pcp lists, rmqueue_pcplist()'s (tc-pcp.h).
 */
static int ask_pcp(struct teacher *t, struct model *m, const struct tc_req *r)
{
	struct model_request q = { .cpu = r->cpu, .order = r->order, .migratetype = r->mt,
				   .gfp = (uint32_t)r->gfp };
	int zone = model_pfn_zone(m, r->pfn);
	bool pcp = r->order < 32 && (model_get_profile(m)->pcp_orders & (1u << r->order)) &&
		   (r->src == MODEL_SRC_PCP || r->refill);

	/* from v6.10 a fallback's page is traced by its extfrag event alone */
	uint64_t blocks = r->nr_zl + (model_get_profile(m)->freelist_hygiene ? r->nr_extfrag : 0);

	if (zone < 0)
		return 0;
	return tc_pcp_alloc(t->pcp, m, &q, (unsigned int)zone, pcp, r->refill,
			    r->order < 32 ? blocks << r->order : 0, &t->res->pcp);
}

static int attempt_begin(void *arg, struct replay *rp, const struct tr_attempt *a)
{
	struct teacher *t = arg;

	return a->kind == TR_ATTEMPT_OFFLINE ?
	       tc_pcp_offline(t->pcp, rp_model(rp), a->start_pfn, true) : 0;
}

static int attempt_end(void *arg, struct replay *rp, const struct tr_attempt *a)
{
	struct teacher *t = arg;

	return a->kind == TR_ATTEMPT_OFFLINE ?
	       tc_pcp_offline(t->pcp, rp_model(rp), a->start_pfn, false) : 0;
}

static int after_event(void *arg, struct replay *rp, const struct tr_event *ev)
{
	struct teacher *t = arg;

	return tc_pcp_after(t->pcp, rp_model(rp), ev, &t->res->pcp);
}

/*
 * A later snapshot's zoneinfo, read at its begin: the true limits, each pcp->high and
 * pcp->count there (the teacher asks from the true state).
 */
static int snapshot_sync(struct teacher *t, struct model *m, uint64_t seq)
{
	const struct model_layout *L = model_get_layout(m);
	int ret = 0;

	while (!ret && t->next_snap < t->nr_snaps &&
	       (uint64_t)t->snaps[t->next_snap].seq_begin <= seq) {
		size_t n = (size_t)L->nr_zones * L->nr_cpus + 1;
		uint32_t *counts = calloc(n, sizeof(*counts)), *high = calloc(n, sizeof(*high));
		uint32_t cnt;

		if (!counts || !high) {
			free(counts);
			free(high);
			return bc_error(BC_E_NOMEM, "simulate: out of memory");
		}
		for (unsigned int z = 0; z < L->nr_zones; z++)
			for (unsigned int c = 0; c < L->nr_cpus; c++)
				model_get_pcp(m, z, c, &cnt, &high[(size_t)z * L->nr_cpus + c]);
		unsigned int nr = 0;

		ret = rp_zone_limits_counts(t->db, t->snaps[t->next_snap++].id, m, &nr, counts);
		/* a snapshot without zoneinfo says nothing (its window is passed over) */
		tc_pcp_sync(t->pcp, m, !ret && nr ? counts : NULL, &t->res->pcp);
		if (!ret && nr)
			tc_pcp_sync_high(t->pcp, m, high, &t->res->pcp);
		free(counts);
		free(high);
	}
	return ret;
}

static int before_event(void *arg, struct replay *rp, const struct tr_event *ev)
{
	struct teacher *t = arg;
	int vret = ev->seq >= t->seed_end ? snapshot_sync(t, rp_model(rp), ev->seq) : 0;

	if (!vret)
		vret = tc_pcp_before(t->pcp, rp_model(rp), ev, &t->res->pcp);
	if (!vret)
		vret = vm_track(t, rp_model(rp), ev);
	if (vret)
		return vret;

	if (!t->reordered && ev->seq >= t->seed_end) {
		int ret = reorder_pcp_lists(t, rp_model(rp));

		if (ret)
			return ret;
		t->reordered = true;
	}
	while (t->next < t->nr && t->req[t->next].start_seq <= ev->seq) {
		const struct tc_req *r = &t->req[t->next++];
		int ret;

		if (r->start_seq < ev->seq || r->start_seq < t->seed_end) {
			t->res->not_asked++;
			continue;
		}
		ret = ask(t, rp, r);
		if (!ret)
			ret = ask_pcp(t, rp_model(rp), r);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The seed snapshot's end, its zoneinfo limits, and the pcp sizing's state (its
 * zoneinfo pcp->counts).
 */
static int prepare(struct teacher *t, struct tdb *db, struct replay *rp)
{
	struct model *m = rp_model(rp);
	const struct model_layout *L = model_get_layout(m);
	uint32_t *counts = calloc((size_t)L->nr_zones * L->nr_cpus + 1, sizeof(*counts));
	struct tdb_snap_info si;
	int ret = counts ? tdb_snap_get(db, rp_seed_snapshot(rp), &si) : -BC_E_NOMEM;

	if (!ret) {
		t->seed_end = si.seq_end > 0 ? (uint64_t)si.seq_end : 0;
		t->pb_order = L->pageblock_order;
		ret = rp_zone_limits_counts(db, si.id, m, &t->res->zones_with_limits, counts);
	}
	/* pcp->high and alloc_factor at the seed's end, not zoneinfo's at its begin */
	if (!ret)
		ret = tc_pcp_seed_window(db, rp_decoder(rp), m,
					 si.seq_begin > 0 ? (uint64_t)si.seq_begin : 0, t->seed_end,
					 counts, &t->res->pcp_window);
	if (!ret)
		ret = tc_pcp_create(m, si.seq_begin > 0 ? (uint64_t)si.seq_begin : 0, t->seed_end,
				    counts, &t->pcp);
	free(counts);
	if (!ret)
		ret = tdb_snap_list(db, &t->snaps, &t->nr_snaps);
	/* the first one read after the seed's end */
	while (!ret && t->next_snap < t->nr_snaps &&
	       t->snaps[t->next_snap].seq_begin < (int64_t)t->seed_end)
		t->next_snap++;
	/* each one's zone files: from its begin marker to its first "pages" marker */
	for (int i = t->next_snap; !ret && i < t->nr_snaps; i++) {
		struct tr_pages_mark *marks = NULL;
		int n = 0;

		ret = tr_pages_marks(db, &t->snaps[i], &marks, &n);
		if (!ret)
			ret = tc_pcp_add_window(t->pcp, (uint64_t)t->snaps[i].seq_begin,
						(uint64_t)(n ? (int64_t)marks[0].seq :
							   t->snaps[i].seq_end));
		free(marks);
	}
	t->db = db;
	return ret;
}

int tc_run(struct tdb *db, const struct rp_opts *opts, unsigned int max_dis,
	   struct tc_result *out)
{
	struct teacher t = { .max_dis = max_dis, .res = out };
	struct rp_hooks h = { .arg = &t, .before_event = before_event, .after_event = after_event,
			      .attempt_begin = attempt_begin, .attempt_end = attempt_end };
	struct replay *rp = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	out->dis = calloc(max_dis ? max_dis : 1, sizeof(*out->dis));
	if (!out->dis)
		return bc_error(BC_E_NOMEM, "simulate: out of memory");
	ret = rp_create(db, opts, &rp);
	if (!ret) {
		t.m = rp_model(rp);
		ret = prepare(&t, db, rp);
	}
	if (!ret) {
		out->vmstat_traced = tr_decoder_has(rp_decoder(rp), TR_EV_VMSTAT_UPDATE);
		ret = find_requests(&t, db, rp_decoder(rp), opts->until_seq);
	}
	if (!ret)
		ret = seed_pcp_lists(&t, rp_model(rp));
	if (!ret) {
		/* qsort() of an empty (NULL) array is undefined */
		if (t.nr_pev)
			qsort(t.pev, t.nr_pev, sizeof(*t.pev), cmp_pev);
		if (t.nr_ent)
			qsort(t.ent, t.nr_ent, sizeof(*t.ent), cmp_pev);
		if (t.nr)
			qsort(t.req, t.nr, sizeof(*t.req), cmp_start);
		ret = rp_run(rp, &h);
	}
	if (!ret)
		ret = tc_pcp_finish(t.pcp, rp_model(rp), &out->pcp);
	tc_pcp_destroy(t.pcp);
	/* requests the run did not reach (--until cuts a group) are not counted */
	out->events = rp ? rp_events_applied(rp) : 0;
	rp_destroy(rp);
	free(t.req);
	free(t.open);
	free(t.seen.slot);
	free(t.takes);
	free(t.pev);
	free(t.ent);
	free(t.types);
	free(t.vm_last);
	free(t.snaps);
	free(t.vm_refill);
	if (ret)
		tc_result_free(out);
	return ret;
}

void tc_result_free(struct tc_result *r)
{
	free(r->dis);
	r->dis = NULL;
	r->nr_dis = 0;
}

/* A pcp sizing kind as rows "pcp:KIND:FIGURE" (requests = the figure). */
static int store_pcp(struct tdb_results *w, const char *kind, const struct tc_pcp_kind *k)
{
	const struct { const char *name; uint64_t v; } f[] = {
		{ "asked", k->asked }, { "alike", k->alike }, { "missed", k->missed },
		{ "extra", k->extra }, { "pages_kernel", k->pages_kernel },
		{ "pages_model", k->pages_model },
	};
	char key[64];
	int ret = 0;

	for (size_t i = 0; !ret && i < sizeof(f) / sizeof(f[0]); i++) {
		snprintf(key, sizeof(key), "pcp:%s:%s", kind, f[i].name);
		ret = tdb_results_teacher(w, key, f[i].v, UINT64_MAX, 0);
	}
	return ret;
}

int tc_store_results(struct tdb *db, const struct tc_result *r)
{
	const struct { const char *key; uint64_t v; } pcp_more[] = {
		{ "pcp:unexplained_drain_pages", r->pcp.unexplained_drain_pages },
		{ "pcp:synced_lists", r->pcp.synced_lists },
		{ "pcp:synced_count_off", r->pcp.synced_count_off },
		{ "pcp:synced_lists_moving", r->pcp.synced_lists_moving },
		{ "pcp:synced_high_lists", r->pcp.synced_high_lists },
		{ "pcp:synced_high_equal", r->pcp.synced_high_equal },
		{ "pcp:synced_high_off", r->pcp.synced_high_off },
	};
	struct tdb_results *w;
	char key[48];
	unsigned int i;
	int ret = tdb_results_begin(db, &w);

	if (ret)
		return ret;
	ret = tdb_results_teacher_clear(w);
	if (!ret)
		ret = tdb_results_teacher(w, "all", r->all.requests, r->all.same_pfn,
					  r->all.same_pageblock);
	for (i = 0; !ret && i < MODEL_SRC_NONE; i++) {
		const struct tc_counts *c = &r->by_source[i];

		snprintf(key, sizeof(key), "source:%s", model_source_name(i));
		ret = tdb_results_teacher(w, key, c->requests, c->same_pfn, c->same_pageblock);
	}
	for (i = 0; !ret && i < TC_NR_WHY; i++) {
		snprintf(key, sizeof(key), "why:%s", tc_why_name(i));
		if (r->why[i])
			ret = tdb_results_teacher(w, key, r->why[i], UINT64_MAX, 0);
	}
	ret = ret ? ret : store_pcp(w, "drains", &r->pcp.commit);
	ret = ret ? ret : store_pcp(w, "refills", &r->pcp.refill);
	ret = ret ? ret : store_pcp(w, "decays", &r->pcp.decay);
	for (i = 0; !ret && i < sizeof(pcp_more) / sizeof(pcp_more[0]); i++)
		ret = tdb_results_teacher(w, pcp_more[i].key, pcp_more[i].v, UINT64_MAX, 0);
	for (i = 0; !ret && i < r->nr_dis; i++) {
		const struct tc_dis *d = &r->dis[i];
		struct tdb_teacher_dis row = {
			.seq = d->seq, .cpu = d->cpu, .order = d->order, .kernel_pfn = d->kernel_pfn,
			.model_pfn = d->model_pfn, .kernel_source = model_source_name(d->kernel_src),
			.model_source = model_source_name(d->model_src), .why = tc_why_name(d->why) };

		ret = tdb_results_teacher_disagreement(w, &row);
	}
	if (!ret)
		ret = tdb_results_commit(w);
	if (ret)
		tdb_results_abort(w);
	return ret;
}
