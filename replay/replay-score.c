// SPDX-License-Identifier: GPL-2.0
/*
 * Scoring the model against a later snapshot, and storing the figures.
 *
 * Per pfn (RAM inside zones): state agreement is "free in the buddy" in both or in
 * neither (kpageflags BUDDY vs the model); kind agreement, over pages the kernel shows
 * in use with a definite class (LRU/THP movable, slab/page-table/kernel unmovable,
 * reserved, hugetlb), is the model holding the page in use with the same class, the
 * class it would have in has_unmovable_pages(). Pages touched by events while the
 * snapshot was read, and pages still uncertain after lost events, are counted apart;
 * so are whole pageblocks free page reporting held off the free lists, untraced (read
 * as flags 0 by the seed and free later, or the reverse, with no event between). Zone
 * figures: free blocks per order against buddyinfo, pageblocks per migratetype against
 * pagetypeinfo.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-results.h"
#include "db/tdb-snap.h"
#include "replay/replay-local.h"

static enum rp_class model_class(const struct model_pfn_info *pi)
{
	switch (pi->state) {
	case MODEL_PFN_HOLE:
		return RP_CLASS_HOLE;
	case MODEL_PFN_BUDDY:
		return RP_CLASS_FREE;
	case MODEL_PFN_PCP:
	case MODEL_PFN_UNINIT:
		return RP_CLASS_NOFLAGS;
	case MODEL_PFN_ALLOC:
		break;
	}
	switch (pi->kind) {
	case MODEL_KIND_ANON: case MODEL_KIND_FILE: case MODEL_KIND_THP:
		return RP_CLASS_MOVABLE;
	case MODEL_KIND_SLAB: case MODEL_KIND_PGTABLE: case MODEL_KIND_KERNEL:
	case MODEL_KIND_COMPOUND:
		return RP_CLASS_UNMOVABLE;
	case MODEL_KIND_RESERVED:
		return RP_CLASS_RESERVED;
	case MODEL_KIND_HUGETLB:
		return RP_CLASS_HUGETLB;
	case MODEL_KIND_OFFLINE: case MODEL_KIND_ZERO:
		return RP_CLASS_OTHER;
	default:
		break;
	}
	switch (pi->gfp_class) {
	case MODEL_GFP_USER_MOVABLE: case MODEL_GFP_TRANSHUGE:
		return RP_CLASS_MOVABLE;
	case MODEL_GFP_KERNEL: case MODEL_GFP_ATOMIC: case MODEL_GFP_NOWAIT: case MODEL_GFP_OTHER:
		return RP_CLASS_UNMOVABLE;
	default:
		return RP_CLASS_NOFLAGS;	/* unknown: never agrees with a definite class */
	}
}

/* Seeded with flags 0 and touched by no event since (a drain may have called it kernel). */
static bool seed_zero(const struct model_pfn_info *pi)
{
	return pi->state == MODEL_PFN_ALLOC && pi->seeded && pi->uncertain &&
	       (pi->kind == MODEL_KIND_UNKNOWN || pi->drained);
}

struct score_walk {
	struct rp_score *sc;
	uint64_t pb;		/* pageblock of the last seed_zero_pageblock() answer, + 1 */
	bool pb_zero;
	uint64_t kpb;		/* the same for held_by_reporting() */
	bool kpb_held;
};

/* Is every page of @pfn's pageblock seed_zero()? */
static bool seed_zero_pageblock(struct replay *rp, struct score_walk *sw, uint64_t pfn)
{
	uint64_t n = 1ull << rp->layout.pageblock_order, start = pfn & ~(n - 1), p;
	struct model_pfn_info pi;

	if (sw->pb == start / n + 1)
		return sw->pb_zero;
	sw->pb = start / n + 1;
	sw->pb_zero = false;
	for (p = start; p < start + n; p++)
		if (model_pfn_info(rp->m, p, &pi) || !seed_zero(&pi) || rp_touched(rp, p))
			return false;
	sw->pb_zero = true;
	return true;
}

/*
 * The other way: the model holds @pfn in a free buddy block of pageblock order or more
 * that no event touched, and the kernel reads the whole pageblock as flags 0: free page
 * reporting has it off the lists now.
 */
