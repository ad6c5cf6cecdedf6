#!/bin/bash
# compare's cma: layout against a real CMA kernel. Two captures of the guest job cmaalloc:
# PLAIN from a kernel booted without an area, CMA from the CMA kernel booted with cma=SIZE
# (its cma-alloc.log beside it says where the area was and what each cma_alloc() through
# debugfs gave). From PLAIN, `compare --at marker:bigchunk-job --layout cma:SIZE@BASE`
# asks the same requests at the same point of the job; the count it serves from the area
# must be the kernel's. Prints the figures; exit 0 agree, 1 differ, 2 error.
#
#   tests/vm/cma-compare.sh PLAIN.db CMA-DIR [SIZE]
#
# CMA-DIR holds vm.db and cma-alloc.log of the CMA run (run-vm.sh's output directory).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 PLAIN.db CMA-DIR [SIZE]" >&2; exit 2; }
bigchunk=${BIGCHUNK:-./bigchunk}
plain=$1 dir=$2 size=${3:-256M}
log="$dir/cma-alloc.log"
[ -s "$log" ] || { echo "cma-compare: no $log" >&2; exit 2; }
grep -q '^area ' "$log" || { echo "cma-compare: the CMA run had no area: $(head -1 "$log")" >&2; exit 2; }
base=$(awk '/^area /{print $4}' "$log")
asked=$(grep -c '^alloc ' "$log")
pages=$(awk '/^alloc /{print $3; exit}' "$log")
kernel_ok=$(grep -c '^alloc .* ok ' "$log")
[ "$asked" -gt 0 ] || { echo "cma-compare: no alloc in $log" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp "$plain" "$tmp/p.db" && cp "$dir/vm.db" "$tmp/c.db" || exit 2
"$bigchunk" compare "$tmp/p.db" --size $((pages * 4))K --count "$asked" --at marker:bigchunk-job \
	--layout "cma:$size@$base" --json --no-store > "$tmp/out" 2> "$tmp/err" ||
	{ cat "$tmp/err" >&2; exit 2; }
# The kernel's allocations: its successful alloc_contig_range() attempts in the area.
"$bigchunk" predict --verify "$tmp/c.db" --json 2>/dev/null > "$tmp/verify"
python3 - "$tmp/out" "$tmp/verify" "$base" "$size" "$asked" "$kernel_ok" "$pages" <<'EOF'
import json, sys
out, verify, base, size, asked, kernel_ok, pages = sys.argv[1:8]
base, asked, kernel_ok, pages = int(base), int(asked), int(kernel_ok), int(pages)
L = json.load(open(out))["layouts"][0]
try:
    items = json.load(open(verify)).get("items", [])
except Exception:
    items = []
end = base + 65536 if size == "256M" else None
kp = sorted(i["start_pfn"] for i in items if i["kind"] == "trace_attempt" and i["kernel"]["success"]
            and base <= i.get("start_pfn", -1) and (end is None or i["start_pfn"] < end))
pp = sorted(L["served_pfns"])[:len(kp)] if kp else sorted(L["served_pfns"])
same = len(set(kp) & set(L["served_pfns"]))
print(f"cma-compare: {asked} cma_alloc() of {pages} pages at marker bigchunk-job, area at {base:#x}")
print(f"cma-compare: kernel served {kernel_ok}/{asked}; compare {L['name']} served from the area "
      f"{L['served_from_cma']}/{asked} (on demand after it {L['served'] - L['served_from_cma']}), "
      f"{L['pages_migrated'] / max(L['served'], 1):.1f} pages migrated per success")
print(f"cma-compare: kernel's ranges {len(kp)} in the area, {same} at a pfn compare chose too; "
      f"blockers {L['blockers']}")
sys.exit(0 if L["served_from_cma"] == kernel_ok else 1)
EOF
rc=$?
[ $rc = 0 ] && echo "cma-compare: pass" || echo "cma-compare: FAIL (served count differs)"
exit $rc
