#!/bin/sh
# Snapshot figures: time to write a snapshot directory of this machine, to load it into
# a capture, to load a live snapshot straight into a capture, and bytes stored per PFN.
# Needs root (kpageflags); prints a SKIP line otherwise.
set -u
bc=${BIGCHUNK:-./bigchunk}
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: bench-snapshot: needs root (reads /proc/kpageflags)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bc-bench-snap.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
"$bc" snapshot -o "$tmp/snap" || exit 1
"$bc" snapshot --db "$tmp/dir.db" --from "$tmp/snap" || exit 1
"$bc" snapshot --db "$tmp/live.db" || exit 1
raw=$(($(wc -c < "$tmp/snap/kpageflags") + $(wc -c < "$tmp/snap/kpagecount")))
echo "raw page files: $raw bytes; capture file $(wc -c < "$tmp/dir.db") bytes"
if command -v zstd >/dev/null; then
	echo "zstd -3 of the page files: $(zstd -q -c "$tmp/snap/kpageflags" | wc -c) + $(zstd -q -c "$tmp/snap/kpagecount" | wc -c) bytes"
fi
