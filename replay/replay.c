// SPDX-License-Identifier: GPL-2.0
/*
 * replay: the event loop. Each stored event is decoded (trace/tr-event.h) and applied
 * to the model; real contiguous attempts found by the first pass (trace/tr-attempt.h)
 * isolate their range in the model when the kernel did; snapshots after the first are
 * scored, then resynced.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-snap.h"
#include "replay/replay-local.h"
#include "trace/tr-layout.h"

/*
 * The complete snapshots, and the seed: the first that sits on the trace's timeline.
 * Each one's "pages" markers are read once: the first says where the zone files were
 * read (seq_files_end; the snapshot's end without one), and the seed's are kept for
 * seed_already_has().
 */
static int load_snaps(struct replay *rp)
{
	struct tdb_snap_info *si;
	struct tr_pages_mark *marks;
	int nr, n, i, ret;

	ret = tdb_snap_list(rp->db, &si, &nr);
	if (ret)
		return ret;
	rp->snaps = calloc(nr + 1, sizeof(*rp->snaps));
	if (!rp->snaps) {
		free(si);
		return bc_error(BC_E_NOMEM, "out of memory");
	}
	rp->seed_snap = -1;
	for (i = 0; !ret && i < nr; i++) {
		struct rp_snap *sn = &rp->snaps[rp->nr_snaps];

		if (!si[i].complete)
			continue;
		ret = tr_pages_marks(rp->db, &si[i], &marks, &n);
		if (ret)
			break;
		*sn = (struct rp_snap){
			.id = si[i].id, .seq_begin = si[i].seq_begin, .seq_end = si[i].seq_end,
			.ts_begin = si[i].ts_begin, .ts_end = si[i].ts_end,
			.seq_files_end = n ? (int64_t)marks[0].seq : si[i].seq_end,
			.nr_pfns = si[i].nr_pfns, .complete = si[i].complete,
		};
		if (rp->seed_snap < 0 && sn->seq_begin >= 0 &&
		    (!rp->opts.seed_snap || sn->id == rp->opts.seed_snap)) {
			rp->seed_snap = rp->nr_snaps;
			rp->seed_marks = marks;
			rp->nr_seed_marks = n;
		} else {
			free(marks);
		}
		rp->nr_snaps++;
	}
	free(si);
	return ret;
}

/*
 * Inside the chunk being read, the model's state tells the order better than the
 * reader's pace (it reads in bursts): the model holds what the seed showed plus the
 * events applied since. An allocation or a take from the buddy of a page the model
 * holds free, or a free of a page it holds in use, came after the page was read (1:
 * apply it); the same on a page already in the state the event leads to was read
 * after it (-1: skip it); likewise a drain of a page on a pcp list or in the buddy.
 * A drain of a page the seed read with flags 0 came after the read: once drained, the
 * page is free in the buddy and kpageflags says so (stable_page_flags(): PageBuddy, or
 * is_free_buddy_page() for the other pages of a free block); flags 0 is the pcp page.
 * So did a user page's allocation (shows_flags()).
 * Otherwise pages seeded with flags 0 (pcp, non-compound tails) and the other kinds
 * of event do not tell (0).
 */
/*
 * Does the page of this allocation show flags within moments of it? A user or page
 * cache page does (the anon rmap or the page cache's lock at once; a compound head
 * from prep_compound_page()): one the seed read with flags 0 was read before it,
 * whatever the reader's pace says (the shell twin reads in bursts: seen on 6.12, a
 * page read flags 0 that pace put after its anonymous allocation, left unknown and
 * taken for a kernel page at the next full drain).
 */
static bool shows_flags(const struct replay *rp, const struct tr_event *ev)
{
	enum model_gfp_class g = model_gfp_classify(ev->gfp, ev->order,
						    rp->layout.pageblock_order);

	return g == MODEL_GFP_USER_MOVABLE || g == MODEL_GFP_TRANSHUGE;
}

