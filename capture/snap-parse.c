// SPDX-License-Identifier: GPL-2.0
/*
 * Parsers of a snapshot's text files (/proc/zoneinfo, buddyinfo, pagetypeinfo,
 * meminfo, vmstat, iomem) into struct snap_tables rows. They accept the layouts of
 * v5.x-v6.18 kernels: fields are found by name, unknown lines are skipped, and a line
 * that has a known name but no number is an error naming the line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/snap-local.h"
#include "common/err.h"

/* Iterate over the lines of @text: *@line (NUL-terminated copy in @buf), line number. */
struct lines {
	const char *p;
	int lineno;
	char buf[4096];
};

static bool next_line(struct lines *l)
{
	size_t n;

	if (!l->p || !*l->p)
		return false;
	n = strcspn(l->p, "\n");
	if (n >= sizeof(l->buf))
		n = sizeof(l->buf) - 1;	/* no kernel line is this long; cut, parse the rest */
	memcpy(l->buf, l->p, n);
	l->buf[n] = 0;
	l->p += strcspn(l->p, "\n");
	if (*l->p)
		l->p++;
	l->lineno++;
	return true;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Parse one signed decimal at *@p, moving past it. Return: 0 or -1. */
static int get_num(const char **p, int64_t *v)
{
	char *e;

	*p = skip_ws(*p);
	errno = 0;
	*v = strtoll(*p, &e, 10);
	if (e == *p || errno)
		return -1;
	*p = e;
	return 0;
}

static int bad_line(const struct lines *l, const char *what)
{
	return bc_error(BC_E_FORMAT, "line %d: %s: \"%.80s\"", l->lineno, what, l->buf);
}

/* "Node N, zone NAME" at the start of a line; *@rest points after NAME (comma kept). */
static int node_zone(const char *line, int *node, char *zone, size_t zsize, const char **rest)
{
	const char *p;
	char *e;
	size_t n;

	if (strncmp(line, "Node", 4))
		return -1;
	p = skip_ws(line + 4);
	errno = 0;
	*node = (int)strtol(p, &e, 10);
	if (e == p || errno || *e != ',')
		return -1;
	p = skip_ws(e + 1);
	if (strncmp(p, "zone", 4))
		return -1;
	p = skip_ws(p + 4);
	n = strcspn(p, " \t,");
	if (!n || n >= zsize)
		return -1;
	memcpy(zone, p, n);
	zone[n] = 0;
	*rest = p + n;
	return 0;
}

int snap_parse_zoneinfo(const char *text, struct snap_tables *t)
{
	struct lines l = { .p = text };
	int first = t->nr_zones, zi = -1, ret, i, nr;
	bool in_pcp = false;

	while (next_line(&l)) {
		const char *p = skip_ws(l.buf), *rest;
		struct snap_zone *z;
		struct snap_pcp *c;
		char word[32];
		int64_t v;
		size_t n;

		if (!strncmp(l.buf, "Node", 4)) {
			ret = snap_grow(&t->zones, t->nr_zones, sizeof(*t->zones));
			if (ret)
				return ret;
			z = &t->zones[t->nr_zones];
			memset(z, 0, sizeof(*z));
			if (node_zone(l.buf, &z->node, z->name, sizeof(z->name), &rest))
				return bad_line(&l, "expected \"Node N, zone NAME\"");
			z->start_pfn = z->spanned = z->present = z->managed = z->free = -1;
			z->wmark_min = z->wmark_low = z->wmark_high = -1;
			zi = t->nr_zones++;
			in_pcp = false;
			continue;
		}
		if (zi < 0 || !*p)
			continue;
		z = &t->zones[zi];
		n = strcspn(p, " \t");
		if (n >= sizeof(word))
			continue;
		memcpy(word, p, n);
		word[n] = 0;
		p += n;
		if (!strcmp(word, "pagesets")) {
			in_pcp = true;
			continue;
		}
		if (!strcmp(word, "pages")) {
			p = skip_ws(p);
			if (strncmp(p, "free", 4))
				continue;
			p += 4;
			if (get_num(&p, &z->free))
				return bad_line(&l, "bad number");
			continue;
		}
		if (!strcmp(word, "cpu:")) {
			if (!in_pcp)
				continue;
			if (get_num(&p, &v))
				return bad_line(&l, "bad cpu number");
			ret = snap_grow(&z->pcp, z->nr_pcp, sizeof(*z->pcp));
			if (ret)
				return ret;
			c = &z->pcp[z->nr_pcp++];
			*c = (struct snap_pcp){ (int)v, -1, -1, -1, -1, -1 };
			continue;
		}
		{
			static const struct { const char *name; size_t off; bool pcp; } f[] = {
				{ "min", offsetof(struct snap_zone, wmark_min), false },
				{ "low", offsetof(struct snap_zone, wmark_low), false },
				{ "high", offsetof(struct snap_zone, wmark_high), false },
				{ "spanned", offsetof(struct snap_zone, spanned), false },
				{ "present", offsetof(struct snap_zone, present), false },
				{ "managed", offsetof(struct snap_zone, managed), false },
				{ "start_pfn:", offsetof(struct snap_zone, start_pfn), false },
				{ "count:", offsetof(struct snap_pcp, count), true },
				{ "high:", offsetof(struct snap_pcp, high), true },
				{ "batch:", offsetof(struct snap_pcp, batch), true },
				{ "high_min:", offsetof(struct snap_pcp, high_min), true },
				{ "high_max:", offsetof(struct snap_pcp, high_max), true },
			};
			size_t k;

			for (k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
				char *base;

				if (strcmp(word, f[k].name))
					continue;
				if (f[k].pcp && (!in_pcp || !z->nr_pcp))
					break;
				base = f[k].pcp ? (char *)&z->pcp[z->nr_pcp - 1] : (char *)z;
				if (get_num(&p, &v))
					return bad_line(&l, "bad number");
				memcpy(base + f[k].off, &v, sizeof(v));
				break;
			}
		}
	}
	/*
	 * Keep populated zones only (the kernel prints no pagesets or start_pfn for the rest).
	 * Check them all before compacting, so that on an error every zone still owns its
	 * own pcp array once (snap_tables_release() frees each).
	 */
	for (i = first; i < t->nr_zones; i++) {
		struct snap_zone *z = &t->zones[i];

		if (z->present > 0 &&
		    (z->start_pfn < 0 || z->spanned < 0 || z->managed < 0 || z->free < 0))
			return bc_error(BC_E_FORMAT, "node %d zone %s: no %s line", z->node,
					z->name, z->start_pfn < 0 ? "start_pfn" : z->spanned < 0 ?
					"spanned" : z->managed < 0 ? "managed" : "pages free");
	}
	nr = first;
	for (i = first; i < t->nr_zones; i++) {
		if (t->zones[i].present <= 0)
			free(t->zones[i].pcp);
		else
			t->zones[nr++] = t->zones[i];
	}
	t->nr_zones = nr;
	if (nr == first)
		return bc_error(BC_E_FORMAT, "no populated zone");
	return 0;
}

static int add_oc(struct snap_order_count **arr, int *nr, int node, const char *zone,
		  const char *mt, int ord, int64_t v)
{
	struct snap_order_count *o;
	int ret = snap_grow(arr, *nr, sizeof(**arr));

	if (ret)
		return ret;
	o = &(*arr)[(*nr)++];
	memset(o, 0, sizeof(*o));
	o->node = node;
	strncpy(o->zone, zone, sizeof(o->zone) - 1);
	strncpy(o->migratetype, mt, sizeof(o->migratetype) - 1);
	o->ord = ord;
	o->nr = v;
	return 0;
}

int snap_parse_buddyinfo(const char *text, struct snap_tables *t)
{
	struct lines l = { .p = text };
	int n = 0, ret, nr_orders = -1;

	while (next_line(&l)) {
		const char *p;
		char zone[16];
		int node, ord;
		int64_t v;

		if (!*skip_ws(l.buf))
			continue;
		if (node_zone(l.buf, &node, zone, sizeof(zone), &p))
			return bad_line(&l, "expected \"Node N, zone NAME counts...\"");
		for (ord = 0; *skip_ws(p); ord++) {
			if (ord > SNAP_MAX_PAGE_ORDER)
				return bad_line(&l, "more than " SNAP_STR(SNAP_MAX_PAGE_ORDER)
						" + 1 orders");
			if (get_num(&p, &v) || v < 0)
				return bad_line(&l, "bad count");
			ret = add_oc(&t->buddy, &t->nr_buddy, node, zone, "", ord, v);
			if (ret)
				return ret;
		}
		/* one count per order 0..MAX_PAGE_ORDER, the same on every line */
		if (nr_orders >= 0 && ord != nr_orders)
			return bad_line(&l, "a different number of orders than the lines before");
		if (ord < 2)
			return bad_line(&l, "fewer than 2 orders");
		nr_orders = ord;
		n++;
	}
	if (!n)
		return bc_error(BC_E_FORMAT, "no zone lines");
	return 0;
}

/* "... at order 0 1 ... N": orders 0..N in sequence, N at most SNAP_MAX_PAGE_ORDER. */
static int free_header(const struct lines *l, const char *p, int *nr_orders)
{
	int64_t v;

	p = skip_ws(p);
	if (strncmp(p, "at order", 8))
		return bad_line(l, "expected \"at order 0 1 ...\"");
	p += 8;
	for (*nr_orders = 0; *skip_ws(p); (*nr_orders)++) {
		if (get_num(&p, &v) || v != *nr_orders || v > SNAP_MAX_PAGE_ORDER)
			return bad_line(l, "orders are not 0, 1, ... MAX_PAGE_ORDER (at most "
					SNAP_STR(SNAP_MAX_PAGE_ORDER) ")");
	}
	if (*nr_orders < 2)
		return bad_line(l, "fewer than 2 orders");
	return 0;
}

int snap_parse_pageblock_order(const char *text, int *order, int *lineno)
{
	struct lines l = { .p = text };
	int64_t v, per_block = -1;
	const char *p;

	*order = -1;
	while (next_line(&l)) {
		if (!strncmp(l.buf, "Page block order:", 17)) {
			p = l.buf + 17;
			if (get_num(&p, &v) || *skip_ws(p) || v < 0 || v > 63)
				return bad_line(&l, "bad pageblock order");
			*order = (int)v;
			*lineno = l.lineno;
		} else if (!strncmp(l.buf, "Pages per block:", 16)) {
			p = l.buf + 16;
			if (get_num(&p, &per_block) || *skip_ws(p))
				return bad_line(&l, "bad number");
			if (*order < 0 || per_block != (int64_t)1 << *order)
				return bad_line(&l, "not 2^(Page block order) pages");
			return 0;
		}
	}
	return bc_error(BC_E_FORMAT, "no \"%s\" line", *order < 0 ? "Page block order:" :
			"Pages per block:");
}

int snap_parse_pagetypeinfo(const char *text, struct snap_tables *t)
{
	enum { NONE, FREE, BLOCKS, SKIP } mode = NONE;
	struct lines l = { .p = text };
	char names[16][24];
	int nr_names = 0, nfree = 0, nblocks = 0, nr_orders = 0, ret;

	while (next_line(&l)) {
		const char *p = l.buf, *q;
		char zone[16], mt[24];
		int node, ord, i;
		int64_t v;
		size_t n;

		if (!*skip_ws(p))
			continue;
		if (!strncmp(p, "Free pages count per migrate type", 33)) {
			ret = free_header(&l, p + 33, &nr_orders);
			if (ret)
				return ret;
			mode = FREE;
			continue;
		}
		if (!strncmp(p, "Number of blocks type", 21)) {
			mode = BLOCKS;
			nr_names = 0;
			for (q = skip_ws(p + 21); *q; q = skip_ws(q + n)) {
				n = strcspn(q, " \t");
				if (nr_names == 16 || n >= sizeof(names[0]))
					return bad_line(&l, "too many or too long migratetype names");
				memcpy(names[nr_names], q, n);
				names[nr_names++][n] = 0;
			}
			continue;
		}
		if (!strncmp(p, "Number of", 9)) {	/* "mixed blocks" (page_owner) etc. */
			mode = SKIP;
			continue;
		}
		if (strncmp(p, "Node", 4) || mode == NONE || mode == SKIP)
			continue;
		if (node_zone(p, &node, zone, sizeof(zone), &q))
			return bad_line(&l, "expected \"Node N, zone NAME\"");
		if (mode == FREE) {
			q = skip_ws(q);
			if (*q != ',' || strncmp(skip_ws(q + 1), "type", 4))
				return bad_line(&l, "expected \", type NAME\"");
			q = skip_ws(skip_ws(q + 1) + 4);
			n = strcspn(q, " \t");
			if (!n || n >= sizeof(mt))
				return bad_line(&l, "bad migratetype");
			memcpy(mt, q, n);
			mt[n] = 0;
			q += n;
			for (ord = 0; *skip_ws(q); ord++) {
				q = skip_ws(q);
				if (*q == '>') {	/* the list walk stopped at 100000 */
					q++;
					if (get_num(&q, &v))
						return bad_line(&l, "bad count");
					v = -1;
				} else if (get_num(&q, &v) || v < 0) {
					return bad_line(&l, "bad count");
				}
				if (ord == nr_orders)
					return bad_line(&l, "more counts than the header's orders");
				ret = add_oc(&t->ptfree, &t->nr_ptfree, node, zone, mt, ord, v);
				if (ret)
					return ret;
			}
			if (ord != nr_orders)
				return bad_line(&l, "fewer counts than the header's orders");
			nfree++;
		} else {
			for (i = 0; *skip_ws(q); i++) {
				if (i == nr_names)
					return bad_line(&l, "more counts than migratetypes");
				if (get_num(&q, &v) || v < 0)
					return bad_line(&l, "bad count");
				ret = add_oc(&t->ptblocks, &t->nr_ptblocks, node, zone, names[i],
					     -1, v);
				if (ret)
					return ret;
			}
			if (i != nr_names)
				return bad_line(&l, "fewer counts than migratetypes");
			nblocks++;
		}
	}
	if (!nfree || !nblocks)
		return bc_error(BC_E_FORMAT, "no %s section", !nfree ? "\"Free pages count\"" :
				"\"Number of blocks type\"");
	return 0;
}

static int add_kv(struct snap_kv **arr, int *nr, const char *key, size_t klen, int64_t v)
{
	int ret = snap_grow(arr, *nr, sizeof(**arr));

	if (ret)
		return ret;
	memcpy((*arr)[*nr].key, key, klen);
	(*arr)[*nr].key[klen] = 0;
	(*arr)[(*nr)++].value = v;
	return 0;
}

static int parse_kv(const char *text, struct snap_kv **arr, int *nr, bool colon)
{
	struct lines l = { .p = text };
	int first = *nr, ret;

	while (next_line(&l)) {
		const char *p = l.buf;
		int64_t v;
		size_t n;

		if (!*skip_ws(p))
			continue;
		n = strcspn(p, colon ? ":" : " \t");
		if (!n || n >= sizeof((*arr)->key) || (colon && p[n] != ':'))
			return bad_line(&l, colon ? "expected \"Key: value\"" :
					"expected \"key value\"");
		p += n + colon;
		if (get_num(&p, &v))
			return bad_line(&l, "bad number");
		p = skip_ws(p);
		if (*p && strcmp(p, "kB"))
			return bad_line(&l, "trailing text");
		ret = add_kv(arr, nr, l.buf, n, v);
		if (ret)
			return ret;
	}
	if (*nr == first)
		return bc_error(BC_E_FORMAT, "empty");
	return 0;
}

int snap_parse_meminfo(const char *text, struct snap_tables *t)
{
	return parse_kv(text, &t->meminfo, &t->nr_meminfo, true);
}

int snap_parse_vmstat(const char *text, struct snap_tables *t)
{
	return parse_kv(text, &t->vmstat, &t->nr_vmstat, false);
}

int snap_parse_iomem(const char *text, struct snap_tables *t)
{
	struct lines l = { .p = text };
	int nram = 0, nzero = 0, ret;

	while (next_line(&l)) {
		unsigned long long s, e;
		const char *p = skip_ws(l.buf);
		uint64_t sp, ep;
		int n = 0;

		if (!*p)
			continue;
		if (sscanf(p, "%llx-%llx : %n", &s, &e, &n) != 2 || !n)
			return bad_line(&l, "expected \"START-END : NAME\"");
		/* IORESOURCE_SYSTEM_RAM: "System RAM", or hotplugged "System RAM (kmem)" etc. */
		if (strncmp(p + n, "System RAM", 10) || (p[n + 10] && strncmp(p + n + 10, " (", 2)))
			continue;
		nram++;
		if (!s && !e) {
			nzero++;
			continue;
		}
		if (e < s)
			return bad_line(&l, "range ends before it starts");
		/* whole pages only: [PFN_UP(start), PFN_DOWN(end + 1)) */
		sp = (s >> 12) + !!(s & 0xfff);
		ep = (e >> 12) + ((e & 0xfff) == 0xfff);
		if (ep <= sp)
			continue;
		if (t->nr_ram && sp < t->ram[t->nr_ram - 1].end_pfn)
			return bad_line(&l, "System RAM range overlaps or precedes the one before");
		ret = snap_grow(&t->ram, t->nr_ram, sizeof(*t->ram));
		if (ret)
			return ret;
		t->ram[t->nr_ram++] = (struct snap_range){ sp, ep };
	}
	if (!nram)
		return bc_error(BC_E_FORMAT, "no \"System RAM\" range");
	if (nzero == nram)
		return bc_error(BC_E_PERM, "all System RAM addresses read 0: the file was read "
				"without root (CAP_SYS_ADMIN)");
	return 0;
}

void snap_tables_release(struct snap_tables *t)
{
	int i;

	for (i = 0; i < t->nr_zones; i++)
		free(t->zones[i].pcp);
	free(t->zones);
	free(t->buddy);
	free(t->ptfree);
	free(t->ptblocks);
	free(t->meminfo);
	free(t->vmstat);
	free(t->ram);
	free(t->blocks);
	free(t->huge);
	memset(t, 0, sizeof(*t));
}
