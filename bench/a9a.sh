#!/bin/sh
# Every mode on a9a (UCI Adult, ../shared/data): test accuracy must reach 84.5%
# (liblinear -s 0 gets 84.95%). Skipped when the data is not there.
. "$(dirname "$0")/common.sh"
[ -f "$DATA/a9a" ] || { echo "a9a: $DATA/a9a not found; skipped" >&2; exit 0; }
EPOCHS=${EPOCHS:-20}
REPEAT=${REPEAT:-5}
OUT=$RESULTS/modes-a9a.md
"$H" data import -q --format libsvm --dim 123 "$DATA/a9a" "$WORK/a9a.lmdb"
"$H" data import -q --format libsvm --dim 123 "$DATA/a9a.t" "$WORK/a9a.t.lmdb"
machine_header "$OUT" "Update modes on a9a ($EPOCHS epochs, medians of $REPEAT)"
echo "Command: \`hogwild compare --data a9a.lmdb --test a9a.t.lmdb --epochs $EPOCHS --repeat $REPEAT\` after \`hogwild data import --format libsvm --dim 123\`; default step size (1/(1+mean |x|^2) = $(awk 'BEGIN{printf "%.4f", 1/15}') here)." >> "$OUT"
echo >> "$OUT"
echo '```' >> "$OUT"
(cd "$RESULTS" && "$H" compare --data "$WORK/a9a.lmdb" --test "$WORK/a9a.t.lmdb" --epochs "$EPOCHS" --repeat "$REPEAT" \
	--quiet --csv modes-a9a.csv --plot modes-a9a) >> "$OUT"
echo '```' >> "$OUT"
echo >> "$OUT"
echo "Reference: liblinear-train -s 0 -c 1 gets 84.95% on a9a.t (../shared/data/README.md)." >> "$OUT"
cat "$OUT"
