/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse: the number syntaxes every command shares, so that one option means one thing
 * in every command: sizes ("64M", "1GiB", "4096") and counts ("8"). Both refuse what
 * strtoull() silently accepts: a sign ("-1G" wraps to 2^64 - 2^30), overflow, empty
 * text and trailing junk. Times and durations need the capture (marker:TEXT, offsets
 * from its first event) and live in the read side.
 */
#ifndef BC_PARSE_H
#define BC_PARSE_H

#include <stdint.h>

/**
 * bc_parse_size() - a size in bytes: decimal digits (or 0x hex) with an optional
 * binary suffix K, M, G, T (powers of 1024), optionally followed by "i" and/or "B":
 * "64M", "64MiB", "1g", "4096".
 * Return: 0 and *@bytes, or -BC_E_INVAL with a message quoting @s (negative, overflow
 * past 2^64 - 1, empty, unknown suffix).
 */
int bc_parse_size(const char *s, uint64_t *bytes);

/**
 * bc_parse_count() - a decimal count in [@min, @max].
 * Return: 0 and *@v, or -BC_E_INVAL with a message quoting @s and the range.
 */
int bc_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *v);

#endif
