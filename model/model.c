// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - creation of the model from a layout, the kernel profile, migratetype
 * numbering, the undo journal (checkpoint/rollback), anomaly records, per-pfn word
 * writes with their pageblock counters, and the read-only queries.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/model-fault.h"
#include "model/model-local.h"

#define _K(k, s) [MODEL_KIND_##k] = s,
static const char *const kind_names[] = { MODEL_KINDS };
#undef _K
#define _C(c, s) [MODEL_PBC_##c] = s,
static const char *const pbc_names[] = { MODEL_PB_COUNTERS };
#undef _C
#define _A(a, s) [MODEL_ANOM_##a] = s,
static const char *const anom_names[] = { MODEL_ANOMALIES };
#undef _A

const char *model_kind_name(enum model_kind k)
{
	return (unsigned int)k < MODEL_NR_KINDS ? kind_names[k] : "?";
}

const char *model_pb_counter_name(enum model_pb_counter c)
{
	return (unsigned int)c < MODEL_NR_PBC ? pbc_names[c] : "?";
}

const char *model_anomaly_name(enum model_anomaly a)
{
	return (unsigned int)a < MODEL_NR_ANOM ? anom_names[a] : "?";
}

/* ---- profile ------------------------------------------------------------------- */

int model_mt_of_name(const struct model_profile *p, const char *name)
{
	static const char *const names[] = { "Unmovable", "Movable", "Reclaimable", "HighAtomic" };
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return i;
	if (!strcmp(name, "CMA"))
		return p->cma ? 4 : -1;
	if (!strcmp(name, "Isolate"))
		return p->cma ? 5 : 4;
	return -1;
}

int model_profile_from_release(const char *release, unsigned int pageblock_order,
			       struct model_profile *out)
{
	unsigned int a = 6, b = 18, c = 0;
	int ret = 0;
	unsigned int v;

	if (!release || sscanf(release, "%u.%u.%u", &a, &b, &c) < 2) {
		a = 6;
		b = 18;
		c = 0;
		ret = -BC_E_INVAL;
	}
	v = MODEL_KVER(a, b, c);
	memset(out, 0, sizeof(*out));
	out->version = v;
	out->cma = false;	/* a config option, not a release property */
	/* "mm: page_isolation: make page isolation a standalone bit" (6.17) */
	out->isolate_bit = v >= MODEL_KVER(6, 17, 0);
	/* pfn_range_valid_contig(): PageHuge rejected from 6.10, two passes in 7.0 */
	if (v >= MODEL_KVER(7, 0, 0))
		out->hugetlb_contig = MODEL_HUGETLB_CONTIG_TWO_PASS;
	else if (v >= MODEL_KVER(6, 10, 0))
		out->hugetlb_contig = MODEL_HUGETLB_CONTIG_REJECT;
	else
		out->hugetlb_contig = MODEL_HUGETLB_CONTIG_IGNORE;
	/* hugetlb_free_folio()/free_contig_range(): one order-18 free from 6.12 */
	out->gigantic_free_order18 = v >= MODEL_KVER(6, 12, 0);
	/* pcp_allowed_order(): orders <= PAGE_ALLOC_COSTLY_ORDER, plus THP (5.13+) */
	out->pcp_orders = 0xfu;
	if (v >= MODEL_KVER(5, 13, 0) && pageblock_order < 32)
		out->pcp_orders |= 1u << pageblock_order;
	if (v < MODEL_KVER(5, 13, 0))
		out->pcp_orders = 1u;	/* order-0 only */
	/* "mm: page_alloc: freelist migratetype hygiene" (6.10) */
	out->freelist_hygiene = v >= MODEL_KVER(6, 10, 0);
	/* __rmqueue_claim/__rmqueue_steal split: 6.15, backported to 6.12.y */
	out->claim_steal = v >= MODEL_KVER(6, 15, 0) ||
			   (v >= MODEL_KVER(6, 12, 0) && v < MODEL_KVER(6, 13, 0));
	/* __alloc_pages_bulk() (5.13) takes pcp pages without a tracepoint, to this day */
	out->bulk_untraced = v >= MODEL_KVER(5, 13, 0);
	return ret;
}

/* ---- migratetypes -------------------------------------------------------------- */

void model_set_cma(struct model *m, bool on)
{
	m->prof.cma = on;
}

int model_imt_from_trace(const struct model *m, int mt)
{
	if (mt >= 0 && mt <= 3)
		return mt;
	if (m->prof.cma) {
		if (mt == 4)
			return IMT_CMA;
		if (mt == 5)
			return IMT_ISOLATE;
	} else if (mt == 4) {
		return IMT_ISOLATE;
	}
	return -1;
}

int model_imt_to_trace(const struct model *m, int imt)
{
	if (imt >= 0 && imt <= 3)
		return imt;
	if (imt == IMT_CMA)
		return m->prof.cma ? 4 : -1;
	if (imt == IMT_ISOLATE)
		return m->prof.cma ? 5 : 4;
	return -1;
}

/* ---- gfp ----------------------------------------------------------------------- */

#define GFP_MOVABLE_BIT		(1ull << 3)
#define GFP_HIGH_BIT		(1ull << 5)
#define GFP_DIRECT_RECLAIM_BIT	(1ull << 10)
#define GFP_NORETRY_BIT		(1ull << 16)
#define GFP_COMP_BIT		(1ull << 18)
#define GFP_KSWAPD_RECLAIM_BIT	(1ull << 11)
#define GFP_NOWARN_BIT		(1ull << 13)
#define GFP_NORETRY_BIT		(1ull << 16)
#define GFP_NOMEMALLOC_BIT	(1ull << 19)
#define GFP_HARDWALL_BIT	(1ull << 20)

