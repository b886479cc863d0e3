/* The gradient noise scale (train/noise.h, train/linear_noise.c) and --batch auto: the estimator
 * against its closed form on gradients with a known covariance; the mlp
 * trainer's measurement against tr(Sigma)/|G|^2 computed here from the data
 * at a model that does not move; the batch growing on a noisy problem and
 * not on a noiseless one; what is refused. */
#include "hogwild.h"
#include "train/noise.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 99;
static double unif(void) /* [0, 1) */
{
	rs = rs * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(rs >> 11) * 0x1p-53;
}
static double gauss(void)
{
	double u = unif() + 1e-300, v = unif();
	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* Gradients G + xi, xi ~ N(0, diag(s_j^2)): windows of K batches of B, as the
 * trainer forms them; the estimate of tr(Sigma)/|G|^2 = sum s_j^2 / |G|^2. */
static void test_closed_form(void)
{
	enum { Dm = 50, B = 8, K = 4, W = 4000 };
	double G[Dm], tr = 0, g2 = 0;
	for (int j = 0; j < Dm; j++) {
		G[j] = 0.2 * gauss();
		g2 += G[j] * G[j];
	}
	double s2[Dm];
	for (int j = 0; j < Dm; j++) {
		s2[j] = 0.5 + unif(); /* per-coordinate variances */
		tr += s2[j];
	}
	noise_sums ns = { 0 };
	for (int w = 0; w < W; w++) {
		double acc[Dm] = { 0 }, small = 0;
		for (int k = 0; k < K; k++) {
			double q = 0;
			for (int j = 0; j < Dm; j++) {
				double m = 0;
				for (int b = 0; b < B; b++)
					m += G[j] + sqrt(s2[j]) * gauss();
				m /= B;
				acc[j] += m;
				q += m * m;
			}
			small += q;
		}
		double big = 0;
		for (int j = 0; j < Dm; j++)
			big += acc[j] * acc[j] / (K * K);
		noise_add(&ns, small / K, big);
	}
	double eg2, etr, b = noise_scale(&ns, B, B * K, &eg2, &etr);
	double want = tr / g2;
	if (!(fabs(b - want) < 0.1 * want))
		fprintf(stderr, "noise scale %g, closed form %g (|G|^2 %g for %g, tr %g for %g)\n", b, want, eg2, g2, etr, tr);
	CU_ASSERT(fabs(b - want) < 0.1 * want);
	CU_ASSERT(fabs(etr - tr) < 0.05 * tr);
	/* no windows: unknown; the signal drowned (|G|^2 estimated <= 0): infinite */
	noise_sums none = { 0 };
	CU_ASSERT(isnan(noise_scale(&none, B, B * K, NULL, NULL)));
	noise_sums drowned = { .small = 1.0, .big = 0.2, .windows = 1 };
	CU_ASSERT(isinf(noise_scale(&drowned, 8, 32, NULL, NULL)));
}

enum { N = 20000, D = 6, C = 3 };

/* A dense set of N rows in [-1, 1] with classes from a fixed linear rule, a
 * fraction @p flip of them relabelled at random (or, @p same, N copies of one
 * example); returns it loaded, with the rows in X and labels in Y when given. */
static hog_data *make_set(const char *name, double flip, int same, float *X, int *Y)
{
	hog_writer *w = NULL;
	hog_writer_opts wo = { .kind = HOG_KIND_DENSE, .task = HOG_TASK_MULTICLASS, .features = D, .classes = C };
	hog_err err;
	const char *p = tu_path(name);
	if (hog_writer_open(&w, p, &wo, &err))
		return NULL;
	float x[D];
	for (int i = 0; i < N; i++) {
		int y;
		if (!same || i == 0) {
			for (int j = 0; j < D; j++)
				x[j] = (float)(2 * unif() - 1);
		}
		y = same ? 1 : x[0] + 0.5f * x[1] > 0.2f ? 2 : x[2] > 0 ? 1 : 0;
		if (!same && unif() < flip)
			y = (int)(unif() * C);
		if (X)
			memcpy(X + (size_t)i * D, x, sizeof x);
		if (Y)
			Y[i] = y;
		if (hog_writer_add_dense(w, (float)y, x, NULL, &err))
			return NULL;
	}
	hog_data *d = NULL;
	if (hog_writer_commit(w, &err) || hog_data_load(&d, p, &err))
		return NULL;
	return d;
}

typedef struct seen {
	double noise[64];
	uint32_t batch[64];
	int n;
} seen;

static void on_epoch(void *ud, const hog_epoch_stats *s)
{
	seen *v = ud;
	if (v->n < 64) {
		v->noise[v->n] = s->noise_scale;
		v->batch[v->n++] = s->batch;
	}
}

static hog_train_opts base_opts(seen *v)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = HOG_MODEL_MLP;
	o.mode = HOG_MODE_SERIAL;
	o.threads = 1;
	o.bind = HOG_BIND_NONE;
	o.on_epoch = on_epoch;
	o.ud = v;
	return o;
}

