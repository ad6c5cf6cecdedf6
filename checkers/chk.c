// SPDX-License-Identifier: GPL-2.0
/*
 * The checker runner: context, the shadow pfn map, violation records, event and
 * attempt dispatch to the trace checks (chk-trace.c) and the model checks
 * (chk-model.c), and the capture driver (replay when possible, else trace only).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/chk-local.h"
#include "common/err.h"
#include "common/u64set.h"
#include "db/tdb.h"
#include "db/tdb-probes.h"
#include "db/tdb-snap.h"
#include "trace/tr-layout.h"
#include "trace/tr-marks.h"

static const struct {
	const char *name, *rule, *fn;
} checkers[] = {
#define CHECKER(id, name, rule, fn) [CHK_##id] = { name, rule, fn },
#include "checkers/invariants.def"
};

static const struct {
	enum chk_checker chk;
	const char *name, *text;
} invs[] = {
#define INV(id, chk, name, text) [CHK_INV_##id] = { CHK_##chk, name, text },
#include "checkers/invariants.def"
};

const char *chk_checker_name(enum chk_checker c)
{
	return (unsigned int)c < CHK_NR_CHECKERS ? checkers[c].name : "?";
}

const char *chk_checker_rule(enum chk_checker c)
{
	return (unsigned int)c < CHK_NR_CHECKERS ? checkers[c].rule : "?";
}

const char *chk_checker_functions(enum chk_checker c)
{
	return (unsigned int)c < CHK_NR_CHECKERS ? checkers[c].fn : "?";
}

int chk_checker_from_name(const char *name)
{
	int i;

	for (i = 0; i < CHK_NR_CHECKERS; i++)
		if (!strcmp(checkers[i].name, name))
			return i;
	return -1;
}

const char *chk_inv_name(enum chk_inv i)
{
	return (unsigned int)i < CHK_NR_INV ? invs[i].name : "?";
}

const char *chk_inv_text(enum chk_inv i)
{
	return (unsigned int)i < CHK_NR_INV ? invs[i].text : "?";
}

enum chk_checker chk_inv_checker(enum chk_inv i)
{
	return (unsigned int)i < CHK_NR_INV ? invs[i].chk : CHK_NR_CHECKERS;
}

int chk_create(const struct chk_opts *opts, struct chk_ctx **out)
{
	struct chk_ctx *c = calloc(1, sizeof(*c));
	int k;

	if (!c)
		return bc_error(BC_E_NOMEM, "out of memory");
	if (opts)
		c->o = *opts;
	if (!c->o.checkers)
		c->o.checkers = (1u << CHK_NR_CHECKERS) - 1;
	if (!c->o.max_errors)
		c->o.max_errors = 100;
	if (!c->o.recount_every)
		c->o.recount_every = 1u << 20;
	/* Until the layout is known: 2^40 pfns, the 52 physical address bits of x86-64. */
	c->max_dir = 1ull << (40 - SH_PAGE_SHIFT);
	c->viol = calloc(c->o.max_errors, sizeof(*c->viol));
	if (!c->viol) {
		free(c);
		return bc_error(BC_E_NOMEM, "out of memory");
	}
	for (k = 0; k < CHK_NR_CHECKERS; k++)
		if (!(c->o.checkers & (1u << k))) {
			c->r[k].status = CHK_NOT_RUN;
			c->r[k].not_run = "not selected";
		}
	c->pb_order = 9;
	c->max_order = 10;
	c->order18 = true;
	c->isolate_mt = 4;
	c->isolate_bit = true;
	c->pcp_orders = 0x20f;
	c->claim_pfn = UINT64_MAX;
	c->claim_mt = -1;
	*out = c;
	return 0;
}

static void att_free(struct chk_att *a)
{
	free(a->pb_before);
	a->pb_before = NULL;
}

void chk_destroy(struct chk_ctx *c)
{
	uint64_t i;
	int k;

	if (!c)
		return;
	for (i = 0; i < c->nr_dir; i++)
		free(c->dir[i]);
	free(c->dir);
	for (k = 0; k < c->nr_att; k++)
		att_free(&c->att[k]);
	att_free(&c->hyp);
	free(c->att);
	free(c->lost);
	free(c->pbs);
	tr_decoder_destroy(c->dec);
	chk_reads_free(c->reads);
	free(c->viol);
	free(c);
}

bool chk_on(const struct chk_ctx *c, enum chk_checker k)
{
	return (c->o.checkers >> k) & 1;
}

void chk_count(struct chk_ctx *c, enum chk_checker k, uint64_t n)
{
	if (chk_on(c, k))
		c->r[k].checks += n;
}

