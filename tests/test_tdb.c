// SPDX-License-Identifier: GPL-2.0
/*
 * db/: schema round trip, event chunk codec, and refusal of bad files.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-local.h"
#include "db/tdb-trace.h"
#include "tests/fixture.h"

START_TEST(test_varint_roundtrip)
{
	const int64_t vals[] = { 0, 1, -1, 127, 128, -129, INT64_MAX, INT64_MIN, 0x640000, -2 };
	uint8_t buf[16];
	size_t i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		size_t n = bc_put_uvarint(buf, bc_zigzag(vals[i])), pos = 0;
		uint64_t v;

		ck_assert_int_le(n, 10);
		ck_assert_int_eq(bc_get_uvarint(buf, n, &pos, &v), 0);
		ck_assert_uint_eq(pos, n);
		ck_assert_int_eq(bc_unzigzag(v), vals[i]);
		/* One byte short must be reported, not read past. */
		pos = 0;
		ck_assert_int_eq(bc_get_uvarint(buf, n - 1, &pos, &v), -BC_E_TRUNCATED);
	}
}
END_TEST

/*
 * tdb_decode_event() decodes values of every length alike whether ten bytes follow
 * (its fast path) or fewer (bc_get_uvarint()), and refuses a truncated or overlong
 * value the same way.
 */
START_TEST(test_decode_event_lengths)
{
	const int64_t vals[] = { 0, -1, 127, -129, 1ll << 20, -(1ll << 34), 1ll << 48,
				 INT64_MAX, INT64_MIN, 0x640000 };
	const int nfields[2] = { -1, 10 };
	uint8_t buf[256];
	struct bc_event ev = { .type = 1, .cpu = 3, .ts = 123456789012345ull, .pid = -7,
			       .nfields = 10 }, got;
	size_t n, pos, slack;
	uint64_t prev;
	int i;

	for (i = 0; i < 10; i++)
		ev.field[i] = vals[i];
	n = tdb_encode_events(&ev, 1, nfields, 2, buf);
	for (slack = 0; slack <= 12; slack += 12) {
		memset(buf + n, 0xff, slack);
		pos = 0;
		prev = 0;
		memset(&got, 0, sizeof(got));
		ck_assert_int_eq(tdb_decode_event(buf, n + slack, &pos, &prev, nfields, 2, &got), 0);
		ck_assert_uint_eq(pos, n);
		ck_assert_uint_eq(got.ts, ev.ts);
		ck_assert_int_eq(got.pid, ev.pid);
		for (i = 0; i < 10; i++)
			ck_assert_int_eq(got.field[i], vals[i]);
		/* cut short: an error, never a read past the end */
		pos = 0;
		prev = 0;
		ck_assert_int_lt(tdb_decode_event(buf, n - 1, &pos, &prev, nfields, 2, &got), 0);
	}
	/* an eleven-byte value is overlong, with or without bytes after it */
	memset(buf, 0xff, 10);
	buf[10] = 0x01;
	memset(buf + 11, 0, 20);
	for (slack = 11; slack <= 31; slack += 20) {
		pos = 0;
		prev = 0;
		ck_assert_int_eq(tdb_decode_event(buf, slack, &pos, &prev, nfields, 2, &got),
				 -BC_E_FORMAT);
	}
}
END_TEST

static const char *const alloc_fields[] = { "pfn", "order", "gfp_flags", "migratetype" };
static const int alloc_sizes[] = { 8, 4, 8, 4 };
static const bool alloc_signed[] = { false, false, false, true };

