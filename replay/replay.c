// SPDX-License-Identifier: GPL-2.0
/*
 * replay: the event loop. Each stored event is decoded through a per-type table of
 * field indices (looked up by name once, so older layouts work) and applied to the
 * model; real contiguous attempts found by the first pass isolate their range in the
 * model when the kernel did; snapshots after the first are scored, then resynced.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/snapshot.h"
#include "common/err.h"
#include "replay/replay-local.h"

#define _R(k, s) [RP_EV_##k] = s,
static const char *const rp_kind_names[] = { RP_EVENT_KINDS };
#undef _R

const char *rp_event_kind_name(enum rp_event_kind k)
{
	return k < RP_NR_EVENT_KINDS ? rp_kind_names[k] : "?";
}

static const struct {
	const char *system, *name;
	enum rp_event_kind kind;
} rp_known[] = {
	{ "kmem", "mm_page_alloc", RP_EV_PAGE_ALLOC },
	{ "kmem", "mm_page_free", RP_EV_PAGE_FREE },
	{ "kmem", "mm_page_free_batched", RP_EV_FREE_BATCHED },
	{ "kmem", "mm_page_alloc_zone_locked", RP_EV_ZONE_LOCKED },
	{ "kmem", "mm_page_pcpu_drain", RP_EV_PCPU_DRAIN },
	{ "kmem", "mm_page_alloc_extfrag", RP_EV_EXTFRAG },
	{ "migrate", "mm_migrate_pages_start", RP_EV_MIGRATE_START },
	{ "migrate", "mm_migrate_pages", RP_EV_MIGRATE_END },
	{ "page_isolation", "test_pages_isolated", RP_EV_TEST_ISOLATED },
	{ "compaction", "mm_compaction_isolate_migratepages", RP_EV_ISOLATE_MIGRATE },
	{ "compaction", "mm_compaction_isolate_freepages", RP_EV_ISOLATE_FREE },
};

static int build_types(struct replay *rp)
{
	struct tdb_event_type **types;
	int nr, i;
	size_t k;

	tdb_event_types(rp->db, &types, &nr);
	rp->types = calloc(nr + 1, sizeof(*rp->types));
	if (!rp->types)
		return bc_error(BC_E_NOMEM, "out of memory");
	rp->nr_types = nr;
	for (i = 0; i < nr; i++) {
		struct rp_type *t = &rp->types[i];
		struct tdb *db = rp->db;

		t->kind = RP_EV_OTHER;
		if (!types[i] || types[i]->missing)
			continue;
		for (k = 0; k < sizeof(rp_known) / sizeof(rp_known[0]); k++)
			if (!strcmp(types[i]->system, rp_known[k].system) &&
			    !strcmp(types[i]->name, rp_known[k].name))
				t->kind = rp_known[k].kind;
#define F(field, name) t->field = tdb_field_index(db, i, name)
		F(pfn, "pfn");
		F(order, "order");
		F(mt, "migratetype");
		F(gfp, "gfp_flags");
		F(percpu_refill, "percpu_refill");
		F(alloc_order, "alloc_order");
		F(fallback_order, "fallback_order");
		F(alloc_mt, "alloc_migratetype");
		F(fallback_mt, "fallback_migratetype");
		F(change_ownership, "change_ownership");
		F(start_pfn, "start_pfn");
		F(end_pfn, "end_pfn");
		F(fin_pfn, "fin_pfn");
		F(nr_scanned, "nr_scanned");
		F(nr_taken, "nr_taken");
		F(succeeded, "succeeded");
		F(failed, "failed");
		F(reason, "reason");
		F(mode, "mode");
#undef F
		/* A page-event layout without a pfn (pre-4.x 'page' pointer) cannot be used. */
		if (t->kind >= RP_EV_PAGE_ALLOC && t->kind <= RP_EV_EXTFRAG && t->pfn < 0) {
			fprintf(stderr, "bigchunk: %s:%s has no 'pfn' field in this capture; "
				"its events are not modelled\n", types[i]->system, types[i]->name);
			t->kind = RP_EV_OTHER;
		}
	}
	return 0;
}

