// SPDX-License-Identifier: GPL-2.0
/*
 * predict: both policies on hand-built maps, the cheap index, the stored tables, the
 * driver (pr_run()) on the bundled default capture, and a live end-to-end check
 * against the running kernel (tagged "live").
 *
 * The standard map (offsets from Z):
 *
 *     Z            Z+0x2000          Z+0x4000
 *     | DMA32 8192 | Normal 8192     |
 *
 * pageblock_order 9, MAX_PAGE_ORDER 10, 2 cpus, profile 6.18.44, everything free unless
 * a test says otherwise. Allocations of 4 MiB (1024 pages): mainline tries the Normal
 * candidates Z+0x2000, +0x2400, ... +0x3c00, then the DMA32 ones Z, +0x400, ...
 */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/err.h"
#include "common/kpageflags.h"
#include "db/tdb.h"
#include "model/model.h"
#include "predict/predict.h"
#include "predict/predict-run.h"
#include "replay/replay.h"
#include "tests/fixture.h"

#define Z	0x40000ull
#define NZ	0x2000u			/* pfns per zone */
#define N	(Z + NZ)		/* Normal start */
#define SZ	1024u			/* 4 MiB */


#define GFP_KERNEL		0xcc0ull
#define GFP_HIGHUSER_MOVABLE	0x100ccaull

struct fx {
	struct model *m;
	struct pr_ctx *c;
};

static struct model *mk_model(const char *rel, bool hole)
{
	struct model_layout l;

	fixture_layout_init(&l);
	fixture_layout_zone(&l, "DMA32", Z, NZ);
	fixture_layout_zone(&l, "Normal", N, NZ);
	if (hole) {
		/* not System RAM: [N + 0x100, N + 0x200) */
		l.nr_ram = 2;
		l.ram[0].start = Z;
		l.ram[0].end = N + 0x100;
		l.ram[1].start = N + 0x200;
		l.ram[1].end = N + NZ;
	}
	return fixture_model(&l, rel);
}

static struct fx mk(const char *rel, bool hole)
{
	struct fx f;

	f.m = mk_model(rel, hole);
	if (hole) {
		fixture_seed(f.m, Z, N + 0x100 - Z, KPF_BIT(KPF_BUDDY));
		fixture_seed(f.m, N + 0x200, NZ - 0x200, KPF_BIT(KPF_BUDDY));
	} else {
		fixture_seed(f.m, Z, 2 * NZ, KPF_BIT(KPF_BUDDY));
	}
	ck_assert_int_eq(pr_create_model(f.m, &f.c), 0);
	return f;
}

static void fx_done(struct fx *f)
{
	char buf[1024];

	ck_assert_int_eq(model_recount(f->m, buf, sizeof(buf)), 0);
	pr_destroy(f->c);
	model_destroy(f->m);
}

static struct pr_opts opts(enum pr_policy pol, uint64_t nr, unsigned int count)
{
	struct pr_opts o = { .policy = pol, .nr_pages = nr, .count = count, .align_order = -1 };

	return o;
}

static struct pr_answer *ask(struct fx *f, const struct pr_opts *o, unsigned int *nr)
{
	struct pr_answer *a = NULL;

	ck_assert_int_eq(pr_ask(f->c, o, 0, 0, &a, nr), 0);
	ck_assert_ptr_nonnull(a);
	return a;
}

/* A feed event for the allocation index. */
static void note_alloc(struct fx *f, uint64_t pfn, unsigned int order, uint64_t seq)
{
	struct tr_event ev = { .kind = TR_EV_PAGE_ALLOC, .seq = seq, .pfn = pfn, .order = order };

	pr_after_event(f->c, &ev);
}

static void cand_is(const struct pr_answer *a, unsigned int i, uint64_t start,
		    enum pr_verdict v, uint64_t pfn)
{
	ck_assert_uint_gt(a->nr_cand, i);
	ck_assert_msg(a->cand[i].start_pfn == start && a->cand[i].verdict == v &&
		      a->cand[i].pfn == pfn,
		      "candidate %u: start Z+%#llx %s pfn %#llx; want Z+%#llx %s pfn %#llx", i,
		      (unsigned long long)(a->cand[i].start_pfn - Z),
		      pr_verdict_name(a->cand[i].verdict), (unsigned long long)a->cand[i].pfn,
		      (unsigned long long)(start - Z), pr_verdict_name(v),
		      (unsigned long long)pfn);
}

/*
 * Only free pages: the first Normal candidate wins without moving anything.
 * Expect: success [N, N+SZ), one candidate, migrate 0, no assumption.
 */
