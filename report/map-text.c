// SPDX-License-Identifier: GPL-2.0
/*
 * map-text: the terminal map (report/map-text.h). A character stands for N adjacent
 * pageblocks of a row and shows the class most in a big chunk's way among them
 * (pbm_merge()); '!' marks the pageblock holding the page that stops the row's 1 GiB
 * allocation. The zoom into one pageblock draws a character per page.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "report/frames.h"
#include "report/map-text.h"

/* Row prefix (address) and suffix (" ok" and zone names) widths. */
#define SUFFIX_COLS 14

static unsigned int addr_digits(const struct frm_set *s)
{
	uint64_t last = (s->g.base_pfn + (uint64_t)s->g.nr_rows * PBM_ROW_PAGES) * 4096 - 1;
	unsigned int d = 1;

	while (last >>= 4)
		d++;
	return d;
}

unsigned int map_text_per_char(const struct frm_set *s, unsigned int cols)
{
	unsigned int avail, used = addr_digits(s) + 3 + SUFFIX_COLS;

	if (cols < MAP_TEXT_MIN_COLS)
		cols = MAP_TEXT_MIN_COLS;
	avail = cols > used + 8 ? cols - used : 8;
	return (s->g.row_pb + avail - 1) / avail;
}

/* The xterm 256-colour cube index nearest 0xRRGGBB. */
static unsigned int xterm256(uint32_t rgb)
{
	unsigned int r = (rgb >> 16) & 255, g = (rgb >> 8) & 255, b = rgb & 255;

	if (r == g && g == b && r > 8 && r < 238)
		return 232 + (r - 8) / 10;
	return 16 + 36 * ((r * 5 + 127) / 255) + 6 * ((g * 5 + 127) / 255) + (b * 5 + 127) / 255;
}

static void put_cell(FILE *fp, const struct map_text_opts *o, uint8_t cell, bool blocker)
{
	uint32_t rgb = o->by == MAP_TEXT_CONTENT ? pbm_content_rgb(PBM_CONTENT(cell)) :
			pbm_mt_rgb(PBM_MT(cell));
	char ch = o->by == MAP_TEXT_CONTENT ? pbm_content_char(PBM_CONTENT(cell)) :
		  pbm_mt_char(PBM_MT(cell));
	unsigned int lum = ((rgb >> 16) & 255) * 3 + ((rgb >> 8) & 255) * 6 + (rgb & 255);

	if (blocker)
		ch = '!';
	if (!o->colour || PBM_CONTENT(cell) == PBM_HOLE) {
		fputc(ch, fp);
		return;
	}
	fprintf(fp, "\033[%s38;5;%um\033[48;5;%um%c\033[0m", blocker ? "1;" : "",
		lum > 1200 ? 16u : 231u, xterm256(rgb), ch);
}

/* Zones starting inside row @r (" DMA32"), at most @room characters. */
static void zone_starts(FILE *fp, const struct frm_set *s, unsigned int r, int room)
{
	uint64_t a = s->g.base_pfn + r * PBM_ROW_PAGES, b = a + PBM_ROW_PAGES;
	unsigned int z;

	for (z = 0; z < s->layout.nr_zones; z++) {
		const struct model_zone_layout *zl = &s->layout.zones[z];

		if (zl->start_pfn >= a && zl->start_pfn < b && room > (int)strlen(zl->name)) {
			fprintf(fp, " %s", zl->name);
			room -= (int)strlen(zl->name) + 1;
		}
	}
}

/* Does row @r meet a zone? */
static bool row_in_zones(const struct frm_set *s, unsigned int r)
{
	uint64_t a = s->g.base_pfn + r * PBM_ROW_PAGES, b = a + PBM_ROW_PAGES;
	unsigned int z;

	for (z = 0; z < s->layout.nr_zones; z++)
		if (s->layout.zones[z].start_pfn < b &&
		    s->layout.zones[z].start_pfn + s->layout.zones[z].spanned > a)
			return true;
	return false;
}

