#!/bin/sh
# Replay throughput: from the file, the read-only floor, and the model fed from memory.
# Uses the largest capture given in BC_BENCH_CAPTURE, else records one (root), else the
# largest bundled capture.
set -u
cd "$(dirname "$0")/.." || exit 2
B=build/bench/bench-replay
cap=${BC_BENCH_CAPTURE:-}
if [ -z "$cap" ] && [ "$(id -u)" -eq 0 ] && [ -e /sys/kernel/tracing/trace ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	cap=$tmp/bench.db
	echo "recording a 12 s capture under a mixed workload for the benchmark ..."
	./bigchunk record -q -o "$cap" -d 12 --snapshot-every 6 -- build/workload mixed 64 10 \
		>/dev/null 2>&1 || cap=""
fi
[ -n "$cap" ] || cap=$(ls -S traces/*.db | head -1)
"$B" "$cap"
