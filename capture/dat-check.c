// SPDX-License-Identifier: GPL-2.0
/*
 * dat-check: bounds-check a trace.dat's layout (format: trace-cmd's trace-cmd.dat.v6(5)
 * and trace-cmd.dat.v7(5)) before libtracecmd, which trusts it, reads the file.
 *
 * Every value is read with pread() at an offset checked against the file size, so
 * the check itself cannot be made to read out of bounds; lists are capped so that a
 * damaged count cannot make it loop for long.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/dat-check.h"
#include "common/err.h"

#define DAT_MAGIC	"\027\010\104tracing"	/* 23, 8, 68, "tracing" */
#define DAT_MAGIC_LEN	10
#define MAX_COUNT	100000		/* event formats, systems, events per system */
#define MAX_HEADER	65536		/* header_page and header_event texts */
#define MAX_CPUS	8192
#define MAX_BUFFERS	256
#define MAX_SECTIONS	1024		/* options sections in a v7 chain */
#define MIN_PAGE	4096		/* the smallest page of any Linux architecture */
#define MAX_PAGE	(1U << 20)

/* v7 section and option ids (trace-cmd.dat.v7(5)). */
enum {
	OPT_DONE = 0,
	OPT_BUFFER = 3,
	OPT_HEADER_INFO = 16,
	OPT_KALLSYMS = 19,
	OPT_CMDLINES = 21,
	OPT_BUFFER_TEXT = 22,
	SEC_FLAG_COMPRESSED = 1,
};

struct rd {
	const char *path;
	int fd;
	uint64_t size;
	bool be;
	struct dat_layout *l;
};

/* Record "PATH: offset OFF: TEXT" as error @err; returns -@err. */
static int __attribute__((format(printf, 4, 5)))
fail(int err, const struct rd *r, uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bc_error(err, "%s: offset %llu: %s", r->path, (unsigned long long)off, msg);
}

/* @len bytes at @off must be in the file. */
static int need(const struct rd *r, uint64_t off, uint64_t len, const char *what)
{
	if (off <= r->size && len <= r->size - off)
		return 0;
	if (off > r->size)
		return fail(BC_E_TRUNCATED, r, off,
			    "truncated or corrupt trace.dat: %s lies beyond the end of the file (%llu bytes)",
			    what, (unsigned long long)r->size);
	return fail(BC_E_TRUNCATED, r, off,
		    "truncated trace.dat: %s needs %llu bytes, the file ends after %llu",
		    what, (unsigned long long)len, (unsigned long long)(r->size - off));
}

static int rd_bytes(const struct rd *r, uint64_t off, void *buf, size_t len, const char *what)
{
	ssize_t n;
	int ret = need(r, off, len, what);

	if (ret)
		return ret;
	n = pread(r->fd, buf, len, (off_t)off);
	if (n < 0)
		return bc_error(BC_E_IO, "%s: offset %llu: %m", r->path, (unsigned long long)off);
	if ((size_t)n != len)
		return fail(BC_E_TRUNCATED, r, off, "truncated trace.dat: the file shrank while read");
	return 0;
}

static int rd_u16(const struct rd *r, uint64_t off, uint16_t *v, const char *what)
{
	int ret = rd_bytes(r, off, v, sizeof(*v), what);

	*v = r->be ? be16toh(*v) : le16toh(*v);
	return ret;
}

static int rd_u32(const struct rd *r, uint64_t off, uint32_t *v, const char *what)
{
	int ret = rd_bytes(r, off, v, sizeof(*v), what);

	*v = r->be ? be32toh(*v) : le32toh(*v);
	return ret;
}

static int rd_u64(const struct rd *r, uint64_t off, uint64_t *v, const char *what)
{
	int ret = rd_bytes(r, off, v, sizeof(*v), what);

	*v = r->be ? be64toh(*v) : le64toh(*v);
	return ret;
}

