// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of model_alloc_contig_range() (model/contig.c): one test per stage that
 * can decide an attempt, each asserting the stage and the pfn that decided it.
 *
 * The map: one zone "Normal" at Z of 4096 pfns (8 pageblocks of 512), pageblock_order
 * 9, MAX_PAGE_ORDER 10, 2 cpus, profile 6.18.44 unless a test says otherwise. Every
 * page starts free; each test seeds the in-use pages it draws (offsets from Z).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/kpageflags.h"
#include "model/model.h"
#include "tests/fixture.h"

#define Z	0x40000ull
#define NPFN	4096u


/* A free zone of NPFN pages on kernel @release. */
static struct model *zone_of(const char *release)
{
	return fixture_free_zone(release, Z, NPFN);
}

/* Pages [Z + off, Z + off + n) in use with kpageflags @flags (compound: head, tails). */
static void use(struct model *m, uint64_t off, uint64_t n, uint64_t flags)
{
	const uint64_t compound = KPF_BIT(KPF_COMPOUND_HEAD) | KPF_BIT(KPF_COMPOUND_TAIL);
	uint64_t *f = malloc(n * sizeof(*f)), i;

	for (i = 0; i < n; i++)
		f[i] = flags & compound ? (flags & ~compound) |
		       (i ? KPF_BIT(KPF_COMPOUND_TAIL) : KPF_BIT(KPF_COMPOUND_HEAD)) : flags;
	ck_assert_int_eq(model_seed_pfn_range(m, Z + off, n, f, NULL), 0);
	free(f);
}

static struct model_contig_req req_of(uint64_t off, uint64_t n)
{
	struct model_contig_req r = { .start = Z + off, .end = Z + off + n,
				      .mode = MODEL_ISOLATE_OTHER, .kind = MODEL_KIND_HUGETLB };
	return r;
}

/* A model, the request on it and the last result. */
struct attempt {
	struct model *m;
	struct model_contig_req r;
	struct model_contig_result res;
};

static void begin(struct attempt *a, const char *release, uint64_t off, uint64_t n)
{
	a->m = zone_of(release);
	a->r = req_of(off, n);
	memset(&a->res, 0, sizeof(a->res));
}

/* Run the attempt; expect @stage at pfn Z + @off (UINT64_MAX: none). */
static void expect(struct attempt *a, enum model_contig_stage stage, uint64_t off)
{
	uint64_t want = off == UINT64_MAX ? UINT64_MAX : Z + off;
	struct model_contig_result *res = &a->res;

	ck_assert_int_eq(model_alloc_contig_range(a->m, &a->r, res), 0);
	ck_assert_msg(res->stage == stage && res->pfn == want,
		      "stage %d pfn %#llx; want stage %d pfn %#llx", res->stage,
		      (unsigned long long)res->pfn, stage, (unsigned long long)want);
	ck_assert_int_eq(res->ret, stage == MODEL_CONTIG_SUCCESS ? 0 :
			 res->ret == -BC_E_NOMEM ? -BC_E_NOMEM : -BC_E_BUSY);
}

/* Nothing isolated any more, and every counter consistent. */
static void settled(struct model *m)
{
	struct model_zone_stats zs;
	char buf[1024];

	ck_assert_int_eq(model_zone_stats(m, 0, &zs), 0);
	ck_assert_uint_eq(zs.nr_isolate_pageblock, 0);
	ck_assert_uint_eq(zs.isolated_free_pages, 0);
	ck_assert_msg(model_recount(m, buf, sizeof(buf)) == 0, "recount: %s", buf);
}

static void finish(struct attempt *a)
{
	settled(a->m);
	model_destroy(a->m);
}

static enum model_pfn_state state_at(struct model *m, uint64_t off)
{
	struct model_pfn_info pi;

	ck_assert_int_eq(model_pfn_info(m, Z + off, &pi), 0);
	return pi.state;
}

/*
 * pfn_range_valid_contig(): reserved pages, hugetlb on 6.10+ and a range leaving the
 * zone are refused before anything is isolated.
 *   [free][RESERVED @0x123][free ...]           [0, 0x400)       -> pre-screen @0x123
 *   [free 0x800..][HUGE o9 @0xa00][free]        [0x800, 0xc00)   -> pre-screen @0xa00
 *   zone ends at 0x1000                         [0xe00, 0x1200)  -> pre-screen @0x1000
 * Expect those; on 6.1 (no hugetlb rule) the hugetlb range passes the pre-screen and
 * the folio is migrated (success); on 7.0 a folio smaller than the request passes too.
 */
