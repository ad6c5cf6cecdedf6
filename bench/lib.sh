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
