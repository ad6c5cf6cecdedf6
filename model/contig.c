// SPDX-License-Identifier: GPL-2.0
/*
 * contig.c - alloc_contig_range() (mm/page_alloc.c) and offline_pages()
 * (mm/memory_hotplug.c) as one sequence of the stages in isolate.c, and
 * pfn_range_valid_contig(). The one implementation: predict's hypothetical attempts,
 * the checkers' checked attempt and the model's own callers all go through
 * model_alloc_contig_range(); replay asks it too, for the model's own verdict on each
 * real attempt (rolled back), then, as the kernel's attempt is spread over its events,
 * follows it through the same stages (model_contig_follow_begin(), the kernel's
 * migration as events, model_contig_commit(), model_contig_follow_end()).
 */
#include <string.h>

#include "model/model-local.h"

/*
 * pfn_range_valid_contig(): per pfn, an online page of the zone of @start that is
 * neither reserved nor (6.10+) hugetlb. offline_pages() asks only for no hole and one
 * zone. Returns the first pfn that fails, or UINT64_MAX.
 */
static uint64_t prescreen(const struct model *m, uint64_t start, uint64_t end, bool offline)
{
	uint32_t s, e, p, zend;
	int zi;

	if (start < m->base || start - m->base >= m->span)
		return start;
	s = (uint32_t)(start - m->base);
	zi = model_idx_zone(m, s);
	if (zi < 0)
		return start;
	zend = m->zones[zi].iend;
	e = end - m->base < zend ? (uint32_t)(end - m->base) : zend;
	for (p = s; p < e; p++) {
		uint32_t w = m->words[p], h;
		unsigned int t = wtag(w), kind;

		if (t == WT_HOLE || (!offline && t == WT_UNINIT))
			return idx_to_pfn(m, p);	/* pfn_to_online_page(), zeroed memmap */
		if (offline)
			continue;
		if (t == WT_BUDDY) {
			p += (1u << (node_of(m, w & W_PAYLOAD)->info & FN_ORDER_MASK)) - 1;
			continue;
		}
		if (t != WT_ALLOC && t != WT_TAIL)
			continue;
		kind = w_kind(w);
		if (kind == MODEL_KIND_RESERVED)
			return idx_to_pfn(m, p);
		if (kind != MODEL_KIND_HUGETLB)
			continue;
		if (m->prof.hugetlb_contig == MODEL_HUGETLB_CONTIG_REJECT)
			return idx_to_pfn(m, p);
		/* 7.0: a second pass takes hugetlb folios smaller than the request */
		if (m->prof.hugetlb_contig == MODEL_HUGETLB_CONTIG_TWO_PASS &&
		    model_find_alloc_head(m, p, &h) &&
		    (1ull << w_order(m->words[h])) >= end - start)
			return idx_to_pfn(m, p);
	}
	return end - m->base > zend ? idx_to_pfn(m, zend) : UINT64_MAX;	/* page_zone() */
}

bool model_range_valid_contig(const struct model *m, uint64_t start, uint64_t end)
{
	return start < end && prescreen(m, start, end, false) == UINT64_MAX;
}

/*
 * isolate_freepages_range() and the split that follows: [s, e) becomes one allocation;
 * free blocks across its edges keep their outside parts on the free lists.
 */
static int take(struct model *m, uint32_t s, uint32_t e, enum model_kind kind)
{
	uint32_t p, n = e - s;
	unsigned int order = 0;

	model_unfree_range(m, s, n);
	if (!(n & (n - 1)) && !(s & (n - 1)))
		while ((1u << order) < n)
			order++;
	if (order > W_ORDER_MASK)
		order = 0;
	for (p = s; p < e; p++)
		if (wtag(m->words[p]) == WT_HOLE)
			return bc_error(BC_E_INVAL, "model: the range [%#llx, %#llx) taken holds "
					"pfn %#llx, a hole (not System RAM, or no memmap)",
					(unsigned long long)idx_to_pfn(m, s),
					(unsigned long long)idx_to_pfn(m, e),
					(unsigned long long)idx_to_pfn(m, p));
	model_write_range(m, s, n, w_alloc(order, IMT_MOVABLE, kind, MODEL_GFP_OTHER, 0),
			  w_tail(IMT_MOVABLE, kind));
	return 0;
}

int model_take_range(struct model *m, uint64_t start, uint64_t end, enum model_kind kind)
{
	uint32_t s, e, p;

	if (!model_range_idx(m, start, end, &s, &e) || (unsigned int)kind >= MODEL_NR_KINDS)
		return model_range_error(m, start, end);
	for (p = s; p < e; p++) {
		unsigned int t = wtag(m->words[p]);

		if (t != WT_BUDDY && t != WT_FREE_TAIL) {
			model_anomaly(m, t == WT_HOLE ? MODEL_ANOM_PFN_OUTSIDE :
				      MODEL_ANOM_TAKE_NOT_FREE, p, 0);
			break;
		}
	}
	return take(m, s, e, kind);
}

const char *model_contig_stage_name(enum model_contig_stage stage)
{
	static const char *const names[] = {
		[MODEL_CONTIG_PRESCREEN] = "pre-screen",
		[MODEL_CONTIG_ISOLATION] = "isolation",
		[MODEL_CONTIG_MIGRATION] = "migration",
		[MODEL_CONTIG_TEST] = "test",
		[MODEL_CONTIG_SUCCESS] = "success",
	};

	return (unsigned int)stage <= MODEL_CONTIG_SUCCESS ? names[stage] : "?";
}

static int decide(struct model_contig_result *res, enum model_contig_stage stage,
		  uint64_t pfn, int ret)
{
	res->stage = stage;
	res->pfn = pfn;
	res->ret = ret;
	return 0;
}

