#!/bin/bash
# Did a capture's kernel have the CMA area it was booted with? Its first snapshot's
# pagetypeinfo counts MIGRATE_CMA pageblocks and cma_areas (debugfs) says where they are.
# Prints one line; exit 0 yes, 1 no.
#
#   tests/vm/cma-present.sh CAPTURE.db
set -uo pipefail
db=$1
q() { "${BIGCHUNK:-./bigchunk}" query "$db" "$1" --csv 2>/dev/null | tail -n +2; }
snap=$(q "SELECT min(snap) FROM pagetype_blocks")
blocks=$(q "SELECT coalesce(sum(nr_blocks), 0) FROM pagetype_blocks WHERE snap = $snap AND migratetype = 'CMA'")
areas=$(q "SELECT content FROM snapshot_files WHERE snap = $snap AND name = 'cma_areas'" | tr '\n' ';')
echo "cma: ${blocks:-0} CMA pageblocks, areas: ${areas:-none}"
[ "${blocks:-0}" -gt 0 ] && [ -n "$areas" ]
