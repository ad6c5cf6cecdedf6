// SPDX-License-Identifier: GPL-2.0
/*
 * capture/ trace.dat import, on the real trace-cmd fixtures in traces/ (made by the
 * scripts in traces/recipes):
 *   - every stored event agrees, field by field and by name, with what libtraceevent
 *     reads from the same record;
 *   - 'bigchunk import' keeps as many events of each type as 'trace-cmd report'
 *     prints, as many markers as print lines, the gaps it reports, and its overruns;
 *   - truncated, garbage and non-trace.dat input fail with exit 2, a message naming
 *     the file and the problem, and no output left behind.
 */
#include <check.h>
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#define LSAN_DISABLE()	__lsan_disable()
#define LSAN_ENABLE()	__lsan_enable()
#else
#define LSAN_DISABLE()	do { } while (0)
#define LSAN_ENABLE()	do { } while (0)
#endif

#include "capture/cap-kallsyms.h"
#include "capture/dat-check.h"
#include "capture/cap-stacks.h"
#include "capture/capture.h"
#include "common/err.h"
#include "db/tdb.h"
#include "tests/fixture.h"

/* vm-6.12.dat: Debian's 6.12 kernel in QEMU, recorded into the top buffer (no -B) */
static const char *const fixtures[] = { "traces/frag.dat", "traces/idle.dat", "traces/lost.dat",
					"traces/vm-6.12.dat" };
#define NR_FIXTURES ((int)(sizeof(fixtures) / sizeof(fixtures[0])))

/* ---- helpers ---- */

static char *slurp_cmd(const char *fmt, const char *arg, int *rc)
{
	char *cmd, *out = NULL;

	ck_assert_int_ge(asprintf(&cmd, fmt, arg, arg), 0);
	*rc = fixture_run(cmd, &out);
	free(cmd);
	return out;
}

static bool have_trace_cmd(const char *test)
{
	if (fixture_run("trace-cmd --version >/dev/null 2>&1", NULL) == 0 ||
	    fixture_run("command -v trace-cmd >/dev/null", NULL) == 0)
		return true;
	fixture_skip("trace-cmd is not installed");
	return false;
}

/* Import @dat in-process into a fresh capture (events = all in the file). */
static struct tdb *import_lib(const char *dat, const char *name, struct cap_decode_stats *st)
{
	char *path = fixture_tmpfile(name);
	struct tdb *db;
	int ret;

	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	ret = cap_import_dat(db, dat, NULL, NULL, NULL, st);
	ck_assert_msg(ret == 0, "import %s: %s", dat, bc_errmsg());
	ck_assert_int_eq(tdb_finish(db), 0);
	return db;
}

/* Run 'bigchunk import' on @dat; returns the exit status, output in *@out. */
static int import_bin(const char *dat, const char *db, const char *extra, char **out)
{
	char *cmd;
	int rc;

	ck_assert_int_ge(asprintf(&cmd, "%s import -q %s -o '%s' '%s'", fixture_bigchunk(),
				  extra ? extra : "", db, dat), 0);
	rc = fixture_run(cmd, out);
	free(cmd);
	return rc;
}