/*
 * What an allocation is, from its gfp alone (movable ones are left to the snapshot):
 * - ext4_sb_breadahead_unmovable() (fs/ext4/super.c, 6.12; inode-table readahead when
 *   inodes are created or looked up) calls bdev_getblk(GFP_NOWAIT | __GFP_NOWARN), and
 *   grow_dev_folio() allocates the block device's page-cache folio with exactly
 *   GFP_NOWAIT | __GFP_COMP at order 0 (6.18 traces show the same mask); the folio
 *   goes on the LRU, so has_unmovable_pages() passes it although its migratetype is
 *   Unmovable (assumption: no other order-0 allocation uses that exact mask);
 * - a folio (__GFP_COMP) with __GFP_HARDWALL but not __GFP_MOVABLE: page cache of a
 *   mapping whose gfp is GFP_USER-like, the block device's buffer cache
 *   (grow_dev_folio(): GFP_NOFS | __GFP_NOFAIL | __GFP_HARDWALL), block device
 *   metadata read through getblk_unmovable() (include/linux/buffer_head.h: GFP_USER
 *   without __GFP_FS, with __GFP_NOFAIL; ext4 directory and inode blocks, tens of
 *   thousands of pages under a find(1) on 6.18); on the LRU too;
 * - allocate_slab()'s first try, flags | s->allocflags (always __GFP_COMP) |
 *   __GFP_NOWARN | __GFP_NORETRY with GFP_KERNEL-like flags: a slab page. Only order
 *   0 is taken: there the kind decides isolation (a frozen slab page has refcount 0 on
 *   6.18, see MODEL_CONTIG_SLAB_REFCOUNT_ZERO); a compound page of either kind fails
 *   it anyway.
 */
enum model_kind model_gfp_kind(uint64_t gfp, unsigned int order)
{
	const uint64_t bdev_ra = GFP_KSWAPD_RECLAIM_BIT | GFP_NOWARN_BIT | GFP_COMP_BIT;
	const uint64_t slab = GFP_COMP_BIT | GFP_NOWARN_BIT | GFP_NORETRY_BIT;

	if (!order && gfp == bdev_ra)
		return MODEL_KIND_FILE;
	if (gfp & GFP_MOVABLE_BIT)
		return MODEL_KIND_UNKNOWN;
	if ((gfp & (GFP_COMP_BIT | GFP_HARDWALL_BIT)) == (GFP_COMP_BIT | GFP_HARDWALL_BIT))
		return MODEL_KIND_FILE;
	if (!order && (gfp & slab) == slab)
		return MODEL_KIND_SLAB;
	return MODEL_KIND_UNKNOWN;
}

enum model_gfp_class model_gfp_classify(uint64_t gfp, unsigned int order,
					unsigned int pageblock_order)
{
	/*
	 * GFP_TRANSHUGE(_LIGHT) is GFP_HIGHUSER_MOVABLE | __GFP_COMP ... (gfp_types.h),
	 * and a hugetlb pool page is GFP_HIGHUSER_MOVABLE (htlb_alloc_mask()); an
	 * unmovable compound block of that order (io_uring_setup()'s rings: GFP_KERNEL_
	 * ACCOUNT | __GFP_COMP) is a kernel allocation.
	 */
	if ((gfp & GFP_COMP_BIT) && (gfp & GFP_MOVABLE_BIT) && order >= pageblock_order)
		return MODEL_GFP_TRANSHUGE;
	if (gfp & GFP_MOVABLE_BIT)
		return MODEL_GFP_USER_MOVABLE;
	if (!(gfp & GFP_DIRECT_RECLAIM_BIT))
		return (gfp & GFP_HIGH_BIT) ? MODEL_GFP_ATOMIC : MODEL_GFP_NOWAIT;
	if (gfp & GFP_DIRECT_RECLAIM_BIT)
		return MODEL_GFP_KERNEL;
	return MODEL_GFP_OTHER;
}

bool model_gfp_hugetlb(uint64_t gfp, unsigned int order, uint32_t hugetlb_orders)
{
	/* htlb_alloc_mask(): GFP_HIGHUSER (with __GFP_HARDWALL) | __GFP_COMP */
	const uint64_t need = GFP_COMP_BIT | GFP_HARDWALL_BIT;

	return order < 32 && (hugetlb_orders >> order & 1) && (gfp & need) == need &&
	       !(gfp & (GFP_NOMEMALLOC_BIT | GFP_NORETRY_BIT));
}

enum model_kind model_alloc_kind(const struct model *m, uint64_t gfp, unsigned int order)
{
	/* a page for the hugetlb pool is hugetlb from its allocation on */
	if (model_gfp_hugetlb(gfp, order, m->layout.hugetlb_orders))
		return MODEL_KIND_HUGETLB;
	return model_gfp_kind(gfp, order);
}

/* ---- categories and word writes ------------------------------------------------ */

const uint8_t model_tag_cat[WT_ALLOC] = {
	[WT_HOLE] = MODEL_PBC_HOLE,
	[WT_UNINIT] = MODEL_PBC_UNINIT,
	[WT_FREE_TAIL] = MODEL_PBC_FREE,
	[WT_BUDDY] = MODEL_PBC_FREE,
	[WT_PCP] = MODEL_PBC_PCP,
};

uint8_t model_kind_mt_cat[128];

