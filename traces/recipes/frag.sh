#!/bin/sh
# Regenerate traces/frag.dat: the default mm events under a fragmenting workload
# (frag-workload.c: anonymous faults with munmap'ed holes plus page-cache churn),
# bracketed by trace_marker lines, 32 MiB per-CPU buffers (no loss expected); and
# traces/frag.snap/{begin,end}: page-state snapshots taken inside the trace just before
# and after the workload by capture/bigchunk-snapshot.sh, whose trace_marker brackets
# align them to the events ('bigchunk import --snapshot DIR').
# Usage (root): traces/recipes/frag.sh [OUT.dat [SNAPDIR]]
. "$(dirname "$0")/common.sh"

out=${1:-$REPO/traces/frag.dat}
snapout=${2:-$REPO/traces/frag.snap}
command -v zstd >/dev/null || { echo "recipe: zstd not installed" >&2; exit 1; }
${CC:-cc} -O2 -Wall -o "$WORK/frag-workload" "$REPO/traces/recipes/frag-workload.c"

snap() {
	sh "$REPO/capture/bigchunk-snapshot.sh" -m "$INSTANCE" -l "frag-$1" "$WORK/snap/$1"
}

# shellcheck disable=SC2046
bc_record_start "$WORK/frag.dat" -b 32768 $(bc_events $BC_DEFAULT_EVENTS)
mkdir -p "$WORK/snap"
bc_marker "bigchunk-fixture frag begin"
snap begin
"$WORK/frag-workload" "$WORK/churn.bin" "${FRAG_ROUNDS:-2}" "${FRAG_ANON_MIB:-64}" \
	"${FRAG_FILE_MIB:-32}"
snap end
bc_marker "bigchunk-fixture frag end"
sleep 0.5
bc_record_stop
# compress after tracing: zstd's own memory use would fill the trace
zstd -q -19 --rm "$WORK"/snap/*/kpageflags "$WORK"/snap/*/kpagecount
install -m 0644 "$WORK/frag.dat" "$out"
rm -rf "$snapout"
mkdir -p "$snapout"
cp -R "$WORK/snap/begin" "$WORK/snap/end" "$snapout/"
chmod -R u=rwX,go=rX "$snapout"
echo "wrote $out: $(stat -c %s "$out") bytes; $snapout: $(du -sh --apparent-size "$snapout" | cut -f1)"
