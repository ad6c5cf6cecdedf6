/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of checkers/: never included outside checkers/. The interface is chk.h. */
#ifndef BC_CHK_LOCAL_H
#define BC_CHK_LOCAL_H

#include "checkers/chk.h"
#include "db/tdb.h"
#include "model/model.h"
#include "replay/replay.h"

/*
 * Shadow word per pfn: bits 0-2 state, bit 3 SH_HEAD, bit 4 SH_UNTRACED, bits 5-31 the
 * lost-event epoch in which it was last written. A word of an older epoch than the
 * current one may have been changed by lost events: what it says is inconclusive.
 */
enum sh_state {
	SH_UNKNOWN,		/* not touched by any event yet */
	SH_ALLOC,		/* mm_page_alloc (or a contiguous range, see SH_CONTIG) */
	SH_FREE,		/* mm_page_free of a pcp order: pcp or buddy, cannot tell */
	SH_BUDDY,		/* certainly in the buddy (drained, non-pcp order, isolated) */
	SH_TAKEN,		/* off a free list without an alloc event yet (zone_locked,
				 * compaction free scanner): pcp, pending, or silently used */
	SH_CONTIG,		/* held by a successful contiguous allocation */
	SH_ALLOC_PT,		/* mm_page_alloc of an order-0 page-table page or pipe
				 * buffer: it can come back to a pcp list with no
				 * mm_page_free (chk-trace.c) */
};

#define SH_STATE_MASK	7u
/* First pfn of the block the last free or drain named (chk-trace.c). */
#define SH_HEAD		(1u << 3)
/* Freed with no allocation event since its last free or refill: it left a free list
 * once without an event, and may again (chk-trace.c). */
#define SH_UNTRACED	(1u << 4)
#define SH_EPOCH_SHIFT	5
#define SH_PAGE_SHIFT	16	/* pfns per shadow page */
#define SH_PAGE		(1u << SH_PAGE_SHIFT)

#define CHK_COMPACT_TASKS	8	/* kcompactd per node, direct compactors */

/* One attempt as the checkers follow it. */
struct chk_att {
	struct tr_attempt a;
	uint64_t drain_end;	/* first non-drain event of the attempt's pid: escapes count from here */
	bool drained;		/* drain_end known */
	bool lost;		/* a lost window falls inside the attempt */
	bool active;
	bool begun, ended;
	bool held;		/* success: range marked SH_CONTIG */
	/* model pageblock types of the range before isolation (first 4096 blocks) */
	uint8_t *pb_before;
	uint64_t pb_first, nr_pb;
};

#define PBS_ISO		0x80	/* shadow pageblock byte: isolated; low bits stored type */
#define PBS_GUESS	0x40	/* the type is a guess of the seed (model/guess.c) */
#define PBS_MT		0x3f	/* the stored type */
#define PBS_NONE	0xff	/* not read */

struct chk_ctx {
	struct chk_opts o;
	struct chk_violation *viol;
	size_t nr_viol;
	uint64_t inv_count[CHK_NR_INV];
	struct chk_result r[CHK_NR_CHECKERS];
	uint64_t events, hypothetical;
	bool replayed;
	uint64_t explained_seq, explained_pfn;	/* the first explained case */
	uint64_t nopcp_seen;		/* trylock-failed frees counted as explained so far */
	uint64_t trylock_late;		/* replay's, found at evidence (rp_trylock_late()) */
	uint64_t gf_scan;		/* model_guess_fixes() at the last full scan */
	char explained_note[CHK_NR_CHECKERS][320];	/* the first explained case, in words */

	/* layout */
	bool have_layout;
	struct model_layout L;
	unsigned int pb_order, max_order;
	bool order18;		/* gigantic frees of order 18 allowed */
	int isolate_mt;		/* trace number of MIGRATE_ISOLATE */
	bool isolate_bit;	/* v6.17+: undo keeps the stored type */
	bool no_probe_records;	/* the capture holds no probes rows (an imported trace) */

	/* shadow pfn map: dir[pfn >> SH_PAGE_SHIFT] */
	uint32_t **dir;
	uint64_t nr_dir;
	uint64_t max_dir;	/* dir entries a real pfn can need (see chk_set_layout()) */
	uint64_t pfns_outside;	/* pfns of events beyond it, left out of the map */
	uint32_t epoch;

	/* lost windows: seq of the first event after each gap, sorted */
	uint64_t *lost;
	size_t nr_lost, next_lost;

