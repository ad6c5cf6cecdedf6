// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk record: option parsing, progress and the end summary around
 * cap_live_record() (capture/cap-live.h), which does the recording.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/cap-live.h"
#include "capture/cap-probe.h"
#include "capture/capture.h"
#include "cli/cli.h"
#include "common/err.h"
#include "common/parse.h"
#include "db/tdb.h"
#include "trace/tr-time.h"

const char cmd_record_usage[] =
	"usage: bigchunk record -o FILE.db [options] [-- COMMAND [ARGS...]]\n"
	"\n"
	"Record the page allocator's tracepoints (kmem, migrate, compaction, page_isolation,\n"
	"...) and page-state snapshots of this machine into a capture file. Needs root.\n"
	"\n"
	"Recording starts with a snapshot, then runs COMMAND if one is given, and ends when\n"
	"COMMAND exits, after -d D, or on Ctrl-C / SIGTERM (a normal stop: the capture\n"
	"is complete). It ends with a snapshot. A COMMAND still running when recording ends\n"
	"gets SIGTERM. The events are then converted into FILE.db; a second Ctrl-C during\n"
	"the conversion aborts it and leaves a readable capture marked incomplete.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE.db        capture to write (mode 0600; required)\n"
	"  -f, --force                 replace FILE.db if it exists\n"
	"  -d, --duration D            stop D after tracing started: a duration with a\n"
	"                              unit (ns, us, ms, s, m, h: 30s, 1.5m); bare = seconds\n"
	"  -e, --event SYS:EVENT       record this tracepoint too; SYS:* = a whole system;\n"
	"                              repeatable. One the kernel lacks is noted as missing\n"
	"      --stacks                kernel stack of every non-movable page allocation\n"
	"                              (kmem:mm_page_alloc with migratetype != MOVABLE)\n"
	"      --snapshot-every D      also take a snapshot every D (a duration, as -d)\n"
	"      --no-snapshots          no snapshots at all (events only)\n"
	"  -b, --buffer KB             ring buffer per CPU in KiB, or with a unit (64M);\n"
	"                              default 32768 (32 MiB)\n"
	"  -q, --quiet                 no progress line\n"
	"      --probe 1G[:K]          at the end, while still tracing, ask the kernel for K\n"
	"                              (default 8) 1 GiB hugetlb pages one by one, record\n"
	"                              where each landed, then shrink the pool back\n"
	"      --probe-offline N       at the end, offline and at once online N memory blocks\n"
	"                              (evenly among the online, initialised Normal ones),\n"
	"                              recording success or the culprit pfn\n"
	"      --probe-timeout D       time limit per offline block (a duration; default 3s)\n"
	"                              Probes are ground truth for 'bigchunk predict --verify';\n"
	"                              pools and blocks are restored, also on errors and Ctrl-C\n"
	"      --list-events           print the events recorded by default and exit\n"
	"  -h, --help                  this text\n"
	"\n"
	"Tracing uses a tracefs instance of its own, bigchunk-PID, with the mono clock; it\n"
	"is removed on exit, and one left by a recorder that died is removed by the next\n"
	"'bigchunk record'. Raw per-CPU data is kept in a temporary directory next to\n"
	"FILE.db until the conversion is done. workqueue:workqueue_execute_start is\n"
	"filtered in the kernel to vmstat_update()'s runs (its address from\n"
	"/proc/kallsyms; where that is hidden, the event is left out and noted).\n"
	"\n"

	"Exit status: 0 recorded (also after Ctrl-C), 2 usage error, not root, no tracefs,\n"
	"or a failure (the capture, if written, says complete=0).\n"
	"\n"
	"Examples:\n"
	"  bigchunk record -o idle.db -d 10\n"
	"  bigchunk record -o build.db --stacks --snapshot-every 30 -- make -j2\n";

