// SPDX-License-Identifier: GPL-2.0
/*
 * predict-store: answers and verify results into the capture (tables
 * prediction_runs, predictions, prediction_candidates, verify_results: part of the
 * capture schema, db/schema.sql; documented in db/README.md). Turns them into rows of
 * db/tdb-results.h; one predict run is one stored run (one transaction).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-results.h"
#include "predict/predict-local.h"

static int run_begin(struct tdb *db, const struct pr_opts *o, const char *mode,
		     const char *cmdline, struct tdb_results **w, int64_t *run)
{
	struct tdb_prediction_run r = {
		.mode = mode,
		.policy = o->offline ? "offline" : pr_policy_name(o->policy),
		.nr_pages = o->nr_pages,
		.count = o->count ? o->count : 1,
		.range_start = o->has_range ? o->range_start : UINT64_MAX,
		.range_end = o->has_range ? o->range_end : UINT64_MAX,
		.align_order = o->align_order,
		.command = cmdline,
	};
	int ret = tdb_results_begin(db, w);

	if (!ret)
		ret = tdb_results_prediction_run(*w, &r, run);
	return ret;
}

static int run_end(struct tdb_results *w, int ret)
{
	if (!ret)
		ret = tdb_results_commit(w);
	if (ret)
		tdb_results_abort(w);
	return ret;
}

static void assumption_list(unsigned int bits, char *buf, size_t size)
{
	unsigned int b;
	size_t len = 0;

	buf[0] = 0;
	for (b = 0; b < PR_NR_ASSUME; b++)
		if (bits & (1u << b))
			len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
						len ? "," : "", pr_assumption_name(b));
}

static const char *blocker_kind(const struct pr_blocker *b)
{
	switch (b->state) {
	case MODEL_PFN_ALLOC: return model_kind_name(b->kind);
	case MODEL_PFN_HOLE: return "hole";
	case MODEL_PFN_UNINIT: return "uninit";
	case MODEL_PFN_PCP: return "pcp";
	default: return "free";
	}
}

static void answer_row(const struct pr_answer *a, char *assume, size_t size,
		       struct tdb_prediction *p)
{
	const struct pr_blocker *b = &a->blocker;

	*p = (struct tdb_prediction){
		.seq = a->at_seq, .ts = a->at_ts, .idx = a->index, .success = a->success,
		.start_pfn = a->start_pfn, .end_pfn = a->end_pfn,
		.migrate_pages = a->migrate_pages, .migrate_thp = a->migrate_thp,
		.migrate_file = a->migrate_file, .nr_candidates = a->nr_cand,
		.has_blocker = a->has_blocker,
	};
	if (a->has_blocker) {
		p->blocker_pfn = b->pfn;
		p->blocker_kind = blocker_kind(b);
		p->blocker_reason = b->reason;
		p->blocker_has_event = b->ev.found;
		p->blocker_seq = b->ev.seq;
		p->blocker_ts = b->ev.ts;
		p->blocker_cpu = b->ev.cpu;
		p->blocker_pid = b->ev.pid;
		p->blocker_comm = b->ev.comm;
		p->blocker_order = b->ev.order;
		p->blocker_gfp = b->ev.gfp;
		p->blocker_mt = b->ev.mt;
	}
	assumption_list(a->assumptions, assume, size);
	p->assumptions = assume;
}

static int store_answer(struct tdb_results *w, int64_t run, const struct pr_answer *a)
{
	struct tdb_prediction p;
	char assume[256];
	int64_t id;
	unsigned int i;
	int ret;

	answer_row(a, assume, sizeof(assume), &p);
	ret = tdb_results_prediction(w, run, &p, &id);
	for (i = 0; !ret && i < a->nr_cand; i++) {
		const struct pr_candidate *cd = &a->cand[i];
		struct tdb_prediction_candidate c = {
			.idx = i, .start_pfn = cd->start_pfn, .end_pfn = cd->end_pfn,
			.verdict = pr_verdict_name(cd->verdict), .pfn = cd->pfn,
			.migrate_pages = cd->migrate_pages,
		};

		ret = tdb_results_candidate(w, run, id, &c);
	}
	return ret;
}

int pr_store_answers(struct tdb *db, const struct pr_opts *o, const char *mode,
		     const char *cmdline, const struct pr_answer *ans, unsigned int nr)
{
	struct tdb_results *w = NULL;
	int64_t run;
	unsigned int i;
	int ret;

	ret = run_begin(db, o, mode, cmdline, &w, &run);
	for (i = 0; !ret && i < nr; i++)
		ret = store_answer(w, run, &ans[i]);
	return run_end(w, ret);
}

static void ranges_text(const uint64_t *r, unsigned int n, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = 0;
	for (i = 0; r && i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%#" PRIx64, i ? "," : "", r[i]);
}

static int store_verify_item(struct tdb_results *w, int64_t run, unsigned int idx,
			     const struct pr_verify_item *it)
{
	bool hugetlb = it->kind == PR_VK_HUGETLB_1G;
	char kr[1024], pr[1024];
	struct tdb_verify_row v = {
		.idx = idx, .kind = pr_attempt_class_name(it->kind), .probe = it->probe_id,
		.seq = it->seq, .ts = it->ts, .has_range = !hugetlb,
		.start_pfn = it->start_pfn, .end_pfn = it->end_pfn,
		.kernel_success = it->k_success, .kernel_pfn = it->k_pfn,
		.kernel_ranges = hugetlb ? kr : NULL,
		.predicted_success = it->p_success, .predicted_pfn = it->p_pfn,
		.predicted_ranges = hugetlb ? pr : NULL,
		.agree = it->agree, .depends_on_pins = it->depends_on_pins, .why = it->why,
	};

	ranges_text(it->k_ranges, it->k_nr, kr, sizeof(kr));
	ranges_text(it->p_ranges, it->p_nr, pr, sizeof(pr));
	return tdb_results_verify(w, run, &v);
}

int pr_store_verify(struct tdb *db, const struct pr_opts *o, const char *cmdline,
		    const struct pr_verify *v)
{
	struct tdb_results *w = NULL;
	int64_t run;
	unsigned int i;
	int ret;

	ret = run_begin(db, o, "verify", cmdline, &w, &run);
	for (i = 0; !ret && i < v->nr; i++)
		ret = store_verify_item(w, run, i, &v->items[i]);
	return run_end(w, ret);
}
