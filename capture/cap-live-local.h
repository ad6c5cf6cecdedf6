/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cap-live-local.h - internals of 'bigchunk record' (cap-live.h), shared by its files.
 * Never included outside capture/.
 *
 *   cap-live.c          the run: setup order, the polling loop, snapshots, progress,
 *                       teardown (cap_live_record())
 *   cap-live-tracefs.c  our tracefs instance: stale ones, create, configure, events,
 *                       stack trigger, trace_marker, per-CPU stats, untrace
 *   cap-live-readers.c  the temporary directory, per-CPU raw files, reader threads
 *   cap-live-child.c    the command being recorded
 *   cap-live-convert.c  raw files -> cap_decode_record() in time order, and the lost
 *                       events no record carries
 *   cap-live-meta.c     meta rows and the comm table
 *
 * All state of one recording is a struct live, owned by cap_live_record().
 */
#ifndef BC_CAP_LIVE_LOCAL_H
#define BC_CAP_LIVE_LOCAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "capture/cap-live.h"

#define NSEC_PER_SEC		1000000000ULL
#define POLL_NS			(50 * 1000 * 1000ULL)	/* main loop tick */
#define PROGRESS_NS		NSEC_PER_SEC
#define BUFFER_PERCENT		"25"	/* wake readers early: 3/4 of the buffer is slack */
#define CHILD_TERM_WAIT_NS	(5 * NSEC_PER_SEC)
#define STACK_TRIGGER		"stacktrace if migratetype != 1"	/* 1 = MIGRATE_MOVABLE */

struct live;
struct tracefs_instance;
struct tracefs_cpu;
struct tep_handle;
struct cap_decoder;

/* One CPU's ring buffer reader and its raw file. */
struct live_cpu {
	struct live *lv;
	int cpu;
	struct tracefs_cpu *tcpu;
	int fd;				/* raw file, written by the thread */
	char *path;
	pthread_t thread;
	bool running;			/* thread created and not joined */
	int err;			/* errno of a failed splice/write (thread) */
	const char *err_what;
	uint64_t bytes;			/* written so far (thread; read relaxed) */
};

struct live {
	struct tdb *db;
	const struct cap_live_opts *o;
	struct cap_live_result *res;
	char name[64];			/* instance name */
	struct tracefs_instance *inst;
	bool inst_ours;			/* created by us: destroy it */
	bool trigger_set;
	int marker_fd;
	struct tep_handle *tep;
	struct cap_decoder *dec;
	char **systems;			/* event systems whose formats tep holds */
	char *tmpdir;
	struct live_cpu *cpus;
	int ncpus;
	int subbuf_size;
	int done;			/* readers: drain and exit (atomic) */
	pid_t child;
	bool child_reaped;
	uint64_t t_on, t_off;		/* mono ns: tracing on / off */
	int nperiodic;
	uint64_t end_gaps, end_lost;	/* gaps after a CPU's last record (no record carries them) */
	/* progress */
	uint64_t prog_last_ns, prog_last_events;
};

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };

	nanosleep(&ts, NULL);	/* a signal cuts it short, which is what we want */
}

static inline bool stop_requested(const struct live *lv)
{
	return lv->o->stop && *lv->o->stop;
}

/* Fill @p's rate (since the last report) and snapshots, and report it (cap-live.c). */
void live_progress(struct live *lv, struct cap_live_progress *p, uint64_t now);
/* One line through the caller's note callback, if any (cap-live.c). */
void live_note(struct live *lv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- cap-live-tracefs.c ---- */

/* Root, tracefs mounted, stale instances gone, ours created (lv->inst). */
int live_open_instance(struct live *lv);
/* Clock, buffer size and events of @events enabled; lv->tep, lv->dec, the stack
 * trigger and lv->marker_fd set up. */
int live_setup_tracing(struct live *lv, const char *const *events);
/* Add per_cpu/cpuN/stats to the counts (entries, lost) and, with @store, to cpu_stats. */
int live_read_cpu_stats(struct live *lv, int cpu, bool store, uint64_t *written,
			uint64_t *lost);
/* Undo everything done to tracefs. Safe to call more than once. */
void live_untrace(struct live *lv);
/* Free lv->tep and lv->systems. */
void live_free_formats(struct live *lv);

/* ---- cap-live-readers.c ---- */

/* The temporary directory next to the capture, then one raw file and reader per CPU. */
int live_make_tmpdir(struct live *lv);
int live_open_cpus(struct live *lv);
int live_start_readers(struct live *lv);
/* The first reader failure as a bc_err, else 0. */
int live_reader_error(struct live *lv);
/* Tell the readers to drain and exit, and wait for them. Tracing should be off. */
int live_stop_readers(struct live *lv);
/* Close and delete the raw files and the directory; free the per-CPU state (after
 * live_untrace(), which closes the CPUs' trace_pipe_raw). */
void live_remove_tmpdir(struct live *lv);

/* ---- cap-live-child.c ---- */

int live_start_child(struct live *lv);
/* Return: true once the command has exited (reaping it). */
bool live_child_exited(struct live *lv);
/* Recording stopped before the command did: SIGTERM, then SIGKILL after a while. */
void live_end_child(struct live *lv);

/* ---- cap-live-convert.c ---- */

/* Raw files -> the db, CPUs merged by timestamp. */
int live_convert(struct live *lv);

/* ---- cap-live-meta.c ---- */

int live_store_start_meta(struct live *lv, const char *const *events);
int live_store_end_meta(struct live *lv);
/* pid -> comm from the kernel's saved_cmdlines. */
int live_store_comms(struct live *lv);

#endif
