#!/bin/sh
# Regenerate the bundled bigchunk captures from this machine (root, tracefs):
#   traces/idle.db     'bigchunk record', 10 s of an idle machine, snapshots every 5 s
#   traces/default.db  'bigchunk record' under a light mixed workload (anonymous memory,
#                      page cache, slab) with --stacks, snapshots every 3 s, and at the
#                      end the live-kernel probes: four 1 GiB hugetlb pages and four
#                      memory blocks offlined and onlined (the ground truth of
#                      'bigchunk predict --verify'; make run's capture)
#   traces/extfrag.db  'bigchunk record', 2 s around 16 io_uring instances whose 2 MiB
#                      rings are unmovable order-9 allocations: with no free Unmovable
#                      block of that order they claim whole Movable blocks
#                      (mm_page_alloc_extfrag, change_ownership 1); snapshots at start
#                      and end only, to stay below 2 MiB
#   traces/frag.db     traces/frag.dat and traces/frag.snap imported (run frag.sh first
#                      to re-record those)
#   traces/pins.db     'bigchunk record' while 6 GiB of THP is registered as io_uring
#                      fixed buffers (long-term pins, FOLL_LONGTERM; set up just before
#                      recording, so the capture stays small): a 1 GiB page and twelve
#                      offlines of blocks; blocks full of pinned pages fail in migration
#                      (so many pinned that some blocks hold no kernel page, which would
#                      fail isolation first); 0.03 s per block keeps the retries few;
#                      caches dropped first (less to migrate and trace); each snapshot
#                      lists the buffers by pfn (longterm_pins), which predict uses
#   traces/hugetlb.db  'bigchunk record' of the 2 MiB hugetlb pool growing by 512 pages
#                      (recipes/hugetlb.sh held): snapshots before and after, the pool
#                      still held at the end (it shrinks after the recording)
#   traces/offline.db  'bigchunk record' of twelve memory-block offlines (and onlines) while
#                      page tables and slab objects (dentries of many small files) are
#                      held: blocks holding kernel memory fail on it (the kernel prints
#                      the culprit pfn), the others are offlined; 1 s of events, then the
#                      probes (1 s limit per block)
#   traces/{pagecache,anon,mlock,thp,slab,pgtable}.db
#                      'bigchunk record' of one workload class each (the fidelity
#                      matrix's, tests/workload/workload.c modes, small): 2 s of the
#                      workload allocating and holding; snapshots at start and end (the
#                      memory still held: it is freed after the recording); caches
#                      dropped first
#   traces/lazy.db     'bigchunk record' of ZONE_NORMAL growing by lazy struct page init
#                      (this machine's kernel initialises Normal's memory 128 MiB at a
#                      time when the allocator runs short): Normal's initialised free
#                      memory is taken by held THP memory before recording, down to
#                      about 64 MiB above its low watermark, then 384 MiB more THP is
#                      faulted in while recording: each growth is 32 order-10 frees of
#                      memory that read 0 (uninitialised) in the start snapshot. Needs
#                      memory not yet initialised (it refuses otherwise: growth cannot
#                      be undone until the next boot)
# Each must stay below 5 MiB: record on a quiet machine. Needs a built tree (make,
# make build/workload).
# Usage (root): traces/recipes/captures.sh [idle|default|extfrag|frag|pins|hugetlb|offline|
#   pagecache|anon|mlock|thp|slab|pgtable|lazy]...
set -eu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO"
BC=./bigchunk
[ -x "$BC" ] && [ -x build/workload ] || { echo "recipe: run 'make' and 'make build/workload' first" >&2; exit 1; }

