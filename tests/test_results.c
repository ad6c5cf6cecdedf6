// SPDX-License-Identifier: GPL-2.0
/*
 * results: what replay, predict, predict --verify and check --store write into a
 * capture is stored one run at a time, whole or not at all (db/tdb-results.h).
 *
 * Failures midway are injected with SQL triggers on a copy of a bundled capture (a
 * trigger that RAISEs once the table holds N rows), so the real command runs its real
 * store path; a full disk is a small tmpfs (root only, else a visible skip); kill -9
 * lands while a trigger slows every row down, and a reader must then roll back what
 * the killed writer left and read the file. The happy path is compared with rows
 * stored by the code before the result writer existed (golden text below).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-results.h"
#include "tests/fixture.h"

/* ---- helpers ---- */

/* A private copy of bundled capture @rel (the commands store into it). */
static char *copy_capture(const char *rel, const char *name)
{
	char *p = fixture_tmpfile(name);

	fixture_copy(fixture_path(rel), p);
	return p;
}

/* Bring a bundled capture of an older schema version to the current one. */
static void migrate(const char *path)
{
	struct tdb *db;

	ck_assert_int_eq(tdb_open(path, TDB_WRITE, &db), 0);
	ck_assert_int_eq(tdb_close(db), 0);
}

static void assert_integrity(const char *path)
{
	char *t = fixture_sql_rows(path, "PRAGMA integrity_check");

	ck_assert_msg(!strcmp(t, "ok\n"), "%s: integrity_check: %s", path, t);
	free(t);
}

/* Fail every INSERT into @table once it holds @after rows. */
static void inject_fault(const char *path, const char *table, int after)
{
	char sql[512];

	snprintf(sql, sizeof(sql), "CREATE TRIGGER bc_fault BEFORE INSERT ON %s WHEN (SELECT "
		 "count(*) FROM %s) >= %d BEGIN SELECT RAISE(ABORT, 'injected fault'); END;",
		 table, table, after);
	fixture_sql_exec(path, sql);
}

/* The command failed with exit 2, said the results were not stored, and why. */
static void assert_not_stored(int rc, const char *out, const char *why)
{
	ck_assert_msg(rc == 2, "exit %d, not 2: %s", rc, out);
	ck_assert_msg(strstr(out, "not stored"), "no \"not stored\" in: %s", out);
	ck_assert_msg(strstr(out, why), "no \"%s\" in: %s", why, out);
	ck_assert_msg(!strstr(out, "cannot rollback"), "rollback noise in: %s", out);
}

/* ---- a failure midway leaves nothing of the run ---- */

static const struct midway {
	const char *args;		/* the command, FILE.db after it */
	const char *table;		/* fails once it holds ... */
	int after;			/* ... this many rows */
	const char *rows;		/* rows of the run left: must be 0 */
} midway[] = {
	/* 7 answers, 63 candidates: fail at the 21st candidate */
	{ "predict --size 2M --attempts", "prediction_candidates", 20,
	  "SELECT (SELECT count(*) FROM prediction_runs) + (SELECT count(*) FROM predictions) + "
	  "(SELECT count(*) FROM prediction_candidates)" },
	/* 12 real attempts: fail at the 6th */
	{ "predict --verify", "verify_results", 5,
	  "SELECT (SELECT count(*) FROM prediction_runs) + (SELECT count(*) FROM verify_results)" },
	/* 5 checkers: fail at the 3rd */
	{ "check --store", "check_results", 2,
	  "SELECT (SELECT count(*) FROM check_runs) + (SELECT count(*) FROM check_results)" },
};

START_TEST(test_fails_midway)
{
	const struct midway *t = &midway[_i];
	char *db = copy_capture("traces/default.db", "midway.db"), *out = NULL;
	int rc;

	inject_fault(db, t->table, t->after);
	rc = fixture_run_bc(&out, "%s %s", t->args, db);
	assert_not_stored(rc, out, "injected fault");
	ck_assert_msg(fixture_sql_count(db, t->rows) == 0, "%s: rows of the failed run stored", t->args);
	assert_integrity(db);
	free(out);
}
END_TEST

