/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdb-snapread: small reads of stored snapshot tables and of the event annotations
 * (comms, stacks) that scoring, checking and predicting need beside the event cursor.
 */
#ifndef BC_TDB_SNAPREAD_H
#define BC_TDB_SNAPREAD_H

#include <stddef.h>
#include <stdint.h>

#include "db/tdb-snapwrite.h"	/* struct snap_order_count */

struct tdb;

enum tdb_count_table {
	TDB_BUDDYINFO,			/* migratetype "" */
	TDB_PAGETYPE_FREE,
	TDB_PAGETYPE_BLOCKS,		/* ord -1, nr = pageblocks */
};

/**
 * tdb_snap_counts() - the rows of @table for snapshot @snap, in stored order.
 * Return: 0 and *@out (malloc'ed array of *@nr rows, caller frees with free()), or a
 * negative bc_err.
 */
int tdb_snap_counts(struct tdb *db, int64_t snap, enum tdb_count_table table,
		    struct snap_order_count **out, int *nr);

/* Snapshot @snap's seq_begin and seq_end; -1 each when unaligned or absent. */
int tdb_snap_seqs(struct tdb *db, int64_t snap, int64_t *seq_begin, int64_t *seq_end);

/* The comm of @pid into @buf (left as it is when unknown). */
void tdb_comm_of(struct tdb *db, int pid, char *buf, size_t size);

/* The kernel stack stored for event @seq: malloc'ed frames (caller frees), NULL if none. */
char *tdb_stack_of(struct tdb *db, uint64_t seq);

#endif
