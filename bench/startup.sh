#!/bin/sh
# Issue 21: what a command costs before it does anything, and whole small jobs
# beside liblinear.
#   sh bench/startup.sh [BEFORE]
# 1. `hogwild --version` and `hogwild data info` on a small set: median, min and
#    max of 20 runs in ms, timed by the shell (date +%s%N around each run);
#    /bin/true timed the same way is the floor the timer itself costs. BEFORE, a
#    hogwild built from an older commit, runs in the same rounds, interleaved.
# 2. Whole jobs, one run each, wall seconds, default flags: a9a (../shared/data,
#    2.3 MB of text) imported, trained, its test file imported and evaluated,
#    against liblinear-train + liblinear-predict on the text files; and the same
#    on a generated RCV1-shaped LIBSVM file above 50 MB (no public set that
#    large is here), evaluated on itself.
# Writes bench/results/startup.md.
. "$(dirname "$0")/common.sh"
BEFORE=${1:-}
N=${N:-20}
OUT=$RESULTS/startup.md
W=$WORK/startup
rm -rf "$W" && mkdir -p "$W"
"$H" data gen -q --examples 1000 --features 500 --seed 3 "$W/small.lmdb"

ms() { # ms CMD...: wall milliseconds of one run
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo "($t1 - $t0) / 1000000" | bc -l
}
stats() { sort -g "$1" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f | %.1f | %.1f", m, v[1], v[NR] }'; }
for i in $(seq "$N"); do
	ms /bin/true >>"$W/true"
	ms "$H" --version >>"$W/ver"
	ms "$H" data info "$W/small.lmdb" >>"$W/info"
	if [ -n "$BEFORE" ]; then
		ms "$BEFORE" --version >>"$W/ver0"
		ms "$BEFORE" data info "$W/small.lmdb" >>"$W/info0"
	fi
done

machine_header "$OUT" "Start-up: what a command costs before it does anything (issue 21)"
{
	echo "Each figure: $N runs, timed by the shell around the command (\`date +%s%N\` before and"
	echo "after), so each includes the timer's own cost, shown by /bin/true."
	echo
	echo "| command | median ms | min | max |"
	echo "|---|---|---|---|"
	echo "| /bin/true (the timer's floor) | $(stats "$W/true") |"
	echo "| hogwild --version | $(stats "$W/ver") |"
	echo "| hogwild data info (1,000 examples) | $(stats "$W/info") |"
	if [ -n "$BEFORE" ]; then
		echo "| before: hogwild --version | $(stats "$W/ver0") |"
		echo "| before: hogwild data info | $(stats "$W/info0") |"
	fi
	echo
	echo "hogwild's shared libraries: $(ldd "$H" | wc -l) ($(ldd "$H" | awk '{print $1}' | sed 's/\.so.*//' | tr '\n' ' '))"
	[ -n "$BEFORE" ] && echo && echo "before ($("$BEFORE" --version)): $(ldd "$BEFORE" | wc -l) shared libraries"
	echo
} >>"$OUT"

# whole jobs: hogwild SET TEST against liblinear on the text files
sec() { t0=$(date +%s%N); "$@" >"$W/out" 2>"$W/err" || { echo "startup.sh: failed: $*" >&2; cat "$W/err" >&2; exit 1; }; t1=$(date +%s%N); echo "($t1 - $t0) / 1000000000" | bc -l; }
job() { # job NAME TRAIN_TEXT TEST_TEXT
	rm -f "$W"/j.* "$W/ll.model" "$W/ll.out"
	a=$(sec "$H" data import -q -f libsvm "$2" "$W/j.lmdb")
	b=$(sec "$H" train --data "$W/j.lmdb" --save "$W/j.model")
	c=$(sec "$H" data import -q -f libsvm "$3" "$W/j.t.lmdb")
	d=$(sec "$H" eval --model "$W/j.model" --data "$W/j.t.lmdb")
	acc=$(awk '/accuracy/ { for (i = 1; i <= NF; i++) if ($i ~ /%$/) { print $i; exit } }' "$W/out")
	[ -n "$acc" ] || acc=$(grep -Eo '[0-9.]+%' "$W/out" | head -1)
	e=$(sec liblinear-train "$2" "$W/ll.model")
	f=$(sec liblinear-predict "$3" "$W/ll.model" "$W/ll.out")
	lacc=$(grep -Eo '[0-9.]+%' "$W/out" | head -1)
	hs=$(echo "$a + $b + $c + $d" | bc -l) ls=$(echo "$e + $f" | bc -l)
	printf '| %s | %.2f (import %.2f, train %.2f, import test %.2f, eval %.2f) | %s | %.2f (train %.2f, predict %.2f) | %s | %.2f |\n' \
		"$1" "$hs" "$a" "$b" "$c" "$d" "$acc" "$ls" "$e" "$f" "$lacc" "$(echo "$hs / $ls" | bc -l)"
}
{
	echo "Whole jobs, one run each, wall seconds, default flags: \`hogwild data import -f libsvm\`, \`train --save\`,"
	echo "import of the test file, \`eval\`; against \`liblinear-train\` (its default solver) and \`liblinear-predict\`"
	echo "on the text files."
	echo
	echo "| set | hogwild s | hogwild accuracy | liblinear s | liblinear accuracy | ratio |"
	echo "|---|---|---|---|---|---|"
} >>"$OUT"
if [ -f "$DATA/a9a" ]; then
	job "a9a ($(du -h "$DATA/a9a" | cut -f1), test a9a.t)" "$DATA/a9a" "$DATA/a9a.t" >>"$OUT"
fi
"$H" data gen -q --examples "${BIG:-60000}" --seed 5 "$W/big.lmdb"
"$H" data export "$W/big.lmdb" >"$W/big.txt"
job "generated RCV1-shaped, ${BIG:-60000} examples ($(du -h "$W/big.txt" | cut -f1), evaluated on itself)" "$W/big.txt" "$W/big.txt" >>"$OUT"
rm -f "$W/big.txt"
cat "$OUT"
