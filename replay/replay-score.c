// SPDX-License-Identifier: GPL-2.0
/*
 * Scoring the model against a later snapshot, and storing the figures.
 *
 * Per pfn (RAM inside zones): state agreement is "free in the buddy" in both or in
 * neither (kpageflags BUDDY vs the model); kind agreement, over pages the kernel shows
 * in use with a definite class (LRU/THP movable, slab/page-table/kernel unmovable,
 * reserved, hugetlb), is the model holding the page in use with the same class, the
 * class it would have in has_unmovable_pages(). Pages touched by events while the
 * snapshot was read, and pages still uncertain after lost events, are counted apart.
 * Zone figures: free blocks per order against buddyinfo, pageblocks per migratetype
 * against pagetypeinfo.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-results.h"
#include "db/tdb-snap.h"
#include "replay/replay-local.h"

#define SCORE_CHUNK (1u << 20)

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

static int score_pages(struct replay *rp, const struct rp_snap *s, struct rp_score *sc)
{
	const struct model_layout *L = &rp->layout;
	uint64_t *flags = malloc(SCORE_CHUNK * sizeof(*flags));
	unsigned int zi;
	int ret = 0;

	if (!flags)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (zi = 0; zi < L->nr_zones; zi++) {
		const struct model_zone_layout *z = &L->zones[zi];
		uint64_t zend = z->start_pfn + z->spanned, pfn;

		if (zend > s->nr_pfns)
			zend = s->nr_pfns;
		for (pfn = z->start_pfn; pfn < zend;) {
			uint64_t end = ((pfn / SCORE_CHUNK) + 1) * SCORE_CHUNK, p;

			if (end > zend)
				end = zend;
			ret = tdb_snap_pages_read(rp->db, s->id, pfn, end - pfn, flags, NULL);
			if (ret)
				goto out;
			for (p = pfn; p < end; p++) {
				uint64_t f = flags[p - pfn];
				enum rp_class kc = rp_class_of_flags(f), mc;
				struct model_pfn_info pi;

				if (model_pfn_info(rp->m, p, &pi) || pi.state == MODEL_PFN_HOLE ||
				    kc == RP_CLASS_HOLE)
					continue;
				if (p / 64 < rp->touched_words && (rp->touched[p / 64] >> (p % 64)) & 1) {
					sc->pfns_changed++;
					continue;
				}
				/*
				 * Uncertain pages are left out only after lost events; without
				 * them, the only uncertain pages are flags-0 pages of the seed
				 * (pcp, driver or non-compound tail pages): in use, kind unknown.
				 */
				if (pi.uncertain && rp->lost_since_snapshot) {
					sc->pfns_uncertain++;
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
			pfn = end;
		}
	}
out:
	free(flags);
	return ret;
}

static double rel_err(int64_t model, int64_t kernel)
{
	return fabs((double)(model - kernel)) / (double)(kernel > 1 ? kernel : 1);
}

static int zone_index(const struct replay *rp, int node, const char *name)
{
	unsigned int i;

	for (i = 0; i < rp->layout.nr_zones; i++)
		if (rp->layout.zones[i].nid == node && !strcmp(rp->layout.zones[i].name, name))
			return (int)i;
	return -1;
}

static int mt_number(const struct model_profile *p, const char *name)
{
	static const char *const names[] = { "Unmovable", "Movable", "Reclaimable", "HighAtomic" };
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return i;
	if (!strcmp(name, "CMA"))
		return p->cma ? 4 : -1;
	if (!strcmp(name, "Isolate"))
		return p->cma ? 5 : 4;
	return -1;
}

/*
 * pagetypeinfo's "Number of blocks type" walks the zone's pageblocks that have an
 * online, initialised memmap: holes and (lazily) uninitialised memory are not counted.
 */
void rp_count_pageblocks(const struct replay *rp, unsigned int zi, uint64_t *pageblocks)
{
	const struct model_zone_layout *z = &rp->layout.zones[zi];
	uint64_t pb = 1ull << rp->layout.pageblock_order, pfn;

	memset(pageblocks, 0, 8 * sizeof(*pageblocks));
	for (pfn = z->start_pfn & ~(pb - 1); pfn < z->start_pfn + z->spanned; pfn += pb) {
		struct model_range_counts rc;
		uint64_t from = pfn < z->start_pfn ? z->start_pfn : pfn;
		uint64_t to = pfn + pb > z->start_pfn + z->spanned ? z->start_pfn + z->spanned : pfn + pb;
		int stored, eff;
		bool iso;

		if (model_range_counts(rp->m, from, to, &rc) ||
		    rc.pages[MODEL_PBC_HOLE] + rc.pages[MODEL_PBC_UNINIT] >= to - from)
			continue;
		if (model_pageblock_mt(rp->m, from, &stored, &eff, &iso) || eff < 0 || eff >= 8)
			continue;
		pageblocks[eff]++;
	}
}

