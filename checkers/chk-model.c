// SPDX-License-Identifier: GPL-2.0
/*
 * Checks on the model: isolation-escape on its free blocks (isolate lists, merges
 * across isolation states, pcp pages left in isolated blocks at the test),
 * pageblock-type (every change of a pageblock's stored type or isolation must have a
 * kernel cause at that event), freecount (model_recount(), and the kernel's buddyinfo
 * and pagetypeinfo at each snapshot), and the hypothetical attempts of predict.
 *
 * Pageblock shadow: one byte per pageblock of the model's span, the stored type and
 * PBS_ISO, as last verified. After each event the pageblocks of the event's MAX_ORDER
 * window are compared and each change is matched against what the event may do; a
 * full scan at every check point (recount cadence, attempts, snapshots, the end)
 * catches changes anywhere else, which no event explains.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkers/chk-local.h"
#include "common/err.h"
#include "common/grow.h"
#include "db/tdb-snap.h"
#include "db/tdb.h"

#define MT_MOVABLE 1
#define MT_CMA 4		/* trace numbering, when the kernel has CONFIG_CMA */

static const char *mt_name(const struct chk_ctx *c, int mt)
{
	static const char *const names[] = { "Unmovable", "Movable", "Reclaimable",
					     "HighAtomic", "CMA", "Isolate" };

	if (mt == c->isolate_mt)
		return "Isolate";
	if (mt >= 0 && mt < 6)
		return names[mt];
	return "?";
}

/* ---- pageblock shadow ------------------------------------------------------------ */

static uint8_t pb_read(const struct model *m, uint64_t pfn)
{
	int stored, eff;
	bool iso;

	if (model_pageblock_mt(m, pfn, &stored, &eff, &iso))
		return PBS_NONE;
	return (uint8_t)((stored & PBS_MT) | (iso ? PBS_ISO : 0) |
			 (model_pageblock_guessed(m, pfn) ? PBS_GUESS : 0));
}

int chk_pbs_init(struct chk_ctx *c, const struct model *m)
{
	const struct model_layout *L = model_get_layout(m);
	uint64_t lo = UINT64_MAX, hi = 0, i;
	unsigned int z;

	for (z = 0; z < L->nr_zones; z++) {
		if (L->zones[z].start_pfn < lo)
			lo = L->zones[z].start_pfn;
		if (L->zones[z].start_pfn + L->zones[z].spanned > hi)
			hi = L->zones[z].start_pfn + L->zones[z].spanned;
	}
	free(c->pbs);
	c->pbs = NULL;
	c->nr_pbs = 0;
	if (lo >= hi)
		return 0;
	c->pb_base = lo >> c->pb_order;
	c->nr_pbs = ((hi - 1) >> c->pb_order) - c->pb_base + 1;
	c->pbs = malloc(c->nr_pbs);
	if (!c->pbs)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (i = 0; i < c->nr_pbs; i++)
		c->pbs[i] = pb_read(m, (c->pb_base + i) << c->pb_order);
	return 0;
}

/* The attempt (real, in progress or awaiting its undo) whose range holds @pfn. */
static struct chk_att *att_of(struct chk_ctx *c, uint64_t pfn)
{
	uint64_t pb = 1ull << c->pb_order;
	int i;

	for (i = 0; i < c->nr_att; i++) {
		struct chk_att *ca = &c->att[i];

		if (!ca->begun || (ca->ended && !ca->pb_before))
			continue;
		if (pfn >= (ca->a.start_pfn & ~(pb - 1)) && pfn < ((ca->a.end_pfn + pb - 1) & ~(pb - 1)))
			return ca;
	}
	if (c->hyp.begun && !c->hyp.ended && pfn >= (c->hyp.a.start_pfn & ~(pb - 1)) &&
	    pfn < ((c->hyp.a.end_pfn + pb - 1) & ~(pb - 1)))
		return &c->hyp;
	return NULL;
}

/* Stored type the undo of @ca must leave on pageblock @pfn, -1 when unknown. */
static int undo_type(const struct chk_ctx *c, const struct chk_att *ca, uint64_t pfn)
{
	uint64_t i = (pfn >> c->pb_order) - ca->pb_first;

	/*
	 * unset_migratetype_isolate() with the caller's type: MIGRATE_CMA for cma_alloc()'s
	 * alloc_contig_range() (the only caller on a CMA block), else Movable.
	 */
	if (!c->isolate_bit)
		return ca->pb_before && i < ca->nr_pb && c->isolate_mt == MT_CMA + 1 &&
		       (ca->pb_before[i] & PBS_MT) == MT_CMA ? MT_CMA : MT_MOVABLE;
	if (!ca->pb_before || i >= ca->nr_pb)
		return -1;
	return ca->pb_before[i] == PBS_NONE ? -1 : ca->pb_before[i] & PBS_MT;
}

/* Is pageblock @pbpfn inside a free block above pageblock order (a 9->10 merge)? */
static bool in_merged_block(const struct chk_ctx *c, const struct model *m, uint64_t pbpfn)
{
	struct model_pfn_info pi;

	return !model_pfn_info(m, pbpfn, &pi) && pi.state == MODEL_PFN_BUDDY &&
	       pi.order > c->pb_order;
}

/* Free block at @pfn after a free: may its merge have re-typed pageblock @pbpfn? */
static bool merge_retype_ok(struct chk_ctx *c, const struct model *m, const struct tr_event *ev,
			    uint64_t pbpfn, int new_mt, int free_mt)
{
	struct model_pfn_info pi;

	if (model_pfn_info(m, ev->pfn, &pi) || pi.state != MODEL_PFN_BUDDY)
		return false;
	if (pi.order <= c->pb_order || pbpfn < pi.head || pbpfn >= pi.head + (1ull << pi.order))
		return false;
	if ((pbpfn >> c->pb_order) == (ev->pfn >> c->pb_order))
		return false;		/* the freeing block keeps its own type */
	return free_mt == new_mt;	/* change_pageblock_range() to the freeing type */
}

