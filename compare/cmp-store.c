// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
/* cmp-store: compare results into the capture (cmp-store.h). */
#include <sqlite3.h>

#include "common/err.h"
#include "compare/cmp-store.h"
#include "db/tdb.h"

static int put(sqlite3_stmt *st, const char *layout, int64_t size, const char *name, double v)
{
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, layout, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, size);
	sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, v);
	rc = sqlite3_step(st);
	return rc == SQLITE_DONE ? 0 : bc_error(BC_E_IO, "compare_results: %s",
						sqlite3_errstr(rc));
}

static int put_one(sqlite3_stmt *st, int64_t size, const struct cmp_result *r)
{
	const struct cmp_demand_stats *d = &r->demand;
	const struct { const char *name; double v; } t[] = {
		{ "demand", (double)d->asked }, { "served", (double)d->served },
		{ "real_attempts", (double)r->real_attempts },
		{ "real_served", (double)r->real_served },
		{ "real_kernel_served", (double)r->real_kernel_served },
		{ "pages_migrated", (double)d->pages_migrated },
		{ "pages_scanned", (double)d->pages_scanned },
		{ "idle_page_seconds", r->idle_page_seconds },
		{ "fallbacks", (double)r->fallbacks },
		{ "needed_reclaim", (double)r->needed_reclaim },
		{ "wmark_breaches", (double)r->wmark_breaches },
		{ "unmovable_pageblocks", (double)r->unmovable_pageblocks },
		{ "seed_moved_pages", (double)r->seed_moved_pages },
		{ "initialised_pages", (double)r->initialised },
		{ "movable_start_pfn", (double)r->movable_start },
	};
	char name[64];
	unsigned int i;
	int b, ret = 0;

	for (i = 0; !ret && i < sizeof(t) / sizeof(t[0]); i++)
		ret = put(st, r->layout.name, size, t[i].name, t[i].v);
	for (b = 0; !ret && b < d->blockers.nr; b++) {
		snprintf(name, sizeof(name), "blockers.%s", d->blockers.v[b].name);
		ret = put(st, r->layout.name, size, name, (double)d->blockers.v[b].n);
	}
	for (b = 0; !ret && b < d->rejected.nr; b++) {
		snprintf(name, sizeof(name), "rejected.%s", d->rejected.v[b].name);
		ret = put(st, r->layout.name, size, name, (double)d->rejected.v[b].n);
	}
	return ret;
}

int cmp_store(struct tdb *db, uint64_t size_pages, const struct cmp_result *r, int nr)
{
	sqlite3_stmt *st = NULL;
	int i, ret = tdb_ensure_schema(db);

	if (!ret)
		ret = tdb_exec(db, "BEGIN IMMEDIATE; DELETE FROM compare_results;");
	if (ret)
		return ret;
	if (sqlite3_prepare_v2(tdb_sqlite(db), "INSERT INTO compare_results (layout, size_pages, "
			       "name, value) VALUES (?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		ret = bc_error(BC_E_IO, "compare_results: %s", sqlite3_errmsg(tdb_sqlite(db)));
	for (i = 0; !ret && i < nr; i++)
		ret = put_one(st, (int64_t)size_pages, &r[i]);
	sqlite3_finalize(st);
	if (!ret)
		return tdb_exec(db, "COMMIT;");
	tdb_exec(db, "ROLLBACK;");
	return ret;
}
