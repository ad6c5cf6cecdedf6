// SPDX-License-Identifier: GPL-2.0
/*
 * Out of memory in the model returns -BC_E_NOMEM instead of aborting (common/err.h:
 * libraries return errors). MODEL_FAULT_NOMEM (model/model-fault.h) makes the model's
 * own allocations fail: the free-list node pool and the undo journal. A test that
 * aborted would be reported by Check as an error (signal), not a pass.
 *
 * The map: one zone "Normal" of 4096 pfns at Z (8 pageblocks of 512), pageblock_order
 * 9, MAX_PAGE_ORDER 10, 2 cpus, profile 6.18.44.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/kpageflags.h"
#include "model/model-fault.h"
#include "model/model.h"

#define Z	0x40000ull
#define NPFN	4096u


static const struct model_layout layout = {
	.nr_zones = 1,
	.zones = { { .name = "Normal", .start_pfn = Z, .spanned = NPFN, .present = NPFN,
		     .managed = NPFN } },
	.pageblock_order = 9, .max_page_order = 10, .nr_cpus = 2, .memory_block_pages = 32768,
};

static struct model *mk(void)
{
	struct model_profile p;
	struct model *m;

	model_profile_from_release("6.18.44", 9, &p);
	m = model_create(&layout, &p);
	ck_assert_ptr_nonnull(m);
	return m;
}

/* Seed [Z + off, Z + off + n) with @flags on every page. Return: the model's answer. */
static int seed(struct model *m, uint64_t off, uint64_t n, uint64_t flags)
{
	uint64_t *f = malloc(n * sizeof(*f)), i;
	int ret;

	ck_assert_ptr_nonnull(f);
	for (i = 0; i < n; i++)
		f[i] = flags;
	ret = model_seed_pfn_range(m, Z + off, n, f, NULL);
	free(f);
	return ret;
}

/* |free 0..1024|in use 1024..4096| under a checkpoint. */
static struct model *mk_checkpointed(void)
{
	struct model *m = mk();

	ck_assert_int_eq(seed(m, 0, 1024, KPF_BIT(KPF_BUDDY)), 0);
	ck_assert_int_eq(seed(m, 1024, NPFN - 1024, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON)), 0);
	ck_assert_int_eq(model_checkpoint(m), 0);
	return m;
}

/*
 * After a -BC_E_NOMEM, with the allocations working again: every call that changes
 * the model still refuses with -BC_E_NOMEM (the model is broken). Frees @m.
 */
static void assert_broken(struct model *m)
{
	ck_assert_int_eq(model_set_faults(m, 0), 0);
	ck_assert_int_eq(model_page_alloc(m, Z + 64, 0, 0xcc0, 0, 0), -BC_E_NOMEM);
	ck_assert_int_eq(model_page_free(m, Z + 65, 0, 0), -BC_E_NOMEM);
	ck_assert_int_eq(model_checkpoint(m), -BC_E_NOMEM);
	ck_assert_int_eq(seed(m, 0, 512, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON)), -BC_E_NOMEM);
	model_destroy(m);
}

/*
 * |Z+0 ... all in use ... Z+4096|, no free block yet, so the node pool is empty.
 * An order-0 free goes to the pcp list and needs the pool's first node.
 * Expect -BC_E_NOMEM from that free, and from every later change even with the
 * allocations working again (the model is half-updated).
 */
START_TEST(test_nomem_node_pool)
{
	struct model *m = mk();

	ck_assert_int_eq(seed(m, 0, NPFN, KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON)), 0);
	ck_assert_int_eq(model_set_faults(m, MODEL_FAULT_NOMEM), 0);
	ck_assert_int_eq(model_page_free(m, Z + 1, 0, 0), -BC_E_NOMEM);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "node pool"));
	assert_broken(m);
}
END_TEST

/*
 * Seeding |free 0..1024|in use ...| builds free blocks from the node pool.
 * Expect -BC_E_NOMEM from model_seed_pfn_range().
 */
START_TEST(test_nomem_seed)
{
	struct model *m = mk();

	ck_assert_int_eq(model_set_faults(m, MODEL_FAULT_NOMEM), 0);
	ck_assert_int_eq(seed(m, 0, 1024, KPF_BIT(KPF_BUDDY)), -BC_E_NOMEM);
	assert_broken(m);
}
END_TEST

/*
 * mk_checkpointed(): the first journaled write needs the journal's first allocation.
 * The free itself is done (the state stays right), but it cannot be undone.
 * Expect model_rollback() == -BC_E_NOMEM, then refusals.
 */
START_TEST(test_nomem_journal)
{
	struct model *m = mk_checkpointed();

	ck_assert_int_eq(model_set_faults(m, MODEL_FAULT_NOMEM), 0);
	ck_assert_int_eq(model_page_free(m, Z + 2048, 0, 0), 0);
	ck_assert_int_eq(model_set_faults(m, 0), 0);
	ck_assert_int_eq(model_rollback(m), -BC_E_NOMEM);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "out of memory"));
	assert_broken(m);
}
END_TEST

/* Expect no error at all with the switch off: the same steps succeed. */
START_TEST(test_nomem_off)
{
	struct model *m = mk_checkpointed();

	ck_assert_int_eq(model_page_free(m, Z + 2048, 0, 0), 0);
	ck_assert_int_eq(model_rollback(m), 0);
	ck_assert_int_eq(model_recount(m, NULL, 0), 0);
	model_destroy(m);
}
END_TEST

Suite *nomem_suite(void);

Suite *nomem_suite(void)
{
	Suite *s = suite_create("nomem");
	TCase *limits = tcase_create("limits");

	tcase_add_test(limits, test_nomem_node_pool);
	tcase_add_test(limits, test_nomem_seed);
	tcase_add_test(limits, test_nomem_journal);
	tcase_add_test(limits, test_nomem_off);
	suite_add_tcase(s, limits);
	return s;
}
