#!/bin/sh
# Every mode at 1 and 2 threads (THREADS="1 2 4 ..." for more) against the
# no-sharing bound, on sets whose hot coordinates differ:
#   rcv1    `hogwild data gen` defaults (Zipf 1.0 feature popularity, unit-norm rows)
#   zipf08  --zipf 0.8 --binary (flatter popularity, binary values)
#   allrow  the rcv1 set with one more feature present in every row (a second bias)
#   tfidf   400,000 TF-IDF documents from bench/gen_tfidf.py, a generator that is
#           not hogwild's own (numpy; skipped when /usr/bin/python3 lacks it)
#   wide    2,000,000 features, 300,000 examples (a model wider than the examples
#           between two flushes touch: what a whole-model flush costs)
#   mid     400,000 features, 300,000 examples (wider than an L2, narrower than
#           wide: where the modes' order changes; not in the default SETS)
# The bound is bench/bound.c, a plain loop of logistic SGD written for the
# benchmark, not hogwild's code: each thread a private model and a contiguous
# share of a shuffled row order, nothing shared or merged, rows prefetched as
# hogwild does. At 1 thread it is the ceiling serial is measured against. With
# AVERAGE=on two more rows at 1 thread, bound-avg and bound-avg+pf: the same
# plain loop doing what serial does by default beyond plain SGD (a bias, the
# default l2, --average's sums; +pf asks for the sums ahead), and a line per
# set: serial's share of the faster of them, round by round. At every thread
# count bound-l2 and bound-l2+pf: the bias and the l2 without the sums, the
# arithmetic of the other modes' updates (they average at their merges), and
# lines with each mode's share of the faster of them (L2BOUND=0: not run).
# A round runs serial, the bound at every thread count and every mode on the same
# set with the same --seed; REPEAT (5) rounds, EPOCHS (5) epochs a run. Every
# figure is seconds per epoch over epochs 2.. (the median of a run's epochs;
# the first pays for page faults), and the ratios are taken per round: the
# speed-up over that round's serial and the share of that round's bound, each
# reported as the median and the minimum over the rounds. Test loss: the median
# over the rounds, against serial's. Where MODES holds deterministic, a line per
# thread count gives its speed over the fastest other mode of each round (serial
# and the bounds aside): issue 25's ratio, round by round.
# Writes bench/results/scaling.md (or $OUT).
# TABLES_ONLY=1 runs nothing: the tables of what each set's raw file holds.
# PAIRED=1 runs the bound again right before each mode (same threads and seed)
# and takes that mode's share of the bound against it, not against the round's
# one bound run: on a VM whose cache line moved from 60 to 250 ns within a
# round, a share taken minutes apart measured the host as much as the mode.
# AVERAGE (off) is the --average the runs use: off measures the bare update
# loop, as the bound does; on is the loss users get by default.
. "$(dirname "$0")/common.sh"
REPEAT=${REPEAT:-5}
EPOCHS=${EPOCHS:-5}
THREADS=${THREADS:-"1 2"}
SETS=${SETS:-"rcv1 zipf08 allrow tfidf wide"}
# MODES: --mode names, and "default" for train with no --mode
MODES=${MODES:-"lockfree buffered replica atomic striped locked"}
EXAMPLES=${EXAMPLES:-781265}
OUT=${OUT:-$RESULTS/scaling.md}
AVERAGE=${AVERAGE:-off}
# BOUND_ORDER: the bound's row order (bench/bound.c: rows, none, chunk:C), to
# match the order hogwild's runs use (its default, or EXTRA's)
BOUND_ORDER=${BOUND_ORDER:-rows}
# EXTRA: options added to every hogwild run (--shuffle-chunk C, say)
EXTRA=${EXTRA:-}
L2BOUND=${L2BOUND:-1}

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
	mid) "$H" data gen -q --seed 4 --examples 300000 --features 400000 "$WORK/sc-$1.lmdb" ;;
	allrow)
		make_set rcv1
		dim=$("$H" data info "$WORK/sc-rcv1.lmdb" | awk '/features/ { print $2; exit }')
		"$H" data export "$WORK/sc-rcv1.lmdb" | awk -v f=$((dim + 1)) '{ print $0 " " f ":0.5" }' > "$WORK/sc-allrow.txt"
		"$H" data import -q --format libsvm --dim $((dim + 1)) "$WORK/sc-allrow.txt" "$WORK/sc-$1.lmdb"
		rm -f "$WORK/sc-allrow.txt" ;;
	esac
	"$H" data split --fraction 0.1 --seed 1 "$WORK/sc-$1.lmdb" "$WORK/sc-$1_tr.lmdb" "$WORK/sc-$1_te.lmdb" >/dev/null
}

