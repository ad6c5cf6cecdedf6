// SPDX-License-Identifier: GPL-2.0
/*
 * First pass: find the real contiguous attempts in the trace.
 *
 * alloc_contig_range() isolates its range, drains the pcp lists (a burst of
 * mm_page_pcpu_drain from the calling task), isolates and migrates the in-use pages
 * (mm_compaction_isolate_migratepages per pageblock, mm_migrate_pages* with reason
 * contig_range), then tests the range (test_pages_isolated) and on success takes the
 * free pages (mm_compaction_isolate_freepages), all from one task. offline_pages()
 * repeats migrate (reason memory_hotplug) and test until the test passes. A candidate
 * rejected before isolation leaves no event, so only isolated attempts are found.
 *
 * Per task we track the start of its latest drain burst; the attempt begins there
 * (the kernel isolated just before it) or, without a burst, at its first isolate or
 * migrate event.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-trace.h"
#include "trace/tr-attempt.h"
#include "trace/tr-event.h"

struct task_state {
	int pid;
	int64_t drain_begin;		/* first seq of the current drain burst, -1 */
	int64_t att_begin;		/* first seq of the open attempt, -1 */
	uint64_t att_ts;
	uint64_t first_start;		/* start_pfn of the first isolate_migratepages */
	bool have_start;
	int reason;			/* migrate reason seen, -1 */
	uint64_t migrated, failed;
	int open;			/* index in the attempts found of a tested attempt still
					 * taking free pages or retrying (offline), -1 */
};

#define MAX_TASKS 64

static struct task_state *task_find(struct task_state *t, int nr, int pid)
{
	int i;

	for (i = 0; i < nr; i++)
		if (t[i].pid == pid)
			return &t[i];
	return NULL;
}

/* Does @t hold an attempt under way (its range and begin would be lost with it)? */
static bool task_busy(const struct task_state *t)
{
	return t->att_begin >= 0 || t->open >= 0 || t->have_start;
}

static struct task_state *task_get(struct task_state *t, int *nr, int pid)
{
	struct task_state *s = task_find(t, *nr, pid);
	int i;

	if (s)
		return s;
	if (*nr == MAX_TASKS) {
		/* Evict a task with no attempt under way: only a drain burst is lost. */
		for (i = 0; i < MAX_TASKS && task_busy(&t[i]); i++)
			;
		if (i == MAX_TASKS)
			i = pid % MAX_TASKS;
	} else {
		i = (*nr)++;
	}
	t[i] = (struct task_state){ .pid = pid, .drain_begin = -1, .att_begin = -1,
				    .reason = -1, .open = -1 };
	return &t[i];
}

/* The attempts found so far. */
struct found {
	struct tr_attempt *v;
	int nr, cap;
};

static int push(struct found *f, const struct tr_attempt *a)
{
	if (f->nr == f->cap) {
		struct tr_attempt *n;

		f->cap = f->cap ? f->cap * 2 : 8;
		n = realloc(f->v, (size_t)f->cap * sizeof(*n));
		if (!n)
			return bc_error(BC_E_NOMEM, "out of memory");
		f->v = n;
	}
	f->v[f->nr++] = *a;
	return 0;
}

static int cmp_begin(const void *a, const void *b)
{
	const struct tr_attempt *x = a, *y = b;

	return x->seq_begin < y->seq_begin ? -1 : x->seq_begin > y->seq_begin;
}

/* An isolate or migrate event of task @t: an attempt is under way (or goes on). */
static void on_migrate(struct found *f, struct task_state *t, const struct tr_event *ev,
		       uint64_t pb)
{
	if (ev->kind == TR_EV_MIGRATE_END || ev->kind == TR_EV_MIGRATE_START) {
		if (ev->reason != TR_MR_CONTIG_RANGE && ev->reason != TR_MR_MEMORY_HOTPLUG)
			return;		/* compaction, NUMA ...: not an attempt */
		t->reason = ev->reason;
		if (ev->kind == TR_EV_MIGRATE_END) {
			t->migrated += ev->succeeded;
			t->failed += ev->failed;
		}
	}
	if (t->open >= 0) {
		struct tr_attempt *a = &f->v[t->open];

		/* Offline retries: the same attempt goes on. */
		if (a->kind == TR_ATTEMPT_OFFLINE && !a->success) {
			a->seq_end = ev->seq;
			return;
		}
		t->open = -1;
	}
	if (t->att_begin < 0) {
		t->att_begin = t->drain_begin >= 0 ? t->drain_begin : (int64_t)ev->seq;
		t->att_ts = ev->ts;
		t->drain_begin = -1;
	}
	if (ev->kind == TR_EV_ISOLATE_MIGRATE && !t->have_start) {
		t->first_start = ev->start_pfn & ~(pb - 1);
		t->have_start = true;
	}
}

