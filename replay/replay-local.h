/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of replay/: never included outside replay/. */
#ifndef BC_REPLAY_LOCAL_H
#define BC_REPLAY_LOCAL_H

#include "db/tdb.h"
#include "model/model.h"
#include "replay/replay.h"
#include "trace/tr-marks.h"

struct tdb_zone_count;

#define RP_SUSPECTS	64	/* pcp frees that may have failed their trylock */
#define RP_FH_ZONES	8	/* zones tracked by the free_high rule (MAX_NR_ZONES <= 6) */
#define RP_FH_CAND	64	/* frees of one locked episode (replay-freehigh.c) */
#define RP_FOLIO_BATCH	32	/* > FOLIO_BATCH_SIZE (31): folios per free_unref_folios() */

struct rp_snap {
	int64_t id;
	int64_t seq_begin, seq_end;	/* -1 unaligned */
	int64_t seq_files_end;		/* first "pages" marker: the zone files were read
					 * before it; seq_end when there is none */
	int64_t ts_begin, ts_end;
	uint64_t nr_pfns;
	bool complete;
};

struct replay {
	struct tdb *db;
	struct rp_opts opts;
	struct model *m;
	struct model_layout layout;
	struct model_profile profile;

	struct tr_decoder *dec;

	struct rp_snap *snaps;
	int nr_snaps;
	int seed_snap;			/* index in snaps[] seeded from (-1 none yet) */
	int next_snap;			/* next index to score */

	struct tr_attempt *attempts;
	/* per attempt: where the model would have stopped, whether it isolated too */
	struct model_contig_result *att_follow;
	/* per attempt: model_alloc_contig_range() from the state where it began */
	struct model_contig_result *att_verdict;
	int nr_attempts;
	int next_attempt;		/* next to begin */
	int open_attempt;		/* index of the attempt in progress, -1 */
	/* offline probes whose isolation the kernel refused (tr_probe_refusals()) */
	struct tr_attempt *refusals;
	int nr_refusals, next_refusal;
	uint64_t refusals_applied;

	uint64_t *lost;			/* lost-event windows: seq of the first event after */
	int nr_lost, next_lost;

	struct rp_score *scores;
	int nr_scores;
	/* Zone figures (buddyinfo, pagetypeinfo) of the next snapshot, taken when its
	 * reading began: the snapshot reads those files first, the page flags last. */
	struct rp_score pending;
	bool pending_zones;
	/*
	 * Free blocks per zone and order over the window the zone files were read in
	 * (snapshot begin to its first "pages" marker): the kernel's buddyinfo line of a
	 * zone is one instant of that window, so it is scored against the range.
	 */
	bool bwin_open;
	int64_t bwin_end;
	struct tdb_zone_count *bwin_rows;	/* the snapshot's buddyinfo, read once */
	int bwin_nrows;
	int64_t bwin_lo[MODEL_MAX_ZONES][16], bwin_hi[MODEL_MAX_ZONES][16];

	/* Page-reading progress of the seed snapshot ("pages PFN" markers): an event
	 * during the reading whose page was read after it is already in the seed. */
	struct tr_pages_mark *seed_marks;
	int nr_seed_marks, seed_mark;
	uint64_t seed_skipped;		/* events already reflected in the seed */

	uint64_t applied;
	uint64_t next_seq;
	uint64_t snapshot_anomalies;	/* anomalies while a snapshot was read */
	uint64_t uncertain_marks;
	bool lost_since_snapshot;	/* a lost-event window since the last resync */

	/*
	 * Per cpu, free_unref_folios() in progress: the pcp-order pfns of the last run of
	 * mm_page_free (its prepare loop), how far mm_page_free_batched has confirmed them,
	 * and when the last confirmation came. A free on that cpu while some are still
	 * unconfirmed came from an interrupt that found the pcp lock taken.
	 */
	struct rp_free_batch {
		/* before 6.7: free_high and the frees past a held pcp lock */
		struct rp_free_high {
			uint8_t ff[RP_FH_ZONES];	/* free_factor, per zone */
			int8_t prev, prev_zone;	/* the cpu's last event: kind, zone */
			bool burst_high;	/* the drains running are a free_high's */
			/* an order 1-3 free made with free_factor set */
			bool pending;
			int8_t pending_zone;
			unsigned int pending_order;
			uint64_t pending_pfn;
			/* frees of ep_zone since a drain or a bypass at ep_ts */
			bool ep_open;
			int8_t ep_zone;
			uint8_t n_cand;
			uint64_t ep_ts;
			uint64_t cand_pfn[RP_FH_CAND];
			uint8_t cand_order[RP_FH_CAND];
		} fh;
		uint64_t pfn[RP_FOLIO_BATCH];
		uint8_t n, next;
		bool confirming;
		uint64_t ts_confirm;
		/*
		 * rmqueue_pcplist() holds the cpu's pcp lock across its refill
		 * (rmqueue_bulk(): zone_locked with percpu_refill) until it has taken
		 * the page its mm_page_alloc then reports: a free of that zone on that
		 * cpu in between came from an interrupt (trylock failed).
		 */
		bool refilling;
		int refill_zone;
		uint64_t ts_refill;
	} *batch;
	unsigned int nr_batch;
	/*
	 * Frees made inside a refill's locked section (see free_inside_refill()), kept on
	 * the pcp list until evidence says the trylock failed: the last RP_SUSPECTS, pfn
	 * and order (UINT64_MAX: empty).
	 */
	struct { uint64_t pfn; unsigned int order; } suspect[RP_SUSPECTS];
	unsigned int suspect_next;
	bool free_high;		/* the kernel's free_high is 6.1's (replay-freehigh.c) */
	uint64_t trylock_late;	/* pcp frees found in the buddy later (a take, a snapshot's
				 * read) and moved there */

