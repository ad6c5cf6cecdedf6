/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tr-time: the one syntax of times and durations for every command.
 *
 * A duration is a decimal number with a unit: ns, us, ms, s, m (minutes) or h, e.g.
 * "30s", "500ms", "1.5m", "2h"; a bare number means seconds ("30" = "30s"). No sign,
 * no exponent, at most nanosecond precision, at most 2^64-1 ns.
 *
 * A time in a capture is one of
 *   "TS"          a bare integer: ns of the trace clock, as the ts columns store it;
 *   "D" + unit    a duration as above: that long after the capture's first event
 *                 ("12.5s", "0s" = the first event);
 *   "marker:TEXT" the first trace_marker whose text begins with TEXT.
 * A time before the capture's first event or after its last one is an error (nothing
 * is clamped); a marker is always inside its capture.
 */
#ifndef BC_TR_TIME_H
#define BC_TR_TIME_H

#include <stdint.h>

struct tdb;

/**
 * tr_parse_duration() - parse @s as a duration.
 * Return: 0 and *@ns, or -BC_E_INVAL with a message saying what is wrong.
 */
int tr_parse_duration(const char *s, uint64_t *ns);

/**
 * tr_parse_time() - resolve @spec in capture @db to the seq of the first event at or
 * after it (for a marker: the marker's seq, the event it sorts before) and its ts of
 * the trace clock.
 * Return: 0 and *@seq, *@ts; -BC_E_INVAL (bad syntax, outside the capture),
 * -BC_E_NOENT (no such marker, no events), or another negative bc_err.
 */
int tr_parse_time(struct tdb *db, const char *spec, uint64_t *seq, uint64_t *ts);

#endif
