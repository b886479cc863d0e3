/* --l1 (hog_linear_opts.l1): L1 regularization of the linear model, lazy and
 * sparse (kernel.h, l1_soft).
 *
 * The fixture is written here: 10 informative features (ids 0..9, in every
 * example) decide the label; 20 noise features per example are drawn from the
 * other 9,990 of 10,000. The checks:
 *  - the L1 model's nonzeros are mostly the informative features, far fewer
 *    than 10,000 in all, and its test accuracy is at most 0.5 point below the
 *    L2 model's (with --average on and off; measured: 1 point above);
 *  - serial mode equals a plain loop written here from the documented rule
 *    (sgd and adagrad), to float rounding;
 *  - every other mode at 2 threads gives a sparse model too;
 *  - the flushes of buffered and replica modes stop a zeroed weight at zero;
 *  - a checkpoint resumes exactly, and one of --l1 is refused to a run
 *    without it (the options hash; l1 0 stays out of it, which
 *    test_opts_hash's pinned values check);
 *  - l1 0 trains exactly as before (the same model file, byte for byte);
 *  - bad values and adarevision are refused naming --l1. */
#include "hogwild.h"
#include "model/model.h"
#include "sys/topo.h"
#include "train/replica.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define L1_DIM 10000
#define L1_INFO 10

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double unif(uint64_t *s) /* [-1, 1) */
{
	return (double)(mix(s) >> 11) / 9007199254740992.0 * 2 - 1;
}

/* @p n examples of @p dim features: the first L1_INFO informative, @p noise
 * others per example; labels flipped at rate 2%. */
static hog_data *write_set(const char *name, uint64_t n, uint64_t dim, uint32_t noise, uint64_t seed)
{
	static const double truth[L1_INFO] = { 2.0, -2.0, 1.5, -1.5, 1.0, -1.0, 0.8, -0.8, 0.6, -0.6 };
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = HOG_TASK_BINARY, .features = dim };
	hog_writer *w;
	hog_err err;
	const char *path = tu_path(name);
	if (hog_writer_open(&w, path, &wo, &err))
		return NULL; /* (no CU_ASSERT: suite_init calls it outside a test) */
	uint32_t ids[L1_INFO + 64];
	float xs[L1_INFO + 64];
	for (uint64_t i = 0; i < n; i++) {
		double m = 0.1;
		uint32_t k = 0;
		for (uint32_t v = 0; v < L1_INFO; v++, k++) {
			double u = unif(&seed);
			m += truth[v] * u;
			ids[k] = v;
			xs[k] = (float)u;
		}
		for (uint32_t q = 0; q < noise; q++) { /* ascending, distinct: one per slice of the rest */
			uint64_t span = (dim - L1_INFO) / noise;
			ids[k] = (uint32_t)(L1_INFO + q * span + mix(&seed) % span);
			xs[k++] = (float)unif(&seed);
		}
		float y = m > 0 ? 1.0f : -1.0f;
		if (mix(&seed) % 100 < 2)
			y = -y;
		if (hog_writer_add_sparse(w, y, ids, xs, k, &err)) {
			hog_writer_abort(w);
			return NULL;
		}
	}
	hog_data *d = NULL;
	if (hog_writer_commit(w, &err) || hog_data_load(&d, path, &err))
		fprintf(stderr, "\n%s: %s\n", name, err.msg);
	return d;
}

static hog_data *tr_set, *te_set;

static int suite_init(void)
{
	tr_set = write_set("l1_tr.lmdb", 4000, L1_DIM, 20, 7);
	te_set = write_set("l1_te.lmdb", 2000, L1_DIM, 20, 8);
	return !tr_set || !te_set;
}

static int suite_clean(void)
{
	hog_data_free(tr_set);
	hog_data_free(te_set);
	return 0;
}

static hog_train_opts base_opts(enum hog_mode mode, int threads)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.mode = mode;
	o.threads = threads;
	o.bind = HOG_BIND_NONE;
	o.epochs = 10;
	o.seed = 3;
	o.linear.average = 1; /* the command line's default */
	return o;
}

