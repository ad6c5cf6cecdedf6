// SPDX-License-Identifier: GPL-2.0
/*
 * Checks on the trace itself, with or without the model: buddy-sanity (orders,
 * alignment, pfns in zones and System RAM, double frees and allocations of pages in
 * use, from a shadow map built from the events alone), isolation-escape (a page of a
 * range the kernel isolated handed out after the attempt drained the pcp lists),
 * contig-exact (test success while a page of the range was in use, pages of a held
 * range allocated again, free isolation outside the range).
 *
 * Also the trace-only plumbing: the event decoder and the contiguous attempts
 * (trace/) when there is no replay to ask.
 */
#include <stdlib.h>
#include <string.h>

#include "checkers/chk-local.h"
#include "common/err.h"
#include "db/tdb-snap.h"
#include "trace/tr-layout.h"

/* ---- decoding ----------------------------------------------------------------------- */

int chk_decode_init(struct chk_ctx *c, struct tdb *db)
{
	struct model_profile prof;
	bool cma = false;
	int64_t snap;
	char *rel;
	int ret;

	tr_decoder_destroy(c->dec);
	c->dec = NULL;
	ret = tr_decoder_create(db, &c->dec);
	if (ret)
		return ret;
	rel = tdb_get_meta(db, "kernel_release");
	model_profile_from_release(rel ? rel : "", c->pb_order, &prof);
	free(rel);
	ret = tdb_snap_first_zoned(db, &snap);
	if (!ret && snap >= 0)
		ret = tr_snap_cma(db, snap, &cma);
	if (ret)
		return ret;
	prof.cma = cma;
	c->order18 = prof.gigantic_free_order18;
	c->isolate_mt = prof.cma ? 5 : 4;
	c->isolate_bit = prof.isolate_bit;
	c->pcp_orders = prof.pcp_orders;
	return 0;
}

/* ---- attempts without replay ------------------------------------------------------------ */

int chk_find_attempts(struct chk_ctx *c, struct tdb *db)
{
	struct tr_attempt_geometry geo = {
		.pageblock_order = c->pb_order,
		.memory_block_pages = c->L.memory_block_pages,
	};
	struct tr_attempt *att;
	int nr, ret;

	ret = tr_find_attempts(db, c->dec, &geo, &att, &nr);
	if (ret)
		return ret;
	ret = chk_set_attempts(c, att, nr);
	free(att);
	return ret;
}

/* ---- static rules --------------------------------------------------------------------- */

bool chk_in_ram(const struct chk_ctx *c, uint64_t pfn)
{
	const struct model_layout *L = &c->L;
	bool in_zone = false;
	unsigned int i;

	for (i = 0; i < L->nr_zones && !in_zone; i++)
		in_zone = pfn >= L->zones[i].start_pfn &&
			  pfn - L->zones[i].start_pfn < L->zones[i].spanned;
	if (!in_zone)
		return false;
	if (!L->nr_ram)
		return true;
	for (i = 0; i < L->nr_ram; i++)
		if (pfn >= L->ram[i].start && pfn < L->ram[i].end)
			return true;
	return false;
}

static bool has_pfn(const struct tr_event *ev)
{
	switch (ev->kind) {
	case TR_EV_PAGE_ALLOC: case TR_EV_PAGE_FREE: case TR_EV_ZONE_LOCKED:
	case TR_EV_PCPU_DRAIN: case TR_EV_EXTFRAG:
		return ev->pfn != UINT64_MAX;
	default:
		return false;
	}
}

const char *chk_event_name(const struct tr_event *ev)
{
	return (unsigned int)ev->kind < TR_NR_EVENT_KINDS ? tr_event_kind_name(ev->kind) : "event";
}

