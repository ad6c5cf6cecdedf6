/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets of tests/fuzz/ (built by `make fuzz` with clang,
 * -fsanitize=fuzzer,address,undefined). Each target is one fuzz-NAME.c defining
 * LLVMFuzzerTestOneInput(); a target must never print or exit on bad input, only a
 * sanitizer report or an abort() on a broken invariant counts as a finding.
 */
#ifndef BC_FUZZ_H
#define BC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* @data as a NUL-terminated string (malloc'ed, caller frees), NULL when out of memory;
 * an exact-size allocation so that ASan catches a read past the end. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = 0;
	}
	return s;
}

/*
 * Make an empty temporary file "bc-fuzz-NAME-XXXXXX" in /dev/shm (else /tmp) into
 * @path (FUZZ_PATH_SIZE bytes); it and "PATH.db" are removed at exit. One per target.
 * Aborts when it cannot (a target without its file would test nothing).
 */
#define FUZZ_PATH_SIZE	96
static const char *fuzz_tmp_path;

static inline void fuzz_tmp_rm(void)
{
	char db[FUZZ_PATH_SIZE + 4];

	snprintf(db, sizeof(db), "%s.db", fuzz_tmp_path);
	unlink(fuzz_tmp_path);
	unlink(db);
}

static inline void fuzz_tmpfile(char *path, const char *name)
{
	int fd;

	snprintf(path, FUZZ_PATH_SIZE, "%s/bc-fuzz-%s-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", name);
	fd = mkstemp(path);
	if (fd < 0 || fuzz_tmp_path)
		abort();
	close(fd);
	fuzz_tmp_path = path;
	atexit(fuzz_tmp_rm);
}

/* Write @size bytes of @data to @path (replaced); aborts when it cannot. */
static inline void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
}

/* A broken invariant of the code under test: abort so that libFuzzer keeps the input. */
#define FUZZ_ASSERT(cond)	do { if (!(cond)) abort(); } while (0)

#endif
