// SPDX-License-Identifier: GPL-2.0
/*
 * The event decoder: per event type id, its kind (by system and name) and the index
 * of each field the model needs (by name, once), then a cheap decode per event.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "trace/tr-event.h"

#define _R(k, s) [TR_EV_##k] = s,
static const char *const kind_names[] = { TR_EVENT_KINDS };
#undef _R

const char *tr_event_kind_name(enum tr_event_kind k)
{
	return (unsigned int)k < TR_NR_EVENT_KINDS ? kind_names[k] : "?";
}

static const struct {
	const char *system, *name;
	enum tr_event_kind kind;
} known[] = {
	{ "kmem", "mm_page_alloc", TR_EV_PAGE_ALLOC },
	{ "kmem", "mm_page_free", TR_EV_PAGE_FREE },
	{ "kmem", "mm_page_free_batched", TR_EV_FREE_BATCHED },
	{ "kmem", "mm_page_alloc_zone_locked", TR_EV_ZONE_LOCKED },
	{ "kmem", "mm_page_pcpu_drain", TR_EV_PCPU_DRAIN },
	{ "kmem", "mm_page_alloc_extfrag", TR_EV_EXTFRAG },
	{ "migrate", "mm_migrate_pages_start", TR_EV_MIGRATE_START },
	{ "migrate", "mm_migrate_pages", TR_EV_MIGRATE_END },
	{ "page_isolation", "test_pages_isolated", TR_EV_TEST_ISOLATED },
	{ "compaction", "mm_compaction_isolate_migratepages", TR_EV_ISOLATE_MIGRATE },
	{ "compaction", "mm_compaction_isolate_freepages", TR_EV_ISOLATE_FREE },
	/* stored for vmstat_update() only (meta traced_work_fn, db/README.md) */
	{ "workqueue", "workqueue_execute_start", TR_EV_VMSTAT_UPDATE },
};

/* Field indices of one event type, looked up by name once. -1 = absent. */
struct tr_type {
	enum tr_event_kind kind;
	int pfn, order, mt, gfp, percpu_refill;
	int alloc_order, fallback_order, alloc_mt, fallback_mt, change_ownership;
	int start_pfn, end_pfn, fin_pfn, nr_scanned, nr_taken;
	int succeeded, failed, reason, mode;
};

struct tr_decoder {
	struct tr_type *types;		/* by type id */
	int nr_types;
	const struct tdb_event_type **rejected;
	int nr_rejected;
};

static void find_fields(struct tdb *db, int id, struct tr_type *t)
{
#define F(field, name) t->field = tdb_field_index(db, id, name)
	F(pfn, "pfn");
	F(order, "order");
	F(mt, "migratetype");
	F(gfp, "gfp_flags");
	F(percpu_refill, "percpu_refill");
	F(alloc_order, "alloc_order");
	F(fallback_order, "fallback_order");
	F(alloc_mt, "alloc_migratetype");
	F(fallback_mt, "fallback_migratetype");
	F(change_ownership, "change_ownership");
	F(start_pfn, "start_pfn");
	F(end_pfn, "end_pfn");
	F(fin_pfn, "fin_pfn");
	F(nr_scanned, "nr_scanned");
	F(nr_taken, "nr_taken");
	F(succeeded, "succeeded");
	F(failed, "failed");
	F(reason, "reason");
	F(mode, "mode");
#undef F
}

/* Are the capture's workqueue_execute_start events vmstat_update()'s? */
static bool work_fn_traced(struct tdb *db)
{
	char *fn = tdb_get_meta(db, TDB_META_TRACED_WORK_FN);
	bool yes = fn && !strcmp(fn, "vmstat_update");

	free(fn);
	return yes;
}

int tr_decoder_create(struct tdb *db, struct tr_decoder **out)
{
	struct tdb_event_type **types;
	struct tr_decoder *d;
	int nr, i, ret;
	size_t k;

	*out = NULL;
	ret = tdb_event_types(db, &types, &nr);
	if (ret)
		return ret;
	d = calloc(1, sizeof(*d));
	if (d) {
		d->types = calloc((size_t)nr + 1, sizeof(*d->types));
		d->rejected = calloc((size_t)nr + 1, sizeof(*d->rejected));
	}
	if (!d || !d->types || !d->rejected) {
		tr_decoder_destroy(d);
		return bc_error(BC_E_NOMEM, "out of memory");
	}
	d->nr_types = nr;
	for (i = 0; i < nr; i++) {
		struct tr_type *t = &d->types[i];

		t->kind = TR_EV_OTHER;
		if (!types[i] || types[i]->missing)
			continue;
		for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (!strcmp(types[i]->system, known[k].system) &&
			    !strcmp(types[i]->name, known[k].name))
				t->kind = known[k].kind;
		if (t->kind == TR_EV_VMSTAT_UPDATE && !work_fn_traced(db))
			t->kind = TR_EV_OTHER;	/* not known to be vmstat_update()'s */
		find_fields(db, i, t);
		/* A page-event layout without a pfn (pre-4.x 'page' pointer) cannot be used. */
		if (t->kind >= TR_EV_PAGE_ALLOC && t->kind <= TR_EV_EXTFRAG && t->pfn < 0) {
			d->rejected[d->nr_rejected++] = types[i];
			t->kind = TR_EV_OTHER;
		}
	}
	*out = d;
	return 0;
}

