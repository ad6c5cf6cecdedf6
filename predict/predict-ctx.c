// SPDX-License-Identifier: GPL-2.0
/*
 * predict-ctx: the state predict keeps beside the model while it follows a replay
 * (struct pr_ctx, predict-local.h): the seq of the allocation event behind every
 * allocation head, to name the event that made a blocker, and the pages that real
 * attempts failed to migrate (likely pinned), which no tracepoint shows. The replay
 * hooks (pr_after_event() and the others) keep both, the LRU batches
 * (predict-lru.c) and the cheap index (predict-index.c) current.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/kpageflags.h"
#include "db/tdb-snap.h"
#include "db/tdb-trace.h"
#include "model/model.h"
#include "predict/predict-local.h"
#include "replay/replay.h"

static int ctx_create(struct replay *rp, struct model *m, struct pr_ctx **out)
{
	struct pr_ctx *c;
	const struct model_layout *L;
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned int i;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return bc_error(BC_E_NOMEM, "predict: out of memory");
	c->rp = rp;
	c->m = m;
	c->db = rp ? rp_tdb(rp) : NULL;
	L = model_get_layout(c->m);
	c->L = L;
	for (i = 0; i < L->nr_zones; i++) {
		if (!L->zones[i].spanned)
			continue;
		if (L->zones[i].start_pfn < lo)
			lo = L->zones[i].start_pfn;
		if (L->zones[i].start_pfn + L->zones[i].spanned > hi)
			hi = L->zones[i].start_pfn + L->zones[i].spanned;
	}
	if (lo >= hi) {
		free(c);
		return bc_error(BC_E_INVAL, "predict: the model has no zones");
	}
	c->base = lo;
	c->span = hi - lo;
	/* until a failed offline says otherwise (pr_learn_slab_rule()) */
	c->slab_passes = model_get_profile(m)->version >= MODEL_KVER(6, 18, 0);
	c->alloc_seq = calloc(c->span, sizeof(*c->alloc_seq));
	c->lru_pending = calloc((c->span + 63) / 64, sizeof(*c->lru_pending));
	if (!c->alloc_seq || !c->lru_pending) {
		pr_destroy(c);
		return bc_error(BC_E_NOMEM, "predict: out of memory (%" PRIu64 " pfns)", hi - lo);
	}
	*out = c;
	return 0;
}

/* Is @pfn an order-0 slab page in snapshot @snap? */
static bool slab_page(struct tdb *db, int64_t snap, uint64_t pfn)
{
	const uint64_t comp = KPF_BIT(KPF_COMPOUND_HEAD) | KPF_BIT(KPF_COMPOUND_TAIL);
	uint64_t f;

	return !tdb_snap_pages_read(db, snap, pfn, 1, &f, NULL) &&
	       (f & KPF_BIT(KPF_SLAB)) && !(f & comp);
}

/*
 * A frozen slab page has refcount 0 (dump_page() prints refcount:0 on 6.18), and in
 * the mainline has_unmovable_pages() a refcount-0 page is movable before anything
 * else is looked at; builds of the same 6.18.44 disagree all the same: on one the
 * failed offlines passed order-0 slab pages and stopped at a later page, on another
 * every failed offline stopped at an order-0 slab page (dumped as "unmovable page",
 * page_type slab, refcount 0). Each failed offline probe whose culprit is known
 * votes: its culprit is an order-0 slab page in the snapshots on both sides of the
 * probe (a slab page through it) says no; such a page below its culprit in its range
 * says yes. The nearest snapshots bracket the probe best; without one on a side, the
 * first or the last stands in. Until a vote is in: the release decides (6.18 on: yes,
 * as measured first; before: slab pages hold a reference).
 */
