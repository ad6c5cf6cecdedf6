// SPDX-License-Identifier: GPL-2.0
/*
 * Times and durations (syntax in tr-time.h). Durations are parsed exactly, in integer
 * arithmetic: "0.1s" is 100000000 ns, not whatever a double rounds it to.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-trace.h"
#include "trace/tr-time.h"

static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	{ "m", 60000000000ull }, { "h", 3600000000000ull },
};

#define DURATION_HELP	"a duration is a number with a unit (ns, us, ms, s, m, h), " \
			"e.g. 30s, 500ms, 1.5m; a bare number is seconds"

/* Digits of @p into *@v (overflow-checked); returns the number of digits, -1 on overflow. */
static int digits(const char **p, unsigned __int128 *v, int max)
{
	int n = 0;

	*v = 0;
	while (**p >= '0' && **p <= '9') {
		if (n == max)
			return -1;
		*v = *v * 10 + (unsigned int)(**p - '0');
		(*p)++;
		n++;
	}
	return n;
}

int tr_parse_duration(const char *s, uint64_t *ns)
{
	unsigned __int128 whole, frac, scale = 1, v;
	const char *p = s;
	uint64_t mult = 0;
	int nw, nf = 0, i;
	size_t k;

	if (!s || !*s)
		return bc_error(BC_E_INVAL, "empty duration: %s", DURATION_HELP);
	nw = digits(&p, &whole, 20);
	if (nw >= 0 && *p == '.') {
		p++;
		nf = digits(&p, &frac, 18);
		if (!nf)		/* "1." or ".": a dot needs digits after it */
			return bc_error(BC_E_INVAL, "'%s' is not a duration: %s", s, DURATION_HELP);
	} else {
		frac = 0;
	}
	if (nw < 0 || nf < 0)
		return bc_error(BC_E_INVAL, "'%s': too large a duration", s);
	if (nw + nf == 0)
		return bc_error(BC_E_INVAL, "'%s' is not a duration: %s", s, DURATION_HELP);
	if (!*p)
		mult = 1000000000;
	for (k = 0; k < sizeof(units) / sizeof(units[0]) && !mult; k++)
		if (!strcmp(p, units[k].name))
			mult = units[k].ns;
	if (!mult)
		return bc_error(BC_E_INVAL, "'%s' is not a duration: %s", s, DURATION_HELP);
	for (i = 0; i < nf; i++)
		scale *= 10;
	if ((frac * mult) % scale)
		return bc_error(BC_E_INVAL, "'%s': finer than a nanosecond", s);
	v = whole * mult + frac * mult / scale;
	if (v > UINT64_MAX)
		return bc_error(BC_E_INVAL, "'%s': too large a duration", s);
	*ns = (uint64_t)v;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The absolute ts of a numeric @spec (bare ns, or an offset from @first). */
static int spec_ts(const char *spec, uint64_t first, uint64_t *t)
{
	unsigned __int128 v;
	const char *p = spec;
	uint64_t off;

	if (all_digits(spec)) {
		if (digits(&p, &v, 20) < 0 || v > UINT64_MAX)
			return bc_error(BC_E_INVAL, "'%s': too large a time", spec);
		*t = (uint64_t)v;
		return 0;
	}
	if (tr_parse_duration(spec, &off))
		return bc_error(BC_E_INVAL, "'%s' is not a time: give ns of the trace clock "
				"(123456789), a time from the capture's first event with a unit "
				"(12.5s, 500ms, 2m), or marker:TEXT", spec);
	if (off > UINT64_MAX - first)
		return bc_error(BC_E_INVAL, "'%s': too large a time", spec);
	*t = first + off;
	return 0;
}

int tr_parse_time(struct tdb *db, const char *spec, uint64_t *seq, uint64_t *ts)
{
	uint64_t t = 0, first, last, from;
	struct tdb_cursor *cur;
	struct bc_event ev;
	int ret;

	if (!strncmp(spec, "marker:", 7)) {
		const char *text = spec + 7;

		ret = tdb_marker_find(db, text, true, seq, ts);
		if (ret == 0)
			return bc_error(BC_E_NOENT, "%s: no trace_marker begins with '%s' (see "
					"'bigchunk query %s \"SELECT ts, text FROM markers\"')",
					tdb_path(db), text, tdb_path(db));
		return ret < 0 ? ret : 0;
	}
	ret = tdb_ts_bounds(db, &first, &last);
	if (!ret)
		ret = spec_ts(spec, first, &t);
	if (ret)
		return ret;
	if (t < first || t > last)
		return bc_error(BC_E_INVAL, "'%s' (ts %" PRIu64 ") is %s the capture's events "
				"(ts %" PRIu64 " to %" PRIu64 ", %.3f s)", spec, t,
				t < first ? "before" : "after", first, last, (last - first) / 1e9);
	/* Start from the first chunk that ends at or after t. */
	ret = tdb_chunk_seq_at(db, t, &from);
	if (!ret)
		ret = tdb_cursor_open(db, from, UINT64_MAX, &cur);
	if (ret)
		return ret;
	*seq = (uint64_t)tdb_event_count(db);
	*ts = t;
	while ((ret = tdb_cursor_next(cur, &ev)) == 1) {
		if (ev.ts >= t) {
			*seq = ev.seq;
			break;
		}
	}
	tdb_cursor_close(cur);
	return ret < 0 ? ret : 0;
}
