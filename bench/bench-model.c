// SPDX-License-Identifier: GPL-2.0
/*
 * bench-model: throughput of the page allocator model fed from memory, and its size.
 *
 * A generator model seeded like a busy 24 GiB machine (DMA32 + Normal, 6.3 M pfns,
 * ~60% in use) produces a valid, kernel-shaped event stream: per-cpu order-0 churn
 * (pcp refills of 31 blocks by zone_locked, allocs from the pcp head, frees to the pcp,
 * drains of 63 pages when a list grows past 512), some order-2/3 and order-9 THP
 * traffic, and order-4+ buddy allocations. The events are stored in an array; then a
 * fresh, identically seeded model replays the array and is timed (events/s), and its
 * bytes/pfn is printed (model_get_stats()). With --tib the model is created for
 * 2^28 pfns (1 TiB) to show the size at the design limit.
 *
 * usage: bench-model [--events N] [--mix order0|mixed] [--tib] [--seed S]
 * built by `make bench` as build/bench/bench-model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model.h"

enum { EV_ALLOC, EV_FREE, EV_ZONE_LOCKED, EV_DRAIN, EV_BATCHED };

struct ev {
	uint8_t type, order, cpu, mt;
	uint8_t refill, pad[3];
	uint64_t pfn;
};

#define NCPU 2
#define GFP_MOVABLE 0x100ccaull
#define GFP_KERNEL 0xcc0ull

static uint64_t rs = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 2685821657736338717ull;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Event mixes: "order0" (pcp churn, most of a real trace), "mixed" (with THP, mTHP). */
static int mix_order0;

static void layout_24g(struct model_layout *l, int tib)
{
	memset(l, 0, sizeof(*l));
	l->nr_zones = 2;
	strcpy(l->zones[0].name, "DMA32");
	l->zones[0].start_pfn = 0x1000;
	l->zones[0].spanned = 0x100000 - 0x1000;
	strcpy(l->zones[1].name, "Normal");
	l->zones[1].start_pfn = 0x100000;
	l->zones[1].spanned = tib ? (1ull << 28) - 0x100000 - 1024 : 5505024;
	l->nr_ram = 2;
	l->ram[0].start = 0x1000;
	l->ram[0].end = 0xc0000;
	l->ram[1].start = 0x100000;
	l->ram[1].end = l->zones[1].start_pfn + l->zones[1].spanned;
	l->pageblock_order = 9;
	l->max_page_order = 10;
	l->nr_cpus = NCPU;
	l->memory_block_pages = 32768;
}

/* Seed: runs of anon pages and free runs, like a machine after some uptime. */
static struct model *mk(int tib, uint64_t seed)
{
	struct model_layout l;
	struct model_profile p;
	struct model *m;
	uint64_t chunk = 1 << 20, *f = malloc(chunk * sizeof(*f)), pfn;
	unsigned int z;

	layout_24g(&l, tib);
	model_profile_from_release("6.18.44", 9, &p);
	m = model_create(&l, &p);
	if (!m || !f) {
		fprintf(stderr, "bench-model: cannot create the model\n");
		exit(1);
	}
	rs = seed;
	for (z = 0; z < l.nr_zones; z++) {
		uint64_t end = l.zones[z].start_pfn + l.zones[z].spanned;

		for (pfn = l.zones[z].start_pfn; pfn < end; pfn += chunk) {
			uint64_t n = end - pfn < chunk ? end - pfn : chunk, i = 0;

			while (i < n) {
				uint64_t len = 1 + rnd() % 2048, v, k;
				unsigned int r = rnd() % 100;

				v = r < 40 ? (1ull << 10) : r < 95 ? (1ull << 5 | 1ull << 12) : (1ull << 7);
				for (k = 0; k < len && i < n; k++)
					f[i++] = v;
			}
			model_seed_pfn_range(m, pfn, n, f, NULL);
		}
	}
	free(f);
	return m;
}

struct gen {
	struct model *m;
	struct ev *ev;
	size_t n, cap;
	uint64_t *used;		/* allocated pfn | order << 56 */
	size_t nused, capused;
	long pcp[NCPU];
};

