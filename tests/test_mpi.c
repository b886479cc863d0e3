/* The pieces of MPI training that one process can test (the runs on several
 * ranks are in tests/cli.sh under mpirun): how examples are dealt over ranks
 * and their workers (every example once, contiguous, balanced; one rank the
 * same as before), the collectives when MPI is not started (one rank: the
 * identity), a rank team that cannot be formed, and --no-shuffle against a
 * plain SGD loop over the data set's order written here. */
#include "hogwild.h"
#include "sys/mpi.h"
#include "train/engine.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_mpi_share(void)
{
	static const uint64_t ns[] = { 0, 1, 7, 100, 1001, 65537 };
	for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
		for (int R = 1; R <= 5; R++)
			for (int T = 1; T <= 4; T++) {
				const uint64_t n = ns[a];
				uint64_t next = 0, small = UINT64_MAX, big = 0;
				for (int r = 0; r < R; r++) {
					hog_engine e;
					memset(&e, 0, sizeof e);
					e.rank = r;
					e.ranks = R;
					e.T = T;
					uint64_t rank_n = 0;
					for (int k = 0; k < T; k++) {
						eng_worker w;
						memset(&w, 0, sizeof w);
						w.id = k;
						uint64_t lo, hi;
						eng_worker_share(&e, &w, n, &lo, &hi);
						CU_ASSERT_EQUAL(lo, next); /* contiguous, in rank then worker order */
						CU_ASSERT_TRUE(hi >= lo);
						next = hi;
						rank_n += hi - lo;
						if (R == 1) {
							uint64_t l1, h1;
							eng_share(n, k, T, &l1, &h1);
							CU_ASSERT_TRUE(l1 == lo && h1 == hi);
						}
					}
					small = rank_n < small ? rank_n : small;
					big = rank_n > big ? rank_n : big;
				}
				CU_ASSERT_EQUAL(next, n); /* every example exactly once */
				CU_ASSERT_TRUE(big - small <= 1); /* ranks' slices differ by one at most */
			}
}

static void test_mpi_not_started(void)
{
	hog_err err = { 0 };
	CU_ASSERT_EQUAL(hog_mpi_rank(), 0);
	CU_ASSERT_EQUAL(hog_mpi_size(), 1);
	CU_ASSERT_EQUAL(hog_mpi_world(), 1);
	float f[3] = { 1.5f, -2.0f, 3.25f };
	double d[2] = { 0.125, 7.0 };
	int k[2] = { 0, 3 };
	CU_ASSERT_EQUAL(hog_mpi_sum_f32(f, 3, &err), 0);
	CU_ASSERT_EQUAL(hog_mpi_sum_f64(d, 2, &err), 0);
	CU_ASSERT_EQUAL(hog_mpi_sum_to_rank0_f32(f, 3, &err), 0);
	CU_ASSERT_EQUAL(hog_mpi_max_int(k, 2, &err), 0);
	CU_ASSERT_TRUE(f[0] == 1.5f && f[1] == -2.0f && f[2] == 3.25f);
	CU_ASSERT_TRUE(d[0] == 0.125 && d[1] == 7.0);
	CU_ASSERT_TRUE(k[0] == 0 && k[1] == 3);
	uint64_t v[2] = { 5, 9 }, lo[2], hi[2];
	CU_ASSERT_EQUAL(hog_mpi_minmax_u64(v, lo, hi, 2, &err), 0);
	CU_ASSERT_TRUE(lo[0] == 5 && hi[0] == 5 && lo[1] == 9 && hi[1] == 9);
	CU_ASSERT_EQUAL(hog_mpi_team(1, &err), 1);
	CU_ASSERT_TRUE(hog_mpi_team(2, &err) < 0); /* one process cannot make a team of two */
	CU_ASSERT_TRUE(strstr(err.msg, "2") != NULL);
	CU_ASSERT_EQUAL(hog_mpi_team(0, &err), 1);
	CU_ASSERT_EQUAL(hog_mpi_size(), 1);
}

/* --no-shuffle: serial SGD over the examples in file order, against a loop. */
static void test_mpi_no_shuffle_order(void)
{
	hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .seed = 9, .examples = 500, .features = 60,
	                   .nnz_per_example = 6, .noise = 0.02 };
	hog_err err = { 0 };
	const char *path = tu_path("mpi_order.lmdb");
	hog_data *d = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_gen(path, &g, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, path, &err), 0);
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.mode = HOG_MODE_SERIAL;
	o.epochs = 2;
	o.lr = 0.3;
	o.l2 = 0;
	o.sched = HOG_SCHED_CONSTANT;
	o.bind = HOG_BIND_NONE;
	o.no_shuffle = 1;
	hog_model *m = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &o, &m, NULL, &err), 0);
	/* the reference: w and the bias, example 0, 1, 2 ... every epoch */
	double *w = calloc(d->dim, sizeof *w), b = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	for (int ep = 0; ep < 2; ep++)
		for (uint64_t i = 0; i < d->n; i++) {
			double mg = b, y = d->labels[i];
			for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++)
				mg += w[d->ids[j]] * (d->vals ? d->vals[j] : 1.0);
			double gr = -y / (1.0 + exp(y * mg));
			b -= 0.3 * gr;
			for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++)
				w[d->ids[j]] -= 0.3 * gr * (d->vals ? d->vals[j] : 1.0);
		}
	float *pred = malloc(d->n * sizeof *pred);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pred);
	CU_ASSERT_EQUAL(hog_model_predict(m, d, pred, &err), 0);
	double worst = 0;
	for (uint64_t i = 0; i < d->n; i++) {
		double mg = b;
		for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++)
			mg += w[d->ids[j]] * (d->vals ? d->vals[j] : 1.0);
		worst = fmax(worst, fabs(mg - pred[i]));
	}
	CU_ASSERT_TRUE(worst < 1e-4);
	/* and a shuffled run is another run (the option does something) */
	o.no_shuffle = 0;
	hog_model *m2 = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &o, &m2, NULL, &err), 0);
	float *pred2 = malloc(d->n * sizeof *pred2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pred2);
	CU_ASSERT_EQUAL(hog_model_predict(m2, d, pred2, &err), 0);
	double diff = 0;
	for (uint64_t i = 0; i < d->n; i++)
		diff = fmax(diff, fabs((double)pred2[i] - pred[i]));
	CU_ASSERT_TRUE(diff > 1e-3);
	free(pred);
	free(pred2);
	free(w);
	hog_model_free(m);
	hog_model_free(m2);
	hog_data_free(d);
}

int test_mpi_register(void)
{
	CU_pSuite s = CU_add_suite("mpi", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_mpi_share);
	TU_ADD(s, test_mpi_not_started);
	TU_ADD(s, test_mpi_no_shuffle_order);
	return 0;
}
