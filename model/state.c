// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - a copy of the model's state (model_state_save(), model.h), for what-if
 * work too large for the undo journal: a journal entry per changed word costs 16
 * bytes and an undo, a copy costs the state's size once and a restore compares.
 *
 * The pfn map is copied per map page: a page of 0 words (uninitialised, maybe never
 * touched) or of WT_HOLE words (maybe the shared hole page) is recorded as such, not
 * copied; a restore writes back only the pages that differ, so untouched map pages
 * stay unmapped or shared.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model/model-local.h"

#define MAP_PAGE_WORDS	(4096 / sizeof(uint32_t))
#define PG_ZERO		0u		/* every word 0 */
#define PG_HOLE		1u		/* every word WT_HOLE */
#define PG_COPY		2u		/* copy number slot - PG_COPY */

struct model_state {
	size_t bytes;			/* held by the copy */
	struct model m;			/* the struct itself (scalars, counters, anomalies) */
	uint32_t *pg;			/* [map pages]: PG_ZERO, PG_HOLE or PG_COPY + copy */
	uint32_t *copies;		/* the copied map pages */
	struct pblock *pb;
	struct fnode *nodes;		/* [m.pool_top] */
	struct flist *lists[MODEL_MAX_ZONES];	/* free lists, then pcp lists */
	uint32_t *pcp_count[MODEL_MAX_ZONES];
	struct dzone *dz;		/* NULL when m.dz was */
	struct dpcp *dpcp[MODEL_MAX_ZONES];	/* NULL when not allocated */
};

static size_t nr_map_pages(const struct model *m)
{
	return ((size_t)m->span + MAP_PAGE_WORDS - 1) / MAP_PAGE_WORDS;
}

static size_t nr_lists(const struct model *m)
{
	return (size_t)m->nr_orders * NR_IMT + (size_t)m->nr_cpus * NR_PCP_LISTS;
}

/* Words [a, b) all @w? */
static bool all_words(const uint32_t *p, size_t n, uint32_t w)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != w)
			return false;
	return true;
}

static int save_map(const struct model *m, struct model_state *s)
{
	size_t np = nr_map_pages(m), pg, ncopy = 0, cap = 0;
	const uint32_t holew = wmake(WT_HOLE, 0);

	s->pg = malloc(np * sizeof(*s->pg));
	if (!s->pg)
		return -BC_E_NOMEM;
	for (pg = 0; pg < np; pg++) {
		size_t a = pg * MAP_PAGE_WORDS, n = m->span - a < MAP_PAGE_WORDS ?
						     m->span - a : MAP_PAGE_WORDS;
		const uint32_t *w = &m->words[a];

		if (all_words(w, n, 0)) {
			s->pg[pg] = PG_ZERO;
			continue;
		}
		if (all_words(w, n, holew)) {
			s->pg[pg] = PG_HOLE;
			continue;
		}
		if (ncopy == cap) {
			size_t nc = cap ? 2 * cap : 64;
			uint32_t *c = realloc(s->copies, nc * MAP_PAGE_WORDS * sizeof(*c));

			if (!c)
				return -BC_E_NOMEM;
			s->copies = c;
			cap = nc;
		}
		memcpy(&s->copies[ncopy * MAP_PAGE_WORDS], w, n * sizeof(*w));
		s->bytes += MAP_PAGE_WORDS * sizeof(*w);
		s->pg[pg] = (uint32_t)(PG_COPY + ncopy++);
	}
	return 0;
}

static void *dup_mem(const void *p, size_t n)
{
	void *d = malloc(n ? n : 1);

	if (d && n)
		memcpy(d, p, n);
	return d;
}

static int save_pool(const struct model *m, struct model_state *s)
{
	uint32_t i;

	s->nodes = malloc(((size_t)m->pool_top + 1) * sizeof(*s->nodes));
	if (!s->nodes)
		return -BC_E_NOMEM;
	for (i = 0; i < m->pool_top; i += POOL_CHUNK) {
		uint32_t n = m->pool_top - i < POOL_CHUNK ? m->pool_top - i : POOL_CHUNK;

		memcpy(&s->nodes[i], m->chunks[i >> POOL_CHUNK_SHIFT], n * sizeof(*s->nodes));
	}
	return 0;
}

