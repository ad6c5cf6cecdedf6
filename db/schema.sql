-- bigchunk capture database, schema version 1.
-- This file is the one interface between capture, replay and the user. Every table and
-- column is documented in db/README.md. Units: timestamps in ns of the trace clock
-- (see meta 'clock'), pfn = physical page frame number (4 KiB pages on x86_64).
PRAGMA user_version = 1;

-- Key/value facts about the capture: tool, source, clock, completeness, machine.
CREATE TABLE meta (
	key	TEXT PRIMARY KEY,
	value	TEXT
);

-- One row per tracepoint the capture asked for, present or not on the kernel.
CREATE TABLE event_types (
	id	INTEGER PRIMARY KEY,	-- referenced by events.type inside event_chunks
	system	TEXT NOT NULL,		-- e.g. 'kmem'
	name	TEXT NOT NULL,		-- e.g. 'mm_page_alloc'
	missing	INTEGER NOT NULL DEFAULT 0,	-- 1: the kernel has no such event
	format	TEXT,			-- the kernel's format file, verbatim
	UNIQUE (system, name)
);

-- The numeric fields stored for each event type, in storage order.
CREATE TABLE event_fields (
	type	INTEGER NOT NULL REFERENCES event_types(id),
	idx	INTEGER NOT NULL,	-- position in the decoded record
	name	TEXT NOT NULL,		-- the format's field name (e.g. 'pfn', 'order')
	size	INTEGER NOT NULL,	-- bytes in the raw record
	signed	INTEGER NOT NULL,
	PRIMARY KEY (type, idx)
);

-- Events, packed: each row holds up to 8192 consecutive events (replay order) in the
-- varint encoding described in db/README.md. Read them through 'bigchunk query'
-- (virtual table 'events') or the tdb cursor.
CREATE TABLE event_chunks (
	id		INTEGER PRIMARY KEY,
	first_seq	INTEGER NOT NULL,	-- seq of the first event; seq is dense from 0
	n		INTEGER NOT NULL,	-- events in this chunk
	ts_first	INTEGER NOT NULL,
	ts_last		INTEGER NOT NULL,
	pfn_min		INTEGER,		-- over fields named pfn/start_pfn/end_pfn
	pfn_max		INTEGER,
	data		BLOB NOT NULL
);
CREATE INDEX event_chunks_seq ON event_chunks(first_seq);
CREATE INDEX event_chunks_ts ON event_chunks(ts_first);

-- trace_marker text (ftrace:print), also bigchunk's own snapshot/probe brackets.
CREATE TABLE markers (
	seq	INTEGER NOT NULL,	-- seq the next event would get: markers sort before it
	ts	INTEGER NOT NULL,
	cpu	INTEGER NOT NULL,
	pid	INTEGER NOT NULL,
	text	TEXT NOT NULL
);
CREATE INDEX markers_ts ON markers(ts);

-- Kernel stack of an event (record --stacks), symbolised.
CREATE TABLE stacks (
	seq	INTEGER PRIMARY KEY,	-- the event the stack belongs to
	frames	TEXT NOT NULL		-- one 'symbol+off' per line, innermost first
);

-- Task names seen (pid -> comm), from the trace's saved cmdlines.
CREATE TABLE comms (
	pid	INTEGER PRIMARY KEY,
	comm	TEXT NOT NULL
);

-- Ring-buffer loss: events the kernel dropped. count -1 = unknown amount.
CREATE TABLE lost_events (
	cpu	INTEGER NOT NULL,
	ts_from	INTEGER NOT NULL,	-- last event seen before the gap (0 if none)
	ts_to	INTEGER NOT NULL,	-- first event seen after the gap
	count	INTEGER NOT NULL,
	seq	INTEGER NOT NULL	-- seq of the first event after the gap
);

-- Per-CPU ring-buffer statistics at the end of the capture (overrun, dropped ...).
CREATE TABLE cpu_stats (
	cpu	INTEGER NOT NULL,
	key	TEXT NOT NULL,
	value	INTEGER NOT NULL,
	PRIMARY KEY (cpu, key)
);

-- Page-state snapshots.
CREATE TABLE snapshots (
	id		INTEGER PRIMARY KEY,
	label		TEXT,			-- 'start', 'end', 'periodic', 'import'
	ts_begin	INTEGER,		-- trace time of the begin marker (NULL: unaligned)
	ts_end		INTEGER,
	mono_begin	INTEGER,		-- CLOCK_MONOTONIC ns when reading began
	mono_end	INTEGER,
	seq_begin	INTEGER,		-- first event seq at or after ts_begin
	seq_end		INTEGER,		-- first event seq after ts_end
	nr_pfns		INTEGER NOT NULL,	-- PFNs covered by the page runs (from 0)
	complete	INTEGER NOT NULL DEFAULT 0
);

