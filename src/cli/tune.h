/* hogwild tune: the search space (the values of each searched option), the
 * trials (one configuration at one rung of successive halving) and the held-out
 * plan (k folds, or one validation set), shared by cmd_tune.c (the command
 * line, the report and the files written) and tune_run.c (the space's parsing,
 * the folds and the teams that run the trials side by side). */
#ifndef HOG_CLI_TUNE_H
#define HOG_CLI_TUNE_H
#include "cli/train_opts.h"
#include <stdatomic.h>

#define TUNE_MAX_VALUES 16
#define TUNE_MAX_FOLDS 64

/* The searched options, in the order the table shows them. */
enum { TP_LR, TP_L2, TP_L1, TP_RANK, TP_LAYERS, TP_N };

/* One searched option's values. */
typedef struct tune_axis {
	int n;                          /* 0: not searched by this model (the option as given) */
	int given;                      /* the user gave the values (else the model's defaults) */
	int rel;                        /* lr: the values are multiples of the model's default step */
	double v[TUNE_MAX_VALUES];      /* lr, l2, l1, rank: the values (lr absolute after tune_resolve) */
	char layers[TUNE_MAX_VALUES][64]; /* TP_LAYERS: each choice as written ("128,128", "none") */
} tune_axis;

/* A configuration: an index into each axis (0 where not searched). */
typedef struct tune_cfg {
	int at[TP_N];
} tune_cfg;

/* One trial: a configuration trained for a rung's epochs, on every fold. */
typedef struct tune_trial {
	int cfg, rung, epochs;
	int folds_done, diverged, stopped;
	double loss, acc, auc, rmse;    /* the held-out figures, means over the folds */
	double epochs_run;              /* mean over the folds (the best epoch with --early-stop) */
	double seconds;                 /* training time summed over the folds */
	double metric;                  /* what is minimised: loss, -acc, -auc or rmse (INFINITY: no figure) */
} tune_trial;

/* One training: a trial's fold. */
typedef struct tune_item {
	int trial, fold;
	int rc;                         /* hog_train's code; -1 until it ran */
	int epochs_run;
	double loss, acc, auc, rmse, seconds;
} tune_item;

typedef enum { TM_LOSS, TM_ACC, TM_AUC, TM_RMSE } tune_metric;

typedef struct tune_plan {
	hog_train_opts base;            /* the options every trial shares (the fixed ones given) */
	tune_axis ax[TP_N];
	int folds;                      /* k-fold cross-validation (0: a validation set) */
	double vfrac;                   /* --validation FRACTION (0: a file, or folds) */
	const char *validation;         /* --validation FILE */
	int threads, teams, rungs;      /* workers a trial, trials at once, halving rounds */
	double budget;                  /* seconds (0: none) */
	tune_metric metric;
	int quiet;
	/* the sets: one per fold (or one pair), loaded once, shared read-only by the teams */
	hog_data *train[TUNE_MAX_FOLDS], *held[TUNE_MAX_FOLDS];
	int nsets;
	const hog_data *borrowed;       /* train[0] when it is --data itself (not freed here) */
	/* the search's state */
	tune_cfg *cfgs;
	int ncfgs;
	tune_trial *trials;
	int ntrials, cap;
	int best;                       /* the winning trial (-1: none finished) */
	int dflt;                       /* the configuration train's defaults are (-1: not in the grid),
	                                   which goes on to the last round whatever its early figures */
	int budget_hit;
	double t0, seconds;
	volatile int *stop;
} tune_plan;

/* Parses @p arg, the values of searched option @p p ("0.01:1:5", "1e-6,1e-4",
 * "x0.5:x2", "64/128,128"), into @p ax. Returns 0 or 2 after the message. */
int tune_axis_parse(int p, const char *arg, tune_axis *ax);
/* The model's default values of the options the user did not give, the lr's
 * multiples turned into steps (the default step on @p full, the whole --data). */
int tune_resolve(tune_plan *pl, const hog_data *full);
/* Cuts --data (@p full) into the plan's sets: k folds (each example held out
 * once) or a validation fraction. Returns 0 or an exit code. */
int tune_cut(tune_plan *pl, const hog_data *full);
/* The fold's held-out examples: @p idx (room for n) gets the examples of @p full
 * that fold @p f of @p k holds out, in the set's order, for @p seed. Returns
 * their count. (Exposed for the tests: every example is held out once.) */
uint64_t tune_fold(uint64_t n, int k, int f, uint64_t seed, uint64_t *idx);
/* The examples at positions [lo, hi) of a shuffle of 0..n-1 by @p seed, in the
 * set's order (@p in: 1) or the others (@p in: 0), into @p idx (room for n).
 * Returns their count (0 out of memory). */
uint64_t tune_cut_ids(uint64_t n, uint64_t lo, uint64_t hi, uint64_t seed, int in, uint64_t *idx);
/* Runs the search: every rung's trials on the teams. Returns 0, or an exit code. */
int tune_search(tune_plan *pl);
/* The options of configuration @p c on top of the plan's base. */
void tune_apply(const tune_plan *pl, int c, hog_train_opts *o);
/* The value of option @p p in configuration @p c as the config file writes it
 * (what `train` parses back to the same double). */
void tune_value(const tune_plan *pl, int c, int p, char *buf, size_t n);
/* The option's name (lr, l2, l1, rank, layers). */
const char *tune_axis_name(int p);
void tune_plan_free(tune_plan *pl);
#endif
