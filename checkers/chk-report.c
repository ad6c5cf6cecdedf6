// SPDX-License-Identifier: GPL-2.0
/*
 * Reports: plain text, TAP (version 13: one test point per checker, violations as
 * diagnostics, inconclusive checkers as "not ok ... # TODO", checkers that could not
 * run as "ok ... # SKIP") and JUnit XML (one testcase per checker, <failure> with the
 * violations, <skipped> for inconclusive and not run).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "checkers/chk-local.h"
#include "common/err.h"

static void where(const struct chk_violation *v, char *buf, size_t len)
{
	int n;

	if (v->seq == CHK_NO_SEQ)
		n = snprintf(buf, len, "model check");
	else if (v->cpu < 0)
		n = snprintf(buf, len, "seq %" PRIu64 " (ts %" PRIu64 ".%09" PRIu64 ")", v->seq,
			     v->ts / 1000000000u, v->ts % 1000000000u);
	else
		n = snprintf(buf, len, "seq %" PRIu64 " (ts %" PRIu64 ".%09" PRIu64 ", cpu %d)",
			     v->seq, v->ts / 1000000000u, v->ts % 1000000000u, v->cpu);
	if (n < 0 || (size_t)n >= len)
		return;
	if (v->pfn != CHK_NO_PFN)
		snprintf(buf + n, len - (size_t)n, " pfn %#" PRIx64 " order %u", v->pfn, v->order);
}

/* "checker/rule at WHERE: text." */
static void line(FILE *fp, const char *prefix, const struct chk_violation *v)
{
	char w[128];

	where(v, w, sizeof(w));
	fprintf(fp, "%s%s/%s at %s: %s.\n", prefix, chk_checker_name(chk_inv_checker(v->inv)),
		chk_inv_name(v->inv), w, v->text);
}

static const char *status_word(enum chk_status s)
{
	switch (s) {
	case CHK_PASS: return "pass";
	case CHK_FAIL: return "FAIL";
	case CHK_INCONCLUSIVE: return "inconclusive";
	default: return "not run";
	}
}

static void result_text(const struct chk_result *r, char *buf, size_t len)
{
	if (r->status == CHK_NOT_RUN)
		snprintf(buf, len, "%s", r->not_run ? r->not_run : "not run");
	else if (r->explained)
		snprintf(buf, len, "%" PRIu64 " violation%s, %" PRIu64 " inconclusive, %" PRIu64
			 " checks, %" PRIu64 " explained by known kernel behaviour", r->violations,
			 r->violations == 1 ? "" : "s", r->inconclusive, r->checks, r->explained);
	else
		snprintf(buf, len, "%" PRIu64 " violation%s, %" PRIu64 " inconclusive, %" PRIu64
			 " checks", r->violations, r->violations == 1 ? "" : "s", r->inconclusive,
			 r->checks);
}

static void mode_text(const struct chk_ctx *c, const struct chk_summary *s, char *buf,
		      size_t len)
{
	if (s->replayed)
		snprintf(buf, len, "replayed through the model");
	else
		snprintf(buf, len, "%s", c->mode_note[0] ? c->mode_note : "trace only");
}

static void report_text(const struct chk_ctx *c, FILE *fp, const struct chk_summary *s,
			const char *capture)
{
	char buf[256];
	size_t i;
	int k;

	mode_text(c, s, buf, sizeof(buf));
	fprintf(fp, "bigchunk check %s: %s\n", capture, buf);
	for (i = 0; i < c->nr_viol; i++)
		line(fp, "", &c->viol[i]);
	if (s->violations > s->kept)
		fprintf(fp, "(%" PRIu64 " more violations not shown; see --max-errors)\n",
			s->violations - s->kept);
	fprintf(fp, "summary:\n");
	for (k = 0; k < CHK_NR_CHECKERS; k++) {
		result_text(&s->r[k], buf, sizeof(buf));
		fprintf(fp, "  %-18s %-12s %s\n", chk_checker_name(k), status_word(s->r[k].status),
			buf);
	}
	fprintf(fp, "events %" PRIu64 ", real attempts %" PRIu64 ", lost-event windows %" PRIu64
		", hypothetical attempts %" PRIu64 "; violations %" PRIu64 ", inconclusive %"
		PRIu64 "\n", s->events, s->attempts, s->lost_windows, s->hypothetical,
		s->violations, s->inconclusive);
}

