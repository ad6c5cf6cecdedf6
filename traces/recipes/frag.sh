#!/bin/sh
# Regenerate traces/frag.dat: the default mm events under a fragmenting workload
# (frag-workload.c: anonymous faults with munmap'ed holes plus page-cache churn),
# bracketed by trace_marker lines, 32 MiB per-CPU buffers (no loss expected).
# Usage (root): traces/recipes/frag.sh [OUT.dat]
. "$(dirname "$0")/common.sh"

out=${1:-$REPO/traces/frag.dat}
${CC:-cc} -O2 -Wall -o "$WORK/frag-workload" "$REPO/traces/recipes/frag-workload.c"
# shellcheck disable=SC2046
bc_record_start "$WORK/frag.dat" -b 32768 $(bc_events $BC_DEFAULT_EVENTS)
bc_marker "bigchunk-fixture frag begin"
"$WORK/frag-workload" "$WORK/churn.bin" "${FRAG_ROUNDS:-4}" "${FRAG_ANON_MIB:-96}" \
	"${FRAG_FILE_MIB:-48}"
bc_marker "bigchunk-fixture frag end"
sleep 0.5
bc_record_stop
install -m 0644 "$WORK/frag.dat" "$out"
echo "wrote $out: $(stat -c %s "$out") bytes"