static int64_t sql_int(struct tdb *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	ck_assert_int_eq(sqlite3_prepare_v2(tdb_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static char *sql_text(struct tdb *db, const char *sql)
{
	sqlite3_stmt *st;
	char *v = NULL;

	ck_assert_int_eq(sqlite3_prepare_v2(tdb_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/* Events of type @name in a full in-process import of @dat. */
static int64_t count_type(const char *dat, const char *name)
{
	struct tdb_event_type **types;
	struct cap_decode_stats st;
	struct tdb_cursor *cur;
	struct bc_event ev;
	int64_t n = 0;
	struct tdb *db;
	int nr;

	db = import_lib(dat, "count.db", &st);
	ck_assert_int_eq(tdb_event_types(db, &types, &nr), 0);
	ck_assert_int_eq(tdb_cursor_open(db, 0, UINT64_MAX, &cur), 0);
	while (tdb_cursor_next(cur, &ev) == 1)
		n += !strcmp(types[ev.type]->name, name);
	tdb_cursor_close(cur);
	tdb_close(db);
	ck_assert_int_gt(n, 0);
	return n;
}

/* ---- decoding by field name, record by record ---- */

struct lockstep {
	struct tdb *db;
	struct tdb_cursor *cur;
	struct tdb_event_type **types;
	int nr_types;
	uint64_t compared, markers, stacks;
};

static int lockstep_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct lockstep *ls = data;
	struct tdb_event_type *t;
	struct tep_event *ev;
	struct bc_event got;
	int k;

	ev = tep_find_event(tep, tep_data_type(tep, rec));
	ck_assert_ptr_nonnull(ev);
	if (!strcmp(ev->system, "ftrace")) {
		if (!strcmp(ev->name, "print"))
			ls->markers++;
		else if (!strcmp(ev->name, "kernel_stack"))
			ls->stacks++;
		return 0;
	}
	ck_assert_int_eq(tdb_cursor_next(ls->cur, &got), 1);
	ck_assert_uint_eq(got.ts, rec->ts);
	ck_assert_int_eq(got.cpu, cpu);
	ck_assert_int_eq(got.pid, tep_data_pid(tep, rec));
	ck_assert_int_lt(got.type, ls->nr_types);
	t = ls->types[got.type];
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->system, ev->system);
	ck_assert_str_eq(t->name, ev->name);
	ck_assert_int_eq(got.nfields, t->nfields);
	for (k = 0; k < t->nfields; k++) {
		struct tep_format_field *f = tep_find_field(ev, t->field_names[k]);
		unsigned long long val;
		int64_t want;

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(tep_read_number_field(f, rec->data, &val), 0);
		want = (int64_t)val;
		if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8)
			want = (int64_t)(val << (64 - 8 * f->size)) >> (64 - 8 * f->size);
		ck_assert_msg(got.field[k] == want, "%s:%s seq %llu field %s: stored %lld, record %lld",
			      ev->system, ev->name, (unsigned long long)got.seq,
			      t->field_names[k], (long long)got.field[k], (long long)want);
	}
	ls->compared++;
	return 0;
}

START_TEST(test_decode_lockstep)
{
	const char *dat = fixture_path(fixtures[_i]);
	struct lockstep ls = { 0 };
	struct tracecmd_input *top, *h;
	struct cap_decode_stats st;
	struct bc_event extra;

	ls.db = import_lib(dat, "lockstep.db", &st);
	ck_assert_int_eq(tdb_event_types(ls.db, &ls.types, &ls.nr_types), 0);
	ck_assert_int_eq(tdb_cursor_open(ls.db, 0, UINT64_MAX, &ls.cur), 0);

	top = tracecmd_open(dat, 0);
	ck_assert_ptr_nonnull(top);
	/* The host's fixtures are recorded into one instance (-B), the VM's into the top. */
	ck_assert_int_le(tracecmd_buffer_instances(top), 1);
	h = tracecmd_buffer_instances(top) ? tracecmd_buffer_instance_handle(top, 0) : top;
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(tracecmd_iterate_events(h, NULL, 0, lockstep_cb, &ls), 0);
	ck_assert_int_eq(tdb_cursor_next(ls.cur, &extra), 0);

	ck_assert_uint_gt(ls.compared, 1000);
	ck_assert_uint_eq(ls.compared, st.events);
	ck_assert_uint_eq((uint64_t)tdb_event_count(ls.db), st.events);
	ck_assert_uint_eq(ls.markers, st.markers);
	ck_assert_int_eq(sql_int(ls.db, "SELECT count(*) FROM markers"), (int64_t)st.markers);
	/* Every stack here follows a stored event (record -T on mm events). */
	ck_assert_uint_eq(ls.stacks, st.stacks);
	ck_assert_int_eq(sql_int(ls.db, "SELECT count(*) FROM stacks"), (int64_t)st.stacks);
	ck_assert_uint_eq(st.skipped, 0);

	tdb_cursor_close(ls.cur);
	if (h != top)
		tracecmd_close(h);
	tracecmd_close(top);
	tdb_close(ls.db);
}
END_TEST

/* The stored fields of each mm event type are the format's numeric fields, by name. */
START_TEST(test_decode_field_names)
{
	static const struct {
		const char *sys, *name;
		const char *fields[6];
	} want[] = {
		{ "kmem", "mm_page_alloc", { "pfn", "order", "gfp_flags", "migratetype" } },
		{ "kmem", "mm_page_free", { "pfn", "order" } },
		{ "kmem", "mm_page_free_batched", { "pfn" } },
		{ "kmem", "mm_page_alloc_zone_locked",
		  { "pfn", "order", "migratetype", "percpu_refill" } },
		{ "kmem", "mm_page_pcpu_drain", { "pfn", "order", "migratetype" } },
		{ "compaction", "mm_compaction_kcompactd_sleep", { "nid" } },
	};
	struct tdb_event_type **types;
	struct cap_decode_stats st;
	size_t i, k;
	struct tdb *db;
	char *fmt;
	int nr, id;

	db = import_lib(fixture_path("traces/frag.dat"), "names.db", &st);
	ck_assert_int_eq(tdb_event_types(db, &types, &nr), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		id = tdb_event_type_id(db, want[i].sys, want[i].name);
		ck_assert_msg(id > 0, "%s:%s not registered", want[i].sys, want[i].name);
		for (k = 0; k < 6 && want[i].fields[k]; k++)
			ck_assert_int_eq(tdb_field_index(db, id, want[i].fields[k]), (int)k);
		ck_assert_int_eq(types[id]->nfields, (int)k);
	}
	/* The format text carries the kernel's field lines. */
	fmt = sql_text(db, "SELECT format FROM event_types WHERE name = 'mm_page_alloc'");
	ck_assert_ptr_nonnull(fmt);
	ck_assert_ptr_nonnull(strstr(fmt, "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"));
	ck_assert_ptr_nonnull(strstr(fmt, "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"));
	ck_assert_ptr_nonnull(strstr(fmt, "print fmt: \"page=%p pfn=0x%lx"));
	free(fmt);
	/* Markers keep the trace_marker text without the newline. */
	fmt = sql_text(db, "SELECT text FROM markers ORDER BY seq LIMIT 1");
	ck_assert_ptr_nonnull(fmt);
	ck_assert_str_eq(fmt, "bigchunk-fixture frag begin");
	free(fmt);
	ck_assert_int_gt(sql_int(db, "SELECT count(*) FROM comms"), 0);
	tdb_close(db);
}
END_TEST

/*
 * Stacks are symbolised, one "sym+0xoff" per line, innermost first, and belong to the
 * event before them on their CPU: with record -T the innermost frame is the event's
 * own trace_event_raw_event_<name>.
 */
START_TEST(test_decode_stacks)
{
	struct tdb_event_type **types;
	struct cap_decode_stats st;
	struct tdb_cursor *cur;
	uint64_t checked = 0;
	struct bc_event ev;
	sqlite3_stmt *q;
	struct tdb *db;
	int nr;

	db = import_lib(fixture_path("traces/idle.dat"), "stacks.db", &st);
	ck_assert_uint_gt(st.stacks, 100);
	ck_assert_int_eq(tdb_event_types(db, &types, &nr), 0);
	ck_assert_int_eq(tdb_cursor_open(db, 0, UINT64_MAX, &cur), 0);
	ck_assert_int_eq(sqlite3_prepare_v2(tdb_sqlite(db), "SELECT seq, frames FROM stacks ORDER BY seq",
					    -1, &q, NULL), SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW) {
		uint64_t seq = (uint64_t)sqlite3_column_int64(q, 0);
		const char *frames = (const char *)sqlite3_column_text(q, 1);
		char want[128];

		do
			ck_assert_int_eq(tdb_cursor_next(cur, &ev), 1);
		while (ev.seq < seq);
		ck_assert_uint_eq(ev.seq, seq);
		ck_assert_msg(strstr(frames, "+0x") && strchr(frames, '\n'), "frames: %s", frames);
		/* the function is named after the event's class: a prefix of its name */
		if (!strncmp(frames, "trace_event_raw_event_", 22)) {
			const char *cls = frames + 22, *end = strstr(cls, "+0x");

			ck_assert_ptr_nonnull(end);
			snprintf(want, sizeof(want), "%.*s", (int)(end - cls), cls);
			ck_assert_msg(!strncmp(types[ev.type]->name, want, strlen(want)),
				      "stack of seq %llu (%s) starts in %s",
				      (unsigned long long)seq, types[ev.type]->name, want);
			checked++;
		}
	}
	sqlite3_finalize(q);
	tdb_cursor_close(cur);
	ck_assert_uint_gt(checked, st.stacks / 2);
	/* each distinct stack stored once (a few hundred call paths, thousands of events) */
	ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM stack_frames"),
			 sql_int(db, "SELECT count(DISTINCT frames) FROM stacks"));
	ck_assert_int_lt(sql_int(db, "SELECT count(*) FROM stack_frames") * 10,
			 sql_int(db, "SELECT count(*) FROM stacks"));
	ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM stacks"), (int64_t)st.stacks);
	tdb_close(db);
}
END_TEST

/*
 * Stacks are symbolised once per distinct address list (capture/cap-stacks.c): a
 * repeated list gives the same text, lists that differ only in their last frame do
 * not, the list ends at a 0 or all-ones address, and the text stays right after the
 * cache was emptied for being half full.
 */
static void stack_words(uint64_t *w, int n, uint64_t first, uint64_t last)
{
	for (int i = 0; i < n; i++)
		w[i] = first + (uint64_t)i * 0x1000;
	w[n - 1] = last;
}

START_TEST(test_stack_cache)
{
	struct tep_handle *tep = tep_alloc();
	const char *text, *first;
	struct cap_stacks *sc;
	uint64_t a[4], b[4];
	char kallsyms[64 * 40];
	int i, len = 0;

	ck_assert_ptr_nonnull(tep);
	tep_set_long_size(tep, 8);
	for (i = 0; i < 64; i++)
		len += snprintf(kallsyms + len, sizeof(kallsyms) - (size_t)len,
				"%llx T fn%d\n", 0xffffffff81000000ULL + (unsigned long long)i * 0x1000, i);
	ck_assert_int_eq(tep_parse_kallsyms(tep, kallsyms), 0);
	ck_assert_int_eq(cap_stacks_create(tep, 8, &sc), 0);

	stack_words(a, 4, 0xffffffff81000010ULL, 0);
	ck_assert_int_eq(cap_stacks_lookup(sc, a, 4, &text, &first, NULL), 0);
	ck_assert_str_eq(text, "fn0+0x10\nfn1+0x10\nfn2+0x10");
	ck_assert_str_eq(first, "fn0");
	stack_words(b, 4, 0xffffffff81000010ULL, 0xffffffff81005004ULL);
	ck_assert_int_eq(cap_stacks_lookup(sc, b, 4, &text, &first, NULL), 0);
	ck_assert_str_eq(text, "fn0+0x10\nfn1+0x10\nfn2+0x10\nfn5+0x4");
	b[3] = ~0ULL;
	ck_assert_int_eq(cap_stacks_lookup(sc, b, 4, &text, &first, NULL), 0);
	ck_assert_str_eq(text, "fn0+0x10\nfn1+0x10\nfn2+0x10");
	ck_assert_int_eq(cap_stacks_lookup(sc, b, 0, &text, &first, NULL), 0);
	ck_assert_str_eq(text, "");
	ck_assert_ptr_null(first);
	/* more distinct lists than the cache holds: it is emptied on the way (the last
	 * symbol has no end: past its start the address has no symbol) */
	for (i = 0; i < 10000; i++) {
		char want[64];

		stack_words(b, 2, 0xffffffff81000000ULL + (uint64_t)(i % 63) * 0x1000 + (uint64_t)i / 63,
			    0xffffffff81003008ULL);
		ck_assert_int_eq(cap_stacks_lookup(sc, b, 2, &text, &first, NULL), 0);
		snprintf(want, sizeof(want), "fn%d+0x%x\nfn3+0x8", i % 63, i / 63);
		ck_assert_str_eq(text, want);
	}
	ck_assert_int_eq(cap_stacks_lookup(sc, a, 4, &text, &first, NULL), 0);
	ck_assert_str_eq(text, "fn0+0x10\nfn1+0x10\nfn2+0x10");
	cap_stacks_destroy(sc);
	tep_free(tep);
}
END_TEST

/*
 * workqueue:workqueue_execute_start is stored for vmstat_update() only: a trace-cmd
 * recording holds every work item's start, and the decoder looks each function up in
 * the trace's symbols (once per address). Of four records (another function, a
 * vmstat_update() run, an address inside vmstat_update() that is not its start, the
 * run again) two are stored, and meta traced_work_fn names the function; without any
 * run the meta stays unset (the capture does not say when it ran).
 */
static void work_record(struct tep_record *rec, uint8_t *data, int id, uint64_t fn,
			unsigned long long ts)
{
	uint16_t type = (uint16_t)id;
	int32_t pid = 42;

	memset(data, 0, 24);
	memcpy(data, &type, 2);
	memcpy(data + 4, &pid, 4);
	memcpy(data + 16, &fn, 8);
	*rec = (struct tep_record){ .ts = ts, .size = 24, .data = data, .cpu = 0 };
}

START_TEST(test_decode_work_fn)
{
	static const char fmt[] =
		"name: workqueue_execute_start\nID: 77\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:void * work;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:void * function;\toffset:16;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"work struct %p: function %ps\", REC->work, REC->function\n";
	static const char syms[] = "ffffffff81000000 t other_work\n"
				   "ffffffff81001000 t vmstat_update\n"
				   "ffffffff81002000 t vmstat_shepherd\n";
	static const uint64_t fns[4] = { 0xffffffff81000000ull, 0xffffffff81001000ull,
					 0xffffffff81001010ull, 0xffffffff81001000ull };
	const char *const events[] = { "workqueue:workqueue_execute_start", NULL };
	struct tep_handle *tep;
	struct cap_decoder *d;
	struct cap_decode_stats st;
	struct tep_record rec;
	uint8_t data[24];
	struct tdb *db;
	char *path, *fn;
	int pass, i;

	for (pass = 0; pass < 2; pass++) {
		tep = tep_alloc();
		ck_assert_ptr_nonnull(tep);
		tep_set_long_size(tep, 8);
		tep_set_file_bigendian(tep, tep_is_local_bigendian(tep));
		ck_assert_int_eq(tep_parse_event(tep, fmt, sizeof(fmt) - 1, "workqueue"), 0);
		ck_assert_int_eq(tep_parse_kallsyms(tep, syms), 0);
		path = fixture_tmpfile("work-fn.db");
		fixture_rm(path);
		ck_assert_int_eq(tdb_create(path, true, &db), 0);
		ck_assert_int_eq(cap_decoder_create(db, tep, events, &d), 0);
		for (i = 0; i < 4; i++) {
			if (pass == 1 && fns[i] == 0xffffffff81001000ull)
				continue;	/* no run of vmstat_update() */
			work_record(&rec, data, 77, fns[i], 1000 + (unsigned long long)i);
			ck_assert_int_eq(cap_decode_record(d, &rec, 0), 0);
		}
		cap_decoder_stats(d, &st);
		ck_assert_uint_eq(st.events, pass ? 0 : 2);
		ck_assert_uint_eq(st.skipped, 2);
		fn = tdb_get_meta(db, TDB_META_TRACED_WORK_FN);
		if (pass)
			ck_assert_ptr_null(fn);
		else
			ck_assert_str_eq(fn, "vmstat_update");
		free(fn);
		cap_decoder_destroy(d);
		tdb_close(db);
		tep_free(tep);
		fixture_rm(path);
	}
}
END_TEST

/*
 * The kallsyms text libtracecmd hands over while a trace.dat is opened is kept, not
 * parsed, while deferral is on (cap-kallsyms.h), and parsed by cap_kallsyms_load();
 * with deferral off it is parsed at once.
 */
START_TEST(test_kallsyms_deferred)
{
	static const char text[] = "ffffffff81000000 T fn_a\nffffffff81001000 T fn_b\n"
				   "ffffffff81002000 T fn_c\n";
	struct tep_handle *tep = tep_alloc(), *now = tep_alloc();

	ck_assert_ptr_nonnull(tep);
	ck_assert_ptr_nonnull(now);
	cap_kallsyms_defer(true);
	ck_assert_int_eq(tep_parse_kallsyms(tep, text), 0);
	/* nothing registered yet (asking tep_find_function() now would fix its map) */
	ck_assert_int_eq(tep_get_function_count(tep), 0);
	ck_assert_int_eq(cap_kallsyms_load(tep), 0);
	ck_assert_str_eq(tep_find_function(tep, 0xffffffff81001010ULL), "fn_b");
	ck_assert_int_eq(cap_kallsyms_load(tep), 0);	/* once */
	cap_kallsyms_defer(false);
	ck_assert_int_eq(tep_parse_kallsyms(now, text), 0);
	ck_assert_str_eq(tep_find_function(now, 0xffffffff81000008ULL), "fn_a");
	tep_free(tep);
	tep_free(now);
}
END_TEST

/* The first caller address of the first ftrace:kernel_stack record of @h. */
static unsigned long long first_stack_addr(struct tracecmd_input *h)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *ks = tep_find_event_by_name(tep, "ftrace", "kernel_stack");
	struct tep_format_field *caller;
	unsigned long long addr = 0;
	struct tep_record *r;
	int cpu;

	ck_assert_ptr_nonnull(ks);
	caller = tep_find_field(ks, "caller");
	ck_assert_ptr_nonnull(caller);
	for (cpu = 0; cpu < 2 && !addr; cpu++) {
		r = tracecmd_read_cpu_first(h, cpu);
		while (r) {
			if (tep_data_type(tep, r) == ks->id)
				memcpy(&addr, (char *)r->data + caller->offset, 8);
			tracecmd_free_record(r);
			r = addr ? NULL : tracecmd_read_data(h, cpu);
		}
	}
	ck_assert_uint_ne(addr, 0);
	return addr;
}

/*
 * The compressed kallsyms block of a version 7 file is not even decompressed while
 * libtracecmd opens it (cap_kallsyms_defer_block(): two thirds of importing a short
 * trace of Debian's kernels, 6.9 MB of text): pending after the open, read at
 * cap_kallsyms_load(), and the first stack of idle.dat then reads as with
 * libtracecmd's own open.
 */
START_TEST(test_kallsyms_block_deferred)
{
	const char *dat = fixture_path("traces/idle.dat");
	struct tracecmd_input *top, *ref, *h, *rh;
	unsigned long long addr;
	struct dat_layout lay;
	const char *want, *got;

	ck_assert_int_eq(dat_check(dat, &lay), 0);
	ck_assert_uint_gt(lay.kallsyms_block, 0);
	ref = tracecmd_open(dat, 0);
	ck_assert_ptr_nonnull(ref);
	rh = tracecmd_buffer_instance_handle(ref, 0);
	ck_assert_ptr_nonnull(rh);
	addr = first_stack_addr(rh);
	want = tep_find_function(tracecmd_get_tep(rh), addr);
	ck_assert_ptr_nonnull(want);

	cap_kallsyms_defer(true);
	cap_kallsyms_defer_block(dat, lay.kallsyms_block);
	top = tracecmd_open(dat, 0);
	ck_assert_ptr_nonnull(top);
	ck_assert_msg(cap_kallsyms_block_pending(), "the kallsyms block was decompressed at open");
	h = tracecmd_buffer_instance_handle(top, 0);
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(tep_get_function_count(tracecmd_get_tep(h)), 0);
	ck_assert_int_eq(cap_kallsyms_load(tracecmd_get_tep(h)), 0);
	ck_assert(!cap_kallsyms_block_pending());
	got = tep_find_function(tracecmd_get_tep(h), first_stack_addr(h));
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	cap_kallsyms_defer(false);
	tracecmd_close(h);
	tracecmd_close(top);
	tracecmd_close(rh);
	tracecmd_close(ref);
	dat_layout_free(&lay);
}
END_TEST

/*
 * The table cap_kallsyms_load() builds answers as libtraceevent's own parse does: the
 * same symbol and start for addresses at, just before and after every symbol, on
 * this machine's /proc/kallsyms (sorted, with modules and symbols sharing an address)
 * and on a text that is unsorted, with absolute and '$' symbols, modules, duplicates.
 */
static void same_symbols(const char *text)
{
	struct tep_handle *lib = tep_alloc(), *ours = tep_alloc();
	const char *p;
	int n = 0;

	ck_assert_ptr_nonnull(lib);
	ck_assert_ptr_nonnull(ours);
	ck_assert_int_eq(tep_parse_kallsyms(lib, text), 0);
	cap_kallsyms_defer(true);
	ck_assert_int_eq(tep_parse_kallsyms(ours, text), 0);
	ck_assert_int_eq(cap_kallsyms_load(ours), 0);
	for (p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		unsigned long long base = strtoull(p, NULL, 16);

		for (long long d = -1; d <= 16; d += d < 1 ? 1 : 15) {
			unsigned long long a = base + (unsigned long long)d;
			const char *x = tep_find_function(lib, a), *y = tep_find_function(ours, a);

			ck_assert_msg(x == y || (x && y && !strcmp(x, y)),
				      "%#llx: libtraceevent says %s, ours %s", a, x, y);
			ck_assert_uint_eq(tep_find_function_address(lib, a),
					  tep_find_function_address(ours, a));
			n++;
		}
	}
	ck_assert_int_gt(n, 0);
	cap_kallsyms_defer(false);
	tep_free(lib);
	tep_free(ours);
}

START_TEST(test_kallsyms_table)
{
	static const char odd[] =
		"ffffffff81002000 T fn_c\n"
		"ffffffff81000000 T first\n"
		"ffffffff81000000 t also_first\n"
		"0000000000001000 A per_cpu_thing\n"
		"ffffffff81001000 T fn_b\n"
		"ffffffff81000000 T third_first\n"
		"ffffffff81001800 t $x\n"
		"\n"
		"ffffffffc0001000 t mod_fn\t[some_mod]\n"
		"ffffffff81003000 a abs_lower\n"
		"ffffffff81001000 W fn_b_weak\n"
		/* lines the quick reader leaves to the full one (cap-kallsyms.c) */
		"ffffffff81004000  T two_spaces\n"
		"  ffffffff81005000 T leading_spaces\n"
		"ffffffff81006000\tt tab_before_type\n"
		"FFFFFFFF81007000 T upper_hex\n"
		"81008000 T short_address\n"
		"ffffffff81009000 t  spaces_before_name\n"
		"ffffffff8100a000 T\tname_after_tab\n"
		"ffffffff8100b000 T x\n";
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	same_symbols(odd);
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	ck_assert_int_ge(getdelim(&text, &len, '\0', f), 0);
	fclose(f);
	same_symbols(text);
	free(text);
}
END_TEST

/*
 * Every byte value at the first, last and middle digits of an address: a hex digit
 * (either case) reads as its value, anything else makes the text unreadable
 * (-BC_E_FORMAT), by the quick reader and the full one alike. Spaces and tabs are left
 * out: at the ends they are separators both readers accept.
 */
START_TEST(test_kallsyms_digits)
{
	static const int at[] = { 0, 7, 8, 15 };
	char line[64];
	int c, i;

	for (i = 0; i < 4; i++) {
		for (c = 1; c < 256; c++) {
			unsigned long long want = 0xffffffff81234567ULL, shift;
			bool digit = isxdigit(c);
			struct tep_handle *tep;
			int ret;

			if (c == '\n' || c == ' ' || c == '\t')
				continue;
			tep = tep_alloc();
			ck_assert_ptr_nonnull(tep);
			snprintf(line, sizeof(line), "%016llx T sym\n", want);
			line[at[i]] = (char)c;
			shift = 4ULL * (unsigned long long)(15 - at[i]);
			if (digit)
				want = (want & ~(15ULL << shift)) |
				       (unsigned long long)(isdigit(c) ? c - '0' : (c | 0x20) - 'a' + 10)
				       << shift;
			cap_kallsyms_defer(true);
			ck_assert_int_eq(tep_parse_kallsyms(tep, line), 0);
			ret = cap_kallsyms_load(tep);
			if (digit) {
				ck_assert_msg(ret == 0, "byte %#x at %d: %d", c, at[i], ret);
				ck_assert_uint_eq(tep_find_function_address(tep, want), want);
				ck_assert_str_eq(tep_find_function(tep, want), "sym");
			} else {
				ck_assert_msg(ret == -BC_E_FORMAT, "byte %#x at %d read as a digit",
					      c, at[i]);
			}
			cap_kallsyms_defer(false);
			tep_free(tep);
		}
	}
}
END_TEST

/* ---- counts against trace-cmd report ---- */

struct name_count {
	char name[64];
	int64_t n;
};

static void count_add(struct name_count *c, int *nr, const char *name, size_t len, int64_t n)
{
	int i;

	for (i = 0; i < *nr; i++)
		if (strlen(c[i].name) == len && !strncmp(c[i].name, name, len)) {
			c[i].n += n;
			return;
		}
	ck_assert_int_lt(*nr, 256);
	snprintf(c[*nr].name, sizeof(c[*nr].name), "%.*s", (int)len, name);
	c[(*nr)++].n = n;
}

static int64_t count_of(const struct name_count *c, int nr, const char *name)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(c[i].name, name))
			return c[i].n;
	return 0;
}

