#!/usr/bin/env bash
# Installs what ragged needs from Debian's packages (Debian 12). Idempotent and
# quiet when nothing is missing. Run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake pkg-config git            # toolchain (CMake >= 3.25)
  libopenmpi-dev openmpi-bin                      # the mpi backend and mpirun tier
  libmpich-dev mpich                              # the second MPI (RAGGED_MPI=mpich); Open MPI stays the default
  gfortran                                        # the PMPI library's Fortran tests
  libsimgrid-dev                                  # the sim backend (SimGrid 3.32)
  libgtest-dev                                    # tests
  libcli11-dev nlohmann-json3-dev                 # ragged-bench
  clang-format                                    # formatting check
  clang libclang-rt-14-dev                        # the fuzzers (preset fuzz): clang 14 and its libFuzzer runtime
  iproute2 iptables libnetfilter-queue-dev        # tools/testbed (namespaces, delay line)
  gnuplot-nox                                     # figures of the benchmarks
  python3                                         # checkers of the PMPI report tests
  libdlib-dev dataset-fashion-mnist               # ragged-train (Proficz 2018's training example)
  dpkg-dev file                                   # Debian packages (cpack -G DEB: dpkg-shlibdeps, dpkg-deb)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