static int seed_fit(struct replay *rp, const struct tr_event *ev)
{
	struct model_pfn_info pi;
	bool flags0;

	if (model_pfn_info(rp->m, ev->pfn, &pi))
		return 0;
	flags0 = pi.seeded && pi.kind == MODEL_KIND_UNKNOWN;
	switch (ev->kind) {
	case TR_EV_PAGE_ALLOC:
		if (pi.state == MODEL_PFN_BUDDY || pi.state == MODEL_PFN_PCP)
			return 1;
		if (pi.state == MODEL_PFN_ALLOC && flags0 && shows_flags(rp, ev))
			return 1;
		return pi.state == MODEL_PFN_ALLOC && !flags0 &&
		       pi.gfp_class != MODEL_GFP_PENDING ? -1 : 0;
	case TR_EV_ZONE_LOCKED:
	case TR_EV_EXTFRAG:
		if (pi.state == MODEL_PFN_BUDDY)
			return 1;
		return pi.state == MODEL_PFN_ALLOC && !flags0 ? -1 : 0;
	case TR_EV_PAGE_FREE:
		if (pi.state == MODEL_PFN_ALLOC && !flags0)
			return 1;
		return pi.state == MODEL_PFN_BUDDY || pi.state == MODEL_PFN_PCP ? -1 : 0;
	case TR_EV_PCPU_DRAIN:
		if (pi.state == MODEL_PFN_PCP || (pi.state == MODEL_PFN_ALLOC && flags0))
			return 1;
		return pi.state == MODEL_PFN_BUDDY ? -1 : 0;
	case TR_EV_FREE_BATCHED:
		return pi.state == MODEL_PFN_PCP ? 1 : 0;
	default:
		return 0;
	}
}

/*
 * An event while the seed snapshot was read: was its page read after the event (then
 * the seed shows its effect and the event must not be applied again)? Pages below the
 * latest "pages" marker were read before it; pages from the next marker's pfn on were
 * read after. Within the chunk being read, the reader is taken to move at a steady
 * pace from one marker to the next (the last chunk ends at the snapshot's end): pages
 * past where it was at the event's time were read after it.
 */
static bool seed_already_has(struct replay *rp, const struct tr_event *ev)
{
	const struct rp_snap *sn = &rp->snaps[rp->seed_snap];
	uint64_t p0, p1, t0, t1;
	double at;
	int k, fit;

	if (ev->pfn == UINT64_MAX || ev->kind == TR_EV_OTHER || ev->kind > TR_EV_EXTFRAG)
		return false;
	/*
	 * A reader that writes no "pages" markers (a plain shell twin): the seed shows
	 * what came before its begin; inside the read only the model's state tells.
	 */
	if (!rp->nr_seed_marks)
		return (int64_t)ev->seq < sn->seq_begin || seed_fit(rp, ev) < 0;
	while (rp->seed_mark < rp->nr_seed_marks && rp->seed_marks[rp->seed_mark].seq <= ev->seq)
		rp->seed_mark++;
	k = rp->seed_mark;		/* markers [0, k) came before the event */
	if (k == 0)
		return true;		/* page reading had not begun */
	if (k < rp->nr_seed_marks && ev->pfn >= rp->seed_marks[k].pfn)
		return true;		/* in a later chunk */
	p0 = rp->seed_marks[k - 1].pfn;
	t0 = rp->seed_marks[k - 1].ts;
	if (k < rp->nr_seed_marks) {
		p1 = rp->seed_marks[k].pfn;
		t1 = rp->seed_marks[k].ts;
	} else {
		p1 = sn->nr_pfns;
		t1 = (uint64_t)sn->ts_end;
	}
	if (ev->pfn < p0 || p1 <= p0 || t1 <= t0 || ev->ts >= t1)
		return false;		/* read before, or reading was past it */
	fit = seed_fit(rp, ev);
	if (fit)
		return fit < 0;
	at = (double)p0 + (double)(p1 - p0) * (double)(ev->ts > t0 ? ev->ts - t0 : 0) /
	     (double)(t1 - t0);
	return (double)ev->pfn >= at;
}

/* Say what the user should know about how this capture is read (opts.note). */
static void note(struct replay *rp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct replay *rp, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!rp->opts.note)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	rp->opts.note(rp->opts.arg, buf);
}

static int read_layout(struct replay *rp)
{
	bool unknown;
	char *release;
	int ret;

	ret = tr_read_layout(rp->db, rp->snaps[rp->seed_snap].id, &rp->layout, &rp->profile,
			     &unknown);
	if (ret || !unknown)
		return ret;
	release = tdb_get_meta(rp->db, "kernel_release");
	note(rp, "kernel release '%s' not recognised; using the 6.18 rules", release ? release : "");
	free(release);
	return 0;
}

