/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zone-limits: what the decision procedure (model/decide.h) needs from a snapshot and
 * the trace does not carry: each zone's watermarks, protection[] (lowmem_reserve) and
 * pcp batch and high bounds and each cpu's pcp->high, read from the snapshot's stored
 * /proc/zoneinfo.
 */
#ifndef BC_REPLAY_ZONE_LIMITS_H
#define BC_REPLAY_ZONE_LIMITS_H

#include <stdint.h>

struct tdb;
struct model;

/*
 * Set the limits of every zone of @m that snapshot @snap's zoneinfo shows
 * (model_set_zone_limits()). *@nr (may be NULL): zones set; 0 when the snapshot has no
 * zoneinfo (the model then keeps its defaults, an assumption it states).
 * Return: 0, or a negative bc_err.
 */
int rp_zone_limits(struct tdb *db, int64_t snap, struct model *m, unsigned int *nr);
/*
 * The same, and each cpu's pcp->count ("count:") into @counts[zone * nr_cpus + cpu]
 * (the model's zones and cpus; entries of zones zoneinfo does not print are left).
 */
int rp_zone_limits_counts(struct tdb *db, int64_t snap, struct model *m, unsigned int *nr,
			  uint32_t *counts);
/* The same from zoneinfo's @text (changed: cut into lines). */
int rp_zone_limits_text(char *text, struct model *m, unsigned int *nr, uint32_t *counts);

#endif
