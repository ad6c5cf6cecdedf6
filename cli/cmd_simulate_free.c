// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk simulate (free-running, without --teacher): the model makes the allocator's
 * decisions for every request of the capture and is compared with the kernel at each
 * snapshot. `bigchunk simulate` (cmd_simulate.c: options, usage text of both modes)
 * calls simulate_free() when --teacher is absent.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/err.h"
#include "common/json.h"
#include "db/tdb.h"
#include "sim/sim.h"
#include "trace/tr-time.h"


static void json_zone(struct json *j, const struct sim_figures *f, const struct sim_zone_figures *z)
{
	int nmt = sim_nr_mts(f->cma), mt;
	unsigned int o;

	json_key(j, z->name);
	json_obj_begin(j);
	json_kuint(j, "free_pages", z->free_pages);
	json_kuint(j, "pcp_pages", z->pcp_pages);
	json_kuint(j, "pcp_count", z->pcp_count);
	json_key(j, "free_blocks");
	json_obj_begin(j);
	for (mt = 0; mt < nmt; mt++) {
		json_key(j, sim_mt_name(f->cma, mt));
		json_arr_begin(j);
		for (o = 0; o <= f->max_order && o < SIM_ORDERS; o++)
			json_uint(j, z->nr_free[o][mt]);
		json_arr_end(j);
	}
	json_obj_end(j);
	json_key(j, "pageblocks");
	json_obj_begin(j);
	for (mt = 0; mt < nmt; mt++)
		json_kuint(j, sim_mt_name(f->cma, mt), z->pageblocks[mt]);
	json_obj_end(j);
	json_kuint(j, "pageblocks_unmovable", z->pb_unmovable);
	json_kuint(j, "pageblocks_unmovable_or_unknown", z->pb_unmovable_unknown);
	json_kuint(j, "unmovable_pages", z->unmovable_pages);
	json_kint(j, "largest_free_order", z->largest_free_order);
	json_obj_end(j);
}

static void json_figures(struct json *j, const char *key, const struct sim_figures *f)
{
	unsigned int zi;

	json_key(j, key);
	json_obj_begin(j);
	json_kuint(j, "pageblocks", f->pageblocks);
	json_kuint(j, "pageblocks_unmovable", f->pb_unmovable);
	json_kuint(j, "pageblocks_unmovable_or_unknown", f->pb_unmovable_unknown);
	json_kuint(j, "unmovable_pages", f->unmovable_pages);
	json_kdouble(j, "unmovable_share", f->present_pages ?
		     (double)f->unmovable_pages / (double)f->present_pages : 0);
	json_kdouble(j, "pageblocks_unmovable_share", f->pageblocks ?
		     (double)f->pb_unmovable / (double)f->pageblocks : 0);
	json_kuint(j, "contig_2m", f->contig_2m);
	json_kuint(j, "contig_1g", f->contig_1g);
	json_key(j, "zones");
	json_obj_begin(j);
	for (zi = 0; zi < f->nr_zones; zi++)
		json_zone(j, f, &f->zone[zi]);
	json_obj_end(j);
	json_obj_end(j);
}

