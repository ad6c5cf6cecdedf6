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
 * file is 0600 and at most 3 MB. A pageblock that stops no row: the hover shows the page
 * counts `bigchunk map --pageblock` gives for it, and its zoom shows 512 pages of the
 * classes map --pageblock draws, a known pfn among them. The 2 MiB series has a point per
 * frame, and on vm-reserved its last value is what `predict --size 2M --count N` gets in
 * a row, and report --no-2m writes the same file but the 2 MiB counts (the count leaves
 * the replay as it was). The layouts of a stored compare run (run here on vm-reserved) appear as columns
 * with their served counts; elsewhere no compare table. A screenshot of each (hover shown)
 * lands in build/report-NAME.png.
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

/* The count NAME of the tip's "pages: free 3, unmovable 509 (click to zoom)": 0 when
 * not named. */
static int tip_count(const char *tip, const char *name)
{
	const char *p = tip + strlen("pages:");
	char n[32];
	unsigned int v;

	while (sscanf(p, " %31[a-z] %u", n, &v) == 2) {
		if (!strcmp(n, name))
			return (int)v;
		p += strcspn(p, ",");
		if (!*p++)
			break;
	}
	return 0;
}

/*
 * The hover of a pageblock (@text, the tip) shows the counts `map --pageblock` prints
 * for it ("pages: free 3, movable 0, ..., hole 0"): every non-zero count as "NAME N"
 * on the tip's "pages:" line, no zero one. And the zoom's pages (@chars, one map
 * character per page) are map's characters, page for page: @known_pfn is @known_class.
 */
static void check_pageblock(const char *copy, const char *pfn, const char *text,
			    const char *chars, const char *known_pfn, const char *known_class)
{
	char *out, *line, *tip, *p, name[32], want[48], legend_ch = 0, drawn[4096] = "";
	uint64_t first = strtoull(pfn, NULL, 16), known = strtoull(known_pfn, NULL, 16), at;
	unsigned int v, n = 0;
	size_t len = 0;

	ck_assert_int_eq(fixture_run_bc(&out, "map '%s' --pageblock %s", copy, pfn), 0);
	line = strstr(out, "\npages:");
	tip = strstr(text, "\npages: ");
	ck_assert_msg(line && tip, "no counts: map '%.300s', tip '%s'", out, text);
	tip = strndup(tip + 1, strcspn(tip + 1, "\n"));
	for (p = line + 7; sscanf(p, " %31[a-z] %u", name, &v) == 2; n++) {
		ck_assert_msg(tip_count(tip, name) == (int)v, "pageblock %s: map says %s %u, the "
			      "hover '%s'", pfn, name, v, tip);
		p += strcspn(p, ",\n");
		if (*p++ != ',')
			break;
	}
	ck_assert_uint_eq(n, 6);	/* six counts, then the holes */
	/* the page lines: "0xPFN " and 64 characters */
	for (p = strchr(line + 1, '\n') + 1; !strncmp(p, "0x", 2); p = strchr(p, '\n') + 1) {
		at = strtoull(p, NULL, 16);
		ck_assert_uint_eq(at, first + len);
		v = (unsigned int)strcspn(strchr(p, ' ') + 1, "\n");
		ck_assert(len + v < sizeof(drawn));
		memcpy(drawn + len, strchr(p, ' ') + 1, v);
		len += v;
	}
	drawn[len] = 0;
	ck_assert_uint_eq(len, 512);
	ck_assert_msg(!strcmp(drawn, chars), "pageblock %s: map draws\n%s\nthe zoom\n%s", pfn,
		      drawn, chars);
	/* the known pfn's class, by the legend's character */
	ck_assert(known >= first && known < first + 512);
	snprintf(want, sizeof(want), " %s ", known_class);
	for (p = strstr(out, "legend:\n"); p && (p = strchr(p, '\n')); p++)
		if (!strncmp(p + 5, want + 1, strlen(want) - 1))
			legend_ch = p[3];
	ck_assert_msg(legend_ch, "no legend line for '%s'", known_class);
	ck_assert_msg(drawn[known - first] == legend_ch, "pfn %s: map draws '%c', the zoom says %s",
		      known_pfn, drawn[known - first], known_class);
	free(tip);
	free(out);
}

