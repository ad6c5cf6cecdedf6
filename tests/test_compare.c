// SPDX-License-Identifier: GPL-2.0
/*
 * compare/: what-if layouts. Specs parse (and bad ones do not); ZONE_MOVABLE starts
 * where find_zone_movable_pfns_for_nodes() puts it (the layout of a guest booted with
 * movablecore=1G, whose kernel put it at 0x180000); a reservation leaves no page of its
 * range to the allocator and moves the seed's pages out; a CMA area's pageblocks are
 * MIGRATE_CMA and unmovable requests never land there; `compare --layout asis` asks
 * the same 1 GiB ranges `predict` does, and as many 2 MiB ones; the run is stored.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kpageflags.h"
#include "compare/cmp-apply.h"
#include "compare/cmp-layout.h"
#include "model/decide.h"
#include "model/model.h"
#include "sim/sim-apply.h"
#include "sim/sim-contig.h"
#include "sim/sim-requests.h"
#include "tests/fixture.h"
#include "trace/tr-attempt.h"

START_TEST(test_parse)
{
	struct cmp_layout c;

	ck_assert_int_eq(cmp_layout_parse("asis", &c), 0);
	ck_assert_uint_eq(c.reserve_pages + c.cma_pages + c.movablecore_pages, 0);
	ck_assert_int_eq(cmp_layout_parse("movable:1G+reserve:256M@0x100000", &c), 0);
	ck_assert_uint_eq(c.movablecore_pages, 262144);
	ck_assert_uint_eq(c.reserve_pages, 65536);
	ck_assert_uint_eq(c.reserve_pfn, 0x100000);
	ck_assert_int_eq(cmp_layout_parse("cma:64M", &c), 0);
	ck_assert_uint_eq(c.cma_pages, 16384);
	ck_assert_uint_eq(c.cma_pfn, CMP_NOWHERE);
	ck_assert_int_eq(cmp_layout_parse("kernelcore:2G", &c), 0);
	ck_assert_uint_eq(c.kernelcore_pages, 524288);
	ck_assert_int_lt(cmp_layout_parse("cma", &c), 0);
	ck_assert_int_lt(cmp_layout_parse("cma:1G+cma:1G", &c), 0);
	ck_assert_int_lt(cmp_layout_parse("movable:1G@0x1000", &c), 0);
	ck_assert_int_lt(cmp_layout_parse("reserve:100", &c), 0);
	ck_assert_int_lt(cmp_layout_parse("swap:1G", &c), 0);
}
END_TEST

/* The 6 GiB guest of the movablecore=1G capture: e820 RAM and zones as its kernel had. */
static void guest6g(struct model_layout *L)
{
	static const char *const names[] = { "DMA", "DMA32", "Normal" };
	static const uint64_t z[3][2] = { { 1, 4096 }, { 4096, 1048576 }, { 1048576, 1835008 } };
	unsigned int i;

	memset(L, 0, sizeof(*L));
	L->nr_zones = 3;
	for (i = 0; i < 3; i++) {
		strcpy(L->zones[i].name, names[i]);
		L->zones[i].start_pfn = z[i][0];
		L->zones[i].spanned = z[i][1] - z[i][0];
	}
	L->nr_ram = 3;
	L->ram[0] = (struct model_pfn_range){ 1, 159 };
	L->ram[1] = (struct model_pfn_range){ 256, 786397 };
	L->ram[2] = (struct model_pfn_range){ 1048576, 1835008 };
	for (i = 0; i < 3; i++)
		L->zones[i].present = L->zones[i].managed =
			cmp_ram_pages(L, z[i][0], z[i][1]);
	L->pageblock_order = 9;
	L->max_page_order = 10;
}

