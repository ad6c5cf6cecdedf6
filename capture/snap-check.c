// SPDX-License-Identifier: GPL-2.0
/*
 * Cross-file checks of a snapshot's parsed text files (snap_check_tables()), run before
 * its page files are read: each file parses on its own, but a snapshot stitched from
 * two machines, or with a zone, an order or a pageblock order that the kernel cannot
 * have printed, must not reach the model. Owns no state.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "capture/snap-local.h"
#include "common/err.h"

/* Highest PFN + 1 of a 52-bit physical address space with 4 KiB pages. */
#define SNAP_PFN_LIMIT	(1ull << 40)

static int zone_find(const struct snap_tables *t, int node, const char *name)
{
	int i;

	for (i = 0; i < t->nr_zones; i++)
		if (t->zones[i].node == node && !strcmp(t->zones[i].name, name))
			return i;
	return -1;
}

static bool rows_have_zone(const struct snap_order_count *v, int nr, int node, const char *name)
{
	int i;

	for (i = 0; i < nr; i++)
		if (v[i].node == node && !strcmp(v[i].zone, name))
			return true;
	return false;
}

/* zoneinfo's own figures: spans inside the address space, present <= spanned etc. */
static int check_zoneinfo(const struct snap_src *src, const struct snap_tables *t)
{
	int i;

	for (i = 0; i < t->nr_zones; i++) {
		const struct snap_zone *z = &t->zones[i];
		const char *bad = NULL;

		if (zone_find(t, z->node, z->name) != i)
			bad = "is listed twice";
		else if (z->node < 0)
			bad = "has a negative node";
		else if ((uint64_t)z->start_pfn >= SNAP_PFN_LIMIT ||
			 (uint64_t)z->spanned > SNAP_PFN_LIMIT - (uint64_t)z->start_pfn)
			bad = "spans PFNs beyond 2^40 (4 PiB)";
		else if (z->present > z->spanned)
			bad = "has more present than spanned pages";
		else if (z->managed > z->present)
			bad = "has more managed than present pages";
		if (bad) {
			bc_error(BC_E_FORMAT, "node %d zone %s %s (start_pfn %" PRId64 ", spanned %"
				 PRId64 ", present %" PRId64 ", managed %" PRId64 ")", z->node,
				 z->name, bad, z->start_pfn, z->spanned, z->present, z->managed);
			return snap_src_error(src, -BC_E_FORMAT, "zoneinfo");
		}
	}
	return 0;
}

/* Every zone of @file's rows is populated in zoneinfo, and every populated zone is there. */
static int check_zone_set(const struct snap_src *src, const struct snap_tables *t,
			  const struct snap_order_count *v, int nr, const char *file,
			  const char *section)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (zone_find(t, v[i].node, v[i].zone) < 0) {
			bc_error(BC_E_FORMAT, "node %d zone %s (in %s%s%s) is missing or has no "
				 "present pages", v[i].node, v[i].zone, file, *section ? ", " : "",
				 section);
			return snap_src_error(src, -BC_E_FORMAT, "zoneinfo");
		}
	}
	for (i = 0; i < t->nr_zones; i++) {
		const struct snap_zone *z = &t->zones[i];

		if (!rows_have_zone(v, nr, z->node, z->name)) {
			bc_error(BC_E_FORMAT, "%s%snode %d zone %s (populated in zoneinfo) is "
				 "missing", section, *section ? ": " : "", z->node, z->name);
			return snap_src_error(src, -BC_E_FORMAT, file);
		}
	}
	return 0;
}

/*
 * Free blocks of each order fit in the zone: count << order <= spanned, and so does
 * their sum. @orders: the number of orders every row must have. -1 counts (">100000")
 * are the kernel's and pass.
 */
static int check_free_counts(const struct snap_src *src, const struct snap_tables *t,
			     const struct snap_order_count *v, int nr, int orders,
			     const char *file)
{
	int i;

	for (i = 0; i < nr; i++) {
		const struct snap_order_count *o = &v[i];
		const struct snap_zone *z = &t->zones[zone_find(t, o->node, o->zone)];
		uint64_t spanned = (uint64_t)z->spanned, sum = 0;
		int j;

		if (o->ord >= orders) {
			bc_error(BC_E_FORMAT, "node %d zone %s has order %d, but buddyinfo has "
				 "orders 0..%d", o->node, o->zone, o->ord, orders - 1);
			return snap_src_error(src, -BC_E_FORMAT, file);
		}
		if (o->ord)
			continue;
		/* from the row's order 0: the row is v[i .. i + orders) */
		for (j = 0; j < orders && i + j < nr && v[i + j].ord == j; j++) {
			uint64_t n = v[i + j].nr < 0 ? 0 : (uint64_t)v[i + j].nr;

			if (n > spanned >> j || (sum += n << j) > spanned) {
				bc_error(BC_E_FORMAT, "node %d zone %s%s%s: %" PRIu64 " free "
					 "blocks of order %d (%" PRIu64 " pages so far) do not fit "
					 "in its %" PRIu64 " spanned pages", o->node, o->zone,
					 *o->migratetype ? " type " : "", o->migratetype, n, j, sum,
					 spanned);
				return snap_src_error(src, -BC_E_FORMAT, file);
			}
		}
		if (j != orders) {
			bc_error(BC_E_FORMAT, "node %d zone %s%s%s: %d orders, buddyinfo has %d",
				 o->node, o->zone, *o->migratetype ? " type " : "", o->migratetype,
				 j, orders);
			return snap_src_error(src, -BC_E_FORMAT, file);
		}
	}
	return 0;
}

