#!/bin/sh
# hogwild against scikit-learn's SGDClassifier and liblinear on the same data
# and machine: time to reach the same test accuracy. Needs Debian's
# python3-sklearn and liblinear-tools (installed here if missing).
. "$(dirname "$0")/common.sh"
EPOCHS=${EPOCHS:-10}
command -v liblinear-train >/dev/null 2>&1 && /usr/bin/python3 -c 'import sklearn' 2>/dev/null || {
	echo "peers: installing python3-sklearn liblinear-tools" >&2
	apt-get install -y -qq python3-sklearn liblinear-tools >/dev/null
}
run_set() { # name train.lmdb test.lmdb train.svm test.svm dim
	name=$1
	[ -f "$4" ] || "$H" data export --out "$4" "$2"
	[ -f "$5" ] || "$H" data export --out "$5" "$3"
	: > "$WORK/peers-$name.jsonl"
	for t in 1 2; do
		"$H" train --data "$2" --test "$3" --epochs "$EPOCHS" --threads $t --mode "$([ $t = 1 ] && echo serial || echo buffered)" \
			--quiet --metrics "$WORK/peers-$name-$t.jsonl" >/dev/null
		/usr/bin/python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    print(json.dumps({"tool": "hogwild " + d["mode"], "threads": d["threads"], "epoch": d["epoch"], "seconds": d["elapsed"], "accuracy": d["test_acc"]}))' \
			"$WORK/peers-$name-$t.jsonl" >> "$WORK/peers-$name.jsonl"
		rm -f "$WORK/peers-$name-$t.jsonl"
	done
	/usr/bin/python3 "$ROOT/bench/peers.py" "$4" "$5" "$6" "$EPOCHS" >> "$WORK/peers-$name.jsonl"
	/usr/bin/python3 - "$WORK/peers-$name.jsonl" <<'PY' >> "$OUT"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
tools = []
for r in rows:
    key = (r["tool"], r["threads"])
    if key not in tools:
        tools.append(key)
final = {k: max((r for r in rows if (r["tool"], r["threads"]) == k), key=lambda r: r["epoch"]) for k in tools}
target = max(f["accuracy"] for f in final.values()) - 0.005
print(f"Target: {100*target:.2f}% test accuracy (the best final accuracy of the tools, less 0.5 point).\n")
print("| tool | threads | final accuracy | epochs | time to target (s) | total time (s) |")
print("|---|---|---|---|---|---|")
for k in tools:
    rs = sorted((r for r in rows if (r["tool"], r["threads"]) == k), key=lambda r: r["epoch"])
    hit = next((r for r in rs if r["accuracy"] >= target), None)
    f = final[k]
    print(f"| {k[0]} | {k[1]} | {100*f['accuracy']:.2f}% | {f['epoch'] or '-'} | {hit['seconds']:.3f} | {f['seconds']:.3f} |" if hit else
          f"| {k[0]} | {k[1]} | {100*f['accuracy']:.2f}% | {f['epoch'] or '-'} | never | {f['seconds']:.3f} |")
print()
PY
}
OUT=$RESULTS/peers.md
machine_header "$OUT" "hogwild against scikit-learn and liblinear"
{
	echo "hogwild: \`hogwild train --epochs $EPOCHS\` (serial on 1 thread, buffered on 2; default step size and l2 1e-6),"
	echo "seconds = training time without loading. scikit-learn $(/usr/bin/python3 -c 'import sklearn; print(sklearn.__version__)'):"
	echo "\`SGDClassifier(loss='log_loss', alpha=1/n)\` (liblinear's C=1), one \`partial_fit\` per epoch on a shuffled copy, loading not timed."
	echo "liblinear $(dpkg-query -W -f '${Version}' liblinear-tools 2>/dev/null): \`liblinear-train -s 0 -c 1\`, wall time including reading its text input."
	echo
	echo "## RCV1-shaped (generated, 90/10 split)"
	echo
} >> "$OUT"
rcv1_set
run_set rcv1 "$WORK/rcv1_tr.lmdb" "$WORK/rcv1_te.lmdb" "$WORK/rcv1_tr.svm" "$WORK/rcv1_te.svm" 47236
if [ -f "$DATA/a9a" ]; then
	printf '## a9a (UCI Adult, LIBSVM; ../shared/data)\n\n' >> "$OUT"
	"$H" data import -q --format libsvm --dim 123 "$DATA/a9a" "$WORK/a9a.lmdb"
	"$H" data import -q --format libsvm --dim 123 "$DATA/a9a.t" "$WORK/a9a.t.lmdb"
	run_set a9a "$WORK/a9a.lmdb" "$WORK/a9a.t.lmdb" "$DATA/a9a" "$DATA/a9a.t" 123
fi
cat "$OUT"
