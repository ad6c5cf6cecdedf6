// SPDX-License-Identifier: GPL-2.0
/*
 * Reading snapshots back from a capture: the snapshots rows, the page flags and counts
 * (snapshot_pages, run-length encoded, codec in tdb-pages.c), and the parsed text
 * files (zones, system_ram, the per-zone count tables). Statements are prepared per
 * call: each is run once or twice per replay.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/grow.h"
#include "db/tdb-local.h"
#include "db/tdb-snap.h"

static int prepare(struct tdb *db, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db->sq, sql, -1, st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, "snapshot");
	return 0;
}

int tdb_snap_marker_pages(const char *text, uint64_t *pfn)
{
	const char *p, *sp;
	char *e;

	if (!text || strncmp(text, SNAP_MARKER_PREFIX, sizeof(SNAP_MARKER_PREFIX) - 1))
		return 0;
	p = text + sizeof(SNAP_MARKER_PREFIX) - 1;
	sp = strchr(p, ' ');
	if (!sp || strncmp(sp, " pages ", 7) || sp[7] < '0' || sp[7] > '9')
		return 0;
	errno = 0;
	*pfn = strtoull(sp + 7, &e, 10);
	return !errno && (!*e || *e == '\n' || *e == ' ');
}

int64_t tdb_col_opt(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

void tdb_col_text(sqlite3_stmt *st, int i, char *buf, size_t size)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	snprintf(buf, size, "%s", t ? t : "");
}

/* Store integer @v into the field at @f of @size bytes (see struct tdb_col). */
static void store_int(void *f, size_t size, int64_t v)
{
	int i = (int)v;
	bool b = v != 0;

	if (size == sizeof(v))
		memcpy(f, &v, size);
	else if (size == sizeof(i))
		memcpy(f, &i, size);
	else if (size == sizeof(b))
		memcpy(f, &b, size);
}

static void fill_row(sqlite3_stmt *st, const struct tdb_rows *rows, char *row)
{
	const char *t;
	int i;

	for (i = 0; i < rows->ncols; i++) {
		const struct tdb_col *c = &rows->cols[i];

		switch (c->kind) {
		case TDB_COL_TEXT:
			tdb_col_text(st, i, row + c->off, c->size);
			break;
		case TDB_COL_STRDUP:
			t = (const char *)sqlite3_column_text(st, i);
			*(char **)(row + c->off) = strdup(t ? t : "");
			break;
		case TDB_COL_OPT:
			store_int(row + c->off, c->size, tdb_col_opt(st, i));
			break;
		default:
			store_int(row + c->off, c->size, sqlite3_column_int64(st, i));
		}
	}
}

int tdb_read_rows(struct tdb *db, sqlite3_stmt *st, const struct tdb_rows *rows,
		  const char *what, void **out, int *nr)
{
	size_t size = rows->size;
	void *v = NULL;
	size_t cap = 0;
	int n = 0, rc, ret = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ret = bc_grow(&v, (size_t)n, &cap, size, 16, "snapshot");
		if (ret)
			break;
		memset((char *)v + (size_t)n * size, 0, size);
		fill_row(st, rows, (char *)v + (size_t)n++ * size);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = tdb_sql_error(db, what);
	sqlite3_finalize(st);
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*nr = n;
	return 0;
}

int tdb_query_rows(struct tdb *db, const char *sql, int64_t key, const struct tdb_rows *rows,
		   const char *what, void **out, int *nr)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db->sq, sql, -1, &st, NULL) != SQLITE_OK)
		return tdb_sql_error(db, what);
	if (sqlite3_bind_parameter_count(st))
		sqlite3_bind_int64(st, 1, key);
	return tdb_read_rows(db, st, rows, what, out, nr);
}

#define SNAP_COLUMNS	"SELECT id, label, ts_begin, ts_end, mono_begin, mono_end, seq_begin, " \
			"seq_end, nr_pfns, complete FROM snapshots"

