// SPDX-License-Identifier: GPL-2.0
/*
 * The bigchunk command line: dispatch, help for every command, man pages, exit codes,
 * and info/query on a real imported trace (JSON checked with SQLite's json_valid()).
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fixture.h"

static const char *const commands[] = {
	"check", "import", "info", "predict", "query", "record", "replay", "snapshot", NULL
};

#define run fixture_runf

static bool json_valid(const char *text)
{
	sqlite3_stmt *st;
	sqlite3 *sq;
	bool ok = false;

	sqlite3_open(":memory:", &sq);
	sqlite3_prepare_v2(sq, "SELECT json_valid(?)", -1, &st, NULL);
	sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		ok = sqlite3_column_int(st, 0) == 1;
	sqlite3_finalize(st);
	sqlite3_close(sq);
	return ok;
}

START_TEST(test_help_lists_every_command)
{
	char *out;
	int i;

	ck_assert_int_eq(run(&out, "%s help", fixture_bigchunk()), 0);
	for (i = 0; commands[i]; i++) {
		char want[64];

		snprintf(want, sizeof(want), "  %s ", commands[i]);
		ck_assert_msg(strstr(out, want), "'bigchunk help' lacks %s", commands[i]);
	}
	free(out);
	ck_assert_int_eq(run(&out, "%s", fixture_bigchunk()), 2);
	ck_assert_ptr_nonnull(strstr(out, "usage: bigchunk"));
	free(out);
	ck_assert_int_eq(run(&out, "%s frobnicate", fixture_bigchunk()), 2);
	ck_assert_ptr_nonnull(strstr(out, "'frobnicate' is not a command"));
	free(out);
}
END_TEST

/* Every command has full help (exit 0) and rejects an unknown option (exit 2). */
START_TEST(test_command_help)
{
	const char *c = commands[_i];
	char want[64], *out;

	ck_assert_int_eq(run(&out, "%s %s --help", fixture_bigchunk(), c), 0);
	snprintf(want, sizeof(want), "usage: bigchunk %s", c);
	ck_assert_msg(strstr(out, want), "%s --help: no usage line", c);
	ck_assert_msg(strstr(out, "Exit status"), "%s --help: exit status not documented", c);
	ck_assert_msg(!strstr(out, "not yet available"), "%s is a stub", c);
	free(out);
	ck_assert_int_eq(run(&out, "%s help %s", fixture_bigchunk(), c), 0);
	free(out);
	ck_assert_int_eq(run(&out, "%s %s --no-such-option", fixture_bigchunk(), c), 2);
	free(out);
}
END_TEST

START_TEST(test_man_pages)
{
	char *out, *dir = fixture_tmpfile("man");
	int i;

	ck_assert_int_eq(mkdir(dir, 0700), 0);
	for (i = 0; commands[i]; i++) {
		ck_assert_int_eq(run(&out, "%s/docs/mkman.sh %s %s > %s/%s.1", fixture_srcdir(),
				     fixture_bigchunk(), commands[i], dir, commands[i]), 0);
		free(out);
		ck_assert_int_eq(run(&out, "grep -c '^.SH OPTIONS\\|^.SH EXIT STATUS' %s/%s.1", dir,
				     commands[i]), 0);
		ck_assert_msg(atoi(out) == 2, "man page of %s lacks OPTIONS or EXIT STATUS", commands[i]);
		free(out);
	}
	ck_assert_int_eq(run(&out, "rm -r %s", dir), 0);
	free(out);
}
END_TEST

/* Each '@' of @tmpl replaced by @with. */
static char *subst(const char *tmpl, const char *with)
{
	size_t n = strlen(tmpl) + 1, w = strlen(with);
	const char *t;
	char *out, *o;

	for (t = tmpl; *t; t++)
		n += *t == '@' ? w : 0;
	out = o = malloc(n);
	ck_assert_ptr_nonnull(out);
	for (t = tmpl; *t; t++) {
		if (*t == '@') {
			memcpy(o, with, w);
			o += w;
		} else {
			*o++ = *t;
		}
	}
	*o = 0;
	return out;
}

/* Queries whose bounds the events table takes ('@' marks where the planner may). */
static const char *const bounds[] = {
	"events WHERE seq@ >= 46100 AND seq@ <= 46120",
	"events WHERE seq@ <= 46120 AND seq@ > 46100",
	"events WHERE seq@ < 100",
	"events WHERE seq@ > 270000",
	"events WHERE seq@ = 5",
	"events WHERE seq@ = 5 AND seq@ >= 2 AND seq@ < 9",
	"events WHERE seq@ < 10.5 AND seq@ >= 2.5",
	"events WHERE seq@ <= 'abc' AND seq@ > 272000",
	"events WHERE seq@ <= -3",
	"events WHERE seq@ BETWEEN 1000 AND 2000 AND pfn@ >= 1048576 AND ts@ > 0",
	"events WHERE pfn@ <= 1310192 AND pfn@ + (1 << \\\"order\\\") > 1310192",
	"events WHERE pfn@ >= 1048576 AND pfn@ < 1310720 AND seq@ < 50000",
	"mm_page_alloc WHERE seq@ BETWEEN 100 AND 20000",
	"mm_page_free WHERE pfn@ > 2000000 AND seq@ >= 0",
	NULL
};

