#!/bin/sh
# Runs an MPI program under libragged_pmpi.so with RAGGED_REPORT, then checks the report.
#   run_report.sh PYTHON CHECKER REPORT [checker options...] -- COMMAND...
# COMMAND (mpirun ... program) must pass RAGGED_REPORT=REPORT to the ranks. The script removes an
# old REPORT, runs COMMAND (its stderr is kept in REPORT.stderr and shown), requires rank 0's table
# on stderr, and runs CHECKER on REPORT with the options. Exit status: COMMAND's if it failed,
# else 1 when the table is missing, else the checker's.
set -u
python=$1
checker=$2
report=$3
shift 3
options=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  options="$options '$(printf '%s' "$1" | sed "s/'/'\\\\''/g")'"
  shift
done
[ $# -gt 0 ] && shift
rm -f "$report" "$report.stderr"
"$@" 2>"$report.stderr"
status=$?
cat "$report.stderr" >&2
if [ $status -ne 0 ]; then
  echo "run_report.sh: the program failed (status $status)" >&2
  exit $status
fi
if ! grep -q "^ragged pmpi report: " "$report.stderr"; then
  echo "run_report.sh: no report table on stderr" >&2
  exit 1
fi
eval "set -- $options"
exec "$python" "$checker" "$report" "$@"
