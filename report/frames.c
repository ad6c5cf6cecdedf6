// SPDX-License-Identifier: GPL-2.0
/*
 * frames: one replay carries a predict context (pr_feed_run()); at each point the map
 * is filled and the 1 GiB question asked row by row (report/frames.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "predict/predict-run.h"
#include "replay/replay.h"
#include "sim/sim-contig.h"
#include "report/frames.h"

#define FRM_2M_PAGES	512ull		/* 2 MiB of 4 KiB pages */

struct collect {
	const struct frm_opts *o;
	struct replay *rp;
	struct pr_ctx *pc;
	struct frm_set *out;
	unsigned int cap;
	int scores_seen;		/* rp_scores() taken so far; -1: the seed not yet */
	unsigned int next_at;
	uint64_t last_ts;
};

enum pr_verdict frm_row_verdict(const struct frm_frame *f, unsigned int r)
{
	const struct pr_answer *a = &f->rows[r];

	if (!a->nr_cand)
		return PR_V_NOT_TRIED;
	return a->cand[0].verdict;
}

long frm_row_blocker(const struct frm_set *s, const struct frm_frame *f, unsigned int r)
{
	const struct pr_answer *a = &f->rows[r];
	uint64_t pfn = a->has_blocker ? a->blocker.pfn : a->nr_cand ? a->cand[0].pfn : UINT64_MAX;
	uint64_t start = s->g.base_pfn + r * PBM_ROW_PAGES;

	if (a->success || frm_row_verdict(f, r) <= PR_V_INVALID || pfn == UINT64_MAX ||
	    pfn < start || pfn >= start + PBM_ROW_PAGES)
		return -1;
	return (long)((pfn - start) / s->g.pb_pages);
}

/* Largest free order and free pages of every zone, from the buddy's counts. */
static void zone_free(const struct model *m, struct frm_frame *f)
{
	const struct model_layout *l = model_get_layout(m);
	int isolate = model_get_profile(m)->cma ? 5 : 4;	/* trace numbering */
	struct model_zone_stats st;
	unsigned int z, o, t;

	for (z = 0; z < l->nr_zones; z++) {
		f->largest_free[z] = -1;
		if (model_zone_stats(m, z, &st))
			continue;
		f->free_pages[z] = st.free_pages;
		for (o = 0; o <= l->max_page_order && o < 16; o++)
			for (t = 0; t < 8; t++)
				if (st.nr_free[o][t] && (int)t != isolate)
					f->largest_free[z] = (int)o;
	}
}

/*
 * The largest free block of zone @z counting whole free pageblocks (pbm cells) as
 * well: the largest order whose aligned block lies in the zone with every pageblock
 * free, which the buddy cannot show above MAX_PAGE_ORDER. -1: not even a pageblock.
 */
static int aligned_free_order(const struct frm_set *s, const uint8_t *cells, unsigned int z)
{
	const struct model_zone_layout *zl = &s->layout.zones[z];
	unsigned int order = __builtin_ctz(s->g.pb_pages), best = 0;
	uint64_t first = (zl->start_pfn - s->g.base_pfn + s->g.pb_pages - 1) / s->g.pb_pages;
	uint64_t end = (zl->start_pfn + zl->spanned - s->g.base_pfn) / s->g.pb_pages;
	uint64_t n, i, k;
	bool any;

	for (n = 1; n <= end - first && n <= (1ull << 20); n <<= 1, order++) {
		any = false;
		for (i = (first + n - 1) / n * n; !any && i + n <= end; i += n) {
			for (k = 0; k < n && PBM_CONTENT(cells[i + k]) == PBM_FREE; k++)
				;
			any = k == n;
		}
		if (!any)
			break;
		best = order;
	}
	return n == 1 ? -1 : (int)best;
}

/*
 * Ask the 1 GiB question of every row alone (the row as --range), on the state before
 * @ev (NULL: the current state, at the end).
 */
static int ask_rows(struct collect *C, struct frm_frame *f, const struct tr_event *ev)
{
	const struct pbm_geometry *g = &C->out->g;
	struct pr_opts o = { .policy = PR_POLICY_MAINLINE, .nr_pages = PBM_ROW_PAGES,
			     .count = 1, .has_range = true, .align_order = -1 };
	struct pr_answer *a;
	unsigned int r, n;
	int ret;

	f->rows = calloc(g->nr_rows, sizeof(*f->rows));
	if (!f->rows)
		return bc_error(BC_E_NOMEM, "out of memory");
	for (r = 0; r < g->nr_rows; r++) {
		o.range_start = g->base_pfn + r * PBM_ROW_PAGES;
		o.range_end = o.range_start + PBM_ROW_PAGES;
		ret = ev ? pr_ask_before(C->pc, &o, ev, &a, &n) :
			   pr_ask(C->pc, &o, f->seq, f->ts, &a, &n);
		if (ret)
			return ret;
		f->rows[r] = a[0];	/* count 1: one answer */
		free(a);
		f->rows_ok += f->rows[r].success;
	}
	return 0;
}