static inline int64_t fld(const struct bc_event *e, int idx, int64_t dflt)
{
	return idx >= 0 && idx < e->nfields ? e->field[idx] : dflt;
}

void rp_decode(const struct replay *rp, const struct bc_event *raw, struct rp_event *ev)
{
	const struct rp_type *t = raw->type < rp->nr_types ? &rp->types[raw->type] : NULL;
	int64_t pfn;

	memset(ev, 0, sizeof(*ev));
	ev->raw = raw;
	ev->seq = raw->seq;
	ev->ts = raw->ts;
	ev->cpu = raw->cpu;
	ev->pid = raw->pid;
	ev->pfn = UINT64_MAX;
	ev->mt = -1;
	if (!t) {
		ev->kind = RP_EV_OTHER;
		return;
	}
	ev->kind = t->kind;
	pfn = fld(raw, t->pfn, -1);
	ev->pfn = pfn < 0 ? UINT64_MAX : (uint64_t)pfn;
	if (t->kind == RP_EV_EXTFRAG) {
		ev->order = (unsigned int)fld(raw, t->alloc_order, 0);
		ev->mt = (int)fld(raw, t->alloc_mt, -1);
		ev->fallback_order = (unsigned int)fld(raw, t->fallback_order, 0);
		ev->fallback_mt = (int)fld(raw, t->fallback_mt, -1);
		ev->change_ownership = fld(raw, t->change_ownership, 0) != 0;
		return;
	}
	ev->order = (unsigned int)fld(raw, t->order, 0);
	ev->mt = (int)fld(raw, t->mt, -1);
	ev->gfp = (uint64_t)fld(raw, t->gfp, 0);
	ev->percpu_refill = fld(raw, t->percpu_refill, 0) != 0;
	ev->start_pfn = (uint64_t)fld(raw, t->start_pfn, 0);
	ev->end_pfn = (uint64_t)fld(raw, t->end_pfn, 0);
	ev->fin_pfn = (uint64_t)fld(raw, t->fin_pfn, 0);
	ev->nr_scanned = (uint64_t)fld(raw, t->nr_scanned, 0);
	ev->nr_taken = (uint64_t)fld(raw, t->nr_taken, 0);
	ev->succeeded = (uint64_t)fld(raw, t->succeeded, 0);
	ev->failed = (uint64_t)fld(raw, t->failed, 0);
	ev->reason = (int)fld(raw, t->reason, -1);
	ev->mode = (int)fld(raw, t->mode, -1);
}

/* The seq of a snapshot's first "pages" marker; its end without one. */
static int64_t pages_marker_seq(struct replay *rp, const struct snap_info *si, int *err)
{
	sqlite3_stmt *st;
	int64_t seq = si->seq_end;

	*err = 0;
	if (si->seq_begin < 0)
		return seq;
	if (sqlite3_prepare_v2(tdb_sqlite(rp->db), "SELECT seq, text FROM markers WHERE seq >= ? "
			       "AND seq <= ? AND text LIKE 'bigchunk snapshot % pages %' ORDER BY seq "
			       "LIMIT 1", -1, &st, NULL) != SQLITE_OK) {
		*err = bc_error(BC_E_DB, "markers: %s", sqlite3_errmsg(tdb_sqlite(rp->db)));
		return seq;
	}
	sqlite3_bind_int64(st, 1, si->seq_begin);
	sqlite3_bind_int64(st, 2, si->seq_end);
	if (sqlite3_step(st) == SQLITE_ROW)
		seq = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return seq;
}

