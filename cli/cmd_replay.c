// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk replay: drive the model through a capture and print how well it agrees
 * with the kernel at each snapshot after the first, with the anomaly counts.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/err.h"
#include "common/json.h"
#include "db/tdb.h"
#include "model/model.h"
#include "replay/replay.h"
#include "trace/tr-time.h"

const char cmd_replay_usage[] =
	"usage: bigchunk replay FILE.db [--until T] [--json] [--no-store]\n"
	"                       [--no-resync] [-f]\n"
	"\n"
	"Seed the model from the capture's first snapshot, apply every event in time order,\n"
	"and at each later snapshot measure the model against the kernel: per-pfn agreement\n"
	"on free vs in use and on the page's kind (movable, unmovable, reserved, hugetlb),\n"
	"free blocks per order against buddyinfo (the kernel's count against the model's\n"
	"range while the zone files were read; also against the model at the snapshot's\n"
	"begin), pageblocks per migratetype against pagetypeinfo. buddyinfo is scored per\n"
	"order as the free pages the model holds in blocks of that order more or fewer\n"
	"than the kernel (|model - kernel| x 2^order) over the zone's free pages, so a\n"
	"small count weighs what it holds: model 25, kernel 0 order-1 blocks in a zone of\n"
	"1,000,000 free pages is 0.005%, not 25x. The relative error per order is still\n"
	"printed and stored, not scored. Pages changed while a\n"
	"snapshot was read are counted apart, and so are whole pageblocks that free page\n"
	"reporting held off the free lists with no event (flags 0 at the seed and free\n"
	"later, or free in the model and flags 0 later). Events the model cannot explain\n"
	"are counted per class. The figures are stored in the capture (tables\n"
	"replay_scores, replay_anomalies; see db/README.md). Pages allocated for a hugetlb\n"
	"pool are told by the gfp of alloc_buddy_hugetlb_folio() and held as hugetlb from\n"
	"then on; the output says how many (an assumption: the trace does not say what a\n"
	"page became).\n"
	"\n"
	"Options:\n"
	"  --until T     stop before time T: ns of the trace clock (123456789), a time from\n"
	"                the capture's first event with a unit (12.5s, 500ms, 2m), or\n"
	"                marker:TEXT (the first trace_marker whose text begins with TEXT).\n"
	"                A time outside the capture's events is an error\n"
	"  --json        machine-readable output\n"
	"  --no-store    do not write the results into the capture\n"
	"  --no-resync   keep the model's own state after each snapshot instead of\n"
	"                resynchronising the pages that disagree\n"
	"  -f, --force   read a capture that fails SQLite's quick_check\n"
	"  -h, --help\n"
	"\n"
	"Exit status: 0 on success; 1 the capture is incomplete or damaged (the figures\n"
	"cover what it holds); 2 usage error, an unusable capture, or results that\n"
	"could not be stored (then the previous replay's rows are left as they were).\n"
	CLI_CAPTURE_EXIT_HELP;

/* What the model alone says of the stage that decided @r, or of its success. */
static const char *model_said(const struct model_contig_result *r, char *buf, size_t len)
{
	if (r->stage == MODEL_CONTIG_SUCCESS)
		return "success";
	snprintf(buf, len, "stopped at its %s (pfn %#llx)", model_contig_stage_name(r->stage),
		 (unsigned long long)r->pfn);
	return buf;
}

/*
 * Each real attempt begun so far: the kernel's outcome, the model's own verdict from the
 * state where it began, and where the model, following the kernel, would have stopped.
 */
static void print_attempts(struct replay *rp, const struct tr_attempt *att, int na)
{
	char v[96], f[96];
	int i;

	for (i = 0; i < na && att[i].seq_begin < rp_next_seq(rp); i++) {
		const struct model_contig_result *fo = rp_attempt_follow(rp, i);

		printf("  %s at ts %llu on pfns %#llx-%#llx: the kernel %s, the model alone: %s",
		       att[i].kind == TR_ATTEMPT_OFFLINE ? "offline" : "alloc_contig",
		       (unsigned long long)att[i].ts_begin, (unsigned long long)att[i].start_pfn,
		       (unsigned long long)att[i].end_pfn, att[i].success ? "succeeded" : "failed",
		       model_said(rp_attempt_verdict(rp, i), v, sizeof(v)));
		if (fo->stage != MODEL_CONTIG_SUCCESS)
			printf("; as the kernel went on, the model %s", model_said(fo, f, sizeof(f)));
		putchar('\n');
	}
}

