#!/bin/sh
# Regenerate the captures of Debian's 6.12 kernel booted in QEMU TCG (tests/vm/), made for
# the layouts this machine does not have:
#   traces/vm-movable.db   movablecore=1G in a 6 GiB guest: Normal 0x100000-0x180000 and
#                          ZONE_MOVABLE 0x180000-0x1c0000
#   traces/vm-reserved.db  memmap=256M$0x100000000 in a 4 GiB guest: Normal spans
#                          0x100000-0x140000 but its first 256 MiB are a reserved range
#                          (not System RAM, not present)
#   traces/vm-cma.db       cma=256M in a 4 GiB guest, on a kernel built with CONFIG_CMA from
#                          Debian's linux-source-6.12 (tests/vm/build-cma-kernel.sh; Debian's
#                          own kernels have no CMA): the kernel puts the area at the start of
#                          Normal, 128 MIGRATE_CMA pageblocks 0x100000-0x110000
#   traces/vm-cma-alloc.db, vm-cma-alloc-plain.db  the cmalight job (8 cma_alloc() through
#                          debugfs) on the CMA kernel and on Debian's 6.12, both nokaslr
#   traces/vm-6.12.dat     trace-cmd record (file version 7, zstd) beside bigchunk record in
#                          the light job on Debian's 6.12 (bc.tracecmd=1 bc.tcsnap=0,
#                          nokaslr, 4 GiB): the same events as bigchunk record, in
#                          trace-cmd's top buffer; for the import tests and bench-import
# All run the guest's light job (64 MiB of anonymous memory held, page cache, slab, then a
# 1 GiB hugetlb probe and two offline probes). Needs qemu-system-x86, busybox-static, the
# kernel package (tests/vm/fetch-kernels.sh downloads it) and a built tree (make,
# make build/workload). Each must stay below 5 MiB.
# The CMA kernel takes the longest: build-cma-kernel.sh keeps an image already built.
# Usage: traces/recipes/vm.sh [movable|reserved|cma|cmaalloc|dat]...
set -eu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO"
[ -x ./bigchunk ] && [ -x build/workload ] || { echo "recipe: run 'make' and 'make build/workload' first" >&2; exit 1; }
tests/vm/fetch-kernels.sh
cache=${BC_VM_CACHE:-build/vm}
for what in ${*:-movable reserved}; do
	case $what in
	movable)
		BC_VM_MEM=6G tests/vm/run-vm.sh 6.12 vm-movable bc.job=light movablecore=1G ;;
	reserved)
		BC_VM_MEM=4G tests/vm/run-vm.sh 6.12 vm-reserved bc.job=light 'memmap=256M$0x100000000' ;;
	cma)
		tests/vm/build-cma-kernel.sh
		BC_VM_MEM=4G tests/vm/run-vm.sh cma vm-cma bc.job=light cma=256M ;;
	cmaalloc)
		# cma_alloc() on the CMA kernel and the same job on Debian's: compare's cma: check
		tests/vm/build-cma-kernel.sh
		BC_VM_MEM=4G tests/vm/run-vm.sh cma vm-cma-alloc bc.job=cmalight bc.cma=8:2048 \
			cma=256M nokaslr
		BC_VM_MEM=4G tests/vm/run-vm.sh 6.12 vm-cma-alloc-plain bc.job=cmalight \
			bc.cma=8:2048 nokaslr
		cp "$cache/out/vm-cma-alloc-plain/vm.db" traces/vm-cma-alloc-plain.db
		chmod 0644 traces/vm-cma-alloc-plain.db
		what=cma-alloc ;;
	dat)
		# the trace-cmd twin only: without the shell-twin snapshots (their page reads
		# are page traffic of their own) the file stays near 2 MB, 1.3 MB of it
		# trace-cmd's compressed kallsyms of the Debian kernel
		BC_VM_MEM=4G tests/vm/run-vm.sh 6.12 vm-6.12-dat bc.job=light bc.tracecmd=1 \
			bc.tcsnap=0 nokaslr
		install -m 0644 "$cache/out/vm-6.12-dat/trace.dat" traces/vm-6.12.dat
		continue ;;
	*)
		echo "recipe: unknown capture $what" >&2; exit 2 ;;
	esac
	cp "$cache/out/vm-$what/vm.db" "traces/vm-$what.db"
	chmod 0644 "traces/vm-$what.db"
done