int rp_create(struct tdb *db, const struct rp_opts *opts, struct replay **out)
{
	struct replay *rp = calloc(1, sizeof(*rp));
	const struct tdb_event_type *t;
	uint64_t spanned_end = 0;
	unsigned int zi;
	int i, ret;

	*out = NULL;
	if (!rp)
		return bc_error(BC_E_NOMEM, "out of memory");
	rp->db = db;
	rp->open_attempt = -1;
	if (opts)
		rp->opts = *opts;
	else
		rp->opts.until_seq = UINT64_MAX;
	ret = tr_decoder_create(db, &rp->dec);
	for (i = 0; !ret && (t = tr_decoder_rejected(rp->dec, i)); i++)
		note(rp, "%s:%s has no 'pfn' field in this capture; its events are not modelled",
		     t->system, t->name);
	if (!ret)
		ret = load_snaps(rp);
	if (ret)
		goto error;
	if (rp->seed_snap < 0) {
		ret = bc_error(BC_E_FORMAT, "%s: no complete snapshot aligned to the trace; replay "
			       "needs one (record with 'bigchunk record', or import with --snapshot "
			       "DIR taken during a 'trace-cmd record -C mono')", tdb_path(db));
		goto error;
	}
	ret = read_layout(rp);
	if (!ret && rp->opts.layout)
		ret = rp->opts.layout(rp->opts.layout_arg, &rp->layout, &rp->profile);
	if (ret)
		goto error;
	rp->m = model_create(&rp->layout, &rp->profile);
	if (!rp->m) {
		ret = bc_error_prefix(-BC_E_INVAL, "%s: the layout of snapshot %lld", tdb_path(db),
				      (long long)rp->snaps[rp->seed_snap].id);
		goto error;
	}
	ret = rp_seed(rp, &rp->snaps[rp->seed_snap]);
	if (!ret)
		ret = tr_lost_windows(db, &rp->lost, &rp->nr_lost);
	if (!ret && !rp->opts.no_attempts) {
		struct tr_attempt_geometry geo = {
			.pageblock_order = rp->layout.pageblock_order,
			.memory_block_pages = rp->layout.memory_block_pages,
		};

		ret = tr_find_attempts(db, rp->dec, &geo, &rp->attempts, &rp->nr_attempts);
		if (!ret)	/* offline probes stuck in migration: no test event */
			ret = tr_probe_attempts(db, &rp->attempts, &rp->nr_attempts);
		if (!ret)	/* ... and refused at isolation: no event at all */
			ret = tr_probe_refusals(db, &rp->refusals, &rp->nr_refusals);
	}
	if (!ret) {
		rp->att_follow = calloc((size_t)rp->nr_attempts + 1, sizeof(*rp->att_follow));
		rp->att_verdict = calloc((size_t)rp->nr_attempts + 1, sizeof(*rp->att_verdict));
		if (!rp->att_follow || !rp->att_verdict)
			ret = bc_error(BC_E_NOMEM, "out of memory");
	}
	if (ret)
		goto error;
	for (zi = 0; zi < rp->layout.nr_zones; zi++) {
		uint64_t e = rp->layout.zones[zi].start_pfn + rp->layout.zones[zi].spanned;

		if (e > spanned_end)
			spanned_end = e;
	}
	rp->touched_words = (spanned_end + 63) / 64;
	rp->touched = calloc(rp->touched_words, sizeof(uint64_t));
	rp->nr_batch = rp->layout.nr_cpus ? rp->layout.nr_cpus : 1;
	rp->batch = calloc(rp->nr_batch, sizeof(*rp->batch));
	rp->free_high = rp_free_high_applies(rp);
	for (unsigned int i = 0; i < RP_SUSPECTS; i++)
		rp->suspect[i].pfn = UINT64_MAX;
	if (!rp->touched || !rp->batch) {
		ret = bc_error(BC_E_NOMEM, "out of memory");
		goto error;
	}
	rp->next_seq = (uint64_t)rp->snaps[rp->seed_snap].seq_begin;
	rp->next_snap = rp->seed_snap + 1;
	*out = rp;
	return 0;
error:
	rp_destroy(rp);
	return ret;
}

void rp_destroy(struct replay *rp)
{
	if (!rp)
		return;
	model_destroy(rp->m);
	tr_decoder_destroy(rp->dec);
	free(rp->snaps);
	free(rp->attempts);
	free(rp->refusals);
	free(rp->att_follow);
	free(rp->att_verdict);
	free(rp->lost);
	free(rp->scores);
	free(rp->touched);
	free(rp->batch);
	free(rp->seed_marks);
	free(rp->bwin_rows);
	free(rp);
}

struct model *rp_model(struct replay *rp) { return rp->m; }
struct tdb *rp_tdb(struct replay *rp) { return rp->db; }
uint64_t rp_events_applied(const struct replay *rp) { return rp->applied; }
uint64_t rp_next_seq(const struct replay *rp) { return rp->next_seq; }
uint64_t rp_anomalies_during_snapshots(const struct replay *rp) { return rp->snapshot_anomalies; }
int64_t rp_seed_snapshot(const struct replay *rp) { return rp->snaps[rp->seed_snap].id; }
uint64_t rp_seed_reconciled(const struct replay *rp) { return rp->seed_skipped; }
uint64_t rp_trylock_late(const struct replay *rp) { return rp->trylock_late; }
uint64_t rp_refusals_applied(const struct replay *rp) { return rp->refusals_applied; }
const struct tr_decoder *rp_decoder(const struct replay *rp) { return rp->dec; }

