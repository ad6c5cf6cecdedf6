// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots: the page-run codec, marker lines, the text parsers (on real files in
 * traces/snapshot-sample), loading directories (plain and compressed) with exact page
 * round trips, bad input, alignment, the shell twin against the C writer, and (tag
 * "live", root) real snapshots of this kernel.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture/snapshot.h"
#include "common/err.h"
#include "common/kpageflags.h"
#include "db/tdb.h"
#include "db/tdb-pages.h"
#include "tests/fixture.h"


static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/*
 * Synthetic page state, a pure function of the PFN so tests can check any range:
 * pageblocks that are free (BUDDY), empty (holes, pcp), LRU pages in short runs, or
 * random flags per page (the worst case), plus a few all-ones values.
 */
static uint64_t syn_flags(uint64_t pfn)
{
	uint64_t h = mix(pfn >> 9);

	if (pfn % 99991 == 7)
		return ~0ull;
	switch (h % 4) {
	case 0: return KPF_BIT(KPF_BUDDY);
	case 1: return 0;
	case 2: return mix(pfn) & 0x7ffffffffffull;
	default: return KPF_BIT(KPF_LRU) | KPF_BIT(KPF_UPTODATE) |
			(((pfn >> 3) & 1) ? KPF_BIT(KPF_ACTIVE) : 0);
	}
}

static uint64_t syn_count(uint64_t pfn)
{
	if (pfn % 99991 == 7)
		return ~0ull;
	return mix(pfn >> 9) % 4 == 2 ? mix(pfn ^ 0x55) >> 62 : 0;
}

/* mkdir -p of the parents of @path. */
static void mkparents(const char *path)
{
	char buf[1024], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = strchr(buf + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = 0;
		mkdir(buf, 0700);
		*p = '/';
	}
}

static void put_file(const char *path, const char *content)
{
	FILE *fp;

	mkparents(path);
	fp = fopen(path, "w");
	ck_assert_msg(fp, "%s: %s", path, strerror(errno));
	fputs(content, fp);
	ck_assert_int_eq(fclose(fp), 0);
}

/* Write @nf PFNs of synthetic flags to @pf and @nc PFNs of counts to @pc (@extra bytes more). */
static void put_pages(const char *pf, const char *pc, uint64_t nf, uint64_t nc, int extra)
{
	uint64_t buf[4096], i, j;
	FILE *f = fopen(pf, "w"), *c = fopen(pc, "w");

	ck_assert(f && c);
	for (i = 0; i < nf; i += j) {
		for (j = 0; j < 4096 && i + j < nf; j++)
			buf[j] = syn_flags(i + j);
		ck_assert_uint_eq(fwrite(buf, 8, j, f), j);
	}
	for (i = 0; i < nc; i += j) {
		for (j = 0; j < 4096 && i + j < nc; j++)
			buf[j] = syn_count(i + j);
		ck_assert_uint_eq(fwrite(buf, 8, j, c), j);
	}
	if (extra)
		ck_assert_uint_eq(fwrite("1234567", 1, extra, f), (size_t)extra);
	fclose(f);
	fclose(c);
}

/* ---- a small made-up snapshot: zones up to PFN 100000 ---- */

#define MINI_PFNS	100000

static const char mini_zoneinfo[] =
	"Node 0, zone      DMA\n"
	"  per-node stats\n"
	"      nr_inactive_anon 10\n"
	"      nr_free_pages 99\n"
	"  pages free     100\n"
	"        boost    0\n"
	"        min      5\n"
	"        low      6\n"
	"        high     7\n"
	"        promo    8\n"
	"        spanned  4095\n"
	"        present  3998\n"
	"        managed  3840\n"
	"        cma      0\n"
	"        protection: (0, 100, 100, 100)\n"
	"      nr_free_pages 100\n"
	"  pagesets\n"
	"    cpu: 0\n"
	"              count:    0\n"
	"              high:     0\n"
	"              batch:    1\n"
	"              high_min: 36\n"
	"              high_max: 240\n"
	"  vm stats threshold: 4\n"
	"    cpu: 1\n"
	"              count:    3\n"
	"              high:     10\n"
	"              batch:    1\n"
	"              high_min: 36\n"
	"              high_max: 240\n"
	"  vm stats threshold: 4\n"
	"  node_unreclaimable:  0\n"
	"  start_pfn:           1\n"
	"Node 0, zone   Normal\n"
	"  pages free     5000\n"
	"        boost    0\n"
	"        min      50\n"
	"        low      60\n"
	"        high     70\n"
	"        spanned  95904\n"
	"        present  95904\n"
	"        managed  90000\n"
	"  pagesets\n"
	"    cpu: 0\n"
	"              count:    12\n"
	"              high:     100\n"
	"              batch:    63\n"
	"              high_min: 50\n"
	"              high_max: 400\n"
	"  vm stats threshold: 20\n"
	"    cpu: 1\n"
	"              count:    7\n"
	"              high:     110\n"
	"              batch:    63\n"
	"              high_min: 50\n"
	"              high_max: 400\n"
	"  node_unreclaimable:  0\n"
	"  start_pfn:           4096\n"
	"Node 0, zone  Movable\n"
	"  pages free     0\n"
	"        min      32\n"
	"        spanned  0\n"
	"        present  0\n"
	"        managed  0\n"
	"        protection: (0, 0, 0, 0)\n";

static const struct { const char *name, *content; } mini_files[] = {
	{ "uname", "6.18.0-test\n" },
	{ "zoneinfo", mini_zoneinfo },
	{ "buddyinfo",
	  "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n"
	  "Node 0, zone   Normal     10      5      4      3      2      1      0      0      0      0      4 \n" },
	{ "pagetypeinfo",
	  "Page block order: 9\n"
	  "Pages per block:  512\n"
	  "\n"
	  "Free pages count per migrate type at order       0      1      2      3      4      5      6      7      8      9     10 \n"
	  "Node    0, zone      DMA, type    Unmovable      0      0      0      0      0      0      0      0      1      0      0 \n"
	  "Node    0, zone      DMA, type      Movable      0      0      0      0      0      0      0      0      0      1      3 \n"
	  "Node    0, zone   Normal, type    Unmovable >100000      5      4      3      2      1      0      0      0      0      0 \n"
	  "Node    0, zone   Normal, type      Movable      0      0      0      0      0      0      0      0      0      0      4 \n"
	  "\n"
	  "Number of blocks type     Unmovable      Movable  Reclaimable \n"
	  "Node 0, zone      DMA            1            7            0 \n"
	  "Node 0, zone   Normal           20          167            0 \n"
	  "\n"
	  "Number of mixed blocks    Unmovable      Movable  Reclaimable \n"
	  "Node 0, zone      DMA            0            0            0 \n" },
	{ "meminfo", "MemTotal:         400000 kB\nMemFree:           20400 kB\nHugePages_Total:       4\nActive(anon):         12 kB\n" },
	{ "vmstat", "nr_free_pages 5100\npgmigrate_success 17\ncompact_isolated 3\n" },
	{ "iomem",
	  "00000000-00000fff : Reserved\n"
	  "00001000-0009fbff : System RAM\n"
	  "0009fc00-000fffff : Reserved\n"
	  "00100000-1869ffff : System RAM\n"
	  "  01000000-01ffffff : Kernel code\n"
	  "fec00000-fec003ff : IOAPIC 0\n" },
	{ "memory/block_size_bytes", "8000000\n" },
	{ "memory/memory0/phys_index", "00000000\n" },
	{ "memory/memory0/state", "online\n" },
	{ "memory/memory0/valid_zones", "none\n" },
	{ "memory/memory1/phys_index", "00000001\n" },
	{ "memory/memory1/state", "online\n" },
	{ "memory/memory1/valid_zones", "Normal\n" },
	{ "memory/memory2/phys_index", "00000002\n" },
	{ "memory/memory2/state", "offline\n" },
	{ "memory/memory2/valid_zones", "Normal Movable\n" },
	{ "memory/memory3/phys_index", "00000003\n" },
	{ "memory/memory3/state", "online\n" },		/* no valid_zones: optional */
	{ "hugepages/hugepages-2048kB/nr_hugepages", "4\n" },
	{ "hugepages/hugepages-2048kB/free_hugepages", "2\n" },
	{ "hugepages/hugepages-1048576kB/nr_hugepages", "0\n" },
	{ "hugepages/hugepages-1048576kB/free_hugepages", "0\n" },
};

#define NR_MINI (sizeof(mini_files) / sizeof(mini_files[0]))

static void path2(char *buf, size_t size, const char *a, const char *b)
{
	snprintf(buf, size, "%s/%s", a, b);
}

/* A snapshot directory with the mini files and @nf/@nc PFNs of pages. */
static void make_mini_dir(const char *dir, uint64_t nf, uint64_t nc, int extra,
			  bool taken_at)
{
	char p[1024], q[1024];
	size_t i;

	mkdir(dir, 0700);
	for (i = 0; i < NR_MINI; i++) {
		path2(p, sizeof(p), dir, mini_files[i].name);
		put_file(p, mini_files[i].content);
	}
	path2(p, sizeof(p), dir, "kpageflags");
	path2(q, sizeof(q), dir, "kpagecount");
	put_pages(p, q, nf, nc, extra);
	if (taken_at) {
		path2(p, sizeof(p), dir, "taken_at");
		put_file(p, "1000 2000\n");
	}
}

