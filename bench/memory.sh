#!/bin/sh
# Issue 23: one copy of the data in memory, really. Makes three sparse sets
# (values, RCV1-shaped; binary, RCV1-shaped; binary with short rows) and runs
# train (serial, 2 threads, --average off, replica, deterministic, --test),
# eval and predict on each, twice: without a limit, and inside a memory cgroup
# limited to 1.15 x (the decoded set + the model) + 30 MB. Each run's peak
# anonymous memory is polled from /proc/PID/status (RssAnon, every ~10 ms;
# VmHWM, the peak of all resident memory, includes the set's file pages read
# through LMDB's map). Ratio: the peak over (decoded set + model). A run the
# limit kills exits 137 (signal 9). compare runs once, without a limit, for
# the record: it trains the caller's set many times (hog_train), so each run
# copies its shards and it holds about two copies.
# Writes bench/results/memory.md.
#   VALS_N BIN_N SHORT_N  examples of the three sets (200000 400000 1500000)
#   EPOCHS                epochs per training run (1)
#   MEM_OUT               the result file (bench/results/memory.md)
# Needs root for the cgroup (v1: /sys/fs/cgroup/memory, v2: /sys/fs/cgroup);
# without one it says so and measures without a limit only.
. "$(dirname "$0")/common.sh"
VALS_N=${VALS_N:-200000}
BIN_N=${BIN_N:-400000}
SHORT_N=${SHORT_N:-1500000}
EPOCHS=${EPOCHS:-1}
OUT=${MEM_OUT:-$RESULTS/memory.md}
CG=""
LIMIT_FILE=""
for base in /sys/fs/cgroup/memory /sys/fs/cgroup; do
	d=$base/hogwild-mem-$$
	if mkdir "$d" 2>/dev/null; then
		if [ -f "$d/memory.limit_in_bytes" ]; then
			CG=$d LIMIT_FILE=memory.limit_in_bytes
			break
		elif [ -f "$d/memory.max" ]; then
			CG=$d LIMIT_FILE=memory.max
			break
		fi
		rmdir "$d"
	fi
done
cleanup() { [ -z "$CG" ] || rmdir "$CG" 2>/dev/null || true; }
trap cleanup EXIT
# set_limit BYTES: the cgroup's limit (and no swap)
set_limit() {
	if [ "$LIMIT_FILE" = memory.limit_in_bytes ]; then # (v1: memsw is never below the limit)
		echo -1 >"$CG/memory.memsw.limit_in_bytes" 2>/dev/null || true
		echo "$1" >"$CG/$LIMIT_FILE"
		echo "$1" >"$CG/memory.memsw.limit_in_bytes" 2>/dev/null || true
	else
		echo "$1" >"$CG/$LIMIT_FILE"
		echo 0 >"$CG/memory.swap.max" 2>/dev/null || true
	fi
}

