// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a snapshot: the name map between a snapshot directory and the live /proc and
 * /sys, the walk over all files (text files, then kpageflags/kpagecount in lockstep
 * batches of TDB_PAGE_CHUNK PFNs), trace markers, and the directory writer.
 *
 * Owns no state beyond one walk: open files and the decompressor children of .zst/.gz
 * page files (run as "zstd -dc FILE" / "gzip -dc FILE" with stderr to /dev/null, so no
 * library dependency is needed; their exit status is checked at the end).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/snap-local.h"
#include "common/err.h"
#include "common/grow.h"
#include "common/wfile.h"
#include "db/tdb-pages.h"

/* Required text files of every snapshot, in walk order (uname first, taken_at last). */
static const char *const snap_text_files[] = {
	"uname", "zoneinfo", "buddyinfo", "pagetypeinfo", "meminfo", "vmstat", "iomem", NULL,
};

uint64_t snap_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int snap_grow(void *arr, int nr, size_t size)
{
	size_t cap = 0;

	/* implicit capacity: 16, then the power of two at or above @nr */
	if (nr > 0)
		for (cap = 16; cap < (size_t)nr; cap *= 2)
			;
	return bc_grow(arr, (size_t)nr, &cap, size, 16, "snapshot");
}

/* ---- markers ---- */

bool snap_label_valid(const char *label)
{
	size_t i;

	if (!label || !*label || strlen(label) >= SNAP_LABEL_MAX)
		return false;
	for (i = 0; label[i]; i++) {
		char c = label[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == ':' || c == '+' || c == '-'))
			return false;
	}
	return true;
}

int snap_marker_format(char *buf, size_t size, const char *label, bool end, uint64_t mono_ns)
{
	int n;

	if (!snap_label_valid(label))
		return bc_error(BC_E_INVAL, "snapshot label '%s': use 1-%d characters of "
				"A-Z a-z 0-9 _ . : + -", label ? label : "", SNAP_LABEL_MAX - 1);
	n = snprintf(buf, size, SNAP_MARKER_PREFIX "%s %s %" PRIu64, label,
		     end ? "end" : "begin", mono_ns);
	if (n < 0 || (size_t)n >= size)
		return bc_error(BC_E_INVAL, "snapshot marker: buffer too small");
	return n;
}

int snap_marker_parse(const char *text, char *label, bool *end, uint64_t *mono_ns)
{
	const char *p, *sp;
	char lab[SNAP_LABEL_MAX], *e;
	size_t len;
	uint64_t v;
	bool is_end;

	if (strncmp(text, SNAP_MARKER_PREFIX, sizeof(SNAP_MARKER_PREFIX) - 1))
		return 0;
	p = text + sizeof(SNAP_MARKER_PREFIX) - 1;
	sp = strchr(p, ' ');
	if (!sp || sp == p || (size_t)(sp - p) >= SNAP_LABEL_MAX)
		return 0;
	memcpy(lab, p, sp - p);
	lab[sp - p] = 0;
	if (!snap_label_valid(lab))
		return 0;
	p = sp + 1;
	if (!strncmp(p, "begin ", 6)) {
		is_end = false;
		p += 6;
	} else if (!strncmp(p, "end ", 4)) {
		is_end = true;
		p += 4;
	} else {
		return 0;
	}
	if (*p < '0' || *p > '9')
		return 0;
	errno = 0;
	v = strtoull(p, &e, 10);
	if (errno)
		return 0;
	len = strlen(e);
	while (len && (e[len - 1] == '\n' || e[len - 1] == ' ' || e[len - 1] == '\r'))
		len--;
	if (len)
		return 0;
	if (label)
		strcpy(label, lab);
	*end = is_end;
	*mono_ns = v;
	return 1;
}

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing",
					    NULL };

int snap_marker_open(struct snap_marker *m, const char *instance, const char *label)
{
	const char *const *d;
	char path[PATH_MAX];
	const char *top = NULL;

	*m = (struct snap_marker){ .fd = -1, .label = label };
	if (label && !snap_label_valid(label))
		return snap_marker_format(path, sizeof(path), label, false, 0);
	for (d = tracefs_dirs; *d; d++) {
		snprintf(path, sizeof(path), "%s/trace", *d);
		if (!access(path, F_OK)) {
			top = *d;
			break;
		}
	}
	if (!top)
		return bc_error(BC_E_NOTRACEFS, "tracefs is not mounted (mount -t tracefs nodev "
				"/sys/kernel/tracing)");
	if (instance && *instance) {
		if (strchr(instance, '/') || !strcmp(instance, ".") || !strcmp(instance, ".."))
			return bc_error(BC_E_INVAL, "trace instance '%s': not a name", instance);
		snprintf(path, sizeof(path), "%s/instances/%s", top, instance);
		if (access(path, F_OK))
			return bc_error(BC_E_NOENT, "%s: no such trace instance", path);
		snprintf(path, sizeof(path), "%s/instances/%s/trace_marker", top, instance);
	} else {
		snprintf(path, sizeof(path), "%s/trace_marker", top);
	}
	m->fd = open(path, O_WRONLY | O_CLOEXEC);
	if (m->fd < 0)
		return bc_error(errno == EACCES || errno == EPERM ? BC_E_PERM : BC_E_IO,
				"%s: %m", path);
	return 0;
}

void snap_marker_close(struct snap_marker *m)
{
	if (m && m->fd >= 0) {
		close(m->fd);
		m->fd = -1;
	}
}

static bool marker_on(const struct snap_marker *m)
{
	return m && (m->write || m->fd >= 0);
}

static const char *marker_label(const struct snap_marker *m)
{
	return m && m->label ? m->label : "snapshot";
}

