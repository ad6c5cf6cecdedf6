// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk predict: where would a contiguous allocation succeed at a point of the
 * capture, at what cost, and what stops it (replay/predict.h); --verify compares the
 * predictions with every real attempt in the capture.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/err.h"
#include "common/parse.h"
#include "common/json.h"
#include "db/tdb.h"
#include "model/model.h"
#include "replay/predict.h"
#include "replay/replay.h"
#include "trace/tr-time.h"

const char cmd_predict_usage[] =
	"usage: bigchunk predict FILE.db --size SIZE [--count K] [--policy mainline|v4]\n"
	"                        [--range START-END] [--align ORDER]\n"
	"                        [--at T | --every D | --attempts]\n"
	"                        [--verify] [--json] [--no-store] [-f]\n"
	"\n"
	"Replay the capture to a point and ask the model: would an allocation of SIZE\n"
	"contiguous bytes succeed there, which range would it get, how many in-use pages\n"
	"would have to move (and how many of those are THP or page cache that could be\n"
	"reclaimed instead), and if not, which page stops it, of what kind, and which\n"
	"allocation event (time, CPU, pid, comm, order, gfp, migratetype, kernel stack\n"
	"with record --stacks) put it there. Every candidate range tried is listed with\n"
	"its verdict and the first pfn that decided it. Attempts are hypothetical: the\n"
	"replayed state is never changed.\n"
	"\n"
	"Policies:\n"
	"  mainline   alloc_contig_pages() of the traced kernel as hugetlb calls it for\n"
	"             1 GiB pages: zones Normal, DMA32, DMA (never Movable), candidates\n"
	"             aligned to SIZE stepping by SIZE, pfn_range_valid_contig(), then\n"
	"             alloc_contig_range(): isolation, pcp drain, migration, test (default)\n"
	"  v4         the 2010 \"big chunk memory allocator v4\": alignment at least 2048\n"
	"             pages, size rounded up to 2048 pages, a pre-screen (free or LRU pages\n"
	"             only) that skips past the first offending page, then isolation,\n"
	"             migration and test\n"
	"\n"
	"Options:\n"
	"  --size SIZE        bytes with a unit (1G, 512M, 2M), required except with --verify\n"
	"  --count K          K allocations in a row, each applied to the hypothetical state\n"
	"                     before the next, stopping at the first failure (as writing K\n"
	"                     to nr_hugepages does); one answer per allocation\n"
	"  --policy P         mainline (default) or v4\n"
	"  --range START-END  only candidates inside the pfn range [START, END) (hex 0x...\n"
	"                     or decimal): a memory block, a driver's fixed window\n"
	"  --align ORDER      candidates aligned to 2^ORDER pages and stepping by that\n"
	"                     (mainline default: the size; v4: at least 11)\n"
	"  --at T             the state before time T: ns of the trace clock (123456789),\n"
	"                     a time from the capture's first event with a unit (12.5s,\n"
	"                     500ms), or marker:TEXT (the first trace_marker beginning\n"
	"                     with TEXT); default: the end of the capture. A time outside\n"
	"                     the capture's events is an error\n"
	"  --every D          every D of trace time: a duration with a unit (ns, us, ms, s,\n"
	"                     m, h: 10s, 500ms); a bare number is seconds. --every 0 asks\n"
	"                     at every event through a cheap per-pageblock index and stores\n"
	"                     an answer whenever the outcome or the ranges change\n"
	"  --attempts         just before every real contiguous attempt in the capture\n"
	"  --verify           predict every real attempt of the capture (record --probe,\n"
	"                     --probe-offline, and test_pages_isolated attempts) from the\n"
	"                     state just before it and compare with what the kernel did\n"
	"  --json             machine-readable output: {\"answers\": [...]} or, with\n"
	"                     --verify, {\"attempts\": N, \"agree\": N, \"by_kind\": {...},\n"
	"                     \"disagreements\": [...]}\n"
	"  --no-store         do not store the answers in the capture (tables\n"
	"                     prediction_runs, predictions, prediction_candidates,\n"
	"                     verify_results; see db/README.md)\n"
	"  -f, --force        read a capture that fails SQLite's quick_check\n"
	"  -h, --help         this text\n"
	"\n"
	"What an answer assumes is stated with it: pinned pages are invisible to\n"
	"tracepoints and snapshots, so a success that migrates in-use pages says how many;\n"
	"pages that an earlier real attempt in the capture could not migrate are taken as\n"
	"still pinned.\n"
	"\n"
	"Exit status: 0 the (last) allocation asked for succeeds, or with --verify every\n"
	"attempt agrees; 1 it fails, or some attempt disagrees, or the capture is\n"
	"incomplete or damaged; 2 usage error, an unusable capture, or answers that could\n"
	"not be stored (a run is stored whole or not at all; use --no-store on a capture\n"
	"that cannot be written).\n"
	CLI_CAPTURE_EXIT_HELP
	"\n"
	"Examples:\n"
	"  bigchunk predict cap.db --size 1G --count 4\n"
	"  bigchunk predict cap.db --size 1G --at marker:phase2 --json\n"
	"  bigchunk predict cap.db --size 128M --range 0x140000-0x148000\n"
	"  bigchunk predict cap.db --size 1G --policy v4 --every 10s\n"
	"  bigchunk predict cap.db --verify\n";