static const struct tdb_col info_cols[] = {
	TDB_COL(INT, struct tdb_snap_info, id),
	TDB_COL(TEXT, struct tdb_snap_info, label),
	TDB_COL(OPT, struct tdb_snap_info, ts_begin),
	TDB_COL(OPT, struct tdb_snap_info, ts_end),
	TDB_COL(OPT, struct tdb_snap_info, mono_begin),
	TDB_COL(OPT, struct tdb_snap_info, mono_end),
	TDB_COL(OPT, struct tdb_snap_info, seq_begin),
	TDB_COL(OPT, struct tdb_snap_info, seq_end),
	TDB_COL(INT, struct tdb_snap_info, nr_pfns),
	TDB_COL(INT, struct tdb_snap_info, complete),
};
static const struct tdb_rows info_rows = TDB_ROWS(struct tdb_snap_info, info_cols);

int tdb_snap_list(struct tdb *db, struct tdb_snap_info **out, int *nr)
{
	return tdb_query_rows(db, SNAP_COLUMNS " ORDER BY id", 0, &info_rows, "snapshots",
			      (void **)out, nr);
}

int tdb_snap_get(struct tdb *db, int64_t snap, struct tdb_snap_info *out)
{
	struct tdb_snap_info *v;
	int n, ret;

	ret = tdb_query_rows(db, SNAP_COLUMNS " WHERE id = ?", snap, &info_rows, "snapshots",
			     (void **)&v, &n);
	if (ret)
		return ret;
	if (n)
		*out = v[0];
	free(v);
	return n ? 0 : bc_error(BC_E_NOENT, "snapshot %" PRId64 ": no such snapshot", snap);
}

static int nr_pfns_of(struct tdb *db, int64_t snap, uint64_t *nr)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = prepare(db, "SELECT nr_pfns, complete FROM snapshots WHERE id = ?", &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, snap);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && !sqlite3_column_int(st, 1))
		ret = bc_error(BC_E_FORMAT, "snapshot %" PRId64 " is incomplete", snap);
	else if (rc == SQLITE_ROW)
		*nr = (uint64_t)sqlite3_column_int64(st, 0);
	else if (rc == SQLITE_DONE)
		ret = bc_error(BC_E_NOENT, "snapshot %" PRId64 ": no such snapshot", snap);
	else
		ret = tdb_sql_error(db, "snapshots");
	sqlite3_finalize(st);
	return ret;
}

/* Rows of @snap overlapping [from, to), in pfn order. */
static int open_rows(struct tdb *db, int64_t snap, uint64_t from, uint64_t to,
		     sqlite3_stmt **st)
{
	int ret = prepare(db, "SELECT pfn, npfns, data FROM snapshot_pages WHERE "
			  "snap = ?1 AND pfn > ?2 - ?4 AND pfn < ?3 AND pfn + npfns > ?2 "
			  "ORDER BY pfn", st);

	if (ret)
		return ret;
	sqlite3_bind_int64(*st, 1, snap);
	sqlite3_bind_int64(*st, 2, (int64_t)from);
	sqlite3_bind_int64(*st, 3, (int64_t)to);
	sqlite3_bind_int64(*st, 4, TDB_PAGE_CHUNK);
	return 0;
}

/* Validate the current row: it must start at @expect and hold 1..TDB_PAGE_CHUNK PFNs. */
static int row_check(sqlite3_stmt *st, int64_t snap, uint64_t expect, uint64_t *pfn,
		     uint32_t *n)
{
	int64_t p = sqlite3_column_int64(st, 0), k = sqlite3_column_int64(st, 1);

	if (k < 1 || k > TDB_PAGE_CHUNK || p < 0 || (uint64_t)p > expect ||
	    (uint64_t)(p + k) <= expect)
		return bc_error(BC_E_FORMAT, "snapshot %" PRId64 ": no page row covers PFN %"
				PRIu64 " (row at %" PRId64 ", %" PRId64 " PFNs)", snap, expect, p,
				k);
	*pfn = (uint64_t)p;
	*n = (uint32_t)k;
	return 0;
}

