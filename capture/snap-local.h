/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the snapshot module (capture/snap-*.c); not included outside capture/.
 */
#ifndef BC_SNAP_LOCAL_H
#define BC_SNAP_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "capture/snapshot.h"

/* Where a snapshot is read from: a snapshot directory, or the live kernel. */
struct snap_src {
	const char *dir;	/* snapshot directory; NULL: live */
	const char *root;	/* live only: prefix of /proc and /sys ("" = the real ones) */
};

/*
 * What receives a walked snapshot. Text files come in the order of the name list in
 * snap-walk.c (taken_at last), then pages in ascending runs of up to TDB_PAGE_CHUNK
 * PFNs. Callbacks return 0 or a negative bc_err, which stops the walk.
 */
struct snap_sink {
	int (*text)(void *arg, const char *name, const char *content, size_t len);
	int (*pages)(void *arg, uint64_t pfn, uint32_t n, const uint64_t *flags,
		     const uint64_t *count);
	/*
	 * Optional: called once the text files are in, before the page files are read;
	 * the page files may cover at most *@max PFNs (a .zst that decompresses to more
	 * is refused). Return 0 or a negative bc_err.
	 */
	int (*max_pfns)(void *arg, uint64_t *max);
	void *arg;
};

/* Largest text file of a snapshot: /proc/zoneinfo of a 1024-CPU machine is ~10 MiB. */
#define SNAP_TEXT_MAX	(64u << 20)

struct snap_walk_result {
	uint64_t mono_begin, mono_end;
	uint64_t nr_pfns;
};

/*
 * snap_walk() - read a whole snapshot from @src into @sink. Live: markers through @m
 * (may be NULL) bracket the reading and taken_at is made up from the measured times.
 * Directory: taken_at is read first (missing: incomplete snapshot).
 * Errors name the file (for a directory, "DIR/name"; live, the /proc or /sys path).
 */
int snap_walk(const struct snap_src *src, struct snap_marker *m, const struct snap_sink *sink,
	      struct snap_walk_result *res);

/* The path @name of @src is read from (for messages and opening). 0 or -BC_E_INVAL. */
int snap_src_path(const struct snap_src *src, const char *name, char *buf, size_t size);

/*
 * "BEGIN_NS END_NS\n" → numbers: CLOCK_MONOTONIC ns, decimal, 0 <= BEGIN <= END <=
 * INT64_MAX (the capture stores them signed); 0 or -BC_E_FORMAT.
 */
int snap_parse_taken_at(const char *text, uint64_t *begin, uint64_t *end);

/* @src's path of @name prefixed to the current message (see snap_src_path()). */
int snap_src_error(const struct snap_src *src, int ret, const char *name);

/* A number as a string literal, for messages. */
#define SNAP_STR_(x)	#x
#define SNAP_STR(x)	SNAP_STR_(x)

/*
 * snap_check_tables() - the cross-file checks of snap_load_dir() (snapshot.h) on the
 * parsed text files of @src: orders, pageblock order @pb_order (read at line @pb_line of
 * pagetypeinfo), zones, counts, System RAM. Return: 0, or a negative bc_err naming
 * the file.
 */
int snap_check_tables(const struct snap_src *src, const struct snap_tables *t, int pb_order,
		      int pb_line);

/* CLOCK_MONOTONIC in ns. */
uint64_t snap_mono_ns(void);

/* Growable array helper: make room for one more element of @size in *@arr. */
int snap_grow(void *arr, int nr, size_t size);

#endif
