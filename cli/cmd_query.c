// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk query: read-only SQL on a capture, with the 'events' virtual table and one
 * view per event type (see db/README.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/err.h"
#include "db/tdb.h"

const char cmd_query_usage[] =
	"usage: bigchunk query FILE.db SQL [--csv | --json]\n"
	"\n"
	"Run read-only SQL against a capture. Besides the tables of db/README.md, the\n"
	"connection has the virtual table 'events' (one row per event: seq, ts, cpu, pid,\n"
	"type, event, pfn, order, migratetype, gfp_flags, fields) and a view per event type\n"
	"named after it (e.g. mm_page_alloc) whose columns are the event's fields.\n"
	"\n"
	"Options:\n"
	"  --csv     comma-separated output with a header line\n"
	"  --json    a JSON array of objects\n"
	"  -h, --help\n"
	"\n"
	"Examples:\n"
	"  bigchunk query cap.db \"SELECT event, count(*) FROM events GROUP BY event\"\n"
	"  bigchunk query cap.db \"SELECT pfn >> 15 AS block, count(*) FROM mm_page_alloc\n"
	"                         WHERE migratetype = 0 GROUP BY block\"\n"
	"\n"
	"Exit status: 0 on success, 2 on a bad file or SQL error.\n";

enum out_mode { OUT_TABLE, OUT_CSV, OUT_JSON };

static void print_csv_value(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return;
	if (strpbrk(s, ",\"\n")) {
		putchar('"');
		for (; *s; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	} else {
		fputs(s, stdout);
	}
}

static void print_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", stdout);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void print_json_value(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		fputs("null", stdout);
		break;
	case SQLITE_INTEGER:
		printf("%lld", (long long)sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		printf("%.17g", sqlite3_column_double(st, i));
		break;
	case SQLITE_BLOB:
		printf("\"<blob %d bytes>\"", sqlite3_column_bytes(st, i));
		break;
	default:
		print_json_string((const char *)sqlite3_column_text(st, i));
	}
}

static int run_one(sqlite3 *sq, sqlite3_stmt *st, enum out_mode mode, bool *first_row)
{
	int ncol = sqlite3_column_count(st), i, rc, rows = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!rows && mode != OUT_JSON) {
			for (i = 0; i < ncol; i++)
				printf("%s%s", i ? (mode == OUT_CSV ? "," : "\t") : "",
				       sqlite3_column_name(st, i));
			putchar('\n');
		}
		rows++;
		if (mode == OUT_JSON) {
			printf("%s{", *first_row ? "" : ",\n");
			*first_row = false;
			for (i = 0; i < ncol; i++) {
				printf("%s", i ? ", " : "");
				print_json_string(sqlite3_column_name(st, i));
				putchar(':');
				print_json_value(st, i);
			}
			putchar('}');
			continue;
		}
		for (i = 0; i < ncol; i++) {
			if (i)
				putchar(mode == OUT_CSV ? ',' : '\t');
			if (mode == OUT_CSV)
				print_csv_value(st, i);
			else if (sqlite3_column_type(st, i) == SQLITE_NULL)
				fputs("NULL", stdout);
			else if (sqlite3_column_type(st, i) == SQLITE_BLOB)
				printf("<blob %d bytes>", sqlite3_column_bytes(st, i));
			else
				fputs((const char *)sqlite3_column_text(st, i), stdout);
		}
		putchar('\n');
	}
	return rc == SQLITE_DONE ? 0 : -1;
}

int cmd_query(int argc, char **argv)
{
	enum out_mode mode = OUT_TABLE;
	const char *path, *sql, *tail;
	bool first_row = true;
	struct tdb *db;
	sqlite3 *sq;
	int c, ret = EXIT_OK;

	while ((c = cli_getopt(argc, argv, "h", "csv:c json:j help:h")) != -1) {
		switch (c) {
		case 'c': mode = OUT_CSV; break;
		case 'j': mode = OUT_JSON; break;
		case 'h': return cli_usage("query", 0, EXIT_OK);
		default: return cli_usage("query", 1, EXIT_BAD);
		}
	}
	/* Options may come anywhere (getopt permutes). */
	if (optind + 2 != argc)
		return cli_usage("query", 1, EXIT_BAD);
	path = argv[optind];
	sql = argv[optind + 1];
	if (tdb_open(path, TDB_READONLY, &db))
		return cli_fail("query");
	if (tdb_register_vtabs(db)) {
		tdb_close(db);
		return cli_fail("query");
	}
	sq = tdb_sqlite(db);
	tdb_exec(db, "PRAGMA query_only = 1");
	if (mode == OUT_JSON)
		putchar('[');
	while (sql && *sql) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(sq, sql, -1, &st, &tail) != SQLITE_OK) {
			ret = cli_error("query", "%s: %s", path, sqlite3_errmsg(sq));
			break;
		}
		if (!st) {		/* whitespace or comment */
			sql = tail;
			continue;
		}
		if (run_one(sq, st, mode, &first_row)) {
			ret = cli_error("query", "%s: %s", path, sqlite3_errmsg(sq));
			sqlite3_finalize(st);
			break;
		}
		sqlite3_finalize(st);
		sql = tail;
	}
	if (mode == OUT_JSON)
		puts("]");
	tdb_close(db);
	return ret;
}
