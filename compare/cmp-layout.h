/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmp-layout: a what-if memory layout for `bigchunk compare`, parsed from its spec and
 * placed on a capture's physical layout as the kernel would place it at boot:
 *   asis               the traced machine;
 *   reserve:SIZE[@PFN] memmap=SIZE$ADDR (or reserved-memory, mem=): the range is not
 *                      RAM for the allocator; default place: the top of RAM;
 *   cma:SIZE[@PFN]     a CMA area: its pageblocks MIGRATE_CMA; default place: the top
 *                      of the highest zone's RAM, pageblock aligned (memblock top-down;
 *                      an assumption, cma=SIZE@ADDR fixes it);
 *   movable:SIZE       movablecore=SIZE, kernelcore:SIZE kernelcore=SIZE: ZONE_MOVABLE
 *                      from the pfn find_zone_movable_pfns_for_nodes() (mm/mm_init.c,
 *                      6.12) computes, one node; on a capture booted with a
 *                      ZONE_MOVABLE the option replaces the traced one (the zone
 *                      boundary moves);
 * joined with '+' ("movable:1G+reserve:256M"). Sizes in bytes with a unit, PFNs in
 * decimal or 0x hex.
 */
#ifndef BC_CMP_LAYOUT_H
#define BC_CMP_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

struct model_layout;

#define CMP_NOWHERE	UINT64_MAX	/* no place given: the kernel's default */

struct cmp_layout {
	char name[96];			/* the spec as given */
	uint64_t reserve_pages, reserve_pfn;
	uint64_t cma_pages, cma_pfn;
	uint64_t movablecore_pages, kernelcore_pages;
	bool reserve_default, cma_default;	/* placed by the default rule, not @PFN */
	uint64_t movable_traced_pfn;	/* the capture's own ZONE_MOVABLE start, resized by
					 * movable:/kernelcore: (0: the capture had none) */
};

/* Parse @spec. Return: 0, or -BC_E_INVAL (bc_errmsg() says why). */
int cmp_layout_parse(const char *spec, struct cmp_layout *out);

/* RAM pages of @L in [@start, @end) (its ram ranges; none: the zones' spans). */
uint64_t cmp_ram_pages(const struct model_layout *L, uint64_t start, uint64_t end);

/*
 * find_zone_movable_pfns_for_nodes() for one node: the first pfn of ZONE_MOVABLE
 * under @c's movablecore/kernelcore on @L (@max_order_pages: MAX_ORDER_NR_PAGES).
 * Return: 0 and *@pfn, 1 when the kernel would make no ZONE_MOVABLE.
 */
int cmp_movable_start(const struct model_layout *L, const struct cmp_layout *c,
		      uint64_t max_order_pages, uint64_t *pfn);

/*
 * @c's zones into @L before the model is built: the zone holding ZONE_MOVABLE's start
 * is cut there and a "Movable" zone appended; the reservation and the CMA area get
 * their places (c->reserve_pfn, c->cma_pfn; applied to the seeded model by
 * cmp-apply.h). Return: 0, or -BC_E_INVAL when a range does not fit.
 */
int cmp_layout_place(struct model_layout *L, struct cmp_layout *c);

#endif
