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

#include <stdint.h>

#include "model/model.h"

/* alloc_contig_range() (@mode MEM_OFFLINE: offline_pages()) of [@s, @s + @nr) as the
 * simulation makes it; *@res says how it went. Return: 0, or a negative bc_err. */
int sim_contig_range(struct model *m, uint64_t s, uint64_t nr, enum model_isolate_mode mode,
		     struct model_contig_result *res);
/* Allocate @nr_pages (a power of two) for real. Return: 0 and *@pfn, 1 when no
 * candidate succeeds, or a negative bc_err. */
int sim_contig_alloc(struct model *m, uint64_t nr_pages, uint64_t *pfn);
/*
 * How many allocations of @nr_pages[i] (each a power of two) would succeed in a row,
 * for each of the @n sizes from the same state: one pass over the candidates, each
 * success kept for the next (hugetlb's nr_hugepages growth, except that a candidate
 * failed once is not tried again). The state is put back as it was after each size.
 * Return: 0 and @counts[], or a negative bc_err.
 */
int sim_contig_count(struct model *m, const uint64_t *nr_pages, uint64_t *counts,
		     unsigned int n);
/* The same counts under the undo journal (model_checkpoint()/model_rollback()), as
 * simulate made them before: the benchmark's baseline and the tests' cross-check. */
int sim_contig_count_journal(struct model *m, const uint64_t *nr_pages, uint64_t *counts,
			     unsigned int n);
/* offline_pages() of [@start, @start + @nr_pages). Return: 0 done, 1 refused (the
 * model's stage said no), or a negative bc_err. */
int sim_offline(struct model *m, uint64_t start, uint64_t nr_pages);

#endif