static int marker_emit(struct snap_marker *m, bool end, uint64_t mono)
{
	char line[SNAP_MARKER_MAX];
	int n;

	if (!marker_on(m))
		return 0;
	n = snap_marker_format(line, sizeof(line), marker_label(m), end, mono);
	if (n < 0)
		return n;
	if (m->write)
		return m->write(m->arg, line);
	if (write(m->fd, line, n) != n)
		return bc_error(BC_E_IO, "trace_marker: write of the snapshot %s marker: %m",
				end ? "end" : "begin");
	return 0;
}

/*
 * "LABEL pages PFN": written just before the page files are read from PFN on, so
 * replay knows, for an event during the reading, whether the snapshot saw its page
 * before or after it. One per TDB_PAGE_CHUNK PFNs; a marker write costs ~1 us.
 */
static int marker_pages(struct snap_marker *m, uint64_t pfn)
{
	char line[SNAP_MARKER_MAX];
	int n;

	if (!marker_on(m))
		return 0;
	n = snprintf(line, sizeof(line), SNAP_MARKER_PREFIX "%s pages %" PRIu64, marker_label(m), pfn);
	if (n < 0 || (size_t)n >= sizeof(line))
		return bc_error(BC_E_INVAL, "snapshot marker: buffer too small");
	if (m->write)
		return m->write(m->arg, line);
	if (write(m->fd, line, n) != n)
		return bc_error(BC_E_IO, "trace_marker: write of a snapshot pages marker: %m");
	return 0;
}

/* ---- sources ---- */

int snap_src_path(const struct snap_src *s, const char *name, char *buf, size_t size)
{
	int n;

	if (s->dir)
		n = snprintf(buf, size, "%s/%s", s->dir, name);
	else if (!strncmp(name, "memory/", 7))
		n = snprintf(buf, size, "%s/sys/devices/system/memory/%s", s->root, name + 7);
	else if (!strcmp(name, "memory"))
		n = snprintf(buf, size, "%s/sys/devices/system/memory", s->root);
	else if (!strncmp(name, "hugepages/", 10))
		n = snprintf(buf, size, "%s/sys/kernel/mm/hugepages/%s", s->root, name + 10);
	else if (!strcmp(name, "hugepages"))
		n = snprintf(buf, size, "%s/sys/kernel/mm/hugepages", s->root);
	else
		n = snprintf(buf, size, "%s/proc/%s", s->root, name);
	if (n < 0 || (size_t)n >= size)
		return bc_error(BC_E_INVAL, "%s: path too long", name);
	return 0;
}

int snap_src_error(const struct snap_src *src, int ret, const char *name)
{
	char path[PATH_MAX];

	if (snap_src_path(src, name, path, sizeof(path)))
		snprintf(path, sizeof(path), "%s", name);
	return bc_error_prefix(ret, "%s", path);
}

static int errno_code(int e)
{
	return e == ENOENT ? BC_E_NOENT : (e == EACCES || e == EPERM) ? BC_E_PERM : BC_E_IO;
}

/*
 * Open @path for reading if it is a regular file. O_NONBLOCK: a FIFO planted in a
 * snapshot directory must not block the open; it is then refused by its type, as are
 * devices (a link to /dev/zero never ends).
 */
static int open_regular(const char *path, int *fd)
{
	struct stat st;

	*fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (*fd < 0)
		return bc_error(errno_code(errno), "%s: %m", path);
	if (fstat(*fd, &st) < 0) {
		int e = errno;

		close(*fd);
		*fd = -1;
		return bc_error(errno_code(e), "%s: fstat: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(*fd);
		*fd = -1;
		return bc_error(BC_E_FORMAT, "%s: not a regular file (%s)", path,
				S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ?
				"a character device" : S_ISBLK(st.st_mode) ? "a block device" :
				S_ISDIR(st.st_mode) ? "a directory" : "a socket");
	}
	/* back to blocking reads: the descriptor may go to a decompressor */
	fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
	return 0;
}

static int read_fd_all(int fd, const char *path, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	ssize_t r;

	if (!buf)
		return bc_error(BC_E_NOMEM, "%s: out of memory", path);
	for (;;) {
		if (cap - n < 2048) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return bc_error(BC_E_NOMEM, "%s: out of memory", path);
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return bc_error(errno_code(errno), "%s: read at offset %zu: %m", path, n);
		}
		if (!r)
			break;
		n += r;
		if (n > SNAP_TEXT_MAX) {
			free(buf);
			return bc_error(BC_E_FORMAT, "%s: larger than %u MiB: not a snapshot text "
					"file", path, SNAP_TEXT_MAX >> 20);
		}
	}
	buf[n] = 0;
	if (memchr(buf, 0, n)) {
		size_t at = (size_t)((char *)memchr(buf, 0, n) - buf);

		free(buf);
		return bc_error(BC_E_FORMAT, "%s: NUL byte at offset %zu in a text file", path,
				at);
	}
	*out = buf;
	*len = n;
	return 0;
}

