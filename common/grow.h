/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growing arrays: the one realloc-doubling step every layer needs.
 */
#ifndef BC_GROW_H
#define BC_GROW_H

#include <stddef.h>

/**
 * bc_grow() - make room for element @nr of the array *@arr (a pointer to the array
 * pointer) of *@cap elements of @size bytes: when full, the capacity doubles (@first
 * when it was 0). Return: 0, or -BC_E_NOMEM with "@what: out of memory" (*@arr and
 * *@cap unchanged).
 */
int bc_grow(void *arr, size_t nr, size_t *cap, size_t size, size_t first, const char *what);
/**
 * bc_grow_index() - make room for element @idx of the array *@arr of *@nr elements of
 * @size bytes, all in use (per-cpu slots): grown to at least @idx + 1, at least
 * doubled, the new elements zeroed. Return: 0, or -BC_E_NOMEM ("@what: out of memory";
 * *@arr and *@nr unchanged).
 */
int bc_grow_index(void *arr, size_t *nr, size_t idx, size_t size, const char *what);

#endif