void tr_decoder_destroy(struct tr_decoder *d)
{
	if (!d)
		return;
	free(d->types);
	free(d->rejected);
	free(d);
}

bool tr_decoder_has(const struct tr_decoder *d, enum tr_event_kind kind)
{
	int i;

	for (i = 0; i < d->nr_types; i++)
		if (d->types[i].kind == kind)
			return true;
	return false;
}

enum tr_event_kind tr_decoder_kind(const struct tr_decoder *d, unsigned int type)
{
	return type < (unsigned int)d->nr_types ? d->types[type].kind : TR_EV_OTHER;
}

const struct tdb_event_type *tr_decoder_rejected(const struct tr_decoder *d, int i)
{
	return i >= 0 && i < d->nr_rejected ? d->rejected[i] : NULL;
}

static inline int64_t fld(const struct bc_event *e, int idx, int64_t dflt)
{
	return idx >= 0 && idx < e->nfields ? e->field[idx] : dflt;
}

void tr_decode_page(const struct tr_decoder *d, const struct bc_event *raw,
		    struct tr_event *ev)
{
	const struct tr_type *t = raw->type < d->nr_types ? &d->types[raw->type] : NULL;
	int64_t pfn;

	ev->raw = raw;
	ev->seq = raw->seq;
	ev->ts = raw->ts;
	ev->cpu = raw->cpu;
	ev->pid = raw->pid;
	if (!t) {
		ev->kind = TR_EV_OTHER;
		ev->pfn = UINT64_MAX;
		ev->order = 0;
		ev->mt = -1;
		ev->gfp = 0;
		return;
	}
	ev->kind = t->kind;
	pfn = fld(raw, t->pfn, -1);
	ev->pfn = pfn < 0 ? UINT64_MAX : (uint64_t)pfn;
	ev->order = (unsigned int)fld(raw, t->order, 0);
	ev->mt = (int)fld(raw, t->mt, -1);
	ev->gfp = (uint64_t)fld(raw, t->gfp, 0);
}

void tr_decode(const struct tr_decoder *d, const struct bc_event *raw, struct tr_event *ev)
{
	const struct tr_type *t = raw->type < d->nr_types ? &d->types[raw->type] : NULL;
	int64_t pfn;

	memset(ev, 0, sizeof(*ev));
	ev->raw = raw;
	ev->seq = raw->seq;
	ev->ts = raw->ts;
	ev->cpu = raw->cpu;
	ev->pid = raw->pid;
	ev->pfn = UINT64_MAX;
	ev->mt = ev->fallback_mt = ev->reason = ev->mode = -1;
	if (!t) {
		ev->kind = TR_EV_OTHER;
		return;
	}
	ev->kind = t->kind;
	pfn = fld(raw, t->pfn, -1);
	ev->pfn = pfn < 0 ? UINT64_MAX : (uint64_t)pfn;
	if (t->kind == TR_EV_EXTFRAG) {
		ev->order = (unsigned int)fld(raw, t->alloc_order, 0);
		ev->mt = (int)fld(raw, t->alloc_mt, -1);
		ev->fallback_order = (unsigned int)fld(raw, t->fallback_order, 0);
		ev->fallback_mt = (int)fld(raw, t->fallback_mt, -1);
		ev->change_ownership = fld(raw, t->change_ownership, 0) != 0;
		return;
	}
	ev->order = (unsigned int)fld(raw, t->order, 0);
	ev->mt = (int)fld(raw, t->mt, -1);
	ev->gfp = (uint64_t)fld(raw, t->gfp, 0);
	ev->percpu_refill = fld(raw, t->percpu_refill, 0) != 0;
	ev->start_pfn = (uint64_t)fld(raw, t->start_pfn, 0);
	ev->end_pfn = (uint64_t)fld(raw, t->end_pfn, 0);
	ev->fin_pfn = (uint64_t)fld(raw, t->fin_pfn, 0);
	ev->nr_scanned = (uint64_t)fld(raw, t->nr_scanned, 0);
	ev->nr_taken = (uint64_t)fld(raw, t->nr_taken, 0);
	ev->succeeded = (uint64_t)fld(raw, t->succeeded, 0);
	ev->failed = (uint64_t)fld(raw, t->failed, 0);
	ev->reason = (int)fld(raw, t->reason, -1);
	ev->mode = (int)fld(raw, t->mode, -1);
}