int pr_learn_slab_rule(struct pr_ctx *c)
{
	struct tdb_snap_info *snaps = NULL;
	int ns = 0, ret, k;
	unsigned int i;

	if (!c->db || !c->nr_notes)
		return 0;
	ret = tdb_snap_list(c->db, &snaps, &ns);
	if (ret || ns < 1) {
		free(snaps);
		return ret;
	}
	for (i = 0; i < c->nr_notes; i++) {
		struct pr_pin_note *n = &c->notes[i];
		const struct tdb_snap_info *before = &snaps[0], *after = &snaps[ns - 1];
		uint64_t pfn;

		for (k = 0; k < ns; k++) {
			if (snaps[k].seq_end >= 0 && (uint64_t)snaps[k].seq_end <= n->seq)
				before = &snaps[k];
			if (snaps[k].seq_begin >= 0 && (uint64_t)snaps[k].seq_begin >= n->seq &&
			    after == &snaps[ns - 1] && k < ns - 1)
				after = &snaps[k];
		}
		if (n->culprit == UINT64_MAX || n->culprit < n->start ||
		    n->culprit >= before->nr_pfns || n->culprit >= after->nr_pfns)
			continue;
		if (slab_page(c->db, before->id, n->culprit) &&
		    slab_page(c->db, after->id, n->culprit)) {
			n->slab_vote = -1;
			continue;
		}
		for (pfn = n->start; pfn < n->culprit && !n->slab_vote; pfn++)
			if (slab_page(c->db, before->id, pfn) && slab_page(c->db, after->id, pfn))
				n->slab_vote = 1;
	}
	free(snaps);
	return 0;
}

int pr_create(struct replay *rp, struct pr_ctx **out)
{
	int ret = ctx_create(rp, rp_model(rp), out);

	/* the seed's user pages off the LRU wait in LRU batches too */
	if (!ret)
		ret = pr_refresh_lru_batches(*out, rp_seed_snapshot(rp));
	if (!ret)
		ret = pr_refresh_seen_pins(*out, rp_seed_snapshot(rp));
	if (!ret)
		ret = pr_load_probe_pins(*out);
	if (!ret)
		ret = pr_learn_slab_rule(*out);
	if (ret) {
		pr_destroy(*out);
		*out = NULL;
	}
	return ret;
}

int pr_create_model(struct model *m, struct pr_ctx **out)
{
	return ctx_create(NULL, m, out);
}

void pr_destroy(struct pr_ctx *c)
{
	if (c) {
		free(c->alloc_seq);
		free(c->lru_pending);
		free(c->pins);
		free(c->notes);
		tdb_pins_free(&c->seen);
	}
	free(c);
}

/* seq + 1 of the last allocation event whose head is @head, 0 when none. */
uint32_t pr_alloc_seq_at(const struct pr_ctx *c, uint64_t head)
{
	return pr_in_span(c, head) ? c->alloc_seq[head - c->base] : 0;
}

void pr_after_event(struct pr_ctx *c, const struct tr_event *ev)
{
	unsigned int order = ev->order;

	switch (ev->kind) {
	case TR_EV_PAGE_ALLOC:
		if (ev->pfn == UINT64_MAX)
			return;
		pr_lru_settle(c, ev->pfn, order < 40 ? 1ull << order : 1);
		if (pr_in_span(c, ev->pfn))
			c->alloc_seq[ev->pfn - c->base] = ev->seq + 1 > UINT32_MAX ? UINT32_MAX :
							   (uint32_t)(ev->seq + 1);
		break;
	case TR_EV_PAGE_FREE:
		if (ev->pfn != UINT64_MAX)
			pr_lru_settle(c, ev->pfn, order < 40 ? 1ull << order : 1);
		if (ev->pfn != UINT64_MAX && pr_in_span(c, ev->pfn))
			c->alloc_seq[ev->pfn - c->base] = 0;
		break;
	case TR_EV_EXTFRAG:
		order = ev->fallback_order;
		break;
	case TR_EV_ZONE_LOCKED:
	case TR_EV_PCPU_DRAIN:
	case TR_EV_FREE_BATCHED:
		break;
	case TR_EV_ISOLATE_MIGRATE:
	case TR_EV_ISOLATE_FREE:
	case TR_EV_TEST_ISOLATED:
		if (c->ix && ev->end_pfn > ev->start_pfn && ev->end_pfn != UINT64_MAX)
			pr_index_touch(c->ix, ev->start_pfn, ev->end_pfn - ev->start_pfn);
		return;
	default:
		return;
	}
	/*
	 * The counters the index reads change only for the pages of the event: splits and
	 * merges around them move free pages between free blocks, not between counters.
	 */
	if (c->ix && ev->pfn != UINT64_MAX)
		pr_index_touch(c->ix, ev->pfn, order < 40 ? 1ull << order : 1);
}

void pr_touch_all(struct pr_ctx *c)
{
	if (c->ix)
		pr_index_touch_all(c->ix);
}

