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
