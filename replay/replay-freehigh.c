// SPDX-License-Identifier: GPL-2.0
/*
 * replay-freehigh: before 6.7, a freed order 1-3 page that went past the pcp list.
 *
 * free_unref_page_commit() (6.0-6.6) sets free_high when pcp->free_factor is non-zero
 * and the freed page is of order 1-3: nr_pcp_high() is then 0 and nr_pcp_free() the
 * whole list, so such a free on the pcp list is followed at once by the drain of every
 * page the cpu holds of that zone (mm_page_pcpu_drain, the freed block among them).
 * free_factor grows by one with each drain of the free path (nr_pcp_free(), without
 * an allocation between) and halves with each pcp allocation (rmqueue_pcplist()).
 *
 * The pcp lock of the free path is taken with interrupts on (pcp_spin_trylock(); only
 * free_pcppages_bulk()'s zone lock turns them off), so the interrupt that waited out a
 * long drain runs at its end, still inside the lock: its softirq's frees (RCU-freed slab
 * pages) fail the trylock and go to the buddy (free_one_page(), no drain event). Seen
 * on 6.1 in QEMU: 2,016 pages drained after an order-0 free, then 167 frees (order-1
 * slab pages and order-0 ones, in turns) with no drain after any order-1 one; the end
 * snapshot had them merged in the buddy (an order-10 block) while the model held them
 * on the pcp list.
 *
 * So: an order 1-3 free while free_factor is set, with no drain of its zone as the
 * cpu's next event, went to the buddy; so did every free of that zone the cpu made
 * since the drain or the last such free, if within RP_FH_GAP_NS of it (the lock was
 * held throughout: the holder cannot run while the interrupt does). Each is moved from
 * the pcp list to the buddy as a drain would, counted with the trylock failures found
 * later (rp->trylock_late).
 */
#include <stdint.h>
#include <string.h>

#include "model/decide.h"
#include "model/model.h"
#include "replay/replay-local.h"

#define RP_FH_GAP_NS		1000000ull

enum { FH_OTHER, FH_FREE, FH_DRAIN };

static struct rp_free_high *fh_of(struct replay *rp, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < rp->nr_batch ? &rp->batch[cpu].fh : NULL;
}

bool rp_free_high_applies(const struct replay *rp)
{
	return model_get_profile(rp->m)->version < MODEL_KVER(6, 7, 0);
}

/* No episode open: the lock holder runs again (or never was interrupted). */
static void end_episode(struct rp_free_high *f)
{
	f->ep_open = false;
	f->n_cand = 0;
}

/* The pending free went past the list, and with it the episode's frees so far. */
static int bypassed(struct replay *rp, struct rp_free_high *f, int cpu, uint64_t ts)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < f->n_cand && !ret; i++)
		ret = rp_pcp_past_list(rp, f->cand_pfn[i], f->cand_order[i], cpu);
	if (!ret)
		ret = rp_pcp_past_list(rp, f->pending_pfn, f->pending_order, cpu);
	f->n_cand = 0;
	f->pending = false;
	f->ep_open = true;
	f->ep_zone = f->pending_zone;
	f->ep_ts = ts;
	return ret;
}

int rp_free_high_before(struct replay *rp, const struct tr_event *ev)
{
	struct rp_free_high *f = fh_of(rp, ev->cpu);
	int zone;

	if (!f || !f->pending)
		return 0;
	zone = ev->pfn != UINT64_MAX ? model_pfn_zone(rp->m, ev->pfn) : -1;
	if (ev->kind == TR_EV_PCPU_DRAIN && zone == f->pending_zone) {
		/* free_high: the whole list drains; nr_pcp_free() leaves free_factor */
		f->pending = false;
		f->burst_high = true;
		end_episode(f);
		return 0;
	}
	return bypassed(rp, f, ev->cpu, ev->ts);
}

static bool pcp_order(const struct replay *rp, unsigned int order)
{
	return order <= 3 || order == rp->layout.pageblock_order;
}

void rp_free_high_after(struct replay *rp, const struct tr_event *ev)
{
	struct rp_free_high *f = fh_of(rp, ev->cpu);
	int zone = ev->pfn != UINT64_MAX ? model_pfn_zone(rp->m, ev->pfn) : -1;
	int prev = f ? f->prev : FH_OTHER;

	if (!f)
		return;
	if (zone < 0 || zone >= RP_FH_ZONES) {
		f->prev = FH_OTHER;
		return;
	}
	switch (ev->kind) {
	case TR_EV_PCPU_DRAIN:
		if (prev != FH_DRAIN) {
			/* a burst of the free path: its cpu's free of the zone just before */
			if (prev == FH_FREE && f->prev_zone == zone && !f->burst_high &&
			    f->ff[zone] < PCP_BATCH_SCALE_MAX)
				f->ff[zone]++;
			f->ep_open = true;
			f->ep_zone = (int8_t)zone;
			f->n_cand = 0;
		}
		if (f->ep_open && f->ep_zone == zone)
			f->ep_ts = ev->ts;
		f->prev = FH_DRAIN;
		break;
	case TR_EV_FREE_BATCHED:
		/* free_unref_page_list() commits: the task runs, no interrupt does */
		end_episode(f);
		/* fall through */
	case TR_EV_PAGE_FREE:
		f->burst_high = false;
		f->prev = FH_FREE;
		f->prev_zone = (int8_t)zone;
		if (ev->kind == TR_EV_FREE_BATCHED || ev->order > 3)
			break;
		if (f->ep_open && (f->ep_zone != zone || ev->ts - f->ep_ts >= RP_FH_GAP_NS))
			end_episode(f);
		if (ev->order && f->ff[zone]) {
			f->pending = true;
			f->pending_zone = (int8_t)zone;
			f->pending_pfn = ev->pfn;
			f->pending_order = ev->order;
		} else if (f->ep_open) {
			if (f->n_cand < RP_FH_CAND) {
				f->cand_pfn[f->n_cand] = ev->pfn;
				f->cand_order[f->n_cand++] = (uint8_t)ev->order;
			} else {
				end_episode(f);
			}
		}
		break;
	case TR_EV_PAGE_ALLOC:
		/* rmqueue_pcplist(): free_factor >>= 1 */
		if (pcp_order(rp, ev->order))
			f->ff[zone] >>= 1;
		/* fall through */
	default:
		f->burst_high = false;
		end_episode(f);
		f->prev = FH_OTHER;
		break;
	}
}
