#!/bin/sh
# Deterministic mode's test loss against serial's, for each step rule: the
# merge's rule is what separates them (bench/results/deterministic-merge.md
# for SGD's). SETS (rcv1 zipf08 wide a9a; a9a from $DATA/a9a where it is),
# RULES (sgd adagrad adarevision), EPOCHS (5), THREADS (2). BASE=PATH adds an
# older build's deterministic run of each cell, to show what a change to the
# rule did. One run a cell (the loss of a deterministic run is the same at any
# thread count and from run to run; serial's is too). Writes
# bench/results/det-loss.md (or $OUT).
. "$(dirname "$0")/common.sh"
SETS=${SETS:-rcv1 zipf08 wide a9a}
RULES=${RULES:-sgd adagrad adarevision}
EPOCHS=${EPOCHS:-5}
THREADS=${THREADS:-2}
OUT=${OUT:-$RESULTS/det-loss.md}
BASE=${BASE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "det_loss: BASE=$BASE is not a program" >&2; exit 2; }

loss() { # BIN TR TE ARGS...: the last epoch's test loss
	bin=$1 tr=$2 te=$3
	shift 3
	rm -f "$WORK/dl.json"
	"$bin" train --data "$tr" --test "$te" --epochs "$EPOCHS" --threads "$THREADS" --metrics "$WORK/dl.json" \
		--quiet "$@" >/dev/null 2>&1 || { echo nan; return; }
	awk -F'"test_loss":' 'NF > 1 { split($2, a, ","); l = a[1] } END { print l }' "$WORK/dl.json"
}

machine_header "$OUT" "Deterministic mode's test loss against serial's, by step rule ($THREADS threads, $EPOCHS epochs)"
{
	echo "Command: \`SETS=\"$SETS\" RULES=\"$RULES\" EPOCHS=$EPOCHS THREADS=$THREADS${BASE:+ BASE=...} sh bench/det_loss.sh\`;"
	echo "each cell \`hogwild train --data TR --test TE --epochs $EPOCHS --threads $THREADS --optimizer RULE --mode M\`,"
	echo "the defaults otherwise (16 shards); the last epoch's test loss.${BASE:+ base: $("$BASE" --version).}"
	echo
	echo "| set | rule | serial | deterministic | over serial |${BASE:+ base deterministic | base over serial |}"
	echo "|---|---|---|---|---|${BASE:+---|---|}"
} >>"$OUT"
for set in $SETS; do
	case $set in
	rcv1) rcv1_set; tr=$WORK/rcv1_tr.lmdb te=$WORK/rcv1_te.lmdb ;;
	a9a) [ -f "${A9A:-$DATA/a9a}" ] || { echo "det_loss: no a9a at ${A9A:-$DATA/a9a}: skipped" >&2; continue; }
		a9a_set; tr=$WORK/a9a.lmdb te=$WORK/a9a_te.lmdb ;;
	*) gen_set "$set" || exit 1; tr=$WORK/gen-${set}_tr.lmdb te=$WORK/gen-${set}_te.lmdb ;;
	esac
	for rule in $RULES; do
		s=$(loss "$H" "$tr" "$te" --optimizer "$rule" --mode serial)
		d=$(loss "$H" "$tr" "$te" --optimizer "$rule" --mode deterministic)
		b=
		[ -z "$BASE" ] || b=$(loss "$BASE" "$tr" "$te" --optimizer "$rule" --mode deterministic)
		awk -v set="$set" -v rule="$rule" -v s="$s" -v d="$d" -v b="$b" -v base="${BASE:+1}" 'BEGIN {
			printf "| %s | %s | %.5f | %.5f | %+.2f%% |", set, rule, s, d, (s > 0 ? 100 * (d - s) / s : 0)
			if (base) printf " %.5f | %+.2f%% |", b, (s > 0 ? 100 * (b - s) / s : 0)
			printf "\n" }' >>"$OUT"
	done
done
echo >>"$OUT"
echo "det_loss: wrote $OUT"
