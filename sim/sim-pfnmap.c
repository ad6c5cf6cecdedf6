// SPDX-License-Identifier: GPL-2.0
/*
 * sim-pfnmap: kernel -> simulated pfn and back, as pfn + 1 (0 = none), in two-level
 * tables: a directory per direction of 1024-pfn leaves, the leaves handed out in
 * order from one arena the first time a pfn of theirs is written.
 *
 * A capture's requests name a small part of memory (frag.db: 830 leaves of 6,144),
 * and a fresh page of memory is zeroed by the kernel when first touched: flat arrays
 * over every pfn (THP-backed, so that lookups landing all over memory miss the TLB
 * rarely) made the simulation zero 2 MiB per region touched, a third of its time on
 * frag.db. Leaves packed in a THP-backed arena zero only what is used, and their
 * few huge pages keep the TLB misses rare. Leaves are never freed: the arena only
 * grows, up to every leaf of both directions.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "common/err.h"
#include "sim/sim-pfnmap.h"

#define LEAF_SHIFT	10
#define LEAF_PFNS	(1u << LEAF_SHIFT)

struct sim_pfnmap {
	uint64_t end;
	uint32_t *dir[2];		/* [0] kernel pfn, [1] simulated pfn -> leaf + 1 */
	uint32_t *arena;		/* leaves, LEAF_PFNS entries each */
	uint32_t nr_leaves, max_leaves;
	size_t arena_bytes;
};

enum { FWD, REV };

#define HUGE_BYTES	(2ul << 20)

int sim_pfnmap_create(uint64_t end, struct sim_pfnmap **out)
{
	uint64_t nr_dir = (end + LEAF_PFNS - 1) >> LEAF_SHIFT;
	struct sim_pfnmap *pm;
	void *p;

	*out = NULL;
	if (end >= UINT32_MAX)
		return bc_error(BC_E_INVAL, "pfn map: %llu pfns are too many",
				(unsigned long long)end);
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return bc_error(BC_E_NOMEM, "out of memory");
	pm->end = end;
	pm->max_leaves = (uint32_t)(2 * nr_dir);
	pm->dir[FWD] = calloc(nr_dir + 1, sizeof(uint32_t));
	pm->dir[REV] = calloc(nr_dir + 1, sizeof(uint32_t));
	pm->arena_bytes = ((size_t)pm->max_leaves * LEAF_PFNS * sizeof(uint32_t) + HUGE_BYTES - 1) &
			  ~(HUGE_BYTES - 1);
	p = pm->arena_bytes ? mmap(NULL, pm->arena_bytes, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) : NULL;
	if (p == MAP_FAILED)
		p = NULL;
	pm->arena = p;
	if (!pm->dir[FWD] || !pm->dir[REV] || (pm->arena_bytes && !pm->arena)) {
		sim_pfnmap_destroy(pm);
		return bc_error(BC_E_NOMEM, "out of memory (pfn map of %llu pfns)",
				(unsigned long long)end);
	}
	if (pm->arena)
		madvise(pm->arena, pm->arena_bytes, MADV_HUGEPAGE);	/* advice: no error */
	*out = pm;
	return 0;
}

void sim_pfnmap_destroy(struct sim_pfnmap *pm)
{
	if (!pm)
		return;
	if (pm->arena)
		munmap(pm->arena, pm->arena_bytes);
	free(pm->dir[FWD]);
	free(pm->dir[REV]);
	free(pm);
}

/* The entry of @pfn (< end) in direction @d, NULL when its leaf was never written. */
static inline uint32_t *entry(const struct sim_pfnmap *pm, int d, uint64_t pfn)
{
	uint32_t l = pm->dir[d][pfn >> LEAF_SHIFT];

	return l ? &pm->arena[(size_t)(l - 1) * LEAF_PFNS + (pfn & (LEAF_PFNS - 1))] : NULL;
}

