// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk import: a trace-cmd trace.dat (plus snapshot directories) into a capture.
 *
 * The capture is written to a temporary file next to the output and moved into place
 * only when complete, so a failed or interrupted import leaves no output behind (and
 * an existing output replaced with -f stays untouched until then).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/snapshot.h"
#include "cli/cli.h"
#include "common/err.h"
#include "db/tdb.h"

const char cmd_import_usage[] =
	"usage: bigchunk import -o FILE.db [options] TRACE.dat\n"
	"\n"
	"Import a trace-cmd trace.dat (file version 6 or 7) into a bigchunk capture, with\n"
	"page-state snapshot directories taken during the trace. ftrace:print records become\n"
	"markers, ftrace:kernel_stack records (trace-cmd record -T) the stack of the event\n"
	"before them on the same CPU, and ring-buffer gaps become lost_events rows. The\n"
	"capture is written to a temporary file and moved into place when complete: a\n"
	"failed or interrupted import leaves no output. Progress is shown on stderr when it\n"
	"is a terminal.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE.db    capture to write (mode 0600; required)\n"
	"  -f, --force             replace FILE.db if it exists (only once the import worked);\n"
	"                          store snapshots whose kernel or time does not match the trace\n"
	"  -B, --instance NAME     import the buffer instance NAME (trace-cmd record -B NAME);\n"
	"                          default: the one buffer that holds events\n"
	"  -e, --event SYS:EVENT   import only this event (repeatable; SYS:* = a whole\n"
	"                          system); default: every event the file has a format for\n"
	"      --snapshot DIR      add the snapshot directory DIR (repeatable; made by\n"
	"                          'bigchunk snapshot' or bigchunk-snapshot.sh -m INSTANCE\n"
	"                          during the trace), aligned by its trace_marker brackets\n"
	"      --clock CLOCK       the trace clock the file was really recorded with (e.g.\n"
	"                          mono), when the file says otherwise\n"
	"  -q, --quiet             no progress, summary or warnings\n"
	"  -h, --help              this text\n"
	"\n"
	"Exit status: 0 imported; 2 usage error or unusable input (the file is named with\n"
	"what is wrong: not a trace.dat, truncated or corrupt, no such instance ...).\n"
	"\n"
	"Examples:\n"
	"  trace-cmd record -C mono -B mm -e kmem -e migrate -e compaction -o trace.dat\n"
	"  bigchunk import -o cap.db --clock mono trace.dat\n"
	"  bigchunk import -f -o cap.db --snapshot snap-begin --snapshot snap-end trace.dat\n";

#define MAX_LIST 64

struct progress {
	struct timespec t0;
	bool tty;
};

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int show_progress(const struct cap_decode_stats *st, uint64_t records, void *arg)
{
	struct progress *p = arg;
	double s = elapsed(&p->t0);

	if (p->tty)
		fprintf(stderr, "\r  %llu records, %llu events, %.2f M records/s   ",
			(unsigned long long)records, (unsigned long long)st->events,
			s > 0 ? (double)records / s / 1e6 : 0.0);
	return cli_stop != 0;
}

static void remove_db_files(const char *path)
{
	static const char *const sfx[] = { "", "-journal", "-wal", "-shm" };
	char buf[4096];
	size_t i;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", path, sfx[i]);
		unlink(buf);
	}
}

/* Join argv into meta 'command'. */
static int store_command(struct tdb *db, int argc, char **argv)
{
	size_t len = sizeof("bigchunk");
	char *cmd;
	int i, ret;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	cmd = malloc(len);
	if (!cmd)
		return bc_error(BC_E_NOMEM, "out of memory");
	strcpy(cmd, "bigchunk");
	for (i = 0; i < argc; i++) {
		strcat(cmd, " ");
		strcat(cmd, argv[i]);
	}
	ret = tdb_set_meta(db, "command", cmd);
	free(cmd);
	return ret;
}

static int load_snapshots(struct tdb *db, char **dirs, int n, bool force, bool quiet)
{
	int i, ret, marked = 0;

	for (i = 0; i < n; i++) {
		ret = snap_load_dir_flags(db, dirs[i], "import", force ? SNAP_LOAD_FORCE : 0, NULL);
		if (ret)
			return ret;
	}
	if (!n)
		return 0;
	ret = snap_align(db, &marked);
	if (ret) {
		/* The snapshots stay, unaligned (ts/seq NULL); say why. */
		if (!quiet)
			fprintf(stderr, "bigchunk import: warning: %s\n", bc_errmsg());
	}
	return 0;
}