/* Order of the pages the event concerns; false when the order itself is impossible. */
static bool check_static(struct chk_ctx *c, const struct tr_event *ev, unsigned int *order)
{
	unsigned int o = ev->order, max = c->max_order;

	if (ev->kind == TR_EV_EXTFRAG) {
		if (ev->fallback_order > max || o > max) {
			chk_report_v(c, CHK_INV_BUDDY_ORDER, false, ev->pfn, o,
				     "%s: alloc order %u / fallback order %u, MAX_PAGE_ORDER is %u",
				     chk_event_name(ev), o, ev->fallback_order, max);
			return false;
		}
		/*
		 * The page is the fallback block's head, except after a partial claim:
		 * try_to_claim_block() moves the block's free pages to the new type and
		 * returns __rmqueue_smallest(zone, order, start_type), a block of the
		 * allocation's order from anywhere on that list (6.12 backport:
		 * try_to_steal_block()).
		 */
		if (!ev->change_ownership || ev->fallback_order >= c->pb_order)
			o = ev->fallback_order;
	} else if (o > max && !(ev->kind == TR_EV_PAGE_FREE && o == 18 && c->order18)) {
		chk_report_v(c, CHK_INV_BUDDY_ORDER, false, ev->pfn, o,
			     "%s of order %u: MAX_PAGE_ORDER is %u%s", chk_event_name(ev), o, max,
			     ev->kind == TR_EV_PAGE_FREE ? " (18 only for gigantic frees)" : "");
		return false;
	}
	*order = o;
	if (ev->pfn & ((1ull << o) - 1)) {
		chk_report_v(c, CHK_INV_BUDDY_ALIGN, false, ev->pfn, o,
			     "%s: head pfn %#llx is not aligned to order %u", chk_event_name(ev),
			     (unsigned long long)ev->pfn, o);
		return false;
	}
	if (c->have_layout && (!chk_in_ram(c, ev->pfn) ||
			       !chk_in_ram(c, ev->pfn + (1ull << o) - 1))) {
		chk_report_v(c, CHK_INV_BUDDY_PFN, false, ev->pfn, o,
			     "%s: pages %#llx-%#llx are not all inside one zone's System RAM",
			     chk_event_name(ev), (unsigned long long)ev->pfn,
			     (unsigned long long)(ev->pfn + (1ull << o) - 1));
		return false;
	}
	return true;
}

/* ---- isolation-escape on the trace ------------------------------------------------------ */

static void att_range(const struct chk_ctx *c, const struct chk_att *ca, uint64_t *s, uint64_t *e)
{
	uint64_t pb = 1ull << c->pb_order;

	*s = ca->a.start_pfn & ~(pb - 1);
	*e = (ca->a.end_pfn + pb - 1) & ~(pb - 1);
}

/* The attempt whose isolated range holds [pfn, pfn + n) now, with escapes counting. */
static struct chk_att *isolating(struct chk_ctx *c, const struct tr_event *ev, uint64_t pfn,
				 uint64_t n)
{
	int i;

	for (i = 0; i < c->nr_att; i++) {
		struct chk_att *ca = &c->att[i];
		uint64_t s, e, last;

		if (!ca->active || !ca->drained || ev->seq <= ca->drain_end)
			continue;
		/* After a successful test the range belongs to the allocation (contig-exact). */
		last = ca->a.success ? ca->a.seq_test : ca->a.seq_end;
		if (ev->seq >= last)
			continue;
		att_range(c, ca, &s, &e);
		if (pfn < e && pfn + n > s)
			return ca;
	}
	return NULL;
}

