// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk simulate: the model makes the allocator's decisions. --teacher replays the
 * capture and asks the decision procedure before each allocation the trace shows
 * (replay/teacher.h); without it the free-running mode of sim/ runs (cmd_simulate_free.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/err.h"
#include "common/json.h"
#include "db/tdb.h"
#include "model/decide.h"
#include "replay/replay.h"
#include "replay/teacher.h"
#include "trace/tr-time.h"

#define TC_MAX_DIS 1000		/* disagreements listed and stored */

const char cmd_simulate_usage[] =
	"usage: bigchunk simulate FILE.db [--teacher | --kernel-zones] [--until T] [--json]\n"
	"                         [--no-store] [-f]\n"
	"\n"
	"Let the model make the page allocator's decisions (get_page_from_freelist(),\n"
	"rmqueue() of the traced kernel's release: pcp lists, refills, __rmqueue_smallest(),\n"
	"claim and steal fallbacks, watermarks) and measure them against the kernel.\n"
	"\n"
	"Free-running (the default): seed the model from the capture's first snapshot and\n"
	"make every request of the capture again, the model deciding where each page goes:\n"
	"allocations (cpu, order, gfp, migratetype), frees (of what the simulated\n"
	"allocation of the same object got; pages allocated before the capture are freed\n"
	"where the snapshot has them), and the contiguous allocations and memory-block\n"
	"offlines the kernel made. At each later snapshot the simulated state is set\n"
	"against a model seeded from that snapshot, figure by figure: free blocks per zone,\n"
	"order and migratetype; pageblocks per type; pageblocks holding unmovable pages;\n"
	"the largest free aligned block per zone; how many 2 MiB and 1 GiB allocations\n"
	"alloc_contig_pages() would get in a row. Requests no zone could serve above its\n"
	"watermark would have needed reclaim: counted, not placed. Stored in table\n"
	"simulate_figures.\n"
	"Pcp pages are counted apart from the free (buddy) pages on both sides: the\n"
	"simulated pcp lists; on the kernel's side (a snapshot reads a pcp page with flags\n"
	"0) the pages the trace shows on a pcp list at the snapshot. The snapshot pages\n"
	"the trace shows were pcp pages also start on the simulated pcp lists; pages of\n"
	"flags 0 that no event names and a later snapshot reads free were free blocks off\n"
	"the free lists at the read (free page reporting) and start free, on both sides;\n"
	"the seed's free lists are put in the order the trace takes blocks off them, its\n"
	"pcp lists in the order the kernel then takes their pages (allocations from the\n"
	"head, drains from the tail; a page on the list of the migratetype that takes it\n"
	"first), each pcp's pcp->high zoneinfo's moved by the snapshot's read window\n"
	"(zoneinfo is read at its begin: a traced vmstat_update() decays high, a refill\n"
	"raises it), its alloc_factor (no file shows it) what the last refill before\n"
	"the read or else the kernel's first refill after the snapshot says it was, and\n"
	"a pageblock type the seed guessed (no file gives one block's type) is corrected\n"
	"by the first event after it that names the type (a take off the buddy, a drain,\n"
	"a pcp hit; a fallback's type before it claimed), or by a take that split a larger\n"
	"block while the seed still had an untouched smaller one of that type (at free\n"
	"page reporting's order and up, which reporting may hold off the lists, only when\n"
	"the snapshot's page_reporting file says no device reports, or a take a second\n"
	"later misses it too), on both sides.\n"
	"A page freed and then freed again with no event between was taken back by an\n"
	"allocation the trace does not show (alloc_pages_bulk(): vmalloc): the simulation\n"
	"keeps it in use until its second free. So was a page freed onto a cpu's pcp list\n"
	"above one that cpu's pcp hit then took (the list is LIFO) with no event between\n"
	"(a page no event named since the seed's read lay below every free since),\n"
	"and a page a refill put on the list before the one a pcp hit took: made as an\n"
	"allocation right before that hit. Such pages are in use by an allocation of\n"
	"unknown kind and type (as a snapshot reads vmalloc's pages), and the kernel's\n"
	"side of a later snapshot counts them in use too, not as pcp pages. A free an\n"
	"interrupt made inside a batch's commits (mm_page_free between two\n"
	"mm_page_free_batched of its cpu) found the pcp list locked: to the buddy; so did\n"
	"a free of a pcp order whose page the next event naming it takes off the buddy (a\n"
	"pcp page leaves its list only by a hit or a drain, both traced), as one at the\n"
	"end of its cpu's drain, which runs with interrupts off inside the pcp lock. The\n"
	"frees of a batch (free_unref_folios()) are made at their commits, each\n"
	"mm_page_free_batched, not at their mm_page_free: the kernel prepares the whole\n"
	"batch first, and a commit may drain the list. A drain the simulation decides\n"
	"(a commit's, vmstat_update()'s decay) goes on a block at a time as the\n"
	"kernel's mm_page_pcpu_drain events of that cpu come (free_pcppages_bulk() waits\n"
	"for the zone lock another cpu's refill holds) and ends before the cpu's next\n"
	"other request; a block the kernel drained that the simulation held off its\n"
	"lists (a seed page) stands for one of the drain's.\n"
	"An allocation is made where the kernel decided it: at the first\n"
	"mm_page_alloc_zone_locked of its refill or buddy take (same cpu, its page), when\n"
	"other cpus' requests came between that and its mm_page_alloc (the event comes\n"
	"after prep_new_page(): zeroing a THP takes milliseconds); where those requests\n"
	"came inside the refill (the zone lock held: pcp hits and frees), the zone's free\n"
	"page counter, which their watermark checks read, counts the refill at its end\n"
	"(before 6.10), or block by block as its events come (6.10+). A pcp hit on a\n"
	"high-order page is made before a drain of its cpu that passed over that page's\n"
	"list (free_pcppages_bulk() takes the lists round-robin and skips only empty\n"
	"ones), though its event comes after; otherwise the time prep_new_page() takes\n"
	"to zero it (init_on_alloc) before its event, the shortest a refilled\n"
	"high-order allocation showed from its decision to its event.\n"
	"A contiguous allocation the kernel made in a CMA area is made from that area\n"
	"(cma_alloc()). The long-term pins a snapshot lists (longterm_pins) stay where\n"
	"they are until the next one: the model's contiguous attempts (and the figures')\n"
	"cannot migrate them. A failed attempt that got past its isolation, and an\n"
	"offline that succeeded, hold the range isolated while they ran, and an offline\n"
	"its zone's pcp lists disabled (every allocation a one-page refill), as the\n"
	"kernel did.\n"
	"pcp->count is printed too: the simulation's, and zoneinfo's at the snapshot.\n"
	"Targets: pageblocks holding unmovable pages within 5%; free blocks per zone and\n"
	"order: an order misses when they differ from the kernel's by more than max(5%\n"
	"of the kernel's, 1 block, 64 pages), every miss listed (also printed: the worst\n"
	"relative error where the kernel has at least 64 free pages of the order, and the\n"
	"difference as a share of the zone's free pages); the 2 MiB and 1 GiB counts\n"
	"equal. The kernel's own count is set against the simulation too: the snapshot's\n"
	"buddyinfo, read right after its begin marker, against the simulated buddy there\n"
	"(JSON buddyinfo_at_start; not stored). Allocations the simulation served from\n"
	"another zone than the kernel did are counted by zone pair (zone balancing: the\n"
	"watermarks read a counter that lags, and a zone near its low mark tips thousands\n"
	"of requests one way or the other on a few pages' difference). Also counted: the\n"
	"allocations placed at the kernel's own pfn, and the first one placed elsewhere\n"
	"(where the simulated trajectory leaves the kernel's; JSON first_elsewhere).\n"
	"--kernel-zones holds each allocation to the zone the kernel served it from (the\n"
	"zones before it in the zonelist passed over as the kernel did; its watermarks\n"
	"still apply): a diagnostic that takes zone balancing out of the comparison and\n"
	"leaves the model's choices inside each zone. Its results are not stored.\n"
	"\n"
	"--teacher replays the capture as 'bigchunk replay' does and, before each\n"
	"allocation the trace shows, asks the model which pfn the kernel would hand out\n"
	"from the true state, then compares it with the kernel's. The events of one request\n"
	"(the zone_locked events of a pcp refill, an extfrag, then its mm_page_alloc on the\n"
	"same cpu) are grouped and the question is asked before the first of them. Where\n"
	"the kernel's page came from is what the trace tells: 'pcp' (no zone_locked),\n"
	"'refill' (zone_locked with percpu_refill), 'buddy' (another zone_locked),\n"
	"'fallback' (an extfrag). Each disagreement is classified: the page's state was\n"
	"unknown to the model (seeded with flags 0), its free was not traced, the pcp\n"
	"trylock failed, the model's pcp list held pages the kernel's had not (untraced\n"
	"alloc_pages_bulk()), the lists' order differs, another zone, lost events, or the\n"
	"model would have needed reclaim. A zone disagreement also tells where the\n"
	"kernel's NR_FREE_PAGES counter stood against the watermark (its per-cpu diffs\n"
	"are folded on going idle, quiet_vmstat(), with no event): where folding every\n"
	"cpu's diffs, or else moving one cpu's diff within the stat threshold, makes the\n"
	"model choose the kernel's zone, that is done (counted) and the next questions\n"
	"read the counter the kernel read. Along the way it asks the pcp sizing too: at each\n"
	"free to a pcp list, each refill and each traced vmstat_update(), what the model\n"
	"decides from the true lists (pages drained, pages refilled) against what the\n"
	"kernel traced; each later snapshot's zoneinfo checks the pcp->count and pcp->high\n"
	"it asked from, then gives them. Stored in tables simulate_teacher and\n"
	"simulate_disagreements.\n"
	"\n"
	"Both modes take watermarks and pcp sizes from the seed snapshot's zoneinfo (the\n"
	"teacher from each later one too), pcp->high and alloc_factor as the snapshot's\n"
	"read window left them;\n"
	"watermark boosting, the pcp trylock, reclaim and compaction are not modelled.\n"
	"Tables: see db/README.md.\n"
	"\n"
	"Options:\n"
	"  --teacher     teacher-forced mode (default: free-running)\n"
	"  --kernel-zones  free-running, each allocation in the kernel's zone (not stored)\n"
	"  --until T     stop before time T (ns of the trace clock, a time from the first\n"
	"                event with a unit, or marker:TEXT)\n"
	"  --json        machine-readable output\n"
	"  --no-store    do not write the results into the capture\n"
	"  -f, --force   read a capture that fails SQLite's quick_check\n"
	"  -h, --help\n"
	"\n"
	"Exit status: 0 on success; 1 the capture is incomplete or damaged; 2 usage error,\n"
	"an unusable capture, or results that could not be stored.\n"
	CLI_CAPTURE_EXIT_HELP;

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
}

