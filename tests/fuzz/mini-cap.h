/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small made-up capture of the fuzz targets: one Normal zone [0x1000, 0x2000) of
 * 8 pageblocks, a snapshot before and after ~40 page events (allocations, frees, a pcp
 * drain, one alloc_contig_range() attempt) and two markers. Small enough (a few tens of
 * KiB, 512-byte SQLite pages) for libFuzzer to mutate as a whole file.
 */
#ifndef BC_FUZZ_MINI_CAP_H
#define BC_FUZZ_MINI_CAP_H

/* Write the capture to @path (replaced). Return: 0 or a negative bc_err. */
int fuzz_mini_capture(const char *path);

#endif
