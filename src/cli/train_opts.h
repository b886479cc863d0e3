/* The training options shared by `hogwild train` and `hogwild compare`: one
 * table (opts.h: names, help, where each applies), one parser of their values,
 * one refusal of an option a run would ignore, so the commands cannot drift. */
#ifndef HOG_CLI_TRAIN_OPTS_H
#define HOG_CLI_TRAIN_OPTS_H
#include "cli/cli.h"
#include "cli/opts.h"

/* hog_train_opts_init() and the command line's own defaults, chosen from
 * measurements (bench/results/average.md): --average on. */
void cli_train_opts_init(hog_train_opts *o);

/* What the shared options set besides hog_train_opts. */
typedef struct cli_train_args {
	const char *data, *test, *model;
	const char *mode;   /* --mode as given; NULL: the model's default (hog_train_default_mode) */
	int quiet;
	int strict;      /* --strict: a test set that may hold training examples is refused */
	cli_given given; /* the options given (cli_given_set, by the command's loop) */
} cli_train_args;

/* Applies option @p c (one of OPT_*) with argument @p arg. Returns 0, or an exit
 * code after printing the problem (2 for a bad value). */
int cli_train_option(const char *cmd, int c, const char *arg, hog_train_opts *o, cli_train_args *a);

/* @p data's header into @p m (for the default mode: hog_train_default_mode_data).
 * 1 when read; 0 when @p data is NULL or cannot be read (its loading says why). */
int cli_data_meta(const char *data, hog_meta *m);

/* The loss a run takes from its training set's task (@p data's header), set in
 * @p o before its default mode is chosen and its options checked: a
 * multiclass set trains as the mlp (--loss softmax), whose modes and default
 * differ from the linear model's. Nothing when --loss was given or the set
 * cannot be read (its loading says why). The engine notes the loss it took.
 * Likewise the model, when --model is not in @p given: a set of ratings trains
 * matrix factorization (the one model that takes ratings), and a note on
 * stderr says so unless @p quiet. */
void cli_task_loss(hog_train_opts *o, const char *data, const cli_given *given, const char *cmd, int quiet);

/* Refuses (exit 2, naming the option and why) an option given to @p cmd
 * (CLI_TRAIN, CLI_COMPARE, CLI_TUNE) that the run @p o, training in @p modes,
 * would ignore (cli_opt_check), then a --device that does not open. Returns 0
 * or 2. */
int cli_train_refuse(unsigned cmd, const hog_train_opts *o, unsigned modes, const cli_given *given);

/* Loads the training (and test) data sets named in @p a. Returns 0 or an exit code. */
int cli_load_data(const char *cmd, const cli_train_args *a, hog_data **tr, hog_data **te, int quiet);
/* Puts test set @p te (file @p ten) in the terms of training set @p tr (file
 * @p trn; NULL: read its header from trn, for --stream), or refuses it; notes
 * what did not fit, and a test set that may hold training examples
 * (cli_split_overlap: refused when @p strict). Returns 0 or an exit code
 * after the message. */
int cli_match_test(const char *cmd, const hog_data *tr, const char *trn, hog_data *te, const char *ten, int quiet,
                   int strict);

/* train's held-out set read a chunk at a time (train_held.c): matched to the
 * training set once, evaluated after every epoch (hog_train_opts.test_eval). */
typedef struct cli_held {
	hog_chunks *c;
	hog_data_match *x;
	const char *path;
	int passes;
	hog_data_fit fit;   /* what did not fit, counted on the first pass */
} cli_held;
/* Whether held-out set @p path is read a chunk at a time: asked (@p stream),
 * or it would not fit (cli_stream_auto(), which says so). */
int cli_held_wanted(const char *cmd, const char *path, int stream);
/* Opens @p path and matches it to training set @p tr (file @p trn; NULL: its
 * header read from trn) as cli_match_test() does. Returns 0 or an exit code
 * after the message (cli_held_close() it either way). */
int cli_held_open(cli_held *h, const char *cmd, const hog_data *tr, const char *trn, const char *path, int strict);
/* The figures of model @p m on the whole set (hog_train_opts.test_eval's work). */
int cli_held_eval(cli_held *h, const hog_model *m, hog_eval *ev, hog_err *err);
/* Notes what did not fit (unless @p quiet; after a pass) and frees. */
void cli_held_close(cli_held *h, const char *cmd, const char *trn, int quiet);

/* Under mpirun: starts MPI (a build without MPI refuses to run as several
 * ranks, which would each train alone). Returns 0 or an exit code after
 * printing the problem. */
int cli_mpi_start(const char *cmd);

/* Installs SIGINT/SIGTERM handlers that set *cli_stop_flag() to the signal. */
volatile int *cli_stop_flag(void);
void cli_catch_signals(void);
/* A set whose epoch is small (under 2^17 nonzeros, sparse or dense): its
 * nonzeros (at least 1), else 0. Without --mode or --threads such a set trains
 * as one sequence (serial) where the options allow (cli_small_serial_fits):
 * train's default, which tune --save follows so that its model is the one
 * `train -c` of its config makes. */
uint64_t cli_small_epoch(const hog_meta *m);
/* Whether the run's options all apply to serial mode (a small set's default
 * with no --mode and no --threads): an option given for the parallel modes
 * (--flush-every, --shards, ...) keeps the parallel default instead of a
 * refusal. */
int cli_small_serial_fits(const hog_train_opts *o, const cli_given *given);

#endif
