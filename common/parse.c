// SPDX-License-Identifier: GPL-2.0
/* Sizes and counts for every command (common/parse.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "common/err.h"
#include "common/parse.h"

/* Digits only: strtoull() would take a sign, spaces and wrap "-1" to 2^64 - 1. */
static int unsigned_prefix(const char *s, int base, uint64_t *v, char **end)
{
	const char *p = s;

	if (!s || !isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*v = strtoull(p, end, base);
	return errno == ERANGE ? -1 : 0;
}

int bc_parse_size(const char *s, uint64_t *bytes)
{
	unsigned int shift = 0;
	uint64_t v;
	char *end;

	if (unsigned_prefix(s, 0, &v, &end))
		return bc_error(BC_E_INVAL, "size '%s': digits with an optional K, M, G or T "
				"suffix (no sign, at most 2^64 - 1 bytes)", s ? s : "");
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift && (*end == 'i' || *end == 'I'))
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return bc_error(BC_E_INVAL, "size '%s': unknown suffix '%s' (K, M, G, T)", s, end);
	if (shift && v > (UINT64_MAX >> shift))
		return bc_error(BC_E_INVAL, "size '%s' is larger than 2^64 - 1 bytes", s);
	*bytes = v << shift;
	return 0;
}

int bc_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;

	if (unsigned_prefix(s, 10, v, &end) || *end || *v < min || *v > max)
		return bc_error(BC_E_INVAL, "'%s' is not a whole number in %llu..%llu",
				s ? s : "", (unsigned long long)min, (unsigned long long)max);
	return 0;
}