static bool held_by_reporting(struct replay *rp, struct score_walk *sw,
			      const struct rp_pages *pg, const struct model_pfn_info *pi,
			      uint64_t pfn)
{
	unsigned int o = rp->layout.pageblock_order;
	uint64_t n = 1ull << o, start = pfn & ~(n - 1), p;

	if (pi->state != MODEL_PFN_BUDDY || pi->order < o)
		return false;
	if (sw->kpb == start / n + 1)
		return sw->kpb_held;
	sw->kpb = start / n + 1;
	sw->kpb_held = false;
	if (start < pg->pfn || start + n > pg->pfn + pg->n)
		return false;
	for (p = start; p < start + n; p++)
		if (pg->flags[p - pg->pfn] || rp_touched(rp, p))
			return false;
	sw->kpb_held = true;
	return true;
}

static int score_chunk(struct replay *rp, const struct rp_pages *pg, void *arg)
{
	struct score_walk *sw = arg;
	struct rp_score *sc = sw->sc;
	uint64_t p;

	for (p = pg->pfn; p < pg->pfn + pg->n; p++) {
		enum rp_class kc = rp_class_of_flags(pg->flags[p - pg->pfn]), mc;
		struct model_pfn_info pi;

		if (model_pfn_info(rp->m, p, &pi) || pi.state == MODEL_PFN_HOLE ||
		    kc == RP_CLASS_HOLE)
			continue;
		if (rp_touched(rp, p)) {
			sc->pfns_changed++;
			continue;
		}
		/*
		 * Uncertain pages are left out only after lost events; without them, the
		 * only uncertain pages are flags-0 pages of the seed (pcp, driver or
		 * non-compound tail pages): in use, kind unknown.
		 */
		if (pi.uncertain && rp->lost_since_snapshot) {
			sc->pfns_uncertain++;
			continue;
		}
		if ((kc == RP_CLASS_FREE && seed_zero(&pi) && seed_zero_pageblock(rp, sw, p)) ||
		    (kc == RP_CLASS_NOFLAGS && held_by_reporting(rp, sw, pg, &pi, p))) {
			sc->pfns_reported++;
			continue;
		}
		sc->pfns_compared++;
		if ((kc == RP_CLASS_FREE) == (pi.state == MODEL_PFN_BUDDY))
			sc->state_agree++;
		else if (kc == RP_CLASS_FREE)
			sc->model_used_kernel_free++;
		else
			sc->model_free_kernel_used++;
		if (kc == RP_CLASS_MOVABLE || kc == RP_CLASS_UNMOVABLE ||
		    kc == RP_CLASS_RESERVED || kc == RP_CLASS_HUGETLB) {
			mc = model_class(&pi);
			sc->kind_compared++;
			if (mc == kc)
				sc->kind_agree++;
		}
	}
	return 0;
}

static int score_pages(struct replay *rp, const struct rp_snap *s, struct rp_score *sc)
{
	static const struct rp_page_walk walk = { .chunk = score_chunk };
	struct score_walk sw = { .sc = sc };

	return rp_walk_pages(rp, s, &walk, &sw);
}

static double rel_err(int64_t model, int64_t kernel)
{
	return fabs((double)(model - kernel)) / (double)(kernel > 1 ? kernel : 1);
}

static int score_pagetypes(struct replay *rp, const struct rp_snap *s, struct rp_score *sc)
{
	uint64_t pageblocks[MODEL_MAX_ZONES][8];
	struct tdb_zone_count *row;
	unsigned int zi;
	int nrow, i, ret;

	for (zi = 0; zi < rp->layout.nr_zones; zi++)
		model_count_pageblocks(rp->m, zi, pageblocks[zi]);
	ret = tdb_snap_zone_counts(rp->db, s->id, TDB_PAGETYPE_BLOCKS, &row, &nrow);
	if (ret)
		return ret;
	for (i = 0; i < nrow; i++) {
		int z = model_zone_of_name(rp->m, row[i].node, row[i].zone);
		int mt = model_mt_of_name(&rp->profile, row[i].migratetype);
		double e;

		if (z < 0 || mt < 0 || mt >= 8)
			continue;
		e = rel_err((int64_t)pageblocks[z][mt], row[i].nr);
		if (e > sc->pagetypeinfo_max_rel_err) {
			sc->pagetypeinfo_max_rel_err = e;
			snprintf(sc->ptype_worst, sizeof(sc->ptype_worst), "%s %s: model %llu, kernel %lld",
				 rp->layout.zones[z].name, row[i].migratetype,
				 (unsigned long long)pageblocks[z][mt], (long long)row[i].nr);
		}
	}
	free(row);
	return 0;
}

