/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay: drive the model (model/model.h) through a capture (db/tdb.h), event by
 * event, and score the model against the kernel's own snapshots.
 *
 * A struct replay owns the model, the tdb cursor and the event decoder (trace/). It
 * seeds the model from the first complete snapshot (layout from zones/system_ram/
 * memory_blocks; pages from kpageflags; pageblock types inferred, see replay-seed.c),
 * then applies events in seq order. Real contiguous attempts in the trace
 * (alloc_contig_range, memory offline) are found in a first pass (tr_find_attempts())
 * so the range can be isolated in the model when the kernel isolated it, before any
 * event of the attempt shows which range it was. At each later snapshot it scores the
 * model (rp_score) and, unless told not to, resynchronises the pages that disagree.
 *
 * Consumers (checkers, predict) hook in through struct rp_hooks or step with
 * rp_step(). Replay is deterministic: it reads no clock and no randomness.
 */
#ifndef BC_REPLAY_H
#define BC_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/tr-attempt.h"	/* struct tr_attempt */
#include "trace/tr-event.h"	/* struct tr_event */

struct tdb;
struct model;
struct model_layout;
struct model_profile;
struct bc_event;

/*
 * How well the model agrees with one snapshot (taken after the first). Zone figures
 * are compared where the snapshot began (its text files are read first), page flags
 * where it ended (they are read last), pages touched in between counted apart.
 */
struct rp_score {
	int64_t snap;			/* snapshots.id */
	uint64_t ts, seq;		/* where the model was compared (snapshot end) */
	uint64_t pfns_compared;		/* RAM pfns in zones, minus those below */
	uint64_t pfns_changed;		/* touched by events while the snapshot was read */
	uint64_t pfns_uncertain;	/* in lost-event windows, not settled */
	/*
	 * Free in the kernel, in whole pageblocks the seed read as flags 0 that no event
	 * touched since: blocks free page reporting held off the free lists while the seed
	 * was read (page_reporting_cycle(): __isolate_free_page(), then
	 * __putback_isolated_page(), no tracepoint). The seed cannot tell them from kernel
	 * pages; not compared. Likewise whole pageblocks the kernel reads as flags 0 that
	 * the model holds in a free block no event touched (held by reporting now).
	 */
	uint64_t pfns_reported;
	uint64_t state_agree;		/* free (buddy) vs not, same in model and kernel */
	uint64_t kind_compared, kind_agree;
	double pfn_agree_state;		/* state_agree / pfns_compared */
	double pfn_agree_kind;		/* kind_agree / kind_compared */
	double buddyinfo_max_rel_err;	/* max over zone, order of the kernel's distance from the
					 * model's range while the zone files were read, over
					 * max(kernel,1) */
	double buddyinfo_begin_max_rel_err; /* the same against the model at the begin marker */
	double buddyinfo_free_err;	/* max over zones of the free pages at other orders
					 * (sum |model - kernel| x 2^order, model as above)
					 * over the zone's free pages: robust to small counts */
	/*
	 * The score per order: max over zone, order of |model - kernel| x 2^order over the
	 * zone's free pages in buddyinfo (model as above). Small counts weigh what they
	 * hold: 25 order-1 blocks the kernel has not are 50 pages, not an error of 25x.
	 */
	double buddyinfo_order_err;
	double buddyinfo_begin_order_err; /* the same against the model at the begin marker */
	double pagetypeinfo_max_rel_err;/* max over zone, migratetype of pageblock counts */
	char buddy_worst_zone[16];	/* where buddyinfo_order_err is (the worst order) */
	int buddy_worst_order;
	int64_t buddy_worst_model, buddy_worst_kernel;
	char ptype_worst[64];		/* "ZONE Type: model N, kernel M" */
	/* What the state disagreement consists of (pfns). */
	uint64_t model_free_kernel_used, model_used_kernel_free;
	uint64_t resynced_pfns;
	uint64_t kinds_refreshed;	/* in-use pfns that took the snapshot's kind after it */
	/*
	 * Pageblocks whose types were guesses re-typed after it to pagetypeinfo's counts,
	 * and the first zone's counts that moved ("Normal Movable 418->424, ...").
	 */
	uint64_t pb_refit;
	char pb_refit_note[96];
};

struct rp_opts {
	uint64_t until_seq;		/* stop before this seq; UINT64_MAX = to the end */
	bool no_score;			/* do not score at snapshots */
	bool no_resync;			/* score, but keep the model's own state */
	bool no_attempts;		/* do not model real attempts (for tests) */
	/* snapshots.id to seed from (complete, aligned); 0 = the first such */
	int64_t seed_snap;
	/*
	 * Ask model_alloc_contig_range() at each real attempt (rp_attempt_verdict()): a
	 * hypothetical 1 GiB attempt each, which predict and check do not need.
	 */
	bool attempt_verdicts;
	/*
	 * What the user may want to see; replay prints nothing itself. Both optional.
	 * @progress: every 65536 events (@next_seq of @total) and once with @done when
	 * rp_run() returns. @note: one line of text (an event type that cannot be
	 * modelled, an unknown kernel release), borrowed for the call.
	 */
	void (*progress)(void *arg, uint64_t next_seq, uint64_t total, bool done);
	void (*note)(void *arg, const char *text);
	void *arg;
	/*
	 * Optional: edit the layout and profile read from the seed's snapshot before the
	 * model is built (what-if layouts: a carved zone, a reserved range). Its non-zero
	 * return fails rp_create().
	 */
	int (*layout)(void *arg, struct model_layout *L, struct model_profile *p);
	void *layout_arg;
};

