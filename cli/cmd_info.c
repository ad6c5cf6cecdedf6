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
#include "db/tdb-info.h"
#include "db/tdb-trace.h"

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

struct out {
	struct json *j;		/* NULL: text */
};

/* JSON members @keys[i]: @v[i] for i < @n. */
static void json_kints(struct json *j, const char *const *keys, const int64_t *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		json_kint(j, keys[i], v[i]);
}

static int zone_row(void *arg, const struct tdb_zone_info *z)
{
	struct out *o = arg;

	if (!o->j) {
		printf("  node %d %-8s pfn %#llx-%#llx  spanned %lld present %lld managed %lld "
		       "free %lld\n", z->node, z->zone, (unsigned long long)z->start_pfn,
		       (unsigned long long)z->start_pfn + (unsigned long long)z->spanned,
		       (long long)z->spanned, (long long)z->present, (long long)z->managed,
		       (long long)z->free);
		return 0;
	}
	json_obj_begin(o->j);
	json_kint(o->j, "node", z->node);
	json_kstr(o->j, "zone", z->zone);
	json_kints(o->j, (const char *const[]){ "start_pfn", "spanned", "present", "managed",
		   "free" }, (const int64_t[]){ z->start_pfn, z->spanned, z->present, z->managed,
		   z->free }, 5);
	json_obj_end(o->j);
	return 0;
}

static int lost_row(void *arg, const struct tdb_lost_cpu *l)
{
	struct out *o = arg;

	if (!o->j) {
		printf("  cpu %d: %lld gaps, %lld events lost%s\n", l->cpu, (long long)l->gaps,
		       (long long)l->lost, l->unknown_gaps ? " (plus gaps of unknown size)" : "");
		return 0;
	}
	json_obj_begin(o->j);
	json_kints(o->j, (const char *const[]){ "cpu", "gaps", "lost", "unknown_gaps" },
		   (const int64_t[]){ l->cpu, l->gaps, l->lost, l->unknown_gaps }, 4);
	json_obj_end(o->j);
	return 0;
}

static int snap_row(void *arg, const struct tdb_snapshot_info *s)
{
	struct out *o = arg;

	if (!o->j) {
		printf("  #%lld %-9s ", (long long)s->id, s->label ? s->label : "-");
		if (!s->aligned)
			printf("not aligned to the trace");
		else
			printf("ts %lld..%lld (%.1f ms)", (long long)s->ts_begin,
			       (long long)s->ts_end, ((double)s->ts_end - (double)s->ts_begin) / 1e6);
		printf("  %lld pfns%s\n", (long long)s->nr_pfns, s->complete ? "" : "  INCOMPLETE");
		return 0;
	}
	json_obj_begin(o->j);
	json_kint(o->j, "id", s->id);
	json_kstr(o->j, "label", s->label);
	json_key(o->j, "ts_begin");
	if (!s->aligned)
		json_null(o->j);
	else
		json_int(o->j, s->ts_begin);
	json_key(o->j, "ts_end");
	if (!s->aligned)
		json_null(o->j);
	else
		json_int(o->j, s->ts_end);
	json_kint(o->j, "nr_pfns", s->nr_pfns);
	json_kbool(o->j, "complete", s->complete);
	json_obj_end(o->j);
	return 0;
}

static int marker_row(void *arg, const struct tdb_marker_info *m)
{
	struct out *o = arg;

	if (!o->j) {
		printf("  ts %lld cpu %d  %s\n", (long long)m->ts, m->cpu, m->text);
		return 0;
	}
	json_obj_begin(o->j);
	json_kint(o->j, "ts", m->ts);
	json_kint(o->j, "cpu", m->cpu);
	json_kstr(o->j, "text", m->text);
	json_obj_end(o->j);
	return 0;
}

/* What info reports, gathered before printing. */
struct info {
	const char *path;
	struct tdb *db;
	struct tdb_event_type **types;
	int nr;
	struct type_count *cnt;
	uint64_t total, ts_min, ts_max;
	int64_t nmarkers, nlost;
	int64_t nunknown;		/* lost windows of unknown size (damage, "some" lost) */
};

/* Lost windows whose size nobody knows: they must not read as "0 lost". */
static int count_unknown(struct tdb *db, int64_t *n)
{
	struct tdb_lost *l;
	int i, nr, ret;

	*n = 0;
	ret = tdb_lost_list(db, &l, &nr);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++)
		*n += l[i].count <= 0;
	free(l);
	return 0;
}

