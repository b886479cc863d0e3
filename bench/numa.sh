#!/bin/sh
# Replica mode with and without node replicas (issue 12), for a machine with
# more than one NUMA node: at each thread count in THREADS (default: one node's
# cores, and every core), replica mode with --node-sync off (one level: every
# worker flushes into the one global model, across the interconnect) against
# node replicas synced every 1, 4 and 16 flushes of each node's first worker,
# with serial and buffered for reference, on the RCV1-shaped set (`data gen
# --seed 1`, 90/10 split). Cells run interleaved, REPEAT (5) times, EPOCHS (5)
# epochs each; reported: median seconds per epoch, speed-up over serial, test
# loss against serial's. Writes bench/results/numa.md (or $OUT).
#
# On a machine with one NUMA node there is nothing to measure: the script
# says so and stops, unless TOPOLOGY names a synthetic machine ("numa:2 core:1
# pu:1") -- then it runs the cells as a check that they work, and the file
# says that its timings mean nothing (no binding, one node's memory).
. "$(dirname "$0")/common.sh"
REPEAT=${REPEAT:-5}
EPOCHS=${EPOCHS:-5}
TOPOLOGY=${TOPOLOGY:-}
OUT=${OUT:-$RESULTS/numa.md}

nodes=$(lscpu | sed -n 's/^NUMA node(s): *//p')
nodes=${nodes:-1}
if [ "$nodes" -lt 2 ] && [ -z "$TOPOLOGY" ]; then
	echo "bench/numa.sh: this machine has $nodes NUMA node: nothing to compare (TOPOLOGY=\"numa:2 core:1 pu:1\" for a dry run)" >&2
	exit 0
fi
cores=$(nproc)
THREADS=${THREADS:-"$((cores / nodes)) $cores"}
topo=
[ -n "$TOPOLOGY" ] && topo="--topology"

rcv1_set
run() { # ARGS... -> "seconds_per_epoch test_loss"
	if [ -n "$topo" ]; then set -- "$@" --topology "$TOPOLOGY"; fi
	"$H" train --data "$WORK/rcv1_tr.lmdb" --test "$WORK/rcv1_te.lmdb" --epochs "$EPOCHS" --quiet --average off \
		--metrics "$WORK/numa.json" "$@" >/dev/null 2>&1 || { echo "nan nan"; rm -f "$WORK/numa.json"; return; }
	awk -F'"elapsed":' 'NF > 1 { split($2, a, ","); e = a[1] }
		/"test_loss"/ { sub(/.*"test_loss":/, ""); split($0, b, ","); l = b[1] }
		END { print e / '"$EPOCHS"', l }' "$WORK/numa.json"
	rm -f "$WORK/numa.json"
}

cells() {
	echo "serial:1:--mode serial"
	for t in $THREADS; do
		echo "buffered:$t:--mode buffered --threads $t"
		echo "replica, one level:$t:--mode replica --threads $t --node-sync off"
		for k in 1 4 16; do
			echo "replica, node sync $k:$t:--mode replica --threads $t --node-sync $k"
		done
	done
}

machine_header "$OUT" "Replica mode with and without node replicas ($EPOCHS epochs, medians of $REPEAT interleaved runs)"
{
	echo "Command: \`THREADS=\"$THREADS\" REPEAT=$REPEAT EPOCHS=$EPOCHS${TOPOLOGY:+ TOPOLOGY=\"$TOPOLOGY\"} sh bench/numa.sh\`;"
	echo "each cell \`hogwild train --data rcv1_tr.lmdb --test rcv1_te.lmdb --epochs $EPOCHS --average off ARGS\`."
	if [ -n "$TOPOLOGY" ]; then
		echo
		echo "**A dry run on the synthetic machine \`$TOPOLOGY\`: threads are not bound and all memory is on"
		echo "this machine's $nodes node, so these timings say nothing about NUMA; the losses are real.**"
	fi
	echo
	echo "| cell | threads | s/epoch | speed-up | test loss | vs serial |"
	echo "|---|---|---|---|---|---|"
} >> "$OUT"
cells > "$WORK/numa-cells"
: > "$WORK/numa.raw"
r=0
while [ $r -lt "$REPEAT" ]; do
	while IFS=: read -r name t args; do
		echo "$name:$t:$(run $args)" >> "$WORK/numa.raw"
	done < "$WORK/numa-cells"
	r=$((r + 1))
done
pick() { # NAME THREADS FIELD(1: seconds, 2: loss) -> median
	awk -F: -v n="$1" -v t="$2" -v f="$3" '$1 == n && $2 == t { split($3, v, " "); print v[f] }' "$WORK/numa.raw" | median
}
ser=$(pick serial 1 1)
serl=$(pick serial 1 2)
while IFS=: read -r name t args; do
	echo "$name:$t:$(pick "$name" "$t" 1):$(pick "$name" "$t" 2):$ser:$serl" | awk -F: '{
		printf "| %s | %s | %.4f | %.2fx | %.5f | %+.2f%% |\n", $1, $2, $3, $5 / $3, $4, 100 * ($4 / $6 - 1) }'
done < "$WORK/numa-cells" >> "$OUT"
cat "$OUT"