# poll CMD...: runs CMD, polling its /proc/PID/status until it exits; sets RC,
# ANON and HWM (peak RssAnon and VmHWM, kB)
poll() {
	"$@" >"$WORK/mem.out" 2>"$WORK/mem.err" &
	pid=$!
	ANON=0 HWM=0
	while :; do
		st=$(awk '/^State:/ { s = $2 } /^RssAnon:/ { a = $2 } /^VmHWM:/ { h = $2 }
			END { print (s == "" ? "Z" : s), a + 0, h + 0 }' /proc/$pid/status 2>/dev/null || echo "Z 0 0")
		set -- $st
		[ "$1" = Z ] && break
		[ "$2" -gt "$ANON" ] && ANON=$2
		[ "$3" -gt "$HWM" ] && HWM=$3
		sleep 0.01
	done
	set +e
	wait $pid
	RC=$?
	set -e
}

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

machine_header "$OUT" "Peak memory of train, eval and predict against the decoded set (issue 23)"
{
	echo "Commands: \`sh bench/memory.sh\` (VALS_N=$VALS_N BIN_N=$BIN_N SHORT_N=$SHORT_N EPOCHS=$EPOCHS)."
	echo
	echo "Peak RssAnon: polled from /proc/PID/status every ~10 ms (anonymous memory: the decoded set, the"
	echo "model, the runtime); VmHWM: the kernel's peak of all resident memory, which adds the pages of the"
	echo "LMDB file read through its map. Data: the decoded set, 4 bytes a label and 8 an offset per example,"
	echo "4 bytes an id (and 4 a value) per nonzero. Model: the saved model's size. Ratio: peak RssAnon over"
	echo "data + model. Limit: 1.15 x (data + model) + 30 MB (MB = 10^6 bytes; MiB = 2^20 in the tables)."
	if [ -n "$CG" ]; then
		echo "Limited runs: inside a memory cgroup ($LIMIT_FILE) of that limit, no swap; the set's file was"
		echo "read once outside it first, so its pages are charged elsewhere and the limit bites on anonymous"
		echo "memory (a run it kills exits 137)."
	else
		echo "No memory cgroup could be made here: the runs are not limited."
	fi
	echo
} >>"$OUT"

# one SET KIND GEN-ARGS...: makes the set, then every run on it
one() {
	set_name=$1 kind=$2
	shift 2
	rm -rf "$WORK/mem-$set_name.lmdb" "$WORK/mem-$set_name-te.lmdb"
	"$H" data gen -q "$@" "$WORK/mem-$set_name.lmdb" >/dev/null
	"$H" data split --fraction 0.02 --seed 1 "$WORK/mem-$set_name.lmdb" "$WORK/mem-$set_name-tr.lmdb" \
		"$WORK/mem-$set_name-te.lmdb" >/dev/null
	rm -rf "$WORK/mem-$set_name.lmdb"
	D=$WORK/mem-$set_name-tr.lmdb
	TE=$WORK/mem-$set_name-te.lmdb
	info=$("$H" data info "$D")
	n=$(echo "$info" | awk '/^examples/ { print $2 }')
	z=$(echo "$info" | awk '/^nonzeros/ { print $2 }')
	per=$([ "$kind" = values ] && echo 8 || echo 4)
	data=$(awk -v n="$n" -v z="$z" -v p="$per" 'BEGIN { printf "%.0f", n * 4 + (n + 1) * 8 + z * p }')
	"$H" train --quiet --epochs 1 --data "$D" --save "$WORK/mem.model" >/dev/null 2>&1
	model=$(wc -c <"$WORK/mem.model")
	limit=$(awk -v d="$data" -v m="$model" 'BEGIN { printf "%.0f", 1.15 * (d + m) + 30e6 }')
	cat "$D" "$TE" >/dev/null # (the file pages: cached outside the cgroup)
	{
		echo "### $set_name: $kind, $n examples, $z nonzeros ($(awk -v n="$n" -v z="$z" 'BEGIN { printf "%.1f", z / n }') a row)"
		echo
		echo "data $(awk -v b="$data" 'BEGIN { printf "%.1f MB (%.1f MiB)", b / 1e6, b / 1048576 }'), model $(awk -v b="$model" 'BEGIN { printf "%.2f MB", b / 1e6 }'), limit $(awk -v b="$limit" 'BEGIN { printf "%.1f MB (%.1f MiB)", b / 1e6, b / 1048576 }'); test set (--test): $(awk -v t="$("$H" data info "$TE" | awk '/^examples/ { print $2 }')" 'BEGIN { print t }') examples"
		echo
		echo "| run | peak RssAnon (MiB) | VmHWM (MiB) | ratio | limited: exit | limited: peak RssAnon (MiB) |"
		echo "|---|---|---|---|---|---|"
	} >>"$OUT"
	tr="train --quiet --epochs $EPOCHS --data $D --save $WORK/mem-run.model"
	for run in "$tr --mode serial" "$tr --threads 2" "$tr --mode serial --average off" "$tr --threads 2 --average off" \
		"$tr --mode replica --threads 2" "$tr --mode deterministic --threads 2" "$tr --threads 2 --test $TE" \
		"eval --model $WORK/mem.model --data $D" "predict --model $WORK/mem.model --data $D --out $WORK/mem.pred"; do
		# shellcheck disable=SC2086
		poll "$H" $run
		a=$ANON h=$HWM r=$RC
		ratio=$(awk -v a="$a" -v d="$data" -v m="$model" 'BEGIN { printf "%.3f", a * 1024 / (d + m) }')
		lrc=- la=-
		if [ -n "$CG" ]; then
			set_limit "$limit"
			# shellcheck disable=SC2086
			poll sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$H" $run # (exec: the same PID)
			lrc=$RC la=$(mib "$ANON")
		fi
		label=$(echo "$run" | sed "s|$WORK/||g; s|--quiet ||; s|--epochs $EPOCHS ||; s| --save mem-run.model||; s| --out mem.pred||")
		echo "| \`$label\`$([ "$r" = 0 ] || echo " (exit $r)") | $(mib "$a") | $(mib "$h") | $ratio | $lrc | $la |" >>"$OUT"
	done
	poll "$H" compare --quiet --data "$D" --modes lockfree --threads 1,2 --epochs 1 --repeat 1
	echo "| \`compare --modes lockfree --threads 1,2 --epochs 1 --repeat 1\` (not limited)$([ "$RC" = 0 ] || echo " (exit $RC)") | $(mib "$ANON") | $(mib "$HWM") | $(awk -v a="$ANON" -v d="$data" -v m="$model" 'BEGIN { printf "%.3f", a * 1024 / (d + m) }') | - | - |" >>"$OUT"
	echo >>"$OUT"
	rm -rf "$D" "$TE" "$WORK/mem-run.model" "$WORK/mem.pred"
}

one values values --seed 1 -n "$VALS_N"
one binary binary --binary --seed 2 -n "$BIN_N"
one short binary --binary --seed 3 -n "$SHORT_N" --nnz 10 -d 5000
cat "$OUT"
