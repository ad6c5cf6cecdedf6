// SPDX-License-Identifier: GPL-2.0
/*
 * cap-live: record the running kernel (see cap-live.h for what is owned here, and
 * cap-live-local.h for which file does what).
 *
 * Recording is split in two so that the ring buffers never wait for SQLite:
 *
 *   1. Tracing. One reader thread per CPU splices trace_pipe_raw into a raw file
 *      (cap-live-readers.c). The main thread only polls: the command, the clock, stop
 *      requests, periodic snapshots and progress (from per_cpu/cpuN/stats).
 *   2. Conversion. With tracing off and the buffers flushed, the raw files are merged
 *      by timestamp into the db (cap-live-convert.c).
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "capture/cap-live-local.h"
#include "capture/capture.h"
#include "capture/snapshot.h"
#include "common/err.h"
#include "db/tdb.h"

void live_note(struct live *lv, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!lv->o->note)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	lv->o->note(buf, lv->o->arg);
}

/* ---- progress ---- */

void live_progress(struct live *lv, struct cap_live_progress *p, uint64_t now)
{
	p->snapshots = lv->res->snapshots;
	if (now > lv->prog_last_ns && p->events >= lv->prog_last_events)
		p->rate = (double)(p->events - lv->prog_last_events) * 1e9 /
			  (double)(now - lv->prog_last_ns);
	lv->prog_last_ns = now;
	lv->prog_last_events = p->events;
	lv->o->progress(p, lv->o->arg);
}

static void report_progress(struct live *lv, uint64_t now)
{
	struct cap_live_progress p = { .phase = CAP_LIVE_RECORDING };
	uint64_t written = 0, lost = 0;
	int i;

	if (!lv->o->progress)
		return;
	for (i = 0; i < lv->ncpus; i++)
		live_read_cpu_stats(lv, lv->cpus[i].cpu, false, &written, &lost);
	p.elapsed_ns = now - lv->t_on;
	p.events = written;
	p.lost = lost;
	live_progress(lv, &p, now);
}

/* ---- snapshots ---- */

static int take_snapshot(struct live *lv, const char *label)
{
	char mlabel[32];
	struct snap_marker m = { .fd = lv->marker_fd };
	sigset_t stop_sigs, old;
	int64_t id = 0;
	int ret;

	if (!strcmp(label, "periodic"))
		snprintf(mlabel, sizeof(mlabel), "periodic.%d", ++lv->nperiodic);
	else
		snprintf(mlabel, sizeof(mlabel), "%s", label);
	m.label = mlabel;
	/*
	 * A stop signal in the middle would fail a read() with EINTR and lose the
	 * snapshot: hold it until the snapshot is in, then let it stop us.
	 */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	sigaddset(&stop_sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop_sigs, &old);
	ret = snap_load_live(lv->db, label, &m, &id);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return bc_error_prefix(ret, "%s snapshot", label);
	lv->res->snapshots++;
	return 0;
}

/* ---- the whole run ---- */

static int record_loop(struct live *lv)
{
	const struct cap_live_opts *o = lv->o;
	uint64_t now, next_snap, next_prog;
	int ret = 0;

	now = mono_ns();
	next_snap = o->snapshot_every_ns ? now + o->snapshot_every_ns : UINT64_MAX;
	next_prog = now + PROGRESS_NS;
	lv->prog_last_ns = lv->t_on;
	for (;;) {
		if (stop_requested(lv)) {
			lv->res->stop_signal = *o->stop;
			break;
		}
		if (lv->child && live_child_exited(lv))
			break;
		now = mono_ns();
		if (o->duration_ns && now - lv->t_on >= o->duration_ns)
			break;
		ret = live_reader_error(lv);
		if (ret)
			break;
		if (now >= next_snap && !o->no_snapshots) {
			ret = take_snapshot(lv, "periodic");
			if (ret)
				break;
			next_snap = mono_ns() + o->snapshot_every_ns;
		}
		if (now >= next_prog) {
			report_progress(lv, now);
			next_prog = now + PROGRESS_NS;
		}
		sleep_ns(POLL_NS);
	}
	return ret;
}

