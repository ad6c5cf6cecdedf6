#!/bin/sh
# simulate --teacher against plain replay on the same capture, measured in the same run
# (best of 3 each, neither storing results): the teacher-forced mode may cost at most
# 2x replay. Capture: BC_BENCH_CAPTURE, else the largest bundled traces/*.db (a copy).
set -u
cd "$(dirname "$0")/.." || exit 2
BIGCHUNK=${BIGCHUNK:-./bigchunk}
. bench/lib.sh
bench_vs_replay bench-teacher 2.00 "simulate --teacher" simulate --teacher --no-store
