#!/bin/sh
# The workload classes of the fidelity matrix, each captured twice:
#   OUT/CLASS/rec.db    'bigchunk record': snapshots every 2 s, then the probes (one
#                       1 GiB hugetlb page, two memory blocks offlined and onlined) so
#                       that 'predict --verify' has real attempts
#   OUT/CLASS/twin.dat  the trace-cmd twin: 'trace-cmd record' of the same events,
#   OUT/CLASS/snap/     snapshots from capture/bigchunk-snapshot.sh before and after the
#   OUT/CLASS/imp.db    workload, the same probes done by hand, then 'bigchunk import'
# bench/bench-fidelity.sh scores them (bench/bench-fidelity.sh OUT/*/*.db).
#
# Classes (tests/workload/workload.c modes; a mode the workload binary does not know
# yet is skipped with the reason):
#   pagecache  page cache written, read back, half dropped
#   anon       4 KiB anonymous faults with munmap'ed holes
#   mlock      mlock()ed anonymous memory
#   thp        anonymous memory with MADV_HUGEPAGE
#   slab       small files created and stat'ed (dentries, inodes)
#   pgtable    one page touched per 2 MiB (page tables)
#   unmovable  io_uring rings: order-9 unmovable allocations spill onto Movable blocks
#   hugetlb    the 2 MiB hugetlb pool grown by 512 pages and shrunk again
#   pin        THP memory pinned long-term as io_uring fixed buffers
#   offline    memory blocks offlined and onlined during the workload
#   lazy       lazily initialised memory growing: enough anonymous memory that the
#              kernel initialises struct pages of ZONE_NORMAL on demand. On a machine
#              whose memory is already all initialised (it says so) the growth is
#              made the other way the kernel adds memory to the buddy allocator: four
#              blocks offlined before the capture (they read 0 in kpageflags, as
#              uninitialised memory does) are onlined during it, each coming back as
#              32 order-10 frees from __free_pages_core(), as deferred init does
#
# Every recording holds the live lock (the one the live tests take) for itself only,
# and restores what it changed (hugetlb pools, memory blocks, tracing) on every exit.
# Usage (root, built tree: make && make build/workload):
#   traces/recipes/classes.sh OUT [CLASS...]
# BIGCHUNK and WORKLOAD name other binaries; CLASSES_SKIP_TWIN=1 or
# CLASSES_SKIP_RECORD=1 makes one of the two.
. "$(dirname "$0")/common.sh"

