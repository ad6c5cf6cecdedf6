// SPDX-License-Identifier: GPL-2.0
/*
 * tdb-check: what a capture says about its own completeness (see tdb-check.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-check.h"
#include "db/tdb-local.h"

/* One row of integers from @sql into @v[0..n); -1 for NULL. A table the file's schema
 * version lacks reads as -1 too. */
static int row(struct tdb *db, const char *sql, int64_t *v, int n)
{
	sqlite3_stmt *st = NULL;
	int i, rc;

	for (i = 0; i < n; i++)
		v[i] = -1;
	if (sqlite3_prepare_v2(db->sq, sql, -1, &st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, "reading its completeness");
	rc = sqlite3_step(st);
	for (i = 0; rc == SQLITE_ROW && i < n; i++)
		v[i] = tdb_col_opt(st, i);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return tdb_sql_error(db, "reading its completeness");
	return 0;
}

static void meta_text(struct tdb *db, const char *key, char *buf, size_t size)
{
	char *v = tdb_get_meta(db, key);

	snprintf(buf, size, "%s", v ? v : "");
	free(v);
}

int tdb_health(struct tdb *db, struct tdb_health *h)
{
	char clock[16];
	int64_t v[4];
	int ret;

	memset(h, 0, sizeof(*h));
	h->complete = tdb_get_meta_int(db, "complete", 0) == 1;
	snprintf(h->damage, sizeof(h->damage), "%s", db->damage);
	h->damaged = db->damage[0] != '\0';
	meta_text(db, "error", h->error, sizeof(h->error));
	meta_text(db, "source", h->source, sizeof(h->source));
	meta_text(db, "clock", clock, sizeof(clock));
	h->mono = !strcmp(clock, "mono");
	h->started_ns = tdb_get_meta_int(db, "started_ns", -1);
	h->ended_ns = tdb_get_meta_int(db, "ended_ns", -1);

	ret = row(db, "SELECT coalesce(sum(n), 0), min(ts_first), max(ts_last) FROM event_chunks",
		  v, 3);
	if (ret)
		return ret;
	h->events = v[0];
	h->ts_first = v[1];
	h->ts_last = v[2];
	/* a record counts what it read; a trace.dat's statistics count what the buffers held */
	ret = row(db, "SELECT (SELECT sum(value) FROM cpu_stats WHERE key = 'read_events' AND "
		  "value > 0), (SELECT sum(value) FROM cpu_stats WHERE key = 'entries'), "
		  "(SELECT count(*) FROM lost_events), (SELECT count(*) FROM markers)", v, 4);
	if (ret)
		return ret;
	h->records_read = v[0] >= 0 ? v[0] : v[1];
	h->lost_windows = v[2] > 0 ? v[2] : 0;
	h->markers = v[3] > 0 ? v[3] : 0;
	ret = row(db, "SELECT count(*), coalesce(sum(complete = 0), 0), "
		  "coalesce(sum(label = 'end'), 0) FROM snapshots", v, 3);
	if (ret)
		return ret;
	h->snapshots = (int)v[0];
	h->snapshots_incomplete = (int)v[1];
	h->end_snapshot = v[2] > 0;
	return 0;
}
