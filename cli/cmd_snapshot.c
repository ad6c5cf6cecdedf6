// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk snapshot: write one page-state snapshot of the running kernel as a
 * directory (docs/snapshot-format.md), optionally bracketed by trace_marker lines, and
 * or store it (or an existing snapshot directory) in a capture.
 */
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/snapshot.h"
#include "cli/cli.h"
#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-info.h"

const char cmd_snapshot_usage[] =
	"usage: bigchunk snapshot -o DIR [--marker INSTANCE] [--label LABEL]\n"
	"       bigchunk snapshot --db FILE.db [--from DIR [-f] | --marker INSTANCE]\n"
	"                         [--label LABEL]\n"
	"\n"
	"Take one page-state snapshot of the running kernel (root): /proc/kpageflags and\n"
	"/proc/kpagecount (8 bytes per PFN from PFN 0), zoneinfo, buddyinfo, pagetypeinfo,\n"
	"meminfo, vmstat, iomem, the memory blocks and hugetlb pools of /sys, the pages of\n"
	"io_uring registered buffers (long-term pins) by pfn (longterm_pins), uname -r and\n"
	"the CLOCK_MONOTONIC ns at which reading began and ended (taken_at). The directory\n"
	"format is described in docs/snapshot-format.md; capture/bigchunk-snapshot.sh\n"
	"writes the same directory on a machine without bigchunk.\n"
	"\n"
	"Options:\n"
	"  -o, --output DIR       write the snapshot into DIR (created mode 0700; an existing\n"
	"                         directory must be empty). taken_at is written last: a\n"
	"                         directory without it is incomplete\n"
	"  -m, --marker INSTANCE  while tracing, write \"bigchunk snapshot LABEL begin NS\" and\n"
	"                         \"... end NS\" to the trace_marker of tracefs instance\n"
	"                         INSTANCE ('top' for the top-level buffer), so that\n"
	"                         'bigchunk import' can place the snapshot among the events\n"
	"                         whatever the trace clock\n"
	"  -l, --label LABEL      label of the markers and of the capture's snapshots row\n"
	"                         (default 'snapshot'; A-Z a-z 0-9 _ . : + -)\n"
	"      --db FILE.db       store the snapshot in capture FILE.db (created if absent):\n"
	"                         page runs, the files verbatim and the parsed tables. With\n"
	"                         -o, the directory just written is stored\n"
	"      --from DIR         with --db: store the existing snapshot directory DIR\n"
	"                         (kpageflags/kpagecount may be .zst or .gz) instead of\n"
	"                         reading the kernel; needs no root. DIR is checked first\n"
	"                         (regular files, orders, zones alike in every file) and,\n"
	"                         in a capture with a trace, must be of its kernel and\n"
	"                         taken within 300 s of it; it is then placed among the\n"
	"                         trace's events (by its markers, else the mono clock)\n"
	"  -f, --force            with --from: store DIR even if its kernel or time does not\n"
	"                         match the capture's trace\n"
	"  -h, --help             this text\n"
	"\n"
	"Examples:\n"
	"  bigchunk snapshot -o snap-before\n"
	"  bigchunk snapshot -o snap-1 --marker bigchunk --label start\n"
	"  bigchunk snapshot --db snaps.db --from snap-before\n"
	"\n"
	"Exit status: 0 on success, 2 on a usage error or an unreadable or incomplete\n"
	"snapshot (the message names the file and offset), or a --db capture that fails\n"
	"SQLite's quick_check (damaged: nothing is added to it).\n";

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Open an existing capture read-write, or create one (*@created). */
static int open_db(const char *path, struct tdb **db, bool *created)
{
	*created = access(path, F_OK) != 0;
	if (!*created)
		return tdb_open(path, TDB_WRITE | TDB_QUICK_CHECK, db);
	return tdb_create(path, false, db);
}

static void print_stored(struct tdb *db, int64_t id, double secs)
{
	int64_t nr, bytes;

	tdb_info_snapshot_size(db, id, &nr, &bytes);
	printf("%s: snapshot %" PRId64 ": %lld PFNs, %lld bytes of page runs (%.4f bytes/PFN), "
	       "stored in %.3f s\n", tdb_path(db), id, (long long)nr, (long long)bytes,
	       nr ? (double)bytes / nr : 0.0, secs);
}

int cmd_snapshot(int argc, char **argv)
{
	const char *out = NULL, *instance = NULL, *label = "snapshot", *dbpath = NULL,
		   *from = NULL;
	struct snap_marker mk = { .fd = -1 }, *m = NULL;
	struct tdb *db = NULL;
	bool created = false, force = false;
	int64_t id = 0;
	double t0;
	int c, ret;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "+o:m:l:fh", "output=o marker=m label=l db=D from=F "
			       "force:f help:h")) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'm': instance = optarg; break;
		case 'l': label = optarg; break;
		case 'D': dbpath = optarg; break;
		case 'F': from = optarg; break;
		case 'f': force = true; break;
		case 'h': return cli_usage("snapshot", 0, EXIT_OK);
		default: return cli_usage("snapshot", 1, EXIT_BAD);
		}
	}
	if (optind < argc)
		return cli_error("snapshot", "unexpected argument '%s'; see --help", argv[optind]);
	if (!out && !dbpath)
		return cli_error("snapshot", "say where the snapshot goes: -o DIR and/or --db "
				 "FILE.db; see --help");
	if (force && !from)
		return cli_error("snapshot", "-f/--force goes with --from DIR only");
	if (from && (!dbpath || out || instance))
		return cli_error("snapshot", "--from DIR goes with --db only (it stores an "
				 "existing directory; no -o or --marker)");
	if (!snap_label_valid(label))
		return cli_error("snapshot", "label '%s': use 1-%d characters of A-Z a-z 0-9 "
				 "_ . : + -", label, SNAP_LABEL_MAX - 1);
	if (!from && geteuid() != 0)
		return cli_error("snapshot", "needs root: /proc/kpageflags, kpagecount, "
				 "pagetypeinfo and the addresses in /proc/iomem are root-only");
	if (instance) {
		ret = snap_marker_open(&mk, strcmp(instance, "top") ? instance : NULL, label);
		if (ret)
			return cli_fail("snapshot");
		m = &mk;
	}
	if (out) {
		t0 = now_s();
		ret = snap_write_dir(out, m);
		if (ret)
			goto fail;
		printf("%s: snapshot written in %.3f s\n", out, now_s() - t0);
		from = out;
	}
	if (!dbpath)
		goto done;
	ret = open_db(dbpath, &db, &created);
	if (ret)
		goto fail;
	t0 = now_s();
	if (from)
		ret = snap_load_dir_flags(db, from, label, force ? SNAP_LOAD_FORCE : 0, &id);
	else
		ret = snap_load_live(db, label, m, &id);
	/* a new file holds just this snapshot: it is complete; an existing one keeps its state */
	if (!ret && created)
		ret = tdb_finish(db);
	/* into a capture with events: place it among them, as import does */
	if (!ret && !created && tdb_event_count(db) > 0 && snap_align(db, NULL))
		fprintf(stderr, "bigchunk snapshot: warning: %s\n", bc_errmsg());
	if (ret)
		goto fail;
	print_stored(db, id, now_s() - t0);
	ret = tdb_close(db);
	db = NULL;
	if (ret)
		goto fail;
done:
	snap_marker_close(&mk);
	return EXIT_OK;
fail:
	cli_fail("snapshot");
	tdb_close(db);
	snap_marker_close(&mk);
	if (created && !id)
		unlink(dbpath);
	return EXIT_BAD;
}
