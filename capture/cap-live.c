// SPDX-License-Identifier: GPL-2.0
/*
 * cap-live: record the running kernel (see cap-live.h for what is owned here).
 *
 * Recording is split in two so that the ring buffers never wait for SQLite:
 *
 *   1. Tracing. One reader thread per CPU blocks on trace_pipe_raw and splices whole
 *      sub-buffers into a raw file (tracefs_cpu_write()); the kernel wakes it when the
 *      buffer is buffer_percent full. The main thread only polls: the command, the
 *      clock, stop requests, periodic snapshots and progress (from per_cpu/cpuN/stats).
 *   2. Conversion. With tracing off and the buffers flushed, each raw file is walked
 *      with kbuffer, the CPUs are merged by timestamp (a min-heap keyed by (ts, cpu))
 *      and every record goes to cap_decode_record(). A sub-buffer that says events
 *      were missed before it marks its first record (missed_events), which the decoder
 *      turns into a lost_events row.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "capture/cap-live.h"
#include "capture/capture.h"
#include "capture/snapshot.h"
#include "common/err.h"
#include "db/tdb.h"

#define NSEC_PER_SEC		1000000000ULL
#define POLL_NS			(50 * 1000 * 1000ULL)	/* main loop tick */
#define PROGRESS_NS		NSEC_PER_SEC
#define BUFFER_PERCENT		"25"	/* wake readers early: 3/4 of the buffer is slack */
#define CHILD_TERM_WAIT_NS	(5 * NSEC_PER_SEC)
#define STACK_TRIGGER		"stacktrace if migratetype != 1"	/* 1 = MIGRATE_MOVABLE */

struct live;

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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };

	nanosleep(&ts, NULL);	/* a signal cuts it short, which is what we want */
}

static void note(struct live *lv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct live *lv, const char *fmt, ...)
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

static bool stop_requested(const struct live *lv)
{
	return lv->o->stop && *lv->o->stop;
}

/* ---- stale instances ---- */

