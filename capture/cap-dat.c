// SPDX-License-Identifier: GPL-2.0
/*
 * cap-dat: import a trace-cmd trace.dat with libtracecmd.
 *
 * The file is checked by hand first (magic and version) so that "not a trace.dat" and
 * "truncated or corrupt" get their own messages; libtracecmd then reads it, records
 * come time-ordered across CPUs from tracecmd_iterate_events() and go through the
 * shared decoder (cap-decode.c). A trace recorded into an instance (-B NAME) keeps its
 * events in a buffer instance of the file, with its own handle.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "capture/capture.h"
#include "common/err.h"
#include "db/tdb.h"

/* Exported by libtracecmd but not declared in its public header. */
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_version(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);

#define DAT_MAGIC	"\027\010\104tracing"	/* 23, 8, 68, "tracing" */
#define DAT_MAGIC_LEN	10
#define PROGRESS_EVERY	(1U << 18)

struct import_ctx {
	struct cap_decoder *dec;
	const struct cap_import_opts *opts;
	uint64_t records;
	int err;
};

/*
 * Check magic and version: Return 0 and the version, or a bc_err naming the file.
 */
static int check_header(const char *path, int *version)
{
	char buf[DAT_MAGIC_LEN + 16];
	struct stat sb;
	ssize_t n;
	char *end;
	long v;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bc_error(errno == ENOENT ? BC_E_NOENT : errno == EACCES ? BC_E_PERM :
				BC_E_IO, "%s: %m", path);
	if (fstat(fd, &sb) < 0) {
		close(fd);
		return bc_error(BC_E_IO, "%s: %m", path);
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return bc_error(BC_E_INVAL, "%s: not a regular file", path);
	}
	memset(buf, 0, sizeof(buf));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return bc_error(BC_E_IO, "%s: %m", path);
	if (n == 0)
		return bc_error(BC_E_FORMAT, "%s: empty file, not a trace.dat", path);
	if (n < DAT_MAGIC_LEN || memcmp(buf, DAT_MAGIC, DAT_MAGIC_LEN)) {
		if (n < DAT_MAGIC_LEN && !memcmp(buf, DAT_MAGIC, (size_t)n))
			return bc_error(BC_E_TRUNCATED, "%s: truncated trace.dat (%zd bytes)",
					path, n);
		return bc_error(BC_E_FORMAT, "%s: not a trace.dat file (no trace-cmd magic at the start)",
				path);
	}
	/* The version follows as a NUL-terminated decimal string. */
	if (!memchr(buf + DAT_MAGIC_LEN, '\0', (size_t)(n - DAT_MAGIC_LEN)))
		return n < (ssize_t)sizeof(buf) - 1 ?
			bc_error(BC_E_TRUNCATED, "%s: truncated trace.dat (%zd bytes, ends in its header)",
				 path, n) :
			bc_error(BC_E_FORMAT, "%s: corrupt trace.dat header (bad version string)", path);
	v = strtol(buf + DAT_MAGIC_LEN, &end, 10);
	if (end == buf + DAT_MAGIC_LEN || *end)
		return bc_error(BC_E_FORMAT, "%s: corrupt trace.dat header (bad version string)", path);
	if (v < 6 || v > 7)
		return bc_error(BC_E_VERSION, "%s: trace.dat file version %ld is not supported (6 and 7 are)",
				path, v);
	*version = (int)v;
	return 0;
}

/* Does the buffer behind @h hold at least one record? */
static bool has_records(struct tracecmd_input *h)
{
	struct tep_record *r;
	int cpu, n = tracecmd_cpus(h);

	for (cpu = 0; cpu < n; cpu++) {
		r = tracecmd_read_cpu_first(h, cpu);
		if (r) {
			tracecmd_free_record(r);
			return true;
		}
	}
	return false;
}

/*
 * Pick the buffer to import. Return: 0 and *@out (the top handle itself, or a new
 * instance handle the caller closes) and *@name ("" for the top buffer, borrowed).
 */
static int pick_buffer(const char *path, struct tracecmd_input *top, const char *want,
		       struct tracecmd_input **out, const char **name)
{
	int i, n = tracecmd_buffer_instances(top), with = -1, nwith = 0;
	struct tracecmd_input *b;
	char list[512] = "";
	const char *iname;

