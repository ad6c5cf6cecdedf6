/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim: the free-running simulation of a capture (`bigchunk simulate` without
 * --teacher). The model makes the allocator's decisions itself (model/decide.h):
 *
 *   1. the model is seeded from the capture's first snapshot, and the events recorded
 *      while that snapshot was read are replayed as replay does (the seed is then one
 *      instant: its end);
 *   2. from there every request of the capture (sim-requests.h) is made again:
 *      allocations through model_take() (returning 1 = no zone could serve it above
 *      its watermark: counted as "would have needed reclaim", the object is then not
 *      placed), frees through model_give() of the simulated page that allocation got
 *      (sim-pfnmap.h); a free of a page allocated before the capture releases the page
 *      where the snapshot has it; contiguous allocations and offlines the kernel made
 *      are made by the model's own search (sim-contig.h);
 *   3. at each later snapshot (its end), the simulated state's figures
 *      (sim-figures.h) are set against those of a model seeded from that snapshot.
 *
 * Deterministic: no clock, no randomness. Prints nothing (progress and notes through
 * callbacks).
 */
#ifndef BC_SIM_H
#define BC_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim-apply.h"	/* struct sim_stats */
#include "sim/sim-figures.h"

struct tdb;
struct model;
struct model_layout;
struct model_profile;
struct sim_apply;
struct sim_request;

struct sim_opts {
	uint64_t until_seq;		/* stop before this seq; UINT64_MAX: to the end */
	/* optional: every 65536 requests (@seq of @total events) and once with @done */
	void (*progress)(void *arg, uint64_t seq, uint64_t total, bool done);
	void (*note)(void *arg, const char *text);
	void *arg;
	/*
	 * What-if runs (compare/), all optional: @no_figures skips the comparisons at
	 * snapshots; @layout edits the seed's layout and profile (rp_opts.layout); @ready
	 * runs once the model is seeded, @done after the last request; @before runs
	 * before each request and returns 1 when it made the request itself (the driver
	 * then skips it). A negative return stops the run.
	 */
	bool no_figures;
	bool kernel_zones;		/* sim_apply_set_kernel_zones(): a diagnostic */
	int (*layout)(void *arg, struct model_layout *L, struct model_profile *p);
	int (*ready)(void *arg, struct model *m, struct sim_apply *ap);
	int (*before)(void *arg, struct model *m, struct sim_apply *ap,
		      const struct sim_request *rq);
	int (*done)(void *arg, struct model *m, struct sim_apply *ap);	/* at the end */
	void *hook_arg;
};

/*
 * The kernel's own count at a snapshot: /proc/buddyinfo (free blocks per zone and
 * order, every list, pcp pages not included), read right after the snapshot's begin
 * marker, against the simulation's buddy at that marker (before the pages are read,
 * while the kernel's side above is a model of the pages read until its end).
 */
struct sim_buddyinfo {
	bool have;			/* the snapshot has buddyinfo rows */
	uint64_t seq;			/* the snapshot's begin */
	uint64_t sim[MODEL_MAX_ZONES][SIM_ORDERS], kernel[MODEL_MAX_ZONES][SIM_ORDERS];
	unsigned int nr_misses;		/* zone orders out of sim_order_tolerance() */
};

struct sim_snapshot {
	int64_t snap;			/* snapshots.id */
	uint64_t ts, seq;		/* where the simulation was compared: the snapshot's end */
	struct sim_figures sim, kernel;
	struct sim_verdict verdict;
	struct sim_buddyinfo bi;
};

struct sim_result {
	int64_t seed_snap;
	uint64_t seed_seq;		/* the first request's seq (the seed's end) */
	struct sim_snapshot *snaps;
	int nr_snaps;
	struct sim_stats st;
	unsigned int zone_limits;	/* zones with watermarks and pcp sizes from the seed */
	char zone_name[MODEL_MAX_ZONES][16];	/* the layout's, for st.other_zone */
	unsigned int nr_zones;
};

/**
 * sim_run() - simulate @db (see above) up to @o->until_seq.
 * Return: 0 and *@out (free with sim_result_release()), or a negative bc_err (a
 * capture without a complete snapshot aligned to its trace cannot be simulated).
 */
int sim_run(struct tdb *db, const struct sim_opts *o, struct sim_result *out);
void sim_result_release(struct sim_result *r);

/**
 * sim_store() - the run's figures into @db (open with TDB_WRITE): table
 * simulate_figures (db/README.md), replacing the previous run's, in one transaction.
 * Return: 0, or a negative bc_err; then nothing changed.
 */
int sim_store(struct tdb *db, const struct sim_result *r);

#endif