/* A number in file @name of CMA area directory @dir; -1 when unreadable. */
static long long cma_number(const char *dir, const char *name)
{
	char path[PATH_MAX + 16], buf[32];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (f && fgets(buf, sizeof(buf), f))
		v = strtoll(buf, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/*
 * "cma_areas": one "NAME BASE_PFN COUNT" line per CMA area, from debugfs (cma/NAME/
 * base_pfn and count, CONFIG_CMA_DEBUGFS): no other kernel file says where an area is,
 * and its pageblocks are MIGRATE_CMA. -BC_E_NOENT without debugfs or CMA.
 */
static int read_cma_areas(const struct snap_src *s, char **out, size_t *len)
{
	char dir[PATH_MAX - 256], area[PATH_MAX];
	struct dirent *de;
	size_t size = 0;
	FILE *mem;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/kernel/debug/cma", s->root);
	d = opendir(dir);
	if (!d)
		return -BC_E_NOENT;
	*out = NULL;
	mem = open_memstream(out, &size);
	if (!mem) {
		closedir(d);
		return bc_error(BC_E_NOMEM, "cma_areas: out of memory");
	}
	while ((de = readdir(d))) {
		long long base, count;

		if (de->d_name[0] == '.' || strchr(de->d_name, ' '))
			continue;
		snprintf(area, sizeof(area), "%s/%s", dir, de->d_name);
		base = cma_number(area, "base_pfn");
		count = cma_number(area, "count");
		if (base >= 0 && count > 0)
			fprintf(mem, "%s %lld %lld\n", de->d_name, base, count);
	}
	closedir(d);
	if (fclose(mem)) {
		free(*out);
		return bc_error(BC_E_NOMEM, "cma_areas: out of memory");
	}
	*len = size;
	return 0;
}

/*
 * "page_reporting": free page reporting's order (the page_reporting module parameter,
 * a number), or "none" on a kernel built without it (no parameter). The parameter
 * reads its unset value (6.12: -1; 6.1: MAX_ORDER, 11) until a device such
 * as virtio-balloon registers: reporting then holds free blocks of that order and up
 * off the lists, with no event, while the device takes them (replay and simulate
 * must know whether a block missing from a list may be one of those).
 */
static int read_page_reporting(const struct snap_src *s, char **out, size_t *len)
{
	char path[PATH_MAX];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/sys/module/page_reporting/parameters/page_reporting_order",
		 s->root);
	ret = open_regular(path, &fd);
	if (ret == -BC_E_NOENT) {
		*out = strdup("none\n");
		if (!*out)
			return bc_error(BC_E_NOMEM, "page_reporting: out of memory");
		*len = strlen(*out);
		return 0;
	}
	if (ret)
		return ret;
	ret = read_fd_all(fd, path, out, len);
	close(fd);
	return ret;
}

/* ---- longterm_pins: io_uring registered buffers, by pfn ---- */

/* Entry bits of /proc/PID/pagemap (Documentation/admin-guide/mm/pagemap.rst). */
#define PM_PRESENT	(1ull << 63)
#define PM_PFN_MASK	((1ull << 55) - 1)
#define PINS_FDINFO_TRIES 20		/* io_uring_show_fdinfo() takes uring_lock by trylock */

struct pins_buf {
	unsigned int idx;
	unsigned long long addr;
	unsigned long long len;
};

/*
 * The registered buffers of the io_uring file whose fdinfo is @path: "UserBufs:\t%u"
 * then one "%5u: 0x%llx/%u" line per buffer (io_uring/fdinfo.c; "<none>" for an empty
 * slot on newer kernels). The kernel lists them only if it got the ring's uring_lock
 * (mutex_trylock()): fewer lines than the count means busy. Return: the count
 * (-1: no UserBufs line, not readable), the listed buffers in *@bufs, *@nr, and the
 * slots listed (buffers and empty ones) in *@slots.
 */
static long long ring_bufs(const char *path, struct pins_buf **bufs, int *nr, int *slots)
{
	long long count = -1;
	char line[256];
	FILE *f;

	*bufs = NULL;
	*nr = 0;
	*slots = 0;
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct pins_buf b;
		unsigned long long len;
		int off = 0;

		if (count < 0) {
			if (sscanf(line, "UserBufs: %lld", &count) != 1)
				count = -1;
			continue;
		}
		if (sscanf(line, " %u: 0x%llx/%llu%n", &b.idx, &b.addr, &len, &off) == 3 &&
		    (line[off] == '\n' || !line[off])) {
			b.len = len;
			if (snap_grow(bufs, *nr, sizeof(**bufs))) {
				free(*bufs);
				*bufs = NULL;
				*nr = 0;
				break;
			}
			(*bufs)[(*nr)++] = b;
			(*slots)++;
			continue;
		}
		if (sscanf(line, " %u: <none>%n", &b.idx, &off) == 1 && off) {
			(*slots)++;
			continue;
		}
		break;			/* the next section */
	}
	fclose(f);
	return count;
}

/* pagemap entries of [@vpn, @vpn + @n) into @mem as "io_uring PID FD BUF VADDR PFN NR" runs */
static void buf_runs(FILE *mem, int pm, int pid, int fd, const struct pins_buf *b,
		     unsigned int page_shift)
{
	uint64_t vpn = b->addr >> page_shift, end, run_v = 0, run_pfn = 0, run_n = 0;
	uint64_t ent[512];
	bool run_known = false;

	if (!b->len)
		return;
	end = (b->addr + b->len - 1) >> page_shift;
	end++;
	while (vpn < end) {
		size_t want = end - vpn < 512 ? (size_t)(end - vpn) : 512, i;
		ssize_t r = pread(pm, ent, want * 8, (off_t)(vpn * 8));

		if (r < 8) {
			memset(ent, 0, sizeof(ent));	/* unreadable: pfns unknown */
			r = (ssize_t)(want * 8);
		}
		for (i = 0; i < (size_t)r / 8; i++, vpn++) {
			/* not present, or a pfn hidden from a reader without CAP_SYS_ADMIN */
			bool known = (ent[i] & PM_PRESENT) && (ent[i] & PM_PFN_MASK);
			uint64_t pfn = ent[i] & PM_PFN_MASK;

			if (run_n && known == run_known && (!known || pfn == run_pfn + run_n)) {
				run_n++;
				continue;
			}
			if (run_n && run_known)
				fprintf(mem, "io_uring %d %d %u 0x%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
					pid, fd, b->idx, run_v << page_shift, run_pfn, run_n);
			else if (run_n)
				fprintf(mem, "io_uring %d %d %u 0x%" PRIx64 " - %" PRIu64 "\n", pid,
					fd, b->idx, run_v << page_shift, run_n);
			run_v = vpn;
			run_pfn = pfn;
			run_known = known;
			run_n = 1;
		}
	}
	if (run_n && run_known)
		fprintf(mem, "io_uring %d %d %u 0x%" PRIx64 " %" PRIu64 " %" PRIu64 "\n", pid, fd,
			b->idx, run_v << page_shift, run_pfn, run_n);
	else if (run_n)
		fprintf(mem, "io_uring %d %d %u 0x%" PRIx64 " - %" PRIu64 "\n", pid, fd, b->idx,
			run_v << page_shift, run_n);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The numeric entries of directory @dir, ascending (*@nr; NULL when unreadable). */
static int *numeric_entries(const char *dir, int *nr)
{
	struct dirent *de;
	int *v = NULL;
	DIR *d;

	*nr = 0;
	d = opendir(dir);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char *e;
		long x = strtol(de->d_name, &e, 10);

		if (*e || e == de->d_name || x < 0 || x > INT32_MAX)
			continue;
		if (snap_grow(&v, *nr, sizeof(*v)))
			break;
		v[(*nr)++] = (int)x;
	}
	closedir(d);
	if (*nr)
		qsort(v, *nr, sizeof(*v), cmp_int);
	return v;
}

