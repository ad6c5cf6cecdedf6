/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snapshot: page-state snapshots of a running kernel, as a directory of the kernel's
 * own files (docs/snapshot-format.md) and as rows of a capture (db/README.md).
 *
 * One walker reads a snapshot from a source, either a snapshot directory or the live
 * /proc and /sys (the same file names, mapped), and hands every file to a consumer:
 * snap_write_dir() copies them into a directory, snap_load_dir()/snap_load_live()
 * store them in a capture: the text files verbatim (snapshot_files) and parsed (zones,
 * buddyinfo, ...), kpageflags/kpagecount run-length encoded (snapshot_pages, codec in
 * db/tdb-pages.h; db/tdb-snap.h reads them back). A load is one SQLite savepoint: on any error nothing of the
 * snapshot stays in the capture, and snapshots.complete is set last.
 *
 * Time: a snapshot carries the CLOCK_MONOTONIC ns at which reading began and ended
 * (file taken_at). When tracing, the writer brackets the reading with two trace_marker
 * lines carrying the same numbers (SNAP_MARKER_* below), so snap_align() can place the
 * snapshot between the trace's events whatever the trace clock.
 */
#ifndef BC_SNAPSHOT_H
#define BC_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/tdb-pages.h"	/* struct tdb_page_run */
#include "db/tdb-snap.h"	/* marker syntax, struct tdb_snap_info */
#include "db/tdb-snapwrite.h"	/* struct snap_tables and its rows */

struct tdb;

/*
 * Marker lines, written to trace_marker just before reading starts and just after it
 * ends (MONO_NS = CLOCK_MONOTONIC ns, decimal, equal to taken_at's numbers):
 *   "bigchunk snapshot LABEL begin MONO_NS"
 *   "bigchunk snapshot LABEL end MONO_NS"
 * LABEL is 1..SNAP_LABEL_MAX-1 characters of [A-Za-z0-9_.:+-]. A trailing newline
 * (trace_marker adds none, ftrace:print may show one) is ignored when parsing.
 * While the page files are read, one more line per TDB_PAGE_CHUNK PFNs:
 *   "bigchunk snapshot LABEL pages PFN"
 * which snap_marker_parse() does not match. The prefix, SNAP_LABEL_MAX and the parser
 * of "pages" lines are in db/tdb-snap.h, with the readers.
 */

/* Return: true if @label is a valid marker label. */
bool snap_label_valid(const char *label);

/**
 * snap_marker_format() - format a marker line (no newline) into @buf.
 * Return: the length, or -BC_E_INVAL (bad label, @size too small).
 */
int snap_marker_format(char *buf, size_t size, const char *label, bool end, uint64_t mono_ns);

/**
 * snap_marker_parse() - recognise a marker line.
 * @label: receives the label (SNAP_LABEL_MAX bytes), may be NULL.
 * Return: 1 and *@end, *@mono_ns filled if @text is a snapshot marker; 0 if it is not.
 */
int snap_marker_parse(const char *text, char *label, bool *end, uint64_t *mono_ns);

/*
 * Where marker lines go. Either @write is set (called with each line, no newline;
 * returns 0 or a negative bc_err), or @fd is an open trace_marker (-1: no markers).
 */
struct snap_marker {
	int fd;
	const char *label;			/* NULL: "snapshot" */
	int (*write)(void *arg, const char *line);
	void *arg;
};

/**
 * snap_marker_open() - open trace_marker of tracefs instance @instance (NULL or "":
 * the top-level buffer) for writing, into @m with label @label.
 * Return: 0, or a negative bc_err (-BC_E_NOTRACEFS, -BC_E_NOENT for a missing
 * instance, -BC_E_PERM). Close with snap_marker_close().
 */
int snap_marker_open(struct snap_marker *m, const char *instance, const char *label);
void snap_marker_close(struct snap_marker *m);

/**
 * snap_write_dir() - write one live snapshot into directory @dir (created mode 0700;
 * it may exist if empty). Files are mode 0600; taken_at is written last, so a
 * directory without it is incomplete. Needs root (kpageflags, pagetypeinfo, iomem).
 * @m: marker writer or NULL.
 * Return: 0 or a negative bc_err naming the file.
 */
int snap_write_dir(const char *dir, struct snap_marker *m);

/*
 * Like snap_write_dir(), reading "live" files below @root instead of "/" (root
 * "/a" reads /a/proc/kpageflags, /a/sys/...). For tests; @root NULL = "/".
 */
int snap_write_dir_root(const char *root, const char *dir, struct snap_marker *m);

