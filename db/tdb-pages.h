/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdb-pages: the snapshot_pages chunk codec ("Snapshot page runs" in db/README.md).
 *
 * A snapshot's /proc/kpageflags and /proc/kpagecount (one u64 each per PFN, from PFN 0)
 * are stored as rows of TDB_PAGE_CHUNK PFNs (the last row may be shorter). Each row's
 * blob is a dictionary of the distinct (flags, count) pairs of the chunk followed by
 * runs of equal pairs. Decoding gives back every PFN's two values bit for bit.
 *
 * Blob layout (all integers LEB128 uvarints, see bc_put_uvarint()):
 *   byte    format            TDB_PAGES_FORMAT (1)
 *   uvarint ndict             distinct (flags, count) pairs, 1..npfns
 *   ndict x { uvarint flags, uvarint count }    in order of first appearance
 *   runs until npfns PFNs are covered, each:
 *     uvarint tok             idx = tok >> 1 (< ndict)
 *     if tok & 1: uvarint len_minus_2   (run of len_minus_2 + 2 PFNs)
 *     else: a run of 1 PFN
 * The runs must cover exactly npfns PFNs and end exactly at the end of the blob. The
 * encoder never writes two neighbouring runs with the same idx; the decoder accepts them.
 *
 * When that would be longer than the raw words (every page different with wide values),
 * the chunk is stored raw instead:
 *   byte    format            TDB_PAGES_RAW (0)
 *   npfns x u64 flags, then npfns x u64 count, little-endian (1 + 16 x npfns bytes)
 *
 * This module sits in db/ (not capture/) so the page_runs virtual table can decode rows.
 */
#ifndef BC_TDB_PAGES_H
#define BC_TDB_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#define TDB_PAGE_CHUNK		65536	/* PFNs per snapshot_pages row */
#define TDB_PAGES_FORMAT	1	/* dictionary + runs */
#define TDB_PAGES_RAW		0	/* incompressible chunk, raw words */

struct tdb_pages_enc;

/* Return: 0 and *@out (caller frees with tdb_pages_enc_destroy()), or -BC_E_NOMEM. */
int tdb_pages_enc_create(struct tdb_pages_enc **out);
void tdb_pages_enc_destroy(struct tdb_pages_enc *enc);

/**
 * tdb_pages_encode() - encode @n (1..TDB_PAGE_CHUNK) PFNs' @flags and @count.
 * @count may be NULL (all zero).
 * Return: 0 and *@blob / *@len (borrowed from @enc, valid until its next call), or a
 * negative bc_err.
 */
int tdb_pages_encode(struct tdb_pages_enc *enc, const uint64_t *flags, const uint64_t *count,
		     uint32_t n, const uint8_t **blob, size_t *len);

/**
 * tdb_pages_decode() - decode a blob of @n PFNs into @flags[n] and @count[n] (either may
 * be NULL).
 * Return: 0, or -BC_E_FORMAT with a message giving the byte offset of the problem.
 */
int tdb_pages_decode(const uint8_t *blob, size_t len, uint32_t n, uint64_t *flags,
		     uint64_t *count);

/* One run: PFNs [pfn, pfn + npfns) all read @flags in kpageflags and @count in kpagecount. */
struct tdb_page_run {
	uint64_t pfn;
	uint64_t npfns;
	uint64_t flags;
	uint64_t count;
};

/**
 * tdb_pages_runs() - decode a blob of @n PFNs starting at @base_pfn into runs.
 * Neighbouring runs with equal values are merged.
 * Return: 0 and *@runs (malloc'ed, caller frees) with *@nr entries, or a negative bc_err.
 */
int tdb_pages_runs(const uint8_t *blob, size_t len, uint32_t n, uint64_t base_pfn,
		   struct tdb_page_run **runs, size_t *nr);

/**
 * tdb_pages_register_vtab() - register the eponymous virtual table
 * page_runs(snap, pfn, npfns, flags, count) on @sq: one row per run of each
 * snapshot_pages row (runs are split at 65536-PFN chunk boundaries).
 * Return: 0 or -BC_E_DB.
 */
int tdb_pages_register_vtab(sqlite3 *sq);

#endif
