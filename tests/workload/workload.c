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
 *   pin       MIB of anonymous THP memory (MADV_HUGEPAGE) registered as io_uring fixed
 *             buffers: pin_user_pages(FOLL_LONGTERM) holds every page until the
 *             buffers are unregistered at the end; prints where the pinned pfns are
 *             (1 GiB ranges and 128 MiB blocks, from /proc/self/pagemap, root only)
 *   mixed     all of the above, MIB split between them, churned for SECONDS
 *             (pagecache, slab, mixed: SIGTERM, SIGINT or SIGHUP ends them early,
 *             their files removed)
 *   hugetlb   grow the 2 MiB hugetlb pool by MIB/2 pages (nr_hugepages of
 *             hugepages-2048kB), map and touch a quarter of them, hold SECONDS, then
 *             shrink the pool back to what it was (SIGUSR1: at once) and exit;
 *             restored on exit and on SIGINT, SIGTERM and SIGHUP too (root)
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/io_uring.h>
#include <sys/uio.h>

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

/* SIGTERM (the recorder's end of -d), SIGINT, SIGHUP: end early, files removed */
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void end_on_term(void)
{
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGHUP, on_term);
}

#define PIN_IOV (64 * MIB)	/* fixed buffers are at most 1 GiB each */

/* Where the pinned memory is: pfn of each 2 MiB, counted per 1 GiB range and block. */
static void pin_where(const char *p, size_t len)
{
	unsigned long gib[64] = { 0 }, blk[512] = { 0 };
	uint64_t e;
	size_t off, i;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return;
	for (off = 0; off < len; off += 2 * MIB) {
		uint64_t pfn;

		if (pread(fd, &e, sizeof(e), (off_t)((uintptr_t)(p + off) / PAGE * 8)) !=
		    sizeof(e) || !(e & (1ull << 63)))
			continue;
		pfn = e & ((1ull << 55) - 1);
		if (!pfn)	/* not root: pfns read as 0 */
			break;
		if (pfn >> 18 < 64)
			gib[pfn >> 18]++;
		if (pfn >> 15 < 512)
			blk[pfn >> 15]++;
	}
	close(fd);
	for (i = 0; i < 64; i++)
		if (gib[i])
			printf("pin: 1G range pfn %#zx: %lu MiB\n", i << 18, gib[i] * 2);
	printf("pin: blocks (128 MiB) holding pinned MiB:");
	for (i = 0; i < 512; i++)
		if (blk[i])
			printf(" %zu:%lu", i, blk[i] * 2);
	printf("\n");
	fflush(stdout);
}

/*
 * THP memory registered as io_uring fixed buffers (IORING_REGISTER_BUFFERS): the
 * kernel pins it with FOLL_LONGTERM, so neither compaction, alloc_contig_range() nor
 * offlining can migrate it until unpin. Return: the ring fd (unregister and close it).
 */
