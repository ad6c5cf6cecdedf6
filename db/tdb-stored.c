// SPDX-License-Identifier: GPL-2.0
/*
 * tdb-stored: stored results read back (tdb-stored.h), one query per kind.
 */
#include <sqlite3.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-local.h"
#include "db/tdb-stored.h"

static const char *const queries[] = {
	[TDB_STORED_PREDICTIONS] =
		"SELECT p.run, r.mode, r.policy, r.nr_pages, p.seq, p.ts, p.idx, p.success, "
		"p.start_pfn, p.blocker_pfn, p.blocker_kind FROM predictions p "
		"JOIN prediction_runs r ON r.id = p.run WHERE r.mode <> 'verify' "
		"ORDER BY p.run, p.id",
	[TDB_STORED_CHECKS] =
		"SELECT checker, status, checks, violations, inconclusive, explained "
		"FROM check_results WHERE run = (SELECT max(run) FROM check_results) "
		"ORDER BY checker",
	[TDB_STORED_VERIFY] =
		"SELECT kind, ts, start_pfn, end_pfn, kernel_success, predicted_success, agree, "
		"depends_on_pins FROM verify_results WHERE run = (SELECT max(run) FROM "
		"verify_results) ORDER BY idx",
	[TDB_STORED_COMPARE] =
		"SELECT layout, size_pages, name, value FROM compare_results ORDER BY rowid",
};

#define MAX_COLS 16

int tdb_stored_rows(struct tdb *db, enum tdb_stored_kind kind,
		    int (*fn)(void *arg, int ncol, const struct tdb_stored_col *cols), void *arg)
{
	struct tdb_stored_col cols[MAX_COLS];
	sqlite3_stmt *st;
	int rc = SQLITE_DONE, n, i, ret = 0;

	if (sqlite3_prepare_v2(db->sq, queries[kind], -1, &st, NULL) != SQLITE_OK) {
		/* a capture written before the result tables existed: nothing stored */
		if (strstr(sqlite3_errmsg(db->sq), "no such table"))
			return 0;
		return tdb_sql_error(db, "reading stored results");
	}
	n = sqlite3_column_count(st);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < n && i < MAX_COLS; i++) {
			cols[i].name = sqlite3_column_name(st, i);
			cols[i].integer = sqlite3_column_type(st, i) == SQLITE_INTEGER;
			cols[i].real = sqlite3_column_type(st, i) == SQLITE_FLOAT;
			cols[i].text = (const char *)sqlite3_column_text(st, i);
		}
		ret = fn(arg, n < MAX_COLS ? n : MAX_COLS, cols);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = tdb_sql_error(db, "reading stored results");
	sqlite3_finalize(st);
	return ret;
}
