// SPDX-License-Identifier: GPL-2.0
/*
 * traces/pins.db: long-term pinned THP (io_uring fixed buffers, FOLL_LONGTERM) under
 * the probes, some of whose offlines fail because migration fails on pinned pages.
 * A healthy kernel: check finds nothing; the model follows the kernel page for page
 * (free/in-use >= 99.9% at every snapshot); once a probe has shown the pins (its
 * migrations failed), a later prediction on that block fails on them, as the kernel
 * would, and says that it assumes the pin; and the snapshots' listing of the pins
 * (longterm_pins) shows them before any probe does.
 *
 * Each test works on a copy: these commands store their results in the capture.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fixture.h"

#define PINS_DB	"traces/pins.db"

/* A fresh copy of traces/pins.db, or NULL (a skip) while it is not bundled. */
static char *pins_copy(const char *name)
{
	char *copy;

	if (access(fixture_path(PINS_DB), R_OK)) {
		fixture_skip("%s is not there: record it with traces/recipes/captures.sh pins "
			     "(root, a quiet machine)", PINS_DB);
		return NULL;
	}
	copy = fixture_tmpfile(name);
	fixture_copy(fixture_path(PINS_DB), copy);
	return copy;
}

/* check: every checker passes, no violation (no false positive on a healthy kernel). */
START_TEST(test_pins_check)
{
	char *copy = pins_copy("pins-check.db"), *out = NULL;
	int rc;

	if (!copy)
		return;
	rc = fixture_run_bc(&out, "check --store '%s'", copy);
	ck_assert_msg(rc == 0, "check: exit %d: %.3000s", rc, out);
	ck_assert_int_eq(fixture_sql_count(copy, "SELECT count(*) FROM check_violations"), 0);
	ck_assert_int_eq(fixture_sql_count(copy, "SELECT count(*) FROM check_results WHERE "
					   "status != 'pass'"), 0);
	free(out);
	fixture_rm(copy);
}
END_TEST

/* replay: free/in-use agreement at least 99.9% at every scored snapshot. */
START_TEST(test_pins_replay)
{
	char *copy = pins_copy("pins-replay.db"), *out = NULL, *worst;
	int rc;

	if (!copy)
		return;
	rc = fixture_run_bc(&out, "replay '%s'", copy);
	ck_assert_msg(rc == 0, "replay: exit %d: %.3000s", rc, out);
	ck_assert_int_ge(fixture_sql_count(copy, "SELECT count(*) FROM replay_scores"), 1);
	worst = fixture_sql_rows(copy, "SELECT snap, pfn_agree_state FROM replay_scores "
				 "WHERE pfn_agree_state < 0.999");
	ck_assert_msg(!worst || !*worst, "free/in-use below 99.9%% at (snapshot|agreement): %s\n%s",
		      worst, out);
	free(worst);
	free(out);
	fixture_rm(copy);
}
END_TEST

/* The seqs of the mm_migrate_pages events of @copy that counted failures, ascending. */
static unsigned long long *failed_migrations(const char *copy, int *nr)
{
	unsigned long long *v = NULL, seq;
	char *out = NULL, *line, *save = NULL;
	int rc = fixture_run_bc(&out, "query '%s' \"SELECT seq FROM events WHERE event = "
				"'migrate:mm_migrate_pages' AND json_extract(fields, '$.failed') "
				"> 0 ORDER BY seq\"", copy);

	ck_assert_msg(rc == 0, "query: exit %d: %s", rc, out);
	*nr = 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%llu", &seq) != 1)
			continue;	/* the header */
		v = realloc(v, (size_t)(*nr + 1) * sizeof(*v));
		ck_assert_ptr_nonnull(v);
		v[(*nr)++] = seq;
	}
	free(out);
	return v;
}

/*
 * After an offline probe whose migrations failed (mm_migrate_pages counted failures
 * while it ran: the pins became visible), the model must not predict success on that
 * block: the kernel failed there, and its pins are still held at the end of the
 * capture. The answer says it assumes the pin.
 */
