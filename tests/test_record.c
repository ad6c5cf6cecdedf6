// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk record: option errors (no root needed), and live recordings (root +
 * tracefs; tagged "live", one at a time): a known anonymous-memory workload must show
 * up complete and without loss, with aligned start/end snapshots over all System RAM;
 * SIGINT is a normal stop; stale instances go; nothing is left in tracefs.
 *
 * The workload is this test binary itself: with BC_TEST_ALLOC_MIB set in its
 * environment it maps, touches and unmaps that many MiB of 4 KiB pages before main()
 * and exits (see alloc_helper_mode()).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/cap-live.h"
#include "capture/snapshot.h"
#include "common/err.h"
#include "db/tdb.h"
#include "tests/fixture.h"

#define INSTANCES	"/sys/kernel/tracing/instances"
#define HELPER_MIB	64
#define HELPER_PAGES	(HELPER_MIB * 256)

/* ---- the workload (runs instead of the tests when BC_TEST_ALLOC_MIB is set) ---- */

__attribute__((constructor)) static void alloc_helper_mode(void)
{
	const char *env = getenv("BC_TEST_ALLOC_MIB");
	size_t len, off;
	volatile char *p;

	if (!env || !*env)
		return;
	len = strtoul(env, NULL, 10) << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	for (off = 0; off < len; off += 4096)
		p[off] = 1;
	munmap((void *)p, len);
	printf("alloc-helper pid %d pages %zu\n", (int)getpid(), len / 4096);
	fflush(stdout);
	_exit(0);
}

/* ---- helpers ---- */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool instance_exists(int pid)
{
	char path[128];

	snprintf(path, sizeof(path), INSTANCES "/" CAP_LIVE_INSTANCE_PREFIX "%d", pid);
	return access(path, F_OK) == 0;
}