static void head_json(const struct info *I, struct json *j)
{
	int i;

	json_kstr(j, "file", I->path);
	json_key(j, "meta");
	json_obj_begin(j);
	for (i = 0; meta_keys[i]; i++) {
		char *v = tdb_get_meta(I->db, meta_keys[i]);

		if (v)
			json_kstr(j, meta_keys[i], v);
		free(v);
	}
	json_obj_end(j);
	json_kbool(j, "complete", tdb_get_meta_int(I->db, "complete", 0) == 1);
	json_kuint(j, "events", I->total);
	json_kuint(j, "ts_first", I->total ? I->ts_min : 0);
	json_kuint(j, "ts_last", I->ts_max);
	json_kdouble(j, "duration_s", I->total ? (I->ts_max - I->ts_min) / 1e9 : 0);
	json_key(j, "event_types");
	json_arr_begin(j);
	for (i = 0; i < I->nr; i++) {
		char name[256];

		if (!I->types[i])
			continue;
		snprintf(name, sizeof(name), "%s:%s", I->types[i]->system, I->types[i]->name);
		json_obj_begin(j);
		json_kstr(j, "name", name);
		json_kbool(j, "missing", I->types[i]->missing);
		json_kuint(j, "count", I->cnt[i].n);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_kint(j, "lost_events", I->nlost);
	json_kint(j, "lost_windows_unknown_size", I->nunknown);
}

static void head_text(const struct info *I)
{
	char *v;
	int i;

	printf("capture:   %s (%s)\n", I->path,
	       tdb_get_meta_int(I->db, "complete", 0) == 1 ? "complete" :
	       "INCOMPLETE: the writer did not finish");
	for (i = 0; meta_keys[i]; i++) {
		if (!strcmp(meta_keys[i], "complete"))
			continue;
		v = tdb_get_meta(I->db, meta_keys[i]);
		if (v)
			printf("%-10s %s\n", meta_keys[i], v);
		free(v);
	}
	printf("events:    %llu over %.3f s\n", (unsigned long long)I->total,
	       I->total ? (I->ts_max - I->ts_min) / 1e9 : 0.0);
	for (i = 0; i < I->nr; i++) {
		if (!I->types[i])
			continue;
		if (I->types[i]->missing)
			printf("  %-40s missing on this kernel\n", I->types[i]->name);
		else if (I->cnt[i].n)
			printf("  %-40s %llu\n", I->types[i]->name, (unsigned long long)I->cnt[i].n);
	}
	if (I->nunknown)
		printf("lost:      %lld events, plus %lld window(s) of unknown size, by cpu:\n",
		       (long long)I->nlost, (long long)I->nunknown);
	else
		printf("lost:      %lld events%s\n", (long long)I->nlost, I->nlost ? ", by cpu:" : "");
}

/* A list: its JSON key or text heading, then its rows. */
static void section(struct out *o, const char *key, const char *heading)
{
	if (o->j) {
		json_arr_end(o->j);
		json_key(o->j, key);
		json_arr_begin(o->j);
	} else if (heading) {
		printf("%s", heading);
	}
}

static int lists(const struct info *I, struct out *o)
{
	int ret;

	ret = tdb_info_lost_by_cpu(I->db, lost_row, o);
	section(o, "zones", "zones:\n");
	if (!ret)
		ret = tdb_info_zones(I->db, zone_row, o);
	section(o, "snapshots", "snapshots:\n");
	if (!ret)
		ret = tdb_info_snapshots(I->db, snap_row, o);
	if (o->j) {
		json_arr_end(o->j);
		json_kint(o->j, "nr_markers", I->nmarkers);
		json_key(o->j, "markers");
		json_arr_begin(o->j);
	} else {
		printf("markers:   %lld%s\n", (long long)I->nmarkers,
		       I->nmarkers > 20 ? " (first 20)" : "");
	}
	if (!ret)
		ret = tdb_info_markers(I->db, 20, marker_row, o);
	if (o->j) {
		json_arr_end(o->j);
		json_obj_end(o->j);
		json_end(o->j);
	}
	return ret;
}

static int report(struct info *I, bool as_json)
{
	struct out o = { NULL };
	struct json j;
	int ret;

	tdb_event_types(I->db, &I->types, &I->nr);
	I->cnt = calloc(I->nr + 1, sizeof(*I->cnt));
	if (!I->cnt)
		die("out of memory");
	ret = count_events(I->db, I->cnt, I->nr, &I->total, &I->ts_min, &I->ts_max);
	if (!ret)
		ret = tdb_info_counts(I->db, &I->nmarkers, &I->nlost);
	if (!ret)
		ret = count_unknown(I->db, &I->nunknown);
	if (ret)
		return ret;
	if (as_json) {
		json_init(&j, stdout, true);
		o.j = &j;
		json_obj_begin(&j);
		head_json(I, &j);
		json_key(&j, "lost_by_cpu");
		json_arr_begin(&j);
	} else {
		head_text(I);
	}
	return lists(I, &o);
}

int cmd_info(int argc, char **argv)
{
	struct info I = { NULL };
	bool as_json = false;
	int c, ret;

	while ((c = cli_getopt(argc, argv, "h", "json:j help:h")) != -1) {
		switch (c) {
		case 'j': as_json = true; break;
		case 'h': return cli_usage("info", 0, EXIT_OK);
		default: return cli_usage("info", 1, EXIT_BAD);
		}
	}
	if (optind + 1 != argc)
		return cli_usage("info", 1, EXIT_BAD);
	I.path = argv[optind];
	if (tdb_open(I.path, TDB_READONLY, &I.db))
		return cli_fail("info");
	ret = report(&I, as_json);
	free(I.cnt);
	tdb_close(I.db);
	return ret ? cli_fail("info") : EXIT_OK;
}
