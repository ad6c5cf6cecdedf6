// SPDX-License-Identifier: GPL-2.0
/*
 * tdb-info: read-only summaries of a capture (see tdb-info.h).
 */
#include "common/err.h"
#include "db/tdb-info.h"
#include "db/tdb-local.h"

/* Prepare @sql, bind @arg1 to ?1 when >= 0; 0 or a negative bc_err. */
static int query(struct tdb *db, const char *sql, int64_t arg1, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db->sq, sql, -1, st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, "info");
	if (arg1 >= 0)
		sqlite3_bind_int64(*st, 1, arg1);
	return 0;
}

/* Finish a loop of sqlite3_step() that ended with @rc (or @ret from a callback). */
static int finish(struct tdb *db, sqlite3_stmt *st, int rc, int ret)
{
	if (!ret && rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = tdb_sql_error(db, "info");
	sqlite3_finalize(st);
	return ret;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

int tdb_info_counts(struct tdb *db, int64_t *nr_markers, int64_t *nr_lost)
{
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, ret;

	*nr_markers = *nr_lost = 0;
	ret = query(db, "SELECT (SELECT count(*) FROM markers), (SELECT coalesce(sum(CASE WHEN "
		    "count > 0 THEN count ELSE 0 END), 0) FROM lost_events)", -1, &st);
	if (ret)
		return ret;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*nr_markers = sqlite3_column_int64(st, 0);
		*nr_lost = sqlite3_column_int64(st, 1);
	}
	return finish(db, st, rc, 0);
}

int tdb_info_lost_by_cpu(struct tdb *db, int (*fn)(void *arg, const struct tdb_lost_cpu *l),
			 void *arg)
{
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, ret;

	ret = query(db, "SELECT cpu, count(*), sum(CASE WHEN count > 0 THEN count ELSE 0 END), "
		    "sum(count < 0) FROM lost_events GROUP BY cpu ORDER BY cpu", -1, &st);
	if (ret)
		return ret;
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct tdb_lost_cpu l = {
			.cpu = sqlite3_column_int(st, 0), .gaps = sqlite3_column_int64(st, 1),
			.lost = sqlite3_column_int64(st, 2),
			.unknown_gaps = sqlite3_column_int64(st, 3),
		};

		ret = fn(arg, &l);
	}
	return finish(db, st, rc, ret);
}

int tdb_info_zones(struct tdb *db, int (*fn)(void *arg, const struct tdb_zone_info *z),
		   void *arg)
{
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, ret;

	ret = query(db, "SELECT node, zone, start_pfn, spanned, present, managed, free FROM zones "
		    "WHERE snap = (SELECT min(snap) FROM zones) ORDER BY node, start_pfn", -1,
		    &st);
	if (ret)
		return ret;
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct tdb_zone_info z = {
			.node = sqlite3_column_int(st, 0), .zone = col_text(st, 1),
			.start_pfn = sqlite3_column_int64(st, 2),
			.spanned = sqlite3_column_int64(st, 3),
			.present = sqlite3_column_int64(st, 4),
			.managed = sqlite3_column_int64(st, 5),
			.free = sqlite3_column_int64(st, 6),
		};

		ret = fn(arg, &z);
	}
	return finish(db, st, rc, ret);
}

int tdb_info_snapshots(struct tdb *db, int (*fn)(void *arg, const struct tdb_snapshot_info *s),
		       void *arg)
{
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, ret;

	ret = query(db, "SELECT id, label, ts_begin, ts_end, nr_pfns, complete FROM snapshots "
		    "ORDER BY id", -1, &st);
	if (ret)
		return ret;
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct tdb_snapshot_info s = {
			.id = sqlite3_column_int64(st, 0), .label = col_text(st, 1),
			.aligned = sqlite3_column_type(st, 2) != SQLITE_NULL,
			.ts_begin = sqlite3_column_int64(st, 2),
			.ts_end = sqlite3_column_int64(st, 3),
			.nr_pfns = sqlite3_column_int64(st, 4),
			.complete = sqlite3_column_int64(st, 5) != 0,
		};

		ret = fn(arg, &s);
	}
	return finish(db, st, rc, ret);
}

int tdb_info_markers(struct tdb *db, int limit,
		     int (*fn)(void *arg, const struct tdb_marker_info *m), void *arg)
{
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, ret;

	ret = query(db, "SELECT ts, cpu, text FROM markers ORDER BY ts LIMIT ?", limit, &st);
	if (ret)
		return ret;
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct tdb_marker_info m = {
			.ts = sqlite3_column_int64(st, 0), .cpu = sqlite3_column_int(st, 1),
			.text = col_text(st, 2),
		};

		ret = fn(arg, &m);
	}
	return finish(db, st, rc, ret);
}

int tdb_info_snapshot_size(struct tdb *db, int64_t snap, int64_t *nr_pfns, int64_t *bytes)
{
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, ret;

	*nr_pfns = *bytes = 0;
	ret = query(db, "SELECT s.nr_pfns, (SELECT total(length(data)) FROM snapshot_pages "
		    "WHERE snap = s.id) FROM snapshots s WHERE s.id = ?", snap, &st);
	if (ret)
		return ret;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*nr_pfns = sqlite3_column_int64(st, 0);
		*bytes = sqlite3_column_int64(st, 1);
	}
	return finish(db, st, rc, 0);
}
