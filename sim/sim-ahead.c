// SPDX-License-Identifier: GPL-2.0
/* sim-ahead: the pass ahead over a capture's events (sim-ahead.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/grow.h"
#include "common/u64set.h"
#include "db/tdb.h"
#include "model/model.h"
#include "sim/sim-ahead.h"
#include "trace/tr-attempt.h"
#include "trace/tr-event.h"

/*
 * pending[pfn]: seq - seq_from + 1 of the page's last free when no event has named the
 * page since, else 0. A range taken without page events names all its pages.
 */
static void pending_clear(uint32_t *pending, uint64_t end, uint64_t from, uint64_t to)
{
	for (uint64_t p = from; p < to && p < end; p++)
		pending[p] = 0;
}

/*
 * A cpu's allocation in the making, for the pass ahead: the first zone_locked of a
 * refill or buddy allocation, and the requests counted when it came.
 */
struct making {
	uint64_t seq, ts, pfn;		/* the first zone_locked (or extfrag) */
	uint64_t last_seq, last_ts;	/* the batch's last so far */
	unsigned int order;
	bool valid;
	bool last_locked;		/* this cpu's last event was a zone_locked/extfrag */
	uint64_t own;			/* this cpu's events so far */
	uint64_t all_at, own_at;	/* events (all cpus, this cpu) at the first */
	uint64_t all_last, own_last;	/* ... at the batch's last */
	uint64_t prev_seq, prev_ts;	/* this cpu's last event */
	uint64_t prev_all, prev_own;	/* events (all cpus, this cpu) after it */
	/*
	 * Frees since this cpu's last mm_page_free_batched, no other event between: the
	 * prepared pages of a new batch, or an interrupt's frees inside the commit loop
	 * (the next commit tells which).
	 */
	bool after_batched;
	struct cand {
		uint64_t pfn, seq;
	} *cand;
	size_t nr_cand, cap_cand;
};

static int making_of(struct making **v, size_t *nr, int cpu, struct making **out)
{
	int ret;

	*out = NULL;
	if (cpu < 0 || cpu >= 65536)
		return 0;
	ret = bc_grow_index(v, nr, (size_t)cpu, sizeof(**v), "simulate");
	if (!ret)
		*out = &(*v)[cpu];
	return ret;
}