struct pb_cause {
	const struct tr_event *ev;	/* NULL: no event explains a change (full scan) */
	uint64_t claim_pfn;		/* the last claim (extfrag change_ownership) */
	unsigned int claim_order;
	int claim_mt;
	int free_mt;			/* type of the event pfn's pageblock before it */
	uint64_t since_seq;
	bool guess_fixed;		/* the model corrected guessed types since the last scan */
};

/*
 * Before 6.17 the undo of an isolation that start_isolate_page_range() refused
 * (has_unmovable_pages(): an offline, or an alloc_contig_range() step) re-types the
 * blocks it had isolated MIGRATE_MOVABLE with no event; bigchunk record's probe records
 * say where (model_isolate_refused()). A capture without them (a trace-cmd recording
 * imported) cannot: a re-type to Movable an event reveals there is such an undo's.
 */
static bool silent_undo(struct chk_ctx *c, uint64_t pfn, int old_mt, int new_mt)
{
	if (!c->no_probe_records || c->isolate_bit || new_mt != MT_MOVABLE)
		return false;
	if (!c->r[CHK_PAGEBLOCK_TYPE].explained++)
		snprintf(c->explained_note[CHK_PAGEBLOCK_TYPE], sizeof(c->explained_note[0]),
			 "pageblock %#llx %s -> Movable with no event: before 6.17 the undo of an "
			 "isolation refused by has_unmovable_pages() re-types Movable, which this "
			 "capture cannot show (no probe records: an imported trace)",
			 (unsigned long long)pfn, mt_name(c, old_mt));
	return true;
}

static void pb_verify(struct chk_ctx *c, const struct model *m, uint64_t pbi,
		      const struct pb_cause *cause)
{
	uint64_t pfn = (c->pb_base + pbi) << c->pb_order;
	uint8_t old = c->pbs[pbi], now = pb_read(m, pfn);
	const struct tr_event *ev = cause->ev;
	struct chk_att *ca;
	int old_mt = old & PBS_MT, new_mt = now & PBS_MT;

	chk_count(c, CHK_PAGEBLOCK_TYPE, 1);
	if (old == now || now == PBS_NONE)
		return;
	c->pbs[pbi] = now;
	if (old == PBS_NONE)
		return;
	ca = att_of(c, pfn);
	if ((old ^ now) & PBS_ISO) {
		if (!ca)
			chk_report_v(c, CHK_INV_PB_ISOLATE_CHANGE, false, pfn, c->pb_order,
				     "pageblock %#llx was %s outside any contiguous attempt",
				     (unsigned long long)pfn,
				     (now & PBS_ISO) ? "isolated" : "un-isolated");
		if (now & PBS_ISO)
			return;		/* isolation: the stored type is not the question */
		if (ca && !(now & PBS_ISO)) {
			int want = undo_type(c, ca, pfn);

			/* The undo's putback may merge 9->10 and re-type (__free_one_page()). */
			if (want >= 0 && new_mt != want && !in_merged_block(c, m, pfn))
				chk_report_v(c, CHK_INV_PB_TYPE_CHANGE, false, pfn, c->pb_order,
					     "undoing the isolation of pageblock %#llx left it %s; "
					     "the kernel restores %s", (unsigned long long)pfn,
					     mt_name(c, new_mt), mt_name(c, want));
			return;
		}
	}
	if (old_mt == new_mt)
		return;
	if ((old & PBS_ISO) && (now & PBS_ISO))
		return;		/* stored type of an isolated block (pre-6.17 overwrite) */
	if (((old | now) & PBS_GUESS) && cause->guess_fixed) {
		/*
		 * The seed's guess corrected by an event's evidence, or a guess re-typed to
		 * keep the counts (it stays a guess: the shadow may predate the marks).
		 */
		if (!c->r[CHK_PAGEBLOCK_TYPE].explained++)
			snprintf(c->explained_note[CHK_PAGEBLOCK_TYPE],
				 sizeof(c->explained_note[0]), "pageblock %#llx %s -> %s by seq %llu: "
				 "its type was the seed's guess, corrected by an event's migratetype "
				 "or a snapshot's pagetypeinfo counts", (unsigned long long)pfn,
				 mt_name(c, old_mt), mt_name(c, new_mt),
				 (unsigned long long)(ev ? ev->seq : c->last_check_seq));
		return;
	}
	if (ev) {
		switch (ev->kind) {
		case TR_EV_EXTFRAG:
			if (ev->change_ownership && new_mt == ev->mt)
				return;		/* try_to_claim_block() */
			break;
		case TR_EV_ZONE_LOCKED:
			if (new_mt == ev->mt)
				return;		/* partial claim, then __rmqueue_smallest() */
			break;
		case TR_EV_PAGE_ALLOC:
			if (cause->claim_pfn != UINT64_MAX && new_mt == cause->claim_mt &&
			    pfn >> (c->max_order) == cause->claim_pfn >> c->max_order)
				return;		/* claim seen at the extfrag just before */
			break;
		case TR_EV_PAGE_FREE: case TR_EV_PCPU_DRAIN:
			if (merge_retype_ok(c, m, ev, pfn, new_mt, cause->free_mt))
				return;		/* __free_one_page() 9->10 merge */
			break;
		default:
			break;
		}
		if (silent_undo(c, pfn, old_mt, new_mt))
			return;
		chk_report_v(c, CHK_INV_PB_TYPE_CHANGE, false, pfn, c->pb_order,
			     "pageblock %#llx changed from %s to %s at %s%s, which may not change "
			     "it", (unsigned long long)pfn, mt_name(c, old_mt), mt_name(c, new_mt),
			     chk_event_name(ev),
			     ev->kind == TR_EV_EXTFRAG && !ev->change_ownership ?
				     " (a steal: change_ownership 0)" : "");
		return;
	}
	if (silent_undo(c, pfn, old_mt, new_mt))
		return;
	chk_report_v(c, CHK_INV_PB_TYPE_CHANGE, false, pfn, c->pb_order,
		     "pageblock %#llx changed from %s to %s since seq %llu with no event that "
		     "may change it", (unsigned long long)pfn, mt_name(c, old_mt),
		     mt_name(c, new_mt), (unsigned long long)cause->since_seq);
}

