// SPDX-License-Identifier: GPL-2.0
/* sim-contig: the model's own alloc_contig_pages() and offline_pages() (sim-contig.h). */
#include <stdbool.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-snap.h"
#include "model/model.h"
#include "sim/sim-contig.h"

#define SIM_TRACE_MT_CMA	4	/* MIGRATE_CMA, trace numbering of a CONFIG_CMA kernel */

/* Is kernel pfn @k in a run of @p (runs sorted by pfn)? */
static bool pinned(const struct tdb_pins *p, uint64_t k)
{
	int lo = 0, hi = p->nr;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (p->runs[mid].pfn + p->runs[mid].nr <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nr && p->runs[lo].pfn <= k;
}

/* model_contig_req's before_migrate(): the first page in use of [@s, @e) pinned. */
static int pins_before_migrate(void *arg, struct model *m, uint64_t s, uint64_t e,
			       uint64_t *pin)
{
	const struct sim_contig_env *env = arg;
	struct model_pfn_info pi;
	uint64_t p;

	for (p = s; p < e; p++) {
		uint64_t k = env->kernel_pfn ? env->kernel_pfn(env->arg, p) : p;

		if (!pinned(env->pins, k))
			continue;
		if (!model_pfn_info(m, p, &pi) && pi.state == MODEL_PFN_ALLOC) {
			*pin = p;
			return 0;
		}
	}
	return 0;
}

int sim_contig_range(struct model *m, uint64_t s, uint64_t nr, enum model_isolate_mode mode,
		     const struct sim_contig_env *env, struct model_contig_result *res)
{
	struct model_contig_req req = {
		.start = s, .end = s + nr, .mode = mode,
		.kind = mode == MODEL_ISOLATE_MEM_OFFLINE ? MODEL_KIND_OFFLINE : MODEL_KIND_HUGETLB,
		/* as predict: 6.18 slab pages pass has_unmovable_pages() at refcount 0 */
		.flags = model_get_profile(m)->version >= MODEL_KVER(6, 18, 0) ?
			 MODEL_CONTIG_SLAB_REFCOUNT_ZERO : 0,
		.before_migrate = env && env->pins && env->pins->nr ? pins_before_migrate : NULL,
		.arg = (void *)env,
	};

	/* an end past 2^64 would wrap to a small pfn: refuse it as the empty range it is */
	if (!nr || s > UINT64_MAX - nr) {
		memset(res, 0, sizeof(*res));
		res->pfn = res->outer_start = UINT64_MAX;
		return bc_error(BC_E_INVAL, "sim: contiguous range of %llu pages at %#llx: %s",
				(unsigned long long)nr, (unsigned long long)s,
				nr ? "its end is past the last pfn (overflows)" : "empty");
	}
	return model_alloc_contig_range(m, &req, res);
}

static int try_range(struct model *m, uint64_t s, uint64_t nr, enum model_isolate_mode mode,
		     const struct sim_contig_env *env)
{
	struct model_contig_result res;
	int ret = sim_contig_range(m, s, nr, mode, env, &res);

	if (ret)
		return ret;
	return res.ret == 0 ? 0 : 1;
}

/*
 * Every candidate of alloc_contig_pages(@nr) in order; @fn gets each one that
 * succeeded and returns non-zero to stop.
 */
static int search(struct model *m, uint64_t nr, const struct sim_contig_env *env,
		  int (*fn)(void *arg, uint64_t pfn), void *arg)
{
	const struct model_layout *L = model_get_layout(m);
	int z, ret;

	if (!nr || (nr & (nr - 1)))
		return -BC_E_INVAL;
	for (z = (int)L->nr_zones - 1; z >= 0; z--) {
		const struct model_zone_layout *zl = &L->zones[z];
		uint64_t s, end = zl->start_pfn + zl->spanned;

		if (!zl->spanned || zl->movable || !strcmp(zl->name, "Movable"))
			continue;
		for (s = (zl->start_pfn + nr - 1) / nr * nr; s + nr <= end; s += nr) {
			ret = try_range(m, s, nr, MODEL_ISOLATE_OTHER, env);
			if (ret < 0)
				return ret;
			if (!ret && fn(arg, s))
				return 0;
		}
	}
	return 0;
}

static int found_first(void *arg, uint64_t pfn)
{
	*(uint64_t *)arg = pfn;
	return 1;
}

int sim_contig_alloc(struct model *m, uint64_t nr_pages, const struct sim_contig_env *env,
		     uint64_t *pfn)
{
	int ret;

	*pfn = UINT64_MAX;
	ret = search(m, nr_pages, env, found_first, pfn);
	return ret ? ret : *pfn == UINT64_MAX ? 1 : 0;
}

static int count_one(void *arg, uint64_t pfn)
{
	(*(uint64_t *)arg)++;
	return 0;
}

/* One count from the state as it is: drain, then the search. */
static int count_from_here(struct model *m, uint64_t nr_pages, const struct sim_contig_env *env,
			   uint64_t *count)
{
	const struct model_layout *L = model_get_layout(m);
	unsigned int zi;
	int ret = 0;

	*count = 0;
	/*
	 * alloc_contig_range()'s drain_all_pages(): the first attempt empties the pcp
	 * lists, a failed one does not refill them; drained once here, the attempts' own
	 * drains find nothing.
	 */
	for (zi = 0; !ret && zi < L->nr_zones; zi++)
		if (L->zones[zi].spanned)
			ret = model_drain_zone(m, L->zones[zi].start_pfn);
	if (!ret)
		ret = search(m, nr_pages, env, count_one, count);
	return ret;
}

int sim_contig_count(struct model *m, const uint64_t *nr_pages, uint64_t *counts,
		     unsigned int n, const struct sim_contig_env *env)
{
	struct model_state *saved;
	unsigned int i;
	int ret, ret2 = 0;

	for (i = 0; i < n; i++)
		counts[i] = 0;
	/*
	 * The attempts write the model directly (under the undo journal, an entry per
	 * word migrated cost gigabytes on a 1 GiB search); one copy puts it back after
	 * each size.
	 */
	ret = model_state_save(m, &saved);
	for (i = 0; !ret && !ret2 && i < n; i++) {
		ret = count_from_here(m, nr_pages[i], env, &counts[i]);
		ret2 = model_state_restore(m, saved);
	}
	model_state_free(saved);
	return ret ? ret : ret2;
}

int sim_contig_count_journal(struct model *m, const uint64_t *nr_pages, uint64_t *counts,
			     unsigned int n)
{
	unsigned int i;
	int ret = 0, ret2 = 0;

	for (i = 0; i < n; i++)
		counts[i] = 0;
	for (i = 0; !ret && !ret2 && i < n; i++) {
		ret = model_checkpoint(m);
		if (ret)
			break;
		ret = count_from_here(m, nr_pages[i], NULL, &counts[i]);
		ret2 = model_rollback(m);
	}
	return ret ? ret : ret2;
}

/* Is the pageblock of @pfn a MIGRATE_CMA one (its stored type, trace numbering)? */
static bool cma_block(struct model *m, uint64_t pfn)
{
	int stored, eff;
	bool iso;

	return model_get_profile(m)->cma &&
	       !model_pageblock_mt(m, pfn, &stored, &eff, &iso) && stored == SIM_TRACE_MT_CMA;
}

int sim_cma_area(struct model *m, uint64_t pfn, uint64_t nr, uint64_t *start, uint64_t *end)
{
	const struct model_layout *L = model_get_layout(m);
	uint64_t pb = 1ull << L->pageblock_order, p, zs = 0, ze = 0;
	unsigned int zi;

	for (zi = 0; zi < L->nr_zones; zi++)
		if (pfn >= L->zones[zi].start_pfn &&
		    pfn < L->zones[zi].start_pfn + L->zones[zi].spanned) {
			zs = L->zones[zi].start_pfn;
			ze = zs + L->zones[zi].spanned;
		}
	if (!nr || pfn >= ze || nr > ze - pfn)
		return 0;
	for (p = pfn / pb * pb; p < pfn + nr; p += pb)
		if (!cma_block(m, p))
			return 0;
	for (*start = pfn / pb * pb; *start >= zs + pb && cma_block(m, *start - pb); *start -= pb)
		;
	for (*end = (pfn + nr + pb - 1) / pb * pb; *end + pb <= ze && cma_block(m, *end); *end += pb)
		;
	if (*start < zs)
		*start = zs;
	return 1;
}

int sim_cma_alloc(struct model *m, uint64_t start, uint64_t end, uint64_t nr,
		  bool (*used)(void *arg, uint64_t pfn, uint64_t nr), void *arg, uint64_t *pfn)
{
	uint64_t align = nr & (nr - 1) ? 1ull << model_get_layout(m)->pageblock_order : nr;
	uint64_t s;

	*pfn = UINT64_MAX;
	if (!nr)
		return -BC_E_INVAL;
	/*
	 * cma_alloc(): the first range of the area's bitmap that is free
	 * (bitmap_find_next_zero_area_off()), alloc_contig_range(MIGRATE_CMA) on it, on
	 * -EBUSY the next one.
	 */
	for (s = (start + align - 1) / align * align; s + nr <= end && s + nr > s; s += align) {
		struct model_contig_result res;
		int ret;

		if (used && used(arg, s, nr))
			continue;
		/* FOLL_LONGTERM moves pages out of CMA before pinning: no pin in an area */
		ret = sim_contig_range(m, s, nr, MODEL_ISOLATE_CMA_ALLOC, NULL, &res);
		if (ret)
			return ret;
		if (res.ret == 0) {
			*pfn = s;
			return 0;
		}
	}
	return 1;
}

int sim_offline(struct model *m, uint64_t start, uint64_t nr_pages,
		const struct sim_contig_env *env)
{
	return try_range(m, start, nr_pages, MODEL_ISOLATE_MEM_OFFLINE, env);
}
