#!/bin/sh
# Issue 11: training a set larger than the memory it is given. Makes an
# RCV1-shaped set about twice MEM_MB (default 128) and trains it with 2 threads,
# in memory and with --stream, inside a memory cgroup limited to MEM_MB, then
# once more without the limit: peak resident memory (/usr/bin/time -v), seconds
# per epoch, exit status. The set is copied into place past the page cache, so
# what a run reads is charged to the cgroup and the limit evicts it: --stream
# then reads from the file again. Writes bench/results/stream.md.
# Needs root for the cgroup (v1: /sys/fs/cgroup/memory, v2: /sys/fs/cgroup);
# without one it says so and measures resident memory only.
. "$(dirname "$0")/common.sh"
MEM_MB=${MEM_MB:-128}
EPOCHS=${EPOCHS:-3}
N=$((MEM_MB * 2 * 1024 * 1024 / 580)) # ~580 bytes an example at 71 nonzeros with values
CG=""
if [ -w /sys/fs/cgroup/memory ] && mkdir -p /sys/fs/cgroup/memory/hogwild-bench 2>/dev/null; then
	CG=/sys/fs/cgroup/memory/hogwild-bench
	echo $((MEM_MB * 1024 * 1024)) > $CG/memory.limit_in_bytes
	LIMIT_FILE=memory.limit_in_bytes
elif [ -w /sys/fs/cgroup/cgroup.subtree_control ] && mkdir -p /sys/fs/cgroup/hogwild-bench 2>/dev/null; then
	CG=/sys/fs/cgroup/hogwild-bench
	echo $((MEM_MB * 1024 * 1024)) > $CG/memory.max
	LIMIT_FILE=memory.max
fi
# in_cg CMD...: runs CMD inside the cgroup (or as is without one)
in_cg() {
	if [ -n "$CG" ]; then sh -c 'echo $$ > "$0/cgroup.procs"; exec "$@"' "$CG" "$@"; else "$@"; fi
}
OUT=$RESULTS/stream.md
machine_header "$OUT" "Training a set twice the memory it is given: in memory vs --stream"
rm -f "$WORK/stream.lmdb" "$WORK/stream-src.lmdb"
# generated outside the limit (the writer's dirty pages would not fit), then
# copied past the page cache (O_DIRECT): no page of the set starts out cached
"$H" data gen -q --seed 5 -n "$N" "$WORK/stream-src.lmdb" >/dev/null
dd if="$WORK/stream-src.lmdb" of="$WORK/stream.lmdb" bs=1M oflag=direct status=none 2>/dev/null ||
	cp "$WORK/stream-src.lmdb" "$WORK/stream.lmdb"
rm -f "$WORK/stream-src.lmdb"
SIZE=$(du -m "$WORK/stream.lmdb" | cut -f1)
# the loaded set: 4 bytes an id and a value per nonzero, 8 an offset and 4 a label per example
LOADED=$("$H" data info "$WORK/stream.lmdb" | awk '/^examples/ { n = $2 } /^nonzeros/ { z = $2 } END { printf "%.0f", (z * 8 + n * 12) / 1048576 }')
{
	if [ -n "$CG" ]; then
		echo "Memory limit: a cgroup ($CG, $LIMIT_FILE) of $MEM_MB MB; the set ($N examples, $SIZE MB) was"
		echo "copied into place with O_DIRECT, so none of it starts in the page cache, and what the runs read"
		echo "is charged to the cgroup."
	else
		echo "No memory cgroup could be made here: no limit, resident memory only."
	fi
	echo "\`hogwild train --data stream.lmdb --mode lockfree --threads 2 --epochs $EPOCHS\`, with and without \`--stream\`."
	echo "s/epoch: training time over epochs (setup and loading excluded; --stream's setup reads the set once)."
	echo "The loaded set (hog_data) takes $LOADED MB; the peak RSS counts the file's pages read through the"
	echo "map as well (the one-copy check on anonymous memory: bench/memory.sh, bench/results/memory.md)."
	echo "The machine was shared with other jobs: times are noisy."
	echo
	echo "| run | limit | exit | peak RSS (MB) | s/epoch | wall (s) |"
	echo "|---|---|---|---|---|---|"
} >> "$OUT"
one() { # label limited(0/1) args...
	label=$1 lim=$2
	shift 2
	if [ "$lim" = 1 ]; then runner=in_cg; else runner=""; fi
	set +e
	$runner /usr/bin/time -v "$H" train --data "$WORK/stream.lmdb" --mode lockfree --threads 2 --epochs "$EPOCHS" --quiet "$@" \
		>"$WORK/stream.out" 2>"$WORK/stream.err"
	rc=$?
	set -e
	rss=$(awk -F: '/Maximum resident/ { printf "%.0f", $2 / 1024 }' "$WORK/stream.err")
	wall=$(awk '/Elapsed \(wall/ { n = split($NF, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$WORK/stream.err")
	spe=$(sed -n 's/.* \([0-9]*\) epochs* in \([0-9.]*\)s.*/\2 \1/p' "$WORK/stream.err" | awk '{ printf "%.3f", $1 / $2 }')
	sig=$(sed -n 's/.*terminated by signal \([0-9]*\).*/ (signal \1)/p' "$WORK/stream.err")
	echo "| $label | $([ "$lim" = 1 ] && [ -n "$CG" ] && echo "$MEM_MB MB" || echo none) | $rc$sig | ${rss:--} | ${spe:--} | ${wall:--} |" >> "$OUT"
}
one "in memory" 1
one "--stream" 1 --stream
one "in memory" 0
one "--stream" 0 --stream
rm -f "$WORK/stream.lmdb"
if [ -n "$CG" ]; then
	# (the cgroup is empty again once its processes have exited)
	rmdir "$CG" 2>/dev/null || true
fi
cat "$OUT"
