// SPDX-License-Identifier: GPL-2.0
/*
 * cap-dat: import a trace-cmd trace.dat with libtracecmd.
 *
 * The file is checked by hand first (magic and version) so that "not a trace.dat" and
 * "truncated or corrupt" get their own messages; libtracecmd then reads it, records
 * come time-ordered across CPUs from tracecmd_iterate_events() and go through the
 * shared decoder (cap-decode.c). A trace recorded into an instance (-B NAME) keeps its
 * events in a buffer instance of the file, with its own handle.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kbuffer.h>
#include <trace-cmd/trace-cmd.h>

#include "capture/cap-kallsyms.h"
#include "capture/capture.h"
#include "capture/dat-check.h"
#include "common/err.h"
#include "db/tdb.h"

/* Exported by libtracecmd but not declared in its public header. */
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_version(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
struct tep_record *tracecmd_peek_data(struct tracecmd_input *handle, int cpu);
struct kbuffer *tracecmd_record_kbuf(struct tracecmd_input *handle, struct tep_record *record);
void *tracecmd_record_page(struct tracecmd_input *handle, struct tep_record *record);
void *tracecmd_record_offset(struct tracecmd_input *handle, struct tep_record *record);

#define PROGRESS_EVERY	(1U << 18)
/*
 * Bytes a page's records may end before its commit without loss: a trailing padding or
 * time-extend event is never a record. Any trace event is larger (its common fields
 * alone are 8 bytes, behind a 4-byte header and a time delta).
 */
#define PAGE_TAIL_SLACK	16
/* Type ids whose tep_find_event() answer is remembered (common_type is 16 bits). */
#define KNOWN_TYPES	65536

/* What one CPU's stream delivered: short streams are lost data (see check_streams()). */
struct cpu_seen {
	uint64_t n;
	uint64_t first_page, last_page;	/* record offset / page size */
	uint64_t last_ts;
	bool in_page;			/* data_end and last_end are known */
	long data_end, last_end;	/* in the last record's page: its commit's end, the record's */
};

struct import_ctx {
	struct cap_decoder *dec;
	const struct cap_import_opts *opts;
	struct tdb *db;
	struct tep_handle *tep;
	struct cpu_seen *cpu;
	int ncpus;
	uint32_t page_size;
	uint64_t records;
	uint64_t ts_max;
	uint64_t short_cpus;		/* lost windows added for damaged ring-buffer data */
	int err;
	bool big_endian;		/* the file's ring-buffer pages */
	signed char known[KNOWN_TYPES];	/* per type id: 1 has a format, -1 not, 0 not asked */
};

/*
 * Does the buffer behind @h hold at least one record? Peeked, not read: the handle may
 * be the one imported (a trace recorded into the top buffer), and a record read here
 * (tracecmd_read_cpu_first()) would be missing from the iteration that follows.
 */
static bool has_records(struct tracecmd_input *h)
{
	int cpu, n = tracecmd_cpus(h);

	for (cpu = 0; cpu < n; cpu++)
		if (tracecmd_peek_data(h, cpu))
			return true;
	return false;
}

/*
 * Pick the buffer to import. Return: 0 and *@out (the top handle itself, or a new
 * instance handle the caller closes) and *@name ("" for the top buffer, borrowed).
 */
static int pick_buffer(const char *path, struct tracecmd_input *top, const char *want,
		       struct tracecmd_input **out, const char **name)
{
	int i, n = tracecmd_buffer_instances(top), with = -1, nwith = 0;
	struct tracecmd_input *b;
	char list[512] = "";
	const char *iname;

	for (i = 0; i < n; i++) {
		iname = tracecmd_buffer_instance_name(top, i);
		if (strlen(list) + strlen(iname ? iname : "?") + 3 < sizeof(list))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", iname ? iname : "?");
	}
	if (want) {
		for (i = 0; i < n; i++) {
			iname = tracecmd_buffer_instance_name(top, i);
			if (iname && !strcmp(iname, want))
				break;
		}
		if (i == n)
			return bc_error(BC_E_NOENT, "%s: no buffer instance '%s' in the file (%s%s)",
					path, want, n ? "it has: " : "it has none",
					n ? list : "");
		b = tracecmd_buffer_instance_handle(top, i);
		if (!b)
			return bc_error(BC_E_FORMAT, "%s: cannot read buffer instance '%s'", path,
					want);
		*out = b;
		*name = tracecmd_buffer_instance_name(top, i);
		return 0;
	}

	if (has_records(top) || !n) {
		*out = top;
		*name = "";
		return 0;
	}
	/* one instance is the one, with records or without: no need to read it twice */
	for (i = 0; i < n && n > 1; i++) {
		b = tracecmd_buffer_instance_handle(top, i);
		if (!b)
			continue;
		if (has_records(b)) {
			with = i;
			nwith++;
		}
		tracecmd_close(b);
	}
	if (nwith > 1)
		return bc_error(BC_E_INVAL, "%s: %d buffer instances hold events (%s); choose one with -B",
				path, nwith, list);
	if (with < 0)
		with = 0;	/* all empty: the first instance, an empty import */
	b = tracecmd_buffer_instance_handle(top, with);
	if (!b)
		return bc_error(BC_E_FORMAT, "%s: cannot read buffer instance '%s'", path,
				tracecmd_buffer_instance_name(top, with));
	*out = b;
	*name = tracecmd_buffer_instance_name(top, with);
	return 0;
}

/* "580.530263" (seconds, as in the stats text) -> ns. */
static int64_t secs_to_ns(const char *s)
{
	long long sec = 0, frac = 0;
	int digits = 0;

	while (*s == ' ')
		s++;
	while (*s >= '0' && *s <= '9')
		sec = sec * 10 + (*s++ - '0');
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9' && digits < 9; s++, digits++)
			frac = frac * 10 + (*s - '0');
	}
	for (; digits < 9; digits++)
		frac *= 10;
	return sec * 1000000000LL + frac;
}

