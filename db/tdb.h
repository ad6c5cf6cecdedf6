/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdb: the capture database (SQLite). The schema (db/schema.sql, documented in
 * db/README.md) is the one interface between capture, replay and the user.
 *
 * A struct tdb owns one sqlite3 connection and its prepared statements. Writers append
 * events in replay order; events are packed into event_chunks rows and written in
 * batched transactions. Readers iterate events with a cursor.
 */
#ifndef BC_TDB_H
#define BC_TDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#define TDB_SCHEMA_VERSION	3
#define TDB_MAX_FIELDS		12	/* numeric fields stored per event */
#define TDB_CHUNK_EVENTS	8192

/* One decoded event. field[] follows the type's event_fields order. */
struct bc_event {
	uint64_t seq;			/* replay order, dense from 0 */
	uint64_t ts;			/* ns, trace clock */
	int32_t pid;
	uint16_t cpu;			/* ring buffer the event came from */
	uint16_t type;			/* event_types.id */
	uint16_t nfields;
	int64_t field[TDB_MAX_FIELDS];
};

struct tdb;

enum tdb_open_flags {
	TDB_READONLY	= 1 << 0,
	TDB_WRITE	= 1 << 1,	/* existing file, read-write (replay results) */
	TDB_QUICK_CHECK	= 1 << 2,	/* refuse a file PRAGMA quick_check finds damaged */
	TDB_FORCE	= 1 << 3,	/* ... unless this: open it, tdb_health() says so */
};

/**
 * tdb_create() - create a new capture file at @path (mode 0600).
 * An existing file is replaced only if @overwrite. meta 'complete' starts as 0; it
 * becomes 1 in tdb_finish().
 * Return: 0 and *@out (caller frees with tdb_close()), or a negative bc_err.
 */
int tdb_create(const char *path, bool overwrite, struct tdb **out);

/**
 * tdb_open() - open an existing capture. Refuses non-SQLite files, files without
 * our schema, and files of a newer schema version; older ones are migrated when
 * opened with TDB_WRITE. With TDB_QUICK_CHECK, a file that fails PRAGMA quick_check
 * is refused with SQLite's complaint (-BC_E_FORMAT), or with TDB_FORCE opened anyway
 * (db/tdb-check.h reports it). Readers of captures open them through the cli's
 * cli_open_capture(), which sets both as the user asked.
 * Return: 0 and *@out (caller frees with tdb_close()), or a negative bc_err.
 */
int tdb_open(const char *path, int flags, struct tdb **out);

/* Flush pending events, commit and close. After a failed write (a full disk) the open
 * transaction is rolled back, never committed. NULL is allowed. */
int tdb_close(struct tdb *db);

/* Flush, set meta complete=1 and commit. */
int tdb_finish(struct tdb *db);

/* The underlying connection (borrowed, valid until tdb_close()). */
sqlite3 *tdb_sqlite(struct tdb *db);
const char *tdb_path(const struct tdb *db);

/* Run SQL with no result rows; errors carry sqlite's message. */
int tdb_exec(struct tdb *db, const char *sql);
/* Create what the schema has and @db lacks (a results table newer than the file). */
int tdb_ensure_schema(struct tdb *db);

/* Transactions: writers call tdb_begin() once; tdb_commit_if_due() commits every
 * N writes so a crash loses little and the journal stays small. */
int tdb_begin(struct tdb *db);
int tdb_commit(struct tdb *db);

/* meta traced_work_fn (README.md): the work function whose runs the capture stores */
#define TDB_META_TRACED_WORK_FN	"traced_work_fn"

int tdb_set_meta(struct tdb *db, const char *key, const char *value);
int tdb_set_meta_int(struct tdb *db, const char *key, int64_t value);
/* Return: malloc'ed value (caller frees) or NULL when absent. */
char *tdb_get_meta(struct tdb *db, const char *key);
int64_t tdb_get_meta_int(struct tdb *db, const char *key, int64_t dflt);

