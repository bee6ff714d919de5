#!/bin/sh
# Runs an MPI program and requires every rank to have said something: passes when COMMAND exits
# 0 and, for each rank r of 0..NP-1, a line holding "[rank r]" also holds TEXT.
#   expect_every_rank.sh NP TEXT COMMAND...
# (A bad setting must be named by every rank, not only by rank 0: the rank whose file or
# environment differs may be any of them.)
set -u
np=$1
text=$2
shift 2
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ $status -ne 0 ]; then
  echo "expect_every_rank.sh: the program failed (status $status)" >&2
  exit 1
fi
r=0
while [ "$r" -lt "$np" ]; do
  if ! printf '%s\n' "$out" | grep -F "[rank $r]" | grep -qF -- "$text"; then
    echo "expect_every_rank.sh: rank $r did not say '$text'" >&2
    exit 1
  fi
  r=$((r + 1))
done