	/* attempts, by seq_begin */
	struct chk_att *att;
	int nr_att;
	int next_att;		/* next not yet begun */
	int nr_active;

	/* the event being checked */
	const struct tr_event *ev;
	uint64_t last_check_seq;	/* seq of the last full model check */
	uint64_t since_recount;

	/* pageblock shadow (model) */
	uint8_t *pbs;
	uint64_t pb_base, nr_pbs;	/* pageblock index of pbs[0] */

	/* hypothetical attempt in progress */
	struct chk_att hyp;
	uint64_t hyp_unmovable;		/* unmovable/reserved pages in the range before */
	uint64_t hyp_free;		/* free pages of the range's zone before */
	bool hyp_have_free;		/* the range lies in one zone */

	struct replay *rp;
	struct tdb *db;
	struct chk_reads *reads;	/* when the snapshots read each page (chk-mlocked.c) */
	bool reads_failed;		/* they could not be loaded: no evidence from them */
	char mode_note[200];		/* why trace only, or "" */

	/* trace-only decoding */
	struct tr_decoder *dec;
	uint32_t pcp_orders;		/* pcp_allowed_order() bits of the profile */
	uint64_t claim_pfn;		/* last extfrag claim (change_ownership), for its alloc */
	int claim_mt;
	/* tasks running compaction's migration (chk-trace.c compacting()) */
	int compact_pid[CHK_COMPACT_TASKS];
};

/* chk.c */
/*
 * Record one violation of @inv at the current event. @inconclusive: it concerns pages
 * of a lost window; counted as inconclusive, not as a violation.
 */
void chk_report_v(struct chk_ctx *c, enum chk_inv inv, bool inconclusive, uint64_t pfn,
		  unsigned int order, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
bool chk_on(const struct chk_ctx *c, enum chk_checker k);
void chk_count(struct chk_ctx *c, enum chk_checker k, uint64_t n);

/* Shadow map: the word of @pfn, NULL when never written (unless @create). */
uint32_t *chk_sh_word_slow(struct chk_ctx *c, uint64_t pfn, bool create);
static inline uint32_t *chk_sh_word(struct chk_ctx *c, uint64_t pfn, bool create)
{
	uint64_t d = pfn >> SH_PAGE_SHIFT;

	if (d < c->nr_dir && c->dir[d])
		return &c->dir[d][pfn & (SH_PAGE - 1)];
	return create ? chk_sh_word_slow(c, pfn, true) : NULL;
}
static inline enum sh_state sh_state(uint32_t w)
{
	return (enum sh_state)(w & SH_STATE_MASK);
}
static inline bool sh_stale(const struct chk_ctx *c, uint32_t w)
{
	return (w >> SH_EPOCH_SHIFT) != c->epoch;
}
void chk_sh_set(struct chk_ctx *c, uint64_t pfn, uint64_t n, enum sh_state st);

/* chk-trace.c */
int chk_trace_before(struct chk_ctx *c, const struct model *m, const struct tr_event *ev);
int chk_trace_after(struct chk_ctx *c, const struct model *m, const struct tr_event *ev);
int chk_find_attempts(struct chk_ctx *c, struct tdb *db);
int chk_decode_init(struct chk_ctx *c, struct tdb *db);
bool chk_in_ram(const struct chk_ctx *c, uint64_t pfn);
const char *chk_event_name(const struct tr_event *ev);

/* chk-mlocked.c */
/*
 * Did the last snapshot to read @pfn before event @seq see it mlocked (KPF_MLOCKED)?
 * False also when no snapshot read it by then or the snapshots cannot be read.
 */
bool chk_read_mlocked(struct chk_ctx *c, uint64_t pfn, uint64_t seq);
struct chk_reads;
void chk_reads_free(struct chk_reads *r);

/* chk-model.c */
int chk_model_before(struct chk_ctx *c, const struct model *m, const struct tr_event *ev);
int chk_model_after(struct chk_ctx *c, const struct model *m, const struct tr_event *ev);
int chk_model_attempt_begin(struct chk_ctx *c, const struct model *m, struct chk_att *ca);
int chk_model_attempt_end(struct chk_ctx *c, const struct model *m, struct chk_att *ca);
/* An offline probe refused at isolation was made: its blocks' undo re-types accepted. */
int chk_model_refusal(struct chk_ctx *c, const struct model *m, const struct tr_attempt *a);
int chk_pbs_init(struct chk_ctx *c, const struct model *m);
int chk_freecount_snapshot(struct chk_ctx *c, const struct model *m, struct tdb *db,
			   const struct rp_score *sc);

#endif
