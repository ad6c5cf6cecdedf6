// SPDX-License-Identifier: GPL-2.0
/* sim-seed: the snapshot's pcp lists from the trace (sim-seed.h). */
#include <stdbool.h>
#include <stdlib.h>

#include "common/err.h"
#include "db/tdb.h"
#include "model/decide.h"
#include "model/model.h"
#include "sim/sim-seed.h"
#include "trace/tr-event.h"

/* last[pfn] of sim_seed_pcp_behind(): a free's cpu + 1 and order, 0 when none */
#define LAST_ORDER_BITS	5

static uint64_t pfn_end(const struct model *m)
{
	const struct model_layout *L = model_get_layout(m);
	uint64_t end = 0;
	unsigned int zi;

	for (zi = 0; zi < L->nr_zones; zi++)
		if (L->zones[zi].start_pfn + L->zones[zi].spanned > end)
			end = L->zones[zi].start_pfn + L->zones[zi].spanned;
	return end;
}

int sim_seed_pcp(struct tdb *db, const struct tr_decoder *dec, struct model *m,
		 uint64_t seq_from, uint64_t seq_to, uint64_t *nr)
{
	uint64_t end = pfn_end(m);
	uint64_t *seen = calloc(end / 64 + 1, sizeof(*seen));
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	int ret;

	*nr = 0;
	if (!seen)
		return bc_error(BC_E_NOMEM, "out of memory");
	ret = tdb_cursor_open(db, seq_from, seq_to, &cur);
	if (ret) {
		free(seen);
		return ret;
	}
	while ((ret = tdb_cursor_next(cur, &raw)) == 1) {
		uint64_t bit;

		tr_decode(dec, &raw, &ev);
		if (ev.kind == TR_EV_OTHER || ev.pfn >= end)
			continue;
		bit = 1ull << (ev.pfn % 64);
		if (seen[ev.pfn / 64] & bit)
			continue;
		seen[ev.pfn / 64] |= bit;
		/* only a first alloc or drain says "pcp page" */
		if (ev.kind != TR_EV_PAGE_ALLOC && ev.kind != TR_EV_PCPU_DRAIN)
			continue;
		ret = model_seed_pcp(m, ev.pfn, ev.order, ev.mt, ev.cpu);
		if (ret == -BC_E_INVAL || ret == 1) {
			ret = 0;
			continue;
		}
		if (ret)
			break;
		(*nr)++;
	}
	tdb_cursor_close(cur);
	free(seen);
	return ret < 0 ? ret : 0;
}

/* The last events' frees: their cpu and order per pfn (see sim-seed.h). */
static int last_frees(struct tdb *db, const struct tr_decoder *dec, uint64_t end,
		      uint64_t seq_to, uint16_t *last)
{
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	int ret = tdb_cursor_open(db, 0, seq_to, &cur);

	if (ret)
		return ret;
	while ((ret = tdb_cursor_next(cur, &raw)) == 1) {
		tr_decode(dec, &raw, &ev);
		if (ev.pfn >= end || ev.kind == TR_EV_OTHER || ev.kind == TR_EV_FREE_BATCHED ||
		    ev.kind >= TR_EV_MIGRATE_START)
			continue;
		last[ev.pfn] = (ev.kind == TR_EV_PAGE_FREE || ev.kind == TR_EV_ZONE_LOCKED) &&
			       ev.cpu >= 0 && ev.cpu < 2047 &&
			       ev.order < (1u << LAST_ORDER_BITS) ?
			       (uint16_t)((unsigned int)(ev.cpu + 1) << LAST_ORDER_BITS | ev.order) : 0;
	}
	tdb_cursor_close(cur);
	return ret;
}

int sim_seed_pcp_behind(struct tdb *db, const struct tr_decoder *dec, struct model *m,
			uint64_t seq_to, uint64_t *nr)
{
	uint64_t end = pfn_end(m), pfn;
	uint16_t *last = calloc(end + 1, sizeof(*last));
	int ret, stored, eff;
	bool iso;

	*nr = 0;
	if (!last)
		return bc_error(BC_E_NOMEM, "out of memory");
	ret = last_frees(db, dec, end, seq_to, last);
	for (pfn = 0; !ret && pfn < end; pfn++) {
		if (!last[pfn] || model_pageblock_mt(m, pfn, &stored, &eff, &iso))
			continue;
		ret = model_seed_pcp(m, pfn, last[pfn] & ((1u << LAST_ORDER_BITS) - 1), eff,
				     (last[pfn] >> LAST_ORDER_BITS) - 1);
		if (ret == -BC_E_INVAL || ret == 1) {
			ret = 0;
			continue;
		}
		*nr += !ret;
	}
	free(last);
	return ret < 0 ? ret : 0;
}
