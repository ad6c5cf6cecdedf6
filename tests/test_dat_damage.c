// SPDX-License-Identifier: GPL-2.0
/*
 * Damaged trace.dat files, made from traces/idle.dat (and, when trace-cmd is installed,
 * its version 6 conversion): 'bigchunk import' must end with exit 2 and a message
 * naming the file and what is wrong (never a crash or a hang), leave no output and no
 * temporary behind, and where it imports a file whose ring-buffer data is damaged,
 * store the loss so that nothing calls the capture complete with 0 lost.
 */
#include <check.h>
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/dat-check.h"
#include "common/err.h"
#include "tests/fixture.h"

#define IDLE		"traces/idle.dat"
#define IDLE_INSTANCE	"bcfix5664"	/* the buffer instance idle.dat was recorded into */

/* ---- helpers ---- */

static unsigned char *load(const char *path, size_t *len)
{
	unsigned char *buf;
	struct stat sb;
	FILE *fp;

	ck_assert_int_eq(stat(path, &sb), 0);
	buf = malloc((size_t)sb.st_size);
	ck_assert_ptr_nonnull(buf);
	fp = fopen(path, "rb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fread(buf, 1, (size_t)sb.st_size, fp), (size_t)sb.st_size);
	fclose(fp);
	*len = (size_t)sb.st_size;
	return buf;
}

static void save(const char *path, const unsigned char *buf, size_t len)
{
	FILE *fp = fopen(path, "wb");

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(buf, 1, len, fp), len);
	fclose(fp);
}

/* 'bigchunk import -o @out @dat' (at most 60 s: a hang fails); status, output in *@msg. */
static int import(const char *dat, const char *out, char **msg)
{
	char *cmd;
	int rc;

	ck_assert_int_ge(asprintf(&cmd, "timeout 60 %s import -o '%s' '%s'", fixture_bigchunk(),
				  out, dat), 0);
	rc = fixture_run(cmd, msg);
	free(cmd);
	return rc;
}

/* Import of damaged @dat: exit 2, the message names it and says @what, nothing left. */
static void assert_clean_error(const char *dat, const char *what, const char *label)
{
	char *out = fixture_tmpfile("damaged.db"), *msg;
	int rc;

	rc = import(dat, out, &msg);
	ck_assert_msg(rc == 2, "%s: exit %d (want 2): %s", label, rc, msg);
	ck_assert_msg(strstr(msg, dat) && strstr(msg, what),
		      "%s: the message should name %s and say '%s': %s", label, dat, what, msg);
	free(msg);
	fixture_assert_no_output(out);
}

/*
 * Import of @bad whose ring-buffer data is damaged: it works, warns naming the file,
 * and the capture's info shows a lost window, never "0 lost".
 */
static void assert_loss_stored(const char *bad, const char *what)
{
	char *out = strdup(fixture_tmpfile("short.db")), *cmd, *msg;
	int rc;

	rc = import(bad, out, &msg);
	ck_assert_msg(rc == 0, "%s: exit %d: %s", what, rc, msg);
	ck_assert_msg(strstr(msg, "warning") && strstr(msg, bad) && strstr(msg, "damaged"),
		      "%s: the import should warn about %s: %s", what, bad, msg);
	free(msg);

	ck_assert_int_ge(asprintf(&cmd, "%s info '%s'", fixture_bigchunk(), out), 0);
	rc = fixture_run(cmd, &msg);
	free(cmd);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(!strstr(msg, "lost:      0 events\n"), "%s: info says 0 lost: %s", what,
		      msg);
	ck_assert_msg(strstr(msg, "unknown size"), "%s: info should show the lost window: %s",
		      what, msg);
	free(msg);
	fixture_rm(out);
	free(out);
}

/* Write @buf with @len bytes, little-endian @v of @width bytes put at @at, to @path. */
static void save_with(const char *path, const unsigned char *buf, size_t len, size_t at,
		      uint64_t v, int width)
{
	unsigned char *copy = malloc(len);
	uint64_t le = htole64(v);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, buf, len);
	ck_assert_uint_le(at + (size_t)width, len);
	memcpy(copy + at, &le, (size_t)width);
	save(path, copy, len);
	free(copy);
}

