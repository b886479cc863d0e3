#!/bin/sh
# Matrix factorization: hogwild --model mf against LIBMF (the peer the issue
# names; its source is in ../shared/peers/libmf and is built here in a
# temporary folder, never copied into this tree). One command:
#
#   sh bench/mf.sh                      # writes bench/results/mf.md
#
# 1. Updates per second per core at rank 32 and 100 on a generated set of
#    Netflix's shape (480,189 users x 17,770 items; MF_RATINGS ratings,
#    default 25 M), 20 iterations, l2 0.05, no biases (LIBMF has none), on 1
#    and 2 threads. hogwild's figure is ratings x epochs over its training time
#    (evaluation and loading excluded); LIBMF prints no timing, so its figure is
#    20 iterations over the wall time of a 21-iteration run less a 1-iteration
#    run (both load the same text file).
# 2. Test RMSE against training time on MovieLens latest-small (a 10% hold-out
#    made by `hogwild data split`, exported to text for LIBMF so both see the
#    same ids), rank 32, l2 0.05, 20 iterations.
#
# Environment: MF_RATINGS (default 25000000), MF_THREADS (default "1 2"),
# MF_RANKS (default "32 100"), MF_REPEAT (runs per figure, median; default 3),
# BENCH_WORK (scratch folder), HOG_DATA (where ml-latest-small is).
. "$(dirname "$0")/common.sh"
RATINGS=${MF_RATINGS:-25000000}
THREADS=${MF_THREADS:-1 2}
RANKS=${MF_RANKS:-32 100}
REPEAT=${MF_REPEAT:-3}
EPOCHS=20
L2=0.05
OUT=$RESULTS/mf.md
PY=/usr/bin/python3

# --- LIBMF, built once in the scratch folder (see its ORIGIN.md) ---
LIBMF=$WORK/libmf
if [ ! -x "$LIBMF/mf-train" ]; then
	rm -rf "$LIBMF"
	cp -r "$ROOT/../shared/peers/libmf" "$LIBMF"
	make -s -C "$LIBMF" DFLAG='-DUSEAVX -DUSEOMP' \
		CXXFLAGS='-Wall -O3 -pthread -std=c++0x -march=native -mavx -fopenmp' >/dev/null
fi
# the exporter: a ratings set as "user item rating" lines with its dense ids
EXPORT=$WORK/mf_export
cc -std=c11 -O2 -I"$ROOT/include" -o "$EXPORT" "$ROOT/bench/mf_export.c" "$ROOT/build/obj/libhogwild.a" \
	$(pkg-config --libs lmdb zlib openblas hwloc 2>/dev/null) -fopenmp -lm

now() { date +%s.%N; }

# hog_run OUTJSONL args...: trains quietly, metrics to OUTJSONL; LIBMF's model
# (no biases) unless the args say --biases
hog_run() {
	m=$1
	shift
	rm -f "$m"
	"$H" train --quiet --model mf --biases=off --l2 $L2 --epochs $EPOCHS --bind core --metrics "$m" "$@" >/dev/null \
		2>"$WORK/hog.err" || { cat "$WORK/hog.err" >&2; exit 1; }
}
# elapsed training seconds of the last epoch line
hog_elapsed() { $PY -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1])][-1]["elapsed"])' "$1"; }

# libmf_wall ITERS K THREADS TRAIN [extra]: wall seconds of one mf-train run
libmf_wall() {
	a=$(now)
	"$LIBMF/mf-train" -k "$2" -l2 $L2 -t "$1" -s "$3" ${5:-} "$4" "$WORK/libmf.model" >"$WORK/libmf.log"
	b=$(now)
	echo "$a $b" | awk '{ printf "%.6f\n", $2 - $1 }'
}