int tdb_snap_pages_read(struct tdb *db, int64_t snap, uint64_t pfn_from, uint64_t n,
		    uint64_t *flags, uint64_t *count)
{
	uint64_t nr, at = pfn_from, end = pfn_from + n, *tf = NULL, *tc = NULL;
	sqlite3_stmt *st = NULL;
	int ret, rc;

	ret = nr_pfns_of(db, snap, &nr);
	if (ret)
		return ret;
	if (end < pfn_from || end > nr)
		return bc_error(BC_E_INVAL, "snapshot %" PRId64 ": PFNs [%" PRIu64 ", %" PRIu64
				") beyond its %" PRIu64 " PFNs", snap, pfn_from, end, nr);
	if (!n)
		return 0;
	tf = malloc(TDB_PAGE_CHUNK * sizeof(*tf));
	tc = malloc(TDB_PAGE_CHUNK * sizeof(*tc));
	if (!tf || !tc) {
		ret = bc_error(BC_E_NOMEM, "snapshot pages: out of memory");
		goto out;
	}
	ret = open_rows(db, snap, pfn_from, end, &st);
	while (!ret && at < end && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t base, take;
		uint32_t k;

		ret = row_check(st, snap, at, &base, &k);
		if (ret)
			break;
		ret = tdb_pages_decode(sqlite3_column_blob(st, 2), sqlite3_column_bytes(st, 2), k,
				       tf, tc);
		if (ret) {
			bc_error_prefix(ret, "snapshot %" PRId64 " row %" PRIu64, snap, base);
			break;
		}
		take = base + k - at;
		if (take > end - at)
			take = end - at;
		if (flags)
			memcpy(flags + (at - pfn_from), tf + (at - base), take * sizeof(*tf));
		if (count)
			memcpy(count + (at - pfn_from), tc + (at - base), take * sizeof(*tc));
		at += take;
	}
	if (!ret && at < end)
		ret = bc_error(BC_E_FORMAT, "snapshot %" PRId64 ": no page row covers PFN %" PRIu64,
			       snap, at);
out:
	sqlite3_finalize(st);
	free(tf);
	free(tc);
	return ret;
}

struct tdb_snap_runs {
	struct tdb *db;
	sqlite3_stmt *st;
	int64_t snap;
	uint64_t at, to;		/* next PFN expected, end of range */
	struct tdb_page_run *runs;	/* of the current row */
	size_t nr, i;
	struct tdb_page_run pending;
	bool have_pending, done;
};

int tdb_snap_runs_open(struct tdb *db, int64_t snap, uint64_t pfn_from, uint64_t pfn_to,
		   struct tdb_snap_runs **out)
{
	struct tdb_snap_runs *it;
	uint64_t nr;
	int ret;

	ret = nr_pfns_of(db, snap, &nr);
	if (ret)
		return ret;
	if (pfn_to > nr)
		pfn_to = nr;
	it = calloc(1, sizeof(*it));
	if (!it)
		return bc_error(BC_E_NOMEM, "snapshot runs: out of memory");
	it->db = db;
	it->snap = snap;
	it->at = pfn_from;
	it->to = pfn_to;
	it->done = pfn_from >= pfn_to;
	if (!it->done) {
		ret = open_rows(db, snap, pfn_from, pfn_to, &it->st);
		if (ret) {
			free(it);
			return ret;
		}
	}
	*out = it;
	return 0;
}

