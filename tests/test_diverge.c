/* Divergence (src/train/diverge.c): the rule alone on made-up epoch losses,
 * edges included; what an all-zero model loses under each loss; and through
 * hog_train(): a huge step on each model is HOG_EDIVERGED with no model unless
 * keep_diverged, a checkpoint keeps the state before the divergence, and the
 * default step on each model is no divergence. */
#include "hogwild.h"
#include "train/engine.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the rule */

typedef struct seq {
	const char *what;
	double loss[6];
	int n;
	int want; /* the first epoch that diverges, -1: none */
} seq;

static void test_rule_sequences(void)
{
	const double z = log(2.0), B = HOG_DIVERGE_FACTOR * z;
	const seq c[] = {
		{ "healthy, falling", { 0.69, 0.5, 0.4, 0.35, 0.34, 0.34 }, 6, -1 },
		{ "empty", { 0 }, 0, -1 },
		{ "one epoch, healthy", { 0.6 }, 1, -1 },
		{ "the first epoch past the bound", { B * 1.0001 }, 1, 0 },
		{ "exactly at the bound is within", { B, B }, 2, -1 },
		{ "a huge step's loss, falling (near 1e9 and never NaN)", { 2.7e8, 2.4e8, 2.2e8 }, 3, 0 },
		{ "NaN in the third epoch", { 0.5, 0.4, NAN, 0.3 }, 4, 2 },
		{ "+Inf", { 0.5, INFINITY }, 2, 1 },
		{ "-Inf is no loss either", { 0.5, -INFINITY }, 2, 1 },
		{ "growth: past 10 x the best epoch and the zero model's", { 0.3, 0.35, 2.9, 3.01 }, 4, 3 },
		{ "growth to 10 x the best, but below the zero model's loss", { 0.01, 0.05, 0.2, 0.6 }, 4, -1 },
		{ "... and then above it", { 0.01, 0.05, 0.2, 0.6, 0.7 }, 5, 4 },
		{ "a best epoch of 0: the zero model's loss bounds the rest", { 0, 0.5, 0.69, 0.7 }, 4, 3 },
		{ "a bad first epoch does not raise the bound past 100 x", { 50, 60, 69, 70 }, 4, 3 },
		{ "a noisy healthy run (a large step), never 10 x its best", { 1.8, 1.3, 1.31, 1.34, 1.2, 1.5 }, 6, -1 },
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		int got = eng_diverge_seq(c[i].loss, c[i].n, z);
		if (got != c[i].want)
			fprintf(stderr, "\n  %s: epoch %d diverged, wanted %d\n", c[i].what, got, c[i].want);
		CU_ASSERT_EQUAL(got, c[i].want);
	}
	/* the bound itself, and which part sets it */
	int g;
	CU_ASSERT_DOUBLE_EQUAL(eng_loss_bound(z, NAN, &g), B, 1e-12);
	CU_ASSERT_EQUAL(g, 0);
	CU_ASSERT_DOUBLE_EQUAL(eng_loss_bound(z, 0.3, &g), 3.0, 1e-12);
	CU_ASSERT_EQUAL(g, 1);
	CU_ASSERT_DOUBLE_EQUAL(eng_loss_bound(z, 0.01, &g), z, 1e-12); /* never below the zero model's */
	CU_ASSERT_DOUBLE_EQUAL(eng_loss_bound(z, 30, &g), B, 1e-12);  /* never above 100 x */
	CU_ASSERT_EQUAL(g, 0);
	CU_ASSERT_TRUE(eng_loss_diverged(NAN, INFINITY));
	CU_ASSERT_FALSE(eng_loss_diverged(1e300, INFINITY));
}

