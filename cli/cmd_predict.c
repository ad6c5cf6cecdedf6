// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk predict: where would a contiguous allocation succeed at a point of the
 * capture, at what cost, and what stops it (predict/predict.h); --verify compares the
 * predictions with every real attempt in the capture. The options become a struct
 * pr_run_opts for the driver (predict/predict-run.h); this file shows what it answers
 * and turns it into the exit status.
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
#include "predict/predict.h"
#include "predict/predict-json.h"
#include "predict/predict-run.h"
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
	"  -h, --help         this text\n"
	"\n"
	"What an answer assumes is stated with it: pinned pages are invisible to\n"
	"tracepoints, and snapshots list only io_uring registered buffers (file\n"
	"longterm_pins: those pages are pinned until the next snapshot), so a success that\n"
	"migrates in-use pages says how many; pages that an earlier real attempt in the\n"
	"capture could not migrate are taken as still pinned.\n"
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

/* Long options only: the characters are not in the short option string. */
enum {
	OPT_SIZE = 's', OPT_COUNT = 'c', OPT_POLICY = 'p', OPT_RANGE = 'r', OPT_ALIGN = 'a',
	OPT_AT = 'A', OPT_EVERY = 'E', OPT_ATTEMPTS = 'T', OPT_VERIFY = 'V', OPT_JSON = 'j',
	OPT_NO_STORE = 'N',
};

static const char predict_options[] = "size=s count=c policy=p range=r align=a at=A every=E "
				      "attempts:T verify:V json:j no-store:N force:f help:h";

/* What the command line asked for, beyond the driver's options. */
struct args {
	struct pr_run_opts ro;
	const char *path;
	const char *at;			/* --at, parsed once the capture is open */
	bool have_size, json, store;
	bool force, partial;		/* -f; an incomplete or damaged capture */
	int points;			/* --at, --every, --attempts seen */
};

#define GO_ON	-1	/* parse_*(), open_capture(): no exit status yet */

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

/* ---- answers ---- */

/* ---- printing ---- */

static void json_pfn(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	if (v == UINT64_MAX)
		json_null(j);
	else
		json_uint(j, v);
}

/* The page that decided a failure and the allocation event behind it, or null. */
static void json_blocker(struct json *j, const struct pr_answer *a)
{
	if (a->has_blocker)
		pr_json_blocker(j, &a->blocker);
	else
		json_null(j);
}

static void json_answer(struct json *j, const struct pr_answer *a)
{
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
	json_blocker(j, a);
	json_key(j, "assumptions");
	json_arr_begin(j);
	for (i = 0; i < PR_NR_ASSUME; i++)
		if (a->assumptions & (1u << i))
			json_str(j, pr_assumption_text(i));
	json_arr_end(j);
	json_obj_end(j);
}

#define TABLE_CANDIDATES 40	/* text output lists this many, then a summary */

/* The page that decided a failure, and the allocation event (with its stack) behind it. */
static void print_blocker(const struct pr_blocker *b)
{
	printf("    blocked by pfn %#" PRIx64 ": %s (%s", b->pfn, b->reason,
	       pr_pfn_state_name(b->state));
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
	if (a->has_blocker)
		print_blocker(b);
	for (i = 0; i < PR_NR_ASSUME; i++)
		if (a->assumptions & (1u << i))
			printf("    assumes: %s\n", pr_assumption_text(i));
}

static void output_answers(const struct args *A, const struct pr_run_result *r)
{
	unsigned int i;

	if (A->json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj_begin(&j);
		json_key(&j, "answers");
		json_arr_begin(&j);
		for (i = 0; i < r->nr_ans; i++)
			json_answer(&j, &r->ans[i]);
		json_arr_end(&j);
		json_obj_end(&j);
		json_end(&j);
		return;
	}
	printf("%s: %u answer%s", A->path, r->nr_ans, r->nr_ans == 1 ? "" : "s");
	if (A->ro.point == PR_POINT_EVERY && !A->ro.every_ns)
		printf(" (asked at every event; one whenever the outcome changed)");
	putchar('\n');
	for (i = 0; i < r->nr_ans; i++)
		print_answer(&r->ans[i], i == 0 || r->ans[i].at_seq != r->ans[i - 1].at_seq ||
				 r->ans[i].index == 0);
	if (r->indexed)
		fprintf(stderr, "bigchunk predict: index: %" PRIu64 " questions, %" PRIu64
			" pageblock refreshes, %" PRIu64 " attempts run\n", r->index_stats.questions,
			r->index_stats.pageblocks_refreshed, r->index_stats.attempts_run);
}

/* ---- verify ---- */