void chk_report_v(struct chk_ctx *c, enum chk_inv inv, bool inconclusive, uint64_t pfn,
		  unsigned int order, const char *fmt, ...)
{
	enum chk_checker k = chk_inv_checker(inv);
	struct chk_violation *v;
	va_list ap;

	if (!chk_on(c, k))
		return;
	if (inconclusive) {
		c->r[k].inconclusive++;
		return;
	}
	c->r[k].violations++;
	c->inv_count[inv]++;
	if (c->nr_viol >= c->o.max_errors)
		return;
	v = &c->viol[c->nr_viol++];
	v->inv = inv;
	v->seq = c->ev ? c->ev->seq : CHK_NO_SEQ;
	v->ts = c->ev ? c->ev->ts : 0;
	v->cpu = c->ev ? c->ev->cpu : -1;
	v->pfn = pfn;
	v->order = order;
	va_start(ap, fmt);
	vsnprintf(v->text, sizeof(v->text), fmt, ap);
	va_end(ap);
}

/* ---- shadow pfn map ------------------------------------------------------------- */

uint32_t *chk_sh_word_slow(struct chk_ctx *c, uint64_t pfn, bool create)
{
	uint64_t d = pfn >> SH_PAGE_SHIFT;

	if (d >= c->nr_dir) {
		uint64_t n = c->nr_dir ? c->nr_dir : 64;
		uint32_t **nd;

		if (!create)
			return NULL;
		if (d >= c->max_dir) {		/* not a pfn of this machine */
			c->pfns_outside++;
			return NULL;
		}
		while (n <= d)
			n *= 2;
		nd = realloc(c->dir, n * sizeof(*nd));
		if (!nd)
			return NULL;
		memset(nd + c->nr_dir, 0, (n - c->nr_dir) * sizeof(*nd));
		c->dir = nd;
		c->nr_dir = n;
	}
	if (!c->dir[d]) {
		if (!create)
			return NULL;
		c->dir[d] = calloc(SH_PAGE, sizeof(uint32_t));
		if (!c->dir[d])
			return NULL;
	}
	return &c->dir[d][pfn & (SH_PAGE - 1)];
}

void chk_sh_set(struct chk_ctx *c, uint64_t pfn, uint64_t n, enum sh_state st)
{
	uint32_t w = (c->epoch << SH_EPOCH_SHIFT) | st;

	while (n) {
		uint32_t *p = chk_sh_word(c, pfn, true);
		uint64_t run = SH_PAGE - (pfn & (SH_PAGE - 1)), i;

		if (run > n)
			run = n;
		if (p)
			for (i = 0; i < run; i++)
				p[i] = w;
		pfn += run;
		n -= run;
	}
}

/* ---- layout, attempts, lost windows ------------------------------------------------ */

int chk_set_layout(struct chk_ctx *c, const struct model *m)
{
	const struct model_profile *p = model_get_profile(m);

	c->L = *model_get_layout(m);
	c->have_layout = true;
	if (c->L.nr_zones) {
		const struct model_zone_layout *z = &c->L.zones[c->L.nr_zones - 1];

		c->max_dir = ((z->start_pfn + z->spanned) >> SH_PAGE_SHIFT) + 1;
	}
	c->pb_order = c->L.pageblock_order;
	c->max_order = c->L.max_page_order;
	c->order18 = p->gigantic_free_order18;
	c->isolate_mt = p->cma ? 5 : 4;
	c->isolate_bit = p->isolate_bit;
	c->pcp_orders = p->pcp_orders;
	return chk_pbs_init(c, m);
}

static int cmp_att(const void *a, const void *b)
{
	const struct chk_att *x = a, *y = b;

	if (x->a.seq_begin != y->a.seq_begin)
		return x->a.seq_begin < y->a.seq_begin ? -1 : 1;
	return 0;
}

int chk_set_attempts(struct chk_ctx *c, const struct tr_attempt *attempts, int nr)
{
	int i;

	for (i = 0; i < c->nr_att; i++)
		att_free(&c->att[i]);
	free(c->att);
	c->att = NULL;
	c->nr_att = c->next_att = c->nr_active = 0;
	if (nr <= 0)
		return 0;
	c->att = calloc((size_t)nr, sizeof(*c->att));
	if (!c->att)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (i = 0; i < nr; i++)
		c->att[i].a = attempts[i];
	c->nr_att = nr;
	qsort(c->att, (size_t)nr, sizeof(*c->att), cmp_att);
	return 0;
}