/* Everything up to tracing on: instance set up, raw files open, start meta stored. */
static int setup(struct live *lv, const char *const *events)
{
	int ret;

	ret = live_setup_tracing(lv, events);
	if (!ret)
		ret = live_make_tmpdir(lv);
	if (!ret)
		ret = live_open_cpus(lv);
	if (!ret)
		ret = live_store_start_meta(lv, events);
	return ret;
}

/* Tracing on, the command, the loop, the probes and the end snapshot. */
static int trace_run(struct live *lv)
{
	const struct cap_live_opts *o = lv->o;
	int ret;

	ret = live_start_readers(lv);
	if (ret)
		return ret;
	if (tracefs_trace_on(lv->inst) < 0)
		return bc_error(BC_E_IO, "%s: cannot turn tracing on: %m", lv->name);
	lv->t_on = mono_ns();
	if (!o->no_snapshots) {
		ret = take_snapshot(lv, "start");
		if (ret)
			return ret;
	}
	if (o->argv) {
		ret = live_start_child(lv);
		if (ret)
			return ret;
	}
	ret = record_loop(lv);
	live_end_child(lv);
	if (!ret && o->before_end)
		ret = o->before_end(lv->db, lv->marker_fd, o->before_end_arg);
	if (!ret && !o->no_snapshots)
		ret = take_snapshot(lv, "end");
	return ret;
}

/*
 * Tracing off, readers drained, the ring buffers' stats stored, and nothing of ours
 * left in tracefs during the conversion. Return: @ret, else the first new error.
 */
static int stop_tracing(struct live *lv, int ret)
{
	int err2, i;

	live_end_child(lv);
	if (lv->inst)
		tracefs_trace_off(lv->inst);
	lv->t_off = mono_ns();
	lv->res->record_ns = lv->t_on ? lv->t_off - lv->t_on : 0;
	err2 = live_stop_readers(lv);
	if (!ret)
		ret = err2;
	for (i = 0; i < lv->ncpus; i++) {
		uint64_t written = 0;

		err2 = live_read_cpu_stats(lv, lv->cpus[i].cpu, true, &written,
					   &lv->res->lost_kernel);
		if (!ret)
			ret = err2;
	}
	live_untrace(lv);
	if (lv->o->stop)
		*lv->o->stop = 0;	/* from here on, a stop request aborts the conversion */
	return ret;
}

/*
 * Convert what was read, even after a failure (@ret): the file stays useful. The
 * first error is the one returned; it is also stored as meta 'error'.
 */
static int finish(struct live *lv, int ret)
{
	struct cap_live_result *res = lv->res;
	struct cap_decode_stats st;
	int err2;

	if (lv->t_on) {
		char saved[1024];

		snprintf(saved, sizeof(saved), "%s", ret ? bc_errmsg() : "");
		err2 = live_convert(lv);
		if (!err2)
			err2 = live_store_comms(lv);
		if (!err2)
			err2 = live_store_end_meta(lv);
		if (!err2 && res->snapshots)
			err2 = snap_align(lv->db, NULL);
		if (ret) {
			/* say why in the file too (best effort; complete stays 0) */
			tdb_set_meta(lv->db, "error", saved);
			bc_error(ret, "%s", saved);	/* the first error is the one to report */
		} else {
			ret = err2;
		}
	}
	cap_decoder_stats(lv->dec, &st);
	res->events = st.events;
	res->markers = st.markers;
	res->stacks = st.stacks;
	res->gaps = st.gaps + lv->end_gaps;
	res->lost_seen = st.lost + lv->end_lost;
	return ret;
}

int cap_live_record(struct tdb *db, const struct cap_live_opts *o, struct cap_live_result *res)
{
	const char *const *events = o->events ? o->events : cap_default_events;
	struct live lv = { .db = db, .o = o, .res = res, .marker_fd = -1 };
	int ret;

	memset(res, 0, sizeof(*res));
	res->child_status = -1;

	ret = live_open_instance(&lv);
	if (ret)
		return ret;
	ret = setup(&lv, events);
	if (!ret) {
		ret = trace_run(&lv);
		ret = stop_tracing(&lv, ret);
		ret = finish(&lv, ret);
	}
	live_untrace(&lv);
	live_remove_tmpdir(&lv);
	cap_decoder_destroy(lv.dec);
	live_free_formats(&lv);
	return ret;
}
