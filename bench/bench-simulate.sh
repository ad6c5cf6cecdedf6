#!/bin/sh
# Free-running simulation throughput (requests/s) against plain replay, same run, and
# the figures' 2 MiB / 1 GiB counts through a copy of the state against the undo journal.
# Uses BC_BENCH_CAPTURE, else the largest bundled capture.
set -u
cd "$(dirname "$0")/.." || exit 2
cap=${BC_BENCH_CAPTURE:-$(ls -S traces/*.db | head -1)}
build/bench/bench-simulate "$cap"
