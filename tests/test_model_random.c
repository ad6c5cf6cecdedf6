// SPDX-License-Identifier: GPL-2.0
/*
 * Randomized test of model/: long sequences of plausible events (the kernel's own
 * paths: pcp refill/alloc/free/drain, rmqueue, fallback claim/steal, isolation,
 * migration, alloc_contig) mixed with nonsense events (the repair paths), with the
 * seeds printed. After every step model_recount() must find the incremental counters,
 * free lists and per-pfn map consistent; checkpoint/rollback must restore the state
 * hash exactly. BC_MODEL_RANDOM_STEPS=N changes the length, BC_MODEL_RANDOM_SEED=S is
 * xored into every seed (to explore); failures print the seed and step.
 *
 * Map: two zones, "DMA32" [Z+16, Z+3072) (starts inside a pageblock, ends at a
 * pageblock that is not order-10 aligned) and "Normal" [Z+3072, Z+8192) with a RAM hole
 * [Z+5000, Z+5200).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/kpageflags.h"
#include "model/model.h"

#define Z	0x40000ull
#define NPFN	8192u

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static unsigned int rn(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static struct model *mk_random(const char *rel)
{
	struct model_layout l;
	struct model_profile p;
	struct model *m;
	uint64_t *f, i;

	memset(&l, 0, sizeof(l));
	l.nr_zones = 2;
	strcpy(l.zones[0].name, "DMA32");
	l.zones[0].start_pfn = Z + 16;
	l.zones[0].spanned = 3072 - 16;
	strcpy(l.zones[1].name, "Normal");
	l.zones[1].start_pfn = Z + 3072;
	l.zones[1].spanned = NPFN - 3072;
	l.nr_ram = 2;
	l.ram[0].start = Z;
	l.ram[0].end = Z + 5000;
	l.ram[1].start = Z + 5200;
	l.ram[1].end = Z + NPFN;
	l.pageblock_order = 9;
	l.max_page_order = 10;
	l.nr_cpus = 3;
	l.memory_block_pages = 2048;
	model_profile_from_release(rel, 9, &p);
	m = model_create(&l, &p);
	ck_assert_ptr_nonnull(m);
	if (p.version < MODEL_KVER(6, 17, 0))
		model_set_options(m, MODEL_OPT_DRAIN_TYPES);	/* both ways get covered */

	f = calloc(NPFN, sizeof(*f));
	for (i = 0; i < NPFN; ) {
		unsigned int r = rn(100), len = 1 + rn(300), k;
		uint64_t v;

		if (r < 45)
			v = KPF_BIT(KPF_BUDDY);
		else if (r < 85)
			v = KPF_BIT(KPF_LRU) | KPF_BIT(KPF_ANON);
		else if (r < 92)
			v = KPF_BIT(KPF_SLAB);
		else if (r < 96)
			v = 0;
		else
			v = KPF_BIT(KPF_LRU);	/* file */
		for (k = 0; k < len && i < NPFN; k++, i++)
			f[i] = v;
	}
	for (i = 0; i < NPFN; i += 512)
		model_set_pageblock_mt(m, Z + i, (int)rn(3));
	ck_assert_int_eq(model_seed_pfn_range(m, Z, NPFN, f, NULL), 0);
	free(f);
	return m;
}

static void recount_ok(struct model *m, uint64_t seed, unsigned int step, const char *op)
{
	char buf[4096];
	long n = model_recount(m, buf, sizeof(buf));

	if (n)
		fprintf(stderr, "seed %#llx step %u after %s: %ld mismatches\n%s",
			(unsigned long long)seed, step, op, n, buf);
	ck_assert_msg(n == 0, "seed %#llx step %u (%s): recount found %ld mismatches",
		      (unsigned long long)seed, step, op, n);
}