/*
 * The cpustats text holds, per buffer ("Buffer: NAME" starts an instance's part; the
 * top buffer's part comes first, without such a line), "CPU: N" blocks of "key: value"
 * lines. Store the integer ones of buffer @name as cpu_stats, keys with '_' for ' '.
 */
static int store_cpustats(struct tdb *db, const char *text, const char *name)
{
	const char *line, *next, *colon;
	bool mine = !*name;
	int cpu = -1, ret;
	char key[64];
	size_t klen;
	char *end;

	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			next++;
		if (!strncmp(line, "Buffer: ", 8)) {
			size_t len = next ? (size_t)(next - 1 - (line + 8)) : strlen(line + 8);

			mine = *name && strlen(name) == len && !strncmp(line + 8, name, len);
			cpu = -1;
			continue;
		}
		if (!mine)
			continue;
		if (!strncmp(line, "CPU: ", 5)) {
			cpu = (int)strtol(line + 5, NULL, 10);
			continue;
		}
		colon = strchr(line, ':');
		if (cpu < 0 || !colon || (next && colon > next))
			continue;
		klen = (size_t)(colon - line);
		if (!klen || klen >= sizeof(key))
			continue;
		for (size_t i = 0; i < klen; i++)
			key[i] = line[i] == ' ' ? '_' : line[i];
		key[klen] = '\0';
		if (strstr(key, "_ts")) {
			/* "oldest event ts", "now ts": seconds.micros -> ns */
			ret = tdb_add_cpu_stat(db, cpu, key, secs_to_ns(colon + 1));
		} else {
			long long v = strtoll(colon + 1, &end, 10);

			if (end == colon + 1)
				continue;
			ret = tdb_add_cpu_stat(db, cpu, key, v);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int store_meta(struct tdb *db, const char *path, int version,
		      struct tracecmd_input *top, struct tracecmd_input *b, const char *name,
		      const struct cap_import_opts *opts)
{
	const char *clock = tracecmd_get_trace_clock(b), *s;
	char rel[128];
	int ret;

	if (!clock)
		clock = tracecmd_get_trace_clock(top);
	ret = tdb_set_meta(db, "source", "import");
	if (!ret)
		ret = tdb_set_meta(db, "trace_file", path);
	if (!ret)
		ret = tdb_set_meta_int(db, "trace_file_version", version);
	s = tracecmd_get_version(top);
	if (!ret && s)
		ret = tdb_set_meta(db, "trace_cmd_version", s);
	if (!ret)
		ret = tdb_set_meta(db, "clock", opts && opts->clock ? opts->clock :
				   clock ? clock : "local");
	if (!ret && opts && opts->clock)
		ret = tdb_set_meta(db, "clock_in_file", clock ? clock : "local");
	s = tracecmd_get_uname(top);
	if (!ret && s) {
		ret = tdb_set_meta(db, "uname", s);
		/* "Linux HOST RELEASE ARCH" */
		if (!ret && sscanf(s, "%*s %*s %127s", rel) == 1)
			ret = tdb_set_meta(db, "kernel_release", rel);
	}
	if (!ret)
		ret = tdb_set_meta_int(db, "cpus", tracecmd_cpus(b));
	if (!ret)
		ret = tdb_set_meta(db, "instance", name);
	s = tracecmd_get_cpustats(top);
	if (!ret && s)
		ret = store_cpustats(db, s, name);
	return ret;
}

/*
 * A lost window for damaged ring-buffer data of @cpu, from its last event read
 * (@from) to @to: libtracecmd stopped or skipped pages there, how many events were
 * in them is unknown (count -1).
 */
static int add_damage(struct import_ctx *ctx, int cpu, uint64_t from, uint64_t to)
{
	ctx->short_cpus++;
	return tdb_add_lost(ctx->db, cpu, from, to, -1, tdb_next_seq(ctx->db));
}

/*
 * A page whose records do not end at its commit (the kernel's count of bytes written
 * in it) was damaged: libtracecmd stops reading a page at a bad event header, or
 * returns a record whose length runs past the commit and then stops.
 */
static int check_page_tail(struct import_ctx *ctx, int cpu, uint64_t to)
{
	const struct cpu_seen *c = &ctx->cpu[cpu];

	if (!c->in_page || (c->last_end + PAGE_TAIL_SLACK >= c->data_end &&
			    c->last_end <= c->data_end))
		return 0;
	return add_damage(ctx, cpu, c->last_ts, to);
}

/*
 * Are the @len bytes at @p (the rest of a page's data after its last record) events
 * that are no records: a discarded event (padding with a time delta: its length in
 * array[0], 4 + that many bytes; rb_event_discard() makes one when a reserved event is
 * dropped, e.g. a stack an NMI beat), a time extend or stamp (8 bytes), or the null
 * padding that fills the rest (rb_event_set_padding(): time delta 0)? libtracecmd
 * skips these as the kernel's reader does; a data event or a length that does not end
 * at the commit is damage. The header is ring_buffer_event's "u32 type_len:5,
 * time_delta:27", its bits from the top in a big-endian file (as kbuffer reads it).
 */
static bool tail_is_padding(const uint8_t *p, long len, bool big)
{
	uint32_t h, type_len, delta, n;
	long pos = 0;

	while (pos < len) {
		if (len - pos < 4)
			return false;
		memcpy(&h, p + pos, 4);
		if (big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
			h = __builtin_bswap32(h);
		type_len = big ? h >> 27 : h & 31;
		delta = big ? h & ((1U << 27) - 1) : h >> 5;
		switch (type_len) {
		case 29:	/* RINGBUF_TYPE_PADDING */
			if (!delta)
				return true;
			if (len - pos < 8)
				return false;
			memcpy(&n, p + pos + 4, 4);
			if (big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
				n = __builtin_bswap32(n);
			if (n < 4 || n > (uint32_t)(len - pos - 4))
				return false;
			pos += 4 + (long)n;
			break;
		case 30:	/* RINGBUF_TYPE_TIME_EXTEND */
		case 31:	/* RINGBUF_TYPE_TIME_STAMP */
			pos += 8;
			break;
		default:	/* a data event: not the page's last record after all */
			return false;
		}
	}
	return pos == len;
}

/* Has the file a format for @rec's type? tep_find_event() once per type id. */
static bool type_known(struct import_ctx *ctx, const struct tep_record *rec)
{
	int id = cap_record_type(ctx->dec, rec);

	if (id < 0 || id >= KNOWN_TYPES)
		return tep_find_event(ctx->tep, id) != NULL;
	if (!ctx->known[id])
		ctx->known[id] = tep_find_event(ctx->tep, id) ? 1 : -1;
	return ctx->known[id] > 0;
}

/*
 * Note where @rec lies in its CPU's data. Records come page after page; a jump of
 * more than one page means libtracecmd gave up on the pages between (a damaged page
 * header), and a page left before its end lost the events after the last one read.
 */
static int track_record(struct import_ctx *ctx, struct tracecmd_input *h,
			struct tep_record *rec, int cpu)
{
	const char *page = tracecmd_record_page(h, rec);
	struct kbuffer *kbuf;
	struct cpu_seen *c;
	uint64_t pg;

	if (cpu < 0 || cpu >= ctx->ncpus)
		return 0;
	c = &ctx->cpu[cpu];
	pg = rec->offset / ctx->page_size;
	if (!c->n)
		c->first_page = pg;
	else if (pg > c->last_page + 1 && add_damage(ctx, cpu, c->last_ts, rec->ts))
		return -BC_E_DB;
	if (!c->n || pg != c->last_page) {
		if (check_page_tail(ctx, cpu, rec->ts))
			return -BC_E_DB;
		/* the record was just read: its CPU's kbuffer holds its page */
		kbuf = tracecmd_record_kbuf(h, rec);
		c->in_page = page && kbuf;
		if (c->in_page)
			c->data_end = kbuffer_start_of_data(kbuf) + kbuffer_subbuffer_size(kbuf);
	}
	if (c->in_page) {
		c->last_end = (const char *)tracecmd_record_offset(h, rec) - page +
			      rec->record_size;
		/* what follows up to the commit may be discarded events: no loss */
		if (c->last_end + PAGE_TAIL_SLACK < c->data_end && c->last_end >= 0 &&
		    tail_is_padding((const uint8_t *)page + c->last_end,
				    c->data_end - c->last_end, ctx->big_endian))
			c->last_end = c->data_end;
	}
	/* a type the file has no format for: a damaged record, its event lost */
	if (!type_known(ctx, rec) &&
	    add_damage(ctx, cpu, c->n ? c->last_ts : 0, rec->ts))
		return -BC_E_DB;
	if (pg > c->last_page || !c->n)
		c->last_page = pg;
	c->last_ts = rec->ts;
	c->n++;
	if (rec->ts > ctx->ts_max)
		ctx->ts_max = rec->ts;
	return 0;
}

/*
 * Iteration callback. libtracecmd 3.1 stops iterating only on a negative return (later
 * versions on any non-zero one), so return -1, and keep the first error.
 */
static int import_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct import_ctx *ctx = data;
	struct cap_decode_stats st;

	if (ctx->err)
		return -1;
	ctx->err = track_record(ctx, h, rec, cpu);
	if (!ctx->err)
		ctx->err = cap_decode_record(ctx->dec, rec, cpu);
	if (ctx->err)
		return -1;
	if (++ctx->records % PROGRESS_EVERY == 0 && ctx->opts && ctx->opts->progress) {
		cap_decoder_stats(ctx->dec, &st);
		if (ctx->opts->progress(&st, ctx->records, ctx->opts->progress_arg)) {
			ctx->err = bc_error(BC_E_INTR, "interrupted");
			return -1;
		}
	}
	return 0;
}

/*
 * After the iteration: a CPU whose records span fewer pages than its data holds (the
 * file says how many: dat-check) stopped early, on a read error or a damaged page; the
 * rest of its data is a lost window up to the end of the trace. @read_error: the
 * iteration itself failed, so every CPU not seen to its end lost its tail.
 */
static int check_streams(struct import_ctx *ctx, const struct dat_buffer *db, bool read_error)
{
	const struct dat_cpu *dc;
	uint64_t pages, span;
	struct cpu_seen *c;
	int i, ret;

	for (i = 0; db && i < db->ncpus; i++) {
		dc = &db->cpus[i];
		if (dc->cpu < 0 || dc->cpu >= ctx->ncpus || !dc->data_size)
			continue;
		c = &ctx->cpu[dc->cpu];
		ret = check_page_tail(ctx, dc->cpu, ctx->ts_max);
		if (ret)
			return ret;
		pages = (dc->data_size + ctx->page_size - 1) / ctx->page_size;
		span = c->n ? c->last_page - c->first_page + 1 : 0;
		if (span >= pages && !(read_error && !span))
			continue;
		ret = add_damage(ctx, dc->cpu, c->n ? c->last_ts : 0, ctx->ts_max);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * After an early stop, libtracecmd 3.1 leaks the record it peeked on each CPU:
 * tracecmd_iterate_events() drops its reference while the record is still locked as
 * the CPU's next one, so neither that call nor tracecmd_close() frees it (ref_count is
 * 0 by then). Take each one and free it, restoring the reference a fixed libtracecmd
 * would still hold.
 */
static void drop_peeked(struct tracecmd_input *h)
{
	struct tep_record *r;
	int cpu, n = tracecmd_cpus(h);

	for (cpu = 0; cpu < n; cpu++) {
		r = tracecmd_read_data(h, cpu);
		if (!r)
			continue;
		if (!r->ref_count)
			r->ref_count = 1;
		tracecmd_free_record(r);
	}
}

/* Iterate @b's events into the decoder; damaged CPU data becomes lost windows. */
static int import_events(struct import_ctx *ctx, const char *path, struct tracecmd_input *b,
			 const struct dat_buffer *lb)
{
	int ret, it, before;

	ctx->tep = tracecmd_get_tep(b);
	ctx->big_endian = tep_is_file_bigendian(ctx->tep);
	ctx->ncpus = tracecmd_cpus(b);
	ctx->cpu = calloc(ctx->ncpus > 0 ? (size_t)ctx->ncpus : 1, sizeof(*ctx->cpu));
	if (!ctx->cpu)
		return bc_error(BC_E_NOMEM, "out of memory");
	it = tracecmd_iterate_events(b, NULL, 0, import_cb, ctx);
	if (ctx->err) {
		drop_peeked(b);
		if (ctx->err != -BC_E_INTR)
			bc_error_prefix(ctx->err, "%s", path);
		return ctx->err;
	}
	before = (int)ctx->short_cpus;
	ret = check_streams(ctx, lb, it < 0);
	if (ret)
		return bc_error_prefix(ret, "%s", path);
	if (it < 0 && (int)ctx->short_cpus == before)
		return bc_error(BC_E_FORMAT, "%s: libtracecmd failed reading the event data after %llu records",
				path, (unsigned long long)ctx->records);
	return 0;
}

int cap_import_dat(struct tdb *db, const char *path, const char *instance,
		   const char *const *events, const struct cap_import_opts *opts,
		   struct cap_decode_stats *st)
{
	struct tracecmd_input *top = NULL, *b = NULL;
	struct import_ctx ctx = { .opts = opts, .db = db };
	struct dat_layout lay;
	const char *name = "";
	int ret;

	/* libtracecmd trusts the file's offsets and sizes: check them first. */
	ret = dat_check(path, &lay);
	if (ret)
		return ret;

	if (opts && opts->heap_hint && lay.kallsyms_size)
		opts->heap_hint((size_t)(3 * lay.kallsyms_size + (4 << 20)));
	/* libtracecmd reports on stderr; we report through bc_error instead. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	cap_kallsyms_defer(true);	/* parsed at the first stack, if there is one */
	cap_kallsyms_defer_block(path, lay.kallsyms_block);	/* decompressed then too */
	top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS |
			    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!top) {
		ret = bc_error(BC_E_TRUNCATED, "%s: truncated or corrupt trace.dat (version %d, %llu bytes): libtracecmd cannot load its sections",
			       path, lay.version, (unsigned long long)lay.file_size);
		goto out;
	}

	ret = pick_buffer(path, top, instance, &b, &name);
	if (ret)
		goto out;
	if (!tracecmd_get_tep(b)) {
		ret = bc_error(BC_E_FORMAT, "%s: no event formats in the file", path);
		goto out;
	}
	ret = store_meta(db, path, lay.version, top, b, name, opts);
	if (ret)
		goto out;
	ret = cap_decoder_create(db, tracecmd_get_tep(b), events, &ctx.dec);
	if (ret)
		goto out;
	ctx.page_size = dat_buffer_find(&lay, name) ? dat_buffer_find(&lay, name)->page_size :
			lay.page_size;
	ret = import_events(&ctx, path, b, dat_buffer_find(&lay, name));
	if (!ret)
		ret = tdb_flush(db);
out:
	if (st && ctx.dec) {
		cap_decoder_stats(ctx.dec, st);
		st->gaps += ctx.short_cpus;
		st->damaged = ctx.short_cpus;
	}
	free(ctx.cpu);
	cap_decoder_destroy(ctx.dec);
	cap_kallsyms_defer(false);
	if (b && b != top)
		tracecmd_close(b);
	if (top)
		tracecmd_close(top);
	dat_layout_free(&lay);
	return ret;
}
