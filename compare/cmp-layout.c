// SPDX-License-Identifier: GPL-2.0
/* cmp-layout: what-if layouts, parsed and placed (cmp-layout.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/parse.h"
#include "compare/cmp-layout.h"
#include "model/model.h"

/* One "kind:SIZE[@PFN]" term. */
static int parse_term(char *t, struct cmp_layout *c)
{
	char *size = strchr(t, ':'), *at, *end;
	uint64_t bytes, pfn = CMP_NOWHERE;

	if (!strcmp(t, "asis"))
		return 0;
	if (!size)
		return bc_error(BC_E_INVAL, "'%s': not asis, cma:, movable:, kernelcore: or "
				"reserve:", t);
	*size++ = '\0';
	at = strchr(size, '@');
	if (at) {
		*at++ = '\0';
		errno = 0;
		pfn = strtoull(at, &end, 0);
		if (errno || end == at || *end)
			return bc_error(BC_E_INVAL, "'%s': not a pfn", at);
	}
	if (bc_parse_size(size, &bytes) || !bytes || bytes % 4096)
		return bc_error(BC_E_INVAL, "'%s': not a size in whole pages", size);
	bytes /= 4096;
	if (!strcmp(t, "reserve") && !c->reserve_pages) {
		c->reserve_pages = bytes;
		c->reserve_pfn = pfn;
	} else if (!strcmp(t, "cma") && !c->cma_pages) {
		c->cma_pages = bytes;
		c->cma_pfn = pfn;
	} else if (!strcmp(t, "movable") && !at && !c->movablecore_pages) {
		c->movablecore_pages = bytes;
	} else if (!strcmp(t, "kernelcore") && !at && !c->kernelcore_pages) {
		c->kernelcore_pages = bytes;
	} else if (strcmp(t, "reserve") && strcmp(t, "cma") && strcmp(t, "movable") &&
		   strcmp(t, "kernelcore")) {
		return bc_error(BC_E_INVAL, "'%s': not asis, cma:, movable:, kernelcore: or "
				"reserve:", t);
	} else if (at && (!strcmp(t, "movable") || !strcmp(t, "kernelcore"))) {
		return bc_error(BC_E_INVAL, "'%s:' takes no @PFN: the kernel places ZONE_MOVABLE "
				"(find_zone_movable_pfns_for_nodes()); give SIZE only", t);
	} else {
		return bc_error(BC_E_INVAL, "'%s:' given twice in one layout: give one, or "
				"another --layout for the other size", t);
	}
	return 0;
}

int cmp_layout_parse(const char *spec, struct cmp_layout *out)
{
	char buf[sizeof(out->name)], *t, *save;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->reserve_pfn = out->cma_pfn = CMP_NOWHERE;
	if (!*spec || strlen(spec) >= sizeof(buf))
		return bc_error(BC_E_INVAL, "'%s': empty or too long", spec);
	strcpy(out->name, spec);
	strcpy(buf, spec);
	for (t = strtok_r(buf, "+", &save); t && !ret; t = strtok_r(NULL, "+", &save))
		ret = parse_term(t, out);
	return ret;
}

/* RAM range @i of @L (its zones' spans when it lists none). */
static int ram_range(const struct model_layout *L, unsigned int i, uint64_t *s, uint64_t *e)
{
	if (L->nr_ram) {
		if (i >= L->nr_ram)
			return 0;
		*s = L->ram[i].start;
		*e = L->ram[i].end;
		return 1;
	}
	if (i >= L->nr_zones)
		return 0;
	*s = L->zones[i].start_pfn;
	*e = *s + L->zones[i].spanned;
	return 1;
}

uint64_t cmp_ram_pages(const struct model_layout *L, uint64_t start, uint64_t end)
{
	uint64_t s, e, n = 0;
	unsigned int i;

	for (i = 0; ram_range(L, i, &s, &e); i++) {
		s = s > start ? s : start;
		e = e < end ? e : end;
		n += e > s ? e - s : 0;
	}
	return n;
}

