#!/bin/bash
# What the accelerator machine runs (one call of the device tool, carry [".dev"]),
# after bench/device-prep.sh staged .dev/ here. Each step has its own time limit
# and writes under $OUT as it goes, so a call stopped at its limit still brings
# back what was done. Steps (STEPS="cuda fmnist gemm cpu scaling", the default):
#   cuda     the backend cross-check (tests/test_backend.c: every op of the CUDA
#            backend, FP32 and TF32, against the CPU) and the mlp suite, whose
#            test_cuda_matches_cpu trains the same serial run on both devices;
#   fmnist   Fashion-MNIST 784-256-256-10, SGD with momentum, --device cuda beside
#            PyTorch on the same GPU (same network, batch, step, epochs), batch 128
#            and 1024;
#   gemm     sgemm GFLOP/s on the mlp's shapes: the CUDA backend against cuBLAS
#            alone, FP32 and TF32, and the CPU backend on one thread;
#   cpu      the mlp on 16 CPU workers beside PyTorch with 16 intra-op threads;
#   cpuscale (not in the default list): the mlp on 1-16 CPU workers beside PyTorch;
#   determ (not in the default list): deterministic mode byte for byte at 1, 16
#            and 32 threads and resumed at another count, every model kind;
#   replica16, auto (not in the default list): replica and buffered at every
#            core against the build staged as .dev/bin/hogwild-old, 3 seeds;
#            --mode auto's choice at every core;
#   scaling  bench/scaling.sh at THREADS (1 2 4 8 16) on SETS (rcv1), REPEAT rounds,
#            with the cache-line transfer between CPU pairs.
#   usage (device tool): bash bench/device.sh     env: STEPS, THREADS, SETS, REPEAT,
#   EPOCHS, MODES, SCALE_LIMIT (seconds for the scaling step), L2BOUND (0: scaling.sh's
#   bias-and-l2 bounds left out, for the modes' time; 1 runs them)
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
D=$ROOT/.dev
O=${OUT:-/tmp/hogwild-device}
mkdir -p "$O"
LOG=$O/log.txt
STEPS=${STEPS:-"cuda fmnist gemm cpu scaling"}
T0=$(date +%s)
say() { echo "[$(($(date +%s) - T0))s] $*" | tee -a "$LOG"; }
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

# libraries: this machine has none of hogwild's; they came from Debian in .dev
L=/tmp/hogwild-libs
mkdir -p "$L" && tar xJf "$D/libs.tar.xz" -C "$L"
export LD_LIBRARY_PATH=$L${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ldd "$D/bin/libhogwild-cuda.so" | grep -q 'not found'; then
	c=$(find / -name 'libcublas.so.13' -not -path '*/proc/*' 2>/dev/null | head -1)
	[ -n "$c" ] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$c")
fi
export HOG_BIN=$D/bin/hogwild HOG_CUDA_PLUGIN=$D/bin/libhogwild-cuda.so
# the result files' commit: the carried binary's (bench/device-prep.sh wrote it)
HOG_COMMIT="$(tr '\n' ' ' <"$D/commit" | sed 's/ *$//') (built by bench/device-prep.sh and carried)"
export HOG_COMMIT
H=$HOG_BIN
PY=$(command -v python3)
{
	echo "# device run: $(cat "$D/commit")"
	echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
	nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader 2>&1
	lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|NUMA node|L2|L3)'
	free -g | head -2
	ldd "$D/bin/libhogwild-cuda.so" | grep -E 'cublas|cudart'
	"$H" topo 2>&1 | tail -6
} >>"$LOG" 2>&1
say "start: steps $STEPS"

if has cuda; then
	HOG_TEST_VERBOSE=1 timeout 120 "$D/bin/run_tests" backend >"$O/backend.txt" 2>&1
	say "backend suite: rc=$? $(grep -E '^ *(tests|asserts)' "$O/backend.txt" | tr -s ' ' | tr '\n' ';')"
	HOG_TEST_VERBOSE=1 timeout 120 "$D/bin/run_tests" mlp >"$O/mlp.txt" 2>&1
	say "mlp suite: rc=$? $(grep -E '^ *(tests|asserts)' "$O/mlp.txt" | tr -s ' ' | tr '\n' ';')"
	grep -E 'cuda vs cpu|skipped' "$O/mlp.txt" | tee -a "$LOG"
fi

W=/tmp/hogwild-fm
if has fmnist || has cpu || has cpuscale; then
	mkdir -p "$W"
	timeout 90 "$H" data import -q --format idx "$D/fm/train-images-idx3-ubyte.gz" "$D/fm/train-labels-idx1-ubyte.gz" "$W/tr.lmdb" >>"$LOG" 2>&1
	timeout 30 "$H" data import -q --format idx "$D/fm/t10k-images-idx3-ubyte.gz" "$D/fm/t10k-labels-idx1-ubyte.gz" "$W/te.lmdb" >>"$LOG" 2>&1
	say "fashion-mnist imported: $(ls "$W")"
