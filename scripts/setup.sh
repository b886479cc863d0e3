#!/bin/sh
# Installs the Debian packages hogwild builds and tests with.
# --if-missing: do nothing when every library is already found by pkg-config.
# Open MPI (the MPI tests, mpirun across machines) is optional: installed
# when missing, but a machine where it cannot be installed still builds
# (make MPI=auto leaves it out) and the MPI tests say they were skipped.
# --tools: only the tools of the extra checks CI runs (clang for libFuzzer,
# lmdb-utils for the corruption run), when they are missing.
set -e
if [ "$1" = "--tools" ]; then
  if scripts/fuzz-ok.sh && command -v mdb_load >/dev/null 2>&1; then exit 0; fi
  if [ "$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "setup: need root or sudo to install clang lmdb-utils; those checks are skipped" >&2; exit 0; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev lmdb-utils >/dev/null 2>&1 || \
    echo "setup: clang or lmdb-utils not installed; fuzzing or the crafted-meta checks are skipped" >&2
  exit 0
fi
PKGS="build-essential pkg-config liblmdb-dev libhwloc-dev libcunit1-dev libopenblas-dev zlib1g-dev libbz2-dev liblzma-dev libzstd-dev"
OPTIONAL="gnuplot-nox"
MPI_PKGS="libopenmpi-dev openmpi-bin"
mpi_ok() { pkg-config --exists ompi-c 2>/dev/null && command -v mpirun >/dev/null 2>&1; }
if [ "$1" = "--if-missing" ]; then
  ok=1
  for m in lmdb hwloc cunit openblas zlib liblzma libzstd; do
    pkg-config --exists $m 2>/dev/null || ok=0
  done
  [ -f /usr/include/bzlib.h ] || ok=0
  command -v cc >/dev/null 2>&1 || ok=0
  if [ $ok = 1 ] && mpi_ok; then exit 0; fi
  if [ $ok = 1 ] && [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
    echo "setup: Open MPI is not installed ($MPI_PKGS): building without MPI" >&2
    exit 0
  fi
fi
if [ "$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
  echo "setup: need root or sudo to install: $PKGS" >&2; exit 1; fi
echo "setup: installing Debian packages: $PKGS $MPI_PKGS $OPTIONAL" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
# Open MPI: training on several machines and its tests; without it the build
# leaves MPI out.
$SUDO apt-get install -y -qq --no-install-recommends $MPI_PKGS >/dev/null 2>&1 || \
  echo "setup: Open MPI not installed; hogwild builds without MPI and skips its tests" >&2
# gnuplot only draws the comparison plots; its absence is not an error.
$SUDO apt-get install -y -qq --no-install-recommends $OPTIONAL >/dev/null 2>&1 || \
  echo "setup: gnuplot-nox not installed; plots will be skipped" >&2
