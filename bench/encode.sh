#!/bin/sh
# Raw (format version 1/2) against packed blocks (version 3) on several shapes:
# file size, import MB/s of the text, load GB/s (hog_data_load, of the decoded
# arrays), and streamed s/epoch (train --stream, linear shapes). Prints a
# markdown table (with the CPU and commit) and writes bench/results/encoding.md.
# ENC_N: examples of the RCV1-shaped set (default RCV1's 781265); ENC_SKIP_TIMES=1
# prints sizes only (timings on a busy machine are void).
. "$(dirname "$0")/common.sh"
OUT=${ENC_OUT:-$RESULTS/encoding.md}
N=${ENC_N:-781265}
A9A=${A9A:-/work/shared/data/a9a}
ML=${ML:-/work/shared/data/ml-latest-small/ratings.csv}
FM=${FM:-/usr/share/datasets/fashion-mnist}
make -s -C "$ROOT" build/bench_load >/dev/null 2>&1 || true
t() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }

[ -f "$WORK/enc_rcv1.svm" ] || {
	"$H" data gen -q --seed 1 -n "$N" "$WORK/enc_gen.lmdb"
	"$H" data export --out "$WORK/enc_rcv1.svm" "$WORK/enc_gen.lmdb"
}
# name|format|inputs|import options
set -- "rcv1-shaped (tf-idf)|libsvm|$WORK/enc_rcv1.svm|" \
       "rcv1-shaped, --value-precision f16|libsvm|$WORK/enc_rcv1.svm|--value-precision f16" \
       "a9a (binary)|libsvm|$A9A|" \
       "MovieLens small (ratings)|ratings|$ML|" \
       "Fashion-MNIST (u8 idx)|idx|$FM/train-images-idx3-ubyte.gz $FM/train-labels-idx1-ubyte.gz|"
machine_header "$OUT" "Block encoding: raw (v1/2) against packed (v3)"
{
	echo "| set | text MB | raw MB | packed MB | ratio | import MB/s raw / packed | load s raw / packed (bench_load) | stream s/epoch raw / packed |"
	echo "|---|---|---|---|---|---|---|---|"
	for row in "$@"; do
		name=${row%%|*}; r=${row#*|}; fmt=${r%%|*}; r=${r#*|}; in=${r%%|*}; opts=${r#*|}
		tb=0; for f in $in; do tb=$((tb + $(stat -c %s "$f"))); done
		line="| $name | $(awk -v b=$tb 'BEGIN{printf "%.1f", b/1e6}')"
		for enc in raw packed; do
			o="$WORK/enc_$enc.lmdb"; rm -f "$o"
			# shellcheck disable=SC2086
			it=$(t "$H" data import -q -f "$fmt" --encoding $enc $opts $in "$o")
			eval "sz_$enc=$(stat -c %s "$o")"
			eval "imp_$enc=\$(awk -v b=$tb -v s=$it 'BEGIN{printf \"%.0f\", b/s/1e6}')"
			if [ -z "${ENC_SKIP_TIMES:-}" ]; then
				eval "load_$enc=\$(\"$ROOT/build/bench_load\" \"$o\" 2>/dev/null | awk '{print \$1}')"
				st=-
				if [ "$fmt" = libsvm ]; then
					st=$(t "$H" train --quiet --stream --epochs 3 --data "$o")
					st=$(awk -v s=$st 'BEGIN{printf "%.2f", s/3}')
				fi
				eval "st_$enc=$st"
			fi
			cp "$o" "$WORK/enc_$enc.keep.lmdb"
		done
		line="$line | $(awk -v b=$sz_raw 'BEGIN{printf "%.2f", b/1e6}') | $(awk -v b=$sz_packed 'BEGIN{printf "%.2f", b/1e6}')"
		line="$line | $(awk -v a=$sz_raw -v b=$sz_packed 'BEGIN{printf "%.2fx", a/b}')"
		if [ -z "${ENC_SKIP_TIMES:-}" ]; then
			line="$line | $imp_raw / $imp_packed | $load_raw / $load_packed | $st_raw / $st_packed |"
		else
			line="$line | - | - | - |"
		fi
		echo "$line"
	done
} | tee -a "$OUT"
