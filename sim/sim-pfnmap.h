/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim-pfnmap: which simulated pfn holds each page the kernel handed out during the
 * capture. The trace names an object by the kernel's pfn; the free-running model put
 * it elsewhere: a free of kernel pfn K releases the simulated page map(K). Both
 * directions are kept per page (4 bytes each way), so a free of part of an
 * allocation (split pages) and a folio the simulation migrates are followed too.
 */
#ifndef BC_SIM_PFNMAP_H
#define BC_SIM_PFNMAP_H

#include <stdint.h>

struct sim_pfnmap;

/* A map of pfns [0, @end) (at most 2^32 - 1). Return: 0 and *@out, or -BC_E_NOMEM /
 * -BC_E_INVAL. */
int sim_pfnmap_create(uint64_t end, struct sim_pfnmap **out);
void sim_pfnmap_destroy(struct sim_pfnmap *pm);

/* Kernel pages [@kpfn, +@n) are simulated pages [@spfn, +@n) (earlier mappings of
 * either side are dropped). Pages outside the map are ignored. */
void sim_pfnmap_set(struct sim_pfnmap *pm, uint64_t kpfn, uint64_t spfn, uint64_t n);
/* The simulated pfn of kernel pfn @kpfn, or UINT64_MAX when the capture did not hand
 * it out (allocated before it). */
uint64_t sim_pfnmap_sim(const struct sim_pfnmap *pm, uint64_t kpfn);
/* Start loading what a request on kernel pfn @kpfn will read: its entry (@deep 0),
 * then (@deep 1, once that entry is in) the reverse entry it leads to. */
void sim_pfnmap_prefetch(const struct sim_pfnmap *pm, uint64_t kpfn, int deep);
/* Is simulated pfn @spfn a page the simulation handed out for some kernel pfn? */
int sim_pfnmap_is_sim(const struct sim_pfnmap *pm, uint64_t spfn);
/* Is any of simulated pfns [@spfn, +@n) one (sim_pfnmap_is_sim())? */
int sim_pfnmap_any_sim(const struct sim_pfnmap *pm, uint64_t spfn, uint64_t n);
/* The kernel pfn whose page the simulation put at @spfn, UINT64_MAX when none. */
uint64_t sim_pfnmap_kernel(const struct sim_pfnmap *pm, uint64_t spfn);
/* Forget kernel pages [@kpfn, +@n) and their simulated pages. */
void sim_pfnmap_clear(struct sim_pfnmap *pm, uint64_t kpfn, uint64_t n);
/* The simulation moved its pages [@from, +@n) to [@to, +@n) (migration). */
void sim_pfnmap_moved(struct sim_pfnmap *pm, uint64_t from, uint64_t to, uint64_t n);

#endif
