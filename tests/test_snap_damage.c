// SPDX-License-Identifier: GPL-2.0
/*
 * Damaged snapshot directories: a copy of traces/frag.snap/begin broken one way per
 * test, imported with traces/frag.dat. Each must be refused with exit 2 and a message
 * naming the directory, the file and what is wrong, and leave no output behind; the
 * checks of the trace's kernel and time give way to -f. Also: the model refuses a
 * pageblock order it cannot handle instead of aborting on a capture that has one.
 */
#include <check.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "model/model.h"
#include "tests/fixture.h"

#define run fixture_runf

/*
 * A fresh copy of frag.snap/begin named @name, then the shell command @damage run
 * inside it. Returns the directory (static slot of fixture_tmpfile()).
 */
static const char *damaged(const char *name, const char *damage)
{
	const char *dir = fixture_tmpfile(name);

	ck_assert_int_eq(run(NULL, "rm -rf '%s' && cp -r '%s' '%s'", dir,
			     fixture_path("traces/frag.snap/begin"), dir), 0);
	ck_assert_msg(run(NULL, "cd '%s' && %s", dir, damage) == 0, "damage failed: %s",
		      damage);
	return dir;
}

/*
 * Import @trace with snapshot @dir (options @opts); expect exit 2 within a minute, a
 * message with "DIR/@file" and @what, and no capture nor temporary left. @name says
 * which damage in failures.
 */
static void expect_refused_as(const char *name, const char *dir, const char *opts,
			      const char *trace, const char *file, const char *what)
{
	const char *db = fixture_tmpfile("out.db");
	char want[4096], *out;
	int rc;

	rc = run(&out, "timeout 60 %s import -q %s -o '%s' --snapshot '%s' '%s'",
		 fixture_bigchunk(), opts, db, dir, fixture_path(trace));
	ck_assert_msg(rc == 2, "%s: exit %d (124: hung), want 2: %s", name, rc, out);
	snprintf(want, sizeof(want), "%s/%s", dir, file);
	ck_assert_msg(strstr(out, want), "%s: '%s' lacks '%s'", name, out, want);
	ck_assert_msg(strstr(out, what), "%s: '%s' lacks '%s'", name, out, what);
	ck_assert_msg(access(db, F_OK) != 0, "%s: %s was written", name, db);
	ck_assert_int_eq(run(NULL, "ls '%s'.importing-* 2>/dev/null | grep -q .", db), 1);
	free(out);
}

static void expect_refused(const char *dir, const char *opts, const char *trace,
			   const char *file, const char *what)
{
	expect_refused_as(file, dir, opts, trace, file, what);
}

/* As expect_refused(), with trace frag.dat and no options. */
static void refused(const char *dir, const char *file, const char *what)
{
	expect_refused(dir, "", "traces/frag.dat", file, what);
}