/* The highest zone with pages: ZONE_MOVABLE's source (find_usable_zone_for_movable()). */
static int movable_zone(const struct model_layout *L)
{
	int z;

	for (z = (int)L->nr_zones - 1; z >= 0; z--)
		if (L->zones[z].present && !L->zones[z].movable)
			return z;
	return -1;
}

int cmp_movable_start(const struct model_layout *L, const struct cmp_layout *c,
		      uint64_t max_order_pages, uint64_t *pfn)
{
	uint64_t total = cmp_ram_pages(L, 0, UINT64_MAX), core = c->kernelcore_pages;
	uint64_t usable, remaining, zmp = 0, s, e, mc;
	unsigned int i;
	int z = movable_zone(L);

	if (c->movablecore_pages) {
		/* required_movablecore: rounded up to MAX_ORDER_NR_PAGES, at most all */
		mc = (c->movablecore_pages + max_order_pages - 1) / max_order_pages *
		     max_order_pages;
		mc = mc < total ? mc : total;
		core = core > total - mc ? core : total - mc;
	}
	if (z < 0 || !core || core >= total)
		return 1;
	usable = L->zones[z].start_pfn;
	remaining = core;
	for (i = 0; remaining && ram_range(L, i, &s, &e); i++) {
		s = s > zmp ? s : zmp;
		if (s >= e)
			continue;
		if (s < usable) {
			uint64_t k = (e < usable ? e : usable) - s;

			remaining -= k < remaining ? k : remaining;
			if (e <= usable) {
				zmp = e;
				continue;
			}
			s = usable;
		}
		e = e - s < remaining ? e : s + remaining;
		zmp = e;
		remaining -= e - s;
	}
	*pfn = (zmp + max_order_pages - 1) / max_order_pages * max_order_pages;
	/* adjust_zone_range_for_zone_movable(): the zone starts no lower than its source */
	if (*pfn < usable)
		*pfn = usable;
	return *pfn >= L->zones[z].start_pfn + L->zones[z].spanned ? 1 : 0;
}

/* Cut zone @z at @pfn: the upper part becomes ZONE_MOVABLE (appended: zones ascend). */
static int carve_movable(struct model_layout *L, int z, uint64_t pfn)
{
	struct model_zone_layout *lo = &L->zones[z], *hi;
	uint64_t end = lo->start_pfn + lo->spanned, present;

	if (L->nr_zones >= MODEL_MAX_ZONES || z != (int)L->nr_zones - 1)
		return bc_error(BC_E_INVAL, "ZONE_MOVABLE must come from the last zone");
	hi = &L->zones[L->nr_zones++];
	*hi = *lo;
	strcpy(hi->name, "Movable");
	hi->movable = true;
	hi->start_pfn = pfn;
	hi->spanned = end - pfn;
	present = cmp_ram_pages(L, pfn, end);
	hi->present = hi->managed = present;
	lo->spanned = pfn - lo->start_pfn;
	lo->present -= present < lo->present ? present : lo->present;
	lo->managed -= present < lo->managed ? present : lo->managed;
	return 0;
}

/* The top @n pages of RAM aligned to @align, below @limit. */
static uint64_t top_fit(const struct model_layout *L, uint64_t n, uint64_t align, uint64_t limit)
{
	uint64_t s, e, best = CMP_NOWHERE, p;
	unsigned int i;

	for (i = 0; ram_range(L, i, &s, &e); i++) {
		e = e < limit ? e : limit;
		if (e < n)
			continue;
		p = (e - n) / align * align;
		if (p >= s && (best == CMP_NOWHERE || p > best))
			best = p;
	}
	return best;
}

/* The RAM ranges of @L as "0x1-0x9f 0x100-0xbffdf ..." (at most @n bytes) for errors. */
static const char *ram_text(const struct model_layout *L, char *buf, size_t n)
{
	uint64_t s, e;
	unsigned int i;
	size_t k = 0;

	buf[0] = '\0';
	for (i = 0; ram_range(L, i, &s, &e) && k + 48 < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s0x%llx-0x%llx", i ? " " : "",
				      (unsigned long long)s, (unsigned long long)e);
	return buf;
}

