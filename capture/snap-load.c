// SPDX-License-Identifier: GPL-2.0
/*
 * Storing snapshots in a capture (snap_load_dir/snap_load_live) and placing them in the
 * trace (snap_align). Reading them back is db/tdb-snap.c's.
 *
 * A load is one snapshot writer (db/tdb-snapwrite.h, one savepoint): every file is
 * stored and parsed as the walk delivers it, the page runs are inserted chunk by chunk
 * (memory stays bounded on a 268 M-PFN machine), and only when everything is in and
 * consistent is the snapshot committed (complete = 1). Any error rolls it back.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/snap-local.h"
#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-pages.h"
#include "db/tdb-snapwrite.h"
#include "db/tdb-trace.h"

struct loader {
	struct tdb_snapwrite *w;
	const struct snap_src *src;
	struct snap_tables t;
	int64_t block_size;		/* memory/block_size_bytes, -1 if absent */
	int pb_order, pb_line;		/* pagetypeinfo's "Page block order", -1: not read */
	char release[128];		/* uname */
	struct tdb *db;
	unsigned int flags;		/* SNAP_LOAD_* */
	const struct snap_walk_result *res;	/* taken_at of a directory is read first */
};

static int load_error(struct loader *L, int ret, const char *name)
{
	return snap_src_error(L->src, ret, name);
}

static int check_same_trace(struct tdb *db, struct loader *L,
			    const struct snap_walk_result *res);

static struct snap_memblock *memblock(struct loader *L, int64_t block)
{
	struct snap_tables *t = &L->t;
	struct snap_memblock *b;

	if (t->nr_blocks && t->blocks[t->nr_blocks - 1].block == block)
		return &t->blocks[t->nr_blocks - 1];
	if (snap_grow(&t->blocks, t->nr_blocks, sizeof(*t->blocks)))
		return NULL;
	b = &t->blocks[t->nr_blocks++];
	memset(b, 0, sizeof(*b));
	b->block = block;
	b->start_pfn = UINT64_MAX;
	return b;
}

static struct snap_hugepages *hugepool(struct loader *L, int64_t size_kb)
{
	struct snap_tables *t = &L->t;

	if (t->nr_huge && t->huge[t->nr_huge - 1].size_kb == size_kb)
		return &t->huge[t->nr_huge - 1];
	if (snap_grow(&t->huge, t->nr_huge, sizeof(*t->huge)))
		return NULL;
	t->huge[t->nr_huge] = (struct snap_hugepages){ size_kb, -1, -1 };
	return &t->huge[t->nr_huge++];
}

/* A small sysfs value: the text without the trailing newline, copied to @buf. */
static int one_word(const char *content, char *buf, size_t size)
{
	size_t n = strcspn(content, "\n");

	if (n >= size || content[n + (content[n] == '\n')])
		return bc_error(BC_E_FORMAT, "expected one line of at most %zu characters",
				size - 1);
	memcpy(buf, content, n);
	buf[n] = 0;
	return 0;
}

static int parse_u64(const char *content, int base, int64_t *v)
{
	char buf[32], *e;
	int ret = one_word(content, buf, sizeof(buf));

	if (ret)
		return ret;
	if (base == 16 && !strncmp(buf, "0x", 2))
		memmove(buf, buf + 2, strlen(buf + 2) + 1);
	*v = strtoll(buf, &e, base);
	if (!*buf || *e || *v < 0)
		return bc_error(BC_E_FORMAT, "expected a %s number, got \"%s\"",
				base == 16 ? "hexadecimal" : "decimal", buf);
	return 0;
}