static int load_snaps(struct replay *rp)
{
	struct snap_info *si;
	int nr, i, ret;
	int64_t fe;

	ret = snap_list(rp->db, &si, &nr);
	if (ret)
		return ret;
	rp->snaps = calloc(nr + 1, sizeof(*rp->snaps));
	if (!rp->snaps) {
		free(si);
		return bc_error(BC_E_NOMEM, "out of memory");
	}
	for (i = 0; i < nr; i++) {
		if (!si[i].complete)
			continue;
		fe = pages_marker_seq(rp, &si[i], &ret);
		if (ret) {
			free(si);
			return ret;
		}
		rp->snaps[rp->nr_snaps++] = (struct rp_snap){
			.id = si[i].id, .seq_begin = si[i].seq_begin, .seq_end = si[i].seq_end,
			.ts_begin = si[i].ts_begin, .ts_end = si[i].ts_end,
			.seq_files_end = fe,
			.nr_pfns = si[i].nr_pfns, .complete = si[i].complete,
		};
	}
	free(si);
	return 0;
}

static int load_seed_marks(struct replay *rp)
{
	const struct rp_snap *sn = &rp->snaps[rp->seed_snap];
	sqlite3_stmt *st;
	int cap = 0;

	if (sqlite3_prepare_v2(tdb_sqlite(rp->db), "SELECT seq, text, ts FROM markers WHERE seq >= ? "
			       "AND seq <= ? AND text LIKE 'bigchunk snapshot % pages %' ORDER BY seq, ts",
			       -1, &st, NULL) != SQLITE_OK)
		return bc_error(BC_E_DB, "markers: %s", sqlite3_errmsg(tdb_sqlite(rp->db)));
	sqlite3_bind_int64(st, 1, sn->seq_begin);
	sqlite3_bind_int64(st, 2, sn->seq_end);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint64_t pfn;

		if (!snap_marker_parse_pages((const char *)sqlite3_column_text(st, 1), &pfn))
			continue;
		if (rp->nr_seed_marks == cap) {
			uint64_t *a, *b, *t;

			cap = cap ? cap * 2 : 128;
			a = realloc(rp->seed_mark_seq, cap * sizeof(*a));
			if (a)
				rp->seed_mark_seq = a;
			b = realloc(rp->seed_mark_pfn, cap * sizeof(*b));
			if (b)
				rp->seed_mark_pfn = b;
			t = realloc(rp->seed_mark_ts, cap * sizeof(*t));
			if (t)
				rp->seed_mark_ts = t;
			if (!a || !b || !t) {
				sqlite3_finalize(st);
				return bc_error(BC_E_NOMEM, "out of memory");
			}
		}
		rp->seed_mark_seq[rp->nr_seed_marks] = (uint64_t)sqlite3_column_int64(st, 0);
		rp->seed_mark_ts[rp->nr_seed_marks] = (uint64_t)sqlite3_column_int64(st, 2);
		rp->seed_mark_pfn[rp->nr_seed_marks++] = pfn;
	}
	sqlite3_finalize(st);
	return 0;
}

/*
 * An event while the seed snapshot was read: was its page read after the event (then
 * the seed shows its effect and the event must not be applied again)? Pages below the
 * latest "pages" marker were read before it; pages from the next marker's pfn on were
 * read after. Within the chunk being read, the reader is taken to move at a steady
 * pace from one marker to the next (the last chunk ends at the snapshot's end): pages
 * past where it was at the event's time were read after it.
 */