static uint64_t state_hash(struct model *m)
{
	uint64_t h = 1469598103934665603ull, i, l[16];
	struct model_pfn_info pi;
	struct model_zone_stats zs;
	struct model_range_counts rc;
	unsigned int z, o, t, c;
	long n;

	for (i = 0; i < NPFN; i++) {
		model_pfn_info(m, Z + i, &pi);
		h = (h ^ (pi.state | (uint64_t)pi.order << 8 | (uint64_t)(pi.mt + 1) << 16 |
			  (uint64_t)(pi.cpu + 1) << 24 | (uint64_t)pi.kind << 32 |
			  (uint64_t)pi.gfp_class << 36 | (uint64_t)pi.uncertain << 39 |
			  (uint64_t)(pi.head - Z) << 40)) * 1099511628211ull;
	}
	model_range_counts(m, Z, Z + NPFN, &rc);
	for (i = 0; i < MODEL_NR_PBC; i++)
		h = (h ^ rc.pages[i]) * 1099511628211ull;
	for (i = 0; i < 8; i++)
		h = (h ^ rc.pageblocks[i]) * 1099511628211ull;
	for (z = 0; z < 2; z++) {
		for (o = 0; o <= 10; o++)
			for (t = 0; t < 5; t++) {
				n = model_free_list(m, z, o, (int)t, l, 16);
				h = (h ^ (uint64_t)n) * 1099511628211ull;
				while (n-- > 0)
					if (n < 16)
						h = (h ^ l[n]) * 1099511628211ull;
			}
		for (c = 0; c < 3; c++)
			for (t = 0; t < 3; t++) {
				n = model_pcp_list(m, z, c, 0, (int)t, l, 16);
				h = (h ^ (uint64_t)n) * 1099511628211ull;
				while (n-- > 0)
					if (n < 16)
						h = (h ^ l[n]) * 1099511628211ull;
			}
		model_zone_stats(m, z, &zs);
		h = (h ^ zs.free_pages ^ zs.pcp_pages << 20 ^ zs.nr_isolate_pageblock << 40) *
		    1099511628211ull;
	}
	h = (h ^ model_anomaly_total(m)) * 1099511628211ull;
	return h;
}

#define MAX_ISO 8
struct iso { uint64_t s, e; };

