/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pbmap: the physical map as pictures show it, one byte per pageblock, from a model
 * (model/model.h). Shared by `bigchunk map` (report/map-text.h) and `bigchunk report`
 * (report/html.h), so that both draw the same classes.
 *
 * The map spans whole 1 GiB rows (262,144 pages of 4 KiB: the size of a gigantic
 * page, so each row is one 1 GiB candidate) from the row holding the first zone's
 * start to the row holding the last zone's end. Each cell is
 *   bits 0-3  what the pageblock holds (enum pbm_content), the most telling class of
 *             its pages for a contiguous allocation: anything that stops isolation
 *             (reserved, unmovable) wins over movable, movable over free;
 *   bits 4-6  its effective migratetype (enum pbm_mt, the kernel's names; ISOLATE
 *             when isolated), PBM_MT_NONE where it is no memory.
 * The model's numbering of migratetypes depends on CONFIG_CMA (model_profile.cma);
 * pbm_mt names them once so readers need not.
 */
#ifndef BC_PBMAP_H
#define BC_PBMAP_H

#include <stdint.h>

struct model;

/*
 * Content classes, in rising order of how much they stand in a big chunk's way: the
 * character of the terminal map, the colour (Okabe-Ito, safe for colour-blind readers),
 * the name and a line for legends.
 */
#define PBM_CONTENTS							\
	_P(HOLE, ' ', 0xeeeeee, "hole", "no memory: outside zones or not System RAM") \
	_P(FREE, '.', 0x009e73, "free", "every page free (buddy or per-cpu lists)") \
	_P(MOVABLE, 'm', 0x56b4e9, "movable", "movable pages in use (user, page cache), the rest free") \
	_P(HUGETLB, 'H', 0x0072b2, "hugetlb", "a hugetlb pool page") \
	_P(UNKNOWN, '?', 0xf0e442, "unknown", "pages in use whose kind the capture does not show") \
	_P(UNMOVABLE, 'U', 0xd55e00, "unmovable",					\
	   "unmovable or reclaimable pages in use (kernel, slab, page tables)")		\
	_P(RESERVED, 'R', 0x000000, "reserved", "reserved pages (firmware, kernel image, memmap)") \
	_P(UNINIT, '_', 0x999999, "uninit", "struct pages not initialised yet (deferred init)") \
	_P(ISOLATED, 'I', 0xcc79a7, "isolated", "isolated pageblock (an attempt or offlining in progress)")

#define _P(c, ch, rgb, s, d) PBM_##c,
enum pbm_content { PBM_CONTENTS PBM_NR_CONTENT };
#undef _P

/* Effective migratetypes (kernel names), independent of CONFIG_CMA. */
#define PBM_MTS								\
	_M(UNMOVABLE,	'U', 0xd55e00, "Unmovable")			\
	_M(MOVABLE,	'm', 0x56b4e9, "Movable")			\
	_M(RECLAIMABLE,	'R', 0xe69f00, "Reclaimable")			\
	_M(HIGHATOMIC,	'A', 0xcc79a7, "HighAtomic")			\
	_M(CMA,		'C', 0x009e73, "CMA")				\
	_M(ISOLATE,	'I', 0xf0e442, "Isolate")

#define _M(c, ch, rgb, s) PBM_MT_##c,
enum pbm_mt { PBM_MTS PBM_NR_MT, PBM_MT_NONE = 7 };
#undef _M

const char *pbm_content_name(enum pbm_content c);
const char *pbm_content_text(enum pbm_content c);	/* one line for legends */
const char *pbm_mt_name(enum pbm_mt t);
/* Character and 0xRRGGBB colour of a class and of a migratetype (PBM_MT_NONE: ' ', white). */
char pbm_content_char(enum pbm_content c);
uint32_t pbm_content_rgb(enum pbm_content c);
char pbm_mt_char(enum pbm_mt t);
uint32_t pbm_mt_rgb(enum pbm_mt t);

#define PBM_CONTENT(cell)	((enum pbm_content)((cell) & 0x0f))
#define PBM_MT(cell)		((enum pbm_mt)(((cell) >> 4) & 0x07))
#define PBM_CELL(content, mt)	((uint8_t)((content) | ((mt) << 4)))

