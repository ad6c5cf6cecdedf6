// SPDX-License-Identifier: GPL-2.0
/*
 * cap-decode: turn tep records into tdb rows, the same way for live tracefs and
 * trace.dat input.
 *
 * State owned here: a table indexed by the tep event id that says what to do with a
 * record of that type (store its numeric fields, make it a marker, attach it as a
 * stack, or skip it), with the fields looked up by name once per type; per-CPU
 * bookkeeping (last timestamp for loss gaps, last stored seq for stacks); and the set
 * of pids whose comm was already written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "capture/cap-kallsyms.h"
#include "capture/cap-stacks.h"
#include "capture/capture.h"
#include "common/err.h"
#include "db/tdb.h"

const char cap_work_fn[] = "vmstat_update";

const char *const cap_default_events[] = {
	"kmem:mm_page_alloc",
	"kmem:mm_page_free",
	"kmem:mm_page_free_batched",
	"kmem:mm_page_alloc_zone_locked",
	"kmem:mm_page_pcpu_drain",
	"kmem:mm_page_alloc_extfrag",
	"migrate:mm_migrate_pages",
	"migrate:mm_migrate_pages_start",
	"page_isolation:test_pages_isolated",
	"compaction:*",
	"cma:*",
	"vmscan:mm_vmscan_direct_reclaim_begin",
	"vmscan:mm_vmscan_direct_reclaim_end",
	"vmscan:mm_vmscan_kswapd_wake",
	"vmscan:mm_vmscan_kswapd_sleep",
	"workqueue:workqueue_execute_start",	/* vmstat_update()'s only (cap_work_fn) */
	"ftrace:print",
	NULL,
};

enum cap_kind {
	CAP_SKIP = 0,		/* not asked for: counted, dropped */
	CAP_STORE,		/* numeric fields into events */
	CAP_MARKER,		/* ftrace:print -> markers */
	CAP_STACK,		/* ftrace:kernel_stack -> stacks of the previous event */
};

struct cap_type {
	uint8_t kind;				/* enum cap_kind */
	uint8_t nfields;
	uint16_t db_id;				/* event_types.id */
	const char *name;			/* the event's, owned by the tep */
	struct tep_format_field *field[TDB_MAX_FIELDS];
	uint16_t offset[TDB_MAX_FIELDS];	/* field[i]->offset, for the native path */
	uint8_t size[TDB_MAX_FIELDS];
	uint8_t sign_shift[TDB_MAX_FIELDS];	/* 64 - bits for signed fields, else 0 */
	int min_size;				/* record bytes the stored fields need */
	int work_fn;				/* workqueue_execute_start: the index of
						   'function' (kept for cap_work_fn only),
						   else -1 */
};

/*
 * The last events stored per CPU, for stacks: a stack trigger saves the stack after
 * its event was written, and an interrupt meanwhile can write events of its own, so a
 * stack belongs to the latest event of the type its first frame names
 * (trace_event_raw_event_NAME), not simply to the record before it.
 */
#define CAP_RECENT	16

struct cap_recent {
	int64_t seq;				/* -1: empty, or its stack is stored */
	int tep_id;
};

struct cap_cpu {
	uint64_t last_ts;			/* last record seen on this CPU */
	int64_t last_seq;			/* seq of the last record if stored, else -1 */
	bool seen;
	struct cap_recent recent[CAP_RECENT];
	unsigned int next_recent;
};

struct cap_decoder {
	struct tdb *db;
	struct tep_handle *tep;

	struct cap_type *types;			/* indexed by tep event id */
	int nr_types;

	struct cap_cpu *cpus;
	int nr_cpus;

	uint64_t *pid_seen;			/* bitmap: comm already written */
	size_t pid_words;

	/* ftrace:print and ftrace:kernel_stack layouts */
	struct tep_format_field *print_buf;
	struct tep_format_field *stack_size, *stack_caller;
	struct cap_stacks *stacks;		/* symbolised once per call path */
	int long_size;
	bool native;				/* file byte order == ours: plain loads */
	int type_offset, type_size;		/* common_type, for cap_record_type(); size 0:
						   ask libtraceevent */