START_TEST(test_movable_placement)
{
	struct model_layout L;
	struct cmp_layout c;
	uint64_t pfn;

	guest6g(&L);
	ck_assert_int_eq(cmp_layout_parse("movable:1G", &c), 0);
	ck_assert_int_eq(cmp_movable_start(&L, &c, 1024, &pfn), 0);
	ck_assert_uint_eq(pfn, 0x180000);	/* the booted kernel's ZONE_MOVABLE */
	ck_assert_int_eq(cmp_layout_place(&L, &c), 0);
	ck_assert_uint_eq(L.nr_zones, 4);
	ck_assert_str_eq(L.zones[3].name, "Movable");
	ck_assert(L.zones[3].movable);
	ck_assert_uint_eq(L.zones[3].start_pfn, 0x180000);
	ck_assert_uint_eq(L.zones[3].spanned, 0x40000);
	ck_assert_uint_eq(L.zones[2].spanned, 0x80000);
	/* kernelcore= counts the pages below Normal first: 4 GiB of kernel memory */
	guest6g(&L);
	ck_assert_int_eq(cmp_layout_parse("kernelcore:4G", &c), 0);
	ck_assert_int_eq(cmp_movable_start(&L, &c, 1024, &pfn), 0);
	ck_assert_uint_eq(pfn, 1048576 + (1048576 - 158 - 786141 + 1023) / 1024 * 1024);
	/* movablecore of everything: no kernel memory left, the kernel makes no zone */
	ck_assert_int_eq(cmp_layout_parse("movable:8G", &c), 0);
	ck_assert_int_eq(cmp_movable_start(&L, &c, 1024, &pfn), 1);
}
END_TEST

static struct model_pfn_info info(struct model *m, uint64_t pfn)
{
	struct model_pfn_info pi;

	ck_assert_int_eq(model_pfn_info(m, pfn, &pi), 0);
	return pi;
}

START_TEST(test_reserve_removes_range)
{
	struct model *m = fixture_free_zone("6.18.0", 0x40000, 8192);
	uint64_t slab = KPF_BIT(KPF_SLAB), moved = 0, p, sp;
	struct sim_stats st = { 0 };
	struct sim_apply *a;

	/* a seed page in use inside the future reservation */
	ck_assert_int_eq(model_seed_pfn_range(m, 0x41010, 1, &slab, NULL), 0);
	ck_assert_int_eq(sim_apply_create(m, &st, &a), 0);
	ck_assert_int_eq(cmp_apply_reserve(m, a, 0x41000, 1024, &moved), 0);
	ck_assert_uint_eq(moved, 1);
	for (p = 0x41000; p < 0x41400; p++) {
		struct model_pfn_info pi = info(m, p);

		ck_assert_int_eq(pi.state, MODEL_PFN_ALLOC);
		ck_assert_int_eq(pi.kind, MODEL_KIND_RESERVED);
	}
	/* the slab page lives on outside, where its free will find it */
	sp = sim_apply_sim_pfn(a, 0x41010);
	ck_assert(sp < 0x41000 || sp >= 0x41400);
	ck_assert_int_eq(info(m, sp).state, MODEL_PFN_ALLOC);
	ck_assert_int_eq(info(m, sp).kind, MODEL_KIND_SLAB);
	ck_assert_int_eq(model_recount(m, NULL, 0), 0);
	sim_apply_destroy(a);
	model_destroy(m);
}
END_TEST

START_TEST(test_cma_typed_and_unmovable_never_there)
{
	struct model *m = fixture_free_zone("6.18.0", 0x40000, 8192);
	struct model_request rq = { .cpu = 0, .order = 0, .migratetype = 0, .gfp = 0xcc0 };
	uint64_t moved = 0, p, s = 0x40000 + 4096, e = s + 2048;
	struct model_decision d;
	int stored, eff, i;
	bool iso;

	ck_assert_int_eq(cmp_apply_cma(m, NULL, s, 2048, &moved, NULL), 0);
	for (p = s; p < e; p += 512) {
		ck_assert_int_eq(model_pageblock_mt(m, p, &stored, &eff, &iso), 0);
		ck_assert_int_eq(stored, CMP_TRACE_MT_CMA);
	}
	/* more unmovable pages than fit outside the area: none is handed out inside */
	for (i = 0; i < 7000; i++) {
		int ret = model_take(m, &rq, &d);

		ck_assert_int_ge(ret, 0);
		if (ret)
			break;
		ck_assert_msg(d.pfn < s || d.pfn >= e, "unmovable page at %#llx in CMA",
			      (unsigned long long)d.pfn);
	}
	ck_assert_int_eq(model_recount(m, NULL, 0), 0);
	model_destroy(m);
}
END_TEST

/* Served pfns of one layout / predict's successes, sorted, as text. */
static char *pfns(const char *cmd, const char *copy, const char *size, const char *py)
{
	char *out = NULL;

	ck_assert_int_eq(fixture_runf(&out, "%s %s %s --size %s --count 24 --json --no-store "
				      "2>/dev/null | python3 -c \"%s\"", fixture_bigchunk(), cmd,
				      copy, size, py), 0);
	return out;
}

