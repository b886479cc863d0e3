/* Step rules: AdaGrad and AdaRevision (McMahan & Streeter 2014; docs/architecture.md
 * §6). Three hand-worked test vectors, written below, are replayed exactly through the kernel's per-coordinate
 * update with the interleavings they describe; then whole runs: one thread of
 * AdaRevision equals AdaGrad bit for bit, z' never decreases, in atomic mode
 * g-bar is exactly the sum of the applied gradients, AdaGrad against a hand
 * computation, and --delay K holds each update for exactly K further reads. */
#include "hogwild.h"
#include "model/linear.h"
#include "train/kernel.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One coordinate's record: x, g-bar, z, z'. alpha = beta = 1. */
typedef struct { _Atomic float r[4]; } coord;

static void coord_init(coord *c)
{
	for (int i = 0; i < 4; i++)
		atomic_init(&c->r[i], 0.0f);
}

static float gbar_read(coord *c) { return ald(&c->r[1]); }

static void write_g(coord *c, enum hog_mode mode, float g, float gold)
{
	float nw; /* (the value written: kernel.h's --average note) */
	if (mode == HOG_MODE_ATOMIC)
		upd_shared(HOG_MODE_ATOMIC, HOG_RULE_ADAREVISION, c->r, g, 0.0f, gold, 1.0f, 1.0f, &nw);
	else
		upd_shared(HOG_MODE_LOCKFREE, HOG_RULE_ADAREVISION, c->r, g, 0.0f, gold, 1.0f, 1.0f, &nw);
}

static void test_vectors(void)
{
	for (int m = 0; m < 2; m++) {
		enum hog_mode mode = m ? HOG_MODE_ATOMIC : HOG_MODE_LOCKFREE;
		coord c;
		/* no delay: gradients 1 then 1 -> AdaGrad's -1/2 - 1/(1+sqrt 2) */
		coord_init(&c);
		float s = gbar_read(&c);
		write_g(&c, mode, 1.0f, s);
		s = gbar_read(&c);
		write_g(&c, mode, 1.0f, s);
		CU_ASSERT_DOUBLE_EQUAL(ald(&c.r[0]), -0.914214, 1e-6);
		/* two reads before either write, g = 1 each */
		coord_init(&c);
		float a = gbar_read(&c), b = gbar_read(&c);
		write_g(&c, mode, 1.0f, a);
		write_g(&c, mode, 1.0f, b);
		CU_ASSERT_DOUBLE_EQUAL(ald(&c.r[0]), -0.666667, 1e-6);
		/* A(g=1) and B(g=-0.5) read at g-bar 0; A writes; C reads; B writes; C(g=2) writes */
		coord_init(&c);
		a = gbar_read(&c);
		b = gbar_read(&c);
		write_g(&c, mode, 1.0f, a);
		float cc = gbar_read(&c);
		write_g(&c, mode, -0.5f, b);
		CU_ASSERT_DOUBLE_EQUAL(ald(&c.r[2]), 0.25, 1e-6); /* z dropped */
		CU_ASSERT_DOUBLE_EQUAL(ald(&c.r[3]), 1.0, 1e-6);  /* z' did not */
		CU_ASSERT_DOUBLE_EQUAL(ald(&c.r[0]), -0.25, 1e-6);
		write_g(&c, mode, 2.0f, cc);
		CU_ASSERT_DOUBLE_EQUAL(ald(&c.r[0]), -1.1, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(ald(&c.r[1]), 2.5, 1e-6);
	}
}

/* Random interleavings of reads and writes: z' never decreases, and g-bar is the
 * sum of the gradients written. */
static void test_zmax_monotone(void)
{
	uint64_t s = 12345;
	for (int trial = 0; trial < 200; trial++) {
		coord c;
		coord_init(&c);
		float pending_g[8], pending_s[8], sum = 0, last_zmax = 0;
		int np = 0;
		for (int step = 0; step < 64; step++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			int read = np == 0 || (np < 8 && (s >> 60) < 9);
			if (read) {
				pending_s[np] = gbar_read(&c);
				pending_g[np++] = (float)((int)((s >> 33) % 9) - 4) * 0.25f;
			} else {
				int k = (int)((s >> 40) % np);
				write_g(&c, HOG_MODE_LOCKFREE, pending_g[k], pending_s[k]);
				sum += pending_g[k];
				pending_g[k] = pending_g[np - 1];
				pending_s[k] = pending_s[--np];
				float zm = ald(&c.r[3]);
				CU_ASSERT(zm >= last_zmax);
				last_zmax = zm;
				CU_ASSERT(isfinite(ald(&c.r[0])));
			}
		}
		CU_ASSERT_DOUBLE_EQUAL(ald(&c.r[1]), sum, 1e-4);
	}
}

static hog_data *small;

static int make_small(void)
{
	hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .seed = 11, .examples = 5000, .features = 400,
	                   .nnz_per_example = 15 };
	hog_err err;
	const char *p = tu_path("ada.lmdb");
	if (hog_gen(p, &g, &err) || hog_data_load(&small, p, &err))
		return -1;
	return 0;
}