	/* workqueue_execute_start: the address of cap_work_fn, 0 while unknown (then
	 * each function address is looked up in the trace's symbols, once) */
	unsigned long long work_fn;
	struct cap_fn_seen { unsigned long long addr; bool ours; } fn_seen[16];
	unsigned int nr_fn_seen;
	bool work_noted;			/* meta cap_work_fn written */

	struct cap_decode_stats st;
};

/* ---- format text ---- */

static void format_field_line(struct trace_seq *s, const struct tep_format_field *f)
{
	const char *br = strchr(f->type, '[');

	/* libtraceevent keeps "char[16]" as the type of "char comm[16]". */
	if (br && !(f->flags & TEP_FIELD_IS_DYNAMIC))
		trace_seq_printf(s, "\tfield:%.*s %s%s;", (int)(br - f->type), f->type,
				 f->name, br);
	else
		trace_seq_printf(s, "\tfield:%s %s;", f->type, f->name);
	trace_seq_printf(s, "\toffset:%d;\tsize:%d;\tsigned:%d;\n", f->offset, f->size,
			 !!(f->flags & TEP_FIELD_IS_SIGNED));
}

/**
 * cap_format_text() - rebuild the kernel's format file of @ev from what tep parsed:
 * name, ID, every field line (common ones first) and the print format string (its
 * argument list is not kept by libtraceevent and is left out).
 * Return: malloc'ed text (caller frees) or NULL when out of memory.
 */
char *cap_format_text(const struct tep_event *ev)
{
	struct tep_format_field *f;
	struct trace_seq s;
	char *ret;

	trace_seq_init(&s);
	trace_seq_printf(&s, "name: %s\nID: %d\nformat:\n", ev->name, ev->id);
	for (f = ev->format.common_fields; f; f = f->next)
		format_field_line(&s, f);
	trace_seq_puts(&s, "\n");
	for (f = ev->format.fields; f; f = f->next)
		format_field_line(&s, f);
	trace_seq_puts(&s, "\nprint fmt: \"");
	if (ev->print_fmt.format) {
		const char *p;

		for (p = ev->print_fmt.format; *p; p++) {
			switch (*p) {
			case '\n': trace_seq_puts(&s, "\\n"); break;
			case '\t': trace_seq_puts(&s, "\\t"); break;
			case '"': trace_seq_puts(&s, "\\\""); break;
			case '\\': trace_seq_puts(&s, "\\\\"); break;
			default: trace_seq_putc(&s, *p); break;
			}
		}
	}
	trace_seq_puts(&s, "\"\n");
	trace_seq_terminate(&s);
	ret = s.state == TRACE_SEQ__GOOD ? strdup(s.buffer) : NULL;
	trace_seq_destroy(&s);
	return ret;
}

/* ---- registration ---- */

static bool field_is_numeric(const struct tep_format_field *f)
{
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC |
			TEP_FIELD_IS_RELATIVE))
		return false;
	return f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
}

static int grow_types(struct cap_decoder *d, int id)
{
	struct cap_type *t;
	int n;

	if (id < d->nr_types)
		return 0;
	n = id + 64;
	t = realloc(d->types, (size_t)n * sizeof(*t));
	if (!t)
		return bc_error(BC_E_NOMEM, "capture: out of memory for event types");
	memset(t + d->nr_types, 0, (size_t)(n - d->nr_types) * sizeof(*t));
	d->types = t;
	d->nr_types = n;
	return 0;
}

