/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdb-check: is a capture whole? What every command that reads an existing capture
 * must know before presenting a result from it: whether the writer finished (meta
 * 'complete'), and if not, how much is missing where the file can tell; and whether
 * SQLite found the file damaged (PRAGMA quick_check, run by tdb_open() with
 * TDB_QUICK_CHECK; with TDB_FORCE a damaged file is opened and reported here).
 * The cli prints the struct (cli_capture_warn()); nothing here prints.
 */
#ifndef BC_TDB_CHECK_H
#define BC_TDB_CHECK_H

#include <stdbool.h>
#include <stdint.h>

struct tdb;

struct tdb_health {
	bool complete;			/* meta complete = 1 */
	bool damaged;			/* quick_check failed (opened with TDB_FORCE) */
	char damage[256];		/* quick_check's first complaint, "" when none */
	char error[256];		/* meta 'error': why the writer failed, "" when none */
	char source[16];		/* meta 'source': record, import, "" unknown */

	int64_t events, markers;	/* stored */
	int64_t records_read;		/* the ring buffers' own count of what they gave,
					 * events and markers (cpu_stats read_events, or
					 * entries for an import); -1 unknown */
	int64_t ts_first, ts_last;	/* first and last stored event, -1 none */
	int64_t started_ns, ended_ns;	/* record: tracing on/off (CLOCK_MONOTONIC), -1 unknown */
	bool mono;			/* meta clock is mono: ts compares with *_ns */

	int snapshots;			/* snapshots stored */
	int snapshots_incomplete;	/* of which complete = 0 */
	bool end_snapshot;		/* one labelled 'end' is there */
	int64_t lost_windows;		/* lost_events rows */
};

/**
 * tdb_health() - read what @db says about its own completeness into @h.
 * Return: 0, or a negative bc_err (a table cannot be read).
 */
int tdb_health(struct tdb *db, struct tdb_health *h);

/* True when a result computed from @h's capture must not be presented as whole. */
static inline bool tdb_health_partial(const struct tdb_health *h)
{
	return !h->complete || h->damaged;
}

#endif
