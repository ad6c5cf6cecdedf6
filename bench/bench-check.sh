#!/bin/sh
# bigchunk check against plain bigchunk replay on the same capture, measured in the
# same run (best of 3 each): the checkers may cost at most 2x replay.
# Capture: BC_BENCH_CAPTURE, else the largest bundled traces/*.db, else the largest
# bundled traces/*.dat that has snapshot directories (traces/NAME.snap/), imported with
# them, else (root with tracefs) a 12 s recording under a mixed workload, else the
# largest traces/*.dat imported alone (trace-only check, no replay to compare with).
set -u
cd "$(dirname "$0")/.." || exit 2
BC=${BIGCHUNK:-./bigchunk}
. bench/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cap=${BC_BENCH_CAPTURE:-}
if [ -z "$cap" ]; then
	cap=$(ls -S traces/*.db 2>/dev/null | head -1)
fi
# replay and check store their results: into a copy, never the bundled file
if [ -n "$cap" ]; then
	cp "$cap" "$tmp/copy.db" && chmod 600 "$tmp/copy.db" || exit 2
	cap=$tmp/copy.db
fi
# A bundled trace.dat with its snapshot directories (traces/NAME.snap/*) replays too.
if [ -z "$cap" ]; then
	for dat in $(ls -S traces/*.dat 2>/dev/null); do
		snapdir=${dat%.dat}.snap
		[ -d "$snapdir" ] || continue
		set --
		for d in "$snapdir"/*/; do set -- "$@" --snapshot "${d%/}"; done
		cap=$tmp/bundled.db
		"$BC" import -q -o "$cap" --clock mono "$@" "$dat" || cap=""
		[ -n "$cap" ] && break
	done
fi
if [ -z "$cap" ] && [ "$(id -u)" -eq 0 ] && [ -e /sys/kernel/tracing/trace ] &&
   [ -x build/workload ]; then
	cap=$tmp/bench.db
	echo "recording a 12 s capture under a mixed workload for the benchmark ..."
	"$BC" record -q -o "$cap" -d 12 --snapshot-every 6 -- build/workload mixed 64 10 \
		>/dev/null 2>&1 || cap=""
fi
if [ -z "$cap" ]; then
	dat=$(ls -S traces/*.dat 2>/dev/null | head -1)
	[ -n "$dat" ] || { echo "bench-check: no capture to measure"; exit 0; }
	cap=$tmp/import.db
	"$BC" import -q -o "$cap" --clock mono "$dat" || exit 1
fi

events=$("$BC" query "$cap" "SELECT count(*) FROM events" 2>/dev/null | tail -1)
set -- $(bench_best "$BC" replay "$cap")
replay_ms=$1 replay_rc=$2
set -- $(bench_best "$BC" check "$cap")
check_ms=$1 check_rc=$2
echo "capture: $cap ($events events)"
if [ "$check_rc" -gt 1 ]; then
	echo "bench-check: 'bigchunk check' failed (exit $check_rc)"
	exit 1
fi
if [ "$replay_rc" -ne 0 ]; then
	echo "check (trace only): ${check_ms} ms; replay cannot run on this capture (no snapshot), no ratio"
	exit 0
fi
[ "$replay_ms" -gt 0 ] || replay_ms=1
ratio=$(awk -v c="$check_ms" -v r="$replay_ms" 'BEGIN { printf "%.2f", c / r }')
echo "replay: ${replay_ms} ms   check: ${check_ms} ms   check/replay: ${ratio}x (limit 2.00x)"
awk -v x="$ratio" 'BEGIN { exit !(x <= 2.0) }' || { echo "bench-check: FAIL, above 2x"; exit 1; }
echo "bench-check: ok"