START_TEST(test_import_counts_match_report)
{
	const char *dat = fixture_path(fixtures[_i]);
	char *out = NULL, *line, *save, *report;
	struct name_count rep[256], got[256];
	int nrep = 0, ngot = 0, rc, i;
	int64_t gaps = 0, dropped = 0;
	struct tdb_event_type **types;
	struct tdb_cursor *cur;
	regex_t re_ev, re_drop;
	regmatch_t m[3];
	struct bc_event ev;
	char *dbpath;
	struct tdb *db;
	int nr;

	if (!have_trace_cmd("import_counts_match_report"))
		return;
	dbpath = fixture_tmpfile("counts.db");
	rc = import_bin(dat, dbpath, NULL, &out);
	ck_assert_msg(rc == 0, "import %s: rc %d: %s", dat, rc, out);
	free(out);

	report = slurp_cmd("trace-cmd report -i '%s' 2>/dev/null", dat, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(regcomp(&re_ev, "\\] +[0-9]+\\.[0-9]+: ([a-z_0-9]+):", REG_EXTENDED), 0);
	ck_assert_int_eq(regcomp(&re_drop, "CPU:([0-9]+) \\[([0-9]+ )?EVENTS DROPPED\\]",
				 REG_EXTENDED), 0);
	for (line = strtok_r(report, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!regexec(&re_ev, line, 2, m, 0)) {
			count_add(rep, &nrep, line + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so), 1);
		} else if (!regexec(&re_drop, line, 3, m, 0)) {
			gaps++;
			if (m[2].rm_so >= 0)
				dropped += strtoll(line + m[2].rm_so, NULL, 10);
		}
	}
	regfree(&re_ev);
	regfree(&re_drop);
	free(report);
	ck_assert_int_gt(nrep, 0);

	ck_assert_int_eq(tdb_open(dbpath, TDB_READONLY, &db), 0);
	ck_assert_int_eq(tdb_event_types(db, &types, &nr), 0);
	ck_assert_int_eq(tdb_cursor_open(db, 0, UINT64_MAX, &cur), 0);
	while ((rc = tdb_cursor_next(cur, &ev)) == 1)
		count_add(got, &ngot, types[ev.type]->name, strlen(types[ev.type]->name), 1);
	ck_assert_int_eq(rc, 0);
	tdb_cursor_close(cur);

	for (i = 0; i < nrep; i++) {
		int64_t have;

		if (!strcmp(rep[i].name, "print"))
			have = sql_int(db, "SELECT count(*) FROM markers");
		else if (!strcmp(rep[i].name, "kernel_stack"))
			have = sql_int(db, "SELECT count(*) FROM stacks");
		else
			have = count_of(got, ngot, rep[i].name);
		ck_assert_msg(have == rep[i].n, "%s: %s: trace-cmd report shows %lld, import stored %lld",
			      dat, rep[i].name, (long long)rep[i].n, (long long)have);
	}
	for (i = 0; i < ngot; i++)
		ck_assert_int_eq(count_of(rep, nrep, got[i].name), got[i].n);

	ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM lost_events"), gaps);
	ck_assert_int_eq(sql_int(db, "SELECT coalesce(sum(count), 0) FROM lost_events WHERE count > 0"),
			 dropped);
	tdb_close(db);
}
END_TEST

