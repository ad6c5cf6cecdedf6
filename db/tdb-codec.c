// SPDX-License-Identifier: GPL-2.0
/*
 * Event chunk codec. A chunk is a sequence of events, each:
 *   uvarint type, uvarint cpu, uvarint (ts - previous ts in chunk; first: ts itself),
 *   zigzag pid, then nfields(type) zigzag values.
 * Deltas keep typical events near 15 bytes and decoding needs no lookups besides the
 * per-type field count. Writers feed time order; a ts that goes backwards still round
 * trips (the delta wraps modulo 2^64), it only costs ten bytes.
 */
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"

size_t bc_put_uvarint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

int bc_get_uvarint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t r = 0;
	size_t i = *pos;
	int shift = 0;

	while (i < len) {
		uint8_t b = p[i++];

		if (shift == 63 && b > 1)
			return -BC_E_FORMAT;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pos = i;
			*v = r;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return -BC_E_FORMAT;
	}
	return -BC_E_TRUNCATED;
}

size_t tdb_encode_events(const struct bc_event *ev, int n, const int *nfields_by_type,
			 int nr_types, uint8_t *buf)
{
	uint64_t prev_ts = 0;
	size_t pos = 0;
	int i, j;

	for (i = 0; i < n; i++) {
		const struct bc_event *e = &ev[i];
		int nf = e->type < nr_types ? nfields_by_type[e->type] : 0;

		pos += bc_put_uvarint(buf + pos, e->type);
		pos += bc_put_uvarint(buf + pos, e->cpu);
		pos += bc_put_uvarint(buf + pos, e->ts - prev_ts);
		pos += bc_put_uvarint(buf + pos, bc_zigzag(e->pid));
		for (j = 0; j < nf; j++)
			pos += bc_put_uvarint(buf + pos, bc_zigzag(j < e->nfields ? e->field[j] : 0));
		prev_ts = e->ts;
	}
	return pos;
}

/*
 * bc_get_uvarint() without a bounds check per byte when ten bytes remain: values of
 * up to nine bytes decode here, the rest (and every error) in bc_get_uvarint().
 */
static inline int get_uvarint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v)
{
	size_t i = *pos;
	uint64_t r = 0;
	int shift;

	if (len - i < 10 || i > len)
		return bc_get_uvarint(p, len, pos, v);
	if (p[i] < 0x80) {		/* one byte: type, cpu and most small fields */
		*pos = i + 1;
		*v = p[i];
		return 0;
	}
	for (shift = 0; shift < 63; shift += 7) {
		uint8_t b = p[i++];

		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pos = i;
			*v = r;
			return 0;
		}
	}
	return bc_get_uvarint(p, len, pos, v);
}

int tdb_decode_event(const uint8_t *buf, size_t len, size_t *pos, uint64_t *prev_ts,
		     const int *nfields_by_type, int nr_types, struct bc_event *ev)
{
	uint64_t v[4];
	int i, ret, nf;

	for (i = 0; i < 4; i++) {
		ret = get_uvarint(buf, len, pos, &v[i]);
		if (ret)
			return ret;
	}
	if (v[0] >= (uint64_t)nr_types || nfields_by_type[v[0]] < 0 || v[1] > 0xffff)
		return -BC_E_FORMAT;
	ev->type = (uint16_t)v[0];
	ev->cpu = (uint16_t)v[1];
	ev->ts = *prev_ts + v[2];
	*prev_ts = ev->ts;
	ev->pid = (int32_t)bc_unzigzag(v[3]);
	nf = nfields_by_type[v[0]];
	ev->nfields = (uint16_t)nf;
	for (i = 0; i < nf; i++) {
		uint64_t x;

		ret = get_uvarint(buf, len, pos, &x);
		if (ret)
			return ret;
		ev->field[i] = bc_unzigzag(x);
	}
	return 0;
}