int cmd_import(int argc, char **argv)
{
	enum { OPT_SNAPSHOT = 256, OPT_CLOCK };
	static const struct option longopts[] = {
		{ "output",   required_argument, NULL, 'o' },
		{ "force",    no_argument,       NULL, 'f' },
		{ "instance", required_argument, NULL, 'B' },
		{ "event",    required_argument, NULL, 'e' },
		{ "snapshot", required_argument, NULL, OPT_SNAPSHOT },
		{ "clock",    required_argument, NULL, OPT_CLOCK },
		{ "quiet",    no_argument,       NULL, 'q' },
		{ "help",     no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *instance = NULL, *input;
	char *snaps[MAX_LIST], *tmp = NULL;
	const char *events[MAX_LIST + 1];
	struct cap_import_opts opts = { 0 };
	struct cap_decode_stats st = { 0 };
	int nsnaps = 0, nevents = 0, c, ret;
	bool force = false, quiet = false;
	struct progress prog;
	struct tdb *db = NULL;
	double secs;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:fB:e:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'B':
			instance = optarg;
			break;
		case 'e':
			if (nevents == MAX_LIST)
				return cli_error("import", "at most %d -e options", MAX_LIST);
			if (!strchr(optarg, ':'))
				return cli_error("import", "-e %s: want SYSTEM:EVENT or SYSTEM:*",
						 optarg);
			events[nevents++] = optarg;
			break;
		case OPT_SNAPSHOT:
			if (nsnaps == MAX_LIST)
				return cli_error("import", "at most %d --snapshot options", MAX_LIST);
			snaps[nsnaps++] = optarg;
			break;
		case OPT_CLOCK:
			opts.clock = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			return cli_usage("import", 0, EXIT_OK);
		default:
			return cli_usage("import", 1, EXIT_BAD);
		}
	}
	if (optind != argc - 1) {
		cli_error("import", optind == argc ? "no TRACE.dat given" :
			  "one TRACE.dat at a time");
		return cli_usage("import", 1, EXIT_BAD);
	}
	if (!out) {
		cli_error("import", "no output given (-o FILE.db)");
		return cli_usage("import", 1, EXIT_BAD);
	}
	input = argv[optind];
	events[nevents] = NULL;
	if (!force && access(out, F_OK) == 0)
		return cli_error("import", "%s: file exists (use -f to replace it)", out);

	if (asprintf(&tmp, "%s.importing-%d", out, (int)getpid()) < 0)
		return cli_error("import", "out of memory");
	ret = tdb_create(tmp, true, &db);
	if (ret) {
		/* name the output the user asked for, not our temporary */
		cli_error("import", "%s: cannot create the capture: %s", out, bc_errmsg());
		free(tmp);
		return EXIT_BAD;
	}

	cli_catch_signals();
	prog.tty = !quiet && isatty(2);
	clock_gettime(CLOCK_MONOTONIC, &prog.t0);
	opts.progress = show_progress;
	opts.progress_arg = &prog;

	ret = store_command(db, argc, argv);
	if (!ret)
		ret = cap_import_dat(db, input, instance, nevents ? events : NULL, &opts, &st);
	if (prog.tty)
		fputs("\r\033[K", stderr);
	if (!ret)
		ret = load_snapshots(db, snaps, nsnaps, force, quiet);
	if (!ret)
		ret = tdb_finish(db);
	if (ret) {
		if (ret == -BC_E_INTR)
			cli_error("import", "interrupted; %s not written", out);
		else
			cli_fail("import");
		tdb_close(db);
		remove_db_files(tmp);
		free(tmp);
		return EXIT_BAD;
	}
	ret = tdb_close(db);
	if (ret) {
		cli_fail("import");
		remove_db_files(tmp);
		free(tmp);
		return EXIT_BAD;
	}
	if (force) {
		if (rename(tmp, out) < 0) {
			cli_error("import", "%s: cannot move the capture into place: %s", out,
				  strerror(errno));
			remove_db_files(tmp);
			free(tmp);
			return EXIT_BAD;
		}
	} else if (link(tmp, out) < 0 || unlink(tmp) < 0) {
		cli_error("import", "%s: %s", out, errno == EEXIST ?
			  "file exists (use -f to replace it)" : strerror(errno));
		remove_db_files(tmp);
		free(tmp);
		return EXIT_BAD;
	}
	free(tmp);

	secs = elapsed(&prog.t0);
	if (!quiet)
		fprintf(stderr, "imported %llu events, %llu markers, %llu stacks, %llu gaps (%llu events lost), %llu skipped records from %s into %s in %.2f s (%.2f M events/s)\n",
			(unsigned long long)st.events, (unsigned long long)st.markers,
			(unsigned long long)st.stacks, (unsigned long long)st.gaps,
			(unsigned long long)st.lost, (unsigned long long)st.skipped, input, out,
			secs, secs > 0 ? (double)st.events / secs / 1e6 : 0.0);
	return EXIT_OK;
}