/* The pageblock counter of an in-use page of @kind requested as @mt. */
static enum model_pb_counter alloc_cat(unsigned int kind, unsigned int mt)
{
	switch (kind) {
	case MODEL_KIND_RESERVED:
		return MODEL_PBC_RESERVED;
	case MODEL_KIND_ANON:
	case MODEL_KIND_FILE:
	case MODEL_KIND_THP:
	case MODEL_KIND_HUGETLB:
	case MODEL_KIND_OFFLINE:	/* balloon pages have movable_ops */
		return MODEL_PBC_MOVABLE;
	case MODEL_KIND_UNKNOWN:
		if (mt == W_MT_UNKNOWN)
			return MODEL_PBC_UNKNOWN;
		return mt == IMT_MOVABLE ? MODEL_PBC_MOVABLE : MODEL_PBC_UNMOVABLE;
	default:
		return MODEL_PBC_UNMOVABLE;
	}
}

static void __attribute__((constructor)) init_cat_table(void)
{
	unsigned int k, mt;

	for (k = 0; k < 16; k++)
		for (mt = 0; mt < 8; mt++)
			model_kind_mt_cat[k << 3 | mt] = (uint8_t)alloc_cat(k, mt);
}

void model_write_word(struct model *m, uint32_t idx, uint32_t w)
{
	uint32_t old = m->words[idx];
	enum model_pb_counter co = model_word_cat(old), cn = model_word_cat(w);

	if (co != cn) {
		struct pblock *b = pb_of(m, idx);

		jset16(m, &b->cnt[co], b->cnt[co] - 1);
		jset16(m, &b->cnt[cn], b->cnt[cn] + 1);
	}
	jset32(m, &m->words[idx], w);
}

void model_write_range(struct model *m, uint32_t idx, uint32_t n, uint32_t w, uint32_t tailw)
{
	enum model_pb_counter ct = model_word_cat(tailw);
	int32_t delta[MODEL_NR_PBC];
	uint32_t i, end = idx + n;
	uint32_t pbmask = (1u << m->pb_order) - 1;

	if (!n)
		return;
	model_write_word(m, idx, w);
	i = idx + 1;
	while (i < end) {
		uint32_t stop = (i | pbmask) + 1, cnt;
		struct pblock *b = pb_of(m, i);
		int c;

		if (stop > end)
			stop = end;
		cnt = stop - i;
		memset(delta, 0, sizeof(delta));
		if (!m->nr_cp) {
			for (; i < stop; i++) {
				delta[model_word_cat(m->words[i])]--;
				m->words[i] = tailw;
			}
		} else {
			for (; i < stop; i++) {
				delta[model_word_cat(m->words[i])]--;
				jset32(m, &m->words[i], tailw);
			}
		}
		delta[ct] += (int32_t)cnt;
		for (c = 0; c < MODEL_NR_PBC; c++)
			if (delta[c])
				jset16(m, &b->cnt[c], (uint16_t)(b->cnt[c] + delta[c]));
	}
}

void model_fill_range(struct model *m, uint32_t idx, uint32_t n, uint32_t w, uint32_t tailw,
		      enum model_pb_counter old_tail_cat)
{
	enum model_pb_counter ct = model_word_cat(tailw);
	uint32_t i = idx + 1, end = idx + n, pbmask = (1u << m->pb_order) - 1;

	model_write_word(m, idx, w);
	while (i < end) {
		uint32_t stop = (i | pbmask) + 1, cnt, k;
		struct pblock *b = pb_of(m, i);

		if (stop > end)
			stop = end;
		cnt = stop - i;
		if (!m->nr_cp) {
			uint32_t *p = &m->words[i];

			for (k = 0; k < cnt; k++)
				p[k] = tailw;
		} else {
			for (k = i; k < stop; k++)
				jset32(m, &m->words[k], tailw);
		}
		if (ct != old_tail_cat) {
			jset16(m, &b->cnt[old_tail_cat], (uint16_t)(b->cnt[old_tail_cat] - cnt));
			jset16(m, &b->cnt[ct], (uint16_t)(b->cnt[ct] + cnt));
		}
		i = stop;
	}
}

/* ---- journal ------------------------------------------------------------------- */

int model_nomem(struct model *m, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	m->err = -BC_E_NOMEM;
	return bc_error(BC_E_NOMEM, "model: %s", msg);
}

void model_journal_push(struct model *m, void *p)
{
	struct jentry *e;

	if (m->err)
		return;		/* the journal has a hole already: rollback is refused */
	if (m->jr_len == m->jr_cap) {
		size_t cap = m->jr_cap ? m->jr_cap * 2 : 4096;
		struct jentry *n = model_fault(m, MODEL_FAULT_NOMEM) ? NULL :
				   realloc(m->jr, cap * sizeof(*n));

		if (!n) {
			/* Cannot journal: a rollback would be wrong, so none is allowed. */
			model_nomem(m, "out of memory in the undo journal");
			return;
		}
		m->jr = n;
		m->jr_cap = cap;
	}
	e = &m->jr[m->jr_len++];
	e->p = p;
	memcpy(&e->old, p, sizeof(e->old));
}

int model_range_error(const struct model *m, uint64_t start, uint64_t end)
{
	return bc_error(BC_E_INVAL, "model: pfns [%#llx, %#llx) are not a range inside the "
			"modelled pfns [%#llx, %#llx)", (unsigned long long)start,
			(unsigned long long)end, (unsigned long long)m->base,
			(unsigned long long)(m->base + m->span));
}

int model_refuse(void)
{
	return bc_error(BC_E_NOMEM, "model: out of memory earlier, the model is unusable");
}

int model_checkpoint(struct model *m)
{
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (m->nr_cp >= MAX_CHECKPOINTS)
		return bc_error(BC_E_INVAL, "model: more than %d nested checkpoints",
				MAX_CHECKPOINTS);
	m->cp_mark[m->nr_cp++] = m->jr_len;
	return 0;
}