static void emit(struct gen *g, struct ev e)
{
	if (g->n == g->cap)
		return;
	g->ev[g->n++] = e;
}

static void apply(struct model *m, const struct ev *e)
{
	switch (e->type) {
	case EV_ALLOC:
		model_page_alloc(m, e->pfn, e->order, e->mt == 1 ? GFP_MOVABLE : GFP_KERNEL,
				 e->mt, e->cpu);
		break;
	case EV_FREE:
		model_page_free(m, e->pfn, e->order, e->cpu);
		break;
	case EV_ZONE_LOCKED:
		model_zone_locked(m, e->pfn, e->order, e->mt, e->refill, e->cpu);
		break;
	case EV_DRAIN:
		model_pcpu_drain(m, e->pfn, e->order, e->mt, e->cpu);
		break;
	case EV_BATCHED:
		model_free_batched(m, e->pfn, e->cpu);
		break;
	}
}

static void gen_push(struct gen *g, struct ev e)
{
	emit(g, e);
	apply(g->m, &e);
}

static void note_used(struct gen *g, uint64_t pfn, unsigned int order)
{
	if (g->nused == g->capused) {
		g->capused = g->capused ? g->capused * 2 : 1 << 16;
		g->used = realloc(g->used, g->capused * sizeof(*g->used));
	}
	g->used[g->nused++] = pfn | (uint64_t)order << 56;
}

/* Smallest free block of order >= @order on @mt's lists of the Normal zone. */
static int buddy_head(struct model *m, unsigned int order, int mt, uint64_t *pfn)
{
	unsigned int o;

	for (o = order; o <= 10; o++)
		if (model_free_list(m, 1, o, mt, pfn, 1) > 0)
			return 0;
	return -1;
}

static void gen_alloc(struct gen *g, unsigned int cpu, unsigned int order, int mt)
{
	uint64_t pfn;
	int k;

	if (order == 0 || order == 2 || order == 3 || order == 9) {
		if (model_pcp_list(g->m, 1, cpu, order, mt, &pfn, 1) <= 0) {
			/* rmqueue_bulk(): a batch of blocks appended to the list */
			for (k = 0; k < (order ? 2 : 31); k++) {
				if (buddy_head(g->m, order, mt, &pfn))
					break;
				gen_push(g, (struct ev){ EV_ZONE_LOCKED, (uint8_t)order, (uint8_t)cpu,
					 (uint8_t)mt, 1, {0}, pfn });
			}
			if (model_pcp_list(g->m, 1, cpu, order, mt, &pfn, 1) <= 0)
				return;
		}
		gen_push(g, (struct ev){ EV_ALLOC, (uint8_t)order, (uint8_t)cpu, (uint8_t)mt, 0,
					 {0}, pfn });
		g->pcp[cpu] -= 1 << order;
	} else {
		if (buddy_head(g->m, order, mt, &pfn))
			return;
		gen_push(g, (struct ev){ EV_ZONE_LOCKED, (uint8_t)order, (uint8_t)cpu, (uint8_t)mt,
					 0, {0}, pfn });
		gen_push(g, (struct ev){ EV_ALLOC, (uint8_t)order, (uint8_t)cpu, (uint8_t)mt, 0,
					 {0}, pfn });
	}
	note_used(g, pfn, order);
}

