// SPDX-License-Identifier: GPL-2.0
/*
 * tdb-snapwrite: one snapshot into the capture (see tdb-snapwrite.h). Owns the
 * savepoint, the page-run encoder and the statements of the snapshot being written.
 */
#include <stdlib.h>

#include "common/err.h"
#include "db/tdb-local.h"
#include "db/tdb-pages.h"
#include "db/tdb-snapwrite.h"

struct tdb_snapwrite {
	struct tdb *db;
	int64_t snap;
	sqlite3_stmt *ins_file, *ins_page;
	struct tdb_pages_enc *enc;
};

static int step(struct tdb_snapwrite *w, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return tdb_sql_error(w->db, what);
	return 0;
}

static int prepare(struct tdb_snapwrite *w, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(w->db->sq, sql, -1, st, NULL) != SQLITE_OK)
		return tdb_sql_error(w->db, "snapshot");
	return 0;
}

static void snapwrite_free(struct tdb_snapwrite *w)
{
	sqlite3_finalize(w->ins_file);
	sqlite3_finalize(w->ins_page);
	tdb_pages_enc_destroy(w->enc);
	free(w);
}

int tdb_snap_begin(struct tdb *db, const char *label, struct tdb_snapwrite **out)
{
	struct tdb_snapwrite *w;
	sqlite3_stmt *st = NULL;
	int ret;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return bc_error(BC_E_NOMEM, "out of memory");
	w->db = db;
	ret = tdb_pages_enc_create(&w->enc);
	if (ret) {
		free(w);
		return ret;
	}
	if (sqlite3_exec(db->sq, "SAVEPOINT snap_load", NULL, NULL, NULL) != SQLITE_OK) {
		ret = tdb_sql_error(db, "snapshot: savepoint");
		snapwrite_free(w);
		return ret;
	}
	ret = prepare(w, "INSERT INTO snapshots (label, nr_pfns, complete) VALUES (?, 0, 0)", &st);
	if (!ret) {
		sqlite3_bind_text(st, 1, label, -1, SQLITE_TRANSIENT);
		ret = step(w, st, "snapshots");
		sqlite3_finalize(st);
	}
	w->snap = sqlite3_last_insert_rowid(db->sq);
	if (!ret)
		ret = prepare(w, "INSERT INTO snapshot_files (snap, name, content) VALUES (?,?,?)",
			      &w->ins_file);
	if (!ret)
		ret = prepare(w, "INSERT INTO snapshot_pages (snap, pfn, npfns, data) "
			      "VALUES (?,?,?,?)", &w->ins_page);
	if (ret) {
		tdb_snap_abort(w);
		return ret;
	}
	*out = w;
	return 0;
}

int64_t tdb_snap_id(const struct tdb_snapwrite *w)
{
	return w->snap;
}

int tdb_snap_add_file(struct tdb_snapwrite *w, const char *name, const char *content,
		      size_t len)
{
	sqlite3_bind_int64(w->ins_file, 1, w->snap);
	sqlite3_bind_text(w->ins_file, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->ins_file, 3, content, (int)len, SQLITE_STATIC);
	return step(w, w->ins_file, "snapshot_files");
}

int tdb_snap_add_pages(struct tdb_snapwrite *w, uint64_t pfn, uint32_t n,
		       const uint64_t *flags, const uint64_t *count)
{
	const uint8_t *blob;
	size_t len;
	int ret;

	ret = tdb_pages_encode(w->enc, flags, count, n, &blob, &len);
	if (ret)
		return ret;
	sqlite3_bind_int64(w->ins_page, 1, w->snap);
	sqlite3_bind_int64(w->ins_page, 2, (int64_t)pfn);
	sqlite3_bind_int64(w->ins_page, 3, n);
	sqlite3_bind_blob(w->ins_page, 4, blob, (int)len, SQLITE_STATIC);
	return step(w, w->ins_page, "snapshot_pages");
}

int tdb_snap_commit(struct tdb_snapwrite *w, uint64_t mono_begin, uint64_t mono_end,
		    uint64_t nr_pfns)
{
	sqlite3_stmt *st;
	int ret;

	ret = prepare(w, "UPDATE snapshots SET mono_begin = ?, mono_end = ?, nr_pfns = ?, "
		      "complete = 1 WHERE id = ?", &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, (int64_t)mono_begin);
	sqlite3_bind_int64(st, 2, (int64_t)mono_end);
	sqlite3_bind_int64(st, 3, (int64_t)nr_pfns);
	sqlite3_bind_int64(st, 4, w->snap);
	ret = step(w, st, "snapshots");
	sqlite3_finalize(st);
	if (ret)
		return ret;
	if (sqlite3_exec(w->db->sq, "RELEASE snap_load", NULL, NULL, NULL) != SQLITE_OK)
		return tdb_sql_error(w->db, "snapshot: release");
	snapwrite_free(w);
	return 0;
}

