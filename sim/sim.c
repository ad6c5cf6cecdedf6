// SPDX-License-Identifier: GPL-2.0
/* sim: the free-running driver (sim.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-snap.h"
#include "model/model.h"
#include "replay/replay.h"
#include "replay/tc-pcp.h"
#include "replay/zone-limits.h"
#include "sim/sim-ahead.h"
#include "sim/sim-contig.h"
#include "sim/sim-requests.h"
#include "sim/sim-seed.h"
#include "sim/sim.h"
#include "trace/tr-attempt.h"

struct sim {
	struct tdb *db;
	const struct sim_opts *o;
	struct replay *rp;		/* owns the simulated model */
	struct model *m;
	struct sim_apply *ap;
	struct tr_attempt *att;
	int nr_att;
	struct tr_attempt *ref;		/* offline probes refused at isolation */
	int nr_ref;
	struct sim_ahead ahead;		/* the pass ahead's findings (sim-ahead.h) */
	uint64_t total;			/* events in the capture (progress) */
	struct sim_result *res;
	const struct tdb_snap_info *prev;	/* the snapshot compared (or seeded) last */
};

/* One request: the hook's, else the simulation's. */
static int one_request(struct sim *S, const struct sim_request *rq)
{
	int ret = S->o->before ? S->o->before(S->o->hook_arg, S->m, S->ap, rq) : 0;

	if (ret == 1)
		ret = 0;
	else if (!ret)
		ret = sim_apply_request(S->ap, rq);
	if (!ret && S->o->progress && !(S->res->st.requests & 0xffff))
		S->o->progress(S->o->arg, rq->seq, S->total, false);
	return ret;
}

/*
 * Every request of events [from, to), read SIM_BATCH at a time so that the lookups of
 * those a few places ahead start early (sim_apply_prefetch()): the pfn map and the
 * model's pages are too large for the caches and each request lands somewhere else.
 */
static int run_window(struct sim *S, uint64_t from, uint64_t to)
{
	struct sim_request rq[SIM_BATCH];
	struct sim_reqs *it;
	int ret, n, i;

	ret = sim_reqs_open(S->db, rp_decoder(S->rp), S->att, S->nr_att, S->ref, S->nr_ref,
			    from, to, &it);
	if (ret)
		return ret;
	sim_reqs_set_ahead(it, &S->ahead);
	do {
		for (n = 0; n < SIM_BATCH && (ret = sim_reqs_next(it, &rq[n])) == 1; n++)
			;
		for (i = 0; ret >= 0 && i < n; i++) {
			int r;

			sim_apply_ahead(S->ap, rq, n, i);
			r = one_request(S, &rq[i]);
			if (r) {
				ret = r < 0 ? r : 0;
				goto out;
			}
		}
	} while (ret == 1);
out:
	S->res->st.events += sim_reqs_events(it);
	S->res->st.kernel_failed_allocs += sim_reqs_failed_allocs(it);
	sim_reqs_close(it);
	return ret < 0 ? ret : 0;
}

/*
 * Zone limits (watermarks, lowmem_reserve, pcp sizes and each pcp->high for
 * model_take()) from snapshot @si's zoneinfo, and its pcp pages onto the pcp lists
 * (sim-seed.h): those the trace after it shows, and with @behind those the trace
 * before it left there. *@nr_limits: zones with limits; *@nr: blocks listed; with
 * @zone_count, zoneinfo's pcp->count summed per zone.
 */