static int parse_file(struct loader *L, const char *name, const char *content)
{
	static const struct {
		const char *name;
		int (*parse)(const char *text, struct snap_tables *t);
	} parsers[] = {
		{ "zoneinfo", snap_parse_zoneinfo },
		{ "buddyinfo", snap_parse_buddyinfo },
		{ "pagetypeinfo", snap_parse_pagetypeinfo },
		{ "meminfo", snap_parse_meminfo },
		{ "vmstat", snap_parse_vmstat },
		{ "iomem", snap_parse_iomem },
	};
	long long n;
	char file[32];
	size_t i;
	int64_t v;
	int off = 0;

	for (i = 0; i < sizeof(parsers) / sizeof(parsers[0]); i++) {
		if (!strcmp(name, parsers[i].name)) {
			int ret = parsers[i].parse(content, &L->t);

			if (!ret && !strcmp(name, "pagetypeinfo"))
				ret = snap_parse_pageblock_order(content, &L->pb_order,
								 &L->pb_line);
			return ret;
		}
	}
	if (!strcmp(name, "uname"))
		return one_word(content, L->release, sizeof(L->release));
	if (!strcmp(name, "memory/block_size_bytes")) {
		int ret = parse_u64(content, 16, &L->block_size);

		if (!ret && (L->block_size < 4096 || L->block_size % 4096))
			ret = bc_error(BC_E_FORMAT, "block size %" PRId64 " is not a multiple of "
				       "4096", L->block_size);
		return ret;
	}
	if (sscanf(name, "memory/memory%lld/%31s%n", &n, file, &off) == 2 && !name[off]) {
		struct snap_memblock *b = memblock(L, n);

		if (!b)
			return bc_error(BC_E_NOMEM, "out of memory");
		if (!strcmp(file, "phys_index")) {
			int ret = parse_u64(content, 16, &v);

			if (ret)
				return ret;
			b->start_pfn = (uint64_t)v;	/* scaled by the block size at the end */
			return 0;
		}
		if (!strcmp(file, "state"))
			return one_word(content, b->state, sizeof(b->state));
		if (!strcmp(file, "valid_zones"))
			return one_word(content, b->valid_zones, sizeof(b->valid_zones));
		return 0;
	}
	if (sscanf(name, "hugepages/hugepages-%lldkB/%31s%n", &n, file, &off) == 2 &&
	    !name[off]) {
		struct snap_hugepages *h = hugepool(L, n);
		int ret;

		if (!h)
			return bc_error(BC_E_NOMEM, "out of memory");
		ret = parse_u64(content, 10, &v);
		if (ret)
			return ret;
		if (!strcmp(file, "nr_hugepages"))
			h->nr = v;
		else if (!strcmp(file, "free_hugepages"))
			h->free = v;
		return 0;
	}
	if (!strcmp(name, "longterm_pins")) {
		struct tdb_pins pins;
		int ret = tdb_pins_parse(content, &pins);

		tdb_pins_free(&pins);
		return ret;
	}
	return 0;			/* taken_at: stored only */
}

static int loader_text(void *arg, const char *name, const char *content, size_t len)
{
	struct loader *L = arg;
	int ret;

	ret = tdb_snap_add_file(L->w, name, content, len);
	if (ret)
		return ret;
	ret = parse_file(L, name, content);
	if (ret)
		return load_error(L, ret, name);
	return 0;
}

static int loader_pages(void *arg, uint64_t pfn, uint32_t n, const uint64_t *flags,
			const uint64_t *count)
{
	struct loader *L = arg;

	return tdb_snap_add_pages(L->w, pfn, n, flags, count);
}

/*
 * The text files are in: check them together, and a directory against the trace, before
 * the page files are read; bound those by the machine's PFN span. /proc/kpageflags ends
 * at max_pfn rounded up to a memory section (get_max_dump_pfn()); 1 GiB is a whole
 * number of sections everywhere.
 */
static int loader_max_pfns(void *arg, uint64_t *max)
{
	struct loader *L = arg;
	const struct snap_tables *t = &L->t;
	uint64_t end = 0;
	int i, ret;

	ret = snap_check_tables(L->src, t, L->pb_order, L->pb_line);
	if (!ret && L->src->dir && !(L->flags & SNAP_LOAD_FORCE))
		ret = check_same_trace(L->db, L, L->res);
	if (ret)
		return ret;
	for (i = 0; i < t->nr_zones; i++)
		if ((uint64_t)(t->zones[i].start_pfn + t->zones[i].spanned) > end)
			end = (uint64_t)(t->zones[i].start_pfn + t->zones[i].spanned);
	for (i = 0; i < t->nr_ram; i++)
		if (t->ram[i].end_pfn > end)
			end = t->ram[i].end_pfn;
	*max = (end + (1ull << 18) - 1) & ~((1ull << 18) - 1);
	return 0;
}

