// SPDX-License-Identifier: GPL-2.0
/*
 * cap-probe: real contiguous attempts on the live kernel at the end of a recording
 * (see cap-probe.h for what is owned and restored here).
 *
 * Order of a run: optional "probe" snapshot, the hugetlb_1g probe, then one offline
 * probe per chosen block. Every probe is one probes row, inserted when it ends.
 * Restoring is done by restore_all(), which every path reaches: the pool is written
 * back to its original size and every block this run offlined is onlined again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/cap-probe.h"
#include "capture/snapshot.h"
#include "common/err.h"
#include "common/kpageflags.h"
#include "db/tdb.h"
#include "db/tdb-probes.h"

#define HUGE_1G_DIR	"/sys/kernel/mm/hugepages/hugepages-1048576kB"
#define HUGE_1G_NR	HUGE_1G_DIR "/nr_hugepages"
#define MEMORY_DIR	"/sys/devices/system/memory"
#define KPAGEFLAGS	"/proc/kpageflags"
#define KMSG		"/dev/kmsg"

#define MAX_1G_HEADS		4096	/* 4 TiB of 1 GiB pages */
#define MAX_PROBE_BLOCKS	256

struct block {
	long nr;			/* memoryN */
	uint64_t start_pfn, nr_pfns;
	bool offlined;			/* this run left it offline: restore owes an online */
};

