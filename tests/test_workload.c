// SPDX-License-Identifier: GPL-2.0
/*
 * The test workload (tests/workload): the files its slab mode makes are gone when it
 * is ended early (the recorder ends a command that outlives -d with SIGTERM).
 */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/fixture.h"

/* Files of @dir named bc-wl-*. */
static int wl_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "bc-wl-", 6);
	closedir(d);
	return n;
}

START_TEST(test_workload_term_removes_files)
{
	const char *wl = getenv("BC_WORKLOAD");
	char *dir = fixture_tmpfile("wl-dir");
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int status, i, made = 0;
	pid_t pid;

	if (!wl || access(wl, X_OK)) {
		fixture_skip("workload binary not built (BC_WORKLOAD)");
		return;
	}
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		/* 1 MiB: 64 files, held 30 s */
		freopen("/dev/null", "w", stdout);
		execl(wl, wl, "slab", "1", "30", dir, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 500 && made < 64; i++) {
		nanosleep(&ts, NULL);
		made = wl_files(dir);
	}
	ck_assert_int_eq(made, 64);
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(wl_files(dir), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

Suite *workload_suite(void)
{
	Suite *s = suite_create("workload");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_workload_term_removes_files);
	suite_add_tcase(s, tc);
	return s;
}
