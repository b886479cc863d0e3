#!/bin/sh
# Did moving the linear model onto the generic engine cost anything? Builds the
# commit before the engine (BASE, default c1204a9) in a temporary worktree and
# runs it and the current binary interleaved on the same RCV1-shaped set:
# serial, and lockfree and buffered at 2 threads, REPEAT (default 7) times each,
# 5 epochs per run. Reports median seconds per epoch and nonzeros/s per thread,
# and the ratio new/old from the same run: the median of the runs' medians and,
# pairing the i-th old run with the i-th new one, the smallest, median and
# largest of the per-round ratios.
#   BASE=COMMIT  the old code (default c1204a9: before the engine)
#   OLD_ARGS     the old binary's extra options (default none: c1204a9 has no --average)
#   ENGINE_OUT   the result file in bench/results (default engine.md)
. "$(dirname "$0")/common.sh"
BASE=${BASE:-c1204a9}
REPEAT=${REPEAT:-7}
EPOCHS=${EPOCHS:-5}
OUT=$RESULTS/${ENGINE_OUT:-engine.md}
rcv1_set
OLD=$WORK/hogwild-$BASE
if [ ! -x "$OLD" ]; then
	wt=$WORK/wt-$BASE
	rm -rf "$wt"
	(cd "$ROOT" && git worktree add -q --detach "$wt" "$BASE")
	make -C "$wt" -s >/dev/null
	cp "$wt/hogwild" "$OLD"
	(cd "$ROOT" && git worktree remove --force "$wt")
fi
machine_header "$OUT" "${TITLE:-The linear model on the generic engine against the code before it ($BASE)}"
echo "Each cell: \`hogwild train --data rcv1_tr.lmdb --epochs $EPOCHS --mode M --threads T --quiet\` (the new" >> "$OUT"
echo "binary with \`${NEW_ARGS---average off}\`, the old one with \`${OLD_ARGS:-nothing more}\`)," >> "$OUT"
echo "seconds per epoch (the sum of the epochs' update time / $EPOCHS), median of $REPEAT runs, old and new" >> "$OUT"
echo "binaries interleaved run by run." >> "$OUT"
echo >> "$OUT"
echo "| mode | threads | before s/epoch | after s/epoch | after/before | per-round after/before: min, median, max | after Mnnz/s/thread |" >> "$OUT"
echo "|---|---|---|---|---|---|---|" >> "$OUT"
for cell in serial:1 lockfree:2 buffered:2; do
	m=${cell%:*} t=${cell#*:}
	: > "$WORK/old.t"
	: > "$WORK/new.t"
	: > "$WORK/new.n"
	i=0
	while [ $i -lt "$REPEAT" ]; do
		for b in old new; do
			bin=$H extra=${NEW_ARGS---average off} # (the old binary has no averaging)
			[ $b = old ] && bin=$OLD extra=${OLD_ARGS-}
			"$bin" train --data "$WORK/rcv1_tr.lmdb" --epochs "$EPOCHS" --mode "$m" --threads "$t" \
				--metrics "$WORK/$b.json" --quiet $extra >/dev/null 2>&1
			awk -F'"elapsed":' 'NF > 1 { split($2, a, ","); e = a[1] } END { print e / '"$EPOCHS"' }' \
				"$WORK/$b.json" >> "$WORK/$b.t"
			[ $b = new ] && awk -F'"nnz_per_s_per_thread":' 'NF > 1 { split($2, a, ","); s += a[1]; n++ }
				END { print s / n / 1e6 }' "$WORK/$b.json" >> "$WORK/new.n"
			rm -f "$WORK/$b.json"
		done
		i=$((i + 1))
	done
	o=$(median < "$WORK/old.t") n=$(median < "$WORK/new.t") r=$(median < "$WORK/new.n")
	pr=$(paste "$WORK/new.t" "$WORK/old.t" | awk '{ print $1 / $2 }' | sort -g |
		awk '{ v[NR] = $1 } END { printf "%.3f, %.3f, %.3f", v[1], NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[NR] }')
	echo "| $m | $t | $o | $n | $(echo "$n $o" | awk '{ printf "%.3f", $1 / $2 }') | $pr | $(printf %.0f "$r") |" >> "$OUT"
done
cat "$OUT"