/* "bigchunk-<digits>" -> pid, else 0. */
static long instance_pid(const char *name)
{
	const size_t plen = strlen(CAP_LIVE_INSTANCE_PREFIX);
	const char *p;

	if (strncmp(name, CAP_LIVE_INSTANCE_PREFIX, plen) || !name[plen])
		return 0;
	for (p = name + plen; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return strtol(name + plen, NULL, 10);
}

int cap_live_remove_stale(int self_pid, void (*note_fn)(const char *msg, void *arg), void *arg)
{
	const char *tdir = tracefs_tracing_dir();
	struct dirent *de;
	char path[4096];
	int removed = 0;
	DIR *d;

	/* readdir, not tracefs_instances(): that one leaks its regex (libtracefs 1.6) */
	if (!tdir)
		return bc_error(BC_E_NOTRACEFS, "tracefs is not mounted");
	snprintf(path, sizeof(path), "%s/instances", tdir);
	d = opendir(path);
	if (!d)
		return 0;	/* no instances support: nothing can be stale */
	while ((de = readdir(d))) {
		struct tracefs_instance *inst;
		long pid = instance_pid(de->d_name);
		char msg[640];

		if (pid <= 0)
			continue;
		if (pid != self_pid && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			continue;	/* its recorder is alive: not ours to touch */
		inst = tracefs_instance_alloc(NULL, de->d_name);
		if (!inst)
			continue;
		tracefs_trace_off(inst);
		tracefs_event_disable(inst, NULL, NULL);
		if (tracefs_instance_destroy(inst) == 0) {
			removed++;
			snprintf(msg, sizeof(msg),
				 "removed stale tracefs instance %s (pid %ld is not running)",
				 de->d_name, pid);
		} else {
			snprintf(msg, sizeof(msg), "cannot remove stale tracefs instance %s: %s",
				 de->d_name, strerror(errno));
		}
		if (note_fn)
			note_fn(msg, arg);
		tracefs_instance_free(inst);
	}
	closedir(d);
	return removed;
}

/* ---- setup ---- */

/* The distinct systems of @events ("sys:event"), plus "ftrace"; NULL-terminated. */
static int event_systems(const char *const *events, char ***out)
{
	char **sys = NULL;
	int i, j, n = 0;

	sys = calloc(2, sizeof(*sys));
	if (!sys)
		goto nomem;
	sys[n++] = strdup("ftrace");	/* print (markers), kernel_stack (--stacks) */
	if (!sys[0])
		goto nomem;
	for (i = 0; events[i]; i++) {
		const char *colon = strchr(events[i], ':');
		size_t len = colon ? (size_t)(colon - events[i]) : strlen(events[i]);
		char **grown;

		for (j = 0; j < n; j++)
			if (strlen(sys[j]) == len && !strncmp(sys[j], events[i], len))
				break;
		if (j < n)
			continue;
		grown = realloc(sys, (n + 2) * sizeof(*sys));
		if (!grown)
			goto nomem;
		sys = grown;
		sys[n] = strndup(events[i], len);
		sys[n + 1] = NULL;
		if (!sys[n])
			goto nomem;
		n++;
	}
	*out = sys;
	return 0;
nomem:
	if (sys) {
		for (i = 0; i < n; i++)
			free(sys[i]);
		free(sys);
	}
	return bc_error(BC_E_NOMEM, "out of memory");
}

static void free_list(char **l)
{
	int i;

	for (i = 0; l && l[i]; i++)
		free(l[i]);
	free(l);
}

static int enable_events(struct live *lv, const char *const *events)
{
	int i, enabled = 0;

	for (i = 0; events[i]; i++) {
		const char *colon = strchr(events[i], ':');
		char sys[128], ev[192];

		if (colon && !strncmp(events[i], "ftrace:", 7))
			continue;	/* print and kernel_stack need no enabling */
		if (!colon || colon == events[i] || !colon[1] ||
		    (size_t)(colon - events[i]) >= sizeof(sys) - 3 || strlen(colon + 1) >= sizeof(ev) - 3)
			return bc_error(BC_E_INVAL, "event '%s' is not SYSTEM:EVENT", events[i]);
		/* both are regular expressions for libtracefs: anchor them */
		snprintf(sys, sizeof(sys), "^%.*s$", (int)(colon - events[i]), events[i]);
		if (!strcmp(colon + 1, "*"))
			snprintf(ev, sizeof(ev), ".*");
		else
			snprintf(ev, sizeof(ev), "^%s$", colon + 1);
		if (tracefs_event_enable(lv->inst, sys, ev) < 0) {
			note(lv, "event %s is not available on this kernel (recorded as missing)",
			     events[i]);
			continue;
		}
		enabled++;
	}
	if (!enabled)
		return bc_error(BC_E_NOENT, "none of the requested events exists on this kernel");
	return 0;
}

/* Keys of per_cpu/cpuN/stats that count events (all but the timestamps). */
static int read_cpu_stats(struct live *lv, int cpu, bool store, uint64_t *written,
			  uint64_t *lost)
{
	char file[64], *text, *line, *save = NULL;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = tracefs_instance_file_read(lv->inst, file, NULL);
	if (!text)
		return bc_error(BC_E_IO, "%s: cannot read: %m", file);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *end, key[48];
		long long v;
		size_t i;

		if (!colon)
			continue;
		v = strtoll(colon + 1, &end, 10);
		if (end == colon + 1 || *end == '.')
			continue;	/* "oldest event ts: 12.345" and the like */
		for (i = 0; line + i < colon && i < sizeof(key) - 1; i++)
			key[i] = line[i] == ' ' ? '_' : line[i];
		key[i] = 0;
		if (!strcmp(key, "entries") || !strcmp(key, "read_events"))
			*written += (uint64_t)v;
		if (!strcmp(key, "overrun") || !strcmp(key, "commit_overrun") ||
		    !strcmp(key, "dropped_events"))
			*lost += (uint64_t)v;
		if (store) {
			int ret = tdb_add_cpu_stat(lv->db, cpu, key, v);

			if (ret) {
				free(text);
				return ret;
			}
		}
	}
	free(text);
	return 0;
}

static void report_progress(struct live *lv, uint64_t now)
{
	struct cap_live_progress p = { .phase = CAP_LIVE_RECORDING };
	uint64_t written = 0, lost = 0;
	int i;

	if (!lv->o->progress)
		return;
	for (i = 0; i < lv->ncpus; i++)
		read_cpu_stats(lv, lv->cpus[i].cpu, false, &written, &lost);
	p.elapsed_ns = now - lv->t_on;
	p.events = written;
	p.lost = lost;
	p.snapshots = lv->res->snapshots;
	if (now > lv->prog_last_ns && written >= lv->prog_last_events)
		p.rate = (double)(written - lv->prog_last_events) * 1e9 /
			 (double)(now - lv->prog_last_ns);
	lv->prog_last_ns = now;
	lv->prog_last_events = written;
	lv->o->progress(&p, lv->o->arg);
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

static int start_readers(struct live *lv)
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

static int reader_error(struct live *lv)
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
static int stop_readers(struct live *lv)
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
	return reader_error(lv);
}

/* ---- the command ---- */

static int start_child(struct live *lv)
{
	int pfd[2], err = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return bc_error(BC_E_IO, "pipe: %m");
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return bc_error(BC_E_NOMEM, "fork: %m");
	}
	if (pid == 0) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigset_t none;

		close(pfd[0]);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		sigemptyset(&dfl.sa_mask);
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGHUP, &dfl, NULL);
		execvp(lv->o->argv[0], lv->o->argv);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	do {
		n = read(pfd[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	lv->child = pid;
	lv->res->child_pid = pid;
	if (n == (ssize_t)sizeof(err)) {
		waitpid(pid, &lv->res->child_status, 0);
		lv->child_reaped = true;
		errno = err;
		return bc_error(err == ENOENT ? BC_E_NOENT : BC_E_PERM, "cannot run '%s': %m",
				lv->o->argv[0]);
	}
	return 0;
}

/* Return: true once the command has exited (reaping it). */
static bool child_exited(struct live *lv)
{
	pid_t r;

	if (!lv->child || lv->child_reaped)
		return lv->child_reaped;
	r = waitpid(lv->child, &lv->res->child_status, WNOHANG);
	if (r == lv->child)
		lv->child_reaped = true;
	return lv->child_reaped;
}

/* Recording stopped before the command did: SIGTERM, then SIGKILL after a while. */
static void end_child(struct live *lv)
{
	uint64_t deadline;

	if (!lv->child || child_exited(lv))
		return;
	kill(lv->child, SIGTERM);
	lv->res->child_killed = true;
	deadline = mono_ns() + CHILD_TERM_WAIT_NS;
	while (!child_exited(lv) && mono_ns() < deadline)
		sleep_ns(10 * 1000 * 1000);
	if (!child_exited(lv)) {
		kill(lv->child, SIGKILL);
		if (waitpid(lv->child, &lv->res->child_status, 0) == lv->child)
			lv->child_reaped = true;
	}
}

/* ---- tracing on/off ---- */

static int open_instance(struct live *lv)
{
	const char *dir = tracefs_tracing_dir();
	char probe[4096];

	if (geteuid() != 0)
		return bc_error(BC_E_PERM, "recording needs root (tracefs, /proc/kpageflags)");
	if (dir)
		snprintf(probe, sizeof(probe), "%s/trace", dir);
	/* is_mounted() leaks a little (libtracefs 1.6): only call it when needed */
	if (!dir || access(probe, F_OK)) {
		if (tracefs_tracing_dir_is_mounted(true, &dir) < 0 || !tracefs_tracing_dir())
			return bc_error(BC_E_NOTRACEFS,
					"tracefs is not mounted and cannot be mounted: %m");
	}
	cap_live_remove_stale(getpid(), lv->o->note, lv->o->arg);

	snprintf(lv->name, sizeof(lv->name), CAP_LIVE_INSTANCE_PREFIX "%d", (int)getpid());
	lv->inst = tracefs_instance_create(lv->name);
	if (!lv->inst)
		return bc_error(BC_E_NOTRACEFS, "cannot create tracefs instance %s: %m", lv->name);
	if (!tracefs_instance_is_new(lv->inst)) {
		tracefs_instance_free(lv->inst);
		lv->inst = NULL;
		return bc_error(BC_E_BUSY, "tracefs instance %s already exists", lv->name);
	}
	lv->inst_ours = true;
	return 0;
}

static int configure_instance(struct live *lv)
{
	size_t kb = lv->o->buffer_kb ? lv->o->buffer_kb : CAP_LIVE_DEFAULT_BUFFER_KB;
	char *clock;

	if (tracefs_trace_off(lv->inst) < 0)
		return bc_error(BC_E_IO, "%s: cannot turn tracing off: %m", lv->name);
	if (tracefs_instance_file_write(lv->inst, "trace_clock", "mono") < 0)
		return bc_error(BC_E_IO, "%s: cannot set trace clock mono: %m", lv->name);
	clock = tracefs_get_clock(lv->inst);
	if (!clock || strcmp(clock, "mono")) {
		free(clock);
		return bc_error(BC_E_IO, "%s: trace clock did not become mono", lv->name);
	}
	free(clock);
	if (tracefs_instance_set_buffer_size(lv->inst, kb, -1) < 0)
		return bc_error(BC_E_NOMEM, "%s: cannot set a %zu KiB buffer per CPU: %m",
				lv->name, kb);
	/* Older kernels lack buffer_percent; they wake readers on any data. */
	tracefs_instance_file_write(lv->inst, "buffer_percent", BUFFER_PERCENT);
	return 0;
}

static int open_cpus(struct live *lv)
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
		c->fd = open(c->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (c->fd < 0)
			return bc_error(BC_E_IO, "%s: %m", c->path);
		if (!lv->subbuf_size)
			lv->subbuf_size = tracefs_cpu_read_size(c->tcpu);
	}
	if (!lv->ncpus)
		return bc_error(BC_E_NOTRACEFS, "%s: no per-CPU buffers", lv->name);
	if (lv->subbuf_size <= 0)
		return bc_error(BC_E_FORMAT, "%s: unknown sub-buffer size", lv->name);
	return 0;
}

static int make_tmpdir(struct live *lv)
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

static void remove_tmpdir(struct live *lv)
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
}