/* test_pages_isolated of task @t: an attempt is tested (a new one, or an offline retry). */
static int on_test(struct found *f, struct task_state *t, const struct tr_event *ev,
		   uint64_t blk)
{
	struct tr_attempt a = { 0 };
	bool success = ev->fin_pfn >= ev->end_pfn;
	int ret;

	if (t->open >= 0 && f->v[t->open].kind == TR_ATTEMPT_OFFLINE &&
	    f->v[t->open].end_pfn == ev->end_pfn) {
		struct tr_attempt *o = &f->v[t->open];

		o->seq_test = o->seq_end = ev->seq;
		o->success = success;
		o->fin_pfn = ev->fin_pfn;
		o->nr_tests++;
		o->migrated += t->migrated;
		o->migrate_failed += t->failed;
		t->migrated = t->failed = 0;
		return 0;
	}
	a.end_pfn = ev->end_pfn;
	a.outer_start = ev->start_pfn;
	a.start_pfn = t->have_start && t->first_start >= ev->start_pfn &&
		      t->first_start < ev->end_pfn ? t->first_start : ev->start_pfn;
	a.seq_begin = t->att_begin >= 0 ? (uint64_t)t->att_begin :
		      (t->drain_begin >= 0 ? (uint64_t)t->drain_begin : ev->seq);
	a.ts_begin = t->att_begin >= 0 ? t->att_ts : ev->ts;
	a.seq_test = a.seq_end = ev->seq;
	a.ts_test = ev->ts;
	a.pid = ev->pid;
	a.success = success;
	a.fin_pfn = ev->fin_pfn;
	a.nr_tests = 1;
	a.migrated = t->migrated;
	a.migrate_failed = t->failed;
	/* Offline works on whole memory blocks with reason memory_hotplug. */
	if (t->reason == TR_MR_MEMORY_HOTPLUG ||
	    (t->reason < 0 && blk && a.end_pfn - a.start_pfn == blk && !(a.start_pfn % blk)))
		a.kind = TR_ATTEMPT_OFFLINE;
	else
		a.kind = TR_ATTEMPT_CONTIG;
	ret = push(f, &a);
	if (ret)
		return ret;
	t->open = f->nr - 1;
	t->att_begin = t->drain_begin = -1;
	t->have_start = false;
	t->reason = -1;
	t->migrated = t->failed = 0;
	return 0;
}

int tr_find_attempts(struct tdb *db, const struct tr_decoder *dec,
		     const struct tr_attempt_geometry *geo, struct tr_attempt **out, int *nr)
{
	uint64_t pb = 1ull << geo->pageblock_order;
	uint64_t blk = geo->memory_block_pages;
	struct task_state tasks[MAX_TASKS];
	struct found f = { 0 };
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	int ntasks = 0, ret;

	*out = NULL;
	*nr = 0;
	ret = tdb_cursor_open(db, 0, UINT64_MAX, &cur);
	if (ret)
		return ret;
	while ((ret = tdb_cursor_next(cur, &raw)) == 1) {
		struct task_state *t;

		switch (tr_decoder_kind(dec, raw.type)) {
		case TR_EV_PCPU_DRAIN: case TR_EV_ISOLATE_MIGRATE: case TR_EV_MIGRATE_START:
		case TR_EV_MIGRATE_END: case TR_EV_TEST_ISOLATED: case TR_EV_ISOLATE_FREE:
			break;
		case TR_EV_OTHER:
			continue;
		default:
			/* Allocations and frees of the task are migration work inside an
			 * attempt, but they end a drain burst. Only tasks already followed
			 * matter: every other task's pages would crowd the table and evict
			 * an attempt's task in the middle of a long migration. */
			t = task_find(tasks, ntasks, raw.pid);
			if (t && t->att_begin < 0)
				t->drain_begin = -1;
			continue;
		}
		tr_decode(dec, &raw, &ev);
		t = task_get(tasks, &ntasks, ev.pid);
		switch (ev.kind) {
		case TR_EV_PCPU_DRAIN:
			if (t->att_begin < 0 && t->drain_begin < 0)
				t->drain_begin = (int64_t)ev.seq;
			break;
		case TR_EV_ISOLATE_MIGRATE:
		case TR_EV_MIGRATE_START:
		case TR_EV_MIGRATE_END:
			on_migrate(&f, t, &ev, pb);
			break;
		case TR_EV_TEST_ISOLATED:
			ret = on_test(&f, t, &ev, blk);
			if (ret)
				goto out;
			break;
		case TR_EV_ISOLATE_FREE:
			/* isolate_freepages_range() after a successful test: part of it. */
			if (t->open >= 0) {
				struct tr_attempt *a = &f.v[t->open];

				if (a->success && ev.start_pfn >= a->outer_start &&
				    ev.start_pfn < a->end_pfn)
					a->seq_end = ev.seq;
			}
			break;
		default:
			break;
		}
	}
out:
	tdb_cursor_close(cur);
	if (ret < 0) {
		free(f.v);
		return ret;
	}
	if (f.nr > 1)
		qsort(f.v, f.nr, sizeof(*f.v), cmp_begin);
	*out = f.v;
	*nr = f.nr;
	return 0;
}