static int save_zones(const struct model *m, struct model_state *s)
{
	size_t fl = (size_t)m->nr_orders * NR_IMT, pl = (size_t)m->nr_cpus * NR_PCP_LISTS;
	unsigned int i;

	for (i = 0; i < m->nr_zones; i++) {
		const struct mzone *z = &m->zones[i];

		s->lists[i] = malloc(nr_lists(m) * sizeof(struct flist));
		s->pcp_count[i] = dup_mem(z->pcp_count, m->nr_cpus * sizeof(*z->pcp_count));
		if (!s->lists[i] || !s->pcp_count[i])
			return -BC_E_NOMEM;
		memcpy(s->lists[i], z->free, fl * sizeof(struct flist));
		memcpy(s->lists[i] + fl, z->pcp, pl * sizeof(struct flist));
	}
	if (!m->dz)
		return 0;
	s->dz = dup_mem(m->dz, m->nr_zones * sizeof(*m->dz));
	if (!s->dz)
		return -BC_E_NOMEM;
	for (i = 0; i < m->nr_zones; i++)
		if (m->dz[i].dpcp) {
			s->dpcp[i] = dup_mem(m->dz[i].dpcp, m->nr_cpus * sizeof(struct dpcp));
			if (!s->dpcp[i])
				return -BC_E_NOMEM;
		}
	return 0;
}

int model_state_save(const struct model *m, struct model_state **out)
{
	struct model_state *s;
	int ret = model_broken(m);

	*out = NULL;
	if (ret)
		return ret;
	if (m->nr_cp)
		return bc_error(BC_E_INVAL, "model: state saved inside a checkpoint");
	s = calloc(1, sizeof(*s));
	if (!s)
		return bc_error(BC_E_NOMEM, "model: out of memory for a copy of the state");
	s->m = *m;
	s->pb = dup_mem(m->pb, m->nr_pb * sizeof(*m->pb));
	ret = s->pb ? 0 : -BC_E_NOMEM;
	if (!ret)
		ret = save_map(m, s);
	if (!ret)
		ret = save_pool(m, s);
	if (!ret)
		ret = save_zones(m, s);
	if (ret) {
		model_state_free(s);
		return bc_error(BC_E_NOMEM, "model: out of memory for a copy of the state");
	}
	s->bytes += sizeof(*s) + nr_map_pages(m) * sizeof(*s->pg) + m->nr_pb * sizeof(*m->pb) +
		    (size_t)m->pool_top * sizeof(*s->nodes) +
		    m->nr_zones * (nr_lists(m) * sizeof(struct flist) + m->nr_cpus * 4);
	if (m->dz)
		s->bytes += m->nr_zones * (sizeof(*m->dz) + m->nr_cpus * sizeof(struct dpcp));
	*out = s;
	return 0;
}

static void restore_map(struct model *m, const struct model_state *s)
{
	size_t np = nr_map_pages(m), pg;
	const uint32_t holew = wmake(WT_HOLE, 0);

	for (pg = 0; pg < np; pg++) {
		size_t a = pg * MAP_PAGE_WORDS, n = m->span - a < MAP_PAGE_WORDS ?
						     m->span - a : MAP_PAGE_WORDS, i;
		uint32_t *w = &m->words[a];
		const uint32_t *c;

		switch (s->pg[pg]) {
		case PG_ZERO:
			if (all_words(w, n, 0))
				break;
			/* given back as model_release_uninit() does; a page mapped from the
			 * shared hole page would read holes again, so look */
			if (n == MAP_PAGE_WORDS && !madvise(w, 4096, MADV_DONTNEED) &&
			    all_words(w, n, 0))
				break;
			memset(w, 0, n * sizeof(*w));
			break;
		case PG_HOLE:
			if (!all_words(w, n, holew))
				for (i = 0; i < n; i++)
					w[i] = holew;
			break;
		default:
			c = &s->copies[(size_t)(s->pg[pg] - PG_COPY) * MAP_PAGE_WORDS];
			if (memcmp(w, c, n * sizeof(*w)))
				memcpy(w, c, n * sizeof(*w));
			break;
		}
	}
}

