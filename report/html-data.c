// SPDX-License-Identifier: GPL-2.0
/*
 * html-data: the report's fidelity, attempts and stored results (report/html-data.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/err.h"
#include "common/json.h"
#include "db/tdb-info.h"
#include "db/tdb-stored.h"
#include "model/model.h"
#include "replay/replay.h"
#include "report/html-data.h"

static void write_scores(struct json *j, struct replay *rp)
{
	const struct rp_score *sc;
	int n, i;

	sc = rp_scores(rp, &n);
	json_key(j, "scores");
	json_arr_begin(j);
	for (i = 0; i < n; i++) {
		json_obj_begin(j);
		json_kint(j, "snap", sc[i].snap);
		json_kuint(j, "ts", sc[i].ts);
		json_kuint(j, "pfns_compared", sc[i].pfns_compared);
		json_kdouble(j, "state", sc[i].pfn_agree_state);
		json_kdouble(j, "kind", sc[i].pfn_agree_kind);
		json_kdouble(j, "buddyinfo", sc[i].buddyinfo_order_err);
		json_kdouble(j, "pagetypeinfo", sc[i].pagetypeinfo_max_rel_err);
		json_kuint(j, "uncertain", sc[i].pfns_uncertain);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void write_anomalies(struct json *j, struct replay *rp)
{
	unsigned int a;
	uint64_t n;

	json_key(j, "anomalies");
	json_obj_begin(j);
	for (a = 0; a < MODEL_NR_ANOM; a++) {
		n = model_anomaly_count(rp_model(rp), a, NULL, NULL);
		if (n)
			json_kuint(j, model_anomaly_name(a), n);
	}
	json_obj_end(j);
}

static void write_attempts(struct json *j, struct replay *rp)
{
	const struct tr_attempt *at;
	int n, i;

	at = rp_attempts(rp, &n);
	json_key(j, "attempts");
	json_arr_begin(j);
	for (i = 0; i < n; i++) {
		json_obj_begin(j);
		json_kstr(j, "kind", at[i].kind == TR_ATTEMPT_OFFLINE ? "offline" : "alloc_contig");
		json_kuint(j, "ts", at[i].ts_begin);
		json_kuint(j, "start", at[i].start_pfn);
		json_kuint(j, "end", at[i].end_pfn);
		json_kbool(j, "success", at[i].success);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* A stored REAL: whole numbers exactly (counts stored as REAL), others as %.6g. */
static void json_real(struct json *j, double v)
{
	if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v)
		json_int(j, (int64_t)v);
	else
		json_double(j, v);
}

/* One stored row as an object of its columns. */
static int stored_row(void *arg, int ncol, const struct tdb_stored_col *cols)
{
	struct json *j = arg;
	int i;

	json_obj_begin(j);
	for (i = 0; i < ncol; i++) {
		json_key(j, cols[i].name);
		if (!cols[i].text)
			json_null(j);
		else if (cols[i].integer)
			json_int(j, strtoll(cols[i].text, NULL, 10));
		else if (cols[i].real)
			json_real(j, strtod(cols[i].text, NULL));
		else
			json_str(j, cols[i].text);
	}
	json_obj_end(j);
	return 0;
}

static int write_stored(struct json *j, struct tdb *db, const char *key,
			enum tdb_stored_kind kind)
{
	int ret;

	json_key(j, key);
	json_arr_begin(j);
	ret = tdb_stored_rows(db, kind, stored_row, j);
	json_arr_end(j);
	return ret;
}

/* Without a replay or a capture (a synthetic layout): the keys, empty. */
static void write_empty(struct json *j, bool replay)
{
	static const char *const rkeys[] = { "scores", "attempts" };
	static const char *const dkeys[] = { "predictions", "checks", "verify", "compare" };
	unsigned int i;

	for (i = 0; i < (replay ? 2 : 4); i++) {
		json_key(j, replay ? rkeys[i] : dkeys[i]);
		json_arr_begin(j);
		json_arr_end(j);
	}
	if (replay) {
		json_key(j, "anomalies");
		json_obj_begin(j);
		json_obj_end(j);
		json_kint(j, "events", 0);
	} else {
		json_kint(j, "lost_events", 0);
	}
}

int html_data_write(struct json *j, struct replay *rp, struct tdb *db)
{
	int64_t markers, lost;
	int ret;

	if (rp) {
		write_scores(j, rp);
		write_anomalies(j, rp);
		write_attempts(j, rp);
		json_kuint(j, "events", rp_events_applied(rp));
	} else {
		write_empty(j, true);
	}
	if (!db) {
		write_empty(j, false);
		return 0;
	}
	ret = tdb_info_counts(db, &markers, &lost);
	if (ret)
		return ret;
	json_kint(j, "lost_events", lost);
	ret = write_stored(j, db, "predictions", TDB_STORED_PREDICTIONS);
	if (!ret)
		ret = write_stored(j, db, "checks", TDB_STORED_CHECKS);
	if (!ret)
		ret = write_stored(j, db, "verify", TDB_STORED_VERIFY);
	if (!ret)
		ret = write_stored(j, db, "compare", TDB_STORED_COMPARE);
	return ret;
}
