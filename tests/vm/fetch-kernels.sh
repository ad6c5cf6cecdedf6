#!/bin/bash
# Fetch Debian's 6.1 (bookworm) and 6.12 (bookworm-backports) cloud kernels for the QEMU rig,
# with a private apt configuration (own sources and lists under the cache directory): nothing is
# installed on the host and the host's apt state is not touched.
#
#   tests/vm/fetch-kernels.sh [CACHE]        CACHE defaults to $BC_VM_CACHE or build/vm
#
# For each kernel, CACHE/k-SERIES/ gets vmlinuz, modules/ (the extracted package) and release
# (the uname -r). A kernel already extracted is not fetched again. Exit 2 with a reason on
# stderr when the mirror cannot be reached or has no such package (callers skip, not pass).
set -euo pipefail
cache=${1:-${BC_VM_CACHE:-build/vm}}
mirror=${BC_VM_MIRROR:-http://deb.debian.org/debian}
series=${BC_VM_KERNELS:-6.1 6.12}
mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial" "$cache/apt/etc/sources.list.d" \
	"$cache/apt/etc/preferences.d"
cache=$(cd "$cache" && pwd)

die() { echo "fetch-kernels: $*" >&2; exit 2; }

have_all=1
for s in $series; do [ -s "$cache/k-$s/vmlinuz" ] || have_all=0; done
[ $have_all = 1 ] && exit 0

cat > "$cache/apt/etc/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-backports main
SRC
apt_opts=(-o Dir::Etc::SourceList="$cache/apt/etc/sources.list"
	-o Dir::Etc::SourceParts="$cache/apt/etc/sources.list.d"
	-o Dir::Etc::Preferences="$cache/apt/etc/preferences"
	-o Dir::Etc::PreferencesParts="$cache/apt/etc/preferences.d"
	-o Dir::State::Lists="$cache/apt/lists"
	-o Dir::Cache="$cache/apt" -o Dir::Cache::archives="$cache/apt/archives"
	-o Dir::State::status=/dev/null -o APT::Architecture=amd64
	-o Acquire::Retries=2 -o Acquire::http::Timeout=30 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)

# The lists are refreshed at most once a day: re-runs do not re-download.
stamp="$cache/apt/lists/.updated"
if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440)" ]; then
	apt-get "${apt_opts[@]}" -q update >"$cache/apt/update.log" 2>&1 ||
		die "apt-get update against $mirror failed (network or mirror unavailable), see $cache/apt/update.log"
	grep -q '^W: Failed\|^E: ' "$cache/apt/update.log" &&
		die "apt-get update against $mirror had errors, see $cache/apt/update.log"
	touch "$stamp"
fi

# Newest cloud kernel of a series: linux-image-6.1.0-NN-cloud-amd64-unsigned (bookworm),
# linux-image-6.12.NN+deb12-cloud-amd64-unsigned (bookworm-backports).
newest() {
	{ apt-cache "${apt_opts[@]}" search --names-only "^linux-image-$1[.-].*-cloud-amd64-unsigned\$" || :; } |
		awk '{print $1}' |
		{ grep -E "^linux-image-$1(\.[0-9]+)?(-[0-9]+|\+deb[0-9]+)-cloud-amd64-unsigned\$" || :; } |
		sort -V | tail -1
}

for s in $series; do
	d="$cache/k-$s"
	[ -s "$d/vmlinuz" ] && continue
	pkg=$(newest "$s")
	[ -n "$pkg" ] || die "no linux-image-$s*-cloud-amd64-unsigned on $mirror"
	rm -rf "$d.tmp"; mkdir -p "$d.tmp"
	( cd "$cache/apt/archives" && apt-get "${apt_opts[@]}" -q download "$pkg" ) \
		>"$cache/apt/download-$s.log" 2>&1 ||
		die "apt-get download $pkg failed, see $cache/apt/download-$s.log"
	deb=$(ls -t "$cache/apt/archives/${pkg}"_*.deb | head -1)
	dpkg-deb -x "$deb" "$d.tmp/modules"
	rel=$(ls "$d.tmp/modules/lib/modules" | head -1)
	cp "$d.tmp/modules/boot/vmlinuz-$rel" "$d.tmp/vmlinuz"
	echo "$rel" > "$d.tmp/release"
	basename "$deb" > "$d.tmp/package"
	rm -f "$deb"
	rm -rf "$d"; mv "$d.tmp" "$d"
	echo "fetch-kernels: $s -> $rel ($(cat "$d/package"))"
done