# median seconds per epoch over epochs 2.. (all when fewer than 3) of the
# per-epoch lines "EPOCH SECONDS" on stdin
epoch_median() {
	awk -v E="$EPOCHS" 'E < 3 || $1 >= 2 { print $2 }' | median
}

# one run: prints "seconds_per_epoch test_loss wall_per_epoch"; the wall is the
# time from one epoch's figures to the next's (--metrics' wall), the updates
# with the epoch's end (evaluation, checks): what an epoch takes a user. The bound
# evaluates nothing: its wall is its seconds.
run() {
	set=$1
	shift
	if [ "$1" = bound ]; then # bound T WORK --seed R
		OMP_PROC_BIND=true OMP_PLACES=cores "$WORK/bound" "$WORK/sc-${set}_tr.lmdb" "$2" "$EPOCHS" "$5" "$BOUND_ORDER" "$3" 2>/dev/null |
			awk '$1 == "epoch" { print $2, $4 }' | epoch_median | awk '{ print $1, "nan", $1 }'
		return
	fi
	# (--diagnostics=off: --metrics is read here, not asked for by the user, whose
	# run measures no noise scale)
	"$H" train --data "$WORK/sc-${set}_tr.lmdb" --test "$WORK/sc-${set}_te.lmdb" --epochs "$EPOCHS" --quiet --average "$AVERAGE" \
		--metrics "$WORK/sc.json" --diagnostics=off $EXTRA "$@" >/dev/null 2>&1 ||
		{ echo "nan nan nan"; rm -f "$WORK/sc.json"; return; }
	s=$(awk -F'"seconds":' 'NF > 1 { split($2, a, ","); sub(/.*"epoch":/, "", $1); split($1, b, ","); print b[1], a[1] }' \
		"$WORK/sc.json" | epoch_median)
	l=$(awk '/"test_loss"/ { sub(/.*"test_loss":/, ""); split($0, b, ","); l = b[1] } END { print l }' "$WORK/sc.json")
	w=$(awk -F'"wall":' 'NF > 1 { split($2, a, ","); sub(/.*"epoch":/, "", $1); split($1, b, ",");
		if (b[1] > 1) print b[1], a[1] - last; last = a[1] }' "$WORK/sc.json" | epoch_median)
	echo "$s $l ${w:-nan}"
	rm -f "$WORK/sc.json"
}

cells() {
	echo "serial:1:--mode serial"
	# with --average: serial's like-for-like ceiling too, a plain loop doing the
	# same bias, l2 and average (bench/bound.c avg, and avg+pf which prefetches)
	if [ "$AVERAGE" = on ]; then
		echo "bound-avg:1:bound 1 avg"
		echo "bound-avg+pf:1:bound 1 avg+pf"
	fi
	for t in $THREADS; do
		# the other modes' at each thread count: the bias and the l2 (bound.c l2,
		# l2+pf), whose averages are made at their merges
		if [ "$L2BOUND" = 1 ]; then
			echo "bound-l2:$t:bound $t l2"
			echo "bound-l2+pf:$t:bound $t l2+pf"
		fi
		echo "bound:$t:bound $t plain"
		for m in $MODES; do
			# PAIRED=1: the bound again right before each mode, its own ceiling
			[ "${PAIRED:-}" = 1 ] && echo "bound~$m:$t:bound $t plain"
			# default: no --mode, the mode train picks from the set's header
			if [ "$m" = default ]; then echo "default:$t:--threads $t"; else echo "$m:$t:--mode $m --threads $t"; fi
		done
	done
}