fi
# fm NAME LIMIT BATCH LR EPOCHS DEVICE THREADS: hogwild and PyTorch, one jsonl line per epoch each
fm() {
	n=$1 lim=$2 b=$3 lr=$4 e=$5 dev=$6 t=$7
	timeout "$lim" "$H" train --quiet --data "$W/tr.lmdb" --test "$W/te.lmdb" --model mlp --layers 256,256 \
		--batch "$b" --optimizer sgd --momentum 0.9 --lr "$lr" --schedule constant --l2 0 --device "$dev" \
		--threads "$t" --epochs "$e" --metrics "$W/h.jsonl" >>"$LOG" 2>&1
	echo "rc=$?" >>"$LOG"
	sed "s/^/hogwild $n /" "$W/h.jsonl" >>"$O/fmnist.txt" 2>/dev/null
	rm -f "$W/h.jsonl"
	timeout "$lim" "$PY" bench/mlp_torch.py --dir "$D/fm" --device "$dev" --threads "$t" --epochs "$e" --batch "$b" \
		--lr "$lr" --momentum 0.9 2>>"$LOG" | sed "s/^/torch $n /" >>"$O/fmnist.txt"
	say "fmnist $n done"
}
if has fmnist; then
	fm cuda-b128 60 128 0.01 10 cuda 1
	fm cuda-b1024 60 1024 0.08 10 cuda 1
fi
if has gemm; then
	for b in 32 128 512 1024; do
		for dev in cpu cuda; do
			timeout 20 "$D/bin/bench_gemm" --device "$dev" --batch "$b" --seconds 0.2 | sed "s/^/$dev b$b /"
		done
		timeout 20 "$D/bin/bench_cublas" --batch "$b" --seconds 0.2 | sed "s/^/cublas b$b /"
		timeout 20 "$D/bin/bench_gemm" --device cuda --tf32 --batch "$b" --seconds 0.2 | sed "s/^/cuda-tf32 b$b /"
		timeout 20 "$D/bin/bench_cublas" --tf32 --batch "$b" --seconds 0.2 | sed "s/^/cublas-tf32 b$b /"
	done >"$O/gemm.txt" 2>&1
	say "gemm done"
fi
if has cpu; then
	fm cpu16-b128 60 128 0.01 3 cpu 16
fi
# cpuscale (not in the default list): the mlp on 1, 2, 4, 8, 16 CPU workers beside
# PyTorch with as many intra-op threads, batch 128, 3 epochs
if has cpuscale; then
	for t in 1 2 4 8 16; do
		fm cpu$t-b128 60 128 0.01 3 cpu "$t"
	done
fi
# replica16: replica at every core, 3 seeds, with this build and with the one
# staged as .dev/bin/hogwild-old (the build before the merge factor), on the
# scaling benchmark's RCV1-shaped set: the divergence check
if has replica16 && [ -x "$D/bin/hogwild-old" ]; then
	BW=${BENCH_WORK:-/tmp/hogwild-device-bench}
	mkdir -p "$BW"
	[ -f "$BW/sc-rcv1_tr.lmdb" ] || {
		"$H" data gen -q --seed 1 --examples "${EXAMPLES:-781265}" "$BW/sc-rcv1.lmdb"
		"$H" data split --fraction 0.1 --seed 1 "$BW/sc-rcv1.lmdb" "$BW/sc-rcv1_tr.lmdb" "$BW/sc-rcv1_te.lmdb" >/dev/null
	}
	n=$(nproc)
	for b in hogwild-old hogwild; do
		for m in replica buffered; do
			for seed in 1 2 3; do
				r=$(timeout 60 "$D/bin/$b" train --data "$BW/sc-rcv1_tr.lmdb" --test "$BW/sc-rcv1_te.lmdb" --epochs 3 \
					--average off --mode $m --threads "$n" --seed $seed 2>&1 | awk '$1 == 3 { print $2, $7 }')
				echo "$b $m threads $n seed $seed: s/epoch, test loss ${r:-failed}"
			done
		done
	done | tee "$O/replica16.txt" >>"$LOG"
	say "replica16 done"
fi
# auto: --mode auto at every core on each scaling set already made (SETS), its
# pick and its epochs' figures (run it after scaling, in a second call of this script)
if has auto; then
	BW=${BENCH_WORK:-/tmp/hogwild-device-bench}
	for s in ${SETS:-rcv1}; do
		[ -f "$BW/sc-${s}_tr.lmdb" ] || continue
		echo "auto on $s, $(nproc) threads:" >>"$LOG"
		timeout 120 "$H" train --data "$BW/sc-${s}_tr.lmdb" --test "$BW/sc-${s}_te.lmdb" --epochs 3 --mode auto \
			--threads "$(nproc)" 2>&1 | grep -E '^hogwild|auto|^ *[0-9]' >>"$LOG"
	done
	say "auto done"
