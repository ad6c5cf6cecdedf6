/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cap-probe: ground truth from the live kernel at the end of a recording
 * ('bigchunk record --probe 1G[:K] --probe-offline N').
 *
 * While tracing is still on, the probes make the kernel do real contiguous attempts
 * and store what it did, so that 'bigchunk predict --verify' can compare its
 * predictions with the kernel's own outcome:
 *
 *   hugetlb_1g  grow the 1 GiB hugetlb pool one page at a time (each write of
 *               nr_hugepages + 1 is one alloc_contig_pages() search, as writing K at
 *               once would do K of them, stopping at the first failure); after each
 *               write the new page is located from its /proc/kpageflags head
 *               (HUGE|COMPOUND_HEAD at a 1 GiB-aligned pfn). The pool is written back
 *               to its original size at the end.
 *   offline     offline, then at once online again, N memory blocks chosen evenly
 *               among the online, initialised blocks of ZONE_NORMAL. The "offline"
 *               write runs in a child process that is killed after a time limit
 *               (offline_pages() retries pinned pages forever; a signal makes it
 *               return -EINTR). The culprit pfn is read from /dev/kmsg: "page dumped
 *               because: unmovable page" (isolation) or "migrating pfn ... failed".
 *
 * Each probe (and each hugetlb step) is bracketed by trace_marker lines in the
 * recording instance (CAP_PROBE_MARKER_* below). Results go to the tables probes and
 * probe_pages (db/schema.sql, db/README.md).
 *
 * State owned here for the duration of cap_probe_run(): the hugetlb pool size and
 * the state of the probed memory blocks. Both are put back before it returns, on
 * success, on error and after a stop request (*o->stop, set by SIGINT/SIGTERM
 * handlers); stop signals are held while a restoring write is in progress. Only a
 * SIGKILL of the recorder can leave them changed; the next probe run reports that.
 * Callers must serialise live experiments (flock(1) or flock(2) on a lock file).
 */
#ifndef BC_CAP_PROBE_H
#define BC_CAP_PROBE_H

#include <stdbool.h>
#include <stdint.h>

struct tdb;

/*
 * Marker lines (MONO = CLOCK_MONOTONIC ns, decimal):
 *   "bigchunk probe ID KIND begin MONO"             KIND: hugetlb_1g | offline
 *   "bigchunk probe ID KIND end MONO"
 *   "bigchunk probe ID hugetlb_1g step I begin MONO" one per 1 GiB page asked for
 *   "bigchunk probe ID hugetlb_1g step I end MONO"
 *   "bigchunk probe ID offline restore begin MONO"   the online write after a success
 * ID is probes.id. Markers sort before the next event (markers.seq).
 */
#define CAP_PROBE_MARKER_PREFIX		"bigchunk probe "

#define CAP_PROBE_1G_DEFAULT		8
#define CAP_PROBE_OFFLINE_TIMEOUT_NS	(3ULL * 1000 * 1000 * 1000)
#define CAP_PROBE_1G_PAGES		262144ULL	/* 4 KiB pages in 1 GiB */

struct cap_probe_opts {
	unsigned int hugetlb_1g;	/* 1 GiB pages to ask for; 0: no hugetlb probe */
	unsigned int offline_blocks;	/* memory blocks to offline and online; 0: none */
	uint64_t offline_timeout_ns;	/* per block; 0: CAP_PROBE_OFFLINE_TIMEOUT_NS */
	/*
	 * Take a page-state snapshot (label "probe") just before the first probe, so
	 * that replay can resynchronise the model right before the attempts.
	 */
	bool snapshot_before;
	volatile int *stop;		/* non-zero: stop probing (then restore); may be NULL */
	void (*note)(const char *msg, void *arg);	/* one line, no newline; may be NULL */
	void *arg;
};

/**
 * cap_probe_parse_1g() - parse the argument of --probe: "1G" or "1G:K" (K >= 1).
 * Return: 0 and *@k, or -BC_E_INVAL with a message.
 */
int cap_probe_parse_1g(const char *arg, unsigned int *k);

/**
 * cap_probe_run() - run the probes of @o against the live kernel and store the
 * results in @db.
 * @db:        the capture being recorded (open for writing).
 * @marker_fd: trace_marker of the recording instance, or -1 (no markers: the results
 *             cannot be placed in the trace, only stored).
 * @o:         what to probe.
 *
 * Needs root. Probes that cannot run here (no 1 GiB hugetlb support, no suitable
 * memory block) are reported through @o->note and stored as rows with success 0 and
 * the reason in 'detail'; they are not errors.
 *
 * Return: 0, -BC_E_INTR when *@o->stop ended the probes early (what was done is
 * stored and restored), -BC_E_IO when a pool or block could not be restored (the
 * message says what is left changed), or another negative bc_err.
 */
int cap_probe_run(struct tdb *db, int marker_fd, const struct cap_probe_opts *o);

#endif
