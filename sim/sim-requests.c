// SPDX-License-Identifier: GPL-2.0
/* sim-requests: the request stream (sim-requests.h) over a db cursor. */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/grow.h"
#include "common/u64set.h"
#include "db/tdb.h"
#include "sim/sim-ahead.h"
#include "sim/sim-requests.h"
#include "trace/tr-attempt.h"
#include "trace/tr-event.h"

/* A request of an attempt, handed out before the first event after rq.seq. */
struct mark {
	struct sim_request rq;
	size_t nth;			/* made in this order: ties keep it (qsort is not stable) */
};

/*
 * A cpu's refill: rmqueue_bulk() ran (percpu_refill events) before the mm_page_alloc
 * event of its request, and what that cpu traced in between (an interrupt's frees
 * once the pcp lock dropped) came after the kernel's decision: held back until the
 * allocation is handed out (its refill size depends on alloc_factor, which each free
 * halves). An allocation that never comes within SIM_REFILL_WAIT_NS (an untraced
 * bulk allocation) releases what was held, in order.
 */
#define SIM_REFILL_WAIT_NS	(20ull * 1000 * 1000)

struct held {
	struct sim_request *v;
	size_t nr, cap;
};

struct cpu_state {
	struct held batch;		/* its batch's frees awaiting their commits */
	bool refilling;			/* a refill awaits its allocation */
	bool early_out;			/* its early allocation is out, its event to come */
	bool held_open;			/* ... held: its batch's events to come (sim-ahead.h) */
	uint64_t refill_ts;		/* when the refill began */
};

struct sim_reqs {
	struct tdb_cursor *cur;
	const struct tr_decoder *dec;
	struct mark *marks;		/* by seq */
	size_t nr_marks, next_mark;
	uint64_t seq_from, seq_to;
	uint64_t events, failed;
	bool have_ev;			/* ev holds an event not yet handed out */
	struct cpu_state *cpus;		/* by cpu */
	size_t nr_cpus;
	struct held held;		/* requests of refilling cpus, in order */
	struct held out;		/* to hand out before the next event */
	size_t out_next;
	struct tr_event ev;
	struct bc_event raw;
	const struct sim_ahead *ahead;	/* borrowed; NULL: none */
	size_t next_early;		/* ahead->early[] not yet handed out */
	size_t next_settle;		/* ahead->settles[] likewise */
};

/* The event after which an attempt's result stands: its last test, else its end. */
static uint64_t att_seq(const struct tr_attempt *a)
{
	return a->nr_tests && a->seq_test ? a->seq_test : a->seq_end;
}

static void attempt_request(const struct tr_attempt *a, struct sim_request *rq)
{
	*rq = (struct sim_request){
		.kind = a->kind == TR_ATTEMPT_OFFLINE ? SIM_REQ_OFFLINE : SIM_REQ_CONTIG,
		.seq = att_seq(a), .ts = a->ts_test ? a->ts_test : a->ts_begin, .cpu = -1,
		.mt = 1, .pfn = a->start_pfn, .nr_pages = a->end_pfn - a->start_pfn,
		.failed = !a->success,
	};
}

static int add_mark(struct sim_reqs *it, size_t *cap, const struct sim_request *rq)
{
	int ret = bc_grow(&it->marks, it->nr_marks, cap, sizeof(*it->marks), 16, "simulate");

	if (!ret) {
		it->marks[it->nr_marks] = (struct mark){ *rq, it->nr_marks };
		it->nr_marks++;
	}
	return ret;
}

static int cmp_mark(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;

	if (x->rq.seq != y->rq.seq)
		return x->rq.seq < y->rq.seq ? -1 : 1;
	/*
	 * a failure's window ends after what stands at the same event, an offline's that
	 * succeeded before its own request (offline_pages() again)
	 */
	if ((x->rq.kind == SIM_REQ_UNISOLATE) != (y->rq.kind == SIM_REQ_UNISOLATE)) {
		const struct mark *u = x->rq.kind == SIM_REQ_UNISOLATE ? x : y;

		return (u == x) == u->rq.failed ? 1 : -1;
	}
	return x->nth < y->nth ? -1 : x->nth > y->nth;
}

/*
 * The attempts' requests in [seq_from, seq_to): a success (and a failed call's last
 * attempt, for what-if runs) when its result stands; a failure that got past its
 * isolation (it migrated, or tested the range, or is an offline probe that failed in
 * migration or on its time limit) held the range isolated from its first event to its
 * last, and a successful offline from its first event to its result (the simulation's
 * own contiguous allocation picks its range: the kernel's is not its), which only a
 * whole window inside [seq_from, ...) repeats: meanwhile no allocation takes a page of
 * the range, and an offline holds its zone's pcp lists disabled (zone_pcp_disable():
 * every allocation a one-page refill, every free to the buddy), as the kernel's did.
 */
