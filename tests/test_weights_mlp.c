/* Example and class weights in the mlp and softmax (issue 24; the linear
 * model's are in test_weights.c, mf's in test_weights_mf.c). A batch's loss is
 * sum_i w_i l_i / (rows * the set's mean weight) (mlp_train.c, batch_weights):
 *  - with one batch of the whole set (serial), duplicating every 3rd example
 *    trains the parameters weight 2 trains to rounding (the batch loss is then
 *    the weighted mean, sum w l / sum w, both times; only the order of the
 *    backward pass's sums differs), the mlp and softmax regression alike;
 *  - every weight 2, and class weights all 1, train bit for bit as no weights
 *    (the mean weight divides the scale out exactly); a weight-1 set is the
 *    unweighted set;
 *  - class weights c_k on an intercept-only softmax move the learned class
 *    log-odds to the weighted optimum log(c_k n_k) - log(c_j n_j), balanced to
 *    0, with one batch of the whole set, with batches of one example (where a
 *    per-batch sum w l / sum w would cancel the weights) and in every mlp
 *    mode; a binary mlp's output logit to log(c n+ / n-);
 *  - a class outside the set's is refused, naming it. */
#include "hogwild.h"
#include "model/model.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mixm(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* 300 examples of 6 features, 3 classes (@p classes 3) or binary (2); @p how:
 * 0 plain, 1 every 3rd duplicated in place, 2 every 3rd of weight 2, 3 every
 * weight 1, 4 every weight 2. */
static hog_data *write_mc(const char *name, int classes, int how)
{
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = classes > 2 ? HOG_TASK_MULTICLASS : HOG_TASK_BINARY,
		                   .features = 6, .classes = classes > 2 ? (uint32_t)classes : 0 };
	hog_writer *w;
	hog_err err;
	const char *path = tu_path(name);
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, path, &wo, &err), 0);
	uint64_t s = 17;
	for (int i = 0; i < 300; i++) {
		uint32_t ids[6] = { 0, 1, 2, 3, 4, 5 };
		float xs[6], m[3] = { 0, 0, 0 };
		for (int j = 0; j < 6; j++) {
			xs[j] = (float)((double)(mixm(&s) >> 11) / 9007199254740992.0 * 2 - 1);
			m[j % 3] += xs[j] * (j + 1);
		}
		m[(int)(mixm(&s) % 3)] += 1.5f;
		int y = m[1] > m[0] ? 1 : 0;
		if (classes > 2 && m[2] > m[y])
			y = 2;
		float label = classes > 2 ? (float)y : y ? 1.0f : -1.0f;
		int k = i % 3 == 0;
		for (int rep = 0; rep < 1 + (how == 1 && k); rep++) {
			if ((how == 2 && k) || how >= 3)
				CU_ASSERT_EQUAL_FATAL(hog_writer_set_weight(w, how == 3 ? 1.0 : 2.0, &err), 0);
			CU_ASSERT_EQUAL_FATAL(hog_writer_add_sparse(w, label, ids, xs, 6, &err), 0);
		}
	}
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	hog_data *d;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, path, &err), 0);
	return d;
}

/* @p hidden 0: softmax regression (--model linear --loss softmax); else an
 * mlp with one hidden layer of @p hidden units. */
static hog_train_opts mlp_opts(int hidden)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = hidden ? HOG_MODEL_MLP : HOG_MODEL_LINEAR;
	o.loss = HOG_LOSS_SOFTMAX;
	o.mlp.nlayers = hidden ? 1 : 0;
	o.mlp.layers[0] = (uint32_t)hidden;
	o.mode = HOG_MODE_SERIAL;
	o.threads = 1;
	o.bind = HOG_BIND_NONE;
	o.no_shuffle = 1;
	o.epochs = 60;
	o.lr = 0.5;
	o.sched = HOG_SCHED_CONSTANT;
	o.l2 = 0;
	o.seed = 5;
	return o;
}