/* Free blocks per zone and order in the model now (buddyinfo's numbers). */
static void buddy_now(const struct replay *rp, unsigned int zi, int64_t out[16])
{
	struct model_zone_stats zs;
	int ord, mt;

	memset(out, 0, 16 * sizeof(*out));
	if (model_zone_stats(rp->m, zi, &zs))
		return;
	for (ord = 0; ord < 16; ord++)
		for (mt = 0; mt < 8; mt++)
			out[ord] += (int64_t)zs.nr_free[ord][mt];
}

/*
 * Per zone, the free pages buddyinfo puts at other orders than the model does: the sum
 * over orders of |model - kernel| blocks x 2^order, over the zone's free pages in
 * buddyinfo. Unlike the relative error per order it does not explode where the kernel
 * has 0 or 1 blocks of an order: a few stray order-2 blocks weigh what they hold.
 */
static void free_err_add(double *pages_off, double *pages_free, int z, int ord, int64_t model,
			 int64_t kernel)
{
	pages_off[z] += fabs((double)(model - kernel)) * (double)(1ull << ord);
	pages_free[z] += (double)kernel * (double)(1ull << ord);
}

static double free_err_max(const struct replay *rp, const double *pages_off,
			   const double *pages_free)
{
	double worst = 0, e;
	unsigned int z;

	for (z = 0; z < rp->layout.nr_zones; z++) {
		e = pages_off[z] / (pages_free[z] > 1 ? pages_free[z] : 1);
		if (e > worst)
			worst = e;
	}
	return worst;
}

/*
 * Row @i of buddyinfo: its zone in *@z, its order in *@ord and the model's count
 * nearest the kernel's within the window's range (agrees inside it) in *@near; false
 * for a row the model does not know.
 */
static bool buddy_row(const struct replay *rp, int i, int *z, int *ord, int64_t *near)
{
	const struct tdb_zone_count *row = &rp->bwin_rows[i];
	int64_t k = row->nr;

	*z = model_zone_of_name(rp->m, row->node, row->zone);
	*ord = row->ord;
	if (*z < 0 || *ord < 0 || *ord >= 16)
		return false;
	*near = k < rp->bwin_lo[*z][*ord] ? rp->bwin_lo[*z][*ord] :
		k > rp->bwin_hi[*z][*ord] ? rp->bwin_hi[*z][*ord] : k;
	return true;
}

/*
 * buddyinfo's rows (read once per snapshot) against the window's range per zone and
 * order: a figure inside the range agrees; outside, the nearer end is the model's.
 * Scored per order as pages off over the zone's free pages (so the zone's total is
 * needed first); the relative error per order is kept for stored results only.
 */
static void score_buddy_window(struct replay *rp, struct rp_score *sc)
{
	double pages_off[MODEL_MAX_ZONES] = { 0 }, pages_free[MODEL_MAX_ZONES] = { 0 }, e;
	int64_t near;
	int i, z, ord;

	sc->buddyinfo_max_rel_err = sc->buddyinfo_order_err = 0;
	sc->buddy_worst_zone[0] = 0;
	sc->buddy_worst_order = 0;
	sc->buddy_worst_model = sc->buddy_worst_kernel = 0;
	for (i = 0; i < rp->bwin_nrows; i++) {
		if (!buddy_row(rp, i, &z, &ord, &near))
			continue;
		free_err_add(pages_off, pages_free, z, ord, near, rp->bwin_rows[i].nr);
		e = rel_err(near, rp->bwin_rows[i].nr);
		if (e > sc->buddyinfo_max_rel_err)
			sc->buddyinfo_max_rel_err = e;
	}
	for (i = 0; i < rp->bwin_nrows; i++) {
		int64_t k = rp->bwin_rows[i].nr;

		if (!buddy_row(rp, i, &z, &ord, &near))
			continue;
		e = fabs((double)(near - k)) * (double)(1ull << ord) /
		    (pages_free[z] > 1 ? pages_free[z] : 1);
		if (e > sc->buddyinfo_order_err) {
			sc->buddyinfo_order_err = e;
			snprintf(sc->buddy_worst_zone, sizeof(sc->buddy_worst_zone), "%s",
				 rp->layout.zones[z].name);
			sc->buddy_worst_order = ord;
			sc->buddy_worst_model = near;
			sc->buddy_worst_kernel = k;
		}
	}
	sc->buddyinfo_free_err = free_err_max(rp, pages_off, pages_free);
}

