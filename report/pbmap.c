// SPDX-License-Identifier: GPL-2.0
/*
 * pbmap: one byte per pageblock from the model's pageblock counters, types and the
 * kind of the page at each pageblock's start (report/pbmap.h).
 */
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

int pbm_fill(const struct model *m, const struct pbm_geometry *g, uint8_t *cells)
{
	const struct model_profile *prof = model_get_profile(m);
	struct model_range_counts rc;
	enum pbm_content c;
	enum pbm_mt t;
	uint64_t i, pfn;
	bool isolated;
	int stored, eff, ret;

	for (i = 0; i < g->nr_pb; i++) {
		pfn = g->base_pfn + i * g->pb_pages;
		if (model_pfn_zone(m, pfn) < 0 && model_pfn_zone(m, pfn + g->pb_pages - 1) < 0) {
			cells[i] = PBM_CELL(PBM_HOLE, PBM_MT_NONE);
			continue;
		}
		ret = model_range_counts(m, pfn, pfn + g->pb_pages, &rc);
		if (ret)
			return ret;
		c = content_of(m, pfn, &rc, g->pb_pages);
		t = PBM_MT_NONE;
		if (c != PBM_HOLE && !model_pageblock_mt(m, pfn, &stored, &eff, &isolated))
			t = mt_of(prof, eff, isolated);
		cells[i] = PBM_CELL(c, t);
	}
	return 0;
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
