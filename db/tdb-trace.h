/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdb-trace: reading the tables that go with the events (db/README.md): markers,
 * lost_events, comms, stacks, probes and probe_pages, and the time index of
 * event_chunks. Rows come back as stored; trace/ gives them meaning. Every array
 * returned is malloc'ed: the caller frees it (tdb_markers_free() for markers).
 */
#ifndef BC_TDB_TRACE_H
#define BC_TDB_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdb;

/* A markers row. */
struct tdb_marker {
	uint64_t seq, ts;
	int cpu;
	char *text;			/* owned by the array, see tdb_markers_free() */
};

/**
 * tdb_markers() - markers with seq in [@seq_from, @seq_to] whose text is LIKE @like
 * (an SQL pattern; NULL: all), ordered by seq, then ts.
 * Return: 0 and *@out, *@nr (caller frees with tdb_markers_free()), or a negative bc_err.
 */
int tdb_markers(struct tdb *db, uint64_t seq_from, uint64_t seq_to, const char *like,
		struct tdb_marker **out, int *nr);
void tdb_markers_free(struct tdb_marker *m, int nr);
/* All markers whose text is LIKE @like (NULL: all), by ts, then seq; as tdb_markers(). */
int tdb_markers_by_ts(struct tdb *db, const char *like, struct tdb_marker **out, int *nr);

/**
 * tdb_marker_find() - the first marker whose text begins with @prefix, by ts then seq
 * (@by_ts) or by seq alone.
 * Return: 1 and *@seq, *@ts; 0 when none; or a negative bc_err.
 */
int tdb_marker_find(struct tdb *db, const char *prefix, bool by_ts, uint64_t *seq,
		    uint64_t *ts);

/* A lost_events row: @count events of @cpu were lost just before event @seq. */
struct tdb_lost {
	uint64_t seq;
	int cpu;
	int64_t count;			/* 0: the kernel said "some", not how many */
};

/* All lost_events rows by seq. Return: 0 and *@out, *@nr, or a negative bc_err. */
int tdb_lost_list(struct tdb *db, struct tdb_lost **out, int *nr);

/**
 * tdb_chunk_seq_at() - the first seq of the first event chunk that ends at or after
 * @ts: events at @ts or later begin there. *@seq = 0 when no chunk does.
 */
int tdb_chunk_seq_at(struct tdb *db, uint64_t ts, uint64_t *seq);

/**
 * tdb_seq_at_ts() - the seq of the first event with ts >= @t (@strict: ts > @t), found
 * through the chunk index: the seq after that chunk when no event of it qualifies, 0
 * when no chunk starts before @t. Call tdb_flush() first on a capture being written.
 * Return: 0 and *@seq, or a negative bc_err.
 */
int tdb_seq_at_ts(struct tdb *db, int64_t t, bool strict, int64_t *seq);

/* ts of the first and of the last stored event; -BC_E_NOENT when there is none. */
int tdb_ts_bounds(struct tdb *db, uint64_t *first, uint64_t *last);

/* Task name of @pid into @buf ("" when unknown). */
int tdb_comm(struct tdb *db, int pid, char *buf, size_t size);
/* Kernel stack of event @seq: *@frames malloc'ed (caller frees), NULL when none. */
int tdb_stack(struct tdb *db, uint64_t seq, char **frames);

/* A probes row (schema version 2; captures without the table have none). */
struct tdb_probe {
	int64_t id;
	char kind[16];			/* "hugetlb_1g", "offline" */
	int64_t requested, obtained;
	bool success;
	int64_t start_pfn, end_pfn;	/* -1 when NULL */
	int64_t culprit_pfn;		/* -1 when NULL */
	char culprit[64];		/* "" when NULL */
};

/* All probes by id. Return: 0 and *@out, *@nr, or a negative bc_err. */
int tdb_probes(struct tdb *db, struct tdb_probe **out, int *nr);
/* Start pfns of the pages probe @probe obtained, by idx. */
int tdb_probe_pages(struct tdb *db, int64_t probe, uint64_t **pfns, int *nr);

#endif
