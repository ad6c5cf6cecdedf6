// SPDX-License-Identifier: GPL-2.0
/*
 * grow.c - bc_grow().
 */
#include <stdlib.h>

#include "common/err.h"
#include "common/grow.h"

int bc_grow(void *arr, size_t nr, size_t *cap, size_t size, size_t first, const char *what)
{
	void **p = arr, *n;
	size_t c;

	if (nr < *cap)
		return 0;
	c = *cap ? *cap * 2 : first;
	if (c <= nr)
		c = nr + 1;
	n = realloc(*p, c * size);
	if (!n)
		return bc_error(BC_E_NOMEM, "%s: out of memory", what);
	*p = n;
	*cap = c;
	return 0;
}
