/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model-fault.h - run-time fault switches that reintroduce historical classes of kernel
 * bug into the model, so that each checker (checkers/) can be shown to catch the fault
 * it claims to (tests/test_checkers.c). Off unless a test turns them on; each bit is
 * one check at the exact decision point of the model, marked "fault:" there.
 *
 * The switches live beside the model, not in it: a small table keyed by the model's
 * address, so the model's state and journal are untouched. With no switch set anywhere
 * a check is one load and a branch.
 */
#ifndef BC_MODEL_FAULT_H
#define BC_MODEL_FAULT_H

#include <stdbool.h>

struct model;

enum model_fault {
	/* __free_one_page() merges a free block of an isolated pageblock with its
	 * non-isolated buddy at pageblock order (the merge-across-isolation bugs). */
	MODEL_FAULT_MERGE_ISOLATED	= 1u << 0,
	/* nr_free miscount: freeing an order-3 block onto a free list does not add its
	 * pages to the zone's free count (accounting drift). */
	MODEL_FAULT_NR_FREE		= 1u << 1,
	/* Undoing an isolation writes MOVABLE over the stored type, as before v6.17,
	 * on a kernel whose undo must keep it (a migratetype changed without cause). */
	MODEL_FAULT_UNDO_RETYPE		= 1u << 2,
	/* test_pages_isolated() steps over a page in use instead of stopping at it (a
	 * contiguous range taken with a page still in use). */
	MODEL_FAULT_TEST_SKIPS_USED	= 1u << 3,
	/* Not a kernel bug: the model's own allocations (free-list node pool, undo
	 * journal) fail, as out of memory would (the -BC_E_NOMEM path, tests/test_nomem.c). */
	MODEL_FAULT_NOMEM		= 1u << 4,
};

/* Set the fault bits of @m (0 clears them). Return: 0, or -BC_E_NOMEM. */
int model_set_faults(struct model *m, unsigned int faults);
unsigned int model_get_faults(const struct model *m);

extern unsigned int model_nr_faulty;	/* models with any bit set */

/* Is fault @f switched on for @m? */
static inline bool model_fault(const struct model *m, unsigned int f)
{
	return model_nr_faulty && (model_get_faults(m) & f);
}

#endif
