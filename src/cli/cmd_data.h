/* What the files of `hogwild data` share: cmd_data.c (import, gen, verify,
 * split, export and the dispatch) and cmd_data_info.c (info). */
#ifndef HOG_CLI_CMD_DATA_H
#define HOG_CLI_CMD_DATA_H
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
int data_opt_error(const char *cmd, const char *usage, int c, char **argv);

/* Strict whole numbers in [lo, hi]; returns 0 or 2 after printing the usage. */
int data_u64(const char *cmd, const char *usage, const char *opt, const char *s, uint64_t lo,
             uint64_t hi, uint64_t *out);

/* hogwild data info */
int data_info(int argc, char **argv);
/* A multiclass set's examples of each class into *@p out (malloc'd, the
 * meta's classes of them), a block at a time: 0 or the store's codes. */
struct hog_store;
struct hog_err;
int data_class_sizes(struct hog_store *s, uint64_t **out, struct hog_err *err);

#endif
