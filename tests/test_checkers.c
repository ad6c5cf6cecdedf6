// SPDX-License-Identifier: GPL-2.0
/*
 * checkers/: each checker on hand-built captures (pass and fail cases), the seeded
 * faults that each checker must catch (crafted captures reproducing a historical class
 * of kernel bug, and run-time fault switches in the model), and the TAP and JUnit
 * reports validated against their formats.
 *
 * Every fault test asserts that exactly the intended checker (and rule) fires, at the
 * intended event. Crafted captures run twice: trace only, and replayed through the
 * model from their snapshot.
 *
 * Layout of the crafted captures: one zone, Normal [0x1000, 0x2000), all System RAM,
 * 8 pageblocks of 512 pages, 4 MAX_ORDER blocks of 1024; everything free and Movable
 * in the seeding snapshot (seq 0) unless a test says otherwise.
 *
 *   0x1000        0x1400        0x1800        0x1c00       0x2000
 *   |  block A    |  block B    |  block C    |  block D   |
 *                               ^ attempts isolate block C [0x1800, 0x1c00)
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/chk.h"
#include "common/err.h"
#include "common/kpageflags.h"
#include "db/tdb-pages.h"
#include "db/tdb.h"
#include "model/model-fault.h"
#include "model/model.h"
#include "replay/replay.h"
#include "replay/teacher.h"
#include "tests/fixture.h"

#define ZSTART	0x1000ull
#define ZEND	0x2000ull
#define C_START	0x1800ull
#define C_END	0x1c00ull
#define GFP_MOVABLE	0x100ccaull
#define CONTIG_PID	200
#define USER_PID	100

/* ---- building captures ----------------------------------------------------------- */

enum { T_ALLOC, T_FREE, T_BATCHED, T_ZL, T_DRAIN, T_EXTFRAG, T_MSTART, T_MEND, T_TEST,
       T_ISOMIG, T_ISOFREE, T_WORK, NR_T };

static const struct {
	const char *sys, *name;
	int n;
	const char *f[8];
} types[NR_T] = {
	[T_ALLOC] = { "kmem", "mm_page_alloc", 4, { "pfn", "order", "gfp_flags", "migratetype" } },
	[T_FREE] = { "kmem", "mm_page_free", 2, { "pfn", "order" } },
	[T_BATCHED] = { "kmem", "mm_page_free_batched", 1, { "pfn" } },
	[T_ZL] = { "kmem", "mm_page_alloc_zone_locked", 4,
		   { "pfn", "order", "migratetype", "percpu_refill" } },
	[T_DRAIN] = { "kmem", "mm_page_pcpu_drain", 3, { "pfn", "order", "migratetype" } },
	[T_EXTFRAG] = { "kmem", "mm_page_alloc_extfrag", 6,
			{ "pfn", "alloc_order", "fallback_order", "alloc_migratetype",
			  "fallback_migratetype", "change_ownership" } },
	[T_MSTART] = { "migrate", "mm_migrate_pages_start", 2, { "mode", "reason" } },
	[T_MEND] = { "migrate", "mm_migrate_pages", 8,
		     { "succeeded", "failed", "thp_succeeded", "thp_failed", "thp_split",
		       "large_folio_split", "mode", "reason" } },
	[T_TEST] = { "page_isolation", "test_pages_isolated", 3,
		     { "start_pfn", "end_pfn", "fin_pfn" } },
	[T_ISOMIG] = { "compaction", "mm_compaction_isolate_migratepages", 4,
		       { "start_pfn", "end_pfn", "nr_scanned", "nr_taken" } },
	[T_WORK] = { "workqueue", "workqueue_execute_start", 2, { "work", "function" } },
	[T_ISOFREE] = { "compaction", "mm_compaction_isolate_freepages", 4,
			{ "start_pfn", "end_pfn", "nr_scanned", "nr_taken" } },
};

struct cap {
	struct tdb *db;
	char *path;
	int id[NR_T];
	uint64_t ts;
	uint64_t flags[ZEND];		/* the seeding snapshot's kpageflags */
	uint64_t zsplit;		/* not 0: DMA32 [ZSTART, zsplit), Normal [zsplit, ZEND) */
};

static void cap_begin(struct cap *c, const char *name)
{
	static const int sizes[8] = { 8, 8, 8, 8, 8, 8, 8, 8 };
	static const bool sgn[8] = { false };
	uint64_t p;
	int t;

	memset(c, 0, sizeof(*c));
	c->path = fixture_tmpfile(name);
	fixture_rm(c->path);
	ck_assert_int_eq(tdb_create(c->path, true, &c->db), 0);
	for (t = 0; t < NR_T; t++) {
		c->id[t] = tdb_add_event_type(c->db, types[t].sys, types[t].name, false, NULL,
					      types[t].n, types[t].f, sizes, sgn);
		ck_assert_int_gt(c->id[t], 0);
	}
	ck_assert_int_eq(tdb_set_meta(c->db, "kernel_release", "6.18.44"), 0);
	ck_assert_int_eq(tdb_set_meta_int(c->db, "cpus", 2), 0);
	ck_assert_int_eq(tdb_set_meta_int(c->db, "pageblock_order", 9), 0);
	ck_assert_int_eq(tdb_set_meta_int(c->db, "max_page_order", 10), 0);
	for (p = 0; p < ZEND; p++)
		c->flags[p] = p < ZSTART ? KPF_BIT(KPF_NOPAGE) : KPF_BIT(KPF_BUDDY);
	c->ts = 1000000000ull;
}

static uint64_t ev(struct cap *c, int t, int cpu, int pid, int64_t f0, int64_t f1, int64_t f2,
		   int64_t f3, int64_t f4, int64_t f5)
{
	struct bc_event e = { 0 };
	int64_t f[8] = { f0, f1, f2, f3, f4, f5, 0, 0 };

	e.ts = c->ts += 1000;
	e.cpu = (uint16_t)cpu;
	e.pid = pid;
	e.type = (uint16_t)c->id[t];
	e.nfields = (uint16_t)types[t].n;
	memcpy(e.field, f, sizeof(f));
	if (t == T_MEND) {	/* mode, reason at 6, 7 */
		e.field[6] = f2;
		e.field[7] = f3;
		e.field[2] = e.field[3] = 0;
	}
	ck_assert_int_eq(tdb_append_event(c->db, &e), 0);
	return e.seq;
}

/* The usual shapes. Return the seq of the (last) event written. */
static uint64_t alloc_page(struct cap *c, uint64_t pfn, unsigned int order, int cpu)
{
	ev(c, T_ZL, cpu, USER_PID, (int64_t)pfn, order, 1, order <= 3, 0, 0);
	return ev(c, T_ALLOC, cpu, USER_PID, (int64_t)pfn, order, GFP_MOVABLE, 1, 0, 0);
}

static uint64_t free_page(struct cap *c, uint64_t pfn, unsigned int order, int cpu)
{
	return ev(c, T_FREE, cpu, USER_PID, (int64_t)pfn, order, 0, 0, 0, 0);
}

/* alloc_contig_range() of block C without a drain burst: isolate/migrate/test. */
static uint64_t attempt(struct cap *c, bool drain_first, uint64_t drain_pfn, uint64_t fin)
{
	if (drain_first)	/* the block is isolated: drained onto the Isolate list */
		ev(c, T_DRAIN, 1, CONTIG_PID, (int64_t)drain_pfn, 0, 4, 0, 0, 0);
	ev(c, T_ISOMIG, 1, CONTIG_PID, C_START, C_START + 512, 512, 0, 0, 0);
	ev(c, T_ISOMIG, 1, CONTIG_PID, C_START + 512, C_END, 512, 0, 0, 0);
	ev(c, T_MSTART, 1, CONTIG_PID, 2, 6, 0, 0, 0, 0);
	ev(c, T_MEND, 1, CONTIG_PID, 0, 0, 2, 6, 0, 0);
	return ev(c, T_TEST, 1, CONTIG_PID, C_START, C_END, (int64_t)fin, 0, 0, 0);
}

static void isolate_free(struct cap *c)
{
	ev(c, T_ISOFREE, 1, CONTIG_PID, C_START, C_END, 1024, 1024, 0, 0);
}

