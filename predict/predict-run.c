// SPDX-License-Identifier: GPL-2.0
/*
 * predict-run: the predict driver (predict-run.h). One replay of the capture carries a
 * predict context (pr_feed_run()); the question is asked in the replay's hooks at the
 * points asked for, and at the end. Answers asked at every event through the cheap
 * index are kept only when they differ from the previous question's, so a long
 * capture gives one answer per change of outcome, not one per event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-trace.h"
#include "predict/predict-local.h"
#include "predict/predict-run.h"
#include "replay/replay.h"

static const char *const point_names[] = {
	[PR_POINT_END] = "end",
	[PR_POINT_AT] = "at",
	[PR_POINT_EVERY] = "every",
	[PR_POINT_ATTEMPTS] = "attempts",
	[PR_POINT_VERIFY] = "verify",
};

const char *pr_point_name(enum pr_point p)
{
	return p <= PR_POINT_VERIFY ? point_names[p] : "?";
}

struct run {
	const struct pr_run_opts *o;
	struct replay *rp;
	struct pr_ctx *pc;
	struct pr_run_result *out;
	unsigned int cap_ans;
	/* every D of trace time */
	uint64_t next_ts;
	bool started;
	/* at every event */
	struct pr_index *ix;
	uint64_t last_sig;
	bool have_sig;
	/* before every real attempt */
	const struct tr_attempt *att;
	int nr_att, next_att;
};

/* Same outcome, range and blocking page: an answer at every event adds nothing. */
static bool same_outcome(const struct pr_answer *a, const struct pr_answer *b)
{
	return a->index == b->index && a->success == b->success && a->start_pfn == b->start_pfn &&
	       (a->success || (a->has_blocker == b->has_blocker &&
			       (!a->has_blocker || a->blocker.pfn == b->blocker.pfn)));
}

/* The previous question's answers equal @a: the run of equal at_seq at the end. */
static bool same_as_last(const struct pr_run_result *out, const struct pr_answer *a,
			 unsigned int n)
{
	uint64_t q;
	unsigned int k, i;

	if (!out->nr_ans)
		return false;
	q = out->ans[out->nr_ans - 1].at_seq;
	for (k = out->nr_ans; k > 0 && out->ans[k - 1].at_seq == q; k--)
		;
	if (out->nr_ans - k != n)
		return false;
	for (i = 0; i < n && same_outcome(&out->ans[k + i], &a[i]); i++)
		;
	return i == n;
}

/* Take the @n answers @a (malloc'ed by pr_ask()) into the result, or drop them. */
static int keep_answers(struct run *R, struct pr_answer *a, unsigned int n, bool dedupe)
{
	struct pr_run_result *out = R->out;

	if (dedupe && same_as_last(out, a, n)) {
		pr_answers_free(a, n);
		return 0;
	}
	if (out->nr_ans + n > R->cap_ans) {
		unsigned int cap = (out->nr_ans + n) * 2;
		struct pr_answer *g = realloc(out->ans, cap * sizeof(*g));

		if (!g) {
			pr_answers_free(a, n);
			return bc_error(BC_E_NOMEM, "out of memory");
		}
		out->ans = g;
		R->cap_ans = cap;
	}
	memcpy(out->ans + out->nr_ans, a, n * sizeof(*a));
	out->nr_ans += n;
	free(a);	/* the elements moved; their pointers now belong to out->ans */
	return 0;
}

static int ask(struct run *R, uint64_t seq, uint64_t ts, bool dedupe)
{
	struct pr_answer *a;
	unsigned int n;
	int ret;

	ret = pr_ask(R->pc, &R->o->o, seq, ts, &a, &n);
	if (ret)
		return ret;
	return keep_answers(R, a, n, dedupe);
}

/* Before @ev: every D of trace time that has passed, every attempt that begins here. */
static int run_before(void *arg, const struct tr_event *ev)
{
	struct run *R = arg;
	int ret = 0;

	if (R->o->point == PR_POINT_EVERY && R->o->every_ns) {
		if (!R->started) {
			R->started = true;
			R->next_ts = ev->ts;
		}
		for (; !ret && ev->ts >= R->next_ts; R->next_ts += R->o->every_ns)
			ret = ask(R, ev->seq, ev->ts, false);
	} else if (R->o->point == PR_POINT_ATTEMPTS) {
		for (; !ret && R->next_att < R->nr_att && R->att[R->next_att].seq_begin <= ev->seq;
		     R->next_att++)
			ret = ask(R, ev->seq, ev->ts, false);
	}
	return ret;
}

