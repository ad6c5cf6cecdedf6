// SPDX-License-Identifier: GPL-2.0
/* sim-apply: a request made again on the simulated model (sim-apply.h). */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/grow.h"
#include "db/tdb-snap.h"
#include "model/decide.h"
#include "model/model.h"
#include "sim/sim-ahead.h"
#include "sim/sim-apply.h"
#include "sim/sim-contig.h"
#include "sim/sim-pfnmap.h"
#include "sim/sim-requests.h"

struct sim_cma_range {
	uint64_t pfn, nr;
};

/* An isolation window open; an offline's also disabled its zone's pcp lists. */
struct sim_iso {
	uint64_t pfn, nr;
	int zone;			/* zone_pcp_disable()d, -1 none */
	struct model_zone_limits lim;	/* its limits before */
};

struct sim_apply {
	struct model *m;
	struct sim_cma_range *cma;	/* cma_alloc()s made: the areas' bitmaps */
	size_t nr_cma, cap_cma;
	struct sim_pfnmap *pm;
	struct sim_stats *st;
	unsigned int nr_cpus, nr_zones;	/* the layout's */
	uint64_t next_decay;		/* ts of the next vmstat_update() round, 0 unset */
	bool vmstat_traced;		/* its runs are requests (SIM_REQ_VMSTAT): no guess */
	bool kernel_zones;		/* each allocation held to the kernel's zone */
	uint64_t nr_free[MODEL_MAX_ZONES];	/* NR_FREE_PAGES before the change at work */
	struct tdb_pins pins;		/* the newest snapshot's longterm_pins */
	struct sim_iso *iso;		/* isolation windows open (SIM_REQ_ISOLATE) */
	size_t nr_iso, cap_iso;
	struct sim_contig_env env;	/* those pins, through the map */
	/*
	 * [cpu * MODEL_MAX_ZONES + zone]: pages a held refill of the cpu took that the
	 * zone's counter has not counted yet (< 0; settle()).
	 */
	int64_t *refill_held;
	const struct sim_first_refill *first_refill;	/* by seq, borrowed */
	size_t nr_first_refill;
};

#define SIM_STAT_INTERVAL_NS	1000000000ull	/* sysctl_stat_interval: HZ */

/* Each zone's buddy pages now: the base of the next change to account. */
static void free_now(struct sim_apply *a)
{
	model_zones_nr_free(a->m, a->nr_free, MODEL_MAX_ZONES);
}

/*
 * The change since the last call went through __mod_zone_page_state(NR_FREE_PAGES) on
 * @cpu (account_freepages(), __mod_zone_freepage_state()): its per-cpu diff, which the
 * watermark checks do not see until it passes the stat threshold or is folded. One
 * change per request (the kernel's are per block: an approximation); a change between
 * requests (a hook's) goes with the next request.
 */
static int free_account(struct sim_apply *a, int cpu, bool hold)
{
	uint64_t now[MODEL_MAX_ZONES];
	unsigned int zi, nz = model_zones_nr_free(a->m, now, MODEL_MAX_ZONES);
	int ret = 0;

	if (cpu < 0 || (unsigned int)cpu >= a->nr_cpus)
		cpu = 0;
	for (zi = 0; zi < nz && !ret; zi++)
		if (now[zi] != a->nr_free[zi]) {
			int64_t d = (int64_t)now[zi] - (int64_t)a->nr_free[zi];

			ret = (hold ? model_vmstat_hold_free : model_vmstat_mod_free)(
				a->m, zi, (unsigned int)cpu, d);
			if (hold)
				a->refill_held[(unsigned int)cpu * MODEL_MAX_ZONES + zi] += d;
			a->nr_free[zi] = now[zi];
		}
	return ret;
}

/*
 * free_pcppages_bulk() needs the zone lock, which another cpu may hold meanwhile (its
 * refills), and frees the blocks one by one, accounting each: the model leaves the
 * drains it decides pending (model_set_drain_deferred()) and they go on as @cpu's
 * mm_page_pcpu_drain events do (drain_step()), and end before the cpu's next other
 * request (drains_end(); @cpu -1: every cpu's), as the kernel's had.
 */
