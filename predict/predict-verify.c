// SPDX-License-Identifier: GPL-2.0
/*
 * predict-verify: every real attempt of a capture against the prediction made from
 * the model state just before it.
 *
 * Attempts come from two places: the probes table (record --probe / --probe-offline,
 * placed in the trace by their begin markers) and rp_attempts() (test_pages_isolated
 * of any alloc_contig_range() user, and memory offline passes). Each is predicted in
 * the before_event hook of the event it begins at (snapshots ending there are scored
 * and resynchronised by then), leaving out the isolation replay has just applied for
 * a real attempt beginning at that event. Pages that an attempt failed on are
 * remembered as likely pinned for the later ones (attempt_end; offline probes whose
 * migrations failed, predict-pins.c). The replay hooks are predict-ctx.c's
 * pr_feed_run().
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-trace.h"
#include "predict/predict-local.h"
#include "replay/replay.h"

static const char *const vk_names[PR_NR_VK] = { "hugetlb_1g", "offline", "trace_attempt" };

const char *pr_attempt_class_name(enum pr_attempt_class k)
{
	return k < PR_NR_VK ? vk_names[k] : "?";
}

struct vctx {
	struct pr_ctx *c;
	struct replay *rp;
	enum pr_policy policy;
	struct pr_verify *v;
	unsigned int next;		/* next item to predict (items sorted by seq) */
};