/* Remember @pfn as pinned; an observed pin (!@assumed) is never downgraded. */
static bool note_pin(struct pr_ctx *c, uint64_t pfn, uint64_t seq, const char *why,
		     bool assumed)
{
	struct model_pfn_info pi;
	struct pr_pin *p;
	unsigned int i;

	if (model_pfn_info(c->m, pfn, &pi) || pi.state != MODEL_PFN_ALLOC)
		return false;	/* the model has it free: nothing to remember */
	for (i = 0; i < c->nr_pins; i++)
		if (c->pins[i].pfn == pfn)
			break;
	if (i < c->nr_pins && assumed)
		return false;
	if (i == c->nr_pins) {
		if (c->nr_pins == c->cap_pins) {
			unsigned int cap = c->cap_pins ? 2 * c->cap_pins : 16;
			struct pr_pin *g = realloc(c->pins, cap * sizeof(*g));

			if (!g)
				return false;
			c->pins = g;
			c->cap_pins = cap;
		}
		c->nr_pins++;
	}
	p = &c->pins[i];
	p->pfn = pfn;
	p->head = pi.head;
	p->alloc = pr_alloc_seq_at(c, pi.head);
	p->seq = seq;
	p->assumed = assumed;
	snprintf(p->why, sizeof(p->why), "%s", why ? why : "");
	c->pins_gen++;
	return true;
}

void pr_note_pinned(struct pr_ctx *c, uint64_t pfn, uint64_t seq, const char *why)
{
	note_pin(c, pfn, seq, why, false);
}

bool pr_note_pin_assumed(struct pr_ctx *c, uint64_t pfn, uint64_t seq)
{
	return note_pin(c, pfn, seq, "same task and order as a pinned page", true);
}

bool pr_pin_assumed(const struct pr_ctx *c, uint64_t pfn)
{
	unsigned int i;

	for (i = 0; i < c->nr_pins; i++)
		if (c->pins[i].pfn == pfn)
			return c->pins[i].assumed;
	return false;
}

void pr_attempt_end(struct pr_ctx *c, const struct tr_attempt *a)
{
	if (!a->success && a->fin_pfn >= a->start_pfn && a->fin_pfn < a->end_pfn) {
		pr_note_pinned(c, a->fin_pfn, a->seq_test, "earlier attempt failed here");
		/* its migrations failed: the rest of the pinned buffer (assumed) */
		if (pr_migrate_failed(c, a->seq_begin, a->seq_test))
			pr_learn_pins(c, 0, 0, a->fin_pfn, a->seq_test,
				      "earlier attempt failed here");
	}
	/* It got as far as test_pages_isolated(): it migrated, so the batches drained. */
	pr_lru_drain_all(c);
	pr_touch_all(c);
}

/*
 * Pins a snapshot lists (longterm_pins: io_uring registered buffers, which hold every
 * page with pin_user_pages(FOLL_LONGTERM) until io_sqe_buffers_unregister()): taken as
 * pinned from that snapshot until the next one, which lists what is still registered.
 * The registration's own moment is not traced: one made or dropped between two
 * snapshots counts from the later one (PR_ASSUME_SNAPSHOT_PIN in answers).
 */
int pr_refresh_seen_pins(struct pr_ctx *c, int64_t snap)
{
	struct tdb_pins p;
	int ret;

	if (!c->db || snap < 0)
		return 0;
	ret = tdb_snap_pins(c->db, snap, &p);
	if (ret && ret != -BC_E_NOENT)
		return ret;
	if (p.nr == c->seen.nr && (!p.nr || !memcmp(p.runs, c->seen.runs,
						       (size_t)p.nr * sizeof(*p.runs)))) {
		tdb_pins_free(&p);	/* the same registrations: cached answers hold */
		c->seen_listed = !ret;
		return 0;
	}
	tdb_pins_free(&c->seen);
	c->seen = p;
	c->seen_listed = !ret;
	c->pins_gen++;
	return 0;
}

/* The first run of c->seen that ends above @pfn (c->seen.nr if none). */
static int seen_from(const struct pr_ctx *c, uint64_t pfn)
{
	int lo = 0, hi = c->seen.nr;

	/* runs are sorted by start; registered buffers do not overlap in pfns */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (c->seen.runs[mid].pfn + c->seen.runs[mid].nr <= pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && c->seen.runs[lo - 1].pfn + c->seen.runs[lo - 1].nr > pfn)
		lo--;
	return lo;
}