/* Instances named like ours whose recorder is gone: must be none after a run. */
static int leftover_instances(void)
{
	struct dirent *de;
	DIR *d = opendir(INSTANCES);
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long pid;

		if (strncmp(de->d_name, CAP_LIVE_INSTANCE_PREFIX, strlen(CAP_LIVE_INSTANCE_PREFIX)))
			continue;
		pid = strtol(de->d_name + strlen(CAP_LIVE_INSTANCE_PREFIX), NULL, 10);
		if (pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			printf("left behind: %s\n", de->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}

/* Restore tracefs whatever a failed test left: runs in the runner, after the case. */
static void live_teardown(void)
{
	if (geteuid() == 0 && access(INSTANCES, F_OK) == 0)
		cap_live_remove_stale(0, NULL, NULL);
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

static char *self_exe(void)
{
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	ck_assert_int_gt(n, 0);
	path[n] = 0;
	return path;
}

/* fork+exec bigchunk with @args (NULL-terminated, after "bigchunk"); stdout+stderr
 * go to @log. Return: its pid. */
static pid_t spawn_bigchunk(const char *log, const char *const *args)
{
	const char *argv[32];
	pid_t pid;
	int i;

	argv[0] = fixture_bigchunk();
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Wait up to @ms for @pid; SIGKILL it after that. Return: wait status. */
static int wait_for(pid_t pid, uint64_t ms)
{
	uint64_t end = now_ms() + ms;
	int st = -1;

	while (now_ms() < end) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ck_abort_msg("bigchunk record (pid %d) did not finish in %llu ms", (int)pid,
		     (unsigned long long)ms);
	return st;
}

static char *slurp(const char *path)
{
	static char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	buf[0] = 0;
	if (fd < 0)
		return buf;
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	close(fd);
	return buf;
}

/* ---- core: argument errors (no root needed; they fail before any tracing) ---- */

START_TEST(test_record_usage)
{
	char cmd[1024], *out;

	snprintf(cmd, sizeof(cmd), "%s record --help", fixture_bigchunk());
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: bigchunk record -o FILE.db"));
	ck_assert_ptr_nonnull(strstr(out, "--snapshot-every"));
	free(out);

	snprintf(cmd, sizeof(cmd), "%s record -d 1", fixture_bigchunk());
	ck_assert_int_eq(fixture_run(cmd, &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "-o FILE.db is required"));
	free(out);

	snprintf(cmd, sizeof(cmd), "%s record -o %s -d soon", fixture_bigchunk(),
		 fixture_tmpfile("u.db"));
	ck_assert_int_eq(fixture_run(cmd, &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "'soon' is not a duration"));
	free(out);

	snprintf(cmd, sizeof(cmd), "%s record -o %s -e kmem", fixture_bigchunk(),
		 fixture_tmpfile("u.db"));
	ck_assert_int_eq(fixture_run(cmd, &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "not SYSTEM:EVENT"));
	free(out);

	snprintf(cmd, sizeof(cmd), "%s record -o %s -b 1", fixture_bigchunk(),
		 fixture_tmpfile("u.db"));
	ck_assert_int_eq(fixture_run(cmd, &out), 2);
	free(out);

	snprintf(cmd, sizeof(cmd), "%s record --list-events", fixture_bigchunk());
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "kmem:mm_page_alloc\n"));
	free(out);
}
END_TEST

/*
 * Not root: exit 2 with a message saying so, and no file. As root the binary is run
 * under the unprivileged uid 65534 (a real non-root process, no pretend knob).
 */
START_TEST(test_record_not_root)
{
	char dir[] = "/tmp/bc-rec-nonroot-XXXXXX", path[128], log[128];
	int st, fd;
	pid_t pid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	chmod(dir, 0777);
	snprintf(path, sizeof(path), "%s/x.db", dir);
	snprintf(log, sizeof(log), "%s/log", dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(126);
		execl(fixture_bigchunk(), fixture_bigchunk(), "record", "-o", path, "-d", "1",
		      (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st));
	if (WEXITSTATUS(st) == 126 || WEXITSTATUS(st) == 127) {
		fixture_skip("cannot run %s as uid 65534 (%d)", fixture_bigchunk(),
			     WEXITSTATUS(st));
	} else {
		ck_assert_int_eq(WEXITSTATUS(st), 2);
		ck_assert_ptr_nonnull(strstr(slurp(log), "needs root"));
		ck_assert_int_ne(access(path, F_OK), 0);
	}
	unlink(log);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ---- live ---- */

/*
 * Record a 64 MiB anonymous workload. Expect: complete, >= 16384 order-0
 * mm_page_alloc and mm_page_free by the workload's pid, start and end snapshots
 * aligned to their markers and covering every System RAM pfn, no loss, nothing left
 * in tracefs, mode 0600.
 */
/* The address of text symbol @name in /proc/kallsyms, 0 if absent or hidden. */
static uint64_t kernel_sym(const char *name)
{
	unsigned long long addr;
	char line[512], sym[256], type;
	uint64_t found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && !strcmp(sym, name)) {
			found = addr;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

START_TEST(test_record_workload)
{
	char *path = fixture_tmpfile("rec.db"), *log = fixture_tmpfile("rec.log");
	const char *args[] = { "record", "-q", "-o", path, "--", self_exe(), NULL };
	int alloc_t, free_t, order_i, forder_i, ret, st, nr, i, helper_pid = 0;
	uint64_t allocs = 0, frees = 0;
	struct tdb_snap_info *snaps;
	struct tdb_cursor *cur;
	struct bc_event ev;
	struct stat sb;
	struct tdb *db;
	const char *p;
	char sql[256];
	pid_t pid;

	if (!fixture_live("test_record_workload"))
		return;
	setenv("BC_TEST_ALLOC_MIB", "64", 1);
	pid = spawn_bigchunk(log, args);
	unsetenv("BC_TEST_ALLOC_MIB");
	st = wait_for(pid, 240000);
	printf("%s", slurp(log));
	fflush(stdout);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "record failed: %s", slurp(log));
	ck_assert(!instance_exists(pid));
	ck_assert_int_eq(leftover_instances(), 0);
	p = strstr(slurp(log), "alloc-helper pid ");
	ck_assert_ptr_nonnull(p);
	helper_pid = atoi(p + strlen("alloc-helper pid "));

	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_int_eq(tdb_get_meta_int(db, "complete", 0), 1);
	ck_assert_int_eq(tdb_get_meta_int(db, "workload_pid", 0), helper_pid);
	ck_assert_int_eq(tdb_get_meta_int(db, "workload_status", -1), 0);
	{
		char *src = tdb_get_meta(db, "source"), *clk = tdb_get_meta(db, "clock");

		ck_assert_str_eq(src, "record");
		ck_assert_str_eq(clk, "mono");
		free(src);
		free(clk);
	}

	/* the workload's faults and unmaps */
	alloc_t = tdb_event_type_id(db, "kmem", "mm_page_alloc");
	free_t = tdb_event_type_id(db, "kmem", "mm_page_free");
	ck_assert_int_gt(alloc_t, 0);
	ck_assert_int_gt(free_t, 0);
	order_i = tdb_field_index(db, alloc_t, "order");
	forder_i = tdb_field_index(db, free_t, "order");
	ck_assert_int_ge(order_i, 0);
	ck_assert_int_ge(forder_i, 0);
	ck_assert_int_eq(tdb_cursor_open(db, 0, UINT64_MAX, &cur), 0);
	while ((ret = tdb_cursor_next(cur, &ev)) == 1) {
		if (ev.pid != helper_pid)
			continue;
		if (ev.type == alloc_t && ev.field[order_i] == 0)
			allocs++;
		else if (ev.type == free_t && ev.field[forder_i] == 0)
			frees++;
	}
	ck_assert_int_eq(ret, 0);
	tdb_cursor_close(cur);
	printf("workload pid %d: %llu order-0 allocs, %llu frees\n", helper_pid,
	       (unsigned long long)allocs, (unsigned long long)frees);
	ck_assert_uint_ge(allocs, HELPER_PAGES);
	ck_assert_uint_ge(frees, HELPER_PAGES);

	/* vmstat_update()'s runs, and only its: the kernel's filter and the decoder's */
	if (kernel_sym("vmstat_update")) {
		char *fn = tdb_get_meta(db, TDB_META_TRACED_WORK_FN);
		int wq = tdb_event_type_id(db, "workqueue", "workqueue_execute_start");
		int fi = wq > 0 ? tdb_field_index(db, wq, "function") : -1;
		uint64_t runs = 0, others = 0;

		ck_assert_ptr_nonnull(fn);
		ck_assert_str_eq(fn, "vmstat_update");
		free(fn);
		ck_assert_int_ge(fi, 0);
		ck_assert_int_eq(tdb_cursor_open(db, 0, UINT64_MAX, &cur), 0);
		while ((ret = tdb_cursor_next(cur, &ev)) == 1)
			if (ev.type == wq) {
				runs += (uint64_t)ev.field[fi] == kernel_sym("vmstat_update");
				others += (uint64_t)ev.field[fi] != kernel_sym("vmstat_update");
			}
		tdb_cursor_close(cur);
		printf("vmstat_update() runs recorded: %llu\n", (unsigned long long)runs);
		ck_assert_uint_eq(others, 0);
	} else {
		printf("vmstat_update() has no address in /proc/kallsyms: its runs not checked\n");
	}

	/*
	 * cpu0's share of its last-level data cache, where sysfs has cacheinfo: at most
	 * its largest data or unified cache (shared by one cpu at least)
	 */
	if (!access("/sys/devices/system/cpu/cpu0/cache/index0/size", R_OK)) {
		int64_t slice = tdb_get_meta_int(db, "cpu_data_slice_kb", -1), max = 0;
		char path[96], buf[64];

		for (int i = 0; i < 16; i++) {
			FILE *fp;

			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
			fp = fopen(path, "re");
			if (!fp)
				break;
			if (fgets(buf, sizeof(buf), fp) && strtoll(buf, NULL, 10) > max)
				max = strtoll(buf, NULL, 10);
			fclose(fp);
		}
		printf("cpu_data_slice_kb %lld (largest cache %lld kB)\n", (long long)slice,
		       (long long)max);
		ck_assert_int_gt(slice, 0);
		ck_assert_int_le(slice, max);
	} else {
		printf("no cacheinfo in sysfs: cpu_data_slice_kb not checked\n");
	}

	/* no loss, by the data and by the kernel's counters */
	ck_assert_int_eq(sql_int(db, "SELECT count(*) FROM lost_events"), 0);
	ck_assert_int_eq(sql_int(db, "SELECT count(DISTINCT cpu) FROM cpu_stats"),
			 tdb_get_meta_int(db, "cpus", -1));
	ck_assert_int_eq(sql_int(db, "SELECT coalesce(sum(value), 0) FROM cpu_stats WHERE key IN "
				 "('overrun', 'commit_overrun', 'dropped_events')"), 0);

	/* snapshots: start and end, complete, aligned by their markers, all of RAM */
	ck_assert_int_eq(tdb_snap_list(db, &snaps, &nr), 0);
	ck_assert_int_eq(nr, 2);
	ck_assert_str_eq(snaps[0].label, "start");
	ck_assert_str_eq(snaps[1].label, "end");
	for (i = 0; i < nr; i++) {
		ck_assert(snaps[i].complete);
		ck_assert_int_ge(snaps[i].ts_begin, 0);
		ck_assert_int_ge(snaps[i].ts_end, snaps[i].ts_begin);
		ck_assert_int_ge(snaps[i].seq_end, snaps[i].seq_begin);
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM system_ram WHERE snap = %lld",
			 (long long)snaps[i].id);
		ck_assert_int_gt(sql_int(db, sql), 0);
		snprintf(sql, sizeof(sql), "SELECT max(end_pfn) FROM system_ram WHERE snap = %lld",
			 (long long)snaps[i].id);
		ck_assert_int_ge((int64_t)snaps[i].nr_pfns, sql_int(db, sql));
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM markers WHERE text LIKE "
			 "'" SNAP_MARKER_PREFIX "%s %%' AND ts IN (%lld, %lld)", snaps[i].label,
			 (long long)snaps[i].ts_begin, (long long)snaps[i].ts_end);
		ck_assert_int_eq(sql_int(db, sql), 2);
	}
	/* the workload ran between the two snapshots */
	ck_assert_int_lt(snaps[0].seq_end, snaps[1].seq_begin);
	free(snaps);
	tdb_close(db);
	fixture_rm(path);
	fixture_rm(log);
}
END_TEST

/*
 * SIGINT is the normal way to stop: exit 0, a complete capture, no instance. Sent
 * twice: almost at once (during the start snapshot) and after a second of tracing.
 */
START_TEST(test_record_sigint)
{
	static const unsigned int delay_ms[] = { 0, 1200 };
	char *path = fixture_tmpfile("int.db"), *log = fixture_tmpfile("int.log");
	const char *args[] = { "record", "-q", "-o", path, "-f", "-d", "120", NULL };
	struct tdb *db;
	uint64_t end;
	int st;
	pid_t pid;

	if (!fixture_live("test_record_sigint"))
		return;
	pid = spawn_bigchunk(log, args);
	end = now_ms() + 20000;
	while (!instance_exists(pid) && now_ms() < end && waitpid(pid, &st, WNOHANG) == 0)
		usleep(5000);
	ck_assert_msg(instance_exists(pid), "no instance appeared: %s", slurp(log));
	usleep(delay_ms[_i] * 1000);
	kill(pid, SIGINT);
	st = wait_for(pid, 120000);
	printf("%s", slurp(log));
	fflush(stdout);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "record failed: %s", slurp(log));
	ck_assert(!instance_exists(pid));
	ck_assert_int_eq(leftover_instances(), 0);
	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_int_eq(tdb_get_meta_int(db, "complete", 0), 1);
	ck_assert_int_eq(tdb_get_meta_int(db, "stop_signal", 0), SIGINT);
	ck_assert_int_ge(sql_int(db, "SELECT count(*) FROM snapshots WHERE complete = 1"), 1);
	tdb_close(db);
	fixture_rm(path);
	fixture_rm(log);
}
END_TEST

/* A dead recorder's instance is removed (and said so) by the next record. */
START_TEST(test_record_stale_instance)
{
	char *path = fixture_tmpfile("stale.db"), *log = fixture_tmpfile("stale.log");
	const char *args[] = { "record", "-q", "--no-snapshots", "-o", path, "-d", "0.3", NULL };
	char dir[128], want[128];
	int st;
	pid_t dead, pid;

	if (!fixture_live("test_record_stale_instance"))
		return;
	dead = fork();
	ck_assert_int_ge(dead, 0);
	if (dead == 0)
		_exit(0);
	waitpid(dead, &st, 0);
	snprintf(dir, sizeof(dir), INSTANCES "/" CAP_LIVE_INSTANCE_PREFIX "%d", (int)dead);
	ck_assert_msg(mkdir(dir, 0700) == 0, "mkdir %s: %s", dir, strerror(errno));
	pid = spawn_bigchunk(log, args);
	st = wait_for(pid, 60000);
	printf("%s", slurp(log));
	fflush(stdout);
	if (access(dir, F_OK) == 0)
		rmdir(dir);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "record failed: %s", slurp(log));
	snprintf(want, sizeof(want), "removed stale tracefs instance " CAP_LIVE_INSTANCE_PREFIX "%d",
		 (int)dead);
	ck_assert_ptr_nonnull(strstr(slurp(log), want));
	ck_assert_int_ne(access(dir, F_OK), 0);
	ck_assert_int_eq(leftover_instances(), 0);
	fixture_rm(path);
	fixture_rm(log);
}
END_TEST

