// SPDX-License-Identifier: GPL-2.0
/*
 * pbmap: one byte per pageblock from the model's pageblock counters, types and the
 * kind of the page at each pageblock's start (report/pbmap.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "model/model.h"
#include "report/pbmap.h"

#define _P(c, ch, rgb, s, d) [PBM_##c] = s,
static const char *const content_names[] = { PBM_CONTENTS };
#undef _P
#define _P(c, ch, rgb, s, d) [PBM_##c] = d,
static const char *const content_texts[] = { PBM_CONTENTS };
#undef _P
#define _P(c, ch, rgb, s, d) [PBM_##c] = ch,
static const char content_chars[] = { PBM_CONTENTS };
#undef _P
#define _P(c, ch, rgb, s, d) [PBM_##c] = rgb,
static const uint32_t content_rgb[] = { PBM_CONTENTS };
#undef _P
#define _M(c, ch, rgb, s) [PBM_MT_##c] = s,
static const char *const mt_names[] = { PBM_MTS };
#undef _M
#define _M(c, ch, rgb, s) [PBM_MT_##c] = ch,
static const char mt_chars[] = { PBM_MTS };
#undef _M
#define _M(c, ch, rgb, s) [PBM_MT_##c] = rgb,
static const uint32_t mt_rgb[] = { PBM_MTS };
#undef _M

char pbm_content_char(enum pbm_content c)
{
	return c < PBM_NR_CONTENT ? content_chars[c] : ' ';
}

uint32_t pbm_content_rgb(enum pbm_content c)
{
	return c < PBM_NR_CONTENT ? content_rgb[c] : 0xffffff;
}

char pbm_mt_char(enum pbm_mt t)
{
	return t < PBM_NR_MT ? mt_chars[t] : ' ';
}

uint32_t pbm_mt_rgb(enum pbm_mt t)
{
	return t < PBM_NR_MT ? mt_rgb[t] : 0xffffff;
}

const char *pbm_content_name(enum pbm_content c)
{
	return c < PBM_NR_CONTENT ? content_names[c] : "?";
}

const char *pbm_content_text(enum pbm_content c)
{
	return c < PBM_NR_CONTENT ? content_texts[c] : "?";
}

const char *pbm_mt_name(enum pbm_mt t)
{
	return t < PBM_NR_MT ? mt_names[t] : "none";
}

int pbm_geometry(const struct model *m, struct pbm_geometry *g)
{
	const struct model_layout *l = model_get_layout(m);
	uint64_t first, end;

	if (!l->nr_zones)
		return bc_error(BC_E_INVAL, "the capture's layout has no zones");
	first = l->zones[0].start_pfn;
	end = l->zones[l->nr_zones - 1].start_pfn + l->zones[l->nr_zones - 1].spanned;
	memset(g, 0, sizeof(*g));
	g->pb_pages = 1u << l->pageblock_order;
	g->base_pfn = first / PBM_ROW_PAGES * PBM_ROW_PAGES;
	g->row_pb = (unsigned int)(PBM_ROW_PAGES / g->pb_pages);
	g->nr_rows = (unsigned int)((end - g->base_pfn + PBM_ROW_PAGES - 1) / PBM_ROW_PAGES);
	g->nr_pb = (uint64_t)g->nr_rows * g->row_pb;
	return 0;
}

/* The model's effective migratetype number as a pbm_mt. */
static enum pbm_mt mt_of(const struct model_profile *p, int mt, bool isolated)
{
	if (isolated)
		return PBM_MT_ISOLATE;
	if (mt >= 0 && mt <= 3)
		return (enum pbm_mt)mt;
	if (mt == 4)
		return p->cma ? PBM_MT_CMA : PBM_MT_ISOLATE;
	return mt == 5 ? PBM_MT_ISOLATE : PBM_MT_NONE;
}