/* Long options only: the characters are not in the short option string. */
enum {
	OPT_STACKS = 'K', OPT_SNAP_EVERY = 'N', OPT_NO_SNAPSHOTS = 'Z', OPT_LIST_EVENTS = 'L',
	OPT_PROBE = 'P', OPT_PROBE_OFFLINE = 'F', OPT_PROBE_TIMEOUT = 'T',
};

static const char record_options[] = "output=o force:f duration=d event=e stacks:K "
				     "snapshot-every=N no-snapshots:Z buffer=b quiet:q "
				     "list-events:L probe=P probe-offline=F probe-timeout=T help:h";

struct record_ui {
	bool tty;		/* progress goes to a terminal */
	bool line_open;		/* a \r progress line is on screen */
};

/* A duration > 0 (trace/tr-time.h: "30" = "30s", "500ms", "2m") -> ns; -1 on error. */
static int parse_positive_duration(const char *s, uint64_t *ns)
{
	return tr_parse_duration(s, ns) || !*ns ? -1 : 0;
}

/* "4096" = KiB; "64M", "1G" = with a unit. */
static int parse_buffer_kb(const char *s, size_t *kb)
{
	uint64_t bytes;
	size_t i;

	/* Bare digits are KiB, as in trace-cmd's -b; with a suffix, a size. */
	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (i && !s[i]) {
		if (bc_parse_count(s, 4, SIZE_MAX / 1024, &bytes))
			return -1;
		*kb = (size_t)bytes;
		return 0;
	}
	if (bc_parse_size(s, &bytes))
		return -1;
	*kb = (size_t)(bytes / 1024);
	return *kb >= 4 ? 0 : -1;
}

static void clear_line(struct record_ui *ui)
{
	if (ui->line_open) {
		fputs("\r\033[K", stderr);
		ui->line_open = false;
	}
}

static void on_note(const char *msg, void *arg)
{
	struct record_ui *ui = arg;

	clear_line(ui);
	fprintf(stderr, "bigchunk record: %s\n", msg);
}

static void on_progress(const struct cap_live_progress *p, void *arg)
{
	struct record_ui *ui = arg;

	if (!ui->tty)
		return;
	if (p->phase == CAP_LIVE_RECORDING)
		fprintf(stderr, "\r\033[Krecording %6.1f s  %12llu events  %8.0f/s  lost %llu  snapshots %d",
			(double)p->elapsed_ns / 1e9, (unsigned long long)p->events, p->rate,
			(unsigned long long)p->lost, p->snapshots);
	else
		fprintf(stderr, "\r\033[Kconverting %5.1f%%  %12llu records  %8.0f/s  lost %llu",
			p->bytes_total ? 100.0 * (double)p->bytes_done / (double)p->bytes_total : 100.0,
			(unsigned long long)p->events, p->rate, (unsigned long long)p->lost);
	ui->line_open = true;
}

static int add_event(const char ***list, int *n, const char *ev)
{
	const char **grown = realloc(*list, (size_t)(*n + 2) * sizeof(**list));

	if (!grown)
		return -1;
	grown[(*n)++] = ev;
	grown[*n] = NULL;
	*list = grown;
	return 0;
}

static void summary(const char *path, const struct cap_live_result *r, bool complete)
{
	double secs = (double)r->record_ns / 1e9;

	fprintf(stderr, "bigchunk record: %s: %llu events in %.1f s (%.0f/s), %llu markers, "
		"%llu stacks, %d snapshots; raw %.1f MiB, converted in %.1f s\n",
		path, (unsigned long long)r->events, secs,
		secs > 0 ? (double)r->events / secs : 0.0, (unsigned long long)r->markers,
		(unsigned long long)r->stacks, r->snapshots, (double)r->raw_bytes / 1048576.0,
		(double)r->convert_ns / 1e9);
	fprintf(stderr, "bigchunk record: lost events: %llu (kernel ring-buffer stats), "
		"%llu gaps in the data (%llu counted)%s\n",
		(unsigned long long)r->lost_kernel, (unsigned long long)r->gaps,
		(unsigned long long)r->lost_seen,
		r->lost_kernel || r->gaps ? "; try a larger -b" : "");
	if (r->child_pid && r->child_status >= 0) {
		if (WIFEXITED(r->child_status))
			fprintf(stderr, "bigchunk record: command exited with status %d%s\n",
				WEXITSTATUS(r->child_status),
				r->child_killed ? " after SIGTERM" : "");
		else if (WIFSIGNALED(r->child_status))
			fprintf(stderr, "bigchunk record: command killed by signal %d%s\n",
				WTERMSIG(r->child_status),
				r->child_killed ? " (recording had ended)" : "");
	}
	if (!complete)
		fprintf(stderr, "bigchunk record: %s is incomplete (meta complete=0)\n", path);
}

