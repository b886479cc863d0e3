#!/bin/sh
# Run HERE (a Debian machine with the registry) before bench/gpu.sh goes to the
# GPU machine, which reaches no package registry: downloads the Debian packages
# the build needs into build/debs/ (build/ is ignored by git) so the device tool
# can carry them (carry: ["build/debs"]). gpu.sh unpacks them with dpkg -x into
# a private root, never into /.
set -eu
cd "$(dirname "$0")/.."
mkdir -p build/debs
cd build/debs
apt-get download liblmdb0 liblmdb-dev zlib1g zlib1g-dev libopenblas0-pthread \
	libopenblas-pthread-dev libopenblas-dev libgfortran5 libcunit1 libcunit1-dev \
	libhwloc15 libhwloc-dev
ls -la
