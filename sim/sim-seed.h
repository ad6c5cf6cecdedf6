/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim-seed: the snapshot's pcp lists, for the free-running simulation. A snapshot
 * reads a page on a per-cpu list with flags 0, like a kernel page no flag shows, so a
 * seeded model holds the kernel's pcp pages as pages of unknown use. Left so, they
 * would never be handed out again: the simulation would lose the pcp lists of the
 * snapshot (default.db: 18,256 pages) while its own lists fill up from the buddy.
 *
 * The trace tells which of them were pcp pages: a page of flags 0 whose first event
 * after the snapshot is an mm_page_alloc was handed out by rmqueue_pcplist() (a
 * buddy page reads PageBuddy), one whose first event is an mm_page_pcpu_drain was
 * freed by free_pcppages_bulk(). They go to the tail of the pcp list the event names
 * (cpu, order, migratetype), in the order of those first events, so the head is what
 * the kernel handed out first (model_seed_pcp(), as simulate --teacher does). So do
 * blocks a fallback took off the buddy in the read window whose allocation no event
 * showed (pending in the model; 6.10+ traces no zone_locked for a fallback's block,
 * which rmqueue_bulk() put on a pcp list). A drain
 * runs on the draining cpu, which for drain_all_pages() need not be the list's owner
 * (the event does not name it): such a page goes to the drainer's list while the
 * snapshot's zoneinfo count of that list has room after the pages allocations name,
 * else to the list with the most room (an assumption; counts per zone are right).
 * A list the kernel refilled (mm_page_alloc_zone_locked of a pcp refill on its cpu,
 * same order and type) before the drain did not hold the page: rmqueue_bulk() refills
 * only an empty list (__rmqueue_pcplist()), and a seed page no event named before its
 * drain never left its list.
 */
#ifndef BC_SIM_SEED_H
#define BC_SIM_SEED_H

#include <stdint.h>

struct tdb;
struct tr_decoder;
struct model;
struct tdb_snap_info;

/* Sorted seqs of frees and of refills (zone_locked) whose page was taken untraced. */
struct sim_taken {
	const uint64_t *frees, *refills;
	size_t nr_frees, nr_refills;
};

/*
 * Put the pcp pages of the seed (see above) on @m's pcp lists, from the events of
 * [@seq_from, @seq_to). @counts (may be NULL): zoneinfo's pcp->count per [zone *
 * nr_cpus + cpu] at the seed, which places drained pages on lists with room, and
 * then also lets a drain_all_pages() run name the cpu whose lists it drained (one
 * drainer's run of one zone whose calls show one cpu after another, each from
 * pindex 0 up: sim-seed.c). *@nr gets the blocks placed. Return: 0, or a negative
 * bc_err.
 */
int sim_seed_pcp(struct tdb *db, const struct tr_decoder *dec, struct model *m,
		 uint64_t seq_from, uint64_t seq_to, const uint32_t *counts, uint64_t *nr);

/*
 * For the kernel's side of a later snapshot: pages of flags 0 that no event after it
 * names, but whose last event before @seq_to put them on a pcp list were still
 * there: an mm_page_free (free_frozen_pages(); a free to the buddy reads PageBuddy)
 * or an mm_page_alloc_zone_locked with no mm_page_alloc after it (a refill,
 * rmqueue_bulk()); a later drain or allocation is an event. They go on the list of
 * the event's cpu and the pageblock's type, in pfn order (the figures do not depend on
 * the lists' order). *@nr gets the blocks placed.
 * The other pages of flags 0 in use whose last event before @seq_to was the
 * allocation of their block (kernel pages no flag shows: vmalloc, page frags, large
 * kmalloc) take that request's migratetype, as the simulation's own allocations of the
 * same requests have it (their kind stays unknown): both sides then count them alike
 * (pageblocks holding unmovable pages). *@nr_typed gets those pages.
 * @taken (may be NULL): the frees and refills whose page an untraced allocation took
 * (the pass ahead's, sim-ahead.h): such a page was in use, not on a list.
 * Return: 0, or a negative bc_err.
 */
int sim_seed_pcp_behind(struct tdb *db, const struct tr_decoder *dec, struct model *m,
			uint64_t seq_to, const struct sim_taken *taken, uint64_t *nr,
			uint64_t *nr_typed);

/*
 * Free pages off the free lists while the snapshot read them: page reporting
 * (page_reporting_process(): free blocks of page_reporting_order, pageblock order by
 * default, and above) holds blocks off the lists while it reports them
 * (__isolate_free_page() clears PageBuddy), so a snapshot that reads one sees pages of
 * flags 0, as of kernel pages no flag shows, and the block is back on its free list
 * (__putback_isolated_page(), at the tail) a moment later with no event. Every path
 * that frees a page in use is traced (free_pages_prepare(): mm_page_free) and a pcp
 * page reaches the buddy by a traced drain; the paths that take free pages without a
 * page event name their ranges (alloc_contig_range() and offline_pages():
 * test_pages_isolated; compaction's free scanner: its window). So a seeded page of
 * flags 0 (pcp pages
 * placed first: sim_seed_pcp()) that no event of [@seq_from, @seq_to) names and that
 * snapshot @other reads PageBuddy (the window covers the events between the two) was
 * free at the seed: it goes back to the buddy. (A page of flags 0 in both snapshots is
 * left in use: a kernel allocation without __GFP_COMP held throughout reads so; the
 * caller may ask the next snapshot then, over the longer window.)
 * *@nr gets the pages put back. Return: 0, or a negative bc_err.
 */
