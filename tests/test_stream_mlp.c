/* The mlp trained from a stream of blocks (src/train/mlp_stream.c, issue 23):
 * a serial run with --no-shuffle streamed is the loaded run bit for bit when
 * the blocks are a multiple of the batch long (dense float and byte rows, a
 * sparse set with values, a weighted one, sgd with momentum, adam, softmax
 * regression and a hidden layer, --normalize's scales and the default step
 * from the blocks); a shuffled streamed run is reproducible and as accurate as
 * the loaded one, lockfree too; a streamed run stopped inside an epoch resumes
 * to the straight run; deterministic mode is refused with --stream. */
#include "hogwild.h"
#include "model/model.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the sets: dense (float, 4 classes), dense bytes, sparse with values (binary),
 * the sparse one with weights; blocks of 400 examples (the sparse one: 4096) */
enum { S_DENSE, S_U8, S_SPARSE, S_WEIGHTED, S_N };
static char path[S_N][512];
static hog_data *set[S_N], *sparse_test;

static uint64_t sl_mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* @p n rows of 12 bytes (scale 1/32), the class the argmax of 4 fixed sums. */
static int write_u8(const char *p, uint64_t n)
{
	hog_writer_opts wo = { .kind = HOG_KIND_DENSE, .task = HOG_TASK_MULTICLASS, .features = 12, .classes = 4,
	                       .block_examples = 400, .dense_u8 = 1, .dense_scale = 1.0f / 32 };
	hog_writer *w;
	hog_err err;
	if (hog_writer_open(&w, p, &wo, &err))
		return -1;
	uint64_t s = 3;
	for (uint64_t i = 0; i < n; i++) {
		uint8_t x[12];
		float best = -1;
		int c = 0;
		for (int k = 0; k < 12; k++)
			x[k] = (uint8_t)(sl_mix(&s) % 256);
		for (int q = 0; q < 4; q++) {
			float v = (float)x[q] + 0.5f * x[q + 4] - 0.25f * x[q + 8];
			if (v > best)
				best = v, c = q;
		}
		if (hog_writer_add_dense(w, (float)c, NULL, x, &err)) {
			hog_writer_abort(w);
			return -1;
		}
	}
	return hog_writer_commit(w, &err) ? -1 : 0;
}

/* The sparse set again with a weight of 0.5, 1 or 2 per example. */
static int write_weighted(const char *p, const hog_data *d)
{
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = HOG_TASK_BINARY, .features = d->dim,
	                       .block_examples = 400 };
	hog_writer *w;
	hog_err err;
	if (hog_writer_open(&w, p, &wo, &err))
		return -1;
	for (uint64_t i = 0; i < d->n; i++) {
		const uint64_t lo = d->offsets[i];
		if (hog_writer_set_weight(w, i % 3 == 0 ? 0.5 : i % 3 == 1 ? 1.0 : 2.0, &err) ||
		    hog_writer_add_sparse(w, d->labels[i], d->ids + lo, d->vals ? d->vals + lo : NULL,
		                          (uint32_t)(d->offsets[i + 1] - lo), &err)) {
			hog_writer_abort(w);
			return -1;
		}
	}
	return hog_writer_commit(w, &err) ? -1 : 0;
}

static int suite_init(void)
{
	hog_err err;
	hog_gen_opts gd = { .kind = HOG_KIND_DENSE, .seed = 4, .examples = 2400, .features = 10, .classes = 4,
	                    .block_examples = 400 };
	hog_gen_opts gs = { .kind = HOG_KIND_SPARSE, .seed = 5, .examples = 6000, .features = 300,
	                    .nnz_per_example = 9, .block_examples = 400 };
	static const char *names[S_N] = { "sl_dense.lmdb", "sl_u8.lmdb", "sl_sparse.lmdb", "sl_weighted.lmdb" };
	for (int k = 0; k < S_N; k++)
		snprintf(path[k], sizeof path[k], "%s", tu_path(names[k]));
	char tp[512], all[512];
	snprintf(tp, sizeof tp, "%s", tu_path("sl_test.lmdb"));
	snprintf(all, sizeof all, "%s", tu_path("sl_all.lmdb"));
	/* (the sparse set and its test set: a split of one generated set; the
	 * split writes blocks of 4096, a multiple of the batch, then the rest) */
	if (hog_gen(path[S_DENSE], &gd, &err) || write_u8(path[S_U8], 2000) || hog_gen(all, &gs, &err) ||
	    hog_data_split(all, path[S_SPARSE], tp, 0.3, 1, &err))
		return -1;
	for (int k = 0; k < S_N; k++) {
		if (k == S_WEIGHTED && write_weighted(path[k], set[S_SPARSE]))
			return -1;
		if (hog_data_load(&set[k], path[k], &err)) {
			fprintf(stderr, "stream_mlp: %s\n", err.msg);
			return -1;
		}
	}
	return hog_data_load(&sparse_test, tp, &err) ? -1 : 0;
}

static int suite_clean(void)
{
	for (int k = 0; k < S_N; k++)
		hog_data_free(set[k]);
	hog_data_free(sparse_test);
	return 0;
}

