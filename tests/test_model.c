// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of model/ on hand-built memory maps. Each test names the kernel function
 * it mirrors, draws the map (one cell per block, pfn offsets from Z = the zone start)
 * and states what it expects. Every test ends with model_recount() == 0.
 *
 * The standard map: one zone "Normal" of 4096 pfns (8 pageblocks of 512, 4 order-10
 * blocks), pageblock_order 9, MAX_PAGE_ORDER 10, 2 cpus, profile 6.18.44. Pages not
 * seeded free are anonymous LRU pages (movable, in use).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/kpageflags.h"
#include "model/model.h"
#include "tests/fixture.h"

#define Z	0x40000ull		/* zone start, 1 GiB aligned */
#define NPFN	4096u
#define PB	512u


/* trace migratetypes on a CONFIG_CMA=n kernel */
enum { UNMOV = 0, MOV = 1, RECL = 2, HIGHA = 3, ISO = 4 };

#define GFP_KERNEL		0xcc0ull
#define GFP_HIGHUSER_MOVABLE	0x100ccaull

/* One Normal zone [start, start + n) under profile @p. */
static struct model *mk_layout_prof(uint64_t start, uint64_t n, const struct model_profile *p)
{
	struct model_layout l;
	struct model *m;

	fixture_layout_init(&l);
	fixture_layout_zone(&l, "Normal", start, n);
	m = model_create(&l, p);
	ck_assert_ptr_nonnull(m);
	return m;
}

static struct model *mk_layout(uint64_t start, uint64_t n, const char *rel)
{
	struct model_layout l;

	fixture_layout_init(&l);
	fixture_layout_zone(&l, "Normal", start, n);
	return fixture_model(&l, rel);
}

/* Seed [Z + off, Z + off + n) with one flags value for every page. */
static void seed(struct model *m, uint64_t off, uint64_t n, uint64_t flags)
{
	fixture_seed(m, Z + off, n, flags);
}

/* A compound page at Z + @off: COMPOUND_HEAD then COMPOUND_TAIL pages, all with @extra. */
static void seed_compound(struct model *m, uint64_t off, uint64_t n, uint64_t extra)
{
	fixture_seed_compound(m, Z + off, n, extra);
}

/* The standard map, all anonymous LRU pages. */
static struct model *mk(void)
{
	struct model *m = mk_layout(Z, NPFN, "6.18.44");

	seed(m, 0, NPFN, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	return m;
}

static void recount_ok(struct model *m)
{
	char buf[2048];
	long n = model_recount(m, buf, sizeof(buf));

	if (n)
		fprintf(stderr, "recount: %ld mismatches\n%s", n, buf);
	ck_assert_int_eq(n, 0);
}

static void expect_buddy(struct model *m, uint64_t off, unsigned int order, int mt)
{
	struct model_pfn_info pi;

	ck_assert_int_eq(model_pfn_info(m, Z + off, &pi), 0);
	ck_assert_msg(pi.state == MODEL_PFN_BUDDY && pi.head == Z + off && pi.order == order &&
		      pi.mt == mt,
		      "Z+%#llx: state %d head Z+%#llx order %u mt %d; want buddy order %u mt %d",
		      (unsigned long long)off, pi.state, (unsigned long long)(pi.head - Z),
		      pi.order, pi.mt, order, mt);
}

static void expect_pcp(struct model *m, uint64_t off, unsigned int order, int cpu)
{
	struct model_pfn_info pi;

	ck_assert_int_eq(model_pfn_info(m, Z + off, &pi), 0);
	ck_assert_msg(pi.state == MODEL_PFN_PCP && pi.head == Z + off && pi.order == order &&
		      pi.cpu == cpu, "Z+%#llx: state %d order %u cpu %d; want pcp order %u cpu %d",
		      (unsigned long long)off, pi.state, pi.order, pi.cpu, order, cpu);
}

static void expect_alloc(struct model *m, uint64_t off, unsigned int order)
{
	struct model_pfn_info pi;

	ck_assert_int_eq(model_pfn_info(m, Z + off, &pi), 0);
	ck_assert_msg(pi.state == MODEL_PFN_ALLOC && pi.head == Z + off && pi.order == order,
		      "Z+%#llx: state %d head Z+%#llx order %u; want alloc order %u",
		      (unsigned long long)off, pi.state, (unsigned long long)(pi.head - Z),
		      pi.order, order);
}

static int pb_type(struct model *m, uint64_t off)
{
	int eff;

	ck_assert_int_eq(model_pageblock_mt(m, Z + off, NULL, &eff, NULL), 0);
	return eff;
}

/* The end of a two-pageblock test: their types, the anomaly count, a clean recount. */
static void finish_two_blocks(struct model *m, int pb0, int pb1, uint64_t anomalies)
{
	ck_assert_int_eq(pb_type(m, 0), pb0);
	ck_assert_int_eq(pb_type(m, 0x200), pb1);
	ck_assert_uint_eq(model_anomaly_total(m), anomalies);
	recount_ok(m);
	model_destroy(m);
}

static uint64_t list_head(struct model *m, unsigned int order, int mt)
{
	uint64_t p = 0;

	if (model_free_list(m, 0, order, mt, &p, 1) <= 0)
		return UINT64_MAX;
	return p - Z;
}

static uint64_t anomalies(struct model *m, enum model_anomaly a)
{
	return model_anomaly_count(m, a, NULL, NULL);
}

/* ---- profile ---------------------------------------------------------------------- */

START_TEST(test_profile)
{
	struct model_profile p;

	ck_assert_int_eq(model_profile_from_release("6.18.44", 9, &p), 0);
	ck_assert(p.isolate_bit);
	ck_assert_int_eq(p.hugetlb_contig, MODEL_HUGETLB_CONTIG_REJECT);
	ck_assert(p.gigantic_free_order18);
	ck_assert_uint_eq(p.pcp_orders, 0x20fu);
	ck_assert_int_eq(model_profile_from_release("6.12.118-amd64", 9, &p), 0);
	ck_assert(!p.isolate_bit);
	ck_assert(p.claim_steal);
	ck_assert_int_eq(model_profile_from_release("6.1.0", 9, &p), 0);
	ck_assert(!p.gigantic_free_order18);
	ck_assert_int_eq(p.hugetlb_contig, MODEL_HUGETLB_CONTIG_IGNORE);
	ck_assert_int_eq(model_profile_from_release("7.0.0-rc1", 9, &p), 0);
	ck_assert_int_eq(p.hugetlb_contig, MODEL_HUGETLB_CONTIG_TWO_PASS);
	ck_assert_int_lt(model_profile_from_release("garbage", 9, &p), 0);
	ck_assert(p.isolate_bit);
}
END_TEST

/* ---- seeding ---------------------------------------------------------------------- */

/*
 * Greedy reconstruction of BUDDY runs (model_seed_pfn_range()).
 *   Z+0x000 [anon x3][BUDDY x 0x7fd ........................][anon ...]
 * Expect: blocks 0x3 o0, 0x4 o2, 0x8 o3, ... 0x200 o9, 0x400 o10, then 0x7ff?
 * the run [3, 0x800) = 3(o0) 4(o2) 8(o3) 0x10(o4) 0x20(o5) 0x40(o6) 0x80(o7) 0x100(o8)
 * 0x200(o9) 0x400(o10).
 */
START_TEST(test_seed_greedy)
{
	struct model *m = mk();
	struct model_range_counts rc;

	seed(m, 3, 0x800 - 3, KPF_BIT(KPF_BUDDY));
	expect_buddy(m, 3, 0, MOV);
	expect_buddy(m, 4, 2, MOV);
	expect_buddy(m, 8, 3, MOV);
	expect_buddy(m, 0x100, 8, MOV);
	expect_buddy(m, 0x200, 9, MOV);
	expect_buddy(m, 0x400, 10, MOV);
	ck_assert_int_eq(model_range_counts(m, Z, Z + NPFN, &rc), 0);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_FREE], 0x800 - 3);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_MOVABLE], NPFN - (0x800 - 3));
	ck_assert_uint_eq(rc.pageblocks[MOV], 8);
	/* partial pageblocks at both ends are scanned */
	ck_assert_int_eq(model_range_counts(m, Z + 1, Z + 0x201, &rc), 0);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_FREE], 0x1fe);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_MOVABLE], 2);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * Lazy init: a whole memory block reading 0 is uninitialised (and its words take no
 * memory); its later frees of order 10 (__free_pages_core()) are growth, not anomalies.
 *   [0, 32768) flags 0 -> UNINIT; 32 x mm_page_free(order 10) -> free order-10 blocks
 */
