/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decide.h - the allocator's own decisions: given a request (cpu, order, gfp,
 * migratetype) and the model's state, which pfn would the kernel hand out, from which
 * list, with which fallback? model_decide() asks without changing the state,
 * model_take() does it, model_give() frees a block as the kernel would.
 *
 * Kernel rules mirrored (mm/page_alloc.c of the profiled release), all in decide.c:
 *   get_page_from_freelist()    zonelist order (highest zone of gfp_zone() down, node 0
 *                               first), watermarks with lowmem_reserve and the
 *                               highatomic free pages, ALLOC_NOFRAGMENT when the
 *                               preferred zone is Normal and DMA32 exists, dropped
 *                               when every zone fails; then the slow path's first
 *                               attempt (min watermark, ALLOC_HIGHATOMIC for
 *                               non-blocking order > 0). Reclaim and compaction are
 *                               not modelled: a request no zone serves is "NONE".
 *   rmqueue_pcplist()           pcp head (LIFO) of cpu, order, pindex; an empty list is
 *   rmqueue_bulk(), nr_pcp_alloc()  refilled with nr_pcp_alloc() blocks appended at
 *                               the tail in the order __rmqueue() hands them out, with
 *                               alloc_factor growth and pcp->high growth
 *   __rmqueue(), rmqueue_mode   CMA balance, own type, CMA, claim, steal; the mode is
 *                               kept across one refill
 *   __rmqueue_smallest(), expand()  head of the smallest order; upper halves to heads
 *   __rmqueue_claim(), try_to_claim_block() (6.12.118: try_to_steal_block()),
 *   should_try_claim_block()    whole blocks re-typed; below pageblock order when free +
 *                               alike >= half a block; __rmqueue_steal()
 *   __rmqueue_fallback()        before the claim/steal split (6.1)
 *   free_frozen_pages() (6.12 free_unref_page()), free_unref_page_commit(),
 *   nr_pcp_high(), nr_pcp_free(), free_pcppages_bulk()   model_give()
 *   before v6.7 (6.1)           refills of batch blocks scaled by order, pcp->high
 *                               fixed, drains of batch << free_factor, free_high
 *   decay_pcp_high()            model_decay_pcp_high() (the caller's clock)
 *   ZONE_BELOW_HIGH (v6.7+)     a flag: set by a request that finds the zone at or
 *                               under its high watermark, cleared by a free-path drain
 *                               that leaves it over; kept from the first model_take()
 * Not modelled (stated): watermark boosting, ZONE_RECLAIM_ACTIVE, the pcp trylock,
 * reclaim, kswapd, compaction.
 */
#ifndef BC_MODEL_DECIDE_H
#define BC_MODEL_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

#define PCP_BATCH_SCALE_MAX	5	/* CONFIG_PCP_BATCH_SCALE_MAX default */

/* Where the kernel's page came from (what the trace tells for real requests). */
enum model_source { MODEL_SRC_PCP, MODEL_SRC_REFILL, MODEL_SRC_BUDDY,
		    MODEL_SRC_FALLBACK, MODEL_SRC_NONE };
/* "pcp", "refill", "buddy", "fallback", "none". */
const char *model_source_name(enum model_source s);

struct model_request {
	int cpu;			/* CPU the request ran on (pcp lists) */
	unsigned int order;
	int migratetype;		/* trace numbering of the profile (gfp_migratetype) */
	uint32_t gfp;			/* gfp_flags as traced (ALLOC_NOFRAGMENT, zone, CMA...) */
	/*
	 * Served from this zone (a diagnostic: the zone the kernel used), the zones the
	 * zonelist puts before it passed over as the kernel passed over them; its
	 * watermarks still decide. Ignored when the zonelist does not hold it.
	 */
	bool zone_fixed;
	unsigned int zone;
};

struct model_decision {
	uint64_t pfn;			/* first pfn handed out; meaningful unless source NONE */
	enum model_source source;
	int zone;			/* zone index */
	int fallback_mt;		/* list type taken from on a fallback, else -1 */
	bool claimed;			/* the fallback re-typed (claimed) the pageblock */
};

/* What the kernel would hand out now; the model's state is left unchanged. */
int model_decide(struct model *m, const struct model_request *rq, struct model_decision *out);
/*
 * The same, and the model does it (refill, expand, claim/steal, counters).
 * Returns 1 (source NONE) when no zone of the request can serve it above its
 * watermark: the caller counts "would have needed reclaim".
 */
int model_take(struct model *m, const struct model_request *rq, struct model_decision *out);
/*
 * Free of a block the simulation handed out, as the kernel would do it: pcp head
 * or buddy (free_frozen_pages / __free_one_page), pcp high exceeded -> drain
 * (free_pcppages_bulk) by the kernel's batch/high rules.
 */
int model_give(struct model *m, int cpu, uint64_t pfn, unsigned int order);
/*
 * Could model_give() free [@pfn, @pfn + 2^@order): in use all through, by allocations
 * inside it or by one allocation holding it? (Not when the model holds some of it free.)
 */
bool model_block_in_use(const struct model *m, uint64_t pfn, unsigned int order);

/*
 * The kernel's own pcp decisions, for the teacher (replay/tc-pcp.h): the pages move
 * by the kernel's events; these leave struct per_cpu_pages as the kernel's code does
 * and say what it decides. @count: the kernel's pcp->count of @cpu then.
 */
/* free_unref_page_commit() of a page of @order, @count with it: *@nr_drain pages drained. */
int model_pcp_free_decide(struct model *m, unsigned int zone, unsigned int cpu,
			  unsigned int order, int64_t count, int64_t *nr_drain);
/*
 * rmqueue_pcplist() of @order: the batch-free count halved; with @refill (the list
 * was empty), *@nr_pages, the pages rmqueue_bulk() takes (nr_pcp_alloc() << order).
 */
int model_pcp_alloc_decide(struct model *m, unsigned int zone, unsigned int cpu,
			   unsigned int order, bool refill, int64_t count, int64_t *nr_pages);
/*
 * The kernel's order-0 refill of @cpu's pcp lists of @zone took @pages (its zone_locked
 * events): set alloc_factor, which no file shows (each refill raises it, each free
 * halves it), to the smallest value with which nr_pcp_alloc() takes as many from the
 * model's pcp->count and pcp->high now; the model's own value where it gives as many
 * too (a capped refill fits several: one the trace before the seed told is kept).
 * Return: 1 set, 0 kept or none gives @pages (or before v6.7: no alloc_factor), or a
 * negative bc_err.
 */
int model_pcp_infer_alloc_factor(struct model *m, unsigned int zone, unsigned int cpu,
				 unsigned int pages);
/* Set alloc_factor of (@zone, @cpu) (a seed's, from the trace before it). */
int model_set_pcp_alloc_factor(struct model *m, unsigned int zone, unsigned int cpu,
			       unsigned int af);
/* decay_pcp_high() (vmstat_update()): *@to_drain, the pages it drains. */
int model_pcp_decay_decide(struct model *m, unsigned int zone, unsigned int cpu,
			   int64_t count, int64_t *to_drain);
/* The free path drained @zone: ZONE_BELOW_HIGH cleared when over the high watermark. */
int model_pcp_drained(struct model *m, unsigned int zone);
/*
 * Whether the model's own pcp drains (a commit's, a decay's) are made when decided
 * (off, the default) or left pending for model_pcp_drain_step(): free_pcppages_bulk()
 * takes the zone lock, which another cpu may hold meanwhile, and frees the blocks one
 * by one; the trace shows when (mm_page_pcpu_drain of the cpu).
 */
void model_set_drain_deferred(struct model *m, bool on);
/*
 * @cpu's pending drain of @zone goes on by @max_pages pages (at least a block; INT64_MAX:
 * to its end), taking the blocks free_pcppages_bulk() would, in its order. With @skip,
 * only the count goes on: pages the caller freed itself stood for them.
 */
int model_pcp_drain_step(struct model *m, unsigned int zone, unsigned int cpu,
			 int64_t max_pages, bool skip);
/* Whether @cpu has a drain of @zone pending; whether any list has one. */
bool model_pcp_drain_pending(const struct model *m, unsigned int zone, unsigned int cpu);
bool model_drains_pending(const struct model *m);
/*
 * get_page_from_freelist() served @rq from @zone: the ZONE_BELOW_HIGH checks of the
 * zones it visited (kept from this call on, as model_take() keeps them).
 */
int model_note_request(struct model *m, const struct model_request *rq, unsigned int zone);
/*
 * pcp->high of (@zone, @cpu) as a snapshot's zoneinfo prints it ("high:"): the kernel
 * tunes it (nr_pcp_alloc(), nr_pcp_high(), decay_pcp_high()), so a seed takes it.
 */
int model_set_pcp_high(struct model *m, unsigned int zone, unsigned int cpu, uint32_t high);
/* pcp->count (pages) and pcp->high of (@zone, @cpu) (high 0: not tuned yet). */
int model_get_pcp(struct model *m, unsigned int zone, unsigned int cpu, uint32_t *count,
		  uint32_t *high);
/*
 * decay_pcp_high() (v6.7+; refresh_cpu_vm_stats() from vmstat_update() on each cpu
 * about once a second): pcp->high drops by an eighth (not under high_min, nor under
 * count - batch << 5) and the list drains down to it in batches. No-op before 6.7.
 */
int model_decay_pcp_high(struct model *m, unsigned int zone, unsigned int cpu);
/*
 * A block seeded with flags 0 (model_seed_pfn_range(): its state unknown) that the
 * trace shows was on @cpu's pcp list of (@order, @mt) at the snapshot: append it at the
 * list's tail. Called in the order the kernel later hands such blocks out, this
 * rebuilds the lists' order at the snapshot (an inference from the trace). So is a
 * block an event of the read window took off the buddy whose allocation the trace
 * never showed (pending: a fallback's block rmqueue_bulk() put on a list). Returns 1
 * (nothing done) when the block is neither.
 */
int model_seed_pcp(struct model *m, uint64_t pfn, unsigned int order, int mt, int cpu);

/*
 * A free block that was off the free lists while the snapshot read it, seeded as
 * unknown pages (flags 0, as pages in use that no flag shows): page reporting
 * (page_reporting_process() -> __isolate_free_page() clears PageBuddy while it reports
 * blocks of page_reporting_order, pageblock order by default, and above) or another
 * holder of isolated free pages. Back to the buddy at its list's tail as
 * __putback_isolated_page() returns it (merging with free buddies). Returns 1 (nothing
 * done) when a page of the block is not such a seeded page.
 */
int model_seed_putback(struct model *m, uint64_t pfn, unsigned int order);

/*
 * A page seeded with flags 0 (in use, its use and requested migratetype unknown) that
 * the trace before the snapshot showed allocated, with no free since: it takes that
 * request's migratetype @mt (the event's, trace numbering); its kind stays unknown.
 * Returns 1 (nothing done) when the page is not such a seeded page.
 */
int model_seed_alloc_mt(struct model *m, uint64_t pfn, int mt);

/* The pcp block whose first pfn is @pfn moves to its list's tail; 1: no such block. */
int model_seed_pcp_move(struct model *m, uint64_t pfn);
/*
 * The pcp block whose first pfn is @pfn moves to the tail of its cpu's list of
 * migratetype @mt (trace numbering), same order; 1: no such block.
 */
int model_seed_pcp_relist(struct model *m, uint64_t pfn, int mt);

/*
 * The free buddy block whose first pfn is @pfn moves to the head (or @tail) of its
 * list. Called from the last to the first block the kernel later takes off the buddy
 * with no event before naming it, this rebuilds the free lists' order at the snapshot,
 * which no /proc file shows (an inference from the trace). Returns 1 (nothing done)
 * when @pfn is not the head of a free buddy block.
 */
int model_seed_free_move(struct model *m, uint64_t pfn, bool tail);

/*
 * Before v6.10 (no freelist hygiene) a free block may sit on another type's list than
 * its pageblock's (__free_one_page() files it under the type its freeing passed: a
 * page allocated before its block was re-typed goes back to the old type's list).
 * The free buddy block at @pfn moves to the tail of type @mt's list of its order, its
 * pageblock's type unchanged. Returns 1 (nothing done) when @pfn is not the head of a
 * free buddy block; -BC_E_INVAL for a type that has no free list.
 */
int model_seed_free_relist(struct model *m, uint64_t pfn, int mt);

/*
 * The first event after the snapshot that shows the type of the guessed pageblock
 * holding @pfn (a pcp hit's list, a zone_locked's list, a drain's type) says @mt:
 * confirm the guess or correct it (re-typed, its free pages moved; no other guessed
 * block takes the old type, so pagetypeinfo's counts may drift). Returns 1 (nothing done) when the block's type is not a guess.
 */
int model_seed_pageblock_type(struct model *m, uint64_t pfn, int mt);

/*
 * What the trace does not carry, from a snapshot's zoneinfo: watermarks (boost
 * included, as zoneinfo prints them), protection[] (lowmem_reserve, by the kernel's
 * zone type: 0 DMA, 1 DMA32, 2 Normal, 3 Movable on x86_64) and the pcp batch and
 * high bounds. Without it a zone has no watermark (every check passes) and pcp sizes
 * are the kernel's defaults for its managed pages (zone_batchsize(), high_min 4 x
 * batch, high_max managed / 8 / cpus): an assumption.
 */
#define MODEL_NR_ZONE_TYPES 5
struct model_zone_limits {
	uint64_t wmark_min, wmark_low, wmark_high;
	uint64_t lowmem_reserve[MODEL_NR_ZONE_TYPES];
	uint32_t pcp_batch, pcp_high_min, pcp_high_max;
	/*
	 * zoneinfo's "vm stats threshold" (calculate_normal_threshold()): how far a
	 * cpu's NR_FREE_PAGES delta may drift before it is folded into the zone's
	 * counter. 0 = not known: the counter is taken as exact.
	 */
	uint32_t stat_threshold;
};
int model_set_zone_limits(struct model *m, unsigned int zone,
			  const struct model_zone_limits *lim);
/* The limits in force for @zone (zoneinfo's, or the defaults). */
int model_get_zone_limits(struct model *m, unsigned int zone, struct model_zone_limits *out);
/*
 * zone_pcp_disable() (offline_pages()): @zone's pcp lists at high 0, batch 1, so every
 * free reaches the buddy and every refill takes one block; *@saved the limits before,
 * which model_set_zone_limits() gives back (zone_pcp_enable()).
 */
int model_zone_pcp_disable(struct model *m, unsigned int zone, struct model_zone_limits *saved);
/*
 * __mod_zone_page_state(zone, NR_FREE_PAGES, @delta) on @cpu: the per-cpu diff, folded
 * into the zone's counter when it passes the zone's stat_threshold. The watermark
 * checks read that counter (zone_page_state()): the model's free pages less the diffs
 * not yet folded. The caller says when the kernel changes the counter (a refill once
 * for all its blocks before v6.10, ...). No-op without a known threshold.
 */
int model_vmstat_mod_free(struct model *m, unsigned int zone, unsigned int cpu, int64_t delta);
/*
 * The same, held in @cpu's diff whatever its size: a change the kernel had made to the
 * free lists but not yet to the counter (rmqueue_bulk() accounts its batch at the end
 * before v6.10, per block since). model_vmstat_mod_free(.., 0) later settles it: folded
 * past the threshold.
 */
int model_vmstat_hold_free(struct model *m, unsigned int zone, unsigned int cpu, int64_t delta);
/*
 * All but @held pages (of the held change's sign) of @cpu's held diff of @zone
 * (model_vmstat_hold_free()) reach the counter now, as __mod_zone_page_state() takes
 * each change: folded when the part not held passes the threshold. v6.10+
 * rmqueue_bulk() counts each block as it takes it.
 */
int model_vmstat_release_free(struct model *m, unsigned int zone, unsigned int cpu,
			      int64_t held);
/*
 * refresh_cpu_vm_stats() (vmstat_update() on @cpu, about once a second, and
 * quiet_vmstat()): @cpu's NR_FREE_PAGES diff of @zone folded into the counter.
 */
int model_vmstat_fold(struct model *m, unsigned int zone, unsigned int cpu);
/*
 * @cpu's NR_FREE_PAGES diff of @zone (*@diff) and the zone's stat threshold (*@thresh),
 * which bounds a diff the kernel keeps unfolded. model_vmstat_set_diff() sets it: what
 * a decision of the kernel shows of a counter no event carries (simulate --teacher).
 * Return: 1, 0 when no threshold is known (no diffs kept), or a negative bc_err.
 */
int model_vmstat_get_diff(struct model *m, unsigned int zone, unsigned int cpu,
			  int64_t *diff, int64_t *thresh);
int model_vmstat_set_diff(struct model *m, unsigned int zone, unsigned int cpu, int64_t diff);
/* Buddy pages of @zone (NR_FREE_PAGES exact: not the ISOLATE lists). */
uint64_t model_zone_nr_free(const struct model *m, unsigned int zone);
/* The same of zones 0.. into @out[@n]; returns how many were filled. */
unsigned int model_zones_nr_free(const struct model *m, uint64_t *out, unsigned int n);
/*
 * After an allocation of a request (@gfp, @migratetype in trace numbering) from @zone:
 * __zone_watermark_ok(zone, 0, low_wmark_pages(zone), gfp_zone(@gfp), the fast path's
 * alloc_flags) fails, i.e. the zone's free pages (NR_FREE_PAGES less the free CMA
 * pages a non-movable request may not use and the highatomic reserve) are at or below
 * its low watermark plus lowmem_reserve[]: the next such request misses the fast path
 * and the slow path wakes kswapd (wake_all_kswapds()). model/wmark.c; false when the
 * zone's watermarks are not known (no zoneinfo).
 */
bool model_low_wmark_breached(const struct model *m, unsigned int zone, uint32_t gfp,
			      int migratetype);
/* The kernel's zone type of a zone name ("DMA32" 1); -1 unknown. */
int model_zone_type_of_name(const char *name);

#endif