/* Softmax regression whose weights stay at zero (a step of 1e-12): every
 * example's gradient is (p - e_y) x (and p - e_y for the biases) with p = 1/C,
 * so tr(Sigma) / |G|^2 follows from the data; the trainer's estimate over
 * four epochs of about 150 windows each is within 10% of it. */
static void test_trainer_estimate(void)
{
	float *X = malloc(sizeof(float) * N * D);
	int *Y = malloc(sizeof(int) * N);
	hog_data *d = make_set("noise_est.lmdb", 0.3, 0, X, Y);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	const int P = D * C + C;
	double G[D * C + C] = { 0 }, sq = 0;
	for (int i = 0; i < N; i++)
		for (int c = 0; c < C; c++) {
			double r = 1.0 / C - (c == Y[i]);
			for (int j = 0; j <= D; j++) {
				double g = r * (j < D ? X[(size_t)i * D + j] : 1.0);
				G[j < D ? j * C + c : D * C + c] += g / N;
				sq += g * g / N;
			}
		}
	double g2 = 0;
	for (int k = 0; k < P; k++)
		g2 += G[k] * G[k];
	const double want = (sq - g2) / g2; /* tr(Sigma) = E|g_i|^2 - |G|^2 */
	seen v = { 0 };
	hog_train_opts o = base_opts(&v);
	o.lr = 1e-12;
	o.l2 = 0;
	o.epochs = 4;
	o.mlp.batch = 4;
	hog_model *m = NULL;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &o, &m, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(v.n, 4);
	double mean = 0;
	for (int k = 0; k < v.n; k++) {
		CU_ASSERT_EQUAL(v.batch[k], 4);
		mean += v.noise[k] / v.n;
	}
	if (!(fabs(mean - want) < 0.1 * want))
		fprintf(stderr, "trainer's noise scale %g, the data's %g\n", mean, want);
	CU_ASSERT(fabs(mean - want) < 0.1 * want);
	hog_model_free(m);
	hog_data_free(d);
	free(X);
	free(Y);
}

/* --batch auto: labels half random make a noise scale of hundreds, and the
 * batch grows from 8 (never past its bound, at most 4 times an epoch); N
 * copies of one example have no noise, and it stays. */
static void test_batch_auto(void)
{
	for (int k = 0; k < 2; k++) {
		hog_data *d = make_set(k ? "noise_same.lmdb" : "noise_flip.lmdb", 0.5, k, NULL, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		seen v = { 0 };
		hog_train_opts o = base_opts(&v);
		o.epochs = 5;
		o.mlp.batch_auto = 1;
		o.mlp.batch = 8;
		o.mlp.batch_max = 256;
		o.mlp.nlayers = 1;
		o.mlp.layers[0] = 8;
		hog_model *m = NULL;
		hog_err err = { 0 };
		CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &o, &m, NULL, &err), 0);
		CU_ASSERT_EQUAL_FATAL(v.n, 5);
		CU_ASSERT_EQUAL(v.batch[0], 8);
		for (int e = 1; e < v.n; e++) {
			CU_ASSERT(v.batch[e] >= v.batch[e - 1] && v.batch[e] <= 4 * v.batch[e - 1] && v.batch[e] <= 256);
			if (k) { /* noiseless */
				CU_ASSERT_EQUAL(v.batch[e], 8);
			}
		}
		if (k) {
			CU_ASSERT(v.noise[0] < 1.0);
		} else {
			CU_ASSERT(v.noise[0] > 16);
			CU_ASSERT(v.batch[v.n - 1] > 8);
		}
		hog_model_free(m);
		hog_data_free(d);
	}
}

