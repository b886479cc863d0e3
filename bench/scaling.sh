#!/bin/sh
# Every mode at 1 and 2 threads (THREADS="1 2 4 ..." for more) against the
# no-sharing bound, on three sets whose hot coordinates differ:
#   rcv1    `hogwild data gen` defaults (Zipf 1.0 feature popularity, unit-norm rows)
#   zipf08  --zipf 0.8 --binary (flatter popularity, binary values)
#   allrow  the rcv1 set with one more feature present in every row (a second bias)
#   tfidf   400,000 TF-IDF documents from bench/gen_tfidf.py, a generator that is
#           not hogwild's own (numpy; skipped when /usr/bin/python3 lacks it)
#   wide    2,000,000 features, 300,000 examples (a model wider than the examples
#           between two flushes touch: what a whole-model flush costs)
# The bound is a private model per thread and nothing else changed: replica mode
# whose flush never comes within a round (--flush-every 16000000: the replicas merge
# only at the end of each 32,768-example round).
# Cells run interleaved, REPEAT (5) times each, EPOCHS (5) epochs per run;
# reported: median seconds per epoch (update time), speed-up over serial from
# the same series, the share of the bound, and the final test loss against
# serial's. Writes bench/results/scaling.md (or $OUT). Repetition r of every
# cell trains with --seed r (the shuffle and the shards): one seed's test loss
# scatters by more than 1% at --average off, so medians over seeds are compared.
# AVERAGE (on, the CLI's default) is the --average the runs use: the loss users
# get; AVERAGE=off measures the bare update loop.
. "$(dirname "$0")/common.sh"
REPEAT=${REPEAT:-5}
EPOCHS=${EPOCHS:-5}
THREADS=${THREADS:-"1 2"}
SETS=${SETS:-"rcv1 zipf08 allrow tfidf wide"}
MODES=${MODES:-"lockfree buffered replica atomic striped locked"}
EXAMPLES=${EXAMPLES:-781265}
OUT=${OUT:-$RESULTS/scaling.md}
AVERAGE=${AVERAGE:-on}

make_set() { # name -> $WORK/sc-NAME_tr.lmdb, _te.lmdb
	tr=$WORK/sc-$1_tr.lmdb
	[ -f "$tr" ] && return 0
	case $1 in
	rcv1) "$H" data gen -q --seed 1 --examples "$EXAMPLES" "$WORK/sc-$1.lmdb" ;;
	zipf08) "$H" data gen -q --seed 2 --examples "$EXAMPLES" --zipf 0.8 --binary "$WORK/sc-$1.lmdb" ;;
	tfidf)
		/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "tfidf: skipped (apt-get install python3-numpy)" >&2; return 1; }
		/usr/bin/python3 "$(dirname "$0")/gen_tfidf.py" 400000 47236 4 > "$WORK/sc-tfidf.txt"
		"$H" data import -q --format libsvm "$WORK/sc-tfidf.txt" "$WORK/sc-$1.lmdb"
		rm -f "$WORK/sc-tfidf.txt" ;;
	wide) "$H" data gen -q --seed 3 --examples 300000 --features 2000000 "$WORK/sc-$1.lmdb" ;;
	allrow)
		make_set rcv1
		dim=$("$H" data info "$WORK/sc-rcv1.lmdb" | awk '/features/ { print $2; exit }')
		"$H" data export "$WORK/sc-rcv1.lmdb" | awk -v f=$((dim + 1)) '{ print $0 " " f ":0.5" }' > "$WORK/sc-allrow.txt"
		"$H" data import -q --format libsvm --dim $((dim + 1)) "$WORK/sc-allrow.txt" "$WORK/sc-$1.lmdb"
		rm -f "$WORK/sc-allrow.txt" ;;
	esac
	"$H" data split --fraction 0.1 --seed 1 "$WORK/sc-$1.lmdb" "$WORK/sc-$1_tr.lmdb" "$WORK/sc-$1_te.lmdb" >/dev/null
}