/* Undo everything done to tracefs. Safe to call more than once. */
static void untrace(struct live *lv)
{
	int i;

	if (!lv->inst)
		return;
	tracefs_trace_off(lv->inst);
	if (lv->trigger_set) {
		if (tracefs_event_file_write(lv->inst, "kmem", "mm_page_alloc", "trigger",
					     "!stacktrace") < 0)
			note(lv, "%s: cannot remove the stacktrace trigger: %s", lv->name,
			     strerror(errno));
		lv->trigger_set = false;
	}
	tracefs_event_disable(lv->inst, NULL, NULL);
	if (lv->marker_fd >= 0) {
		close(lv->marker_fd);
		lv->marker_fd = -1;
	}
	for (i = 0; i < lv->ncpus; i++) {
		if (lv->cpus[i].tcpu) {
			tracefs_cpu_close(lv->cpus[i].tcpu);
			lv->cpus[i].tcpu = NULL;
		}
	}
	if (lv->inst_ours && tracefs_instance_destroy(lv->inst) < 0)
		note(lv, "cannot remove tracefs instance %s: %s", lv->name, strerror(errno));
	tracefs_instance_free(lv->inst);
	lv->inst = NULL;
}

/* ---- conversion ---- */

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
	p.snapshots = lv->res->snapshots;
	if (now > lv->prog_last_ns && events >= lv->prog_last_events)
		p.rate = (double)(events - lv->prog_last_events) * 1e9 /
			 (double)(now - lv->prog_last_ns);
	lv->prog_last_ns = now;
	lv->prog_last_events = events;
	lv->o->progress(&p, lv->o->arg);
}