START_TEST(test_only_free)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 1);
	struct pr_answer *a;
	unsigned int nr;

	a = ask(&f, &o, &nr);
	ck_assert_uint_eq(nr, 1);
	ck_assert(a[0].success);
	ck_assert_uint_eq(a[0].start_pfn, N);
	ck_assert_uint_eq(a[0].end_pfn, N + SZ);
	ck_assert_uint_eq(a[0].nr_cand, 1);
	ck_assert_uint_eq(a[0].migrate_pages, 0);
	ck_assert_uint_eq(a[0].assumptions, 0);
	pr_answers_free(a, nr);
	fx_done(&f);
}
END_TEST

/*
 * One slab page at N+5, allocated by event 42.
 *   6.18: slab pages have refcount 0, isolation passes, the test stops at N+5.
 *   6.12: has_unmovable_pages() stops at N+5.
 * Expect: candidate 0 fails (migration / isolation) at N+5, candidate 1 wins; the
 * blocker of a --range [N, N+SZ) question is N+5, slab, from event 42.
 */
START_TEST(test_slab_page)
{
	const char *rel[2] = { "6.18.44", "6.12.118" };
	const enum pr_verdict want[2] = { PR_V_MIGRATION, PR_V_ISOLATION };
	int k;

	for (k = 0; k < 2; k++) {
		struct fx f = mk(rel[k], false);
		struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 1);
		struct pr_answer *a;
		unsigned int nr;

		ck_assert_int_eq(model_page_alloc(f.m, N + 5, 0, GFP_KERNEL, 0, 0), 0);
		ck_assert_int_eq(model_set_page_kind(f.m, N + 5, 1, MODEL_KIND_SLAB), 0);
		note_alloc(&f, N + 5, 0, 42);
		a = ask(&f, &o, &nr);
		ck_assert(a[0].success);
		ck_assert_uint_eq(a[0].start_pfn, N + SZ);
		cand_is(&a[0], 0, N, want[k], N + 5);
		cand_is(&a[0], 1, N + SZ, PR_V_SUCCESS, UINT64_MAX);
		pr_answers_free(a, nr);

		o.has_range = true;
		o.range_start = N;
		o.range_end = N + SZ;
		a = ask(&f, &o, &nr);
		ck_assert(!a[0].success);
		ck_assert(a[0].has_blocker);
		ck_assert_uint_eq(a[0].blocker.pfn, N + 5);
		ck_assert_int_eq(a[0].blocker.kind, MODEL_KIND_SLAB);
		ck_assert_uint_eq(a[0].blocker.ev.seq, 42);
		pr_answers_free(a, nr);
		fx_done(&f);
	}
}
END_TEST

/*
 * A reserved page at N+7 (memblock), a page table at N+0x400+9.
 * Expect: invalid-range at N+7, isolation-fails at N+0x409 (page tables have refcount
 * 1), success at N+0x800.
 */
START_TEST(test_reserved_and_pgtable)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 1);
	struct pr_answer *a;
	unsigned int nr;

	fixture_seed(f.m, N + 7, 1, KPF_BIT(KPF_RESERVED));
	fixture_seed(f.m, N + 0x409, 1, KPF_BIT(KPF_PGTABLE));
	a = ask(&f, &o, &nr);
	cand_is(&a[0], 0, N, PR_V_INVALID, N + 7);
	cand_is(&a[0], 1, N + 0x400, PR_V_ISOLATION, N + 0x409);
	cand_is(&a[0], 2, N + 0x800, PR_V_SUCCESS, UINT64_MAX);
	pr_answers_free(a, nr);
	fx_done(&f);
}
END_TEST

/*
 * The culprit an offline of [N, N+0x800) reports (has_unmovable_pages() in
 * MEM_OFFLINE mode, first unmovable page): a buffer-cache folio at N+4 (GFP_NOFS |
 * __GFP_NOFAIL | __GFP_HARDWALL | __GFP_COMP: LRU, passed), an order-0 slab page at N+8
 * allocated with allocate_slab()'s first-try gfp (refcount 0 on 6.18: passed), flags-0
 * pages at [N+0x10, N+0x14) from the snapshot, a page table at N+0x40.
 * Expect: before any drain the flags-0 pages are taken for pcp pages (N+0x40); after a
 * full pcp drain of the zone that freed only N+0x11, N+0x10 is a kernel page in use and
 * the culprit, with the seeded-unknown assumption.
 */