static hog_model *train_ok(const hog_data *tr, const hog_train_opts *o)
{
	hog_model *m = NULL;
	hog_err err = { 0 };
	int rc = hog_train(tr, NULL, o, &m, NULL, &err);
	if (rc)
		fprintf(stderr, "\ntrain: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return m;
}

/* Nonzero weights in all and among the informative features. */
static uint64_t nonzeros(const hog_model *m, uint64_t *informative)
{
	hog_model_info info;
	hog_model_info_get(m, &info);
	uint64_t n = 0, k = 0;
	for (uint64_t v = 0; v < info.dim; v++)
		if (info.weights[v] != 0.0f) {
			n++;
			k += v < L1_INFO;
		}
	*informative = k;
	return n;
}

static double accuracy(const hog_model *m)
{
	hog_eval ev;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_model_eval(m, te_set, &ev, &err), 0);
	return 100 * ev.accuracy;
}

#define L1_LAMBDA 3e-3 /* (2e-3 keeps 23 weights, 5e-3 ten; the L2 model about 9,990) */

/* The L1 model keeps the informative features and drops the noise; its test
 * accuracy is the L2 model's within half a point. */
static void test_sparse_informative(void)
{
	for (int avg = 1; avg >= 0; avg--) {
		hog_train_opts o = base_opts(HOG_MODE_SERIAL, 1);
		o.linear.average = avg;
		hog_model *l2 = train_ok(tr_set, &o);
		o.linear.l1 = L1_LAMBDA;
		hog_model *l1 = train_ok(tr_set, &o);
		uint64_t k2, k1, n2 = nonzeros(l2, &k2), n1 = nonzeros(l1, &k1);
		double a2 = accuracy(l2), a1 = accuracy(l1);
		if (getenv("HOG_TEST_VERBOSE"))
			fprintf(stderr, "\naverage %d: l2 %llu nonzeros, %.2f%%; l1 %llu nonzeros (%llu informative), %.2f%%\n",
			        avg, (unsigned long long)n2, a2, (unsigned long long)n1, (unsigned long long)k1, a1);
		CU_ASSERT(n2 > L1_DIM / 2); /* (the L2 model is dense: the comparison can tell) */
		CU_ASSERT_EQUAL(k1, L1_INFO);
		CU_ASSERT(n1 <= 2 * L1_INFO); /* most of the nonzeros are informative */
		CU_ASSERT(a1 >= a2 - 0.5); /* (dropping the noise features, it is rather better) */
		CU_ASSERT(a1 > 85);
		hog_model_free(l2);
		hog_model_free(l1);
	}
}

/* The plain loop: serial logistic SGD (backoff schedule) or AdaGrad, the rule
 * as documented: after a coordinate's step of size eta, its weight moves
 * eta * l1 * n / d_v towards zero and stops at zero; l2 as test_average's
 * reference (l2 * n / d_v, clamped at 1/lr for sgd, beta/lr for adagrad); the
 * bias unregularized. The visiting order is the documented row shuffle
 * (test_average.c; the runs compared ask for it: --shuffle-chunk 1). */
