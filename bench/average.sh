#!/bin/sh
# Issue 11: is the last epoch's model one a user can trust? Final-epoch test
# accuracy and log loss at default settings (20 epochs), hogwild with and
# without --average, side by side in one run with scikit-learn's SGDClassifier
# (its defaults, 20 epochs) and liblinear -s 0 (its defaults), on a9a/a9a.t and
# on generated sets of several shapes. Also the best epoch's accuracy, to see
# the swing of the last one. Writes bench/results/average.md.
# Needs Debian's python3-sklearn and liblinear-tools (installed if missing).
# SHAPES="zipf:nnz:binary ..." and N (examples per generated set) override.
. "$(dirname "$0")/common.sh"
EPOCHS=${EPOCHS:-20}
N=${N:-200000}
SHAPES=${SHAPES:-"1.0:71:0 1.4:10:1 0.6:120:0 1.0:30:1"}
command -v liblinear-train >/dev/null 2>&1 && /usr/bin/python3 -c 'import sklearn' 2>/dev/null || {
	echo "average: installing python3-sklearn liblinear-tools" >&2
	apt-get install -y -qq python3-sklearn liblinear-tools >/dev/null
}
OUT=$RESULTS/average.md
machine_header "$OUT" "Final-epoch accuracy and log loss at default settings, with peers"
{
	echo "Each row: one tool at its default settings on the same split; final = the model after the last"
	echo "epoch (what a user gets), best = the best epoch's test accuracy (hogwild and scikit-learn, which"
	echo "report one per epoch). hogwild: \`hogwild train --mode serial --epochs $EPOCHS\` with \`--average on\`"
	echo "(the default) and \`--average off\`. scikit-learn $(/usr/bin/python3 -c 'import sklearn; print(sklearn.__version__)'):"
	echo "\`SGDClassifier(loss='log_loss')\` (alpha 1e-4), one \`partial_fit\` per epoch on a shuffled copy,"
	echo "$EPOCHS epochs. liblinear $(dpkg-query -W -f '${Version}' liblinear-tools 2>/dev/null): \`liblinear-train -s 0\` (C = 1)"
	echo "to convergence, log loss from \`liblinear-predict -b 1\`. Seconds: training only for hogwild and"
	echo "scikit-learn; liblinear's include reading its text input. The machine was shared with other"
	echo "jobs when these were taken: times are noisy, accuracies are not."
	echo
	echo "| set | tool | final acc % | final log loss | best epoch acc % | seconds |"
	echo "|---|---|---|---|---|---|"
} >> "$OUT"

# one_set NAME TRAIN.lmdb TEST.lmdb DIM
one_set() {
	name=$1
	[ -f "$WORK/$name-tr.svm" ] || "$H" data export --out "$WORK/$name-tr.svm" "$2"
	[ -f "$WORK/$name-te.svm" ] || "$H" data export --out "$WORK/$name-te.svm" "$3"
	for av in on off; do
		"$H" train --data "$2" --test "$3" --mode serial --epochs "$EPOCHS" --average $av --quiet \
			--metrics "$WORK/avg-$name-$av.jsonl" >/dev/null
		/usr/bin/python3 - "$WORK/avg-$name-$av.jsonl" "$name" "hogwild --average $av" <<'PY' >> "$OUT"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
last = rows[-1]
best = max(r["test_acc"] for r in rows)
print(f"| {sys.argv[2]} | {sys.argv[3]} | {100*last['test_acc']:.2f} | {last['test_loss']:.4f} | {100*best:.2f} | {last['elapsed']:.2f} |")
PY
	done
	/usr/bin/python3 "$ROOT/bench/average_peers.py" "$WORK/$name-tr.svm" "$WORK/$name-te.svm" "$4" "$EPOCHS" "$name" >> "$OUT"
}

if [ -f "$DATA/a9a" ]; then
	"$H" data import -q --format libsvm --dim 123 "$DATA/a9a" "$WORK/a9a.lmdb"
	"$H" data import -q --format libsvm --dim 123 "$DATA/a9a.t" "$WORK/a9a.t.lmdb"
	one_set a9a "$WORK/a9a.lmdb" "$WORK/a9a.t.lmdb" 123
else
	echo "(a9a not found in $DATA: skipped)" >> "$OUT"
fi
for s in $SHAPES; do
	zipf=${s%%:*} rest=${s#*:}
	nnz=${rest%%:*} bin=${rest#*:}
	flag="" tag=""
	if [ "$bin" = 1 ]; then flag=--binary tag=-binary; fi
	name="gen-zipf$zipf-nnz$nnz$tag"
	if [ ! -f "$WORK/$name-tr.lmdb" ]; then
		"$H" data gen -q --seed 3 -n "$N" -d 47236 --nnz "$nnz" --zipf "$zipf" $flag "$WORK/$name.lmdb" >/dev/null
		"$H" data split --fraction 0.2 --seed 1 "$WORK/$name.lmdb" "$WORK/$name-tr.lmdb" "$WORK/$name-te.lmdb" >/dev/null
	fi
	one_set "$name" "$WORK/$name-tr.lmdb" "$WORK/$name-te.lmdb" 47236
done
cat "$OUT"