START_TEST(test_prescreen)
{
	const char *const rel[] = { "6.18.44", "6.1.0", "7.0.0" };
	struct attempt a;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		begin(&a, rel[i], 0, 0x400);
		use(a.m, 0x123, 1, KPF_BIT(KPF_RESERVED));
		use(a.m, 0xa00, 0x200, KPF_BIT(KPF_HUGE) | KPF_BIT(KPF_COMPOUND_HEAD));
		expect(&a, MODEL_CONTIG_PRESCREEN, 0x123);
		ck_assert(!model_range_valid_contig(a.m, a.r.start, a.r.end));
		a.r = req_of(0x800, 0x400);
		if (i == 0) {
			expect(&a, MODEL_CONTIG_PRESCREEN, 0xa00);
		} else {
			expect(&a, MODEL_CONTIG_SUCCESS, UINT64_MAX);
			ck_assert_uint_eq(a.res.migrated, 0x200);
		}
		a.r = req_of(0xe00, 0x400);
		expect(&a, MODEL_CONTIG_PRESCREEN, 0x1000);
		finish(&a);
	}
}
END_TEST

/*
 * start_isolate_page_range() order: first block, last block, then the middle ones;
 * the first refusal in that order decides, and everything isolated is undone.
 *   pb0 [free]  pb1 [SLAB o1 @0x300]  pb2 [free]  pb3 [SLAB o1 @0x700]   [0, 0x800)
 * Expect isolation @0x700 (the last block comes before the middle); with pb3 freed,
 * @0x300. A page the caller names (unmovable_pfn) decides when it comes first.
 */
static uint64_t refuse_0x100(void *arg, uint64_t s, uint64_t e)
{
	(void)arg;
	(void)e;
	return s + 0x100;
}

START_TEST(test_isolation)
{
	struct attempt a;

	begin(&a, "6.18.44", 0, 0x800);
	use(a.m, 0x300, 2, KPF_BIT(KPF_SLAB) | KPF_BIT(KPF_COMPOUND_HEAD));
	use(a.m, 0x700, 2, KPF_BIT(KPF_SLAB) | KPF_BIT(KPF_COMPOUND_HEAD));
	expect(&a, MODEL_CONTIG_ISOLATION, 0x700);
	settled(a.m);
	ck_assert_int_eq(model_page_free(a.m, Z + 0x700, 1, 0), 0);
	ck_assert_int_eq(model_drain_zone(a.m, Z), 0);
	expect(&a, MODEL_CONTIG_ISOLATION, 0x300);
	settled(a.m);
	a.r.unmovable_pfn = refuse_0x100;
	expect(&a, MODEL_CONTIG_ISOLATION, 0x100);
	finish(&a);
}
END_TEST

/*
 * A refusal the kernel reported (an offline's "unmovable page" dump), made as it was,
 * whatever the model holds: every block Unmovable, slab in pb2 @0x500 and pb3 @0x640.
 *   pb0 [free] pb1 [free] pb2 [anon, SLAB @0x500] pb3 [SLAB @0x640] pb4,5 [free]
 *   pb6 [anon] pb7 [free] (in use beside it: no 9->10 merge re-types pb6 at the undo)
 * Refused @0x640: pb0, pb7 (first, last), pb1, pb2 were isolated and undone: MOVABLE
 * on 6.12 (unset_migratetype_isolate() with offline's type), their own type on 6.18
 * (the saved type); pb3..6 untouched. Refused @0xe00 (the last block): only pb0, whose
 * putback merges 9->10 with the free pb1 and re-types it (__free_one_page()).
 */
START_TEST(test_isolation_refused)
{
	static const char *const rel[] = { "6.12.95", "6.18.44" };
	const uint64_t pb = 0x200;
	struct model *m = zone_of(rel[_i]);
	uint64_t i, f = KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON);
	int mt, moved = _i == 0 ? 1 : 0;

	for (i = 0; i < 8; i++)
		ck_assert_int_eq(model_set_pageblock_mt(m, Z + i * pb, 0), 0);
	use(m, 0x400, 0x100, f);
	use(m, 0x500, 2, KPF_BIT(KPF_SLAB) | KPF_BIT(KPF_COMPOUND_HEAD));
	use(m, 0x640, 2, KPF_BIT(KPF_SLAB) | KPF_BIT(KPF_COMPOUND_HEAD));
	use(m, 0xc00, 0x200, f);
	ck_assert_int_eq(model_isolate_refused(m, Z, Z + 0x1000, MODEL_ISOLATE_MEM_OFFLINE,
					       Z + 0x640), 0);
	settled(m);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(model_pageblock_mt(m, Z + i * pb, &mt, NULL, NULL), 0);
		ck_assert_msg(mt == (i < 3 || i == 7 ? moved : 0), "%s pb%llu: type %d", rel[_i],
			      (unsigned long long)i, mt);
	}
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(model_set_pageblock_mt(m, Z + i * pb, 0), 0);
	ck_assert_int_eq(model_isolate_refused(m, Z, Z + 0x1000, MODEL_ISOLATE_MEM_OFFLINE,
					       Z + 0xe00), 0);
	settled(m);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(model_pageblock_mt(m, Z + i * pb, &mt, NULL, NULL), 0);
		ck_assert_int_eq(mt, i <= 1 ? moved : 0);
	}
	/* a refusal outside the range is the caller's error */
	ck_assert_int_eq(model_isolate_refused(m, Z, Z + 0x400, MODEL_ISOLATE_MEM_OFFLINE,
					       Z + 0x800), -BC_E_INVAL);
	settled(m);
	model_destroy(m);
}
END_TEST

