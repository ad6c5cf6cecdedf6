// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a capture: event types and the event cursor. The cursor walks event_chunks
 * in seq order and decodes one event per call straight from the chunk blob, so replay
 * reads at memory speed rather than SQLite's row rate.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-local.h"

/* Every stored field has its event_fields row (a damaged file may lack some). */
static int check_field_names(struct tdb *db)
{
	int i, j;

	for (i = 0; i < db->types_nr; i++)
		for (j = 0; db->types[i] && j < db->types[i]->nfields; j++)
			if (!db->types[i]->field_names[j])
				return bc_error(BC_E_FORMAT, "%s: event type %d has no field %d in "
						"event_fields", db->path, i, j);
	return 0;
}

int tdb_load_types(struct tdb *db)
{
	sqlite3_stmt *st = NULL;
	int ret = 0, maxid = 0;

	if (sqlite3_prepare_v2(db->sq, "SELECT max(id) FROM event_types", -1, &st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, "event_types");
	if (sqlite3_step(st) == SQLITE_ROW)
		maxid = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);

	db->types = calloc(maxid + 1, sizeof(*db->types));
	if (!db->types)
		return bc_error(BC_E_NOMEM, "out of memory");
	db->types_nr = maxid + 1;

	if (sqlite3_prepare_v2(db->sq, "SELECT t.id, t.system, t.name, t.missing, "
			       "(SELECT count(*) FROM event_fields f WHERE f.type = t.id) "
			       "FROM event_types t", -1, &st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, "event_types");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct tdb_event_type *t = calloc(1, sizeof(*t));
		int id = sqlite3_column_int(st, 0);

		if (!t || id < 0 || id > maxid || db->types[id]) {
			free(t);
			ret = bc_error(BC_E_FORMAT, "%s: bad event_types row %d", db->path, id);
			goto out;
		}
		t->id = id;
		db->types[id] = t;
		if (sqlite3_column_type(st, 1) != SQLITE_TEXT ||
		    sqlite3_column_type(st, 2) != SQLITE_TEXT) {
			ret = bc_error(BC_E_FORMAT, "%s: event_types row %d has no name", db->path,
				       id);
			goto out;
		}
		t->system = strdup((const char *)sqlite3_column_text(st, 1));
		t->name = strdup((const char *)sqlite3_column_text(st, 2));
		t->missing = sqlite3_column_int(st, 3);
		t->nfields = sqlite3_column_int(st, 4);
		if (t->nfields > TDB_MAX_FIELDS)
			t->nfields = TDB_MAX_FIELDS;
		t->field_names = calloc(t->nfields + 1, sizeof(char *));
		if (!t->system || !t->name || !t->field_names) {
			ret = bc_error(BC_E_NOMEM, "out of memory");
			goto out;
		}
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db->sq, "SELECT type, idx, name FROM event_fields", -1, &st,
			       NULL) != SQLITE_OK)
		return tdb_sql_error(db, "event_fields");
	while (sqlite3_step(st) == SQLITE_ROW) {
		int id = sqlite3_column_int(st, 0), idx = sqlite3_column_int(st, 1);
		struct tdb_event_type *t = id >= 0 && id <= maxid ? db->types[id] : NULL;

		if (!t || idx < 0 || idx >= t->nfields) {
			ret = bc_error(BC_E_FORMAT, "%s: event_fields row (%d, %d) names no field",
				       db->path, id, idx);
			goto out;
		}
		if (sqlite3_column_type(st, 2) != SQLITE_TEXT) {
			ret = bc_error(BC_E_FORMAT, "%s: event_fields row (%d, %d) has no name",
				       db->path, id, idx);
			goto out;
		}
		free(t->field_names[idx]);
		t->field_names[idx] = strdup((const char *)sqlite3_column_text(st, 2));
		if (!t->field_names[idx]) {
			ret = bc_error(BC_E_NOMEM, "out of memory");
			goto out;
		}
	}
	ret = check_field_names(db);
out:
	sqlite3_finalize(st);
	return ret;
}

int tdb_event_types(struct tdb *db, struct tdb_event_type ***types, int *nr)
{
	*types = db->types;
	*nr = db->types_nr;
	return 0;
}

int tdb_event_type_id(struct tdb *db, const char *system, const char *name)
{
	int i;

	for (i = 0; i < db->types_nr; i++) {
		struct tdb_event_type *t = db->types[i];

		if (t && !t->missing && !strcmp(t->system, system) && !strcmp(t->name, name))
			return t->id;
	}
	return 0;
}

