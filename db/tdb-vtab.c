// SPDX-License-Identifier: GPL-2.0
/*
 * The 'events' virtual table: packed event chunks shown as one row per event, so users
 * can query captures with plain SQL ('bigchunk query'). Constraints on seq, ts and pfn
 * skip whole chunks by their stored bounds; SQLite re-checks every row, so a bound is
 * only ever an optimisation. Per-event views (e.g. mm_page_alloc) name the fields.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-local.h"
#include "db/tdb-pages.h"

enum ev_col {
	COL_SEQ, COL_TS, COL_CPU, COL_PID, COL_TYPE, COL_EVENT, COL_PFN, COL_ORDER, COL_MT,
	COL_GFP, COL_FIELDS, COL_F0,
	/* COL_F0 + i for i < TDB_MAX_FIELDS */
};

#define NR_BOUND_COLS 3		/* seq, ts, pfn: the chunk has bounds for these */

struct ev_vtab {
	sqlite3_vtab base;
	struct tdb *db;
	int *idx_pfn, *idx_order, *idx_mt, *idx_gfp;	/* per type id, -1 = none */
};

struct ev_cursor {
	sqlite3_vtab_cursor base;
	struct tdb_cursor *cur;
	struct bc_event ev;
	bool eof;
	int64_t lo[NR_BOUND_COLS], hi[NR_BOUND_COLS];
};

static int ev_connect(sqlite3 *sq, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **err)
{
	struct tdb *db = aux;
	struct ev_vtab *vt;
	char sql[1024];
	int n, i;

	n = snprintf(sql, sizeof(sql), "CREATE TABLE x(seq INTEGER, ts INTEGER, cpu INTEGER, "
		     "pid INTEGER, type INTEGER, event TEXT, pfn INTEGER, \"order\" INTEGER, "
		     "migratetype INTEGER, gfp_flags INTEGER, fields TEXT");
	for (i = 0; i < TDB_MAX_FIELDS; i++)
		n += snprintf(sql + n, sizeof(sql) - n, ", f%d INTEGER HIDDEN", i);
	snprintf(sql + n, sizeof(sql) - n, ")");
	if (sqlite3_declare_vtab(sq, sql) != SQLITE_OK)
		return SQLITE_ERROR;
	vt = tdb_vtab_zalloc(sizeof(*vt));
	if (!vt)
		return SQLITE_NOMEM;
	vt->db = db;
	vt->idx_pfn = calloc(db->types_nr + 1, sizeof(int));
	vt->idx_order = calloc(db->types_nr + 1, sizeof(int));
	vt->idx_mt = calloc(db->types_nr + 1, sizeof(int));
	vt->idx_gfp = calloc(db->types_nr + 1, sizeof(int));
	if (!vt->idx_pfn || !vt->idx_order || !vt->idx_mt || !vt->idx_gfp) {
		*err = sqlite3_mprintf("out of memory");
		return SQLITE_NOMEM;
	}
	for (i = 0; i < db->types_nr; i++) {
		vt->idx_pfn[i] = tdb_field_index(db, i, "pfn");
		vt->idx_order[i] = tdb_field_index(db, i, "order");
		vt->idx_mt[i] = tdb_field_index(db, i, "migratetype");
		vt->idx_gfp[i] = tdb_field_index(db, i, "gfp_flags");
	}
	*out = &vt->base;
	return SQLITE_OK;
}

static int ev_disconnect(sqlite3_vtab *base)
{
	struct ev_vtab *vt = (struct ev_vtab *)base;

	free(vt->idx_pfn);
	free(vt->idx_order);
	free(vt->idx_mt);
	free(vt->idx_gfp);
	sqlite3_free(vt);
	return SQLITE_OK;
}

/*
 * idxNum encodes, per bound column (seq=0, ts=1, pfn=2), two bits: 1 = lower bound
 * (>, >=, =), 2 = upper bound (<, <=, =). Arguments come in that order.
 */
/* idxNum: per bound column b, bit 2b a lower bound, 2b+1 an upper one, EQ_BIT an equality. */
#define EQ_BIT(b)	(1 << (2 * NR_BOUND_COLS + (b)))

