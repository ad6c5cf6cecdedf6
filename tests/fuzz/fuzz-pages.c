// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the snapshot page-run decoders (db/tdb-pages.c).
 *
 * Input: 4 bytes little-endian = PFNs in the chunk (modulo TDB_PAGE_CHUNK, plus 1),
 * then the blob (snapshot_pages.data). Seeds: blobs of the bundled captures.
 *
 * Oracles: tdb_pages_decode() and tdb_pages_runs() agree on the blob; what decodes,
 * encodes and decodes back to the same pages.
 */
#include "common/err.h"
#include "db/tdb-pages.h"
#include "tests/fuzz/fuzz.h"

static uint64_t flags[TDB_PAGE_CHUNK], count[TDB_PAGE_CHUNK];
static uint64_t flags2[TDB_PAGE_CHUNK], count2[TDB_PAGE_CHUNK];

/* The runs cover [base, base + n) in order and say what the arrays say. */
static void runs_match(const struct tdb_page_run *r, size_t nr, uint64_t base, uint32_t n)
{
	uint64_t pfn = base, p;
	size_t i;

	for (i = 0; i < nr; i++) {
		FUZZ_ASSERT(r[i].pfn == pfn && r[i].npfns > 0);
		for (p = r[i].pfn; p < r[i].pfn + r[i].npfns; p++)
			FUZZ_ASSERT(p - base < n && flags[p - base] == r[i].flags &&
				    count[p - base] == r[i].count);
		pfn += r[i].npfns;
	}
	FUZZ_ASSERT(pfn == base + n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tdb_pages_enc *enc;
	const uint64_t base = 3 * (uint64_t)TDB_PAGE_CHUNK;
	struct tdb_page_run *runs;
	const uint8_t *blob;
	size_t nr, len;
	uint32_t n;
	int a, b;

	if (size < 4)
		return 0;
	n = (uint32_t)(data[0] | data[1] << 8 | data[2] << 16 | (uint32_t)data[3] << 24);
	n = n % TDB_PAGE_CHUNK + 1;
	data += 4;
	size -= 4;

	a = tdb_pages_decode(data, size, n, flags, count);
	b = tdb_pages_runs(data, size, n, base, &runs, &nr);
	FUZZ_ASSERT((a == 0) == (b == 0));
	if (a)
		return 0;
	runs_match(runs, nr, base, n);
	free(runs);

	if (!enc && tdb_pages_enc_create(&enc))
		abort();
	FUZZ_ASSERT(!tdb_pages_encode(enc, flags, count, n, &blob, &len));
	FUZZ_ASSERT(!tdb_pages_decode(blob, len, n, flags2, count2));
	FUZZ_ASSERT(!memcmp(flags, flags2, n * sizeof(*flags)) &&
		    !memcmp(count, count2, n * sizeof(*count)));
	return 0;
}