static void check_escape(struct chk_ctx *c, const struct tr_event *ev, unsigned int order)
{
	struct chk_att *ca;

	if (ev->kind != TR_EV_PAGE_ALLOC && ev->kind != TR_EV_ZONE_LOCKED)
		return;
	chk_count(c, CHK_ISOLATION_ESCAPE, 1);
	ca = isolating(c, ev, ev->pfn, 1ull << order);
	if (!ca)
		return;
	if (ev->kind == TR_EV_PAGE_ALLOC)
		chk_report_v(c, CHK_INV_ISO_ALLOC, ca->lost, ev->pfn, order,
			     "mm_page_alloc handed out a page of [%#llx, %#llx), isolated by "
			     "task %d's attempt since seq %llu, after its pcp drain",
			     (unsigned long long)ca->a.start_pfn, (unsigned long long)ca->a.end_pfn,
			     ca->a.pid, (unsigned long long)ca->a.seq_begin);
	else
		chk_report_v(c, CHK_INV_ISO_FREELIST, ca->lost, ev->pfn, order,
			     "mm_page_alloc_zone_locked took the block from free list %d although "
			     "its pageblock was isolated by task %d's attempt on [%#llx, %#llx)",
			     ev->mt, ca->a.pid, (unsigned long long)ca->a.start_pfn,
			     (unsigned long long)ca->a.end_pfn);
}

/* ---- shadow rules ------------------------------------------------------------------------- */

static bool model_uncertain(const struct model *m, uint64_t pfn)
{
	struct model_pfn_info pi;

	return m && !model_pfn_info(m, pfn, &pi) && pi.uncertain;
}

/* Was the shadow word written before the last lost window (its page may have changed)? */
static bool stale_known(const struct chk_ctx *c, const uint32_t *w)
{
	return w && sh_state(*w) != SH_UNKNOWN && sh_stale(c, *w);
}

/*
 * Page tables (GFP_PGTABLE_USER / GFP_PGTABLE_KERNEL: GFP_KERNEL | __GFP_ZERO, with or
 * without __GFP_ACCOUNT and __GFP_COMP). Measured on 6.18: about one pgd in 1,000-1,500
 * forks is freed when its dead mm is dropped with no mm_page_free at all (perf on the
 * same tracepoint misses it too; nothing is lost), and the page is allocated again from
 * that cpu's pcp list. Such a re-allocation is counted as explained, not a violation.
 * Anonymous pipe buffers (pipe_write()'s alloc_page(GFP_HIGHUSER | __GFP_ACCOUNT),
 * fs/pipe.c) do the same: measured on 6.18, 4 of 13,382 in 12 captures were
 * allocated again on the same cpu a few events later with no mm_page_free between
 * (no loss reported; the freeing path is not identified). Explained likewise.
 */
#define GFP_KERNEL_BITS		0xcc0ull	/* __GFP_IO|__GFP_FS|__GFP_RECLAIM */
#define GFP_ZERO_BIT		0x100ull
#define GFP_COMP_BIT		0x40000ull
#define GFP_ACCOUNT_BIT		0x400000ull
#define GFP_HIGHUSER_BITS	0x100cc2ull	/* GFP_USER | __GFP_HIGHMEM */

static bool quiet_free_gfp(uint64_t gfp)
{
	return (gfp & ~(GFP_COMP_BIT | GFP_ACCOUNT_BIT)) == (GFP_KERNEL_BITS | GFP_ZERO_BIT) ||
	       gfp == (GFP_HIGHUSER_BITS | GFP_ACCOUNT_BIT);
}

#define SH_BIT(st)	(1u << (st))

/*
 * The first page of @ev's block of @order whose shadow state is in @states (SH_BIT()s):
 * its word, its pfn in *@pfn; NULL when none. Counts one buddy-sanity check; one that
 * found nothing but relied on pages last seen before a lost window is inconclusive.
 */
static uint32_t *first_in_state(struct chk_ctx *c, const struct tr_event *ev,
				unsigned int order, unsigned int states, uint64_t *pfn)
{
	uint64_t n = 1ull << order, i;
	bool unsure = false;

	chk_count(c, CHK_BUDDY_SANITY, 1);
	for (i = 0; i < n; i++) {
		uint32_t *w = chk_sh_word(c, ev->pfn + i, false);

		unsure = unsure || stale_known(c, w);
		if (w && (states & SH_BIT(sh_state(*w)))) {
			*pfn = ev->pfn + i;
			return w;
		}
	}
	if (unsure)
		c->r[CHK_BUDDY_SANITY].inconclusive++;
	return NULL;
}