static bool seed_already_has(struct replay *rp, const struct rp_event *ev)
{
	const struct rp_snap *sn = &rp->snaps[rp->seed_snap];
	uint64_t p0, p1, t0, t1;
	double at;
	int k;

	if (!rp->nr_seed_marks || ev->pfn == UINT64_MAX || ev->kind == RP_EV_OTHER ||
	    ev->kind > RP_EV_EXTFRAG)
		return false;
	while (rp->seed_mark < rp->nr_seed_marks && rp->seed_mark_seq[rp->seed_mark] <= ev->seq)
		rp->seed_mark++;
	k = rp->seed_mark;		/* markers [0, k) came before the event */
	if (k == 0)
		return true;		/* page reading had not begun */
	if (k < rp->nr_seed_marks && ev->pfn >= rp->seed_mark_pfn[k])
		return true;		/* in a later chunk */
	p0 = rp->seed_mark_pfn[k - 1];
	t0 = rp->seed_mark_ts[k - 1];
	if (k < rp->nr_seed_marks) {
		p1 = rp->seed_mark_pfn[k];
		t1 = rp->seed_mark_ts[k];
	} else {
		p1 = sn->nr_pfns;
		t1 = (uint64_t)sn->ts_end;
	}
	if (ev->pfn < p0 || p1 <= p0 || t1 <= t0 || ev->ts >= t1)
		return false;		/* read before, or reading was past it */
	at = (double)p0 + (double)(p1 - p0) * (double)(ev->ts > t0 ? ev->ts - t0 : 0) /
	     (double)(t1 - t0);
	return (double)ev->pfn >= at;
}

static int load_lost(struct replay *rp)
{
	sqlite3_stmt *st;
	int cap = 0;

	if (sqlite3_prepare_v2(tdb_sqlite(rp->db), "SELECT seq, cpu, count FROM lost_events "
			       "ORDER BY seq", -1, &st, NULL) != SQLITE_OK)
		return bc_error(BC_E_DB, "lost_events: %s", sqlite3_errmsg(tdb_sqlite(rp->db)));
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (rp->nr_lost == cap) {
			struct rp_lost *n;

			cap = cap ? cap * 2 : 16;
			n = realloc(rp->lost, cap * sizeof(*n));
			if (!n) {
				sqlite3_finalize(st);
				return bc_error(BC_E_NOMEM, "out of memory");
			}
			rp->lost = n;
		}
		rp->lost[rp->nr_lost++] = (struct rp_lost){
			.seq = (uint64_t)sqlite3_column_int64(st, 0),
			.cpu = sqlite3_column_int(st, 1),
			.count = sqlite3_column_int64(st, 2),
		};
	}
	sqlite3_finalize(st);
	return 0;
}

int rp_create(struct tdb *db, const struct rp_opts *opts, struct replay **out)
{
	struct replay *rp = calloc(1, sizeof(*rp));
	uint64_t spanned_end = 0;
	unsigned int zi;
	int ret;

	*out = NULL;
	if (!rp)
		return bc_error(BC_E_NOMEM, "out of memory");
	rp->db = db;
	rp->open_attempt = -1;
	if (opts)
		rp->opts = *opts;
	else
		rp->opts.until_seq = UINT64_MAX;
	ret = build_types(rp);
	if (!ret)
		ret = load_snaps(rp);
	if (ret)
		goto error;
	/* Seed from the first complete snapshot that sits on the trace's timeline. */
	for (rp->seed_snap = 0; rp->seed_snap < rp->nr_snaps; rp->seed_snap++)
		if (rp->snaps[rp->seed_snap].seq_begin >= 0)
			break;
	if (rp->seed_snap == rp->nr_snaps) {
		ret = bc_error(BC_E_FORMAT, "%s: no complete snapshot aligned to the trace; replay "
			       "needs one (record with 'bigchunk record', or import with --snapshot "
			       "DIR taken during a 'trace-cmd record -C mono')", tdb_path(db));
		goto error;
	}
	ret = rp_read_layout(rp, rp->snaps[rp->seed_snap].id);
	if (ret)
		goto error;
	rp->m = model_create(&rp->layout, &rp->profile);
	if (!rp->m) {
		ret = bc_error_prefix(-BC_E_INVAL, "%s: model", tdb_path(db));
		goto error;
	}
	ret = rp_seed(rp, rp->snaps[rp->seed_snap].id);
	if (!ret)
		ret = load_seed_marks(rp);
	if (!ret)
		ret = load_lost(rp);
	if (!ret && !rp->opts.no_attempts)
		ret = rp_find_attempts(rp);
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
	free(rp->types);
	free(rp->snaps);
	free(rp->attempts);
	free(rp->lost);
	free(rp->scores);
	free(rp->touched);
	free(rp->batch);
	free(rp->seed_mark_seq);
	free(rp->seed_mark_pfn);
	free(rp->seed_mark_ts);
	free(rp);
}

