// SPDX-License-Identifier: GPL-2.0
#include <check.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/fixture.h"

static char tmpdir[64];

char *fixture_tmpfile(const char *name)
{
	static char slots[8][256];
	static int next;
	char *p = slots[next++ % 8];

	if (!tmpdir[0] || access(tmpdir, F_OK)) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/bc-test-%d-XXXXXX", (int)getpid());
		if (!mkdtemp(tmpdir))
			abort();
	}
	snprintf(p, 256, "%s/%s", tmpdir, name);
	unlink(p);
	return p;
}

void fixture_rm(const char *path)
{
	unlink(path);
}

const char *fixture_srcdir(void)
{
	const char *s = getenv("BC_SRCDIR");

	return s && *s ? s : ".";
}

const char *fixture_bigchunk(void)
{
	const char *s = getenv("BIGCHUNK");

	return s && *s ? s : "./bigchunk";
}

const char *fixture_path(const char *rel)
{
	static char slots[8][1024];
	static int next;
	char *p = slots[next++ % 8];

	snprintf(p, 1024, "%s/%s", fixture_srcdir(), rel);
	return p;
}

int fixture_run(const char *cmdline, char **out)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	char chunk[4096];
	size_t n;
	FILE *fp;
	int st;
	char *full;

	if (asprintf(&full, "%s 2>&1", cmdline) < 0)
		return -1;
	fp = popen(full, "r");
	free(full);
	if (!fp)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	if (!buf)
		buf = calloc(1, 1);
	buf[len] = 0;
	st = pclose(fp);
	if (out)
		*out = buf;
	else
		free(buf);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int fixture_runf(char **out, const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	rc = fixture_run(cmd, out);
	free(cmd);
	return rc;
}

/*
 * Live tests touch the kernel's memory (hugetlb pools, offlining, tracing): one at a
 * time on a machine, also across concurrent test runs. The lock is held until the
 * test's process exits (Check forks one per test).
 */
static bool live_lock(const char *test)
{
	static int fd = -1;

	if (fd >= 0)
		return true;
	fd = open("/tmp/bigchunk-live.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return true;	/* no lock file: run unserialised rather than skip */
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return true;
	printf("%s: waiting for another live test to finish\n", test);
	fflush(stdout);
	(void)flock(fd, LOCK_EX);
	return true;
}

/*
 * One line per record, written with one write() to a file opened O_APPEND, so the
 * records of forked tests do not interleave:
 *   live TAB test                      a live test began (fixture_live())
 *   skip TAB live|other TAB test TAB reason
 */
static void skip_log(const char *line)
{
	const char *path = getenv("BC_SKIP_LOG");
	int fd;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, strlen(line)) < 0) {
		/* the summary then misses this record; the SKIP line was printed */
	}
	close(fd);
}

/* The test that called fixture_live() in this process (CK_FORK=no runs them all in one). */
static const char *live_test;

void fixture_skip(const char *fmt, ...)
{
	const char *name = tcase_name();
	char reason[512], *line, *p;
	va_list ap;
	bool live = live_test && name && !strcmp(live_test, name);

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	for (p = reason; *p; p++)	/* one record per line */
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	printf("SKIP: %s: %s\n", name ? name : "?", reason);
	fflush(stdout);
	if (asprintf(&line, "skip\t%s\t%s\t%s\n", live ? "live" : "other", name ? name : "?",
		     reason) < 0)
		return;
	skip_log(line);
	free(line);
}

bool fixture_live(const char *test)
{
	char *line;

	live_test = tcase_name();
	if (asprintf(&line, "live\t%s\n", live_test ? live_test : test) >= 0) {
		skip_log(line);
		free(line);
	}
	if (getenv("BC_NO_LIVE")) {
		fixture_skip("BC_NO_LIVE is set (live kernel test)");
		return false;
	}
	if (geteuid() != 0) {
		fixture_skip("needs root (live kernel test)");
		return false;
	}
	if (access("/sys/kernel/tracing/trace", F_OK) != 0) {
		fixture_skip("tracefs is not mounted at /sys/kernel/tracing");
		return false;
	}
	return live_lock(test);
}

void fixture_assert_no_output(const char *out)
{
	char pat[600];
	glob_t g;

	ck_assert_msg(access(out, F_OK) != 0, "%s left behind", out);
	snprintf(pat, sizeof(pat), "%s.importing-*", out);
	ck_assert_msg(glob(pat, 0, NULL, &g) != 0, "%s left behind", g.gl_pathv[0]);
	globfree(&g);
}
