#!/bin/sh
# The linear model's default mode (lin_default_mode, src/train/linear_opts.c):
# replica on a narrow model, buffered on a wide one. For each set, serial (1
# thread), buffered and the default (what `train` picks with no --mode) at
# THREADS (2) threads, seeds SEEDS (1 2 3), EPOCHS_LIST (5 20) epochs, the
# defaults otherwise: the test loss against serial's and the median s/epoch
# (epochs 2..). The runs of one seed and epoch count follow one another.
# Sets: a9a (../shared/data, with its test set), the RCV1-shaped set (data gen
# --seed 1, 90/10), a Zipf 0.8 binary set (data gen --seed 2, 90/10), the 2 M-
# feature set (data gen --seed 3 --examples 300000 --features 2000000, 90/10;
# its default is buffered), and, where /usr/bin/python3 has scikit-learn, its
# breast-cancer set (569 rows, 30 features, 80/20) and make_classification
# (60,000 x 2,000, values under 1.5 in magnitude zeroed, 80/20): data no
# hogwild generator made; mid70 (not in the default list): 400,000 rows of 71
# nonzeros over 70,000 features (data gen --seed 5, 90/10), near the edge of
# replica's side (lin_default_mode: 1,024 times the row's nonzeros). ARGS:
# options every run takes (e.g. "--optimizer adagrad"). Writes
# bench/results/default-mode.md (or $OUT).
. "$(dirname "$0")/common.sh"
THREADS=${THREADS:-2}
SEEDS=${SEEDS:-"1 2 3"}
EPOCHS_LIST=${EPOCHS_LIST:-"5 20"}
SETS=${SETS:-"a9a rcv1 zipf08 wide bc mc"}
ARGS=${ARGS:-}
OUT=${OUT:-$RESULTS/default-mode.md}

make_set() { # NAME -> its training and test sets in $tr and $te (1: skipped)
	case $1 in # (the generated sets are the ones the other benchmarks use)
	rcv1) rcv1_set && tr=$WORK/rcv1_tr.lmdb te=$WORK/rcv1_te.lmdb; return ;;
	zipf08 | wide) gen_set "$1" && tr=$WORK/gen-$1_tr.lmdb te=$WORK/gen-$1_te.lmdb; return ;;
	esac
	tr=$WORK/dm-$1_tr.lmdb te=$WORK/dm-$1_te.lmdb
	[ -f "$tr" ] && return 0
	case $1 in
	mid70)
		"$H" data gen -q --seed 5 --features 70000 --examples 400000 "$WORK/dm-$1.lmdb"
		"$H" data split --fraction 0.1 --seed 1 "$WORK/dm-$1.lmdb" "$tr" "$te" >/dev/null ;;
	a9a)
		[ -f "$DATA/a9a" ] && [ -f "$DATA/a9a.t" ] || { echo "a9a: skipped (no $DATA/a9a)" >&2; return 1; }
		"$H" data import -q --format libsvm --dim 123 "$DATA/a9a" "$tr" 2>/dev/null
		"$H" data import -q --format libsvm --dim 123 "$DATA/a9a.t" "$te" 2>/dev/null
		return 0 ;;
	bc | mc)
		/usr/bin/python3 -c 'import sklearn' 2>/dev/null ||
			{ echo "$1: skipped (apt-get install python3-sklearn)" >&2; return 1; }
		/usr/bin/python3 - "$1" "$WORK/dm-$1.txt" <<'EOF'
import sys
import numpy as np
from sklearn import datasets
from sklearn.datasets import dump_svmlight_file
if sys.argv[1] == "bc":
    d = datasets.load_breast_cancer()
    X, y = d.data, d.target
else:
    X, y = datasets.make_classification(n_samples=60000, n_features=2000, n_informative=200, random_state=3)
    X[np.abs(X) < 1.5] = 0
dump_svmlight_file(X, np.where(y > 0, 1, -1), sys.argv[2], zero_based=False)
EOF
		"$H" data import -q --format libsvm "$WORK/dm-$1.txt" "$WORK/dm-$1.lmdb" 2>/dev/null
		rm -f "$WORK/dm-$1.txt"
		"$H" data split --fraction 0.2 --seed 1 "$WORK/dm-$1.lmdb" "$tr" "$te" >/dev/null ;;
	esac
}

run() { # EPOCHS SEED ARGS... on $tr and $te -> "mode test_loss s_per_epoch"
	e=$1 s=$2
	shift 2
	rm -f "$WORK/dm.json"
	# (ARGS split into words on purpose: several options)
	# shellcheck disable=SC2086
	"$H" train --data "$tr" --test "$te" --epochs "$e" --seed "$s" --quiet \
		--diagnostics=off --metrics "$WORK/dm.json" $ARGS "$@" >/dev/null 2>&1 || { echo "failed nan nan"; return; }
	m=$(sed -n 's/.*"mode":"\([a-z]*\)".*/\1/p' "$WORK/dm.json" | tail -1)
	l=$(awk '/"test_loss"/ { sub(/.*"test_loss":/, ""); split($0, b, ","); l = b[1] } END { print l }' "$WORK/dm.json")
	t=$(awk -F'"seconds":' 'NF > 1 { split($2, a, ","); n++; if (n > 1) print a[1] }' "$WORK/dm.json" | median)
	echo "$m $l $t"
}

machine_header "$OUT" "The linear model's default mode against serial and buffered ($THREADS threads)"
{
	printf '%s' "Command: \`THREADS=$THREADS SEEDS=\"$SEEDS\" EPOCHS_LIST=\"$EPOCHS_LIST\" SETS=\"$SETS\""
	echo "${ARGS:+ ARGS=\"$ARGS\"} sh bench/default_mode.sh\`. Each row: one"
	printf '%s' "seed and epoch count, \`hogwild train --data TR --test TE --epochs E --seed S${ARGS:+ $ARGS}\`"
	echo " with \`--mode serial --threads 1\`,"
	echo "\`--mode buffered --threads $THREADS\` and no --mode at \`--threads $THREADS\` (the default: the mode it took is named),"
	echo "one after another; test loss and its difference from serial's; s/epoch the median over epochs 2.."
	echo
	echo "| set | epochs | seed | serial | buffered | default | default's mode | s/epoch serial / buffered / default |"
	echo "|---|---|---|---|---|---|---|---|"
} >> "$OUT"
for set in $SETS; do
	make_set "$set" || continue
	for e in $EPOCHS_LIST; do
		for s in $SEEDS; do
			a=$(run "$e" "$s" --mode serial --threads 1)
			b=$(run "$e" "$s" --mode buffered --threads "$THREADS")
			c=$(run "$e" "$s" --threads "$THREADS")
			echo "$set $e $s $a $b $c" | awk '{
				printf "| %s | %s | %s | %.5f | %.5f (%+.2f%%) | %.5f (%+.2f%%) | %s | %.4f / %.4f / %.4f |\n",
					$1, $2, $3, $5, $8, 100 * ($8 / $5 - 1), $11, 100 * ($11 / $5 - 1), $10, $6, $9, $12 }' >> "$OUT"
		done
	done
done
cat "$OUT"