/* The page files must cover every zone's span; memory blocks get their pfns. */
static int check_tables(struct loader *L, uint64_t nr_pfns)
{
	struct snap_tables *t = &L->t;
	int i;

	for (i = 0; i < t->nr_zones; i++) {
		const struct snap_zone *z = &t->zones[i];
		uint64_t end = (uint64_t)z->start_pfn + (uint64_t)z->spanned;

		if (end > nr_pfns)
			return load_error(L, bc_error(BC_E_TRUNCATED, "covers PFNs [0, %" PRIu64
						      ") (%" PRIu64 " bytes) but node %d zone %s "
						      "spans [%" PRId64 ", %" PRIu64 "): the file "
						      "is short", nr_pfns, nr_pfns * 8, z->node,
						      z->name, z->start_pfn, end), "kpageflags");
	}
	if (t->nr_blocks && L->block_size < 0)
		return load_error(L, bc_error(BC_E_NOENT, "missing"), "memory/block_size_bytes");
	for (i = 0; i < t->nr_blocks; i++) {
		struct snap_memblock *b = &t->blocks[i];

		if (b->start_pfn == UINT64_MAX || !b->state[0]) {
			char name[64];

			snprintf(name, sizeof(name), "memory/memory%" PRId64 "/%s", b->block,
				 b->start_pfn == UINT64_MAX ? "phys_index" : "state");
			return load_error(L, bc_error(BC_E_NOENT, "missing"), name);
		}
		b->nr_pfns = (uint64_t)L->block_size / 4096;
		b->start_pfn *= b->nr_pfns;
	}
	for (i = 0; i < t->nr_huge; i++)
		if (t->huge[i].nr < 0 || t->huge[i].free < 0)
			return bc_error(BC_E_NOENT, "hugepages-%" PRId64 "kB: nr_hugepages or "
					"free_hugepages missing", t->huge[i].size_kb);
	return 0;
}

static int load(struct tdb *db, const struct snap_src *src, const char *label,
		struct snap_marker *m, unsigned int flags, int64_t *snap_id)
{
	struct snap_walk_result res;
	struct loader L = { .src = src, .block_size = -1, .pb_order = -1, .db = db,
			    .flags = flags, .res = &res };
	struct snap_sink sink = { .text = loader_text, .pages = loader_pages,
				  .max_pfns = loader_max_pfns, .arg = &L };
	int64_t id;
	int ret;

	/* the time check reads the trace's events: store them outside the snapshot's savepoint */
	ret = src->dir ? tdb_flush(db) : 0;
	if (!ret)
		ret = tdb_snap_begin(db, label, &L.w);
	if (ret)
		return ret;
	ret = snap_walk(src, m, &sink, &res);
	if (!ret)
		ret = check_tables(&L, res.nr_pfns);
	if (!ret)
		ret = tdb_snap_add_tables(L.w, &L.t);
	id = tdb_snap_id(L.w);
	if (!ret)
		ret = tdb_snap_commit(L.w, res.mono_begin, res.mono_end, res.nr_pfns);
	if (ret)
		tdb_snap_abort(L.w);
	else if (snap_id)
		*snap_id = id;
	snap_tables_release(&L.t);
	return ret;
}

int snap_load_dir_flags(struct tdb *db, const char *dir, const char *label, unsigned int flags,
			int64_t *snap_id)
{
	struct snap_src src = { .dir = dir, .root = "" };

	return load(db, &src, label, NULL, flags, snap_id);
}

int snap_load_dir(struct tdb *db, const char *dir, const char *label, int64_t *snap_id)
{
	return snap_load_dir_flags(db, dir, label, 0, snap_id);
}

