// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk compare: what-if layouts (asis, cma:, movable:, kernelcore:, reserve:) for
 * the workload of one capture, each run through the free-running simulator with the
 * demand asked under it (compare/cmp-run.h); a table or JSON, stored in the capture.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/err.h"
#include "common/json.h"
#include "common/parse.h"
#include "compare/cmp-run.h"
#include "compare/cmp-store.h"
#include "db/tdb.h"
#include "trace/tr-time.h"

const char cmd_compare_usage[] =
	"usage: bigchunk compare FILE.db --size SIZE [--count K] [--every D | --at T]...\n"
	"                        --layout SPEC... [--json] [--no-store] [-f]\n"
	"\n"
	"What would this workload have given under another memory layout? Each layout\n"
	"is placed as the kernel places it at boot, the capture's requests run through\n"
	"the free-running simulator (bigchunk simulate) under it, and the demand (K\n"
	"allocations of SIZE at each time, plus the capture's own contiguous attempts)\n"
	"is asked under each.\n"
	"\n"
	"Layouts (join with '+', e.g. movable:1G+reserve:256M):\n"
	"  asis               the traced machine; the demand on demand (alloc_contig_pages)\n"
	"  reserve:SIZE[@PFN] memmap=SIZE$ADDR: outside the allocator, the demand served\n"
	"                     from it while it fits (default place: the top of RAM)\n"
	"  cma:SIZE[@PFN]     a CMA area: movable requests use it by the kernel's balance\n"
	"                     rule, unmovable never; the demand served by cma_alloc()\n"
	"                     (default place: the top of the highest zone)\n"
	"                     A request neither area serves is made on demand.\n"
	"  movable:SIZE       movablecore=SIZE; kernelcore:SIZE kernelcore=SIZE: a\n"
	"                     ZONE_MOVABLE where find_zone_movable_pfns_for_nodes() puts it\n"
	"                     (gigantic pages never come from it); on a capture booted\n"
	"                     with a ZONE_MOVABLE it replaces that boot's option (the\n"
	"                     zone boundary moves where the new option puts it)\n"
	"\n"
	"Options:\n"
	"  --size SIZE        bytes with a unit (2M, 1G), a power of two of pages\n"
	"  --count K          allocations at each time (default 1), kept to the end\n"
	"  --at T             a time of the capture (tr-time syntax: 12s, marker:TEXT, ns);\n"
	"                     repeatable; default: at the end of the capture\n"
	"  --every D          every D of trace time from the first request\n"
	"  --layout SPEC      a layout (repeatable)\n"
	"  --json             {\"layouts\": [{\"name\", \"demand\", \"served\", ...}]}\n"
	"  --no-store         do not store the results in the capture (compare_results)\n"
	"  -f, --force        accept an incomplete capture\n"
	"\n"
	"Per layout: demand and served (the real attempts among them: each of the\n"
	"capture's alloc_contig_pages() calls and hugetlb probe steps, served or failed by\n"
	"the kernel, listed with what the layout did), pages migrated and\n"
	"scanned per success, idle page-seconds (reserved, or CMA and free, unused by the\n"
	"demand), fallbacks (allocations from another type's list), wmark (watermark\n"
	"breaches: allocations after which their zone's free pages were at or below its\n"
	"low watermark, __zone_watermark_ok() at order 0: the kernel wakes kswapd),\n"
	"reclaim (needed_reclaim: no zone above its min watermark, the request not placed),\n"
	"pageblocks holding unmovable pages at the end; failed requests and their\n"
	"blockers: what stopped each range a failed request tried (STAGE:KIND,\n"
	"\"no-range\": no range left to try, \"area-full\": no free place left in the\n"
	"reservation or CMA area), and apart (rejected) every range tried and not\n"
	"taken, before a success too: the search's cost.\n"
	"Assumptions (stated): seed pages the layout forbids where they are (unmovable in\n"
	"ZONE_MOVABLE or CMA) move out at the start, and movable ones out of a CMA area\n"
	"while the rest of the zone has more free pages; seed pages inside a reservation\n"
	"are gone; pages of ZONE_MOVABLE or a CMA area the capture shows uninitialised\n"
	"(a lazily initialised memmap) are freed into it at the start, as deferred init\n"
	"and cma_activate_area() do at boot; reclaim and compaction are not modelled\n"
	"(needed_reclaim counts them).\n"
	"\n"
	"Exit status: 0 every layout ran; 2 a usage error, a layout that does not fit\n"
	"the capture (the message says why and what to give instead: a size larger than\n"
	"RAM, an @PFN outside RAM or off a pageblock, areas that overlap, a ZONE_MOVABLE\n"
	"the kernel would not make) or a capture that cannot be read.\n"
	CLI_CAPTURE_EXIT_HELP
	"\n"
	"Example:\n"
	"  bigchunk compare cap.db --size 1G --layout asis --layout movable:1G \\\n"
	"          --layout cma:1G --layout reserve:1G\n";

