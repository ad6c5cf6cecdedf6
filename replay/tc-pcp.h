/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc-pcp: the teacher asks the model's pcp sizing too (replay/teacher.h). The replay
 * follows the kernel's events; at each of the kernel's own pcp decisions the model
 * says what it would decide from the true lists, and its struct per_cpu_pages state
 * (pcp->high, free_count, alloc_factor, ZONE_BELOW_HIGH) goes on as the kernel's code
 * leaves it, while the pages move by the kernel's events:
 *   - a free to a pcp list (free_unref_page_commit(): at its mm_page_free, or at its
 *     mm_page_free_batched when a batch traced its mm_page_free earlier): the pages it
 *     drains, against the mm_page_pcpu_drain events its cpu traced next;
 *   - an allocation through the pcp lists (rmqueue_pcplist()): a refill's size
 *     (nr_pcp_alloc()) against the kernel's zone_locked events of the request;
 *   - a traced vmstat_update(): decay_pcp_high()'s drain against the drains after it.
 * Drains no such decision explains (drain_all_pages(), a remote drain) are counted.
 * The free-running simulation makes these decisions itself; agreeing here says the
 * rules are the kernel's, so what differs there comes from the state. Both start from
 * the state the seed snapshot's read window left (tc_pcp_seed_window()).
 */
#ifndef BC_REPLAY_TC_PCP_H
#define BC_REPLAY_TC_PCP_H

#include <stdbool.h>
#include <stdint.h>

struct model;
struct tdb;
struct tr_decoder;
struct model_request;
struct tr_event;

/*
 * Decisions of one kind: asked; alike (the same pages; a drain's last block may go
 * past its count); missed (the kernel drained, the model would not); extra (the
 * model would have drained, the kernel did not); the rest drained other amounts.
 */
struct tc_pcp_kind {
	uint64_t asked, alike, missed, extra;
	uint64_t pages_kernel, pages_model;
};

struct tc_pcp_counts {
	struct tc_pcp_kind commit;	/* frees to a pcp list */
	struct tc_pcp_kind refill;	/* rmqueue_bulk() sizes */
	struct tc_pcp_kind decay;	/* vmstat_update()'s decay_pcp_high() */
	uint64_t unexplained_drain_pages;	/* drained with no decision open on the cpu */
	/* at each later snapshot's zoneinfo, before it syncs them: the lists compared,
	 * and their counts' distance from the kernel's summed */
	uint64_t synced_lists, synced_count_off;
	uint64_t synced_lists_moving;	/* lists not compared: their pages moved meanwhile */
	/* ... and their pcp->high as the model tuned it (lists with one): compared, equal
	 * to zoneinfo's, off summed */
	uint64_t synced_high_lists, synced_high_equal, synced_high_off;
};

struct tc_pcp;

/*
 * For @m, seeded from the snapshot read over events [@seed_begin, @seed_end), whose
 * zoneinfo counted @counts (pcp->count per zone and cpu: [zone * nr_cpus + cpu];
 * NULL: none); decisions from @seed_end on are asked. The model holds only the pcp
 * pages an event names: the kernel's count also has those no event named yet (a
 * deep list whose tail no drain reached), from zoneinfo's count less the model's at
 * the seed (the read's own pcp events counted), each taken off when an event names one
 * (on the list of its cpu, else of one that has such pages: a remote drain).
 */
int tc_pcp_create(const struct model *m, uint64_t seed_begin, uint64_t seed_end,
		  const uint32_t *counts, struct tc_pcp **out);
void tc_pcp_destroy(struct tc_pcp *p);
/*
 * The pages @ev put on its cpu's pcp list (< 0: took), as the kernel counts pcp->count:
 * a free of a pcp order, a refill's block (model_zone_locked_refill()), a pcp hit, a
 * drain.
 */
int64_t tc_pcp_moved(const struct model *m, const struct tr_event *ev);
/*
 * The first pass, each event in order: which mm_page_free a batch commits later; the
 * pcp pages the seed snapshot's read window added or took.
 */
