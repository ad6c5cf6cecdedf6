/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdb-probes: rows of the tables probes and probe_pages (db/schema.sql): the real
 * contiguous attempts a recording makes on the live kernel at its end
 * (capture/cap-probe.c decides and runs them; this writes what they found).
 */
#ifndef BC_TDB_PROBES_H
#define BC_TDB_PROBES_H

#include <stdbool.h>
#include <stdint.h>

struct tdb;

/* What one probe found, stored as a probes row. */
struct tdb_probe {
	const char *kind;		/* 'hugetlb_1g' or 'offline' */
	uint64_t mono_begin, mono_end;
	long requested, obtained;
	long block;			/* -1: none */
	int64_t start_pfn, end_pfn;	/* -1: none */
	bool success;
	int64_t culprit_pfn;		/* -1: none */
	char culprit[64];		/* "": none */
	char detail[1024];		/* "": none */
	bool restored;
};

/* The id the next probe of @db gets: 1 + the largest stored (1 when none or on error). */
int64_t tdb_next_probe_id(struct tdb *db);

/* Insert probe @id. Return: 0 or a negative bc_err. */
int tdb_add_probe(struct tdb *db, int64_t id, const struct tdb_probe *r);

/* Insert where page @idx of hugetlb probe @probe landed: [@start_pfn, @end_pfn), found
 * at CLOCK_MONOTONIC @mono ns. Return: 0 or a negative bc_err. */
int tdb_add_probe_page(struct tdb *db, int64_t probe, int idx, uint64_t start_pfn,
		       uint64_t end_pfn, uint64_t mono);

#endif