static void print_pcp_kind(const char *what, const struct tc_pcp_kind *k)
{
	printf("  %-30s %8llu asked, alike %.2f%%; missed %llu, extra %llu, other amounts %llu; "
	       "pages kernel %llu, model %llu\n", what, (unsigned long long)k->asked,
	       pct(k->alike, k->asked), (unsigned long long)k->missed,
	       (unsigned long long)k->extra,
	       (unsigned long long)(k->asked - k->alike - k->missed - k->extra),
	       (unsigned long long)k->pages_kernel, (unsigned long long)k->pages_model);
}

static void print_pcp(const struct tc_pcp_counts *c)
{
	printf("pcp sizing, asked at the kernel's own decisions from the true lists "
	       "(missed: the kernel drained, the model would not; extra: the reverse):\n");
	print_pcp_kind("frees to a pcp list (drains)", &c->commit);
	print_pcp_kind("refills (rmqueue_bulk())", &c->refill);
	print_pcp_kind("vmstat_update() decays", &c->decay);
	printf("  drained with no decision of the cpu open (drain_all_pages(), remote "
	       "drains): %llu pages\n", (unsigned long long)c->unexplained_drain_pages);
	printf("  pcp->count as asked, against each later snapshot's zoneinfo (then taken from "
	       "it): %.1f pages off on average over %llu lists (the seed's count: zoneinfo's, "
	       "read at the snapshot's start, with the read's events); %llu lists not compared "
	       "(more than a batch moved while the zone files were read: taken as read)\n",
	       c->synced_lists ? (double)c->synced_count_off / (double)c->synced_lists : 0.0,
	       (unsigned long long)c->synced_lists, (unsigned long long)c->synced_lists_moving);
	printf("  pcp->high as the model tuned it, against the same zoneinfo: %llu of %llu "
	       "lists equal, %.1f off on average\n", (unsigned long long)c->synced_high_equal,
	       (unsigned long long)c->synced_high_lists,
	       c->synced_high_lists ? (double)c->synced_high_off /
				      (double)c->synced_high_lists : 0.0);
}

