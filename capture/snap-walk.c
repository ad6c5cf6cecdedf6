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
	void **p = arr;
	void *n;

	/* implicit capacity: 16, then doubled whenever @nr reaches a power of two */
	if (nr && (nr < 16 || (nr & (nr - 1))))
		return 0;
	n = realloc(*p, (nr ? (size_t)nr * 2 : 16) * size);
	if (!n)
		return bc_error(BC_E_NOMEM, "snapshot: out of memory");
	*p = n;
	return 0;
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

static int errno_code(int e)
{
	return e == ENOENT ? BC_E_NOENT : (e == EACCES || e == EPERM) ? BC_E_PERM : BC_E_IO;
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
	ret = snap_src_path(s, name, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_error(errno_code(errno), "%s: %m", path);
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
	const char *tool;
	uint64_t off;			/* bytes read so far (decompressed) */
	char path[PATH_MAX];
};

static int pfile_open(const struct snap_src *s, const char *name, struct pfile *pf)
{
	static const char *const ext[] = { "", ".zst", ".gz" };
	static const char *const tool[] = { NULL, "zstd", "gzip" };
	int pfd[2], i, ret;
	char base[PATH_MAX];

	pf->fd = -1;
	pf->pid = 0;
	pf->off = 0;
	ret = snap_src_path(s, name, base, sizeof(base));
	if (ret)
		return ret;
	for (i = 0; i < (s->dir ? 3 : 1); i++) {
		snprintf(pf->path, sizeof(pf->path), "%s%s", base, ext[i]);
		if (!access(pf->path, F_OK))
			break;
	}
	if (i == (s->dir ? 3 : 1)) {
		if (s->dir)
			return bc_error(BC_E_NOENT, "%s: missing (nor %s.zst or %s.gz)", base,
					name, name);
		return bc_error(BC_E_NOENT, "%s: %m", base);
	}
	pf->tool = tool[i];
	if (!pf->tool) {
		pf->fd = open(pf->path, O_RDONLY | O_CLOEXEC);
		if (pf->fd < 0)
			return bc_error(errno_code(errno), "%s: %m", pf->path);
		return 0;
	}
	if (access(pf->path, R_OK))
		return bc_error(errno_code(errno), "%s: %m", pf->path);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return bc_error(BC_E_IO, "%s: pipe: %m", pf->path);
	pf->pid = fork();
	if (pf->pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return bc_error(BC_E_IO, "%s: fork: %m", pf->path);
	}
	if (!pf->pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(pfd[1], 1);
		if (null >= 0)
			dup2(null, 2);
		execlp(pf->tool, pf->tool, "-dc", "--", pf->path, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	pf->fd = pfd[0];
	return 0;
}

/* Close; for a decompressor, @check: fail unless it exited 0. */
static int pfile_close(struct pfile *pf, bool check)
{
	int status, ret = 0;

	if (pf->fd >= 0)
		close(pf->fd);
	pf->fd = -1;
	if (pf->pid > 0) {
		while (waitpid(pf->pid, &status, 0) < 0 && errno == EINTR)
			;
		if (check && WIFEXITED(status) && WEXITSTATUS(status) == 127)
			ret = bc_error(BC_E_IO, "%s: cannot run '%s -dc' (install %s, or "
				       "decompress the file)", pf->path, pf->tool, pf->tool);
		else if (check && !(WIFEXITED(status) && !WEXITSTATUS(status)))
			ret = bc_error(BC_E_FORMAT, "%s: '%s -dc' failed after %" PRIu64
				       " bytes: corrupt or truncated file", pf->path, pf->tool,
				       pf->off);
		pf->pid = 0;
	}
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

static int walk_pages(const struct snap_src *s, const struct snap_sink *sink,
		      struct snap_marker *m, uint64_t *nr_pfns)
{
	const size_t want = TDB_PAGE_CHUNK * sizeof(uint64_t);
	struct pfile pf = { .fd = -1 }, pc = { .fd = -1 };
	uint64_t *bf = NULL, *bc = NULL, pfn = 0;
	ssize_t gf, gc;
	int ret;

	ret = pfile_open(s, "kpageflags", &pf);
	if (ret)
		goto out;
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
		if (gf % 8) {
			ret = bc_error(BC_E_TRUNCATED, "%s: size %" PRIu64 " is not a multiple of 8: "
				       "%zd stray bytes at offset %" PRIu64, pf.path, pf.off,
				       gf % 8, at + gf - gf % 8);
			goto out;
		}
		if (gc % 8) {
			ret = bc_error(BC_E_TRUNCATED, "%s: size %" PRIu64 " is not a multiple of 8: "
				       "%zd stray bytes at offset %" PRIu64, pc.path, pc.off,
				       gc % 8, at + gc - gc % 8);
			goto out;
		}
		if (gf != gc) {
			bool fshort = gf < gc;

			ret = bc_error(BC_E_TRUNCATED, "%s: ends at offset %" PRIu64 " (PFN %" PRIu64
				       ") but %s goes on to offset %" PRIu64 " or more: %s is short",
				       fshort ? pf.path : pc.path, fshort ? pf.off : pc.off,
				       (fshort ? pf.off : pc.off) / 8, fshort ? "kpagecount" :
				       "kpageflags", fshort ? pc.off : pf.off,
				       fshort ? "kpageflags" : "kpagecount");
			goto out;
		}
		if (!gf)
			break;
		ret = sink->pages(sink->arg, pfn, (uint32_t)(gf / 8), bf, bc);
		if (ret)
			goto out;
		pfn += gf / 8;
		if ((size_t)gf < want)
			break;
	}
	if (!pfn) {
		ret = bc_error(BC_E_TRUNCATED, "%s: empty", pf.path);
		goto out;
	}
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

int snap_parse_taken_at(const char *text, uint64_t *begin, uint64_t *end)
{
	unsigned long long b, e;
	int n = 0;

	if (sscanf(text, "%llu %llu%n", &b, &e, &n) != 2 || text[n + strspn(text + n, " \n")] ||
	    e < b)
		return bc_error(BC_E_FORMAT, "expected \"BEGIN_NS END_NS\" (CLOCK_MONOTONIC ns, "
				"END >= BEGIN)");
	*begin = b;
	*end = e;
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
	struct snap_sink sink = { writer_text, writer_pages, &w };
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