	/* pfns touched by events while the snapshot being scored was read (bitmap) */
	uint64_t *touched;
	uint64_t touched_words;
};

/* Was @pfn touched by an event while the snapshot being scored was read? */
static inline bool rp_touched(const struct replay *rp, uint64_t pfn)
{
	return pfn / 64 < rp->touched_words && (rp->touched[pfn / 64] >> (pfn % 64)) & 1;
}

/*
 * The block at @pfn of @order that the model holds on a pcp list (@cpu's; -1 any) had
 * gone past the list to the buddy (a failed pcp trylock, found later): move it there as
 * a drain would, counted in trylock_late. 0 also when the model does not hold it so.
 */
int rp_pcp_past_list(struct replay *rp, uint64_t pfn, unsigned int order, int cpu);

/* replay-freehigh.c: before 6.7 (rp_free_high_applies()), around each event */
bool rp_free_high_applies(const struct replay *rp);
int rp_free_high_before(struct replay *rp, const struct tr_event *ev);
void rp_free_high_after(struct replay *rp, const struct tr_event *ev);

/* replay-seed.c */

/* One chunk of a snapshot's pages (rp_walk_pages()). */
struct rp_pages {
	unsigned int zone;
	uint64_t pfn, n;		/* [pfn, pfn + n), inside the zone */
	const uint64_t *flags;		/* kpageflags */
	const uint64_t *count;		/* kpagecount; NULL unless asked for */
};

struct rp_page_walk {
	bool with_count;		/* read kpagecount too */
	/* optional: before a zone's first chunk, after its last (zend: its end read) */
	int (*zone_begin)(struct replay *rp, unsigned int zi, uint64_t zend, void *arg);
	int (*zone_end)(struct replay *rp, unsigned int zi, void *arg);
	int (*chunk)(struct replay *rp, const struct rp_pages *pg, void *arg);
};

/*
 * Read the pages of snapshot @s (the pfns it holds), zone by zone, in aligned chunks
 * (a whole number of MAX_ORDER blocks), and hand each to @w. The first error stops it.
 */
int rp_walk_pages(struct replay *rp, const struct rp_snap *s, const struct rp_page_walk *w,
		  void *arg);
int rp_seed(struct replay *rp, const struct rp_snap *s);
/*
 * Re-seed aligned windows that disagree with snapshot @s (not touched while it was
 * read); in the others, in-use pages take the kind the snapshot shows when it is a
 * definite one (LRU, slab, page table, THP, hugetlb, reserved ...).
 */
int rp_resync(struct replay *rp, const struct rp_snap *s, uint64_t *resynced, uint64_t *kinds);
/*
 * After a resync: the guessed pageblock types take snapshot @s's per-zone counts
 * (model_fit_guessed_pageblocks()); @sc gets how many were re-typed and what moved.
 */
int rp_refit_types(struct replay *rp, const struct rp_snap *s, struct rp_score *sc);

/* replay-score.c */
int rp_score_snapshot(struct replay *rp, const struct rp_snap *s, struct rp_score *out);
/* Zone figures against the snapshot's text files, into rp->pending. */
int rp_score_zones_now(struct replay *rp, const struct rp_snap *s);
/* While the zone-file window is open: widen it by the model's state now. */
void rp_buddy_window_update(struct replay *rp);
/* Close it: score buddyinfo against the window's range, into rp->pending. */
void rp_buddy_window_close(struct replay *rp);

#include "common/kpageflags.h"

/* Coarse class of a page, comparable between kpageflags and the model. */
enum rp_class {
	RP_CLASS_HOLE,
	RP_CLASS_FREE,		/* buddy */
	RP_CLASS_NOFLAGS,	/* pcp, uninitialised, tails of non-compound allocations */
	RP_CLASS_MOVABLE,	/* LRU anon/file, THP */
	RP_CLASS_UNMOVABLE,	/* slab, page tables, other kernel pages */
	RP_CLASS_RESERVED,
	RP_CLASS_HUGETLB,
	RP_CLASS_OTHER,		/* offline, zero page */
};
enum rp_class rp_class_of_flags(uint64_t flags);

#endif
