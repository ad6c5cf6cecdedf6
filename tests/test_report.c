// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk report in a real browser: headless Chromium opens each bundled capture's
 * report from file:// with "?selftest", and the page writes what it drew into
 * <pre id="selftest"> (report/assets/report.js), read back with --dump-dom. Asserted:
 * no console errors; as many grid cells as the capture has pageblocks in its zones
 * (counted here from `bigchunk info`); hovering the page that stops a 1 GiB row shows
 * that pfn and kind, as `bigchunk predict --range` of the row names them, and a click
 * zooms into its pageblock's 512 pages; one timeline
 * point per prediction stored in the capture (predict --every stores some first in two); the
 * file is 0600 and at most 3 MB. A screenshot of each (hover shown) lands in
 * build/report-NAME.png.
 * Skips with the reason where Chromium is absent.
 */
#include <check.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fixture.h"

static glob_t caps;

/* The Chromium binary (env BC_CHROMIUM, "none" for none; else chromium on PATH), or NULL. */
static const char *chromium(void)
{
	static char path[256];
	char *out = NULL;

	if (getenv("BC_CHROMIUM"))
		return strcmp(getenv("BC_CHROMIUM"), "none") ? getenv("BC_CHROMIUM") : NULL;
	if (fixture_runf(&out, "command -v chromium || command -v chromium-browser") == 0 &&
	    sscanf(out, "%255s", path) == 1) {
		free(out);
		return path;
	}
	free(out);
	return NULL;
}

/* Pageblocks (512 pages) that meet a zone, from the "pfn A-B" of info's zone lines. */
static uint64_t zone_pageblocks(const char *copy)
{
	uint64_t a, b, n = 0, last_end = 0;
	char *out, *p;

	ck_assert_int_eq(fixture_run_bc(&out, "info '%s'", copy), 0);
	for (p = out; (p = strstr(p, " pfn 0x")); p++) {
		ck_assert_int_eq(sscanf(p, " pfn %" SCNx64 "-%" SCNx64, &a, &b), 2);
		a /= 512;
		b = (b + 511) / 512;
		if (a < last_end)	/* zones sharing a pageblock count it once */
			a = last_end;
		n += b > a ? b - a : 0;
		last_end = b;
	}
	free(out);
	return n;
}

