// SPDX-License-Identifier: GPL-2.0
/*
 * probe-workload: put memory in a known kind of use and hold it, so that a recording
 * with --probe / --probe-offline measures predictions against the kernel under it.
 *
 *   probe-workload KIND MIB [FILE]
 *
 * KIND:
 *   pagecache   write FILE (MIB) through the page cache and keep it cached
 *   anon-holes  fault MIB of anonymous memory (no THP), unmap every other 64 KiB
 *   mlock       like anon-holes, but the kept half is mlock()ed
 *   thp         MIB of anonymous memory with MADV_HUGEPAGE (THP where possible)
 *   slab        create many small files in FILE (a directory): dentries and inodes
 *   pgtable     touch one page every 2 MiB of a large sparse mapping: page tables
 *
 * Prints "ready" on stdout once the memory is in use, then sleeps until a signal.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOLE	(64UL << 10)

static volatile sig_atomic_t done;

static void on_sig(int sig)
{
	done = sig;
}

static char *anon(size_t len, int advice)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t off;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, len, advice);
	for (off = 0; off < len; off += 4096)
		p[off] = (char)off;
	return p;
}

static void holes(char *p, size_t len, int lock)
{
	size_t off;

	for (off = 0; off + 2 * HOLE <= len; off += 2 * HOLE) {
		munmap(p + off + HOLE, HOLE);
		if (lock)
			mlock(p + off, HOLE);
	}
}

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	size_t mib, len, off;
	const char *kind;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: probe-workload KIND MIB [FILE]\n");
		return 2;
	}
	kind = argv[1];
	mib = strtoul(argv[2], NULL, 0);
	len = mib << 20;
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	if (!strcmp(kind, "pagecache")) {
		if (argc < 4)
			return 2;
		fd = open(argv[3], O_CREAT | O_TRUNC | O_WRONLY, 0600);
		if (fd < 0) {
			perror(argv[3]);
			return 1;
		}
		memset(buf, 'x', sizeof(buf));
		for (off = 0; off < len; off += sizeof(buf))
			if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				return 1;
		fsync(fd);
		close(fd);
	} else if (!strcmp(kind, "anon-holes") || !strcmp(kind, "mlock")) {
		holes(anon(len, MADV_NOHUGEPAGE), len, !strcmp(kind, "mlock"));
	} else if (!strcmp(kind, "thp")) {
		anon(len, MADV_HUGEPAGE);
	} else if (!strcmp(kind, "slab")) {
		char path[4096];
		size_t i, n = mib * 1024;	/* ~1 KiB of slab per file */

		if (argc < 4)
			return 2;
		mkdir(argv[3], 0700);
		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "%s/f%zu", argv[3], i);
			fd = open(path, O_CREAT | O_WRONLY, 0600);
			if (fd >= 0)
				close(fd);
		}
	} else if (!strcmp(kind, "pgtable")) {
		size_t span = len << 9;	/* one 4 KiB page table per 2 MiB touched */
		char *p = mmap(NULL, span, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		madvise(p, span, MADV_NOHUGEPAGE);
		for (off = 0; off < span; off += 2UL << 20)
			p[off] = 1;
	} else {
		fprintf(stderr, "probe-workload: unknown kind '%s'\n", kind);
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	while (!done)
		pause();
	return 0;
}