/**
 * snap_load_dir() - store the snapshot directory @dir in @db as a snapshots row with
 * label @label. kpageflags/kpagecount may be replaced by kpageflags.zst/.gz and
 * kpagecount.zst/.gz (decompressed by running "zstd -dc" / "gzip -dc").
 * ts_begin/ts_end/seq_begin/seq_end stay NULL until snap_align().
 * Return: 0 and *@snap_id (may be NULL), or a negative bc_err naming the file (and the
 * offset for page files); then nothing of the snapshot is left in @db.
 */
int snap_load_dir(struct tdb *db, const char *dir, const char *label, int64_t *snap_id);

/*
 * What snap_load_dir() checks before storing anything (each error names DIR/FILE, and
 * the line where a parser knows it):
 * - regular files only, opened non-blocking (a FIFO or device is refused, never read),
 *   text files up to 64 MiB, page files (decompressed) up to the machine's PFN span,
 *   the last zone or System RAM range rounded up to 1 GiB; a failing decompressor is
 *   reported with what it said;
 * - orders 0..MAX_PAGE_ORDER (buddyinfo's columns, at most SNAP_MAX_PAGE_ORDER) alike in
 *   buddyinfo and pagetypeinfo, "Page block order" 1..MAX_PAGE_ORDER, free counts and
 *   pageblock counts that fit in their zone;
 * - the same populated zones (node and name) in zoneinfo, buddyinfo and both sections
 *   of pagetypeinfo, each zone's present pages inside iomem's System RAM;
 * - taken_at: two decimals 0 <= BEGIN <= END <= 2^63-1.
 * And, unless SNAP_LOAD_FORCE: uname equals the capture's meta kernel_release, and
 * taken_at lies within SNAP_TIME_MARGIN_S of the trace's span in CLOCK_MONOTONIC (the
 * events' when the trace clock is mono, else the snapshot markers' numbers; no check
 * when the capture has neither).
 */
#define SNAP_LOAD_FORCE		1u
#define SNAP_MAX_PAGE_ORDER	15	/* arm64 with 64 KiB pages: 13 */
#define SNAP_TIME_MARGIN_S	300

/* snap_load_dir() with @flags (SNAP_LOAD_*). */
int snap_load_dir_flags(struct tdb *db, const char *dir, const char *label, unsigned int flags,
			int64_t *snap_id);

/**
 * snap_load_live() - read a snapshot from the running kernel straight into @db (no
 * directory), bracketed by markers through @m (may be NULL). mono_begin/mono_end
 * are measured around the reading.
 * Return: as snap_load_dir().
 */
int snap_load_live(struct tdb *db, const char *label, struct snap_marker *m,
		   int64_t *snap_id);

/**
 * snap_align() - after the events are stored, set every snapshot's ts_begin/ts_end and
 * seq_begin/seq_end: from its begin/end markers in the markers table (matched by the
 * MONO_NS numbers, which equal mono_begin/mono_end), else, when meta 'clock' is
 * "mono", from mono_begin/mono_end (then ts = mono ns and seq_begin is the first event
 * at or after ts_begin, seq_end the first after ts_end).
 * @nr_marked: receives how many were aligned by markers (may be NULL).
 * Return: 0, or -BC_E_FORMAT naming the first snapshot that cannot be aligned and how
 * to record so that it can.
 */
int snap_align(struct tdb *db, int *nr_marked);

/* ---- parsers of the text files (exposed for tests); all rows malloc'ed ---- */

/*
 * Each parses one file's text into @t (appending). Errors name "line N" of the text;
 * callers prefix the file name.
 */
int snap_parse_zoneinfo(const char *text, struct snap_tables *t);
int snap_parse_buddyinfo(const char *text, struct snap_tables *t);
int snap_parse_pagetypeinfo(const char *text, struct snap_tables *t);
int snap_parse_meminfo(const char *text, struct snap_tables *t);
int snap_parse_vmstat(const char *text, struct snap_tables *t);
/* Fails with -BC_E_PERM when every System RAM address reads 0 (not root). */
int snap_parse_iomem(const char *text, struct snap_tables *t);
/*
 * "Page block order: N" and "Pages per block: 2^N" of pagetypeinfo: *@order = N (0..63;
 * the caller checks it against MAX_PAGE_ORDER), *@lineno its line.
 */
int snap_parse_pageblock_order(const char *text, int *order, int *lineno);
/* Frees every array of @t and zeroes it. */
void snap_tables_release(struct snap_tables *t);

#endif