	for (i = 0; i < n; i++) {
		iname = tracecmd_buffer_instance_name(top, i);
		if (strlen(list) + strlen(iname ? iname : "?") + 3 < sizeof(list))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", iname ? iname : "?");
	}
	if (want) {
		for (i = 0; i < n; i++) {
			iname = tracecmd_buffer_instance_name(top, i);
			if (iname && !strcmp(iname, want))
				break;
		}
		if (i == n)
			return bc_error(BC_E_NOENT, "%s: no buffer instance '%s' in the file (%s%s)",
					path, want, n ? "it has: " : "it has none",
					n ? list : "");
		b = tracecmd_buffer_instance_handle(top, i);
		if (!b)
			return bc_error(BC_E_FORMAT, "%s: cannot read buffer instance '%s'", path,
					want);
		*out = b;
		*name = tracecmd_buffer_instance_name(top, i);
		return 0;
	}

	if (has_records(top) || !n) {
		*out = top;
		*name = "";
		return 0;
	}
	for (i = 0; i < n; i++) {
		b = tracecmd_buffer_instance_handle(top, i);
		if (!b)
			continue;
		if (has_records(b)) {
			with = i;
			nwith++;
		}
		tracecmd_close(b);
	}
	if (nwith > 1)
		return bc_error(BC_E_INVAL, "%s: %d buffer instances hold events (%s); choose one with -B",
				path, nwith, list);
	if (with < 0)
		with = 0;	/* all empty: the first instance, an empty import */
	b = tracecmd_buffer_instance_handle(top, with);
	if (!b)
		return bc_error(BC_E_FORMAT, "%s: cannot read buffer instance '%s'", path,
				tracecmd_buffer_instance_name(top, with));
	*out = b;
	*name = tracecmd_buffer_instance_name(top, with);
	return 0;
}

/* "580.530263" (seconds, as in the stats text) -> ns. */
static int64_t secs_to_ns(const char *s)
{
	long long sec = 0, frac = 0;
	int digits = 0;

	while (*s == ' ')
		s++;
	while (*s >= '0' && *s <= '9')
		sec = sec * 10 + (*s++ - '0');
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9' && digits < 9; s++, digits++)
			frac = frac * 10 + (*s - '0');
	}
	for (; digits < 9; digits++)
		frac *= 10;
	return sec * 1000000000LL + frac;
}

/*
 * The cpustats text holds, per buffer ("Buffer: NAME" starts an instance's part; the
 * top buffer's part comes first, without such a line), "CPU: N" blocks of "key: value"
 * lines. Store the integer ones of buffer @name as cpu_stats, keys with '_' for ' '.
 */