static hog_train_opts sl_opts(enum hog_mode mode, enum hog_rule rule, int hidden)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = HOG_MODEL_MLP;
	o.mode = mode;
	o.rule = rule;
	o.threads = 1;
	o.mlp.nlayers = hidden ? 1 : 0;
	o.mlp.layers[0] = 8;
	o.mlp.batch = 8; /* (a divisor of the blocks' 400) */
	o.normalize = HOG_NORMALIZE_AUTO;
	o.epochs = 3;
	o.seed = 2;
	o.bind = HOG_BIND_NONE;
	return o;
}

static hog_model *run(int k, int streamed, const hog_train_opts *o, hog_train_result *r)
{
	hog_model *m = NULL;
	hog_err err = { 0 };
	int rc = streamed ? hog_train_stream(path[k], NULL, o, &m, r, &err) : hog_train(set[k], NULL, o, &m, r, &err);
	if (rc)
		fprintf(stderr, "\n  %s: %s\n", streamed ? "hog_train_stream" : "hog_train", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return m;
}

static void test_serial_equals_loaded(void)
{
	struct { int set; enum hog_rule rule; double momentum; int hidden; } c[] = {
		{ S_DENSE, HOG_RULE_SGD, 0.9, 1 }, { S_DENSE, HOG_RULE_ADAM, 0, 0 }, { S_U8, HOG_RULE_SGD, 0, 0 },
		{ S_SPARSE, HOG_RULE_SGD, 0, 0 },  { S_SPARSE, HOG_RULE_ADAGRAD, 0, 1 }, { S_WEIGHTED, HOG_RULE_SGD, 0.5, 1 },
	};
	for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
		hog_train_opts o = sl_opts(HOG_MODE_SERIAL, c[k].rule, c[k].hidden);
		o.mlp.momentum = c[k].momentum;
		o.no_shuffle = 1;
		hog_train_result ra, rb;
		hog_model *a = run(c[k].set, 0, &o, &ra), *b = run(c[k].set, 1, &o, &rb);
		if (!tu_same_model(a, b))
			fprintf(stderr, "\n  case %zu: the streamed model differs (train loss %.9g loaded, %.9g streamed)\n", k,
			        ra.last.train_loss, rb.last.train_loss);
		CU_ASSERT(tu_same_model(a, b));
		CU_ASSERT(fabs(ra.last.train_loss - rb.last.train_loss) <= 1e-12 * ra.last.train_loss);
		hog_model_free(a);
		hog_model_free(b);
	}
}

static double acc(const hog_model *m)
{
	hog_eval ev;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_model_eval(m, sparse_test, &ev, &err), 0);
	return ev.accuracy;
}

/* Shuffled: reproducible at one thread; as accurate as the loaded run after 8
 * epochs, lockfree at 2 threads and buffered too. */
static void test_shuffled(void)
{
	hog_train_opts o = sl_opts(HOG_MODE_SERIAL, HOG_RULE_SGD, 1);
	o.epochs = 8;
	hog_model *a = run(S_SPARSE, 1, &o, NULL), *b = run(S_SPARSE, 1, &o, NULL), *ref = run(S_SPARSE, 0, &o, NULL);
	CU_ASSERT_FATAL(a && b && ref);
	CU_ASSERT(tu_same_model(a, b));
	CU_ASSERT(!tu_same_model(a, ref));
	const double aa = acc(a), ar = acc(ref);
	o.threads = 2;
	o.mode = HOG_MODE_LOCKFREE;
	hog_model *c = run(S_SPARSE, 1, &o, NULL);
	o.mode = HOG_MODE_BUFFERED;
	hog_model *d = run(S_SPARSE, 1, &o, NULL);
	const double ac = acc(c), ad = acc(d);
	if (!(fabs(aa - ar) < 0.02 && fabs(ac - ar) < 0.02 && fabs(ad - ar) < 0.02 && ar > 0.75))
		fprintf(stderr, "\n  accuracy: loaded %g, streamed %g, lockfree %g, buffered %g\n", ar, aa, ac, ad);
	CU_ASSERT(fabs(aa - ar) < 0.02);
	CU_ASSERT(fabs(ac - ar) < 0.02);
	CU_ASSERT(fabs(ad - ar) < 0.02);
	CU_ASSERT(ar > 0.75);
	hog_model_free(a);
	hog_model_free(b);
	hog_model_free(c);
	hog_model_free(d);
	hog_model_free(ref);
}

/* Stopped inside an epoch (rounds end inside blocks), resumed: the straight run. */
static void test_stop_resume(void)
{
	hog_train_opts o = sl_opts(HOG_MODE_SERIAL, HOG_RULE_ADAM, 1);
	o.round_examples = 600;
	CU_ASSERT_EQUAL(tu_stop_resume_same(NULL, path[S_SPARSE], &o, 1000, 1), 1);
}

static void test_refused(void)
{
	hog_train_opts o = sl_opts(HOG_MODE_DETERMINISTIC, HOG_RULE_SGD, 0);
	hog_model *m = NULL;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL(hog_train_stream(path[S_DENSE], NULL, &o, &m, NULL, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--stream"));
	CU_ASSERT_PTR_NULL(m);
}

int test_stream_mlp_register(void)
{
	CU_pSuite s = CU_add_suite("stream_mlp", suite_init, suite_clean);
	if (!s)
		return -1;
	TU_ADD(s, test_serial_equals_loaded);
	TU_ADD(s, test_shuffled);
	TU_ADD(s, test_stop_resume);
	TU_ADD(s, test_refused);
	return 0;
}