static int convert(struct live *lv)
{
	size_t subbuf = (size_t)lv->subbuf_size;
	struct stream *s = NULL, **heap = NULL;
	uint64_t total = 0, nrec = 0, t0 = mono_ns();
	int i, n = 0, ret = 0;

	s = calloc((size_t)lv->ncpus, sizeof(*s));
	heap = calloc((size_t)lv->ncpus, sizeof(*heap));
	if (!s || !heap) {
		ret = bc_error(BC_E_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < lv->ncpus; i++) {
		struct live_cpu *c = &lv->cpus[i];
		struct stat sb;

		s[i].cpu = c->cpu;
		if (fstat(c->fd, &sb) < 0) {
			ret = bc_error(BC_E_IO, "%s: %m", c->path);
			goto out;
		}
		s[i].len = (size_t)sb.st_size;
		total += s[i].len;
		if (s[i].len % subbuf)
			note(lv, "cpu %d: raw data ends in a partial sub-buffer (%zu bytes ignored)",
			     c->cpu, s[i].len % subbuf);
		if (!s[i].len)
			continue;
		s[i].map = mmap(NULL, s[i].len, PROT_READ, MAP_PRIVATE, c->fd, 0);
		if (s[i].map == MAP_FAILED) {
			s[i].map = NULL;
			ret = bc_error(BC_E_NOMEM, "%s: mmap: %m", c->path);
			goto out;
		}
		madvise((void *)s[i].map, s[i].len, MADV_SEQUENTIAL);
		s[i].kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
		if (!s[i].kbuf) {
			ret = bc_error(BC_E_NOMEM, "out of memory");
			goto out;
		}
		if (stream_load(&s[i], subbuf))
			heap[n++] = &s[i];
	}
	lv->res->raw_bytes = total;
	for (i = n / 2 - 1; i >= 0; i--)
		heap_down(heap, n, i);

	lv->prog_last_ns = t0;
	lv->prog_last_events = 0;
	while (n > 0) {
		struct stream *h = heap[0];
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
		if (ret) {
			bc_error_prefix(ret, "cpu %d record at raw offset %llu", h->cpu,
					(unsigned long long)rec.offset);
			goto out;
		}
		if (!stream_next(h, subbuf))
			heap[0] = heap[--n];
		heap_down(heap, n, 0);
		if (!(++nrec & 0xffff)) {
			uint64_t now = mono_ns();

			if (stop_requested(lv)) {
				ret = bc_error(BC_E_INTR, "conversion interrupted after %llu records",
					       (unsigned long long)nrec);
				goto out;
			}
			if (lv->o->progress && now - lv->prog_last_ns >= PROGRESS_NS) {
				uint64_t done = 0;

				for (i = 0; i < lv->ncpus; i++)
					done += s[i].off;
				report_convert(lv, t0, now, nrec, done, total);
			}
		}
	}
	for (i = 0; i < lv->ncpus; i++) {
		/* A gap at the very end of a CPU's data has no record to carry it. */
		if (s[i].missed) {
			ret = tdb_add_lost(lv->db, s[i].cpu, s[i].last_ts, lv->t_off, s[i].missed,
					   tdb_next_seq(lv->db));
			if (ret)
				goto out;
			lv->end_gaps++;
			if (s[i].missed > 0)
				lv->end_lost += (uint64_t)s[i].missed;
		}
		if (s[i].bad_subbufs)
			note(lv, "cpu %d: %llu unreadable sub-buffers (counted as lost)", s[i].cpu,
			     (unsigned long long)s[i].bad_subbufs);
	}
	if (lv->o->progress)
		report_convert(lv, t0, mono_ns(), nrec, total, total);
out:
	for (i = 0; s && i < lv->ncpus; i++) {
		if (s[i].kbuf)
			kbuffer_free(s[i].kbuf);
		if (s[i].map)
			munmap((void *)s[i].map, s[i].len);
	}
	free(s);
	free(heap);
	lv->res->convert_ns = mono_ns() - t0;
	return ret;
}

/* pid -> comm from the kernel's saved_cmdlines ("PID COMM" lines). */
static int store_comms(struct live *lv)
{
	char *text, *line, *save = NULL;
	int ret = 0;

	text = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	if (!text)
		return 0;	/* optional */
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		char *end;
		long pid = strtol(line, &end, 10);

		if (end == line || *end != ' ' || pid <= 0)
			continue;
		ret = tdb_add_comm(lv->db, (int)pid, end + 1);
	}
	free(text);
	return ret;
}

