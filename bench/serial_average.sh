#!/bin/sh
# Serial mode with --average: the sums it keeps now (kernel.h, avg_add: one
# multiply-add a change) against the time-stamped mean of the build before it
# (OLD_BIN: a hogwild built from an earlier commit; required), beside the
# no-sharing bound (bench/bound.c at 1 thread, the default order's chunks of
# 256 rows) in every round. Each round runs, per set: the bound; serial with
# --average on in the default order, with the test set (so every epoch
# averages, as a user's run with --test does); and serial with --average off
# and --shuffle-chunk 256 (the same order without the average: what the
# average costs). Old and new alternate which goes first from round to round.
# REPEAT (5) rounds, EPOCHS (4) epochs; s/epoch of epochs 2.. (median), per
# round new / old speed and the share of the bound: median / min. Sets: the
# RCV1-shaped set, the Zipf 0.8 binary set, the 2 M-feature set and a9a.
# Writes bench/results/serial-average.md (or $OUT).
. "$(dirname "$0")/common.sh"
OLD=${OLD_BIN:?"set OLD_BIN to a hogwild built before the change (git worktree add; make hogwild)"}
REPEAT=${REPEAT:-5}
EPOCHS=${EPOCHS:-4}
OUT=${OUT:-$RESULTS/serial-average.md}
rcv1_set
gen_set zipf08
gen_set wide
a9a_set
bound_bin
run() { # BIN TRAIN TEST ARGS...: "s/epoch test_loss" (median of epochs 2.., the last epoch's loss)
	b=$1 tr=$2 te=$3
	shift 3
	rm -f "$WORK/sa.json" # (--metrics appends)
	"$b" train --data "$tr" --test "$te" --epochs "$EPOCHS" --mode serial --diagnostics=off --quiet \
		--metrics "$WORK/sa.json" "$@" >/dev/null 2>&1
	echo "$(metrics_seconds "$WORK/sa.json") $(awk '/"test_loss"/ { sub(/.*"test_loss":/, ""); split($0, b, ","); l = b[1] }
		END { print l }' "$WORK/sa.json")"
}
machine_header "$OUT" "Serial with --average: sums against the time-stamped mean ($REPEAT rounds, $EPOCHS epochs)"
echo "Command: \`OLD_BIN=... REPEAT=$REPEAT EPOCHS=$EPOCHS sh bench/serial_average.sh\`; old build: $("$OLD" --version)" >> "$OUT"
echo >> "$OUT"
: > "$WORK/sa.raw"
r=1
while [ $r -le "$REPEAT" ]; do
	for s in rcv1:$WORK/rcv1 zipf08:$WORK/gen-zipf08 wide:$WORK/gen-wide a9a:$WORK/a9a; do
		n=${s%%:*} f=${s#*:}
		tr=${f}_tr.lmdb te=${f}_te.lmdb
		[ "$n" = a9a ] && tr=$f.lmdb
		echo "$n $r bound $(OMP_PROC_BIND=true OMP_PLACES=cores "$WORK/bound" "$tr" 1 "$EPOCHS" $r chunk:256 2>/dev/null |
			awk '$1 == "epoch" && $2 >= 2 { print $4 }' | median) nan" >> "$WORK/sa.raw"
		if [ $((r % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
		for a in on off; do
			extra=
			[ $a = off ] && extra="--shuffle-chunk 256"
			for v in $order; do
				b=$H
				[ $v = old ] && b=$OLD
				echo "$n $r $a-$v $(run "$b" "$tr" "$te" --average $a --seed $r $extra)" >> "$WORK/sa.raw"
			done
		done
	done
	r=$((r + 1))
done
{
	echo "| set | --average | old s/epoch | new s/epoch | new / old speed (median / min) | old of the bound (median) | new of the bound (median / min) | old test loss | new test loss |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for n in rcv1 zipf08 wide a9a; do
		for a in on off; do
			awk -v n="$n" -v a="$a" '$1 == n { v[$3, $2] = $4; l[$3, $2] = $5; R[$2] = 1 }
				END { for (r in R) print v[a "-old", r], v[a "-new", r], v[a "-old", r] / v[a "-new", r],
				      100 * v["bound", r] / v[a "-old", r], 100 * v["bound", r] / v[a "-new", r],
				      l[a "-old", r], l[a "-new", r] }' "$WORK/sa.raw" > "$WORK/sa.r"
			f=$WORK/sa.r
			printf '| %s | %s | %.4f | %.4f | %.2fx / %.2fx | %.0f%% | %.0f%% / %.0f%% | %.5f | %.5f |\n' "$n" "$a" \
				"$(col "$f" 1)" "$(col "$f" 2)" "$(col "$f" 3)" "$(col_min "$f" 3)" "$(col "$f" 4)" "$(col "$f" 5)" \
				"$(col_min "$f" 5)" "$(col "$f" 6)" "$(col "$f" 7)"
		done
	done
} >> "$OUT"
cat "$OUT"
