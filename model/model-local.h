/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model-local.h - internals of the page allocator model. Never included outside model/.
 *
 * State owned by a struct model:
 *
 *   words[]     one uint32_t per pfn of [base, base + span) (4 bytes/pfn):
 *                 bit 31      uncertain (lost-event window, cleared by any rewrite)
 *                 bits 30-27  tag (enum wtag)
 *                 bits 26-0   payload: a free-list node index for BUDDY/PCP heads,
 *                             alloc fields for ALLOC/TAIL (see W_* below)
 *   pool        free-list nodes, one per free block (buddy or pcp), in fixed chunks so
 *               that their addresses never move (the journal keeps pointers)
 *   pb[]        one struct pblock per pageblock: stored type, isolate bit, zone,
 *               page counters per enum model_pb_counter (the tails of a pcp block are
 *               WT_FREE_TAIL words but counted as PCP: model_pcp_add() and
 *               model_del_free() move them, so pcp refills and drains of THP-order
 *               blocks rewrite one word, not 512)
 *   zones[]     per zone: free lists [order][mt], per-cpu lists [cpu][pindex],
 *               pageblock counts per type
 *   anomalies   counts and first occurrences per class
 *   journal     (pointer, old 32-bit value) pairs while a checkpoint is open
 *
 * Every mutation of the above goes through jset32()/jset16() so that
 * model_rollback() can undo it. Migratetypes are kept internally as enum imt
 * (independent of CONFIG_CMA) and converted at the API edge.
 */
#ifndef BC_MODEL_LOCAL_H
#define BC_MODEL_LOCAL_H

#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "model/decide.h"
#include "model/model.h"
#include "model/model-debug.h"

/* Internal migratetypes. */
enum imt {
	IMT_UNMOVABLE,
	IMT_MOVABLE,
	IMT_RECLAIMABLE,
	IMT_HIGHATOMIC,		/* MIGRATE_PCPTYPES */
	IMT_CMA,
	IMT_ISOLATE,
	NR_IMT,
};

/* migratetype_is_mergeable(): below MIGRATE_PCPTYPES. */
static inline int imt_mergeable(int mt)
{
	return mt < IMT_HIGHATOMIC;
}

enum wtag {
	WT_UNINIT,		/* present, uninitialised: 0, so that a released map page of
				 * uninitialised memory reads right and costs nothing */
	WT_HOLE,		/* no memmap */
	WT_FREE_TAIL,		/* non-first page of a free block (buddy or pcp: see the head) */
	WT_BUDDY,		/* first page of a free buddy block; payload = node */
	WT_PCP,			/* first page of a pcp block; payload = node */
	WT_ALLOC,		/* first page of an allocation; payload = W_* fields */
	WT_TAIL,		/* other pages of an allocation; kind and mt valid */
};

#define W_UNCERTAIN	0x80000000u
#define W_TAG_SHIFT	27
#define W_TAG_MASK	0xfu
#define W_PAYLOAD	0x07ffffffu

/* ALLOC/TAIL payload fields. */
#define W_ORDER_MASK	0x1fu		/* bits 0-4: order (ALLOC) */
#define W_MT_SHIFT	5		/* bits 5-7: requested imt, 7 = unknown */
#define W_MT_UNKNOWN	7u
#define W_KIND_SHIFT	8		/* bits 8-11: enum model_kind */
#define W_GFP_SHIFT	12		/* bits 12-14: enum model_gfp_class */
#define W_SEEDED	(1u << 15)	/* from a snapshot: order not known */
#define W_DRAINED	(1u << 16)	/* seeded flags 0, not freed by a full pcp drain */

static inline unsigned int wtag(uint32_t w)
{
	return (w >> W_TAG_SHIFT) & W_TAG_MASK;
}

static inline uint32_t wmake(unsigned int tag, uint32_t payload)
{
	return ((uint32_t)tag << W_TAG_SHIFT) | payload;
}

static inline unsigned int w_order(uint32_t w)
{
	return w & W_ORDER_MASK;
}

static inline unsigned int w_mt(uint32_t w)
{
	return (w >> W_MT_SHIFT) & 7u;
}

static inline unsigned int w_kind(uint32_t w)
{
	return (w >> W_KIND_SHIFT) & 0xfu;
}

static inline unsigned int w_gfp(uint32_t w)
{
	return (w >> W_GFP_SHIFT) & 7u;
}

