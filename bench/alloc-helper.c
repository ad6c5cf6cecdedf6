// SPDX-License-Identifier: GPL-2.0
/*
 * alloc-helper: a known anonymous-memory workload for 'bigchunk record' tests and
 * benchmarks. Maps CHUNK MiB of private anonymous memory (no THP), touches every
 * 4 KiB page once (one order-0 mm_page_alloc each), unmaps it (the frees), and repeats
 * until TOTAL MiB were touched.
 *
 *   alloc-helper TOTAL_MIB [CHUNK_MIB]      (default chunk 64 MiB)
 *
 * Prints "pid PID pages N" on stdout when done.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long total, chunk, done = 0, pages = 0, off;
	long psz = sysconf(_SC_PAGESIZE);

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s TOTAL_MIB [CHUNK_MIB]\n", argv[0]);
		return 2;
	}
	total = strtoul(argv[1], NULL, 0) << 20;
	chunk = (argc > 2 ? strtoul(argv[2], NULL, 0) : 64) << 20;
	if (!total || !chunk)
		return 2;
	while (done < total) {
		unsigned long len = total - done < chunk ? total - done : chunk;
		volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		madvise((void *)p, len, MADV_NOHUGEPAGE);
		for (off = 0; off < len; off += (unsigned long)psz) {
			p[off] = 1;
			pages++;
		}
		munmap((void *)p, len);
		done += len;
	}
	printf("pid %d pages %lu\n", (int)getpid(), pages);
	return 0;
}
