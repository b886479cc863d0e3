#!/bin/sh
# Run HERE (a Debian machine with the registry) before bench/gpu.sh goes to the
# GPU machine, which reaches no package registry: downloads the Debian packages
# the build needs into .debs/ (ignored by git, listed in .git/info/exclude) so
# the device tool can carry them (carry: [".debs"]). gpu.sh unpacks them with
# dpkg -x into a private root, never into /.
set -eu
cd "$(dirname "$0")/.."
grep -qx '/.debs/' .git/info/exclude 2>/dev/null || echo '/.debs/' >>"$(git rev-parse --git-common-dir)/info/exclude"
mkdir -p .debs
cd .debs
apt-get download liblmdb0 liblmdb-dev zlib1g zlib1g-dev libopenblas0-pthread \
	libopenblas-pthread-dev libopenblas-dev libgfortran5 libcunit1 libcunit1-dev \
	libhwloc15 libhwloc-dev
ls -la
