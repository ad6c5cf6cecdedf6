#!/bin/sh
# Shared helpers for the fixture recipes (sourced, not run). Needs root, tracefs and
# trace-cmd. Records with 'trace-cmd record' into a private tracefs instance, in the
# background without a command, and stops it with SIGINT; the instance is removed and
# stray recorder processes are stopped on every exit path.
#
# Some kernels refuse open() of the function-tracer control files (set_ftrace_pid ...)
# with EPERM, which makes trace-cmd 3.1.6 record fail; tests/shim/ftrace-eperm-shim.c
# is preloaded to paper over exactly that and nothing else.

set -eu

REPO=$(cd "$(dirname "$0")/../.." && pwd)
TRACEFS=""
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	if [ -e "$d/trace_marker" ]; then
		TRACEFS=$d
		break
	fi
done
[ -n "$TRACEFS" ] || { echo "recipe: tracefs is not mounted" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "recipe: must run as root" >&2; exit 1; }
command -v trace-cmd >/dev/null || { echo "recipe: trace-cmd not installed" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bc-recipe.XXXXXX")
INSTANCE="bcfix$$"
TC_PID=""
TC_CHILDREN=""

bc_cleanup() {
	set +e
	if [ -n "$TC_PID" ] && kill -0 "$TC_PID" 2>/dev/null; then
		kill -INT "$TC_PID" 2>/dev/null
		sleep 2
		kill -TERM "$TC_PID" 2>/dev/null
	fi
	for c in $TC_CHILDREN; do
		kill -TERM "$c" 2>/dev/null
	done
	if [ -d "$TRACEFS/instances/$INSTANCE" ]; then
		echo 0 > "$TRACEFS/instances/$INSTANCE/tracing_on" 2>/dev/null
		echo > "$TRACEFS/instances/$INSTANCE/set_event" 2>/dev/null
		rmdir "$TRACEFS/instances/$INSTANCE" 2>/dev/null ||
			echo "recipe: could not remove instance $INSTANCE" >&2
	fi
	rm -rf "$WORK"
}
trap 'bc_cleanup' EXIT
trap 'exit 130' INT TERM HUP

# Build the shim into $WORK.
bc_build_shim() {
	${CC:-cc} -shared -fPIC -O2 -Wall -o "$WORK/ftrace-eperm-shim.so" \
		"$REPO/tests/shim/ftrace-eperm-shim.c" -ldl
}

# bc_events SPEC...: print "-e SPEC" for each event or system the kernel has.
bc_events() {
	for spec in "$@"; do
		sys=${spec%%:*}
		ev=${spec#*:}
		if [ "$ev" = "$spec" ] || [ "$ev" = "*" ]; then
			[ -d "$TRACEFS/events/$sys" ] && printf -- '-e %s ' "$sys"
		else
			[ -d "$TRACEFS/events/$sys/$ev" ] && printf -- '-e %s:%s ' "$sys" "$ev"
		fi
	done
	return 0
}

# bc_record_start OUT.dat TRACE-CMD-OPTIONS...: start recording into the instance.
bc_record_start() {
	_bc_out=$1
	shift
	bc_build_shim
	rm -f "$_bc_out"
	LD_PRELOAD="$WORK/ftrace-eperm-shim.so" trace-cmd record -d -C mono -B "$INSTANCE" \
		"$@" -o "$_bc_out" > "$WORK/record.log" 2>&1 &
	TC_PID=$!
	# Wait until the instance exists and tracing is on, then a little more so the
	# per-CPU recorders are reading.
	i=0
	while [ $i -lt 100 ]; do
		if [ -e "$TRACEFS/instances/$INSTANCE/tracing_on" ] &&
		   [ "$(cat "$TRACEFS/instances/$INSTANCE/tracing_on")" = 1 ]; then
			break
		fi
		kill -0 "$TC_PID" 2>/dev/null || { cat "$WORK/record.log" >&2; exit 1; }
		sleep 0.1
		i=$((i + 1))
	done
	sleep 1
	TC_CHILDREN=$(pgrep -P "$TC_PID" || true)
}

# bc_marker TEXT: write TEXT to the instance's trace_marker (an ftrace:print event).
bc_marker() {
	echo "$1" > "$TRACEFS/instances/$INSTANCE/trace_marker"
}

# bc_record_stop: SIGINT trace-cmd and wait for it to write the file.
bc_record_stop() {
	kill -INT "$TC_PID"
	wait "$TC_PID" || { cat "$WORK/record.log" >&2; TC_PID=""; exit 1; }
	TC_PID=""
	sleep 0.2
	for c in $TC_CHILDREN; do
		kill -TERM "$c" 2>/dev/null || true
	done
	TC_CHILDREN=""
}

# The mm tracepoints bigchunk records by default (capture/cap-decode.c); ftrace:print
# needs no enabling. workqueue_execute_start goes unfiltered here (every work item;
# import keeps vmstat_update()'s runs, by the trace's kallsyms).
BC_DEFAULT_EVENTS="kmem:mm_page_alloc kmem:mm_page_free kmem:mm_page_free_batched
kmem:mm_page_alloc_zone_locked kmem:mm_page_pcpu_drain kmem:mm_page_alloc_extfrag
migrate:mm_migrate_pages migrate:mm_migrate_pages_start page_isolation:test_pages_isolated
compaction:* cma:* vmscan:mm_vmscan_direct_reclaim_begin vmscan:mm_vmscan_direct_reclaim_end
vmscan:mm_vmscan_kswapd_wake vmscan:mm_vmscan_kswapd_sleep workqueue:workqueue_execute_start"