static void exec(struct tdb *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void exec(struct tdb *db, const char *fmt, ...)
{
	char sql[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	ck_assert_msg(tdb_exec(db, sql) == 0, "%s: %s", sql, bc_errmsg());
}

/* Free blocks per order of c->flags in [p, end), as the kernel's buddyinfo would say. */
static void buddy_counts(const struct cap *c, uint64_t p, uint64_t end, int64_t nr[11])
{
	memset(nr, 0, 11 * sizeof(*nr));
	while (p < end) {
		int o;

		if (!(c->flags[p] & KPF_BIT(KPF_BUDDY))) {
			p++;
			continue;
		}
		for (o = 10; o > 0; o--)
			if (!(p & ((1ull << o) - 1)) && p + (1ull << o) <= end) {
				uint64_t q;

				for (q = p; q < p + (1ull << o) &&
					    (c->flags[q] & KPF_BIT(KPF_BUDDY)); q++)
					;
				if (q == p + (1ull << o))
					break;
			}
		nr[o]++;
		p += 1ull << o;
	}
}

/* A zone's rows of snapshot @id: [start, end), all Movable pageblocks. */
static void add_zone(struct cap *c, int id, const char *zone, uint64_t start, uint64_t end,
		     int64_t bias)
{
	int64_t nr[11];
	int o;

	exec(c->db, "INSERT INTO zones (snap, node, zone, start_pfn, spanned, present, managed, "
	     "free) VALUES (%d, 0, '%s', %llu, %llu, %llu, %llu, 0)", id, zone,
	     (unsigned long long)start, (unsigned long long)(end - start),
	     (unsigned long long)(end - start), (unsigned long long)(end - start));
	exec(c->db, "INSERT INTO pagetype_blocks VALUES (%d, 0, '%s', 'Movable', %llu)", id, zone,
	     (unsigned long long)((end - start) >> 9));
	exec(c->db, "INSERT INTO pagetype_blocks VALUES (%d, 0, '%s', 'Unmovable', 0)", id, zone);
	buddy_counts(c, start, end, nr);
	for (o = 0; o <= 10; o++) {
		exec(c->db, "INSERT INTO buddyinfo VALUES (%d, 0, '%s', %d, %lld)", id, zone, o,
		     (long long)(nr[o] + (o == 3 ? bias : 0)));
		exec(c->db, "INSERT INTO pagetype_free VALUES (%d, 0, '%s', 'Movable', %d, %lld)",
		     id, zone, o, (long long)nr[o]);
	}
}

/* One snapshot row and its tables; @bias is added to buddyinfo order 3 (a kernel
 * nr_free miscount when not 0). */
static void add_snapshot(struct cap *c, int id, uint64_t seq, int64_t bias)
{
	struct tdb_pages_enc *enc;
	const uint8_t *blob;
	sqlite3_stmt *st;
	size_t len;

	exec(c->db, "INSERT INTO snapshots (id, label, ts_begin, ts_end, mono_begin, mono_end, "
	     "seq_begin, seq_end, nr_pfns, complete) VALUES (%d, 'start', %llu, %llu, 0, 0, "
	     "%llu, %llu, %llu, 1)", id, (unsigned long long)c->ts, (unsigned long long)c->ts,
	     (unsigned long long)seq, (unsigned long long)seq, (unsigned long long)ZEND);
	if (c->zsplit) {
		add_zone(c, id, "DMA32", ZSTART, c->zsplit, bias);
		add_zone(c, id, "Normal", c->zsplit, ZEND, 0);
	} else {
		add_zone(c, id, "Normal", ZSTART, ZEND, bias);
	}
	exec(c->db, "INSERT INTO system_ram VALUES (%d, %llu, %llu)", id,
	     (unsigned long long)ZSTART, (unsigned long long)ZEND);
	exec(c->db, "INSERT INTO snapshot_files VALUES (%d, 'pagetypeinfo', 'Page block order: 9\n"
	     "Pages per block:  512\n')", id);
	ck_assert_int_eq(tdb_pages_enc_create(&enc), 0);
	ck_assert_int_eq(tdb_pages_encode(enc, c->flags, NULL, ZEND, &blob, &len), 0);
	ck_assert_int_eq(sqlite3_prepare_v2(tdb_sqlite(c->db), "INSERT INTO snapshot_pages "
					    "VALUES (?, 0, ?, ?)", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int(st, 1, id);
	sqlite3_bind_int64(st, 2, (int64_t)ZEND);
	sqlite3_bind_blob(st, 3, blob, (int)len, SQLITE_TRANSIENT);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	tdb_pages_enc_destroy(enc);
}

static void cap_end(struct cap *c)
{
	ck_assert_int_eq(tdb_finish(c->db), 0);
	ck_assert_int_eq(tdb_close(c->db), 0);
	c->db = NULL;
}

/* Check @path in trace-only (@replay false) or replay mode; caller destroys. */
static struct chk_ctx *check(const char *path, bool replay)
{
	struct chk_opts o = { .trace_only = !replay, .recount_every = 1 };
	struct chk_summary s;
	struct chk_ctx *c;
	struct tdb *db;

	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_int_eq(chk_create(&o, &c), 0);
	ck_assert_msg(chk_run_capture(c, db) == 0, "%s", bc_errmsg());
	tdb_close(db);
	chk_get_summary(c, &s);
	ck_assert_msg(s.replayed == replay, "replayed %d, wanted %d", s.replayed, replay);
	return c;
}

static void dump(struct chk_ctx *c)
{
	chk_report(c, stderr, CHK_FMT_TEXT, "test");
}

/* Exactly @inv fires (@n times, 0 = at least once), the first at event @seq. */
static void expect_only(struct chk_ctx *c, enum chk_inv inv, uint64_t n, uint64_t seq)
{
	const struct chk_violation *v;
	struct chk_summary s;
	size_t nr, i;

	chk_get_summary(c, &s);
	v = chk_violations(c, &nr);
	if (!nr || s.violations != chk_inv_count(c, inv) || (n && s.violations != n) ||
	    v[0].seq != seq)
		dump(c);
	ck_assert_uint_gt(nr, 0);
	ck_assert_uint_eq(s.violations, chk_inv_count(c, inv));
	if (n)
		ck_assert_uint_eq(s.violations, n);
	for (i = 0; i < nr; i++)
		ck_assert_str_eq(chk_inv_name(v[i].inv), chk_inv_name(inv));
	ck_assert_uint_eq(v[0].seq, seq);
	ck_assert_uint_eq(s.inconclusive, 0);
}

static void expect_clean(struct chk_ctx *c)
{
	struct chk_summary s;

	chk_get_summary(c, &s);
	if (s.violations || s.inconclusive)
		dump(c);
	ck_assert_uint_eq(s.violations, 0);
	ck_assert_uint_eq(s.inconclusive, 0);
}

/* ---- names ----------------------------------------------------------------------- */

START_TEST(test_names_stable)
{
	ck_assert_str_eq(chk_checker_name(CHK_ISOLATION_ESCAPE), "isolation-escape");
	ck_assert_str_eq(chk_checker_name(CHK_CONTIG_EXACT), "contig-exact");
	ck_assert_str_eq(chk_checker_name(CHK_BUDDY_SANITY), "buddy-sanity");
	ck_assert_str_eq(chk_checker_name(CHK_FREECOUNT), "freecount");
	ck_assert_str_eq(chk_checker_name(CHK_PAGEBLOCK_TYPE), "pageblock-type");
	ck_assert_int_eq(chk_checker_from_name("contig-exact"), CHK_CONTIG_EXACT);
	ck_assert_int_eq(chk_checker_from_name("no-such"), -1);
	ck_assert_int_eq(chk_inv_checker(CHK_INV_ISO_MERGE), CHK_ISOLATION_ESCAPE);
	ck_assert_int_eq(chk_inv_checker(CHK_INV_FREECOUNT_RECOUNT), CHK_FREECOUNT);
	ck_assert_str_eq(chk_inv_name(CHK_INV_BUDDY_DOUBLE_FREE), "double-free");
}
END_TEST

/* ---- pass cases ------------------------------------------------------------------- */

/*
 * A clean trace: pcp and buddy traffic, a drain, then a successful attempt on block C
 * with its pcp page drained first, and the pages of C freed back afterwards.
 * Expect no violation in either mode.
 */
static void build_clean(struct cap *c, const char *name, int64_t bias)
{
	uint64_t p;

	cap_begin(c, name);
	add_snapshot(c, 1, 0, 0);
	alloc_page(c, ZSTART, 0, 0);
	free_page(c, ZSTART, 0, 0);			/* to cpu 0's pcp */
	ev(c, T_DRAIN, 0, USER_PID, ZSTART, 0, 1, 0, 0, 0);	/* back to the buddy */
	alloc_page(c, ZSTART + 0x400, 2, 0);
	free_page(c, ZSTART + 0x400, 2, 0);
	ev(c, T_DRAIN, 0, USER_PID, ZSTART + 0x400, 2, 1, 0, 0, 0);
	alloc_page(c, C_START, 0, 0);
	free_page(c, C_START, 0, 0);			/* pcp page of block C */
	attempt(c, true, C_START, C_END);		/* drained first: fine */
	isolate_free(c);
	free_page(c, C_START, 10, 1);			/* the allocation is freed */
	for (p = ZSTART; p < ZEND; p++)
		c->flags[p] = KPF_BIT(KPF_BUDDY);
	add_snapshot(c, 2, tdb_next_seq(c->db), bias);
	cap_end(c);
}

START_TEST(test_clean_capture)
{
	struct chk_ctx *k;
	struct cap c;

	build_clean(&c, "clean.db", 0);
	k = check(c.path, false);
	expect_clean(k);
	chk_destroy(k);
	k = check(c.path, true);
	expect_clean(k);
	chk_destroy(k);
}
END_TEST


/* Replay the capture at @path (closed); caller ends with replay_end(). */
static struct replay *replay_begin(const char *path, struct tdb **db)
{
	struct rp_opts o = { .until_seq = UINT64_MAX };
	struct replay *rp;

	ck_assert_int_eq(tdb_open(path, TDB_READONLY, db), 0);
	ck_assert_msg(rp_create(*db, &o, &rp) == 0, "%s", bc_errmsg());
	ck_assert_msg(rp_run(rp, NULL) == 0, "%s", bc_errmsg());
	return rp;
}

static void replay_end(struct replay *rp, struct tdb *db)
{
	rp_destroy(rp);
	tdb_close(db);
}

/* Replay @path to its end; the stored migratetype (trace numbering) of each pfn in @pfn. */
static void replayed_types(const char *path, const uint64_t *pfn, int *mt, int n)
{
	struct tdb *db;
	struct replay *rp = replay_begin(path, &db);
	int i;

	for (i = 0; i < n; i++)
		ck_assert_int_eq(model_pageblock_mt(rp_model(rp), pfn[i], &mt[i], NULL, NULL), 0);
	replay_end(rp, db);
}

/*
 * free_unref_folios() holds one zone's pcp lock while it confirms its batch
 * (mm_page_free_batched): an interrupt's free inside the batch fails pcp_spin_trylock()
 * and goes to the buddy only for that zone; another zone's pcp lock is free (seen on
 * 6.1: a DMA32 order-1 free inside a Normal batch, drained from DMA32's pcp list).
 *   DMA32 [0x1000, 0x1800), Normal [0x1800, 0x2000); cpu 0 frees Normal 0x1800-0x1802,
 *   confirms 0x1800; then frees DMA32 0x1000 (order 1; drained from the pcp next) and
 *   Normal 0x1803 (to the buddy: taken by a zone_locked later); confirms the rest.
 * Expect: replay explains every event (no anomaly).
 */
START_TEST(test_batch_interrupt_other_zone)
{
	struct replay *rp;
	struct tdb *db;
	struct cap c;
	uint64_t p;

	cap_begin(&c, "batch-zones.db");
	c.zsplit = ZSTART + 0x800;
	add_snapshot(&c, 1, 0, 0);
	for (p = c.zsplit; p < c.zsplit + 4; p++)
		alloc_page(&c, p, 0, 0);
	alloc_page(&c, ZSTART, 1, 0);
	for (p = c.zsplit; p < c.zsplit + 3; p++)
		free_page(&c, p, 0, 0);
	ev(&c, T_BATCHED, 0, USER_PID, (int64_t)c.zsplit, 0, 0, 0, 0, 0);
	free_page(&c, ZSTART, 1, 0);
	ev(&c, T_DRAIN, 0, USER_PID, ZSTART, 1, 1, 0, 0, 0);
	free_page(&c, c.zsplit + 3, 0, 0);
	for (p = c.zsplit + 1; p < c.zsplit + 3; p++)
		ev(&c, T_BATCHED, 0, USER_PID, (int64_t)p, 0, 0, 0, 0, 0);
	alloc_page(&c, c.zsplit + 3, 0, 1);
	cap_end(&c);

	rp = replay_begin(c.path, &db);
	ck_assert_uint_eq(model_anomaly_count(rp_model(rp), MODEL_ANOM_PCP_MISSING, NULL, NULL), 0);
	ck_assert_uint_eq(model_anomaly_total(rp_model(rp)), 0);
	replay_end(rp, db);
	fixture_rm(c.path);
}
END_TEST

/*
 * free_unref_page_list() (6.1) confirms its batch (mm_page_free_batched) under the pcp
 * lock and, when pcp->count >= high, drains (free_pcppages_bulk()) inside that locked
 * section: an interrupt's free right after a long drain still fails pcp_spin_trylock()
 * and goes to the buddy (seen on 6.1: 2,016 drains over 11 ms, then 8 order-1 frees).
 *   cpu 0 frees 0x1004 (to its pcp list), then batch-frees 0x1005-0x1007, confirms
 *   0x1005, drains 0x1004 6 ms later, and 6 ms after that an order-1 free of 0x1000
 *   (its buddy in use) arrives; then 0x1006-0x1007 are confirmed and cpu 1's refill
 *   (zone_locked) takes 0x1000 from the buddy. @late: the order-1 free comes after the batch instead (task context):
 *   it stays on the pcp list and the zone_locked is an anomaly.
 * Expect: inside the batch no anomaly and one free counted as sent past the pcp list;
 * late, one pcp-page-taken-from-buddy and none counted.
 */
static void batch_drain_case(bool late)
{
	struct model_stats ms;
	struct replay *rp;
	struct tdb *db;
	struct cap c;
	uint64_t p;

	cap_begin(&c, "batch-drain.db");
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, ZSTART, 1, 0);
	alloc_page(&c, ZSTART + 2, 1, 0);	/* its buddy stays in use: 0x1000 stays order 1 */
	for (p = ZSTART + 4; p < ZSTART + 8; p++)
		alloc_page(&c, p, 0, 0);
	free_page(&c, ZSTART + 4, 0, 0);
	for (p = ZSTART + 5; p < ZSTART + 8; p++)
		free_page(&c, p, 0, 0);
	ev(&c, T_BATCHED, 0, USER_PID, ZSTART + 5, 0, 0, 0, 0, 0);
	c.ts += 6000000;
	ev(&c, T_DRAIN, 0, USER_PID, ZSTART + 4, 0, 1, 0, 0, 0);
	c.ts += 6000000;
	if (!late)
		free_page(&c, ZSTART, 1, 0);
	for (p = ZSTART + 6; p < ZSTART + 8; p++)
		ev(&c, T_BATCHED, 0, USER_PID, (int64_t)p, 0, 0, 0, 0, 0);
	if (late)
		free_page(&c, ZSTART, 1, 0);
	alloc_page(&c, ZSTART, 1, 1);
	cap_end(&c);

	rp = replay_begin(c.path, &db);
	model_get_stats(rp_model(rp), &ms);
	ck_assert_uint_eq(model_anomaly_count(rp_model(rp), MODEL_ANOM_PCP_IN_BUDDY, NULL, NULL),
			  (late ? 1 : 0));
	ck_assert_uint_eq(model_anomaly_total(rp_model(rp)), (late ? 1 : 0));
	ck_assert_uint_eq(ms.nopcp_frees, (late ? 0 : 1));
	replay_end(rp, db);
	fixture_rm(c.path);
}

START_TEST(test_batch_drain_interrupt)
{
	batch_drain_case(false);
}
END_TEST

START_TEST(test_batch_drain_then_task_free)
{
	batch_drain_case(true);
}
END_TEST

/*
 * An interrupt inside a Normal batch frees into DMA32 (its pcp lock is free) and drains
 * DMA32's list for longer than RP_BATCH_GAP_NS while the task waits with Normal's lock
 * held; the same interrupt's Normal order-1 free then fails pcp_spin_trylock() (seen on
 * 6.12: 3,983 DMA32 drains over 13 ms, then three Normal order-1 frees that the next
 * snapshot read free in the buddy, no drain between).
 *   DMA32 [0x1000, 0x1800), Normal [0x1800, 0x2000); cpu 0 batch-frees Normal
 *   0x1805-0x1807, confirms 0x1805; DMA32 0x1000 and 0x1001 drained 6 and 12 ms later;
 *   1 ms after, Normal 0x1800 (order 1, its buddy in use) freed; 0x1806-0x1807 confirmed.
 * Expect: 0x1800 in the buddy (one free sent past the pcp list), no anomaly.
 */
START_TEST(test_batch_other_zone_drain)
{
	struct model_pfn_info pi;
	struct model_stats ms;
	struct replay *rp;
	struct tdb *db;
	struct cap c;
	uint64_t p, n;

	cap_begin(&c, "batch-other-drain.db");
	c.zsplit = ZSTART + 0x800;
	n = c.zsplit;
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, n, 1, 0);
	alloc_page(&c, n + 2, 1, 0);	/* its buddy stays in use: 0x1800 stays order 1 */
	for (p = n + 4; p < n + 8; p++)
		alloc_page(&c, p, 0, 0);
	alloc_page(&c, ZSTART, 0, 0);
	alloc_page(&c, ZSTART + 1, 0, 0);
	free_page(&c, ZSTART, 0, 0);
	free_page(&c, ZSTART + 1, 0, 0);
	for (p = n + 5; p < n + 8; p++)
		free_page(&c, p, 0, 0);
	ev(&c, T_BATCHED, 0, USER_PID, (int64_t)n + 5, 0, 0, 0, 0, 0);
	c.ts += 6000000;
	ev(&c, T_DRAIN, 0, USER_PID, ZSTART, 0, 1, 0, 0, 0);
	c.ts += 6000000;
	ev(&c, T_DRAIN, 0, USER_PID, ZSTART + 1, 0, 1, 0, 0, 0);
	c.ts += 1000000;
	free_page(&c, n, 1, 0);
	for (p = n + 6; p < n + 8; p++)
		ev(&c, T_BATCHED, 0, USER_PID, (int64_t)p, 0, 0, 0, 0, 0);
	cap_end(&c);

	rp = replay_begin(c.path, &db);
	model_get_stats(rp_model(rp), &ms);
	ck_assert_int_eq(model_pfn_info(rp_model(rp), n, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_BUDDY);
	ck_assert_uint_eq(ms.nopcp_frees, 1);
	ck_assert_uint_eq(model_anomaly_total(rp_model(rp)), 0);
	replay_end(rp, db);
	fixture_rm(c.path);
}
END_TEST

/*
 * rmqueue_pcplist() holds the pcp lock across its refill (zone_locked with
 * percpu_refill) until it has its page (mm_page_alloc): an interrupt's free in
 * between fails pcp_spin_trylock() and goes to the buddy. Not certain at the free (the
 * window goes on past the unlock), so the replay keeps the page on the pcp list and
 * moves it when the buddy hands it out while the model holds it on a pcp list.
 *   cpu 0 refills 0x1004 (order 0) and, before its mm_page_alloc, 0x1000 (order 1, in
 *   use, its buddy in use) is freed on cpu 0 (@mode RF_AFTER: after the mm_page_alloc,
 *   task context); then (RF_DRAINED) cpu 0 drains 0x1000 (the free went to the pcp
 *   list after all); cpu 1's refill takes 0x1000.
 * Expect: RF_IRQ no anomaly, one free found in the buddy late; RF_DRAINED no anomaly,
 * none late; RF_AFTER the buddy handing out a pcp page stays an anomaly, none late.
 */
enum { RF_IRQ, RF_DRAINED, RF_AFTER };

static void refill_free_case(int mode)
{
	struct replay *rp;
	struct tdb *db;
	struct cap c;

	cap_begin(&c, "refill-free.db");
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, ZSTART, 1, 0);
	alloc_page(&c, ZSTART + 2, 1, 0);	/* its buddy stays in use: 0x1000 stays order 1 */
	ev(&c, T_ZL, 0, USER_PID, ZSTART + 4, 0, 1, 1, 0, 0);
	if (mode != RF_AFTER)
		free_page(&c, ZSTART, 1, 0);
	ev(&c, T_ALLOC, 0, USER_PID, ZSTART + 4, 0, GFP_MOVABLE, 1, 0, 0);
	if (mode == RF_AFTER)
		free_page(&c, ZSTART, 1, 0);
	if (mode == RF_DRAINED)
		ev(&c, T_DRAIN, 0, USER_PID, ZSTART, 1, 1, 0, 0, 0);
	alloc_page(&c, ZSTART, 1, 1);
	cap_end(&c);

	rp = replay_begin(c.path, &db);
	ck_assert_uint_eq(model_anomaly_count(rp_model(rp), MODEL_ANOM_PCP_IN_BUDDY, NULL, NULL),
			  (mode == RF_AFTER ? 1 : 0));
	ck_assert_uint_eq(model_anomaly_total(rp_model(rp)), (mode == RF_AFTER ? 1 : 0));
	ck_assert_uint_eq(rp_trylock_late(rp), (mode == RF_IRQ ? 1 : 0));
	replay_end(rp, db);
	fixture_rm(c.path);
}

START_TEST(test_refill_interrupt_free)
{
	refill_free_case(RF_IRQ);
}
END_TEST

START_TEST(test_refill_free_drained)
{
	refill_free_case(RF_DRAINED);
}
END_TEST

START_TEST(test_refill_then_task_free)
{
	refill_free_case(RF_AFTER);
}
END_TEST

/*
 * A batch whose next confirmation comes after RP_BATCH_GAP_NS (seen on 6.1 in QEMU: 24
 * ms, a vCPU the host did not run): two order-1 frees in that gap, then the batch goes
 * on (0x1006, 0x1007 confirmed), and cpu 1's refill takes 0x1000 from the buddy.
 * Expect: no anomaly, one free found in the buddy late.
 */
START_TEST(test_batch_gap_interrupt_free)
{
	struct replay *rp;
	struct tdb *db;
	struct cap c;
	uint64_t p;

	cap_begin(&c, "batch-gap.db");
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, ZSTART, 1, 0);
	alloc_page(&c, ZSTART + 2, 1, 0);
	for (p = ZSTART + 4; p < ZSTART + 8; p++)
		alloc_page(&c, p, 0, 0);
	for (p = ZSTART + 4; p < ZSTART + 8; p++)
		free_page(&c, p, 0, 0);
	for (p = ZSTART + 4; p < ZSTART + 6; p++)
		ev(&c, T_BATCHED, 0, USER_PID, (int64_t)p, 0, 0, 0, 0, 0);
	c.ts += 24000000;
	free_page(&c, ZSTART, 1, 0);
	free_page(&c, ZSTART + 2, 1, 0);
	for (p = ZSTART + 6; p < ZSTART + 8; p++)
		ev(&c, T_BATCHED, 0, USER_PID, (int64_t)p, 0, 0, 0, 0, 0);
	alloc_page(&c, ZSTART, 1, 1);
	cap_end(&c);

	rp = replay_begin(c.path, &db);
	ck_assert_uint_eq(model_anomaly_total(rp_model(rp)), 0);
	ck_assert_uint_eq(rp_trylock_late(rp), 1);
	replay_end(rp, db);
	fixture_rm(c.path);
}
END_TEST

/*
 * The next snapshot reads a block the model holds on a pcp list as free buddy pages,
 * and no event named it while the snapshot was read (another page of its window was):
 * its free had gone past the pcp list (a failed pcp trylock, no event to show it). Seen
 * in a 6.12 VM run: three order-2 frees of cpu 1 merged in the buddy, a freecount
 * violation at the next snapshot. The resync moves it to the buddy (merging with its
 * free buddy) and counts it with the trylock failures found later; a block the snapshot
 * reads in use, or one an event named while it was read, stays.
 *   ZSTART (order 1) and ZSTART + 4 (order 2) freed on cpu 0 before snapshot 2, which
 *   reads ZSTART..+3 free (ZSTART+2 was free at the seed) and ZSTART + 4 in use; an
 *   allocation of ZSTART + 0x100 while it is read.
 */
START_TEST(test_snapshot_reads_pcp_block_free)
{
	const uint64_t used = KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON) | KPF_BIT(KPF_MMAP);
	struct model_pfn_info pi;
	struct replay *rp;
	struct tdb *db;
	struct cap c;
	uint64_t p, seq;

	cap_begin(&c, "read-free.db");
	for (p = ZSTART; p < ZSTART + 8; p++)
		c.flags[p] = p == ZSTART + 2 || p == ZSTART + 3 ? KPF_BIT(KPF_BUDDY) : used;
	c.flags[ZSTART + 0x100] = KPF_BIT(KPF_BUDDY);
	add_snapshot(&c, 1, 0, 0);
	free_page(&c, ZSTART, 1, 0);
	free_page(&c, ZSTART + 4, 2, 0);
	seq = tdb_next_seq(c.db);
	c.flags[ZSTART] = c.flags[ZSTART + 1] = KPF_BIT(KPF_BUDDY);
	c.flags[ZSTART + 0x100] = used;
	add_snapshot(&c, 2, seq, 0);
	alloc_page(&c, ZSTART + 0x100, 0, 1);
	exec(c.db, "UPDATE snapshots SET seq_end = %llu WHERE id = 2",
	     (unsigned long long)tdb_next_seq(c.db));
	ev(&c, T_ALLOC, 1, USER_PID, ZSTART + 0x200, 0, GFP_MOVABLE, 1, 0, 0);
	cap_end(&c);

	rp = replay_begin(c.path, &db);
	ck_assert_uint_eq(rp_trylock_late(rp), 1);
	ck_assert_int_eq(model_pfn_info(rp_model(rp), ZSTART, &pi), 0);
	ck_assert_msg(pi.state == MODEL_PFN_BUDDY && pi.head == ZSTART && pi.order == 2,
		      "ZSTART: state %d head %#llx order %u", pi.state,
		      (unsigned long long)pi.head, pi.order);
	ck_assert_int_eq(model_pfn_info(rp_model(rp), ZSTART + 4, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_PCP);
	replay_end(rp, db);
	fixture_rm(c.path);
}
END_TEST

/*
 * Before 6.7, an order 1-3 page freed onto a pcp list while free_factor is set drains
 * the whole list at once (free_high); with no drain after it, the free went past the
 * list: the cpu's pcp lock was held (an interrupt at the end of a long drain of the
 * free path, seen on 6.1 in QEMU: 167 frees merged in the buddy by the end snapshot,
 * which the model held on the pcp list: buddyinfo 2.56% off). So did the frees of its
 * zone the cpu made since that drain. On cpu 0:
 *   order-1 free of +0x12 and an order-0 one of +0x14 (free_factor 0: both stay);
 *   order-0 free of +0x10, drained (the free path's: free_factor 1);
 *   order-1 free of ZSTART, drained at once (free_high);
 *   order-0 free of +0x11, drained (free_factor 2), then in the interrupt: order-1
 *   +2, order-0 +4, order-1 +6, none drained; then the task's order-0 free of +8.
 * +2, +4, +6 go to the buddy (+2 merging with ZSTART), +8 and the first two stay. On
 * 6.12 (another free_high) the same events leave +2 on the pcp list.
 */
static void free_high_events(struct cap *c, const char *release)
{
	const uint64_t used = KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON) | KPF_BIT(KPF_MMAP);
	uint64_t p;

	ck_assert_int_eq(tdb_set_meta(c->db, "kernel_release", release), 0);
	for (p = ZSTART; p < ZSTART + 0x20; p++)
		c->flags[p] = used;
	add_snapshot(c, 1, 0, 0);
	free_page(c, ZSTART + 0x12, 1, 0);
	free_page(c, ZSTART + 0x14, 0, 0);
	free_page(c, ZSTART + 0x10, 0, 0);
	ev(c, T_DRAIN, 0, USER_PID, ZSTART + 0x10, 0, 1, 0, 0, 0);
	free_page(c, ZSTART, 1, 0);
	ev(c, T_DRAIN, 0, USER_PID, ZSTART, 1, 1, 0, 0, 0);
	free_page(c, ZSTART + 0x11, 0, 0);
	ev(c, T_DRAIN, 0, USER_PID, ZSTART + 0x11, 0, 1, 0, 0, 0);
	free_page(c, ZSTART + 2, 1, 0);
	free_page(c, ZSTART + 4, 0, 0);
	free_page(c, ZSTART + 6, 1, 0);
	free_page(c, ZSTART + 8, 0, 0);
	ev(c, T_ALLOC, 1, USER_PID, ZSTART + 0x400, 0, GFP_MOVABLE, 1, 0, 0);
	cap_end(c);
}