bool tr_offline_probe_marker(struct tdb *db, int64_t id, const char *what, uint64_t *seq,
			     uint64_t *ts)
{
	char prefix[96];

	snprintf(prefix, sizeof(prefix), "bigchunk probe %" PRId64 " offline %s ", id, what);
	return tdb_marker_find(db, prefix, false, seq, ts) == 1;
}

static bool overlaps_found(const struct tr_attempt *v, int nr, uint64_t s, uint64_t e)
{
	int i;

	for (i = 0; i < nr; i++)
		if (v[i].seq_begin <= e && v[i].seq_end >= s)
			return true;
	return false;
}

/*
 * The failed offline probes of @db: @refused those whose isolation has_unmovable_pages()
 * refused (culprit "unmovable page" with its pfn), else those that failed after it.
 */
static int probe_attempts(struct tdb *db, bool refused, struct tr_attempt **v, int *nr)
{
	struct found f = { .v = *v, .nr = *nr, .cap = *nr };
	struct tdb_probe *p;
	int n, i, ret;

	ret = tdb_probes(db, &p, &n);
	for (i = 0; !ret && i < n; i++) {
		struct tr_attempt a = { .kind = TR_ATTEMPT_OFFLINE, .from_probe = true };
		uint64_t bseq, eseq, bts, ets;
		bool after = !strcmp(p[i].culprit, "migration failed") ||
			     !strcmp(p[i].culprit, "timeout");
		bool at = !strcmp(p[i].culprit, "unmovable page") && p[i].culprit_pfn >= 0;

		if (strcmp(p[i].kind, "offline") || p[i].success || p[i].start_pfn < 0 ||
		    !(refused ? at : after) ||
		    !tr_offline_probe_marker(db, p[i].id, "begin", &bseq, &bts) ||
		    !tr_offline_probe_marker(db, p[i].id, "end", &eseq, &ets) || eseq <= bseq ||
		    overlaps_found(f.v, *nr, bseq, eseq - 1))
			continue;
		a.start_pfn = a.outer_start = (uint64_t)p[i].start_pfn;
		a.end_pfn = (uint64_t)p[i].end_pfn;
		a.seq_begin = bseq;
		a.seq_test = a.seq_end = eseq - 1;
		a.ts_begin = bts;
		a.ts_test = ets;
		a.fin_pfn = p[i].culprit_pfn >= 0 ? (uint64_t)p[i].culprit_pfn : a.end_pfn;
		ret = push(&f, &a);
	}
	free(p);
	if (ret) {
		if (f.v != *v)
			free(f.v);
		return ret;
	}
	if (f.nr > 1)
		qsort(f.v, (size_t)f.nr, sizeof(*f.v), cmp_begin);
	*v = f.v;
	*nr = f.nr;
	return 0;
}

int tr_probe_attempts(struct tdb *db, struct tr_attempt **v, int *nr)
{
	return probe_attempts(db, false, v, nr);
}

