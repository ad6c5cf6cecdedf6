// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk import: a trace-cmd trace.dat (plus snapshot directories) into a capture.
 *
 * The capture is written to a temporary file next to the output and moved into place
 * only when complete, so a failed or interrupted import leaves no output behind (and
 * an existing output replaced with -f stays untouched until then). The import runs in
 * a child process: libtracecmd can still crash on a damaged file that passes the
 * layout checks, and a crash there must be an error naming the file, with the
 * temporary removed, not a core dump that leaves it behind.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/snapshot.h"
#include "cli/cli.h"
#include "common/err.h"
#include "db/tdb.h"

const char cmd_import_usage[] =
	"usage: bigchunk import -o FILE.db [options] TRACE.dat\n"
	"\n"
	"Import a trace-cmd trace.dat (file version 6 or 7) into a bigchunk capture, with\n"
	"page-state snapshot directories taken during the trace. ftrace:print records become\n"
	"markers, ftrace:kernel_stack records (trace-cmd record -T) the stack of the event\n"
	"before them on the same CPU, and ring-buffer gaps become lost_events rows. The\n"
	"capture is written to a temporary file and moved into place when complete: a\n"
	"failed or interrupted import leaves no output. Progress is shown on stderr when it\n"
	"is a terminal.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE.db    capture to write (mode 0600; required)\n"
	"  -f, --force             replace FILE.db if it exists (only once the import worked);\n"
	"                          store snapshots whose kernel or time does not match the trace\n"
	"  -B, --instance NAME     import the buffer instance NAME (trace-cmd record -B NAME);\n"
	"                          default: the one buffer that holds events\n"
	"  -e, --event SYS:EVENT   import only this event (repeatable; SYS:* = a whole\n"
	"                          system); default: every event the file has a format for\n"
	"      --snapshot DIR      add the snapshot directory DIR (repeatable; made by\n"
	"                          'bigchunk snapshot' or bigchunk-snapshot.sh -m INSTANCE\n"
	"                          during the trace), aligned by its trace_marker brackets\n"
	"      --clock CLOCK       the trace clock the file was really recorded with (e.g.\n"
	"                          mono), when the file says otherwise\n"
	"  -q, --quiet             no progress, summary or warnings\n"
	"  -h, --help              this text\n"
	"\n"
	"The file's layout (sections, options, every CPU's offset and size, page size and\n"
	"header page) is checked before libtracecmd reads it; the library then runs in a\n"
	"child process, so that a crash on a damaged file is an error, not a core dump.\n"
	"Ring-buffer data that ends early or is damaged (pages cut short, records of no\n"
	"known type) is imported with a warning and stored as lost windows of unknown\n"
	"size, which info, replay and check report. Temporaries left by imports that died\n"
	"(FILE.db.importing-PID) are removed by the next import to FILE.db.\n"
	"\n"
	"Exit status: 0 imported; 2 usage error or unusable input (the file is named with\n"
	"what is wrong and where: not a trace.dat, truncated or corrupt at an offset, not\n"
	"a regular file, libtracecmd crashed on it, no such instance ...).\n"
	"\n"
	"Examples:\n"
	"  trace-cmd record -C mono -B mm -e kmem -e migrate -e compaction -o trace.dat\n"
	"  bigchunk import -o cap.db --clock mono trace.dat\n"
	"  bigchunk import -f -o cap.db --snapshot snap-begin --snapshot snap-end trace.dat\n";

#define MAX_LIST 64
#define GO_ON -1	/* not an exit status: keep going */

struct import_args {
	const char *out, *instance, *input;
	char *snaps[MAX_LIST];
	const char *events[MAX_LIST + 1];
	int nsnaps, nevents;
	struct cap_import_opts opts;
	bool force, quiet;
};

struct progress {
	struct timespec t0;
	bool tty;
};

/* What the import child hands back, in memory shared with the parent. */
struct child_report {
	int ret;			/* 0 or a negative bc_err */
	struct cap_decode_stats st;
	char msg[1024];			/* bc_errmsg() when ret != 0 */
};

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int show_progress(const struct cap_decode_stats *st, uint64_t records, void *arg)
{
	struct progress *p = arg;
	double s = elapsed(&p->t0);

	if (p->tty)
		fprintf(stderr, "\r  %llu records, %llu events, %.2f M records/s   ",
			(unsigned long long)records, (unsigned long long)st->events,
			s > 0 ? (double)records / s / 1e6 : 0.0);
	return cli_stop != 0;
}