int chk_add_lost(struct chk_ctx *c, uint64_t seq)
{
	uint64_t *n = realloc(c->lost, (c->nr_lost + 1) * sizeof(*n));

	if (!n)
		return bc_error(BC_E_NOMEM, "out of memory");
	c->lost = n;
	c->lost[c->nr_lost++] = seq;
	u64set_sort(c->lost, c->nr_lost);
	return 0;
}

static int read_lost(struct chk_ctx *c, struct tdb *db)
{
	uint64_t *seqs;
	int n, i, ret;

	ret = tr_lost_windows(db, &seqs, &n);
	for (i = 0; !ret && i < n; i++)
		ret = chk_add_lost(c, seqs[i]);
	free(seqs);
	return ret;
}

/*
 * Zones and System RAM of the capture's first snapshot, when it has one. The orders
 * stay the capture's meta (the trace's own kernel), whatever the snapshot says.
 */
static int read_layout(struct chk_ctx *c, struct tdb *db)
{
	struct model_profile prof;
	int64_t snap;
	int ret;

	c->pb_order = (unsigned int)tdb_get_meta_int(db, "pageblock_order", 9);
	c->max_order = (unsigned int)tdb_get_meta_int(db, "max_page_order", 10);
	ret = tdb_snap_first_zoned(db, &snap);
	if (ret || snap < 0)
		return ret;
	ret = tr_read_layout(db, snap, &c->L, &prof, NULL);
	if (ret)
		return ret;
	c->L.pageblock_order = c->pb_order;
	c->L.max_page_order = c->max_order;
	c->have_layout = c->L.nr_zones > 0;
	return 0;
}

int chk_attach_trace(struct chk_ctx *c, struct tdb *db)
{
	int ret;

	c->db = db;
	ret = read_layout(c, db);
	if (!ret)
		ret = read_lost(c, db);
	if (!ret)
		ret = chk_decode_init(c, db);
	if (!ret)
		ret = chk_find_attempts(c, db);
	return ret;
}

void chk_set_probe_records(struct chk_ctx *c, bool have)
{
	c->no_probe_records = !have;
}

int chk_attach_replay(struct chk_ctx *c, struct replay *rp)
{
	const struct tr_attempt *a;
	int nr, ret;

	c->rp = rp;
	c->db = rp_tdb(rp);
	c->replayed = true;
	chk_set_probe_records(c, tdb_next_probe_id(c->db) > 1);
	ret = chk_set_layout(c, rp_model(rp));
	if (!ret)
		ret = read_lost(c, c->db);
	if (ret)
		return ret;
	a = rp_attempts(rp, &nr);
	return chk_set_attempts(c, a, nr);
}

/* ---- dispatch ---------------------------------------------------------------------- */

static struct chk_att *find_att(struct chk_ctx *c, const struct tr_attempt *a)
{
	int i;

	for (i = 0; i < c->nr_att; i++)
		if (c->att[i].a.seq_begin == a->seq_begin && c->att[i].a.start_pfn == a->start_pfn)
			return &c->att[i];
	return NULL;
}

static void att_activate(struct chk_ctx *c, struct chk_att *ca)
{
	size_t i;

	if (ca->begun)
		return;
	ca->begun = ca->active = true;
	c->nr_active++;
	for (i = 0; i < c->nr_lost; i++)
		if (c->lost[i] > ca->a.seq_begin && c->lost[i] <= ca->a.seq_end)
			ca->lost = true;
}

static void att_deactivate(struct chk_ctx *c, struct chk_att *ca)
{
	if (!ca->active)
		return;
	ca->active = false;
	ca->ended = true;
	if (!ca->drained) {
		ca->drained = true;
		ca->drain_end = ca->a.seq_end;
	}
	c->nr_active--;
}

int chk_before_event(struct chk_ctx *c, const struct model *m, const struct tr_event *ev)
{
	int i, ret;

	c->ev = ev;
	c->events++;
	while (c->next_lost < c->nr_lost && c->lost[c->next_lost] <= ev->seq) {
		c->epoch++;
		c->next_lost++;
	}
	while (c->next_att < c->nr_att && c->att[c->next_att].a.seq_begin <= ev->seq)
		att_activate(c, &c->att[c->next_att++]);
	if (c->nr_active) {
		for (i = 0; i < c->nr_att; i++) {
			struct chk_att *ca = &c->att[i];

			if (!ca->active || ca->drained)
				continue;
			if (ev->pid == ca->a.pid && ev->kind != TR_EV_PCPU_DRAIN) {
				ca->drained = true;
				ca->drain_end = ev->seq;
			}
		}
	}
	ret = chk_trace_before(c, m, ev);
	if (!ret && m)
		ret = chk_model_before(c, m, ev);
	return ret;
}