int model_rollback(struct model *m)
{
	size_t mark;
	int ret = model_broken(m);

	if (ret)
		return ret;	/* the journal may have a hole: undoing it would be wrong */
	if (!m->nr_cp)
		return bc_error(BC_E_INVAL, "model: rollback without a checkpoint");
	mark = m->cp_mark[--m->nr_cp];
	while (m->jr_len > mark) {
		struct jentry *e = &m->jr[--m->jr_len];

		memcpy(e->p, &e->old, sizeof(e->old));
	}
	MODEL_ASSERT_EXPENSIVE(model_recount(m, NULL, 0) == 0);
	return 0;
}

int model_commit(struct model *m)
{
	int ret = model_broken(m);

	if (ret)
		return ret;
	if (!m->nr_cp)
		return bc_error(BC_E_INVAL, "model: commit without a checkpoint");
	m->nr_cp--;
	if (!m->nr_cp)
		m->jr_len = 0;
	return 0;
}

/* ---- anomalies ----------------------------------------------------------------- */

void model_anomaly(struct model *m, enum model_anomaly a, uint32_t idx, unsigned int order)
{
	struct anom *an = &m->an;
	uint32_t nr;

	/* page-level surprises on an uncertain page are explained by the lost events */
	if (idx < m->span && (m->words[idx] & W_UNCERTAIN) && a != MODEL_ANOM_PB_TYPE_LEARNED &&
	    a != MODEL_ANOM_REPORT_RETYPE && a != MODEL_ANOM_MT_MISMATCH)
		a = MODEL_ANOM_UNCERTAIN;
	jset64(m, &an->count[a], an->count[a] + 1);
	nr = an->nrec[a];
	if (nr < MODEL_ANOM_KEEP) {
		struct model_anomaly_rec *r = &an->rec[a][nr];

		r->seq = m->seq;
		r->ts = m->ts;
		r->pfn = idx_to_pfn(m, idx);
		r->order = order;
		jset32(m, &an->nrec[a], nr + 1);
	}
}

uint64_t model_anomaly_count(const struct model *m, enum model_anomaly a,
			     struct model_anomaly_rec *recs, unsigned int *nr_recs)
{
	if ((unsigned int)a >= MODEL_NR_ANOM)
		return 0;
	if (recs && nr_recs) {
		*nr_recs = m->an.nrec[a];
		memcpy(recs, m->an.rec[a], *nr_recs * sizeof(*recs));
	} else if (nr_recs) {
		*nr_recs = m->an.nrec[a];
	}
	return m->an.count[a];
}

uint64_t model_anomaly_total(const struct model *m)
{
	uint64_t t = 0;
	int a;

	for (a = 0; a < MODEL_NR_ANOM; a++)
		t += m->an.count[a];
	return t;
}

void model_set_options(struct model *m, unsigned int opts)
{
	m->opts = opts;
}

void model_set_migrate_hook(struct model *m,
			    void (*fn)(void *arg, uint64_t from, uint64_t to, unsigned int order),
			    void *arg)
{
	m->migrate_hook = fn;
	m->migrate_arg = arg;
}

unsigned int model_get_options(const struct model *m)
{
	return m->opts;
}

void model_set_event(struct model *m, uint64_t seq, uint64_t ts)
{
	m->seq = seq;
	m->ts = ts;
}

/* ---- creation ------------------------------------------------------------------ */

int model_idx_zone(const struct model *m, uint32_t idx)
{
	const struct pblock *b = pb_of(m, idx);
	unsigned int i;

	if (!(b->flags & PB_STRADDLE))
		return b->zone == PB_NOZONE ? -1 : b->zone;
	for (i = 0; i < m->nr_zones; i++)
		if (idx >= m->zones[i].istart && idx < m->zones[i].iend)
			return (int)i;
	return -1;
}

int model_pfn_zone(const struct model *m, uint64_t pfn)
{
	uint32_t idx;

	if (!pfn_to_idx(m, pfn, &idx))
		return -1;
	return model_idx_zone(m, idx);
}

uint64_t model_pfn_end(const struct model *m)
{
	uint64_t end = 0;
	unsigned int z;

	for (z = 0; z < m->layout.nr_zones; z++)
		if (m->layout.zones[z].start_pfn + m->layout.zones[z].spanned > end)
			end = m->layout.zones[z].start_pfn + m->layout.zones[z].spanned;
	return end;
}

int model_zone_of_name(const struct model *m, int nid, const char *name)
{
	unsigned int z;

	for (z = 0; z < m->layout.nr_zones; z++)
		if (m->layout.zones[z].nid == nid && !strcmp(m->layout.zones[z].name, name))
			return (int)z;
	return -1;
}

static int is_ram(const struct model_layout *l, uint64_t pfn, uint64_t *until)
{
	unsigned int i;
	uint64_t next = UINT64_MAX;

	if (!l->nr_ram) {
		*until = UINT64_MAX;
		return 1;
	}
	for (i = 0; i < l->nr_ram; i++) {
		if (pfn >= l->ram[i].start && pfn < l->ram[i].end) {
			*until = l->ram[i].end;
			return 1;
		}
		if (l->ram[i].start > pfn && l->ram[i].start < next)
			next = l->ram[i].start;
	}
	*until = next;
	return 0;
}

#define WORDS_PER_PAGE (4096 / sizeof(uint32_t))

/*
 * The words still 0 after the RAM was written are holes. A map page holding only
 * holes is mapped copy-on-write from one shared page of WT_HOLE words, so holes cost
 * no memory either (a write, which only a repair could do, gets a private copy). Other
 * hole words are written.
 */
