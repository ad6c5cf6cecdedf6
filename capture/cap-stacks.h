/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cap-stacks: kernel stacks (ftrace:kernel_stack records) symbolised once per distinct
 * list of return addresses. A trace recorded with stacks repeats a few hundred call
 * paths over and over; looking each frame up in the kallsyms map and printing it again
 * for every event cost more than the rest of an import.
 */
#ifndef BC_CAP_STACKS_H
#define BC_CAP_STACKS_H

#include <stdint.h>

struct tep_handle;
struct cap_stacks;

/* Return: 0 and *@out (free with cap_stacks_destroy()), or -BC_E_NOMEM. */
int cap_stacks_create(struct tep_handle *tep, int long_size, struct cap_stacks **out);

/* NULL is allowed. */
void cap_stacks_destroy(struct cap_stacks *sc);

/**
 * cap_stacks_lookup() - the stack of @n addresses at @raw (the record's bytes, in the
 * file's byte order and long size; the list ends early at a 0 or all-ones address).
 * @text:      one 'symbol+0xoff' (or '0xaddr') per line, innermost first
 * @first_sym: the symbol of the first address, or NULL (no symbol, or it is 0)
 * @id:        NULL, or where the caller keeps its number for this stack (0 until it
 *             sets one; the importer keeps the capture's stack_frames id there, so a
 *             stack is stored once). The cache forgets it when it is emptied.
 * All stay valid until the next call or cap_stacks_destroy().
 * Return: 0, or -BC_E_NOMEM.
 */
int cap_stacks_lookup(struct cap_stacks *sc, const void *raw, int n, const char **text,
		      const char **first_sym, int64_t **id);

#endif
