#!/bin/sh
# Scripted corruption run (issue 9): damaged data set files must never crash a
# command. A small sparse set is generated, then damaged three ways:
#   - truncated at every page boundary, one byte either side, and odd lengths;
#   - meta counts crafted with mdb_load (lmdb-utils; skipped without it):
#     nnz = 2^62, examples = 2^64-1, blocks, features, classes, positives;
#   - the "split" meta of a split's half crafted (damaged ids, the same half,
#     another split's half): the commands that read it, --strict included;
#   - single bytes flipped: every SSTRIDE-th byte (default 3; 1: all) of LMDB's
#     meta, branch and leaf pages, the header of every overflow page, and every
#     STRIDE-th byte (default 509) of the whole file; sparser in the short form.
# Each damaged file goes through `data info`, `data verify`, `train --epochs 1`
# and `eval` of a model trained on the clean set: each must exit 0 or 1 (never by
# a signal, never 2, never hang). Prints the counts; exits 1 on any failure.
#
#   HOG_BIN=./hogwild sh tests/corrupt.sh          full run (about 10 minutes)
#   HOG_BIN=./hogwild sh tests/corrupt.sh --short  CI form (well under a minute)
set -u
BIN=${HOG_BIN:-./hogwild}
SHORT=0
[ "${1:-}" = "--short" ] && SHORT=1
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
[ -x "$BIN" ] || { echo "corrupt.sh: no hogwild binary at $BIN (set HOG_BIN)" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/hogwild-corrupt-XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
TO=""
command -v timeout >/dev/null 2>&1 && TO="timeout 60"

"$BIN" data gen -q --kind sparse --examples 3000 --features 500 --nnz 8 --block 256 "$T/good.lmdb" >/dev/null ||
	{ echo "corrupt.sh: data gen failed" >&2; exit 1; }
"$BIN" train --quiet --data "$T/good.lmdb" --epochs 1 --threads 2 --save "$T/model" >/dev/null 2>&1 ||
	{ echo "corrupt.sh: training on the clean set failed" >&2; exit 1; }
SIZE=$(wc -c < "$T/good.lmdb")
PS=$(od -An -tu4 -j 40 -N 4 "$T/good.lmdb" | tr -d ' ')
PAGES=$((SIZE / PS))

files=0 runs=0 ok0=0 ok1=0 bad=0
# run_all FILE WHAT: every command on one damaged file
run_all() {
	files=$((files + 1))
	for c in info verify train eval; do
		case $c in
		info)   $TO "$BIN" data info "$1" >/dev/null 2>"$T/err" ;;
		verify) $TO "$BIN" data verify "$1" >/dev/null 2>"$T/err" ;;
		train)  $TO "$BIN" train --quiet --data "$1" --epochs 1 --threads 2 >/dev/null 2>"$T/err" ;;
		eval)   $TO "$BIN" eval --model "$T/model" --data "$1" >/dev/null 2>"$T/err" ;;
		esac
		rc=$?
		runs=$((runs + 1))
		case $rc in
		0) ok0=$((ok0 + 1)) ;;
		1) ok1=$((ok1 + 1)) ;;
		*) bad=$((bad + 1))
		   echo "FAIL: $c on $2 exited $rc: $(tail -c 300 "$T/err")"
		   cp "$1" "$T/../hogwild-corrupt-fail-$bad.lmdb" 2>/dev/null ;;
		esac
	done
}

# flip FILE OFFSET: inverts one byte in place
flip() {
	v=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' ')
	printf "\\$(printf %o $((v ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# --- truncation
n=0
for pg in $(seq 1 $((PAGES - 1))); do
	[ $SHORT = 1 ] && [ $((pg % 7)) != 1 ] && continue
	for cut in $((pg * PS - 1)) $((pg * PS)) $((pg * PS + 1)); do
		head -c "$cut" "$T/good.lmdb" > "$T/t.lmdb"
		run_all "$T/t.lmdb" "truncated to $cut bytes"
		n=$((n + 1))
	done
done
for cut in 1 23 100 1000 5000; do
	head -c "$cut" "$T/good.lmdb" > "$T/t.lmdb"
	run_all "$T/t.lmdb" "truncated to $cut bytes"
	n=$((n + 1))
