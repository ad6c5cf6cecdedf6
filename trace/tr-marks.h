/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tr-marks: where a capture says something about its own events: lost-event windows
 * (ring-buffer loss) and the markers a snapshot writer left while it read the page
 * files ("pages" markers: how far the reading had got at that event).
 */
#ifndef BC_TR_MARKS_H
#define BC_TR_MARKS_H

#include <stdint.h>

struct tdb;
struct tdb_snap_info;

/**
 * tr_lost_windows() - the lost-event windows of @db: for each gap in which events
 * were lost (count != 0), the seq of the first event after it, ascending.
 * Return: 0 and *@seqs, *@nr (caller frees with free(); NULL when none), or a bc_err.
 */
int tr_lost_windows(struct tdb *db, uint64_t **seqs, int *nr);

/* A "pages" marker: the snapshot began reading page @pfn just before event @seq. */
struct tr_pages_mark {
	uint64_t seq, ts, pfn;
};

/**
 * tr_pages_marks() - the "pages" markers of snapshot @s (none unless it is
 * aligned), by seq then ts.
 * Return: 0 and *@out, *@nr (caller frees with free(); NULL when none), or a bc_err.
 */
int tr_pages_marks(struct tdb *db, const struct tdb_snap_info *s, struct tr_pages_mark **out,
		   int *nr);

#endif