START_TEST(test_offline_culprit_flags0)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, 0x800, 1);
	struct pr_answer *a;
	unsigned int nr;

	o.offline = true;
	o.has_range = true;
	o.range_start = N;
	o.range_end = N + 0x800;
	ck_assert_int_eq(model_page_alloc(f.m, N + 4, 0, 0x148c40, 0, 0), 0);
	ck_assert_int_eq(model_page_alloc(f.m, N + 8, 0, 0x52cc0, 0, 0), 0);
	fixture_seed(f.m, N + 0x10, 4, 0);
	fixture_seed(f.m, N + 0x40, 1, KPF_BIT(KPF_PGTABLE));
	a = ask(&f, &o, &nr);
	ck_assert(!a[0].success && a[0].has_blocker);
	ck_assert_uint_eq(a[0].blocker.pfn, N + 0x40);
	pr_answers_free(a, nr);
	ck_assert_int_eq(model_pcpu_drain(f.m, N + 0x11, 0, 1, 0), 0);
	ck_assert_int_eq(model_zone_pcp_drained(f.m, N, NULL), 0);
	a = ask(&f, &o, &nr);
	ck_assert(!a[0].success && a[0].has_blocker);
	ck_assert_uint_eq(a[0].blocker.pfn, N + 0x10);
	ck_assert(a[0].assumptions & PR_ASSUME_SEEDED_UNKNOWN);
	pr_answers_free(a, nr);
	fx_done(&f);
}
END_TEST

/*
 * A hole (not System RAM) at [N+0x100, N+0x200); uninitialised memory at
 * [N+0x400, N+0x800) (lazy struct page init).
 * Expect: invalid-range at N+0x100 and at N+0x400, success at N+0x800.
 */
START_TEST(test_hole_and_uninit)
{
	struct fx f = mk("6.18.44", true);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 1);
	struct pr_answer *a;
	unsigned int nr;

	ck_assert_int_eq(model_set_uninit(f.m, N + 0x400, 0x400), 0);
	a = ask(&f, &o, &nr);
	cand_is(&a[0], 0, N, PR_V_INVALID, N + 0x100);
	cand_is(&a[0], 1, N + 0x400, PR_V_INVALID, N + 0x400);
	cand_is(&a[0], 2, N + 0x800, PR_V_SUCCESS, UINT64_MAX);
	pr_answers_free(a, nr);
	fx_done(&f);
}
END_TEST

/*
 * --range [N-0x200, N+0x200): one candidate across the DMA32/Normal boundary.
 * Expect: invalid-range at N (the first pfn of the other zone).
 */
START_TEST(test_zone_boundary)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 1);
	struct pr_answer *a;
	unsigned int nr;

	o.has_range = true;
	o.range_start = N - 0x200;
	o.range_end = N + 0x200;
	a = ask(&f, &o, &nr);
	ck_assert_uint_eq(a[0].nr_cand, 1);
	cand_is(&a[0], 0, N - 0x200, PR_V_INVALID, N);
	ck_assert(!a[0].success);
	pr_answers_free(a, nr);
	fx_done(&f);
}
END_TEST

/*
 * Only movable pages in use (anonymous LRU) everywhere but 256 free pages at
 * Z+0x1f00: nowhere to migrate 1024 pages to.
 * Expect: every candidate fails with migration-fails (no target); with the DMA32 zone
 * free instead, the first Normal candidate succeeds, moving 1024 pages, and says it
 * assumes them unpinned.
 */
START_TEST(test_movable_too_little_free)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 1);
	struct pr_answer *a;
	unsigned int nr, i;

	fixture_seed(f.m, Z, 2 * NZ, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	fixture_seed(f.m, Z + 0x1f00, 0x100, KPF_BIT(KPF_BUDDY));
	a = ask(&f, &o, &nr);
	ck_assert(!a[0].success);
	ck_assert_uint_eq(a[0].nr_cand, 16);
	for (i = 0; i < a[0].nr_cand; i++)
		ck_assert_int_eq(a[0].cand[i].verdict, PR_V_MIGRATION);
	ck_assert(a[0].has_blocker);
	pr_answers_free(a, nr);

	fixture_seed(f.m, Z, NZ, KPF_BIT(KPF_BUDDY));
	a = ask(&f, &o, &nr);
	ck_assert(a[0].success);
	ck_assert_uint_eq(a[0].start_pfn, N);
	ck_assert_uint_eq(a[0].migrate_pages, SZ);
	ck_assert(a[0].assumptions & PR_ASSUME_MOVABLE_UNPINNED);
	pr_answers_free(a, nr);
	fx_done(&f);
}
END_TEST

/*
 * A 2 MiB hugetlb folio at N+0x200 (order 9).
 * Expect: 6.18 pfn_range_valid_contig() rejects the candidate at N+0x200; the next one
 * wins.
 */