/* The probes (capture/cap-probe.h), run by cap_live_record() before the end snapshot. */
static int run_probes(struct tdb *db, int marker_fd, void *arg)
{
	struct cap_probe_opts *p = arg;
	int ret;

	/* A stop signal ended the recording: probe anyway; another one stops the probes. */
	cli_stop = 0;
	p->stop = &cli_stop;
	ret = cap_probe_run(db, marker_fd, p);
	if (ret == -BC_E_INTR) {
		if (p->note)
			p->note(bc_errmsg(), p->arg);
		ret = 0;	/* what was probed is stored, the rest restored */
	}
	return ret;
}

/* What the command line asked for. */
struct record_args {
	struct cap_live_opts o;
	struct cap_probe_opts probe;
	const char **events;		/* the defaults, then -e (caller frees the array) */
	int nev;
	const char *out;
	bool force, quiet;
};

#define GO_ON -1	/* not an exit status: keep parsing */

static int opt_event(struct record_args *a, const char *ev)
{
	int i;

	if (!strchr(ev, ':') || ev[0] == ':' || !strchr(ev, ':')[1])
		return cli_error("record", "-e: '%s' is not SYSTEM:EVENT", ev);
	for (i = 0; i < a->nev; i++)
		if (!strcmp(a->events[i], ev))
			return GO_ON;
	if (add_event(&a->events, &a->nev, ev))
		die("out of memory");
	return GO_ON;
}

static int opt_probe_offline(struct record_args *a, const char *arg)
{
	uint64_t n;

	if (bc_parse_count(arg, 1, 256, &n))
		return cli_error("record", "--probe-offline: %s", bc_errmsg());
	a->probe.offline_blocks = (unsigned int)n;
	return GO_ON;
}

/* One option @c (with optarg). Return: GO_ON, or the exit status. */
static int record_option(struct record_args *a, int c)
{
	int i;

	switch (c) {
	case 'o':
		a->out = optarg;
		return GO_ON;
	case 'f':
		a->force = true;
		return GO_ON;
	case 'd':
		if (parse_positive_duration(optarg, &a->o.duration_ns))
			return cli_error("record", "-d: '%s' is not a duration > 0 (30, 30s, 500ms, 2m)",
					 optarg);
		return GO_ON;
	case 'e':
		return opt_event(a, optarg);
	case OPT_STACKS:
		a->o.stacks = true;
		return GO_ON;
	case OPT_SNAP_EVERY:
		if (parse_positive_duration(optarg, &a->o.snapshot_every_ns))
			return cli_error("record", "--snapshot-every: '%s' is not a duration > 0 "
					 "(30, 30s, 500ms, 2m)", optarg);
		return GO_ON;
	case OPT_NO_SNAPSHOTS:
		a->o.no_snapshots = true;
		return GO_ON;
	case 'b':
		if (parse_buffer_kb(optarg, &a->o.buffer_kb))
			return cli_error("record", "-b: '%s' is not a buffer size (KiB, >= 4)",
					 optarg);
		return GO_ON;
	case 'q':
		a->quiet = true;
		return GO_ON;
	case OPT_PROBE:
		if (cap_probe_parse_1g(optarg, &a->probe.hugetlb_1g))
			return cli_fail("record");
		return GO_ON;
	case OPT_PROBE_OFFLINE:
		return opt_probe_offline(a, optarg);
	case OPT_PROBE_TIMEOUT:
		if (parse_positive_duration(optarg, &a->probe.offline_timeout_ns))
			return cli_error("record", "--probe-timeout: '%s' is not a duration > 0 "
					 "(30, 30s, 500ms, 2m)", optarg);
		return GO_ON;
	case OPT_LIST_EVENTS:
		for (i = 0; cap_default_events[i]; i++)
			printf("%s\n", cap_default_events[i]);
		return EXIT_OK;
	case 'h':
		return cli_usage("record", 0, EXIT_OK);
	default:
		return cli_usage("record", 1, EXIT_BAD);
	}
}