fi
# determ (not in the default list): deterministic mode's models at 1, NPROC and
# 2 x NPROC threads (oversubscribed), byte for byte, and a run checkpointed at
# NPROC threads after epoch 1 and resumed at 5 against the straight run; each
# model kind and step rule (linear sgd and adagrad, narrow and 2 M features;
# mf; mlp), on generated sets made there
if has determ; then
	BW=${BENCH_WORK:-/tmp/hogwild-device-bench}
	DW=/tmp/hogwild-determ
	mkdir -p "$BW" "$DW"
	[ -f "$BW/sc-rcv1_tr.lmdb" ] || {
		"$H" data gen -q --seed 1 --examples 781265 "$BW/sc-rcv1.lmdb"
		"$H" data split --fraction 0.1 --seed 1 "$BW/sc-rcv1.lmdb" "$BW/sc-rcv1_tr.lmdb" "$BW/sc-rcv1_te.lmdb" >/dev/null
	}
	"$H" data gen -q --seed 3 --examples 100000 --features 2000000 "$DW/wide.lmdb"
	"$H" data gen -q --kind ratings --seed 1 "$DW/mf.lmdb"
	"$H" data gen -q --kind dense --seed 1 "$DW/mlp.lmdb"
	n=$(nproc)
	while read -r name model data opts; do
		for t in 1 "$n" $((2 * n)); do
			a=$(date +%s.%N)
			timeout 60 "$H" train --quiet --model "$model" --data "$data" --mode deterministic --threads "$t" \
				--epochs 2 --seed 1 $opts --save "$DW/$name-$t.bin" >/dev/null 2>&1
			echo "$name threads $t: rc $?, $(echo "$(date +%s.%N) $a" | awk '{ printf "%.2f", $1 - $2 }') s wall"
		done
		timeout 60 "$H" train --quiet --model "$model" --data "$data" --mode deterministic --threads "$n" --epochs 1 \
			--seed 1 $opts --checkpoint "$DW/$name.ck" >/dev/null 2>&1
		timeout 60 "$H" train --quiet --model "$model" --data "$data" --mode deterministic --threads 5 --epochs 2 \
			--seed 1 $opts --resume "$DW/$name.ck" --save "$DW/$name-res.bin" >/dev/null 2>&1
		for f in "$n" $((2 * n)) res; do
			if cmp -s "$DW/$name-1.bin" "$DW/$name-$f.bin"; then r=identical; else r=DIFFERENT; fi
			echo "$name: threads 1 against $f: $r ($(stat -c %s "$DW/$name-$f.bin" 2>/dev/null) bytes)"
		done
	done >>"$O/determ.txt" 2>&1 <<-EOF
		linear-sgd linear $BW/sc-rcv1_tr.lmdb
		linear-adagrad linear $BW/sc-rcv1_tr.lmdb --optimizer adagrad
		linear-wide linear $DW/wide.lmdb
		mf mf $DW/mf.lmdb
		mlp mlp $DW/mlp.lmdb --layers 128,64
	EOF
	grep -c identical "$O/determ.txt" | sed 's/^/determ: identical pairs /' | tee -a "$LOG"
	grep DIFFERENT "$O/determ.txt" | tee -a "$LOG"
	say "determ done"
fi
if has scaling; then
	n=$(nproc)
	for b in 1 2 $((n / 2)) $((n - 1)); do
		[ "$b" -ge 1 ] && [ "$b" -lt "$n" ] && timeout 20 "$D/bin/cacheline" 0 "$b" 200000 3 2>&1 | tee -a "$LOG"
	done
	BW=${BENCH_WORK:-/tmp/hogwild-device-bench}
	scaling() { # SECONDS VAR=VALUE...: bench/scaling.sh with this call's settings
		lim=$1
		shift
		env BENCH_WORK="$BW" BOUND_BIN="$D/bin/bound" CACHELINE_BIN="$D/bin/cacheline" \
			THREADS="${THREADS:-1 2 4 8 16}" SETS="${SETS:-rcv1}" REPEAT="${REPEAT:-1}" EPOCHS="${EPOCHS:-3}" \
			${BOUND_ORDER:+BOUND_ORDER="$BOUND_ORDER"} ${EXTRA:+EXTRA="$EXTRA"} \
			${MODES:+MODES="$MODES"} ${EXAMPLES:+EXAMPLES="$EXAMPLES"} L2BOUND="${L2BOUND:-0}" "$@" \
			timeout "$lim" sh bench/scaling.sh >/dev/null 2>>"$LOG"
	}
	scaling "${SCALE_LIMIT:-150}" OUT="$O/scaling.md"
	rc=$?
	say "scaling rc=$rc"
	if [ "$rc" = 124 ]; then # stopped inside a set: the tables of the rounds it finished
		scaling 30 TABLES_ONLY=1 OUT="$O/scaling-partial.md"
		say "scaling tables of the finished rounds: scaling-partial.md"
	fi
	cp "$BW"/sc-*.raw "$O/" 2>/dev/null
fi
say "end"