static void pb_window(struct chk_ctx *c, const struct model *m, const struct tr_event *ev)
{
	uint64_t lo, hi, pbi, mask = (1ull << c->max_order) - 1;
	struct pb_cause cause = { .ev = ev, .claim_pfn = c->claim_pfn, .claim_mt = c->claim_mt,
				  .guess_fixed = model_guess_fixes(m) != c->gf_scan };
	unsigned int order = ev->kind == TR_EV_EXTFRAG ? ev->fallback_order : ev->order;

	if (!c->pbs || ev->pfn == UINT64_MAX || order > 18)
		return;
	lo = ev->pfn & ~mask;
	hi = ((ev->pfn + (1ull << order)) + mask) & ~mask;
	pbi = ev->pfn >> c->pb_order;
	cause.free_mt = pbi >= c->pb_base && pbi - c->pb_base < c->nr_pbs ?
			c->pbs[pbi - c->pb_base] & PBS_MT : -1;
	if (ev->kind == TR_EV_EXTFRAG && ev->change_ownership) {
		c->claim_pfn = ev->pfn;
		c->claim_mt = ev->mt;
	} else if (ev->kind == TR_EV_PAGE_ALLOC) {
		c->claim_pfn = UINT64_MAX;
	}
	for (pbi = lo >> c->pb_order; pbi < hi >> c->pb_order; pbi++)
		if (pbi >= c->pb_base && pbi - c->pb_base < c->nr_pbs)
			pb_verify(c, m, pbi - c->pb_base, &cause);
}

static void pb_scan(struct chk_ctx *c, const struct model *m, uint64_t lo_pb, uint64_t hi_pb)
{
	struct pb_cause cause = { .since_seq = c->last_check_seq, .claim_pfn = UINT64_MAX,
				  .guess_fixed = model_guess_fixes(m) != c->gf_scan };
	uint64_t i;

	if (!c->pbs)
		return;
	if (hi_pb > c->nr_pbs)
		hi_pb = c->nr_pbs;
	for (i = lo_pb; i < hi_pb; i++)
		pb_verify(c, m, i, &cause);
}

/* ---- isolation-escape on the model's blocks ----------------------------------------- */

static bool pb_isolated(const struct model *m, uint64_t pfn)
{
	int stored, eff;
	bool iso = false;

	model_pageblock_mt(m, pfn, &stored, &eff, &iso);
	return iso;
}

/* One free block: on the right list for its pageblock, and no merge across isolation. */
static void check_free_block(struct chk_ctx *c, const struct model *m,
			     const struct model_pfn_info *pi)
{
	uint64_t pb = 1ull << c->pb_order, p;
	bool iso = pb_isolated(m, pi->head);

	chk_count(c, CHK_ISOLATION_ESCAPE, 1);
	if (pi->uncertain) {
		/* In a lost-event window, not settled since: cannot be judged. */
		c->r[CHK_ISOLATION_ESCAPE].inconclusive++;
		return;
	}
	if (pi->order > c->pb_order) {
		for (p = pi->head + pb; p < pi->head + (1ull << pi->order); p += pb) {
			if (pb_isolated(m, p) == iso)
				continue;
			chk_report_v(c, CHK_INV_ISO_MERGE, pi->uncertain, pi->head, pi->order,
				     "free block %#llx of order %u joins %s pageblock %#llx with %s "
				     "pageblock %#llx", (unsigned long long)pi->head, pi->order,
				     iso ? "isolated" : "non-isolated", (unsigned long long)pi->head,
				     iso ? "non-isolated" : "isolated", (unsigned long long)p);
			return;
		}
	}
	if (pi->state == MODEL_PFN_BUDDY && iso != (pi->mt == c->isolate_mt))
		chk_report_v(c, CHK_INV_ISO_FREELIST, pi->uncertain, pi->head, pi->order,
			     "free block %#llx of order %u sits on free list %s although its "
			     "pageblock is %sisolated", (unsigned long long)pi->head, pi->order,
			     mt_name(c, pi->mt), iso ? "" : "not ");
}

/* A pcp block of an isolated pageblock at a test, its verdict to come. */
struct pcp_left {
	uint64_t pfn;
	unsigned int order;
	int cpu;
	bool uncertain, named;		/* named: a later event names it */
	enum tr_event_kind next;	/* ... that event */
};

/*
 * The drain should have returned a pcp block of an isolated pageblock, unless the block
 * had left the list with no event: alloc_pages_bulk() (vmalloc, page pools) takes pcp
 * pages untraced, and such a page's next event is its free, or none. The events after
 * @seq tell each block of @v: its next one an allocation or a drain, an escape (it was
 * still on a list); a free or none, inconclusive.
 */
