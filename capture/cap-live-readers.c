// SPDX-License-Identifier: GPL-2.0
/*
 * cap-live-readers.c - the raw side of a recording: a temporary directory next to the
 * capture, one raw file (mode 0600) per CPU, and one reader thread per CPU that blocks
 * on trace_pipe_raw and splices whole sub-buffers into its file (tracefs_cpu_write());
 * the kernel wakes it when the buffer is buffer_percent full.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "capture/cap-live-local.h"
#include "common/err.h"
#include "common/wfile.h"
#include "db/tdb.h"

/* ---- raw files ---- */

int live_open_cpus(struct live *lv)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	int cpu;

	if (conf < 1)
		conf = 1;
	lv->cpus = calloc((size_t)conf, sizeof(*lv->cpus));
	if (!lv->cpus)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (cpu = 0; cpu < conf; cpu++) {
		struct live_cpu *c = &lv->cpus[lv->ncpus];
		char file[64];

		snprintf(file, sizeof(file), "per_cpu/cpu%d", cpu);
		if (!tracefs_dir_exists(lv->inst, file))
			continue;
		c->lv = lv;
		c->cpu = cpu;
		c->fd = -1;
		c->tcpu = tracefs_cpu_open(lv->inst, cpu, false);
		if (!c->tcpu)
			return bc_error(BC_E_IO, "%s: cannot open cpu %d trace_pipe_raw: %m",
					lv->name, cpu);
		lv->ncpus++;
		if (asprintf(&c->path, "%s/cpu%d.raw", lv->tmpdir, cpu) < 0) {
			c->path = NULL;
			return bc_error(BC_E_NOMEM, "out of memory");
		}
		c->fd = bc_create_private(c->path, O_RDWR);
		if (c->fd < 0)
			return c->fd;
		if (!lv->subbuf_size)
			lv->subbuf_size = tracefs_cpu_read_size(c->tcpu);
	}
	if (!lv->ncpus)
		return bc_error(BC_E_NOTRACEFS, "%s: no per-CPU buffers", lv->name);
	if (lv->subbuf_size <= 0)
		return bc_error(BC_E_FORMAT, "%s: unknown sub-buffer size", lv->name);
	return 0;
}

int live_make_tmpdir(struct live *lv)
{
	char *copy = strdup(tdb_path(lv->db)), *dir;

	if (!copy)
		return bc_error(BC_E_NOMEM, "out of memory");
	dir = dirname(copy);
	if (asprintf(&lv->tmpdir, "%s/.bigchunk-record-XXXXXX", dir) < 0) {
		lv->tmpdir = NULL;
		free(copy);
		return bc_error(BC_E_NOMEM, "out of memory");
	}
	free(copy);
	if (!mkdtemp(lv->tmpdir)) {	/* mode 0700 */
		int ret = bc_error(BC_E_IO, "cannot create a temporary directory %s: %m",
				   lv->tmpdir);

		free(lv->tmpdir);
		lv->tmpdir = NULL;
		return ret;
	}
	return 0;
}

void live_remove_tmpdir(struct live *lv)
{
	int i;

	for (i = 0; i < lv->ncpus; i++) {
		if (lv->cpus[i].fd >= 0) {
			close(lv->cpus[i].fd);
			lv->cpus[i].fd = -1;
		}
		if (lv->cpus[i].path)
			unlink(lv->cpus[i].path);
	}
	if (lv->tmpdir) {
		rmdir(lv->tmpdir);
		free(lv->tmpdir);
		lv->tmpdir = NULL;
	}
	for (i = 0; i < lv->ncpus; i++)
		free(lv->cpus[i].path);
	free(lv->cpus);
	lv->cpus = NULL;
	lv->ncpus = 0;
}

/* ---- readers ---- */

static void *reader_main(void *arg)
{
	struct live_cpu *c = arg;
	int r;

	while (!__atomic_load_n(&c->lv->done, __ATOMIC_ACQUIRE)) {
		r = tracefs_cpu_write(c->tcpu, c->fd, false);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			c->err = errno;
			c->err_what = "reading trace_pipe_raw into the raw file";
			return NULL;
		}
		__atomic_add_fetch(&c->bytes, (uint64_t)r, __ATOMIC_RELAXED);
	}
	/* Tracing is off: take the remaining whole sub-buffers, then the partial ones. */
	while ((r = tracefs_cpu_write(c->tcpu, c->fd, true)) > 0)
		__atomic_add_fetch(&c->bytes, (uint64_t)r, __ATOMIC_RELAXED);
	if (r < 0 && errno != EAGAIN && errno != EINTR) {
		c->err = errno;
		c->err_what = "draining trace_pipe_raw";
		return NULL;
	}
	while ((r = tracefs_cpu_flush_write(c->tcpu, c->fd)) > 0)
		__atomic_add_fetch(&c->bytes, (uint64_t)r, __ATOMIC_RELAXED);
	if (r < 0 && errno != EAGAIN) {
		c->err = errno;
		c->err_what = "flushing trace_pipe_raw";
	}
	return NULL;
}

int live_start_readers(struct live *lv)
{
	sigset_t all, old;
	int i, ret = 0;

	/* Signals are for the main thread: readers must not eat SIGINT. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < lv->ncpus; i++) {
		struct live_cpu *c = &lv->cpus[i];
		int err = pthread_create(&c->thread, NULL, reader_main, c);

		if (err) {
			errno = err;
			ret = bc_error(BC_E_NOMEM, "cannot start the reader of cpu %d: %m", c->cpu);
			break;
		}
		c->running = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int live_reader_error(struct live *lv)
{
	int i;

	for (i = 0; i < lv->ncpus; i++) {
		struct live_cpu *c = &lv->cpus[i];
		int err = __atomic_load_n(&c->err, __ATOMIC_ACQUIRE);

		if (err) {
			errno = err;
			return bc_error(err == ENOSPC ? BC_E_NOSPC : BC_E_IO, "cpu %d: %s (%s): %m",
					c->cpu, c->err_what ? c->err_what : "reader", c->path);
		}
	}
	return 0;
}

/* Tell the readers to drain and exit, and wait for them. Tracing should be off. */
int live_stop_readers(struct live *lv)
{
	int i;

	__atomic_store_n(&lv->done, 1, __ATOMIC_RELEASE);
	for (i = 0; i < lv->ncpus; i++)
		if (lv->cpus[i].running)
			tracefs_cpu_stop(lv->cpus[i].tcpu);
	for (i = 0; i < lv->ncpus; i++) {
		if (!lv->cpus[i].running)
			continue;
		pthread_join(lv->cpus[i].thread, NULL);
		lv->cpus[i].running = false;
	}
	return live_reader_error(lv);
}