static int item_cmp(const void *a, const void *b)
{
	const struct pr_verify_item *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static int grow(struct pr_verify *v, unsigned int *cap)
{
	if (v->nr == *cap) {
		unsigned int n = *cap ? 2 * *cap : 16;
		struct pr_verify_item *g = realloc(v->items, n * sizeof(*g));

		if (!g)
			return bc_error(BC_E_NOMEM, "verify: out of memory");
		v->items = g;
		*cap = n;
	}
	memset(&v->items[v->nr], 0, sizeof(v->items[0]));
	v->items[v->nr].p_pfn = UINT64_MAX;
	v->items[v->nr].k_pfn = UINT64_MAX;
	v->items[v->nr].probe_id = -1;
	return 0;
}

/* seq/ts of the marker "bigchunk probe ID KIND WHAT" (first match). */
static bool probe_marker(struct tdb *db, int64_t id, const char *kind, const char *what,
			 uint64_t *seq, uint64_t *ts)
{
	char prefix[128];

	snprintf(prefix, sizeof(prefix), "bigchunk probe %" PRId64 " %s %s ", id, kind, what);
	return tdb_marker_find(db, prefix, false, seq, ts) == 1;
}

/* The pages a hugetlb_1g probe obtained: at most @it->k_nr. */
static int probe_ranges(struct tdb *db, const struct tdb_probe *p, struct pr_verify_item *it)
{
	uint64_t *pfns;
	int n, ret;

	it->k_nr = (unsigned int)p->obtained;
	it->k_ranges = calloc(it->k_nr + 1, sizeof(uint64_t));
	if (!it->k_ranges)
		return bc_error(BC_E_NOMEM, "verify: out of memory");
	ret = tdb_probe_pages(db, p->id, &pfns, &n);
	if (ret) {
		free(it->k_ranges);
		it->k_ranges = NULL;
		return ret;
	}
	if ((unsigned int)n < it->k_nr)
		it->k_nr = (unsigned int)n;
	if (it->k_nr)
		memcpy(it->k_ranges, pfns, it->k_nr * sizeof(*pfns));
	free(pfns);
	return 0;
}

/*
 * offline_pages() (mm/memory_hotplug.c) first disables the zone's pcp lists
 * (zone_pcp_disable(): __drain_all_pages() run by the offlining task), then isolates:
 * has_unmovable_pages() sees the state after that drain, where a seeded flags-0 page
 * the drain did not free is a kernel page in use, not a pcp page. The drain is the
 * kernel's own first step from the state the attempt began in; its events say which
 * pages were on the lists then (state, not outcome). Apply the first run of
 * mm_page_pcpu_drain of one task in [@it->seq, @it->seq_end) and the drain's
 * conclusion to @V's model, inside a checkpoint the caller rolls back.
 */
static int apply_own_drain(struct vctx *V, const struct pr_verify_item *it)
{
	const struct tr_decoder *d = rp_decoder(V->rp);
	struct model *m = V->c->m;
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	int32_t pid = -1;
	uint64_t nr = 0;
	int ret = 0;

	if (it->seq_end > it->seq &&
	    !tdb_cursor_open(rp_tdb(V->rp), it->seq, it->seq_end, &cur)) {
		while (!ret && tdb_cursor_next(cur, &raw) == 1) {
			bool drain = tr_decoder_kind(d, raw.type) == TR_EV_PCPU_DRAIN;

			if (pid < 0 && drain)
				pid = raw.pid;
			if (pid < 0 || raw.pid != pid)
				continue;
			if (!drain)
				break;
			tr_decode(d, &raw, &ev);
			if (ev.pfn != UINT64_MAX && ev.order < 40)
				ret = model_pcpu_drain(m, ev.pfn, ev.order, ev.mt, ev.cpu);
		}
		tdb_cursor_close(cur);
	}
	if (ret < 0)
		return ret;
	return model_zone_pcp_drained(m, it->start_pfn, &nr);
}

static int load_probes(struct vctx *V, unsigned int *cap)
{
	struct tdb *db = rp_tdb(V->rp);
	struct pr_verify *v = V->v;
	struct tdb_probe *p;
	int n, i, ret;

	ret = tdb_probes(db, &p, &n);
	for (i = 0; !ret && i < n; i++) {
		bool huge = !strcmp(p[i].kind, "hugetlb_1g");
		struct pr_verify_item *it;
		uint64_t seq, ts, eseq, ets;

		if (!huge && (strcmp(p[i].kind, "offline") || p[i].start_pfn < 0))
			continue;
		if (!probe_marker(db, p[i].id, p[i].kind, "begin", &seq, &ts))
			continue;	/* not placed in the trace (no markers) */
		ret = grow(v, cap);
		if (ret)
			break;
		it = &v->items[v->nr];
		it->kind = huge ? PR_VK_HUGETLB_1G : PR_VK_OFFLINE;
		it->probe_id = p[i].id;
		it->seq = seq;
		it->ts = ts;
		it->k_success = p[i].success;
		snprintf(it->k_culprit, sizeof(it->k_culprit), "%s", p[i].culprit);
		if (p[i].culprit_pfn >= 0)
			it->k_pfn = (uint64_t)p[i].culprit_pfn;
		if (huge) {
			it->start_pfn = (uint64_t)p[i].requested;	/* K asked for, kept in start_pfn */
			it->end_pfn = 0;
			ret = probe_ranges(db, &p[i], it);
			if (ret)
				break;
		} else {
			it->start_pfn = (uint64_t)p[i].start_pfn;
			it->end_pfn = (uint64_t)p[i].end_pfn;
			if (probe_marker(db, p[i].id, p[i].kind, "end", &eseq, &ets)) {
				it->seq_end = eseq;
				/* the evidence of a pin (predict-pins.c learns the pins) */
				if (!it->k_success)
					it->k_migrate_failed = pr_migrate_failed(V->c, seq, eseq);
			}
		}
		v->nr++;
	}
	free(p);
	return ret;
}

static int load_attempts(struct vctx *V, unsigned int *cap)
{
	const struct tr_attempt *a;
	int n, i, ret;

	a = rp_attempts(V->rp, &n);
	for (i = 0; i < n; i++) {
		struct pr_verify_item *it;

		if (a[i].from_probe)
			continue;	/* verified as its probe */
		ret = grow(V->v, cap);
		if (ret)
			return ret;
		it = &V->v->items[V->v->nr++];
		it->kind = PR_VK_TRACE;
		it->seq = a[i].seq_begin;
		it->ts = a[i].ts_begin;
		it->start_pfn = a[i].start_pfn;
		it->end_pfn = a[i].end_pfn;
		it->k_success = a[i].success;
		if (!a[i].success) {
			it->k_pfn = a[i].fin_pfn;
			it->k_migrate_failed = pr_migrate_failed(V->c, a[i].seq_begin,
								 a[i].seq_test);
		}
		snprintf(it->k_culprit, sizeof(it->k_culprit), "%s",
			 a[i].kind == TR_ATTEMPT_OFFLINE ? "offline test" : "alloc_contig test");
		/* offline attempts are predicted with offline_pages() semantics */
		it->offline_semantics = a[i].kind == TR_ATTEMPT_OFFLINE;
		/* offline_pages() drains before it isolates (apply_own_drain()) */
		if (it->offline_semantics)
			it->seq_end = a[i].seq_end + 1;
	}
	return 0;
}

static bool same_ranges(const uint64_t *a, unsigned int na, const uint64_t *b, unsigned int nb)
{
	return na == nb && (!na || !memcmp(a, b, na * sizeof(*a)));
}

/* Is there an allocation of @pfn in the trace from @seq on, within @window_ns of @ts? */
#define RACE_WINDOW_NS	10000000000ull	/* an offline probe's limit is seconds */
static bool allocated_after(struct replay *rp, uint64_t pfn, uint64_t seq, uint64_t ts)
{
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	bool found = false;

	if (!rp || tdb_cursor_open(rp_tdb(rp), seq, UINT64_MAX, &cur))
		return false;
	while (!found && tdb_cursor_next(cur, &raw) == 1 && raw.ts < ts + RACE_WINDOW_NS) {
		tr_decode(rp_decoder(rp), &raw, &ev);
		if ((ev.kind == TR_EV_PAGE_ALLOC || ev.kind == TR_EV_ZONE_LOCKED) &&
		    ev.pfn != UINT64_MAX && ev.order < 40 && ev.pfn <= pfn &&
		    pfn < ev.pfn + (1ull << ev.order))
			found = true;
	}
	tdb_cursor_close(cur);
	return found;
}

/*
 * Could the kernel's outcome at @pfn hinge on state the capture cannot show, or that
 * did not exist yet when the attempt began? A pin on an LRU page, the refcount of a
 * page of unknown use, or a page free then and allocated (as the trace shows) while
 * the attempt ran, before isolation reached its pageblock. Return: what, or NULL.
 */
static const char *invisible_at(struct vctx *V, const struct pr_verify_item *it, uint64_t pfn)
{
	struct model_pfn_info pi;
	struct pr_ctx *c = V->c;

	if (pfn == UINT64_MAX || model_pfn_info(c->m, pfn, &pi))
		return NULL;
	/* touched by a lost-event window (seeded flags-0 pages are uncertain anyway) */
	if (pi.uncertain && !pi.seeded)
		return PR_LOST;
	if ((pi.state == MODEL_PFN_BUDDY || pi.state == MODEL_PFN_PCP) &&
	    allocated_after(V->rp, pfn, it->seq, it->ts))
		return PR_RACE;
	if (pi.state != MODEL_PFN_ALLOC)
		return NULL;
	if (pi.kind == MODEL_KIND_SLAB && !pi.order && c->slab_passes)
		return PR_SLAB_RULE;	/* pr_learn_slab_rule() */
	if (pi.kind == MODEL_KIND_UNKNOWN && pi.mt < 0)
		return "refcount";
	if (pi.kind == MODEL_KIND_ANON || pi.kind == MODEL_KIND_FILE ||
	    pi.kind == MODEL_KIND_THP || (pi.kind == MODEL_KIND_UNKNOWN && pi.mt == 1))
		return "pin";
	return NULL;
}

/*
 * The model stopped at @pfn before the kernel's culprit: the kernel passed it. When the
 * model knows the page only from its allocation (kind unknown: no snapshot since), what
 * it became is not in the trace: an unmovable-type allocation may be page cache of a
 * non-movable mapping (buffer cache: GFP_NOFS | __GFP_NOFAIL | __GFP_HARDWALL), which
 * goes on the LRU and which has_unmovable_pages() passes. Return: what, or NULL.
 */
static const char *invisible_use_at(struct vctx *V, uint64_t pfn)
{
	struct model_pfn_info pi;

	if (pfn == UINT64_MAX || model_pfn_info(V->c->m, pfn, &pi))
		return NULL;
	return pi.state == MODEL_PFN_ALLOC && pi.kind == MODEL_KIND_UNKNOWN ?
	       "use after allocation" : NULL;
}

/* The question that predicts @it. Return: false for an item of no known kind. */
static bool item_question(const struct vctx *V, const struct pr_verify_item *it,
			  struct pr_opts *o)
{
	*o = (struct pr_opts){ .policy = PR_POLICY_MAINLINE, .align_order = -1, .count = 1 };
	switch (it->kind) {
	case PR_VK_HUGETLB_1G:
		o->policy = V->policy;
		o->nr_pages = 262144;
		o->count = (unsigned int)it->start_pfn;
		return true;
	case PR_VK_OFFLINE:
	case PR_VK_TRACE:
		o->offline = it->kind == PR_VK_OFFLINE || it->offline_semantics;
		o->has_range = true;
		o->range_start = it->start_pfn;
		o->range_end = it->end_pfn;
		o->nr_pages = it->end_pfn - it->start_pfn;
		return true;
	default:
		return false;
	}
}

/* A hugetlb probe: the same pages obtained, in the same order, as the kernel's. */
static void compare_pages(struct pr_verify_item *it, unsigned int count)
{
	unsigned int k;

	it->p_success = it->p_nr == count;
	it->agree = same_ranges(it->p_ranges, it->p_nr, it->k_ranges, it->k_nr);
	if (it->agree)
		return;
	for (k = 0; k < it->p_nr && k < it->k_nr && it->p_ranges[k] == it->k_ranges[k]; k++)
		;
	if (it->p_nr > it->k_nr && k == it->k_nr)
		snprintf(it->why, sizeof(it->why), "predicted %u pages, the kernel got %u: "
			 "page %u predicted at %#" PRIx64, it->p_nr, it->k_nr, k + 1,
			 it->p_ranges[k]);
	else if (it->p_nr < it->k_nr && k == it->p_nr)
		snprintf(it->why, sizeof(it->why), "predicted %u pages, the kernel got %u: "
			 "page %u landed at %#" PRIx64, it->p_nr, it->k_nr, k + 1,
			 it->k_ranges[k]);
	else
		snprintf(it->why, sizeof(it->why), "page %u: predicted %#" PRIx64
			 ", the kernel %#" PRIx64, k + 1,
			 k < it->p_nr ? it->p_ranges[k] : 0,
			 k < it->k_nr ? it->k_ranges[k] : 0);
	/* more predicted than obtained, and the extra one needed migration */
	if (it->p_nr > it->k_nr && (it->p_assumptions & PR_ASSUME_MOVABLE_UNPINNED))
		it->invisible = "pin";
}

/*
 * The kernel's culprit is a page its migrations failed on, and the model failed on a
 * pin too with this page among its pins: the same failure. Which of the pinned pages
 * offline_pages() names is up to the printk rate limit of do_migrate_range().
 */
static bool pinned_culprit(struct vctx *V, const struct pr_verify_item *it)
{
	struct model_pfn_info pi;
	uint64_t pin;

	return !strcmp(it->k_culprit, "migration failed") &&
	       (it->p_assumptions & (PR_ASSUME_LIKELY_PINNED | PR_ASSUME_PIN_SIBLING |
				     PR_ASSUME_SNAPSHOT_PIN)) &&
	       !model_pfn_info(V->c->m, it->k_pfn, &pi) &&
	       pr_pinned_in(V->c, pi.head, pi.head + (1ull << pi.order), &pin);
}

/* An attempt on a range: the same outcome, and for a failure the same pfn. */
static void compare_range(struct vctx *V, struct pr_verify_item *it, bool p_success)
{
	it->p_success = p_success;
	if (it->p_success != it->k_success) {
		it->agree = false;
		snprintf(it->why, sizeof(it->why), "predicted %s%s%s, the kernel %s",
			 it->p_success ? "success" : "failure", it->p_reason[0] ? ": " : "",
			 it->p_reason, it->k_success ? "succeeded" : "failed");
		if (it->p_success && !it->k_success) {
			if (!strcmp(it->k_culprit, "migration failed") ||
			    !strcmp(it->k_culprit, "timeout"))
				it->invisible = "pin";
			else
				it->invisible = invisible_at(V, it, it->k_pfn);
		}
	} else if (!it->k_success && it->k_pfn != UINT64_MAX && it->p_pfn != it->k_pfn &&
		   !pinned_culprit(V, it)) {
		it->agree = false;
		snprintf(it->why, sizeof(it->why), "both fail; predicted at pfn %#" PRIx64
			 " (%s), the kernel at %#" PRIx64 " (%s)", it->p_pfn, it->p_reason,
			 it->k_pfn, it->k_culprit);
		it->invisible = invisible_at(V, it, it->k_pfn);
		if (!it->invisible && it->p_pfn < it->k_pfn)
			it->invisible = invisible_use_at(V, it->p_pfn);
	} else {
		it->agree = true;
	}
}

static int predict_item(struct vctx *V, struct pr_verify_item *it, const struct tr_event *ev)
{
	struct pr_answer *ans = NULL;
	unsigned int nr = 0, i;
	struct pr_opts o;
	int ret = 0;

	if (!item_question(V, it, &o))
		return 0;
	if (it->seq_end) {
		/* what its isolation saw: after its own drain (rolled back after asking) */
		ret = model_checkpoint(V->c->m);
		if (ret)
			return ret;
		ret = apply_own_drain(V, it);
		pr_touch_all(V->c);
	}
	if (!ret && ev)
		ret = pr_ask_before(V->c, &o, ev, &ans, &nr);
	else if (!ret)
		ret = pr_ask(V->c, &o, it->seq, it->ts, &ans, &nr);
	if (it->seq_end) {
		int r = model_rollback(V->c->m);

		pr_touch_all(V->c);
		ret = ret ? ret : r;
	}
	if (ret) {
		pr_answers_free(ans, nr);
		return ret;
	}
	it->p_ranges = calloc(nr + 1, sizeof(uint64_t));
	if (!it->p_ranges) {
		pr_answers_free(ans, nr);
		return bc_error(BC_E_NOMEM, "verify: out of memory");
	}
	for (i = 0; i < nr; i++) {
		it->p_assumptions |= ans[i].assumptions;
		if (ans[i].success) {
			it->p_ranges[it->p_nr++] = ans[i].start_pfn;
		} else if (ans[i].has_blocker) {
			it->p_pfn = ans[i].blocker.pfn;
			snprintf(it->p_reason, sizeof(it->p_reason), "%s", ans[i].blocker.reason);
		}
	}
	if (it->kind == PR_VK_HUGETLB_1G)
		compare_pages(it, o.count);
	else
		compare_range(V, it, nr && ans[0].success);
	if (it->invisible && !strcmp(it->invisible, PR_RACE)) {
		size_t l = strlen(it->why);

		snprintf(it->why + l, sizeof(it->why) - l, "; allocated while the attempt ran");
	} else if (it->invisible && !strcmp(it->invisible, "pin")) {
		size_t l = strlen(it->why);

		/* the evidence: mm_migrate_pages failures, or none (the pin stayed unseen) */
		if (it->k_migrate_failed)
			snprintf(it->why + l, sizeof(it->why) - l, "; its migrations failed on "
				 "%" PRIu64 " pages (mm_migrate_pages)", it->k_migrate_failed);
		else
			snprintf(it->why + l, sizeof(it->why) - l, "; no failed migration traced");
		/* what the snapshot's reader could have seen: io_uring registered buffers */
		l = strlen(it->why);
		snprintf(it->why + l, sizeof(it->why) - l, V->c->seen_listed ?
			 "; no io_uring registered buffer the snapshot lists (vfio, RDMA, ...)" :
			 "; the snapshot lists no long-term pins (taken without longterm_pins)");
	}
	it->depends_on_pins = it->invisible != NULL;
	pr_answers_free(ans, nr);
	return 0;
}

/* Predict every item due before the event @seq (state: everything before it);
 * @ev: that event (from before_event), NULL at the end of the trace. */
static int due(struct vctx *V, uint64_t seq, const struct tr_event *ev)
{
	struct pr_verify *v = V->v;
	int ret;

	while (V->next < v->nr && v->items[V->next].seq <= seq) {
		ret = predict_item(V, &v->items[V->next], ev);
		if (ret)
			return ret;
		V->next++;
	}
	return 0;
}

static int verify_before(void *arg, const struct tr_event *ev)
{
	struct vctx *V = arg;

	if (V->next < V->v->nr && V->v->items[V->next].seq <= ev->seq)
		return due(V, ev->seq, ev);
	return 0;
}

int pr_verify_run(struct replay *rp, enum pr_policy policy, struct pr_verify *out)
{
	struct vctx V = { .rp = rp, .policy = policy, .v = out };
	struct pr_feed f = { .before = verify_before, .arg = &V };
	unsigned int cap = 0, i;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = pr_create(rp, &V.c);
	if (ret)
		return ret;
	ret = load_probes(&V, &cap);
	if (!ret)
		ret = load_attempts(&V, &cap);
	if (ret)
		goto out;
	if (out->nr)
		qsort(out->items, out->nr, sizeof(out->items[0]), item_cmp);
	f.c = V.c;
	ret = pr_feed_run(rp, &f);
	if (ret)
		goto out;
	/* items after the last event: the final state */
	ret = due(&V, UINT64_MAX, NULL);
	if (ret)
		goto out;
	for (i = 0; i < out->nr; i++) {
		struct pr_verify_item *it = &out->items[i];

		out->by_kind[it->kind][0]++;
		out->by_kind[it->kind][1] += it->agree;
		out->agree += it->agree;
		if (it->depends_on_pins) {
			out->pin_dependent++;
			out->pin_dependent_agree += it->agree;
		}
	}
out:
	pr_destroy(V.c);
	if (ret)
		pr_verify_release(out);
	return ret;
}

void pr_verify_release(struct pr_verify *v)
{
	unsigned int i;

	for (i = 0; i < v->nr; i++) {
		free(v->items[i].k_ranges);
		free(v->items[i].p_ranges);
	}
	free(v->items);
	memset(v, 0, sizeof(*v));
}
