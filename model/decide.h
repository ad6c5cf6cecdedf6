/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decide.h - the allocator's own decisions: given a request (cpu, order, gfp,
 * migratetype) and the model's state, which pfn the kernel hands out, from which list.
 *
 * Placeholder copy of the contract between the "decide" and "freerun" work of
 * `bigchunk simulate`: the decide branch owns this header and its implementation;
 * until it is merged, sim/decide-shim.c implements it thinly (and is deleted then).
 */
#ifndef BC_MODEL_DECIDE_H
#define BC_MODEL_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

struct model;

/* Where the kernel's page came from (what the trace tells for real requests). */
enum model_source { MODEL_SRC_PCP, MODEL_SRC_REFILL, MODEL_SRC_BUDDY,
		    MODEL_SRC_FALLBACK, MODEL_SRC_NONE };

struct model_request {
	int cpu;			/* CPU the request ran on (pcp lists) */
	unsigned int order;
	int migratetype;		/* trace numbering of the profile (gfp_migratetype) */
	uint32_t gfp;			/* gfp_flags as traced (ALLOC_NOFRAGMENT, zone, CMA...) */
};

struct model_decision {
	uint64_t pfn;			/* first pfn handed out; meaningful unless source NONE */
	enum model_source source;
	int zone;			/* zone index */
	int fallback_mt;		/* list type taken from on a fallback, else -1 */
	bool claimed;			/* the fallback re-typed (claimed) the pageblock */
};

/* What the kernel would hand out now; the model's state is left unchanged. */
int model_decide(struct model *m, const struct model_request *rq, struct model_decision *out);
/* The same, and the model does it (refill, expand, claim/steal, counters).
 * Returns 1 (source NONE) when no zone of the request can serve it above its
 * watermark: the caller counts "would have needed reclaim". */
int model_take(struct model *m, const struct model_request *rq, struct model_decision *out);
/* Free of a block the simulation handed out, as the kernel would do it: pcp head
 * or buddy (free_frozen_pages / __free_one_page), pcp high exceeded -> drain
 * (free_pcppages_bulk) by the kernel's batch/high rules. */
int model_give(struct model *m, int cpu, uint64_t pfn, unsigned int order);

#endif