static void want_state(struct replay *rp, uint64_t pfn, enum model_pfn_state state,
		       uint64_t head, unsigned int order)
{
	struct model_pfn_info pi;

	ck_assert_int_eq(model_pfn_info(rp_model(rp), pfn, &pi), 0);
	ck_assert_msg(pi.state == state && pi.head == head && pi.order == order,
		      "%#llx: state %d head %#llx order %u, want state %d head %#llx order %u",
		      (unsigned long long)pfn, pi.state, (unsigned long long)pi.head, pi.order,
		      state, (unsigned long long)head, order);
}

START_TEST(test_free_high_bypass)
{
	struct replay *rp;
	struct tdb *db;
	struct cap c;

	cap_begin(&c, "free-high.db");
	free_high_events(&c, "6.1.0-41-amd64");
	rp = replay_begin(c.path, &db);
	ck_assert_uint_eq(model_anomaly_total(rp_model(rp)), 0);
	ck_assert_uint_eq(rp_trylock_late(rp), 3);
	want_state(rp, ZSTART, MODEL_PFN_BUDDY, ZSTART, 2);
	want_state(rp, ZSTART + 4, MODEL_PFN_BUDDY, ZSTART + 4, 0);
	want_state(rp, ZSTART + 6, MODEL_PFN_BUDDY, ZSTART + 6, 1);
	want_state(rp, ZSTART + 8, MODEL_PFN_PCP, ZSTART + 8, 0);
	want_state(rp, ZSTART + 0x12, MODEL_PFN_PCP, ZSTART + 0x12, 1);
	want_state(rp, ZSTART + 0x14, MODEL_PFN_PCP, ZSTART + 0x14, 0);
	replay_end(rp, db);
	fixture_rm(c.path);

	cap_begin(&c, "free-high-6.12.db");
	free_high_events(&c, "6.12.38+deb12-amd64");
	rp = replay_begin(c.path, &db);
	ck_assert_uint_eq(rp_trylock_late(rp), 0);
	want_state(rp, ZSTART + 2, MODEL_PFN_PCP, ZSTART + 2, 1);
	replay_end(rp, db);
	fixture_rm(c.path);
}
END_TEST

