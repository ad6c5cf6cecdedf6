// SPDX-License-Identifier: GPL-2.0
/*
 * Pageblock types guessed at the seed (model/guess.c) and the untraced bulk allocator.
 *
 * The map: one zone "Normal" of 4096 pfns (8 pageblocks of 512), pageblock_order 9,
 * MAX_PAGE_ORDER 10, 2 cpus. Pages are anonymous LRU pages unless a test seeds others.
 * Every seeded type is marked a guess, as replay's seed does.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/kpageflags.h"
#include "model/model.h"
#include "tests/fixture.h"

#define Z	0x40000ull
#define NPFN	4096u
#define PB	512u

enum { UNMOV = 0, MOV = 1, RECL = 2 };

static struct model *mk_guess(const char *rel, const int types[8])
{
	struct model_layout l;
	struct model *m;
	uint64_t *f = malloc(NPFN * sizeof(*f)), i;

	ck_assert_ptr_nonnull(f);
	fixture_layout_init(&l);
	fixture_layout_zone(&l, "Normal", Z, NPFN);
	m = fixture_model(&l, rel);
	for (i = 0; i < NPFN; i++)
		f[i] = KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON);
	/* pageblock 3 holds slab pages: the strongest Unmovable evidence */
	for (i = 3 * PB; i < 3 * PB + 64; i++)
		f[i] = KPF_BIT(KPF_SLAB);
	ck_assert_int_eq(model_seed_pfn_range(m, Z, NPFN, f, NULL), 0);
	free(f);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(model_set_pageblock_mt(m, Z + i * PB, types[i]), 0);
		ck_assert_int_eq(model_mark_pageblock_guessed(m, Z + i * PB), 0);
	}
	return m;
}

static int type_of(struct model *m, unsigned int pb)
{
	int eff;

	ck_assert_int_eq(model_pageblock_mt(m, Z + pb * PB, NULL, &eff, NULL), 0);
	return eff;
}

static void done(struct model *m)
{
	char buf[1024];

	ck_assert_int_eq(model_recount(m, buf, sizeof(buf)), 0);
	model_destroy(m);
}

/*
 * free_pcppages_bulk() names the type (6.1: the page's at free, get_pcppage_migratetype()):
 * a drain of Unmovable in block 0 guessed Movable corrects it; the guessed Unmovable
 * block with the weakest evidence (block 1, all anonymous; not block 3 with slab) takes
 * Movable, so the counts stay pagetypeinfo's. No migratetype-mismatch.
 */
START_TEST(test_drain_corrects_guess)
{
	static const char *const rel[] = { "6.1.176", "6.12.95" };
	const int types[8] = { MOV, UNMOV, MOV, UNMOV, MOV, MOV, MOV, MOV };
	struct model *m = mk_guess(rel[_i], types);
	uint64_t counts[8];

	ck_assert_int_eq(model_page_free(m, Z + 5, 0, 0), 0);
	ck_assert_int_eq(model_pcpu_drain(m, Z + 5, 0, UNMOV, 0), 0);
	ck_assert_int_eq(type_of(m, 0), UNMOV);
	ck_assert_int_eq(type_of(m, 1), MOV);
	ck_assert_int_eq(type_of(m, 3), UNMOV);
	ck_assert_uint_eq(model_anomaly_count(m, MODEL_ANOM_MT_MISMATCH, NULL, NULL), 0);
	ck_assert_uint_eq(model_guess_fixes(m), 1);
	ck_assert(!model_pageblock_guessed(m, Z));	/* shown by the drain */
	ck_assert(model_pageblock_guessed(m, Z + PB));	/* deduced: still a guess */
	model_count_guessed_pageblocks(m, 0, counts);
	ck_assert_uint_eq(counts[UNMOV], 1);		/* block 3 */
	ck_assert_uint_eq(counts[MOV], 6);
	/* A drain that agrees confirms the guess; a known type is not re-typed. */
	ck_assert_int_eq(model_page_free(m, Z + 2 * PB, 0, 1), 0);
	ck_assert_int_eq(model_pcpu_drain(m, Z + 2 * PB, 0, MOV, 1), 0);
	ck_assert(!model_pageblock_guessed(m, Z + 2 * PB));
	ck_assert_int_eq(model_page_free(m, Z + 6, 0, 0), 0);
	ck_assert_int_eq(model_pcpu_drain(m, Z + 6, 0, RECL, 0), 0);
	ck_assert_int_eq(type_of(m, 0), UNMOV);
	ck_assert_uint_eq(model_anomaly_count(m, MODEL_ANOM_MT_MISMATCH, NULL, NULL), 1);
	done(m);
}
END_TEST