[ $# -ge 1 ] || { echo "usage: classes.sh OUT [CLASS...]" >&2; exit 2; }
OUT=$1
shift
SELF=$(cd "$(dirname "$0")" && pwd)/classes.sh
ALL="pagecache anon mlock thp slab pgtable unmovable hugetlb pin offline lazy"
CLASSES=${*:-$ALL}
BC=${BIGCHUNK:-$REPO/bigchunk}
WL=${WORKLOAD:-$REPO/build/workload}
LOCK=/tmp/bigchunk-live.lock
MEM=/sys/devices/system/memory
HP=/sys/kernel/mm/hugepages
command -v zstd >/dev/null || { echo "recipe: zstd not installed" >&2; exit 1; }
[ -x "$BC" ] && [ -x "$WL" ] || { echo "recipe: $BC or $WL not built" >&2; exit 1; }
OFFLINED="$WORK/offlined"
: > "$OFFLINED"

# Put back what a recording changed: pools to 0, blocks this script offlined online.
classes_restore() {
	for p in hugepages-1048576kB hugepages-2048kB; do
		[ -e "$HP/$p/nr_hugepages" ] && echo 0 > "$HP/$p/nr_hugepages" 2>/dev/null
	done
	while read -r b; do
		[ "$(cat "$MEM/$b/state")" = online ] || echo online > "$MEM/$b/state" ||
			echo "recipe: could not online $b" >&2
	done < "$OFFLINED"
	: > "$OFFLINED"
}
trap 'set +e; classes_restore; bc_cleanup' EXIT

# wl_knows MODE: the workload binary has MODE (its usage line lists the modes).
wl_knows() {
	"$WL" 2>&1 | head -1 | tr '| ' '\n\n' | grep -qx "$1"
}

# zone_field ZONE FIELD: a number of /proc/zoneinfo for node 0's ZONE.
zone_field() {
	awk -v z="$1" -v f="$2" '$1 == "Node" { in_z = ($4 == z) }
		in_z && $1 == f { print $2; exit }' /proc/zoneinfo
}

# lazy_mib: MiB for the lazy class. With uninitialised memory in Normal (managed
# short of present by more than the memmap), more than Normal's initialised free pages,
# so that the allocator runs short and grows the zone; else 1 GiB.
lazy_mib() {
	present=$(zone_field Normal present)
	managed=$(zone_field Normal managed)
	free=$(awk '$1 == "Node" { in_z = ($4 == "Normal") } in_z && $1 == "pages" && $2 == "free" { print $3; exit }' /proc/zoneinfo)
	# struct pages (64 bytes per 4 KiB page) and other boot reservations: 5% slack
	if [ $((present - managed)) -gt $((present / 20)) ]; then
		avail=$(awk '/^MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
		want=$((free / 256 + 512))
		[ "$want" -lt $((avail - 1024)) ] || want=$((avail - 1024))
		echo "lazy: Normal present $present managed $managed free $free: uninitialised memory; $want MiB" >&2
		echo "$want 1"
	else
		echo "lazy: Normal present $present managed $managed: memory already initialised; blocks onlined instead" >&2
		echo "1024 0"
	fi
}

# blocks_pick N: N online Normal memory blocks spread over the zone.
blocks_pick() {
	ls "$MEM" | grep '^memory[0-9]' | sort -t y -k 2 -n | while read -r b; do
		[ "$(cat "$MEM/$b/state")" = online ] && [ "$(cat "$MEM/$b/valid_zones")" = Normal ] &&
			echo "$b"
	done > "$WORK/blocks"
	awk -v n="$1" '{ b[NR] = $1 } END { for (i = 1; i <= n; i++) print b[int(NR * i / (n + 1))] }' \
		"$WORK/blocks"
}

# blocks_cycle N: offline and at once online N blocks (3 s each at most: pinned pages
# make offlining retry until a signal).
blocks_cycle() {
	for b in $(blocks_pick "$1"); do
		echo "$b" >> "$OFFLINED"
		if timeout -s INT 3 sh -c "echo offline > $MEM/$b/state" 2>/dev/null; then
			echo "  $b offlined"
		else
			echo "  $b not offlined"
		fi
		[ "$(cat "$MEM/$b/state")" = online ] || echo online > "$MEM/$b/state"
	done
}

# probes_by_hand: what 'record --probe 1G:1 --probe-offline 2' does, for the twin.
probes_by_hand() {
	g=$HP/hugepages-1048576kB/nr_hugepages
	if [ -e "$g" ]; then
		echo 1 > "$g" 2>/dev/null
		echo "  1 GiB pages got: $(cat "$g")"
		echo 0 > "$g"
	fi
	blocks_cycle 2
}

# run_workload CLASS: the class's workload in the foreground.
run_workload() {
	case $1 in
	pagecache) "$WL" pagecache 512 2 ;;
	anon) "$WL" anon 512 2 ;;
	mlock) "$WL" mlock 256 2 ;;
	thp) "$WL" thp 512 2 ;;
	slab) "$WL" slab 128 2 ;;
	pgtable) "$WL" pgtable 32 2 ;;
	unmovable) "$WL" rings 64 1 ;;
	hugetlb) "$WL" hugetlb 1024 2 ;;
	pin) "$WL" pin 256 2 ;;
	offline) "$WL" anon 256 1 && blocks_cycle 4 ;;
	lazy)
		for b in ${LAZY_BLOCKS:-}; do
			echo online > "$MEM/$b/state" && echo "  $b onlined"
			"$WL" anon 128 0.2
		done
		"$WL" anon "$LAZY_MIB" 1 ;;
	esac
}