START_TEST(test_asis_agrees_with_predict)
{
	char *copy = fixture_tmpfile("asis.db"), *p1, *c1, *p2, *c2;
	const char *pr = "import json,sys; d=json.load(sys.stdin); "
			 "print(sorted(a['start_pfn'] for a in d['answers'] if a['success']))";
	const char *cm = "import json,sys; d=json.load(sys.stdin)['layouts'][0]; "
			 "print(sorted(d['served_pfns']))";
	const char *pn = "import json,sys; d=json.load(sys.stdin); "
			 "print(sum(a['success'] for a in d['answers']))";
	const char *cn = "import json,sys; d=json.load(sys.stdin)['layouts'][0]; "
			 "print(len(d['served_pfns']))";

	fixture_copy(fixture_path("traces/default.db"), copy);
	/* 1 GiB: the same ranges; 2 MiB: as many (the simulated state drifts in detail) */
	p1 = pfns("predict", copy, "1G", pr);
	c1 = pfns("compare --layout asis", copy, "1G", cm);
	ck_assert_str_eq(c1, p1);
	ck_assert_str_ne(p1, "[]\n");
	p2 = pfns("predict", copy, "2M", pn);
	c2 = pfns("compare --layout asis", copy, "2M", cn);
	ck_assert_str_eq(c2, p2);
	free(p1);
	free(c1);
	free(p2);
	free(c2);
	/* stored: a table the capture did not have, one row per figure */
	fixture_sql_exec(copy, "DROP TABLE IF EXISTS compare_results");
	ck_assert_int_eq(fixture_runf(NULL, "%s compare %s --size 1G --layout asis --layout "
				      "reserve:256M >/dev/null 2>&1", fixture_bigchunk(), copy), 0);
	ck_assert_int_eq(fixture_sql_count(copy, "SELECT count(DISTINCT layout) FROM "
					   "compare_results WHERE name = 'served'"), 2);
	ck_assert_int_eq(fixture_sql_count(copy, "SELECT value FROM compare_results WHERE "
					   "layout = 'asis' AND name = 'demand'"), 5);
	fixture_rm(copy);
}
END_TEST

/*
 * cma_alloc() on a kernel without the isolate bit (< 6.17): the area's pageblocks are
 * MIGRATE_CMA again after alloc_contig_range(MIGRATE_CMA) (undo_isolate_page_range()
 * with the caller's type), not MOVABLE: else a second demand finds no CMA area.
 */
START_TEST(test_cma_alloc_keeps_cma_type)
{
	struct model *m = fixture_free_zone("6.12.0", 0x40000, 8192);
	struct model_request rq = { .cpu = 0, .order = 0, .migratetype = 1, .gfp = 0x140cca };
	struct model_contig_result res;
	uint64_t moved = 0, p, s = 0x40000 + 4096, e = s + 2048;
	struct model_decision d;
	int stored, eff, i;
	bool iso;

	ck_assert_int_eq(cmp_apply_cma(m, NULL, s, 2048, &moved, NULL), 0);
	/* movable pages until some are in the area (past half the free pages: __rmqueue()) */
	for (i = 0; i < 5000; i++)
		ck_assert_int_eq(model_take(m, &rq, &d), 0);
	ck_assert_int_eq(sim_contig_range(m, s, 1024, MODEL_ISOLATE_CMA_ALLOC, NULL, &res), 0);
	ck_assert_msg(res.ret == 0 && res.migrated > 0, "cma_alloc: ret %d stage %s at %#llx, "
		      "%llu migrated", res.ret, model_contig_stage_name(res.stage),
		      (unsigned long long)res.pfn, (unsigned long long)res.migrated);
	for (p = s; p < e; p += 512) {
		ck_assert_int_eq(model_pageblock_mt(m, p, &stored, &eff, &iso), 0);
		ck_assert_msg(stored == CMP_TRACE_MT_CMA && !iso, "block %#llx: type %d",
			      (unsigned long long)p, stored);
	}
	ck_assert_int_eq(model_recount(m, NULL, 0), 0);
	model_destroy(m);
}
END_TEST

/*
 * A page the seed holds free on an Unmovable pcp list inside the future area is drained
 * to the buddy when the area is placed: else the next unmovable request takes it there.
 */
