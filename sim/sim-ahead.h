/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim-ahead: one pass over a capture's events before a free-running simulation, for
 * its request stream (sim-requests.h, sim_reqs_set_ahead()): when the kernel decided
 * each request, and the requests its events leave out.
 */
#ifndef BC_SIM_AHEAD_H
#define BC_SIM_AHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/sim-requests.h"

struct model;
struct tdb;
struct tr_decoder;
struct tr_attempt;

/*
 * What a pass ahead over events [@seq_from, @seq_to) finds, for requests to stand where
 * the kernel made them (sim_ahead_find()), and for those the trace does not show:
 *   - reused: the frees whose page the kernel handed out again with no event
 *     (sorted seqs): alloc_pages_bulk() (vmalloc's pages, among others) takes pages off
 *     a pcp list without mm_page_alloc, so the next event naming such a page is another
 *     mm_page_free (mm_page_free_batched is the same free's commit). Such frees are
 *     handed out with @reused set: the allocation that took the page back came right
 *     after (the page lay at its list's head, which the next pcp hit would have taken),
 *     so a simulation leaves the page in use. A range a contiguous attempt or
 *     compaction's free scanner took (test_pages_isolated,
 *     mm_compaction_isolate_freepages) names its pages. Where the page's next event
 *     never comes (vmalloc'd memory kept), its list tells: an order-0 allocation that
 *     takes a page freed onto its cpu's list (no event since), or a page no event has
 *     named since the pass began (it lay on the list before every free since), is a
 *     pcp hit from the head, so the pages freed onto that list after it that no event
 *     has named since had left the list untraced; so had all such pages of a list an
 *     order-0 refill fills (rmqueue_bulk() fills only an empty list), but one freed
 *     just after another cpu's drain event (drain_all_pages() may have held the
 *     list's lock: the free went to the buddy) (nr_taken; one freed before the
 *     requests start, in the seed's read window, is an inferred allocation instead:
 *     the seed holds it on the list). The list a free joins is its pageblock's
 *     type, as the seed has it and the events since show it (a take off the buddy, a
 *     drain, a pcp hit, a claim); a free into a range a contiguous attempt holds
 *     isolated, or an interrupt's free inside a batch's commits (mm_page_free between
 *     two mm_page_free_batched of its cpu, the second committing an older page: the
 *     pcp trylock failed; nr_past), or a free of a pcp order whose page an event next
 *     names as a take off the buddy (mm_page_alloc_zone_locked: a pcp page leaves its
 *     list only by a hit or a traced drain; an interrupt's free at the end of its
 *     cpu's drain, which ran with interrupts off inside the pcp lock; nr_past too),
 *     went to the buddy, on no list. A free at the hit's
 *     very time is not taken (the order of the two is not told).
 *   - early: the allocations the kernel decided before requests of other cpus that
 *     their mm_page_alloc event follows. The event comes at the end of
 *     __alloc_pages(), after prep_new_page() (zeroing a THP under init_on_alloc takes
 *     milliseconds) and whatever preempted the task; the decision is the first
 *     mm_page_alloc_zone_locked of its refill or buddy allocation (same cpu, and the
 *     page it hands out: rmqueue_bulk() fills an empty list, whose head the allocation
 *     takes). Handed out there, by at_seq; early_seqs (sorted) are their own events,
 *     skipped when they come. With them, by at_seq too, the allocations a pcp hit
 *     shows the trace left out (rq.inferred): a hit on a page a refill put on the
 *     list finds the pages that refill put before it gone when no event named them
 *     (alloc_pages_bulk() took them; nr_inferred), handed out before the hit, or right
 *     after the refill when its first page is among them (the refill was the bulk's).
 *   - deferred: the frees of a batch (free_unref_folios(); free_unref_page_list()
 *     before 6.9), made at their commits: the kernel traces mm_page_free as it
 *     prepares each page, then commits them one by one to the pcp list with
 *     mm_page_free_batched, each commit draining the list when it is full
 *     (free_unref_page_commit()). Other cpus' requests between saw the pages not yet
 *     on the list and the drains not yet made. The frees' own events (sorted seqs);
 *     the request stream holds each on its cpu until the commit of its page. Frees
 *     after a batch's last commit while it still has pages uncommitted are an
 *     interrupt's, unless the next commit is of one of them: the old batch never
 *     committed the rest (a prepare that failed), and they are the next batch's.
 *   - settles: where a batch that other cpus' events interrupted ended (the zone lock
 *     held all along: their requests in between were pcp hits and frees). Until then
 *     the zone's NR_FREE_PAGES, which their watermark checks read, had not yet (6.1:
 *     rmqueue_bulk() accounts once, at the end) or only partly (6.10+: per block)
 *     counted the batch: the allocation is handed out held, and its cpu's SETTLE
 *     request comes at the batch's last event (the request stream also hands out one
 *     with the block's pages at each of the batch's events between: v6.10+ counts
 *     each block as it takes it).
 */