/* The same files laid out as a fake /proc and /sys below @root. */
static void make_mini_root(const char *root)
{
	char p[1024], q[1024];
	size_t i;

	mkdir(root, 0700);
	for (i = 0; i < NR_MINI; i++) {
		const char *n = mini_files[i].name;

		if (!strcmp(n, "uname"))
			continue;
		if (!strncmp(n, "memory/", 7))
			snprintf(p, sizeof(p), "%s/sys/devices/system/memory/%s", root, n + 7);
		else if (!strncmp(n, "hugepages/", 10))
			snprintf(p, sizeof(p), "%s/sys/kernel/mm/hugepages/%s", root, n + 10);
		else
			snprintf(p, sizeof(p), "%s/proc/%s", root, n);
		put_file(p, mini_files[i].content);
	}
	snprintf(p, sizeof(p), "%s/sys/devices/system/memory/auto_online_blocks", root);
	put_file(p, "offline\n");
	snprintf(p, sizeof(p), "%s/proc/timer_list", root);
	put_file(p, "Timer List Version: v0.10\nHRTIMER_MAX_CLOCK_BASES: 8\nnow at 5000 nsecs\n"
		 "\ncpu: 0\nnow at 5001 nsecs\n");
	snprintf(p, sizeof(p), "%s/proc/kpageflags", root);
	snprintf(q, sizeof(q), "%s/proc/kpagecount", root);
	put_pages(p, q, MINI_PFNS, MINI_PFNS, 0);
}

static struct tdb *new_db(const char *name)
{
	struct tdb *db;

	ck_assert_msg(!tdb_create(fixture_tmpfile(name), true, &db), "%s", bc_errmsg());
	return db;
}

static int64_t q1(struct tdb *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	ck_assert_msg(sqlite3_prepare_v2(tdb_sqlite(db), sql, -1, &st, NULL) == SQLITE_OK, "%s: %s",
		      sql, sqlite3_errmsg(tdb_sqlite(db)));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void rm_rf(const char *path)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	ck_assert_int_eq(fixture_run(cmd, NULL), 0);
}

/* Every PFN of @snap equals the synthetic state; ranges of odd sizes cross chunk rows. */
static void check_syn_pages(struct tdb *db, int64_t snap, uint64_t nr)
{
	static const uint64_t step[] = { 1 << 20, 65536, 12345, 1, 70001 };
	uint64_t *f = malloc((1 << 20) * 8), *c = malloc((1 << 20) * 8), at = 0, i, n;
	int k = 0;

	ck_assert(f && c);
	while (at < nr) {
		n = step[k++ % 5];
		if (n > nr - at)
			n = nr - at;
		ck_assert_msg(!tdb_snap_pages_read(db, snap, at, n, f, c), "%s", bc_errmsg());
		for (i = 0; i < n; i++)
			if (f[i] != syn_flags(at + i) || c[i] != syn_count(at + i))
				break;
		ck_assert_msg(i == n, "PFN %" PRIu64 " differs", at + i);
		at += n;
	}
	ck_assert_int_eq(tdb_snap_pages_read(db, snap, nr - 1, 2, f, c), -BC_E_INVAL);
	free(f);
	free(c);
}

/* Runs cover [from, to) contiguously, are maximal, and match the synthetic state. */
static void check_syn_runs(struct tdb *db, int64_t snap, uint64_t from, uint64_t to)
{
	struct tdb_page_run r, prev = { 0 };
	struct tdb_snap_runs *it;
	uint64_t at = from, i;
	int ret;

	ck_assert_msg(!tdb_snap_runs_open(db, snap, from, to, &it), "%s", bc_errmsg());
	while ((ret = tdb_snap_runs_next(it, &r)) == 1) {
		ck_assert_uint_eq(r.pfn, at);
		ck_assert(r.npfns > 0);
		ck_assert(at == from || prev.flags != r.flags || prev.count != r.count);
		for (i = r.pfn; i < r.pfn + r.npfns; i++)
			if (syn_flags(i) != r.flags || syn_count(i) != r.count)
				break;
		ck_assert_msg(i == r.pfn + r.npfns, "PFN %" PRIu64 " differs from its run", i);
		at += r.npfns;
		prev = r;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(at, to);
	tdb_snap_runs_close(it);
}

/* ---- core ---- */

START_TEST(test_codec_roundtrip)
{
	static const uint32_t sizes[] = { 1, 2, 3, 100, 12345, 65535, TDB_PAGE_CHUNK };
	uint64_t *f = malloc(TDB_PAGE_CHUNK * 8), *c = malloc(TDB_PAGE_CHUNK * 8);
	uint64_t *f2 = malloc(TDB_PAGE_CHUNK * 8), *c2 = malloc(TDB_PAGE_CHUNK * 8);
	struct tdb_pages_enc *enc;
	const uint8_t *blob;
	size_t len, s, nr, k;
	int pat;

	ck_assert(!tdb_pages_enc_create(&enc));
	for (pat = 0; pat < 6; pat++) {
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			uint32_t n = sizes[s], i;
			struct tdb_page_run *runs;
			uint64_t sum = 0;

			for (i = 0; i < n; i++) {
				switch (pat) {
				case 0: f[i] = 0; c[i] = 0; break;			/* one run */
				case 1: f[i] = mix(i); c[i] = mix(~i); break;		/* all distinct */
				case 2: f[i] = i & 1 ? ~0ull : 0; c[i] = i & 1; break;	/* alternating */
				case 3: f[i] = syn_flags(i * 7); c[i] = syn_count(i * 7); break;
				case 4: f[i] = 1ull << (i % 64); c[i] = UINT64_MAX - (i / 1000); break;
				default: f[i] = i / 513; c[i] = 0; break;		/* long runs */
				}
			}
			ck_assert(!tdb_pages_encode(enc, f, pat == 5 ? NULL : c, n, &blob, &len));
			if (pat == 0)
				ck_assert_uint_le(len, 8);
			/* never longer than the raw words; all-distinct 64-bit values go raw */
			ck_assert_uint_le(len, 1 + (size_t)n * 16);
			if (pat == 1 && n > 100)
				ck_assert_int_eq(blob[0], TDB_PAGES_RAW);
			if (pat == 3)
				ck_assert_int_eq(blob[0], TDB_PAGES_FORMAT);
			memset(f2, 0xaa, n * 8);
			memset(c2, 0xaa, n * 8);
			ck_assert_msg(!tdb_pages_decode(blob, len, n, f2, c2), "%s", bc_errmsg());
			ck_assert(!memcmp(f, f2, n * 8));
			if (pat != 5)
				ck_assert(!memcmp(c, c2, n * 8));
			else
				for (i = 0; i < n; i++)
					ck_assert_uint_eq(c2[i], 0);
			ck_assert(!tdb_pages_runs(blob, len, n, 1000, &runs, &nr));
			for (k = 0; k < nr; k++) {
				ck_assert_uint_eq(runs[k].pfn, 1000 + sum);
				ck_assert_uint_eq(runs[k].flags, f[sum]);
				sum += runs[k].npfns;
			}
			ck_assert_uint_eq(sum, n);
			free(runs);
			/* wrong sizes and damage are refused, never read out of bounds */
			ck_assert_int_eq(tdb_pages_decode(blob, len, n + 1, f2, c2), -BC_E_FORMAT);
			ck_assert_int_eq(tdb_pages_decode(blob, len - 1, n, f2, c2), -BC_E_FORMAT);
			if (n > 1 && pat != 0)
				ck_assert_int_eq(tdb_pages_decode(blob, len, n - 1, f2, c2),
						 -BC_E_FORMAT);
		}
	}
	{
		uint8_t bad[] = { 1, 1, 0, 0, 4 };	/* idx 2 of a 1-entry dictionary */
		uint8_t fmt[] = { 2, 1, 0, 0, 0 };

		ck_assert_int_eq(tdb_pages_decode(bad, sizeof(bad), 1, f2, c2), -BC_E_FORMAT);
		ck_assert(strstr(bc_errmsg(), "offset 4"));
		ck_assert_int_eq(tdb_pages_decode(fmt, sizeof(fmt), 1, f2, c2), -BC_E_FORMAT);
	}
	ck_assert_int_eq(tdb_pages_encode(enc, f, c, 0, &blob, &len), -BC_E_INVAL);
	ck_assert_int_eq(tdb_pages_encode(enc, f, c, TDB_PAGE_CHUNK + 1, &blob, &len),
			 -BC_E_INVAL);
	tdb_pages_enc_destroy(enc);
	free(f);
	free(c);
	free(f2);
	free(c2);
}
END_TEST

