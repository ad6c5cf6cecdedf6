// SPDX-License-Identifier: GPL-2.0
/*
 * The 'page_runs' virtual table: snapshot_pages rows decoded into one row per run,
 *   page_runs(snap, pfn, npfns, flags, count)
 * meaning PFNs [pfn, pfn + npfns) of snapshot snap all read flags in kpageflags and
 * count in kpagecount. Runs are split at the 65536-PFN chunk boundaries of the storage,
 * so the rows are the same whatever the query's constraints. Constraints on snap and
 * pfn skip rows of snapshot_pages; SQLite re-checks every row, so they only speed up.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-local.h"
#include "db/tdb-pages.h"

enum { PR_SNAP, PR_PFN, PR_NPFNS, PR_FLAGS, PR_COUNT };

/* idxNum bits: which bounds were passed, in this argv order */
enum { B_SNAP = 1, B_LO = 2, B_HI = 4, B_EQ = 8 };	/* B_EQ: the B_LO bound is pfn = */

struct pr_vtab {
	sqlite3_vtab base;
	sqlite3 *sq;
};

struct pr_cursor {
	sqlite3_vtab_cursor base;
	sqlite3_stmt *st;		/* rows of snapshot_pages */
	int64_t snap;
	struct tdb_page_run *runs;
	size_t nr, i;
	bool eof;
};

static int pr_connect(sqlite3 *sq, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **err)
{
	struct pr_vtab *vt;

	if (sqlite3_declare_vtab(sq, "CREATE TABLE x(snap INTEGER, pfn INTEGER, npfns INTEGER, "
				 "flags INTEGER, count INTEGER)") != SQLITE_OK)
		return SQLITE_ERROR;
	vt = tdb_vtab_zalloc(sizeof(*vt));
	if (!vt)
		return SQLITE_NOMEM;
	vt->sq = aux;
	*out = &vt->base;
	return SQLITE_OK;
}

static int pr_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int pr_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	int i, idx = 0, argn = 0, use[3] = { -1, -1, -1 };

	for (i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (!c->usable)
			continue;
		if (c->iColumn == PR_SNAP && c->op == SQLITE_INDEX_CONSTRAINT_EQ)
			use[0] = i;
		else if (c->iColumn == PR_PFN && (c->op == SQLITE_INDEX_CONSTRAINT_GE ||
						  c->op == SQLITE_INDEX_CONSTRAINT_GT ||
						  c->op == SQLITE_INDEX_CONSTRAINT_EQ))
			use[1] = i;
		else if (c->iColumn == PR_PFN && (c->op == SQLITE_INDEX_CONSTRAINT_LE ||
						  c->op == SQLITE_INDEX_CONSTRAINT_LT))
			use[2] = i;
	}
	for (i = 0; i < 3; i++) {
		if (use[i] < 0)
			continue;
		idx |= 1 << i;
		info->aConstraintUsage[use[i]].argvIndex = ++argn;
		/* snap = is exact; pfn bounds are widened below, so SQLite re-checks */
		info->aConstraintUsage[use[i]].omit = i == 0;
	}
	if (use[1] >= 0 && info->aConstraint[use[1]].op == SQLITE_INDEX_CONSTRAINT_EQ)
		idx |= B_EQ;
	info->idxNum = idx;
	info->estimatedCost = idx & B_SNAP ? (idx & (B_LO | B_HI) ? 10 : 1000) : 100000;
	/* rows come in (snap, pfn) order */
	if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == PR_PFN &&
	    !info->aOrderBy[0].desc && (idx & B_SNAP))
		info->orderByConsumed = 1;
	if (info->nOrderBy == 2 && info->aOrderBy[0].iColumn == PR_SNAP &&
	    info->aOrderBy[1].iColumn == PR_PFN && !info->aOrderBy[0].desc &&
	    !info->aOrderBy[1].desc)
		info->orderByConsumed = 1;
	return SQLITE_OK;
}

static int pr_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	return tdb_vtab_open(sizeof(struct pr_cursor), out);
}