/* Next run of the rows, clipped to the range: 1, 0 at the end, or a negative bc_err. */
static int raw_next(struct tdb_snap_runs *it, struct tdb_page_run *r)
{
	if (it->at >= it->to)
		return 0;
	while (it->i == it->nr) {
		uint64_t base;
		uint32_t k;
		int rc, ret;

		rc = sqlite3_step(it->st);
		if (rc == SQLITE_DONE)
			return bc_error(BC_E_FORMAT, "snapshot %" PRId64 ": no page row covers PFN %"
					PRIu64, it->snap, it->at);
		if (rc != SQLITE_ROW)
			return tdb_sql_error(it->db, "snapshot_pages");
		ret = row_check(it->st, it->snap, it->at, &base, &k);
		if (ret)
			return ret;
		free(it->runs);
		it->runs = NULL;
		it->nr = it->i = 0;
		ret = tdb_pages_runs(sqlite3_column_blob(it->st, 2), sqlite3_column_bytes(it->st, 2),
				     k, base, &it->runs, &it->nr);
		if (ret)
			return bc_error_prefix(ret, "snapshot %" PRId64 " row %" PRIu64, it->snap,
					       base);
	}
	*r = it->runs[it->i++];
	if (r->pfn + r->npfns <= it->at)
		return raw_next(it, r);		/* before the range (first row only) */
	if (r->pfn < it->at) {
		r->npfns -= it->at - r->pfn;
		r->pfn = it->at;
	}
	if (r->pfn + r->npfns > it->to)
		r->npfns = it->to - r->pfn;
	it->at = r->pfn + r->npfns;
	return 1;
}

int tdb_snap_runs_next(struct tdb_snap_runs *it, struct tdb_page_run *run)
{
	struct tdb_page_run r;
	int ret;

	while (!it->done) {
		ret = raw_next(it, &r);
		if (ret < 0)
			return ret;
		if (!ret) {
			it->done = true;
			break;
		}
		if (it->have_pending && it->pending.flags == r.flags &&
		    it->pending.count == r.count) {
			it->pending.npfns += r.npfns;
			continue;
		}
		if (it->have_pending) {
			*run = it->pending;
			it->pending = r;
			return 1;
		}
		it->pending = r;
		it->have_pending = true;
	}
	if (it->have_pending) {
		*run = it->pending;
		it->have_pending = false;
		return 1;
	}
	return 0;
}

void tdb_snap_runs_close(struct tdb_snap_runs *it)
{
	if (!it)
		return;
	sqlite3_finalize(it->st);
	free(it->runs);
	free(it);
}


/* ---- the parsed text files ---- */

static const struct tdb_col zone_cols[] = {
	TDB_COL(INT, struct tdb_zone, node),
	TDB_COL(TEXT, struct tdb_zone, name),
	TDB_COL(INT, struct tdb_zone, start_pfn),
	TDB_COL(INT, struct tdb_zone, spanned),
	TDB_COL(INT, struct tdb_zone, present),
	TDB_COL(INT, struct tdb_zone, managed),
	TDB_COL(INT, struct tdb_zone, free),
};
static const struct tdb_rows zone_rows = TDB_ROWS(struct tdb_zone, zone_cols);

int tdb_snap_zones(struct tdb *db, int64_t snap, struct tdb_zone **out, int *nr)
{
	return tdb_query_rows(db, "SELECT node, zone, start_pfn, spanned, present, managed, "
			      "free FROM zones WHERE snap = ? AND spanned > 0 ORDER BY start_pfn",
			      snap, &zone_rows, "zones", (void **)out, nr);
}

static const struct tdb_col ram_cols[] = {
	TDB_COL(INT, struct tdb_ram, start),
	TDB_COL(INT, struct tdb_ram, end),
};
static const struct tdb_rows ram_rows = TDB_ROWS(struct tdb_ram, ram_cols);

int tdb_snap_ram(struct tdb *db, int64_t snap, struct tdb_ram **out, int *nr)
{
	return tdb_query_rows(db, "SELECT start_pfn, end_pfn FROM system_ram WHERE snap = ? "
			      "ORDER BY start_pfn", snap, &ram_rows, "system_ram", (void **)out, nr);
}