static int drains_end(struct sim_apply *a, int cpu)
{
	unsigned int c, zi;
	int ret = 0;

	if (!model_drains_pending(a->m))
		return 0;	/* the common case: none */
	for (c = 0; c < a->nr_cpus && !ret; c++) {
		if (cpu >= 0 && (unsigned int)cpu != c)
			continue;
		for (zi = 0; zi < a->nr_zones && !ret; zi++)
			if (model_pcp_drain_pending(a->m, zi, c)) {
				ret = model_pcp_drain_step(a->m, zi, c, INT64_MAX, false);
				if (!ret)
					ret = free_account(a, (int)c, false);
			}
	}
	return ret;
}

int sim_apply_drains_end(struct sim_apply *a)
{
	return drains_end(a, -1);
}

/*
 * The kernel's drain event @rq of its cpu: that cpu's pending drain goes on by its
 * block; by the count only when @seed_freed (do_drain() freed the kernel's own block,
 * a seed page the simulation held off its lists: it stands for one of the drain's).
 */
static int drain_step(struct sim_apply *a, const struct sim_request *rq, bool seed_freed)
{
	int zone;

	if (rq->cpu < 0 || (unsigned int)rq->cpu >= a->nr_cpus || rq->pfn == UINT64_MAX)
		return 0;
	zone = model_pfn_zone(a->m, rq->pfn);
	if (zone < 0 || !model_pcp_drain_pending(a->m, (unsigned int)zone, (unsigned int)rq->cpu))
		return 0;
	return model_pcp_drain_step(a->m, (unsigned int)zone, (unsigned int)rq->cpu,
				    (int64_t)rq->nr_pages, seed_freed);
}

/* A held refill's batch ended (SIM_REQ_SETTLE): its count folds as the kernel's did. */
static int settle(struct sim_apply *a, const struct sim_request *rq)
{
	int64_t *held, k;
	unsigned int zi;
	int zone, ret = 0;

	if (rq->cpu < 0 || (unsigned int)rq->cpu >= a->nr_cpus)
		return 0;
	held = &a->refill_held[(unsigned int)rq->cpu * MODEL_MAX_ZONES];
	if (rq->nr_pages) {
		/* one block of it taken: v6.10+ counts it now (before, at the end) */
		zone = model_pfn_zone(a->m, rq->pfn);
		if (model_get_profile(a->m)->version < MODEL_KVER(6, 10, 0) || zone < 0 ||
		    zone >= MODEL_MAX_ZONES || held[zone] >= 0)
			return 0;
		k = (int64_t)rq->nr_pages < -held[zone] ? -(int64_t)rq->nr_pages : held[zone];
		held[zone] -= k;
		return model_vmstat_release_free(a->m, (unsigned int)zone, (unsigned int)rq->cpu,
						 held[zone]);
	}
	a->st->settled++;
	for (zi = 0; zi < a->nr_zones && !ret; zi++) {
		if (zi < MODEL_MAX_ZONES)
			held[zi] = 0;
		ret = model_vmstat_mod_free(a->m, zi, (unsigned int)rq->cpu, 0);
	}
	return ret;
}

/*
 * vmstat_update() on @cpu: refresh_cpu_vm_stats(true), per zone its NR_FREE_PAGES diff
 * folded into the zone's counter, then decay_pcp_high() (whose drain is accounted on
 * that cpu again). The remote-node drain_zone_pages() of that function does not
 * apply: one node.
 */
static int vmstat_update(struct sim_apply *a, unsigned int cpu)
{
	unsigned int zi;
	int ret = 0;

	for (zi = 0; zi < a->nr_zones && !ret; zi++) {
		ret = model_vmstat_fold(a->m, zi, cpu);
		if (!ret)
			ret = model_decay_pcp_high(a->m, zi, cpu);
		if (!ret)
			ret = free_account(a, (int)cpu, false);
	}
	return ret;
}

/*
 * Where the capture does not say when vmstat_update() ran (about once a second per
 * cpu, deferrable, re-armed by vmstat_shepherd() when idle), it is guessed: at each
 * second of trace time since the first request, on every cpu.
 */
