#!/bin/sh
# The trace-cmd twin of hugetlb.sh: 'trace-cmd record' of the default mm events while
# the 2 MiB hugetlb pool grows by MIB/2 pages and shrinks back (build/workload
# hugetlb), with snapshot directories before, after the growth and after the shrink
# taken inside the trace by capture/bigchunk-snapshot.sh (its markers align them).
# Import: bigchunk import -o OUT.db OUT.dat --snapshot SNAPDIR/before
#         --snapshot SNAPDIR/grown --snapshot SNAPDIR/shrunk
# HUGETLB_1G=K: with the pool grown, also ask for K 1 GiB pages (nr_hugepages of
# hugepages-1048576kB, put back to 0): real alloc_contig_pages() attempts beside the
# pool for predict --verify, which pfn_range_valid_contig() keeps off its pages.
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
GIG=/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages
# the workload puts the pool back on SIGTERM
trap 'kill "$WL_PID" 2>/dev/null; [ -z "${HUGETLB_1G:-}" ] || echo 0 > "$GIG"; bc_cleanup' EXIT
i=0
until grep -q '^hugetlb pool' "$WORK/workload.out"; do
	kill -0 "$WL_PID" 2>/dev/null && [ $i -lt 300 ] || { kill "$WL_PID" 2>/dev/null; exit 1; }
	sleep 0.1
	i=$((i + 1))
done
snap grown
if [ -n "${HUGETLB_1G:-}" ]; then
	echo "$HUGETLB_1G" > "$GIG"
	echo "1 GiB pages: $(cat "$GIG") of $HUGETLB_1G"
	echo 0 > "$GIG"
fi
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