/* The number after "KEY": in @s, -1 when absent. */
static long long num_of(const char *s, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(s, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* The string after "KEY": in @s up to its closing quote (malloc'ed), or NULL. */
static char *str_of(const char *s, const char *key)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(s, pat);
	if (!p)
		return NULL;
	p = strchr(p + strlen(pat), '"');
	if (!p)
		return NULL;
	for (e = p + 1; *e && !(*e == '"' && e[-1] != '\\'); e++)
		;
	return strndup(p + 1, e - p - 1);
}

/* The browser's log (stderr, in @out) line of an uncaught error, or NULL. */
static const char *console_error(const char *out)
{
	const char *p, *nl;

	for (p = out; (p = strstr(p, ":CONSOLE")); p++) {
		nl = strchr(p, '\n');
		if (strstr(p, "Uncaught") && (!nl || strstr(p, "Uncaught") < nl))
			return p;
	}
	return NULL;
}

/* The row's blocker as predict names it: "blocker pfn 0x...: KIND (". */
static char *predicted_blocker(const char *copy, const char *row)
{
	uint64_t start = strtoull(row, NULL, 16), pfn;
	char *out, *b, *kind, *want;

	ck_assert_int_eq(fixture_run_bc(&out, "predict '%s' --size 1G --no-store --json --range "
					"%#" PRIx64 "-%#" PRIx64, copy, start, start + 262144), 1);
	b = strstr(out, "\"blocker\":");
	ck_assert_msg(b, "%.1000s", out);
	pfn = (uint64_t)num_of(b, "pfn");
	kind = str_of(b, "kind");
	ck_assert(asprintf(&want, "blocker pfn %#" PRIx64 ": %s (", pfn, kind) > 0);
	free(kind);
	free(out);
	return want;
}

START_TEST(test_report_browser)
{
	const char *db = caps.gl_pathv[_i], *chrome = chromium();
	char *copy = fixture_tmpfile("report.db"), *html = fixture_tmpfile("report.html");
	char *name = strdup(strrchr(db, '/') + 1), *out, *res, *e, *want, *text;
	struct stat st;
	long long preds;

	if (!chrome) {
		fixture_skip("report browser test: Chromium is not installed (apt-get install "
			     "chromium, or BC_CHROMIUM=PATH)");
		return;
	}
	*strrchr(name, '.') = 0;
	fixture_copy(db, copy);
	/* stored predictions for the timeline: on two captures (each costs a replay) */
	if (!strcmp(name, "default") || !strcmp(name, "vm-movable"))
		fixture_run_bc(NULL, "predict '%s' --size 1G --every 2s >/dev/null 2>&1", copy);
	preds = fixture_sql_count(copy, "SELECT count(*) FROM predictions p JOIN prediction_runs r "
				  "ON r.id = p.run WHERE r.mode <> 'verify'");
	ck_assert_int_eq(fixture_run_bc(&out, "report '%s' -o '%s'", copy, html), 0);
	free(out);
	ck_assert_int_eq(stat(html, &st), 0);
	ck_assert_msg((st.st_mode & 0777) == 0600, "%s: mode %o", db, st.st_mode & 0777);
	ck_assert_msg(st.st_size <= 3000000, "%s: report of %lld bytes", db, (long long)st.st_size);

	/* one start of the browser: the DOM after the self-test, and its screenshot */
	ck_assert_int_eq(fixture_runf(&out, "mkdir -p '%s/build' && timeout 120 '%s' --headless "
				      "--no-sandbox --disable-gpu --hide-scrollbars "
				      "--user-data-dir='%s.profile' --enable-logging=stderr --v=0 "
				      "--virtual-time-budget=3000 --window-size=1400,1400 "
				      "--screenshot='%s/build/report-%s.png' "
				      "--dump-dom 'file://%s?selftest'", fixture_srcdir(), chrome, html,
				      fixture_srcdir(), name, html), 0);
	res = strstr(out, "<pre id=\"selftest\">");
	ck_assert_msg(res, "%s: no self-test results in the page: %.800s", db, out);
	res += strlen("<pre id=\"selftest\">");
	e = strstr(res, "</pre>");
	ck_assert(e);
	*e = 0;
	ck_assert_msg(strstr(res, "\"errors\":[]"), "%s: errors in the page: %s", db, res);
	ck_assert_msg(!console_error(out), "%s: console error: %.300s", db, console_error(out));
	ck_assert_int_eq(num_of(res, "cells"), (long long)zone_pageblocks(copy));
	ck_assert_int_eq(num_of(res, "timeline_points"), preds);
	ck_assert_int_eq(num_of(res, "frames"), num_of(res, "slider"));
	text = str_of(res, "hover_row");
	if (text) {
		want = predicted_blocker(copy, text);
		free(text);
		text = str_of(res, "hover_text");
		ck_assert_msg(text && strstr(text, want), "%s: hover shows '%s', wanted '%s'", db,
			      text, want);
		/* a click zooms into that pageblock: a cell per page */
		ck_assert_int_eq(num_of(res, "zoom_pages"), 512);
		free(want);
	} else {
		/* the default capture has rows that fail on a page */
		ck_assert_msg(strcmp(name, "default"), "default: no blocker to hover: %s", res);
	}
	free(text);
	free(out);
	fixture_runf(NULL, "rm -rf '%s.profile'", html);
	fixture_rm(html);
	fixture_rm(copy);
	free(name);
}
END_TEST

Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("core");
	char *pat;

	if (asprintf(&pat, "%s/traces/*.db", fixture_srcdir()) < 0 || glob(pat, 0, NULL, &caps))
		caps.gl_pathc = 0;
	free(pat);
	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, test_report_browser, 0, (int)caps.gl_pathc);
	suite_add_tcase(s, tc);
	return s;
}