START_TEST(test_hugetlb_in_range)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 1);
	struct pr_answer *a;
	unsigned int nr;

	fixture_seed_compound(f.m, N + 0x200, 512, KPF_BIT(KPF_HUGE));
	a = ask(&f, &o, &nr);
	cand_is(&a[0], 0, N, PR_V_INVALID, N + 0x200);
	cand_is(&a[0], 1, N + SZ, PR_V_SUCCESS, UINT64_MAX);
	pr_answers_free(a, nr);
	fx_done(&f);
}
END_TEST

/*
 * pcp pages in range: N+0x10 allocated then freed to cpu 1's pcp list.
 * Expect: success at N (the drain frees it); afterwards N+0x10 is still on cpu 1's
 * list (the attempt was hypothetical).
 */
START_TEST(test_pcp_in_range)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 1);
	struct model_pfn_info pi;
	struct pr_answer *a;
	unsigned int nr;

	ck_assert_int_eq(model_page_alloc(f.m, N + 0x10, 0, GFP_HIGHUSER_MOVABLE, 1, 1), 0);
	ck_assert_int_eq(model_page_free(f.m, N + 0x10, 0, 1), 0);
	ck_assert_int_eq(model_pfn_info(f.m, N + 0x10, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_PCP);
	a = ask(&f, &o, &nr);
	ck_assert(a[0].success);
	ck_assert_uint_eq(a[0].start_pfn, N);
	pr_answers_free(a, nr);
	ck_assert_int_eq(model_pfn_info(f.m, N + 0x10, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_PCP);
	ck_assert_int_eq(pi.cpu, 1);
	fx_done(&f);
}
END_TEST

/*
 * Alignment and stepping, every candidate failing on a slab page at its start
 * (compound slab pages fail isolation on every profile).
 * Expect mainline: Normal N, N+0x400 ... N+0x1c00 then DMA32 Z ... Z+0x1c00 (16);
 * --align 9: step 512 (31 per zone, the last one ending at the zone end);
 * v4: 2 MiB rounded up to 2048 pages, candidates every 2048 pages, skipping past
 * the offending page.
 */
START_TEST(test_alignment_stepping)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 1);
	struct pr_answer *a;
	unsigned int nr, i;
	uint64_t p;

	for (p = Z; p < Z + 2 * NZ; p += 512)
		fixture_seed_compound(f.m, p, 2, KPF_BIT(KPF_SLAB));
	a = ask(&f, &o, &nr);
	ck_assert(!a[0].success);
	ck_assert_uint_eq(a[0].nr_cand, 16);
	for (i = 0; i < 8; i++) {
		cand_is(&a[0], i, N + i * SZ, PR_V_ISOLATION, N + i * SZ);
		cand_is(&a[0], 8 + i, Z + i * SZ, PR_V_ISOLATION, Z + i * SZ);
	}
	pr_answers_free(a, nr);

	o.align_order = 9;
	a = ask(&f, &o, &nr);
	ck_assert_uint_eq(a[0].nr_cand, 2 * 15);
	ck_assert_uint_eq(a[0].cand[1].start_pfn, N + 512);
	ck_assert_uint_eq(a[0].cand[14].end_pfn, N + NZ);
	pr_answers_free(a, nr);

	o = opts(PR_POLICY_V4, 512, 1);
	a = ask(&f, &o, &nr);
	ck_assert_uint_eq(a[0].cand[0].start_pfn, N);
	ck_assert_uint_eq(a[0].cand[0].end_pfn, N + 2048);
	ck_assert_int_eq(a[0].cand[0].verdict, PR_V_PRESCREEN);
	ck_assert_uint_eq(a[0].cand[1].start_pfn, N + 2048);
	pr_answers_free(a, nr);
	fx_done(&f);
}
END_TEST

/*
 * v4 pre-screen with skip-ahead: a slab page at N+0x810 (inside the second 2048-page
 * window only); an anonymous LRU page at N+0x5 passes the pre-screen and is migrated.
 * Expect: window N succeeds (mainline would too); with the slab page moved to N+0x10,
 * window N fails the pre-screen at N+0x10 and the next one tried is N+0x800.
 */
START_TEST(test_v4_prescreen)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_V4, SZ, 1);
	struct pr_answer *a;
	unsigned int nr;

	fixture_seed(f.m, N + 5, 1, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	fixture_seed(f.m, N + 0x810, 1, KPF_BIT(KPF_SLAB));
	a = ask(&f, &o, &nr);
	ck_assert(a[0].success);
	ck_assert_uint_eq(a[0].start_pfn, N);
	ck_assert_uint_eq(a[0].end_pfn, N + 2048);
	ck_assert_uint_eq(a[0].migrate_pages, 1);
	pr_answers_free(a, nr);

	fixture_seed(f.m, N + 0x810, 1, KPF_BIT(KPF_BUDDY));
	fixture_seed(f.m, N + 0x10, 1, KPF_BIT(KPF_SLAB));
	a = ask(&f, &o, &nr);
	cand_is(&a[0], 0, N, PR_V_PRESCREEN, N + 0x10);
	cand_is(&a[0], 1, N + 0x800, PR_V_SUCCESS, UINT64_MAX);
	pr_answers_free(a, nr);
	fx_done(&f);
}
END_TEST

