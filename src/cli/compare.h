/* The compare driver's data: a plan (what to run), cells (one per mode and thread
 * count, with their repeated runs and per-epoch figures), and the report writers
 * (table, CSV, JSON, gnuplot plots). Used by `compare` and `demo`. */
#ifndef HOG_CLI_COMPARE_H
#define HOG_CLI_COMPARE_H
#include "hogwild.h"
#include <stdio.h>

#define CMP_MAX_MODES 8
#define CMP_MAX_THREADS 16
#define CMP_MAX_EPOCHS 1000
#define CMP_AUTO_SECONDS 0.5     /* --repeat not given: a serial run shorter than this is repeated */
#define CMP_AUTO_MAX 7           /* ... at most this many times */

typedef struct cmp_run {
	enum hog_mode mode;
	int threads, rep, reps, show, diverged;
	int nepochs;
	hog_epoch_stats epochs[CMP_MAX_EPOCHS];
} cmp_run;

typedef struct cmp_cell {
	enum hog_mode mode;
	int threads;
	int ranks;               /* MPI ranks (1: this process alone) */
	cmp_run *runs;
	int nruns, done;
	int ndiverged;           /* runs that diverged (left out of the figures) */
	uint64_t examples, nnz;  /* per epoch */
	double epoch_s;          /* median time per epoch */
	double train_loss, test_loss, test_acc, test_rmse, time_to_target, bias_lost;
	double delay_mean, delay_p99, delay_max;
	int curve;               /* the run whose epochs the plot and --json show: the one whose final
	                            loss is the median's (nearest it for an even count); -1: none */
} cmp_cell;

typedef struct cmp_plan {
	hog_train_opts base;
	int modes[CMP_MAX_MODES], nmodes;
	int threads[CMP_MAX_THREADS], nthreads;
	int ranks[CMP_MAX_THREADS], nranks; /* --ranks (none: 1) */
	int repeat, quiet;       /* repeat 0: chosen after the first round (cmp_run_plan) */
	int repeat_auto;         /* it was chosen so (the report says why) */
	double target;           /* NAN: 1% above the serial run's final loss */
	const char *csv, *json, *plot;
} cmp_plan;

typedef struct cmp_report {
	const cmp_plan *plan;
	cmp_cell *cells;         /* cells[0] is the serial reference */
	int ncells;              /* cells that finished */
	double target;
	double lr;               /* the step size the runs used (after the model's default) */
	enum hog_loss loss;      /* the loss they used */
	const char *data;
	const hog_data *train, *test;
} cmp_report;

/** Runs the plan and prints/writes the report. Returns the exit code. */
int cmp_run_plan(cmp_plan *p, const hog_data *tr, const hog_data *te, const char *data_name);
void cmp_print_table(const cmp_report *r, FILE *f);
/** CSV, JSON and plots as the plan asks. Returns 0 or 1. */
int cmp_write_files(const cmp_report *r);
#endif
