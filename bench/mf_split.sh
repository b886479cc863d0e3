#!/bin/sh
# Matrix factorization on a split published as two files: MovieLens
# latest-small's ratings.csv cut at random (seeded) into a training file and a
# test file of "user item rating" lines in MovieLens' own ids, each imported on
# its own (the workflow of u1.base/u1.test, Netflix's probe set), then hogwild
# against LIBMF on the same two files. One command:
#
#   sh bench/mf_split.sh                # writes bench/results/mf-split.md
#
# hogwild: `train --model mf --rank 32 --l2 0.1 [--biases] --epochs 20
# --threads 1 --data TRAIN --test TEST` (one thread: the figure does not move
# with the interleaving); its test RMSE, the count of test ratings whose user or
# item the training file lacks, and `eval` of the saved model on the test set
# (the model's own id maps). LIBMF: ../shared/peers/libmf, built in the scratch
# folder (never copied into this tree), `mf-train -k 32 -l2 0.1 -t 20 -s 1 -p
# TEST TRAIN`: it reads the ids as row numbers, so both files share them by
# construction; it has no biases. When HOG_BEFORE names a hogwild built before
# the ids were matched (default: ../main/hogwild when it is older), its figure
# on the same two sets is shown too.
#
# Environment: SPLIT_SEED (default 1), SPLIT_TEST (test share, default 0.2),
# BENCH_WORK (scratch folder), HOG_DATA (where ml-latest-small is).
. "$(dirname "$0")/common.sh"
SEED=${SPLIT_SEED:-1}
SHARE=${SPLIT_TEST:-0.2}
EPOCHS=20
RANK=32
L2=0.1
OUT=$RESULTS/mf-split.md
SRC=$DATA/ml-latest-small/ratings.csv
[ -f "$SRC" ] || { echo "bench: $SRC not found (HOG_DATA)" >&2; exit 2; }

# --- the two files: a seeded random split of the ratings, header dropped ---
TR=$WORK/mlsplit-tr.txt
TE=$WORK/mlsplit-te.txt
awk -F, -v seed="$SEED" -v share="$SHARE" -v tr="$TR" -v te="$TE" '
	BEGIN { srand(seed) }
	NR > 1 { print $1, $2, $3 > (rand() < share ? te : tr) }' "$SRC"
rm -f "$WORK/mlsplit-tr.lmdb" "$WORK/mlsplit-te.lmdb"
"$H" data import -q --format ratings "$TR" "$WORK/mlsplit-tr.lmdb" >/dev/null
"$H" data import -q --format ratings "$TE" "$WORK/mlsplit-te.lmdb" >/dev/null

# --- LIBMF, built once in the scratch folder (see its ORIGIN.md) ---
LIBMF=$WORK/libmf
if [ ! -x "$LIBMF/mf-train" ]; then
	rm -rf "$LIBMF"
	cp -r "$ROOT/../shared/peers/libmf" "$LIBMF"
	make -s -C "$LIBMF" DFLAG='-DUSEAVX -DUSEOMP' \
		CXXFLAGS='-Wall -O3 -pthread -std=c++0x -march=native -mavx -fopenmp' >/dev/null
fi

# hog BIN ARGS...: the last epoch's test RMSE of a run (column 8 of its table)
hog() {
	b=$1
	shift
	"$b" train --model mf --rank $RANK --l2 $L2 --epochs $EPOCHS --threads 1 --bind none \
		--data "$WORK/mlsplit-tr.lmdb" --test "$WORK/mlsplit-te.lmdb" "$@" >"$WORK/hog.out" 2>"$WORK/hog.err" ||
		{ cat "$WORK/hog.err" >&2; exit 1; }
	awk '$1 ~ /^[0-9]+$/ { r = $8 } END { print r }' "$WORK/hog.out"
}

ntr=$(wc -l <"$TR")
nte=$(wc -l <"$TE")
machine_header "$OUT" "Matrix factorization on a split in two files: hogwild against LIBMF"
cat >>"$OUT" <<EOF
Made by \`sh bench/mf_split.sh\` (SPLIT_SEED=$SEED, SPLIT_TEST=$SHARE). MovieLens latest-small
ratings.csv cut at random into $ntr training and $nte test ratings, written as two text
files in MovieLens' ids and imported **separately** (\`data import --format ratings\` each),
as published splits come. Rank $RANK, l2 $L2, $EPOCHS iterations, one thread, one run each.
hogwild matches the test file's users and items to the training file's by their ids; LIBMF
(../shared/peers/libmf, commit 1498368, AVX build, \`mf-train -k $RANK -l2 $L2 -t $EPOCHS -s 1
-p TEST TRAIN\`) takes the ids as row numbers, the same in both files. LIBMF has no biases.

| run | test RMSE |
|---|---|
EOF
r=$(hog "$H" --biases --save "$WORK/mlsplit.model")
unseen=$(sed -n 's/.*note: \([0-9]*\) of .* ratings of .* have a user or item.*/\1/p' "$WORK/hog.err")
ev=$("$H" eval --model "$WORK/mlsplit.model" --data "$WORK/mlsplit-te.lmdb" 2>/dev/null | awk '$1 == "rmse" { print $2 }')
echo "| hogwild \`--biases\` (sgd, the default step) | $r |" >>"$OUT"
echo "| ... \`eval\` of the saved model on the test file | $ev |" >>"$OUT"
r=$(hog "$H" --biases=off)
echo "| hogwild, no biases (sgd) | $r |" >>"$OUT"
r=$(hog "$H" --optimizer adagrad --biases=off)
echo "| hogwild, no biases, \`--optimizer adagrad\` (LIBMF's rule) | $r |" >>"$OUT"
r=$(hog "$H" --optimizer adagrad --biases)
echo "| hogwild \`--biases --optimizer adagrad\` | $r |" >>"$OUT"
"$LIBMF/mf-train" -k $RANK -l2 $L2 -t $EPOCHS -s 1 -p "$TE" "$TR" "$WORK/libmf.model" >"$WORK/libmf.log"
r=$(awk '$1 ~ /^[0-9]+$/ { r = $3 } END { print r }' "$WORK/libmf.log") # va_rmse
echo "| LIBMF (no biases) | $r |" >>"$OUT"
BEFORE=${HOG_BEFORE:-$ROOT/../main/hogwild}
if [ -x "$BEFORE" ] && ! "$BEFORE" predict -h 2>&1 | grep -q -- --pairs; then
	r=$(hog "$BEFORE" --biases)
	at=$(cd "$(dirname "$BEFORE")" && git rev-parse --short HEAD 2>/dev/null || echo "?")
	echo "| hogwild \`--biases\` built before this change ($BEFORE, tree at $at): ids matched by position | $r |" >>"$OUT"
fi
cat >>"$OUT" <<EOF

$unseen of the $nte test ratings have a user or item the training file lacks; hogwild predicts
them as the training mean plus the known side's bias (LIBMF's rule) and says how many.
EOF
cat "$OUT"
