#!/bin/sh
# Deterministic mode (issue 25) against replica and lockfree (and buffered, the
# default) at 1 and 2 threads, and mf's against grid and lockfree, serial as the reference: seconds per epoch and
# final training/test loss, on the RCV1-shaped set and on a9a. One `hogwild
# compare` per set, so every ratio comes from one run on one machine. Run it on
# a quiet machine: on a loaded one the speeds are void. SHARDS (default: the
# mode's 16), EPOCHS (10) and REPEAT (3) can be set in the environment; THREADS
# (1,2) too, e.g. 1,2,16 where there are 16 cores. RATIOS_ONLY=1 runs only the
# per-round ratios at the end (the issue's target), into OUT.
. "$(dirname "$0")/common.sh"
EPOCHS=${EPOCHS:-10}
REPEAT=${REPEAT:-3}
THREADS=${THREADS:-1,2}
OUT=${OUT:-$RESULTS/deterministic.md}
rcv1_set
A9A=${A9A:-/work/shared/data/a9a}
machine_header "$OUT" "Deterministic mode against replica, lockfree and buffered ($EPOCHS epochs, medians of $REPEAT)"
run() { # NAME TRAIN TEST
	echo "### $1" >> "$OUT"
	echo '```' >> "$OUT"
	"$H" compare --data "$2" ${3:+--test "$3"} --epochs "$EPOCHS" --repeat "$REPEAT" --threads "$THREADS" \
		--modes deterministic,replica,lockfree,buffered ${SHARDS:+--shards "$SHARDS"} --quiet >> "$OUT" 2>&1
	echo '```' >> "$OUT"
}
[ -n "${RATIOS_ONLY:-}" ] || run "RCV1-shaped (data gen --seed 1, 90/10)" "$WORK/rcv1_tr.lmdb" "$WORK/rcv1_te.lmdb"
if [ -f "$A9A" ]; then
	[ -f "$WORK/a9a.lmdb" ] || "$H" data import --format libsvm --dim 123 "$A9A" "$WORK/a9a.lmdb" >/dev/null
	[ -f "$A9A.t" ] && { [ -f "$WORK/a9a_te.lmdb" ] || "$H" data import --format libsvm --dim 123 "$A9A.t" "$WORK/a9a_te.lmdb" >/dev/null; }
	[ -n "${RATIOS_ONLY:-}" ] || run "a9a (--dim 123)" "$WORK/a9a.lmdb" "$([ -f "$A9A.t" ] && echo "$WORK/a9a_te.lmdb")"
fi
# mf: deterministic (DSGD strata) against grid, the default, and lockfree
run_mf() { # NAME TRAIN TEST
	echo "### $1" >> "$OUT"
	echo '```' >> "$OUT"
	"$H" compare --model mf --data "$2" --test "$3" --epochs "$EPOCHS" --repeat "$REPEAT" --threads "$THREADS" \
		--modes deterministic,grid,lockfree ${SHARDS:+--shards "$SHARDS"} --quiet >> "$OUT" 2>&1
	echo '```' >> "$OUT"
}
ML=${ML:-/work/shared/data/ml-latest-small/ratings.csv}
if [ -f "$ML" ] && [ -z "${RATIOS_ONLY:-}" ]; then
	[ -f "$WORK/ml.lmdb" ] || "$H" data import --format ratings "$ML" "$WORK/ml.lmdb" >/dev/null 2>&1
	[ -f "$WORK/ml_tr.lmdb" ] || "$H" data split --fraction 0.2 --per-user "$WORK/ml.lmdb" "$WORK/ml_tr.lmdb" \
		"$WORK/ml_te.lmdb" >/dev/null
	run_mf "MovieLens latest-small (per-user 80/20)" "$WORK/ml_tr.lmdb" "$WORK/ml_te.lmdb"
fi
[ -n "${RATIOS_ONLY:-}" ] || [ -f "$WORK/mfgen_tr.lmdb" ] || { "$H" data gen -q --kind ratings --examples 4000000 --users 100000 --items 20000 \
	--seed 5 "$WORK/mfgen.lmdb" && "$H" data split --fraction 0.1 "$WORK/mfgen.lmdb" "$WORK/mfgen_tr.lmdb" \
	"$WORK/mfgen_te.lmdb" >/dev/null; }
[ -n "${RATIOS_ONLY:-}" ] ||
	run_mf "generated ratings (data gen --kind ratings, 4 M, 100,000 x 20,000, 90/10)" "$WORK/mfgen_tr.lmdb" "$WORK/mfgen_te.lmdb"