/* Every io_uring file of process @pid: its registered buffers, by pfn. */
static void pid_pins(FILE *mem, const char *root, int pid, unsigned int page_shift)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], link[64];
	int pm = -1, *fds, nfd, k;

	snprintf(dir, sizeof(dir), "%s/proc/%d/fd", root, pid);
	fds = numeric_entries(dir, &nfd);	/* none: gone, or a kernel thread's */
	for (k = 0; k < nfd; k++) {
		struct pins_buf *bufs = NULL;
		long long count = -1;
		ssize_t n;
		int fd = fds[k], nr = 0, slots = 0, i, try;

		snprintf(path, sizeof(path), "%s/%d", dir, fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = 0;
		if (strcmp(link, "anon_inode:[io_uring]"))
			continue;
		snprintf(path, sizeof(path), "%s/proc/%d/fdinfo/%d", root, pid, fd);
		for (try = 0; try < PINS_FDINFO_TRIES; try++) {
			free(bufs);
			count = ring_bufs(path, &bufs, &nr, &slots);
			if (count < 0 || slots >= count)
				break;
			usleep(1000);	/* the ring's lock was busy: the list was left out */
		}
		if (count > 0 && slots < count) {
			/* registered buffers the kernel did not list: unknown pfns */
			fprintf(mem, "io_uring %d %d - - - %lld\n", pid, fd, count);
		}
		if (nr && pm < 0) {
			snprintf(path, sizeof(path), "%s/proc/%d/pagemap", root, pid);
			pm = open(path, O_RDONLY | O_CLOEXEC);
		}
		for (i = 0; i < nr && pm >= 0; i++)
			buf_runs(mem, pm, pid, fd, &bufs[i], page_shift);
		free(bufs);
	}
	free(fds);
	if (pm >= 0)
		close(pm);
}

/*
 * "longterm_pins": the long-term pinned pages a reader can see, composed, not a copy.
 * io_uring fixed buffers (IORING_REGISTER_BUFFERS pins every page FOLL_LONGTERM until
 * the registration goes): every process's io_uring files (fd links
 * "anon_inode:[io_uring]"), their fdinfo's registered buffers (user address and
 * length), and each page's pfn from the process's pagemap (root: CAP_SYS_ADMIN, else
 * the pfns read 0). One "io_uring PID FD BUF VADDR PFN NR_PAGES" line per run of
 * physically contiguous pages; PFN "-" where pagemap shows no page (unmapped since
 * registration: the pinned page is not known); "io_uring PID FD - - - NR_BUFS" for a
 * ring whose buffers the kernel did not list. vfio, RDMA and other FOLL_LONGTERM users
 * show nowhere. Empty when no ring has buffers; -BC_E_NOENT without /proc.
 */
static int read_longterm_pins(const struct snap_src *s, char **out, size_t *len)
{
	char dir[PATH_MAX];
	unsigned int shift = 0;
	size_t size = 0;
	long ps = sysconf(_SC_PAGESIZE);
	int *pids, np, i;
	FILE *mem;

	while (ps > 1 && (1l << shift) < ps)
		shift++;
	snprintf(dir, sizeof(dir), "%s/proc", s->root);
	pids = numeric_entries(dir, &np);
	if (!pids && access(dir, R_OK))
		return -BC_E_NOENT;
	*out = NULL;
	mem = open_memstream(out, &size);
	if (!mem) {
		free(pids);
		return bc_error(BC_E_NOMEM, "longterm_pins: out of memory");
	}
	for (i = 0; i < np; i++)
		if (pids[i] > 0)
			pid_pins(mem, s->root, pids[i], shift);
	free(pids);
	if (fclose(mem)) {
		free(*out);
		return bc_error(BC_E_NOMEM, "longterm_pins: out of memory");
	}
	*len = size;
	return 0;
}

/* Read text file @name; *@out malloc'ed and NUL-terminated. Missing: -BC_E_NOENT. */
static int src_read_text(const struct snap_src *s, const char *name, char **out, size_t *len)
{
	char path[PATH_MAX];
	int fd, ret;

	if (!s->dir && !strcmp(name, "uname")) {
		struct utsname u;

		if (uname(&u) < 0)
			return bc_error(BC_E_IO, "uname: %m");
		if (asprintf(out, "%s\n", u.release) < 0)
			return bc_error(BC_E_NOMEM, "uname: out of memory");
		*len = strlen(*out);
		return 0;
	}
	if (!s->dir && !strcmp(name, "cma_areas"))
		return read_cma_areas(s, out, len);
	if (!s->dir && !strcmp(name, "longterm_pins"))
		return read_longterm_pins(s, out, len);
	if (!s->dir && !strcmp(name, "page_reporting"))
		return read_page_reporting(s, out, len);
	ret = snap_src_path(s, name, path, sizeof(path));
	if (!ret)
		ret = open_regular(path, &fd);
	if (ret)
		return ret;
	ret = read_fd_all(fd, path, out, len);
	close(fd);
	return ret;
}

