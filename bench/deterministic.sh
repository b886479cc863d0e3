#!/bin/sh
# Deterministic mode (issue 25) against replica and lockfree (and buffered, the
# default) at 1 and 2 threads, and mf's against grid and lockfree, serial as the reference: seconds per epoch and
# final training/test loss, on the RCV1-shaped set and on a9a. One `hogwild
# compare` per set, so every ratio comes from one run on one machine. Run it on
# a quiet machine: on a loaded one the speeds are void. SHARDS (default: the
# mode's 16), EPOCHS (10) and REPEAT (3) can be set in the environment; THREADS
# (1,2) too, e.g. 1,2,16 where there are 16 cores.
. "$(dirname "$0")/common.sh"
EPOCHS=${EPOCHS:-10}
REPEAT=${REPEAT:-3}
THREADS=${THREADS:-1,2}
OUT=$RESULTS/deterministic.md
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
run "RCV1-shaped (data gen --seed 1, 90/10)" "$WORK/rcv1_tr.lmdb" "$WORK/rcv1_te.lmdb"
if [ -f "$A9A" ]; then
	[ -f "$WORK/a9a.lmdb" ] || "$H" data import --format libsvm --dim 123 "$A9A" "$WORK/a9a.lmdb" >/dev/null
	[ -f "$A9A.t" ] && { [ -f "$WORK/a9a_te.lmdb" ] || "$H" data import --format libsvm --dim 123 "$A9A.t" "$WORK/a9a_te.lmdb" >/dev/null; }
	run "a9a (--dim 123)" "$WORK/a9a.lmdb" "$([ -f "$A9A.t" ] && echo "$WORK/a9a_te.lmdb")"
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
if [ -f "$ML" ]; then
	[ -f "$WORK/ml.lmdb" ] || "$H" data import --format ratings "$ML" "$WORK/ml.lmdb" >/dev/null 2>&1
	[ -f "$WORK/ml_tr.lmdb" ] || "$H" data split --fraction 0.2 --per-user "$WORK/ml.lmdb" "$WORK/ml_tr.lmdb" \
		"$WORK/ml_te.lmdb" >/dev/null
	run_mf "MovieLens latest-small (per-user 80/20)" "$WORK/ml_tr.lmdb" "$WORK/ml_te.lmdb"
fi
[ -f "$WORK/mfgen_tr.lmdb" ] || { "$H" data gen -q --kind ratings --examples 4000000 --users 100000 --items 20000 \
	--seed 5 "$WORK/mfgen.lmdb" && "$H" data split --fraction 0.1 "$WORK/mfgen.lmdb" "$WORK/mfgen_tr.lmdb" \
	"$WORK/mfgen_te.lmdb" >/dev/null; }
run_mf "generated ratings (data gen --kind ratings, 4 M, 100,000 x 20,000, 90/10)" "$WORK/mfgen_tr.lmdb" "$WORK/mfgen_te.lmdb"
echo "Target (issue 25): deterministic >= 0.9x the fastest other mode's speed at 2 threads; its loss near serial's." >> "$OUT"
cat "$OUT"