/*
 * An area of @what (@n pages at @pfn; CMP_NOWHERE: no place found) that is not all RAM:
 * say why and what to give instead. Return: -BC_E_INVAL.
 */
static int area_error(const struct model_layout *L, const struct cmp_layout *c,
		      const char *what, uint64_t n, uint64_t pfn)
{
	uint64_t total = cmp_ram_pages(L, 0, UINT64_MAX);
	char ram[512];

	if (n > total)
		return bc_error(BC_E_INVAL, "%s: the %s of %llu pages is more than the capture's "
				"RAM (%llu pages): give a smaller SIZE", c->name, what,
				(unsigned long long)n, (unsigned long long)total);
	if (pfn == CMP_NOWHERE)
		return bc_error(BC_E_INVAL, "%s: no RAM range holds the %s's %llu pages in a row "
				"(RAM: %s): give a smaller SIZE", c->name, what,
				(unsigned long long)n, ram_text(L, ram, sizeof(ram)));
	return bc_error(BC_E_INVAL, "%s: the %s [0x%llx, 0x%llx) is not all RAM (RAM: %s): "
			"give an @PFN with SIZE inside one RAM range", c->name, what,
			(unsigned long long)pfn, (unsigned long long)(pfn + n),
			ram_text(L, ram, sizeof(ram)));
}

/* Why find_zone_movable_pfns_for_nodes() makes no ZONE_MOVABLE. Return: -BC_E_INVAL. */
static int movable_error(const struct model_layout *L, const struct cmp_layout *c, int z)
{
	unsigned long long total = cmp_ram_pages(L, 0, UINT64_MAX);

	if (z < 0)
		return bc_error(BC_E_INVAL, "%s: no zone with pages for ZONE_MOVABLE", c->name);
	if (c->movablecore_pages >= total || c->kernelcore_pages >= total)
		return bc_error(BC_E_INVAL, "%s: %s of %llu pages is all of the capture's RAM "
				"(%llu pages) or more: the kernel makes no ZONE_MOVABLE; give a "
				"SIZE below it", c->name, c->movablecore_pages >= total ?
				"movable" : "kernelcore", (unsigned long long)(c->movablecore_pages >=
				total ? c->movablecore_pages : c->kernelcore_pages), total);
	return bc_error(BC_E_INVAL, "%s: the kernel memory asked fills %s up to its end "
			"(0x%llx): the kernel makes no ZONE_MOVABLE; give a larger movable: or a "
			"smaller kernelcore: SIZE", c->name, L->zones[z].name,
			(unsigned long long)(L->zones[z].start_pfn + L->zones[z].spanned));
}

/* The traced ZONE_MOVABLE's index (the last zone, right above its source), or -1. */
static int traced_movable(const struct model_layout *L)
{
	unsigned int z;

	for (z = 1; z < L->nr_zones; z++)
		if (L->zones[z].movable)
			return z == L->nr_zones - 1 && !L->zones[z - 1].movable ? (int)z : -1;
	return -1;
}

/* Managed pages of [@s, @e) in the old zone @oz: its managed share of the present ones. */
static uint64_t managed_part(const struct model_layout *L, const struct model_zone_layout *oz,
			     uint64_t s, uint64_t e)
{
	uint64_t zs = oz->start_pfn, ze = zs + oz->spanned, p;

	s = s > zs ? s : zs;
	e = e < ze ? e : ze;
	if (e <= s || !oz->present)
		return 0;
	p = cmp_ram_pages(L, s, e);
	return (uint64_t)((double)p * (double)oz->managed / (double)oz->present + 0.5);
}

/*
 * movablecore=/kernelcore= on a capture booted with a ZONE_MOVABLE already: the option
 * replaces the traced one. find_zone_movable_pfns_for_nodes() runs on the zones as they
 * would be without ZONE_MOVABLE (the traced one given back to the zone below), and the
 * boundary moves there; each zone's managed pages are its present pages at the old
 * zones' managed/present ratios. c->movable_traced_pfn keeps the traced start.
 */
