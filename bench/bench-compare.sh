#!/bin/sh
# compare with 4 layouts (asis, movable:1G, cma:256M, reserve:256M; 2 MiB x 4 at the
# end) against plain replay on the same capture, measured in the same run (best of 3
# each, neither storing results): it may cost at most 5x replay. Capture: BC_BENCH_CAPTURE, else the largest bundled traces/*.db (a copy).
set -u
cd "$(dirname "$0")/.." || exit 2
BIGCHUNK=${BIGCHUNK:-./bigchunk}
. bench/lib.sh
bench_need_bigchunk bench-compare
bench_tmpdir compare
trap 'rm -rf "$tmp"' EXIT
src=${BC_BENCH_CAPTURE:-$(ls -S traces/*.db 2>/dev/null | head -1)}
[ -n "$src" ] || { echo "bench-compare: no capture to measure"; exit 0; }
cap=$tmp/cap.db
cp "$src" "$cap" || exit 2
set -- $(bench_best "$BIGCHUNK" replay --no-store "$cap")
replay_ms=$1 replay_rc=$2
set -- $(bench_best "$BIGCHUNK" compare --no-store --size 2M --count 4 --layout asis \
	--layout movable:1G --layout cma:256M --layout reserve:256M "$cap")
compare_ms=$1 compare_rc=$2
echo "capture: $src"
if [ "$replay_rc" -ne 0 ] || [ "$compare_rc" -ne 0 ]; then
	echo "bench-compare: replay exit $replay_rc, compare exit $compare_rc"
	exit 1
fi
[ "$replay_ms" -gt 0 ] || replay_ms=1
ratio=$(awk -v t="$compare_ms" -v r="$replay_ms" 'BEGIN { printf "%.2f", t / r }')
echo "replay: ${replay_ms} ms   compare (4 layouts): ${compare_ms} ms   compare/replay: ${ratio}x (limit 5.00x)"
awk -v x="$ratio" 'BEGIN { exit !(x <= 5.0) }' || { echo "bench-compare: FAIL, above 5x"; exit 1; }
echo "bench-compare: ok"
