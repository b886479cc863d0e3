#!/bin/sh
# --compress on several ranks of this machine (issue 27): for MovieLens mf
# (powersgd), the MLP on Fashion-MNIST (powersgd) and an RCV1-shaped linear
# model (topk), 2 and 3 ranks x 1 thread with and without compression: bytes
# each rank sends per averaging, the final test loss, and the time to a target
# test loss (the uncompressed run's final loss x 1.02); then an alpha-beta cost
# model of the ring all-reduce at 2, 3, 64 and 1,000 nodes with those sizes.
#   sh bench/mpi_compress.sh   (CZ_EPOCHS=10 CZ_SYNC=5000 CZ_RANKS="2 3" CZ_QUICK=1: small sets, void)
# Writes bench/results/mpi-compress.md. The machine is shared: times are noisy.
. "$(dirname "$0")/common.sh"
EPOCHS=${CZ_EPOCHS:-10}
SYNC=${CZ_SYNC:-5000}
RANKS=${CZ_RANKS:-2 3}
QUICK=${CZ_QUICK:-0}
OUT=$RESULTS/mpi-compress.md
MPIRUN="mpirun --oversubscribe --allow-run-as-root"
command -v mpirun >/dev/null || { echo "bench/mpi_compress.sh: mpirun not installed" >&2; exit 2; }
[ -x "$HM" ] || { echo "bench/mpi_compress.sh: no hogwild-mpi (build where Open MPI is installed)" >&2; exit 2; }
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_plm_rsh_agent=${OMPI_MCA_plm_rsh_agent:-false}

# ---- the data sets
ML=$DATA/ml-latest-small/ratings.csv
FM=/usr/share/datasets/fashion-mnist
W=$WORK/cz
mkdir -p "$W"
if [ ! -f "$W/ml-te.lmdb/data.mdb" ] && [ ! -f "$W/ml-te.lmdb" ]; then
	"$H" data import -q --format ratings "$ML" "$W/ml.lmdb" >/dev/null
	"$H" data split --per-user --fraction 0.2 --seed 1 "$W/ml.lmdb" "$W/ml-tr.lmdb" "$W/ml-te.lmdb" >/dev/null
fi
if [ ! -f "$W/fm-te.lmdb/data.mdb" ] && [ ! -f "$W/fm-te.lmdb" ]; then
	"$H" data import -q --format idx "$FM/train-images-idx3-ubyte.gz" "$FM/train-labels-idx1-ubyte.gz" "$W/fm-tr.lmdb" >/dev/null
	"$H" data import -q --format idx "$FM/t10k-images-idx3-ubyte.gz" "$FM/t10k-labels-idx1-ubyte.gz" "$W/fm-te.lmdb" >/dev/null
fi
RCV=${CZ_RCV_EXAMPLES:-200000}
[ "$QUICK" = 1 ] && RCV=20000
if [ ! -f "$W/rcv$RCV-te.lmdb/data.mdb" ] && [ ! -f "$W/rcv$RCV-te.lmdb" ]; then
	"$H" data gen -q --examples "$RCV" --seed 11 "$W/rcv$RCV.lmdb" >/dev/null
	"$H" data split --fraction 0.1 --seed 1 "$W/rcv$RCV.lmdb" "$W/rcv$RCV-tr.lmdb" "$W/rcv$RCV-te.lmdb" >/dev/null
fi

# name | options | compressed scheme
MF="--model mf --data $W/ml-tr.lmdb --test $W/ml-te.lmdb --rank 32 --biases"
MLP="--model mlp --layers 128 --data $W/fm-tr.lmdb --test $W/fm-te.lmdb"
LIN="--data $W/rcv$RCV-tr.lmdb --test $W/rcv$RCV-te.lmdb"
[ "$QUICK" = 1 ] && EPOCHS=2

# ttt METRICS TARGET: elapsed seconds when the test loss first reaches TARGET
ttt() { awk -F'[:,]' -v t="$2" '{ for (i = 1; i < NF; i++) { if ($i == "\"elapsed\"") e = $(i + 1); if ($i == "\"test_loss\"") l = $(i + 1) }
	if (l + 0 <= t + 0 && !done) { print e; done = 1 } } END { if (!done) print "not reached" }' "$1"; }
field() { tail -1 "$1" | sed "s/.*\"$2\":\\([^,}]*\\).*/\\1/"; }

