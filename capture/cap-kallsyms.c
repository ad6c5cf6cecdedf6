// SPDX-License-Identifier: GPL-2.0
/*
 * cap-kallsyms: deferred parsing of a trace.dat's kallsyms text (see cap-kallsyms.h).
 * One text is kept at a time: an import opens one file.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "capture/cap-kallsyms.h"
#include "common/err.h"

static bool deferring;
static char *kept;

typedef int (*parse_fn)(struct tep_handle *tep, const char *buf);

/* libtraceevent's tep_parse_kallsyms(), the one ours stands in front of. */
static parse_fn real_parse(void)
{
	static parse_fn fn;

	if (!fn)
		fn = (parse_fn)dlsym(RTLD_NEXT, "tep_parse_kallsyms");
	return fn;
}

int tep_parse_kallsyms(struct tep_handle *tep, const char *buf)
{
	parse_fn fn;

	if (deferring && buf) {
		char *copy = strdup(buf);

		if (copy) {
			free(kept);
			kept = copy;
			return 0;
		}
	}
	fn = real_parse();
	return fn ? fn(tep, buf) : -1;
}

void cap_kallsyms_defer(bool on)
{
	deferring = on;
	if (!on) {
		free(kept);
		kept = NULL;
	}
}

int cap_kallsyms_load(struct tep_handle *tep)
{
	parse_fn fn;
	char *text = kept;
	int ret;

	if (!text)
		return 0;
	kept = NULL;
	fn = real_parse();
	ret = fn ? fn(tep, text) : -1;
	free(text);
	if (ret)
		return bc_error(BC_E_FORMAT, "capture: the trace's kallsyms could not be parsed");
	return 0;
}