static hog_model *train_ok(const hog_data *tr, const hog_train_opts *o, hog_train_result *res)
{
	hog_model *m = NULL;
	hog_err err = { 0 };
	int rc = hog_train(tr, NULL, o, &m, res, &err);
	if (rc)
		fprintf(stderr, "\ntrain: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return m;
}

/* The largest difference of two models' weights (those of the net, not the
 * step rule's state after them). */
static double wdist(const hog_model *a, const hog_model *b)
{
	CU_ASSERT_EQUAL_FATAL(a->nparams, b->nparams);
	double d = 0;
	for (uint64_t k = 0; k < a->nparams; k++)
		d = fmax(d, fabs((double)a->params[k] - b->params[k]));
	return d;
}

static void test_mlp_duplicate_is_weight_two(void)
{
	hog_data *plain = write_mc("p_plain.lmdb", 3, 0), *dup = write_mc("p_dup.lmdb", 3, 1),
	         *two = write_mc("p_two.lmdb", 3, 2), *ones = write_mc("p_ones.lmdb", 3, 3);
	CU_ASSERT(dup->n == 400 && two->n == 300 && fabs(two->meta.weight_sum - 400) < 1e-9 && !ones->meta.weighted);
	for (int hidden = 0; hidden <= 8; hidden += 8) {
		hog_train_opts o = mlp_opts(hidden);
		o.mlp.batch = 400;
		hog_train_result rd, rt;
		hog_model *md = train_ok(dup, &o, &rd);
		o.mlp.batch = 300;
		hog_model *mt = train_ok(two, &o, &rt), *mp = train_ok(plain, &o, NULL), *mo = train_ok(ones, &o, NULL);
		double d_dt = wdist(md, mt), d_dp = wdist(md, mp);
		fprintf(stderr, "\n  %s: duplicate vs weight 2 %.3g, vs unweighted %.3g; loss %.7f %.7f", hidden ? "mlp" : "softmax",
		        d_dt, d_dp, rd.last.train_loss, rt.last.train_loss);
		CU_ASSERT(d_dt < 2e-6);
		CU_ASSERT(d_dp > 0.01);
		CU_ASSERT(fabs(rd.last.train_loss - rt.last.train_loss) < 1e-6);
		CU_ASSERT_EQUAL(wdist(mp, mo), 0.0);
		hog_model_free(md);
		hog_model_free(mt);
		hog_model_free(mp);
		hog_model_free(mo);
	}
	hog_data_free(plain);
	hog_data_free(dup);
	hog_data_free(two);
	hog_data_free(ones);
}

static void test_mlp_scale_free(void)
{
	hog_data *plain = write_mc("p_plain2.lmdb", 3, 0), *twos = write_mc("p_twos.lmdb", 3, 4);
	CU_ASSERT(twos->meta.weighted);
	for (int hidden = 0; hidden <= 8; hidden += 8) {
		hog_train_opts o = mlp_opts(hidden);
		o.no_shuffle = 0;
		o.epochs = 5;
		o.mlp.batch = 16;
		o.lr = 0.1;
		hog_model *a = train_ok(plain, &o, NULL), *b = train_ok(twos, &o, NULL);
		o.class_weight = "0=1,1=1,2=1";
		hog_model *c = train_ok(plain, &o, NULL);
		CU_ASSERT_EQUAL(wdist(a, b), 0.0);
		CU_ASSERT_EQUAL(wdist(a, c), 0.0);
		hog_model_free(a);
		hog_model_free(b);
		hog_model_free(c);
	}
	hog_data_free(plain);
	hog_data_free(twos);
}

/* Intercept-only: every example is feature 0 = 1; classes 0, 1, 2 with 300,
 * 200 and 100 examples (@p classes 3), or binary with 150 positives of 600. */
static hog_data *write_icpt(const char *name, int classes)
{
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = classes > 2 ? HOG_TASK_MULTICLASS : HOG_TASK_BINARY,
		                   .features = 1, .classes = classes > 2 ? 3 : 0 };
	hog_writer *w;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, tu_path(name), &wo, &err), 0);
	for (int i = 0; i < 600; i++) {
		uint32_t id = 0;
		float y = classes > 2 ? (float)(i % 6 < 3 ? 0 : i % 6 < 5 ? 1 : 2) : i % 4 == 0 ? 1.0f : -1.0f;
		CU_ASSERT_EQUAL_FATAL(hog_writer_add_sparse(w, y, &id, NULL, 1, &err), 0);
	}
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	hog_data *d;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path(name), &err), 0);
	return d;
}

/* The largest error of the learned log-odds log p_k - log p_0 (k = 1, 2)
 * against the weighted optimum log(c_k n_k) - log(c_0 n_0). */
static double odds_err(const hog_model *m, const hog_data *d, const double *c)
{
	static const double n[3] = { 300, 200, 100 };
	float p[3];
	hog_err err;
	hog_data one = *d; /* (every row is the same: the first) */
	one.n = 1;
	CU_ASSERT_EQUAL_FATAL(hog_model_predict_proba(m, &one, p, &err), 0);
	double e = 0;
	for (int k = 1; k < 3; k++)
		e = fmax(e, fabs(log((double)p[k] / p[0]) - log(c[k] * n[k] / (c[0] * n[0]))));
	return e;
}

static const struct { const char *cw; double c[3]; } cw_cases[] = {
	{ NULL, { 1, 1, 1 } },         { "2=3", { 1, 1, 3 } }, { "0=0.5,2=2", { 0.5, 1, 2 } },
	{ "balanced", { 1 / 300.0, 1 / 200.0, 1 / 100.0 } },
};