/* One plausible or nonsense event; returns its name. */
static const char *step_once(struct model *m, struct iso *iso, unsigned int *nr_iso)
{
	uint64_t pfn = Z + rn(NPFN), fin;
	struct model_pfn_info pi;
	unsigned int r = rn(100), cpu = rn(3);
	int eff;

	model_pfn_info(m, pfn, &pi);
	if (r < 30) {
		/* follow the page's state the way the kernel would */
		switch (pi.state) {
		case MODEL_PFN_ALLOC:
			if (pi.gfp_class == MODEL_GFP_PENDING) {
				model_page_alloc(m, pi.head, pi.order, 0xcc0, 0, (int)cpu);
				return "alloc(pending)";
			}
			if (pi.seeded)
				model_page_free(m, pfn, 0, (int)cpu);
			else
				model_page_free(m, pi.head, pi.order, (int)cpu);
			return "free";
		case MODEL_PFN_BUDDY: {
			unsigned int o = rn(pi.order + 1);
			bool refill = o <= 3 && pi.mt < 3 && rn(2);

			if (pi.mt > 3)
				return "skip";
			model_zone_locked(m, pi.head, o, pi.mt, refill, (int)cpu);
			if (!refill)
				model_page_alloc(m, pi.head, o, 0x100cca, pi.mt < 3 ? pi.mt : 1,
						 (int)cpu);
			return "zone_locked";
		}
		case MODEL_PFN_PCP:
			if (rn(2))
				model_page_alloc(m, pi.head, pi.order, 0x100cca, pi.mt, (int)cpu);
			else {
				model_pageblock_mt(m, pi.head, NULL, &eff, NULL);
				model_pcpu_drain(m, pi.head, pi.order, eff, (int)rn(3));
			}
			return "pcp";
		default:
			return "nothing";
		}
	}
	if (r < 40) {
		uint64_t got;

		model_alloc_block(m, rn(2), rn(11) / (1 + rn(3)), (int)rn(4),
				  (enum model_kind)rn(MODEL_NR_KINDS), &got);
		return "alloc_block";
	}
	if (r < 46 && pi.state == MODEL_PFN_BUDDY && pi.mt < 3) {
		int a = (pi.mt + 1 + (int)rn(2)) % 3;
		unsigned int ao = rn(pi.order + 1);
		bool claim = rn(2);

		if (claim && pi.order < 9) {
			model_zone_locked(m, pi.head, ao, a, false, (int)cpu);
			model_extfrag(m, pi.head, ao, pi.order, a, pi.mt, true);
		} else {
			model_extfrag(m, pi.head, ao, pi.order, a, pi.mt, claim);
		}
		model_page_alloc(m, pi.head, ao, 0xcc0, a, (int)cpu);
		return "extfrag";
	}
	if (r < 54) {
		if (*nr_iso < MAX_ISO) {
			uint64_t s = Z + rn(NPFN), e = s + 1 + rn(2048), f2;

			if (e > Z + NPFN)
				e = Z + NPFN;
			if (model_pfn_zone(m, s) >= 0 && model_pfn_zone(m, s) == model_pfn_zone(m, e - 1) &&
			    !model_isolate_range(m, s, e, (enum model_isolate_mode)rn(2), &f2)) {
				iso[*nr_iso].s = s;
				iso[(*nr_iso)++].e = e;
				return "isolate";
			}
		}
		return "isolate-failed";
	}
	if (r < 60 && *nr_iso) {
		unsigned int i = rn(*nr_iso);
		struct model_migrate_result mr;

		if (rn(2)) {
			model_migrate_range(m, iso[i].s, iso[i].e, &mr);
			model_test_pages_isolated(m, iso[i].s, iso[i].e, MODEL_ISOLATE_OTHER, &fin);
			return "migrate";
		}
		model_undo_isolate_range(m, iso[i].s, iso[i].e);
		iso[i] = iso[--(*nr_iso)];
		return "undo";
	}
	if (r < 63) {
		model_drain_zone(m, pfn);
		return "drain_zone";
	}
	if (r < 66) {
		int mt = (int)rn(4);

		model_set_pageblock_mt(m, pfn, mt);
		return "set_pageblock_mt";
	}
	if (r < 68) {
		model_mark_uncertain(m, pfn, rn(64));
		return "mark_uncertain";
	}
	if (r < 70) {
		uint64_t n = 1 + rn(700), i, *f = malloc(n * sizeof(*f));

		for (i = 0; i < n; i++)
			f[i] = rn(3) ? KPF_BIT(KPF_BUDDY) : (rn(2) ? 0 : KPF_BIT(KPF_LRU));
		if (rn(4) == 0) {
			/* a whole memory block reading 0: uninitialised (lazy init) */
			free(f);
			n = 2048;
			f = calloc(n, sizeof(*f));
			pfn &= ~2047ull;
		}
		model_seed_pfn_range(m, pfn, n, f, NULL);
		free(f);
		return "seed";
	}
	if (r < 72) {
		model_set_page_kind(m, pfn, rn(100), (enum model_kind)rn(MODEL_NR_KINDS));
		return "set_kind";
	}
	/* nonsense: events that contradict the model */
	switch (rn(7)) {
	case 0:
		model_page_free(m, pfn & ~((1ull << (r % 4)) - 1), r % 4, (int)cpu);
		return "bad free";
	case 1:
		model_page_alloc(m, pfn & ~1ull, rn(2), 0xcc0, (int)rn(3), (int)cpu);
		return "bad alloc";
	case 2:
		model_zone_locked(m, pfn & ~3ull, rn(3), (int)rn(5), rn(2), (int)cpu);
		return "bad zone_locked";
	case 3:
		model_pcpu_drain(m, pfn, 0, (int)rn(5), (int)cpu);
		return "bad drain";
	case 4:
		model_free_batched(m, pfn, (int)cpu);
		return "bad batched";
	case 5:
		model_extfrag(m, pfn & ~7ull, rn(2), 3, (int)rn(3), (int)rn(3), rn(2));
		return "bad extfrag";
	default:
		model_page_free(m, pfn & ~511ull, rn(2) ? 9 : 10, (int)cpu);
		return "bad big free";
	}
}

