#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bigchunk-snapshot.sh: write one page-state snapshot directory, the same as
# 'bigchunk snapshot -o DIR', on a machine without bigchunk (a target board). Load it
# later with 'bigchunk import' or 'bigchunk snapshot --db FILE.db --from DIR'.
#
# usage: bigchunk-snapshot.sh [-m INSTANCE|top|PATH] [-l LABEL] DIR
#
#   -m INSTANCE  while tracing, write "bigchunk snapshot LABEL begin NS" before reading
#                and "bigchunk snapshot LABEL end NS" after ("... pages 0" between
#                the zone files and the pages), to the trace_marker of
#                tracefs instance INSTANCE ('top': the top-level buffer; a path
#                containing '/': that trace_marker file)
#   -l LABEL     marker label (default 'snapshot'; A-Z a-z 0-9 _ . : + -)
#
# Needs root and a POSIX sh with cat, dd, mkdir, uname and wc (busybox will do); the
# list of io_uring registered buffers by pfn (longterm_pins) also needs readlink, od and
# awk and is left out without them. vfio, RDMA and other long-term pins show nowhere. The
# directory is mode 0700, its files 0600; taken_at is written last, so a directory
# without it is incomplete. Format: docs/snapshot-format.md.
#
# Time: taken_at and the markers carry CLOCK_MONOTONIC ns, read from the "now at N
# nsecs" line of /proc/timer_list (the kernel prints ktime_get() there, which is
# CLOCK_MONOTONIC; root only). 'date +%s%N' (CLOCK_REALTIME) and /proc/uptime
# (CLOCK_BOOTTIME, 10 ms) are not the trace's mono clock, so they are not used: without
# a readable /proc/timer_list the script stops.
#
# BIGCHUNK_ROOT=DIR reads DIR/proc and DIR/sys instead of /proc and /sys (tests).
#
# Exit status: 0 on success, 2 on a usage error or anything unreadable.

prog=bigchunk-snapshot.sh
root=${BIGCHUNK_ROOT:-}
label=snapshot
marker=

die() {
	echo "$prog: $*" >&2
	exit 2
}

usage() {
	echo "usage: $prog [-m INSTANCE|top|PATH] [-l LABEL] DIR" >&2
	exit 2
}

while getopts m:l:h opt; do
	case $opt in
	m) marker=$OPTARG ;;
	l) label=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
dir=$1

