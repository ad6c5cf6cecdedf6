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
#include "db/tdb-results.h"

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
		if (s->r[k].explained && c->explained_note[k][0])
			fprintf(fp, "  %-18s %-12s first: %s\n", "", "", c->explained_note[k]);
	}
	fprintf(fp, "events %" PRIu64 ", real attempts %" PRIu64 ", lost-event windows %" PRIu64
		", hypothetical attempts %" PRIu64 "; violations %" PRIu64 ", inconclusive %"
		PRIu64 "\n", s->events, s->attempts, s->lost_windows, s->hypothetical,
		s->violations, s->inconclusive);
	if (s->pfns_outside)
		fprintf(fp, "%" PRIu64 " event pfns lie beyond the memory map: not tracked by the "
			"trace rules (a damaged trace, or a capture of another machine?)\n",
			s->pfns_outside);
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

static int store_violation(struct tdb_results *w, int64_t id, const struct chk_violation *v)
{
	struct tdb_check_violation r = {
		.checker = chk_checker_name(chk_inv_checker(v->inv)), .rule = chk_inv_name(v->inv),
		.has_seq = v->seq != CHK_NO_SEQ, .seq = v->seq, .ts = v->ts, .cpu = v->cpu,
		.pfn = v->pfn, .order = v->order, .text = v->text,
	};

	return tdb_results_check_violation(w, id, &r);
}

int chk_store(const struct chk_ctx *c, struct tdb *db, int64_t *run)
{
	struct tdb_results *w;
	struct chk_summary s;
	struct tdb_check_run r;
	int64_t id;
	size_t i;
	int k, ret;

	chk_get_summary(c, &s);
	r = (struct tdb_check_run){ .events = s.events, .attempts = s.attempts,
				    .lost_windows = s.lost_windows, .replayed = s.replayed };
	ret = tdb_results_begin(db, &w);
	if (ret)
		return bc_error_prefix(ret, "results not stored");
	ret = tdb_results_check_run(w, &r, &id);
	for (k = 0; k < CHK_NR_CHECKERS && !ret; k++) {
		struct tdb_check_result cr = {
			.checker = chk_checker_name(k), .status = status_word(s.r[k].status),
			.checks = s.r[k].checks, .violations = s.r[k].violations,
			.inconclusive = s.r[k].inconclusive, .explained = s.r[k].explained,
		};

		ret = tdb_results_check_result(w, id, &cr);
	}
	for (i = 0; i < c->nr_viol && !ret; i++)
		ret = store_violation(w, id, &c->viol[i]);
	if (!ret)
		ret = tdb_results_commit(w);
	if (ret) {
		tdb_results_abort(w);
		return bc_error_prefix(ret, "results not stored");
	}
	if (run)
		*run = id;
	return 0;
}