static void test_zero_loss(void)
{
	hog_meta m;
	memset(&m, 0, sizeof m);
	m.task = HOG_TASK_BINARY;
	m.label_min = 0;
	m.label_max = 1;
	CU_ASSERT_DOUBLE_EQUAL(eng_zero_loss(HOG_LOSS_LOGISTIC, &m), log(2.0), 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(eng_zero_loss(HOG_LOSS_HINGE, &m), 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(eng_zero_loss(HOG_LOSS_SQUARED, &m), 0.5, 1e-12); /* labels train as -1/+1 */
	CU_ASSERT_DOUBLE_EQUAL(eng_zero_loss(HOG_LOSS_SOFTMAX, &m), log(2.0), 1e-12); /* two classes */
	m.task = HOG_TASK_MULTICLASS;
	m.classes = 10;
	CU_ASSERT_DOUBLE_EQUAL(eng_zero_loss(HOG_LOSS_SOFTMAX, &m), log(10.0), 1e-12);
	m.task = HOG_TASK_REGRESSION;
	m.label_min = -3;
	m.label_max = 2;
	CU_ASSERT_DOUBLE_EQUAL(eng_zero_loss(HOG_LOSS_SQUARED, &m), 4.5, 1e-12); /* half the largest square */
	m.label_min = m.label_max = 0; /* labels all 0: the floor, not a bound of 0 */
	CU_ASSERT_DOUBLE_EQUAL(eng_zero_loss(HOG_LOSS_SQUARED, &m), HOG_DIVERGE_FLOOR, 1e-12);
	m.label_max = NAN;
	CU_ASSERT_DOUBLE_EQUAL(eng_zero_loss(HOG_LOSS_SQUARED, &m), HOG_DIVERGE_FLOOR, 1e-12);
}

/* ------------------------------------------------------------ through hog_train */

static hog_data *sparse, *ratings, *dense;

static int make_sets(void)
{
	hog_gen_opts gs = { .kind = HOG_KIND_SPARSE, .seed = 3, .examples = 6000, .features = 300, .nnz_per_example = 12 };
	hog_gen_opts gr = { .kind = HOG_KIND_RATINGS, .seed = 4, .examples = 20000, .users = 400, .items = 100 };
	hog_gen_opts gd = { .kind = HOG_KIND_DENSE, .seed = 5, .examples = 3000, .features = 16, .classes = 4 };
	hog_err err;
	const char *ps = tu_path("dv_sparse.lmdb"), *pr = tu_path("dv_ratings.lmdb"), *pd = tu_path("dv_dense.lmdb");
	if (hog_gen(ps, &gs, &err) || hog_gen(pr, &gr, &err) || hog_gen(pd, &gd, &err) ||
	    hog_data_load(&sparse, ps, &err) || hog_data_load(&ratings, pr, &err) || hog_data_load(&dense, pd, &err)) {
		fprintf(stderr, "fixture: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int free_sets(void)
{
	hog_data_free(sparse);
	hog_data_free(ratings);
	hog_data_free(dense);
	return 0;
}

typedef struct run {
	const char *what;
	enum hog_model_kind model;
	enum hog_loss loss;
	enum hog_rule rule;
	int average;
	const hog_data **d;
	int keeps; /* with keep_diverged: 1 a model comes back (finite), 0 none (NaN) */
} run;

static const run huge[] = {
	{ "linear logistic", HOG_MODEL_LINEAR, HOG_LOSS_LOGISTIC, HOG_RULE_SGD, 1, (const hog_data **)&sparse, 1 },
	{ "linear hinge, no average", HOG_MODEL_LINEAR, HOG_LOSS_HINGE, HOG_RULE_SGD, 0, (const hog_data **)&sparse, 1 },
	{ "linear logistic adagrad", HOG_MODEL_LINEAR, HOG_LOSS_LOGISTIC, HOG_RULE_ADAGRAD, 1, (const hog_data **)&sparse, 1 },
	{ "mlp adagrad", HOG_MODEL_MLP, HOG_LOSS_SOFTMAX, HOG_RULE_ADAGRAD, 0, (const hog_data **)&dense, 1 },
	{ "mf", HOG_MODEL_MF, HOG_LOSS_SQUARED, HOG_RULE_SGD, 0, (const hog_data **)&ratings, 0 },
};

static hog_train_opts opts_of(const run *r, double lr)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = r->model;
	o.loss = r->loss;
	o.rule = r->rule;
	o.linear.average = r->average;
	o.mode = HOG_MODE_LOCKFREE;
	o.threads = 2;
	o.epochs = 3;
	o.bind = HOG_BIND_NONE;
	o.lr = lr;
	return o;
}

static int all_finite(const hog_model *m)
{
	for (uint64_t i = 0; i < m->nparams; i++)
		if (!isfinite(m->params[i]))
			return 0;
	return 1;
}

static void test_huge_step(void)
{
	for (size_t i = 0; i < sizeof huge / sizeof *huge; i++) {
		const run *r = &huge[i];
		hog_train_opts o = opts_of(r, 1e9);
		hog_model *m = (hog_model *)&o; /* (must be set to NULL) */
		hog_err err = { 0 };
		int rc = hog_train(*r->d, NULL, &o, &m, NULL, &err);
		if (rc != HOG_EDIVERGED)
			fprintf(stderr, "\n  %s: rc %d (%s)\n", r->what, rc, err.msg);
		CU_ASSERT_EQUAL(rc, HOG_EDIVERGED);
		CU_ASSERT_PTR_NULL(m);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "training diverged in epoch 1"));
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "try a smaller --lr"));
		CU_ASSERT(strstr(err.msg, "is past its bound") || strstr(err.msg, "is NaN") || strstr(err.msg, "infinite"));
		hog_model_free(m == (hog_model *)&o ? NULL : m);
		o.keep_diverged = 1;
		m = NULL;
		CU_ASSERT_EQUAL(hog_train(*r->d, NULL, &o, &m, NULL, &err), HOG_EDIVERGED);
		if ((m != NULL) != r->keeps)
			fprintf(stderr, "\n  %s, keep_diverged: %s\n", r->what, m ? "a model" : "none");
		CU_ASSERT_EQUAL(m != NULL, r->keeps);
		if (m) {
			CU_ASSERT_TRUE(all_finite(m));
			hog_model_free(m);
		}
	}
}

