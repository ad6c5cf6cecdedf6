// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the parsers of command-line sizes, counts, durations and times
 * (common/parse.c, trace/tr-time.c); times are resolved in the small capture of
 * mini-cap.h, made once at start.
 *
 * Oracles: a parsed size or duration printed in plain digits parses to the same value;
 * a resolved time lies inside the capture.
 */
#include <inttypes.h>
#include <stdio.h>

#include "common/parse.h"
#include "db/tdb.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/mini-cap.h"
#include "trace/tr-time.h"

static struct tdb *db;
static int64_t nr_events;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char path[FUZZ_PATH_SIZE];

	fuzz_tmpfile(path, "time");
	if (fuzz_mini_capture(path) || tdb_open(path, TDB_READONLY, &db))
		abort();
	nr_events = tdb_event_count(db);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), again[32];
	uint64_t v, w, seq, ts;

	if (!s)
		return 0;
	if (!bc_parse_size(s, &v)) {
		snprintf(again, sizeof(again), "%" PRIu64, v);
		FUZZ_ASSERT(!bc_parse_size(again, &w) && w == v);
	}
	if (!bc_parse_count(s, 1, 1000000, &v))
		FUZZ_ASSERT(v >= 1 && v <= 1000000);
	if (!tr_parse_duration(s, &v)) {
		snprintf(again, sizeof(again), "%" PRIu64 "ns", v);
		FUZZ_ASSERT(!tr_parse_duration(again, &w) && w == v);
	}
	if (!tr_parse_time(db, s, &seq, &ts))
		FUZZ_ASSERT(seq <= (uint64_t)nr_events);
	free(s);
	return 0;
}
