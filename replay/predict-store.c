// SPDX-License-Identifier: GPL-2.0
/*
 * predict-store: answers and verify results into the capture (tables
 * prediction_runs, predictions, prediction_candidates, verify_results: part of the
 * capture schema, db/schema.sql; documented in db/README.md).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "replay/predict-local.h"

static int db_err(struct tdb *db, const char *what)
{
	return bc_error(BC_E_DB, "predict: %s: %s", what, sqlite3_errmsg(tdb_sqlite(db)));
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	if (v == UINT64_MAX)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, (int64_t)v);
}

int64_t pr_store_begin(struct tdb *db, const struct pr_opts *o, const char *mode,
		       const char *cmdline)
{
	sqlite3 *sq = tdb_sqlite(db);
	sqlite3_stmt *st;
	int ret;

	if (sqlite3_prepare_v2(sq, "INSERT INTO prediction_runs (mode, policy, nr_pages, count, "
			       "range_start, range_end, align_order, command) VALUES "
			       "(?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return db_err(db, "prepare");
	sqlite3_bind_text(st, 1, mode, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, o->offline ? "offline" : pr_policy_name(o->policy), -1,
			  SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)o->nr_pages);
	sqlite3_bind_int(st, 4, (int)(o->count ? o->count : 1));
	bind_u64(st, 5, o->has_range ? o->range_start : UINT64_MAX);
	bind_u64(st, 6, o->has_range ? o->range_end : UINT64_MAX);
	if (o->align_order >= 0)
		sqlite3_bind_int(st, 7, o->align_order);
	else
		sqlite3_bind_null(st, 7);
	if (cmdline)
		sqlite3_bind_text(st, 8, cmdline, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 8);
	ret = sqlite3_step(st);
	sqlite3_finalize(st);
	if (ret != SQLITE_DONE)
		return db_err(db, "insert into prediction_runs");
	return sqlite3_last_insert_rowid(sq);
}

static void assumption_list(unsigned int bits, char *buf, size_t size)
{
	unsigned int b;
	size_t len = 0;

	buf[0] = 0;
	for (b = 0; b < PR_NR_ASSUME; b++)
		if (bits & (1u << b))
			len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
						len ? "," : "", pr_assumption_name(b));
}

int pr_store_answer(struct tdb *db, int64_t run, const struct pr_answer *a)
{
	sqlite3 *sq = tdb_sqlite(db);
	const struct pr_blocker *b = &a->blocker;
	sqlite3_stmt *st, *sc;
	char assume[256];
	int64_t id = 1;
	unsigned int i;
	int ret;

	if (sqlite3_prepare_v2(sq, "SELECT coalesce(max(id), 0) + 1 FROM predictions WHERE run = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(db, "prepare");
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);

	if (sqlite3_prepare_v2(sq, "INSERT INTO predictions (run, id, seq, ts, idx, success, "
			       "start_pfn, end_pfn, migrate_pages, migrate_thp, migrate_file, "
			       "nr_candidates, blocker_pfn, blocker_kind, blocker_reason, blocker_seq, "
			       "blocker_ts, blocker_cpu, blocker_pid, blocker_comm, blocker_order, "
			       "blocker_gfp, blocker_mt, assumptions) VALUES "
			       "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return db_err(db, "prepare");
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_int64(st, 3, (int64_t)a->at_seq);
	sqlite3_bind_int64(st, 4, (int64_t)a->at_ts);
	sqlite3_bind_int(st, 5, (int)a->index);
	sqlite3_bind_int(st, 6, a->success);
	bind_u64(st, 7, a->start_pfn);
	bind_u64(st, 8, a->end_pfn);
	sqlite3_bind_int64(st, 9, (int64_t)a->migrate_pages);
	sqlite3_bind_int64(st, 10, (int64_t)a->migrate_thp);
	sqlite3_bind_int64(st, 11, (int64_t)a->migrate_file);
	sqlite3_bind_int(st, 12, (int)a->nr_cand);
	if (a->has_blocker) {
		sqlite3_bind_int64(st, 13, (int64_t)b->pfn);
		sqlite3_bind_text(st, 14, b->state == MODEL_PFN_ALLOC ? model_kind_name(b->kind) :
				  b->state == MODEL_PFN_HOLE ? "hole" :
				  b->state == MODEL_PFN_UNINIT ? "uninit" :
				  b->state == MODEL_PFN_PCP ? "pcp" : "free", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 15, b->reason, -1, SQLITE_STATIC);
		if (b->ev.found) {
			sqlite3_bind_int64(st, 16, (int64_t)b->ev.seq);
			sqlite3_bind_int64(st, 17, (int64_t)b->ev.ts);
			sqlite3_bind_int(st, 18, b->ev.cpu);
			sqlite3_bind_int(st, 19, b->ev.pid);
			if (b->ev.comm[0])
				sqlite3_bind_text(st, 20, b->ev.comm, -1, SQLITE_STATIC);
			sqlite3_bind_int(st, 21, (int)b->ev.order);
			sqlite3_bind_int64(st, 22, (int64_t)b->ev.gfp);
			sqlite3_bind_int(st, 23, b->ev.mt);
		}
	}
	assumption_list(a->assumptions, assume, sizeof(assume));
	if (assume[0])
		sqlite3_bind_text(st, 24, assume, -1, SQLITE_STATIC);
	ret = sqlite3_step(st);
	sqlite3_finalize(st);
	if (ret != SQLITE_DONE)
		return db_err(db, "insert into predictions");

	if (sqlite3_prepare_v2(sq, "INSERT INTO prediction_candidates (run, answer, idx, start_pfn, "
			       "end_pfn, verdict, pfn, migrate_pages) VALUES (?,?,?,?,?,?,?,?)", -1,
			       &sc, NULL) != SQLITE_OK)
		return db_err(db, "prepare");
	for (i = 0; i < a->nr_cand; i++) {
		const struct pr_candidate *cd = &a->cand[i];

		sqlite3_bind_int64(sc, 1, run);
		sqlite3_bind_int64(sc, 2, id);
		sqlite3_bind_int(sc, 3, (int)i);
		sqlite3_bind_int64(sc, 4, (int64_t)cd->start_pfn);
		sqlite3_bind_int64(sc, 5, (int64_t)cd->end_pfn);
		sqlite3_bind_text(sc, 6, pr_verdict_name(cd->verdict), -1, SQLITE_STATIC);
		bind_u64(sc, 7, cd->pfn);
		sqlite3_bind_int64(sc, 8, (int64_t)cd->migrate_pages);
		ret = sqlite3_step(sc);
		sqlite3_reset(sc);
		sqlite3_clear_bindings(sc);
		if (ret != SQLITE_DONE) {
			sqlite3_finalize(sc);
			return db_err(db, "insert into prediction_candidates");
		}
	}
	sqlite3_finalize(sc);
	return 0;
}
