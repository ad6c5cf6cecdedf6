// SPDX-License-Identifier: GPL-2.0
/*
 * grow.c - bc_grow(), bc_grow_index().
 */
#include <stdlib.h>
#include <string.h>

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

int bc_grow_index(void *arr, size_t *nr, size_t idx, size_t size, const char *what)
{
	void **p = arr;
	size_t n;
	char *v;

	if (idx < *nr)
		return 0;
	n = idx + 1 > 2 * *nr ? idx + 1 : 2 * *nr;
	v = realloc(*p, n * size);
	if (!v)
		return bc_error(BC_E_NOMEM, "%s: out of memory", what);
	memset(v + *nr * size, 0, (n - *nr) * size);
	*p = v;
	*nr = n;
	return 0;
}