int tdb_field_index(struct tdb *db, int id, const char *name)
{
	struct tdb_event_type *t = id >= 0 && id < db->types_nr ? db->types[id] : NULL;
	int i;

	if (!t)
		return -1;
	for (i = 0; i < t->nfields; i++)
		if (t->field_names[i] && !strcmp(t->field_names[i], name))
			return i;
	return -1;
}

int64_t tdb_event_count(struct tdb *db)
{
	sqlite3_stmt *st;
	int64_t n = 0;

	if (sqlite3_prepare_v2(db->sq, "SELECT coalesce(max(first_seq + n), 0) FROM event_chunks",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n + (db->readonly ? 0 : db->npending);
}

struct tdb_cursor {
	struct tdb *db;
	sqlite3_stmt *st;
	uint64_t seq_from, seq_to;
	const uint8_t *data;	/* current chunk, owned by the statement row */
	size_t len, pos;
	uint64_t next_seq, chunk_end, prev_ts;
	int64_t chunk_id;
};

int tdb_cursor_open(struct tdb *db, uint64_t seq_from, uint64_t seq_to,
		    struct tdb_cursor **out)
{
	struct tdb_cursor *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return bc_error(BC_E_NOMEM, "out of memory");
	ret = tdb_flush(db);
	if (ret) {
		free(c);
		return ret;
	}
	c->db = db;
	c->seq_from = seq_from;
	c->seq_to = seq_to;
	if (sqlite3_prepare_v2(db->sq, "SELECT id, first_seq, n, data FROM event_chunks "
			       "WHERE first_seq + n > ?1 AND first_seq < ?2 ORDER BY first_seq",
			       -1, &c->st, NULL) != SQLITE_OK) {
		free(c);
		return tdb_sql_error(db, "event_chunks");
	}
	sqlite3_bind_int64(c->st, 1, (int64_t)seq_from);
	sqlite3_bind_int64(c->st, 2, seq_to > INT64_MAX ? INT64_MAX : (int64_t)seq_to);
	*out = c;
	return 0;
}

static int next_chunk(struct tdb_cursor *c)
{
	int rc = sqlite3_step(c->st);
	uint64_t first;

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return tdb_sql_error(c->db, "reading event_chunks");
	c->chunk_id = sqlite3_column_int64(c->st, 0);
	first = (uint64_t)sqlite3_column_int64(c->st, 1);
	if (c->data && first != c->chunk_end)
		return bc_error(BC_E_FORMAT, "%s: event chunk %lld starts at seq %llu, expected %llu "
				"(events missing or duplicated)", c->db->path,
				(long long)c->chunk_id, (unsigned long long)first,
				(unsigned long long)c->chunk_end);
	c->next_seq = first;
	c->chunk_end = first + (uint64_t)sqlite3_column_int64(c->st, 2);
	c->data = sqlite3_column_blob(c->st, 3);
	c->len = (size_t)sqlite3_column_bytes(c->st, 3);
	c->pos = 0;
	c->prev_ts = 0;
	return 1;
}

int tdb_cursor_next(struct tdb_cursor *c, struct bc_event *ev)
{
	struct tdb *db = c->db;
	int ret;

	for (;;) {
		if (!c->data || c->next_seq == c->chunk_end) {
			if (c->data && c->pos != c->len)
				return bc_error(BC_E_FORMAT, "%s: event chunk %lld has %zu trailing bytes",
						db->path, (long long)c->chunk_id, c->len - c->pos);
			ret = next_chunk(c);
			if (ret <= 0)
				return ret;
		}
		if (c->next_seq >= c->seq_to)
			return 0;
		ret = tdb_decode_event(c->data, c->len, &c->pos, &c->prev_ts, db->nfields_by_type,
				       db->nr_types, ev);
		if (ret)
			return bc_error(BC_E_FORMAT, "%s: event chunk %lld is corrupt at byte %zu "
					"(event seq %llu)", db->path, (long long)c->chunk_id, c->pos,
					(unsigned long long)c->next_seq);
		ev->seq = c->next_seq++;
		if (ev->seq >= c->seq_from)
			return 1;
	}
}

void tdb_cursor_close(struct tdb_cursor *c)
{
	if (!c)
		return;
	sqlite3_finalize(c->st);
	free(c);
}
