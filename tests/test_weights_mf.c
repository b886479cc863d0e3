/* Example weights in the mf trainer (issue 24; the linear model's are in
 * test_weights.c): a rating's weight multiplies its error's gradient and its
 * loss, in every mf mode.
 *  - duplicating every 3rd rating in place trains to the factors that weight
 *    2 trains (serial, the data's order, a constant step, no l2: the l2 terms
 *    are per touch and not weighted, so with l2 the duplicate pays it twice).
 *    Two SGD steps on a duplicate and one double step differ by O(lr^2) per
 *    visit (the second step sees the first's change), so the two agree to a
 *    tolerance, not to rounding; the unweighted factors are much farther;
 *  - every weight 2 at half the step trains bit for bit as no weights at the
 *    step (sgd, no l2: the weight enters as one product with the error, and
 *    powers of two scale exactly), the weighted kernel's arithmetic checked
 *    against the unweighted one's; a weight-1 set is the unweighted set;
 *  - the training loss is the weighted mean: the duplicate's and weight 2's
 *    agree;
 *  - every mf mode, sgd and AdaGrad, fits the weighted least-squares closed
 *    form: cells rated c - 1 with weight 3 and c + 3 with weight 1 predict c
 *    (the unweighted fit, c + 1);
 *  - --class-weight is refused on ratings, naming it. */
#include "hogwild.h"
#include "model/model.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mixw(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* 1200 ratings of 60 users x 40 items from rank-2 factors plus noise; @p how:
 * 0 plain, 1 every 3rd duplicated in place, 2 every 3rd of weight 2, 3 every
 * weight 1, 4 every weight 2. */
static hog_data *ratings_set(const char *name, int how)
{
	hog_writer_opts wo = { .kind = HOG_KIND_RATINGS, .task = HOG_TASK_RATINGS, .users = 60, .items = 40 };
	hog_writer *w;
	hog_err err;
	const char *path = tu_path(name);
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, path, &wo, &err), 0);
	uint64_t s = 11;
	for (int j = 0; j < 1200; j++) {
		uint32_t u = (uint32_t)(mixw(&s) % 60), i = (uint32_t)(mixw(&s) % 40);
		double n = (double)(mixw(&s) >> 11) / 9007199254740992.0 - 0.5;
		float r = (float)(3.0 + sin(u * 0.7) * cos(i * 1.3) + 0.8 * cos(u * 0.3 + i * 0.2) + 0.5 * n);
		int k = j % 3 == 0;
		for (int rep = 0; rep < 1 + (how == 1 && k); rep++) {
			if ((how == 2 && k) || how == 3 || how == 4)
				CU_ASSERT_EQUAL_FATAL(hog_writer_set_weight(w, how == 3 ? 1.0 : 2.0, &err), 0);
			CU_ASSERT_EQUAL_FATAL(hog_writer_add_rating(w, u, i, r, &err), 0);
		}
	}
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	hog_data *d;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, path, &err), 0);
	return d;
}

static hog_train_opts mf_opts(void)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = HOG_MODEL_MF;
	o.loss = HOG_LOSS_SQUARED;
	o.mf.rank = 4;
	o.mf.biases = 1;
	o.mode = HOG_MODE_SERIAL;
	o.threads = 1;
	o.bind = HOG_BIND_NONE;
	o.no_shuffle = 1;
	o.epochs = 100;
	o.lr = 0.005;
	o.sched = HOG_SCHED_CONSTANT;
	o.l2 = 0;
	o.seed = 3;
	return o;
}

