#!/bin/sh
# Fashion-MNIST, MLP 784-256-256-10: hogwild (--model mlp) against PyTorch on
# the CPU, side by side in one run, with the same layers, batch, optimizer (SGD
# with momentum, constant step, no weight decay), He-normal initialization and
# epochs: time to 85% test accuracy (training time to the end of the first epoch
# at or above it, evaluation excluded) at 1 and 2 threads. hogwild's threads are
# Hogwild! workers (lockfree); PyTorch's are torch.set_num_threads intra-op
# threads. Then the GFLOP/s the training loop gets inside its sgemm calls (an
# LD_PRELOAD timer, bench/gemm_timer.c) against a plain sgemm loop on the same
# shapes (build/bench_gemm), and the share of time outside BLAS.
#
#   sh bench/mlp.sh            (EPOCHS=4 BATCH=32 LR=0.01 MOMENTUM=0.9 THREADS="1 2")
#
# Needs: apt-get install -y dataset-fashion-mnist python3-torch. Writes
# bench/results/mlp.md. Runs are interleaved (hogwild, PyTorch, per thread
# count) so that load from other processes hits both alike; on a shared machine
# the figures are still noisy: rerun on a quiet one.
set -eu
cd "$(dirname "$0")/.."
EPOCHS=${EPOCHS:-4}
BATCH=${BATCH:-32}
LR=${LR:-0.01}
MOMENTUM=${MOMENTUM:-0.9}
THREADS=${THREADS:-"1 2"}
FM=${FM:-/usr/share/datasets/fashion-mnist}
OUTMD=${OUTMD:-bench/results/mlp.md}
PY=/usr/bin/python3
for f in train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
	[ -f "$FM/$f" ] || { echo "mlp.sh: $FM/$f missing: apt-get install -y dataset-fashion-mnist" >&2; exit 2; }
done
$PY -c 'import torch' 2>/dev/null || { echo "mlp.sh: no torch: apt-get install -y python3-torch" >&2; exit 2; }
make -s all build/bench_gemm >/dev/null
cc -shared -fPIC -O2 -o build/gemm_timer.so bench/gemm_timer.c -ldl
D=build/fashion-mnist
mkdir -p "$D"
[ -f "$D/train.lmdb" ] || ./hogwild data import --format idx "$FM/train-images-idx3-ubyte.gz" "$FM/train-labels-idx1-ubyte.gz" "$D/train.lmdb" >/dev/null
[ -f "$D/test.lmdb" ] || ./hogwild data import --format idx "$FM/t10k-images-idx3-ubyte.gz" "$FM/t10k-labels-idx1-ubyte.gz" "$D/test.lmdb" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
HOGOPTS="--model mlp --layers 256,256 --batch $BATCH --optimizer sgd --momentum $MOMENTUM --lr $LR --schedule constant --l2 0"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for T in $THREADS; do
	echo "threads $T: hogwild..." >&2
	./hogwild train $HOGOPTS --threads "$T" --epochs "$EPOCHS" --data "$D/train.lmdb" --test "$D/test.lmdb" \
		--metrics "$tmp/hog$T.json" --quiet >"$tmp/hog$T.txt" 2>&1
	echo "threads $T: pytorch..." >&2
	$PY bench/mlp_torch.py --dir "$FM" --threads "$T" --epochs "$EPOCHS" --batch "$BATCH" --lr "$LR" \
		--momentum "$MOMENTUM" >"$tmp/torch$T.json"
done
# one epoch without a test set under the sgemm timer, one thread
echo "sgemm timer..." >&2
LD_PRELOAD=$PWD/build/gemm_timer.so GEMM_TIMER_OUT=$tmp/gt.txt ./hogwild train $HOGOPTS --threads 1 --epochs 1 \
	--data "$D/train.lmdb" --metrics "$tmp/gt.json" --quiet >/dev/null 2>&1
./build/bench_gemm --batch "$BATCH" --seconds 0.3 >"$tmp/gemm.txt"
load1=$(cut -d' ' -f1-3 /proc/loadavg)
$PY - "$tmp" "$EPOCHS" "$BATCH" "$LR" "$MOMENTUM" "$THREADS" "$load0" "$load1" >"$OUTMD" <<'PYEOF'
import json, os, platform, subprocess, sys
tmp, epochs, batch, lr, mom, threads, load0, load1 = sys.argv[1:9]
def lines(p):
    return [json.loads(l) for l in open(p) if l.startswith("{")]