START_TEST(test_seed_uninit_growth)
{
	struct model *m = mk_layout(Z, 65536, "6.18.44");
	struct model_range_counts rc;
	struct model_stats st0, st1;
	uint64_t i, l[2];

	model_get_stats(m, &st0);
	seed(m, 0, 32768, 0);
	/* the map pages of uninitialised memory are given back (128 KiB here) */
	model_get_stats(m, &st1);
	ck_assert_uint_eq(st0.bytes - st1.bytes, 32768 * 4);
	seed(m, 32768, 32768, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	ck_assert_int_eq(model_range_counts(m, Z, Z + 32768, &rc), 0);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_UNINIT], 32768);
	ck_assert(!model_range_valid_contig(m, Z, Z + 1024));
	for (i = 0; i < 32; i++)
		ck_assert_int_eq(model_page_free(m, Z + i * 1024, 10, 0), 0);
	ck_assert_uint_eq(model_anomaly_total(m), 0);
	expect_buddy(m, 0, 10, MOV);
	expect_buddy(m, 31 * 1024, 10, MOV);
	/* __free_pages_core() frees to the tail (FPI_TO_TAIL): the first one freed is next */
	ck_assert_int_eq(model_free_list(m, 0, 10, MOV, l, 2), 32);
	ck_assert_uint_eq(l[0], Z);
	ck_assert_uint_eq(l[1], Z + 1024);
	ck_assert_int_eq(model_range_counts(m, Z, Z + 32768, &rc), 0);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_FREE], 32768);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * Holes: map pages holding only holes share one read-only page (no memory); events in
 * a hole are dropped as pfn-outside-zones.
 *   zone [Z, Z+8192), System RAM [Z, Z+2048) and [Z+6144, Z+8192)
 * Expect: Z+0x1000 is a hole, a free there is counted and dropped, the model holds
 * 16 KiB less map than without the hole.
 */
START_TEST(test_holes)
{
	struct model_layout l;
	struct model_profile p;
	struct model *m, *full;
	struct model_pfn_info pi;
	struct model_stats a, b;
	struct model_range_counts rc;

	memset(&l, 0, sizeof(l));
	l.nr_zones = 1;
	strcpy(l.zones[0].name, "Normal");
	l.zones[0].start_pfn = Z;
	l.zones[0].spanned = 8192;
	l.pageblock_order = 9;
	l.max_page_order = 10;
	l.nr_cpus = 2;
	model_profile_from_release("6.18.44", 9, &p);
	full = model_create(&l, &p);
	l.nr_ram = 2;
	l.ram[0].start = Z;
	l.ram[0].end = Z + 2048;
	l.ram[1].start = Z + 6144;
	l.ram[1].end = Z + 8192;
	m = model_create(&l, &p);
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(full);
	ck_assert_int_eq(model_pfn_info(m, Z + 0x1000, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_HOLE);
	ck_assert_int_eq(model_page_free(m, Z + 0x1000, 0, 0), 0);
	ck_assert_uint_eq(anomalies(m, MODEL_ANOM_PFN_OUTSIDE), 1);
	ck_assert_int_eq(model_mark_uncertain(m, Z, 8192), 0);
	ck_assert_int_eq(model_range_counts(m, Z, Z + 8192, &rc), 0);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_HOLE], 4096);
	model_get_stats(m, &a);
	model_get_stats(full, &b);
	ck_assert_uint_eq(b.bytes - a.bytes, 4096 * 4);
	ck_assert_uint_eq(a.present_pfns, 4096);
	recount_ok(m);
	model_destroy(m);
	model_destroy(full);
}
END_TEST

/* ---- split ----------------------------------------------------------------------- */

/*
 * __rmqueue_smallest() + expand(): order-0 request served from an order-10 block.
 *   before: [---------------- free o10 @0 ----------------]
 *   after:  [A][1 o0][2 o1][4 o2]...[0x100 o8][0x200 o9]
 * Expect: the caller keeps Z+0 (lowest page); upper halves on the MOVABLE lists, each
 * at the list head; the alloc event confirms the pending block.
 */