static int pr_close(sqlite3_vtab_cursor *cur)
{
	struct pr_cursor *c = (struct pr_cursor *)cur;

	sqlite3_finalize(c->st);
	free(c->runs);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Decode the next snapshot_pages row into c->runs; eof when none is left. */
static int pr_load_row(struct pr_cursor *c)
{
	int rc, ret;

	free(c->runs);
	c->runs = NULL;
	c->nr = c->i = 0;
	while (!c->nr) {
		rc = sqlite3_step(c->st);
		if (rc == SQLITE_DONE) {
			c->eof = true;
			return SQLITE_OK;
		}
		if (rc != SQLITE_ROW)
			return rc;
		c->snap = sqlite3_column_int64(c->st, 0);
		ret = tdb_pages_runs(sqlite3_column_blob(c->st, 3), sqlite3_column_bytes(c->st, 3),
				     (uint32_t)sqlite3_column_int64(c->st, 2),
				     (uint64_t)sqlite3_column_int64(c->st, 1), &c->runs, &c->nr);
		if (ret) {
			sqlite3_free(c->base.pVtab->zErrMsg);
			c->base.pVtab->zErrMsg = sqlite3_mprintf("page_runs: snapshot %lld row %lld: "
								 "%s", (long long)c->snap,
								 (long long)sqlite3_column_int64(c->st, 1),
								 bc_errmsg());
			return SQLITE_CORRUPT;
		}
	}
	return SQLITE_OK;
}

static int pr_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
		     sqlite3_value **argv)
{
	struct pr_cursor *c = (struct pr_cursor *)cur;
	struct pr_vtab *vt = (struct pr_vtab *)cur->pVtab;
	/* a row holds at most TDB_PAGE_CHUNK PFNs: rows starting that far below lo can
	 * not hold a run starting at or after lo */
	int64_t lo = INT64_MIN / 2, hi = INT64_MAX / 2;
	int a = 0, rc;

	sqlite3_finalize(c->st);
	c->st = NULL;
	free(c->runs);
	c->runs = NULL;
	c->nr = c->i = 0;
	c->eof = false;
	rc = sqlite3_prepare_v2(vt->sq, idx & B_SNAP ?
				"SELECT snap, pfn, npfns, data FROM snapshot_pages WHERE snap = ?1 "
				"AND pfn > ?2 - 65536 AND pfn <= ?3 ORDER BY snap, pfn" :
				"SELECT snap, pfn, npfns, data FROM snapshot_pages WHERE "
				"pfn > ?2 - 65536 AND pfn <= ?3 ORDER BY snap, pfn", -1, &c->st,
				NULL);
	if (rc != SQLITE_OK)
		return rc;
	if (idx & B_SNAP)
		sqlite3_bind_value(c->st, 1, argv[a++]);
	if (idx & B_LO)
		lo = sqlite3_value_int64(argv[a++]);
	if (idx & B_HI)
		hi = sqlite3_value_int64(argv[a++]);
	if ((idx & B_EQ) && lo < hi)
		hi = lo;
	sqlite3_bind_int64(c->st, 2, lo);
	sqlite3_bind_int64(c->st, 3, hi);
	return pr_load_row(c);
}

static int pr_next(sqlite3_vtab_cursor *cur)
{
	struct pr_cursor *c = (struct pr_cursor *)cur;

	if (++c->i < c->nr)
		return SQLITE_OK;
	return pr_load_row(c);
}

static int pr_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct pr_cursor *)cur)->eof;
}

static int pr_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct pr_cursor *c = (struct pr_cursor *)cur;
	const struct tdb_page_run *r = &c->runs[c->i];

	switch (col) {
	case PR_SNAP: sqlite3_result_int64(ctx, c->snap); break;
	case PR_PFN: sqlite3_result_int64(ctx, (int64_t)r->pfn); break;
	case PR_NPFNS: sqlite3_result_int64(ctx, (int64_t)r->npfns); break;
	case PR_FLAGS: sqlite3_result_int64(ctx, (int64_t)r->flags); break;
	default: sqlite3_result_int64(ctx, (int64_t)r->count); break;
	}
	return SQLITE_OK;
}

static int pr_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct pr_cursor *c = (struct pr_cursor *)cur;

	*rowid = (c->snap << 40) | (int64_t)c->runs[c->i].pfn;
	return SQLITE_OK;
}

static const sqlite3_module page_runs_module = {
	.iVersion = 0,
	.xCreate = NULL,		/* eponymous only: SELECT ... FROM page_runs */
	.xConnect = pr_connect,
	.xBestIndex = pr_best_index,
	.xDisconnect = pr_disconnect,
	.xDestroy = pr_disconnect,
	.xOpen = pr_open,
	.xClose = pr_close,
	.xFilter = pr_filter,
	.xNext = pr_next,
	.xEof = pr_eof,
	.xColumn = pr_column,
	.xRowid = pr_rowid,
};

int tdb_pages_register_vtab(sqlite3 *sq)
{
	if (sqlite3_create_module(sq, "page_runs", &page_runs_module, sq) != SQLITE_OK)
		return bc_error(BC_E_DB, "page_runs module: %s", sqlite3_errmsg(sq));
	return 0;
}
