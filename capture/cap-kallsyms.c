// SPDX-License-Identifier: GPL-2.0
/*
 * cap-kallsyms: deferred parsing of a trace.dat's kallsyms text (see cap-kallsyms.h).
 * One text is kept at a time: an import opens one file.
 *
 * The text kept is parsed into a table of its own, which the tep then asks through its
 * function resolver: libtraceevent's parse (sscanf, a strdup and a list node per line,
 * then a sort) cost more than everything else of importing a trace with stacks. The
 * table answers exactly as libtraceevent's map does (same lines kept, same order among
 * symbols of one address, same search), so stacks read the same either way.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "capture/cap-kallsyms.h"
#include "common/err.h"

/* Exported by libtracecmd 3.x but not declared in its public header. */
struct tracecmd_compression;
void tracecmd_compress_reset(struct tracecmd_compression *handle);
int tracecmd_compress_buffer_read(struct tracecmd_compression *handle, char *dst, int len);
int tracecmd_compress_buffer_write(struct tracecmd_compression *handle, const void *data,
				   unsigned long long size);
off64_t tracecmd_compress_lseek(struct tracecmd_compression *handle, off64_t offset, int whence);
int tracecmd_uncompress_block(struct tracecmd_compression *handle);

struct ksym {
	unsigned long long addr;
	char *name;			/* in the text; cut out of its line when asked for */
};

/* The table of the text loaded, and the tep asking it. */
struct ksyms {
	char *text;
	struct ksym *sym;		/* nr symbols, then an end entry of address 0 */
	size_t nr;
	struct tep_handle *tep;
};

static bool deferring;
static char *kept;
static size_t kept_len;
static struct ksyms loaded;

/*
 * The compressed block of a version 7 file's kallsyms section (cap_kallsyms_defer_block()):
 * where it is, and once libtracecmd came to it, the compression handle that reads it
 * later (its top handle's, alive while the file is open).
 */
static struct {
	bool armed;
	dev_t dev;
	ino_t ino;
	off_t at;
	struct tracecmd_compression *c;
	int fd;
} block;
static struct tep_handle *block_tep;	/* the file's byte order, for the text's size */

typedef int (*parse_fn)(struct tep_handle *tep, const char *buf);

/* libtraceevent's tep_parse_kallsyms(), the one ours stands in front of. */
static parse_fn real_parse(void)
{
	static parse_fn fn;

	if (!fn)
		fn = (parse_fn)dlsym(RTLD_NEXT, "tep_parse_kallsyms");
	return fn;
}

int tep_parse_kallsyms(struct tep_handle *tep, const char *buf)
{
	parse_fn fn;

	if (deferring && buf) {
		size_t len = strlen(buf);
		char *copy = malloc(len + 1);

		if (copy) {
			memcpy(copy, buf, len + 1);
			free(kept);
			kept = copy;
			kept_len = len;
			return 0;
		}
	}
	fn = real_parse();
	return fn ? fn(tep, buf) : -1;
}

typedef int (*unblock_fn)(struct tracecmd_compression *c);

/* libtracecmd's tracecmd_uncompress_block(), the one ours stands in front of. */
static unblock_fn real_unblock(void)
{
	static unblock_fn fn;

	if (!fn)
		fn = (unblock_fn)dlsym(RTLD_NEXT, "tracecmd_uncompress_block");
	return fn;
}

/*
 * libtracecmd decompresses each compressed metadata section whole while opening a
 * file: the kallsyms of Debian's kernels are 6.9 MB of text, and their decompression
 * was two thirds of importing a short trace recorded there. Only stacks need them: at
 * the armed block (the fd positioned at it, the same file), hand libtracecmd a block
 * that says "no text" (a size of 0: read_proc_kallsyms() takes that as no symbols)
 * and keep the handle to decompress the real one at the first stack. The fd is the
 * first member of struct tracecmd_compression (libtracecmd 3.x: tracecmd_compress_alloc()
 * stores the file's); checked against the file by fstat() before it is believed.
 */
int tracecmd_uncompress_block(struct tracecmd_compression *c)
{
	static const unsigned char none[4];
	unblock_fn fn = real_unblock();
	struct stat sb;
	int fd;

	if (deferring && block.armed && c) {
		memcpy(&fd, c, sizeof(fd));
		if (fd >= 0 && lseek(fd, 0, SEEK_CUR) == block.at && !fstat(fd, &sb) &&
		    sb.st_dev == block.dev && sb.st_ino == block.ino) {
			tracecmd_compress_reset(c);
			if (!tracecmd_compress_buffer_write(c, none, sizeof(none)) &&
			    tracecmd_compress_lseek(c, 0, SEEK_SET) == 0) {
				block.armed = false;
				block.c = c;
				block.fd = fd;
				return 0;
			}
			tracecmd_compress_reset(c);
		}
	}
	return fn ? fn(c) : -1;
}

