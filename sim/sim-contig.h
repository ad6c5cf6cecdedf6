/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim-contig: contiguous allocations made by the model itself, as the kernel would
 * make them: alloc_contig_pages() as hugetlb calls it (zones highest first, never
 * ZONE_MOVABLE; candidates ALIGN(zone_start, nr) stepping by nr inside the zone; each
 * through model_alloc_contig_range(): pfn_range_valid_contig(), isolation, migration,
 * test), and offline_pages() of a given range. The same search as predict's mainline
 * policy, without what only a replay knows (LRU batches, pins seen by real attempts).
 */
#ifndef BC_SIM_CONTIG_H
#define BC_SIM_CONTIG_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

struct tdb_pins;

/*
 * What the simulation knows of pages and the model does not, for the model's own
 * contiguous attempts (@env of the functions below; NULL: nothing): the long-term
 * pins a snapshot lists (longterm_pins: io_uring registered buffers), by the kernel's
 * pfn, and the kernel pfn of a simulated one (where the kernel has the page the
 * simulation put at @spfn; NULL: the same pfn). migrate_pages() cannot move a pinned
 * page (its raised refcount fails the move), so an attempt over one fails in migration,
 * as the kernel's attempts on those pages did.
 */
struct sim_contig_env {
	const struct tdb_pins *pins;
	uint64_t (*kernel_pfn)(void *arg, uint64_t spfn);
	void *arg;
};

/* alloc_contig_range() (@mode MEM_OFFLINE: offline_pages()) of [@s, @s + @nr) as the
 * simulation makes it; *@res says how it went. Return: 0, or a negative bc_err. */
int sim_contig_range(struct model *m, uint64_t s, uint64_t nr, enum model_isolate_mode mode,
		     const struct sim_contig_env *env, struct model_contig_result *res);
/* Allocate @nr_pages (a power of two) for real. Return: 0 and *@pfn, 1 when no
 * candidate succeeds, or a negative bc_err. */
int sim_contig_alloc(struct model *m, uint64_t nr_pages, const struct sim_contig_env *env,
		     uint64_t *pfn);
/*
 * How many allocations of @nr_pages[i] (each a power of two) would succeed in a row,
 * for each of the @n sizes from the same state: one pass over the candidates, each
 * success kept for the next (hugetlb's nr_hugepages growth, except that a candidate
 * failed once is not tried again). The state is put back as it was after each size.
 * Return: 0 and @counts[], or a negative bc_err.
 */
int sim_contig_count(struct model *m, const uint64_t *nr_pages, uint64_t *counts,
		     unsigned int n, const struct sim_contig_env *env);
/* The same counts under the undo journal (model_checkpoint()/model_rollback()), as
 * simulate made them before: the benchmark's baseline and the tests' cross-check. */
int sim_contig_count_journal(struct model *m, const uint64_t *nr_pages, uint64_t *counts,
			     unsigned int n);
/*
 * The CMA area a contiguous allocation the kernel made at [@pfn, @pfn + @nr) came from:
 * when every pageblock of it is MIGRATE_CMA (cma_alloc() takes only from its area),
 * the run of MIGRATE_CMA pageblocks around it in its zone, [*@start, *@end).
 * Return: 1 and the area, 0 when the range is not a CMA area's.
 */
int sim_cma_area(struct model *m, uint64_t pfn, uint64_t nr, uint64_t *start, uint64_t *end);
/*
 * cma_alloc() of @nr pages from the area [@start, @end): the first position at @nr's
 * alignment (a pageblock when @nr is not a power of two) that @used (may be NULL:
 * the area's bitmap, what earlier allocations hold) leaves free and that
 * alloc_contig_range(MIGRATE_CMA) serves. Return: 0 and *@pfn, 1 when none does, or a
 * negative bc_err.
 */
int sim_cma_alloc(struct model *m, uint64_t start, uint64_t end, uint64_t nr,
		  bool (*used)(void *arg, uint64_t pfn, uint64_t nr), void *arg, uint64_t *pfn);
/* offline_pages() of [@start, @start + @nr_pages). Return: 0 done, 1 refused (the
 * model's stage said no), or a negative bc_err. */
int sim_offline(struct model *m, uint64_t start, uint64_t nr_pages,
		const struct sim_contig_env *env);

#endif