-- kpageflags/kpagecount, run-length encoded: pages [pfn, pfn+npages) all have flags and
-- mapcount. Runs are packed per 65536-PFN chunk (see db/README.md); virtual table
-- 'page_runs' in 'bigchunk query' shows them as rows.
CREATE TABLE snapshot_pages (
	snap	INTEGER NOT NULL REFERENCES snapshots(id),
	pfn	INTEGER NOT NULL,	-- first pfn of the chunk
	npfns	INTEGER NOT NULL,
	data	BLOB NOT NULL,
	PRIMARY KEY (snap, pfn)
);

-- The kernel's text files of a snapshot, verbatim (zoneinfo, buddyinfo, ...).
CREATE TABLE snapshot_files (
	snap	INTEGER NOT NULL REFERENCES snapshots(id),
	name	TEXT NOT NULL,		-- e.g. 'zoneinfo', 'memory/memory32/state'
	content	TEXT NOT NULL,
	PRIMARY KEY (snap, name)
);

-- Parsed from zoneinfo: one row per populated zone.
CREATE TABLE zones (
	snap		INTEGER NOT NULL REFERENCES snapshots(id),
	node		INTEGER NOT NULL,
	zone		TEXT NOT NULL,		-- 'DMA', 'DMA32', 'Normal', 'Movable'
	start_pfn	INTEGER NOT NULL,
	spanned		INTEGER NOT NULL,
	present		INTEGER NOT NULL,
	managed		INTEGER NOT NULL,
	free		INTEGER NOT NULL,	-- pages free (excludes isolated)
	wmark_min	INTEGER,
	wmark_low	INTEGER,
	wmark_high	INTEGER,
	pcp_high	INTEGER,		-- of cpu 0's pageset
	pcp_batch	INTEGER,
	pcp_high_min	INTEGER,
	pcp_high_max	INTEGER,
	PRIMARY KEY (snap, node, zone)
);

-- Per-CPU pageset counts from zoneinfo.
CREATE TABLE zone_pcp (
	snap	INTEGER NOT NULL,
	node	INTEGER NOT NULL,
	zone	TEXT NOT NULL,
	cpu	INTEGER NOT NULL,
	count	INTEGER NOT NULL,
	high	INTEGER NOT NULL,
	batch	INTEGER NOT NULL,
	PRIMARY KEY (snap, node, zone, cpu)
);

-- buddyinfo: free blocks per order (all migratetypes, isolated included).
CREATE TABLE buddyinfo (
	snap	INTEGER NOT NULL,
	node	INTEGER NOT NULL,
	zone	TEXT NOT NULL,
	ord	INTEGER NOT NULL,
	nr_free	INTEGER NOT NULL,
	PRIMARY KEY (snap, node, zone, ord)
);

-- pagetypeinfo: free blocks per order and migratetype (-1 when the kernel printed >100000).
CREATE TABLE pagetype_free (
	snap		INTEGER NOT NULL,
	node		INTEGER NOT NULL,
	zone		TEXT NOT NULL,
	migratetype	TEXT NOT NULL,		-- kernel's name: 'Unmovable', 'Movable', ...
	ord		INTEGER NOT NULL,
	nr_free		INTEGER NOT NULL,
	PRIMARY KEY (snap, node, zone, migratetype, ord)
);

-- pagetypeinfo "Number of blocks type": pageblocks per migratetype.
CREATE TABLE pagetype_blocks (
	snap		INTEGER NOT NULL,
	node		INTEGER NOT NULL,
	zone		TEXT NOT NULL,
	migratetype	TEXT NOT NULL,
	nr_blocks	INTEGER NOT NULL,
	PRIMARY KEY (snap, node, zone, migratetype)
);

-- /proc/meminfo (kB values as printed) and /proc/vmstat.
CREATE TABLE meminfo (snap INTEGER NOT NULL, key TEXT NOT NULL, value INTEGER NOT NULL,
		      PRIMARY KEY (snap, key));
CREATE TABLE vmstat (snap INTEGER NOT NULL, key TEXT NOT NULL, value INTEGER NOT NULL,
		     PRIMARY KEY (snap, key));

-- /proc/iomem "System RAM" ranges as pfns [start_pfn, end_pfn).
CREATE TABLE system_ram (
	snap		INTEGER NOT NULL,
	start_pfn	INTEGER NOT NULL,
	end_pfn		INTEGER NOT NULL,
	PRIMARY KEY (snap, start_pfn)
);

-- /sys/devices/system/memory blocks.
CREATE TABLE memory_blocks (
	snap		INTEGER NOT NULL,
	block		INTEGER NOT NULL,	-- N of memoryN
	start_pfn	INTEGER NOT NULL,
	nr_pfns		INTEGER NOT NULL,
	state		TEXT,			-- 'online', 'offline', ...
	valid_zones	TEXT,
	PRIMARY KEY (snap, block)
);

-- hugetlb pools.
CREATE TABLE hugepages (
	snap	INTEGER NOT NULL,
	size_kb	INTEGER NOT NULL,
	nr	INTEGER NOT NULL,
	free	INTEGER NOT NULL,
	PRIMARY KEY (snap, size_kb)
);

CREATE INDEX markers_seq ON markers(seq);
