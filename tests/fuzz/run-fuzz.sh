#!/bin/bash
# Run the libFuzzer targets of tests/fuzz/ (built by `make fuzz` into BUILD, default
# build-fuzz) for FUZZ_SECONDS each (default 60). Usage: run-fuzz.sh BUILD TARGET...
#
# Corpus: BUILD/corpus/TARGET, seeded from traces/ on the first run (tests/fuzz/mkseed.c
# and the snapshot directories) plus the small seeds committed in tests/fuzz/corpus/TARGET;
# what libFuzzer finds is added to it, so later runs continue from there.
# Findings: BUILD/crashes/TARGET-crash-*, -leak-*, -timeout-*, -oom-* (reproduce with
# BUILD/fuzz/fuzz-TARGET FILE); the log of each run: BUILD/logs/TARGET.log.
# Exit status: 1 if any target found something, else 0. Prints execs per target.
set -u
build=$1
shift
secs=${FUZZ_SECONDS:-60}
src=tests/fuzz/corpus
mkdir -p "$build/crashes" "$build/logs"

# Bounds per target: max input length and RSS.
max_len() {
	case $1 in
	db) echo 65536 ;;
	pages) echo 70000 ;;
	dat) echo 65536 ;;
	chunk) echo 4096 ;;
	*) echo 8192 ;;
	esac
}

seed() {
	local t=$1 dir=$build/corpus/$1 f
	mkdir -p "$dir"
	[ -n "$(ls -A "$dir")" ] && return 0
	case $t in
	snap)
		for f in traces/snapshot-sample/* traces/frag.snap/*/*; do
			[ -f "$f" ] && [ "$(stat -c %s "$f")" -le 8192 ] || continue
			cp "$f" "$dir/$(echo "$f" | tr / _)"
		done ;;
	chunk|pages)
		for f in traces/*.db; do
			"$build/fuzz/mkseed" "${t/chunk/chunks}" "$f" "$dir" || return 1
		done ;;
	db)
		"$build/fuzz/mkseed" db "$dir/mini.db" || return 1 ;;
	dat)
		for f in traces/*.dat; do
			head -c 65536 "$f" > "$dir/$(basename "$f")"
		done ;;
	esac
}

fail=0
summary=
for t in "$@"; do
	bin=$build/fuzz/fuzz-$t
	log=$build/logs/$t.log
	if ! seed "$t"; then
		echo "fuzz $t: cannot make the seed corpus" >&2
		fail=1
		continue
	fi
	dirs=("$build/corpus/$t")
	[ -d "$src/$t" ] && dirs+=("$src/$t")
	echo "  FUZZ    $t (${secs}s)"
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$bin" -max_total_time="$secs" -max_len="$(max_len "$t")" -rss_limit_mb=2048 \
		-malloc_limit_mb=1024 -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$build/crashes/$t-" "${dirs[@]}" > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	line=$(printf '%-6s %10s execs %7s/s  %s' "$t" "${execs:-?}" "${rate:-?}" "${cov:-}")
	if [ $rc -ne 0 ]; then
		fail=1
		line="$line  FAILED (exit $rc; see $log, $build/crashes/$t-*)"
		grep -m3 -E '^==[0-9]+==ERROR|runtime error|^SUMMARY' "$log" | sed 's/^/    /'
	fi
	summary="$summary$line"$'\n'
done
printf '\nfuzz: %ss per target\n%s' "$secs" "$summary"
exit $fail