/*
 * A failure midway (the disk fills while recording) is an error, exit 2, and leaves
 * a capture that opens, says complete=0 and why, and holds what was read; nothing is
 * left in tracefs or on the disk besides the capture.
 */
START_TEST(test_record_disk_full)
{
	char dir[] = "/tmp/bc-rec-full-XXXXXX", path[128], log[128];
	const char *args[] = { "record", "-q", "--no-snapshots", "-o", path, "--", self_exe(),
			       NULL };
	int64_t complete = -1, nev = 0;
	bool opened = false;
	struct dirent *de;
	char *why = NULL;
	struct tdb *db;
	int st, files = 0;
	DIR *d;
	pid_t pid;

	if (!fixture_live("test_record_disk_full"))
		return;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (mount("tmpfs", dir, "tmpfs", 0, "size=3m") != 0) {
		fixture_skip("cannot mount tmpfs: %s", strerror(errno));
		rmdir(dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/full.db", dir);
	snprintf(log, sizeof(log), "%s.log", dir);
	setenv("BC_TEST_ALLOC_MIB", "256", 1);
	pid = spawn_bigchunk(log, args);
	unsetenv("BC_TEST_ALLOC_MIB");
	st = wait_for(pid, 120000);
	printf("%s", slurp(log));
	fflush(stdout);
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			files++;
	if (d)
		closedir(d);
	/* read everything first: the tmpfs must go whatever the outcome */
	opened = tdb_open(path, TDB_READONLY, &db) == 0;
	if (opened) {
		complete = tdb_get_meta_int(db, "complete", -1);
		why = tdb_get_meta(db, "error");
		nev = tdb_event_count(db);
		tdb_close(db);
	}
	umount(dir);
	rmdir(dir);
	unlink(log);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 2);
	ck_assert_msg(opened, "the capture does not open");
	ck_assert_int_eq(complete, 0);
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, "No space left"));
	free(why);
	ck_assert_int_gt(nev, 0);
	ck_assert_int_eq(files, 1);	/* the temporary raw files are gone */
	ck_assert(!instance_exists(pid));
	ck_assert_int_eq(leftover_instances(), 0);
}
END_TEST