#define PBM_ROW_PAGES	((uint64_t)262144)	/* 1 GiB of 4 KiB pages */

struct pbm_geometry {
	uint64_t base_pfn;		/* first pfn of the first row */
	unsigned int pb_pages;		/* pages per pageblock */
	unsigned int row_pb;		/* pageblocks per row */
	unsigned int nr_rows;
	uint64_t nr_pb;			/* nr_rows * row_pb */
};

/*
 * Page counts of a pageblock, from the model's pageblock counters (MODEL_PBC_*): the
 * numbers the report's hover shows for every pageblock. Pages not counted are holes.
 */
#define PBM_COUNTS							\
	_N(FREE, "free")		/* buddy and per-cpu lists */	\
	_N(MOVABLE, "movable")		/* in use, migratable (hugetlb too) */ \
	_N(UNMOVABLE, "unmovable")	/* in use, unmovable or reclaimable */ \
	_N(RESERVED, "reserved")					\
	_N(UNKNOWN, "unknown")		/* in use or pcp, cannot tell */ \
	_N(UNINIT, "uninit")

#define _N(c, s) PBM_N_##c,
enum pbm_count { PBM_COUNTS PBM_NR_COUNT };
#undef _N
const char *pbm_count_name(enum pbm_count c);
/* The PBM_NR_COUNT counts of the pageblock [@pfn, @pfn + pb_pages) (all 0: no zone
 * meets it, every page a hole). Return: 0, or a negative bc_err. */
int pbm_counts(const struct model *m, uint64_t pfn, unsigned int pb_pages,
	       uint16_t out[PBM_NR_COUNT]);
/* The count a page class (pbm_pages()) falls in, -1 for a hole. */
int pbm_count_of_class(enum pbm_content c);

/*
 * A growing byte buffer for the compact encodings below. Numbers are unsigned LEB128
 * varints (7 bits a byte, low bits first, the top bit set on every byte but the last).
 */
struct pbm_buf {
	uint8_t *p;
	size_t len, cap;
};
/* Return: 0, or -BC_E_NOMEM. */
int pbm_buf_varint(struct pbm_buf *b, uint64_t v);
void pbm_buf_free(struct pbm_buf *b);

/*
 * What pbm_fill_all() encodes besides the cells (either may be NULL):
 * @counts  every pageblock's PBM_NR_COUNT counts, run-length encoded over pageblocks:
 *          repeated (varint repeat, then the PBM_NR_COUNT counts as varints), the
 *          repeats adding up to g->nr_pb;
 * @runs    every page's class (enum pbm_content, as pbm_pages() gives it), run-length
 *          encoded over the whole map (runs cross pageblocks): repeated varint
 *          (length << 4 | class), the lengths adding up to g->nr_pb * g->pb_pages.
 */
struct pbm_extra {
	struct pbm_buf *counts;
	struct pbm_buf *runs;
};

/* The rows covering @m's zones. Return: 0, or -BC_E_INVAL (no zones). */
int pbm_geometry(const struct model *m, struct pbm_geometry *g);

/*
 * Fill @cells (g->nr_pb bytes) with the cell of every pageblock of @g, as @m has it
 * now. Return: 0, or a negative bc_err.
 */
int pbm_fill(const struct model *m, const struct pbm_geometry *g, uint8_t *cells);
/* pbm_fill(), and what @x asks for appended to its buffers. */
int pbm_fill_all(const struct model *m, const struct pbm_geometry *g, uint8_t *cells,
		 const struct pbm_extra *x);

/*
 * The class of each page of [@pfn, @pfn + @n) into @out (one enum pbm_content per
 * byte, no migratetype): the zoom into a pageblock. In-use pages are classed as the
 * model's pageblock counters class them (movable kinds and hugetlb apart).
 * Return: 0, or a negative bc_err.
 */
int pbm_pages(const struct model *m, uint64_t pfn, unsigned int n, uint8_t *out);

/*
 * The cell standing for @n cells (a character of a narrow map): the highest content
 * class among them, and the migratetype most in a big chunk's way (any other type
 * over Movable, Movable over none).
 */
uint8_t pbm_merge(const uint8_t *cells, unsigned int n);

#endif