struct model *rp_model(struct replay *rp) { return rp->m; }
struct tdb *rp_tdb(struct replay *rp) { return rp->db; }
uint64_t rp_events_applied(const struct replay *rp) { return rp->applied; }
uint64_t rp_next_seq(const struct replay *rp) { return rp->next_seq; }
uint64_t rp_anomalies_during_snapshots(const struct replay *rp) { return rp->snapshot_anomalies; }
int64_t rp_seed_snapshot(const struct replay *rp) { return rp->snaps[rp->seed_snap].id; }
uint64_t rp_seed_reconciled(const struct replay *rp) { return rp->seed_skipped; }

const struct rp_attempt *rp_attempts(const struct replay *rp, int *nr)
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
 * the page went to the buddy (free_one_page()). A confirmation gap longer than an
 * interrupt (RP_BATCH_GAP_NS) ends the batch: the rest were not pcp-bound after all.
 */
#define RP_BATCH_GAP_NS	10000000ull

static struct rp_free_batch *cpu_batch(struct replay *rp, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < rp->nr_batch ? &rp->batch[cpu] : NULL;
}

static bool free_inside_batch(struct replay *rp, const struct rp_event *ev)
{
	struct rp_free_batch *b = cpu_batch(rp, ev->cpu);

	if (!b || ev->order > 3)
		return false;
	if (b->confirming && b->next < b->n && ev->ts - b->ts_confirm < RP_BATCH_GAP_NS)
		return true;
	if (b->confirming || b->n == RP_FOLIO_BATCH)
		b->n = b->next = 0;
	b->confirming = false;
	b->pfn[b->n++] = ev->pfn;
	return false;
}

static void batch_confirm(struct replay *rp, const struct rp_event *ev)
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

/* Apply one decoded event to the model. */
static int apply(struct replay *rp, const struct rp_event *ev)
{
	struct model *m = rp->m;

	switch (ev->kind) {
	case RP_EV_PAGE_ALLOC:
		return model_page_alloc(m, ev->pfn, ev->order, ev->gfp, ev->mt, ev->cpu);
	case RP_EV_PAGE_FREE:
		if (ev->pfn != UINT64_MAX && free_inside_batch(rp, ev))
			return model_page_free_nopcp(m, ev->pfn, ev->order, ev->cpu);
		return model_page_free(m, ev->pfn, ev->order, ev->cpu);
	case RP_EV_FREE_BATCHED:
		batch_confirm(rp, ev);
		return model_free_batched(m, ev->pfn, ev->cpu);
	case RP_EV_ZONE_LOCKED:
		return model_zone_locked(m, ev->pfn, ev->order, ev->mt, ev->percpu_refill, ev->cpu);
	case RP_EV_PCPU_DRAIN:
		return model_pcpu_drain(m, ev->pfn, ev->order, ev->mt, ev->cpu);
	case RP_EV_EXTFRAG:
		return model_extfrag(m, ev->pfn, ev->order, ev->fallback_order, ev->mt,
				     ev->fallback_mt, ev->change_ownership);
	default:
		return 0;
	}
}

