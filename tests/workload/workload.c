// SPDX-License-Identifier: GPL-2.0
/*
 * workload: memory workloads for live tests and benchmarks. Each mode allocates in a
 * way that leaves a known mark on the page allocator, holds it for SECONDS, then
 * frees everything and exits. Deterministic (no randomness), bounded in size and time.
 *
 * usage: workload MODE MIB SECONDS [DIR]
 *   anon      4 KiB anonymous faults; every other 2 MiB of it unmapped again (holes)
 *   pagecache write and read back a MIB file in DIR (default /tmp), drop part of it
 *   slab      create MIB*64 small files in DIR and stat them (dentries, inodes)
 *   pgtable   touch one page per 2 MiB over MIB*256 MiB of address space (page tables)
 *   mlock     anonymous memory, mlock()ed
 *   thp       anonymous memory with MADV_HUGEPAGE
 *   rings     MIB/4 io_uring instances of 32768 entries: each rings 2 MiB of submission
 *             entries and 2 MiB of completions as order-9 unmovable allocations, which
 *             fall back onto Movable pageblocks and claim them (extfrag events)
 *   mixed     all of the above, MIB split between them, churned for SECONDS
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/io_uring.h>

#define MIB (1ul << 20)
#define PAGE 4096ul

static void die(const char *what)
{
	fprintf(stderr, "workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static char *anon(size_t mib, int advice, bool lock)
{
	size_t len = mib * MIB, i;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	if (advice >= 0)
		madvise(p, len, advice);
	if (lock && mlock(p, len))
		die("mlock");
	for (i = 0; i < len; i += PAGE)
		p[i] = (char)i;
	return p;
}

static void holes(char *p, size_t mib)
{
	size_t off;

	for (off = 2 * MIB; off + 2 * MIB <= mib * MIB; off += 4 * MIB)
		munmap(p + off, 2 * MIB);
}

static void pagecache(const char *dir, size_t mib)
{
	char path[4096], buf[65536];
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "%s/bc-workload-%d.dat", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(path);
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < mib * MIB / sizeof(buf); i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			die("write");
	fsync(fd);
	lseek(fd, 0, SEEK_SET);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	/* Drop every other MiB from the cache: frees scattered over the file's pages. */
	for (i = 0; i < mib; i += 2)
		posix_fadvise(fd, (off_t)(i * MIB), MIB, POSIX_FADV_DONTNEED);
	close(fd);
	unlink(path);
}

static void slab(const char *dir, size_t n, int create)
{
	char path[4096];
	struct stat sb;
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/bc-wl-%d-%zu", dir, (int)getpid(), i);
		if (create) {
			int fd = open(path, O_WRONLY | O_CREAT, 0600);

			if (fd < 0)
				die(path);
			close(fd);
			stat(path, &sb);
		} else {
			unlink(path);
		}
	}
}

static char *pgtable(size_t mib)
{
	size_t len = mib * 256 * MIB, off;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	madvise(p, len, MADV_NOHUGEPAGE);
	for (off = 0; off < len; off += 2 * MIB)
		p[off] = 1;
	return p;
}

/* io_uring_setup() allocates its rings as single compound pages where it can. */
static void rings(size_t n)
{
	struct io_uring_params prm;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&prm, 0, sizeof(prm));
		if (syscall(__NR_io_uring_setup, 32768, &prm) < 0)
			die("io_uring_setup");
	}
}

int main(int argc, char **argv)
{
	const char *mode, *dir = "/tmp";
	size_t mib;
	double secs, end;

	if (argc < 4) {
		fprintf(stderr, "usage: workload anon|pagecache|slab|pgtable|mlock|thp|rings|mixed "
			"MIB SECONDS [DIR]\n");
		return 2;
	}
	mode = argv[1];
	mib = strtoul(argv[2], NULL, 0);
	secs = atof(argv[3]);
	if (argc > 4)
		dir = argv[4];
	end = now() + secs;
	printf("workload %s pid %d\n", mode, (int)getpid());
	fflush(stdout);
	if (!strcmp(mode, "anon")) {
		holes(anon(mib, -1, false), mib);
	} else if (!strcmp(mode, "pagecache")) {
		pagecache(dir, mib);
	} else if (!strcmp(mode, "slab")) {
		slab(dir, mib * 64, 1);
	} else if (!strcmp(mode, "pgtable")) {
		pgtable(mib);
	} else if (!strcmp(mode, "mlock")) {
		anon(mib, -1, true);
	} else if (!strcmp(mode, "thp")) {
		anon(mib, MADV_HUGEPAGE, false);
	} else if (!strcmp(mode, "rings")) {
		rings(mib / 4 ? mib / 4 : 1);
	} else if (!strcmp(mode, "mixed")) {
		size_t part = mib / 4 ? mib / 4 : 1;

		while (now() < end) {
			char *a = anon(part, -1, false);

			holes(a, part);
			pagecache(dir, part);
			slab(dir, part * 16, 1);
			slab(dir, part * 16, 0);
			munmap(a, part * MIB);
		}
	} else {
		fprintf(stderr, "workload: unknown mode '%s'\n", mode);
		return 2;
	}
	while (now() < end)
		usleep(20000);
	if (!strcmp(mode, "slab"))
		slab(dir, mib * 64, 0);
	return 0;
}
