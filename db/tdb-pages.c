// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot page-run codec: dictionary + run-length encoding of one chunk of
 * kpageflags/kpagecount (format in db/tdb-pages.h and db/README.md).
 *
 * The encoder owns scratch space for one chunk: an open-addressing hash from
 * (flags, count) to dictionary index, the dictionary and the run list, so encoding a
 * 268 M-PFN machine allocates once.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-pages.h"

#define HASH_BITS	17			/* 2 x TDB_PAGE_CHUNK slots */
#define HASH_SIZE	(1u << HASH_BITS)
#define VARINT_MAX	10

struct tdb_pages_enc {
	uint32_t slot[HASH_SIZE];		/* dictionary index + 1; 0 = empty */
	uint64_t dflags[TDB_PAGE_CHUNK];
	uint64_t dcount[TDB_PAGE_CHUNK];
	uint32_t run_idx[TDB_PAGE_CHUNK];
	uint32_t run_len[TDB_PAGE_CHUNK];
	uint8_t buf[1 + VARINT_MAX + TDB_PAGE_CHUNK * (3 * VARINT_MAX)];	/* >= raw size */
};

int tdb_pages_enc_create(struct tdb_pages_enc **out)
{
	*out = malloc(sizeof(**out));
	if (!*out)
		return bc_error(BC_E_NOMEM, "page codec: out of memory");
	return 0;
}

void tdb_pages_enc_destroy(struct tdb_pages_enc *enc)
{
	free(enc);
}

static void put_le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline uint32_t pair_hash(uint64_t flags, uint64_t count)
{
	uint64_t h = flags * 0x9e3779b97f4a7c15ull ^ (count + 0x632be59bd9b4e019ull) *
		     0xc2b2ae3d27d4eb4full;

	return (uint32_t)(h >> (64 - HASH_BITS));
}

static uint32_t dict_index(struct tdb_pages_enc *e, uint32_t *ndict, uint64_t f, uint64_t c)
{
	uint32_t h = pair_hash(f, c);

	for (;; h = (h + 1) & (HASH_SIZE - 1)) {
		uint32_t s = e->slot[h];

		if (!s) {
			e->dflags[*ndict] = f;
			e->dcount[*ndict] = c;
			e->slot[h] = ++*ndict;
			return *ndict - 1;
		}
		if (e->dflags[s - 1] == f && e->dcount[s - 1] == c)
			return s - 1;
	}
}

int tdb_pages_encode(struct tdb_pages_enc *e, const uint64_t *flags, const uint64_t *count,
		     uint32_t n, const uint8_t **blob, size_t *len)
{
	uint32_t ndict = 0, nruns = 0, i;
	size_t pos = 0;

	if (!n || n > TDB_PAGE_CHUNK)
		return bc_error(BC_E_INVAL, "page codec: chunk of %u PFNs (1..%u)", n,
				TDB_PAGE_CHUNK);
	memset(e->slot, 0, sizeof(e->slot));
	for (i = 0; i < n; i++) {
		uint64_t f = flags[i], c = count ? count[i] : 0;
		uint32_t idx;

		if (nruns && e->dflags[e->run_idx[nruns - 1]] == f &&
		    e->dcount[e->run_idx[nruns - 1]] == c) {
			e->run_len[nruns - 1]++;
			continue;
		}
		idx = dict_index(e, &ndict, f, c);
		e->run_idx[nruns] = idx;
		e->run_len[nruns++] = 1;
	}
	e->buf[pos++] = TDB_PAGES_FORMAT;
	pos += bc_put_uvarint(e->buf + pos, ndict);
	for (i = 0; i < ndict; i++) {
		pos += bc_put_uvarint(e->buf + pos, e->dflags[i]);
		pos += bc_put_uvarint(e->buf + pos, e->dcount[i]);
	}
	for (i = 0; i < nruns; i++) {
		uint64_t tok = (uint64_t)e->run_idx[i] << 1;

		if (e->run_len[i] == 1) {
			pos += bc_put_uvarint(e->buf + pos, tok);
		} else {
			pos += bc_put_uvarint(e->buf + pos, tok | 1);
			pos += bc_put_uvarint(e->buf + pos, e->run_len[i] - 2);
		}
	}
	if (pos > 1 + (size_t)n * 16) {
		/* incompressible (every page different, wide values): store it raw */
		pos = 0;
		e->buf[pos++] = TDB_PAGES_RAW;
		for (i = 0; i < n; i++, pos += 8)
			put_le64(e->buf + pos, flags[i]);
		for (i = 0; i < n; i++, pos += 8)
			put_le64(e->buf + pos, count ? count[i] : 0);
	}
	*blob = e->buf;
	*len = pos;
	return 0;
}

/*
 * Walk a blob, calling @emit for each run. The dictionary is decoded into a temporary
 * array first (its entries are variable length).
 */
typedef void (*run_fn)(void *arg, uint32_t off, uint32_t len, uint64_t flags, uint64_t count);