static void remove_db_files(const char *path)
{
	static const char *const sfx[] = { "", "-journal", "-wal", "-shm" };
	char buf[4096];
	size_t i;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", path, sfx[i]);
		unlink(buf);
	}
}

/*
 * Temporaries "OUT.importing-PID[-journal|-wal|-shm]" of imports to @out whose process
 * is gone (killed before it could clean up): remove them, and say so. One of a live
 * process (another import running now) is left alone.
 */
static void remove_stale(const char *out, bool quiet)
{
	const char *slash = strrchr(out, '/'), *base = slash ? slash + 1 : out;
	char dir[4096], prefix[512], path[8192];
	struct dirent *de;
	long pid;
	char *end;
	DIR *d;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - out) + 1 : 1, slash ? out : ".");
	snprintf(prefix, sizeof(prefix), "%s.importing-", base);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		pid = strtol(de->d_name + strlen(prefix), &end, 10);
		if (pid <= 0 || (*end && strcmp(end, "-journal") && strcmp(end, "-wal") &&
				 strcmp(end, "-shm")))
			continue;
		if (pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s%s", slash ? dir : "", de->d_name);
		if (unlink(path) == 0 && !quiet)
			fprintf(stderr, "bigchunk import: removed %s, left by an import that died (pid %ld)\n",
				path, pid);
	}
	closedir(d);
}

/* Join argv into meta 'command'. */
static int store_command(struct tdb *db, int argc, char **argv)
{
	char *args = cli_join_argv(argc, argv), *cmd = NULL;
	int ret;

	if (!args || asprintf(&cmd, "bigchunk %s", args) < 0) {
		free(args);
		return bc_error(BC_E_NOMEM, "out of memory");
	}
	ret = tdb_set_meta(db, "command", cmd);
	free(args);
	free(cmd);
	return ret;
}

static int load_snapshots(struct tdb *db, char *const *dirs, int n, bool force, bool quiet)
{
	int i, ret, marked = 0;

	for (i = 0; i < n; i++) {
		ret = snap_load_dir_flags(db, dirs[i], "import", force ? SNAP_LOAD_FORCE : 0, NULL);
		if (ret)
			return ret;
	}
	if (!n)
		return 0;
	ret = snap_align(db, &marked);
	if (ret) {
		/* The snapshots stay, unaligned (ts/seq NULL); say why. */
		if (!quiet)
			fprintf(stderr, "bigchunk import: warning: %s\n", bc_errmsg());
	}
	return 0;
}

/* One option @c (with optarg) into @a. Return: GO_ON, or the exit status. */
static int import_option(int c, struct import_args *a)
{
	switch (c) {
	case 'o':
		a->out = optarg;
		break;
	case 'f':
		a->force = true;
		break;
	case 'B':
		a->instance = optarg;
		break;
	case 'e':
		if (a->nevents == MAX_LIST)
			return cli_error("import", "at most %d -e options", MAX_LIST);
		if (!strchr(optarg, ':'))
			return cli_error("import", "-e %s: want SYSTEM:EVENT or SYSTEM:*", optarg);
		a->events[a->nevents++] = optarg;
		break;
	case 'S':
		if (a->nsnaps == MAX_LIST)
			return cli_error("import", "at most %d --snapshot options", MAX_LIST);
		a->snaps[a->nsnaps++] = optarg;
		break;
	case 'C':
		a->opts.clock = optarg;
		break;
	case 'q':
		a->quiet = true;
		break;
	case 'h':
		return cli_usage("import", 0, EXIT_OK);
	default:
		return cli_usage("import", 1, EXIT_BAD);
	}
	return GO_ON;
}