int snap_load_live(struct tdb *db, const char *label, struct snap_marker *m,
		   int64_t *snap_id)
{
	struct snap_src src = { .dir = NULL, .root = "" };
	struct snap_marker mk;

	if (m && !m->label && snap_label_valid(label)) {
		mk = *m;
		mk.label = label;	/* markers carry the db label when none is given */
		m = &mk;
	}
	return load(db, &src, label, m, 0, snap_id);
}

/* ---- alignment ---- */

struct mark {
	int64_t seq, ts;
	uint64_t mono;
	bool end;
};

/* The snapshot begin/end markers of the trace, by ts then seq. */
static int load_markers(struct tdb *db, struct mark **out, int *nr)
{
	struct tdb_marker *rows;
	struct mark *v = NULL;
	int nrows, n = 0, i, ret;

	ret = tdb_markers_by_ts(db, SNAP_MARKER_PREFIX "%", &rows, &nrows);
	if (ret)
		return ret;
	for (i = 0; !ret && i < nrows; i++) {
		struct mark mk;

		if (snap_marker_parse(rows[i].text, NULL, &mk.end, &mk.mono) != 1)
			continue;
		mk.seq = (int64_t)rows[i].seq;
		mk.ts = (int64_t)rows[i].ts;
		ret = snap_grow(&v, n, sizeof(*v));
		if (!ret)
			v[n++] = mk;
	}
	tdb_markers_free(rows, nrows);
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*nr = n;
	return 0;
}

static const struct mark *find_mark(const struct mark *v, int n, uint64_t mono, bool end)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].mono == mono && v[i].end == end)
			return &v[i];
	return NULL;
}

int snap_align(struct tdb *db, int *nr_marked)
{
	struct tdb_snap_info *snaps = NULL;
	struct tdb_snap_place *places = NULL;
	struct mark *marks = NULL;
	int nsnaps = 0, nmarks = 0, marked = 0, i, ret;
	char *clock = NULL;
	bool mono;

	ret = tdb_flush(db);		/* tdb_seq_at_ts() reads event_chunks */
	if (!ret)
		ret = tdb_snap_list(db, &snaps, &nsnaps);
	if (ret || !nsnaps)
		goto out;
	ret = load_markers(db, &marks, &nmarks);
	if (ret)
		goto out;
	places = calloc(nsnaps, sizeof(*places));
	if (!places) {
		ret = bc_error(BC_E_NOMEM, "snapshot align: out of memory");
		goto out;
	}
	clock = tdb_get_meta(db, "clock");
	mono = clock && !strcmp(clock, "mono");
	for (i = 0; !ret && i < nsnaps; i++) {
		const struct tdb_snap_info *s = &snaps[i];
		const struct mark *b = NULL, *e = NULL;
		struct tdb_snap_place *p = &places[i];

		p->id = s->id;
		if (s->mono_begin >= 0) {
			b = find_mark(marks, nmarks, (uint64_t)s->mono_begin, false);
			e = find_mark(marks, nmarks, (uint64_t)s->mono_end, true);
		}
		if (b && e) {
			p->ts_begin = b->ts;
			p->ts_end = e->ts;
			p->seq_begin = b->seq;
			p->seq_end = e->seq;
			marked++;
		} else if (mono && s->mono_begin >= 0) {
			p->ts_begin = s->mono_begin;
			p->ts_end = s->mono_end;
			ret = tdb_seq_at_ts(db, p->ts_begin, false, &p->seq_begin);
			if (!ret)
				ret = tdb_seq_at_ts(db, p->ts_end, true, &p->seq_end);
		} else {
			ret = bc_error(BC_E_FORMAT, "snapshot %" PRId64 " ('%s', taken at "
				       "CLOCK_MONOTONIC %" PRId64 " ns): %s, and the trace clock is "
				       "'%s', not 'mono', so its time cannot be placed among the "
				       "events; record with 'trace-cmd record -C mono ...', or write "
				       "snapshots during the trace with 'bigchunk snapshot --marker "
				       "INSTANCE' (or bigchunk-snapshot.sh -m) so the markers are in it",
				       s->id, s->label, s->mono_begin, !b && !e ?
				       "no 'bigchunk snapshot' markers in the trace match it" :
				       !b ? "its begin marker is missing" : "its end marker is missing",
				       clock ? clock : "unknown");
		}
	}
	if (!ret)
		ret = tdb_snap_set_places(db, places, nsnaps);
out:
	if (nr_marked)
		*nr_marked = marked;
	free(clock);
	free(places);
	free(marks);
	free(snaps);
	return ret;
}

