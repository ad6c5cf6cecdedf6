/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdb-stored: the results that earlier runs stored in a capture (db/schema.sql:
 * predictions, check_results, verify_results, compare_results), read back row by row
 * for reports.
 * A capture that never stored such a run (or predates the tables) gives no rows.
 */
#ifndef BC_TDB_STORED_H
#define BC_TDB_STORED_H

#include <stdbool.h>

struct tdb;

enum tdb_stored_kind {
	TDB_STORED_PREDICTIONS,		/* every answer of every predict run but verify */
	TDB_STORED_CHECKS,		/* check_results of the latest check --store run */
	TDB_STORED_VERIFY,		/* verify_results of the latest predict --verify run */
	TDB_STORED_COMPARE,		/* compare_results (the latest compare run), in the
					 * order stored: layout, size_pages, name, value */
};

struct tdb_stored_col {
	const char *name;
	const char *text;		/* NULL for SQL NULL */
	bool integer;
	bool real;			/* a floating-point value */
};

/**
 * tdb_stored_rows() - call @fn for every row of @kind with its @ncol columns (borrowed
 * for the call); a non-zero return of @fn stops and is returned.
 * Return: 0, or a negative bc_err.
 */
int tdb_stored_rows(struct tdb *db, enum tdb_stored_kind kind,
		    int (*fn)(void *arg, int ncol, const struct tdb_stored_col *cols), void *arg);

#endif