static int vmstat_tick(struct sim_apply *a, uint64_t ts)
{
	unsigned int cpu;
	int ret = 0;

	if (a->vmstat_traced)
		return 0;
	if (!a->next_decay) {
		a->next_decay = ts + SIM_STAT_INTERVAL_NS;
		return 0;
	}
	while (ts >= a->next_decay && !ret) {
		for (cpu = 0; cpu < a->nr_cpus && !ret; cpu++)
			ret = vmstat_update(a, cpu);
		a->next_decay += SIM_STAT_INTERVAL_NS;
	}
	return ret;
}

void sim_apply_set_first_refills(struct sim_apply *a, const struct sim_first_refill *v,
				 size_t nr)
{
	a->first_refill = v;
	a->nr_first_refill = nr;
}

/*
 * @rq is the kernel's first refill of its list after the seed: the list's alloc_factor
 * from the refill's size, before the simulation decides it.
 */
static int first_refill(struct sim_apply *a, const struct sim_request *rq)
{
	size_t lo = 0, hi = a->nr_first_refill;
	int ret;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->first_refill[mid].seq < rq->seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= a->nr_first_refill || a->first_refill[lo].seq != rq->seq)
		return 0;
	ret = model_pcp_infer_alloc_factor(a->m, a->first_refill[lo].zone,
					   a->first_refill[lo].cpu, a->first_refill[lo].pages);
	if (ret > 0)
		a->st->seed_alloc_factors++;
	return ret < 0 ? ret : 0;
}

void sim_apply_set_kernel_zones(struct sim_apply *a, bool on)
{
	a->kernel_zones = on;
	a->st->kernel_zones = on;
}

void sim_apply_set_vmstat_traced(struct sim_apply *a, bool traced)
{
	a->vmstat_traced = traced;
	a->st->vmstat_traced = traced;
}

static void moved(void *arg, uint64_t from, uint64_t to, unsigned int order)
{
	sim_pfnmap_moved(arg, from, to, 1ull << order);
}

/* The kernel pfn of simulated @spfn: the map's, else the same (held since the seed). */
static uint64_t kernel_pfn(void *arg, uint64_t spfn)
{
	uint64_t k = sim_pfnmap_kernel(((struct sim_apply *)arg)->pm, spfn);

	return k == UINT64_MAX ? spfn : k;
}

int sim_apply_create(struct model *m, struct sim_stats *st, struct sim_apply **out)
{
	const struct model_layout *L = model_get_layout(m);
	struct sim_apply *a = calloc(1, sizeof(*a));
	uint64_t end = 0;
	unsigned int zi;
	int ret;

	*out = NULL;
	if (!a)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (zi = 0; zi < L->nr_zones; zi++)
		if (L->zones[zi].start_pfn + L->zones[zi].spanned > end)
			end = L->zones[zi].start_pfn + L->zones[zi].spanned;
	ret = sim_pfnmap_create(end, &a->pm);
	if (ret) {
		free(a);
		return ret;
	}
	a->refill_held = calloc((size_t)(L->nr_cpus ? L->nr_cpus : 1) * MODEL_MAX_ZONES,
				sizeof(*a->refill_held));
	if (!a->refill_held) {
		sim_pfnmap_destroy(a->pm);
		free(a);
		return bc_error(BC_E_NOMEM, "out of memory");
	}
	a->m = m;
	a->st = st;
	a->nr_cpus = L->nr_cpus;
	a->nr_zones = L->nr_zones;
	a->env = (struct sim_contig_env){ .pins = &a->pins, .kernel_pfn = kernel_pfn, .arg = a };
	model_set_drain_deferred(m, true);
	free_now(a);
	model_set_migrate_hook(m, moved, a->pm);
	*out = a;
	return 0;
}

int sim_apply_set_pins(struct sim_apply *a, struct tdb *db, int64_t snap)
{
	struct tdb_pins p;
	int ret = tdb_snap_pins(db, snap, &p);

	if (ret == -BC_E_NOENT) {
		memset(&p, 0, sizeof(p));
		ret = 0;
	}
	if (ret)
		return ret;
	tdb_pins_free(&a->pins);
	free(a->iso);
	a->pins = p;
	return 0;
}

