/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmp-demand: one contiguous request of the demand served under a layout, with its
 * cost and, when it fails, what stopped each range tried:
 *   - from a reservation (memmap=nn$ss): the pages are outside the allocator; first
 *     fit in the area's bitmap at the request's natural alignment: served while it
 *     fits, nothing migrated;
 *   - from a CMA area, as cma_alloc() (mm/cma.c, 6.12): bitmap first fit at the
 *     request's order alignment, alloc_contig_range(MIGRATE_CMA) on the range, and past
 *     -EBUSY the next aligned free position; isolation of CMA pageblocks never refuses
 *     (has_unmovable_pages() returns NULL for MIGRATE_CMA), migration and the test do;
 *   - on demand, alloc_contig_pages() as hugetlb calls it: zones highest first,
 *     ZONE_MOVABLE only when the request is not gigantic (hugepage_movable_supported():
 *     gigantic pages never), candidates ALIGN(zone_start, nr) stepping by nr, ranges
 *     with a CMA pageblock refused (has_unmovable_pages() for a non-CMA caller).
 */
#ifndef BC_CMP_DEMAND_H
#define BC_CMP_DEMAND_H

#include <stdint.h>

struct model;

#define CMP_MAX_BLOCKERS 24

struct cmp_blocker {
	char name[40];			/* "STAGE:KIND" ("migration:slab"), "area-full" */
	uint64_t n;
};

struct cmp_blocker_set {
	int nr;
	struct cmp_blocker v[CMP_MAX_BLOCKERS];
};

/*
 * blockers: what stopped the ranges of the requests that failed (the "failures
 * and their blockers"); rejected: of every range tried and not taken, those before a
 * success too (the search's cost). A request's ranges wait in pending until
 * cmp_demand_settle() says how it ended.
 */
struct cmp_demand_stats {
	uint64_t asked, served;
	uint64_t pages_migrated, pages_scanned;	/* over the successes */
	struct cmp_blocker_set blockers, rejected, pending;
};

/* The request whose ranges are pending ended: @failed, their blockers count. */
void cmp_demand_settle(struct cmp_demand_stats *st, int failed);

/* A dedicated area: [start, start + nr_pages), its pages in use by the demand. */
struct cmp_area {
	uint64_t start, nr_pages;
	uint8_t *used;			/* one byte per page */
	int cma;			/* 1: a CMA area (alloc_contig_range), 0: reserved */
};

int cmp_area_init(struct cmp_area *a, uint64_t start, uint64_t nr_pages, int cma);
void cmp_area_release(struct cmp_area *a);
uint64_t cmp_area_used(const struct cmp_area *a);

/*
 * Serve one request of @nr pages from @a (NULL: on demand) in @m. Return: 0 and *@pfn
 * served, 1 failed (counted in @st's blockers), or a negative bc_err.
 */
int cmp_demand_one(struct model *m, struct cmp_area *a, uint64_t nr,
		   struct cmp_demand_stats *st, uint64_t *pfn);

#endif