/* After @ev: at every event, a question whenever the index's signature changes. */
static int run_after(void *arg, const struct tr_event *ev)
{
	struct run *R = arg;
	int ret;

	if (R->ix) {
		uint64_t sig = pr_index_sig(R->ix);

		if (!R->have_sig || sig != R->last_sig) {
			R->have_sig = true;
			R->last_sig = sig;
			return ask(R, ev->seq + 1, ev->ts, true);
		}
	} else if (R->o->point == PR_POINT_ATTEMPTS && R->next_att < R->nr_att &&
		   R->att[R->next_att].seq_begin == ev->seq + 1) {
		/* before the attempt's own isolation (attempt_begin runs before the event) */
		ret = ask(R, ev->seq + 1, ev->ts, false);
		if (ret)
			return ret;
		R->next_att++;
	}
	return 0;
}

/* ts of the capture's last event, for the record of an answer at the end (0: none). */
static uint64_t last_event_ts(struct tdb *db)
{
	int64_t n = tdb_event_count(db);
	struct tdb_cursor *cur;
	struct bc_event ev;
	uint64_t ts = 0;

	if (n > 0 && !tdb_cursor_open(db, (uint64_t)n - 1, (uint64_t)n, &cur)) {
		if (tdb_cursor_next(cur, &ev) == 1)
			ts = ev.ts;
		tdb_cursor_close(cur);
	}
	return ts;
}

/* Replay with the question asked at the points, then the final point. */
static int answer(struct run *R)
{
	const struct pr_run_opts *o = R->o;
	struct pr_feed f = { .c = R->pc, .before = run_before, .after = run_after, .arg = R };
	int ret;

	if (o->point == PR_POINT_ATTEMPTS)
		R->att = rp_attempts(R->rp, &R->nr_att);
	if (o->point == PR_POINT_EVERY && !o->every_ns) {
		ret = pr_index_create(R->pc, &o->o, &R->ix);
		if (ret)
			return ret;
	}
	ret = pr_feed_run(R->rp, &f);
	if (ret || o->point == PR_POINT_ATTEMPTS)
		return ret;
	/* the final point: --at's, the end, and the end of --every */
	if (o->point == PR_POINT_AT)
		return ask(R, o->at_seq, o->at_ts, false);
	return ask(R, rp_next_seq(R->rp), last_event_ts(rp_tdb(R->rp)),
		   o->point == PR_POINT_EVERY);
}

/* Store the run whole or not at all; a failure is kept in the result, not returned. */
static void store(const struct pr_run_opts *o, struct pr_run_result *out)
{
	int ret;

	if (!o->store)
		return;
	if (o->point == PR_POINT_VERIFY)
		ret = pr_store_verify(o->store, &o->o, o->cmdline, &out->verify);
	else
		ret = pr_store_answers(o->store, &o->o, pr_point_name(o->point), o->cmdline,
				       out->ans, out->nr_ans);
	if (ret) {
		out->store_err = ret;
		snprintf(out->store_msg, sizeof(out->store_msg), "%s", bc_errmsg());
	}
}

int pr_run(struct replay *rp, const struct pr_run_opts *o, struct pr_run_result *out)
{
	struct run R = { .o = o, .rp = rp, .out = out };
	int ret;

	memset(out, 0, sizeof(*out));
	if (o->point == PR_POINT_VERIFY) {
		ret = pr_verify_run(rp, o->o.policy, &out->verify);
	} else {
		ret = pr_create(rp, &R.pc);
		if (!ret)
			ret = answer(&R);
		if (!ret && R.ix) {
			out->indexed = true;
			pr_index_get_stats(R.ix, &out->index_stats);
		}
		pr_index_destroy(R.ix);
		pr_destroy(R.pc);
	}
	if (ret) {
		pr_run_release(out);
		return ret;
	}
	store(o, out);
	return 0;
}

void pr_run_release(struct pr_run_result *r)
{
	pr_answers_free(r->ans, r->nr_ans);
	pr_verify_release(&r->verify);
	memset(r, 0, sizeof(*r));
}
