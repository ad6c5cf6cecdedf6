/* SPDX-License-Identifier: GPL-2.0 */
/*
 * html: `bigchunk report`'s one self-contained HTML file (no network: the script,
 * the style and the data are inline). The data is one JSON object in a
 * <script type="application/json"> element: the geometry, zones and palette, the
 * frames (report/frames.h) with their cells as base64 (one byte per pageblock, as
 * report/pbmap.h defines it), every pageblock's page counts and every page's class
 * (pbm_fill_all()'s run-length encodings, base64; decoded by the page on the first
 * hover and click of a frame), the 2 MiB count and each row's 1 GiB answer, then what
 * report/html-data.h adds from the replay and the capture. The page's script (report/assets/report.js)
 * draws the grid on a canvas and the rest from that object. Opening the file with
 * "?selftest" makes the page check itself and write the results into the DOM (the
 * browser test, tests/test_report.c).
 */
#ifndef BC_HTML_H
#define BC_HTML_H

#include <stdio.h>

struct frm_set;
struct replay;
struct tdb;

struct html_input {
	const char *name;		/* the capture's file name, shown as the title */
	const char *kernel;		/* the traced kernel's release, or NULL */
	const struct frm_set *frames;
	struct replay *rp;		/* run by frm_collect(): scores, attempts, anomalies;
					 * NULL: none (a synthetic layout) */
	struct tdb *db;			/* results stored by earlier runs, or NULL */
};

/* Return: 0, or a negative bc_err (-BC_E_IO when writing failed). */
int html_write(FILE *fp, const struct html_input *in);

/* The script and style of the page (report/assets/, compiled in). */
extern const char html_js[], html_css[];

#endif
