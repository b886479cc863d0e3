/* The training options shared by `hogwild train` and `hogwild compare`: one
 * table, one parser, one usage text, so the two commands cannot drift apart. */
#ifndef HOG_CLI_TRAIN_OPTS_H
#define HOG_CLI_TRAIN_OPTS_H
#include "cli/cli.h"

enum {
	OPT_DATA = 1000, OPT_TEST, OPT_MODEL, OPT_LOSS, OPT_MODE, OPT_THREADS, OPT_EPOCHS, OPT_LR,
	OPT_SCHEDULE, OPT_BACKOFF, OPT_T0, OPT_WARMUP, OPT_L2, OPT_OPTIMIZER, OPT_ADAGRAD_BETA,
	OPT_DELAY, OPT_HOT, OPT_FLUSH_EVERY, OPT_NODE_SYNC, OPT_STRIPE_SIZE, OPT_BIND, OPT_SEED, OPT_MEASURE_DELAY,
	OPT_TOPOLOGY, OPT_QUIET, OPT_CONFIG, OPT_SYNC_EVERY, OPT_NO_SHUFFLE, OPT_AVERAGE, OPT_NORMALIZE,
	OPT_LAYERS, OPT_BATCH, OPT_MOMENTUM, OPT_DEVICE,
	OPT_RANK, OPT_BIASES, OPT_GRID,
	OPT_TRAIN_LAST
};

/* hog_train_opts_init() and the command line's own defaults, chosen from
 * measurements (bench/results/average.md): --average on. */
void cli_train_opts_init(hog_train_opts *o);

/* The long options every training command takes (terminated by a zero entry).
 * Commands copy these into their own table and add theirs. */
extern const struct option cli_train_long[];
extern const size_t cli_train_nlong;

/* Fills @p out (room for @p cap entries) with the shared options followed by a
 * command's own (@p own, ending in a zero entry) and a terminating zero entry.
 * Returns the number of options. */
size_t cli_train_table(struct option *out, size_t cap, const struct option *own);

/* What the shared options set besides hog_train_opts. */
typedef struct cli_train_args {
	const char *data, *test, *model;
	const char *mode;   /* --mode as given; NULL: the model's default (hog_train_default_mode) */
	int quiet;
} cli_train_args;

/* Applies option @p c (one of OPT_*) with argument @p arg. Returns 0, or an exit
 * code after printing the problem (2 for a bad value). */
int cli_train_option(const char *cmd, int c, const char *arg, hog_train_opts *o, cli_train_args *a);

/* The usage lines of the shared options, with their defaults. */
extern const char cli_train_usage[];

/* Loads the training (and test) data sets named in @p a. Returns 0 or an exit code. */
int cli_load_data(const char *cmd, const cli_train_args *a, hog_data **tr, hog_data **te, int quiet);

/* Under mpirun: starts MPI (a build without MPI refuses to run as several
 * ranks, which would each train alone). Returns 0 or an exit code after
 * printing the problem. */
int cli_mpi_start(const char *cmd);

/* Installs SIGINT/SIGTERM handlers that set *cli_stop_flag() to the signal. */
volatile int *cli_stop_flag(void);
void cli_catch_signals(void);
#endif
