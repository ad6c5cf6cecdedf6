// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk map on bundled captures against golden text (traces/expected/map-*.txt) at
 * widths 80 and 200, without colour (stdout is a pipe here); colour only when asked.
 * The report's page counts and page runs (pbm_fill_all()) against pbm_counts() and
 * pbm_pages() on replayed captures.
 * BC_GOLDEN_UPDATE=1 rewrites the expected files instead (review their diff).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/tdb.h"
#include "replay/replay.h"
#include "report/pbmap.h"
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

/* The next varint of @b at *@i (pbm_buf_varint()'s LEB128). */
static uint64_t varint(const struct pbm_buf *b, size_t *i)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t c;

	do {
		ck_assert_uint_lt(*i, b->len);
		c = b->p[(*i)++];
		v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	return v;
}

static const char *const enc_caps[] = { "default", "hugetlb", "offline", "vm-cma" };

/*
 * pbm_fill_all()'s encodings (what the report's hover and zoom decode) on a replayed
 * capture's end state, decoded here: every pageblock's counts equal pbm_counts() of
 * it, every page's class pbm_pages() of it (the encoder passes over uniform pageblocks
 * and free blocks whole; the page walk does not), and the cells pbm_fill()'s.
 */
START_TEST(test_pbm_encodings)
{
	struct rp_opts ro = { .until_seq = UINT64_MAX };
	struct pbm_buf counts = { 0 }, runs = { 0 };
	struct pbm_extra x = { .counts = &counts, .runs = &runs };
	struct rp_hooks hooks = { 0 };
	struct pbm_geometry g;
	struct replay *rp;
	struct tdb *db;
	const struct model *m;
	uint8_t *cells, *cells2, *pages;
	uint16_t want[PBM_NR_COUNT];
	uint64_t pb = 0, rep = 0, tuple[PBM_NR_COUNT], run = 0, cls = 0, mixed = 0;
	size_t ci = 0, ri = 0;
	unsigned int k, p;
	char *path;

	ck_assert(asprintf(&path, "traces/%s.db", enc_caps[_i]) > 0);
	ck_assert_int_eq(tdb_open(fixture_path(path), TDB_READONLY, &db), 0);
	ck_assert_int_eq(rp_create(db, &ro, &rp), 0);
	ck_assert_int_eq(rp_run(rp, &hooks), 0);
	m = rp_model(rp);
	ck_assert_int_eq(pbm_geometry(m, &g), 0);
	cells = malloc(g.nr_pb);
	cells2 = malloc(g.nr_pb);
	pages = malloc(g.pb_pages);
	ck_assert_int_eq(pbm_fill_all(m, &g, cells, &x), 0);
	ck_assert_int_eq(pbm_fill(m, &g, cells2), 0);
	ck_assert_mem_eq(cells, cells2, g.nr_pb);
	for (pb = 0; pb < g.nr_pb; pb++) {
		uint64_t pfn = g.base_pfn + pb * g.pb_pages;

		if (!rep) {
			rep = varint(&counts, &ci);
			ck_assert_uint_gt(rep, 0);
			for (k = 0; k < PBM_NR_COUNT; k++)
				tuple[k] = varint(&counts, &ci);
		}
		rep--;
		ck_assert_int_eq(pbm_counts(m, pfn, g.pb_pages, want), 0);
		for (k = 0; k < PBM_NR_COUNT; k++)
			ck_assert_msg(tuple[k] == want[k], "%s: pageblock 0x%llx: %s %llu encoded, "
				      "%u counted", path, (unsigned long long)pfn, pbm_count_name(k),
				      (unsigned long long)tuple[k], want[k]);
		ck_assert_int_eq(pbm_pages(m, pfn, g.pb_pages, pages), 0);
		for (p = 0; p < g.pb_pages; p++) {
			if (!run) {
				uint64_t v = varint(&runs, &ri);

				run = v >> 4;
				cls = v & 15;
				ck_assert_uint_gt(run, 0);
			}
			run--;
			ck_assert_msg(cls == pages[p], "%s: pfn 0x%llx: class %s encoded, %s paged",
				      path, (unsigned long long)(pfn + p), pbm_content_name(cls),
				      pbm_content_name(pages[p]));
			mixed += p && pages[p] != pages[p - 1];
		}
	}
	ck_assert_uint_eq(rep, 0);
	ck_assert_uint_eq(run, 0);
	ck_assert_uint_eq(ci, counts.len);
	ck_assert_uint_eq(ri, runs.len);
	ck_assert_uint_gt(mixed, 0);	/* pageblocks of more than one class were seen */
	pbm_buf_free(&counts);
	pbm_buf_free(&runs);
	free(cells);
	free(cells2);
	free(pages);
	free(path);
	rp_destroy(rp);
	tdb_close(db);
}
END_TEST

Suite *map_suite(void)
{
	Suite *s = suite_create("map");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_map_golden, 0, sizeof(maps) / sizeof(maps[0]));
	tcase_add_test(tc, test_map_colour);
	tcase_add_loop_test(tc, test_pbm_encodings, 0, sizeof(enc_caps) / sizeof(enc_caps[0]));
	suite_add_tcase(s, tc);
	return s;
}
