// SPDX-License-Identifier: GPL-2.0
/*
 * html: the document around the data (report/html.h): head with the style, the
 * sections' empty containers, the JSON data, the script.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/json.h"
#include "predict/predict-json.h"
#include "report/frames.h"
#include "report/html-data.h"
#include "report/html.h"

/* @n bytes as base64 (RFC 4648), malloc'ed; NULL when out of memory. */
static char *base64(const uint8_t *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		*o++ = tab[v >> 18];
		*o++ = tab[(v >> 12) & 63];
		*o++ = tab[(v >> 6) & 63];
		*o++ = tab[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);

		*o++ = tab[v >> 18];
		*o++ = tab[(v >> 12) & 63];
		*o++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = 0;
	return out;
}

static void json_rgb(struct json *j, uint32_t rgb)
{
	char s[8];

	snprintf(s, sizeof(s), "#%06x", rgb & 0xffffff);
	json_str(j, s);
}

/* Classes and migratetypes: [{name, text, ch, rgb}] in cell-number order. */
static void write_palette(struct json *j)
{
	unsigned int c;
	char ch[2] = { 0 };

	json_key(j, "content");
	json_arr_begin(j);
	for (c = 0; c < PBM_NR_CONTENT; c++) {
		json_obj_begin(j);
		json_kstr(j, "name", pbm_content_name(c));
		json_kstr(j, "text", pbm_content_text(c));
		ch[0] = pbm_content_char(c);
		json_kstr(j, "ch", ch);
		json_key(j, "rgb");
		json_rgb(j, pbm_content_rgb(c));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "mt");
	json_arr_begin(j);
	for (c = 0; c < PBM_NR_MT; c++) {
		json_obj_begin(j);
		json_kstr(j, "name", pbm_mt_name(c));
		json_key(j, "rgb");
		json_rgb(j, pbm_mt_rgb(c));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "counts");
	json_arr_begin(j);
	for (c = 0; c < PBM_NR_COUNT; c++)
		json_str(j, pbm_count_name(c));
	json_arr_end(j);
}

