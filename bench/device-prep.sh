#!/bin/sh
# Run HERE, before bench/device.sh goes to the accelerator machine (which reaches
# no package registry and may have another compiler): builds hogwild, its CUDA
# plugin, the test runner (MPI=0: the runner then needs no Open MPI there), the
# sgemm timers, bench/bound.c and bench/cacheline.c in a copy of the tree, and
# stages them in .dev/ with the shared libraries they load from this machine
# (xz-compressed: OpenBLAS alone is 36 MB) and Fashion-MNIST (Debian's
# dataset-fashion-mnist). .dev/ is kept out of git by .git/info/exclude; the
# device tool's call names it in carry: ["bench/.dev"] is not used, ".dev" is.
#   sh bench/device-prep.sh        then device run: bash bench/device.sh, carry [".dev"]
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo '/.dev/' >>.git/info/exclude
B=$(mktemp -d "${TMPDIR:-/tmp}/hogwild-devbuild.XXXXXX")
trap 'rm -rf "$B"' EXIT
# the working tree as it is: tracked files with their edits, and new files git does not ignore
git ls-files -co --exclude-standard -z | xargs -0 tar cf - | tar xf - -C "$B"
make -C "$B" -j"$(nproc)" CUDA=1 MPI=0 all build/obj/tests/run_tests build/bench_gemm build/bench_cublas >/dev/null
D=$ROOT/.dev
rm -rf "$D"
mkdir -p "$D/bin" "$D/lib" "$D/fm"
cp "$B/hogwild" "$B/libhogwild-cuda.so" "$B/build/obj/tests/run_tests" "$B/build/bench_gemm" "$B/build/bench_cublas" "$D/bin/"
cc -std=c11 -O2 -march=x86-64-v2 -fopenmp -I"$B/include" -o "$D/bin/bound" bench/bound.c "$B/build/obj/libhogwild.a" \
	$(pkg-config --libs lmdb hwloc openblas zlib) -ldl -lm
cc -std=c11 -O2 -pthread -o "$D/bin/cacheline" bench/cacheline.c
# every library hogwild, the runner and the bound load, except the C library's own, libgcc_s (the
# machine's libstdc++ there may need a newer one), zlib and CUDA's
for f in "$D/bin/hogwild" "$D/bin/run_tests" "$D/bin/bound"; do ldd "$f"; done |
	awk '$3 ~ /^\// { print $3 }' | sort -u |
	grep -vE '/(libc|libm|libpthread|libdl|librt|libgcc_s|libz|ld-linux[^/]*)\.so' | while read -r l; do
	cp -L "$l" "$D/lib/$(basename "$l")"
done
(cd "$D/lib" && tar cJf ../libs.tar.xz ./*) && rm -rf "$D/lib"
FM=${FM:-/usr/share/datasets/fashion-mnist}
if [ -d "$FM" ]; then cp "$FM"/*.gz "$D/fm/"; else echo "device-prep: no $FM (apt-get install dataset-fashion-mnist)" >&2; fi
git -C "$ROOT" rev-parse --short HEAD >"$D/commit"
git -C "$ROOT" diff --quiet || echo " (with local changes)" >>"$D/commit"
du -sh "$D" "$D"/*
