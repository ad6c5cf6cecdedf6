/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmp-run: one what-if layout run over a capture (`bigchunk compare`). The capture's
 * requests run through the free-running simulator (sim/sim.h) on the layout placed at
 * boot (cmp-layout.h); at each demand time the demand (count x nr_pages) is asked,
 * and every real contiguous attempt of the capture is asked too, on demand
 * (cmp-demand.h): the successful ones and the failed ones (the kernel's failed
 * alloc_contig_pages() calls and hugetlb probe steps, sim-requests.h); a failed one
 * the layout serves keeps its pages to the end, as the demand does. What the seed holds where the layout forbids it (unmovable pages in
 * ZONE_MOVABLE or the CMA area) moves out at the start, to where the model's own
 * allocator puts it (the kernel would never have placed them there); a seed page in a
 * reservation is gone with it (counted). In a CMA area the seed's pcp pages go to the
 * buddy, and movable seed pages move out while the rest of the zone has more free
 * pages than the area (__rmqueue()'s CMA balance held from boot: an assumption).
 * Deterministic; prints nothing.
 */
#ifndef BC_CMP_RUN_H
#define BC_CMP_RUN_H

#include <stdint.h>

#include "compare/cmp-demand.h"
#include "compare/cmp-layout.h"
#include "model/model.h"

struct tdb;

#define CMP_MAX_PFNS 64

struct cmp_opts {
	uint64_t nr_pages;		/* the demand's size, pages */
	unsigned int count;		/* requests at each time */
	const uint64_t *ts;		/* demand times (trace ts, ascending) */
	int nr_ts;
	uint64_t every_ns;		/* or every D from the first request (predict's) */
	void (*note)(void *arg, const char *text);
	void *arg;
};

/* A zone at the end of the run (to set against a kernel booted with the layout). */
struct cmp_zone {
	char name[16];
	uint64_t start_pfn, spanned, present, managed;
	uint64_t free_pages, pcp_pages;	/* buddy (buddyinfo's sum), per-cpu lists */
	uint64_t pageblocks[8];		/* per type (trace numbering), as pagetypeinfo */
};

/* One real attempt of the capture (an alloc_contig_pages() call) asked under the layout. */
struct cmp_real {
	uint64_t ts, nr_pages;
	bool kernel_served;		/* what the traced kernel did */
	bool served;			/* what the layout did */
	uint64_t pfn;			/* served: where */
};

struct cmp_result {
	struct cmp_layout layout;	/* placed */
	uint64_t movable_start;		/* ZONE_MOVABLE's first pfn, 0 none */
	struct cmp_demand_stats demand;	/* the demand and the real attempts */
	uint64_t real_attempts, real_served;	/* the capture's calls, failed ones too */
	uint64_t real_kernel_served;		/* of them, those the kernel served */
	struct cmp_real real[CMP_MAX_PFNS];	/* the first real attempts, in order */
	unsigned int nr_real;
	uint64_t served_reserve, served_cma;	/* the demand's successes from the areas */
	uint64_t served_pfns[CMP_MAX_PFNS];	/* the demand's first successes (not the real ones) */
	unsigned int nr_served_pfns;
	double idle_page_seconds;	/* reserved or CMA-free pages not used by the demand */
	uint64_t requests, fallbacks, needed_reclaim;
	uint64_t wmark_breaches;	/* allocations that left their zone at or below its low
					 * watermark (sim-apply.h, model_low_wmark_breached()) */
	uint64_t unmovable_pageblocks;	/* at the end: pageblocks holding unmovable pages */
	uint64_t seed_moved_pages;	/* seed pages moved out of where the layout forbids them */
	uint64_t initialised;	/* ZONE_MOVABLE pages uninitialised in the seed, freed
					 * into it as deferred init would (cmp-apply.h) */
	uint64_t frees_scattered;	/* frees of blocks whose seed pages moved one by one */
	uint64_t frees_in_reserve;	/* frees of pages the seed showed free in a reservation */
	uint64_t frees_overlapping;	/* frees of seed blocks now partly free: skipped */
	unsigned int nr_zones;
	struct cmp_zone zone[MODEL_MAX_ZONES];
};

/* Run layout @c on @db. Return: 0 and *@out, or a negative bc_err. */
int cmp_run(struct tdb *db, const struct cmp_layout *c, const struct cmp_opts *o,
	    struct cmp_result *out);

#endif
