// SPDX-License-Identifier: GPL-2.0
/* The layout of a snapshot, for the model (see tr-layout.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-snap.h"
#include "model/model.h"
#include "trace/tr-layout.h"

/*
 * pagetypeinfo's "Page block order: 9" (else the x86_64 value) and whether its "Number of
 * blocks type" header names CMA: migratetype_names[] (mm/page_alloc.c) has "CMA" only
 * with CONFIG_CMA, which makes MIGRATE_CMA 4 and MIGRATE_ISOLATE 5.
 */
static int read_pagetypeinfo(struct tdb *db, int64_t snap, unsigned int *order, bool *cma)
{
	char *text, *p, *eol;
	int ret;

	*order = 9;
	*cma = false;
	ret = tdb_snap_file(db, snap, "pagetypeinfo", &text);
	if (ret)
		return ret;
	p = text ? strstr(text, "Page block order:") : NULL;
	if (p)
		*order = (unsigned int)strtoul(p + strlen("Page block order:"), NULL, 10);
	p = text ? strstr(text, "Number of blocks type") : NULL;
	if (p) {
		eol = strchr(p, '\n');
		if (eol)
			*eol = '\0';
		*cma = strstr(p, " CMA ") || (strlen(p) >= 4 && !strcmp(p + strlen(p) - 4, " CMA"));
	}
	free(text);
	return 0;
}

int tr_snap_cma(struct tdb *db, int64_t snap, bool *cma)
{
	unsigned int order;

	return read_pagetypeinfo(db, snap, &order, cma);
}

static int read_zones(struct tdb *db, int64_t snap, struct model_layout *L)
{
	struct tdb_zone *z;
	struct tdb_ram *r;
	int nz, nr, i, ret;

	ret = tdb_snap_zones(db, snap, &z, &nz);
	if (ret)
		return ret;
	for (i = 0; i < nz && L->nr_zones < MODEL_MAX_ZONES; i++) {
		struct model_zone_layout *zl = &L->zones[L->nr_zones++];

		zl->nid = z[i].node;
		snprintf(zl->name, sizeof(zl->name), "%s", z[i].name);
		zl->start_pfn = z[i].start_pfn;
		zl->spanned = z[i].spanned;
		zl->present = z[i].present;
		zl->managed = z[i].managed;
		zl->movable = !strcmp(zl->name, "Movable");
	}
	free(z);
	if (!L->nr_zones)
		return bc_error(BC_E_FORMAT, "%s: snapshot %lld has no zones (zoneinfo missing?)",
				tdb_path(db), (long long)snap);
	ret = tdb_snap_ram(db, snap, &r, &nr);
	if (ret)
		return ret;
	if (nr > MODEL_MAX_RAM) {
		free(r);
		return bc_error(BC_E_FORMAT, "%s: more than %d System RAM ranges", tdb_path(db),
				MODEL_MAX_RAM);
	}
	for (i = 0; i < nr; i++) {
		L->ram[i].start = r[i].start;
		L->ram[i].end = r[i].end;
	}
	L->nr_ram = (unsigned int)nr;
	free(r);
	return 0;
}

/* The orders of the machine's hugetlb pools (hugepages-*kB), as a bit mask; 0 unknown. */
static int read_hugetlb_orders(struct tdb *db, int64_t snap, uint32_t *orders)
{
	int64_t kb, page_kb = tdb_get_meta_int(db, "page_size", 4096) / 1024;
	unsigned int o;
	int ret;

	*orders = 0;
	ret = tdb_snap_figure(db, snap, TDB_SNAP_HUGETLB_KB, 0, &kb);
	if (ret || page_kb <= 0)
		return ret;
	for (o = 0; o < 32; o++)
		if (kb & (page_kb << o))
			*orders |= 1u << o;
	return 0;
}

int tr_read_layout(struct tdb *db, int64_t snap, struct model_layout *L,
		   struct model_profile *prof, bool *release_unknown)
{
	int64_t blk, max_order, cpus;
	char *release;
	bool cma;
	int ret;

	memset(L, 0, sizeof(*L));
	if (release_unknown)
		*release_unknown = false;
	ret = read_zones(db, snap, L);
	if (!ret)
		ret = tdb_snap_figure(db, snap, TDB_SNAP_MEMORY_BLOCK_PAGES, 0, &blk);
	if (!ret)
		ret = read_pagetypeinfo(db, snap, &L->pageblock_order, &cma);
	if (!ret)
		ret = tdb_snap_figure(db, snap, TDB_SNAP_MAX_ORDER, 10, &max_order);
	if (!ret)
		ret = read_hugetlb_orders(db, snap, &L->hugetlb_orders);
	if (ret)
		return ret;
	L->memory_block_pages = (uint64_t)blk;
	L->max_page_order = (unsigned int)max_order;
	L->nr_cpus = (unsigned int)tdb_get_meta_int(db, "cpus", 0);
	if (!L->nr_cpus) {
		ret = tdb_snap_figure(db, snap, TDB_SNAP_NR_CPUS, 1, &cpus);
		if (ret)
			return ret;
		L->nr_cpus = (unsigned int)cpus;
	}
	release = tdb_get_meta(db, "kernel_release");
	ret = model_profile_from_release(release ? release : "", L->pageblock_order, prof);
	if (ret && release && *release && release_unknown)
		*release_unknown = true;
	free(release);
	prof->cma = cma;
	prof->data_slice_pages = (uint64_t)tdb_get_meta_int(db, "cpu_data_slice_kb", 0) * 1024 /
				 (uint64_t)tdb_get_meta_int(db, "page_size", 4096);
	return 0;
}
