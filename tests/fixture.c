// SPDX-License-Identifier: GPL-2.0
#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <errno.h>

#include <sqlite3.h>

#include "common/err.h"
#include "common/kpageflags.h"
#include "model/model.h"
#include "tests/fixture.h"

static char tmpdir[64];
static pid_t tmpdir_owner;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) ? -1 : 0;
}

/*
 * The files a test writes hold physical addresses and can be large: the process that
 * made the directory removes it when it exits (each test is a forked process), a child
 * that inherited the name leaves it to its owner.
 */
static void rm_tmpdir(void)
{
	if (!tmpdir[0] || tmpdir_owner != getpid())
		return;
	/* BC_TEST_KEEP: left for a look at what a failing test wrote */
	if (getenv("BC_TEST_KEEP")) {
		fprintf(stderr, "test files kept in %s\n", tmpdir);
		return;
	}
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *fixture_tmpfile(const char *name)
{
	static char slots[8][256];
	static int next;
	static bool registered;
	char *p = slots[next++ % 8];

	if (!tmpdir[0] || access(tmpdir, F_OK) || tmpdir_owner != getpid()) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/bc-test-%d-XXXXXX", (int)getpid());
		if (!mkdtemp(tmpdir))
			abort();
		tmpdir_owner = getpid();
		if (!registered && !atexit(rm_tmpdir))
			registered = true;
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

/* fixture_run() of @fmt's line, after "@prefix " when @prefix is not NULL. */
static int vrun(char **out, const char *prefix, const char *fmt, va_list ap)
{
	char *args, *cmd;
	int rc;

	if (vasprintf(&args, fmt, ap) < 0 ||
	    asprintf(&cmd, "%s%s%s", prefix ? prefix : "", prefix ? " " : "", args) < 0)
		abort();
	rc = fixture_run(cmd, out);
	free(cmd);
	free(args);
	return rc;
}

int fixture_run_bc(char **out, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vrun(out, fixture_bigchunk(), fmt, ap);
	va_end(ap);
	return rc;
}

int fixture_runf(char **out, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vrun(out, NULL, fmt, ap);
	va_end(ap);
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

/* ---- files and SQL for tests on copies of captures ---- */

void fixture_copy(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out;

	ck_assert_msg(in >= 0, "%s: %s", from, strerror(errno));
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_msg(out >= 0, "%s: %s", to, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_msg(write(out, buf, (size_t)n) == n, "%s: %s", to, strerror(errno));
	ck_assert_int_eq(n, 0);
	close(in);
	ck_assert_int_eq(close(out), 0);
}

static sqlite3 *sql_open(const char *path)
{
	sqlite3 *sq;

	/* read-write: rolls back a hot journal a killed writer left */
	ck_assert_int_eq(sqlite3_open_v2(path, &sq, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	return sq;
}

void fixture_sql_exec(const char *path, const char *sql)
{
	sqlite3 *sq = sql_open(path);
	char *msg = NULL;

	ck_assert_msg(sqlite3_exec(sq, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql,
		      msg ? msg : "?");
	sqlite3_close(sq);
}

/*
 * The rows of @query as text, "|" between columns, "\n" after each row, NULL as "":
 * the sqlite3 shell's list mode. Caller frees.
 */
char *fixture_sql_rows(const char *path, const char *query)
{
	sqlite3 *sq = sql_open(path);
	sqlite3_stmt *st;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int i, rc;

	ck_assert_msg(sqlite3_prepare_v2(sq, query, -1, &st, NULL) == SQLITE_OK, "%s: %s", query,
		      sqlite3_errmsg(sq));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < sqlite3_column_count(st); i++) {
			const char *t = (const char *)sqlite3_column_text(st, i);

			fprintf(fp, "%s%s", i ? "|" : "", t ? t : "");
		}
		fputc('\n', fp);
	}
	ck_assert_msg(rc == SQLITE_DONE, "%s: %s", query, sqlite3_errmsg(sq));
	sqlite3_finalize(st);
	sqlite3_close(sq);
	fclose(fp);
	return buf;
}

long long fixture_sql_count(const char *path, const char *query)
{
	char *t = fixture_sql_rows(path, query);
	long long n = atoll(t);

	free(t);
	return n;
}

void fixture_layout_init(struct model_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->pageblock_order = 9;
	l->max_page_order = 10;
	l->nr_cpus = 2;
	l->memory_block_pages = 32768;
}

unsigned int fixture_layout_zone(struct model_layout *l, const char *name, uint64_t start,
				 uint64_t npfn)
{
	unsigned int i = l->nr_zones++;

	ck_assert_uint_lt(i, MODEL_MAX_ZONES);
	snprintf(l->zones[i].name, sizeof(l->zones[i].name), "%s", name);
	l->zones[i].start_pfn = start;
	l->zones[i].spanned = l->zones[i].present = l->zones[i].managed = npfn;
	return i;
}

struct model *fixture_model(const struct model_layout *l, const char *release)
{
	struct model_profile prof;
	struct model *m;

	ck_assert_int_eq(model_profile_from_release(release, l->pageblock_order, &prof), 0);
	m = model_create(l, &prof);
	ck_assert_msg(m != NULL, "model_create: %s", bc_errmsg());
	return m;
}

void fixture_seed(struct model *m, uint64_t pfn, uint64_t n, uint64_t flags)
{
	uint64_t *f = malloc(n * sizeof(*f)), i;

	ck_assert_ptr_nonnull(f);
	for (i = 0; i < n; i++)
		f[i] = flags;
	ck_assert_int_eq(model_seed_pfn_range(m, pfn, n, f, NULL), 0);
	free(f);
}

void fixture_seed_compound(struct model *m, uint64_t pfn, uint64_t n, uint64_t flags)
{
	uint64_t *f = malloc(n * sizeof(*f)), i;

	ck_assert_ptr_nonnull(f);
	for (i = 0; i < n; i++)
		f[i] = flags | (i ? KPF_BIT(KPF_COMPOUND_TAIL) : KPF_BIT(KPF_COMPOUND_HEAD));
	ck_assert_int_eq(model_seed_pfn_range(m, pfn, n, f, NULL), 0);
	free(f);
}

struct model *fixture_free_zone(const char *release, uint64_t start, unsigned int npfn)
{
	struct model_layout l;
	struct model *m;

	fixture_layout_init(&l);
	fixture_layout_zone(&l, "Normal", start, npfn);
	m = fixture_model(&l, release);
	fixture_seed(m, start, npfn, KPF_BIT(KPF_BUDDY));
	return m;
}