/* Write N events of two types, read them back identically, in order. */
START_TEST(test_events_roundtrip)
{
	char *path = fixture_tmpfile("rt.db");
	struct tdb_cursor *cur;
	struct bc_event ev, got;
	struct tdb *db;
	int t1, t2, i, n = 3 * TDB_CHUNK_EVENTS + 17;

	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	t1 = tdb_add_event_type(db, "kmem", "mm_page_alloc", false, "format text", 4,
				alloc_fields, alloc_sizes, alloc_signed);
	ck_assert_int_gt(t1, 0);
	t2 = tdb_add_event_type(db, "kmem", "mm_page_free", false, NULL, 2, alloc_fields,
				alloc_sizes, alloc_signed);
	ck_assert_int_gt(t2, t1);
	ck_assert_int_gt(tdb_add_event_type(db, "cma", "cma_alloc_start", true, NULL, 0, NULL,
					    NULL, NULL), t2);
	for (i = 0; i < n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.ts = 1000000000ull + (uint64_t)i * 37 - (i % 5 == 0 ? 3 : 0);
		ev.cpu = i & 1;
		ev.pid = (i % 3) ? 1234 + i : -1;
		ev.type = (i & 2) ? t1 : t2;
		ev.nfields = (i & 2) ? 4 : 2;
		ev.field[0] = i % 7 ? 0x100000 + i * 512 : -1;
		ev.field[1] = i % 11;
		ev.field[2] = 0x100cca;
		ev.field[3] = i % 4 - 1;
		ck_assert_int_eq(tdb_append_event(db, &ev), 0);
		ck_assert_uint_eq(ev.seq, i);
	}
	ck_assert_int_eq(tdb_add_marker(db, 5, 0, 1, "hello"), 0);
	ck_assert_int_eq(tdb_finish(db), 0);
	ck_assert_int_eq(tdb_close(db), 0);

	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_int_eq(tdb_event_count(db), n);
	ck_assert_int_eq(tdb_get_meta_int(db, "complete", 0), 1);
	ck_assert_int_eq(tdb_event_type_id(db, "kmem", "mm_page_alloc"), t1);
	ck_assert_int_eq(tdb_event_type_id(db, "cma", "cma_alloc_start"), 0);
	ck_assert_int_eq(tdb_field_index(db, t1, "migratetype"), 3);
	ck_assert_int_eq(tdb_cursor_open(db, 0, UINT64_MAX, &cur), 0);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(tdb_cursor_next(cur, &got), 1);
		ck_assert_uint_eq(got.seq, i);
		ck_assert_uint_eq(got.ts, 1000000000ull + (uint64_t)i * 37 - (i % 5 == 0 ? 3 : 0));
		ck_assert_int_eq(got.cpu, i & 1);
		ck_assert_int_eq(got.pid, (i % 3) ? 1234 + i : -1);
		ck_assert_int_eq(got.nfields, (i & 2) ? 4 : 2);
		ck_assert_int_eq(got.field[0], i % 7 ? 0x100000 + i * 512 : -1);
		ck_assert_int_eq(got.field[1], i % 11);
		if (i & 2)
			ck_assert_int_eq(got.field[3], i % 4 - 1);
	}
	ck_assert_int_eq(tdb_cursor_next(cur, &got), 0);
	tdb_cursor_close(cur);

	/* A window in the middle of a chunk. */
	ck_assert_int_eq(tdb_cursor_open(db, TDB_CHUNK_EVENTS + 5, TDB_CHUNK_EVENTS + 9, &cur), 0);
	for (i = 5; i < 9; i++) {
		ck_assert_int_eq(tdb_cursor_next(cur, &got), 1);
		ck_assert_uint_eq(got.seq, TDB_CHUNK_EVENTS + i);
	}
	ck_assert_int_eq(tdb_cursor_next(cur, &got), 0);
	tdb_cursor_close(cur);
	tdb_close(db);

	/* The file is private: physical addresses are sensitive. */
	{
		struct stat sb;

		ck_assert_int_eq(stat(path, &sb), 0);
		ck_assert_int_eq(sb.st_mode & 0777, 0600);
	}
	fixture_rm(path);
}
END_TEST

/*
 * The types the writing connection holds after each add (tdb_add_event_type() adds to
 * them, not reloading all) are the ones a reader loads from the file.
 */
static void types_text(struct tdb *db, char *buf, size_t size)
{
	struct tdb_event_type **types;
	size_t len = 0;
	int nr, i, j;

	ck_assert_int_eq(tdb_event_types(db, &types, &nr), 0);
	buf[0] = '\0';
	for (i = 0; i < nr; i++) {
		if (!types[i])
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%d %s:%s %d %d", types[i]->id,
					types[i]->system, types[i]->name, types[i]->missing,
					types[i]->nfields);
		for (j = 0; j < types[i]->nfields; j++)
			len += (size_t)snprintf(buf + len, size - len, " %s",
						types[i]->field_names[j]);
		len += (size_t)snprintf(buf + len, size - len, ";");
		ck_assert_uint_lt(len, size);
	}
}

