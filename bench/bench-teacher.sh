#!/bin/sh
# simulate --teacher against plain replay on the same capture, measured in the same run
# (best of 3 each, neither storing results): the teacher-forced mode may cost at most
# 2x replay. Capture: BC_BENCH_CAPTURE, else the largest bundled traces/*.db (a copy).
set -u
cd "$(dirname "$0")/.." || exit 2
BIGCHUNK=${BIGCHUNK:-./bigchunk}
. bench/lib.sh
bench_need_bigchunk bench-teacher
bench_tmpdir teacher
trap 'rm -rf "$tmp"' EXIT
src=${BC_BENCH_CAPTURE:-$(ls -S traces/*.db 2>/dev/null | head -1)}
[ -n "$src" ] || { echo "bench-teacher: no capture to measure"; exit 0; }
cap=$tmp/cap.db
cp "$src" "$cap" || exit 2
set -- $(bench_best "$BIGCHUNK" replay --no-store "$cap")
replay_ms=$1 replay_rc=$2
set -- $(bench_best "$BIGCHUNK" simulate --teacher --no-store "$cap")
teacher_ms=$1 teacher_rc=$2
echo "capture: $src"
if [ "$replay_rc" -ne 0 ] || [ "$teacher_rc" -ne 0 ]; then
	echo "bench-teacher: replay exit $replay_rc, simulate --teacher exit $teacher_rc"
	exit 1
fi
[ "$replay_ms" -gt 0 ] || replay_ms=1
ratio=$(awk -v t="$teacher_ms" -v r="$replay_ms" 'BEGIN { printf "%.2f", t / r }')
echo "replay: ${replay_ms} ms   simulate --teacher: ${teacher_ms} ms   teacher/replay: ${ratio}x (limit 2.00x)"
awk -v x="$ratio" 'BEGIN { exit !(x <= 2.0) }' || { echo "bench-teacher: FAIL, above 2x"; exit 1; }
echo "bench-teacher: ok"