static int score_zones(struct replay *rp, const struct rp_snap *s, struct rp_score *sc)
{
	struct model_zone_stats zs[MODEL_MAX_ZONES];
	struct tdb_zone_count *row;
	unsigned int zi;
	int nrow, i, ret;

	for (zi = 0; zi < rp->layout.nr_zones; zi++) {
		if (model_zone_stats(rp->m, zi, &zs[zi]))
			memset(&zs[zi], 0, sizeof(zs[zi]));
		rp_count_pageblocks(rp, zi, zs[zi].pageblocks);
	}

	ret = tdb_snap_zone_counts(rp->db, s->id, TDB_BUDDYINFO, &row, &nrow);
	if (ret)
		return ret;
	for (i = 0; i < nrow; i++) {
		int z = zone_index(rp, row[i].node, row[i].zone), ord = row[i].ord, mt;
		int64_t model = 0;

		if (z < 0 || ord < 0 || ord >= 16)
			continue;
		for (mt = 0; mt < 8; mt++)
			model += (int64_t)zs[z].nr_free[ord][mt];
		if (rel_err(model, row[i].nr) > sc->buddyinfo_max_rel_err) {
			sc->buddyinfo_max_rel_err = rel_err(model, row[i].nr);
			snprintf(sc->buddy_worst_zone, sizeof(sc->buddy_worst_zone), "%s",
				 rp->layout.zones[z].name);
			sc->buddy_worst_order = ord;
			sc->buddy_worst_model = model;
			sc->buddy_worst_kernel = row[i].nr;
		}
	}
	free(row);

	ret = tdb_snap_zone_counts(rp->db, s->id, TDB_PAGETYPE_BLOCKS, &row, &nrow);
	if (ret)
		return ret;
	for (i = 0; i < nrow; i++) {
		int z = zone_index(rp, row[i].node, row[i].zone);
		int mt = mt_number(&rp->profile, row[i].migratetype);
		double e;

		if (z < 0 || mt < 0 || mt >= 8)
			continue;
		e = rel_err((int64_t)zs[z].pageblocks[mt], row[i].nr);
		if (e > sc->pagetypeinfo_max_rel_err) {
			sc->pagetypeinfo_max_rel_err = e;
			snprintf(sc->ptype_worst, sizeof(sc->ptype_worst), "%s %s: model %llu, kernel %lld",
				 rp->layout.zones[z].name, row[i].migratetype,
				 (unsigned long long)zs[z].pageblocks[mt], (long long)row[i].nr);
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

int rp_score_zones_now(struct replay *rp, const struct rp_snap *s)
{
	unsigned int zi;
	int ret;

	memset(&rp->pending, 0, sizeof(rp->pending));
	rp->pending_zones = true;
	rp->bwin_open = false;
	if (rp->opts.no_score)
		return 0;
	ret = score_zones(rp, s, &rp->pending);
	if (ret)
		return ret;
	rp->pending.buddyinfo_begin_max_rel_err = rp->pending.buddyinfo_max_rel_err;
	for (zi = 0; zi < rp->layout.nr_zones; zi++) {
		buddy_now(rp, zi, rp->bwin_lo[zi]);
		memcpy(rp->bwin_hi[zi], rp->bwin_lo[zi], sizeof(rp->bwin_hi[zi]));
	}
	rp->bwin_open = true;
	rp->bwin_end = s->seq_files_end;
	rp->bwin_snap = s;
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

int rp_buddy_window_close(struct replay *rp)
{
	double pages_off[MODEL_MAX_ZONES] = { 0 }, pages_free[MODEL_MAX_ZONES] = { 0 };
	struct rp_score *sc = &rp->pending;
	struct tdb_zone_count *row;
	int nrow, i, ret;

	if (!rp->bwin_open)
		return 0;
	rp->bwin_open = false;
	sc->buddyinfo_max_rel_err = 0;
	sc->buddy_worst_zone[0] = 0;
	sc->buddy_worst_order = 0;
	sc->buddy_worst_model = sc->buddy_worst_kernel = 0;
	ret = tdb_snap_zone_counts(rp->db, rp->bwin_snap->id, TDB_BUDDYINFO, &row, &nrow);
	if (ret)
		return ret;
	for (i = 0; i < nrow; i++) {
		int z = zone_index(rp, row[i].node, row[i].zone), ord = row[i].ord;
		int64_t k = row[i].nr, near;
		double e;

		if (z < 0 || ord < 0 || ord >= 16)
			continue;
		near = k < rp->bwin_lo[z][ord] ? rp->bwin_lo[z][ord] :
		       k > rp->bwin_hi[z][ord] ? rp->bwin_hi[z][ord] : k;
		free_err_add(pages_off, pages_free, z, ord, near, k);
		e = rel_err(near, k);
		if (e > sc->buddyinfo_max_rel_err) {
			sc->buddyinfo_max_rel_err = e;
			snprintf(sc->buddy_worst_zone, sizeof(sc->buddy_worst_zone), "%s",
				 rp->layout.zones[z].name);
			sc->buddy_worst_order = ord;
			sc->buddy_worst_model = near;
			sc->buddy_worst_kernel = k;
		}
	}
	free(row);
	sc->buddyinfo_free_err = free_err_max(rp, pages_off, pages_free);
	return 0;
}

int rp_score_snapshot(struct replay *rp, const struct rp_snap *s, struct rp_score *out)
{
	struct rp_score sc = { .snap = s->id, .ts = (uint64_t)s->ts_end, .seq = (uint64_t)s->seq_end };
	struct rp_score *n;
	int ret = 0;

	if (!rp->pending_zones)
		ret = rp_score_zones_now(rp, s);
	if (!ret)
		ret = rp_buddy_window_close(rp);
	if (ret)
		return ret;
	sc.buddyinfo_max_rel_err = rp->pending.buddyinfo_max_rel_err;
	sc.buddyinfo_begin_max_rel_err = rp->pending.buddyinfo_begin_max_rel_err;
	sc.buddyinfo_free_err = rp->pending.buddyinfo_free_err;
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
		ret = rp_resync(rp, s->id, &sc.resynced_pfns, &sc.kinds_refreshed);
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
