/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdb-snapwrite: storing one snapshot in a capture (tables snapshots, snapshot_files,
 * snapshot_pages and the parsed tables zones, zone_pcp, buddyinfo, pagetype_free,
 * pagetype_blocks, meminfo, vmstat, system_ram, memory_blocks, hugepages; db/README.md).
 * capture/ reads and parses the snapshot; this owns the SQL.
 *
 * A snapshot is one SQLite savepoint: tdb_snap_begin() inserts the snapshots row with
 * complete = 0, files and page runs are added as they are read (memory stays bounded),
 * the parsed tables at the end, and only tdb_snap_commit() sets the row's times, nr_pfns
 * and complete = 1 and releases the savepoint. tdb_snap_abort() rolls everything of the
 * snapshot back. Inside a writer's open transaction (import, record) the savepoint
 * nests in it; on a capture opened with TDB_WRITE it is the transaction.
 */
#ifndef BC_TDB_SNAPWRITE_H
#define BC_TDB_SNAPWRITE_H

#include <stddef.h>
#include <stdint.h>

struct tdb;
struct tdb_snapwrite;

/*
 * The parsed text files, as stored (one struct per table, named after the file the
 * rows come from); filled by the parsers of capture/snapshot.h, all rows malloc'ed.
 */
struct snap_pcp {
	int cpu;
	int64_t count, high, batch, high_min, high_max;
};

struct snap_zone {
	int node;
	char name[16];
	int64_t start_pfn, spanned, present, managed, free;
	int64_t wmark_min, wmark_low, wmark_high;	/* -1: not printed */
	int nr_pcp;
	struct snap_pcp *pcp;
};

struct snap_order_count {			/* buddyinfo, pagetype_free, pagetype_blocks */
	int node;
	char zone[16];
	char migratetype[24];			/* "" for buddyinfo */
	int ord;				/* -1 for pagetype_blocks */
	int64_t nr;				/* -1: the kernel printed ">100000" */
};

struct snap_kv {
	char key[64];
	int64_t value;
};

struct snap_range {
	uint64_t start_pfn, end_pfn;		/* [start, end) */
};

struct snap_memblock {
	int64_t block;
	uint64_t start_pfn, nr_pfns;
	char state[24];
	char valid_zones[64];			/* "" when the file is absent */
};

struct snap_hugepages {
	int64_t size_kb, nr, free;
};

struct snap_tables {
	struct snap_zone *zones;
	int nr_zones;
	struct snap_order_count *buddy, *ptfree, *ptblocks;
	int nr_buddy, nr_ptfree, nr_ptblocks;
	struct snap_kv *meminfo, *vmstat;
	int nr_meminfo, nr_vmstat;
	struct snap_range *ram;
	int nr_ram;
	struct snap_memblock *blocks;
	int nr_blocks;
	struct snap_hugepages *huge;
	int nr_huge;
};

/**
 * tdb_snap_begin() - start storing a snapshot labelled @label in @db.
 * Return: 0 and *@out (end it with tdb_snap_commit() or tdb_snap_abort()), or a
 * negative bc_err.
 */
int tdb_snap_begin(struct tdb *db, const char *label, struct tdb_snapwrite **out);
/* The snapshots.id being written. */
int64_t tdb_snap_id(const struct tdb_snapwrite *w);

/* Store text file @name (@len bytes of @content) verbatim. */
int tdb_snap_add_file(struct tdb_snapwrite *w, const char *name, const char *content,
		      size_t len);
/* Store the kpageflags/kpagecount of PFNs [@pfn, @pfn + @n), run-length encoded
 * (db/tdb-pages.h); @n is 1..TDB_PAGE_CHUNK. */
int tdb_snap_add_pages(struct tdb_snapwrite *w, uint64_t pfn, uint32_t n,
		       const uint64_t *flags, const uint64_t *count);
/* Store the parsed tables of @t. */
int tdb_snap_add_tables(struct tdb_snapwrite *w, const struct snap_tables *t);

/**
 * tdb_snap_commit() - set the snapshot's CLOCK_MONOTONIC bounds and @nr_pfns, mark it
 * complete and release the savepoint; frees @w.
 * Return: 0, or a negative bc_err; then @w is still there for tdb_snap_abort().
 */
int tdb_snap_commit(struct tdb_snapwrite *w, uint64_t mono_begin, uint64_t mono_end,
		    uint64_t nr_pfns);
/* Roll the snapshot back and free @w (NULL is allowed); keeps the current error message. */
void tdb_snap_abort(struct tdb_snapwrite *w);

/* Where alignment (snap_align(), capture/snapshot.h) placed a snapshot in the trace. */
struct tdb_snap_place {
	int64_t id;			/* snapshots.id */
	int64_t ts_begin, ts_end;
	int64_t seq_begin, seq_end;
};

/**
 * tdb_snap_set_places() - store the trace times and seqs of @nr snapshots, all or
 * none (one savepoint).
 * Return: 0, or a negative bc_err (then no row changed).
 */
int tdb_snap_set_places(struct tdb *db, const struct tdb_snap_place *p, int nr);

#endif