/*
 * __rmqueue_smallest() took a Movable request from a free pageblock the model guessed
 * Unmovable: the kernel has it on the Movable list, so the guess was wrong; the guessed
 * Movable block with the most unmovable evidence (block 3, slab) becomes Unmovable.
 */
START_TEST(test_zone_locked_corrects_guess)
{
	const int types[8] = { UNMOV, MOV, MOV, MOV, MOV, MOV, MOV, MOV };
	struct model *m = mk_guess("6.12.95", types);
	uint64_t *f = malloc(PB * sizeof(*f)), i;

	for (i = 0; i < PB; i++)
		f[i] = KPF_BIT(KPF_BUDDY);
	ck_assert_int_eq(model_seed_pfn_range(m, Z, PB, f, NULL), 0);
	free(f);
	ck_assert_int_eq(model_zone_locked(m, Z, 0, MOV, true, 0), 0);
	ck_assert_int_eq(type_of(m, 0), MOV);
	ck_assert_int_eq(type_of(m, 3), UNMOV);
	ck_assert_int_eq(type_of(m, 1), MOV);
	ck_assert_uint_eq(model_anomaly_count(m, MODEL_ANOM_REPORT_RETYPE, NULL, NULL), 0);
	ck_assert_uint_eq(model_anomaly_count(m, MODEL_ANOM_PB_TYPE_LEARNED, NULL, NULL), 1);
	done(m);
}
END_TEST

/* A later snapshot's counts re-type the weakest guesses only, and say how many. */
START_TEST(test_fit_guessed)
{
	const int types[8] = { MOV, MOV, MOV, MOV, MOV, MOV, MOV, UNMOV };
	struct model *m = mk_guess("6.18.44", types);
	int64_t want[8] = { 3, 5, 0, 0, 0, 0, 0, 0 };
	uint64_t counts[8];

	ck_assert_int_eq(model_set_pageblock_mt(m, Z + 2 * PB, MOV), 0);
	ck_assert_int_eq(model_set_pageblock_mt(m, Z + 2 * PB, UNMOV), 0);	/* known now */
	model_count_pageblocks(m, 0, counts);
	ck_assert_uint_eq(counts[UNMOV], 2);
	ck_assert_int_eq(model_fit_guessed_pageblocks(m, 0, want, NULL), 1);
	ck_assert_int_eq(type_of(m, 3), UNMOV);		/* the slab block */
	model_count_pageblocks(m, 0, counts);
	ck_assert_uint_eq(counts[UNMOV], 3);
	ck_assert_uint_eq(counts[MOV], 5);
	/* More than the guesses can give: the known block keeps its type. */
	want[UNMOV] = 0;
	want[MOV] = 8;
	ck_assert_int_eq(model_fit_guessed_pageblocks(m, 0, want, NULL), 2);
	ck_assert_int_eq(type_of(m, 2), UNMOV);
	done(m);
}
END_TEST

/*
 * Which guessed block a snapshot's counts re-type: pagetypeinfo's free blocks of
 * pageblock order per type decide whether it is a whole free pageblock. Block 1 is one
 * free order-9 block guessed Unmovable, block 5 guessed Unmovable holds anonymous pages
 * (the weakest evidence), block 3 slab; one Unmovable block must become Movable.
 * _i 0: no free counts (evidence: block 5); 1: the kernel has one more Movable and one
 * fewer Unmovable free order-9 block (block 1); 2: its free counts agree (not block 1).
 */
START_TEST(test_fit_whole_free)
{
	const int types[8] = { MOV, UNMOV, MOV, UNMOV, MOV, UNMOV, MOV, MOV };
	const int64_t want[8] = { 2, 6, 0, 0, 0, 0, 0, 0 };
	const int64_t free_moved[8] = { 0, 1, -1, -1, -1, -1, -1, -1 };
	const int64_t free_same[8] = { 1, 0, -1, -1, -1, -1, -1, -1 };
	const int64_t *want_free[3] = { NULL, free_moved, free_same };
	struct model *m = mk_guess("6.12.95", types);
	uint64_t *f = malloc(PB * sizeof(*f)), i;
	struct model_zone_stats zs;

	for (i = 0; i < PB; i++)
		f[i] = KPF_BIT(KPF_BUDDY);
	ck_assert_int_eq(model_seed_pfn_range(m, Z + PB, PB, f, NULL), 0);
	free(f);
	ck_assert_int_eq(model_zone_stats(m, 0, &zs), 0);
	ck_assert_uint_eq(zs.nr_free[9][UNMOV], 1);
	ck_assert_int_eq(model_fit_guessed_pageblocks(m, 0, want, want_free[_i]), 1);
	ck_assert_int_eq(type_of(m, 1), _i == 1 ? MOV : UNMOV);
	ck_assert_int_eq(type_of(m, 5), _i == 1 ? UNMOV : MOV);
	ck_assert_int_eq(type_of(m, 3), UNMOV);
	ck_assert_int_eq(model_zone_stats(m, 0, &zs), 0);
	ck_assert_uint_eq(zs.nr_free[9][MOV], _i == 1);
	done(m);
}
END_TEST