/**
 * tdb_add_event_type() - register an event type and its stored numeric fields.
 * @format: the kernel's format text (may be NULL), @names/@sizes/@is_signed: @nfields
 * entries. @missing: the kernel lacks the event (nfields 0).
 * Return: the new id (> 0) or a negative bc_err.
 */
int tdb_add_event_type(struct tdb *db, const char *system, const char *name, bool missing,
		       const char *format, int nfields, const char *const *names,
		       const int *sizes, const bool *is_signed);

/* Append one event; ev->seq is assigned here (dense, in call order) and returned. */
int tdb_append_event(struct tdb *db, struct bc_event *ev);
/* seq the next appended event will get. */
uint64_t tdb_next_seq(const struct tdb *db);

int tdb_add_marker(struct tdb *db, uint64_t ts, int cpu, int pid, const char *text);
/*
 * Stacks are stored once per distinct text: tdb_add_stack_frames() gives the id of
 * @frames (stored now, or found), tdb_add_event_stack() gives event @seq that stack;
 * tdb_add_stack() does both. Return: 0 or a negative bc_err.
 */
int tdb_add_stack_frames(struct tdb *db, const char *frames, int64_t *id);
int tdb_add_event_stack(struct tdb *db, uint64_t seq, int64_t id);
int tdb_add_stack(struct tdb *db, uint64_t seq, const char *frames);
int tdb_add_comm(struct tdb *db, int pid, const char *comm);
int tdb_add_lost(struct tdb *db, int cpu, uint64_t ts_from, uint64_t ts_to, int64_t count,
		 uint64_t seq);
int tdb_add_cpu_stat(struct tdb *db, int cpu, const char *key, int64_t value);

/* Write buffered events out (called by commit/close). */
int tdb_flush(struct tdb *db);

/* ---- reading ---- */

/* Event type as stored; borrowed from the db, valid until tdb_close(). */
struct tdb_event_type {
	int id;
	char *system;
	char *name;
	bool missing;
	int nfields;
	char **field_names;
};

/* Types indexed by id (NULL holes); *nr = max id + 1. Borrowed. */
int tdb_event_types(struct tdb *db, struct tdb_event_type ***types, int *nr);
/* Look up a type id by system and name; 0 when absent or missing. */
int tdb_event_type_id(struct tdb *db, const char *system, const char *name);
/* Index of field @name in type @id, or -1. */
int tdb_field_index(struct tdb *db, int id, const char *name);

struct tdb_cursor;

/**
 * tdb_cursor_open() - iterate events with seq in [@seq_from, @seq_to) in order.
 * Return: 0 and *@out (caller frees with tdb_cursor_close()), or a negative bc_err.
 */
int tdb_cursor_open(struct tdb *db, uint64_t seq_from, uint64_t seq_to,
		    struct tdb_cursor **out);
/* Return: 1 and *@ev filled, 0 at the end, or a negative bc_err (corrupt chunk). */
int tdb_cursor_next(struct tdb_cursor *cur, struct bc_event *ev);
void tdb_cursor_close(struct tdb_cursor *cur);

/* Total number of events stored. */
int64_t tdb_event_count(struct tdb *db);

/* Register the virtual tables 'events' and 'page_runs' on the connection. */
int tdb_register_vtabs(struct tdb *db);

/* ---- chunk codec (db/tdb-codec.c), exposed for tests and the vtabs ---- */

/* Encode @n events into @buf (size >= n * TDB_MAX_ENC); returns bytes written. */
#define TDB_MAX_ENC	(4 * 10 + TDB_MAX_FIELDS * 10)
size_t tdb_encode_events(const struct bc_event *ev, int n, const int *nfields_by_type,
			 int nr_types, uint8_t *buf);
/* Decode one event at *@pos; returns 0, or -BC_E_FORMAT on a corrupt record. */
int tdb_decode_event(const uint8_t *buf, size_t len, size_t *pos, uint64_t *prev_ts,
		     const int *nfields_by_type, int nr_types, struct bc_event *ev);

/* Varints (LEB128) with zigzag for signed values. */
size_t bc_put_uvarint(uint8_t *p, uint64_t v);
int bc_get_uvarint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v);
static inline uint64_t bc_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t bc_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

#endif
