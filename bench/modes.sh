#!/bin/sh
# Every update mode at 1 and 2 threads (and more where the machine has them) on
# the RCV1-shaped set: time per epoch, nonzeros/s per thread, speed-up over
# serial, losses. EPOCHS (default 20, like the paper) and REPEAT (default 5)
# can be set in the environment. One `hogwild compare` run, so every ratio in the
# table comes from one run on one machine.
. "$(dirname "$0")/common.sh"
EPOCHS=${EPOCHS:-20}
REPEAT=${REPEAT:-5}
THREADS=${THREADS:-}
OUT=$RESULTS/modes-rcv1.md
rcv1_set
machine_header "$OUT" "Update modes on the RCV1-shaped set ($EPOCHS epochs, medians of $REPEAT)"
cmd="hogwild compare --data rcv1_tr.lmdb --test rcv1_te.lmdb --epochs $EPOCHS --repeat $REPEAT${THREADS:+ --threads $THREADS} --csv modes-rcv1.csv --json modes-rcv1.json --plot modes-rcv1"
echo "Command: \`$cmd\` (data: \`hogwild data gen --seed 1\`, split 90/10 with \`hogwild data split --fraction 0.1\`)" >> "$OUT"
echo >> "$OUT"
echo '```' >> "$OUT"
(cd "$RESULTS" && "$H" compare --data "$WORK/rcv1_tr.lmdb" --test "$WORK/rcv1_te.lmdb" --epochs "$EPOCHS" \
	--repeat "$REPEAT" ${THREADS:+--threads "$THREADS"} --quiet --csv modes-rcv1.csv --json modes-rcv1.json \
	--plot modes-rcv1) >> "$OUT"
echo '```' >> "$OUT"
cat "$OUT"
