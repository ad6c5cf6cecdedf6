// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the trace.dat validator (capture/dat-check.c) on damaged trace-cmd
 * files. Seeds: the head of the bundled .dat files.
 *
 * Only the validator runs here: a file it passes goes to libtracecmd, which can still
 * crash on some of them; `bigchunk import` contains that in a child process, so an
 * in-process import would only find libtracecmd's own bugs. Oracle: what the validator
 * accepts has its CPU data inside the file.
 */
#include "capture/dat-check.h"
#include "tests/fuzz/fuzz.h"

static char dat[FUZZ_PATH_SIZE];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_tmpfile(dat, "dat");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dat_layout l;
	int b, c;

	fuzz_write(dat, data, size);
	if (dat_check(dat, &l))
		return 0;
	for (b = 0; b < l.nbuffers; b++)
		for (c = 0; c < l.buffers[b].ncpus; c++) {
			const struct dat_cpu *cpu = &l.buffers[b].cpus[c];

			FUZZ_ASSERT(cpu->offset <= size && cpu->size <= size - cpu->offset);
		}
	dat_layout_free(&l);
	return 0;
}