static inline uint32_t w_alloc(unsigned int order, unsigned int mt, unsigned int kind,
			       unsigned int gfp, uint32_t flags)
{
	return wmake(WT_ALLOC, order | (mt << W_MT_SHIFT) | (kind << W_KIND_SHIFT) |
			       (gfp << W_GFP_SHIFT) | flags);
}

static inline uint32_t w_tail(unsigned int mt, unsigned int kind)
{
	return wmake(WT_TAIL, (mt << W_MT_SHIFT) | (kind << W_KIND_SHIFT));
}

#define NIL		0xffffffffu

/* A free-list node: one per free block (buddy or pcp). 12 bytes. */
struct fnode {
	uint32_t next;		/* pfn index of the next block, NIL at the tail */
	uint32_t prev;
	uint32_t info;		/* FN_* fields */
};

#define FN_ORDER_MASK	0x1fu		/* bits 0-4 */
#define FN_MT_SHIFT	5		/* bits 5-7: list imt (pcp: pindex type) */
#define FN_PCP		(1u << 8)
#define FN_CPU_SHIFT	12		/* bits 12-31: cpu (pcp) */

#define POOL_CHUNK_SHIFT 12
#define POOL_CHUNK	(1u << POOL_CHUNK_SHIFT)
#define POOL_MAX_CHUNKS	32768		/* 2^27 nodes */

struct flist {
	uint32_t head;		/* pfn index, NIL when empty */
	uint32_t tail;
	uint32_t count;		/* blocks */
};

/* pcp lists: orders 0-3 x {UNMOVABLE, MOVABLE, RECLAIMABLE}, plus two for THP order. */
#define PCP_LOW_ORDERS	4
#define NR_PCP_LISTS	(PCP_LOW_ORDERS * 3 + 2)

struct mzone {
	uint64_t start, end;		/* absolute pfns [start, end) */
	uint32_t istart, iend;		/* indices */
	struct flist *free;		/* [order * NR_IMT + mt] */
	struct flist *pcp;		/* [cpu * NR_PCP_LISTS + pindex] */
	uint32_t *pcp_count;		/* pages per cpu */
	uint32_t nr_pb[NR_IMT];		/* pageblocks per effective type */
	uint32_t free_pages[NR_IMT];	/* buddy pages per list type */
	uint32_t nr_free;		/* NR_FREE_PAGES: free_pages[] below IMT_ISOLATE */
	uint32_t pcp_pages;
};

/* decide.c: a zone's zoneinfo limits (model_set_zone_limits()) and pcp tuning. */
struct dzone {
	struct model_zone_limits lim;
	bool lim_known;			/* else lim holds the defaults, once computed */
	struct dpcp *dpcp;		/* [cpu]; NULL until first needed */
	/*
	 * ZONE_BELOW_HIGH (v6.7+), kept once model_take() runs (bh_kept; before, the
	 * state stands in: free pages at or under the high watermark); journaled.
	 */
	uint32_t below_high, bh_kept;
};

/* struct per_cpu_pages tuning the trace does not show (decide.c); journaled. */
struct dpcp {
	uint32_t high;			/* pcp->high */
	uint32_t alloc_factor;
	uint32_t free_count;
	uint32_t prev_free_high;	/* PCPF_PREV_FREE_HIGH_ORDER */
	uint32_t vm_free_diff;		/* int32: vm_stat_diff[NR_FREE_PAGES] */
	/*
	 * A drain decided and not yet made (model_set_drain_deferred()): the
	 * free_pcppages_bulk() calls left, each of at most drain_batch pages (0: one call)
	 * starting at list drain_start, drain_total pages in all; drain_left (int32) the
	 * pages left of the call under way (<= 0: none), at list drain_pindex, which
	 * drain_in_list says it is still taking from. drain_clear: a commit's drain, after
	 * which ZONE_BELOW_HIGH is tested.
	 */
	uint32_t drain_total, drain_batch, drain_start, drain_left, drain_pindex;
	uint32_t drain_in_list, drain_clear;
};

/* Pageblock: 20 bytes; counters are u16 (at most 1 << pageblock_order <= 32768). */
struct __attribute__((aligned(4))) pblock {
	uint8_t mt;			/* stored 3-bit type (imt, never ISOLATE with the bit) */
	uint8_t flags;			/* PB_* */
	uint8_t zone;			/* zone index, PB_NOZONE when none */
	uint8_t pad;
	uint16_t cnt[MODEL_NR_PBC];
};

