// SPDX-License-Identifier: GPL-2.0
/*
 * trace/: the one time syntax (durations and times in a capture), on tables of good
 * and bad inputs with the values or errors expected, and on the bundled frag.db.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "trace/tr-time.h"
#include "tests/fixture.h"

static const struct {
	const char *in;
	uint64_t ns;
} good_durations[] = {
	{ "30", 30000000000ull },		/* bare = seconds */
	{ "0", 0 },
	{ "30s", 30000000000ull },
	{ "500ms", 500000000ull },
	{ "3us", 3000 },
	{ "100ns", 100 },
	{ "2m", 120000000000ull },
	{ "1.5m", 90000000000ull },
	{ "2h", 7200000000000ull },
	{ "0.1s", 100000000ull },		/* exact, not a double's rounding */
	{ ".5s", 500000000ull },
	{ "12.5", 12500000000ull },
	{ "1.000000001s", 1000000001ull },
	{ "18446744073709551615ns", UINT64_MAX },
};

static const char *const bad_durations[] = {
	"", "-1", "-5s", "+5s", "1e9", "abc", "10 s", " 10s", "10S", "5x", "s", "ms", ".", "1.",
	"1.5ns",				/* finer than a nanosecond */
	"1.0000000001s",
	"18446744073709551616ns",		/* 2^64 */
	"18446744074s",				/* > 2^64 ns */
	"99999999999999999999999h",
	"1..5s", "1.5.5s", "10min",
};

START_TEST(test_duration_good)
{
	uint64_t ns = 12345;

	ck_assert_msg(!tr_parse_duration(good_durations[_i].in, &ns), "'%s': %s",
		      good_durations[_i].in, bc_errmsg());
	ck_assert_msg(ns == good_durations[_i].ns, "'%s' gave %llu", good_durations[_i].in,
		      (unsigned long long)ns);
}
END_TEST

START_TEST(test_duration_bad)
{
	uint64_t ns = 12345;

	ck_assert_msg(tr_parse_duration(bad_durations[_i], &ns) == -BC_E_INVAL, "'%s' accepted",
		      bad_durations[_i]);
	ck_assert_uint_eq(ns, 12345);		/* untouched on error */
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), bad_durations[_i]));
}
END_TEST

/* frag.db: events from ts FIRST to LAST; its snapshot "frag-end" begins at marker seq
 * MARK_SEQ (see 'bigchunk query traces/frag.db "SELECT * FROM markers"'). */
#define FIRST		22936677993212ull
#define LAST		22941085840158ull
#define MARK_SEQ	207068ull
#define MARK_TS		22939082845144ull

/* The event before @seq is before @t and event @seq is at or after it. */
static void assert_first_at_or_after(struct tdb *db, uint64_t seq, uint64_t t)
{
	struct tdb_cursor *cur;
	struct bc_event ev;

	ck_assert_int_eq(tdb_cursor_open(db, seq ? seq - 1 : 0, seq + 1, &cur), 0);
	if (seq) {
		ck_assert_int_eq(tdb_cursor_next(cur, &ev), 1);
		ck_assert_uint_lt(ev.ts, t);
	}
	ck_assert_int_eq(tdb_cursor_next(cur, &ev), 1);
	ck_assert_uint_eq(ev.seq, seq);
	ck_assert_uint_ge(ev.ts, t);
	tdb_cursor_close(cur);
}

START_TEST(test_time_in_capture)
{
	static const struct {
		const char *in;
		uint64_t ts;
	} ok[] = {
		{ "22936677993212", FIRST },
		{ "0s", FIRST },
		{ "1s", FIRST + 1000000000ull },
		{ "1500ms", FIRST + 1500000000ull },
		{ "4.407846946s", LAST },
		{ "22941085840158", LAST },
	};
	static const struct {
		const char *in;
		int err;
	} bad[] = {
		{ "22936677993211", -BC_E_INVAL },	/* 1 ns before the first event */
		{ "0", -BC_E_INVAL },			/* trace clock 0: long before */
		{ "22941085840159", -BC_E_INVAL },	/* 1 ns after the last event */
		{ "4.407846947s", -BC_E_INVAL },
		{ "1h", -BC_E_INVAL },
		{ "-1", -BC_E_INVAL },
		{ "12abc", -BC_E_INVAL },
		{ "0x10", -BC_E_INVAL },
		{ "", -BC_E_INVAL },
		{ "99999999999999999999", -BC_E_INVAL },
		{ "marker:no such marker", -BC_E_NOENT },
	};
	uint64_t seq, ts;
	struct tdb *db;
	size_t i;

	ck_assert_int_eq(tdb_open(fixture_path("traces/frag.db"), TDB_READONLY, &db), 0);
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(!tr_parse_time(db, ok[i].in, &seq, &ts), "'%s': %s", ok[i].in,
			      bc_errmsg());
		ck_assert_msg(ts == ok[i].ts, "'%s': ts %llu", ok[i].in, (unsigned long long)ts);
		assert_first_at_or_after(db, seq, ts);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(tr_parse_time(db, bad[i].in, &seq, &ts) == bad[i].err,
			      "'%s' not refused as expected", bad[i].in);
	/* A marker is the marker's own seq and ts, not "the first event after". */
	ck_assert_int_eq(tr_parse_time(db, "marker:bigchunk snapshot frag-end", &seq, &ts), 0);
	ck_assert_uint_eq(seq, MARK_SEQ);
	ck_assert_uint_eq(ts, MARK_TS);
	tdb_close(db);
}
END_TEST

Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_duration_good, 0,
			    sizeof(good_durations) / sizeof(good_durations[0]));
	tcase_add_loop_test(tc, test_duration_bad, 0,
			    sizeof(bad_durations) / sizeof(bad_durations[0]));
	tcase_add_test(tc, test_time_in_capture);
	suite_add_tcase(s, tc);
	return s;
}