struct probe_run {
	struct tdb *db;
	int marker_fd;
	const struct cap_probe_opts *o;
	int64_t next_id;
	/* hugetlb pool */
	bool pool_touched;
	long pool_orig;
	/* offlined blocks waiting for their online */
	struct block blocks[MAX_PROBE_BLOCKS];
	int nr_blocks;
	uint64_t block_pfns;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void note(const struct probe_run *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(const struct probe_run *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!p->o->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->o->note(msg, p->o->arg);
}

static bool stopped(const struct probe_run *p)
{
	return p->o->stop && *p->o->stop;
}

static void detail_add(struct tdb_probe *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void detail_add(struct tdb_probe *r, const char *fmt, ...)
{
	size_t len = strlen(r->detail);
	va_list ap;

	if (len + 2 >= sizeof(r->detail))
		return;
	if (len)
		r->detail[len++] = ';', r->detail[len++] = ' ', r->detail[len] = 0;
	va_start(ap, fmt);
	vsnprintf(r->detail + len, sizeof(r->detail) - len, fmt, ap);
	va_end(ap);
}

/* Hold the stop signals around a write that must not be interrupted. */
static void hold_signals(sigset_t *old)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	sigprocmask(SIG_BLOCK, &s, old);
}

static void release_signals(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* ---- small sysfs helpers ---- */

/* Return: 0 and the text (newline stripped), or -errno. */
static int read_text(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/* One write() of @text; Return: 0 or -errno (-EINTR when a signal interrupted it). */
static int write_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static int read_long(const char *path, long *v)
{
	char buf[64], *end;
	int ret = read_text(path, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	*v = strtol(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

static int write_long(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	return write_text(path, buf);
}

/* ---- markers and rows ---- */

static void marker(const struct probe_run *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void marker(const struct probe_run *p, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	if (p->marker_fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(line) && write(p->marker_fd, line, (size_t)n) < 0)
		note(p, "cannot write trace marker '%s': %s", line, strerror(errno));
}

/* ---- restore ---- */

static int restore_pool(struct probe_run *p)
{
	sigset_t old;
	long now = -1;
	int ret, tries;

	if (!p->pool_touched)
		return 0;
	hold_signals(&old);
	for (tries = 0; tries < 3; tries++) {
		ret = write_long(HUGE_1G_NR, p->pool_orig);
		if (!ret && !read_long(HUGE_1G_NR, &now) && now == p->pool_orig)
			break;
		sleep_ms(100);
	}
	release_signals(&old);
	if (now != p->pool_orig)
		return bc_error(BC_E_IO, "probe: cannot put %s back to %ld (it reads %ld): "
				"write it by hand", HUGE_1G_NR, p->pool_orig, now);
	p->pool_touched = false;
	return 0;
}

static void block_path(char *buf, size_t size, long nr, const char *file)
{
	snprintf(buf, size, MEMORY_DIR "/memory%ld/%s", nr, file);
}

/* Online block @b again; Return: 0 or -errno of the last try. */
static int online_block(struct block *b)
{
	char path[128], state[32];
	sigset_t old;
	int ret = 0, tries;

	block_path(path, sizeof(path), b->nr, "state");
	hold_signals(&old);
	for (tries = 0; tries < 3; tries++) {
		if (!read_text(path, state, sizeof(state)) && !strcmp(state, "online")) {
			ret = 0;
			break;
		}
		/* The probed blocks were ZONE_NORMAL: online_kernel puts them back there. */
		ret = write_text(path, "online_kernel");
		if (ret)
			ret = write_text(path, "online");
		if (!ret)
			continue;	/* re-read the state */
		sleep_ms(100);
	}
	release_signals(&old);
	if (!read_text(path, state, sizeof(state)) && !strcmp(state, "online")) {
		b->offlined = false;
		return 0;
	}
	return ret ? ret : -EIO;
}

static int restore_blocks(struct probe_run *p)
{
	int i, ret = 0;

	for (i = 0; i < p->nr_blocks; i++) {
		struct block *b = &p->blocks[i];
		int err;

		if (!b->offlined)
			continue;
		err = online_block(b);
		if (err && !ret)
			ret = bc_error(BC_E_IO, "probe: memory%ld is left offline (%s): write "
				       "'online' to %s/memory%ld/state by hand", b->nr,
				       strerror(-err), MEMORY_DIR, b->nr);
	}
	return ret;
}

static int restore_all(struct probe_run *p)
{
	int r1 = restore_pool(p), r2 = restore_blocks(p);

	return r1 ? r1 : r2;
}

/* ---- hugetlb 1 GiB ---- */

/* 1 GiB-aligned pfns whose kpageflags say HUGE|COMPOUND_HEAD. */
static int scan_1g_heads(uint64_t *heads, int max, int *nr)
{
	uint64_t pfn, flags;
	int fd = open(KPAGEFLAGS, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*nr = 0;
	if (fd < 0)
		return bc_error(errno == EACCES ? BC_E_PERM : BC_E_IO, "%s: %m", KPAGEFLAGS);
	for (pfn = 0;; pfn += CAP_PROBE_1G_PAGES) {
		n = pread(fd, &flags, sizeof(flags), (off_t)(pfn * sizeof(flags)));
		if (n != (ssize_t)sizeof(flags))
			break;
		if ((flags & (1ULL << KPF_HUGE)) && (flags & (1ULL << KPF_COMPOUND_HEAD)) &&
		    *nr < max)
			heads[(*nr)++] = pfn;
	}
	close(fd);
	return 0;
}

static bool in_list(const uint64_t *l, int n, uint64_t v)
{
	int i;

	for (i = 0; i < n; i++)
		if (l[i] == v)
			return true;
	return false;
}

static int probe_hugetlb(struct probe_run *p)
{
	struct tdb_probe r = { .kind = "hugetlb_1g", .block = -1, .start_pfn = -1,
			       .end_pfn = -1, .culprit_pfn = -1 };
	uint64_t *known = NULL, *now = NULL;
	int nknown = 0, nnow = 0, i, j, ret = 0, err;
	int64_t id = p->next_id++;
	long orig, got;

	r.requested = p->o->hugetlb_1g;
	r.mono_begin = mono_ns();
	if (access(HUGE_1G_NR, W_OK)) {
		note(p, "no 1 GiB hugetlb pool here (%s: %s): hugetlb_1g probe skipped",
		     HUGE_1G_NR, strerror(errno));
		detail_add(&r, "no 1 GiB hugetlb support (%s)", strerror(errno));
		r.mono_end = mono_ns();
		r.restored = true;
		return tdb_add_probe(p->db, id, &r);
	}
	err = read_long(HUGE_1G_NR, &orig);
	if (err)
		return bc_error(BC_E_IO, "probe: %s: %s", HUGE_1G_NR, strerror(-err));
	known = calloc(MAX_1G_HEADS, sizeof(*known));
	now = calloc(MAX_1G_HEADS, sizeof(*now));
	if (!known || !now) {
		ret = bc_error(BC_E_NOMEM, "probe: out of memory");
		goto out;
	}
	ret = scan_1g_heads(known, MAX_1G_HEADS, &nknown);
	if (ret)
		goto out;
	p->pool_orig = orig;
	p->pool_touched = true;
	detail_add(&r, "pool was %ld", orig);
	marker(p, CAP_PROBE_MARKER_PREFIX "%" PRId64 " hugetlb_1g begin %" PRIu64, id,
	       r.mono_begin);
	for (i = 0; i < (int)p->o->hugetlb_1g; i++) {
		uint64_t t = mono_ns();
		uint64_t found = UINT64_MAX;

		if (stopped(p)) {
			detail_add(&r, "stopped by a signal after %d pages", i);
			ret = bc_error(BC_E_INTR, "probe: stopped");
			break;
		}
		marker(p, CAP_PROBE_MARKER_PREFIX "%" PRId64 " hugetlb_1g step %d begin %" PRIu64,
		       id, i, t);
		err = write_long(HUGE_1G_NR, orig + r.obtained + 1);
		if (err == -EINTR) {
			detail_add(&r, "write interrupted by a signal at page %d", i);
			ret = bc_error(BC_E_INTR, "probe: stopped");
		} else if (err) {
			detail_add(&r, "write %ld: %s", orig + r.obtained + 1, strerror(-err));
		}
		err = read_long(HUGE_1G_NR, &got);
		t = mono_ns();
		marker(p, CAP_PROBE_MARKER_PREFIX "%" PRId64 " hugetlb_1g step %d end %" PRIu64,
		       id, i, t);
		if (err) {
			ret = bc_error(BC_E_IO, "probe: %s: %s", HUGE_1G_NR, strerror(-err));
			break;
		}
		if (got <= orig + r.obtained)
			break;		/* the search failed: the kernel stops there too */
		ret = scan_1g_heads(now, MAX_1G_HEADS, &nnow);
		if (ret)
			break;
		for (j = 0; j < nnow; j++) {
			if (!in_list(known, nknown, now[j])) {
				found = now[j];
				break;
			}
		}
		r.obtained++;
		if (found == UINT64_MAX) {
			detail_add(&r, "page %d: no new HUGE head found in kpageflags", i);
		} else {
			if (nknown < MAX_1G_HEADS)
				known[nknown++] = found;
			ret = tdb_add_probe_page(p->db, id, i, found, found + CAP_PROBE_1G_PAGES, t);
			if (ret)
				break;
		}
		if (ret)
			break;
	}
	r.success = r.obtained == r.requested;
	err = restore_pool(p);
	r.restored = !err;
	r.mono_end = mono_ns();
	marker(p, CAP_PROBE_MARKER_PREFIX "%" PRId64 " hugetlb_1g end %" PRIu64, id, r.mono_end);
	note(p, "probe %" PRId64 ": hugetlb 1 GiB: %ld of %ld pages%s", id, r.obtained,
	     r.requested, r.restored ? "" : " (pool NOT restored)");
	if (!ret)
		ret = err;
	err = tdb_add_probe(p->db, id, &r);
	if (!ret)
		ret = err;
out:
	free(known);
	free(now);
	return ret;
}

/* ---- memory offline ---- */

/* Fraction of pages with non-zero flags in [pfn, pfn + n): lazily initialised memory
 * reads 0 everywhere; any NOPAGE means a hole (such blocks are not probed). */
static int block_initialised(uint64_t pfn, uint64_t n, bool *ok)
{
	uint64_t buf[4096], i, nonzero = 0, done = 0;
	int fd = open(KPAGEFLAGS, O_RDONLY | O_CLOEXEC);

	*ok = false;
	if (fd < 0)
		return bc_error(errno == EACCES ? BC_E_PERM : BC_E_IO, "%s: %m", KPAGEFLAGS);
	while (done < n) {
		uint64_t want = n - done < 4096 ? n - done : 4096;
		ssize_t got = pread(fd, buf, want * 8, (off_t)((pfn + done) * 8));

		if (got <= 0)
			break;
		for (i = 0; i < (uint64_t)got / 8; i++) {
			if (buf[i] & (1ULL << KPF_NOPAGE)) {
				close(fd);
				return 0;
			}
			nonzero += buf[i] != 0;
		}
		done += (uint64_t)got / 8;
	}
	close(fd);
	*ok = done == n && nonzero * 2 >= n;
	return 0;
}

static int cmp_block(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	return (x->nr > y->nr) - (x->nr < y->nr);
}

/* Online, initialised ZONE_NORMAL blocks, sorted by number (malloc'ed). */
static int list_blocks(struct probe_run *p, struct block **out, int *nr)
{
	struct block *l = NULL;
	struct dirent *de;
	int n = 0, cap = 0, ret = 0;
	long bsize;
	DIR *d;

	*out = NULL;
	*nr = 0;
	if (read_long(MEMORY_DIR "/block_size_bytes", &bsize) || bsize <= 0)
		return 0;
	/* block_size_bytes is hex without 0x */
	{
		char buf[64];

		if (read_text(MEMORY_DIR "/block_size_bytes", buf, sizeof(buf)))
			return 0;
		bsize = strtol(buf, NULL, 16);
	}
	p->block_pfns = (uint64_t)bsize / 4096;
	d = opendir(MEMORY_DIR);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[160], text[64];
		long nr, idx;
		bool ok;

		if (strncmp(de->d_name, "memory", 6) || !de->d_name[6] ||
		    !strchr("0123456789", de->d_name[6]))
			continue;
		nr = strtol(de->d_name + 6, NULL, 10);
		block_path(path, sizeof(path), nr, "state");
		if (read_text(path, text, sizeof(text)) || strcmp(text, "online"))
			continue;
		block_path(path, sizeof(path), nr, "valid_zones");
		if (read_text(path, text, sizeof(text)) || strcmp(text, "Normal"))
			continue;
		block_path(path, sizeof(path), nr, "phys_index");
		if (read_text(path, text, sizeof(text)))
			continue;
		idx = strtol(text, NULL, 16);
		ret = block_initialised((uint64_t)idx * p->block_pfns, p->block_pfns, &ok);
		if (ret)
			break;
		if (!ok)
			continue;
		if (n == cap) {
			struct block *g = realloc(l, (size_t)(cap = cap ? 2 * cap : 64) * sizeof(*l));

			if (!g) {
				ret = bc_error(BC_E_NOMEM, "probe: out of memory");
				break;
			}
			l = g;
		}
		l[n].nr = nr;
		l[n].start_pfn = (uint64_t)idx * p->block_pfns;
		l[n].nr_pfns = p->block_pfns;
		l[n].offlined = false;
		n++;
	}
	closedir(d);
	if (ret) {
		free(l);
		return ret;
	}
	qsort(l, (size_t)n, sizeof(*l), cmp_block);
	*out = l;
	*nr = n;
	return 0;
}

/* "pfn:0x1234" anywhere in @s; Return: pfn or -1. */
static int64_t find_hex_after(const char *s, const char *key)
{
	const char *q = strstr(s, key);
	char *end;
	unsigned long long v;

	if (!q)
		return -1;
	q += strlen(key);
	v = strtoull(q, &end, 16);
	return end == q ? -1 : (int64_t)v;
}

/*
 * Read the kernel log records that arrived since @fd was positioned and pick the
 * culprit: the pfn of the page dumped as "unmovable page", else the first "migrating
 * pfn X failed". Also keep the offline failure line.
 */
static void read_kmsg(int fd, struct tdb_probe *r)
{
	char rec[4096];
	int64_t last_dump_pfn = -1;

	if (fd < 0)
		return;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *msg;

		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on with the next */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (strstr(msg, "page:") && strstr(msg, "pfn:0x")) {
			last_dump_pfn = find_hex_after(msg, "pfn:0x");
		} else if (strstr(msg, "page dumped because: unmovable page")) {
			if (r->culprit_pfn < 0 && last_dump_pfn >= 0) {
				r->culprit_pfn = last_dump_pfn;
				snprintf(r->culprit, sizeof(r->culprit), "unmovable page");
			}
		} else if (strstr(msg, "migrating pfn ") && strstr(msg, "failed")) {
			int64_t pfn = find_hex_after(msg, "migrating pfn ");

			if (r->culprit_pfn < 0 && pfn >= 0) {
				r->culprit_pfn = pfn;
				snprintf(r->culprit, sizeof(r->culprit), "migration failed");
			}
		} else if (strstr(msg, "memory offlining") && strstr(msg, "failed")) {
			char *nl = strchr(msg, '\n');

			if (nl)
				*nl = 0;
			detail_add(r, "kernel: %s", msg);
		}
	}
}

static int open_kmsg_at_end(void)
{
	int fd = open(KMSG, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * Offline @b from a child process, waiting at most the time limit; Return: the
 * child's errno (0 = offlined), or -ETIMEDOUT when it had to be killed.
 */
static int offline_in_child(struct probe_run *p, const struct block *b)
{
	uint64_t limit = p->o->offline_timeout_ns ? p->o->offline_timeout_ns :
			 CAP_PROBE_OFFLINE_TIMEOUT_NS;
	uint64_t t0 = mono_ns();
	char path[128];
	int status;
	pid_t pid, w;

	block_path(path, sizeof(path), b->nr, "state");
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int err;

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		err = write_text(path, "offline");
		_exit(err ? (-err & 0x7f) : 0);
	}
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (mono_ns() - t0 >= limit || stopped(p)) {
			/* offline_pages() sees the signal and backs off with -EINTR */
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return -ETIMEDOUT;
		}
		sleep_ms(5);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return -ECHILD;
}

static int probe_offline_block(struct probe_run *p, struct block *b)
{
	struct tdb_probe r = { .kind = "offline", .requested = 1, .culprit_pfn = -1 };
	int64_t id = p->next_id++;
	char path[128], state[32];
	int kfd, err, ret;

	r.block = b->nr;
	r.start_pfn = (int64_t)b->start_pfn;
	r.end_pfn = (int64_t)(b->start_pfn + b->nr_pfns);
	kfd = open_kmsg_at_end();
	r.mono_begin = mono_ns();
	marker(p, CAP_PROBE_MARKER_PREFIX "%" PRId64 " offline begin %" PRIu64, id, r.mono_begin);
	err = offline_in_child(p, b);
	block_path(path, sizeof(path), b->nr, "state");
	if (!read_text(path, state, sizeof(state)) && !strcmp(state, "offline"))
		b->offlined = true;	/* restore owes an online whatever happens next */
	r.mono_end = mono_ns();
	r.success = b->offlined;
	r.obtained = r.success;
	if (err == -ETIMEDOUT)
		detail_add(&r, "stopped after %.1f s", (double)(r.mono_end - r.mono_begin) / 1e9);
	else if (err > 0)
		detail_add(&r, "offline: %s", strerror(err));
	else if (err < 0)
		detail_add(&r, "offline: %s", strerror(-err));
	if (b->offlined) {
		marker(p, CAP_PROBE_MARKER_PREFIX "%" PRId64 " offline restore begin %" PRIu64, id,
		       mono_ns());
		err = online_block(b);
		if (err)
			detail_add(&r, "online: %s", strerror(-err));
	}
	r.restored = !b->offlined;
	marker(p, CAP_PROBE_MARKER_PREFIX "%" PRId64 " offline end %" PRIu64, id, mono_ns());
	/* The log lines of a failure come before the write returns. */
	read_kmsg(kfd, &r);
	if (kfd >= 0)
		close(kfd);
	if (!r.success && r.culprit_pfn < 0 && !r.culprit[0])
		snprintf(r.culprit, sizeof(r.culprit), "%s",
			 strstr(r.detail, "stopped after") ? "timeout" : "unknown");
	note(p, "probe %" PRId64 ": offline memory%ld [%#" PRIx64 ", %#" PRIx64 "): %s%s%s", id,
	     b->nr, (uint64_t)r.start_pfn, (uint64_t)r.end_pfn,
	     r.success ? "offlined and onlined" : "failed", r.culprit[0] ? ", " : "", r.culprit);
	ret = tdb_add_probe(p->db, id, &r);
	if (!r.restored && !ret)
		ret = bc_error(BC_E_IO, "probe: memory%ld is left offline: write 'online' to "
			       "%s/memory%ld/state by hand", b->nr, MEMORY_DIR, b->nr);
	return ret;
}

static int probe_offline(struct probe_run *p)
{
	struct block *all = NULL;
	int nall = 0, i, n = (int)p->o->offline_blocks, ret;

	ret = list_blocks(p, &all, &nall);
	if (ret)
		return ret;
	if (nall == 0) {
		struct tdb_probe r = { .kind = "offline", .requested = 1, .block = -1,
				       .start_pfn = -1, .end_pfn = -1, .culprit_pfn = -1,
				       .restored = true };

		r.mono_begin = r.mono_end = mono_ns();
		detail_add(&r, "no online, initialised ZONE_NORMAL memory block");
		note(p, "offline probe skipped: no online, initialised ZONE_NORMAL memory block");
		free(all);
		return tdb_add_probe(p->db, p->next_id++, &r);
	}
	if (n > nall)
		n = nall;
	if (n > MAX_PROBE_BLOCKS)
		n = MAX_PROBE_BLOCKS;
	/* evenly: the middle of each of n equal slices of the list */
	for (i = 0; i < n; i++)
		p->blocks[p->nr_blocks++] = all[(size_t)((2 * i + 1) * (size_t)nall / (2 * (size_t)n))];
	free(all);
	for (i = 0; i < p->nr_blocks && !ret; i++) {
		if (stopped(p)) {
			ret = bc_error(BC_E_INTR, "probe: stopped");
			break;
		}
		ret = probe_offline_block(p, &p->blocks[i]);
	}
	return ret;
}

/* ---- the run ---- */

int cap_probe_parse_1g(const char *arg, unsigned int *k)
{
	const char *c;
	char *end;
	unsigned long v;

	if (!arg || strncasecmp(arg, "1G", 2))
		return bc_error(BC_E_INVAL, "--probe: '%s' is not 1G or 1G:K (only 1 GiB pages "
				"are probed)", arg ? arg : "");
	c = arg + 2;
	if (!strncasecmp(c, "iB", 2))
		c += 2;
	if (!*c) {
		*k = CAP_PROBE_1G_DEFAULT;
		return 0;
	}
	if (*c != ':')
		return bc_error(BC_E_INVAL, "--probe: '%s' is not 1G or 1G:K", arg);
	errno = 0;
	v = strtoul(c + 1, &end, 10);
	if (errno || end == c + 1 || *end || v < 1 || v > MAX_1G_HEADS)
		return bc_error(BC_E_INVAL, "--probe: K in '%s' must be 1..%d", arg, MAX_1G_HEADS);
	*k = (unsigned int)v;
	return 0;
}

int cap_probe_run(struct tdb *db, int marker_fd, const struct cap_probe_opts *o)
{
	struct probe_run *p;
	int ret = 0, err;

	if (!o->hugetlb_1g && !o->offline_blocks)
		return 0;
	if (geteuid() != 0)
		return bc_error(BC_E_PERM, "probe: needs root");
	p = calloc(1, sizeof(*p));
	if (!p)
		return bc_error(BC_E_NOMEM, "probe: out of memory");
	p->db = db;
	p->marker_fd = marker_fd;
	p->o = o;
	p->next_id = tdb_next_probe_id(db);
	if (o->snapshot_before && !stopped(p)) {
		struct snap_marker m = { .fd = marker_fd, .label = "probe" };
		sigset_t old;

		hold_signals(&old);
		ret = snap_load_live(db, "probe", marker_fd >= 0 ? &m : NULL, NULL);
		release_signals(&old);
		if (ret)
			ret = bc_error_prefix(ret, "probe snapshot");
	}
	if (!ret && o->hugetlb_1g && !stopped(p))
		ret = probe_hugetlb(p);
	if (!ret && o->offline_blocks && !stopped(p))
		ret = probe_offline(p);
	if (!ret && stopped(p))
		ret = bc_error(BC_E_INTR, "probe: stopped by a signal");
	err = restore_all(p);
	if (err)
		ret = err;	/* what is left changed matters most */
	free(p);
	return ret;
}