struct sim_early {
	uint64_t at_seq, at_ts;		/* handed out before this event */
	size_t nth;			/* found in this order: ties keep it */
	struct sim_request rq;		/* the allocation (rq.seq: its own event) */
};

struct sim_settle {
	uint64_t seq, ts;		/* the batch's last zone_locked (or extfrag) */
	int cpu;
};

/*
 * The first order-0 refill of a cpu's pcp lists of a zone after the seed: its
 * allocation's event (seq), and the pages rmqueue_bulk() took (the zone_locked events
 * of a percpu refill on that cpu before it). nr_pcp_alloc() sizes a refill by
 * alloc_factor, which no file shows and the seed cannot know: the kernel's first
 * refill tells it (model_pcp_infer_alloc_factor()).
 */
struct sim_first_refill {
	uint64_t seq;			/* the allocation's mm_page_alloc */
	unsigned int zone, cpu, pages;
};

struct sim_ahead {
	uint64_t *reused;
	size_t nr_reused;
	uint64_t nr_taken;		/* ... of them found above a pcp hit */
	uint64_t *past;			/* frees (seqs, sorted) past the locked list, to
					 * the buddy: an interrupt's inside a batch's
					 * commits, or whose page a buddy take names next */
	size_t nr_past;
	struct sim_early *early;	/* by at_seq: early and inferred allocations */
	size_t nr_early;
	uint64_t nr_inferred;
	uint64_t nr_passed_over;	/* early: allocations of a high-order page a drain
					 * of its cpu passed over the list of */
	uint64_t nr_hit_zeroing;	/* early: high-order pcp hits made their zeroing
					 * time before their event */
	uint64_t *taken_refills;	/* the refill events (seqs, sorted) of their pages */
	size_t nr_taken_refills;
	uint64_t *early_seqs;		/* early[].rq.seq of the early ones, sorted */
	size_t nr_early_seqs;
	uint64_t *deferred;		/* the frees made at their commits (seqs, sorted) */
	size_t nr_deferred;
	struct sim_settle *settles;	/* by seq */
	size_t nr_settles;
	struct sim_first_refill *first_refills;	/* by seq, from the requests' start */
	size_t nr_first_refills;
};

/* The pcp lists per cpu for order 0: MIGRATE_PCPTYPES. */
#define SIM_PCP_LISTS	3

struct sim_ahead_geo {
	uint64_t pfn_end;		/* pfns below */
	unsigned int pageblock_order;
	/*
	 * By pageblock (pfn >> pageblock_order, up to pfn_end's): the pcp list (trace
	 * numbering, 0..SIM_PCP_LISTS-1) a page freed there joins at the pass's start,
	 * -1 not known (isolated); the events correct it. NULL: no list is followed.
	 */
	const int8_t *pb_list;
	const int8_t *pb_zone;		/* by pageblock: its zone, -1 none (pcp lists are
					 * per zone) */
	unsigned int nr_zones;
	/*
	 * The contiguous attempts (by seq_begin; borrowed): a page freed into a range
	 * one holds isolated goes to the buddy (free_one_page()), not on a list.
	 */
	const struct tr_attempt *att;
	size_t nr_att;
	/*
	 * Requests are found from this event on (the seed's end); the events before it
	 * (the seed's read window) only show the lists. A page freed there that a later
	 * hit shows was taken is an inferred allocation (the seed holds it on the list).
	 */
	uint64_t record_from;
};

/*
 * @g's pageblock arrays from @m (the seed): each block's zone, and the pcp list its
 * type files frees on (an isolated or unknown block: none); pfn_end, pageblock_order
 * and nr_zones too, the rest 0. Release with sim_ahead_geo_release().
 * Return: 0, or -BC_E_NOMEM.
 */
int sim_ahead_geo_init(struct sim_ahead_geo *g, const struct model *m);
void sim_ahead_geo_release(struct sim_ahead_geo *g);

/*
 * Fill *@out (release with sim_ahead_release()) for events [@seq_from, @seq_to).
 * Return: 0, or a negative bc_err (*@out empty).
 */
/* order_to_pindex(): the pcp list of a block of @order and trace type @mt, -1 none. */
int sim_pcp_pindex(unsigned int order, int mt, unsigned int pageblock_order);

int sim_ahead_find(struct tdb *db, const struct tr_decoder *dec, uint64_t seq_from,
		   uint64_t seq_to, const struct sim_ahead_geo *g, struct sim_ahead *out);
void sim_ahead_release(struct sim_ahead *a);
#endif