START_TEST(test_types_as_read)
{
	char *path = fixture_tmpfile("types.db"), written[1024], read[1024];
	struct tdb *db;

	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	ck_assert_int_gt(tdb_add_event_type(db, "kmem", "mm_page_alloc", false, "f", 4,
					    alloc_fields, alloc_sizes, alloc_signed), 0);
	ck_assert_int_gt(tdb_add_event_type(db, "cma", "cma_alloc_start", true, NULL, 0, NULL,
					    NULL, NULL), 0);
	ck_assert_int_gt(tdb_add_event_type(db, "kmem", "mm_page_free", false, NULL, 2,
					    alloc_fields, NULL, NULL), 0);
	types_text(db, written, sizeof(written));
	ck_assert_int_eq(tdb_field_index(db, tdb_event_type_id(db, "kmem", "mm_page_free"),
					 "order"), 1);
	ck_assert_int_eq(tdb_finish(db), 0);
	ck_assert_int_eq(tdb_close(db), 0);
	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	types_text(db, read, sizeof(read));
	ck_assert_str_eq(written, read);
	tdb_close(db);
	fixture_rm(path);
}
END_TEST

START_TEST(test_not_sqlite)
{
	char *path = fixture_tmpfile("garbage.db");
	struct tdb *db;
	FILE *fp = fopen(path, "w");

	fputs("this is not a database, just text that goes on for a while.......\n", fp);
	fclose(fp);
	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), -BC_E_FORMAT);
	ck_assert_ptr_null(db);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), path));
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "not a bigchunk capture"));
	fixture_rm(path);
}
END_TEST

START_TEST(test_newer_schema)
{
	char *path = fixture_tmpfile("newer.db");
	struct tdb *db;

	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	ck_assert_int_eq(tdb_exec(db, "PRAGMA user_version = 99"), 0);
	tdb_close(db);
	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), -BC_E_VERSION);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "newer"));
	fixture_rm(path);
}
END_TEST

/* Give a fresh capture the version 2 'stacks' table (one text per event) instead of
 * version 3's distinct stacks, with @n rows. */
static void old_stacks(struct tdb *db, int n)
{
	char sql[160];

	ck_assert_int_eq(tdb_exec(db, "DROP VIEW stacks; DROP TABLE event_stacks; "
				  "DROP TABLE stack_frames; CREATE TABLE stacks (seq INTEGER "
				  "PRIMARY KEY, frames TEXT NOT NULL)"), 0);
	for (int i = 0; i < n; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO stacks VALUES (%d, 'f%d+0x1\nmain+0x2')",
			 i * 3, i % 2);
		ck_assert_int_eq(tdb_exec(db, sql), 0);
	}
}

/*
 * A capture of schema version 1 (the version 2 tables dropped, stacks one text per
 * event) reads as it is, and an open for writing migrates it: the tables appear,
 * user_version and meta say the current version, and what was stored stays.
 */
START_TEST(test_migrate_v1)
{
	static const char *const v2[] = { "probes", "probe_pages", "prediction_runs",
		"predictions", "prediction_candidates", "verify_results", "replay_scores",
		"replay_anomalies", "check_runs", "check_results", "check_violations", NULL };
	char *path = fixture_tmpfile("v1.db"), sql[128], *v;
	struct tdb *db;
	sqlite3_stmt *st;
	int i;

	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	ck_assert_int_eq(tdb_set_meta(db, "kept", "yes"), 0);
	ck_assert_int_eq(tdb_finish(db), 0);
	for (i = 0; v2[i]; i++) {
		snprintf(sql, sizeof(sql), "DROP TABLE %s", v2[i]);
		ck_assert_int_eq(tdb_exec(db, sql), 0);
	}
	old_stacks(db, 3);
	ck_assert_int_eq(tdb_exec(db, "PRAGMA user_version = 1"), 0);
	ck_assert_int_eq(tdb_set_meta(db, "schema_version", "1"), 0);
	tdb_close(db);

	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	v = tdb_get_meta(db, "schema_version");
	ck_assert_str_eq(v, "1");
	free(v);
	ck_assert_int_eq(tdb_stack(db, 3, &v), 0);
	ck_assert_str_eq(v, "f1+0x1\nmain+0x2");
	free(v);
	tdb_close(db);

	ck_assert_int_eq(tdb_open(path, TDB_WRITE, &db), 0);
	for (i = 0; v2[i]; i++) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", v2[i]);
		ck_assert_msg(sqlite3_prepare_v2(tdb_sqlite(db), sql, -1, &st, NULL) == SQLITE_OK,
			      "%s missing after the migration", v2[i]);
		sqlite3_finalize(st);
	}
	ck_assert_int_eq(sqlite3_prepare_v2(tdb_sqlite(db), "PRAGMA user_version", -1, &st,
					    NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), TDB_SCHEMA_VERSION);
	sqlite3_finalize(st);
	v = tdb_get_meta(db, "schema_version");
	ck_assert_int_eq(atoi(v), TDB_SCHEMA_VERSION);
	free(v);
	ck_assert_int_eq(tdb_stack(db, 3, &v), 0);
	ck_assert_str_eq(v, "f1+0x1\nmain+0x2");
	free(v);
	v = tdb_get_meta(db, "kept");
	ck_assert_str_eq(v, "yes");
	free(v);
	tdb_close(db);
	fixture_rm(path);
}
END_TEST

