/* SPDX-License-Identifier: GPL-2.0 */
/*
 * u64set: a sorted array of u64 as a set (seqs, pfns): sort once, then ask. Cheaper
 * than a hash for the few thousand members a pass ahead finds.
 */
#ifndef BC_COMMON_U64SET_H
#define BC_COMMON_U64SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sort @v[@n] ascending (@n may be 0, @v NULL then). */
void u64set_sort(uint64_t *v, size_t n);
/* Is @x in the sorted @v[@n]? */
bool u64set_has(const uint64_t *v, size_t n, uint64_t x);

#endif