static void test_default_step_healthy(void)
{
	for (size_t i = 0; i < sizeof huge / sizeof *huge; i++) {
		hog_train_opts o = opts_of(&huge[i], 0); /* the model's default step */
		o.epochs = 5;
		hog_model *m = NULL;
		hog_train_result res;
		hog_err err = { 0 };
		int rc = hog_train(*huge[i].d, NULL, &o, &m, &res, &err);
		if (rc)
			fprintf(stderr, "\n  %s: %s\n", huge[i].what, err.msg);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_PTR_NOT_NULL(m);
		/* and far inside the bound: below what a model of zeros loses */
		CU_ASSERT(res.last.train_loss < eng_zero_loss(res.loss, &(*huge[i].d)->meta));
		hog_model_free(m);
	}
}

static char *slurp(const char *path, long *n)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	if (f && fseek(f, 0, SEEK_END) == 0 && (*n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)*n)) && fread(b, 1, (size_t)*n, f) != (size_t)*n) {
		free(b);
		b = NULL;
	}
	if (f)
		fclose(f);
	return b;
}

/* A run resumed with a step that diverges leaves its checkpoint as it was. */
static void test_checkpoint_kept(void)
{
	const char *ck = tu_path("dv.ckpt");
	hog_train_opts o = opts_of(&huge[0], 0);
	o.epochs = 2;
	o.checkpoint = ck;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_train(sparse, NULL, &o, NULL, NULL, &err), 0);
	long n0 = 0, n1 = 0;
	char *before = slurp(ck, &n0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(before);
	o.epochs = 4;
	o.resume = ck;
	o.force_resume = 1; /* (another step size) */
	o.lr = 1e9;
	CU_ASSERT_EQUAL(hog_train(sparse, NULL, &o, NULL, NULL, &err), HOG_EDIVERGED);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "epoch 3"));
	char *after = slurp(ck, &n1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(after);
	CU_ASSERT_EQUAL(n0, n1);
	CU_ASSERT(n0 == n1 && memcmp(before, after, (size_t)n0) == 0);
	free(before);
	free(after);
}

int test_diverge_register(void)
{
	CU_pSuite s = CU_add_suite("diverge", make_sets, free_sets);
	if (!s)
		return -1;
	TU_ADD(s, test_rule_sequences);
	TU_ADD(s, test_zero_loss);
	TU_ADD(s, test_huge_step);
	TU_ADD(s, test_default_step_healthy);
	TU_ADD(s, test_checkpoint_kept);
	return 0;
}