static void map_holes(struct model *m)
{
	uint32_t *hole = NULL, pg, i, npages = (m->span + WORDS_PER_PAGE - 1) / WORDS_PER_PAGE;
	int fd = memfd_create("bigchunk-holes", MFD_CLOEXEC);

	if (fd >= 0 && !ftruncate(fd, 4096))
		hole = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (hole == MAP_FAILED)
		hole = NULL;
	if (hole)
		for (i = 0; i < WORDS_PER_PAGE; i++)
			hole[i] = wmake(WT_HOLE, 0);
	for (pg = 0; pg < npages; pg++) {
		uint32_t a = pg * WORDS_PER_PAGE, b = a + WORDS_PER_PAGE;

		if (b > m->span)
			b = m->span;
		for (i = a; i < b && !m->words[i]; i++)
			;
		if (i == b && b - a == WORDS_PER_PAGE && hole &&
		    mmap(&m->words[a], 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
			 fd, 0) != MAP_FAILED)
			continue;
		for (i = a; i < b; i++)
			if (!m->words[i])
				m->words[i] = wmake(WT_HOLE, 0);
	}
	if (hole)
		munmap(hole, 4096);
	if (fd >= 0)
		close(fd);
}

/*
 * Check @layout and find the pfn range to model, [*lo, *hi): aligned so that buddy
 * arithmetic on indices equals arithmetic on pfns.
 */
static int layout_span(const struct model_layout *layout, uint64_t *lo, uint64_t *hi)
{
	uint64_t align;
	unsigned int i;

	if (!layout || !layout->nr_zones || layout->nr_zones > MODEL_MAX_ZONES)
		return bc_error(BC_E_INVAL, "model: %u zones; 1 to %d are modelled",
				layout ? layout->nr_zones : 0, MODEL_MAX_ZONES);
	if (layout->nr_ram > MODEL_MAX_RAM)
		return bc_error(BC_E_INVAL, "model: %u System RAM ranges; at most %d are modelled",
				layout->nr_ram, MODEL_MAX_RAM);
	if (!layout->nr_cpus || layout->nr_cpus > (1u << 19))
		return bc_error(BC_E_INVAL, "model: %u CPUs; 1 to %u are modelled",
				layout->nr_cpus, 1u << 19);
	/*
	 * The pcp lists hold orders up to PAGE_ALLOC_COSTLY_ORDER and the pageblock
	 * order, filed as at most one pageblock: a smaller pageblock order would break
	 * that rule, so refuse it here rather than trip over it on an event.
	 */
	if (layout->max_page_order > MODEL_MAX_PAGE_ORDER ||
	    layout->pageblock_order < PCP_LOW_ORDERS - 1 ||
	    layout->pageblock_order > layout->max_page_order)
		return bc_error(BC_E_INVAL, "model: pageblock order %u, MAX_PAGE_ORDER %u: "
				"the model handles pageblock orders %u..MAX_PAGE_ORDER and "
				"MAX_PAGE_ORDER up to %u", layout->pageblock_order,
				layout->max_page_order, PCP_LOW_ORDERS - 1, MODEL_MAX_PAGE_ORDER);
	for (i = 0; i < layout->nr_ram; i++)
		if (layout->ram[i].start > layout->ram[i].end)
			return bc_error(BC_E_INVAL, "model: System RAM range %u is [%#llx, %#llx): "
					"its end is below its start", i,
					(unsigned long long)layout->ram[i].start,
					(unsigned long long)layout->ram[i].end);
	*lo = UINT64_MAX;
	*hi = 0;
	for (i = 0; i < layout->nr_zones; i++) {
		const struct model_zone_layout *z = &layout->zones[i];

		if (!z->spanned)
			continue;
		if (z->start_pfn < *lo)
			*lo = z->start_pfn;
		if (z->start_pfn + z->spanned > *hi)
			*hi = z->start_pfn + z->spanned;
		if (i && z->start_pfn < layout->zones[i - 1].start_pfn +
					layout->zones[i - 1].spanned)
			return bc_error(BC_E_INVAL, "model: zone %s [%#llx, %#llx) overlaps zone %s "
					"[%#llx, %#llx) or comes before it", z->name,
					(unsigned long long)z->start_pfn,
					(unsigned long long)(z->start_pfn + z->spanned),
					layout->zones[i - 1].name,
					(unsigned long long)layout->zones[i - 1].start_pfn,
					(unsigned long long)(layout->zones[i - 1].start_pfn +
							     layout->zones[i - 1].spanned));
	}
	if (*lo >= *hi)
		return bc_error(BC_E_INVAL, "model: every zone spans 0 pages");
	align = 1ull << 18;
	*lo &= ~(align - 1);
	*hi = (*hi + (1ull << layout->max_page_order) - 1) &
	      ~((1ull << layout->max_page_order) - 1);
	if (*hi - *lo > (1ull << 31))
		return bc_error(BC_E_INVAL, "model: layout spans %llu pfns, more than 2^31",
				(unsigned long long)(*hi - *lo));
	return 0;
}

