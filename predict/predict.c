// SPDX-License-Identifier: GPL-2.0
/*
 * predict: the words of an answer (policies, verdicts, assumptions) and the check of a
 * question (struct pr_opts); see predict.h. The work is done by the other files of
 * predict/:
 *
 *   predict-ctx.c     the context that follows a replay: allocation seqs, pins, feed
 *   predict-lru.c     user pages waiting in per-cpu LRU batches (from snapshots)
 *   predict-range.c   one hypothetical alloc_contig_range() on a range, and its verdict
 *   predict-search.c  the candidate ranges of each policy, in the kernel's order
 *   predict-ask.c     a question: K allocations in a row, the blocker of a failure
 *   predict-index.c   the cheap per-pageblock index for asking at every event
 *   predict-run.c     the driver: where to ask in a capture, and storing the run
 *   predict-verify.c  every real attempt against its prediction
 *   predict-store.c   the result tables
 */
#include <inttypes.h>
#include <string.h>

#include "common/err.h"
#include "predict/predict.h"

#define _V(v, s) [PR_V_##v] = s,
static const char *const verdict_names[] = { PR_VERDICTS };
#undef _V

const char *pr_verdict_name(enum pr_verdict v)
{
	return v < PR_NR_VERDICTS ? verdict_names[v] : "?";
}

const char *pr_policy_name(enum pr_policy p)
{
	return p == PR_POLICY_V4 ? "v4" : "mainline";
}

int pr_policy_parse(const char *s, enum pr_policy *p)
{
	if (!strcmp(s, "mainline"))
		*p = PR_POLICY_MAINLINE;
	else if (!strcmp(s, "v4"))
		*p = PR_POLICY_V4;
	else
		return bc_error(BC_E_INVAL, "policy '%s' is not mainline or v4", s);
	return 0;
}

static const char *const assume_names[PR_NR_ASSUME] = {
	"movable-unpinned", "likely-pinned", "uncertain-pages", "seeded-unknown",
	"v4-undo-quirk", "pin-sibling", "snapshot-pin",
};

static const char *const assume_texts[PR_NR_ASSUME] = {
	"the success migrates in-use pages: long-term pins are invisible to tracepoints, "
	"and snapshots list only io_uring registered buffers (longterm_pins; vfio, RDMA "
	"and other FOLL_LONGTERM pins show nowhere), so a pinned page among them would "
	"make it fail",
	"a page that an earlier real attempt in the capture failed to migrate is taken as "
	"still pinned",
	"some pages of the range lie in lost-event windows: their state is a guess",
	"pages of unknown use from the snapshot (refcount 0 or a driver page) decided it",
	"v4: the seed's undo_isolate_page_range() with a count as end pfn (a no-op) is not "
	"modelled: failed candidates are un-isolated",
	"a page allocated by the same task at the same order as a page that a real attempt "
	"could not migrate is taken as pinned with it (one long-term pinned buffer)",
	"a page the newest snapshot lists in an io_uring registered buffer (longterm_pins) "
	"is taken as pinned until the next snapshot: a registration made or dropped between "
	"two snapshots shows only at the later one",
};

const char *pr_assumption_name(unsigned int bit)
{
	return bit < PR_NR_ASSUME ? assume_names[bit] : "?";
}

const char *pr_assumption_text(unsigned int bit)
{
	return bit < PR_NR_ASSUME ? assume_texts[bit] : "?";
}

int pr_opts_check(const struct pr_opts *o)
{
	if (!o->nr_pages)
		return bc_error(BC_E_INVAL, "the size must be at least one page");
	if (o->has_range && o->range_end <= o->range_start)
		return bc_error(BC_E_INVAL, "empty range [%#" PRIx64 ", %#" PRIx64 ")",
				o->range_start, o->range_end);
	if (o->has_range && !o->offline && o->range_end - o->range_start < o->nr_pages)
		return bc_error(BC_E_INVAL, "the range [%#" PRIx64 ", %#" PRIx64 ") is smaller "
				"than the size (%" PRIu64 " pages)", o->range_start, o->range_end,
				o->nr_pages);
	if (o->align_order > 30)
		return bc_error(BC_E_INVAL, "--align %d is too large", o->align_order);
	if (o->count > 1u << 20)
		return bc_error(BC_E_INVAL, "--count %u is too large", o->count);
	return 0;
}