/*
 * Before v6.10 a free block may sit on another type's list than its pageblock's: the
 * seed follows pagetypeinfo's free blocks per type where the order's total agrees. Every
 * pageblock Movable (pagetypeinfo's block counts); pageblock 0 in use but one free
 * order-4 block at +0x10, which pagetypeinfo lists as Unmovable. On 6.1 the seed files
 * it there (its pageblock stays Movable); on 6.12 (freelist hygiene) it stays Movable.
 */
START_TEST(test_seed_relists_free_block)
{
	static const char *const rel[] = { "6.1.0-41-amd64", "6.12.38+deb12-amd64" };
	static const char *const other[] = { "Unmovable", "Reclaimable", "HighAtomic" };
	const uint64_t used = KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON) | KPF_BIT(KPF_MMAP);
	uint64_t pf[4], p;
	struct replay *rp;
	struct tdb *db;
	struct cap c;
	int i, o, stored, eff;
	bool iso;

	cap_begin(&c, "relist.db");
	ck_assert_int_eq(tdb_set_meta(c.db, "kernel_release", rel[_i]), 0);
	for (p = ZSTART; p < ZSTART + 0x200; p++)
		c.flags[p] = p >= ZSTART + 0x10 && p < ZSTART + 0x20 ? KPF_BIT(KPF_BUDDY) : used;
	add_snapshot(&c, 1, 0, 0);
	for (i = 0; i < 3; i++)
		for (o = 0; o <= 10; o++)
			exec(c.db, "INSERT INTO pagetype_free VALUES (1, 0, 'Normal', '%s', %d, %d)",
			     other[i], o, !i && o == 4);
	exec(c.db, "UPDATE pagetype_free SET nr_free = nr_free - 1 WHERE migratetype = 'Movable' "
	     "AND ord = 4");
	ev(&c, T_ALLOC, 0, USER_PID, ZSTART + 0x400, 0, GFP_MOVABLE, 1, 0, 0);
	cap_end(&c);

	rp = replay_begin(c.path, &db);
	ck_assert_int_eq(model_free_list(rp_model(rp), 0, 4, 0, pf, 4), _i ? 0 : 1);
	if (!_i)
		ck_assert_uint_eq(pf[0], ZSTART + 0x10);
	ck_assert_int_eq(model_pageblock_mt(rp_model(rp), ZSTART, &stored, &eff, &iso), 0);
	ck_assert_int_eq(stored, 1);
	replay_end(rp, db);
	fixture_rm(c.path);
}
END_TEST

/* A zoneinfo zone's tail: two cpus' pagesets, batch 1, high 4, stat threshold 16. */
#define ZI_PAGESETS								\
	"        present  2048\n        managed  2048\n"				\
	"        protection: (0, 0, 0, 0, 0)\n  pagesets\n"			\
	"    cpu: 0\n              count: 0\n              high:  4\n"		\
	"              batch: 1\n  vm stats threshold: 16\n"			\
	"    cpu: 1\n              count: 0\n              high:  4\n"		\
	"              batch: 1\n  vm stats threshold: 16\n"			\
	"  node_unreclaimable:  0\n"

/*
 * The capture of test_teacher_infers_vmstat_fold(); @run_cpu >= 0: it traces
 * vmstat_update(), and one runs on that cpu after the @nr_normal Normal pages. *@r:
 * the teacher's result (caller frees).
 */
static void vmstat_fold_case(int run_cpu, int nr_normal, struct tc_result *r)
{
	static const char zoneinfo[] =
		"Node 0, zone    DMA32\n"
		"  pages free     2048\n        boost    0\n        min      10\n"
		"        low      20\n        high     30\n        spanned  2048\n"
		ZI_PAGESETS "  start_pfn:           4096\n"
		"Node 0, zone   Normal\n"
		"  pages free     2048\n        boost    0\n        min      2030\n"
		"        low      2040\n        high     2045\n        spanned  2048\n"
		ZI_PAGESETS "  start_pfn:           6144\n";
	struct rp_opts o = { .until_seq = UINT64_MAX };
	struct tdb *db;
	struct cap c;
	char *sql;
	int i;

	cap_begin(&c, "vmstat-fold.db");
	ck_assert_int_eq(tdb_set_meta(c.db, "kernel_release", "6.12.38"), 0);
	if (run_cpu >= 0)
		ck_assert_int_eq(tdb_set_meta(c.db, TDB_META_TRACED_WORK_FN, "vmstat_update"), 0);
	c.zsplit = ZSTART + 0x800;
	add_snapshot(&c, 1, 0, 0);
	ck_assert_int_ge(asprintf(&sql, "INSERT INTO snapshot_files VALUES (1, 'zoneinfo', '%s')",
				  zoneinfo), 0);
	ck_assert_msg(tdb_exec(c.db, sql) == 0, "%s", bc_errmsg());
	free(sql);
	for (i = 0; i < nr_normal; i++)
		alloc_page(&c, c.zsplit + (uint64_t)i, 0, 0);
	if (run_cpu >= 0)
		ev(&c, T_WORK, run_cpu, 0, 0x1000, 0x2000, 0, 0, 0, 0);
	for (i = 0; i < 5; i++)
		alloc_page(&c, ZSTART + (uint64_t)i, 0, 0);
	cap_end(&c);

	ck_assert_int_eq(tdb_open(c.path, TDB_READONLY, &db), 0);
	ck_assert_msg(tc_run(db, &o, 16, r) == 0, "%s", bc_errmsg());
	ck_assert_uint_eq(r->zones_with_limits, 2);
	ck_assert_uint_eq(r->all.requests, (uint64_t)nr_normal + 5);
	ck_assert(r->vmstat_traced == (run_cpu >= 0));
	tdb_close(db);
	fixture_rm(c.path);
}

/*
 * simulate --teacher and the NR_FREE_PAGES counter. DMA32 [ZSTART, +0x800) and Normal
 * [+0x800, ZEND), all free; Normal's low watermark 2,040 of its 2,048 pages, a stat
 * threshold of 16. cpu 0 takes 10 pages of Normal (each refill's -1 stays in cpu 0's
 * diff: the counter still reads 2,048), then the kernel serves 5 requests from DMA32,
 * as a counter with the diff folded (2,038, under the mark) makes it. The model asks
 * Normal first (the counter it keeps says 2,048): one zone disagreement, after which
 * the kernel's zone shows the diff was folded, and the model folds it: the next four
 * agree. Without that, all five are zone disagreements. Where the capture traces
 * vmstat_update(), cpu 0's run folds the diff before the five (no disagreement, none
 * inferred); cpu 1's run does not.
 */
START_TEST(test_teacher_infers_vmstat_fold)
{
	struct tc_result r;

	vmstat_fold_case(-1, 10, &r);
	ck_assert_msg(r.why[TC_WHY_ZONE] == 1 && r.vm_folds_inferred == 1,
		      "zone disagreements %llu, folds inferred %llu",
		      (unsigned long long)r.why[TC_WHY_ZONE],
		      (unsigned long long)r.vm_folds_inferred);
	ck_assert_uint_eq(r.dis[0].kernel_pfn, ZSTART);
	ck_assert_uint_ge(r.dis[0].model_pfn, ZSTART + 0x800);
	tc_result_free(&r);

	vmstat_fold_case(0, 10, &r);
	ck_assert_msg(r.why[TC_WHY_ZONE] == 0 && r.vm_folds_inferred == 0 &&
		      r.vmstat_updates == 1, "cpu 0's run: zone disagreements %llu, folds "
		      "inferred %llu, runs %llu", (unsigned long long)r.why[TC_WHY_ZONE],
		      (unsigned long long)r.vm_folds_inferred,
		      (unsigned long long)r.vmstat_updates);
	tc_result_free(&r);

	vmstat_fold_case(1, 10, &r);
	ck_assert_msg(r.why[TC_WHY_ZONE] == 1 && r.vm_folds_inferred == 1,
		      "cpu 1's run: zone disagreements %llu, folds inferred %llu",
		      (unsigned long long)r.why[TC_WHY_ZONE],
		      (unsigned long long)r.vm_folds_inferred);
	tc_result_free(&r);
}
END_TEST

/*
 * The same with cpu 0 taking 7 Normal pages: folded, the counter reads 2,041, over
 * the mark, yet the kernel serves the five from DMA32: its counter read at most 2,040,
 * so a diff held a free the model's does not (cpu 0 folded when idle, then freed: no
 * event shows the fold). Expect one zone disagreement, no fold inferred (folding all
 * does not explain it), cpu 0's diff moved within the threshold (one inference), and
 * the next four agree. Without that, all five are zone disagreements.
 */
START_TEST(test_teacher_infers_vmstat_diff)
{
	struct tc_result r;

	vmstat_fold_case(-1, 7, &r);
	ck_assert_msg(r.why[TC_WHY_ZONE] == 1 && r.vm_folds_inferred == 0 &&
		      r.vm_diffs_inferred == 1,
		      "zone disagreements %llu, folds inferred %llu, diffs inferred %llu",
		      (unsigned long long)r.why[TC_WHY_ZONE],
		      (unsigned long long)r.vm_folds_inferred,
		      (unsigned long long)r.vm_diffs_inferred);
	ck_assert_uint_eq(r.dis[0].kernel_pfn, ZSTART);
	ck_assert_uint_ge(r.dis[0].model_pfn, ZSTART + 0x800);
	ck_assert_uint_eq(r.all.same_pfn, 7 + 4);
	tc_result_free(&r);
}
END_TEST

/*
 * pageblock-type pass case: a whole-block claim (extfrag with change_ownership, found
 * order 10: blocks A re-typed Unmovable) and a steal (change_ownership 0: block B keeps
 * Movable), each followed by its allocation. Expect no violation, and in the model
 * both pageblocks of A Unmovable, both of B still Movable.
 */
START_TEST(test_pageblock_claim_and_steal_ok)
{
	static const uint64_t pfn[4] = { ZSTART, ZSTART + 0x200, ZSTART + 0x400, ZSTART + 0x600 };
	static const int want[4] = { 0, 0, 1, 1 };	/* Unmovable, Movable */
	struct chk_ctx *k;
	struct cap c;
	int mode, mt[4], i;

	cap_begin(&c, "claim.db");
	add_snapshot(&c, 1, 0, 0);
	ev(&c, T_EXTFRAG, 0, USER_PID, ZSTART, 0, 10, 0, 1, 1);
	ev(&c, T_ALLOC, 0, USER_PID, ZSTART, 0, 0xcc0, 0, 0, 0);
	ev(&c, T_EXTFRAG, 0, USER_PID, ZSTART + 0x400, 0, 10, 0, 1, 0);
	ev(&c, T_ALLOC, 0, USER_PID, ZSTART + 0x400, 0, 0xcc0, 0, 0, 0);
	free_page(&c, ZSTART, 0, 0);
	cap_end(&c);
	for (mode = 0; mode < 2; mode++) {
		struct chk_summary s;

		k = check(c.path, mode);
		expect_clean(k);
		chk_get_summary(k, &s);
		ck_assert_int_eq(s.r[CHK_PAGEBLOCK_TYPE].status, mode ? CHK_PASS : CHK_NOT_RUN);
		chk_destroy(k);
	}
	replayed_types(c.path, pfn, mt, 4);
	for (i = 0; i < 4; i++)
		ck_assert_msg(mt[i] == want[i], "pageblock 0x%llx: migratetype %d, wanted %d (%s)",
			      (unsigned long long)pfn[i], mt[i], want[i],
			      i < 2 ? "claimed" : "stolen from, type kept");
}
END_TEST

