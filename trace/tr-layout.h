/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tr-layout: the physical layout and kernel profile a capture describes, from one of
 * its snapshots (zones, System RAM, memory blocks, pagetypeinfo's pageblock order,
 * buddyinfo's orders, the pcp lists' cpus) and its meta (cpus, kernel_release); whether
 * the kernel has CONFIG_CMA from pagetypeinfo's migratetype names.
 */
#ifndef BC_TR_LAYOUT_H
#define BC_TR_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

struct tdb;
struct model_layout;
struct model_profile;

/**
 * tr_read_layout() - the layout of snapshot @snap into @L and the kernel's rules into
 * @prof. An unrecognised kernel_release gets the 6.18 rules and *@release_unknown =
 * true (may be NULL), which the caller may want to say.
 * Return: 0, or a negative bc_err (-BC_E_FORMAT: no zones, too many RAM ranges).
 */
int tr_read_layout(struct tdb *db, int64_t snap, struct model_layout *L,
		   struct model_profile *prof, bool *release_unknown);

/**
 * tr_snap_cma() - whether snapshot @snap's pagetypeinfo names the CMA migratetype (the
 * kernel has CONFIG_CMA: model_profile.cma); false when it was not stored.
 * Return: 0 and *@cma, or a negative bc_err.
 */
int tr_snap_cma(struct tdb *db, int64_t snap, bool *cma);

#endif