struct replay;

/* Hooks, all optional; a non-zero return stops rp_run() and is returned by it. */
struct rp_hooks {
	void *arg;
	int (*before_event)(void *arg, struct replay *rp, const struct tr_event *ev);
	int (*after_event)(void *arg, struct replay *rp, const struct tr_event *ev);
	/* A real attempt begins (the model has just isolated its range) / ends. */
	int (*attempt_begin)(void *arg, struct replay *rp, const struct tr_attempt *a);
	int (*attempt_end)(void *arg, struct replay *rp, const struct tr_attempt *a);
	int (*at_snapshot)(void *arg, struct replay *rp, const struct rp_score *sc);
	/*
	 * An offline probe refused at isolation (tr_probe_refusals()) is about to be made
	 * (@done false) / was made (@done true): its blocks re-typed with no event.
	 */
	int (*refusal)(void *arg, struct replay *rp, const struct tr_attempt *a, bool done);
};

/**
 * rp_create() - prepare a replay of @db: read layout and profile, find the attempts,
 * build the model and seed it from the first complete snapshot.
 * Return: 0 and *@out (caller frees with rp_destroy()), or a negative bc_err (e.g. a
 * capture without snapshots: the message says to record with snapshots).
 */
int rp_create(struct tdb *db, const struct rp_opts *opts, struct replay **out);
void rp_destroy(struct replay *rp);

/* Borrowed, valid until rp_destroy(). */
struct model *rp_model(struct replay *rp);
struct tdb *rp_tdb(struct replay *rp);

/* Apply events up to opts->until_seq (or the end), calling @hooks (may be NULL). */
int rp_run(struct replay *rp, const struct rp_hooks *hooks);

/* Real attempts found in the capture (borrowed array, by seq_begin). */
const struct tr_attempt *rp_attempts(const struct replay *rp, int *nr);
/*
 * Attempt @i as the model followed it (NULL if out of range): stage SUCCESS when the
 * pre-screen and the isolation agreed with the kernel going on, else the stage and
 * pfn where the model would have stopped, and whether the model could isolate the
 * range too. Meaningful once the attempt has begun.
 */
const struct model_contig_result *rp_attempt_follow(const struct replay *rp, int i);
/*
 * The model's own verdict on attempt @i (NULL if out of range or not asked for, see
 * rp_opts.attempt_verdicts): model_alloc_contig_range() from the state where the kernel
 * began it, rolled back. The model knows no pins and no
 * refcounts: predict --verify adds what the capture says of those.
 */
const struct model_contig_result *rp_attempt_verdict(const struct replay *rp, int i);
/* Scores so far (borrowed array). */
const struct rp_score *rp_scores(const struct replay *rp, int *nr);
/* Events applied so far, and the seq of the next event. */
uint64_t rp_events_applied(const struct replay *rp);
uint64_t rp_next_seq(const struct replay *rp);
/* Anomalies seen while a snapshot was being read (snapshot races, not model faults). */
uint64_t rp_anomalies_during_snapshots(const struct replay *rp);

/*
 * Decode and apply one event to the model alone: no attempts, snapshots or hooks.
 * For benchmarks (the model fed from memory) and tests.
 */
int rp_apply_event(struct replay *rp, const struct bc_event *raw);

/* Events recorded while the seed snapshot was read whose page it read afterwards:
 * already in the seed, so not applied again. */
uint64_t rp_seed_reconciled(const struct replay *rp);
/* Frees inside a refill's locked section moved to the buddy at later evidence. */
uint64_t rp_trylock_late(const struct replay *rp);
/* Offline probes refused at isolation whose silent re-type was made (model_isolate_refused()). */
uint64_t rp_refusals_applied(const struct replay *rp);
/* snapshots.id of the snapshot the model was seeded from. */
int64_t rp_seed_snapshot(const struct replay *rp);

/* The decoder of the capture's events (for consumers that read events themselves,
 * with tr_decode()); borrowed, valid until rp_destroy(). */
const struct tr_decoder *rp_decoder(const struct replay *rp);

/*
 * Store the scores and anomaly counts in the capture (tables replay_scores,
 * replay_anomalies; the db must be open with TDB_WRITE), replacing the previous
 * replay's, in one transaction. Return: 0, or a negative bc_err; then nothing changed.
 */
int rp_store_results(struct replay *rp, struct tdb *db);

#endif
