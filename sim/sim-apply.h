/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim-apply: one request of the capture (sim-requests.h) made again on a model that
 * decides for itself (model/decide.h), with the pfn map that ties the kernel's pfns
 * to the simulated ones (sim-pfnmap.h):
 *   - an allocation goes through model_take(); 1 (no zone could serve it above its
 *     watermark) is counted as "would have needed reclaim" and the object is not
 *     placed; else the kernel's pages map to the pages the model handed out, and
 *     an allocation that left its zone at or below the low watermark is counted
 *     (model_low_wmark_breached(): the kernel would wake kswapd);
 *   - a free releases, through model_give(), the simulated pages of that kernel pfn;
 *     a page the simulation did not hand out was in use before the capture (or is
 *     memory coming online) and is released where the snapshot has it, unless the
 *     model holds nothing there to release or the page is a simulated allocation of
 *     another object (then it is counted and skipped);
 *   - a kernel's pcp drain of a page the seed read with flags 0 (a free pcp page then,
 *     not a kernel page), still untouched by the simulation, sends it to the buddy
 *     (model_pcpu_drain()); other drains are the kernel's own decisions, not requests;
 *   - a run of vmstat_update() folds the cpu's vmstat diffs and decays its pcp lists;
 *   - a contiguous allocation runs the model's own alloc_contig_pages() search, an
 *     offline offline_pages() on the kernel's range (sim-contig.h), neither migrating
 *     the pages the newest snapshot lists as long-term pinned (sim_apply_set_pins());
 *   - a failed attempt's isolation window isolates its range until its end (an
 *     offline's also disables its zone's pcp lists meanwhile).
 * Folios the model migrates (its contiguous allocations) keep their identity: the map
 * follows them through model_set_migrate_hook().
 */
#ifndef BC_SIM_APPLY_H
#define BC_SIM_APPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

struct sim_request;

struct sim_stats {
	uint64_t events;		/* events read after the seed */
	uint64_t requests;		/* allocs + frees + contig + offline (drains apart) */
	uint64_t allocs, frees, contig, offline;
	uint64_t needed_reclaim;	/* model_take() returned 1: not placed */
	uint64_t fallbacks;		/* allocations served from another type's list */
	uint64_t wmark_breaches;	/* allocations that left their zone at or below its
					 * low watermark (model_low_wmark_breached()) */
	uint64_t kernel_failed_allocs;	/* mm_page_alloc without a page: not replayed */
	uint64_t frees_before_capture;	/* frees of pages the seed held in use, released there */
	uint64_t frees_unmatched;	/* frees of nothing the simulation holds: skipped */
	uint64_t frees_reused;		/* frees the kernel took back untraced: left in use */
	uint64_t frees_taken;		/* ... of them found above a pcp hit (sim-ahead.h) */
	uint64_t frees_past_list;	/* frees past the locked pcp list, to the buddy (an
					 * interrupt's: pcp trylock failed; sim-ahead.h) */
	uint64_t frees_deferred;	/* a batch's frees, made at their commit
					 * (mm_page_free_batched; sim-ahead.h) */
	uint64_t allocs_inferred;	/* allocations the trace left out, inferred from a
					 * pcp hit (sim-ahead.h): placed, not counted
					 * in allocs */
	uint64_t allocs_early;		/* handed out at their decision, before other cpus'
					 * requests their event follows (sim-ahead.h) */
	uint64_t settled;		/* ... whose batch those requests interrupted: the
					 * counter held until its end */
	uint64_t allocs_passed_over;	/* ... of a high-order pcp page a drain of its cpu
					 * showed gone (sim-ahead.h): before that drain */
	uint64_t allocs_hit_zeroing;	/* ... high-order pcp hits, their zeroing time
					 * before their event (sim-ahead.h) */
	uint64_t contig_failed;		/* contiguous allocations the model could not make */
	uint64_t offline_failed;	/* offlines the model refused */
	uint64_t seed_pcp_drained;	/* flags-0 seed pages a kernel drain showed were pcp pages */
	uint64_t seed_pcp_listed;	/* ... the trace showed were pcp pages: on pcp lists */
	uint64_t seed_pcp_window;	/* pcp lists whose high or alloc_factor the read
					 * window (and the refill before it) told */
	uint64_t seed_pcp_relisted;	/* seed pcp blocks moved to the list the kernel took them from */
	uint64_t seed_pcp_reordered;	/* seed pcp lists put in the order the kernel took them */
	uint64_t seed_free_reordered;	/* seed free blocks moved to the head: taken first */
	uint64_t seed_reported;		/* flags-0 seed pageblocks page reporting held: freed */
	uint64_t seed_alloc_typed;	/* flags-0 seed pages typed by their traced allocation */
	uint64_t seed_types_learned;	/* guessed seed pageblock types the trace corrected */
	uint64_t seed_types_held;	/* ... a take showed absent, left as guessed: free page
					 * reporting may have held them (sim_seed_types()) */
	uint64_t seed_alloc_factors;	/* pcp alloc_factors set by the kernel's first refill
					 * of their list after the seed */
	uint64_t isolations;		/* isolation windows repeated: failed attempts',
					 * successful offlines' */
	uint64_t isolations_refused;	/* ... that the model's isolation refused */
	uint64_t refusals;		/* offlines the kernel refused at isolation: re-typed */
	uint64_t vmstat_updates;	/* vmstat_update() runs the capture traced */
	/* allocations served from another zone than the kernel's, by [kernel][simulated] */
	uint64_t other_zone[MODEL_MAX_ZONES][MODEL_MAX_ZONES];
	uint64_t other_zone_total;
	/*
	 * Allocations the simulation placed at the kernel's own pfn, and the first it
	 * did not (or could not place): from there on the two trajectories differ.
	 */
	uint64_t same_pfn;
	struct sim_first_elsewhere {
		uint64_t seq;		/* its event */
		uint64_t nth;		/* its rank among the allocations, from 1; 0: none */
		int cpu;
		unsigned int order;
		uint64_t kernel_pfn, sim_pfn;	/* sim_pfn UINT64_MAX: not placed */
		int kernel_zone, sim_zone;	/* layout indices; -1 unknown */
	} first_elsewhere;
	bool kernel_zones;		/* each allocation held to the kernel's zone */
	bool vmstat_traced;		/* else guessed (sim_apply_set_vmstat_traced()) */
};

