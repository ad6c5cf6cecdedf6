// SPDX-License-Identifier: GPL-2.0
/*
 * Replay throughput on one capture, three ways in the same run:
 *   floor   reading and decoding the stored events only (tdb cursor, no model)
 *   file    bigchunk's replay: events from the file through the model (rp_run)
 *   memory  the same events preloaded into memory, applied to a fresh model
 * plus the model's bytes per pfn. usage: bench-replay CAPTURE.db
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/err.h"
#include "db/tdb.h"
#include "model/model.h"
#include "replay/replay.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void fail(const char *what)
{
	fprintf(stderr, "bench-replay: %s: %s\n", what, bc_errmsg());
	exit(2);
}

int main(int argc, char **argv)
{
	struct rp_opts o = { .until_seq = UINT64_MAX, .no_score = true, .no_resync = true };
	double t0, t_floor, t_file, t_mem;
	struct tdb_cursor *cur;
	struct bc_event *evs, ev;
	struct model_stats ms;
	struct replay *rp;
	uint64_t n = 0, i, total;
	struct tdb *db;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-replay CAPTURE.db\n");
		return 2;
	}
	if (tdb_open(argv[1], TDB_READONLY, &db))
		fail(argv[1]);
	total = (uint64_t)tdb_event_count(db);

	t0 = now();
	if (tdb_cursor_open(db, 0, UINT64_MAX, &cur))
		fail("cursor");
	while ((ret = tdb_cursor_next(cur, &ev)) == 1)
		n++;
	tdb_cursor_close(cur);
	t_floor = now() - t0;

	if (rp_create(db, &o, &rp))
		fail("replay");
	t0 = now();
	if (rp_run(rp, NULL))
		fail("replay");
	t_file = now() - t0;
	model_get_stats(rp_model(rp), &ms);
	printf("capture: %s, %llu events (%llu replayed after the first snapshot)\n", argv[1],
	       (unsigned long long)total, (unsigned long long)rp_events_applied(rp));
	n = rp_events_applied(rp);
	rp_destroy(rp);

	/* The same events from memory through a fresh model. */
	evs = malloc(total * sizeof(*evs));
	if (!evs)
		return 2;
	if (tdb_cursor_open(db, 0, UINT64_MAX, &cur))
		fail("cursor");
	for (i = 0; i < total && tdb_cursor_next(cur, &evs[i]) == 1; i++)
		;
	tdb_cursor_close(cur);
	if (rp_create(db, &o, &rp))
		fail("replay");
	{
		uint64_t from = rp_next_seq(rp);

		t0 = now();
		for (i = from; i < total; i++)
			rp_apply_event(rp, &evs[i]);
		t_mem = now() - t0;
		n = total - from;
	}
	rp_destroy(rp);
	free(evs);

	printf("floor  (read+decode only): %8.2f M events/s  (%.3f s)\n", total / t_floor / 1e6, t_floor);
	printf("file   (bigchunk replay):  %8.2f M events/s  (%.3f s)  = %.2fx the floor's time\n",
	       n / t_file / 1e6, t_file, t_file / t_floor * total / (n ? n : 1));
	printf("memory (model only):       %8.2f M events/s  (%.3f s)\n", n / t_mem / 1e6, t_mem);
	printf("model size: %.2f bytes/pfn over %llu spanned pfns\n", ms.bytes_per_pfn,
	       (unsigned long long)ms.spanned_pfns);
	tdb_close(db);
	return 0;
}
