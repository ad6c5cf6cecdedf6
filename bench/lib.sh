# Sourced by the bench scripts (not run on its own): the checks and the scratch
# directory every one of them starts with. BIGCHUNK is the binary under test.

# Exit 2 (a failure, not a skip) when $BIGCHUNK is not built; $1 names the bench.
bench_need_bigchunk() {
	if [ ! -x "$BIGCHUNK" ]; then
		echo "$1: $BIGCHUNK not built (make)" >&2
		exit 2
	fi
}

# Set tmp to a new private scratch directory named after the bench $1; the caller
# removes it (trap).
bench_tmpdir() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/bc-$1.XXXXXX") || exit 2
	chmod 700 "$tmp"
}

# Best of 3 runs of "$@" (output discarded): prints "MS RC" (the exit status of the last).
bench_best() {
	b=""
	for i in 1 2 3; do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		rc=$?
		t1=$(date +%s%N)
		ms=$(( (t1 - t0) / 1000000 ))
		if [ -z "$b" ] || [ "$ms" -lt "$b" ]; then b=$ms; fi
	done
	echo "$b $rc"
}

# "$BIGCHUNK" "$@" CAPTURE against plain replay of the same capture (a private copy of
# BC_BENCH_CAPTURE, else the largest bundled traces/*.db), best of 3 each, measured in
# the same run: prints both and the ratio, exits 1 above $2. $1 names the bench, $3
# the measured command in the output; the rest is its command line without the capture.
bench_vs_replay() {
	name=$1 limit=$2 label=$3
	shift 3
	bench_need_bigchunk "$name"
	bench_tmpdir "$name"
	trap 'rm -rf "$tmp"' EXIT
	src=${BC_BENCH_CAPTURE:-$(ls -S traces/*.db 2>/dev/null | head -1)}
	[ -n "$src" ] || { echo "$name: no capture to measure"; exit 0; }
	cap=$tmp/cap.db
	cp "$src" "$cap" || exit 2
	set -- $(bench_best "$BIGCHUNK" replay --no-store "$cap") "$@"
	replay_ms=$1 replay_rc=$2
	shift 2
	set -- $(bench_best "$BIGCHUNK" "$@" "$cap")
	ms=$1 rc=$2
	echo "capture: $src"
	if [ "$replay_rc" -ne 0 ] || [ "$rc" -ne 0 ]; then
		echo "$name: replay exit $replay_rc, $label exit $rc"
		exit 1
	fi
	[ "$replay_ms" -gt 0 ] || replay_ms=1
	ratio=$(awk -v t="$ms" -v r="$replay_ms" 'BEGIN { printf "%.2f", t / r }')
	echo "replay: ${replay_ms} ms   $label: ${ms} ms   ratio: ${ratio}x (limit ${limit}x)"
	awk -v x="$ratio" -v l="$limit" 'BEGIN { exit !(x <= l) }' ||
		{ echo "$name: FAIL, above ${limit}x"; exit 1; }
	echo "$name: ok"
}
