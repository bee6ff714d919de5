#!/usr/bin/env bash
# One entry point for people and CI. Each command installs what is missing
# (scripts/setup-debian.sh), configures, builds and runs:
#   scripts/dev.sh bench [ragged-bench arguments]   the main job (default: pap on the simulated 1 GbE cluster)
#   scripts/dev.sh test                             every test (ctest), release build in build/
#   scripts/dev.sh release                          the Release (-O3) build with warnings as errors, and its unit tests
#   scripts/dev.sh sanitize                         unit, conformance, the sim tiers and the mpi tier under ASan+UBSan
#   scripts/dev.sh tsan                             conformance, the threaded sim tiers and the mpi tier under ThreadSanitizer (no bench)
#   scripts/dev.sh mpich                            the mpi tiers (conformance.mpi, mpi.*, mpi.pmpi.*) and install.* against MPICH, in build-mpich
#   scripts/dev.sh package                          the Debian packages (build-package/packages/*.deb) and their test
#   scripts/dev.sh fuzz                             the libFuzzer targets (clang), each replaying its corpus and fuzzing briefly, in build-fuzz
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc 2>/dev/null || echo 2)
bash scripts/setup-debian.sh

configure() {  # $1 = preset
  cmake --preset "$1" >/dev/null
}

cmd=${1:-bench}
shift || true
case "$cmd" in
  bench)
    configure default
    cmake --build --preset default -j "$jobs" --target ragged-bench >/dev/null
    exec build/tools/bench/ragged-bench "$@"
    ;;
  test)
    configure default
    cmake --build --preset default -j "$jobs"
    ctest --preset default -j "$jobs" "$@"
    ;;
  release)
    configure release
    cmake --build --preset release -j "$jobs"
    ctest --preset release -j "$jobs" -R '^unit\.' "$@"
    ;;
  sanitize)
    configure asan
    cmake --build --preset asan -j "$jobs"
    ctest --preset asan -j "$jobs" "$@"
    ;;
  tsan)
    # TSAN_OPTIONS (suppressions: tests/sanitizers/tsan.supp) come from the test preset.
    configure tsan
    cmake --build --preset tsan -j "$jobs"
    ctest --preset tsan -j "$jobs" "$@"
    ;;
  mpich)
    # Debian's MPICH beside Open MPI (mpicc.mpich, mpiexec.mpich; the default MPI is untouched).
    configure mpich
    cmake --build --preset mpich -j "$jobs"
    ctest --preset mpich -j "$jobs" "$@"
    ;;
  package)
    # cpack -G DEB, then package.deb: control fields, unpacked into a scratch root, consumers built.
    configure package
    cmake --build --preset package -j "$jobs"
    ctest --preset package "$@"
    ;;
  fuzz)
    # docs/fuzzing.md: every fuzzer replays its seeds and regressions, then fuzzes RAGGED_FUZZ_SECONDS.
    configure fuzz
    cmake --build --preset fuzz -j "$jobs"
    ctest --preset fuzz -j "$jobs" "$@"
    ;;
  *)
    echo "usage: scripts/dev.sh bench [args] | test [ctest args] | release [ctest args] | sanitize [ctest args]" \
         "| tsan [ctest args] | mpich [ctest args] | package [ctest args] | fuzz [ctest args]" >&2
    exit 2
    ;;
esac
