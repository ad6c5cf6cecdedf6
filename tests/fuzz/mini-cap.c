// SPDX-License-Identifier: GPL-2.0
/* The small capture of the fuzz targets (mini-cap.h), written through the library. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/snapshot.h"
#include "common/err.h"
#include "db/tdb.h"
#include "tests/fuzz/mini-cap.h"

#define ZSTART		0x1000u
#define ZEND		0x2000u
#define KPF_BUDDY	(1ull << 10)
#define KPF_NOPAGE	(1ull << 20)
#define GFP_MOVABLE	0x100cca

enum { T_ALLOC, T_FREE, T_ZL, T_DRAIN, T_MSTART, T_MEND, T_TEST, T_ISOMIG, NR_T };

/* "SYSTEM NAME FIELD..." of each event type, in storage order. */
static const char *const types[NR_T] = {
	[T_ALLOC] = "kmem mm_page_alloc pfn order gfp_flags migratetype",
	[T_FREE] = "kmem mm_page_free pfn order",
	[T_ZL] = "kmem mm_page_alloc_zone_locked pfn order migratetype percpu_refill",
	[T_DRAIN] = "kmem mm_page_pcpu_drain pfn order migratetype",
	[T_MSTART] = "migrate mm_migrate_pages_start mode reason",
	[T_MEND] = "migrate mm_migrate_pages succeeded failed thp_succeeded thp_failed "
		   "thp_split large_folio_split mode reason",
	[T_TEST] = "page_isolation test_pages_isolated start_pfn end_pfn fin_pfn",
	[T_ISOMIG] = "compaction mm_compaction_isolate_migratepages start_pfn end_pfn "
		     "nr_scanned nr_taken",
};

/* The events: type, cpu, then up to 8 fields. */
static const struct { int t, cpu; int64_t f[8]; } events[] = {
	{ T_ZL, 0, { ZSTART, 0, 1, 1 } }, { T_ALLOC, 0, { ZSTART, 0, GFP_MOVABLE, 1 } },
	{ T_FREE, 0, { ZSTART, 0 } }, { T_DRAIN, 0, { ZSTART, 0, 1 } },
	{ T_ZL, 1, { ZSTART + 0x400, 2, 1, 1 } }, { T_ALLOC, 1, { ZSTART + 0x400, 2, GFP_MOVABLE, 1 } },
	{ T_ZL, 0, { ZSTART + 0x200, 9, 0, 0 } }, { T_ALLOC, 0, { ZSTART + 0x200, 9, 0xcc0, 0 } },
	{ T_ISOMIG, 1, { 0x1800, 0x1a00, 512, 0 } }, { T_ISOMIG, 1, { 0x1a00, 0x1c00, 512, 0 } },
	{ T_MSTART, 1, { 2, 6 } }, { T_MEND, 1, { 0, 0, 0, 0, 0, 0, 2, 6 } },
	{ T_TEST, 1, { 0x1800, 0x1c00, 0x1c00 } },
	{ T_FREE, 1, { ZSTART + 0x400, 2 } }, { T_FREE, 0, { ZSTART + 0x200, 9 } },
	{ T_ZL, 0, { 0x1c00, 3, 1, 0 } }, { T_ALLOC, 0, { 0x1c00, 3, GFP_MOVABLE, 1 } },
};

static const char zoneinfo[] =
	"Node 0, zone   Normal\n  pages free     4096\n        min      32\n"
	"        low      40\n        high     48\n        spanned  4096\n"
	"        present  4096\n        managed  4096\n  pagesets\n    cpu: 0\n"
	"              count:    0\n              high:     100\n              batch:    63\n"
	"  start_pfn:           4096\n";
static const char buddyinfo[] =
	"Node 0, zone   Normal      0      0      0      0      0      0      0      0      0"
	"      0      4 \n";
static const char pagetypeinfo[] =
	"Page block order: 9\nPages per block:  512\n\n"
	"Free pages count per migrate type at order       0      1      2      3      4      5"
	"      6      7      8      9     10 \n"
	"Node    0, zone   Normal, type      Movable      0      0      0      0      0      0"
	"      0      0      0      0      4 \n\n"
	"Number of blocks type     Unmovable      Movable  Reclaimable \n"
	"Node 0, zone   Normal            0            8            0 \n";
static const char iomem[] = "01000000-01ffffff : System RAM\n";

