# Shared by the bench scripts: where things are, the machine description that
# heads every result file, and a median helper. Source it from a bench script.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
H=${HOG_BIN:-$ROOT/hogwild}
HM=${HOG_MPI_BIN:-$ROOT/hogwild-mpi} # the program mpirun starts
RESULTS=$ROOT/bench/results
WORK=${BENCH_WORK:-${TMPDIR:-/tmp}/hogwild-bench}
DATA=${HOG_DATA:-$ROOT/../shared/data}
mkdir -p "$RESULTS" "$WORK"
[ -x "$H" ] || { echo "bench: build hogwild first (make)" >&2; exit 2; }

# machine_header FILE TITLE: starts a result file with the machine and the commit.
machine_header() {
	{
		echo "# $2"
		echo
		echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
		# (HOG_COMMIT: the commit of a binary built elsewhere, bench/device.sh's: the
		# device's copy of the tree names an older HEAD)
		echo "- commit: ${HOG_COMMIT:-$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)$(cd "$ROOT" && git diff --quiet 2>/dev/null || echo ' (with local changes)')}"
		echo "- hogwild: $("$H" --version)"
		echo "- machine: $(nproc) CPUs, $(free -g | awk '/Mem:/ {print $2}') GiB; $(lscpu | sed -n 's/^Model name: *//p')"
		echo "- $(cacheline)"
		echo
		echo '```'
		lscpu | grep -E '^(Architecture|CPU\(s\)|Model name|Thread|Core|Socket|NUMA node|L1d|L2|L3|Hypervisor)'
		echo '```'
		echo
	} > "$1"
}

# cacheline: the measured cost of moving a cache line between CPUs 0 and 1
# (bench/cacheline.c, built here once), or why it could not be measured.
cacheline() {
	if [ -n "${CACHELINE_BIN:-}" ]; then # built elsewhere (bench/device-prep.sh)
		cp "$CACHELINE_BIN" "$WORK/cacheline"
	elif [ ! -x "$WORK/cacheline" ] || [ "$ROOT/bench/cacheline.c" -nt "$WORK/cacheline" ]; then
		cc -std=c11 -O2 -pthread -o "$WORK/cacheline" "$ROOT/bench/cacheline.c" 2>/dev/null ||
			{ echo "cache-line transfer: not measured (bench/cacheline.c did not build)"; return; }
	fi
	if [ "$(nproc)" -lt 2 ]; then echo "cache-line transfer: not measured (one CPU)"; return; fi
	"$WORK/cacheline" 2>&1 || echo "cache-line transfer: not measured"
}

# median: reads numbers, one per line, prints their median.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit } if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# metrics_seconds FILE: the median seconds of epochs 2.. in a --metrics file
# (train appends to it: remove it before each run).
metrics_seconds() {
	awk -F'"seconds":' 'NF > 1 { split($2, a, ","); sub(/.*"epoch":/, "", $1); split($1, b, ",");
		if (b[1] >= 2) print a[1] }' "$1" | median
}

# gen_set NAME: makes (once) one of the generated sets the benchmarks share,
# with a 10% test split, as $WORK/gen-NAME_tr.lmdb and _te.lmdb: zipf08 (data gen
# --seed 2 --zipf 0.8 --binary) or wide (data gen --seed 3 --examples 300000
# --features 2000000, 2 M features).
gen_set() {
	[ -f "$WORK/gen-$1_tr.lmdb" ] && return 0
	case $1 in
	zipf08) "$H" data gen -q --seed 2 --zipf 0.8 --binary "$WORK/gen-$1.lmdb" ;;
	wide) "$H" data gen -q --seed 3 --examples 300000 --features 2000000 "$WORK/gen-$1.lmdb" ;;
	*) echo "gen_set: no set $1" >&2; return 1 ;;
	esac
	"$H" data split --fraction 0.1 --seed 1 "$WORK/gen-$1.lmdb" "$WORK/gen-$1_tr.lmdb" "$WORK/gen-$1_te.lmdb" >/dev/null
}

# col FILE N, col_min FILE N: the median and the minimum of the Nth
# space-separated column of FILE.
col() { cut -d' ' -f"$2" "$1" | median; }
col_min() { cut -d' ' -f"$2" "$1" | sort -g | head -1; }

# a9a_set: imports (once) a9a and a9a.t from $A9A (default $DATA/a9a) as
# $WORK/a9a.lmdb and $WORK/a9a_te.lmdb.
a9a_set() {
	A9A=${A9A:-$DATA/a9a}
	[ -f "$WORK/a9a.lmdb" ] || "$H" data import -q --format libsvm --dim 123 "$A9A" "$WORK/a9a.lmdb"
	[ -f "$WORK/a9a_te.lmdb" ] || "$H" data import -q --format libsvm --dim 123 "$A9A.t" "$WORK/a9a_te.lmdb"
}

# bound_bin: builds the no-sharing bound (bench/bound.c) as $WORK/bound, once,
# and again whenever bound.c is newer than it.
bound_bin() {
	[ -x "$WORK/bound" ] && [ ! "$ROOT/bench/bound.c" -nt "$WORK/bound" ] && return 0
	cc -std=c11 -O2 -march=x86-64-v2 -fopenmp -I"$ROOT/include" -o "$WORK/bound" "$ROOT/bench/bound.c" \
		"$ROOT/build/obj/libhogwild.a" $(pkg-config --libs lmdb hwloc openblas zlib) -ldl -lm
}

# rcv1_set: makes (once) the RCV1-shaped set and a 10% test split in $WORK.
rcv1_set() {
	if [ ! -f "$WORK/rcv1_tr.lmdb" ]; then
		"$H" data gen -q --seed 1 "$WORK/rcv1.lmdb"
		"$H" data split --fraction 0.1 --seed 1 "$WORK/rcv1.lmdb" "$WORK/rcv1_tr.lmdb" "$WORK/rcv1_te.lmdb" >/dev/null
	fi
}
