/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim-figures: the figures a free-running simulation is judged by, computed from any
 * model state by the same code on both sides (the simulated model, and a model seeded
 * from the kernel's snapshot):
 *   - free blocks per zone, order and migratetype (buddyinfo by list), free pages
 *     (the buddy's: pcp pages are counted apart, on both sides);
 *   - pageblocks per type (pagetypeinfo's count);
 *   - pageblocks holding unmovable pages (in use, not movable: slab, page tables,
 *     kernel pages, and requests of an unmovable or reclaimable type), and those
 *     holding pages of unknown use too (snapshot pages with flags 0: pcp pages and
 *     kernel pages no flag shows); the unmovable pages;
 *   - the largest free naturally aligned block per zone (above MAX_PAGE_ORDER: runs of
 *     whole free pageblocks);
 *   - how many 2 MiB and 1 GiB allocations alloc_contig_pages() would get in a row
 *     (sim-contig.h; 4 KiB pages).
 */
#ifndef BC_SIM_FIGURES_H
#define BC_SIM_FIGURES_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

#define SIM_ORDERS	16		/* orders kept per zone */
#define SIM_MTS		8		/* migratetypes (trace numbering) */

struct sim_zone_figures {
	char name[16];
	uint64_t free_pages;		/* buddy, non-isolated lists */
	uint64_t pcp_pages;		/* on pcp lists, apart from free_pages: the simulated
					 * lists; on the kernel's side the pages the snapshot
					 * read with flags 0 that the trace shows on a pcp list
					 * (sim-seed.h) */
	uint64_t pcp_count;		/* pcp->count over the cpus: the simulation's; the
					 * kernel's as zoneinfo prints it at the snapshot's
					 * start (its pcp_pages are those the trace names) */
	uint64_t nr_free[SIM_ORDERS][SIM_MTS];	/* free blocks per order and list */
	uint64_t pageblocks[SIM_MTS];	/* per effective type, as pagetypeinfo counts */
	uint64_t pb_unmovable;		/* pageblocks holding unmovable pages */
	uint64_t pb_unmovable_unknown;	/* ... or pages of unknown use */
	uint64_t unmovable_pages;
	int largest_free_order;		/* -1: nothing free */
};

struct sim_figures {
	unsigned int nr_zones;
	unsigned int max_order;		/* of the model (orders kept: 0..max_order) */
	bool cma;			/* the profile's CONFIG_CMA (migratetype numbering) */
	struct sim_zone_figures zone[MODEL_MAX_ZONES];
	uint64_t pageblocks;		/* all counted pageblocks */
	uint64_t pb_unmovable, pb_unmovable_unknown, unmovable_pages, present_pages;
	uint64_t contig_2m, contig_1g;	/* allocations in a row that would succeed */
};

/*
 * Compute @out from @m. The 2 MiB and 1 GiB counts run hypothetical attempts inside a
 * checkpoint (the state is left as it was; a migrate hook would see their moves: unset
 * it first), with what @env (may be NULL) knows of pins (sim-contig.h). Return: 0, or
 * a negative bc_err.
 */
struct sim_contig_env;
int sim_figures_compute(struct model *m, const struct sim_contig_env *env,
			struct sim_figures *out);

/* Name of migratetype @mt (trace numbering; @cma: CONFIG_CMA) ("Unmovable", ...; "?"). */
const char *sim_mt_name(bool cma, int mt);
/* Number of migratetypes (with ISOLATE). */
int sim_nr_mts(bool cma);

/*
 * Every figure of @f as (zone, name, value), zone "" for the machine's: names
 * "free_pages", "pcp_pages", "pcp_count", "free_blocks.TYPE.ORDER", "pageblocks.TYPE", "pageblocks_unmovable",
 * "pageblocks_unmovable_or_unknown", "unmovable_pages", "largest_free_order" per zone;
 * "pageblocks", the same three unmovable figures, "present_pages", "contig_2m",
 * "contig_1g" for the machine. A non-zero return of @fn stops and is returned.
 */
int sim_figures_each(const struct sim_figures *f,
		     int (*fn)(void *arg, const char *zone, const char *name, int64_t value),
		     void *arg);

/*
 * The targets of a snapshot: simulated against the kernel. "Free pages per order
 * within 5% per zone": zone z's order o misses when its free blocks differ by more
 * than max(5% of the kernel's blocks, one block, SIM_ORDER_TOLERANCE pages): a count
 * of a few blocks cannot be within 5% but by being equal, and free_pcppages_bulk()
 * moves up to a batch (63 pages on zones above 1 GiB) of order-0 pages between the
 * pcp lists and the buddy at a time, so a one-drain difference is within the
 * tolerance. Every miss is listed (misses[]). Also given: the relative error where the
 * kernel holds at least SIM_ORDER_MEANINGFUL pages of the order, and the share
 * |sim - kernel| x 2^order over the zone's free pages for every order.
 */
#define SIM_ORDER_MEANINGFUL	64	/* pages */
#define SIM_ORDER_TOLERANCE	64	/* pages */
#define SIM_MAX_MISSES		16
#define SIM_ORDER_RULE	"a zone's order misses when its free blocks differ from the " \
			"kernel's by more than max(5% of the kernel's, 1 block, 64 pages)"
struct sim_order_miss {
	char zone[16];
	unsigned int order;
	uint64_t sim, kernel;		/* free blocks */
	uint64_t tolerance;		/* blocks */
};
struct sim_verdict {
	double pb_unmovable_err;	/* |sim - kernel| / kernel pageblocks holding unmovable */
	double free_order_err;		/* the share: max over zone, order: |sim - kernel| x
					 * 2^order over the kernel zone's free pages */
	char free_order_worst[32];	/* "Normal order 3" */
	double free_order_rel_err;	/* max over zone and meaningful order: relative */
	char free_order_rel_worst[32];
	unsigned int nr_misses;		/* zone orders out of the tolerance above */
	struct sim_order_miss misses[SIM_MAX_MISSES];	/* the first SIM_MAX_MISSES */
	bool pb_unmovable_ok;		/* within 5% */
	bool free_order_ok;		/* no miss */
	bool contig_2m_ok, contig_1g_ok;	/* equal */
};
/* The tolerance in blocks of an order @o the kernel has @k free blocks of. */
uint64_t sim_order_tolerance(uint64_t k, unsigned int o);
void sim_figures_verdict(const struct sim_figures *sim, const struct sim_figures *kernel,
			 struct sim_verdict *out);

#endif
