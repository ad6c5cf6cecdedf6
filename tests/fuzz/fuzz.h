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
#include <stdlib.h>
#include <string.h>

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

/* A broken invariant of the code under test: abort so that libFuzzer keeps the input. */
#define FUZZ_ASSERT(cond)	do { if (!(cond)) abort(); } while (0)

#endif