/* The pfn map, the pageblocks and each zone's empty free and pcp lists. */
static int alloc_tables(struct model *m)
{
	unsigned int i, j, cpu_lists = m->nr_cpus * NR_PCP_LISTS;

	/*
	 * Anonymous zero pages: WT_UNINIT words are 0, so the map pages of memory that
	 * is not initialised yet (lazy struct-page init) can be given back
	 * (model_release_uninit()) and cost nothing until the memory grows.
	 */
	m->words = mmap(NULL, (size_t)m->span * sizeof(*m->words), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m->words == MAP_FAILED)
		m->words = NULL;
	m->pb = calloc(m->nr_pb, sizeof(*m->pb));
	if (!m->words || !m->pb)
		return -BC_E_NOMEM;
	for (i = 0; i < m->nr_zones; i++) {
		const struct model_zone_layout *zl = &m->layout.zones[i];
		struct mzone *z = &m->zones[i];

		z->start = zl->start_pfn;
		z->end = zl->start_pfn + zl->spanned;
		z->istart = zl->spanned ? (uint32_t)(z->start - m->base) : 0;
		z->iend = zl->spanned ? (uint32_t)(z->end - m->base) : 0;
		z->free = calloc((size_t)m->nr_orders * NR_IMT, sizeof(*z->free));
		z->pcp = calloc(cpu_lists, sizeof(*z->pcp));
		z->pcp_count = calloc(m->nr_cpus, sizeof(*z->pcp_count));
		if (!z->free || !z->pcp || !z->pcp_count)
			return -BC_E_NOMEM;
		for (j = 0; j < m->nr_orders * NR_IMT; j++)
			z->free[j].head = z->free[j].tail = NIL;
		for (j = 0; j < cpu_lists; j++)
			z->pcp[j].head = z->pcp[j].tail = NIL;
	}
	return 0;
}

/* Pageblocks: zone, straddle flag, MOVABLE (init_pageblock_migratetype()). */
static void init_pageblocks(struct model *m)
{
	unsigned int i;

	for (i = 0; i < m->nr_pb; i++) {
		m->pb[i].zone = PB_NOZONE;
		m->pb[i].mt = IMT_MOVABLE;
	}
	for (i = 0; i < m->nr_zones; i++) {
		struct mzone *z = &m->zones[i];
		uint32_t p;

		if (z->iend <= z->istart)
			continue;
		for (p = z->istart >> m->pb_order; p <= (z->iend - 1) >> m->pb_order; p++) {
			struct pblock *b = &m->pb[p];
			uint32_t bs = p << m->pb_order, be = bs + (1u << m->pb_order);

			if (b->zone != PB_NOZONE || bs < z->istart || be > z->iend)
				b->flags |= PB_STRADDLE;
			if (b->zone == PB_NOZONE)
				b->zone = (uint8_t)i;
		}
	}
}

/* Words: RAM inside a zone is "unknown, in use" until seeded; the rest holes. Then
 * the counters that follow from the words. */
static void init_words(struct model *m)
{
	unsigned int i;

	for (i = 0; i < m->nr_zones; i++) {
		struct mzone *z = &m->zones[i];
		uint64_t pfn = z->start;

		while (pfn < z->end) {
			uint64_t until, stop;
			int ram = is_ram(&m->layout, pfn, &until);

			stop = until < z->end ? until : z->end;
			if (ram) {
				uint32_t w = w_alloc(0, W_MT_UNKNOWN, MODEL_KIND_UNKNOWN,
						     MODEL_GFP_UNKNOWN, W_SEEDED) | W_UNCERTAIN;
				uint32_t k, b = (uint32_t)(stop - m->base);

				for (k = (uint32_t)(pfn - m->base); k < b; k++)
					m->words[k] = w;
			}
			pfn = stop;
		}
	}
	map_holes(m);
	for (i = 0; i < m->span; i++)
		m->pb[i >> m->pb_order].cnt[model_word_cat(m->words[i])]++;
	for (i = 0; i < m->span; i++)
		m->present_pfns += wtag(m->words[i]) != WT_HOLE;
	for (i = 0; i < m->nr_pb; i++) {
		struct pblock *b = &m->pb[i];
		uint32_t present = (1u << m->pb_order) - b->cnt[MODEL_PBC_HOLE];

		if (present && b->zone != PB_NOZONE)
			m->zones[b->zone].nr_pb[pb_eff_mt(b)]++;
	}
}

struct model *model_create(const struct model_layout *layout,
			   const struct model_profile *profile)
{
	struct model *m;
	uint64_t lo = 0, hi = 0;
	unsigned int i;

	if (layout_span(layout, &lo, &hi))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m) {
		bc_error(BC_E_NOMEM, "model: %m");
		return NULL;
	}
	m->layout = *layout;
	if (!m->layout.hugetlb_orders)	/* not known: x86_64's HUGETLB_PAGE_ORDER */
		m->layout.hugetlb_orders = 1u << layout->pageblock_order;
	if (profile)
		m->prof = *profile;
	else
		model_profile_from_release("6.18.0", layout->pageblock_order, &m->prof);
	m->base = lo;
	m->span = (uint32_t)(hi - lo);
	m->pb_order = layout->pageblock_order;
	m->max_order = layout->max_page_order;
	m->nr_orders = m->max_order + 1;
	m->nr_cpus = layout->nr_cpus;
	m->nr_zones = layout->nr_zones;
	m->pool_free = NIL;
	m->nr_pb = (m->span + (1u << m->pb_order) - 1) >> m->pb_order;
	if (alloc_tables(m)) {
		model_destroy(m);
		bc_error(BC_E_NOMEM, "model: cannot allocate the pfn map");
		return NULL;
	}
	for (i = 0; i < m->nr_zones; i++)
		m->zone_type[i] = (int8_t)model_zone_type_of_name(layout->zones[i].name);
	init_pageblocks(m);
	init_words(m);
	return m;
}

void model_destroy(struct model *m)
{
	unsigned int i;

	if (!m)
		return;
	for (i = 0; i < m->nr_zones; i++) {
		free(m->zones[i].free);
		free(m->zones[i].pcp);
		free(m->zones[i].pcp_count);
		if (m->dz)
			free(m->dz[i].dpcp);
	}
	free(m->dz);
	for (i = 0; i < m->nr_chunks; i++)
		free(m->chunks[i]);
	free(m->chunks);
	if (m->words)
		munmap(m->words, (size_t)m->span * sizeof(*m->words));
	free(m->pb);
	free(m->jr);
	free(m);
}

