#!/bin/sh
# Runs a command whose results were broken on purpose (tests/pmpi/flip_shim.c) and passes only if
# it noticed: it must exit non-zero AND print a line matching <regex> (its own report of a wrong
# result), so that a crash or a hang is not taken for a detection.
#   expect_detected.sh <regex> <command>...
regex="$1"
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then
  echo "expect_detected: the command passed (exit 0) with broken results"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq "$regex"; then
  echo "expect_detected: the command failed (exit $rc), but no line matches '$regex'"
  exit 1
fi
echo "expect_detected: the broken results were caught (exit $rc)"