/* compare on @copy: three layouts stored; their names, served counts and low watermark
 * breaches as the page shows them ("asis|movable:1G|..."), from the capture. */
static void run_compare(const char *copy, char **layouts, char **served, char **wmark)
{
	char *p;

	ck_assert_int_eq(fixture_run_bc(NULL, "compare '%s' --size 1G --layout asis --layout "
					"movable:1G --layout reserve:1G >/dev/null 2>&1", copy), 0);
	*layouts = fixture_sql_rows(copy, "SELECT group_concat(layout, '|') FROM (SELECT layout "
				    "FROM compare_results GROUP BY layout ORDER BY min(rowid))");
	*served = fixture_sql_rows(copy, "SELECT group_concat(CAST(value AS INTEGER), '|') FROM "
				   "(SELECT value FROM compare_results WHERE name = 'served' "
				   "ORDER BY rowid)");
	*wmark = fixture_sql_rows(copy, "SELECT group_concat(CAST(value AS INTEGER), '|') FROM "
				  "(SELECT value FROM compare_results WHERE name = 'wmark_breaches' "
				  "ORDER BY rowid)");
	for (p = *layouts; *p; p++)
		if (*p == '\n')
			*p = 0;
	for (p = *served; *p; p++)
		if (*p == '\n')
			*p = 0;
	for (p = *wmark; *p; p++)
		if (*p == '\n')
			*p = 0;
}

/* predict's 2 MiB allocations in a row at the end: the successes before the first
 * failure of --count @n + 1 (at most @n + 1). */
static long long predict_2m(const char *copy, long long n)
{
	char *out, *p;
	long long ok = 0;

	ck_assert_int_eq(fixture_run_bc(&out, "predict '%s' --size 2M --count %lld --no-store "
					"--json", copy, n + 1), 1);
	for (p = out; (p = strstr(p, "\"success\": ")); p++) {
		if (strncmp(p + 11, "true", 4))
			break;
		ok++;
	}
	free(out);
	return ok;
}

/* The 2 MiB count leaves the replay as it was: report --no-2m writes the same file but
 * the counts ("contig_2m":N, keys). */
static void check_no_2m(const char *copy, const char *html)
{
	char *plain = fixture_tmpfile("report-no2m.html"), *a, *b, *p, *q;

	ck_assert_int_eq(fixture_run_bc(NULL, "report '%s' --no-2m -o '%s' >/dev/null 2>&1", copy,
					plain), 0);
	ck_assert_int_eq(fixture_runf(&a, "sed 's/\"contig_2m\":[0-9]*,//g' '%s'", html), 0);
	ck_assert_int_eq(fixture_runf(&b, "cat '%s'", plain), 0);
	ck_assert_msg(!strstr(b, "\"contig_2m\":"), "report --no-2m has 2 MiB counts");
	for (p = a, q = b; *p && *p == *q; p++, q++)
		;
	ck_assert_msg(!*p && !*q, "report --no-2m differs beyond the 2 MiB counts at byte %ld: "
		      "'%.80s' vs '%.80s'", (long)(p - a), p, q);
	free(a);
	free(b);
	fixture_rm(plain);
}