# Per-round ratios (the target): in each of ROUNDS rounds, deterministic and
# the lock-free modes (replica, buffered, lockfree) at RTHREADS threads on the
# same set with the same seed, one after another, the defaults otherwise; each
# run's median s/epoch over epochs 2..REPOCHS; the ratio of the round's fastest
# other mode's figure to deterministic's (its share of that mode's speed).
ROUNDS=${ROUNDS:-5}
REPOCHS=${REPOCHS:-5}
RTHREADS=${RTHREADS:-2}
RSETS=${RSETS:-"rcv1 zipf08 wide a9a"}
epoch_s() { # TRAIN TEST ARGS... -> "median_s_per_epoch test_loss"
	tr=$1 te=$2
	shift 2
	rm -f "$WORK/det.json"
	"$H" train --data "$tr" ${te:+--test "$te"} --epochs "$REPOCHS" --quiet --diagnostics=off --metrics "$WORK/det.json" \
		"$@" >/dev/null 2>&1 || { echo "nan nan"; return; }
	s=$(metrics_seconds "$WORK/det.json")
	l=$(awk '/"test_loss"/ { sub(/.*"test_loss":/, ""); split($0, b, ","); l = b[1] } END { print l }' "$WORK/det.json")
	echo "$s $l"
}
ratio_set() { # NAME TRAIN TEST
	: > "$WORK/det-ratio.raw"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for m in deterministic replica buffered lockfree; do
			echo "$r $m $(epoch_s "$2" "$3" --mode $m --threads "$RTHREADS" --seed $r)" >> "$WORK/det-ratio.raw"
		done
		r=$((r + 1))
	done
	awk -v name="$1" '
		{ s[$1, $2] = $3; l[$1, $2] = $4; if ($1 > R) R = $1 }
		END {
			printf "| %s |", name
			for (r = 1; r <= R; r++) {
				best = "replica"
				if (s[r, "buffered"] < s[r, best]) best = "buffered"
				if (s[r, "lockfree"] < s[r, best]) best = "lockfree"
				q = s[r, best] / s[r, "deterministic"]
				printf " %.3f s / %.3f s %s = **%.2f** |", s[r, "deterministic"], s[r, best], best, q
				v[r] = q
			}
			n = R
			for (a = 2; a <= n; a++) # (insertion sort: mawk has no asort)
				for (b = a; b > 1 && v[b - 1] > v[b]; b--) { t = v[b]; v[b] = v[b - 1]; v[b - 1] = t }
			med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			printf " %.2f | %.2f | %s / %s |\n", v[1], med, l[1, "deterministic"], l[1, "replica"]
		}' "$WORK/det-ratio.raw" >> "$OUT"
}
{
	echo "### Per-round ratios at $RTHREADS threads ($ROUNDS rounds, $REPOCHS epochs, defaults)"
	echo
	echo "Each round R runs \`hogwild train --data TR --test TE --epochs $REPOCHS --mode M --threads $RTHREADS --seed R\` for M ="
	echo "deterministic, replica, buffered, lockfree, one after another; a cell is deterministic's median s/epoch"
	echo "(epochs 2..) against the round's fastest other mode's, and that mode's speed share (fastest / deterministic)."
	echo "Sets: rcv1 as above; zipf08 = \`data gen --seed 2 --zipf 0.8 --binary\` (90/10); wide = \`data gen --seed 3"
	echo "--examples 300000 --features 2000000\` (90/10; deterministic keeps lists there); a9a as above."
	echo
	printf "| set |"; r=1; while [ $r -le "$ROUNDS" ]; do printf " round %d |" $r; r=$((r + 1)); done
	echo " min | median | test loss (round 1): deterministic / replica |"
	printf "|---|"; r=1; while [ $r -le "$ROUNDS" ]; do printf -- "---|"; r=$((r + 1)); done; echo "---|---|---|"
} >> "$OUT"
for set in $RSETS; do
	case $set in
	rcv1) ratio_set rcv1 "$WORK/rcv1_tr.lmdb" "$WORK/rcv1_te.lmdb" ;;
	zipf08 | wide) gen_set $set && ratio_set $set "$WORK/gen-${set}_tr.lmdb" "$WORK/gen-${set}_te.lmdb" ;;
	a9a) [ -f "$WORK/a9a.lmdb" ] && ratio_set a9a "$WORK/a9a.lmdb" "$([ -f "$WORK/a9a_te.lmdb" ] && echo "$WORK/a9a_te.lmdb")" ;;
	esac
done
echo >> "$OUT"
echo "Target (issue 25): deterministic >= 0.9x the fastest other mode's speed at 2 threads; its loss near serial's." >> "$OUT"
cat "$OUT"