/* A known kernel behaviour: counted as explained, the first one remembered. */
static void explain(struct chk_ctx *c, const struct tr_event *ev, uint64_t pfn)
{
	if (chk_on(c, CHK_BUDDY_SANITY) && !c->r[CHK_BUDDY_SANITY].explained++) {
		c->explained_seq = ev->seq;
		c->explained_pfn = pfn;
	}
}

/*
 * mm_page_alloc / zone_locked: no page of the block may be in use or held. A check that
 * relies on pages last seen before a lost window is inconclusive, never passed.
 */
static void check_take(struct chk_ctx *c, const struct model *m, const struct tr_event *ev,
		       unsigned int order)
{
	uint64_t pfn;
	uint32_t *w = first_in_state(c, ev, order,
				     SH_BIT(SH_ALLOC) | SH_BIT(SH_ALLOC_PT) | SH_BIT(SH_CONTIG), &pfn);
	bool stale;

	if (!w)
		return;
	/* The untraced free may go straight to the buddy (free_frozen_pages()'s
	 * pcp_spin_trylock() failing: free_one_page()); the page then shows again as a
	 * zone_locked refill. */
	if (sh_state(*w) == SH_ALLOC_PT && !order) {
		explain(c, ev, pfn);
		return;
	}
	stale = sh_stale(c, *w) || model_uncertain(m, pfn);
	/* An mlocked page leaves with no mm_page_free (checkers/README.md): the last
	 * snapshot to read it before this event saw it mlocked. */
	if (sh_state(*w) == SH_ALLOC && !stale && chk_read_mlocked(c, pfn, ev->seq)) {
		explain(c, ev, pfn);
		return;
	}
	if (sh_state(*w) == SH_CONTIG)
		chk_report_v(c, CHK_INV_CONTIG_REALLOC, stale, pfn, order,
			     "%s of a page held by a successful contiguous allocation "
			     "that was not freed since", chk_event_name(ev));
	else
		chk_report_v(c, CHK_INV_BUDDY_ALLOC_IN_USE, stale, pfn, order,
			     "%s of a page allocated earlier in the trace and not freed "
			     "since", chk_event_name(ev));
}

/*
 * A free of pages the trace has in the buddy that is not the same block freed again:
 * the block's pages were last freed or drained as other blocks (its head was not a
 * head, or a page inside it was), so the kernel allocated this block from the buddy
 * between, with no event; or a page of it had already left a pcp list once with no
 * event (SH_UNTRACED). Measured on 6.18 (checkers/README.md, "untraced allocations
 * after a drain"): pages drained to the buddy come back to a task without
 * mm_page_alloc_zone_locked, and order-2 blocks of pages drained one by one are freed
 * with no event allocating them.
 */
static bool untraced_alloc(struct chk_ctx *c, const struct tr_event *ev, unsigned int order,
			   const uint32_t *w)
{
	uint64_t i;

	if (*w & SH_UNTRACED)
		return true;
	for (i = 0; i < (1ull << order); i++) {
		const uint32_t *x = chk_sh_word(c, ev->pfn + i, false);
		bool head = x && (*x & SH_HEAD);

		if (head != !i)
			return true;
	}
	return false;
}

/*
 * Compaction's free scanner (isolate_freepages_block(), fast_isolate_freepages():
 * __isolate_free_page()) takes free pages with no per-page event; migration hands
 * them out through compaction_alloc() with none either, and compaction_free() puts a
 * target a migration did not use back on cc->freepages through free_pages_prepare(),
 * whose mm_page_free is not a free to the allocator: the same page can show as freed
 * hundreds of times while kcompactd retries (checkers/README.md). release_free_list()
 * frees what is left at the end. So a task between a compaction migrate_pages()
 * (reason MR_COMPACTION) and its next allocation may free buddy pages of its own.
 */
static int *compact_slot(struct chk_ctx *c, int pid)
{
	int i;

	for (i = 0; i < CHK_COMPACT_TASKS; i++)
		if (c->compact_pid[i] == pid)
			return &c->compact_pid[i];
	return NULL;
}

