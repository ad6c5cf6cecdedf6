// SPDX-License-Identifier: GPL-2.0
/*
 * Regressions found by the fuzz targets of tests/fuzz/ (`make fuzz`): each test holds
 * the minimal input that crashed, inlined, and asserts the clean error instead. A
 * crash makes the test fail (Check runs it in a child; `make asan` sees double frees and
 * reads past the end that a plain build may survive).
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/snapshot.h"
#include "checkers/chk.h"
#include "common/err.h"
#include "db/tdb.h"
#include "model/model.h"
#include "tests/fixture.h"

/*
 * fuzz-snap: a zone without pages (its pcp array freed while compacting) followed by a
 * populated zone missing its start_pfn line: the error return left the freed array in
 * the table and snap_tables_release() freed it again.
 */
START_TEST(test_zoneinfo_error_after_empty_zone)
{
	static const char text[] =
		"Node 0, zone DMA\n  pagesets\n    cpu: 0\n"
		"Node 0, zone Normal\n  present 5\n";
	struct snap_tables t = { 0 };

	ck_assert_int_eq(snap_parse_zoneinfo(text, &t), -BC_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "zone Normal: no start_pfn"));
	snap_tables_release(&t);
	ck_assert_int_eq(t.nr_zones, 0);
}
END_TEST

/* A copy of the bundled idle.db with @sql applied to it; returns the copy's path. */
static const char *damaged_copy(const char *name, const char *sql)
{
	char *path = fixture_tmpfile(name), cmd[4096];
	sqlite3 *sq;

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", fixture_path("traces/idle.db"), path);
	ck_assert_int_eq(fixture_run(cmd, NULL), 0);
	ck_assert_int_eq(sqlite3_open(path, &sq), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(sq, sql, NULL, NULL, NULL) == SQLITE_OK, "%s",
		      sqlite3_errmsg(sq));
	sqlite3_close(sq);
	return path;
}

/* event_fields as a damaged file can hold it: without its (type, idx) key. */
#define UNKEYED_FIELDS							\
	"CREATE TABLE f2 AS SELECT * FROM event_fields; DROP TABLE event_fields; "	\
	"ALTER TABLE f2 RENAME TO event_fields; "

/*
 * fuzz-db: a damaged capture whose event_fields lacks one field of a type (the count
 * still matches, through a duplicated index) or has a NULL name: tdb_open() read the
 * NULL name (strcmp(NULL) in the codec's pfn-field lookup). Now a format error.
 */
START_TEST(test_db_field_hole)
{
	static const char *const sql[] = {
		UNKEYED_FIELDS "UPDATE event_fields SET idx = 0 WHERE idx = 1 AND "
		"type = (SELECT min(type) FROM event_fields WHERE idx = 1);",
		UNKEYED_FIELDS "UPDATE event_fields SET name = NULL WHERE idx = 1 AND "
		"type = (SELECT min(type) FROM event_fields WHERE idx = 1);",
	};
	static const char *const want[] = { "has no field 1", "has no name" };
	struct tdb *db = NULL;
	size_t i;

	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		const char *path = damaged_copy(i ? "fields-null.db" : "fields-hole.db", sql[i]);

		ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), -BC_E_FORMAT);
		ck_assert_msg(strstr(bc_errmsg(), want[i]), "%s", bc_errmsg());
		fixture_rm(path);
	}
}
END_TEST

/*
 * fuzz-db: a test_pages_isolated event whose end_pfn is below its start_pfn (a damaged
 * chunk) is an attempt that succeeded (fin >= end); check marked its range held, and
 * end - start wrapped to 2^64 pfns: check ran for ever. Now the range holds nothing.
 */
START_TEST(test_check_inverted_isolated_range)
{
	static const char *const f[] = { "start_pfn", "end_pfn", "fin_pfn" };
	static const int sizes[] = { 8, 8, 8 };
	static const bool sgn[3];
	struct bc_event ev = { .ts = 1000, .pid = 1, .nfields = 3,
			       .field = { 0x2000, 0x1000, 0x2000 } };
	const char *path = fixture_tmpfile("inverted.db");
	struct chk_opts o = { .trace_only = true };
	struct chk_summary sum;
	struct chk_ctx *c;
	struct tdb *db;
	int id;

	ck_assert_int_eq(tdb_create(path, true, &db), 0);
	id = tdb_add_event_type(db, "page_isolation", "test_pages_isolated", false, NULL, 3, f,
				sizes, sgn);
	ck_assert_int_gt(id, 0);
	ev.type = (uint16_t)id;
	ck_assert_int_eq(tdb_append_event(db, &ev), 0);
	ck_assert_int_eq(tdb_finish(db), 0);
	ck_assert_int_eq(tdb_close(db), 0);

	ck_assert_int_eq(tdb_open(path, TDB_READONLY, &db), 0);
	ck_assert_int_eq(chk_create(&o, &c), 0);
	ck_assert_msg(chk_run_capture(c, db) == 0, "%s", bc_errmsg());
	chk_get_summary(c, &sum);
	ck_assert_uint_eq(sum.events, 1);
	ck_assert_uint_eq(sum.attempts, 1);
	chk_destroy(c);
	tdb_close(db);
	fixture_rm(path);
}
END_TEST

/*
 * fuzz-db: a damaged pagetypeinfo ("Page block order:per block:  512" reads as order
 * 0) gave a model whose pageblocks are smaller than the pcp orders; freeing an order-1
 * page to a pcp list then aborted in model_pcp_add(). The layout is refused now.
 */
START_TEST(test_model_tiny_pageblock)
{
	struct model_layout l = {
		.nr_zones = 1,
		.zones = { { .name = "Normal", .start_pfn = 0x1000, .spanned = 0x1000,
			     .present = 0x1000, .managed = 0x1000 } },
		.pageblock_order = 0, .max_page_order = 10, .nr_cpus = 2,
	};
	struct model_profile p;
	struct model *m;

	model_profile_from_release("6.18.44", l.pageblock_order, &p);
	m = model_create(&l, &p);
	if (m)		/* the old behaviour: this aborts */
		model_page_free(m, 0x1000, 1, 0);
	ck_assert_ptr_null(m);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "pageblock order 0"));
}
END_TEST

Suite *fuzz_regress_suite(void)
{
	Suite *s = suite_create("fuzz_regress");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_zoneinfo_error_after_empty_zone);
	tcase_add_test(tc, test_db_field_hole);
	tcase_add_test(tc, test_check_inverted_isolated_range);
	tcase_add_test(tc, test_model_tiny_pageblock);
	suite_add_tcase(s, tc);
	return s;
}
