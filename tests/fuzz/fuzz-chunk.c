// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the event-chunk decoder (db/tdb-codec.c), as the capture cursor uses it.
 *
 * Input: byte 0 = number of event types T (1..64, taken modulo), then T bytes of stored
 * field counts per type id (0..TDB_MAX_FIELDS, modulo; 0xff = no such type), then the
 * chunk blob (event_chunks.data). The seeds are chunks of the bundled captures with
 * their own field table (tests/fuzz/mkseed.c).
 *
 * Oracle: every event decoded must encode and decode back to the same event.
 */
#include "db/tdb.h"
#include "tests/fuzz/fuzz.h"

#define MAX_TYPES	64
#define MAX_EVENTS	4096

static void same_event(const struct bc_event *a, const struct bc_event *b)
{
	int i;

	FUZZ_ASSERT(a->ts == b->ts && a->pid == b->pid && a->cpu == b->cpu &&
		    a->type == b->type && a->nfields == b->nfields);
	for (i = 0; i < a->nfields; i++)
		FUZZ_ASSERT(a->field[i] == b->field[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bc_event ev[MAX_EVENTS], back;
	static uint8_t enc[MAX_EVENTS * TDB_MAX_ENC];
	int nf[MAX_TYPES], nr_types, n = 0, i;
	uint64_t prev_ts = 0;
	size_t pos, len;

	if (size < 1)
		return 0;
	nr_types = data[0] % MAX_TYPES + 1;
	if (size < 1 + (size_t)nr_types)
		return 0;
	for (i = 0; i < nr_types; i++)
		nf[i] = data[1 + i] == 0xff ? -1 : data[1 + i] % (TDB_MAX_FIELDS + 1);
	data += 1 + nr_types;
	size -= 1 + (size_t)nr_types;

	pos = 0;
	while (pos < size && n < MAX_EVENTS) {
		size_t at = pos;

		if (tdb_decode_event(data, size, &pos, &prev_ts, nf, nr_types, &ev[n]))
			break;
		FUZZ_ASSERT(pos > at && pos <= size);
		FUZZ_ASSERT(ev[n].nfields <= TDB_MAX_FIELDS);
		n++;
	}

	len = tdb_encode_events(ev, n, nf, nr_types, enc);
	prev_ts = 0;
	pos = 0;
	for (i = 0; i < n; i++) {
		FUZZ_ASSERT(!tdb_decode_event(enc, len, &pos, &prev_ts, nf, nr_types, &back));
		same_event(&ev[i], &back);
	}
	FUZZ_ASSERT(pos == len);
	return 0;
}
