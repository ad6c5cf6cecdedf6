// SPDX-License-Identifier: GPL-2.0
/*
 * cap-live-convert.c - the second half of a recording: with tracing off and the
 * buffers flushed, each CPU's raw file is walked with kbuffer, the CPUs are merged by
 * timestamp (a min-heap keyed by (ts, cpu)) and every record goes to
 * cap_decode_record(). A sub-buffer that says events were missed before it marks its
 * first record (missed_events), which the decoder turns into a lost_events row; a gap
 * after a CPU's last record is stored here, since no record carries it.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "capture/cap-live-local.h"
#include "capture/capture.h"
#include "common/err.h"
#include "db/tdb.h"

struct stream {
	int cpu;
	const uint8_t *map;
	size_t len, off;		/* off: next sub-buffer */
	struct kbuffer *kbuf;
	void *data;			/* current record, NULL at the end */
	unsigned long long ts;
	unsigned long long last_ts;	/* of the last record handed out */
	long long missed;		/* owed to the next record: count, or -1 unknown */
	uint64_t bad_subbufs;
};

static void owe_missed(struct stream *s, long long m)
{
	if (!m)
		return;
	if (m < 0 || s->missed < 0)
		s->missed = -1;
	else
		s->missed += m;
}

/* Load sub-buffers until one has a record. Return: true with s->data set, or false. */
static bool stream_load(struct stream *s, size_t subbuf)
{
	while (s->off + subbuf <= s->len) {
		void *page = (void *)(s->map + s->off);

		s->off += subbuf;
		if (kbuffer_load_subbuffer(s->kbuf, page) < 0) {
			s->bad_subbufs++;
			owe_missed(s, -1);	/* whatever it held is gone */
			continue;
		}
		owe_missed(s, kbuffer_missed_events(s->kbuf));
		s->data = kbuffer_read_event(s->kbuf, &s->ts);
		if (s->data)
			return true;
	}
	s->data = NULL;
	return false;
}

static bool stream_next(struct stream *s, size_t subbuf)
{
	s->data = kbuffer_next_event(s->kbuf, &s->ts);
	if (s->data)
		return true;
	return stream_load(s, subbuf);
}

static bool stream_before(const struct stream *a, const struct stream *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->cpu < b->cpu);
}

