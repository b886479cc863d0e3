#!/bin/sh
# What the GPU machine runs for issue 13 (one command through the device tool):
#  1. the build's libraries: when pkg-config cannot find them and build/debs/ was
#     carried (bench/gpu-debs.sh fetches it here; carry: ["build/debs"]), they are
#     unpacked with dpkg -x into a private root and used from there;
#  2. a CUDA=1 build (CUDA=auto where nvcc is missing: the script then reports it);
#  3. the backend cross-check tests (every op of the CUDA backend, FP32 and TF32,
#     against reference loops; "skipped: no GPU" where none is visible);
#  4. sgemm GFLOP/s on the MLP shapes 784-256-256-10 at batch 32/128/512 and
#     4096-wide layers at batch 128/512: the CPU backend (one OpenBLAS thread),
#     the CUDA backend, and cuBLAS alone (bench_cublas), FP32 and TF32.
# Writes bench/results/gpu-<gpu>.md (build/gpu-none.md without a GPU), and a copy
# under $OUT when that is set.   usage: sh bench/gpu.sh [SECONDS per shape]
set -eu
cd "$(dirname "$0")/.."
SECS=${1:-0.3}
J=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. libraries
if ! pkg-config --exists lmdb zlib openblas cunit 2>/dev/null && [ -d build/debs ]; then
	R=${DEBROOT:-/tmp/hogwild-debs}
	mkdir -p "$R"
	for f in build/debs/*.deb; do dpkg -x "$f" "$R"; done
	# links to absolute paths (libz.so -> /lib/...) must point into the root
	find "$R" -type l | while read -r l; do
		t=$(readlink "$l")
		case "$t" in "$R"/*) ;; /*) ln -sf "$R$t" "$l" ;; esac
	done
	L=$R/usr/lib/x86_64-linux-gnu
	export PKG_CONFIG_SYSROOT_DIR=$R
	export PKG_CONFIG_LIBDIR=$L/pkgconfig:$L/openblas-pthread/pkgconfig:$R/usr/share/pkgconfig
	export LD_LIBRARY_PATH=$L/openblas-pthread:$L:$R/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LIBRARY_PATH=$L/openblas-pthread:$L
	export CPATH=$R/usr/include
	echo "gpu.sh: libraries from build/debs unpacked in $R"
fi
HW=1
pkg-config --exists hwloc 2>/dev/null || HW=0
CUDAFLAG=1
[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || command -v nvcc >/dev/null || CUDAFLAG=auto

# 2. build
make -j"$J" CUDA=$CUDAFLAG HWLOC=$HW all build/obj/tests/run_tests build/bench_gemm >"$tmp/build.txt" 2>&1 || {
	cat "$tmp/build.txt"; exit 1; }
head -1 "$tmp/build.txt"
# the test runner and bench_gemm are not beside the CUDA plugin: say where it is
export HOG_CUDA_PLUGIN="$PWD/libhogwild-cuda.so"
HAVE_CUBLAS=0
if [ "$CUDAFLAG" = 1 ] && make CUDA=1 HWLOC=$HW build/bench_cublas >>"$tmp/build.txt" 2>&1 &&
	build/bench_cublas --seconds 0.01 >/dev/null 2>&1; then
	HAVE_CUBLAS=1
fi

# 3. tests: the backend suite first (the cross-check), then all of them
set +e
HOG_TEST_VERBOSE=1 build/obj/tests/run_tests backend >"$tmp/tests.txt" 2>&1
TRC=$?
HOG_BIN=$PWD/hogwild build/obj/tests/run_tests >"$tmp/alltests.txt" 2>&1
ARC=$?
set -e
./hogwild topo >"$tmp/topo.txt" 2>&1 || true
GPU=$(sed -n 's/^gpu 0: \([^,]*\),.*/\1/p' "$tmp/topo.txt")
echo "gpu.sh: backend tests rc=$TRC, all tests rc=$ARC, gpu: ${GPU:-none}"

# 4. sgemm
na() { sed 's/[0-9.]*$/n\/a/' "$1"; }
row() { # batch wide -> table rows
	b=$1; w=$2
	build/bench_gemm --device cpu --batch "$b" $w --seconds "$SECS" | grep -v '^#' >"$tmp/c"
	if [ "$HAVE_CUBLAS" = 1 ]; then
		build/bench_gemm --device cuda --batch "$b" $w --seconds "$SECS" | grep -v '^#' >"$tmp/g"
		build/bench_cublas --batch "$b" $w --seconds "$SECS" | grep -v '^#' >"$tmp/r"
		build/bench_gemm --device cuda --tf32 --batch "$b" $w --seconds "$SECS" | grep -v '^#' >"$tmp/gt"
		build/bench_cublas --tf32 --batch "$b" $w --seconds "$SECS" | grep -v '^#' >"$tmp/rt"
	else
		for f in g r gt rt; do na "$tmp/c" >"$tmp/$f"; done
	fi
	paste -d' ' "$tmp/c" "$tmp/g" "$tmp/r" "$tmp/gt" "$tmp/rt" |
		awk -v b="$b" '{printf "| %s | %s | %s %s %s | %s | %s | %s | %s | %s |\n", b, $1, $2, $3, $4, $7, $14, $21, $28, $35}'
}
{
	echo "# CUDA backend: cross-check and sgemm GFLOP/s (${GPU:-no GPU})"
	echo
	echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
	echo "- machine: $J CPUs; $(lscpu | sed -n 's/^Model name: *//p')"
	echo "- build: $(head -1 "$tmp/build.txt")"
	echo "- command: sh bench/gpu.sh $SECS (each shape timed for ${SECS}s after a warm call; sync every 8 calls)"
	echo
	echo "## hogwild topo (BLAS kernels, GPUs)"
	echo
	echo '```'
	tail -n 4 "$tmp/topo.txt"
	echo '```'
	echo
	echo "## Backend tests (exit status $TRC; whole suite $ARC)"
	echo
	echo '```'
	grep -E 'test_backend:|nmse|fd |Run Summary|suites|tests |asserts|skipped|FAIL' "$tmp/tests.txt" | head -40
	echo '```'
	echo
	echo "## sgemm GFLOP/s"
	echo
	echo "Shapes of a layer in -> out at batch B: fwd Y = X W (B x out x in), dW = X^T dY"
	echo "(in x out x B), dX = dY W^T (B x in x out). CPU: the CPU backend, one OpenBLAS thread."
	echo "backend: hog_backend_gemm on the CUDA backend; cuBLAS: cublasSgemm alone (bench_cublas)."
	echo
	echo "| batch | shape | m n k | CPU 1 thread | backend FP32 | cuBLAS FP32 | backend TF32 | cuBLAS TF32 |"
	echo "|---:|---|---|---:|---:|---:|---:|---:|"
	for b in 32 128 512; do row "$b" ""; done
	for b in 128 512; do row "$b" --wide; done
} >"$tmp/report.md"
if [ -n "$GPU" ]; then
	slug=$(echo "$GPU" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
	DEST=bench/results/gpu-$slug.md
else
	DEST=build/gpu-none.md
fi
cp "$tmp/report.md" "$DEST"
[ -n "${OUT:-}" ] && cp "$tmp/report.md" "$OUT/$(basename "$DEST")"
[ -n "${OUT:-}" ] && cp "$tmp/alltests.txt" "$OUT/tests.txt"
cat "$DEST"
exit $TRC