#define MAX_LAYOUTS 16
#define MAX_AT 256

struct args {
	const char *path;
	uint64_t nr_pages, every_ns;
	unsigned int count;
	const char *at[MAX_AT];
	int nr_at, nr_layouts;
	struct cmp_layout layouts[MAX_LAYOUTS];
	bool json, store, force, partial;
};

static int parse(int argc, char **argv, struct args *A)
{
	uint64_t v;
	int c;

	while ((c = cli_getopt(argc, argv, "fh", "size=s count=k at=a every=e layout=l "
			       "json:j no-store:n force:f help:h")) != -1) {
		switch (c) {
		case 's':
			if (bc_parse_size(optarg, &v) || v < 4096 || v % 4096 ||
			    ((v / 4096) & (v / 4096 - 1)))
				return cli_error("compare", "--size: '%s' is not a power of two of "
						 "pages (2M, 1G)", optarg);
			A->nr_pages = v / 4096;
			break;
		case 'k':
			if (bc_parse_count(optarg, 1, 65536, &v))
				return cli_error("compare", "--count: %s", bc_errmsg());
			A->count = (unsigned int)v;
			break;
		case 'a':
			if (A->nr_at == MAX_AT)
				return cli_error("compare", "at most %d --at", MAX_AT);
			A->at[A->nr_at++] = optarg;
			break;
		case 'e':
			if (tr_parse_duration(optarg, &A->every_ns) || !A->every_ns)
				return cli_error("compare", "--every: '%s' is not a duration", optarg);
			break;
		case 'l':
			if (A->nr_layouts == MAX_LAYOUTS)
				return cli_error("compare", "at most %d layouts", MAX_LAYOUTS);
			if (cmp_layout_parse(optarg, &A->layouts[A->nr_layouts++]))
				return cli_error("compare", "--layout: %s", bc_errmsg());
			break;
		case 'j': A->json = true; break;
		case 'n': A->store = false; break;
		case 'f': A->force = true; break;
		case 'h': return cli_usage("compare", 0, EXIT_OK);
		default: return cli_usage("compare", 1, EXIT_BAD);
		}
	}
	if (optind + 1 != argc || !A->nr_pages || !A->nr_layouts)
		return cli_usage("compare", 1, EXIT_BAD);
	if (A->every_ns && A->nr_at)
		return cli_error("compare", "--at and --every are alternatives");
	A->path = argv[optind];
	return -1;
}

static int ts_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double per_success(uint64_t v, uint64_t n)
{
	return n ? (double)v / (double)n : 0;
}

/* Each real attempt: what the kernel did, what the layout would have done. */
static void print_real(const struct cmp_result *r)
{
	unsigned int k;

	for (k = 0; k < r->nr_real; k++) {
		const struct cmp_real *x = &r->real[k];

		printf("  real attempt %u: %" PRIu64 " KiB at %.3f s: kernel %s, here ", k + 1,
		       x->nr_pages * 4, (double)x->ts / 1e9,
		       x->kernel_served ? "served" : "failed");
		if (x->served)
			printf("served at pfn 0x%" PRIx64 "\n", x->pfn);
		else
			printf("failed\n");
	}
	if (r->real_attempts > r->nr_real)
		printf("  (%" PRIu64 " more real attempts not listed)\n",
		       r->real_attempts - r->nr_real);
}

static void print_set(const struct cmp_blocker_set *set)
{
	int b;

	for (b = 0; b < set->nr; b++)
		printf(" %s %" PRIu64, set->v[b].name, set->v[b].n);
	if (!set->nr)
		printf(" none");
}

static void json_set(struct json *j, const char *key, const struct cmp_blocker_set *set)
{
	int b;

	json_key(j, key);
	json_obj_begin(j);
	for (b = 0; b < set->nr; b++)
		json_kuint(j, set->v[b].name, set->v[b].n);
	json_obj_end(j);
}