/* What the pageblock at @pfn holds, from its counters (and hugetlb from its head). */
static enum pbm_content content_of(const struct model *m, uint64_t pfn,
				   const struct model_range_counts *rc, unsigned int pb_pages)
{
	const uint64_t *p = rc->pages;
	struct model_pfn_info pi;

	if (p[MODEL_PBC_HOLE] == pb_pages)
		return PBM_HOLE;
	if (rc->isolated_pageblocks)
		return PBM_ISOLATED;
	if (p[MODEL_PBC_UNINIT] && p[MODEL_PBC_UNINIT] + p[MODEL_PBC_HOLE] == pb_pages)
		return PBM_UNINIT;
	if (p[MODEL_PBC_RESERVED])
		return PBM_RESERVED;
	if (p[MODEL_PBC_UNMOVABLE])
		return PBM_UNMOVABLE;
	if (p[MODEL_PBC_UNKNOWN])
		return PBM_UNKNOWN;
	/* hugetlb pool pages count as movable: tell them by the page at the start */
	if (p[MODEL_PBC_MOVABLE] && !model_pfn_info(m, pfn, &pi) &&
	    pi.state == MODEL_PFN_ALLOC && pi.kind == MODEL_KIND_HUGETLB)
		return PBM_HUGETLB;
	if (p[MODEL_PBC_MOVABLE])
		return PBM_MOVABLE;
	if (p[MODEL_PBC_UNINIT])
		return PBM_UNINIT;
	return PBM_FREE;
}

/* One page's class: the kinds the model counts as movable, hugetlb apart. */
static enum pbm_content page_class(const struct model_pfn_info *pi, bool isolated)
{
	switch (pi->state) {
	case MODEL_PFN_HOLE:
		return PBM_HOLE;
	case MODEL_PFN_UNINIT:
		return PBM_UNINIT;
	case MODEL_PFN_BUDDY:
	case MODEL_PFN_PCP:
		return isolated ? PBM_ISOLATED : PBM_FREE;
	default:
		break;
	}
	switch (pi->kind) {
	case MODEL_KIND_RESERVED:
		return PBM_RESERVED;
	case MODEL_KIND_HUGETLB:
		return PBM_HUGETLB;
	case MODEL_KIND_ANON:
	case MODEL_KIND_FILE:
	case MODEL_KIND_THP:
	case MODEL_KIND_OFFLINE:
		return PBM_MOVABLE;
	case MODEL_KIND_UNKNOWN:
		return pi->mt < 0 ? PBM_UNKNOWN : pi->mt == 1 ? PBM_MOVABLE : PBM_UNMOVABLE;
	default:
		return PBM_UNMOVABLE;
	}
}

#define _N(c, s) [PBM_N_##c] = s,
static const char *const count_names[] = { PBM_COUNTS };
#undef _N

const char *pbm_count_name(enum pbm_count c)
{
	return c < PBM_NR_COUNT ? count_names[c] : "?";
}