/* Where CPU @i's (offset, size) pair of buffer @name is written in @buf (found by value). */
static size_t cpu_entry(const char *path, const unsigned char *buf, size_t len,
			const char *name, int i)
{
	const struct dat_buffer *b;
	struct dat_layout l;
	uint64_t pair[2];
	size_t at;

	ck_assert_int_eq(dat_check(path, &l), 0);
	b = dat_buffer_find(&l, name);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_gt(b->ncpus, i);
	pair[0] = htole64(b->cpus[i].offset);
	pair[1] = htole64(b->cpus[i].size);
	dat_layout_free(&l);
	for (at = 0; at + sizeof(pair) <= len; at++)
		if (!memcmp(buf + at, pair, sizeof(pair)))
			return at;
	ck_abort_msg("%s: CPU %d entry of buffer '%s' not found", path, i, name);
	return 0;
}

/* trace.dat version 6, uncompressed, of idle.dat into @v6; false (a skip) without trace-cmd. */
static bool make_v6(const char *v6)
{
	char *cmd;
	int rc;

	if (fixture_run("command -v trace-cmd >/dev/null", NULL) != 0) {
		fixture_skip("trace-cmd is not installed (it makes the version 6 file)");
		return false;
	}
	ck_assert_int_ge(asprintf(&cmd, "trace-cmd convert --file-version 6 --compression none -i '%s' -o '%s' >/dev/null",
				  fixture_path(IDLE), v6), 0);
	rc = fixture_run(cmd, NULL);
	free(cmd);
	ck_assert_int_eq(rc, 0);
	return true;
}

/* ---- the validator on good files ---- */

START_TEST(test_dat_check_good)
{
	static const char *const files[] = { "traces/frag.dat", IDLE, "traces/lost.dat",
					     "traces/vm-6.12.dat" };
	const struct dat_buffer *b;
	struct dat_layout l;
	size_t i;
	int c;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		ck_assert_msg(dat_check(fixture_path(files[i]), &l) == 0, "%s", bc_errmsg());
		ck_assert_int_eq(l.version, 7);
		ck_assert_int_eq(l.page_size, 4096);
		dat_layout_free(&l);
	}
	ck_assert_int_eq(dat_check(fixture_path(IDLE), &l), 0);
	b = dat_buffer_find(&l, IDLE_INSTANCE);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(b->ncpus, 2);
	for (c = 0; c < b->ncpus; c++) {
		/* compressed: the chunks hold whole pages, more than the file's bytes */
		ck_assert_uint_eq(b->cpus[c].data_size % b->page_size, 0);
		ck_assert_uint_gt(b->cpus[c].data_size, b->cpus[c].size);
	}
	dat_layout_free(&l);
	ck_assert_int_eq(dat_check("/nonexistent/x.dat", &l), -BC_E_NOENT);
}
END_TEST

/* ---- damaged files: clean errors ---- */

START_TEST(test_dat_truncated)
{
	/*
	 * In the magic, in the first section, in CPU 0's and CPU 1's data, in the last
	 * options section (what follows it, section names, is not needed)
	 */
	const long cuts[] = { 5, 40, 1024000 + 5000, 1200000, -200 };
	char *bad = strdup(fixture_tmpfile("cut.dat")), label[64];
	unsigned char *buf;
	size_t len, i, keep;

	buf = load(fixture_path(IDLE), &len);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		keep = cuts[i] < 0 ? len - (size_t)-cuts[i] : (size_t)cuts[i];
		save(bad, buf, keep);
		snprintf(label, sizeof(label), "cut at %zu", keep);
		/* the layout check names the offset (libtracecmd would not) */
		assert_clean_error(bad, keep > 10 ? "offset" : "truncated", label);
	}
	free(buf);
	free(bad);
}
END_TEST

START_TEST(test_dat_page_size)
{
	const uint64_t sizes[] = { 0, 16, 0xffffffff, 4097 };
	char *bad = strdup(fixture_tmpfile("page.dat")), label[64];
	unsigned char *buf;
	size_t len, i;

	buf = load(fixture_path(IDLE), &len);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		save_with(bad, buf, len, 14, sizes[i], 4);	/* after magic, "7", 2 bytes */
		snprintf(label, sizeof(label), "page size %llu", (unsigned long long)sizes[i]);
		assert_clean_error(bad, "page size", label);
	}
	free(buf);
	free(bad);
}
END_TEST

