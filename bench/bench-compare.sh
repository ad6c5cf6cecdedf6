#!/bin/sh
# compare with 4 layouts (asis, movable:1G, cma:256M, reserve:256M; 2 MiB x 4 at the
# end) against plain replay on the same capture, measured in the same run (best of 3
# each, neither storing results): it may cost at most 5x replay. Capture:
# BC_BENCH_CAPTURE, else the largest bundled traces/*.db (a copy).
set -u
cd "$(dirname "$0")/.." || exit 2
BIGCHUNK=${BIGCHUNK:-./bigchunk}
. bench/lib.sh
bench_vs_replay bench-compare 5.00 "compare (4 layouts)" compare --no-store --size 2M \
	--count 4 --layout asis --layout movable:1G --layout cma:256M --layout reserve:256M
