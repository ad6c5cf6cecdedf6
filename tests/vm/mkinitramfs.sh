#!/bin/bash
# Build the guest's initramfs for one kernel: busybox-static, bigchunk, the workload generator,
# trace-cmd (when installed), their shared libraries (from ldd), the snapshot script's shell twin
# (capture/bigchunk-snapshot.sh), the modules the kernel needs
# for a virtio disk (from each module's "depends", decompressed, in load order) and
# tests/vm/init as /init.
#
#   tests/vm/mkinitramfs.sh KDIR OUT.cpio.gz BIGCHUNK WORKLOAD
#
# KDIR is a kernel directory made by fetch-kernels.sh (modules/lib/modules/RELEASE/).
set -euo pipefail
[ $# = 4 ] || { echo "usage: $0 KDIR OUT.cpio.gz BIGCHUNK WORKLOAD" >&2; exit 2; }
kdir=$1 out=$2 bigchunk=$3 workload=$4
here=$(cd "$(dirname "$0")" && pwd)
busybox=$(command -v busybox) || { echo "mkinitramfs: busybox-static is not installed" >&2; exit 2; }
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' || ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
	{ echo "mkinitramfs: $busybox is not static (install busybox-static)" >&2; exit 2; }
rel=$(cat "$kdir/release")
mods="$kdir/modules/lib/modules/$rel"

root=$(mktemp -d); trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,cap,lib/modules,etc}
cp "$busybox" "$root/bin/busybox"
for a in $("$busybox" --list); do [ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"; done

# A program and every library ldd names, at the same paths as on the host.
add_prog() {
	local p=$1 dst=$2 l
	install -D -m 0755 "$p" "$root/$dst"
	for l in $(ldd "$p" | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}'); do
		[ -e "$root$l" ] || install -D -m 0755 "$(readlink -f "$l")" "$root$l"
	done
}
add_prog "$bigchunk" bin/bigchunk
add_prog "$workload" bin/workload
tc=$(command -v trace-cmd || :)
[ -n "$tc" ] && add_prog "$tc" bin/trace-cmd
# ld.so finds the libraries in these directories without a cache.
[ -d "$root/lib64" ] || ln -s lib "$root/lib64"

# virtio_blk and virtio_pci with their dependencies (dependencies first); built-ins need nothing.
declare -A done_mod=()
order=()
add_mod() {
	local m=$1 f d
	[ -n "${done_mod[$m]:-}" ] && return
	done_mod[$m]=1
	f=$(find "$mods/kernel" -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" | head -1)
	[ -n "$f" ] || { grep -q "/$m.ko\$" "$mods/modules.builtin" && return; 
		echo "mkinitramfs: module $m not in $mods" >&2; exit 2; }
	for d in $(modinfo -F depends "$f" | tr ',' ' '); do add_mod "$d"; done
	case $f in
	*.xz) xz -dc "$f" > "$root/lib/modules/$m.ko" ;;
	*.zst) zstd -qdc "$f" > "$root/lib/modules/$m.ko" ;;
	*) cp "$f" "$root/lib/modules/$m.ko" ;;
	esac
	order+=("$m")
}
for m in virtio_pci virtio_blk; do
	grep -q "/$m.ko" "$mods/modules.builtin" && continue
	add_mod "$m"
done
printf '%s\n' "${order[@]}" > "$root/lib/modules/order"
echo "$rel" > "$root/etc/release"
install -m 0755 "$here/init" "$root/init"
install -m 0755 "$here/guest-run.sh" "$root/bin/guest-run"
install -m 0755 "$here/../../capture/bigchunk-snapshot.sh" "$root/bin/bigchunk-snapshot"
( cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 ) > "$out.tmp"
mv "$out.tmp" "$out"