const struct sim_contig_env *sim_apply_env(const struct sim_apply *a)
{
	return &a->env;
}

void sim_apply_destroy(struct sim_apply *a)
{
	if (!a)
		return;
	tdb_pins_free(&a->pins);
	model_set_drain_deferred(a->m, false);
	model_set_migrate_hook(a->m, NULL, NULL);
	sim_pfnmap_destroy(a->pm);
	free(a->cma);
	free(a->refill_held);
	free(a);
}

void sim_apply_follow(struct sim_apply *a, int on)
{
	model_set_migrate_hook(a->m, on ? moved : NULL, on ? a->pm : NULL);
}

uint64_t sim_apply_sim_pfn(const struct sim_apply *a, uint64_t kpfn)
{
	return sim_pfnmap_sim(a->pm, kpfn);
}

void sim_apply_map(struct sim_apply *a, uint64_t kpfn, uint64_t spfn, uint64_t n)
{
	sim_pfnmap_set(a->pm, kpfn, spfn, n);
}

void sim_apply_unmap(struct sim_apply *a, uint64_t kpfn, uint64_t n)
{
	sim_pfnmap_clear(a->pm, kpfn, n);
}

void sim_apply_prefetch(const struct sim_apply *a, const struct sim_request *rq, int deep)
{
	sim_pfnmap_prefetch(a->pm, rq->pfn, deep);
}

void sim_apply_ahead(const struct sim_apply *a, const struct sim_request *rq, int n, int i)
{
	if (i + 8 < n)
		sim_pfnmap_prefetch(a->pm, rq[i + 8].pfn, 0);
	if (i + 2 < n)
		sim_pfnmap_prefetch(a->pm, rq[i + 2].pfn, 1);
}

/*
 * An allocation the trace does not show (sim-ahead.h: alloc_pages_bulk()) that took
 * the page @rq->pfn off its cpu's pcp list: that page where the simulation holds it
 * free on that cpu's list too, else the list's head. Placed, kind and type unknown; not
 * counted as one of the trace's allocations.
 */
static int do_alloc_untraced(struct sim_apply *a, const struct sim_request *rq,
			     const struct model_request *mr)
{
	struct model_pfn_info pi;
	struct model_decision d;
	uint64_t spfn;
	int ret;

	a->st->allocs_inferred++;
	if (!model_pfn_info(a->m, rq->pfn, &pi) && pi.state == MODEL_PFN_PCP &&
	    pi.cpu == rq->cpu && pi.head == rq->pfn && !pi.order) {
		ret = model_page_alloc(a->m, rq->pfn, 0, rq->gfp, rq->mt, rq->cpu);
		spfn = rq->pfn;
	} else {
		ret = model_take(a->m, mr, &d);
		spfn = d.pfn;
	}
	if (ret)
		return ret < 0 ? ret : 0;
	sim_pfnmap_set(a->pm, rq->pfn, spfn, rq->nr_pages);
	return model_set_page_untraced(a->m, spfn, rq->nr_pages);
}

