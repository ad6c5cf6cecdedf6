/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capture: turn kernel trace records (live tracefs or trace.dat) and page-state
 * snapshots into a tdb capture file.
 *
 * Both sources decode records the same way (cap-decode.c): fields are looked up by
 * name in each event's format (cached per type), every numeric field is stored, old
 * layouts are accepted, and ring-buffer gaps become lost_events rows.
 */
#ifndef BC_CAPTURE_H
#define BC_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

struct tdb;
struct tep_handle;
struct tep_record;

/* Events recorded by default, "system:event" or "system:*". NULL-terminated. */
extern const char *const cap_default_events[];

struct cap_decoder;

/**
 * cap_decoder_create() - prepare decoding of records parsed by @tep into @db.
 * @events: NULL-terminated "system:event" list ("system:*" = every event of the
 *          system present in @tep). Each one is registered in event_types with its
 *          format text; one that @tep lacks is registered as missing (not an error;
 *          a missing "system:*" is registered as 'system:*').
 * ftrace:print is stored as markers, ftrace:kernel_stack as the stack of the
 * previous event on the same CPU.
 * Return: 0 and *@out (caller frees with cap_decoder_destroy()), or a negative bc_err.
 */
int cap_decoder_create(struct tdb *db, struct tep_handle *tep, const char *const *events,
		       struct cap_decoder **out);

/**
 * cap_decode_record() - decode one record (records must come in time order across
 * CPUs) and append it to the db. Records of types not asked for are counted and
 * skipped. A record with missed_events != 0 first adds a lost_events row.
 * Return: 0 or a negative bc_err.
 */
int cap_decode_record(struct cap_decoder *d, struct tep_record *rec, int cpu);

/* Counters for progress and the end summary. */
struct cap_decode_stats {
	uint64_t events;	/* stored */
	uint64_t markers;
	uint64_t stacks;
	uint64_t skipped;	/* types not asked for */
	uint64_t lost;		/* events known lost (sum of positive counts) */
	uint64_t gaps;		/* lost_events rows */
};
void cap_decoder_stats(const struct cap_decoder *d, struct cap_decode_stats *st);

/* Frees the decoder (not the db or tep). NULL is allowed. */
void cap_decoder_destroy(struct cap_decoder *d);

#endif
