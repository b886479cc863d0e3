#!/bin/sh
# sgemm GFLOP/s of the CPU backend (one OpenBLAS thread) on the MLP's shapes,
# with the kernels OpenBLAS falls back to on a CPU it does not know (Prescott)
# against the AVX-512 ones (SkylakeX), and what a plain run gets: medians of
# ROUNDS interleaved rounds (the machine is shared and noisy). Also checks the
# re-exec: with bench/fake_generic_blas.c preloaded, OpenBLAS claims Prescott,
# and a plain run must come back on SKYLAKEX (or HASWELL on AVX2-only CPUs).
# Writes bench/results/gemm.md.   usage: sh bench/gemm.sh [ROUNDS] [SECONDS]
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECS=${2:-0.2}
OUTMD=bench/results/gemm.md
make -s build/bench_gemm >/dev/null
cc -shared -fPIC -O2 -o build/fake_generic_blas.so bench/fake_generic_blas.c -ldl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset OPENBLAS_CORETYPE HOG_BLAS_REEXEC || true
B=build/bench_gemm
SHIM=$PWD/build/fake_generic_blas.so
r=1
while [ "$r" -le "$ROUNDS" ]; do
	# before: a CPU OpenBLAS does not know, no re-exec (what a plain run got before)
	HOG_BLAS_REEXEC=1 LD_PRELOAD=$SHIM OPENBLAS_CORETYPE=PRESCOTT $B --seconds "$SECS" >>"$tmp/prescott"
	# after: the same, with the re-exec a plain run now does
	LD_PRELOAD=$SHIM $B --seconds "$SECS" >>"$tmp/after"
	# this machine as OpenBLAS sees it, and the AVX-512 kernels named outright
	$B --seconds "$SECS" >>"$tmp/plain"
	OPENBLAS_CORETYPE=SKYLAKEX $B --seconds "$SECS" >>"$tmp/skylakex"
	r=$((r + 1))
done
median() { # file -> "shape m n k median"
	grep -v '^#' "$1" | awk '{k=$1" "$2" "$3" "$4; v[k]=v[k]" "$7; if(!(k in o)){o[k]=++n; key[n]=k}}
	END{for(i=1;i<=n;i++){c=split(v[key[i]],a," "); for(x=1;x<=c;x++)for(y=x+1;y<=c;y++)if(a[y]<a[x]){t=a[x];a[x]=a[y];a[y]=t}
	print key[i], (c%2?a[(c+1)/2]:(a[c/2]+a[c/2+1])/2)}}'
}
median "$tmp/prescott" >"$tmp/m1"; median "$tmp/after" >"$tmp/m2"
median "$tmp/plain" >"$tmp/m3"; median "$tmp/skylakex" >"$tmp/m4"
{
	echo "# sgemm through the CPU backend: generic vs AVX-512 OpenBLAS kernels"
	echo
	echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "- commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src bench ':!bench/results' || echo ' (with local changes)')"
	echo "- machine: $(nproc) CPUs; $(lscpu | sed -n 's/^Model name: *//p'); CPU family $(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')"
	echo "- BLAS: $(grep -m1 '^# device' "$tmp/plain" | sed 's/.*; //')"
	echo "- command: sh bench/gemm.sh $ROUNDS $SECS (median of $ROUNDS interleaved rounds, ${SECS}s per shape; one thread)"
	echo "- the machine is shared with other jobs: numbers are noisy, compare columns, not runs"
	echo "  (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs)"
	echo
	echo "Columns (GFLOP/s): **before**: OpenBLAS on its generic Prescott kernels, as a plain run"
	echo "was on a CPU it does not recognize; **after**: the same situation (OpenBLAS reporting"
	echo "Prescott, faked with bench/fake_generic_blas.c) with the re-exec a plain run now does;"
	echo "**plain**: this machine as OpenBLAS sees it unaided; **SKYLAKEX**: the variable set by hand."
	echo
	echo "| shape | m | n | k | before (Prescott) | after (re-exec) | plain here | SKYLAKEX |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	paste -d' ' "$tmp/m1" "$tmp/m2" "$tmp/m3" "$tmp/m4" | awk '{printf "| %s | %s | %s | %s | %.1f | %.1f | %.1f | %.1f |\n", $1,$2,$3,$4,$5,$10,$15,$20}'
	echo
	echo "Kernels each column ran:"
	echo
	for f in prescott after plain skylakex; do echo "- $f: $(grep -m1 '^# device' "$tmp/$f" | sed 's/.*kernels //')"; done
} >"$OUTMD"
cat "$OUTMD"
