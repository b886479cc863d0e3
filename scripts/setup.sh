#!/bin/sh
# Installs the Debian packages hogwild builds and tests with.
# --if-missing: do nothing when every library is already found by pkg-config.
set -e
PKGS="build-essential pkg-config liblmdb-dev libhwloc-dev libcunit1-dev libopenblas-dev zlib1g-dev"
OPTIONAL="gnuplot-nox"
if [ "$1" = "--if-missing" ]; then
  ok=1
  for m in lmdb hwloc cunit openblas zlib; do
    pkg-config --exists $m 2>/dev/null || ok=0
  done
  command -v cc >/dev/null 2>&1 || ok=0
  [ $ok = 1 ] && exit 0
fi
if [ "$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
  echo "setup: need root or sudo to install: $PKGS" >&2; exit 1; fi
echo "setup: installing Debian packages: $PKGS $OPTIONAL" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
# gnuplot only draws the comparison plots; its absence is not an error.
$SUDO apt-get install -y -qq --no-install-recommends $OPTIONAL >/dev/null 2>&1 || \
  echo "setup: gnuplot-nox not installed; plots will be skipped" >&2