static int build_marks(struct sim_reqs *it, const struct tr_attempt *att, int nr_att,
		       const struct tr_attempt *ref, int nr_ref)
{
	size_t cap = 0;
	int i, ret = 0;

	for (i = 0; !ret && i < nr_att; i++) {
		const struct tr_attempt *a = &att[i];
		struct sim_request rq;

		if ((a->success || (a->kind == TR_ATTEMPT_CONTIG && !a->continued)) &&
		    att_seq(a) >= it->seq_from) {
			attempt_request(a, &rq);
			ret = add_mark(it, &cap, &rq);
		}
		/* an offline probe's failure is one after its isolation (tr_probe_attempts()) */
		if (ret || a->seq_begin < it->seq_from || a->end_pfn <= a->start_pfn ||
		    (!a->success && !(a->nr_tests || a->migrated || a->migrate_failed ||
				      (a->from_probe && a->kind == TR_ATTEMPT_OFFLINE))) ||
		    (a->success && (att_seq(a) <= a->seq_begin || a->kind != TR_ATTEMPT_OFFLINE)))
			continue;
		rq = (struct sim_request){
			.kind = SIM_REQ_ISOLATE, .seq = a->seq_begin, .ts = a->ts_begin, .cpu = -1,
			.mt = a->kind == TR_ATTEMPT_OFFLINE, .pfn = a->start_pfn,
			.nr_pages = a->end_pfn - a->start_pfn, .failed = !a->success,
		};
		ret = add_mark(it, &cap, &rq);
		rq.kind = SIM_REQ_UNISOLATE;
		rq.seq = a->success ? att_seq(a) : a->seq_end;
		if (!ret)
			ret = add_mark(it, &cap, &rq);
	}
	/*
	 * offline_pages(): start_isolate_page_range() refused, the blocks isolated before
	 * undone (re-typed MOVABLE before 6.17) at the probe's end, as the replay does it
	 * (model_isolate_refused()); a refusal outside its range is left out there too.
	 */
	for (i = 0; !ret && i < nr_ref; i++) {
		const struct tr_attempt *a = &ref[i];
		struct sim_request rq;

		if (a->seq_begin < it->seq_from || a->fin_pfn < a->start_pfn ||
		    a->fin_pfn >= a->end_pfn)
			continue;
		rq = (struct sim_request){
			.kind = SIM_REQ_REFUSED, .seq = a->seq_end, .ts = a->ts_begin, .cpu = -1,
			.mt = 1, .pfn = a->start_pfn, .nr_pages = a->end_pfn - a->start_pfn,
			.failed = true, .refused_pfn = a->fin_pfn,
		};
		ret = add_mark(it, &cap, &rq);
	}
	if (!ret && it->nr_marks > 1)
		qsort(it->marks, it->nr_marks, sizeof(*it->marks), cmp_mark);
	return ret;
}

int sim_reqs_open(struct tdb *db, const struct tr_decoder *dec, const struct tr_attempt *att,
		  int nr_att, const struct tr_attempt *ref, int nr_ref, uint64_t seq_from,
		  uint64_t seq_to, struct sim_reqs **out)
{
	struct sim_reqs *it = calloc(1, sizeof(*it));
	int ret;

	*out = NULL;
	if (!it)
		return bc_error(BC_E_NOMEM, "out of memory");
	it->dec = dec;
	it->seq_from = seq_from;
	it->seq_to = seq_to;
	ret = build_marks(it, att, nr_att, ref, nr_ref);
	if (!ret)
		ret = tdb_cursor_open(db, seq_from, seq_to, &it->cur);
	if (ret) {
		free(it->marks);
		free(it);
		return ret;
	}
	*out = it;
	return 0;
}

void sim_reqs_close(struct sim_reqs *it)
{
	if (!it)
		return;
	tdb_cursor_close(it->cur);
	free(it->marks);
	for (size_t i = 0; i < it->nr_cpus; i++)
		free(it->cpus[i].batch.v);
	free(it->cpus);
	free(it->held.v);
	free(it->out.v);
	free(it);
}

void sim_reqs_set_ahead(struct sim_reqs *it, const struct sim_ahead *a)
{
	it->ahead = a;
	it->next_early = 0;
	it->next_settle = 0;
	/* a window hands out what stands before its own events only */
	while (a && it->next_early < a->nr_early && a->early[it->next_early].at_seq < it->seq_from)
		it->next_early++;
}

