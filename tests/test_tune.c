/* hogwild tune's pieces that need no data: the folds (every example held out
 * exactly once, the folds' sizes within one, the same folds for one seed) and
 * tune's part of the option table (its own entries, the training options it
 * takes from train and compare). The search itself is checked end to end in
 * tests/cli.sh (rows equal to train runs, the config file's round trip). */
#include "cli/opts.h"
#include "cli/tune.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

static void test_folds_partition(void)
{
	static const uint64_t ns[] = { 2, 3, 7, 10, 64, 101, 1000 };
	static const int ks[] = { 2, 3, 5, 10 };
	for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
		for (size_t b = 0; b < sizeof ks / sizeof *ks; b++) {
			const uint64_t n = ns[a];
			const int k = ks[b];
			if ((uint64_t)k > n)
				continue;
			int *seen = calloc(n, sizeof *seen);
			uint64_t *idx = malloc(n * sizeof *idx), *idx2 = malloc(n * sizeof *idx2);
			CU_ASSERT_FATAL(seen && idx && idx2);
			for (int f = 0; f < k; f++) {
				uint64_t m = tune_fold(n, k, f, 42, idx);
				CU_ASSERT(m >= n / (uint64_t)k && m <= n / (uint64_t)k + 1);
				for (uint64_t i = 0; i < m; i++) {
					CU_ASSERT(idx[i] < n);
					if (i)
						CU_ASSERT(idx[i] > idx[i - 1]); /* in the set's order */
					seen[idx[i]]++;
				}
				/* the same seed, the same fold; its complement is the rest */
				CU_ASSERT_EQUAL(tune_fold(n, k, f, 42, idx2), m);
				CU_ASSERT(memcmp(idx, idx2, m * sizeof *idx) == 0);
				uint64_t lo = n * (uint64_t)f / (uint64_t)k, hi = n * (uint64_t)(f + 1) / (uint64_t)k;
				CU_ASSERT_EQUAL(tune_cut_ids(n, lo, hi, 42, 0, idx2), n - m);
			}
			for (uint64_t i = 0; i < n; i++)
				CU_ASSERT_EQUAL(seen[i], 1); /* held out exactly once */
			free(seen);
			free(idx);
			free(idx2);
		}
	/* another seed, other folds */
	uint64_t x[100], y[100];
	uint64_t m = tune_fold(100, 4, 0, 1, x);
	CU_ASSERT(m == tune_fold(100, 4, 0, 2, y) && memcmp(x, y, m * sizeof *x) != 0);
}

static void test_tune_options(void)
{
	/* tune's own versions of the searched options, and of --threads and --mode */
	const int own[] = { OPT_LR, OPT_L2, OPT_L1, OPT_RANK, OPT_LAYERS, OPT_THREADS, OPT_MODE, OPT_SAVE,
	                    OPT_VALIDATION, OPT_EARLY_STOP, OPT_JSON, OPT_FOLDS, OPT_BUDGET, OPT_SAVE_CONFIG,
	                    OPT_METRIC, OPT_TEAMS, OPT_RUNGS };
	for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
		const cli_opt *op = cli_opt_find(CLI_TUNE, own[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(op);
		CU_ASSERT_EQUAL(op->cmds, CLI_TUNE);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(cli_opt_find(CLI_TUNE, OPT_LR)->help, "to try"));
	/* train's and compare's shared options, but not one command's own */
	CU_ASSERT_PTR_NOT_NULL(cli_opt_find(CLI_TUNE, OPT_HOT));
	CU_ASSERT_PTR_NOT_NULL(cli_opt_find(CLI_TUNE, OPT_EPOCHS));
	CU_ASSERT_PTR_NOT_NULL(cli_opt_find(CLI_TUNE, OPT_SEED));
	CU_ASSERT_PTR_NULL(cli_opt_find(CLI_TUNE, OPT_MODES));
	CU_ASSERT_PTR_NULL(cli_opt_find(CLI_TUNE, OPT_CHECKPOINT));
	CU_ASSERT_PTR_NULL(cli_opt_find(CLI_TUNE, OPT_REPEAT));
	CU_ASSERT_PTR_NULL(cli_opt_find(CLI_TRAIN, OPT_FOLDS));
	CU_ASSERT_PTR_NULL(cli_opt_find(CLI_COMPARE, OPT_SAVE_CONFIG));
	/* train still has its own --lr */
	CU_ASSERT_EQUAL(cli_opt_find(CLI_TRAIN, OPT_LR)->cmds, CLI_TRAIN | CLI_COMPARE);
	/* the getopt table: unique names */
	struct option lo[100];
	size_t n = cli_opt_getopt(CLI_TUNE, lo, 100);
	CU_ASSERT(n > 30 && n < 99);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			CU_ASSERT(strcmp(lo[i].name, lo[j].name) != 0);
	/* --l1 is the linear model's, --rank mf's, in tune too */
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = HOG_MODEL_MF;
	o.loss = HOG_LOSS_SQUARED;
	cli_given g;
	memset(&g, 0, sizeof g);
	cli_given_set(&g, OPT_L1);
	char msg[512];
	CU_ASSERT_EQUAL(cli_opt_check(CLI_TUNE, &o, 1u << HOG_MODE_SERIAL, &g, msg, sizeof msg), OPT_L1);
	memset(&g, 0, sizeof g);
	cli_given_set(&g, OPT_RANK);
	CU_ASSERT_EQUAL(cli_opt_check(CLI_TUNE, &o, 1u << HOG_MODE_SERIAL, &g, msg, sizeof msg), -1);
}

int test_tune_register(void)
{
	CU_pSuite s = CU_add_suite("tune", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_folds_partition);
	TU_ADD(s, test_tune_options);
	return 0;
}
