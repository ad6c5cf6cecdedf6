// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a damaged capture file. The input is a whole SQLite file (seed: the
 * small capture of mini-cap.h, so mutations hit its pages, records and blobs); it is
 * written to a temporary file, opened read-only through db/ and read the way info,
 * replay and check read it: the summaries, the snapshots and their page runs, every
 * event through the cursor, a time, then a replay and a check run (trace only and
 * replayed) with small limits. Any error return is fine; a crash, a hang or a leak
 * is a finding. Replay and check run with limits (replay_and_check()).
 */
#include <stdbool.h>

#include "checkers/chk.h"
#include "db/tdb-info.h"
#include "db/tdb-snap.h"
#include "db/tdb.h"
#include "replay/replay.h"
#include "tests/fuzz/fuzz.h"
#include "trace/tr-event.h"
#include "trace/tr-time.h"

#define MAX_EVENTS	100000
#define MAX_MODEL_PFNS	(1ull << 22)	/* see replay_and_check() */

static char path[FUZZ_PATH_SIZE];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_tmpfile(path, "db");
	return 0;
}

static int lost_row(void *arg, const struct tdb_lost_cpu *l)
{
	return 0;
}

static int snap_row(void *arg, const struct tdb_snapshot_info *s)
{
	return 0;
}

static int marker_row(void *arg, const struct tdb_marker_info *m)
{
	return 0;
}

static int zone_max(void *arg, const struct tdb_zone_info *z)
{
	uint64_t *end = arg, e = (uint64_t)z->start_pfn + (uint64_t)z->spanned;

	if (z->start_pfn < 0 || z->spanned < 0 || e > *end)
		*end = z->start_pfn < 0 || z->spanned < 0 ? UINT64_MAX : e;
	return 0;
}

static void read_summaries(struct tdb *db)
{
	int64_t a, b;

	tdb_info_counts(db, &a, &b);
	tdb_info_lost_by_cpu(db, lost_row, NULL);
	tdb_info_snapshots(db, snap_row, NULL);
	tdb_info_markers(db, 20, marker_row, NULL);
	tdb_info_snapshot_size(db, 1, &a, &b);
	tdb_event_count(db);
}

static void read_snapshots(struct tdb *db)
{
	struct tdb_snap_info *s;
	struct tdb_page_run run;
	int nr, i, k;

	if (tdb_snap_list(db, &s, &nr))
		return;
	for (i = 0; i < nr && i < 4; i++) {
		struct tdb_snap_runs *it;

		if (tdb_snap_runs_open(db, s[i].id, 0, UINT64_MAX, &it))
			continue;
		for (k = 0; k < 100000 && tdb_snap_runs_next(it, &run) > 0; k++)
			;
		tdb_snap_runs_close(it);
	}
	free(s);
}

/* Read and decode every event (up to MAX_EVENTS), the time parser on the way. */
static void read_events(struct tdb *db)
{
	struct tr_decoder *d = NULL;
	struct tdb_cursor *cur;
	struct bc_event raw;
	struct tr_event ev;
	uint64_t seq, ts;
	int n;

	tr_parse_time(db, "1us", &seq, &ts);
	tr_parse_time(db, "marker:fuzz", &seq, &ts);
	if (tr_decoder_create(db, &d))
		return;
	if (tdb_cursor_open(db, 0, UINT64_MAX, &cur)) {
		tr_decoder_destroy(d);
		return;
	}
	for (n = 0; n < MAX_EVENTS && tdb_cursor_next(cur, &raw) > 0; n++)
		tr_decode(d, &raw, &ev);
	tdb_cursor_close(cur);
	tr_decoder_destroy(d);
}

/*
 * Replay and check, unless the zones reach beyond MAX_MODEL_PFNS: the model is as large
 * as the layout (up to 2^31 pfns, mapped lazily but initialised), which costs seconds
 * per input, not a finding. Wild event pfns are fine: the model and check's shadow map
 * stop at the layout.
 */
static void replay_and_check(struct tdb *db)
{
	struct rp_opts ro = { .until_seq = MAX_EVENTS };
	struct chk_opts co = { .max_errors = 10, .recount_every = 16 };
	struct replay *rp = NULL;
	struct chk_ctx *c = NULL;
	uint64_t end = 0;

	tdb_info_zones(db, zone_max, &end);
	if (end > MAX_MODEL_PFNS)
		return;
	if (!rp_create(db, &ro, &rp))
		rp_run(rp, NULL);
	rp_destroy(rp);
	if (!chk_create(&co, &c))
		chk_run_capture(c, db);
	chk_destroy(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdb *db;

	fuzz_write(path, data, size);
	if (tdb_open(path, TDB_READONLY, &db))
		return 0;
	read_summaries(db);
	read_snapshots(db);
	read_events(db);
	replay_and_check(db);
	tdb_close(db);
	return 0;
}
