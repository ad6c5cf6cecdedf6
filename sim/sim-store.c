// SPDX-License-Identifier: GPL-2.0
/* sim-store: a simulate run into table simulate_figures (sim.h sim_store()). */
#include "common/err.h"
#include "db/tdb-results.h"
#include "sim/sim.h"

struct row_ctx {
	struct tdb_results *w;
	int64_t snap;
	const char *side;
};

static int row(void *arg, const char *zone, const char *name, int64_t value)
{
	struct row_ctx *c = arg;

	return tdb_results_simulate_figure(c->w, c->snap, c->side, zone, name, value);
}

static int store_run(struct tdb_results *w, const struct sim_result *r)
{
	const struct { const char *name; uint64_t v; } t[] = {
		{ "seed_snap", (uint64_t)r->seed_snap }, { "events", r->st.events },
		{ "requests", r->st.requests }, { "allocs", r->st.allocs },
		{ "frees", r->st.frees }, { "contig", r->st.contig }, { "offline", r->st.offline },
		{ "needed_reclaim", r->st.needed_reclaim },
		{ "wmark_breaches", r->st.wmark_breaches },
		{ "kernel_failed_allocs", r->st.kernel_failed_allocs },
		{ "frees_before_capture", r->st.frees_before_capture },
		{ "frees_unmatched", r->st.frees_unmatched },
		{ "frees_reused", r->st.frees_reused },
		{ "allocs_early", r->st.allocs_early }, { "allocs_held", r->st.settled },
		{ "allocs_inferred", r->st.allocs_inferred },
		{ "allocs_passed_over", r->st.allocs_passed_over },
		{ "allocs_hit_zeroing", r->st.allocs_hit_zeroing },
		{ "frees_taken", r->st.frees_taken },
		{ "frees_past_list", r->st.frees_past_list },
		{ "frees_deferred", r->st.frees_deferred },
		{ "contig_failed", r->st.contig_failed }, { "offline_failed", r->st.offline_failed },
		{ "seed_pcp_drained", r->st.seed_pcp_drained },
		{ "seed_pcp_listed", r->st.seed_pcp_listed },
		{ "seed_pcp_reordered", r->st.seed_pcp_reordered },
		{ "seed_pcp_relisted", r->st.seed_pcp_relisted },
		{ "seed_reported", r->st.seed_reported },
		{ "seed_alloc_typed", r->st.seed_alloc_typed },
		{ "seed_free_reordered", r->st.seed_free_reordered },
		{ "seed_types_learned", r->st.seed_types_learned },
		{ "seed_types_held", r->st.seed_types_held },
		{ "seed_alloc_factors", r->st.seed_alloc_factors },
		{ "seed_pcp_window", r->st.seed_pcp_window },
		{ "isolations", r->st.isolations },
		{ "isolations_refused", r->st.isolations_refused },
		{ "offline_refusals", r->st.refusals },
		{ "vmstat_update_traced", r->st.vmstat_traced },
		{ "vmstat_updates", r->st.vmstat_updates },
		{ "allocs_other_zone", r->st.other_zone_total },
		{ "same_pfn", r->st.same_pfn },
		{ "first_elsewhere_seq", r->st.first_elsewhere.seq },
		{ "first_elsewhere_nth", r->st.first_elsewhere.nth },
	};
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < sizeof(t) / sizeof(t[0]); i++)
		ret = tdb_results_simulate_figure(w, -1, "run", "", t[i].name, (int64_t)t[i].v);
	return ret;
}

int sim_store(struct tdb *db, const struct sim_result *r)
{
	struct tdb_results *w;
	int i, ret = tdb_results_begin(db, &w);

	if (ret)
		return ret;
	ret = tdb_results_simulate_clear(w);
	if (!ret)
		ret = store_run(w, r);
	for (i = 0; !ret && i < r->nr_snaps; i++) {
		struct row_ctx s = { w, r->snaps[i].snap, "sim" };
		struct row_ctx k = { w, r->snaps[i].snap, "kernel" };

		ret = sim_figures_each(&r->snaps[i].sim, row, &s);
		if (!ret)
			ret = sim_figures_each(&r->snaps[i].kernel, row, &k);
	}
	if (!ret)
		ret = tdb_results_commit(w);
	if (ret)
		tdb_results_abort(w);
	return ret;
}