void tdb_snap_abort(struct tdb_snapwrite *w)
{
	if (!w)
		return;
	/* keep the message of the real error: these two run without touching it */
	sqlite3_exec(w->db->sq, "ROLLBACK TO snap_load", NULL, NULL, NULL);
	sqlite3_exec(w->db->sq, "RELEASE snap_load", NULL, NULL, NULL);
	/* SQLite may have rolled back the writer's whole transaction (a full disk) */
	if (w->db->in_txn && sqlite3_get_autocommit(w->db->sq))
		w->db->in_txn = false;
	snapwrite_free(w);
}

/* ---- the parsed tables ---- */

static const struct snap_pcp *zone_pcp0(const struct snap_zone *z)
{
	int i;

	for (i = 0; i < z->nr_pcp; i++)
		if (z->pcp[i].cpu == 0)
			return &z->pcp[i];
	return z->nr_pcp ? &z->pcp[0] : NULL;
}

static int insert_zone(struct tdb_snapwrite *w, sqlite3_stmt *st, sqlite3_stmt *pc,
		       const struct snap_zone *z)
{
	const struct snap_pcp *p0 = zone_pcp0(z);
	int j, ret;

	TDB_BIND_INTS(st, 1, w->snap, z->node);
	sqlite3_bind_text(st, 3, z->name, -1, SQLITE_STATIC);
	TDB_BIND_INTS(st, 4, z->start_pfn, z->spanned, z->present, z->managed, z->free);
	TDB_BIND_OPTS(st, 9, z->wmark_min, z->wmark_low, z->wmark_high,
		      p0 ? p0->high : -1, p0 ? p0->batch : -1, p0 ? p0->high_min : -1,
		      p0 ? p0->high_max : -1);
	ret = step(w, st, "zones");
	for (j = 0; !ret && j < z->nr_pcp; j++) {
		TDB_BIND_INTS(pc, 1, w->snap, z->node);
		sqlite3_bind_text(pc, 3, z->name, -1, SQLITE_STATIC);
		TDB_BIND_INTS(pc, 4, z->pcp[j].cpu, z->pcp[j].count, z->pcp[j].high,
			      z->pcp[j].batch);
		ret = step(w, pc, "zone_pcp");
	}
	return ret;
}

