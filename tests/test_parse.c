// SPDX-License-Identifier: GPL-2.0
/*
 * The shared option syntaxes: sizes and counts refuse signs, overflow and junk, and no
 * short option means two things in two commands.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/grow.h"
#include "common/parse.h"
#include "tests/fixture.h"

static const struct {
	const char *text;
	int ret;
	uint64_t bytes;
} sizes[] = {
	{ "4096", 0, 4096 },
	{ "64M", 0, 64ull << 20 },
	{ "64MiB", 0, 64ull << 20 },
	{ "1g", 0, 1ull << 30 },
	{ "2GB", 0, 2ull << 30 },
	{ "0x1000", 0, 4096 },
	{ "16383T", 0, 16383ull << 40 },
	{ "16777215T", 0, 16777215ull << 40 },
	{ "16777216T", -BC_E_INVAL, 0 },		/* 2^64: one past */
	{ "18446744073709551615", 0, UINT64_MAX },
	{ "18446744073709551616", -BC_E_INVAL, 0 },
	{ "-1G", -BC_E_INVAL, 0 },
	{ "+1G", -BC_E_INVAL, 0 },
	{ " 1G", -BC_E_INVAL, 0 },
	{ "", -BC_E_INVAL, 0 },
	{ "G", -BC_E_INVAL, 0 },
	{ "1X", -BC_E_INVAL, 0 },
	{ "1Gx", -BC_E_INVAL, 0 },
	{ "1iB", -BC_E_INVAL, 0 },
};

START_TEST(test_parse_size)
{
	uint64_t v = 12345;
	int ret = bc_parse_size(sizes[_i].text, &v);

	ck_assert_msg(ret == sizes[_i].ret, "'%s': %d, want %d", sizes[_i].text, ret, sizes[_i].ret);
	if (!ret)
		ck_assert_uint_eq(v, sizes[_i].bytes);
	else
		ck_assert_msg(strstr(bc_errmsg(), sizes[_i].text), "message does not quote the input: %s",
			      bc_errmsg());
}
END_TEST

START_TEST(test_parse_count)
{
	uint64_t v;

	ck_assert_int_eq(bc_parse_count("8", 1, 65536, &v), 0);
	ck_assert_uint_eq(v, 8);
	ck_assert_int_eq(bc_parse_count("65536", 1, 65536, &v), 0);
	ck_assert_int_eq(bc_parse_count("65537", 1, 65536, &v), -BC_E_INVAL);
	ck_assert_int_eq(bc_parse_count("0", 1, 65536, &v), -BC_E_INVAL);
	ck_assert_int_eq(bc_parse_count("-5", 1, 65536, &v), -BC_E_INVAL);
	ck_assert_ptr_nonnull(strstr(bc_errmsg(), "'-5'"));
	ck_assert_int_eq(bc_parse_count("5x", 1, 65536, &v), -BC_E_INVAL);
	ck_assert_int_eq(bc_parse_count("0x10", 1, 65536, &v), -BC_E_INVAL);
	ck_assert_int_eq(bc_parse_count("99999999999999999999", 1, UINT64_MAX, &v), -BC_E_INVAL);
	ck_assert_int_eq(bc_parse_count(NULL, 1, 2, &v), -BC_E_INVAL);
}
END_TEST

/*
 * Every "  -X, --long" line of every command's --help: one short letter stands for one
 * long option across all commands (-f is --force, -d --duration, -o --output ...).
 */
START_TEST(test_short_options_one_meaning)
{
	static const char *const commands[] = {
		"check", "import", "info", "predict", "query", "record", "replay", "snapshot", NULL
	};
	char longname[128][32] = { { 0 } }, owner[128][16] = { { 0 } };
	int i;

	for (i = 0; commands[i]; i++) {
		char *cmd, *out, *line;

		ck_assert(asprintf(&cmd, "%s %s --help", fixture_bigchunk(), commands[i]) > 0);
		ck_assert_int_eq(fixture_run(cmd, &out), 0);
		free(cmd);
		for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
			char s, l[32];

			if (sscanf(line, "  -%c, --%31[a-z-]", &s, l) != 2 || (unsigned char)s >= 128)
				continue;
			if (!longname[(int)s][0]) {
				snprintf(longname[(int)s], sizeof(longname[0]), "%s", l);
				snprintf(owner[(int)s], sizeof(owner[0]), "%s", commands[i]);
			}
			ck_assert_msg(!strcmp(longname[(int)s], l), "-%c is --%s in %s but --%s in %s",
				      s, longname[(int)s], owner[(int)s], l, commands[i]);
		}
		free(out);
	}
	/* The letters are read at all: record has -o and -d. */
	ck_assert_str_eq(longname['o'], "output");
	ck_assert_str_eq(longname['d'], "duration");
}
END_TEST

/* bc_grow(): first capacity, doubling when full, nothing while there is room. */
START_TEST(test_grow)
{
	int *v = NULL;
	size_t cap = 0, i;

	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(bc_grow(&v, i, &cap, sizeof(*v), 16, "test"), 0);
		ck_assert_uint_eq(cap, i < 16 ? 16 : i < 32 ? 32 : i < 64 ? 64 : 128);
		v[i] = (int)i;
	}
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(v[i], (int)i);
	/* an element past a doubling: the capacity reaches it */
	ck_assert_int_eq(bc_grow(&v, 300, &cap, sizeof(*v), 16, "test"), 0);
	ck_assert_uint_gt(cap, 300);
	v[300] = 1;
	free(v);
}
END_TEST

Suite *parse_suite(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_parse_size, 0, sizeof(sizes) / sizeof(sizes[0]));
	tcase_add_test(tc, test_parse_count);
	tcase_add_test(tc, test_grow);
	tcase_add_test(tc, test_short_options_one_meaning);
	suite_add_tcase(s, tc);
	return s;
}