/* ---- seeded faults: crafted captures ------------------------------------------------ */

/*
 * pcp page handed out from an isolated block because the lists were not drained before
 * isolation: pfn 0x1800 sits on cpu 0's pcp list when block C is isolated, the attempt
 * drains nothing, and cpu 0 allocates it mid-attempt.
 * Expect isolation-escape/alloc-from-isolated at that mm_page_alloc, nothing else.
 */
START_TEST(test_fault_pcp_not_drained)
{
	uint64_t seq;
	struct chk_ctx *k;
	struct cap c;
	int mode;

	cap_begin(&c, "pcp.db");
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, C_START, 0, 0);
	free_page(&c, C_START, 0, 0);
	ev(&c, T_ISOMIG, 1, CONTIG_PID, C_START, C_START + 512, 512, 0, 0, 0);
	seq = ev(&c, T_ALLOC, 0, USER_PID, C_START, 0, GFP_MOVABLE, 1, 0, 0);
	ev(&c, T_ISOMIG, 1, CONTIG_PID, C_START + 512, C_END, 512, 0, 0, 0);
	ev(&c, T_MSTART, 1, CONTIG_PID, 2, 6, 0, 0, 0, 0);
	ev(&c, T_MEND, 1, CONTIG_PID, 0, 0, 2, 6, 0, 0);
	ev(&c, T_TEST, 1, CONTIG_PID, C_START, C_END, C_START, 0, 0, 0);
	cap_end(&c);
	for (mode = 0; mode < 2; mode++) {
		k = check(c.path, mode);
		expect_only(k, CHK_INV_ISO_ALLOC, 1, seq);
		chk_destroy(k);
	}
}
END_TEST

/*
 * The same page allocated while the drain burst is still running is the kernel's
 * accepted race (test_pages_isolated catches it), not an escape.
 */
START_TEST(test_alloc_during_drain_ok)
{
	struct chk_ctx *k;
	struct cap c;
	int mode;

	cap_begin(&c, "drainrace.db");
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, C_START, 0, 0);
	free_page(&c, C_START, 0, 0);
	alloc_page(&c, C_START + 1, 0, 0);
	free_page(&c, C_START + 1, 0, 0);
	ev(&c, T_DRAIN, 1, CONTIG_PID, C_START + 1, 0, 4, 0, 0, 0);
	ev(&c, T_ALLOC, 0, USER_PID, C_START, 0, GFP_MOVABLE, 1, 0, 0);
	ev(&c, T_ISOMIG, 1, CONTIG_PID, C_START, C_START + 512, 512, 1, 0, 0);
	ev(&c, T_MSTART, 1, CONTIG_PID, 2, 6, 0, 0, 0, 0);
	ev(&c, T_MEND, 1, CONTIG_PID, 0, 1, 2, 6, 0, 0);
	ev(&c, T_TEST, 1, CONTIG_PID, C_START, C_END, C_START, 0, 0, 0);
	cap_end(&c);
	for (mode = 0; mode < 2; mode++) {
		k = check(c.path, mode);
		expect_clean(k);
		chk_destroy(k);
	}
}
END_TEST

/*
 * Double free: a page freed, drained back to the buddy, then freed again.
 * Expect buddy-sanity/double-free at the second mm_page_free.
 */
START_TEST(test_fault_double_free)
{
	struct chk_ctx *k;
	struct cap c;
	uint64_t seq;
	int mode;

	cap_begin(&c, "dfree.db");
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, ZSTART, 0, 0);
	free_page(&c, ZSTART, 0, 0);
	ev(&c, T_DRAIN, 0, USER_PID, ZSTART, 0, 1, 0, 0, 0);
	seq = free_page(&c, ZSTART, 0, 1);
	cap_end(&c);
	for (mode = 0; mode < 2; mode++) {
		k = check(c.path, mode);
		expect_only(k, CHK_INV_BUDDY_DOUBLE_FREE, 1, seq);
		chk_destroy(k);
	}
}
END_TEST

/*
 * A second free of a pcp page cannot be told from alloc_pages_bulk() taking it from
 * the pcp list without an event, then freeing it: not reported.
 */
START_TEST(test_pcp_refree_not_reported)
{
	struct chk_ctx *k;
	struct cap c;

	cap_begin(&c, "bulk.db");
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, ZSTART, 0, 0);
	free_page(&c, ZSTART, 0, 0);
	free_page(&c, ZSTART, 0, 0);
	cap_end(&c);
	k = check(c.path, false);
	expect_clean(k);
	chk_destroy(k);
}
END_TEST

/*
 * A fallback's page has no zone_locked of its own since 6.10 (steal_suitable_fallback()
 * hands it out with only the extfrag event); from a refill it sits on a pcp list, from
 * which alloc_pages_bulk() may take it untraced, then free it (seen on 6.12: three
 * pages, the first named only by the extfrag, freed 40 s later with no allocation).
 * Expect no double free in the trace.
 */
START_TEST(test_fallback_page_refree_not_reported)
{
	struct chk_ctx *k;
	struct cap c;

	cap_begin(&c, "xf-bulk.db");
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, ZSTART, 0, 0);
	free_page(&c, ZSTART, 0, 0);
	ev(&c, T_DRAIN, 0, USER_PID, ZSTART, 0, 1, 0, 0, 0);
	ev(&c, T_EXTFRAG, 0, USER_PID, ZSTART, 0, 0, 0, 1, 0);
	free_page(&c, ZSTART, 0, 1);
	cap_end(&c);
	k = check(c.path, false);
	expect_clean(k);
	chk_destroy(k);
}
END_TEST

/* Case @i of a table test: capture PREFIXi.db begun, seeded by snapshot 1. */
static void cap_begin_case(struct cap *c, const char *prefix, unsigned int i)
{
	char name[32];

	snprintf(name, sizeof(name), "%s%u.db", prefix, i);
	cap_begin(c, name);
	add_snapshot(c, 1, 0, 0);
}

/*
 * Both modes (trace only, replayed): one buddy-sanity case explained and no violation,
 * or (!@explained) exactly @inv at @seq and nothing explained.
 */
static void expect_explained_or(const char *path, bool explained, enum chk_inv inv,
				uint64_t seq)
{
	struct chk_summary s;
	struct chk_ctx *k;
	int mode;

	for (mode = 0; mode < 2; mode++) {
		k = check(path, mode);
		chk_get_summary(k, &s);
		if (explained) {
			expect_clean(k);
			ck_assert_uint_eq(s.r[CHK_BUDDY_SANITY].explained, 1);
		} else {
			expect_only(k, inv, 1, seq);
			ck_assert_uint_eq(s.r[CHK_BUDDY_SANITY].explained, 0);
		}
		chk_destroy(k);
	}
}

/*
 * Untraced allocations after a drain (checkers/README.md), measured on 6.18: a page
 * freed twice with no allocation between (it left the pcp list with no event once),
 * drained, then freed again; four order-0 pages refilled and drained one by one, then
 * freed as one order-2 block nothing allocated. Both explained. The same block freed,
 * drained and freed again stays a double free (order 2 here; order 0 in
 * test_fault_double_free).
 */
START_TEST(test_untraced_alloc_after_drain)
{
	struct cap c[3];
	uint64_t seq = 0, i;
	int j;

	cap_begin(&c[0], "untraced0.db");
	add_snapshot(&c[0], 1, 0, 0);
	alloc_page(&c[0], ZSTART, 0, 0);
	free_page(&c[0], ZSTART, 0, 0);
	free_page(&c[0], ZSTART, 0, 0);
	ev(&c[0], T_DRAIN, 0, USER_PID, ZSTART, 0, 1, 0, 0, 0);
	free_page(&c[0], ZSTART, 0, 1);
	cap_end(&c[0]);

	cap_begin(&c[1], "untraced1.db");
	add_snapshot(&c[1], 1, 0, 0);
	for (i = 0; i < 4; i++)
		ev(&c[1], T_ZL, 1, USER_PID, (int64_t)(ZSTART + i), 0, 2, 1, 0, 0);
	for (i = 0; i < 4; i++)
		ev(&c[1], T_DRAIN, 0, USER_PID, (int64_t)(ZSTART + i), 0, 2, 0, 0, 0);
	free_page(&c[1], ZSTART, 2, 0);
	cap_end(&c[1]);

	cap_begin(&c[2], "untraced2.db");
	add_snapshot(&c[2], 1, 0, 0);
	alloc_page(&c[2], ZSTART, 2, 0);
	free_page(&c[2], ZSTART, 2, 0);
	ev(&c[2], T_DRAIN, 0, USER_PID, ZSTART, 2, 1, 0, 0, 0);
	seq = free_page(&c[2], ZSTART, 2, 0);
	cap_end(&c[2]);

	for (j = 0; j < 3; j++)
		expect_explained_or(c[j].path, j < 2, CHK_INV_BUDDY_DOUBLE_FREE, seq);
}
END_TEST

/*
 * A page table (GFP_PGTABLE_USER | __GFP_COMP, order 0) allocated again with no free
 * in between: the untraced free of a dead mm's pgd (checkers/README.md). Explained,
 * not a violation; the same with GFP_KERNEL (0xcc0) or at order 1 is one. Likewise a
 * pipe buffer (GFP_HIGHUSER | __GFP_ACCOUNT, order 0), but not GFP_HIGHUSER alone.
 */
START_TEST(test_pgtable_reuse_explained)
{
	static const struct {
		uint64_t gfp;
		unsigned int order;
		bool explained;
		bool zone_locked;	/* taken again by a refill, not mm_page_alloc */
	} cases[] = {
		{ 0x440dc0, 0, true, false }, { 0xdc0, 0, true, false }, { 0xcc0, 0, false, false },
		{ 0x440dc0, 1, false, false }, { 0x500cc2, 0, true, false },
		{ 0x100cc2, 0, false, false }, { 0x500cc2, 1, false, false },
		{ 0x440dc0, 0, true, true }, { 0xcc0, 0, false, true },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cap c;
		uint64_t seq;

		cap_begin_case(&c, "pt", i);
		ev(&c, T_ZL, 0, USER_PID, ZSTART, cases[i].order, 0, 1, 0, 0);
		ev(&c, T_ALLOC, 0, USER_PID, ZSTART, cases[i].order, (int64_t)cases[i].gfp, 0, 0, 0);
		if (cases[i].zone_locked)
			seq = ev(&c, T_ZL, 1, USER_PID, ZSTART, cases[i].order, 0, 1, 0, 0);
		else
			seq = ev(&c, T_ALLOC, 1, USER_PID, ZSTART, cases[i].order,
				 (int64_t)cases[i].gfp, 0, 0, 0);
		cap_end(&c);
		expect_explained_or(c.path, cases[i].explained, CHK_INV_BUDDY_ALLOC_IN_USE, seq);
	}
}
END_TEST

/*
 * A page allocated again with no free between that the last snapshot to read it
 * before then saw mlocked (KPF_MLOCKED): mlocked pages leave with no mm_page_free on
 * 6.18 (checkers/README.md). Explained; the same page read in use but not mlocked, or
 * read mlocked only after the second allocation, is a violation.
 */
START_TEST(test_mlocked_reuse_explained)
{
	static const struct {
		bool mlocked;
		bool read_before;	/* the snapshot comes before the second allocation */
		bool explained;
	} cases[] = {
		{ true, true, true }, { false, true, false }, { true, false, false },
	};
	const uint64_t used = KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON) | KPF_BIT(KPF_MMAP);
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cap c;
		uint64_t seq;

		cap_begin_case(&c, "mlocked", i);
		alloc_page(&c, ZSTART, 0, 0);
		c.flags[ZSTART] = used | (cases[i].mlocked ? KPF_BIT(KPF_UNEVICTABLE) |
					  KPF_BIT(KPF_MLOCKED) : 0);
		if (cases[i].read_before)
			add_snapshot(&c, 2, tdb_next_seq(c.db), 0);
		seq = ev(&c, T_ALLOC, 1, USER_PID, ZSTART, 0, GFP_MOVABLE, 1, 0, 0);
		if (!cases[i].read_before)
			add_snapshot(&c, 2, tdb_next_seq(c.db), 0);
		cap_end(&c);
		expect_explained_or(c.path, cases[i].explained, CHK_INV_BUDDY_ALLOC_IN_USE, seq);
	}
}
END_TEST

