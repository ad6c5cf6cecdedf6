// SPDX-License-Identifier: GPL-2.0
/*
 * tdb-snapread: see tdb-snapread.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-local.h"
#include "db/tdb-snapread.h"

int tdb_snap_counts(struct tdb *db, int64_t snap, enum tdb_count_table table,
		    struct snap_order_count **out, int *nr)
{
	static const char *const sql[] = {
		[TDB_BUDDYINFO] = "SELECT node, zone, ord, nr_free, '' FROM buddyinfo "
				  "WHERE snap = ?",
		[TDB_PAGETYPE_FREE] = "SELECT node, zone, ord, nr_free, migratetype FROM "
				      "pagetype_free WHERE snap = ?",
		[TDB_PAGETYPE_BLOCKS] = "SELECT node, zone, -1, nr_blocks, migratetype FROM "
					"pagetype_blocks WHERE snap = ?",
	};
	static const char *const name[] = { "buddyinfo", "pagetype_free", "pagetype_blocks" };
	struct snap_order_count *v = NULL, *r;
	sqlite3_stmt *st;
	int n = 0, cap = 0, rc, ret = 0;

	*out = NULL;
	*nr = 0;
	if (sqlite3_prepare_v2(db->sq, sql[table], -1, &st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, name[table]);
	sqlite3_bind_int64(st, 1, snap);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			r = realloc(v, (size_t)cap * sizeof(*v));
			if (!r) {
				ret = bc_error(BC_E_NOMEM, "out of memory");
				break;
			}
			v = r;
		}
		r = &v[n++];
		r->node = sqlite3_column_int(st, 0);
		snprintf(r->zone, sizeof(r->zone), "%s", (const char *)sqlite3_column_text(st, 1));
		r->ord = sqlite3_column_int(st, 2);
		r->nr = sqlite3_column_int64(st, 3);
		snprintf(r->migratetype, sizeof(r->migratetype), "%s",
			 (const char *)sqlite3_column_text(st, 4));
	}
	if (!ret && rc != SQLITE_DONE)
		ret = tdb_sql_error(db, name[table]);
	sqlite3_finalize(st);
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*nr = n;
	return 0;
}

int tdb_snap_seqs(struct tdb *db, int64_t snap, int64_t *seq_begin, int64_t *seq_end)
{
	sqlite3_stmt *st;
	int rc;

	*seq_begin = *seq_end = -1;
	if (sqlite3_prepare_v2(db->sq, "SELECT seq_begin, seq_end FROM snapshots WHERE id = ?", -1,
			       &st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, "snapshots");
	sqlite3_bind_int64(st, 1, snap);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			*seq_begin = sqlite3_column_int64(st, 0);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			*seq_end = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : tdb_sql_error(db, "snapshots");
}

/* The text column of the one row of @sql for @key, malloc'ed; NULL if none. */
static char *lookup_text(struct tdb *db, const char *sql, int64_t key)
{
	sqlite3_stmt *st;
	char *t = NULL;

	if (sqlite3_prepare_v2(db->sq, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, key);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		t = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return t;
}

void tdb_comm_of(struct tdb *db, int pid, char *buf, size_t size)
{
	char *t = lookup_text(db, "SELECT comm FROM comms WHERE pid = ?", pid);

	if (t && size)
		snprintf(buf, size, "%s", t);
	free(t);
}

char *tdb_stack_of(struct tdb *db, uint64_t seq)
{
	return lookup_text(db, "SELECT frames FROM stacks WHERE seq = ?", (int64_t)seq);
}
