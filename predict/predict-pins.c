// SPDX-License-Identifier: GPL-2.0
/*
 * predict-pins: long-term pins learned from what the trace shows.
 *
 * No tracepoint says that a page is pinned: pin_user_pages(FOLL_LONGTERM) (io_uring
 * fixed buffers, vfio, RDMA) raises a refcount, and for pages already outside
 * ZONE_MOVABLE and CMA check_and_migrate_movable_folios() (mm/gup.c) has nothing to
 * move, so it leaves no event. A pin shows when the kernel tries to migrate the
 * page and fails: migrate_pages() (mm/migrate.c) counts the folio as failed in
 * mm_migrate_pages, and the page stays where it was while the others of its range move.
 *
 *   seen      io_uring registered buffers a snapshot lists (longterm_pins: fdinfo's
 *             buffers, pagemap's pfns): pinned from that snapshot until the next one
 *             (predict-ctx.c pr_refresh_seen_pins(); PR_ASSUME_SNAPSHOT_PIN, since the
 *             registration's own moment is between two snapshots). The rules below
 *             stay for what no snapshot shows (vfio, RDMA, buffers remapped since).
 *
 *   observed  an offline that failed with its migrations failing (offline_pages(),
 *             mm/memory_hotplug.c, migrates every movable page of the block, over and
 *             over until a signal): the user pages (LRU kinds) still in use at its end
 *             did not move, so each is pinned while it stays the same allocation.
 *             Failed offline probes (record --probe-offline) are read from the capture
 *             and learned when the replay passes their end (pr_pins_due()), so every
 *             question asked later sees them, not only predict --verify.
 *   observed  every offline probe, failed or not, drained its zone's pcp lists
 *             (zone_pcp_disable() before isolating): seeded flags-0 pages no drain
 *             freed are kernel pages in use from then on (model_zone_pcp_drained()).
 *   assumed   the other allocations of the task and order of a pinned page still held:
 *             a long-term pin covers a whole user buffer (io_uring_register() pins
 *             every page of each iovec at once; vfio pins a whole DMA mapping), which
 *             that task faulted in together. Marked PR_ASSUME_PIN_SIBLING in answers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-trace.h"
#include "model/model.h"
#include "predict/predict-local.h"
#include "replay/replay.h"
#include "trace/tr-attempt.h"
#include "trace/tr-event.h"

/*
 * Pages a GUP pin can hold: user pages on the LRU (kinds of the snapshot, or of no
 * snapshot since the allocation: movable and THP gfp masks).
 */
static bool user_page(const struct model_pfn_info *pi)
{
	return pi->state == MODEL_PFN_ALLOC &&
	       (pi->kind == MODEL_KIND_ANON || pi->kind == MODEL_KIND_FILE ||
		pi->kind == MODEL_KIND_THP ||
		(pi->kind == MODEL_KIND_UNKNOWN && (pi->gfp_class == MODEL_GFP_USER_MOVABLE ||
						     pi->gfp_class == MODEL_GFP_TRANSHUGE)));
}

uint64_t pr_migrate_failed(struct pr_ctx *c, uint64_t seq_from, uint64_t seq_to)
{
	const struct tr_decoder *d = rp_decoder(c->rp);
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	uint64_t failed = 0;

	if (seq_to <= seq_from || tdb_cursor_open(c->db, seq_from, seq_to, &cur))
		return 0;
	while (tdb_cursor_next(cur, &raw) == 1) {
		if (tr_decoder_kind(d, raw.type) != TR_EV_MIGRATE_END)
			continue;
		tr_decode(d, &raw, &ev);
		/* offlining retries the same pages: the most of one pass, not the sum */
		if ((ev.reason == TR_MR_MEMORY_HOTPLUG || ev.reason == TR_MR_CONTIG_RANGE) &&
		    ev.failed > failed)
			failed = ev.failed;
	}
	tdb_cursor_close(cur);
	return failed;
}

/* The allocation event behind @head (still the same allocation): 0 and *@ev. */
static int alloc_event(struct pr_ctx *c, uint64_t head, struct tr_event *ev,
		       struct bc_event *raw)
{
	uint32_t a = pr_alloc_seq_at(c, head);
	struct tdb_cursor *cur;
	int ret;

	if (!a || a == UINT32_MAX)
		return -BC_E_NOENT;
	ret = tdb_cursor_open(c->db, a - 1, a, &cur);
	if (ret)
		return ret;
	ret = tdb_cursor_next(cur, raw) == 1 ? 0 : -BC_E_NOENT;
	tdb_cursor_close(cur);
	if (!ret)
		tr_decode(rp_decoder(c->rp), raw, ev);
	return ret;
}

#define MAX_PIN_TASKS	8

/* A task and order whose allocations a pin is assumed to cover. */
struct pin_task {
	int pid;
	unsigned int order;
	uint64_t pfn;			/* the pinned allocation itself */
};