static int cmp_num_suffix(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	unsigned long long u, v;

	x += strcspn(x, "0123456789");
	y += strcspn(y, "0123456789");
	u = strtoull(x, NULL, 10);
	v = strtoull(y, NULL, 10);
	return u < v ? -1 : u > v;
}

static void free_names(char **names, int nr)
{
	while (nr > 0)
		free(names[--nr]);
	free(names);
}

/*
 * Entries of directory @name matching "<prefix><digits><suffix>", sorted by number. A
 * missing directory gives none (memory/ and hugepages/ are optional).
 */
static int src_list(const struct snap_src *s, const char *name, const char *prefix,
		    const char *suffix, char ***out, int *nr)
{
	size_t pl = strlen(prefix), sl = strlen(suffix);
	char path[PATH_MAX], **names = NULL;
	struct dirent *de;
	int n = 0, ret;
	DIR *d;

	*out = NULL;
	*nr = 0;
	ret = snap_src_path(s, name, path, sizeof(path));
	if (ret)
		return ret;
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return bc_error(errno_code(errno), "%s: %m", path);
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), dl;

		if (len <= pl + sl || strncmp(de->d_name, prefix, pl) ||
		    strcmp(de->d_name + len - sl, suffix))
			continue;
		dl = strspn(de->d_name + pl, "0123456789");
		if (dl != len - pl - sl)
			continue;
		ret = snap_grow(&names, n, sizeof(*names));
		if (ret)
			goto fail;
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			ret = bc_error(BC_E_NOMEM, "%s: out of memory", path);
			goto fail;
		}
		n++;
	}
	closedir(d);
	if (n)		/* qsort(NULL, 0) is undefined */
		qsort(names, n, sizeof(*names), cmp_num_suffix);
	*out = names;
	*nr = n;
	return 0;
fail:
	closedir(d);
	free_names(names, n);
	return ret;
}

/* A page file being read: plain, or through a decompressor child. */
struct pfile {
	int fd;
	pid_t pid;			/* decompressor, or 0 */
	int errfd;			/* the decompressor's stderr, or -1 */
	const char *tool;
	uint64_t off;			/* bytes read so far (decompressed) */
	char path[PATH_MAX];
};

/*
 * Start "@tool -dc" reading @in (closed here) into pf->fd. Its stderr goes to a pipe
 * read after it exits; the write end is non-blocking, so a chatty decompressor loses
 * words rather than stalls.
 */
static int pfile_spawn(struct pfile *pf, int in)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };

	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		bc_error(BC_E_IO, "%s: pipe: %m", pf->path);
		goto fail;
	}
	fcntl(err[1], F_SETFL, O_NONBLOCK);
	pf->pid = fork();
	if (pf->pid < 0) {
		pf->pid = 0;
		bc_error(BC_E_IO, "%s: fork: %m", pf->path);
		goto fail;
	}
	if (!pf->pid) {
		dup2(in, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execlp(pf->tool, pf->tool, "-dc", (char *)NULL);
		_exit(127);
	}
	close(in);
	close(out[1]);
	close(err[1]);
	pf->fd = out[0];
	pf->errfd = err[0];
	return 0;
fail:
	close(in);
	if (out[0] >= 0) {
		close(out[0]);
		close(out[1]);
	}
	if (err[0] >= 0) {
		close(err[0]);
		close(err[1]);
	}
	return -BC_E_IO;
}

static int pfile_open(const struct snap_src *s, const char *name, struct pfile *pf)
{
	static const char *const ext[] = { "", ".zst", ".gz" };
	static const char *const tool[] = { NULL, "zstd", "gzip" };
	int i, ret, in, nr_ext = s->dir ? 3 : 1;
	char base[PATH_MAX];

	pf->fd = pf->errfd = -1;
	pf->pid = 0;
	pf->off = 0;
	ret = snap_src_path(s, name, base, sizeof(base));
	if (ret)
		return ret;
	for (i = 0; i < nr_ext; i++) {
		snprintf(pf->path, sizeof(pf->path), "%s%s", base, ext[i]);
		if (!access(pf->path, F_OK))
			break;
	}
	if (i == nr_ext) {
		if (s->dir)
			return bc_error(BC_E_NOENT, "%s: missing (nor %s.zst or %s.gz)", base,
					name, name);
		return bc_error(BC_E_NOENT, "%s: %m", base);
	}
	pf->tool = tool[i];
	/* opened here, not by the decompressor: a FIFO or device is refused first */
	ret = open_regular(pf->path, &in);
	if (ret)
		return ret;
	if (!pf->tool) {
		pf->fd = in;
		return 0;
	}
	return pfile_spawn(pf, in);
}

/* The decompressor's last line on stderr, without its name for stdin, into @buf. */
static void pfile_tool_said(struct pfile *pf, char *buf, size_t size)
{
	char raw[1024], *line, *p;
	size_t n = 0;
	ssize_t r;

	while (n < sizeof(raw) - 1 && (r = read(pf->errfd, raw + n, sizeof(raw) - 1 - n)) > 0)
		n += r;
	while (n && strchr("\n\r ", raw[n - 1]))
		n--;
	raw[n] = 0;
	line = strrchr(raw, '\n');
	line = line ? line + 1 : raw;
	/* both name their input after stdin; the message names the path instead */
	p = strstr(line, "stdin");
	if (p)
		line = p + 5 + strspn(p + 5, "*\\ :");
	n = strlen(line) < size ? strlen(line) : size - 1;
	memcpy(buf, line, n);
	buf[n] = 0;
}

