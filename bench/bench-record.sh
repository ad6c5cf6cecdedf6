#!/bin/sh
# bench-record: what 'bigchunk record' costs under a heavy page-allocator workload, and
# whether it keeps up. The workload (bench/alloc-helper.c) faults MIB MiB of anonymous
# memory in 4 KiB pages and unmaps it in 64 MiB chunks (about 3 events per page).
#
# Baseline: the workload alone. Then the workload while 'bigchunk record' runs (no
# snapshots, so only tracing is measured); recording is stopped with SIGINT as a user
# would. Reported: the workload's slowdown, events/s during the workload, bigchunk's
# CPU time (user+sys) while recording vs the wall time, the conversion's time, and
# lost events (kernel ring-buffer counters and gaps found in the data).
#
# Usage: bench/bench-record.sh [MIB]   (default 3072; env BIGCHUNK, CC, BUFFER_KB, RUNS)
# Needs root and tracefs; otherwise prints "SKIP: reason" and exits 0.
set -u
cd "$(dirname "$0")/.." || exit 2
MIB=${1:-3072}
BIGCHUNK=${BIGCHUNK:-./bigchunk}
CC=${CC:-cc}
RUNS=${RUNS:-3}
BUFFER_KB=${BUFFER_KB:-}
. bench/lib.sh

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: bench-record: needs root"
	exit 0
fi
if [ ! -e /sys/kernel/tracing/trace ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	if [ ! -e /sys/kernel/tracing/trace ]; then
		echo "SKIP: bench-record: no tracefs"
		exit 0
	fi
fi
bench_need_bigchunk bench-record
bench_tmpdir bench-record
rec=
cleanup() {
	# never leave a recorder (and so its tracefs instance) behind
	if [ -n "$rec" ] && kill -0 "$rec" 2>/dev/null; then
		kill -INT "$rec" 2>/dev/null
		wait "$rec" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$CC" -O2 -o "$tmp/alloc-helper" bench/alloc-helper.c || exit 2

now_ns() { date +%s%N; }
# user+sys clock ticks of a live pid
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

run_workload() {	# -> wall ns on stdout
	t0=$(now_ns)
	"$tmp/alloc-helper" "$MIB" > /dev/null || return 1
	t1=$(now_ns)
	echo $((t1 - t0))
}

# Baseline: the workload alone (best of RUNS).
base=
i=0
while [ $i -lt "$RUNS" ]; do
	w=$(run_workload) || exit 1
	if [ -z "$base" ] || [ "$w" -lt "$base" ]; then base=$w; fi
	i=$((i + 1))
done

printf '%-6s %10s %10s %12s %10s %9s %10s %10s %10s\n' run workload_s slowdown \
	events/s rec_cpu_s cpu/wall convert_s lost_kernel gaps
i=0
fail=0
while [ $i -lt "$RUNS" ]; do
	db="$tmp/bench-$i.db"
	log="$tmp/bench-$i.log"
	if [ -n "$BUFFER_KB" ]; then
		"$BIGCHUNK" record -q --no-snapshots -b "$BUFFER_KB" -o "$db" > "$log" 2>&1 &
	else
		"$BIGCHUNK" record -q --no-snapshots -o "$db" > "$log" 2>&1 &
	fi
	rec=$!
	n=0
	while [ ! -d "/sys/kernel/tracing/instances/bigchunk-$rec" ] && [ $n -lt 200 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	sleep 0.3	# readers are up and tracing is on
	c0=$(cpu_ticks "$rec")
	t0=$(now_ns)
	"$tmp/alloc-helper" "$MIB" > /dev/null || fail=1
	t1=$(now_ns)
	c1=$(cpu_ticks "$rec")
	kill -INT "$rec"
	wait "$rec"
	st=$?
	rec=
	if [ $st -ne 0 ]; then
		echo "bench-record: bigchunk record failed:" >&2
		cat "$log" >&2
		exit 1
	fi
	wall=$((t1 - t0))
	# "...: N events in S s (R/s), ... converted in C s" / "lost events: L (...), G gaps"
	events=$(sed -n 's/.*: \([0-9]*\) events in .*/\1/p' "$log")
	conv=$(sed -n 's/.*converted in \([0-9.]*\) s.*/\1/p' "$log")
	lost=$(sed -n 's/.*lost events: \([0-9]*\) .*/\1/p' "$log")
	gaps=$(sed -n 's/.*, \([0-9]*\) gaps in the data.*/\1/p' "$log")
	awk -v run="$i" -v wall="$wall" -v base="$base" -v ev="$events" -v c0="$c0" -v c1="$c1" \
	    -v hz="$hz" -v conv="$conv" -v lost="$lost" -v gaps="$gaps" 'BEGIN {
		w = wall / 1e9; cpu = (c1 - c0) / hz
		printf "%-6s %10.2f %9.2fx %12.0f %10.2f %8.1f%% %10s %10s %10s\n",
		       run, w, wall / base, ev / w, cpu, 100 * cpu / w, conv, lost, gaps }'
	[ "${lost:-1}" -eq 0 ] && [ "${gaps:-1}" -eq 0 ] || fail=1
	rm -f "$db"
	i=$((i + 1))
done
awk -v base="$base" -v mib="$MIB" 'BEGIN {
	printf "baseline: %d MiB of 4 KiB anonymous faults + munmap in %.2f s without recording\n",
	       mib, base / 1e9 }'
echo "events/s counts all recorded events over the workload's wall time; cpu/wall is"
echo "bigchunk's own user+sys while the workload ran (100% = one CPU)."
if [ $fail -ne 0 ]; then
	echo "bench-record: events were lost (see lost_kernel/gaps)"
	exit 1
fi
exit 0