static void print_text(const struct tc_result *r, const char *path)
{
	unsigned int i;

	printf("simulate --teacher of %s: %llu events replayed, %llu allocation requests asked\n",
	       path, (unsigned long long)r->events, (unsigned long long)r->all.requests);
	printf("  same pfn        %.3f%%  (%llu)\n", pct(r->all.same_pfn, r->all.requests),
	       (unsigned long long)r->all.same_pfn);
	printf("  same pageblock  %.3f%%  (%llu)\n", pct(r->all.same_pageblock, r->all.requests),
	       (unsigned long long)r->all.same_pageblock);
	printf("by where the kernel's page came from (as the trace tells):\n");
	for (i = 0; i < MODEL_SRC_NONE; i++) {
		const struct tc_counts *c = &r->by_source[i];

		printf("  %-9s %8llu requests, same pfn %.3f%%\n", model_source_name(i),
		       (unsigned long long)c->requests, pct(c->same_pfn, c->requests));
	}
	printf("disagreements: %llu\n", (unsigned long long)(r->all.requests - r->all.same_pfn));
	for (i = 0; i < TC_NR_WHY; i++)
		if (r->why[i])
			printf("  %-22s %llu\n", tc_why_name(i), (unsigned long long)r->why[i]);
	for (i = 0; i < r->nr_dis && i < 10; i++)
		printf("  seq %llu cpu %d order %u: kernel %#llx (%s), model %s%#llx (%s): %s\n",
		       (unsigned long long)r->dis[i].seq, r->dis[i].cpu, r->dis[i].order,
		       (unsigned long long)r->dis[i].kernel_pfn,
		       model_source_name(r->dis[i].kernel_src),
		       r->dis[i].model_pfn == UINT64_MAX ? "none " : "",
		       (unsigned long long)(r->dis[i].model_pfn == UINT64_MAX ? 0 : r->dis[i].model_pfn),
		       model_source_name(r->dis[i].model_src), tc_why_name(r->dis[i].why));
	printf("not asked: %llu requests begun while the seed snapshot was read; %llu failed "
	       "allocations (no page) not counted\n", (unsigned long long)r->not_asked,
	       (unsigned long long)r->failed_allocs);
	printf("assumptions: %llu blocks seeded with flags 0 put on the pcp list of the cpu "
	       "whose pcp hit first hands them out, in that order (the lists at the snapshot, "
	       "inferred from the trace); %llu free blocks moved to their list's head in the "
	       "order the kernel takes them (the free lists' order at the snapshot, inferred)\n",
	       (unsigned long long)r->pcp_seeded, (unsigned long long)r->free_reordered);
	printf("             %llu guessed pageblock types confirmed or corrected by the first "
	       "event after the snapshot that shows them\n", (unsigned long long)r->types_learned);
	printf("             %llu pcp pages taken by untraced alloc_pages_bulk() before a "
	       "question (their next event is their free), %llu more held to the end (no later "
	       "event names them); %llu pcp pages moved to the buddy (the buddy hands them out "
	       "next: their free went past the pcp list)\n",
	       (unsigned long long)r->bulk_inferred, (unsigned long long)r->bulk_held,
	       (unsigned long long)r->bypass_inferred);
	printf("             %llu free blocks at the head of the list the model would take "
	       "from, that no later event names, moved to the tail\n",
	       (unsigned long long)r->stale_free_moved);
	printf("             %llu guessed UNMOVABLE pageblocks re-typed MOVABLE (a free block "
	       "the model would take for an unmovable request that no later event names)\n",
	       (unsigned long long)r->stale_types_fixed);
	printf("             %llu refills whose first pages an untraced alloc_pages_bulk() "
	       "took (their next event is their free, or none)\n",
	       (unsigned long long)r->bulk_refills);
	if (r->vmstat_traced)
		printf("             %llu vmstat_update() runs traced, each folding its cpu's "
		       "NR_FREE_PAGES diffs\n", (unsigned long long)r->vmstat_updates);
	printf("             %llu times every cpu's NR_FREE_PAGES diffs folded because the "
	       "kernel's zone showed it read them folded (%s)\n",
	       (unsigned long long)r->vm_folds_inferred,
	       r->vmstat_traced ? "a fold no event shows: quiet_vmstat() on going idle" :
	       "vmstat_update() is not traced in this capture; also folded each second");
	printf("             %llu times one cpu's NR_FREE_PAGES diff of a zone moved, within "
	       "the stat threshold, to where the kernel's zone showed its counter was (an "
	       "idle fold earlier and the changes since)\n",
	       (unsigned long long)r->vm_diffs_inferred);
	printf("             watermarks and pcp sizes of %u zones from the seed snapshot's "
	       "zoneinfo (others: none, default pcp sizes; pcp->high or alloc_factor of %llu "
	       "lists as the snapshot's read window left them); no watermark boost, no pcp "
	       "trylock failure, no reclaim (%llu requests would have needed it)\n",
	       r->zones_with_limits, (unsigned long long)r->pcp_window,
	       (unsigned long long)r->model_none);
	print_pcp(&r->pcp);
}

