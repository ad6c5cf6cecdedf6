// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the tables that go with the events: markers, lost_events, comms, stacks,
 * probes, probe_pages, and the time bounds of event_chunks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-local.h"
#include "db/tdb-trace.h"

static int prepare(struct tdb *db, const char *sql, const char *what, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db->sq, sql, -1, st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, what);
	return 0;
}

static const struct tdb_col marker_cols[] = {
	TDB_COL(INT, struct tdb_marker, seq),
	TDB_COL(INT, struct tdb_marker, ts),
	TDB_COL(STRDUP, struct tdb_marker, text),
	TDB_COL(INT, struct tdb_marker, cpu),
};
static const struct tdb_rows marker_rows = TDB_ROWS(struct tdb_marker, marker_cols);

void tdb_markers_free(struct tdb_marker *m, int nr)
{
	int i;

	for (i = 0; m && i < nr; i++)
		free(m[i].text);
	free(m);
}

#define MARKERS_WHERE	"SELECT seq, ts, text, cpu FROM markers WHERE seq >= ?1 AND " \
			"seq <= ?2 AND (?3 IS NULL OR text LIKE ?3) "

static int read_markers(struct tdb *db, bool by_ts, uint64_t seq_from, uint64_t seq_to,
			const char *like, struct tdb_marker **out, int *nr)
{
	sqlite3_stmt *st;
	int i, ret;

	ret = prepare(db, by_ts ? MARKERS_WHERE "ORDER BY ts, seq" :
		      MARKERS_WHERE "ORDER BY seq, ts", "markers", &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, (int64_t)(seq_from > INT64_MAX ? INT64_MAX : seq_from));
	sqlite3_bind_int64(st, 2, (int64_t)(seq_to > INT64_MAX ? INT64_MAX : seq_to));
	if (like)
		sqlite3_bind_text(st, 3, like, -1, SQLITE_STATIC);
	ret = tdb_read_rows(db, st, &marker_rows, "markers", (void **)out, nr);
	if (ret)
		return ret;
	for (i = 0; i < *nr; i++)
		if (!(*out)[i].text) {
			tdb_markers_free(*out, *nr);
			return bc_error(BC_E_NOMEM, "markers: out of memory");
		}
	return 0;
}

int tdb_markers(struct tdb *db, uint64_t seq_from, uint64_t seq_to, const char *like,
		struct tdb_marker **out, int *nr)
{
	return read_markers(db, false, seq_from, seq_to, like, out, nr);
}

int tdb_markers_by_ts(struct tdb *db, const char *like, struct tdb_marker **out, int *nr)
{
	return read_markers(db, true, 0, UINT64_MAX, like, out, nr);
}

int tdb_marker_find(struct tdb *db, const char *prefix, bool by_ts, uint64_t *seq, uint64_t *ts)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = prepare(db, by_ts ? "SELECT seq, ts FROM markers WHERE substr(text, 1, length(?1)) "
			  "= ?1 ORDER BY ts, seq LIMIT 1" :
			  "SELECT seq, ts FROM markers WHERE substr(text, 1, length(?1)) = ?1 "
			  "ORDER BY seq LIMIT 1", "markers", &st);
	if (ret)
		return ret;
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*seq = (uint64_t)sqlite3_column_int64(st, 0);
		*ts = (uint64_t)sqlite3_column_int64(st, 1);
		ret = 1;
	} else if (rc != SQLITE_DONE) {
		ret = tdb_sql_error(db, "markers");
	}
	sqlite3_finalize(st);
	return ret;
}

static const struct tdb_col lost_cols[] = {
	TDB_COL(INT, struct tdb_lost, seq),
	TDB_COL(INT, struct tdb_lost, cpu),
	TDB_COL(INT, struct tdb_lost, count),
};
static const struct tdb_rows lost_rows = TDB_ROWS(struct tdb_lost, lost_cols);

int tdb_lost_list(struct tdb *db, struct tdb_lost **out, int *nr)
{
	return tdb_query_rows(db, "SELECT seq, cpu, count FROM lost_events ORDER BY seq", 0,
			      &lost_rows, "lost_events", (void **)out, nr);
}

/* Step @st (bound) once: 1 with a non-NULL first column, 0 without, or a bc_err. */
static int one_row(struct tdb *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return sqlite3_column_type(st, 0) != SQLITE_NULL;
	return rc == SQLITE_DONE ? 0 : tdb_sql_error(db, what);
}

int tdb_chunk_seq_at(struct tdb *db, uint64_t ts, uint64_t *seq)
{
	sqlite3_stmt *st;
	int ret;

	ret = prepare(db, "SELECT min(first_seq) FROM event_chunks WHERE ts_last >= ?",
		      "event_chunks", &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, (int64_t)ts);
	*seq = 0;
	ret = one_row(db, st, "event_chunks");
	if (ret == 1)
		*seq = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return ret < 0 ? ret : 0;
}

/*
 * Events are in time order, so the first event with ts >= @t (@strict: ts > @t) is in
 * the last chunk starting before @t (or at @t when strict), or is the next chunk's
 * first event.
 */