/* Opens "@key": {success, ranges (hugetlb probes: the landing pfns), pfn, ...}. */
static void json_outcome(struct json *j, const char *key, const struct pr_verify_item *it,
			 bool success, const uint64_t *ranges, unsigned int nr, uint64_t pfn)
{
	unsigned int i;

	json_key(j, key);
	json_obj_begin(j);
	json_kbool(j, "success", success);
	if (it->kind == PR_VK_HUGETLB_1G) {
		json_key(j, "ranges");
		json_arr_begin(j);
		for (i = 0; i < nr; i++)
			json_uint(j, ranges[i]);
		json_arr_end(j);
	}
	json_pfn(j, "pfn", pfn);
}

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
	json_outcome(j, "kernel", it, it->k_success, it->k_ranges, it->k_nr, it->k_pfn);
	json_kstr(j, "culprit", it->k_culprit[0] ? it->k_culprit : NULL);
	json_obj_end(j);
	json_outcome(j, "predicted", it, it->p_success, it->p_ranges, it->p_nr, it->p_pfn);
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

/* "@key": [the items of @v, or only those that disagree] */
static void json_items(struct json *j, const char *key, const struct pr_verify *v,
		       bool disagreements)
{
	unsigned int i;

	json_key(j, key);
	json_arr_begin(j);
	for (i = 0; i < v->nr; i++)
		if (!disagreements || !v->items[i].agree)
			json_item(j, &v->items[i]);
	json_arr_end(j);
}

static void json_verify(const struct pr_verify *v)
{
	struct json j;
	unsigned int k;

	json_init(&j, stdout, true);
	json_obj_begin(&j);
	json_kuint(&j, "attempts", v->nr);
	json_kuint(&j, "agree", v->agree);
	json_kdouble(&j, "agreement", v->nr ? (double)v->agree / v->nr : 1.0);
	json_key(&j, "by_kind");
	json_obj_begin(&j);
	for (k = 0; k < PR_NR_VK; k++) {
		json_key(&j, pr_attempt_class_name(k));
		json_obj_begin(&j);
		json_kuint(&j, "attempts", v->by_kind[k][0]);
		json_kuint(&j, "agree", v->by_kind[k][1]);
		json_obj_end(&j);
	}
	json_obj_end(&j);
	json_key(&j, "pin_dependent");
	json_obj_begin(&j);
	json_kuint(&j, "attempts", v->pin_dependent);
	json_kuint(&j, "agree", v->pin_dependent_agree);
	json_obj_end(&j);
	json_items(&j, "disagreements", v, true);
	json_items(&j, "items", v, false);
	json_obj_end(&j);
	json_end(&j);
}

static void print_verify(const char *path, const struct pr_verify *v)
{
	unsigned int i, k;

	printf("%s: %u real attempts, %u agree with the prediction (%.1f%%)\n", path, v->nr,
	       v->agree, v->nr ? 100.0 * v->agree / v->nr : 100.0);
	for (k = 0; k < PR_NR_VK; k++)
		printf("  %-14s %4u attempts, %4u agree\n", pr_attempt_class_name(k),
		       v->by_kind[k][0], v->by_kind[k][1]);
	printf("  %u disagreement%s may depend on pins, refcounts or what an "
	       "allocation became (invisible to the trace) or on allocations racing with the "
	       "attempt\n",
	       v->pin_dependent - v->pin_dependent_agree,
	       v->pin_dependent - v->pin_dependent_agree == 1 ? "" : "s");
	for (i = 0; i < v->nr; i++) {
		const struct pr_verify_item *it = &v->items[i];

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

/* ---- options ---- */

/* A point of the capture to ask at: --at, --every and --attempts exclude each other. */
static void set_point(struct args *A, enum pr_point p)
{
	A->ro.point = p;
	A->points++;
}

/* One option @c with @arg. Return: GO_ON, or the exit status. */
static int parse_option(int c, const char *arg, struct args *A, bool *verify)
{
	struct pr_opts *o = &A->ro.o;
	uint64_t v;

	switch (c) {
	case OPT_SIZE:
		if (bc_parse_size(arg, &v))
			return cli_error("predict", "--size: %s", bc_errmsg());
		if (v < 4096 || v % 4096)
			return cli_error("predict", "--size: '%s' is not a size in whole pages "
					 "(e.g. 1G, 2M)", arg);
		o->nr_pages = v / 4096;
		A->have_size = true;
		break;
	case OPT_COUNT:
		if (bc_parse_count(arg, 1, 65536, &v))
			return cli_error("predict", "--count: %s", bc_errmsg());
		o->count = (unsigned int)v;
		break;
	case OPT_POLICY:
		if (pr_policy_parse(arg, &o->policy))
			return cli_error("predict", "--policy: '%s' is not mainline or v4", arg);
		break;
	case OPT_RANGE:
		if (parse_range(arg, &o->range_start, &o->range_end))
			return cli_error("predict", "--range: '%s' is not START-END (pfns, "
					 "START < END)", arg);
		o->has_range = true;
		break;
	case OPT_ALIGN:
		if (parse_u64(arg, &v) || v > 30)
			return cli_error("predict", "--align: '%s' is not an order 0..30", arg);
		o->align_order = (int)v;
		break;
	case OPT_AT:
		A->at = arg;
		set_point(A, PR_POINT_AT);
		break;
	case OPT_EVERY:
		if (tr_parse_duration(arg, &A->ro.every_ns))
			return cli_error("predict", "--every: %s", bc_errmsg());
		set_point(A, PR_POINT_EVERY);
		break;
	case OPT_ATTEMPTS:
		set_point(A, PR_POINT_ATTEMPTS);
		break;
	case OPT_VERIFY:
		*verify = true;
		break;
	case OPT_JSON:
		A->json = true;
		break;
	case OPT_NO_STORE:
		A->store = false;
		break;
	case 'f':
		A->force = true;
		break;
	case 'h':
		return cli_usage("predict", 0, EXIT_OK);
	default:
		return cli_usage("predict", 1, EXIT_BAD);
	}
	return GO_ON;
}

/* The command line into @A. Return: GO_ON, or the exit status. */
static int parse_options(int argc, char **argv, struct args *A)
{
	bool verify = false;
	int c, rc;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "fh", predict_options)) != -1) {
		rc = parse_option(c, optarg, A, &verify);
		if (rc != GO_ON)
			return rc;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bigchunk predict: one FILE.db is needed\n\n");
		return cli_usage("predict", 1, EXIT_BAD);
	}
	A->path = argv[optind];
	if (A->points > 1)
		return cli_error("predict", "--at, --every and --attempts are alternatives");
	if (verify && A->points)
		return cli_error("predict", "--verify predicts every real attempt: no --at, --every "
				 "or --attempts with it");
	if (!A->have_size && !verify)
		return cli_error("predict", "--size SIZE is required (e.g. --size 1G)");
	if (!A->have_size)
		A->ro.o.nr_pages = 262144;
	if (verify)
		A->ro.point = PR_POINT_VERIFY;
	else if (pr_opts_check(&A->ro.o))
		return cli_error("predict", "%s", bc_errmsg());
	return GO_ON;
}

