// SPDX-License-Identifier: GPL-2.0
/*
 * zone-limits.c - watermarks, protection[] and pcp bounds per zone from a snapshot's
 * /proc/zoneinfo (mm/vmstat.c zoneinfo_show_print(): "min", "low", "high" include the
 * watermark boost; "protection: (...)" is lowmem_reserve[] by zone type; the pagesets'
 * batch, high_min and high_max are the same on every cpu; "high:" is each cpu's
 * pcp->high, which the kernel tunes: taken as the pcp state at the snapshot).
 * Older kernels (6.12, 6.1) print no high_min and high_max: they are computed as the
 * kernel does (zl_pcp_bounds()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb-snap.h"
#include "model/decide.h"
#include "model/model.h"
#include "replay/zone-limits.h"

#define ZL_MAX_CPUS	256

struct zl_parse {
	int zone;			/* model zone index, -1 none */
	bool have_wmark, have_batch;
	struct model_zone_limits lim;
	uint64_t boost, managed;	/* "boost", "managed" */
	unsigned int online;		/* pagesets printed: the online cpus */
	int cpu;			/* the pageset being read, -1 none */
	uint32_t high[ZL_MAX_CPUS];	/* pcp->high per cpu, 0 unread */
	uint32_t *counts;		/* optional: pcp->count per [zone * nr_cpus + cpu] */
	unsigned int nr_cpus;
};

/*
 * pcp->high_min and high_max when zoneinfo does not print them (6.12 and older).
 * v6.7-v6.12: zone_set_pageset_high_and_batch() without percpu_pagelist_high_fraction
 * (its default, 0; an assumption): zone_highsize() of the low watermark (without the
 * boost, 0 when the bounds were set) and of managed / MIN_PERCPU_PAGELIST_HIGH_FRACTION
 * (8), each split over the node's online cpus (one node: the pagesets zoneinfo
 * prints) and at least batch << 2. Before v6.7 pcp->high does not move (no high_min
 * or high_max; nr_pcp_high() returns it): both bounds are the printed high.
 */
static void zl_pcp_bounds(const struct model *m, struct zl_parse *p)
{
	uint64_t low = p->lim.wmark_low > p->boost ? p->lim.wmark_low - p->boost : 0;
	uint64_t floor = (uint64_t)p->lim.pcp_batch << 2, lo, hi;
	unsigned int ncpu = p->online ? p->online : 1, cpu;

	if (p->lim.pcp_high_min || p->lim.pcp_high_max || !p->have_batch)
		return;
	if (model_get_profile(m)->version < MODEL_KVER(6, 7, 0)) {
		for (cpu = 0; cpu < ZL_MAX_CPUS && !p->high[cpu]; cpu++)
			;
		if (cpu < ZL_MAX_CPUS)
			p->lim.pcp_high_min = p->lim.pcp_high_max = p->high[cpu];
		return;
	}
	lo = low / ncpu;
	hi = p->managed / 8 / ncpu;
	p->lim.pcp_high_min = (uint32_t)(lo > floor ? lo : floor);
	p->lim.pcp_high_max = (uint32_t)(hi > floor ? hi : floor);
}

static int zl_flush(struct model *m, struct zl_parse *p, unsigned int *nr)
{
	int ret = 0;

	unsigned int cpu, nr_cpus;
	uint32_t *counts;

	if (p->zone >= 0 && p->have_wmark) {
		zl_pcp_bounds(m, p);
		ret = model_set_zone_limits(m, (unsigned int)p->zone, &p->lim);
		if (!ret)
			(*nr)++;
		for (cpu = 0; !ret && cpu < ZL_MAX_CPUS; cpu++)
			if (p->high[cpu] && cpu < model_get_layout(m)->nr_cpus)
				ret = model_set_pcp_high(m, (unsigned int)p->zone, cpu,
							 p->high[cpu]);
	}
	counts = p->counts;
	nr_cpus = p->nr_cpus;
	memset(p, 0, sizeof(*p));
	p->zone = -1;
	p->cpu = -1;
	p->counts = counts;
	p->nr_cpus = nr_cpus;
	return ret;
}