/*
 * Free page reporting (page_reporting_cycle()) holds whole free blocks off the lists
 * with no event: the seed reads them as flags 0, a later snapshot as free. replay
 * counts such a pageblock apart (pfns_reported), not as the model's error; a pageblock
 * with one page of another kind, or one an event touched, is compared as before.
 */
START_TEST(test_reported_blocks_apart)
{
	const uint64_t pb0 = ZSTART + 0x200, pb1 = ZSTART + 0x400, pb2 = ZSTART + 0x600;
	const struct rp_score *sc;
	struct replay *rp;
	struct tdb *db;
	struct cap c;
	uint64_t p;
	int n;

	cap_begin(&c, "reported.db");
	for (p = pb0; p < pb2 + 0x200; p++)
		c.flags[p] = 0;
	c.flags[pb1 + 7] = KPF_BIT(KPF_SLAB);		/* not a whole flags-0 pageblock */
	add_snapshot(&c, 1, 0, 0);
	ev(&c, T_ZL, 0, USER_PID, (int64_t)pb2 + 3, 0, 1, 1, 0, 0);	/* touched */
	for (p = ZSTART; p < ZEND; p++)
		c.flags[p] = KPF_BIT(KPF_BUDDY);
	c.flags[pb1 + 7] = KPF_BIT(KPF_SLAB);
	c.flags[pb2 + 3] = KPF_BIT(KPF_SLAB);
	add_snapshot(&c, 2, tdb_next_seq(c.db), 0);
	cap_end(&c);

	rp = replay_begin(c.path, &db);
	sc = rp_scores(rp, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(sc[0].pfns_reported, 512);	/* pb0 alone */
	ck_assert_uint_eq(sc[0].model_used_kernel_free, 511 + 511);	/* pb1, pb2 */
	replay_end(rp, db);
}
END_TEST

/*
 * A partial claim (try_to_claim_block() then __rmqueue_smallest()) traces extfrag with
 * the page taken, a block of the allocation's order anywhere on the list: aligned to
 * that order, not to the fallback order. A steal (change_ownership 0) names the
 * fallback block's head, which must be aligned to the fallback order.
 */
START_TEST(test_extfrag_partial_claim_head)
{
	static const struct {
		bool change_ownership;
		bool violation;
	} cases[] = { { true, false }, { false, true } };
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cap c;
		struct chk_ctx *k;
		uint64_t seq;

		cap_begin_case(&c, "claim", i);
		/* order-0 allocation out of an order-7 fallback block, pfn not 128-aligned */
		seq = ev(&c, T_EXTFRAG, 0, USER_PID, ZSTART + 0x48, 0, 7, 1, 0,
			 cases[i].change_ownership);
		cap_end(&c);
		k = check(c.path, false);
		if (cases[i].violation)
			expect_only(k, CHK_INV_BUDDY_ALIGN, 1, seq);
		else
			expect_clean(k);
		chk_destroy(k);
	}
}
END_TEST

/*
 * compaction_free() puts a migration target back on cc->freepages through
 * free_pages_prepare() (mm_page_free, no free to the allocator); the free scanner
 * took it from the buddy with no per-page event. A task inside a compaction
 * migrate_pages() freeing a page the trace has in the buddy is explained; the same
 * free outside compaction is a double free. So is a smaller block freed out of a
 * larger one the trace drained (allocated with no event).
 */
START_TEST(test_compaction_free_explained)
{
	static const struct {
		int reason;		/* of the migration before the free; -1: none */
		unsigned int drained;	/* order of the block drained */
		bool explained;
	} cases[] = { { 0, 0, true }, { -1, 0, false }, { 6, 0, false }, { -1, 2, true } };
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const unsigned int o = cases[i].drained;
		struct cap c;
		uint64_t seq;

		cap_begin_case(&c, "compact", i);
		alloc_page(&c, ZSTART, o, 0);
		free_page(&c, ZSTART, o, 0);
		ev(&c, T_DRAIN, 0, USER_PID, ZSTART, o, 1, 0, 0, 0);
		if (cases[i].reason >= 0)
			ev(&c, T_MSTART, 1, CONTIG_PID, 1, cases[i].reason, 0, 0, 0, 0);
		seq = ev(&c, T_FREE, 1, CONTIG_PID, ZSTART, 0, 0, 0, 0, 0);
		cap_end(&c);
		expect_explained_or(c.path, cases[i].explained, CHK_INV_BUDDY_DOUBLE_FREE, seq);
	}
}
END_TEST

/*
 * A long alloc_contig_range() migration while more tasks than the attempt finder
 * follows allocate and free: the attempt keeps its drain burst as its begin and its
 * first isolated pageblock as its start (other tasks' pages used to evict it).
 */
START_TEST(test_attempt_many_tasks)
{
	const struct tr_attempt *a;
	struct replay *rp;
	struct tdb *db;
	uint64_t drain;
	struct cap c;
	int n, pid;

	cap_begin(&c, "manytasks.db");
	add_snapshot(&c, 1, 0, 0);
	drain = ev(&c, T_DRAIN, 1, CONTIG_PID, ZSTART + 0x10, 0, 1, 0, 0, 0);
	ev(&c, T_ISOMIG, 1, CONTIG_PID, C_START, C_START + 512, 512, 0, 0, 0);
	for (pid = 1000; pid < 1100; pid++) {
		ev(&c, T_ZL, 0, pid, ZSTART + 0x100, 0, 1, 1, 0, 0);
		ev(&c, T_ALLOC, 0, pid, ZSTART + 0x100, 0, GFP_MOVABLE, 1, 0, 0);
		ev(&c, T_FREE, 0, pid, ZSTART + 0x100, 0, 0, 0, 0, 0);
	}
	ev(&c, T_ISOMIG, 1, CONTIG_PID, C_START + 512, C_END, 512, 0, 0, 0);
	ev(&c, T_MSTART, 1, CONTIG_PID, 2, 6, 0, 0, 0, 0);
	ev(&c, T_MEND, 1, CONTIG_PID, 0, 0, 2, 6, 0, 0);
	ev(&c, T_TEST, 1, CONTIG_PID, C_START, C_END, C_END, 0, 0, 0);
	cap_end(&c);

	rp = replay_begin(c.path, &db);
	a = rp_attempts(rp, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(a[0].start_pfn, C_START);
	ck_assert_uint_eq(a[0].seq_begin, drain);
	replay_end(rp, db);
}
END_TEST

/*
 * Allocation of a page in use, and the static rules: a misaligned head, an order above
 * MAX_PAGE_ORDER, a pfn outside the zone. Each its own rule, at its own event.
 */
START_TEST(test_fault_buddy_rules)
{
	static const struct {
		enum chk_inv inv;
		int t;
		uint64_t pfn;
		unsigned int order;
	} cases[] = {
		{ CHK_INV_BUDDY_ALLOC_IN_USE, T_ALLOC, ZSTART, 0 },
		{ CHK_INV_BUDDY_ALIGN, T_ALLOC, ZSTART + 0x201, 1 },
		{ CHK_INV_BUDDY_ORDER, T_FREE, ZSTART + 0x800, 11 },
		{ CHK_INV_BUDDY_PFN, T_FREE, 0x100, 0 },
	};
	struct chk_ctx *k;
	unsigned int i;
	int mode;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[32];
		struct cap c;
		uint64_t seq;

		snprintf(name, sizeof(name), "buddy%u.db", i);
		cap_begin(&c, name);
		add_snapshot(&c, 1, 0, 0);
		alloc_page(&c, ZSTART, 0, 0);
		if (cases[i].t == T_ALLOC)
			seq = ev(&c, T_ALLOC, 1, USER_PID, (int64_t)cases[i].pfn, cases[i].order,
				 GFP_MOVABLE, 1, 0, 0);
		else
			seq = ev(&c, T_FREE, 1, USER_PID, (int64_t)cases[i].pfn, cases[i].order,
				 0, 0, 0, 0);
		cap_end(&c);
		for (mode = 0; mode < 2; mode++) {
			k = check(c.path, mode);
			expect_only(k, cases[i].inv, 1, seq);
			chk_destroy(k);
		}
	}
}
END_TEST

/*
 * A contiguous range with one page still in use: pfn 0x1800 was allocated and never
 * freed or migrated, yet the test reports success.
 * Expect contig-exact/in-use-at-test at the test_pages_isolated event.
 */
START_TEST(test_fault_contig_in_use)
{
	struct chk_ctx *k;
	struct cap c;
	uint64_t seq;
	int mode;

	cap_begin(&c, "inuse.db");
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, C_START + 7, 0, 0);
	seq = attempt(&c, false, 0, C_END);
	isolate_free(&c);
	cap_end(&c);
	for (mode = 0; mode < 2; mode++) {
		k = check(c.path, mode);
		expect_only(k, CHK_INV_CONTIG_IN_USE, 1, seq);
		chk_destroy(k);
	}
}
END_TEST

/*
 * A page of a successful contiguous allocation allocated again before it was freed.
 * Expect contig-exact/allocated-while-held there.
 */
START_TEST(test_fault_contig_realloc)
{
	struct chk_ctx *k;
	struct cap c;
	uint64_t seq;
	int mode;

	cap_begin(&c, "realloc.db");
	add_snapshot(&c, 1, 0, 0);
	attempt(&c, false, 0, C_END);
	isolate_free(&c);
	seq = ev(&c, T_ALLOC, 0, USER_PID, C_START + 0x10, 0, GFP_MOVABLE, 1, 0, 0);
	cap_end(&c);
	for (mode = 0; mode < 2; mode++) {
		k = check(c.path, mode);
		expect_only(k, CHK_INV_CONTIG_REALLOC, 1, seq);
		chk_destroy(k);
	}
}
END_TEST

/*
 * The kernel's nr_free miscounted: at the end snapshot, buddyinfo claims 3 more free
 * order-3 blocks than the pages show (kpageflags), with nothing changing meanwhile.
 * Expect freecount/buddyinfo at that snapshot (replay only; trace only cannot run it).
 */
START_TEST(test_fault_buddyinfo_miscount)
{
	struct chk_ctx *k;
	struct cap c;
	uint64_t last;

	build_clean(&c, "miscount.db", 3);
	k = check(c.path, true);
	ck_assert_int_eq(tdb_open(c.path, TDB_READONLY, &c.db), 0);
	last = (uint64_t)tdb_event_count(c.db);
	tdb_close(c.db);
	expect_only(k, CHK_INV_FREECOUNT_BUDDYINFO, 1, last);
	chk_destroy(k);
	k = check(c.path, false);
	expect_clean(k);
	chk_destroy(k);
}
END_TEST

/*
 * buddyinfo scored per order in pages: the end snapshot's buddyinfo has 3 order-3 blocks
 * where the model (and the pages) have none, in a zone of 4096 free pages. The
 * relative error is 3/3 = 1 (it would be 3x against a kernel count of 1); the score is
 * the 24 pages off over the zone's 4120 free pages, and the worst order is named.
 */