/* Add the task of the allocation at @head to @t (at most MAX_PIN_TASKS, no repeats). */
static void add_task(struct pr_ctx *c, uint64_t head, struct pin_task *t, unsigned int *nr)
{
	struct bc_event raw;
	struct tr_event ev;
	unsigned int i;

	if (*nr == MAX_PIN_TASKS || alloc_event(c, head, &ev, &raw) || ev.pid <= 0)
		return;		/* seeded (no task known) or a kernel thread's */
	for (i = 0; i < *nr; i++)
		if (t[i].pid == ev.pid && t[i].order == ev.order)
			return;
	t[(*nr)++] = (struct pin_task){ .pid = ev.pid, .order = ev.order, .pfn = ev.pfn };
}

/* The allocations of @t still held at @seq, noted as assumed pins (one trace pass). */
static unsigned int note_siblings(struct pr_ctx *c, const struct pin_task *t, unsigned int nr,
				  uint64_t seq)
{
	const struct tr_decoder *d = rp_decoder(c->rp);
	struct model_pfn_info pi;
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	unsigned int n = 0, i;

	if (!nr || tdb_cursor_open(c->db, 0, seq, &cur))
		return 0;
	while (tdb_cursor_next(cur, &raw) == 1) {
		if (tr_decoder_kind(d, raw.type) != TR_EV_PAGE_ALLOC)
			continue;
		for (i = 0; i < nr && t[i].pid != raw.pid; i++)
			;
		if (i == nr)
			continue;
		tr_decode(d, &raw, &ev);
		for (i = 0; i < nr && !(t[i].pid == ev.pid && t[i].order == ev.order); i++)
			;
		if (i == nr || ev.pfn == UINT64_MAX || ev.pfn == t[i].pfn ||
		    pr_alloc_seq_at(c, ev.pfn) != ev.seq + 1 ||
		    model_pfn_info(c->m, ev.pfn, &pi) || !user_page(&pi))
			continue;	/* freed since, or not a user page */
		n += pr_note_pin_assumed(c, ev.pfn, seq);
	}
	tdb_cursor_close(cur);
	return n;
}

unsigned int pr_learn_pins(struct pr_ctx *c, uint64_t s, uint64_t e, uint64_t culprit,
			   uint64_t seq, const char *why)
{
	struct pin_task t[MAX_PIN_TASKS];
	struct model_pfn_info pi;
	unsigned int n = 0, nt = 0;
	uint64_t pfn;

	if (culprit != UINT64_MAX && !model_pfn_info(c->m, culprit, &pi) &&
	    pi.state == MODEL_PFN_ALLOC) {
		pr_note_pinned(c, culprit, seq, why);
		if (user_page(&pi))
			add_task(c, pi.head, t, &nt);
		n++;
	}
	for (pfn = s; pfn < e; pfn++) {
		if (model_pfn_info(c->m, pfn, &pi) || !user_page(&pi))
			continue;
		pr_note_pinned(c, pi.head, seq, why);
		add_task(c, pi.head, t, &nt);
		n++;
		if (!pi.seeded && pi.head + (1ull << pi.order) > pfn + 1)
			pfn = pi.head + (1ull << pi.order) - 1;	/* one note per allocation */
	}
	return n + note_siblings(c, t, nt, seq);
}

int pr_load_probe_pins(struct pr_ctx *c)
{
	struct tdb_probe *p;
	int n, i, ret;

	if (!c->db)
		return 0;
	ret = tdb_probes(c->db, &p, &n);
	for (i = 0; !ret && i < n; i++) {
		struct pr_pin_note *g;
		uint64_t seq, eseq, ts;

		if (strcmp(p[i].kind, "offline") || p[i].start_pfn < 0 ||
		    !tr_offline_probe_marker(c->db, p[i].id, "begin", &seq, &ts) ||
		    !tr_offline_probe_marker(c->db, p[i].id, "end", &eseq, &ts))
			continue;
		g = realloc(c->notes, (c->nr_notes + 1) * sizeof(*g));
		if (!g) {
			ret = bc_error(BC_E_NOMEM, "predict: out of memory");
			break;
		}
		c->notes = g;
		g[c->nr_notes++] = (struct pr_pin_note){
			.seq = eseq, .start = (uint64_t)p[i].start_pfn, .end = (uint64_t)p[i].end_pfn,
			.culprit = p[i].culprit_pfn >= 0 ? (uint64_t)p[i].culprit_pfn : UINT64_MAX,
			.pins = !p[i].success && pr_migrate_failed(c, seq, eseq),
		};
	}
	free(p);
	return ret;
}

int pr_pins_due(struct pr_ctx *c, uint64_t seq)
{
	while (c->next_note < c->nr_notes && c->notes[c->next_note].seq <= seq) {
		const struct pr_pin_note *n = &c->notes[c->next_note++];
		uint64_t nr = 0;
		int ret;

		/* offline_pages() drained the zone's pcp lists first (zone_pcp_disable()) */
		ret = model_zone_pcp_drained(c->m, n->start, &nr);
		if (ret)
			return ret;
		if (nr)
			pr_touch_all(c);
		if (n->slab_vote) {
			bool was = c->slab_passes;

			/* what this kernel's has_unmovable_pages() did with slab pages */
			c->slab_votes += n->slab_vote;
			if (c->slab_votes)
				c->slab_passes = c->slab_votes > 0;
			if (c->slab_passes != was)
				pr_touch_all(c);
		}
		if (n->pins)
			pr_learn_pins(c, n->start, n->end, n->culprit, n->seq,
				      "an offline probe could not migrate it");
	}
	return 0;
}
