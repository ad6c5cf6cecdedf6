#!/bin/sh
# Install the Debian packages bigchunk needs, if any is missing.
# As root: apt-get installs them. Otherwise: name them and say how, then fail.
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "bigchunk needs these packages:$missing" >&2
	echo "install them with: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null && apt-get install -y -q $missing >/dev/null || {
	echo "apt-get could not install:$missing" >&2
	exit 1
}