const struct tr_attempt *rp_attempts(const struct replay *rp, int *nr)
{
	*nr = rp->nr_attempts;
	return rp->attempts;
}

const struct rp_score *rp_scores(const struct replay *rp, int *nr)
{
	*nr = rp->nr_scores;
	return rp->scores;
}

static void touch(struct replay *rp, uint64_t pfn, unsigned int order)
{
	uint64_t n = order < 20 ? 1ull << order : 1, i;

	for (i = pfn; i < pfn + n && i / 64 < rp->touched_words; i++)
		rp->touched[i / 64] |= 1ull << (i % 64);
}

/*
 * free_unref_folios() traces mm_page_free for each folio first (free_pages_prepare()),
 * then, holding the cpu's pcp lock, mm_page_free_batched for each one it puts on the
 * pcp list, in the same order. A free on that cpu between two confirmations, with
 * folios still to be confirmed, was an interrupt: its pcp_spin_trylock() failed and
 * the page went to the buddy (free_one_page()), if the page is of the zone whose pcp
 * lock the batch holds (its last confirmed folio's); another zone's pcp lock is free
 * and takes the page (seen on 6.1: a DMA32 order-1 free inside a Normal batch, then
 * drained from DMA32's pcp list). A confirmation gap longer than an
 * interrupt (RP_BATCH_GAP_NS) ends the batch: the rest were not pcp-bound after all;
 * a drain of the batch's zone on its cpu is inside the locked section and counts as a
 * confirmation for the gap (batch_drain()). 6.1's free_unref_page_list() has the same
 * shape (mm_page_free from free_unref_page_prepare(), then mm_page_free_batched).
 */
#define RP_BATCH_GAP_NS	10000000ull

static struct rp_free_batch *cpu_batch(struct replay *rp, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < rp->nr_batch ? &rp->batch[cpu] : NULL;
}

/*
 * A free on a cpu whose batch still has folios to confirm but whose last confirmation
 * is older than RP_BATCH_GAP_NS: free_inside_batch() ends the batch, yet the lock may
 * still be held (seen on 6.1 in QEMU: 24 ms between two confirmations of one batch,
 * a vCPU the host did not run, two order-1 frees in between taken from the buddy
 * later). A suspect, as a free inside a refill is, and the batch is left as it was:
 * its next confirmation may still come.
 */
static bool free_after_stale_batch(struct replay *rp, const struct tr_event *ev)
{
	struct rp_free_batch *b = cpu_batch(rp, ev->cpu);

	return b && ev->order <= 3 && b->confirming && b->next < b->n &&
	       ev->ts - b->ts_confirm >= RP_BATCH_GAP_NS &&
	       model_pfn_zone(rp->m, ev->pfn) == model_pfn_zone(rp->m, b->pfn[b->next - 1]);
}

static bool free_inside_batch(struct replay *rp, const struct tr_event *ev)
{
	struct rp_free_batch *b = cpu_batch(rp, ev->cpu);

	if (!b || ev->order > 3)
		return false;
	if (b->confirming && b->next < b->n && ev->ts - b->ts_confirm < RP_BATCH_GAP_NS)
		return model_pfn_zone(rp->m, ev->pfn) == model_pfn_zone(rp->m, b->pfn[b->next - 1]);
	if (b->confirming || b->n == RP_FOLIO_BATCH)
		b->n = b->next = 0;
	b->confirming = false;
	b->pfn[b->n++] = ev->pfn;
	return false;
}

static void batch_confirm(struct replay *rp, const struct tr_event *ev)
{
	struct rp_free_batch *b = cpu_batch(rp, ev->cpu);
	unsigned int k;

	if (!b)
		return;
	for (k = b->next; k < b->n && b->pfn[k] != ev->pfn; k++)
		;
	if (k == b->n) {
		b->n = b->next = 0;	/* not this cpu's run: start over */
		b->confirming = false;
		return;
	}
	b->next = (uint8_t)(k + 1);
	b->confirming = true;
	b->ts_confirm = ev->ts;
}

