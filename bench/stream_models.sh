#!/bin/sh
# Issue 23: mf and the mlp trained from a set larger than the memory they are
# given. For each, a generated set (mf: ratings, 12 bytes a rating decoded; the
# mlp: dense float rows) is trained with 2 threads in memory and with
# --stream, inside a memory cgroup of half the decoded set and then with no
# limit: exit status, peak resident memory (/usr/bin/time -v), seconds per
# epoch, the final test figure. The set is copied into place past the page
# cache (O_DIRECT) so that what a run reads is charged to the cgroup. Writes
# bench/results/stream-models.md. RATINGS (default 8,000,000), ROWS (60,000 of
# COLS 784), EPOCHS (3). Needs root for the cgroup (v1 or v2); without one it
# measures resident memory only. Run it on a quiet machine.
. "$(dirname "$0")/common.sh"
RATINGS=${RATINGS:-8000000}
ROWS=${ROWS:-60000}
COLS=${COLS:-784}
EPOCHS=${EPOCHS:-3}
OUT=$RESULTS/stream-models.md
machine_header "$OUT" "mf and the mlp on sets twice the memory they are given: in memory vs --stream"
CG="" LIMIT_FILE=""
if [ -w /sys/fs/cgroup/memory ] && mkdir -p /sys/fs/cgroup/memory/hogwild-bench2 2>/dev/null; then
	CG=/sys/fs/cgroup/memory/hogwild-bench2 LIMIT_FILE=memory.limit_in_bytes
elif [ -w /sys/fs/cgroup/cgroup.subtree_control ] && mkdir -p /sys/fs/cgroup/hogwild-bench2 2>/dev/null; then
	CG=/sys/fs/cgroup/hogwild-bench2 LIMIT_FILE=memory.max
fi
in_cg() {
	if [ -n "$CG" ]; then sh -c 'echo $$ > "$0/cgroup.procs"; exec "$@"' "$CG" "$@"; else "$@"; fi
}
# place SRC DST: DST a copy of SRC that starts out of the page cache
place() {
	dd if="$1" of="$2" bs=1M oflag=direct status=none 2>/dev/null || cp "$1" "$2"
	rm -f "$1"
}
{
	echo "Sets generated here, copied into place with O_DIRECT. \`train --threads 2 --epochs $EPOCHS\` with and"
	echo "without \`--stream\` (mf: grid in memory, its default, and lockfree, --stream's default and the"
	echo "mode both can run; the mlp: lockfree, --layers 64). s/epoch: training time over epochs (setup and"
	echo "loading excluded). Limit: a memory cgroup (${CG:-none could be made: resident memory only}) of half"
	echo "the decoded set, then none."
	echo
	echo "| model | set | decoded MB | run | limit | exit | peak RSS (MB) | s/epoch | test |"
	echo "|---|---|---|---|---|---|---|---|---|"
} >> "$OUT"
one() { # model set decodedMB label limitMB args...
	model=$1 set=$2 dec=$3 label=$4 lim=$5
	shift 5
	if [ "$lim" != none ] && [ -n "$CG" ]; then
		echo $((lim * 1024 * 1024)) > "$CG/$LIMIT_FILE"
		runner=in_cg
	else
		runner="" lim=none
	fi
	set +e
	$runner /usr/bin/time -v "$H" train --model "$model" --threads 2 --epochs "$EPOCHS" "$@" \
		>"$WORK/sm.out" 2>"$WORK/sm.err"
	rc=$?
	set -e
	rss=$(awk -F: '/Maximum resident/ { printf "%.0f", $2 / 1024 }' "$WORK/sm.err")
	spe=$(sed -n 's/.* \([0-9]*\) epochs* in \([0-9.]*\)s.*/\2 \1/p' "$WORK/sm.err" | awk '{ printf "%.3f", $1 / $2 }')
	sig=$(sed -n 's/.*terminated by signal \([0-9]*\).*/ (signal \1)/p' "$WORK/sm.err")
	tst=$(awk '$1 ~ /^[0-9]+$/ { l = $(NF - 1) } END { print l }' "$WORK/sm.out")
	[ "$rc" = 0 ] || tst=-
	echo "| $model | $set | $dec | $label | $([ "$lim" = none ] && echo none || echo "$lim MB") | $rc$sig | ${rss:--} | ${spe:--} | ${tst:--} |" >> "$OUT"
}
# prep NAME FRACTION GEN-ARGS...: $WORK/NAME.lmdb (placed) and NAME-te.lmdb (FRACTION of a
# generated set), DEC its decoded size in MB and HALF half of it
prep() {
	p=$1 f=$2
	shift 2
	"$H" data gen -q "$@" --seed 9 "$WORK/$p-all.lmdb" >/dev/null
	"$H" data split --fraction "$f" "$WORK/$p-all.lmdb" "$WORK/$p-src.lmdb" "$WORK/$p-te.lmdb" >/dev/null
	rm -f "$WORK/$p-all.lmdb"
	place "$WORK/$p-src.lmdb" "$WORK/$p.lmdb"
	DEC=$("$H" data info "$WORK/$p.lmdb" | awk '/^in memory/ { printf "%.0f", $3 }')
	HALF=$((DEC / 2))
}
# mf
prep smr 0.05 --kind ratings --examples "$RATINGS" --users 50000 --items 10000
for lim in "$HALF" none; do
	one mf ratings "$DEC" "in memory (grid)" "$lim" --data "$WORK/smr.lmdb" --test "$WORK/smr-te.lmdb"
	one mf ratings "$DEC" "in memory (lockfree)" "$lim" --mode lockfree --data "$WORK/smr.lmdb" --test "$WORK/smr-te.lmdb"
	one mf ratings "$DEC" "--stream (lockfree)" "$lim" --stream --data "$WORK/smr.lmdb" --test "$WORK/smr-te.lmdb"
done
rm -f "$WORK/smr.lmdb" "$WORK/smr-te.lmdb"
# the mlp
prep smd 0.1 --kind dense --examples "$ROWS" --features "$COLS" --classes 10
for lim in "$HALF" none; do
	one mlp dense "$DEC" "in memory" "$lim" --layers 64 --data "$WORK/smd.lmdb" --test "$WORK/smd-te.lmdb"
	one mlp dense "$DEC" "--stream" "$lim" --layers 64 --stream --data "$WORK/smd.lmdb" --test "$WORK/smd-te.lmdb"
done
rm -f "$WORK/smd.lmdb" "$WORK/smd-te.lmdb"
[ -z "$CG" ] || rmdir "$CG" 2>/dev/null || true
echo "test: mf's test RMSE, the mlp's test accuracy (%), after the last epoch." >> "$OUT"
cat "$OUT"
