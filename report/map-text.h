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

struct frm_set;
struct frm_frame;

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

#endif