static int seed_pcp(struct sim *S, struct replay *rp, const struct tdb_snap_info *si,
		    const struct tdb_snap_info *const *others, int nr_others, bool behind,
		    unsigned int *nr_limits, uint64_t *nr, uint64_t *nr_reported,
		    uint64_t *nr_typed, uint64_t *zone_count, uint32_t *counts_out)
{
	struct model *m = rp_model(rp);
	const struct model_layout *L = model_get_layout(m);
	uint32_t *counts = calloc((size_t)L->nr_zones * L->nr_cpus + 1, sizeof(*counts));
	uint64_t more = 0, reported = 0, typed = 0;
	/* what untraced allocations took is in use on both sides */
	const struct sim_taken taken = { S->ahead.reused, S->ahead.taken_refills,
					 S->ahead.nr_reused, S->ahead.nr_taken_refills };
	int i, ret;

	if (!counts)
		return bc_error(BC_E_NOMEM, "out of memory");
	ret = rp_zone_limits_counts(S->db, si->id, m, nr_limits, counts);
	if (!ret)
		ret = sim_seed_pcp(S->db, rp_decoder(rp), m, (uint64_t)si->seq_end, UINT64_MAX,
				   counts, nr);
	if (!ret && behind)
		ret = sim_seed_pcp_behind(S->db, rp_decoder(rp), m, (uint64_t)si->seq_end, &taken,
					  &more, &typed);
	*nr += more;
	if (nr_typed)
		*nr_typed = typed;
	for (size_t k = 0; zone_count && k < (size_t)L->nr_zones * L->nr_cpus; k++)
		zone_count[k / L->nr_cpus] += counts[k];
	if (counts_out)
		memcpy(counts_out, counts, (size_t)L->nr_zones * L->nr_cpus * sizeof(*counts));
	/*
	 * free pages off the lists at the read, told by the snapshots @others (sim-seed.h),
	 * nearest first: a page still unknown after one is asked of the next
	 */
	for (i = 0; !ret && i < nr_others; i++) {
		const struct tdb_snap_info *o = others[i];
		uint64_t n = 0;

		ret = sim_seed_reported(S->db, rp_decoder(rp), m, o,
					(uint64_t)(o->seq_begin < si->seq_begin ? o->seq_begin :
						   si->seq_begin),
					(uint64_t)(o->seq_end > si->seq_end ? o->seq_end : si->seq_end),
					&n);
		reported += n;
	}
	if (nr_reported)
		*nr_reported = reported;
	free(counts);
	return ret;
}

/*
 * The kernel's side: the same figures of a model seeded from snapshot @snap, its pcp
 * pages (read with flags 0) told from the trace after it as on the simulated side
 * (sim-seed.h), so that both sides count pcp pages alike; pcp_count is zoneinfo's.
 */
static int kernel_figures(struct sim *S, const struct tdb_snap_info *si,
			  struct sim_figures *out)
{
	int64_t snap = si->id;
	unsigned int nr_limits;
	uint64_t nr;
	struct rp_opts ro = { .until_seq = (uint64_t)si->seq_end, .no_score = true,
			      .no_attempts = true, .seed_snap = snap, .note = S->o->note,
			      .arg = S->o->arg };
	uint64_t zone_count[MODEL_MAX_ZONES] = { 0 };
	struct tdb_pins pins = { 0 };
	struct sim_contig_env env = { .pins = &pins };
	struct replay *rp;
	unsigned int zi;
	int ret = rp_create(S->db, &ro, &rp);

	if (ret)
		return ret;
	/* the pins the snapshot lists, where the snapshot has their pages */
	ret = tdb_snap_pins(S->db, snap, &pins);
	if (ret == -BC_E_NOENT)
		ret = 0;
	if (!ret)
		ret = rp_run(rp, NULL);
	if (!ret)
		ret = sim_seed_types(S->db, rp_decoder(rp), rp_model(rp), snap,
				     (uint64_t)si->seq_begin, (uint64_t)si->seq_end, UINT64_MAX, &nr,
				     NULL);
	if (!ret)
		ret = seed_pcp(S, rp, si, &S->prev, S->prev ? 1 : 0, true, &nr_limits, &nr, NULL,
			       NULL, zone_count, NULL);
	if (!ret)
		ret = sim_figures_compute(rp_model(rp), &env, out);
	for (zi = 0; !ret && zi < out->nr_zones; zi++)
		out->zone[zi].pcp_count = zone_count[zi];
	tdb_pins_free(&pins);
	rp_destroy(rp);
	return ret;
}

