#!/bin/sh
# The model's layout for lockfree and atomic (lin_layout_step in
# src/train/linear_setup.c: the hot features 17 floats apart, on lines of their
# own, where dim >= 4096) against the packed layout of the build before it
# (OLD_BIN: a hogwild built from an earlier commit; required), at THREADS (2)
# threads, with serial and the no-sharing bound (bench/bound.c) in every round.
# REPEAT (3) interleaved rounds, EPOCHS (3) epochs, --average off; s/epoch of
# epochs 2.. (median), and per round the new layout's speed-up over the old
# one's and over serial: median / min. Sets: the RCV1-shaped set, the Zipf 0.8
# binary set, the 2 M-feature set and a9a (dim 123: packed in both builds).
# Writes bench/results/layout.md (or $OUT).
. "$(dirname "$0")/common.sh"
OLD=${OLD_BIN:?"set OLD_BIN to a hogwild built before the layout (git worktree add; make hogwild)"}
THREADS=${THREADS:-2}
REPEAT=${REPEAT:-3}
EPOCHS=${EPOCHS:-3}
OUT=${OUT:-$RESULTS/layout.md}
rcv1_set
gen_set zipf08
gen_set wide
a9a_set
bound_bin
sec() { # BIN ARGS...: median s/epoch of epochs 2..
	b=$1
	shift
	rm -f "$WORK/lay.json" # (--metrics appends)
	"$b" train --epochs "$EPOCHS" --average off --diagnostics=off --quiet --metrics "$WORK/lay.json" "$@" >/dev/null 2>&1
	metrics_seconds "$WORK/lay.json"
}
machine_header "$OUT" "Lockfree and atomic: the spread layout against the packed one ($THREADS threads, $REPEAT rounds)"
echo "Command: \`OLD_BIN=... THREADS=$THREADS REPEAT=$REPEAT EPOCHS=$EPOCHS sh bench/layout.sh\`; old build: $("$OLD" --version)" >> "$OUT"
echo >> "$OUT"
: > "$WORK/lay.raw"
r=1
while [ $r -le "$REPEAT" ]; do
	for s in rcv1:$WORK/rcv1_tr.lmdb zipf08:$WORK/gen-zipf08_tr.lmdb wide:$WORK/gen-wide_tr.lmdb a9a:$WORK/a9a.lmdb; do
		n=${s%%:*} f=${s#*:}
		echo "$n $r serial $(sec "$H" --data "$f" --mode serial --seed $r)" >> "$WORK/lay.raw"
		echo "$n $r bound $(OMP_PROC_BIND=true OMP_PLACES=cores "$WORK/bound" "$f" "$THREADS" "$EPOCHS" $r rows 2>/dev/null |
			awk '$1 == "epoch" && $2 >= 2 { print $4 }' | median)" >> "$WORK/lay.raw"
		for m in lockfree atomic; do
			echo "$n $r $m-old $(sec "$OLD" --data "$f" --mode $m --threads "$THREADS" --seed $r)" >> "$WORK/lay.raw"
			echo "$n $r $m-new $(sec "$H" --data "$f" --mode $m --threads "$THREADS" --seed $r)" >> "$WORK/lay.raw"
		done
	done
	r=$((r + 1))
done
{
	echo "| set | mode | old s/epoch | new s/epoch | new / old speed (median / min) | new over serial (median / min) | new of the bound (median / min) |"
	echo "|---|---|---|---|---|---|---|"
	for n in rcv1 zipf08 wide a9a; do
		for m in lockfree atomic; do
			awk -v n="$n" -v m="$m" '$1 == n { v[$3, $2] = $4; R[$2] = 1 }
				END { for (r in R) print v[m "-old", r], v[m "-new", r], v[m "-old", r] / v[m "-new", r],
				      v["serial", r] / v[m "-new", r], 100 * v["bound", r] / v[m "-new", r] }' "$WORK/lay.raw" > "$WORK/lay.r"
			o=$(cut -d' ' -f1 "$WORK/lay.r" | median) w=$(cut -d' ' -f2 "$WORK/lay.r" | median)
			a=$(cut -d' ' -f3 "$WORK/lay.r" | median) amin=$(cut -d' ' -f3 "$WORK/lay.r" | sort -g | head -1)
			b=$(cut -d' ' -f4 "$WORK/lay.r" | median) bmin=$(cut -d' ' -f4 "$WORK/lay.r" | sort -g | head -1)
			c=$(cut -d' ' -f5 "$WORK/lay.r" | median) cmin=$(cut -d' ' -f5 "$WORK/lay.r" | sort -g | head -1)
			printf '| %s | %s | %.4f | %.4f | %.2fx / %.2fx | %.2fx / %.2fx | %.0f%% / %.0f%% |\n' "$n" "$m" "$o" "$w" \
				"$a" "$amin" "$b" "$bmin" "$c" "$cmin"
		done
	done
} >> "$OUT"
cat "$OUT"