static int do_alloc(struct sim_apply *a, const struct sim_request *rq)
{
	struct model_request mr = { .cpu = rq->cpu, .order = rq->order, .migratetype = rq->mt,
				    .gfp = (uint32_t)rq->gfp };
	int kz = model_pfn_zone(a->m, rq->pfn);	/* the kernel's zone, by the layout */
	struct model_decision d;
	int ret;

	if (a->kernel_zones && kz >= 0) {
		mr.zone_fixed = true;
		mr.zone = (unsigned int)kz;
	}
	if (rq->inferred)
		return do_alloc_untraced(a, rq, &mr);
	if (a->nr_first_refill && !rq->order && (ret = first_refill(a, rq)))
		return ret;
	ret = model_take(a->m, &mr, &d);
	if (ret < 0)
		return ret;
	a->st->allocs++;
	a->st->allocs_early += rq->early;
	if (ret == 0 && d.pfn == rq->pfn)
		a->st->same_pfn++;
	else if (!a->st->first_elsewhere.nth)
		a->st->first_elsewhere = (struct sim_first_elsewhere){
			.seq = rq->seq, .nth = a->st->allocs, .cpu = rq->cpu, .order = rq->order,
			.kernel_pfn = rq->pfn, .sim_pfn = ret ? UINT64_MAX : d.pfn,
			.kernel_zone = kz, .sim_zone = ret ? -1 : (int)d.zone };
	if (ret == 1) {
		a->st->needed_reclaim++;
		sim_pfnmap_clear(a->pm, rq->pfn, rq->nr_pages);
		return 0;
	}
	a->st->fallbacks += d.fallback_mt >= 0;
	if (kz >= 0 && kz != d.zone && kz < MODEL_MAX_ZONES && d.zone < MODEL_MAX_ZONES) {
		a->st->other_zone[kz][d.zone]++;
		a->st->other_zone_total++;
	}
	a->st->wmark_breaches += model_low_wmark_breached(a->m, (unsigned int)d.zone,
							  (uint32_t)rq->gfp, rq->mt);
	sim_pfnmap_set(a->pm, rq->pfn, d.pfn, rq->nr_pages);
	return 0;
}

static int do_free(struct sim_apply *a, const struct sim_request *rq)
{
	uint64_t spfn = sim_pfnmap_sim(a->pm, rq->pfn);
	struct model_pfn_info pi;
	int ret;

	a->st->frees++;
	a->st->frees_deferred += rq->deferred;
	/*
	 * alloc_pages_bulk() took the page back off the list head right after: in use,
	 * by an allocation whose kind and type nothing says
	 */
	if (rq->reused) {
		a->st->frees_reused++;
		return spfn == UINT64_MAX ? 0 : model_set_page_untraced(a->m, spfn, rq->nr_pages);
	}
	if (spfn != UINT64_MAX) {
		sim_pfnmap_clear(a->pm, rq->pfn, rq->nr_pages);
		/* free_one_page(): the cpu's pcp trylock failed (sim-ahead.h) */
		if (rq->past) {
			a->st->frees_past_list++;
			return model_page_free_nopcp(a->m, spfn, rq->order, rq->cpu);
		}
		return model_give(a->m, rq->cpu, spfn, rq->order);
	}
	if (sim_pfnmap_is_sim(a->pm, rq->pfn)) {
		a->st->frees_unmatched++;
		return 0;
	}
	ret = model_pfn_info(a->m, rq->pfn, &pi);
	if (ret ||
	    (pi.state != MODEL_PFN_ALLOC && pi.state != MODEL_PFN_UNINIT)) {
		a->st->frees_unmatched++;
		return 0;
	}
	/*
	 * The kernel held the whole block; the simulation holds its head since the seed but
	 * not all of it (pages it freed or took on its own way: the offline the kernel
	 * made and it refused, onlined again block by block): not its block to free.
	 */
	if (pi.state == MODEL_PFN_ALLOC &&
	    (!model_block_in_use(a->m, rq->pfn, rq->order) ||
	     sim_pfnmap_any_sim(a->pm, rq->pfn, rq->nr_pages))) {
		a->st->frees_unmatched++;
		return 0;
	}
	a->st->frees_before_capture++;
	/* memory coming online or lazily initialised: __free_pages_core(), not a choice */
	if (pi.state == MODEL_PFN_UNINIT)
		return model_page_free(a->m, rq->pfn, rq->order, rq->cpu);
	return model_give(a->m, rq->cpu, rq->pfn, rq->order);
}

/*
 * A drain tells a seed page of flags 0 (or on a pcp list at the seed) was a pcp page.
 * The simulation must hold exactly the kernel's block (free_pcppages_bulk() frees one
 * pcp block, of the order its list holds): a pcp block of another order or head, or
 * flags-0 seed pages of which some are the simulation's own or not flags 0, is a
 * state the simulation reached its own way: left as it is.
 */