/*
 * Migration: a page the caller knows is pinned stops it (-EBUSY); with no free memory
 * outside the range for a target, -ENOMEM at the first page it could not move.
 *   [anon x 0x10 @0x40][free ...]                 [0, 0x400), pin @0x48 -> migration @0x48
 *   [anon @0 .. 0x400][anon 0x400 ..0x1000]       [0, 0x400)            -> migration @0 ENOMEM
 */
static int pin_0x48(void *arg, struct model *m, uint64_t s, uint64_t e, uint64_t *pin)
{
	(void)arg;
	(void)m;
	(void)e;
	*pin = s + 0x48;
	return 0;
}

START_TEST(test_migration)
{
	struct attempt a;

	begin(&a, "6.18.44", 0, 0x400);
	use(a.m, 0x40, 0x10, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	a.r.before_migrate = pin_0x48;
	expect(&a, MODEL_CONTIG_MIGRATION, 0x48);
	ck_assert_int_eq(a.res.ret, -BC_E_BUSY);
	ck_assert_uint_eq(a.res.migrated, 0);
	ck_assert_int_eq(state_at(a.m, 0x48), MODEL_PFN_ALLOC);
	settled(a.m);
	a.r.before_migrate = NULL;
	use(a.m, 0, NPFN, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	expect(&a, MODEL_CONTIG_MIGRATION, 0);
	ck_assert_int_eq(a.res.ret, -BC_E_NOMEM);
	finish(&a);
}
END_TEST

/*
 * test_pages_isolated(): an in-use page with no flags (a driver page) passes
 * has_unmovable_pages() and is skipped by migration; the test stops at it. An order-0
 * slab page on 6.18 (refcount 0, MODEL_CONTIG_SLAB_REFCOUNT_ZERO) does the same.
 *   [free][flags 0 @0x10][free ...]               [0, 0x400) -> test @0x10
 *   [free][SLAB o0 @0x2a0][free ...]              [0x200, 0x400), flag -> test @0x2a0
 * Expect those stages (isolation @0x2a0 without the flag), outer_start = start, one
 * page left by the migration.
 */
START_TEST(test_test_pages_isolated)
{
	struct attempt a;

	begin(&a, "6.18.44", 0, 0x400);
	use(a.m, 0x10, 1, 0);
	expect(&a, MODEL_CONTIG_TEST, 0x10);
	ck_assert_uint_eq(a.res.outer_start, Z);
	ck_assert_uint_eq(a.res.migrate_failed, 1);
	settled(a.m);
	use(a.m, 0x2a0, 1, KPF_BIT(KPF_SLAB));
	a.r = req_of(0x200, 0x200);
	expect(&a, MODEL_CONTIG_ISOLATION, 0x2a0);
	a.r.flags = MODEL_CONTIG_SLAB_REFCOUNT_ZERO;
	expect(&a, MODEL_CONTIG_TEST, 0x2a0);
	finish(&a);
}
END_TEST

/*
 * Success: in-use pages migrate out, the range leaves the free lists as one
 * allocation, the isolation is undone. A range that starts inside a free block tests
 * from the block's head (find_large_buddy()) and gives its lower part back.
 *   [anon x 0x20 @0x100][free ...]                [0, 0x400)       -> one order-10 alloc
 *   [free o9 @0x800]                              [0x900, 0xa00)   -> outer_start 0x800
 * Expect success (pfn none), 0x20 pages migrated, every pfn of the range in use, the
 * lower half Z+0x800 free again (order 8); offline_pages() of [0xc00, 0x1000) leaves
 * it uninitialised.
 */
START_TEST(test_success)
{
	struct model_pfn_info pi;
	struct attempt a;
	uint64_t p;

	begin(&a, "6.18.44", 0, 0x400);
	use(a.m, 0x100, 0x20, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	expect(&a, MODEL_CONTIG_SUCCESS, UINT64_MAX);
	ck_assert_uint_eq(a.res.migrated, 0x20);
	ck_assert_int_eq(model_pfn_info(a.m, Z, &pi), 0);
	ck_assert(pi.state == MODEL_PFN_ALLOC && pi.order == 10 && pi.kind == MODEL_KIND_HUGETLB);
	for (p = 0; p < 0x400; p++)
		ck_assert_int_eq(state_at(a.m, p), MODEL_PFN_ALLOC);
	settled(a.m);
	a.r = req_of(0x900, 0x100);
	expect(&a, MODEL_CONTIG_SUCCESS, UINT64_MAX);
	ck_assert_uint_eq(a.res.outer_start, Z + 0x800);
	ck_assert_int_eq(model_pfn_info(a.m, Z + 0x800, &pi), 0);
	ck_assert(pi.state == MODEL_PFN_BUDDY && pi.order == 8);
	ck_assert_int_eq(state_at(a.m, 0x9ff), MODEL_PFN_ALLOC);
	settled(a.m);
	a.r = req_of(0xc00, 0x400);
	a.r.mode = MODEL_ISOLATE_MEM_OFFLINE;
	expect(&a, MODEL_CONTIG_SUCCESS, UINT64_MAX);
	ck_assert_int_eq(state_at(a.m, 0xc00), MODEL_PFN_UNINIT);
	finish(&a);
}
END_TEST

/*
 * A real attempt followed (replay): the kernel went on, so the model follows and says
 * where it would have stopped.
 *   [free][SLAB o1 @0x300][free]      [0, 0x400)     -> stopped at isolation @0x300,
 *                                                       nothing isolated, nothing taken
 *   [free][RESERVED @0x523][free]     [0x400, 0x800) -> stopped at the pre-screen @0x523
 *   [anon x 0x20 @0x900][free]        [0x800, 0xc00) -> followed to the end: isolated;
 *                                                       the kernel's migration frees the
 *                                                       anon pages, commit takes the range
 */
START_TEST(test_follow)
{
	struct model_contig_result res;
	struct model_contig_req r;
	struct model_pfn_info pi;
	struct model *m = zone_of("6.18.44");
	uint64_t p;

	use(m, 0x300, 2, KPF_BIT(KPF_SLAB) | KPF_BIT(KPF_COMPOUND_HEAD));
	use(m, 0x523, 1, KPF_BIT(KPF_RESERVED));
	use(m, 0x900, 0x20, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	r = req_of(0, 0x400);
	ck_assert_int_eq(model_contig_follow_begin(m, &r, &res), 0);
	ck_assert_msg(res.stage == MODEL_CONTIG_ISOLATION && res.pfn == Z + 0x300 && !res.isolated,
		      "stage %d pfn %#llx isolated %d", res.stage, (unsigned long long)res.pfn,
		      res.isolated);
	ck_assert_int_eq(model_contig_follow_end(m, &r, &res), 0);
	settled(m);
	r = req_of(0x400, 0x400);
	ck_assert_int_eq(model_contig_follow_begin(m, &r, &res), 0);
	ck_assert_msg(res.stage == MODEL_CONTIG_PRESCREEN && res.pfn == Z + 0x523,
		      "stage %d pfn %#llx", res.stage, (unsigned long long)res.pfn);
	ck_assert_int_eq(model_contig_follow_end(m, &r, &res), 0);
	settled(m);
	r = req_of(0x800, 0x400);
	ck_assert_int_eq(model_contig_follow_begin(m, &r, &res), 0);
	ck_assert_msg(res.stage == MODEL_CONTIG_SUCCESS && res.isolated, "stage %d isolated %d",
		      res.stage, res.isolated);
	ck_assert_int_eq(model_page_free(m, Z + 0x900, 0, 0), 0);	/* the kernel migrated */
	for (p = 1; p < 0x20; p++)
		ck_assert_int_eq(model_page_free(m, Z + 0x900 + p, 0, 0), 0);
	ck_assert_int_eq(model_drain_zone(m, Z), 0);
	ck_assert_int_eq(model_contig_commit(m, &r), 0);
	ck_assert_int_eq(model_contig_follow_end(m, &r, &res), 0);
	ck_assert_int_eq(model_pfn_info(m, Z + 0x800, &pi), 0);
	ck_assert(pi.state == MODEL_PFN_ALLOC && pi.order == 10 && pi.kind == MODEL_KIND_HUGETLB);
	settled(m);
	model_destroy(m);
}
END_TEST

Suite *contig_suite(void);

Suite *contig_suite(void)
{
	const TTest *const stages[] = {
		test_prescreen, test_isolation, test_migration, test_test_pages_isolated,
		test_success, test_follow,
	};
	Suite *s = suite_create("contig");
	TCase *tc = tcase_create("stages");
	size_t i;

	for (i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
		tcase_add_test(tc, stages[i]);
	tcase_add_loop_test(tc, test_isolation_refused, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
