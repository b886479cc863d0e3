/* Adam, AdamW and LARS for the mlp: the trainer's weights and moments against a
 * plain loop written here (softmax regression, whole-set batches, so that the
 * order of the examples does not enter), the bias correction's step count
 * across epochs, a checkpoint resumed bit for bit, every update mode, the
 * dump's second moment read back, and the models and values that are refused. */
#include "hogwild.h"
#include "model/model.h"
#include "train/mlp_step.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 48, D = 5, C = 3 };
static hog_data *small, *big;
static float X[N][D];
static int Y[N];

static int suite_init(void)
{
	hog_writer *w = NULL;
	hog_writer_opts wo = { .kind = HOG_KIND_DENSE, .task = HOG_TASK_MULTICLASS, .features = D, .classes = C };
	hog_err err;
	const char *p = tu_path("adam_small.lmdb");
	if (hog_writer_open(&w, p, &wo, &err))
		return -1;
	uint64_t s = 7;
	for (int i = 0; i < N; i++) {
		for (int j = 0; j < D; j++) { /* in [-1, 1]: --normalize auto leaves it alone */
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			X[i][j] = (float)((double)(s >> 11) * 0x1p-53 * 2 - 1);
		}
		Y[i] = (X[i][0] + X[i][1] > 0.3f) ? 2 : X[i][2] > 0 ? 1 : 0;
		if (hog_writer_add_dense(w, (float)Y[i], X[i], NULL, &err))
			return -1;
	}
	if (hog_writer_commit(w, &err) || hog_data_load(&small, p, &err))
		return -1;
	hog_gen_opts g = { .kind = HOG_KIND_DENSE, .seed = 3, .examples = 6000, .features = 20, .classes = 4 };
	const char *q = tu_path("adam_big.lmdb");
	if (hog_gen(q, &g, &err) || hog_data_load(&big, q, &err)) {
		fprintf(stderr, "adam fixture: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int suite_clean(void)
{
	hog_data_free(small);
	hog_data_free(big);
	return 0;
}

static hog_train_opts adam_opts(enum hog_rule rule, int epochs)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = HOG_MODEL_MLP;
	o.mode = HOG_MODE_SERIAL;
	o.threads = 1;
	o.bind = HOG_BIND_NONE;
	o.rule = rule;
	o.epochs = epochs;
	return o;
}

static hog_model *train_ok(const hog_data *tr, const hog_train_opts *o)
{
	hog_model *m = NULL;
	hog_err err = { 0 };
	int rc = hog_train(tr, NULL, o, &m, NULL, &err);
	if (rc)
		fprintf(stderr, "train: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	return m;
}

/* The mean cross-entropy's gradient of softmax regression w over all N
 * examples, in double: w[j*C+c] input j's weight to class c, then the C
 * biases (the mlp's layout). */
static void softmax_grad(const double *w, double *g)
{
	memset(g, 0, (D * C + C) * sizeof *g);
	for (int i = 0; i < N; i++) {
		double z[C], mx = -1e300, sum = 0;
		for (int c = 0; c < C; c++) {
			z[c] = w[D * C + c];
			for (int j = 0; j < D; j++)
				z[c] += X[i][j] * w[j * C + c];
			mx = z[c] > mx ? z[c] : mx;
		}
		for (int c = 0; c < C; c++)
			sum += exp(z[c] - mx);
		for (int c = 0; c < C; c++) {
			double dz = (exp(z[c] - mx) / sum - (c == Y[i])) / N;
			for (int j = 0; j < D; j++)
				g[j * C + c] += dz * X[i][j];
			g[D * C + c] += dz;
		}
	}
}

/* The plain loop: softmax regression from zero weights, T steps on the mean
 * cross-entropy of all N examples, with Kingma and Ba's update in double;
 * w[j*C+c] input j's weight to class c, then the C biases (the mlp's layout). */
static void reference(int adamw, double lr, double l2, double b1, double b2, double eps, int T, double *w,
                      double *m, double *v)
{
	const int P = D * C + C;
	memset(w, 0, P * sizeof *w);
	memset(m, 0, P * sizeof *m);
	memset(v, 0, P * sizeof *v);
	for (int t = 1; t <= T; t++) {
		double g[D * C + C];
		softmax_grad(w, g);
		for (int k = 0; k < P; k++) {
			double gk = adamw ? g[k] : g[k] + l2 * w[k];
			m[k] = b1 * m[k] + (1 - b1) * gk;
			v[k] = b2 * v[k] + (1 - b2) * gk * gk;
			double step = lr / (1 - pow(b1, t)) * m[k] / (sqrt(v[k]) / sqrt(1 - pow(b2, t)) + eps);
			w[k] -= step + (adamw ? lr * l2 * w[k] : 0);
		}
	}
}

static double rel(double a, double b)
{
	return fabs(a - b) / (1e-4 + fabs(b));
}

/* Six whole-set steps (the bias correction at t = 1..6 over six epochs), for
 * adam with l2 in the gradient and adamw with l2 as decay, at other betas too:
 * weights and both moments as the plain loop has them. */
static void test_plain_loop(void)
{
	const struct { enum hog_rule rule; double lr, l2, b1, b2, eps; } cases[] = {
		{ HOG_RULE_ADAM, 0.05, 0, 0.9, 0.999, 1e-8 },
		{ HOG_RULE_ADAM, 0.02, 0.3, 0.5, 0.9, 1e-3 },
		{ HOG_RULE_ADAMW, 0.05, 0.5, 0.9, 0.999, 1e-8 },
		{ HOG_RULE_ADAMW, 0.1, 0.2, 0.0, 0.5, 1e-6 },
	};
	for (size_t q = 0; q < sizeof cases / sizeof *cases; q++) {
		hog_train_opts o = adam_opts(cases[q].rule, 6);
		o.mlp.batch = N;
		o.lr = cases[q].lr;
		o.l2 = cases[q].l2;
		o.mlp.adam_beta1 = cases[q].b1;
		o.mlp.adam_beta2 = cases[q].b2;
		o.mlp.adam_eps = cases[q].eps;
		hog_model *mod = train_ok(small, &o);
		const int P = D * C + C;
		CU_ASSERT_EQUAL_FATAL(mod->nparams, 3 * P);
		double w[D * C + C], m[D * C + C], v[D * C + C], worst = 0;
		reference(cases[q].rule == HOG_RULE_ADAMW, cases[q].lr, cases[q].l2, cases[q].b1, cases[q].b2, cases[q].eps,
		          6, w, m, v);
		for (int k = 0; k < P; k++) {
			double e = fmax(rel(mod->params[k], w[k]), fmax(rel(mod->params[P + k], m[k]), rel(mod->params[2 * P + k], v[k])));
			worst = e > worst ? e : worst;
		}
		if (worst > 1e-3)
			fprintf(stderr, "case %zu: the trainer differs from the plain loop by %g\n", q, worst);
		CU_ASSERT(worst < 1e-3);
		hog_model_free(mod);
	}
}

/* A checkpoint after 2 epochs resumed to 5 is the straight run bit for bit (the
 * moments travel in the checkpoint, the step count is the position's), with a
 * batch that does not divide the set and hidden layers. */
static void test_resume(void)
{
	for (int r = 0; r < 2; r++) {
		hog_train_opts o = adam_opts(r ? HOG_RULE_ADAMW : HOG_RULE_ADAM, 5);
		o.mlp.nlayers = 1;
		o.mlp.layers[0] = 16;
		o.mlp.batch = 77;
		o.l2 = 1e-3;
		hog_model *straight = train_ok(big, &o);
		o.epochs = 2;
		o.checkpoint = tu_path("adam.ckpt");
		hog_model_free(train_ok(big, &o));
		o.epochs = 5;
		o.checkpoint = NULL;
		o.resume = tu_path("adam.ckpt");
		hog_model *res = train_ok(big, &o);
		CU_ASSERT_EQUAL_FATAL(res->nparams, straight->nparams);
		CU_ASSERT(!memcmp(res->params, straight->params, res->nparams * sizeof(float)));
		/* other betas than the checkpoint's are refused */
		o.mlp.adam_beta2 = 0.99;
		hog_model *x = NULL;
		hog_err err = { 0 };
		CU_ASSERT_NOT_EQUAL(hog_train(big, NULL, &o, &x, NULL, &err), 0);
		CU_ASSERT_PTR_NULL(x);
		hog_model_free(res);
		hog_model_free(straight);
	}
}

/* Every mode trains with adam to about serial's loss; the model saves, loads
 * and dumps (its second moment as "vW0" lines) and reads back to the same bytes. */
static void test_modes_and_dump(void)
{
	hog_train_opts o = adam_opts(HOG_RULE_ADAM, 4);
	o.mlp.nlayers = 1;
	o.mlp.layers[0] = 16;
	hog_train_result rs;
	hog_model *m = NULL;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_train(big, NULL, &o, &m, &rs, &err), 0);
	const double base = rs.last.train_loss;
	CU_ASSERT(base < 0.9 * log(4.0));
	const enum hog_mode modes[] = { HOG_MODE_LOCKFREE, HOG_MODE_ATOMIC, HOG_MODE_LOCKED, HOG_MODE_BUFFERED };
	for (size_t k = 0; k < sizeof modes / sizeof *modes; k++) {
		hog_train_opts p = o;
		p.mode = modes[k];
		p.threads = 2;
		hog_train_result r;
		hog_model *x = NULL;
		CU_ASSERT_EQUAL_FATAL(hog_train(big, NULL, &p, &x, &r, &err), 0);
		if (!(r.last.train_loss < base * 1.1))
			fprintf(stderr, "%s: loss %g, serial %g\n", hog_mode_name(modes[k]), r.last.train_loss, base);
		CU_ASSERT(r.last.train_loss < base * 1.1);
		hog_model_free(x);
	}
	const char *path = tu_path("adam.model"), *txt = tu_path("adam.txt"), *back = tu_path("adam_back.model");
	CU_ASSERT_EQUAL_FATAL(hog_model_save(m, path, &err), 0);
	FILE *f = fopen(txt, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(hog_model_dump(path, fileno(f), &err), 0);
	fclose(f);
	CU_ASSERT_EQUAL(tu_sh("grep -c '^vW0 ' '%s' | grep -qx 20 && grep -q '^vb1 ' '%s'", txt, txt), 0);
	CU_ASSERT_EQUAL(hog_model_undump(txt, back, &err), 0);
	CU_ASSERT_EQUAL(tu_sh("cmp -s '%s' '%s'", path, back), 0);
	hog_model_free(m);
}

/* Refused: adam for the linear model and mf, betas of 1 or more, a zero eps,
 * momentum beside adam; each by name. */
static void test_refused(void)
{
	struct { const char *what; enum hog_model_kind model; double b1, b2, eps, mu; } bad[] = {
		{ "--model mlp", HOG_MODEL_LINEAR, 0.9, 0.999, 1e-8, 0 },
		{ "--adam-beta1", HOG_MODEL_MLP, 1.0, 0.999, 1e-8, 0 },
		{ "--adam-beta1", HOG_MODEL_MLP, 0.9, 1.5, 1e-8, 0 },
		{ "--adam-eps", HOG_MODEL_MLP, 0.9, 0.999, 0, 0 },
		{ "--momentum", HOG_MODEL_MLP, 0.9, 0.999, 1e-8, 0.9 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		hog_train_opts o = adam_opts(HOG_RULE_ADAM, 1);
		o.model = bad[i].model;
		o.mlp.adam_beta1 = bad[i].b1;
		o.mlp.adam_beta2 = bad[i].b2;
		o.mlp.adam_eps = bad[i].eps;
		o.mlp.momentum = bad[i].mu;
		o.mlp.momentum_auto = 0;
		hog_model *m = NULL;
		hog_err err = { 0 };
		hog_data *d = bad[i].model == HOG_MODEL_LINEAR ? NULL : small;
		if (!d) { /* the linear model needs a sparse set */
			hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .seed = 1, .examples = 200, .features = 50, .nnz_per_example = 5 };
			CU_ASSERT_EQUAL_FATAL(hog_gen(tu_path("adam_sparse.lmdb"), &g, &err), 0);
			CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path("adam_sparse.lmdb"), &err), 0);
		}
		CU_ASSERT_EQUAL(hog_train(d, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
		if (!strstr(err.msg, bad[i].what))
			fprintf(stderr, "expected '%s' in: %s\n", bad[i].what, err.msg);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].what));
		CU_ASSERT_PTR_NULL(m);
		if (d != small)
			hog_data_free(d);
	}
}

