#!/bin/sh
# The report's figures on a synthetic 1 TiB layout (524,288 pageblocks): the time to
# encode and write the data (bench-report), then, with Chromium, the page's draw time
# of the grid (its self-test measures it), and the decoding of the page counts and page
# runs that the first hover and click of a point pay. Target: the draw within 2 s.
set -u
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
bench_tmpdir report
trap 'rm -rf "$tmp"' EXIT
build/bench/bench-report "$tmp/tib.html" || exit 1
chrome=$(command -v chromium || command -v chromium-browser) || {
	echo "draw: skipped, Chromium is not installed"
	exit 0
}
res=$(timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
	--window-size=1400,1400 --dump-dom "file://$tmp/tib.html?selftest" 2>/dev/null)
ms=$(echo "$res" | sed -n 's/.*"draw_ms":\([0-9.]*\).*/\1/p')
ready=$(echo "$res" | sed -n 's/.*"ready_ms":\([0-9.]*\).*/\1/p')
counts=$(echo "$res" | sed -n 's/.*"counts_ms":\([0-9.]*\).*/\1/p')
runs=$(echo "$res" | sed -n 's/.*"runs_ms":\([0-9.]*\).*/\1/p')
[ -n "$ms" ] && [ -n "$ready" ] || { echo "draw: the page did not report its draw time"; exit 1; }
printf 'draw of the 1 TiB grid in Chromium: %.0f ms; drawn %.0f ms after navigation start\n' \
	"$ms" "$ready"
[ -n "$counts" ] && [ -n "$runs" ] &&
	printf 'first hover and click (decoding every pageblock'"'"'s counts, every page'"'"'s run): %.0f ms, %.0f ms\n' \
		"$counts" "$runs"
echo "(target: drawn within 2000 ms)"
awk -v ms="$ready" 'BEGIN { exit !(ms <= 2000) }'