static void compacting(struct chk_ctx *c, const struct tr_event *ev)
{
	int *slot = compact_slot(c, ev->pid), i;

	if (ev->kind == TR_EV_MIGRATE_START && ev->reason == TR_MR_COMPACTION && ev->pid > 0) {
		if (slot)
			return;
		for (i = 0; i < CHK_COMPACT_TASKS && c->compact_pid[i] > 0; i++)
			;
		c->compact_pid[i < CHK_COMPACT_TASKS ? i : ev->pid % CHK_COMPACT_TASKS] = ev->pid;
	} else if (slot && (ev->kind == TR_EV_PAGE_ALLOC || ev->kind == TR_EV_MIGRATE_START)) {
		*slot = 0;
	}
}

/*
 * The block freed lay inside a larger block the trace last freed or drained: the
 * page after it is not a head (aligned blocks: a non-head page at pfn + 2^order
 * belongs to a block that covers [pfn, pfn + 2^order) too). A smaller block was
 * allocated out of it with no event.
 */
static bool inside_larger(struct chk_ctx *c, const struct tr_event *ev, unsigned int order)
{
	const uint32_t *x = chk_sh_word(c, ev->pfn + (1ull << order), false);

	return x && (sh_state(*x) == SH_BUDDY || sh_state(*x) == SH_FREE) && !(*x & SH_HEAD);
}

static void check_free(struct chk_ctx *c, const struct model *m, const struct tr_event *ev,
		       unsigned int order)
{
	uint64_t pfn;
	uint32_t *w = first_in_state(c, ev, order, SH_BIT(SH_BUDDY), &pfn);

	if (!w)
		return;
	if (untraced_alloc(c, ev, order, w) || inside_larger(c, ev, order) ||
	    compact_slot(c, ev->pid)) {
		explain(c, ev, pfn);
		return;
	}
	chk_report_v(c, CHK_INV_BUDDY_DOUBLE_FREE, sh_stale(c, *w) || model_uncertain(m, pfn),
		     pfn, order,
		     "mm_page_free of a page that was already free in the buddy (freed or "
		     "drained earlier in the trace, not allocated since)");
}

/* test_pages_isolated() success: every page of [outer_start, end) free or migrated. */
static void check_test(struct chk_ctx *c, const struct model *m, const struct tr_event *ev)
{
	int i;

	for (i = 0; i < c->nr_att; i++) {
		struct chk_att *ca = &c->att[i];
		uint64_t pfn, in_use = 0, unsure = 0, first = 0, first_unsure = 0;

		if (ca->a.seq_test != ev->seq || ev->fin_pfn < ev->end_pfn)
			continue;
		if (ca->a.kind != TR_ATTEMPT_CONTIG)
			continue;	/* offlining passes PageOffline pages in use */
		chk_count(c, CHK_CONTIG_EXACT, 1);
		for (pfn = ev->start_pfn; pfn < ev->end_pfn; pfn++) {
			uint32_t *w = chk_sh_word(c, pfn, false);
			struct model_pfn_info pi;
			bool used = false, stale = false;

			if (stale_known(c, w) && !unsure++)
				first_unsure = pfn;
			if (w && (sh_state(*w) == SH_ALLOC || sh_state(*w) == SH_ALLOC_PT ||
				  sh_state(*w) == SH_CONTIG)) {
				used = true;
				stale = sh_stale(c, *w);
			}
			if (m && !model_pfn_info(m, pfn, &pi) && pi.state == MODEL_PFN_ALLOC &&
			    !pi.seeded) {
				used = true;
				stale = stale || pi.uncertain;
			}
			if (!used)
				continue;
			if (stale || ca->lost) {
				if (!unsure++)
					first_unsure = pfn;
			} else if (!in_use++) {
				first = pfn;
			}
		}
		if (in_use)
			chk_report_v(c, CHK_INV_CONTIG_IN_USE, false, first, 0,
				     "test_pages_isolated(%#llx, %#llx) reported success while %llu "
				     "page(s) of the range were in use, the first at %#llx",
				     (unsigned long long)ev->start_pfn,
				     (unsigned long long)ev->end_pfn, (unsigned long long)in_use,
				     (unsigned long long)first);
		else if (unsure || ca->lost)
			chk_report_v(c, CHK_INV_CONTIG_IN_USE, true, first_unsure, 0, "lost events");
	}
}