static inline uint32_t get(const struct sim_pfnmap *pm, int d, uint64_t pfn)
{
	const uint32_t *e = entry(pm, d, pfn);

	return e ? *e : 0;
}

/* The entry of @pfn for a write: its leaf handed out now if it has none (zeroed memory). */
static inline uint32_t *slot(struct sim_pfnmap *pm, int d, uint64_t pfn)
{
	uint32_t *l = &pm->dir[d][pfn >> LEAF_SHIFT];

	if (!*l)
		*l = ++pm->nr_leaves;	/* at most 2 * directory entries: never past the arena */
	return &pm->arena[(size_t)(*l - 1) * LEAF_PFNS + (pfn & (LEAF_PFNS - 1))];
}

/* Drop the entry of @pfn in direction @d (no leaf is handed out for a zero). */
static inline void drop(struct sim_pfnmap *pm, int d, uint64_t pfn)
{
	uint32_t *e = entry(pm, d, pfn);

	if (e)
		*e = 0;
}

void sim_pfnmap_clear(struct sim_pfnmap *pm, uint64_t kpfn, uint64_t n)
{
	uint64_t k;

	for (k = kpfn; k < kpfn + n && k < pm->end; k++) {
		uint32_t s = get(pm, FWD, k);

		if (s && get(pm, REV, s - 1) == k + 1)
			drop(pm, REV, s - 1);
		drop(pm, FWD, k);
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
		uint32_t *f = slot(pm, FWD, kpfn + i), *r = slot(pm, REV, spfn + i);
		uint32_t s = *f, old = *r;

		if (s && get(pm, REV, s - 1) == kpfn + i + 1)
			drop(pm, REV, s - 1);
		if (old && get(pm, FWD, old - 1) == spfn + i + 1)
			drop(pm, FWD, old - 1);
		*f = (uint32_t)(spfn + i + 1);
		*r = (uint32_t)(kpfn + i + 1);
	}
	if (both < n && kpfn + both < pm->end)
		sim_pfnmap_clear(pm, kpfn + both, n - both);
}

uint64_t sim_pfnmap_sim(const struct sim_pfnmap *pm, uint64_t kpfn)
{
	uint32_t s = kpfn < pm->end ? get(pm, FWD, kpfn) : 0;

	return s ? s - 1 : UINT64_MAX;
}

void sim_pfnmap_prefetch(const struct sim_pfnmap *pm, uint64_t kpfn, int deep)
{
	const uint32_t *e;
	uint32_t s;

	if (kpfn >= pm->end)
		return;
	if (!deep) {
		e = entry(pm, FWD, kpfn);	/* the directories are small: cached */
		if (e)
			__builtin_prefetch(e);
		return;
	}
	s = get(pm, FWD, kpfn);
	e = entry(pm, REV, s ? s - 1 : kpfn);
	if (e)
		__builtin_prefetch(e);
}

int sim_pfnmap_is_sim(const struct sim_pfnmap *pm, uint64_t spfn)
{
	return spfn < pm->end && get(pm, REV, spfn) != 0;
}

int sim_pfnmap_any_sim(const struct sim_pfnmap *pm, uint64_t spfn, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n && spfn + i < pm->end; i++)
		if (get(pm, REV, spfn + i))
			return 1;
	return 0;
}

uint64_t sim_pfnmap_kernel(const struct sim_pfnmap *pm, uint64_t spfn)
{
	uint32_t k = spfn < pm->end ? get(pm, REV, spfn) : 0;

	return k ? k - 1 : UINT64_MAX;
}

void sim_pfnmap_moved(struct sim_pfnmap *pm, uint64_t from, uint64_t to, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n && from + i < pm->end && to + i < pm->end; i++) {
		uint32_t k = get(pm, REV, from + i);

		if (!k)
			continue;
		drop(pm, REV, from + i);
		*slot(pm, FWD, k - 1) = (uint32_t)(to + i + 1);
		*slot(pm, REV, to + i) = k;
	}
}
