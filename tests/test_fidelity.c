// SPDX-License-Identifier: GPL-2.0
/*
 * The fidelity gate: every bundled capture (every .db file in traces/) meets the
 * targets of the model's agreement with the kernel, scored as replay, check and
 * predict --verify store them:
 *   at every scored snapshot  free/in-use >= 99.9%, kind >= 99%, buddyinfo per order
 *                             (|model - kernel| x 2^order over the zone's free pages,
 *                             buddyinfo_order_err) <= 1%
 *   check                     zero violations (a healthy kernel)
 *   predict --verify          >= 99% of the real attempts agree, where there are any;
 *                             offline failures with a culprit pfn: the same pfn
 *                             predicted in >= 90% of them
 * A capture that misses a target for a documented reason is listed in exceptions[]
 * with the reason; the exception only lets through disagreements that verify itself
 * classes as hinging on state the trace cannot show (depends_on_pins): an unclassed
 * one still fails. A new capture is gated as soon as it is bundled.
 *
 * Each capture is scored on a copy: these commands store their results in it.
 */
#include <check.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fixture.h"

/* A target a capture misses for a documented reason. */
static const struct {
	const char *db;		/* file name in traces/ */
	const char *target;	/* "verify" or "culprit" */
} exceptions[] = {
	/*
	 * The snapshots list the pins (longterm_pins), so the offlines failing on them
	 * agree; the first failed offline meets an order-0 slab page before any failure
	 * has shown whether this kernel build's isolation passes them (6.18.44 builds
	 * disagree; the release's default says it does, this one stops): verify classes
	 * it as the slab rule's, invisible until then, and its culprit differs.
	 */
	{ "pins.db", "verify" },
	{ "pins.db", "culprit" },
	/*
	 * 6.12 in QEMU: the kernel's culprit 0x118000 reads flags 0 in kpageflags. Before
	 * that probe no event or drain tells this page in use by the kernel from a page on
	 * a pcp list, so the model fails the block 38 pfns later, at the first slab page
	 * (verify classes it as a possible invisible refcount); it learns the page only
	 * from the probe's own full drain.
	 */
	{ "vm-reserved.db", "verify" },
	{ "vm-reserved.db", "culprit" },
};

static bool excepted(const char *db, const char *target)
{
	unsigned int i;

	for (i = 0; i < sizeof(exceptions) / sizeof(exceptions[0]); i++)
		if (!strcmp(exceptions[i].db, db) && !strcmp(exceptions[i].target, target))
			return true;
	return false;
}

/* Runs `bigchunk ARGS COPY`; an exit status above @max_rc is a failure noted in @f. */
static bool run(FILE *f, const char *db, const char *args, const char *copy, int max_rc)
{
	char *out = NULL;
	int rc = fixture_run_bc(&out, "%s '%s'", args, copy);

	if (rc < 0 || rc > max_rc)
		fprintf(f, "%s: %s: exit %d: %.1500s\n", db, args, rc, out);
	free(out);
	return rc >= 0 && rc <= max_rc;
}

/*
 * Notes in @f a share @good of @n below @pct percent, for @target; where @db has an
 * exception for it (and not @strict), @classed (agreeing or classed as invisible
 * state) is held to it.
 */
static void share(FILE *f, const char *db, const char *target, long long n, long long good,
		  long long classed, int pct, bool strict)
{
	bool exc = !strict && excepted(db, target);
	long long k = exc ? classed : good;

	if (n > 0 && k * 100 < pct * n)
		fprintf(f, "%s: %s %lld of %lld (%s), below %d%%\n", db, target, k, n,
			exc ? "agreeing or classed as invisible state" : "agreeing", pct);
}

#define VERIFY_LAST	"FROM verify_results WHERE run = (SELECT max(run) FROM verify_results)"

/*
 * Scores the bundled capture @db (a file name in traces/); misses go to @f. @strict:
 * no exception applies.
 */