static int ev_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	static const int cols[NR_BOUND_COLS] = { COL_SEQ, COL_TS, COL_PFN };
	int i, b, argv = 0, mask = 0;

	(void)base;
	/*
	 * Per column: an equality, or a lower and/or an upper bound. xFilter reads their
	 * values in this order (column by column; lower before upper), whatever order
	 * the constraints come in. GT/LT are taken as GE/LE: SQLite re-checks every
	 * constraint (omit stays 0), the bound only narrows the chunks read.
	 */
	for (b = 0; b < NR_BOUND_COLS; b++) {
		int use[3] = { -1, -1, -1 };	/* lo, hi, eq */

		for (i = 0; i < info->nConstraint; i++) {
			const struct sqlite3_index_constraint *c = &info->aConstraint[i];

			if (!c->usable || c->iColumn != cols[b])
				continue;
			switch (c->op) {
			case SQLITE_INDEX_CONSTRAINT_GT:
			case SQLITE_INDEX_CONSTRAINT_GE:
				if (use[0] < 0)
					use[0] = i;
				break;
			case SQLITE_INDEX_CONSTRAINT_LT:
			case SQLITE_INDEX_CONSTRAINT_LE:
				if (use[1] < 0)
					use[1] = i;
				break;
			case SQLITE_INDEX_CONSTRAINT_EQ:
				if (use[2] < 0)
					use[2] = i;
				break;
			default:
				break;
			}
		}
		if (use[2] >= 0) {
			mask |= EQ_BIT(b);
			info->aConstraintUsage[use[2]].argvIndex = ++argv;
			continue;
		}
		if (use[0] >= 0) {
			mask |= 1 << (2 * b);
			info->aConstraintUsage[use[0]].argvIndex = ++argv;
		}
		if (use[1] >= 0) {
			mask |= 2 << (2 * b);
			info->aConstraintUsage[use[1]].argvIndex = ++argv;
		}
	}
	info->idxNum = mask;
	info->estimatedCost = mask ? 1e5 : 1e7;
	if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == COL_SEQ &&
	    !info->aOrderBy[0].desc)
		info->orderByConsumed = 1;
	return SQLITE_OK;
}

static int ev_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
	return tdb_vtab_open(sizeof(struct ev_cursor), out);
}

static int ev_close(sqlite3_vtab_cursor *base)
{
	struct ev_cursor *c = (struct ev_cursor *)base;

	tdb_cursor_close(c->cur);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int ev_error(struct ev_cursor *c)
{
	sqlite3_free(c->base.pVtab->zErrMsg);
	c->base.pVtab->zErrMsg = sqlite3_mprintf("%s", bc_errmsg());
	return SQLITE_CORRUPT;
}

/* Does the current event pass the pfn/ts bounds? (Chunk bounds only pre-filter.) */
static int ev_fetch(struct ev_cursor *c)
{
	int ret = tdb_cursor_next(c->cur, &c->ev);

	if (ret < 0)
		return ev_error(c);
	c->eof = ret == 0;
	return SQLITE_OK;
}

/*
 * A bound from a constraint's value, rounded outwards (floor; SQLite re-checks). Text,
 * blobs and NULL compare in SQLite's own way: such a constraint does not narrow.
 */
static void bound_of(sqlite3_value *v, int64_t *out, int64_t none)
{
	double d;

	switch (sqlite3_value_numeric_type(v)) {
	case SQLITE_INTEGER:
		*out = sqlite3_value_int64(v);
		return;
	case SQLITE_FLOAT:
		d = floor(sqlite3_value_double(v));
		*out = d <= -9.2e18 ? INT64_MIN : d >= 9.2e18 ? INT64_MAX : (int64_t)d;
		return;
	default:
		*out = none;
	}
}

static int ev_filter(sqlite3_vtab_cursor *base, int idxnum, const char *idxstr, int argc,
		     sqlite3_value **argv)
{
	struct ev_cursor *c = (struct ev_cursor *)base;
	struct ev_vtab *vt = (struct ev_vtab *)base->pVtab;
	int b, a = 0, ret;
	uint64_t from = 0, to = UINT64_MAX;

	for (b = 0; b < NR_BOUND_COLS; b++) {
		int m = (idxnum >> (2 * b)) & 3;

		c->lo[b] = INT64_MIN;
		c->hi[b] = INT64_MAX;
		if (idxnum & EQ_BIT(b)) {
			bound_of(argv[a], &c->lo[b], INT64_MIN);
			bound_of(argv[a++], &c->hi[b], INT64_MAX);
			continue;
		}
		if (m & 1)
			bound_of(argv[a++], &c->lo[b], INT64_MIN);
		if (m & 2)
			bound_of(argv[a++], &c->hi[b], INT64_MAX);
	}
	(void)argc;
	if (c->lo[0] > 0)
		from = (uint64_t)c->lo[0];
	if (c->hi[0] < 0)
		to = 0;
	else if (c->hi[0] < INT64_MAX)
		to = (uint64_t)c->hi[0] + 1;
	tdb_cursor_close(c->cur);
	c->cur = NULL;
	ret = tdb_cursor_open(vt->db, from, to, &c->cur);
	if (ret)
		return ev_error(c);
	return ev_fetch(c);
}

static int ev_next(sqlite3_vtab_cursor *base)
{
	return ev_fetch((struct ev_cursor *)base);
}

static int ev_eof(sqlite3_vtab_cursor *base)
{
	return ((struct ev_cursor *)base)->eof;
}

static void result_field(sqlite3_context *ctx, const struct bc_event *ev, int idx)
{
	if (idx >= 0 && idx < ev->nfields)
		sqlite3_result_int64(ctx, ev->field[idx]);
	else
		sqlite3_result_null(ctx);
}

static int ev_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col)
{
	struct ev_cursor *c = (struct ev_cursor *)base;
	struct ev_vtab *vt = (struct ev_vtab *)base->pVtab;
	const struct bc_event *ev = &c->ev;
	struct tdb_event_type *t = ev->type < vt->db->types_nr ? vt->db->types[ev->type] : NULL;

	switch (col) {
	case COL_SEQ: sqlite3_result_int64(ctx, (int64_t)ev->seq); break;
	case COL_TS: sqlite3_result_int64(ctx, (int64_t)ev->ts); break;
	case COL_CPU: sqlite3_result_int(ctx, ev->cpu); break;
	case COL_PID: sqlite3_result_int(ctx, ev->pid); break;
	case COL_TYPE: sqlite3_result_int(ctx, ev->type); break;
	case COL_EVENT:
		if (t) {
			char *s = sqlite3_mprintf("%s:%s", t->system, t->name);

			sqlite3_result_text(ctx, s, -1, sqlite3_free);
		}
		break;
	case COL_PFN: result_field(ctx, ev, vt->idx_pfn[ev->type]); break;
	case COL_ORDER: result_field(ctx, ev, vt->idx_order[ev->type]); break;
	case COL_MT: result_field(ctx, ev, vt->idx_mt[ev->type]); break;
	case COL_GFP: result_field(ctx, ev, vt->idx_gfp[ev->type]); break;
	case COL_FIELDS: {
		char buf[TDB_MAX_FIELDS * 48 + 4];
		int n = 0, i;

		buf[n++] = '{';
		for (i = 0; t && i < ev->nfields && i < t->nfields; i++)
			n += snprintf(buf + n, sizeof(buf) - n, "%s\"%s\":%lld", i ? "," : "",
				      t->field_names[i] ? t->field_names[i] : "?",
				      (long long)ev->field[i]);
		snprintf(buf + n, sizeof(buf) - n, "}");
		sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
		break;
	}
	default:
		result_field(ctx, ev, col - COL_F0);
		break;
	}
	return SQLITE_OK;
}

