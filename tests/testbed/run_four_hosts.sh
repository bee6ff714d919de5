#!/bin/sh
# testbed.four_hosts: run the four-host check on an emulated cluster, or skip
# (exit 77) with the reason when this machine cannot host one.
# usage: run_four_hosts.sh TESTBED_SCRIPT DELAYLINE_BINARY CHECK_BINARY
testbed=$1
delayline=$2
check=$3
. "$(dirname "$0")/preflight.sh"
preflight "$testbed" "$delayline" "$check" "built without MPI (RAGGED_WITH_MPI=OFF)"

# 100 Mbit/s links and 2 ms one-way latency; the check verifies the results
# of collectives exactly and that the links are no faster than that.
exec "$testbed" run --hosts 4 --rate 100mbit --delay 2ms --timeout 40 --delayline "$delayline" \
  -- "$check" --delay-us 2000 --rate-bps 100000000