START_TEST(test_cma_area_pcp_drained)
{
	struct model *m = fixture_free_zone("6.12.0", 0x40000, 8192);
	struct model_request rq = { .cpu = 0, .order = 0, .migratetype = 0, .gfp = 0xcc0 };
	uint64_t moved = 0, s = 0x40000 + 4096, e = s + 2048, p;
	struct model_pfn_info pi;
	struct model_decision d;
	int i, in_area = 0;

	/* unmovable pages up to the area's first pages, then those freed to cpu 0's pcp */
	for (i = 0; i < 8192 && (model_pfn_info(m, s + 4, &pi) || pi.state != MODEL_PFN_ALLOC);
	     i++)
		ck_assert_int_eq(model_take(m, &rq, &d), 0);
	for (p = s; p < s + 4; p++)
		if (!model_pfn_info(m, p, &pi) && pi.state == MODEL_PFN_ALLOC)
			ck_assert_int_eq(model_give(m, 0, p, 0), 0);
	ck_assert_int_eq(model_pfn_info(m, s, &pi), 0);
	ck_assert_int_eq(pi.state, MODEL_PFN_PCP);
	ck_assert_int_eq(cmp_apply_cma(m, NULL, s, 2048, &moved, NULL), 0);
	for (i = 0; i < 64; i++) {
		if (model_take(m, &rq, &d))
			break;
		in_area += d.pfn >= s && d.pfn < e;
	}
	ck_assert_int_eq(in_area, 0);
	ck_assert_int_eq(model_recount(m, NULL, 0), 0);
	model_destroy(m);
}
END_TEST

/*
 * Against a real CMA kernel (traces/vm-cma-alloc*.db, tests/vm/README.md): the same job
 * recorded on a kernel booted with cma=256M, which served 8 cma_alloc() of 2048 pages
 * through debugfs at the marker, and on a plain kernel. compare's cma: layout from the
 * plain capture must serve as many from the area, at the kernel's pfns, migrating what
 * the kernel migrated (nothing: a boot with the area keeps movable pages out of it
 * while the rest of the zone has more free pages). The CMA capture's own attempts are
 * cma_alloc()'s: predict --verify and check follow them as such.
 */
START_TEST(test_cma_layout_against_cma_kernel)
{
	char *plain = fixture_tmpfile("plain.db"), *cma = fixture_tmpfile("cma.db");
	char *out = NULL, *kernel = NULL;
	const char *py = "import json,sys; d=json.load(sys.stdin)['layouts'][0]; "
			 "print(d['served_from_cma'], sorted(d['served_pfns']), d['pages_migrated'])";
	const char *csv = "import csv,sys; r=list(csv.reader(sys.stdin))[-1]; "
			  "print(r[0], '[' + r[1] + ']', r[2])";

	fixture_copy(fixture_path("traces/vm-cma-alloc-plain.db"), plain);
	fixture_copy(fixture_path("traces/vm-cma-alloc.db"), cma);
	ck_assert_int_eq(fixture_runf(&kernel, "%s query %s \"SELECT count(*), group_concat(pfn, "
				      "', '), (SELECT coalesce(sum(succeeded), 0) FROM "
				      "mm_migrate_pages) FROM (SELECT pfn FROM cma_alloc_finish "
				      "WHERE errorno = 0 ORDER BY pfn)\" --csv | python3 -c \"%s\"",
				      fixture_bigchunk(), cma, csv), 0);
	ck_assert_str_eq(kernel, "8 [1048576, 1050624, 1052672, 1054720, 1056768, 1058816, "
			 "1060864, 1062912] 0\n");
	ck_assert_int_eq(fixture_runf(&out, "%s compare %s --size 8M --count 8 --at "
				      "marker:bigchunk-job --layout cma:256M@0x100000 --json "
				      "--no-store 2>/dev/null | python3 -c \"%s\"", fixture_bigchunk(),
				      plain, py), 0);
	ck_assert_str_eq(out, kernel);
	free(out);
	ck_assert_int_eq(fixture_runf(&out, "%s predict --verify %s 2>/dev/null | head -1 | "
				      "grep -o '[0-9]* real attempts, [0-9]* agree'",
				      fixture_bigchunk(), cma), 0);
	ck_assert_str_eq(out, "8 real attempts, 8 agree\n");
	free(out);
	ck_assert_int_eq(fixture_runf(NULL, "%s check %s >/dev/null 2>&1", fixture_bigchunk(),
				      cma), 0);
	free(kernel);
	fixture_rm(plain);
	fixture_rm(cma);
}
END_TEST