static void judge_pcp_left(struct chk_ctx *c, uint64_t seq, struct pcp_left *v, size_t n)
{
	const struct tr_decoder *dec = c->dec ? c->dec : c->rp ? rp_decoder(c->rp) : NULL;
	struct tdb_cursor *cur = NULL;
	struct bc_event raw;
	struct tr_event ev;
	size_t left = n, i;

	if (c->db && dec && !tdb_cursor_open(c->db, seq + 1, UINT64_MAX, &cur)) {
		while (left && tdb_cursor_next(cur, &raw) == 1) {
			uint64_t end;

			tr_decode(dec, &raw, &ev);
			if (ev.kind == TR_EV_OTHER || ev.pfn == UINT64_MAX || ev.order >= 32)
				continue;
			end = ev.pfn + (1ull << ev.order);
			for (i = 0; i < n; i++)
				if (!v[i].named && v[i].pfn >= ev.pfn && v[i].pfn < end) {
					v[i].named = true;
					v[i].next = ev.kind;
					left--;
				}
		}
		tdb_cursor_close(cur);
	} else {
		for (i = 0; i < n; i++) {	/* no trace to ask: as the model says */
			v[i].named = true;
			v[i].next = TR_EV_PAGE_ALLOC;
		}
	}
	for (i = 0; i < n; i++) {
		if (!v[i].named || v[i].next == TR_EV_PAGE_FREE ||
		    v[i].next == TR_EV_FREE_BATCHED) {
			c->r[CHK_ISOLATION_ESCAPE].inconclusive++;
			continue;
		}
		chk_report_v(c, CHK_INV_ISO_FREELIST, v[i].uncertain, v[i].pfn, v[i].order,
			     "free block %#llx of an isolated pageblock is still on cpu %d's pcp "
			     "list after the drain", (unsigned long long)v[i].pfn, v[i].cpu);
	}
}

/*
 * Walk the blocks of [s, e): every free block is checked; with @no_pcp (a test at event
 * @seq), a pcp page in an isolated pageblock is an escape (the drain should have
 * returned it), judge_pcp_left() says.
 */
static void scan_range(struct chk_ctx *c, const struct model *m, uint64_t s, uint64_t e,
		       bool no_pcp, uint64_t seq)
{
	struct pcp_left *left = NULL;
	size_t nr_left = 0, cap_left = 0;
	uint64_t pfn = s;

	while (pfn < e) {
		struct model_pfn_info pi;
		uint64_t next = pfn + 1;

		if (model_pfn_info(m, pfn, &pi))
			break;
		switch (pi.state) {
		case MODEL_PFN_BUDDY:
			check_free_block(c, m, &pi);
			next = pi.head + (1ull << pi.order);
			break;
		case MODEL_PFN_PCP:
			if (no_pcp && pb_isolated(m, pi.head) &&
			    !bc_grow(&left, nr_left, &cap_left, sizeof(*left), 8, "check"))
				left[nr_left++] = (struct pcp_left){ pi.head, pi.order, pi.cpu,
								     pi.uncertain, false,
								     TR_EV_OTHER };
			next = pi.head + (1ull << pi.order);
			break;
		case MODEL_PFN_ALLOC:
			if (!pi.seeded)
				next = pi.head + (1ull << pi.order);
			break;
		default:
			break;
		}
		pfn = next > pfn ? next : pfn + 1;
	}
	if (nr_left)
		judge_pcp_left(c, seq, left, nr_left);
	free(left);
}

static void att_bounds(const struct chk_ctx *c, const struct tr_attempt *a, uint64_t *s,
		       uint64_t *e)
{
	uint64_t w = 1ull << c->max_order;

	/* The range widened to MAX_ORDER blocks: merges across its edges are in view. */
	*s = a->start_pfn & ~(w - 1);
	*e = (a->end_pfn + w - 1) & ~(w - 1);
}

/* ---- per event ---------------------------------------------------------------------- */

int chk_model_before(struct chk_ctx *c, const struct model *m, const struct tr_event *ev)
{
	int i;

	if (ev->kind != TR_EV_TEST_ISOLATED || !chk_on(c, CHK_ISOLATION_ESCAPE))
		return 0;
	for (i = 0; i < c->nr_att; i++) {
		struct chk_att *ca = &c->att[i];
		uint64_t s, e;

		if (ca->a.seq_test != ev->seq || !ca->begun)
			continue;
		att_bounds(c, &ca->a, &s, &e);
		scan_range(c, m, s, e, true, ev->seq);
	}
	return 0;
}

int chk_model_after(struct chk_ctx *c, const struct model *m, const struct tr_event *ev)
{
	bool pbt = chk_on(c, CHK_PAGEBLOCK_TYPE) && c->pbs;
	struct model_pfn_info pi;

	if (ev->pfn == UINT64_MAX)
		return 0;
	switch (ev->kind) {
	case TR_EV_PAGE_FREE: case TR_EV_PCPU_DRAIN:
		/*
		 * Fast path: with no attempt in progress no pageblock is isolated (replay
		 * isolates only for attempts; a stray isolation shows in the pageblock
		 * scan), so only re-typing by a merge can be wrong; pb_window() looks at the
		 * block only when a type in its window changed.
		 */
		if (!c->nr_active) {
			if (pbt)
				pb_window(c, m, ev);
			break;
		}
		if (model_pfn_info(m, ev->pfn, &pi))
			return 0;
		if (chk_on(c, CHK_ISOLATION_ESCAPE) &&
		    (pi.state == MODEL_PFN_BUDDY ||
		     (pi.state == MODEL_PFN_PCP && pb_isolated(m, pi.head))))
			check_free_block(c, m, &pi);
		if (pbt)
			pb_window(c, m, ev);
		break;
	case TR_EV_ZONE_LOCKED: case TR_EV_EXTFRAG:
		if (pbt)
			pb_window(c, m, ev);
		break;
	case TR_EV_PAGE_ALLOC:
		/* Re-typing by an allocation follows a claim (extfrag) or none at all. */
		if (pbt && (c->claim_pfn != UINT64_MAX || c->nr_active))
			pb_window(c, m, ev);
		break;
	default:
		break;
	}
	return 0;
}