START_TEST(test_dat_bad_cpu_offset)
{
	char *bad = strdup(fixture_tmpfile("cpuoff.dat"));
	unsigned char *buf;
	size_t len, at;

	buf = load(fixture_path(IDLE), &len);
	at = cpu_entry(fixture_path(IDLE), buf, len, IDLE_INSTANCE, 1);
	save_with(bad, buf, len, at, len + (1 << 20), 8);
	assert_clean_error(bad, "CPU 1 data", "CPU 1 offset past the end");
	save_with(bad, buf, len, at + 8, UINT64_MAX - 100, 8);
	assert_clean_error(bad, "CPU 1 data", "CPU 1 size wraps");
	free(buf);
	free(bad);
}
END_TEST

/* Version 6: libtracecmd divides by the page size and trusts the header page. */
START_TEST(test_dat_v6_damage)
{
	const uint64_t vals[] = { 0, 16, 0xffffffff };
	/* copies: fixture_tmpfile() reuses its strings */
	char *v6 = strdup(fixture_tmpfile("idle-v6.dat"));
	char *bad = strdup(fixture_tmpfile("v6-bad.dat"));
	unsigned char *buf;
	char label[64];
	size_t len, i, at;
	uint64_t off;

	if (!make_v6(v6))
		return;
	buf = load(v6, &len);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		save_with(bad, buf, len, 14, vals[i], 4);
		snprintf(label, sizeof(label), "v6 page size %llu", (unsigned long long)vals[i]);
		assert_clean_error(bad, "page size", label);
		/* the header_page size: after the 18-byte start and "header_page\0" */
		save_with(bad, buf, len, 30, vals[i], 8);
		snprintf(label, sizeof(label), "v6 header page size %llu",
			 (unsigned long long)vals[i]);
		assert_clean_error(bad, "header page", label);
	}
	/* truncated inside the ring-buffer data of the buffer instance, both CPUs */
	for (i = 0; i < 2; i++) {
		at = cpu_entry(v6, buf, len, IDLE_INSTANCE, (int)i);
		memcpy(&off, buf + at, 8);
		save(bad, buf, (size_t)le64toh(off) + 8192 + 100);
		snprintf(label, sizeof(label), "v6 cut in CPU %zu data", i);
		assert_clean_error(bad, "truncated", label);
	}
	at = cpu_entry(v6, buf, len, IDLE_INSTANCE, 0);
	save_with(bad, buf, len, at, len + 4096, 8);
	assert_clean_error(bad, "CPU 0 data", "v6 CPU 0 offset past the end");
	/* a record whose length runs past its page's commit: the rest of the page is lost */
	memcpy(&off, buf + at, 8);
	off = le64toh(off) + 705173;
	buf[off] ^= 1 << 7;
	save(bad, buf, len);
	buf[off] ^= 1 << 7;
	assert_loss_stored(bad, "v6 record overrunning its page");
	free(buf);
	fixture_rm(v6);
	fixture_rm(bad);
	free(v6);
	free(bad);
}
END_TEST

START_TEST(test_dat_fifo)
{
	char *fifo = strdup(fixture_tmpfile("fifo.dat"));

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	/* nobody writes: an open without O_NONBLOCK would wait forever */
	assert_clean_error(fifo, "not a regular file", "FIFO");
	fixture_rm(fifo);
	free(fifo);
	fifo = strdup(fixture_tmpfile(""));	/* the test's directory */
	assert_clean_error(fifo, "not a regular file", "directory");
	free(fifo);
}
END_TEST

