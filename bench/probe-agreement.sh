#!/bin/sh
# probe-agreement: how often 'bigchunk predict --verify' agrees with the live kernel,
# per kind of workload. For each workload (bench/probe-workload.c holding its memory),
# record a short capture ending with --probe 1G:K --probe-offline N, then verify.
#
# This changes the live kernel (1 GiB hugetlb pool, memory blocks offline/online; both
# restored by the probes) and so is not part of 'make bench'. It takes the lock
# /tmp/bigchunk-live.lock (flock) for the whole run.
#
# Usage (root): bench/probe-agreement.sh [WORKLOAD...]
#   WORKLOAD: pagecache anon-holes mlock thp slab pgtable (default: all)
#   env BIGCHUNK, CC, K (default 8), BLOCKS (default 8), SECONDS (default 3), KEEP=1
set -u
cd "$(dirname "$0")/.." || exit 2
BIGCHUNK=${BIGCHUNK:-./bigchunk}
CC=${CC:-cc}
K=${K:-8}
BLOCKS=${BLOCKS:-8}
SECONDS_=${SECONDS:-3}
LOCK=/tmp/bigchunk-live.lock

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: probe-agreement: needs root"
	exit 0
fi
if [ -z "${BC_PROBE_LOCKED:-}" ]; then
	BC_PROBE_LOCKED=1 exec flock "$LOCK" "$0" "$@"
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bc-probe-agree.XXXXXX") || exit 2
wpid=
cleanup() {
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
$CC -O2 -o "$tmp/probe-workload" bench/probe-workload.c || exit 2

mib_of() {
	case $1 in
	pagecache) echo 4096 ;;
	anon-holes) echo 4096 ;;
	mlock) echo 2048 ;;
	thp) echo 4096 ;;
	slab) echo 256 ;;
	pgtable) echo 64 ;;
	*) echo 0 ;;
	esac
}

[ $# -gt 0 ] || set -- pagecache anon-holes mlock thp slab pgtable
printf '%-11s %8s %8s %9s %9s %9s %s\n' workload attempts agree hugetlb offline trace \
	"disagreements (invisible)"
for w in "$@"; do
	mib=$(mib_of "$w")
	[ "$mib" -gt 0 ] || { echo "probe-agreement: unknown workload $w" >&2; continue; }
	arg=
	case $w in pagecache) arg=$tmp/cache.bin ;; slab) arg=$tmp/slabdir ;; esac
	"$tmp/probe-workload" "$w" "$mib" $arg >"$tmp/w.out" 2>&1 &
	wpid=$!
	i=0
	while ! grep -q ready "$tmp/w.out" 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	db=$tmp/$w.db
	"$BIGCHUNK" record -q -f -o "$db" -d "$SECONDS_" --probe "1G:$K" \
		--probe-offline "$BLOCKS" >"$tmp/$w.record" 2>&1
	rc=$?
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	wpid=
	rm -rf "$tmp/cache.bin" "$tmp/slabdir"
	if [ $rc -ne 0 ]; then
		echo "$w: record failed:"
		cat "$tmp/$w.record"
		continue
	fi
	"$BIGCHUNK" predict "$db" --verify --json >"$tmp/$w.json" 2>"$tmp/$w.err"
	"$BIGCHUNK" query "$db" "SELECT count(*), sum(agree),
		sum(kind = 'hugetlb_1g') || '/' || sum(kind = 'hugetlb_1g' AND agree),
		sum(kind = 'offline') || '/' || sum(kind = 'offline' AND agree),
		sum(kind = 'trace_attempt') || '/' || sum(kind = 'trace_attempt' AND agree),
		sum(agree = 0) || ' (' || sum(agree = 0 AND depends_on_pins) || ')'
		FROM verify_results WHERE run = (SELECT max(run) FROM verify_results)" |
		tail -1 | awk -F'\t' -v w="$w" '{ printf "%-11s %8s %8s %9s %9s %9s %s\n", w, $1, $2, $3, $4, $5, $6 }'
	"$BIGCHUNK" query "$db" "SELECT '    ' || kind || ': ' || why FROM verify_results
		WHERE run = (SELECT max(run) FROM verify_results) AND agree = 0" | tail -n +2
done
[ -n "${KEEP:-}" ] && echo "captures kept in $tmp"
exit 0