/*
 * A drain on a confirming cpu: the batch's locked section goes on for as long as the
 * drain takes. Of the zone the batch holds, free_unref_page_commit() called
 * free_pcppages_bulk() for the last confirmed page (pcp->count >= high) with the pcp
 * lock still held (seen on 6.1: 2,016 drains over 11 ms between two confirmations,
 * then 8 order-1 frees from an interrupt that went to the buddy). Of another zone, an
 * interrupt freed into that zone's unlocked list and drained it while the task, not
 * preemptible with the batch's lock held, waited (seen on 6.12: a DMA32 order-1 free
 * inside a Normal batch, 3,983 DMA32 drains over 13 ms, then three Normal order-1
 * frees of the same interrupt that went to the buddy, then the batch's next
 * confirmation).
 */
static void batch_drain(struct replay *rp, const struct tr_event *ev)
{
	struct rp_free_batch *b = cpu_batch(rp, ev->cpu);

	if (!b || !b->confirming || b->next >= b->n || ev->pfn == UINT64_MAX ||
	    ev->ts - b->ts_confirm >= RP_BATCH_GAP_NS)
		return;
	b->ts_confirm = ev->ts;
}

/*
 * rmqueue_pcplist() (6.1, 6.12) takes the pcp lock with pcp_spin_trylock(), refills
 * the list through rmqueue_bulk() (zone_locked events with percpu_refill) and takes
 * the page before it unlocks; the allocation's mm_page_alloc follows. A free on that
 * cpu, of the refilled zone, after the refill and before that mm_page_alloc came from
 * an interrupt that found the lock taken: free_one_page(), to the buddy (seen on 6.1:
 * a free 137 us after a refill of 15 blocks, taken from the buddy later). But the
 * lock is dropped before mm_page_alloc and alloc_pages_bulk() refills with none
 * after, so a free in that window may still be a task's pcp free (on 6.18 captures
 * most are: drained later). Such a free goes to the pcp list as a suspect; when the
 * buddy later hands the block out (zone_locked) while the model still holds it on
 * the pcp list, the trylock had failed: it moves to the buddy then (suspect_found()).
 */
#define RP_REFILL_GAP_NS	1000000ull

static bool free_inside_refill(struct replay *rp, const struct tr_event *ev)
{
	struct rp_free_batch *b = cpu_batch(rp, ev->cpu);

	return b && b->refilling && ev->ts - b->ts_refill < RP_REFILL_GAP_NS &&
	       model_pfn_zone(rp->m, ev->pfn) == b->refill_zone;
}

static void suspect_add(struct replay *rp, uint64_t pfn, unsigned int order)
{
	rp->suspect[rp->suspect_next].pfn = pfn;
	rp->suspect[rp->suspect_next].order = order;
	rp->suspect_next = (rp->suspect_next + 1) % RP_SUSPECTS;
}

/* Forget @pfn as a suspect; true if it was one (its order in *@order). */
static bool suspect_take(struct replay *rp, uint64_t pfn, unsigned int *order)
{
	unsigned int i;

	for (i = 0; i < RP_SUSPECTS; i++)
		if (rp->suspect[i].pfn == pfn) {
			rp->suspect[i].pfn = UINT64_MAX;
			*order = rp->suspect[i].order;
			return true;
		}
	return false;
}

/*
 * The buddy hands out (zone_locked) a block the model holds on a pcp list, freed there
 * inside a refill's locked section: that free's pcp_spin_trylock() had failed and
 * free_one_page() put it in the buddy. Move it there now, as a drain would.
 */
static int suspect_found(struct replay *rp, const struct tr_event *ev)
{
	unsigned int order;

	if (ev->pfn == UINT64_MAX || !suspect_take(rp, ev->pfn, &order))
		return 0;
	return rp_pcp_past_list(rp, ev->pfn, order, -1);
}

int rp_pcp_past_list(struct replay *rp, uint64_t pfn, unsigned int order, int cpu)
{
	struct model_pfn_info pi;
	int mt;

	if (model_pfn_info(rp->m, pfn, &pi) || pi.state != MODEL_PFN_PCP || pi.head != pfn ||
	    pi.order != order || (cpu >= 0 && pi.cpu != cpu) ||
	    model_pageblock_mt(rp->m, pfn, &mt, NULL, NULL))
		return 0;
	rp->trylock_late++;
	return model_pcpu_drain(rp->m, pfn, order, mt, pi.cpu);
}

static void refill_track(struct replay *rp, const struct tr_event *ev)
{
	struct rp_free_batch *b = cpu_batch(rp, ev->cpu);

	if (!b)
		return;
	if (ev->kind == TR_EV_ZONE_LOCKED && ev->percpu_refill && ev->pfn != UINT64_MAX) {
		b->refilling = true;
		b->refill_zone = model_pfn_zone(rp->m, ev->pfn);
		b->ts_refill = ev->ts;
	} else if (ev->kind == TR_EV_PAGE_ALLOC) {
		b->refilling = false;
	}
}