int tc_pcp_scan(struct tc_pcp *p, const struct model *m, const struct tr_event *ev);
int tc_pcp_scan_done(struct tc_pcp *p);
/*
 * Before the first pass: a later snapshot's zone files were read over events
 * [@begin, @end) (its begin marker to its first "pages" marker), zoneinfo first. Added
 * in snapshot order; tc_pcp_sync() takes them in that order.
 */
int tc_pcp_add_window(struct tc_pcp *p, uint64_t begin, uint64_t end);
/*
 * The next such snapshot's zoneinfo (@counts as at create), read before the event to
 * come: the kernel's counts are these there (the limits, pcp->high included, the caller
 * sets). A list whose pages moved by more than a pcp batch while the files were read
 * (when zoneinfo read it is not known) is taken so too, but not compared.
 */
void tc_pcp_sync(struct tc_pcp *p, struct model *m, const uint32_t *counts,
		 struct tc_pcp_counts *c);
/*
 * The same snapshot's pcp->high of each list: @before as the model had tuned it,
 * against the zoneinfo's the caller set (model_set_pcp_high()).
 */
void tc_pcp_sync_high(struct tc_pcp *p, struct model *m, const uint32_t *before,
		      struct tc_pcp_counts *c);
/* The replay: before each event is applied, and after. */
int tc_pcp_before(struct tc_pcp *p, struct model *m, const struct tr_event *ev,
		  struct tc_pcp_counts *c);
int tc_pcp_after(struct tc_pcp *p, struct model *m, const struct tr_event *ev,
		 struct tc_pcp_counts *c);
/*
 * The kernel served @q from @zone, its request's first event next: its zone checks
 * (ZONE_BELOW_HIGH), and through the pcp lists (@pcp) its rmqueue_pcplist(), with
 * @refill the kernel's @kernel_pages taken by rmqueue_bulk().
 */
int tc_pcp_alloc(struct tc_pcp *p, struct model *m, const struct model_request *q,
		 unsigned int zone, bool pcp, bool refill, uint64_t kernel_pages,
		 struct tc_pcp_counts *c);
/*
 * offline_pages() of the range at @pfn begins (@begin) or ends: zone_pcp_disable()
 * holds its zone's lists at high 0, batch 1 meanwhile (every free drains, every
 * refill takes one block); zone_pcp_enable() gives the limits back.
 */
int tc_pcp_offline(struct tc_pcp *p, struct model *m, uint64_t pfn, bool begin);
/* The end of the replay: the open decisions closed. */
int tc_pcp_finish(struct tc_pcp *p, struct model *m, struct tc_pcp_counts *c);

/*
 * The pcp state of the seed's end. zoneinfo is read at the snapshot's begin
 * (@seq_begin); its pcp->high (taken by the seed) moves in the read window as the
 * kernel tunes it: a traced vmstat_update() decays it by an eighth and drains down to
 * it (decay_pcp_high()), a refill raises it by its batch (nr_pcp_alloc()), a free over
 * it raises it (nr_pcp_high()). Left at zoneinfo's, a list whose window held a decay
 * keeps a high an eighth too large, and its refills are not capped where the
 * kernel's were (high - count - batch): the simulation's alloc_factor then doubles
 * where the kernel's did not, and its refills take twice as many pages from then on.
 * The window's events are asked of the model's pcp decisions (model_pcp_*_decide(),
 * as simulate --teacher asks them) with the kernel's pcp->count then: zoneinfo's
 * (@counts, [zone * nr_cpus + cpu]) moved by the window's pcp events. *@nr: the lists
 * whose high the window moved.
 */
int tc_pcp_seed_window(struct tdb *db, const struct tr_decoder *dec, struct model *m,
		       uint64_t seq_begin, uint64_t seq_end, const uint32_t *counts,
		       uint64_t *nr);

#endif
