#!/bin/sh
# bench-predict: what asking "would 1 GiB succeed, and where" costs on top of replay.
#
# Baseline: 'bigchunk replay CAP --no-store' (the model through every event, scoring
# at snapshots). Then 'bigchunk predict CAP --size 1G --every 0 --no-store', which asks
# at every event through the per-pageblock index and runs real hypothetical attempts
# only when the index cannot decide; and --every 1s and --count 8 at the end for scale.
# Target: --every 0 within 1.5x the baseline. Best of RUNS CPU times (/usr/bin/time).
#
# The capture: BC_BENCH_CAPTURE if set, else one recorded here (root: 10 s of page
# allocator churn by bench/alloc-helper.c), else the largest bundled traces/*.db.
# Usage: bench/bench-predict.sh   (env BIGCHUNK, CC, RUNS, BC_BENCH_CAPTURE)
set -u
cd "$(dirname "$0")/.." || exit 2
BIGCHUNK=${BIGCHUNK:-./bigchunk}
CC=${CC:-cc}
RUNS=${RUNS:-3}
cap=${BC_BENCH_CAPTURE:-}
. bench/lib.sh

if [ ! -x /usr/bin/time ]; then
	echo "SKIP: bench-predict: needs /usr/bin/time (Debian package 'time')"
	exit 0
fi
bench_need_bigchunk bench-predict
bench_tmpdir bench-predict
trap 'rm -rf "$tmp"' EXIT INT TERM
if [ -z "$cap" ] && [ "$(id -u)" -eq 0 ] && [ -e /sys/kernel/tracing/trace ]; then
	if $CC -O2 -o "$tmp/alloc-helper" bench/alloc-helper.c; then
		echo "recording a capture under allocator churn (about 10 s) ..."
		cap=$tmp/bench.db
		"$BIGCHUNK" record -q -o "$cap" -d 10 --snapshot-every 5 -- \
			sh -c "while :; do $tmp/alloc-helper 1024 64 >/dev/null; done" \
			>"$tmp/record.log" 2>&1 || cap=""
	fi
fi
[ -n "$cap" ] || cap=$(ls -S traces/*.db 2>/dev/null | head -1)
if [ -z "$cap" ] || [ ! -f "$cap" ]; then
	echo "SKIP: bench-predict: no capture (needs root to record one, or BC_BENCH_CAPTURE)"
	exit 0
fi

# best CPU time (user + sys, s) of RUNS runs of "$@": steadier than wall time on a
# shared machine; the process is single-threaded, so it is also its wall time alone
best() {
	b=
	i=0
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f "%U %S" -o "$tmp/time" "$@" >/dev/null 2>&1
		rc=$?
		if [ $rc -gt 1 ]; then
			echo "bench-predict: '$*' failed ($rc)" >&2
			return 1
		fi
		t=$(awk 'END { print $1 + $2 }' "$tmp/time")
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then
			b=$t
		fi
		i=$((i + 1))
	done
	echo "$b"
}

events=$("$BIGCHUNK" query "$cap" "SELECT count(*) FROM events" 2>/dev/null | tail -1)
echo "capture: $cap ($events events)"
base=$(best "$BIGCHUNK" replay "$cap" --no-store) || exit 1
every0=$(best "$BIGCHUNK" predict "$cap" --size 1G --every 0 --no-store) || exit 1
every1=$(best "$BIGCHUNK" predict "$cap" --size 1G --every 1s --no-store) || exit 1
end8=$(best "$BIGCHUNK" predict "$cap" --size 1G --count 8 --no-store) || exit 1
ratio=$(echo "$every0 / $base" | bc -l)
printf 'replay (baseline)              %8.3f s\n' "$base"
printf 'predict --every 0 (each event) %8.3f s   %.2fx replay (target <= 1.50x)\n' "$every0" "$ratio"
printf 'predict --every 1s             %8.3f s   %.2fx replay\n' "$every1" \
	"$(echo "$every1 / $base" | bc -l)"
printf 'predict --count 8 at the end   %8.3f s   %.2fx replay\n' "$end8" \
	"$(echo "$end8 / $base" | bc -l)"
"$BIGCHUNK" predict "$cap" --size 1G --every 0 --no-store 2>&1 >/dev/null | grep index: || true
if [ "$(echo "$ratio <= 1.5" | bc -l)" = 1 ]; then
	echo "bench-predict: --every 0 within 1.5x of replay"
else
	echo "bench-predict: --every 0 costs more than 1.5x replay"
	exit 1
fi