# BOUND_BIN: a bound built elsewhere (bench/device-prep.sh, for a machine with no compiler or libraries)
if [ -n "${BOUND_BIN:-}" ]; then
	cp "$BOUND_BIN" "$WORK/bound"
else
	cc -std=c11 -O2 -march=x86-64-v2 -fopenmp -I"$ROOT/include" -o "$WORK/bound" "$ROOT/bench/bound.c" \
		"$ROOT/build/obj/libhogwild.a" $(pkg-config --libs lmdb hwloc openblas zlib 2>/dev/null) -ldl -lm ||
		{ echo "scaling: bench/bound.c did not build (make first)" >&2; exit 2; }
fi

machine_header "$OUT" "Scaling: every mode against the no-sharing bound ($EPOCHS epochs, $REPEAT rounds, per-round ratios)"
{
	echo "Command: \`THREADS=\"$THREADS\" REPEAT=$REPEAT EPOCHS=$EPOCHS AVERAGE=$AVERAGE BOUND_ORDER=$BOUND_ORDER EXTRA=\"$EXTRA\" MODES=\"$MODES\" sh bench/scaling.sh\`; each cell"
	echo "\`hogwild train --data SET_tr.lmdb --test SET_te.lmdb --epochs $EPOCHS --average $AVERAGE --seed R $EXTRA ARGS\` in round R = 1..$REPEAT,"
	echo "beside \`bench/bound.c\` (a plain loop of logistic SGD written for the benchmark: a private model and a"
	echo "shuffled share of the rows per thread, nothing shared) with the same seed. s/epoch: the median over the rounds of"
	echo "each run's median epoch (epochs 2..). The wall column: each run's median time from one epoch's figures to"
	echo "the next's (--metrics' wall: the updates, the evaluation of the test set and the epoch's end), and its share"
	echo "of the bound, which evaluates nothing. Speed-up (over serial) and share of the bound are taken in each round;"
	echo "the table gives their median and, after the slash, their minimum. At 1 thread the bound is the ceiling"
	echo "of serial. Sets (90/10 splits): rcv1 = \`data gen --seed 1\` ($EXAMPLES examples); zipf08 = \`data gen --seed 2"
	echo "--zipf 0.8 --binary\`; allrow = rcv1 with a feature of value 0.5 added to every row; tfidf ="
	echo "\`bench/gen_tfidf.py 400000 47236 4\` (numpy, not hogwild's generator); wide = \`data gen --seed 3 --examples"
	echo "300000 --features 2000000\`; mid = \`data gen --seed 4 --examples 300000 --features 400000\`."
	[ "${PAIRED:-}" = 1 ] && echo "PAIRED=1: each mode's share of the bound is against a bound run right before it (same threads, seed)."
	echo
} >> "$OUT"
for set in $SETS; do
	cells > "$WORK/sc-cells"
	lats=""
	# TABLES_ONLY=1: no runs, the tables of the rounds already in each set's raw
	# file (bench/device.sh, after its time limit stopped a set inside a round)
	if [ -n "${TABLES_ONLY:-}" ]; then
		[ -s "$WORK/sc-$set.raw" ] || continue
		echo "(tables only: the runs of $(awk '{ print $3 }' "$WORK/sc-$set.raw" | sort -u | wc -l) rounds found in sc-$set.raw, the last maybe partial)" >> "$OUT"
		echo >> "$OUT"
	else
		make_set "$set" || continue
		: > "$WORK/sc-$set.raw"
		r=1
		while [ $r -le "$REPEAT" ]; do
			# the line's cost again before each round: a VM's vCPUs move between hosts'
			# cores (seen here: 92 ns at one table's start, 240-258 ns minutes later)
			lats="$lats${lats:+, }$(cacheline | sed -n 's/.*transfer: \([0-9.]*\) ns.*/\1/p')"
			while IFS=: read -r name t args; do
				echo "$name $t $r $(run "$set" $args --seed $r)" >> "$WORK/sc-$set.raw"
			done < "$WORK/sc-cells"
			r=$((r + 1))
		done
	fi
	serl=$(awk '$1 == "serial" { print $5 }' "$WORK/sc-$set.raw" | median)
	{
		echo "### $set"
		echo
		echo "| mode | threads | s/epoch | speed-up (median / min) | of the bound (median / min) | test loss | vs serial | wall s/epoch | wall: of the bound (median / min) |"
		echo "|---|---|---|---|---|---|---|---|---|"
		while IFS=: read -r name t args; do
			case $name in bound~*) continue ;; esac # (PAIRED's bounds: in their mode's ratios)
			s=$(awk -v n="$name" -v t="$t" '$1 == n && $2 == t { print $4 }' "$WORK/sc-$set.raw" | median)
			l=$(awk -v n="$name" -v t="$t" '$1 == n && $2 == t { print $5 }' "$WORK/sc-$set.raw" | median)
			# per round: serial / this, bound(t) / this
			wl=$(awk -v n="$name" -v t="$t" '$1 == n && $2 == t { print $6 }' "$WORK/sc-$set.raw" | median)
			awk -v n="$name" -v t="$t" '$1 == "serial" { ser[$3] = $4 } $1 == "bound" && $2 == t && !($3 in pb) { bnd[$3] = $4 }
				$1 == "bound~" n && $2 == t { bnd[$3] = pb[$3] = $4 }
				$1 == n && $2 == t { me[$3] = $4; mw[$3] = $6 }
				END { for (r in me) if (me[r] > 0) print ser[r] / me[r], (r in bnd) ? bnd[r] / me[r] : "nan",
				      ((r in bnd) && mw[r] > 0) ? bnd[r] / mw[r] : "nan" }' \
				"$WORK/sc-$set.raw" > "$WORK/sc-ratios"
			wb=$(awk '$3 != "nan" { print $3 }' "$WORK/sc-ratios" | median)
			wbmin=$(awk '$3 != "nan" { print $3 }' "$WORK/sc-ratios" | sort -g | head -1)
			su=$(awk '{ print $1 }' "$WORK/sc-ratios" | median)
			sumin=$(awk '{ print $1 }' "$WORK/sc-ratios" | sort -g | head -1)
			ob=$(awk '$2 != "nan" { print $2 }' "$WORK/sc-ratios" | median)
			obmin=$(awk '$2 != "nan" { print $2 }' "$WORK/sc-ratios" | sort -g | head -1)
			echo "$name $t $s $l $serl $su ${sumin:-nan} $ob ${obmin:-nan} ${wl:-nan} ${wb:-nan} ${wbmin:-nan}" | awk '{
				printf "| %s | %s | %.4f | %.2fx / %.2fx | %s | %s | %s | %s | %s |\n", $1, $2, $3, $6, $7,
					$8 == "nan" ? "-" : sprintf("%.0f%% / %.0f%%", 100 * $8, 100 * $9),
					$4 == "nan" ? "-" : sprintf("%.5f", $4),
					$4 == "nan" ? "-" : sprintf("%+.2f%%", 100 * ($4 / $5 - 1)),
					$10 == "nan" ? "-" : sprintf("%.4f", $10),
					$11 == "nan" ? "-" : sprintf("%.0f%% / %.0f%%", 100 * $11, 100 * $12) }'
		done < "$WORK/sc-cells"
		echo
		# serial against the faster of the same-work plain loops, round by round
		awk '$1 == "serial" { s[$3] = $4 } $1 ~ /^bound-avg/ && $2 == 1 && $4 > 0 && (!($3 in b) || $4 < b[$3]) { b[$3] = $4 }
			END { for (r in s) if ((r in b) && s[r] > 0) print b[r] / s[r] }' "$WORK/sc-$set.raw" > "$WORK/sc-ratios"
		if [ -s "$WORK/sc-ratios" ]; then
			echo "Serial against a plain loop doing the same work (bias, l2, --average's sums; the faster of bound-avg"
			echo "and bound-avg+pf in each round): $(median < "$WORK/sc-ratios" | awk '{ printf "%.0f%%", 100 * $1 }') (median),"
			echo "$(sort -g "$WORK/sc-ratios" | head -1 | awk '{ printf "%.0f%%", 100 * $1 }') (minimum over the rounds)."
			echo
		fi
		# every mode against the plain loop with its update's arithmetic at its thread count, round by round
		awk '$1 ~ /^bound-l2/ && $4 > 0 { k = $2 SUBSEP $3; if (!(k in b) || $4 < b[k]) b[k] = $4 }
			$1 != "serial" && $1 !~ /^bound/ && $4 > 0 { me[$1 SUBSEP $2 SUBSEP $3] = $4 }
			END { for (k in me) { split(k, a, SUBSEP); if ((a[2] SUBSEP a[3]) in b) print a[2], a[1], b[a[2], a[3]] / me[k] } }' \
			"$WORK/sc-$set.raw" > "$WORK/sc-ratios"
		if [ -s "$WORK/sc-ratios" ]; then
			echo "Each mode against a plain loop doing its update's arithmetic at its thread count (a private model per"
			echo "thread with a bias and the l2; the faster of bound-l2 and bound-l2+pf in each round; the modes' averages,"
			echo "made at their merges, are their own cost), median / minimum:"
			for t in $(awk '{ print $1 }' "$WORK/sc-ratios" | sort -nu); do
				printf -- "- %s thread(s):" "$t"
				for m in $(awk -v t="$t" '$1 == t { print $2 }' "$WORK/sc-ratios" | sort -u); do
					awk -v t="$t" -v m="$m" '$1 == t && $2 == m { print $3 }' "$WORK/sc-ratios" > "$WORK/sc-dratios"
					printf " %s %s / %s;" "$m" "$(col "$WORK/sc-dratios" 1 | awk '{ printf "%.0f%%", 100 * $1 }')" \
						"$(col_min "$WORK/sc-dratios" 1 | awk '{ printf "%.0f%%", 100 * $1 }')"
				done | sed 's/;$//'
				echo
			done
			echo
		fi
		# deterministic against the fastest other mode (serial and the bounds aside), round by round
		awk '$1 != "deterministic" && $1 != "serial" && $1 !~ /^bound/ && $4 > 0 {
				k = $2 SUBSEP $3; if (!(k in f) || $4 < f[k]) { f[k] = $4; fm[k] = $1 } }
			$1 == "deterministic" && $4 > 0 { d[$2 SUBSEP $3] = $4 }
			END { for (k in d) if (k in f) { split(k, a, SUBSEP); print a[1], a[2], f[k] / d[k], fm[k] } }' \
			"$WORK/sc-$set.raw" | sort -k1,1n -k2,2n > "$WORK/sc-ratios"
		if [ -s "$WORK/sc-ratios" ]; then
			echo "Deterministic against the fastest other mode of the same round (its speed over that mode's):"
			for t in $(awk '{ print $1 }' "$WORK/sc-ratios" | sort -nu); do
				awk -v t="$t" '$1 == t { print $3 }' "$WORK/sc-ratios" > "$WORK/sc-dratios"
				printf -- "- %s thread(s), round by round: " "$t"
				awk -v t="$t" '$1 == t { printf "%s%.2f (%s)", n++ ? ", " : "", $3, $4 }' "$WORK/sc-ratios"
				echo "; median $(col "$WORK/sc-dratios" 1 | awk '{ printf "%.2f", $1 }'), minimum" \
					"$(col_min "$WORK/sc-dratios" 1 | awk '{ printf "%.2f", $1 }')"
			done
			echo
		fi
		if [ -n "${lats:-}" ]; then
			echo "Cache-line transfer before each round of this set: $lats ns."
			echo
		fi
	} >> "$OUT"
done
cat "$OUT"
