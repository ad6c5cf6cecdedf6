/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cap-live: record the running kernel into a capture ('bigchunk record').
 *
 * State owned here, for the duration of one cap_live_record() call: a tracefs instance
 * of our own ("bigchunk-<pid>", trace clock mono, never the top-level buffer), the
 * event enables and the optional stacktrace trigger in it, one reader thread per CPU
 * that splices trace_pipe_raw into a raw per-CPU file (mode 0600) in a temporary
 * directory next to the output, and the command being recorded. All of it is undone
 * before cap_live_record() returns, on success, on error and after a stop request.
 *
 * After tracing stops, the raw files are parsed sub-buffer by sub-buffer (kbuffer),
 * merged across CPUs by timestamp and fed to cap_decode_record() in time order, so the
 * ring buffers only have to absorb the reader's scheduling delays, never decoding.
 */
#ifndef BC_CAP_LIVE_H
#define BC_CAP_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdb;

#define CAP_LIVE_INSTANCE_PREFIX	"bigchunk-"	/* + pid of the recorder */
#define CAP_LIVE_DEFAULT_BUFFER_KB	(32 * 1024)	/* per CPU */

/*
 * Snapshots are bracketed by trace_marker lines in our instance (format and
 * alignment: capture/snapshot.h, SNAP_MARKER_PREFIX and snap_align()). Marker labels:
 * "start", "periodic.N" (N = 1, 2, ...), "end"; snapshots.label: 'start', 'periodic',
 * 'end'.
 */

enum cap_live_phase {
	CAP_LIVE_RECORDING,	/* tracing on: counts come from the ring buffers' stats */
	CAP_LIVE_CONVERTING,	/* raw files -> db */
};

/* What the progress callback is told, about once a second. */
struct cap_live_progress {
	enum cap_live_phase phase;
	uint64_t elapsed_ns;	/* since the phase began */
	uint64_t events;	/* recording: events the kernel wrote; converting: decoded */
	double rate;		/* events/s over the last interval */
	uint64_t lost;		/* recording: overrun + dropped so far; converting: gaps' counts */
	uint64_t bytes_done;	/* converting: raw bytes consumed ... */
	uint64_t bytes_total;	/* ... of this many */
	int snapshots;		/* taken so far */
};

struct cap_live_opts {
	const char *const *events;	/* NULL-terminated "sys:event"/"sys:*"; NULL: defaults */
	uint64_t duration_ns;		/* stop after this long; 0: no limit */
	uint64_t snapshot_every_ns;	/* periodic snapshots besides start/end; 0: none */
	size_t buffer_kb;		/* per-CPU ring buffer; 0: CAP_LIVE_DEFAULT_BUFFER_KB */
	bool stacks;			/* stacktrace trigger on non-movable mm_page_alloc */
	bool no_snapshots;		/* skip the start/end (and periodic) snapshots */
	char *const *argv;		/* command run once tracing is on (NULL: none) */
	const char *cmdline;		/* stored as meta 'command' (may be NULL) */
	/*
	 * Set asynchronously (a signal handler) to stop recording; cap_live_record()
	 * clears it when recording has stopped, and a new non-zero value during the
	 * conversion aborts it (the capture is left readable but incomplete).
	 */
	volatile int *stop;
	/* Optional callbacks; @arg is passed back. Called from the calling thread. */
	void (*progress)(const struct cap_live_progress *p, void *arg);
	void (*note)(const char *msg, void *arg);	/* one line, no newline */
	void *arg;
	/*
	 * Optional: called once when recording ends (the command has ended), before the
	 * "end" snapshot, while tracing is still on, with the instance's trace_marker
	 * (e.g. cap_probe_run() of capture/cap-probe.h). A negative return is the
	 * recording's error.
	 */
	int (*before_end)(struct tdb *db, int marker_fd, void *arg);
	void *before_end_arg;
};

struct cap_live_result {
	uint64_t events;		/* stored in the db */
	uint64_t markers;
	uint64_t stacks;
	uint64_t gaps;			/* lost_events rows */
	uint64_t lost_seen;		/* sum of the gaps' known counts */
	uint64_t lost_kernel;		/* ring-buffer stats: overrun + commit overrun + dropped */
	uint64_t raw_bytes;		/* size of the raw per-CPU data */
	uint64_t record_ns;		/* tracing on -> off */
	uint64_t convert_ns;
	int snapshots;
	int stop_signal;		/* *stop's value when it ended recording, else 0 */
	int child_pid;			/* 0: no command */
	int child_status;		/* wait status of the command; -1 if not reaped */
	bool child_killed;		/* we sent it SIGTERM because recording stopped first */
};

/**
 * cap_live_record() - record the running kernel into @db (created by the caller).
 * @db: a fresh capture from tdb_create(); meta, event types, events, markers, stacks,
 *	lost_events, cpu_stats and (through the snapshot module) snapshots are written.
 *	'complete' is not set here: the caller calls tdb_finish() when this returns 0.
 * @o: options (see struct cap_live_opts).
 * @res: filled with counts, also when an error is returned after recording began.
 *
 * Needs root and tracefs (mounted here if absent). Stale "bigchunk-<pid>" instances of
 * dead recorders are removed first (reported through @o->note). Recording ends when
 * the command exits, after @o->duration_ns, or when *@o->stop becomes non-zero; a
 * command still running then gets SIGTERM. A failure after tracing began stops
 * recording, still converts what was read and returns the error.
 *
 * Return: 0, -BC_E_PERM (not root), -BC_E_NOTRACEFS, -BC_E_INTR (conversion aborted)
 * or another negative bc_err.
 */
int cap_live_record(struct tdb *db, const struct cap_live_opts *o, struct cap_live_result *res);

/**
 * cap_live_remove_stale() - remove tracefs instances "bigchunk-<pid>" whose pid is not
 * running (or is @self_pid, which cannot own one yet). Each removal is reported
 * through @note. tracefs must be mounted.
 * Return: number removed (>= 0) or a negative bc_err.
 */
int cap_live_remove_stale(int self_pid, void (*note)(const char *msg, void *arg), void *arg);

#endif