START_TEST(test_marker_lines)
{
	char buf[SNAP_MARKER_MAX], label[SNAP_LABEL_MAX];
	uint64_t ns;
	bool end;

	ck_assert_int_gt(snap_marker_format(buf, sizeof(buf), "start", false, 123456789), 0);
	ck_assert_str_eq(buf, "bigchunk snapshot start begin 123456789");
	ck_assert_int_eq(snap_marker_parse(buf, label, &end, &ns), 1);
	ck_assert_str_eq(label, "start");
	ck_assert(!end);
	ck_assert_uint_eq(ns, 123456789);
	ck_assert_int_gt(snap_marker_format(buf, sizeof(buf), "p.3:x+y-z_", true,
					    UINT64_MAX), 0);
	ck_assert_int_eq(snap_marker_parse(buf, label, &end, &ns), 1);
	ck_assert(end && ns == UINT64_MAX);
	ck_assert_int_eq(snap_marker_parse("bigchunk snapshot a end 5\n", NULL, &end, &ns), 1);
	ck_assert_uint_eq(ns, 5);
	ck_assert_int_eq(snap_marker_parse("bigchunk snapshot a end 5 x", NULL, &end, &ns), 0);
	ck_assert_int_eq(snap_marker_parse("bigchunk snapshot a middle 5", NULL, &end, &ns), 0);
	ck_assert_int_eq(snap_marker_parse("bigchunk snapshot  begin 5", NULL, &end, &ns), 0);
	ck_assert_int_eq(snap_marker_parse("bigchunk snapshot a begin -5", NULL, &end, &ns), 0);
	ck_assert_int_eq(snap_marker_parse("hello", NULL, &end, &ns), 0);
	ck_assert_int_eq(snap_marker_format(buf, sizeof(buf), "two words", false, 1),
			 -BC_E_INVAL);
	ck_assert_int_eq(snap_marker_format(buf, sizeof(buf), "", false, 1), -BC_E_INVAL);
	ck_assert_int_eq(snap_marker_format(buf, 10, "a", false, 1), -BC_E_INVAL);
}
END_TEST

static char *slurp(const char *rel)
{
	const char *path = fixture_path(rel);
	FILE *fp = fopen(path, "r");
	char *buf;
	long n;

	ck_assert_msg(fp, "%s: %s", path, strerror(errno));
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = malloc(n + 1);
	ck_assert_uint_eq(fread(buf, 1, n, fp), (size_t)n);
	buf[n] = 0;
	fclose(fp);
	return buf;
}

START_TEST(test_parse_real_files)
{
	struct snap_tables t = { 0 };
	char *s;
	int i, found = 0;
	int64_t sum = 0;

	s = slurp("traces/snapshot-sample/zoneinfo");
	ck_assert_msg(!snap_parse_zoneinfo(s, &t), "%s", bc_errmsg());
	free(s);
	ck_assert_int_eq(t.nr_zones, 3);		/* Movable and Device are empty */
	ck_assert_str_eq(t.zones[0].name, "DMA");
	ck_assert_int_eq(t.zones[0].start_pfn, 1);
	ck_assert_int_eq(t.zones[0].spanned, 4095);
	ck_assert_int_eq(t.zones[0].present, 3998);
	ck_assert_int_eq(t.zones[0].managed, 3840);
	ck_assert_int_eq(t.zones[0].free, 3840);
	ck_assert_int_eq(t.zones[0].wmark_min, 58);
	ck_assert_int_eq(t.zones[0].wmark_low, 72);
	ck_assert_int_eq(t.zones[0].wmark_high, 86);
	ck_assert_int_eq(t.zones[0].nr_pcp, 2);
	ck_assert_int_eq(t.zones[0].pcp[1].cpu, 1);
	ck_assert_int_eq(t.zones[0].pcp[1].batch, 1);
	ck_assert_int_eq(t.zones[0].pcp[1].high_max, 240);
	ck_assert_str_eq(t.zones[1].name, "DMA32");
	ck_assert_int_eq(t.zones[1].start_pfn, 4096);
	ck_assert_int_eq(t.zones[1].spanned, 1044480);
	ck_assert_int_eq(t.zones[1].pcp[0].high, 7389);
	ck_assert_str_eq(t.zones[2].name, "Normal");
	ck_assert_int_eq(t.zones[2].start_pfn + t.zones[2].spanned, 6553600);
	ck_assert_int_eq(t.zones[2].managed, 327680);

	s = slurp("traces/snapshot-sample/buddyinfo");
	ck_assert_msg(!snap_parse_buddyinfo(s, &t), "%s", bc_errmsg());
	free(s);
	ck_assert_int_eq(t.nr_buddy, 33);
	ck_assert_int_eq(t.buddy[10].nr, 3);		/* DMA order 10 */
	ck_assert_int_eq(t.buddy[21].nr, 752);		/* DMA32 order 10 */
	ck_assert_str_eq(t.buddy[22].zone, "Normal");
	ck_assert_int_eq(t.buddy[22].nr, 3014);

	s = slurp("traces/snapshot-sample/pagetypeinfo");
	ck_assert_msg(!snap_parse_pagetypeinfo(s, &t), "%s", bc_errmsg());
	free(s);
	ck_assert_int_eq(t.nr_ptfree, 3 * 5 * 11);
	ck_assert_int_eq(t.nr_ptblocks, 3 * 5);
	for (i = 0; i < t.nr_ptblocks; i++) {
		if (!strcmp(t.ptblocks[i].zone, "DMA32") &&
		    !strcmp(t.ptblocks[i].migratetype, "Movable")) {
			ck_assert_int_eq(t.ptblocks[i].nr, 1528);
			found++;
		}
	}
	ck_assert_int_eq(found, 1);
	/* pagetypeinfo's free counts add up to buddyinfo's (nothing was >100000) */
	for (i = 0; i < t.nr_ptfree; i++)
		sum += t.ptfree[i].nr << t.ptfree[i].ord;
	for (i = 0; i < t.nr_buddy; i++)
		sum -= t.buddy[i].nr << t.buddy[i].ord;
	(void)sum;	/* read at different moments: equal only on a quiet machine */

	s = slurp("traces/snapshot-sample/meminfo");
	ck_assert_msg(!snap_parse_meminfo(s, &t), "%s", bc_errmsg());
	free(s);
	ck_assert_int_eq(t.nr_meminfo, 54);
	ck_assert_str_eq(t.meminfo[0].key, "MemTotal");
	ck_assert_int_eq(t.meminfo[0].value, 24683568);

	s = slurp("traces/snapshot-sample/vmstat");
	ck_assert_msg(!snap_parse_vmstat(s, &t), "%s", bc_errmsg());
	free(s);
	ck_assert_int_eq(t.nr_vmstat, 192);
	ck_assert_str_eq(t.vmstat[0].key, "nr_free_pages");

	s = slurp("traces/snapshot-sample/iomem");
	ck_assert_msg(!snap_parse_iomem(s, &t), "%s", bc_errmsg());
	free(s);
	ck_assert_int_eq(t.nr_ram, 3);
	ck_assert_uint_eq(t.ram[0].start_pfn, 1);
	ck_assert_uint_eq(t.ram[0].end_pfn, 0x9f);	/* 0x9fbff: the last page is partial */
	ck_assert_uint_eq(t.ram[1].start_pfn, 0x100);
	ck_assert_uint_eq(t.ram[1].end_pfn, 0xc0000);
	ck_assert_uint_eq(t.ram[2].start_pfn, 0x100000);
	ck_assert_uint_eq(t.ram[2].end_pfn, 0x640000);
	snap_tables_release(&t);
}
END_TEST

START_TEST(test_parse_bad_text)
{
	struct snap_tables t = { 0 };

	ck_assert_int_eq(snap_parse_buddyinfo("Node 0, zone DMA 1 2 x\n", &t), -BC_E_FORMAT);
	ck_assert(strstr(bc_errmsg(), "line 1"));
	ck_assert_int_eq(snap_parse_zoneinfo("Node 0, zone DMA\n  pages free 1\n"
					     "        present 5\n", &t), -BC_E_FORMAT);
	ck_assert(strstr(bc_errmsg(), "start_pfn"));
	ck_assert_int_eq(snap_parse_meminfo("MemTotal: lots\n", &t), -BC_E_FORMAT);
	ck_assert_int_eq(snap_parse_iomem("00000000-00000000 : System RAM\n", &t), -BC_E_PERM);
	ck_assert(strstr(bc_errmsg(), "root"));
	ck_assert_int_eq(snap_parse_pagetypeinfo("Page block order: 9\n", &t), -BC_E_FORMAT);
	snap_tables_release(&t);
}
END_TEST

