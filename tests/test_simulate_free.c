// SPDX-License-Identifier: GPL-2.0
/*
 * sim/: the free-running simulation. A free releases the page the simulation handed
 * out for that object (not the kernel's pfn); pages allocated before the capture are
 * released where they are; the figures of a hand-built state are the counts it holds;
 * a snapshot's figures against themselves differ by nothing; the JSON has the same
 * keys under "sim" and "kernel"; the stored rows are the printed run's; the 2 MiB and
 * 1 GiB counts made through a copy of the state are those made under the journal.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kpageflags.h"
#include "db/tdb.h"
#include "db/tdb-snap.h"
#include "model/decide.h"
#include "model/model.h"
#include "replay/replay.h"
#include "sim/sim-apply.h"
#include "sim/sim-contig.h"
#include "sim/sim-figures.h"
#include "sim/sim-pfnmap.h"
#include "sim/sim-requests.h"
#include "sim/sim-seed.h"
#include "sim/sim.h"
#include "tests/fixture.h"
#include "trace/tr-event.h"

#define GFP_KERNEL_		0xcc0ull
#define GFP_HIGHUSER_MOVABLE_	0x100ccaull

static struct sim_request req(enum sim_req_kind k, uint64_t pfn, unsigned int order, int mt,
			      uint64_t gfp)
{
	return (struct sim_request){ .kind = k, .pfn = pfn, .order = order, .mt = mt,
				     .gfp = gfp, .nr_pages = 1ull << order, .cpu = 0 };
}

static enum model_pfn_state state(struct model *m, uint64_t pfn)
{
	struct model_pfn_info pi;

	ck_assert_int_eq(model_pfn_info(m, pfn, &pi), 0);
	return pi.state;
}

START_TEST(test_free_releases_simulated_pfn)
{
	struct model *m = fixture_free_zone("6.18.0", 0x40000, 4096);
	const uint64_t kpfn = 0x40fff;	/* where the kernel put the object */
	uint64_t flags = KPF_BIT(KPF_SLAB), spfn;
	struct sim_stats st = { 0 };
	struct sim_apply *a;
	struct sim_request rq;

	/* a page in use before the capture, where the snapshot has it */
	ck_assert_int_eq(model_seed_pfn_range(m, 0x40800, 1, &flags, NULL), 0);
	ck_assert_int_eq(sim_apply_create(m, &st, &a), 0);
	rq = req(SIM_REQ_ALLOC, kpfn, 0, 1, GFP_HIGHUSER_MOVABLE_);
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	spfn = sim_apply_sim_pfn(a, kpfn);
	ck_assert_msg(spfn != UINT64_MAX && spfn != kpfn, "the model chose %#llx",
		      (unsigned long long)spfn);
	ck_assert_int_eq(state(m, spfn), MODEL_PFN_ALLOC);
	ck_assert_int_eq(state(m, kpfn), MODEL_PFN_BUDDY);

	rq = req(SIM_REQ_FREE, kpfn, 0, -1, 0);
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	ck_assert_int_ne(state(m, spfn), MODEL_PFN_ALLOC);
	ck_assert_uint_eq(sim_apply_sim_pfn(a, kpfn), UINT64_MAX);
	ck_assert_uint_eq(st.frees_before_capture, 0);
	ck_assert_uint_eq(st.frees_unmatched, 0);

	/* before the capture: released in place; a free page: nothing to release */
	rq = req(SIM_REQ_FREE, 0x40800, 0, -1, 0);
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	ck_assert_int_ne(state(m, 0x40800), MODEL_PFN_ALLOC);
	ck_assert_uint_eq(st.frees_before_capture, 1);
	rq = req(SIM_REQ_FREE, 0x40f00, 0, -1, 0);
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	ck_assert_uint_eq(st.frees_unmatched, 1);
	ck_assert_uint_eq(st.requests, 4);
	ck_assert_uint_eq(model_recount(m, NULL, 0), 0);
	sim_apply_destroy(a);
	model_destroy(m);
}
END_TEST

/*
 * A drain of the trace changes the simulation only where it holds exactly the
 * kernel's block: a pcp block of another order or head, or flags-0 seed pages the
 * simulation has made its own, stay as they are.
 */