/* alloc_contig_pages(): one call's failed ranges before its last are not calls of their own. */
START_TEST(test_contig_calls_grouped)
{
	const uint64_t zs[] = { 0, 0x1000, 0x100000 };	/* DMA, DMA32, Normal */
	const uint64_t G = 0x40000, M = 0x200;
	struct tr_attempt v[] = {
		/* call 1: Normal fails, then DMA32 0x40000 fails, then 0x80000 served */
		{ .kind = TR_ATTEMPT_CONTIG, .pid = 5, .start_pfn = 0x100000, .end_pfn = 0x100000 + G },
		{ .kind = TR_ATTEMPT_CONTIG, .pid = 9, .start_pfn = 0x2000, .end_pfn = 0x2000 + M },
		{ .kind = TR_ATTEMPT_CONTIG, .pid = 5, .start_pfn = 0x40000, .end_pfn = 0x80000 },
		{ .kind = TR_ATTEMPT_OFFLINE, .pid = 5, .start_pfn = 0x108000, .end_pfn = 0x110000 },
		{ .kind = TR_ATTEMPT_CONTIG, .pid = 5, .start_pfn = 0x80000, .end_pfn = 0xc0000,
		  .success = true },
		/* call 2 fails at 0x40000; call 3 starts again in Normal (a higher zone) */
		{ .kind = TR_ATTEMPT_CONTIG, .pid = 5, .start_pfn = 0x40000, .end_pfn = 0x80000 },
		{ .kind = TR_ATTEMPT_CONTIG, .pid = 5, .start_pfn = 0x100000, .end_pfn = 0x100000 + G },
		/* call 4: the same zone, not further on: a new search */
		{ .kind = TR_ATTEMPT_CONTIG, .pid = 5, .start_pfn = 0x100000, .end_pfn = 0x100000 + G },
	};
	const bool want[] = { true, false, true, false, false, false, false, false };
	int i;

	tr_contig_mark(v, 8, zs, 3);
	for (i = 0; i < 8; i++)
		ck_assert_msg(v[i].continued == want[i], "attempt %d: continued %d", i,
			      v[i].continued);
}
END_TEST

/*
 * A failed real attempt is asked too: a hugetlb probe step that got no page (no range
 * reached alloc_contig_range(), so no attempt in the trace) becomes a failed 1 GiB call.
 */
START_TEST(test_failed_real_attempts_asked)
{
	char *copy = fixture_tmpfile("failed.db"), *out = NULL;
	const char *py = "import json,sys; d=json.load(sys.stdin)['layouts'][0]; "
			 "r=d['real']; print(d['real_attempts'], d['real_kernel_served'], "
			 "d['real_served'] == sum(x['served'] for x in r), "
			 "[x['kernel_served'] for x in r], [x['nr_pages'] for x in r])";

	fixture_copy(fixture_path("traces/vm-reserved.db"), copy);
	fixture_sql_exec(copy, "INSERT INTO probes (id, kind, mono_begin, mono_end, requested, "
			 "obtained, success, restored) VALUES (9, 'hugetlb_1g', 0, 0, 1, 0, 0, 1);"
			 "INSERT INTO markers (seq, ts, cpu, pid, text) VALUES "
			 "(53000, 53180000000, 0, 157, 'bigchunk probe 9 hugetlb_1g step 0 begin 1'),"
			 "(53500, 53200000000, 0, 157, 'bigchunk probe 9 hugetlb_1g step 0 end 2')");
	ck_assert_int_eq(fixture_runf(&out, "%s compare %s --size 2M --layout asis --json "
				      "--no-store 2>/dev/null | python3 -c \"%s\"",
				      fixture_bigchunk(), copy, py), 0);
	ck_assert_str_eq(out, "2 1 True [True, False] [262144, 262144]\n");
	free(out);
	/* the text names each real attempt with both outcomes */
	ck_assert_int_eq(fixture_runf(&out, "%s compare %s --size 2M --layout asis --no-store "
				      "2>/dev/null | grep -c '^  real attempt'", fixture_bigchunk(),
				      copy), 0);
	ck_assert_str_eq(out, "2\n");
	free(out);
	fixture_rm(copy);
}
END_TEST

/*
 * Watermark breaches (sim-apply.h): allocations after which their zone's free pages
 * are at or below its low watermark (__zone_watermark_ok() at order 0). One zone of
 * 8192 free pages, min 1000, low 2000: order-4 GFP_KERNEL requests take 16 pages
 * each; the fast path serves while free - 15 > low (the 387th leaves exactly 2000:
 * the first breach), the slow path's min check while free - 15 > min (the 449th
 * leaves 1008), the 450th needs reclaim: 63 breaches, 1 needed_reclaim.
 */
