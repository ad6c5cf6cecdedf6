/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer for --json outputs: it tracks nesting and commas so
 * callers write keys and values in order. Output goes to a FILE; nothing is buffered.
 */
#ifndef BC_JSON_H
#define BC_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *fp;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool after_key;
	bool pretty;
};

void json_init(struct json *j, FILE *fp, bool pretty);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_int(struct json *j, int64_t v);
void json_uint(struct json *j, uint64_t v);
void json_double(struct json *j, double v);
void json_str(struct json *j, const char *s);	/* NULL writes null */
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* Finish: a newline after the top-level value. */
void json_end(struct json *j);

/* key + value shorthands */
#define json_kint(j, k, v)	do { json_key(j, k); json_int(j, v); } while (0)
#define json_kuint(j, k, v)	do { json_key(j, k); json_uint(j, v); } while (0)
#define json_kdouble(j, k, v)	do { json_key(j, k); json_double(j, v); } while (0)
#define json_kstr(j, k, v)	do { json_key(j, k); json_str(j, v); } while (0)
#define json_kbool(j, k, v)	do { json_key(j, k); json_bool(j, v); } while (0)

#endif
