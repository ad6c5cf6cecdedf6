// SPDX-License-Identifier: GPL-2.0
/*
 * Free-running simulation throughput on one capture, against plain replay in the same
 * run (best of 5 each; CPU time of the process, kernel included: on a shared machine
 * wall time measures the others too):
 *   replay   bigchunk's replay of every event from the file (rp_run, no scoring)
 *   file     the simulation's requests read from the file and made on the model
 *   memory   the same requests preloaded, made on a model seeded afresh
 * and the figures' 2 MiB / 1 GiB "in a row" counts on the seeded model (each snapshot
 * of a simulate run makes them) through a copy of the state (model_state_save(), what
 * simulate does) against the undo journal (what it did before): time, memory, counts.
 * Requests are those of sim/sim-requests.h after the first snapshot (the capture's real
 * attempts are left out: their cost is the contiguous search's, not the allocator's).
 * usage: bench-simulate CAPTURE.db
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/err.h"
#include "db/tdb.h"
#include "db/tdb-snap.h"
#include "replay/replay.h"
#include "sim/sim-apply.h"
#include "sim/sim-contig.h"
#include "sim/sim-requests.h"

#define TARGET_RPS	5e6

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void fail(const char *what)
{
	fprintf(stderr, "bench-simulate: %s: %s\n", what, bc_errmsg());
	exit(2);
}

/* A replay seeded from the first snapshot and run to its end: the simulation's start. */
static struct replay *seeded(struct tdb *db, uint64_t seed_end)
{
	struct rp_opts o = { .until_seq = seed_end, .no_score = true, .no_attempts = true };
	struct replay *rp;

	if (rp_create(db, &o, &rp) || rp_run(rp, NULL))
		fail("seed");
	return rp;
}

static double replay_time(struct tdb *db)
{
	struct rp_opts o = { .until_seq = UINT64_MAX, .no_score = true, .no_resync = true };
	struct replay *rp;
	double t0;

	if (rp_create(db, &o, &rp))
		fail("replay");
	t0 = now();
	if (rp_run(rp, NULL))
		fail("replay");
	t0 = now() - t0;
	rp_destroy(rp);
	return t0;
}

/* Requests from the file (@in NULL) or from @in, made on a fresh seeded model. */
static double sim_time(struct tdb *db, uint64_t from, const struct sim_request *in, uint64_t n,
		       uint64_t *nreq)
{
	struct replay *rp = seeded(db, from);
	struct sim_stats st = { 0 };
	struct sim_apply *a;
	struct sim_reqs *it;
	struct sim_request rq[SIM_BATCH];
	double t0;
	uint64_t i;
	int ret, j, k;

	if (sim_apply_create(rp_model(rp), &st, &a))
		fail("sim");
	t0 = now();
	if (in) {
		for (i = 0; i < n; i++) {
			sim_apply_ahead(a, &in[i], n - i < SIM_BATCH ? (int)(n - i) : SIM_BATCH, 0);
			if (sim_apply_request(a, &in[i]))
				fail("request");
		}
	} else {
		/* as sim.c's run_window() */
		if (sim_reqs_open(db, rp_decoder(rp), NULL, 0, NULL, 0, from, UINT64_MAX, &it))
			fail("requests");
		do {
			for (k = 0; k < SIM_BATCH && (ret = sim_reqs_next(it, &rq[k])) == 1; k++)
				;
			for (j = 0; j < k; j++) {
				sim_apply_ahead(a, rq, k, j);
				if (sim_apply_request(a, &rq[j]))
					fail("request");
			}
		} while (ret == 1);
		sim_reqs_close(it);
		if (ret < 0)
			fail("requests");
	}
	t0 = now() - t0;
	*nreq = st.requests;
	sim_apply_destroy(a);
	rp_destroy(rp);
	return t0;
}