static int take_frame(struct collect *C, const struct tr_event *ev, const char *label)
{
	struct frm_set *s = C->out;
	struct frm_frame *f;
	struct model *m = rp_model(C->rp);
	unsigned int z;
	int ret;

	if (s->nr == C->cap) {
		unsigned int cap = C->cap ? C->cap * 2 : 8;
		struct frm_frame *g = realloc(s->f, cap * sizeof(*g));

		if (!g)
			return bc_error(BC_E_NOMEM, "out of memory");
		s->f = g;
		C->cap = cap;
	}
	f = &s->f[s->nr++];
	memset(f, 0, sizeof(*f));
	f->seq = ev ? ev->seq : rp_next_seq(C->rp);
	f->ts = ev ? ev->ts : C->last_ts;
	snprintf(f->label, sizeof(f->label), "%s", label);
	f->cells = malloc(s->g.nr_pb);
	if (!f->cells)
		return bc_error(BC_E_NOMEM, "out of memory");
	if (C->o->pages) {
		struct pbm_extra x = { .counts = &f->counts, .runs = &f->runs };

		ret = pbm_fill_all(m, &s->g, f->cells, &x);
	} else {
		ret = pbm_fill(m, &s->g, f->cells);
	}
	if (!ret && C->o->contig_2m)
		ret = sim_contig_count(m, &(const uint64_t){ FRM_2M_PAGES }, &f->contig_2m, 1, NULL);
	if (ret)
		return ret;
	zone_free(m, f);
	for (z = 0; z < s->layout.nr_zones; z++) {
		int o = aligned_free_order(s, f->cells, z);

		if (o > f->largest_free[z])
			f->largest_free[z] = o;
	}
	return ask_rows(C, f, ev);
}

/* Before @ev: the seed, snapshots scored since the last event, times reached. */
static int before(void *arg, const struct tr_event *ev)
{
	struct collect *C = arg;
	const struct rp_score *sc;
	char label[48];
	int n, ret = 0;

	if (C->o->snapshots) {
		if (C->scores_seen < 0) {
			snprintf(label, sizeof(label), "seed #%lld",
				 (long long)rp_seed_snapshot(C->rp));
			ret = take_frame(C, ev, label);
			C->scores_seen = 0;
		}
		sc = rp_scores(C->rp, &n);
		for (; !ret && C->scores_seen < n; C->scores_seen++)
			if (C->scores_seen == n - 1) {
				snprintf(label, sizeof(label), "snapshot #%lld",
					 (long long)sc[n - 1].snap);
				ret = take_frame(C, ev, label);
			}
	}
	for (; !ret && C->next_at < C->o->nr_at && C->o->at_seq[C->next_at] <= ev->seq;
	     C->next_at++)
		ret = take_frame(C, ev, C->o->at_label[C->next_at]);
	C->last_ts = ev->ts;
	return ret;
}

int frm_collect(struct replay *rp, const struct frm_opts *o, struct frm_set *out)
{
	struct collect C = { .o = o, .rp = rp, .out = out, .scores_seen = -1 };
	struct pr_feed feed = { .before = before, .arg = &C };
	int ret;

	memset(out, 0, sizeof(*out));
	ret = pbm_geometry(rp_model(rp), &out->g);
	if (!ret) {
		out->layout = *model_get_layout(rp_model(rp));
		out->has_2m = o->contig_2m;
		ret = pr_create(rp, &C.pc);
	}
	if (!ret) {
		feed.c = C.pc;
		ret = pr_feed_run(rp, &feed);
	}
	if (!ret) {
		/* a snapshot scored after the last event is the end's */
		int n;
		const struct rp_score *sc = rp_scores(rp, &n);
		char label[48] = "end";

		if (o->snapshots && C.scores_seen >= 0 && C.scores_seen < n)
			snprintf(label, sizeof(label), "snapshot #%lld (end)",
				 (long long)sc[n - 1].snap);
		ret = take_frame(&C, NULL, label);
	}
	pr_destroy(C.pc);
	if (ret)
		frm_release(out);
	return ret;
}

void frm_release(struct frm_set *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		free(s->f[i].cells);
		pbm_buf_free(&s->f[i].counts);
		pbm_buf_free(&s->f[i].runs);
		pr_answers_free(s->f[i].rows, s->g.nr_rows);
	}
	free(s->f);
	memset(s, 0, sizeof(*s));
}
