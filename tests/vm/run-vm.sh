#!/bin/bash
# Boot one fetched kernel under QEMU TCG with the rig's initramfs, run a job in the guest and
# bring its results out through a raw virtio disk (a tar stream the guest writes to /dev/vda).
#
#   tests/vm/run-vm.sh SERIES NAME [KERNEL-ARGS...]
#
# SERIES is a kernel fetched by fetch-kernels.sh (6.1, 6.12); KERNEL-ARGS are added to the
# command line (bc.job=light, bc.tracecmd=1, movablecore=1G, ...). Results go to
# CACHE/out/NAME/: vm.db, guest.log, record.log, console.log, wall (seconds). Needs
# ./bigchunk and build/workload built; BC_VM_MEM sets the guest memory (default 4G).
# Exit 0 when vm.db came out, 1 when not, 2 usage.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 SERIES NAME [KERNEL-ARGS...]" >&2; exit 2; }
series=$1 name=$2; shift 2
cache=${BC_VM_CACHE:-build/vm}
bigchunk=${BIGCHUNK:-./bigchunk} workload=${BC_WORKLOAD:-build/workload}
timeout=${BC_VM_TIMEOUT:-900}
kdir="$cache/k-$series"
[ -s "$kdir/vmlinuz" ] || { echo "run-vm: no kernel $series in $cache (run fetch-kernels.sh)" >&2; exit 2; }
qemu=$(command -v qemu-system-x86_64) || { echo "run-vm: qemu-system-x86_64 is not installed" >&2; exit 2; }
here=$(dirname "$0")

# The initramfs is rebuilt when any of its inputs is newer.
initrd="$cache/initrd-$series.cpio.gz"
if [ ! -s "$initrd" ] || [ -n "$(find "$bigchunk" "$workload" "$here/init" "$here/guest-run.sh" \
	"$here/mkinitramfs.sh" "$here/../../capture/bigchunk-snapshot.sh" -newer "$initrd" 2>/dev/null)" ]; then
	"$here/mkinitramfs.sh" "$kdir" "$initrd" "$bigchunk" "$workload"
fi

out="$cache/out/$name"
rm -rf "$out"; mkdir -p "$out"
disk="$out/disk.raw"
truncate -s 2G "$disk"
start=$(date +%s)
set +e
timeout "$timeout" "$qemu" -accel tcg,thread=${BC_VM_TCG_THREAD:-single} -cpu max,la57=off,cx16=off -m "${BC_VM_MEM:-4G}" -smp 2 \
	-nographic -no-reboot -kernel "$kdir/vmlinuz" -initrd "$initrd" \
	-drive file="$disk",format=raw,if=virtio,cache=unsafe \
	-append "console=ttyS0 panic=-1 quiet loglevel=4 $*" </dev/null >"$out/console.log" 2>&1
rc=$?
set -e
echo $(( $(date +%s) - start )) > "$out/wall"
[ $rc = 124 ] && echo "run-vm: $series $name: QEMU timed out after ${timeout}s" >&2
tar -xf "$disk" -C "$out" 2>/dev/null || :
rm -f "$disk"
if [ ! -s "$out/vm.db" ]; then
	echo "run-vm: $series $name: no capture came out (console: $out/console.log)" >&2
	tail -20 "$out/console.log" >&2
	exit 1
fi
echo "run-vm: $series $name: $(cat "$out/wall") s wall"
