// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk info: what a capture holds — kernel, machine, zones, time span, events per
 * type, lost events, snapshots, markers, and whether the writer finished.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/err.h"
#include "common/json.h"
#include "db/tdb.h"

const char cmd_info_usage[] =
	"usage: bigchunk info FILE.db [--json]\n"
	"\n"
	"Summarise a capture: kernel release and machine, zones (from the first snapshot),\n"
	"the time span, events per type (and types the kernel lacked), lost ring-buffer\n"
	"events per CPU, snapshots, markers, and whether the capture is complete.\n"
	"\n"
	"Options:\n"
	"  --json      machine-readable output\n"
	"  -h, --help\n"
	"\n"
	"Exit status: 0 on success, 2 on an unusable file.\n";

static const char *const meta_keys[] = {
	"source", "kernel_release", "clock", "cpus", "page_size", "pageblock_order",
	"max_page_order", "command", "trace_file", "complete", NULL
};

struct type_count {
	uint64_t n;
	uint64_t ts_min, ts_max;
};

static int count_events(struct tdb *db, struct type_count *cnt, int nr, uint64_t *total,
			uint64_t *ts_min, uint64_t *ts_max)
{
	struct tdb_cursor *cur;
	struct bc_event ev;
	int ret;

	*total = 0;
	*ts_min = UINT64_MAX;
	*ts_max = 0;
	ret = tdb_cursor_open(db, 0, UINT64_MAX, &cur);
	if (ret)
		return ret;
	while ((ret = tdb_cursor_next(cur, &ev)) == 1) {
		if (ev.type < nr)
			cnt[ev.type].n++;
		(*total)++;
		if (ev.ts < *ts_min)
			*ts_min = ev.ts;
		if (ev.ts > *ts_max)
			*ts_max = ev.ts;
	}
	tdb_cursor_close(cur);
	return ret;
}

/* Run @sql and call @row for each result row. */
static int each_row(struct tdb *db, const char *sql, void (*row)(sqlite3_stmt *, void *),
		    void *arg)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(tdb_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return bc_error(BC_E_DB, "%s: %s", tdb_path(db), sqlite3_errmsg(tdb_sqlite(db)));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		row(st, arg);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 :
		bc_error(BC_E_DB, "%s: %s", tdb_path(db), sqlite3_errmsg(tdb_sqlite(db)));
}

#define COL_I(i) ((long long)sqlite3_column_int64(st, i))
#define COL_S(i) ((const char *)sqlite3_column_text(st, i))

struct out {
	struct json *j;		/* NULL: text */
};

static void zone_row(sqlite3_stmt *st, void *arg)
{
	struct out *o = arg;

	if (!o->j) {
		printf("  node %lld %-8s pfn %#llx-%#llx  spanned %lld present %lld managed %lld "
		       "free %lld\n", COL_I(0), COL_S(1), COL_I(2), COL_I(2) + COL_I(3), COL_I(3),
		       COL_I(4), COL_I(5), COL_I(6));
		return;
	}
	json_obj_begin(o->j);
	json_kint(o->j, "node", COL_I(0));
	json_kstr(o->j, "zone", COL_S(1));
	json_kint(o->j, "start_pfn", COL_I(2));
	json_kint(o->j, "spanned", COL_I(3));
	json_kint(o->j, "present", COL_I(4));
	json_kint(o->j, "managed", COL_I(5));
	json_kint(o->j, "free", COL_I(6));
	json_obj_end(o->j);
}

static void lost_row(sqlite3_stmt *st, void *arg)
{
	struct out *o = arg;

	if (!o->j) {
		printf("  cpu %lld: %lld gaps, %lld events lost%s\n", COL_I(0), COL_I(1), COL_I(2),
		       COL_I(3) ? " (plus gaps of unknown size)" : "");
		return;
	}
	json_obj_begin(o->j);
	json_kint(o->j, "cpu", COL_I(0));
	json_kint(o->j, "gaps", COL_I(1));
	json_kint(o->j, "lost", COL_I(2));
	json_kint(o->j, "unknown_gaps", COL_I(3));
	json_obj_end(o->j);
}

static void snap_row(sqlite3_stmt *st, void *arg)
{
	struct out *o = arg;

	if (!o->j) {
		printf("  #%lld %-9s ", COL_I(0), COL_S(1) ? COL_S(1) : "-");
		if (sqlite3_column_type(st, 2) == SQLITE_NULL)
			printf("not aligned to the trace");
		else
			printf("ts %lld..%lld (%.1f ms)", COL_I(2), COL_I(3),
			       (COL_I(3) - COL_I(2)) / 1e6);
		printf("  %lld pfns%s\n", COL_I(4), COL_I(5) ? "" : "  INCOMPLETE");
		return;
	}
	json_obj_begin(o->j);
	json_kint(o->j, "id", COL_I(0));
	json_kstr(o->j, "label", COL_S(1));
	json_key(o->j, "ts_begin");
	if (sqlite3_column_type(st, 2) == SQLITE_NULL)
		json_null(o->j);
	else
		json_int(o->j, COL_I(2));
	json_key(o->j, "ts_end");
	if (sqlite3_column_type(st, 3) == SQLITE_NULL)
		json_null(o->j);
	else
		json_int(o->j, COL_I(3));
	json_kint(o->j, "nr_pfns", COL_I(4));
	json_kbool(o->j, "complete", COL_I(5));
	json_obj_end(o->j);
}

static void marker_row(sqlite3_stmt *st, void *arg)
{
	struct out *o = arg;

	if (!o->j) {
		printf("  ts %lld cpu %lld  %s\n", COL_I(0), COL_I(1), COL_S(2));
		return;
	}
	json_obj_begin(o->j);
	json_kint(o->j, "ts", COL_I(0));
	json_kint(o->j, "cpu", COL_I(1));
	json_kstr(o->j, "text", COL_S(2));
	json_obj_end(o->j);
}