/* isolate_freepages after a successful test must stay inside the attempt's range. */
static void check_isolate_free(struct chk_ctx *c, const struct tr_event *ev)
{
	int i;

	for (i = 0; i < c->nr_att; i++) {
		struct chk_att *ca = &c->att[i];
		uint64_t hi;

		if (!ca->active || !ca->a.success || ev->seq <= ca->a.seq_test ||
		    ev->pid != ca->a.pid)
			continue;
		chk_count(c, CHK_CONTIG_EXACT, 1);
		hi = (ca->a.end_pfn + (1ull << c->max_order) - 1) & ~((1ull << c->max_order) - 1);
		if (ev->start_pfn < ca->a.outer_start || ev->end_pfn > hi)
			chk_report_v(c, CHK_INV_CONTIG_RANGE, ca->lost, ev->start_pfn, 0,
				     "isolate_freepages took [%#llx, %#llx) for the allocation of "
				     "[%#llx, %#llx), outside the range and its outer free blocks",
				     (unsigned long long)ev->start_pfn,
				     (unsigned long long)ev->end_pfn,
				     (unsigned long long)ca->a.start_pfn,
				     (unsigned long long)ca->a.end_pfn);
	}
}

int chk_trace_before(struct chk_ctx *c, const struct model *m, const struct tr_event *ev)
{
	unsigned int order = 0;

	compacting(c, ev);
	if (has_pfn(ev)) {
		chk_count(c, CHK_BUDDY_SANITY, 1);
		if (!check_static(c, ev, &order))
			return 0;
		if (ev->kind == TR_EV_EXTFRAG)
			return 0;
		check_escape(c, ev, order);
		if (ev->kind == TR_EV_PAGE_ALLOC || ev->kind == TR_EV_ZONE_LOCKED)
			check_take(c, m, ev, order);
		else if (ev->kind == TR_EV_PAGE_FREE)
			check_free(c, m, ev, order);
		return 0;
	}
	if (ev->kind == TR_EV_TEST_ISOLATED)
		check_test(c, m, ev);
	else if (ev->kind == TR_EV_ISOLATE_FREE)
		check_isolate_free(c, ev);
	return 0;
}

/* Is @pfn in a range isolated by an attempt in progress (frees bypass the pcp)? */
static bool in_isolated(const struct chk_ctx *c, uint64_t pfn)
{
	int i;

	for (i = 0; i < c->nr_att; i++) {
		const struct chk_att *ca = &c->att[i];
		uint64_t s, e;

		if (!ca->active)
			continue;
		att_range(c, ca, &s, &e);
		if (pfn >= s && pfn < e)
			return true;
	}
	return false;
}

/*
 * Did a page of [pfn, pfn + n) leave a free list with no allocation event before this
 * free? It is on a pcp list or taken by a refill (a bulk allocation took it, the
 * case test_pcp_refree_not_reported keeps), or it is marked so already.
 */
static bool left_untraced(struct chk_ctx *c, uint64_t pfn, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		const uint32_t *w = chk_sh_word(c, pfn + i, false);

		if (w && (sh_state(*w) == SH_FREE || sh_state(*w) == SH_TAKEN ||
			  (*w & SH_UNTRACED)))
			return true;
	}
	return false;
}

/* The block just freed or drained at @pfn: its head, and whether it left untraced. */
static void mark_block(struct chk_ctx *c, uint64_t pfn, bool untraced)
{
	uint32_t *w = chk_sh_word(c, pfn, false);

	if (w)
		*w |= SH_HEAD | (untraced ? SH_UNTRACED : 0);
}