/* start_isolate_page_range(), with the caller's knowledge of refused pages. */
static int isolate(struct model *m, const struct model_contig_req *req,
		   struct model_contig_result *res)
{
	uint64_t busy = UINT64_MAX, fail = UINT64_MAX;
	int ret;

	if (req->unmovable_pfn)
		busy = req->unmovable_pfn(req->arg, req->start, req->end);
	ret = model_isolate_range_flags(m, req->start, req->end, req->mode, req->flags, &fail);
	if (ret && ret != -BC_E_BUSY)
		return ret;
	if (busy < fail) {
		if (!ret)
			model_undo_isolate_range(m, req->start, req->end);
		fail = busy;
		ret = -BC_E_BUSY;
	}
	if (ret)
		decide(res, MODEL_CONTIG_ISOLATION, fail, ret);
	return ret;
}

/*
 * From the pcp drain to test_pages_isolated() on the isolated range: 0 with *res
 * decided (the stage is SUCCESS when the test passed), or an error.
 */
static int migrate_and_test(struct model *m, const struct model_contig_req *req,
			    struct model_contig_result *res)
{
	struct model_migrate_result mr;
	uint64_t pin = UINT64_MAX, fin = UINT64_MAX, outer = req->start;
	uint32_t h;
	int ret;

	model_drain_zone(m, req->start);
	if (req->before_migrate) {
		ret = req->before_migrate(req->arg, m, req->start, req->end, &pin);
		if (ret)
			return ret;
		if (pin != UINT64_MAX)	/* the kernel skips it; the test stops there */
			return decide(res, MODEL_CONTIG_MIGRATION, pin, -BC_E_BUSY);
	}
	ret = model_migrate_range(m, req->start, req->end, &mr);
	res->migrated = mr.migrated;
	res->migrate_failed = mr.failed;
	if (ret == -BC_E_NOMEM)
		return decide(res, MODEL_CONTIG_MIGRATION, mr.first_failed_pfn, ret);
	if (ret)
		return ret;
	/* outer_start = find_large_buddy(start): a free block covering start from below */
	if (model_find_free_head(m, (uint32_t)(req->start - m->base), &h) == WT_BUDDY)
		outer = idx_to_pfn(m, h);
	res->outer_start = outer;
	ret = model_test_pages_isolated(m, outer, req->end, req->mode, &fin);
	if (ret == -BC_E_BUSY)
		return decide(res, MODEL_CONTIG_TEST, fin, ret);
	if (ret)
		return ret;
	return decide(res, MODEL_CONTIG_SUCCESS, UINT64_MAX, 0);
}

/*
 * The range becomes what the attempt made of it: one allocation of req->kind
 * (isolate_freepages_range()), or offline memory (__offline_isolated_pages()).
 */
int model_contig_commit(struct model *m, const struct model_contig_req *req)
{
	if (req->mode == MODEL_ISOLATE_MEM_OFFLINE)
		return model_set_uninit(m, req->start, req->end - req->start);
	return model_take_range(m, req->start, req->end, req->kind);
}

static int check_req(const struct model_contig_req *req, struct model_contig_result *res)
{
	memset(res, 0, sizeof(*res));
	res->pfn = UINT64_MAX;
	res->outer_start = UINT64_MAX;
	if (req->start >= req->end || (unsigned int)req->kind >= MODEL_NR_KINDS)
		return bc_error(BC_E_INVAL, "model: contiguous range [%#llx, %#llx) of kind %d: "
				"empty, or an unknown kind", (unsigned long long)req->start,
				(unsigned long long)req->end, (int)req->kind);
	return 0;
}

int model_alloc_contig_range(struct model *m, const struct model_contig_req *req,
			     struct model_contig_result *res)
{
	uint64_t bad;
	int ret, ret2;

	ret = check_req(req, res);
	if (ret)
		return ret;
	bad = prescreen(m, req->start, req->end, req->mode == MODEL_ISOLATE_MEM_OFFLINE);
	if (bad != UINT64_MAX)
		return decide(res, MODEL_CONTIG_PRESCREEN, bad, -BC_E_BUSY);
	ret = isolate(m, req, res);
	if (ret)
		return ret == -BC_E_BUSY ? 0 : ret;
	ret = migrate_and_test(m, req, res);
	if (!ret && res->stage == MODEL_CONTIG_SUCCESS)
		ret = model_contig_commit(m, req);
	/* undo_isolate_page_range() after every path past the isolation */
	ret2 = model_undo_isolate_range(m, req->start, req->end);
	return ret ? ret : ret2;
}

int model_contig_follow_begin(struct model *m, const struct model_contig_req *req,
			      struct model_contig_result *res)
{
	uint64_t bad, fail = UINT64_MAX;
	int ret;

	ret = check_req(req, res);
	if (ret)
		return ret;
	res->stage = MODEL_CONTIG_SUCCESS;
	bad = prescreen(m, req->start, req->end, req->mode == MODEL_ISOLATE_MEM_OFFLINE);
	if (bad != UINT64_MAX)
		decide(res, MODEL_CONTIG_PRESCREEN, bad, -BC_E_BUSY);
	ret = model_isolate_range_flags(m, req->start, req->end, req->mode, req->flags, &fail);
	if (ret && ret != -BC_E_BUSY)
		return ret;
	res->isolated = !ret;
	if (ret && res->stage == MODEL_CONTIG_SUCCESS)
		decide(res, MODEL_CONTIG_ISOLATION, fail, ret);
	return 0;
}

int model_contig_follow_end(struct model *m, const struct model_contig_req *req,
			    struct model_contig_result *res)
{
	if (!res->isolated)
		return 0;
	res->isolated = false;
	return model_undo_isolate_range(m, req->start, req->end);
}