static void ref_shuffle(uint32_t *a, uint64_t n, uint64_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		a[i] = (uint32_t)i;
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = mix(&seed) % i;
		uint32_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

static float soft(float w, float t)
{
	return w > t ? w - t : w < -t ? w + t : 0.0f;
}

static void ref_train(const hog_data *d, const hog_train_opts *o, float *w)
{
	const uint64_t n = d->n, D = d->dim;
	const int ada = o->rule == HOG_RULE_ADAGRAD;
	uint32_t *deal = malloc(n * 4), *order = malloc(n * 4);
	uint64_t *cnt = calloc(D, 8);
	float *reg = malloc(D * 4), *t = malloc(D * 4), *G = calloc(D + 1, 4);
	for (uint64_t j = 0; j < d->nnz; j++)
		cnt[d->ids[j]]++;
	const double cap = ada ? o->adagrad_beta / o->lr : 1.0 / o->lr;
	for (uint64_t v = 0; v < D; v++) {
		double g = cnt[v] ? o->l2 * (double)n / (double)cnt[v] : 0;
		reg[v] = (float)(g < cap ? g : cap);
		t[v] = cnt[v] ? (float)(o->linear.l1 * (double)n / (double)cnt[v]) : 0.0f;
	}
	memset(w, 0, (D + 1) * sizeof *w);
	ref_shuffle(deal, n, o->seed);
	for (int ep = 0; ep < o->epochs; ep++) {
		uint64_t s = o->seed ^ 0x5EEDull;
		s = mix(&s) ^ ((uint64_t)ep << 20);
		ref_shuffle(order, n, mix(&s));
		const float lr = ada ? (float)o->lr : (float)(o->lr * pow(o->backoff, ep));
		const float beta = (float)o->adagrad_beta;
		for (uint64_t i = 0; i < n; i++) {
			uint32_t r = deal[order[i]];
			float m = w[D], y = d->labels[r];
			for (uint64_t j = d->offsets[r]; j < d->offsets[r + 1]; j++)
				m += w[d->ids[j]] * d->vals[j];
			float g = -y / (1.0f + expf(y * m));
			if (ada) {
				G[D] += g * g;
				w[D] = w[D] - lr / (beta + sqrtf(G[D])) * g;
			} else {
				w[D] = w[D] - lr * g;
			}
			for (uint64_t j = d->offsets[r]; j < d->offsets[r + 1]; j++) {
				uint32_t v = d->ids[j];
				float gv = g * d->vals[j] + reg[v] * w[v], eta = lr;
				if (ada) {
					G[v] += gv * gv;
					eta = lr / (beta + sqrtf(G[v]));
				}
				w[v] = soft(w[v] - eta * gv, eta * t[v]);
			}
		}
	}
	free(deal);
	free(order);
	free(cnt);
	free(reg);
	free(t);
	free(G);
}

static void test_plain_loop(void)
{
	hog_data *d = write_set("l1_tiny.lmdb", 600, 200, 6, 21);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (int ada = 0; ada < 2; ada++) {
		hog_train_opts o = base_opts(HOG_MODE_SERIAL, 1);
		o.linear.average = 0;
		o.shuffle_chunk = 1; /* (ref_train's order; the default chunks: test_average.c) */
		o.epochs = 3;
		o.rule = ada ? HOG_RULE_ADAGRAD : HOG_RULE_SGD;
		o.lr = ada ? 0.5 : 0.3;
		o.l2 = 1e-4;
		o.linear.l1 = 2e-3;
		hog_model *m = train_ok(d, &o);
		float *w = malloc((d->dim + 1) * sizeof *w);
		ref_train(d, &o, w);
		hog_model_info info;
		hog_model_info_get(m, &info);
		double diff = fabs(info.bias - w[d->dim]), big = fabs(w[d->dim]);
		uint64_t zm = 0, zr = 0;
		for (uint64_t v = 0; v < d->dim; v++) {
			diff = fmax(diff, fabs(info.weights[v] - w[v]));
			big = fmax(big, fabs(w[v]));
			zm += info.weights[v] == 0.0f;
			zr += w[v] == 0.0f;
		}
		if (diff > 1e-6 * big || getenv("HOG_TEST_VERBOSE"))
			fprintf(stderr, "\n%s: serial vs plain loop %g (largest weight %g), zeros %llu and %llu of %llu\n",
			        ada ? "adagrad" : "sgd", diff, big, (unsigned long long)zm, (unsigned long long)zr,
			        (unsigned long long)d->dim);
		CU_ASSERT(big > 0.1);
		CU_ASSERT(diff <= 1e-6 * big);
		CU_ASSERT(zr > d->dim / 4); /* the threshold is at work ... */
		CU_ASSERT(zm + 2 >= zr && zr + 2 >= zm); /* ... the same (up to rounding at the threshold) */
		/* without the threshold the loop is another model: the comparison can tell */
		o.linear.l1 = 0;
		ref_train(d, &o, w);
		double off = 0;
		for (uint64_t v = 0; v < d->dim; v++)
			off = fmax(off, fabs(info.weights[v] - w[v]));
		CU_ASSERT(off > 1e-3 * big);
		free(w);
		hog_model_free(m);
	}
	hog_data_free(d);
}

/* Every mode the linear model takes, at 2 threads (and replica's node
 * replicas on a synthetic machine of 2 NUMA nodes): a sparse model that keeps
 * the informative features. */
static void test_modes_sparse(void)
{
	static const struct {
		enum hog_mode mode;
		enum hog_rule rule;
		int delay, threads;
		const char *topology; /* replica on 2 synthetic NUMA nodes: node replicas (hwloc) */
	} runs[] = {
		{ HOG_MODE_LOCKFREE, HOG_RULE_SGD, 0, 2, NULL },     { HOG_MODE_ATOMIC, HOG_RULE_SGD, 0, 2, NULL },
		{ HOG_MODE_STRIPED, HOG_RULE_SGD, 0, 2, NULL },      { HOG_MODE_LOCKED, HOG_RULE_SGD, 0, 2, NULL },
		{ HOG_MODE_BUFFERED, HOG_RULE_SGD, 0, 2, NULL },     { HOG_MODE_REPLICA, HOG_RULE_SGD, 0, 2, NULL },
		{ HOG_MODE_LOCKFREE, HOG_RULE_SGD, 4, 2, NULL },     { HOG_MODE_ATOMIC, HOG_RULE_ADAGRAD, 0, 2, NULL },
		{ HOG_MODE_BUFFERED, HOG_RULE_ADAGRAD, 0, 2, NULL }, { HOG_MODE_REPLICA, HOG_RULE_ADAGRAD, 0, 2, NULL },
		{ HOG_MODE_REPLICA, HOG_RULE_SGD, 0, 3, "numa:2 core:1 pu:1" },
	};
	hog_train_opts so = base_opts(HOG_MODE_SERIAL, 1);
	so.linear.l1 = L1_LAMBDA;
	hog_model *ref = train_ok(tr_set, &so);
	const double aref = accuracy(ref);
	hog_model_free(ref);
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		hog_train_opts o = base_opts(runs[i].mode, runs[i].threads);
		o.rule = runs[i].rule;
		o.delay = runs[i].delay;
		o.topology = runs[i].topology;
		o.linear.l1 = runs[i].rule == HOG_RULE_ADAGRAD ? 1e-2 : L1_LAMBDA;
		hog_model *m = NULL;
		hog_train_result res;
		hog_err err = { 0 };
		int rc = hog_train(tr_set, NULL, &o, &m, &res, &err);
		if (rc == HOG_ENOTSUP && runs[i].topology && !strcmp(hog_topo_backend(), "none"))
			continue; /* no hwloc: no synthetic machine */
		if (rc)
			fprintf(stderr, "\n%s: %s\n", hog_mode_name(runs[i].mode), err.msg);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		if (runs[i].topology)
			CU_ASSERT_EQUAL(res.node_replicas, 2);
		uint64_t k, n = nonzeros(m, &k);
		double a = accuracy(m);
		if (getenv("HOG_TEST_VERBOSE"))
			fprintf(stderr, "\n%s %s delay %d %s: %llu nonzeros (%llu informative), %.2f%% (serial %.2f%%)\n",
			        hog_mode_name(runs[i].mode), hog_rule_name(runs[i].rule), runs[i].delay,
			        runs[i].topology ? runs[i].topology : "",
			        (unsigned long long)n, (unsigned long long)k, a, aref);
		CU_ASSERT_EQUAL(k, L1_INFO);
		CU_ASSERT(n <= 3 * L1_INFO);
		CU_ASSERT(a > aref - 2);
		hog_model_free(m);
	}
}

