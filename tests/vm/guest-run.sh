#!/bin/sh
# The job run inside the guest (bin/guest-run), chosen on the kernel command line:
#   bc.job=frag    a fragmenting workload (anonymous memory with holes and slab held through the
#                  probes, page cache, io_uring rings, page tables), then a 1 GiB hugetlb probe
#                  and offline probes: the capture check-kernels scores
#   bc.job=light   a short light workload and the same probes (small captures to bundle)
#   bc.job=rings   light plus io_uring rings (unmovable order-9 allocations that fall back
#                  to and claim Movable blocks: mm_page_alloc_extfrag), small as well
#   bc.job=cmaalloc  frag's holders and churn; 4 s into the churn, cma_alloc() through
#                  debugfs (CONFIG_CMA_DEBUGFS: cma/<area>/alloc, a page count per write):
#                  bc.cma=K:N asks K allocations of N pages (default 24:2048), each kept
#                  to the end; the outcome of each write goes to /cap/cma-alloc.log. A
#                  trace marker "bigchunk-job cma-demand" goes first on every kernel, so
#                  a plain boot's capture of the same job says when the demand came
#                  (compare --at marker:bigchunk-job). No probes.
#   bc.job=cmalight  the same cma_alloc() writes after light's workload (small captures)
#   bc.tracecmd=1  also run trace-cmd record on the same events beside bigchunk record
#                  (its top buffer), with page-state snapshots by the plain shell twin
#                  (bigchunk-snapshot.sh, markers in that buffer) before and after the
#                  recording: trace.dat and tc-snap/{begin,end}, what 'bigchunk import
#                  --snapshot' reads on a board without bigchunk
#   bc.tracecmd=stacks  the same with a kernel stack on every event (trace-cmd -T)
#   bc.tcsnap=0    no shell-twin snapshots beside trace-cmd (a smaller trace.dat: reading
#                  the page files is itself page traffic)
# Results go to /cap: vm.db, trace.dat and tc-snap/ (if asked), record.log.
job=frag tracecmd=0 tcsnap=1 cma=24:2048
for a in $(cat /proc/cmdline); do
	case $a in
	bc.job=*) job=${a#bc.job=} ;;
	bc.cma=*) cma=${a#bc.cma=} ;;
	bc.tracecmd=*) tracecmd=${a#bc.tracecmd=} ;;
	bc.tcsnap=*) tcsnap=${a#bc.tcsnap=} ;;
	esac
done
W=/bin/workload
case $job in
frag)
	# Held through the probes: the state the probes meet is fragmented.
	$W anon 768 100000 & hold1=$!
	$W slab 8 100000 /tmp & hold2=$!
	work="$W pagecache 512 1 /tmp & $W rings 32 6 & $W pgtable 16 6 & $W thp 256 6 &
		$W mixed 256 10 /tmp; wait"
	probes="--probe 1G:1 --probe-offline 3"
	snaps="--snapshot-every 8s"
	;;
light|rings)
	$W anon 64 100000 & hold1=$!
	hold2=
	work="$W pagecache 32 1 /tmp; $W slab 1 1 /tmp"
	[ $job = rings ] && work="$W rings 16 2 & $work; wait"
	probes="--probe 1G:1 --probe-offline 2"
	snaps=
	;;
cmaalloc|cmalight)
	if [ $job = cmalight ]; then
		$W anon 64 100000 & hold1=$!
		hold2=
	else
		$W anon 768 100000 & hold1=$!
		$W slab 8 100000 /tmp & hold2=$!
	fi
	# The allocator: the marker in the recording's instance, then K writes to alloc.
	cat > /tmp/cma-alloc.sh <<EOS
sleep 4
for m in /sys/kernel/tracing/instances/*/trace_marker; do
	echo "bigchunk-job cma-demand" > \$m
done
area=\$(ls -d /sys/kernel/debug/cma/*/ 2>/dev/null | head -1)
if [ -z "\$area" ]; then echo "no CMA area" > /cap/cma-alloc.log; exit 0; fi
echo "area \$area base_pfn \$(cat \$area/base_pfn) count \$(cat \$area/count)" > /cap/cma-alloc.log
i=0 ok=0
while [ \$i -lt ${cma%%:*} ]; do
	if echo ${cma#*:} > \$area/alloc 2>/dev/null; then r=ok; ok=\$((ok + 1)); else r=fail; fi
	echo "alloc \$i ${cma#*:} \$r \$(cut -d' ' -f1 /proc/uptime)" >> /cap/cma-alloc.log
	i=\$((i + 1))
done
echo "served \$ok of ${cma%%:*} used \$(cat \$area/used)" >> /cap/cma-alloc.log
EOS
	work="$W pagecache 512 1 /tmp & $W thp 256 6 & $W mixed 256 10 /tmp & sh /tmp/cma-alloc.sh; wait"
	[ $job = cmalight ] && work="$W pagecache 32 1 /tmp & $W slab 1 1 /tmp & sh /tmp/cma-alloc.sh; wait"
	probes=
	snaps="--snapshot-every 8s"
	;;
*)
	echo "guest-run: unknown job $job"; exit 2 ;;
esac
sleep 2
tcsnap() {	# tcsnap LABEL: a snapshot directory by the shell twin, markers in the top buffer
	[ "$tcsnap" = 1 ] || return 0
	bigchunk-snapshot -m top -l "tc-$1" "/cap/tc-snap/$1" >>/cap/trace-cmd.log 2>&1 ||
		echo "guest-run: tc-snap $1 failed"
}
tcopt=
[ "$tracecmd" = stacks ] && tcopt=-T tracecmd=1
if [ "$tracecmd" = 1 ]; then
	ev=
	# The recorder's events that this kernel has (trace-cmd refuses a missing one).
	for e in $(bigchunk record --list-events | grep -v "^ftrace:"); do
		[ -e "/sys/kernel/tracing/events/${e%%:*}/${e#*:}" ] ||
			[ "${e#*:}" = '*' -a -d "/sys/kernel/tracing/events/${e%%:*}" ] && ev="$ev -e $e"
	done
	trace-cmd record -q -C mono -b 32768 $tcopt $ev -o /cap/trace.dat >/cap/trace-cmd.log 2>&1 &
	tcpid=$!
	# trace-cmd switches tracing off, enables the events, then on again once its
	# recorders run (slow under TCG while the holders fault their memory in); a marker
	# written while it is off fails (EBADF)
	t=/sys/kernel/tracing i=0
	while [ $i -lt 120 ] && ! { [ "$(cat $t/events/kmem/mm_page_alloc/enable)" = 1 ] &&
				   [ "$(cat $t/tracing_on)" = 1 ]; }; do
		sleep 0.5; i=$((i + 1))
	done
	sleep 1
	mkdir -p /cap/tc-snap
	tcsnap begin
fi
t0=$(cut -d' ' -f1 /proc/uptime)
bigchunk record -q -o /cap/vm.db --probe-timeout 30s $probes $snaps -- sh -c "$work" \
	>/cap/record.log 2>&1
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
echo "guest-run: bigchunk record exit $rc, $t0 .. $t1 s"
cat /cap/record.log
[ -e /cap/cma-alloc.log ] && cat /cap/cma-alloc.log
if [ "$tracecmd" = 1 ]; then
	tcsnap end
	sleep 1
	kill -INT $tcpid; wait $tcpid
	echo "guest-run: trace-cmd exit $?"; tail -3 /cap/trace-cmd.log
fi
kill $hold1 $hold2 2>/dev/null
wait
exit $rc