static int pin(size_t mib, char **mem)
{
	struct io_uring_params prm;
	struct iovec *iov;
	size_t len = mib * MIB, n = (len + PIN_IOV - 1) / PIN_IOV, i;
	char *raw, *p;
	int fd;

	/* 2 MiB-aligned, so every 2 MiB of it can be one THP */
	raw = mmap(NULL, len + 2 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (raw == MAP_FAILED)
		die("mmap");
	p = (char *)(((uintptr_t)raw + 2 * MIB - 1) & ~(uintptr_t)(2 * MIB - 1));
	madvise(p, len, MADV_HUGEPAGE);
	for (i = 0; i < len; i += PAGE)
		p[i] = (char)i;
	memset(&prm, 0, sizeof(prm));
	fd = (int)syscall(__NR_io_uring_setup, 8, &prm);
	if (fd < 0)
		die("io_uring_setup");
	iov = calloc(n, sizeof(*iov));
	if (!iov)
		die("calloc");
	for (i = 0; i < n; i++) {
		iov[i].iov_base = p + i * PIN_IOV;
		iov[i].iov_len = len - i * PIN_IOV < PIN_IOV ? len - i * PIN_IOV : PIN_IOV;
	}
	if (syscall(__NR_io_uring_register, fd, IORING_REGISTER_BUFFERS, iov, (unsigned)n) < 0)
		die("IORING_REGISTER_BUFFERS");
	free(iov);
	printf("pin: %zu MiB pinned as %zu fixed buffers\n", mib, n);
	pin_where(p, len);
	*mem = p;
	return fd;
}

#define HUGETLB_2M "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"

static char pool_was[32];	/* nr_hugepages before growth, "" until read */
static volatile sig_atomic_t pool_release;	/* SIGUSR1: shrink now */

/* Write @val to nr_hugepages; async-signal-safe (the restore path uses it). */
static int pool_write(const char *val)
{
	int fd = open(HUGETLB_2M, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

static long pool_read(void)
{
	char buf[32] = "";
	int fd = open(HUGETLB_2M, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		die(HUGETLB_2M);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		die(HUGETLB_2M);
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

static void pool_restore(void)
{
	if (pool_was[0])
		pool_write(pool_was);
}

static void pool_usr1(int sig __attribute__((unused)))
{
	pool_release = 1;
}

static void pool_signal(int sig)
{
	pool_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * set_max_huge_pages(): each new page is one order-9 allocation of the buddy
 * (alloc_buddy_hugetlb_folio()), each page given back one order-9 free. A quarter of
 * the pool is mapped and touched so that some pages are in use, not only free in it.
 */
static void hugetlb(size_t mib, double secs)
{
	long was = pool_read(), want = was + (long)(mib / 2), got;
	size_t len = (size_t)(want - was) / 4 * 2 * MIB, off;
	char val[32];
	char *p = MAP_FAILED;
	double end;

	snprintf(pool_was, sizeof(pool_was), "%ld", was);
	signal(SIGINT, pool_signal);
	signal(SIGTERM, pool_signal);
	signal(SIGHUP, pool_signal);
	signal(SIGUSR1, pool_usr1);
	atexit(pool_restore);
	snprintf(val, sizeof(val), "%ld", want);
	if (pool_write(val))
		die("grow " HUGETLB_2M);
	got = pool_read();
	printf("hugetlb pool %ld -> %ld pages (asked %ld)\n", was, got, want);
	fflush(stdout);
	if (len && got - was >= (long)(len / (2 * MIB))) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p != MAP_FAILED)
			for (off = 0; off < len; off += 2 * MIB)
				p[off] = 1;
	}
	end = now() + secs;
	while (now() < end && !pool_release)
		usleep(20000);
	if (p != MAP_FAILED)
		munmap(p, len);
	if (pool_write(pool_was))
		die("shrink " HUGETLB_2M);
	printf("hugetlb pool back to %ld pages\n", pool_read());
}

int main(int argc, char **argv)
{
	const char *mode, *dir = "/tmp";
	size_t mib;
	double secs, end;
	char *pinned = NULL;
	int ring = -1;

	if (argc < 4) {
		fprintf(stderr, "usage: workload anon|pagecache|slab|pgtable|mlock|thp|rings|pin|"
			"hugetlb|mixed MIB SECONDS [DIR]\n");
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
		end_on_term();
		pagecache(dir, mib);
	} else if (!strcmp(mode, "slab")) {
		end_on_term();
		slab(dir, mib * 64, 1);
	} else if (!strcmp(mode, "pgtable")) {
		pgtable(mib);
	} else if (!strcmp(mode, "mlock")) {
		anon(mib, -1, true);
	} else if (!strcmp(mode, "thp")) {
		anon(mib, MADV_HUGEPAGE, false);
	} else if (!strcmp(mode, "rings")) {
		rings(mib / 4 ? mib / 4 : 1);
	} else if (!strcmp(mode, "hugetlb")) {
		hugetlb(mib, secs);
		return 0;
	} else if (!strcmp(mode, "pin")) {
		/*
		 * SIGTERM ends the hold early (the buffers are still unregistered). The
		 * hold may outlast whoever started us: keep none of its files open (a
		 * recorder's tracefs instance could not be removed).
		 */
		signal(SIGTERM, on_term);
		closefrom(3);
		ring = pin(mib, &pinned);
	} else if (!strcmp(mode, "mixed")) {
		size_t part = mib / 4 ? mib / 4 : 1;

		end_on_term();
		while (now() < end && !stop) {
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
	while (now() < end && !stop)
		usleep(20000);
	if (!strcmp(mode, "slab"))
		slab(dir, mib * 64, 0);
	if (ring >= 0) {
		if (syscall(__NR_io_uring_register, ring, IORING_UNREGISTER_BUFFERS, NULL, 0) < 0)
			die("IORING_UNREGISTER_BUFFERS");
		close(ring);
		munmap(pinned, mib * MIB);
	}
	return 0;
}
