// SPDX-License-Identifier: GPL-2.0
/*
 * predict-json: blocking pages as JSON (predict-json.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "predict/predict-json.h"

const char *pr_pfn_state_name(enum model_pfn_state s)
{
	switch (s) {
	case MODEL_PFN_HOLE: return "hole";
	case MODEL_PFN_UNINIT: return "uninit";
	case MODEL_PFN_BUDDY: return "free";
	case MODEL_PFN_PCP: return "pcp";
	default: return "in-use";
	}
}

/* The allocation event behind a blocker, its stack one frame per element. */
static void json_event(struct json *j, const struct pr_alloc_event *ev)
{
	char *s, *line, *save = NULL;

	json_obj_begin(j);
	json_kuint(j, "seq", ev->seq);
	json_kuint(j, "ts", ev->ts);
	json_kint(j, "cpu", ev->cpu);
	json_kint(j, "pid", ev->pid);
	json_kstr(j, "comm", ev->comm[0] ? ev->comm : NULL);
	json_kuint(j, "order", ev->order);
	json_kuint(j, "gfp", ev->gfp);
	json_kint(j, "migratetype", ev->mt);
	json_key(j, "stack");
	if (!ev->stack) {
		json_null(j);
	} else {
		s = strdup(ev->stack);
		json_arr_begin(j);
		for (line = s ? strtok_r(s, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			json_str(j, line);
		json_arr_end(j);
		free(s);
	}
	json_obj_end(j);
}

void pr_json_blocker(struct json *j, const struct pr_blocker *b)
{
	json_obj_begin(j);
	json_kuint(j, "pfn", b->pfn);
	json_kstr(j, "state", pr_pfn_state_name(b->state));
	json_kstr(j, "kind", b->state == MODEL_PFN_ALLOC ? model_kind_name(b->kind) :
		  pr_pfn_state_name(b->state));
	json_kstr(j, "reason", b->reason);
	json_kuint(j, "head", b->head);
	json_kuint(j, "order", b->order);
	json_kint(j, "migratetype", b->mt);
	json_kint(j, "pageblock_migratetype", b->pageblock_mt);
	json_kbool(j, "uncertain", b->uncertain);
	json_key(j, "event");
	if (!b->ev.found)
		json_null(j);
	else
		json_event(j, &b->ev);
	json_obj_end(j);
}