/*
 * N events sharing K stacks store K texts; the view 'stacks' gives each event its own,
 * a text stored again (a writer's cache forgot it) keeps its id, and an event's stack
 * given twice is replaced (one per event). 100 events: a full batch of event stacks
 * and a rest that tdb_finish() writes.
 * Expect: K rows in stack_frames, N in stacks, each seq's frames as added.
 */
START_TEST(test_stacks_dedup)
{
	static const char *const text[] = { "a+0x1\nmain+0x10", "b+0x2\nmain+0x10",
					    "0xffffffff81000000" };
	char *path = fixture_tmpfile("dedup.db"), *v;
	int64_t id, again;
	struct tdb *db;
	int i;

	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(tdb_add_stack(db, (uint64_t)i * 2, text[i % 3]), 0);
	ck_assert_int_eq(tdb_add_stack_frames(db, text[1], &id), 0);
	ck_assert_int_eq(tdb_add_stack_frames(db, text[1], &again), 0);
	ck_assert_int_gt(id, 0);
	ck_assert_int_eq(again, id);
	ck_assert_int_eq(tdb_add_event_stack(db, 4, id), 0);	/* was text[2] */
	ck_assert_int_eq(tdb_finish(db), 0);
	ck_assert_int_eq(tdb_close(db), 0);

	ck_assert_int_eq(fixture_sql_count(path, "SELECT count(*) FROM stack_frames"), 3);
	ck_assert_int_eq(fixture_sql_count(path, "SELECT count(*) FROM stacks"), 100);
	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(tdb_stack(db, (uint64_t)i * 2, &v), 0);
		ck_assert_ptr_nonnull(v);
		ck_assert_str_eq(v, text[i == 2 ? 1 : i % 3]);
		free(v);
		ck_assert_int_eq(tdb_stack(db, (uint64_t)i * 2 + 1, &v), 0);
		ck_assert_ptr_null(v);
	}
	tdb_close(db);
	fixture_rm(path);
}
END_TEST

/*
 * A real capture of schema version 2 with stacks (traces/default.db, record --stacks):
 * read as it is, then migrated by an open for writing.
 * Expect: the same (seq, frames) rows before and after, one stack_frames row per
 * distinct text, 'stacks' a view, the version 3.
 */
START_TEST(test_migrate_v2_stacks)
{
	static const char q[] = "SELECT seq, frames FROM stacks ORDER BY seq";
	char *path = fixture_tmpfile("v2-stacks.db"), *before, *after;
	long long distinct;
	struct tdb *db;

	fixture_copy(fixture_path("traces/default.db"), path);
	ck_assert_int_eq(fixture_sql_count(path, "PRAGMA user_version"), 2);
	before = fixture_sql_rows(path, q);
	distinct = fixture_sql_count(path, "SELECT count(DISTINCT frames) FROM stacks");
	ck_assert_int_gt(distinct, 10);
	ck_assert_int_gt(fixture_sql_count(path, "SELECT count(*) FROM stacks"), 10 * distinct);

	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	tdb_close(db);
	ck_assert_int_eq(fixture_sql_count(path, "PRAGMA user_version"), 2);
	ck_assert_int_eq(tdb_open(path, TDB_WRITE, &db), 0);
	ck_assert_int_eq(tdb_close(db), 0);

	ck_assert_int_eq(fixture_sql_count(path, "PRAGMA user_version"), TDB_SCHEMA_VERSION);
	ck_assert_int_eq(fixture_sql_count(path, "SELECT count(*) FROM sqlite_master WHERE "
					   "name = 'stacks' AND type = 'view'"), 1);
	ck_assert_int_eq(fixture_sql_count(path, "SELECT count(*) FROM stack_frames"), distinct);
	after = fixture_sql_rows(path, q);
	ck_assert_msg(!strcmp(after, before), "the stacks read otherwise after the migration");
	free(before);
	free(after);
	fixture_rm(path);
}
END_TEST