machine_header "$OUT" "--compress on 2 and 3 MPI ranks of one machine (issue 27)"
[ "$QUICK" = 1 ] && echo "**VOID: a quick functional run (CZ_QUICK=1: 2 epochs, small sets, a loaded shared machine); the figures say the script works, not what compression is worth.**" >>"$OUT" && echo >>"$OUT"
{
	echo "Each run: \`mpirun -np P hogwild-mpi train OPTIONS --threads 1 --bind none --epochs $EPOCHS"
	echo "--sync-every $SYNC [--compress C] --metrics\`. Target: the uncompressed run's final test loss"
	echo "x 1.02 at the same P. Bytes: what one rank sends per averaging (the MPI_Allreduce payloads)."
	echo
	echo "| workload | ranks | compress | bytes/sync | ratio | syncs | final test loss | s to target | s averaging |"
	echo "|---|---|---|---|---|---|---|---|---|"
} >>"$OUT"
: >"$W/sizes.txt"
for P in $RANKS; do
	for spec in "mf|$MF|powersgd:4" "mf|$MF|powersgd:1" "mlp|$MLP|powersgd:4" "mlp|$MLP|powersgd:16" "linear|$LIN|topk:0.1" "linear|$LIN|topk:0.01"; do
		name=${spec%%|*}
		rest=${spec#*|}
		opts=${rest%|*}
		c=${rest##*|}
		base=$W/$name-$P-none.jsonl
		if [ ! -s "$base" ] || [ "$(cat "$W/$name-$P.done" 2>/dev/null)" != "$EPOCHS" ]; then
			$MPIRUN -np "$P" "$HM" train $opts --threads 1 --bind none --epochs "$EPOCHS" --sync-every "$SYNC" \
				--quiet --metrics "$base" >/dev/null 2>"$W/err"
			echo "$EPOCHS" >"$W/$name-$P.done"
			t0=$(field "$base" test_loss)
			b0=$(field "$base" sync_bytes)
			echo "| $name | $P | none | $b0 | 1 | $(field "$base" syncs) | $t0 | $(ttt "$base" "$(awk -v t="$t0" 'BEGIN { print t * 1.02 }')") | $(sed -n 's/.*(\([0-9.]*\)s of it averaging).*/\1/p' "$W/err") |" >>"$OUT"
			echo "$name none $b0" >>"$W/sizes.txt"
		fi
		t0=$(field "$base" test_loss)
		b0=$(field "$base" sync_bytes)
		m=$W/$name-$P-$c.jsonl
		$MPIRUN -np "$P" "$HM" train $opts --threads 1 --bind none --epochs "$EPOCHS" --sync-every "$SYNC" \
			--compress "$c" --quiet --metrics "$m" >/dev/null 2>"$W/err"
		b=$(field "$m" sync_bytes)
		echo "| $name | $P | $c | $b | $(awk -v a="$b0" -v b="$b" 'BEGIN { printf "%.3g", b / a }') | $(field "$m" syncs) | $(field "$m" test_loss) | $(ttt "$m" "$(awk -v t="$t0" 'BEGIN { print t * 1.02 }')") | $(sed -n 's/.*(\([0-9.]*\)s of it averaging).*/\1/p' "$W/err") |" >>"$OUT"
		echo "$name $c $b" >>"$W/sizes.txt"
	done
done

# ---- the alpha-beta model of one averaging at N nodes
{
	echo
	echo "## One averaging at 2 to 1,000 nodes: an alpha-beta model"
	echo
	echo "Ring all-reduce of S bytes at N nodes: 2 (N-1)/N S/B + 2 (N-1) a per call; PowerSGD makes two"
	echo "calls (P, then Q: twice the latency term), top-k one, none one (biases and other vectors travel"
	echo "in powersgd's first call). 10 Gb Ethernet: B = 1.25 GB/s, a = 20 µs; 100 Gb InfiniBand:"
	echo "B = 12 GB/s, a = 2 µs. The sizes are the bytes per sync measured above (they do not depend on N)."
	echo "QSGD/signSGD-style quantization was not built: its parts do not sum, so it needs an all-gather,"
	echo "(N-1)/N x N x S' bytes received per node: at 1,000 nodes a 32x-quantized model costs ~30x the"
	echo "whole model's ring all-reduce, where the linear schemes keep the ring's 2 (N-1)/N factor."
	echo
	echo "| workload | compress | bytes/sync | N=2 10GbE ms | N=64 10GbE ms | N=1000 10GbE ms | N=64 IB ms | N=1000 IB ms |"
	echo "|---|---|---|---|---|---|---|---|"
	sort -u "$W/sizes.txt" | awk '{ s = $3; calls = ($2 ~ /^powersgd/) ? 2 : 1
		printf "| %s | %s | %d |", $1, $2, s
		split("2 64 1000", Ns, " ")
		for (i = 1; i <= 3; i++) { N = Ns[i]; printf " %.3g |", 1e3 * (2 * (N - 1) / N * s / 1.25e9 + calls * 2 * (N - 1) * 20e-6) }
		split("64 1000", Ms, " ")
		for (i = 1; i <= 2; i++) { N = Ms[i]; printf " %.3g |", 1e3 * (2 * (N - 1) / N * s / 12e9 + calls * 2 * (N - 1) * 2e-6) }
		printf "\n" }'
	echo
	echo "At 1,000 nodes the ring's latency term (2 (N-1) a: 40 ms a call on 10GbE) dwarfs the bytes of"
	echo "every compressed size here: compression pays where S/B is the larger term (large models, few"
	echo "nodes, or a tree/recursive-doubling all-reduce whose latency grows with log N)."
} >>"$OUT"
echo "wrote $OUT"