static int walk_blob(const uint8_t *blob, size_t len, uint32_t n, run_fn emit, void *arg)
{
	uint64_t ndict, tok, x, *dict = NULL;
	uint32_t done = 0;
	size_t pos = 1, at;
	int ret = 0;

	if (len >= 1 && blob[0] == TDB_PAGES_RAW) {
		uint32_t i, start = 0;

		if (len != 1 + (size_t)n * 16)
			return bc_error(BC_E_FORMAT, "page chunk: raw chunk of %zu bytes, expected "
					"%zu for %u PFNs", len, 1 + (size_t)n * 16, n);
		for (i = 1; i <= n; i++) {
			const uint8_t *f = blob + 1, *c = blob + 1 + (size_t)n * 8;

			if (i < n && get_le64(f + 8 * (size_t)i) == get_le64(f + 8 * (size_t)start) &&
			    get_le64(c + 8 * (size_t)i) == get_le64(c + 8 * (size_t)start))
				continue;
			emit(arg, start, i - start, get_le64(f + 8 * (size_t)start),
			     get_le64(c + 8 * (size_t)start));
			start = i;
		}
		return 0;
	}
	if (len < 1 || blob[0] != TDB_PAGES_FORMAT)
		return bc_error(BC_E_FORMAT, "page chunk: format byte %d at offset 0, expected %d "
				"or %d", len ? blob[0] : -1, TDB_PAGES_FORMAT, TDB_PAGES_RAW);
	if (bc_get_uvarint(blob, len, &pos, &ndict) || ndict < 1 || ndict > n)
		return bc_error(BC_E_FORMAT, "page chunk: bad dictionary size at offset 1");
	dict = malloc(ndict * 2 * sizeof(*dict));
	if (!dict)
		return bc_error(BC_E_NOMEM, "page chunk: out of memory");
	for (x = 0; x < ndict * 2; x++) {
		at = pos;
		if (bc_get_uvarint(blob, len, &pos, &dict[x])) {
			ret = bc_error(BC_E_FORMAT, "page chunk: bad dictionary entry at offset %zu",
				       at);
			goto out;
		}
	}
	while (done < n) {
		uint64_t run = 1;

		at = pos;
		if (bc_get_uvarint(blob, len, &pos, &tok) || (tok >> 1) >= ndict) {
			ret = bc_error(BC_E_FORMAT, "page chunk: bad run at offset %zu (PFN +%u)",
				       at, done);
			goto out;
		}
		if (tok & 1) {
			if (bc_get_uvarint(blob, len, &pos, &x) || x > n) {
				ret = bc_error(BC_E_FORMAT,
					       "page chunk: bad run length at offset %zu", at);
				goto out;
			}
			run = x + 2;
		}
		if (run > n - done) {
			ret = bc_error(BC_E_FORMAT,
				       "page chunk: run at offset %zu overflows the chunk (%u PFNs)",
				       at, n);
			goto out;
		}
		emit(arg, done, (uint32_t)run, dict[(tok >> 1) * 2], dict[(tok >> 1) * 2 + 1]);
		done += (uint32_t)run;
	}
	if (pos != len)
		ret = bc_error(BC_E_FORMAT, "page chunk: %zu trailing bytes at offset %zu",
			       len - pos, pos);
out:
	free(dict);
	return ret;
}

struct arrays {
	uint64_t *flags, *count;
};

static void emit_arrays(void *arg, uint32_t off, uint32_t len, uint64_t f, uint64_t c)
{
	struct arrays *a = arg;
	uint32_t i;

	for (i = off; i < off + len; i++) {
		if (a->flags)
			a->flags[i] = f;
		if (a->count)
			a->count[i] = c;
	}
}

int tdb_pages_decode(const uint8_t *blob, size_t len, uint32_t n, uint64_t *flags,
		     uint64_t *count)
{
	struct arrays a = { flags, count };

	return walk_blob(blob, len, n, emit_arrays, &a);
}

struct runlist {
	struct tdb_page_run *r;
	size_t nr, cap;
	uint64_t base;
	int oom;
};

static void emit_run(void *arg, uint32_t off, uint32_t len, uint64_t f, uint64_t c)
{
	struct runlist *l = arg;
	struct tdb_page_run *last = l->nr ? &l->r[l->nr - 1] : NULL;

	if (l->oom)
		return;
	if (last && last->flags == f && last->count == c) {
		last->npfns += len;
		return;
	}
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		void *p = realloc(l->r, cap * sizeof(*l->r));

		if (!p) {
			l->oom = 1;
			return;
		}
		l->r = p;
		l->cap = cap;
	}
	l->r[l->nr++] = (struct tdb_page_run){ l->base + off, len, f, c };
}

int tdb_pages_runs(const uint8_t *blob, size_t len, uint32_t n, uint64_t base_pfn,
		   struct tdb_page_run **runs, size_t *nr)
{
	struct runlist l = { .base = base_pfn };
	int ret = walk_blob(blob, len, n, emit_run, &l);

	if (!ret && l.oom)
		ret = bc_error(BC_E_NOMEM, "page chunk: out of memory");
	if (ret) {
		free(l.r);
		return ret;
	}
	*runs = l.r;
	*nr = l.nr;
	return 0;
}