void cap_kallsyms_defer_block(const char *path, uint64_t at)
{
	struct stat sb;

	memset(&block, 0, sizeof(block));
	if (!at || at > INT64_MAX || stat(path, &sb))
		return;
	block.armed = true;
	block.dev = sb.st_dev;
	block.ino = sb.st_ino;
	block.at = (off_t)at;
}

bool cap_kallsyms_block_pending(void)
{
	return block.c != NULL;
}

/*
 * The kallsyms text of the block deferred, decompressed now with the real function
 * on its handle (the fd's position put back after), into kept. Return: 0 (nothing
 * deferred, or kept set), or a negative bc_err.
 */
static int take_block(void)
{
	struct tracecmd_compression *c = block.c;
	unblock_fn fn = real_unblock();
	uint32_t size;
	off_t pos;
	char *text;
	int ret = 0;

	if (!c)
		return 0;
	block.c = NULL;
	pos = lseek(block.fd, 0, SEEK_CUR);
	if (pos < 0 || lseek(block.fd, block.at, SEEK_SET) != block.at || !fn || fn(c))
		ret = bc_error(BC_E_FORMAT, "capture: cannot read the kallsyms section at offset %lld",
			       (long long)block.at);
	else if (tracecmd_compress_buffer_read(c, (char *)&size, 4) != 4)
		ret = bc_error(BC_E_FORMAT, "capture: the kallsyms section at offset %lld is short",
			       (long long)block.at);
	if (!ret) {
		/* the size as the file writes it (read4(): the file's byte order) */
		size = (uint32_t)tep_read_number(block_tep, &size, 4);
		text = malloc((size_t)size + 1);
		if (!text) {
			ret = bc_error(BC_E_NOMEM, "capture: out of memory for the kernel's symbols");
		} else if (tracecmd_compress_buffer_read(c, text, (int)size) != (int)size) {
			free(text);
			ret = bc_error(BC_E_FORMAT, "capture: the kallsyms section at offset %lld is short",
				       (long long)block.at);
		} else {
			text[size] = '\0';
			free(kept);
			kept = text;
			kept_len = strlen(text);
		}
	}
	tracecmd_compress_reset(c);
	if (pos >= 0)
		lseek(block.fd, pos, SEEK_SET);
	return ret;
}

static void unload(void)
{
	if (loaded.tep)
		tep_reset_function_resolver(loaded.tep);
	free(loaded.sym);
	free(loaded.text);
	memset(&loaded, 0, sizeof(loaded));
}

