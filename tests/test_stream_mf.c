/* mf trained from a stream of blocks (src/train/mf_stream.c, issue 23): a
 * serial run with --no-shuffle streamed is the loaded run bit for bit (raw and
 * packed blocks, sgd and adagrad, biases, example weights); a shuffled
 * streamed run is the same from run to run and reaches the loaded run's test
 * RMSE; a streamed run stopped inside an epoch resumes to the straight run;
 * grid and deterministic modes are refused, and a streamed run's default mode
 * is lockfree. */
#include "hogwild.h"
#include "model/model.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t sm_mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

#define SM_USERS 300
#define SM_ITEMS 120

/* @p n ratings of one rank-3 matrix plus noise, drawn from the stream of
 * @p seed, in blocks of 700; @p raw: no packed blocks; @p weighted: every
 * rating a weight of 0.5, 1 or 3. Ratings are multiples of 0.5 (as
 * MovieLens'), so packed blocks store them as bytes. */
static const char *make_set(const char *name, int n, uint64_t seed, int raw, int weighted)
{
	hog_writer_opts wo = { .kind = HOG_KIND_RATINGS, .task = HOG_TASK_REGRESSION, .users = SM_USERS,
	                       .items = SM_ITEMS, .block_examples = 700, .raw_blocks = raw };
	const char *path = tu_path(name);
	hog_writer *w;
	hog_err err;
	if (hog_writer_open(&w, path, &wo, &err))
		return NULL;
	float U[SM_USERS][3], V[SM_ITEMS][3];
	uint64_t s = 17;
	for (int u = 0; u < SM_USERS; u++)
		for (int c = 0; c < 3; c++)
			U[u][c] = (float)(sm_mix(&s) % 1000) / 1000.0f;
	for (int i = 0; i < SM_ITEMS; i++)
		for (int c = 0; c < 3; c++)
			V[i][c] = (float)(sm_mix(&s) % 1000) / 1000.0f;
	s = seed;
	for (int j = 0; j < n; j++) {
		uint32_t u = (uint32_t)(sm_mix(&s) % SM_USERS), i = (uint32_t)(sm_mix(&s) % SM_ITEMS);
		float r = 1.0f + 1.5f * (U[u][0] * V[i][0] + U[u][1] * V[i][1] + U[u][2] * V[i][2]) +
		          (float)(sm_mix(&s) % 100) / 200.0f;
		r = roundf(2 * r) / 2;
		if (weighted && hog_writer_set_weight(w, j % 3 == 0 ? 0.5 : j % 3 == 1 ? 1.0 : 3.0, &err))
			break;
		if (hog_writer_add_rating(w, u, i, r, &err))
			break;
	}
	if (hog_writer_commit(w, &err)) {
		fprintf(stderr, "make_set: %s\n", err.msg);
		return NULL;
	}
	return path;
}

static char packed_p[512], raw_p[512], weighted_p[512], test_p[512];
static hog_data *packed, *raw, *weighted, *test;