/* The linear model's noise scale at a model that does not move (a step of
 * 1e-12 from zero, so every margin is 0 and a logistic example's gradient is
 * -y/2 times its row and the bias's 1): on a set of 12,000 examples the
 * trainer samples them all, so its estimate is tr(Sigma)/|G|^2 computed here
 * from the data, to the O(B/n) of its unbiased corrections. */
static void test_linear_estimate(void)
{
	hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .seed = 4, .examples = 12000, .features = 300, .nnz_per_example = 10 };
	hog_err err = { 0 };
	hog_data *d = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_gen(tu_path("noise_lin.lmdb"), &g, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path("noise_lin.lmdb"), &err), 0);
	double *G = calloc(d->dim + 1, sizeof *G), sq = 0;
	for (uint64_t i = 0; i < d->n; i++) {
		const double r = (d->labels[i] > 0 ? -0.5 : 0.5) / (double)d->n;
		double xx = 1;
		G[d->dim] += r;
		for (uint64_t p = d->offsets[i]; p < d->offsets[i + 1]; p++) {
			double x = d->vals ? d->vals[p] : 1.0;
			G[d->ids[p]] += r * x;
			xx += x * x;
		}
		sq += r * r * (double)d->n * xx; /* (mean |g_i|^2: r = g / n) */
	}
	double g2 = 0;
	for (uint64_t v = 0; v <= d->dim; v++)
		g2 += G[v] * G[v];
	const double want = (sq - g2) / g2;
	seen v = { 0 };
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.mode = HOG_MODE_SERIAL;
	o.bind = HOG_BIND_NONE;
	o.lr = 1e-12;
	o.l2 = 0;
	o.epochs = 2;
	o.on_epoch = on_epoch;
	o.ud = &v;
	hog_model *m = NULL;
	/* not asked for: not measured (NAN) */
	CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &o, &m, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(v.n, 2);
	CU_ASSERT(isnan(v.noise[0]) && isnan(v.noise[1]));
	hog_model_free(m);
	m = NULL;
	v.n = 0;
	o.diagnostics = 1;
	CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &o, &m, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(v.n, 2);
	if (!(fabs(v.noise[1] - want) < 0.01 * want + 2 * want * want / (double)d->n))
		fprintf(stderr, "linear: the trainer's noise scale %g, the data's %g\n", v.noise[1], want);
	CU_ASSERT(fabs(v.noise[1] - want) < 0.01 * want + 2 * want * want / (double)d->n);
	CU_ASSERT_EQUAL(v.batch[1], 0); /* (no batch: per-example steps) */
	hog_model_free(m);
	hog_data_free(d);
	free(G);
}

/* A bound below the first batch, and a resume (the grown batches are not in
 * the checkpoint), are refused by name. */
static void test_refused(void)
{
	hog_data *d = make_set("noise_ref.lmdb", 0, 0, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	seen v = { 0 };
	for (int k = 0; k < 2; k++) {
		hog_train_opts o = base_opts(&v);
		o.epochs = 1;
		o.mlp.batch_auto = 1;
		o.mlp.batch = 64;
		o.mlp.batch_max = k ? 128 : 32;
		o.resume = k ? tu_path("noise.ckpt") : NULL;
		hog_model *m = NULL;
		hog_err err = { 0 };
		CU_ASSERT_EQUAL(hog_train(d, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--batch auto"));
		CU_ASSERT_PTR_NULL(m);
	}
	hog_data_free(d);
}

int test_noise_register(void)
{
	CU_pSuite s = CU_add_suite("noise", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_closed_form);
	TU_ADD(s, test_trainer_estimate);
	TU_ADD(s, test_batch_auto);
	TU_ADD(s, test_linear_estimate);
	TU_ADD(s, test_refused);
	return 0;
}
