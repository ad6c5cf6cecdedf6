#!/bin/sh
# 2 MiB hugetlb pool growth (and shrink) recorded with 'bigchunk record'; the pool grows
# by MIB/2 pages (build/workload hugetlb: nr_hugepages of hugepages-2048kB, a quarter of
# the pages mapped) and is put back to what it was, also on failure.
#
#   held   (default; traces/hugetlb.db) snapshots before the growth and at the end with
#          the pool still held: the workload is left holding it when the recorded
#          command ends, so --probe asks for 1 GiB pages beside the pool
#          (pfn_range_valid_contig() refuses ranges with hugetlb pages); it shrinks
#          after the recording. Two snapshots keep the capture small.
#   full   snapshots before the growth, after it and after the shrink: the recorder's
#          start snapshot, one --snapshot-every 4 s later (the pool grows in a few ms
#          and is held 8 s: a snapshot read in under 4 s ends before the shrink, and
#          the next one would begin after it) and the end snapshot.
#
# Usage (root, from a built tree): traces/recipes/hugetlb.sh OUT.db [held|full] [MIB]
# HUGETLB_PROBE=K adds 'record --probe 1G:K' (held only).
set -eu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BC=${BIGCHUNK:-$REPO/bigchunk}
WL=${BC_WORKLOAD:-$REPO/build/workload}
out=$1
how=${2:-held}
mib=${3:-1024}
[ -x "$BC" ] && [ -x "$WL" ] || { echo "recipe: run 'make' and 'make build/workload' first" >&2; exit 1; }

case $how in
full)
	exec "$BC" record -f -q -o "$out" --snapshot-every 4 -- "$WL" hugetlb "$mib" 8 ;;
held)
	;;
*)
	echo "recipe: '$how': held or full" >&2
	exit 2 ;;
esac

pidfile=$(mktemp "${TMPDIR:-/tmp}/bc-hugetlb.XXXXXX")
# SIGUSR1: the workload shrinks the pool at once and exits
release() {
	pid=$(cat "$pidfile" 2>/dev/null || true)
	if [ -n "$pid" ]; then
		kill -USR1 "$pid" 2>/dev/null || true
		while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
	fi
	rm -f "$pidfile" "$pidfile.out"
}
trap release EXIT
trap 'exit 130' INT TERM HUP
# the command ends as soon as the pool has grown (a few ms), the pool still held
"$BC" record -f -q -o "$out" ${HUGETLB_PROBE:+--probe "1G:$HUGETLB_PROBE"} -- \
	sh -c '"$1" hugetlb "$2" 120 > "$3.out" & echo $! > "$3"; i=0
	until grep -qs "^hugetlb pool" "$3.out" || [ $i -ge 300 ]; do sleep 0.02; i=$((i + 1)); done
	cat "$3.out"' sh "$WL" "$mib" "$pidfile"
rm -f "$pidfile.out"
