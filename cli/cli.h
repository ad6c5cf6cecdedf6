/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli: the bigchunk commands. Only this layer prints usage, decides exit codes and may
 * die(). Exit codes: 0 success, 1 "the answer is no" (check found violations, predict
 * found no range), 2 usage error or unusable input.
 */
#ifndef BC_CLI_H
#define BC_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>

enum { EXIT_OK = 0, EXIT_NO = 1, EXIT_BAD = 2 };

struct bc_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;	/* one line for 'bigchunk help' */
	const char *usage;	/* full text for 'bigchunk CMD --help' */
};

/* Commands, sorted by name; NULL-terminated. */
extern const struct bc_command bc_commands[];

int cmd_check(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
/* bigchunk simulate without --teacher (cli/cmd_simulate_free.c). */
/* bigchunk simulate's options (cmd_simulate.c), shared by its two modes. */
struct simulate_args {
	const char *path, *until;
	bool as_json, store, force;
	bool kernel_zones;		/* free-running: --kernel-zones */
	bool partial;			/* set by simulate_open(): the capture is incomplete */
};
struct tdb;
int simulate_open(struct simulate_args *a, struct tdb **db, uint64_t *until_seq);
/* What each kind of simulation does with its result (an opaque struct of its own). */
struct simulate_ops {
	int (*store)(struct tdb *db, const void *res);
	void (*print_json)(const void *res);
	void (*print_text)(const void *res, const char *path);
	void (*release)(void *res);
};
/*
 * After a run over @a's capture @db that returned @ret: store the result (unless
 * --no-store), print it, release it and close @db. Return: the command's exit code.
 */
int simulate_finish(struct simulate_args *a, struct tdb *db, int ret,
		    const struct simulate_ops *ops, void *res);
int simulate_free(struct simulate_args *a);	/* cmd_simulate_free.c */

/* The -o FILE and -f entries of a struct option table (commands that write a capture). */
#define CLI_OPT_OUTPUT							\
	{ "output",	required_argument,	NULL, 'o' },		\
	{ "force",	no_argument,		NULL, 'f' }

/* Print the usage of command @name to stdout (@err: to stderr) and return @ret. */
int cli_usage(const char *name, int err, int ret);
/*
 * cli_getopt() - getopt_long() over @argv with short options @shortopts and the long
 * options written as one string of words, "NAME:C" for a flag and "NAME=C" for an
 * option that takes an argument, C being the character returned for it (a short
 * option too only when @shortopts has it): e.g. "until=u json:j help:h".
 */
int cli_getopt(int argc, char **argv, const char *shortopts, const char *longopts);
/* Print "bigchunk CMD: message" to stderr; returns EXIT_BAD. */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print the last bc_errmsg() prefixed with the command; returns EXIT_BAD. */
int cli_fail(const char *cmd);
/*
 * Open the existing capture @path for command @cmd with tdb_open() @flags, after
 * PRAGMA quick_check (a damaged file is refused unless @force: the -f/--force of every
 * command that reads a capture). An incomplete (meta complete != 1) or forced damaged
 * capture opens with a warning on stderr saying what is missing and *@partial set: the
 * command then exits 1 at best (cli_partial_exit()).
 * Return: 0 and *@db, or a negative bc_err (not printed: cli_fail() it).
 */
int cli_open_capture(const char *cmd, const char *path, int flags, bool force,
		     struct tdb **db, bool *partial);
/* @rc of a command whose result came from a partial capture: EXIT_OK becomes EXIT_NO. */
int cli_partial_exit(bool partial, int rc);
/* The --help paragraph about it, shared by the readers' usage texts. */
#define CLI_CAPTURE_EXIT_HELP \
	"An incomplete capture (its writer was interrupted) is read with a warning saying\n" \
	"what is missing, and the exit status is then 1 at best; a damaged one (it fails\n" \
	"SQLite's quick_check) is refused with exit status 2 unless -f/--force.\n"
noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Callbacks of struct rp_opts: progress on stderr when it is a terminal (at most once a
 * second, erased at the end), and notes as "bigchunk: TEXT" lines on stderr. */
void cli_replay_progress(void *arg, uint64_t next_seq, uint64_t total, bool done);
void cli_note(void *arg, const char *text);
/* The command line as one string, arguments separated by spaces (stored with results);
 * caller frees; NULL when out of memory. */
char *cli_join_argv(int argc, char **argv);
/* Install SIGINT/SIGTERM handlers that set cli_stop; returns the flag. */
extern volatile int cli_stop;
void cli_catch_signals(void);

#endif