START_TEST(test_drain_of_other_block)
{
	struct model *m = fixture_free_zone("6.18.0", 0x40000, 4096);
	uint64_t flags[4] = { 0, 0, KPF_BIT(KPF_SLAB), 0 };
	struct sim_stats st = { 0 };
	struct model_pfn_info pi;
	struct sim_apply *a;
	struct sim_request rq;

	/* an order-2 pcp block at 0x40100 (freed to cpu 0's list) */
	ck_assert_int_eq(model_page_alloc(m, 0x40100, 2, GFP_KERNEL_, 0, 0), 0);
	ck_assert_int_eq(model_page_free(m, 0x40100, 2, 0), 0);
	ck_assert_int_eq(state(m, 0x40100), MODEL_PFN_PCP);
	/* seed pages 0x40200..3 of flags 0 but one slab page */
	ck_assert_int_eq(model_seed_pfn_range(m, 0x40200, 4, flags, NULL), 0);
	ck_assert_int_eq(sim_apply_create(m, &st, &a), 0);

	rq = req(SIM_REQ_PCP_DRAIN, 0x40100, 0, 0, 0);		/* another order */
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	rq = req(SIM_REQ_PCP_DRAIN, 0x40101, 0, 0, 0);		/* inside, not its head */
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	ck_assert_int_eq(model_pfn_info(m, 0x40101, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_PCP);
	ck_assert_uint_eq(pi.head, 0x40100);
	ck_assert_uint_eq(pi.order, 2);
	rq = req(SIM_REQ_PCP_DRAIN, 0x40200, 2, 0, 0);		/* holds a slab page */
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	ck_assert_int_eq(state(m, 0x40200), MODEL_PFN_ALLOC);
	ck_assert_int_eq(state(m, 0x40202), MODEL_PFN_ALLOC);
	ck_assert_uint_eq(st.seed_pcp_drained, 0);

	/* exactly the block: drained to the buddy */
	rq = req(SIM_REQ_PCP_DRAIN, 0x40100, 2, 0, 0);
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	ck_assert_int_eq(state(m, 0x40100), MODEL_PFN_BUDDY);
	rq = req(SIM_REQ_PCP_DRAIN, 0x40200, 1, 0, 0);		/* two flags-0 pages */
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	ck_assert_int_eq(state(m, 0x40201), MODEL_PFN_BUDDY);
	ck_assert_uint_eq(st.seed_pcp_drained, 2);
	ck_assert_uint_eq(model_recount(m, NULL, 0), 0);
	sim_apply_destroy(a);
	model_destroy(m);
}
END_TEST

START_TEST(test_figures_hand_built)
{
	struct model *m = fixture_free_zone("6.18.0", 0x40000, 4096);
	struct model_request mr = { .cpu = 0, .order = 0, .migratetype = 0, .gfp = GFP_KERNEL_ };
	struct model_decision d;
	struct sim_figures f;
	uint64_t blocks = 0;
	int mt;

	ck_assert_int_eq(sim_figures_compute(m, NULL, &f), 0);
	ck_assert_uint_eq(f.nr_zones, 1);
	ck_assert_uint_eq(f.zone[0].free_pages, 4096);
	for (mt = 0; mt < SIM_MTS; mt++)
		blocks += f.zone[0].nr_free[10][mt];
	ck_assert_uint_eq(blocks, 4);
	ck_assert_int_eq(f.zone[0].largest_free_order, 12);
	ck_assert_uint_eq(f.pageblocks, 8);
	ck_assert_uint_eq(f.pb_unmovable, 0);
	ck_assert_uint_eq(f.contig_2m, 8);
	ck_assert_uint_eq(f.contig_1g, 0);

	/* one unmovable page: one pageblock holds it, the rest stays */
	ck_assert_int_eq(model_take(m, &mr, &d), 0);
	ck_assert_uint_eq(d.pfn, 0x40000);
	ck_assert_int_eq(sim_figures_compute(m, NULL, &f), 0);
	ck_assert_uint_eq(f.zone[0].free_pages, 4095);
	ck_assert_uint_eq(f.pb_unmovable, 1);
	ck_assert_uint_eq(f.zone[0].pb_unmovable, 1);
	ck_assert_uint_eq(f.unmovable_pages, 1);
	ck_assert_uint_eq(f.pageblocks, 8);
	ck_assert_int_eq(f.zone[0].largest_free_order, 11);
	ck_assert_uint_eq(f.contig_2m, 7);
	/* the counts' attempts were rolled back */
	ck_assert_uint_eq(model_recount(m, NULL, 0), 0);
	ck_assert_int_eq(state(m, 0x40200), MODEL_PFN_BUDDY);
	model_destroy(m);
}
END_TEST

/* Figures of a model seeded from snapshot @snap of @path. */
static void seeded_figures(struct tdb *db, int64_t snap, struct sim_figures *f)
{
	struct rp_opts ro = { .until_seq = UINT64_MAX, .no_score = true, .no_attempts = true,
			      .seed_snap = snap };
	struct replay *rp;

	ck_assert_int_eq(rp_create(db, &ro, &rp), 0);
	ck_assert_int_eq(sim_figures_compute(rp_model(rp), NULL, f), 0);
	rp_destroy(rp);
}

START_TEST(test_kernel_against_itself)
{
	struct sim_figures a, b;
	struct tdb_snap_info *si;
	struct sim_verdict v;
	struct tdb *db;
	int nr;

	ck_assert_int_eq(tdb_open(fixture_path("traces/thp.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(tdb_snap_list(db, &si, &nr), 0);
	ck_assert_int_ge(nr, 2);
	seeded_figures(db, si[nr - 1].id, &a);
	seeded_figures(db, si[nr - 1].id, &b);
	ck_assert_msg(!memcmp(&a, &b, sizeof(a)), "two seeds of one snapshot differ");
	sim_figures_verdict(&a, &b, &v);
	ck_assert(v.pb_unmovable_err == 0 && v.free_order_err == 0);
	ck_assert(v.pb_unmovable_ok && v.free_order_ok && v.contig_2m_ok && v.contig_1g_ok);
	ck_assert_uint_gt(a.pb_unmovable, 0);
	ck_assert_uint_gt(a.contig_2m, 0);
	/* and the verdict sees a difference */
	b.contig_2m++;
	b.pb_unmovable += b.pb_unmovable / 10 + 1;
	b.zone[b.nr_zones - 1].nr_free[0][1] += b.zone[b.nr_zones - 1].free_pages / 10;
	sim_figures_verdict(&b, &a, &v);
	ck_assert(!v.contig_2m_ok && v.contig_1g_ok && !v.pb_unmovable_ok && !v.free_order_ok);
	free(si);
	tdb_close(db);
}
END_TEST

/*
 * The per-order rule (sim-figures.h): a zone's order misses when its free blocks
 * differ by more than max(5% of the kernel's, one block, 64 pages); every miss is
 * listed with both counts and the tolerance.
 */
START_TEST(test_order_tolerance)
{
	static const struct { unsigned int o; uint64_t k, s; bool miss; } c[] = {
		{ 0, 100, 37, false }, { 0, 100, 35, true },	/* 64 pages */
		{ 3, 4, 12, false }, { 3, 4, 13, true },	/* 64 pages: 8 blocks */
		{ 5, 100, 95, false }, { 5, 100, 94, true },	/* 5% */
		{ 8, 1000, 1050, false }, { 8, 1000, 1051, true },
		{ 9, 1, 0, false }, { 10, 2, 4, true },		/* one block */
		{ 10, 0, 1, false }, { 10, 0, 2, true },
	};
	struct sim_figures k, sm;
	struct sim_verdict v;
	unsigned int i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		memset(&k, 0, sizeof(k));
		k.nr_zones = 1;
		k.max_order = 10;
		snprintf(k.zone[0].name, sizeof(k.zone[0].name), "Normal");
		k.zone[0].nr_free[c[i].o][1] = c[i].k;
		k.zone[0].free_pages = c[i].k << c[i].o;
		sm = k;
		sm.zone[0].nr_free[c[i].o][1] = c[i].s;
		sim_figures_verdict(&sm, &k, &v);
		ck_assert_msg(v.free_order_ok == !c[i].miss && v.nr_misses == c[i].miss,
			      "order %u: %llu against %llu: %u misses", c[i].o,
			      (unsigned long long)c[i].s, (unsigned long long)c[i].k, v.nr_misses);
		if (!c[i].miss)
			continue;
		ck_assert_str_eq(v.misses[0].zone, "Normal");
		ck_assert_uint_eq(v.misses[0].order, c[i].o);
		ck_assert_uint_eq(v.misses[0].sim, c[i].s);
		ck_assert_uint_eq(v.misses[0].kernel, c[i].k);
		ck_assert_uint_eq(v.misses[0].tolerance, sim_order_tolerance(c[i].k, c[i].o));
	}
}
END_TEST

/*
 * The "in a row" counts through a copy of the state (what simulate does) equal those
 * made under the undo journal, and both leave the state as it was: the figures made
 * again are the same, counts included.
 */
START_TEST(test_contig_copy_is_journal)
{
	const uint64_t sizes[2] = { 512, 262144 };
	struct sim_figures a, b;
	struct tdb_snap_info *si;
	uint64_t jr[2];
	struct rp_opts ro = { .until_seq = UINT64_MAX, .no_score = true, .no_attempts = true };
	struct replay *rp;
	struct model *m;
	struct tdb *db;
	int nr;

	ck_assert_int_eq(tdb_open(fixture_path("traces/thp.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(tdb_snap_list(db, &si, &nr), 0);
	ck_assert_int_ge(nr, 2);
	ro.seed_snap = si[nr - 1].id;
	ck_assert_int_eq(rp_create(db, &ro, &rp), 0);
	m = rp_model(rp);
	ck_assert_int_eq(sim_figures_compute(m, NULL, &a), 0);
	ck_assert_int_eq(sim_contig_count_journal(m, sizes, jr, 2), 0);
	ck_assert_uint_eq(jr[0], a.contig_2m);
	ck_assert_uint_eq(jr[1], a.contig_1g);
	ck_assert_uint_gt(a.contig_2m, 0);
	ck_assert_int_eq(sim_figures_compute(m, NULL, &b), 0);
	ck_assert_msg(!memcmp(&a, &b, sizeof(a)), "the figures differ after the counts");
	ck_assert_uint_eq(model_recount(m, NULL, 0), 0);
	rp_destroy(rp);
	free(si);
	tdb_close(db);
}
END_TEST

/* The keys (strings followed by ':') of @s between @from and @to, joined by ','. */
static void keys_between(const char *from, const char *to, char *out, size_t len)
{
	const char *p = from, *q;

	*out = '\0';
	while ((p = strchr(p, '"')) && p < to) {
		q = strchr(p + 1, '"');
		ck_assert_ptr_nonnull(q);
		if (q[1] == ':' && strlen(out) + (size_t)(q - p) + 2 < len) {
			strncat(out, p + 1, (size_t)(q - p - 1));
			strcat(out, ",");
		}
		p = q + 1;
	}
}

START_TEST(test_json_and_store)
{
	const char *cap = fixture_tmpfile("sim.db");
	static char ks[1 << 16], kk[1 << 16];
	char *out = NULL, *s, *k, *t;
	unsigned long long requests = 0;
	long long rows;

	fixture_copy(fixture_path("traces/thp.db"), cap);
	ck_assert_int_eq(fixture_run_bc(&out, "simulate --json %s 2>/dev/null", cap), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"snapshots\""));
	ck_assert_ptr_nonnull(strstr(out, "\"needed_reclaim\""));
	s = strstr(out, "\"sim\":");
	k = strstr(out, "\"kernel\":");
	t = strstr(out, "\"targets\":");
	ck_assert(s && k && t && s < k && k < t);
	keys_between(s + 6, k, ks, sizeof(ks));
	keys_between(k + 9, t, kk, sizeof(kk));
	ck_assert_msg(!strcmp(ks, kk), "sim keys %s\nkernel keys %s", ks, kk);
	ck_assert_ptr_nonnull(strstr(ks, "pageblocks_unmovable,"));
	ck_assert_ptr_nonnull(strstr(ks, "contig_1g,"));
	ck_assert_ptr_nonnull(strstr(ks, "free_blocks,"));
	ck_assert_ptr_nonnull(strstr(ks, "largest_free_order,"));
	ck_assert_int_eq(sscanf(strstr(out, "\n  \"requests\":"), "\n  \"requests\": %llu", &requests), 1);
	ck_assert_uint_gt(requests, 0);
	free(out);

	rows = fixture_sql_count(cap, "SELECT count(*) FROM simulate_figures WHERE side = 'sim'");
	ck_assert_int_gt(rows, 0);
	ck_assert_int_eq(fixture_sql_count(cap, "SELECT count(*) FROM simulate_figures WHERE "
					   "side = 'kernel'"), rows);
	ck_assert_int_eq(fixture_sql_count(cap, "SELECT count(*) FROM (SELECT snap, zone, name "
					   "FROM simulate_figures WHERE side = 'sim' EXCEPT SELECT "
					   "snap, zone, name FROM simulate_figures WHERE side = "
					   "'kernel')"), 0);
	ck_assert_int_eq(fixture_sql_count(cap, "SELECT value FROM simulate_figures WHERE side = "
					   "'run' AND name = 'requests'"), (long long)requests);
	/* a second run replaces the first */
	ck_assert_int_eq(fixture_run_bc(NULL, "simulate %s >/dev/null 2>&1", cap), 0);
	ck_assert_int_eq(fixture_sql_count(cap, "SELECT count(*) FROM simulate_figures WHERE "
					   "side = 'sim'"), rows);
	ck_assert_int_eq(fixture_run_bc(NULL, "simulate --bogus %s >/dev/null 2>&1", cap), 2);
	/* --kernel-zones: a diagnostic, not stored; not with --teacher */
	fixture_sql_exec(cap, "DELETE FROM simulate_figures");
	ck_assert_int_eq(fixture_run_bc(&out, "simulate --kernel-zones --json %s 2>/dev/null",
					cap), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"kernel_zones\": true"));
	ck_assert_ptr_nonnull(strstr(out, "\"allocs_other_zone\": 0,"));
	free(out);
	ck_assert_int_eq(fixture_sql_count(cap, "SELECT count(*) FROM simulate_figures"), 0);
	ck_assert_int_eq(fixture_run_bc(&out, "simulate --teacher --kernel-zones %s 2>&1", cap), 2);
	ck_assert_ptr_nonnull(strstr(out, "--kernel-zones is for the free-running mode"));
	free(out);
	fixture_rm(cap);
}
END_TEST

/*
 * A zone 16 pages above its watermarks (4,000 of 4,096 pages, a stat threshold of
 * 1,000) and eight order-4 allocations on cpu 0 from @t0: -128 in cpu 0's diff, not
 * folded, all served. *@a over @m and @st (caller destroys both).
 */
/* On @a at @ts: an order-4 movable allocation of kernel pfn @pfn on cpu 0, or (pfn
 * UINT64_MAX) a run of vmstat_update() on @cpu. */
static void vmstat_req(struct sim_apply *a, uint64_t pfn, int cpu, uint64_t ts)
{
	struct sim_request rq = pfn == UINT64_MAX ? req(SIM_REQ_VMSTAT, pfn, 0, -1, 0) :
				req(SIM_REQ_ALLOC, pfn, 4, 1, GFP_HIGHUSER_MOVABLE_);

	rq.cpu = cpu;
	rq.ts = ts;
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
}

static struct model *vmstat_zone(struct sim_stats *st, struct sim_apply **a, bool traced,
				 uint64_t t0)
{
	struct model *m = fixture_free_zone("6.18.0", 0x40000, 4096);
	struct model_zone_limits l = { .wmark_min = 4000, .wmark_low = 4000, .wmark_high = 4000,
				       .pcp_batch = 1, .pcp_high_min = 4, .pcp_high_max = 4,
				       .stat_threshold = 1000 };
	int i;

	ck_assert_int_eq(model_set_zone_limits(m, 0, &l), 0);
	ck_assert_int_eq(sim_apply_create(m, st, a), 0);
	sim_apply_set_vmstat_traced(*a, traced);
	/* 4096 free: 6 allocations bring it to 4000 (the last check saw 4016) */
	for (i = 0; i < 8; i++)
		vmstat_req(*a, 0x40000 + 16 * (uint64_t)i, 0, t0 + (uint64_t)i);
	/* the counter still reads 4096 (-128 not folded): all 8 were served */
	ck_assert_uint_eq(st->needed_reclaim, 0);
	ck_assert_uint_eq(model_zone_nr_free(m, 0), 4096 - 128);
	return m;
}

/*
 * The free-running watermark checks read NR_FREE_PAGES as the kernel keeps it: each
 * request's change is a per-cpu diff (__mod_zone_page_state()) folded only past the
 * zone's stat threshold or by refresh_cpu_vm_stats() once a second (vmstat_update()).
 * A zone 16 pages above its watermarks takes order-4 allocations (no pcp) on the diff
 * the kernel has not folded; after the second's fold the counter is exact and the next
 * one would need reclaim.
 */
START_TEST(test_vmstat_diff_and_fold)
{
	const uint64_t t0 = 1000000000ull;
	struct sim_stats st = { 0 };
	struct sim_apply *a;
	struct model *m = vmstat_zone(&st, &a, false, t0);

	/* a second later vmstat_update() folds the diff: 3968 is below the watermark */
	vmstat_req(a, 0x40800, 0, t0 + 1000000001ull);
	ck_assert_uint_eq(st.needed_reclaim, 1);
	sim_apply_destroy(a);
	model_destroy(m);
}
END_TEST

/*
 * A capture that traces vmstat_update() says when each cpu's diffs were folded: no
 * fold is guessed at the second, a run on another cpu leaves cpu 0's diff alone, and
 * cpu 0's own run folds it (then the counter is exact and the next allocation would
 * need reclaim).
 */
START_TEST(test_vmstat_traced_runs)
{
	const uint64_t t0 = 1000000000ull;
	struct sim_stats st = { 0 };
	struct sim_apply *a;
	struct model *m = vmstat_zone(&st, &a, true, t0);

	/* three seconds on, no run traced: the diff of -128 is still unfolded */
	vmstat_req(a, 0x40800, 0, t0 + 3000000000ull);
	ck_assert_uint_eq(st.needed_reclaim, 0);
	/* cpu 1's run folds cpu 1's diff only */
	vmstat_req(a, UINT64_MAX, 1, t0 + 3000000001ull);
	vmstat_req(a, 0x40810, 0, t0 + 3000000002ull);
	ck_assert_uint_eq(st.needed_reclaim, 0);
	/* cpu 0's run: 4096 - 160 read, under the watermark */
	vmstat_req(a, UINT64_MAX, 0, t0 + 3000000003ull);
	vmstat_req(a, 0x40820, 0, t0 + 3000000004ull);
	ck_assert_uint_eq(st.needed_reclaim, 1);
	ck_assert_uint_eq(st.vmstat_updates, 2);
	ck_assert(st.vmstat_traced);
	sim_apply_destroy(a);
	model_destroy(m);
}
END_TEST

/*
 * An allocation the kernel served from DMA32 (its pfn says so) that the model serves
 * from Normal (first in the zonelist, all free) is counted by zone pair; with
 * sim_apply_set_kernel_zones() it is held to DMA32 and nothing is counted.
 */
START_TEST(test_other_zone_counted)
{
	struct model_layout l;
	struct sim_stats st;
	struct sim_apply *a;
	struct sim_request rq;
	struct model *m;
	uint64_t spfn;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		fixture_layout_init(&l);
		fixture_layout_zone(&l, "DMA32", 0x3f000, 4096);
		fixture_layout_zone(&l, "Normal", 0x40000, 4096);
		m = fixture_model(&l, "6.18.0");
		fixture_seed(m, 0x3f000, 2 * 4096, KPF_BIT(KPF_BUDDY));
		memset(&st, 0, sizeof(st));
		ck_assert_int_eq(sim_apply_create(m, &st, &a), 0);
		sim_apply_set_kernel_zones(a, pass == 1);
		rq = req(SIM_REQ_ALLOC, 0x3f800, 4, 1, GFP_HIGHUSER_MOVABLE_);
		ck_assert_int_eq(sim_apply_request(a, &rq), 0);
		spfn = sim_apply_sim_pfn(a, 0x3f800);
		ck_assert_uint_ne(spfn, UINT64_MAX);
		if (pass == 0) {
			ck_assert_uint_ge(spfn, 0x40000);
			ck_assert_uint_eq(st.other_zone_total, 1);
			ck_assert_uint_eq(st.other_zone[0][1], 1);
		} else {
			ck_assert_uint_lt(spfn, 0x40000);
			ck_assert_uint_eq(st.other_zone_total, 0);
			ck_assert(st.kernel_zones);
		}
		sim_apply_destroy(a);
		model_destroy(m);
	}
}
END_TEST

/*
 * A range whose end overflows (start + size past 2^64) is refused, not wrapped to a
 * small end and reported as a success; so is an empty one.
 */
START_TEST(test_contig_range_overflow)
{
	struct model *m = fixture_free_zone("6.18.0", 0x40000, 4096);
	static const struct { uint64_t s, nr; } bad[] = {
		{ UINT64_MAX, 512 }, { UINT64_MAX, 1 }, { UINT64_MAX - 10, 512 },
		{ 0x40000, UINT64_MAX }, { 0x40000, UINT64_MAX - 0x3ffff }, { 0x40000, 0 },
	};
	struct model_contig_result res;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		res.ret = 0;
		ck_assert_msg(sim_contig_range(m, bad[i].s, bad[i].nr, MODEL_ISOLATE_OTHER, NULL,
					       &res) < 0, "[%#llx, +%#llx): not refused",
			      (unsigned long long)bad[i].s, (unsigned long long)bad[i].nr);
	}
	/* the same zone's range is served */
	ck_assert_int_eq(sim_contig_range(m, 0x40000, 512, MODEL_ISOLATE_OTHER, NULL, &res), 0);
	ck_assert_int_eq(res.ret, 0);
	ck_assert_int_eq(model_recount(m, NULL, 0), 0);
	model_destroy(m);
}
END_TEST

/*
 * The kernel's exact count (/proc/buddyinfo, read right after a snapshot's begin
 * marker) against the simulation's buddy at that marker: the kernel's side is the
 * snapshot's buddyinfo rows as stored, and on pins.db and extfrag.db no order misses
 * there (their end-of-snapshot misses come from the pages read later).
 */
START_TEST(test_buddyinfo_at_start)
{
	static const char *const caps[] = { "pins.db", "extfrag.db", "default.db" };
	struct sim_opts o = { .until_seq = UINT64_MAX };
	unsigned int i;
	char rel[64], q[256];

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		struct sim_result r;
		struct tdb *db;
		int k;

		snprintf(rel, sizeof(rel), "traces/%s", caps[i]);
		ck_assert_int_eq(tdb_open(fixture_path(rel), TDB_READONLY, &db), 0);
		ck_assert_int_eq(sim_run(db, &o, &r), 0);
		for (k = 0; k < r.nr_snaps; k++) {
			const struct sim_snapshot *ss = &r.snaps[k];
			unsigned int zi = ss->kernel.nr_zones - 1;	/* Normal */

			ck_assert(ss->bi.have);
			for (unsigned int ord = 0; ord <= ss->kernel.max_order; ord++) {
				snprintf(q, sizeof(q), "SELECT nr_free FROM buddyinfo WHERE snap = %lld "
					 "AND zone = '%s' AND ord = %u", (long long)ss->snap,
					 ss->kernel.zone[zi].name, ord);
				ck_assert_int_eq((long long)ss->bi.kernel[zi][ord],
						 fixture_sql_count(fixture_path(rel), q));
			}
			ck_assert_msg(ss->bi.nr_misses == 0, "%s #%lld: %u orders missed at the start",
				      caps[i], (long long)ss->snap, ss->bi.nr_misses);
		}
		sim_result_release(&r);
		tdb_close(db);
	}
}
END_TEST

/*
 * A block of the seed that reads flags 0 (seeded as pages of unknown use) and that was
 * free but off the free lists (page reporting): model_seed_putback() returns it to the
 * buddy, merged with its free buddy; a block holding a page that is not such a page is
 * left alone.
 */
START_TEST(test_seed_putback)
{
	struct model *m = fixture_free_zone("6.18.0", 0x40000, 4096);
	uint64_t flags[512] = { 0 };
	struct model_zone_stats a, b;
	struct model_pfn_info pi;

	ck_assert_int_eq(model_seed_pfn_range(m, 0x40200, 512, flags, NULL), 0);
	flags[7] = KPF_BIT(KPF_SLAB);
	ck_assert_int_eq(model_seed_pfn_range(m, 0x40600, 512, flags, NULL), 0);
	ck_assert_int_eq(model_zone_stats(m, 0, &a), 0);
	ck_assert_int_eq(state(m, 0x40200), MODEL_PFN_ALLOC);
	ck_assert_int_eq(model_seed_putback(m, 0x40200, 9), 0);
	ck_assert_int_eq(model_pfn_info(m, 0x40200, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_BUDDY);
	ck_assert_uint_eq(pi.head, 0x40000);	/* merged with the free 0x40000 block */
	ck_assert_uint_eq(pi.order, 10);
	ck_assert_int_eq(model_zone_stats(m, 0, &b), 0);
	ck_assert_uint_eq(b.free_pages, a.free_pages + 512);
	/* a slab page inside: not a free block */
	ck_assert_int_eq(model_seed_putback(m, 0x40600, 9), 1);
	ck_assert_int_eq(state(m, 0x40600), MODEL_PFN_ALLOC);
	/* order 0 pieces merge as the kernel's buddies do */
	ck_assert_int_eq(model_seed_putback(m, 0x40600, 0), 0);
	ck_assert_int_eq(state(m, 0x40600), MODEL_PFN_BUDDY);
	ck_assert_int_lt(model_seed_putback(m, 0x40601, 1), 0);	/* misaligned */
	ck_assert_uint_eq(model_recount(m, NULL, 0), 0);
	model_destroy(m);
}
END_TEST

/*
 * anon.db's first snapshot reads nine whole pageblocks of flags 0 that no event
 * names: four of them read free in the next snapshot (page reporting held them at the
 * first: put back, 2,048 pages), five read flags 0 again (in use: left). The blocks
 * holding unmovable or unknown pages then agree with the kernel's at the snapshot.
 */
START_TEST(test_seed_reported_anon)
{
	struct sim_opts o = { .until_seq = UINT64_MAX };
	struct sim_result r;
	struct tdb *db;

	ck_assert_int_eq(tdb_open(fixture_path("traces/anon.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	ck_assert_uint_eq(r.st.seed_reported, 2048);
	ck_assert_int_eq(r.nr_snaps, 1);
	ck_assert_uint_eq(r.snaps[0].sim.pb_unmovable_unknown, r.snaps[0].kernel.pb_unmovable_unknown);
	ck_assert_uint_eq(r.snaps[0].sim.contig_2m, r.snaps[0].kernel.contig_2m);
	sim_result_release(&r);
	tdb_close(db);
}
END_TEST

/*
 * Free pages that paths without a page event take (cma_alloc()'s alloc_contig_range(),
 * named only by its test_pages_isolated() range) are not put back: on vm-cma-alloc.db
 * (eight cma_alloc()s of 2,048 pages between the snapshots, read with flags 0 at the
 * second) the kernel's side of the figures keeps its Normal free pages within 1% of
 * the snapshot's buddyinfo (pcp pages aside), and the simulation's cma_alloc()s come
 * from the CMA area as the kernel's did: the 2 MiB counts agree.
 */
START_TEST(test_seed_reported_not_contig)
{
	const char *cap = fixture_path("traces/vm-cma-alloc.db");
	struct sim_opts o = { .until_seq = UINT64_MAX };
	long long buddy;
	struct sim_result r;
	struct tdb *db;
	unsigned int z;

	ck_assert_int_eq(tdb_open(cap, TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	ck_assert_int_eq(r.nr_snaps, 1);
	buddy = fixture_sql_count(cap, "SELECT sum(nr_free << ord) FROM buddyinfo WHERE snap = 2 "
				  "AND zone = 'Normal'");
	ck_assert_int_gt(buddy, 100000);
	for (z = 0; z < r.snaps[0].kernel.nr_zones; z++) {
		const struct sim_zone_figures *zf = &r.snaps[0].kernel.zone[z];
		long long d = (long long)(zf->free_pages + zf->pcp_pages) - buddy;

		if (strcmp(zf->name, "Normal"))
			continue;
		ck_assert_msg(llabs(d) * 100 <= buddy, "Normal: %llu + %llu pcp pages free, "
			      "buddyinfo %lld", (unsigned long long)zf->free_pages,
			      (unsigned long long)zf->pcp_pages, buddy);
	}
	ck_assert_uint_eq(r.snaps[0].sim.contig_2m, r.snaps[0].kernel.contig_2m);
	sim_result_release(&r);
	tdb_close(db);
}
END_TEST

static int check_pcp_owner(void *arg, struct model *m, struct sim_apply *ap)
{
	struct model_pfn_info pi;

	(void)ap;
	ck_assert_int_eq(model_pfn_info(m, 0x101cb4, &pi), 0);
	*(int *)arg = pi.state == MODEL_PFN_PCP ? pi.cpu : -2;
	return 0;
}

/*
 * vm-movable.db: the seed page 0x101cb4 (flags 0, order 2) is first named by a drain
 * on cpu 1 (seq 41482, a drainer need not own the list); cpu 0 refilled its order-2
 * Unmovable list at seq 36981, so that list was empty then and never held the page:
 * it starts on cpu 1's list.
 */
START_TEST(test_seed_pcp_refilled_list)
{
	int cpu = -3;
	struct sim_opts o = { .until_seq = 0, .ready = check_pcp_owner, .hook_arg = &cpu,
			      .no_figures = true };
	struct sim_result r;
	struct tdb *db;

	ck_assert_int_eq(tdb_open(fixture_path("traces/vm-movable.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	ck_assert_int_eq(cpu, 1);
	sim_result_release(&r);
	tdb_close(db);
}
END_TEST

/* The map's rules on flat arrays (pfn + 1, 0 none), as sim-pfnmap.h states them. */
struct ref_map { uint32_t fwd[5000], rev[5000]; };

static void ref_clear(struct ref_map *r, uint64_t k, uint64_t n, uint64_t end)
{
	for (; n-- && k < end; k++) {
		if (r->fwd[k] && r->rev[r->fwd[k] - 1] == k + 1)
			r->rev[r->fwd[k] - 1] = 0;
		r->fwd[k] = 0;
	}
}

static void ref_set(struct ref_map *r, uint64_t k, uint64_t s, uint64_t n, uint64_t end)
{
	uint64_t i;

	for (i = 0; i < n && k + i < end && s + i < end; i++) {
		uint32_t a = r->fwd[k + i], b = r->rev[s + i];

		if (a && r->rev[a - 1] == k + i + 1)
			r->rev[a - 1] = 0;
		if (b && r->fwd[b - 1] == s + i + 1)
			r->fwd[b - 1] = 0;
		r->fwd[k + i] = (uint32_t)(s + i + 1);
		r->rev[s + i] = (uint32_t)(k + i + 1);
	}
	if (i < n && k + i < end)
		ref_clear(r, k + i, n - i, end);
}

static void ref_moved(struct ref_map *r, uint64_t from, uint64_t to, uint64_t n, uint64_t end)
{
	uint64_t i;

	for (i = 0; i < n && from + i < end && to + i < end; i++) {
		uint32_t k = r->rev[from + i];

		if (!k)
			continue;
		r->rev[from + i] = 0;
		r->fwd[k - 1] = (uint32_t)(to + i + 1);
		r->rev[to + i] = k;
	}
}

/*
 * sim-pfnmap's two-level tables against flat arrays: random sets, clears and moves
 * (ranges across leaves of 1024 pfns and past the end), every pfn compared after each.
 */
START_TEST(test_pfnmap_against_flat)
{
	const uint64_t end = 5000;
	static struct ref_map r;
	struct sim_pfnmap *pm;
	uint64_t seed = 12345, p;
	int step;

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(sim_pfnmap_create(end, &pm), 0);
	for (step = 0; step < 3000; step++) {
		uint64_t a, b, n, op;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		op = seed >> 61;
		a = (seed >> 8) % (end + 40);
		b = (seed >> 24) % (end + 40);
		n = 1ull << ((seed >> 40) % 12);
		if (op < 4) {
			sim_pfnmap_set(pm, a, b, n);
			ref_set(&r, a, b, n, end);
		} else if (op < 6) {
			sim_pfnmap_clear(pm, a, n);
			ref_clear(&r, a, n, end);
		} else {
			sim_pfnmap_moved(pm, a, b, n);
			ref_moved(&r, a, b, n, end);
		}
		for (p = 0; p < end + 8; p++) {
			uint64_t want = p < end && r.fwd[p] ? r.fwd[p] - 1 : UINT64_MAX;

			ck_assert_msg(sim_pfnmap_sim(pm, p) == want, "step %d: kernel pfn %llu -> %llu, "
				      "want %llu", step, (unsigned long long)p,
				      (unsigned long long)sim_pfnmap_sim(pm, p), (unsigned long long)want);
			ck_assert_int_eq(sim_pfnmap_is_sim(pm, p), p < end && r.rev[p] != 0);
		}
	}
	sim_pfnmap_destroy(pm);
}
END_TEST

static int check_seed_type(void *arg, struct model *m, struct sim_apply *ap)
{
	struct model_pfn_info pi;

	(void)ap;
	ck_assert_int_eq(model_pfn_info(m, 0x10aa77, &pi), 0);
	*(int *)arg = pi.state == MODEL_PFN_BUDDY ? pi.mt : -2;
	return 0;
}

/*
 * thp.db: the seed guessed pageblock 0x10aa00 Movable (no event named it while the
 * snapshot was read); the first event after it that does, a pcp refill on cpu 1 (seq
 * 705) taking its free order-0 page 0x10aa77 off the Unmovable list, says it was
 * Unmovable: the simulation starts with it there, and its own refill at seq 768 takes
 * that page first, as the kernel's did (before: a Movable block, and the refill took
 * 0x518df8).
 */
START_TEST(test_seed_type_learned)
{
	int mt = -3;
	struct sim_opts o = { .until_seq = 0, .ready = check_seed_type, .hook_arg = &mt,
			      .no_figures = true };
	struct sim_result r;
	struct tdb *db;

	ck_assert_int_eq(tdb_open(fixture_path("traces/thp.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	ck_assert_int_eq(mt, 0);
	ck_assert_uint_ge(r.st.seed_types_learned, 1);
	sim_result_release(&r);
	tdb_close(db);
}
END_TEST

static int check_block_type(void *arg, struct model *m, struct sim_apply *ap)
{
	int *mt = arg;

	(void)ap;
	ck_assert_int_eq(model_pageblock_mt(m, 0x21da00, &mt[0], NULL, NULL), 0);
	mt[1] = model_pageblock_guessed(m, 0x21da00);
	return 0;
}

/*
 * frag.db: pageblock 0x21da00, guessed Unmovable, held a free page (0x21da2f) on the
 * Unmovable list that a split take showed the kernel's list did not hold: another type
 * (Movable, the most free blocks of that order). Still an inference: the first event
 * naming the block (0x21dac8 off the Reclaimable list) says Reclaimable, and the seed
 * takes that (before: the absent rule's Movable stood as known; the simulation then
 * left the kernel at allocation 9,560, placing 51.7% of them at the kernel's pfn; now
 * over 90%).
 */
START_TEST(test_seed_absent_then_named)
{
	int mt[2] = { -3, -3 };
	struct sim_opts o = { .until_seq = UINT64_MAX, .ready = check_block_type,
			      .hook_arg = mt, .no_figures = true };
	struct sim_result r;
	struct tdb *db;

	ck_assert_int_eq(tdb_open(fixture_path("traces/frag.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	ck_assert_int_eq(mt[0], 2);
	ck_assert_int_eq(mt[1], 0);	/* the event told it */
	ck_assert_uint_gt(r.st.same_pfn * 10, r.st.allocs * 9);
	sim_result_release(&r);
	tdb_close(db);
}
END_TEST

static int check_absent_type(void *arg, struct model *m, struct sim_apply *ap)
{
	struct model_pfn_info pi;

	(void)ap;
	ck_assert_int_eq(model_pfn_info(m, 0x365c40, &pi), 0);
	*(int *)arg = pi.state == MODEL_PFN_BUDDY ? pi.mt : -2;
	return 0;
}

/*
 * thp.db: the seed holds a free order-3 block at 0x365c40 on the Unmovable list (its
 * pageblock guessed Unmovable; no event ever names it). The kernel's pcp refill at seq
 * 705 took an order-0 block, the order-3 block at 0x10aa78, then split an order-4 one
 * (0x1631d0): its Unmovable order-3 list was empty, so 0x365c40 was not on it. The
 * simulation starts with that pageblock of another type (before: its refill took
 * 0x365c40 and later an unmovable page landed in a 2 MiB block the kernel kept clean, 2 MiB counts
 * one apart).
 */
START_TEST(test_seed_absent_block)
{
	int mt = -3;
	struct sim_opts o = { .until_seq = 0, .ready = check_absent_type, .hook_arg = &mt,
			      .no_figures = true };
	struct sim_result r;
	struct tdb *db;

	ck_assert_int_eq(tdb_open(fixture_path("traces/thp.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	ck_assert_msg(mt == 1 || mt == 2, "0x365c40 on list %d at the start, wanted another "
		      "than Unmovable", mt);
	sim_result_release(&r);
	tdb_close(db);
}
END_TEST

static int check_cma_o9_types(void *arg, struct model *m, struct sim_apply *ap)
{
	int *mt = arg;

	(void)ap;
	ck_assert_int_eq(model_pageblock_mt(m, 0x119e00, &mt[0], NULL, NULL), 0);
	ck_assert_int_eq(model_pageblock_mt(m, 0x11a600, &mt[1], NULL, NULL), 0);
	return 0;
}

/* vm-cma.db, its seed snapshot's page_reporting file @value (NULL: none, as recorded). */
static void cma_o9_run(const char *value, int mt[2], struct sim_result *r)
{
	const char *cap = fixture_tmpfile("cma-report.db");
	struct sim_opts o = { .until_seq = UINT64_MAX, .ready = check_cma_o9_types,
			      .hook_arg = mt, .no_figures = true };
	struct tdb *db;

	fixture_copy(fixture_path("traces/vm-cma.db"), cap);
	ck_assert_int_eq(tdb_open(cap, TDB_WRITE, &db), 0);
	if (value) {
		char *sql = sqlite3_mprintf("INSERT INTO snapshot_files (snap, name, content) "
					    "VALUES (1, 'page_reporting', %Q)", value);

		ck_assert_int_eq(sqlite3_exec(tdb_sqlite(db), sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_free(sql);
	}
	ck_assert_int_eq(sim_run(db, &o, r), 0);
	tdb_close(db);
}

/*
 * vm-cma.db: the seed has two free order-9 blocks, 0x119e00 and 0x11a600, on the
 * Movable list (their pageblocks guessed Movable; no event ever names them: their
 * buddies hold pages in use at the seed that no event frees, so they never merge).
 * cpu 0's refill at seq 7734 split the order-10 block 0x11a800 instead, and four more
 * takes did the same over the next 145 ms: the kernel's Movable order-9 list did not
 * hold them. With no device reporting free pages (the guest has no balloon) that
 * shows their type: the simulation starts with both off the Movable list and keeps
 * them off it when later events correct other guesses (before: the refill took
 * 0x119e00, allocation 4,964 was the first of 3,390 elsewhere, 61.9 % at the kernel's
 * pfn; now over 99 %). Where reporting may run (the snapshot does not say, or
 * names an order) it could have held them those 145 ms: they stay Movable.
 */
START_TEST(test_seed_absent_above_pageblock)
{
	/* no device: no CONFIG_PAGE_REPORTING, 6.12's unset -1, 6.1's unset MAX_ORDER */
	static const char *const none[] = { "none\n", "-1\n", "11\n" };
	static const char *const maybe[] = { NULL, "9\n" };
	struct sim_result r;
	int mt[2];
	size_t i;

	for (i = 0; i < 3; i++) {
		mt[0] = mt[1] = -3;
		cma_o9_run(none[i], mt, &r);
		ck_assert_msg(mt[0] != 1 && mt[1] != 1, "page_reporting %s: 0x119e00 type %d, "
			      "0x11a600 type %d at the start, wanted not Movable", none[i], mt[0],
			      mt[1]);
		ck_assert_msg(r.st.same_pfn * 100 > r.st.allocs * 99, "%llu of %llu at the "
			      "kernel's pfn", (unsigned long long)r.st.same_pfn,
			      (unsigned long long)r.st.allocs);
		ck_assert_uint_eq(r.st.seed_types_held, 0);
		sim_result_release(&r);
	}
	for (i = 0; i < 2; i++) {
		mt[0] = mt[1] = -3;
		cma_o9_run(maybe[i], mt, &r);
		ck_assert_msg(mt[0] == 1 && mt[1] == 1, "page_reporting %s: 0x119e00 type %d, "
			      "0x11a600 type %d at the start, wanted Movable (reporting may hold "
			      "them)", maybe[i] ? maybe[i] : "absent", mt[0], mt[1]);
		/* and said so: two blocks left as guessed */
		ck_assert_uint_eq(r.st.seed_types_held, 2);
		sim_result_release(&r);
	}
}
END_TEST

static int check_drained_owner(void *arg, struct model *m, struct sim_apply *ap)
{
	struct model_pfn_info pi;

	(void)ap;
	ck_assert_int_eq(model_pfn_info(m, 0x110abc, &pi), 0);
	*(int *)arg = pi.state == MODEL_PFN_PCP ? pi.cpu : -2;
	return 0;
}

/*
 * vm-reserved.db: the seed's order-1 pcp block 0x110abc is first named by cpu 1's drain
 * at event 52340, in a drain_all_pages() run (an offline's): cpu 1 drained one cpu's
 * lists from pindex 0 up (1,581 pages, fewer than batch << 5), then came back to
 * pindex 0 for the other's (188 pages): the first was cpu 0's. The simulation holds it
 * on cpu 0's list (before: cpu 1's, the drainer's; cpu 1's free_high drain at 42564
 * then reached it, the block merged, and cpu 1's order-2 refill at 44116 took it where
 * the kernel's took 0x1218a0: the first of 41 allocations elsewhere, and one zone order
 * missed with test_ahead_bulk_refill's rule). Every allocation at the kernel's pfn.
 */
START_TEST(test_seed_drain_all_owner)
{
	int cpu = -3;
	struct sim_opts o = { .until_seq = UINT64_MAX, .ready = check_drained_owner,
			      .hook_arg = &cpu, .no_figures = true };
	struct sim_result r;
	struct tdb *db;

	ck_assert_int_eq(tdb_open(fixture_path("traces/vm-reserved.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	ck_assert_msg(cpu == 0, "0x110abc on cpu %d's list at the start, wanted cpu 0's", cpu);
	ck_assert_msg(r.st.same_pfn == r.st.allocs, "%llu of %llu at the kernel's pfn",
		      (unsigned long long)r.st.same_pfn, (unsigned long long)r.st.allocs);
	sim_result_release(&r);
	tdb_close(db);
}
END_TEST

struct contig_watch {
	uint64_t contig_seq;		/* the capture's 1 GiB allocation, seen */
	uint64_t spfn;			/* where the simulation put kernel pfn 0x40000 */
	unsigned int isolate, unisolate;
	bool nested;			/* an isolation window inside another */
};

static int watch_contig(void *arg, struct model *m, struct sim_apply *ap,
			const struct sim_request *rq)
{
	struct contig_watch *w = arg;

	(void)m;
	if (w->contig_seq && rq->seq > w->contig_seq && w->spfn == UINT64_MAX - 1)
		w->spfn = sim_apply_sim_pfn(ap, 0x40000);
	if (rq->kind == SIM_REQ_CONTIG && !rq->failed)
		w->contig_seq = rq->seq;
	if (rq->kind == SIM_REQ_ISOLATE)
		w->nested |= w->isolate++ != w->unisolate;
	w->unisolate += rq->kind == SIM_REQ_UNISOLATE;
	return 0;
}

/*
 * pins.db: every Normal 1 GiB range holds THP pages registered as io_uring fixed
 * buffers, which the snapshots list (longterm_pins); the kernel's hugetlb probe got its
 * page at 0x40000 in DMA32. The simulation's alloc_contig_pages() cannot migrate the
 * listed pages either and lands there too; with the listings removed it migrates the
 * pins away and takes the first Normal range. Its failed attempts that got past their
 * isolation (six offline probes: migration failed, the time limit; one alloc_contig_range()
 * of the 1 GiB search that tested its range) are isolation windows, one after the other;
 * the success is not (the simulation picks its own range).
 */
START_TEST(test_sim_pins_and_isolation)
{
	struct contig_watch w = { .spfn = UINT64_MAX - 1 };
	struct sim_opts o = { .until_seq = UINT64_MAX, .before = watch_contig, .hook_arg = &w,
			      .no_figures = true };
	char *bare = fixture_tmpfile("sim-pins-bare.db");
	struct sim_result r;
	struct tdb *db;

	ck_assert_int_eq(tdb_open(fixture_path("traces/pins.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	tdb_close(db);
	ck_assert_msg(w.spfn == 0x40000, "the 1 GiB page at %#llx, the kernel's at 0x40000",
		      (unsigned long long)w.spfn);
	ck_assert_uint_eq(w.isolate, 7);
	ck_assert_uint_eq(w.unisolate, 7);
	ck_assert(!w.nested);
	ck_assert_uint_eq(r.st.isolations, 7);
	ck_assert_uint_eq(r.st.isolations_refused, 0);
	sim_result_release(&r);

	fixture_copy(fixture_path("traces/pins.db"), bare);
	fixture_sql_exec(bare, "DELETE FROM snapshot_files WHERE name = 'longterm_pins'");
	w = (struct contig_watch){ .spfn = UINT64_MAX - 1 };
	ck_assert_int_eq(tdb_open(bare, TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	tdb_close(db);
	ck_assert_msg(w.spfn != UINT64_MAX - 1 && w.spfn >= 0x100000, "without the listings "
		      "the 1 GiB page at %#llx, wanted a Normal range", (unsigned long long)w.spfn);
	sim_result_release(&r);
	fixture_rm(bare);
}
END_TEST

struct offline_watch {
	struct sim_request win;		/* the open window of a successful offline */
	bool open, ended;		/* ... and the request after its end: the offline */
	int zone;
	unsigned int windows, offlines_after, allocs_in, allocs_in_range, pcp_kept;
	uint64_t last_alloc;		/* an allocation of the window, checked at the next */
};

static int watch_offline(void *arg, struct model *m, struct sim_apply *ap,
			 const struct sim_request *rq)
{
	struct offline_watch *w = arg;
	uint32_t count, high;
	unsigned int cpu;

	if (w->last_alloc != UINT64_MAX) {
		uint64_t s = sim_apply_sim_pfn(ap, w->last_alloc);

		w->allocs_in_range += s >= w->win.pfn && s < w->win.pfn + w->win.nr_pages;
		w->last_alloc = UINT64_MAX;
	}
	if (w->ended) {
		w->ended = false;
		w->offlines_after += rq->kind == SIM_REQ_OFFLINE && !rq->failed &&
				     rq->pfn == w->win.pfn && rq->nr_pages == w->win.nr_pages;
	}
	if (rq->kind == SIM_REQ_ISOLATE && !rq->failed && rq->mt == 1) {
		w->win = *rq;
		w->open = true;
		w->windows++;
		w->zone = model_pfn_zone(m, rq->pfn);
		return 0;
	}
	if (rq->kind == SIM_REQ_UNISOLATE && w->open && rq->pfn == w->win.pfn) {
		w->open = false;
		w->ended = true;
		return 0;
	}
	if (!w->open || w->zone < 0)
		return 0;
	/* zone_pcp_disable(): no page stays on the zone's lists meanwhile */
	for (cpu = 0; cpu < model_get_layout(m)->nr_cpus; cpu++)
		if (!model_get_pcp(m, (unsigned int)w->zone, cpu, &count, &high) && count)
			w->pcp_kept++;
	if (rq->kind == SIM_REQ_ALLOC && model_pfn_zone(m, rq->pfn) == w->zone) {
		w->allocs_in++;
		w->last_alloc = rq->pfn;
	}
	return 0;
}

/*
 * default.db: the kernel offlined memory blocks (offline_pages() succeeded) while the
 * workload ran. From the offline's first event to its result the kernel held the range
 * isolated and the zone's pcp lists disabled (zone_pcp_disable(): high 0, batch 1), so
 * the allocations meanwhile were one-page refills and no page of the range was handed
 * out. The simulation holds the same window: no page on the zone's lists, no allocation
 * in the range, and the window ends right before the offline itself.
 */
START_TEST(test_sim_offline_window)
{
	struct offline_watch w = { .last_alloc = UINT64_MAX };
	struct sim_opts o = { .until_seq = UINT64_MAX, .before = watch_offline, .hook_arg = &w,
			      .no_figures = true };
	struct sim_result r;
	struct tdb *db;

	ck_assert_int_eq(tdb_open(fixture_path("traces/default.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	tdb_close(db);
	ck_assert_uint_ge(w.windows, 1);
	ck_assert_uint_eq(w.offlines_after, w.windows);
	ck_assert_msg(w.allocs_in > 0, "no allocation of the zone inside an offline's window");
	ck_assert_uint_eq(w.allocs_in_range, 0);
	ck_assert_msg(w.pcp_kept == 0, "%u times a pcp list of the zone held pages inside "
		      "the window", w.pcp_kept);
	sim_result_release(&r);
}
END_TEST

/*
 * extfrag.db: cpu 0 refilled its pcp list (percpu_refill events from seq 14504), then
 * traced 27 frees, then the mm_page_alloc (seq 15566) of the request the refill was
 * for: the frees came after the kernel's decision (rmqueue_bulk() ran with the pcp
 * lock held; the frees once it dropped). Each free halves alloc_factor, which sets the
 * next refill's size (nr_pcp_alloc()), so the stream hands the allocation out first,
 * the held frees right after it in their order. Requests of other cpus are not held.
 */
START_TEST(test_reqs_refill_before_frees)
{
	struct tr_decoder *dec;
	struct sim_request rq;
	struct sim_reqs *it;
	struct tdb *db;
	uint64_t last_free = 0;
	int ret, state = 0, held = 0;

	ck_assert_int_eq(tdb_open(fixture_path("traces/extfrag.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(tr_decoder_create(db, &dec), 0);
	ck_assert_int_eq(sim_reqs_open(db, dec, NULL, 0, NULL, 0, 0, UINT64_MAX, &it), 0);
	while ((ret = sim_reqs_next(it, &rq)) == 1) {
		bool in = rq.seq > 14504 && rq.seq < 15566 && rq.cpu == 0;

		if (state == 0) {
			ck_assert_msg(!in || rq.kind != SIM_REQ_FREE, "a free of cpu 0 (seq %llu) "
				      "before the refilled allocation", (unsigned long long)rq.seq);
			if (rq.seq == 15566) {
				ck_assert_int_eq(rq.kind, SIM_REQ_ALLOC);
				state = 1;
			}
		} else if (state == 1) {
			if (in) {
				ck_assert_int_eq(rq.kind, SIM_REQ_FREE);
				ck_assert_uint_gt(rq.seq, last_free);
				last_free = rq.seq;
				held++;
			} else {
				state = 2;
			}
		}
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(state, 2);
	ck_assert_int_eq(held, 27);
	sim_reqs_close(it);
	tr_decoder_destroy(dec);
	tdb_close(db);
}
END_TEST

struct refusal_watch {
	uint64_t refusals;		/* SIM_REQ_REFUSED seen */
	int before[2], after[2];	/* blocks 0x110400 and 0x112e00 around it */
	bool pending;
};

static void refusal_types(struct model *m, int mt[2])
{
	ck_assert_int_eq(model_pageblock_mt(m, 0x110400, &mt[0], NULL, NULL), 0);
	ck_assert_int_eq(model_pageblock_mt(m, 0x112e00, &mt[1], NULL, NULL), 0);
}

static int watch_refusal(void *arg, struct model *m, struct sim_apply *ap,
			 const struct sim_request *rq)
{
	struct refusal_watch *w = arg;

	(void)ap;
	if (w->pending) {	/* the request after the refusal: it has been made */
		refusal_types(m, w->after);
		w->pending = false;
	}
	if (rq->kind == SIM_REQ_REFUSED) {
		ck_assert_uint_eq(rq->pfn, 0x110000);
		ck_assert_uint_eq(rq->refused_pfn, 0x112c05);
		refusal_types(m, w->before);
		w->pending = true;
		w->refusals++;
	}
	return 0;
}

/*
 * An offline refused at isolation (has_unmovable_pages()) on 6.12: start_isolate_page_range()
 * had isolated the first and last blocks, then the middle ones up to the culprit's, and
 * the undo re-typed them MIGRATE_MOVABLE (the isolation was a migratetype before 6.17).
 * No event shows it; the simulation makes the kernel's verdict as the replay does.
 * vm-reserved.db (6.12) with its refused probe moved by SQL to memory block 34,
 * [0x110000, 0x118000), culprit 0x112c05: block 0x110400 (Reclaimable) becomes Movable,
 * block 0x112e00 (Unmovable, past the culprit) keeps its type.
 */
START_TEST(test_sim_refused_offline)
{
	struct refusal_watch w = { .before = { -1, -1 }, .after = { -1, -1 } };
	struct sim_opts o = { .until_seq = UINT64_MAX, .before = watch_refusal, .hook_arg = &w,
			      .no_figures = true };
	char *copy = fixture_tmpfile("sim-refused.db");
	struct sim_result r;
	struct tdb *db;

	fixture_copy(fixture_path("traces/vm-reserved.db"), copy);
	fixture_sql_exec(copy, "UPDATE probes SET block = 34, start_pfn = 1114112, end_pfn = "
			 "1146880, culprit_pfn = 1125381 WHERE id = 2");
	ck_assert_int_eq(tdb_open(copy, TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	tdb_close(db);
	ck_assert_uint_eq(w.refusals, 1);
	ck_assert_uint_eq(r.st.refusals, 1);
	ck_assert_msg(w.before[0] != 1 && w.before[1] != 1, "types %d %d before the refusal, "
		      "wanted two non-Movable blocks", w.before[0], w.before[1]);
	ck_assert_msg(w.after[0] == 1, "0x110400 of type %d after the refusal, wanted Movable",
		      w.after[0]);
	ck_assert_int_eq(w.after[1], w.before[1]);
	sim_result_release(&r);
	fixture_rm(copy);
}
END_TEST

/*
 * The kernel's side of a later snapshot types the pages it reads with flags 0 by the
 * allocation the trace showed of them: vm-movable.db's snapshot #3 reads 0x105e5c as
 * flags 0; its last event before was an mm_page_alloc of migratetype 0 (seq 39372, gfp
 * 0x92cc0), so it counts as unmovable, as the simulation's own allocation of it does
 * (the two sides counted 2,839 and 2,834 unmovable pages before, 2,839 each after).
 * A page of flags 0 the trace did not see allocated (pre-capture) stays unknown.
 */
START_TEST(test_kernel_side_alloc_typed)
{
	struct tdb_snap_info *si;
	struct sim_figures before, after;
	struct model_pfn_info pi;
	struct replay *rp;
	struct tdb *db;
	uint64_t nr, typed;
	int nr_si;

	ck_assert_int_eq(tdb_open(fixture_path("traces/vm-movable.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(tdb_snap_list(db, &si, &nr_si), 0);
	ck_assert_int_eq(nr_si, 3);
	struct rp_opts ro = { .until_seq = (uint64_t)si[2].seq_end, .no_score = true,
			      .no_attempts = true, .seed_snap = si[2].id };

	ck_assert_int_eq(rp_create(db, &ro, &rp), 0);
	ck_assert_int_eq(rp_run(rp, NULL), 0);
	ck_assert_int_eq(model_pfn_info(rp_model(rp), 0x105e5c, &pi), 0);
	ck_assert(pi.state == MODEL_PFN_ALLOC && pi.seeded && pi.kind == MODEL_KIND_UNKNOWN);
	ck_assert_int_eq(pi.mt, -1);
	ck_assert_int_eq(sim_figures_compute(rp_model(rp), NULL, &before), 0);
	ck_assert_int_eq(sim_seed_pcp_behind(db, rp_decoder(rp), rp_model(rp),
					     (uint64_t)si[2].seq_end, NULL, &nr, &typed), 0);
	ck_assert_uint_eq(typed, 5);
	ck_assert_int_eq(model_pfn_info(rp_model(rp), 0x105e5c, &pi), 0);
	ck_assert(pi.state == MODEL_PFN_ALLOC && pi.kind == MODEL_KIND_UNKNOWN);
	ck_assert_int_eq(pi.mt, 0);
	ck_assert_int_eq(sim_figures_compute(rp_model(rp), NULL, &after), 0);
	ck_assert_uint_eq(after.unmovable_pages, before.unmovable_pages + 5);
	/* a page of flags 0 no event named (in use since before the capture) is left */
	ck_assert_int_eq(model_pfn_info(rp_model(rp), 0x100062, &pi), 0);
	ck_assert(pi.state == MODEL_PFN_ALLOC && pi.seeded && pi.mt == -1);
	rp_destroy(rp);
	free(si);
	tdb_close(db);
}
END_TEST

/*
 * The free-running gate: simulate on every bundled capture with two snapshots or more,
 * each held at what it reaches (any snapshot): at most @unmov pageblocks holding
 * unmovable pages apart, the worst relative per-order free-block error (orders with
 * >= 64 free pages on the kernel's side) at most @rel_pct %, at most @misses zone
 * orders out of the per-order tolerance (sim-figures.h) over all its snapshots, at
 * most @d2m 2 MiB allocations apart, the 1 GiB counts equal. The targets (issue:
 * free-running) are unmovable within 5%, no order missed, 2 MiB and 1 GiB equal.
 * The 2 MiB counts are equal on every capture. Orders missed: vm-movable.db two orders
 * of a few blocks (ZONE_MOVABLE's last fragments); vm-reserved.db one, Normal order 6
 * at its last snapshot (11 blocks against 9), since an order 1-3 free keeps a batch on
 * the list (PCPF_FREE_HIGH_BATCH, the kernel's rule: the VM's cache holds more than 3
 * batches) where the model drained it all before. mlock.db's order 1 is 28 blocks off
 * (5.4%, within the tolerance of small orders) since the seed's types are learned from
 * the trace (1.3% before). The small VM captures' relative figures are of orders with
 * a handful of blocks (within the tolerance).
 */
/*
 * Allocations placed at the kernel's own pfn are counted one by one, and the first one
 * placed elsewhere is the run's divergence point: on a hand-built zone (the model's
 * pick first, then a pfn it does not pick) and over a whole capture, against a count
 * a hook keeps of each allocation's simulated page.
 */
struct same_count {
	uint64_t allocs, same, first_nth, first_seq;
};

static int count_same(void *arg, struct model *m, struct sim_apply *ap,
		      const struct sim_request *rq)
{
	struct same_count *c = arg;
	int ret;

	(void)m;
	if (rq->kind != SIM_REQ_ALLOC || rq->inferred)	/* not the trace's */
		return 0;
	ret = sim_apply_request(ap, rq);
	if (ret)
		return ret;
	c->allocs++;
	if (sim_apply_sim_pfn(ap, rq->pfn) == rq->pfn)
		c->same++;
	else if (!c->first_nth) {
		c->first_nth = c->allocs;
		c->first_seq = rq->seq;
	}
	return 1;
}

START_TEST(test_same_pfn_counted)
{
	struct same_count c = { 0 };
	struct sim_opts o = { .until_seq = UINT64_MAX, .before = count_same, .hook_arg = &c };
	struct model_layout l;
	struct sim_stats st;
	struct sim_apply *a;
	struct sim_request rq;
	struct sim_result r;
	struct model *m;
	struct tdb *db;
	uint64_t pick;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		fixture_layout_init(&l);
		fixture_layout_zone(&l, "Normal", 0x40000, 4096);
		m = fixture_model(&l, "6.18.0");
		fixture_seed(m, 0x40000, 4096, KPF_BIT(KPF_BUDDY));
		memset(&st, 0, sizeof(st));
		ck_assert_int_eq(sim_apply_create(m, &st, &a), 0);
		rq = req(SIM_REQ_ALLOC, pass ? pick : 0x40ff0, 4, 1, GFP_HIGHUSER_MOVABLE_);
		rq.seq = 10;
		ck_assert_int_eq(sim_apply_request(a, &rq), 0);
		if (!pass) {
			pick = sim_apply_sim_pfn(a, 0x40ff0);
			ck_assert_uint_ne(pick, 0x40ff0);	/* the seed's head is not there */
			ck_assert_uint_eq(st.same_pfn, 0);
			ck_assert_uint_eq(st.first_elsewhere.nth, 1);
			ck_assert_uint_eq(st.first_elsewhere.seq, 10);
			ck_assert_uint_eq(st.first_elsewhere.kernel_pfn, 0x40ff0);
			ck_assert_uint_eq(st.first_elsewhere.sim_pfn, pick);
			ck_assert_int_eq(st.first_elsewhere.kernel_zone, 0);
			ck_assert_int_eq(st.first_elsewhere.sim_zone, 0);
		} else {
			ck_assert_uint_eq(st.same_pfn, 1);
			ck_assert_uint_eq(st.first_elsewhere.nth, 0);
			rq = req(SIM_REQ_ALLOC, 0x40ff0, 4, 1, GFP_HIGHUSER_MOVABLE_);
			rq.seq = 11;
			ck_assert_int_eq(sim_apply_request(a, &rq), 0);
			ck_assert_uint_eq(st.same_pfn, 1);
			ck_assert_uint_eq(st.first_elsewhere.nth, 2);
			ck_assert_uint_eq(st.first_elsewhere.seq, 11);
		}
		sim_apply_destroy(a);
		model_destroy(m);
	}

	ck_assert_int_eq(tdb_open(fixture_path("traces/frag.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	ck_assert_uint_eq(r.st.allocs, c.allocs);
	ck_assert_uint_eq(r.st.same_pfn, c.same);
	ck_assert_uint_gt(c.same, 0);
	ck_assert_uint_lt(c.same, c.allocs);
	ck_assert_uint_eq(r.st.first_elsewhere.nth, c.first_nth);
	ck_assert_uint_eq(r.st.first_elsewhere.seq, c.first_seq);
	sim_result_release(&r);
	tdb_close(db);
}
END_TEST

/*
 * The seed's pcp lists stand in the order the kernel then takes their pages: on
 * hugetlb.db the read found block 0x16d200's pages on cpu 0's list (the replay put
 * them there) while ten pages freed after the read passed them lay above, unread
 * (flags 0); the kernel hands out 0x4bc0c7, the last of those frees, first. Over every
 * list of two captures: the pages the kernel's allocations on the list's cpu name
 * first come off it in list order, and from the list of the request's migratetype.
 */
struct seed_lists {
	uint64_t *pfn;			/* every block on a seed list, sorted */
	uint32_t *list, *pos;		/* its list (zone, cpu, order, mt packed) and place */
	uint32_t *last;			/* per list: the place of the last block taken */
	bool *taken;
	size_t n;
	uint64_t taken_in_order, out_of_order, wrong_list, head;
};

static int save_seed_lists(void *arg, struct model *m, struct sim_apply *ap)
{
	struct seed_lists *sl = arg;
	const struct model_layout *L = model_get_layout(m);
	uint64_t buf[8192];
	unsigned int z, c, o;
	int mt;

	(void)ap;
	sl->pfn = calloc(1 << 20, sizeof(*sl->pfn));
	sl->list = calloc(1 << 20, sizeof(*sl->list));
	sl->pos = calloc(1 << 20, sizeof(*sl->pos));
	sl->taken = calloc(1 << 20, sizeof(*sl->taken));
	sl->last = calloc(1 << 16, sizeof(*sl->last));
	ck_assert(sl->pfn && sl->list && sl->pos && sl->taken && sl->last);
	for (z = 0; z < L->nr_zones; z++)
		for (c = 0; c < L->nr_cpus; c++)
			for (o = 0; o < 16; o++)
				for (mt = 0; mt < 3; mt++) {
					long n = model_pcp_list(m, z, c, o, mt, buf, 8192), i;

					if (o > 3 && mt == 2)
						continue;
					if (z == 2 && c == 0 && o == 0 && mt == 0 && n > 0)
						sl->head = buf[0];
					for (i = 0; i < n && i < 8192 && sl->n < (1 << 20); i++) {
						sl->pfn[sl->n] = buf[i];
						sl->list[sl->n] = ((z * 64 + c) * 16 + o) * 4 + (unsigned int)mt;
						sl->pos[sl->n] = (uint32_t)i + 1;
						sl->n++;
					}
				}
	return 0;
}

static int take_seed_lists(void *arg, struct model *m, struct sim_apply *ap,
			   const struct sim_request *rq)
{
	struct seed_lists *sl = arg;
	unsigned int c;
	size_t i;

	(void)m;
	(void)ap;
	/* the kernel's own requests (an inferred allocation names its page, not an order) */
	if ((rq->kind != SIM_REQ_ALLOC && rq->kind != SIM_REQ_FREE) || rq->inferred)
		return 0;
	for (i = 0; i < sl->n; i++) {	/* small lists: a scan does */
		if (sl->pfn[i] != rq->pfn || sl->taken[i])
			continue;
		sl->taken[i] = true;
		/* freed first: an untraced alloc_pages_bulk() had taken it (no order told) */
		if (rq->kind == SIM_REQ_FREE)
			break;
		c = (sl->list[i] / 64) % 64;
		if ((int)c != rq->cpu)
			break;			/* another cpu's: the seed had it wrong */
		/* a low-order pcp hit takes from the request's migratetype's list */
		if (rq->order < 4 && (int)(sl->list[i] % 4) != rq->mt)
			sl->wrong_list++;
		if (sl->pos[i] > sl->last[sl->list[i] % (1 << 16)]) {
			sl->taken_in_order++;
			sl->last[sl->list[i] % (1 << 16)] = sl->pos[i];
		} else {
			sl->out_of_order++;
		}
		break;
	}
	return 0;
}

START_TEST(test_seed_pcp_consumption_order)
{
	static const char *const caps[] = { "traces/hugetlb.db", "traces/extfrag.db" };
	unsigned int k;

	for (k = 0; k < 2; k++) {
		struct seed_lists sl = { 0 };
		struct sim_opts o = { .until_seq = UINT64_MAX, .no_figures = true,
				      .ready = save_seed_lists, .before = take_seed_lists,
				      .hook_arg = &sl };
		struct sim_result r;
		struct tdb *db;

		ck_assert_int_eq(tdb_open(fixture_path(caps[k]), TDB_READONLY, &db), 0);
		ck_assert_int_eq(sim_run(db, &o, &r), 0);
		ck_assert_uint_gt(r.st.seed_pcp_reordered, 0);
		ck_assert_uint_gt(sl.taken_in_order, 100);
		ck_assert_msg(!sl.out_of_order, "%s: %llu of %llu seed pcp pages taken out of "
			      "their list's order", caps[k], (unsigned long long)sl.out_of_order,
			      (unsigned long long)(sl.out_of_order + sl.taken_in_order));
		ck_assert_msg(!sl.wrong_list, "%s: %llu seed pcp pages taken first by a request "
			      "of another migratetype than their list's", caps[k],
			      (unsigned long long)sl.wrong_list);
		if (k == 0) {
			ck_assert_uint_eq(sl.head, 0x4bc0c7);
			ck_assert_uint_gt(r.st.seed_pcp_relisted, 0);
		}
		sim_result_release(&r);
		tdb_close(db);
		free(sl.pfn);
		free(sl.list);
		free(sl.pos);
		free(sl.taken);
		free(sl.last);
	}
}
END_TEST

/*
 * A free whose page the kernel took back with no event (alloc_pages_bulk()) leaves the
 * page in use, and the page's next free releases it: on a hand-built zone, and over
 * frag.db every free handed out as reused is followed, for its page, by another free
 * before any allocation.
 */
struct reused_watch {
	uint64_t *pfn;			/* pages of reused frees awaiting their next event */
	size_t n, cap;
	uint64_t reused, confirmed;
};

static int watch_reused(void *arg, struct model *m, struct sim_apply *ap,
			const struct sim_request *rq)
{
	struct reused_watch *w = arg;
	size_t i;

	(void)m;
	(void)ap;
	if (rq->kind != SIM_REQ_ALLOC && rq->kind != SIM_REQ_FREE)
		return 0;
	for (i = 0; i < w->n; i++)
		if (w->pfn[i] == rq->pfn)
			break;
	if (i < w->n) {
		ck_assert_msg(rq->kind == SIM_REQ_FREE, "seq %llu: pfn %#llx allocated after a "
			      "free handed out as reused", (unsigned long long)rq->seq,
			      (unsigned long long)rq->pfn);
		w->pfn[i] = w->pfn[--w->n];
		w->confirmed++;
	}
	if (rq->kind == SIM_REQ_FREE && rq->reused) {
		w->reused++;
		if (w->n == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 64;
			w->pfn = realloc(w->pfn, w->cap * sizeof(*w->pfn));
			ck_assert_ptr_nonnull(w->pfn);
		}
		w->pfn[w->n++] = rq->pfn;
	}
	return 0;
}

START_TEST(test_free_reused_untraced)
{
	struct reused_watch w = { 0 };
	struct sim_opts o = { .until_seq = UINT64_MAX, .no_figures = true,
			      .before = watch_reused, .hook_arg = &w };
	struct model_layout l;
	struct sim_stats st;
	struct sim_apply *a;
	struct sim_request rq;
	struct sim_result r;
	struct model *m;
	struct tdb *db;
	uint64_t spfn;

	fixture_layout_init(&l);
	fixture_layout_zone(&l, "Normal", 0x40000, 4096);
	m = fixture_model(&l, "6.18.0");
	fixture_seed(m, 0x40000, 4096, KPF_BIT(KPF_BUDDY));
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(sim_apply_create(m, &st, &a), 0);
	rq = req(SIM_REQ_ALLOC, 0x40100, 0, 0, GFP_KERNEL_);
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	spfn = sim_apply_sim_pfn(a, 0x40100);
	ck_assert_int_eq(state(m, spfn), MODEL_PFN_ALLOC);
	rq = req(SIM_REQ_FREE, 0x40100, 0, -1, 0);
	rq.reused = true;
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	ck_assert_int_eq(state(m, spfn), MODEL_PFN_ALLOC);
	ck_assert_uint_eq(sim_apply_sim_pfn(a, 0x40100), spfn);
	ck_assert_uint_eq(st.frees_reused, 1);
	rq.reused = false;
	ck_assert_int_eq(sim_apply_request(a, &rq), 0);
	ck_assert_int_ne(state(m, spfn), MODEL_PFN_ALLOC);
	ck_assert_uint_eq(sim_apply_sim_pfn(a, 0x40100), UINT64_MAX);
	ck_assert_uint_eq(st.frees_unmatched, 0);
	sim_apply_destroy(a);
	model_destroy(m);

	ck_assert_int_eq(tdb_open(fixture_path("traces/frag.db"), TDB_READONLY, &db), 0);
	ck_assert_int_eq(sim_run(db, &o, &r), 0);
	ck_assert_uint_eq(r.st.frees_reused, w.reused);
	ck_assert_uint_gt(w.reused, 5);
	/*
	 * each one named again was named by a free (watch_reused()); the others lay above
	 * a page a pcp hit took and never came back (test_untraced_takes_inferred())
	 */
	ck_assert_uint_le(w.confirmed, w.reused);
	ck_assert_uint_ge(w.confirmed, 10);
	sim_result_release(&r);
	tdb_close(db);
	free(w.pfn);
}
END_TEST

/*
 * The bundled captures' free-running figures at each snapshot, gated where they stand
 * (a regression fails): unmovable pageblocks apart, the worst relative miss of a zone
 * order, the 2 MiB and 1 GiB counts, zone orders missed. vm-cma.db misses Normal order 9
 * at #2 (8 free blocks, the kernel's side 10): its seed holds two order-9 blocks on the
 * Movable list that the kernel's takes show were of another type, which only its
 * snapshot's page_reporting file could let the seed act on, and this capture was
 * recorded before snapshots had one (test_seed_absent_above_pageblock: with it, 0).
 */
START_TEST(test_free_running_gate)
{
	static const struct {
		const char *db; uint64_t unmov; int rel_pct; unsigned int misses; uint64_t d2m;
	} caps[] = {
		{ "anon.db", 3, 1, 0, 0 }, { "default.db", 0, 1, 0, 0 },
		{ "extfrag.db", 0, 2, 0, 0 }, { "frag.db", 1, 1, 0, 0 },
		{ "hugetlb.db", 0, 2, 0, 0 }, { "idle.db", 0, 0, 0, 0 },
		{ "mlock.db", 0, 6, 0, 0 }, { "offline.db", 0, 2, 0, 0 },
		{ "pagecache.db", 1, 1, 0, 0 }, { "pgtable.db", 0, 1, 0, 0 },
		{ "pins.db", 1, 3, 0, 0 }, { "slab.db", 0, 5, 0, 0 }, { "thp.db", 0, 1, 0, 0 },
		{ "vm-movable.db", 0, 100, 1, 0 }, { "vm-reserved.db", 0, 100, 0, 0 },
		{ "vm-cma.db", 0, 50, 1, 0 }, { "vm-cma-alloc-plain.db", 0, 23, 0, 0 },
		{ "vm-cma-alloc.db", 0, 15, 0, 0 }, { "lazy.db", 0, 0, 0, 0 },
	};
	struct sim_opts o = { .until_seq = UINT64_MAX };
	unsigned int i;
	char rel[64];

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		unsigned int misses = 0;
		struct sim_result r;
		struct tdb *db;
		int k;

		snprintf(rel, sizeof(rel), "traces/%s", caps[i].db);
		ck_assert_int_eq(tdb_open(fixture_path(rel), TDB_READONLY, &db), 0);
		ck_assert_int_eq(sim_run(db, &o, &r), 0);
		ck_assert_msg(r.nr_snaps > 0, "%s: no snapshot compared", caps[i].db);
		for (k = 0; k < r.nr_snaps; k++) {
			const struct sim_snapshot *ss = &r.snaps[k];
			uint64_t du = ss->sim.pb_unmovable > ss->kernel.pb_unmovable ?
				      ss->sim.pb_unmovable - ss->kernel.pb_unmovable :
				      ss->kernel.pb_unmovable - ss->sim.pb_unmovable;
			uint64_t d2 = ss->sim.contig_2m > ss->kernel.contig_2m ?
				      ss->sim.contig_2m - ss->kernel.contig_2m :
				      ss->kernel.contig_2m - ss->sim.contig_2m;

			ck_assert_msg(du <= caps[i].unmov, "%s #%lld: unmovable pageblocks %llu apart",
				      caps[i].db, (long long)ss->snap, (unsigned long long)du);
			ck_assert_msg(ss->verdict.free_order_rel_err * 100 <= caps[i].rel_pct,
				      "%s #%lld: free blocks %.1f%% off (%s)", caps[i].db,
				      (long long)ss->snap, ss->verdict.free_order_rel_err * 100,
				      ss->verdict.free_order_rel_worst);
			ck_assert_msg(d2 <= caps[i].d2m, "%s #%lld: 2 MiB counts %llu apart",
				      caps[i].db, (long long)ss->snap, (unsigned long long)d2);
			ck_assert_msg(ss->verdict.contig_1g_ok, "%s #%lld: 1 GiB counts differ",
				      caps[i].db, (long long)ss->snap);
			misses += ss->verdict.nr_misses;
		}
		ck_assert_msg(misses <= caps[i].misses, "%s: %u zone orders missed", caps[i].db,
			      misses);
		sim_result_release(&r);
		tdb_close(db);
	}
}
END_TEST

Suite *simulate_free_suite(void)
{
	Suite *s = suite_create("simulate_free");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_free_releases_simulated_pfn);
	tcase_add_test(tc, test_drain_of_other_block);
	tcase_add_test(tc, test_figures_hand_built);
	tcase_add_test(tc, test_kernel_against_itself);
	tcase_add_test(tc, test_order_tolerance);
	tcase_add_test(tc, test_contig_copy_is_journal);
	tcase_add_test(tc, test_json_and_store);
	tcase_add_test(tc, test_vmstat_diff_and_fold);
	tcase_add_test(tc, test_vmstat_traced_runs);
	tcase_add_test(tc, test_other_zone_counted);
	tcase_add_test(tc, test_same_pfn_counted);
	tcase_add_test(tc, test_seed_pcp_consumption_order);
	tcase_add_test(tc, test_free_reused_untraced);
	tcase_add_test(tc, test_buddyinfo_at_start);
	tcase_add_test(tc, test_contig_range_overflow);
	tcase_add_test(tc, test_seed_putback);
	tcase_add_test(tc, test_seed_reported_anon);
	tcase_add_test(tc, test_seed_reported_not_contig);
	tcase_add_test(tc, test_seed_pcp_refilled_list);
	tcase_add_test(tc, test_seed_type_learned);
	tcase_add_test(tc, test_pfnmap_against_flat);
	tcase_add_test(tc, test_sim_pins_and_isolation);
	tcase_add_test(tc, test_sim_offline_window);
	tcase_add_test(tc, test_sim_refused_offline);
	tcase_add_test(tc, test_reqs_refill_before_frees);
	tcase_add_test(tc, test_seed_absent_block);
	tcase_add_test(tc, test_seed_absent_then_named);
	tcase_add_test(tc, test_seed_absent_above_pageblock);
	tcase_add_test(tc, test_seed_drain_all_owner);
	tcase_add_test(tc, test_kernel_side_alloc_typed);
	tcase_add_test(tc, test_free_running_gate);
	suite_add_tcase(s, tc);
	return s;
}