static int resize_movable(struct model_layout *L, struct cmp_layout *c)
{
	int mz = traced_movable(L), z;
	struct model_layout M = *L;
	struct model_zone_layout lo = L->zones[mz - 1], hi = L->zones[mz];
	uint64_t end = hi.start_pfn + hi.spanned, pfn;

	M.nr_zones--;
	M.zones[mz - 1].spanned = end - lo.start_pfn;
	M.zones[mz - 1].present += hi.present;
	M.zones[mz - 1].managed += hi.managed;
	z = movable_zone(&M);
	if (z != mz - 1)
		return bc_error(BC_E_INVAL, "%s: the traced ZONE_MOVABLE has no zone with pages "
				"below it", c->name);
	if (cmp_movable_start(&M, c, 1ull << L->max_page_order, &pfn))
		return movable_error(&M, c, z);
	c->movable_traced_pfn = hi.start_pfn;
	L->zones[mz - 1].spanned = pfn - lo.start_pfn;
	L->zones[mz].start_pfn = pfn;
	L->zones[mz].spanned = end - pfn;
	L->zones[mz - 1].present = cmp_ram_pages(L, lo.start_pfn, pfn);
	L->zones[mz].present = cmp_ram_pages(L, pfn, end);
	L->zones[mz - 1].managed = managed_part(L, &lo, lo.start_pfn, pfn) +
				   managed_part(L, &hi, lo.start_pfn, pfn);
	L->zones[mz].managed = managed_part(L, &lo, pfn, end) + managed_part(L, &hi, pfn, end);
	return 0;
}

int cmp_layout_place(struct model_layout *L, struct cmp_layout *c)
{
	uint64_t pb = 1ull << L->pageblock_order, pfn;
	int ret, z;

	if (c->reserve_pages) {
		c->reserve_default = c->reserve_pfn == CMP_NOWHERE;
		if (c->reserve_default)
			c->reserve_pfn = top_fit(L, c->reserve_pages, 1, UINT64_MAX);
		if (c->reserve_pfn == CMP_NOWHERE ||
		    cmp_ram_pages(L, c->reserve_pfn, c->reserve_pfn + c->reserve_pages) !=
		    c->reserve_pages)
			return area_error(L, c, "reservation", c->reserve_pages, c->reserve_pfn);
	}
	if ((c->movablecore_pages || c->kernelcore_pages) && traced_movable(L) >= 0) {
		ret = resize_movable(L, c);
		if (ret)
			return ret;
	} else if (c->movablecore_pages || c->kernelcore_pages) {
		z = movable_zone(L);
		if (cmp_movable_start(L, c, 1ull << L->max_page_order, &pfn))
			return movable_error(L, c, z);
		ret = carve_movable(L, z, pfn);
		if (ret)
			return ret;
	}
	if (c->cma_pages) {
		c->cma_pages = (c->cma_pages + pb - 1) / pb * pb;
		z = movable_zone(L);
		c->cma_default = c->cma_pfn == CMP_NOWHERE;
		if (c->cma_default && z >= 0)
			c->cma_pfn = top_fit(L, c->cma_pages, pb,
					     L->zones[z].start_pfn + L->zones[z].spanned);
		if (c->cma_pfn != CMP_NOWHERE && c->cma_pfn % pb)
			return bc_error(BC_E_INVAL, "%s: the CMA area's @PFN 0x%llx is not on a "
					"pageblock (%llu pages): give a multiple of 0x%llx",
					c->name, (unsigned long long)c->cma_pfn,
					(unsigned long long)pb, (unsigned long long)pb);
		if (c->cma_pfn == CMP_NOWHERE ||
		    cmp_ram_pages(L, c->cma_pfn, c->cma_pfn + c->cma_pages) != c->cma_pages)
			return area_error(L, c, "CMA area", c->cma_pages, c->cma_pfn);
	}
	return 0;
}
