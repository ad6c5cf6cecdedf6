// SPDX-License-Identifier: GPL-2.0
/*
 * cap-stacks: symbolised kernel stacks, cached by their raw address list (see
 * cap-stacks.h). An open-addressing table of STACK_SLOTS entries, emptied when half
 * full: a trace's distinct call paths are a few hundred, so it rarely is.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "capture/cap-kallsyms.h"
#include "capture/cap-stacks.h"
#include "common/err.h"

#define STACK_SLOTS	4096U

struct stack_entry {
	uint64_t hash;
	size_t len;			/* key bytes; key NULL: slot empty */
	unsigned char *key;
	char *text;
	const char *first_sym;		/* owned by the tep */
	int64_t id;			/* the caller's, 0 until it sets one */
};

struct cap_stacks {
	struct tep_handle *tep;
	int long_size;
	bool native;			/* file byte order == ours: plain loads */
	unsigned int used;
	struct stack_entry slot[STACK_SLOTS];
};

int cap_stacks_create(struct tep_handle *tep, int long_size, struct cap_stacks **out)
{
	struct cap_stacks *sc = calloc(1, sizeof(*sc));

	*out = NULL;
	if (!sc)
		return bc_error(BC_E_NOMEM, "capture: out of memory for stacks");
	sc->tep = tep;
	sc->long_size = long_size;
	sc->native = tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
	*out = sc;
	return 0;
}

static void stacks_clear(struct cap_stacks *sc)
{
	unsigned int i;

	for (i = 0; i < STACK_SLOTS; i++) {
		free(sc->slot[i].key);
		free(sc->slot[i].text);
	}
	memset(sc->slot, 0, sizeof(sc->slot));
	sc->used = 0;
}

void cap_stacks_destroy(struct cap_stacks *sc)
{
	if (!sc)
		return;
	stacks_clear(sc);
	free(sc);
}

static unsigned long long addr_at(const struct cap_stacks *sc, const void *raw, int i)
{
	const char *p = (const char *)raw + (size_t)i * sc->long_size;
	uint64_t a64;
	uint32_t a32;

	if (!sc->native || (sc->long_size != 8 && sc->long_size != 4))
		return tep_read_number(sc->tep, p, sc->long_size);
	if (sc->long_size == 8) {
		memcpy(&a64, p, sizeof(a64));
		return a64;
	}
	memcpy(&a32, p, sizeof(a32));
	return a32;
}

/*
 * FNV-1a over 64-bit words, then the bytes left: the keys are a few hundred bytes of
 * addresses, hashed for every record, and a byte at a time was a good part of an import.
 */
static uint64_t hash_bytes(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL, w;

	for (; len >= sizeof(w); p += sizeof(w), len -= sizeof(w)) {
		memcpy(&w, p, sizeof(w));
		h = (h ^ w) * 0x100000001b3ULL;
	}
	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h ^ h >> 29;
}

/* Append to the text being built, growing it; false when out of memory. */
static bool put(char **buf, size_t *len, size_t *cap, const char *fmt, const char *sym,
		unsigned long long v)
{
	int n;

	for (;;) {
		n = sym ? snprintf(*buf + *len, *cap - *len, fmt, sym, v) :
			  snprintf(*buf + *len, *cap - *len, fmt, v);
		if (n < 0)
			return false;
		if ((size_t)n < *cap - *len)
			break;
		char *nb = realloc(*buf, *cap * 2 + (size_t)n);

		if (!nb)
			return false;
		*buf = nb;
		*cap = *cap * 2 + (size_t)n;
	}
	*len += (size_t)n;
	return true;
}

/* The frames of @n addresses as text, as decode_stack() always wrote them. */
static char *symbolise(const struct cap_stacks *sc, const void *raw, int n)
{
	unsigned long long addr, all = sc->long_size == 8 ? ~0ULL : 0xffffffffULL;
	size_t len = 0, cap = 256;
	char *buf = malloc(cap);
	const char *sym;
	int i;

	if (!buf)
		return NULL;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		addr = addr_at(sc, raw, i);
		if (!addr || addr == all)
			break;
		sym = tep_find_function(sc->tep, addr);
		if (!(sym ? put(&buf, &len, &cap, i ? "\n%s+0x%llx" : "%s+0x%llx", sym,
				addr - tep_find_function_address(sc->tep, addr)) :
			    put(&buf, &len, &cap, i ? "\n0x%llx" : "0x%llx", NULL, addr))) {
			free(buf);
			return NULL;
		}
	}
	return buf;
}

int cap_stacks_lookup(struct cap_stacks *sc, const void *raw, int n, const char **text,
		      const char **first_sym, int64_t **id)
{
	unsigned long long addr, all = sc->long_size == 8 ? ~0ULL : 0xffffffffULL;
	struct stack_entry *e;
	size_t len;
	uint64_t h;
	unsigned int i;
	int m, ret;

	/* the key: the addresses up to and with the one that ends the list */
	for (m = 0; m < n; m++) {
		addr = addr_at(sc, raw, m);
		if (!addr || addr == all) {
			m++;
			break;
		}
	}
	len = (size_t)m * (size_t)sc->long_size;
	h = hash_bytes(raw, len);
	for (i = (unsigned int)h % STACK_SLOTS;; i = (i + 1) % STACK_SLOTS) {
		e = &sc->slot[i];
		if (!e->key)
			break;
		if (e->hash == h && e->len == len && !memcmp(e->key, raw, len))
			goto found;
	}
	/* the first stack: the kernel's symbols are parsed now (cap-kallsyms.h) */
	ret = cap_kallsyms_load(sc->tep);
	if (ret)
		return ret;
	if (sc->used >= STACK_SLOTS / 2) {
		stacks_clear(sc);
		for (i = (unsigned int)h % STACK_SLOTS; sc->slot[i].key; i = (i + 1) % STACK_SLOTS)
			;
		e = &sc->slot[i];
	}
	e->key = malloc(len ? len : 1);
	e->text = symbolise(sc, raw, n);
	if (!e->key || !e->text) {
		free(e->key);
		free(e->text);
		*e = (struct stack_entry){ 0 };
		return bc_error(BC_E_NOMEM, "capture: out of memory for a stack");
	}
	memcpy(e->key, raw, len);
	e->hash = h;
	e->len = len;
	addr = n > 0 ? addr_at(sc, raw, 0) : 0;
	e->first_sym = addr ? tep_find_function(sc->tep, addr) : NULL;
	sc->used++;
found:
	*text = e->text;
	*first_sym = e->first_sym;
	if (id)
		*id = &e->id;
	return 0;
}