START_TEST(test_pins_later_fail)
{
	char *copy = pins_copy("pins-later.db"), *probes, *line, *save = NULL;
	unsigned long long *failed, b, e, s, end;
	int nf, n = 0, i;

	if (!copy)
		return;
	failed = failed_migrations(copy, &nf);
	probes = fixture_sql_rows(copy, "SELECT p.start_pfn, p.end_pfn, b.seq, e.seq FROM "
				  "probes p, markers b, markers e WHERE p.kind = 'offline' AND "
				  "p.success = 0 AND b.text LIKE 'bigchunk probe ' || p.id || "
				  "' offline begin %' AND e.text LIKE 'bigchunk probe ' || p.id || "
				  "' offline end %' ORDER BY p.id");
	ck_assert_ptr_nonnull(probes);
	for (line = strtok_r(probes, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *out = NULL;
		int rc;

		ck_assert_int_eq(sscanf(line, "%llu|%llu|%llu|%llu", &s, &end, &b, &e), 4);
		for (i = 0; i < nf && !(failed[i] >= b && failed[i] < e); i++)
			;
		if (i == nf)
			continue;	/* no failed migration: the pins stayed unseen */
		rc = fixture_run_bc(&out, "predict --no-store --size 128M --range %#llx-%#llx '%s'",
				    s, end, copy);
		ck_assert_msg(rc == 1, "predict on %#llx: exit %d, wanted 1 (fails): %s", s, rc, out);
		ck_assert_msg(strstr(out, "#1 fails") && strstr(out, "pinned"),
			      "block %#llx: the kernel failed on pins an earlier probe showed, the "
			      "model predicts otherwise:\n%s", s, out);
		ck_assert_msg(strstr(out, "assumes: "), "%s", out);
		free(out);
		n++;
	}
	ck_assert_msg(n >= 1, "no offline probe of %s failed in migration", PINS_DB);
	free(failed);
	free(probes);
	fixture_rm(copy);
}
END_TEST

/* predict --verify of @copy: real attempts and agreements (asserts the summary line). */
static void verify_counts(const char *copy, int *total, int *agree)
{
	char *out = NULL, *at;
	int rc;

	rc = fixture_run_bc(&out, "predict '%s' --verify", copy);
	ck_assert_msg(rc == 0 || rc == 1, "predict --verify: exit %d: %.3000s", rc, out);
	at = strstr(out, " real attempts, ");
	ck_assert_msg(at, "no summary line: %.3000s", out);
	while (at > out && at[-1] != ' ' && at[-1] != '\n')
		at--;
	ck_assert_int_eq(sscanf(at, "%d real attempts, %d agree", total, agree), 2);
	free(out);
}

/* Store @text as snapshot @snap's longterm_pins in @copy (replacing one there). */
static void put_pins_file(const char *copy, int snap, const char *text)
{
	char *sql;

	ck_assert_int_ge(asprintf(&sql, "DELETE FROM snapshot_files WHERE snap = %d AND name = "
				  "'longterm_pins'; INSERT INTO snapshot_files (snap, name, content) "
				  "VALUES (%d, 'longterm_pins', '%s')", snap, snap, text), 0);
	fixture_sql_exec(copy, sql);
	free(sql);
}

/*
 * A snapshot's longterm_pins (what the snapshot reader lists of io_uring registered
 * buffers) makes those pages pinned until the next snapshot. pins.db's snapshots list
 * the workload's 6 GiB of registered THP: the offlines the kernel failed on those pins
 * (migration failed, or the time limit while its migrations failed) agree, and every
 * attempt but the first failed offline does (it meets an order-0 slab page before the
 * capture has shown whether this build's isolation passes them: the slab rule). The
 * listings removed, the pins are invisible: those offlines are predicted successes.
 * Registered at the start and gone at the snapshot before the probes (empty files
 * there): released, the figure without the listings again. check stays clean.
 */
START_TEST(test_pins_snapshot_listed)
{
	char *copy = pins_copy("pins-listed.db"), *bare, *gone, *text, *out = NULL;
	int total0, agree0, total, agree, rc;

	if (!copy)
		return;
	text = fixture_sql_rows(copy, "SELECT content FROM snapshot_files WHERE snap = 1 AND "
				"name = 'longterm_pins'");
	ck_assert_msg(text && strlen(text) > 1000, "%s: its first snapshot lists no pins "
		      "(recorded before the readers listed io_uring registered buffers?)", PINS_DB);
	verify_counts(copy, &total, &agree);
	ck_assert_msg(agree >= total - 1, "with the pins listed %d/%d agree", agree, total);
	rc = fixture_run_bc(&out, "predict --no-store --size 128M --range 0x260000-0x268000 '%s'",
			    copy);
	ck_assert_msg(rc == 1 && strstr(out, "io_uring registered buffer") &&
		      strstr(out, "pinned until the next snapshot"), "exit %d: %s", rc, out);
	free(out);

	bare = fixture_tmpfile("pins-bare.db");
	fixture_copy(copy, bare);
	fixture_sql_exec(bare, "DELETE FROM snapshot_files WHERE name = 'longterm_pins'");
	verify_counts(bare, &total0, &agree0);
	ck_assert_int_eq(total0, total);
	ck_assert_msg(agree0 < agree, "without the listings %d/%d agree, with them %d: the "
		      "listings showed nothing", agree0, total0, agree);

	/* registered at the start, gone before the probes: released there */
	gone = fixture_tmpfile("pins-gone.db");
	fixture_copy(copy, gone);
	put_pins_file(gone, 2, "");
	put_pins_file(gone, 3, "");
	verify_counts(gone, &total, &agree);
	ck_assert_msg(agree == agree0, "pins released before the probes: %d/%d agree, wanted "
		      "%d as without them", agree, total, agree0);
	free(text);
	fixture_rm(gone);
	fixture_rm(bare);
	fixture_rm(copy);
}
END_TEST

Suite *pins_suite(void)
{
	Suite *s = suite_create("pins");
	TCase *tc = tcase_create("pins");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_pins_check);
	tcase_add_test(tc, test_pins_replay);
	tcase_add_test(tc, test_pins_later_fail);
	tcase_add_test(tc, test_pins_snapshot_listed);
	suite_add_tcase(s, tc);
	return s;
}
