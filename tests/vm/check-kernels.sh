#!/bin/bash
# make check-kernels: boot Debian's 6.1 and 6.12 kernels under QEMU TCG, record a capture in each
# under a fragmenting workload (with a 1 GiB hugetlb probe and offline probes), and score it
# (tests/vm/score.sh: thresholds there). On 6.12 also two short captures with boot options that
# change the layout: movablecore=1G (ZONE_MOVABLE) and memmap=256M$0x100000000 (a reserved
# range). The frag runs also record a trace-cmd trace.dat beside the capture (bc.tracecmd=1: the
# same events, page-state snapshots by the shell twin before and after), which is imported with
# its snapshots and scored like the capture (NAME-import). When tests/vm/build-cma-kernel.sh has built its kernel, also the frag job on it with
# cma=256M, and the cmaalloc job on it and on 6.12, set side by side by cma-compare.sh. Prints "check-kernels: SKIP (reason)" and exits 0 when QEMU or the kernel packages are
# unavailable (BC_VM_REQUIRE=1 makes that a failure); exit 1 when a capture fails or scores
# below a threshold.
set -uo pipefail
here=$(dirname "$0")
cache=${BC_VM_CACHE:-build/vm}
export BC_VM_CACHE=$cache
skip() {
	echo "check-kernels: SKIP ($*)"
	[ "${BC_VM_REQUIRE:-0}" = 1 ] && exit 1
	exit 0
}
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (package qemu-system-x86)"
command -v busybox >/dev/null || skip "busybox not installed (package busybox-static)"
command -v cpio >/dev/null || skip "cpio not installed (package cpio)"
command -v modinfo >/dev/null || PATH=$PATH:/usr/sbin:/sbin
command -v modinfo >/dev/null || skip "modinfo not installed (package kmod)"
"$here/fetch-kernels.sh" "$cache" || skip "kernel packages unavailable (see the message above)"

# NAME SERIES GUEST-MEMORY KERNEL-ARGS: one run per line. The ZONE_MOVABLE guest has 6 GiB so
# that Normal keeps 2 GiB (offline probes) beside the 1 GiB Movable zone.
runs=${BC_VM_RUNS:-"frag-6.1 6.1 4G bc.tracecmd=1
frag-6.12 6.12 4G bc.tracecmd=1
movable-6.12 6.12 6G bc.job=light movablecore=1G
reserved-6.12 6.12 4G bc.job=light memmap=256M\$0x100000000"}
# The CMA kernel (tests/vm/build-cma-kernel.sh; not built here: it takes longer than all the
# runs) boots with a 256 MiB area when it has been built.
if [ -z "${BC_VM_RUNS:-}" ]; then
	if [ -s "$cache/k-cma/vmlinuz" ]; then
		# cma-alloc: cma_alloc() through debugfs under churn; cma-alloc-plain: the same
		# job on Debian's kernel, from which compare's cma: layout must predict it
		# (cma-compare.sh). nokaslr: the kernel image at the same place in both boots.
		runs="$runs
cma-6.12 cma 4G cma=256M
cma-alloc cma 4G bc.job=cmaalloc cma=256M nokaslr
cma-alloc-plain 6.12 4G bc.job=cmaalloc nokaslr"
	else
		echo "check-kernels: cma-6.12 SKIP (no CMA kernel in $cache/k-cma: tests/vm/build-cma-kernel.sh builds one)"
	fi
fi
start=$(date +%s)
failed=
while read -r name series mem args; do
	[ -n "$name" ] || continue
	t0=$(date +%s)
	# shellcheck disable=SC2086
	if ! BC_VM_MEM=$mem "$here/run-vm.sh" "$series" "$name" $args; then
		failed="$failed $name(run)"
		continue
	fi
	"$here/score.sh" "$cache/out/$name/vm.db" "$name" | tee "$cache/out/$name/score"
	[ "${PIPESTATUS[0]}" = 0 ] || failed="$failed $name"
	# A cma= run must have met its area: CMA pageblocks counted, the area's place recorded.
	case " $args " in *" cma="*)
		if ! "$here/cma-present.sh" "$cache/out/$name/vm.db"; then failed="$failed $name(cma)"; fi ;;
	esac
	# the trace-cmd twin: imported with its snapshots, scored as the capture is
	dir=$cache/out/$name
	if [ -s "$dir/trace.dat" ]; then
		snaps=()
		for s in begin end; do
			[ -s "$dir/tc-snap/$s/taken_at" ] && snaps+=(--snapshot "$dir/tc-snap/$s")
		done
		mkdir -p "$dir/import"
		if [ ${#snaps[@]} = 4 ] && "${BIGCHUNK:-./bigchunk}" import -q -f -o "$dir/import/imported.db" \
			"${snaps[@]}" "$dir/trace.dat"; then
			# gating, as the capture's own score (tests/vm/README.md: the twins)
			"$here/score.sh" "$dir/import/imported.db" "$name-import" | tee "$dir/import/score"
			[ "${PIPESTATUS[0]}" = 0 ] || failed="$failed $name-import"
		else
			echo "check-kernels: $name: trace.dat or its snapshots did not import (${#snaps[@]} snapshot arguments)"
			failed="$failed $name-import"
		fi
	fi
	echo "check-kernels: $name done in $(( $(date +%s) - t0 )) s"
done <<< "$runs"
# compare's cma: layout from the plain capture against what the CMA kernel did
if [ -s "$cache/out/cma-alloc/vm.db" ] && [ -s "$cache/out/cma-alloc-plain/vm.db" ] &&
   [ -z "${BC_VM_RUNS:-}" ]; then
	"$here/cma-compare.sh" "$cache/out/cma-alloc-plain/vm.db" "$cache/out/cma-alloc" ||
		failed="$failed cma-compare"
fi
echo "check-kernels: $(( $(date +%s) - start )) s in all"
if [ -n "$failed" ]; then
	# the failed scores again, so that the end of the log holds the evidence
	for f in "$cache"/out/*/score "$cache"/out/*/import/score; do
		[ -s "$f" ] && grep -q 'score: FAIL' "$f" && cat "$f"
	done
	echo "check-kernels: FAIL:$failed"
	exit 1
fi
echo "check-kernels: pass"
