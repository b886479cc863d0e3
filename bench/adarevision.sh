#!/bin/sh
# Step rules under delay: test loss after the same epochs for sgd, adagrad and
# adarevision at --delay 0, 16, 256, 1024, 4096 and 1 and 2 threads, on the
# RCV1-shaped set and on a9a. McMahan & Streeter (2014) report AdaRevision far
# ahead of AdaGrad once delays reach ~1000 updates; this measures whether it is.
. "$(dirname "$0")/common.sh"
EPOCHS=${EPOCHS:-5}
DELAYS=${DELAYS:-"0 16 256 1024 4096"}
OUT=$RESULTS/adarevision.md
CSV=$RESULTS/adarevision.csv
rcv1_set
sets="rcv1"
if [ -f "$DATA/a9a" ]; then
	"$H" data import -q --format libsvm --dim 123 "$DATA/a9a" "$WORK/a9a.lmdb"
	"$H" data import -q --format libsvm --dim 123 "$DATA/a9a.t" "$WORK/a9a.t.lmdb"
	sets="rcv1 a9a"
fi
echo "set,optimizer,threads,delay,test_loss,test_accuracy,delay_mean,delay_p99,seconds" > "$CSV"
for set in $sets; do
	case $set in
		rcv1) tr=$WORK/rcv1_tr.lmdb te=$WORK/rcv1_te.lmdb ;;
		a9a) tr=$WORK/a9a.lmdb te=$WORK/a9a.t.lmdb ;;
	esac
	for t in 1 2; do for d in $DELAYS; do for r in sgd adagrad adarevision; do
		mode=$([ $t = 1 ] && echo serial || echo lockfree)
		"$H" train --data "$tr" --test "$te" --optimizer $r --delay $d --threads $t --mode $mode \
			--epochs "$EPOCHS" --measure-delay --quiet --metrics "$WORK/ar.jsonl" >/dev/null
		tail -1 "$WORK/ar.jsonl" | /usr/bin/python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(",".join([sys.argv[1], d["optimizer"], str(d["threads"]), sys.argv[2], "%.6f" % d["test_loss"], "%.5f" % d["test_acc"], str(d["delay_mean"]), str(d["delay_p99"]), "%.3f" % d["elapsed"]]))' "$set" "$d" >> "$CSV"
		rm -f "$WORK/ar.jsonl"
	done; done; done
done
machine_header "$OUT" "Step rules under delay (sgd, adagrad, adarevision)"
{
	echo "Each cell: \`hogwild train --optimizer R --delay K --threads T --epochs $EPOCHS --measure-delay\` (serial mode on 1"
	echo "thread, lockfree on 2; default step sizes: sgd 1/(1+mean |x|^2), adagrad/adarevision alpha 0.1, beta 1)."
	echo "Test loss after the last epoch; 'measured' is the sampled mean number of updates between read and write."
	echo
	/usr/bin/python3 - "$CSV" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for s in dict.fromkeys(r["set"] for r in rows):
    print(f"### {s}\n")
    print("| threads | delay | measured | sgd | adagrad | adarevision | adarevision vs adagrad |")
    print("|---|---|---|---|---|---|---|")
    keys = dict.fromkeys((r["threads"], r["delay"]) for r in rows if r["set"] == s)
    for t, d in keys:
        c = {r["optimizer"]: r for r in rows if r["set"] == s and r["threads"] == t and r["delay"] == d}
        ag, ar = float(c["adagrad"]["test_loss"]), float(c["adarevision"]["test_loss"])
        print(f"| {t} | {d} | {float(c['adarevision']['delay_mean']):.0f} | {float(c['sgd']['test_loss']):.4f} | {ag:.4f} | {ar:.4f} | {100*(ar-ag)/ag:+.2f}% |")
    print()
PY
} >> "$OUT"
if command -v gnuplot >/dev/null 2>&1; then
	for set in $sets; do
		for r in sgd adagrad adarevision; do
			awk -F, -v s=$set -v r=$r '$1==s && $2==r && $3==1 { print ($4 == 0 ? 1 : $4), $5 }' "$CSV" > "$WORK/ar-$set-$r.dat"
		done
		gnuplot <<GP
set terminal pngcairo size 800,500
set output '$RESULTS/adarevision-$set.png'
set title 'Test loss after $EPOCHS epochs vs delay ($set, 1 thread)'
set logscale xy
set xlabel 'delay (updates between read and write; 0 plotted at 1)'
set ylabel 'test loss (log scale)'
set grid
plot '$WORK/ar-$set-sgd.dat' with linespoints title 'sgd', '$WORK/ar-$set-adagrad.dat' with linespoints title 'adagrad', '$WORK/ar-$set-adarevision.dat' with linespoints title 'adarevision'
GP
		echo "![test loss vs delay, $set](adarevision-$set.png)" >> "$OUT"
	done
fi
cat "$OUT"
