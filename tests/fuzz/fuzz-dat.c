// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a damaged trace-cmd trace.dat, through the import path (cap_import_dat()
 * into a capture in memory). Seeds: the head of the bundled .dat files.
 *
 * Not in `make fuzz`'s default targets: libtracecmd 3.1.6 itself crashes on many damaged
 * files (issue 9), so this target stops at its first libtracecmd crash until the
 * trace.dat validator runs before the library. When capture/dat-check.h exists, the
 * validator is called first and a file it refuses never reaches libtracecmd; hook the
 * call in at FUZZ_DAT_CHECK below. Run it alone with `make fuzz FUZZ_TARGETS=dat`.
 */
#include "capture/capture.h"
#include "db/tdb.h"
#include "tests/fuzz/fuzz.h"

#if defined(__has_include)
#if __has_include("capture/dat-check.h")
#include "capture/dat-check.h"
#define FUZZ_DAT_CHECK	1
#endif
#endif

static char dat[FUZZ_PATH_SIZE], out[FUZZ_PATH_SIZE + 4];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_tmpfile(dat, "dat");
	snprintf(out, sizeof(out), "%s.db", dat);	/* removed at exit with it */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdb *db;

	fuzz_write(dat, data, size);
#ifdef FUZZ_DAT_CHECK
	/* The validator's entry point goes here (dat_check() of capture/dat-check.h):
	 * return 0 when it refuses the file. */
#endif
	if (tdb_create(out, true, &db))
		return 0;
	cap_import_dat(db, dat, NULL, NULL, NULL, NULL);
	tdb_close(db);
	return 0;
}