static int add_snapshot(struct tdb *db, const char *label, uint64_t mono)
{
	static const struct { const char *name, *text; } files[] = {
		{ "zoneinfo", zoneinfo }, { "buddyinfo", buddyinfo },
		{ "pagetypeinfo", pagetypeinfo }, { "iomem", iomem }, { "uname", "6.18.44\n" },
	};
	static uint64_t flags[ZEND];
	struct snap_tables t = { 0 };
	struct tdb_snapwrite *w;
	unsigned int i;
	int ret;

	for (i = 0; i < ZEND; i++)
		flags[i] = i < ZSTART ? KPF_NOPAGE : KPF_BUDDY;
	ret = snap_parse_zoneinfo(zoneinfo, &t);
	if (!ret)
		ret = snap_parse_buddyinfo(buddyinfo, &t);
	if (!ret)
		ret = snap_parse_pagetypeinfo(pagetypeinfo, &t);
	if (!ret)
		ret = snap_parse_iomem(iomem, &t);
	if (!ret)
		ret = tdb_snap_begin(db, label, &w);
	if (ret) {
		snap_tables_release(&t);
		return ret;
	}
	for (i = 0; !ret && i < sizeof(files) / sizeof(files[0]); i++)
		ret = tdb_snap_add_file(w, files[i].name, files[i].text, strlen(files[i].text));
	if (!ret)
		ret = tdb_snap_add_pages(w, 0, ZEND, flags, NULL);
	if (!ret)
		ret = tdb_snap_add_tables(w, &t);
	if (!ret)
		ret = tdb_snap_commit(w, mono, mono + 1000, ZEND);
	if (ret)
		tdb_snap_abort(w);
	snap_tables_release(&t);
	return ret;
}

/* Register types[@t]; returns its id or a negative bc_err. */
static int add_type(struct tdb *db, int t)
{
	static const int sizes[TDB_MAX_FIELDS] = { 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8 };
	static const bool sgn[TDB_MAX_FIELDS];
	const char *w[2 + TDB_MAX_FIELDS];
	char buf[256], *save, *p;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", types[t]);
	for (p = strtok_r(buf, " ", &save); p && n < 2 + TDB_MAX_FIELDS;
	     p = strtok_r(NULL, " ", &save))
		w[n++] = p;
	return tdb_add_event_type(db, w[0], w[1], false, NULL, n - 2, w + 2, sizes, sgn);
}

static int add_types_and_meta(struct tdb *db, int *id)
{
	int t, ret;

	for (t = 0; t < NR_T; t++) {
		id[t] = add_type(db, t);
		if (id[t] < 0)
			return id[t];
	}
	ret = tdb_set_meta(db, "kernel_release", "6.18.44");
	if (!ret)
		ret = tdb_set_meta(db, "clock", "mono");
	if (!ret)
		ret = tdb_set_meta_int(db, "cpus", 2);
	return ret;
}

static int add_events(struct tdb *db, const int *id, uint64_t ts)
{
	size_t i;
	int ret = tdb_add_marker(db, ts, 0, 1, "fuzz start");

	for (i = 0; !ret && i < sizeof(events) / sizeof(events[0]); i++) {
		struct bc_event e = { .ts = ts + 1000 * (i + 1), .pid = 100 + events[i].cpu };

		e.cpu = (uint16_t)events[i].cpu;
		e.type = (uint16_t)id[events[i].t];
		e.nfields = 8;	/* the writer stores as many as the type has */
		memcpy(e.field, events[i].f, sizeof(events[i].f));
		ret = tdb_append_event(db, &e);
	}
	if (!ret)
		ret = tdb_add_marker(db, ts + 500 * (i + 1), 1, 1, "fuzz middle");
	return ret;
}

/* 512-byte pages and no free pages: the smallest file SQLite can make of it. */
static int shrink(const char *path)
{
	sqlite3 *sq;
	int ret;

	if (sqlite3_open(path, &sq) != SQLITE_OK) {
		sqlite3_close(sq);
		return bc_error(BC_E_DB, "%s: cannot reopen", path);
	}
	ret = sqlite3_exec(sq, "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;",
			   NULL, NULL, NULL);
	sqlite3_close(sq);
	return ret == SQLITE_OK ? 0 : bc_error(BC_E_DB, "%s: cannot vacuum", path);
}

int fuzz_mini_capture(const char *path)
{
	const uint64_t mono = 1000000000ull;
	int id[NR_T], ret;
	struct tdb *db;

	ret = tdb_create(path, true, &db);
	if (ret)
		return ret;
	ret = add_types_and_meta(db, id);
	if (!ret)
		ret = add_snapshot(db, "begin", mono);
	if (!ret)
		ret = add_events(db, id, mono + 2000);
	if (!ret)
		ret = tdb_flush(db);
	if (!ret)
		ret = add_snapshot(db, "end", mono + 1000000);
	if (!ret)
		ret = snap_align(db, NULL);
	if (!ret)
		ret = tdb_finish(db);
	if (tdb_close(db) && !ret)
		ret = -BC_E_DB;
	return ret ? ret : shrink(path);
}