const struct model_layout *model_get_layout(const struct model *m)
{
	return &m->layout;
}

const struct model_profile *model_get_profile(const struct model *m)
{
	return &m->prof;
}

/* ---- queries ------------------------------------------------------------------- */

int model_pfn_info(const struct model *m, uint64_t pfn, struct model_pfn_info *out)
{
	uint32_t idx, head, w;

	memset(out, 0, sizeof(*out));
	out->mt = -1;
	out->cpu = -1;
	out->head = pfn;
	if (!pfn_to_idx(m, pfn, &idx))
		return -BC_E_NOENT;
	w = m->words[idx];
	out->uncertain = !!(w & W_UNCERTAIN);
	switch (wtag(w)) {
	case WT_HOLE:
		out->state = MODEL_PFN_HOLE;
		return 0;
	case WT_UNINIT:
		out->state = MODEL_PFN_UNINIT;
		return 0;
	case WT_BUDDY:
	case WT_FREE_TAIL:
	case WT_PCP: {
		const struct fnode *nd;

		if (!model_find_free_head(m, idx, &head))
			return -BC_E_FORMAT;
		nd = node_of(m, m->words[head] & W_PAYLOAD);
		out->state = (nd->info & FN_PCP) ? MODEL_PFN_PCP : MODEL_PFN_BUDDY;
		out->head = idx_to_pfn(m, head);
		out->order = nd->info & FN_ORDER_MASK;
		out->mt = model_imt_to_trace(m, (nd->info >> FN_MT_SHIFT) & 7);
		if (nd->info & FN_PCP)
			out->cpu = (int)(nd->info >> FN_CPU_SHIFT);
		return 0;
	}
	default:
		break;
	}
	out->state = MODEL_PFN_ALLOC;
	out->kind = w_kind(w);
	out->mt = w_mt(w) == W_MT_UNKNOWN ? -1 : model_imt_to_trace(m, (int)w_mt(w));
	if (model_find_alloc_head(m, idx, &head)) {
		uint32_t hw = m->words[head];

		out->head = idx_to_pfn(m, head);
		out->order = w_order(hw);
		out->gfp_class = w_gfp(hw);
		out->seeded = !!(hw & W_SEEDED);
		out->drained = !!(hw & W_DRAINED);
	} else {
		out->seeded = true;
		out->gfp_class = MODEL_GFP_UNKNOWN;
	}
	return 0;
}

int model_range_counts(const struct model *m, uint64_t start, uint64_t end,
		       struct model_range_counts *out)
{
	uint32_t s, e, i, pbn = 1u << m->pb_order;

	memset(out, 0, sizeof(*out));
	if (start >= end)
		return 0;
	if (start < m->base)
		start = m->base;
	if (end > m->base + m->span)
		end = m->base + m->span;
	if (start >= end)
		return 0;
	s = (uint32_t)(start - m->base);
	e = (uint32_t)(end - m->base);
	i = s;
	while (i < e) {
		const struct pblock *b = pb_of(m, i);
		uint32_t bs = i & ~(pbn - 1), be = bs + pbn;
		int c, t;

		if (i == bs && be <= e) {
			for (c = 0; c < MODEL_NR_PBC; c++)
				out->pages[c] += b->cnt[c];
		} else {
			uint32_t stop = be < e ? be : e, k;

			for (k = i; k < stop; k++) {
				uint32_t h;
				enum model_pb_counter c2 = model_word_cat(m->words[k]);

				/* pcp tails are free words counted as pcp */
				if (wtag(m->words[k]) == WT_FREE_TAIL &&
				    model_find_free_head(m, k, &h) == WT_PCP)
					c2 = MODEL_PBC_PCP;
				out->pages[c2]++;
			}
		}
		if (b->cnt[MODEL_PBC_HOLE] < pbn) {
			t = model_imt_to_trace(m, pb_eff_mt(b));
			if (t >= 0 && t < 8)
				out->pageblocks[t]++;
			if (b->flags & PB_ISOLATE)
				out->isolated_pageblocks++;
		}
		i = be;
	}
	return 0;
}

int model_pageblock_mt(const struct model *m, uint64_t pfn, int *stored, int *effective,
		       bool *isolated)
{
	uint32_t idx;
	const struct pblock *b;

	if (!pfn_to_idx(m, pfn, &idx))
		return -BC_E_NOENT;
	b = pb_of(m, idx);
	if (stored)
		*stored = model_imt_to_trace(m, b->mt);
	if (effective)
		*effective = model_imt_to_trace(m, pb_eff_mt(b));
	if (isolated)
		*isolated = !!(b->flags & PB_ISOLATE);
	return 0;
}

int model_zone_stats(const struct model *m, unsigned int zone, struct model_zone_stats *out)
{
	const struct mzone *z;
	unsigned int o, t, c;

	memset(out, 0, sizeof(*out));
	if (zone >= m->nr_zones)
		return -BC_E_NOENT;
	z = &m->zones[zone];
	for (o = 0; o < m->nr_orders && o < 16; o++)
		for (t = 0; t < NR_IMT; t++) {
			int tr = model_imt_to_trace(m, (int)t);

			if (tr >= 0)
				out->nr_free[o][tr] += z->free[o * NR_IMT + t].count;
		}
	for (t = 0; t < NR_IMT; t++) {
		int tr = model_imt_to_trace(m, (int)t);

		if (t == IMT_ISOLATE)
			out->isolated_free_pages += z->free_pages[t];
		else
			out->free_pages += z->free_pages[t];
		if (tr >= 0)
			out->pageblocks[tr] += z->nr_pb[t];
	}
	out->nr_isolate_pageblock = z->nr_pb[IMT_ISOLATE];
	for (c = 0; c < m->nr_cpus; c++)
		out->pcp_pages += z->pcp_count[c];
	return 0;
}

