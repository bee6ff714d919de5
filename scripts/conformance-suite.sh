#!/usr/bin/env bash
# Runs a third-party MPI conformance suite's collective tests natively and under
# libragged_pmpi.so, and prints a comparison table (docs/pmpi.md, "Conformance suites").
#
#   scripts/conformance-suite.sh SUITE [options]
#
# SUITE is a checkout of MPICH's sources (its test suite, test/mpi, is what MPI libraries are
# validated with; test/mpi itself may be given). Nothing of it is copied into this repository:
# its coll/, util/ and include/ directories are copied into the work directory, the tests of
# coll/testlist.in are built there with mpicc (a test that does not build is reported as such),
# and every entry (test, process count, arguments) is run in each configuration:
#
#   mpi       the program alone (the MPI library's collectives): the baseline
#   lib       LD_PRELOAD=libragged_pmpi.so, no variable set (everything goes to the MPI library)
#   auto      every RAGGED_<COLLECTIVE>=auto and RAGGED_BARRIER=auto
#   rK        round K = 1..max: every collective forced to its K-th algorithm of `ragged-bench
#             list` (modulo its number of algorithms), RAGGED_BARRIER=dissemination
#
# A run passes when it exits with 0 and prints "No Errors" (the suite's convention). Process
# counts above --max-np are run at --max-np; entries that become the same are run once.
#
# Options:
#   --lib PATH        the library (default build/libragged_pmpi.so)
#   --bench PATH      ragged-bench, for the algorithm list (default build/tools/bench/ragged-bench)
#   --work DIR        scratch directory (default ${TMPDIR:-/tmp}/ragged-conformance)
#   --max-np N        largest process count (default 5)
#   --timeout S       seconds per run before it counts as a hang (default 60)
#   --configs LIST    comma-separated configurations (default: mpi,lib,auto,r1,...,rmax)
#   --tests REGEX     only tests whose name matches (grep -E)
#   --launcher CMD    the MPI launcher (default mpirun)
# Exit status: 0 when every configuration passes every entry the baseline passes, 1 otherwise.
set -u

usage() { sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;/^set -u/d'; }

[ $# -ge 1 ] || {
  usage >&2
  exit 2
}
case $1 in -h | --help)
  usage
  exit 0
  ;;
esac
suite=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
lib=$root/build/libragged_pmpi.so
bench=$root/build/tools/bench/ragged-bench
work=${TMPDIR:-/tmp}/ragged-conformance
max_np=5
timeout_s=60
configs=""
filter=""
launcher=mpirun
while [ $# -gt 0 ]; do
  case $1 in
    --lib) lib=$2 ;;
    --bench) bench=$2 ;;
    --work) work=$2 ;;
    --max-np) max_np=$2 ;;
    --timeout) timeout_s=$2 ;;
    --configs) configs=$2 ;;
    --tests) filter=$2 ;;
    --launcher) launcher=$2 ;;
    *)
      echo "conformance-suite.sh: unknown option $1" >&2
      exit 2
      ;;
  esac
  shift 2
done

if [ -d "$suite/test/mpi/coll" ]; then
  src=$suite/test/mpi
elif [ -d "$suite/coll" ] && [ -d "$suite/util" ]; then
  src=$suite
else
  echo "conformance-suite.sh: $suite has neither test/mpi/coll nor coll/ (an MPICH source tree is expected)" >&2
  exit 2
fi
[ -f "$lib" ] || {
  echo "conformance-suite.sh: no library at $lib (--lib)" >&2
  exit 2
}
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")