START_TEST(test_plain_sqlite_refused)
{
	char *path = fixture_tmpfile("plain.db");
	struct tdb *db;
	sqlite3 *sq;

	ck_assert_int_eq(sqlite3_open(path, &sq), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(sq, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);
	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), -BC_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "no schema version"));
	fixture_rm(path);
}
END_TEST

START_TEST(test_exists_refused)
{
	char *path = fixture_tmpfile("exists.db");
	struct tdb *db;

	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	tdb_close(db);
	ck_assert_int_eq(tdb_create(path, false, &db), -BC_E_INVAL);
	ck_assert_int_eq(tdb_create(path, true, &db), 0);
	tdb_close(db);
	fixture_rm(path);
}
END_TEST

/* A corrupt chunk is reported with the chunk and byte, never decoded into garbage. */
START_TEST(test_corrupt_chunk)
{
	char *path = fixture_tmpfile("corrupt.db");
	struct tdb_cursor *cur;
	struct bc_event ev = { 0 };
	struct tdb *db;
	int t, i, ret;

	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	t = tdb_add_event_type(db, "kmem", "mm_page_free", false, NULL, 2, alloc_fields,
			       alloc_sizes, alloc_signed);
	for (i = 0; i < 100; i++) {
		ev.type = t;
		ev.nfields = 2;
		ev.ts = i;
		ck_assert_int_eq(tdb_append_event(db, &ev), 0);
	}
	tdb_finish(db);
	ck_assert_int_eq(tdb_exec(db, "UPDATE event_chunks SET data = substr(data, 1, 150)"), 0);
	tdb_close(db);
	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_int_eq(tdb_cursor_open(db, 0, UINT64_MAX, &cur), 0);
	while ((ret = tdb_cursor_next(cur, &ev)) == 1)
		;
	ck_assert_int_eq(ret, -BC_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "corrupt"));
	tdb_cursor_close(cur);
	tdb_close(db);
	fixture_rm(path);
}
END_TEST

/* A full disk is an error naming the file, never a silently short capture. */
START_TEST(test_disk_full)
{
	char dir[] = "/tmp/bc-full-XXXXXX", path[64];
	struct bc_event ev = { 0 };
	struct tdb *db;
	int t, i, ret = 0;

	if (geteuid() != 0) {
		fixture_skip("needs root to mount a small tmpfs");
		return;
	}
	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (mount("tmpfs", dir, "tmpfs", 0, "size=256k") != 0) {
		fixture_skip("cannot mount tmpfs: %m");
		rmdir(dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/full.db", dir);
	ret = tdb_create(path, false, &db);
	if (!ret) {
		t = tdb_add_event_type(db, "kmem", "mm_page_free", false, NULL, 2, alloc_fields,
				       alloc_sizes, alloc_signed);
		for (i = 0; i < 1000000 && !ret; i++) {
			ev.type = t;
			ev.nfields = 2;
			ev.ts = (uint64_t)i * 1000003;
			ev.field[0] = (int64_t)i * 7919;
			ret = tdb_append_event(db, &ev);
		}
		if (!ret)
			ret = tdb_finish(db);
		tdb_close(db);
	}
	umount(dir);
	rmdir(dir);
	ck_assert_int_eq(ret, -BC_E_NOSPC);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "full.db"));
}
END_TEST

/*
 * A new capture is a copy of the database image made at build time (db/mkschema): it
 * holds exactly what running db/schema.sql on an empty file makes (every table, index
 * and view with its SQL, in the same order, and user_version), and takes writes.
 */