/*
 * --stacks: non-movable allocations get a kernel stack; the trigger is gone after.
 */
START_TEST(test_record_stacks)
{
	char *path = fixture_tmpfile("stk.db"), *log = fixture_tmpfile("stk.log");
	const char *args[] = { "record", "-q", "--no-snapshots", "--stacks", "-o", path, "--",
			       "/bin/sh", "-c", "ls -R /usr/share/doc > /dev/null", NULL };
	struct tdb *db;
	char *trig;
	int st;
	pid_t pid;

	if (!fixture_live("test_record_stacks"))
		return;
	pid = spawn_bigchunk(log, args);
	st = wait_for(pid, 60000);
	printf("%s", slurp(log));
	fflush(stdout);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "record failed: %s", slurp(log));
	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_int_eq(tdb_get_meta_int(db, "complete", 0), 1);
	ck_assert_int_gt(sql_int(db, "SELECT count(*) FROM stacks"), 0);
	ck_assert_int_gt(sql_int(db, "SELECT count(*) FROM stacks WHERE frames LIKE "
				 "'%__alloc_%pages%'"), 0);
	/* each trigger stack belongs to a non-movable mm_page_alloc, even when an
	 * interrupt wrote events between the allocation and its stack */
	{
		int alloc = tdb_event_type_id(db, "kmem", "mm_page_alloc"), mt, n = 0;
		sqlite3_stmt *q;

		mt = tdb_field_index(db, alloc, "migratetype");
		ck_assert_int_ge(mt, 0);
		ck_assert_int_eq(sqlite3_prepare_v2(tdb_sqlite(db), "SELECT seq FROM stacks WHERE "
						    "frames LIKE 'trace_event_raw_event_mm_page_alloc+%'",
						    -1, &q, NULL), SQLITE_OK);
		while (sqlite3_step(q) == SQLITE_ROW) {
			uint64_t seq = (uint64_t)sqlite3_column_int64(q, 0);
			struct tdb_cursor *cur;
			struct bc_event ev;

			ck_assert_int_eq(tdb_cursor_open(db, seq, seq + 1, &cur), 0);
			ck_assert_int_eq(tdb_cursor_next(cur, &ev), 1);
			ck_assert_msg(ev.type == alloc && ev.field[mt] != 1,
				      "stack of seq %llu is on an event of type %d, mt %lld",
				      (unsigned long long)seq, ev.type, (long long)ev.field[mt]);
			tdb_cursor_close(cur);
			n++;
		}
		sqlite3_finalize(q);
		ck_assert_int_gt(n, 0);
	}
	tdb_close(db);
	trig = slurp("/sys/kernel/tracing/events/kmem/mm_page_alloc/trigger");
	ck_assert_ptr_null(strstr(trig, "migratetype != 1"));
	ck_assert_int_eq(leftover_instances(), 0);
	fixture_rm(path);
	fixture_rm(log);
}
END_TEST

Suite *record_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("core");
	TCase *live = tcase_create("live");

	tcase_add_test(tc, test_record_usage);
	tcase_add_test(tc, test_record_not_root);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tcase_set_tags(live, "live");
	tcase_set_timeout(live, 600);
	tcase_add_unchecked_fixture(live, NULL, live_teardown);
	tcase_add_test(live, test_record_workload);
	tcase_add_loop_test(live, test_record_sigint, 0, 2);
	tcase_add_test(live, test_record_stale_instance);
	tcase_add_test(live, test_record_stacks);
	tcase_add_test(live, test_record_disk_full);
	suite_add_tcase(s, live);
	return s;
}