/* A NUL-terminated string of at most @size - 1 bytes at @off; *@len includes the NUL. */
static int rd_str(const struct rd *r, uint64_t off, char *buf, size_t size, size_t *len,
		  const char *what)
{
	uint64_t avail = off < r->size ? r->size - off : 0;
	size_t want = avail < size ? (size_t)avail : size;
	char *nul;
	int ret;

	if (!want)
		return need(r, off, 1, what);
	ret = rd_bytes(r, off, buf, want, what);
	if (ret)
		return ret;
	nul = memchr(buf, '\0', want);
	if (!nul)
		return want < size ?
			fail(BC_E_TRUNCATED, r, off, "truncated trace.dat: the file ends inside %s",
			     what) :
			fail(BC_E_FORMAT, r, off, "corrupt trace.dat: %s is longer than %zu bytes",
			     what, size - 1);
	*len = (size_t)(nul - buf) + 1;
	return 0;
}

/* Skip a block of @len bytes at *@off that must be in the file. */
static int skip(const struct rd *r, uint64_t *off, uint64_t len, const char *what)
{
	int ret = need(r, *off, len, what);

	*off += len;
	return ret;
}

static int check_page_size(const struct rd *r, uint64_t off, uint32_t ps)
{
	if (ps < MIN_PAGE || ps > MAX_PAGE || (ps & (ps - 1)))
		return fail(BC_E_FORMAT, r, off,
			    "corrupt trace.dat: page size %u (want a power of 2, %u to %u)",
			    ps, MIN_PAGE, MAX_PAGE);
	return 0;
}

/* Magic, version, endianness, long size and page size; *@off: what follows. */
static int check_start(struct rd *r, uint64_t *off)
{
	char buf[DAT_MAGIC_LEN];
	char ver[16];
	uint8_t b[2];
	size_t len;
	char *end;
	long v;
	int ret;

	if (r->size == 0)
		return bc_error(BC_E_FORMAT, "%s: empty file, not a trace.dat", r->path);
	if (r->size < DAT_MAGIC_LEN) {
		ret = rd_bytes(r, 0, buf, (size_t)r->size, "the magic");
		if (!ret && !memcmp(buf, DAT_MAGIC, (size_t)r->size))
			return bc_error(BC_E_TRUNCATED, "%s: truncated trace.dat (%llu bytes)",
					r->path, (unsigned long long)r->size);
		return ret ? ret : bc_error(BC_E_FORMAT,
			"%s: not a trace.dat file (no trace-cmd magic at the start)", r->path);
	}
	ret = rd_bytes(r, 0, buf, DAT_MAGIC_LEN, "the magic");
	if (ret)
		return ret;
	if (memcmp(buf, DAT_MAGIC, DAT_MAGIC_LEN))
		return bc_error(BC_E_FORMAT,
				"%s: not a trace.dat file (no trace-cmd magic at the start)", r->path);
	ret = rd_str(r, DAT_MAGIC_LEN, ver, sizeof(ver), &len, "the version string");
	if (ret)
		return ret;
	v = strtol(ver, &end, 10);
	if (end == ver || *end)
		return fail(BC_E_FORMAT, r, DAT_MAGIC_LEN,
			    "corrupt trace.dat header (bad version string)");
	if (v < 6 || v > 7)
		return bc_error(BC_E_VERSION,
				"%s: trace.dat file version %ld is not supported (6 and 7 are)",
				r->path, v);
	r->l->version = (int)v;
	*off = DAT_MAGIC_LEN + len;
	ret = rd_bytes(r, *off, b, 2, "the endianness and long size");
	if (ret)
		return ret;
	if (b[0] > 1)
		return fail(BC_E_FORMAT, r, *off, "corrupt trace.dat: endianness byte %u", b[0]);
	if (b[1] != 4 && b[1] != 8)
		return fail(BC_E_FORMAT, r, *off + 1,
			    "corrupt trace.dat: long size %u (want 4 or 8)", b[1]);
	r->be = b[0] == 1;
	r->l->big_endian = r->be;
	r->l->long_size = b[1];
	*off += 2;
	ret = rd_u32(r, *off, &r->l->page_size, "the page size");
	if (!ret)
		ret = check_page_size(r, *off, r->l->page_size);
	*off += 4;
	return ret;
}

/*
 * The header_page and header_event texts (v6 inline, v7 in an uncompressed header
 * section). libtraceevent takes the ring-buffer page layout from header_page: it must
 * describe the timestamp, commit and data fields, or reading pages divides by zero.
 */