static hog_model *train_mf(const hog_data *tr, const hog_train_opts *o, hog_train_result *res)
{
	hog_model *m = NULL;
	hog_err err = { 0 };
	int rc = hog_train(tr, NULL, o, &m, res, &err);
	if (rc)
		fprintf(stderr, "\ntrain: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return m;
}

/* The largest difference of two models' parameters (factors, biases), and of
 * their global means. */
static double pdist(const hog_model *a, const hog_model *b)
{
	CU_ASSERT_EQUAL_FATAL(a->nparams, b->nparams);
	double d = fabs(a->aux - b->aux);
	for (uint64_t k = 0; k < a->nparams; k++)
		d = fmax(d, fabs((double)a->params[k] - b->params[k]));
	return d;
}

static void test_mf_duplicate_is_weight_two(void)
{
	hog_data *plain = ratings_set("m_plain.lmdb", 0), *dup = ratings_set("m_dup.lmdb", 1),
	         *two = ratings_set("m_two.lmdb", 2), *ones = ratings_set("m_ones.lmdb", 3);
	CU_ASSERT(dup->n == 1600 && two->n == 1200 && two->meta.weighted && fabs(two->meta.weight_sum - 1600) < 1e-9);
	CU_ASSERT(!ones->meta.weighted && ones->weights == NULL);
	hog_train_opts o = mf_opts();
	hog_train_result rp, rd, rt;
	hog_model *mp = train_mf(plain, &o, &rp), *md = train_mf(dup, &o, &rd), *mt = train_mf(two, &o, &rt),
	          *mo = train_mf(ones, &o, NULL);
	double d_dt = pdist(md, mt), d_dp = pdist(md, mp);
	fprintf(stderr, "\n  mf duplicate vs weight 2: %.3g; vs unweighted: %.3g; loss %.6f %.6f (unweighted %.6f)\n",
	        d_dt, d_dp, rd.last.train_loss, rt.last.train_loss, rp.last.train_loss);
	CU_ASSERT(d_dt < 0.01);
	CU_ASSERT(d_dp > 10 * d_dt);
	CU_ASSERT(fabs(md->aux - mt->aux) < 1e-6); /* the mean: weighted */
	/* the loss reported is the weighted mean: the duplicate's, not the unweighted one's */
	CU_ASSERT(fabs(rd.last.train_loss - rt.last.train_loss) < 0.01 * rd.last.train_loss);
	CU_ASSERT_EQUAL(pdist(mp, mo), 0.0);
	hog_model_free(mp);
	hog_model_free(md);
	hog_model_free(mt);
	hog_model_free(mo);
	hog_data_free(plain);
	hog_data_free(dup);
	hog_data_free(two);
	hog_data_free(ones);
}

static void test_mf_weight_two_half_step(void)
{
	hog_data *plain = ratings_set("m_plain2.lmdb", 0), *twos = ratings_set("m_twos.lmdb", 4);
	CU_ASSERT(twos->meta.weighted);
	hog_train_opts o = mf_opts();
	o.epochs = 20;
	o.no_shuffle = 0;
	hog_train_result ra, rb;
	hog_model *a = train_mf(plain, &o, &ra);
	o.lr /= 2;
	hog_model *b = train_mf(twos, &o, &rb);
	CU_ASSERT_EQUAL(pdist(a, b), 0.0);
	CU_ASSERT_EQUAL(ra.last.train_loss, rb.last.train_loss); /* (sum 2 l / sum 2: the same mean) */
	hog_model_free(a);
	hog_model_free(b);
	hog_data_free(plain);
	hog_data_free(twos);
}

/* Every cell (u, i) of a 30 x 20 grid with half its cells rated holds two
 * ratings: c - 1 of weight 3 and c + 3 of weight 1, c = 2.5 + 0.5 sin(u) cos(i):
 * the weighted least-squares fit is c in every cell, the unweighted one c + 1. */
static hog_data *cells_set(const char *name, hog_data **cells)
{
	hog_writer_opts wo = { .kind = HOG_KIND_RATINGS, .task = HOG_TASK_RATINGS, .users = 30, .items = 20 };
	hog_writer *w, *wc;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, tu_path(name), &wo, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&wc, tu_path("m_cells.lmdb"), &wo, &err), 0);
	for (uint32_t u = 0; u < 30; u++)
		for (uint32_t i = (u & 1); i < 20; i += 2) {
			float c = (float)(2.5 + 0.5 * sin(u) * cos(i));
			CU_ASSERT_EQUAL_FATAL(hog_writer_set_weight(w, 3.0, &err), 0);
			CU_ASSERT_EQUAL_FATAL(hog_writer_add_rating(w, u, i, c - 1, &err), 0);
			CU_ASSERT_EQUAL_FATAL(hog_writer_set_weight(w, 1.0, &err), 0);
			CU_ASSERT_EQUAL_FATAL(hog_writer_add_rating(w, u, i, c + 3, &err), 0);
			CU_ASSERT_EQUAL_FATAL(hog_writer_add_rating(wc, u, i, c, &err), 0);
		}
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(wc, &err), 0);
	hog_data *d;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path(name), &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(cells, tu_path("m_cells.lmdb"), &err), 0);
	return d;
}

/* The mean |prediction - c| over the cells. */
static double cell_err(const hog_model *m, const hog_data *cells)
{
	float *p = malloc(cells->n * sizeof *p);
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_model_predict(m, cells, p, &err), 0);
	double s = 0;
	for (uint64_t j = 0; j < cells->n; j++)
		s += fabs((double)p[j] - cells->ratings[j]);
	free(p);
	return s / (double)cells->n;
}

static void test_mf_modes_weighted(void)
{
	hog_data *cells, *d = cells_set("m_w31.lmdb", &cells);
	static const enum hog_mode modes[] = { HOG_MODE_SERIAL, HOG_MODE_LOCKFREE, HOG_MODE_ATOMIC, HOG_MODE_STRIPED,
		                                   HOG_MODE_LOCKED, HOG_MODE_GRID };
	for (int rule = 0; rule < 2; rule++)
		for (size_t k = 0; k < sizeof modes / sizeof *modes; k++) {
			hog_train_opts o = mf_opts();
			o.epochs = 60;
			o.no_shuffle = 0;
			o.l2 = 0.001;
			o.rule = rule ? HOG_RULE_ADAGRAD : HOG_RULE_SGD;
			o.lr = rule ? 0.2 : 0.01;
			o.mode = modes[k];
			o.threads = k ? 2 : 1;
			hog_model *m = train_mf(d, &o, NULL);
			double ce = cell_err(m, cells);
			if (getenv("HOG_TEST_VERBOSE") || ce >= 0.1)
				fprintf(stderr, "\n  %s, %s: mean |pred - c| %.4f\n", hog_mode_name(modes[k]),
				        rule ? "adagrad" : "sgd", ce);
			CU_ASSERT(ce < 0.1); /* (ignoring the weights: about 1) */
			hog_model_free(m);
		}
	hog_data_free(d);
	hog_data_free(cells);
}

static void test_mf_class_weight_refused(void)
{
	hog_data *two = ratings_set("m_two3.lmdb", 2);
	hog_train_opts o = mf_opts();
	o.epochs = 1;
	o.class_weight = "balanced";
	hog_model *m = NULL;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL(hog_train(two, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--class-weight"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ratings"));
	CU_ASSERT_PTR_NULL(m);
	hog_data_free(two);
}

int test_weights_mf_register(void)
{
	CU_pSuite s = CU_add_suite("weights_mf", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_mf_duplicate_is_weight_two);
	TU_ADD(s, test_mf_weight_two_half_step);
	TU_ADD(s, test_mf_modes_weighted);
	TU_ADD(s, test_mf_class_weight_refused);
	return 0;
}
