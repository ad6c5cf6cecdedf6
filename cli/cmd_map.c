// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk map: the physical map of a capture's state in the terminal (report/
 * map-text.h over report/frames.h): replay to a point, draw, one row per 1 GiB.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/err.h"
#include "common/parse.h"
#include "db/tdb.h"
#include "replay/replay.h"
#include "report/frames.h"
#include "report/map-text.h"
#include "trace/tr-time.h"

const char cmd_map_usage[] =
	"usage: bigchunk map FILE.db [--at T] [--cols N] [--by content|migratetype]\n"
	"                    [--pageblock PFN] [-f]\n"
	"\n"
	"Replay the capture to a point and draw physical memory as the model has it: one\n"
	"row per 1 GiB (each row is one 1 GiB candidate of alloc_contig_pages()) starting\n"
	"with its physical address, one character per pageblock, or per N pageblocks when\n"
	"the terminal is narrower than a row (a character then shows the class most in a\n"
	"big chunk's way among its pageblocks). After each row: 'ok' when a 1 GiB\n"
	"allocation inside it alone would succeed (predict's mainline policy with the row\n"
	"as --range), 'no' when not, and the zones that start in the row; '!' marks the\n"
	"page that stops it. A legend follows. Colour only when stdout is a terminal.\n"
	"With --pageblock, the pageblock holding PFN instead, page by page (what the\n"
	"report shows on a click): its page counts from the model's pageblock counters\n"
	"(free, movable, unmovable, reserved, unknown, uninit, hole) and one character\n"
	"per page, 64 to a line.\n"
	"\n"
	"Options:\n"
	"  --at T             the state before time T (as predict --at: ns, a time from the\n"
	"                     first event with a unit, or marker:TEXT); default: the end\n"
	"  --cols N           width in characters (default: the terminal's, else 80)\n"
	"  --by KEY           content (default: free, movable, unmovable, reserved, hugetlb,\n"
	"                     uninitialised, isolated) or migratetype (the pageblock's type)\n"
	"  --colour WHEN      auto (default), always or never\n"
	"  --pageblock PFN    the pages of the pageblock holding PFN (0x hex or decimal)\n"
	"  -f, --force        read a damaged capture\n"
	"  -h, --help         this text\n"
	"\n"
	"Physical addresses are shown: the output is for the user's own terminal.\n"
	"\n"
	"Exit status: 0 drawn; 1 drawn from an incomplete capture; 2 usage error or an\n"
	"unusable capture.\n"
	CLI_CAPTURE_EXIT_HELP
	"\n"
	"Examples:\n"
	"  bigchunk map cap.db\n"
	"  bigchunk map cap.db --at marker:phase2 --by migratetype --cols 200\n"
	"  bigchunk map cap.db --pageblock 0x100200\n";

static const char map_options[] =
	"at=A cols=c by=b colour=C color=C pageblock=p force:f help:h";

struct args {
	const char *path, *at;
	struct map_text_opts mo;
	int colour;			/* -1 auto */
	bool force, has_pfn;
	uint64_t pfn;			/* --pageblock */
};

/* The terminal's width, else 80. */
static unsigned int term_cols(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 80;
}

#define GO_ON -1

/* A pfn: 0x hex or decimal, no sign, nothing after it. */
static int parse_pfn(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static int parse(int argc, char **argv, struct args *A)
{
	uint64_t v;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "fh", map_options)) != -1) {
		switch (c) {
		case 'A':
			A->at = optarg;
			break;
		case 'c':
			if (bc_parse_count(optarg, MAP_TEXT_MIN_COLS, 100000, &v))
				return cli_error("map", "--cols: %s", bc_errmsg());
			A->mo.cols = (unsigned int)v;
			break;
		case 'b':
			if (!strcmp(optarg, "content"))
				A->mo.by = MAP_TEXT_CONTENT;
			else if (!strcmp(optarg, "migratetype"))
				A->mo.by = MAP_TEXT_MIGRATETYPE;
			else
				return cli_error("map", "--by: '%s' is not content or migratetype",
						 optarg);
			break;
		case 'C':
			if (strcmp(optarg, "auto") && strcmp(optarg, "always") &&
			    strcmp(optarg, "never"))
				return cli_error("map", "--colour: '%s' is not auto, always or never",
						 optarg);
			A->colour = !strcmp(optarg, "auto") ? -1 : !strcmp(optarg, "always");
			break;
		case 'p':
			if (parse_pfn(optarg, &A->pfn))
				return cli_error("map", "--pageblock: '%s' is not a pfn", optarg);
			A->has_pfn = true;
			break;
		case 'f':
			A->force = true;
			break;
		case 'h':
			return cli_usage("map", 0, EXIT_OK);
		default:
			return cli_usage("map", 1, EXIT_BAD);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bigchunk map: one FILE.db is needed\n\n");
		return cli_usage("map", 1, EXIT_BAD);
	}
	A->path = argv[optind];
	if (!A->mo.cols)
		A->mo.cols = term_cols();
	A->mo.colour = A->colour < 0 ? isatty(STDOUT_FILENO) : A->colour;
	return GO_ON;
}

int cmd_map(int argc, char **argv)
{
	struct args A = { .colour = -1 };
	struct rp_opts ro = { .until_seq = UINT64_MAX, .note = cli_note,
			      .progress = cli_replay_progress };
	struct frm_opts fo = { 0 };
	struct frm_set fs = { 0 };
	struct replay *rp = NULL;
	struct tdb *db = NULL;
	bool partial = false;
	uint64_t ts;
	int rc;

	rc = parse(argc, argv, &A);
	if (rc != GO_ON)
		return rc;
	if (cli_open_capture("map", A.path, TDB_READONLY, A.force, &db, &partial))
		return cli_fail("map");
	if (A.at && tr_parse_time(db, A.at, &ro.until_seq, &ts)) {
		rc = cli_fail("map");
		goto out;
	}
	if (rp_create(db, &ro, &rp) || frm_collect(rp, &fo, &fs)) {
		rc = cli_fail("map");
		goto out;
	}
	if (A.at) {
		snprintf(fs.f[0].label, sizeof(fs.f[0].label), "%.40s", A.at);
		fs.f[0].ts = ts;
	}
	if (A.has_pfn)
		rc = map_text_pageblock(stdout, rp_model(rp), &fs, &fs.f[0], A.pfn, &A.mo);
	else
		rc = map_text_write(stdout, &fs, &fs.f[0], &A.mo);
	rc = rc ? cli_fail("map") : cli_partial_exit(partial, EXIT_OK);
out:
	frm_release(&fs);
	rp_destroy(rp);
	if (db)
		tdb_close(db);
	return rc;
}