START_TEST(test_schema_image)
{
	static const char q[] = "SELECT type || ' ' || name || ' ' || tbl_name || ' ' || "
				"coalesce(sql, '') FROM sqlite_master ORDER BY rowid";
	char *path = fixture_tmpfile("image.db"), *ref = fixture_tmpfile("ref.db");
	struct tdb *db;
	char *got, *want;
	sqlite3 *sq;

	ck_assert_int_eq(tdb_create(path, true, &db), 0);
	ck_assert_int_eq(tdb_set_meta(db, "k", "v"), 0);
	ck_assert_int_eq(tdb_finish(db), 0);
	ck_assert_int_eq(tdb_close(db), 0);
	ck_assert_int_eq(sqlite3_open(ref, &sq), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(sq, "PRAGMA page_size=4096", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(sq, tdb_schema_sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sq);
	got = fixture_sql_rows(path, q);
	want = fixture_sql_rows(ref, q);
	ck_assert_ptr_nonnull(got);
	ck_assert_ptr_nonnull(want);
	ck_assert_str_eq(got, want);
	ck_assert_int_eq(fixture_sql_count(path, "PRAGMA user_version"), TDB_SCHEMA_VERSION);
	ck_assert_int_eq(fixture_sql_count(path, "SELECT count(*) FROM meta WHERE key = 'k'"), 1);
	free(got);
	got = fixture_sql_rows(path, "PRAGMA integrity_check");
	ck_assert_str_eq(got, "ok\n");
	free(got);
	free(want);
	unlink(path);
	unlink(ref);
}
END_TEST

/*
 * Event stacks in every order the decoder can hand them over: runs of seqs one past the
 * largest stored (batches stored with rowids SQLite picks), gaps, a seq below the
 * largest, a seq given twice (the later stack wins), a last partial batch, and more
 * runs written through a second connection to the same file.
 * Expect: event_stacks holds exactly the (seq, stack) pairs asked for.
 */
START_TEST(test_event_stacks_orders)
{
	enum { N = 700 };
	static int64_t want[N + 200];
	char *path = fixture_tmpfile("orders.db"), q[96];
	int64_t id[3], seq = 0;
	struct tdb *db;
	int i, k, rows = 0;

	memset(want, 0, sizeof(want));
	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	for (k = 0; k < 3; k++) {
		snprintf(q, sizeof(q), "f%d+0x1", k);
		ck_assert_int_eq(tdb_add_stack_frames(db, q, &id[k]), 0);
	}
	for (i = 0; i < N; i++) {
		/* mostly the next seq; every 97th skips one; every 150th goes back 3 */
		seq = i % 150 == 149 ? seq - 3 : seq + (i % 97 == 96 ? 2 : 1);
		want[seq] = id[i % 3];
		ck_assert_int_eq(tdb_add_event_stack(db, (uint64_t)seq, id[i % 3]), 0);
	}
	ck_assert_int_eq(tdb_finish(db), 0);
	ck_assert_int_eq(tdb_close(db), 0);
	ck_assert_int_eq(tdb_open(path, TDB_WRITE, &db), 0);
	for (i = 0; i < 150; i++) {
		seq = (int64_t)N + 10 + i;
		want[seq] = id[(i + 1) % 3];
		ck_assert_int_eq(tdb_add_event_stack(db, (uint64_t)seq, id[(i + 1) % 3]), 0);
	}
	ck_assert_int_eq(tdb_finish(db), 0);
	ck_assert_int_eq(tdb_close(db), 0);

	for (i = 0; i < N + 200; i++) {
		if (!want[i])
			continue;
		rows++;
		snprintf(q, sizeof(q), "SELECT stack FROM event_stacks WHERE seq = %d", i);
		ck_assert_msg(fixture_sql_count(path, q) == want[i], "seq %d: stack %lld, want %lld",
			      i, fixture_sql_count(path, q), (long long)want[i]);
	}
	ck_assert_int_eq(fixture_sql_count(path, "SELECT count(*) FROM event_stacks"), rows);
	fixture_rm(path);
}
END_TEST

Suite *tdb_suite(void)
{
	Suite *s = suite_create("tdb");
	TCase *tc = tcase_create("core");
	TCase *lim = tcase_create("limits");

	tcase_add_test(tc, test_varint_roundtrip);
	tcase_add_test(tc, test_decode_event_lengths);
	tcase_add_test(tc, test_events_roundtrip);
	tcase_add_test(tc, test_types_as_read);
	tcase_add_test(tc, test_schema_image);
	suite_add_tcase(s, tc);
	tcase_add_test(lim, test_not_sqlite);
	tcase_add_test(lim, test_newer_schema);
	tcase_add_test(lim, test_migrate_v1);
	tcase_add_test(lim, test_migrate_v2_stacks);
	tcase_add_test(tc, test_stacks_dedup);
	tcase_add_test(tc, test_event_stacks_orders);
	tcase_add_test(lim, test_plain_sqlite_refused);
	tcase_add_test(lim, test_exists_refused);
	tcase_add_test(lim, test_corrupt_chunk);
	tcase_add_test(lim, test_disk_full);
	suite_add_tcase(s, lim);
	return s;
}
