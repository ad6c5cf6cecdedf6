#!/bin/bash
# Score one VM capture: replay fidelity at every snapshot after the first, predict --verify
# and check, on a copy (the commands store their results into the file). Prints one line per
# figure and "score: pass" or "score: FAIL (reasons)"; exit 0 pass, 1 below a threshold, 2 error.
#
#   tests/vm/score.sh CAPTURE.db [NAME]
#
# Thresholds (BC_VM_MIN_* override), set from the 6.1 and 6.12 captures measured with this rig:
#   free/in-use >= 99.9 %, kind >= 99 % at every scored snapshot, buddyinfo (share of the zone's
#   free pages the model holds at another order than buddyinfo) <= 1 %, predict --verify: the
#   outcome (success or failure) agrees on >= 99 % of real attempts (the culprit pfn of a
#   failed offline is reported, not gated), check: no violation. BC_VM_MAX_FREECOUNT
#   (default 0) lets through that many of freecount's snapshot comparisons; a difference
#   in pageblocks per type confined to types the seed guessed is explained, not counted.
#   simulate --teacher: the share of allocation requests given the kernel's pfn, gated at
#   BC_VM_MIN_TEACHER % (default 99, the model's target). The free-running simulation's
#   zone orders missed at each snapshot and its allocations in another zone than the
#   kernel's are printed, not gated (not yet within the target on the frag captures); so
#   is the teacher's pcp sizing (drains and refills asked at the kernel's own decisions
#   alike, pcp->count and pcp->high against the later snapshots' zoneinfo).
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 CAPTURE.db [NAME]" >&2; exit 2; }
bigchunk=${BIGCHUNK:-./bigchunk}
name=${2:-$(basename "$1" .db)}
min_free=${BC_VM_MIN_FREE:-99.9} min_kind=${BC_VM_MIN_KIND:-99} max_buddy=${BC_VM_MAX_BUDDY:-1}
min_verify=${BC_VM_MIN_VERIFY:-99} max_freecount=${BC_VM_MAX_FREECOUNT:-0}
min_teacher=${BC_VM_MIN_TEACHER:-99}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp "$1" "$tmp/c.db" || exit 2
"$bigchunk" replay "$tmp/c.db" > "$tmp/replay" 2>&1 || { cat "$tmp/replay" >&2; exit 2; }
# predict --verify and check exit 1 on a disagreement or a violation: scored below.
"$bigchunk" predict --verify "$tmp/c.db" > "$tmp/verify" 2>&1
[ $? -le 1 ] || { cat "$tmp/verify" >&2; exit 2; }
"$bigchunk" check "$tmp/c.db" > "$tmp/check" 2>&1
[ $? -le 1 ] || { cat "$tmp/check" >&2; exit 2; }
"$bigchunk" simulate --teacher "$tmp/c.db" > "$tmp/teacher" 2>&1 || { cat "$tmp/teacher" >&2; exit 2; }
"$bigchunk" simulate --no-store "$tmp/c.db" > "$tmp/simulate" 2>&1 || { cat "$tmp/simulate" >&2; exit 2; }
cp "$tmp/replay" "$tmp/verify" "$tmp/check" "$tmp/teacher" "$tmp/simulate" "$(dirname "$1")/" 2>/dev/null
awk -v name="$name" -v min_free="$min_free" -v min_kind="$min_kind" -v max_buddy="$max_buddy" \
    -v min_verify="$min_verify" -v max_freecount="$max_freecount" -v min_teacher="$min_teacher" '
function low(what, v, lim) { fail = fail " " what " " v "<" lim }
FILENAME ~ /replay$/ && /^snapshot #/ { snap = $2; sub(":", "", snap); order[++nsnap] = snap }
FILENAME ~ /replay$/ && /^  free vs in use/ { v = $5 + 0; line[snap] = line[snap] " free " $5;
	if (v < min_free) low("free/in-use@" snap, v, min_free) }
FILENAME ~ /replay$/ && /^  kind/ { v = $2 + 0; line[snap] = line[snap] " kind " $2;
	if (v < min_kind) low("kind@" snap, v, min_kind) }
FILENAME ~ /replay$/ && /^  buddyinfo/ { v = $2 + 0; line[snap] = line[snap] " buddyinfo " $2;
	if (v > max_buddy) { fail = fail " buddyinfo@" snap " " v ">" max_buddy } }