/* Damage the checks cannot see crashes libtracecmd: contained, exit 2, file named. */
START_TEST(test_dat_crash_contained)
{
	static const struct { size_t at; unsigned char xor; } flips[] = {
		{ 1223757, 0xba ^ 204 },	/* in CPU 1's compressed data */
		{ 1027660, 1 << 5 },		/* in CPU 0's compressed data */
	};
	char *bad = strdup(fixture_tmpfile("crash.dat")), label[64];
	unsigned char *buf;
	size_t len, i;

	buf = load(fixture_path(IDLE), &len);
	for (i = 0; i < sizeof(flips) / sizeof(flips[0]); i++) {
		buf[flips[i].at] ^= flips[i].xor;
		save(bad, buf, len);
		buf[flips[i].at] ^= flips[i].xor;
		snprintf(label, sizeof(label), "byte %zu ^ 0x%x", flips[i].at, flips[i].xor);
		assert_clean_error(bad, "signal", label);
	}
	free(buf);
	free(bad);
}
END_TEST

/* ---- damaged ring-buffer data that imports: the loss is stored and said ---- */

START_TEST(test_dat_short_stream)
{
	static const struct { size_t at; int bit; const char *what; } flips[] = {
		{ 1157713, 4, "CPU 1's stream ends there" },
		{ 1120172, 3, "a page of CPU 1 is cut short" },
		{ 1239751, 3, "a record gets a type the file has no format for" },
	};
	char *bad = strdup(fixture_tmpfile("short.dat"));
	unsigned char *buf;
	size_t len, i;

	buf = load(fixture_path(IDLE), &len);
	for (i = 0; i < sizeof(flips) / sizeof(flips[0]); i++) {
		buf[flips[i].at] ^= 1 << flips[i].bit;
		save(bad, buf, len);
		buf[flips[i].at] ^= 1 << flips[i].bit;
		assert_loss_stored(bad, flips[i].what);
	}
	free(buf);
	free(bad);
}
END_TEST

/* "imported E events, M markers, S stacks, G gaps (...), K skipped records": E+M+S+K, G. */
static void import_counts(const char *dat, uint64_t *records, uint64_t *gaps, char **msg)
{
	char *out = strdup(fixture_tmpfile("counts.db")), *p;
	unsigned long long e, m, st, g, k;
	int rc;

	rc = import(dat, out, msg);
	ck_assert_msg(rc == 0, "%s: exit %d: %s", dat, rc, *msg);
	p = strstr(*msg, "imported ");
	ck_assert_msg(p && sscanf(p, "imported %llu events, %llu markers, %llu stacks, %llu gaps",
				  &e, &m, &st, &g) == 4, "%s", *msg);
	p = strstr(p, "lost), ");
	ck_assert_msg(p && sscanf(p, "lost), %llu skipped", &k) == 1, "%s", *msg);
	*records = e + m + st + k;
	*gaps = g;
	fixture_rm(out);
	free(out);
}

/*
 * A page whose last event the kernel discarded (rb_event_discard(): a reserved event
 * turned into padding with a time delta, its length in array[0]; seen at the end of
 * pages of a trace -T recorded in Debian's 6.12) is not damage: the records before it
 * are the page's, nothing is lost. The last record of a page of the v6 copy is made
 * such a padding the way the kernel makes it: the import has one record fewer (or two
 * when the kernel stack after it on the next page loses its event) and no gap, no
 * warning.
 */