START_TEST(test_replay_fails_midway)
{
	static const char rows[] = "SELECT snap, seq, pfns_compared, pfns_changed, state_agree "
				   "FROM replay_scores ORDER BY snap";
	char *db = copy_capture("traces/default.db", "mid-replay.db"), *out = NULL;
	char *before, *after;
	int rc;

	/* the bundled file predates replay_scores.buddyinfo_free_err: the store adds it */
	ck_assert_int_eq(fixture_sql_count(db, "SELECT count(*) FROM pragma_table_info('replay_scores') "
				   "WHERE name = 'buddyinfo_free_err'"), 0);
	rc = fixture_run_bc(&out, "replay %s", db);
	ck_assert_msg(rc == 0, "replay: exit %d: %s", rc, out);
	free(out);
	ck_assert_int_gt(fixture_sql_count(db, "SELECT count(*) FROM replay_scores WHERE "
				   "buddyinfo_free_err IS NOT NULL"), 0);
	/* mark the first replay's rows: they must survive the failed one as they are */
	fixture_sql_exec(db, "UPDATE replay_scores SET pfns_changed = -1; "
		 "UPDATE replay_anomalies SET count = -1");
	ck_assert_int_gt(fixture_sql_count(db, "SELECT count(*) FROM replay_anomalies"), 0);
	before = fixture_sql_rows(db, rows);
	ck_assert_msg(before[0], "the first replay stored no scores");
	/* the scores are deleted and rewritten, then the anomalies fail */
	inject_fault(db, "replay_anomalies", 0);
	rc = fixture_run_bc(&out, "replay %s", db);
	assert_not_stored(rc, out, "injected fault");
	after = fixture_sql_rows(db, rows);
	ck_assert_str_eq(after, before);
	ck_assert_int_eq(fixture_sql_count(db, "SELECT count(*) FROM replay_anomalies WHERE count != -1"),
			 0);
	assert_integrity(db);
	free(before);
	free(after);
	free(out);
}
END_TEST

/* ---- the writer itself: abort, close and commit after an error ---- */

START_TEST(test_writer_rolls_back)
{
	char *db = copy_capture("traces/frag.db", "writer.db");
	struct tdb_prediction_run r = { .mode = "end", .policy = "mainline", .nr_pages = 512,
					.count = 1, .range_start = UINT64_MAX,
					.range_end = UINT64_MAX, .align_order = -1 };
	struct tdb_prediction p = { .start_pfn = UINT64_MAX, .end_pfn = UINT64_MAX };
	struct tdb_results *w;
	struct tdb *t;
	int64_t run, id;

	/* closed with the run open: rolled back, not committed */
	ck_assert_int_eq(tdb_open(db, TDB_WRITE, &t), 0);
	ck_assert_int_eq(tdb_results_begin(t, &w), 0);
	ck_assert_int_eq(tdb_results_prediction_run(w, &r, &run), 0);
	ck_assert_int_eq(tdb_results_prediction(w, run, &p, &id), 0);
	ck_assert_int_eq(id, 1);
	tdb_close(t);
	ck_assert_int_eq(fixture_sql_count(db, "SELECT count(*) FROM prediction_runs"), 0);
	ck_assert_int_eq(fixture_sql_count(db, "SELECT count(*) FROM predictions"), 0);

	/* a failed row: commit refuses with that error, abort leaves nothing */
	inject_fault(db, "predictions", 1);
	ck_assert_int_eq(tdb_open(db, TDB_WRITE, &t), 0);
	ck_assert_int_eq(tdb_results_begin(t, &w), 0);
	ck_assert_int_eq(tdb_results_prediction_run(w, &r, &run), 0);
	ck_assert_int_eq(tdb_results_prediction(w, run, &p, &id), 0);
	ck_assert_int_lt(tdb_results_prediction(w, run, &p, &id), 0);
	ck_assert_int_lt(tdb_results_candidate(w, run, id, &(struct tdb_prediction_candidate){
		.verdict = "success", .pfn = UINT64_MAX }), 0);
	ck_assert_int_lt(tdb_results_commit(w), 0);
	ck_assert_msg(strstr(bc_errmsg(), "injected fault"), "%s", bc_errmsg());
	tdb_results_abort(w);
	ck_assert_msg(strstr(bc_errmsg(), "injected fault"), "%s", bc_errmsg());
	ck_assert_int_eq(tdb_close(t), 0);
	ck_assert_int_eq(fixture_sql_count(db, "SELECT count(*) FROM prediction_runs"), 0);
	ck_assert_int_eq(fixture_sql_count(db, "SELECT count(*) FROM predictions"), 0);

	/* and the happy path commits */
	fixture_sql_exec(db, "DROP TRIGGER bc_fault");
	ck_assert_int_eq(tdb_open(db, TDB_WRITE, &t), 0);
	ck_assert_int_eq(tdb_results_begin(t, &w), 0);
	ck_assert_int_eq(tdb_results_prediction_run(w, &r, &run), 0);
	ck_assert_int_eq(tdb_results_prediction(w, run, &p, &id), 0);
	ck_assert_int_eq(tdb_results_prediction(w, run, &p, &id), 0);
	ck_assert_int_eq(id, 2);
	ck_assert_int_eq(tdb_results_commit(w), 0);
	ck_assert_int_eq(tdb_close(t), 0);
	ck_assert_int_eq(fixture_sql_count(db, "SELECT count(*) FROM predictions"), 2);
	assert_integrity(db);
}
END_TEST

