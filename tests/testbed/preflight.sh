# Sourced by the testbed.* test scripts: exits 77 (ctest's skip), saying why,
# when the program to run was not built or this machine cannot host the testbed.
# usage: preflight TESTBED_SCRIPT DELAYLINE_BINARY PROGRAM "WHY PROGRAM MAY BE MISSING"
preflight() {
  if [ -z "$3" ]; then
    echo "SKIP: $4"
    exit 77
  fi
  if [ -z "$2" ]; then
    echo "SKIP: the delay line was not built (libnetfilter_queue not found at configure time)"
    exit 77
  fi
  "$1" check --delayline "$2" || exit $?
}
