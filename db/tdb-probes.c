// SPDX-License-Identifier: GPL-2.0
/*
 * tdb-probes: the probes and probe_pages writers (see tdb-probes.h). Statements are
 * prepared on first use and kept until tdb_close(); rows go into the writer's
 * batched transaction like events.
 */
#include "common/err.h"
#include "db/tdb-local.h"
#include "db/tdb-probes.h"

int64_t tdb_next_probe_id(struct tdb *db)
{
	sqlite3_stmt *st;
	int64_t id = 1;

	if (sqlite3_prepare_v2(db->sq, "SELECT coalesce(max(id), 0) + 1 FROM probes", -1, &st,
			       NULL) != SQLITE_OK)
		return 1;
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

int tdb_add_probe(struct tdb *db, int64_t id, const struct tdb_probe *r)
{
	sqlite3_stmt *st;
	int ret;

	ret = tdb_prepare_once(db, &db->ins_probe, "INSERT INTO probes (id, kind, mono_begin, "
			       "mono_end, requested, obtained, block, start_pfn, end_pfn, success, "
			       "culprit_pfn, culprit, detail, restored) "
			       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	if (ret)
		return ret;
	st = db->ins_probe;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, r->kind, -1, SQLITE_TRANSIENT);
	TDB_BIND_INTS(st, 3, (int64_t)r->mono_begin, (int64_t)r->mono_end, r->requested,
		      r->obtained);
	TDB_BIND_OPTS(st, 7, r->block, r->start_pfn, r->end_pfn);
	sqlite3_bind_int(st, 10, r->success);
	tdb_bind_opt(st, 11, r->culprit_pfn);
	tdb_bind_text_opt(st, 12, r->culprit);
	tdb_bind_text_opt(st, 13, r->detail);
	sqlite3_bind_int(st, 14, r->restored);
	return tdb_step_done(db, st, "probes");
}

int tdb_add_probe_page(struct tdb *db, int64_t probe, int idx, uint64_t start_pfn,
		       uint64_t end_pfn, uint64_t mono)
{
	sqlite3_stmt *st;
	int ret;

	ret = tdb_prepare_once(db, &db->ins_probe_page, "INSERT INTO probe_pages (probe, idx, "
			       "start_pfn, end_pfn, mono) VALUES (?,?,?,?,?)");
	if (ret)
		return ret;
	st = db->ins_probe_page;
	TDB_BIND_INTS(st, 1, probe, idx, (int64_t)start_pfn, (int64_t)end_pfn, (int64_t)mono);
	return tdb_step_done(db, st, "probe_pages");
}
