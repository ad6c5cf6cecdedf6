/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Assertion tiers of the model, keyed on MODEL_DEBUG (the Makefile passes
 * -DMODEL_DEBUG=$(DEBUG), 0..2):
 *
 *   MODEL_BUG_ON(cond, m, pfn)     MODEL_DEBUG >= 1: cheap precondition; dumps the pfn's
 *                                  word and its pageblock, then aborts.
 *   MODEL_ASSERT_EXPENSIVE(expr)   MODEL_DEBUG >= 2: whole-structure checks such as
 *                                  model_recount() == 0.
 *
 * With the tier off, the expression is still type-checked but never evaluated
 * (as BUILD_BUG_ON_INVALID does for VM_BUG_ON without CONFIG_DEBUG_VM).
 */
#ifndef BC_MODEL_DEBUG_H
#define BC_MODEL_DEBUG_H

#include <stdlib.h>

#ifndef MODEL_DEBUG
#define MODEL_DEBUG 1
#endif

struct model;
void model_dump_pfn(const struct model *m, unsigned long long pfn, const char *why,
		    const char *file, int line);

#define MODEL_CHECK_INVALID(e) ((void)sizeof((long)(e)))

#if MODEL_DEBUG >= 1
#define MODEL_BUG_ON(cond, m, pfn)						\
	do {									\
		if (__builtin_expect(!!(cond), 0)) {				\
			model_dump_pfn((m), (pfn), #cond, __FILE__, __LINE__);	\
			abort();						\
		}								\
	} while (0)
#else
#define MODEL_BUG_ON(cond, m, pfn)						\
	do {									\
		MODEL_CHECK_INVALID(cond);					\
		(void)(m);							\
		(void)(pfn);							\
	} while (0)
#endif

#if MODEL_DEBUG >= 2
#define MODEL_ASSERT_EXPENSIVE(expr)						\
	do {									\
		if (!(expr)) {							\
			model_dump_pfn(NULL, 0, #expr, __FILE__, __LINE__);	\
			abort();						\
		}								\
	} while (0)
#else
#define MODEL_ASSERT_EXPENSIVE(expr) MODEL_CHECK_INVALID(expr)
#endif

#endif