# one run: prints "seconds_per_epoch test_loss"
run() {
	set=$1
	shift
	"$H" train --data "$WORK/sc-${set}_tr.lmdb" --test "$WORK/sc-${set}_te.lmdb" --epochs "$EPOCHS" --quiet --average "$AVERAGE" \
		--metrics "$WORK/sc.json" "$@" >/dev/null 2>&1 || { echo "nan nan"; rm -f "$WORK/sc.json"; return; }
	awk -F'"elapsed":' 'NF > 1 { split($2, a, ","); e = a[1] }
		/"test_loss"/ { sub(/.*"test_loss":/, ""); split($0, b, ","); l = b[1] }
		END { print e / '"$EPOCHS"', l }' "$WORK/sc.json"
	rm -f "$WORK/sc.json"
}

cells() {
	echo "serial:1:--mode serial"
	for t in $THREADS; do
		[ "$t" -gt 1 ] && echo "bound:$t:--mode replica --flush-every 16000000 --threads $t"
		for m in $MODES; do
			echo "$m:$t:--mode $m --threads $t"
		done
	done
}

machine_header "$OUT" "Scaling: every mode against the no-sharing bound ($EPOCHS epochs, medians of $REPEAT interleaved runs)"
{
	echo "Command: \`THREADS=\"$THREADS\" REPEAT=$REPEAT EPOCHS=$EPOCHS AVERAGE=$AVERAGE MODES=\"$MODES\" sh bench/scaling.sh\`; each cell"
	echo "\`hogwild train --data SET_tr.lmdb --test SET_te.lmdb --epochs $EPOCHS --average $AVERAGE --seed R ARGS\`, R = 1..$REPEAT"
	echo "(every cell's median loss is over the same $REPEAT seeds as serial's). The bound: a private"
	echo "model per thread, merged only at the end of each 32,768-example round. Sets (90/10 splits):"
	echo "rcv1 = \`data gen --seed 1\` ($EXAMPLES examples); zipf08 = \`data gen --seed 2 --zipf 0.8 --binary\`;"
	echo "allrow = rcv1 with a feature of value 0.5 added to every row; tfidf = \`bench/gen_tfidf.py 400000 47236 4\`"
	echo "(numpy, not hogwild's generator); wide = \`data gen --seed 3 --examples 300000 --features 2000000\`."
	echo
} >> "$OUT"
for set in $SETS; do
	make_set "$set" || continue
	cells > "$WORK/sc-cells"
	: > "$WORK/sc-$set.raw"
	r=0
	while [ $r -lt "$REPEAT" ]; do
		while IFS=: read -r name t args; do
			echo "$name $t $(run "$set" $args --seed $((r + 1)))" >> "$WORK/sc-$set.raw"
		done < "$WORK/sc-cells"
		r=$((r + 1))
	done
	ser=$(awk '$1 == "serial" { print $3 }' "$WORK/sc-$set.raw" | median)
	serl=$(awk '$1 == "serial" { print $4 }' "$WORK/sc-$set.raw" | median)
	{
		echo "### $set"
		echo
		echo "| mode | threads | s/epoch | speed-up | of the bound | test loss | vs serial |"
		echo "|---|---|---|---|---|---|---|"
		while IFS=: read -r name t args; do
			s=$(awk -v n="$name" -v t="$t" '$1 == n && $2 == t { print $3 }' "$WORK/sc-$set.raw" | median)
			l=$(awk -v n="$name" -v t="$t" '$1 == n && $2 == t { print $4 }' "$WORK/sc-$set.raw" | median)
			b=$(awk -v t="$t" '$1 == "bound" && $2 == t { print $3 }' "$WORK/sc-$set.raw" | median)
			[ "$t" = 1 ] && b=$ser
			echo "$name $t $s $l $b $ser $serl" | awk '{ printf "| %s | %s | %.4f | %.2fx | %s | %.5f | %+.2f%% |\n",
				$1, $2, $3, $6 / $3, ($5 == "nan" || $5 == "") ? "-" : sprintf("%.0f%%", 100 * $5 / $3), $4,
				100 * ($4 / $7 - 1) }'
		done < "$WORK/sc-cells"
		echo
	} >> "$OUT"
done
cat "$OUT"