case $label in
'' | *[!A-Za-z0-9_.:+-]*) die "label '$label': use characters of A-Z a-z 0-9 _ . : + -" ;;
esac
[ ${#label} -lt 64 ] || die "label '$label': at most 63 characters"

umask 077

# CLOCK_MONOTONIC ns: the first "now at N nsecs" line of timer_list.
mono_ns() {
	while IFS= read -r line; do
		case $line in
		"now at "*" nsecs")
			line=${line#now at }
			echo "${line% nsecs}"
			return 0
			;;
		esac
	done < "$root/proc/timer_list"
	return 1
}

# Resolve the trace_marker file.
if [ -n "$marker" ]; then
	case $marker in
	*/*) mfile=$marker ;;
	*)
		tracefs=
		for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
			[ -e "$t/trace" ] && { tracefs=$t; break; }
		done
		[ -n "$tracefs" ] || die "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"
		if [ "$marker" = top ]; then
			mfile=$tracefs/trace_marker
		else
			[ -d "$tracefs/instances/$marker" ] || die "$tracefs/instances/$marker: no such trace instance"
			mfile=$tracefs/instances/$marker/trace_marker
		fi
		;;
	esac
	[ -w "$mfile" ] || die "$mfile: not writable"
fi

mark() {	# mark begin|end NS
	[ -n "$marker" ] || return 0
	printf 'bigchunk snapshot %s %s %s' "$label" "$1" "$2" > "$mfile" ||
		die "$mfile: cannot write the $1 marker"
}

copy() {	# copy SRC NAME: one file into the snapshot
	cat "$1" > "$dir/$2" || die "$1: cannot read (snapshot $dir incomplete)"
}

# copy1 SRC NAME: the same for a one-line sysfs value, without a fork per file (a
# machine has hundreds of memory blocks). Exact for one line with or without its
# newline, which is what sysfs attributes are.
copy1() {
	[ -r "$1" ] || die "$1: cannot read (snapshot $dir incomplete)"
	if IFS= read -r v < "$1"; then
		printf '%s\n' "$v" > "$dir/$2"
	else
		printf '%s' "$v" > "$dir/$2"
	fi || die "$dir/$2: cannot write"
}

# The directory: new, or existing and empty.
if [ -e "$dir" ]; then
	[ -d "$dir" ] || die "$dir: exists and is not a directory"
	for f in "$dir"/* "$dir"/.[!.]* "$dir"/..?*; do
		[ -e "$f" ] && die "$dir: exists and is not empty"
	done
else
	mkdir "$dir" || die "$dir: cannot create"
fi

t0=$(mono_ns) || die "$root/proc/timer_list: cannot read the CLOCK_MONOTONIC time (needs root)"
mark begin "$t0"

uname -r > "$dir/uname" || die "uname -r failed"
for f in zoneinfo buddyinfo pagetypeinfo meminfo vmstat iomem; do
	copy "$root/proc/$f" "$f"
done

# The zone files are read: events from here on may be newer than them. The pages
# follow at once, then the memory blocks and pools. kpageflags is read 524288 pfns
# (4 MiB) at a time, each chunk after a "pages PFN" marker, so that replay can tell
# which pages were read after an event; kpagecount follows in one piece.
# One dd per chunk on a shared descriptor (procfs page files do not seek past 4 MiB
# for dd's skip); GNU dd's last line says how many bytes it copied, busybox dd says only
# "F+P records out" (full and partial blocks): then the file's growth is the count.
exec 3< "$root/proc/kpageflags" ||
	die "$root/proc/kpageflags: cannot read (snapshot $dir incomplete)"
: > "$dir/kpageflags" || die "$dir/kpageflags: cannot write"
done_bytes=0
while :; do
	[ -z "$marker" ] || printf 'bigchunk snapshot %s pages %s' "$label" $((done_bytes / 8)) \
		> "$mfile" || die "$mfile: cannot write the pages marker"
	out=$(dd bs=4194304 count=1 <&3 2>&1 >> "$dir/kpageflags") ||
		die "$root/proc/kpageflags: cannot read (snapshot $dir incomplete)"
	last=${out##*
}
	n=${last%% *}
	case $last in
	*" records out")
		total=$(wc -c < "$dir/kpageflags") ||
			die "$dir/kpageflags: cannot read its size"
		n=$((total - done_bytes)) ;;
	esac
	case $n in
	''|*[!0-9]*) die "$root/proc/kpageflags: dd said '$last'" ;;
	0) break ;;
	esac
	done_bytes=$((done_bytes + n))
done
exec 3<&-
dd if="$root/proc/kpagecount" of="$dir/kpagecount" bs=4194304 2>/dev/null ||
	die "$root/proc/kpagecount: cannot read (snapshot $dir incomplete)"

mem=$root/sys/devices/system/memory
if [ -d "$mem" ]; then
	mkdir "$dir/memory" || die "$dir/memory: cannot create"
	copy "$mem/block_size_bytes" memory/block_size_bytes
	for b in "$mem"/memory[0-9]*; do
		[ -d "$b" ] || continue
		n=${b##*/}
		mkdir "$dir/memory/$n" || die "$dir/memory/$n: cannot create"
		copy1 "$b/phys_index" "memory/$n/phys_index"
		copy1 "$b/state" "memory/$n/state"
		[ -e "$b/valid_zones" ] && copy1 "$b/valid_zones" "memory/$n/valid_zones"
	done
fi

huge=$root/sys/kernel/mm/hugepages
if [ -d "$huge" ]; then
	for h in "$huge"/hugepages-*kB; do
		[ -d "$h" ] || continue
		n=${h##*/}
		[ -d "$dir/hugepages" ] || mkdir "$dir/hugepages" || die "$dir/hugepages: cannot create"
		mkdir "$dir/hugepages/$n" || die "$dir/hugepages/$n: cannot create"
		copy1 "$h/nr_hugepages" "hugepages/$n/nr_hugepages"
		copy1 "$h/free_hugepages" "hugepages/$n/free_hugepages"
	done
fi

# CMA areas (debugfs, CONFIG_CMA_DEBUGFS): "NAME BASE_PFN COUNT" per area
cma=$root/sys/kernel/debug/cma
if [ -d "$cma" ]; then
	for a in "$cma"/*; do
		[ -r "$a/base_pfn" ] && [ -r "$a/count" ] || continue
		b=$(cat "$a/base_pfn") && c=$(cat "$a/count") || continue
		if [ "$c" -gt 0 ] 2>/dev/null; then printf '%s %s %s\n' "${a##*/}" "$b" "$c"; fi
	done > "$dir/cma_areas" || die "$dir/cma_areas: cannot write"
fi

# Free page reporting's order (module parameter page_reporting_order; its unset value
# until a device registers), "none" on a kernel without CONFIG_PAGE_REPORTING
pr=$root/sys/module/page_reporting/parameters/page_reporting_order
if [ -e "$pr" ]; then
	copy1 "$pr" page_reporting
else
	echo none > "$dir/page_reporting" || die "$dir/page_reporting: cannot write"
fi

# Long-term pins it can see: io_uring registered buffers (fdinfo: "UserBufs:", then
# "IDX: 0xADDR/LEN" per buffer) by pfn (pagemap). Needs readlink, od and awk (busybox
# has them); without them the file is not written (not looked, not "none").
pins_runs() {	# pins_runs PID FD IDX ADDR LEN PAGE: "io_uring ..." runs of one buffer
	first=$(($4 / $6))
	n=$((($4 + $5 + $6 - 1) / $6 - first))
	[ "$n" -gt 0 ] || return 0
	dd if="$root/proc/$1/pagemap" bs=8 skip="$first" count="$n" 2>/dev/null |
		od -An -v -tx8 |
		awk -v pid="$1" -v fd="$2" -v idx="$3" -v vpn="$first" -v ps="$6" -v want="$n" '
		function hex(x,   s, d) {
			s = ""
			do { d = x % 16; s = substr("0123456789abcdef", d + 1, 1) s
			     x = (x - d) / 16 } while (x > 0)
			return s
		}
		function flush() {
			if (!rn) return
			if (rk) printf "io_uring %s %s %s 0x%s %.0f %.0f\n", pid, fd, idx, hex(rv * ps), rp, rn
			else printf "io_uring %s %s %s 0x%s - %.0f\n", pid, fd, idx, hex(rv * ps), rn
		}
		function page(k, p) {
			if (rn && k == rk && (!k || p == rp + rn)) { rn++; return }
			flush(); rv = vpn + i; rp = p; rk = k; rn = 1
		}
		{
			for (f = 1; f <= NF; f++) {
				h = $f; p = 0
				# bit 63 present; bits 0-54 the pfn (0 to a reader without CAP_SYS_ADMIN)
				k = index("89abcdef", substr(h, 1, 1)) > 0
				d = index("0123456789abcdef", substr(h, 3, 1)) - 1
				p = d % 8
				for (j = 4; j <= 16; j++)
					p = p * 16 + index("0123456789abcdef", substr(h, j, 1)) - 1
				if (!p) k = 0
				page(k, p); i++
			}
		}
		END {
			while (i < want) { page(0, 0); i++ }	# unreadable: pfns unknown
			flush()
		}'
}
if command -v readlink > /dev/null && command -v od > /dev/null &&
	command -v awk > /dev/null; then
	page=$(getconf PAGESIZE 2>/dev/null) || page=4096
	for f in "$root"/proc/[0-9]*/fd/*; do
		l=$(readlink "$f" 2>/dev/null) || continue
		[ "$l" = "anon_inode:[io_uring]" ] || continue
		pid=${f%/fd/*}
		pid=${pid##*/}
		fd=${f##*/}
		# the kernel lists a ring's buffers only if it got its lock (trylock): retry
		tries=0
		while :; do
			count=-1
			bufs=
			none=0
			while IFS= read -r line; do
				case $line in
				UserBufs:*) count=${line#UserBufs:}; count=${count#"${count%%[!	 ]*}"} ;;
				*:\ 0x*/*) [ "$count" -ge 0 ] && bufs="$bufs $line" ;;
				*:\ \<none\>) none=$((none + 1)) ;;
				*) [ "$count" -ge 0 ] && break ;;
				esac
			done < "$root/proc/$pid/fdinfo/$fd" 2>/dev/null
			set -- $bufs
			[ "$count" -lt 0 ] || [ $(($# / 2 + none)) -ge "$count" ] && break
			tries=$((tries + 1))
			[ "$tries" -lt 20 ] || break
			sleep 0.01 2>/dev/null || sleep 1
		done
		[ "$count" -gt 0 ] 2>/dev/null && [ $(($# / 2 + none)) -lt "$count" ] &&
			printf 'io_uring %s %s - - - %s\n' "$pid" "$fd" "$count"
		while [ $# -ge 2 ]; do
			idx=${1%:}
			ab=$2
			shift 2
			pins_runs "$pid" "$fd" "$idx" "$((${ab%/*}))" "${ab#*/}" "$page"
		done
	done > "$dir/longterm_pins" || die "$dir/longterm_pins: cannot write"
fi

t1=$(mono_ns) || die "$root/proc/timer_list: cannot read the CLOCK_MONOTONIC time"
mark end "$t1"
printf '%s %s\n' "$t0" "$t1" > "$dir/taken_at" || die "$dir/taken_at: cannot write"
exit 0