static int suite_init(void)
{
	const char *p;
	hog_err err;
	if (!(p = make_set("sm_packed.lmdb", 12000, 1, 0, 0)) || snprintf(packed_p, sizeof packed_p, "%s", p) < 0 ||
	    !(p = make_set("sm_raw.lmdb", 12000, 1, 1, 0)) || snprintf(raw_p, sizeof raw_p, "%s", p) < 0 ||
	    !(p = make_set("sm_weighted.lmdb", 12000, 1, 0, 1)) || snprintf(weighted_p, sizeof weighted_p, "%s", p) < 0 ||
	    !(p = make_set("sm_test.lmdb", 3000, 2, 0, 0)) || snprintf(test_p, sizeof test_p, "%s", p) < 0)
		return -1;
	if (hog_data_load(&packed, packed_p, &err) || hog_data_load(&raw, raw_p, &err) ||
	    hog_data_load(&weighted, weighted_p, &err) || hog_data_load(&test, test_p, &err)) {
		fprintf(stderr, "stream_mf: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int suite_clean(void)
{
	hog_data_free(packed);
	hog_data_free(raw);
	hog_data_free(weighted);
	hog_data_free(test);
	return 0;
}

static hog_train_opts sm_opts(enum hog_mode mode, enum hog_rule rule, int biases)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = HOG_MODEL_MF;
	o.mode = mode;
	o.rule = rule;
	o.threads = 1;
	o.mf.rank = 6;
	o.mf.biases = biases;
	o.epochs = 3;
	o.seed = 4;
	o.bind = HOG_BIND_NONE;
	o.round_examples = 1000; /* (rounds end inside blocks: the stream goes on where it was) */
	return o;
}

static hog_model *run(const char *path, const hog_data *loaded, const hog_train_opts *o, hog_train_result *r)
{
	hog_model *m = NULL;
	hog_err err = { 0 };
	int rc = loaded ? hog_train(loaded, NULL, o, &m, r, &err) : hog_train_stream(path, NULL, o, &m, r, &err);
	if (rc)
		fprintf(stderr, "\n  %s: %s\n", loaded ? "hog_train" : "hog_train_stream", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return m;
}

/* Serial, --no-shuffle: the streamed run visits the ratings in data order, as
 * the loaded one does: the same model, mu included, and the same loss. */
static void test_serial_equals_loaded(void)
{
	struct { const char *path; const hog_data *d; enum hog_rule rule; int biases; } c[] = {
		{ packed_p, packed, HOG_RULE_SGD, 0 },   { raw_p, raw, HOG_RULE_SGD, 1 },
		{ packed_p, packed, HOG_RULE_ADAGRAD, 1 }, { weighted_p, weighted, HOG_RULE_SGD, 1 },
		{ weighted_p, weighted, HOG_RULE_ADAGRAD, 0 },
	};
	for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
		hog_train_opts o = sm_opts(HOG_MODE_SERIAL, c[k].rule, c[k].biases);
		o.no_shuffle = 1;
		hog_train_result ra, rb;
		hog_model *a = run(NULL, c[k].d, &o, &ra), *b = run(c[k].path, NULL, &o, &rb);
		if (!tu_same_model(a, b))
			fprintf(stderr, "\n  case %zu: the streamed model differs\n", k);
		CU_ASSERT(tu_same_model(a, b));
		/* (summed per round, which the stream also ends at its blocks' ends: the last bits move) */
		CU_ASSERT(fabs(ra.last.train_loss - rb.last.train_loss) <= 1e-12 * ra.last.train_loss);
		CU_ASSERT(isfinite(ra.last.train_loss) && ra.last.train_loss > 0);
		hog_model_free(a);
		hog_model_free(b);
	}
	/* raw and packed blocks hold the same ratings: the same model */
	hog_train_opts o = sm_opts(HOG_MODE_SERIAL, HOG_RULE_SGD, 1);
	o.no_shuffle = 1;
	hog_model *a = run(raw_p, NULL, &o, NULL), *b = run(packed_p, NULL, &o, NULL);
	CU_ASSERT(tu_same_model(a, b));
	hog_model_free(a);
	hog_model_free(b);
}

static double rmse(const hog_model *m)
{
	hog_eval ev;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_model_eval(m, test, &ev, &err), 0);
	return ev.rmse;
}

/* Shuffled (blocks, and ratings inside each): reproducible at one thread, and
 * as good as the loaded run in 10 epochs; lockfree at 2 threads too. */
static void test_shuffled(void)
{
	hog_train_opts o = sm_opts(HOG_MODE_SERIAL, HOG_RULE_SGD, 1);
	o.epochs = 10;
	hog_model *a = run(packed_p, NULL, &o, NULL), *b = run(packed_p, NULL, &o, NULL);
	hog_model *ref = run(NULL, packed, &o, NULL);
	CU_ASSERT_FATAL(a && b && ref);
	CU_ASSERT(tu_same_model(a, b));
	CU_ASSERT(!tu_same_model(a, ref)); /* (another order) */
	const double ra = rmse(a), rr = rmse(ref);
	o.mode = HOG_MODE_LOCKFREE;
	o.threads = 2;
	hog_model *c = run(packed_p, NULL, &o, NULL);
	const double rc = rmse(c);
	if (!(fabs(ra - rr) < 0.02 * rr) || !(fabs(rc - rr) < 0.02 * rr))
		fprintf(stderr, "\n  test rmse: loaded %g, streamed %g, streamed lockfree %g\n", rr, ra, rc);
	CU_ASSERT(fabs(ra - rr) < 0.02 * rr);
	CU_ASSERT(fabs(rc - rr) < 0.02 * rr);
	CU_ASSERT(rr < 0.5); /* (it learnt: the ratings' sd is about 0.6) */
	hog_model_free(a);
	hog_model_free(b);
	hog_model_free(c);
	hog_model_free(ref);
}

/* Stopped inside an epoch (inside a block), resumed: the straight run. */
static void test_stop_resume(void)
{
	hog_train_opts o = sm_opts(HOG_MODE_SERIAL, HOG_RULE_ADAGRAD, 1);
	CU_ASSERT_EQUAL(tu_stop_resume_same(NULL, packed_p, &o, 2000, 1), 1);
}

static void test_modes(void)
{
	static const enum hog_mode refused[] = { HOG_MODE_GRID, HOG_MODE_DETERMINISTIC };
	for (int k = 0; k < 2; k++) {
		hog_train_opts o = sm_opts(refused[k], HOG_RULE_SGD, 0);
		hog_model *m = NULL;
		hog_err err = { 0 };
		CU_ASSERT_EQUAL(hog_train_stream(packed_p, NULL, &o, &m, NULL, &err), HOG_ECONFIG);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--stream"));
		CU_ASSERT_PTR_NULL(m);
	}
	hog_train_opts o = sm_opts(HOG_MODE_SERIAL, HOG_RULE_SGD, 0);
	CU_ASSERT_EQUAL(hog_train_default_mode_for(&o, 1), HOG_MODE_LOCKFREE);
	CU_ASSERT_EQUAL(hog_train_default_mode_for(&o, 0), HOG_MODE_GRID);
	CU_ASSERT_EQUAL(hog_train_default_mode(&o), HOG_MODE_GRID);
	static const enum hog_mode taken[] = { HOG_MODE_LOCKFREE, HOG_MODE_ATOMIC, HOG_MODE_STRIPED, HOG_MODE_LOCKED };
	for (int k = 0; k < 4; k++) {
		o = sm_opts(taken[k], HOG_RULE_ADAGRAD, 1);
		o.threads = 2;
		hog_model *m = run(packed_p, NULL, &o, NULL);
		CU_ASSERT(m && rmse(m) < 1.0);
		hog_model_free(m);
	}
}

int test_stream_mf_register(void)
{
	CU_pSuite s = CU_add_suite("stream_mf", suite_init, suite_clean);
	if (!s)
		return -1;
	TU_ADD(s, test_serial_equals_loaded);
	TU_ADD(s, test_shuffled);
	TU_ADD(s, test_stop_resume);
	TU_ADD(s, test_modes);
	return 0;
}
