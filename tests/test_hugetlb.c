// SPDX-License-Identifier: GPL-2.0
/*
 * The 2 MiB hugetlb pool: its pages are taken from the buddy by
 * alloc_buddy_hugetlb_folio() (mm/hugetlb.c) and given back by
 * update_and_free_hugetlb_folio(), one order-9 mm_page_alloc / mm_page_free each. The
 * model must hold them as hugetlb from their allocation on (kpageflags shows HUGE at
 * the next snapshot) and free them when the pool shrinks, and pfn_range_valid_contig()
 * of the profiled kernel refuses ranges holding them (6.10+).
 *
 * traces/hugetlb.db (traces/recipes/hugetlb.sh held): snapshots before the pool grew
 * by 512 pages and after, the pool still held, a quarter of it mapped.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "db/tdb.h"
#include "model/model.h"
#include "replay/replay.h"
#include "tests/fixture.h"

#define HUGETLB_DB	"traces/hugetlb.db"

/* gfp of pool growth on 6.18 as mm_page_alloc printed it: GFP_HIGHUSER_MOVABLE |
 * __GFP_COMP | __GFP_NOWARN | __GFP_RETRY_MAYFAIL | __GFP_THISNODE */
#define GFP_POOL	0x346ccaull
#define GFP_RETRY_MAYFAIL 0x4000ull

/*
 * The gfp signature: pool pages with or without __GFP_RETRY_MAYFAIL (no longer asked
 * after a failure on the node), at the pool's order only; not THP (GFP_TRANSHUGE:
 * __GFP_NOMEMALLOC), not large page-cache folios (__GFP_NORETRY), not kernel __GFP_COMP
 * allocations (no __GFP_HARDWALL).
 */
START_TEST(test_gfp_signature)
{
	const uint32_t o9 = 1u << 9;

	ck_assert(model_gfp_hugetlb(GFP_POOL, 9, o9));
	ck_assert(model_gfp_hugetlb(GFP_POOL & ~GFP_RETRY_MAYFAIL, 9, o9));
	ck_assert(!model_gfp_hugetlb(GFP_POOL, 0, o9));
	ck_assert(!model_gfp_hugetlb(GFP_POOL, 9, 1u << 18));
	ck_assert(!model_gfp_hugetlb(0x1c24caull, 9, o9));	/* GFP_TRANSHUGE */
	ck_assert(!model_gfp_hugetlb(0x3d24caull, 9, o9));	/* THP as traced on 6.18 */
	ck_assert(!model_gfp_hugetlb(0x152ccaull, 9, o9));	/* page-cache folio */
	ck_assert(!model_gfp_hugetlb(0x40cc0ull, 9, o9));	/* GFP_KERNEL | __GFP_COMP */
}
END_TEST

#define Z	0x40000ull
#define NPFN	4096u

static enum model_kind kind_at(struct model *m, uint64_t pfn)
{
	struct model_pfn_info pi;

	ck_assert_int_eq(model_pfn_info(m, pfn, &pi), 0);
	return pi.state == MODEL_PFN_ALLOC ? pi.kind : MODEL_KIND_UNKNOWN;
}

/*
 * Growth, then shrink: the pool page is hugetlb from its mm_page_alloc, the 2 MiB
 * range holding it is refused by pfn_range_valid_contig() on 6.12 and 6.18 (not on
 * 6.1, which does not look), and after its mm_page_free (through cpu 0's pcp list,
 * order 9 is a pcp order) and the drain it is a free buddy block again.
 */
