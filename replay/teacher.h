/* SPDX-License-Identifier: GPL-2.0 */
/*
 * teacher: "bigchunk simulate --teacher". Replay a capture as rp_run() does and,
 * before each allocation request the trace shows, ask the decision procedure
 * (model_decide(), model/decide.h) from the true state, then compare its pfn with the
 * kernel's.
 *
 * A request is the events of one allocation on one cpu: the zone_locked events of a
 * pcp refill (or of __rmqueue_smallest()), the extfrag of a fallback, then its
 * mm_page_alloc. A first pass over the events groups them (per cpu, up to the next
 * mm_page_alloc); the question is asked before the group's first event, so that the
 * refill the trace shows does not give the answer away. Where the kernel's page came
 * from is what the trace tells: extfrag in the group "fallback", a zone_locked with
 * percpu_refill "refill", another zone_locked "buddy", none "pcp".
 *
 * An order-0 page at the model's pcp head whose next event is its free had been taken
 * by alloc_pages_bulk() (no tracepoint): it leaves the model's list before the
 * question (counted). Each disagreement is classified (enum tc_why) from the model's state of the
 * kernel's page at the question. Deterministic; prints nothing.
 */
#ifndef BC_REPLAY_TEACHER_H
#define BC_REPLAY_TEACHER_H

#include <stdbool.h>
#include <stdint.h>

#include "model/decide.h"
#include "replay/tc-pcp.h"

struct tdb;
struct rp_opts;

/* Why the model's pfn was not the kernel's. Stable names (new ones appended). */
#define TC_WHYS									\
	_W(NEEDS_RECLAIM,  "model-needs-reclaim")  /* no zone passed the watermarks */ \
	_W(LOST_EVENTS,    "lost-events")	/* the page is in a lost-event window */ \
	_W(ZONE,           "zone")		/* another zone (watermarks, zonelist) */ \
	_W(STATE_UNKNOWN,  "state-unknown")	/* seeded with flags 0: a pcp page at the
						 * snapshot, unknown to the model */ \
	_W(UNTRACED_FREE,  "untraced-free")	/* in use in the model: no free was seen */ \
	_W(PCP_TRYLOCK,    "pcp-trylock")	/* the kernel took the buddy's block with pages
						 * on the pcp list: pcp_spin_trylock() failed */ \
	_W(PCP_STALE,      "pcp-stale")		/* the model's pcp list held pages the
						 * kernel's had not (untraced bulk alloc) */ \
	_W(PCP_OTHER_CPU,  "pcp-other-cpu")	/* on another cpu's list in the model */ \
	_W(PCP_ORDER,      "pcp-list-order")	/* on this cpu's list, not at its head */ \
	_W(PCP_IN_BUDDY,   "pcp-page-in-buddy")	/* a pcp hit of a page the model holds in
						 * the buddy (free went past the pcp) */ \
	_W(BUDDY_ORDER,    "buddy-list-order")	/* free in the buddy, not the block chosen */ \
	_W(OTHER,          "other")						\
	_W(TYPE_GUESS,     "pageblock-type-guess") /* the model's pcp page is in a pageblock
						 * whose type (so its list) is a guess */ \
	_W(PCP_HEAD_UNSEEN, "pcp-head-unseen")	/* no later event names the model's pcp
						 * head: the kernel's list did not hold it
						 * (free past the pcp, or untraced) */

#define _W(w, s) TC_WHY_##w,
enum tc_why { TC_WHYS TC_NR_WHY };
#undef _W
const char *tc_why_name(enum tc_why w);

struct tc_counts {
	uint64_t requests, same_pfn, same_pageblock;
};

struct tc_dis {
	uint64_t seq;			/* the request's mm_page_alloc */
	int cpu;
	unsigned int order;
	uint64_t kernel_pfn;
	uint64_t model_pfn;		/* UINT64_MAX: source NONE */
	enum model_source kernel_src, model_src;
	enum tc_why why;
};

struct tc_result {
	struct tc_counts all;
	struct tc_counts by_source[MODEL_SRC_NONE];	/* the kernel's source */
	uint64_t why[TC_NR_WHY];
	uint64_t model_none;		/* the model would have needed reclaim */
	uint64_t not_asked;		/* requests begun while the seed snapshot was read */
	uint64_t failed_allocs;		/* mm_page_alloc of no page (not requests here) */
	unsigned int zones_with_limits;	/* zones whose watermarks zoneinfo gave */
	uint64_t pcp_window;		/* pcp lists whose high or alloc_factor the seed's
					 * read window told (tc_pcp_seed_window()) */
	uint64_t pcp_seeded;		/* flags-0 pages put on pcp lists (model_seed_pcp()) */
	uint64_t types_learned;		/* guessed pageblock types confirmed or corrected
					 * (model_seed_pageblock_type()) */
	uint64_t bulk_inferred;		/* pcp pages taken off as untraced alloc_pages_bulk()
					 * allocations before a question */
	uint64_t bypass_inferred;	/* pcp pages whose free went to the buddy, moved
					 * there before a question */
	uint64_t bulk_held;		/* pcp pages no later event names: taken by an
					 * untraced alloc_pages_bulk() and held to the end */
	uint64_t stale_free_moved;	/* free blocks at a list head no later event names,
					 * moved to the tail before a question */
	uint64_t stale_types_fixed;	/* guessed UNMOVABLE pageblocks re-typed MOVABLE: a
					 * free block the model would take for an unmovable
					 * request that no later event names */
	uint64_t bulk_refills;		/* refills whose first pages an untraced
					 * alloc_pages_bulk() took (refill_bulk()) */
	uint64_t free_reordered;	/* free blocks moved to their list's head
					 * (model_seed_free_head()) */
	uint64_t vm_folds_inferred;	/* NR_FREE_PAGES diffs folded because the kernel's
					 * zone says it read them folded (infer_counter()) */
	uint64_t vm_diffs_inferred;	/* a cpu's NR_FREE_PAGES diff moved within the stat
					 * threshold, as the kernel's zone says its counter
					 * read (infer_counter()) */
	bool vmstat_traced;		/* vmstat_update() runs are events (else guessed) */
	uint64_t vmstat_updates;	/* ... and how many folded their cpu's diffs */
	struct tc_pcp_counts pcp;	/* the pcp sizing asked along (replay/tc-pcp.h) */
	struct tc_dis *dis;		/* the first max_dis disagreements */
	unsigned int nr_dis;
	uint64_t dis_left_off;
	uint64_t events;		/* events applied */
};

/*
 * Run the teacher-forced replay of @db with @opts (until_seq, progress, note), keeping
 * the first @max_dis disagreements. Return: 0 and *@out (free with tc_result_free()),
 * or a negative bc_err.
 */
int tc_run(struct tdb *db, const struct rp_opts *opts, unsigned int max_dis,
	   struct tc_result *out);
void tc_result_free(struct tc_result *r);
/*
 * Store @r in @db (tables simulate_teacher, simulate_disagreements; open with
 * TDB_WRITE), replacing the previous run's rows, in one transaction.
 */
int tc_store_results(struct tdb *db, const struct tc_result *r);

#endif
