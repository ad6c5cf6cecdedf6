// SPDX-License-Identifier: GPL-2.0
/*
 * cap-live-tracefs.c - the tracefs instance of one recording ("bigchunk-<pid>"):
 * removing stale ones, creating and configuring ours (clock, buffer, events, stack
 * trigger, trace_marker), reading its per-CPU stats, and undoing all of it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "capture/cap-live-local.h"
#include "capture/capture.h"
#include "common/err.h"
#include "db/tdb.h"

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
			live_note(lv, "event %s is not available on this kernel "
				  "(recorded as missing)", events[i]);
			continue;
		}
		enabled++;
	}
	if (!enabled)
		return bc_error(BC_E_NOENT, "none of the requested events exists on this kernel");
	return 0;
}

/* Keys of per_cpu/cpuN/stats that count events (all but the timestamps). */
int live_read_cpu_stats(struct live *lv, int cpu, bool store, uint64_t *written,
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

/* ---- our instance ---- */

int live_open_instance(struct live *lv)
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

/* Undo everything done to tracefs. Safe to call more than once. */
void live_untrace(struct live *lv)
{
	int i;

	if (!lv->inst)
		return;
	tracefs_trace_off(lv->inst);
	if (lv->trigger_set) {
		if (tracefs_event_file_write(lv->inst, "kmem", "mm_page_alloc", "trigger",
					     "!stacktrace") < 0)
			live_note(lv, "%s: cannot remove the stacktrace trigger: %s", lv->name,
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
		live_note(lv, "cannot remove tracefs instance %s: %s", lv->name, strerror(errno));
	tracefs_instance_free(lv->inst);
	lv->inst = NULL;
}

void live_free_formats(struct live *lv)
{
	if (lv->tep)
		tep_free(lv->tep);
	lv->tep = NULL;
	free_list(lv->systems);
	lv->systems = NULL;
}

/* The address of text symbol @name in /proc/kallsyms; 0 when absent or hidden
 * (kptr_restrict shows zeros). */
static unsigned long long kallsyms_addr(const char *name)
{
	unsigned long long addr, found = 0;
	char line[512], sym[256], type;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    (type == 't' || type == 'T') && !strcmp(sym, name)) {
			found = addr;
			break;
		}
	fclose(f);
	return found;
}

/*
 * workqueue_execute_start, if asked for, for cap_work_fn only: the kernel filters on
 * its address (a work item starts thousands of times a second under load) and the
 * decoder keeps that one. Without the address the event is switched off and noted.
 */
static int filter_work_fn(struct live *lv, const char *const *events)
{
	unsigned long long addr;
	char filter[64];
	int i;

	for (i = 0; events[i]; i++)
		if (!strcmp(events[i], "workqueue:workqueue_execute_start") ||
		    !strcmp(events[i], "workqueue:*"))
			break;
	if (!events[i] || !tracefs_event_file_exists(lv->inst, "workqueue",
						     "workqueue_execute_start", "filter"))
		return 0;
	addr = kallsyms_addr(cap_work_fn);
	if (!addr) {
		live_note(lv, "%s() has no address in /proc/kallsyms (kptr_restrict?): when it "
			  "ran is not recorded", cap_work_fn);
		tracefs_event_disable(lv->inst, "^workqueue$", "^workqueue_execute_start$");
		return 0;
	}
	cap_decoder_set_work_fn(lv->dec, addr);
	snprintf(filter, sizeof(filter), "function == 0x%llx", addr);
	if (tracefs_event_file_write(lv->inst, "workqueue", "workqueue_execute_start", "filter",
				     filter) < 0)
		live_note(lv, "cannot filter workqueue_execute_start on %s(): every work item "
			  "is read (%s)", cap_work_fn, strerror(errno));
	return tdb_set_meta(lv->db, TDB_META_TRACED_WORK_FN, cap_work_fn);
}

int live_setup_tracing(struct live *lv, const char *const *events)
{
	int ret;

	ret = configure_instance(lv);
	if (ret)
		return ret;
	ret = event_systems(events, &lv->systems);
	if (ret)
		return ret;
	lv->tep = tracefs_local_events_system(NULL, (const char *const *)lv->systems);
	if (!lv->tep)
		return bc_error(BC_E_NOTRACEFS, "cannot read the event formats: %m");
	ret = cap_decoder_create(lv->db, lv->tep, events, &lv->dec);
	if (ret)
		return ret;
	ret = enable_events(lv, events);
	if (!ret)
		ret = filter_work_fn(lv, events);
	if (ret)
		return ret;
	if (lv->o->stacks) {
		if (tracefs_event_file_write(lv->inst, "kmem", "mm_page_alloc", "trigger",
					     STACK_TRIGGER) < 0)
			return bc_error(BC_E_NOTRACEFS,
					"--stacks: cannot set '%s' on kmem:mm_page_alloc: %m",
					STACK_TRIGGER);
		lv->trigger_set = true;
	}
	lv->marker_fd = tracefs_instance_file_open(lv->inst, "trace_marker", O_WRONLY | O_CLOEXEC);
	if (lv->marker_fd < 0)
		return bc_error(BC_E_NOTRACEFS, "%s: cannot open trace_marker: %m", lv->name);
	return 0;
}