static void write_row(FILE *fp, const struct frm_set *s, const struct frm_frame *f,
		      const struct map_text_opts *o, unsigned int r, unsigned int n)
{
	const uint8_t *cells = f->cells + (uint64_t)r * s->g.row_pb;
	enum pr_verdict v = frm_row_verdict(f, r);
	long blk = frm_row_blocker(s, f, r);
	unsigned int i, k;

	fprintf(fp, "0x%0*" PRIx64 " ", addr_digits(s),
		(s->g.base_pfn + r * PBM_ROW_PAGES) * 4096);
	for (i = 0; i < s->g.row_pb; i += n) {
		k = s->g.row_pb - i < n ? s->g.row_pb - i : n;
		put_cell(fp, o, pbm_merge(cells + i, k), blk >= (long)i && blk < (long)(i + k));
	}
	fprintf(fp, " %s", v == PR_V_SUCCESS ? "ok" : v <= PR_V_INVALID ? "--" : "no");
	zone_starts(fp, s, r, SUFFIX_COLS - 3);
	fputc('\n', fp);
}

static void legend(FILE *fp, const struct map_text_opts *o)
{
	unsigned int c;

	fprintf(fp, "legend:\n");
	if (o->by == MAP_TEXT_CONTENT) {
		for (c = 0; c < PBM_NR_CONTENT; c++) {
			fputs("  ", fp);
			put_cell(fp, o, PBM_CELL(c, PBM_MT_NONE), false);
			fprintf(fp, " %-10s %s\n", pbm_content_name(c), pbm_content_text(c));
		}
	} else {
		for (c = 0; c <= PBM_NR_MT; c++) {
			enum pbm_mt t = c < PBM_NR_MT ? (enum pbm_mt)c : PBM_MT_NONE;

			fputs("  ", fp);
			put_cell(fp, o, PBM_CELL(t == PBM_MT_NONE ? PBM_HOLE : PBM_FREE, t), false);
			fprintf(fp, " %s\n", t == PBM_MT_NONE ? "no memory" : pbm_mt_name(t));
		}
	}
	fprintf(fp, "  ! the page that stops the row's 1 GiB allocation (--by content: the worst\n"
		"    class of the pageblocks a character stands for is shown)\n"
		"  ok / no: a 1 GiB allocation inside the row alone would succeed / fail;\n"
		"  --: the row is no candidate (pfn_range_valid_contig(): a hole, two zones,\n"
		"      a hugetlb page on this kernel)\n");
}

int map_text_write(FILE *fp, const struct frm_set *s, const struct frm_frame *f,
		   const struct map_text_opts *o)
{
	unsigned int n = map_text_per_char(s, o->cols), r, skipped = 0;

	fprintf(fp, "map at %s (ts %" PRIu64 ", before event %" PRIu64 "), by %s: rows of 1 GiB, "
		"1 character = %u pageblock%s (%u KiB)\n", f->label, f->ts, f->seq,
		o->by == MAP_TEXT_CONTENT ? "content" : "migratetype", n, n == 1 ? "" : "s",
		n * s->g.pb_pages * 4);
	for (r = 0; r < s->g.nr_rows; r++) {
		if (!row_in_zones(s, r)) {
			skipped++;
			continue;
		}
		if (skipped)
			fprintf(fp, "  (%u GiB without zones)\n", skipped);
		skipped = 0;
		write_row(fp, s, f, o, r, n);
	}
	fprintf(fp, "1 GiB rows where an allocation would succeed: %u\n", f->rows_ok);
	legend(fp, o);
	return ferror(fp) ? bc_error(BC_E_IO, "writing the map failed") : 0;
}

#define PB_LINE	64		/* pages to a line of the pageblock zoom */

