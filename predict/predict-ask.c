// SPDX-License-Identifier: GPL-2.0
/*
 * predict-ask: one question on the current model state: count allocations in a row,
 * each searched by its policy (predict-search.c) and applied to the hypothetical
 * state before the next, stopping at the first failure (as writing K to
 * nr_hugepages does). A failure names the page that decided its best candidate and
 * the allocation event that put it there. The model is left as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-trace.h"
#include "model/model.h"
#include "predict/predict-local.h"
#include "replay/replay.h"

static int read_event(struct pr_ctx *c, uint64_t seq, struct tr_event *ev)
{
	struct tdb_cursor *cur;
	struct bc_event raw;
	int ret;

	ret = tdb_cursor_open(c->db, seq, seq + 1, &cur);
	if (ret)
		return ret;
	ret = tdb_cursor_next(cur, &raw);
	if (ret == 1)
		tr_decode(rp_decoder(c->rp), &raw, ev);
	tdb_cursor_close(cur);
	return ret == 1 ? 0 : -BC_E_NOENT;
}

void pr_describe_blocker(struct pr_ctx *c, uint64_t pfn, const char *reason,
			 struct pr_blocker *b)
{
	struct model_pfn_info pi;
	uint32_t aseq;
	int eff = -1;

	memset(b, 0, sizeof(*b));
	b->pfn = pfn;
	b->reason = reason ? reason : "";
	b->mt = -1;
	b->pageblock_mt = -1;
	if (model_pfn_info(c->m, pfn, &pi))
		return;
	b->state = pi.state;
	b->kind = pi.kind;
	b->head = pi.head;
	b->order = pi.order;
	b->mt = pi.mt;
	b->uncertain = pi.uncertain;
	if (!model_pageblock_mt(c->m, pfn, NULL, &eff, NULL))
		b->pageblock_mt = eff;
	if (pi.state != MODEL_PFN_ALLOC)
		return;
	aseq = pr_alloc_seq_at(c, pi.head);
	b->ev.seq = aseq ? aseq - 1 : 0;
	if (aseq && aseq != UINT32_MAX && c->rp) {
		struct tr_event ev;

		if (!read_event(c, aseq - 1, &ev) && ev.kind == TR_EV_PAGE_ALLOC &&
		    ev.pfn <= pfn && ev.order < 40 && pfn < ev.pfn + (1ull << ev.order)) {
			b->ev.found = true;
			b->ev.seq = ev.seq;
			b->ev.ts = ev.ts;
			b->ev.cpu = ev.cpu;
			b->ev.pid = ev.pid;
			b->ev.order = ev.order;
			b->ev.gfp = ev.gfp;
			b->ev.mt = ev.mt;
			/* names only: the answer stands without them */
			tdb_comm(c->db, ev.pid, b->ev.comm, sizeof(b->ev.comm));
			tdb_stack(c->db, ev.seq, &b->ev.stack);
		}
	}
}

/* ---- questions ------------------------------------------------------------------------ */

void pr_answers_free(struct pr_answer *a, unsigned int nr)
{
	unsigned int i;

	if (!a)
		return;
	for (i = 0; i < nr; i++) {
		free(a[i].cand);
		free(a[i].blocker.ev.stack);
	}
	free(a);
}

/* The offline question: the range itself is the one candidate (offline_pages()). */
static int search_offline(struct pr_ctx *c, const struct pr_opts *o, struct pr_search *S,
			  uint64_t *win_s, uint64_t *win_e)
{
	struct pr_attempt_info ai;
	struct pr_candidate *cd = pr_search_add(S);
	int ret;

	if (!cd)
		return bc_error(BC_E_NOMEM, "predict: out of memory");
	ret = pr_try_range(c, o, o->range_start, o->range_end, cd, &ai);
	if (ret)
		return ret;
	pr_search_note(S, cd, &ai);
	if (cd->verdict == PR_V_SUCCESS) {
		*win_s = o->range_start;
		*win_e = o->range_end;
	}
	return 0;
}

/* A failure: what the candidate that got furthest assumed, and the page that stopped it. */
static void explain_failure(struct pr_ctx *c, const struct pr_search *S, struct pr_answer *a)
{
	const struct pr_candidate *cd;

	if (S->best < 0)
		return;
	cd = &a->cand[S->best];
	a->assumptions = S->best_ai.assumptions;
	if (model_count_uncertain(c->m, cd->start_pfn, cd->end_pfn - cd->start_pfn))
		a->assumptions |= PR_ASSUME_UNCERTAIN;
	if (cd->pfn != UINT64_MAX) {
		a->has_blocker = true;
		pr_describe_blocker(c, cd->pfn, S->best_ai.reason, &a->blocker);
	}
}