static int check_headers(const struct rd *r, uint64_t *off)
{
	static const char *const fields[] = { "timestamp;", "commit;", "data;" };
	char tag[13], *text;
	uint64_t size;
	size_t i;
	int ret;

	ret = rd_bytes(r, *off, tag, 12, "the header_page tag");
	if (ret)
		return ret;
	if (memcmp(tag, "header_page", 12))
		return fail(BC_E_FORMAT, r, *off, "corrupt trace.dat: no header_page where expected");
	*off += 12;
	ret = rd_u64(r, *off, &size, "the header_page size");
	if (ret)
		return ret;
	if (size < 32 || size > MAX_HEADER)
		return fail(BC_E_FORMAT, r, *off,
			    "corrupt trace.dat: header page size %llu (want 32 to %u)",
			    (unsigned long long)size, MAX_HEADER);
	*off += 8;
	text = calloc(1, size + 1);
	if (!text)
		return bc_error(BC_E_NOMEM, "out of memory");
	ret = rd_bytes(r, *off, text, size, "the header_page text");
	for (i = 0; !ret && i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strstr(text, fields[i]))
			ret = fail(BC_E_FORMAT, r, *off,
				   "corrupt trace.dat: header page text has no '%.*s' field",
				   (int)strlen(fields[i]) - 1, fields[i]);
	free(text);
	if (ret)
		return ret;
	*off += size;
	ret = rd_bytes(r, *off, tag, 13, "the header_event tag");
	if (ret)
		return ret;
	if (memcmp(tag, "header_event", 13))
		return fail(BC_E_FORMAT, r, *off,
			    "corrupt trace.dat: no header_event where expected");
	*off += 13;
	ret = rd_u64(r, *off, &size, "the header_event size");
	if (ret)
		return ret;
	if (size > MAX_HEADER)
		return fail(BC_E_FORMAT, r, *off, "corrupt trace.dat: header event size %llu",
			    (unsigned long long)size);
	*off += 8;
	return skip(r, off, size, "the header_event text");
}

/* A block preceded by its size (@width: 4 or 8 bytes) at *@off, which must be in the file. */
static int skip_block(const struct rd *r, uint64_t *off, int width, const char *what)
{
	uint64_t size = 0;
	uint32_t s32;
	int ret;

	if (width == 4) {
		ret = rd_u32(r, *off, &s32, what);
		size = s32;
	} else {
		ret = rd_u64(r, *off, &size, what);
	}
	if (ret)
		return ret;
	*off += (uint64_t)width;
	return skip(r, off, size, what);
}

/* @n blocks each preceded by a 64-bit size. */
static int skip_sized(const struct rd *r, uint64_t *off, uint32_t n, const char *what)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; !ret && i < n; i++)
		ret = skip_block(r, off, 8, what);
	return ret;
}

static int rd_count(const struct rd *r, uint64_t off, uint32_t *n, uint32_t max,
		    const char *what)
{
	int ret = rd_u32(r, off, n, what);

	if (!ret && *n > max)
		ret = fail(BC_E_FORMAT, r, off, "corrupt trace.dat: %s %u (at most %u)", what, *n,
			   max);
	return ret;
}

/* v6: event formats, kallsyms, printk formats and cmdlines, all inline. */
static int check_v6_formats(struct rd *r, uint64_t *off)
{
	uint32_t n, nsys, i;
	char name[256];
	size_t len;
	int ret;

	ret = rd_count(r, *off, &n, MAX_COUNT, "count of ftrace formats");
	*off += 4;
	if (!ret)
		ret = skip_sized(r, off, n, "an ftrace event format");
	if (!ret)
		ret = rd_count(r, *off, &nsys, MAX_COUNT, "count of event systems");
	*off += 4;
	for (i = 0; !ret && i < nsys; i++) {
		ret = rd_str(r, *off, name, sizeof(name), &len, "an event system name");
		if (ret)
			return ret;
		*off += len;
		ret = rd_count(r, *off, &n, MAX_COUNT, "count of events");
		*off += 4;
		if (!ret)
			ret = skip_sized(r, off, n, "an event format");
	}
	if (!ret)
		ret = rd_u32(r, *off, &n, "the kallsyms size");
	if (!ret) {
		r->l->kallsyms_size = n;
		ret = skip_block(r, off, 4, "the kallsyms text");
	}
	if (!ret)
		ret = skip_block(r, off, 4, "the printk formats");
	if (!ret)
		ret = skip_block(r, off, 8, "the cmdlines text");
	return ret;
}

