#!/bin/sh
# Deterministic mode's speed over the fastest other mode, round by round: in each
# round, on the same set with the same --seed, deterministic, the default mode
# and replica at THREADS (2), one after another; the ratio is issue 25's
# (deterministic at least 0.9 of the fastest other mode at 2 threads). BASE=PATH
# adds an older build's deterministic run to every round (its binary, built
# elsewhere; run right after this build's in odd rounds, right before in even
# ones), and the speed of this build's over it, so that a change to the mode
# is measured in the same rounds as the ratio. SET: wide (default: 2 M
# features, gen_set), zipf08 or rcv1 (rcv1_set). ARGS: options every run takes
# (e.g. "--optimizer adagrad"). REPEAT (5) rounds of EPOCHS (4) epochs; seconds
# per epoch: a run's median over epochs 2.. Writes bench/results/det-ratio-SET.md
# (or $OUT).
. "$(dirname "$0")/common.sh"
SET=${SET:-wide}
THREADS=${THREADS:-2}
REPEAT=${REPEAT:-5}
EPOCHS=${EPOCHS:-4}
OUT=${OUT:-$RESULTS/det-ratio-$SET.md}
BASE=${BASE:-}
ARGS=${ARGS:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "det_ratio: BASE=$BASE is not a program" >&2; exit 2; }
if [ "$SET" = rcv1 ]; then
	rcv1_set
	TR=$WORK/rcv1_tr.lmdb
else
	gen_set "$SET"
	TR=$WORK/gen-${SET}_tr.lmdb
fi

one() { # BIN ARGS...: prints the run's seconds per epoch
	bin=$1
	shift
	rm -f "$WORK/dr.json"
	# (ARGS split into words on purpose: several options)
	# shellcheck disable=SC2086
	"$bin" train --data "$TR" --epochs "$EPOCHS" --threads "$THREADS" --metrics "$WORK/dr.json" --quiet $ARGS "$@" \
		>/dev/null 2>&1 || { echo nan; return; }
	metrics_seconds "$WORK/dr.json"
}

machine_header "$OUT" "Deterministic against the fastest other mode, round by round ($SET, $THREADS threads)"
{
	printf '%s' "Command: \`SET=$SET THREADS=$THREADS REPEAT=$REPEAT EPOCHS=$EPOCHS${ARGS:+ ARGS=\"$ARGS\"}"
	echo "${BASE:+ BASE=...} sh bench/det_ratio.sh\`;"
	printf '%s' "each run \`hogwild train --data $(basename "$TR") --epochs $EPOCHS --threads $THREADS${ARGS:+ $ARGS}"
	echo " --seed R MODE\`,"
	echo "s/epoch the median of epochs 2..; a round runs them one after another with the same seed R.${BASE:+ base: $("$BASE" --version).}"
	echo
	echo "| round | cache line | deterministic | default | replica |${BASE:+ base deterministic |} deterministic / fastest |${BASE:+ over base |}"
	echo "|---|---|---|---|---|${BASE:+---|}---|${BASE:+---|}"
} >> "$OUT"
: > "$WORK/dr.rows"
r=1
while [ "$r" -le "$REPEAT" ]; do
	lat=$(cacheline | sed -n 's/.*transfer: \([0-9.]*\) ns.*/\1/p')
	b=nan # (the base before this build's deterministic in even rounds, after it in odd ones)
	[ -z "$BASE" ] || [ $((r % 2)) = 1 ] || b=$(one "$BASE" --mode deterministic --seed "$r")
	d=$(one "$H" --mode deterministic --seed "$r")
	[ -z "$BASE" ] || [ $((r % 2)) = 0 ] || b=$(one "$BASE" --mode deterministic --seed "$r")
	f=$(one "$H" --seed "$r")
	p=$(one "$H" --mode replica --seed "$r")
	echo "$r ${lat:-nan} $d $f $p $b" | awk -v base="${BASE:+1}" '{
		fast = $4 < $5 ? $4 : $5 # (a run that failed reads nan: its ratios too)
		ok = ($3 + 0 > 0 && $4 + 0 > 0 && $5 + 0 > 0)
		r1 = ok ? sprintf("%.4f", fast / $3) : "nan"
		r2 = (base && ok && $6 + 0 > 0) ? sprintf("%.4f", $6 / $3) : "nan"
		print $1, $2, $3, $4, $5, $6, r1, r2 }' >> "$WORK/dr.rows"
	r=$((r + 1))
done
awk -v base="${BASE:+1}" 'function f(x) { return x == "nan" ? "-" : sprintf("%.4f", x) } {
	printf "| %s | %s ns | %s | %s | %s |", $1, $2, f($3), f($4), f($5)
	if (base) printf " %s |", f($6)
	printf " %s |", $7 == "nan" ? "-" : sprintf("%.2f", $7)
	if (base) printf " %s |", $8 == "nan" ? "-" : sprintf("%.2fx", $8)
	printf "\n" }' "$WORK/dr.rows" >> "$OUT"
{
	echo
	awk '$7 != "nan" { print $7 }' "$WORK/dr.rows" > "$WORK/dr.col"
	echo "Deterministic / fastest: median $(median < "$WORK/dr.col" | awk '{ printf "%.2f", $1 }'), minimum $(sort -g "$WORK/dr.col" | head -1 | awk '{ printf "%.2f", $1 }') ($(wc -l < "$WORK/dr.col") rounds)."
	awk '$8 != "nan" { print $8 }' "$WORK/dr.rows" > "$WORK/dr.col"
	[ -z "$BASE" ] || echo "This build's deterministic over the base's: median $(median < "$WORK/dr.col" | awk '{ printf "%.2f", $1 }')x, minimum $(sort -g "$WORK/dr.col" | head -1 | awk '{ printf "%.2f", $1 }')x."
} >> "$OUT"
cat "$OUT"
