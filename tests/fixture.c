// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
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

bool fixture_live(const char *test)
{
	if (getenv("BC_NO_LIVE")) {
		printf("SKIP: %s: BC_NO_LIVE is set (live kernel test)\n", test);
		return false;
	}
	if (geteuid() != 0) {
		printf("SKIP: %s: needs root (live kernel test)\n", test);
		return false;
	}
	if (access("/sys/kernel/tracing/trace", F_OK) != 0) {
		printf("SKIP: %s: tracefs is not mounted at /sys/kernel/tracing\n", test);
		return false;
	}
	return live_lock(test);
}
