#!/bin/sh
# The trace-cmd twin of hugetlb.sh: 'trace-cmd record' of the default mm events while
# the 2 MiB hugetlb pool grows by MIB/2 pages and shrinks back (build/workload
# hugetlb), with snapshot directories before, after the growth and after the shrink
# taken inside the trace by capture/bigchunk-snapshot.sh (its markers align them).
# Import: bigchunk import -o OUT.db OUT.dat --snapshot SNAPDIR/before
#         --snapshot SNAPDIR/grown --snapshot SNAPDIR/shrunk
# Usage (root, from a built tree): traces/recipes/hugetlb-dat.sh OUT.dat SNAPDIR [MIB]
. "$(dirname "$0")/common.sh"

out=$1
snapout=$2
mib=${3:-1024}
WL=${BC_WORKLOAD:-$REPO/build/workload}
[ -x "$WL" ] || { echo "recipe: run 'make build/workload' first" >&2; exit 1; }

snap() {
	sh "$REPO/capture/bigchunk-snapshot.sh" -m "$INSTANCE" -l "$1" "$WORK/snap/$1"
}

# shellcheck disable=SC2046
bc_record_start "$WORK/hugetlb.dat" -b 32768 $(bc_events $BC_DEFAULT_EVENTS)
mkdir -p "$WORK/snap"
snap before
"$WL" hugetlb "$mib" 60 > "$WORK/workload.out" &
WL_PID=$!
# the workload puts the pool back on SIGTERM
trap 'kill "$WL_PID" 2>/dev/null; bc_cleanup' EXIT
i=0
until grep -q '^hugetlb pool' "$WORK/workload.out"; do
	kill -0 "$WL_PID" 2>/dev/null && [ $i -lt 300 ] || { kill "$WL_PID" 2>/dev/null; exit 1; }
	sleep 0.1
	i=$((i + 1))
done
snap grown
kill -USR1 "$WL_PID"
wait "$WL_PID"
snap shrunk
sleep 0.5
bc_record_stop
cat "$WORK/workload.out"
install -m 0644 "$WORK/hugetlb.dat" "$out"
rm -rf "$snapout"
mkdir -p "$snapout"
cp -R "$WORK/snap/before" "$WORK/snap/grown" "$WORK/snap/shrunk" "$snapout/"
echo "wrote $out: $(stat -c %s "$out") bytes; $snapout: $(du -sh --apparent-size "$snapout" | cut -f1)"