struct sim_apply;

/* Drive @m (borrowed; its migrate hook is taken until sim_apply_destroy()), counting
 * into @st (borrowed). Return: 0 and *@out, or a negative bc_err. */
int sim_apply_create(struct model *m, struct sim_stats *st, struct sim_apply **out);
void sim_apply_destroy(struct sim_apply *a);
/* Make request @rq. Return: 0, or a negative bc_err. */
int sim_apply_request(struct sim_apply *a, const struct sim_request *rq);
/*
 * A request to be made soon: start loading what it will read (@deep 0: a few
 * requests ahead; @deep 1: closer, once the first loads are in). Nothing changes.
 */
void sim_apply_prefetch(const struct sim_apply *a, const struct sim_request *rq, int deep);

/* Requests read at a time by the drivers (sim.c, the benchmark). */
#define SIM_BATCH	64
/* Before making @rq[@i] of @n read ahead: the prefetches of the ones after it. */
void sim_apply_ahead(const struct sim_apply *a, const struct sim_request *rq, int n, int i);
/* The simulated pfn of kernel pfn @kpfn, UINT64_MAX when not handed out by the simulation. */
uint64_t sim_apply_sim_pfn(const struct sim_apply *a, uint64_t kpfn);
/* Kernel pfns [@kpfn, +@n) are now the simulated [@spfn, +@n) (a request made by a hook). */
void sim_apply_map(struct sim_apply *a, uint64_t kpfn, uint64_t spfn, uint64_t n);
/* Kernel pfns [@kpfn, +@n) are no longer handed out by the simulation. */
void sim_apply_unmap(struct sim_apply *a, uint64_t kpfn, uint64_t n);
/*
 * The capture traces vmstat_update() (tr_decoder_has(TR_EV_VMSTAT_UPDATE)): its runs,
 * SIM_REQ_VMSTAT, fold and decay on their cpu; else (the default) every cpu's are
 * guessed at each second of trace time.
 */
void sim_apply_set_vmstat_traced(struct sim_apply *a, bool traced);
/*
 * Hold each allocation to the zone the kernel served it from (model_request.zone_fixed):
 * a diagnostic that takes zone balancing (watermarks, per-cpu counter drift, reclaim)
 * out of the comparison and leaves the model's choices inside each zone.
 */
void sim_apply_set_kernel_zones(struct sim_apply *a, bool on);
/*
 * The kernel's first order-0 refill of each pcp list after the seed (sim-ahead.h;
 * @v sorted by seq, @nr, borrowed): at its allocation, the list's alloc_factor is set
 * to what the refill's size says (model_pcp_infer_alloc_factor()).
 */
struct sim_first_refill;
void sim_apply_set_first_refills(struct sim_apply *a, const struct sim_first_refill *v,
				 size_t nr);
/* Hypothetical attempts (figures) must not move the map: stop (0) or resume (1) it. */
void sim_apply_follow(struct sim_apply *a, int on);
/*
 * The pcp drains the model decided and left pending (the kernel's drain events pace
 * them) made to their end, for a figure or a snapshot to read the state.
 */
int sim_apply_drains_end(struct sim_apply *a);
/*
 * The long-term pins snapshot @snap lists (longterm_pins), pinned from it until the
 * next one: the model's contiguous attempts (the capture's, and the figures' through
 * sim_apply_env()) cannot migrate those pages, wherever the simulation has them. A
 * snapshot without the file (an older reader) lists none. Return: 0, or a negative
 * bc_err.
 */
struct tdb;
struct sim_contig_env;
int sim_apply_set_pins(struct sim_apply *a, struct tdb *db, int64_t snap);
/* What the simulation knows of pins, for sim-contig.h's functions. */
const struct sim_contig_env *sim_apply_env(const struct sim_apply *a);

#endif