int tr_probe_refusals(struct tdb *db, struct tr_attempt **v, int *nr)
{
	return probe_attempts(db, true, v, nr);
}

/* The zone holding @pfn: the last whose first pfn is at or below it. */
static int zone_of(const uint64_t *zone_start, int nr_zones, uint64_t pfn)
{
	int z = 0;

	while (z + 1 < nr_zones && zone_start[z + 1] <= pfn)
		z++;
	return z;
}

/*
 * Does @b go on with the search of alloc_contig_pages() that @a was part of? The same
 * task, the same size, further on: a lower zone, or a higher pfn in the same zone
 * (for_each_zone_zonelist_nodemask() from the highest zone, pfn += nr_pages within it).
 */
static bool same_call(const struct tr_attempt *a, const struct tr_attempt *b,
		      const uint64_t *zone_start, int nr_zones)
{
	int za = zone_of(zone_start, nr_zones, a->start_pfn);
	int zb = zone_of(zone_start, nr_zones, b->start_pfn);

	return b->pid == a->pid && b->end_pfn - b->start_pfn == a->end_pfn - a->start_pfn &&
	       (zb < za || (zb == za && b->start_pfn > a->start_pfn));
}

/* A hugetlb_1g probe's failed step with no attempt in its window (see the header). */
static int probe_miss(struct tdb *db, const struct tdb_probe *p, struct found *f, int nr0)
{
	struct tr_attempt a = { .kind = TR_ATTEMPT_CONTIG, .from_probe = true, .pid = -1 };
	uint64_t bseq, eseq, bts, ets;
	char prefix[96];
	int i;

	snprintf(prefix, sizeof(prefix), "bigchunk probe %" PRId64 " hugetlb_1g step %" PRId64
		 " begin ", p->id, p->obtained);
	if (tdb_marker_find(db, prefix, false, &bseq, &bts) != 1)
		return 0;
	snprintf(prefix, sizeof(prefix), "bigchunk probe %" PRId64 " hugetlb_1g step %" PRId64
		 " end ", p->id, p->obtained);
	if (tdb_marker_find(db, prefix, false, &eseq, &ets) != 1 || eseq <= bseq)
		return 0;
	for (i = 0; i < nr0; i++)
		if (f->v[i].kind == TR_ATTEMPT_CONTIG && f->v[i].seq_begin >= bseq &&
		    f->v[i].seq_begin < eseq)
			return 0;	/* the step's own attempts stand for it */
	a.end_pfn = 1ull << 18;		/* 1 GiB of 4 KiB pages */
	a.seq_begin = bseq;
	a.seq_test = a.seq_end = eseq - 1;
	a.ts_begin = bts;
	a.ts_test = ets;
	return push(f, &a);
}

void tr_contig_mark(struct tr_attempt *v, int nr, const uint64_t *zone_start, int nr_zones)
{
	int i, j;

	for (i = 0; i < nr; i++) {
		struct tr_attempt *a = &v[i];

		a->continued = false;
		if (a->kind != TR_ATTEMPT_CONTIG || a->success || a->from_probe)
			continue;
		for (j = i + 1; j < nr && (v[j].kind != TR_ATTEMPT_CONTIG || v[j].pid != a->pid); j++)
			;
		a->continued = j < nr && same_call(a, &v[j], zone_start, nr_zones);
	}
}

int tr_contig_calls(struct tdb *db, const uint64_t *zone_start, int nr_zones,
		    struct tr_attempt **v, int *nr)
{
	struct found f = { .v = *v, .nr = *nr, .cap = *nr };
	struct tdb_probe *p;
	int n, i, ret = tdb_probes(db, &p, &n);

	if (ret)
		return ret;
	for (i = 0; !ret && i < n; i++)
		if (!strcmp(p[i].kind, "hugetlb_1g") && p[i].obtained < p[i].requested)
			ret = probe_miss(db, &p[i], &f, *nr);
	free(p);
	if (ret) {
		if (f.v != *v)
			free(f.v);
		return ret;
	}
	if (f.nr > 1)
		qsort(f.v, (size_t)f.nr, sizeof(*f.v), cmp_begin);
	tr_contig_mark(f.v, f.nr, zone_start, nr_zones);
	*v = f.v;
	*nr = f.nr;
	return 0;
}
