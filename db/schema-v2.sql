-- bigchunk capture database, schema version 2 additions: live-kernel probes (record
-- --probe / --probe-offline) and predictions (bigchunk predict). Documented in
-- db/README.md ("Probes and predictions").
--
-- Until a migration in db/tdb.c adds them (tdb_migrations[1] = this file, with
-- TDB_SCHEMA_VERSION 2), capture/cap-probe.c and replay/predict-store.c create these
-- tables on demand with the same statements (CREATE TABLE IF NOT EXISTS), so they
-- also appear in captures of version 1. tests/test_predict.c checks that the columns
-- here and there are the same.

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
	depends_on_pins	INTEGER NOT NULL,	-- the kernel's outcome may hinge on invisible state
	why		TEXT,			-- what differs
	PRIMARY KEY (run, idx)
);