START_TEST(test_buddyinfo_small_count_score)
{
	const struct rp_score *sc;
	struct replay *rp;
	struct tdb *db;
	struct cap c;
	int n;

	build_clean(&c, "smallcount.db", 3);
	rp = replay_begin(c.path, &db);
	sc = rp_scores(rp, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_double_eq_tol(sc->buddyinfo_max_rel_err, 1.0, 1e-9);
	ck_assert_double_eq_tol(sc->buddyinfo_order_err, 24.0 / 4120, 1e-9);
	ck_assert_double_eq_tol(sc->buddyinfo_begin_order_err, 24.0 / 4120, 1e-9);
	ck_assert_int_eq(sc->buddy_worst_order, 3);
	ck_assert_int_eq(sc->buddy_worst_model, 0);
	ck_assert_int_eq(sc->buddy_worst_kernel, 3);
	replay_end(rp, db);
}
END_TEST

/*
 * A page freed onto cpu 0's pcp list (mm_page_free, no event since) lies in block C when
 * alloc_contig_range() tests it (and fails on it), the drain having named no such page: either the drain
 * missed it (an escape) or it had left the list with no event (alloc_pages_bulk() takes
 * pcp pages untraced). Its next event tells. Never named again (in use, as vmalloc's
 * pages stay), or named next by its free: inconclusive. Named next by a pcp hit: it was
 * still on the list, an escape at the test.
 */
START_TEST(test_pcp_left_after_drain_judged)
{
	static const char *const names[] = { "pcpleft-none.db", "pcpleft-free.db",
					     "pcpleft-hit.db" };
	struct chk_ctx *k;
	struct chk_summary s;
	struct cap c;
	uint64_t test;
	int v;

	for (v = 0; v < 3; v++) {
		cap_begin(&c, names[v]);
		add_snapshot(&c, 1, 0, 0);
		alloc_page(&c, C_START + 5, 0, 0);
		free_page(&c, C_START + 5, 0, 0);
		test = attempt(&c, false, 0, C_START + 5);
		if (v == 1)
			free_page(&c, C_START + 5, 0, 0);
		if (v == 2)
			ev(&c, T_ALLOC, 0, USER_PID, C_START + 5, 0, GFP_MOVABLE, 1, 0, 0);
		cap_end(&c);
		/* the model's lists: with the replay */
		k = check(c.path, true);
		chk_get_summary(k, &s);
		if (v < 2) {
			if (s.violations)
				dump(k);
			ck_assert_uint_eq(s.violations, 0);
			ck_assert_uint_eq(s.r[CHK_ISOLATION_ESCAPE].inconclusive, 1);
		} else {
			expect_only(k, CHK_INV_ISO_FREELIST, 1, test);
		}
		chk_destroy(k);
	}
}
END_TEST

/* Lost events inside the attempt: the escape is inconclusive, not a pass or a failure. */
START_TEST(test_lost_window_inconclusive)
{
	struct chk_ctx *k;
	struct chk_summary s;
	struct cap c;
	uint64_t seq;
	int mode;

	cap_begin(&c, "lost.db");
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, C_START, 0, 0);
	free_page(&c, C_START, 0, 0);
	ev(&c, T_ISOMIG, 1, CONTIG_PID, C_START, C_START + 512, 512, 0, 0, 0);
	seq = ev(&c, T_ALLOC, 0, USER_PID, C_START, 0, GFP_MOVABLE, 1, 0, 0);
	ck_assert_int_eq(tdb_add_lost(c.db, 0, c.ts - 2000, c.ts, 5, seq), 0);
	ev(&c, T_TEST, 1, CONTIG_PID, C_START, C_END, C_START, 0, 0, 0);
	cap_end(&c);
	for (mode = 0; mode < 2; mode++) {
		k = check(c.path, mode);
		chk_get_summary(k, &s);
		if (s.violations)
			dump(k);
		ck_assert_uint_eq(s.violations, 0);
		ck_assert_uint_eq(s.lost_windows, 1);
		ck_assert_uint_ge(s.r[CHK_ISOLATION_ESCAPE].inconclusive, 1);
		ck_assert_int_eq(s.r[CHK_ISOLATION_ESCAPE].status, CHK_INCONCLUSIVE);
		chk_destroy(k);
	}
}
END_TEST


/* ---- seeded faults: model fault switches (model/model-fault.h) ---------------------- */

/* A model of the crafted layout, seeded from @flags (ZEND entries, pfn 0 up). */
static struct model *mk_model(const uint64_t *flags)
{
	struct model_layout L;
	struct model *m;

	fixture_layout_init(&L);
	fixture_layout_zone(&L, "Normal", ZSTART, ZEND - ZSTART);
	m = fixture_model(&L, "6.18.44");
	ck_assert_int_eq(model_seed_pfn_range(m, ZSTART, ZEND - ZSTART, flags + ZSTART, NULL), 0);
	return m;
}

static void flags_all(uint64_t *flags, uint64_t f)
{
	uint64_t p;

	for (p = 0; p < ZEND; p++)
		flags[p] = p < ZSTART ? KPF_BIT(KPF_NOPAGE) : f;
}

/* Checkers on @m; @recount_every events between full recounts (1: after each). */
static struct chk_ctx *mk_chk(struct model *m, uint64_t recount_every)
{
	struct chk_opts o = { .recount_every = recount_every };
	struct chk_ctx *c;

	ck_assert_int_eq(chk_create(&o, &c), 0);
	ck_assert_int_eq(chk_set_layout(c, m), 0);
	return c;
}

/* Apply one free through the checkers, as replay does. */
static void chk_free(struct chk_ctx *c, struct model *m, uint64_t seq, uint64_t pfn,
		     unsigned int order)
{
	struct tr_event e = { .kind = TR_EV_PAGE_FREE, .seq = seq, .ts = 1000 * seq, .cpu = 0,
			      .pid = USER_PID, .pfn = pfn, .order = order, .mt = -1 };

	ck_assert_int_eq(chk_before_event(c, m, &e), 0);
	model_set_event(m, seq, e.ts);
	ck_assert_int_eq(model_page_free(m, pfn, order, 0), 0);
	ck_assert_int_eq(chk_after_event(c, m, &e), 0);
}

/*
 * A free page of an isolated pageblock merged into its non-isolated buddy.
 *
 *   0x1800          0x1a00          0x1c00
 *   | isolated (X)  | free, Movable |     X = 0x1800 in use, then freed
 *
 * The kernel stops the merge at order 9 (ISOLATE is not mergeable); with
 * MODEL_FAULT_MERGE_ISOLATED the model makes one order-10 block of both.
 * Expect isolation-escape/merge-across-isolation at the free, and nothing without the
 * fault. The model's own free-list hygiene (a Movable block on the Isolate list) then
 * also fails the next full recount, freecount/recount, at the next check point.
 */
START_TEST(test_fault_merge_isolated)
{
	static uint64_t flags[ZEND];
	struct tr_attempt a = { .kind = TR_ATTEMPT_CONTIG, .start_pfn = C_START,
				.end_pfn = C_START + 512, .outer_start = C_START, .seq_begin = 1,
				.seq_test = 5, .seq_end = 5, .pid = CONTIG_PID };
	int fault;

	for (fault = 0; fault < 2; fault++) {
		struct chk_ctx *c;
		struct model *m;
		uint64_t fail;

		flags_all(flags, KPF_BIT(KPF_BUDDY));
		flags[C_START] = KPF_BIT(KPF_LRU);
		m = mk_model(flags);
		c = mk_chk(m, 1000000);
		ck_assert_int_eq(chk_set_attempts(c, &a, 1), 0);
		ck_assert_int_eq(model_set_faults(m, fault ? MODEL_FAULT_MERGE_ISOLATED : 0), 0);
		ck_assert_int_eq(model_isolate_range(m, a.start_pfn, a.end_pfn,
						     MODEL_ISOLATE_OTHER, &fail), 0);
		ck_assert_int_eq(chk_attempt_begin(c, m, &a), 0);
		chk_free(c, m, 2, C_START, 0);
		if (fault)
			expect_only(c, CHK_INV_ISO_MERGE, 1, 2);
		else
			expect_clean(c);
		ck_assert_int_eq(chk_model(c, m), 0);	/* the next check point */
		ck_assert_uint_eq(chk_inv_count(c, CHK_INV_FREECOUNT_RECOUNT), fault);
		model_set_faults(m, 0);
		chk_destroy(c);
		model_destroy(m);
	}
}
END_TEST

/*
 * nr_free miscount: with MODEL_FAULT_NR_FREE a block freed onto a free list is not
 * added to the zone's free count. Expect freecount/recount at that free (the model is
 * recounted after every event here), nothing without the fault.
 */
START_TEST(test_fault_nr_free)
{
	static uint64_t flags[ZEND];
	int fault;

	for (fault = 0; fault < 2; fault++) {
		struct chk_ctx *c;
		struct model *m;
		uint64_t p;

		flags_all(flags, KPF_BIT(KPF_BUDDY));
		for (p = ZSTART; p < ZSTART + 16; p++)
			flags[p] = KPF_BIT(KPF_LRU);
		m = mk_model(flags);
		c = mk_chk(m, 1);
		ck_assert_int_eq(model_set_faults(m, fault ? MODEL_FAULT_NR_FREE : 0), 0);
		chk_free(c, m, 1, ZSTART, 4);	/* order 4: not a pcp order, to the buddy */
		if (fault)
			expect_only(c, CHK_INV_FREECOUNT_RECOUNT, 1, 1);
		else
			expect_clean(c);
		model_set_faults(m, 0);
		chk_destroy(c);
		model_destroy(m);
	}
}
END_TEST

/*
 * A migratetype changed without cause: block 0x1800 is Unmovable; a (hypothetical)
 * alloc_contig_range of block C isolates and un-isolates it. Since v6.17 the undo keeps
 * the stored type; MODEL_FAULT_UNDO_RETYPE writes MOVABLE over it as older kernels did.
 * Expect pageblock-type/type-changed-without-cause from chk_after_contig(), nothing
 * without the fault. The allocation itself is freed first, so the range is free again
 * when the attempt is made.
 */
START_TEST(test_fault_undo_retype)
{
	static uint64_t flags[ZEND];
	int fault;

	for (fault = 0; fault < 2; fault++) {
		struct chk_ctx *c;
		struct model *m;
		struct model_contig_req creq = { .start = C_START, .end = C_END,
						 .kind = MODEL_KIND_HUGETLB };
		struct model_contig_result cres;

		flags_all(flags, KPF_BIT(KPF_BUDDY));
		m = mk_model(flags);
		ck_assert_int_eq(model_set_pageblock_mt(m, C_START, 0), 0);
		c = mk_chk(m, 1);
		ck_assert_int_eq(model_set_faults(m, fault ? MODEL_FAULT_UNDO_RETYPE : 0), 0);
		ck_assert_int_eq(model_checkpoint(m), 0);
		ck_assert_int_eq(chk_contig_begin(c, m, C_START, C_END), 0);
		ck_assert_int_eq(model_alloc_contig_range(m, &creq, &cres), 0);
		ck_assert_int_eq(cres.ret, 0);
		ck_assert_int_eq(chk_after_contig(c, m, C_START, C_END, 0), 0);
		ck_assert_int_eq(model_rollback(m), 0);
		if (fault)
			expect_only(c, CHK_INV_PB_TYPE_CHANGE, 1, CHK_NO_SEQ);
		else
			expect_clean(c);
		model_set_faults(m, 0);
		chk_destroy(c);
		model_destroy(m);
	}
}
END_TEST

/*
 * An offline whose isolation the kernel refused in block C's second pageblock (its
 * "unmovable page" dump): the first pageblock, Unmovable, was isolated and undone to
 * Movable (unset_migratetype_isolate(), 6.12) with no event. Replay makes it
 * (model_isolate_refused()) between chk_refusal() before and after. Expect no
 * violation and the re-type explained; without the after-hook the change is a
 * pageblock-type violation at the next check point, unless the capture holds no probe
 * records (an imported trace, which cannot show the refusal: explained), and then
 * only a re-type to Movable (the undo's) is.
 */
START_TEST(test_refusal_retype_explained)
{
	static uint64_t flags[ZEND];
	struct tr_attempt a = { .kind = TR_ATTEMPT_OFFLINE, .from_probe = true,
				.start_pfn = C_START, .end_pfn = C_END, .seq_begin = 5,
				.seq_test = 9, .seq_end = 9, .ts_test = 9000,
				.fin_pfn = C_START + 512 + 7 };
	int hook;

	/* 0: no after-hook; 1: the hook; 2, 3: no hook, no probe records, to Movable / not */
	for (hook = 0; hook < 4; hook++) {
		struct model_layout L;
		struct chk_summary s;
		struct chk_ctx *c;
		struct model *m;
		int mt;

		flags_all(flags, KPF_BIT(KPF_BUDDY));
		fixture_layout_init(&L);
		fixture_layout_zone(&L, "Normal", ZSTART, ZEND - ZSTART);
		m = fixture_model(&L, "6.12.95");
		ck_assert_int_eq(model_seed_pfn_range(m, ZSTART, ZEND - ZSTART, flags + ZSTART,
						      NULL), 0);
		ck_assert_int_eq(model_set_pageblock_mt(m, C_START, 0), 0);
		c = mk_chk(m, 1);
		if (hook >= 2)
			chk_set_probe_records(c, false);
		else
			ck_assert_int_eq(chk_refusal(c, m, &a, false), 0);
		if (hook == 3)	/* no undo does this: Unmovable -> Reclaimable */
			ck_assert_int_eq(model_set_pageblock_mt(m, C_START, 2), 0);
		else
			ck_assert_int_eq(model_isolate_refused(m, C_START, C_END,
							       MODEL_ISOLATE_MEM_OFFLINE,
							       a.fin_pfn), 0);
		ck_assert_int_eq(model_pageblock_mt(m, C_START, &mt, NULL, NULL), 0);
		ck_assert_int_eq(mt, hook == 3 ? 2 : 1);
		if (hook == 1)
			ck_assert_int_eq(chk_refusal(c, m, &a, true), 0);
		ck_assert_int_eq(chk_finish(c, m), 0);
		chk_get_summary(c, &s);
		if (hook == 1 || hook == 2) {
			expect_clean(c);
			ck_assert_uint_ge(s.r[CHK_PAGEBLOCK_TYPE].explained, 1);
		} else {
			expect_only(c, CHK_INV_PB_TYPE_CHANGE, 1, CHK_NO_SEQ);
		}
		chk_destroy(c);
		model_destroy(m);
	}
}
END_TEST

