#!/bin/sh
# The squared loss's start (9bca920): test RMSE at train's defaults of SGD,
# AdaGrad and AdaRevision beside least squares (scikit-learn's
# LinearRegression), on scikit-learn's diabetes and six generated regression
# sets of label spreads 0.05 to 5,400 (bench/squared_start.py writes them, 75/25
# splits); BASE=PATH adds an older build's AdaGrad (before the change: bias
# from 0, alpha 0.1). Then AdaGrad at alpha 0.1, 0.3 and 1 times the labels'
# standard deviation, at 5, 20 and 100 epochs, on three of them: the choice of
# the default. Accuracy, not speed: any machine. Writes
# bench/results/squared-start.md (or $OUT).
. "$(dirname "$0")/common.sh"
OUT=${OUT:-$RESULTS/squared-start.md}
BASE=${BASE:-}
PY=${PY:-/usr/bin/python3}
D=$WORK/squared-start
mkdir -p "$D"
"$PY" "$ROOT/bench/squared_start.py" "$D" >"$D/ls.txt" # name, spread, least squares' RMSE
for k in $(cut -d' ' -f1 "$D/ls.txt"); do
	for s in tr te; do
		[ -e "$D/${k}_$s.lmdb" ] || "$H" data import -q --format csv "$D/${k}_$s.csv" "$D/${k}_$s.lmdb" >/dev/null 2>&1
	done
done

rmse() { # BIN SET ARGS...: the last epoch's test RMSE
	b=$1
	k=$2
	shift 2
	"$b" train --data "$D/${k}_tr.lmdb" --test "$D/${k}_te.lmdb" "$@" 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ { r = $8 } END { print r }'
}

machine_header "$OUT" "The squared loss's start: test RMSE at the defaults"
{
	echo "Command: \`${BASE:+BASE=... }sh bench/squared_start.sh\`; each run \`hogwild train --data SET_tr.lmdb"
	echo "--test SET_te.lmdb [--optimizer RULE]\`, the last epoch's test RMSE (epochs: train's default for the"
	echo "set's size). Least squares: scikit-learn's LinearRegression on the same split.${BASE:+ base: $("$BASE" --version).}"
	echo
	echo "| set | label sd | least squares | sgd | adagrad | adarevision |${BASE:+ base adagrad |}"
	echo "|---|---|---|---|---|---|${BASE:+---|}"
	while read -r k sd ls; do
		printf '| %s | %s | %s | %s | %s | %s |' "$k" "$sd" "$ls" "$(rmse "$H" "$k")" \
			"$(rmse "$H" "$k" --optimizer adagrad)" "$(rmse "$H" "$k" --optimizer adarevision)"
		[ -z "$BASE" ] || printf ' %s |' "$(rmse "$BASE" "$k" --optimizer adagrad)"
		echo
	done <"$D/ls.txt"
	echo
	echo "AdaGrad's alpha as a multiple c of the labels' standard deviation (the bias from their mean):"
	echo
	echo "| set | epochs | sgd | c = 0.1 | c = 0.3 | c = 1 (the default) |"
	echo "|---|---|---|---|---|---|"
	for k in diabetes price mkreg; do
		sd=$(awk -v k="$k" '$1 == k { print $2 }' "$D/ls.txt")
		for ep in 5 20 100; do
			printf '| %s | %s | %s |' "$k" "$ep" "$(rmse "$H" "$k" --epochs "$ep")"
			for c in 0.1 0.3 1; do
				printf ' %s |' "$(rmse "$H" "$k" --optimizer adagrad --epochs "$ep" --lr "$(echo "$sd $c" | awk '{ print $1 * $2 }')")"
			done
			echo
		done
	done
} >>"$OUT"
cat "$OUT"