START_TEST(test_split_expand)
{
	struct model *m = mk();
	unsigned int o;

	seed(m, 0, 1024, KPF_BIT(KPF_BUDDY));
	expect_buddy(m, 0, 10, MOV);
	ck_assert_int_eq(model_zone_locked(m, Z, 0, MOV, false, 0), 0);
	ck_assert_int_eq(model_page_alloc(m, Z, 0, GFP_HIGHUSER_MOVABLE, MOV, 0), 0);
	expect_alloc(m, 0, 0);
	for (o = 0; o < 10; o++) {
		expect_buddy(m, 1u << o, o, MOV);
		ck_assert_uint_eq(list_head(m, o, MOV), 1u << o);
	}
	ck_assert_uint_eq(model_anomaly_total(m), 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/* ---- merge ----------------------------------------------------------------------- */

/*
 * __free_one_page() below pageblock order: buddies merge whatever their type.
 *   [A o4 @0][free o4 @0x10][free o5 @0x20]...[free o9 @0x200][free o10 @0x400]
 * free(Z, order 4) (not a pcp order: free_one_page())
 * Expect: one order-10 block at Z+0 again.
 */
START_TEST(test_merge_below_pageblock)
{
	struct model *m = mk();

	seed(m, 0, 1024, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_zone_locked(m, Z, 4, MOV, false, 0), 0);
	ck_assert_int_eq(model_page_alloc(m, Z, 4, GFP_HIGHUSER_MOVABLE, MOV, 0), 0);
	expect_alloc(m, 0, 4);
	expect_buddy(m, 0x10, 4, MOV);
	ck_assert_int_eq(model_page_free(m, Z, 4, 1), 0);
	expect_buddy(m, 0, 10, MOV);
	ck_assert_uint_eq(model_anomaly_total(m), 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * __free_one_page() at pageblock order (the 9 -> 10 step):
 *   pb0 MOVABLE  [free o9 @0]      pb1 UNMOVABLE [A o9 @0x200]  -> free @0x200:
 *   both mergeable, different: merge, pb0 re-typed to the freeing type (UNMOVABLE).
 *   pb2 MOVABLE  [free o9 @0x400]  pb3 HIGHATOMIC [A o9 @0x600] -> free @0x600:
 *   one side non-mergeable: no merge.
 * Expect: o10 @0 on UNMOVABLE, pb0 and pb1 UNMOVABLE; o9 @0x400 MOVABLE and o9 @0x600
 * HIGHATOMIC side by side.
 */
START_TEST(test_merge_pageblock_rules)
{
	struct model *m = mk();

	seed(m, 0, 512, KPF_BIT(KPF_BUDDY));
	seed(m, 0x400, 512, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_set_pageblock_mt(m, Z + 0x200, UNMOV), 0);
	ck_assert_int_eq(model_set_pageblock_mt(m, Z + 0x600, HIGHA), 0);
	/* order 9 is a pcp order: free, then drain to the buddy */
	ck_assert_int_eq(model_page_free(m, Z + 0x200, 9, 0), 0);
	expect_pcp(m, 0x200, 9, 0);
	ck_assert_int_eq(model_pcpu_drain(m, Z + 0x200, 9, UNMOV, 1), 0);
	expect_buddy(m, 0, 10, UNMOV);
	ck_assert_int_eq(pb_type(m, 0), UNMOV);
	ck_assert_int_eq(pb_type(m, 0x200), UNMOV);

	ck_assert_int_eq(model_page_free(m, Z + 0x600, 9, 0), 0);
	/* HIGHATOMIC pages are filed on the MOVABLE pcp list; drain uses the block type */
	ck_assert_int_eq(model_pcpu_drain(m, Z + 0x600, 9, HIGHA, 0), 0);
	expect_buddy(m, 0x400, 9, MOV);
	expect_buddy(m, 0x600, 9, HIGHA);
	ck_assert_uint_eq(model_anomaly_total(m), 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * Before v6.10 __free_one_page() merges across mergeable pageblocks of different types
 * without re-typing the buddy (6.1: no change_pageblock_range() there).
 *   pb0 MOVABLE [free o9 @0] pb1 UNMOVABLE [A o9 @0x200]   free @0x200 (6.1)
 * Expect: one order-10 block on the UNMOVABLE list, pb0 still MOVABLE.
 */
START_TEST(test_merge_pageblock_old)
{
	struct model *m = mk_layout(Z, NPFN, "6.1.0");

	seed(m, 0, 512, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_set_pageblock_mt(m, Z + 0x200, UNMOV), 0);
	ck_assert_int_eq(model_page_free(m, Z + 0x200, 9, 0), 0);
	ck_assert_int_eq(model_pcpu_drain(m, Z + 0x200, 9, UNMOV, 1), 0);
	expect_buddy(m, 0, 10, UNMOV);
	finish_two_blocks(m, MOV, UNMOV, 0);
}
END_TEST

/*
 * free_pcppages_bulk(): before v6.10 the drained page goes onto the list of the type it
 * was freed with (get_pcppage_migratetype(), the event's migratetype); from v6.10 onto
 * its block's type at drain.
 *   pb0 UNMOVABLE [A o0 @0x10]  free @0x10, drain with MOVABLE
 * Expect: @0x10 free on the MOVABLE list on 6.1, on the UNMOVABLE list on 6.18; one
 * migratetype-mismatch anomaly on both (the drain's type is not the block's).
 */
START_TEST(test_drain_type_old)
{
	static const char *const rel[] = { "6.1.0", "6.18.44" };
	static const int list[] = { MOV, UNMOV };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct model *m = mk_layout(Z, NPFN, rel[i]);
		struct model_zone_stats zs;

		seed(m, 0, 0x10, 0);
		seed(m, 0x10, 1, KPF_BIT(KPF_ANON) | KPF_BIT(KPF_LRU));
		seed(m, 0x11, 0x1ef, 0);
		ck_assert_int_eq(model_set_pageblock_mt(m, Z, UNMOV), 0);
		ck_assert_int_eq(model_page_free(m, Z + 0x10, 0, 0), 0);
		ck_assert_int_eq(model_pcpu_drain(m, Z + 0x10, 0, MOV, 0), 0);
		ck_assert_int_eq(model_zone_stats(m, 0, &zs), 0);
		ck_assert_msg(zs.nr_free[0][list[i]] == 1, "%s: order-0 free on list %d: %llu",
			      rel[i], list[i], (unsigned long long)zs.nr_free[0][list[i]]);
		ck_assert_uint_eq(model_anomaly_total(m), 1);
		recount_ok(m);
		model_destroy(m);
	}
}
END_TEST

/*
 * buddy_merge_likely(): a freed block whose next-higher buddy is free goes to the tail.
 *   [free o0 @0][A @1][A o1 @2][free o2 @4 ...]     free @1 -> o1 @0; its higher buddy
 *   (o2 @... ) is checked: [0,2) o1 merges with? @2 is in use -> stays o1 @0; the buddy
 *   of the order-2 block [0,4) is @4, free order 2 -> tail.
 * Expect: o1 @0 at the tail of the order-1 list (not the head).
 */
START_TEST(test_merge_likely_tail)
{
	struct model *m = mk();
	uint64_t l[4];
	long n;

	seed(m, 0, 1, KPF_BIT(KPF_BUDDY));
	seed(m, 4, 4, KPF_BIT(KPF_BUDDY));
	seed(m, 0x20, 2, KPF_BIT(KPF_BUDDY));	/* another order-1 block, list head candidate */
	ck_assert_int_eq(model_page_alloc(m, Z + 1, 0, GFP_KERNEL, UNMOV, 0), 0);
	/* it was seeded in use; an alloc on an in-use page is an anomaly, repaired */
	ck_assert_uint_eq(anomalies(m, MODEL_ANOM_ALLOC_IN_USE), 1);
	ck_assert_int_eq(model_page_free(m, Z + 1, 0, 0), 0);
	ck_assert_int_eq(model_pcpu_drain(m, Z + 1, 0, MOV, 0), 0);
	expect_buddy(m, 0, 1, MOV);
	n = model_free_list(m, 0, 1, MOV, l, 4);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(l[0] - Z, 0x20);
	ck_assert_uint_eq(l[1] - Z, 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * expand(): the caller keeps the low half and every upper half goes to the HEAD of its
 * list (__add_to_free_list(..., tail=false)), so the next __rmqueue_smallest() of that
 * order takes the fresh piece, not a block that was waiting there.
 *   [anon][free o3 @0x40][anon][free o5 @0x100][anon]; order-0 alloc at 0x100
 * Expect: order-3 MOVABLE list = 0x108 (the piece), then 0x40; order 4 = 0x110 alone.
 */
START_TEST(test_expand_to_head)
{
	struct model *m = mk();
	uint64_t l[4];
	long n;

	seed(m, 0x40, 8, KPF_BIT(KPF_BUDDY));
	seed(m, 0x100, 32, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_page_alloc(m, Z + 0x100, 0, GFP_HIGHUSER_MOVABLE, MOV, 0), 0);
	n = model_free_list(m, 0, 3, MOV, l, 4);
	ck_assert_int_eq(n, 2);
	ck_assert_msg(l[0] - Z == 0x108 && l[1] - Z == 0x40, "order-3 list %#llx, %#llx",
		      (unsigned long long)(l[0] - Z), (unsigned long long)(l[1] - Z));
	n = model_free_list(m, 0, 4, MOV, l, 4);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(l[0] - Z, 0x110);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * free_one_page() -> split_large_buddy(): a gigantic order-18 free becomes 512 order-9
 * frees, each with its own block's type, re-merging to order 10 where types allow.
 *   zone of 2^18 pfns, in use; pb1 HIGHATOMIC
 * Expect: 255 o10 blocks + o9 @0 MOVABLE + o9 @0x200 HIGHATOMIC.
 */
START_TEST(test_gigantic_free)
{
	struct model *m = mk_layout(Z, 1u << 18, "6.18.44");
	struct model_zone_stats zs;

	seed(m, 0, 1u << 18, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	ck_assert_int_eq(model_set_pageblock_mt(m, Z + 0x200, HIGHA), 0);
	ck_assert_int_eq(model_page_free(m, Z, 18, 0), 0);
	ck_assert_int_eq(model_zone_stats(m, 0, &zs), 0);
	ck_assert_uint_eq(zs.nr_free[10][MOV], 255);
	ck_assert_uint_eq(zs.nr_free[9][MOV], 1);
	ck_assert_uint_eq(zs.nr_free[9][HIGHA], 1);
	ck_assert_uint_eq(zs.free_pages, 1u << 18);
	expect_buddy(m, 0x200, 9, HIGHA);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * Gigantic frees of older kernels (free_contig_range(), before 6.12): the 1 GiB range
 * taken by alloc_contig comes back as 262,144 order-0 frees, not one order-18 free.
 *   profile 6.1.0, zone of 2^18 pfns free; take_range(all) then order-0 frees
 * Expect: no anomaly, 256 order-10 blocks at the end (after draining the pcp lists).
 */
START_TEST(test_gigantic_free_old)
{
	struct model *m = mk_layout(Z, 1u << 18, "6.1.0");
	struct model_zone_stats zs;
	uint64_t i;

	seed(m, 0, 1u << 18, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_take_range(m, Z, Z + (1u << 18), MODEL_KIND_HUGETLB), 0);
	expect_alloc(m, 0, 18);
	for (i = 0; i < (1u << 18); i++)
		ck_assert_int_eq(model_page_free(m, Z + i, 0, (int)(i & 1)), 0);
	ck_assert_uint_eq(model_anomaly_total(m), 0);
	ck_assert_int_eq(model_drain_zone(m, Z), 0);
	ck_assert_int_eq(model_zone_stats(m, 0, &zs), 0);
	ck_assert_uint_eq(zs.nr_free[10][MOV], 256);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/* ---- pcp ------------------------------------------------------------------------- */

/*
 * rmqueue_bulk() refill (zone_locked percpu_refill=1, appended to the pcp list tail),
 * __rmqueue_pcplist() (takes a named page), free_frozen_page_commit() (free to the
 * head), free_pcppages_bulk() (drain recorded on another cpu than the owner).
 *   [free o1 @0x10][...]  refill 0x10, 0x11 -> cpu0 pcp order 0 MOVABLE: [0x10, 0x11]
 * Expect: the list in refill order; after alloc of 0x10 and its free, 0x10 is at the
 * head; a drain on cpu 1 of cpu 0's pages puts them back and they merge.
 */
START_TEST(test_pcp_refill_drain)
{
	struct model *m = mk();
	uint64_t l[4];

	seed(m, 0x10, 2, KPF_BIT(KPF_BUDDY));
	expect_buddy(m, 0x10, 1, MOV);
	ck_assert_int_eq(model_zone_locked(m, Z + 0x10, 0, MOV, true, 0), 0);
	/* expand() put 0x11 back on the buddy list, the next refill takes it */
	expect_buddy(m, 0x11, 0, MOV);
	ck_assert_int_eq(model_zone_locked(m, Z + 0x11, 0, MOV, true, 0), 0);
	ck_assert_int_eq(model_pcp_list(m, 0, 0, 0, MOV, l, 4), 2);
	ck_assert_uint_eq(l[0] - Z, 0x10);
	ck_assert_uint_eq(l[1] - Z, 0x11);
	expect_pcp(m, 0x10, 0, 0);

	ck_assert_int_eq(model_page_alloc(m, Z + 0x10, 0, GFP_HIGHUSER_MOVABLE, MOV, 0), 0);
	expect_alloc(m, 0x10, 0);
	ck_assert_int_eq(model_page_free(m, Z + 0x10, 0, 0), 0);
	ck_assert_int_eq(model_free_batched(m, Z + 0x10, 0), 0);	/* confirmation only */
	ck_assert_int_eq(model_pcp_list(m, 0, 0, 0, MOV, l, 4), 2);
	ck_assert_uint_eq(l[0] - Z, 0x10);

	ck_assert_int_eq(model_pcpu_drain(m, Z + 0x11, 0, MOV, 1), 0);
	ck_assert_int_eq(model_pcpu_drain(m, Z + 0x10, 0, MOV, 1), 0);
	expect_buddy(m, 0x10, 1, MOV);
	ck_assert_uint_eq(model_anomaly_total(m), 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * free_pcppages_bulk() names the block's type at drain time; a seeded (inferred) type
 * that disagrees is corrected, moving the block's free pages (move_freepages_block()).
 *   pb0 MOVABLE (inferred) [free o4 @0x10] [pcp @0x20 cpu0]  drain(@0x20, UNMOVABLE)
 * Expect: with MODEL_OPT_DRAIN_TYPES, pb0 UNMOVABLE, o4 @0x10 and o0 @0x20 on
 * UNMOVABLE lists, one pageblock-type-corrected; without it a migratetype-mismatch.
 */
START_TEST(test_drain_learns_type)
{
	struct model *m = mk();

	seed(m, 0x10, 0x10, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_page_free(m, Z + 0x20, 0, 0), 0);
	/* off by default: a mismatch */
	ck_assert_int_eq(model_checkpoint(m), 0);
	ck_assert_int_eq(model_pcpu_drain(m, Z + 0x20, 0, UNMOV, 1), 0);
	ck_assert_uint_eq(anomalies(m, MODEL_ANOM_MT_MISMATCH), 1);
	ck_assert_int_eq(pb_type(m, 0), MOV);
	ck_assert_int_eq(model_rollback(m), 0);
	ck_assert_uint_eq(anomalies(m, MODEL_ANOM_MT_MISMATCH), 0);
	model_set_options(m, MODEL_OPT_DRAIN_TYPES);
	ck_assert_int_eq(model_pcpu_drain(m, Z + 0x20, 0, UNMOV, 1), 0);
	ck_assert_uint_eq(anomalies(m, MODEL_ANOM_PB_TYPE_LEARNED), 1);
	ck_assert_int_eq(pb_type(m, 0), UNMOV);
	expect_buddy(m, 0x10, 4, UNMOV);
	expect_buddy(m, 0x20, 0, UNMOV);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/* ---- fallback ---------------------------------------------------------------------- */

/*
 * __rmqueue_steal(): UNMOVABLE order-0 request from a MOVABLE order-3 block, type kept.
 *   pb0 MOVABLE [free o3 @8]
 * Expect: @8 pending then allocated; 9 o0, 0xa o1, 0xc o2 on MOVABLE lists; pb0 MOVABLE.
 */
START_TEST(test_extfrag_steal)
{
	struct model *m = mk();

	seed(m, 8, 8, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_extfrag(m, Z + 8, 0, 3, UNMOV, MOV, false), 0);
	ck_assert_int_eq(model_page_alloc(m, Z + 8, 0, GFP_KERNEL, UNMOV, 0), 0);
	expect_alloc(m, 8, 0);
	expect_buddy(m, 9, 0, MOV);
	expect_buddy(m, 0xa, 1, MOV);
	expect_buddy(m, 0xc, 2, MOV);
	ck_assert_int_eq(pb_type(m, 0), MOV);
	ck_assert_uint_eq(model_anomaly_total(m), 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * try_to_claim_block() with found order >= pageblock_order: whole-block claim.
 *   pb0+pb1 MOVABLE [free o10 @0]
 * Expect: pb0, pb1 UNMOVABLE; pieces 1..0x200 on UNMOVABLE lists; no zone_locked needed.
 */
START_TEST(test_extfrag_claim_whole)
{
	struct model *m = mk();

	seed(m, 0, 1024, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_extfrag(m, Z, 0, 10, UNMOV, MOV, true), 0);
	ck_assert_int_eq(model_page_alloc(m, Z, 0, GFP_KERNEL, UNMOV, 1), 0);
	expect_alloc(m, 0, 0);
	expect_buddy(m, 1, 0, UNMOV);
	expect_buddy(m, 0x200, 9, UNMOV);
	ck_assert_int_eq(pb_type(m, 0), UNMOV);
	ck_assert_int_eq(pb_type(m, 0x200), UNMOV);
	ck_assert_uint_eq(model_anomaly_total(m), 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * Before the claim/steal split __rmqueue_fallback() traces extfrag once it has moved
 * the block, then __rmqueue_smallest() takes it (zone_locked on the same page, 6.1).
 * After the split the claim hands the page out itself: a zone_locked of it is not
 * explained.
 *   [free o10 @0] MOVABLE; extfrag(o9 from o10, UNMOVABLE claims), zone_locked o9 @0
 * Expect: no anomaly on 6.1, pb0 and pb1 UNMOVABLE, @0x200 o9 free UNMOVABLE; one
 * anomaly on 6.18.
 */
START_TEST(test_extfrag_then_zone_locked_old)
{
	static const char *const rel[] = { "6.1.0", "6.18.44" };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct model *m = mk_layout(Z, NPFN, rel[i]);

		seed(m, 0, 1024, KPF_BIT(KPF_BUDDY));
		ck_assert_int_eq(model_extfrag(m, Z, 9, 10, UNMOV, MOV, true), 0);
		ck_assert_int_eq(model_zone_locked(m, Z, 9, UNMOV, false, 1), 0);
		ck_assert_int_eq(model_page_alloc(m, Z, 9, GFP_KERNEL, UNMOV, 1), 0);
		expect_alloc(m, 0, 9);
		expect_buddy(m, 0x200, 9, UNMOV);
		finish_two_blocks(m, UNMOV, UNMOV, i);
	}
}
END_TEST

/*
 * try_to_claim_block() below pageblock order: free + alike >= 256, every free page of
 * the block moves to the new type, then __rmqueue_smallest() (zone_locked with the new
 * type) and extfrag(change_ownership=1).
 *   pb0 MOVABLE [free o3 @8][free o8 @0x100]
 * Expect: pb0 UNMOVABLE, @0x100 o8 on the UNMOVABLE list, @8 taken (refill to cpu 0).
 */
START_TEST(test_extfrag_claim_partial)
{
	struct model *m = mk();

	seed(m, 8, 8, KPF_BIT(KPF_BUDDY));
	seed(m, 0x100, 0x100, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_zone_locked(m, Z + 8, 3, UNMOV, true, 0), 0);
	ck_assert_int_eq(model_extfrag(m, Z + 8, 3, 3, UNMOV, MOV, true), 0);
	ck_assert_int_eq(pb_type(m, 0), UNMOV);
	expect_buddy(m, 0x100, 8, UNMOV);
	expect_pcp(m, 8, 3, 0);
	ck_assert_uint_eq(model_anomaly_total(m), 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * The same claim when the zone_locked that re-typed the block is not in the trace (lost
 * or filtered): extfrag(change_ownership=1) says the block's type is now the request's
 * (the tracepoint compares the pageblock's type with it), so the model re-types it.
 *   pb0 MOVABLE [free o3 @8][free o8 @0x100], no zone_locked
 * Expect: pb0 UNMOVABLE, @0x100 o8 on the UNMOVABLE list.
 */
START_TEST(test_extfrag_claim_partial_untraced)
{
	struct model *m = mk();

	seed(m, 8, 8, KPF_BIT(KPF_BUDDY));
	seed(m, 0x100, 0x100, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_extfrag(m, Z + 8, 3, 3, UNMOV, MOV, true), 0);
	ck_assert_int_eq(pb_type(m, 0), UNMOV);
	expect_buddy(m, 0x100, 8, UNMOV);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * The model's own allocator (__rmqueue()): __rmqueue_claim() takes the largest
 * fallback block; with a found order >= 4 a MOVABLE request may claim the block when
 * free + alike (LRU) pages >= 256 (try_to_claim_block()). Otherwise __rmqueue_steal()
 * takes the smallest fallback block and keeps the type.
 *   pb0 UNMOVABLE [anon ...][free o5 @0x20][anon ...]      no MOVABLE free page
 *   pb1 UNMOVABLE [slab ...][free o2 @0x204][slab ...]
 * Expect: 1st MOVABLE order-0 alloc claims pb0 (-> MOVABLE) and gets Z+0x20;
 * after pb0 is exhausted the next steals Z+0x204 with pb1 left UNMOVABLE.
 */
START_TEST(test_alloc_block_claim_steal)
{
	struct model *m = mk();
	uint64_t pfn, i;

	seed(m, 0x200, 0x200, KPF_BIT(KPF_SLAB));
	seed(m, 0x20, 0x20, KPF_BIT(KPF_BUDDY));
	seed(m, 0x204, 4, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_set_pageblock_mt(m, Z, UNMOV), 0);
	ck_assert_int_eq(model_set_pageblock_mt(m, Z + 0x200, UNMOV), 0);
	ck_assert_int_eq(model_alloc_block(m, 0, 0, MOV, MODEL_KIND_ANON, &pfn), 0);
	ck_assert_uint_eq(pfn, Z + 0x20);
	ck_assert_int_eq(pb_type(m, 0), MOV);
	expect_buddy(m, 0x21, 0, MOV);
	expect_buddy(m, 0x30, 4, MOV);
	for (i = 0; i < 31; i++)
		ck_assert_int_eq(model_alloc_block(m, 0, 0, MOV, MODEL_KIND_ANON, &pfn), 0);
	ck_assert_int_eq(model_alloc_block(m, 0, 0, MOV, MODEL_KIND_ANON, &pfn), 0);
	ck_assert_uint_eq(pfn, Z + 0x204);
	ck_assert_int_eq(pb_type(m, 0x200), UNMOV);
	expect_buddy(m, 0x205, 0, UNMOV);
	expect_buddy(m, 0x206, 1, UNMOV);
	ck_assert_int_eq(model_alloc_block(m, 0, 2, MOV, MODEL_KIND_ANON, &pfn), -BC_E_NOMEM);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/* ---- isolation -------------------------------------------------------------------- */

/*
 * start_isolate_page_range() -> __move_freepages_block_isolate(): a covering order-10
 * buddy is split with split_large_buddy() so that only the target block's half goes to
 * ISOLATE; frees in the isolated block bypass the pcp; undo_isolate_page_range()
 * re-merges (__putback_isolated_page(), tail).
 *   pb0 pb1 [free o10 @0]   pb2 [A o0 @0x400][free ...]   isolate [0x200, 0x600)
 * Expect: o9 @0 MOVABLE, o9 @0x200 ISOLATE, pb2's free pages on ISOLATE lists, a free
 * at @0x400 goes straight to the buddy (ISOLATE list); after undo o10 @0 MOVABLE and
 * pb2's free pages merged back onto MOVABLE.
 */
START_TEST(test_isolate_undo)
{
	struct model *m = mk();
	struct model_zone_stats zs;
	uint64_t fail;

	seed(m, 0, 1024, KPF_BIT(KPF_BUDDY));
	seed(m, 0x401, 0x1ff, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_isolate_range(m, Z + 0x200, Z + 0x600, MODEL_ISOLATE_OTHER,
					     &fail), 0);
	expect_buddy(m, 0, 9, MOV);
	expect_buddy(m, 0x200, 9, ISO);
	expect_buddy(m, 0x401, 0, ISO);
	expect_buddy(m, 0x500, 8, ISO);
	ck_assert_int_eq(pb_type(m, 0x200), ISO);
	ck_assert_int_eq(model_zone_stats(m, 0, &zs), 0);
	ck_assert_uint_eq(zs.nr_isolate_pageblock, 2);
	ck_assert_uint_eq(zs.isolated_free_pages, 512 + 0x1ff);

	ck_assert_int_eq(model_page_free(m, Z + 0x400, 0, 0), 0);
	expect_buddy(m, 0x400, 9, ISO);		/* merged inside the isolated block */
	ck_assert_int_eq(model_test_pages_isolated(m, Z + 0x200, Z + 0x600,
						   MODEL_ISOLATE_OTHER, &fail), 0);
	ck_assert_uint_eq(fail, Z + 0x600);

	ck_assert_int_eq(model_undo_isolate_range(m, Z + 0x200, Z + 0x600), 0);
	expect_buddy(m, 0, 10, MOV);
	expect_buddy(m, 0x400, 9, MOV);
	ck_assert_int_eq(pb_type(m, 0x200), MOV);
	ck_assert_int_eq(model_zone_stats(m, 0, &zs), 0);
	ck_assert_uint_eq(zs.nr_isolate_pageblock, 0);
	ck_assert_uint_eq(model_anomaly_total(m), 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * has_unmovable_pages(): a slab page in the second block fails the isolation, the
 * first block is undone, the stored type survives (6.17+ bit), and a reserved page
 * fails too. An already isolated block fails (concurrent isolators).
 *   pb0 [anon...]  pb1 [anon][SLAB @0x280][anon]   isolate [0, 0x400)
 * Expect: -BUSY, fail_pfn Z+0x280, no block isolated, pb0 type unchanged (RECLAIMABLE).
 * The edge blocks are checked whole (isolate_single_pageblock()), so [0, 0x280) fails
 * at the slab page too, and [0, 0x200) isolates pb0 alone.
 */
START_TEST(test_isolate_fail)
{
	struct model *m = mk();
	struct model_zone_stats zs;
	uint64_t fail;

	seed(m, 0x280, 1, KPF_BIT(KPF_SLAB));
	seed(m, 0x10, 0x10, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_set_pageblock_mt(m, Z, RECL), 0);
	ck_assert_int_eq(model_isolate_range(m, Z, Z + 0x400, MODEL_ISOLATE_OTHER, &fail),
			 -BC_E_BUSY);
	ck_assert_uint_eq(fail, Z + 0x280);
	ck_assert_int_eq(pb_type(m, 0), RECL);
	expect_buddy(m, 0x10, 4, RECL);
	ck_assert_int_eq(model_zone_stats(m, 0, &zs), 0);
	ck_assert_uint_eq(zs.nr_isolate_pageblock, 0);
	/* a range that stops before the slab page still has it in its last block */
	ck_assert_int_eq(model_isolate_range(m, Z, Z + 0x280, MODEL_ISOLATE_OTHER, &fail),
			 -BC_E_BUSY);
	ck_assert_uint_eq(fail, Z + 0x280);
	ck_assert_int_eq(model_isolate_range(m, Z, Z + 0x200, MODEL_ISOLATE_OTHER, &fail), 0);
	ck_assert_int_eq(model_isolate_range(m, Z, Z + 0x200, MODEL_ISOLATE_OTHER, &fail),
			 -BC_E_BUSY);
	ck_assert_uint_eq(fail, Z);
	ck_assert_int_eq(model_undo_isolate_range(m, Z, Z + 0x200), 0);
	ck_assert_int_eq(pb_type(m, 0), RECL);
	/* reserved pages are unmovable in every zone */
	seed(m, 0x800, 1, KPF_BIT(KPF_RESERVED));
	ck_assert_int_eq(model_isolate_range(m, Z + 0x800, Z + 0xa00, MODEL_ISOLATE_OTHER,
					     &fail), -BC_E_BUSY);
	ck_assert_uint_eq(fail, Z + 0x800);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * Flags-0 pages of a snapshot: pcp pages (refcount 0) or kernel pages (refcount > 0).
 *   [0x100, 0x104) flags 0; 0x101 then drained (a pcp page), all else LRU
 * Before a full drain, MEM_OFFLINE isolation passes them (taken for pcp pages); after
 * model_zone_pcp_drained() (zone_pcp_disable() in offline_pages()) the first one left,
 * 0x100, is a kernel page in use and stops has_unmovable_pages(), as the kernel's
 * "unmovable page" dump does; the drained page is free and the rest are untouched.
 */
START_TEST(test_flags0_drained)
{
	struct model *m = mk();
	struct model_pfn_info pi;
	uint64_t fail, nr;

	seed(m, 0x100, 4, 0);
	ck_assert_int_eq(model_isolate_range(m, Z, Z + 0x200, MODEL_ISOLATE_MEM_OFFLINE,
					     &fail), 0);
	ck_assert_int_eq(model_undo_isolate_range(m, Z, Z + 0x200), 0);
	ck_assert_int_eq(model_pcpu_drain(m, Z + 0x101, 0, MOV, 0), 0);
	ck_assert_int_eq(model_zone_pcp_drained(m, Z + 0x800, &nr), 0);
	ck_assert_uint_eq(nr, 3);
	ck_assert_int_eq(model_pfn_info(m, Z + 0x100, &pi), 0);
	ck_assert(pi.state == MODEL_PFN_ALLOC && pi.kind == MODEL_KIND_KERNEL && pi.drained);
	ck_assert_int_eq(model_pfn_info(m, Z + 0x101, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_BUDDY);
	ck_assert_int_eq(model_pfn_info(m, Z + 0x104, &pi), 0);
	ck_assert(pi.kind == MODEL_KIND_ANON && !pi.drained);
	ck_assert_int_eq(model_isolate_range(m, Z, Z + 0x200, MODEL_ISOLATE_MEM_OFFLINE,
					     &fail), -BC_E_BUSY);
	ck_assert_uint_eq(fail, Z + 0x100);
	/* a second drain finds nothing left to settle */
	ck_assert_int_eq(model_zone_pcp_drained(m, Z, &nr), 0);
	ck_assert_uint_eq(nr, 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * Pre-6.17 (MIGRATE_ISOLATE written into the type): undo writes MOVABLE.
 *   pb0 UNMOVABLE [free o4 @0x10]   isolate [0, 0x200), undo
 * Expect: pb0 MOVABLE afterwards, @0x10 on the MOVABLE list.
 */
START_TEST(test_isolate_old_kernel)
{
	struct model *m = mk_layout(Z, NPFN, "6.12.118");
	uint64_t fail;

	seed(m, 0, NPFN, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	seed(m, 0x10, 0x10, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_set_pageblock_mt(m, Z, UNMOV), 0);
	ck_assert_int_eq(model_isolate_range(m, Z, Z + 0x200, MODEL_ISOLATE_OTHER, &fail), 0);
	expect_buddy(m, 0x10, 4, ISO);
	ck_assert_int_eq(model_undo_isolate_range(m, Z, Z + 0x200), 0);
	ck_assert_int_eq(pb_type(m, 0), MOV);
	expect_buddy(m, 0x10, 4, MOV);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * test_pages_isolated(): fin_pfn is the first busy page, or the first non-isolated
 * block when one is met in the pageblock loop.
 *   pb0 isolated [free o9 @0]  pb1 isolated [free ...][A @0x300][free ...]
 * Expect: [0, 0x400) fails at Z+0x300; [0, 0x600) fails at Z+0x400 (pb2 not isolated).
 */
START_TEST(test_pages_isolated_fin)
{
	struct model *m = mk();
	uint64_t fin, fail;

	seed(m, 0, 0x300, KPF_BIT(KPF_BUDDY));
	seed(m, 0x301, 0xff, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_isolate_range(m, Z, Z + 0x400, MODEL_ISOLATE_OTHER, &fail), 0);
	ck_assert_int_eq(model_test_pages_isolated(m, Z, Z + 0x400, MODEL_ISOLATE_OTHER, &fin),
			 -BC_E_BUSY);
	ck_assert_uint_eq(fin, Z + 0x300);
	ck_assert_int_eq(model_test_pages_isolated(m, Z, Z + 0x600, MODEL_ISOLATE_OTHER, &fin),
			 -BC_E_BUSY);
	ck_assert_uint_eq(fin, Z + 0x400);
	ck_assert_int_eq(model_undo_isolate_range(m, Z, Z + 0x400), 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * isolate_single_pageblock(): a compound page that is not hugetlb and straddles the
 * range's pageblock-aligned edge fails the isolation (-EBUSY); a straddling hugetlb
 * folio is skipped. The block itself is checked first: a non-LRU compound page fails
 * has_unmovable_pages() at the block's first page (a tail), an LRU THP passes it and
 * fails the straddle check at its head.
 *   [compound o10 @0x400 (head | 1023 tails), non-LRU]   isolate [0x600, 0x800)
 *   same with THP | LRU flags                             -> straddle
 *   same with HUGE flags                                  -> isolates
 * Expect: -BUSY at Z+0x600, then -BUSY at the head Z+0x400; success for hugetlb.
 */
START_TEST(test_isolate_straddle)
{
	struct model *m = mk();
	uint64_t fail;

	seed_compound(m, 0x400, 1024, 0);
	ck_assert_int_eq(model_isolate_range(m, Z + 0x600, Z + 0x800, MODEL_ISOLATE_OTHER,
					     &fail), -BC_E_BUSY);
	ck_assert_uint_eq(fail, Z + 0x600);
	seed_compound(m, 0x400, 1024, KPF_BIT(KPF_THP) | KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON));
	ck_assert_int_eq(model_isolate_range(m, Z + 0x600, Z + 0x800, MODEL_ISOLATE_OTHER,
					     &fail), -BC_E_BUSY);
	ck_assert_uint_eq(fail, Z + 0x400);
	seed_compound(m, 0x400, 1024, KPF_BIT(KPF_HUGE));
	ck_assert_int_eq(model_isolate_range(m, Z + 0x600, Z + 0x800, MODEL_ISOLATE_OTHER,
					     &fail), 0);
	ck_assert_int_eq(model_undo_isolate_range(m, Z + 0x600, Z + 0x800), 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/* ---- migration and alloc_contig ---------------------------------------------------- */

/*
 * __alloc_contig_migrate_range(): in-use movable pages of an isolated range get
 * destinations from the model's allocator outside the range, and the sources are
 * freed onto the ISOLATE lists.
 *   pb0..pb1 [anon x 1024]   pb4..pb7 [free o10 x 2]
 * Expect: after isolate + migrate [0, 0x400): 1024 pages migrated, the range free
 * (test succeeds), destinations allocated in [0x800, 0x1000).
 */
START_TEST(test_migrate_range)
{
	struct model *m = mk();
	struct model_migrate_result r;
	struct model_range_counts rc;
	uint64_t fail, fin;

	seed(m, 0x800, 0x800, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_isolate_range(m, Z, Z + 0x400, MODEL_ISOLATE_OTHER, &fail), 0);
	ck_assert_int_eq(model_migrate_range(m, Z, Z + 0x400, &r), 0);
	ck_assert_uint_eq(r.migrated, 0x400);
	ck_assert_uint_eq(r.failed, 0);
	ck_assert_int_eq(model_test_pages_isolated(m, Z, Z + 0x400, MODEL_ISOLATE_OTHER, &fin),
			 0);
	ck_assert_int_eq(model_range_counts(m, Z + 0x800, Z + 0x1000, &rc), 0);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_MOVABLE], 0x400);
	ck_assert_int_eq(model_undo_isolate_range(m, Z, Z + 0x400), 0);
	expect_buddy(m, 0, 10, MOV);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

static uint64_t state_hash(struct model *m)
{
	uint64_t h = 1469598103934665603ull, i;
	struct model_pfn_info pi;
	struct model_zone_stats zs;
	uint64_t l[64];
	unsigned int o, t;
	long n;

	for (i = 0; i < NPFN; i++) {
		model_pfn_info(m, Z + i, &pi);
		h = (h ^ (pi.state | (uint64_t)pi.order << 8 | (uint64_t)(pi.mt + 1) << 16 |
			  (uint64_t)(pi.cpu + 1) << 24 | (uint64_t)pi.kind << 32 |
			  (uint64_t)(pi.head - Z) << 40)) * 1099511628211ull;
		if (!(i & 511)) {
			int e;

			model_pageblock_mt(m, Z + i, NULL, &e, NULL);
			h = (h ^ (uint64_t)e) * 1099511628211ull;
		}
	}
	for (o = 0; o <= 10; o++)
		for (t = 0; t < 5; t++) {
			n = model_free_list(m, 0, o, (int)t, l, 64);
			h = (h ^ (uint64_t)n) * 1099511628211ull;
			while (n-- > 0 && n < 64)
				h = (h ^ l[n]) * 1099511628211ull;
		}
	model_zone_stats(m, 0, &zs);
	h = (h ^ zs.free_pages ^ zs.pcp_pages << 20) * 1099511628211ull;
	return h;
}

/*
 * A hypothetical alloc_contig_range() under model_checkpoint()/model_rollback().
 *   pb0..1 [anon][pcp pages on cpu1]   pb2..7 free
 * Expect: the attempt succeeds (range allocated, one order-10 allocation) and the
 * rollback restores the map, lists, pcp lists, types and counters exactly.
 */
START_TEST(test_checkpoint_rollback)
{
	struct model *m = mk();
	struct model_stats st;
	struct model_contig_req req = { .start = Z, .end = Z + 0x400, .kind = MODEL_KIND_HUGETLB };
	struct model_contig_result res;
	uint64_t before;

	seed(m, 0x400, 0xc00, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_page_free(m, Z + 0x20, 0, 1), 0);
	ck_assert_int_eq(model_page_free(m, Z + 0x30, 0, 1), 0);
	ck_assert_int_eq(model_set_pageblock_mt(m, Z + 0xe00, UNMOV), 0);
	before = state_hash(m);
	ck_assert_int_eq(model_checkpoint(m), 0);
	ck_assert_int_eq(model_alloc_contig_range(m, &req, &res), 0);
	ck_assert_int_eq(res.ret, 0);
	expect_alloc(m, 0, 10);
	recount_ok(m);
	ck_assert_uint_ne(state_hash(m), before);
	/* nested: a failing attempt inside */
	ck_assert_int_eq(model_checkpoint(m), 0);
	ck_assert_int_eq(model_alloc_contig_range(m, &req, &res), 0);
	ck_assert_int_eq(res.ret, -BC_E_BUSY);
	ck_assert_int_eq(model_rollback(m), 0);
	ck_assert_int_eq(model_rollback(m), 0);
	ck_assert_uint_eq(state_hash(m), before);
	expect_pcp(m, 0x20, 0, 1);
	recount_ok(m);
	model_get_stats(m, &st);
	ck_assert(st.journal_bytes > 0);
	ck_assert_int_lt(model_rollback(m), 0);
	model_destroy(m);
}
END_TEST

/*
 * pfn_range_valid_contig() on 6.18: any hugetlb page rejects the range; reserved too.
 */
START_TEST(test_valid_contig)
{
	struct model *m = mk();

	ck_assert(model_range_valid_contig(m, Z, Z + 0x400));
	seed(m, 0x100, 1, KPF_BIT(KPF_HUGE) | KPF_BIT(KPF_COMPOUND_HEAD));
	ck_assert(!model_range_valid_contig(m, Z, Z + 0x400));
	ck_assert(model_range_valid_contig(m, Z + 0x400, Z + 0x800));
	ck_assert(!model_range_valid_contig(m, Z + 0x800, Z + 0x2000));	/* leaves the zone */
	model_destroy(m);
}
END_TEST

/* ---- anomalies -------------------------------------------------------------------- */

/*
 * Events the model cannot explain are counted, recorded with their event sequence and
 * repaired: a free of a free page, an alloc of an in-use page, a pfn outside the
 * zones, an impossible order; on an uncertain page they count as "settled".
 */
START_TEST(test_anomalies)
{
	struct model *m = mk();
	struct model_anomaly_rec rec[MODEL_ANOM_KEEP];
	unsigned int nr;

	seed(m, 0x10, 0x10, KPF_BIT(KPF_BUDDY));
	model_set_event(m, 42, 1000);
	ck_assert_int_eq(model_page_free(m, Z + 0x10, 4, 0), 0);
	ck_assert_uint_eq(model_anomaly_count(m, MODEL_ANOM_FREE_OF_FREE, rec, &nr), 1);
	ck_assert_uint_eq(nr, 1);
	ck_assert_uint_eq(rec[0].seq, 42);
	ck_assert_uint_eq(rec[0].pfn, Z + 0x10);
	ck_assert_uint_eq(rec[0].order, 4);
	expect_buddy(m, 0x10, 4, MOV);

	ck_assert_int_eq(model_page_alloc(m, Z + 0x100, 0, GFP_KERNEL, UNMOV, 0), 0);
	ck_assert_int_eq(model_page_alloc(m, Z + 0x100, 0, GFP_KERNEL, UNMOV, 0), 0);
	ck_assert_uint_eq(anomalies(m, MODEL_ANOM_ALLOC_IN_USE), 2);	/* seeded + double */
	ck_assert_int_eq(model_page_free(m, Z + 0x100000, 0, 0), 0);
	ck_assert_uint_eq(anomalies(m, MODEL_ANOM_PFN_OUTSIDE), 1);
	ck_assert_int_eq(model_page_free(m, Z + 1, 3, 0), 0);		/* misaligned */
	ck_assert_uint_eq(anomalies(m, MODEL_ANOM_BAD_ORDER), 1);

	ck_assert_int_eq(model_mark_uncertain(m, Z + 0x200, 16), 0);
	ck_assert_uint_eq(model_count_uncertain(m, Z + 0x200, 64), 16);
	ck_assert_int_eq(model_page_alloc(m, Z + 0x200, 0, GFP_KERNEL, UNMOV, 0), 0);
	ck_assert_uint_eq(anomalies(m, MODEL_ANOM_UNCERTAIN), 1);
	ck_assert_uint_eq(model_count_uncertain(m, Z + 0x200, 64), 15);
	ck_assert_str_eq(model_anomaly_name(MODEL_ANOM_FREE_OF_FREE), "free-of-free-page");
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * Free page reporting (page_reporting_process_zone() -> __isolate_free_page()) re-types
 * a free order-10 block's pageblocks to MOVABLE without a tracepoint; the next
 * zone_locked names the MOVABLE list.
 *   pb0 pb1 UNMOVABLE [free o10 @0]    zone_locked(@0, order 0, MOVABLE)
 * Expect: counted as free-block-retyped-movable, both pageblocks MOVABLE, pieces on
 * the MOVABLE lists.
 */
START_TEST(test_reporting_retype)
{
	struct model *m = mk();

	seed(m, 0, 1024, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_set_pageblock_mt(m, Z, UNMOV), 0);
	ck_assert_int_eq(model_set_pageblock_mt(m, Z + 0x200, UNMOV), 0);
	/* re-typing both halves one by one splits the block; free them again to merge */
	expect_buddy(m, 0, 9, UNMOV);
	ck_assert_int_eq(model_zone_locked(m, Z + 0x200, 9, UNMOV, false, 0), 0);
	ck_assert_int_eq(model_page_free(m, Z + 0x200, 9, 0), 0);
	ck_assert_int_eq(model_pcpu_drain(m, Z + 0x200, 9, UNMOV, 0), 0);
	expect_buddy(m, 0, 10, UNMOV);
	ck_assert_int_eq(model_zone_locked(m, Z, 0, MOV, false, 0), 0);
	ck_assert_uint_eq(anomalies(m, MODEL_ANOM_REPORT_RETYPE), 1);
	ck_assert_int_eq(pb_type(m, 0), MOV);
	ck_assert_int_eq(pb_type(m, 0x200), MOV);
	expect_buddy(m, 0x200, 9, MOV);
	expect_buddy(m, 1, 0, MOV);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/* Kinds set from a snapshot move pages between the pageblock counters. */
START_TEST(test_page_kind)
{
	struct model *m = mk();
	struct model_range_counts rc;
	struct model_stats st;

	ck_assert_int_eq(model_set_page_kind(m, Z, 0x200, MODEL_KIND_SLAB), 0);
	ck_assert_int_eq(model_range_counts(m, Z, Z + 0x400, &rc), 0);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_UNMOVABLE], 0x200);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_MOVABLE], 0x200);
	model_get_stats(m, &st);
	ck_assert(st.bytes_per_pfn > 4.0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * Inode-table readahead (ext4_sb_breadahead_unmovable() -> grow_dev_folio()) allocates
 * the block device's page-cache folio with GFP_NOWAIT | __GFP_COMP, order 0,
 * Unmovable: an LRU page, movable for has_unmovable_pages(). A slab page of the same
 * context carries __GFP_NORETRY too (allocate_slab()) and stays unmovable.
 */
#define GFP_BDEV_READAHEAD	0x42800ull	/* __GFP_KSWAPD_RECLAIM|__GFP_NOWARN|__GFP_COMP */
#define GFP_NORETRY		0x10000ull

START_TEST(test_bdev_readahead_kind)
{
	struct model *m = mk_layout(Z, NPFN, "6.18.44");
	struct model_pfn_info pi;
	struct model_range_counts rc;

	seed(m, 0, NPFN, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_page_alloc(m, Z, 0, GFP_BDEV_READAHEAD, UNMOV, 0), 0);
	ck_assert_int_eq(model_page_alloc(m, Z + 1, 0, GFP_BDEV_READAHEAD | GFP_NORETRY, UNMOV,
					  0), 0);
	ck_assert_int_eq(model_page_alloc(m, Z + 2, 1, GFP_BDEV_READAHEAD, UNMOV, 0), 0);
	ck_assert_int_eq(model_pfn_info(m, Z, &pi), 0);
	ck_assert_int_eq(pi.kind, MODEL_KIND_FILE);
	ck_assert_int_eq(model_pfn_info(m, Z + 1, &pi), 0);
	ck_assert_int_eq(pi.kind, MODEL_KIND_SLAB);	/* allocate_slab()'s first try */
	ck_assert_int_eq(model_pfn_info(m, Z + 2, &pi), 0);
	ck_assert_int_eq(pi.kind, MODEL_KIND_UNKNOWN);
	ck_assert_int_eq(model_range_counts(m, Z, Z + 4, &rc), 0);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_MOVABLE], 1);
	ck_assert_uint_eq(rc.pages[MODEL_PBC_UNMOVABLE], 3);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * Block device metadata (getblk_unmovable(): the bdev mapping's GFP_USER without
 * __GFP_FS, with __GFP_NOFAIL; the folio adds __GFP_COMP), order 0: an LRU page-cache
 * folio with buffer heads, movable for has_unmovable_pages(). It is told by
 * __GFP_HARDWALL on a folio: the same mask without it (a GFP_NOFS kernel folio) is not
 * claimed.
 */
#define GFP_BDEV_META		0x148c40ull
#define GFP_HARDWALL		0x100000ull

START_TEST(test_bdev_metadata_kind)
{
	struct model *m = mk_layout(Z, NPFN, "6.18.44");
	struct model_pfn_info pi;

	seed(m, 0, NPFN, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_page_alloc(m, Z, 0, GFP_BDEV_META, UNMOV, 0), 0);
	ck_assert_int_eq(model_page_alloc(m, Z + 1, 0, GFP_BDEV_META & ~GFP_HARDWALL, UNMOV, 0),
			 0);
	ck_assert_int_eq(model_pfn_info(m, Z, &pi), 0);
	ck_assert_int_eq(pi.kind, MODEL_KIND_FILE);
	ck_assert_int_eq(model_pfn_info(m, Z + 1, &pi), 0);
	ck_assert_int_eq(pi.kind, MODEL_KIND_UNKNOWN);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * kpagecount is read after kpageflags: a page that read flags 0 and a map count was
 * free or in transit when its flags were read (a mapped page has KPF_MMAP), so the
 * seed holds it as unknown like any flags-0 page, and its allocation settles it
 * without an anomaly.
 */
START_TEST(test_seed_flags0_mapped)
{
	struct model *m = mk_layout(Z, NPFN, "6.18.44");
	uint64_t f[2] = { 0, KPF_BIT(KPF_SLAB) }, mc[2] = { 1, 0 };
	struct model_pfn_info pi;

	seed(m, 0, NPFN, KPF_BIT(KPF_BUDDY));
	ck_assert_int_eq(model_kind_of_flags(0, 1), MODEL_KIND_UNKNOWN);
	ck_assert_int_eq(model_seed_pfn_range(m, Z + 0x10, 2, f, mc), 0);
	ck_assert_int_eq(model_pfn_info(m, Z + 0x10, &pi), 0);
	ck_assert_int_eq(pi.kind, MODEL_KIND_UNKNOWN);
	ck_assert_int_eq(model_pfn_info(m, Z + 0x11, &pi), 0);
	ck_assert_int_eq(pi.kind, MODEL_KIND_SLAB);
	ck_assert_int_eq(model_page_alloc(m, Z + 0x10, 0, GFP_HIGHUSER_MOVABLE, MOV, 0), 0);
	ck_assert_uint_eq(anomalies(m, MODEL_ANOM_ALLOC_IN_USE), 0);
	recount_ok(m);
	model_destroy(m);
}
END_TEST

/*
 * Only a movable compound block of pageblock order is THP or hugetlb (GFP_TRANSHUGE is
 * GFP_HIGHUSER_MOVABLE | __GFP_COMP ...): io_uring_setup()'s rings, GFP_KERNEL_ACCOUNT
 * | __GFP_ZERO | __GFP_COMP | __GFP_NOWARN at order 9, are kernel pages (masks as
 * traced on 6.18).
 */
START_TEST(test_gfp_transhuge_movable)
{
	ck_assert_int_eq(model_gfp_classify(0x3d24caull, 9, 9), MODEL_GFP_TRANSHUGE);
	ck_assert_int_eq(model_gfp_classify(0x442dc0ull, 9, 9), MODEL_GFP_KERNEL);
	ck_assert_int_eq(model_gfp_classify(0x442dc0ull, 0, 9), MODEL_GFP_KERNEL);
}
END_TEST

/*
 * A take from the CMA list at a pcp order is rmqueue_bulk()'s refill, though the
 * tracepoint says percpu_refill 0 (__rmqueue_smallest(): "migratetype <
 * MIGRATE_PCPTYPES"): the page goes on the pcp list; a take from another list with
 * percpu_refill 0 waits for its mm_page_alloc.
 */
START_TEST(test_cma_take_is_refill)
{
	struct model_profile p;
	struct model_pfn_info pi;
	struct model *m;

	model_profile_from_release("6.12.118", 9, &p);
	p.cma = true;
	m = mk_layout_prof(Z, 4096, &p);
	ck_assert_int_eq(model_set_pageblock_mt(m, Z, 4), 0);	/* MIGRATE_CMA */
	seed(m, 0, 4096, KPF_BIT(KPF_BUDDY));
	ck_assert(model_zone_locked_refill(m, 0, 4, false));
	ck_assert(!model_zone_locked_refill(m, 0, 1, false));
	ck_assert(!model_zone_locked_refill(m, 10, 4, false));	/* not a pcp order */
	ck_assert_int_eq(model_zone_locked(m, Z, 0, 4, false, 1), 0);
	ck_assert_int_eq(model_pfn_info(m, Z, &pi), 0);
	ck_assert_msg(pi.state == MODEL_PFN_PCP && pi.cpu == 1, "state %d cpu %d", pi.state,
		      pi.cpu);
	ck_assert_int_eq(model_zone_locked(m, Z + 512, 0, 1, false, 1), 0);
	ck_assert_int_eq(model_pfn_info(m, Z + 512, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_ALLOC);
	model_destroy(m);
}
END_TEST

Suite *model_suite(void);

Suite *model_suite(void)
{
	Suite *s = suite_create("model");
	TCase *core = tcase_create("core");
	TCase *iso = tcase_create("isolation");
	TCase *lim = tcase_create("limits");

	tcase_add_test(core, test_profile);
	tcase_add_test(core, test_cma_take_is_refill);
	tcase_add_test(core, test_bdev_readahead_kind);
	tcase_add_test(core, test_bdev_metadata_kind);
	tcase_add_test(core, test_gfp_transhuge_movable);
	tcase_add_test(core, test_seed_flags0_mapped);
	tcase_add_test(core, test_seed_greedy);
	tcase_add_test(core, test_seed_uninit_growth);
	tcase_add_test(core, test_holes);
	tcase_add_test(core, test_split_expand);
	tcase_add_test(core, test_merge_below_pageblock);
	tcase_add_test(core, test_merge_pageblock_rules);
	tcase_add_test(core, test_merge_pageblock_old);
	tcase_add_test(core, test_drain_type_old);
	tcase_add_test(core, test_merge_likely_tail);
	tcase_add_test(core, test_expand_to_head);
	tcase_add_test(core, test_extfrag_claim_partial_untraced);
	tcase_add_test(core, test_gigantic_free);
	tcase_add_test(core, test_gigantic_free_old);
	tcase_add_test(core, test_pcp_refill_drain);
	tcase_add_test(core, test_drain_learns_type);
	tcase_add_test(core, test_extfrag_steal);
	tcase_add_test(core, test_extfrag_claim_whole);
	tcase_add_test(core, test_extfrag_then_zone_locked_old);
	tcase_add_test(core, test_extfrag_claim_partial);
	tcase_add_test(core, test_alloc_block_claim_steal);
	tcase_add_test(core, test_page_kind);
	suite_add_tcase(s, core);

	tcase_add_test(iso, test_isolate_undo);
	tcase_add_test(iso, test_isolate_fail);
	tcase_add_test(iso, test_isolate_old_kernel);
	tcase_add_test(iso, test_isolate_straddle);
	tcase_add_test(iso, test_pages_isolated_fin);
	tcase_add_test(iso, test_flags0_drained);
	tcase_add_test(iso, test_migrate_range);
	tcase_add_test(iso, test_checkpoint_rollback);
	tcase_add_test(iso, test_valid_contig);
	suite_add_tcase(s, iso);

	tcase_add_test(lim, test_anomalies);
	tcase_add_test(lim, test_reporting_retype);
	suite_add_tcase(s, lim);
	return s;
}