/* ---- a full disk ---- */

static bool mount_small_tmpfs(const char *dir, const char *test)
{
	(void)test;
	if (geteuid() != 0) {
		fixture_skip("not root (needs a tmpfs mount)");
		return false;
	}
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	if (mount("bc-full", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=0700")) {
		fixture_skip("cannot mount a tmpfs: %s", strerror(errno));
		rmdir(dir);
		return false;
	}
	return true;
}

/* Fill @dir's filesystem (file "filler"), then free @room bytes of it again. */
static void fill_up(const char *dir, off_t room)
{
	char path[512], buf[4096] = { 0 };
	off_t size = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	while (write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
		size += (off_t)sizeof(buf);
	ck_assert_int_eq(ftruncate(fd, size > room ? size - room : 0), 0);
	close(fd);
}

START_TEST(test_full_disk)
{
	static const struct {
		const char *args, *count;
	} cmds[] = {
		{ "check --store", "SELECT (SELECT count(*) FROM check_runs) + (SELECT count(*) "
				   "FROM check_results)" },
		{ "predict --size 2M --attempts", "SELECT (SELECT count(*) FROM prediction_runs) + "
						  "(SELECT count(*) FROM predictions)" },
		{ "predict --verify", "SELECT (SELECT count(*) FROM prediction_runs) + (SELECT "
				      "count(*) FROM verify_results)" },
	};
	char *dir = fixture_tmpfile("full"), db[512], filler[512], *out[3] = { NULL };
	long long left[3];
	int rc[3];
	size_t i;

	if (!mount_small_tmpfs(dir, "test_full_disk"))
		return;
	snprintf(db, sizeof(db), "%s/cap.db", dir);
	snprintf(filler, sizeof(filler), "%s/filler", dir);
	for (i = 0; i < 3; i++) {
		fixture_copy(fixture_path("traces/default.db"), db);
		migrate(db);	/* the run's store is what fills the disk, not the migration */
		/* a few pages of room: the store starts, then the disk is full */
		fill_up(dir, 8192);
		rc[i] = fixture_run_bc(&out[i], "%s %s", cmds[i].args, db);
		unlink(filler);		/* room for the checks (and a hot journal's rollback) */
		left[i] = fixture_sql_count(db, cmds[i].count);
		assert_integrity(db);
		unlink(db);
	}
	/* assertions only now: a failed one must not leave the tmpfs mounted */
	umount(dir);
	rmdir(dir);
	for (i = 0; i < 3; i++) {
		assert_not_stored(rc[i], out[i], "disk full");
		ck_assert_msg(left[i] == 0, "%s: %lld rows of the run stored", cmds[i].args,
			      left[i]);
		free(out[i]);
	}
}
END_TEST

/*
 * import into a full filesystem: exit 2 saying so, and nothing left behind (neither
 * the capture nor the temporary the import writes first).
 */
START_TEST(test_full_disk_import)
{
	char *dir = fixture_tmpfile("full-import"), db[512], pat[600], *out = NULL;
	bool left_db, left_tmp;
	glob_t g;
	int rc;

	if (!mount_small_tmpfs(dir, "test_full_disk_import"))
		return;
	snprintf(db, sizeof(db), "%s/cap.db", dir);
	fill_up(dir, 262144);	/* the import starts, then the disk is full */
	rc = fixture_run_bc(&out, "import -q -o %s %s", db, fixture_path("traces/idle.dat"));
	left_db = access(db, F_OK) == 0;
	snprintf(pat, sizeof(pat), "%s.importing-*", db);
	left_tmp = glob(pat, 0, NULL, &g) == 0;
	globfree(&g);
	umount(dir);		/* assertions only now, as above */
	rmdir(dir);
	ck_assert_msg(rc == 2, "import on a full disk: exit %d: %s", rc, out);
	ck_assert_msg(!left_db && !left_tmp, "left behind: capture %d, temporary %d", left_db,
		      left_tmp);
	ck_assert_msg(strstr(out, "full") != NULL, "no word of a full disk: %s", out);
	free(out);
}
END_TEST

/* ---- kill -9 while storing ---- */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/*
 * Start "bigchunk @cmd @db @arg" (@arg may be NULL); kill -9 it @delay_ms after its
 * journal appears (its store began).
 */
static void run_and_kill(const char *cmd, const char *db, const char *arg, long delay_ms)
{
	char journal[512];
	pid_t pid;
	int st, i;

	snprintf(journal, sizeof(journal), "%s-journal", db);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		if (!strcmp(cmd, "predict"))
			execl(fixture_bigchunk(), "bigchunk", "predict", db, "--size", "2M",
			      "--attempts", (char *)NULL);
		else
			execl(fixture_bigchunk(), "bigchunk", cmd, db, arg, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 30000 && access(journal, F_OK); i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;			/* done before we saw it: stored whole */
		sleep_ms(1);
	}
	sleep_ms(delay_ms);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
}

START_TEST(test_kill_during_store)
{
	static const long delays[] = { 0, 40, 150, 400, 900 };
	char *db = copy_capture("traces/default.db", "kill.db"), *out;
	long long per_run_answers, per_run_cands;
	size_t i;
	int rc;

	/* one whole run first: how many answers and candidates a run stores */
	rc = fixture_run_bc(&out, "predict %s --size 2M --attempts", db);
	ck_assert_msg(rc == 0, "predict: exit %d: %s", rc, out);
	free(out);
	per_run_answers = fixture_sql_count(db, "SELECT count(*) FROM predictions");
	per_run_cands = fixture_sql_count(db, "SELECT count(*) FROM prediction_candidates");
	ck_assert_int_gt(per_run_answers, 0);
	ck_assert_int_gt(per_run_cands, 20);
	fixture_sql_exec(db, "DELETE FROM prediction_candidates; DELETE FROM predictions; "
			 "DELETE FROM prediction_runs");
	ck_assert_int_eq(fixture_sql_count(db, "SELECT count(*) FROM prediction_candidates"), 0);
	/* every candidate row costs ~10 ms: a run's store takes most of a second */
	fixture_sql_exec(db, "CREATE TRIGGER bc_slow AFTER INSERT ON prediction_candidates BEGIN "
		 "SELECT length(hex(zeroblob(4000000))); END;");
	for (i = 0; i < sizeof(delays) / sizeof(delays[0]); i++) {
		long long runs, answers, cands;

		run_and_kill("predict", db, NULL, delays[i]);
		/* a reader rolls back what the killed writer left, and reads the file */
		rc = fixture_run_bc(&out, "info %s", db);
		ck_assert_msg(rc == 0, "info after kill %zu: exit %d: %s", i, rc, out);
		free(out);
		assert_integrity(db);
		runs = fixture_sql_count(db, "SELECT count(*) FROM prediction_runs");
		answers = fixture_sql_count(db, "SELECT count(*) FROM predictions");
		cands = fixture_sql_count(db, "SELECT count(*) FROM prediction_candidates");
		/* each run stored is whole, or not there at all */
		ck_assert_msg(answers == per_run_answers * runs && cands == per_run_cands * runs,
			      "after kill %zu (%ld ms): %lld runs, %lld answers, %lld candidates "
			      "(a run: %lld, %lld)", i, delays[i], runs, answers, cands,
			      per_run_answers, per_run_cands);
	}
}
END_TEST

/*
 * The same for check --store (each stored run whole: one check_results row per checker)
 * and replay (the scores of one whole run, or none before the first completes).
 */
START_TEST(test_kill_during_check_and_replay_store)
{
	static const long delays[] = { 0, 30, 120 };
	char *db = copy_capture("traces/default.db", "kill-check.db"), *out;
	long long runs, results, per_run = -1, scores;
	size_t i;
	int rc;

	/* one full check first: how many results a run has */
	rc = fixture_run_bc(&out, "check %s --store", db);
	ck_assert_msg(rc == 0, "check --store: exit %d: %s", rc, out);
	free(out);
	per_run = fixture_sql_count(db, "SELECT count(*) FROM check_results");
	ck_assert_int_gt(per_run, 0);
	fixture_sql_exec(db, "CREATE TRIGGER bc_slow_c AFTER INSERT ON check_results BEGIN "
			 "SELECT length(hex(zeroblob(4000000))); END; "
			 "CREATE TRIGGER bc_slow_r AFTER INSERT ON replay_scores BEGIN "
			 "SELECT length(hex(zeroblob(20000000))); END;");
	for (i = 0; i < sizeof(delays) / sizeof(delays[0]); i++) {
		run_and_kill("check", db, "--store", delays[i]);
		assert_integrity(db);
		runs = fixture_sql_count(db, "SELECT count(*) FROM check_runs");
		results = fixture_sql_count(db, "SELECT count(*) FROM check_results");
		ck_assert_msg(results == per_run * runs, "after kill %zu (%ld ms): %lld runs, %lld "
			      "results (%lld a run)", i, delays[i], runs, results, per_run);
		run_and_kill("replay", db, "--json", delays[i]);
		assert_integrity(db);
		scores = fixture_sql_count(db, "SELECT count(*) FROM replay_scores");
		ck_assert_msg(scores == 0 || scores == 2, "after kill %zu (%ld ms): %lld replay "
			      "scores (a run has 2)", i, delays[i], scores);
	}
}
END_TEST

/* ---- the happy path stores what it stored before ---- */

/* Stored by bigchunk before the result writer (same commands on the same captures). */
static const struct golden {
	const char *capture, *args;
	int rc;
	const char *query, *rows;
} golden[] = {
	{ "traces/frag.db", "predict --size 1G --count 4", 1,
	  "SELECT id, seq, ts, idx, success, start_pfn, end_pfn, migrate_pages, migrate_thp, "
	  "migrate_file, nr_candidates, blocker_pfn, blocker_kind, blocker_reason, blocker_seq, "
	  "blocker_ts, blocker_cpu, blocker_pid, blocker_comm, blocker_order, blocker_gfp, "
	  "blocker_mt, assumptions FROM predictions ORDER BY id",
	  "1|284903|22941085840158|0|1|262144|524288|0|0|0|22||||||||||||\n"
	  "2|284903|22941085840158|1|1|524288|786432|0|0|0|23||||||||||||\n"
	  "3|284903|22941085840158|2|0|||0|0|0|24|2759118|slab|slab page (unmovable)|||||"
	  "||||uncertain-pages,seeded-unknown\n" },
	{ "traces/default.db", "predict --size 2M --attempts", 0,
	  "SELECT count(*), sum(idx), sum(start_pfn), sum(ifnull(pfn, 0)), sum(migrate_pages), "
	  "group_concat(DISTINCT verdict) FROM prediction_candidates",
	  "99|666|104150016|96763835|3072|isolation-fails,success\n" },
	{ "traces/default.db", "check --store", 0,
	  "SELECT checker, status, checks, violations, inconclusive, explained FROM "
	  "check_results ORDER BY checker",
	  "buddy-sanity|pass|68859|0|0|1\n"
	  "contig-exact|pass|2056|0|0|0\n"
	  "freecount|pass|659|0|0|1\n"
	  "isolation-escape|pass|22670|0|0|0\n"
	  "pageblock-type|pass|316196|0|0|9\n" },
	{ "traces/default.db", "predict --verify", 0,
	  "SELECT count(*), sum(agree), sum(kernel_success), sum(predicted_success), "
	  "sum(ifnull(predicted_pfn, 0)) FROM verify_results",
	  "12|12|11|11|1582496\n" },
};

START_TEST(test_rows_as_before)
{
	const struct golden *g = &golden[_i];
	char *db = copy_capture(g->capture, "golden.db"), *out = NULL, *t;
	int rc;

	rc = fixture_run_bc(&out, "%s %s", g->args, db);
	ck_assert_msg(rc == g->rc, "%s: exit %d: %s", g->args, rc, out);
	t = fixture_sql_rows(db, g->query);
	ck_assert_str_eq(t, g->rows);
	assert_integrity(db);
	free(t);
	free(out);
}
END_TEST

Suite *results_suite(void)
{
	Suite *s = suite_create("results");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits");

	tcase_set_timeout(core, 120);
	tcase_add_test(core, test_writer_rolls_back);
	tcase_add_loop_test(core, test_rows_as_before, 0, sizeof(golden) / sizeof(golden[0]));
	suite_add_tcase(s, core);
	tcase_set_timeout(limits, 180);
	tcase_add_loop_test(limits, test_fails_midway, 0, sizeof(midway) / sizeof(midway[0]));
	tcase_add_test(limits, test_replay_fails_midway);
	tcase_add_test(limits, test_full_disk);
	tcase_add_test(limits, test_full_disk_import);
	tcase_add_test(limits, test_kill_during_store);
	tcase_add_test(limits, test_kill_during_check_and_replay_store);
	suite_add_tcase(s, limits);
	return s;
}
