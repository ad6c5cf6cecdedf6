// SPDX-License-Identifier: GPL-2.0
/*
 * What the snapshots read of one page: was it mlocked (KPF_MLOCKED) when a snapshot
 * last read it before an event? buddy-sanity asks this of a page allocated again with
 * no free between (checkers/README.md, "mlocked pages reused without a traced free"):
 * on 6.18, mlocked anonymous pages come back to a pcp list with no mm_page_free.
 *
 * A snapshot read the page when the reader passed its chunk: by the seq of the "pages"
 * marker after the chunk's own (the snapshot's end for the last chunk, or for readers
 * that write no markers). The snapshots and their markers are loaded on the first
 * question; would-be violations are rare, so each question reads one pfn.
 */
#include <stdlib.h>

#include "checkers/chk-local.h"
#include "common/err.h"
#include "common/kpageflags.h"
#include "db/tdb-snap.h"
#include "trace/tr-marks.h"

struct chk_read_snap {
	int64_t id;
	uint64_t seq_end, nr_pfns;
	struct tr_pages_mark *marks;
	int nr_marks;
};

struct chk_reads {
	struct chk_read_snap *s;
	int nr;
};

void chk_reads_free(struct chk_reads *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < r->nr; i++)
		free(r->s[i].marks);
	free(r->s);
	free(r);
}

static int reads_load(struct tdb *db, struct chk_reads **out)
{
	struct tdb_snap_info *si;
	struct chk_reads *r;
	int nr, i, ret;

	ret = tdb_snap_list(db, &si, &nr);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (r)
		r->s = calloc(nr + 1, sizeof(*r->s));
	if (!r || !r->s) {
		free(r);
		free(si);
		return bc_error(BC_E_NOMEM, "out of memory");
	}
	for (i = 0; !ret && i < nr; i++) {
		struct chk_read_snap *s = &r->s[r->nr];

		if (!si[i].complete || si[i].seq_end < 0)
			continue;	/* not aligned to the trace: when it read is unknown */
		*s = (struct chk_read_snap){ .id = si[i].id, .seq_end = (uint64_t)si[i].seq_end,
					     .nr_pfns = si[i].nr_pfns };
		ret = tr_pages_marks(db, &si[i], &s->marks, &s->nr_marks);
		if (!ret)
			r->nr++;
	}
	free(si);
	if (ret) {
		chk_reads_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

/* The seq by which snapshot @s had read @pfn. */
static uint64_t read_by(const struct chk_read_snap *s, uint64_t pfn)
{
	int k;

	for (k = 0; k < s->nr_marks; k++)
		if (s->marks[k].pfn > pfn)
			return s->marks[k].seq;
	return s->seq_end;
}

bool chk_read_mlocked(struct chk_ctx *c, uint64_t pfn, uint64_t seq)
{
	const struct chk_read_snap *best = NULL;
	uint64_t best_by = 0, flags;
	int i;

	if (!c->db)
		return false;
	/* A capture the snapshots cannot be read from gives no evidence: the case stays
	 * a violation. */
	if (!c->reads && (c->reads_failed || reads_load(c->db, &c->reads))) {
		c->reads_failed = true;
		return false;
	}
	for (i = 0; i < c->reads->nr; i++) {
		const struct chk_read_snap *s = &c->reads->s[i];
		uint64_t by;

		if (pfn >= s->nr_pfns)
			continue;
		by = read_by(s, pfn);
		if (by <= seq && (!best || by >= best_by)) {
			best = s;
			best_by = by;
		}
	}
	if (!best || tdb_snap_pages_read(c->db, best->id, pfn, 1, &flags, NULL))
		return false;
	return flags & KPF_BIT(KPF_MLOCKED);
}