static int insert_zones(struct tdb_snapwrite *w, const struct snap_tables *t)
{
	sqlite3_stmt *st = NULL, *pc = NULL;
	int i, ret;

	ret = prepare(w, "INSERT INTO zones VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &st);
	if (!ret)
		ret = prepare(w, "INSERT INTO zone_pcp VALUES (?,?,?,?,?,?,?)", &pc);
	for (i = 0; !ret && i < t->nr_zones; i++)
		ret = insert_zone(w, st, pc, &t->zones[i]);
	sqlite3_finalize(st);
	sqlite3_finalize(pc);
	return ret;
}

/*
 * The per-snapshot tables: one loop inserts the @nr rows of a table with @sql, ?1 the
 * snapshot, and @bind binds the rest of row @i of @rows.
 */
typedef void bind_fn(sqlite3_stmt *st, const void *rows, int i);

static int insert_rows(struct tdb_snapwrite *w, const char *sql, const char *what,
		       bind_fn *bind, const void *rows, int nr)
{
	sqlite3_stmt *st = NULL;
	int i, ret;

	ret = prepare(w, sql, &st);
	for (i = 0; !ret && i < nr; i++) {
		sqlite3_bind_int64(st, 1, w->snap);
		bind(st, rows, i);
		ret = step(w, st, what);
	}
	sqlite3_finalize(st);
	return ret;
}

/* buddyinfo (node, zone, ord, nr), pagetype_free (node, zone, migratetype, ord, nr),
 * pagetype_blocks (node, zone, migratetype, nr) */
struct oc_rows {
	const struct snap_order_count *o;
	bool mt, ord;			/* the table has the column */
};

static void bind_oc(sqlite3_stmt *st, const void *rows, int i)
{
	const struct oc_rows *r = rows;
	const struct snap_order_count *o = &r->o[i];
	int k = 4;

	sqlite3_bind_int(st, 2, o->node);
	sqlite3_bind_text(st, 3, o->zone, -1, SQLITE_STATIC);
	if (r->mt)
		sqlite3_bind_text(st, k++, o->migratetype, -1, SQLITE_STATIC);
	if (r->ord)
		sqlite3_bind_int(st, k++, o->ord);
	sqlite3_bind_int64(st, k, o->nr);
}

static void bind_kv(sqlite3_stmt *st, const void *rows, int i)
{
	const struct snap_kv *kv = (const struct snap_kv *)rows + i;

	sqlite3_bind_text(st, 2, kv->key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, kv->value);
}

static void bind_ram(sqlite3_stmt *st, const void *rows, int i)
{
	const struct snap_range *r = (const struct snap_range *)rows + i;

	TDB_BIND_INTS(st, 2, (int64_t)r->start_pfn, (int64_t)r->end_pfn);
}

static void bind_block(sqlite3_stmt *st, const void *rows, int i)
{
	const struct snap_memblock *b = (const struct snap_memblock *)rows + i;

	TDB_BIND_INTS(st, 2, b->block, (int64_t)b->start_pfn, (int64_t)b->nr_pfns);
	sqlite3_bind_text(st, 5, b->state, -1, SQLITE_STATIC);
	if (b->valid_zones[0])
		sqlite3_bind_text(st, 6, b->valid_zones, -1, SQLITE_STATIC);
}

static void bind_huge(sqlite3_stmt *st, const void *rows, int i)
{
	const struct snap_hugepages *h = (const struct snap_hugepages *)rows + i;

	TDB_BIND_INTS(st, 2, h->size_kb, h->nr, h->free);
}

int tdb_snap_add_tables(struct tdb_snapwrite *w, const struct snap_tables *t)
{
	int ret = insert_zones(w, t);

	if (!ret)
		ret = insert_rows(w, "INSERT INTO buddyinfo VALUES (?,?,?,?,?)", "buddyinfo",
				  bind_oc, &(struct oc_rows){ t->buddy, false, true }, t->nr_buddy);
	if (!ret)
		ret = insert_rows(w, "INSERT INTO pagetype_free VALUES (?,?,?,?,?,?)",
				  "pagetype_free", bind_oc,
				  &(struct oc_rows){ t->ptfree, true, true }, t->nr_ptfree);
	if (!ret)
		ret = insert_rows(w, "INSERT INTO pagetype_blocks VALUES (?,?,?,?,?)",
				  "pagetype_blocks", bind_oc,
				  &(struct oc_rows){ t->ptblocks, true, false }, t->nr_ptblocks);
	if (!ret)
		ret = insert_rows(w, "INSERT INTO meminfo VALUES (?,?,?)", "meminfo", bind_kv,
				  t->meminfo, t->nr_meminfo);
	if (!ret)
		ret = insert_rows(w, "INSERT INTO vmstat VALUES (?,?,?)", "vmstat", bind_kv,
				  t->vmstat, t->nr_vmstat);
	if (!ret)
		ret = insert_rows(w, "INSERT INTO system_ram VALUES (?,?,?)", "system_ram",
				  bind_ram, t->ram, t->nr_ram);
	if (!ret)
		ret = insert_rows(w, "INSERT INTO memory_blocks VALUES (?,?,?,?,?,?)",
				  "memory_blocks", bind_block, t->blocks, t->nr_blocks);
	if (!ret)
		ret = insert_rows(w, "INSERT INTO hugepages VALUES (?,?,?,?)", "hugepages",
				  bind_huge, t->huge, t->nr_huge);
	return ret;
}

int tdb_snap_set_places(struct tdb *db, const struct tdb_snap_place *p, int nr)
{
	sqlite3_stmt *up = NULL;
	int i, rc, ret = 0;

	if (sqlite3_exec(db->sq, "SAVEPOINT snap_align", NULL, NULL, NULL) != SQLITE_OK)
		return tdb_sql_error(db, "snapshot align: savepoint");
	if (sqlite3_prepare_v2(db->sq, "UPDATE snapshots SET ts_begin = ?, ts_end = ?, "
			       "seq_begin = ?, seq_end = ? WHERE id = ?", -1, &up,
			       NULL) != SQLITE_OK)
		ret = tdb_sql_error(db, "snapshot");
	for (i = 0; !ret && i < nr; i++) {
		TDB_BIND_INTS(up, 1, p[i].ts_begin, p[i].ts_end, p[i].seq_begin, p[i].seq_end,
			      p[i].id);
		rc = sqlite3_step(up);
		sqlite3_reset(up);
		if (rc != SQLITE_DONE)
			ret = tdb_sql_error(db, "snapshots");
	}
	sqlite3_finalize(up);
	if (!ret && sqlite3_exec(db->sq, "RELEASE snap_align", NULL, NULL, NULL) != SQLITE_OK)
		ret = tdb_sql_error(db, "snapshot align: release");
	if (ret) {
		sqlite3_exec(db->sq, "ROLLBACK TO snap_align", NULL, NULL, NULL);
		sqlite3_exec(db->sq, "RELEASE snap_align", NULL, NULL, NULL);
	}
	return ret;
}