/* ---- attempts ----------------------------------------------------------------------- */

static int save_pb_before(struct chk_ctx *c, const struct model *m, struct chk_att *ca)
{
	uint64_t first = ca->a.start_pfn >> c->pb_order, i;
	uint64_t last = (ca->a.end_pfn + (1ull << c->pb_order) - 1) >> c->pb_order;

	free(ca->pb_before);
	ca->pb_first = first;
	ca->nr_pb = last > first ? last - first : 0;
	ca->pb_before = malloc(ca->nr_pb ? ca->nr_pb : 1);
	if (!ca->pb_before)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (i = 0; i < ca->nr_pb; i++) {
		uint64_t pbi = first + i;

		/* From the shadow (the state before isolation) when it has the block. */
		if (c->pbs && pbi >= c->pb_base && pbi - c->pb_base < c->nr_pbs &&
		    c->pbs[pbi - c->pb_base] != PBS_NONE)
			ca->pb_before[i] = c->pbs[pbi - c->pb_base];
		else
			ca->pb_before[i] = pb_read(m, pbi << c->pb_order);
	}
	return 0;
}

int chk_model_attempt_begin(struct chk_ctx *c, const struct model *m, struct chk_att *ca)
{
	uint64_t s, e;
	int ret;

	ret = save_pb_before(c, m, ca);
	if (ret)
		return ret;
	if (chk_on(c, CHK_PAGEBLOCK_TYPE) && c->pbs) {
		uint64_t lo = ca->pb_first, hi = ca->pb_first + ca->nr_pb;

		lo = lo > c->pb_base ? lo - c->pb_base : 0;
		hi = hi > c->pb_base ? hi - c->pb_base : 0;
		pb_scan(c, m, lo, hi);
	}
	if (chk_on(c, CHK_ISOLATION_ESCAPE)) {
		att_bounds(c, &ca->a, &s, &e);
		scan_range(c, m, s, e, false, 0);
	}
	return 0;
}

int chk_model_attempt_end(struct chk_ctx *c, const struct model *m, struct chk_att *ca)
{
	uint64_t s, e, pfn;

	if (chk_on(c, CHK_ISOLATION_ESCAPE)) {
		att_bounds(c, &ca->a, &s, &e);
		scan_range(c, m, s, e, false, 0);
	}
	if (ca->a.success && ca->a.kind == TR_ATTEMPT_CONTIG && chk_on(c, CHK_CONTIG_EXACT)) {
		/* The range is allocated, all of it, and the allocation stops at its edges. */
		chk_count(c, CHK_CONTIG_EXACT, 1);
		for (pfn = ca->a.start_pfn; pfn < ca->a.end_pfn; pfn++) {
			struct model_pfn_info pi;

			if (model_pfn_info(m, pfn, &pi) || pi.state == MODEL_PFN_ALLOC)
				continue;
			if (pi.state == MODEL_PFN_HOLE)
				continue;
			chk_report_v(c, CHK_INV_CONTIG_RANGE, pi.uncertain || ca->lost, pfn, 0,
				     "after the successful allocation of [%#llx, %#llx) page %#llx is "
				     "still free in the model", (unsigned long long)ca->a.start_pfn,
				     (unsigned long long)ca->a.end_pfn, (unsigned long long)pfn);
			break;
		}
	}
	/* Pageblocks are verified when the undo shows (now or at the next check). */
	if (chk_on(c, CHK_PAGEBLOCK_TYPE) && c->pbs) {
		uint64_t lo = ca->pb_first, hi = ca->pb_first + ca->nr_pb;

		lo = lo > c->pb_base ? lo - c->pb_base : 0;
		hi = hi > c->pb_base ? hi - c->pb_base : 0;
		pb_scan(c, m, lo, hi);
	}
	return 0;
}

int chk_model_refusal(struct chk_ctx *c, const struct model *m, const struct tr_attempt *a)
{
	uint64_t pbi, lo = a->start_pfn >> c->pb_order;
	uint64_t hi = (a->end_pfn + (1ull << c->pb_order) - 1) >> c->pb_order;

	if (!chk_on(c, CHK_PAGEBLOCK_TYPE) || !c->pbs)
		return 0;
	for (pbi = lo > c->pb_base ? lo : c->pb_base; pbi < hi && pbi - c->pb_base < c->nr_pbs;
	     pbi++) {
		uint64_t pfn = pbi << c->pb_order;
		uint8_t *old = &c->pbs[pbi - c->pb_base], now = pb_read(m, pfn);

		/*
		 * unset_migratetype_isolate() with offline_pages()'s MIGRATE_MOVABLE (before
		 * 6.17; later the saved type, no change): anything else stays for the scan.
		 */
		if (*old == now || now == PBS_NONE || *old == PBS_NONE || (now & PBS_ISO) ||
		    (now & PBS_MT) != (c->isolate_bit ? (*old & PBS_MT) : MT_MOVABLE))
			continue;
		if (!c->r[CHK_PAGEBLOCK_TYPE].explained++)
			snprintf(c->explained_note[CHK_PAGEBLOCK_TYPE],
				 sizeof(c->explained_note[0]), "pageblock %#llx %s -> %s: an offline "
				 "probe's isolation, refused at pfn %#llx, undid it to Movable "
				 "(unset_migratetype_isolate(), no event)", (unsigned long long)pfn,
				 mt_name(c, *old & PBS_MT), mt_name(c, now & PBS_MT),
				 (unsigned long long)a->fin_pfn);
		*old = now;
	}
	return 0;
}

/* ---- check points ------------------------------------------------------------------- */