uint64_t sim_reqs_events(const struct sim_reqs *it) { return it->events; }
uint64_t sim_reqs_failed_allocs(const struct sim_reqs *it) { return it->failed; }

/* The next attempt's request that stands before @seq (UINT64_MAX: any left), or NULL. */
static const struct sim_request *mark_before(struct sim_reqs *it, uint64_t seq)
{
	const struct mark *mk;

	if (it->next_mark >= it->nr_marks)
		return NULL;
	mk = &it->marks[it->next_mark];
	if (mk->rq.seq >= seq || mk->rq.seq >= it->seq_to)
		return NULL;
	it->next_mark++;
	return &mk->rq;
}

static int held_push(struct held *h, const struct sim_request *rq)
{
	int ret = bc_grow(&h->v, h->nr, &h->cap, sizeof(*h->v), 64, "simulate");

	if (!ret)
		h->v[h->nr++] = *rq;
	return ret;
}

static bool is_refilling(const struct sim_reqs *it, int cpu)
{
	return cpu >= 0 && (size_t)cpu < it->nr_cpus && it->cpus[cpu].refilling;
}

/* @cpu's state, grown to hold it; NULL (no error) for a cpu out of range. */
static int cpu_state(struct sim_reqs *it, int cpu, struct cpu_state **cs)
{
	int ret;

	*cs = NULL;
	if (cpu < 0 || cpu >= 65536)
		return 0;
	ret = bc_grow_index(&it->cpus, &it->nr_cpus, (size_t)cpu, sizeof(*it->cpus), "simulate");
	if (!ret)
		*cs = &it->cpus[cpu];
	return ret;
}

static int set_refilling(struct sim_reqs *it, int cpu, uint64_t ts)
{
	struct cpu_state *cs;
	int ret = cpu_state(it, cpu, &cs);

	if (!ret && cs) {
		cs->refilling = true;
		cs->refill_ts = ts;
	}
	return ret;
}

/*
 * The allocation @rq of a refilling cpu is handed out now; the requests held for its
 * cpu follow it (or, @rq NULL, are released: the refill's allocation failed, or the
 * stream ended), in their order, before the next event.
 */
static int release_held(struct sim_reqs *it, int cpu, const struct sim_request *rq)
{
	size_t i, k = 0;
	int ret = 0;

	if (it->out_next == it->out.nr)
		it->out.nr = it->out_next = 0;
	if (rq)
		ret = held_push(&it->out, rq);
	for (i = 0; i < it->held.nr && !ret; i++) {
		if (cpu < 0 || it->held.v[i].cpu == cpu)
			ret = held_push(&it->out, &it->held.v[i]);
		else
			it->held.v[k++] = it->held.v[i];
	}
	if (!ret) {
		it->held.nr = cpu < 0 ? 0 : k;
		if (cpu >= 0 && (size_t)cpu < it->nr_cpus)
			it->cpus[cpu].refilling = false;
		else if (cpu < 0)
			for (i = 0; i < it->nr_cpus; i++)
				it->cpus[i].refilling = false;
	}
	return ret;
}

static bool is_early_out(const struct sim_reqs *it, int cpu)
{
	return cpu >= 0 && (size_t)cpu < it->nr_cpus && it->cpus[cpu].early_out;
}

/* What the pass ahead found of the free @rq. */
static void free_flags(const struct sim_reqs *it, struct sim_request *rq)
{
	const struct sim_ahead *a = it->ahead;

	if (a && a->nr_reused)
		rq->reused = u64set_has(a->reused, a->nr_reused, rq->seq);
	if (a && a->nr_past)
		rq->past = u64set_has(a->past, a->nr_past, rq->seq);
}

/*
 * The commit (mm_page_free_batched) of @pfn on @cpu: its free is handed out, and any
 * of the batch before it whose commit did not come. @cpu -1: every cpu's, all.
 */
static int batch_commit(struct sim_reqs *it, int cpu, uint64_t pfn)
{
	size_t c, i, k;
	int ret = 0;

	if (it->out_next == it->out.nr)
		it->out.nr = it->out_next = 0;
	for (c = 0; c < it->nr_cpus && !ret; c++) {
		struct held *b = &it->cpus[c].batch;

		if (cpu >= 0 && (size_t)cpu != c)
			continue;
		k = b->nr;
		if (cpu >= 0) {
			for (i = 0; i < b->nr && b->v[i].pfn != pfn; i++)
				;
			if (i == b->nr)
				continue;	/* not one of its batch's: nothing waits */
			k = i + 1;
		}
		for (i = 0; i < k && !ret; i++)
			ret = held_push(&it->out, &b->v[i]);
		if (!ret) {
			memmove(b->v, b->v + k, (b->nr - k) * sizeof(*b->v));
			b->nr -= k;
		}
	}
	return ret;
}

