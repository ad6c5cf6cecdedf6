// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk check: run the invariant checkers (checkers/chk.h) over a capture and
 * report in text, TAP or JUnit. Exit 0 when every invariant holds, 1 when any is
 * violated, 2 when the capture cannot be used.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/chk.h"
#include "cli/cli.h"
#include "common/err.h"
#include "common/parse.h"
#include "db/tdb.h"

const char cmd_check_usage[] =
	"usage: bigchunk check FILE.db [--checker NAME]... [--format text|tap|junit]\n"
	"                      [--max-errors N] [--trace-only] [--store] [-o FILE]\n"
	"\n"
	"Check the rules of the buddy allocator and of pageblock isolation over a capture.\n"
	"The trace itself is checked event by event; when the capture has a snapshot to\n"
	"seed from, it is also replayed through the model and the model is checked at\n"
	"every event, at each real contiguous attempt and at each snapshot. Checkers\n"
	"report and keep going; each violation names the checker and rule, the event\n"
	"(seq, time, CPU), the pfn and order, and says what was wrong.\n"
	"\n"
	"Checkers (all by default; see checkers/README.md for the kernel rules):\n"
	"  isolation-escape  no page of an isolated pageblock handed out after the drain,\n"
	"                    none on a non-isolate free list, no merge across isolation\n"
	"  contig-exact      a successful contiguous allocation takes exactly its range,\n"
	"                    all of it free or migrated at the test, not reallocated\n"
	"  buddy-sanity      no double free, no allocation of a page in use, orders within\n"
	"                    0..MAX_PAGE_ORDER (18: gigantic frees), aligned heads, pfns in\n"
	"                    zones and System RAM\n"
	"  freecount         model free counts equal a full recount, and buddyinfo and\n"
	"                    pagetypeinfo at each snapshot (within what changed meanwhile)\n"
	"  pageblock-type    migratetypes change only by claim, 9->10 merge, isolation\n"
	"                    and its undo\n"
	"Pages in lost-event windows make a check inconclusive, never passed; the summary\n"
	"counts them. freecount and pageblock-type need the model (a snapshot).\n"
	"\n"
	"Options:\n"
	"  -c, --checker NAME   run only this checker (repeatable)\n"
	"      --format FMT     text (default), tap (TAP version 13, one test point per\n"
	"                       checker) or junit (JUnit XML, one testcase per checker)\n"
	"      --max-errors N   keep and print at most N violations (default 100; all are\n"
	"                       counted)\n"
	"      --trace-only     do not replay through the model\n"
	"      --store          also write the results into FILE.db (tables check_runs,\n"
	"                       check_results, check_violations; see checkers/README.md)\n"
	"      --recount-every N  events between full model recounts (default 1048576)\n"
	"  -o, --output FILE    write the report to FILE instead of stdout\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: 0 every invariant holds (inconclusive checks included), 1 at least\n"
	"one violation, 2 usage error, unusable capture, or with --store results that could\n"
	"not be stored (a run is stored whole or not at all).\n"
	"\n"
	"Example:\n"
	"  bigchunk check cap.db --format tap > check.tap\n"
	"  bigchunk check cap.db --checker isolation-escape --checker contig-exact\n";

int cmd_check(int argc, char **argv)
{
	struct chk_opts co = { 0 };
	enum chk_format fmt = CHK_FMT_TEXT;
	const char *out_path = NULL, *path;
	struct chk_summary sum;
	struct chk_ctx *c = NULL;
	struct tdb *db = NULL;
	FILE *out = stdout;
	bool store = false;
	int opt, k, ret;
	uint64_t n;

	while ((opt = cli_getopt(argc, argv, "c:o:h", "checker=c format=F max-errors=M "
				 "trace-only:T store:S recount-every=R output=o help:h")) != -1) {
		switch (opt) {
		case 'c':
			k = chk_checker_from_name(optarg);
			if (k < 0)
				return cli_error("check", "'%s' is not a checker; see 'bigchunk check "
						 "--help'", optarg);
			co.checkers |= 1u << k;
			break;
		case 'F':
			if (!strcmp(optarg, "text"))
				fmt = CHK_FMT_TEXT;
			else if (!strcmp(optarg, "tap"))
				fmt = CHK_FMT_TAP;
			else if (!strcmp(optarg, "junit"))
				fmt = CHK_FMT_JUNIT;
			else
				return cli_error("check", "--format '%s': text, tap or junit", optarg);
			break;
		case 'M':
			if (bc_parse_count(optarg, 1, 1000000, &n))
				return cli_error("check", "--max-errors: %s", bc_errmsg());
			co.max_errors = n;
			break;
		case 'R':
			if (bc_parse_count(optarg, 1, UINT64_MAX, &n))
				return cli_error("check", "--recount-every: %s", bc_errmsg());
			co.recount_every = n;
			break;
		case 'T':
			co.trace_only = true;
			break;
		case 'S':
			store = true;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			return cli_usage("check", 0, EXIT_OK);
		default:
			return cli_usage("check", 1, EXIT_BAD);
		}
	}
	if (optind + 1 != argc)
		return cli_usage("check", 1, EXIT_BAD);
	path = argv[optind];
	co.progress = cli_replay_progress;
	co.note = cli_note;

	ret = tdb_open(path, store ? TDB_WRITE : TDB_READONLY, &db);
	if (ret)
		return cli_fail("check");
	ret = chk_create(&co, &c);
	if (!ret)
		ret = chk_run_capture(c, db);
	if (ret) {
		ret = cli_fail("check");
		goto out;
	}
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			ret = cli_error("check", "%s: %m", out_path);
			goto out;
		}
	}
	if (chk_report(c, out, fmt, path)) {
		ret = cli_fail("check");
		goto out;
	}
	if (store && chk_store(c, db, NULL)) {
		ret = cli_fail("check");
		goto out;
	}
	chk_get_summary(c, &sum);
	ret = sum.violations ? EXIT_NO : EXIT_OK;
out:
	if (out && out != stdout)
		fclose(out);
	chk_destroy(c);
	tdb_close(db);
	return ret;
}