/* ---- meta ---- */

static int join_words(char *const *argv, char **out)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return bc_error(BC_E_NOMEM, "out of memory");
	s[0] = 0;
	for (i = 0; argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	*out = s;
	return 0;
}

/* pageblock_order from pagetypeinfo, max_page_order from buddyinfo's columns. */
static void machine_orders(int *pageblock_order, int *max_page_order)
{
	char line[512];
	FILE *fp;

	*pageblock_order = *max_page_order = -1;
	fp = fopen("/proc/pagetypeinfo", "re");
	if (fp) {
		while (fgets(line, sizeof(line), fp))
			if (sscanf(line, "Page block order: %d", pageblock_order) == 1)
				break;
		fclose(fp);
	}
	fp = fopen("/proc/buddyinfo", "re");
	if (fp) {
		if (fgets(line, sizeof(line), fp)) {
			/* "Node 0, zone      DMA  n0 n1 ... nMAX" */
			char *p = strstr(line, "zone");
			int words = 0;

			if (p) {
				p += 4;
				while (*p) {
					while (*p == ' ' || *p == '\t' || *p == '\n')
						p++;
					if (!*p)
						break;
					words++;
					while (*p && *p != ' ' && *p != '\t' && *p != '\n')
						p++;
				}
				if (words >= 2)
					*max_page_order = words - 2;	/* minus the zone name */
			}
		}
		fclose(fp);
	}
}

