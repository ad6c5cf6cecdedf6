// SPDX-License-Identifier: GPL-2.0
/*
 * tdb-results: the result writer (see tdb-results.h). Owns the run's transaction and
 * its statements, prepared on first use and finalized when the run ends.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-local.h"
#include "db/tdb-results.h"

enum res_stmt {
	RS_SCORE,
	RS_ANOMALY,
	RS_PRED_RUN,
	RS_PRED_NEXT_ID,
	RS_PRED,
	RS_CAND,
	RS_VERIFY,
	RS_CHECK_RUN,
	RS_CHECK_RESULT,
	RS_CHECK_VIOL,
	RS_TEACHER,
	RS_TEACHER_DIS,
	RS_SIM,
	RS_NR,
};

static const struct {
	const char *table;		/* for messages */
	const char *sql;
} res_sql[RS_NR] = {
	[RS_SCORE] = { "replay_scores", "INSERT INTO replay_scores VALUES (?, ?, ?, ?, ?, ?, ?, "
		       "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" },
	[RS_ANOMALY] = { "replay_anomalies", "INSERT INTO replay_anomalies VALUES "
			 "(?, ?, ?, ?, ?, ?)" },
	[RS_PRED_RUN] = { "prediction_runs", "INSERT INTO prediction_runs (mode, policy, "
			  "nr_pages, count, range_start, range_end, align_order, command) "
			  "VALUES (?,?,?,?,?,?,?,?)" },
	[RS_PRED_NEXT_ID] = { "predictions", "SELECT coalesce(max(id), 0) + 1 FROM predictions "
			      "WHERE run = ?" },
	[RS_PRED] = { "predictions", "INSERT INTO predictions (run, id, seq, ts, idx, success, "
		      "start_pfn, end_pfn, migrate_pages, migrate_thp, migrate_file, "
		      "nr_candidates, blocker_pfn, blocker_kind, blocker_reason, blocker_seq, "
		      "blocker_ts, blocker_cpu, blocker_pid, blocker_comm, blocker_order, "
		      "blocker_gfp, blocker_mt, assumptions) VALUES "
		      "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)" },
	[RS_CAND] = { "prediction_candidates", "INSERT INTO prediction_candidates (run, answer, "
		      "idx, start_pfn, end_pfn, verdict, pfn, migrate_pages) VALUES "
		      "(?,?,?,?,?,?,?,?)" },
	[RS_VERIFY] = { "verify_results", "INSERT INTO verify_results (run, idx, kind, probe, "
			"seq, ts, start_pfn, end_pfn, kernel_success, kernel_pfn, kernel_ranges, "
			"predicted_success, predicted_pfn, predicted_ranges, agree, "
			"depends_on_pins, why) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)" },
	[RS_CHECK_RUN] = { "check_runs", "INSERT INTO check_runs (events, attempts, "
			   "lost_windows, replayed) VALUES (?, ?, ?, ?)" },
	[RS_CHECK_RESULT] = { "check_results", "INSERT INTO check_results (run, checker, "
			      "status, checks, violations, inconclusive, explained) VALUES "
			      "(?, ?, ?, ?, ?, ?, ?)" },
	[RS_CHECK_VIOL] = { "check_violations", "INSERT INTO check_violations VALUES "
			    "(?, ?, ?, ?, ?, ?, ?, ?, ?)" },
	[RS_TEACHER] = { "simulate_teacher", "INSERT INTO simulate_teacher VALUES (?, ?, ?, ?)" },
	[RS_TEACHER_DIS] = { "simulate_disagreements", "INSERT INTO simulate_disagreements "
			     "VALUES (?, ?, ?, ?, ?, ?, ?, ?)" },
	[RS_SIM] = { "simulate_figures", "INSERT INTO simulate_figures VALUES (?, ?, ?, ?, ?)" },
};

struct tdb_results {
	struct tdb *db;
	sqlite3_stmt *st[RS_NR];
	int err;			/* first error, 0 while the run is good */
	bool checked_explained;		/* check_results.explained is there */
	bool checked_free_err;		/* replay_scores.buddyinfo_free_err is there */
	bool checked_order_err;		/* ... and buddyinfo_order_err */
};