/* One value of @sql (?1 = @key when it has a parameter); @dflt for no row or NULL. */
static int scalar(struct tdb *db, const char *sql, int64_t key, int64_t dflt, int64_t *v)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = prepare(db, sql, &st);
	if (ret)
		return ret;
	if (sqlite3_bind_parameter_count(st))
		sqlite3_bind_int64(st, 1, key);
	*v = dflt;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*v = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = tdb_sql_error(db, sql);
	sqlite3_finalize(st);
	return ret;
}

int tdb_snap_first_zoned(struct tdb *db, int64_t *snap)
{
	return scalar(db, "SELECT min(snap) FROM zones", 0, -1, snap);
}

/* one literal: clang warns about a concatenation among array elements */
#define SQL_HUGETLB_KB "SELECT sum(DISTINCT size_kb) FROM hugepages WHERE snap = ? " \
		       "AND size_kb > 0 AND (size_kb & (size_kb - 1)) = 0"

int tdb_snap_figure(struct tdb *db, int64_t snap, enum tdb_snap_figure f, int64_t dflt,
		    int64_t *v)
{
	static const char *const sql[] = {
		[TDB_SNAP_MEMORY_BLOCK_PAGES] = "SELECT max(nr_pfns) FROM memory_blocks WHERE snap = ?",
		[TDB_SNAP_MAX_ORDER] = "SELECT max(ord) FROM buddyinfo WHERE snap = ?",
		[TDB_SNAP_NR_CPUS] = "SELECT max(cpu) + 1 FROM zone_pcp WHERE snap = ?",
		/* distinct powers of two: their sum is their OR */
		[TDB_SNAP_HUGETLB_KB] = SQL_HUGETLB_KB,
	};

	if ((unsigned int)f >= sizeof(sql) / sizeof(sql[0]))
		return bc_error(BC_E_INVAL, "snapshot: no figure %d", (int)f);
	return scalar(db, sql[f], snap, dflt, v);
}

int tdb_snap_file(struct tdb *db, int64_t snap, const char *name, char **content)
{
	sqlite3_stmt *st;
	int rc, ret;

	*content = NULL;
	ret = prepare(db, "SELECT content FROM snapshot_files WHERE snap = ? AND name = ?", &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, snap);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		*content = strdup((const char *)sqlite3_column_text(st, 0));
		if (!*content)
			ret = bc_error(BC_E_NOMEM, "snapshot: out of memory");
	} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		ret = tdb_sql_error(db, "snapshot_files");
	}
	sqlite3_finalize(st);
	return ret;
}

/* One field of a longterm_pins line: a decimal (@base 10) or 0x-hex number, or "-". */
static int pins_field(const char **p, int base, uint64_t max, uint64_t *v, bool *dash)
{
	const char *s = *p;
	uint64_t x = 0;
	int digits = 0;

	*dash = false;
	if (*s == '-' && (s[1] == ' ' || s[1] == '\n' || !s[1])) {
		*dash = true;
		*p = s + 1;
		return 0;
	}
	if (base == 16) {
		if (s[0] != '0' || s[1] != 'x')
			return -1;
		s += 2;
	}
	for (;; s++, digits++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else
			break;
		if (x > (max - d) / base)
			return -1;
		x = x * base + d;
	}
	if (!digits || digits > 20)
		return -1;
	*v = x;
	*p = s;
	return 0;
}

