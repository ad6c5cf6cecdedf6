// SPDX-License-Identifier: GPL-2.0
/*
 * bench-report OUT.html: write the report of a synthetic 1 TiB layout (524,288
 * pageblocks: DMA, DMA32 and a Normal zone up to 1 TiB, every class and migratetype
 * mixed, a third of the 1 GiB rows failing on a blocker) and print the time the data
 * took to encode and write, and the file's size. bench-report.sh then has Chromium
 * draw it (the page's draw time). No replay: the frames are made up here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/wfile.h"
#include "report/frames.h"
#include "report/html.h"

#define TIB_PFNS	(1ull << 28)

static void layout(struct frm_set *s)
{
	static const struct { const char *name; uint64_t start, end; } z[] = {
		{ "DMA", 1, 0x1000 }, { "DMA32", 0x1000, 0x100000 }, { "Normal", 0x100000, TIB_PFNS },
	};
	unsigned int i;

	s->layout.nr_zones = 3;
	s->layout.pageblock_order = 9;
	s->layout.max_page_order = 10;
	for (i = 0; i < 3; i++) {
		snprintf(s->layout.zones[i].name, sizeof(s->layout.zones[i].name), "%s", z[i].name);
		s->layout.zones[i].start_pfn = z[i].start;
		s->layout.zones[i].spanned = s->layout.zones[i].present = z[i].end - z[i].start;
	}
	s->g = (struct pbm_geometry){ .base_pfn = 0, .pb_pages = 512, .row_pb = 512,
				      .nr_rows = 1024, .nr_pb = 1024 * 512 };
}

/* The next number of a fixed LCG (the same file every time). */
static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

/* Page classes of a pageblock of class @c: free, hole, uninit and reserved blocks
 * whole; movable blocks with a few free runs; unmovable ones mixed with movable and
 * free pages (a busy machine's). */
static void block_pages(uint64_t *x, enum pbm_content c, uint8_t *pg, unsigned int n)
{
	static const uint8_t mix[] = { PBM_UNMOVABLE, PBM_FREE, PBM_MOVABLE, PBM_UNMOVABLE };
	unsigned int i = 0, len;

	if (c != PBM_MOVABLE && c != PBM_UNMOVABLE) {
		memset(pg, c, n);
		return;
	}
	while (i < n) {
		len = 1 + lcg(x) % (c == PBM_MOVABLE ? 256 : 64);
		if (len > n - i)
			len = n - i;
		memset(pg + i, c == PBM_MOVABLE ? (lcg(x) % 4 ? PBM_MOVABLE : PBM_FREE) :
			       mix[lcg(x) % 4], len);
		i += len;
	}
}

/* Every pageblock's counts and every page's class, encoded as pbm_fill_all() does. */
static void encode(struct frm_set *s, struct frm_frame *f)
{
	uint64_t x = 777, i, run = 0, rep = 0;
	uint16_t t[PBM_NR_COUNT], prev[PBM_NR_COUNT];
	uint8_t pg[512], cls = 0;
	unsigned int k;
	int n;

	for (i = 0; i < s->g.nr_pb; i++) {
		block_pages(&x, PBM_CONTENT(f->cells[i]), pg, s->g.pb_pages);
		memset(t, 0, sizeof(t));
		for (k = 0; k < s->g.pb_pages; k++) {
			n = pbm_count_of_class(pg[k]);
			if (n >= 0)
				t[n]++;
			if (run && pg[k] != cls) {
				pbm_buf_varint(&f->runs, run << 4 | cls);
				run = 0;
			}
			cls = pg[k];
			run++;
		}
		if (rep && memcmp(t, prev, sizeof(t))) {
			pbm_buf_varint(&f->counts, rep);
			for (n = 0; n < PBM_NR_COUNT; n++)
				pbm_buf_varint(&f->counts, prev[n]);
			rep = 0;
		}
		memcpy(prev, t, sizeof(t));
		rep++;
	}
	pbm_buf_varint(&f->runs, run << 4 | cls);
	pbm_buf_varint(&f->counts, rep);
	for (n = 0; n < PBM_NR_COUNT; n++)
		pbm_buf_varint(&f->counts, prev[n]);
}

/* Runs of classes like a busy machine's, from a fixed LCG (the same file every time). */
static void frame(struct frm_set *s, struct frm_frame *f)
{
	uint64_t x = 12345, i;
	unsigned int r, run = 0, c = 1, t = 1;

	f->cells = malloc(s->g.nr_pb);
	f->rows = calloc(s->g.nr_rows, sizeof(*f->rows));
	for (i = 0; i < s->g.nr_pb; i++) {
		if (!run) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			run = 1 + (x >> 58);
			c = (x >> 33) % PBM_NR_CONTENT;
			t = (x >> 40) % PBM_NR_MT;
		}
		run--;
		f->cells[i] = PBM_CELL(c, c == PBM_HOLE ? PBM_MT_NONE : t);
	}
	encode(s, f);
	for (r = 0; r < s->g.nr_rows; r++) {
		struct pr_answer *a = &f->rows[r];

		a->nr_cand = 1;
		a->cand = calloc(1, sizeof(*a->cand));
		a->cand[0].start_pfn = (uint64_t)r * PBM_ROW_PAGES;
		a->cand[0].end_pfn = a->cand[0].start_pfn + PBM_ROW_PAGES;
		a->success = r % 3 != 0;
		a->cand[0].verdict = a->success ? PR_V_SUCCESS : PR_V_ISOLATION;
		a->cand[0].pfn = a->success ? UINT64_MAX : a->cand[0].start_pfn + (r * 7919) % 262144;
		if (!a->success) {
			a->has_blocker = true;
			a->blocker = (struct pr_blocker){ .pfn = a->cand[0].pfn, .state = MODEL_PFN_ALLOC,
				.kind = MODEL_KIND_SLAB, .head = a->cand[0].pfn, .reason = "slab page" };
		}
		f->rows_ok += a->success;
	}
	f->contig_2m = 123456;
	for (r = 0; r < 3; r++)
		f->largest_free[r] = 10;
	snprintf(f->label, sizeof(f->label), "end");
}

int main(int argc, char **argv)
{
	struct frm_frame f = { 0 };
	struct frm_set s = { .f = &f, .nr = 1, .has_2m = true };
	struct html_input in = { .name = "synthetic 1 TiB", .frames = &s };
	struct timespec t0, t1;
	struct stat st;
	FILE *fp;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-report OUT.html\n");
		return 2;
	}
	layout(&s);
	frame(&s, &f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (bc_fcreate_private(argv[1], &fp) || html_write(fp, &in) || fclose(fp)) {
		fprintf(stderr, "bench-report: cannot write %s\n", argv[1]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	stat(argv[1], &st);
	printf("1 TiB layout (%llu pageblocks, counts %zu bytes, page runs %zu bytes): "
	       "encoded and written in %.1f ms, %.2f MB\n", (unsigned long long)s.g.nr_pb,
	       f.counts.len, f.runs.len,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6, st.st_size / 1e6);
	pr_answers_free(f.rows, s.g.nr_rows);
	free(f.cells);
	pbm_buf_free(&f.counts);
	pbm_buf_free(&f.runs);
	return 0;
}