/* Register @ev (present in the tep) in event_types and cache how to decode it. */
static int register_event(struct cap_decoder *d, struct tep_event *ev)
{
	const char *names[TDB_MAX_FIELDS];
	int sizes[TDB_MAX_FIELDS];
	bool sign[TDB_MAX_FIELDS];
	struct tep_format_field *f;
	struct cap_type *t;
	char *format;
	int ret, id;

	if (ev->id < 0 || ev->id > 0xffff)
		return bc_error(BC_E_FORMAT, "capture: event %s:%s has id %d out of range",
				ev->system, ev->name, ev->id);
	ret = grow_types(d, ev->id);
	if (ret)
		return ret;
	t = &d->types[ev->id];
	if (t->kind != CAP_SKIP)
		return 0;		/* asked for twice */
	t->name = ev->name;
	t->work_fn = -1;

	if (!strcmp(ev->system, "ftrace") && !strcmp(ev->name, "print")) {
		t->kind = CAP_MARKER;
	} else if (!strcmp(ev->system, "ftrace") && !strcmp(ev->name, "kernel_stack")) {
		t->kind = CAP_STACK;
	} else {
		t->kind = CAP_STORE;
		for (f = ev->format.fields; f && t->nfields < TDB_MAX_FIELDS; f = f->next) {
			if (!field_is_numeric(f) || !strncmp(f->name, "common_", 7) ||
			    f->offset < 0 || f->offset > 0xffff)
				continue;
			names[t->nfields] = f->name;
			sizes[t->nfields] = f->size;
			sign[t->nfields] = f->flags & TEP_FIELD_IS_SIGNED;
			t->field[t->nfields] = f;
			t->offset[t->nfields] = (uint16_t)f->offset;
			t->size[t->nfields] = (uint8_t)f->size;
			t->sign_shift[t->nfields] = sign[t->nfields] && f->size < 8 ?
						    64 - 8 * f->size : 0;
			if (f->offset + f->size > t->min_size)
				t->min_size = f->offset + f->size;
			if (!strcmp(ev->system, "workqueue") &&
			    !strcmp(ev->name, "workqueue_execute_start") &&
			    !strcmp(f->name, "function"))
				t->work_fn = t->nfields;
			t->nfields++;
		}
	}

	format = cap_format_text(ev);
	if (!format)
		return bc_error(BC_E_NOMEM, "capture: out of memory for the format of %s:%s",
				ev->system, ev->name);
	id = tdb_add_event_type(d->db, ev->system, ev->name, false, format,
				t->kind == CAP_STORE ? t->nfields : 0, names, sizes, sign);
	free(format);
	if (id < 0)
		return id;
	if (id > 0xffff)
		return bc_error(BC_E_DB, "capture: event type id %d out of range", id);
	t->db_id = (uint16_t)id;
	return 0;
}

/* Already registered as missing by an earlier identical spec? */
static bool spec_seen(const char *const *events, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (!strcmp(events[j], events[i]))
			return true;
	return false;
}

static int register_spec(struct cap_decoder *d, const char *spec)
{
	const char *colon = strchr(spec, ':');
	char sys[128], name[128];
	struct tep_event **all, *ev;
	int i, found = 0, ret;

	if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) >= sizeof(sys) ||
	    strlen(colon + 1) >= sizeof(name))
		return bc_error(BC_E_INVAL, "capture: bad event '%s' (want system:event or system:*)",
				spec);
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
	snprintf(name, sizeof(name), "%s", colon + 1);

	if (strcmp(name, "*")) {
		ev = tep_find_event_by_name(d->tep, sys, name);
		if (ev)
			return register_event(d, ev);
		ret = tdb_add_event_type(d->db, sys, name, true, NULL, 0, NULL, NULL, NULL);
		return ret < 0 ? ret : 0;
	}

	all = tep_list_events(d->tep, TEP_EVENT_SORT_ID);
	for (i = 0; all && all[i]; i++) {
		if (strcmp(all[i]->system, sys))
			continue;
		ret = register_event(d, all[i]);
		if (ret)
			return ret;
		found++;
	}
	if (!found) {
		ret = tdb_add_event_type(d->db, sys, "*", true, NULL, 0, NULL, NULL, NULL);
		return ret < 0 ? ret : 0;
	}
	return 0;
}