/*
 * An anonymous page at N+9 that the snapshot showed off the LRU (a per-cpu LRU batch,
 * pr_mark_lru_batch()). has_unmovable_pages() stops alloc_contig_range() there, and
 * lru_cache_disable() drains the batches only once an attempt migrates; offline_pages()
 * drains before isolating.
 * Expect: mainline K = 2: answer 1 fails candidate N at N+9 (isolation) and takes N+SZ
 * (whose migration drained the batches), answer 2 takes N; offline of [N, N+SZ)
 * succeeds; after a real attempt (pr_attempt_end) N succeeds at once; an event on the
 * page also settles it.
 */
START_TEST(test_lru_batch)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 2);
	struct tr_attempt att = { .kind = TR_ATTEMPT_CONTIG, .start_pfn = N + 3 * SZ,
				  .end_pfn = N + 4 * SZ, .success = true };
	struct tr_event ev = { .kind = TR_EV_PAGE_FREE, .pfn = N + 9, .order = 0, .seq = 7 };
	struct pr_answer *a;
	unsigned int nr;

	fixture_seed(f.m, N + 9, 1, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	ck_assert_uint_eq(pr_mark_lru_batch(f.c, N, SZ, 0), 1);
	a = ask(&f, &o, &nr);
	ck_assert_uint_eq(nr, 2);
	cand_is(&a[0], 0, N, PR_V_ISOLATION, N + 9);
	cand_is(&a[0], 1, N + SZ, PR_V_SUCCESS, UINT64_MAX);
	ck_assert(a[1].success);
	ck_assert_uint_eq(a[1].start_pfn, N);
	pr_answers_free(a, nr);

	o = opts(PR_POLICY_MAINLINE, SZ, 1);
	o.offline = true;
	o.has_range = true;
	o.range_start = N;
	o.range_end = N + SZ;
	a = ask(&f, &o, &nr);
	ck_assert(a[0].success);
	pr_answers_free(a, nr);

	o = opts(PR_POLICY_MAINLINE, SZ, 1);
	a = ask(&f, &o, &nr);
	cand_is(&a[0], 0, N, PR_V_ISOLATION, N + 9);
	pr_answers_free(a, nr);
	pr_attempt_end(f.c, &att);
	a = ask(&f, &o, &nr);
	cand_is(&a[0], 0, N, PR_V_SUCCESS, UINT64_MAX);
	pr_answers_free(a, nr);

	ck_assert_uint_eq(pr_mark_lru_batch(f.c, N, SZ, 0), 1);
	pr_after_event(f.c, &ev);
	ck_assert_int_eq(model_page_free(f.m, N + 9, 0, 0), 0);
	a = ask(&f, &o, &nr);
	cand_is(&a[0], 0, N, PR_V_SUCCESS, UINT64_MAX);
	pr_answers_free(a, nr);
	fx_done(&f);
}
END_TEST

/*
 * --count: all free, K = 3 then K = 20 (16 candidates).
 * Expect: 3 successes N, N+0x400, N+0x800, the second answer seeing the first range
 * taken (hugetlb: invalid-range); K = 20: 16 successes then one failure (17 answers).
 * The model is unchanged afterwards.
 */
START_TEST(test_count)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 3);
	struct model_range_counts rc;
	struct pr_answer *a;
	unsigned int nr, i;

	a = ask(&f, &o, &nr);
	ck_assert_uint_eq(nr, 3);
	for (i = 0; i < 3; i++) {
		ck_assert(a[i].success);
		ck_assert_uint_eq(a[i].start_pfn, N + i * SZ);
		ck_assert_uint_eq(a[i].index, i);
	}
	cand_is(&a[1], 0, N, PR_V_INVALID, N);
	pr_answers_free(a, nr);

	o.count = 20;
	a = ask(&f, &o, &nr);
	ck_assert_uint_eq(nr, 17);
	for (i = 0; i < 16; i++)
		ck_assert(a[i].success);
	ck_assert(!a[16].success);
	ck_assert_uint_eq(a[8].start_pfn, Z);
	pr_answers_free(a, nr);
	model_range_counts(f.m, Z, Z + 2 * NZ, &rc);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_FREE], 2 * NZ);
	fx_done(&f);
}
END_TEST

