/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cap-kallsyms: a trace.dat's kernel symbols parsed only when a kernel stack needs
 * them. libtracecmd parses the file's whole kallsyms text (100,000 lines and more)
 * while opening it; only ftrace:kernel_stack records use it, and for a trace without
 * stacks the parse was most of what an import costs beyond reading the events.
 *
 * bigchunk defines tep_parse_kallsyms() itself, and the dynamic linker binds
 * libtracecmd's call to it. While deferral is on it keeps a copy of the text instead
 * of parsing it; otherwise, and where the binding does not happen (a static
 * libtraceevent), libtraceevent's own function parses at once, as before.
 */
#ifndef BC_CAP_KALLSYMS_H
#define BC_CAP_KALLSYMS_H

#include <stdbool.h>
#include <stdint.h>

struct tep_handle;

/*
 * On: tep_parse_kallsyms() calls from now on keep their text for cap_kallsyms_load().
 * Off: parse at once again, and drop a text kept and not loaded.
 */
void cap_kallsyms_defer(bool on);

/*
 * While deferring: the compressed block of the kallsyms section of @path at file
 * offset @at (a version 7 file's, from dat_check()) is not decompressed when
 * libtracecmd opens the file (it is handed "no symbols"), only by cap_kallsyms_load()
 * (while the file is still open). @at 0: nothing to defer. cap_kallsyms_defer(false)
 * forgets it.
 */
void cap_kallsyms_defer_block(const char *path, uint64_t at);
/* Was that block handed over undecompressed, and is it still to be read? */
bool cap_kallsyms_block_pending(void);

/*
 * Parse the text kept, if any, into a table @tep's tep_find_function() and
 * tep_find_function_address() then answer from, as after libtraceevent's own parse
 * (once; later calls do nothing). The table lives until cap_kallsyms_defer(false),
 * which takes it from @tep again: call that before tep_free(@tep).
 * Return: 0, or a negative bc_err (-BC_E_FORMAT: a line does not read as kallsyms).
 */
int cap_kallsyms_load(struct tep_handle *tep);

#endif