int chk_after_event(struct chk_ctx *c, const struct model *m, const struct tr_event *ev)
{
	int i, ret;

	c->ev = ev;
	ret = chk_trace_after(c, m, ev);
	if (!ret && m)
		ret = chk_model_after(c, m, ev);
	if (c->nr_active) {
		for (i = 0; i < c->nr_att; i++) {
			struct chk_att *ca = &c->att[i];

			if (ca->active && ev->seq >= ca->a.seq_end && !c->rp)
				ret = ret ? ret : chk_attempt_end(c, m, &ca->a);
		}
	}
	if (!ret && m && ++c->since_recount >= c->o.recount_every)
		ret = chk_model(c, m);
	c->ev = NULL;		/* borrowed from the caller for this event only */
	return ret;
}

/*
 * Violations found between events (an attempt's edges, a snapshot) are placed at @seq:
 * at the event being checked when it is that one, else at a stand-in @at. Returns the
 * event to restore.
 */
static const struct tr_event *place_at(struct chk_ctx *c, struct tr_event *at, uint64_t seq,
				       uint64_t ts)
{
	const struct tr_event *saved = c->ev;

	if (saved && saved->seq == seq)
		return saved;
	*at = (struct tr_event){ .kind = TR_EV_OTHER, .pfn = UINT64_MAX, .seq = seq, .ts = ts,
				 .cpu = -1 };
	c->ev = at;
	return saved;
}

/*
 * An attempt's first or last event: a check point and the attempt's own checks,
 * which at its end look at the range before the check point moves on.
 */
static int attempt_edge(struct chk_ctx *c, const struct model *m, struct chk_att *ca,
			bool begin)
{
	const struct tr_attempt *a = &ca->a;
	const struct tr_event *saved;
	struct tr_event at;
	int ret = 0;

	saved = begin ? place_at(c, &at, a->seq_begin, a->ts_begin) :
			place_at(c, &at, a->seq_end, a->ts_test);
	if (m && begin) {
		ret = chk_model(c, m);
		if (!ret)
			ret = chk_model_attempt_begin(c, m, ca);
	} else if (m) {
		ret = chk_model_attempt_end(c, m, ca);
		if (!ret)
			ret = chk_model(c, m);
	}
	c->ev = saved;
	return ret;
}

int chk_attempt_begin(struct chk_ctx *c, const struct model *m, const struct tr_attempt *a)
{
	struct chk_att *ca = find_att(c, a);

	if (!ca)
		return 0;
	att_activate(c, ca);
	return attempt_edge(c, m, ca, true);
}

int chk_attempt_end(struct chk_ctx *c, const struct model *m, const struct tr_attempt *a)
{
	struct chk_att *ca = find_att(c, a);
	int ret;

	if (!ca)
		return 0;
	ret = attempt_edge(c, m, ca, false);
	att_deactivate(c, ca);
	return ret;
}

int chk_refusal(struct chk_ctx *c, const struct model *m, const struct tr_attempt *a,
		bool done)
{
	struct tr_event at;
	const struct tr_event *saved = place_at(c, &at, a->seq_end, a->ts_test);
	int ret = 0;

	/* before: a check point, so that only the refusal's own changes remain */
	if (m)
		ret = done ? chk_model_refusal(c, m, a) : chk_model(c, m);
	c->ev = saved;
	return ret;
}

int chk_at_snapshot(struct chk_ctx *c, const struct model *m, struct tdb *db,
		    const struct rp_score *sc)
{
	struct tr_event at;
	const struct tr_event *saved = place_at(c, &at, sc->seq, sc->ts);
	int ret = 0;

	/* Violations found here are placed where the model was compared. */
	if (m) {
		ret = chk_model(c, m);
		if (!ret && db && chk_on(c, CHK_FREECOUNT))
			ret = chk_freecount_snapshot(c, m, db, sc);
	}
	c->ev = saved;
	return ret;
}

int chk_finish(struct chk_ctx *c, const struct model *m)
{
	return m ? chk_model(c, m) : 0;
}

/* ---- replay hooks ----------------------------------------------------------------- */

static int hk_before(void *arg, struct replay *rp, const struct tr_event *ev)
{
	return chk_before_event(arg, rp_model(rp), ev);
}

static int hk_after(void *arg, struct replay *rp, const struct tr_event *ev)
{
	return chk_after_event(arg, rp_model(rp), ev);
}

static int hk_begin(void *arg, struct replay *rp, const struct tr_attempt *a)
{
	return chk_attempt_begin(arg, rp_model(rp), a);
}