/*
 * Likely pinned: anonymous pages at [N, N+0x400) with DMA32 free; a real attempt
 * failed on N+0x123 earlier. Expect: candidate N fails with migration-fails at N+0x123
 * (assumption likely-pinned) and the next one, moving nothing, wins; once the page is
 * freed and reallocated the note no longer applies.
 */
START_TEST(test_likely_pinned)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 1);
	struct pr_answer *a;
	unsigned int nr;

	fixture_seed(f.m, N, SZ, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	pr_note_pinned(f.c, N + 0x123, 7, "test");
	a = ask(&f, &o, &nr);
	cand_is(&a[0], 0, N, PR_V_MIGRATION, N + 0x123);
	ck_assert_uint_eq(a[0].start_pfn, N + SZ);
	pr_answers_free(a, nr);

	ck_assert_int_eq(model_page_free(f.m, N + 0x123, 0, 0), 0);
	{
		struct tr_event ev = { .kind = TR_EV_PAGE_FREE, .seq = 8, .pfn = N + 0x123 };

		pr_after_event(f.c, &ev);
	}
	ck_assert_int_eq(model_drain_zone(f.m, N), 0);
	ck_assert_int_eq(model_page_alloc(f.m, N + 0x123, 0, GFP_HIGHUSER_MOVABLE, 1, 0), 0);
	note_alloc(&f, N + 0x123, 0, 9);
	a = ask(&f, &o, &nr);
	ck_assert(a[0].success);
	ck_assert_uint_eq(a[0].start_pfn, N);
	ck_assert(a[0].assumptions & PR_ASSUME_MOVABLE_UNPINNED);
	pr_answers_free(a, nr);
	fx_done(&f);
}
END_TEST

/*
 * The cheap index follows events: all free, the signature names candidate N; an
 * unmovable allocation in [N, N+SZ) moves the first success to N+SZ (new signature,
 * the same as a full pr_ask()); freeing it restores the first signature.
 */
START_TEST(test_index)
{
	struct fx f = mk("6.18.44", false);
	struct pr_opts o = opts(PR_POLICY_MAINLINE, SZ, 1);
	struct tr_event ev = { .kind = TR_EV_PAGE_ALLOC, .seq = 1, .pfn = N + 0x33 };
	struct pr_index_stats st;
	struct pr_index *ix;
	struct pr_answer *a;
	uint64_t s0, s1, s2;
	unsigned int nr;

	ck_assert_int_eq(pr_index_create(f.c, &o, &ix), 0);
	s0 = pr_index_sig(ix);
	ck_assert_uint_eq(pr_index_sig(ix), s0);
	ck_assert_int_eq(model_page_alloc(f.m, N + 0x33, 0, GFP_KERNEL, 0, 0), 0);
	pr_after_event(f.c, &ev);
	s1 = pr_index_sig(ix);
	ck_assert_uint_ne(s1, s0);
	a = ask(&f, &o, &nr);
	ck_assert_uint_eq(a[0].start_pfn, N + SZ);
	pr_answers_free(a, nr);
	ck_assert_int_eq(model_page_free(f.m, N + 0x33, 0, 0), 0);
	ev.kind = TR_EV_PAGE_FREE;
	ev.seq = 2;
	pr_after_event(f.c, &ev);
	s2 = pr_index_sig(ix);
	ck_assert_uint_eq(s2, s0);
	pr_index_get_stats(ix, &st);
	ck_assert_uint_eq(st.questions, 4);
	ck_assert_uint_eq(st.attempts_run, 0);
	pr_index_destroy(ix);
	fx_done(&f);
}
END_TEST

/* ---- the driver on a capture ---- */

/* pr_run() on the bundled default capture (read only, nothing stored). */
static void run_default(const struct pr_run_opts *o, struct pr_run_result *r,
			struct tdb **db, struct replay **rp)
{
	struct rp_opts ro = { .until_seq = UINT64_MAX };

	ck_assert_int_eq(tdb_open(fixture_path("traces/default.db"), TDB_READONLY, db), 0);
	ck_assert_int_eq(rp_create(*db, &ro, rp), 0);
	ck_assert_int_eq(pr_run(*rp, o, r), 0);
}

static void run_done(struct pr_run_result *r, struct tdb *db, struct replay *rp)
{
	pr_run_release(r);
	rp_destroy(rp);
	tdb_close(db);
}

/*
 * Asked at every event (the index), the driver keeps an answer only when the outcome
 * changes, and ends with the answer at the end of the capture.
 * Expect: answers in seq order, no two questions in a row with the same outcome, the
 * last one equal to a question at the end; the index ran.
 */
