/* Early stopping (hog_train_opts.early_stop): on a set made to overfit (few
 * examples, many features, no L2, a constant step) the test loss falls, then
 * rises; the run must stop N epochs after its best one, hand back that epoch's
 * model (its loss on the test set is the one the epoch reported, recomputed
 * here by hog_model_eval), and say which it was. Without a test set, or with
 * N = 0, nothing changes. */
#include "hogwild.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hog_data *tr, *te, *rtr, *rte;

static int make_sets(void)
{
	hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .seed = 7, .examples = 1200, .features = 4000,
		           .nnz_per_example = 15, .noise = 0.15 };
	hog_gen_opts r = { .kind = HOG_KIND_RATINGS, .seed = 8, .examples = 6000, .users = 300, .items = 200 };
	hog_err err;
	const char *all = tu_path("es_all.lmdb"), *a = tu_path("es_a.lmdb"), *b = tu_path("es_b.lmdb");
	const char *rall = tu_path("es_r.lmdb"), *ra = tu_path("es_ra.lmdb"), *rb = tu_path("es_rb.lmdb");
	if (hog_gen(all, &g, &err) || hog_data_split(all, a, b, 0.5, 1, &err) || hog_data_load(&tr, a, &err) ||
	    hog_data_load(&te, b, &err) || hog_gen(rall, &r, &err) || hog_data_split(rall, ra, rb, 0.2, 1, &err) ||
	    hog_data_load(&rtr, ra, &err) || hog_data_load(&rte, rb, &err)) {
		fprintf(stderr, "early: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int free_sets(void)
{
	hog_data_free(tr);
	hog_data_free(te);
	hog_data_free(rtr);
	hog_data_free(rte);
	return 0;
}

typedef struct seen {
	double loss[256];
	int n;
} seen;

static void on_epoch(void *ud, const hog_epoch_stats *s)
{
	seen *v = ud;
	if (v->n < 256)
		v->loss[v->n++] = s->test_loss;
}

static hog_train_opts base(enum hog_model_kind kind, int early, seen *v)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = kind;
	o.mode = HOG_MODE_SERIAL;
	o.epochs = 80;
	o.l2 = 0;
	o.lr = kind == HOG_MODEL_MF ? 0.05 : 2.0;
	o.backoff = 1.0; /* a constant step: the training set is learnt by heart */
	o.early_stop = early;
	o.on_epoch = on_epoch;
	o.ud = v;
	memset(v, 0, sizeof *v);
	return o;
}

/* The run's invariants: it stopped @p N epochs after the best, that epoch's
 * loss is the least of all, and the model handed back is that epoch's. */
static void check_run(const hog_train_result *res, const seen *v, int N, const hog_model *m, hog_data *test)
{
	CU_ASSERT_EQUAL_FATAL(res->epochs_done, v->n);
	CU_ASSERT_TRUE_FATAL(res->best_epoch >= 1 && res->best_epoch <= v->n);
	const int b = res->best_epoch - 1;
	for (int e = 0; e < v->n; e++)
		CU_ASSERT_TRUE(v->loss[b] <= v->loss[e]);
	CU_ASSERT_DOUBLE_EQUAL(res->best_loss, v->loss[b], 0);
	CU_ASSERT_TRUE(res->stopped_early); /* the set overfits well before 80 epochs */
	CU_ASSERT_EQUAL(res->epochs_done, res->best_epoch + N);
	CU_ASSERT_TRUE(v->loss[v->n - 1] > v->loss[b]); /* the last epoch was worse: its model was not kept */
	hog_eval ev;
	hog_err err;
	hog_data_fit fit;
	CU_ASSERT_EQUAL_FATAL(hog_model_prepare(m, test, "test", "model", &fit, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_model_eval(m, test, &ev, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(ev.loss, v->loss[b], 1e-6 * fabs(v->loss[b]));
}

static void test_linear_keeps_best(void)
{
	seen v;
	hog_train_opts o = base(HOG_MODEL_LINEAR, 3, &v);
	hog_model *m = NULL;
	hog_train_result res;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_train(tr, te, &o, &m, &res, &err), 0);
	check_run(&res, &v, 3, m, te);
	hog_model_free(m);
}

static void test_mf_keeps_best(void)
{
	seen v;
	hog_train_opts o = base(HOG_MODEL_MF, 2, &v);
	o.mf.rank = 16;
	hog_model *m = NULL;
	hog_train_result res;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_train(rtr, rte, &o, &m, &res, &err), 0);
	check_run(&res, &v, 2, m, rte);
	hog_model_free(m);
}

/* Off (0), or with the same seed and options: the same epochs as a run that
 * stops early, up to its stop; and without a test set it is refused. */
static void test_off_and_refused(void)
{
	seen a, b;
	hog_train_opts o = base(HOG_MODEL_LINEAR, 0, &a);
	o.epochs = 30;
	hog_model *m = NULL;
	hog_train_result res;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_train(tr, te, &o, &m, &res, &err), 0);
	CU_ASSERT_EQUAL(res.epochs_done, 30);
	CU_ASSERT_EQUAL(res.best_epoch, 0);
	CU_ASSERT_FALSE(res.stopped_early);
	hog_model_free(m);
	hog_train_opts e = base(HOG_MODEL_LINEAR, 3, &b);
	e.epochs = 30;
	CU_ASSERT_EQUAL_FATAL(hog_train(tr, te, &e, &m, &res, &err), 0);
	for (int i = 0; i < b.n; i++)
		CU_ASSERT_DOUBLE_EQUAL(b.loss[i], a.loss[i], 0); /* serial: the same run until it stops */
	hog_model_free(m);
	m = NULL;
	CU_ASSERT_EQUAL(hog_train(tr, NULL, &e, &m, &res, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "early stopping needs a test (validation) set"));
	CU_ASSERT_PTR_NULL(m);
}

int test_early_register(void)
{
	CU_pSuite s = CU_add_suite("early", make_sets, free_sets);
	if (!s)
		return -1;
	TU_ADD(s, test_linear_keeps_best);
	TU_ADD(s, test_mf_keeps_best);
	TU_ADD(s, test_off_and_refused);
	return 0;
}