static void score(FILE *f, const char *db, bool strict)
{
	char *copy = fixture_tmpfile("fidelity.db"), rel[256], *rows;
	long long n, good, classed;

	snprintf(rel, sizeof(rel), "traces/%s", db);
	fixture_copy(fixture_path(rel), copy);
	if (run(f, db, "replay", copy, 0)) {
		if (fixture_sql_count(copy, "SELECT count(*) FROM replay_scores") < 1)
			fprintf(f, "%s: no scored snapshot\n", db);
		rows = fixture_sql_rows(copy, "SELECT snap, pfn_agree_state, pfn_agree_kind, "
					"buddyinfo_order_err FROM replay_scores WHERE "
					"pfn_agree_state < 0.999 OR coalesce(pfn_agree_kind, 1) "
					"< 0.99 OR coalesce(buddyinfo_order_err, 1) > 0.01");
		if (*rows)
			fprintf(f, "%s: snapshots missing the replay targets (snap|free/in-use|"
				"kind|buddyinfo):\n%s", db, rows);
		free(rows);
	}
	if (run(f, db, "check --store", copy, 1)) {
		n = fixture_sql_count(copy, "SELECT count(*) FROM check_violations");
		if (n)
			fprintf(f, "%s: check: %lld violations\n", db, n);
	}
	if (run(f, db, "predict --verify", copy, 1)) {
		n = fixture_sql_count(copy, "SELECT count(*) " VERIFY_LAST);
		good = fixture_sql_count(copy, "SELECT count(*) " VERIFY_LAST " AND agree");
		classed = fixture_sql_count(copy, "SELECT count(*) " VERIFY_LAST
					    " AND (agree OR depends_on_pins)");
		share(f, db, "verify", n, good, classed, 99, strict);
#define CULPRITS VERIFY_LAST " AND kind = 'offline' AND NOT kernel_success AND kernel_pfn " \
		"IS NOT NULL"
		n = fixture_sql_count(copy, "SELECT count(*) " CULPRITS);
		good = fixture_sql_count(copy, "SELECT count(*) " CULPRITS " AND NOT "
					 "predicted_success AND (predicted_pfn = kernel_pfn OR agree)");
		classed = fixture_sql_count(copy, "SELECT count(*) " CULPRITS " AND (NOT "
					    "predicted_success AND (predicted_pfn = kernel_pfn OR "
					    "agree) OR depends_on_pins)");
		share(f, db, "culprit", n, good, classed, 90, strict);
#undef CULPRITS
	}
	fixture_rm(copy);
}

/* Every .db file in traces/ meets every target, or misses only what exceptions[] explains. */
START_TEST(test_fidelity_gate)
{
	char *fails = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&fails, &len);
	glob_t g;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(glob(fixture_path("traces/*.db"), 0, NULL, &g), 0);
	ck_assert_uint_ge(g.gl_pathc, 9);
	for (i = 0; i < g.gl_pathc; i++)
		score(f, strrchr(g.gl_pathv[i], '/') + 1, false);
	globfree(&g);
	fclose(f);
	ck_assert_msg(!len, "bundled captures missing the fidelity targets:\n%s", fails);
	free(fails);
}
END_TEST

/*
 * traces/offline.db, memory-block offlines under held page tables and slab: seven fail
 * on kernel memory at isolation with the culprit pfn the kernel printed, five succeed.
 * The targets hold there with no exception: every attempt agrees (>= 99%), the
 * culprit pfn exact in >= 90% of the failures.
 */
START_TEST(test_fidelity_offline)
{
	char *copy = fixture_tmpfile("offline.db"), *fails = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&fails, &len);

	ck_assert_ptr_nonnull(f);
	fixture_copy(fixture_path("traces/offline.db"), copy);
	ck_assert_int_eq(fixture_sql_count(copy, "SELECT count(*) FROM probes WHERE kind = "
					   "'offline' AND NOT success AND culprit_pfn IS NOT NULL"), 7);
	ck_assert_int_eq(fixture_sql_count(copy, "SELECT count(*) FROM probes WHERE kind = "
					   "'offline' AND success"), 5);
	fixture_rm(copy);
	score(f, "offline.db", true);
	fclose(f);
	ck_assert_msg(!len, "%s", fails);
	free(fails);
}
END_TEST

Suite *fidelity_suite(void)
{
	Suite *s = suite_create("fidelity");
	TCase *tc = tcase_create("fidelity");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_fidelity_gate);
	tcase_add_test(tc, test_fidelity_offline);
	suite_add_tcase(s, tc);
	return s;
}