START_TEST(test_run_every_event)
{
	struct pr_run_opts o = { .o = opts(PR_POLICY_MAINLINE, 262144, 1),
				 .point = PR_POINT_END };
	struct pr_run_result r, end;
	const struct pr_answer *last;
	struct replay *rp, *rp_end;
	struct tdb *db, *db_end;
	unsigned int i;

	run_default(&o, &end, &db_end, &rp_end);
	ck_assert(!end.indexed);
	ck_assert_uint_eq(end.nr_ans, 1);
	o.point = PR_POINT_EVERY;
	run_default(&o, &r, &db, &rp);
	ck_assert(r.indexed);
	ck_assert_uint_gt(r.nr_ans, 1);
	for (i = 1; i < r.nr_ans; i++) {
		const struct pr_answer *a = &r.ans[i - 1], *b = &r.ans[i];

		ck_assert_uint_lt(a->at_seq, b->at_seq);
		ck_assert_msg(a->success != b->success || a->start_pfn != b->start_pfn ||
			      a->blocker.pfn != b->blocker.pfn,
			      "answers %u and %u (seq %llu, %llu) have the same outcome", i - 1, i,
			      (unsigned long long)a->at_seq, (unsigned long long)b->at_seq);
	}
	last = &r.ans[r.nr_ans - 1];
	ck_assert_uint_eq(last->success, end.ans[0].success);
	ck_assert_uint_eq(last->start_pfn, end.ans[0].start_pfn);
	ck_assert_uint_eq(last->nr_cand, end.ans[0].nr_cand);
	run_done(&r, db, rp);
	run_done(&end, db_end, rp_end);
}
END_TEST

/* ---- live ---- */

/*
 * A fragmenting workload that holds its memory until killed: anonymous memory with
 * every other 64 KiB unmapped (part of it mlocked) and 64 MiB of page cache.
 */
static pid_t start_workload(const char *file)
{
	int pfd[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		size_t len = 512ul << 20, off;
		static char buf[1 << 16];
		char *p;
		int fd;

		close(pfd[0]);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		madvise(p, len, MADV_NOHUGEPAGE);
		for (off = 0; off < len; off += 4096)
			p[off] = 1;
		for (off = 0; off + (128u << 10) <= len; off += 128u << 10) {
			munmap(p + off + (64u << 10), 64u << 10);
			if (!(off & ((8u << 20) - 1)))
				mlock(p + off, 64u << 10);
		}
		fd = open(file, O_CREAT | O_TRUNC | O_WRONLY, 0600);
		memset(buf, 'x', sizeof(buf));
		for (off = 0; fd >= 0 && off < (64u << 20); off += sizeof(buf))
			if (write(fd, buf, sizeof(buf)) < 0)
				break;
		if (fd >= 0)
			close(fd);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], &c, 1), 1);
	close(pfd[0]);
	return pid;
}

/*
 * record --probe 1G --probe-offline 4 under the workload, then predict --verify.
 * Expect: the pool and the blocks are as before, every probe whose outcome does not
 * depend on invisible state (pins, refcounts) agrees. Prints the figures.
 */
