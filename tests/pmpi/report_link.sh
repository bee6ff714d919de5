#!/bin/sh
# RAGGED_REPORT names a symbolic link: the report replaces the link (written to a new file, mode
# 0600, renamed onto the name) and the file the link pointed to stays as it was.
#   report_link.sh REPORT COMMAND...     (COMMAND passes RAGGED_REPORT=REPORT to the ranks)
set -u
report=$1
shift
target="$report.target"
rm -f "$report" "$target"
printf 'not a report\n' >"$target"
ln -s "$(basename "$target")" "$report"
"$@"
status=$?
if [ $status -ne 0 ]; then
  echo "report_link.sh: the program failed (status $status)" >&2
  exit 1
fi
if [ "$(cat "$target")" != "not a report" ]; then
  echo "report_link.sh: the file behind the link was overwritten" >&2
  exit 1
fi
if [ -L "$report" ] || [ ! -f "$report" ]; then
  echo "report_link.sh: $report is not a regular file" >&2
  exit 1
fi
mode=$(stat -c %a "$report")
if [ "$mode" != "600" ]; then
  echo "report_link.sh: the report has mode $mode, 600 wanted" >&2
  exit 1
fi
if ! grep -q '"ragged_pmpi_report": 1' "$report"; then
  echo "report_link.sh: $report holds no report" >&2
  exit 1
fi
if ls "$report".ragged-*.tmp >/dev/null 2>&1; then
  echo "report_link.sh: a temporary file was left behind" >&2
  exit 1
fi