START_TEST(test_load_mini)
{
	const char *dir = fixture_tmpfile("mini");
	struct tdb_snap_info *list;
	struct tdb *db;
	int64_t id = 0;
	int nr;

	make_mini_dir(dir, MINI_PFNS, MINI_PFNS, 0, true);
	db = new_db("mini.db");
	ck_assert_msg(!snap_load_dir(db, dir, "import", &id), "%s", bc_errmsg());
	ck_assert_int_eq(id, 1);
	ck_assert(!tdb_snap_list(db, &list, &nr));
	ck_assert_int_eq(nr, 1);
	ck_assert_str_eq(list[0].label, "import");
	ck_assert_int_eq(list[0].mono_begin, 1000);
	ck_assert_int_eq(list[0].mono_end, 2000);
	ck_assert_int_eq(list[0].ts_begin, -1);
	ck_assert_uint_eq(list[0].nr_pfns, MINI_PFNS);
	ck_assert(list[0].complete);
	free(list);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshot_pages"), 2);	/* 65536 + 34464 */
	ck_assert_int_eq(q1(db, "SELECT npfns FROM snapshot_pages WHERE pfn = 65536"), 34464);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM zones"), 2);
	ck_assert_int_eq(q1(db, "SELECT pcp_high_max FROM zones WHERE zone = 'Normal'"), 400);
	ck_assert_int_eq(q1(db, "SELECT pcp_high FROM zones WHERE zone = 'Normal'"), 100);
	ck_assert_int_eq(q1(db, "SELECT count FROM zone_pcp WHERE zone = 'Normal' AND cpu = 1"), 7);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM buddyinfo"), 22);
	ck_assert_int_eq(q1(db, "SELECT nr_free FROM pagetype_free WHERE zone = 'Normal' AND "
			    "migratetype = 'Unmovable' AND ord = 0"), -1);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM pagetype_blocks"), 6);	/* mixed skipped */
	ck_assert_int_eq(q1(db, "SELECT nr_blocks FROM pagetype_blocks WHERE zone = 'Normal' AND "
			    "migratetype = 'Movable'"), 167);
	ck_assert_int_eq(q1(db, "SELECT value FROM meminfo WHERE key = 'Active(anon)'"), 12);
	ck_assert_int_eq(q1(db, "SELECT value FROM vmstat WHERE key = 'pgmigrate_success'"), 17);
	ck_assert_int_eq(q1(db, "SELECT end_pfn FROM system_ram WHERE start_pfn = 256"), 100000);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM memory_blocks"), 4);
	ck_assert_int_eq(q1(db, "SELECT start_pfn FROM memory_blocks WHERE block = 3"), 98304);
	ck_assert_int_eq(q1(db, "SELECT nr_pfns FROM memory_blocks WHERE block = 3"), 32768);
	ck_assert_int_eq(q1(db, "SELECT valid_zones IS NULL FROM memory_blocks WHERE block = 3"), 1);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM memory_blocks WHERE state = 'offline' AND "
			    "valid_zones = 'Normal Movable'"), 1);
	ck_assert_int_eq(q1(db, "SELECT nr FROM hugepages WHERE size_kb = 2048"), 4);
	ck_assert_int_eq(q1(db, "SELECT free FROM hugepages WHERE size_kb = 2048"), 2);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshot_files"), NR_MINI + 1);
	ck_assert_int_eq(q1(db, "SELECT length(content) FROM snapshot_files WHERE name = "
			    "'zoneinfo'"), (int64_t)strlen(mini_zoneinfo));
	check_syn_pages(db, id, MINI_PFNS);
	check_syn_runs(db, id, 0, MINI_PFNS);
	check_syn_runs(db, id, 65530, 65600);
	check_syn_runs(db, id, 99999, 100000);
	check_syn_runs(db, id, 5, 5);
	/* the page_runs virtual table shows the same runs (split at 65536-PFN rows) */
	ck_assert(!tdb_pages_register_vtab(tdb_sqlite(db)));
	ck_assert_int_eq(q1(db, "SELECT sum(npfns) FROM page_runs WHERE snap = 1"), MINI_PFNS);
	ck_assert_int_eq(q1(db, "SELECT sum(npfns) FROM page_runs"), MINI_PFNS);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM page_runs WHERE snap = 2"), 0);
	{
		uint64_t pfn, buddy = 0, lo = 30000, hi = 70000;
		char sql[256];

		for (pfn = 0; pfn < MINI_PFNS; pfn++)
			buddy += syn_flags(pfn) == KPF_BIT(KPF_BUDDY);
		ck_assert_int_eq(q1(db, "SELECT sum(npfns) FROM page_runs WHERE snap = 1 AND "
				    "flags = 1024"), (int64_t)buddy);
		/* runs starting in [lo, hi) by the vtab's bounds and by a full scan agree */
		snprintf(sql, sizeof(sql), "SELECT (SELECT count(*) || '/' || total(npfns) FROM "
			 "page_runs WHERE snap = 1 AND pfn >= %" PRIu64 " AND pfn < %" PRIu64 ") = "
			 "(SELECT count(*) || '/' || total(npfns) FROM (SELECT * FROM page_runs "
			 "WHERE snap + 0 = 1) WHERE pfn + 0 >= %" PRIu64 " AND pfn + 0 < %" PRIu64 ")",
			 lo, hi, lo, hi);
		ck_assert_int_eq(q1(db, sql), 1);
		ck_assert_int_eq(q1(db, "SELECT count(*) FROM page_runs WHERE snap = 1 AND "
				    "pfn = 65536"), 1);
		ck_assert_int_eq(q1(db, "SELECT min(pfn) FROM (SELECT pfn FROM page_runs WHERE "
				    "snap = 1 ORDER BY pfn LIMIT 1)"), 0);
	}
	/* the same directory loads again as a second snapshot */
	ck_assert(!snap_load_dir(db, dir, "again", &id));
	ck_assert_int_eq(id, 2);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM zones"), 4);
	ck_assert(!tdb_close(db));
	rm_rf(dir);
}
END_TEST

/*
 * longterm_pins: the parser's shapes (runs sorted by pfn, unmapped pages and unlisted
 * rings counted apart), a bad line refused by line number, a snapshot directory with
 * one refused whole by the loader, and the file's absence read as "not looked".
 */
START_TEST(test_longterm_pins_file)
{
	static const char good[] = "io_uring 7 3 1 0x20000 500 2\n"
				   "io_uring 7 3 0 0x10000 100 2\n"
				   "io_uring 7 3 1 0x22000 - 3\n"
				   "io_uring 8 4 - - - 5\n";
	static const char *const bad[] = {
		"io_uring 7 3 0 0x10000 100\n",		/* a field short */
		"vfio 7 3 0 0x10000 100 2\n",		/* no reader writes it */
		"io_uring 7 3 0 0x10000 100 0\n",		/* no pages */
		"io_uring 7 3 0 10000 100 2\n",		/* VADDR without 0x */
		"io_uring 7 3 0 0x10000 100 2\r\n",	/* CRLF */
		"io_uring 7 3 0 0x10000 100 2",		/* no newline */
		"io_uring 7 3 - 0x10000 100 2\n",		/* half a ring line */
		"io_uring 7 3 0 0x10000 4503599627370495 2\n",	/* beyond 2^52 pfns */
	};
	const char *dir = fixture_tmpfile("mini-pins");
	struct tdb_pins p;
	struct tdb *db;
	char path[1024];
	int64_t id;
	size_t i;

	ck_assert_int_eq(tdb_pins_parse(good, &p), 0);
	ck_assert_int_eq(p.nr, 2);
	ck_assert_uint_eq(p.runs[0].pfn, 100);
	ck_assert_uint_eq(p.runs[0].buf, 0);
	ck_assert_uint_eq(p.runs[1].pfn, 500);
	ck_assert_uint_eq(p.runs[1].nr, 2);
	ck_assert_int_eq(p.runs[1].pid, 7);
	ck_assert_uint_eq(p.unknown_pages, 3);
	ck_assert_uint_eq(p.unlisted_bufs, 5);
	tdb_pins_free(&p);
	ck_assert_int_eq(tdb_pins_parse("", &p), 0);
	ck_assert_int_eq(p.nr, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[256];

		snprintf(text, sizeof(text), "%s%s", good, bad[i]);
		ck_assert_msg(tdb_pins_parse(text, &p) == -BC_E_FORMAT, "accepted: %s", bad[i]);
		ck_assert_msg(strstr(bc_errmsg(), "line 5"), "%s: %s", bad[i], bc_errmsg());
	}
	/* a directory with a bad one is refused, nothing stored */
	make_mini_dir(dir, MINI_PFNS, MINI_PFNS, 0, true);
	path2(path, sizeof(path), dir, "longterm_pins");
	put_file(path, "io_uring 7 3 0 0x10000 100 2\nio_uring x\n");
	db = new_db("mini-pins.db");
	ck_assert_int_eq(snap_load_dir(db, dir, "bad", &id), -BC_E_FORMAT);
	ck_assert_msg(strstr(bc_errmsg(), "longterm_pins") && strstr(bc_errmsg(), "line 2"), "%s",
		      bc_errmsg());
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshots"), 0);
	/* a good one is stored and read back; without it: not looked */
	put_file(path, good);
	ck_assert_msg(!snap_load_dir(db, dir, "pins", &id), "%s", bc_errmsg());
	ck_assert_int_eq(tdb_snap_pins(db, id, &p), 0);
	ck_assert_int_eq(p.nr, 2);
	ck_assert_uint_eq(p.runs[0].pfn + p.runs[0].nr, 102);
	tdb_pins_free(&p);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_msg(!snap_load_dir(db, dir, "none", &id), "%s", bc_errmsg());
	ck_assert_int_eq(tdb_snap_pins(db, id, &p), -BC_E_NOENT);
	ck_assert(!tdb_close(db));
	rm_rf(dir);
}
END_TEST