static void print_text(const struct args *A, const struct cmp_result *r)
{
	int i, b;

	printf("%s: %" PRIu64 " x %" PRIu64 " KiB asked (plus the capture's contiguous "
	       "attempts)\n", A->path, r[0].demand.asked - r[0].real_attempts,
	       A->nr_pages * 4);
	printf("%-28s %7s %7s %6s %9s %9s %12s %9s %8s %8s %7s\n", "layout", "demand", "served",
	       "%", "migr/ok", "scan/ok", "idle_pg_s", "fallback", "wmark", "reclaim", "unm_pb");
	for (i = 0; i < A->nr_layouts; i++) {
		const struct cmp_demand_stats *d = &r[i].demand;

		printf("%-28s %7" PRIu64 " %7" PRIu64 " %5.1f%% %9.1f %9.1f %12.0f %9" PRIu64
		       " %8" PRIu64 " %8" PRIu64 " %7" PRIu64 "\n", r[i].layout.name, d->asked,
		       d->served, d->asked ? 100.0 * (double)d->served / (double)d->asked : 0,
		       per_success(d->pages_migrated, d->served),
		       per_success(d->pages_scanned, d->served), r[i].idle_page_seconds,
		       r[i].fallbacks, r[i].wmark_breaches, r[i].needed_reclaim,
		       r[i].unmovable_pageblocks);
	}
	for (i = 0; i < A->nr_layouts; i++) {
		printf("%s:", r[i].layout.name);
		if (r[i].movable_start)
			printf(" ZONE_MOVABLE from pfn 0x%" PRIx64 ";", r[i].movable_start);
		if (r[i].layout.movable_traced_pfn)
			printf(" (the capture's own ZONE_MOVABLE, from 0x%" PRIx64 ", resized: the "
			       "option replaces the one it was booted with);",
			       r[i].layout.movable_traced_pfn);
		if (r[i].initialised)
			printf(" %" PRIu64 " pages of its %s uninitialised in the capture (lazy "
			       "memmap init), freed into it as the kernel does at boot;",
			       r[i].initialised, r[i].movable_start && r[i].layout.cma_pages ?
			       "ZONE_MOVABLE and CMA area" : r[i].movable_start ? "ZONE_MOVABLE" :
			       "CMA area");
		if (r[i].layout.reserve_pages)
			printf(" reserved 0x%" PRIx64 "+%" PRIu64 ";", r[i].layout.reserve_pfn,
			       r[i].layout.reserve_pages);
		if (r[i].layout.cma_pages)
			printf(" CMA 0x%" PRIx64 "+%" PRIu64 ";", r[i].layout.cma_pfn,
			       r[i].layout.cma_pages);
		printf(" real attempts %" PRIu64 "/%" PRIu64 " (the kernel %" PRIu64 ");",
		       r[i].real_served, r[i].real_attempts, r[i].real_kernel_served);
		if (r[i].layout.reserve_pages || r[i].layout.cma_pages)
			printf(" served from the reservation %" PRIu64 ", from CMA %" PRIu64
			       ";", r[i].served_reserve, r[i].served_cma);
		if (r[i].seed_moved_pages)
			printf(" %" PRIu64 " seed pages moved out;", r[i].seed_moved_pages);
		for (b = 0; b < (int)r[i].nr_zones; b++)
			if (r[i].zone[b].present)
				printf(" %s free %" PRIu64 ";", r[i].zone[b].name,
				       r[i].zone[b].free_pages);
		printf(" failed %" PRIu64 ", blockers:", r[i].demand.asked - r[i].demand.served);
		print_set(&r[i].demand.blockers);
		printf("; ranges rejected on the way:");
		print_set(&r[i].demand.rejected);
		printf("\n");
		print_real(&r[i]);
	}
}

