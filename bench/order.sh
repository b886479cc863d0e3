#!/bin/sh
# Data order against speed and loss: the row shuffle (--shuffle-chunk 1),
# chunks of consecutive rows of each worker's shard (--shuffle-chunk C; the
# shard dealt by a seeded shuffle of the rows) and the data set's order
# (--no-shuffle). Sets: rcv1 (the RCV1-shaped set), zipf (data gen --seed 2
# --zipf 0.8 --binary), a9a (../shared/data; skipped without it), sorted (rcv1's
# training split exported, sorted by label, imported again: an adversarial
# order) and tfidf (bench/gen_tfidf.py, numpy; not in the default SETS). Each
# round runs every cell once with --seed R (REPEAT rounds, interleaved); a
# cell's figures are the medians over the rounds of each run's median epoch
# (epochs 2..) and of its final test loss, with --average on (the default) and
# off; every run's own figures follow each table.
#   CHUNKS="1 64 256 1024 4096"  MODES="serial replica:2"  REPEAT=3  EPOCHS=5
#   SETS="rcv1 zipf a9a sorted"  AVGS="on off" (one of them: a file of its own
#   rows, order-SET-AVG.raw; the tables read every such file in $WORK)
. "$(dirname "$0")/common.sh"
REPEAT=${REPEAT:-3}
EPOCHS=${EPOCHS:-5}
CHUNKS=${CHUNKS:-"1 64 256 1024 4096"}
MODES=${MODES:-"serial replica:2"}
SETS=${SETS:-"rcv1 zipf a9a sorted"}
AVGS=${AVGS:-"on off"}
OUT=${OUT:-$RESULTS/order.md}

make_set() {
	case $1 in
	rcv1) rcv1_set ;;
	zipf)
		[ -f "$WORK/zipf_tr.lmdb" ] && return 0
		"$H" data gen -q --seed 2 --zipf 0.8 --binary "$WORK/zipf.lmdb"
		"$H" data split --fraction 0.1 --seed 1 "$WORK/zipf.lmdb" "$WORK/zipf_tr.lmdb" "$WORK/zipf_te.lmdb" >/dev/null ;;
	a9a)
		[ -f "$WORK/a9a_tr.lmdb" ] && return 0
		[ -f "$DATA/a9a" ] && [ -f "$DATA/a9a.t" ] || { echo "a9a: skipped (no $DATA/a9a)" >&2; return 1; }
		"$H" data import -q --format libsvm --dim 123 "$DATA/a9a" "$WORK/a9a_tr.lmdb" 2>/dev/null
		"$H" data import -q --format libsvm --dim 123 "$DATA/a9a.t" "$WORK/a9a_te.lmdb" 2>/dev/null ;;
	sorted) # rcv1's training split in label order (stable: the split's order within a label)
		[ -f "$WORK/sorted_tr.lmdb" ] && return 0
		rcv1_set
		"$H" data export "$WORK/rcv1_tr.lmdb" | sort -s -k1,1 > "$WORK/sorted.txt"
		"$H" data import -q --format libsvm --dim "$("$H" data info --sample 0 "$WORK/rcv1_tr.lmdb" | awk '$1 == "features" { print $2 }')" \
			"$WORK/sorted.txt" "$WORK/sorted_tr.lmdb"
		rm -f "$WORK/sorted.txt"
		cp "$WORK/rcv1_te.lmdb" "$WORK/sorted_te.lmdb" ;;
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
	s=$(metrics_seconds "$WORK/order.json")
	l=$(awk '/"test_loss"/ { sub(/.*"test_loss":/, ""); split($0, b, ","); l = b[1] } END { print l }' "$WORK/order.json")
	rm -f "$WORK/order.json"
	echo "$s $l"
}

machine_header "$OUT" "Data order: the row shuffle, chunks of consecutive shard rows and the file's order ($REPEAT rounds)"
{
	echo "Command: \`SETS=\"$SETS\" AVGS=\"$AVGS\" CHUNKS=\"$CHUNKS\" MODES=\"$MODES\" REPEAT=$REPEAT EPOCHS=$EPOCHS sh bench/order.sh\`"
	echo "(tables also read the rows of earlier runs with the other --average in $WORK). Each cell:"
	echo "\`hogwild train --data SET_tr.lmdb --test SET_te.lmdb --epochs $EPOCHS --mode M --threads T --average A"
	echo "--seed R\` with \`--shuffle-chunk C\` (C = 1: the row shuffle) or \`--no-shuffle\`, rounds"
	echo "R = 1..$REPEAT interleaved. s/epoch: median over the rounds of each run's median epoch (2..); loss: median"
	echo "of the final test losses, and its range over the rounds. The machine is shared (another developer builds"
	echo "and tests on it): the seconds are rough, the losses are what decide."
	echo
} >> "$OUT"
for set in $SETS; do
	make_set "$set" || continue
	for avg in $AVGS; do : > "$WORK/order-$set-$avg.raw"; done
	r=1
	while [ $r -le "$REPEAT" ]; do
		for avg in $AVGS; do
			for mt in $MODES; do
				m=${mt%%:*} t=1
				case $mt in *:*) t=${mt#*:} ;; esac
				for c in $CHUNKS none; do
					if [ "$c" = none ]; then ord=--no-shuffle; else ord="--shuffle-chunk $c"; fi
					echo "$avg $m $t $c $r $(run "$set" --mode "$m" --threads "$t" --average "$avg" $ord --seed $r)" \
						>> "$WORK/order-$set-$avg.raw"
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
			[ -s "$WORK/order-$set-$avg.raw" ] || continue
			for mt in $MODES; do
				m=${mt%%:*} t=1
				case $mt in *:*) t=${mt#*:} ;; esac
				sel() { awk -v a="$avg" -v m="$m" -v t="$t" -v c="$1" -v f="$2" \
					'$1 == a && $2 == m && $3 == t && $4 == c { print $f }' "$WORK/order-$set-$avg.raw"; }
				s1=$(sel 1 6 | median)
				l1=$(sel 1 7 | median)
				for c in $CHUNKS none; do
					s=$(sel "$c" 6 | median)
					l=$(sel "$c" 7 | median)
					lo=$(sel "$c" 7 | sort -g | head -1)
					hi=$(sel "$c" 7 | sort -g | tail -1)
					name="chunks of $c"
					[ "$c" = 1 ] && name="rows"
					[ "$c" = none ] && name="--no-shuffle"
					echo "$avg|$m|$t|$name|$s|$s1|$l|$lo|$hi|$l1" | awk -F'|' '{
						printf "| %s | %s | %s | %s | %.4f | %.2fx | %.5f; %.5f-%.5f | %+.2f%% |\n",
							$1, $2, $3, $4, $5, $6 / $5, $7, $8, $9, 100 * ($7 / $10 - 1) }'
				done
			done
		done
		echo
		echo "<details><summary>$set: every run (average, mode, threads, chunk, seed, s/epoch, test loss)</summary>"
		echo
		echo '```'
		cat "$WORK/order-$set-on.raw" "$WORK/order-$set-off.raw" 2>/dev/null || :
		echo '```'
		echo "</details>"
		echo
	} >> "$OUT"
done
cat "$OUT"