static int cmp_settle(const void *a, const void *b)
{
	const struct sim_settle *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_early(const void *a, const void *b)
{
	const struct sim_early *x = a, *y = b;

	if (x->at_seq != y->at_seq)
		return x->at_seq < y->at_seq ? -1 : 1;
	return x->nth < y->nth ? -1 : x->nth > y->nth;
}

/* Hand @rq out before event @at_seq (at @at_ts): an early or inferred allocation. */
static int add_early(struct sim_ahead *out, size_t *cap, uint64_t at_seq, uint64_t at_ts,
		     const struct sim_request *rq)
{
	int ret = bc_grow(&out->early, out->nr_early, cap, sizeof(*out->early), 64, "simulate");

	if (ret)
		return ret;
	out->early[out->nr_early] = (struct sim_early){ .at_seq = at_seq, .at_ts = at_ts,
							.nth = out->nr_early, .rq = *rq };
	out->nr_early++;
	return 0;
}

/* The allocation @ev of @mk's cpu: early when others' requests came since its decision. */
static int making_alloc(struct sim_ahead *out, size_t *cap, size_t *cap_settles,
			struct making *mk, const struct tr_event *ev, uint64_t all,
			uint64_t record_from)
{
	uint64_t inside;
	int ret;

	if (ev->pfn == UINT64_MAX) {
		mk->valid = false;
		return 0;
	}
	if (!mk->valid || ev->pfn != mk->pfn || ev->order != mk->order)
		return 0;
	mk->valid = false;
	inside = (mk->all_last - mk->all_at) - (mk->own_last - mk->own_at);
	if (all - mk->all_at == mk->own - mk->own_at || mk->seq < record_from)
		return 0;	/* nothing of another cpu came since the decision */
	ret = add_early(out, cap, mk->seq, mk->ts, &(struct sim_request){
		.kind = SIM_REQ_ALLOC, .seq = ev->seq, .ts = ev->ts, .cpu = ev->cpu,
		.order = ev->order, .mt = ev->mt, .gfp = ev->gfp, .pfn = ev->pfn,
		.nr_pages = ev->order < 63 ? 1ull << ev->order : 0, .early = true,
		.held = inside != 0 });
	if (!ret && inside)
		ret = bc_grow(&out->settles, out->nr_settles, cap_settles,
			      sizeof(*out->settles), 64, "simulate");
	if (ret)
		return ret;
	if (inside)
		out->settles[out->nr_settles++] = (struct sim_settle){ mk->last_seq,
									mk->last_ts, ev->cpu };
	return 0;
}

/*
 * A cpu's order-0 pcp list of one migratetype as the pass ahead sees it: the frees
 * onto it, oldest first (kernel pfns and the free's rel seq; an entry is stale once
 * pending[] no longer holds that free: an event has named the page since).
 */
struct free_stack {
	struct stack_ent {
		uint64_t pfn, ts;
		uint32_t rel;
		bool near_drain;	/* freed amid another cpu's drain burst */
	} *v;
	size_t n, cap, live;		/* live: n after the last sweep of stale entries */
};

/* A cpu's last refill of one list, in the order rmqueue_bulk() appended its pages. */
struct refill_run {
	struct stack_ent *v;
	size_t head, n, cap;		/* head: the first not yet passed */
};

/*
 * A cpu's batch free (free_unref_folios(); free_unref_page_list() before 6.9): the
 * mm_page_free of each page as it is prepared, then each page's mm_page_free_batched
 * as it is committed to the pcp list. The frees of the run of mm_page_free last begun
 * on the cpu, not yet committed, from @head on.
 */
struct batch_run {
	struct batch_free {
		uint64_t pfn, seq;
	} *v;
	size_t head, n, cap;
	enum tr_event_kind last;	/* the cpu's last event */
	bool irq;			/* its frees since its last commit: an interrupt's,
					 * or a new batch's (@side) */
	struct batch_free *side;	/* those frees, until a commit tells which */
	size_t nr_side, cap_side;
};

#define RECENT	4096		/* events a high-order pcp hit's decision looks back over */

struct ahead_pass {
	const struct sim_ahead_geo *g;
	uint64_t seq_from;
	uint64_t record_from;		/* requests from this event on (the seed's end) */
	uint32_t *pending;		/* PEND_REFILL | rel: refilled at rel, no event since */
	uint8_t *refill_cpu;		/* by pfn: the cpu of that refill */
	uint64_t *seen;			/* by pfn, a bit: an event named it */
	uint64_t *to_pcp;		/* by pfn, a bit: its last free was of a pcp order */
	int8_t *pb_list;		/* by pageblock: the pcp list its frees join, -1 not known */
	struct free_stack *stacks;	/* [(cpu * nr_zones + zone) * SIM_PCP_LISTS + list] */
	struct refill_run *runs;	/* the same */
	size_t nr_cpus;
	struct making *mks;
	size_t nr_mks;
	struct batch_run *runs_b;	/* by cpu */
	size_t nr_runs_b;
	size_t cap_deferred;
	size_t next_att;		/* g->att[] not yet begun */
	size_t *iso;			/* those begun and not ended: isolating */
	size_t nr_iso, cap_iso;
	size_t cap_reused, cap_early, cap_settles, cap_taken_refills, cap_past;
	size_t cap_first_refills;
	/* by cpu: its order-0 refill under way (zone + 1: 0 none, UINT_MAX not one), its
	 * pages, and the zones whose first refill was found (by bit) */
	struct fr_watch {
		unsigned int zone, pages;
		uint32_t done;
	} *fr;
	size_t nr_fr;
	uint64_t all;			/* events counted for the early allocations */
	uint64_t zero_ns;		/* the shortest decision-to-event of a refilled
					 * high-order allocation so far */
	struct recent {
		uint64_t seq, ts;
	} recent[RECENT];		/* the last events (a ring) */
	uint64_t recent_n;
	uint64_t drain_ts;		/* the last drain event: its time and cpu */
	int drain_cpu;
	/* high-order pages a refill put on a pcp list, no event naming them since */
	struct hi_ent {
		uint64_t pfn;
		uint64_t gone_seq, gone_ts;	/* a drain passed over their list: gone
						 * before that (0: not known) */
		int cpu;
		unsigned int zone, pindex, order;
	} *hi;
	size_t nr_hi, cap_hi;
	struct drain_burst *bursts;	/* by cpu: its drain events since its last other */
	size_t nr_bursts;
	struct sim_ahead *out;
};

/*
 * drain_all_pages() drains every cpu's lists from one cpu, under each list's pcp lock:
 * a free on a cpu whose lists another cpu is draining fails the trylock and goes to
 * the buddy (free_one_page()), which no event shows. A free this close after another
 * cpu's drain event may have.
 */
#define NEAR_DRAIN_NS	50000ull

#define PEND_REFILL	(1u << 31)

/* Has an event named @pfn since the pass began? */
static bool seen(const struct ahead_pass *P, uint64_t pfn)
{
	return P->seen[pfn / 64] & (1ull << (pfn % 64));
}

static void mark_seen(struct ahead_pass *P, const struct tr_event *ev)
{
	uint64_t p, end = ev->pfn + (ev->order < 20 ? 1ull << ev->order : 1);

	if (end > P->g->pfn_end)
		end = P->g->pfn_end;
	for (p = ev->pfn; p < end; p++)
		P->seen[p / 64] |= 1ull << (p % 64);
}

/* The page's refill is the one @ev's allocation (on its cpu) made for itself. */
static bool own_refill(const struct ahead_pass *P, const struct tr_event *ev)
{
	const struct making *mk = ev->cpu >= 0 && (size_t)ev->cpu < P->nr_mks ?
				  &P->mks[ev->cpu] : NULL;

	return mk && mk->valid && mk->pfn == ev->pfn && mk->order == ev->order;
}

/* free_frozen_pages(): a type past the pcp types joins the MOVABLE list (trace numbers). */
static int pcp_list_of(int mt)
{
	return mt < 0 ? -1 : mt < SIM_PCP_LISTS ? mt : 1;
}

static int add_reused(struct ahead_pass *P, uint32_t rel)
{
	struct sim_ahead *out = P->out;
	int ret = bc_grow(&out->reused, out->nr_reused, &P->cap_reused, sizeof(*out->reused),
			  64, "simulate");

	if (!ret)
		out->reused[out->nr_reused++] = P->seq_from + rel - 1;
	return ret;
}

/* @cpu's list @list of the zone of @pfn; NULL (*@err 0) where none is followed. */
static struct free_stack *stack_of(struct ahead_pass *P, int cpu, uint64_t pfn, int list,
				   int *err)
{
	size_t per_cpu = (size_t)P->g->nr_zones * SIM_PCP_LISTS;
	int zone = P->g->pb_zone ? P->g->pb_zone[pfn >> P->g->pageblock_order] : -1;

	*err = 0;
	if (cpu < 0 || cpu >= 65536 || list < 0 || zone < 0 ||
	    (unsigned int)zone >= P->g->nr_zones)
		return NULL;
	if ((size_t)cpu >= P->nr_cpus) {
		size_t nr = P->nr_cpus;

		*err = bc_grow_index(&P->stacks, &nr, (size_t)cpu, per_cpu * sizeof(*P->stacks),
				     "simulate");
		nr = P->nr_cpus;
		if (!*err)
			*err = bc_grow_index(&P->runs, &nr, (size_t)cpu,
					     per_cpu * sizeof(*P->runs), "simulate");
		if (*err)
			return NULL;
		P->nr_cpus = nr;
	}
	return &P->stacks[(size_t)cpu * per_cpu + (size_t)zone * SIM_PCP_LISTS + (size_t)list];
}

/* The refill run of the list @st is (stack_of()). */
static struct refill_run *run_of(struct ahead_pass *P, const struct free_stack *st)
{
	return &P->runs[st - P->stacks];
}

/* Still where its free put it: no event named the page since (rel 0: a free past the list). */
static bool ent_live(const struct ahead_pass *P, const struct stack_ent *e)
{
	return e->rel && P->pending[e->pfn] == e->rel;
}

/* The attempts that hold their range isolated at event @seq (begun, not ended). */
static int iso_track(struct ahead_pass *P, uint64_t seq)
{
	const struct sim_ahead_geo *g = P->g;
	size_t i, k;
	int ret = 0;

	for (i = k = 0; i < P->nr_iso; i++)
		if (g->att[P->iso[i]].seq_end >= seq)
			P->iso[k++] = P->iso[i];
	P->nr_iso = k;
	for (; P->next_att < g->nr_att && g->att[P->next_att].seq_begin <= seq && !ret;
	     P->next_att++) {
		if (g->att[P->next_att].seq_end < seq)
			continue;
		ret = bc_grow(&P->iso, P->nr_iso, &P->cap_iso, sizeof(*P->iso), 8, "simulate");
		if (!ret)
			P->iso[P->nr_iso++] = P->next_att;
	}
	return ret;
}

static bool isolated(const struct ahead_pass *P, uint64_t pfn)
{
	for (size_t i = 0; i < P->nr_iso; i++) {
		const struct tr_attempt *a = &P->g->att[P->iso[i]];

		if (pfn >= a->start_pfn && pfn < a->end_pfn)
			return true;
	}
	return false;
}

/* An order-0 free of a page whose pageblock's list is known: onto @cpu's list. */
static int stack_push(struct ahead_pass *P, const struct tr_event *ev, uint32_t rel)
{
	uint64_t pb = ev->pfn >> P->g->pageblock_order;
	struct free_stack *st;
	size_t i, k;
	int ret;

	if (ev->order || !rel || !P->pb_list || P->pb_list[pb] < 0 || isolated(P, ev->pfn))
		return 0;
	st = stack_of(P, ev->cpu, ev->pfn, P->pb_list[pb], &ret);
	if (!st)
		return ret;
	if (st->n >= 2 * st->live + 256) {
		for (i = k = 0; i < st->n; i++)
			if (ent_live(P, &st->v[i]))
				st->v[k++] = st->v[i];
		st->n = st->live = k;
	}
	ret = bc_grow(&st->v, st->n, &st->cap, sizeof(*st->v), 64, "simulate");
	if (!ret)
		st->v[st->n++] = (struct stack_ent){
			ev->pfn, ev->ts, rel,
			P->drain_cpu >= 0 && P->drain_cpu != ev->cpu && ev->ts >= P->drain_ts &&
			ev->ts - P->drain_ts < NEAR_DRAIN_NS };
	return ret;
}

/*
 * A pcp hit on the refilled page of @ev (refilled at @rel): the pages its refill put
 * before it that no event has named since had left the list untraced too. They are
 * allocations the trace does not show, made before @ev's (inferred: their own pfns
 * the identity, @ev's type and gfp).
 */
/*
 * An allocation the trace does not show of the page @pfn, made before event @at_seq (at
 * @at_ts; the pcp hit @ev or earlier), of @ev's cpu, type and gfp. @refill_rel: the
 * refill that put the page on the list, 0 for a free.
 */
static int infer_alloc(struct ahead_pass *P, const struct tr_event *ev, uint64_t at_seq,
		       uint64_t at_ts, uint64_t pfn, uint32_t refill_rel)
{
	struct sim_ahead *out = P->out;
	int ret = add_early(out, &P->cap_early, at_seq, at_ts, &(struct sim_request){
		.kind = SIM_REQ_ALLOC, .seq = at_seq, .ts = at_ts, .cpu = ev->cpu, .order = 0,
		.mt = ev->mt, .gfp = ev->gfp, .pfn = pfn, .nr_pages = 1, .inferred = true });

	if (ret)
		return ret;
	out->nr_inferred++;
	P->pending[pfn] = 0;
	if (!refill_rel)
		return 0;
	ret = bc_grow(&out->taken_refills, out->nr_taken_refills, &P->cap_taken_refills,
		      sizeof(*out->taken_refills), 64, "simulate");
	if (!ret)
		out->taken_refills[out->nr_taken_refills++] = P->seq_from + refill_rel - 1;
	return ret;
}

/*
 * The hit @ev on a page its cpu's last refill put on the list: the pages before it
 * that no event named since left the list untraced. When the refill's first page is
 * among them, no traced allocation took it: the refill was an untraced allocation's
 * (alloc_pages_bulk(): rmqueue_bulk() fills an empty list, then the bulk takes its
 * pages), so they are made right after the refill's last block, as the kernel took
 * them, not at the hit: a refill of another list in between comes after them (its
 * take off the buddy otherwise finds their blocks still there).
 */
static int run_hit(struct ahead_pass *P, struct refill_run *rr, const struct tr_event *ev,
		   uint32_t rel)
{
	uint64_t at_seq = ev->seq, at_ts = ev->ts;
	size_t j, k;
	int ret = 0;

	for (j = rr->head; j < rr->n && !(rr->v[j].pfn == ev->pfn && rr->v[j].rel == rel); j++)
		;
	if (j == rr->n)
		return 0;
	if (!rr->head && j && P->pending[rr->v[0].pfn] == (PEND_REFILL | rr->v[0].rel)) {
		at_seq = P->seq_from + rr->v[rr->n - 1].rel;
		at_ts = rr->v[rr->n - 1].ts;
	}
	for (k = rr->head; k < j && !ret; k++) {
		const struct stack_ent *e = &rr->v[k];

		if (P->pending[e->pfn] != (PEND_REFILL | e->rel))
			continue;
		if (ev->seq < P->record_from)
			P->pending[e->pfn] = 0;	/* the seed has it */
		else
			ret = infer_alloc(P, ev, at_seq, at_ts, e->pfn, e->rel);
	}
	rr->head = j + 1;
	return ret;
}

/* A refill's page @ev onto its cpu's list: a new refill (@first) starts a new run. */
static int run_push(struct ahead_pass *P, const struct tr_event *ev, uint32_t rel, bool first)
{
	struct refill_run *rr;
	int ret;
	struct free_stack *st = stack_of(P, ev->cpu, ev->pfn, pcp_list_of(ev->mt), &ret);

	if (!st)
		return ret;
	rr = run_of(P, st);
	if (first)
		rr->head = rr->n = 0;
	ret = bc_grow(&rr->v, rr->n, &rr->cap, sizeof(*rr->v), 64, "simulate");
	if (!ret)
		rr->v[rr->n++] = (struct stack_ent){ ev->pfn, ev->ts, rel, false };
	return ret;
}

/*
 * The live entries of @st from @from on had left the list untraced before @ev (a pcp
 * hit, a refill): in the seed's window the seed has them; freed before the requests
 * start, each is an allocation inferred before @ev; else its free is reused. A free at
 * @ev's very time may have come after it (the order is not told), and with @keep_near
 * one freed amid another cpu's drain may never have been on the list: those stay, from
 * @w on, where the list is cut.
 */
static int stack_take(struct ahead_pass *P, struct free_stack *st, size_t from, size_t w,
		      const struct tr_event *ev, bool keep_near)
{
	size_t k;
	int ret = 0;

	for (k = from; k < st->n && !ret; k++) {
		if (!ent_live(P, &st->v[k]))
			continue;
		if (st->v[k].ts == ev->ts || (keep_near && st->v[k].near_drain)) {
			st->v[w++] = st->v[k];
			continue;
		}
		if (ev->seq < P->record_from) {
			P->pending[st->v[k].pfn] = 0;	/* the seed has it */
		} else if (P->seq_from + st->v[k].rel - 1 < P->record_from) {
			ret = infer_alloc(P, ev, ev->seq, ev->ts, st->v[k].pfn, 0);
		} else {
			ret = add_reused(P, st->v[k].rel);
			P->pending[st->v[k].pfn] = 0;
			P->out->nr_taken++;
		}
	}
	st->n = w;
	if (st->live > st->n)
		st->live = st->n;
	return ret;
}

/*
 * An order-0 allocation on a cpu of a page that lay on that cpu's list (freed there,
 * or refilled there by rmqueue_bulk(), with no event since): a pcp hit from the head,
 * so every page freed onto the list after it that no event has named since had left
 * the list untraced (alloc_pages_bulk()): their frees are reused. The allocation whose
 * own refill it was took the head at once (an interrupt's frees meanwhile went past
 * the locked list). A page not found where its free put it (its block's type a guess,
 * a free past the list) tells nothing.
 */
static int stack_hit(struct ahead_pass *P, const struct tr_event *ev, bool own_refill)
{
	uint32_t pend = P->pending[ev->pfn], after;
	struct free_stack *st;
	size_t i;
	int ret;

	if (ev->order || (!pend && (own_refill || seen(P, ev->pfn))))
		return 0;
	if ((pend & PEND_REFILL) &&
	    (own_refill || ev->cpu < 0 || P->refill_cpu[ev->pfn] != (uint8_t)ev->cpu))
		return 0;
	st = stack_of(P, ev->cpu, ev->pfn, pcp_list_of(ev->mt), &ret);
	if (!st)
		return ret;
	if (!pend) {
		/* no event named it since the pass began: on the list before every free */
		i = 0;
	} else if (pend & PEND_REFILL) {
		/* refilled pages lie below every free since */
		after = pend & ~PEND_REFILL;
		for (i = st->n; i > 0 && st->v[i - 1].rel > after; i--)
			;
		ret = run_hit(P, run_of(P, st), ev, after);
		if (ret)
			return ret;
	} else {
		for (i = st->n; i-- > 0;)
			if (st->v[i].pfn == ev->pfn && ent_live(P, &st->v[i]))
				break;
		if (i == (size_t)-1)
			return 0;
	}
	return stack_take(P, st, i + (pend && !(pend & PEND_REFILL) ? 1 : 0), i, ev, false);
}

/*
 * What an event says of its pageblock's type: the list its frees join (a take off the
 * buddy, a drain, a pcp hit; a fallback that claimed the block).
 */
static void learn_list(struct ahead_pass *P, enum tr_event_kind k, const struct tr_event *ev)
{
	if (!P->pb_list || ev->mt < 0 ||
	    (k != TR_EV_ZONE_LOCKED && k != TR_EV_PCPU_DRAIN &&
	     !(k == TR_EV_EXTFRAG && ev->change_ownership) &&
	     !(k == TR_EV_PAGE_ALLOC && P->pending[ev->pfn])))
		return;
	P->pb_list[ev->pfn >> P->g->pageblock_order] = (int8_t)pcp_list_of(ev->mt);
}

/*
 * A pcp hit of a high-order page (@ev: no zone_locked, the THP order) was decided
 * before its event by at least the time prep_new_page() takes to zero the page
 * (init_on_alloc, __GFP_ZERO: milliseconds for a THP): the shortest a refilled
 * high-order allocation showed between its first zone_locked and its event so far
 * (P->zero_ns). Others' requests in that time came after the decision: a zone near
 * its mark that the hit passed may fail them, and the reverse. It is made before the
 * first event of that time (after its cpu's last event).
 */
static int hit_early(struct ahead_pass *P, struct making *mk, const struct tr_event *ev)
{
	uint64_t at_seq = mk->prev_seq + 1, at_ts = mk->prev_ts, want;
	size_t i, n = P->recent_n < RECENT ? P->recent_n : RECENT;

	if (!mk->prev_seq || mk->prev_seq < P->record_from || !P->zero_ns ||
	    P->all - mk->prev_all == mk->own - mk->prev_own ||
	    ev->order != P->g->pageblock_order)
		return 0;
	/* made earlier already: a drain passed over its list (ahead_passed_over()) */
	if (P->out->nr_early && P->out->early[P->out->nr_early - 1].rq.seq == ev->seq)
		return 0;
	want = ev->ts > P->zero_ns ? ev->ts - P->zero_ns : 0;
	if (want > mk->prev_ts) {
		/* the oldest recent event at or after that time, past the cpu's last */
		for (i = 0; i < n; i++) {
			const struct recent *r = &P->recent[(P->recent_n - 1 - i) % RECENT];

			if (r->seq <= mk->prev_seq || r->ts < want)
				break;
			at_seq = r->seq;
			at_ts = r->ts;
		}
		if (!i)
			return 0;	/* nothing of another cpu in that time */
	}
	P->out->nr_hit_zeroing++;
	return add_early(P->out, &P->cap_early, at_seq, at_ts,
			 &(struct sim_request){ .kind = SIM_REQ_ALLOC, .seq = ev->seq, .ts = ev->ts,
						.cpu = ev->cpu, .order = ev->order, .mt = ev->mt,
						.gfp = ev->gfp, .pfn = ev->pfn,
						.nr_pages = 1ull << ev->order, .early = true,
						.hit = true });
}

/* The early allocations' part of an event (struct making). */
static int ahead_early(struct ahead_pass *P, enum tr_event_kind k, const struct tr_event *ev)
{
	struct making *mk;
	int ret = making_of(&P->mks, &P->nr_mks, ev->cpu, &mk);

	if (ret || !mk)
		return ret;
	/* 6.12's __rmqueue_claim()/_steal() trace only the extfrag of their page */
	if ((k == TR_EV_ZONE_LOCKED || k == TR_EV_EXTFRAG) &&
	    (!mk->valid || !mk->last_locked || ev->order != mk->order))
		*mk = (struct making){ .pfn = ev->pfn, .order = ev->order, .valid = true,
				       .own = mk->own, .cand = mk->cand,
				       .cap_cand = mk->cap_cand, .prev_seq = mk->prev_seq,
				       .prev_ts = mk->prev_ts, .prev_all = mk->prev_all,
				       .prev_own = mk->prev_own };
	if (k == TR_EV_ZONE_LOCKED || k == TR_EV_EXTFRAG) {
		if (!mk->seq) {
			mk->seq = ev->seq;
			mk->ts = ev->ts;
			mk->all_at = P->all;
			mk->own_at = mk->own;
		}
		mk->last_seq = ev->seq;
		mk->last_ts = ev->ts;
		mk->all_last = P->all;
		mk->own_last = mk->own;
	}
	mk->last_locked = k == TR_EV_ZONE_LOCKED || k == TR_EV_EXTFRAG;
	if (k == TR_EV_PAGE_ALLOC && ev->pfn != UINT64_MAX && ev->order > 3) {
		/* over PAGE_ALLOC_COSTLY_ORDER: zeroing is long enough to matter */
		if (mk->valid && ev->pfn == mk->pfn && ev->order == mk->order)
			/* the zeroing after a decision the zone_locked events date */
			P->zero_ns = !P->zero_ns || ev->ts - mk->ts < P->zero_ns ?
				     ev->ts - mk->ts : P->zero_ns;
		else
			ret = hit_early(P, mk, ev);
	}
	if (!ret && k == TR_EV_PAGE_ALLOC)
		ret = making_alloc(P->out, &P->cap_early, &P->cap_settles, mk, ev, P->all,
				   P->record_from);
	if (k != TR_EV_EXTFRAG) {
		P->all++;
		mk->own++;
		mk->prev_seq = ev->seq;
		mk->prev_ts = ev->ts;
		mk->prev_all = P->all;
		mk->prev_own = mk->own;
	}
	P->recent[P->recent_n++ % RECENT] = (struct recent){ ev->seq, ev->ts };
	return ret;
}

/*
 * The first order-0 refill of each cpu's lists of each zone from the requests' start
 * (sim_first_refill): the percpu zone_locked events of one zone on the cpu, then its
 * allocation.
 */
static int first_refill_watch(struct ahead_pass *P, enum tr_event_kind k,
			      const struct tr_event *ev)
{
	struct sim_ahead *out = P->out;
	struct fr_watch *mk;
	int ret, z;

	if (ev->cpu < 0 || ev->cpu >= 65536 || ev->seq < P->record_from ||
	    ev->pfn >= P->g->pfn_end)
		return 0;
	ret = bc_grow_index(&P->fr, &P->nr_fr, (size_t)ev->cpu, sizeof(*P->fr), "simulate");
	if (ret)
		return ret;
	mk = &P->fr[ev->cpu];
	if (k == TR_EV_ZONE_LOCKED) {
		z = P->g->pb_zone ? P->g->pb_zone[ev->pfn >> P->g->pageblock_order] : -1;
		if (mk->zone == UINT_MAX)
			return 0;
		if (!ev->percpu_refill || ev->order || z < 0 || z >= 32 ||
		    (mk->zone && mk->zone != (unsigned int)z + 1))
			mk->zone = UINT_MAX;	/* not one order-0 refill of one zone */
		else {
			mk->zone = (unsigned int)z + 1;
			mk->pages++;
		}
		return 0;
	}
	if (k != TR_EV_PAGE_ALLOC)
		return 0;
	/* the refill's allocation */
	if (mk->zone && mk->zone != UINT_MAX && !ev->order &&
	    !(mk->done & (1u << (mk->zone - 1)))) {
		mk->done |= 1u << (mk->zone - 1);
		ret = bc_grow(&out->first_refills, out->nr_first_refills, &P->cap_first_refills,
			      sizeof(*out->first_refills), 8, "simulate");
		if (!ret)
			out->first_refills[out->nr_first_refills++] = (struct sim_first_refill){
				.seq = ev->seq, .zone = mk->zone - 1,
				.cpu = (unsigned int)ev->cpu, .pages = mk->pages };
	}
	mk->zone = 0;
	mk->pages = 0;
	return ret;
}

/* The free @seq went past the list, to the buddy (nr_past). */
static int add_past(struct ahead_pass *P, uint64_t seq)
{
	struct sim_ahead *out = P->out;
	int ret = bc_grow(&out->past, out->nr_past, &P->cap_past, sizeof(*out->past), 16,
			  "simulate");

	if (!ret)
		out->past[out->nr_past++] = seq;
	return ret;
}

/* The reused frees' part of an event. */
/*
 * The free @c went past the list (free_one_page()): recorded, and taken off its
 * stack if it is on one (an order-0 free of a list followed), so the LIFO rule does not
 * count it among the list's pages.
 */
static int went_past(struct ahead_pass *P, int cpu, const struct cand *c)
{
	int8_t list = P->pb_list && c->pfn < P->g->pfn_end ?
		      P->pb_list[c->pfn >> P->g->pageblock_order] : -1;
	struct free_stack *st;
	size_t i, stop;
	int err, ret;

	if (c->seq < P->record_from)
		return 0;
	ret = add_past(P, c->seq);
	if (ret)
		return ret;
	st = c->pfn < P->g->pfn_end ? stack_of(P, cpu, c->pfn, list, &err) : NULL;
	if (!st)
		return 0;
	/* pushed lately: near the top */
	stop = st->n > 4096 ? st->n - 4096 : 0;
	for (i = st->n; i-- > stop;)
		if (st->v[i].pfn == c->pfn && ent_live(P, &st->v[i])) {
			st->v[i].rel = 0;
			break;
		}
	return 0;
}

/*
 * free_unref_folios() traces mm_page_free for each page of a batch, then commits them
 * to the pcp list in that order with mm_page_free_batched, under the pcp lock; an
 * interrupt's free meanwhile finds the lock taken and goes to the buddy
 * (free_one_page()). So frees between two commits of a cpu (a commit's drain,
 * mm_page_pcpu_drain, between them too), when the second commits a page freed before
 * them, went past the list.
 */
static int batch_watch(struct ahead_pass *P, enum tr_event_kind k, const struct tr_event *ev)
{
	struct making *mk;
	size_t i;
	int ret = making_of(&P->mks, &P->nr_mks, ev->cpu, &mk);

	if (ret || !mk)
		return ret;
	if (k == TR_EV_PAGE_FREE) {
		if (!mk->after_batched)
			return 0;
		ret = bc_grow(&mk->cand, mk->nr_cand, &mk->cap_cand, sizeof(*mk->cand), 16,
			      "simulate");
		if (!ret)
			mk->cand[mk->nr_cand++] = (struct cand){ ev->pfn, ev->seq };
		return ret;
	}
	if (k == TR_EV_FREE_BATCHED && mk->nr_cand) {
		for (i = 0; i < mk->nr_cand && mk->cand[i].pfn != ev->pfn; i++)
			;
		if (i == mk->nr_cand)	/* an older page's commit: the loop ran on */
			for (i = 0; i < mk->nr_cand && !ret; i++)
				ret = went_past(P, ev->cpu, &mk->cand[i]);
		if (ret)
			return ret;
	}
	if (k == TR_EV_PCPU_DRAIN && mk->after_batched)
		return 0;	/* the commit's own drain: the loop goes on */
	mk->nr_cand = 0;
	mk->after_batched = k == TR_EV_FREE_BATCHED;
	return 0;
}

/*
 * A batch's page reaches the pcp list at its commit, which may drain the list
 * (free_unref_page_commit()), long after its mm_page_free: the prepare loop ran over the
 * whole batch first. The free is handed out at its commit (deferred), as the kernel made
 * it. A free after a commit while the batch still has pages to commit is an
 * interrupt's (batch_watch()), not a new batch, unless the next commit is of it: a
 * page a batch prepared but never committed (its prepare failed) leaves the batch
 * with pages that never come, and the frees after its last commit are the next
 * batch's prepare loop.
 */
static int batch_defer(struct ahead_pass *P, enum tr_event_kind k, const struct tr_event *ev)
{
	struct sim_ahead *out = P->out;
	struct batch_run *br;
	size_t i;
	int ret;

	if (ev->cpu < 0 || ev->cpu >= 65536)
		return 0;
	ret = bc_grow_index(&P->runs_b, &P->nr_runs_b, (size_t)ev->cpu, sizeof(*P->runs_b),
			    "simulate");
	if (ret)
		return ret;
	br = &P->runs_b[ev->cpu];
	if (k == TR_EV_PAGE_FREE && ev->pfn != UINT64_MAX && ev->seq >= P->record_from) {
		bool in_commits = br->last == TR_EV_FREE_BATCHED || br->last == TR_EV_PCPU_DRAIN;

		if (in_commits && br->head < br->n) {
			br->irq = true;
			br->nr_side = 0;
		} else if (br->last != TR_EV_PAGE_FREE) {
			br->head = br->n = 0;	/* a new batch, or a single free */
			br->irq = false;
		}
		if (br->irq) {
			ret = bc_grow(&br->side, br->nr_side, &br->cap_side, sizeof(*br->side), 32,
				      "simulate");
			if (!ret)
				br->side[br->nr_side++] = (struct batch_free){ ev->pfn, ev->seq };
			ret = 0;	/* a free not kept is only not deferred */
		} else {
			ret = bc_grow(&br->v, br->n, &br->cap, sizeof(*br->v), 32, "simulate");
			if (ret)
				return ret;
			br->v[br->n++] = (struct batch_free){ ev->pfn, ev->seq };
		}
	} else if (k == TR_EV_FREE_BATCHED) {
		for (i = br->head; i < br->n && br->v[i].pfn != ev->pfn; i++)
			;
		/*
		 * A commit of none of the batch's pages but of a page freed since its last
		 * commit: that batch ended with pages it never committed (a prepare that
		 * failed), and those frees were the prepare loop of a new batch, not an
		 * interrupt's
		 */
		if (i == br->n && br->irq) {
			size_t s;

			for (s = 0; s < br->nr_side && br->side[s].pfn != ev->pfn; s++)
				;
			if (s < br->nr_side) {
				struct batch_free *t = br->v;
				size_t cap = br->cap;

				br->v = br->side;
				br->cap = br->cap_side;
				br->n = br->nr_side;
				br->side = t;
				br->cap_side = cap;
				br->nr_side = 0;
				br->head = 0;
				i = s;
			}
		}
		br->irq = false;
		if (i < br->n) {
			ret = bc_grow(&out->deferred, out->nr_deferred, &P->cap_deferred,
				      sizeof(*out->deferred), 64, "simulate");
			if (ret)
				return ret;
			out->deferred[out->nr_deferred++] = br->v[i].seq;
			br->head = i + 1;
		}
	}
	br->last = k;
	return 0;
}

static int ahead_lists(struct ahead_pass *P, enum tr_event_kind k, const struct tr_event *ev,
			uint32_t rel, bool own_refill, bool first_locked);

static int ahead_reused(struct ahead_pass *P, enum tr_event_kind k, const struct tr_event *ev,
			uint32_t rel, bool own_refill, bool first_locked)
{
	int ret;

	if (ev->pfn >= P->g->pfn_end)
		return 0;
	ret = ahead_lists(P, k, ev, rel, own_refill, first_locked);
	mark_seen(P, ev);
	return ret;
}

/*
 * The first block of an order-0 refill on @ev's cpu: rmqueue_bulk() refills a list only
 * when it is empty (__rmqueue_pcplist()), so every page freed onto that list that no
 * event has named since had left it untraced (alloc_pages_bulk()), as above a pcp hit.
 * Not one freed amid another cpu's drain (it may never have been on the list).
 */
static int stack_refilled(struct ahead_pass *P, const struct tr_event *ev)
{
	struct free_stack *st;
	int ret;

	st = stack_of(P, ev->cpu, ev->pfn, pcp_list_of(ev->mt), &ret);
	return st ? stack_take(P, st, 0, 0, ev, true) : ret;
}

/*
 * A take off the buddy (mm_page_alloc_zone_locked) of a page whose free no event has
 * named since: that free never reached a pcp list, whose pages leave it only by a pcp
 * hit or a traced drain. It went past the list (free_one_page()): an interrupt's free
 * while its cpu held the pcp lock, as at the end of a drain, which runs with interrupts
 * off (free_pcppages_bulk(): the zone lock irqsave) inside the pcp lock of the free
 * that asked for it.
 */
static int taken_off_buddy(struct ahead_pass *P, const struct tr_event *ev)
{
	uint64_t n = ev->order < 20 ? 1ull << ev->order : 1, p;
	int ret = 0;

	for (p = ev->pfn; !ret && p < ev->pfn + n && p < P->g->pfn_end; p++) {
		uint32_t pend = P->pending[p];
		uint64_t seq = P->seq_from + pend - 1;

		if (!pend || (pend & PEND_REFILL) || seq < P->record_from ||
		    !(P->to_pcp[p / 64] >> (p % 64) & 1))
			continue;
		P->pending[p] = 0;
		ret = add_past(P, seq);
	}
	return ret;
}

/* The lists' part of an event (pfn below pfn_end). */
static int ahead_lists(struct ahead_pass *P, enum tr_event_kind k, const struct tr_event *ev,
			uint32_t rel, bool own_refill, bool first_locked)
{
	uint32_t *pending = P->pending;
	int ret = 0;

	if (k == TR_EV_FREE_BATCHED)
		return 0;	/* the same free's commit */
	learn_list(P, k, ev);
	if (k == TR_EV_ZONE_LOCKED)
		ret = taken_off_buddy(P, ev);
	/* pcp_allowed_order(), not into an isolated block: a free the lists would take */
	if (k == TR_EV_PAGE_FREE && sim_pcp_pindex(ev->order, 1, P->g->pageblock_order) >= 0 &&
	    !isolated(P, ev->pfn))
		P->to_pcp[ev->pfn / 64] |= 1ull << (ev->pfn % 64);
	else if (k == TR_EV_PAGE_FREE)
		P->to_pcp[ev->pfn / 64] &= ~(1ull << (ev->pfn % 64));
	if (ret)
		return ret;
	if (k == TR_EV_PAGE_ALLOC)
		ret = stack_hit(P, ev, own_refill);
	if (k == TR_EV_ZONE_LOCKED && ev->percpu_refill && !ev->order && ev->cpu >= 0 &&
	    ev->cpu < 256 && rel && rel < PEND_REFILL) {
		if (!ret && first_locked)
			ret = stack_refilled(P, ev);
		pending[ev->pfn] = PEND_REFILL | rel;
		P->refill_cpu[ev->pfn] = (uint8_t)ev->cpu;
		return ret ? ret : run_push(P, ev, rel, first_locked);
	}
	if (k != TR_EV_PAGE_FREE) {
		pending[ev->pfn] = 0;
		return ret;
	}
	if (pending[ev->pfn] && !(pending[ev->pfn] & PEND_REFILL))
		ret = add_reused(P, pending[ev->pfn]);
	pending[ev->pfn] = rel < PEND_REFILL ? rel : 0;
	return ret ? ret : stack_push(P, ev, rel);
}

/*
 * A cpu's run of mm_page_pcpu_drain events of one zone, no other event of the cpu
 * between: one free_pcppages_bulk(), which takes the lists round-robin from the one it
 * is asked for (pindex), each whole until its count runs out (the last one maybe not),
 * and passes over the empty ones.
 */
struct drain_burst {
	uint64_t seq, ts;		/* its first event */
	unsigned int zone, first, last, span;	/* span: lists moved over, round-robin */
	bool on;
};

/* 4 low orders (PAGE_ALLOC_COSTLY_ORDER 3) x 3 types, then the THP lists */
#define HI_LOW_LISTS	12u
#define HI_LISTS	14u

int sim_pcp_pindex(unsigned int order, int mt, unsigned int pageblock_order)
{
	int list = pcp_list_of(mt);

	if (list < 0)
		return -1;
	if (order < 4)
		return (int)order * 3 + list;
	return order == pageblock_order ? (int)HI_LOW_LISTS + (list == 1) : -1;
}

/* Take the entry of @pfn out of the pass's pages (*@out, may be NULL); false: none. */
static bool hi_take(struct ahead_pass *P, uint64_t pfn, struct hi_ent *out)
{
	for (size_t i = 0; i < P->nr_hi; i++)
		if (P->hi[i].pfn == pfn) {
			if (out)
				*out = P->hi[i];
			P->hi[i] = P->hi[--P->nr_hi];
			return true;
		}
	return false;
}

/*
 * The end of @cpu's drain run: a list it passed over was empty (round-robin, between
 * the first list it took and the last, which it left maybe not empty), and so was the
 * first once it moved on. A refilled high-order page the pass holds on such a list had
 * left it before, by the allocation its next event shows (alloc_pages_bulk() takes
 * order 0 only): the task traces mm_page_alloc at the end of __alloc_pages(), after
 * whatever preempted it, and this cpu drained meanwhile.
 */
static void burst_end(struct ahead_pass *P, int cpu)
{
	struct drain_burst *b;
	uint32_t passed = 0;
	unsigned int l;

	if (cpu < 0 || (size_t)cpu >= P->nr_bursts || !P->bursts[cpu].on)
		return;
	b = &P->bursts[cpu];
	b->on = false;
	if (b->first == b->last || b->span >= HI_LISTS)
		return;		/* one list, or round the lists more than once */
	for (l = b->first; l != b->last; l = (l + 1) % HI_LISTS)
		passed |= 1u << l;
	for (size_t i = 0; i < P->nr_hi; i++) {
		struct hi_ent *h = &P->hi[i];

		if (h->cpu == cpu && h->zone == b->zone && !h->gone_seq &&
		    (passed & (1u << h->pindex)) && b->seq >= P->record_from) {
			h->gone_seq = b->seq;
			h->gone_ts = b->ts;
		}
	}
}

static int burst_drain(struct ahead_pass *P, const struct tr_event *ev, int zone, int pindex)
{
	struct drain_burst *b;
	int ret = bc_grow_index(&P->bursts, &P->nr_bursts, (size_t)ev->cpu, sizeof(*P->bursts),
				"simulate");

	if (ret)
		return ret;
	b = &P->bursts[ev->cpu];
	if (b->on && (b->zone != (unsigned int)zone || pindex < 0))
		burst_end(P, ev->cpu);
	if (pindex < 0)
		return 0;
	if (!b->on) {
		*b = (struct drain_burst){ .seq = ev->seq, .ts = ev->ts, .zone = (unsigned int)zone,
					   .first = (unsigned int)pindex,
					   .last = (unsigned int)pindex, .on = true };
	} else if ((unsigned int)pindex != b->last) {
		b->span += ((unsigned int)pindex + HI_LISTS - b->last) % HI_LISTS;
		b->last = (unsigned int)pindex;
	}
	return 0;
}

/* An allocation of a page a drain run showed gone: made before that run. */
static int hi_taken(struct ahead_pass *P, const struct hi_ent *h, const struct tr_event *ev)
{
	int ret = add_early(P->out, &P->cap_early, h->gone_seq, h->gone_ts, &(struct sim_request){
		.kind = SIM_REQ_ALLOC, .seq = ev->seq, .ts = ev->ts, .cpu = ev->cpu,
		.order = ev->order, .mt = ev->mt, .gfp = ev->gfp, .pfn = ev->pfn,
		.nr_pages = 1ull << ev->order, .early = true });

	P->out->nr_passed_over += !ret;
	return ret;
}

/* The high-order pcp pages' part of an event (struct drain_burst). */
static int ahead_passed_over(struct ahead_pass *P, enum tr_event_kind k, const struct tr_event *ev,
			     bool own)
{
	struct hi_ent h;
	int zone, pindex, ret = 0;

	if (ev->cpu < 0 || ev->cpu >= 65536 || ev->pfn >= P->g->pfn_end || !P->g->pb_zone)
		return 0;
	zone = P->g->pb_zone[ev->pfn >> P->g->pageblock_order];
	if (k != TR_EV_PCPU_DRAIN)
		burst_end(P, ev->cpu);
	if (zone < 0)
		return 0;
	pindex = sim_pcp_pindex(ev->order, ev->mt, P->g->pageblock_order);
	if (k == TR_EV_PCPU_DRAIN) {
		ret = burst_drain(P, ev, zone, pindex);
		if (ev->order)
			hi_take(P, ev->pfn, NULL);
		return ret;
	}
	if (!ev->order || (k != TR_EV_ZONE_LOCKED && k != TR_EV_PAGE_ALLOC && k != TR_EV_EXTFRAG))
		return 0;
	if (hi_take(P, ev->pfn, &h) && k == TR_EV_PAGE_ALLOC && h.gone_seq &&
	    h.cpu == ev->cpu && h.order == ev->order && !own)
		ret = hi_taken(P, &h, ev);
	if (!ret && k == TR_EV_ZONE_LOCKED && ev->percpu_refill && pindex >= 0) {
		ret = bc_grow(&P->hi, P->nr_hi, &P->cap_hi, sizeof(*P->hi), 16, "simulate");
		if (!ret)
			P->hi[P->nr_hi++] = (struct hi_ent){
				.pfn = ev->pfn, .cpu = ev->cpu, .zone = (unsigned int)zone,
				.pindex = (unsigned int)pindex, .order = ev->order };
	}
	return ret;
}

int sim_ahead_find(struct tdb *db, const struct tr_decoder *dec, uint64_t seq_from,
		   uint64_t seq_to, const struct sim_ahead_geo *g, struct sim_ahead *out)
{
	struct ahead_pass P = { .g = g, .seq_from = seq_from, .out = out, .drain_cpu = -1,
				.record_from = g->record_from > seq_from ? g->record_from :
									   seq_from };
	uint64_t nr_pb = (g->pfn_end >> g->pageblock_order) + 1;
	struct tdb_cursor *cur = NULL;
	struct bc_event raw;
	struct tr_event ev = { 0 };
	bool own, first;
	int ret;

	*out = (struct sim_ahead){ 0 };
	P.pending = calloc(g->pfn_end + 1, sizeof(*P.pending));
	P.refill_cpu = malloc(g->pfn_end + 1);
	P.seen = calloc(g->pfn_end / 64 + 1, sizeof(*P.seen));
	P.to_pcp = calloc(g->pfn_end / 64 + 1, sizeof(*P.to_pcp));
	if (g->pb_list)
		P.pb_list = malloc(nr_pb);
	if (!P.pending || !P.refill_cpu || !P.seen || !P.to_pcp || (g->pb_list && !P.pb_list)) {
		free(P.pending);
		free(P.refill_cpu);
		free(P.seen);
		free(P.to_pcp);
		free(P.pb_list);
		return bc_error(BC_E_NOMEM, "simulate: out of memory");
	}
	if (P.pb_list)
		memcpy(P.pb_list, g->pb_list, nr_pb);
	ret = tdb_cursor_open(db, seq_from, seq_to, &cur);
	while (!ret && (ret = tdb_cursor_next(cur, &raw)) == 1) {
		enum tr_event_kind k = tr_decoder_kind(dec, raw.type);
		uint64_t rel = raw.seq - seq_from + 1;

		ret = 0;
		if (k == TR_EV_TEST_ISOLATED || k == TR_EV_ISOLATE_FREE) {
			tr_decode(dec, &raw, &ev);
			pending_clear(P.pending, g->pfn_end, ev.start_pfn, ev.end_pfn);
			continue;
		}
		if (k != TR_EV_PAGE_ALLOC && k != TR_EV_PAGE_FREE && k != TR_EV_PCPU_DRAIN &&
		    k != TR_EV_ZONE_LOCKED && k != TR_EV_EXTFRAG && k != TR_EV_FREE_BATCHED)
			continue;
		if (k == TR_EV_ZONE_LOCKED || k == TR_EV_EXTFRAG)
			tr_decode(dec, &raw, &ev);
		else
			tr_decode_page(dec, &raw, &ev);
		if (k == TR_EV_PCPU_DRAIN) {
			P.drain_ts = ev.ts;
			P.drain_cpu = ev.cpu;
		}
		ret = batch_watch(&P, k, &ev);
		if (!ret)
			ret = batch_defer(&P, k, &ev);
		if (ret)
			break;
		if (k == TR_EV_FREE_BATCHED) {
			burst_end(&P, ev.cpu);
			ret = ahead_reused(&P, k, &ev, 0, false, false);
			continue;
		}
		own = k == TR_EV_PAGE_ALLOC && own_refill(&P, &ev);
		ret = ahead_passed_over(&P, k, &ev, own);
		if (!ret && g->nr_att)
			ret = iso_track(&P, ev.seq);
		if (!ret)
			ret = ahead_early(&P, k, &ev);
		if (!ret && (k == TR_EV_ZONE_LOCKED || k == TR_EV_PAGE_ALLOC))
			ret = first_refill_watch(&P, k, &ev);
		first = ev.cpu >= 0 && (size_t)ev.cpu < P.nr_mks && P.mks[ev.cpu].seq == ev.seq;
		if (!ret)
			ret = ahead_reused(&P, k, &ev, rel <= UINT32_MAX ? (uint32_t)rel : 0, own,
					   first);
	}
	if (cur)
		tdb_cursor_close(cur);
	free(P.pending);
	free(P.refill_cpu);
	free(P.seen);
	free(P.to_pcp);
	free(P.pb_list);
	for (size_t i = 0; i < P.nr_mks; i++)
		free(P.mks[i].cand);
	free(P.mks);
	free(P.fr);
	free(P.hi);
	free(P.bursts);
	for (size_t i = 0; i < P.nr_runs_b; i++) {
		free(P.runs_b[i].v);
		free(P.runs_b[i].side);
	}
	free(P.runs_b);
	free(P.iso);
	for (size_t i = 0; i < P.nr_cpus * g->nr_zones * SIM_PCP_LISTS; i++) {
		free(P.stacks[i].v);
		free(P.runs[i].v);
	}
	free(P.stacks);
	free(P.runs);
	if (!ret && out->nr_early) {
		out->early_seqs = malloc(out->nr_early * sizeof(*out->early_seqs));
		if (!out->early_seqs)
			ret = bc_error(BC_E_NOMEM, "simulate: out of memory");
	}
	if (ret < 0) {
		sim_ahead_release(out);
		return ret;
	}
	/* reused: found after the free, so out of order */
	u64set_sort(out->reused, out->nr_reused);
	u64set_sort(out->taken_refills, out->nr_taken_refills);
	u64set_sort(out->past, out->nr_past);
	if (out->nr_early > 1)
		qsort(out->early, out->nr_early, sizeof(*out->early), cmp_early);
	if (out->nr_settles > 1)
		qsort(out->settles, out->nr_settles, sizeof(*out->settles), cmp_settle);
	for (size_t i = 0; i < out->nr_early; i++)
		if (out->early[i].rq.early)
			out->early_seqs[out->nr_early_seqs++] = out->early[i].rq.seq;
	u64set_sort(out->early_seqs, out->nr_early_seqs);
	/* found at their commits: in the frees' order per cpu, not overall */
	u64set_sort(out->deferred, out->nr_deferred);
	return 0;
}

int sim_ahead_geo_init(struct sim_ahead_geo *g, const struct model *m)
{
	const struct model_layout *L = model_get_layout(m);
	uint64_t nr, pb;
	int8_t *list, *zone;

	*g = (struct sim_ahead_geo){ .pfn_end = model_pfn_end(m),
				     .pageblock_order = L->pageblock_order,
				     .nr_zones = L->nr_zones };
	nr = (g->pfn_end >> g->pageblock_order) + 1;
	list = malloc(nr);
	zone = malloc(nr);
	if (!list || !zone) {
		free(list);
		free(zone);
		return bc_error(BC_E_NOMEM, "simulate: out of memory");
	}
	for (pb = 0; pb < nr; pb++) {
		int z = model_pfn_zone(m, pb << g->pageblock_order), mt;
		bool iso;

		zone[pb] = (int8_t)(z >= 0 && z < MODEL_MAX_ZONES ? z : -1);
		list[pb] = -1;
		if (!model_pageblock_mt(m, pb << g->pageblock_order, &mt, NULL, &iso) && !iso)
			list[pb] = (int8_t)pcp_list_of(mt);
	}
	g->pb_list = list;
	g->pb_zone = zone;
	return 0;
}

void sim_ahead_geo_release(struct sim_ahead_geo *g)
{
	free((void *)g->pb_list);
	free((void *)g->pb_zone);
	g->pb_list = g->pb_zone = NULL;
}

void sim_ahead_release(struct sim_ahead *a)
{
	free(a->reused);
	free(a->early);
	free(a->early_seqs);
	free(a->deferred);
	free(a->settles);
	free(a->taken_refills);
	free(a->past);
	free(a->first_refills);
	*a = (struct sim_ahead){ 0 };
}

