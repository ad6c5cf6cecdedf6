/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - a userspace model of the Linux page allocator: physical layout, per-pfn
 * state, pageblocks, buddy free lists, per-cpu (pcp) lists, pageblock isolation and
 * migration, driven one call per trace event.
 *
 * The model knows nothing of the trace database: replay/ decodes events and calls the
 * model_* operations below, which mirror the kmem tracepoints. Every function returns 0
 * or a negative enum bc_err (common/err.h) unless stated otherwise.
 *
 * Numbering conventions:
 *   - pfns are absolute (as in the trace);
 *   - migratetypes passed in and out are the *trace's* numbers of the profiled kernel
 *     (UNMOVABLE 0, MOVABLE 1, RECLAIMABLE 2, HIGHATOMIC 3, then CMA 4 only if the
 *     kernel has CONFIG_CMA, then ISOLATE); see model_profile.cma;
 *   - an "order" is log2 of the number of pages.
 *
 * State is opaque (struct model); internals live in model/model-local.h. A model is
 * not thread-safe: one caller at a time.
 *
 * Out of memory never aborts: the call that could not grow the free-list node pool
 * returns -BC_E_NOMEM (the isolation calls of isolate.c do not check yet: there it
 * shows at the next call), and so does model_rollback() when the undo journal could not
 * grow. The model is then broken (its state half-updated or not undoable): every later
 * call that changes it, model_checkpoint() and model_commit() return -BC_E_NOMEM, and
 * only queries and model_destroy() remain.
 *
 * Kernel rules mirrored (mm/page_alloc.c unless noted), and where:
 *   expand(), page_del_and_expand()         buddy.c model_carve(): caller keeps the
 *                                           lowest pages, halves to the list head
 *   __free_one_page(), buddy_merge_likely() buddy.c model_free_one(): merge below
 *                                           pageblock order always; at/above not
 *                                           across HIGHATOMIC/CMA/ISOLATE, mergeable
 *                                           buddy re-typed; tail when merge likely
 *   free_one_page(), split_large_buddy()    buddy.c model_free_split()
 *   __move_freepages_block(),               buddy.c model_move_freepages_block(),
 *   find_large_buddy()                      model_find_large_buddy()
 *   free_frozen_pages() (6.12
 *   free_unref_page()), pcp_allowed_order() events.c do_free(): pcp head unless the
 *                                           block is isolated or the order is not pcp
 *   rmqueue_bulk(), __rmqueue_pcplist()     events.c model_zone_locked() (refill =
 *                                           list tail), model_page_alloc()
 *   free_pcppages_bulk()                    events.c model_pcpu_drain()
 *   try_to_claim_block(), __rmqueue_steal() events.c model_extfrag(); isolate.c
 *   __rmqueue_claim(), __rmqueue()          rmqueue()/try_claim() for model_alloc_block()
 *   __isolate_free_page() re-type           events.c (free-block-retyped-movable)
 *   start_isolate_page_range(),             isolate.c model_isolate_range()
 *   isolate_single_pageblock(),             (mm/page_isolation.c)
 *   has_unmovable_pages()
 *   unset_migratetype_isolate()             isolate.c model_undo_isolate_range()
 *   test_pages_isolated()                   isolate.c model_test_pages_isolated()
 *   __alloc_contig_migrate_range()          isolate.c model_migrate_range()
 *   alloc_contig_range(), offline_pages(),  contig.c model_alloc_contig_range(),
 *   pfn_range_valid_contig()                model_range_valid_contig()
 *   kpageflags (fs/proc/page.c)             seed.c model_seed_pfn_range() (flags 0 =
 *                                           unknown even with a map count)
 *   ext4_sb_breadahead_unmovable(),         model.c model_gfp_kind(): the order-0
 *   grow_dev_folio() (fs/), allocate_slab() GFP_NOWAIT|__GFP_COMP folio is LRU page cache,
 *                                           a HARDWALL folio too, slab by its first-try gfp
 *   alloc_buddy_hugetlb_folio()             model.c model_gfp_hugetlb(): pool pages
 *   (mm/hugetlb.c)                          are allocated as hugetlb (events.c)
 *   free_pcppages_bulk() migratetype,       guess.c: a guessed pageblock type corrected
 *   __rmqueue_smallest() list type          (a partner keeps pagetypeinfo's counts)
 *   __alloc_pages_bulk() (untraced)         events.c do_free(): free of a pcp page
 *   get_page_from_freelist(), rmqueue(),    decide.c (model/decide.h): the allocator's
 *   rmqueue_pcplist(), rmqueue_bulk(),      own decisions, model_decide()/model_take()/
 *   nr_pcp_alloc(), __rmqueue*(),           model_give(): zonelist, watermarks,
 *   __zone_watermark_ok(),                  NOFRAGMENT, pcp head/refill/drain, claim
 *   free_unref_page_commit()                and steal per profile
 *   __mod_zone_page_state(NR_FREE_PAGES)    decide.c model_vmstat_mod_free(): the
 *                                           counter the watermarks read
 *   decay_pcp_high() (6.7+)                 decide.c model_decay_pcp_high(), each
 *                                           second of the free-running simulation
 *   refresh_cpu_vm_stats()                  decide.c model_vmstat_fold(), before the
 *                                           decay (sim/sim-apply.c vmstat_tick())
 *   zone_set_pageset_high_and_batch(),      replay/zone-limits.c: pcp high_min and
 *   zone_highsize()                         high_max of zoneinfo that prints none
 *
 * Memory: one 32-bit word per pfn (model-local.h), plus 20 bytes per pageblock and 12
 * per free block; the words of uninitialised memory are 0 and their map pages are given
 * back until the memory grows. model_get_stats() reports the total per spanned and per
 * present pfn.
 */
#ifndef BC_MODEL_H
#define BC_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct model;

/* ---- Kernel profile ------------------------------------------------------------ */

/* Rules that changed between kernel releases. */
struct model_profile {
	unsigned int version;		/* MODEL_KVER(a, b, c) of the traced kernel */
	bool cma;			/* CONFIG_CMA: MIGRATE_CMA exists, ISOLATE is 5 */
	/*
	 * v6.17+: isolation is the PB_migrate_isolate bit and the stored type survives
	 * (set_pageblock_isolate()). Before: MIGRATE_ISOLATE overwrites the 3-bit type
	 * and undo writes MOVABLE (unset_migratetype_isolate() with the caller's type).
	 */
	bool isolate_bit;
	/*
	 * pfn_range_valid_contig(): v6.10-6.19 reject any PageHuge; 7.0 accepts hugetlb
	 * folios smaller than the request on a second pass; older kernels do not look.
	 */
	enum { MODEL_HUGETLB_CONTIG_IGNORE, MODEL_HUGETLB_CONTIG_REJECT,
	       MODEL_HUGETLB_CONTIG_TWO_PASS } hugetlb_contig;
	/*
	 * Gigantic (1 GiB) hugetlb free: v6.12+ one mm_page_free of order 18 that
	 * free_one_page() cuts with split_large_buddy(); older kernels free_contig_range()
	 * as 262,144 order-0 frees.
	 */
	bool gigantic_free_order18;
	/* pcp_allowed_order(): bit n set = order n goes through the pcp lists. */
	uint32_t pcp_orders;
	/* v6.10+ "freelist hygiene": a free page's list is its block's type. */
	bool freelist_hygiene;
	/*
	 * A cpu's share of its last-level data cache, in pages (cacheinfo's
	 * per_cpu_data_slice_size; meta cpu_data_slice_kb), 0 not known: taken as
	 * large. Over 3 pcp->batch, PCPF_FREE_HIGH_BATCH (v6.7+) keeps a batch on the
	 * list before a high-order free drains it.
	 */
	uint64_t data_slice_pages;
	/* v6.15 claim/steal split of __rmqueue_fallback (also in 6.12.118). */
	bool claim_steal;
	/*
	 * v5.13+ alloc_pages_bulk() (__alloc_pages_bulk(), 6.12 alloc_pages_bulk_noprof())
	 * takes order-0 pages off the pcp lists with __rmqueue_pcplist() and emits no
	 * mm_page_alloc: a free of a page held on a pcp list is such an allocation's end.
	 */
	bool bulk_untraced;
};

#define MODEL_KVER(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))

/*
 * Profile for a release string such as "6.18.44" or "6.12.118-amd64" (trailing text is
 * ignored). Unknown or unparsable strings give the 6.18 profile and return -BC_E_INVAL.
 * @pageblock_order is needed for the pcp THP order (pcp_orders bit).
 */
int model_profile_from_release(const char *release, unsigned int pageblock_order,
			       struct model_profile *out);

/*
 * A what-if layout with a CMA area on a kernel traced without CONFIG_CMA: from now on
 * trace migratetype 4 is MIGRATE_CMA and 5 ISOLATE (the internal types do not move).
 */
void model_set_cma(struct model *m, bool on);

/* Migratetype number of a /proc/pagetypeinfo type name for this profile; -1 unknown. */
int model_mt_of_name(const struct model_profile *p, const char *name);

/* ---- Physical layout ----------------------------------------------------------- */

#define MODEL_MAX_ZONES		32
#define MODEL_MAX_RAM		256
#define MODEL_MAX_PAGE_ORDER	15	/* largest MAX_PAGE_ORDER model_create() takes */

struct model_zone_layout {
	int nid;			/* NUMA node */
	char name[16];			/* "DMA", "DMA32", "Normal", "Movable", ... */
	uint64_t start_pfn;
	uint64_t spanned;		/* pages spanned: [start_pfn, start_pfn + spanned) */
	uint64_t present;
	uint64_t managed;
	bool movable;			/* ZONE_MOVABLE (has_unmovable_pages rule 3) */
};

struct model_pfn_range {
	uint64_t start, end;		/* [start, end) */
};

/* Filled by the caller from a snapshot (zoneinfo, iomem, memory blocks). */
struct model_layout {
	unsigned int nr_zones;
	struct model_zone_layout zones[MODEL_MAX_ZONES];	/* ascending, disjoint */
	unsigned int nr_ram;		/* 0 = everything spanned is RAM */
	struct model_pfn_range ram[MODEL_MAX_RAM];		/* System RAM, pfns */
	uint64_t memory_block_pages;	/* 32768 for 128 MiB blocks; 0 = unknown */
	unsigned int pageblock_order;	/* 9 on x86_64 */
	unsigned int max_page_order;	/* MAX_PAGE_ORDER, 10 on x86_64 */
	unsigned int nr_cpus;		/* possible CPUs (pcp lists per zone) */
	/*
	 * Bit n: the machine has a hugetlb pool of order n (/sys/kernel/mm/hugepages/
	 * hugepages-*kB). 0 = not known: pageblock_order is taken, the order of 2 MiB
	 * pages on x86_64 (HUGETLB_PAGE_ORDER), an assumption.
	 */
	uint32_t hugetlb_orders;
};

/*
 * Create a model of @layout. Every RAM pfn inside a zone starts "unknown" (in use,
 * kind unknown) until seeded; other pfns are holes. The layout may span at most
 * 2^28 - 8 pfns; pageblock_order 3 (PAGE_ALLOC_COSTLY_ORDER) .. max_page_order, and
 * max_page_order at most MODEL_MAX_PAGE_ORDER. Returns NULL on error (bc_errmsg() says
 * why, -BC_E_INVAL for a layout outside these bounds); free with model_destroy().
 */
struct model *model_create(const struct model_layout *layout,
			   const struct model_profile *profile);
void model_destroy(struct model *m);
const struct model_layout *model_get_layout(const struct model *m);
const struct model_profile *model_get_profile(const struct model *m);

/* Zone index of @pfn, or -1 when outside every zone. */
int model_pfn_zone(const struct model *m, uint64_t pfn);
/* The end of the highest zone's span: every pfn of a zone is below it. */
uint64_t model_pfn_end(const struct model *m);
/* Index of the zone @name ("Normal") of node @nid, as /proc files name it; -1 none. */
int model_zone_of_name(const struct model *m, int nid, const char *name);

/* ---- Per-pfn state --------------------------------------------------------------- */

/* What a page is used for, where known (from snapshots and events). Stable numbers. */
#define MODEL_KINDS							\
	_K(UNKNOWN,	"unknown")					\
	_K(ANON,	"lru-anon")					\
	_K(FILE,	"lru-file")					\
	_K(SLAB,	"slab")						\
	_K(PGTABLE,	"pagetable")					\
	_K(RESERVED,	"reserved")					\
	_K(HUGETLB,	"hugetlb")					\
	_K(THP,		"thp")						\
	_K(COMPOUND,	"compound")					\
	_K(OFFLINE,	"offline")					\
	_K(ZERO,	"zero-page")					\
	_K(KERNEL,	"kernel")

#define _K(k, s) MODEL_KIND_##k,
enum model_kind { MODEL_KINDS MODEL_NR_KINDS };
#undef _K
const char *model_kind_name(enum model_kind k);

enum model_pfn_state {
	MODEL_PFN_HOLE,			/* no memmap / not System RAM / outside zones */
	MODEL_PFN_UNINIT,		/* present, struct page not initialised yet */
	MODEL_PFN_BUDDY,		/* free in the buddy allocator */
	MODEL_PFN_PCP,			/* free on a per-cpu list */
	MODEL_PFN_ALLOC,		/* in use */
};

/* Coarse class of the gfp mask of an allocation (3 bits). */
enum model_gfp_class {
	MODEL_GFP_OTHER,
	MODEL_GFP_KERNEL,		/* GFP_KERNEL-like: direct reclaim, not movable */
	MODEL_GFP_USER_MOVABLE,		/* __GFP_MOVABLE set (user / page cache) */
	MODEL_GFP_ATOMIC,		/* __GFP_HIGH without direct reclaim */
	MODEL_GFP_NOWAIT,		/* no direct reclaim, not __GFP_HIGH */
	MODEL_GFP_TRANSHUGE,		/* __GFP_MOVABLE|__GFP_COMP, order >= pageblock_order */
	MODEL_GFP_UNKNOWN,		/* seeded from a snapshot */
	MODEL_GFP_PENDING,		/* left the buddy (zone_locked/extfrag), alloc event due */
};
enum model_gfp_class model_gfp_classify(uint64_t gfp, unsigned int order,
					unsigned int pageblock_order);
/* The kind an allocation's gfp mask alone tells (MODEL_KIND_UNKNOWN mostly; model.c). */
enum model_kind model_gfp_kind(uint64_t gfp, unsigned int order);
/*
 * Is this mm_page_alloc a hugetlb page taken from the buddy for the pool
 * (alloc_buddy_hugetlb_folio(), mm/hugetlb.c: pool growth, surplus pages, migration
 * targets)? Its gfp is htlb_alloc_mask() (GFP_HIGHUSER[_MOVABLE] | __GFP_COMP |
 * __GFP_NOWARN), plus __GFP_THISNODE and __GFP_RETRY_MAYFAIL where asked, at the order
 * of a pool of @hugetlb_orders (bit mask). THP (GFP_TRANSHUGE*) carries
 * __GFP_NOMEMALLOC and large page-cache folios __GFP_NORETRY, never hugetlb's; a
 * user-movable __GFP_COMP allocation of a pool's order with neither is taken for
 * hugetlb (an assumption where another such caller exists).
 */
bool model_gfp_hugetlb(uint64_t gfp, unsigned int order, uint32_t hugetlb_orders);

struct model_pfn_info {
	enum model_pfn_state state;
	uint64_t head;			/* first pfn of the block or allocation holding pfn */
	unsigned int order;		/* of that block (allocations: as allocated) */
	int mt;				/* free: list type; alloc: requested type; -1 unknown */
	int cpu;			/* pcp: owning cpu, else -1 */
	enum model_kind kind;		/* alloc only */
	enum model_gfp_class gfp_class;	/* alloc only */
	bool seeded;			/* alloc from a snapshot: order not known */
	bool drained;			/* seeded with flags 0; a full pcp drain of its zone
					 * did not free it: in use by the kernel (assumed:
					 * no snapshot shows its refcount) */
	bool uncertain;			/* inside a lost-event window, not settled since */
};
int model_pfn_info(const struct model *m, uint64_t pfn, struct model_pfn_info *out);
/* The kind of an in-use page as a snapshot shows it (kpageflags, kpagecount). */
enum model_kind model_kind_of_flags(uint64_t kpageflags, uint64_t mapcount);

/* ---- Pageblocks ----------------------------------------------------------------- */

/* Per-pageblock page counters, kept incrementally. Stable numbers. */
#define MODEL_PB_COUNTERS						\
	_C(FREE,	"free")		/* free in the buddy */		\
	_C(PCP,		"pcp")		/* free on a per-cpu list */	\
	_C(MOVABLE,	"movable")	/* in use, migratable */	\
	_C(UNMOVABLE,	"unmovable")	/* in use, unmovable/reclaimable */ \
	_C(RESERVED,	"reserved")					\
	_C(UNINIT,	"uninit")					\
	_C(UNKNOWN,	"unknown")	/* in use or pcp, cannot tell */ \
	_C(HOLE,	"hole")		/* not RAM / outside zones */

#define _C(c, s) MODEL_PBC_##c,
enum model_pb_counter { MODEL_PB_COUNTERS MODEL_NR_PBC };
#undef _C
const char *model_pb_counter_name(enum model_pb_counter c);

struct model_range_counts {
	uint64_t pages[MODEL_NR_PBC];
	uint64_t pageblocks[8];		/* per effective type (trace numbering), incl. ISOLATE */
	uint64_t isolated_pageblocks;
};

/*
 * Sum the pageblock counters over [start, end). Whole pageblocks are summed from their
 * counters; partial pageblocks at either end are scanned pfn by pfn. pageblocks[] counts
 * the pageblocks that intersect the range.
 */
int model_range_counts(const struct model *m, uint64_t start, uint64_t end,
		       struct model_range_counts *out);

/* Stored (3-bit) type, effective type (ISOLATE when isolated), isolate bit. */
int model_pageblock_mt(const struct model *m, uint64_t pfn, int *stored, int *effective,
		       bool *isolated);
/*
 * Set the stored type of the pageblock holding @pfn (e.g. from a snapshot), moving
 * its free pages to the new lists like move_freepages_block(). ISOLATE is refused
 * (use the isolation calls).
 */
int model_set_pageblock_mt(struct model *m, uint64_t pfn, int mt);
/*
 * Mark the pageblock holding @pfn's type as an assumption (the seed inferred it from
 * the pages and pagetypeinfo's per-zone counts). Later events confirm it, or correct
 * it: then the guessed block of the new type with the weakest evidence for that type
 * takes the old one, so that the per-zone counts stay pagetypeinfo's (guess.c).
 * A type change by an event (claim, isolation) makes the type known.
 */
int model_mark_pageblock_guessed(struct model *m, uint64_t pfn);
/*
 * ... a type re-guessed because a take showed the block was not the type guessed
 * first (a take off the buddy split a larger block while it lay on that list): still
 * an assumption an event confirms or corrects, but no partner of another block's
 * correction, whose swap would give it back the type the take ruled out.
 */
int model_mark_pageblock_absent(struct model *m, uint64_t pfn);
/*
 * A later snapshot's pagetypeinfo counts @want[type] (trace numbering) blocks of each
 * type in @zone: re-type guessed blocks until the model's counts are those, the guessed
 * block least likely of a type in excess (fewest unmovable pages against movable ones)
 * taking a type in deficit; they stay guesses. @want_free (may be NULL; -1 = unknown)
 * is pagetypeinfo's free blocks of pageblock order per type: a whole free pageblock is
 * re-typed only where those counts ask for its move, and then in preference; where the
 * counts agree and those do not, a whole free guessed block and a guessed block not free
 * swap types. Returns how many were re-typed (>= 0): a difference no guessed block can
 * take stays.
 */
int model_fit_guessed_pageblocks(struct model *m, unsigned int zone, const int64_t want[8],
				 const int64_t want_free[8]);
/*
 * A pcp drain of @pfn, of type @mt (trace numbering), that the snapshot being read
 * already shows (replay skips the event itself): free_pcppages_bulk() names the
 * block's type at the drain (6.10+: get_pfnblock_migratetype(); before: the type when
 * the page was freed). A guessed type is confirmed or corrected as a drain event does
 * (model_pb_fix_guess(): a partner takes the old type), except for a block inside a
 * free block above pageblock order (its pageblocks share the free block's list).
 * Returns 1 when it corrected the type, 0 when nothing changed, or a negative bc_err.
 */
int model_seed_drain_type(struct model *m, uint64_t pfn, int mt);
/* Is the type of the pageblock holding @pfn a guess? */
bool model_pageblock_guessed(const struct model *m, uint64_t pfn);
/* Guesses corrected so far (a cheap counter: a checker tells their re-types apart). */
uint64_t model_guess_fixes(const struct model *m);
/* Guessed pageblocks of @zone per effective type (trace numbering), as counted above. */
void model_count_guessed_pageblocks(const struct model *m, unsigned int zone, uint64_t out[8]);

/* ---- Event operations (one per tracepoint) ------------------------------------- */

/*
 * Options (bit mask, default 0):
 *   MODEL_OPT_DRAIN_TYPES  a mm_page_pcpu_drain whose migratetype (the block's type at
 *                          drain, free_pcppages_bulk()) differs from the model's
 *                          mergeable type re-types the block (pageblock-type-corrected)
 *                          instead of counting a migratetype-mismatch. On a live
 *                          capture this cut the pagetypeinfo error from 0.55 to 0.14;
 *                          a checker that watches type changes must accept the drain
 *                          as their cause.
 */
#define MODEL_OPT_DRAIN_TYPES	(1u << 0)
void model_set_options(struct model *m, unsigned int opts);
unsigned int model_get_options(const struct model *m);

/* Optional: tag the following calls with the trace's event sequence number and time. */
void model_set_event(struct model *m, uint64_t seq, uint64_t ts);

/*
 * kmem:mm_page_alloc. pfn (UINT64_MAX = failed allocation, only counted), order, gfp
 * flags, requested migratetype, recording cpu. Takes the block from the pcp list that
 * holds it, from the buddy (claim/steal without zone_locked), or confirms a block that
 * a zone_locked/extfrag event already removed.
 */
int model_page_alloc(struct model *m, uint64_t pfn, unsigned int order, uint64_t gfp,
		     int mt, int cpu);
/*
 * kmem:mm_page_free: to the head of @cpu's pcp list when pcp_allowed_order(order) and
 * the block is not isolated (free_frozen_page_commit()), else to the buddy through
 * free_one_page()/split_large_buddy(). Frees of uninitialised memory are the lazy
 * init growth (__free_pages_core()) and are counted, not treated as anomalies.
 */
int model_page_free(struct model *m, uint64_t pfn, unsigned int order, int cpu);
/*
 * kmem:mm_page_free that could not take @cpu's pcp lock: freed from an interrupt while
 * that cpu was inside free_unref_folios()'s batch (pcp_spin_trylock() fails), so the
 * page goes to the buddy through free_one_page() with no drain event. The caller tells
 * (replay: a free on a cpu whose batch still has unconfirmed folios).
 */
int model_page_free_nopcp(struct model *m, uint64_t pfn, unsigned int order, int cpu);
/* kmem:mm_page_free_batched: confirms that an earlier free went to @cpu's pcp list. */
int model_free_batched(struct model *m, uint64_t pfn, int cpu);
/*
 * kmem:mm_page_alloc_zone_locked: __rmqueue_smallest() removed the free block at @pfn
 * from free list @mt and expand()ed it; with @percpu_refill the block is appended to
 * @cpu's pcp list (rmqueue_bulk()), else it waits for its mm_page_alloc.
 */
int model_zone_locked(struct model *m, uint64_t pfn, unsigned int order, int mt,
		      bool percpu_refill, int cpu);
/*
 * Was that zone_locked a pcp refill? The tracepoint's percpu_refill is
 * "pcp_allowed_order(order) && migratetype < MIGRATE_PCPTYPES" (__rmqueue_smallest(), 6.1
 * and 6.12): false for a take from the CMA list, although rmqueue_bulk() is what takes
 * CMA pages at pcp orders (__rmqueue()'s CMA balance, for movable requests). An
 * assumption: rmqueue_buddy() after a failed pcp trylock looks the same.
 */
bool model_zone_locked_refill(const struct model *m, unsigned int order, int mt,
			      bool percpu_refill);
/*
 * kmem:mm_page_pcpu_drain: free_pcppages_bulk() moved the pcp block at @pfn to the
 * buddy (__free_one_page() with the block's type at drain). Finds the block on
 * whatever cpu's list holds it; @cpu is only the recording cpu.
 */
int model_pcpu_drain(struct model *m, uint64_t pfn, unsigned int order, int mt, int cpu);
/*
 * Every per-cpu list of the zone holding @pfn was drained (__drain_all_pages(): the
 * zone_pcp_disable() of offline_pages(), the drain_all_pages() of
 * alloc_contig_range()): the zone's seeded flags-0 pages that no drain event freed were
 * not pcp pages; they become in-use kernel pages (model_pfn_info() drained). *@nr (may
 * be NULL): how many.
 */
int model_zone_pcp_drained(struct model *m, uint64_t pfn, uint64_t *nr);
/*
 * kmem:mm_page_alloc_extfrag: a fallback from @fallback_mt for a @alloc_mt request.
 * change_ownership with fallback_order >= pageblock_order: whole-block claim (re-type,
 * expand onto the new type, no zone_locked). change_ownership below pageblock order:
 * partial claim (free pages moved, type set; the zone_locked came first). Otherwise a
 * steal: expand onto the fallback lists, type kept.
 */
int model_extfrag(struct model *m, uint64_t pfn, unsigned int alloc_order,
		  unsigned int fallback_order, int alloc_mt, int fallback_mt,
		  bool change_ownership);

/* Set the kind of the in-use pages [pfn, pfn + n) (snapshot or event knowledge). */
int model_set_page_kind(struct model *m, uint64_t pfn, uint64_t n, enum model_kind kind);

/*
 * The in-use pages [pfn, pfn + n) belong to an allocation the trace does not show
 * (alloc_pages_bulk()): type and kind unknown, as a snapshot reads an in-use page of
 * no flags (vmalloc's).
 */
int model_set_page_untraced(struct model *m, uint64_t pfn, uint64_t n);

/* Mark [pfn, pfn + n) uncertain (a lost-event window). Events on a page settle it. */
int model_mark_uncertain(struct model *m, uint64_t pfn, uint64_t n);
/* Number of uncertain pages in [pfn, pfn + n). */
uint64_t model_count_uncertain(const struct model *m, uint64_t pfn, uint64_t n);

/* Mark [pfn, pfn + n) present but uninitialised (lazy struct-page init). */
int model_set_uninit(struct model *m, uint64_t pfn, uint64_t n);

/*
 * Seed [pfn, pfn + n) from a snapshot: @kpageflags[i] and @mapcount[i] (may be NULL)
 * for pfn + i. Maximal KPF_BUDDY runs become free blocks, split greedily into the
 * largest aligned power-of-two blocks <= MAX_PAGE_ORDER within the zone, on their
 * pageblock's list. KPF_NOPAGE is a hole. Flags 0: uninitialised when a whole memory
 * block reads 0 (lazy init), else unknown (pcp page, tail of a non-compound
 * allocation, driver page). Compound heads take the order of their tail run. Existing
 * state in the range is replaced; free blocks crossing its edges are cut.
 */
int model_seed_pfn_range(struct model *m, uint64_t pfn, uint64_t n,
			 const uint64_t *kpageflags, const uint64_t *mapcount);

/* ---- Anomalies ----------------------------------------------------------------- */

/*
 * Events the model cannot explain, and untraced changes it detects. Stable names (new
 * classes are appended). Each is counted, its first MODEL_ANOM_KEEP occurrences kept,
 * and the state repaired so that replay continues:
 *   pfn-outside-zones        the event's range leaves every zone or hits a hole: dropped
 *   impossible-order         order above the maximum, or a pfn not aligned to it: dropped
 *   alloc-of-in-use-page     mm_page_alloc of a page the model holds in use (a lost free)
 *   alloc-of-uninit-page     allocation in memory the model holds uninitialised
 *   free-of-free-page        mm_page_free of a page free in the buddy (a lost alloc)
 *   free-of-pcp-page         ... of a page on a pcp list: alloc_pages_bulk() takes pcp
 *                            pages without mm_page_alloc
 *   free-order-mismatch      a free whose order differs from the allocation's
 *   page-appeared-without-event  zone_locked/extfrag took a block the model holds in use
 *   free-block-order-mismatch    the named free block is smaller/elsewhere than modelled
 *   migratetype-mismatch     the event's list/block type differs from the model's
 *   pcp-page-not-on-pcp      a drain or free_batched of a page not on any pcp list
 *   pcp-page-taken-from-buddy    the buddy handed out a page modelled on a pcp list (the
 *                            free's pcp trylock failed and it went to the buddy)
 *   uncertain-page-settled   any page-level class above on an uncertain page (inside a
 *                            lost-event window): explained by the lost events
 *   free-block-retyped-movable   a free block of order >= pageblock_order - 1 found
 *                            re-typed MOVABLE: __isolate_free_page() by free page
 *                            reporting (virtio-balloon) or the compaction free scanner
 *   pageblock-type-corrected an event named the block's type and the model adopted it
 *                            (zone_locked of a whole block; drains with
 *                            MODEL_OPT_DRAIN_TYPES)
 */
#define MODEL_ANOMALIES								\
	_A(PFN_OUTSIDE,		"pfn-outside-zones")				\
	_A(BAD_ORDER,		"impossible-order")				\
	_A(ALLOC_IN_USE,	"alloc-of-in-use-page")				\
	_A(ALLOC_UNINIT,	"alloc-of-uninit-page")				\
	_A(FREE_OF_FREE,	"free-of-free-page")				\
	_A(FREE_OF_PCP,		"free-of-pcp-page")				\
	_A(FREE_ORDER,		"free-order-mismatch")				\
	_A(TAKE_NOT_FREE,	"page-appeared-without-event")			\
	_A(TAKE_ORDER,		"free-block-order-mismatch")			\
	_A(MT_MISMATCH,		"migratetype-mismatch")				\
	_A(PCP_MISSING,		"pcp-page-not-on-pcp")				\
	_A(PCP_IN_BUDDY,	"pcp-page-taken-from-buddy")			\
	_A(UNCERTAIN,		"uncertain-page-settled")			\
	_A(REPORT_RETYPE,	"free-block-retyped-movable")			\
	_A(PB_TYPE_LEARNED,	"pageblock-type-corrected")

#define _A(a, s) MODEL_ANOM_##a,
enum model_anomaly { MODEL_ANOMALIES MODEL_NR_ANOM };
#undef _A
const char *model_anomaly_name(enum model_anomaly a);

#define MODEL_ANOM_KEEP 16		/* first occurrences kept per class */

struct model_anomaly_rec {
	uint64_t seq;			/* from model_set_event() */
	uint64_t ts;
	uint64_t pfn;
	unsigned int order;
};

/* Count of class @a; copies up to MODEL_ANOM_KEEP first occurrences into @recs. */
uint64_t model_anomaly_count(const struct model *m, enum model_anomaly a,
			     struct model_anomaly_rec *recs, unsigned int *nr_recs);
uint64_t model_anomaly_total(const struct model *m);

/* ---- Statistics ---------------------------------------------------------------- */

struct model_zone_stats {
	/* free blocks per order and list (trace mt numbering); buddyinfo = sum over mt */
	uint64_t nr_free[16][8];
	uint64_t free_pages;		/* buddy pages on non-ISOLATE lists (NR_FREE_PAGES) */
	uint64_t isolated_free_pages;	/* buddy pages on ISOLATE lists */
	uint64_t pcp_pages;		/* all cpus */
	uint64_t pageblocks[8];		/* per effective type, pagetypeinfo "Number of blocks" */
	uint64_t nr_isolate_pageblock;
};
int model_zone_stats(const struct model *m, unsigned int zone, struct model_zone_stats *out);
/*
 * Pageblocks of @zone per effective type as pagetypeinfo's "Number of blocks type"
 * counts them (pagetypeinfo_showblockcount_print()): only pageblocks with an online,
 * initialised memmap, so holes and lazily uninitialised memory are left out.
 */
void model_count_pageblocks(const struct model *m, unsigned int zone, uint64_t out[8]);

struct model_stats {
	uint64_t ops;			/* operations applied */
	uint64_t alloc_failed;		/* mm_page_alloc with pfn -1 */
	uint64_t init_pages;		/* uninitialised pages freed (lazy init growth) */
	uint64_t implicit_claims;	/* zone_locked that re-typed a block (partial claim) */
	uint64_t unknown_settled;	/* flags-0 seeded pages an alloc/drain resolved */
	uint64_t nopcp_frees;		/* frees sent past a locked pcp list (trylock) */
	uint64_t hugetlb_allocs;	/* allocations held as hugetlb pool pages by their gfp
					 * (model_gfp_hugetlb(): an inference, the trace does
					 * not say what a page became) */
	uint64_t guess_fixes;		/* guessed pageblock types an event corrected */
	uint64_t pb_guessed;		/* pageblocks whose type is still an assumption */
	uint64_t bulk_allocs;		/* pcp pages taken by an untraced alloc_pages_bulk() */
	uint64_t pool_nodes;		/* free-list nodes in use */
	size_t bytes;			/* bytes held by the model (excl. journal); map pages
					 * of uninitialised memory are given back and not counted */
	size_t journal_bytes;
	double bytes_per_pfn;		/* bytes / spanned pfns */
	uint64_t spanned_pfns;		/* incl. the alignment of the map's start */
	double bytes_per_present_pfn;	/* bytes / RAM pfns inside zones */
	uint64_t present_pfns;
	size_t map_bytes_full;		/* the pfn map with hole pages counted: 4 * spanned */
};
void model_get_stats(const struct model *m, struct model_stats *out);

/*
 * Walk a buddy free list (zone, order, trace mt) or a pcp list (zone, cpu, order, mt)
 * from its head, copying up to @max pfns. Returns the list's length.
 */
long model_free_list(const struct model *m, unsigned int zone, unsigned int order, int mt,
		     uint64_t *pfns, unsigned int max);
long model_pcp_list(const struct model *m, unsigned int zone, unsigned int cpu,
		    unsigned int order, int mt, uint64_t *pfns, unsigned int max);

/*
 * Recompute every counter, list and per-pfn invariant from scratch and compare with
 * the incremental state. Returns the number of mismatches (0 = consistent); the first
 * @max_msgs are written, one per line, into @buf (may be NULL) of size @len.
 */
long model_recount(const struct model *m, char *buf, size_t len);

/* ---- Isolation, migration, contiguous allocation ------------------------------- */

enum model_isolate_mode {
	MODEL_ISOLATE_OTHER,		/* alloc_contig_pages() */
	MODEL_ISOLATE_MEM_OFFLINE,	/* offline_pages() */
	MODEL_ISOLATE_CMA_ALLOC,
};

/*
 * start_isolate_page_range(): isolate every pageblock of [start, end) (widened to
 * pageblocks), in the kernel's order: the first block (has_unmovable_pages() on the
 * whole block), a non-hugetlb compound page across the range's first pageblock edge
 * (isolate_single_pageblock()), the last block and edge likewise, then the middle
 * blocks (their intersection with [start, end)). A block fails when already isolated
 * or has an unmovable page. On failure every block isolated so far is undone,
 * *fail_pfn gets the offending pfn (the first in that order) and -BC_E_BUSY is
 * returned. Free pages move to the ISOLATE lists (a covering free block above
 * pageblock order is split first, as in __move_freepages_block_isolate()).
 */
int model_isolate_range(struct model *m, uint64_t start, uint64_t end,
			enum model_isolate_mode mode, uint64_t *fail_pfn);
/*
 * A start_isolate_page_range() the kernel refused at @refused_pfn (has_unmovable_pages()
 * found it; a failed offline's "unmovable page" dump): the blocks it isolated before, in
 * its order, are isolated and undone as it did, whatever the model holds of them. Before
 * 6.17 the undo sets the caller's type (MOVABLE): a silent re-type of those blocks.
 */
int model_isolate_refused(struct model *m, uint64_t start, uint64_t end,
			  enum model_isolate_mode mode, uint64_t refused_pfn);
/* undo_isolate_page_range(). */
int model_undo_isolate_range(struct model *m, uint64_t start, uint64_t end);
/*
 * test_pages_isolated(): 0 when every pfn of [start, end) is isolated and free in the
 * buddy, else -BC_E_BUSY. *fin_pfn (may be NULL) gets the tracepoint's fin_pfn.
 */
int model_test_pages_isolated(const struct model *m, uint64_t start, uint64_t end,
			      enum model_isolate_mode mode, uint64_t *fin_pfn);
/* drain_all_pages(zone of @pfn): every pcp block of the zone back to the buddy. */
int model_drain_zone(struct model *m, uint64_t pfn);

struct model_migrate_result {
	uint64_t migrated;		/* base pages moved out */
	uint64_t failed;		/* base pages that stayed (unmovable or no target) */
	uint64_t first_failed_pfn;	/* UINT64_MAX when none */
};
/*
 * __alloc_contig_migrate_range(): every in-use movable folio in [start, end) gets a
 * destination from the model's own allocator (never from isolated blocks) and its
 * pages are freed (onto the ISOLATE lists when isolated). Gigantic hugetlb aborts with
 * -BC_E_NOMEM, as isolate_or_dissolve_huge_folio() does.
 */
int model_migrate_range(struct model *m, uint64_t start, uint64_t end,
			struct model_migrate_result *res);

/*
 * Tell @fn (NULL: nobody) of every folio model_migrate_range() moves, [from, from +
 * 2^order) to [to, ...), as it moves it: a caller that names allocations by pfn (the
 * free-running simulation) follows them. Not undone by model_rollback().
 */
void model_set_migrate_hook(struct model *m,
			    void (*fn)(void *arg, uint64_t from, uint64_t to, unsigned int order),
			    void *arg);

/*
 * The model's own allocator, __rmqueue() without pcp: __rmqueue_smallest(), then the
 * claim and steal fallbacks. Used for migration targets and predictions. The block
 * becomes allocated (kind @kind). Returns 0 and *pfn, or -BC_E_NOMEM.
 */
int model_alloc_block(struct model *m, unsigned int zone, unsigned int order, int mt,
		      enum model_kind kind, uint64_t *pfn);

/* The stage of alloc_contig_range() that decided an attempt. Stable numbers. */
enum model_contig_stage {
	MODEL_CONTIG_PRESCREEN,		/* pfn_range_valid_contig() (offline: a hole, two zones) */
	MODEL_CONTIG_ISOLATION,		/* start_isolate_page_range() */
	MODEL_CONTIG_MIGRATION,		/* __alloc_contig_migrate_range() -ENOMEM, or a pin */
	MODEL_CONTIG_TEST,		/* test_pages_isolated() */
	MODEL_CONTIG_SUCCESS,
};
const char *model_contig_stage_name(enum model_contig_stage stage);

/*
 * Request flags. MODEL_CONTIG_SLAB_REFCOUNT_ZERO: order-0 slab pages pass
 * has_unmovable_pages() as refcount-0 pages (measured on 6.18: dump_page() of a slab
 * page prints refcount:0); migration and the test still stop at them.
 */
#define MODEL_CONTIG_SLAB_REFCOUNT_ZERO	(1u << 0)

struct model_contig_req {
	uint64_t start, end;		/* [start, end) */
	/* MODEL_ISOLATE_OTHER: alloc_contig_range(); MEM_OFFLINE: offline_pages() */
	enum model_isolate_mode mode;
	enum model_kind kind;		/* what the allocated range becomes */
	unsigned int flags;		/* MODEL_CONTIG_* */
	/*
	 * What the caller knows and the model does not (each may be NULL):
	 * unmovable_pfn() names the first page of the range that has_unmovable_pages()
	 * refuses although the model takes it for movable, or UINT64_MAX; asked before
	 * the isolation, it decides it when it comes before the model's own refusal.
	 * before_migrate() runs after drain_all_pages(), on the isolated range: it may
	 * change the model (free pages it knows are free) and names in *pinned_pfn the
	 * first page that migration cannot move (a pin), or leaves UINT64_MAX. A negative
	 * return aborts the attempt with that error.
	 */
	uint64_t (*unmovable_pfn)(void *arg, uint64_t start, uint64_t end);
	int (*before_migrate)(void *arg, struct model *m, uint64_t start, uint64_t end,
			      uint64_t *pinned_pfn);
	void *arg;
};

struct model_contig_result {
	enum model_contig_stage stage;	/* the stage that decided */
	uint64_t pfn;			/* the pfn that decided it; UINT64_MAX on success */
	int ret;			/* the kernel's return: 0, -BC_E_BUSY, -BC_E_NOMEM */
	uint64_t outer_start;		/* find_large_buddy(start) tested; UINT64_MAX if not */
	uint64_t migrated;		/* base pages moved out by the migration */
	uint64_t migrate_failed;	/* base pages it left (unmovable or no target) */
	bool isolated;			/* follow: the model isolated the range */
};

/*
 * alloc_contig_range() on [req->start, req->end) (offline_pages() with MEM_OFFLINE):
 * pre-screen (pfn_range_valid_contig(); offline: holes and zones), isolation, pcp drain,
 * migration, find_large_buddy() and test_pages_isolated(). On success the range
 * becomes one allocation (kind req->kind, order ilog2(end - start) when that is a
 * power of two; offline: uninitialised memory) and the isolation is undone, as it is
 * after every failure past the isolation. *res says which stage decided and at which
 * pfn. Returns 0 when a stage decided (success or not, see res->ret), else a negative
 * error (-BC_E_INVAL, or before_migrate()'s). Wrap it in model_checkpoint()/
 * model_rollback() to ask "what if".
 */
int model_alloc_contig_range(struct model *m, const struct model_contig_req *req,
			     struct model_contig_result *res);
/*
 * A real attempt the trace shows, followed as it happens (replay): the kernel decided
 * it, so the model does not stop where it disagrees, it says where. At the attempt's
 * first event model_contig_follow_begin() runs the pre-screen and the isolation of
 * model_alloc_contig_range(); res->stage is SUCCESS when both agree with the kernel
 * having gone on, else the stage and pfn where the model would have stopped, and
 * res->isolated says whether the model isolated the range. The kernel's migration
 * arrives as events; on its success model_contig_commit() makes the range the
 * allocation (or offline memory), and model_contig_follow_end() undoes the isolation.
 */
int model_contig_follow_begin(struct model *m, const struct model_contig_req *req,
			      struct model_contig_result *res);
int model_contig_commit(struct model *m, const struct model_contig_req *req);
int model_contig_follow_end(struct model *m, const struct model_contig_req *req,
			    struct model_contig_result *res);
/* pfn_range_valid_contig() of the profiled kernel. */
bool model_range_valid_contig(const struct model *m, uint64_t start, uint64_t end);
/*
 * Replay of a successful alloc_contig: [start, end) becomes allocated without any
 * mm_page_alloc (every page must be free in the buddy; others are repaired and
 * counted).
 */
int model_take_range(struct model *m, uint64_t start, uint64_t end, enum model_kind kind);

/* ---- Hypothetical attempts ------------------------------------------------------- */

/*
 * model_checkpoint() starts (or nests, up to 16 deep) an undo journal: every state word
 * changed afterwards is logged with its old value. model_rollback() restores the
 * state of the matching checkpoint; model_commit() keeps the changes and forgets the
 * checkpoint. Cost is proportional to what changed, not to the model's size.
 */
int model_checkpoint(struct model *m);
int model_rollback(struct model *m);
int model_commit(struct model *m);

/*
 * A copy of the model's state (pfn words, pageblocks, free and pcp lists, pcp tuning,
 * counters, anomalies), for what-if work too large for the journal (a journal entry
 * per changed word): model_state_save() costs the state's size once (map pages of
 * uninitialised memory or holes are not copied), model_state_restore() puts the state
 * back as it was, writing only the map pages that differ, and may be called again
 * with the same copy. Hooks, options and the current event are not state. Neither
 * may be called while a checkpoint is open. Return: 0, or a negative bc_err
 * (-BC_E_NOMEM, -BC_E_INVAL).
 */
struct model_state;
int model_state_save(const struct model *m, struct model_state **out);
int model_state_restore(struct model *m, const struct model_state *s);
void model_state_free(struct model_state *s);
/* Bytes the copy holds. */
size_t model_state_bytes(const struct model_state *s);

#endif