int map_text_pageblock(FILE *fp, const struct model *m, const struct frm_set *s,
		       const struct frm_frame *f, uint64_t pfn, const struct map_text_opts *o)
{
	struct map_text_opts po = *o;
	uint64_t start = pfn - pfn % s->g.pb_pages, rstart;
	uint16_t n[PBM_NR_COUNT];
	unsigned int i, sum = 0, r;
	const char *zone = NULL;
	int digits = 1;
	uint8_t *pages;
	long blk;
	int ret;

	if (pfn < s->g.base_pfn || pfn >= s->g.base_pfn + s->g.nr_pb * s->g.pb_pages)
		return bc_error(BC_E_INVAL, "pfn 0x%" PRIx64 " is outside the map (pfns 0x%" PRIx64
				"-0x%" PRIx64 ")", pfn, s->g.base_pfn,
				s->g.base_pfn + s->g.nr_pb * s->g.pb_pages);
	pages = malloc(s->g.pb_pages);
	if (!pages)
		return bc_error(BC_E_NOMEM, "out of memory");
	ret = pbm_counts(m, start, s->g.pb_pages, n);
	if (!ret)
		ret = pbm_pages(m, start, s->g.pb_pages, pages);
	if (ret) {
		free(pages);
		return ret;
	}
	for (i = 0; i < s->layout.nr_zones; i++)
		if (start < s->layout.zones[i].start_pfn + s->layout.zones[i].spanned &&
		    start + s->g.pb_pages > s->layout.zones[i].start_pfn && !zone)
			zone = s->layout.zones[i].name;
	r = (unsigned int)((start - s->g.base_pfn) / PBM_ROW_PAGES);
	rstart = s->g.base_pfn + (uint64_t)r * PBM_ROW_PAGES;
	fprintf(fp, "pageblock 0x%" PRIx64 "-0x%" PRIx64 " (%s) at %s (ts %" PRIu64 ", before event %"
		PRIu64 "), %s\n", start, start + s->g.pb_pages, zone ? zone : "no zone", f->label,
		f->ts, f->seq, pbm_content_name(PBM_CONTENT(f->cells[(start - s->g.base_pfn) /
							    s->g.pb_pages])));
	fputs("pages:", fp);
	for (i = 0; i < PBM_NR_COUNT; i++) {
		fprintf(fp, "%s %s %u", i ? "," : "", pbm_count_name(i), n[i]);
		sum += n[i];
	}
	fprintf(fp, ", hole %u\n", s->g.pb_pages - sum);
	po.by = MAP_TEXT_CONTENT;
	for (rstart = (start + s->g.pb_pages - 1) >> 4; rstart; rstart >>= 4)
		digits++;
	rstart = s->g.base_pfn + (uint64_t)r * PBM_ROW_PAGES;
	for (i = 0; i < s->g.pb_pages; i++) {
		if (i % PB_LINE == 0)
			fprintf(fp, "0x%0*" PRIx64 " ", digits, start + i);
		put_cell(fp, &po, PBM_CELL(pages[i], PBM_MT_NONE), false);
		if (i % PB_LINE == PB_LINE - 1 || i == s->g.pb_pages - 1)
			fputc('\n', fp);
	}
	blk = frm_row_blocker(s, f, r);
	if (blk >= 0 && rstart + (uint64_t)blk * s->g.pb_pages == start) {
		const struct pr_answer *a = &f->rows[r];

		fprintf(fp, "the page that stops the row's 1 GiB allocation: pfn 0x%" PRIx64 "\n",
			a->has_blocker ? a->blocker.pfn : a->cand[0].pfn);
	}
	free(pages);
	fprintf(fp, "legend:\n");
	for (i = 0; i < PBM_NR_CONTENT; i++) {
		fputs("  ", fp);
		put_cell(fp, &po, PBM_CELL(i, PBM_MT_NONE), false);
		fprintf(fp, " %-10s %s\n", pbm_content_name(i), pbm_content_text(i));
	}
	return ferror(fp) ? bc_error(BC_E_IO, "writing the map failed") : 0;
}
