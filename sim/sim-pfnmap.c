// SPDX-License-Identifier: GPL-2.0
/*
 * sim-pfnmap: two flat arrays of pfn + 1 (0 = none), kernel -> simulated and back.
 * Anonymous mappings leave untouched pages of the arrays unmapped, so a sparse
 * capture costs what it touches.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "common/err.h"
#include "sim/sim-pfnmap.h"

struct sim_pfnmap {
	uint64_t end;
	uint32_t *fwd;			/* kernel pfn -> simulated pfn + 1 */
	uint32_t *rev;			/* simulated pfn -> kernel pfn + 1 */
	size_t bytes;			/* of each mapping */
};

#define HUGE_BYTES	(2ul << 20)

/*
 * A zeroed array of @bytes, untouched pages unmapped. Transparent huge pages where
 * the kernel gives them: lookups land all over the pfn range, and a 4 KiB page per
 * fault and per TLB entry made the map the simulation's largest cost.
 */
static uint32_t *map_zeroed(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, bytes, MADV_HUGEPAGE);	/* advice: no error if refused */
	return p;
}

int sim_pfnmap_create(uint64_t end, struct sim_pfnmap **out)
{
	struct sim_pfnmap *pm;

	*out = NULL;
	if (end >= UINT32_MAX)
		return bc_error(BC_E_INVAL, "pfn map: %llu pfns are too many",
				(unsigned long long)end);
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return bc_error(BC_E_NOMEM, "out of memory");
	pm->end = end;
	pm->bytes = ((end + 1) * sizeof(uint32_t) + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
	pm->fwd = map_zeroed(pm->bytes);
	pm->rev = map_zeroed(pm->bytes);
	if (!pm->fwd || !pm->rev) {
		sim_pfnmap_destroy(pm);
		return bc_error(BC_E_NOMEM, "out of memory (pfn map of %llu pfns)",
				(unsigned long long)end);
	}
	*out = pm;
	return 0;
}

void sim_pfnmap_destroy(struct sim_pfnmap *pm)
{
	if (!pm)
		return;
	if (pm->fwd)
		munmap(pm->fwd, pm->bytes);
	if (pm->rev)
		munmap(pm->rev, pm->bytes);
	free(pm);
}

void sim_pfnmap_clear(struct sim_pfnmap *pm, uint64_t kpfn, uint64_t n)
{
	uint64_t k;

	for (k = kpfn; k < kpfn + n && k < pm->end; k++) {
		uint32_t s = pm->fwd[k];

		if (s && pm->rev[s - 1] == k + 1)
			pm->rev[s - 1] = 0;
		pm->fwd[k] = 0;
	}
}

void sim_pfnmap_set(struct sim_pfnmap *pm, uint64_t kpfn, uint64_t spfn, uint64_t n)
{
	uint64_t i, both = 0;

	/*
	 * One pass: kernel page kpfn + i drops its old simulated page, simulated page
	 * spfn + i its old kernel page, then the two point at each other. A page of
	 * either side met again later in the pass finds its link already dropped, as
	 * when every kernel page was cleared first.
	 */
	if (kpfn < pm->end && spfn < pm->end) {
		both = n;
		if (both > pm->end - kpfn)
			both = pm->end - kpfn;
		if (both > pm->end - spfn)
			both = pm->end - spfn;
	}
	for (i = 0; i < both; i++) {
		uint32_t s = pm->fwd[kpfn + i], old = pm->rev[spfn + i];

		if (s && pm->rev[s - 1] == kpfn + i + 1)
			pm->rev[s - 1] = 0;
		if (old && pm->fwd[old - 1] == spfn + i + 1)
			pm->fwd[old - 1] = 0;
		pm->fwd[kpfn + i] = (uint32_t)(spfn + i + 1);
		pm->rev[spfn + i] = (uint32_t)(kpfn + i + 1);
	}
	if (both < n && kpfn + both < pm->end)
		sim_pfnmap_clear(pm, kpfn + both, n - both);
}

uint64_t sim_pfnmap_sim(const struct sim_pfnmap *pm, uint64_t kpfn)
{
	return kpfn < pm->end && pm->fwd[kpfn] ? pm->fwd[kpfn] - 1 : UINT64_MAX;
}

void sim_pfnmap_prefetch(const struct sim_pfnmap *pm, uint64_t kpfn, int deep)
{
	uint32_t s;

	if (kpfn >= pm->end)
		return;
	if (!deep) {
		__builtin_prefetch(&pm->fwd[kpfn]);
		return;
	}
	s = pm->fwd[kpfn];
	__builtin_prefetch(&pm->rev[s ? s - 1 : kpfn]);
}

int sim_pfnmap_is_sim(const struct sim_pfnmap *pm, uint64_t spfn)
{
	return spfn < pm->end && pm->rev[spfn] != 0;
}

void sim_pfnmap_moved(struct sim_pfnmap *pm, uint64_t from, uint64_t to, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n && from + i < pm->end && to + i < pm->end; i++) {
		uint32_t k = pm->rev[from + i];

		if (!k)
			continue;
		pm->rev[from + i] = 0;
		pm->fwd[k - 1] = (uint32_t)(to + i + 1);
		pm->rev[to + i] = k;
	}
}
