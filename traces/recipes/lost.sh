#!/bin/sh
# Regenerate traces/lost.dat: a short anonymous-fault burst (frag-workload.c) into tiny
# per-CPU buffers, so the kernel overwrites events and the file carries real
# ring-buffer gaps (missed events) and overrun counts.
# Usage (root): traces/recipes/lost.sh [OUT.dat]
. "$(dirname "$0")/common.sh"

out=${1:-$REPO/traces/lost.dat}
${CC:-cc} -O2 -Wall -o "$WORK/frag-workload" "$REPO/traces/recipes/frag-workload.c"
# shellcheck disable=SC2046
bc_record_start "$WORK/lost.dat" -b "${LOST_BUFFER_KB:-16}" \
	$(bc_events kmem:mm_page_alloc kmem:mm_page_free kmem:mm_page_free_batched \
		    kmem:mm_page_alloc_zone_locked kmem:mm_page_pcpu_drain)
bc_marker "bigchunk-fixture lost begin"
"$WORK/frag-workload" "$WORK/churn.bin" 2 "${LOST_ANON_MIB:-64}" 8
bc_marker "bigchunk-fixture lost end"
sleep 0.5
bc_record_stop
install -m 0644 "$WORK/lost.dat" "$out"
echo "wrote $out: $(stat -c %s "$out") bytes"