static int64_t q1(const char *db, const char *sql)
{
	sqlite3_stmt *st;
	sqlite3 *sq;
	int64_t v = -1;

	ck_assert_int_eq(sqlite3_open_v2(db, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(sq, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(sq);
	return v;
}

/* Import works (with @opts) and stores the one snapshot. */
static void expect_stored(const char *dir, const char *opts, const char *trace)
{
	const char *db = fixture_tmpfile("ok.db");
	char *out;
	int rc;

	unlink(db);
	rc = run(&out, "timeout 60 %s import -q %s -o '%s' --snapshot '%s' '%s'",
		 fixture_bigchunk(), opts, db, dir, fixture_path(trace));
	ck_assert_msg(rc == 0, "exit %d: %s", rc, out);
	free(out);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshots WHERE complete = 1"), 1);
	unlink(db);
}

/* ---- the undamaged copy goes in (else every test below proves nothing) ---- */

START_TEST(test_undamaged)
{
	expect_stored(damaged("snap", "true"), "", "traces/frag.dat");
}
END_TEST

/*
 * One damage each, refused naming the file and what is wrong. The comments say which
 * check they guard.
 */
static const struct damage {
	const char *name;
	const char *damage;		/* shell command run in the copy */
	const char *file, *what;
} damages[] = {
	/* orders; "Page block order: 0" was imported, then replay, predict and check aborted */
	{ "pageblock order 0", "sed -i 's/^Page block order: 9/Page block order: 0/; "
	  "s/^Pages per block: .*/Pages per block: 1/' pagetypeinfo", "pagetypeinfo",
	  "line 1: pageblock order 0 is outside 1..MAX_PAGE_ORDER (10" },
	{ "pageblock order 11", "sed -i 's/^Page block order: 9/Page block order: 11/; "
	  "s/^Pages per block: .*/Pages per block: 2048/' pagetypeinfo", "pagetypeinfo",
	  "pageblock order 11 is outside" },
	{ "pages per block", "sed -i 's/^Pages per block: .*/Pages per block: 256/' pagetypeinfo",
	  "pagetypeinfo", "line 2: not 2^(Page block order) pages" },
	{ "buddyinfo ragged", "sed -i '2s/$/ 7/' buddyinfo", "buddyinfo",
	  "line 2: a different number of orders" },
	{ "orders differ", "sed -i 's/ *[0-9]* *$//' buddyinfo",	/* MAX_PAGE_ORDER 9 vs 10 */
	  "pagetypeinfo", "has order 10, but buddyinfo has orders 0..9" },
	{ "too many orders", "sed -i 's/$/ 0 0 0 0 0 0/' buddyinfo", "buddyinfo",
	  "line 1: more than 15 + 1 orders" },
	/* counts */
	{ "free count 2^63-1", "sed -i '/Normal/s/[0-9]* *$/9223372036854775807/' buddyinfo",
	  "buddyinfo", "free blocks of order 10" },
	{ "pageblock count", "sed -i -E '/^Node 0, zone +Normal +[0-9]/s/(Normal +)[0-9]+/"
	  "\\199999999/' pagetypeinfo && grep -q 'Normal *99999999' pagetypeinfo",
	  "pagetypeinfo", "pageblocks" },
	/* zones across the files */
	{ "Normal not in zoneinfo", "awk '/^Node/ { skip = /Normal/ } !skip' zoneinfo > z && "
	  "mv z zoneinfo", "zoneinfo", "node 0 zone Normal (in buddyinfo) is missing" },
	{ "Normal not in buddyinfo", "sed -i '/Normal/d' buddyinfo", "buddyinfo",
	  "node 0 zone Normal (populated in zoneinfo) is missing" },
	{ "Normal not in pagetypeinfo", "sed -i '/^Node 0, zone   Normal  /d' pagetypeinfo",
	  "pagetypeinfo", "\"Number of blocks type\" section: node 0 zone Normal" },
	{ "node differs", "sed -i 's/^Node 0, zone   Normal/Node 1, zone   Normal/' buddyinfo",
	  "zoneinfo", "node 1 zone Normal (in buddyinfo) is missing" },
	{ "Normal outside System RAM", "sed -i '/^100000000-63fffffff : System RAM/d' iomem",
	  "iomem", "node 0 zone Normal of zoneinfo spans PFNs [1048576, 6553600)" },
	/* taken_at */
	{ "taken_at negative", "echo '-5 -1' > taken_at", "taken_at", "(negative)" },
	{ "taken_at 2^64-1", "echo '18446744073709551615 18446744073709551615' > taken_at",
	  "taken_at", "more than 2^63-1 ns" },
	/* files */
	{ "FIFO text file", "rm zoneinfo && mkfifo zoneinfo", "zoneinfo",
	  "not a regular file (a FIFO)" },
	{ "FIFO page file", "rm kpageflags.zst && mkfifo kpageflags.zst", "kpageflags.zst",
	  "not a regular file (a FIFO)" },
	{ "/dev/zero page file", "rm kpageflags.zst && ln -s /dev/zero kpageflags", "kpageflags",
	  "not a regular file (a character device)" },
	{ "/dev/zero text file", "ln -sf /dev/zero vmstat", "vmstat",
	  "not a regular file (a character device)" },
	{ "65 MiB text file", "truncate -s 65M meminfo", "meminfo", "larger than 64 MiB" },
	/* both page files 1 MiB longer than the machine's 6553600 PFNs */
	{ "page files too long", "for f in kpageflags kpagecount; do "
	  "{ zstd -dcq $f.zst; head -c 1048576 /dev/zero; } | zstd -q1 > x && mv x $f.zst; done",
	  "kpageflags.zst", "more than the 6553600 PFNs (52428800 bytes)" },
	/* said "kpageflags is short" */
	{ "truncated .zst", "head -c 100000 kpageflags.zst > x && mv x kpageflags.zst",
	  "kpageflags.zst", "damaged: 'zstd -dc' failed after" },
	{ "corrupt .zst", "head -c 64 /dev/urandom | dd of=kpagecount.zst bs=1 seek=5000 "
	  "conv=notrunc status=none", "kpagecount.zst", "damaged: 'zstd -dc' failed after" },
};

START_TEST(test_damage)
{
	const struct damage *d = &damages[_i];

	expect_refused_as(d->name, damaged("snap", d->damage), "", "traces/frag.dat", d->file,
			  d->what);
}
END_TEST

START_TEST(test_taken_at_far)
{
	/* an hour after the trace: refused, with -f stored */
	const char *dir = damaged("snap", "echo '26537701741242 26538910413347' > taken_at");

	refused(dir, "taken_at", "3597 s after the trace (22936.678-");
	refused(dir, "taken_at", "s by its events and snapshot markers)");
	expect_stored(dir, "-f", "traces/frag.dat");
}
END_TEST

START_TEST(test_taken_at_far_by_markers)
{
	/* trace clock not mono: the snapshot markers in the trace give the span */
	const char *dir = damaged("snap", "echo '26537701741242 26538910413347' > taken_at");

	expect_refused(dir, "--clock local", "traces/frag.dat", "taken_at",
		       "by its snapshot markers");
	expect_stored(dir, "-f --clock local", "traces/frag.dat");
}
END_TEST

START_TEST(test_other_trace)
{
	/* frag.snap is 6 hours after idle.dat, on the same machine */
	const char *dir = damaged("snap", "true");

	expect_refused(dir, "", "traces/idle.dat", "taken_at", "s after the trace");
	expect_stored(dir, "-f", "traces/idle.dat");
}
END_TEST

START_TEST(test_other_kernel)
{
	const char *dir = damaged("snap", "echo 5.10.0-other > uname");

	refused(dir, "uname", "kernel 5.10.0-other, but the trace's is 6.18.44-fc-v1098");
	expect_stored(dir, "-f", "traces/frag.dat");
}
END_TEST

/* What a failed load must not change: the snapshot rows of every table. */
static int64_t snapshot_rows(const char *db)
{
	return q1(db, "SELECT (SELECT count(*) FROM snapshots) + (SELECT count(*) FROM "
		  "snapshot_pages) + (SELECT count(*) FROM snapshot_files) + (SELECT count(*) "
		  "FROM zones) + (SELECT count(*) FROM buddyinfo)");
}

/* The snapshot command into an existing capture: refused, the capture unchanged. */
START_TEST(test_snapshot_cmd_unchanged)
{
	const char *dir = damaged("snap", "echo '26537701741242 26538910413347' > taken_at");
	const char *db = fixture_tmpfile("base.db");
	int64_t before;
	char *out;

	unlink(db);
	ck_assert_int_eq(run(NULL, "%s import -q -o '%s' --snapshot '%s' '%s'",
			     fixture_bigchunk(), db, fixture_path("traces/frag.snap/end"),
			     fixture_path("traces/frag.dat")), 0);
	before = snapshot_rows(db);
	ck_assert_int_gt(before, 1);
	ck_assert_int_eq(run(&out, "timeout 60 %s snapshot --db '%s' --from '%s'",
			     fixture_bigchunk(), db, dir), 2);
	ck_assert_msg(strstr(out, "/taken_at: taken at CLOCK_MONOTONIC"), "%s", out);
	free(out);
	ck_assert_int_eq(snapshot_rows(db), before);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshots WHERE complete = 1"), 1);
	ck_assert_int_eq(run(&out, "%s snapshot -f --db '%s' --from '%s'", fixture_bigchunk(),
			     db, dir), 0);
	free(out);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshots WHERE complete = 1"), 2);
	unlink(db);
}
END_TEST

/* ---- the model, second line of defence ---- */

START_TEST(test_model_pageblock_order)
{
	static const unsigned int bad[][2] = { { 0, 10 }, { 2, 10 }, { 11, 10 }, { 9, 16 } };
	struct model_layout L = {
		.nr_zones = 1, .zones = { { .name = "Normal", .start_pfn = 0, .spanned = 1 << 12,
					    .present = 1 << 12, .managed = 1 << 12 } },
		.pageblock_order = 9, .max_page_order = 10, .nr_cpus = 1,
	};
	struct model *m;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		L.pageblock_order = bad[i][0];
		L.max_page_order = bad[i][1];
		ck_assert_ptr_null(model_create(&L, NULL));
		ck_assert_msg(strstr(bc_errmsg(), "pageblock order"), "%s", bc_errmsg());
	}
	L.pageblock_order = 3;
	L.max_page_order = 10;
	m = model_create(&L, NULL);
	ck_assert_ptr_nonnull(m);
	model_destroy(m);
}
END_TEST

/*
 * A capture stored before the checks, with "Page block order: 0": replay and predict
 * exit 2 naming it, check runs trace-only; none aborts.
 */
START_TEST(test_stored_pageblock_order_zero)
{
	static const char *const cmds[] = { "replay", "predict --size 2M", "check" };
	const char *db = fixture_tmpfile("pb0.db");
	char *out, *err = NULL;
	sqlite3 *sq;
	size_t i;
	int rc;

	unlink(db);
	ck_assert_int_eq(run(NULL, "%s import -q -o '%s' --snapshot '%s' '%s'",
			     fixture_bigchunk(), db, fixture_path("traces/frag.snap/begin"),
			     fixture_path("traces/frag.dat")), 0);
	ck_assert_int_eq(sqlite3_open(db, &sq), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(sq, "UPDATE snapshot_files SET content = replace(content, "
				   "'Page block order: 9', 'Page block order: 0') WHERE name = "
				   "'pagetypeinfo'", NULL, NULL, &err) == SQLITE_OK, "%s", err);
	ck_assert_int_eq(sqlite3_changes(sq), 1);
	sqlite3_close(sq);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		rc = run(&out, "%s %s '%s'", fixture_bigchunk(), cmds[i], db);
		ck_assert_msg(rc == (i < 2 ? 2 : 0), "%s: exit %d: %s", cmds[i], rc, out);
		ck_assert_msg(strstr(out, "pageblock order 0"), "%s: %s", cmds[i], out);
		free(out);
	}
	unlink(db);
}
END_TEST

Suite *snap_damage_suite(void)
{
	Suite *s = suite_create("snap_damage");
	TCase *tc = tcase_create("limits");

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_undamaged);
	tcase_add_loop_test(tc, test_damage, 0, sizeof(damages) / sizeof(damages[0]));
	tcase_add_test(tc, test_taken_at_far);
	tcase_add_test(tc, test_taken_at_far_by_markers);
	tcase_add_test(tc, test_other_trace);
	tcase_add_test(tc, test_other_kernel);
	tcase_add_test(tc, test_snapshot_cmd_unchanged);
	tcase_add_test(tc, test_model_pageblock_order);
	tcase_add_test(tc, test_stored_pageblock_order_zero);
	suite_add_tcase(s, tc);
	return s;
}
