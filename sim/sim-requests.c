// SPDX-License-Identifier: GPL-2.0
/* sim-requests: the request stream (sim-requests.h) over a db cursor. */
#include <stdlib.h>

#include "common/err.h"
#include "db/tdb.h"
#include "sim/sim-requests.h"
#include "trace/tr-attempt.h"
#include "trace/tr-event.h"

struct sim_reqs {
	struct tdb_cursor *cur;
	const struct tr_decoder *dec;
	const struct tr_attempt *att;
	int nr_att, next_att;
	uint64_t seq_from, seq_to;
	uint64_t events, failed;
	bool have_ev;			/* ev holds an event not yet handed out */
	struct tr_event ev;
	struct bc_event raw;
};

/* The event after which an attempt's result stands: its last test, else its end. */
static uint64_t att_seq(const struct tr_attempt *a)
{
	return a->nr_tests && a->seq_test ? a->seq_test : a->seq_end;
}

int sim_reqs_open(struct tdb *db, const struct tr_decoder *dec, const struct tr_attempt *att,
		  int nr_att, uint64_t seq_from, uint64_t seq_to, struct sim_reqs **out)
{
	struct sim_reqs *it = calloc(1, sizeof(*it));
	int ret;

	*out = NULL;
	if (!it)
		return bc_error(BC_E_NOMEM, "out of memory");
	ret = tdb_cursor_open(db, seq_from, seq_to, &it->cur);
	if (ret) {
		free(it);
		return ret;
	}
	it->dec = dec;
	it->att = att;
	it->nr_att = nr_att;
	it->seq_from = seq_from;
	it->seq_to = seq_to;
	*out = it;
	return 0;
}

void sim_reqs_close(struct sim_reqs *it)
{
	if (!it)
		return;
	tdb_cursor_close(it->cur);
	free(it);
}

uint64_t sim_reqs_events(const struct sim_reqs *it) { return it->events; }
uint64_t sim_reqs_failed_allocs(const struct sim_reqs *it) { return it->failed; }

/* The next attempt handed out (sim-requests.h) that stands before @seq (UINT64_MAX: any left), or NULL. */
static const struct tr_attempt *attempt_before(struct sim_reqs *it, uint64_t seq)
{
	while (it->next_att < it->nr_att) {
		const struct tr_attempt *a = &it->att[it->next_att];
		uint64_t s = att_seq(a);

		if ((!a->success && (a->kind != TR_ATTEMPT_CONTIG || a->continued)) ||
		    s < it->seq_from) {
			it->next_att++;
			continue;
		}
		if (s >= seq || s >= it->seq_to)
			return NULL;
		it->next_att++;
		return a;
	}
	return NULL;
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

int sim_reqs_next(struct sim_reqs *it, struct sim_request *rq)
{
	const struct tr_attempt *a;
	enum tr_event_kind k;
	int ret;

	for (;;) {
		if (!it->have_ev) {
			ret = tdb_cursor_next(it->cur, &it->raw);
			if (ret < 0)
				return ret;
			if (ret == 0) {
				a = attempt_before(it, UINT64_MAX);
				if (!a)
					return 0;
				attempt_request(a, rq);
				return 1;
			}
			it->events++;
			/* only the requests' kinds are decoded; the others need their seq */
			k = tr_decoder_kind(it->dec, it->raw.type);
			if (k == TR_EV_PAGE_ALLOC || k == TR_EV_PAGE_FREE || k == TR_EV_PCPU_DRAIN) {
				tr_decode_page(it->dec, &it->raw, &it->ev);
			} else {
				it->ev.kind = k;
				it->ev.seq = it->raw.seq;
			}
			it->have_ev = true;
		}
		/* an attempt that stood before this event comes first */
		a = attempt_before(it, it->ev.seq);
		if (a) {
			attempt_request(a, rq);
			return 1;
		}
		it->have_ev = false;
		if (it->ev.kind != TR_EV_PAGE_ALLOC && it->ev.kind != TR_EV_PAGE_FREE &&
		    it->ev.kind != TR_EV_PCPU_DRAIN)
			continue;
		if (it->ev.pfn == UINT64_MAX) {
			it->failed += it->ev.kind == TR_EV_PAGE_ALLOC;
			continue;
		}
		*rq = (struct sim_request){
			.kind = it->ev.kind == TR_EV_PAGE_ALLOC ? SIM_REQ_ALLOC :
				it->ev.kind == TR_EV_PAGE_FREE ? SIM_REQ_FREE : SIM_REQ_PCP_DRAIN,
			.seq = it->ev.seq, .ts = it->ev.ts, .cpu = it->ev.cpu,
			.order = it->ev.order, .mt = it->ev.mt, .gfp = it->ev.gfp,
			.pfn = it->ev.pfn,
			.nr_pages = it->ev.order < 63 ? 1ull << it->ev.order : 0,
		};
		return 1;
	}
}