START_TEST(test_grow_shrink)
{
	static const char *const rel[] = { "6.18.44", "6.12.118", "6.1.158" };
	struct model *m = fixture_free_zone(rel[_i], Z, NPFN);
	const uint64_t p = Z + 1024;
	struct model_pfn_info pi;
	bool rejects = _i < 2;

	ck_assert_int_eq(model_page_alloc(m, p, 9, GFP_POOL, 1, 0), 0);
	ck_assert_int_eq(kind_at(m, p), MODEL_KIND_HUGETLB);
	ck_assert_int_eq(kind_at(m, p + 511), MODEL_KIND_HUGETLB);
	ck_assert(model_range_valid_contig(m, Z, Z + 1024));
	ck_assert(model_range_valid_contig(m, Z, Z + NPFN) != rejects);
	ck_assert_int_eq(model_page_free(m, p, 9, 0), 0);
	ck_assert_int_eq(model_drain_zone(m, p), 0);
	ck_assert_int_eq(model_pfn_info(m, p + 100, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_BUDDY);
	ck_assert(model_range_valid_contig(m, Z, Z + NPFN));
	ck_assert_int_eq(model_anomaly_total(m), 0);
	ck_assert_int_eq(model_recount(m, NULL, 0), 0);
	model_destroy(m);
}
END_TEST

struct pool_snap {
	int64_t snap;			/* first snapshot showing the 2 MiB pool */
	long long nr;			/* its pages */
	const struct rp_score *score;
};

/*
 * The pfns the model holds as hugetlb, and the 1 GiB ranges holding one that
 * pfn_range_valid_contig() would still accept. Steps a block (allocation or free
 * block) at a time.
 */
static void count_hugetlb(struct model *m, uint64_t *pfns, uint64_t *bad_ranges)
{
	const struct model_layout *L = model_get_layout(m);
	const uint64_t gib = 1ull << 18;
	uint64_t p, end, last = UINT64_MAX;
	unsigned int zi;

	*pfns = *bad_ranges = 0;
	for (zi = 0; zi < L->nr_zones; zi++) {
		end = L->zones[zi].start_pfn + L->zones[zi].spanned;
		for (p = L->zones[zi].start_pfn; p < end;) {
			struct model_pfn_info pi;
			uint64_t next = p + 1;

			ck_assert_int_eq(model_pfn_info(m, p, &pi), 0);
			if ((pi.state == MODEL_PFN_BUDDY || pi.state == MODEL_PFN_ALLOC) && !pi.seeded)
				next = pi.head + (1ull << pi.order);
			if (pi.state == MODEL_PFN_ALLOC && pi.kind == MODEL_KIND_HUGETLB) {
				*pfns += next - p;
				if (p / gib != last && (p & ~(gib - 1)) + gib <= end &&
				    model_range_valid_contig(m, p & ~(gib - 1), (p & ~(gib - 1)) + gib))
					(*bad_ranges)++;
				last = p / gib;
			}
			p = next > p ? next : p + 1;
		}
	}
}

/*
 * traces/hugetlb.db: at the snapshot after the growth, kind agreement >= 99% (it was
 * 75-86% when the pool's pages were taken for movable user memory) and free/in-use >=
 * 99.9%; at the end the model holds the whole pool (nr x 512 pfns) as hugetlb and no
 * 1 GiB range holding a pool page passes pfn_range_valid_contig().
 */
START_TEST(test_bundled_pool)
{
	const char *path = fixture_path(HUGETLB_DB);
	struct rp_opts o = { .until_seq = UINT64_MAX };
	const struct rp_score *sc;
	struct pool_snap ps = { .snap = -1 };
	uint64_t pfns, bad;
	struct replay *rp;
	struct tdb *db;
	int n, i;

	ck_assert_msg(!access(path, R_OK), "bundled capture %s is missing", path);
	ps.snap = fixture_sql_count(path, "SELECT min(snap) FROM hugepages WHERE size_kb = 2048 "
				    "AND nr > 0");
	ps.nr = fixture_sql_count(path, "SELECT nr FROM hugepages WHERE size_kb = 2048 AND "
				  "snap = (SELECT max(id) FROM snapshots)");
	ck_assert_int_gt(ps.snap, 1);
	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_msg(!rp_create(db, &o, &rp), "%s", bc_errmsg());
	ck_assert_msg(!rp_run(rp, NULL), "%s", bc_errmsg());
	sc = rp_scores(rp, &n);
	for (i = 0; i < n; i++) {
		printf("hugetlb.db snapshot %lld: state %.5f%%, kind %.5f%% (%llu of %llu)\n",
		       (long long)sc[i].snap, 100 * sc[i].pfn_agree_state, 100 * sc[i].pfn_agree_kind,
		       (unsigned long long)sc[i].kind_agree,
		       (unsigned long long)sc[i].kind_compared);
		ck_assert_msg(sc[i].pfn_agree_state >= 0.999, "snapshot %lld: free/in-use %.5f",
			      (long long)sc[i].snap, sc[i].pfn_agree_state);
		if (sc[i].snap == ps.snap)
			ps.score = &sc[i];
	}
	ck_assert_ptr_nonnull(ps.score);
	ck_assert_msg(ps.score->pfn_agree_kind >= 0.99, "kind agreement %.5f < 0.99 after the "
		      "pool grew", ps.score->pfn_agree_kind);
	count_hugetlb(rp_model(rp), &pfns, &bad);
	ck_assert_uint_eq(pfns, (uint64_t)ps.nr * 512);
	ck_assert_uint_eq(bad, 0);
	rp_destroy(rp);
	tdb_close(db);
}
END_TEST

Suite *hugetlb_suite(void)
{
	Suite *s = suite_create("hugetlb");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_gfp_signature);
	tcase_add_loop_test(tc, test_grow_shrink, 0, 3);
	tcase_add_test(tc, test_bundled_pool);
	suite_add_tcase(s, tc);
	return s;
}