START_TEST(test_report_browser)
{
	const char *db = caps.gl_pathv[_i], *chrome = chromium();
	char *copy = fixture_tmpfile("report.db"), *html = fixture_tmpfile("report.html");
	char *name = strdup(strrchr(db, '/') + 1), *out, *res, *e, *want, *text;
	char *layouts = NULL, *served = NULL, *wmark = NULL, *nb[4];
	struct stat st;
	long long preds;
	unsigned int k;

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
	/* a stored compare run for the layouts side by side: on one (a quick one) */
	if (!strcmp(name, "vm-reserved"))
		run_compare(copy, &layouts, &served, &wmark);
	preds = fixture_sql_count(copy, "SELECT count(*) FROM predictions p JOIN prediction_runs r "
				  "ON r.id = p.run WHERE r.mode <> 'verify'");
	ck_assert_int_eq(fixture_run_bc(&out, "report '%s' -o '%s'", copy, html), 0);
	free(out);
	ck_assert_int_eq(stat(html, &st), 0);
	ck_assert_msg((st.st_mode & 0777) == 0600, "%s: mode %o", db, st.st_mode & 0777);
	ck_assert_msg(st.st_size <= 3000000, "%s: report of %lld bytes", db, (long long)st.st_size);

	/*
	 * one start of the browser: the DOM after the self-test, and its screenshot. A
	 * start that hangs (a fresh CI machine's Chromium once sat 120 s on one page,
	 * and rendered it at once when asked again) is retried once; the page's own
	 * failures are not
	 */
	for (k = 0; k < 2; k++) {
		int rc = fixture_runf(&out, "mkdir -p '%s/build' && timeout 120 '%s' --headless "
				      "--no-sandbox --disable-gpu --hide-scrollbars "
				      "--user-data-dir='%s.profile%u' --enable-logging=stderr --v=0 "
				      "--virtual-time-budget=3000 --window-size=1400,1400 "
				      "--screenshot='%s/build/report-%s.png' "
				      "--dump-dom 'file://%s?selftest'", fixture_srcdir(), chrome,
				      html, k, fixture_srcdir(), name, html);

		if (rc == 124 && !k) {
			printf("report browser test: %s: Chromium timed out, started again\n", db);
			free(out);
			continue;
		}
		ck_assert_msg(rc == 0, "%s: Chromium exit status %d: %.800s", db, rc, out);
		break;
	}
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
	/* the 2 MiB series: a point per frame */
	ck_assert_int_eq(num_of(res, "frame_points"), num_of(res, "frames"));
	ck_assert_int_eq(num_of(res, "c2m_points"), num_of(res, "frames"));
	if (!strcmp(name, "vm-reserved")) {
		ck_assert_int_eq(predict_2m(copy, num_of(res, "c2m_end")), num_of(res, "c2m_end"));
		check_no_2m(copy, html);
	}
	/* a pageblock that stops no row: hover counts and zoom against map --pageblock */
	nb[0] = str_of(res, "nb_pfn");
	nb[1] = str_of(res, "nb_text");
	nb[2] = str_of(res, "nb_known_pfn");
	nb[3] = str_of(res, "nb_known_class");
	ck_assert_msg(nb[0] && nb[1] && nb[2] && nb[3], "%s: no pageblock probed: %s", db, res);
	ck_assert_int_eq(num_of(res, "nb_zoom_pages"), 512);
	text = str_of(res, "nb_zoom_chars");
	ck_assert(text);
	for (e = nb[1]; (e = strstr(e, "\\n")); e++) {	/* the tip's newlines, JSON-escaped */
		*e = '\n';
		memmove(e + 1, e + 2, strlen(e + 2) + 1);
	}
	check_pageblock(copy, nb[0], nb[1], text, nb[2], nb[3]);
	free(text);
	for (k = 0; k < 4; k++)
		free(nb[k]);
	/* compare's layouts, one column each, with their served counts */
	text = str_of(res, "compare_layouts");
	if (layouts) {
		ck_assert_msg(text && !strcmp(text, layouts), "%s: layouts shown '%s', stored '%s'",
			      db, text, layouts);
		free(text);
		text = str_of(res, "compare_served");
		ck_assert_msg(text && !strcmp(text, served), "%s: served shown '%s', stored '%s'",
			      db, text, served);
		free(text);
		text = str_of(res, "compare_wmark");
		ck_assert_msg(text && !strcmp(text, wmark), "%s: low watermark breaches shown "
			      "'%s', stored '%s'", db, text, wmark);
	} else {
		ck_assert_msg(!text, "%s: a compare table without a stored run: %s", db, text);
	}
	free(text);
	free(layouts);
	free(served);
	free(wmark);
	free(out);
	fixture_runf(NULL, "rm -rf '%s.profile0' '%s.profile1'", html, html);
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