static int store_cpustats(struct tdb *db, const char *text, const char *name)
{
	const char *line, *next, *colon;
	bool mine = !*name;
	int cpu = -1, ret;
	char key[64];
	size_t klen;
	char *end;

	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			next++;
		if (!strncmp(line, "Buffer: ", 8)) {
			size_t len = next ? (size_t)(next - 1 - (line + 8)) : strlen(line + 8);

			mine = *name && strlen(name) == len && !strncmp(line + 8, name, len);
			cpu = -1;
			continue;
		}
		if (!mine)
			continue;
		if (!strncmp(line, "CPU: ", 5)) {
			cpu = (int)strtol(line + 5, NULL, 10);
			continue;
		}
		colon = strchr(line, ':');
		if (cpu < 0 || !colon || (next && colon > next))
			continue;
		klen = (size_t)(colon - line);
		if (!klen || klen >= sizeof(key))
			continue;
		for (size_t i = 0; i < klen; i++)
			key[i] = line[i] == ' ' ? '_' : line[i];
		key[klen] = '\0';
		if (strstr(key, "_ts")) {
			/* "oldest event ts", "now ts": seconds.micros -> ns */
			ret = tdb_add_cpu_stat(db, cpu, key, secs_to_ns(colon + 1));
		} else {
			long long v = strtoll(colon + 1, &end, 10);

			if (end == colon + 1)
				continue;
			ret = tdb_add_cpu_stat(db, cpu, key, v);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int store_meta(struct tdb *db, const char *path, int version,
		      struct tracecmd_input *top, struct tracecmd_input *b, const char *name,
		      const struct cap_import_opts *opts)
{
	const char *clock = tracecmd_get_trace_clock(b), *s;
	char rel[128];
	int ret;

	if (!clock)
		clock = tracecmd_get_trace_clock(top);
	ret = tdb_set_meta(db, "source", "import");
	if (!ret)
		ret = tdb_set_meta(db, "trace_file", path);
	if (!ret)
		ret = tdb_set_meta_int(db, "trace_file_version", version);
	s = tracecmd_get_version(top);
	if (!ret && s)
		ret = tdb_set_meta(db, "trace_cmd_version", s);
	if (!ret)
		ret = tdb_set_meta(db, "clock", opts && opts->clock ? opts->clock :
				   clock ? clock : "local");
	if (!ret && opts && opts->clock)
		ret = tdb_set_meta(db, "clock_in_file", clock ? clock : "local");
	s = tracecmd_get_uname(top);
	if (!ret && s) {
		ret = tdb_set_meta(db, "uname", s);
		/* "Linux HOST RELEASE ARCH" */
		if (!ret && sscanf(s, "%*s %*s %127s", rel) == 1)
			ret = tdb_set_meta(db, "kernel_release", rel);
	}
	if (!ret)
		ret = tdb_set_meta_int(db, "cpus", tracecmd_cpus(b));
	if (!ret)
		ret = tdb_set_meta(db, "instance", name);
	s = tracecmd_get_cpustats(top);
	if (!ret && s)
		ret = store_cpustats(db, s, name);
	return ret;
}

/*
 * Iteration callback. libtracecmd 3.1 stops iterating only on a negative return (later
 * versions on any non-zero one), so return -1, and keep the first error.
 */
static int import_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct import_ctx *ctx = data;
	struct cap_decode_stats st;

	if (ctx->err)
		return -1;
	ctx->err = cap_decode_record(ctx->dec, rec, cpu);
	if (ctx->err)
		return -1;
	if (++ctx->records % PROGRESS_EVERY == 0 && ctx->opts && ctx->opts->progress) {
		cap_decoder_stats(ctx->dec, &st);
		if (ctx->opts->progress(&st, ctx->records, ctx->opts->progress_arg)) {
			ctx->err = bc_error(BC_E_INTR, "interrupted");
			return -1;
		}
	}
	return 0;
}

/*
 * After an early stop, libtracecmd 3.1 leaks the record it peeked on each CPU:
 * tracecmd_iterate_events() drops its reference while the record is still locked as
 * the CPU's next one, so neither that call nor tracecmd_close() frees it (ref_count is
 * 0 by then). Take each one and free it, restoring the reference a fixed libtracecmd
 * would still hold.
 */
static void drop_peeked(struct tracecmd_input *h)
{
	struct tep_record *r;
	int cpu, n = tracecmd_cpus(h);

	for (cpu = 0; cpu < n; cpu++) {
		r = tracecmd_read_data(h, cpu);
		if (!r)
			continue;
		if (!r->ref_count)
			r->ref_count = 1;
		tracecmd_free_record(r);
	}
}

int cap_import_dat(struct tdb *db, const char *path, const char *instance,
		   const char *const *events, const struct cap_import_opts *opts,
		   struct cap_decode_stats *st)
{
	struct tracecmd_input *top = NULL, *b = NULL;
	struct import_ctx ctx = { .opts = opts };
	const char *name = "";
	int ret, version = 0;

	ret = check_header(path, &version);
	if (ret)
		return ret;

	/* libtracecmd reports on stderr; we report through bc_error instead. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS |
			    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!top) {
		struct stat sb;

		return bc_error(BC_E_TRUNCATED, "%s: truncated or corrupt trace.dat (version %d, %lld bytes): libtracecmd cannot load its sections",
				path, version, stat(path, &sb) ? -1LL : (long long)sb.st_size);
	}

	ret = pick_buffer(path, top, instance, &b, &name);
	if (ret)
		goto out;
	if (!tracecmd_get_tep(b)) {
		ret = bc_error(BC_E_FORMAT, "%s: no event formats in the file", path);
		goto out;
	}
	ret = store_meta(db, path, version, top, b, name, opts);
	if (ret)
		goto out;
	ret = cap_decoder_create(db, tracecmd_get_tep(b), events, &ctx.dec);
	if (ret)
		goto out;

	ret = tracecmd_iterate_events(b, NULL, 0, import_cb, &ctx);
	if (ctx.err)
		drop_peeked(b);
	if (ctx.err) {
		ret = ctx.err;
		if (ret != -BC_E_INTR)
			bc_error_prefix(ret, "%s", path);
		goto out;
	}
	if (ret < 0) {
		ret = bc_error(BC_E_FORMAT, "%s: libtracecmd failed reading the event data after %llu records",
			       path, (unsigned long long)ctx.records);
		goto out;
	}
	ret = tdb_flush(db);
out:
	if (st && ctx.dec)
		cap_decoder_stats(ctx.dec, st);
	cap_decoder_destroy(ctx.dec);
	if (b && b != top)
		tracecmd_close(b);
	tracecmd_close(top);
	return ret;
}
