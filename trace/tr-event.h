/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tr-event: what a stored event means. One decoder for every consumer (replay,
 * predict, checkers): an event type is recognised by its system AND name, and its
 * fields are found by name in the stored format (event_fields), once per type, so
 * older layouts decode too. A page-event layout without a pfn (the pre-4.x 'page'
 * pointer) cannot be placed and is decoded as TR_EV_OTHER; tr_decoder_rejected()
 * names those types so the command can say so.
 */
#ifndef BC_TR_EVENT_H
#define BC_TR_EVENT_H

#include <stdbool.h>
#include <stdint.h>

struct tdb;
struct bc_event;
struct tdb_event_type;

/* What an event means to the model. Stable numbers. */
#define TR_EVENT_KINDS							\
	_R(OTHER,		"other")	/* stored, not modelled */	\
	_R(PAGE_ALLOC,		"mm_page_alloc")				\
	_R(PAGE_FREE,		"mm_page_free")					\
	_R(FREE_BATCHED,	"mm_page_free_batched")				\
	_R(ZONE_LOCKED,		"mm_page_alloc_zone_locked")			\
	_R(PCPU_DRAIN,		"mm_page_pcpu_drain")				\
	_R(EXTFRAG,		"mm_page_alloc_extfrag")			\
	_R(MIGRATE_START,	"mm_migrate_pages_start")			\
	_R(MIGRATE_END,		"mm_migrate_pages")				\
	_R(TEST_ISOLATED,	"test_pages_isolated")				\
	_R(ISOLATE_MIGRATE,	"mm_compaction_isolate_migratepages")		\
	_R(ISOLATE_FREE,	"mm_compaction_isolate_freepages")		\
	_R(VMSTAT_UPDATE,	"vmstat_update")	/* workqueue_execute_start */

#define _R(k, s) TR_EV_##k,
enum tr_event_kind { TR_EVENT_KINDS TR_NR_EVENT_KINDS };
#undef _R
/* The event's name ("mm_page_alloc"), "other", or "?" out of range. */
const char *tr_event_kind_name(enum tr_event_kind k);

/* Migrate reasons of the running kernel (migrate:mm_migrate_pages 'reason'). */
enum { TR_MR_COMPACTION = 0, TR_MR_MEMORY_HOTPLUG = 2, TR_MR_CONTIG_RANGE = 6 };

/* One event, decoded by field name. Fields an event lacks are 0 / -1. */
struct tr_event {
	enum tr_event_kind kind;
	const struct bc_event *raw;	/* borrowed, valid while the raw event is */
	uint64_t seq, ts;
	int cpu, pid;
	uint64_t pfn;			/* UINT64_MAX when none / failed alloc */
	unsigned int order;		/* extfrag: alloc_order */
	int mt;				/* migratetype field; extfrag: alloc_migratetype */
	uint64_t gfp;
	bool percpu_refill;		/* zone_locked */
	unsigned int fallback_order;	/* extfrag: order of the block taken */
	int fallback_mt;		/* -1 when none */
	bool change_ownership;
	uint64_t start_pfn, end_pfn, fin_pfn;	/* test_pages_isolated, compaction isolate */
	uint64_t nr_scanned, nr_taken;		/* compaction isolate */
	uint64_t succeeded, failed;		/* mm_migrate_pages */
	int reason, mode;			/* migrate; -1 when none */
};

struct tr_decoder;

/**
 * tr_decoder_create() - the decoding table of @db's event types.
 * Return: 0 and *@out (caller frees with tr_decoder_destroy()), or a negative bc_err.
 */
int tr_decoder_create(struct tdb *db, struct tr_decoder **out);
void tr_decoder_destroy(struct tr_decoder *d);

/* Decode @raw into @ev (types the table does not know decode as TR_EV_OTHER). */
void tr_decode(const struct tr_decoder *d, const struct bc_event *raw, struct tr_event *ev);

/* tr_decode() of the fields a page event's request needs (kind, seq, ts, cpu, pid,
 * pfn, order, mt, gfp); the others are left as they were. Not for extfrag events. */
void tr_decode_page(const struct tr_decoder *d, const struct bc_event *raw,
		    struct tr_event *ev);

/* Does the capture hold an event of @kind (a type of it with at least one event)? */
bool tr_decoder_has(const struct tr_decoder *d, enum tr_event_kind kind);

/* The kind of event type @type without decoding (TR_EV_OTHER for unknown ids). */
enum tr_event_kind tr_decoder_kind(const struct tr_decoder *d, unsigned int type);

/* The @i-th page-event type rejected for want of a pfn field (borrowed), NULL past
 * the last. */
const struct tdb_event_type *tr_decoder_rejected(const struct tr_decoder *d, int i);

#endif