/* info and query on a real trace-cmd capture of this kind of machine. */
START_TEST(test_info_query)
{
	char *db = fixture_tmpfile("cli.db"), *out;
	int i;

	ck_assert_int_eq(run(&out, "%s import -o %s %s", fixture_bigchunk(), db,
			     fixture_path("traces/frag.dat")), 0);
	free(out);
	ck_assert_int_eq(run(&out, "%s info %s", fixture_bigchunk(), db), 0);
	ck_assert_ptr_nonnull(strstr(out, "(complete)"));
	ck_assert_ptr_nonnull(strstr(out, "mm_page_alloc"));
	free(out);
	ck_assert_int_eq(run(&out, "%s info %s --json", fixture_bigchunk(), db), 0);
	ck_assert_msg(json_valid(out), "info --json is not JSON:\n%s", out);
	ck_assert_ptr_nonnull(strstr(out, "\"events\""));
	free(out);

	/* The per-event view and the events table agree. */
	ck_assert_int_eq(run(&out, "%s query %s \"SELECT (SELECT count(*) FROM mm_page_alloc) = "
			     "(SELECT count(*) FROM events WHERE event = 'kmem:mm_page_alloc') AND "
			     "(SELECT count(*) FROM mm_page_alloc) > 0\"", fixture_bigchunk(), db), 0);
	ck_assert_msg(strstr(out, "\n1\n"), "view and events disagree: %s", out);
	free(out);
	/* A pfn bound skips chunks but never rows. */
	ck_assert_int_eq(run(&out, "%s query %s \"SELECT (SELECT count(*) FROM events WHERE pfn >= "
			     "1048576 AND pfn < 1310720) = (SELECT count(*) FROM events WHERE pfn + 0 "
			     ">= 1048576 AND pfn + 0 < 1310720)\"", fixture_bigchunk(), db), 0);
	ck_assert_msg(strstr(out, "\n1\n"), "pfn-bounded scan lost rows: %s", out);
	free(out);
	/*
	 * Every bound form on seq, ts and pfn (alone, paired in either order, equality,
	 * floats, text, negatives, on the views too) gives the rows of the same WHERE
	 * over "+ 0" expressions, which SQLite cannot hand to the table.
	 */
	for (i = 0; bounds[i]; i++) {
		char *fast = subst(bounds[i], ""), *plain = subst(bounds[i], " + 0");

		ck_assert_int_eq(run(&out, "%s query %s \"SELECT (SELECT count(*) || ',' || "
				     "ifnull(sum(seq), 0) FROM %s) = (SELECT count(*) || ',' || "
				     "ifnull(sum(seq), 0) FROM %s)\"", fixture_bigchunk(), db, fast,
				     plain), 0);
		ck_assert_msg(strstr(out, "\n1\n"), "bounded scan differs: %s: %s", fast, out);
		free(out);
		free(fast);
		free(plain);
	}
	ck_assert_int_eq(run(&out, "%s query %s \"SELECT event, count(*) AS n FROM events GROUP BY "
			     "event\" --json", fixture_bigchunk(), db), 0);
	ck_assert_msg(json_valid(out), "query --json is not JSON:\n%s", out);
	free(out);
	ck_assert_int_eq(run(&out, "%s query %s --csv \"SELECT 'a,b' AS x, 2 AS y\"",
			     fixture_bigchunk(), db), 0);
	ck_assert_str_eq(out, "x,y\n\"a,b\",2\n");
	free(out);
	/* Read-only: writes are refused. */
	ck_assert_int_eq(run(&out, "%s query %s \"DELETE FROM meta\"", fixture_bigchunk(), db), 2);
	free(out);
	ck_assert_int_eq(run(&out, "%s query %s \"SELEC nonsense\"", fixture_bigchunk(), db), 2);
	ck_assert_ptr_nonnull(strstr(out, "syntax error"));
	free(out);
	fixture_rm(db);
}
END_TEST

START_TEST(test_bad_files)
{
	char *p = fixture_tmpfile("notdb.db"), *out;
	FILE *fp = fopen(p, "w");

	fputs("not a database at all, but long enough to look like something.....\n", fp);
	fclose(fp);
	ck_assert_int_eq(run(&out, "%s info %s", fixture_bigchunk(), p), 2);
	ck_assert_ptr_nonnull(strstr(out, p));
	ck_assert_ptr_nonnull(strstr(out, "not a bigchunk capture"));
	free(out);
	ck_assert_int_eq(run(&out, "%s query %s 'SELECT 1'", fixture_bigchunk(), p), 2);
	free(out);
	ck_assert_int_eq(run(&out, "%s info /nonexistent/x.db", fixture_bigchunk()), 2);
	ck_assert_ptr_nonnull(strstr(out, "/nonexistent/x.db"));
	free(out);
	fixture_rm(p);
}
END_TEST

Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("core");
	int n = 0;

	while (commands[n])
		n++;
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_help_lists_every_command);
	tcase_add_loop_test(tc, test_command_help, 0, n);
	tcase_add_test(tc, test_man_pages);
	tcase_add_test(tc, test_info_query);
	tcase_add_test(tc, test_bad_files);
	suite_add_tcase(s, tc);
	return s;
}