static void report_tap(const struct chk_ctx *c, FILE *fp, const struct chk_summary *s,
		       const char *capture)
{
	char buf[256];
	int k, n = 0, t = 0;
	size_t i;

	for (k = 0; k < CHK_NR_CHECKERS; k++)
		n += chk_on(c, k);
	fprintf(fp, "TAP version 13\n1..%d\n", n);
	mode_text(c, s, buf, sizeof(buf));
	fprintf(fp, "# bigchunk check %s: %s\n", capture, buf);
	for (k = 0; k < CHK_NR_CHECKERS; k++) {
		const struct chk_result *r = &s->r[k];

		if (!chk_on(c, k))
			continue;
		t++;
		result_text(r, buf, sizeof(buf));
		switch (r->status) {
		case CHK_PASS:
			fprintf(fp, "ok %d - %s\n", t, chk_checker_name(k));
			break;
		case CHK_NOT_RUN:
			fprintf(fp, "ok %d - %s # SKIP %s\n", t, chk_checker_name(k), buf);
			break;
		case CHK_INCONCLUSIVE:
			fprintf(fp, "not ok %d - %s # TODO inconclusive: %" PRIu64
				" case(s) in lost-event windows\n", t, chk_checker_name(k),
				r->inconclusive);
			break;
		default:
			fprintf(fp, "not ok %d - %s\n", t, chk_checker_name(k));
			for (i = 0; i < c->nr_viol; i++)
				if (chk_inv_checker(c->viol[i].inv) == (enum chk_checker)k)
					line(fp, "# ", &c->viol[i]);
			break;
		}
		fprintf(fp, "# %s: %s\n", chk_checker_name(k), buf);
	}
	fprintf(fp, "# events %" PRIu64 ", real attempts %" PRIu64 ", lost-event windows %"
		PRIu64 "; violations %" PRIu64 ", inconclusive %" PRIu64 "\n", s->events,
		s->attempts, s->lost_windows, s->violations, s->inconclusive);
}

static void xml_esc(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&apos;", fp); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				fputc('?', fp);
			else
				fputc(*s, fp);
		}
	}
}

static void report_junit(const struct chk_ctx *c, FILE *fp, const struct chk_summary *s,
			 const char *capture)
{
	int k, n = 0, fail = 0, skip = 0;
	char buf[256];
	size_t i;

	for (k = 0; k < CHK_NR_CHECKERS; k++) {
		if (!chk_on(c, k))
			continue;
		n++;
		fail += s->r[k].status == CHK_FAIL;
		skip += s->r[k].status == CHK_NOT_RUN || s->r[k].status == CHK_INCONCLUSIVE;
	}
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(fp, "<testsuites name=\"bigchunk check\" tests=\"%d\" failures=\"%d\" "
		"errors=\"0\" skipped=\"%d\">\n", n, fail, skip);
	fprintf(fp, "  <testsuite name=\"");
	xml_esc(fp, capture);
	fprintf(fp, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n", n, fail,
		skip);
	for (k = 0; k < CHK_NR_CHECKERS; k++) {
		const struct chk_result *r = &s->r[k];

		if (!chk_on(c, k))
			continue;
		result_text(r, buf, sizeof(buf));
		fprintf(fp, "    <testcase classname=\"bigchunk.check\" name=\"%s\">\n",
			chk_checker_name(k));
		if (r->status == CHK_FAIL) {
			fprintf(fp, "      <failure type=\"%s\" message=\"", chk_checker_name(k));
			xml_esc(fp, buf);
			fprintf(fp, "\">");
			for (i = 0; i < c->nr_viol; i++) {
				char w[128];

				if (chk_inv_checker(c->viol[i].inv) != (enum chk_checker)k)
					continue;
				where(&c->viol[i], w, sizeof(w));
				fprintf(fp, "%s at ", chk_inv_name(c->viol[i].inv));
				xml_esc(fp, w);
				fputs(": ", fp);
				xml_esc(fp, c->viol[i].text);
				fputs(".\n", fp);
			}
			fprintf(fp, "</failure>\n");
		} else if (r->status == CHK_NOT_RUN || r->status == CHK_INCONCLUSIVE) {
			fprintf(fp, "      <skipped message=\"");
			xml_esc(fp, r->status == CHK_INCONCLUSIVE ? "inconclusive: lost events" : buf);
			fprintf(fp, "\"/>\n");
		}
		fprintf(fp, "      <system-out>");
		xml_esc(fp, buf);
		fprintf(fp, "</system-out>\n    </testcase>\n");
	}
	mode_text(c, s, buf, sizeof(buf));
	fprintf(fp, "    <system-out>");
	xml_esc(fp, buf);
	fprintf(fp, "; events %" PRIu64 ", real attempts %" PRIu64 ", lost-event windows %"
		PRIu64 "</system-out>\n", s->events, s->attempts, s->lost_windows);
	fprintf(fp, "  </testsuite>\n</testsuites>\n");
}