START_TEST(test_wmark_breaches)
{
	struct model *m = fixture_free_zone("6.18.0", 0x40000, 8192);
	struct model_zone_limits lim = { .wmark_min = 1000, .wmark_low = 2000,
					 .wmark_high = 3000, .pcp_batch = 1, .pcp_high_min = 4,
					 .pcp_high_max = 4 };
	struct sim_request rq = { .kind = SIM_REQ_ALLOC, .order = 4, .mt = 0, .gfp = 0xcc0,
				  .nr_pages = 16 };
	struct sim_stats st = { 0 };
	struct sim_apply *a;
	int i;

	ck_assert_int_eq(model_set_zone_limits(m, 0, &lim), 0);
	ck_assert_int_eq(sim_apply_create(m, &st, &a), 0);
	for (i = 0; i < 450; i++) {
		rq.pfn = 0x100000 + 16 * (uint64_t)i;	/* the kernel's pfn: an identity */
		ck_assert_int_eq(sim_apply_request(a, &rq), 0);
		if (i == 385)
			ck_assert_uint_eq(st.wmark_breaches, 0);
	}
	ck_assert_uint_eq(st.wmark_breaches, 63);
	ck_assert_uint_eq(st.needed_reclaim, 1);
	sim_apply_destroy(a);
	model_destroy(m);
}
END_TEST

/*
 * The JSON shape, key by key: {"layouts": [{"name": .., "demand": N, "served":
 * N, "pages_migrated": N, "idle_page_seconds": N, "fallbacks": N, "needed_reclaim": N,
 * "unmovable_pageblocks": N, "blockers": {...}}]} (and wmark_breaches, failed, and
 * rejected: every range not taken), each layout in the order given; blockers only
 * where a request failed (reserve:2900M leaves the 1 GiB real attempt no range); the
 * same figures in the text table and in compare_results.
 */
START_TEST(test_json_shape)
{
	char *copy = fixture_tmpfile("shape.db"), *out = NULL;
	const char *py =
		"import json,sys,sqlite3\n"
		"d=json.load(open(sys.argv[1]))\n"
		"db=sqlite3.connect(sys.argv[2])\n"
		"txt=open(sys.argv[3]).read().split(chr(10))\n"
		"keys=['demand','served','pages_migrated','idle_page_seconds','fallbacks',"
		"'wmark_breaches','needed_reclaim','unmovable_pageblocks']\n"
		"assert list(d)==['size_pages','layouts'], list(d)\n"
		"names=[l['name'] for l in d['layouts']]\n"
		"assert names==['asis','reserve:2900M'], names\n"
		"for l in d['layouts']:\n"
		"  assert isinstance(l['name'],str)\n"
		"  for k in keys:\n"
		"    assert isinstance(l[k],(int,float)) and not isinstance(l[k],bool) and l[k]>=0, k\n"
		"    v=db.execute('SELECT value FROM compare_results WHERE layout=? AND name=?',"
		"(l['name'],k)).fetchone()\n"
		"    assert v is not None and abs(v[0]-l[k])<=0.5, (k,v,l[k])\n"
		"  assert l['served']<=l['demand'] and l['failed']==l['demand']-l['served']\n"
		"  assert (sum(l['blockers'].values())>0)==(l['failed']>0), l\n"
		"  assert isinstance(l['rejected'],dict)\n"
		"  for k,v in l['blockers'].items(): assert l['rejected'].get(k,0)>=v, k\n"
		"  assert isinstance(l['blockers'],dict)\n"
		"  for k,v in l['blockers'].items():\n"
		"    assert ':' in k or k in ('no-range','area-full'), k\n"
		"    assert isinstance(v,int) and v>0\n"
		"    r=db.execute('SELECT value FROM compare_results WHERE layout=? AND name=?',"
		"(l['name'],'blockers.'+k)).fetchone()\n"
		"    assert r is not None and r[0]==v, (k,r,v)\n"
		"  row=[x for x in txt if x.startswith(l['name']+' ')][0].split()\n"
		"  assert [int(row[1]),int(row[2]),int(row[7]),int(row[8]),int(row[9]),int(row[10])]"
		"==[l['demand'],l['served'],l['fallbacks'],l['wmark_breaches'],l['needed_reclaim'],"
		"l['unmovable_pageblocks']], row\n"
		"  assert int(row[6])==round(l['idle_page_seconds']), row\n"
		"print('ok', [(l['demand'],l['failed']) for l in d['layouts']])\n";
	char *j = fixture_tmpfile("shape.json"), *t = fixture_tmpfile("shape.txt");
	char *p = fixture_tmpfile("shape.py");
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	fputs(py, f);
	fclose(f);
	fixture_copy(fixture_path("traces/vm-reserved.db"), copy);
	ck_assert_int_eq(fixture_runf(NULL, "(%s compare %s --size 2M --count 3 --layout asis "
				      "--layout reserve:2900M --no-store 2>/dev/null) > %s",
				      fixture_bigchunk(), copy, t), 0);
	ck_assert_int_eq(fixture_runf(NULL, "(%s compare %s --size 2M --count 3 --layout asis "
				      "--layout reserve:2900M --json 2>/dev/null) > %s",
				      fixture_bigchunk(), copy, j), 0);
	fixture_runf(&out, "python3 %s %s %s %s 2>&1 | tail -1", p, j, copy, t);
	ck_assert_str_eq(out, "ok [(4, 0), (4, 1)]\n");
	free(out);
	fixture_rm(copy);
	fixture_rm(j);
	fixture_rm(t);
	fixture_rm(p);
}
END_TEST