int tdb_seq_at_ts(struct tdb *db, int64_t t, bool strict, int64_t *seq)
{
	struct tdb_cursor *cur;
	struct bc_event ev;
	sqlite3_stmt *st;
	int64_t first = 0, n = 0;
	int ret;

	ret = prepare(db, strict ?
		      "SELECT first_seq, n FROM event_chunks WHERE ts_first <= ? "
		      "ORDER BY ts_first DESC, first_seq DESC LIMIT 1" :
		      "SELECT first_seq, n FROM event_chunks WHERE ts_first < ? "
		      "ORDER BY ts_first DESC, first_seq DESC LIMIT 1", "event_chunks", &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, t);
	*seq = 0;
	ret = one_row(db, st, "event_chunks");
	if (ret == 1) {
		first = sqlite3_column_int64(st, 0);
		n = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (ret <= 0)
		return ret;
	*seq = first + n;
	ret = tdb_cursor_open(db, (uint64_t)first, (uint64_t)(first + n), &cur);
	if (ret)
		return ret;
	while ((ret = tdb_cursor_next(cur, &ev)) == 1) {
		if (strict ? (int64_t)ev.ts > t : (int64_t)ev.ts >= t) {
			*seq = (int64_t)ev.seq;
			break;
		}
	}
	tdb_cursor_close(cur);
	return ret < 0 ? ret : 0;
}

int tdb_ts_bounds(struct tdb *db, uint64_t *first, uint64_t *last)
{
	sqlite3_stmt *st;
	int ret;

	ret = prepare(db, "SELECT min(ts_first), max(ts_last) FROM event_chunks", "event_chunks",
		      &st);
	if (ret)
		return ret;
	ret = one_row(db, st, "event_chunks");
	if (ret == 1) {
		*first = (uint64_t)sqlite3_column_int64(st, 0);
		*last = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (!ret)
		return bc_error(BC_E_NOENT, "%s: the capture has no events", db->path);
	return ret < 0 ? ret : 0;
}

/* The text of @sql's first row (?1 = @key) into *@dup, NULL when none. */
static int text_of(struct tdb *db, const char *sql, int64_t key, char **dup)
{
	sqlite3_stmt *st;
	int ret;

	*dup = NULL;
	ret = prepare(db, sql, sql, &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, key);
	ret = one_row(db, st, sql);
	if (ret == 1) {
		*dup = strdup((const char *)sqlite3_column_text(st, 0));
		ret = *dup ? 0 : bc_error(BC_E_NOMEM, "out of memory");
	}
	sqlite3_finalize(st);
	return ret < 0 ? ret : 0;
}

int tdb_comm(struct tdb *db, int pid, char *buf, size_t size)
{
	char *t;
	int ret = text_of(db, "SELECT comm FROM comms WHERE pid = ?", pid, &t);

	if (size)
		snprintf(buf, size, "%s", t ? t : "");
	free(t);
	return ret;
}

int tdb_stack(struct tdb *db, uint64_t seq, char **frames)
{
	return text_of(db, "SELECT frames FROM stacks WHERE seq = ?", (int64_t)seq, frames);
}

static const struct tdb_col probe_cols[] = {
	TDB_COL(INT, struct tdb_probe, id),
	TDB_COL(TEXT, struct tdb_probe, kind),
	TDB_COL(INT, struct tdb_probe, requested),
	TDB_COL(INT, struct tdb_probe, obtained),
	TDB_COL(INT, struct tdb_probe, success),
	TDB_COL(OPT, struct tdb_probe, start_pfn),
	TDB_COL(OPT, struct tdb_probe, end_pfn),
	TDB_COL(OPT, struct tdb_probe, culprit_pfn),
	TDB_COL(TEXT, struct tdb_probe, culprit),
};
static const struct tdb_rows probe_rows = TDB_ROWS(struct tdb_probe, probe_cols);

/* Schema version 1 files have no probe tables. */
static bool have_table(struct tdb *db, const char *name)
{
	sqlite3_stmt *st;
	bool yes;

	if (prepare(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
		    "sqlite_master", &st))
		return false;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

int tdb_probes(struct tdb *db, struct tdb_probe **out, int *nr)
{
	*out = NULL;
	*nr = 0;
	if (!have_table(db, "probes"))
		return 0;
	return tdb_query_rows(db, "SELECT id, kind, requested, obtained, success, start_pfn, "
			      "end_pfn, culprit_pfn, culprit FROM probes ORDER BY id", 0,
			      &probe_rows, "probes", (void **)out, nr);
}

static const struct tdb_col u64_col[] = { { TDB_COL_INT, 0, sizeof(uint64_t) } };
static const struct tdb_rows u64_rows = { sizeof(uint64_t), u64_col, 1 };

int tdb_probe_pages(struct tdb *db, int64_t probe, uint64_t **pfns, int *nr)
{
	return tdb_query_rows(db, "SELECT start_pfn FROM probe_pages WHERE probe = ? ORDER BY idx",
			      probe, &u64_rows, "probe_pages", (void **)pfns, nr);
}
