#!/bin/sh
# Fidelity matrix: one row per capture, scored the way the targets are stated.
#   events    events stored
#   snap      per scored snapshot (every snapshot after the seed), as replay scores it:
#             free  per-pfn free/in-use agreement, %          (target >= 99.9)
#             kind  per-pfn kind agreement of in-use pages, % (target >= 99)
#             buddy free pages buddyinfo holds at other orders than the model, % of
#                   the zone's free pages (worst zone). Counted in pages, so an order
#                   with 0 or 1 blocks weighs what it holds, not a relative error that
#                   explodes on small counts                  (target <= 1)
#   verify    predict --verify: real attempts agreed, n/N   (target >= 99%)
#   viol      check: violations                             (target 0)
#   anom      replay: events the model could not explain
#   import    for an imported capture whose trace.dat is found (its meta trace_file, or
#             a .dat of the same name next to it): events/s of 'bigchunk import'
#             (events only, best of BC_FIDELITY_RUNS, default 2) and how many times
#             faster it is than 'trace-cmd report > /dev/null' on the same file, both
#             measured here and now, in wall time and in CPU time (user + system: on
#             a machine shared with other work, wall time mostly measures the wait for
#             a CPU)                                        (target >= 5x)
# A missed target is marked '!'. Works on copies (replay, predict and check store).
#
# usage: bench/bench-fidelity.sh [--json] [CAPTURE.db|TRACE.dat...]
# (default: traces/*.db and traces/*.dat). A trace.dat is imported without snapshots:
# its row has the import figures and what replay and check make of events alone.
# --json prints one JSON array, an object per capture, instead of the table;
# --table FILE.json prints the table of such an array saved before.
set -u
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
BIGCHUNK=${BIGCHUNK:-./bigchunk}
RUNS=${BC_FIDELITY_RUNS:-2}
json=0
table=""
if [ "${1:-}" = --json ]; then
	json=1
	shift