/* LARS's trust ratio by hand: |w| = 5, |g| = 1. */
static void test_lars_ratio(void)
{
	CU_ASSERT_DOUBLE_EQUAL(lars_ratio(25, 1, 0.001, 0), 0.005, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(lars_ratio(25, 1, 0.001, 0.1), 0.001 * 5 / 1.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(lars_ratio(0, 1, 0.001, 0.1), 1.0, 0); /* a layer at zero: the global step */
	CU_ASSERT_DOUBLE_EQUAL(lars_ratio(4, 0, 0.001, 0.1), 1.0, 0);
	double ww = 0, gg = 0;
	const float w[] = { 3, 4, 0 }, g[] = { 0.6f, 0, 0.8f };
	lars_sums(w, g, 3, &ww, &gg);
	CU_ASSERT_DOUBLE_EQUAL(ww, 25, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(gg, 1, 1e-6);
}

/* sgd with --lars, whole-set batches, constant step: W at lr times its trust
 * ratio (1 at the first step, from zero), the biases at lr, against a plain
 * loop; with l2 in the gradient and the ratio's denominator. */
static void test_lars_plain_loop(void)
{
	const double lr = 0.5, eta = 0.02, l2 = 0.01;
	hog_train_opts o = adam_opts(HOG_RULE_SGD, 5);
	o.mlp.batch = N;
	o.lr = lr;
	o.l2 = l2;
	o.sched = HOG_SCHED_CONSTANT;
	o.mlp.lars = eta;
	hog_model *mod = train_ok(small, &o);
	double w[D * C + C] = { 0 };
	for (int t = 0; t < 5; t++) {
		double g[D * C + C];
		softmax_grad(w, g);
		double ww = 0, gg = 0;
		for (int k = 0; k < D * C; k++) {
			ww += w[k] * w[k];
			gg += g[k] * g[k];
		}
		double r = ww > 0 && gg > 0 ? eta * sqrt(ww) / (sqrt(gg) + l2 * sqrt(ww)) : 1.0;
		for (int k = 0; k < D * C + C; k++)
			w[k] -= lr * (k < D * C ? r : 1.0) * (g[k] + l2 * w[k]);
	}
	double worst = 0;
	for (int k = 0; k < D * C + C; k++)
		worst = fmax(worst, rel(mod->params[k], w[k]));
	if (worst > 1e-3)
		fprintf(stderr, "lars: the trainer differs from the plain loop by %g\n", worst);
	CU_ASSERT(worst < 1e-3);
	hog_model_free(mod);
	/* refused beside adam */
	o.rule = HOG_RULE_ADAM;
	hog_model *x = NULL;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL(hog_train(small, NULL, &o, &x, NULL, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--lars"));
}

int test_adam_register(void)
{
	CU_pSuite s = CU_add_suite("adam", suite_init, suite_clean);
	if (!s)
		return -1;
	TU_ADD(s, test_plain_loop);
	TU_ADD(s, test_resume);
	TU_ADD(s, test_modes_and_dump);
	TU_ADD(s, test_refused);
	TU_ADD(s, test_lars_ratio);
	TU_ADD(s, test_lars_plain_loop);
	return 0;
}
