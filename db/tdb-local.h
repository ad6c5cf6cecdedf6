/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of db/: struct tdb and helpers shared by tdb*.c. Never included outside db/. */
#ifndef BC_TDB_LOCAL_H
#define BC_TDB_LOCAL_H

#include "db/tdb.h"

extern const char tdb_schema_sql[];

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

static inline void tdb_bind_text_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
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

/* Readers (tdb-snap.c): step @st (bound; finalized here) to its end, turning each row
 * into one zeroed element of @size bytes with @fill. Return: 0 and *@out (malloc'ed,
 * NULL when empty) and *@nr, or a negative bc_err naming @what. */
int tdb_read_rows(struct tdb *db, sqlite3_stmt *st, size_t size,
		  void (*fill)(sqlite3_stmt *st, void *row), const char *what, void **out, int *nr);
/* The same for @sql with ?1 = @key when it has a parameter. */
int tdb_query_rows(struct tdb *db, const char *sql, int64_t key, size_t size,
		   void (*fill)(sqlite3_stmt *st, void *row), const char *what, void **out, int *nr);
/* Integer column @i, -1 for NULL. */
int64_t tdb_col_opt(sqlite3_stmt *st, int i);
/* Text column @i into @buf ("" for NULL). */
void tdb_col_text(sqlite3_stmt *st, int i, char *buf, size_t size);

#endif