static int free_small(void)
{
	hog_data_free(small);
	return 0;
}

static hog_model *run(enum hog_mode mode, enum hog_rule rule, int threads, int delay, hog_train_result *res)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.mode = mode;
	o.rule = rule;
	o.threads = threads;
	o.epochs = 3;
	o.lr = 0.2;
	o.delay = delay;
	o.bind = HOG_BIND_NONE;
	o.measure_delay = 1;
	hog_model *m = NULL;
	hog_err err;
	int rc = hog_train(small, NULL, &o, &m, res, &err);
	if (rc)
		fprintf(stderr, "train: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return m;
}

static void test_one_thread_is_adagrad(void)
{
	hog_model *ag = run(HOG_MODE_SERIAL, HOG_RULE_ADAGRAD, 1, 0, NULL);
	hog_model *ar = run(HOG_MODE_SERIAL, HOG_RULE_ADAREVISION, 1, 0, NULL);
	hog_model_info ia, ir;
	hog_model_info_get(ag, &ia);
	hog_model_info_get(ar, &ir);
	CU_ASSERT_EQUAL(memcmp(ia.weights, ir.weights, ia.dim * sizeof(float)), 0);
	CU_ASSERT_EQUAL(ia.bias, ir.bias);
	/* and the sums of squares agree: AdaGrad's G is AdaRevision's z (and z') */
	for (uint64_t v = 0; v < ag->dim; v++) {
		CU_ASSERT_EQUAL(ag->params[v * 2 + 1], ar->params[v * 4 + 2]);
		CU_ASSERT_EQUAL(ar->params[v * 4 + 2], ar->params[v * 4 + 3]);
	}
	/* with one thread and --delay 0 there is nothing to revise: g-bar - snapshot = 0 */
	hog_model *ar0 = run(HOG_MODE_LOCKFREE, HOG_RULE_ADAREVISION, 1, 0, NULL);
	CU_ASSERT_EQUAL(memcmp(ar->params, ar0->params, (ar->dim + 1) * 4 * sizeof(float)), 0);
	hog_model_free(ag);
	hog_model_free(ar);
	hog_model_free(ar0);
}

/* AdaGrad on one example "1 1:1", logistic, twice (two epochs), by hand. */
static void test_adagrad_by_hand(void)
{
	const char *txt = tu_write("ag.svm", "1 1:1\n", (size_t)-1), *db = tu_path("ag.lmdb");
	const char *in[] = { txt };
	hog_import_opts io = { .format = HOG_FORMAT_LIBSVM, .header = -1 };
	hog_err err;
	hog_data *d;
	CU_ASSERT_EQUAL_FATAL(hog_import(in, 1, db, &io, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, db, &err), 0);
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.mode = HOG_MODE_SERIAL;
	o.rule = HOG_RULE_ADAGRAD;
	o.epochs = 2;
	o.lr = 0.5;
	o.l2 = 0;
	o.adagrad_beta = 1;
	hog_model *m = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &o, &m, NULL, &err), 0);
	/* step 1: m = 0, g = -1/2; G = 1/4; w = -(0.5/(1+0.5)) * -0.5 = 1/6 (w and bias alike)
	 * step 2: m = 2/6, g = -1/(1+e^(1/3)); G = 1/4 + g^2; w += -(0.5/(1+sqrt G)) g */
	double w = 1.0 / 6, g2 = -1.0 / (1.0 + exp(2.0 / 6)), G = 0.25 + g2 * g2;
	w += -(0.5 / (1 + sqrt(G))) * g2;
	hog_model_info info;
	hog_model_info_get(m, &info);
	CU_ASSERT_DOUBLE_EQUAL(info.weights[0], w, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(info.bias, w, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(m->params[1], G, 1e-6);
	hog_model_free(m);
	hog_data_free(d);
}

/* Hinge loss on N copies of "1 1:1" with a tiny step: every gradient is -1, so in
 * atomic mode g-bar must be exactly -N on the feature and on the bias. */
static void test_atomic_gbar_is_sum(void)
{
	const uint64_t n = 1 << 16;
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = HOG_TASK_BINARY };
	hog_writer *w;
	hog_err err;
	uint32_t id = 0;
	const char *db = tu_path("gbar.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, db, &wo, &err), 0);
	for (uint64_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL_FATAL(hog_writer_add_sparse(w, 1.0f, &id, NULL, 1, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	hog_data *d;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, db, &err), 0);
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.mode = HOG_MODE_ATOMIC;
	o.rule = HOG_RULE_ADAREVISION;
	o.loss = HOG_LOSS_HINGE;
	o.threads = 2;
	o.epochs = 1;
	o.lr = 1.0 / (1 << 20);
	o.l2 = 0;
	o.bind = HOG_BIND_NONE;
	hog_model *m = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &o, &m, NULL, &err), 0);
	CU_ASSERT_EQUAL(m->params[0 * 4 + 1], -(float)n); /* feature 0's g-bar */
	CU_ASSERT_EQUAL(m->params[1 * 4 + 1], -(float)n); /* the bias's */
	CU_ASSERT(m->params[0 * 4 + 3] >= m->params[0 * 4 + 2]); /* z' >= z */
	hog_model_free(m);
	hog_data_free(d);
}