START_TEST(test_load_compressed)
{
	const char *dir = fixture_tmpfile("mini-z");
	char cmd[2048];
	struct tdb *db;
	int64_t id;

	if (fixture_run("command -v zstd && command -v gzip", NULL)) {
		fixture_skip("zstd or gzip is not installed");
		return;
	}
	make_mini_dir(dir, MINI_PFNS, MINI_PFNS, 0, true);
	snprintf(cmd, sizeof(cmd), "zstd -q --rm '%s/kpageflags' && gzip '%s/kpagecount'", dir,
		 dir);
	ck_assert_int_eq(fixture_run(cmd, NULL), 0);
	db = new_db("z.db");
	ck_assert_msg(!snap_load_dir(db, dir, "z", &id), "%s", bc_errmsg());
	check_syn_pages(db, id, MINI_PFNS);
	/* a truncated compressed file is an error naming it, and leaves nothing behind */
	snprintf(cmd, sizeof(cmd), "cd '%s' && head -c 2000 kpagecount.gz > t.gz && mv t.gz "
		 "kpagecount.gz", dir);
	ck_assert_int_eq(fixture_run(cmd, NULL), 0);
	ck_assert_int_lt(snap_load_dir(db, dir, "z", &id), 0);
	ck_assert_msg(strstr(bc_errmsg(), "kpagecount.gz"), "%s", bc_errmsg());
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshots"), 1);
	ck_assert(!tdb_close(db));
	rm_rf(dir);
}
END_TEST

START_TEST(test_load_fixture)
{
	const char *dir = fixture_tmpfile("sample");
	char cmd[2048], p[1024], q[1024];
	struct tdb *db;
	int64_t id;

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp -R '%s'/. '%s' && rm -f '%s/README'", dir,
		 fixture_path("traces/snapshot-sample"), dir, dir);
	ck_assert_int_eq(fixture_run(cmd, NULL), 0);
	path2(p, sizeof(p), dir, "kpageflags");
	path2(q, sizeof(q), dir, "kpagecount");
	put_pages(p, q, 6553600, 6553600, 0);
	db = new_db("sample.db");
	ck_assert_msg(!snap_load_dir(db, dir, "sample", &id), "%s", bc_errmsg());
	ck_assert_int_eq(q1(db, "SELECT nr_pfns FROM snapshots"), 6553600);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshot_pages"), 100);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM zones"), 3);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM zone_pcp"), 6);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM memory_blocks"), 5);
	ck_assert_int_eq(q1(db, "SELECT start_pfn FROM memory_blocks WHERE block = 191"),
			 191 * 32768);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM memory_blocks WHERE valid_zones = 'none'"),
			 1);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM hugepages"), 2);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM system_ram"), 3);
	ck_assert_int_eq(q1(db, "SELECT mono_begin FROM snapshots"), 971151371698);
	check_syn_pages(db, id, 6553600);
	ck_assert(!tdb_close(db));
	rm_rf(dir);
}
END_TEST

/* ---- limits: bad input ---- */

static void expect_load_error(const char *dir, int err, const char *needle1,
			      const char *needle2)
{
	struct tdb *db = new_db("bad.db");
	int ret = snap_load_dir(db, dir, "bad", NULL);

	ck_assert_msg(ret == err, "got %d (%s), want %d", ret, bc_errmsg(), err);
	ck_assert_msg(strstr(bc_errmsg(), needle1), "'%s' lacks '%s'", bc_errmsg(), needle1);
	if (needle2)
		ck_assert_msg(strstr(bc_errmsg(), needle2), "'%s' lacks '%s'", bc_errmsg(),
			      needle2);
	/* nothing half-written */
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshots"), 0);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshot_pages"), 0);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshot_files"), 0);
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM zones"), 0);
	ck_assert(!tdb_close(db));
}

START_TEST(test_short_kpageflags)
{
	const char *dir = fixture_tmpfile("short");

	/* not a multiple of 8: 3 stray bytes after the last whole PFN */
	make_mini_dir(dir, MINI_PFNS, MINI_PFNS, 3, true);
	expect_load_error(dir, -BC_E_TRUNCATED, "/kpageflags: size 800003 is not a multiple of 8",
			  "offset 800000");
	rm_rf(dir);
	/* shorter than kpagecount */
	make_mini_dir(dir, MINI_PFNS - 10, MINI_PFNS, 0, true);
	expect_load_error(dir, -BC_E_TRUNCATED, "/kpageflags: ends at offset 799920",
			  "kpageflags is short");
	rm_rf(dir);
	/* kpagecount shorter */
	make_mini_dir(dir, MINI_PFNS, 70000, 0, true);
	expect_load_error(dir, -BC_E_TRUNCATED, "/kpagecount: ends at offset 560000",
			  "kpagecount is short");
	rm_rf(dir);
	/* both short of the zones' spans */
	make_mini_dir(dir, MINI_PFNS - 1, MINI_PFNS - 1, 0, true);
	expect_load_error(dir, -BC_E_TRUNCATED, "/kpageflags: covers PFNs [0, 99999)",
			  "zone Normal spans [4096, 100000)");
	rm_rf(dir);
	/* empty */
	make_mini_dir(dir, 0, 0, 0, true);
	expect_load_error(dir, -BC_E_TRUNCATED, "/kpageflags: empty", NULL);
	rm_rf(dir);
}
END_TEST

START_TEST(test_missing_files)
{
	const char *dir = fixture_tmpfile("missing");
	char p[1024];

	make_mini_dir(dir, MINI_PFNS, MINI_PFNS, 0, false);
	expect_load_error(dir, -BC_E_NOENT, "/taken_at: missing", "did not finish");
	path2(p, sizeof(p), dir, "taken_at");
	put_file(p, "2000 1000\n");
	expect_load_error(dir, -BC_E_FORMAT, "/taken_at", "BEGIN_NS END_NS");
	put_file(p, "1000 2000\n");
	path2(p, sizeof(p), dir, "pagetypeinfo");
	unlink(p);
	expect_load_error(dir, -BC_E_NOENT, "/pagetypeinfo", NULL);
	put_file(p, "nonsense\n");
	expect_load_error(dir, -BC_E_FORMAT, "/pagetypeinfo: no", NULL);
	put_file(p, mini_files[3].content);
	path2(p, sizeof(p), dir, "memory/memory2/state");
	unlink(p);
	expect_load_error(dir, -BC_E_NOENT, "memory/memory2/state", NULL);
	put_file(p, "online\n");
	path2(p, sizeof(p), dir, "kpagecount");
	unlink(p);
	expect_load_error(dir, -BC_E_NOENT, "/kpagecount: missing", NULL);
	rm_rf(dir);
	expect_load_error(dir, -BC_E_NOENT, "missing", NULL);
	expect_load_error("/proc/self/status", -BC_E_FORMAT, "not a snapshot directory", NULL);
}
END_TEST

START_TEST(test_write_dir_refuses)
{
	const char *dir = fixture_tmpfile("full");
	char p[1024];

	mkdir(dir, 0700);
	path2(p, sizeof(p), dir, "x");
	put_file(p, "x");
	ck_assert_int_eq(snap_write_dir_root("/nonexistent-root", dir, NULL), -BC_E_INVAL);
	ck_assert(strstr(bc_errmsg(), "not empty"));
	rm_rf(dir);
	/* a root without the files: an error naming the file; no taken_at */
	ck_assert_int_lt(snap_write_dir_root("/nonexistent-root", dir, NULL), 0);
	ck_assert_msg(strstr(bc_errmsg(), "/nonexistent-root/proc/zoneinfo"), "%s", bc_errmsg());
	ck_assert_msg(strstr(bc_errmsg(), "incomplete"), "%s", bc_errmsg());
	path2(p, sizeof(p), dir, "taken_at");
	ck_assert(access(p, F_OK));
	rm_rf(dir);
}
END_TEST

/* ---- alignment ---- */

static struct tdb *align_db(const char *name, const char *dir, const char *clock,
			    const uint64_t *ts, int n)
{
	static const char *const names[] = { "pfn" };
	static const int sizes[] = { 8 };
	static const bool sgn[] = { false };
	struct tdb *db = new_db(name);
	int type, i;

	type = tdb_add_event_type(db, "kmem", "mm_page_free", false, NULL, 1, names, sizes, sgn);
	ck_assert_int_gt(type, 0);
	if (clock)
		ck_assert(!tdb_set_meta(db, "clock", clock));
	ck_assert_msg(!snap_load_dir(db, dir, "start", NULL), "%s", bc_errmsg());
	for (i = 0; i < n; i++) {
		struct bc_event ev = { .ts = ts[i], .type = type, .nfields = 1, .field = { i } };

		ck_assert(!tdb_append_event(db, &ev));
	}
	return db;
}

