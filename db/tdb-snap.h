/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdb-snap: reading the page-state snapshots of a capture back (db/README.md, tables
 * snapshots, snapshot_pages, snapshot_files, zones, system_ram, buddyinfo,
 * pagetype_free, pagetype_blocks, memory_blocks, zone_pcp).
 *
 * Rows come back as they are stored; what they mean to the model is the read side's
 * business (trace/). The writer (snapshot loading and alignment) is capture/'s.
 * Every array returned is malloc'ed: the caller frees it with free().
 */
#ifndef BC_TDB_SNAP_H
#define BC_TDB_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/tdb-pages.h"	/* struct tdb_page_run */

struct tdb;

/*
 * The marker lines a snapshot writer puts into the trace (capture/snapshot.h has the
 * writer): "bigchunk snapshot LABEL begin|end MONO_NS", and while the page files are
 * read, one "bigchunk snapshot LABEL pages PFN" per TDB_PAGE_CHUNK pfns.
 */
#define SNAP_MARKER_PREFIX	"bigchunk snapshot "
#define SNAP_LABEL_MAX		64
#define SNAP_MARKER_MAX		(sizeof(SNAP_MARKER_PREFIX) + SNAP_LABEL_MAX + 32)
/* SQL LIKE pattern of the "pages" markers (a pre-filter; tdb_snap_marker_pages() decides). */
#define SNAP_MARKER_PAGES_LIKE	"bigchunk snapshot % pages %"

/* Return: 1 and *@pfn if @text is a "pages" marker line, 0 if it is not. */
int tdb_snap_marker_pages(const char *text, uint64_t *pfn);

/* A snapshots row. ts_* and seq_* are -1 while unaligned (NULL in the db). */
struct tdb_snap_info {
	int64_t id;
	char label[SNAP_LABEL_MAX];
	int64_t ts_begin, ts_end;
	int64_t mono_begin, mono_end;
	int64_t seq_begin, seq_end;
	uint64_t nr_pfns;
	bool complete;
};

/**
 * tdb_snap_list() - the snapshots of @db in id order.
 * Return: 0 and *@out (*@nr entries, caller frees with free()), or a negative bc_err.
 */
int tdb_snap_list(struct tdb *db, struct tdb_snap_info **out, int *nr);

/**
 * tdb_snap_get() - snapshot @snap's row.
 * Return: 0, -BC_E_NOENT when there is no such snapshot, or another negative bc_err.
 */
int tdb_snap_get(struct tdb *db, int64_t snap, struct tdb_snap_info *out);

/**
 * tdb_snap_pages_read() - flags and counts of PFNs [@pfn_from, @pfn_from + @n) of
 * snapshot @snap into @flags[n] and @count[n] (either may be NULL). PFNs at or beyond
 * the snapshot's nr_pfns are not allowed. Counts are u64 like kpagecount itself.
 * Return: 0, or a negative bc_err (-BC_E_INVAL out of range, -BC_E_FORMAT corrupt row).
 */
int tdb_snap_pages_read(struct tdb *db, int64_t snap, uint64_t pfn_from, uint64_t n,
			uint64_t *flags, uint64_t *count);

struct tdb_snap_runs;

/**
 * tdb_snap_runs_open() - iterate the runs of equal (flags, count) of snapshot @snap
 * over PFNs [@pfn_from, @pfn_to) (clipped to nr_pfns; runs are clipped to the range
 * and merged across chunk rows).
 * Return: 0 and *@out (caller frees with tdb_snap_runs_close()), or a negative bc_err.
 */
int tdb_snap_runs_open(struct tdb *db, int64_t snap, uint64_t pfn_from, uint64_t pfn_to,
		       struct tdb_snap_runs **out);
/* Return: 1 and *@run, 0 at the end, or a negative bc_err. */
int tdb_snap_runs_next(struct tdb_snap_runs *it, struct tdb_page_run *run);
void tdb_snap_runs_close(struct tdb_snap_runs *it);

/* A zones row (zones with spanned > 0 only). */
struct tdb_zone {
	int node;
	char name[16];
	uint64_t start_pfn, spanned, present, managed;
	int64_t free;			/* pages free (isolated excluded) */
};