#define PB_ISOLATE	0x01		/* PB_migrate_isolate */
#define PB_STRADDLE	0x02		/* more than one zone (or a hole) in the block */
#define PB_GUESS	0x04		/* type inferred at seed, no event has shown it (guess.c) */
#define PB_ABSENT	0x08		/* a take showed it was not the type first guessed */
#define PB_NOZONE	0xff

struct jentry {
	void *p;
	uint32_t old;
};

#define MAX_CHECKPOINTS 16

struct anom {
	uint64_t count[MODEL_NR_ANOM];
	uint32_t nrec[MODEL_NR_ANOM];
	struct model_anomaly_rec rec[MODEL_NR_ANOM][MODEL_ANOM_KEEP];
};

struct model {
	struct model_layout layout;
	struct model_profile prof;
	uint64_t base;			/* pfn of words[0] */
	uint32_t span;			/* pfns modelled */
	unsigned int pb_order;
	unsigned int max_order;
	unsigned int nr_orders;		/* max_order + 1 */
	unsigned int nr_cpus;
	uint32_t *words;
	/* model_set_migrate_hook(): told of every folio model_migrate_range() moves */
	void (*migrate_hook)(void *arg, uint64_t from, uint64_t to, unsigned int order);
	void *migrate_arg;
	uint32_t present_pfns;		/* RAM pfns in zones at creation */
	struct pblock *pb;
	uint32_t nr_pb;
	struct mzone zones[MODEL_MAX_ZONES];
	unsigned int nr_zones;
	int8_t zone_type[MODEL_MAX_ZONES];	/* model_zone_type_of_name() of each, -1 none */
	struct dzone *dz;		/* [nr_zones], decide.c; NULL until first needed */

	/* node pool */
	struct fnode **chunks;		/* grows; the chunks themselves never move */
	uint32_t nr_chunks, cap_chunks;
	uint32_t pool_top;		/* nodes ever handed out (journaled) */
	uint32_t pool_free;		/* free node list head (journaled), NIL if none */
	uint32_t pool_used;		/* journaled */

	/* counters (journaled as u32 pairs via jset64) */
	uint64_t ops;
	uint64_t alloc_failed;
	uint64_t init_pages;
	uint64_t implicit_claims;
	uint64_t unknown_settled;	/* seeded flags-0 pages resolved by an event */
	uint64_t nopcp_frees;		/* model_page_free_nopcp() */
	bool drain_deferred;		/* model_set_drain_deferred() */
	uint32_t drains_pending;	/* pcp lists with a drain pending; journaled */
	uint64_t hugetlb_allocs;	/* mm_page_alloc taken for the hugetlb pool by gfp */
	uint64_t guess_fixes;		/* guessed pageblock types an event corrected (guess.c) */
	uint64_t bulk_allocs;		/* pcp pages taken by an untraced alloc_pages_bulk() */
	struct anom an;

	uint64_t seq, ts;		/* current event (not journaled) */
	unsigned int opts;		/* MODEL_OPT_* */

	/* journal */
	struct jentry *jr;
	size_t jr_len, jr_cap;
	unsigned int nr_cp;
	size_t cp_mark[MAX_CHECKPOINTS];
	/*
	 * Sticky -BC_E_NOMEM: a free-list node or a journal entry could not be
	 * allocated. The state may be half-updated (node) or not undoable (journal):
	 * every later call that changes the model returns this (model_broken()).
	 */
	int err;
};

/*
 * The kind of a page an allocation of @gfp and @order makes: hugetlb for the pool's
 * allocations (model_gfp_hugetlb()), else what the gfp mask tells (model_gfp_kind()).
 * Replay (events.c) and the decisions (decide.c) must agree on it.
 */
enum model_kind model_alloc_kind(const struct model *m, uint64_t gfp, unsigned int order);

/* ---- out of memory ------------------------------------------------------------- */

