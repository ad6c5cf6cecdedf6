/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim-requests: a capture's requests to the page allocator, as a free-running model
 * must make them again: what was asked, not where the kernel put it. Read through the
 * read side (db cursor, trace/ decoder):
 *   - an allocation (mm_page_alloc with a pfn): cpu, order, gfp, migratetype, and the
 *     kernel's pfn as the object's identity;
 *   - a free (mm_page_free): the kernel's pfn and order;
 *   - a contiguous allocation the kernel made (a real alloc_contig_range() attempt that
 *     succeeded, trace/tr-attempt.h): its size, after its last test_pages_isolated();
 *     and one the kernel failed (failed set: the last attempt of an alloc_contig_pages()
 *     call, or a hugetlb probe's step that got no page; tr_contig_calls()): what-if
 *     runs ask it again, the simulator skips it;
 *   - a memory-block offline that succeeded (offline_pages()): its range, likewise;
 *   - a failed attempt that got past its isolation (it migrated or tested): the range
 *     is isolated at its first event and undone after its last, as the kernel held it
 *     (start_isolate_page_range(): its free pages, and the pages freed into it while
 *     the attempt migrates, are not allocatable meanwhile).
 * The kernel's own moves are requests too: a migration (compaction, an attempt) is an
 * allocation of the target and a free of the source; memory coming online is freed
 * pages. What only the kernel decides (pcp refills and drains, fallbacks, zone_locked)
 * is not a request, with one exception: a drain (mm_page_pcpu_drain) is handed out too,
 * since for a page the seed read with flags 0 it is the only word that the page was
 * a free pcp page and not a kernel page (the consumer decides which drains it takes).
 * Where the capture traces vmstat_update() (meta traced_work_fn), each run is handed
 * out as well: a timer's work the model cannot place itself.
 * Failed allocations are counted, not replayed.
 */
#ifndef BC_SIM_REQUESTS_H
#define BC_SIM_REQUESTS_H

#include <stdbool.h>
#include <stdint.h>

struct tdb;
struct tr_decoder;
struct tr_attempt;

enum sim_req_kind {
	SIM_REQ_ALLOC,
	SIM_REQ_FREE,
	SIM_REQ_CONTIG,			/* alloc_contig_pages() of nr_pages */
	SIM_REQ_OFFLINE,		/* offline_pages() of [pfn, pfn + nr_pages) */
	SIM_REQ_PCP_DRAIN,		/* the kernel drained its pcp page at pfn (mt: list) */
	SIM_REQ_ISOLATE,		/* a failed attempt isolated [pfn, pfn + nr_pages) */
	SIM_REQ_UNISOLATE,		/* ... and undid it (offline: mt 1, else 0) */
	SIM_REQ_REFUSED,		/* an offline whose isolation the kernel refused
					 * at refused_pfn: its blocks re-typed, no event */
	SIM_REQ_VMSTAT,			/* vmstat_update() ran on cpu (pfn UINT64_MAX) */
	SIM_REQ_SETTLE,			/* the refill of cpu's held allocation ended: the
					 * zone's NR_FREE_PAGES now counts it */
};

struct sim_request {
	enum sim_req_kind kind;
	uint64_t seq, ts;		/* the event (attempts: their last test) */
	int cpu;
	unsigned int order;
	int mt;				/* requested migratetype (trace numbering) */
	uint64_t gfp;
	uint64_t pfn;			/* the kernel's pfn: the object's identity */
	uint64_t nr_pages;		/* CONTIG, OFFLINE: pages; else 2^order */
	bool failed;			/* CONTIG: the kernel's call failed */
	bool reused;			/* FREE: taken again with no event before its next
					 * free (sim_ahead_find()) */
	bool early;			/* ALLOC: handed out at its decision, before other
					 * cpus' requests its event follows */
	bool held;			/* ... while its refill ran on to a SETTLE
					 * (sim_ahead_find()) */
	bool hit;			/* ALLOC, early: a high-order pcp hit, made the
					 * zeroing time before its event, not at a
					 * zone_locked (sim_ahead_find()) */
	bool inferred;			/* ALLOC: one the trace does not show, inferred
					 * (sim_ahead_find()); no event of its own */
	bool past;			/* FREE: past the locked pcp list, to the buddy
					 * (sim_ahead_find()) */
	bool deferred;			/* FREE: a batch's, handed out at its commit
					 * (mm_page_free_batched; sim_ahead_find()) */
	uint64_t refused_pfn;		/* REFUSED: has_unmovable_pages()'s page */
};

struct sim_reqs;
struct sim_ahead;

/*
 * Requests of events [@seq_from, @seq_to), with the successful attempts of @att
 * (@nr_att, by seq_begin; borrowed) whose last event lies in that window, the
 * isolation windows of its failed ones, and the offline probes of @ref (@nr_ref,
 * tr_probe_refusals(); borrowed, may be NULL) whose isolation the kernel refused.
 * Return: 0 and *@out (free with sim_reqs_close()), or a negative bc_err.
 */
int sim_reqs_open(struct tdb *db, const struct tr_decoder *dec, const struct tr_attempt *att,
		  int nr_att, const struct tr_attempt *ref, int nr_ref, uint64_t seq_from,
		  uint64_t seq_to, struct sim_reqs **out);
/* Hand requests out as @a (borrowed) says. */
void sim_reqs_set_ahead(struct sim_reqs *it, const struct sim_ahead *a);
/* Return: 1 and *@rq, 0 at the end, or a negative bc_err. */
int sim_reqs_next(struct sim_reqs *it, struct sim_request *rq);
/* Events read so far, and the failed allocations among them (not replayed). */
uint64_t sim_reqs_events(const struct sim_reqs *it);
uint64_t sim_reqs_failed_allocs(const struct sim_reqs *it);
void sim_reqs_close(struct sim_reqs *it);

#endif