/* model_recount() as one freecount check: mismatches, the first one's line in @buf. */
static long recount(struct chk_ctx *c, const struct model *m, char *buf, size_t size)
{
	long bad;
	char *nl;

	chk_count(c, CHK_FREECOUNT, 1);
	buf[0] = 0;
	bad = model_recount(m, buf, size);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	return bad;
}

int chk_model(struct chk_ctx *c, const struct model *m)
{
	char buf[512];
	long bad;

	c->since_recount = 0;
	if (chk_on(c, CHK_FREECOUNT)) {
		bad = recount(c, m, buf, sizeof(buf));
		if (bad > 0)
			chk_report_v(c, CHK_INV_FREECOUNT_RECOUNT, false, CHK_NO_PFN, 0,
				     "model_recount() found %ld mismatch(es) with the incremental "
				     "counts: %s", bad, buf[0] ? buf : "(no detail)");
	}
	if (chk_on(c, CHK_PAGEBLOCK_TYPE)) {
		pb_scan(c, m, 0, c->nr_pbs);
		c->gf_scan = model_guess_fixes(m);	/* every re-typed guess seen */
	}
	c->last_check_seq = c->ev ? c->ev->seq : c->last_check_seq;
	return 0;
}

/* ---- snapshots: buddyinfo and pagetypeinfo ------------------------------------------- */

struct fc_worst {
	uint64_t mismatches;
	int64_t diff, model, kernel;
	int zone, ord, mt;
};

/*
 * Events with a pfn in each zone while snapshot @snap was being read: each changes a
 * free-block count of one (order, type) by at most one, a pageblock count by at most
 * two (a claim of a MAX_ORDER block). NULL when the window is unknown.
 */
static uint64_t *events_during(struct chk_ctx *c, const struct model *m, struct tdb *db,
			       int64_t snap)
{
	const struct model_layout *L = model_get_layout(m);
	int64_t from = -1, to = -1;
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tdb_snap_info si;
	struct tr_event ev;
	uint64_t *n;

	if (!c->rp)
		return NULL;
	if (!tdb_snap_get(db, snap, &si) && si.seq_begin >= 0 && si.seq_end >= 0) {
		from = si.seq_begin;
		to = si.seq_end;
	}
	if (from < 0 || to < from)
		return NULL;
	n = calloc(L->nr_zones ? L->nr_zones : 1, sizeof(*n));
	if (!n || tdb_cursor_open(db, (uint64_t)from, (uint64_t)to, &cur)) {
		free(n);
		return NULL;
	}
	while (tdb_cursor_next(cur, &raw) == 1) {
		int z;

		tr_decode(rp_decoder(c->rp), &raw, &ev);
		if (ev.kind == TR_EV_OTHER || ev.pfn == UINT64_MAX)
			continue;
		z = model_pfn_zone(m, ev.pfn);
		if (z >= 0)
			n[z]++;
	}
	tdb_cursor_close(cur);
	return n;
}

static void fc_note(struct fc_worst *w, int64_t model, int64_t kernel, uint64_t tol, int zone,
		    int ord, int mt)
{
	int64_t d = model - kernel;

	if ((uint64_t)(d < 0 ? -d : d) <= tol)
		return;
	w->mismatches++;
	if ((d < 0 ? -d : d) > (w->diff < 0 ? -w->diff : w->diff)) {
		w->diff = d;
		w->model = model;
		w->kernel = kernel;
		w->zone = zone;
		w->ord = ord;
		w->mt = mt;
	}
}

