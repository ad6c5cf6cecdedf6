// SPDX-License-Identifier: GPL-2.0
/*
 * Opening an existing capture for a command: the checks of db/tdb-check.h, and the one
 * warning every reader prints when the capture is incomplete or damaged, so no result
 * from part of a capture passes for a result from all of it.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-check.h"

#define WARN	"bigchunk %s: warning: "

static double secs(int64_t ns)
{
	return (double)ns / 1e9;
}

/* How much is missing, as far as the file can tell. */
static void print_missing(const char *cmd, const struct tdb_health *h)
{
	int64_t stored = h->events + h->markers;

	fprintf(stderr, WARN "  %lld events and %lld markers stored", cmd, (long long)h->events,
		(long long)h->markers);
	if (h->records_read > stored)
		fprintf(stderr, " of the %lld records the ring buffers gave: %lld missing",
			(long long)h->records_read, (long long)(h->records_read - stored));
	fputc('\n', stderr);
	if (h->mono && h->started_ns > 0 && h->ended_ns > h->started_ns)
		fprintf(stderr, WARN "  the last event is at %.3f s of the %.3f s traced\n", cmd,
			h->ts_last >= h->started_ns ? secs(h->ts_last - h->started_ns) : 0.0,
			secs(h->ended_ns - h->started_ns));
	else if (!strcmp(h->source, "record"))
		fprintf(stderr, WARN "  the recording's end was never written: the events stop "
			"where the writer stopped\n", cmd);
	if (h->ts_first >= 0 && h->ts_last >= h->ts_first)
		fprintf(stderr, WARN "  events span %.3f s of trace time\n", cmd,
			secs(h->ts_last - h->ts_first));
	fprintf(stderr, WARN "  %d snapshots (%d incomplete)%s; %lld lost-event windows\n", cmd,
		h->snapshots, h->snapshots_incomplete, !strcmp(h->source, "record") &&
		!h->end_snapshot ? ", no 'end' snapshot" : "", (long long)h->lost_windows);
}

int cli_open_capture(const char *cmd, const char *path, int flags, bool force,
		     struct tdb **db, bool *partial)
{
	struct tdb_health h;
	int ret;

	*partial = false;
	ret = tdb_open(path, flags | TDB_QUICK_CHECK | (force ? TDB_FORCE : 0), db);
	if (ret)
		return ret;
	ret = tdb_health(*db, &h);
	if (ret) {
		tdb_close(*db);
		*db = NULL;
		return ret;
	}
	*partial = tdb_health_partial(&h);
	if (h.damaged)
		fprintf(stderr, WARN "%s is damaged (SQLite's quick_check says: %s); read anyway "
			"(--force): what follows may be wrong\n", cmd, path, h.damage);
	if (!h.complete) {
		fprintf(stderr, WARN "%s is INCOMPLETE (meta complete is not 1): its writer "
			"was interrupted or failed%s%s\n", cmd, path, h.error[0] ? ": " : "",
			h.error);
		print_missing(cmd, &h);
	}
	if (*partial)
		fprintf(stderr, WARN "results describe only what the file holds; exit status "
			"1 at best\n", cmd);
	return 0;
}

int cli_partial_exit(bool partial, int rc)
{
	return partial && rc == EXIT_OK ? EXIT_NO : rc;
}