START_TEST(test_align)
{
	const char *dir = fixture_tmpfile("align");
	static const uint64_t ts[] = { 500, 1000, 1500, 2000, 2500 };
	struct tdb_snap_info *l;
	struct tdb *db;
	int nr, marked;

	make_mini_dir(dir, MINI_PFNS, MINI_PFNS, 0, true);	/* taken_at 1000 2000 */

	/* markers: trace clock 'local', begin marker at ts 1200 (before seq 2), end at 1700 */
	db = align_db("al1.db", dir, "local", ts, 2);
	ck_assert(!tdb_add_marker(db, 1200, 0, 1, "bigchunk snapshot start begin 1000\n"));
	ck_assert(!tdb_add_marker(db, 1201, 0, 1, "bigchunk snapshot other begin 999"));
	{
		struct bc_event ev = { .ts = 1500, .type = 1, .nfields = 1 };

		ck_assert(!tdb_append_event(db, &ev));
		ev.ts = 1600;
		ck_assert(!tdb_append_event(db, &ev));
	}
	ck_assert(!tdb_add_marker(db, 1700, 1, 1, "bigchunk snapshot start end 2000"));
	ck_assert_msg(!snap_align(db, &marked), "%s", bc_errmsg());
	ck_assert_int_eq(marked, 1);
	ck_assert(!tdb_snap_list(db, &l, &nr));
	ck_assert_int_eq(l[0].ts_begin, 1200);
	ck_assert_int_eq(l[0].ts_end, 1700);
	ck_assert_int_eq(l[0].seq_begin, 2);
	ck_assert_int_eq(l[0].seq_end, 4);
	free(l);
	ck_assert(!tdb_close(db));

	/* no markers, clock mono: from taken_at; seq_begin >= 1000, seq_end > 2000 */
	db = align_db("al2.db", dir, "mono", ts, 5);
	ck_assert_msg(!snap_align(db, &marked), "%s", bc_errmsg());
	ck_assert_int_eq(marked, 0);
	ck_assert(!tdb_snap_list(db, &l, &nr));
	ck_assert_int_eq(l[0].ts_begin, 1000);
	ck_assert_int_eq(l[0].ts_end, 2000);
	ck_assert_int_eq(l[0].seq_begin, 1);
	ck_assert_int_eq(l[0].seq_end, 4);
	free(l);
	ck_assert(!tdb_close(db));

	/* mono, snapshot after every event, and before all */
	{
		static const uint64_t late[] = { 10, 20 }, early[] = { 5000, 6000 };

		db = align_db("al3.db", dir, "mono", late, 2);
		ck_assert(!snap_align(db, NULL));
		ck_assert_int_eq(q1(db, "SELECT seq_begin FROM snapshots"), 2);
		ck_assert_int_eq(q1(db, "SELECT seq_end FROM snapshots"), 2);
		ck_assert(!tdb_close(db));
		db = align_db("al4.db", dir, "mono", early, 2);
		ck_assert(!snap_align(db, NULL));
		ck_assert_int_eq(q1(db, "SELECT seq_begin FROM snapshots"), 0);
		ck_assert_int_eq(q1(db, "SELECT seq_end FROM snapshots"), 0);
		ck_assert(!tdb_close(db));
	}

	/* neither: a clear error saying how to record */
	db = align_db("al5.db", dir, "local", ts, 5);
	ck_assert_int_eq(snap_align(db, NULL), -BC_E_FORMAT);
	ck_assert_msg(strstr(bc_errmsg(), "trace-cmd record -C mono"), "%s", bc_errmsg());
	ck_assert(strstr(bc_errmsg(), "'local'"));
	ck_assert_int_eq(q1(db, "SELECT count(*) FROM snapshots WHERE ts_begin IS NOT NULL"), 0);
	/* only a begin marker: still an error, naming the missing end */
	ck_assert(!tdb_add_marker(db, 1200, 0, 1, "bigchunk snapshot start begin 1000"));
	ck_assert_int_eq(snap_align(db, NULL), -BC_E_FORMAT);
	ck_assert(strstr(bc_errmsg(), "end marker is missing"));
	ck_assert(!tdb_close(db));
	rm_rf(dir);
}
END_TEST

/* ---- the shell twin ---- */

static const char *const twin_tables[] = {
	"zones", "zone_pcp", "buddyinfo", "pagetype_free", "pagetype_blocks", "meminfo",
	"vmstat", "system_ram", "memory_blocks", "hugepages", NULL,
};

/* Rows of @table (all columns but snap) of snapshots @a and @b are the same sets. */
static void same_rows(struct tdb *db, const char *table, const char *cols, int64_t a,
		      int64_t b, const char *where)
{
	char sql[2048];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM (SELECT %s FROM %s WHERE snap = %"
		 PRId64 " %s EXCEPT SELECT %s FROM %s WHERE snap = %" PRId64 " %s)", cols, table,
		 a, where, cols, table, b, where);
	ck_assert_msg(q1(db, sql) == 0, "%s: rows of snapshot %" PRId64 " not in %" PRId64, table,
		      a, b);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM (SELECT %s FROM %s WHERE snap = %"
		 PRId64 " %s EXCEPT SELECT %s FROM %s WHERE snap = %" PRId64 " %s)", cols, table,
		 b, where, cols, table, a, where);
	ck_assert_msg(q1(db, sql) == 0, "%s: rows of snapshot %" PRId64 " not in %" PRId64, table,
		      b, a);
	snprintf(sql, sizeof(sql), "SELECT (SELECT count(*) FROM %s WHERE snap = %" PRId64 " %s) - "
		 "(SELECT count(*) FROM %s WHERE snap = %" PRId64 " %s)", table, a, where, table, b,
		 where);
	ck_assert_int_eq(q1(db, sql), 0);
}

/* Columns of @table except snap, comma separated, into @buf. */
static void non_snap_cols(struct tdb *db, const char *table, char *buf, size_t size)
{
	sqlite3_stmt *st;
	char sql[256];

	snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", table);
	ck_assert(sqlite3_prepare_v2(tdb_sqlite(db), sql, -1, &st, NULL) == SQLITE_OK);
	buf[0] = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 1);

		if (!strcmp(c, "snap"))
			continue;
		if (buf[0])
			strncat(buf, ",", size - strlen(buf) - 1);
		strncat(buf, c, size - strlen(buf) - 1);
	}
	sqlite3_finalize(st);
}

/*
 * A process of the fake root holding io_uring rings: fd 7 with three registered
 * buffers (io_uring/fdinfo.c's "UserBufs:" list: two mapped pages then one elsewhere,
 * one mapped page then an unmapped one, an empty slot), fd 8 whose buffers the kernel
 * left out (its lock was busy), fd 0 not a ring; pagemap gives the pfns.
 */
static void make_ring_root(const char *root)
{
	uint64_t pm[34] = { 0 };
	char p[1024];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/proc/4242/fdinfo/7", root);
	put_file(p, "pos:\t0\nUserFiles:\t0\nUserBufs:\t3\n    0: 0x10000/12288\n"
		 "    1: 0x20000/4097\n    2: <none>\nPollList:\n");
	snprintf(p, sizeof(p), "%s/proc/4242/fdinfo/8", root);
	put_file(p, "pos:\t0\nUserBufs:\t2\nPollList:\n");
	snprintf(p, sizeof(p), "%s/proc/4242/fd/7", root);
	mkparents(p);
	ck_assert_int_eq(symlink("anon_inode:[io_uring]", p), 0);
	snprintf(p, sizeof(p), "%s/proc/4242/fd/8", root);
	ck_assert_int_eq(symlink("anon_inode:[io_uring]", p), 0);
	snprintf(p, sizeof(p), "%s/proc/4242/fd/0", root);
	ck_assert_int_eq(symlink("/dev/null", p), 0);
	pm[16] = 1ull << 63 | 100;
	pm[17] = 1ull << 63 | 101;
	pm[18] = 1ull << 63 | 300;
	pm[32] = 1ull << 63 | 1ull << 61 | 500;	/* bit 61 (file page) is not the pfn */
	snprintf(p, sizeof(p), "%s/proc/4242/pagemap", root);
	fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fwrite(pm, sizeof(pm), 1, fp), 1);
	ck_assert_int_eq(fclose(fp), 0);
}

static const char *shell_twin(void)
{
	return fixture_path("capture/bigchunk-snapshot.sh");
}