static bool batches_left(const struct sim_reqs *it)
{
	for (size_t c = 0; c < it->nr_cpus; c++)
		if (it->cpus[c].batch.nr)
			return true;
	return false;
}

/* The next request the pass ahead put before the event @seq, or NULL. */
static const struct sim_early *insert_at(struct sim_reqs *it, uint64_t seq)
{
	const struct sim_ahead *a = it->ahead;

	if (!a || it->next_early >= a->nr_early || a->early[it->next_early].at_seq > seq)
		return NULL;
	return &a->early[it->next_early++];
}

/* Is the event @seq the end of the next held batch? */
static bool settle_at(struct sim_reqs *it, uint64_t seq)
{
	const struct sim_ahead *a = it->ahead;

	while (a && it->next_settle < a->nr_settles && a->settles[it->next_settle].seq < seq)
		it->next_settle++;
	return a && it->next_settle < a->nr_settles && a->settles[it->next_settle].seq == seq;
}

int sim_reqs_next(struct sim_reqs *it, struct sim_request *rq)
{
	const struct sim_early *el;
	const struct sim_request *a;
	enum tr_event_kind k;
	int ret;

	for (;;) {
		if (it->out_next < it->out.nr) {
			*rq = it->out.v[it->out_next++];
			return 1;
		}
		if (!it->have_ev) {
			ret = tdb_cursor_next(it->cur, &it->raw);
			if (ret < 0)
				return ret;
			if (ret == 0 && it->held.nr) {
				ret = release_held(it, -1, NULL);
				if (ret)
					return ret;
				continue;
			}
			if (ret == 0 && batches_left(it)) {
				ret = batch_commit(it, -1, UINT64_MAX);
				if (ret)
					return ret;
				continue;
			}
			if (ret == 0) {
				a = mark_before(it, UINT64_MAX);
				if (!a)
					return 0;
				*rq = *a;
				return 1;
			}
			it->events++;
			/* only the requests' kinds are decoded; the others need their seq */
			k = tr_decoder_kind(it->dec, it->raw.type);
			/* a commit's pfn only where frees wait for their commits */
			if (k == TR_EV_FREE_BATCHED && !(it->ahead && it->ahead->nr_deferred))
				k = TR_EV_OTHER;
			if (k == TR_EV_PAGE_ALLOC || k == TR_EV_PAGE_FREE || k == TR_EV_PCPU_DRAIN ||
			    k == TR_EV_VMSTAT_UPDATE || k == TR_EV_FREE_BATCHED) {
				tr_decode_page(it->dec, &it->raw, &it->ev);
			} else if (k == TR_EV_ZONE_LOCKED) {
				tr_decode(it->dec, &it->raw, &it->ev);
			} else {
				it->ev.kind = k;
				it->ev.seq = it->raw.seq;
			}
			it->have_ev = true;
		}
		/* an attempt that stood before this event comes first */
		a = mark_before(it, it->ev.seq);
		if (a) {
			*rq = *a;
			return 1;
		}
		/* what the pass ahead put before it (the event comes back after) */
		el = insert_at(it, it->ev.seq);
		if (el) {
			struct sim_request e = el->rq;
			struct cpu_state *cs;

			e.ts = el->at_ts;
			if (!e.early) {
				*rq = e;
				return 1;
			}
			ret = cpu_state(it, e.cpu, &cs);
			if (ret)
				return ret;
			if (cs) {
				cs->early_out = true;
				cs->held_open = e.held;
			}
			if (is_refilling(it, e.cpu)) {
				ret = release_held(it, e.cpu, &e);
				if (ret)
					return ret;
				continue;
			}
			*rq = e;
			return 1;
		}
		it->have_ev = false;
		if ((it->ev.kind == TR_EV_ZONE_LOCKED || it->ev.kind == TR_EV_EXTFRAG) &&
		    settle_at(it, it->ev.seq)) {
			/* a batch's end comes after its decision: never the same event */
			const struct sim_settle *st = &it->ahead->settles[it->next_settle++];

			if (st->cpu >= 0 && (size_t)st->cpu < it->nr_cpus)
				it->cpus[st->cpu].held_open = false;
			*rq = (struct sim_request){ .kind = SIM_REQ_SETTLE, .seq = st->seq,
						    .ts = st->ts, .cpu = st->cpu,
						    .pfn = UINT64_MAX };
			return 1;
		}
		if ((it->ev.kind == TR_EV_ZONE_LOCKED || it->ev.kind == TR_EV_EXTFRAG) &&
		    it->ev.cpu >= 0 && (size_t)it->ev.cpu < it->nr_cpus &&
		    it->cpus[it->ev.cpu].held_open && it->ev.pfn != UINT64_MAX) {
			/* a block of the held batch taken (v6.10+ counts each as it goes) */
			*rq = (struct sim_request){ .kind = SIM_REQ_SETTLE, .seq = it->ev.seq,
						    .ts = it->ev.ts, .cpu = it->ev.cpu,
						    .pfn = it->ev.pfn, .order = it->ev.order,
						    .nr_pages = it->ev.order < 63 ?
								1ull << it->ev.order : 0 };
			return 1;
		}
		if (it->ev.kind == TR_EV_ZONE_LOCKED && it->ev.percpu_refill &&
		    !is_refilling(it, it->ev.cpu) && !is_early_out(it, it->ev.cpu)) {
			ret = set_refilling(it, it->ev.cpu, it->ev.ts);
			if (ret)
				return ret;
			continue;
		}
		if (it->ev.kind == TR_EV_FREE_BATCHED) {
			ret = batch_commit(it, it->ev.cpu, it->ev.pfn);
			if (ret)
				return ret;
			continue;
		}
		if (it->ev.kind != TR_EV_PAGE_ALLOC && it->ev.kind != TR_EV_PAGE_FREE &&
		    it->ev.kind != TR_EV_PCPU_DRAIN && it->ev.kind != TR_EV_VMSTAT_UPDATE)
			continue;
		if (it->ev.pfn == UINT64_MAX && it->ev.kind != TR_EV_VMSTAT_UPDATE) {
			it->failed += it->ev.kind == TR_EV_PAGE_ALLOC;
			if (it->ev.kind == TR_EV_PAGE_ALLOC && is_refilling(it, it->ev.cpu)) {
				ret = release_held(it, it->ev.cpu, NULL);
				if (ret)
					return ret;
			}
			continue;
		}
		*rq = (struct sim_request){
			.kind = it->ev.kind == TR_EV_PAGE_ALLOC ? SIM_REQ_ALLOC :
				it->ev.kind == TR_EV_PAGE_FREE ? SIM_REQ_FREE :
				it->ev.kind == TR_EV_PCPU_DRAIN ? SIM_REQ_PCP_DRAIN : SIM_REQ_VMSTAT,
			.seq = it->ev.seq, .ts = it->ev.ts, .cpu = it->ev.cpu,
			.order = it->ev.order, .mt = it->ev.mt, .gfp = it->ev.gfp,
			.pfn = it->ev.pfn,
			.nr_pages = it->ev.order < 63 ? 1ull << it->ev.order : 0,
		};
		if (rq->kind == SIM_REQ_FREE)
			free_flags(it, rq);
		if (rq->kind == SIM_REQ_FREE && it->ahead && it->ahead->nr_deferred &&
		    u64set_has(it->ahead->deferred, it->ahead->nr_deferred, rq->seq)) {
			struct cpu_state *cs;

			/* handed out at its commit (batch_commit()) */
			rq->deferred = true;
			ret = cpu_state(it, rq->cpu, &cs);
			if (!ret && cs)
				ret = held_push(&cs->batch, rq);
			if (ret)
				return ret;
			if (cs)
				continue;
			return 1;
		}
		if (rq->kind == SIM_REQ_ALLOC && it->ahead && it->ahead->nr_early_seqs &&
		    u64set_has(it->ahead->early_seqs, it->ahead->nr_early_seqs, rq->seq)) {
			/* handed out at its decision */
			if ((size_t)rq->cpu < it->nr_cpus)
				it->cpus[rq->cpu].early_out = false;
			continue;
		}
		if (is_refilling(it, rq->cpu) &&
		    rq->ts > it->cpus[rq->cpu].refill_ts + SIM_REFILL_WAIT_NS) {
			/* the held ones first, then this one, in order */
			ret = release_held(it, rq->cpu, NULL);
			if (!ret)
				ret = held_push(&it->out, rq);
			if (ret)
				return ret;
			continue;
		}
		if (is_refilling(it, rq->cpu)) {
			ret = rq->kind == SIM_REQ_ALLOC ? release_held(it, rq->cpu, rq) :
							  held_push(&it->held, rq);
			if (ret)
				return ret;
			continue;
		}
		return 1;
	}
}
