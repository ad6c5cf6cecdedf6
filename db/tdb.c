// SPDX-License-Identifier: GPL-2.0
/*
 * tdb: open/create the capture file, schema versioning, and the writers for events,
 * markers, stacks, comms and loss. Statements are prepared once at open and reused;
 * writes are batched into transactions of TDB_TXN_WRITES rows.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "common/wfile.h"
#include "db/tdb-local.h"
#include "db/tdb-results.h"

#define TDB_TXN_WRITES	50000

int tdb_sql_error(struct tdb *db, const char *what)
{
	int code = sqlite3_extended_errcode(db->sq);

	db->failed = true;
	if ((code & 0xff) == SQLITE_FULL)
		return bc_error(BC_E_NOSPC, "%s: %s: %s (disk full?)", db->path, what,
				sqlite3_errmsg(db->sq));
	if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT)
		return bc_error(BC_E_FORMAT, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->sq));
	return bc_error(BC_E_DB, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->sq));
}

int tdb_exec(struct tdb *db, const char *sql)
{
	char *msg = NULL;
	int ret;

	if (sqlite3_exec(db->sq, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	db->failed = true;
	ret = bc_error(BC_E_DB, "%s: %s", db->path, msg ? msg : sqlite3_errmsg(db->sq));
	if ((sqlite3_extended_errcode(db->sq) & 0xff) == SQLITE_FULL)
		ret = bc_error(BC_E_NOSPC, "%s: %s (disk full?)", db->path,
			       msg ? msg : sqlite3_errmsg(db->sq));
	sqlite3_free(msg);
	return ret;
}

int tdb_ensure_schema(struct tdb *db)
{
	return tdb_exec(db, tdb_schema_sql);
}

static int prepare(struct tdb *db, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v3(db->sq, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, "prepare");
	return 0;
}

int tdb_prepare_once(struct tdb *db, sqlite3_stmt **st, const char *sql)
{
	return *st ? 0 : prepare(db, st, sql);
}

static int prepare_all(struct tdb *db)
{
	struct { sqlite3_stmt **st; const char *sql; } s[] = {
		{ &db->set_meta, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)" },
		{ &db->get_meta, "SELECT value FROM meta WHERE key = ?" },
		{ &db->ins_chunk, "INSERT INTO event_chunks(first_seq, n, ts_first, ts_last, "
				  "pfn_min, pfn_max, data) VALUES (?, ?, ?, ?, ?, ?, ?)" },
		{ &db->ins_marker, "INSERT INTO markers(seq, ts, cpu, pid, text) VALUES (?, ?, ?, ?, ?)" },
		{ &db->ins_stack, "INSERT OR REPLACE INTO event_stacks(seq, stack) VALUES (?, ?)" },
		{ &db->ins_frames, "INSERT OR IGNORE INTO stack_frames(frames) VALUES (?)" },
		{ &db->get_frames, "SELECT id FROM stack_frames WHERE frames = ?" },
		{ &db->ins_comm, "INSERT OR REPLACE INTO comms(pid, comm) VALUES (?, ?)" },
		{ &db->ins_lost, "INSERT INTO lost_events(cpu, ts_from, ts_to, count, seq) "
				 "VALUES (?, ?, ?, ?, ?)" },
		{ &db->ins_cpu_stat, "INSERT OR REPLACE INTO cpu_stats(cpu, key, value) VALUES (?, ?, ?)" },
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		if (db->readonly && s[i].st != &db->get_meta)
			continue;
		ret = prepare(db, s[i].st, s[i].sql);
		if (ret)
			return ret;
	}
	return 0;
}

static struct tdb *tdb_alloc(const char *path)
{
	struct tdb *db = calloc(1, sizeof(*db));

	if (!db)
		return NULL;
	db->path = strdup(path);
	if (!db->path) {
		free(db);
		return NULL;
	}
	return db;
}

static void free_type(struct tdb_event_type *t)
{
	int j;

	if (!t)
		return;
	for (j = 0; t->field_names && j < t->nfields; j++)
		free(t->field_names[j]);
	free(t->field_names);
	free(t->system);
	free(t->name);
	free(t);
}

static void tdb_free_types(struct tdb *db)
{
	int i;

	for (i = 0; i < db->types_nr; i++)
		free_type(db->types[i]);
	free(db->types);
	db->types = NULL;
	db->types_nr = 0;
}

static void tdb_free(struct tdb *db)
{
	sqlite3_stmt *sts[] = { db->ins_chunk, db->ins_marker, db->ins_stack, db->ins_frames,
				db->get_frames, db->ins_stacks, db->ins_stacks_appended,
				db->ins_comm,
				db->ins_lost, db->ins_cpu_stat, db->set_meta, db->get_meta,
				db->ins_probe, db->ins_probe_page };
	size_t i;

	for (i = 0; i < sizeof(sts) / sizeof(sts[0]); i++)
		sqlite3_finalize(sts[i]);
	if (db->sq)
		sqlite3_close(db->sq);
	tdb_free_types(db);
	free(db->pending);
	free(db->encbuf);
	free(db->nfields_by_type);
	free(db->pfn_field);
	free(db->path);
	free(db);
}

static int set_pragmas(struct tdb *db, bool created)
{
	/*
	 * A capture is written once, by one process: a rollback journal in memory and no
	 * fsync per commit keep writes at SQLite's row rate. A crash can lose the last
	 * transaction; meta 'complete' tells readers whether the writer finished.
	 * An existing capture opened for writing gets results (one transaction per stored
	 * run) and snapshots: there the journal goes to a file, so a process killed in the
	 * middle of a commit leaves a journal the next opener rolls back, not a damaged file.
	 * Still no fsync: that guards against power loss, not against a killed process.
	 */
	int ret = tdb_exec(db, created ? "PRAGMA journal_mode=MEMORY;" :
			   "PRAGMA journal_mode=DELETE;");

	if (!ret)
		ret = tdb_exec(db, "PRAGMA synchronous=OFF; PRAGMA cache_size=-65536; "
			       "PRAGMA temp_store=MEMORY;");
	return ret;
}