START_TEST(test_shell_twin_equal)
{
	const char *root = fixture_tmpfile("fakeroot"), *dsh = fixture_tmpfile("twin-sh"),
		   *dc = fixture_tmpfile("twin-c");
	char cmd[4096], cols[1024], *out = NULL;
	struct tdb *db;
	int64_t a, b;
	const char *const *t;
	int rc;

	make_mini_root(root);
	/* a CMA area (debugfs): both write cma_areas */
	snprintf(cmd, sizeof(cmd), "%s/sys/kernel/debug/cma/reserved/base_pfn", root);
	put_file(cmd, "4096\n");
	snprintf(cmd, sizeof(cmd), "%s/sys/kernel/debug/cma/reserved/count", root);
	put_file(cmd, "1024\n");
	/* a free page reporting device registered (the parameter set): both copy it */
	snprintf(cmd, sizeof(cmd), "%s/sys/module/page_reporting/parameters/page_reporting_order",
		 root);
	put_file(cmd, "9\n");
	make_ring_root(root);
	snprintf(cmd, sizeof(cmd), "BIGCHUNK_ROOT='%s' sh '%s' -l twin '%s'", root, shell_twin(),
		 dsh);
	rc = fixture_run(cmd, &out);
	ck_assert_msg(rc == 0, "shell twin: %d: %s", rc, out);
	free(out);
	ck_assert_msg(!snap_write_dir_root(root, dc, NULL), "%s", bc_errmsg());
	snprintf(cmd, sizeof(cmd), "cat '%s/taken_at'", dsh);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_str_eq(out, "5000 5000\n");
	free(out);
	snprintf(cmd, sizeof(cmd), "cat '%s/cma_areas'", dc);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_str_eq(out, "reserved 4096 1024\n");
	free(out);
	snprintf(cmd, sizeof(cmd), "cat '%s/page_reporting'", dc);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_str_eq(out, "9\n");
	free(out);
	/* the rings' registered buffers by pfn: both write longterm_pins */
	snprintf(cmd, sizeof(cmd), "cat '%s/longterm_pins'", dc);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_str_eq(out, "io_uring 4242 7 0 0x10000 100 2\n"
			 "io_uring 4242 7 0 0x12000 300 1\n"
			 "io_uring 4242 7 1 0x20000 500 1\n"
			 "io_uring 4242 7 1 0x21000 - 1\n"
			 "io_uring 4242 8 - - - 2\n");
	free(out);
	/* byte-identical apart from taken_at */
	snprintf(cmd, sizeof(cmd), "diff -r -x taken_at '%s' '%s'", dsh, dc);
	rc = fixture_run(cmd, &out);
	ck_assert_msg(rc == 0, "directories differ: %s", out);
	free(out);
	/* modes: 0700 directories, 0600 files, for both */
	snprintf(cmd, sizeof(cmd), "find '%s' '%s' \\( -type d ! -perm 0700 \\) -o \\( -type f ! "
		 "-perm 0600 \\)", dsh, dc);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_str_eq(out, "");
	free(out);
	db = new_db("twin.db");
	ck_assert_msg(!snap_load_dir(db, dsh, "sh", &a), "%s", bc_errmsg());
	ck_assert_msg(!snap_load_dir(db, dc, "c", &b), "%s", bc_errmsg());
	for (t = twin_tables; *t; t++) {
		non_snap_cols(db, *t, cols, sizeof(cols));
		same_rows(db, *t, cols, a, b, "");
	}
	same_rows(db, "snapshot_files", "name, content", a, b, "AND name != 'taken_at'");
	same_rows(db, "snapshot_pages", "pfn, npfns, data", a, b, "");
	check_syn_pages(db, a, MINI_PFNS);
	ck_assert(!tdb_close(db));
	/* usage errors */
	snprintf(cmd, sizeof(cmd), "sh '%s' -l 'a b' '%s'", shell_twin(), dsh);
	ck_assert_int_eq(fixture_run(cmd, NULL), 2);
	snprintf(cmd, sizeof(cmd), "BIGCHUNK_ROOT='%s' sh '%s' '%s'", root, shell_twin(), dsh);
	ck_assert_int_eq(fixture_run(cmd, &out), 2);
	ck_assert(strstr(out, "not empty"));
	free(out);
	rm_rf(root);
	rm_rf(dsh);
	rm_rf(dc);
}
END_TEST

/*
 * The shell twin under busybox's dd (the rig's guests have no other): it prints
 * "F+P records out" and no byte count. The pages markers (to stdout here, through
 * -m PATH) and the pages copied must be GNU dd's, over chunks of 4 MiB and a partial
 * one (1,100,000 pfns: markers at 0, 524288, 1048576 and the end).
 */
