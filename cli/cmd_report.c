// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk report: one self-contained HTML file with the physical map over time, the
 * contiguity timeline, the blockers and the model's fidelity (report/html.h over
 * report/frames.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/err.h"
#include "common/wfile.h"
#include "db/tdb.h"
#include "replay/replay.h"
#include "report/frames.h"
#include "report/html.h"
#include "trace/tr-time.h"

const char cmd_report_usage[] =
	"usage: bigchunk report FILE.db -o REPORT.html [--at T]... [--no-2m] [-f]\n"
	"\n"
	"Replay the capture and write one self-contained HTML file (no network: it opens\n"
	"from file://) with:\n"
	"  - the physical map: one row per 1 GiB (each row a 1 GiB candidate), one cell\n"
	"    per pageblock coloured by what it holds or by its migratetype, zones and\n"
	"    holes marked; a slider moves through the seed snapshot, every later snapshot,\n"
	"    each --at point and the end; hovering a cell gives its pfn range, class,\n"
	"    migratetype and page counts (free, movable, unmovable, reserved, unknown,\n"
	"    uninit: the model's pageblock counters, as map --pageblock prints them), and\n"
	"    on the page that stops its row the blocker's kind and the allocation that put\n"
	"    it there (time, comm, pid, order, gfp, stack with record --stacks); a click\n"
	"    shows any pageblock page by page;\n"
	"  - contiguity over time: the 1 GiB rows that would succeed at each point, how\n"
	"    many 2 MiB allocations would succeed in a row there (as bigchunk simulate\n"
	"    counts them), the largest free block per zone, the predictions stored in the\n"
	"    capture (predict --every stores them) and the real contiguous attempts with\n"
	"    their outcomes;\n"
	"  - blockers by kind and by allocating stack, with the rows they block;\n"
	"  - the layouts of the last stored compare run side by side, one column each;\n"
	"  - fidelity: the model against each snapshot, anomalies, lost events, and the\n"
	"    stored check and predict --verify results.\n"
	"Each row's question is predict's mainline policy with the row as --range. The\n"
	"colours are the Okabe-Ito palette (safe for colour-blind readers). The file is\n"
	"created mode 0600 (it holds physical addresses); an existing REPORT.html is\n"
	"replaced.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE  the HTML file to write (required)\n"
	"  --at T             an extra point (as predict --at); may be repeated\n"
	"  --no-2m            no 2 MiB series: its count makes every allocation it can\n"
	"                     under the model's undo journal (several seconds and about\n"
	"                     1 GB of memory for 25 GiB of pfns)\n"
	"  -f, --force        read a damaged capture\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 written; 1 written from an incomplete capture; 2 usage error, an\n"
	"unusable capture, or the file could not be written.\n"
	CLI_CAPTURE_EXIT_HELP
	"\n"
	"Examples:\n"
	"  bigchunk report cap.db -o cap.html\n"
	"  bigchunk predict cap.db --size 1G --every 1s && bigchunk report cap.db -o cap.html\n";

static const char report_options[] = "output=o at=A no-2m:N force:f help:h";

#define MAX_AT 64
#define GO_ON -1

struct args {
	const char *path, *out;
	const char *at[MAX_AT];
	unsigned int nr_at;
	bool force, no_2m;
};

static int parse(int argc, char **argv, struct args *A)
{
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "o:fh", report_options)) != -1) {
		switch (c) {
		case 'o':
			A->out = optarg;
			break;
		case 'A':
			if (A->nr_at == MAX_AT)
				return cli_error("report", "--at: at most %d points", MAX_AT);
			A->at[A->nr_at++] = optarg;
			break;
		case 'N':
			A->no_2m = true;
			break;
		case 'f':
			A->force = true;
			break;
		case 'h':
			return cli_usage("report", 0, EXIT_OK);
		default:
			return cli_usage("report", 1, EXIT_BAD);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bigchunk report: one FILE.db is needed\n\n");
		return cli_usage("report", 1, EXIT_BAD);
	}
	A->path = argv[optind];
	if (!A->out)
		return cli_error("report", "-o REPORT.html is required");
	return GO_ON;
}

/* The --at points as seqs, in ascending order with their labels. */
static int resolve_at(struct tdb *db, const struct args *A, uint64_t *seq, char **label)
{
	uint64_t ts, s;
	unsigned int i, k;
	char *l;

	for (i = 0; i < A->nr_at; i++) {
		if (tr_parse_time(db, A->at[i], &s, &ts))
			return cli_fail("report");
		if (asprintf(&l, "at %.40s", A->at[i]) < 0)
			return cli_error("report", "out of memory");
		for (k = i; k > 0 && seq[k - 1] > s; k--) {
			seq[k] = seq[k - 1];
			label[k] = label[k - 1];
		}
		seq[k] = s;
		label[k] = l;
	}
	return GO_ON;
}

/* Write the page to a private temporary next to @out, then rename it into place. */
static int write_report(const struct args *A, const struct html_input *in)
{
	char *tmp;
	FILE *fp;
	int ret;

	if (asprintf(&tmp, "%s.writing-%d", A->out, (int)getpid()) < 0)
		return cli_error("report", "out of memory");
	ret = bc_fcreate_private(tmp, &fp);
	if (!ret) {
		ret = html_write(fp, in);
		if (fclose(fp) && !ret)
			ret = bc_error(BC_E_IO, "%s: %m", tmp);
		if (!ret && rename(tmp, A->out))
			ret = bc_error(BC_E_IO, "%s: %m", A->out);
		if (ret)
			unlink(tmp);
	}
	free(tmp);
	return ret ? cli_fail("report") : GO_ON;
}

int cmd_report(int argc, char **argv)
{
	struct args A = { 0 };
	struct rp_opts ro = { .until_seq = UINT64_MAX, .note = cli_note,
			      .progress = cli_replay_progress };
	uint64_t at_seq[MAX_AT];
	char *at_label[MAX_AT] = { 0 };
	struct frm_opts fo = { .snapshots = true, .pages = true, .contig_2m = true,
			       .at_seq = at_seq, .at_label = (const char *const *)at_label };
	struct html_input in = { 0 };
	char *kernel = NULL;
	struct frm_set fs = { 0 };
	struct replay *rp = NULL;
	struct tdb *db = NULL;
	bool partial = false;
	unsigned int i;
	int rc;

	rc = parse(argc, argv, &A);
	if (rc != GO_ON)
		return rc;
	if (cli_open_capture("report", A.path, TDB_READONLY, A.force, &db, &partial))
		return cli_fail("report");
	rc = resolve_at(db, &A, at_seq, at_label);
	fo.nr_at = A.nr_at;
	fo.contig_2m = !A.no_2m;
	if (rc == GO_ON && (rp_create(db, &ro, &rp) || frm_collect(rp, &fo, &fs)))
		rc = cli_fail("report");
	if (rc == GO_ON) {
		in.name = strrchr(A.path, '/') ? strrchr(A.path, '/') + 1 : A.path;
		in.kernel = kernel = tdb_get_meta(db, "kernel_release");
		in.frames = &fs;
		in.rp = rp;
		in.db = db;
		rc = write_report(&A, &in);
	}
	if (rc == GO_ON) {
		printf("%s\n", A.out);
		rc = cli_partial_exit(partial, EXIT_OK);
	}
	for (i = 0; i < A.nr_at; i++)
		free(at_label[i]);
	free(kernel);
	frm_release(&fs);
	rp_destroy(rp);
	if (db)
		tdb_close(db);
	return rc;
}