/* The simulation's buddy per zone and order now, every list (buddyinfo's count). */
static int buddy_now(struct model *m, struct sim_buddyinfo *bi, uint64_t seq)
{
	const struct model_layout *L = model_get_layout(m);
	struct model_zone_stats zs;
	unsigned int zi, o;
	int mt, ret = 0;

	bi->seq = seq;
	for (zi = 0; !ret && zi < L->nr_zones && zi < MODEL_MAX_ZONES; zi++) {
		ret = model_zone_stats(m, zi, &zs);
		for (o = 0; !ret && o < SIM_ORDERS && o <= L->max_page_order; o++)
			for (mt = 0; mt < SIM_MTS; mt++)
				bi->sim[zi][o] += zs.nr_free[o][mt];
	}
	return ret;
}

/* The snapshot's buddyinfo rows, set against buddy_now()'s. */
static int buddyinfo_compare(struct sim *S, int64_t snap, struct sim_buddyinfo *bi)
{
	const struct model_layout *L = model_get_layout(S->m);
	struct tdb_zone_count *rows;
	unsigned int zi, o;
	int nr, i, z, ret = tdb_snap_zone_counts(S->db, snap, TDB_BUDDYINFO, &rows, &nr);

	if (ret)
		return ret;
	for (i = 0; i < nr; i++) {
		z = model_zone_of_name(S->m, rows[i].node, rows[i].zone);
		if (z < 0 || z >= MODEL_MAX_ZONES || rows[i].ord < 0 || rows[i].ord >= SIM_ORDERS ||
		    rows[i].nr < 0)
			continue;
		bi->kernel[z][rows[i].ord] = (uint64_t)rows[i].nr;
		bi->have = true;
	}
	free(rows);
	for (zi = 0; bi->have && zi < L->nr_zones && zi < MODEL_MAX_ZONES; zi++)
		for (o = 0; o < SIM_ORDERS && o <= L->max_page_order; o++) {
			uint64_t a = bi->sim[zi][o], b = bi->kernel[zi][o];

			bi->nr_misses += (a > b ? a - b : b - a) > sim_order_tolerance(b, o);
		}
	return 0;
}

static int compare_at(struct sim *S, const struct tdb_snap_info *si,
		      const struct sim_buddyinfo *bi)
{
	struct sim_result *r = S->res;
	struct sim_snapshot *ss;
	int ret;

	ss = realloc(r->snaps, (size_t)(r->nr_snaps + 1) * sizeof(*ss));
	if (!ss)
		return bc_error(BC_E_NOMEM, "out of memory");
	r->snaps = ss;
	ss = &ss[r->nr_snaps];
	memset(ss, 0, sizeof(*ss));
	ss->snap = si->id;
	ss->ts = (uint64_t)si->ts_end;
	ss->seq = (uint64_t)si->seq_end;
	ss->bi = *bi;
	/* the hypothetical attempts of the counts must not move the map */
	sim_apply_follow(S->ap, 0);
	ret = sim_figures_compute(S->m, sim_apply_env(S->ap), &ss->sim);
	sim_apply_follow(S->ap, 1);
	if (!ret)
		ret = kernel_figures(S, si, &ss->kernel);
	if (ret)
		return ret;
	sim_figures_verdict(&ss->sim, &ss->kernel, &ss->verdict);
	if (bi->seq)
		ret = buddyinfo_compare(S, si->id, &ss->bi);
	if (!ret)
		r->nr_snaps++;
	return ret;
}

/*
 * The pass ahead (sim-ahead.h) from event @from (the seed's read began), its
 * requests from @record_from on (its end), with each pageblock's pcp list as the seed
 * has its type (an isolated or unknown block: none).
 */
static int ahead(struct sim *S, uint64_t from, uint64_t record_from)
{
	struct sim_ahead_geo g;
	int ret = sim_ahead_geo_init(&g, S->m);

	if (ret)
		return ret;
	g.att = S->att;
	g.nr_att = (size_t)S->nr_att;
	g.record_from = record_from;
	ret = sim_ahead_find(S->db, rp_decoder(S->rp), from, S->o->until_seq, &g, &S->ahead);
	sim_ahead_geo_release(&g);
	if (!ret) {
		S->res->st.frees_taken = S->ahead.nr_taken;
		S->res->st.allocs_passed_over = S->ahead.nr_passed_over;
		S->res->st.allocs_hit_zeroing = S->ahead.nr_hit_zeroing;
	}
	return ret;
}

