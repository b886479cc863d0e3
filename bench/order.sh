#!/bin/sh
# Data order against speed and loss: the row shuffle (--shuffle-chunk 1, the
# default), chunks of consecutive rows (--shuffle-chunk C) and the data set's
# order (--no-shuffle), on the RCV1-shaped set and on a TF-IDF set from
# bench/gen_tfidf.py (numpy; skipped without it). Each round runs every cell
# once with --seed R (REPEAT rounds, interleaved); a cell's figures are the
# medians over the rounds of each run's median epoch (epochs 2..) and of its
# final test loss, with --average on (the default) and off.
#   CHUNKS="1 64 256 1024"  MODES="serial buffered:2"  REPEAT=3  EPOCHS=5
. "$(dirname "$0")/common.sh"
REPEAT=${REPEAT:-3}
EPOCHS=${EPOCHS:-5}
CHUNKS=${CHUNKS:-"1 64 256 1024"}
MODES=${MODES:-"serial buffered:2"}
SETS=${SETS:-"rcv1 tfidf"}
OUT=${OUT:-$RESULTS/order.md}

make_set() {
	case $1 in
	rcv1) rcv1_set ;;
	tfidf)
		[ -f "$WORK/tfidf_tr.lmdb" ] && return 0
		/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "tfidf: skipped (apt-get install python3-numpy)" >&2; return 1; }
		/usr/bin/python3 "$ROOT/bench/gen_tfidf.py" 400000 47236 4 > "$WORK/tfidf.txt"
		"$H" data import -q --format libsvm "$WORK/tfidf.txt" "$WORK/tfidf.lmdb"
		rm -f "$WORK/tfidf.txt"
		"$H" data split --fraction 0.1 --seed 1 "$WORK/tfidf.lmdb" "$WORK/tfidf_tr.lmdb" "$WORK/tfidf_te.lmdb" >/dev/null ;;
	esac
}

# one run: "median_seconds_per_epoch(2..) final_test_loss"
run() {
	set=$1
	shift
	"$H" train --data "$WORK/${set}_tr.lmdb" --test "$WORK/${set}_te.lmdb" --epochs "$EPOCHS" --quiet \
		--metrics "$WORK/order.json" "$@" >/dev/null 2>&1 || { echo "nan nan"; return; }
	s=$(awk -F'"seconds":' 'NF > 1 { split($2, a, ","); sub(/.*"epoch":/, "", $1); split($1, b, ",");
		if (b[1] >= 2) print a[1] }' "$WORK/order.json" | median)
	l=$(awk '/"test_loss"/ { sub(/.*"test_loss":/, ""); split($0, b, ","); l = b[1] } END { print l }' "$WORK/order.json")
	rm -f "$WORK/order.json"
	echo "$s $l"
}

machine_header "$OUT" "Data order: the row shuffle, chunks of consecutive rows and the file's order ($REPEAT rounds)"
{
	echo "Command: \`CHUNKS=\"$CHUNKS\" MODES=\"$MODES\" REPEAT=$REPEAT EPOCHS=$EPOCHS sh bench/order.sh\`. Each cell:"
	echo "\`hogwild train --data SET_tr.lmdb --test SET_te.lmdb --epochs $EPOCHS --mode M --threads T --average A"
	echo "--seed R\` with \`--shuffle-chunk C\` (C = 1: the row shuffle, the default) or \`--no-shuffle\`, rounds"
	echo "R = 1..$REPEAT interleaved. s/epoch: median over the rounds of each run's median epoch (2..); loss: median"
	echo "of the final test losses, and its range over the rounds."
	echo
} >> "$OUT"
for set in $SETS; do
	make_set "$set" || continue
	: > "$WORK/order-$set.raw"
	r=1
	while [ $r -le "$REPEAT" ]; do
		for avg in on off; do
			for mt in $MODES; do
				m=${mt%%:*} t=1
				case $mt in *:*) t=${mt#*:} ;; esac
				for c in $CHUNKS none; do
					if [ "$c" = none ]; then ord=--no-shuffle; else ord="--shuffle-chunk $c"; fi
					echo "$avg $m $t $c $r $(run "$set" --mode "$m" --threads "$t" --average "$avg" $ord --seed $r)" \
						>> "$WORK/order-$set.raw"
				done
			done
		done
		r=$((r + 1))
	done
	{
		echo "### $set"
		echo
		echo "| --average | mode | threads | order | s/epoch | vs rows | test loss (median; min-max) | vs rows |"
		echo "|---|---|---|---|---|---|---|---|"
		for avg in on off; do
			for mt in $MODES; do
				m=${mt%%:*} t=1
				case $mt in *:*) t=${mt#*:} ;; esac
				sel() { awk -v a="$avg" -v m="$m" -v t="$t" -v c="$1" -v f="$2" \
					'$1 == a && $2 == m && $3 == t && $4 == c { print $f }' "$WORK/order-$set.raw"; }
				s1=$(sel 1 6 | median)
				l1=$(sel 1 7 | median)
				for c in $CHUNKS none; do
					s=$(sel "$c" 6 | median)
					l=$(sel "$c" 7 | median)
					lo=$(sel "$c" 7 | sort -g | head -1)
					hi=$(sel "$c" 7 | sort -g | tail -1)
					name="chunks of $c"
					[ "$c" = 1 ] && name="rows (default)"
					[ "$c" = none ] && name="--no-shuffle"
					echo "$avg|$m|$t|$name|$s|$s1|$l|$lo|$hi|$l1" | awk -F'|' '{
						printf "| %s | %s | %s | %s | %.4f | %.2fx | %.5f; %.5f-%.5f | %+.2f%% |\n",
							$1, $2, $3, $4, $5, $6 / $5, $7, $8, $9, 100 * ($7 / $10 - 1) }'
				done
			done
		done
		echo
	} >> "$OUT"
done
cat "$OUT"
