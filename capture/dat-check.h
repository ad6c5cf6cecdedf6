/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dat-check: validate the layout of a trace-cmd trace.dat (file version 6 or 7)
 * before libtracecmd reads it.
 *
 * libtracecmd trusts the sizes and offsets in the file: a damaged header page, page
 * size or CPU table makes it divide by zero or read out of bounds. This walks the
 * file's own structure (header, sections, options, buffer instances, every CPU's
 * offset and size) with bounds checks only, so that damage is a clean error naming
 * the file, the offset and what is wrong. It does not decompress anything: the
 * content of compressed sections is left to libtracecmd, whose decompressor fails
 * cleanly on damage.
 */
#ifndef BC_DAT_CHECK_H
#define BC_DAT_CHECK_H

#include <stdbool.h>
#include <stdint.h>

/* One CPU's ring-buffer data of a buffer. */
struct dat_cpu {
	int cpu;
	uint64_t offset, size;		/* in the file */
	uint64_t data_size;		/* uncompressed bytes: whole pages of ring buffer */
};

/* A buffer: the top one (name "") or an instance (trace-cmd record -B NAME). */
struct dat_buffer {
	char name[128];
	uint32_t page_size;
	int ncpus;
	struct dat_cpu *cpus;		/* malloc'ed, see dat_layout_free() */
};

struct dat_layout {
	int version;			/* 6 or 7 */
	int long_size;			/* 4 or 8 */
	bool big_endian;
	bool compressed;		/* v7 with a compression other than "none" */
	uint32_t page_size;
	uint64_t file_size;
	uint64_t kallsyms_size;		/* bytes of the kallsyms text (compressed: plus the
					 * compressed block); 0 when none. A hint only */
	uint64_t kallsyms_block;	/* file offset of the kallsyms section's compressed
					 * block (its sizes, then the data); 0: none */
	int nbuffers;
	struct dat_buffer *buffers;	/* malloc'ed; the top buffer first when present */
};

/**
 * dat_check() - validate trace.dat @path (a regular file; opened with O_NONBLOCK
 * so that a FIFO is refused, not waited on).
 * Return: 0 and *@out (free with dat_layout_free()), or a negative bc_err whose message
 * names @path, the offset and what is wrong (-BC_E_TRUNCATED when the file ends
 * before something it announces, -BC_E_FORMAT for a bad value, -BC_E_VERSION).
 */
int dat_check(const char *path, struct dat_layout *out);
void dat_layout_free(struct dat_layout *l);

/* The buffer of @l named @name ("" = top), or NULL. */
const struct dat_buffer *dat_buffer_find(const struct dat_layout *l, const char *name);

#endif