static int parse_import_args(int argc, char **argv, struct import_args *a)
{
	/* 'S' and 'C' are long options only: not in the short option string */
	static const struct option longopts[] = {
		CLI_OPT_OUTPUT,
		{ "instance", required_argument, NULL, 'B' },
		{ "event",    required_argument, NULL, 'e' },
		{ "snapshot", required_argument, NULL, 'S' },
		{ "clock",    required_argument, NULL, 'C' },
		{ "quiet",    no_argument,       NULL, 'q' },
		{ "help",     no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:fB:e:qh", longopts, NULL)) != -1) {
		rc = import_option(c, a);
		if (rc != GO_ON)
			return rc;
	}
	if (optind != argc - 1) {
		cli_error("import", optind == argc ? "no TRACE.dat given" :
			  "one TRACE.dat at a time");
		return cli_usage("import", 1, EXIT_BAD);
	}
	if (!a->out) {
		cli_error("import", "no output given (-o FILE.db)");
		return cli_usage("import", 1, EXIT_BAD);
	}
	a->input = argv[optind];
	a->events[a->nevents] = NULL;
	if (!a->force && access(a->out, F_OK) == 0)
		return cli_error("import", "%s: file exists (use -f to replace it)", a->out);
	return GO_ON;
}

/*
 * opts.heap_hint of the import child: grow its heap once by @bytes and fault the pages
 * in with one madvise(MADV_POPULATE_WRITE). The kallsyms text passes through three
 * buffers of its size in libtracecmd and here (5 MB each for this machine's kernel);
 * touched 4 KiB at a time they were over 4,000 page faults, a sixth of the CPU time of
 * importing a trace with stacks. Huge pages (MADV_HUGEPAGE) were tried: fewer faults,
 * but where free page reporting has handed free 2 MiB blocks back to the hypervisor,
 * each one costs several times more to fault in again (import CPU time bimodal, worse
 * on average). The heap is never trimmed (M_TRIM_THRESHOLD), so what is faulted in
 * serves those buffers; a kernel without MADV_POPULATE_WRITE (before 5.14) refuses
 * it and nothing else changes.
 */
static void heap_prefault(size_t bytes)
{
	uintptr_t lo, hi;
	char *base, *end;
	void *p;

	if (bytes > (192u << 20))
		bytes = 192u << 20;	/* stays below M_MMAP_THRESHOLD: on the heap */
	base = sbrk(0);
	p = malloc(bytes);
	__asm__ volatile("" : : "r"(p) : "memory");	/* not optimised away with the free */
	free(p);
	end = sbrk(0);
	if (base == (void *)-1 || end == (void *)-1 || end <= base)
		return;
	lo = ((uintptr_t)base + 4095) & ~(uintptr_t)4095;
	hi = (uintptr_t)end & ~(uintptr_t)4095;
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}

/* The import proper, into the temporary @tmp (run in the child). Return: 0 or a bc_err. */
static int import_into(const struct import_args *a, const char *tmp, int argc, char **argv,
		       struct progress *prog, struct cap_decode_stats *st)
{
	struct cap_import_opts opts = a->opts;
	struct tdb *db = NULL;
	int ret;

	ret = tdb_create(tmp, true, &db);
	if (ret) {
		char why[512];

		/* name the output the user asked for, not our temporary */
		snprintf(why, sizeof(why), "%s", bc_errmsg());
		return bc_error(-ret, "%s: cannot create the capture: %s", a->out, why);
	}
	opts.progress = show_progress;
	opts.progress_arg = prog;
	opts.heap_hint = heap_prefault;
	ret = store_command(db, argc, argv);
	if (!ret)
		ret = cap_import_dat(db, a->input, a->instance, a->nevents ? a->events : NULL,
				     &opts, st);
	if (prog->tty)
		fputs("\r\033[K", stderr);
	if (!ret)
		ret = load_snapshots(db, a->snaps, a->nsnaps, a->force, a->quiet);
	if (!ret)
		ret = tdb_finish(db);
	if (ret) {
		tdb_close(db);
		return ret;
	}
	return tdb_close(db);
}

/* A signal the child raised itself by a fault, not one sent to it. */
static bool crash_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGFPE || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGABRT || sig == SIGTRAP || sig == SIGSYS;
}

/*
 * Run import_into() in a child and wait for it. Return: 0, or EXIT_BAD after saying
 * why (the child's error, or the signal that killed it).
 */