static void print_text(struct replay *rp, const char *path)
{
	const struct tr_attempt *att;
	const struct rp_score *sc;
	struct model_stats ms;
	int n, i, na;

	model_get_stats(rp_model(rp), &ms);
	printf("replay of %s: %llu events applied, model %.2f bytes/pfn\n", path,
	       (unsigned long long)rp_events_applied(rp), ms.bytes_per_pfn);
	att = rp_attempts(rp, &na);
	printf("real contiguous attempts in the trace: %d\n", na);
	print_attempts(rp, att, na);
	if (ms.hugetlb_allocs)
		printf("hugetlb pool: %llu allocations held as hugetlb pages by their gfp "
		       "(alloc_buddy_hugetlb_folio()'s; an assumption: the trace does not say "
		       "what a page became)\n", (unsigned long long)ms.hugetlb_allocs);
	sc = rp_scores(rp, &n);
	if (!n)
		printf("no snapshot after the first one: nothing to score against\n");
	for (i = 0; i < n; i++) {
		const struct rp_score *s = &sc[i];

		printf("snapshot #%lld at ts %llu:\n", (long long)s->snap, (unsigned long long)s->ts);
		printf("  free vs in use   %.5f%%  (%llu of %llu pfns agree; model free/kernel used "
		       "%llu, model used/kernel free %llu)\n", 100 * s->pfn_agree_state,
		       (unsigned long long)s->state_agree, (unsigned long long)s->pfns_compared,
		       (unsigned long long)s->model_free_kernel_used,
		       (unsigned long long)s->model_used_kernel_free);
		printf("  kind             %.5f%%  (%llu of %llu in-use pfns with a known kind)\n",
		       100 * s->pfn_agree_kind, (unsigned long long)s->kind_agree,
		       (unsigned long long)s->kind_compared);
		printf("  buddyinfo        %.5f%% of the zone's free pages at the worst order",
		       100 * s->buddyinfo_order_err);
		if (s->buddyinfo_order_err > 0)
			printf(" (%s order %d: model %lld, kernel %lld blocks)", s->buddy_worst_zone,
			       s->buddy_worst_order, (long long)s->buddy_worst_model,
			       (long long)s->buddy_worst_kernel);
		printf("; %.5f%% at the snapshot's begin; %.5f%% at other orders in all; "
		       "relative error %.4f (not scored)\n", 100 * s->buddyinfo_begin_order_err,
		       100 * s->buddyinfo_free_err, s->buddyinfo_max_rel_err);
		printf("  pagetypeinfo     max relative error %.4f", s->pagetypeinfo_max_rel_err);
		if (s->pagetypeinfo_max_rel_err > 0)
			printf("  (worst: %s)", s->ptype_worst);
		putchar('\n');
		printf("  apart            %llu pfns changed while it was read, %llu uncertain "
		       "(lost events)\n", (unsigned long long)s->pfns_changed,
		       (unsigned long long)s->pfns_uncertain);
		if (s->pfns_reported)
			printf("  apart            %llu pfns of whole pageblocks free page reporting "
			       "held off the free lists (untraced): read as flags 0 by the seed and "
			       "free now, or free in the model and flags 0 now, no event since; "
			       "not compared\n",
			       (unsigned long long)s->pfns_reported);
		printf("  resynchronised   %llu pfns; %llu in-use pfns took the snapshot's kind\n",
		       (unsigned long long)s->resynced_pfns, (unsigned long long)s->kinds_refreshed);
		if (s->pb_refit)
			printf("  guessed types    %llu pageblocks re-typed to pagetypeinfo's counts "
			       "(%s)\n", (unsigned long long)s->pb_refit, s->pb_refit_note);
	}
	printf("anomalies (events the model could not explain): %llu\n",
	       (unsigned long long)model_anomaly_total(rp_model(rp)));
	for (i = 0; i < MODEL_NR_ANOM; i++) {
		struct model_anomaly_rec rec[MODEL_ANOM_KEEP];
		unsigned int nr = 0;
		uint64_t c = model_anomaly_count(rp_model(rp), i, rec, &nr);

		if (!c)
			continue;
		printf("  %-32s %llu", model_anomaly_name(i), (unsigned long long)c);
		if (nr)
			printf("  (first: seq %llu pfn %#llx order %u)", (unsigned long long)rec[0].seq,
			       (unsigned long long)rec[0].pfn, rec[0].order);
		putchar('\n');
	}
	printf("  of which while a snapshot was read: %llu\n",
	       (unsigned long long)rp_anomalies_during_snapshots(rp));
	printf("events while the first snapshot was read that it already showed: %llu\n",
	       (unsigned long long)rp_seed_reconciled(rp));
	printf("assumptions: %llu pageblock types guessed at the seed that no event showed "
	       "(%llu guesses corrected: by an event, with the weakest guess of the other type "
	       "re-typed to keep pagetypeinfo's counts, or to a later snapshot's counts); %llu frees of pages on a pcp list taken "
	       "as ends of untraced alloc_pages_bulk() allocations",
	       (unsigned long long)ms.pb_guessed, (unsigned long long)ms.guess_fixes,
	       (unsigned long long)ms.bulk_allocs);
	if (ms.nopcp_frees || rp_trylock_late(rp))
		printf("; %llu frees sent to the buddy, not the pcp list, as their cpu held its "
		       "pcp lock in a free batch, %llu found in the buddy later (inside a refill "
		       "the buddy then handed out, an order 1-3 free no free_high drain "
		       "followed (before 6.7) and the frees around it, or read free by a "
		       "snapshot) (pcp trylock failed: freed from interrupt context)",
		       (unsigned long long)ms.nopcp_frees, (unsigned long long)rp_trylock_late(rp));
	if (rp_refusals_applied(rp))
		printf("; %llu offline probe%s refused at isolation: the blocks isolated before "
		       "the refusal undone to Movable, as the kernel does with no event",
		       (unsigned long long)rp_refusals_applied(rp),
		       rp_refusals_applied(rp) == 1 ? "" : "s");
	putchar('\n');
	(void)att;
}

