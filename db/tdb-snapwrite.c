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

	sqlite3_bind_int64(st, 1, w->snap);
	sqlite3_bind_int(st, 2, z->node);
	sqlite3_bind_text(st, 3, z->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, z->start_pfn);
	sqlite3_bind_int64(st, 5, z->spanned);
	sqlite3_bind_int64(st, 6, z->present);
	sqlite3_bind_int64(st, 7, z->managed);
	sqlite3_bind_int64(st, 8, z->free);
	tdb_bind_opt(st, 9, z->wmark_min);
	tdb_bind_opt(st, 10, z->wmark_low);
	tdb_bind_opt(st, 11, z->wmark_high);
	tdb_bind_opt(st, 12, p0 ? p0->high : -1);
	tdb_bind_opt(st, 13, p0 ? p0->batch : -1);
	tdb_bind_opt(st, 14, p0 ? p0->high_min : -1);
	tdb_bind_opt(st, 15, p0 ? p0->high_max : -1);
	ret = step(w, st, "zones");
	for (j = 0; !ret && j < z->nr_pcp; j++) {
		sqlite3_bind_int64(pc, 1, w->snap);
		sqlite3_bind_int(pc, 2, z->node);
		sqlite3_bind_text(pc, 3, z->name, -1, SQLITE_STATIC);
		sqlite3_bind_int(pc, 4, z->pcp[j].cpu);
		sqlite3_bind_int64(pc, 5, z->pcp[j].count);
		sqlite3_bind_int64(pc, 6, z->pcp[j].high);
		sqlite3_bind_int64(pc, 7, z->pcp[j].batch);
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

/* buddyinfo (@kind 0), pagetype_free (1), pagetype_blocks (2) */
static int insert_oc(struct tdb_snapwrite *w, const char *sql, const struct snap_order_count *o,
		     int nr, int kind, const char *what)
{
	sqlite3_stmt *st;
	int i, ret, k;

	ret = prepare(w, sql, &st);
	if (ret)
		return ret;
	for (i = 0; !ret && i < nr; i++) {
		k = 1;
		sqlite3_bind_int64(st, k++, w->snap);
		sqlite3_bind_int(st, k++, o[i].node);
		sqlite3_bind_text(st, k++, o[i].zone, -1, SQLITE_STATIC);
		if (kind >= 1)
			sqlite3_bind_text(st, k++, o[i].migratetype, -1, SQLITE_STATIC);
		if (kind <= 1)
			sqlite3_bind_int(st, k++, o[i].ord);
		sqlite3_bind_int64(st, k++, o[i].nr);
		ret = step(w, st, what);
	}
	sqlite3_finalize(st);
	return ret;
}

static int insert_kv(struct tdb_snapwrite *w, const char *sql, const struct snap_kv *kv, int nr,
		     const char *what)
{
	sqlite3_stmt *st;
	int i, ret;

	ret = prepare(w, sql, &st);
	if (ret)
		return ret;
	for (i = 0; !ret && i < nr; i++) {
		sqlite3_bind_int64(st, 1, w->snap);
		sqlite3_bind_text(st, 2, kv[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, kv[i].value);
		ret = step(w, st, what);
	}
	sqlite3_finalize(st);
	return ret;
}

static int insert_ram(struct tdb_snapwrite *w, const struct snap_tables *t)
{
	sqlite3_stmt *st;
	int i, ret;

	ret = prepare(w, "INSERT INTO system_ram VALUES (?,?,?)", &st);
	if (ret)
		return ret;
	for (i = 0; !ret && i < t->nr_ram; i++) {
		sqlite3_bind_int64(st, 1, w->snap);
		sqlite3_bind_int64(st, 2, (int64_t)t->ram[i].start_pfn);
		sqlite3_bind_int64(st, 3, (int64_t)t->ram[i].end_pfn);
		ret = step(w, st, "system_ram");
	}
	sqlite3_finalize(st);
	return ret;
}

static int insert_blocks(struct tdb_snapwrite *w, const struct snap_tables *t)
{
	sqlite3_stmt *st;
	int i, ret;

	ret = prepare(w, "INSERT INTO memory_blocks VALUES (?,?,?,?,?,?)", &st);
	if (ret)
		return ret;
	for (i = 0; !ret && i < t->nr_blocks; i++) {
		const struct snap_memblock *b = &t->blocks[i];

		sqlite3_bind_int64(st, 1, w->snap);
		sqlite3_bind_int64(st, 2, b->block);
		sqlite3_bind_int64(st, 3, (int64_t)b->start_pfn);
		sqlite3_bind_int64(st, 4, (int64_t)b->nr_pfns);
		sqlite3_bind_text(st, 5, b->state, -1, SQLITE_STATIC);
		if (b->valid_zones[0])
			sqlite3_bind_text(st, 6, b->valid_zones, -1, SQLITE_STATIC);
		ret = step(w, st, "memory_blocks");
	}
	sqlite3_finalize(st);
	return ret;
}

static int insert_huge(struct tdb_snapwrite *w, const struct snap_tables *t)
{
	sqlite3_stmt *st;
	int i, ret;

	ret = prepare(w, "INSERT INTO hugepages VALUES (?,?,?,?)", &st);
	if (ret)
		return ret;
	for (i = 0; !ret && i < t->nr_huge; i++) {
		sqlite3_bind_int64(st, 1, w->snap);
		sqlite3_bind_int64(st, 2, t->huge[i].size_kb);
		sqlite3_bind_int64(st, 3, t->huge[i].nr);
		sqlite3_bind_int64(st, 4, t->huge[i].free);
		ret = step(w, st, "hugepages");
	}
	sqlite3_finalize(st);
	return ret;
}

int tdb_snap_add_tables(struct tdb_snapwrite *w, const struct snap_tables *t)
{
	int ret = insert_zones(w, t);

	if (!ret)
		ret = insert_oc(w, "INSERT INTO buddyinfo VALUES (?,?,?,?,?)", t->buddy,
				t->nr_buddy, 0, "buddyinfo");
	if (!ret)
		ret = insert_oc(w, "INSERT INTO pagetype_free VALUES (?,?,?,?,?,?)", t->ptfree,
				t->nr_ptfree, 1, "pagetype_free");
	if (!ret)
		ret = insert_oc(w, "INSERT INTO pagetype_blocks VALUES (?,?,?,?,?)", t->ptblocks,
				t->nr_ptblocks, 2, "pagetype_blocks");
	if (!ret)
		ret = insert_kv(w, "INSERT INTO meminfo VALUES (?,?,?)", t->meminfo,
				t->nr_meminfo, "meminfo");
	if (!ret)
		ret = insert_kv(w, "INSERT INTO vmstat VALUES (?,?,?)", t->vmstat, t->nr_vmstat,
				"vmstat");
	if (!ret)
		ret = insert_ram(w, t);
	if (!ret)
		ret = insert_blocks(w, t);
	if (!ret)
		ret = insert_huge(w, t);
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
		sqlite3_bind_int64(up, 1, p[i].ts_begin);
		sqlite3_bind_int64(up, 2, p[i].ts_end);
		sqlite3_bind_int64(up, 3, p[i].seq_begin);
		sqlite3_bind_int64(up, 4, p[i].seq_end);
		sqlite3_bind_int64(up, 5, p[i].id);
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