void cap_kallsyms_defer(bool on)
{
	deferring = on;
	if (!on) {
		free(kept);
		kept = NULL;
		unload();
		memset(&block, 0, sizeof(block));
	}
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* A hex digit's value, or -1 (a table: this runs for every character of 100,000 lines). */
static signed char hex_value[256];

static void init_hex(void)
{
	int i;

	if (hex_value['1'])
		return;
	memset(hex_value, -1, sizeof(hex_value));
	for (i = 0; i < 10; i++)
		hex_value['0' + i] = (signed char)i;
	for (i = 0; i < 6; i++)
		hex_value['a' + i] = hex_value['A' + i] = (signed char)(10 + i);
}

static bool is_eol(char c)
{
	return c == '\n' || !c;
}

/*
 * The line at @line "ADDR TYPE NAME[\t[MODULE]]", as libtraceevent reads it: NULL when
 * it does not read so, else the end of its NAME. *@name is NULL for the lines
 * libtraceevent skips (absolute symbols, which are per-cpu offsets on x86-64, and
 * arm's '$' mapping symbols); the name is cut out of its line only when asked for
 * (resolve()): most of the 100,000 never are.
 */
static char *parse_line(char *line, unsigned long long *addr, char **name)
{
	unsigned long long a = 0;
	char *p = line, type, *n;
	int digits, v;

	while (is_space(*p))
		p++;
	for (digits = 0; digits < 16 && (v = hex_value[(unsigned char)*p]) >= 0; digits++, p++)
		a = a << 4 | (unsigned long long)v;
	if (!digits || !is_space(*p))
		return NULL;
	while (is_space(*p))
		p++;
	type = *p++;
	if (is_eol(type))
		return NULL;
	while (is_space(*p))
		p++;
	if (is_eol(*p))
		return NULL;
	n = p;
	while (!is_eol(*p) && !is_space(*p))
		p++;
	*addr = a;
	*name = type == 'A' || type == 'a' || n[0] == '$' ? NULL : n;
	return p;
}

/*
 * parse_line() for the line kallsyms almost always has, "%016llx %c NAME...": sixteen
 * hex digits read eight at a time (hex8()), then single spaces around the type. NULL when the line is
 * not of that shape, and parse_line() reads it instead; else the start of NAME (its
 * end is found only if it is asked for: the caller looks for the line's end with
 * memchr(), which is far quicker than stepping over the name byte by byte).
 */
/* hex8(): where hex16() below cannot take sixteen digits at once */
#if !defined(__SSE2__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ONES 0x0101010101010101ULL
#define HIGH (0x80 * ONES)

/*
 * The value of the 8 hex digits at @s (first digit most significant), 8 bytes at a
 * time: each byte is tested for '0'-'9' and (case folded) 'a'-'f' by adding what
 * carries into its top bit exactly when it is at or above a bound (no byte carries
 * into the next: all are below 0x80 first). Return: false when one is not a digit.
 */
static bool hex8(const char *s, uint32_t *out)
{
	uint64_t x, y, digit, alpha, v;

	memcpy(&x, s, 8);
	if (x & HIGH)
		return false;
	digit = (x + 0x50 * ONES) & ~(x + 0x46 * ONES) & HIGH;	/* >= '0', not >= ':' */
	y = x | 0x20 * ONES;
	alpha = (y + 0x1f * ONES) & ~(y + 0x19 * ONES) & HIGH;	/* >= 'a', not >= 'g' */
	if ((digit | alpha) != HIGH)
		return false;
	v = (x & 0x0f * ONES) + (alpha >> 7) * 9;		/* each byte its digit's value */
	v = ((v << 4) | (v >> 8)) & 0x00ff00ff00ff00ffULL;	/* pairs of digits: bytes */
	v = ((v << 8) | (v >> 16)) & 0x0000ffff0000ffffULL;	/* pairs of bytes */
	*out = (uint32_t)((v << 16) | (v >> 32));
	return true;
}
#else
static bool hex8(const char *s, uint32_t *out)
{
	int bad = 0, i;
	uint32_t a = 0;

	for (i = 0; i < 8; i++) {
		int v = hex_value[(unsigned char)s[i]];

		bad |= v;
		a = a << 4 | (uint32_t)(v & 15);
	}
	*out = a;
	return bad >= 0;
}
#endif

#endif

#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * The value of the 16 hex digits at @s in one go (x86-64 always has SSE2): the same
 * tests and digit values as hex8() on all sixteen bytes at once, then each pair of
 * digits packed into a byte. Return: false when one is not a digit.
 */
static bool hex16(const char *s, unsigned long long *out)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i y = _mm_or_si128(x, _mm_set1_epi8(0x20));	/* case folded */
	/* signed compares: bytes from 0x80 up are negative, below every bound */
	__m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
				      _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
	__m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(y, _mm_set1_epi8('a' - 1)),
				      _mm_cmplt_epi8(y, _mm_set1_epi8('f' + 1)));
	__m128i v, pair;
	uint64_t packed;

	if (_mm_movemask_epi8(_mm_or_si128(digit, alpha)) != 0xffff)
		return false;
	/* each byte its digit's value */
	v = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)),
			 _mm_and_si128(alpha, _mm_set1_epi8(9)));
	/* each 16-bit lane holds two digits, the first in its low byte: first << 4 | second */
	pair = _mm_or_si128(_mm_and_si128(_mm_slli_epi16(v, 4), _mm_set1_epi16(0x00f0)),
			    _mm_srli_epi16(v, 8));
	packed = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pair, pair));
	*out = __builtin_bswap64(packed);	/* the first pair is the top byte */
	return true;
}
#else
static bool hex16(const char *s, unsigned long long *out)
{
	uint32_t hi, lo;

	if (!hex8(s, &hi) || !hex8(s + 8, &lo))
		return false;
	*out = (unsigned long long)hi << 32 | lo;
	return true;
}
#endif