static void run_seed(uint64_t seed, unsigned int steps, const char *rel)
{
	struct model *m;
	struct iso iso[MAX_ISO];
	unsigned int nr_iso = 0, i;

	if (getenv("BC_MODEL_RANDOM_STEPS"))
		steps = (unsigned int)strtoul(getenv("BC_MODEL_RANDOM_STEPS"), NULL, 0);
	if (getenv("BC_MODEL_RANDOM_SEED"))
		seed ^= strtoull(getenv("BC_MODEL_RANDOM_SEED"), NULL, 0);
	rng_state = seed ? seed : 1;
	printf("model_random: seed %#llx, %u steps, profile %s\n", (unsigned long long)seed,
	       steps, rel);
	m = mk_random(rel);
	recount_ok(m, seed, 0, "seed");
	for (i = 1; i <= steps; i++) {
		const char *op;

		if (rn(50) == 0) {
			/* a hypothetical attempt: changes, then rollback to the same hash */
			struct model_contig_req req = { .kind = MODEL_KIND_HUGETLB };
			struct model_contig_result cres;
			uint64_t before = state_hash(m), s;
			unsigned int k, nk = 1 + rn(20);
			struct iso tiso[MAX_ISO];
			unsigned int tnr = nr_iso;

			memcpy(tiso, iso, sizeof(iso));
			ck_assert_int_eq(model_checkpoint(m), 0);
			s = Z + 512 * rn(NPFN / 512 - 2);
			req.start = s;
			req.end = s + 1024;
			model_alloc_contig_range(m, &req, &cres);
			recount_ok(m, seed, i, "alloc_contig");
			for (k = 0; k < nk; k++)
				step_once(m, tiso, &tnr);
			recount_ok(m, seed, i, "hypothetical steps");
			ck_assert_int_eq(model_rollback(m), 0);
			ck_assert_msg(state_hash(m) == before, "seed %#llx step %u: rollback differs",
				      (unsigned long long)seed, i);
			op = "rollback";
		} else if (rn(50) == 0) {
			/* the same through a copy of the state, restored twice */
			struct model_contig_req req = { .kind = MODEL_KIND_HUGETLB };
			struct model_contig_result cres;
			struct model_state *st;
			uint64_t before = state_hash(m), s;
			unsigned int k, r, nk = 1 + rn(20);
			struct iso tiso[MAX_ISO];
			unsigned int tnr;

			ck_assert_int_eq(model_state_save(m, &st), 0);
			for (r = 0; r < 2; r++) {
				memcpy(tiso, iso, sizeof(iso));
				tnr = nr_iso;
				s = Z + 512 * rn(NPFN / 512 - 2);
				req.start = s;
				req.end = s + 1024;
				model_alloc_contig_range(m, &req, &cres);
				for (k = 0; k < nk; k++)
					step_once(m, tiso, &tnr);
				recount_ok(m, seed, i, "steps before a restore");
				ck_assert_int_eq(model_state_restore(m, st), 0);
				ck_assert_msg(state_hash(m) == before,
					      "seed %#llx step %u: restore %u differs",
					      (unsigned long long)seed, i, r);
			}
			model_state_free(st);
			op = "restore";
		} else {
			op = step_once(m, iso, &nr_iso);
		}
		recount_ok(m, seed, i, op);
	}
	while (nr_iso) {
		nr_iso--;
		model_undo_isolate_range(m, iso[nr_iso].s, iso[nr_iso].e);
	}
	recount_ok(m, seed, steps + 1, "final undo");
	model_destroy(m);
}

static const uint64_t seeds[] = { 1, 2, 3, 0xdecafbadull, 0x5eed2026ull, 42 };

START_TEST(test_random_618)
{
	run_seed(seeds[_i], 3000, "6.18.44");
}
END_TEST

START_TEST(test_random_612)
{
	run_seed(seeds[_i] ^ 0x612, 1500, "6.12.118");
}
END_TEST

START_TEST(test_random_61)
{
	run_seed(seeds[_i] ^ 0x61, 1500, "6.1.0");
}
END_TEST

Suite *model_random_suite(void);

Suite *model_random_suite(void)
{
	Suite *s = suite_create("model_random");
	TCase *inv = tcase_create("invariants");

	tcase_set_timeout(inv, 120);
	tcase_add_loop_test(inv, test_random_618, 0, (int)(sizeof(seeds) / sizeof(seeds[0])));
	tcase_add_loop_test(inv, test_random_612, 0, 3);
	tcase_add_loop_test(inv, test_random_61, 0, 2);
	suite_add_tcase(s, inv);
	return s;
}