machine_header "$OUT" "Matrix factorization: hogwild --model mf against LIBMF"
cat >>"$OUT" <<EOF
Made by \`sh bench/mf.sh\` (MF_RATINGS=$RATINGS, MF_THREADS="$THREADS", MF_RANKS="$RANKS",
MF_REPEAT=$REPEAT): medians of $REPEAT runs. LIBMF: ../shared/peers/libmf (commit 1498368),
AVX build, \`mf-train -k K -l2 $L2 -t ITERS -s THREADS\`. Both: $EPOCHS iterations, l2 $L2,
no biases unless said. **The development machine is shared with other agents: these
numbers are noisy**; rerun on a quiet machine for the final figures.

EOF

# ------------------------------------------------ 1. updates/s, Netflix shape
NF=$WORK/nf-$RATINGS.lmdb
if [ ! -f "$NF" ]; then
	"$H" data gen -q --kind ratings --users 480189 --items 17770 --examples "$RATINGS" --rank 10 --seed 1 "$NF"
fi
[ -f "$NF.txt" ] || "$EXPORT" "$NF" > "$NF.txt"
{
	echo "## 1. Updates per second per core, Netflix-shaped set ($RATINGS ratings, 480,189 x 17,770)"
	echo
	echo "| tool | rule | mode | threads | rank | M updates/s | M updates/s per core |"
	echo "|---|---|---|---|---|---|---|"
} >>"$OUT"
for k in $RANKS; do
	for t in $THREADS; do
		for cfg in "adagrad grid" "adagrad lockfree" "sgd grid" "sgd lockfree" "adagrad serial"; do
			set -- $cfg
			rule=$1 mode=$2
			[ "$mode" = serial ] && [ "$t" != 1 ] && continue
			[ "$mode" = lockfree ] && [ "$t" = 1 ] && continue
			r=0
			while [ $r -lt "$REPEAT" ]; do
				hog_run "$WORK/mf-speed.jsonl" --data "$NF" --rank "$k" --optimizer "$rule" --mode "$mode" --threads "$t"
				hog_elapsed "$WORK/mf-speed.jsonl"
				r=$((r + 1))
			done | median > "$WORK/mf-sec"
			awk -v s="$(cat "$WORK/mf-sec")" -v n="$RATINGS" -v e=$EPOCHS -v t="$t" -v k="$k" -v rule="$rule" -v mode="$mode" \
				'BEGIN { u = n * e / s / 1e6; printf "| hogwild | %s | %s | %d | %d | %.2f | %.2f |\n", rule, mode, t, k, u, u / t }' >>"$OUT"
		done
		r=0
		while [ $r -lt "$REPEAT" ]; do
			one=$(libmf_wall 1 "$k" "$t" "$NF.txt")
			all=$(libmf_wall $((EPOCHS + 1)) "$k" "$t" "$NF.txt")
			echo "$all $one" | awk '{ print $1 - $2 }'
			r=$((r + 1))
		done | median > "$WORK/mf-sec"
		awk -v s="$(cat "$WORK/mf-sec")" -v n="$RATINGS" -v e=$EPOCHS -v t="$t" -v k="$k" \
			'BEGIN { u = n * e / s / 1e6; printf "| LIBMF | its adagrad | FPSGD grid | %d | %d | %.2f | %.2f |\n", t, k, u, u / t }' >>"$OUT"
	done
done

# ---------------------------------------- 2. MovieLens: test RMSE against time
ML=$DATA/ml-latest-small/ratings.csv
if [ -f "$ML" ]; then
	[ -f "$WORK/ml.lmdb" ] || "$H" data import -q --format ratings "$ML" "$WORK/ml.lmdb" >/dev/null
	if [ ! -f "$WORK/ml_te.txt" ]; then
		"$H" data split --fraction 0.1 --seed 1 "$WORK/ml.lmdb" "$WORK/ml_tr.lmdb" "$WORK/ml_te.lmdb" >/dev/null
		"$EXPORT" "$WORK/ml_tr.lmdb" > "$WORK/ml_tr.txt"
		"$EXPORT" "$WORK/ml_te.lmdb" > "$WORK/ml_te.txt"
	fi
	{
		echo
		echo "## 2. MovieLens latest-small: test RMSE against training time (10% hold-out, l2 $L2)"
		echo
		echo "hogwild: test RMSE after epochs 1, 5, 10, 20 and the training time to there (evaluation excluded)."
		echo "LIBMF: the test RMSE it prints after its last iteration, and the wall time of a run of that many"
		echo "iterations less that of a 1-iteration run (loading excluded)."
		echo
		echo "| tool | rank | rule | biases | mode | threads | RMSE @1 | @5 | @10 | @20 | time to @20 (s) |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
	} >>"$OUT"
	for k in $RANKS; do
		for cfg in "sgd - serial 1" "adagrad - serial 1" "sgd - grid 2" "adagrad - grid 2" "sgd - lockfree 2" \
		           "sgd --biases serial 1" "sgd --biases grid 2"; do
			set -- $cfg
			b=$2
			[ "$b" = - ] && b=
			hog_run "$WORK/mf-ml.jsonl" --data "$WORK/ml_tr.lmdb" --test "$WORK/ml_te.lmdb" --rank "$k" \
				--optimizer "$1" --mode "$3" --threads "$4" $b
			$PY - "$WORK/mf-ml.jsonl" "$k" "$1" "${b:+yes}" "$3" "$4" >>"$OUT" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
at = {r["epoch"]: r for r in rows}
cells = " | ".join(f'{at[e]["test_rmse"]:.4f}' for e in (1, 5, 10, 20))
print(f"| hogwild | {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4] or 'no'} | {sys.argv[5]} | {sys.argv[6]} | {cells} | {at[20]['elapsed']:.3f} |")
PY
		done
		for t in $THREADS; do
			cells=
			for it in 1 5 10 20; do
				libmf_wall "$it" "$k" "$t" "$WORK/ml_tr.txt" "-p $WORK/ml_te.txt" >/dev/null
				cells="$cells | $(awk 'NF == 4 && $1 ~ /^[0-9]+$/ { v = $3 } END { printf "%.4f", v }' "$WORK/libmf.log")"
			done
			one=$(libmf_wall 1 "$k" "$t" "$WORK/ml_tr.txt")
			all=$(libmf_wall $((EPOCHS + 1)) "$k" "$t" "$WORK/ml_tr.txt")
			sec=$(echo "$all $one" | awk '{ printf "%.3f", $1 - $2 }')
			echo "| LIBMF | $k | its adagrad | no | FPSGD grid | $t$cells | $sec |" >>"$OUT"
		done
	done
else
	echo "bench/mf.sh: $ML not found: MovieLens part skipped" >&2
fi
echo "bench/mf.sh: results in $OUT" >&2