int chk_freecount_snapshot(struct chk_ctx *c, const struct model *m, struct tdb *db,
			   const struct rp_score *sc)
{
	static const enum tdb_zone_table q[3] = { TDB_BUDDYINFO, TDB_PAGETYPE_FREE,
						  TDB_PAGETYPE_BLOCKS };
	const struct model_layout *L = model_get_layout(m);
	struct model_zone_stats *zs;
	struct model_stats ms;
	uint64_t *during, tol = 0;
	unsigned int z;
	bool lost;
	int t;

	zs = calloc(L->nr_zones ? L->nr_zones : 1, sizeof(*zs));
	if (!zs)
		return bc_error(BC_E_NOMEM, "out of memory");
	during = events_during(c, m, db, sc->snap);
	if (sc->pb_refit) {
		/* The counts below are after the refit; the difference was guesses only. */
		chk_count(c, CHK_FREECOUNT, 1);
		if (!c->r[CHK_FREECOUNT].explained++)
			snprintf(c->explained_note[CHK_FREECOUNT], sizeof(c->explained_note[0]),
				 "snapshot %lld: pagetypeinfo's pageblocks per type differ from the "
				 "model's by %llu pageblock%s, all of types guessed at the seed (a wrong "
				 "guess or an untraced re-type), re-typed to its counts: %.96s",
				 (long long)sc->snap, (unsigned long long)sc->pb_refit,
				 sc->pb_refit == 1 ? "" : "s", sc->pb_refit_note);
	}
	model_get_stats(m, &ms);
	if (ms.nopcp_frees + c->trylock_late > c->nopcp_seen) {
		/*
		 * free_unref_page() (6.1; free_frozen_pages() later) from an interrupt while
		 * its cpu held the pcp lock in a free batch: pcp_spin_trylock() failed and
		 * free_one_page() put the page in the buddy, no drain traced. The replay
		 * modelled it so (events inside the batch's locked section, or a free inside a
		 * refill's or after a free-path drain found in the buddy later); without it the model would hold these
		 * blocks on a pcp list and the counts here would differ.
		 */
		uint64_t n = ms.nopcp_frees + c->trylock_late - c->nopcp_seen;

		c->nopcp_seen = ms.nopcp_frees + c->trylock_late;
		if (!c->r[CHK_FREECOUNT].explained)
			snprintf(c->explained_note[CHK_FREECOUNT], sizeof(c->explained_note[0]),
				 "snapshot %lld: %llu free%s went to the buddy, not the pcp list: pcp "
				 "trylock failed: freed from interrupt context while the cpu held its "
				 "pcp lock (a free batch, a refill, a drain of the free path before "
				 "6.7; or a block a snapshot read free)",
				 (long long)sc->snap,
				 (unsigned long long)n, n == 1 ? "" : "s");
		c->r[CHK_FREECOUNT].explained += n;
	}
	for (z = 0; z < L->nr_zones; z++) {
		model_zone_stats(m, z, &zs[z]);
		model_count_pageblocks(m, z, zs[z].pageblocks);
	}
	for (t = 0; t < 3; t++) {
		struct fc_worst w = { .zone = -1 };
		struct tdb_zone_count *row;
		int nrow, i;

		if (tdb_snap_zone_counts(db, sc->snap, q[t], &row, &nrow))
			continue;
		for (i = 0; i < nrow; i++) {
			int zi = model_zone_of_name(m, row[i].node, row[i].zone);
			int ord = row[i].ord, mt = -1, k;
			int64_t kern = row[i].nr, mod = 0;

			if (zi < 0 || kern < 0 || ord >= 16)
				continue;
			if (t) {
				mt = model_mt_of_name(model_get_profile(m), row[i].migratetype);
				if (mt < 0 || mt >= 8)
					continue;
			}
			if (t == 0)
				for (k = 0; k < 8; k++)
					mod += (int64_t)zs[zi].nr_free[ord][k];
			else if (t == 1)
				mod = (int64_t)zs[zi].nr_free[ord][mt];
			else
				mod = (int64_t)zs[zi].pageblocks[mt];
			chk_count(c, CHK_FREECOUNT, 1);
			/* Within what changed while the snapshot was read. */
			tol = during ? during[zi] * (t == 2 ? 2 : 1) : sc->pfns_changed;
			fc_note(&w, mod, kern, tol, zi, ord, mt);
		}
		free(row);
		/* Pages the model holds uncertain (lost-event windows, races with the
		 * seeding snapshot, not settled since) leave a difference undecided. */
		lost = sc->pfns_uncertain > 0;
		if (w.mismatches)
			tol = during ? during[w.zone] * (t == 2 ? 2 : 1) : sc->pfns_changed;
		if (!w.mismatches)
			continue;
		if (t == 0)
			chk_report_v(c, CHK_INV_FREECOUNT_BUDDYINFO, lost,
				     CHK_NO_PFN, (unsigned int)w.ord,
				     "snapshot %lld: %s order %d has %lld free blocks in the model, "
				     "%lld in buddyinfo (%llu events changed the zone while it was "
				     "read; %llu entries differ)", (long long)sc->snap, L->zones[w.zone].name,
				     w.ord, (long long)w.model, (long long)w.kernel,
				     (unsigned long long)tol, (unsigned long long)w.mismatches);
		else
			chk_report_v(c, CHK_INV_FREECOUNT_PAGETYPEINFO, lost,
				     CHK_NO_PFN, w.ord < 0 ? 0 : (unsigned int)w.ord,
				     "snapshot %lld: %s %s %s%.0d has %lld in the model, %lld in "
				     "pagetypeinfo (%llu allowed by the events while it was read; %llu "
				     "entries differ)", (long long)sc->snap, L->zones[w.zone].name,
				     mt_name(c, w.mt), w.ord < 0 ? "pageblocks" : "free blocks of order ",
				     w.ord < 0 ? 0 : w.ord, (long long)w.model, (long long)w.kernel,
				     (unsigned long long)tol, (unsigned long long)w.mismatches);
	}
	free(during);
	free(zs);
	return 0;
}

/* ---- hypothetical attempts ---------------------------------------------------------- */

/* Free pages of the zone holding @pfn: buddy (isolated included) and pcp. */
static uint64_t zone_free_pages(const struct model *m, uint64_t pfn)
{
	struct model_zone_stats zs;
	int z = model_pfn_zone(m, pfn);

	if (z < 0 || model_zone_stats(m, (unsigned int)z, &zs))
		return 0;
	return zs.free_pages + zs.isolated_free_pages + zs.pcp_pages;
}

int chk_contig_begin(struct chk_ctx *c, const struct model *m, uint64_t start, uint64_t end)
{
	struct model_range_counts rc;
	int ret;

	if (!c->have_layout)
		chk_set_layout(c, m);
	if (!c->pbs) {
		ret = chk_pbs_init(c, m);
		if (ret)
			return ret;
	}
	free(c->hyp.pb_before);
	memset(&c->hyp, 0, sizeof(c->hyp));
	c->hyp.a.kind = TR_ATTEMPT_CONTIG;
	c->hyp.a.start_pfn = c->hyp.a.outer_start = start;
	c->hyp.a.end_pfn = end;
	c->hyp.a.seq_begin = c->hyp.a.seq_test = c->hyp.a.seq_end = CHK_NO_SEQ;
	ret = save_pb_before(c, m, &c->hyp);
	if (ret)
		return ret;
	c->hyp.begun = true;
	c->hyp_unmovable = 0;
	c->hyp_free = zone_free_pages(m, start);
	c->hyp_have_free = model_pfn_zone(m, start) == model_pfn_zone(m, end - 1);
	if (!model_range_counts(m, start, end, &rc))
		c->hyp_unmovable = rc.pages[MODEL_PBC_UNMOVABLE] + rc.pages[MODEL_PBC_RESERVED];
	return 0;
}