static int apply_event(struct replay *rp, const struct tr_event *ev);

/* Apply one decoded event to the model. */
static int apply(struct replay *rp, const struct tr_event *ev)
{
	int ret;

	if (!rp->free_high)
		return apply_event(rp, ev);
	ret = rp_free_high_before(rp, ev);
	if (!ret)
		ret = apply_event(rp, ev);
	if (!ret)
		rp_free_high_after(rp, ev);
	return ret;
}

/* apply() without the free_high rule around it. */
static int apply_event(struct replay *rp, const struct tr_event *ev)
{
	struct model *m = rp->m;

	refill_track(rp, ev);
	if (ev->kind == TR_EV_PAGE_ALLOC || ev->kind == TR_EV_PCPU_DRAIN ||
	    ev->kind == TR_EV_PAGE_FREE) {
		unsigned int o;

		suspect_take(rp, ev->pfn, &o);	/* its block moved on: not a suspect now */
	}
	switch (ev->kind) {
	case TR_EV_PAGE_ALLOC:
		return model_page_alloc(m, ev->pfn, ev->order, ev->gfp, ev->mt, ev->cpu);
	case TR_EV_PAGE_FREE:
		if (ev->pfn != UINT64_MAX) {
			bool stale = free_after_stale_batch(rp, ev);

			if (!stale && free_inside_batch(rp, ev))
				return model_page_free_nopcp(m, ev->pfn, ev->order, ev->cpu);
			if (stale || free_inside_refill(rp, ev))
				suspect_add(rp, ev->pfn, ev->order);
		}
		return model_page_free(m, ev->pfn, ev->order, ev->cpu);
	case TR_EV_FREE_BATCHED:
		batch_confirm(rp, ev);
		return model_free_batched(m, ev->pfn, ev->cpu);
	case TR_EV_ZONE_LOCKED: {
		int ret = suspect_found(rp, ev);

		if (ret)
			return ret;
	}
		return model_zone_locked(m, ev->pfn, ev->order, ev->mt, ev->percpu_refill, ev->cpu);
	case TR_EV_PCPU_DRAIN:
		batch_drain(rp, ev);
		return model_pcpu_drain(m, ev->pfn, ev->order, ev->mt, ev->cpu);
	case TR_EV_EXTFRAG:
		return model_extfrag(m, ev->pfn, ev->order, ev->fallback_order, ev->mt,
				     ev->fallback_mt, ev->change_ownership);
	default:
		return 0;
	}
}

int rp_apply_event(struct replay *rp, const struct bc_event *raw)
{
	struct tr_event ev;

	tr_decode(rp->dec, raw, &ev);
	model_set_event(rp->m, ev.seq, ev.ts);
	rp->applied++;
	return apply(rp, &ev);
}

/* Every RAM pfn becomes uncertain: lost events may have touched any page. */
static void lost_window(struct replay *rp)
{
	unsigned int zi;

	for (zi = 0; zi < rp->layout.nr_zones; zi++)
		model_mark_uncertain(rp->m, rp->layout.zones[zi].start_pfn,
				     rp->layout.zones[zi].spanned);
	rp->uncertain_marks++;
	rp->lost_since_snapshot = true;
}

const struct model_contig_result *rp_attempt_follow(const struct replay *rp, int i)
{
	return i >= 0 && i < rp->nr_attempts ? &rp->att_follow[i] : NULL;
}

const struct model_contig_result *rp_attempt_verdict(const struct replay *rp, int i)
{
	return rp->opts.attempt_verdicts && i >= 0 && i < rp->nr_attempts ? &rp->att_verdict[i] :
	       NULL;
}

/*
 * The model's own verdict on a real attempt, from the state where the kernel began it:
 * the whole of model_alloc_contig_range() in a checkpoint, rolled back, since what
 * happens next is the kernel's (its events).
 */
static int attempt_verdict(struct replay *rp, const struct model_contig_req *req, int i)
{
	int ret = model_checkpoint(rp->m), ret2;

	if (ret)
		return ret;
	ret = model_alloc_contig_range(rp->m, req, &rp->att_verdict[i]);
	ret2 = model_rollback(rp->m);
	return ret ? ret : ret2;
}

/*
 * An attempt on a MIGRATE_CMA pageblock is cma_alloc()'s alloc_contig_range(MIGRATE_CMA)
 * (alloc_contig_pages() refuses CMA ranges: has_unmovable_pages()); its isolation
 * accepts the block and gives it back as CMA.
 */