/* Per-CPU overrun in cpu_stats equals what trace-cmd report --stat shows. */
START_TEST(test_import_cpu_stats)
{
	const char *dat = fixture_path("traces/lost.dat");
	char *out, *line, *save, sql[128];
	int rc, cpu = -1, seen = 0;
	struct cap_decode_stats st;
	struct tdb *db;

	if (!have_trace_cmd("import_cpu_stats"))
		return;
	db = import_lib(dat, "stats.db", &st);
	out = slurp_cmd("trace-cmd report --stat -i '%s' 2>/dev/null", dat, &rc);
	ck_assert_int_eq(rc, 0);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "CPU: ", 5))
			cpu = atoi(line + 5);
		else if (cpu >= 0 && !strncmp(line, "overrun: ", 9)) {
			snprintf(sql, sizeof(sql),
				 "SELECT value FROM cpu_stats WHERE cpu = %d AND key = 'overrun'", cpu);
			ck_assert_int_eq(sql_int(db, sql), strtoll(line + 9, NULL, 10));
			seen++;
		}
	}
	free(out);
	ck_assert_int_ge(seen, 1);
	ck_assert_int_gt(sql_int(db, "SELECT sum(value) FROM cpu_stats WHERE key = 'overrun'"), 0);
	tdb_close(db);
}
END_TEST