/*
 * Open the capture to store the run in it, or read-only when it cannot be written
 * (then nothing is stored: *store_failed unless --no-store asked for that).
 * Return: GO_ON, or the exit status.
 */
static int open_capture(struct args *A, struct tdb **db, bool *store_failed)
{
	int ret = A->store ? cli_open_capture("predict", A->path, TDB_WRITE, A->force, db,
					      &A->partial) : -1;

	if (ret) {
		if (A->store && ret != -BC_E_NOENT && ret != -BC_E_FORMAT) {
			fprintf(stderr, "bigchunk predict: %s; answers are not stored\n", bc_errmsg());
			*store_failed = true;
		}
		A->store = false;
		if (cli_open_capture("predict", A->path, TDB_READONLY, A->force, db, &A->partial))
			return cli_fail("predict");
	}
	return GO_ON;
}

/* Show the run; the exit status says whether the (last) answer is yes. */
static int output(const struct args *A, const struct pr_run_result *r, bool store_failed)
{
	if (r->store_err)
		fprintf(stderr, "bigchunk predict: %s not stored: %s\n",
			A->ro.point == PR_POINT_VERIFY ? "results" : "answers", r->store_msg);
	if (A->ro.point == PR_POINT_VERIFY) {
		if (A->json)
			json_verify(&r->verify);
		else
			print_verify(A->path, &r->verify);
		if (store_failed || r->store_err)
			return EXIT_BAD;
		return r->verify.agree == r->verify.nr ? EXIT_OK : EXIT_NO;
	}
	output_answers(A, r);
	if (store_failed || r->store_err)
		return EXIT_BAD;
	return r->nr_ans && r->ans[r->nr_ans - 1].success ? EXIT_OK : EXIT_NO;
}

int cmd_predict(int argc, char **argv)
{
	struct args A = { .ro = { .o = { .policy = PR_POLICY_MAINLINE, .align_order = -1,
					 .count = 1 } },
			  .store = true };
	struct rp_opts ro = { .until_seq = UINT64_MAX, .note = cli_note };
	struct pr_run_result res = { 0 };
	struct replay *rp = NULL;
	struct tdb *db = NULL;
	bool store_failed = false;
	char *cmdline = NULL;
	int rc;

	rc = parse_options(argc, argv, &A);
	if (rc == GO_ON)
		rc = open_capture(&A, &db, &store_failed);
	if (rc != GO_ON)
		return rc;
	cmdline = cli_join_argv(argc, argv);
	A.ro.cmdline = cmdline;
	A.ro.store = A.store ? db : NULL;
	if (A.ro.point == PR_POINT_AT &&
	    tr_parse_time(db, A.at, &A.ro.at_seq, &A.ro.at_ts)) {
		rc = cli_fail("predict");
		goto out;
	}
	if (A.ro.point == PR_POINT_AT)
		ro.until_seq = A.ro.at_seq;
	if (rp_create(db, &ro, &rp) || pr_run(rp, &A.ro, &res)) {
		rc = cli_fail("predict");
		goto out;
	}
	rc = cli_partial_exit(A.partial, output(&A, &res, store_failed));
out:
	pr_run_release(&res);
	rp_destroy(rp);
	if (db && tdb_close(db) && rc == EXIT_OK)
		rc = cli_fail("predict");
	free(cmdline);
	return rc;
}