/* ---- is the snapshot of this trace? ---- */

/*
 * The trace's span in CLOCK_MONOTONIC ns, [*@lo, *@hi]: its events' when the trace clock
 * is mono, widened by the numbers of its snapshot markers (which are mono whatever the
 * clock). *@from says which; NULL when neither is known.
 */
static int trace_mono_span(struct tdb *db, int64_t *lo, int64_t *hi, const char **from)
{
	char *clock = tdb_get_meta(db, "clock");
	bool mono = clock && !strcmp(clock, "mono"), events;
	struct mark *marks = NULL;
	uint64_t first, last;
	int n = 0, i, ret;

	free(clock);
	*lo = INT64_MAX;
	*hi = INT64_MIN;
	*from = NULL;
	if (mono) {
		ret = tdb_flush(db);	/* tdb_ts_bounds() reads event_chunks */
		if (!ret)
			ret = tdb_ts_bounds(db, &first, &last);
		if (ret && ret != -BC_E_NOENT)
			return ret;
		if (!ret && last && first <= INT64_MAX && last <= INT64_MAX) {
			*lo = (int64_t)first;
			*hi = (int64_t)last;
			*from = "its events (trace clock mono)";
		}
	}
	ret = load_markers(db, &marks, &n);
	if (ret)
		return ret;
	events = *from != NULL;
	for (i = 0; i < n; i++) {
		int64_t t = (int64_t)marks[i].mono;

		if (marks[i].mono > INT64_MAX)
			continue;
		*lo = t < *lo ? t : *lo;
		*hi = t > *hi ? t : *hi;
		*from = events ? "its events and snapshot markers" : "its snapshot markers";
	}
	free(marks);
	return 0;
}

/*
 * A snapshot directory must come from the traced machine and boot, near the trace: its
 * kernel release is the capture's, and taken_at lies within SNAP_TIME_MARGIN_S of the
 * trace's span. The margin: a snapshot taken by hand just before or after the trace is
 * seconds away, one bracketed by markers is inside it, and reading a 1 TiB machine's
 * page files takes about a minute; another boot or machine has another uptime, hours
 * or days away.
 */
static int check_same_trace(struct tdb *db, struct loader *L,
			    const struct snap_walk_result *res)
{
	const int64_t margin = (int64_t)SNAP_TIME_MARGIN_S * 1000000000;
	int64_t lo, hi, b = (int64_t)res->mono_begin, e = (int64_t)res->mono_end, off;
	char *rel = tdb_get_meta(db, "kernel_release");
	const char *from;
	int ret;

	if (rel && *rel && *L->release && strcmp(rel, L->release)) {
		bc_error(BC_E_FORMAT, "kernel %s, but the trace's is %s: a snapshot of another "
			 "machine or boot? (-f/--force stores it anyway)", L->release, rel);
		free(rel);
		return load_error(L, -BC_E_FORMAT, "uname");
	}
	free(rel);
	ret = trace_mono_span(db, &lo, &hi, &from);
	if (ret || !from)
		return ret;
	if (e < lo && lo - e > margin)
		off = lo - e;
	else if (b > hi && b - hi > margin)
		off = b - hi;
	else
		return 0;
	bc_error(BC_E_FORMAT, "taken at CLOCK_MONOTONIC %.3f-%.3f s, %.0f s %s the trace (%.3f-"
		 "%.3f s by %s), more than the %d s allowed: a snapshot of another boot, "
		 "machine or session? (-f/--force stores it anyway)", b / 1e9, e / 1e9, off / 1e9,
		 e < lo ? "before" : "after", lo / 1e9, hi / 1e9, from, SNAP_TIME_MARGIN_S);
	return load_error(L, -BC_E_FORMAT, "taken_at");
}
