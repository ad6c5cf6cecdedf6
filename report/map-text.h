/* SPDX-License-Identifier: GPL-2.0 */
/*
 * map-text: a frame (report/frames.h) as text, for `bigchunk map`: a row per 1 GiB
 * with its start address, one character per pageblock or per N pageblocks to fit
 * the width, the row's 1 GiB verdict and the zones that start in it, then a legend.
 * Colour is ANSI (256 colours, the pbmap palette) only when asked for.
 */
#ifndef BC_MAP_TEXT_H
#define BC_MAP_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include <stdint.h>

struct frm_set;
struct frm_frame;
struct model;

enum map_text_by { MAP_TEXT_CONTENT, MAP_TEXT_MIGRATETYPE };

struct map_text_opts {
	unsigned int cols;		/* terminal width, at least MAP_TEXT_MIN_COLS */
	bool colour;
	enum map_text_by by;
};

#define MAP_TEXT_MIN_COLS 40

/* Pageblocks per character for @cols on the rows of @s. */
unsigned int map_text_per_char(const struct frm_set *s, unsigned int cols);

/**
 * map_text_write() - write frame @f of @s to @fp as above.
 * Return: 0, or -BC_E_IO when writing failed.
 */
int map_text_write(FILE *fp, const struct frm_set *s, const struct frm_frame *f,
		   const struct map_text_opts *o);

/**
 * map_text_pageblock() - the zoom into one pageblock, as the report's click shows it:
 * the pageblock holding @pfn on @m (the state of frame @f of @s), its page counts
 * (pbm_counts()), and one character per page (pbm_pages()), 64 to a line after the
 * line's first pfn; the page that stops the row's 1 GiB allocation is named when it
 * lies there. Always by content.
 * Return: 0, -BC_E_INVAL when @pfn is outside the map, -BC_E_IO when writing failed,
 * or another negative bc_err.
 */
int map_text_pageblock(FILE *fp, const struct model *m, const struct frm_set *s,
		       const struct frm_frame *f, uint64_t pfn, const struct map_text_opts *o);

#endif