/*
 * default.db's kernel initialises its memmap lazily: Normal's top 4.6 GiB is present
 * but uninitialised in the capture. movable:2G puts ZONE_MOVABLE at 0x5c0000, all of
 * it uninitialised there; a kernel booted so frees it into the zone through deferred
 * init, so the layout's ZONE_MOVABLE starts with its 524,288 pages free, not 0. A CMA
 * area placed there is freed at boot too, and serves the demand.
 */
START_TEST(test_movable_uninit_freed)
{
	char *copy = fixture_tmpfile("uninit.db"), *out = NULL;
	const char *py = "import json,sys; d=json.load(sys.stdin)['layouts'][0]; "
			 "z=[x for x in d['zones'] if x['name']=='Movable'][0]; "
			 "print(hex(d['movable_start_pfn']), d['initialised_pages'], "
			 "z['free_pages'] + z['pcp_pages'] > 500000)";

	fixture_copy(fixture_path("traces/default.db"), copy);
	ck_assert_int_eq(fixture_runf(&out, "(%s compare %s --size 2M --layout movable:2G "
				      "--json --no-store 2>/dev/null) | python3 -c \"%s\"",
				      fixture_bigchunk(), copy, py), 0);
	ck_assert_str_eq(out, "0x5c0000 524288 True\n");
	free(out);
	/* a CMA area there: cma_activate_area() frees it at boot, the demand is served in it */
	ck_assert_int_eq(fixture_runf(&out, "(%s compare %s --size 2M --count 8 --layout "
				      "cma:256M@0x600000 --json --no-store 2>/dev/null) | python3 -c "
				      "\"import json,sys; d=json.load(sys.stdin)['layouts'][0]; "
				      "print(d['initialised_pages'], d['served_from_cma'])\"",
				      fixture_bigchunk(), copy), 0);
	ck_assert_str_eq(out, "65536 8\n");
	free(out);
	fixture_rm(copy);
}
END_TEST

/*
 * Layouts that do not fit the capture exit 2 with a message saying why and what to
 * give instead, and print no table; --help exits 0 and states the exit codes.
 */
START_TEST(test_bad_layouts)
{
	static const struct { const char *spec, *says; } bad[] = {
		{ "reserve:100G", "more than the capture's RAM (982907 pages): give a smaller" },
		{ "reserve:256M@0x7000000", "is not all RAM (RAM: 0x1-0x9f 0x100-0xbffdd "
					    "0x110000-0x140000): give an @PFN" },
		{ "cma:3G", "no RAM range holds" },
		{ "cma:256M@0x110100", "not on a pageblock (512 pages): give a multiple of 0x200" },
		{ "reserve:256M@0x110000+cma:256M@0x118000",
		  "[0x110000, 0x120000) and the CMA area [0x118000, 0x128000) overlap" },
		{ "movable:100G", "all of the capture's RAM (982907 pages) or more" },
		{ "kernelcore:4G", "the kernel makes no ZONE_MOVABLE" },
		{ "cma:1G+cma:1G", "given twice in one layout" },
		{ "swap:1G", "not asis, cma:" },
		{ "movable:1G@0x100000", "takes no @PFN" },
	};
	char *copy = fixture_tmpfile("bad.db"), *out = NULL;
	unsigned int i;

	fixture_copy(fixture_path("traces/vm-reserved.db"), copy);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(fixture_runf(&out, "%s compare %s --size 2M --no-store --layout "
					      "asis --layout '%s'", fixture_bigchunk(), copy,
					      bad[i].spec), 2);
		ck_assert_msg(strstr(out, bad[i].says) && !strstr(out, "demand"),
			      "%s: %s", bad[i].spec, out);
		free(out);
		out = NULL;
	}
	ck_assert_int_eq(fixture_runf(&out, "%s compare --help", fixture_bigchunk()), 0);
	ck_assert_ptr_nonnull(strstr(out, "Exit status: 0 every layout ran; 2"));
	free(out);
	fixture_rm(copy);
}
END_TEST