int tdb_results_begin(struct tdb *db, struct tdb_results **out)
{
	struct tdb_results *w;
	int ret;

	*out = NULL;
	if (db->readonly)
		return bc_error(BC_E_INVAL, "%s: opened read-only: results cannot be stored",
				db->path);
	if (db->results)
		return bc_error(BC_E_INVAL, "%s: a stored run is already open", db->path);
	/* A run is its own transaction: what an event writer buffered goes in first. */
	ret = tdb_flush(db);
	if (!ret)
		ret = tdb_commit(db);
	if (ret)
		return ret;
	w = calloc(1, sizeof(*w));
	if (!w)
		return bc_error(BC_E_NOMEM, "out of memory");
	w->db = db;
	ret = tdb_exec(db, "BEGIN IMMEDIATE");
	if (ret) {
		free(w);
		return bc_error_prefix(ret, "storing results");
	}
	db->results = w;
	*out = w;
	return 0;
}

static void results_free(struct tdb_results *w)
{
	int i;

	for (i = 0; i < RS_NR; i++)
		sqlite3_finalize(w->st[i]);
	if (w->db->results == w)
		w->db->results = NULL;
	free(w);
}

/*
 * After an error SQLite may already have rolled the transaction back itself (a full
 * disk, an I/O error): ROLLBACK only while one is open, and without touching the
 * message of the error that brought us here.
 */
void tdb_results_abort(struct tdb_results *w)
{
	if (!w)
		return;
	if (!sqlite3_get_autocommit(w->db->sq))
		sqlite3_exec(w->db->sq, "ROLLBACK", NULL, NULL, NULL);
	results_free(w);
}

