// SPDX-License-Identifier: GPL-2.0
/*
 * integrity: commands never present a result from part of a capture, or from a damaged
 * one, as whole (cli_open_capture(), db/tdb-check.h); a failed write is rolled back,
 * never committed; the files bigchunk writes are new, private and not a symlink's
 * target (common/wfile.h). Every case is made from a copy of a bundled capture.
 */
#include <check.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/err.h"
#include "db/tdb.h"
#include "tests/fixture.h"

static char *copy_capture(const char *rel, const char *name)
{
	char *p = fixture_tmpfile(name);

	fixture_copy(fixture_path(rel), p);
	return p;
}

/* The commands that read a capture, each giving a result (exit 0) on traces/idle.db. */
static const char *const readers[] = {
	"replay --no-store %s",
	"check %s",
	"predict --no-store --size 2M %s",
	"info %s",
	"query %s 'SELECT count(*) FROM events'",
};
#define NR_READERS	(int)(sizeof(readers) / sizeof(readers[0]))

/* ---- meta complete = 0 ---- */

START_TEST(test_incomplete_warns)
{
	char *db = copy_capture("traces/idle.db", "incomplete.db"), *out;
	int rc;

	rc = fixture_run_bc(&out, readers[_i], db);
	ck_assert_msg(rc == 0, "%s on a complete capture: exit %d: %s", readers[_i], rc, out);
	ck_assert_msg(!strstr(out, "INCOMPLETE"), "%s: a warning on a whole capture: %s",
		      readers[_i], out);
	free(out);

	fixture_sql_exec(db, "UPDATE meta SET value = '0' WHERE key = 'complete'; "
			 "DELETE FROM meta WHERE key = 'ended_ns'");
	rc = fixture_run_bc(&out, readers[_i], db);
	ck_assert_msg(rc == 1, "%s on an incomplete capture: exit %d, not 1: %s", readers[_i],
		      rc, out);
	ck_assert_msg(strstr(out, "INCOMPLETE") && strstr(out, db), "no warning naming %s: %s",
		      db, out);
	/* how much is there: events, markers, snapshots, and that the end is missing */
	ck_assert_msg(strstr(out, "731 events and 309 markers stored") &&
		      strstr(out, "3 snapshots") && strstr(out, "end was never written"),
		      "%s: the warning does not say what is there: %s", readers[_i], out);
	free(out);
}
END_TEST

/* ---- a damaged file ---- */