# lazy_offline: with memory all initialised, offline up to 4 blocks for the lazy class
# to bring back during the capture; sets LAZY_BLOCKS.
lazy_offline() {
	LAZY_BLOCKS=""
	[ "$LAZY_GROWS" = 0 ] || return 0
	n=0
	for b in $(blocks_pick 12); do
		[ $n -lt 4 ] || break
		echo "$b" >> "$OFFLINED"
		if timeout -s INT 3 sh -c "echo offline > $MEM/$b/state" 2>/dev/null; then
			LAZY_BLOCKS="$LAZY_BLOCKS $b"
			n=$((n + 1))
		fi
	done
	echo "  lazy: offlined before the capture:$LAZY_BLOCKS"
	export LAZY_BLOCKS
}

# A class this machine or the workload binary cannot do: print why, return 1.
class_usable() {
	case $1 in
	unmovable) mode=rings ;;
	offline|lazy) mode=anon ;;
	*) mode=$1 ;;
	esac
	case " $ALL " in *" $1 "*) ;; *) echo "skip $1: no such class ($ALL)"; return 1 ;; esac
	wl_knows "$mode" || { echo "skip $1: $WL has no mode '$mode' yet"; return 1; }
	if [ "$1" = hugetlb ] && [ ! -e "$HP/hugepages-2048kB/nr_hugepages" ]; then
		echo "skip $1: no 2 MiB hugetlb pool on this kernel"
		return 1
	fi
	return 0
}

record_class() {	# record_class CLASS DIR
	echo "$1: bigchunk record"
	flock 9
	[ "$1" != lazy ] || lazy_offline
	"$BC" record -f -q -o "$2/rec.db" --probe 1G:1 --probe-offline 2 --snapshot-every 2 \
		-- sh "$SELF" --workload "$1" \
		> "$2/rec.log" 2>&1 || echo "  record failed: $(tail -1 "$2/rec.log")"
	classes_restore
	flock -u 9
}

twin_class() {	# twin_class CLASS DIR
	echo "$1: trace-cmd record + bigchunk-snapshot.sh + bigchunk import"
	rm -rf "$2/snap"
	mkdir -p "$2/snap"
	flock 9
	[ "$1" != lazy ] || lazy_offline
	# shellcheck disable=SC2046
	# 128 MiB per CPU: trace-cmd's readers fall behind on a busy machine
	bc_record_start "$2/twin.dat" -b 131072 $(bc_events $BC_DEFAULT_EVENTS)
	bc_marker "bigchunk classes $1 begin"
	sh "$REPO/capture/bigchunk-snapshot.sh" -m "$INSTANCE" -l "$1-begin" "$2/snap/begin"
	run_workload "$1" > "$2/twin.log" 2>&1 || echo "  workload failed: $(tail -1 "$2/twin.log")"
	sh "$REPO/capture/bigchunk-snapshot.sh" -m "$INSTANCE" -l "$1-end" "$2/snap/end"
	probes_by_hand >> "$2/twin.log" 2>&1
	bc_marker "bigchunk classes $1 end"
	sleep 0.5
	bc_record_stop
	classes_restore
	flock -u 9
	# compress after tracing: zstd's own memory would be in the trace
	zstd -q --rm "$2"/snap/*/kpageflags "$2"/snap/*/kpagecount
	"$BC" import -f -q -o "$2/imp.db" --clock mono --snapshot "$2/snap/begin" \
		--snapshot "$2/snap/end" "$2/twin.dat" || echo "  import failed"
}

# Inside 'bigchunk record' (it runs COMMAND): just the workload, no lock (the
# recording holds it).
if [ "$OUT" = --workload ]; then
	set -- "$1" $(lazy_mib)
	LAZY_MIB=$2
	: > "$OFFLINED"
	run_workload "$1"
	exit $?
fi

mkdir -p "$OUT"
exec 9> "$LOCK"
for c in $CLASSES; do
	class_usable "$c" || continue
	LAZY_MIB=1024
	LAZY_GROWS=1
	if [ "$c" = lazy ]; then
		set -- $(lazy_mib)
		LAZY_MIB=$1
		LAZY_GROWS=$2
	fi
	d="$OUT/$c"
	mkdir -p "$d"
	[ -n "${CLASSES_SKIP_RECORD:-}" ] || record_class "$c" "$d"
	[ -n "${CLASSES_SKIP_TWIN:-}" ] || twin_class "$c" "$d"
done
