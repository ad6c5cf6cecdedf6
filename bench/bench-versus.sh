#!/bin/sh
# bench-versus: is this tree slower than another revision at replay and predict?
#
# Runs in `make bench` only when a baseline is named: BC_BENCH_REV=REV (a git revision,
# built once into a temporary worktree) or BC_BENCH_BASE=PATH (a built bigchunk binary).
# Both binaries run on the same capture, alternately, RUNS times each; the best CPU
# time (user + sys) of each is kept, and the ratio this/base is printed (below 1.00 is
# faster). Alternating runs share whatever else the machine is doing.
#
# The capture: BC_BENCH_CAPTURE, else the largest bundled traces/*.db (a copy, so the
# stored results of one binary never reach the other).
# Usage: BC_BENCH_REV=v0.1 bench/bench-versus.sh   (env BIGCHUNK, RUNS)
set -u
cd "$(dirname "$0")/.." || exit 2
BIGCHUNK=${BIGCHUNK:-./bigchunk}
RUNS=${RUNS:-5}
rev=${BC_BENCH_REV:-}
base=${BC_BENCH_BASE:-}

if [ -z "$rev" ] && [ -z "$base" ]; then
	echo "SKIP: bench-versus: no baseline named (set BC_BENCH_REV=REV or BC_BENCH_BASE=BINARY)"
	exit 0
fi
if [ ! -x /usr/bin/time ]; then
	echo "SKIP: bench-versus: needs /usr/bin/time (Debian package 'time')"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bc-bench-versus.XXXXXX") || exit 2
cleanup() {
	[ -d "$tmp/tree" ] && git worktree remove --force "$tmp/tree" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

if [ -z "$base" ]; then
	echo "building $rev for the baseline ..."
	if ! git worktree add --detach "$tmp/tree" "$rev" >"$tmp/build.log" 2>&1 ||
	   ! make -C "$tmp/tree" -j2 bigchunk >>"$tmp/build.log" 2>&1; then
		echo "bench-versus: cannot build $rev (log follows)" >&2
		tail -20 "$tmp/build.log" >&2
		exit 2
	fi
	base=$tmp/tree/bigchunk
fi
cap=${BC_BENCH_CAPTURE:-$(ls -S traces/*.db 2>/dev/null | head -1)}
if [ -z "$cap" ] || [ ! -f "$cap" ]; then
	echo "SKIP: bench-versus: no capture (set BC_BENCH_CAPTURE)"
	exit 0
fi
cp "$cap" "$tmp/this.db" && cp "$cap" "$tmp/base.db" || exit 2

# cpu BIN DB COMMAND ARGS...: CPU seconds of one run of "BIN COMMAND DB ARGS..."
cpu() {
	bin=$1 db=$2 cmd=$3
	shift 3
	/usr/bin/time -f "%U %S" -o "$tmp/time" "$bin" "$cmd" "$db" "$@" >/dev/null 2>&1
	[ $? -le 1 ] || return 1
	awk 'END { print $1 + $2 }' "$tmp/time"
}

# job NAME ARGS...: alternate the two binaries, best of RUNS each, print the ratio
job() {
	name=$1
	shift
	bt= bb= i=0
	while [ $i -lt "$RUNS" ]; do
		t=$(cpu "$BIGCHUNK" "$tmp/this.db" "$@") || { echo "bench-versus: $name failed" >&2; return 1; }
		b=$(cpu "$base" "$tmp/base.db" "$@") || { echo "bench-versus: $name (base) failed" >&2; return 1; }
		bt=$(echo "$t $bt" | awk '{ print ($2 == "" || $1 < $2) ? $1 : $2 }')
		bb=$(echo "$b $bb" | awk '{ print ($2 == "" || $1 < $2) ? $1 : $2 }')
		i=$((i + 1))
	done
	echo "$name $bt $bb" | awk '{ printf "  %-28s this %6.2f s   base %6.2f s   ratio %.2f\n", $1, $2, $3, ($3 > 0 ? $2 / $3 : 0) }'
}

echo "capture $(basename "$cap"), best CPU time of $RUNS alternating runs, base ${rev:-$base}"
rc=0
job replay replay --no-store || rc=1
job predict-1G-count4 predict --size 1G --count 4 --no-store || rc=1
job predict-2M-every-1s predict --size 2M --every 1s --no-store || rc=1
exit $rc