static int load_codec_types(struct tdb *db);
static int flush_stacks(struct tdb *db);

/*
 * A new capture starts as a copy of the empty database db/schema.sql makes, made at
 * build time (db/mkschema): running the schema's forty-odd statements here (parsing
 * each, and the nested updates of sqlite_master) was a few percent of an import.
 */
static int write_schema_image(int fd, const char *path)
{
	const unsigned char *p = tdb_schema_image;
	size_t left = tdb_schema_image_size;
	ssize_t n;

	while (left) {
		n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return bc_error(errno == ENOSPC ? BC_E_NOSPC : BC_E_IO,
					"%s: cannot write the new capture: %s", path,
					n < 0 ? strerror(errno) : "short write");
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

int tdb_create(const char *path, bool overwrite, struct tdb **out)
{
	struct tdb *db;
	int fd, ret;

	*out = NULL;
	if (!overwrite && access(path, F_OK) == 0)
		return bc_error(BC_E_INVAL, "%s: file exists (use -f to replace it)", path);
	if (overwrite)
		unlink(path);
	/* Create it ourselves so the mode is 0600 whatever the umask: pfns are sensitive. */
	fd = bc_create_private(path, 0);
	if (fd < 0)
		return fd;
	ret = write_schema_image(fd, path);
	close(fd);
	if (ret) {
		unlink(path);
		return ret;
	}

	db = tdb_alloc(path);
	if (!db)
		return bc_error(BC_E_NOMEM, "%s: out of memory", path);
	/*
	 * One thread uses a connection (record's reader threads never touch it): without
	 * its mutex, each bind and step of the row-at-a-time writes skips a lock and an
	 * unlock (a few percent of an import).
	 */
	if (sqlite3_open_v2(path, &db->sq, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		ret = tdb_sql_error(db, "open");
		goto error;
	}
	sqlite3_extended_result_codes(db->sq, 1);
	ret = set_pragmas(db, true);
	if (!ret)
		ret = prepare_all(db);
	if (!ret)
		ret = tdb_begin(db);
	if (!ret)
		ret = tdb_set_meta(db, "complete", "0");
	if (!ret)
		ret = tdb_set_meta_int(db, "schema_version", TDB_SCHEMA_VERSION);
	if (ret)
		goto error;
	*out = db;
	return 0;
error:
	tdb_free(db);
	unlink(path);
	return ret;
}

/*
 * 2 -> 3: the per-event stack texts become one row per distinct text and one id per
 * event (the schema file, run before, made the tables; run after, it makes the view
 * 'stacks' in the place of the table).
 */
static const char tdb_migrate_stacks_sql[] =
	"INSERT OR IGNORE INTO stack_frames(frames) SELECT frames FROM stacks ORDER BY seq; "
	"INSERT OR REPLACE INTO event_stacks(seq, stack) SELECT s.seq, f.id FROM stacks s "
	"JOIN stack_frames f ON f.frames = s.frames; "
	"DROP TABLE stacks;";

/*
 * Migrations from older schema versions, indexed by the version they start from. The
 * schema file runs before them (it creates just what is missing: 1 -> 2 added tables
 * only, so that is its whole migration) and once more after them, for what replaces a
 * table they dropped; it sets user_version.
 */
static const char *const tdb_migrations[TDB_SCHEMA_VERSION] = {
	[0] = NULL,	/* version 0 = not a bigchunk file */
	[1] = NULL,
	[2] = tdb_migrate_stacks_sql,
};

#define BC_STR_(x)	#x
#define BC_STR(x)	BC_STR_(x)

/* The oldest version this bigchunk reads without migrating (newer ones added tables). */
#define TDB_READABLE_VERSION	1

/*
 * A writer killed in the middle of a transaction (a stored run, a snapshot) leaves a
 * hot journal: a read-only connection cannot roll it back and would refuse the file.
 * Roll it back here with a short read-write connection when the file is writable
 * (SQLite does it on the first read; a journal of a live writer is not hot and stays).
 */
static void rollback_hot_journal(const char *path)
{
	char journal[PATH_MAX];
	sqlite3 *sq;

	if (snprintf(journal, sizeof(journal), "%s-journal", path) >= (int)sizeof(journal) ||
	    access(journal, F_OK) || access(path, W_OK))
		return;
	if (sqlite3_open_v2(path, &sq, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK)
		sqlite3_exec(sq, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
	sqlite3_close(sq);
}

#define TDB_REMEDY	"; give a capture written by 'bigchunk record' or 'bigchunk import' " \
			"(a trace.dat is imported with 'bigchunk import TRACE.dat -o FILE.db')"

/*
 * PRAGMA quick_check: the b-trees, free list and record formats, without matching
 * indexes to tables; O(file size), milliseconds for the bundled captures. Its first
 * few complaints go into @buf ("" when the file is sound).
 */
static void quick_check(struct tdb *db, char *buf, size_t size)
{
	sqlite3_stmt *st = NULL;
	size_t len = 0;
	int rc;

	buf[0] = '\0';
	if (sqlite3_prepare_v2(db->sq, "PRAGMA quick_check(3)", -1, &st, NULL) != SQLITE_OK) {
		snprintf(buf, size, "%s", sqlite3_errmsg(db->sq));
		return;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		/* a row of the main database begins "*** in database main ***\n" */
		if (t && !strncmp(t, "*** in database", 15) && strchr(t, '\n'))
			t = strchr(t, '\n') + 1;
		if (!t || !strcmp(t, "ok") || len >= size - 1)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "; " : "", t);
		if (len >= size)
			len = size - 1;
	}
	if (rc != SQLITE_DONE && !buf[0])
		snprintf(buf, size, "%s", sqlite3_errmsg(db->sq));
	sqlite3_finalize(st);
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
}

/* The tables every capture has, whatever its version: else it is someone else's file. */
static int check_tables(struct tdb *db)
{
	sqlite3_stmt *st = NULL;
	int n = -1;

	if (sqlite3_prepare_v2(db->sq, "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
			       "AND name IN ('meta', 'event_types', 'event_fields', "
			       "'event_chunks')", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (n < 0)
		return tdb_sql_error(db, "reading its schema");
	if (n != 4)
		return bc_error(BC_E_FORMAT, "%s: not a bigchunk capture (an SQLite database "
				"without the capture tables meta, event_types, event_chunks)"
				TDB_REMEDY, db->path);
	return 0;
}

/* The checks of tdb_open() before anything reads or migrates the tables. */
static int check_file(struct tdb *db, int flags)
{
	int ret;

	if (flags & TDB_QUICK_CHECK) {
		quick_check(db, db->damage, sizeof(db->damage));
		if (db->damage[0] && !(flags & TDB_FORCE))
			return bc_error(BC_E_FORMAT, "%s: damaged: SQLite's quick_check says: %s; "
					"nothing read from it can be trusted: record or import it "
					"again, or try 'sqlite3 %s .recover' into a new file, or "
					"use --force to read it anyway", db->path, db->damage,
					db->path);
	}
	ret = check_tables(db);
	db->failed = false;		/* a read of a damaged file is no failed write */
	return ret;
}

int tdb_open(const char *path, int flags, struct tdb **out)
{
	int oflags = (flags & TDB_WRITE) ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
	sqlite3_stmt *st = NULL;
	struct tdb *db;
	int ret, version;

	*out = NULL;
	if (access(path, R_OK) != 0)
		return bc_error(errno == ENOENT ? BC_E_NOENT : BC_E_PERM, "%s: %m", path);
	db = tdb_alloc(path);
	if (!db)
		return bc_error(BC_E_NOMEM, "%s: out of memory", path);
	db->readonly = !(flags & TDB_WRITE);
	if (db->readonly)
		rollback_hot_journal(path);
	if (sqlite3_open_v2(path, &db->sq, oflags, NULL) != SQLITE_OK) {
		ret = tdb_sql_error(db, "open");
		goto error;
	}
	sqlite3_extended_result_codes(db->sq, 1);
	if (sqlite3_prepare_v2(db->sq, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		if (sqlite3_extended_errcode(db->sq) == SQLITE_READONLY_ROLLBACK)
			ret = bc_error(BC_E_PERM, "%s: a write to it was interrupted and its "
				       "journal %s-journal must be rolled back: open it once with "
				       "write access (e.g. 'bigchunk replay')", path, path);
		else if ((sqlite3_extended_errcode(db->sq) & 0xff) == SQLITE_NOTADB)
			ret = bc_error(BC_E_FORMAT, "%s: not a bigchunk capture (not an SQLite "
				       "database: %s)" TDB_REMEDY, path, sqlite3_errmsg(db->sq));
		else
			ret = tdb_sql_error(db, "cannot read it");
		goto error;
	}
	version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (version > TDB_SCHEMA_VERSION) {
		ret = bc_error(BC_E_VERSION, "%s: schema version %d is newer than this bigchunk "
			       "understands (%d); use a newer bigchunk", path, version,
			       TDB_SCHEMA_VERSION);
		goto error;
	}
	if (version < 1) {
		ret = bc_error(BC_E_FORMAT, "%s: not a bigchunk capture (an SQLite database "
			       "with no schema version)" TDB_REMEDY, path);
		goto error;
	}
	ret = check_file(db, flags);
	if (ret)
		goto error;
	if (version < TDB_SCHEMA_VERSION) {
		if (db->readonly && version >= TDB_READABLE_VERSION)
			goto migrated;		/* readable as it is; the newer tables are absent */
		if (db->readonly) {
			ret = bc_error(BC_E_VERSION, "%s: schema version %d is older than %d; "
				       "open it once for writing (e.g. 'bigchunk replay') to migrate",
				       path, version, TDB_SCHEMA_VERSION);
			goto error;
		}
		ret = tdb_exec(db, "BEGIN");
		if (!ret)
			ret = tdb_exec(db, tdb_schema_sql);
		for (; !ret && version < TDB_SCHEMA_VERSION; version++)
			if (tdb_migrations[version])
				ret = tdb_exec(db, tdb_migrations[version]);
		if (!ret)
			ret = tdb_exec(db, tdb_schema_sql);
		if (!ret)
			ret = tdb_exec(db, "INSERT OR REPLACE INTO meta (key, value) VALUES "
				       "('schema_version', '" BC_STR(TDB_SCHEMA_VERSION) "')");
		if (!ret)
			ret = tdb_exec(db, "COMMIT");
		if (ret) {
			bc_error_prefix(ret, "%s: migrating to schema version %d", path,
					TDB_SCHEMA_VERSION);
			goto error;
		}
	}
migrated:
	if (!db->readonly) {
		ret = set_pragmas(db, false);
		if (ret)
			goto error;
	}
	ret = prepare_all(db);
	if (!ret)
		ret = tdb_load_types(db);
	if (!ret)
		ret = load_codec_types(db);
	if (ret)
		goto error;
	db->next_seq = (uint64_t)tdb_event_count(db);
	*out = db;
	return 0;
error:
	sqlite3_finalize(st);
	tdb_free(db);
	return ret;
}

/*
 * A stored run still open is rolled back, never committed: its rows are whole or none.
 * What the event writer wrote is committed, even after an error of its input (a capture
 * keeps what was read; meta 'complete' stays 0); after a failed write (a full disk) the
 * open transaction is rolled back instead: committing it would store a part of
 * something, and SQLite may have rolled it back already ("no transaction is active").
 */
int tdb_close(struct tdb *db)
{
	int ret = 0;

	if (!db)
		return 0;
	tdb_results_abort(db->results);
	if (!db->readonly && db->failed) {
		if (!sqlite3_get_autocommit(db->sq))
			sqlite3_exec(db->sq, "ROLLBACK", NULL, NULL, NULL);
		if (db->in_txn)
			ret = bc_error(BC_E_DB, "%s: a write failed: what was written since the "
				       "last commit is rolled back", db->path);
		db->in_txn = false;
	} else if (!db->readonly) {
		ret = tdb_flush(db);
		if (db->in_txn) {
			int r = tdb_commit(db);

			if (!ret)
				ret = r;
		}
	}
	tdb_free(db);
	return ret;
}

int tdb_finish(struct tdb *db)
{
	int ret = tdb_flush(db);

	if (!ret)
		ret = tdb_set_meta(db, "complete", "1");
	if (!ret && db->in_txn)
		ret = tdb_commit(db);
	if (!ret)
		ret = tdb_begin(db);
	return ret;
}

sqlite3 *tdb_sqlite(struct tdb *db)
{
	return db->sq;
}

const char *tdb_path(const struct tdb *db)
{
	return db->path;
}

int tdb_begin(struct tdb *db)
{
	int ret;

	if (db->in_txn)
		return 0;
	ret = tdb_exec(db, "BEGIN");
	if (!ret)
		db->in_txn = true;
	db->writes = 0;
	return ret;
}

int tdb_commit(struct tdb *db)
{
	int ret;

	if (!db->in_txn)
		return 0;
	db->in_txn = false;
	/* SQLite rolls a transaction back itself after some errors (a full disk) */
	if (sqlite3_get_autocommit(db->sq)) {
		db->failed = true;
		return bc_error(BC_E_DB, "%s: cannot commit: SQLite rolled the transaction back "
				"after an earlier error", db->path);
	}
	ret = tdb_exec(db, "COMMIT");
	return ret;
}

int tdb_write_done(struct tdb *db)
{
	int ret;

	if (++db->writes < TDB_TXN_WRITES || !db->in_txn)
		return 0;
	ret = tdb_commit(db);
	if (!ret)
		ret = tdb_begin(db);
	return ret;
}

int tdb_step_done(struct tdb *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return tdb_sql_error(db, what);
	return tdb_write_done(db);
}

int tdb_set_meta(struct tdb *db, const char *key, const char *value)
{
	sqlite3_bind_text(db->set_meta, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(db->set_meta, 2, value, -1, SQLITE_TRANSIENT);
	return tdb_step_done(db, db->set_meta, "meta");
}

int tdb_set_meta_int(struct tdb *db, const char *key, int64_t value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)value);
	return tdb_set_meta(db, key, buf);
}

char *tdb_get_meta(struct tdb *db, const char *key)
{
	char *ret = NULL;

	sqlite3_bind_text(db->get_meta, 1, key, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(db->get_meta) == SQLITE_ROW &&
	    sqlite3_column_type(db->get_meta, 0) != SQLITE_NULL)
		ret = strdup((const char *)sqlite3_column_text(db->get_meta, 0));
	sqlite3_reset(db->get_meta);
	return ret;
}

int64_t tdb_get_meta_int(struct tdb *db, const char *key, int64_t dflt)
{
	char *v = tdb_get_meta(db, key), *end;
	long long r;

	if (!v)
		return dflt;
	r = strtoll(v, &end, 0);
	if (end == v)
		r = dflt;
	free(v);
	return r;
}

/* A field whose value is a pfn, for the chunk's pfn range (PFN-range queries). */
static bool is_pfn_field(const char *name)
{
	return !strcmp(name, "pfn") || !strcmp(name, "start_pfn");
}

static int grow_codec_types(struct tdb *db, int id)
{
	int n = id + 1, i;
	int *nf, *pf;

	if (id < db->nr_types)
		return 0;
	nf = realloc(db->nfields_by_type, n * sizeof(*nf));
	if (!nf)
		return bc_error(BC_E_NOMEM, "out of memory");
	db->nfields_by_type = nf;
	pf = realloc(db->pfn_field, n * sizeof(*pf));
	if (!pf)
		return bc_error(BC_E_NOMEM, "out of memory");
	db->pfn_field = pf;
	for (i = db->nr_types; i < n; i++) {
		nf[i] = -1;	/* no such type: a chunk naming it is corrupt */
		pf[i] = -1;
	}
	db->nr_types = n;
	return 0;
}

static int load_codec_types(struct tdb *db)
{
	int i, j, ret;

	for (i = 0; i < db->types_nr; i++) {
		struct tdb_event_type *t = db->types[i];

		if (!t)
			continue;
		ret = grow_codec_types(db, t->id);
		if (ret)
			return ret;
		db->nfields_by_type[t->id] = t->nfields;
		for (j = 0; j < t->nfields; j++)
			if (is_pfn_field(t->field_names[j]) && db->pfn_field[t->id] < 0)
				db->pfn_field[t->id] = j;
	}
	return 0;
}

/*
 * Add type @id to db->types as tdb_load_types() would read it back: reloading every
 * type after each add made registering a trace's types quadratic.
 */
static int add_type_entry(struct tdb *db, int id, const char *system, const char *name,
			  bool missing, int nfields, const char *const *names)
{
	struct tdb_event_type *t, **types;
	int i;

	if (id >= db->types_nr) {
		types = realloc(db->types, (size_t)(id + 1) * sizeof(*types));
		if (!types)
			return bc_error(BC_E_NOMEM, "out of memory");
		memset(types + db->types_nr, 0, (size_t)(id + 1 - db->types_nr) * sizeof(*types));
		db->types = types;
		db->types_nr = id + 1;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return bc_error(BC_E_NOMEM, "out of memory");
	free_type(db->types[id]);	/* a rowid used again */
	db->types[id] = t;
	t->id = id;
	t->missing = missing;
	t->nfields = nfields;
	t->system = strdup(system);
	t->name = strdup(name);
	t->field_names = calloc((size_t)nfields + 1, sizeof(char *));
	if (!t->system || !t->name || !t->field_names)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (i = 0; i < nfields; i++) {
		t->field_names[i] = strdup(names[i]);
		if (!t->field_names[i])
			return bc_error(BC_E_NOMEM, "out of memory");
	}
	return 0;
}

int tdb_add_event_type(struct tdb *db, const char *system, const char *name, bool missing,
		       const char *format, int nfields, const char *const *names,
		       const int *sizes, const bool *is_signed)
{
	sqlite3_stmt *st = NULL;
	int id, i, ret;

	if (nfields > TDB_MAX_FIELDS)
		return bc_error(BC_E_INVAL, "%s:%s: %d fields, at most %d are stored", system, name,
				nfields, TDB_MAX_FIELDS);
	if (sqlite3_prepare_v2(db->sq, "INSERT INTO event_types(system, name, missing, format) "
			       "VALUES (?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, "event_types");
	sqlite3_bind_text(st, 1, system, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, missing);
	if (format)
		sqlite3_bind_text(st, 4, format, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE) {
		ret = tdb_sql_error(db, "event_types");
		sqlite3_finalize(st);
		return ret;
	}
	sqlite3_finalize(st);
	id = (int)sqlite3_last_insert_rowid(db->sq);
	if (id > 0xffff)
		return bc_error(BC_E_INVAL, "too many event types");

	if (sqlite3_prepare_v2(db->sq, "INSERT INTO event_fields(type, idx, name, size, signed) "
			       "VALUES (?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, "event_fields");
	for (i = 0; i < nfields; i++) {
		sqlite3_bind_int(st, 1, id);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_text(st, 3, names[i], -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 4, sizes ? sizes[i] : 8);
		sqlite3_bind_int(st, 5, is_signed ? is_signed[i] : 0);
		if (sqlite3_step(st) != SQLITE_DONE) {
			ret = tdb_sql_error(db, "event_fields");
			sqlite3_finalize(st);
			return ret;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);

	ret = grow_codec_types(db, id);
	if (ret)
		return ret;
	db->nfields_by_type[id] = missing ? 0 : nfields;
	for (i = 0; i < nfields; i++)
		if (is_pfn_field(names[i]) && db->pfn_field[id] < 0)
			db->pfn_field[id] = i;
	/* Readers of this connection see the new type too. */
	ret = add_type_entry(db, id, system, name, missing, nfields, names);
	return ret ? ret : id;
}

uint64_t tdb_next_seq(const struct tdb *db)
{
	return db->next_seq;
}

int tdb_flush(struct tdb *db)
{
	int64_t pmin = INT64_MAX, pmax = INT64_MIN;
	uint64_t tmin = UINT64_MAX, tmax = 0;
	size_t len;
	int i, ret;

	if (db->nstack_pending) {
		ret = flush_stacks(db);
		if (ret)
			return ret;
	}
	if (!db->npending)
		return 0;
	if (!db->encbuf) {
		db->encbuf = malloc((size_t)TDB_CHUNK_EVENTS * TDB_MAX_ENC);
		if (!db->encbuf)
			return bc_error(BC_E_NOMEM, "out of memory");
	}
	for (i = 0; i < db->npending; i++) {
		const struct bc_event *e = &db->pending[i];
		int pf = e->type < db->nr_types ? db->pfn_field[e->type] : -1;

		if (e->ts < tmin)
			tmin = e->ts;
		if (e->ts > tmax)
			tmax = e->ts;
		if (pf >= 0 && pf < e->nfields && e->field[pf] >= 0) {
			if (e->field[pf] < pmin)
				pmin = e->field[pf];
			if (e->field[pf] > pmax)
				pmax = e->field[pf];
		}
	}
	len = tdb_encode_events(db->pending, db->npending, db->nfields_by_type, db->nr_types,
				db->encbuf);
	sqlite3_bind_int64(db->ins_chunk, 1, (int64_t)db->pending[0].seq);
	sqlite3_bind_int(db->ins_chunk, 2, db->npending);
	sqlite3_bind_int64(db->ins_chunk, 3, (int64_t)tmin);
	sqlite3_bind_int64(db->ins_chunk, 4, (int64_t)tmax);
	if (pmin <= pmax) {
		sqlite3_bind_int64(db->ins_chunk, 5, pmin);
		sqlite3_bind_int64(db->ins_chunk, 6, pmax);
	}
	sqlite3_bind_blob(db->ins_chunk, 7, db->encbuf, (int)len, SQLITE_STATIC);
	ret = tdb_step_done(db, db->ins_chunk, "event_chunks");
	if (ret)
		return ret;
	db->npending = 0;
	/* A chunk is many events: commit often enough that a kill loses little. */
	db->writes += TDB_TXN_WRITES / 16;
	return tdb_write_done(db);
}

int tdb_append_event(struct tdb *db, struct bc_event *ev)
{
	if (ev->type >= db->nr_types || db->nfields_by_type[ev->type] < 0)
		return bc_error(BC_E_INVAL, "event of unregistered type %u", ev->type);
	if (!db->pending) {
		db->pending = malloc(TDB_CHUNK_EVENTS * sizeof(*db->pending));
		if (!db->pending)
			return bc_error(BC_E_NOMEM, "out of memory");
	}
	ev->seq = db->next_seq++;
	db->pending[db->npending++] = *ev;
	if (db->npending == TDB_CHUNK_EVENTS)
		return tdb_flush(db);
	return 0;
}

int tdb_add_marker(struct tdb *db, uint64_t ts, int cpu, int pid, const char *text)
{
	sqlite3_bind_int64(db->ins_marker, 1, (int64_t)db->next_seq);
	sqlite3_bind_int64(db->ins_marker, 2, (int64_t)ts);
	sqlite3_bind_int(db->ins_marker, 3, cpu);
	sqlite3_bind_int(db->ins_marker, 4, pid);
	sqlite3_bind_text(db->ins_marker, 5, text, -1, SQLITE_TRANSIENT);
	return tdb_step_done(db, db->ins_marker, "markers");
}

int tdb_add_stack_frames(struct tdb *db, const char *frames, int64_t *id)
{
	int rc;

	sqlite3_bind_text(db->ins_frames, 1, frames, -1, SQLITE_STATIC);
	rc = sqlite3_step(db->ins_frames);
	*id = rc == SQLITE_DONE && sqlite3_changes(db->sq) ? sqlite3_last_insert_rowid(db->sq) : 0;
	sqlite3_reset(db->ins_frames);
	sqlite3_clear_bindings(db->ins_frames);
	if (rc != SQLITE_DONE)
		return tdb_sql_error(db, "stack_frames");
	if (*id)
		return tdb_write_done(db);
	/* stored before (the caller's cache of distinct stacks forgot it) */
	sqlite3_bind_text(db->get_frames, 1, frames, -1, SQLITE_STATIC);
	rc = sqlite3_step(db->get_frames);
	*id = rc == SQLITE_ROW ? sqlite3_column_int64(db->get_frames, 0) : 0;
	sqlite3_reset(db->get_frames);
	sqlite3_clear_bindings(db->get_frames);
	return rc == SQLITE_ROW ? 0 : tdb_sql_error(db, "stack_frames");
}

/*
 * The statements of a full batch: "... VALUES (?, ?), (?, ?), ..." (@appended false),
 * or, for seqs that each come one past the largest stored, "INSERT INTO
 * event_stacks(stack) VALUES (?), (?), ...": SQLite then gives each row the largest
 * rowid plus one (its documented choice for a table without AUTOINCREMENT), appended
 * to the b-tree without a search for its place, at half the cost of a row.
 */
static int prepare_stack_batch(struct tdb *db, bool appended)
{
	static const char head[] = "INSERT OR REPLACE INTO event_stacks(seq, stack) VALUES ";
	static const char ahead[] = "INSERT INTO event_stacks(stack) VALUES ";
	const char *row = appended ? "(?)" : "(?, ?)";
	char sql[sizeof(head) + TDB_STACK_BATCH * 8];
	size_t len = strlen(appended ? ahead : head), rlen = strlen(row);

	memcpy(sql, appended ? ahead : head, len);
	for (int i = 0; i < TDB_STACK_BATCH; i++) {
		if (i) {
			memcpy(sql + len, ", ", 2);
			len += 2;
		}
		memcpy(sql + len, row, rlen);
		len += rlen;
	}
	sql[len] = '\0';
	return tdb_prepare_once(db, appended ? &db->ins_stacks_appended : &db->ins_stacks, sql);
}

/* The largest seq in event_stacks (0: none), once per connection. */
static int stack_max_seq(struct tdb *db)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (db->stack_max_known)
		return 0;
	if (sqlite3_prepare_v2(db->sq, "SELECT coalesce(max(seq), 0) FROM event_stacks", -1, &st,
			       NULL) != SQLITE_OK)
		return tdb_sql_error(db, "event_stacks");
	rc = sqlite3_step(st);
	db->stack_max = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return tdb_sql_error(db, "event_stacks");
	db->stack_max_known = true;
	return 0;
}

/* A full batch whose seqs run on from the largest stored: rowids SQLite picks. */
static int flush_appended(struct tdb *db, int n)
{
	int i, ret = prepare_stack_batch(db, true);

	for (i = 0; !ret && i < n; i++)
		sqlite3_bind_int64(db->ins_stacks_appended, i + 1, db->stack_pending[2 * i + 1]);
	if (!ret)
		ret = tdb_step_done(db, db->ins_stacks_appended, "event_stacks");
	if (ret)
		return ret;
	db->stack_max += n;
	/* the rowids are SQLite's choice: check that they are the seqs asked for */
	if (sqlite3_last_insert_rowid(db->sq) != db->stack_max) {
		db->failed = true;
		return bc_error(BC_E_DB, "%s: event_stacks: rows stored at seq %lld, not %lld",
				db->path, (long long)sqlite3_last_insert_rowid(db->sq),
				(long long)db->stack_max);
	}
	return 0;
}

/* Write the pending event stacks: a full batch in one statement, a rest row by row. */
static int flush_stacks(struct tdb *db)
{
	int n = db->nstack_pending, i, ret = 0;
	int64_t top;

	db->nstack_pending = 0;
	if (n == TDB_STACK_BATCH) {
		ret = stack_max_seq(db);
		for (i = 0; !ret && i < n && db->stack_pending[2 * i] == db->stack_max + 1 + i; i++)
			;
		if (ret || i == n)
			return ret ? ret : flush_appended(db, n);
		ret = prepare_stack_batch(db, false);
		for (i = 0; !ret && i < 2 * n; i++)
			sqlite3_bind_int64(db->ins_stacks, i + 1, db->stack_pending[i]);
		if (!ret)
			ret = tdb_step_done(db, db->ins_stacks, "event_stacks");
	} else {
		for (i = 0; !ret && i < n; i++) {
			sqlite3_bind_int64(db->ins_stack, 1, db->stack_pending[2 * i]);
			sqlite3_bind_int64(db->ins_stack, 2, db->stack_pending[2 * i + 1]);
			ret = tdb_step_done(db, db->ins_stack, "event_stacks");
		}
	}
	for (i = 0, top = db->stack_max; i < n; i++)
		if (db->stack_pending[2 * i] > top)
			top = db->stack_pending[2 * i];
	db->stack_max = top;
	return ret;
}

int tdb_add_event_stack(struct tdb *db, uint64_t seq, int64_t id)
{
	db->stack_pending[2 * db->nstack_pending] = (int64_t)seq;
	db->stack_pending[2 * db->nstack_pending + 1] = id;
	if (++db->nstack_pending == TDB_STACK_BATCH)
		return flush_stacks(db);
	return 0;
}

int tdb_add_stack(struct tdb *db, uint64_t seq, const char *frames)
{
	int64_t id;
	int ret = tdb_add_stack_frames(db, frames, &id);

	return ret ? ret : tdb_add_event_stack(db, seq, id);
}

int tdb_add_comm(struct tdb *db, int pid, const char *comm)
{
	sqlite3_bind_int(db->ins_comm, 1, pid);
	sqlite3_bind_text(db->ins_comm, 2, comm, -1, SQLITE_TRANSIENT);
	return tdb_step_done(db, db->ins_comm, "comms");
}

int tdb_add_lost(struct tdb *db, int cpu, uint64_t ts_from, uint64_t ts_to, int64_t count,
		 uint64_t seq)
{
	sqlite3_bind_int(db->ins_lost, 1, cpu);
	sqlite3_bind_int64(db->ins_lost, 2, (int64_t)ts_from);
	sqlite3_bind_int64(db->ins_lost, 3, (int64_t)ts_to);
	sqlite3_bind_int64(db->ins_lost, 4, count);
	sqlite3_bind_int64(db->ins_lost, 5, (int64_t)seq);
	return tdb_step_done(db, db->ins_lost, "lost_events");
}

int tdb_add_cpu_stat(struct tdb *db, int cpu, const char *key, int64_t value)
{
	sqlite3_bind_int(db->ins_cpu_stat, 1, cpu);
	sqlite3_bind_text(db->ins_cpu_stat, 2, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(db->ins_cpu_stat, 3, value);
	return tdb_step_done(db, db->ins_cpu_stat, "cpu_stats");
}