int tdb_results_commit(struct tdb_results *w)
{
	int ret;

	if (w->err)
		return w->err;
	if (sqlite3_get_autocommit(w->db->sq))
		ret = bc_error(BC_E_DB, "%s: the transaction of the run was rolled back",
			       w->db->path);
	else if (sqlite3_exec(w->db->sq, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		ret = tdb_sql_error(w->db, "commit");
	else
		ret = 0;
	if (ret) {
		w->err = ret;
		return ret;
	}
	results_free(w);
	return 0;
}

static int fail(struct tdb_results *w, int ret)
{
	if (!w->err)
		w->err = ret;
	return ret;
}

/* A column that came late in version 2: add it to files without it, once per run. */
static int ensure_column(struct tdb_results *w, const char *table, const char *column,
			 const char *type, bool *checked)
{
	sqlite3_stmt *st;
	char *sql;
	int n, ret = 0;

	if (*checked)
		return 0;
	if (sqlite3_prepare_v2(w->db->sq, "SELECT count(*) FROM pragma_table_info(?1) "
			       "WHERE name = ?2", -1, &st, NULL) != SQLITE_OK)
		return tdb_sql_error(w->db, table);
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 1;
	sqlite3_finalize(st);
	if (!n) {
		sql = sqlite3_mprintf("ALTER TABLE %s ADD COLUMN %s %s", table, column, type);
		if (!sql)
			return bc_error(BC_E_NOMEM, "%s: out of memory", w->db->path);
		ret = tdb_exec(w->db, sql);
		sqlite3_free(sql);
	}
	if (!ret)
		*checked = true;
	return ret;
}

/* The statement @s, prepared on its first use in the run, unbound. */
static int stmt(struct tdb_results *w, enum res_stmt s, sqlite3_stmt **out)
{
	int ret;

	*out = NULL;
	if (w->err)
		return w->err;
	ret = 0;
	if (s == RS_CHECK_RESULT)
		ret = ensure_column(w, "check_results", "explained", "INTEGER",
				    &w->checked_explained);
	else if (s == RS_SCORE)
		ret = ensure_column(w, "replay_scores", "buddyinfo_free_err", "REAL",
				    &w->checked_free_err);
	if (!ret && s == RS_SCORE)
		ret = ensure_column(w, "replay_scores", "buddyinfo_order_err", "REAL",
				    &w->checked_order_err);
	if (ret)
		return fail(w, ret);
	if (!w->st[s] && sqlite3_prepare_v3(w->db->sq, res_sql[s].sql, -1,
					    SQLITE_PREPARE_PERSISTENT, &w->st[s],
					    NULL) != SQLITE_OK)
		return fail(w, tdb_sql_error(w->db, res_sql[s].table));
	*out = w->st[s];
	return 0;
}

/* Step an INSERT (or a one-row SELECT into *@row) and reset it for the next row. */
static int step(struct tdb_results *w, enum res_stmt s, int64_t *row)
{
	sqlite3_stmt *st = w->st[s];
	int rc, ret = 0;

	rc = sqlite3_step(st);
	if (row && rc == SQLITE_ROW)
		*row = sqlite3_column_int64(st, 0);
	else if (row && rc == SQLITE_DONE)
		*row = sqlite3_last_insert_rowid(w->db->sq);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = tdb_sql_error(w->db, res_sql[s].table);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret ? fail(w, ret) : 0;
}

int tdb_results_replay_clear(struct tdb_results *w)
{
	int ret;

	if (w->err)
		return w->err;
	ret = tdb_exec(w->db, "DELETE FROM replay_scores; DELETE FROM replay_anomalies;");
	return ret ? fail(w, ret) : 0;
}

int tdb_results_simulate_clear(struct tdb_results *w)
{
	int ret;

	if (w->err)
		return w->err;
	/* a version-2 file written before simulate_figures existed: the schema creates
	 * only what is missing */
	ret = tdb_exec(w->db, tdb_schema_sql);
	if (!ret)
		ret = tdb_exec(w->db, "DELETE FROM simulate_figures;");
	return ret ? fail(w, ret) : 0;
}

int tdb_results_simulate_figure(struct tdb_results *w, int64_t snap, const char *side,
				const char *zone, const char *name, int64_t value)
{
	sqlite3_stmt *st;
	int ret = stmt(w, RS_SIM, &st);

	if (ret)
		return ret;
	if (snap >= 0)
		sqlite3_bind_int64(st, 1, snap);
	sqlite3_bind_text(st, 2, side, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, zone ? zone : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, value);
	return step(w, RS_SIM, NULL);
}

int tdb_results_replay_score(struct tdb_results *w, const struct tdb_replay_score *s)
{
	sqlite3_stmt *st;
	int ret = stmt(w, RS_SCORE, &st);

	if (ret)
		return ret;
	TDB_BIND_INTS(st, 1, s->snap, (int64_t)s->ts, (int64_t)s->seq, (int64_t)s->pfns_compared,
		      (int64_t)s->pfns_changed, (int64_t)s->pfns_uncertain,
		      (int64_t)s->state_agree, (int64_t)s->kind_compared, (int64_t)s->kind_agree);
	sqlite3_bind_double(st, 10, s->pfn_agree_state);
	sqlite3_bind_double(st, 11, s->pfn_agree_kind);
	sqlite3_bind_double(st, 12, s->buddyinfo_max_rel_err);
	sqlite3_bind_double(st, 13, s->pagetypeinfo_max_rel_err);
	TDB_BIND_INTS(st, 14, (int64_t)s->model_free_kernel_used,
		      (int64_t)s->model_used_kernel_free, (int64_t)s->resynced_pfns);
	sqlite3_bind_double(st, 17, s->buddyinfo_free_err);
	sqlite3_bind_double(st, 18, s->buddyinfo_order_err);
	return step(w, RS_SCORE, NULL);
}

int tdb_results_replay_anomaly(struct tdb_results *w, const struct tdb_replay_anomaly *a)
{
	sqlite3_stmt *st;
	int ret = stmt(w, RS_ANOMALY, &st);

	if (ret)
		return ret;
	sqlite3_bind_text(st, 1, a->class_name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (int64_t)a->count);
	if (a->has_first)
		TDB_BIND_INTS(st, 3, (int64_t)a->first_seq, (int64_t)a->first_ts,
			      (int64_t)a->first_pfn, (int)a->first_order);
	return step(w, RS_ANOMALY, NULL);
}

int tdb_results_prediction_run(struct tdb_results *w, const struct tdb_prediction_run *r,
			       int64_t *run)
{
	sqlite3_stmt *st;
	int ret = stmt(w, RS_PRED_RUN, &st);

	if (ret)
		return ret;
	sqlite3_bind_text(st, 1, r->mode, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, r->policy, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, (int64_t)r->nr_pages);
	sqlite3_bind_int(st, 4, (int)r->count);
	tdb_bind_u64(st, 5, r->range_start);
	tdb_bind_u64(st, 6, r->range_end);
	if (r->align_order >= 0)
		sqlite3_bind_int(st, 7, r->align_order);
	tdb_bind_text_opt(st, 8, r->command);
	return step(w, RS_PRED_RUN, run);
}

static void bind_blocker(sqlite3_stmt *st, const struct tdb_prediction *p)
{
	sqlite3_bind_int64(st, 13, (int64_t)p->blocker_pfn);
	sqlite3_bind_text(st, 14, p->blocker_kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 15, p->blocker_reason, -1, SQLITE_TRANSIENT);
	if (!p->blocker_has_event)
		return;
	TDB_BIND_INTS(st, 16, (int64_t)p->blocker_seq, (int64_t)p->blocker_ts, p->blocker_cpu,
		      p->blocker_pid);
	tdb_bind_text_opt(st, 20, p->blocker_comm);
	TDB_BIND_INTS(st, 21, (int)p->blocker_order, (int64_t)p->blocker_gfp, p->blocker_mt);
}

int tdb_results_prediction(struct tdb_results *w, int64_t run, const struct tdb_prediction *p,
			   int64_t *id)
{
	sqlite3_stmt *st;
	int64_t next = 1;
	int ret = stmt(w, RS_PRED_NEXT_ID, &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run);
	ret = step(w, RS_PRED_NEXT_ID, &next);
	if (!ret)
		ret = stmt(w, RS_PRED, &st);
	if (ret)
		return ret;
	TDB_BIND_INTS(st, 1, run, next, (int64_t)p->seq, (int64_t)p->ts, (int)p->idx,
		      p->success);
	tdb_bind_u64(st, 7, p->start_pfn);
	tdb_bind_u64(st, 8, p->end_pfn);
	TDB_BIND_INTS(st, 9, (int64_t)p->migrate_pages, (int64_t)p->migrate_thp,
		      (int64_t)p->migrate_file, (int)p->nr_candidates);
	if (p->has_blocker)
		bind_blocker(st, p);
	tdb_bind_text_opt(st, 24, p->assumptions);
	ret = step(w, RS_PRED, NULL);
	if (!ret && id)
		*id = next;
	return ret;
}

int tdb_results_candidate(struct tdb_results *w, int64_t run, int64_t answer,
			  const struct tdb_prediction_candidate *c)
{
	sqlite3_stmt *st;
	int ret = stmt(w, RS_CAND, &st);

	if (ret)
		return ret;
	TDB_BIND_INTS(st, 1, run, answer, (int)c->idx, (int64_t)c->start_pfn,
		      (int64_t)c->end_pfn);
	sqlite3_bind_text(st, 6, c->verdict, -1, SQLITE_TRANSIENT);
	tdb_bind_u64(st, 7, c->pfn);
	sqlite3_bind_int64(st, 8, (int64_t)c->migrate_pages);
	return step(w, RS_CAND, NULL);
}

int tdb_results_verify(struct tdb_results *w, int64_t run, const struct tdb_verify_row *v)
{
	sqlite3_stmt *st;
	int ret = stmt(w, RS_VERIFY, &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int(st, 2, (int)v->idx);
	sqlite3_bind_text(st, 3, v->kind, -1, SQLITE_TRANSIENT);
	if (v->probe >= 0)
		sqlite3_bind_int64(st, 4, v->probe);
	sqlite3_bind_int64(st, 5, (int64_t)v->seq);
	sqlite3_bind_int64(st, 6, (int64_t)v->ts);
	if (v->has_range) {
		sqlite3_bind_int64(st, 7, (int64_t)v->start_pfn);
		sqlite3_bind_int64(st, 8, (int64_t)v->end_pfn);
	}
	sqlite3_bind_int(st, 9, v->kernel_success);
	tdb_bind_u64(st, 10, v->kernel_pfn);
	if (v->kernel_ranges)
		sqlite3_bind_text(st, 11, v->kernel_ranges, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 12, v->predicted_success);
	tdb_bind_u64(st, 13, v->predicted_pfn);
	if (v->predicted_ranges)
		sqlite3_bind_text(st, 14, v->predicted_ranges, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 15, v->agree);
	sqlite3_bind_int(st, 16, v->depends_on_pins);
	tdb_bind_text_opt(st, 17, v->why);
	return step(w, RS_VERIFY, NULL);
}

int tdb_results_check_run(struct tdb_results *w, const struct tdb_check_run *r, int64_t *run)
{
	sqlite3_stmt *st;
	int ret = stmt(w, RS_CHECK_RUN, &st);

	if (ret)
		return ret;
	TDB_BIND_INTS(st, 1, (int64_t)r->events, (int64_t)r->attempts, (int64_t)r->lost_windows,
		      r->replayed);
	return step(w, RS_CHECK_RUN, run);
}

int tdb_results_check_result(struct tdb_results *w, int64_t run,
			     const struct tdb_check_result *r)
{
	sqlite3_stmt *st;
	int ret = stmt(w, RS_CHECK_RESULT, &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, r->checker, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, r->status, -1, SQLITE_TRANSIENT);
	TDB_BIND_INTS(st, 4, (int64_t)r->checks, (int64_t)r->violations,
		      (int64_t)r->inconclusive, (int64_t)r->explained);
	return step(w, RS_CHECK_RESULT, NULL);
}

int tdb_results_check_violation(struct tdb_results *w, int64_t run,
				const struct tdb_check_violation *v)
{
	sqlite3_stmt *st;
	int ret = stmt(w, RS_CHECK_VIOL, &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, v->checker, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, v->rule, -1, SQLITE_TRANSIENT);
	if (v->has_seq) {
		sqlite3_bind_int64(st, 4, (int64_t)v->seq);
		sqlite3_bind_int64(st, 5, (int64_t)v->ts);
	}
	if (v->cpu >= 0)
		sqlite3_bind_int(st, 6, v->cpu);
	tdb_bind_u64(st, 7, v->pfn);
	sqlite3_bind_int(st, 8, (int)v->order);
	sqlite3_bind_text(st, 9, v->text, -1, SQLITE_TRANSIENT);
	return step(w, RS_CHECK_VIOL, NULL);
}

int tdb_results_teacher_clear(struct tdb_results *w)
{
	int ret;

	if (w->err)
		return w->err;
	/* tables that came late in version 2: the schema creates just what is missing */
	ret = tdb_exec(w->db, tdb_schema_sql);
	if (!ret)
		ret = tdb_exec(w->db, "DELETE FROM simulate_teacher; "
			       "DELETE FROM simulate_disagreements;");
	return ret ? fail(w, ret) : 0;
}

int tdb_results_teacher(struct tdb_results *w, const char *key, uint64_t requests,
			uint64_t same_pfn, uint64_t same_pageblock)
{
	sqlite3_stmt *st;
	int ret = stmt(w, RS_TEACHER, &st);

	if (ret)
		return ret;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (int64_t)requests);
	if (same_pfn != UINT64_MAX)
		TDB_BIND_INTS(st, 3, (int64_t)same_pfn, (int64_t)same_pageblock);
	return step(w, RS_TEACHER, NULL);
}

int tdb_results_teacher_disagreement(struct tdb_results *w, const struct tdb_teacher_dis *d)
{
	sqlite3_stmt *st;
	int ret = stmt(w, RS_TEACHER_DIS, &st);

	if (ret)
		return ret;
	TDB_BIND_INTS(st, 1, (int64_t)d->seq, d->cpu, (int)d->order, (int64_t)d->kernel_pfn);
	if (d->model_pfn != UINT64_MAX)
		sqlite3_bind_int64(st, 5, (int64_t)d->model_pfn);
	sqlite3_bind_text(st, 6, d->kernel_source, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, d->model_source, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 8, d->why, -1, SQLITE_TRANSIENT);
	return step(w, RS_TEACHER_DIS, NULL);
}
