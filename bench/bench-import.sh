#!/bin/sh
# Import throughput: 'bigchunk import' on the largest bundled trace.dat (or
# BC_BENCH_DAT), next to 'trace-cmd report > /dev/null' and bare libtracecmd iteration
# (bench/dat-iterate.c) on the same file, measured in the same run (best of N each).
# As root with tracefs and trace-cmd, also on a larger trace recorded for the purpose
# (traces/recipes/frag.sh with BC_BENCH_ROUNDS rounds, default 12), where the fixed
# cost of opening a trace.dat no longer dominates.
# Every bundled traces/*.dat is measured (the host's and vm-6.12.dat, recorded in
# Debian's 6.12 under QEMU: the target holds on every trace), and the trace.dat of each
# run of tests/vm/ found in build/vm/out (make check-kernels' frag runs in 6.1 and 6.12);
# BC_BENCH_ALL=0 measures only the largest bundled one. Each also gets a CPU line: the
# least and the mean CPU time of BC_BENCH_CPU_RUNS (10) runs of each, in turns
# (bench/cpu-of.c), the ratio that holds on a shared machine where wall time counts
# other processes.
# Target: import >= 2 M events/s and >= 5x trace-cmd report (by the least and the mean).
set -u
cd "$(dirname "$0")/.." || exit 2
BC=${BIGCHUNK:-./bigchunk}
BUILD=${BUILD:-build}
RUNS=${BC_BENCH_RUNS:-5}
dat=${BC_BENCH_DAT:-$(ls -S traces/*.dat 2>/dev/null | head -1)}
[ -n "$dat" ] && [ -e "$dat" ] || { echo "bench-import: no trace.dat to measure"; exit 0; }
[ -x "$BC" ] || { echo "bench-import: $BC not built"; exit 1; }
make --no-print-directory -s BUILD="$BUILD" "$BUILD/bench/dat-iterate" "$BUILD/bench/cpu-of" \
	>/dev/null || { echo "bench-import: cannot build $BUILD/bench/dat-iterate"; exit 1; }
CPU_RUNS=${BC_BENCH_CPU_RUNS:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best_ns N CMD...: the fastest of N runs of CMD (stdout discarded), in ns; fails if
# any run fails.
best_ns() {
	n=$1
	shift
	b=""
	i=0
	while [ $i -lt "$n" ]; do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
		t1=$(date +%s%N)
		d=$((t1 - t0))
		if [ -z "$b" ] || [ "$d" -lt "$b" ]; then b=$d; fi
		i=$((i + 1))
	done
	echo "$b"
}

# best_cpu_ns N CMD...: the least CPU time (user + system, from wait4's rusage: other
# processes on a shared machine do not count) of N runs of CMD, in ns.
best_cpu_ns() {
	n=$1
	shift
	b=""
	i=0
	while [ $i -lt "$n" ]; do
		c=$("$BUILD/bench/cpu-of" "$@" 2>"$tmp/err" | awk '{print $2}') &&
			[ -n "$c" ] || { cat "$tmp/err" >&2; return 1; }
		if [ -z "$b" ] || [ "$c" -lt "$b" ]; then b=$c; fi
		i=$((i + 1))
	done
	echo "$b"
}

# cpu_ratio TRACE.dat: import's and trace-cmd report's CPU time, CPU_RUNS of each taken
# in turns so that both see the same machine: the ratio of the least and of the means.
cpu_ratio() {
	j=0
	while [ $j -lt "$CPU_RUNS" ]; do
		a=$(best_cpu_ns 1 "$BC" import -q -f -o "$tmp/bench.db" "$1") || return 1
		r=$(best_cpu_ns 1 trace-cmd report -i "$1") || return 1
		echo "$a $r"
		j=$((j + 1))
	done >"$tmp/cpu"
	awk -v n="$CPU_RUNS" '{
		si += $1; sr += $2
		if (ci == "" || $1 < ci) ci = $1
		if (cr == "" || $2 < cr) cr = $2
	} END {
		printf "  CPU (least of %d, in turns): import %.1f ms, trace-cmd report %.1f ms: %.2fx\n",
		       n, ci / 1e6, cr / 1e6, cr / ci
		printf "  CPU (mean of %d): import %.1f ms, trace-cmd report %.1f ms: %.2fx\n",
		       n, si / NR / 1e6, sr / NR / 1e6, sr / si
		ok = cr / ci >= 5 && sr / si >= 5
		printf "  target >= 5x trace-cmd report in CPU (least and mean): %s (%.2fx, %.2fx)\n",
		       (ok ? "met" : "NOT met"), cr / ci, sr / si
		printf "%-40s %6.2fx %6.2fx  %s\n", trace, cr / ci, sr / si,
		       (ok ? "met" : "NOT met") >> summary
	}' trace="$1" summary="$tmp/summary" "$tmp/cpu"
}

measure() {	# measure TRACE.dat
	"$BC" import -q -f -o "$tmp/bench.db" "$1" || { echo "bench-import: import failed"; exit 1; }
	events=$("$BC" query "$tmp/bench.db" "SELECT count(*) FROM events" 2>/dev/null | tail -1)
	case "$events" in
	''|*[!0-9]*) events=$(sqlite3 "$tmp/bench.db" "SELECT sum(n) FROM event_chunks" 2>/dev/null) ;;
	esac
	records=$("$BUILD/bench/dat-iterate" "$1" | awk '{print $2}')
	# tracecmd_open() alone (best of N): the fixed cost every reader of this file pays
	open_ns=$(i=0; while [ $i -lt "$RUNS" ]; do "$BUILD/bench/dat-iterate" "$1"; i=$((i + 1)); done |
		awk '{ ns = $6 * 1e9; if (b == "" || ns < b) b = ns } END { printf "%d", b }')

	imp=$(best_ns "$RUNS" "$BC" import -q -f -o "$tmp/bench.db" "$1") || exit 1
	bare=$(best_ns "$RUNS" "$BUILD/bench/dat-iterate" "$1") || exit 1
	if command -v trace-cmd >/dev/null; then
		rep=$(best_ns 3 trace-cmd report -i "$1") || rep=""
	else
		rep=""
	fi

	echo "trace: $1 ($(stat -c %s "$1") bytes, $records records, $events events stored)"
	awk -v ev="$events" -v rec="$records" -v imp="$imp" -v bare="$bare" -v rep="$rep" \
	    -v open="$open_ns" 'BEGIN {
		printf "  bigchunk import:        %8.1f ms  %6.2f M events/s\n", imp / 1e6, ev / imp * 1e3
		if (imp > open)
			printf "    of which tracecmd_open %.1f ms; after it: %.2f M events/s\n", open / 1e6,
			       ev / (imp - open) * 1e3
		printf "  libtracecmd iteration:  %8.1f ms  %6.2f M records/s  (import takes %.2fx)\n",
		       bare / 1e6, rec / bare * 1e3, imp / bare
		if (rep != "")
			printf "  trace-cmd report:       %8.1f ms  %6.2f M records/s  (import is %.1fx faster)\n",
			       rep / 1e6, rec / rep * 1e3, rep / imp
		else
			printf "  trace-cmd report:       not installed, no ratio\n"
		rate = ev / imp * 1e3
		printf "  target >= 2.00 M events/s: %s (%.2f)\n", (rate >= 2 ? "met" : "NOT met"), rate
		if (rep != "")
			printf "  target >= 5x trace-cmd report: %s (%.1fx)\n",
			       (rep / imp >= 5 ? "met" : "NOT met"), rep / imp
	}'
	if command -v trace-cmd >/dev/null; then
		cpu_ratio "$1" || echo "bench-import: CPU measurement failed"
	fi
}

if [ -n "${BC_BENCH_DAT:-}" ] || [ "${BC_BENCH_ALL:-1}" = 0 ]; then
	measure "$dat"
else
	for d in traces/*.dat; do measure "$d"; done
	# the trace-cmd twins of the rig's frag runs in Debian's 6.1 and 6.12 (make
	# check-kernels), when they were made here
	for d in "${BC_VM_CACHE:-build/vm}"/out/*/trace.dat; do
		[ -s "$d" ] && measure "$d"
	done
fi
if [ -z "${BC_BENCH_DAT:-}" ] && [ "$(id -u)" -eq 0 ] && [ -e /sys/kernel/tracing/trace ] &&
   command -v trace-cmd >/dev/null && command -v zstd >/dev/null; then
	echo "recording a larger trace.dat with trace-cmd (traces/recipes/frag.sh) ..."
	# the live lock the live tests and recipes take: no other live run traces with it
	if FRAG_ROUNDS=${BC_BENCH_ROUNDS:-12} flock /tmp/bigchunk-live.lock \
	   sh traces/recipes/frag.sh "$tmp/big.dat" "$tmp/big.snap" >"$tmp/rec.log" 2>&1; then
		measure "$tmp/big.dat"
	else
		echo "bench-import: could not record the larger trace:"; tail -3 "$tmp/rec.log"
	fi
fi
if [ -s "$tmp/summary" ]; then
	echo "import against trace-cmd report, CPU time (least, mean of $CPU_RUNS in turns):"
	cat "$tmp/summary"
fi
