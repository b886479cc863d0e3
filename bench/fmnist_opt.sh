#!/bin/sh
# Fashion-MNIST, an MLP 784-128-10: time and epochs to 85/87/88% test accuracy
# with a fixed batch against --batch auto, and Adam/AdamW against SGD with
# momentum, beside PyTorch's SGD and Adam on the same network (bench/mlp_torch.py,
# torch.set_num_threads(T)). hogwild's times are its --metrics "elapsed"
# (training, evaluation excluded), PyTorch's the same.
#
#   sh bench/fmnist_opt.sh [OUT.md]      (repository root, after make)
#
# Env: EPOCHS=10, THREADS=2, FM=/usr/share/datasets/fashion-mnist (Debian's
# dataset-fashion-mnist). Run on a quiet machine: figures taken while builds or
# tests run are void.
set -eu
H=${HOG_BIN:-./hogwild}
EPOCHS=${EPOCHS:-10}
THREADS=${THREADS:-2}
FM=${FM:-/usr/share/datasets/fashion-mnist}
OUT=${1:-/dev/stdout}
PY=/usr/bin/python3
W=$(mktemp -d "${TMPDIR:-/tmp}/hogwild-fmnist.XXXXXX")
trap 'rm -rf "$W"' EXIT
"$H" data import -q --format idx "$FM/train-images-idx3-ubyte.gz" "$FM/train-labels-idx1-ubyte.gz" "$W/tr.lmdb" >/dev/null
"$H" data import -q --format idx "$FM/t10k-images-idx3-ubyte.gz" "$FM/t10k-labels-idx1-ubyte.gz" "$W/te.lmdb" >/dev/null

# hog NAME ARGS...: one hogwild run, its --metrics as NAME.jsonl
hog() {
	name=$1
	shift
	echo "hogwild train --model mlp --layers 128 --threads $THREADS --epochs $EPOCHS $*" >"$W/$name.cmd"
	"$H" train --quiet --data "$W/tr.lmdb" --test "$W/te.lmdb" --model mlp --layers 128 --threads "$THREADS" \
		--epochs "$EPOCHS" --metrics "$W/$name.jsonl" "$@" >/dev/null 2>&1
}
torch() {
	name=$1
	shift
	echo "python3 bench/mlp_torch.py --layers 128 --threads $THREADS --epochs $EPOCHS $*" >"$W/$name.cmd"
	if $PY -c 'import torch' 2>/dev/null; then
		$PY bench/mlp_torch.py --dir "$FM" --layers 128 --threads "$THREADS" --epochs "$EPOCHS" "$@" >"$W/$name.jsonl"
	fi
}
hog sgd-b32                                   # sgd, momentum 0.9, lr 0.05, backoff 0.9: the defaults
hog sgd-auto --batch auto                     # the batch grown to the noise scale
hog adam-b32 --optimizer adam                 # lr 0.001
hog adamw-b32 --optimizer adamw --l2 0.01     # PyTorch AdamW's default decay
torch torch-sgd --lr 0.05 --momentum 0.9 --batch 32
torch torch-adam --optimizer adam --lr 0.001 --batch 32

{
	echo "# Fashion-MNIST 784-128-10: fixed batch against --batch auto, Adam against SGD, and PyTorch"
	echo
	echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?');" \
		"$THREADS threads, $EPOCHS epochs, $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	$PY - "$W" <<'EOF'
import json, os, sys
w = sys.argv[1]
runs = ["sgd-b32", "sgd-auto", "adam-b32", "adamw-b32", "torch-sgd", "torch-adam"]
print("| run | command | s (epochs) to 85% | to 87% | to 88% | best acc % | final acc % | batches |")
print("|---|---|---|---|---|---|---|---|")
for r in runs:
    p = os.path.join(w, r + ".jsonl")
    cmd = open(os.path.join(w, r + ".cmd")).read().strip()
    rows = [json.loads(l) for l in open(p) if l.startswith("{") and '"epoch"' in l] if os.path.exists(p) else []
    if not rows:
        print(f"| {r} | `{cmd}` | not run (PyTorch missing?) | | | | | |")
        continue
    acc = [x["test_acc"] for x in rows]
    def to(t):
        for x in rows:
            if x["test_acc"] >= t:
                return f'{x["elapsed"]:.2f} ({x["epoch"]})'
        return "-"
    batches = ",".join(str(x["batch"]) for x in rows if "batch" in x) or "32"
    print(f"| {r} | `{cmd}` | {to(0.85)} | {to(0.87)} | {to(0.88)} | {100 * max(acc):.2f} | {100 * acc[-1]:.2f} | {batches} |")
EOF
} >"$OUT"
