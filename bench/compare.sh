#!/bin/sh
# Reproduces the compare table on a named data set and writes it, with the
# machine and the commit, to bench/results/compare-NAME.md (plus CSV, JSON and
# plots). Usage: sh bench/compare.sh TRAIN.lmdb TEST.lmdb NAME [compare options]
# e.g. sh bench/compare.sh rcv1_tr.lmdb rcv1_te.lmdb rcv1 --epochs 20 --repeat 5
. "$(dirname "$0")/common.sh"
[ $# -ge 3 ] || { echo "usage: sh bench/compare.sh TRAIN.lmdb TEST.lmdb NAME [compare options]" >&2; exit 2; }
tr=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
te=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
name=$3
shift 3
OUT=$RESULTS/compare-$name.md
machine_header "$OUT" "hogwild compare on $name"
echo "Command: \`hogwild compare --data $tr --test $te $* --csv compare-$name.csv --json compare-$name.json --plot compare-$name\`" >> "$OUT"
echo >> "$OUT"
echo '```' >> "$OUT"
(cd "$RESULTS" && "$H" compare --data "$tr" --test "$te" "$@" --quiet --csv "compare-$name.csv" \
	--json "compare-$name.json" --plot "compare-$name") >> "$OUT"
echo '```' >> "$OUT"
cat "$OUT"