/* A zone of S spanned pages has at most S / 2^pb_order + 2 pageblocks (partial ends). */
static int check_block_counts(const struct snap_src *src, const struct snap_tables *t,
			      int pb_order)
{
	int i, j;

	for (i = 0; i < t->nr_zones; i++) {
		const struct snap_zone *z = &t->zones[i];
		uint64_t max = ((uint64_t)z->spanned >> pb_order) + 2, sum = 0;

		for (j = 0; j < t->nr_ptblocks; j++) {
			const struct snap_order_count *o = &t->ptblocks[j];

			if (o->node != z->node || strcmp(o->zone, z->name))
				continue;
			if ((uint64_t)o->nr > max || (uint64_t)o->nr + sum > max) {
				bc_error(BC_E_FORMAT, "node %d zone %s: %" PRId64 " pageblocks of "
					 "type %s (and %" PRIu64 " of the types before) in %" PRId64
					 " spanned pages of pageblock order %d: more than %" PRIu64,
					 z->node, z->name, o->nr, o->migratetype, sum, z->spanned,
					 pb_order, max);
				return snap_src_error(src, -BC_E_FORMAT, "pagetypeinfo");
			}
			sum += (uint64_t)o->nr;
		}
	}
	return 0;
}

/* Each zone's present pages lie in System RAM: present <= RAM pages in its span. */
static int check_ram(const struct snap_src *src, const struct snap_tables *t)
{
	int i, j;

	for (i = 0; i < t->nr_zones; i++) {
		const struct snap_zone *z = &t->zones[i];
		uint64_t s = (uint64_t)z->start_pfn, e = s + (uint64_t)z->spanned, ram = 0;

		for (j = 0; j < t->nr_ram; j++) {
			uint64_t a = t->ram[j].start_pfn > s ? t->ram[j].start_pfn : s;
			uint64_t b = t->ram[j].end_pfn < e ? t->ram[j].end_pfn : e;

			if (a < b)
				ram += b - a;
		}
		if ((uint64_t)z->present > ram) {
			bc_error(BC_E_FORMAT, "node %d zone %s of zoneinfo spans PFNs [%" PRIu64
				 ", %" PRIu64 ") with %" PRId64 " present pages, but only %" PRIu64
				 " of them are System RAM here: not the same machine?", z->node,
				 z->name, s, e, z->present, ram);
			return snap_src_error(src, -BC_E_FORMAT, "iomem");
		}
	}
	return 0;
}

int snap_check_tables(const struct snap_src *src, const struct snap_tables *t, int pb_order,
		      int pb_line)
{
	int i, orders = 0, ret;

	for (i = 0; i < t->nr_buddy; i++)
		if (t->buddy[i].ord + 1 > orders)
			orders = t->buddy[i].ord + 1;
	if (pb_order < 1 || pb_order > orders - 1) {
		bc_error(BC_E_FORMAT, "line %d: pageblock order %d is outside 1..MAX_PAGE_ORDER "
			 "(%d, from buddyinfo)", pb_line, pb_order, orders - 1);
		return snap_src_error(src, -BC_E_FORMAT, "pagetypeinfo");
	}
	ret = check_zoneinfo(src, t);
	if (!ret)
		ret = check_zone_set(src, t, t->buddy, t->nr_buddy, "buddyinfo", "");
	if (!ret)
		ret = check_zone_set(src, t, t->ptfree, t->nr_ptfree, "pagetypeinfo",
				     "\"Free pages count\" section");
	if (!ret)
		ret = check_zone_set(src, t, t->ptblocks, t->nr_ptblocks, "pagetypeinfo",
				     "\"Number of blocks type\" section");
	if (!ret)
		ret = check_free_counts(src, t, t->buddy, t->nr_buddy, orders, "buddyinfo");
	if (!ret)
		ret = check_free_counts(src, t, t->ptfree, t->nr_ptfree, orders, "pagetypeinfo");
	if (!ret)
		ret = check_block_counts(src, t, pb_order);
	if (!ret)
		ret = check_ram(src, t);
	return ret;
}
