/* SPDX-License-Identifier: GPL-2.0 */
/*
 * predict-json: an answer's blocking page as JSON, one shape for every writer
 * (predict --json, the HTML report's data).
 */
#ifndef BC_PREDICT_JSON_H
#define BC_PREDICT_JSON_H

#include "predict/predict.h"

struct json;

/* "free", "pcp", "in-use", "hole", "uninit": the state of a pfn in words. */
const char *pr_pfn_state_name(enum model_pfn_state s);

/*
 * pr_json_blocker() - write @b as an object: pfn, state, kind ("slab", or the state
 * when the page is not in use), reason, head, order, migratetype,
 * pageblock_migratetype, uncertain, and event: the allocation that made it so (seq,
 * ts, cpu, pid, comm, order, gfp, migratetype, stack as an array of frames) or null.
 */
void pr_json_blocker(struct json *j, const struct pr_blocker *b);

#endif
