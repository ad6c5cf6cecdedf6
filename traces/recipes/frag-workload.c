// SPDX-License-Identifier: GPL-2.0
/*
 * frag-workload: a small, repeatable fragmenting workload for the fixture recipes.
 * Each round: fault in an anonymous region page by page (no THP), punch holes in it
 * (munmap every other 64 KiB), write a file through the page cache, drop its pages with
 * POSIX_FADV_DONTNEED and read half of it back. The holes stay until the end, so free
 * memory ends up interleaved with pages still in use.
 *
 * Usage: frag-workload FILE ROUNDS ANON_MIB FILE_MIB
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HOLE	(64UL << 10)

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	size_t anon, fsize, off, pg = 4096;
	int rounds, r, fd;
	char *keep[64];

	if (argc != 5) {
		fprintf(stderr, "usage: frag-workload FILE ROUNDS ANON_MIB FILE_MIB\n");
		return 2;
	}
	rounds = atoi(argv[2]);
	anon = strtoul(argv[3], NULL, 0) << 20;
	fsize = strtoul(argv[4], NULL, 0) << 20;
	if (rounds < 1 || rounds > 64)
		return 2;
	memset(buf, 0x5a, sizeof(buf));
	for (r = 0; r < rounds; r++) {
		char *p = mmap(NULL, anon, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		madvise(p, anon, MADV_NOHUGEPAGE);
		for (off = 0; off < anon; off += pg)
			p[off] = (char)off;
		for (off = HOLE; off + HOLE <= anon; off += 2 * HOLE)
			munmap(p + off, HOLE);
		keep[r] = p;

		fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		for (off = 0; off < fsize; off += sizeof(buf))
			if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
				perror("write");
				return 1;
			}
		fdatasync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		for (off = 0; off < fsize / 2; off += sizeof(buf))
			if (pread(fd, buf, sizeof(buf), off) < 0)
				break;
		close(fd);
	}
	for (r = 0; r < rounds; r++)
		for (off = 0; off + HOLE <= anon; off += 2 * HOLE)
			munmap(keep[r] + off, HOLE);
	unlink(argv[1]);
	return 0;
}