int chk_report(const struct chk_ctx *c, FILE *fp, enum chk_format fmt, const char *capture)
{
	struct chk_summary s;

	chk_get_summary(c, &s);
	switch (fmt) {
	case CHK_FMT_TAP:
		report_tap(c, fp, &s, capture);
		break;
	case CHK_FMT_JUNIT:
		report_junit(c, fp, &s, capture);
		break;
	default:
		report_text(c, fp, &s, capture);
		break;
	}
	if (fflush(fp) || ferror(fp))
		return bc_error(BC_E_IO, "writing the report: %m");
	return 0;
}

/* ---- results as rows of the capture ------------------------------------------------- */

static int step_done(sqlite3 *sq, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return bc_error(BC_E_DB, "storing check results: %s", sqlite3_errmsg(sq));
	return 0;
}

int chk_store(const struct chk_ctx *c, struct tdb *db, int64_t *run)
{
	sqlite3 *sq = tdb_sqlite(db);
	sqlite3_stmt *st = NULL;
	struct chk_summary s;
	int64_t id;
	size_t i;
	int k, ret;

	chk_get_summary(c, &s);
	/* The tables are part of the capture schema (db/schema.sql). */
	ret = tdb_exec(db, "BEGIN");
	if (ret)
		goto out;
	/* check_results.explained came late in version 2: add it to files without it */
	if (sqlite3_prepare_v2(sq, "SELECT count(*) FROM pragma_table_info('check_results') "
			       "WHERE name = 'explained'", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	k = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 1;
	sqlite3_finalize(st);
	st = NULL;
	if (!k) {
		ret = tdb_exec(db, "ALTER TABLE check_results ADD COLUMN explained INTEGER");
		if (ret)
			goto out;
	}
	if (sqlite3_prepare_v2(sq, "INSERT INTO check_runs (events, attempts, lost_windows, "
			       "replayed) VALUES (?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, (int64_t)s.events);
	sqlite3_bind_int64(st, 2, (int64_t)s.attempts);
	sqlite3_bind_int64(st, 3, (int64_t)s.lost_windows);
	sqlite3_bind_int(st, 4, s.replayed);
	ret = step_done(sq, st);
	sqlite3_finalize(st);
	st = NULL;
	if (ret)
		goto out;
	id = sqlite3_last_insert_rowid(sq);
	if (sqlite3_prepare_v2(sq, "INSERT INTO check_results (run, checker, status, checks, "
			       "violations, inconclusive, explained) VALUES (?, ?, ?, ?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	for (k = 0; k < CHK_NR_CHECKERS && !ret; k++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, chk_checker_name(k), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, status_word(s.r[k].status), -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (int64_t)s.r[k].checks);
		sqlite3_bind_int64(st, 5, (int64_t)s.r[k].violations);
		sqlite3_bind_int64(st, 6, (int64_t)s.r[k].inconclusive);
		sqlite3_bind_int64(st, 7, (int64_t)s.r[k].explained);
		ret = step_done(sq, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (ret)
		goto out;
	if (sqlite3_prepare_v2(sq, "INSERT INTO check_violations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	for (i = 0; i < c->nr_viol && !ret; i++) {
		const struct chk_violation *v = &c->viol[i];

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, chk_checker_name(chk_inv_checker(v->inv)), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, chk_inv_name(v->inv), -1, SQLITE_STATIC);
		if (v->seq == CHK_NO_SEQ) {
			sqlite3_bind_null(st, 4);
			sqlite3_bind_null(st, 5);
		} else {
			sqlite3_bind_int64(st, 4, (int64_t)v->seq);
			sqlite3_bind_int64(st, 5, (int64_t)v->ts);
		}
		if (v->cpu < 0)
			sqlite3_bind_null(st, 6);
		else
			sqlite3_bind_int(st, 6, v->cpu);
		if (v->pfn == CHK_NO_PFN)
			sqlite3_bind_null(st, 7);
		else
			sqlite3_bind_int64(st, 7, (int64_t)v->pfn);
		sqlite3_bind_int(st, 8, (int)v->order);
		sqlite3_bind_text(st, 9, v->text, -1, SQLITE_STATIC);
		ret = step_done(sq, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!ret)
		ret = tdb_exec(db, "COMMIT");
	if (!ret && run)
		*run = id;
	if (!ret)
		return 0;
	goto out;
dberr:
	ret = bc_error(BC_E_DB, "storing check results: %s", sqlite3_errmsg(sq));
out:
	sqlite3_finalize(st);
	tdb_exec(db, "ROLLBACK");
	return ret;
}