static void json_pcp_kind(struct json *j, const char *key, const struct tc_pcp_kind *k)
{
	json_key(j, key);
	json_obj_begin(j);
	json_kuint(j, "asked", k->asked);
	json_kuint(j, "alike", k->alike);
	json_kuint(j, "missed", k->missed);
	json_kuint(j, "extra", k->extra);
	json_kuint(j, "pages_kernel", k->pages_kernel);
	json_kuint(j, "pages_model", k->pages_model);
	json_obj_end(j);
}

static void json_counts(struct json *j, const char *key, const struct tc_counts *c)
{
	json_key(j, key);
	json_obj_begin(j);
	json_kuint(j, "requests", c->requests);
	json_kuint(j, "same_pfn", c->same_pfn);
	json_kuint(j, "same_pageblock", c->same_pageblock);
	json_obj_end(j);
}

static void print_json(const struct tc_result *r)
{
	struct json j;
	unsigned int i;

	json_init(&j, stdout, true);
	json_obj_begin(&j);
	json_kuint(&j, "events", r->events);
	json_kuint(&j, "requests", r->all.requests);
	json_kuint(&j, "same_pfn", r->all.same_pfn);
	json_kuint(&j, "same_pageblock", r->all.same_pageblock);
	json_key(&j, "by_source");
	json_obj_begin(&j);
	for (i = 0; i < MODEL_SRC_NONE; i++)
		json_counts(&j, model_source_name(i), &r->by_source[i]);
	json_obj_end(&j);
	json_key(&j, "why");
	json_obj_begin(&j);
	for (i = 0; i < TC_NR_WHY; i++)
		json_kuint(&j, tc_why_name(i), r->why[i]);
	json_obj_end(&j);
	json_key(&j, "disagreements");
	json_arr_begin(&j);
	for (i = 0; i < r->nr_dis; i++) {
		const struct tc_dis *d = &r->dis[i];

		json_obj_begin(&j);
		json_kuint(&j, "seq", d->seq);
		json_kint(&j, "cpu", d->cpu);
		json_kuint(&j, "order", d->order);
		json_kuint(&j, "kernel_pfn", d->kernel_pfn);
		json_key(&j, "model_pfn");
		if (d->model_pfn == UINT64_MAX)
			json_null(&j);
		else
			json_uint(&j, d->model_pfn);
		json_kstr(&j, "kernel_source", model_source_name(d->kernel_src));
		json_kstr(&j, "model_source", model_source_name(d->model_src));
		json_kstr(&j, "why", tc_why_name(d->why));
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_kuint(&j, "disagreements_left_off", r->dis_left_off);
	json_kuint(&j, "needed_reclaim", r->model_none);
	json_kuint(&j, "not_asked", r->not_asked);
	json_kuint(&j, "failed_allocs", r->failed_allocs);
	json_kuint(&j, "zones_with_limits", r->zones_with_limits);
	json_kuint(&j, "pcp_window", r->pcp_window);
	json_kuint(&j, "pcp_pages_seeded", r->pcp_seeded);
	json_kuint(&j, "free_blocks_reordered", r->free_reordered);
	json_kuint(&j, "pageblock_types_learned", r->types_learned);
	json_kuint(&j, "untraced_bulk_allocs", r->bulk_inferred);
	json_kuint(&j, "frees_past_pcp", r->bypass_inferred);
	json_kuint(&j, "untraced_bulk_allocs_held", r->bulk_held);
	json_kuint(&j, "stale_free_blocks_moved", r->stale_free_moved);
	json_kuint(&j, "stale_guessed_types_fixed", r->stale_types_fixed);
	json_kuint(&j, "untraced_bulk_refills", r->bulk_refills);
	json_kuint(&j, "vmstat_folds_inferred", r->vm_folds_inferred);
	json_kuint(&j, "vmstat_diffs_inferred", r->vm_diffs_inferred);
	json_kbool(&j, "vmstat_update_traced", r->vmstat_traced);
	json_kuint(&j, "vmstat_updates", r->vmstat_updates);
	json_key(&j, "pcp_sizing");
	json_obj_begin(&j);
	json_pcp_kind(&j, "drains", &r->pcp.commit);
	json_pcp_kind(&j, "refills", &r->pcp.refill);
	json_pcp_kind(&j, "decays", &r->pcp.decay);
	json_kuint(&j, "unexplained_drain_pages", r->pcp.unexplained_drain_pages);
	json_kuint(&j, "synced_lists", r->pcp.synced_lists);
	json_kuint(&j, "synced_count_off", r->pcp.synced_count_off);
	json_kuint(&j, "synced_lists_moving", r->pcp.synced_lists_moving);
	json_kuint(&j, "synced_high_lists", r->pcp.synced_high_lists);
	json_kuint(&j, "synced_high_equal", r->pcp.synced_high_equal);
	json_kuint(&j, "synced_high_off", r->pcp.synced_high_off);
	json_obj_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

/* Open the capture of @a and resolve its --until; 0, or the command's exit code. */
int simulate_open(struct simulate_args *a, struct tdb **db, uint64_t *until_seq)
{
	if (cli_open_capture("simulate", a->path, a->store ? TDB_WRITE : TDB_READONLY, a->force,
			     db, &a->partial))
		return cli_fail("simulate");
	*until_seq = UINT64_MAX;
	if (a->until && tr_parse_time(*db, a->until, until_seq, &(uint64_t){ 0 })) {
		tdb_close(*db);
		return cli_fail("simulate");
	}
	return 0;
}

int simulate_finish(struct simulate_args *a, struct tdb *db, int ret,
		    const struct simulate_ops *ops, void *res)
{
	if (!ret && a->store) {
		ret = ops->store(db, res);
		if (ret)
			bc_error_prefix(ret, "results not stored");
	}
	if (ret) {
		ops->release(res);
		tdb_close(db);
		return cli_fail("simulate");
	}
	if (a->as_json)
		ops->print_json(res);
	else
		ops->print_text(res, a->path);
	ops->release(res);
	tdb_close(db);
	return cli_partial_exit(a->partial, EXIT_OK);
}

static int teacher_store(struct tdb *db, const void *res) { return tc_store_results(db, res); }
static void teacher_json(const void *res) { print_json(res); }
static void teacher_text(const void *res, const char *path) { print_text(res, path); }
static void teacher_release(void *res) { tc_result_free(res); }

static int simulate_teacher(struct simulate_args *a)
{
	static const struct simulate_ops ops = {
		teacher_store, teacher_json, teacher_text, teacher_release
	};
	struct rp_opts ro = { .progress = cli_replay_progress, .note = cli_note };
	struct tc_result res;
	struct tdb *db;
	int ret = simulate_open(a, &db, &ro.until_seq);

	if (ret)
		return ret;
	ret = tc_run(db, &ro, TC_MAX_DIS, &res);
	return simulate_finish(a, db, ret, &ops, &res);
}

int cmd_simulate(int argc, char **argv)
{
	struct simulate_args a = { .store = true };
	bool teacher = false;
	int c;

	while ((c = cli_getopt(argc, argv, "fh", "teacher:t kernel-zones:z until=u json:j "
			       "no-store:n force:f help:h")) != -1) {
		switch (c) {
		case 't': teacher = true; break;
		case 'z': a.kernel_zones = true; break;
		case 'u': a.until = optarg; break;
		case 'f': a.force = true; break;
		case 'j': a.as_json = true; break;
		case 'n': a.store = false; break;
		case 'h': return cli_usage("simulate", 0, EXIT_OK);
		default: return cli_usage("simulate", 1, EXIT_BAD);
		}
	}
	if (optind + 1 != argc)
		return cli_usage("simulate", 1, EXIT_BAD);
	if (teacher && a.kernel_zones) {
		fprintf(stderr, "bigchunk simulate: --kernel-zones is for the free-running mode; "
			"--teacher gives every request the kernel's state already\n");
		return EXIT_BAD;
	}
	if (a.kernel_zones)
		a.store = false;	/* a diagnostic: the capture keeps the real run's figures */
	a.path = argv[optind];
	return teacher ? simulate_teacher(&a) : simulate_free(&a);
}