/* Gaps: each lost_events row sits between the events around it on its CPU. */
START_TEST(test_import_lost_preserved)
{
	struct cap_decode_stats st;
	struct tdb_cursor *cur;
	struct bc_event ev;
	sqlite3_stmt *q;
	struct tdb *db;
	int rows = 0;

	db = import_lib(fixture_path("traces/lost.dat"), "lost.db", &st);
	ck_assert_uint_gt(st.gaps, 0);
	ck_assert_uint_gt(st.lost, 0);
	ck_assert_int_eq(sqlite3_prepare_v2(tdb_sqlite(db), "SELECT cpu, ts_from, ts_to, count, seq "
					    "FROM lost_events ORDER BY seq", -1, &q, NULL), SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW) {
		int cpu = sqlite3_column_int(q, 0);
		uint64_t from = (uint64_t)sqlite3_column_int64(q, 1);
		uint64_t to = (uint64_t)sqlite3_column_int64(q, 2);
		int64_t count = sqlite3_column_int64(q, 3);
		uint64_t seq = (uint64_t)sqlite3_column_int64(q, 4);

		ck_assert(count == -1 || count > 0);
		ck_assert_uint_lt(from, to);
		/* every type of lost.dat is stored: the record after the gap is event seq */
		ck_assert_int_eq(tdb_cursor_open(db, seq, seq + 1, &cur), 0);
		ck_assert_int_eq(tdb_cursor_next(cur, &ev), 1);
		ck_assert_uint_eq(ev.ts, to);
		ck_assert_int_eq(ev.cpu, cpu);
		tdb_cursor_close(cur);
		rows++;
	}
	sqlite3_finalize(q);
	ck_assert_uint_eq((uint64_t)rows, st.gaps);
	tdb_close(db);
}
END_TEST