static void heap_down(struct stream **h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		struct stream *t;

		if (l < n && stream_before(h[l], h[m]))
			m = l;
		if (r < n && stream_before(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void report_convert(struct live *lv, uint64_t t0, uint64_t now, uint64_t events,
			   uint64_t done, uint64_t total)
{
	struct cap_live_progress p = { .phase = CAP_LIVE_CONVERTING };
	struct cap_decode_stats st;

	cap_decoder_stats(lv->dec, &st);
	p.elapsed_ns = now - t0;
	p.events = events;
	p.lost = st.lost;
	p.bytes_done = done;
	p.bytes_total = total;
	live_progress(lv, &p, now);
}

/* The CPUs' streams, merged through a min-heap of the non-empty ones. */
struct merge {
	struct stream *s;		/* one per CPU */
	struct stream **heap;
	int n;				/* streams in the heap */
	size_t subbuf;
	uint64_t total;			/* raw bytes */
	uint64_t nrec;			/* records decoded */
	uint64_t t0;			/* mono ns: conversion began */
};

/* Map every CPU's raw file and load its first record. */
static int open_streams(struct live *lv, struct merge *mg)
{
	size_t subbuf = mg->subbuf;
	struct stream *s = mg->s;
	int i;

	for (i = 0; i < lv->ncpus; i++) {
		struct live_cpu *c = &lv->cpus[i];
		struct stat sb;

		s[i].cpu = c->cpu;
		if (fstat(c->fd, &sb) < 0)
			return bc_error(BC_E_IO, "%s: %m", c->path);
		s[i].len = (size_t)sb.st_size;
		mg->total += s[i].len;
		if (s[i].len % subbuf)
			live_note(lv, "cpu %d: raw data ends in a partial sub-buffer "
				  "(%zu bytes ignored)", c->cpu, s[i].len % subbuf);
		if (!s[i].len)
			continue;
		s[i].map = mmap(NULL, s[i].len, PROT_READ, MAP_PRIVATE, c->fd, 0);
		if (s[i].map == MAP_FAILED) {
			s[i].map = NULL;
			return bc_error(BC_E_NOMEM, "%s: mmap: %m", c->path);
		}
		madvise((void *)s[i].map, s[i].len, MADV_SEQUENTIAL);
		s[i].kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
		if (!s[i].kbuf)
			return bc_error(BC_E_NOMEM, "out of memory");
		if (stream_load(&s[i], subbuf))
			mg->heap[mg->n++] = &s[i];
	}
	lv->res->raw_bytes = mg->total;
	for (i = mg->n / 2 - 1; i >= 0; i--)
		heap_down(mg->heap, mg->n, i);
	return 0;
}

/* Every 64 k records: a stop request aborts, progress is reported. */
static int convert_tick(struct live *lv, struct merge *mg)
{
	uint64_t now = mono_ns();
	int i;

	if (stop_requested(lv))
		return bc_error(BC_E_INTR, "conversion interrupted after %llu records",
				(unsigned long long)mg->nrec);
	if (lv->o->progress && now - lv->prog_last_ns >= PROGRESS_NS) {
		uint64_t done = 0;

		for (i = 0; i < lv->ncpus; i++)
			done += mg->s[i].off;
		report_convert(lv, mg->t0, now, mg->nrec, done, mg->total);
	}
	return 0;
}

/* Hand every record to the decoder in (ts, cpu) order. */
static int decode_merged(struct live *lv, struct merge *mg)
{
	size_t subbuf = mg->subbuf;
	int ret;

	lv->prog_last_ns = mg->t0;
	lv->prog_last_events = 0;
	while (mg->n > 0) {
		struct stream *h = mg->heap[0];
		struct tep_record rec = {
			.ts = h->ts,
			.offset = h->off - subbuf + (size_t)kbuffer_curr_offset(h->kbuf),
			.missed_events = h->missed,
			.record_size = kbuffer_curr_size(h->kbuf),
			.size = kbuffer_event_size(h->kbuf),
			.data = h->data,
			.cpu = h->cpu,
			.ref_count = 1,
			.locked = 1,
		};

		h->missed = 0;
		h->last_ts = h->ts;
		ret = cap_decode_record(lv->dec, &rec, h->cpu);
		if (ret)
			return bc_error_prefix(ret, "cpu %d record at raw offset %llu", h->cpu,
					       (unsigned long long)rec.offset);
		if (!stream_next(h, subbuf))
			mg->heap[0] = mg->heap[--mg->n];
		heap_down(mg->heap, mg->n, 0);
		if (!(++mg->nrec & 0xffff)) {
			ret = convert_tick(lv, mg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* A gap at the very end of a CPU's data has no record to carry it: store it here. */
static int store_end_gaps(struct live *lv, struct merge *mg)
{
	struct stream *s = mg->s;
	int i, ret;

	for (i = 0; i < lv->ncpus; i++) {
		if (s[i].missed) {
			ret = tdb_add_lost(lv->db, s[i].cpu, s[i].last_ts, lv->t_off, s[i].missed,
					   tdb_next_seq(lv->db));
			if (ret)
				return ret;
			lv->end_gaps++;
			if (s[i].missed > 0)
				lv->end_lost += (uint64_t)s[i].missed;
		}
		if (s[i].bad_subbufs)
			live_note(lv, "cpu %d: %llu unreadable sub-buffers (counted as lost)",
				  s[i].cpu, (unsigned long long)s[i].bad_subbufs);
	}
	return 0;
}

int live_convert(struct live *lv)
{
	struct merge mg = { .subbuf = (size_t)lv->subbuf_size, .t0 = mono_ns() };
	int i, ret;

	mg.s = calloc((size_t)lv->ncpus, sizeof(*mg.s));
	mg.heap = calloc((size_t)lv->ncpus, sizeof(*mg.heap));
	if (!mg.s || !mg.heap)
		ret = bc_error(BC_E_NOMEM, "out of memory");
	else
		ret = open_streams(lv, &mg);
	if (!ret)
		ret = decode_merged(lv, &mg);
	if (!ret)
		ret = store_end_gaps(lv, &mg);
	if (!ret && lv->o->progress)
		report_convert(lv, mg.t0, mono_ns(), mg.nrec, mg.total, mg.total);
	for (i = 0; mg.s && i < lv->ncpus; i++) {
		if (mg.s[i].kbuf)
			kbuffer_free(mg.s[i].kbuf);
		if (mg.s[i].map)
			munmap((void *)mg.s[i].map, mg.s[i].len);
	}
	free(mg.s);
	free(mg.heap);
	lv->res->convert_ns = mono_ns() - mg.t0;
	return ret;
}