static int import_contained(const struct import_args *a, const char *tmp, int argc,
			    char **argv, struct progress *prog, struct cap_decode_stats *st)
{
	struct child_report *rep;
	bool forwarded = false;
	int status, rc;
	pid_t pid;

	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rep == MAP_FAILED)
		return cli_error("import", "cannot map memory: %s", strerror(errno));
	rep->ret = -BC_E_INTR;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		munmap(rep, sizeof(*rep));
		return cli_error("import", "cannot fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* killed with us: no orphan goes on writing a temporary the next import removes */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(0);
		/*
		 * libtracecmd passes a trace's kallsyms text (5 MB and more) through a few
		 * buffers in turn; glibc maps each afresh and unmaps it when freed, so the
		 * kernel zeroes every page again. Freed memory stays in the heap for the next
		 * one instead (the child is short-lived).
		 */
		mallopt(M_MMAP_THRESHOLD, 256 << 20);
		mallopt(M_TRIM_THRESHOLD, 256 << 20);
		rep->ret = import_into(a, tmp, argc, argv, prog, &rep->st);
		if (rep->ret)
			snprintf(rep->msg, sizeof(rep->msg), "%s", bc_errmsg());
		fflush(stderr);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0) {
		/* Ctrl-C reaches the child too; a TERM sent to us alone is passed on. */
		if (errno == EINTR && cli_stop && !forwarded) {
			kill(pid, SIGTERM);
			forwarded = true;
		} else if (errno != EINTR) {
			status = 0;
			rep->ret = bc_error(BC_E_IO, "waiting for the import: %m");
			break;
		}
	}
	rc = EXIT_OK;
	if (WIFSIGNALED(status) && crash_signal(WTERMSIG(status))) {
		rc = cli_error("import", "%s: libtracecmd crashed reading this file (signal %d, %s): it is damaged in a way the checks before it did not catch",
			       a->input, WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else if (WIFSIGNALED(status)) {
		rc = cli_error("import", "%s: the import was killed (signal %d, %s); %s not written",
			       a->input, WTERMSIG(status), strsignal(WTERMSIG(status)), a->out);
	} else if (rep->ret == -BC_E_INTR) {
		rc = cli_error("import", "interrupted; %s not written", a->out);
	} else if (rep->ret) {
		rc = cli_error("import", "%s", rep->msg);
	}
	*st = rep->st;
	munmap(rep, sizeof(*rep));
	return rc;
}

/* Move the finished temporary into place (-f: over an existing @out). */
static int move_into_place(const char *tmp, const char *out, bool force)
{
	if (force) {
		if (rename(tmp, out) < 0)
			return cli_error("import", "%s: cannot move the capture into place: %s",
					 out, strerror(errno));
	} else if (link(tmp, out) < 0 || unlink(tmp) < 0) {
		return cli_error("import", "%s: %s", out, errno == EEXIST ?
				 "file exists (use -f to replace it)" : strerror(errno));
	}
	return EXIT_OK;
}

static void summary(const struct import_args *a, const struct cap_decode_stats *st,
		    double secs)
{
	if (a->quiet)
		return;
	if (st->damaged)
		fprintf(stderr, "bigchunk import: warning: %s: the ring-buffer data of %llu CPU(s) is damaged or ends early; stored as %llu lost window(s) of unknown size\n",
			a->input, (unsigned long long)st->damaged,
			(unsigned long long)st->damaged);
	fprintf(stderr, "imported %llu events, %llu markers, %llu stacks, %llu gaps (%llu events lost%s), %llu skipped records from %s into %s in %.2f s (%.2f M events/s)\n",
		(unsigned long long)st->events, (unsigned long long)st->markers,
		(unsigned long long)st->stacks, (unsigned long long)st->gaps,
		(unsigned long long)st->lost, st->damaged ? ", more in damaged data" : "",
		(unsigned long long)st->skipped, a->input,
		a->out, secs, secs > 0 ? (double)st->events / secs / 1e6 : 0.0);
}

int cmd_import(int argc, char **argv)
{
	struct import_args a = { 0 };
	struct cap_decode_stats st = { 0 };
	struct progress prog;
	char *tmp = NULL;
	int rc;

	rc = parse_import_args(argc, argv, &a);
	if (rc != GO_ON)
		return rc;
	remove_stale(a.out, a.quiet);
	if (asprintf(&tmp, "%s.importing-%d", a.out, (int)getpid()) < 0)
		return cli_error("import", "out of memory");

	cli_catch_signals();
	prog.tty = !a.quiet && isatty(2);
	clock_gettime(CLOCK_MONOTONIC, &prog.t0);
	rc = import_contained(&a, tmp, argc, argv, &prog, &st);
	if (rc == EXIT_OK)
		rc = move_into_place(tmp, a.out, a.force);
	remove_db_files(tmp);
	free(tmp);
	if (rc == EXIT_OK)
		summary(&a, &st, elapsed(&prog.t0));
	return rc;
}