/*
 * The counts agree, the free lists of pageblock order do not: block 1, one free order-9
 * block guessed Unmovable, where the kernel has one more Movable and one fewer Unmovable
 * free order-9 block (a swap of two guesses the counts cannot see). Block 1 becomes
 * Movable and a guessed Movable block not free Unmovable: counts kept, the free lists
 * the kernel's. With the free counts agreeing, nothing moves.
 */
START_TEST(test_fit_free_swap)
{
	const int types[8] = { MOV, UNMOV, MOV, UNMOV, MOV, UNMOV, MOV, MOV };
	const int64_t want[8] = { 3, 5, 0, 0, 0, 0, 0, 0 };
	const int64_t free_moved[8] = { 0, 1, -1, -1, -1, -1, -1, -1 };
	const int64_t free_same[8] = { 1, 0, -1, -1, -1, -1, -1, -1 };
	struct model *m = mk_guess("6.12.95", types);
	uint64_t *f = malloc(PB * sizeof(*f)), i, counts[8];
	struct model_zone_stats zs;

	for (i = 0; i < PB; i++)
		f[i] = KPF_BIT(KPF_BUDDY);
	ck_assert_int_eq(model_seed_pfn_range(m, Z + PB, PB, f, NULL), 0);
	free(f);
	ck_assert_int_eq(model_fit_guessed_pageblocks(m, 0, want, free_same), 0);
	ck_assert_int_eq(type_of(m, 1), UNMOV);
	ck_assert_int_eq(model_fit_guessed_pageblocks(m, 0, want, free_moved), 2);
	ck_assert_int_eq(type_of(m, 1), MOV);
	model_count_pageblocks(m, 0, counts);
	ck_assert_uint_eq(counts[UNMOV], 3);
	ck_assert_uint_eq(counts[MOV], 5);
	ck_assert_int_eq(model_zone_stats(m, 0, &zs), 0);
	ck_assert_uint_eq(zs.nr_free[9][MOV], 1);
	ck_assert_uint_eq(zs.nr_free[9][UNMOV], 0);
	ck_assert_int_eq(model_recount(m, NULL, 0), 0);
	done(m);
}
END_TEST

/*
 * alloc_pages_bulk() (5.13+) takes order-0 pages off the pcp lists with no
 * mm_page_alloc: a free of a page held on a pcp list ends such an allocation on 6.1
 * and 6.12 (counted, not an anomaly); 5.10 has no bulk allocator.
 */
START_TEST(test_bulk_untraced)
{
	static const char *const rel[] = { "6.1.176", "6.12.95", "5.10.200" };
	const int types[8] = { MOV, MOV, MOV, MOV, MOV, MOV, MOV, MOV };
	struct model *m = mk_guess(rel[_i], types);
	struct model_pfn_info pi;
	struct model_stats st;
	bool bulk = _i < 2;

	ck_assert_int_eq(model_page_free(m, Z + 7, 0, 0), 0);
	ck_assert_int_eq(model_page_free(m, Z + 7, 0, 1), 0);
	model_get_stats(m, &st);
	ck_assert_uint_eq(st.bulk_allocs, bulk ? 1 : 0);
	ck_assert_uint_eq(model_anomaly_count(m, MODEL_ANOM_FREE_OF_PCP, NULL, NULL),
			  bulk ? 0 : 1);
	ck_assert_int_eq(model_pfn_info(m, Z + 7, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_PCP);
	ck_assert_int_eq(pi.cpu, 1);
	done(m);
}
END_TEST

Suite *guess_suite(void);

Suite *guess_suite(void)
{
	Suite *s = suite_create("guess");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_drain_corrects_guess, 0, 2);
	tcase_add_test(tc, test_zone_locked_corrects_guess);
	tcase_add_test(tc, test_fit_guessed);
	tcase_add_loop_test(tc, test_fit_whole_free, 0, 3);
	tcase_add_test(tc, test_fit_free_swap);
	tcase_add_loop_test(tc, test_bulk_untraced, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}