/* The contiguous counts of a snapshot, by copy then by journal, on the seeded model. */
static int contig_counts(struct tdb *db, uint64_t from)
{
	const uint64_t sizes[2] = { 512, 262144 };
	uint64_t copy[2], jr[2];
	struct replay *rp = seeded(db, from);
	struct model *m = rp_model(rp);
	struct model_state *st;
	struct model_stats ms;
	double t_copy, t_jr;
	size_t copy_bytes;

	if (model_state_save(m, &st))
		fail("state copy");
	copy_bytes = model_state_bytes(st);
	model_state_free(st);
	t_copy = now();
	if (sim_contig_count(m, sizes, copy, 2, NULL))
		fail("contiguous counts (copy)");
	t_copy = now() - t_copy;
	t_jr = now();
	if (sim_contig_count_journal(m, sizes, jr, 2))
		fail("contiguous counts (journal)");
	t_jr = now() - t_jr;
	model_get_stats(m, &ms);
	rp_destroy(rp);
	printf("  contig counts (copy)    %8.3f s  2M %llu, 1G %llu; the copy holds %.1f MB\n",
	       t_copy, (unsigned long long)copy[0], (unsigned long long)copy[1],
	       copy_bytes / 1e6);
	printf("  contig counts (journal) %8.3f s  2M %llu, 1G %llu; the journal grew to %.1f MB "
	       "(the copy takes %.2fx its time)\n", t_jr, (unsigned long long)jr[0],
	       (unsigned long long)jr[1], ms.journal_bytes / 1e6, t_copy / t_jr);
	if (copy[0] != jr[0] || copy[1] != jr[1]) {
		fprintf(stderr, "bench-simulate: the copy's counts differ from the journal's\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double t_rp = 1e30, t_file = 1e30, t_mem = 1e30, t;
	struct sim_request *reqs = NULL, rq;
	struct tdb_snap_info *si;
	uint64_t n = 0, cap = 0, from, nreq = 0;
	struct replay *rp;
	struct sim_reqs *it;
	struct tdb *db;
	int nr, i, k, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-simulate CAPTURE.db\n");
		return 2;
	}
	if (tdb_open(argv[1], TDB_READONLY, &db) || tdb_snap_list(db, &si, &nr))
		fail(argv[1]);
	for (i = 0; i < nr && !(si[i].complete && si[i].seq_begin >= 0 && si[i].seq_end >= 0); i++)
		;
	if (i == nr)
		fail("no aligned snapshot");
	from = (uint64_t)si[i].seq_end;
	free(si);
	rp = seeded(db, from);
	if (sim_reqs_open(db, rp_decoder(rp), NULL, 0, NULL, 0, from, UINT64_MAX, &it))
		fail("requests");
	while ((ret = sim_reqs_next(it, &rq)) == 1) {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			reqs = realloc(reqs, cap * sizeof(*reqs));
			if (!reqs)
				fail("memory");
		}
		reqs[n++] = rq;
	}
	sim_reqs_close(it);
	rp_destroy(rp);
	for (k = 0; k < 5; k++) {
		t = replay_time(db);
		t_rp = t < t_rp ? t : t_rp;
		t = sim_time(db, from, NULL, 0, &nreq);
		t_file = t < t_file ? t : t_file;
		t = sim_time(db, from, reqs, n, &nreq);
		t_mem = t < t_mem ? t : t_mem;
	}
	printf("capture %s: %llu events; after the first snapshot %llu requests (%llu with the "
	       "pcp drains read for the seed's flags-0 pages; rates below are of those)\n",
	       argv[1], (unsigned long long)tdb_event_count(db), (unsigned long long)nreq,
	       (unsigned long long)n);
	printf("  replay (file)        %8.3f s  %10.0f events/s\n", t_rp,
	       (double)tdb_event_count(db) / t_rp);
	printf("  simulate (file)      %8.3f s  %10.0f requests/s  (%.2fx replay's time)\n",
	       t_file, (double)n / t_file, t_file / t_rp);
	printf("  simulate (memory)    %8.3f s  %10.0f requests/s  (%.2fx replay's time)\n",
	       t_mem, (double)n / t_mem, t_mem / t_rp);
	printf("  target >= %.0f requests/s: from the file %s, from memory %s\n", TARGET_RPS,
	       (double)n / t_file >= TARGET_RPS ? "met" : "MISSED",
	       (double)n / t_mem >= TARGET_RPS ? "met" : "MISSED");
	free(reqs);
	ret = contig_counts(db, from);
	tdb_close(db);
	return ret;
}
