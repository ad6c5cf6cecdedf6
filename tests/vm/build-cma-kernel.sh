#!/bin/bash
# Build a kernel with CONFIG_CMA for the QEMU rig from Debian's linux-source-6.12 (Debian's own
# kernels have no CMA, so the cma= boot option is ignored there). A small config: allnoconfig
# plus tests/vm/cma-kernel.config, everything built in, bzImage only.
#
#   tests/vm/build-cma-kernel.sh [WORKDIR]
#
# WORKDIR (default $BC_VM_CACHE/ksrc, or build/vm/ksrc) gets the extracted source and the build.
# The image goes to CACHE/k-cma/ as fetch-kernels.sh lays a kernel out (vmlinuz, release, and a
# modules.builtin naming the virtio drivers built in), so `run-vm.sh cma NAME cma=256M` boots it.
# BC_KSRC_TARBALL names the source tarball (default /usr/src/linux-source-6.12.tar.xz, from the
# package linux-source-6.12); BC_KBUILD_JOBS the make jobs (default 2). The build runs under
# nice -n 19. An image already built from the same fragment is kept. Exit 2 with a reason when
# the tarball or a build tool is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${BC_VM_CACHE:-build/vm}
work=${1:-$cache/ksrc}
tarball=${BC_KSRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
jobs=${BC_KBUILD_JOBS:-2}
frag="$here/cma-kernel.config"
die() { echo "build-cma-kernel: $*" >&2; exit 2; }

[ -r "$tarball" ] || die "no $tarball (install linux-source-6.12)"
for t in make gcc flex bison bc perl; do command -v $t >/dev/null || die "$t is not installed"; done
[ -e /usr/include/libelf.h ] || die "libelf.h missing (install libelf-dev)"
mkdir -p "$cache" "$work"
cache=$(cd "$cache" && pwd) work=$(cd "$work" && pwd)
out="$cache/k-cma"
# The image is rebuilt when the fragment or the tarball changes.
sum=$({ cat "$frag"; stat -c '%n %s %Y' "$tarball"; } | sha1sum | cut -c1-16)
if [ -s "$out/vmlinuz" ] && [ "$(cat "$out/fragment" 2>/dev/null)" = "$sum" ]; then
	echo "build-cma-kernel: $out/vmlinuz is up to date"; exit 0
fi

src="$work/$(basename "$tarball" .tar.xz)"
if [ ! -e "$src/Makefile" ]; then
	echo "build-cma-kernel: extracting $tarball"
	nice -n 19 tar -xJf "$tarball" -C "$work"
fi
[ -e "$src/Makefile" ] || die "$tarball did not extract to $src"

kmake() { nice -n 19 make -C "$src" ARCH=x86_64 "$@"; }
t0=$(date +%s)
# allnoconfig with the fragment as its base: every other symbol off.
kmake -s KCONFIG_ALLCONFIG="$frag" allnoconfig
# Every line of the fragment must have survived Kconfig's dependencies.
missing=
while IFS= read -r l; do
	case $l in CONFIG_*=*) grep -qx "$l" "$src/.config" || missing="$missing ${l%%=*}" ;; esac
done < "$frag"
[ -z "$missing" ] || die "the config dropped:$missing (dependencies not met)"
echo "build-cma-kernel: config has $(grep -c '=y' "$src/.config") options =y; building bzImage with -j$jobs"
kmake -j"$jobs" bzImage > "$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; die "build failed, see $work/build.log"; }
t1=$(date +%s)

rel=$(kmake -s kernelrelease)
rm -rf "$out.tmp"; mkdir -p "$out.tmp/modules/lib/modules/$rel"
cp "$src/arch/x86/boot/bzImage" "$out.tmp/vmlinuz"
cp "$src/.config" "$out.tmp/config"
echo "$rel" > "$out.tmp/release"
# mkinitramfs.sh loads no module the kernel has built in.
printf 'kernel/drivers/virtio/virtio_pci.ko\nkernel/drivers/block/virtio_blk.ko\n' \
	> "$out.tmp/modules/lib/modules/$rel/modules.builtin"
echo "$sum" > "$out.tmp/fragment"
echo $((t1 - t0)) > "$out.tmp/build-seconds"
rm -rf "$out"; mv "$out.tmp" "$out"
echo "build-cma-kernel: $rel built in $((t1 - t0)) s -> $out/vmlinuz ($(stat -c %s "$out/vmlinuz") bytes)"