/*
 * movable: on a capture booted with movablecore=1G (vm-movable.db, ZONE_MOVABLE from
 * 0x180000): the option replaces the boot's. movable:1G is the boot itself: the same
 * boundary and the same zones at the end as asis; movable:1536M moves the boundary to
 * 0x160000, where find_zone_movable_pfns_for_nodes() puts 1.5 GiB.
 */
START_TEST(test_movable_resized)
{
	char *copy = fixture_tmpfile("resize.db"), *a = NULL, *b = NULL, *c = NULL;
	const char *py = "import json,sys; d=json.load(sys.stdin)['layouts'][0]; "
			 "print(hex(d['movable_start_pfn']), hex(d['movable_traced_pfn']), "
			 "[(z['name'], hex(z['start_pfn']), z['present'], z['free_pages']) "
			 "for z in d['zones'][2:]])";

	fixture_copy(fixture_path("traces/vm-movable.db"), copy);
	ck_assert_int_eq(fixture_runf(&a, "(%s compare %s --size 2M --layout asis --json "
				      "--no-store 2>/dev/null) | python3 -c \"%s\"",
				      fixture_bigchunk(), copy, py), 0);
	ck_assert_int_eq(fixture_runf(&b, "(%s compare %s --size 2M --layout movable:1G --json "
				      "--no-store 2>/dev/null) | python3 -c \"%s\"",
				      fixture_bigchunk(), copy, py), 0);
	ck_assert_str_eq(b + strlen("0x180000 0x180000"), a + strlen("0x0 0x0"));
	ck_assert_int_eq(strncmp(b, "0x180000 0x180000 ", 18), 0);
	ck_assert_int_eq(fixture_runf(&c, "(%s compare %s --size 2M --layout movable:1536M "
				      "--json --no-store 2>/dev/null) | python3 -c \"%s\"",
				      fixture_bigchunk(), copy, py), 0);
	ck_assert_msg(!strncmp(c, "0x160000 0x180000 [('Normal', '0x100000', 393216, ", 50) &&
		      strstr(c, "('Movable', '0x160000', 393216, "), "%s", c);
	free(c);
	/* joined with a CMA area: the area is placed too (below the new ZONE_MOVABLE) */
	ck_assert_int_eq(fixture_runf(&c, "(%s compare %s --size 2M --count 2 --layout "
				      "movable:1536M+cma:256M --json --no-store 2>/dev/null) | "
				      "python3 -c \"import json,sys; d=json.load(sys.stdin)"
				      "['layouts'][0]; print(hex(d['movable_start_pfn']), "
				      "hex(d['cma_pfn']), d['served_from_cma'])\"",
				      fixture_bigchunk(), copy), 0);
	ck_assert_str_eq(c, "0x160000 0x150000 2\n");
	free(a);
	free(b);
	free(c);
	fixture_rm(copy);
}
END_TEST

Suite *compare_suite(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_movable_placement);
	tcase_add_test(tc, test_reserve_removes_range);
	tcase_add_test(tc, test_cma_typed_and_unmovable_never_there);
	tcase_add_test(tc, test_asis_agrees_with_predict);
	tcase_add_test(tc, test_cma_alloc_keeps_cma_type);
	tcase_add_test(tc, test_cma_area_pcp_drained);
	tcase_add_test(tc, test_cma_layout_against_cma_kernel);
	tcase_add_test(tc, test_contig_calls_grouped);
	tcase_add_test(tc, test_failed_real_attempts_asked);
	tcase_add_test(tc, test_wmark_breaches);
	tcase_add_test(tc, test_json_shape);
	tcase_add_test(tc, test_movable_uninit_freed);
	tcase_add_test(tc, test_bad_layouts);
	tcase_add_test(tc, test_movable_resized);
	suite_add_tcase(s, tc);
	return s;
}
