/* Tests of the mlp's deterministic mode (src/train/mlp_determ.c, issue 25):
 * the model files are the same bytes over 4 runs at 2 threads and at 1, 2 and
 * 4 threads (more than this machine's cores) for every step rule the mlp takes
 * (sgd, momentum, adagrad, adam, adamw), and for a sparse set trained as
 * softmax regression (--model linear --loss softmax); its arithmetic is a
 * plain loop written here (S = 5 shards of 9 or 10 examples, each a whole-shard
 * batch: the shards' gradients weighed by their rows and summed, then one step
 * of the rule with one state, in double); a run resumed from an epoch's
 * checkpoint at another thread count is the straight run; options the mode
 * does not take are refused. */
#include "hogwild.h"
#include "model/model.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 48, D = 5, C = 3 };
static hog_data *small, *big, *sparse;
static float X[N][D];
static int Y[N];

static int suite_init(void)
{
	hog_writer *w = NULL;
	hog_writer_opts wo = { .kind = HOG_KIND_DENSE, .task = HOG_TASK_MULTICLASS, .features = D, .classes = C };
	hog_err err;
	const char *p = tu_path("dmlp_small.lmdb");
	if (hog_writer_open(&w, p, &wo, &err))
		return -1;
	uint64_t s = 5;
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
	hog_gen_opts g = { .kind = HOG_KIND_DENSE, .seed = 3, .examples = 3000, .features = 20, .classes = 4 };
	const char *q = tu_path("dmlp_big.lmdb");
	if (hog_gen(q, &g, &err) || hog_data_load(&big, q, &err))
		return -1;
	hog_gen_opts gs = { .kind = HOG_KIND_SPARSE, .seed = 4, .examples = 2000, .features = 300,
		                .nnz_per_example = 8 };
	const char *r = tu_path("dmlp_sparse.lmdb");
	if (hog_gen(r, &gs, &err) || hog_data_load(&sparse, r, &err)) {
		fprintf(stderr, "deterministic mlp fixture: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int suite_clean(void)
{
	hog_data_free(small);
	hog_data_free(big);
	hog_data_free(sparse);
	return 0;
}

enum { R_SGD, R_MOMENTUM, R_ADAGRAD, R_ADAM, R_ADAMW, R_COUNT };
static const char *const rname[R_COUNT] = { "sgd", "momentum", "adagrad", "adam", "adamw" };

static hog_train_opts dopts(int threads, int rule)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = HOG_MODEL_MLP;
	o.mode = HOG_MODE_DETERMINISTIC;
	o.threads = threads;
	o.bind = HOG_BIND_NONE;
	o.rule = rule == R_ADAGRAD ? HOG_RULE_ADAGRAD : rule == R_ADAM ? HOG_RULE_ADAM
	         : rule == R_ADAMW ? HOG_RULE_ADAMW : HOG_RULE_SGD;
	o.mlp.momentum = rule == R_MOMENTUM ? 0.9 : 0;
	o.mlp.momentum_auto = 0;
	o.epochs = 3;
	o.seed = 11;
	o.shards = 5;
	o.mlp.batch = 8;
	o.l2 = 1e-4;
	return o;
}

static hog_model *train(const hog_data *d, const hog_train_opts *o)
{
	hog_model *m = NULL;
	hog_err err = { 0 };
	int rc = hog_train(d, NULL, o, &m, NULL, &err);
	if (rc)
		fprintf(stderr, "\ntrain: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	return m;
}

/* Every rule with a hidden layer: 4 runs at 2 threads (sgd), then 1 and 4
 * threads; another --shards changes the model. */
static void test_threads_identical(void)
{
	for (int c = 0; c < R_COUNT; c++) {
		hog_train_opts o = dopts(2, c);
		o.mlp.nlayers = 1;
		o.mlp.layers[0] = 16;
		hog_model *ref = train(big, &o);
		for (int run = 0; run < (c == 0 ? 3 : 0); run++) {
			hog_model *m = train(big, &o);
			CU_ASSERT(tu_same_model(ref, m));
			hog_model_free(m);
		}
		const int threads[] = { 1, 4 };
		for (int t = 0; t < 2; t++) {
			o.threads = threads[t];
			hog_model *m = train(big, &o);
			CU_ASSERT(tu_same_model(ref, m));
			if (!tu_same_model(ref, m))
				fprintf(stderr, "\n%s: %d threads differ from 2\n", rname[c], threads[t]);
			hog_model_free(m);
		}
		o.shards = 6;
		hog_model *m6 = train(big, &o);
		CU_ASSERT(!tu_same_model(ref, m6));
		hog_model_free(m6);
		hog_model_free(ref);
	}
}

/* A sparse set as softmax regression (the linear model routed to the mlp): 1
 * and 3 threads, sgd and adam. */
static void test_sparse_softmax(void)
{
	for (int c = 0; c < 2; c++) {
		hog_train_opts o = dopts(1, c ? R_ADAM : R_SGD);
		o.model = HOG_MODEL_LINEAR;
		o.loss = HOG_LOSS_SOFTMAX;
		hog_model *a = train(sparse, &o);
		o.threads = 3;
		hog_model *b = train(sparse, &o);
		CU_ASSERT(tu_same_model(a, b));
		hog_model_free(a);
		hog_model_free(b);
	}
}

/* The plain loop: softmax regression from zero, one step an epoch on the mean
 * cross-entropy of all N examples (5 shards of 9 or 10 examples, each one
 * whole-shard batch of 10: the shards' gradients weighed by their rows), the
 * rule in double with one state (Adam's step count: the step's, over epochs); w[j*C+c] input j's weight to class c, then the
 * C biases (the mlp's layout). */
static void reference(int rule, double lr, double l2, double mu, double beta, double eps, int E, double *w)
{
	const int P = D * C + C;
	double s1[D * C + C] = { 0 }, s2[D * C + C] = { 0 };
	const double b1 = 0.9, b2 = 0.999;
	memset(w, 0, P * sizeof *w);
	for (int t = 1; t <= E; t++) {
		double g[D * C + C] = { 0 };
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
		for (int k = 0; k < P; k++) {
			double gk = rule == R_ADAMW ? g[k] : g[k] + l2 * w[k];
			if (rule == R_SGD) {
				w[k] -= lr * gk;
			} else if (rule == R_MOMENTUM) {
				s1[k] = mu * s1[k] + gk;
				w[k] -= lr * s1[k];
			} else if (rule == R_ADAGRAD) {
				s1[k] += gk * gk;
				w[k] -= lr * gk / (beta + sqrt(s1[k]));
			} else {
				s1[k] = b1 * s1[k] + (1 - b1) * gk;
				s2[k] = b2 * s2[k] + (1 - b2) * gk * gk;
				double step = lr / (1 - pow(b1, t)) * s1[k] / (sqrt(s2[k]) / sqrt(1 - pow(b2, t)) + eps);
				w[k] -= step + (rule == R_ADAMW ? lr * l2 * w[k] : 0);
			}
		}
	}
}

static void test_plain_loop(void)
{
	for (int c = 0; c < R_COUNT; c++) {
		hog_train_opts o = dopts(2, c);
		o.epochs = 4;
		o.mlp.batch = 10;
		o.sched = HOG_SCHED_CONSTANT;
		o.lr = c >= R_ADAM ? 0.05 : 0.5;
		o.l2 = 0.01;
		o.mlp.adam_eps = 1e-2; /* (at 1e-8 a gradient near zero steps by +-lr on its float rounding) */
		hog_model *m = train(small, &o);
		const int P = D * C + C;
		CU_ASSERT_FATAL(m->nparams >= (uint64_t)P);
		double w[D * C + C], worst = 0;
		reference(c, o.lr, o.l2, o.mlp.momentum, o.adagrad_beta, o.mlp.adam_eps, o.epochs, w);
		for (int k = 0; k < P; k++) {
			double e = fabs(m->params[k] - w[k]) / (1e-4 + fabs(w[k]));
			worst = e > worst ? e : worst;
		}
		if (worst > 1e-3)
			fprintf(stderr, "\n%s: the trainer differs from the plain loop by %g\n", rname[c], worst);
		CU_ASSERT(worst < 1e-3);
		hog_model_free(m);
	}
}

/* Two epochs at 2 threads with a checkpoint, resumed at 3 to 4 epochs: the
 * straight run at 1 thread, bit for bit (the one optimizer state and the step
 * count travel). */
static void test_resume(void)
{
	const int rules[] = { R_MOMENTUM, R_ADAM };
	for (int c = 0; c < 2; c++) {
		hog_train_opts o = dopts(1, rules[c]);
		o.mlp.nlayers = 1;
		o.mlp.layers[0] = 8;
		o.epochs = 4;
		hog_model *straight = train(big, &o);
		const char *ck = tu_path("dmlp.ckpt");
		o.threads = 2;
		o.epochs = 2;
		o.checkpoint = ck;
		hog_model_free(train(big, &o));
		o.threads = 3;
		o.epochs = 4;
		o.checkpoint = NULL;
		o.resume = ck;
		hog_model *resumed = train(big, &o);
		CU_ASSERT(tu_same_model(straight, resumed));
		if (!tu_same_model(straight, resumed))
			fprintf(stderr, "\n%s: the resumed run differs\n", rname[rules[c]]);
		hog_model_free(straight);
		hog_model_free(resumed);
	}
}

/* Stopped inside an epoch at 2 threads, resumed at 3: the straight run
 * (every worker stops at the same round; Adam's step count and state
 * included). */
static void test_stop_resume_other_threads(void)
{
	hog_train_opts o = dopts(2, R_ADAM);
	o.mlp.nlayers = 1;
	o.mlp.layers[0] = 8;
	CU_ASSERT_EQUAL(tu_stop_resume_same(big, NULL, &o, 0, 3), 1);
}

static void refused(hog_train_opts *o, const char *word)
{
	hog_err err = { 0 };
	hog_model *m = NULL;
	CU_ASSERT_EQUAL(hog_train(big, NULL, o, &m, NULL, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, word));
	if (!strstr(err.msg, word))
		fprintf(stderr, "\nwanted '%s' in: %s\n", word, err.msg);
	CU_ASSERT_PTR_NULL(m);
}

static void test_refused(void)
{
	hog_train_opts o = dopts(2, R_SGD);
	o.shards = -1;
	refused(&o, "--shards");
	o = dopts(2, R_SGD);
	o.mlp.batch_auto = 1;
	o.mlp.batch_max = 64;
	refused(&o, "--batch");
	o = dopts(2, R_SGD);
	o.mlp.lars = 0.01;
	refused(&o, "--lars");
	o = dopts(2, R_SGD);
	o.flush_every = 100;
	refused(&o, "--flush-every");
}

int test_deterministic_mlp_register(void)
{
	CU_pSuite s = CU_add_suite("deterministic_mlp", suite_init, suite_clean);
	if (!s)
		return -1;
	TU_ADD(s, test_threads_identical);
	TU_ADD(s, test_sparse_softmax);
	TU_ADD(s, test_plain_loop);
	TU_ADD(s, test_resume);
	TU_ADD(s, test_stop_resume_other_threads);
	TU_ADD(s, test_refused);
	return 0;
}