int sim_seed_reported(struct tdb *db, const struct tr_decoder *dec, struct model *m,
		      const struct tdb_snap_info *other, uint64_t seq_from, uint64_t seq_to,
		      uint64_t *nr);

/*
 * The order of the seed's free lists, which no /proc file shows, from the trace (as
 * simulate --teacher rebuilds it): the free blocks the kernel takes off the buddy in
 * [@seq_from, @seq_to) (mm_page_alloc_zone_locked, mm_page_alloc_extfrag) with no
 * event naming them before go to their lists' heads in the order they were taken,
 * the first taken at the head (__rmqueue_smallest() takes the head). *@nr gets the
 * blocks moved. Return: 0, or a negative bc_err.
 */
int sim_seed_free_order(struct tdb *db, const struct tr_decoder *dec, struct model *m,
			uint64_t seq_from, uint64_t seq_to, uint64_t *nr);

/*
 * The seed's guessed pageblock types (no /proc file gives one block's type: the seed
 * hands pagetypeinfo's counts out by the pages' evidence), told by the trace as
 * simulate --teacher learns them: the first event of [@seq_from, @seq_to) that names a
 * pageblock's type tells the type it had at the seed; for a block no such event names,
 * the last pcp hit of [@read_from, @seq_from), while the seed was read, does (the
 * drains of that window told theirs to the seed already: model_seed_drain_type()). A take off the buddy
 * (mm_page_alloc_zone_locked: __rmqueue_smallest() takes from the list of the block's
 * type; since 6.10 a free page is always on its block's list), a drain
 * (free_pcppages_bulk() names the block's type) and a pcp hit below order 4 (the page
 * was listed by its block's type when freed) name it; a fallback (mm_page_alloc_extfrag)
 * names the fallback type of each pageblock of its block, the zone_locked that a
 * claim emits just before it (the block already re-typed) names nothing. A wrong guess
 * is corrected as a drain corrects one (model_seed_drain_type(): a guessed block of the
 * new type takes the old one, so pagetypeinfo's counts stay). And what the kernel did
 * not take says what its lists did not hold: a take that split a block of order k for
 * an order-r request found its type's lists empty at orders r..k-1, so a seed block
 * still on one of them that cannot have left it since (no event has touched it, and
 * none its order-k neighbourhood or a page in use at the seed in its buddy) was of
 * another type: the other type with the most free blocks of its order (no partner:
 * nothing names one), still a guess: the first event naming the block tells its type
 * over it, and no other block's correction swaps it back. At the reporting order and
 * up, where free page reporting may have held the block off its list, only when
 * snapshot @snap says no device reports (file page_reporting), or a take a second
 * later misses it too. *@nr gets the blocks re-typed; *@nr_held (may be NULL) those
 * left as guessed because reporting may have held them. Return: 0, or a negative bc_err.
 */
int sim_seed_types(struct tdb *db, const struct tr_decoder *dec, struct model *m, int64_t snap,
		   uint64_t read_from, uint64_t seq_from, uint64_t seq_to, uint64_t *nr,
		   uint64_t *nr_held);

/*
 * The seed's pcp lists in the order the kernel's stood at the seed's end. The seed puts
 * a list together from two sources: the pages the read found on it (flags 0, at the
 * tail in the order the kernel later hands them out: sim_seed_pcp()), and those whose
 * state the read took before the window's events put them there (a free at the head).
 * The read walks the pfns while the kernel runs, so the two interleave. What the kernel
 * does next tells the order: it hands a list out from the head (rmqueue_pcplist()) and
 * drains it from the tail (free_pcppages_bulk()), and a free after the seed goes on
 * top without changing the order below. So each list is put in the order of the first
 * events after @seq_from naming its blocks: those this cpu's allocations take next, in
 * that order, at the head; those no event names (or another cpu's allocation: not this
 * list's) as they stand; those drained, the first drained at the tail. Before that,
 * a block below order 4 that this cpu's allocation of another migratetype takes first
 * moves to that type's list: a free files a page by its pageblock's type at the time,
 * which the seed guessed. *@nr gets the lists reordered, *@nr_relisted the blocks moved
 * to another list. Return: 0, or a negative bc_err.
 */
int sim_seed_pcp_order(struct tdb *db, const struct tr_decoder *dec, struct model *m,
		       uint64_t seq_from, uint64_t *nr, uint64_t *nr_relisted);

#endif