enum {
	OPT_SIZE = 256, OPT_COUNT, OPT_POLICY, OPT_RANGE, OPT_ALIGN, OPT_AT, OPT_EVERY,
	OPT_ATTEMPTS, OPT_VERIFY, OPT_JSON, OPT_NO_STORE,
};

static const struct option predict_options[] = {
	{ "size",	required_argument,	NULL, OPT_SIZE },
	{ "count",	required_argument,	NULL, OPT_COUNT },
	{ "policy",	required_argument,	NULL, OPT_POLICY },
	{ "range",	required_argument,	NULL, OPT_RANGE },
	{ "align",	required_argument,	NULL, OPT_ALIGN },
	{ "at",		required_argument,	NULL, OPT_AT },
	{ "every",	required_argument,	NULL, OPT_EVERY },
	{ "attempts",	no_argument,		NULL, OPT_ATTEMPTS },
	{ "verify",	no_argument,		NULL, OPT_VERIFY },
	{ "json",	no_argument,		NULL, OPT_JSON },
	{ "no-store",	no_argument,		NULL, OPT_NO_STORE },
	{ "force",	no_argument,		NULL, 'f' },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Where to ask. */
enum point_mode { PT_END, PT_AT, PT_EVERY, PT_ATTEMPTS };

struct run {
	const char *path;
	struct tdb *db;
	struct replay *rp;
	struct pr_ctx *pc;
	struct pr_opts o;
	enum point_mode mode;
	uint64_t at_seq, at_ts;
	uint64_t every_ns;
	bool json, store;
	bool store_failed;		/* --store asked for, nothing stored */
	bool force, partial;		/* -f; an incomplete or damaged capture */
	int64_t store_run;
	/* collected answers */
	struct pr_answer *ans;
	unsigned int nr_ans, cap_ans;
	/* --every */
	uint64_t next_ts;
	bool started;
	/* --every 0 */
	struct pr_index *ix;
	uint64_t last_sig;
	bool have_sig;
	/* --attempts */
	const struct tr_attempt *att;
	int nr_att, next_att;
	int err;
};

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

static int parse_range(const char *s, uint64_t *a, uint64_t *b)
{
	const char *dash = strchr(s, '-');
	char buf[64];
	size_t n;

	if (!dash || (n = (size_t)(dash - s)) >= sizeof(buf) || !n)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return parse_u64(buf, a) || parse_u64(dash + 1, b) || *b <= *a ? -1 : 0;
}

static const char *size_str(uint64_t pages, char *buf, size_t len)
{
	uint64_t bytes = pages * 4096;

	if (bytes >= (1ull << 30) && !(bytes & ((1ull << 30) - 1)))
		snprintf(buf, len, "%" PRIu64 " GiB", bytes >> 30);
	else if (bytes >= (1ull << 20) && !(bytes & ((1ull << 20) - 1)))
		snprintf(buf, len, "%" PRIu64 " MiB", bytes >> 20);
	else
		snprintf(buf, len, "%" PRIu64 " KiB", bytes >> 10);
	return buf;
}

static const char *state_name(enum model_pfn_state s)
{
	switch (s) {
	case MODEL_PFN_HOLE: return "hole";
	case MODEL_PFN_UNINIT: return "uninit";
	case MODEL_PFN_BUDDY: return "free";
	case MODEL_PFN_PCP: return "pcp";
	default: return "in-use";
	}
}

/* ---- collecting ---- */

static bool same_outcome(const struct pr_answer *a, const struct pr_answer *b)
{
	return a->index == b->index && a->success == b->success && a->start_pfn == b->start_pfn &&
	       (a->success || (a->has_blocker == b->has_blocker &&
			       (!a->has_blocker || a->blocker.pfn == b->blocker.pfn)));
}

static int keep_answers(struct run *R, struct pr_answer *a, unsigned int n, bool dedupe)
{
	unsigned int i, last_q = 0;

	if (dedupe && R->nr_ans) {
		/* the previous question's answers: the run of equal at_seq at the end */
		uint64_t q = R->ans[R->nr_ans - 1].at_seq;
		unsigned int k = R->nr_ans;

		while (k > 0 && R->ans[k - 1].at_seq == q)
			k--;
		last_q = R->nr_ans - k;
		if (last_q == n) {
			for (i = 0; i < n && same_outcome(&R->ans[k + i], &a[i]); i++)
				;
			if (i == n) {
				pr_answers_free(a, n);
				return 0;
			}
		}
	}
	if (R->nr_ans + n > R->cap_ans) {
		unsigned int cap = (R->nr_ans + n) * 2;
		struct pr_answer *g = realloc(R->ans, cap * sizeof(*g));

		if (!g) {
			pr_answers_free(a, n);
			return bc_error(BC_E_NOMEM, "out of memory");
		}
		R->ans = g;
		R->cap_ans = cap;
	}
	memcpy(R->ans + R->nr_ans, a, n * sizeof(*a));
	R->nr_ans += n;
	free(a);	/* the elements moved; their pointers now belong to R->ans */
	return 0;
}

static int ask(struct run *R, uint64_t seq, uint64_t ts, bool dedupe)
{
	struct pr_answer *a;
	unsigned int n;
	int ret;

	ret = pr_ask(R->pc, &R->o, seq, ts, &a, &n);
	if (ret)
		return ret;
	return keep_answers(R, a, n, dedupe);
}

static int h_before(void *arg, struct replay *rp, const struct tr_event *ev)
{
	struct run *R = arg;

	if (R->mode == PT_EVERY && R->every_ns) {
		if (!R->started) {
			R->started = true;
			R->next_ts = ev->ts;
		}
		while (ev->ts >= R->next_ts) {
			int ret = ask(R, ev->seq, ev->ts, false);

			if (ret)
				return ret;
			R->next_ts += R->every_ns;
		}
	} else if (R->mode == PT_ATTEMPTS) {
		while (R->next_att < R->nr_att && R->att[R->next_att].seq_begin <= ev->seq) {
			int ret = ask(R, ev->seq, ev->ts, false);

			if (ret)
				return ret;
			R->next_att++;
		}
	}
	return 0;
}

static int h_after(void *arg, struct replay *rp, const struct tr_event *ev)
{
	struct run *R = arg;

	pr_after_event(R->pc, ev);
	if (R->ix) {
		uint64_t sig = pr_index_sig(R->ix);

		if (!R->have_sig || sig != R->last_sig) {
			R->have_sig = true;
			R->last_sig = sig;
			return ask(R, ev->seq + 1, ev->ts, true);
		}
	} else if (R->mode == PT_ATTEMPTS && R->next_att < R->nr_att &&
		   R->att[R->next_att].seq_begin == ev->seq + 1) {
		/* before the attempt's own isolation (attempt_begin runs before the event) */
		int ret = ask(R, ev->seq + 1, ev->ts, false);

		if (ret)
			return ret;
		R->next_att++;
	}
	return 0;
}

static int h_attempt_end(void *arg, struct replay *rp, const struct tr_attempt *a)
{
	pr_attempt_end(((struct run *)arg)->pc, a);
	return 0;
}

static int h_snapshot(void *arg, struct replay *rp, const struct rp_score *sc)
{
	struct run *R = arg;

	pr_touch_all(R->pc);
	return pr_refresh_lru_batches(R->pc, sc->snap);
}

static int h_attempt_begin(void *arg, struct replay *rp, const struct tr_attempt *a)
{
	pr_touch_all(((struct run *)arg)->pc);
	return 0;
}

/* ---- printing ---- */

static void json_pfn(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	if (v == UINT64_MAX)
		json_null(j);
	else
		json_uint(j, v);
}

static void json_answer(struct json *j, const struct pr_answer *a)
{
	const struct pr_blocker *b = &a->blocker;
	unsigned int i;

	json_obj_begin(j);
	json_kuint(j, "at", a->at_ts);
	json_kuint(j, "seq", a->at_seq);
	json_kuint(j, "index", a->index);
	json_kstr(j, "policy", pr_policy_name(a->policy));
	json_kuint(j, "size_pages", a->nr_pages);
	json_kbool(j, "success", a->success);
	json_pfn(j, "start_pfn", a->start_pfn);
	json_pfn(j, "end_pfn", a->end_pfn);
	json_kuint(j, "migrate_pages", a->migrate_pages);
	json_kuint(j, "migrate_thp", a->migrate_thp);
	json_kuint(j, "migrate_file", a->migrate_file);
	json_key(j, "candidates");
	json_arr_begin(j);
	for (i = 0; i < a->nr_cand; i++) {
		json_obj_begin(j);
		json_kuint(j, "start_pfn", a->cand[i].start_pfn);
		json_kuint(j, "end_pfn", a->cand[i].end_pfn);
		json_kstr(j, "verdict", pr_verdict_name(a->cand[i].verdict));
		json_pfn(j, "pfn", a->cand[i].pfn);
		if (a->cand[i].migrate_pages)
			json_kuint(j, "migrate_pages", a->cand[i].migrate_pages);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "blocker");
	if (!a->has_blocker) {
		json_null(j);
	} else {
		json_obj_begin(j);
		json_kuint(j, "pfn", b->pfn);
		json_kstr(j, "state", state_name(b->state));
		json_kstr(j, "kind", b->state == MODEL_PFN_ALLOC ? model_kind_name(b->kind) :
			  state_name(b->state));
		json_kstr(j, "reason", b->reason);
		json_kuint(j, "head", b->head);
		json_kuint(j, "order", b->order);
		json_kint(j, "migratetype", b->mt);
		json_kint(j, "pageblock_migratetype", b->pageblock_mt);
		json_kbool(j, "uncertain", b->uncertain);
		json_key(j, "event");
		if (!b->ev.found) {
			json_null(j);
		} else {
			json_obj_begin(j);
			json_kuint(j, "seq", b->ev.seq);
			json_kuint(j, "ts", b->ev.ts);
			json_kint(j, "cpu", b->ev.cpu);
			json_kint(j, "pid", b->ev.pid);
			json_kstr(j, "comm", b->ev.comm[0] ? b->ev.comm : NULL);
			json_kuint(j, "order", b->ev.order);
			json_kuint(j, "gfp", b->ev.gfp);
			json_kint(j, "migratetype", b->ev.mt);
			json_key(j, "stack");
			if (!b->ev.stack) {
				json_null(j);
			} else {
				char *s = strdup(b->ev.stack), *line, *save = NULL;

				json_arr_begin(j);
				for (line = s ? strtok_r(s, "\n", &save) : NULL; line;
				     line = strtok_r(NULL, "\n", &save))
					json_str(j, line);
				json_arr_end(j);
				free(s);
			}
			json_obj_end(j);
		}
		json_obj_end(j);
	}
	json_key(j, "assumptions");
	json_arr_begin(j);
	for (i = 0; i < PR_NR_ASSUME; i++)
		if (a->assumptions & (1u << i))
			json_str(j, pr_assumption_text(i));
	json_arr_end(j);
	json_obj_end(j);
}

#define TABLE_CANDIDATES 40	/* text output lists this many, then a summary */

static void print_answer(const struct pr_answer *a, bool first_of_point)
{
	const struct pr_blocker *b = &a->blocker;
	unsigned int i, shown = 0, by[PR_NR_VERDICTS] = { 0 };
	char sz[32];

	if (first_of_point)
		printf("\nat ts %" PRIu64 " (before event %" PRIu64 "), %s, %s:\n", a->at_ts,
		       a->at_seq, pr_policy_name(a->policy), size_str(a->nr_pages, sz, sizeof(sz)));
	if (a->success)
		printf("  #%u success: [%#" PRIx64 ", %#" PRIx64 "), migrates %" PRIu64
		       " in-use pages (%" PRIu64 " THP, %" PRIu64 " page cache)\n", a->index + 1,
		       a->start_pfn, a->end_pfn, a->migrate_pages, a->migrate_thp, a->migrate_file);
	else
		printf("  #%u fails: no candidate range succeeds\n", a->index + 1);
	printf("    %-12s %-12s %-16s %-12s %s\n", "start_pfn", "end_pfn", "verdict", "pfn",
	       "moved");
	for (i = 0; i < a->nr_cand; i++) {
		const struct pr_candidate *cd = &a->cand[i];

		by[cd->verdict]++;
		if (shown >= TABLE_CANDIDATES && cd->verdict != PR_V_SUCCESS)
			continue;
		shown++;
		printf("    %#-12" PRIx64 " %#-12" PRIx64 " %-16s ", cd->start_pfn, cd->end_pfn,
		       pr_verdict_name(cd->verdict));
		if (cd->pfn == UINT64_MAX)
			printf("%-12s", "-");
		else
			printf("%#-12" PRIx64, cd->pfn);
		printf(" %" PRIu64 "\n", cd->migrate_pages);
	}
	if (a->nr_cand > shown) {
		printf("    ... %u more:", a->nr_cand - shown);
		for (i = 0; i < PR_NR_VERDICTS; i++)
			if (by[i])
				printf(" %s %u", pr_verdict_name(i), by[i]);
		printf(" (all of them with --json)\n");
	}
	if (a->has_blocker) {
		printf("    blocked by pfn %#" PRIx64 ": %s (%s", b->pfn, b->reason,
		       state_name(b->state));
		if (b->state == MODEL_PFN_ALLOC)
			printf(", %s, head %#" PRIx64 " order %u, migratetype %d", model_kind_name(b->kind),
			       b->head, b->order, b->mt);
		printf(", pageblock type %d%s)\n", b->pageblock_mt, b->uncertain ? ", uncertain" : "");
		if (b->ev.found) {
			printf("    allocated at ts %" PRIu64 " (event %" PRIu64 ") on cpu %d by pid %d%s%s%s"
			       ", order %u, gfp %#" PRIx64 ", migratetype %d\n", b->ev.ts, b->ev.seq,
			       b->ev.cpu, b->ev.pid, b->ev.comm[0] ? " (" : "", b->ev.comm,
			       b->ev.comm[0] ? ")" : "", b->ev.order, b->ev.gfp, b->ev.mt);
			if (b->ev.stack) {
				const char *p = b->ev.stack;

				while (*p) {
					const char *nl = strchr(p, '\n');
					int len = nl ? (int)(nl - p) : (int)strlen(p);

					printf("        %.*s\n", len, p);
					p += len + (nl ? 1 : 0);
				}
			}
		} else if (b->state == MODEL_PFN_ALLOC) {
			printf("    allocated before the capture (known from the snapshot)\n");
		}
	}
	for (i = 0; i < PR_NR_ASSUME; i++)
		if (a->assumptions & (1u << i))
			printf("    assumes: %s\n", pr_assumption_text(i));
}

static void output_answers(struct run *R)
{
	unsigned int i;

	if (R->json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj_begin(&j);
		json_key(&j, "answers");
		json_arr_begin(&j);
		for (i = 0; i < R->nr_ans; i++)
			json_answer(&j, &R->ans[i]);
		json_arr_end(&j);
		json_obj_end(&j);
		json_end(&j);
		return;
	}
	printf("%s: %u answer%s", R->path, R->nr_ans, R->nr_ans == 1 ? "" : "s");
	if (R->mode == PT_EVERY && !R->every_ns)
		printf(" (asked at every event; one whenever the outcome changed)");
	putchar('\n');
	for (i = 0; i < R->nr_ans; i++)
		print_answer(&R->ans[i], i == 0 || R->ans[i].at_seq != R->ans[i - 1].at_seq ||
				 R->ans[i].index == 0);
}

/* ---- verify ---- */

static void json_item(struct json *j, const struct pr_verify_item *it)
{
	unsigned int i;

	json_obj_begin(j);
	json_kstr(j, "kind", pr_attempt_class_name(it->kind));
	if (it->probe_id >= 0)
		json_kint(j, "probe", it->probe_id);
	json_kuint(j, "seq", it->seq);
	json_kuint(j, "ts", it->ts);
	if (it->kind != PR_VK_HUGETLB_1G) {
		json_kuint(j, "start_pfn", it->start_pfn);
		json_kuint(j, "end_pfn", it->end_pfn);
	} else {
		json_kuint(j, "requested", it->start_pfn);
	}
	json_key(j, "kernel");
	json_obj_begin(j);
	json_kbool(j, "success", it->k_success);
	if (it->kind == PR_VK_HUGETLB_1G) {
		json_key(j, "ranges");
		json_arr_begin(j);
		for (i = 0; i < it->k_nr; i++)
			json_uint(j, it->k_ranges[i]);
		json_arr_end(j);
	}
	json_pfn(j, "pfn", it->k_pfn);
	json_kstr(j, "culprit", it->k_culprit[0] ? it->k_culprit : NULL);
	json_obj_end(j);
	json_key(j, "predicted");
	json_obj_begin(j);
	json_kbool(j, "success", it->p_success);
	if (it->kind == PR_VK_HUGETLB_1G) {
		json_key(j, "ranges");
		json_arr_begin(j);
		for (i = 0; i < it->p_nr; i++)
			json_uint(j, it->p_ranges[i]);
		json_arr_end(j);
	}
	json_pfn(j, "pfn", it->p_pfn);
	json_kstr(j, "reason", it->p_reason[0] ? it->p_reason : NULL);
	json_key(j, "assumptions");
	json_arr_begin(j);
	for (i = 0; i < PR_NR_ASSUME; i++)
		if (it->p_assumptions & (1u << i))
			json_str(j, pr_assumption_name(i));
	json_arr_end(j);
	json_obj_end(j);
	json_kbool(j, "agree", it->agree);
	json_kbool(j, "depends_on_pins", it->depends_on_pins);
	json_kstr(j, "invisible", it->invisible);
	if (it->why[0])
		json_kstr(j, "why", it->why);
	json_obj_end(j);
}

static int run_verify(struct run *R, const char *cmdline)
{
	struct pr_verify v;
	unsigned int i, k;
	int ret, rc;

	ret = pr_verify_run(R->rp, R->o.policy, &v);
	if (ret)
		return cli_fail("predict");
	if (R->store && pr_store_verify(R->db, &R->o, cmdline, &v)) {
		fprintf(stderr, "bigchunk predict: results not stored: %s\n", bc_errmsg());
		R->store_failed = true;
	}
	if (R->json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj_begin(&j);
		json_kuint(&j, "attempts", v.nr);
		json_kuint(&j, "agree", v.agree);
		json_kdouble(&j, "agreement", v.nr ? (double)v.agree / v.nr : 1.0);
		json_key(&j, "by_kind");
		json_obj_begin(&j);
		for (k = 0; k < PR_NR_VK; k++) {
			json_key(&j, pr_attempt_class_name(k));
			json_obj_begin(&j);
			json_kuint(&j, "attempts", v.by_kind[k][0]);
			json_kuint(&j, "agree", v.by_kind[k][1]);
			json_obj_end(&j);
		}
		json_obj_end(&j);
		json_key(&j, "pin_dependent");
		json_obj_begin(&j);
		json_kuint(&j, "attempts", v.pin_dependent);
		json_kuint(&j, "agree", v.pin_dependent_agree);
		json_obj_end(&j);
		json_key(&j, "disagreements");
		json_arr_begin(&j);
		for (i = 0; i < v.nr; i++)
			if (!v.items[i].agree)
				json_item(&j, &v.items[i]);
		json_arr_end(&j);
		json_key(&j, "items");
		json_arr_begin(&j);
		for (i = 0; i < v.nr; i++)
			json_item(&j, &v.items[i]);
		json_arr_end(&j);
		json_obj_end(&j);
		json_end(&j);
	} else {
		printf("%s: %u real attempts, %u agree with the prediction (%.1f%%)\n", R->path, v.nr,
		       v.agree, v.nr ? 100.0 * v.agree / v.nr : 100.0);
		for (k = 0; k < PR_NR_VK; k++)
			printf("  %-14s %4u attempts, %4u agree\n", pr_attempt_class_name(k),
			       v.by_kind[k][0], v.by_kind[k][1]);
		printf("  %u disagreement%s may depend on pins or refcounts (invisible to the "
		       "trace) or on allocations racing with the attempt\n",
		       v.pin_dependent - v.pin_dependent_agree,
		       v.pin_dependent - v.pin_dependent_agree == 1 ? "" : "s");
		for (i = 0; i < v.nr; i++) {
			const struct pr_verify_item *it = &v.items[i];

			if (it->agree)
				continue;
			printf("  disagree: %s", pr_attempt_class_name(it->kind));
			if (it->probe_id >= 0)
				printf(" probe %" PRId64, it->probe_id);
			if (it->kind != PR_VK_HUGETLB_1G)
				printf(" [%#" PRIx64 ", %#" PRIx64 ")", it->start_pfn, it->end_pfn);
			if (it->invisible && !strcmp(it->invisible, PR_RACE))
				printf(" at ts %" PRIu64 ": %s\n", it->ts, it->why);
			else
				printf(" at ts %" PRIu64 ": %s%s%s%s\n", it->ts, it->why,
				       it->invisible ? " (may depend on an invisible " : "",
				       it->invisible ? it->invisible : "", it->invisible ? ")" : "");
		}
	}
	rc = R->store_failed ? EXIT_BAD : v.agree == v.nr ? EXIT_OK : EXIT_NO;
	pr_verify_release(&v);
	return rc;
}

static char *join_argv(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = 0;
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

int cmd_predict(int argc, char **argv)
{
	struct run R = { .o = { .policy = PR_POLICY_MAINLINE, .align_order = -1, .count = 1 },
			 .store = true };
	struct rp_opts ro = { .until_seq = UINT64_MAX, .note = cli_note };
	struct rp_hooks h = { .before_event = h_before, .after_event = h_after,
			      .attempt_begin = h_attempt_begin, .attempt_end = h_attempt_end,
			      .at_snapshot = h_snapshot };
	const char *at = NULL;
	uint64_t bytes;
	bool verify = false, have_size = false;
	char *cmdline = NULL;
	int c, ret, rc = EXIT_BAD, points = 0;
	uint64_t v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "fh", predict_options, NULL)) != -1) {
		switch (c) {
		case OPT_SIZE:
			if (bc_parse_size(optarg, &bytes))
				return cli_error("predict", "--size: %s", bc_errmsg());
			if (bytes < 4096 || bytes % 4096)
				return cli_error("predict", "--size: '%s' is not a size in whole pages "
						 "(e.g. 1G, 2M)", optarg);
			R.o.nr_pages = bytes / 4096;
			have_size = true;
			break;
		case OPT_COUNT:
			if (bc_parse_count(optarg, 1, 65536, &v))
				return cli_error("predict", "--count: %s", bc_errmsg());
			R.o.count = (unsigned int)v;
			break;
		case OPT_POLICY:
			if (pr_policy_parse(optarg, &R.o.policy))
				return cli_error("predict", "--policy: '%s' is not mainline or v4", optarg);
			break;
		case OPT_RANGE:
			if (parse_range(optarg, &R.o.range_start, &R.o.range_end))
				return cli_error("predict", "--range: '%s' is not START-END (pfns, "
						 "START < END)", optarg);
			R.o.has_range = true;
			break;
		case OPT_ALIGN:
			if (parse_u64(optarg, &v) || v > 30)
				return cli_error("predict", "--align: '%s' is not an order 0..30", optarg);
			R.o.align_order = (int)v;
			break;
		case OPT_AT:
			at = optarg;
			R.mode = PT_AT;
			points++;
			break;
		case OPT_EVERY:
			if (tr_parse_duration(optarg, &R.every_ns))
				return cli_error("predict", "--every: %s", bc_errmsg());
			R.mode = PT_EVERY;
			points++;
			break;
		case OPT_ATTEMPTS:
			R.mode = PT_ATTEMPTS;
			points++;
			break;
		case OPT_VERIFY:
			verify = true;
			break;
		case OPT_JSON:
			R.json = true;
			break;
		case OPT_NO_STORE:
			R.store = false;
			break;
		case 'f':
			R.force = true;
			break;
		case 'h':
			return cli_usage("predict", 0, EXIT_OK);
		default:
			return cli_usage("predict", 1, EXIT_BAD);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bigchunk predict: one FILE.db is needed\n\n");
		return cli_usage("predict", 1, EXIT_BAD);
	}
	R.path = argv[optind];
	if (points > 1)
		return cli_error("predict", "--at, --every and --attempts are alternatives");
	if (verify && points)
		return cli_error("predict", "--verify predicts every real attempt: no --at, --every "
				 "or --attempts with it");
	if (!have_size && !verify)
		return cli_error("predict", "--size SIZE is required (e.g. --size 1G)");
	if (!have_size)
		R.o.nr_pages = 262144;
	if (!verify && pr_opts_check(&R.o))
		return cli_error("predict", "%s", bc_errmsg());

	ret = R.store ? cli_open_capture("predict", R.path, TDB_WRITE, R.force, &R.db,
					 &R.partial) : -1;
	if (ret) {
		if (R.store && ret != -BC_E_NOENT && ret != -BC_E_FORMAT) {
			fprintf(stderr, "bigchunk predict: %s; answers are not stored\n", bc_errmsg());
			R.store_failed = true;
		}
		R.store = false;
		if (cli_open_capture("predict", R.path, TDB_READONLY, R.force, &R.db, &R.partial))
			return cli_fail("predict");
	}
	cmdline = join_argv(argc, argv);
	if (R.mode == PT_AT) {
		ret = tr_parse_time(R.db, at, &R.at_seq, &R.at_ts);
		if (ret) {
			rc = cli_fail("predict");
			goto out;
		}
		ro.until_seq = R.at_seq;
	}
	ret = rp_create(R.db, &ro, &R.rp);
	if (ret) {
		rc = cli_fail("predict");
		goto out;
	}
	if (verify) {
		rc = cli_partial_exit(R.partial, run_verify(&R, cmdline));
		goto out;
	}
	ret = pr_create(R.rp, &R.pc);
	if (ret) {
		rc = cli_fail("predict");
		goto out;
	}
	if (R.mode == PT_ATTEMPTS)
		R.att = rp_attempts(R.rp, &R.nr_att);
	if (R.mode == PT_EVERY && !R.every_ns) {
		ret = pr_index_create(R.pc, &R.o, &R.ix);
		if (ret) {
			rc = cli_fail("predict");
			goto out;
		}
	}
	h.arg = &R;
	ret = rp_run(R.rp, &h);
	if (ret) {
		rc = cli_fail("predict");
		goto out;
	}
	/* the final point: --at's, the end, and the end of --every */
	if (R.mode != PT_ATTEMPTS) {
		uint64_t seq = R.mode == PT_AT ? R.at_seq : rp_next_seq(R.rp);
		uint64_t ts = R.mode == PT_AT ? R.at_ts : 0;

		if (R.mode != PT_AT) {
			int64_t n = tdb_event_count(R.db);
			struct tdb_cursor *cur;
			struct bc_event ev;

			/* ts of the last event, for the record */
			if (n > 0 && !tdb_cursor_open(R.db, (uint64_t)n - 1, (uint64_t)n, &cur)) {
				if (tdb_cursor_next(cur, &ev) == 1)
					ts = ev.ts;
				tdb_cursor_close(cur);
			}
		}
		ret = ask(&R, seq, ts, R.mode == PT_EVERY);
		if (ret) {
			rc = cli_fail("predict");
			goto out;
		}
	}
	if (R.store) {
		static const char *const mode_names[] = { "end", "at", "every", "attempts" };

		if (pr_store_answers(R.db, &R.o, mode_names[R.mode], cmdline, R.ans, R.nr_ans)) {
			fprintf(stderr, "bigchunk predict: answers not stored: %s\n", bc_errmsg());
			R.store_failed = true;
		}
	}
	output_answers(&R);
	if (R.ix && !R.json) {
		struct pr_index_stats st;

		pr_index_get_stats(R.ix, &st);
		fprintf(stderr, "bigchunk predict: index: %" PRIu64 " questions, %" PRIu64
			" pageblock refreshes, %" PRIu64 " attempts run\n", st.questions,
			st.pageblocks_refreshed, st.attempts_run);
	}
	rc = R.store_failed ? EXIT_BAD : R.nr_ans && R.ans[R.nr_ans - 1].success ? EXIT_OK : EXIT_NO;
	rc = cli_partial_exit(R.partial, rc);
out:
	pr_index_destroy(R.ix);
	pr_answers_free(R.ans, R.nr_ans);
	pr_destroy(R.pc);
	rp_destroy(R.rp);
	if (R.db && tdb_close(R.db) && rc == EXIT_OK)
		rc = cli_fail("predict");
	free(cmdline);
	return rc;
}
