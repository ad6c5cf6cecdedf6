// SPDX-License-Identifier: GPL-2.0
/*
 * The command table and helpers shared by the cmd_*.c files. Each command's usage
 * text is defined once, next to its code, as cmd_<name>_usage[].
 */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/err.h"

extern const char cmd_check_usage[], cmd_import_usage[], cmd_info_usage[],
	cmd_predict_usage[], cmd_query_usage[], cmd_record_usage[], cmd_replay_usage[],
	cmd_snapshot_usage[], cmd_map_usage[], cmd_report_usage[], cmd_simulate_usage[],
	cmd_compare_usage[];

const struct bc_command bc_commands[] = {
	{ "check",    cmd_check,    "check invariants of the allocator over a capture", cmd_check_usage },
	{ "compare",  cmd_compare,  "what-if layouts: on demand, CMA, ZONE_MOVABLE, boot reservation", cmd_compare_usage },
	{ "import",   cmd_import,   "import a trace-cmd trace.dat (and snapshots) into a capture", cmd_import_usage },
	{ "info",     cmd_info,     "summarise a capture: kernel, zones, events, loss, snapshots", cmd_info_usage },
	{ "map",      cmd_map,      "draw physical memory in the terminal, a row per 1 GiB", cmd_map_usage },
	{ "predict",  cmd_predict,  "predict where alloc_contig_pages() would succeed", cmd_predict_usage },
	{ "query",    cmd_query,    "run read-only SQL on a capture", cmd_query_usage },
	{ "record",   cmd_record,   "record mm tracepoints and page-state snapshots (root)", cmd_record_usage },
	{ "replay",   cmd_replay,   "replay a capture through the model and score its fidelity", cmd_replay_usage },
	{ "report",   cmd_report,   "write a self-contained HTML report with the map over time", cmd_report_usage },
	{ "simulate", cmd_simulate, "let the model make the allocator's decisions (--teacher)", cmd_simulate_usage },
	{ "snapshot", cmd_snapshot, "write one page-state snapshot directory (root)", cmd_snapshot_usage },
	{ NULL, NULL, NULL, NULL },
};

int cli_usage(const char *name, int err, int ret)
{
	const struct bc_command *c;

	for (c = bc_commands; c->name; c++) {
		if (!strcmp(c->name, name)) {
			fputs(c->usage, err ? stderr : stdout);
			return ret;
		}
	}
	fprintf(stderr, "bigchunk: '%s' is not a command; see 'bigchunk help'\n", name);
	return EXIT_BAD;
}

#define CLI_MAX_OPTS	32

/* The struct option table of @spec (see cli_getopt()), kept while @spec is the same. */
static const struct option *long_options(const char *spec)
{
	static struct option tab[CLI_MAX_OPTS + 1];
	static char names[1024];
	static const char *parsed;
	char *w, *save = NULL, *sep;
	int n = 0;

	if (spec == parsed)
		return tab;
	if (strlen(spec) >= sizeof(names))
		die("internal: option list too long");
	memcpy(names, spec, strlen(spec) + 1);
	for (w = strtok_r(names, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		sep = strpbrk(w, ":=");
		if (!sep || !sep[1] || n == CLI_MAX_OPTS)
			die("internal: bad option '%s'", w);
		tab[n++] = (struct option){ w, *sep == '=' ? required_argument : no_argument,
					    NULL, sep[1] };
		*sep = '\0';
	}
	tab[n] = (struct option){ NULL, 0, NULL, 0 };
	parsed = spec;
	return tab;
}

int cli_getopt(int argc, char **argv, const char *shortopts, const char *longopts)
{
	return getopt_long(argc, argv, shortopts, long_options(longopts), NULL);
}

int cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bigchunk %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_BAD;
}

int cli_fail(const char *cmd)
{
	return cli_error(cmd, "%s", bc_errmsg());
}

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("bigchunk: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_BAD);
}

volatile int cli_stop;

static void on_signal(int sig)
{
	cli_stop = sig;
}

void cli_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void cli_replay_progress(void *arg, uint64_t next_seq, uint64_t total, bool done)
{
	static time_t last;
	struct timespec now;

	if (!isatty(2))
		return;
	if (done) {
		fprintf(stderr, "\r%60s\r", "");
		last = 0;
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec == last)
		return;
	last = now.tv_sec;
	fprintf(stderr, "\rreplay: %llu / %llu events (%.0f%%)   ", (unsigned long long)next_seq,
		(unsigned long long)total, total ? 100.0 * next_seq / total : 100.0);
}

void cli_note(void *arg, const char *text)
{
	fprintf(stderr, "bigchunk: %s\n", text);
}

char *cli_join_argv(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = 0;
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}