/* --delay K on one thread: each update waits for exactly K further reads. */
static void test_delay_measured(void)
{
	hog_train_result r;
	for (int k = 0; k <= 64; k += 16) {
		hog_model *m = run(HOG_MODE_LOCKFREE, HOG_RULE_ADAREVISION, 1, k, &r);
		/* updates still queued at the epoch's end are written with fewer reads after them */
		CU_ASSERT(r.last.delay_samples > 10);
		CU_ASSERT_DOUBLE_EQUAL(r.last.delay_max, k, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(r.last.delay_p99, k, 1e-9);
		CU_ASSERT(r.last.delay_mean <= k && r.last.delay_mean >= 0.9 * k);
		hog_model_free(m);
	}
	/* delay changes the result, and training still converges */
	hog_model *a = run(HOG_MODE_LOCKFREE, HOG_RULE_SGD, 1, 0, &r);
	double l0 = r.last.train_loss;
	hog_model *b = run(HOG_MODE_LOCKFREE, HOG_RULE_SGD, 1, 32, &r);
	CU_ASSERT(memcmp(a->params, b->params, (a->dim + 1) * sizeof(float)) != 0);
	CU_ASSERT(r.last.train_loss < 0.69 && fabs(r.last.train_loss - l0) < 0.05);
	hog_model_free(a);
	hog_model_free(b);
	/* every step rule trains as well with a short delay as without (a delayed read
	 * once used the wrong record stride for adagrad: its loss went to ~200) */
	for (int rule = 0; rule < 3; rule++) {
		hog_model *m0 = run(HOG_MODE_LOCKFREE, rule, 1, 0, &r);
		double base = r.last.train_loss;
		hog_model *m1 = run(HOG_MODE_LOCKFREE, rule, 1, 8, &r);
		CU_ASSERT(fabs(r.last.train_loss - base) < 0.02);
		hog_model_free(m0);
		hog_model_free(m1);
	}
	/* two threads: at least K, and every mode runs with a delay */
	for (int mode = HOG_MODE_LOCKFREE; mode < HOG_MODE_COUNT; mode++) {
		if (mode == HOG_MODE_BUFFERED)
			continue;
		hog_model *m = run(mode, HOG_RULE_ADAREVISION, 2, 16, &r);
		CU_ASSERT(r.last.delay_mean >= 0.9 * 16 && r.last.delay_p99 >= 16);
		CU_ASSERT(r.last.train_loss < 0.69);
		hog_model_free(m);
	}
}

int test_adarevision_register(void)
{
	CU_pSuite s = CU_add_suite("adarevision", make_small, free_small);
	if (!s)
		return -1;
	TU_ADD(s, test_vectors);
	TU_ADD(s, test_zmax_monotone);
	TU_ADD(s, test_one_thread_is_adagrad);
	TU_ADD(s, test_adagrad_by_hand);
	TU_ADD(s, test_atomic_gbar_is_sum);
	TU_ADD(s, test_delay_measured);
	return 0;
}
