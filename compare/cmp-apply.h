/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmp-apply: a what-if layout applied to a seeded model, as the kernel would have had
 * it from boot. The seed was read on the traced machine, so what it holds where the
 * layout forbids it moves out first, to where the model's own allocator
 * (model_alloc_block(): __rmqueue() without CMA) puts a page of its kind, and the pfn
 * map of the simulation (@ap, may be NULL) follows it (an assumption: the kernel
 * would have placed it there from the start):
 *   - ZONE_MOVABLE (cut by cmp-layout.h): pages in use that are not movable move to
 *     the zone below; the zone gets watermarks and pcp bounds (see cmp-apply.c);
 *     its pages the seed shows uninitialised (lazy memmap init) are freed into it,
 *     as deferred init would at boot, and counted in *@initialised;
 *   - a CMA area: its pageblocks become MIGRATE_CMA (init_cma_reserved_pageblock();
 *     model_set_cma()), its uninitialised pages are freed into it (cma_activate_area()
 *     frees every page of the area at boot; counted in *@initialised, may be NULL),
 *     unmovable pages move out;
 *   - a reservation (memmap=nn$ss): every page in use moves out, then the range is one
 *     allocation of kind "reserved", never freed (PageReserved, outside the buddy).
 * Each adds the pages it moved to *@moved.
 */
#ifndef BC_CMP_APPLY_H
#define BC_CMP_APPLY_H

#include <stdint.h>

struct model;
struct sim_apply;

#define CMP_TRACE_MT_CMA	4	/* trace numbering with CONFIG_CMA */

/*
 * A default-placed area of @nr_pages at *@start (cmp-layout.h: the top of RAM) that
 * holds memory offline or not initialised in the seed (a memory block offlined since
 * boot, which the kernel had at boot), or PageReserved boot memory (memblock places
 * the memmap top-down after the CMA area, x86 setup_arch()): the highest window below
 * it, @align aligned, of memory online, initialised and not reserved takes its place.
 * Return: 0 (*@start may move), or -BC_E_INVAL when no window fits.
 */
int cmp_apply_online_window(struct model *m, uint64_t *start, uint64_t nr_pages,
			    uint64_t align);

/*
 * @traced_start: the capture's own ZONE_MOVABLE start when the layout resized it (0
 * none): its watermarks join the zone below's before the split, and only pages below
 * it move out (what the traced kernel put in its ZONE_MOVABLE stays).
 */
int cmp_apply_movable(struct model *m, struct sim_apply *ap, uint64_t movable_start,
		      uint64_t traced_start, uint64_t *moved, uint64_t *initialised);
int cmp_apply_cma(struct model *m, struct sim_apply *ap, uint64_t start, uint64_t nr_pages,
		  uint64_t *moved, uint64_t *initialised);
int cmp_apply_reserve(struct model *m, struct sim_apply *ap, uint64_t start,
		      uint64_t nr_pages, uint64_t *moved);

#endif