static int add_buffer(struct rd *r, uint64_t off, const char *name, uint32_t page_size,
		      uint32_t ncpus, struct dat_buffer **out)
{
	struct dat_layout *l = r->l;
	struct dat_buffer *grown, *b;

	if (l->nbuffers == MAX_BUFFERS)
		return fail(BC_E_FORMAT, r, off, "corrupt trace.dat: more than %d buffers",
			    MAX_BUFFERS);
	if (ncpus > MAX_CPUS)
		return fail(BC_E_FORMAT, r, off, "corrupt trace.dat: %u CPUs (at most %d)", ncpus,
			    MAX_CPUS);
	grown = realloc(l->buffers, (size_t)(l->nbuffers + 1) * sizeof(*grown));
	if (!grown)
		return bc_error(BC_E_NOMEM, "out of memory");
	l->buffers = grown;
	b = &grown[l->nbuffers];
	memset(b, 0, sizeof(*b));
	snprintf(b->name, sizeof(b->name), "%s", name);
	b->page_size = page_size;
	b->cpus = calloc(ncpus ? ncpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return bc_error(BC_E_NOMEM, "out of memory");
	l->nbuffers++;
	*out = b;
	return 0;
}

/* One CPU's data: in the file, and (uncompressed) whole pages. */
static int check_cpu_data(const struct rd *r, uint64_t at, const struct dat_buffer *b,
			  struct dat_cpu *c)
{
	char what[192];

	snprintf(what, sizeof(what), "CPU %d data of buffer '%s' (at %llu, %llu bytes)", c->cpu,
		 b->name, (unsigned long long)c->offset, (unsigned long long)c->size);
	if (c->offset > r->size || c->size > r->size - c->offset)
		return fail(BC_E_TRUNCATED, r, at,
			    "truncated or corrupt trace.dat: %s ends beyond the end of the file (%llu bytes)",
			    what, (unsigned long long)r->size);
	c->data_size = c->size;
	return 0;
}

/* v6 flyrecord table at @off: "flyrecord\0", then an offset and a size per CPU. */
static int check_v6_flyrecord(struct rd *r, uint64_t off, const char *name, uint32_t ncpus)
{
	struct dat_buffer *b;
	char tag[10];
	uint32_t i;
	int ret;

	ret = rd_bytes(r, off, tag, sizeof(tag), "the flyrecord tag");
	if (ret)
		return ret;
	if (!memcmp(tag, "latency  ", 10) && !*name)
		return 0;	/* latency text, no ring-buffer data */
	if (memcmp(tag, "flyrecord", 10))
		return fail(BC_E_FORMAT, r, off, "corrupt trace.dat: no flyrecord table for buffer '%s'",
			    name);
	off += sizeof(tag);
	ret = add_buffer(r, off, name, r->l->page_size, ncpus, &b);
	for (i = 0; !ret && i < ncpus; i++, off += 16) {
		b->cpus[i].cpu = (int)i;
		ret = rd_u64(r, off, &b->cpus[i].offset, "a CPU offset");
		if (!ret)
			ret = rd_u64(r, off + 8, &b->cpus[i].size, "a CPU data size");
		b->ncpus = (int)i + 1;
		if (!ret)
			ret = check_cpu_data(r, off, b, &b->cpus[i]);
	}
	return ret;
}

/* v6 options ("options  \0" then id, size, data until id 0), then the flyrecord tables. */
static int check_v6(struct rd *r, uint64_t off)
{
	uint64_t bufs[MAX_BUFFERS], boff;
	char names[MAX_BUFFERS][128];
	uint32_t ncpus, size;
	int nbufs = 0, i, ret;
	uint16_t id;
	char tag[10];
	size_t len;

	ret = check_headers(r, &off);
	if (!ret)
		ret = check_v6_formats(r, &off);
	if (!ret)
		ret = rd_count(r, off, &ncpus, MAX_CPUS, "count of CPUs");
	if (ret)
		return ret;
	off += 4;
	ret = rd_bytes(r, off, tag, sizeof(tag), "the options or flyrecord tag");
	if (ret)
		return ret;
	if (!memcmp(tag, "options  ", 10)) {
		for (off += sizeof(tag);;) {
			ret = rd_u16(r, off, &id, "an option id");
			if (ret)
				return ret;
			off += 2;
			if (id == OPT_DONE)
				break;
			ret = rd_u32(r, off, &size, "an option size");
			if (ret)
				return ret;
			off += 4;
			ret = need(r, off, size, "an option");
			if (ret)
				return ret;
			if (id == OPT_BUFFER) {
				if (nbufs == MAX_BUFFERS || size < 9)
					return fail(BC_E_FORMAT, r, off, "corrupt trace.dat: buffer option");
				ret = rd_u64(r, off, &bufs[nbufs], "a buffer offset");
				if (!ret)
					ret = rd_str(r, off + 8, names[nbufs], sizeof(names[0]), &len,
						     "a buffer name");
				if (ret)
					return ret;
				nbufs++;
			}
			off += size;
		}
	}
	ret = check_v6_flyrecord(r, off, "", ncpus);
	for (i = 0; !ret && i < nbufs; i++) {
		boff = bufs[i];
		ret = need(r, boff, 10, "a buffer instance's flyrecord table");
		if (!ret)
			ret = check_v6_flyrecord(r, boff, names[i], ncpus);
	}
	return ret;
}

/* v7 section header at @off: id, flags, string id, size; the section must fit. */
static int check_section(const struct rd *r, uint64_t off, uint16_t want, uint16_t *flags,
			 uint64_t *size)
{
	uint16_t id;
	int ret;

	ret = rd_u16(r, off, &id, "a section header");
	if (!ret)
		ret = rd_u16(r, off + 2, flags, "a section header");
	if (!ret)
		ret = rd_u64(r, off + 8, size, "a section header");
	if (ret)
		return ret;
	if (id != want)
		return fail(BC_E_FORMAT, r, off,
			    "corrupt trace.dat: section id %u where section %u should be", id, want);
	return need(r, off + 16, *size, "a section");
}

/*
 * Compressed ring-buffer data: a chunk count, then (compressed size, uncompressed
 * size, data) per chunk. The CPU's size counts the chunks, not the count before them
 * (so trace-cmd writes it). Sums the uncompressed sizes.
 */
static int check_chunks(const struct rd *r, const struct dat_buffer *b, struct dat_cpu *c)
{
	uint64_t off = c->offset, end = c->offset + 4 + c->size, total = 0;
	uint32_t n, i, csize, usize, hdr[2];
	int ret;

	ret = need(r, off, c->size + 4, "compressed CPU data");
	if (!ret)
		ret = rd_u32(r, off, &n, "the chunk count of CPU data");
	if (ret)
		return ret;
	off += 4;
	for (i = 0; i < n; i++) {
		if (off + 8 > end)
			return fail(BC_E_FORMAT, r, off,
				    "corrupt trace.dat: CPU %d data of buffer '%s' ends in chunk %u of %u",
				    c->cpu, b->name, i, n);
		ret = rd_bytes(r, off, hdr, sizeof(hdr), "a chunk header");
		if (ret)
			return ret;
		csize = r->be ? be32toh(hdr[0]) : le32toh(hdr[0]);
		usize = r->be ? be32toh(hdr[1]) : le32toh(hdr[1]);
		off += 8;
		if (csize > end - off || usize % b->page_size)
			return fail(BC_E_FORMAT, r, off - 8,
				    "corrupt trace.dat: CPU %d chunk %u of buffer '%s': %u bytes compressed, %u uncompressed",
				    c->cpu, i, b->name, csize, usize);
		off += csize;
		total += usize;
	}
	c->data_size = total;
	return 0;
}

/* v7 BUFFER option at @off (@size bytes): the buffer section and every CPU's data. */
static int check_v7_buffer(struct rd *r, uint64_t off, uint32_t size)
{
	uint64_t end = off + size, sec, ssize, p;
	char name[128], clock[64];
	struct dat_buffer *b;
	uint32_t ps, ncpus, i, id;
	uint16_t flags;
	size_t len;
	int ret;

	ret = rd_u64(r, off, &sec, "a buffer offset");
	if (!ret)
		ret = rd_str(r, off + 8, name, sizeof(name), &len, "a buffer name");
	if (ret)
		return ret;
	p = off + 8 + len;
	ret = rd_str(r, p, clock, sizeof(clock), &len, "a buffer clock");
	if (ret)
		return ret;
	p += len;
	if (p + 8 > end)
		return fail(BC_E_FORMAT, r, off, "corrupt trace.dat: buffer option of %u bytes", size);
	ret = rd_u32(r, p, &ps, "a buffer page size");
	if (!ret)
		ret = check_page_size(r, p, ps);
	if (!ret)
		ret = rd_u32(r, p + 4, &ncpus, "a buffer CPU count");
	if (!ret && (uint64_t)ncpus * 20 > end - p - 8)
		ret = fail(BC_E_FORMAT, r, p + 4,
			   "corrupt trace.dat: buffer '%s' lists %u CPUs in a %u-byte option", name,
			   ncpus, size);
	if (!ret)
		ret = add_buffer(r, p + 4, name, ps, ncpus, &b);
	if (ret)
		return ret;
	for (i = 0, p += 8; i < ncpus; i++, p += 20) {
		ret = rd_u32(r, p, &id, "a CPU id");
		if (!ret)
			ret = rd_u64(r, p + 4, &b->cpus[i].offset, "a CPU offset");
		if (!ret)
			ret = rd_u64(r, p + 12, &b->cpus[i].size, "a CPU data size");
		b->cpus[i].cpu = (int)id;
		b->ncpus = (int)i + 1;
		if (!ret)
			ret = check_cpu_data(r, p, b, &b->cpus[i]);
		if (!ret && id >= MAX_CPUS)
			ret = fail(BC_E_FORMAT, r, p, "corrupt trace.dat: CPU id %u", id);
		if (ret)
			return ret;
	}
	ret = check_section(r, sec, OPT_BUFFER, &flags, &ssize);
	for (i = 0; !ret && i < ncpus; i++) {
		struct dat_cpu *c = &b->cpus[i];

		if (c->size && (c->offset < sec + 16 ||
				c->offset + c->size > sec + 16 + ssize + 4))
			return fail(BC_E_FORMAT, r, c->offset,
				    "corrupt trace.dat: CPU %d data of buffer '%s' lies outside its section (at %llu, %llu bytes)",
				    c->cpu, name, (unsigned long long)sec,
				    (unsigned long long)ssize);
		if (c->size && (flags & SEC_FLAG_COMPRESSED))
			ret = check_chunks(r, b, c);
	}
	return ret;
}

/*
 * The kallsyms section at @at (@size bytes after its header): the size of its text,
 * read ahead of libtracecmd (a hint of the memory the import will touch, not checked
 * further). A compressed section opens with its block's compressed and uncompressed
 * sizes (tracecmd_uncompress_block()); the text there is the uncompressed block less
 * its 4-byte size, and the compressed block is read into memory too: counted in.
 */
static int kallsyms_size(struct rd *r, uint64_t at, uint16_t flags, uint64_t size)
{
	uint32_t n = 0;
	int ret;

	if (flags & SEC_FLAG_COMPRESSED) {
		if (size < 8)
			return 0;
		ret = rd_u32(r, at + 16 + 4, &n, "the kallsyms section's uncompressed size");
		if (!ret) {
			r->l->kallsyms_size = (uint64_t)n + size;
			r->l->kallsyms_block = at + 16;
		}
		return ret;
	}
	if (size < 4)
		return 0;
	ret = rd_u32(r, at + 16, &n, "the kallsyms size");
	if (!ret)
		r->l->kallsyms_size = n;
	return ret;
}

/* One v7 options section: its options; *@next: the next section (0: none). */
static int check_v7_options(struct rd *r, uint64_t sec, uint64_t *next)
{
	uint64_t size, off, end, at;
	uint16_t flags, id, sflags;
	uint32_t osize;
	int ret;

	ret = check_section(r, sec, OPT_DONE, &flags, &size);
	if (ret)
		return ret;
	*next = 0;
	if (flags & SEC_FLAG_COMPRESSED)
		return 0;	/* not decompressed here: libtracecmd checks it */
	for (off = sec + 16, end = off + size; off < end; off += osize) {
		if (off + 6 > end)
			return fail(BC_E_FORMAT, r, off, "corrupt trace.dat: options section ends inside an option");
		ret = rd_u16(r, off, &id, "an option id");
		if (!ret)
			ret = rd_u32(r, off + 2, &osize, "an option size");
		if (ret)
			return ret;
		off += 6;
		if (osize > end - off)
			return fail(BC_E_FORMAT, r, off - 6,
				    "corrupt trace.dat: option %u of %u bytes overruns its section", id,
				    osize);
		if (id == OPT_DONE)
			return osize >= 8 ? rd_u64(r, off, next, "the next options offset") : 0;
		if (id == OPT_BUFFER)
			ret = check_v7_buffer(r, off, osize);
		else if (id >= OPT_HEADER_INFO && id <= OPT_CMDLINES && osize >= 8) {
			ret = rd_u64(r, off, &at, "a section offset");
			if (!ret)
				ret = check_section(r, at, id, &sflags, &size);
			if (!ret && id == OPT_HEADER_INFO && !(sflags & SEC_FLAG_COMPRESSED)) {
				at += 16;
				ret = check_headers(r, &at);
			}
			if (!ret && id == OPT_KALLSYMS)
				ret = kallsyms_size(r, at, sflags, size);
		} else if (id == OPT_BUFFER_TEXT && osize >= 8) {
			ret = rd_u64(r, off, &at, "a section offset");
			if (!ret)
				ret = check_section(r, at, id, &sflags, &size);
		}
		if (ret)
			return ret;
	}
	return fail(BC_E_FORMAT, r, sec, "corrupt trace.dat: options section without an end");
}

/* v7: compression name and version, then the chain of options sections. */
static int check_v7(struct rd *r, uint64_t off)
{
	char name[64], ver[64];
	uint64_t sec, next;
	size_t len;
	int i, ret;

	ret = rd_str(r, off, name, sizeof(name), &len, "the compression name");
	if (ret)
		return ret;
	off += len;
	ret = rd_str(r, off, ver, sizeof(ver), &len, "the compression version");
	if (ret)
		return ret;
	off += len;
	r->l->compressed = strcmp(name, "none") != 0;
	ret = rd_u64(r, off, &sec, "the options offset");
	for (i = 0; !ret && sec; i++) {
		if (i == MAX_SECTIONS)
			return fail(BC_E_FORMAT, r, sec,
				    "corrupt trace.dat: more than %d options sections (a loop?)",
				    MAX_SECTIONS);
		ret = check_v7_options(r, sec, &next);
		if (!ret && next && next <= sec)
			ret = fail(BC_E_FORMAT, r, sec,
				   "corrupt trace.dat: options section points back to %llu",
				   (unsigned long long)next);
		sec = next;
	}
	return ret;
}

int dat_check(const char *path, struct dat_layout *out)
{
	struct rd r = { .path = path, .l = out };
	struct stat sb;
	uint64_t off = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	/* O_NONBLOCK: a FIFO must not hang the open; it is refused just below. */
	r.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r.fd < 0)
		return bc_error(errno == ENOENT ? BC_E_NOENT : errno == EACCES ? BC_E_PERM :
				BC_E_IO, "%s: %m", path);
	if (fstat(r.fd, &sb) < 0) {
		ret = bc_error(BC_E_IO, "%s: %m", path);
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		ret = bc_error(BC_E_INVAL, "%s: not a regular file (%s)", path,
			       S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISDIR(sb.st_mode) ?
			       "a directory" : S_ISCHR(sb.st_mode) ? "a device" : "not a file");
		goto out;
	}
	r.size = (uint64_t)sb.st_size;
	out->file_size = r.size;
	ret = check_start(&r, &off);
	if (!ret)
		ret = out->version == 6 ? check_v6(&r, off) : check_v7(&r, off);
out:
	close(r.fd);
	if (ret)
		dat_layout_free(out);
	return ret;
}

void dat_layout_free(struct dat_layout *l)
{
	int i;

	for (i = 0; i < l->nbuffers; i++)
		free(l->buffers[i].cpus);
	free(l->buffers);
	l->buffers = NULL;
	l->nbuffers = 0;
}

const struct dat_buffer *dat_buffer_find(const struct dat_layout *l, const char *name)
{
	int i;

	for (i = 0; i < l->nbuffers; i++)
		if (!strcmp(l->buffers[i].name, name))
			return &l->buffers[i];
	return NULL;
}