void model_count_pageblocks(const struct model *m, unsigned int zone, uint64_t out[8])
{
	uint64_t pb = 1ull << m->pb_order, pfn, zend;
	const struct model_zone_layout *z;

	memset(out, 0, 8 * sizeof(*out));
	if (zone >= m->nr_zones)
		return;
	z = &m->layout.zones[zone];
	zend = z->start_pfn + z->spanned;
	for (pfn = z->start_pfn & ~(pb - 1); pfn < zend; pfn += pb) {
		uint64_t from = pfn < z->start_pfn ? z->start_pfn : pfn;
		uint64_t to = pfn + pb > zend ? zend : pfn + pb;
		struct model_range_counts rc;
		int stored, eff;
		bool iso;

		if (model_range_counts(m, from, to, &rc) ||
		    rc.pages[MODEL_PBC_HOLE] + rc.pages[MODEL_PBC_UNINIT] >= to - from)
			continue;
		if (model_pageblock_mt(m, from, &stored, &eff, &iso) || eff < 0 || eff >= 8)
			continue;
		out[eff]++;
	}
}

/*
 * Bytes of the pfn map in pages holding a word other than 0 (uninitialised, released)
 * and WT_HOLE (the shared hole page).
 */
static size_t map_resident(const struct model *m)
{
	const uint32_t per = WORDS_PER_PAGE, holew = wmake(WT_HOLE, 0);
	size_t bytes = 0;
	uint32_t pg, i;

	for (pg = 0; pg < (m->span + per - 1) / per; pg++) {
		uint32_t end = (pg + 1) * per < m->span ? (pg + 1) * per : m->span;

		for (i = pg * per; i < end; i++)
			if (m->words[i] && m->words[i] != holew) {
				bytes += 4096;
				break;
			}
	}
	return bytes;
}

void model_release_uninit(struct model *m, uint32_t idx, uint32_t n)
{
	const uint32_t per = 4096 / sizeof(*m->words);
	uint32_t pg = (idx + per - 1) / per, last = (idx + n) / per, i;

	for (; pg < last; pg++) {
		for (i = pg * per; i < (pg + 1) * per; i++)
			if (m->words[i])
				break;
		if (i == (pg + 1) * per)
			madvise(&m->words[pg * per], 4096, MADV_DONTNEED);
	}
}

void model_get_stats(const struct model *m, struct model_stats *out)
{
	unsigned int i;
	size_t bytes = sizeof(*m);

	memset(out, 0, sizeof(*out));
	out->ops = m->ops;
	out->alloc_failed = m->alloc_failed;
	out->init_pages = m->init_pages;
	out->implicit_claims = m->implicit_claims;
	out->hugetlb_allocs = m->hugetlb_allocs;
	out->unknown_settled = m->unknown_settled;
	out->nopcp_frees = m->nopcp_frees;
	out->guess_fixes = m->guess_fixes;
	out->bulk_allocs = m->bulk_allocs;
	for (i = 0; i < m->nr_pb; i++)
		out->pb_guessed += (m->pb[i].flags & PB_GUESS) && m->pb[i].zone != PB_NOZONE &&
				   m->pb[i].cnt[MODEL_PBC_HOLE] + m->pb[i].cnt[MODEL_PBC_UNINIT] <
				   (1u << m->pb_order);
	out->pool_nodes = m->pool_used;
	bytes += map_resident(m);
	bytes += (size_t)m->nr_pb * sizeof(*m->pb);
	bytes += (size_t)m->nr_chunks * POOL_CHUNK * sizeof(struct fnode) +
		 (size_t)m->cap_chunks * sizeof(struct fnode *);
	for (i = 0; i < m->nr_zones; i++)
		bytes += (size_t)m->nr_orders * NR_IMT * sizeof(struct flist) +
			 (size_t)m->nr_cpus * (NR_PCP_LISTS * sizeof(struct flist) + 4);
	out->bytes = bytes;
	out->journal_bytes = m->jr_cap * sizeof(struct jentry);
	out->spanned_pfns = m->span;
	out->bytes_per_pfn = (double)bytes / (double)m->span;
	out->present_pfns = m->present_pfns;
	out->bytes_per_present_pfn = m->present_pfns ? (double)bytes / (double)m->present_pfns : 0;
	out->map_bytes_full = (size_t)m->span * sizeof(*m->words);
}

void model_dump_pfn(const struct model *m, unsigned long long pfn, const char *why,
		    const char *file, int line)
{
	uint32_t idx;

	fprintf(stderr, "model: %s:%d: %s\n", file, line, why);
	if (!m || !pfn_to_idx(m, pfn, &idx))
		return;
	{
		const struct pblock *b = pb_of(m, idx);
		uint32_t w = m->words[idx];

		fprintf(stderr, "  pfn %#llx word %#x tag %u payload %#x; pageblock mt %u flags %#x "
			"zone %u free %u pcp %u mov %u unmov %u\n", pfn, w, wtag(w), w & W_PAYLOAD,
			b->mt, b->flags, b->zone, b->cnt[MODEL_PBC_FREE], b->cnt[MODEL_PBC_PCP],
			b->cnt[MODEL_PBC_MOVABLE], b->cnt[MODEL_PBC_UNMOVABLE]);
	}
}
