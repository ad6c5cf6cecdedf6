/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the Check tests: temporary files, running the binary, skips. */
#ifndef BC_FIXTURE_H
#define BC_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

struct model;
struct model_layout;

/* A fresh path "<tmpdir>/<name>" in a per-process temp dir (the file does not exist).
 * The string is static storage per call slot; valid for the test. */
char *fixture_tmpfile(const char *name);
/* Remove a file made by the test (ignores errors). */
void fixture_rm(const char *path);
/* The source tree (env BC_SRCDIR, default ".") and the bigchunk binary (env BIGCHUNK). */
const char *fixture_srcdir(void);
const char *fixture_bigchunk(void);
/* "<srcdir>/<rel>" in static storage (one slot per call, 8 slots round robin). */
const char *fixture_path(const char *rel);
/* Run a shell command line; returns its exit status (or -1), stdout+stderr in *out
 * (malloc'ed, caller frees) when @out is not NULL. */
int fixture_run(const char *cmdline, char **out);
/* fixture_run() of a printf-formatted command line. */
int fixture_runf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* fixture_run() of "BIGCHUNK ARGS", ARGS made from @fmt. */
int fixture_run_bc(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Live tests: true when root with tracefs (and BC_NO_LIVE unset), after taking the
 * live-test lock; otherwise skips with the reason (fixture_skip()). Every call is
 * counted as one live test for the summary of check_main.c.
 */
bool fixture_live(const char *test);
/*
 * Skip the running test for a stated reason: prints "SKIP: <test>: <reason>" and
 * appends a record to the file named by BC_SKIP_LOG (check_main.c sums them up, since
 * Check itself counts a test that returns early as passed). The caller returns.
 */
void fixture_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Assert that neither @out nor an "<out>.importing-*" temporary exists (a failed import). */
void fixture_assert_no_output(const char *out);
/* Copy file @from to @to (mode 0600, replaced if present); fails the test on error. */
void fixture_copy(const char *from, const char *to);
/* Run @sql on the SQLite file @path (read-write: a hot journal is rolled back). */
void fixture_sql_exec(const char *path, const char *sql);
/* The rows of @query as text, "|" between columns and "\n" after each row, NULL as "":
 * the sqlite3 shell's list mode. Caller frees. */
char *fixture_sql_rows(const char *path, const char *query);
/* The first column of @query's first row as a number. */
long long fixture_sql_count(const char *path, const char *query);

/*
 * Synthetic layouts for model tests. fixture_layout_init(): no zones, pageblock_order 9,
 * MAX_PAGE_ORDER 10, 2 cpus, 128 MiB memory blocks (the test machines' geometry).
 * fixture_layout_zone(): append zone @name of @npfn pfns from @start, all present and
 * managed; returns its index. fixture_model(): the model of @l under the profile of kernel
 * @release (the test fails if it cannot be made).
 */
void fixture_layout_init(struct model_layout *l);
unsigned int fixture_layout_zone(struct model_layout *l, const char *name, uint64_t start,
				 uint64_t npfn);
struct model *fixture_model(const struct model_layout *l, const char *release);
/* Seed [@pfn, @pfn + @n) with @flags on every page (the test fails if the model refuses). */
void fixture_seed(struct model *m, uint64_t pfn, uint64_t n, uint64_t flags);
/* Seed a compound page of @n pages at @pfn: COMPOUND_HEAD, then COMPOUND_TAIL, all | @flags. */
void fixture_seed_compound(struct model *m, uint64_t pfn, uint64_t n, uint64_t flags);
/* One zone "Normal" of @npfn pfns from @start, every page free in the buddy. */
struct model *fixture_free_zone(const char *release, uint64_t start, unsigned int npfn);

#endif