static int store_start_meta(struct live *lv, const char *const *events)
{
	int pageblock_order, max_page_order;
	struct utsname u;
	char *s = NULL;
	int ret;

	ret = tdb_set_meta(lv->db, "tool", "bigchunk record");
	if (!ret)
		ret = tdb_set_meta(lv->db, "source", "record");
	if (!ret)
		ret = tdb_set_meta(lv->db, "clock", "mono");
	if (!ret && uname(&u) == 0) {
		ret = tdb_set_meta(lv->db, "kernel_release", u.release);
		if (!ret)
			ret = tdb_set_meta(lv->db, "machine", u.machine);
	}
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "cpus", lv->ncpus);
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "page_size", sysconf(_SC_PAGESIZE));
	machine_orders(&pageblock_order, &max_page_order);
	if (!ret && pageblock_order >= 0)
		ret = tdb_set_meta_int(lv->db, "pageblock_order", pageblock_order);
	if (!ret && max_page_order >= 0)
		ret = tdb_set_meta_int(lv->db, "max_page_order", max_page_order);
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "buffer_kb_per_cpu",
				       tracefs_instance_get_buffer_size(lv->inst, lv->cpus[0].cpu));
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "stacks", lv->o->stacks);
	if (!ret && lv->o->cmdline)
		ret = tdb_set_meta(lv->db, "command", lv->o->cmdline);
	if (!ret && lv->o->argv) {
		ret = join_words(lv->o->argv, &s);
		if (!ret)
			ret = tdb_set_meta(lv->db, "workload", s);
		free(s);
		s = NULL;
	}
	if (!ret) {
		ret = join_words((char *const *)events, &s);
		if (!ret)
			ret = tdb_set_meta(lv->db, "events", s);
		free(s);
	}
	return ret;
}

static int store_end_meta(struct live *lv)
{
	struct cap_live_result *r = lv->res;
	int ret;

	ret = tdb_set_meta_int(lv->db, "started_ns", (int64_t)lv->t_on);
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "ended_ns", (int64_t)lv->t_off);
	if (!ret)
		ret = tdb_set_meta_int(lv->db, "lost_kernel", (int64_t)r->lost_kernel);
	if (!ret && r->stop_signal)
		ret = tdb_set_meta_int(lv->db, "stop_signal", r->stop_signal);
	if (!ret && r->child_pid) {
		ret = tdb_set_meta_int(lv->db, "workload_pid", r->child_pid);
		if (!ret && lv->child_reaped)
			ret = tdb_set_meta_int(lv->db, "workload_status", r->child_status);
	}
	return ret;
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
		if (lv->child && child_exited(lv))
			break;
		now = mono_ns();
		if (o->duration_ns && now - lv->t_on >= o->duration_ns)
			break;
		ret = reader_error(lv);
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

