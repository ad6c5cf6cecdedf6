/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of db/: struct tdb and helpers shared by tdb*.c. Never included outside db/. */
#ifndef BC_TDB_LOCAL_H
#define BC_TDB_LOCAL_H

#include <stddef.h>
#include <string.h>

#include "db/tdb.h"

extern const char tdb_schema_sql[];
/* The empty database tdb_schema_sql makes (page size 4096), built by db/mkschema. */
extern const unsigned char tdb_schema_image[];
extern const unsigned long tdb_schema_image_size;

/* Event stacks written per statement: one row per step was a fifth of an import. */
#define TDB_STACK_BATCH	64

struct tdb {
	sqlite3 *sq;
	char *path;
	bool readonly;
	bool in_txn;
	bool failed;			/* a statement failed: tdb_close() rolls back */
	char damage[256];		/* quick_check's complaint (opened with TDB_FORCE) */
	unsigned int writes;		/* since the last commit */
	struct tdb_results *results;	/* the stored run open on this connection, if any */

	/* Event writer: a chunk being filled. */
	struct bc_event *pending;
	int npending;
	uint64_t next_seq;
	uint8_t *encbuf;

	/* Stored field count per type id, for the codec. */
	int *nfields_by_type;
	int nr_types;
	int *pfn_field;			/* index of a pfn-like field per type, or -1 */

	/* Event types as read back (tdb_event_types()). */
	struct tdb_event_type **types;
	int types_nr;

	sqlite3_stmt *ins_chunk, *ins_marker, *ins_stack, *ins_comm, *ins_lost, *ins_cpu_stat,
		     *set_meta, *get_meta;
	sqlite3_stmt *ins_frames, *get_frames;	/* distinct stack texts */
	sqlite3_stmt *ins_stacks;		/* TDB_STACK_BATCH event_stacks rows */
	sqlite3_stmt *ins_stacks_appended;	/* likewise, rowids one past the largest */
	int64_t stack_max;			/* largest seq in event_stacks ... */
	bool stack_max_known;			/* ... once asked (flush_stacks()) */
	int64_t stack_pending[2 * TDB_STACK_BATCH];	/* (seq, stack id) pairs */
	int nstack_pending;
	sqlite3_stmt *ins_probe, *ins_probe_page;	/* prepared on first use */
};

/* Bind helpers: SQL NULL for "none" (a negative int64, UINT64_MAX, NULL or ""). */
static inline void tdb_bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

static inline void tdb_bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	if (v == UINT64_MAX)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, (int64_t)v);
}

/* Bind the @n integers of @v to the parameters from @first on (@opt: a negative as NULL). */
static inline void tdb_bind_ints(sqlite3_stmt *st, int first, bool opt, const int64_t *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (opt)
			tdb_bind_opt(st, first + i, v[i]);
		else
			sqlite3_bind_int64(st, first + i, v[i]);
	}
}
/* TDB_BIND_INTS(st, 3, a, b, c) binds ?3, ?4, ?5 to a, b, c (converted to int64_t). */
#define TDB_BIND_INTS(st, first, ...) \
	tdb_bind_ints(st, first, false, (const int64_t[]){ __VA_ARGS__ }, \
		      (int)(sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t)))
/* The same with a negative value bound as NULL. */
#define TDB_BIND_OPTS(st, first, ...) \
	tdb_bind_ints(st, first, true, (const int64_t[]){ __VA_ARGS__ }, \
		      (int)(sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t)))

static inline void tdb_bind_text_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* Virtual tables: a zeroed vtab or cursor struct (freed with sqlite3_free()), or NULL. */
static inline void *tdb_vtab_zalloc(size_t size)
{
	void *p = sqlite3_malloc64(size);

	if (p)
		memset(p, 0, size);
	return p;
}

/* xOpen of a cursor struct of @size bytes that begins with its sqlite3_vtab_cursor. */
static inline int tdb_vtab_open(size_t size, sqlite3_vtab_cursor **out)
{
	*out = tdb_vtab_zalloc(size);
	return *out ? SQLITE_OK : SQLITE_NOMEM;
}

/* Copy sqlite's message into our error and return -BC_E_DB. */
int tdb_sql_error(struct tdb *db, const char *what);
int tdb_load_types(struct tdb *db);
/* Prepare @sql into *@st unless it is already (kept until tdb_close()). */
int tdb_prepare_once(struct tdb *db, sqlite3_stmt **st, const char *sql);
/* Step an INSERT of the writer, reset it, count the write (tdb_write_done()). */
int tdb_step_done(struct tdb *db, sqlite3_stmt *st, const char *what);
/* Commit and start a new transaction after many writes. */
int tdb_write_done(struct tdb *db);

/*
 * Readers: a result column and the field of the row struct it goes to. Integers are
 * stored by the field's size (8: int64_t or uint64_t, 4: int, 1: bool as value != 0);
 * TEXT fills a char array ("" for NULL), STRDUP a char * (malloc'ed, NULL when out of
 * memory: the reader checks).
 */
enum tdb_col_kind {
	TDB_COL_INT,			/* NULL reads 0 */
	TDB_COL_OPT,			/* NULL reads -1 */
	TDB_COL_TEXT,
	TDB_COL_STRDUP,
};

struct tdb_col {
	enum tdb_col_kind kind;
	size_t off, size;		/* of the field */
};
#define TDB_COL(kind, type, field) \
	{ TDB_COL_##kind, offsetof(type, field), sizeof(((type *)0)->field) }

/* A row struct: its size and its fields in SELECT order. */
struct tdb_rows {
	size_t size;
	const struct tdb_col *cols;
	int ncols;
};
#define TDB_ROWS(type, cols) { sizeof(type), cols, (int)(sizeof(cols) / sizeof(cols[0])) }

/* Step @st (bound; finalized here) to its end, turning each row into one zeroed element
 * of @rows. Return: 0 and *@out (malloc'ed, NULL when empty) and *@nr, or a negative
 * bc_err naming @what. */
int tdb_read_rows(struct tdb *db, sqlite3_stmt *st, const struct tdb_rows *rows,
		  const char *what, void **out, int *nr);
/* The same for @sql with ?1 = @key when it has a parameter. */
int tdb_query_rows(struct tdb *db, const char *sql, int64_t key, const struct tdb_rows *rows,
		   const char *what, void **out, int *nr);
/* Integer column @i, -1 for NULL. */
int64_t tdb_col_opt(sqlite3_stmt *st, int i);
/* Text column @i into @buf ("" for NULL). */
void tdb_col_text(sqlite3_stmt *st, int i, char *buf, size_t size);

#endif
