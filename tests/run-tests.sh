#!/bin/sh
# Run the Check test binary. Live tests need root and tracefs: mount tracefs when we
# can, and let each live test skip with a printed reason when it is not there.
# Usage: run-tests.sh TEST_BINARY    (BIGCHUNK= the bigchunk binary under test)
# Check's CK_RUN_SUITE / CK_RUN_CASE pick tests; BC_NO_LIVE=1 skips the live ones;
# BC_TEST_KEEP=1 keeps the files the tests wrote (their directory is printed).
bin=${1:-./tests/check_bigchunk}
if [ "$(id -u)" -eq 0 ] && [ ! -e /sys/kernel/tracing/trace ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi
export BIGCHUNK="${BIGCHUNK:-./bigchunk}"
export BC_SRCDIR="${BC_SRCDIR:-$(pwd)}"
exec "$bin"
