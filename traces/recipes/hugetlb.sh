#!/bin/sh
# A capture of 2 MiB hugetlb pool growth and shrink with 'bigchunk record': snapshots
# before the growth, after it (the pool full, a quarter of it mapped) and after the
# shrink, each taken inside the recording with 'bigchunk snapshot --marker' (the
# recorder's instance is bigchunk-<its pid>, the parent of the recorded shell), then
# stored into the capture in that order. The pool grows by MIB/2 pages
# (build/workload hugetlb: nr_hugepages of hugepages-2048kB) and is put back to what it
# was, also on failure.
# Usage (root, from a built tree): traces/recipes/hugetlb.sh OUT.db [MIB]
set -eu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BC=${BIGCHUNK:-$REPO/bigchunk}
WL=${BC_WORKLOAD:-$REPO/build/workload}
out=$1
mib=${2:-1024}
[ -x "$BC" ] && [ -x "$WL" ] || { echo "recipe: run 'make' and 'make build/workload' first" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bc-hugetlb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP

# The recorded command: snapshot, grow and hold, snapshot, shrink, snapshot.
cat > "$WORK/phases.sh" <<'PHASES'
set -eu
bc=$1 wl=$2 mib=$3 dir=$4
snap() { "$bc" snapshot -o "$dir/$1" --marker "bigchunk-$PPID" --label "$1" > /dev/null; }
snap before
"$wl" hugetlb "$mib" 60 > "$dir/workload.out" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
i=0
until grep -q '^hugetlb pool' "$dir/workload.out"; do
	kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ] || { kill "$pid" 2>/dev/null; exit 1; }
	sleep 0.1
	i=$((i + 1))
done
snap grown
kill -USR1 "$pid"
wait "$pid"
snap shrunk
PHASES
"$BC" record -f -q --no-snapshots -o "$out" -- sh "$WORK/phases.sh" "$BC" "$WL" "$mib" "$WORK"
cat "$WORK/workload.out"
for s in before grown shrunk; do
	"$BC" snapshot --db "$out" --from "$WORK/$s" --label "$s"
done