/*
 * A contiguous range taken with one page still in use: page 0x1810 of block C is in
 * use with no flags (a driver page or a tail of a non-compound allocation), which
 * isolation accepts (refcount-0 look) and migration skips silently. The kernel's test
 * fails there; with
 * MODEL_FAULT_TEST_SKIPS_USED the model's test steps over it and the attempt succeeds.
 * Expect contig-exact/in-use-at-test from chk_after_contig(), and a clean failure
 * without the fault.
 */
START_TEST(test_fault_test_skips_used)
{
	static uint64_t flags[ZEND];
	int fault;

	for (fault = 0; fault < 2; fault++) {
		struct chk_ctx *c;
		struct model *m;
		struct model_contig_req creq = { .start = C_START, .end = C_END,
						 .kind = MODEL_KIND_HUGETLB };
		struct model_contig_result cres;
		uint64_t p;
		int rc;

		flags_all(flags, KPF_BIT(KPF_BUDDY));
		for (p = ZSTART; p < ZSTART + 0x100; p++)
			flags[p] = KPF_BIT(KPF_LRU);
		flags[C_START + 0x10] = 0;
		m = mk_model(flags);
		c = mk_chk(m, 1);
		ck_assert_int_eq(model_set_faults(m, fault ? MODEL_FAULT_TEST_SKIPS_USED : 0), 0);
		ck_assert_int_eq(model_checkpoint(m), 0);
		ck_assert_int_eq(chk_contig_begin(c, m, C_START, C_END), 0);
		ck_assert_int_eq(model_alloc_contig_range(m, &creq, &cres), 0);
		rc = cres.ret;
		ck_assert_int_eq(rc, fault ? 0 : -BC_E_BUSY);
		ck_assert_int_eq(chk_after_contig(c, m, C_START, C_END, rc), 0);
		ck_assert_int_eq(model_rollback(m), 0);
		if (fault)
			expect_only(c, CHK_INV_CONTIG_IN_USE, 1, CHK_NO_SEQ);
		else
			expect_clean(c);
		model_set_faults(m, 0);
		chk_destroy(c);
		model_destroy(m);
	}
}
END_TEST

/* A hypothetical attempt on a free range, and one on a range with a slab page: both
 * pass every checker (success, and a clean failure at isolation). */
START_TEST(test_hypothetical_clean)
{
	static uint64_t flags[ZEND];
	struct chk_summary s;
	struct chk_ctx *c;
	struct model *m;
	struct model_contig_req creq = { .start = C_START, .end = C_END, .kind = MODEL_KIND_HUGETLB };
	struct model_contig_result cres;
	int rc;

	flags_all(flags, KPF_BIT(KPF_BUDDY));
	flags[ZSTART + 3] = KPF_BIT(KPF_SLAB);
	flags[C_START + 5] = KPF_BIT(KPF_LRU);
	m = mk_model(flags);
	c = mk_chk(m, 1);
	ck_assert_int_eq(chk_alloc_contig_range(c, m, &creq, &cres), 0);
	ck_assert_int_eq(cres.ret, 0);
	creq.start = ZSTART;
	creq.end = ZSTART + 1024;
	ck_assert_int_eq(chk_contig_begin(c, m, ZSTART, ZSTART + 1024), 0);
	ck_assert_int_eq(model_alloc_contig_range(m, &creq, &cres), 0);
	rc = cres.ret;
	ck_assert_int_ne(rc, 0);
	ck_assert_int_eq(chk_after_contig(c, m, ZSTART, ZSTART + 1024, rc), 0);
	expect_clean(c);
	chk_get_summary(c, &s);
	ck_assert_uint_eq(s.hypothetical, 2);
	chk_destroy(c);
	model_destroy(m);
}
END_TEST

/* ---- reports: TAP grammar, JUnit XML ------------------------------------------------ */

/* TAP version 13 as produced: version, plan, test points, diagnostics; the plan
 * matches the number of points, numbered from 1. Returns the "not ok" count. */
static int tap_validate(const char *out)
{
	const char *p = out;
	int plan = -1, n = 0, notok = 0, line = 0;

	while (*p) {
		const char *e = strchr(p, '\n');
		char buf[1024];
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int num, used = 0;

		ck_assert_uint_lt(len, sizeof(buf));
		memcpy(buf, p, len);
		buf[len] = 0;
		line++;
		if (line == 1) {
			ck_assert_str_eq(buf, "TAP version 13");
		} else if (line == 2) {
			ck_assert_int_eq(sscanf(buf, "1..%d%n", &plan, &used), 1);
			ck_assert_uint_eq((size_t)used, len);
		} else if (!strncmp(buf, "ok ", 3) || !strncmp(buf, "not ok ", 7)) {
			const char *q = buf + (buf[0] == 'n' ? 7 : 3);

			ck_assert_int_eq(sscanf(q, "%d%n", &num, &used), 1);
			ck_assert_int_eq(num, ++n);
			ck_assert_msg(q[used] == 0 || !strncmp(q + used, " - ", 3), "%s", buf);
			notok += buf[0] == 'n' && !strstr(buf, "# TODO");
		} else {
			ck_assert_msg(buf[0] == '#', "not TAP: '%s'", buf);
		}
		p = e ? e + 1 : p + len;
	}
	ck_assert_int_eq(plan, n);
	return notok;
}

START_TEST(test_report_formats)
{
	char cmd[4096], *out = NULL, *xml;
	struct cap c;
	int rc;

	cap_begin(&c, "fmt.db");
	add_snapshot(&c, 1, 0, 0);
	alloc_page(&c, ZSTART, 0, 0);
	free_page(&c, ZSTART, 0, 0);
	ev(&c, T_DRAIN, 0, USER_PID, ZSTART, 0, 1, 0, 0, 0);
	free_page(&c, ZSTART, 0, 1);		/* a double free: "<&>" escaping below */
	cap_end(&c);

	snprintf(cmd, sizeof(cmd), "%s check %s --format tap 2>/dev/null", fixture_bigchunk(),
		 c.path);
	rc = fixture_run(cmd, &out);
	ck_assert_int_eq(rc, 1);
	ck_assert_int_eq(tap_validate(out), 1);
	ck_assert_ptr_nonnull(strstr(out, "not ok 3 - buddy-sanity"));
	ck_assert_ptr_nonnull(strstr(out, "# buddy-sanity/double-free at seq 4"));
	free(out);

	xml = fixture_tmpfile("fmt.xml");
	snprintf(cmd, sizeof(cmd), "%s check %s --format junit -o %s 2>/dev/null",
		 fixture_bigchunk(), c.path, xml);
	ck_assert_int_eq(fixture_run(cmd, NULL), 1);
	snprintf(cmd, sizeof(cmd), "command -v xmllint >/dev/null || exit 77; xmllint --noout %s",
		 xml);
	rc = fixture_run(cmd, &out);
	ck_assert_msg(rc == 0, "xmllint (package libxml2-utils) failed or is missing: %s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "xmllint --xpath 'string(/testsuites/@failures)' %s", xml);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_int_eq(atoi(out), 1);
	free(out);

	/* Exit 0 on a clean capture, 2 on an unusable one. */
	build_clean(&c, "fmt-clean.db", 0);
	snprintf(cmd, sizeof(cmd), "%s check %s --format tap", fixture_bigchunk(), c.path);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_int_eq(tap_validate(out), 0);
	free(out);
	/* --store: one run of rows per check, names from invariants.def */
	snprintf(cmd, sizeof(cmd), "%s check %s --store >/dev/null && %s query %s \"SELECT "
		 "checker || ':' || status || ':' || explained FROM check_results WHERE run = 1 "
		 "AND checker = "
		 "'buddy-sanity'\"", fixture_bigchunk(), c.path, fixture_bigchunk(), c.path);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "buddy-sanity:pass:0"));
	free(out);
	snprintf(cmd, sizeof(cmd), "%s check %s/no-such.db", fixture_bigchunk(), c.path);
	ck_assert_int_eq(fixture_run(cmd, NULL), 2);
	snprintf(cmd, sizeof(cmd), "%s check %s --checker nope", fixture_bigchunk(), c.path);
	ck_assert_int_eq(fixture_run(cmd, NULL), 2);
}
END_TEST

/*
 * A pfn far beyond the memory map (a damaged trace: 2^45) is left out of the shadow
 * map and counted; the map used to grow to 2^30 pointers (8 GiB) for it. So is one
 * beyond the layout's last zone (2^36), below the bound used without a layout.
 */
START_TEST(test_pfn_beyond_map)
{
	static uint64_t flags[ZEND];
	struct tr_event e = { .kind = TR_EV_PAGE_ALLOC, .seq = 1, .ts = 1000, .pid = USER_PID,
			      .pfn = 1ull << 45, .order = 0, .mt = 1 };
	struct chk_summary sum;
	struct chk_ctx *c;
	struct model *m;

	flags_all(flags, KPF_BIT(KPF_BUDDY));
	m = mk_model(flags);
	c = mk_chk(m, 1000000);
	ck_assert_int_eq(chk_before_event(c, m, &e), 0);
	ck_assert_int_eq(chk_after_event(c, m, &e), 0);
	e.seq = 2;
	e.pfn = 1ull << 36;
	ck_assert_int_eq(chk_before_event(c, m, &e), 0);
	ck_assert_int_eq(chk_after_event(c, m, &e), 0);
	chk_get_summary(c, &sum);
	ck_assert_uint_eq(sum.pfns_outside, 2);
	chk_destroy(c);
	model_destroy(m);
}
END_TEST

Suite *checkers_suite(void)
{
	Suite *s = suite_create("checkers");
	TCase *core = tcase_create("core");
	TCase *inv = tcase_create("invariants");

	tcase_set_timeout(core, 60);
	tcase_set_timeout(inv, 60);
	tcase_add_test(core, test_names_stable);
	tcase_add_test(core, test_clean_capture);
	tcase_add_test(core, test_batch_interrupt_other_zone);
	tcase_add_test(core, test_batch_drain_interrupt);
	tcase_add_test(core, test_batch_other_zone_drain);
	tcase_add_test(core, test_refusal_retype_explained);
	tcase_add_test(core, test_batch_drain_then_task_free);
	tcase_add_test(core, test_refill_interrupt_free);
	tcase_add_test(core, test_refill_free_drained);
	tcase_add_test(core, test_refill_then_task_free);
	tcase_add_test(core, test_batch_gap_interrupt_free);
	tcase_add_test(core, test_snapshot_reads_pcp_block_free);
	tcase_add_test(core, test_free_high_bypass);
	tcase_add_test(core, test_teacher_infers_vmstat_fold);
	tcase_add_test(core, test_teacher_infers_vmstat_diff);
	tcase_add_loop_test(core, test_seed_relists_free_block, 0, 2);
	tcase_add_test(core, test_alloc_during_drain_ok);
	tcase_add_test(core, test_pcp_refree_not_reported);
	tcase_add_test(core, test_fallback_page_refree_not_reported);
	tcase_add_test(core, test_pageblock_claim_and_steal_ok);
	tcase_add_test(core, test_report_formats);
	suite_add_tcase(s, core);
	tcase_add_test(inv, test_fault_pcp_not_drained);
	tcase_add_test(inv, test_fault_double_free);
	tcase_add_test(inv, test_untraced_alloc_after_drain);
	tcase_add_test(inv, test_fault_buddy_rules);
	tcase_add_test(inv, test_pgtable_reuse_explained);
	tcase_add_test(inv, test_mlocked_reuse_explained);
	tcase_add_test(inv, test_reported_blocks_apart);
	tcase_add_test(inv, test_extfrag_partial_claim_head);
	tcase_add_test(inv, test_compaction_free_explained);
	tcase_add_test(core, test_attempt_many_tasks);
	tcase_add_test(inv, test_fault_contig_in_use);
	tcase_add_test(inv, test_fault_contig_realloc);
	tcase_add_test(inv, test_fault_buddyinfo_miscount);
	tcase_add_test(inv, test_buddyinfo_small_count_score);
	tcase_add_test(inv, test_lost_window_inconclusive);
	tcase_add_test(inv, test_pcp_left_after_drain_judged);
	tcase_add_test(inv, test_fault_merge_isolated);
	tcase_add_test(inv, test_fault_nr_free);
	tcase_add_test(inv, test_fault_undo_retype);
	tcase_add_test(inv, test_fault_test_skips_used);
	tcase_add_test(core, test_hypothetical_clean);
	tcase_add_test(core, test_pfn_beyond_map);
	suite_add_tcase(s, inv);
	return s;
}