int rp_apply_event(struct replay *rp, const struct bc_event *raw)
{
	struct rp_event ev;

	rp_decode(rp, raw, &ev);
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

static int attempt_begin(struct replay *rp, const struct rp_hooks *h, int i)
{
	struct rp_attempt *a = &rp->attempts[i];
	uint64_t fail = 0;
	int ret;

	ret = model_isolate_range(rp->m, a->start_pfn, a->end_pfn,
				  a->kind == RP_ATTEMPT_OFFLINE ? MODEL_ISOLATE_MEM_OFFLINE :
				  MODEL_ISOLATE_OTHER, &fail);
	if (ret == -BC_E_BUSY) {
		/* The kernel did isolate it: the model disagrees about some page. */
		rp->attempt_isolation_mismatch++;
	} else if (ret) {
		return ret;
	}
	rp->open_attempt = i;
	a->model_isolated = ret == 0;
	if (h && h->attempt_begin)
		return h->attempt_begin(h->arg, rp, a);
	return 0;
}

static int attempt_test(struct replay *rp, const struct rp_attempt *a, const struct rp_event *ev)
{
	int ret = 0;

	if (ev->seq != a->seq_test || !a->success)
		return 0;
	if (a->kind == RP_ATTEMPT_OFFLINE) {
		/* __offline_isolated_pages() removes the range silently; onlining frees it
		 * again like fresh memory, which the model treats as initialisation. */
		ret = model_set_uninit(rp->m, a->start_pfn, a->end_pfn - a->start_pfn);
	} else {
		ret = model_take_range(rp->m, a->start_pfn, a->end_pfn, MODEL_KIND_HUGETLB);
	}
	return ret;
}

static int attempt_end(struct replay *rp, const struct rp_hooks *h)
{
	struct rp_attempt *a = &rp->attempts[rp->open_attempt];
	int ret = 0;

	if (a->model_isolated)
		ret = model_undo_isolate_range(rp->m, a->start_pfn, a->end_pfn);
	rp->open_attempt = -1;
	if (!ret && h && h->attempt_end)
		ret = h->attempt_end(h->arg, rp, a);
	return ret;
}

static void progress(struct replay *rp, uint64_t total, struct timespec *last)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec == last->tv_sec)
		return;
	*last = now;
	fprintf(stderr, "\rreplay: %llu / %llu events (%.0f%%)   ",
		(unsigned long long)rp->next_seq, (unsigned long long)total,
		total ? 100.0 * rp->next_seq / total : 100.0);
}