/* The zones at the end of the run: what a kernel booted with the layout would show. */
static void json_zones(struct json *j, const struct cmp_result *r)
{
	unsigned int z;

	json_key(j, "zones");
	json_arr_begin(j);
	for (z = 0; z < r->nr_zones; z++) {
		const struct cmp_zone *cz = &r->zone[z];

		json_obj_begin(j);
		json_kstr(j, "name", cz->name);
		json_kuint(j, "start_pfn", cz->start_pfn);
		json_kuint(j, "spanned", cz->spanned);
		json_kuint(j, "present", cz->present);
		json_kuint(j, "managed", cz->managed);
		json_kuint(j, "free_pages", cz->free_pages);
		json_kuint(j, "pcp_pages", cz->pcp_pages);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void print_json(const struct args *A, const struct cmp_result *r)
{
	struct json j;
	int i, b;

	json_init(&j, stdout, true);
	json_obj_begin(&j);
	json_kuint(&j, "size_pages", A->nr_pages);
	json_key(&j, "layouts");
	json_arr_begin(&j);
	for (i = 0; i < A->nr_layouts; i++) {
		const struct cmp_demand_stats *d = &r[i].demand;

		json_obj_begin(&j);
		json_kstr(&j, "name", r[i].layout.name);
		json_kuint(&j, "demand", d->asked);
		json_kuint(&j, "served", d->served);
		json_kuint(&j, "real_attempts", r[i].real_attempts);
		json_kuint(&j, "real_served", r[i].real_served);
		json_kuint(&j, "real_kernel_served", r[i].real_kernel_served);
		json_key(&j, "real");
		json_arr_begin(&j);
		for (b = 0; b < (int)r[i].nr_real; b++) {
			json_obj_begin(&j);
			json_kuint(&j, "ts", r[i].real[b].ts);
			json_kuint(&j, "nr_pages", r[i].real[b].nr_pages);
			json_kbool(&j, "kernel_served", r[i].real[b].kernel_served);
			json_kbool(&j, "served", r[i].real[b].served);
			if (r[i].real[b].served)
				json_kuint(&j, "pfn", r[i].real[b].pfn);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_kuint(&j, "served_from_reserve", r[i].served_reserve);
		json_kuint(&j, "served_from_cma", r[i].served_cma);
		json_kuint(&j, "pages_migrated", d->pages_migrated);
		json_kuint(&j, "pages_scanned", d->pages_scanned);
		/* whole page-seconds: %.6g would round figures of 7 digits and more */
		json_kuint(&j, "idle_page_seconds", (uint64_t)(r[i].idle_page_seconds + 0.5));
		json_kuint(&j, "fallbacks", r[i].fallbacks);
		json_kuint(&j, "wmark_breaches", r[i].wmark_breaches);
		json_kuint(&j, "needed_reclaim", r[i].needed_reclaim);
		json_kuint(&j, "unmovable_pageblocks", r[i].unmovable_pageblocks);
		json_kuint(&j, "seed_moved_pages", r[i].seed_moved_pages);
		json_kuint(&j, "initialised_pages", r[i].initialised);
		json_kuint(&j, "movable_start_pfn", r[i].movable_start);
		json_kuint(&j, "movable_traced_pfn", r[i].layout.movable_traced_pfn);
		if (r[i].layout.reserve_pages) {
			json_kuint(&j, "reserve_pfn", r[i].layout.reserve_pfn);
			json_kuint(&j, "reserve_pages", r[i].layout.reserve_pages);
		}
		if (r[i].layout.cma_pages) {
			json_kuint(&j, "cma_pfn", r[i].layout.cma_pfn);
			json_kuint(&j, "cma_pages", r[i].layout.cma_pages);
		}
		json_kuint(&j, "frees_in_reserve_skipped", r[i].frees_in_reserve);
		json_kuint(&j, "frees_overlapping_skipped", r[i].frees_overlapping);
		json_kuint(&j, "frees_scattered", r[i].frees_scattered);
		json_zones(&j, &r[i]);
		json_key(&j, "served_pfns");
		json_arr_begin(&j);
		for (b = 0; b < (int)r[i].nr_served_pfns; b++)
			json_uint(&j, r[i].served_pfns[b]);
		json_arr_end(&j);
		json_kuint(&j, "failed", d->asked - d->served);
		json_set(&j, "blockers", &d->blockers);
		json_set(&j, "rejected", &d->rejected);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

static int run(struct args *A, struct tdb *db, struct cmp_result *r)
{
	uint64_t ts[MAX_AT], seq;
	struct cmp_opts o = { .nr_pages = A->nr_pages, .count = A->count ? A->count : 1,
			      .ts = ts, .nr_ts = A->nr_at, .every_ns = A->every_ns,
			      .note = cli_note };
	int i, ret = 0;

	for (i = 0; !ret && i < A->nr_at; i++)
		ret = tr_parse_time(db, A->at[i], &seq, &ts[i]);
	if (!A->nr_at && !A->every_ns) {
		ts[0] = UINT64_MAX;	/* at the end */
		o.nr_ts = 1;
	}
	qsort(ts, (size_t)o.nr_ts, sizeof(ts[0]), ts_cmp);
	for (i = 0; !ret && i < A->nr_layouts; i++) {
		fprintf(stderr, "compare: %s\n", A->layouts[i].name);
		ret = cmp_run(db, &A->layouts[i], &o, &r[i]);
	}
	if (!ret && A->store)
		ret = cmp_store(db, A->nr_pages, r, A->nr_layouts);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	struct args A = { .store = true };
	struct cmp_result *r;
	struct tdb *db;
	int rc = parse(argc, argv, &A);

	if (rc >= 0)
		return rc;
	if (cli_open_capture("compare", A.path, A.store ? TDB_WRITE : TDB_READONLY, A.force,
			     &db, &A.partial))
		return cli_fail("compare");
	r = calloc((size_t)A.nr_layouts, sizeof(*r));
	if (!r || run(&A, db, r)) {
		if (!r)
			bc_error(BC_E_NOMEM, "out of memory");
		free(r);
		tdb_close(db);
		return cli_fail("compare");
	}
	if (A.json)
		print_json(&A, r);
	else
		print_text(&A, r);
	free(r);
	tdb_close(db);
	return cli_partial_exit(A.partial, EXIT_OK);
}