static int cmp_pin_run(const void *a, const void *b)
{
	const struct tdb_pin_run *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

int tdb_pins_parse(const char *text, struct tdb_pins *out)
{
	const char *p = text;
	int line = 0, cap = 0;

	memset(out, 0, sizeof(*out));
	while (*p) {
		uint64_t v[6];
		bool dash[6];
		int i;

		line++;
		if (strncmp(p, "io_uring ", 9))
			goto bad;
		p += 9;
		for (i = 0; i < 6; i++) {
			static const int base[6] = { 10, 10, 10, 16, 10, 10 };
			static const uint64_t max[6] = { INT32_MAX, INT32_MAX, UINT32_MAX,
							 UINT64_MAX, 1ull << 52, 1ull << 52 };

			if (i && *p++ != ' ')
				goto bad;
			if (pins_field(&p, base[i], max[i], &v[i], &dash[i]))
				goto bad;
		}
		if (*p != '\n' || dash[0] || dash[1] || dash[5] || !v[5])
			goto bad;
		p++;
		if (dash[2]) {			/* a ring whose buffers were not listed */
			if (!dash[3] || !dash[4])
				goto bad;
			out->unlisted_bufs += v[5];
			continue;
		}
		if (dash[3])
			goto bad;
		if (dash[4]) {			/* not mapped: the pinned pfns are unknown */
			out->unknown_pages += v[5];
			continue;
		}
		if (v[4] + v[5] > 1ull << 52)
			goto bad;
		if (out->nr == cap) {
			struct tdb_pin_run *g;

			cap = cap ? 2 * cap : 64;
			g = realloc(out->runs, (size_t)cap * sizeof(*g));
			if (!g) {
				tdb_pins_free(out);
				return bc_error(BC_E_NOMEM, "longterm_pins: out of memory");
			}
			out->runs = g;
		}
		out->runs[out->nr++] = (struct tdb_pin_run){
			.pfn = v[4], .nr = v[5], .pid = (int)v[0], .fd = (int)v[1],
			.buf = (unsigned int)v[2],
		};
	}
	if (out->nr)
		qsort(out->runs, out->nr, sizeof(*out->runs), cmp_pin_run);
	return 0;
bad:
	tdb_pins_free(out);
	return bc_error(BC_E_FORMAT, "line %d: expected \"io_uring PID FD BUF 0xVADDR PFN "
			"NR_PAGES\" (BUF VADDR PFN all \"-\": a ring not listed; PFN \"-\": "
			"not mapped)", line);
}

void tdb_pins_free(struct tdb_pins *p)
{
	free(p->runs);
	memset(p, 0, sizeof(*p));
}

int tdb_snap_pins(struct tdb *db, int64_t snap, struct tdb_pins *out)
{
	char *text;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = tdb_snap_file(db, snap, "longterm_pins", &text);
	if (ret)
		return ret;
	if (!text)
		return -BC_E_NOENT;
	ret = tdb_pins_parse(text, out);
	free(text);
	if (ret)
		bc_error_prefix(ret, "snapshot %" PRId64 ": longterm_pins", snap);
	return ret;
}

static const struct tdb_col count_cols[] = {
	TDB_COL(INT, struct tdb_zone_count, node),
	TDB_COL(TEXT, struct tdb_zone_count, zone),
	TDB_COL(INT, struct tdb_zone_count, ord),
	TDB_COL(INT, struct tdb_zone_count, nr),
	TDB_COL(TEXT, struct tdb_zone_count, migratetype),
};
static const struct tdb_rows count_rows = TDB_ROWS(struct tdb_zone_count, count_cols);

int tdb_snap_zone_counts(struct tdb *db, int64_t snap, enum tdb_zone_table t,
			 struct tdb_zone_count **out, int *nr)
{
	static const char *const sql[] = {
		[TDB_BUDDYINFO] = "SELECT node, zone, ord, nr_free, '' FROM buddyinfo WHERE snap = ?",
		[TDB_PAGETYPE_FREE] = "SELECT node, zone, ord, nr_free, migratetype FROM pagetype_free "
				      "WHERE snap = ?",
		[TDB_PAGETYPE_BLOCKS] = "SELECT node, zone, -1, nr_blocks, migratetype FROM "
					"pagetype_blocks WHERE snap = ?",
	};
	if ((unsigned int)t >= sizeof(sql) / sizeof(sql[0]))
		return bc_error(BC_E_INVAL, "snapshot: no table %d", (int)t);
	return tdb_query_rows(db, sql[t], snap, &count_rows, "zone counts", (void **)out, nr);
}
