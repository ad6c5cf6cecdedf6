// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the parsers of a snapshot directory's text files (capture/snap-parse.c)
 * and of the snapshot marker lines. Every input is handed to every parser, so the seed
 * corpus is simply the files of the bundled snapshot directories.
 */
#include <stdbool.h>

#include "capture/snap-local.h"
#include "capture/snapshot.h"
#include "db/tdb-snap.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int (*const parse[])(const char *, struct snap_tables *) = {
		snap_parse_zoneinfo, snap_parse_buddyinfo, snap_parse_pagetypeinfo,
		snap_parse_meminfo, snap_parse_vmstat, snap_parse_iomem,
	};
	char label[SNAP_LABEL_MAX], *s = fuzz_str(data, size);
	uint64_t a, b;
	size_t i;
	bool end;

	if (!s)
		return 0;
	for (i = 0; i < sizeof(parse) / sizeof(parse[0]); i++) {
		struct snap_tables t = { 0 };

		parse[i](s, &t);
		snap_tables_release(&t);
	}
	snap_parse_taken_at(s, &a, &b);
	snap_marker_parse(s, label, &end, &a);
	tdb_snap_marker_pages(s, &a);
	free(s);
	return 0;
}