static int hk_end(void *arg, struct replay *rp, const struct tr_attempt *a)
{
	return chk_attempt_end(arg, rp_model(rp), a);
}

static int hk_refusal(void *arg, struct replay *rp, const struct tr_attempt *a, bool done)
{
	return chk_refusal(arg, rp_model(rp), a, done);
}

static int hk_snap(void *arg, struct replay *rp, const struct rp_score *sc)
{
	((struct chk_ctx *)arg)->trylock_late = rp_trylock_late(rp);
	return chk_at_snapshot(arg, rp_model(rp), rp_tdb(rp), sc);
}

void chk_replay_hooks(struct chk_ctx *c, struct rp_hooks *h)
{
	*h = (struct rp_hooks){
		.arg = c, .before_event = hk_before, .after_event = hk_after,
		.attempt_begin = hk_begin, .attempt_end = hk_end, .at_snapshot = hk_snap,
		.refusal = hk_refusal,
	};
}

/* ---- results ------------------------------------------------------------------------ */

const struct chk_violation *chk_violations(const struct chk_ctx *c, size_t *nr)
{
	*nr = c->nr_viol;
	return c->viol;
}

uint64_t chk_inv_count(const struct chk_ctx *c, enum chk_inv i)
{
	return (unsigned int)i < CHK_NR_INV ? c->inv_count[i] : 0;
}

void chk_get_summary(const struct chk_ctx *c, struct chk_summary *out)
{
	int k;

	memset(out, 0, sizeof(*out));
	for (k = 0; k < CHK_NR_CHECKERS; k++) {
		struct chk_result *r = &out->r[k];

		*r = c->r[k];
		if (r->status != CHK_NOT_RUN) {
			if (r->violations)
				r->status = CHK_FAIL;
			else if (r->inconclusive)
				r->status = CHK_INCONCLUSIVE;
			else
				r->status = CHK_PASS;
		}
		out->violations += r->violations;
		out->inconclusive += r->inconclusive;
	}
	out->events = c->events;
	out->attempts = (uint64_t)c->nr_att;
	out->lost_windows = c->nr_lost;
	out->pfns_outside = c->pfns_outside;
	out->hypothetical = c->hypothetical;
	out->kept = c->nr_viol;
	out->replayed = c->replayed;
}

/* ---- the capture driver -------------------------------------------------------------- */

static void not_run(struct chk_ctx *c, enum chk_checker k, const char *why)
{
	if (c->r[k].status != CHK_NOT_RUN) {
		c->r[k].status = CHK_NOT_RUN;
		c->r[k].not_run = why;
	}
}

static int run_trace(struct chk_ctx *c, struct tdb *db)
{
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	int ret;

	ret = chk_attach_trace(c, db);
	if (ret)
		return ret;
	not_run(c, CHK_FREECOUNT, "trace only: no snapshot to seed the model from");
	not_run(c, CHK_PAGEBLOCK_TYPE, "trace only: no snapshot to seed the model from");
	ret = tdb_cursor_open(db, 0, UINT64_MAX, &cur);
	if (ret)
		return ret;
	while ((ret = tdb_cursor_next(cur, &raw)) == 1) {
		tr_decode(c->dec, &raw, &ev);
		ret = chk_before_event(c, NULL, &ev);
		if (!ret)
			ret = chk_after_event(c, NULL, &ev);
		if (ret)
			break;
	}
	tdb_cursor_close(cur);
	c->ev = NULL;
	return ret < 0 ? ret : 0;
}

int chk_run_capture(struct chk_ctx *c, struct tdb *db)
{
	struct rp_opts ro = { .until_seq = UINT64_MAX, .progress = c->o.progress,
			      .note = c->o.note, .arg = c->o.arg };
	struct replay *rp = NULL;
	struct rp_hooks h;
	int ret;

	if (c->o.trace_only) {
		snprintf(c->mode_note, sizeof(c->mode_note), "trace only (--trace-only)");
		return run_trace(c, db);
	}
	ret = rp_create(db, &ro, &rp);
	if (ret) {
		/* Not seedable (no snapshot): the trace checks still run. */
		if (ret == -BC_E_NOMEM)
			return ret;
		snprintf(c->mode_note, sizeof(c->mode_note), "trace only: %s", bc_errmsg());
		return run_trace(c, db);
	}
	ret = chk_attach_replay(c, rp);
	if (!ret) {
		chk_replay_hooks(c, &h);
		ret = rp_run(rp, &h);
	}
	c->ev = NULL;
	if (!ret)
		ret = chk_finish(c, rp_model(rp));
	c->rp = NULL;
	rp_destroy(rp);
	return ret < 0 ? ret : 0;
}