static void json_stage(struct json *j, const char *key, const struct model_contig_result *r)
{
	json_key(j, key);
	json_obj_begin(j);
	json_kstr(j, "stage", model_contig_stage_name(r->stage));
	json_key(j, "pfn");
	if (r->stage == MODEL_CONTIG_SUCCESS)
		json_null(j);
	else
		json_uint(j, r->pfn);
	json_obj_end(j);
}

static void json_attempts(struct json *j, struct replay *rp)
{
	const struct tr_attempt *att;
	int i, na;

	att = rp_attempts(rp, &na);
	json_key(j, "real_attempts");
	json_arr_begin(j);
	for (i = 0; i < na && att[i].seq_begin < rp_next_seq(rp); i++) {
		json_obj_begin(j);
		json_kstr(j, "kind", att[i].kind == TR_ATTEMPT_OFFLINE ? "offline" : "alloc_contig");
		json_kuint(j, "seq", att[i].seq_begin);
		json_kuint(j, "start_pfn", att[i].start_pfn);
		json_kuint(j, "end_pfn", att[i].end_pfn);
		json_kbool(j, "kernel_success", att[i].success);
		json_stage(j, "model", rp_attempt_verdict(rp, i));
		json_stage(j, "model_following", rp_attempt_follow(rp, i));
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void print_json(struct replay *rp)
{
	const struct rp_score *sc;
	struct model_stats ms;
	struct json j;
	int n, i, na;

	model_get_stats(rp_model(rp), &ms);
	rp_attempts(rp, &na);
	json_init(&j, stdout, true);
	json_obj_begin(&j);
	json_kuint(&j, "events", rp_events_applied(rp));
	json_kdouble(&j, "bytes_per_pfn", ms.bytes_per_pfn);
	json_kuint(&j, "pageblocks_guessed", ms.pb_guessed);
	json_kuint(&j, "pageblock_guesses_corrected", ms.guess_fixes);
	json_kuint(&j, "untraced_bulk_allocs", ms.bulk_allocs);
	json_kuint(&j, "pcp_trylock_failed_frees", ms.nopcp_frees);
	json_kuint(&j, "pcp_trylock_failed_found_later", rp_trylock_late(rp));
	json_kint(&j, "attempts", na);
	json_kuint(&j, "hugetlb_allocs", ms.hugetlb_allocs);	/* by gfp: an assumption */
	json_attempts(&j, rp);
	json_key(&j, "snapshots");
	json_arr_begin(&j);
	sc = rp_scores(rp, &n);
	for (i = 0; i < n; i++) {
		const struct rp_score *s = &sc[i];

		json_obj_begin(&j);
		json_kint(&j, "snap", s->snap);
		json_kuint(&j, "ts", s->ts);
		json_kdouble(&j, "pfn_agree_state", s->pfn_agree_state);
		json_kdouble(&j, "pfn_agree_kind", s->pfn_agree_kind);
		json_kdouble(&j, "buddyinfo_order_err", s->buddyinfo_order_err);
		json_kdouble(&j, "buddyinfo_begin_order_err", s->buddyinfo_begin_order_err);
		json_kdouble(&j, "buddyinfo_free_err", s->buddyinfo_free_err);
		json_kdouble(&j, "buddyinfo_max_rel_err", s->buddyinfo_max_rel_err);
		json_kdouble(&j, "buddyinfo_begin_max_rel_err", s->buddyinfo_begin_max_rel_err);
		json_kdouble(&j, "pagetypeinfo_max_rel_err", s->pagetypeinfo_max_rel_err);
		json_kuint(&j, "pfns_compared", s->pfns_compared);
		json_kuint(&j, "pfns_changed_during_read", s->pfns_changed);
		json_kuint(&j, "pfns_uncertain", s->pfns_uncertain);
		json_kuint(&j, "pfns_reported", s->pfns_reported);
		json_kuint(&j, "model_free_kernel_used", s->model_free_kernel_used);
		json_kuint(&j, "model_used_kernel_free", s->model_used_kernel_free);
		json_kuint(&j, "kind_compared", s->kind_compared);
		json_kuint(&j, "resynced_pfns", s->resynced_pfns);
		json_kuint(&j, "kinds_refreshed", s->kinds_refreshed);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "anomalies");
	json_obj_begin(&j);
	for (i = 0; i < MODEL_NR_ANOM; i++)
		json_kuint(&j, model_anomaly_name(i), model_anomaly_count(rp_model(rp), i, NULL, NULL));
	json_obj_end(&j);
	json_kuint(&j, "anomalies_during_snapshot_reads", rp_anomalies_during_snapshots(rp));
	json_kuint(&j, "seed_reconciled_events", rp_seed_reconciled(rp));
	json_obj_end(&j);
	json_end(&j);
}

int cmd_replay(int argc, char **argv)
{
	struct rp_opts ro = { .until_seq = UINT64_MAX, .attempt_verdicts = true,
			      .progress = cli_replay_progress,
			      .note = cli_note };
	const char *until = NULL, *path;
	bool as_json = false, store = true, force = false, partial;
	struct replay *rp = NULL;
	struct tdb *db;
	int c, ret;

	while ((c = cli_getopt(argc, argv, "fh", "until=u json:j no-store:n no-resync:r "
			       "force:f help:h")) != -1) {
		switch (c) {
		case 'u': until = optarg; break;
		case 'f': force = true; break;
		case 'j': as_json = true; break;
		case 'n': store = false; break;
		case 'r': ro.no_resync = true; break;
		case 'h': return cli_usage("replay", 0, EXIT_OK);
		default: return cli_usage("replay", 1, EXIT_BAD);
		}
	}
	if (optind + 1 != argc)
		return cli_usage("replay", 1, EXIT_BAD);
	path = argv[optind];
	if (cli_open_capture("replay", path, store ? TDB_WRITE : TDB_READONLY, force, &db,
			     &partial))
		return cli_fail("replay");
	if (until) {
		uint64_t ts;

		if (tr_parse_time(db, until, &ro.until_seq, &ts)) {
			tdb_close(db);
			return cli_fail("replay");
		}
	}
	ret = rp_create(db, &ro, &rp);
	if (!ret)
		ret = rp_run(rp, NULL);
	if (!ret && store) {
		ret = rp_store_results(rp, db);
		if (ret)
			bc_error_prefix(ret, "results not stored");
	}
	if (ret) {
		rp_destroy(rp);
		tdb_close(db);
		return cli_fail("replay");
	}
	if (as_json)
		print_json(rp);
	else
		print_text(rp, path);
	rp_destroy(rp);
	tdb_close(db);
	return cli_partial_exit(partial, EXIT_OK);
}