/* Close; for a decompressor, @check: fail unless it exited 0, with what it said. */
static int pfile_close(struct pfile *pf, bool check)
{
	int status, ret = 0;
	char said[256];

	if (pf->fd >= 0)
		close(pf->fd);
	pf->fd = -1;
	if (pf->pid > 0) {
		while (waitpid(pf->pid, &status, 0) < 0 && errno == EINTR)
			;
		if (check && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
			ret = bc_error(BC_E_IO, "%s: cannot run '%s -dc' (install %s, or "
				       "decompress the file)", pf->path, pf->tool, pf->tool);
		} else if (check && !(WIFEXITED(status) && !WEXITSTATUS(status))) {
			pfile_tool_said(pf, said, sizeof(said));
			ret = bc_error(BC_E_FORMAT, "%s: damaged: '%s -dc' failed after %" PRIu64
				       " bytes: %s", pf->path, pf->tool, pf->off,
				       *said ? said : "corrupt or truncated file");
		}
		pf->pid = 0;
	}
	if (pf->errfd >= 0)
		close(pf->errfd);
	pf->errfd = -1;
	return ret;
}

/* Read up to @want bytes (less only at EOF). Return: bytes, or a negative bc_err. */
static ssize_t pfile_read(struct pfile *pf, void *buf, size_t want)
{
	size_t got = 0;
	ssize_t r;

	while (got < want) {
		r = read(pf->fd, (char *)buf + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return bc_error(errno_code(errno), "%s: read at offset %" PRIu64 ": %m",
					pf->path, pf->off + got);
		if (!r)
			break;
		got += r;
	}
	pf->off += got;
	return got;
}

/*
 * One chunk of kpageflags (@gf bytes) and kpagecount (@gc) read from offset @at: check
 * them against each other and @limit PFNs. Return: 0 if they agree.
 */
static int pages_check(struct pfile *pf, struct pfile *pc, ssize_t gf, ssize_t gc,
		       uint64_t at, uint64_t limit, size_t want)
{
	struct pfile *f[2] = { pf, pc };
	ssize_t got[2] = { gf, gc };
	int i, ret;

	for (i = 0; i < 2; i++)
		if (f[i]->off / 8 > limit)
			return bc_error(BC_E_FORMAT, "%s: more than the %" PRIu64 " PFNs (%" PRIu64
					" bytes) the snapshot's zoneinfo and iomem allow: not this "
					"machine's page file", f[i]->path, limit, limit * 8);
	if (gf == gc && !(gf % 8))
		return 0;
	/* a file that ended early may be a decompressor that failed: say so first */
	for (i = 0; i < 2; i++) {
		if ((size_t)got[i] < want) {
			ret = pfile_close(f[i], true);
			if (ret)
				return ret;
		}
	}
	for (i = 0; i < 2; i++)
		if (got[i] % 8)
			return bc_error(BC_E_TRUNCATED, "%s: size %" PRIu64 " is not a multiple of "
					"8: %zd stray bytes at offset %" PRIu64, f[i]->path,
					f[i]->off, got[i] % 8, at + got[i] - got[i] % 8);
	i = gf < gc ? 0 : 1;
	return bc_error(BC_E_TRUNCATED, "%s: ends at offset %" PRIu64 " (PFN %" PRIu64 ") but "
			"%s goes on to offset %" PRIu64 " or more: %s is short", f[i]->path,
			f[i]->off, f[i]->off / 8, i ? "kpageflags" : "kpagecount", f[!i]->off,
			i ? "kpagecount" : "kpageflags");
}

static int walk_pages(const struct snap_src *s, const struct snap_sink *sink,
		      struct snap_marker *m, uint64_t *nr_pfns)
{
	const size_t want = TDB_PAGE_CHUNK * sizeof(uint64_t);
	struct pfile pf = { .fd = -1, .errfd = -1 }, pc = { .fd = -1, .errfd = -1 };
	uint64_t *bf = NULL, *bc = NULL, pfn = 0, limit = UINT64_MAX;
	ssize_t gf, gc;
	int ret;

	ret = sink->max_pfns ? sink->max_pfns(sink->arg, &limit) : 0;
	if (!ret)
		ret = pfile_open(s, "kpageflags", &pf);
	if (!ret)
		ret = pfile_open(s, "kpagecount", &pc);
	if (ret)
		goto out;
	bf = malloc(want);
	bc = malloc(want);
	if (!bf || !bc) {
		ret = bc_error(BC_E_NOMEM, "%s: out of memory", pf.path);
		goto out;
	}
	for (;;) {
		uint64_t at = pf.off;

		ret = marker_pages(m, pfn);
		if (ret)
			goto out;
		gf = pfile_read(&pf, bf, want);
		if (gf < 0) {
			ret = gf;
			goto out;
		}
		gc = pfile_read(&pc, bc, want);
		if (gc < 0) {
			ret = gc;
			goto out;
		}
		ret = pages_check(&pf, &pc, gf, gc, at, limit, want);
		if (ret || !gf)
			goto done;
		ret = sink->pages(sink->arg, pfn, (uint32_t)(gf / 8), bf, bc);
		if (ret)
			goto out;
		pfn += gf / 8;
		if ((size_t)gf < want)
			break;
	}
done:
	if (!ret && !pfn)
		ret = bc_error(BC_E_TRUNCATED, "%s: empty", pf.path);
	if (!ret)
		ret = pfile_close(&pf, true);
	if (!ret)
		ret = pfile_close(&pc, true);
	*nr_pfns = pfn;
out:
	pfile_close(&pf, false);
	pfile_close(&pc, false);
	free(bf);
	free(bc);
	return ret;
}

/* A decimal of 0..INT64_MAX at *@p (after spaces), moved past; else an error naming @what. */
static int parse_ns(const char **p, const char *what, int64_t *v)
{
	const char *q = *p + strspn(*p, " \t");
	size_t n = strspn(q, "0123456789");
	uint64_t x = 0;
	size_t i;

	if (!n)
		return bc_error(BC_E_FORMAT, "line 1: %s: expected a decimal of CLOCK_MONOTONIC "
				"ns, got \"%.24s\"%s", what, q, *q == '-' ? " (negative)" : "");
	for (i = 0; i < n; i++) {
		if (x > ((uint64_t)INT64_MAX - (uint64_t)(q[i] - '0')) / 10)
			return bc_error(BC_E_FORMAT, "line 1: %s \"%.*s\": more than 2^63-1 ns",
					what, (int)n, q);
		x = x * 10 + (uint64_t)(q[i] - '0');
	}
	*v = (int64_t)x;
	*p = q + n;
	return 0;
}

int snap_parse_taken_at(const char *text, uint64_t *begin, uint64_t *end)
{
	const char *p = text;
	int64_t b, e;
	int ret;

	ret = parse_ns(&p, "BEGIN_NS", &b);
	if (!ret && *p != ' ' && *p != '\t')
		ret = bc_error(BC_E_FORMAT, "line 1: expected \"BEGIN_NS END_NS\"");
	if (!ret)
		ret = parse_ns(&p, "END_NS", &e);
	if (ret)
		return ret;
	if (p[strspn(p, " \t\n")])
		return bc_error(BC_E_FORMAT, "line 1: trailing text after \"BEGIN_NS END_NS\"");
	if (e < b)
		return bc_error(BC_E_FORMAT, "line 1: END_NS %" PRId64 " is before BEGIN_NS %"
				PRId64 " (want \"BEGIN_NS END_NS\", END >= BEGIN)", e, b);
	*begin = (uint64_t)b;
	*end = (uint64_t)e;
	return 0;
}

static int emit_text(const struct snap_src *s, const struct snap_sink *sink, const char *name,
		     bool optional)
{
	char *text = NULL;
	size_t len;
	int ret;

	ret = src_read_text(s, name, &text, &len);
	if (ret == -BC_E_NOENT && optional)
		return 0;
	if (ret)
		return ret;
	ret = sink->text(sink->arg, name, text, len);
	free(text);
	return ret;
}

static int walk_memory(const struct snap_src *s, const struct snap_sink *sink)
{
	static const char *const files[] = { "phys_index", "state", "valid_zones" };
	char **names, name[PATH_MAX];
	int nr, i, j, ret;

	ret = src_list(s, "memory", "memory", "", &names, &nr);
	if (ret || !nr)
		return ret;
	ret = emit_text(s, sink, "memory/block_size_bytes", false);
	for (i = 0; !ret && i < nr; i++) {
		for (j = 0; !ret && j < 3; j++) {
			snprintf(name, sizeof(name), "memory/%s/%s", names[i], files[j]);
			ret = emit_text(s, sink, name, j == 2);
		}
	}
	free_names(names, nr);
	return ret;
}

static int walk_hugepages(const struct snap_src *s, const struct snap_sink *sink)
{
	static const char *const files[] = { "nr_hugepages", "free_hugepages" };
	char **names, name[PATH_MAX];
	int nr, i, j, ret;

	ret = src_list(s, "hugepages", "hugepages-", "kB", &names, &nr);
	for (i = 0; !ret && i < nr; i++) {
		for (j = 0; !ret && j < 2; j++) {
			snprintf(name, sizeof(name), "hugepages/%s/%s", names[i], files[j]);
			ret = emit_text(s, sink, name, false);
		}
	}
	free_names(names, nr);
	return ret;
}

int snap_walk(const struct snap_src *s, struct snap_marker *m, const struct snap_sink *sink,
	      struct snap_walk_result *res)
{
	char *taken = NULL, tbuf[64];
	const char *const *f;
	size_t tlen;
	int ret;

	memset(res, 0, sizeof(*res));
	if (s->dir) {
		struct stat st;

		if (stat(s->dir, &st) < 0)
			return bc_error(errno_code(errno), "%s: %m", s->dir);
		if (!S_ISDIR(st.st_mode))
			return bc_error(BC_E_FORMAT, "%s: not a snapshot directory", s->dir);
		ret = src_read_text(s, "taken_at", &taken, &tlen);
		if (ret == -BC_E_NOENT)
			return bc_error(BC_E_NOENT, "%s/taken_at: missing: not a snapshot "
					"directory, or its writer did not finish", s->dir);
		if (ret)
			return ret;
		ret = snap_parse_taken_at(taken, &res->mono_begin, &res->mono_end);
		if (ret) {
			bc_error_prefix(ret, "%s/taken_at", s->dir);
			goto out;
		}
	} else {
		if (marker_on(m) && !snap_label_valid(marker_label(m)))
			return snap_marker_format(tbuf, sizeof(tbuf), marker_label(m), false, 0);
		res->mono_begin = snap_mono_ns();
		ret = marker_emit(m, false, res->mono_begin);
		if (ret)
			return ret;
	}
	for (f = snap_text_files; *f; f++) {
		ret = emit_text(s, sink, *f, false);
		if (ret)
			goto out;
	}
	/*
	 * The pages right after the zone files: the first "pages" marker closes the
	 * window in which buddyinfo and pagetypeinfo were read (replay scores them
	 * against the model over that window).
	 */
	ret = walk_pages(s, sink, m, &res->nr_pfns);
	if (!ret)
		ret = walk_memory(s, sink);
	if (!ret)
		ret = walk_hugepages(s, sink);
	if (!ret)
		ret = emit_text(s, sink, "cma_areas", true);
	if (!ret)
		ret = emit_text(s, sink, "page_reporting", true);
	/* after the pages: pins registered while they were read are listed too */
	if (!ret)
		ret = emit_text(s, sink, "longterm_pins", true);
	if (ret)
		goto out;
	if (!s->dir) {
		res->mono_end = snap_mono_ns();
		ret = marker_emit(m, true, res->mono_end);
		if (ret)
			goto out;
		tlen = snprintf(tbuf, sizeof(tbuf), "%" PRIu64 " %" PRIu64 "\n", res->mono_begin,
				res->mono_end);
		ret = sink->text(sink->arg, "taken_at", tbuf, tlen);
	} else {
		ret = sink->text(sink->arg, "taken_at", taken, tlen);
	}
out:
	free(taken);
	return ret;
}

/* ---- the directory writer ---- */

struct dir_writer {
	const char *dir;
	int ff, fc;			/* kpageflags, kpagecount */
	char ffpath[PATH_MAX], fcpath[PATH_MAX];
};

static int write_all(int fd, const void *buf, size_t len, const char *path)
{
	const char *p = buf;
	ssize_t r;

	while (len) {
		r = write(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return bc_error(errno == ENOSPC ? BC_E_NOSPC : BC_E_IO, "%s: write: %m",
					path);
		p += r;
		len -= r;
	}
	return 0;
}

/* mkdir -p of the directories in @rel below @dir (not its last component). */
static int make_parents(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	const char *sl;

	for (sl = strchr(rel, '/'); sl; sl = strchr(sl + 1, '/')) {
		snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(sl - rel), rel);
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return bc_error(errno_code(errno), "%s: %m", path);
	}
	return 0;
}

static int create_file(const char *dir, const char *name, char *path, size_t size, int *fd)
{
	int ret;

	if ((size_t)snprintf(path, size, "%s/%s", dir, name) >= size)
		return bc_error(BC_E_INVAL, "%s/%s: path too long", dir, name);
	ret = make_parents(dir, name);
	if (ret)
		return ret;
	*fd = bc_create_private(path, 0);
	return *fd < 0 ? *fd : 0;
}

static int writer_close_pages(struct dir_writer *w)
{
	int ret = 0;

	if (w->ff >= 0 && close(w->ff) < 0)
		ret = bc_error(BC_E_IO, "%s: close: %m", w->ffpath);
	if (w->fc >= 0 && close(w->fc) < 0 && !ret)
		ret = bc_error(BC_E_IO, "%s: close: %m", w->fcpath);
	w->ff = w->fc = -1;
	return ret;
}

static int writer_text(void *arg, const char *name, const char *content, size_t len)
{
	struct dir_writer *w = arg;
	char path[PATH_MAX];
	int fd, ret;

	if (!strcmp(name, "taken_at")) {
		ret = writer_close_pages(w);
		if (ret)
			return ret;
	}
	ret = create_file(w->dir, name, path, sizeof(path), &fd);
	if (ret)
		return ret;
	ret = write_all(fd, content, len, path);
	if (close(fd) < 0 && !ret)
		ret = bc_error(BC_E_IO, "%s: close: %m", path);
	return ret;
}

static int writer_pages(void *arg, uint64_t pfn, uint32_t n, const uint64_t *flags,
			const uint64_t *count)
{
	struct dir_writer *w = arg;
	int ret;

	if (w->ff < 0) {
		ret = create_file(w->dir, "kpageflags", w->ffpath, sizeof(w->ffpath), &w->ff);
		if (!ret)
			ret = create_file(w->dir, "kpagecount", w->fcpath, sizeof(w->fcpath),
					  &w->fc);
		if (ret)
			return ret;
	}
	ret = write_all(w->ff, flags, (size_t)n * 8, w->ffpath);
	if (!ret)
		ret = write_all(w->fc, count, (size_t)n * 8, w->fcpath);
	return ret;
}

/* Create @dir mode 0700, or accept an existing empty directory. */
static int make_snapshot_dir(const char *dir)
{
	struct dirent *de;
	DIR *d;

	if (!mkdir(dir, 0700))
		return 0;
	if (errno != EEXIST)
		return bc_error(errno_code(errno), "%s: %m", dir);
	d = opendir(dir);
	if (!d)
		return bc_error(errno_code(errno), "%s: %m", dir);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			closedir(d);
			return bc_error(BC_E_INVAL, "%s: exists and is not empty", dir);
		}
	}
	closedir(d);
	if (chmod(dir, 0700) < 0)
		return bc_error(errno_code(errno), "%s: chmod: %m", dir);
	return 0;
}

int snap_write_dir_root(const char *root, const char *dir, struct snap_marker *m)
{
	struct dir_writer w = { .dir = dir, .ff = -1, .fc = -1 };
	struct snap_sink sink = { .text = writer_text, .pages = writer_pages, .arg = &w };
	struct snap_src src = { .dir = NULL, .root = root && strcmp(root, "/") ? root : "" };
	struct snap_walk_result res;
	int ret;

	ret = make_snapshot_dir(dir);
	if (ret)
		return ret;
	ret = snap_walk(&src, m, &sink, &res);
	if (writer_close_pages(&w) && !ret)
		ret = -BC_E_IO;
	if (ret)
		return bc_error_prefix(ret, "snapshot %s incomplete (no taken_at)", dir);
	return 0;
}

int snap_write_dir(const char *dir, struct snap_marker *m)
{
	return snap_write_dir_root(NULL, dir, m);
}
