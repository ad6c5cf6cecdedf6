// SPDX-License-Identifier: GPL-2.0
/* Lost-event windows and snapshot "pages" markers (see tr-marks.h). */
#include <stdlib.h>

#include "common/err.h"
#include "db/tdb-snap.h"
#include "db/tdb-trace.h"
#include "trace/tr-marks.h"

int tr_lost_windows(struct tdb *db, uint64_t **seqs, int *nr)
{
	struct tdb_lost *l;
	uint64_t *v = NULL;
	int n, i, k = 0, ret;

	*seqs = NULL;
	*nr = 0;
	ret = tdb_lost_list(db, &l, &n);
	if (ret)
		return ret;
	if (n) {
		v = malloc((size_t)n * sizeof(*v));
		if (!v) {
			free(l);
			return bc_error(BC_E_NOMEM, "out of memory");
		}
	}
	for (i = 0; i < n; i++)		/* rows come by seq */
		if (l[i].count != 0)
			v[k++] = l[i].seq;
	free(l);
	*seqs = v;
	*nr = k;
	return 0;
}

int tr_pages_marks(struct tdb *db, const struct tdb_snap_info *s, struct tr_pages_mark **out,
		   int *nr)
{
	struct tr_pages_mark *v = NULL;
	struct tdb_marker *m;
	int n, i, k = 0, ret;

	*out = NULL;
	*nr = 0;
	if (s->seq_begin < 0 || s->seq_end < 0)
		return 0;
	ret = tdb_markers(db, (uint64_t)s->seq_begin, (uint64_t)s->seq_end,
			  SNAP_MARKER_PAGES_LIKE, &m, &n);
	if (ret)
		return ret;
	if (n) {
		v = malloc((size_t)n * sizeof(*v));
		if (!v) {
			tdb_markers_free(m, n);
			return bc_error(BC_E_NOMEM, "out of memory");
		}
	}
	for (i = 0; i < n; i++) {
		uint64_t pfn;

		if (!tdb_snap_marker_pages(m[i].text, &pfn))
			continue;
		v[k++] = (struct tr_pages_mark){ .seq = m[i].seq, .ts = m[i].ts, .pfn = pfn };
	}
	tdb_markers_free(m, n);
	*out = v;
	*nr = k;
	return 0;
}
