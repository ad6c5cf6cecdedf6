// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk map on bundled captures against golden text (traces/expected/map-*.txt) at
 * widths 80 and 200, without colour (stdout is a pipe here); colour only when asked.
 * BC_GOLDEN_UPDATE=1 rewrites the expected files instead (review their diff).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fixture.h"

static const struct {
	const char *cap, *args, *golden;
} maps[] = {
	{ "default", "--cols 80", "traces/expected/map-default-80.txt" },
	{ "default", "--cols 200", "traces/expected/map-default-200.txt" },
	{ "vm-reserved", "--cols 80", "traces/expected/map-vm-reserved-80.txt" },
	{ "vm-reserved", "--cols 200 --by migratetype",
	  "traces/expected/map-vm-reserved-200-mt.txt" },
	{ "hugetlb", "--cols 80 --at 2s", "traces/expected/map-hugetlb-80-at.txt" },
};

START_TEST(test_map_golden)
{
	char *copy = fixture_tmpfile("map.db"), *got = fixture_tmpfile("map.txt"), *out, *src;
	int rc;

	ck_assert(asprintf(&src, "traces/%s.db", maps[_i].cap) > 0);
	fixture_copy(fixture_path(src), copy);
	rc = fixture_run_bc(&out, "map '%s' %s > '%s'", copy, maps[_i].args, got);
	ck_assert_msg(rc == 0, "map %s %s: exit %d: %s", src, maps[_i].args, rc, out);
	free(out);
	if (getenv("BC_GOLDEN_UPDATE"))
		ck_assert_int_eq(fixture_runf(NULL, "cp '%s' '%s'", got,
					      fixture_path(maps[_i].golden)), 0);
	rc = fixture_runf(&out, "diff -u '%s' '%s'", fixture_path(maps[_i].golden), got);
	ck_assert_msg(rc == 0, "map %s %s drifted from %s (BC_GOLDEN_UPDATE=1 accepts it):\n%.2000s",
		      src, maps[_i].args, maps[_i].golden, out);
	free(out);
	/* no colour on a pipe: grep finds no escape */
	ck_assert_int_eq(fixture_runf(NULL, "grep -q \"$(printf '\\033')\" '%s'", got), 1);
	free(src);
	fixture_rm(copy);
	fixture_rm(got);
}
END_TEST

/* --colour always writes ANSI colours; a pipe gets none by default (above). */
START_TEST(test_map_colour)
{
	char *copy = fixture_tmpfile("map.db"), *out;
	int rc;

	fixture_copy(fixture_path("traces/vm-reserved.db"), copy);
	rc = fixture_run_bc(&out, "map '%s' --colour always", copy);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(strstr(out, "\033[48;5;"), "%.500s", out);
	free(out);
	rc = fixture_run_bc(&out, "map '%s' --cols 20 --by size", copy);
	ck_assert_int_eq(rc, 2);
	free(out);
	fixture_rm(copy);
}
END_TEST

Suite *map_suite(void)
{
	Suite *s = suite_create("map");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_map_golden, 0, sizeof(maps) / sizeof(maps[0]));
	tcase_add_test(tc, test_map_colour);
	suite_add_tcase(s, tc);
	return s;
}
