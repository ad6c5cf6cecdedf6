#!/bin/sh
# make run: the main job on the bundled default capture (traces/default.db, recorded
# live with 'bigchunk record' on a 24 GiB, 2-CPU machine, with snapshots and probes).
# What it shows grows with the tool: summary, model fidelity, where 1 GiB would land,
# the invariant check, and the HTML report's path.
set -u
BC=${BIGCHUNK:-./bigchunk}
CAP=${1:-traces/default.db}
if [ ! -f "$CAP" ]; then
	echo "make run: the default capture $CAP is missing" >&2
	exit 2
fi
# Later stages store their results in the capture: work on a copy, keep traces/ clean.
work=${BUILD:-build}/run
mkdir -p "$work" || exit 2
cp "$CAP" "$work/${CAP##*/}" && chmod 0600 "$work/${CAP##*/}" || exit 2
CAP=$work/${CAP##*/}
section() { printf '\n== %s ==\n' "$*"; }
section "bigchunk info $CAP"
"$BC" info "$CAP" || exit $?
# Later stages run only when this build has them ('not yet available' otherwise).
for step in "replay $CAP" "predict $CAP --size 1G --count 4" "check $CAP"; do
	if "$BC" ${step%% *} --help >/dev/null 2>&1 &&
	   ! "$BC" ${step%% *} --help 2>&1 | grep -q "not yet available"; then
		section "bigchunk $step"
		"$BC" $step
		rc=$?
		[ $rc -le 1 ] || exit $rc
	fi
done
# Last, the pictures: the report of the same capture (with the predictions stored above).
if "$BC" report --help >/dev/null 2>&1; then
	section "bigchunk report $CAP -o $work/report.html"
	"$BC" report "$CAP" -o "$work/report.html" || exit $?
	echo "open it in a browser (it needs no network)"
fi
exit 0