/* @opens: the header still gives the schema version @version of the undamaged file. */
static bool quick_check_ok(const char *path, int version, bool *opens)
{
	char *t = fixture_sql_rows(path, "PRAGMA user_version");
	sqlite3 *sq;
	sqlite3_stmt *st;
	bool ok = false;

	*opens = atoi(t) == version;
	free(t);
	ck_assert_int_eq(sqlite3_open_v2(path, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(sq, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK) {
		ok = sqlite3_step(st) == SQLITE_ROW &&
		     !strcmp((const char *)sqlite3_column_text(st, 0), "ok");
		sqlite3_finalize(st);
	}
	sqlite3_close(sq);
	return ok;
}

/*
 * Overwrite the first bytes of one page after another, from the middle of the file,
 * until quick_check fails while the header and schema still read: damage inside the
 * file that only a check finds.
 */
static char *damaged_copy(void)
{
	static const char junk[12] = "\xde\xad\xbe\xef\xde\xad\xbe\xef\xde\xad\xbe\xef";
	char *db = fixture_tmpfile("damaged.db");
	struct stat sb;
	off_t page;
	int version;

	fixture_copy(fixture_path("traces/idle.db"), db);
	version = (int)fixture_sql_count(db, "PRAGMA user_version");
	ck_assert_int_ge(version, 1);
	ck_assert_int_eq(stat(db, &sb), 0);
	for (page = sb.st_size / 4096 / 2; page < sb.st_size / 4096; page++) {
		bool opens;
		int fd;

		fixture_copy(fixture_path("traces/idle.db"), db);
		fd = open(db, O_WRONLY);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(pwrite(fd, junk, sizeof(junk), page * 4096), (ssize_t)sizeof(junk));
		close(fd);
		if (!quick_check_ok(db, version, &opens) && opens)
			return db;
	}
	ck_abort_msg("no page of idle.db whose damage quick_check finds");
	return NULL;
}

START_TEST(test_damaged_refused)
{
	char *db = damaged_copy(), *out, cmd[512];
	int rc;

	rc = fixture_run_bc(&out, readers[_i], db);
	ck_assert_msg(rc == 2, "%s on a damaged capture: exit %d, not 2: %s", readers[_i], rc,
		      out);
	ck_assert_msg(strstr(out, db) && strstr(out, "damaged") && strstr(out, "quick_check") &&
		      strstr(out, "Page "), "%s: no message naming the file and SQLite's "
		      "complaint: %s", readers[_i], out);
	free(out);
	/* --force reads it and warns; a result exits 1, an unreadable part still 2 */
	snprintf(cmd, sizeof(cmd), "%s --force", readers[_i]);
	rc = fixture_run_bc(&out, cmd, db);
	ck_assert_msg(rc == 1 || rc == 2, "%s --force: exit %d: %s", readers[_i], rc, out);
	ck_assert_msg(strstr(out, "damaged"), "%s --force: no warning: %s", readers[_i], out);
	free(out);
}
END_TEST

/* Files that are not captures, and a schema version from the future: refused, with what
 * to do. */
START_TEST(test_not_a_capture)
{
	char *db = copy_capture("traces/idle.db", "future.db"), *txt = fixture_tmpfile("a.txt");
	char *other = fixture_tmpfile("other.db"), *out;
	int rc;

	fixture_sql_exec(db, "PRAGMA user_version = 99");
	rc = fixture_run_bc(&out, "check %s", db);
	ck_assert_msg(rc == 2 && strstr(out, "newer") && strstr(out, "use a newer bigchunk"),
		      "exit %d: %s", rc, out);
	free(out);
	fixture_copy(fixture_path("README.md"), txt);
	rc = fixture_run_bc(&out, "replay %s", txt);
	ck_assert_msg(rc == 2 && strstr(out, "not a bigchunk capture") &&
		      strstr(out, "bigchunk import"), "exit %d: %s", rc, out);
	free(out);
	close(open(other, O_WRONLY | O_CREAT, 0600));	/* an empty file is an empty database */
	fixture_sql_exec(other, "CREATE TABLE t (a); PRAGMA user_version = 2");
	rc = fixture_run_bc(&out, "info %s", other);
	ck_assert_msg(rc == 2 && strstr(out, "not a bigchunk capture") &&
		      strstr(out, "without the capture tables"), "exit %d: %s", rc, out);
	free(out);
}
END_TEST

/* ---- a failed write is rolled back by tdb_close() ---- */

/* Events into a new capture @path with @setup run first, until a write fails. */
static struct tdb *append_until_error(const char *path, const char *setup, int *ret)
{
	const char *names[] = { "pfn", "order" };
	struct bc_event ev = { .nfields = 2 };
	struct tdb *db;
	int type, i;

	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	type = tdb_add_event_type(db, "kmem", "mm_page_alloc", false, NULL, 2, names, NULL, NULL);
	ck_assert_int_gt(type, 0);
	ck_assert_int_eq(tdb_exec(db, setup), 0);
	ev.type = (uint16_t)type;
	for (i = 0, *ret = 0; i < 4000000 && !*ret; i++) {
		ev.ts = (uint64_t)i * 1000;
		ev.field[0] = (int64_t)((uint64_t)i * 2654435761u % 6553600);
		ev.field[1] = i % 11;
		*ret = tdb_append_event(db, &ev);
	}
	return db;
}

START_TEST(test_close_rolls_back)
{
	char *path = fixture_tmpfile("fault.db"), *full = fixture_tmpfile("full.db");
	struct tdb *db;
	int ret;

	/* a failed INSERT leaves the transaction open: the rows before it are not committed */
	db = append_until_error(path, "CREATE TRIGGER bc_fault BEFORE INSERT ON event_chunks "
				"WHEN (SELECT count(*) FROM event_chunks) >= 2 BEGIN SELECT "
				"RAISE(ABORT, 'injected fault'); END", &ret);
	ck_assert_msg(ret < 0 && strstr(bc_errmsg(), "injected fault"), "%d %s", ret,
		      bc_errmsg());
	tdb_close(db);
	ck_assert_msg(fixture_sql_count(path, "SELECT count(*) FROM event_chunks") == 0,
		      "%lld chunks committed after a failed write",
		      fixture_sql_count(path, "SELECT count(*) FROM event_chunks"));

	/* a full disk: SQLite may roll back itself; the message says what failed, once */
	db = append_until_error(full, "PRAGMA max_page_count = 60", &ret);
	ck_assert_msg(ret == -BC_E_NOSPC && strstr(bc_errmsg(), full) &&
		      strstr(bc_errmsg(), "full"), "%d %s", ret, bc_errmsg());
	tdb_close(db);
	ck_assert_msg(!strstr(bc_errmsg(), "no transaction is active"), "%s", bc_errmsg());
	ck_assert_msg(fixture_sql_count(full, "SELECT count(*) FROM meta WHERE key = 'complete' "
					"AND value = '1'") == 0, "complete after a failed write");
}
END_TEST

/* ---- a store that hits the file size limit: exit 2, the previous run intact ---- */

static const struct {
	const char *args;		/* the command, FILE.db after it */
	const char *rows;		/* what it stores */
} stores[] = {
	{ "check --store", "SELECT * FROM check_runs; SELECT * FROM check_results" },
	{ "predict --size 2M", "SELECT id, mode, nr_pages FROM prediction_runs" },
	{ "predict --verify", "SELECT run, idx, agree FROM verify_results" },
	{ "replay", "SELECT * FROM replay_scores" },
};

START_TEST(test_store_file_limit)
{
	char *db = copy_capture("traces/default.db", "limit.db"), *out, *before, *after;
	char *integrity;
	int rc;

	rc = fixture_run_bc(&out, "%s %s", stores[_i].args, db);
	ck_assert_msg(rc == 0 || rc == 1, "%s: exit %d: %s", stores[_i].args, rc, out);
	free(out);
	before = fixture_sql_rows(db, stores[_i].rows);
	ck_assert_msg(before[0], "%s stored nothing", stores[_i].args);
	/* no write beyond 64 KiB in any file: the journal and the store both fail */
	{
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "sh -c \"trap '' XFSZ; ulimit -f 128; exec %s %s %s\"",
			 fixture_bigchunk(), stores[_i].args, db);
		rc = fixture_run(cmd, &out);
	}
	ck_assert_msg(rc == 2, "%s under a file size limit: exit %d, not 2: %s",
		      stores[_i].args, rc, out);
	ck_assert_msg(strstr(out, "not stored") && strstr(out, db) && strstr(out, "disk"),
		      "%s: the message does not say what failed: %s", stores[_i].args, out);
	ck_assert_msg(!strstr(out, "no transaction is active"), "rollback noise: %s", out);
	free(out);
	after = fixture_sql_rows(db, stores[_i].rows);
	ck_assert_msg(!strcmp(before, after), "%s: the previous run's rows changed:\n%s\n---\n%s",
		      stores[_i].args, before, after);
	integrity = fixture_sql_rows(db, "PRAGMA integrity_check");
	ck_assert_str_eq(integrity, "ok\n");
	free(integrity);
	free(before);
	free(after);
}
END_TEST

/* ---- check -o ---- */

START_TEST(test_report_file)
{
	char *db = copy_capture("traces/idle.db", "report.db"), *rep = fixture_tmpfile("rep.txt");
	char *link = fixture_tmpfile("link.txt"), *target = fixture_tmpfile("target.txt"), *out;
	mode_t old = umask(022);
	struct stat sb;
	int rc;

	rc = fixture_run_bc(&out, "check %s -o %s", db, rep);
	umask(old);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, out);
	free(out);
	ck_assert_int_eq(stat(rep, &sb), 0);
	ck_assert_msg((sb.st_mode & 0777) == 0600, "report mode %o", sb.st_mode & 0777);
	ck_assert_int_gt(sb.st_size, 0);
	/* an existing file is neither truncated nor appended to */
	rc = fixture_run_bc(&out, "check %s -o %s", db, rep);
	ck_assert_msg(rc == 2 && strstr(out, rep) && strstr(out, "exists"), "exit %d: %s", rc,
		      out);
	free(out);
	ck_assert_int_eq(stat(rep, &sb), 0);
	ck_assert_int_gt(sb.st_size, 0);
	/* a symlink is not followed, even to a file that does not exist yet */
	ck_assert_int_eq(symlink(target, link), 0);
	rc = fixture_run_bc(&out, "check %s -o %s", db, link);
	ck_assert_msg(rc == 2 && strstr(out, link), "exit %d: %s", rc, out);
	free(out);
	ck_assert_msg(access(target, F_OK) != 0, "the symlink's target was written");
}
END_TEST

Suite *integrity_suite(void)
{
	Suite *s = suite_create("integrity");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 180);
	tcase_add_loop_test(tc, test_incomplete_warns, 0, NR_READERS);
	tcase_add_loop_test(tc, test_damaged_refused, 0, NR_READERS);
	tcase_add_test(tc, test_not_a_capture);
	tcase_add_test(tc, test_close_rolls_back);
	tcase_add_loop_test(tc, test_store_file_limit, 0, sizeof(stores) / sizeof(stores[0]));
	tcase_add_test(tc, test_report_file);
	suite_add_tcase(s, tc);
	return s;
}
