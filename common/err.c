// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

static __thread char errbuf[1024];

#define _E(code, str) [BC_E_##code] = str,
static const char *const bc_errstr[] = { BC_ERRORS };
#undef _E

const char *bc_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= BC_E_MAX)
		return "unknown error";
	return bc_errstr[err];
}

int bc_error(int err, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	errno = saved;		/* keep %m meaningful */
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	return err > 0 ? -err : err;
}

int bc_error_prefix(int ret, const char *fmt, ...)
{
	char old[sizeof(errbuf)];
	va_list ap;
	int n;

	memcpy(old, errbuf, sizeof(old));
	va_start(ap, fmt);
	n = vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(errbuf) - 2) {
		errbuf[n++] = ':';
		errbuf[n++] = ' ';
		memcpy(errbuf + n, old, sizeof(errbuf) - n - 1);
		errbuf[sizeof(errbuf) - 1] = 0;
	}
	return ret;
}

const char *bc_errmsg(void)
{
	return errbuf[0] ? errbuf : "no error message";
}