/*
 * One allocation of a question: search by the policy and fill @a; with @more, a
 * success is applied to the hypothetical state for the next one.
 * Return: 1 when it succeeded (the next may follow), 0 when the question ends here
 * (the pool stops growing at the first failure), or a negative bc_err.
 */
static int answer_one(struct pr_ctx *c, const struct pr_opts *o, struct pr_answer *a,
		      bool more)
{
	struct pr_search S = { .a = a, .best = -1 };
	uint64_t ws = UINT64_MAX, we = UINT64_MAX;
	int ret;

	if (o->offline)
		ret = search_offline(c, o, &S, &ws, &we);
	else if (o->policy == PR_POLICY_V4)
		ret = pr_search_v4(c, o, &S, &ws, &we);
	else
		ret = pr_search_mainline(c, o, &S, &ws, &we);
	if (ret)
		return ret;
	if (ws == UINT64_MAX) {
		explain_failure(c, &S, a);
		return 0;
	}
	a->success = true;
	a->start_pfn = ws;
	a->end_pfn = we;
	a->migrate_pages = S.win_ai.migrated;
	a->migrate_thp = S.win_ai.thp;
	a->migrate_file = S.win_ai.file;
	a->assumptions = S.win_ai.assumptions;
	if (model_count_uncertain(c->m, ws, we - ws))
		a->assumptions |= PR_ASSUME_UNCERTAIN;
	if (!more)
		return 1;
	ret = pr_apply_success(c, o, ws, we);
	/* > 0: the model's own alloc_contig_range() disagrees: stop */
	return ret < 0 ? ret : !ret;
}

int pr_ask(struct pr_ctx *c, const struct pr_opts *opts, uint64_t at_seq, uint64_t at_ts,
	   struct pr_answer **out, unsigned int *nr)
{
	unsigned int count = opts->count ? opts->count : 1, i;
	struct pr_answer *ans;
	struct pr_opts o = *opts;
	int ret, ret2;

	*out = NULL;
	*nr = 0;
	ret = pr_opts_check(&o);
	if (ret)
		return ret;
	if (o.offline)
		count = 1;
	ans = calloc(count, sizeof(*ans));
	if (!ans)
		return bc_error(BC_E_NOMEM, "predict: out of memory");
	ret = model_checkpoint(c->m);
	if (ret) {
		free(ans);
		return ret;
	}
	c->lru_drained = false;		/* one question: K writes of nr_hugepages in a row */
	for (i = 0; i < count; i++) {
		struct pr_answer *a = &ans[i];

		a->at_seq = at_seq;
		a->at_ts = at_ts;
		a->index = i;
		a->policy = o.policy;
		a->nr_pages = o.nr_pages;
		a->start_pfn = a->end_pfn = UINT64_MAX;
		(*nr)++;
		ret = answer_one(c, &o, a, i + 1 < count);
		if (ret <= 0)
			break;
	}
	if (ret > 0)
		ret = 0;
	ret2 = model_rollback(c->m);
	if (!ret)
		ret = ret2;
	if (ret) {
		pr_answers_free(ans, *nr);
		*nr = 0;
		return ret;
	}
	*out = ans;
	return 0;
}

int pr_ask_before(struct pr_ctx *c, const struct pr_opts *o, const struct tr_event *ev,
		  struct pr_answer **out, unsigned int *nr)
{
	const struct tr_attempt *a;
	int n = 0, i, ret, ret2;

	ret = model_checkpoint(c->m);
	if (ret)
		return ret;
	/* attempt_begin ran just before this event's hooks: the kernel had not yet */
	a = c->rp ? rp_attempts(c->rp, &n) : NULL;
	for (i = 0; i < n; i++)
		if (a[i].seq_begin == ev->seq && rp_attempt_follow(c->rp, i)->isolated)
			model_undo_isolate_range(c->m, a[i].start_pfn, a[i].end_pfn);
	ret = pr_ask(c, o, ev->seq, ev->ts, out, nr);
	ret2 = model_rollback(c->m);
	if (!ret && ret2) {
		pr_answers_free(*out, *nr);
		*out = NULL;
		*nr = 0;
	}
	return ret ? ret : ret2;
}
