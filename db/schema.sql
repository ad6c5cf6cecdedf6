-- bigchunk capture database, schema version 3.
-- This file is the one interface between capture, replay and the user. Every table and
-- column is documented in db/README.md. Units: timestamps in ns of the trace clock
-- (see meta 'clock'), pfn = physical page frame number (4 KiB pages on x86_64).
--
-- Every statement creates only what is missing, so running this file on a capture of
-- an older version is its migration (db/tdb.c): version 2 added the probe tables and
-- the result tables of replay, predict and check; no column changed. Version 3 stores
-- each distinct kernel stack once: the table 'stacks' became a view of the same columns
-- (db/tdb.c moves a version 2 file's rows before this file runs again).
PRAGMA user_version = 3;

-- Key/value facts about the capture: tool, source, clock, completeness, machine.
CREATE TABLE IF NOT EXISTS meta (
	key	TEXT PRIMARY KEY,
	value	TEXT
);

-- One row per tracepoint the capture asked for, present or not on the kernel.
CREATE TABLE IF NOT EXISTS event_types (
	id	INTEGER PRIMARY KEY,	-- referenced by events.type inside event_chunks
	system	TEXT NOT NULL,		-- e.g. 'kmem'
	name	TEXT NOT NULL,		-- e.g. 'mm_page_alloc'
	missing	INTEGER NOT NULL DEFAULT 0,	-- 1: the kernel has no such event
	format	TEXT,			-- the kernel's format file, verbatim
	UNIQUE (system, name)
);

-- The numeric fields stored for each event type, in storage order.
CREATE TABLE IF NOT EXISTS event_fields (
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
CREATE TABLE IF NOT EXISTS event_chunks (
	id		INTEGER PRIMARY KEY,
	first_seq	INTEGER NOT NULL,	-- seq of the first event; seq is dense from 0
	n		INTEGER NOT NULL,	-- events in this chunk
	ts_first	INTEGER NOT NULL,
	ts_last		INTEGER NOT NULL,
	pfn_min		INTEGER,		-- over fields named pfn/start_pfn/end_pfn
	pfn_max		INTEGER,
	data		BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS event_chunks_seq ON event_chunks(first_seq);
CREATE INDEX IF NOT EXISTS event_chunks_ts ON event_chunks(ts_first);

-- trace_marker text (ftrace:print), also bigchunk's own snapshot/probe brackets.
CREATE TABLE IF NOT EXISTS markers (
	seq	INTEGER NOT NULL,	-- seq the next event would get: markers sort before it
	ts	INTEGER NOT NULL,
	cpu	INTEGER NOT NULL,
	pid	INTEGER NOT NULL,
	text	TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS markers_ts ON markers(ts);

-- Kernel stacks (record --stacks), symbolised, each distinct one stored once: a trace
-- with stacks repeats a few hundred call paths on every allocation.
CREATE TABLE IF NOT EXISTS stack_frames (
	id	INTEGER PRIMARY KEY,
	frames	TEXT NOT NULL UNIQUE	-- one 'symbol+off' per line, innermost first
);
-- The stack of each event that has one.
CREATE TABLE IF NOT EXISTS event_stacks (
	seq	INTEGER PRIMARY KEY,	-- the event the stack belongs to
	stack	INTEGER NOT NULL REFERENCES stack_frames(id)
);
-- The kernel stack of an event, as version 2 stored it: query this.
CREATE VIEW IF NOT EXISTS stacks (seq, frames) AS
	SELECT e.seq, f.frames FROM event_stacks e JOIN stack_frames f ON f.id = e.stack;

-- Task names seen (pid -> comm), from the trace's saved cmdlines.
CREATE TABLE IF NOT EXISTS comms (
	pid	INTEGER PRIMARY KEY,
	comm	TEXT NOT NULL
);

-- Ring-buffer loss: events the kernel dropped. count -1 = unknown amount.
CREATE TABLE IF NOT EXISTS lost_events (
	cpu	INTEGER NOT NULL,
	ts_from	INTEGER NOT NULL,	-- last event seen before the gap (0 if none)
	ts_to	INTEGER NOT NULL,	-- first event seen after the gap
	count	INTEGER NOT NULL,
	seq	INTEGER NOT NULL	-- seq of the first event after the gap
);

-- Per-CPU ring-buffer statistics at the end of the capture (overrun, dropped ...).
CREATE TABLE IF NOT EXISTS cpu_stats (
	cpu	INTEGER NOT NULL,
	key	TEXT NOT NULL,
	value	INTEGER NOT NULL,
	PRIMARY KEY (cpu, key)
);

-- Page-state snapshots.
CREATE TABLE IF NOT EXISTS snapshots (
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
CREATE TABLE IF NOT EXISTS snapshot_pages (
	snap	INTEGER NOT NULL REFERENCES snapshots(id),
	pfn	INTEGER NOT NULL,	-- first pfn of the chunk
	npfns	INTEGER NOT NULL,
	data	BLOB NOT NULL,
	PRIMARY KEY (snap, pfn)
);

-- The kernel's text files of a snapshot, verbatim (zoneinfo, buddyinfo, ...).
CREATE TABLE IF NOT EXISTS snapshot_files (
	snap	INTEGER NOT NULL REFERENCES snapshots(id),
	name	TEXT NOT NULL,		-- e.g. 'zoneinfo', 'memory/memory32/state'
	content	TEXT NOT NULL,
	PRIMARY KEY (snap, name)
);

-- Parsed from zoneinfo: one row per populated zone.
CREATE TABLE IF NOT EXISTS zones (
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
CREATE TABLE IF NOT EXISTS zone_pcp (
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
CREATE TABLE IF NOT EXISTS buddyinfo (
	snap	INTEGER NOT NULL,
	node	INTEGER NOT NULL,
	zone	TEXT NOT NULL,
	ord	INTEGER NOT NULL,
	nr_free	INTEGER NOT NULL,
	PRIMARY KEY (snap, node, zone, ord)
);

-- pagetypeinfo: free blocks per order and migratetype (-1 when the kernel printed >100000).
CREATE TABLE IF NOT EXISTS pagetype_free (
	snap		INTEGER NOT NULL,
	node		INTEGER NOT NULL,
	zone		TEXT NOT NULL,
	migratetype	TEXT NOT NULL,		-- kernel's name: 'Unmovable', 'Movable', ...
	ord		INTEGER NOT NULL,
	nr_free		INTEGER NOT NULL,
	PRIMARY KEY (snap, node, zone, migratetype, ord)
);

-- pagetypeinfo "Number of blocks type": pageblocks per migratetype.
CREATE TABLE IF NOT EXISTS pagetype_blocks (
	snap		INTEGER NOT NULL,
	node		INTEGER NOT NULL,
	zone		TEXT NOT NULL,
	migratetype	TEXT NOT NULL,
	nr_blocks	INTEGER NOT NULL,
	PRIMARY KEY (snap, node, zone, migratetype)
);

-- /proc/meminfo (kB values as printed) and /proc/vmstat.
CREATE TABLE IF NOT EXISTS meminfo (snap INTEGER NOT NULL, key TEXT NOT NULL, value INTEGER NOT NULL,
		      PRIMARY KEY (snap, key));
CREATE TABLE IF NOT EXISTS vmstat (snap INTEGER NOT NULL, key TEXT NOT NULL, value INTEGER NOT NULL,
		     PRIMARY KEY (snap, key));

-- /proc/iomem "System RAM" ranges as pfns [start_pfn, end_pfn).
CREATE TABLE IF NOT EXISTS system_ram (
	snap		INTEGER NOT NULL,
	start_pfn	INTEGER NOT NULL,
	end_pfn		INTEGER NOT NULL,
	PRIMARY KEY (snap, start_pfn)
);

-- /sys/devices/system/memory blocks.
CREATE TABLE IF NOT EXISTS memory_blocks (
	snap		INTEGER NOT NULL,
	block		INTEGER NOT NULL,	-- N of memoryN
	start_pfn	INTEGER NOT NULL,
	nr_pfns		INTEGER NOT NULL,
	state		TEXT,			-- 'online', 'offline', ...
	valid_zones	TEXT,
	PRIMARY KEY (snap, block)
);

-- hugetlb pools.
CREATE TABLE IF NOT EXISTS hugepages (
	snap	INTEGER NOT NULL,
	size_kb	INTEGER NOT NULL,
	nr	INTEGER NOT NULL,
	free	INTEGER NOT NULL,
	PRIMARY KEY (snap, size_kb)
);

CREATE INDEX IF NOT EXISTS markers_seq ON markers(seq);

-- ---- version 2: live-kernel probes (record --probe, --probe-offline) ----

-- One real contiguous attempt made on the live kernel at the end of a recording.
CREATE TABLE IF NOT EXISTS probes (
	id		INTEGER PRIMARY KEY,	-- N of the markers "bigchunk probe N KIND ..."
	kind		TEXT NOT NULL,		-- 'hugetlb_1g' or 'offline'
	mono_begin	INTEGER NOT NULL,	-- CLOCK_MONOTONIC ns, as in the begin marker
	mono_end	INTEGER NOT NULL,
	requested	INTEGER NOT NULL,	-- hugetlb_1g: 1 GiB pages asked for; offline: 1
	obtained	INTEGER NOT NULL,	-- hugetlb_1g: pages obtained; offline: 1 if offlined
	block		INTEGER,		-- offline: N of memoryN
	start_pfn	INTEGER,		-- offline: the block's pfns [start_pfn, end_pfn)
	end_pfn		INTEGER,
	success		INTEGER NOT NULL,	-- hugetlb_1g: obtained = requested; offline: offlined
	culprit_pfn	INTEGER,		-- offline failure: the pfn the kernel log named
	culprit		TEXT,			-- 'unmovable page', 'migration failed', 'timeout', 'unknown'
	detail		TEXT,			-- errno text, the kernel's failure line, notes
	restored	INTEGER NOT NULL	-- 1: pool size / block state put back
);

-- Where each 1 GiB page of a hugetlb_1g probe landed, in allocation order.
CREATE TABLE IF NOT EXISTS probe_pages (
	probe		INTEGER NOT NULL REFERENCES probes(id),
	idx		INTEGER NOT NULL,	-- 0 = the first page obtained
	start_pfn	INTEGER NOT NULL,	-- the HUGE|COMPOUND_HEAD pfn in kpageflags
	end_pfn		INTEGER NOT NULL,
	mono		INTEGER NOT NULL,	-- CLOCK_MONOTONIC ns when it was found
	PRIMARY KEY (probe, idx)
);

-- ---- version 2: results written by predict, replay and check ----

-- One 'bigchunk predict' run: what was asked.
CREATE TABLE IF NOT EXISTS prediction_runs (
	id		INTEGER PRIMARY KEY,
	mode		TEXT NOT NULL,		-- 'end', 'at', 'every', 'attempts', 'verify'
	policy		TEXT NOT NULL,		-- 'mainline', 'v4'
	nr_pages	INTEGER NOT NULL,	-- size of one allocation, pages
	count		INTEGER NOT NULL,	-- --count K
	range_start	INTEGER,		-- --range, NULL when none
	range_end	INTEGER,
	align_order	INTEGER,		-- --align, NULL = the policy's own
	command		TEXT			-- the command line
);

-- One answer: one allocation asked for at one point.
CREATE TABLE IF NOT EXISTS predictions (
	run		INTEGER NOT NULL REFERENCES prediction_runs(id),
	id		INTEGER NOT NULL,	-- 1, 2, ... within the run
	seq		INTEGER NOT NULL,	-- the state before event seq
	ts		INTEGER NOT NULL,
	idx		INTEGER NOT NULL,	-- 0..K-1 within one question (--count)
	success		INTEGER NOT NULL,
	start_pfn	INTEGER,		-- the chosen range [start_pfn, end_pfn); NULL: failure
	end_pfn		INTEGER,
	migrate_pages	INTEGER NOT NULL,	-- in-use pages the model moved for it
	migrate_thp	INTEGER NOT NULL,	-- ... of which THP (could be split or reclaimed)
	migrate_file	INTEGER NOT NULL,	-- ... of which page cache (clean ones reclaimable)
	nr_candidates	INTEGER NOT NULL,
	blocker_pfn	INTEGER,		-- failure: the page that decided the best candidate
	blocker_kind	TEXT,			-- its kind ('slab', 'pagetable', 'hole', 'free', ...)
	blocker_reason	TEXT,			-- why it blocks
	blocker_seq	INTEGER,		-- the mm_page_alloc that made it so (NULL: before the
	blocker_ts	INTEGER,		--   capture, known from the snapshot); its stack is
	blocker_cpu	INTEGER,		--   stacks.frames WHERE seq = blocker_seq
	blocker_pid	INTEGER,
	blocker_comm	TEXT,
	blocker_order	INTEGER,
	blocker_gfp	INTEGER,
	blocker_mt	INTEGER,
	assumptions	TEXT,			-- comma list: movable-unpinned, likely-pinned, ...
	PRIMARY KEY (run, id)
);

-- Every candidate range tried for an answer, in search order.
CREATE TABLE IF NOT EXISTS prediction_candidates (
	run		INTEGER NOT NULL,
	answer		INTEGER NOT NULL,	-- predictions.id
	idx		INTEGER NOT NULL,	-- search order
	start_pfn	INTEGER NOT NULL,
	end_pfn		INTEGER NOT NULL,
	verdict		TEXT NOT NULL,		-- invalid-range, prescreen-fails, isolation-fails,
						-- migration-fails, success
	pfn		INTEGER,		-- the first pfn that decided it
	migrate_pages	INTEGER NOT NULL,
	PRIMARY KEY (run, answer, idx)
);

-- predict --verify: each real attempt against its prediction.
CREATE TABLE IF NOT EXISTS verify_results (
	run		INTEGER NOT NULL REFERENCES prediction_runs(id),
	idx		INTEGER NOT NULL,
	kind		TEXT NOT NULL,		-- 'hugetlb_1g', 'offline', 'trace_attempt'
	probe		INTEGER,		-- probes.id, NULL for trace attempts
	seq		INTEGER NOT NULL,	-- predicted from the state before this event
	ts		INTEGER NOT NULL,
	start_pfn	INTEGER,		-- offline / trace attempt: the range
	end_pfn		INTEGER,
	kernel_success	INTEGER NOT NULL,
	kernel_pfn	INTEGER,		-- failure: fin_pfn or the culprit pfn
	kernel_ranges	TEXT,			-- hugetlb_1g: landing start pfns, comma list (hex)
	predicted_success INTEGER NOT NULL,
	predicted_pfn	INTEGER,
	predicted_ranges TEXT,
	agree		INTEGER NOT NULL,
	depends_on_pins	INTEGER NOT NULL,	-- the outcome may hinge on invisible state or a race
	why		TEXT,			-- what differs
	PRIMARY KEY (run, idx)
);

-- replay: the model against each snapshot after the seed (bigchunk replay).
CREATE TABLE IF NOT EXISTS replay_scores (
	snap		INTEGER PRIMARY KEY,	-- snapshots.id
	ts		INTEGER,		-- where the model was compared (snapshot end)
	seq		INTEGER,
	pfns_compared	INTEGER,		-- RAM pfns in zones, less the two below
	pfns_changed	INTEGER,		-- touched by events while the snapshot was read
	pfns_uncertain	INTEGER,		-- in lost-event windows, not settled since
	state_agree	INTEGER,		-- free (buddy) vs not, same in model and kernel
	kind_compared	INTEGER,
	kind_agree	INTEGER,
	pfn_agree_state	REAL,			-- state_agree / pfns_compared
	pfn_agree_kind	REAL,			-- kind_agree / kind_compared
	buddyinfo_max_rel_err REAL,		-- max over zone, order
	pagetypeinfo_max_rel_err REAL,		-- max over zone, migratetype (block counts)
	model_free_kernel_used INTEGER,		-- what the state disagreement consists of
	model_used_kernel_free INTEGER,
	resynced_pfns	INTEGER,		-- pfns set to the snapshot's state afterwards
	-- free pages buddyinfo puts at other orders (sum |model - kernel| x 2^order) over
	-- the zone's free pages, max over zones (added in version 2; older files get it
	-- on their next stored replay)
	buddyinfo_free_err REAL,
	-- the score per order: max over zone, order of |model - kernel| x 2^order over the
	-- zone's free pages (added later in version 2, likewise)
	buddyinfo_order_err REAL
);

-- replay: events the model could not explain, per class (model/model.h).
CREATE TABLE IF NOT EXISTS replay_anomalies (
	class		TEXT PRIMARY KEY,
	count		INTEGER NOT NULL,
	first_seq	INTEGER,
	first_ts	INTEGER,
	first_pfn	INTEGER,
	first_order	INTEGER
);

-- check --store: one row per run, per checker, per violation.
CREATE TABLE IF NOT EXISTS check_runs (
	run		INTEGER PRIMARY KEY,
	events		INTEGER,
	attempts	INTEGER,
	lost_windows	INTEGER,
	replayed	INTEGER
);
CREATE TABLE IF NOT EXISTS check_results (
	run		INTEGER NOT NULL,
	checker		TEXT NOT NULL,
	status		TEXT NOT NULL,		-- 'pass', 'FAIL', 'inconclusive', 'not run'
	checks		INTEGER,
	violations	INTEGER,
	inconclusive	INTEGER,
	explained	INTEGER,		-- would-be violations a known kernel behaviour explains
	PRIMARY KEY (run, checker)
);
CREATE TABLE IF NOT EXISTS check_violations (
	run		INTEGER NOT NULL,
	checker		TEXT NOT NULL,
	rule		TEXT NOT NULL,
	seq		INTEGER,
	ts		INTEGER,
	cpu		INTEGER,
	pfn		INTEGER,
	ord		INTEGER,
	text		TEXT NOT NULL
);

-- simulate --teacher: the model's decision (model_decide()) before each allocation the
-- trace shows, against the kernel's pfn. One row per figure: 'all', 'source:pcp',
-- 'source:refill', 'source:buddy', 'source:fallback' (where the kernel's page came
-- from, as the trace tells), 'why:CLASS' (disagreements per class: requests = count).
CREATE TABLE IF NOT EXISTS simulate_teacher (
	key		TEXT PRIMARY KEY,
	requests	INTEGER NOT NULL,
	same_pfn	INTEGER,
	same_pageblock	INTEGER
);
-- simulate --teacher: the first disagreements (the count of the others is in
-- simulate_teacher 'why:' rows).
CREATE TABLE IF NOT EXISTS simulate_disagreements (
	seq		INTEGER PRIMARY KEY,	-- the request's mm_page_alloc
	cpu		INTEGER,
	ord		INTEGER,
	kernel_pfn	INTEGER,
	model_pfn	INTEGER,		-- NULL: the model would have needed reclaim
	kernel_source	TEXT,
	model_source	TEXT,
	why		TEXT NOT NULL
);

-- simulate (free-running, without --teacher): one row per figure, refilled by each
-- stored run. At each snapshot after the seed, side 'sim' is the simulated state and
-- side 'kernel' a model seeded from that snapshot, the same figures under the same
-- names; side 'run' (snap NULL) holds the run's counts (requests, needed_reclaim ...).
CREATE TABLE IF NOT EXISTS simulate_figures (
	snap		INTEGER,		-- snapshots.id; NULL for side 'run'
	side		TEXT NOT NULL,		-- 'sim', 'kernel', 'run'
	zone		TEXT NOT NULL,		-- zone name, '' for the whole machine
	name		TEXT NOT NULL,		-- e.g. 'free_blocks.Movable.3', 'contig_1g'
	value		INTEGER NOT NULL
);

-- bigchunk compare: what-if layouts (one row per layout and figure; the last run only).
CREATE TABLE IF NOT EXISTS compare_results (
	layout		TEXT NOT NULL,		-- the --layout spec ('asis', 'movable:1G', ...)
	size_pages	INTEGER NOT NULL,	-- the demand's size
	name		TEXT NOT NULL,		-- 'demand', 'served', 'blockers.migration:slab', ...
	value		REAL NOT NULL
);