/* Seed (through replay, up to the seed's end), attempts, pfn map. */
static int setup(struct sim *S, const struct tdb_snap_info *seed,
		 const struct tdb_snap_info *const *later, int nr_later)
{
	const struct model_layout *L;
	struct rp_opts ro = { .until_seq = (uint64_t)seed->seq_end, .no_score = true,
			      .no_attempts = true, .seed_snap = seed->id, .note = S->o->note,
			      .arg = S->o->arg, .layout = S->o->layout, .layout_arg = S->o->hook_arg };
	struct tr_attempt_geometry geo;
	uint64_t zstart[MODEL_MAX_ZONES];
	uint32_t *counts;
	int z, ret = rp_create(S->db, &ro, &S->rp);

	if (!ret)
		ret = rp_run(S->rp, NULL);
	if (ret)
		return ret;
	S->m = rp_model(S->rp);
	/* types first: a re-type moves the block's free pages (as the teacher orders it) */
	ret = sim_seed_types(S->db, rp_decoder(S->rp), S->m, seed->id, (uint64_t)seed->seq_begin,
			     (uint64_t)seed->seq_end, UINT64_MAX, &S->res->st.seed_types_learned,
			     &S->res->st.seed_types_held);
	L = model_get_layout(S->m);
	counts = calloc((size_t)L->nr_zones * L->nr_cpus + 1, sizeof(*counts));
	if (!ret && !counts)
		ret = bc_error(BC_E_NOMEM, "out of memory");
	if (!ret)
		ret = seed_pcp(S, S->rp, seed, later, nr_later, true, &S->res->zone_limits,
		       &S->res->st.seed_pcp_listed, &S->res->st.seed_reported,
		       &S->res->st.seed_alloc_typed, NULL, counts);
	if (!ret)
		ret = tc_pcp_seed_window(S->db, rp_decoder(S->rp), S->m,
					 (uint64_t)seed->seq_begin, (uint64_t)seed->seq_end, counts,
					 &S->res->st.seed_pcp_window);
	free(counts);
	if (!ret)
		ret = sim_seed_pcp_order(S->db, rp_decoder(S->rp), S->m, (uint64_t)seed->seq_end,
					 &S->res->st.seed_pcp_reordered,
					 &S->res->st.seed_pcp_relisted);
	if (!ret)
		ret = sim_seed_free_order(S->db, rp_decoder(S->rp), S->m, (uint64_t)seed->seq_end,
					  UINT64_MAX, &S->res->st.seed_free_reordered);
	if (ret)
		return ret;
	L = model_get_layout(S->m);
	geo = (struct tr_attempt_geometry){ .pageblock_order = L->pageblock_order,
					    .memory_block_pages = L->memory_block_pages };
	ret = tr_find_attempts(S->db, rp_decoder(S->rp), &geo, &S->att, &S->nr_att);
	if (!ret)
		ret = tr_probe_attempts(S->db, &S->att, &S->nr_att);
	if (!ret)
		ret = tr_probe_refusals(S->db, &S->ref, &S->nr_ref);
	for (z = 0; z < (int)L->nr_zones; z++)
		zstart[z] = L->zones[z].start_pfn;
	if (!ret)
		ret = tr_contig_calls(S->db, zstart, (int)L->nr_zones, &S->att, &S->nr_att);
	if (!ret)
		ret = ahead(S, (uint64_t)seed->seq_begin, (uint64_t)seed->seq_end);
	if (!ret)
		ret = sim_apply_create(S->m, &S->res->st, &S->ap);
	for (z = 0; z < (int)L->nr_zones && z < MODEL_MAX_ZONES; z++)
		snprintf(S->res->zone_name[z], sizeof(S->res->zone_name[z]), "%s",
			 L->zones[z].name);
	S->res->nr_zones = L->nr_zones;
	if (!ret) {
		sim_apply_set_vmstat_traced(S->ap, tr_decoder_has(rp_decoder(S->rp),
								  TR_EV_VMSTAT_UPDATE));
		sim_apply_set_kernel_zones(S->ap, S->o->kernel_zones);
	}
	if (!ret)
		sim_apply_set_first_refills(S->ap, S->ahead.first_refills,
					    S->ahead.nr_first_refills);
	if (!ret)
		ret = sim_apply_set_pins(S->ap, S->db, seed->id);
	if (!ret && S->o->ready)
		ret = S->o->ready(S->o->hook_arg, S->m, S->ap);
	return ret;
}