/* events == NULL: every event of the tep, of ftrace only print (and kernel_stack). */
static int register_all(struct cap_decoder *d)
{
	struct tep_event **all = tep_list_events(d->tep, TEP_EVENT_SORT_ID);
	int i, ret;

	for (i = 0; all && all[i]; i++) {
		if (!strcmp(all[i]->system, "ftrace") && strcmp(all[i]->name, "print"))
			continue;
		ret = register_event(d, all[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Where records keep their type, read as tep_data_type() does (libtraceevent's
 * get_common_info(): the common_type field of the tep's first event, the same in all),
 * for plain loads in a file of our byte order: asked twice per record, the library
 * call (its field lookup, its byte-order switch) was a few percent of an import.
 */
static void init_record_type(struct cap_decoder *d)
{
	struct tep_event *ev = tep_get_first_event(d->tep);
	struct tep_format_field *f = ev ? tep_find_common_field(ev, "common_type") : NULL;

	if (d->native && f && (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)) {
		d->type_offset = f->offset;
		d->type_size = f->size;
	}
}

int cap_decoder_create(struct tdb *db, struct tep_handle *tep, const char *const *events,
		       struct cap_decoder **out)
{
	struct cap_decoder *d;
	struct tep_event *ev;
	int i, ret;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return bc_error(BC_E_NOMEM, "capture: out of memory");
	d->db = db;
	d->tep = tep;
	d->long_size = tep_get_long_size(tep);
	if (d->long_size != 4 && d->long_size != 8)
		d->long_size = 8;
	d->native = tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
	init_record_type(d);

	if (events) {
		for (i = 0; events[i]; i++) {
			if (spec_seen(events, i))
				continue;
			ret = register_spec(d, events[i]);
			if (ret)
				goto fail;
		}
	} else {
		ret = register_all(d);
		if (ret)
			goto fail;
	}

	ev = tep_find_event_by_name(tep, "ftrace", "print");
	if (ev)
		d->print_buf = tep_find_field(ev, "buf");
	ev = tep_find_event_by_name(tep, "ftrace", "kernel_stack");
	if (ev) {
		d->stack_size = tep_find_field(ev, "size");
		d->stack_caller = tep_find_field(ev, "caller");
		/* Stacks always follow their event; no need to ask for them. */
		if (d->stack_caller && !grow_types(d, ev->id) &&
		    d->types[ev->id].kind == CAP_SKIP)
			d->types[ev->id].kind = CAP_STACK;
		ret = cap_stacks_create(tep, d->long_size, &d->stacks);
		if (ret)
			goto fail;
	}
	*out = d;
	return 0;
fail:
	cap_decoder_destroy(d);
	return ret;
}

void cap_decoder_destroy(struct cap_decoder *d)
{
	if (!d)
		return;
	free(d->types);
	free(d->cpus);
	free(d->pid_seen);
	cap_stacks_destroy(d->stacks);
	free(d);
}

void cap_decoder_stats(const struct cap_decoder *d, struct cap_decode_stats *st)
{
	*st = d->st;
}

/* ---- per record ---- */

static struct cap_cpu *get_cpu(struct cap_decoder *d, int cpu)
{
	struct cap_cpu *c;
	int n, i;

	if (cpu < 0 || cpu > 65535)
		return NULL;
	if (cpu < d->nr_cpus)
		return &d->cpus[cpu];
	n = cpu + 8;
	c = realloc(d->cpus, (size_t)n * sizeof(*c));
	if (!c)
		return NULL;
	for (i = d->nr_cpus; i < n; i++) {
		unsigned int k;

		c[i] = (struct cap_cpu){ .last_seq = -1 };
		for (k = 0; k < CAP_RECENT; k++)
			c[i].recent[k].seq = -1;
	}
	d->cpus = c;
	d->nr_cpus = n;
	return &c[cpu];
}

/* Write pid's comm the first time the pid shows up (when the trace knows it). */
static int note_pid(struct cap_decoder *d, int pid)
{
	size_t w = (size_t)pid / 64;
	const char *comm;

	if (pid < 0)
		return 0;
	if (w >= d->pid_words) {
		size_t n = w + 1024;
		uint64_t *p = realloc(d->pid_seen, n * sizeof(*p));

		if (!p)
			return bc_error(BC_E_NOMEM, "capture: out of memory for pids");
		memset(p + d->pid_words, 0, (n - d->pid_words) * sizeof(*p));
		d->pid_seen = p;
		d->pid_words = n;
	}
	if (d->pid_seen[w] & (1ULL << (pid % 64)))
		return 0;
	d->pid_seen[w] |= 1ULL << (pid % 64);
	comm = tep_data_comm_from_pid(d->tep, pid);
	if (!comm || !strcmp(comm, "<...>"))
		return 0;
	return tdb_add_comm(d->db, pid, comm);
}

static int decode_marker(struct cap_decoder *d, struct tep_record *rec, int cpu, int pid)
{
	const char *p;
	char *text;
	int len, ret;

	if (!d->print_buf || d->print_buf->offset > rec->size)
		return bc_error(BC_E_FORMAT, "capture: cpu %d ts %llu: ftrace:print record of %d bytes has no buf",
				cpu, rec->ts, rec->size);
	p = (const char *)rec->data + d->print_buf->offset;
	len = rec->size - d->print_buf->offset;
	len = (int)strnlen(p, (size_t)len);
	while (len > 0 && (p[len - 1] == '\n' || p[len - 1] == '\0'))
		len--;
	text = strndup(p, (size_t)len);
	if (!text)
		return bc_error(BC_E_NOMEM, "capture: out of memory for a marker");
	ret = tdb_add_marker(d->db, rec->ts, cpu, pid, text);
	free(text);
	if (!ret)
		d->st.markers++;
	return ret;
}

/* The event a stack whose first frame is @sym belongs to: seq, or -1. */
static int64_t stack_owner(struct cap_decoder *d, struct cap_cpu *c, const char *sym)
{
	static const char prefix[] = "trace_event_raw_event_";
	unsigned int k, i;

	if (sym && !strncmp(sym, prefix, sizeof(prefix) - 1)) {
		const char *name = sym + sizeof(prefix) - 1;

		for (k = 0; k < CAP_RECENT; k++) {
			struct cap_recent *r;
			const char *rname;

			i = (c->next_recent + CAP_RECENT - 1 - k) % CAP_RECENT;
			r = &c->recent[i];
			if (r->seq < 0)
				continue;
			/* stored, so registered: its type knows its name */
			rname = r->tep_id < d->nr_types ? d->types[r->tep_id].name : NULL;
			if (rname && !strcmp(rname, name)) {
				int64_t seq = r->seq;

				r->seq = -1;	/* one stack per event */
				return seq;
			}
		}
	}
	return c->last_seq;
}

static int decode_stack(struct cap_decoder *d, struct tep_record *rec, struct cap_cpu *c)
{
	const char *text, *first;
	unsigned long long nr = 0;
	int64_t owner, *id;
	int off, n, ret;

	off = d->stack_caller->offset;
	if (off > rec->size)
		return bc_error(BC_E_FORMAT, "capture: cpu %d ts %llu: kernel_stack record of %d bytes is short",
				rec->cpu, rec->ts, rec->size);
	n = (rec->size - off) / d->long_size;
	if (d->stack_size && !tep_read_number_field(d->stack_size, rec->data, &nr) &&
	    (long long)nr >= 0 && nr < (unsigned long long)n)
		n = (int)nr;

	ret = cap_stacks_lookup(d->stacks, (const char *)rec->data + off, n, &text, &first, &id);
	if (ret)
		return ret;
	owner = stack_owner(d, c, first);
	if (owner < 0)
		return 0;		/* its event was not stored */
	/* the text once per distinct stack: writing it per event was most of an import */
	if (!*id)
		ret = tdb_add_stack_frames(d->db, text, id);
	if (!ret)
		ret = tdb_add_event_stack(d->db, (uint64_t)owner, *id);
	if (!ret)
		d->st.stacks++;
	if (owner == c->last_seq)
		c->last_seq = -1;	/* one stack per event */
	for (int i = 0; i < CAP_RECENT; i++)
		if (c->recent[i].seq == owner)
			c->recent[i].seq = -1;
	return ret;
}

/*
 * What tep_read_number() does for a file of our own byte order, without the call:
 * this is the per-field inner loop of every import.
 */
static inline unsigned long long load_native(const uint8_t *p, int size)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (size) {
	case 1:
		return *p;
	case 2:
		memcpy(&v2, p, 2);
		return v2;
	case 4:
		memcpy(&v4, p, 4);
		return v4;
	default:
		memcpy(&v8, p, 8);
		return v8;
	}
}

int cap_record_type(const struct cap_decoder *d, const struct tep_record *rec)
{
	if (d->type_size && rec->size >= d->type_offset + d->type_size)
		return (int)load_native((const uint8_t *)rec->data + d->type_offset,
					d->type_size);
	return tep_data_type(d->tep, (struct tep_record *)rec);
}

void cap_decoder_set_work_fn(struct cap_decoder *d, unsigned long long addr)
{
	d->work_fn = addr;
}

/*
 * Is work function @addr cap_work_fn? Known from the caller (a live recording reads
 * it from /proc/kallsyms and the kernel filters), else from the trace's own symbols
 * (trace.dat's kallsyms, parsed here at the first such record), remembered per
 * address: a trace-cmd recording holds every work item's start.
 */
static int is_work_fn(struct cap_decoder *d, unsigned long long addr, bool *ours)
{
	unsigned int i;
	const char *name;
	int ret;

	if (d->work_fn) {
		*ours = addr == d->work_fn;
		return 0;
	}
	for (i = 0; i < d->nr_fn_seen && i < 16; i++)
		if (d->fn_seen[i].addr == addr) {
			*ours = d->fn_seen[i].ours;
			return 0;
		}
	ret = cap_kallsyms_load(d->tep);
	if (ret)
		return ret;
	name = tep_find_function(d->tep, addr);
	*ours = name && !strcmp(name, cap_work_fn) &&
		tep_find_function_address(d->tep, addr) == addr;
	if (*ours)
		d->work_fn = addr;
	d->fn_seen[d->nr_fn_seen++ % 16] = (struct cap_fn_seen){ addr, *ours };
	return 0;
}

int cap_decode_record(struct cap_decoder *d, struct tep_record *rec, int cpu)
{
	unsigned long long val;
	struct cap_type *t = NULL;
	struct bc_event ev;
	struct cap_cpu *c;
	int id, pid, i, ret;

	c = get_cpu(d, cpu);
	if (!c)
		return bc_error(BC_E_NOMEM, "capture: bad cpu %d or out of memory", cpu);

	if (rec->missed_events) {
		int64_t count = rec->missed_events > 0 ? rec->missed_events : -1;

		ret = tdb_add_lost(d->db, cpu, c->seen ? c->last_ts : 0, rec->ts, count,
				   tdb_next_seq(d->db));
		if (ret)
			return ret;
		d->st.gaps++;
		if (count > 0)
			d->st.lost += (uint64_t)count;
	}
	c->seen = true;
	c->last_ts = rec->ts;

	id = cap_record_type(d, rec);
	if (id >= 0 && id < d->nr_types)
		t = &d->types[id];
	if (!t || t->kind == CAP_SKIP) {
		d->st.skipped++;
		c->last_seq = -1;
		return 0;
	}
	if (t->kind == CAP_STACK)
		return decode_stack(d, rec, c);

	pid = tep_data_pid(d->tep, rec);
	ret = note_pid(d, pid);
	if (ret)
		return ret;
	if (t->kind == CAP_MARKER) {
		c->last_seq = -1;
		return decode_marker(d, rec, cpu, pid);
	}

	if (rec->size < t->min_size)
		return bc_error(BC_E_FORMAT, "capture: cpu %d ts %llu: record of type %d is %d bytes, its format needs %d",
				cpu, rec->ts, id, rec->size, t->min_size);
	ev.ts = rec->ts;
	ev.pid = pid;
	ev.cpu = (uint16_t)cpu;
	ev.type = t->db_id;
	ev.nfields = t->nfields;
	for (i = 0; i < t->nfields; i++) {
		if (d->native)
			val = load_native((const uint8_t *)rec->data + t->offset[i], t->size[i]);
		else
			tep_read_number_field(t->field[i], rec->data, &val);
		if (t->sign_shift[i])
			ev.field[i] = (int64_t)(val << t->sign_shift[i]) >> t->sign_shift[i];
		else
			ev.field[i] = (int64_t)val;
	}
	if (t->work_fn >= 0) {
		bool ours;

		ret = is_work_fn(d, (unsigned long long)ev.field[t->work_fn], &ours);
		if (ret)
			return ret;
		if (!ours) {
			d->st.skipped++;
			c->last_seq = -1;
			return 0;
		}
		if (!d->work_noted) {
			ret = tdb_set_meta(d->db, TDB_META_TRACED_WORK_FN, cap_work_fn);
			if (ret)
				return ret;
			d->work_noted = true;
		}
	}
	ret = tdb_append_event(d->db, &ev);
	if (ret)
		return ret;
	c->last_seq = (int64_t)ev.seq;
	c->recent[c->next_recent].seq = (int64_t)ev.seq;
	c->recent[c->next_recent].tep_id = id;
	c->next_recent = (c->next_recent + 1) % CAP_RECENT;
	d->st.events++;
	return 0;
}