/* File version 6 (trace-cmd convert --file-version 6) imports the same. */
START_TEST(test_import_v6)
{
	char *v6 = fixture_tmpfile("lost-v6.dat"), *cmd, *out;
	struct cap_decode_stats st6, st7;
	struct dat_layout l6, l7;
	struct tdb *db6, *db7;

	if (!have_trace_cmd("import_v6"))
		return;
	ck_assert_int_ge(asprintf(&cmd, "trace-cmd convert --file-version 6 -i '%s' -o '%s'",
				  fixture_path("traces/lost.dat"), v6), 0);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	free(cmd);
	free(out);
	/* libtracecmd 3.1 leaks the clock name of a version 6 file (in
	 * tracecmd_parse_trace_clock): not ours, keep it out of make asan's report */
	LSAN_DISABLE();
	db6 = import_lib(v6, "v6.db", &st6);
	LSAN_ENABLE();
	db7 = import_lib(fixture_path("traces/lost.dat"), "v7.db", &st7);
	ck_assert_int_eq(tdb_get_meta_int(db6, "trace_file_version", 0), 6);
	ck_assert_uint_eq(st6.events, st7.events);
	ck_assert_uint_eq(st6.markers, st7.markers);
	ck_assert_uint_eq(st6.gaps, st7.gaps);
	ck_assert_uint_eq(st6.lost, st7.lost);
	/* The kallsyms size read ahead: the text itself in version 6; in the compressed
	 * version 7 the uncompressed block (the text and its 4-byte size) plus the
	 * compressed block, which is shorter than the file. */
	ck_assert_int_eq(dat_check(v6, &l6), 0);
	ck_assert_int_eq(dat_check(fixture_path("traces/lost.dat"), &l7), 0);
	ck_assert_uint_gt(l6.kallsyms_size, 0);
	ck_assert(l7.compressed);
	ck_assert_uint_gt(l7.kallsyms_size, l6.kallsyms_size + 4);
	ck_assert_uint_lt(l7.kallsyms_size - l6.kallsyms_size - 4, l7.file_size);
	dat_layout_free(&l6);
	dat_layout_free(&l7);
	tdb_close(db6);
	tdb_close(db7);
	fixture_rm(v6);
}
END_TEST