int cap_live_record(struct tdb *db, const struct cap_live_opts *o, struct cap_live_result *res)
{
	const char *const *events = o->events ? o->events : cap_default_events;
	struct live lv = { .db = db, .o = o, .res = res, .marker_fd = -1 };
	struct cap_decode_stats st;
	char **systems = NULL;
	int ret, err2, i;

	memset(res, 0, sizeof(*res));
	res->child_status = -1;

	ret = open_instance(&lv);
	if (ret)
		return ret;
	ret = configure_instance(&lv);
	if (ret)
		goto out;
	ret = event_systems(events, &systems);
	if (ret)
		goto out;
	lv.tep = tracefs_local_events_system(NULL, (const char *const *)systems);
	if (!lv.tep) {
		ret = bc_error(BC_E_NOTRACEFS, "cannot read the event formats: %m");
		goto out;
	}
	ret = cap_decoder_create(db, lv.tep, events, &lv.dec);
	if (ret)
		goto out;
	ret = enable_events(&lv, events);
	if (ret)
		goto out;
	if (o->stacks) {
		if (tracefs_event_file_write(lv.inst, "kmem", "mm_page_alloc", "trigger",
					     STACK_TRIGGER) < 0) {
			ret = bc_error(BC_E_NOTRACEFS,
				       "--stacks: cannot set '%s' on kmem:mm_page_alloc: %m",
				       STACK_TRIGGER);
			goto out;
		}
		lv.trigger_set = true;
	}
	lv.marker_fd = tracefs_instance_file_open(lv.inst, "trace_marker", O_WRONLY | O_CLOEXEC);
	if (lv.marker_fd < 0) {
		ret = bc_error(BC_E_NOTRACEFS, "%s: cannot open trace_marker: %m", lv.name);
		goto out;
	}
	ret = make_tmpdir(&lv);
	if (ret)
		goto out;
	ret = open_cpus(&lv);
	if (ret)
		goto out;
	ret = store_start_meta(&lv, events);
	if (ret)
		goto out;
	ret = start_readers(&lv);
	if (ret)
		goto stop;

	if (tracefs_trace_on(lv.inst) < 0) {
		ret = bc_error(BC_E_IO, "%s: cannot turn tracing on: %m", lv.name);
		goto stop;
	}
	lv.t_on = mono_ns();
	if (!o->no_snapshots) {
		ret = take_snapshot(&lv, "start");
		if (ret)
			goto stop;
	}
	if (o->argv) {
		ret = start_child(&lv);
		if (ret)
			goto stop;
	}
	ret = record_loop(&lv);
	end_child(&lv);
	if (!ret && o->before_end)
		ret = o->before_end(db, lv.marker_fd, o->before_end_arg);
	if (!ret && !o->no_snapshots)
		ret = take_snapshot(&lv, "end");
stop:
	end_child(&lv);
	if (lv.inst)
		tracefs_trace_off(lv.inst);
	lv.t_off = mono_ns();
	res->record_ns = lv.t_on ? lv.t_off - lv.t_on : 0;
	err2 = stop_readers(&lv);
	if (!ret)
		ret = err2;
	for (i = 0; i < lv.ncpus; i++) {
		uint64_t written = 0;

		err2 = read_cpu_stats(&lv, lv.cpus[i].cpu, true, &written, &res->lost_kernel);
		if (!ret)
			ret = err2;
	}
	untrace(&lv);		/* nothing of ours stays in tracefs during the conversion */
	if (o->stop)
		*o->stop = 0;	/* from here on, a stop request aborts the conversion */
	if (lv.t_on) {
		/* Convert what was read even after a failure: the file stays useful. */
		char saved[1024];

		snprintf(saved, sizeof(saved), "%s", ret ? bc_errmsg() : "");
		err2 = convert(&lv);
		if (!err2)
			err2 = store_comms(&lv);
		if (!err2)
			err2 = store_end_meta(&lv);
		if (!err2 && res->snapshots)
			err2 = snap_align(db, NULL);
		if (ret) {
			/* say why in the file too (best effort; complete stays 0) */
			tdb_set_meta(db, "error", saved);
			bc_error(ret, "%s", saved);	/* the first error is the one to report */
		} else {
			ret = err2;
		}
	}
	cap_decoder_stats(lv.dec, &st);
	res->events = st.events;
	res->markers = st.markers;
	res->stacks = st.stacks;
	res->gaps = st.gaps + lv.end_gaps;
	res->lost_seen = st.lost + lv.end_lost;
out:
	untrace(&lv);
	remove_tmpdir(&lv);
	for (i = 0; i < lv.ncpus; i++)
		free(lv.cpus[i].path);
	free(lv.cpus);
	cap_decoder_destroy(lv.dec);
	if (lv.tep)
		tep_free(lv.tep);
	free_list(systems);
	return ret;
}