int rp_score_zones_now(struct replay *rp, const struct rp_snap *s)
{
	unsigned int zi;
	int ret;

	memset(&rp->pending, 0, sizeof(rp->pending));
	rp->pending_zones = true;
	rp->bwin_open = false;
	if (rp->opts.no_score)
		return 0;
	/* The window opens on the model now: its first score is buddyinfo against it. */
	for (zi = 0; zi < rp->layout.nr_zones; zi++) {
		buddy_now(rp, zi, rp->bwin_lo[zi]);
		memcpy(rp->bwin_hi[zi], rp->bwin_lo[zi], sizeof(rp->bwin_hi[zi]));
	}
	free(rp->bwin_rows);
	rp->bwin_rows = NULL;
	rp->bwin_nrows = 0;
	ret = tdb_snap_zone_counts(rp->db, s->id, TDB_BUDDYINFO, &rp->bwin_rows, &rp->bwin_nrows);
	if (ret)
		return ret;
	score_buddy_window(rp, &rp->pending);
	rp->pending.buddyinfo_begin_max_rel_err = rp->pending.buddyinfo_max_rel_err;
	rp->pending.buddyinfo_begin_order_err = rp->pending.buddyinfo_order_err;
	ret = score_pagetypes(rp, s, &rp->pending);
	if (ret)
		return ret;
	rp->bwin_open = true;
	rp->bwin_end = s->seq_files_end;
	return 0;
}

void rp_buddy_window_update(struct replay *rp)
{
	unsigned int zi, ord;
	int64_t now[16];

	for (zi = 0; zi < rp->layout.nr_zones; zi++) {
		buddy_now(rp, zi, now);
		for (ord = 0; ord < 16; ord++) {
			if (now[ord] < rp->bwin_lo[zi][ord])
				rp->bwin_lo[zi][ord] = now[ord];
			if (now[ord] > rp->bwin_hi[zi][ord])
				rp->bwin_hi[zi][ord] = now[ord];
		}
	}
}

void rp_buddy_window_close(struct replay *rp)
{
	if (!rp->bwin_open)
		return;
	rp->bwin_open = false;
	score_buddy_window(rp, &rp->pending);
	free(rp->bwin_rows);
	rp->bwin_rows = NULL;
	rp->bwin_nrows = 0;
}