/* Mark @m broken (m->err) and return -BC_E_NOMEM with the message. */
int model_nomem(struct model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* -BC_E_NOMEM with a message saying the model ran out of memory earlier. */
int model_refuse(void);

/* Entry check of the calls that change the model: 0, or the sticky error. */
static inline int model_broken(const struct model *m)
{
	return __builtin_expect(m->err, 0) ? model_refuse() : 0;
}

/* ---- journaled writes --------------------------------------------------------- */

/* Out of memory marks @m broken (model_nomem()); the write itself still happens. */
void model_journal_push(struct model *m, void *p);

static inline void jset32(struct model *m, uint32_t *p, uint32_t v)
{
	if (m->nr_cp)
		model_journal_push(m, p);
	*p = v;
}

/* 16-bit fields are journaled through their aligned 32-bit container. */
static inline void jset16(struct model *m, uint16_t *p, uint16_t v)
{
	if (m->nr_cp)
		model_journal_push(m, (void *)((uintptr_t)p & ~(uintptr_t)3));
	*p = v;
}

static inline void jset8(struct model *m, uint8_t *p, uint8_t v)
{
	if (m->nr_cp)
		model_journal_push(m, (void *)((uintptr_t)p & ~(uintptr_t)3));
	*p = v;
}

static inline void jset64(struct model *m, uint64_t *p, uint64_t v)
{
	if (m->nr_cp) {
		model_journal_push(m, p);
		model_journal_push(m, (uint32_t *)p + 1);
	}
	*p = v;
}

static inline void jadd32(struct model *m, uint32_t *p, int32_t d)
{
	jset32(m, p, *p + (uint32_t)d);
}

/* ---- addressing ----------------------------------------------------------------- */

static inline int pfn_to_idx(const struct model *m, uint64_t pfn, uint32_t *idx)
{
	if (pfn < m->base || pfn - m->base >= m->span)
		return 0;
	*idx = (uint32_t)(pfn - m->base);
	return 1;
}

static inline uint64_t idx_to_pfn(const struct model *m, uint32_t idx)
{
	return m->base + idx;
}

static inline struct fnode *node_of(const struct model *m, uint32_t n)
{
	return &m->chunks[n >> POOL_CHUNK_SHIFT][n & (POOL_CHUNK - 1)];
}

static inline struct pblock *pb_of(const struct model *m, uint32_t idx)
{
	return &m->pb[idx >> m->pb_order];
}

/* get_pfnblock_migratetype(): ISOLATE when the bit is set, else the stored type. */
static inline int pb_eff_mt(const struct pblock *b)
{
	return (b->flags & PB_ISOLATE) ? IMT_ISOLATE : b->mt;
}

/*
 * Guessed pageblock types (guess.c). model_pb_confirm(): an event showed the block's
 * type as the model holds it. model_pb_fix_guess(): an event showed a guessed block
 * is of type @mt; returns 1 when it was re-typed as a guess correction (a partner
 * re-typed to keep the per-zone counts), 0 when the block was not guessed.
 */
void model_pb_confirm(struct model *m, uint32_t pbi);
int model_pb_fix_guess(struct model *m, uint32_t pbi, int mt);

/* Give back the map pages of [idx, idx + n) whose words are all 0 (uninitialised). */
void model_release_uninit(struct model *m, uint32_t idx, uint32_t n);

/* Zone index of @idx, -1 when none. */
int model_idx_zone(const struct model *m, uint32_t idx);

static inline struct flist *free_list(struct model *m, struct mzone *z, unsigned int order,
				      int mt)
{
	return &z->free[order * NR_IMT + mt];
}

/* ---- migratetype conversions ----------------------------------------------------- */

int model_imt_from_trace(const struct model *m, int mt);	/* -1 if invalid */
int model_imt_to_trace(const struct model *m, int imt);

/* ---- page categories (pageblock counters) --------------------------------------- */

/* Category tables (model.c): by tag below WT_ALLOC, else by (kind << 3 | mt). */
extern const uint8_t model_tag_cat[WT_ALLOC];
extern uint8_t model_kind_mt_cat[128];

static inline enum model_pb_counter model_word_cat(uint32_t w)
{
	unsigned int t = wtag(w);

	if (t < WT_ALLOC)
		return (enum model_pb_counter)model_tag_cat[t];
	return (enum model_pb_counter)model_kind_mt_cat[(w >> W_MT_SHIFT) & 0x7f];
}

/* Change the words of [idx, idx + n) to @w (first) and @tailw (the rest), keeping the
 * pageblock counters. Pass tailw == w for uniform ranges. */
void model_write_range(struct model *m, uint32_t idx, uint32_t n, uint32_t w, uint32_t tailw);
/* model_write_range() when every tail's old word is known to be of @old_tail_cat
 * (e.g. the free tails of a block just unlinked): no per-word category lookups. */
void model_fill_range(struct model *m, uint32_t idx, uint32_t n, uint32_t w, uint32_t tailw,
		      enum model_pb_counter old_tail_cat);
/* Write one word, keeping counters. */
void model_write_word(struct model *m, uint32_t idx, uint32_t w);

/* ---- buddy internals (buddy.c) ---------------------------------------------------- */

/*
 * The int functions below return 0 or -BC_E_NOMEM (no free-list node could be
 * allocated; @m is then broken and its state only fit for model_destroy()).
 */

/* A free-list node in *@n. Return: 0, or -BC_E_NOMEM (and @m is broken). */
int model_node_alloc(struct model *m, uint32_t *n);
void model_node_free(struct model *m, uint32_t n);

/* Add a free block to a buddy list (head or tail); words of the block set to free. */
int model_add_free(struct model *m, struct mzone *z, uint32_t idx, unsigned int order,
		   int mt, int tail);
/* Unlink the free block (buddy or pcp) whose head is @idx; the words are left as they are
 * (still counted free/pcp). Returns its node info. */
uint32_t model_del_free(struct model *m, uint32_t idx);
/* __free_one_page(): merge and insert; pages of the block must already be free words. */
int model_free_one(struct model *m, struct mzone *z, uint32_t idx, unsigned int order,
		   int mt, int to_tail);
/* free_one_page() -> split_large_buddy(): pieces of at most pageblock order, each with
 * its own block's type; @to_tail: FPI_TO_TAIL. */
int model_free_split(struct model *m, struct mzone *z, uint32_t idx, unsigned int order,
		     int to_tail);
/* Find the free block holding @idx: returns WT_BUDDY or WT_PCP (the head's tag) and
 * its head, else 0. */
int model_find_free_head(const struct model *m, uint32_t idx, uint32_t *head);
/* Find the allocation head holding @idx (scan down aligned heads). */
int model_find_alloc_head(const struct model *m, uint32_t idx, uint32_t *head);
/* Take the free block with head @head out of its list and split it so that
 * [idx, idx + 2^order) is carved out (expand() when idx == head); the pieces go to the
 * head of list @mt (-1 = each piece's block type). The carved pages keep free words
 * and must be rewritten by the caller. */
int model_carve(struct model *m, struct mzone *z, uint32_t head, uint32_t idx,
		unsigned int order, int mt);
/* Make [idx, idx + n) not free: carve every free block overlapping it; the carved
 * pages are left as free words for the caller to overwrite. */
int model_unfree_range(struct model *m, uint32_t idx, uint32_t n);
/* Set the stored type of a pageblock, keeping zone counts (no list moves). */
void model_pb_set_mt(struct model *m, uint32_t pbi, int mt);
void model_pb_set_isolate(struct model *m, uint32_t pbi, int on);
/* __move_freepages_block(): move every buddy block inside the pageblock to @new_mt
 * lists (tail, no merge). Returns pages moved. */
uint32_t model_move_freepages_block(struct model *m, uint32_t pbi, int new_mt);

/* find_large_buddy(): head of a free buddy block of order > pageblock order covering
 * pageblock @pbi, or NIL. */
uint32_t model_find_large_buddy(const struct model *m, uint32_t pbi);
/* Cut a covering free block of order > pageblock order into pageblock-order blocks,
 * each on its own block's list, without merging. */
int model_split_cover(struct model *m, uint32_t pbi);

/* Re-type a pageblock and move its free pages (split a covering buddy first). */
int model_retype_block(struct model *m, uint32_t pbi, int mt);

/* pcp helpers (buddy.c) */
int model_pcp_allowed(const struct model *m, unsigned int order);
/* order_to_pindex(): the pcp list of @order and (pcp) type @mt. */
unsigned int model_pcp_pindex(unsigned int order, int mt);
/* @tails_free: the block's tails are WT_FREE_TAIL already (a refill or a move from
 * the buddy), else they are rewritten. */
int model_pcp_add(struct model *m, struct mzone *z, uint32_t idx, unsigned int order,
		  int mt, int cpu, int tail, int tails_free);

/* ---- anomalies ------------------------------------------------------------------ */

void model_anomaly(struct model *m, enum model_anomaly a, uint32_t idx, unsigned int order);

/* ---- isolation (isolate.c), for contig.c ------------------------------------------ */

/* [start, end) as indices; 0 when empty or outside the model. */
/* -BC_E_INVAL saying pfns [@start, @end) are not a range of the modelled pfns. */
int model_range_error(const struct model *m, uint64_t start, uint64_t end);
int model_range_idx(const struct model *m, uint64_t start, uint64_t end, uint32_t *s,
		    uint32_t *e);
/* model_isolate_range() with MODEL_CONTIG_* @flags (has_unmovable_pages() rules). */
int model_isolate_range_flags(struct model *m, uint64_t start, uint64_t end,
			      enum model_isolate_mode mode, unsigned int flags,
			      uint64_t *fail_pfn);

#endif