START_TEST(test_live_probe_verify)
{
	char *db = fixture_tmpfile("probe.db"), *file = fixture_tmpfile("cache.bin");
	char cmd[1024], *out = NULL;
	const char *p;
	int rc, attempts = -1, agree = -1;
	FILE *fp;
	long before = -1, after = -1;
	pid_t w;

	if (!fixture_live("test_live_probe_verify"))
		return;
	if (access("/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", W_OK)) {
		fixture_skip("no 1 GiB hugetlb pool on this kernel");
		return;
	}
	fp = fopen("/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "r");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fscanf(fp, "%ld", &before), 1);
	fclose(fp);

	w = start_workload(file);
	snprintf(cmd, sizeof(cmd), "%s record -q -f -o %s -d 2 --probe 1G --probe-offline 4",
		 fixture_bigchunk(), db);
	rc = fixture_run(cmd, &out);
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	fixture_rm(file);
	printf("%s", out);
	fflush(stdout);
	ck_assert_msg(rc == 0, "record --probe failed: %s", out);
	free(out);

	fp = fopen("/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "r");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fscanf(fp, "%ld", &after), 1);
	fclose(fp);
	ck_assert_int_eq(after, before);
	ck_assert_int_eq(fixture_run("grep -l '^offline' /sys/devices/system/memory/memory*/state",
				     NULL), 1);

	snprintf(cmd, sizeof(cmd), "%s predict %s --verify", fixture_bigchunk(), db);
	rc = fixture_run(cmd, &out);
	printf("%s", out);
	fflush(stdout);
	ck_assert_msg(rc == 0 || rc == 1, "predict --verify failed: %s", out);
	p = strstr(out, "real attempts, ");
	ck_assert_ptr_nonnull(p);
	free(out);

	/* every disagreement on a probe must be one that depends on invisible state */
	snprintf(cmd, sizeof(cmd), "%s query %s \"SELECT count(*), sum(agree) FROM verify_results "
		 "WHERE run = (SELECT max(run) FROM verify_results) AND kind <> 'trace_attempt'\"",
		 fixture_bigchunk(), db);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	p = strchr(out, '\n');
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(p + 1, "%d %d", &attempts, &agree), 2);
	printf("live probe agreement: %d of %d probes (capture %s)\n", agree, attempts, db);
	fflush(stdout);
	free(out);
	ck_assert_int_ge(attempts, 2);
	snprintf(cmd, sizeof(cmd), "%s query %s \"SELECT count(*) FROM verify_results WHERE run = "
		 "(SELECT max(run) FROM verify_results) AND kind <> 'trace_attempt' AND agree = 0 "
		 "AND depends_on_pins = 0\"", fixture_bigchunk(), db);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	p = strchr(out, '\n');
	ck_assert_ptr_nonnull(p);
	ck_assert_msg(atoi(p + 1) == 0, "probes disagree without invisible state: %s", out);
	free(out);
	fixture_rm(db);
}
END_TEST

/*
 * The blocker's kernel stack (record --stacks) is printed with the allocation that put
 * it there, from a capture of schema version 2 read as it is (--no-store) and after an
 * open for writing migrated it (stacks stored once, 'stacks' a view).
 * Expect: each frame of event 529's stack in the old file, indented under "allocated at
 * ... (event 529)" (it blocks the range from 1 s on), both times.
 */
START_TEST(test_blocker_stack)
{
	char *db = fixture_tmpfile("blocker-stack.db"), *frames, *out, *line, *save = NULL;
	const char *store[] = { "--no-store ", "" };
	char want[256];

	fixture_copy(fixture_path("traces/default.db"), db);
	ck_assert_int_eq(fixture_sql_count(db, "PRAGMA user_version"), 2);
	frames = fixture_sql_rows(db, "SELECT frames FROM stacks WHERE seq = 529");
	ck_assert_ptr_nonnull(strstr(frames, "trace_event_raw_event_mm_page_alloc+0x"));
	for (int i = 0; i < 2; i++) {
		char *copy = strdup(frames), *at;

		/* exit status 1: the range fails, which is the point */
		ck_assert_int_eq(fixture_run_bc(&out, "predict %s--size 2M --range "
						"0x25e800-0x25ea00 --every 0.5s %s", store[i], db), 1);
		at = strstr(out, "(event 529)");
		ck_assert_msg(at, "no blocker event 529 in: %.600s", out);
		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			snprintf(want, sizeof(want), "\n        %s\n", line);
			ck_assert_msg(strstr(at, want), "frame '%s' missing (%s): %.600s", line,
				      store[i], at);
		}
		free(copy);
		free(out);
	}
	ck_assert_int_eq(fixture_sql_count(db, "PRAGMA user_version"), TDB_SCHEMA_VERSION);
	free(frames);
	fixture_rm(db);
}
END_TEST

Suite *predict_suite(void)
{
	Suite *s = suite_create("predict");
	TCase *core = tcase_create("core"), *driver = tcase_create("driver");
	TCase *live = tcase_create("live");

	tcase_add_test(core, test_only_free);
	tcase_add_test(core, test_slab_page);
	tcase_add_test(core, test_lru_batch);
	tcase_add_test(core, test_reserved_and_pgtable);
	tcase_add_test(core, test_hole_and_uninit);
	tcase_add_test(core, test_offline_culprit_flags0);
	tcase_add_test(core, test_zone_boundary);
	tcase_add_test(core, test_movable_too_little_free);
	tcase_add_test(core, test_hugetlb_in_range);
	tcase_add_test(core, test_pcp_in_range);
	tcase_add_test(core, test_alignment_stepping);
	tcase_add_test(core, test_v4_prescreen);
	tcase_add_test(core, test_count);
	tcase_add_test(core, test_likely_pinned);
	tcase_add_test(core, test_index);
	suite_add_tcase(s, core);
	/* whole replays of a bundled capture: seconds on a busy machine */
	tcase_set_timeout(driver, 120);
	tcase_add_test(driver, test_run_every_event);
	tcase_add_test(driver, test_blocker_stack);
	suite_add_tcase(s, driver);
	tcase_set_tags(live, "live");
	tcase_set_timeout(live, 300);
	tcase_add_test(live, test_live_probe_verify);
	suite_add_tcase(s, live);
	return s;
}
