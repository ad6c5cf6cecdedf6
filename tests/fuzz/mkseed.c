// SPDX-License-Identifier: GPL-2.0
/*
 * Seed corpus of the fuzz targets, made at build time from the bundled captures
 * (tests/fuzz/run-fuzz.sh calls it; nothing large is committed):
 *   mkseed db OUT.db            the small capture of mini-cap.h (fuzz-db, fuzz-time)
 *   mkseed chunks CAPTURE DIR   event chunks, cut to at most 2 KiB at an event boundary,
 *                               each behind its capture's field table (fuzz-chunk)
 *   mkseed pages CAPTURE DIR    snapshot page blobs of at most 64 KiB behind their PFN
 *                               count (fuzz-pages)
 * At most MAX_SEEDS files per capture.
 */
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "tests/fuzz/mini-cap.h"

#define MAX_SEEDS	24
#define MAX_TYPES	64
#define CHUNK_CUT	2048
#define PAGES_MAX	65536

/* DIR/KIND-CAPTURE-I: @head then @data. */
static int write_seed(const char *dir, const char *kind, const char *capture, int i,
		      const uint8_t *head, size_t hlen, const void *data, size_t len)
{
	const char *base = strrchr(capture, '/');
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%s-%d", dir, kind, base ? base + 1 : capture, i);
	f = fopen(path, "wb");
	if (!f || fwrite(head, 1, hlen, f) != hlen || fwrite(data, 1, len, f) != len) {
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

/* The capture's field counts per type id, as fuzz-chunk.c reads them. */
static int field_table(struct tdb *db, uint8_t *head)
{
	struct tdb_event_type **types;
	int nr, i;

	if (tdb_event_types(db, &types, &nr) || nr > MAX_TYPES)
		return -1;
	head[0] = (uint8_t)(nr - 1);
	for (i = 0; i < nr; i++)
		head[1 + i] = types[i] ? (uint8_t)types[i]->nfields : 0xff;
	return nr;
}

/* The longest prefix of @data of at most CHUNK_CUT bytes that ends after an event. */
static size_t cut_chunk(const uint8_t *data, size_t len, const uint8_t *head)
{
	int nf[MAX_TYPES], nr = head[0] + 1, i;
	size_t pos = 0, good = 0;
	uint64_t prev = 0;
	struct bc_event ev;

	for (i = 0; i < nr; i++)
		nf[i] = head[1 + i] == 0xff ? -1 : head[1 + i];
	while (pos < len && !tdb_decode_event(data, len, &pos, &prev, nf, nr, &ev) &&
	       pos <= CHUNK_CUT)
		good = pos;
	return good;
}

static int seeds(const char *capture, const char *dir, bool chunks)
{
	const char *sql = chunks ? "SELECT data, n FROM event_chunks ORDER BY id" :
		"SELECT data, npfns FROM snapshot_pages WHERE length(data) <= 65536 "
		"ORDER BY length(data) DESC";
	uint8_t head[1 + MAX_TYPES];
	sqlite3_stmt *st;
	struct tdb *db;
	int i = 0, ret = -1;

	if (tdb_open(capture, TDB_READONLY, &db))
		return -1;
	if ((chunks && field_table(db, head) < 0) ||
	    sqlite3_prepare_v2(tdb_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		goto out;
	ret = 0;
	while (!ret && i < MAX_SEEDS && sqlite3_step(st) == SQLITE_ROW) {
		const uint8_t *data = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		uint32_t n = (uint32_t)sqlite3_column_int64(st, 1) - 1;

		if (chunks) {
			len = cut_chunk(data, len, head);
			ret = write_seed(dir, "chunk", capture, i++, head, 2u + head[0], data, len);
		} else {
			uint8_t le[4] = { n & 0xff, n >> 8 & 0xff, n >> 16 & 0xff, n >> 24 };

			ret = write_seed(dir, "pages", capture, i++, le, 4, data, len);
		}
	}
	sqlite3_finalize(st);
out:
	tdb_close(db);
	return ret;
}

int main(int argc, char **argv)
{
	int ret = -1;

	if (argc == 3 && !strcmp(argv[1], "db"))
		ret = fuzz_mini_capture(argv[2]);
	else if (argc == 4 && (!strcmp(argv[1], "chunks") || !strcmp(argv[1], "pages")))
		ret = seeds(argv[2], argv[3], !strcmp(argv[1], "chunks"));
	else
		fprintf(stderr, "usage: mkseed db OUT | chunks|pages CAPTURE DIR\n");
	if (ret)
		fprintf(stderr, "mkseed %s: %s\n", argc > 1 ? argv[1] : "", bc_errmsg());
	return ret ? 1 : 0;
}