static int ev_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct ev_cursor *)base)->ev.seq;
	return SQLITE_OK;
}

static const sqlite3_module events_module = {
	.iVersion = 0,
	.xCreate = NULL,		/* eponymous-only: 'events' exists in every schema */
	.xConnect = ev_connect,
	.xBestIndex = ev_best_index,
	.xDisconnect = ev_disconnect,
	.xDestroy = ev_disconnect,
	.xOpen = ev_open,
	.xClose = ev_close,
	.xFilter = ev_filter,
	.xNext = ev_next,
	.xEof = ev_eof,
	.xColumn = ev_column,
	.xRowid = ev_rowid,
};

/* A TEMP view per stored event type, named after the event, with its field names. */
static int create_views(struct tdb *db)
{
	int i, j, ret;

	for (i = 0; i < db->types_nr; i++) {
		struct tdb_event_type *t = db->types[i];
		char *sql, *cols = sqlite3_mprintf("seq, ts, cpu, pid");

		if (!t || t->missing || !strcmp(t->name, "*")) {
			sqlite3_free(cols);
			continue;
		}
		for (j = 0; j < t->nfields && cols; j++) {
			char *n = sqlite3_mprintf("%s, f%d AS \"%w\"", cols, j, t->field_names[j]);

			sqlite3_free(cols);
			cols = n;
		}
		sql = sqlite3_mprintf("CREATE TEMP VIEW IF NOT EXISTS \"%w\" AS SELECT %s "
				      "FROM events WHERE type = %d", t->name, cols, t->id);
		sqlite3_free(cols);
		if (!sql)
			return bc_error(BC_E_NOMEM, "out of memory");
		ret = tdb_exec(db, sql);
		sqlite3_free(sql);
		if (ret)
			return ret;
	}
	return 0;
}

int tdb_register_vtabs(struct tdb *db)
{
	if (sqlite3_create_module(db->sq, "events", &events_module, db) != SQLITE_OK)
		return tdb_sql_error(db, "events module");
	if (tdb_pages_register_vtab(db->sq) != 0)
		return tdb_sql_error(db, "page_runs module");
	return create_views(db);
}