static void restore_zones(struct model *m, const struct model_state *s)
{
	size_t fl = (size_t)m->nr_orders * NR_IMT, pl = (size_t)m->nr_cpus * NR_PCP_LISTS;
	unsigned int i;

	for (i = 0; i < m->nr_zones; i++) {
		struct mzone *z = &m->zones[i];

		memcpy(z->free, s->lists[i], fl * sizeof(struct flist));
		memcpy(z->pcp, s->lists[i] + fl, pl * sizeof(struct flist));
		memcpy(z->pcp_count, s->pcp_count[i], m->nr_cpus * sizeof(*z->pcp_count));
	}
	/* the pcp tuning: as saved; allocated since, it goes back to its boot zeroes */
	if (!m->dz)
		return;
	for (i = 0; i < m->nr_zones; i++) {
		struct dzone *d = &m->dz[i];
		struct dpcp *dp = d->dpcp;

		if (s->dz) {
			*d = s->dz[i];
			d->dpcp = dp;
		}
		if (dp && s->dpcp[i])
			memcpy(dp, s->dpcp[i], m->nr_cpus * sizeof(*dp));
		else if (dp)
			memset(dp, 0, m->nr_cpus * sizeof(*dp));
	}
}

int model_state_restore(struct model *m, const struct model_state *s)
{
	struct model keep = *m;
	unsigned int z;
	uint32_t i;

	if (m->nr_cp)
		return bc_error(BC_E_INVAL, "model: state restored inside a checkpoint");
	if (s->m.span != m->span || s->m.nr_pb != m->nr_pb || s->m.nr_zones != m->nr_zones ||
	    s->m.nr_cpus != m->nr_cpus || s->m.nr_orders != m->nr_orders ||
	    s->m.pool_top > (uint64_t)m->nr_chunks * POOL_CHUNK)
		return bc_error(BC_E_INVAL, "model: a saved state of another model");
	/*
	 * The struct as saved, but for what is not state: the buffers (map, pageblocks,
	 * lists, node chunks, pcp tuning: their contents are restored below), the hooks
	 * and options, the current event and the journal.
	 */
	*m = s->m;
	m->words = keep.words;
	m->pb = keep.pb;
	for (z = 0; z < m->nr_zones; z++) {
		m->zones[z].free = keep.zones[z].free;
		m->zones[z].pcp = keep.zones[z].pcp;
		m->zones[z].pcp_count = keep.zones[z].pcp_count;
	}
	m->dz = keep.dz;
	m->chunks = keep.chunks;
	m->nr_chunks = keep.nr_chunks;
	m->cap_chunks = keep.cap_chunks;
	m->migrate_hook = keep.migrate_hook;
	m->migrate_arg = keep.migrate_arg;
	m->seq = keep.seq;
	m->ts = keep.ts;
	m->opts = keep.opts;
	m->jr = keep.jr;
	m->jr_len = keep.jr_len;
	m->jr_cap = keep.jr_cap;
	m->nr_cp = keep.nr_cp;
	memcpy(m->cp_mark, keep.cp_mark, sizeof(m->cp_mark));

	restore_map(m, s);
	memcpy(m->pb, s->pb, m->nr_pb * sizeof(*m->pb));
	for (i = 0; i < s->m.pool_top; i += POOL_CHUNK) {
		uint32_t n = s->m.pool_top - i < POOL_CHUNK ? s->m.pool_top - i : POOL_CHUNK;

		memcpy(m->chunks[i >> POOL_CHUNK_SHIFT], &s->nodes[i], n * sizeof(*s->nodes));
	}
	restore_zones(m, s);
	MODEL_ASSERT_EXPENSIVE(model_recount(m, NULL, 0) == 0);
	return 0;
}

size_t model_state_bytes(const struct model_state *s)
{
	return s->bytes;
}

void model_state_free(struct model_state *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < MODEL_MAX_ZONES; i++) {
		free(s->lists[i]);
		free(s->pcp_count[i]);
		free(s->dpcp[i]);
	}
	free(s->dz);
	free(s->nodes);
	free(s->pb);
	free(s->copies);
	free(s->pg);
	free(s);
}
