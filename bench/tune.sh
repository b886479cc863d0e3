#!/bin/sh
# hogwild tune against liblinear's -C search (and fastText's autotune when
# installed): wall time to the best held-out accuracy, and the test accuracy of
# the model each one picks, on a9a and on a generated RCV1-shaped set.
#
#   sh bench/tune.sh [OUT.md]       (from the repository root, after make)
#
# Env: A9A=/work/shared/data/a9a (a9a.t beside it), RCV1_N=100000 examples of
# the generated set, FT_SECONDS=60 fastText's autotune duration. Run it on a
# quiet machine: figures taken while other builds or tests run are void.
set -eu
H=${HOG_BIN:-./hogwild}
A9A=${A9A:-/work/shared/data/a9a}
RCV1_N=${RCV1_N:-100000}
FT_SECONDS=${FT_SECONDS:-60}
OUT=${1:-/dev/stdout}
W=$(mktemp -d "${TMPDIR:-/tmp}/hogwild-tune-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# set NAME TRAIN.svm TEST.svm: the three tools on one set
run_set() {
	name=$1 tr=$2 te=$3 dim=$4
	"$H" data import -q --format libsvm --dim "$dim" "$tr" "$W/$name.lmdb" >/dev/null
	"$H" data import -q --format libsvm --dim "$dim" "$te" "$W/$name.t.lmdb" >/dev/null
	# hogwild tune: 5 folds as liblinear's -C, accuracy as the metric
	t0=$(now)
	"$H" tune --quiet --data "$W/$name.lmdb" --folds 5 --metric acc --save "$W/$name.model" >"$W/$name.tune" 2>&1
	t1=$(now)
	val=$(awk '$NF == "*" { print $(NF-3) }' "$W/$name.tune")
	best=$(grep '^best' "$W/$name.tune" | sed 's/^best (held-out acc)://')
	test=$("$H" eval --model "$W/$name.model" --data "$W/$name.t.lmdb" 2>/dev/null | awk '/accuracy/ { print $2 }')
	echo "| $name | hogwild tune --folds 5 --metric acc (save: retrain on all) | $(secs "$t0" "$t1") | $val | $test | $best |"
	# liblinear: -C finds C by 5-fold CV (-s 0 logistic regression), then one training at that C
	t0=$(now)
	liblinear-train -C -s 0 -v 5 "$tr" >"$W/$name.ll" 2>&1
	c=$(awk '/Best C/ { sub(/.*Best C = /, ""); print $1 }' "$W/$name.ll")
	cv=$(awk '/Best C/ { sub(/.*CV accuracy = /, ""); print $1 }' "$W/$name.ll")
	liblinear-train -q -s 0 -c "$c" "$tr" "$W/$name.ll.model" >/dev/null
	t1=$(now)
	llt=$(liblinear-predict "$te" "$W/$name.ll.model" "$W/$name.ll.pred" | awk '{ print $3 }')
	echo "| $name | liblinear-train -C -s 0 -v 5, then -c C | $(secs "$t0" "$t1") | $cv | $llt | C = $c |"
	if command -v fasttext >/dev/null 2>&1; then
		# fastText: the features as words (f<id> repeated by nothing: binary a9a; values dropped), the
		# last fifth of the training set as the autotune validation set
		to_ft() { awk '{ l = ($1 > 0) ? "__label__1" : "__label__0"; s = l; for (i = 2; i <= NF; i++) { split($i, p, ":"); s = s " f" p[1] } print s }' "$1"; }
		to_ft "$tr" >"$W/$name.ft"
		n=$(wc -l <"$W/$name.ft")
		head -n $((n * 4 / 5)) "$W/$name.ft" >"$W/$name.ft.tr"
		tail -n $((n - n * 4 / 5)) "$W/$name.ft" >"$W/$name.ft.va"
		to_ft "$te" >"$W/$name.ft.te"
		t0=$(now)
		fasttext supervised -input "$W/$name.ft.tr" -output "$W/$name.ft" -autotune-validation "$W/$name.ft.va" \
			-autotune-duration "$FT_SECONDS" >"$W/$name.ftlog" 2>&1
		t1=$(now)
		fva=$(fasttext test "$W/$name.ft.bin" "$W/$name.ft.va" | awk '/^P@1/ { printf "%.2f%%", 100 * $2 }')
		fte=$(fasttext test "$W/$name.ft.bin" "$W/$name.ft.te" | awk '/^P@1/ { printf "%.2f%%", 100 * $2 }')
		echo "| $name | fasttext supervised -autotune-validation (${FT_SECONDS}s, words only) | $(secs "$t0" "$t1") | $fva | $fte | |"
	fi
}

{
	echo "# hogwild tune against liblinear -C and fastText autotune"
	echo
	echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
	echo
	echo "| set | search | seconds | best held-out acc | test acc | chosen |"
	echo "|---|---|---|---|---|---|"
	run_set a9a "$A9A" "$A9A.t" 123
	"$H" data gen -q --examples $((RCV1_N * 5 / 4)) --seed 7 "$W/rcv.lmdb" >/dev/null
	"$H" data split --fraction 0.2 --seed 7 "$W/rcv.lmdb" "$W/rcva.lmdb" "$W/rcvb.lmdb" >/dev/null
	"$H" data export "$W/rcva.lmdb" >"$W/rcv.svm"
	"$H" data export "$W/rcvb.lmdb" >"$W/rcv.t.svm"
	run_set rcv1-shaped "$W/rcv.svm" "$W/rcv.t.svm" 47236
} >"$OUT"