int chk_after_contig(struct chk_ctx *c, const struct model *m, uint64_t start, uint64_t end,
		     int rc)
{
	const struct tr_event *saved = c->ev;
	uint64_t s, e, pfn, i;

	if (!c->hyp.begun || c->hyp.a.start_pfn != start || c->hyp.a.end_pfn != end) {
		int ret = chk_contig_begin(c, m, start, end);	/* no before-state: partial */

		if (ret)
			return ret;
		c->hyp_unmovable = 0;
		c->hyp_have_free = false;
	}
	c->ev = NULL;
	c->hypothetical++;
	if (rc == 0 && chk_on(c, CHK_CONTIG_EXACT)) {
		chk_count(c, CHK_CONTIG_EXACT, 1);
		if (c->hyp_unmovable)
			chk_report_v(c, CHK_INV_CONTIG_IN_USE, false, start, 0,
				     "hypothetical alloc_contig_range(%#llx, %#llx) succeeded although "
				     "the range held %llu unmovable page(s) that cannot be migrated",
				     (unsigned long long)start, (unsigned long long)end,
				     (unsigned long long)c->hyp_unmovable);
		if (c->hyp_have_free) {
			/*
			 * Conservation: migration moves each in-use page out (a destination
			 * allocated, the source freed), so success takes exactly end - start
			 * free pages from the zone. Fewer: pages still in use were taken over.
			 */
			uint64_t now = zone_free_pages(m, start), n = end - start;

			if (now + n != c->hyp_free && now < c->hyp_free && c->hyp_free - now < n)
				chk_report_v(c, CHK_INV_CONTIG_IN_USE, false, start, 0,
					     "hypothetical alloc_contig_range(%#llx, %#llx) succeeded "
					     "while %llu page(s) of it were still in use: the zone's "
					     "free pages fell by %llu, not by the %llu of the range",
					     (unsigned long long)start, (unsigned long long)end,
					     (unsigned long long)(n - (c->hyp_free - now)),
					     (unsigned long long)(c->hyp_free - now),
					     (unsigned long long)n);
		}
		for (pfn = start; pfn < end; pfn++) {
			struct model_pfn_info pi;

			if (model_pfn_info(m, pfn, &pi) || pi.state == MODEL_PFN_ALLOC)
				continue;
			chk_report_v(c, CHK_INV_CONTIG_RANGE, false, pfn, 0,
				     "hypothetical allocation of [%#llx, %#llx) left page %#llx not "
				     "allocated", (unsigned long long)start, (unsigned long long)end,
				     (unsigned long long)pfn);
			break;
		}
		for (i = 0; i < 2; i++) {
			struct model_pfn_info pi;
			uint64_t p = i ? end : start - 1;

			if ((i == 0 && !start) || model_pfn_info(m, p, &pi) ||
			    pi.state != MODEL_PFN_ALLOC || pi.seeded)
				continue;
			if (pi.head + (1ull << pi.order) > start && pi.head < end)
				chk_report_v(c, CHK_INV_CONTIG_RANGE, false, p, pi.order,
					     "hypothetical allocation of [%#llx, %#llx) took page %#llx "
					     "outside the range", (unsigned long long)start,
					     (unsigned long long)end, (unsigned long long)p);
		}
	}
	/* No pageblock stays isolated; the undo restores the types. */
	if (chk_on(c, CHK_PAGEBLOCK_TYPE)) {
		for (i = 0; i < c->hyp.nr_pb; i++) {
			uint64_t p = (c->hyp.pb_first + i) << c->pb_order;
			uint8_t now = pb_read(m, p);
			int want = undo_type(c, &c->hyp, p);

			chk_count(c, CHK_PAGEBLOCK_TYPE, 1);
			if (now == PBS_NONE)
				continue;
			if (now & PBS_ISO)
				chk_report_v(c, CHK_INV_PB_ISOLATE_CHANGE, false, p, c->pb_order,
					     "pageblock %#llx is still isolated after the hypothetical "
					     "attempt on [%#llx, %#llx) returned %d",
					     (unsigned long long)p, (unsigned long long)start,
					     (unsigned long long)end, rc);
			else if (want >= 0 && (now & PBS_MT) != want && !in_merged_block(c, m, p))
				chk_report_v(c, CHK_INV_PB_TYPE_CHANGE, false, p, c->pb_order,
					     "the hypothetical attempt on [%#llx, %#llx) left pageblock "
					     "%#llx %s; the undo restores %s", (unsigned long long)start,
					     (unsigned long long)end, (unsigned long long)p,
					     mt_name(c, now & PBS_MT), mt_name(c, want));
		}
	}
	if (chk_on(c, CHK_ISOLATION_ESCAPE)) {
		att_bounds(c, &c->hyp.a, &s, &e);
		scan_range(c, m, s, e, false, 0);
	}
	if (chk_on(c, CHK_FREECOUNT)) {
		char buf[256];
		long bad;

		bad = recount(c, m, buf, sizeof(buf));
		if (bad > 0)
			chk_report_v(c, CHK_INV_FREECOUNT_RECOUNT, false, CHK_NO_PFN, 0,
				     "after the hypothetical attempt on [%#llx, %#llx) "
				     "model_recount() found %ld mismatch(es): %s",
				     (unsigned long long)start, (unsigned long long)end, bad, buf);
	}
	c->hyp.ended = true;
	c->hyp.begun = false;
	c->ev = saved;
	return 0;
}

int chk_alloc_contig_range(struct chk_ctx *c, struct model *m,
			   const struct model_contig_req *req, struct model_contig_result *res)
{
	int rc;

	if (c && chk_contig_begin(c, m, req->start, req->end))
		c = NULL;	/* out of memory: the attempt still runs, unchecked */
	rc = model_alloc_contig_range(m, req, res);
	if (c)
		chk_after_contig(c, m, req->start, req->end, rc ? rc : res->ret);
	return rc;
}