elif [ "${1:-}" = --table ] && [ $# -eq 2 ]; then
	table=$2
fi
bench_need_bigchunk bench-fidelity
command -v jq >/dev/null && [ -x /usr/bin/time ] ||
	{ echo "bench-fidelity: jq or /usr/bin/time (package time) not installed, skipped"; exit 0; }
bench_tmpdir fidelity
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- traces/*.db traces/*.dat

# cost_of CMD...: "WALL_NS CPU_NS" of CMD (stdout dropped; CPU = user + system of it
# and its children), or nothing if it failed.
cost_of() {
	/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || return 1
	awk '{ printf "%.0f %.0f\n", $1 * 1e9, ($2 + $3) * 1e9 }' "$tmp/time"
}

# best_of N CMD...: the lowest wall and the lowest CPU time of N runs.
best_of() {
	n=$1
	shift
	bw=""
	bc=""
	while [ "$n" -gt 0 ]; do
		c=$(cost_of "$@") || return 1
		w=${c% *}
		c=${c#* }
		if [ -z "$bw" ] || [ "$w" -lt "$bw" ]; then bw=$w; fi
		if [ -z "$bc" ] || [ "$c" -lt "$bc" ]; then bc=$c; fi
		n=$((n - 1))
	done
	echo "$bw $bc"
}

# dat_of CAPTURE: the trace.dat it was imported from, if still there.
dat_of() {
	f=$("$BIGCHUNK" info --json "$1" 2>/dev/null | jq -r '.meta.trace_file // empty')
	if [ -n "$f" ] && [ -f "$f" ]; then
		echo "$f"
	elif [ -n "$f" ]; then
		for d in "${1%.db}.dat" "$(dirname "$1")/twin.dat"; do
			[ -f "$d" ] && { echo "$d"; return; }
		done
	fi
}

# score CAPTURE: one JSON object on stdout.
score() {
	c="$tmp/cap.db"
	case $1 in
	*.dat)
		rm -f "$c"
		"$BIGCHUNK" import -q -o "$c" "$1" || return
		dat=$1 ;;
	*)
		cp "$1" "$c" && chmod 600 "$c"
		dat=$(dat_of "$1") ;;
	esac
	"$BIGCHUNK" info --json "$c" > "$tmp/info.json" 2>/dev/null
	"$BIGCHUNK" replay --json --no-store "$c" > "$tmp/replay.json" 2>/dev/null
	"$BIGCHUNK" predict --verify --json --no-store "$c" > "$tmp/verify.json" 2>/dev/null
	[ -s "$tmp/verify.json" ] || echo '{}' > "$tmp/verify.json"
	"$BIGCHUNK" check "$c" > "$tmp/check.txt" 2>&1
	viol=$(sed -n 's/.*; violations \([0-9]*\),.*/\1/p' "$tmp/check.txt" | tail -1)
	imp=""
	rep=""
	if [ -n "$dat" ]; then
		imp=$(best_of "$RUNS" "$BIGCHUNK" import -q -f -o "$tmp/imp.db" "$dat") || imp=""
		if command -v trace-cmd >/dev/null; then
			rep=$(best_of "$RUNS" trace-cmd report -i "$dat") || rep=""
		fi
	fi
	jq -n --arg cap "$1" --arg dat "$dat" --arg viol "${viol:-}" --arg imp "$imp" \
	      --arg rep "$rep" --slurpfile info "$tmp/info.json" \
	      --slurpfile rp "$tmp/replay.json" --slurpfile v "$tmp/verify.json" '
		($info[0] // {}) as $i | ($rp[0] // {}) as $r | ($v[0] // {}) as $v |
		{capture: $cap, source: $i.meta.source, kernel: $i.meta.kernel_release,
		 events: $i.events,
		 snapshots: [($r.snapshots // [])[] | {snap, free: (.pfn_agree_state * 100),
			kind: (.pfn_agree_kind * 100), buddy: (.buddyinfo_free_err * 100),
			model_free_kernel_used, model_used_kernel_free}],
		 verify: {agree: ($v.agree // 0), attempts: ($v.attempts // 0),
			  by_kind: ($v.by_kind // {}),
			  disagreements: [($v.disagreements // [])[] | {kind, why}]},
		 violations: (if $viol == "" then null else ($viol | tonumber) end),
		 anomalies: ([($r.anomalies // {})[]] | add // 0),
		 anomaly_kinds: (($r.anomalies // {}) | with_entries(select(.value > 0))),
		 import: (if $imp == "" then null else
			($imp | split(" ") | map(tonumber)) as $im |
			(if $rep == "" then null else ($rep | split(" ") | map(tonumber)) end) as $re |
			{dat: $dat, wall_ns: $im[0], cpu_ns: $im[1],
			 events_per_s: (($i.events // 0) / $im[0] * 1e9),
			 report_wall_ns: (if $re == null then null else $re[0] end),
			 report_cpu_ns: (if $re == null then null else $re[1] end),
			 vs_report: (if $re == null then null else $re[0] / $im[0] end),
			 vs_report_cpu: (if $re == null then null else $re[1] / ([$im[1], 1e7] | max) end)}
			end)}'
}

if [ -n "$table" ]; then
	cp "$table" "$tmp/all.json" || exit 2
else
	for cap in "$@"; do
		score "$cap"
	done | jq -s . > "$tmp/all.json"
fi

if [ $json = 1 ]; then
	cat "$tmp/all.json"
	exit 0
fi
jq -r '
	def pct(x; lim; up): if x == null then "-" else
		((x * 1000 | round) / 1000 | tostring) + (if (up and x < lim) or ((up | not) and x > lim)
		then "!" else "" end) end;
	def mn(f): if length == 0 then null else (map(f) | min) end;
	def mx(f): if length == 0 then null else (map(f) | max) end;
	def x(r): if r == null then "-" else (((r * 10) | round) / 10 | tostring) +
		(if r < 5 then "!" else "" end) end;
	"capture\tevents\tsnaps\tfree%\tkind%\tbuddy%\tverify\tviol\tanom\timport ev/s\tx report\tx report cpu",
	(.[] | . as $c | .snapshots as $s |
	 [$c.capture, ($c.events | tostring), ($s | length | tostring),
	  ([$s[] | pct(.free; 99.9; true)] | join("/")),
	  ([$s[] | pct(.kind; 99; true)] | join("/")),
	  ([$s[] | pct(.buddy; 1; false)] | join("/")),
	  ("\($c.verify.agree)/\($c.verify.attempts)" +
	   (if $c.verify.attempts > 0 and $c.verify.agree < 0.99 * $c.verify.attempts then "!" else "" end)),
	  (($c.violations // "?") | tostring) + (if ($c.violations // 0) > 0 then "!" else "" end),
	  ($c.anomalies | tostring),
	  (if $c.import == null then "-" else ($c.import.events_per_s | round | tostring) end),
	  x($c.import.vs_report), x($c.import.vs_report_cpu)] | join("\t"))' \
	"$tmp/all.json" | column -t -s "$(printf '\t')"
