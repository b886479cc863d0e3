#!/bin/sh
# Exit 0 when clang can build a libFuzzer program here (clang and its runtime,
# libclang-rt-NN-dev, are both installed), 1 otherwise.
command -v clang >/dev/null 2>&1 || exit 1
d=$(mktemp -d) || exit 1
printf 'int LLVMFuzzerTestOneInput(const unsigned char *p, unsigned long n) { (void)p; (void)n; return 0; }\n' >"$d/f.c"
clang -fsanitize=fuzzer -o "$d/f" "$d/f.c" >/dev/null 2>&1
rc=$?
rm -rf "$d"
exit $rc