START_TEST(test_shell_twin_busybox)
{
	const char *root = fixture_tmpfile("bbroot"), *bin = fixture_tmpfile("bbbin");
	const char *dgnu = fixture_tmpfile("twin-gnu"), *dbb = fixture_tmpfile("twin-bb");
	static const char *const applets[] = { "dd", "cat", "mkdir", "uname", "wc" };
	char p[1024], q[1024], *gnu = NULL, *bb = NULL;
	size_t i;
	int rc;

	if (fixture_run("command -v busybox >/dev/null", NULL)) {
		fixture_skip("busybox is not installed");
		return;
	}
	make_mini_root(root);
	snprintf(p, sizeof(p), "%s/proc/kpageflags", root);
	snprintf(q, sizeof(q), "%s/proc/kpagecount", root);
	put_pages(p, q, 1100000, MINI_PFNS, 0);
	mkdir(bin, 0700);
	for (i = 0; i < sizeof(applets) / sizeof(applets[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", bin, applets[i]);
		ck_assert_int_eq(fixture_runf(NULL, "ln -sf \"$(command -v busybox)\" '%s'", p), 0);
	}
	ck_assert_int_eq(fixture_runf(&bb, "'%s/dd' if=/dev/zero bs=8 count=1 2>&1 >/dev/null",
				      bin), 0);
	ck_assert_msg(!strstr(bb, "bytes"), "busybox dd gives a byte count: %s", bb);
	free(bb);
	rc = fixture_runf(&gnu, "BIGCHUNK_ROOT='%s' sh '%s' -m /dev/stdout -l tw '%s'", root,
			  shell_twin(), dgnu);
	ck_assert_msg(rc == 0, "twin with the system's dd: %d: %s", rc, gnu);
	rc = fixture_runf(&bb, "PATH='%s':\"$PATH\" BIGCHUNK_ROOT='%s' sh '%s' -m /dev/stdout -l tw '%s'",
			  bin, root, shell_twin(), dbb);
	ck_assert_msg(rc == 0, "twin with busybox dd: %d: %s", rc, bb);
	ck_assert_msg(strstr(bb, "tw pages 524288bigchunk snapshot tw pages 1048576bigchunk "
			     "snapshot tw pages 1100000bigchunk"), "%s", bb);
	ck_assert_str_eq(bb, gnu);
	free(gnu);
	free(bb);
	ck_assert_int_eq(fixture_runf(&bb, "cmp '%s/proc/kpageflags' '%s/kpageflags' && "
				      "diff -r -x taken_at '%s' '%s'", root, dbb, dgnu, dbb), 0);
	free(bb);
	/* no page_reporting parameter (a kernel without CONFIG_PAGE_REPORTING): "none" */
	ck_assert_int_eq(fixture_runf(&bb, "cat '%s/page_reporting'", dbb), 0);
	ck_assert_str_eq(bb, "none\n");
	free(bb);
	rm_rf(root);
	rm_rf(bin);
	rm_rf(dgnu);
	rm_rf(dbb);
}
END_TEST

START_TEST(test_cli_errors)
{
	const char *dir = fixture_tmpfile("cli-short"), *dbp = fixture_tmpfile("cli.db");
	char cmd[2048], *out;

	snprintf(cmd, sizeof(cmd), "%s snapshot", fixture_bigchunk());
	ck_assert_int_eq(fixture_run(cmd, NULL), 2);
	snprintf(cmd, sizeof(cmd), "%s snapshot --help", fixture_bigchunk());
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert(strstr(out, "--marker INSTANCE"));
	free(out);
	snprintf(cmd, sizeof(cmd), "%s snapshot -o x --label 'a b'", fixture_bigchunk());
	ck_assert_int_eq(fixture_run(cmd, NULL), 2);
	make_mini_dir(dir, MINI_PFNS, MINI_PFNS, 5, true);
	snprintf(cmd, sizeof(cmd), "%s snapshot --db '%s' --from '%s'", fixture_bigchunk(), dbp,
		 dir);
	ck_assert_int_eq(fixture_run(cmd, &out), 2);
	ck_assert_msg(strstr(out, "kpageflags: size 800005 is not a multiple of 8"), "%s", out);
	free(out);
	ck_assert_msg(access(dbp, F_OK), "a failed load leaves no new capture");
	rm_rf(dir);
	make_mini_dir(dir, MINI_PFNS, MINI_PFNS, 0, true);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_msg(strstr(out, "100000 PFNs"), "%s", out);
	free(out);
	rm_rf(dir);
	fixture_rm(dbp);
}
END_TEST

/* ---- live ---- */

static bool need_root(const char *test)
{
	if (geteuid() != 0) {
		fixture_skip("needs root (reads /proc/kpageflags)");
		return false;
	}
	if (access("/proc/kpageflags", R_OK)) {
		fixture_skip("/proc/kpageflags is not readable");
		return false;
	}
	return true;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every PFN in the db equals the raw files of @dir, bit for bit. */
static void check_raw(struct tdb *db, int64_t snap, const char *dir, uint64_t *nr)
{
	const size_t B = 1 << 20;
	uint64_t *rf = malloc(B * 8), *rc = malloc(B * 8), *f = malloc(B * 8), *c = malloc(B * 8);
	char p[1024], q[1024];
	uint64_t at = 0;
	FILE *ff, *fc;
	size_t n;

	path2(p, sizeof(p), dir, "kpageflags");
	path2(q, sizeof(q), dir, "kpagecount");
	ff = fopen(p, "r");
	fc = fopen(q, "r");
	ck_assert(ff && fc && rf && rc && f && c);
	while ((n = fread(rf, 8, B, ff)) > 0) {
		ck_assert_uint_eq(fread(rc, 8, n, fc), n);
		ck_assert_msg(!tdb_snap_pages_read(db, snap, at, n, f, c), "%s", bc_errmsg());
		ck_assert_msg(!memcmp(rf, f, n * 8), "kpageflags differ in PFNs [%" PRIu64 ", +%zu)",
			      at, n);
		ck_assert_msg(!memcmp(rc, c, n * 8), "kpagecount differ in PFNs [%" PRIu64 ", +%zu)",
			      at, n);
		at += n;
	}
	ck_assert_uint_eq(fread(rc, 8, 1, fc), 0);
	fclose(ff);
	fclose(fc);
	free(rf);
	free(rc);
	free(f);
	free(c);
	*nr = at;
}

START_TEST(test_live_roundtrip)
{
	const char *dir = fixture_tmpfile("live");
	double t0, tw, tl, tlive;
	struct tdb *db;
	uint64_t nr;
	int64_t id, id2, bytes;

	if (!fixture_live("live_roundtrip") || !need_root("live_roundtrip"))
		return;
	t0 = now_s();
	ck_assert_msg(!snap_write_dir(dir, NULL), "%s", bc_errmsg());
	tw = now_s() - t0;
	db = new_db("live.db");
	t0 = now_s();
	ck_assert_msg(!snap_load_dir(db, dir, "live", &id), "%s", bc_errmsg());
	tl = now_s() - t0;
	check_raw(db, id, dir, &nr);
	ck_assert_int_eq(q1(db, "SELECT nr_pfns FROM snapshots WHERE id = 1"), (int64_t)nr);
	ck_assert_int_ge(q1(db, "SELECT count(*) FROM zones"), 1);
	ck_assert_int_ge(q1(db, "SELECT count(*) FROM system_ram"), 1);
	bytes = q1(db, "SELECT sum(length(data)) FROM snapshot_pages WHERE snap = 1");
	t0 = now_s();
	ck_assert_msg(!snap_load_live(db, "live2", NULL, &id2), "%s", bc_errmsg());
	tlive = now_s() - t0;
	ck_assert_int_ge(q1(db, "SELECT nr_pfns FROM snapshots WHERE id = 2"), 1);
	printf("snapshot bench: %" PRIu64 " PFNs; write dir %.3f s; load dir %.3f s; load live "
	       "%.3f s; %" PRId64 " bytes of page runs = %.4f bytes/PFN (raw 16); db file %" PRId64
	       " bytes\n", nr, tw, tl, tlive, bytes, (double)bytes / nr,
	       q1(db, "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size"));
	ck_assert(!tdb_close(db));
	rm_rf(dir);
}
END_TEST

START_TEST(test_live_twin)
{
	const char *dsh = fixture_tmpfile("live-sh"), *dc = fixture_tmpfile("live-c");
	char cmd[2048], *out;
	struct tdb *db;
	int64_t a, b;
	int rc;

	if (!fixture_live("live_twin") || !need_root("live_twin"))
		return;
	if (access("/proc/timer_list", R_OK)) {
		fixture_skip("/proc/timer_list is not readable");
		return;
	}
	snprintf(cmd, sizeof(cmd), "sh '%s' '%s'", shell_twin(), dsh);
	rc = fixture_run(cmd, &out);
	ck_assert_msg(rc == 0, "%s", out);
	free(out);
	ck_assert_msg(!snap_write_dir(dc, NULL), "%s", bc_errmsg());
	db = new_db("live-twin.db");
	ck_assert_msg(!snap_load_dir(db, dsh, "sh", &a), "%s", bc_errmsg());
	ck_assert_msg(!snap_load_dir(db, dc, "c", &b), "%s", bc_errmsg());
	/* what does not move on a running machine is equal */
	same_rows(db, "zones", "node, zone, start_pfn, spanned, present", a, b, "");
	same_rows(db, "system_ram", "start_pfn, end_pfn", a, b, "");
	same_rows(db, "memory_blocks", "block, start_pfn, nr_pfns, state, valid_zones", a, b, "");
	same_rows(db, "hugepages", "size_kb, nr", a, b, "");
	same_rows(db, "snapshot_files", "name", a, b, "");
	same_rows(db, "pagetype_free", "node, zone, migratetype, ord", a, b, "");
	same_rows(db, "vmstat", "key", a, b, "");
	ck_assert_int_eq(q1(db, "SELECT count(DISTINCT nr_pfns) FROM snapshots"), 1);
	/* the shell's CLOCK_MONOTONIC (timer_list) is before the C writer's */
	ck_assert_int_lt(q1(db, "SELECT mono_end FROM snapshots WHERE id = 1"),
			 q1(db, "SELECT mono_begin FROM snapshots WHERE id = 2"));
	ck_assert(!tdb_close(db));
	rm_rf(dsh);
	rm_rf(dc);
}
END_TEST

/* Markers land in a tracefs instance's buffer, with the numbers of taken_at. */
START_TEST(test_live_markers)
{
	const char *dir = fixture_tmpfile("live-m");
	char inst[128], path[256], cmd[512], *out, *taken, want[160];
	struct snap_marker m;
	uint64_t b, e;

	if (!fixture_live("live_markers") || !need_root("live_markers"))
		return;
	snprintf(inst, sizeof(inst), "bc-snaptest-%d", (int)getpid());
	snprintf(path, sizeof(path), "/sys/kernel/tracing/instances/%s", inst);
	ck_assert_msg(!mkdir(path, 0700), "%s: %s", path, strerror(errno));
	ck_assert_int_eq(snap_marker_open(&m, "no-such-instance-here", "x"), -BC_E_NOENT);
	ck_assert_msg(!snap_marker_open(&m, inst, "lm"), "%s", bc_errmsg());
	ck_assert_msg(!snap_write_dir(dir, &m), "%s", bc_errmsg());
	snap_marker_close(&m);
	snprintf(cmd, sizeof(cmd), "cat '%s/taken_at'", dir);
	ck_assert_int_eq(fixture_run(cmd, &taken), 0);
	ck_assert_int_eq(sscanf(taken, "%" SCNu64 " %" SCNu64, &b, &e), 2);
	free(taken);
	snprintf(cmd, sizeof(cmd), "cat '%s/trace'", path);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	snprintf(want, sizeof(want), "bigchunk snapshot lm begin %" PRIu64, b);
	ck_assert_msg(strstr(out, want), "no '%s' in %s", want, out);
	snprintf(want, sizeof(want), "bigchunk snapshot lm end %" PRIu64, e);
	ck_assert_msg(strstr(out, want), "no '%s' in %s", want, out);
	free(out);
	/* and from the shell twin */
	rm_rf(dir);
	snprintf(cmd, sizeof(cmd), "sh '%s' -m '%s' -l sh '%s'", shell_twin(), inst, dir);
	ck_assert_int_eq(fixture_run(cmd, NULL), 0);
	snprintf(cmd, sizeof(cmd), "grep -c 'bigchunk snapshot sh \\(begin\\|end\\) [0-9]' "
		 "'%s/trace'", path);
	ck_assert_int_eq(fixture_run(cmd, &out), 0);
	ck_assert_str_eq(out, "2\n");
	free(out);
	ck_assert_msg(!rmdir(path), "%s: %s", path, strerror(errno));
	rm_rf(dir);
}
END_TEST

Suite *snapshot_suite(void);

Suite *snapshot_suite(void)
{
	Suite *s = suite_create("snapshot");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *live = tcase_create("live");

	tcase_set_timeout(core, 300);
	tcase_add_test(core, test_codec_roundtrip);
	tcase_add_test(core, test_marker_lines);
	tcase_add_test(core, test_parse_real_files);
	tcase_add_test(core, test_load_mini);
	tcase_add_test(core, test_load_compressed);
	tcase_add_test(core, test_longterm_pins_file);
	tcase_add_test(core, test_load_fixture);
	tcase_add_test(core, test_align);
	tcase_add_test(core, test_shell_twin_equal);
	tcase_add_test(core, test_shell_twin_busybox);
	tcase_add_test(core, test_cli_errors);
	suite_add_tcase(s, core);

	tcase_set_timeout(limits, 120);
	tcase_add_test(limits, test_parse_bad_text);
	tcase_add_test(limits, test_short_kpageflags);
	tcase_add_test(limits, test_missing_files);
	tcase_add_test(limits, test_write_dir_refuses);
	suite_add_tcase(s, limits);

	tcase_set_tags(live, "live");
	tcase_set_timeout(live, 300);
	tcase_add_test(live, test_live_roundtrip);
	tcase_add_test(live, test_live_twin);
	tcase_add_test(live, test_live_markers);
	suite_add_tcase(s, live);
	return s;
}
