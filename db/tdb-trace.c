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

/* A marker's text is copied after the rows are read: fill only sees one row. */
static void fill_marker(sqlite3_stmt *st, void *row)
{
	struct tdb_marker *m = row;
	const char *t = (const char *)sqlite3_column_text(st, 2);

	m->seq = (uint64_t)sqlite3_column_int64(st, 0);
	m->ts = (uint64_t)sqlite3_column_int64(st, 1);
	m->cpu = sqlite3_column_int(st, 3);
	m->text = strdup(t ? t : "");
}

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
	ret = tdb_read_rows(db, st, sizeof(**out), fill_marker, "markers", (void **)out, nr);
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

static void fill_lost(sqlite3_stmt *st, void *row)
{
	struct tdb_lost *l = row;

	l->seq = (uint64_t)sqlite3_column_int64(st, 0);
	l->cpu = sqlite3_column_int(st, 1);
	l->count = sqlite3_column_int64(st, 2);
}

int tdb_lost_list(struct tdb *db, struct tdb_lost **out, int *nr)
{
	return tdb_query_rows(db, "SELECT seq, cpu, count FROM lost_events ORDER BY seq", 0,
			      sizeof(**out), fill_lost, "lost_events", (void **)out, nr);
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

static void fill_probe(sqlite3_stmt *st, void *row)
{
	struct tdb_probe *p = row;

	p->id = sqlite3_column_int64(st, 0);
	tdb_col_text(st, 1, p->kind, sizeof(p->kind));
	p->requested = sqlite3_column_int64(st, 2);
	p->obtained = sqlite3_column_int64(st, 3);
	p->success = sqlite3_column_int(st, 4) != 0;
	p->start_pfn = tdb_col_opt(st, 5);
	p->end_pfn = tdb_col_opt(st, 6);
	p->culprit_pfn = tdb_col_opt(st, 7);
	tdb_col_text(st, 8, p->culprit, sizeof(p->culprit));
}

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
			      sizeof(**out), fill_probe, "probes", (void **)out, nr);
}

static void fill_u64(sqlite3_stmt *st, void *row)
{
	*(uint64_t *)row = (uint64_t)sqlite3_column_int64(st, 0);
}

int tdb_probe_pages(struct tdb *db, int64_t probe, uint64_t **pfns, int *nr)
{
	return tdb_query_rows(db, "SELECT start_pfn FROM probe_pages WHERE probe = ? ORDER BY idx",
			      probe, sizeof(**pfns), fill_u64, "probe_pages", (void **)pfns, nr);
}
