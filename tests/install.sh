#!/bin/sh
# make install into a temporary PREFIX, then what a user of the library does: a
# small C program compiled against the installed header and library through
# pkg-config, linked shared and static, generating a data set and training on
# it; the installed programs run from there (hogwild finds its CUDA plugin in
# PREFIX/lib/hogwild); make uninstall leaves no file behind.
#
#   sh tests/install.sh        (make install-test; run from the source tree)
set -u
cd "$(dirname "$0")/.." || exit 2
P=$(mktemp -d "${TMPDIR:-/tmp}/hogwild-install.XXXXXX") || exit 2
trap 'rm -rf "$P"' EXIT
PASS=0 FAILED=0
ok() { PASS=$((PASS + 1)); echo "ok - install: $1"; }
no() { FAILED=$((FAILED + 1)); echo "FAIL - install: $1"; [ -s "$P/err" ] && sed -n '1,6s/^/    | /p' "$P/err"; }
t() { name=$1; shift; if "$@" >"$P/out" 2>"$P/err"; then ok "$name"; else no "$name"; fi; }

t "make install PREFIX=..." make --no-print-directory install PREFIX="$P/usr"
for f in bin/hogwild lib/libhogwild.a lib/libhogwild.so.0 lib/libhogwild.so include/hogwild.h include/hogwild_data.h include/hogwild_backend.h \
         lib/pkgconfig/hogwild.pc share/man/man1/hogwild.1; do
	t "installs $f" test -e "$P/usr/$f"
done
[ -x hogwild-mpi ] && t "installs bin/hogwild-mpi" test -x "$P/usr/bin/hogwild-mpi"
t "the installed hogwild runs" "$P/usr/bin/hogwild" --version
if [ -f libhogwild-cuda.so ]; then
	t "installs the CUDA plugin" test -f "$P/usr/lib/hogwild/libhogwild-cuda.so"
	# found from the installed program (../lib/hogwild), not the build tree
	t "the installed hogwild finds its plugin" sh -c "'$P/usr/bin/hogwild' topo --threads 1 | grep -E '^(gpu 0|gpus: none)' | grep -qv 'no CUDA backend'"
fi

cat >"$P/prog.c" <<'PROG'
#include <hogwild.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .seed = 7, .examples = 4000, .features = 200,
	                   .nnz_per_example = 10, .noise = 0.01 };
	hog_err err = { 0 };
	hog_data *d = NULL;
	hog_train_opts o;
	hog_train_result r;
	hog_model *m = NULL;
	if (argc < 2 || hog_gen(argv[1], &g, &err) || hog_data_load(&d, argv[1], &err))
		return fprintf(stderr, "prog: %s\n", err.msg), 1;
	hog_train_opts_init(&o);
	o.threads = 2;
	o.epochs = 3;
	o.bind = HOG_BIND_NONE;
	if (hog_train(d, NULL, &o, &m, &r, &err))
		return fprintf(stderr, "prog: %s\n", err.msg), 1;
	printf("%s %d %.6f\n", HOG_VERSION_STRING, r.epochs_done, r.last.train_loss);
	hog_model_free(m);
	hog_data_free(d);
	return !(r.last.train_loss < 0.5); /* logistic loss starts at log 2 = 0.69 */
}
PROG
PC="env PKG_CONFIG_PATH=$P/usr/lib/pkgconfig pkg-config"
t "pkg-config knows hogwild" $PC --exists hogwild
CFL=$($PC --cflags hogwild) LIBS=$($PC --libs hogwild) SLIBS=$($PC --static --libs hogwild)
t "a program links the shared library" cc -std=c11 $CFL -o "$P/prog_so" "$P/prog.c" $LIBS -Wl,-rpath,"$P/usr/lib"
t "... which is the installed one" sh -c "ldd '$P/prog_so' | grep -q '$P/usr/lib/libhogwild.so.0'"
t "... and trains" "$P/prog_so" "$P/a.lmdb"
if [ -f libhogwild-cuda.so ]; then
	# a program of the user's, elsewhere, finds the plugin through the shared library
	cat >"$P/gpus.c" <<'PROG'
#include <hogwild.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	hog_gpu g[4];
	int n = 0;
	char why[512] = "";
	hog_backend_gpus(g, 4, &n, why, sizeof why);
	printf("%d %s\n", n, why);
	return n == 0 && strstr(why, "no CUDA backend") != NULL;
}
PROG
	t "a program on the shared library finds the plugin in LIBDIR/hogwild" sh -c \
		"cc -std=c11 $CFL -o '$P/gpus' '$P/gpus.c' $LIBS -Wl,-rpath,'$P/usr/lib' && env -u HOG_CUDA_PLUGIN '$P/gpus'"
fi
SLIBS=$(echo "$SLIBS" | sed 's/-lhogwild/-Wl,-Bstatic -lhogwild -Wl,-Bdynamic/')
t "a program links the static library" cc -std=c11 $CFL -o "$P/prog_a" "$P/prog.c" $SLIBS
t "... with no libhogwild.so" sh -c "[ -x '$P/prog_a' ] && ! ldd '$P/prog_a' | grep -q libhogwild"
t "... and trains" "$P/prog_a" "$P/b.lmdb"

t "make uninstall" make --no-print-directory uninstall PREFIX="$P/usr"
t "... leaves no file" sh -c "[ -z \"\$(find '$P/usr' -type f -o -type l)\" ]"
echo "install: $PASS passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