def to85(rows):
    for r in rows:
        if r["test_acc"] >= 0.85:
            return "%.2f s (epoch %d)" % (r["elapsed"], r["epoch"])
    return "not reached in %d epochs" % len(rows)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
gemmhdr = open(os.path.join(tmp, "gemm.txt")).readline().strip("# \n")
print("# MLP 784-256-256-10 on Fashion-MNIST: hogwild against PyTorch (CPU)\n")
print("Made by `sh bench/mlp.sh` (one command; rerun it on a quiet machine).\n")
print("- machine: %s, %d cores visible; load average %s before, %s after" % (cpu, os.cpu_count(), load0, load1))
print("- commit: %s%s; %s; PyTorch %s" % (commit, " (with uncommitted changes)" if dirty else "", gemmhdr,
      subprocess.run(["/usr/bin/python3", "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True).stdout.strip()))
print("- both: batch %s, SGD lr %s momentum %s, constant step, no weight decay, He-normal weights, %s epochs;" % (batch, lr, mom, epochs))
print("  hogwild lockfree workers; PyTorch torch.set_num_threads(T)")
print("- time to 85%: training seconds (evaluation excluded) to the end of the first epoch whose test accuracy is >= 85%\n")
print("| threads | hogwild: time to 85% | hogwild: s/epoch | hogwild: final acc | PyTorch: time to 85% | PyTorch: s/epoch | PyTorch: final acc |")
print("|---|---|---|---|---|---|---|")
for T in threads.split():
    h = lines(os.path.join(tmp, "hog%s.json" % T)); p = lines(os.path.join(tmp, "torch%s.json" % T))
    print("| %s | %s | %.2f | %.2f%% | %s | %.2f | %.2f%% |" % (T, to85(h), h[-1]["elapsed"] / len(h), 100 * h[-1]["test_acc"],
          to85(p), p[-1]["elapsed"] / len(p), 100 * p[-1]["test_acc"]))
print("\nPer epoch (elapsed training seconds, test accuracy):\n")
for T in threads.split():
    for who, f in (("hogwild", "hog%s.json"), ("pytorch", "torch%s.json")):
        rows = lines(os.path.join(tmp, f % T))
        print("- %s, %s thread%s: %s" % (who, T, "" if T == "1" else "s", ", ".join("%.2fs %.2f%%" % (r["elapsed"], 100 * r["test_acc"]) for r in rows)))
g = open(os.path.join(tmp, "gt.txt")).read().split()
gs, gf = float(g[4]), float(g[6])
ep = lines(os.path.join(tmp, "gt.json"))[0]
train_s = ep["seconds"]
print("\n## Inside the training loop (1 thread, 1 epoch, no test set)\n")
print("- sgemm: %s calls, %.2f GFLOP in %.2f s: **%.1f GFLOP/s** inside the loop's gemm calls" % (g[2], gf, gs, gf / gs))
print("- training time %.2f s: **%.0f%% outside BLAS** (gathering batches, bias and ReLU passes, softmax, the weight update)" % (train_s, 100 * (1 - gs / train_s)))
print("- the loop's own count: %.2f GFLOP/s over the whole epoch (all products, forward and backward)" % (ep["nnz_per_s_per_thread"] / 1e9))
rows = [l.split() for l in open(os.path.join(tmp, "gemm.txt")) if not l.startswith("#")]
mlp = [r for r in rows if r[0] in ("fwd784-256", "dW784-256", "fwd256-256", "dW256-256", "dX256-256", "fwd256-10", "dW256-10", "dX256-10")]
fl = sum(2 * int(r[1]) * int(r[2]) * int(r[3]) for r in mlp)
t = sum(2 * int(r[1]) * int(r[2]) * int(r[3]) / (float(r[6]) * 1e9) for r in mlp)
print("- a plain sgemm loop on the same shapes (build/bench_gemm --batch %s, the trainer's 8 products per batch): **%.1f GFLOP/s**\n" % (batch, fl / t / 1e9))
print("```\n" + open(os.path.join(tmp, "gemm.txt")).read() + "```")
PYEOF
echo "wrote $OUTMD" >&2
cat "$OUTMD"