/* A snapshot the run compares: complete, aligned, its end in [@at, @until]. */
static bool compared(const struct tdb_snap_info *s, uint64_t at, uint64_t until)
{
	return s->complete && s->seq_begin >= 0 && s->seq_end >= 0 &&
	       (uint64_t)s->seq_end >= at && (uint64_t)s->seq_end <= until;
}

static int run(struct sim *S, const struct tdb_snap_info *si, int nr, int seed)
{
	uint64_t at = (uint64_t)si[seed].seq_end, until = S->o->until_seq;
	const struct tdb_snap_info **later = calloc((size_t)nr + 1, sizeof(*later));
	int i, ret, nr_later = 0;

	if (!later)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (i = seed + 1; i < nr; i++)
		if (compared(&si[i], at, UINT64_MAX))
			later[nr_later++] = &si[i];
	ret = setup(S, &si[seed], later, nr_later);
	free(later);
	S->prev = &si[seed];
	S->res->seed_snap = si[seed].id;
	S->res->seed_seq = at;
	for (i = seed + 1; !ret && i < nr; i++) {
		if (!compared(&si[i], at, until))
			continue;
		struct sim_buddyinfo bi;

		memset(&bi, 0, sizeof(bi));
		/* buddyinfo is read right after the begin marker: the buddy there */
		if (!S->o->no_figures && (uint64_t)si[i].seq_begin >= at) {
			ret = run_window(S, at, (uint64_t)si[i].seq_begin);
			at = (uint64_t)si[i].seq_begin;
			if (!ret)
				ret = sim_apply_drains_end(S->ap);
			if (!ret)
				ret = buddy_now(S->m, &bi, at ? at : 1);
		}
		if (!ret)
			ret = run_window(S, at, (uint64_t)si[i].seq_end);
		at = (uint64_t)si[i].seq_end;
		/* its pins from now on (the figures' attempts see them too) */
		if (!ret)
			ret = sim_apply_set_pins(S->ap, S->db, si[i].id);
		if (!ret && !S->o->no_figures)
			ret = sim_apply_drains_end(S->ap);
		if (!ret && !S->o->no_figures)
			ret = compare_at(S, &si[i], &bi);
		S->prev = &si[i];
	}
	if (!ret && at < until)
		ret = run_window(S, at, until);
	if (!ret)
		ret = sim_apply_drains_end(S->ap);
	if (!ret && S->o->done)
		ret = S->o->done(S->o->hook_arg, S->m, S->ap);
	return ret;
}

int sim_run(struct tdb *db, const struct sim_opts *o, struct sim_result *out)
{
	struct sim S = { .db = db, .o = o, .res = out };
	struct tdb_snap_info *si;
	int nr, i, ret;

	memset(out, 0, sizeof(*out));
	ret = tdb_snap_list(db, &si, &nr);
	if (ret)
		return ret;
	/* the seed: the first complete snapshot on the trace's timeline, as replay's */
	for (i = 0; i < nr && !(si[i].complete && si[i].seq_begin >= 0 && si[i].seq_end >= 0); i++)
		;
	S.total = (uint64_t)tdb_event_count(db);
	if (i == nr)
		ret = bc_error(BC_E_FORMAT, "%s: no complete snapshot aligned to the trace; "
			       "simulate starts from one", tdb_path(db));
	else
		ret = run(&S, si, nr, i);
	if (o->progress)
		o->progress(o->arg, S.total, S.total, true);
	free(si);
	free(S.att);
	free(S.ref);
	sim_ahead_release(&S.ahead);
	sim_apply_destroy(S.ap);
	rp_destroy(S.rp);
	if (ret)
		sim_result_release(out);
	return ret;
}

void sim_result_release(struct sim_result *r)
{
	free(r->snaps);
	memset(r, 0, sizeof(*r));
}
