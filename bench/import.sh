#!/bin/sh
# Import throughput (MB/s, examples/s) of a generated RCV1-sized LIBSVM file, and
# the time to load the whole data set into memory for training. Medians of 5.
. "$(dirname "$0")/common.sh"
OUT=$RESULTS/import.md
rcv1_set
[ -f "$WORK/rcv1.svm" ] || "$H" data export --out "$WORK/rcv1.svm" "$WORK/rcv1.lmdb"
make -s -C "$ROOT" build/bench_load >/dev/null
bytes=$(stat -c %s "$WORK/rcv1.svm")
n=$("$H" data info --json --sample 0 "$WORK/rcv1.lmdb" | sed 's/.*"examples":\([0-9]*\).*/\1/')
machine_header "$OUT" "Import and load: RCV1-sized LIBSVM file"
: > "$WORK/imp.txt"; : > "$WORK/load.txt"
for i in 1 2 3 4 5; do
	s=$( { /usr/bin/time -f %e "$H" data import -q --format libsvm "$WORK/rcv1.svm" "$WORK/imp.lmdb" >/dev/null; } 2>&1 | tail -1)
	echo "$s" >> "$WORK/imp.txt"
	"$ROOT/build/bench_load" "$WORK/rcv1.lmdb" | awk '{print $1}' >> "$WORK/load.txt"
done
imp=$(median < "$WORK/imp.txt")
load=$(median < "$WORK/load.txt")
lmdb=$(stat -c %s "$WORK/rcv1.lmdb")
{
	echo "Input: \`hogwild data gen\` (RCV1's shape: $n examples, 47,236 features, ~71 nonzeros"
	echo "each, unit-norm values) exported with \`hogwild data export\`: $((bytes / 1000000)) MB of text."
	echo
	echo "| what | median of 5 | runs (s) |"
	echo "|---|---|---|"
	echo "| import (\`hogwild data import --format libsvm\`, wall, incl. fsync) | $imp s = $(awk -v b=$bytes -v s=$imp -v n=$n 'BEGIN{printf "%.0f MB/s, %.2f M examples/s", b/s/1e6, n/s/1e6}') | $(tr '\n' ' ' < "$WORK/imp.txt") |"
	echo "| load into memory (\`hog_data_load\`, checks every block) | $load s = $(awk -v b=$lmdb -v s=$load 'BEGIN{printf "%.2f GB/s of LMDB file", b/s/1e9}') | $(tr '\n' ' ' < "$WORK/load.txt") |"
	echo
	echo "Examples/s on import: $(awk -v n=$n -v s=$imp 'BEGIN{printf "%.2f million", n/s/1e6}'). LMDB file: $((lmdb / 1000000)) MB."
	echo
	echo "Commands: \`hogwild data import -q --format libsvm rcv1.svm out.lmdb\`; \`build/bench_load rcv1.lmdb\` (bench/bench_load.c)."
} >> "$OUT"
cat "$OUT"