static void write_geometry(struct json *j, const struct frm_set *s)
{
	unsigned int z;

	json_key(j, "geometry");
	json_obj_begin(j);
	json_kuint(j, "base_pfn", s->g.base_pfn);
	json_kuint(j, "pb_pages", s->g.pb_pages);
	json_kuint(j, "row_pb", s->g.row_pb);
	json_kuint(j, "nr_rows", s->g.nr_rows);
	json_kuint(j, "row_pages", PBM_ROW_PAGES);
	json_obj_end(j);
	json_key(j, "zones");
	json_arr_begin(j);
	for (z = 0; z < s->layout.nr_zones; z++) {
		const struct model_zone_layout *zl = &s->layout.zones[z];

		json_obj_begin(j);
		json_kint(j, "nid", zl->nid);
		json_kstr(j, "name", zl->name);
		json_kuint(j, "start", zl->start_pfn);
		json_kuint(j, "end", zl->start_pfn + zl->spanned);
		json_kuint(j, "present", zl->present);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* Each row's verdict and the page that stops it. */
static void write_rows(struct json *j, const struct frm_set *s, const struct frm_frame *f)
{
	unsigned int r;

	json_key(j, "rows");
	json_arr_begin(j);
	for (r = 0; r < s->g.nr_rows; r++) {
		const struct pr_answer *a = &f->rows[r];

		json_obj_begin(j);
		json_kstr(j, "v", pr_verdict_name(frm_row_verdict(f, r)));
		if (a->nr_cand && a->cand[0].pfn != UINT64_MAX)
			json_kuint(j, "pfn", a->cand[0].pfn);
		if (!a->success && a->has_blocker) {
			json_key(j, "blocker");
			pr_json_blocker(j, &a->blocker);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* @b as a base64 string under @key (an empty buffer: no key). */
static int write_b64(struct json *j, const char *key, const struct pbm_buf *b)
{
	char *b64;

	if (!b->len)
		return 0;
	b64 = base64(b->p, b->len);
	if (!b64)
		return bc_error(BC_E_NOMEM, "out of memory");
	json_kstr(j, key, b64);
	free(b64);
	return 0;
}

static int write_frames(struct json *j, const struct frm_set *s)
{
	unsigned int i, z;
	char *b64;
	int ret;

	json_key(j, "frames");
	json_arr_begin(j);
	for (i = 0; i < s->nr; i++) {
		const struct frm_frame *f = &s->f[i];

		b64 = base64(f->cells, s->g.nr_pb);
		if (!b64)
			return bc_error(BC_E_NOMEM, "out of memory");
		json_obj_begin(j);
		json_kstr(j, "label", f->label);
		json_kuint(j, "ts", f->ts);
		json_kuint(j, "seq", f->seq);
		json_kuint(j, "rows_ok", f->rows_ok);
		json_key(j, "largest_free");
		json_arr_begin(j);
		for (z = 0; z < s->layout.nr_zones; z++)
			json_int(j, f->largest_free[z]);
		json_arr_end(j);
		json_kstr(j, "cells", b64);
		free(b64);
		if (s->has_2m)
			json_kuint(j, "contig_2m", f->contig_2m);
		ret = write_b64(j, "counts", &f->counts);
		if (!ret)
			ret = write_b64(j, "runs", &f->runs);
		write_rows(j, s, f);
		json_obj_end(j);
		if (ret)
			return ret;
	}
	json_arr_end(j);
	return 0;
}

static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width\">\n"
	"<title>bigchunk report</title>\n"
	/* first, so that errors anywhere later are counted (the self-test reports them) */
	"<script>window.bcErrors = []; addEventListener('error', function (e) "
	"{ bcErrors.push(String(e.message)); });</script>\n<style>\n";

static const char page_body[] =
	"</style>\n</head>\n<body>\n"
	"<header><h1>bigchunk report <span id=\"name\"></span></h1><p id=\"summary\"></p></header>\n"
	"<section id=\"map-section\"><h2>Physical memory</h2>\n"
	"<div id=\"controls\"><label>point <input id=\"slider\" type=\"range\" min=\"0\" value=\"0\">"
	"</label> <span id=\"point\"></span> <label><select id=\"by\"><option value=\"content\">"
	"by content</option><option value=\"mt\">by migratetype</option></select></label></div>\n"
	"<div id=\"mapwrap\"><canvas id=\"map\"></canvas><div id=\"tip\" hidden></div></div>\n"
	"<div id=\"legend\"></div><div id=\"zoom\"></div></section>\n"
	"<section id=\"timeline-section\"><h2>Contiguity over time</h2><div id=\"timeline\"></div>"
	"</section>\n"
	"<section id=\"blockers-section\"><h2>Blockers</h2><div id=\"blockers\"></div></section>\n"
	"<section id=\"compare-section\"><h2>Layouts compared</h2><div id=\"compare\"></div>"
	"</section>\n"
	"<section id=\"fidelity-section\"><h2>Fidelity</h2><div id=\"fidelity\"></div></section>\n"
	"<pre id=\"selftest\" hidden></pre>\n"
	"<script id=\"bc-data\" type=\"application/json\">\n";

int html_write(FILE *fp, const struct html_input *in)
{
	struct json j;
	int ret;

	fputs(page_head, fp);
	fputs(html_css, fp);
	fputs(page_body, fp);
	json_init(&j, fp, false);
	json_obj_begin(&j);
	json_kstr(&j, "name", in->name);
	json_kstr(&j, "kernel", in->kernel);
	json_key(&j, "palette");
	json_obj_begin(&j);
	write_palette(&j);
	json_obj_end(&j);
	write_geometry(&j, in->frames);
	ret = write_frames(&j, in->frames);
	if (!ret)
		ret = html_data_write(&j, in->rp, in->db);
	json_obj_end(&j);
	json_end(&j);
	fputs("</script>\n<script>\n", fp);
	fputs(html_js, fp);
	fputs("</script>\n</body>\n</html>\n", fp);
	if (!ret && ferror(fp))
		ret = bc_error(BC_E_IO, "writing the report failed");
	return ret;
}