int pbm_buf_varint(struct pbm_buf *b, uint64_t v)
{
	if (b->cap - b->len < 10) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		uint8_t *p = realloc(b->p, cap);

		if (!p)
			return bc_error(BC_E_NOMEM, "out of memory");
		b->p = p;
		b->cap = cap;
	}
	do {
		b->p[b->len++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return 0;
}

void pbm_buf_free(struct pbm_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* The encoders' state between pageblocks: the pending count tuple and page run. */
struct extra_state {
	const struct pbm_extra *x;
	uint16_t tuple[PBM_NR_COUNT];
	uint64_t repeat;		/* pageblocks with tuple so far */
	enum pbm_content cls;
	uint64_t run;			/* pages of cls so far */
};

static int flush_tuple(struct extra_state *E)
{
	int k, ret;

	if (!E->repeat)
		return 0;
	ret = pbm_buf_varint(E->x->counts, E->repeat);
	for (k = 0; !ret && k < PBM_NR_COUNT; k++)
		ret = pbm_buf_varint(E->x->counts, E->tuple[k]);
	E->repeat = 0;
	return ret;
}

/* The counts of a pageblock from its counters (@rc NULL: no zone meets it). */
static void counts_of(const struct model_range_counts *rc, uint16_t t[PBM_NR_COUNT])
{
	memset(t, 0, PBM_NR_COUNT * sizeof(*t));
	if (!rc)
		return;
	t[PBM_N_FREE] = (uint16_t)(rc->pages[MODEL_PBC_FREE] + rc->pages[MODEL_PBC_PCP]);
	t[PBM_N_MOVABLE] = (uint16_t)rc->pages[MODEL_PBC_MOVABLE];
	t[PBM_N_UNMOVABLE] = (uint16_t)rc->pages[MODEL_PBC_UNMOVABLE];
	t[PBM_N_RESERVED] = (uint16_t)rc->pages[MODEL_PBC_RESERVED];
	t[PBM_N_UNKNOWN] = (uint16_t)rc->pages[MODEL_PBC_UNKNOWN];
	t[PBM_N_UNINIT] = (uint16_t)rc->pages[MODEL_PBC_UNINIT];
}

static bool pb_outside_zones(const struct model *m, uint64_t pfn, unsigned int pb_pages)
{
	return model_pfn_zone(m, pfn) < 0 && model_pfn_zone(m, pfn + pb_pages - 1) < 0;
}

int pbm_counts(const struct model *m, uint64_t pfn, unsigned int pb_pages,
	       uint16_t out[PBM_NR_COUNT])
{
	struct model_range_counts rc;
	int ret;

	pfn -= pfn % pb_pages;
	if (pb_outside_zones(m, pfn, pb_pages)) {
		counts_of(NULL, out);
		return 0;
	}
	ret = model_range_counts(m, pfn, pfn + pb_pages, &rc);
	if (!ret)
		counts_of(&rc, out);
	return ret;
}

int pbm_count_of_class(enum pbm_content c)
{
	switch (c) {
	case PBM_FREE:
	case PBM_ISOLATED:
		return PBM_N_FREE;
	case PBM_MOVABLE:
	case PBM_HUGETLB:
		return PBM_N_MOVABLE;
	case PBM_UNMOVABLE:
		return PBM_N_UNMOVABLE;
	case PBM_RESERVED:
		return PBM_N_RESERVED;
	case PBM_UNKNOWN:
		return PBM_N_UNKNOWN;
	case PBM_UNINIT:
		return PBM_N_UNINIT;
	default:
		return -1;
	}
}

static int put_tuple(struct extra_state *E, const struct model_range_counts *rc)
{
	uint16_t t[PBM_NR_COUNT];
	int ret;

	if (!E->x->counts)
		return 0;
	counts_of(rc, t);
	if (E->repeat && !memcmp(t, E->tuple, sizeof(t))) {
		E->repeat++;
		return 0;
	}
	ret = flush_tuple(E);
	memcpy(E->tuple, t, sizeof(t));
	E->repeat = 1;
	return ret;
}

static int flush_run(struct extra_state *E)
{
	int ret = 0;

	if (E->run)
		ret = pbm_buf_varint(E->x->runs, E->run << 4 | E->cls);
	E->run = 0;
	return ret;
}

static int put_pages(struct extra_state *E, enum pbm_content cls, uint64_t n)
{
	int ret = 0;

	if (E->run && cls != E->cls)
		ret = flush_run(E);
	E->cls = cls;
	E->run += n;
	return ret;
}

/*
 * The pages of the pageblock at @pfn into the run encoder. Pageblocks the counters
 * show all of one state (@rc NULL: outside the zones) need no page walk; elsewhere
 * free blocks are passed over whole (a buddy or pcp block is free page for page).
 */
static int pageblock_runs(struct extra_state *E, const struct model *m, uint64_t pfn,
			  unsigned int pb, const struct model_range_counts *rc, bool isolated)
{
	struct model_pfn_info pi;
	uint64_t p, end = pfn + pb, next;
	int ret;

	if (!rc || rc->pages[MODEL_PBC_HOLE] == pb)
		return put_pages(E, PBM_HOLE, pb);
	if (rc->pages[MODEL_PBC_FREE] + rc->pages[MODEL_PBC_PCP] == pb)
		return put_pages(E, isolated ? PBM_ISOLATED : PBM_FREE, pb);
	if (rc->pages[MODEL_PBC_UNINIT] == pb)
		return put_pages(E, PBM_UNINIT, pb);
	for (p = pfn; p < end; p = next) {
		next = p + 1;
		if (model_pfn_zone(m, p) < 0) {
			ret = put_pages(E, PBM_HOLE, 1);
		} else {
			ret = model_pfn_info(m, p, &pi);
			if (!ret && (pi.state == MODEL_PFN_BUDDY || pi.state == MODEL_PFN_PCP) &&
			    pi.head <= p && pi.head + (1ull << pi.order) > next)
				next = pi.head + (1ull << pi.order) < end ?
				       pi.head + (1ull << pi.order) : end;
			if (!ret)
				ret = put_pages(E, page_class(&pi, isolated), next - p);
		}
		if (ret)
			return ret;
	}
	return 0;
}

int pbm_fill_all(const struct model *m, const struct pbm_geometry *g, uint8_t *cells,
		 const struct pbm_extra *x)
{
	static const struct pbm_extra none;
	const struct model_profile *prof = model_get_profile(m);
	struct extra_state E = { .x = x ? x : &none };
	struct model_range_counts rc;
	enum pbm_content c;
	enum pbm_mt t;
	uint64_t i, pfn;
	bool isolated;
	int stored, eff, ret;

	for (i = 0; i < g->nr_pb; i++) {
		pfn = g->base_pfn + i * g->pb_pages;
		if (pb_outside_zones(m, pfn, g->pb_pages)) {
			cells[i] = PBM_CELL(PBM_HOLE, PBM_MT_NONE);
			ret = put_tuple(&E, NULL);
			if (!ret && E.x->runs)
				ret = pageblock_runs(&E, m, pfn, g->pb_pages, NULL, false);
			if (ret)
				return ret;
			continue;
		}
		ret = model_range_counts(m, pfn, pfn + g->pb_pages, &rc);
		if (ret)
			return ret;
		c = content_of(m, pfn, &rc, g->pb_pages);
		t = PBM_MT_NONE;
		isolated = false;
		if (c != PBM_HOLE && !model_pageblock_mt(m, pfn, &stored, &eff, &isolated))
			t = mt_of(prof, eff, isolated);
		cells[i] = PBM_CELL(c, t);
		ret = put_tuple(&E, &rc);
		if (!ret && E.x->runs)
			ret = pageblock_runs(&E, m, pfn, g->pb_pages, &rc,
					     model_pfn_zone(m, pfn) >= 0 && isolated);
		if (ret)
			return ret;
	}
	ret = E.x->counts ? flush_tuple(&E) : 0;
	return !ret && E.x->runs ? flush_run(&E) : ret;
}

int pbm_fill(const struct model *m, const struct pbm_geometry *g, uint8_t *cells)
{
	return pbm_fill_all(m, g, cells, NULL);
}

int pbm_pages(const struct model *m, uint64_t pfn, unsigned int n, uint8_t *out)
{
	struct model_pfn_info pi;
	bool isolated = false;
	int stored, eff, ret;
	unsigned int i;

	if (model_pfn_zone(m, pfn) >= 0)
		model_pageblock_mt(m, pfn, &stored, &eff, &isolated);
	for (i = 0; i < n; i++) {
		if (model_pfn_zone(m, pfn + i) < 0) {
			out[i] = PBM_HOLE;
			continue;
		}
		ret = model_pfn_info(m, pfn + i, &pi);
		if (ret)
			return ret;
		out[i] = (uint8_t)page_class(&pi, isolated);
	}
	return 0;
}

/* How much a migratetype stands in the way when cells merge: not movable first. */
static int mt_rank(enum pbm_mt t)
{
	return t == PBM_MT_NONE ? 0 : t == PBM_MT_MOVABLE ? 1 : 2 + (int)t;
}

uint8_t pbm_merge(const uint8_t *cells, unsigned int n)
{
	enum pbm_content c = PBM_HOLE;
	enum pbm_mt t = PBM_MT_NONE;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (PBM_CONTENT(cells[i]) > c)
			c = PBM_CONTENT(cells[i]);
		if (mt_rank(PBM_MT(cells[i])) > mt_rank(t))
			t = PBM_MT(cells[i]);
	}
	return PBM_CELL(c, t);
}