int rp_run(struct replay *rp, const struct rp_hooks *h)
{
	uint64_t total = (uint64_t)tdb_event_count(rp->db);
	uint64_t anom_before = 0;
	struct timespec last = { 0 };
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct rp_event ev;
	bool show = rp->opts.progress && isatty(2);
	int ret;

	ret = tdb_cursor_open(rp->db, rp->next_seq, rp->opts.until_seq ? rp->opts.until_seq :
			      UINT64_MAX, &cur);
	if (ret)
		return ret;
	while ((ret = tdb_cursor_next(cur, &raw)) == 1) {
		const struct rp_snap *s = rp->next_snap < rp->nr_snaps ? &rp->snaps[rp->next_snap] : NULL;
		const struct rp_snap *seed = &rp->snaps[rp->seed_snap];
		bool in_seed_read = (int64_t)raw.seq < seed->seq_end;

		if (rp->bwin_open && (int64_t)raw.seq >= rp->bwin_end) {
			ret = rp_buddy_window_close(rp);
			if (ret)
				goto out;
		}
		/* A later snapshot ends here: score it before this event. */
		while (s && s->seq_end >= 0 && (uint64_t)s->seq_end <= raw.seq) {
			ret = rp_score_snapshot(rp, s, NULL);
			if (!ret && h && h->at_snapshot)
				ret = h->at_snapshot(h->arg, rp, &rp->scores[rp->nr_scores - 1]);
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
		while (rp->next_lost < rp->nr_lost && rp->lost[rp->next_lost].seq <= raw.seq) {
			if (rp->lost[rp->next_lost].count != 0)
				lost_window(rp);
			rp->next_lost++;
		}
		while (rp->open_attempt < 0 && rp->next_attempt < rp->nr_attempts &&
		       rp->attempts[rp->next_attempt].seq_begin <= raw.seq) {
			ret = attempt_begin(rp, h, rp->next_attempt++);
			if (ret)
				goto out;
		}

		rp_decode(rp, &raw, &ev);
		if (h && h->before_event) {
			ret = h->before_event(h->arg, rp, &ev);
			if (ret)
				goto out;
		}
		model_set_event(rp->m, ev.seq, ev.ts);
		if (in_seed_read)
			anom_before = model_anomaly_total(rp->m);
		if (s && s->seq_begin >= 0 && (int64_t)raw.seq >= s->seq_begin &&
		    ev.pfn != UINT64_MAX && ev.kind != RP_EV_OTHER)
			touch(rp, ev.pfn, ev.kind == RP_EV_EXTFRAG ? ev.fallback_order : ev.order);
		if (in_seed_read && seed_already_has(rp, &ev)) {
			rp->seed_skipped++;
			ret = 0;
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
			struct rp_attempt *a = &rp->attempts[rp->open_attempt];

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
		if (show && !(rp->applied & 0xffff))
			progress(rp, total, &last);
	}
	if (ret < 0)
		goto out;
	ret = 0;
	/* Snapshots at the very end of the trace (after the last event). */
	if (rp->opts.until_seq == UINT64_MAX || rp->opts.until_seq >= total) {
		while (rp->next_snap < rp->nr_snaps) {
			const struct rp_snap *s = &rp->snaps[rp->next_snap];

			if (s->seq_end >= 0) {
				ret = rp_score_snapshot(rp, s, NULL);
				if (!ret && h && h->at_snapshot)
					ret = h->at_snapshot(h->arg, rp, &rp->scores[rp->nr_scores - 1]);
				if (ret)
					goto out;
			}
			rp->next_snap++;
		}
	}
out:
	if (show)
		fprintf(stderr, "\r%60s\r", "");
	tdb_cursor_close(cur);
	return ret;
}

int rp_parse_time(struct tdb *db, const char *spec, uint64_t *seq, uint64_t *ts)
{
	sqlite3 *sq = tdb_sqlite(db);
	struct tdb_cursor *cur;
	struct bc_event ev;
	sqlite3_stmt *st;
	uint64_t t, from = 0;
	char *end;
	int ret;

	if (!strncmp(spec, "marker:", 7)) {
		const char *text = spec + 7;

		if (sqlite3_prepare_v2(sq, "SELECT seq, ts FROM markers WHERE substr(text, 1, "
				       "length(?1)) = ?1 ORDER BY ts, seq LIMIT 1", -1, &st,
				       NULL) != SQLITE_OK)
			return bc_error(BC_E_DB, "%s: markers: %s", tdb_path(db), sqlite3_errmsg(sq));
		sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return bc_error(BC_E_NOENT, "%s: no trace_marker begins with '%s' (see "
					"'bigchunk query %s \"SELECT ts, text FROM markers\"')",
					tdb_path(db), text, tdb_path(db));
		}
		*seq = (uint64_t)sqlite3_column_int64(st, 0);
		*ts = (uint64_t)sqlite3_column_int64(st, 1);
		sqlite3_finalize(st);
		return 0;
	}
	t = strtoull(spec, &end, 0);
	if (end == spec || *end)
		return bc_error(BC_E_INVAL, "'%s' is not a time: give ns of the trace clock or "
				"marker:TEXT", spec);
	/* Start from the chunk before the first one that ends at or after t. */
	if (sqlite3_prepare_v2(sq, "SELECT min(first_seq) FROM event_chunks WHERE ts_last >= ?",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, (int64_t)t);
		if (sqlite3_step(st) == SQLITE_ROW)
			from = (uint64_t)sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	ret = tdb_cursor_open(db, from, UINT64_MAX, &cur);
	if (ret)
		return ret;
	*seq = (uint64_t)tdb_event_count(db);
	*ts = t;
	while ((ret = tdb_cursor_next(cur, &ev)) == 1) {
		if (ev.ts >= t) {
			*seq = ev.seq;
			break;
		}
	}
	tdb_cursor_close(cur);
	return ret < 0 ? ret : 0;
}
