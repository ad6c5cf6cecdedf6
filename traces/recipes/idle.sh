#!/bin/sh
# Regenerate traces/idle.dat: a few seconds of an idle machine, every kmem event (slab
# events included, so importers see types they were not asked for), the rest of the
# default mm events, kernel stacks of every event (-T) and two trace_marker lines.
# Usage (root): traces/recipes/idle.sh [OUT.dat]
. "$(dirname "$0")/common.sh"

out=${1:-$REPO/traces/idle.dat}
# shellcheck disable=SC2046
bc_record_start "$WORK/idle.dat" -T -e kmem $(bc_events $BC_DEFAULT_EVENTS)
bc_marker "bigchunk-fixture idle begin"
sleep "${IDLE_SECONDS:-3}"
bc_marker "bigchunk-fixture idle end"
sleep 0.5
bc_record_stop
install -m 0644 "$WORK/idle.dat" "$out"
echo "wrote $out: $(stat -c %s "$out") bytes"