static int do_drain(struct sim_apply *a, const struct sim_request *rq)
{
	struct model_pfn_info pi;
	uint64_t p;

	/* the simulation's own page (the cheap test first): not the seed's */
	if (sim_pfnmap_is_sim(a->pm, rq->pfn) || model_pfn_info(a->m, rq->pfn, &pi))
		return 0;
	if (pi.state == MODEL_PFN_PCP) {
		if (pi.head != rq->pfn || pi.order != rq->order)
			return 0;
	} else if (pi.state == MODEL_PFN_ALLOC && pi.seeded && pi.kind == MODEL_KIND_UNKNOWN) {
		for (p = rq->pfn + 1; p < rq->pfn + rq->nr_pages; p++)
			if (sim_pfnmap_is_sim(a->pm, p) || model_pfn_info(a->m, p, &pi) ||
			    pi.state != MODEL_PFN_ALLOC || !pi.seeded ||
			    pi.kind != MODEL_KIND_UNKNOWN)
				return 0;
	} else {
		return 0;
	}
	a->st->seed_pcp_drained++;
	return model_pcpu_drain(a->m, rq->pfn, rq->order, rq->mt, rq->cpu);
}

static int apply(struct sim_apply *a, const struct sim_request *rq);

/*
 * A CMA area's bitmap: a range that overlaps one an earlier cma_alloc() made, while
 * that one's first page is still in use (its frees are the kernel's cma_release()).
 */
static bool cma_used(void *arg, uint64_t pfn, uint64_t nr)
{
	struct sim_apply *a = arg;
	struct model_pfn_info pi;
	size_t i;

	for (i = 0; i < a->nr_cma; i++)
		if (pfn < a->cma[i].pfn + a->cma[i].nr && a->cma[i].pfn < pfn + nr &&
		    !model_pfn_info(a->m, a->cma[i].pfn, &pi) && pi.state == MODEL_PFN_ALLOC)
			return true;
	return false;
}

/*
 * A contiguous allocation the kernel made: from its CMA area when the kernel's range
 * lies in one (cma_alloc()), else alloc_contig_pages()'s search.
 */
static int do_contig(struct sim_apply *a, const struct sim_request *rq, uint64_t *spfn)
{
	uint64_t s, e;
	int ret;

	if (!sim_cma_area(a->m, rq->pfn, rq->nr_pages, &s, &e))
		return sim_contig_alloc(a->m, rq->nr_pages, &a->env, spfn);
	ret = sim_cma_alloc(a->m, s, e, rq->nr_pages, cma_used, a, spfn);
	if (ret)
		return ret;
	ret = bc_grow(&a->cma, a->nr_cma, &a->cap_cma, sizeof(*a->cma), 16, "simulate");
	if (ret)
		return ret;
	a->cma[a->nr_cma++] = (struct sim_cma_range){ *spfn, rq->nr_pages };
	return 0;
}

int sim_apply_request(struct sim_apply *a, const struct sim_request *rq)
{
	int ret;

	uint64_t seed_drained = a->st->seed_pcp_drained;

	model_set_event(a->m, rq->seq, rq->ts);
	ret = vmstat_tick(a, rq->ts);
	if (!ret && rq->kind != SIM_REQ_PCP_DRAIN)
		ret = drains_end(a, rq->cpu);
	if (ret)
		return ret;
	ret = apply(a, rq);
	if (!ret && rq->kind == SIM_REQ_PCP_DRAIN)
		ret = drain_step(a, rq, a->st->seed_pcp_drained != seed_drained);
	return ret ? ret : free_account(a, rq->cpu, rq->kind == SIM_REQ_ALLOC && rq->held);
}

/*
 * A failed attempt's isolation window (sim-requests.h): start_isolate_page_range() of
 * its range after the drain the kernel made first, undone at its end. An offline also
 * holds its zone's pcp lists disabled meanwhile (zone_pcp_disable(): high 0, batch 1,
 * so every free reaches the buddy and every allocation refills one page) and enables
 * them after the undo (offline_pages()'s failure path); alloc_contig_range() only
 * drains (drain_all_pages()). A range the model refuses to isolate (it holds an
 * unmovable page there that the kernel's range did not) is counted and left as it is.
 */