/* ---- the command ---- */

START_TEST(test_import_cli_meta)
{
	const char *dat = fixture_path("traces/frag.dat");
	char *dbpath = fixture_tmpfile("meta.db"), *out, *v;
	struct stat sb;
	struct tdb *db;
	int rc;

	rc = import_bin(dat, dbpath, "--clock mono -e kmem:mm_page_alloc -e cma:* -e ftrace:print",
			&out);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, out);
	free(out);
	ck_assert_int_eq(stat(dbpath, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	ck_assert_int_eq(tdb_open(dbpath, TDB_READONLY, &db), 0);
	v = tdb_get_meta(db, "source");
	ck_assert_str_eq(v, "import");
	free(v);
	v = tdb_get_meta(db, "clock");
	ck_assert_str_eq(v, "mono");
	free(v);
	v = tdb_get_meta(db, "complete");
	ck_assert_str_eq(v, "1");
	free(v);
	v = tdb_get_meta(db, "kernel_release");
	ck_assert_ptr_nonnull(v);
	ck_assert_int_gt(strlen(v), 0);
	free(v);
	ck_assert_int_eq(tdb_get_meta_int(db, "cpus", 0), 2);
	ck_assert_int_eq(tdb_get_meta_int(db, "trace_file_version", 0), 7);
	/* only what was asked for; the absent cma system is registered missing */
	ck_assert_int_eq(sql_int(db, "SELECT missing FROM event_types WHERE system = 'cma' AND name = '*'"), 1);
	ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM event_types WHERE missing = 0"), 2);
	ck_assert_int_eq(tdb_event_count(db), count_type(fixture_path("traces/frag.dat"),
							 "mm_page_alloc"));
	ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM markers WHERE text LIKE 'bigchunk-fixture frag %'"), 2);
	tdb_close(db);

	/* no clobbering without -f */
	rc = import_bin(dat, dbpath, NULL, &out);
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(out, "exists"));
	free(out);

	/* unknown instance: the message lists the real one */
	fixture_rm(dbpath);
	rc = import_bin(dat, dbpath, "-B nosuch", &out);
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(out, "nosuch"));
	ck_assert_ptr_nonnull(strstr(out, "bcfix"));
	free(out);
	fixture_assert_no_output(dbpath);
}
END_TEST

/* --snapshot: both snapshot directories of frag.dat load and align by their markers. */
START_TEST(test_import_snapshots)
{
	const char *dat = fixture_path("traces/frag.dat");
	char *dbpath = fixture_tmpfile("snap.db"), *out, extra[2200];
	struct tdb *db;
	int rc;

	snprintf(extra, sizeof(extra), "--snapshot '%s' --snapshot '%s'",
		 fixture_path("traces/frag.snap/begin"), fixture_path("traces/frag.snap/end"));
	rc = import_bin(dat, dbpath, extra, &out);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, out);
	ck_assert_msg(!strstr(out, "warning"), "%s", out);
	free(out);
	ck_assert_int_eq(tdb_open(dbpath, TDB_READONLY, &db), 0);
	ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM snapshots WHERE complete = 1"), 2);
	ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM snapshots WHERE ts_begin IS NULL "
				     "OR seq_begin IS NULL OR seq_end IS NULL"), 0);
	/* begin is before end, both inside the trace, in order */
	ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM snapshots a, snapshots b "
				     "WHERE a.id < b.id AND a.seq_end <= b.seq_begin"), 1);
	ck_assert_int_gt(sql_int(db, "SELECT min(seq_begin) FROM snapshots"), 0);
	ck_assert_int_lt(sql_int(db, "SELECT max(seq_end) FROM snapshots"), tdb_event_count(db));
	ck_assert_int_gt(sql_int(db, "SELECT count(*) FROM zones"), 0);
	tdb_close(db);

	/* a missing snapshot directory fails the whole import */
	fixture_rm(dbpath);
	rc = import_bin(dat, dbpath, "--snapshot /nonexistent/snap", &out);
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(out, "/nonexistent/snap"));
	free(out);
	fixture_assert_no_output(dbpath);
}
END_TEST

START_TEST(test_import_help)
{
	char *cmd, *out;
	int rc;

	ck_assert_int_ge(asprintf(&cmd, "%s import --help", fixture_bigchunk()), 0);
	rc = fixture_run(cmd, &out);
	free(cmd);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(out, "--snapshot DIR"));
	ck_assert_ptr_nonnull(strstr(out, "-B, --instance"));
	free(out);
	ck_assert_int_ge(asprintf(&cmd, "%s import -o x.db", fixture_bigchunk()), 0);
	ck_assert_int_eq(fixture_run(cmd, NULL), 2);
	free(cmd);
}
END_TEST