bool pr_pin_listed(const struct pr_ctx *c, uint64_t pfn)
{
	int i;

	for (i = seen_from(c, pfn); i < c->seen.nr && c->seen.runs[i].pfn <= pfn; i++)
		if (pfn < c->seen.runs[i].pfn + c->seen.runs[i].nr)
			return true;
	return false;
}

/*
 * The first listed pinned page in [s, e) that the model holds in use (a pinned page
 * cannot be freed while pinned: one the model has free is a registration gone).
 */
static bool listed_pin_in(struct pr_ctx *c, uint64_t s, uint64_t e, uint64_t *pfn)
{
	struct model_pfn_info pi;
	int i;

	for (i = seen_from(c, s); i < c->seen.nr && c->seen.runs[i].pfn < e; i++) {
		const struct tdb_pin_run *r = &c->seen.runs[i];
		uint64_t p = r->pfn > s ? r->pfn : s;
		uint64_t end = r->pfn + r->nr < e ? r->pfn + r->nr : e;

		for (; p < end; p++) {
			if (model_pfn_info(c->m, p, &pi))
				continue;
			if (pi.state == MODEL_PFN_ALLOC) {
				*pfn = p;
				return true;
			}
			if (pi.order < 64 && pi.head + (1ull << pi.order) > p + 1)
				p = pi.head + (1ull << pi.order) - 1;	/* past a free block */
		}
	}
	return false;
}

/* The first likely-pinned page in [s, e) that is still the same allocation. */
bool pr_pinned_in(struct pr_ctx *c, uint64_t s, uint64_t e, uint64_t *pfn)
{
	struct model_pfn_info pi;
	bool found = listed_pin_in(c, s, e, pfn);
	unsigned int i;

	for (i = 0; i < c->nr_pins; i++) {
		const struct pr_pin *p = &c->pins[i];

		if (p->pfn < s || p->pfn >= e || (found && p->pfn >= *pfn))
			continue;
		if (model_pfn_info(c->m, p->pfn, &pi) || pi.state != MODEL_PFN_ALLOC ||
		    pi.head != p->head || pr_alloc_seq_at(c, pi.head) != p->alloc)
			continue;
		*pfn = p->pfn;
		found = true;
	}
	return found;
}

/* ---- following a replay --------------------------------------------------------------- */

static int feed_before(void *arg, struct replay *rp, const struct tr_event *ev)
{
	struct pr_feed *f = arg;
	int ret = pr_pins_due(f->c, ev->seq);

	if (ret)
		return ret;
	return f->before ? f->before(f->arg, ev) : 0;
}

static int feed_after(void *arg, struct replay *rp, const struct tr_event *ev)
{
	struct pr_feed *f = arg;

	pr_after_event(f->c, ev);
	return f->after ? f->after(f->arg, ev) : 0;
}

/* replay has just isolated the attempt's range in the model */
static int feed_attempt_begin(void *arg, struct replay *rp, const struct tr_attempt *a)
{
	pr_touch_all(((struct pr_feed *)arg)->c);
	return 0;
}

static int feed_attempt_end(void *arg, struct replay *rp, const struct tr_attempt *a)
{
	pr_attempt_end(((struct pr_feed *)arg)->c, a);
	return 0;
}

/* the snapshot resynchronised pages anywhere; its LRU batches replace the last ones */
static int feed_snapshot(void *arg, struct replay *rp, const struct rp_score *sc)
{
	struct pr_feed *f = arg;

	int ret;

	pr_touch_all(f->c);
	ret = pr_refresh_lru_batches(f->c, sc->snap);
	return ret ? ret : pr_refresh_seen_pins(f->c, sc->snap);
}

int pr_feed_run(struct replay *rp, struct pr_feed *f)
{
	struct rp_hooks h = {
		.arg = f,
		.before_event = feed_before,
		.after_event = feed_after,
		.attempt_begin = feed_attempt_begin,
		.attempt_end = feed_attempt_end,
		.at_snapshot = feed_snapshot,
	};

	int ret = rp_run(rp, &h);

	if (!ret)
		ret = pr_pins_due(f->c, UINT64_MAX);	/* probes after the last event */
	return ret;
}