static void scalar_row(sqlite3_stmt *st, void *arg)
{
	*(long long *)arg = COL_I(0);
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t total, ts_min, ts_max;
	struct tdb_event_type **types;
	struct type_count *cnt;
	long long nmarkers = 0, nlost = 0;
	bool as_json = false;
	struct json j;
	struct out o = { NULL };
	struct tdb *db;
	int c, nr, i, ret;
	const char *path = NULL;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': as_json = true; break;
		case 'h': return cli_usage("info", 0, EXIT_OK);
		default: return cli_usage("info", 1, EXIT_BAD);
		}
	}
	if (optind + 1 != argc)
		return cli_usage("info", 1, EXIT_BAD);
	path = argv[optind];
	if (tdb_open(path, TDB_READONLY, &db))
		return cli_fail("info");
	tdb_event_types(db, &types, &nr);
	cnt = calloc(nr + 1, sizeof(*cnt));
	if (!cnt)
		die("out of memory");
	ret = count_events(db, cnt, nr, &total, &ts_min, &ts_max);
	if (ret) {
		free(cnt);
		tdb_close(db);
		return cli_fail("info");
	}
	each_row(db, "SELECT count(*) FROM markers", scalar_row, &nmarkers);
	each_row(db, "SELECT coalesce(sum(CASE WHEN count > 0 THEN count ELSE 0 END), 0) "
		 "FROM lost_events", scalar_row, &nlost);

	if (as_json) {
		json_init(&j, stdout, true);
		o.j = &j;
		json_obj_begin(&j);
		json_kstr(&j, "file", path);
		json_key(&j, "meta");
		json_obj_begin(&j);
		for (i = 0; meta_keys[i]; i++) {
			char *v = tdb_get_meta(db, meta_keys[i]);

			if (v)
				json_kstr(&j, meta_keys[i], v);
			free(v);
		}
		json_obj_end(&j);
		json_kbool(&j, "complete", tdb_get_meta_int(db, "complete", 0) == 1);
		json_kuint(&j, "events", total);
		json_kuint(&j, "ts_first", total ? ts_min : 0);
		json_kuint(&j, "ts_last", ts_max);
		json_kdouble(&j, "duration_s", total ? (ts_max - ts_min) / 1e9 : 0);
		json_key(&j, "event_types");
		json_arr_begin(&j);
		for (i = 0; i < nr; i++) {
			char name[256];

			if (!types[i])
				continue;
			snprintf(name, sizeof(name), "%s:%s", types[i]->system, types[i]->name);
			json_obj_begin(&j);
			json_kstr(&j, "name", name);
			json_kbool(&j, "missing", types[i]->missing);
			json_kuint(&j, "count", cnt[i].n);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_kint(&j, "lost_events", nlost);
		json_key(&j, "lost_by_cpu");
		json_arr_begin(&j);
	} else {
		char *v;

		printf("capture:   %s (%s)\n", path,
		       tdb_get_meta_int(db, "complete", 0) == 1 ? "complete" :
		       "INCOMPLETE: the writer did not finish");
		for (i = 0; meta_keys[i]; i++) {
			if (!strcmp(meta_keys[i], "complete"))
				continue;
			v = tdb_get_meta(db, meta_keys[i]);
			if (v)
				printf("%-10s %s\n", meta_keys[i], v);
			free(v);
		}
		printf("events:    %llu over %.3f s\n", (unsigned long long)total,
		       total ? (ts_max - ts_min) / 1e9 : 0.0);
		for (i = 0; i < nr; i++) {
			if (!types[i])
				continue;
			if (types[i]->missing)
				printf("  %-40s missing on this kernel\n", types[i]->name);
			else if (cnt[i].n)
				printf("  %-40s %llu\n", types[i]->name, (unsigned long long)cnt[i].n);
		}
		printf("lost:      %lld events%s\n", nlost, nlost ? ", by cpu:" : "");
	}
	ret = each_row(db, "SELECT cpu, count(*), sum(CASE WHEN count > 0 THEN count ELSE 0 END), "
		       "sum(count < 0) FROM lost_events GROUP BY cpu ORDER BY cpu", lost_row, &o);
	if (as_json) {
		json_arr_end(&j);
		json_key(&j, "zones");
		json_arr_begin(&j);
	} else {
		printf("zones:\n");
	}
	if (!ret)
		ret = each_row(db, "SELECT node, zone, start_pfn, spanned, present, managed, free "
			       "FROM zones WHERE snap = (SELECT min(snap) FROM zones) "
			       "ORDER BY node, start_pfn", zone_row, &o);
	if (as_json) {
		json_arr_end(&j);
		json_key(&j, "snapshots");
		json_arr_begin(&j);
	} else {
		printf("snapshots:\n");
	}
	if (!ret)
		ret = each_row(db, "SELECT id, label, ts_begin, ts_end, nr_pfns, complete "
			       "FROM snapshots ORDER BY id", snap_row, &o);
	if (as_json) {
		json_arr_end(&j);
		json_kint(&j, "nr_markers", nmarkers);
		json_key(&j, "markers");
		json_arr_begin(&j);
	} else {
		printf("markers:   %lld%s\n", nmarkers, nmarkers > 20 ? " (first 20)" : "");
	}
	if (!ret)
		ret = each_row(db, "SELECT ts, cpu, text FROM markers ORDER BY ts LIMIT 20",
			       marker_row, &o);
	if (as_json) {
		json_arr_end(&j);
		json_obj_end(&j);
		json_end(&j);
	}
	free(cnt);
	tdb_close(db);
	return ret ? cli_fail("info") : EXIT_OK;
}
