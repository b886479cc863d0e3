/* What the files of `hogwild data` share: cmd_data.c (import, gen, verify,
 * split, export and the dispatch) and cmd_data_info.c (info). */
#ifndef HOG_CLI_CMD_DATA_H
#define HOG_CLI_CMD_DATA_H
#include "hogwild.h"
#include <getopt.h>
#include <stdint.h>

typedef unsigned long long ull;

/* Long-only options get values above any character. */
enum { OPT_LABEL_COL = 256, OPT_HEADER, OPT_DELIM, OPT_MAX_LINE, OPT_NNZ, OPT_ZIPF, OPT_NOISE,
       OPT_BINARY, OPT_USERS, OPT_ITEMS, OPT_RANK, OPT_CLASSES, OPT_SAMPLE, OPT_SKIP,
       OPT_NO_LABEL, OPT_BITS, OPT_QUADRATIC, OPT_WEIGHT_COL, OPT_WEIGHTS,
       OPT_VALUE_PRECISION, OPT_ENCODING, OPT_ZERO_BASED,
       OPT_MISSING, OPT_IGNORE_COL };

/* Reports what getopt_long stopped at (':' missing value, '?' unknown option),
 * naming the option as the user wrote it. Returns 2. */
int data_opt_error(const char *cmd, const char *usage, const struct option *lo, int c, char **argv);

/* Strict whole numbers in [lo, hi]; returns 0 or 2 after printing the usage. */
int data_u64(const char *cmd, const char *usage, const char *opt, const char *s, uint64_t lo,
             uint64_t hi, uint64_t *out);

/* A byte count with an optional K, M or G suffix (powers of 1024); 0 or 2. */
int data_size(const char *cmd, const char *usage, const char *opt, const char *s, uint64_t *out);
/* The position of @p s in the '|'-separated @p names into *@p k, or 2 after a usage error. */
int data_pick(const char *cmd, const char *usage, const char *opt, const char *s, const char *names, int *out);
/* Refuses to replace what is not a data set of ours (the last operand of a
 * mistyped command line is often an input): 0, or 1 after a message. */
int data_check_output(const char *cmd, const char *path);
/* Runs an import (@p io) or a generator (@p go) with a progress line, then
 * prints "OUT: counts; ..."; 0 or the exit status. */
int data_make(const char *out, const char *label, hog_import_opts *io, hog_gen_opts *go, char **in, int nin,
              int quiet, uint64_t bytes);

/* hogwild data import (cmd_data_import.c) */
int data_import(int argc, char **argv);
/* hogwild data info */
int data_info(int argc, char **argv);

#endif
