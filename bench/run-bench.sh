#!/bin/sh
# make bench: every benchmark, each comparing against a baseline measured in the same
# run. Pieces live next to this file as bench-*.sh; each prints its own figures.
set -u
cd "$(dirname "$0")/.." || exit 2
rc=0
for b in bench/bench-*.sh; do
	[ -e "$b" ] || continue
	printf '\n== %s ==\n' "$b"
	sh "$b" || rc=1
done
exit $rc