START_TEST(test_dat_discarded_tail)
{
	char *v6 = strdup(fixture_tmpfile("idle-v6.dat"));
	char *bad = strdup(fixture_tmpfile("discard.dat")), *msg;
	uint64_t off, size, commit, pg, n0, g0, n1, g1;
	uint32_t h, tl, len, last_at = 0, last_len = 0, at;
	unsigned char *buf;
	size_t blen;
	int nev;

	if (!make_v6(v6))
		return;
	buf = load(v6, &blen);
	at = (uint32_t)cpu_entry(v6, buf, blen, IDLE_INSTANCE, 0);
	memcpy(&off, buf + at, 8);
	memcpy(&size, buf + at + 8, 8);
	off = le64toh(off);
	size = le64toh(size);
	/* the first page whose last event is a data event of more than 16 bytes */
	for (pg = off; pg + 4096 <= off + size; pg += 4096) {
		memcpy(&commit, buf + pg + 8, 8);
		commit = le64toh(commit) & ((1U << 27) - 1);
		nev = 0;
		last_len = 0;
		for (at = 16; at < 16 + commit; at += len) {
			memcpy(&h, buf + pg + at, 4);
			h = le32toh(h);
			tl = h & 31;
			if (tl == 0) {
				memcpy(&len, buf + pg + at + 4, 4);
				len = le32toh(len) + 4;
			} else if (tl <= 28) {
				len = 4 + 4 * tl;
			} else if (tl == 29) {
				memcpy(&len, buf + pg + at + 4, 4);
				len = (h >> 5) ? le32toh(len) + 4 : (uint32_t)(16 + commit - at);
			} else {
				len = 8;
			}
			ck_assert_uint_gt(len, 0);
			if (tl <= 28) {
				last_at = at;
				last_len = len;
				nev++;
			} else {
				last_len = 0;
			}
		}
		if (nev >= 2 && last_len > 16 && at == 16 + commit)
			break;
	}
	ck_assert_msg(pg + 4096 <= off + size, "no page ends with a data event");
	memcpy(&h, buf + pg + last_at, 4);
	h = le32toh(h);
	/* rb_event_discard(): type PADDING, the delta kept (1 if it was 0), array[0] */
	h = (h & ~31U) | 29;
	if (!(h >> 5))
		h |= 1U << 5;
	h = htole32(h);
	memcpy(buf + pg + last_at, &h, 4);
	len = htole32(last_len - 4);
	memcpy(buf + pg + last_at + 4, &len, 4);
	save(bad, buf, blen);

	import_counts(v6, &n0, &g0, &msg);
	free(msg);
	import_counts(bad, &n1, &g1, &msg);
	ck_assert_msg(!strstr(msg, "warning"), "%s", msg);
	free(msg);
	ck_assert_uint_eq(g1, g0);
	/* one record fewer; the stack that followed an event dropped has no owner then */
	ck_assert_msg(n1 == n0 - 1 || n1 == n0 - 2, "records %llu before, %llu after",
		      (unsigned long long)n0, (unsigned long long)n1);
	free(buf);
	fixture_rm(v6);
	fixture_rm(bad);
	free(v6);
	free(bad);
}
END_TEST

/* Temporaries of imports that died are removed by the next import to the same path. */
START_TEST(test_dat_stale_temporaries)
{
	char *out = strdup(fixture_tmpfile("stale.db")), *msg, dead[700], dead_j[720], live[700];
	unsigned char junk[] = "half an import";
	pid_t pid;
	int rc;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);	/* now a pid of nobody */
	snprintf(dead, sizeof(dead), "%s.importing-%d", out, (int)pid);
	snprintf(dead_j, sizeof(dead_j), "%s-journal", dead);
	snprintf(live, sizeof(live), "%s.importing-%d", out, (int)getpid());
	save(dead, junk, sizeof(junk));
	save(dead_j, junk, sizeof(junk));
	save(live, junk, sizeof(junk));

	rc = import(fixture_path(IDLE), out, &msg);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, msg);
	ck_assert_msg(strstr(msg, "removed") && strstr(msg, dead), "%s", msg);
	free(msg);
	ck_assert_msg(access(dead, F_OK) != 0, "%s left", dead);
	ck_assert_msg(access(dead_j, F_OK) != 0, "%s left", dead_j);
	/* a running import's temporary (ours here) is not touched */
	ck_assert_int_eq(access(live, F_OK), 0);
	fixture_rm(live);
	fixture_rm(out);
	free(out);
}
END_TEST

Suite *dat_damage_suite(void)
{
	Suite *s = suite_create("dat_damage");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_dat_check_good);
	tcase_add_test(tc, test_dat_truncated);
	tcase_add_test(tc, test_dat_page_size);
	tcase_add_test(tc, test_dat_bad_cpu_offset);
	tcase_add_test(tc, test_dat_v6_damage);
	tcase_add_test(tc, test_dat_fifo);
	tcase_add_test(tc, test_dat_crash_contained);
	tcase_add_test(tc, test_dat_short_stream);
	tcase_add_test(tc, test_dat_discarded_tail);
	tcase_add_test(tc, test_dat_stale_temporaries);
	suite_add_tcase(s, tc);
	return s;
}