int rp_score_snapshot(struct replay *rp, const struct rp_snap *s, struct rp_score *out)
{
	struct rp_score sc = { .snap = s->id, .ts = (uint64_t)s->ts_end, .seq = (uint64_t)s->seq_end };
	struct rp_score *n;
	int ret = 0;

	if (!rp->pending_zones)
		ret = rp_score_zones_now(rp, s);
	if (ret)
		return ret;
	rp_buddy_window_close(rp);
	sc.buddyinfo_max_rel_err = rp->pending.buddyinfo_max_rel_err;
	sc.buddyinfo_begin_max_rel_err = rp->pending.buddyinfo_begin_max_rel_err;
	sc.buddyinfo_free_err = rp->pending.buddyinfo_free_err;
	sc.buddyinfo_order_err = rp->pending.buddyinfo_order_err;
	sc.buddyinfo_begin_order_err = rp->pending.buddyinfo_begin_order_err;
	sc.pagetypeinfo_max_rel_err = rp->pending.pagetypeinfo_max_rel_err;
	memcpy(sc.buddy_worst_zone, rp->pending.buddy_worst_zone, sizeof(sc.buddy_worst_zone));
	sc.buddy_worst_order = rp->pending.buddy_worst_order;
	sc.buddy_worst_model = rp->pending.buddy_worst_model;
	sc.buddy_worst_kernel = rp->pending.buddy_worst_kernel;
	memcpy(sc.ptype_worst, rp->pending.ptype_worst, sizeof(sc.ptype_worst));
	rp->pending_zones = false;
	if (!rp->opts.no_score) {
		ret = score_pages(rp, s, &sc);
		if (ret)
			return ret;
		sc.pfn_agree_state = sc.pfns_compared ? (double)sc.state_agree / sc.pfns_compared : 1;
		sc.pfn_agree_kind = sc.kind_compared ? (double)sc.kind_agree / sc.kind_compared : 1;
	}
	if (!rp->opts.no_resync) {
		ret = rp_resync(rp, s, &sc.resynced_pfns, &sc.kinds_refreshed);
		if (!ret)
			ret = rp_refit_types(rp, s, &sc);
		if (ret)
			return ret;
	}
	memset(rp->touched, 0, rp->touched_words * sizeof(uint64_t));
	n = realloc(rp->scores, (rp->nr_scores + 1) * sizeof(*n));
	if (!n)
		return bc_error(BC_E_NOMEM, "out of memory");
	rp->scores = n;
	rp->scores[rp->nr_scores++] = sc;
	if (out)
		*out = sc;
	return 0;
}

static int store_score(struct tdb_results *w, const struct rp_score *s)
{
	struct tdb_replay_score r = {
		.snap = s->snap, .ts = s->ts, .seq = s->seq, .pfns_compared = s->pfns_compared,
		.pfns_changed = s->pfns_changed, .pfns_uncertain = s->pfns_uncertain,
		.state_agree = s->state_agree, .kind_compared = s->kind_compared,
		.kind_agree = s->kind_agree, .pfn_agree_state = s->pfn_agree_state,
		.pfn_agree_kind = s->pfn_agree_kind,
		.buddyinfo_max_rel_err = s->buddyinfo_max_rel_err,
		.buddyinfo_free_err = s->buddyinfo_free_err,
		.buddyinfo_order_err = s->buddyinfo_order_err,
		.pagetypeinfo_max_rel_err = s->pagetypeinfo_max_rel_err,
		.model_free_kernel_used = s->model_free_kernel_used,
		.model_used_kernel_free = s->model_used_kernel_free,
		.resynced_pfns = s->resynced_pfns,
	};

	return tdb_results_replay_score(w, &r);
}

static int store_anomalies(struct replay *rp, struct tdb_results *w)
{
	int i, ret = 0;

	for (i = 0; !ret && i < MODEL_NR_ANOM; i++) {
		struct model_anomaly_rec recs[MODEL_ANOM_KEEP];
		unsigned int nrec = 0;
		struct tdb_replay_anomaly a = { .class_name = model_anomaly_name(i) };

		a.count = model_anomaly_count(rp->m, i, recs, &nrec);
		if (!a.count)
			continue;
		if (nrec) {
			a.has_first = true;
			a.first_seq = recs[0].seq;
			a.first_ts = recs[0].ts;
			a.first_pfn = recs[0].pfn;
			a.first_order = recs[0].order;
		}
		ret = tdb_results_replay_anomaly(w, &a);
	}
	return ret;
}

/* One stored run: a new replay replaces the rows of the previous one, all or nothing. */
int rp_store_results(struct replay *rp, struct tdb *db)
{
	struct tdb_results *w;
	int i, ret;

	ret = tdb_results_begin(db, &w);
	if (ret)
		return ret;
	ret = tdb_results_replay_clear(w);
	for (i = 0; !ret && i < rp->nr_scores; i++)
		ret = store_score(w, &rp->scores[i]);
	if (!ret)
		ret = store_anomalies(rp, w);
	if (!ret)
		ret = tdb_results_commit(w);
	if (ret)
		tdb_results_abort(w);
	return ret;
}