static char *parse_line_fast(char *line, unsigned long long *addr, char **name)
{
	unsigned long long a;
	char type, *n;

	if (line[16] != ' ' || line[18] != ' ' || !hex16(line, &a))
		return NULL;
	type = line[17];
	n = line + 19;
	if (is_space(type) || is_eol(type) || is_space(*n) || is_eol(*n))
		return NULL;
	*addr = a;
	*name = type == 'A' || type == 'a' || n[0] == '$' ? NULL : n;
	return n;
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Order the symbols (in text order) as libtraceevent's map has them: it lists them
 * newest first and sorts that stably by address, so symbols of one address end up in
 * reverse text order. A sorted text (the kernel's part of kallsyms is) needs no sort.
 */
static void order(struct ksym *s, size_t nr)
{
	size_t i, j, k;

	for (i = 1; i < nr && s[i - 1].addr <= s[i].addr; i++)
		;
	if (i < nr) {
		for (j = 0, k = nr - 1; j < k; j++, k--) {
			struct ksym t = s[j];

			s[j] = s[k];
			s[k] = t;
		}
		qsort(s, nr, sizeof(*s), by_addr);	/* glibc's qsort is a stable merge sort */
		return;
	}
	for (i = 0; i < nr; i = j) {
		for (j = i + 1; j < nr && s[j].addr == s[i].addr; j++)
			;
		for (size_t a = i, b = j - 1; a < b; a++, b--) {
			struct ksym t = s[a];

			s[a] = s[b];
			s[b] = t;
		}
	}
}

/* libtraceevent's search: the entry at @addr, or the one @addr lies after and before
 * the next (none past the last). */
static const struct ksym *find(const struct ksyms *ks, unsigned long long addr)
{
	size_t l = 0, u = ks->nr, i;

	while (l < u) {
		const struct ksym *s;

		i = (l + u) / 2;
		s = &ks->sym[i];
		if (addr == s->addr || (addr > s->addr && addr < s[1].addr))
			return s;
		if (addr < s->addr)
			u = i;
		else
			l = i + 1;
	}
	return NULL;
}

static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
	const struct ksym *s = find(priv, *addrp);

	(void)modp;
	if (!s)
		return NULL;
	*addrp = s->addr;
	s->name[strcspn(s->name, " \t\n")] = '\0';
	return s->name;
}

/* Room for @need more entries and the end entry. */
static int grow(struct ksyms *ks, size_t *cap, size_t need)
{
	struct ksym *s;

	if (ks->nr + need + 1 <= *cap)
		return 0;
	*cap = *cap * 2 + need + 1;
	s = realloc(ks->sym, *cap * sizeof(*s));
	if (!s)
		return bc_error(BC_E_NOMEM, "capture: out of memory for the kernel's symbols");
	ks->sym = s;
	return 0;
}

/*
 * Parse @text (taken, @len bytes) into @ks, in one pass: the table starts at a size
 * for kallsyms' usual 40-odd bytes a line and grows if the lines are shorter.
 * Return: 0, -BC_E_NOMEM or -BC_E_FORMAT.
 */
static int build(char *text, size_t len, struct ksyms *ks)
{
	char *line, *end = text + len, *p, *name;
	unsigned long long addr;
	size_t cap = 0;

	ks->text = text;
	ks->nr = 0;
	if (grow(ks, &cap, len / 32))
		return -BC_E_NOMEM;
	init_hex();
	for (line = text; line < end; line = p + 1) {
		if (*line == '\n') {
			p = line;	/* an empty line: libtraceevent's strtok() skips it */
			continue;
		}
		/* the fast read looks at 20 bytes: only where the text has them */
		p = end - line > 20 ? parse_line_fast(line, &addr, &name) : NULL;
		if (!p)
			p = parse_line(line, &addr, &name);
		if (!p)
			return bc_error(BC_E_FORMAT, "capture: the trace's kallsyms could not be parsed");
		if (name) {
			if (grow(ks, &cap, 1))
				return -BC_E_NOMEM;
			ks->sym[ks->nr++] = (struct ksym){ addr, name };
		}
		if (*p != '\n')
			p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			break;
	}
	order(ks->sym, ks->nr);
	ks->sym[ks->nr] = (struct ksym){ 0, NULL };
	return 0;
}

int cap_kallsyms_load(struct tep_handle *tep)
{
	char *text;
	int ret;

	block_tep = tep;
	ret = take_block();
	if (ret)
		return ret;
	text = kept;
	if (!text)
		return 0;
	kept = NULL;
	unload();
	ret = build(text, kept_len, &loaded);
	if (!ret && tep_set_function_resolver(tep, resolve, &loaded))
		ret = bc_error(BC_E_NOMEM, "capture: out of memory for the kernel's symbols");
	if (ret) {
		unload();
		return ret;
	}
	loaded.tep = tep;
	return 0;
}