/* Zones of @snap with pages, by start_pfn. Return: 0 and *@out, *@nr, or a bc_err. */
int tdb_snap_zones(struct tdb *db, int64_t snap, struct tdb_zone **out, int *nr);

/* The lowest snapshot id that has zones rows; *@snap = -1 when none. */
int tdb_snap_first_zoned(struct tdb *db, int64_t *snap);

/* A system_ram row: PFNs [start, end). */
struct tdb_ram {
	uint64_t start, end;
};

/* System RAM ranges of @snap by start. Return: 0 and *@out, *@nr, or a bc_err. */
int tdb_snap_ram(struct tdb *db, int64_t snap, struct tdb_ram **out, int *nr);

/**
 * tdb_snap_file() - the stored text of file @name of snapshot @snap.
 * Return: 0 and *@content (caller frees with free(); NULL when the file was not
 * stored), or a negative bc_err.
 */
int tdb_snap_file(struct tdb *db, int64_t snap, const char *name, char **content);

/*
 * A snapshot's "longterm_pins" file (docs/snapshot-format.md): pages pinned long-term
 * (FOLL_LONGTERM) that its reader could see, io_uring registered buffers. Lines
 * "io_uring PID FD BUF VADDR PFN NR_PAGES" (PFN "-": not mapped, pfn unknown) and
 * "io_uring PID FD - - - NR_BUFS" (a ring whose buffers the kernel did not list).
 */
struct tdb_pin_run {
	uint64_t pfn, nr;		/* pinned pfns [pfn, pfn + nr) */
	int pid, fd;
	unsigned int buf;		/* the buffer's index in its ring */
};

struct tdb_pins {
	struct tdb_pin_run *runs;	/* by pfn */
	int nr;
	uint64_t unknown_pages;		/* pinned pages whose pfn the reader could not see */
	uint64_t unlisted_bufs;		/* buffers of rings the kernel did not list */
};

/*
 * tdb_pins_parse() - parse the text of a longterm_pins file into @out (runs sorted by
 * pfn; free with tdb_pins_free()). Return: 0, or -BC_E_FORMAT naming the line.
 */
int tdb_pins_parse(const char *text, struct tdb_pins *out);
void tdb_pins_free(struct tdb_pins *p);

/*
 * tdb_snap_pins() - snapshot @snap's longterm_pins, parsed. Return: 0 and *@out,
 * -BC_E_NOENT when the snapshot has no such file (its reader did not look: an older
 * capture or writer), or another negative bc_err.
 */
int tdb_snap_pins(struct tdb *db, int64_t snap, struct tdb_pins *out);

/* Figures of a snapshot that are one number. */
enum tdb_snap_figure {
	TDB_SNAP_MEMORY_BLOCK_PAGES,	/* max(memory_blocks.nr_pfns) */
	TDB_SNAP_MAX_ORDER,		/* max(buddyinfo.ord) */
	TDB_SNAP_NR_CPUS,		/* max(zone_pcp.cpu) + 1 */
	TDB_SNAP_HUGETLB_KB,		/* hugepages.size_kb of every pool, OR'ed (powers of 2) */
};

/* Return: 0 and *@v (@dflt when the snapshot has no such rows), or a negative bc_err. */
int tdb_snap_figure(struct tdb *db, int64_t snap, enum tdb_snap_figure f, int64_t dflt,
		    int64_t *v);

/* The per-zone count tables of a snapshot. */
enum tdb_zone_table {
	TDB_BUDDYINFO,			/* free blocks per order */
	TDB_PAGETYPE_FREE,		/* free blocks per migratetype and order */
	TDB_PAGETYPE_BLOCKS,		/* pageblocks per migratetype */
};

struct tdb_zone_count {
	int node;
	char zone[16];
	char migratetype[24];		/* "" for buddyinfo */
	int ord;			/* -1 for pagetype_blocks */
	int64_t nr;
};

/**
 * tdb_snap_zone_counts() - the rows of table @t of snapshot @snap, in key order
 * (node, zone, then order or migratetype).
 * Return: 0 and *@out, *@nr (caller frees with free()), or a negative bc_err.
 */
int tdb_snap_zone_counts(struct tdb *db, int64_t snap, enum tdb_zone_table t,
			 struct tdb_zone_count **out, int *nr);

#endif