# ---------------------------------------------------------------- the launcher's spelling
launch=("$launcher")
if "$launcher" --version 2>&1 | grep -q "Open MPI"; then
  openmpi=1
  launch+=(--oversubscribe)
  [ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
else
  openmpi=0
fi
# env_args NAME=VALUE...: the launcher's way of giving every rank a variable.
env_args() {
  local kv
  for kv in "$@"; do
    if [ $openmpi = 1 ]; then
      printf '%s\n' -x "$kv"
    else
      printf '%s\n' -genv "${kv%%=*}" "${kv#*=}"
    fi
  done
}

# ---------------------------------------------------------------- build
rm -rf "${work:?}/src" "${work:?}/bin" "${work:?}/logs"
mkdir -p "$work/src" "$work/bin" "$work/logs"
cp -r "$src/coll" "$src/util" "$src/include" "$work/src/"
[ -d "$src/dtpools" ] && cp -r "$src/dtpools" "$work/src/"
gen=$work/src/gen
mkdir -p "$gen"
# What MPICH's configure would write for a Linux system with a C compiler and MPI 3 or later.
cat >"$gen/mpitestconf.h" <<'EOF'
#define HAVE_STDARG_H 1
#define HAVE_STRING_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STDINT_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INIT_THREAD 1
#define USE_STRICT_MPI 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
EOF
: >"$gen/mtest_mpix.h"
[ -d "$work/src/dtpools" ] && cp "$gen/mpitestconf.h" "$work/src/dtpools/dtpoolsconf.h"
cc=${MPICC:-mpicc}
cflags=(-O1 -w -I"$gen" -I"$work/src/include" -I"$work/src/dtpools/include")
# The suite's support code (libmtest, run_mpitests with each test's run(), dtypes) and, for the
# tests that use it, its datatype pool library (dtpools).
objects=()
runner=""
support=(util/mtest.c util/mtest_common.c util/mtest_thread.c util/dtypes.c)
for f in "$work"/src/dtpools/src/*.c; do [ -f "$f" ] && support+=("${f#"$work"/src/}"); done
for f in "${support[@]}"; do
  o=$work/bin/$(basename "$f" .c).o
  if "$cc" "${cflags[@]}" -c "$work/src/$f" -o "$o" 2>"$work/logs/build-$(basename "$f" .c).txt"; then
    objects+=("$o")
  else
    echo "conformance-suite.sh: $f does not build (see $work/logs/); the tests that need it will not" >&2
  fi
done
# Newer tests define run() and get main() from run_mpitests.c; older ones have their own main().
"$cc" "${cflags[@]}" -c "$work/src/util/run_mpitests.c" -o "$work/bin/run_mpitests.o" \
  2>"$work/logs/build-run_mpitests.txt" && runner=$work/bin/run_mpitests.o

# Entries: "name np args", comments and configure substitutions left out, np capped.
entries=$work/entries.txt
grep -v '^\s*#' "$src/coll/testlist.in" | grep -v '@' | awk -v max="$max_np" 'NF >= 2 && $2 ~ /^[0-9]+$/ {
  np = $2 > max ? max : $2; args = ""
  for (i = 3; i <= NF; ++i) if ($i ~ /^arg=/) args = args " " substr($i, 5)
  key = $1 " " np args
  if (!(key in seen)) { seen[key] = 1; print key }
}' >"$entries"
if [ -n "$filter" ]; then
  grep -E "^($filter) " "$entries" >"$entries.tmp"
  mv "$entries.tmp" "$entries"
fi
declare -A built
while read -r name; do
  main=$runner
  grep -q "^int main" "$work/src/coll/$name.c" 2>/dev/null && main=""
  # shellcheck disable=SC2086 # $main is one file or nothing
  if [ -f "$work/src/coll/$name.c" ] &&
    "$cc" "${cflags[@]}" "$work/src/coll/$name.c" "${objects[@]}" $main -lm -o "$work/bin/$name" \
      >"$work/logs/build-$name.txt" 2>&1; then
    built[$name]=1
  fi
done < <(awk '{print $1}' "$entries" | sort -u)

# ---------------------------------------------------------------- configurations
declare -A algorithms
max_algorithms=0
if [ -x "$bench" ]; then
  while IFS=, read -r coll name _; do
    [ "$coll" = collective ] && continue
    algorithms[$coll]="${algorithms[$coll]:-} $name"
  done < <("$bench" list --format csv)
  for coll in "${!algorithms[@]}"; do
    n=$(wc -w <<<"${algorithms[$coll]}")
    [ "$n" -gt "$max_algorithms" ] && max_algorithms=$n
  done
fi
if [ -z "$configs" ]; then
  configs="mpi,lib,auto"
  for ((k = 1; k <= max_algorithms; ++k)); do configs="$configs,r$k"; done
fi
# config_env CONFIG: the variables of a configuration, one NAME=VALUE a line.
config_env() {
  local coll list n
  case $1 in
    mpi) ;;
    lib) echo "LD_PRELOAD=$lib" ;;
    auto)
      echo "LD_PRELOAD=$lib"
      for coll in "${!algorithms[@]}"; do echo "RAGGED_${coll^^}=auto"; done
      echo "RAGGED_BARRIER=auto"
      ;;
    r*)
      local k=${1#r}
      echo "LD_PRELOAD=$lib"
      for coll in "${!algorithms[@]}"; do
        read -r -a list <<<"${algorithms[$coll]}"
        n=${#list[@]}
        echo "RAGGED_${coll^^}=${list[$(((k - 1) % n))]}"
      done
      echo "RAGGED_BARRIER=dissemination"
      ;;
  esac
}

# ---------------------------------------------------------------- run
declare -A result
IFS=, read -r -a config_list <<<"$configs"
for config in "${config_list[@]}"; do
  mapfile -t vars < <(config_env "$config")
  mapfile -t launch_env < <(env_args "${vars[@]}")
  mkdir -p "$work/logs/$config"
  echo "conformance-suite.sh: $config: ${vars[*]:-(nothing set)}" >&2
  while read -r name np args; do
    key="$name $np${args:+ $args}"
    if [ -z "${built[$name]:-}" ]; then
      result[$config|$key]=build
      continue
    fi
    log="$work/logs/$config/$name.$np${args// /_}.txt"
    # shellcheck disable=SC2086 # the entry's arguments are words
    (cd "$work/bin" && timeout -k 5 "$timeout_s" "${launch[@]}" "${launch_env[@]}" -n "$np" ./"$name" $args) \
      </dev/null >"$log" 2>&1
    status=$?
    if [ $status -eq 0 ] && grep -q "No Errors" "$log"; then
      result[$config|$key]=pass
    elif [ $status -eq 124 ] || [ $status -eq 137 ]; then
      result[$config|$key]=hang
    else
      result[$config|$key]=fail
    fi
  done <"$entries"
done

# ---------------------------------------------------------------- table
printf '%-32s' "test np args"
for config in "${config_list[@]}"; do printf ' %5s' "$config"; done
printf '\n'
declare -A passes
worse=0
while read -r name np args; do
  key="$name $np${args:+ $args}"
  printf '%-32s' "$key"
  base=${result[${config_list[0]}|$key]}
  for config in "${config_list[@]}"; do
    r=${result[$config|$key]}
    [ "$r" = pass ] && passes[$config]=$((${passes[$config]:-0} + 1))
    mark=$r
    if [ "$r" != "$base" ]; then
      mark="$r!"
      [ "$base" = pass ] && worse=1
    fi
    printf ' %5s' "$mark"
  done
  printf '\n'
done <"$entries"
total=$(wc -l <"$entries")
printf '%-32s' "passed (of $total)"
for config in "${config_list[@]}"; do printf ' %5s' "${passes[$config]:-0}"; done
printf '\n'
echo "(! differs from ${config_list[0]}; build: the test does not build here; hang: killed after ${timeout_s} s; logs in $work/logs)"
exit $worse