int chk_trace_after(struct chk_ctx *c, const struct model *m, const struct tr_event *ev)
{
	bool untraced;
	uint64_t n;
	int i;

	switch (ev->kind) {
	case TR_EV_PAGE_ALLOC:
		if (ev->pfn == UINT64_MAX || ev->order > c->max_order)
			break;
		chk_sh_set(c, ev->pfn, 1ull << ev->order,
			   !ev->order && quiet_free_gfp(ev->gfp) ? SH_ALLOC_PT : SH_ALLOC);
		break;
	case TR_EV_PAGE_FREE:
		if (ev->pfn == UINT64_MAX || ev->order > 18)
			break;
		n = 1ull << ev->order;
		untraced = left_untraced(c, ev->pfn, n);
		/* pcp_allowed_order() and not isolated: onto a pcp list (bulk allocations
		 * may take it from there without an event); else into the buddy. */
		if (ev->order < 32 && ((c->pcp_orders >> ev->order) & 1) &&
		    !(c->nr_active && in_isolated(c, ev->pfn)))
			chk_sh_set(c, ev->pfn, n, SH_FREE);
		else
			chk_sh_set(c, ev->pfn, n, SH_BUDDY);
		mark_block(c, ev->pfn, untraced);
		break;
	case TR_EV_ZONE_LOCKED:
	case TR_EV_EXTFRAG:
		/*
		 * Taken off the buddy. A fallback's page (alloc_order at the extfrag pfn)
		 * has no zone_locked of its own since 6.10 (steal_suitable_fallback() hands
		 * it out); a refill puts it on a pcp list, from which a bulk allocation
		 * may take it untraced.
		 */
		if (ev->pfn != UINT64_MAX && ev->order <= c->max_order)
			chk_sh_set(c, ev->pfn, 1ull << ev->order, SH_TAKEN);
		break;
	case TR_EV_PCPU_DRAIN:
		if (ev->pfn != UINT64_MAX && ev->order <= c->max_order) {
			const uint32_t *w = chk_sh_word(c, ev->pfn, false);

			untraced = w && (*w & SH_UNTRACED);
			chk_sh_set(c, ev->pfn, 1ull << ev->order, SH_BUDDY);
			mark_block(c, ev->pfn, untraced);
		}
		break;
	case TR_EV_ISOLATE_FREE: {
		uint64_t pfn;

		/* Compaction's free scanner takes free pages without a per-page event. */
		if (ev->end_pfn <= ev->start_pfn ||
		    ev->end_pfn - ev->start_pfn > (4ull << c->max_order))
			break;
		for (pfn = ev->start_pfn; pfn < ev->end_pfn; pfn++) {
			uint32_t *w = chk_sh_word(c, pfn, false);

			if (w && (sh_state(*w) == SH_BUDDY || sh_state(*w) == SH_FREE))
				*w = (c->epoch << SH_EPOCH_SHIFT) | SH_TAKEN;
		}
		break;
	}
	case TR_EV_TEST_ISOLATED:
		for (i = 0; i < c->nr_att; i++) {
			struct chk_att *ca = &c->att[i];

			/* An inverted range (damaged trace) holds nothing; its length
			 * would wrap to 2^64 pfns. */
			if (ca->a.seq_test != ev->seq || ev->fin_pfn < ev->end_pfn ||
			    ev->end_pfn <= ev->start_pfn)
				continue;
			/* Success: the range now belongs to the allocation; offlined memory
			 * has no pages to speak of until it is onlined (frees). */
			chk_sh_set(c, ev->start_pfn, ev->end_pfn - ev->start_pfn,
				   ca->a.kind == TR_ATTEMPT_CONTIG ? SH_CONTIG : SH_UNKNOWN);
			ca->held = ca->a.kind == TR_ATTEMPT_CONTIG;
		}
		break;
	default:
		break;
	}
	(void)m;
	return 0;
}