/* Options and the checks between them. Return: GO_ON, or the exit status. */
static int parse_record_args(int argc, char **argv, struct record_args *a)
{
	int c, i, rc;

	for (i = 0; cap_default_events[i]; i++)
		if (add_event(&a->events, &a->nev, cap_default_events[i]))
			die("out of memory");
	optind = 1;
	while ((c = cli_getopt(argc, argv, "+o:fd:e:b:qh", record_options)) != -1) {
		rc = record_option(a, c);
		if (rc != GO_ON)
			return rc;
	}
	if (!a->out) {
		fprintf(stderr, "bigchunk record: -o FILE.db is required\n\n");
		return cli_usage("record", 1, EXIT_BAD);
	}
	if (optind < argc)
		a->o.argv = argv + optind;
	if (geteuid() != 0)
		return cli_error("record", "needs root (tracefs and /proc/kpageflags); "
				 "run it with sudo");
	if (a->o.snapshot_every_ns && a->o.no_snapshots)
		return cli_error("record", "--snapshot-every and --no-snapshots contradict");
	return GO_ON;
}

/* Progress, notes and the probes go through @ui. */
static void set_callbacks(struct record_args *a, struct record_ui *ui)
{
	ui->tty = !a->quiet && isatty(STDERR_FILENO);
	a->o.progress = on_progress;
	a->o.note = on_note;
	a->o.arg = ui;
	if (a->probe.hugetlb_1g || a->probe.offline_blocks) {
		a->probe.snapshot_before = !a->o.no_snapshots;
		a->probe.note = on_note;
		a->probe.arg = ui;
		a->o.before_end = run_probes;
		a->o.before_end_arg = &a->probe;
	}
}

/* Create the capture, record into it, finish it and say how it went. */
static int record_to_file(struct record_args *a, struct record_ui *ui)
{
	struct cap_live_result res;
	struct tdb *db = NULL;
	bool complete = false;
	int ret, rc;

	ret = tdb_create(a->out, a->force, &db);
	if (ret)
		return cli_fail("record");
	cli_catch_signals();
	ret = cap_live_record(db, &a->o, &res);
	clear_line(ui);
	if (!ret) {
		ret = tdb_finish(db);
		complete = !ret;
	}
	rc = ret ? cli_fail("record") : EXIT_OK;
	if (tdb_close(db) && !ret)
		rc = cli_fail("record");
	if (res.record_ns || res.events)
		summary(a->out, &res, complete);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = { .o = { .stop = &cli_stop } };
	struct record_ui ui = { 0 };
	char *cmdline = NULL;
	int rc;

	rc = parse_record_args(argc, argv, &a);
	if (rc == GO_ON) {
		a.o.events = a.events;
		argv[0] = "bigchunk record";	/* stored as meta 'command' */
		cmdline = cli_join_argv(argc, argv);
		a.o.cmdline = cmdline;
		set_callbacks(&a, &ui);
		rc = record_to_file(&a, &ui);
	}
	free(a.events);
	free(cmdline);
	return rc;
}