/* Write @len bytes of @src (0: all) followed by @junk random bytes to @dst. */
static void make_bad(const char *dst, const char *src, long len, long junk)
{
	FILE *in = src ? fopen(src, "rb") : NULL, *out = fopen(dst, "wb");
	unsigned int seed = 1;
	int c;

	ck_assert_ptr_nonnull(out);
	if (src) {
		ck_assert_ptr_nonnull(in);
		while ((len < 0 || len-- > 0) && (c = fgetc(in)) != EOF)
			fputc(c, out);
		fclose(in);
	}
	while (junk-- > 0)
		fputc(rand_r(&seed) & 0xff, out);
	fclose(out);
}

START_TEST(test_import_bad_input)
{
	static const struct {
		long keep;		/* bytes of frag.dat kept (0 none; < 0: -permille) */
		long junk;		/* random bytes appended */
		const char *what;	/* expected in the message */
	} cases[] = {
		{ -500, 0, "truncated" },	/* cut in the middle */
		{ -950, 0, "truncated" },	/* cut near the end */
		{ -100, 0, "truncated" },	/* cut in the headers */
		{ 5, 0, "truncated" },		/* cut in the magic */
		{ 0, 5000, "not a trace.dat" },	/* garbage */
		{ 4096, 100000, "corrupt" },	/* trace.dat header, garbage after */
		{ 0, 0, "not a trace.dat" },	/* empty */
	};
	struct stat sb;
	const char *frag = fixture_path("traces/frag.dat");
	char *bad = fixture_tmpfile("bad.dat"), *dbpath = fixture_tmpfile("bad.db"), *out;
	char *keep = fixture_tmpfile("keep.db");
	size_t i;
	FILE *fp;
	int rc;

	ck_assert_int_eq(stat(frag, &sb), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long keep = cases[i].keep < 0 ? (long)sb.st_size * -cases[i].keep / 1000 :
			    cases[i].keep;

		make_bad(bad, keep ? frag : NULL, keep, cases[i].junk);
		rc = import_bin(bad, dbpath, NULL, &out);
		ck_assert_msg(rc == 2, "case %zu: rc %d: %s", i, rc, out);
		ck_assert_msg(strstr(out, bad) && strstr(out, cases[i].what),
			      "case %zu: message should name %s and say '%s': %s", i, bad,
			      cases[i].what, out);
		free(out);
		fixture_assert_no_output(dbpath);
	}

	/* -f over an existing file: a failed import leaves that file alone */
	fp = fopen(keep, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("keep me\n", fp);
	fclose(fp);
	make_bad(bad, frag, (long)sb.st_size / 2, 0);
	rc = import_bin(bad, keep, "-f", &out);
	ck_assert_int_eq(rc, 2);
	free(out);
	out = slurp_cmd("cat '%s'", keep, &rc);
	ck_assert_str_eq(out, "keep me\n");
	free(out);

	rc = import_bin("/nonexistent/trace.dat", dbpath, NULL, &out);
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(out, "/nonexistent/trace.dat"));
	free(out);
	fixture_assert_no_output(dbpath);
}
END_TEST

/* The library itself: errors come back as codes with the file in the message. */
START_TEST(test_import_lib_errors)
{
	char *bad = fixture_tmpfile("lib-bad.dat"), *path = fixture_tmpfile("lib.db");
	struct tdb *db;

	make_bad(bad, NULL, 0, 3000);
	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	ck_assert_int_eq(cap_import_dat(db, bad, NULL, NULL, NULL, NULL), -BC_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), bad));
	make_bad(bad, fixture_path("traces/frag.dat"), 1000000, 0);
	ck_assert_int_eq(cap_import_dat(db, bad, NULL, NULL, NULL, NULL), -BC_E_TRUNCATED);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "truncated"));
	ck_assert_int_eq(cap_import_dat(db, fixture_path("traces/frag.dat"), "nosuch", NULL, NULL,
					NULL), -BC_E_NOENT);
	tdb_close(db);
}
END_TEST

static int stop_at_first(const struct cap_decode_stats *st, uint64_t records, void *arg)
{
	*(uint64_t *)arg = records;
	return 1;
}

/* A progress callback that says stop ends the import with -BC_E_INTR, early. */
START_TEST(test_import_progress_stop)
{
	char *path = fixture_tmpfile("stop.db");
	struct cap_import_opts opts = { .progress = stop_at_first };
	struct cap_decode_stats st;
	uint64_t at = 0;
	struct tdb *db;

	opts.progress_arg = &at;
	ck_assert_int_eq(tdb_create(path, false, &db), 0);
	ck_assert_int_eq(cap_import_dat(db, fixture_path("traces/frag.dat"), NULL, NULL, &opts, &st),
			 -BC_E_INTR);
	ck_assert_uint_gt(at, 0);
	/* stopped at the first progress call, not at the end of the file */
	ck_assert_uint_le(st.events, at);
	tdb_close(db);
}
END_TEST

Suite *import_suite(void)
{
	Suite *s = suite_create("import");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits");

	tcase_set_timeout(core, 120);
	tcase_add_loop_test(core, test_decode_lockstep, 0, NR_FIXTURES);
	tcase_add_test(core, test_decode_field_names);
	tcase_add_test(core, test_decode_stacks);
	tcase_add_test(core, test_stack_cache);
	tcase_add_test(core, test_decode_work_fn);
	tcase_add_test(core, test_kallsyms_deferred);
	tcase_add_test(core, test_kallsyms_block_deferred);
	tcase_add_test(core, test_kallsyms_table);
	tcase_add_test(core, test_kallsyms_digits);
	tcase_add_loop_test(core, test_import_counts_match_report, 0, NR_FIXTURES);
	tcase_add_test(core, test_import_cpu_stats);
	tcase_add_test(core, test_import_lost_preserved);
	tcase_add_test(core, test_import_v6);
	tcase_add_test(core, test_import_cli_meta);
	tcase_add_test(core, test_import_snapshots);
	tcase_add_test(core, test_import_help);
	suite_add_tcase(s, core);

	tcase_set_timeout(limits, 120);
	tcase_add_test(limits, test_import_bad_input);
	tcase_add_test(limits, test_import_lib_errors);
	tcase_add_test(limits, test_import_progress_stop);
	suite_add_tcase(s, limits);
	return s;
}