static void test_softmax_class_weight_closed_form(void)
{
	hog_data *d = write_icpt("p_icpt.lmdb", 3);
	for (size_t i = 0; i < sizeof cw_cases / sizeof *cw_cases; i++)
		for (int b1 = 0; b1 < 2; b1++) {
			hog_train_opts o = mlp_opts(0);
			o.class_weight = cw_cases[i].cw;
			if (!b1) { /* gradient descent: one batch of the whole set */
				o.mlp.batch = 600;
				o.epochs = 400;
			} else { /* batches of one example, a decaying step */
				o.mlp.batch = 1;
				o.no_shuffle = 0;
				o.epochs = 60;
				o.lr = 0.05;
				o.sched = HOG_SCHED_INVT;
				o.t0 = 600;
			}
			hog_model *m = train_ok(d, &o, NULL);
			double e = odds_err(m, d, cw_cases[i].c);
			if (getenv("HOG_TEST_VERBOSE") || e >= (b1 ? 0.01 : 1e-3))
				fprintf(stderr, "\n  softmax --class-weight %s, batch %d: log-odds off by %.2g",
				        cw_cases[i].cw ? cw_cases[i].cw : "-", b1 ? 1 : 600, e);
			CU_ASSERT(e < (b1 ? 0.01 : 1e-3));
			hog_model_free(m);
		}
	hog_data_free(d);
}

static void test_mlp_class_weight_modes(void)
{
	hog_data *d = write_icpt("p_icpt2.lmdb", 3);
	static const enum hog_mode modes[] = { HOG_MODE_SERIAL, HOG_MODE_LOCKFREE, HOG_MODE_BUFFERED, HOG_MODE_ATOMIC,
		                                   HOG_MODE_LOCKED };
	const double c[3] = { 0.5, 1, 2 };
	for (size_t k = 0; k < sizeof modes / sizeof *modes; k++) {
		hog_train_opts o = mlp_opts(4);
		o.class_weight = "0=0.5,2=2";
		o.mode = modes[k];
		o.threads = k ? 2 : 1;
		o.no_shuffle = 0;
		o.mlp.batch = 8;
		o.epochs = 40;
		o.lr = 0.05;
		o.sched = HOG_SCHED_INVT;
		o.t0 = 6000;
		o.flush_every = 16;
		hog_model *m = train_ok(d, &o, NULL);
		double e = odds_err(m, d, c);
		if (getenv("HOG_TEST_VERBOSE") || e >= 0.03)
			fprintf(stderr, "\n  mlp %s --class-weight 0=0.5,2=2: log-odds off by %.2g", hog_mode_name(modes[k]), e);
		CU_ASSERT(e < 0.03);
		hog_model_free(m);
	}
	hog_data_free(d);
	/* binary, one sigmoid output: the logit at log(c n+ / n-) */
	hog_data *b = write_icpt("p_icpt_bin.lmdb", 2);
	hog_train_opts o = mlp_opts(4);
	o.loss = HOG_LOSS_LOGISTIC;
	o.class_weight = "pos=6";
	o.mlp.batch = 600;
	o.epochs = 600;
	o.lr = 0.5;
	hog_model *m = train_ok(b, &o, NULL);
	float margin;
	hog_err err;
	hog_data one = *b;
	one.n = 1;
	CU_ASSERT_EQUAL_FATAL(hog_model_predict(m, &one, &margin, &err), 0);
	double logit = margin, want = log(6 * 150.0 / 450.0);
	if (fabs(logit - want) >= 1e-3)
		fprintf(stderr, "\n  binary mlp pos=6: logit %.5f, closed form %.5f", logit, want);
	CU_ASSERT(fabs(logit - want) < 1e-3);
	hog_model_free(m);
	hog_data_free(b);
}

static void test_mlp_class_weight_refused(void)
{
	hog_data *d = write_icpt("p_icpt3.lmdb", 3);
	hog_train_opts o = mlp_opts(0);
	o.epochs = 1;
	const char *bad[] = { "3=2", "-1=2", "pos=2", "1=0" };
	const char *want[] = { "class '3' is not one of the set's classes 0..2", "class '-1'", "class 'pos'", "weight '0'" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		o.class_weight = bad[i];
		hog_model *m = NULL;
		hog_err err = { 0 };
		CU_ASSERT_EQUAL(hog_train(d, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
		if (!strstr(err.msg, want[i]))
			fprintf(stderr, "\n  got '%s', wanted '%s'\n", err.msg, want[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want[i]));
		CU_ASSERT_PTR_NULL(m);
	}
	hog_data_free(d);
}

int test_weights_mlp_register(void)
{
	CU_pSuite s = CU_add_suite("weights_mlp", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_mlp_duplicate_is_weight_two);
	TU_ADD(s, test_mlp_scale_free);
	TU_ADD(s, test_softmax_class_weight_closed_form);
	TU_ADD(s, test_mlp_class_weight_modes);
	TU_ADD(s, test_mlp_class_weight_refused);
	return 0;
}