static int do_isolate(struct sim_apply *a, const struct sim_request *rq)
{
	enum model_isolate_mode mode = rq->mt ? MODEL_ISOLATE_MEM_OFFLINE : MODEL_ISOLATE_OTHER;
	struct sim_iso w = { .pfn = rq->pfn, .nr = rq->nr_pages, .zone = -1 };
	uint64_t fail;
	size_t i;
	int ret;

	if (rq->kind == SIM_REQ_UNISOLATE) {
		for (i = 0; i < a->nr_iso; i++)
			if (a->iso[i].pfn == rq->pfn && a->iso[i].nr == rq->nr_pages)
				break;
		if (i == a->nr_iso)
			return 0;
		w = a->iso[i];
		a->iso[i] = a->iso[--a->nr_iso];
		ret = w.nr ? model_undo_isolate_range(a->m, w.pfn, w.pfn + w.nr) : 0;
		if (!ret && w.zone >= 0)
			ret = model_set_zone_limits(a->m, (unsigned int)w.zone, &w.lim);
		return ret;
	}
	a->st->isolations++;
	ret = bc_grow(&a->iso, a->nr_iso, &a->cap_iso, sizeof(*a->iso), 4, "simulate");
	if (!ret && rq->mt && (w.zone = model_pfn_zone(a->m, rq->pfn)) >= 0)
		ret = model_zone_pcp_disable(a->m, (unsigned int)w.zone, &w.lim);
	if (!ret)
		ret = model_drain_zone(a->m, rq->pfn);
	if (!ret)
		ret = model_isolate_range(a->m, rq->pfn, rq->pfn + rq->nr_pages, mode, &fail);
	if (ret == -BC_E_BUSY) {
		a->st->isolations_refused++;
		w.nr = 0;	/* nothing to undo; the pcp lists stay disabled as the kernel's */
		ret = 0;
	}
	if (!ret)
		a->iso[a->nr_iso++] = w;
	return ret;
}

static int apply(struct sim_apply *a, const struct sim_request *rq)
{
	uint64_t spfn;
	int ret;

	if (rq->kind == SIM_REQ_PCP_DRAIN)
		return do_drain(a, rq);
	if (rq->kind == SIM_REQ_VMSTAT) {
		a->st->vmstat_updates += a->vmstat_traced;
		return a->vmstat_traced && rq->cpu >= 0 && (unsigned int)rq->cpu < a->nr_cpus ?
		       vmstat_update(a, (unsigned int)rq->cpu) : 0;
	}
	if (rq->kind == SIM_REQ_SETTLE)
		return settle(a, rq);
	if (rq->kind == SIM_REQ_ISOLATE || rq->kind == SIM_REQ_UNISOLATE)
		return do_isolate(a, rq);
	if (rq->kind == SIM_REQ_REFUSED) {
		/* the kernel's verdict, whatever the model holds there (replay does the same) */
		a->st->refusals++;
		return model_isolate_refused(a->m, rq->pfn, rq->pfn + rq->nr_pages,
					     MODEL_ISOLATE_MEM_OFFLINE, rq->refused_pfn);
	}
	if (rq->kind == SIM_REQ_CONTIG && rq->failed)
		return 0;	/* the kernel placed nothing (what-if runs ask it again) */
	a->st->requests++;
	switch (rq->kind) {
	case SIM_REQ_ALLOC:
		return do_alloc(a, rq);
	case SIM_REQ_FREE:
		return do_free(a, rq);
	case SIM_REQ_CONTIG:
		a->st->contig++;
		ret = do_contig(a, rq, &spfn);
		if (ret == 0)
			sim_pfnmap_set(a->pm, rq->pfn, spfn, rq->nr_pages);
		a->st->contig_failed += ret == 1;
		return ret < 0 ? ret : 0;
	case SIM_REQ_OFFLINE:
		a->st->offline++;
		ret = sim_offline(a->m, rq->pfn, rq->nr_pages, &a->env);
		a->st->offline_failed += ret == 1;
		return ret < 0 ? ret : 0;
	case SIM_REQ_PCP_DRAIN:
	case SIM_REQ_ISOLATE:
	case SIM_REQ_UNISOLATE:
	case SIM_REQ_REFUSED:
	case SIM_REQ_VMSTAT:
	case SIM_REQ_SETTLE:
		break;
	}
	return 0;
}