FILENAME ~ /replay$/ && /^anomalies/ { anomalies = $NF }
FILENAME ~ /verify$/ && /real attempts,/ { attempts = $2 + 0; agree = $5 + 0 }
FILENAME ~ /verify$/ && /disagree: .*both (fail|succeed)/ { culprit++ }
FILENAME ~ /teacher$/ && /allocation requests asked/ { asked = $(NF - 3) + 0 }
FILENAME ~ /teacher$/ && /^  same pfn/ { teacher = $3 + 0; have_teacher = 1 }
FILENAME ~ /teacher$/ && /^  frees to a pcp list/ { v = $10; sub(/;/, "", v); pcp = pcp " drains alike " v " of " $7 }
FILENAME ~ /teacher$/ && /^  refills/ { v = $6; sub(/;/, "", v); pcp = pcp ", refills " v " of " $3 }
FILENAME ~ /teacher$/ && /^  pcp->count as asked/ { c = $0; sub(/.*\): /, "", c); sub(/ on average.*/, "", c)
	pcp = pcp "; counts " c }
FILENAME ~ /teacher$/ && /^  pcp->high as the model/ { h = $0; sub(/.*zoneinfo: /, "", h); pcp = pcp "; highs " h }
FILENAME ~ /simulate$/ && /^allocations served from another zone/ { other = $0; sub(/^[^:]*: /, "", other) }
FILENAME ~ /simulate$/ && /^  targets:/ { m = $0; sub(/.*free pages per order [A-Za-z]*, /, "", m)
	sub(/ zone orders missed.*/, "", m); missed = missed (missed == "" ? "" : "/") m }
FILENAME ~ /check$/ && /^  [a-z-]+ +(pass|FAIL|inconclusive)/ {
	v = $3 + 0; viol += v
	if ($1 == "freecount" ? v > max_freecount : v > 0) fail = fail " " $1 " " v " violations" }
END {
	for (i = 1; i <= nsnap; i++) printf "%s snapshot %s:%s\n", name, order[i], line[order[i]]
	if (!nsnap) fail = fail " no scored snapshot"
	outcome = attempts ? 100 * (agree + culprit) / attempts : 100
	printf "%s verify: %d real attempts, %d agree, %d more agree on the outcome only (culprit pfn); outcome %.1f%%\n",
		name, attempts, agree, culprit, outcome
	if (outcome < min_verify) low("verify", outcome, min_verify)
	printf "%s check: %d violations; replay anomalies %d\n", name, viol, anomalies
	if (have_teacher) {
		printf "%s teacher: %.3f%% of %d allocation requests given the kernel'"'"'s pfn\n",
			name, teacher, asked
		if (teacher < min_teacher) low("teacher", teacher, min_teacher)
		printf "%s teacher pcp sizing (printed, not gated):%s\n", name, pcp
	} else if (min_teacher > 0) fail = fail " no teacher figure"
	printf "%s free-running: zone orders missed at each snapshot %s; allocations in another zone %s\n",
		name, missed == "" ? "(no snapshot)" : missed, other
	if (fail != "") { printf "%s score: FAIL (%s )\n", name, fail; exit 1 }
	printf "%s score: pass\n", name
}' "$tmp/replay" "$tmp/verify" "$tmp/check" "$tmp/teacher" "$tmp/simulate"
rc=$?
# A failure names its evidence (each failing checker's line and its first violation), so
# that a log's tail says what to look at.
if [ $rc = 1 ]; then
	awk -v name="$name" '/^[a-z-]+(\/[a-z-]+)? at seq / && nv++ < 5 { print name " why: " $0; next }
		/^  [a-z-]+ +FAIL/ { show = 1; print name " why: " $0; next }
		show && /^ +first:/ { print name " why: " $0 }
		{ show = 0 }' "$tmp/check"
	# and each real attempt the prediction disagreed with, with the replay's anomalies
	sed -n "s/^  disagree: /$name why: verify disagrees: /p" "$tmp/verify"
	awk -v name="$name" '/^anomalies/ { on = 1; next } on && /^  of which/ { on = 0 }
		on && /^  / { print name " why: replay anomaly: " substr($0, 3) }' "$tmp/replay"
fi
exit $rc