/* One line of zoneinfo, leading blanks skipped. */
static void zl_line(struct zl_parse *p, const char *s)
{
	unsigned long long v[MODEL_NR_ZONE_TYPES] = { 0 };
	unsigned int u;
	int i, n;

	if (sscanf(s, "min %llu", &v[0]) == 1) {
		p->lim.wmark_min = v[0];
		p->have_wmark = true;
	} else if (sscanf(s, "low %llu", &v[0]) == 1) {
		p->lim.wmark_low = v[0];
	} else if (sscanf(s, "high %llu", &v[0]) == 1) {
		p->lim.wmark_high = v[0];
	} else if (sscanf(s, "boost %llu", &v[0]) == 1) {
		p->boost = v[0];
	} else if (sscanf(s, "managed %llu", &v[0]) == 1) {
		p->managed = v[0];
	} else if ((n = sscanf(s, "protection: (%llu, %llu, %llu, %llu, %llu)", &v[0], &v[1],
			       &v[2], &v[3], &v[4])) > 0) {
		for (i = 0; i < n; i++)
			p->lim.lowmem_reserve[i] = v[i];
	} else if (!p->have_batch && sscanf(s, "batch: %u", &u) == 1) {
		p->lim.pcp_batch = u;
		p->have_batch = true;
	} else if (sscanf(s, "cpu: %u", &u) == 1) {
		p->cpu = u < ZL_MAX_CPUS ? (int)u : -1;
		p->online++;
	} else if (p->cpu >= 0 && sscanf(s, "count: %u", &u) == 1) {
		if (p->counts && p->zone >= 0 && (unsigned int)p->cpu < p->nr_cpus)
			p->counts[(unsigned int)p->zone * p->nr_cpus + (unsigned int)p->cpu] = u;
	} else if (p->cpu >= 0 && sscanf(s, "high: %u", &u) == 1) {
		p->high[p->cpu] = u;
	} else if (sscanf(s, "vm stats threshold: %u", &u) == 1) {
		p->lim.stat_threshold = u;
	} else if (sscanf(s, "high_min: %u", &u) == 1) {
		p->lim.pcp_high_min = u;
	} else if (sscanf(s, "high_max: %u", &u) == 1) {
		p->lim.pcp_high_max = u;
	}
}

int rp_zone_limits(struct tdb *db, int64_t snap, struct model *m, unsigned int *nr)
{
	return rp_zone_limits_counts(db, snap, m, nr, NULL);
}

int rp_zone_limits_text(char *text, struct model *m, unsigned int *nr, uint32_t *counts)
{
	struct zl_parse p = { .zone = -1, .cpu = -1, .counts = counts,
			      .nr_cpus = model_get_layout(m)->nr_cpus };
	unsigned int count = 0;
	char *line, *save = NULL;
	int ret = 0;

	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		char name[16];
		int nid;

		if (sscanf(line, "Node %d, zone %15s", &nid, name) == 2) {
			ret = zl_flush(m, &p, &count);
			p.zone = model_zone_of_name(m, nid, name);
			continue;
		}
		zl_line(&p, line + strspn(line, " \t"));
	}
	if (!ret)
		ret = zl_flush(m, &p, &count);
	if (nr)
		*nr = count;
	return ret;
}

int rp_zone_limits_counts(struct tdb *db, int64_t snap, struct model *m, unsigned int *nr,
			  uint32_t *counts)
{
	char *text = NULL;
	int ret = tdb_snap_file(db, snap, "zoneinfo", &text);

	if (nr)
		*nr = 0;
	if (ret || !text)
		return ret;
	ret = rp_zone_limits_text(text, m, nr, counts);
	free(text);
	return ret;
}
