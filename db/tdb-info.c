// SPDX-License-Identifier: GPL-2.0
/*
 * tdb-info: read-only summaries of a capture (see tdb-info.h), built on the readers of
 * tdb-snap.h and tdb-trace.h; only the page-run size has a query of its own.
 */
#include <stdlib.h>

#include "common/err.h"
#include "db/tdb-info.h"
#include "db/tdb-local.h"
#include "db/tdb-snap.h"
#include "db/tdb-trace.h"

static int cmp_lost_cpu(const void *a, const void *b)
{
	const struct tdb_lost *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

int tdb_info_counts(struct tdb *db, int64_t *nr_markers, int64_t *nr_lost)
{
	struct tdb_marker *m = NULL;
	struct tdb_lost *l = NULL;
	int nm = 0, nl = 0, i, ret;

	*nr_markers = *nr_lost = 0;
	ret = tdb_markers(db, 0, UINT64_MAX, NULL, &m, &nm);
	tdb_markers_free(m, nm);
	if (!ret)
		ret = tdb_lost_list(db, &l, &nl);
	if (ret)
		return ret;
	*nr_markers = nm;
	for (i = 0; i < nl; i++)
		*nr_lost += l[i].count > 0 ? l[i].count : 0;
	free(l);
	return 0;
}

int tdb_info_lost_by_cpu(struct tdb *db, int (*fn)(void *arg, const struct tdb_lost_cpu *l),
			 void *arg)
{
	struct tdb_lost *v = NULL;
	int nr = 0, i, j, ret;

	ret = tdb_lost_list(db, &v, &nr);
	if (!ret && nr)
		qsort(v, nr, sizeof(*v), cmp_lost_cpu);
	for (i = 0; !ret && i < nr; i = j) {
		struct tdb_lost_cpu c = { .cpu = v[i].cpu };

		for (j = i; j < nr && v[j].cpu == c.cpu; j++) {
			c.gaps++;
			c.lost += v[j].count > 0 ? v[j].count : 0;
			c.unknown_gaps += v[j].count < 0;	/* the ring buffer did not say */
		}
		ret = fn(arg, &c);
	}
	free(v);
	return ret;
}

static int cmp_zone(const void *a, const void *b)
{
	const struct tdb_zone *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->start_pfn > y->start_pfn) - (x->start_pfn < y->start_pfn);
}

int tdb_info_zones(struct tdb *db, int (*fn)(void *arg, const struct tdb_zone_info *z),
		   void *arg)
{
	struct tdb_zone *v = NULL;
	int64_t snap;
	int nr = 0, i, ret;

	ret = tdb_snap_first_zoned(db, &snap);
	if (ret || snap < 0)
		return ret;
	ret = tdb_snap_zones(db, snap, &v, &nr);
	if (!ret && nr)
		qsort(v, nr, sizeof(*v), cmp_zone);
	for (i = 0; !ret && i < nr; i++) {
		struct tdb_zone_info z = {
			.node = v[i].node, .zone = v[i].name,
			.start_pfn = (int64_t)v[i].start_pfn, .spanned = (int64_t)v[i].spanned,
			.present = (int64_t)v[i].present, .managed = (int64_t)v[i].managed,
			.free = v[i].free,
		};

		ret = fn(arg, &z);
	}
	free(v);
	return ret;
}

int tdb_info_snapshots(struct tdb *db, int (*fn)(void *arg, const struct tdb_snapshot_info *s),
		       void *arg)
{
	struct tdb_snap_info *v = NULL;
	int nr = 0, i, ret;

	ret = tdb_snap_list(db, &v, &nr);
	for (i = 0; !ret && i < nr; i++) {
		struct tdb_snapshot_info s = {
			.id = v[i].id, .label = v[i].label[0] ? v[i].label : NULL,
			.aligned = v[i].ts_begin >= 0,	/* NULL until aligned */
			.ts_begin = v[i].ts_begin, .ts_end = v[i].ts_end,
			.nr_pfns = (int64_t)v[i].nr_pfns, .complete = v[i].complete,
		};

		ret = fn(arg, &s);
	}
	free(v);
	return ret;
}

int tdb_info_markers(struct tdb *db, int limit,
		     int (*fn)(void *arg, const struct tdb_marker_info *m), void *arg)
{
	struct tdb_marker *v = NULL;
	int nr = 0, i, ret;

	ret = tdb_markers_by_ts(db, NULL, &v, &nr);
	for (i = 0; !ret && i < nr && i < limit; i++) {
		struct tdb_marker_info m = {
			.ts = (int64_t)v[i].ts, .cpu = v[i].cpu, .text = v[i].text,
		};

		ret = fn(arg, &m);
	}
	tdb_markers_free(v, nr);
	return ret;
}

int tdb_info_snapshot_size(struct tdb *db, int64_t snap, int64_t *nr_pfns, int64_t *bytes)
{
	sqlite3_stmt *st;
	int rc, ret;

	*nr_pfns = *bytes = 0;
	if (sqlite3_prepare_v2(db->sq, "SELECT s.nr_pfns, (SELECT total(length(data)) FROM "
			       "snapshot_pages WHERE snap = s.id) FROM snapshots s WHERE s.id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, "info");
	sqlite3_bind_int64(st, 1, snap);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*nr_pfns = sqlite3_column_int64(st, 0);
		*bytes = sqlite3_column_int64(st, 1);
	}
	ret = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : tdb_sql_error(db, "info");
	sqlite3_finalize(st);
	return ret;
}
