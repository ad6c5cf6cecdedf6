/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmp-store: a compare run into table compare_results of the capture (db/README.md),
 * replacing the previous run's rows, in one transaction.
 */
#ifndef BC_CMP_STORE_H
#define BC_CMP_STORE_H

#include <stdint.h>

#include "compare/cmp-run.h"

struct tdb;

/* Return: 0, or a negative bc_err; then nothing changed. */
int cmp_store(struct tdb *db, uint64_t size_pages, const struct cmp_result *r, int nr);

#endif
