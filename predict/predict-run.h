/* SPDX-License-Identifier: GPL-2.0 */
/*
 * predict-run: the predict driver. It replays a capture once and asks one question
 * (struct pr_opts) at the points asked for: the end, the state before a given event,
 * every D of trace time, at every event (through the cheap index, keeping an answer
 * whenever the outcome or the ranges change), or just before every real attempt; or
 * it verifies every real attempt (pr_verify_run()). Then it stores the run.
 *
 * It prints nothing: the caller shows the answers and decides the exit status.
 */
#ifndef BC_PREDICT_RUN_H
#define BC_PREDICT_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "predict/predict.h"

struct replay;
struct tdb;
struct tr_event;

/* Where to ask. */
enum pr_point {
	PR_POINT_END,			/* the end of the capture */
	PR_POINT_AT,			/* before event at_seq (the replay stops there) */
	PR_POINT_EVERY,			/* every every_ns of trace time and at the end */
	PR_POINT_ATTEMPTS,		/* just before every real attempt */
	PR_POINT_VERIFY,		/* every real attempt against its prediction */
};
/* The name stored in prediction_runs.mode: "end", "at", "every", "attempts", "verify". */
const char *pr_point_name(enum pr_point p);

struct pr_run_opts {
	struct pr_opts o;		/* the question (PR_POINT_VERIFY: the policy) */
	enum pr_point point;
	uint64_t at_seq, at_ts;		/* PR_POINT_AT: rp_opts.until_seq must be at_seq */
	uint64_t every_ns;		/* PR_POINT_EVERY; 0: at every event, by the index */
	struct tdb *store;		/* store the run there (open with TDB_WRITE), or NULL */
	const char *cmdline;		/* stored with the run (borrowed) */
};

struct pr_run_result {
	struct pr_answer *ans;		/* the answers kept, in the order asked */
	unsigned int nr_ans;
	struct pr_verify verify;	/* PR_POINT_VERIFY */
	bool indexed;			/* asked at every event: index_stats is filled */
	struct pr_index_stats index_stats;
	int store_err;			/* 0, or the negative bc_err that kept the run out */
	char store_msg[256];		/* of the store: what bc_errmsg() said */
};

/**
 * pr_run() - replay @rp (fresh: nothing run yet) and answer @o, then store the run in
 * @o->store. A run that could not be stored is still answered (@out->store_err).
 * Return: 0 and @out filled (free with pr_run_release()), or a negative bc_err; then
 * @out holds nothing.
 */
int pr_run(struct replay *rp, const struct pr_run_opts *o, struct pr_run_result *out);
void pr_run_release(struct pr_run_result *r);

/*
 * A predict driver on a replay: pr_feed_run() runs @rp (rp_run()) with hooks that keep
 * @c (pr_create() on @rp) current (pr_after_event(), pr_attempt_end(), the LRU
 * batches at every snapshot, the index touched where the model changed wholesale)
 * and calls @before before each
 * event (questions on the state before it) and @after after it; either may be NULL.
 * Return: 0, or the first non-zero return of a hook (a negative bc_err).
 */
struct pr_feed {
	struct pr_ctx *c;
	int (*before)(void *arg, const struct tr_event *ev);
	int (*after)(void *arg, const struct tr_event *ev);
	void *arg;
};
int pr_feed_run(struct replay *rp, struct pr_feed *f);

#endif