for what in ${*:-idle default extfrag frag hugetlb}; do
	case $what in
	idle)
		"$BC" record -f -q -o traces/idle.db -d 10 --snapshot-every 5 ;;
	default)
		"$BC" record -f -q -o traces/default.db --stacks --probe 1G:4 --probe-offline 4 \
			-d 6 --snapshot-every 3 -- sh -c "./build/workload anon 32 5 & \
			./build/workload pagecache 16 1; ./build/workload slab 1 1; wait" ;;
	extfrag)
		"$BC" record -f -q -o traces/extfrag.db -d 2 -- ./build/workload rings 64 0.3 ;;
	pins)
		pinlog=$(mktemp)
		rc=0
		sync
		echo 3 > /proc/sys/vm/drop_caches
		# pinned just before recording (a short capture): the pins show where the
		# probes' migrations fail on them
		./build/workload pin 6144 120 > "$pinlog" &
		pin=$!
		until grep -q 'fixed buffers' "$pinlog"; do
			kill -0 "$pin" || { cat "$pinlog" >&2; exit 1; }
			sleep 0.2
		done
		"$BC" record -f -q -o traces/pins.db --probe 1G:1 --probe-offline 12 \
			--probe-timeout 0.03s -d 0.2 || rc=$?
		kill -TERM "$pin"
		wait "$pin" || true
		grep '^pin:' "$pinlog" >&2 || true
		rm -f "$pinlog"
		[ "$rc" -eq 0 ] || exit "$rc" ;;
	offline)
		slabdir=$(mktemp -d)
		./build/workload pgtable 32 60 > /dev/null &
		pgt=$!
		./build/workload slab 256 60 "$slabdir" > /dev/null &
		slab=$!
		sleep 10
		rc=0
		"$BC" record -f -q -o traces/offline.db -d 1 --probe-offline 12 \
			--probe-timeout 1s || rc=$?
		kill -TERM "$pgt" "$slab"
		wait "$pgt" "$slab" || true
		rm -rf "$slabdir"
		[ "$rc" -eq 0 ] || exit "$rc" ;;
	pagecache|anon|mlock|thp|slab|pgtable)
		case $what in
		pagecache) mib=64 ;; anon) mib=64 ;; mlock) mib=32 ;; thp) mib=128 ;;
		slab) mib=8 ;; pgtable) mib=4 ;;
		esac
		# caches dropped first: snapshots of fewer, longer runs of a kind (smaller)
		sync
		echo 3 > /proc/sys/vm/drop_caches
		# the end snapshot sees the memory held; the workload frees it after
		wlpid=$(mktemp)
		"$BC" record -f -q -o "traces/$what.db" -- sh -c "./build/workload $what $mib 5 \
			> /dev/null & echo \$! > $wlpid; sleep 2"
		while kill -0 "$(cat "$wlpid")" 2> /dev/null; do
			sleep 0.5
		done
		rm -f "$wlpid" ;;
	lazy)
		zf() {	# zf FIELD: Normal's FIELD in /proc/zoneinfo (pages)
			awk -v f="$1" '$1 == "Node" { z = ($4 == "Normal") }
				z && ($1 == f || ($1 == "pages" && $2 == f)) { print $NF; exit }' \
				/proc/zoneinfo
		}
		present=$(zf present) managed=$(zf managed) free=$(zf free) low=$(zf low)
		if [ $((present - managed)) -le $((present / 20)) ]; then
			echo "recipe: Normal is initialised (present $present, managed $managed):" \
				"no lazy growth left until the next boot" >&2
			exit 1
		fi
		sync
		echo 3 > /proc/sys/vm/drop_caches
		fill=$(((free - low) / 256 - 64))
		echo "lazy: Normal free $free low $low: $fill MiB of THP held first" >&2
		./build/workload thp "$fill" 600 > /dev/null &
		filler=$!
		# the filler has faulted its memory in once Normal's free count stops falling
		prev=0
		while [ "$(zf free)" != "$prev" ]; do
			prev=$(zf free)
			sleep 2
		done
		wlpid=$(mktemp)
		rc=0
		"$BC" record -f -q -o traces/lazy.db -- sh -c "./build/workload thp 384 5 \
			> /dev/null & echo \$! > $wlpid; sleep 3" || rc=$?
		kill "$filler" 2> /dev/null || true
		while kill -0 "$(cat "$wlpid")" 2> /dev/null; do
			sleep 0.5
		done
		rm -f "$wlpid"
		wait "$filler" 2> /dev/null || true
		echo "lazy: Normal managed $managed -> $(zf managed)" >&2
		[ "$rc" = 0 ] || exit "$rc" ;;
	frag)
		"$BC" import -f -q -o traces/frag.db --snapshot traces/frag.snap/begin \
			--snapshot traces/frag.snap/end traces/frag.dat ;;
	hugetlb)
		sh traces/recipes/hugetlb.sh traces/hugetlb.db held ;;
	*)
		echo "recipe: unknown capture '$what' (idle, default, extfrag, frag, pins, hugetlb, offline, pagecache, anon, mlock, thp, slab, pgtable, lazy)" >&2
		exit 2 ;;
	esac
	# bundled files are read by everyone; the recorder made it 0600
	chmod 0644 "traces/$what.db"
	echo "wrote traces/$what.db: $(stat -c %s "traces/$what.db") bytes"
done
