/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capture: turn kernel trace records (live tracefs or trace.dat) and page-state
 * snapshots into a tdb capture file.
 *
 * Both sources decode records the same way (cap-decode.c): fields are looked up by
 * name in each event's format (cached per type), every numeric field is stored, old
 * layouts are accepted, and ring-buffer gaps become lost_events rows.
 */
#ifndef BC_CAPTURE_H
#define BC_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

struct tdb;
struct tep_handle;
struct tep_record;

/* Events recorded by default, "system:event" or "system:*". NULL-terminated. */
extern const char *const cap_default_events[];

/*
 * workqueue:workqueue_execute_start is stored for one work function only, the one whose
 * runs the allocator's state depends on and no mm event shows: vmstat_update() (per
 * cpu, about once a second: refresh_cpu_vm_stats() folds the cpu's NR_FREE_PAGES diffs
 * into the zone counters the watermarks read, and from 6.7 decay_pcp_high() shrinks
 * its pcp lists). The first one stored, or a live recording able to filter for it,
 * sets meta TDB_META_TRACED_WORK_FN to the name: a capture without it does not say
 * when vmstat_update() ran.
 */
extern const char cap_work_fn[];

struct cap_decoder;

/**
 * cap_decoder_create() - prepare decoding of records parsed by @tep into @db.
 * @events: NULL-terminated "system:event" list ("system:*" = every event of the
 *          system present in @tep). Each one is registered in event_types with its
 *          format text; one that @tep lacks is registered as missing (not an error;
 *          a missing "system:*" is registered as 'system:*'). NULL = every event of
 *          @tep except ftrace's own (ftrace:print is kept).
 * ftrace:print is stored as markers, ftrace:kernel_stack as the stack of the
 * previous event on the same CPU.
 * Return: 0 and *@out (caller frees with cap_decoder_destroy()), or a negative bc_err.
 */
int cap_decoder_create(struct tdb *db, struct tep_handle *tep, const char *const *events,
		       struct cap_decoder **out);

/**
 * cap_decode_record() - decode one record (records must come in time order across
 * CPUs) and append it to the db. Records of types not asked for are counted and
 * skipped. A record with missed_events != 0 first adds a lost_events row.
 * Return: 0 or a negative bc_err.
 */
int cap_decode_record(struct cap_decoder *d, struct tep_record *rec, int cpu);

/*
 * The address of cap_work_fn in the running kernel (a live recording: the kernel
 * filters on it too); without it the decoder looks each work function up in the
 * trace's symbols.
 */
void cap_decoder_set_work_fn(struct cap_decoder *d, unsigned long long addr);

/* The record's event type id, as tep_data_type() reads it (plain loads where it can). */
int cap_record_type(const struct cap_decoder *d, const struct tep_record *rec);

/* Counters for progress and the end summary. */
struct cap_decode_stats {
	uint64_t events;	/* stored */
	uint64_t markers;
	uint64_t stacks;
	uint64_t skipped;	/* types not asked for */
	uint64_t lost;		/* events known lost (sum of positive counts) */
	uint64_t gaps;		/* lost_events rows */
	uint64_t damaged;	/* of those, windows of unreadable ring-buffer data (import) */
};
void cap_decoder_stats(const struct cap_decoder *d, struct cap_decode_stats *st);

/* Frees the decoder (not the db or tep). NULL is allowed. */
void cap_decoder_destroy(struct cap_decoder *d);

struct tep_event;

/**
 * cap_format_text() - the kernel's format file of @ev rebuilt from what tep parsed:
 * name, ID, every "field:TYPE NAME; offset:N; size:N; signed:N;" line (common ones
 * first) and the print format string (without its argument list, which tep does not
 * keep as text). This is what cap_decoder_create() stores in event_types.format.
 * Return: malloc'ed text (caller frees), or NULL when out of memory.
 */
char *cap_format_text(const struct tep_event *ev);

/* ---- trace.dat import (cap-dat.c) ---- */

struct cap_import_opts {
	const char *clock;		/* NULL: the file's clock; else stored as meta 'clock' */
	/*
	 * Called about every 256 k records with the counters so far and the records read;
	 * a non-zero return stops the import with -BC_E_INTR. May be NULL.
	 */
	int (*progress)(const struct cap_decode_stats *st, uint64_t records, void *arg);
	void *progress_arg;
	/*
	 * Called once before libtracecmd opens the file, with the bytes of fresh memory
	 * the import is expected to touch: libtracecmd passes the kallsyms text through
	 * three buffers of its size (a short-lived importer can fault them in at once).
	 * May be NULL.
	 */
	void (*heap_hint)(size_t bytes);
};

/**
 * cap_import_dat() - decode a trace-cmd trace.dat (file version 6 or 7) into @db.
 * @instance: the buffer instance to import (recorded with 'trace-cmd record -B NAME');
 *            NULL picks the one buffer that holds events (the top buffer if it does).
 * @events:   as for cap_decoder_create(); NULL = every event whose format the file has
 *            (of ftrace's events only print, as markers, and kernel_stack, as stacks).
 * @opts:     may be NULL. @st: filled with the decode counters when not NULL.
 * Writes meta source=import, trace_file, trace_file_version, trace_cmd_version, clock,
 * uname, kernel_release, cpus, instance, and cpu_stats from the file's per-CPU
 * ring-buffer statistics. Does not call tdb_finish().
 * Return: 0 or a negative bc_err whose message names @path and what is wrong (not a
 * trace.dat, truncated or corrupt, unknown instance ...).
 */
int cap_import_dat(struct tdb *db, const char *path, const char *instance,
		   const char *const *events, const struct cap_import_opts *opts,
		   struct cap_decode_stats *st);

#endif