static void gen_free(struct gen *g, unsigned int cpu)
{
	size_t i;
	uint64_t v, pfn;
	unsigned int order;

	if (!g->nused)
		return;
	/* recently allocated pages are freed first more often (page cache churn) */
	i = rnd() % 4 ? g->nused - 1 - rnd() % (g->nused < 4096 ? g->nused : 4096)
		      : rnd() % g->nused;
	v = g->used[i];
	g->used[i] = g->used[--g->nused];
	pfn = v & ((1ull << 56) - 1);
	order = (unsigned int)(v >> 56);
	gen_push(g, (struct ev){ EV_FREE, (uint8_t)order, (uint8_t)cpu, 0, 0, {0}, pfn });
	if (order == 0 || order == 2 || order == 3 || order == 9) {
		struct model_pfn_info pi;

		g->pcp[cpu] += 1 << order;
		if (g->pcp[cpu] > 512) {
			/* free_pcppages_bulk(): 63 pages back, recorded on the other cpu */
			int k, mt;

			for (k = 0; k < 63; k++) {
				unsigned int o;
				int found = 0;

				for (o = 0; o <= 9 && !found; o++)
					for (mt = 0; mt < 3 && !found; mt++)
						if ((o < 4 || o == 9) &&
						    model_pcp_list(g->m, 1, cpu, o, mt, &pfn, 1) > 0)
							found = 1;
				if (!found)
					break;
				model_pfn_info(g->m, pfn, &pi);
				model_pageblock_mt(g->m, pfn, NULL, &mt, NULL);
				gen_push(g, (struct ev){ EV_DRAIN, (uint8_t)pi.order,
					 (uint8_t)(cpu ^ 1), (uint8_t)mt, 0, {0}, pfn });
				g->pcp[cpu] -= 1 << pi.order;
			}
		}
	}
}

int main(int argc, char **argv)
{
	size_t nev = 20000000;
	int tib = 0, i, r;
	uint64_t seed = 1;
	struct gen g;
	struct model *m;
	struct model_stats st;
	double t0, t1, best = 1e30;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--events") && i + 1 < argc)
			nev = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--tib"))
			tib = 1;
		else if (!strcmp(argv[i], "--mix") && i + 1 < argc)
			mix_order0 = !strcmp(argv[++i], "order0");
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: bench-model [--events N] [--mix order0|mixed] [--tib] [--seed S]\n");
			return 2;
		}
	}
	memset(&g, 0, sizeof(g));
	t0 = now();
	g.m = mk(tib, seed);
	t1 = now();
	model_get_stats(g.m, &st);
	printf("model: %llu spanned pfns (%llu present), seeded in %.2f s, %.3f bytes/spanned pfn, %.3f bytes/present pfn (%zu bytes, %llu free-list nodes)\n",
	       (unsigned long long)st.spanned_pfns, (unsigned long long)st.present_pfns, t1 - t0,
	       st.bytes_per_pfn, st.bytes_per_present_pfn, st.bytes,
	       (unsigned long long)st.pool_nodes);
	if (tib) {
		model_destroy(g.m);
		return 0;
	}
	g.cap = nev;
	g.ev = malloc(nev * sizeof(*g.ev));
	if (!g.ev)
		return 1;
	t0 = now();
	rs = seed * 7 + 3;
	while (g.n < g.cap) {
		unsigned int cpu = rnd() % NCPU, k = rnd() % 100;
		size_t before = g.n;

		if (k < 48 || g.nused < 1000) {
			unsigned int order = k < 44 ? 0 : k < 46 ? (rnd() % 2 ? 2 : 3) :
					     k < 47 ? 9 : 4 + rnd() % 3;

			if (mix_order0)
				order = 0;

			gen_alloc(&g, cpu, order, k % 7 ? 1 : 0);
		} else {
			gen_free(&g, cpu);
		}
		if (g.n == before && g.nused == 0)
			break;
	}
	t1 = now();
	printf("generated %zu events in %.2f s (%llu anomalies in the generator)\n", g.n, t1 - t0,
	       (unsigned long long)model_anomaly_total(g.m));
	model_destroy(g.m);

	for (r = 0; r < 3; r++) {
		size_t e;

		m = mk(0, seed);
		t0 = now();
		for (e = 0; e < g.n; e++)
			apply(m, &g.ev[e]);
		t1 = now();
		if (t1 - t0 < best)
			best = t1 - t0;
		if (r == 2) {
			model_get_stats(m, &st);
			printf("replayed: %llu anomalies, %.3f bytes/pfn after replay (%llu nodes)\n",
			       (unsigned long long)model_anomaly_total(m), st.bytes_per_pfn,
			       (unsigned long long)st.pool_nodes);
		}
		model_destroy(m);
	}
	printf("memory (%s mix): %.2f M events/s (best of 3, %zu events in %.3f s)\n",
	       mix_order0 ? "order0" : "mixed", g.n / best / 1e6,
	       g.n, best);
	free(g.ev);
	free(g.used);
	return 0;
}
