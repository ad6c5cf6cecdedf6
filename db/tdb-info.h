/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdb-info: the summaries 'bigchunk info' and 'bigchunk snapshot' print about a capture,
 * read from its tables. Each lister calls @fn once per row in order; the strings of a
 * row are borrowed for the call only. A non-zero return of @fn stops the listing and
 * is returned.
 */
#ifndef BC_TDB_INFO_H
#define BC_TDB_INFO_H

#include <stdbool.h>
#include <stdint.h>

struct tdb;

/* Markers stored, and events lost over all CPUs (windows of unknown size count 0). */
int tdb_info_counts(struct tdb *db, int64_t *nr_markers, int64_t *nr_lost);

struct tdb_lost_cpu {
	int cpu;
	int64_t gaps, lost;
	int64_t unknown_gaps;		/* gaps whose size the ring buffer did not say */
};
int tdb_info_lost_by_cpu(struct tdb *db, int (*fn)(void *arg, const struct tdb_lost_cpu *l),
			 void *arg);

struct tdb_zone_info {
	int node;
	const char *zone;
	int64_t start_pfn, spanned, present, managed, free;
};
/* The zones of the first snapshot that has any, by node and start pfn. */
int tdb_info_zones(struct tdb *db, int (*fn)(void *arg, const struct tdb_zone_info *z),
		   void *arg);

struct tdb_snapshot_info {
	int64_t id;
	const char *label;		/* NULL: none */
	bool aligned;			/* ts_begin, ts_end known */
	int64_t ts_begin, ts_end;
	int64_t nr_pfns;
	bool complete;
};
int tdb_info_snapshots(struct tdb *db, int (*fn)(void *arg, const struct tdb_snapshot_info *s),
		       void *arg);

struct tdb_marker_info {
	int64_t ts;
	int cpu;
	const char *text;
};
/* The first @limit markers by time. */
int tdb_info_markers(struct tdb *db, int limit,
		     int (*fn)(void *arg, const struct tdb_marker_info *m), void *arg);

/* Snapshot @snap's nr_pfns and the bytes of its stored page runs (0, 0 when absent). */
int tdb_info_snapshot_size(struct tdb *db, int64_t snap, int64_t *nr_pfns, int64_t *bytes);

#endif
