#!/bin/sh
# --l1 on a9a against liblinear's L1-regularized logistic regression
# (liblinear-train -s 6, apt-get install liblinear-tools): model size (nonzero
# weights, the bias excluded) and test accuracy at each C, and hogwild at the
# same objective, l1 = 1/(C n) (liblinear minimizes |w|_1 + C sum of losses;
# hogwild mean loss + l1 |w|_1), --l2 0. Skipped when the data or liblinear is
# not there. Defaults otherwise (20 epochs, the default step and schedule).
. "$(dirname "$0")/common.sh"
[ -f "$DATA/a9a" ] || { echo "l1: $DATA/a9a not found; skipped" >&2; exit 0; }
command -v liblinear-train >/dev/null || { echo "l1: liblinear-train not found; skipped" >&2; exit 0; }
OUT=$RESULTS/l1.md
CS=${CS:-"0.002 0.005 0.01 0.05 0.2 1"}
"$H" data import -q --format libsvm --dim 123 "$DATA/a9a" "$WORK/a9a.lmdb"
"$H" data import -q --format libsvm --dim 123 "$DATA/a9a.t" "$WORK/a9a.t.lmdb"
n=$(wc -l < "$DATA/a9a")
machine_header "$OUT" "L1 logistic regression on a9a: hogwild --l1 against liblinear -s 6"
cat >> "$OUT" <<EOF
Commands (n = $n training examples, 123 features; C from $CS):

    liblinear-train -s 6 -c C -B 1 -q a9a a9a.C.model
    liblinear-predict a9a.t a9a.C.model /dev/null
    hogwild train --data a9a.lmdb --test a9a.t.lmdb --l2 0 --l1 \$(1/(C n)) --mode M --threads T --quiet

liblinear's nonzeros are the model file's nonzero feature weights (its bias,
-B 1, excluded, though liblinear 2.3 regularizes it); hogwild's are the
summary line's ("N of 123 weights nonzero", the bias excluded and not
regularized). hogwild: default step, backoff schedule, 20 epochs, --average
on (the model keeps the last iterate's zeros); serial, and the default mode
(buffered) with 2 threads.

The objective columns (training set, mean logistic loss + l1 |w|_1, the
bias outside the norm; bench/l1_objective.py) say whether the two reach the
same minimum: the smaller solved the problem better.

| C | l1 = 1/(C n) | liblinear nonzeros | liblinear acc % | liblinear objective | serial nonzeros | serial acc % | serial objective | buffered x2 nonzeros | buffered x2 acc % |
|---|---|---|---|---|---|---|---|---|---|
EOF
run_hog() { # mode threads l1 -> "nonzeros acc"; the model in $WORK/l1.model
	"$H" train --data "$WORK/a9a.lmdb" --test "$WORK/a9a.t.lmdb" --l2 0 --l1 "$3" --mode "$1" --threads "$2" \
		--quiet --metrics "$WORK/l1.jsonl" --save "$WORK/l1.model" 2>"$WORK/l1.err" >/dev/null
	nz=$(sed -n 's/.*, \([0-9]*\) of 123 weights nonzero.*/\1/p' "$WORK/l1.err")
	acc=$(tail -1 "$WORK/l1.jsonl" | sed 's/.*"test_acc":\([0-9.]*\).*/\1/')
	echo "$nz $(awk -v a="$acc" 'BEGIN { printf "%.2f", 100 * a }')"
	rm -f "$WORK/l1.jsonl"
}
for C in $CS; do
	liblinear-train -s 6 -c "$C" -B 1 -q "$DATA/a9a" "$WORK/a9a.$C.model" >/dev/null
	lacc=$(liblinear-predict "$DATA/a9a.t" "$WORK/a9a.$C.model" /dev/null | sed -n 's/Accuracy = \([0-9.]*\)%.*/\1/p')
	lnz=$(awk 'w && NR <= start + 123 && $1 + 0 != 0 { k++ } /^w$/ { w = 1; start = NR } END { print k + 0 }' \
		"$WORK/a9a.$C.model")
	l1=$(awk -v c="$C" -v n="$n" 'BEGIN { printf "%.3g", 1 / (c * n) }')
	s=$(run_hog serial 1 "$l1")
	"$H" model dump "$WORK/l1.model" | awk 'f { print $1, $2 } /^records/ { f = 1 }' > "$WORK/l1.w"
	obj=$(python3 "$ROOT/bench/l1_objective.py" "$WORK/l1.w" "$WORK/a9a.$C.model" "$C" "$DATA/a9a" |
		awk '{ gsub(/[(),]/, ""); printf "%s ", $4 }')
	b=$(run_hog buffered 2 "$l1")
	set -- $obj
	echo "| $C | $l1 | $lnz | $lacc | $(printf %.4f "$2") | ${s% *} | ${s#* } | $(printf %.4f "$1") | ${b% *} | ${b#* } |" >> "$OUT"
done
cat >> "$OUT" <<EOF

At matched sparsity: hogwild serial with larger l1, to reach liblinear's
smallest models.

| l1 | serial nonzeros | serial acc % |
|---|---|---|
EOF
for l1 in ${L1S:-0.02 0.03 0.05 0.08}; do
	s=$(run_hog serial 1 "$l1")
	echo "| $l1 | ${s% *} | ${s#* } |" >> "$OUT"
done
echo >> "$OUT"
cat "$OUT"