static void json_verdict(struct json *j, const struct sim_verdict *v)
{
	json_key(j, "targets");
	json_obj_begin(j);
	json_kdouble(j, "pageblocks_unmovable_err", v->pb_unmovable_err);
	json_kdouble(j, "free_order_err", v->free_order_err);
	json_kdouble(j, "free_order_rel_err", v->free_order_rel_err);
	json_kstr(j, "free_order_rel_worst", v->free_order_rel_worst);
	json_kbool(j, "pageblocks_unmovable_within_5pct", v->pb_unmovable_ok);
	json_kbool(j, "free_per_order_within_5pct", v->free_order_ok);
	json_kstr(j, "free_order_rule", SIM_ORDER_RULE);
	json_kuint(j, "free_order_misses", v->nr_misses);
	json_key(j, "free_order_missed");
	json_arr_begin(j);
	for (unsigned int i = 0; i < v->nr_misses && i < SIM_MAX_MISSES; i++) {
		json_obj_begin(j);
		json_kstr(j, "zone", v->misses[i].zone);
		json_kuint(j, "order", v->misses[i].order);
		json_kuint(j, "sim", v->misses[i].sim);
		json_kuint(j, "kernel", v->misses[i].kernel);
		json_kuint(j, "tolerance", v->misses[i].tolerance);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_kbool(j, "contig_2m_equal", v->contig_2m_ok);
	json_kbool(j, "contig_1g_equal", v->contig_1g_ok);
	json_obj_end(j);
}

static void json_buddyinfo(struct json *j, const struct sim_snapshot *ss)
{
	const struct sim_figures *k = &ss->kernel;
	unsigned int zi, o;

	if (!ss->bi.have)
		return;
	json_key(j, "buddyinfo_at_start");
	json_obj_begin(j);
	json_kuint(j, "seq", ss->bi.seq);
	json_kuint(j, "free_order_misses", ss->bi.nr_misses);
	json_key(j, "zones");
	json_obj_begin(j);
	for (zi = 0; zi < k->nr_zones && zi < MODEL_MAX_ZONES; zi++) {
		json_key(j, k->zone[zi].name);
		json_obj_begin(j);
		json_key(j, "sim");
		json_arr_begin(j);
		for (o = 0; o <= k->max_order && o < SIM_ORDERS; o++)
			json_uint(j, ss->bi.sim[zi][o]);
		json_arr_end(j);
		json_key(j, "kernel");
		json_arr_begin(j);
		for (o = 0; o <= k->max_order && o < SIM_ORDERS; o++)
			json_uint(j, ss->bi.kernel[zi][o]);
		json_arr_end(j);
		json_obj_end(j);
	}
	json_obj_end(j);
	json_obj_end(j);
}

static const char *zone_name(const struct sim_result *r, int zi)
{
	return zi >= 0 && (unsigned int)zi < r->nr_zones && zi < MODEL_MAX_ZONES ?
	       r->zone_name[zi] : "?";
}

static void print_json(const struct sim_result *r)
{
	const struct sim_stats *st = &r->st;
	struct json j;
	int i;

	json_init(&j, stdout, true);
	json_obj_begin(&j);
	json_kint(&j, "seed_snap", r->seed_snap);
	json_key(&j, "snapshots");
	json_arr_begin(&j);
	for (i = 0; i < r->nr_snaps; i++) {
		json_obj_begin(&j);
		json_kint(&j, "snap", r->snaps[i].snap);
		json_kuint(&j, "ts", r->snaps[i].ts);
		json_kuint(&j, "seq", r->snaps[i].seq);
		json_figures(&j, "sim", &r->snaps[i].sim);
		json_figures(&j, "kernel", &r->snaps[i].kernel);
		json_verdict(&j, &r->snaps[i].verdict);
		json_buddyinfo(&j, &r->snaps[i]);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_kuint(&j, "requests", st->requests);
	json_kuint(&j, "needed_reclaim", st->needed_reclaim);
	json_kuint(&j, "wmark_breaches", st->wmark_breaches);
	json_kuint(&j, "events", st->events);
	json_kuint(&j, "allocs", st->allocs);
	json_kuint(&j, "frees", st->frees);
	json_kuint(&j, "contig", st->contig);
	json_kuint(&j, "offline", st->offline);
	json_kuint(&j, "kernel_failed_allocs", st->kernel_failed_allocs);
	json_kuint(&j, "frees_before_capture", st->frees_before_capture);
	json_kuint(&j, "frees_unmatched", st->frees_unmatched);
	json_kuint(&j, "frees_reused", st->frees_reused);
	json_kuint(&j, "allocs_early", st->allocs_early);
	json_kuint(&j, "allocs_inferred", st->allocs_inferred);
	json_kuint(&j, "allocs_passed_over", st->allocs_passed_over);
	json_kuint(&j, "allocs_hit_zeroing", st->allocs_hit_zeroing);
	json_kuint(&j, "frees_taken", st->frees_taken);
	json_kuint(&j, "frees_past_list", st->frees_past_list);
	json_kuint(&j, "frees_deferred", st->frees_deferred);
	json_kuint(&j, "allocs_held", st->settled);
	json_kuint(&j, "contig_failed", st->contig_failed);
	json_kuint(&j, "offline_failed", st->offline_failed);
	json_kuint(&j, "seed_pcp_drained", st->seed_pcp_drained);
	json_kuint(&j, "seed_pcp_listed", st->seed_pcp_listed);
	json_kuint(&j, "seed_pcp_reordered", st->seed_pcp_reordered);
	json_kuint(&j, "seed_pcp_relisted", st->seed_pcp_relisted);
	json_kuint(&j, "seed_alloc_factors", st->seed_alloc_factors);
	json_kuint(&j, "seed_pcp_window", st->seed_pcp_window);
	json_kuint(&j, "seed_reported", st->seed_reported);
	json_kuint(&j, "seed_alloc_typed", st->seed_alloc_typed);
	json_kuint(&j, "seed_free_reordered", st->seed_free_reordered);
	json_kuint(&j, "seed_types_learned", st->seed_types_learned);
	json_kuint(&j, "seed_types_held", st->seed_types_held);
	json_kuint(&j, "isolations", st->isolations);
	json_kuint(&j, "isolations_refused", st->isolations_refused);
	json_kuint(&j, "offline_refusals", st->refusals);
	json_kbool(&j, "vmstat_update_traced", st->vmstat_traced);
	json_kbool(&j, "kernel_zones", st->kernel_zones);
	json_kuint(&j, "allocs_other_zone", st->other_zone_total);
	json_kuint(&j, "same_pfn", st->same_pfn);
	if (st->first_elsewhere.nth) {
		const struct sim_first_elsewhere *f = &st->first_elsewhere;

		json_key(&j, "first_elsewhere");
		json_obj_begin(&j);
		json_kuint(&j, "seq", f->seq);
		json_kuint(&j, "nth", f->nth);
		json_kint(&j, "cpu", f->cpu);
		json_kuint(&j, "order", f->order);
		json_kuint(&j, "kernel_pfn", f->kernel_pfn);
		if (f->sim_pfn != UINT64_MAX)
			json_kuint(&j, "sim_pfn", f->sim_pfn);
		json_kstr(&j, "kernel_zone", zone_name(r, f->kernel_zone));
		json_kstr(&j, "sim_zone", zone_name(r, f->sim_zone));
		json_obj_end(&j);
	}
	json_kuint(&j, "vmstat_updates", st->vmstat_updates);
	json_obj_end(&j);
	json_end(&j);
}

/* Allocations served from another zone than the kernel's, by zone pair. */
static void print_other_zones(const struct sim_result *r)
{
	const struct sim_stats *st = &r->st;
	unsigned int k, z;
	const char *sep = ": ";

	printf("allocations served from another zone than the kernel's: %llu of %llu (%.3f%%)",
	       (unsigned long long)st->other_zone_total, (unsigned long long)st->allocs,
	       st->allocs ? 100.0 * (double)st->other_zone_total / (double)st->allocs : 0.0);
	for (k = 0; k < r->nr_zones && k < MODEL_MAX_ZONES; k++)
		for (z = 0; z < r->nr_zones && z < MODEL_MAX_ZONES; z++)
			if (st->other_zone[k][z]) {
				printf("%s%s for the kernel's %s %llu", sep, r->zone_name[z],
				       r->zone_name[k], (unsigned long long)st->other_zone[k][z]);
				sep = ", ";
			}
	printf("\n");
}

/* How long the simulation kept to the kernel's own placements. */
static void print_same_pfn(const struct sim_result *r)
{
	const struct sim_stats *st = &r->st;
	const struct sim_first_elsewhere *f = &st->first_elsewhere;

	printf("allocations placed at the kernel's own pfn: %llu of %llu (%.2f%%)",
	       (unsigned long long)st->same_pfn, (unsigned long long)st->allocs,
	       st->allocs ? 100.0 * (double)st->same_pfn / (double)st->allocs : 0.0);
	if (!f->nth) {
		printf("\n");
		return;
	}
	printf("; the first elsewhere: allocation %llu (event %llu, cpu %d, order %u): the "
	       "kernel's pfn %#llx in %s, ", (unsigned long long)f->nth,
	       (unsigned long long)f->seq, f->cpu, f->order,
	       (unsigned long long)f->kernel_pfn, zone_name(r, f->kernel_zone));
	if (f->sim_pfn == UINT64_MAX)
		printf("not placed (would have needed reclaim)\n");
	else
		printf("the simulation's %#llx in %s\n", (unsigned long long)f->sim_pfn,
		       zone_name(r, f->sim_zone));
}

static void row(const char *what, uint64_t s, uint64_t k)
{
	printf("  %-34s %12llu %12llu %+12lld\n", what, (unsigned long long)s,
	       (unsigned long long)k, (long long)(s - k));
}

static void print_snapshot(const struct sim_snapshot *ss)
{
	const struct sim_figures *s = &ss->sim, *k = &ss->kernel;
	const struct sim_verdict *v = &ss->verdict;
	unsigned int zi, o;
	char what[64];

	printf("snapshot #%lld at ts %llu:            %12s %12s %12s\n", (long long)ss->snap,
	       (unsigned long long)ss->ts, "simulated", "kernel", "difference");
	for (zi = 0; zi < k->nr_zones; zi++) {
		const struct sim_zone_figures *zs = &s->zone[zi], *zk = &k->zone[zi];

		snprintf(what, sizeof(what), "%s free pages", zk->name);
		row(what, zs->free_pages, zk->free_pages);
		snprintf(what, sizeof(what), "%s pcp pages", zk->name);
		row(what, zs->pcp_pages, zk->pcp_pages);
		snprintf(what, sizeof(what), "%s pcp->count (kernel: zoneinfo)", zk->name);
		row(what, zs->pcp_count, zk->pcp_count);
		for (o = 0; o <= k->max_order && o < SIM_ORDERS; o++) {
			uint64_t a = 0, b = 0;

			for (int mt = 0; mt < SIM_MTS; mt++) {
				a += zs->nr_free[o][mt];
				b += zk->nr_free[o][mt];
			}
			if (!a && !b)
				continue;
			snprintf(what, sizeof(what), "  order %u blocks", o);
			row(what, a, b);
		}
		snprintf(what, sizeof(what), "%s pageblocks unmovable", zk->name);
		row(what, zs->pb_unmovable, zk->pb_unmovable);
		printf("  %-34s %12d %12d\n", "  largest free order", zs->largest_free_order,
		       zk->largest_free_order);
	}
	row("pageblocks holding unmovable pages", s->pb_unmovable, k->pb_unmovable);
	row("  ... or pages of unknown use", s->pb_unmovable_unknown, k->pb_unmovable_unknown);
	row("unmovable pages", s->unmovable_pages, k->unmovable_pages);
	row("2 MiB allocations in a row", s->contig_2m, k->contig_2m);
	row("1 GiB allocations in a row", s->contig_1g, k->contig_1g);
	printf("  targets: pageblocks unmovable %.2f%% %s; free pages per order %s, %u "
	       "zone orders missed (worst relative %.2f%%, %s; share of the zone's free pages "
	       "%.2f%%, %s); 2 MiB %s; 1 GiB %s\n",
	       100 * v->pb_unmovable_err, v->pb_unmovable_ok ? "ok" : "MISSED",
	       v->free_order_ok ? "ok" : "MISSED", v->nr_misses, 100 * v->free_order_rel_err,
	       v->free_order_rel_worst[0] ? v->free_order_rel_worst : "-",
	       100 * v->free_order_err, v->free_order_worst[0] ? v->free_order_worst : "-",
	       v->contig_2m_ok ? "ok" : "MISSED", v->contig_1g_ok ? "ok" : "MISSED");
	for (unsigned int i = 0; i < v->nr_misses && i < SIM_MAX_MISSES; i++)
		printf("    missed: %s order %u: %llu free blocks simulated, %llu in the kernel "
		       "(tolerance %llu)\n", v->misses[i].zone, v->misses[i].order,
		       (unsigned long long)v->misses[i].sim,
		       (unsigned long long)v->misses[i].kernel,
		       (unsigned long long)v->misses[i].tolerance);
	if (v->nr_misses > SIM_MAX_MISSES)
		printf("    ... and %u more\n", v->nr_misses - SIM_MAX_MISSES);
	if (!ss->bi.have)
		return;
	printf("  buddyinfo read at the snapshot's start (event %llu), free blocks per order "
	       "simulated/kernel, %u zone orders missed:\n", (unsigned long long)ss->bi.seq,
	       ss->bi.nr_misses);
	for (zi = 0; zi < k->nr_zones && zi < MODEL_MAX_ZONES; zi++) {
		printf("    %-8s", k->zone[zi].name);
		for (o = 0; o <= k->max_order && o < SIM_ORDERS; o++)
			printf(" %llu/%llu", (unsigned long long)ss->bi.sim[zi][o],
			       (unsigned long long)ss->bi.kernel[zi][o]);
		printf("\n");
	}
}

static void print_text(const struct sim_result *r, const char *path)
{
	const struct sim_stats *st = &r->st;
	int i;

	printf("simulate of %s: seeded from snapshot #%lld, %llu requests (%llu allocations, "
	       "%llu frees, %llu contiguous, %llu offlines) from %llu events\n", path,
	       (long long)r->seed_snap, (unsigned long long)st->requests,
	       (unsigned long long)st->allocs, (unsigned long long)st->frees,
	       (unsigned long long)st->contig, (unsigned long long)st->offline,
	       (unsigned long long)st->events);
	printf("requests that would have needed reclaim: %llu; allocations that left their "
	       "zone at or below its low watermark: %llu\n",
	       (unsigned long long)st->needed_reclaim, (unsigned long long)st->wmark_breaches);
	printf("frees of pages allocated before the capture: %llu; frees of nothing the "
	       "simulation holds (skipped): %llu; failed kernel allocations (not replayed): "
	       "%llu; pages of the first snapshot the trace showed were pcp pages (put on pcp lists): %llu, "
	       "drained by a kernel drain: %llu\n",
	       (unsigned long long)st->frees_before_capture,
	       (unsigned long long)st->frees_unmatched,
	       (unsigned long long)st->kernel_failed_allocs,
	       (unsigned long long)st->seed_pcp_listed,
	       (unsigned long long)st->seed_pcp_drained);
	if (st->seed_reported)
		printf("pageblocks of the first snapshot that free page reporting held off the "
		       "free lists (flags 0, free in the next snapshot, no event between): %llu, "
		       "put back\n", (unsigned long long)st->seed_reported);
	if (st->frees_reused)
		printf("frees whose page the kernel took back with no event (alloc_pages_bulk()): "
		       "%llu, left in use (%llu of them found above a page a pcp hit then took, "
		       "the others freed again)\n", (unsigned long long)st->frees_reused,
		       (unsigned long long)st->frees_taken);
	if (st->frees_past_list)
		printf("frees an interrupt made while its cpu held the pcp lock (inside a "
		       "batch's commits, or the page next taken off the buddy): %llu, to the "
		       "buddy\n", (unsigned long long)st->frees_past_list);
	if (st->frees_deferred)
		printf("frees of a batch made at their commit to the pcp list "
		       "(mm_page_free_batched), not at their mm_page_free: %llu\n",
		       (unsigned long long)st->frees_deferred);
	if (st->allocs_inferred)
		printf("allocations the trace does not show, inferred (the pages a refill put "
		       "before the one a pcp hit took, that no event named): %llu, made before "
		       "that hit\n", (unsigned long long)st->allocs_inferred);
	if (st->allocs_early)
		printf("allocations made where the kernel decided them (their first "
		       "mm_page_alloc_zone_locked), before other cpus' requests their event "
		       "follows: %llu; %llu of them in a refill those requests interrupted "
		       "(NR_FREE_PAGES counts it at the refill's end)\n",
		       (unsigned long long)st->allocs_early, (unsigned long long)st->settled);
	if (st->allocs_passed_over)
		printf("allocations of a high-order pcp page made before a drain of its cpu that "
		       "passed over its list (free_pcppages_bulk() round-robin: it was empty), "
		       "their event after: %llu\n", (unsigned long long)st->allocs_passed_over);
	if (st->allocs_hit_zeroing)
		printf("high-order pcp hits made the zeroing time (init_on_alloc; the shortest "
		       "a refilled one showed) before their event, other cpus' requests between: "
		       "%llu\n", (unsigned long long)st->allocs_hit_zeroing);
	if (st->seed_pcp_relisted)
		printf("pcp blocks of the first snapshot moved to the list (migratetype) the kernel "
		       "then took them from: %llu\n", (unsigned long long)st->seed_pcp_relisted);
	if (st->seed_pcp_window)
		printf("pcp lists whose pcp->high or alloc_factor the first snapshot's read window "
		       "moved from zoneinfo's (vmstat_update() decays, refills), or the refill "
		       "before the read told: %llu\n", (unsigned long long)st->seed_pcp_window);
	if (st->seed_alloc_factors)
		printf("pcp alloc_factors (no file shows them) set to what the kernel's first "
		       "refill of their list after the first snapshot took: %llu\n",
		       (unsigned long long)st->seed_alloc_factors);
	if (st->seed_pcp_reordered)
		printf("pcp lists of the first snapshot put in the order the kernel then took "
		       "their pages (allocations from the head, drains from the tail): %llu\n",
		       (unsigned long long)st->seed_pcp_reordered);
	if (st->seed_alloc_typed)
		printf("pages of the first snapshot in use with flags 0 whose allocation the trace "
		       "showed (typed by its request's migratetype): %llu\n",
		       (unsigned long long)st->seed_alloc_typed);
	if (st->seed_types_learned)
		printf("pageblocks of the first snapshot whose guessed type the trace corrected "
		       "(the first event naming the block's type): %llu\n",
		       (unsigned long long)st->seed_types_learned);
	if (st->seed_types_held)
		printf("free blocks of the first snapshot a take showed off their list, left as "
		       "guessed: free page reporting may have held them (the snapshot does not "
		       "say no device reports): %llu\n", (unsigned long long)st->seed_types_held);
	if (st->isolations)
		printf("failed attempts and successful offlines whose isolation the kernel held "
		       "while they ran: %llu, "
		       "held on the simulated model too but %llu its isolation refused\n",
		       (unsigned long long)st->isolations,
		       (unsigned long long)st->isolations_refused);
	if (st->refusals)
		printf("offlines the kernel refused at isolation (their blocks re-typed Movable "
		       "with no event, as the kernel's undo did): %llu\n",
		       (unsigned long long)st->refusals);
	if (st->kernel_zones)
		printf("--kernel-zones: each allocation held to the zone the kernel served it "
		       "from (a diagnostic; not stored)\n");
	print_other_zones(r);
	print_same_pfn(r);
	if (st->vmstat_traced)
		printf("vmstat_update() runs, traced: %llu (each folds its cpu's counters and "
		       "decays its pcp lists there)\n", (unsigned long long)st->vmstat_updates);
	else
		printf("vmstat_update() is not traced in this capture: run on every cpu at each "
		       "second of trace time (a guessed phase)\n");
	if (st->contig_failed || st->offline_failed)
		printf("the model could not make %llu contiguous allocations and %llu offlines "
		       "the kernel made\n", (unsigned long long)st->contig_failed,
		       (unsigned long long)st->offline_failed);
	if (!r->nr_snaps)
		printf("no snapshot after the first one: nothing to compare with\n");
	for (i = 0; i < r->nr_snaps; i++)
		print_snapshot(&r->snaps[i]);
}

static int free_store(struct tdb *db, const void *res) { return sim_store(db, res); }
static void free_json(const void *res) { print_json(res); }
static void free_text(const void *res, const char *path) { print_text(res, path); }
static void free_release(void *res) { sim_result_release(res); }

int simulate_free(struct simulate_args *a)
{
	static const struct simulate_ops ops = { free_store, free_json, free_text, free_release };
	struct sim_opts so = { .progress = cli_replay_progress, .note = cli_note,
			       .kernel_zones = a->kernel_zones };
	struct sim_result res;
	struct tdb *db;
	int ret = simulate_open(a, &db, &so.until_seq);

	if (ret)
		return ret;
	ret = sim_run(db, &so, &res);
	return simulate_finish(a, db, ret, &ops, &res);
}