/* The flushes: two workers that each zeroed a weight from the shared value b
 * leave it at 0, not at b - 2b (summed whole, as without --l1); a change that
 * zeroes a private copy never takes the shared value across zero; a worker
 * whose copy is not zero hands its change up whole. */
static void test_flush_stops_at_zero(void)
{
	for (int l1 = 0; l1 < 2; l1++) {
		_Atomic float N[3];
		float rec[2][3], base[2][3];
		const float b = 0.5f;
		atomic_init(&N[0], 0.0f);
		atomic_init(&N[1], b);
		atomic_init(&N[2], -b);
		for (int q = 0; q < 2; q++) {
			base[q][0] = 0.0f, base[q][1] = b, base[q][2] = -b;
			rec[q][0] = 0.1f, rec[q][1] = 0.0f; /* the bias moved; weight 1 zeroed */
			rec[q][2] = q ? -0.2f : 0.0f;      /* weight 2: one zeroed it, one moved it */
		}
		for (int q = 0; q < 2; q++)
			rep_flush(N, rec[q], base[q], 3, 1, 1, 1.0f / 2, 0, l1);
		CU_ASSERT_DOUBLE_EQUAL(atomic_load(&N[0]), 0.1, 1e-6); /* (the bias: averaged, never clipped) */
		CU_ASSERT_DOUBLE_EQUAL(atomic_load(&N[1]), l1 ? 0.0 : -b, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(atomic_load(&N[2]), 0.3, 1e-6); /* 0, then + (-0.2 - -0.5) whole */
		CU_ASSERT(l1_hand_up(0.4f, -0.1f) == 0.0f && l1_hand_up(-0.4f, 0.1f) == 0.0f);
		CU_ASSERT(l1_hand_up(0.4f, 0.1f) == 0.1f && l1_hand_up(0.0f, -0.3f) == 0.0f);
	}
}

/* l1 0 is off: the same model file as a run that never heard of it; and the
 * options hash is the old one. */
static void test_zero_is_off(void)
{
	hog_train_opts o = base_opts(HOG_MODE_SERIAL, 1);
	o.epochs = 3;
	hog_model *a = train_ok(tr_set, &o);
	o.linear.l1 = 0.0;
	hog_model *b = train_ok(tr_set, &o);
	hog_err err;
	const char *pa = tu_path("l1_off_a.model"), *pb = tu_path("l1_off_b.model");
	CU_ASSERT_EQUAL_FATAL(hog_model_save(a, pa, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_model_save(b, pb, &err), 0);
	CU_ASSERT_EQUAL(tu_sh("cmp -s '%s' '%s'", pa, pb), 0);
	/* and --l1 on changes the model (the comparison can tell) */
	o.linear.l1 = 1e-4;
	hog_model *c = train_ok(tr_set, &o);
	const char *pc = tu_path("l1_on.model");
	CU_ASSERT_EQUAL_FATAL(hog_model_save(c, pc, &err), 0);
	CU_ASSERT_NOT_EQUAL(tu_sh("cmp -s '%s' '%s'", pa, pc), 0);
	hog_model_free(a);
	hog_model_free(b);
	hog_model_free(c);
}

/* The threshold keeps no state besides the weights: a run stopped after 2
 * epochs with a checkpoint and resumed to 4 equals a straight run, sgd and
 * adagrad; a checkpoint of --l1 is refused to a run without it (the hash). */
static void test_resume(void)
{
	for (int ada = 0; ada < 2; ada++) {
		hog_train_opts o = base_opts(HOG_MODE_SERIAL, 1);
		o.epochs = 4;
		o.rule = ada ? HOG_RULE_ADAGRAD : HOG_RULE_SGD;
		o.linear.l1 = ada ? 1e-2 : L1_LAMBDA;
		hog_model *straight = train_ok(tr_set, &o);
		const char *ck = tu_path(ada ? "l1_ada.ckpt" : "l1_sgd.ckpt");
		o.epochs = 2;
		o.checkpoint = ck;
		hog_model *half = train_ok(tr_set, &o);
		o.epochs = 4;
		o.resume = ck;
		hog_model *resumed = train_ok(tr_set, &o);
		CU_ASSERT(straight->dim == resumed->dim && straight->stride == resumed->stride &&
		          !memcmp(straight->params, resumed->params, (straight->dim + 1) * straight->stride * 4));
		o.linear.l1 = 0;
		hog_model *m = NULL;
		hog_err err = { 0 };
		CU_ASSERT_NOT_EQUAL(hog_train(tr_set, NULL, &o, &m, NULL, &err), 0);
		hog_model_free(m);
		hog_model_free(straight);
		hog_model_free(half);
		hog_model_free(resumed);
	}
}

/* Negative, NaN and too large values, and adarevision: HOG_ECONFIG naming --l1. */
static void test_refused(void)
{
	const double bad[] = { -1e-3, NAN, INFINITY, 2e9 };
	for (size_t i = 0; i < sizeof bad / sizeof *bad + 1; i++) {
		hog_train_opts o = base_opts(HOG_MODE_SERIAL, 1);
		o.epochs = 1;
		if (i < sizeof bad / sizeof *bad) {
			o.linear.l1 = bad[i];
		} else {
			o.linear.l1 = 1e-3;
			o.rule = HOG_RULE_ADAREVISION;
			o.mode = HOG_MODE_LOCKFREE;
		}
		hog_model *m = NULL;
		hog_err err = { 0 };
		CU_ASSERT_EQUAL(hog_train(tr_set, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--l1"));
		CU_ASSERT_PTR_NULL(m);
	}
}

int test_l1_register(void)
{
	CU_pSuite s = CU_add_suite("l1", suite_init, suite_clean);
	if (!s)
		return -1;
	TU_ADD(s, test_sparse_informative);
	TU_ADD(s, test_plain_loop);
	TU_ADD(s, test_modes_sparse);
	TU_ADD(s, test_flush_stops_at_zero);
	TU_ADD(s, test_zero_is_off);
	TU_ADD(s, test_resume);
	TU_ADD(s, test_refused);
	return 0;
}