static bool in_cma_block(const struct replay *rp, uint64_t pfn)
{
	int stored, eff;
	bool iso;

	return model_get_profile(rp->m)->cma &&
	       !model_pageblock_mt(rp->m, pfn, &stored, &eff, &iso) && stored == 4;
}

static struct model_contig_req attempt_req(const struct replay *rp, const struct tr_attempt *a)
{
	struct model_contig_req req = {
		.start = a->start_pfn,
		.end = a->end_pfn,
		.mode = a->kind == TR_ATTEMPT_OFFLINE ? MODEL_ISOLATE_MEM_OFFLINE :
			in_cma_block(rp, a->start_pfn) ? MODEL_ISOLATE_CMA_ALLOC :
			MODEL_ISOLATE_OTHER,
		.kind = MODEL_KIND_HUGETLB,
	};

	return req;
}

/* The kernel went on with this attempt: follow it, noting where the model would not. */
static int attempt_begin(struct replay *rp, const struct rp_hooks *h, int i)
{
	struct model_contig_req req = attempt_req(rp, &rp->attempts[i]);
	int ret;

	ret = rp->opts.attempt_verdicts ? attempt_verdict(rp, &req, i) : 0;
	if (!ret)
		ret = model_contig_follow_begin(rp->m, &req, &rp->att_follow[i]);
	if (ret)
		return ret;
	rp->open_attempt = i;
	if (h && h->attempt_begin)
		return h->attempt_begin(h->arg, rp, &rp->attempts[i]);
	return 0;
}

/* At the kernel's test_pages_isolated() that passed, the range becomes the allocation. */
static int attempt_test(struct replay *rp, const struct tr_attempt *a, const struct tr_event *ev)
{
	struct model_contig_req req = attempt_req(rp, a);

	if (ev->seq != a->seq_test || !a->success)
		return 0;
	return model_contig_commit(rp->m, &req);
}

static int attempt_end(struct replay *rp, const struct rp_hooks *h)
{
	struct tr_attempt *a = &rp->attempts[rp->open_attempt];
	struct model_contig_req req = attempt_req(rp, a);
	int ret;

	ret = model_contig_follow_end(rp->m, &req, &rp->att_follow[rp->open_attempt]);
	rp->open_attempt = -1;
	/* its test came after a drain of the zone's pcp lists (offline: zone_pcp_disable()) */
	if (!ret)
		ret = model_zone_pcp_drained(rp->m, a->start_pfn, NULL);
	if (!ret && h && h->attempt_end)
		ret = h->attempt_end(h->arg, rp, a);
	return ret;
}

/*
 * An offline probe whose isolation the kernel refused at fin_pfn: the blocks it had
 * isolated were undone, re-typed MOVABLE before 6.17, with no event. Made at the probe's
 * end marker, after offline_pages()'s zone_pcp_disable() drain, which named the old
 * types. A probe that began before the seed's snapshot is in the seed already.
 */
static int refusal_apply(struct replay *rp, const struct rp_hooks *h,
			 const struct tr_attempt *a)
{
	int ret;

	if ((int64_t)a->seq_begin < rp->snaps[rp->seed_snap].seq_begin)
		return 0;
	if (a->fin_pfn < a->start_pfn || a->fin_pfn >= a->end_pfn) {
		note(rp, "an offline probe of [%#llx, %#llx) refused at pfn %#llx, outside its "
		     "range: its silent re-type is not modelled", (unsigned long long)a->start_pfn,
		     (unsigned long long)a->end_pfn, (unsigned long long)a->fin_pfn);
		return 0;
	}
	ret = h && h->refusal ? h->refusal(h->arg, rp, a, false) : 0;
	if (!ret)
		ret = model_isolate_refused(rp->m, a->start_pfn, a->end_pfn,
					    MODEL_ISOLATE_MEM_OFFLINE, a->fin_pfn);
	if (ret)
		return ret;
	rp->refusals_applied++;
	return h && h->refusal ? h->refusal(h->arg, rp, a, true) : 0;
}

/* A later snapshot was read: score it, then the caller sees the score. */
static int score_snapshot(struct replay *rp, const struct rp_hooks *h, const struct rp_snap *s)
{
	int ret = rp_score_snapshot(rp, s, NULL);

	if (!ret && h && h->at_snapshot)
		ret = h->at_snapshot(h->arg, rp, &rp->scores[rp->nr_scores - 1]);
	return ret;
}