done
echo "truncated: $n lengths of $SIZE bytes"

# --- crafted meta counts
n=0
if command -v mdb_load >/dev/null 2>&1; then
	for kv in "nnz 4611686018427387904" "examples 18446744073709551615" "examples 4611686018427387904" \
	          "blocks 18446744073709551615" "features 0" "features 4294967296" "classes 65537" \
	          "positives 99999" "nnz 0" "examples 1"; do
		set -- $kv
		cp "$T/good.lmdb" "$T/m.lmdb"
		printf 'VERSION=3\nformat=print\ndatabase=meta\ntype=btree\nHEADER=END\n %s\n %s\nDATA=END\n' "$1" "$2" |
			mdb_load -n -s meta "$T/m.lmdb" || { echo "FAIL: mdb_load $kv"; bad=$((bad + 1)); continue; }
		run_all "$T/m.lmdb" "meta $1 = $2"
		n=$((n + 1))
	done
	echo "crafted meta: $n sets"
else
	echo "crafted meta: skipped (no mdb_load; install lmdb-utils)"
fi

# --- crafted split meta (issue 19): the pair ids that tell a test set cut by
# another run of the split. Each value replaces the "split" entry of the B half;
# the set goes through info, verify, train --test (with and without --strict,
# the A half for training), eval of a model trained on A (with and without
# --strict), and training on it and eval of that model on A. Every command
# exits 0 or 1; beyond that, verify must refuse (1) what is damaged and pass
# (0) a whole id or a split made before pair ids, and --strict must refuse the
# same half and another split's half, and take the pair's own other half.
# run_split FILE WHAT VERIFY STRICT: the exit statuses wanted of verify and of
# train --strict
run_split() {
	files=$((files + 1))
	for c in info verify test strict eval evalstrict own owneval; do
		case $c in
		info)       $TO "$BIN" data info "$1" >/dev/null 2>"$T/err" ;;
		verify)     $TO "$BIN" data verify "$1" >/dev/null 2>"$T/err" ;;
		test)       $TO "$BIN" train --quiet --data "$T/sa.lmdb" --test "$1" --epochs 1 --threads 2 >/dev/null 2>"$T/err" ;;
		strict)     $TO "$BIN" train --quiet --strict --data "$T/sa.lmdb" --test "$1" --epochs 1 --threads 2 \
		                >/dev/null 2>"$T/err" ;;
		eval)       $TO "$BIN" eval --model "$T/model_a" --data "$1" >/dev/null 2>"$T/err" ;;
		evalstrict) $TO "$BIN" eval --strict --model "$T/model_a" --data "$1" >/dev/null 2>"$T/err" ;;
		own)        rm -f "$T/model_s"
		            $TO "$BIN" train --quiet --data "$1" --epochs 1 --threads 2 --save "$T/model_s" >/dev/null 2>"$T/err" ;;
		owneval)    [ -s "$T/model_s" ] || continue
		            $TO "$BIN" eval --strict --model "$T/model_s" --data "$T/sa.lmdb" >/dev/null 2>"$T/err" ;;
		esac
		rc=$?
		runs=$((runs + 1))
		want=-
		[ $c = verify ] && want=$3
		[ $c = strict ] && want=$4
		case $rc in
		0) ok0=$((ok0 + 1)) ;;
		1) ok1=$((ok1 + 1)) ;;
		*) want="0 or 1" ;;
		esac
		if [ "$want" != - ] && [ "$want" != "$rc" ]; then
			bad=$((bad + 1))
			echo "FAIL: $c on $2 exited $rc (wanted $want): $(tail -c 300 "$T/err")"
		fi
	done
}
n=0
if command -v mdb_load >/dev/null 2>&1; then
	"$BIN" data split -f 0.3 "$T/good.lmdb" "$T/sa.lmdb" "$T/sb.lmdb" >/dev/null 2>&1 &&
		"$BIN" train --quiet --data "$T/sa.lmdb" --epochs 1 --threads 2 --save "$T/model_a" >/dev/null 2>&1 ||
		{ echo "corrupt.sh: splitting the clean set failed" >&2; exit 1; }
	ids=$("$BIN" data info --json --sample 0 "$T/sa.lmdb")
	P=$(echo "$ids" | sed -n 's/.*"pair":"\([0-9a-f]*\)".*/\1/p')
	F=$(echo "$ids" | sed -n 's/.*"from":"\([0-9a-f]*\)".*/\1/p')
	[ ${#P} = 16 ] && [ ${#F} = 16 ] || { echo "corrupt.sh: no pair id in $T/sa.lmdb" >&2; exit 1; }
	long=$(printf '%05000d' 0)
	# value (mdb_load's print form: \xx is a byte) | verify's exit status | train --strict's
	while IFS='|' read -r v want_v want_s; do
		cp "$T/sb.lmdb" "$T/s.lmdb"
		printf 'VERSION=3\nformat=print\ndatabase=meta\ntype=btree\nHEADER=END\n split\n %s\nDATA=END\n' "$v" |
			mdb_load -n -s meta "$T/s.lmdb" || { echo "FAIL: mdb_load split = $v"; bad=$((bad + 1)); continue; }
		run_split "$T/s.lmdb" "split = '$(printf %.60s "$v")'" "$want_v" "$want_s"
		n=$((n + 1))
	done <<SPLITS
part=b pair=$P from=$F|0|0
part=a pair=$P from=$F|0|1
part=b pair=0000000000000000 from=$F|0|1
part=b pair=$P from=0000000000000000|0|0
part=b fraction=0.3 seed=1 source=x|0|0
part=a|0|0
|1|0
part=b pair=$P|1|0
part=b from=$F|1|0
part=c pair=$P from=$F|1|0
part= pair=$P from=$F|1|0
part=b pair=${P%?} from=$F|1|0
part=b pair=${P}0 from=$F|1|0
part=b pair=$(echo "$P" | tr a-f A-F) from=$F|1|0
part=b pair=zzzzzzzzzzzzzzzz from=$F|1|0
part=b pair=$P\\00 from=$F|1|0
part=b pair=$P from=$F\\00junk|1|0
\\ff\\fe\\00\\01part=b|1|0
pair=pair=pair=from=from=part=b|1|0
$long pair=$P from=$F part=a|1|0
part=a pair=$P from=$F $long|1|0
SPLITS
	echo "crafted split meta: $n sets"
else
	echo "crafted split meta: skipped (no mdb_load; install lmdb-utils)"
fi

# --- byte flips
STRIDE=${STRIDE:-509}   # anywhere in the file: every STRIDE-th byte
SSTRIDE=${SSTRIDE:-3}   # in meta, branch and leaf pages: every SSTRIDE-th byte
[ $SHORT = 1 ] && STRIDE=20011 && SSTRIDE=97
offsets() {
	pg=0
	while [ $pg -lt $PAGES ]; do
		base=$((pg * PS))
		set -- $(od -An -tu2 -j $((base + 10)) -N 2 "$T/good.lmdb")
		no=$(od -An -tu8 -j "$base" -N 8 "$T/good.lmdb" | tr -d ' ')
		if [ "$no" = "$pg" ] && { [ "$1" = 1 ] || [ "$1" = 2 ] || [ "$1" = 8 ]; }; then
			seq "$base" "$SSTRIDE" $((base + PS - 1))       # a meta, branch or leaf page
		elif [ "$no" = "$pg" ] && [ "$1" = 4 ]; then
			seq "$base" $(( SSTRIDE > 1 ? 5 : 1 )) $((base + 15)) # an overflow page's header
		fi
		pg=$((pg + 1))
	done
	seq 0 "$STRIDE" $((SIZE - 1))                          # anywhere
}
n=0
for o in $(offsets | sort -un); do
	cp "$T/good.lmdb" "$T/f.lmdb"
	flip "$T/f.lmdb" "$o"
	run_all "$T/f.lmdb" "byte $o flipped"
	n=$((n + 1))
done
echo "flipped: $n single-byte flips"

echo "corrupt: $files damaged files, $runs command runs: $ok0 exit 0, $ok1 exit 1, $bad failures"
[ $bad = 0 ]
