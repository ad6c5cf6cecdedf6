// SPDX-License-Identifier: GPL-2.0
#include <math.h>

#include "common/json.h"

void json_init(struct json *j, FILE *fp, bool pretty)
{
	*j = (struct json){ .fp = fp, .pretty = pretty };
}

static void indent(struct json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->fp);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->fp);
}

/* Called before every value or key. */
static void sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0) {
		if (j->need_comma[j->depth])
			fputc(',', j->fp);
		j->need_comma[j->depth] = true;
		indent(j);
	}
}

static void open_(struct json *j, char c)
{
	sep(j);
	fputc(c, j->fp);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_(struct json *j, char c)
{
	bool had = j->need_comma[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->fp);
}

void json_obj_begin(struct json *j) { open_(j, '{'); }
void json_obj_end(struct json *j) { close_(j, '}'); }
void json_arr_begin(struct json *j) { open_(j, '['); }
void json_arr_end(struct json *j) { close_(j, ']'); }

static void raw_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", fp);
		else if (c == '\t')
			fputs("\\t", fp);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')	/* safe inside HTML */
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

void json_key(struct json *j, const char *key)
{
	sep(j);
	raw_str(j->fp, key);
	fputs(j->pretty ? ": " : ":", j->fp);
	j->after_key = true;
}

void json_int(struct json *j, int64_t v) { sep(j); fprintf(j->fp, "%lld", (long long)v); }
void json_uint(struct json *j, uint64_t v) { sep(j); fprintf(j->fp, "%llu", (unsigned long long)v); }
void json_bool(struct json *j, bool v) { sep(j); fputs(v ? "true" : "false", j->fp); }
void json_null(struct json *j) { sep(j); fputs("null", j->fp); }

void json_double(struct json *j, double v)
{
	sep(j);
	if (isfinite(v))
		fprintf(j->fp, "%.6g", v);
	else
		fputs("null", j->fp);
}

void json_str(struct json *j, const char *s)
{
	sep(j);
	if (s)
		raw_str(j->fp, s);
	else
		fputs("null", j->fp);
}

void json_end(struct json *j)
{
	fputc('\n', j->fp);
}