int rp_run(struct replay *rp, const struct rp_hooks *h)
{
	uint64_t total = (uint64_t)tdb_event_count(rp->db);
	uint64_t anom_before = 0;
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	int ret;

	ret = tdb_cursor_open(rp->db, rp->next_seq, rp->opts.until_seq ? rp->opts.until_seq :
			      UINT64_MAX, &cur);
	if (ret)
		return ret;
	while ((ret = tdb_cursor_next(cur, &raw)) == 1) {
		const struct rp_snap *s = rp->next_snap < rp->nr_snaps ? &rp->snaps[rp->next_snap] : NULL;
		const struct rp_snap *seed = &rp->snaps[rp->seed_snap];
		bool in_seed_read = (int64_t)raw.seq < seed->seq_end;

		if (rp->bwin_open && (int64_t)raw.seq >= rp->bwin_end)
			rp_buddy_window_close(rp);
		/* A later snapshot ends here: score it before this event. */
		while (s && s->seq_end >= 0 && (uint64_t)s->seq_end <= raw.seq) {
			ret = score_snapshot(rp, h, s);
			if (ret)
				goto out;
			rp->next_snap++;
			s = rp->next_snap < rp->nr_snaps ? &rp->snaps[rp->next_snap] : NULL;
		}
		if (s && !rp->pending_zones && s->seq_begin >= 0 &&
		    (uint64_t)s->seq_begin <= raw.seq) {
			ret = rp_score_zones_now(rp, s);
			if (ret)
				goto out;
		}
		while (rp->next_lost < rp->nr_lost && rp->lost[rp->next_lost] <= raw.seq) {
			lost_window(rp);
			rp->next_lost++;
		}
		while (rp->open_attempt < 0 && rp->next_attempt < rp->nr_attempts &&
		       rp->attempts[rp->next_attempt].seq_begin <= raw.seq) {
			ret = attempt_begin(rp, h, rp->next_attempt++);
			if (ret)
				goto out;
		}
		while (rp->next_refusal < rp->nr_refusals &&
		       rp->refusals[rp->next_refusal].seq_end < raw.seq) {
			ret = refusal_apply(rp, h, &rp->refusals[rp->next_refusal++]);
			if (ret)
				goto out;
		}

		tr_decode(rp->dec, &raw, &ev);
		if (h && h->before_event) {
			ret = h->before_event(h->arg, rp, &ev);
			if (ret)
				goto out;
		}
		model_set_event(rp->m, ev.seq, ev.ts);
		if (in_seed_read)
			anom_before = model_anomaly_total(rp->m);
		if (s && s->seq_begin >= 0 && (int64_t)raw.seq >= s->seq_begin &&
		    ev.pfn != UINT64_MAX && ev.kind != TR_EV_OTHER)
			touch(rp, ev.pfn, ev.kind == TR_EV_EXTFRAG ? ev.fallback_order : ev.order);
		if (in_seed_read && seed_already_has(rp, &ev)) {
			rp->seed_skipped++;
			/* the drain still names its block's type (free_pcppages_bulk()) */
			ret = ev.kind == TR_EV_PCPU_DRAIN ?
			      model_seed_drain_type(rp->m, ev.pfn, ev.mt) : 0;
			ret = ret < 0 ? ret : 0;
		} else {
			ret = apply(rp, &ev);
		}
		if (ret)
			goto out;
		if (in_seed_read)
			rp->snapshot_anomalies += model_anomaly_total(rp->m) - anom_before;
		if (rp->bwin_open)
			rp_buddy_window_update(rp);
		if (rp->open_attempt >= 0) {
			struct tr_attempt *a = &rp->attempts[rp->open_attempt];

			ret = attempt_test(rp, a, &ev);
			if (!ret && ev.seq >= a->seq_end)
				ret = attempt_end(rp, h);
			if (ret)
				goto out;
		}
		rp->applied++;
		rp->next_seq = raw.seq + 1;
		if (h && h->after_event) {
			ret = h->after_event(h->arg, rp, &ev);
			if (ret)
				goto out;
		}
		if (rp->opts.progress && !(rp->applied & 0xffff))
			rp->opts.progress(rp->opts.arg, rp->next_seq, total, false);
	}
	if (ret < 0)
		goto out;
	ret = 0;
	/* Snapshots at the very end of the trace (after the last event). */
	if (rp->opts.until_seq == UINT64_MAX || rp->opts.until_seq >= total) {
		while (rp->next_snap < rp->nr_snaps) {
			const struct rp_snap *s = &rp->snaps[rp->next_snap];

			ret = s->seq_end >= 0 ? score_snapshot(rp, h, s) : 0;
			if (ret)
				goto out;
			rp->next_snap++;
		}
	}
out:
	if (rp->opts.progress)
		rp->opts.progress(rp->opts.arg, rp->next_seq, total, true);
	tdb_cursor_close(cur);
	return ret;
}
