/* Issue 18's "safety" part at the library level: the default mode each model's
 * trainer table chooses (and that it trains), the kind of model a run saves,
 * delays measured inside the lock (one global lock: none at all), a stopped
 * run handing back the model it trained so far, and the per-epoch figures
 * naming their loss and unit -- each against a plain count made here. */
#include "hogwild.h"
#include "model/model.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hog_data *sp_tr, *rt_tr;

static int make_sets(void)
{
	hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .seed = 11, .examples = 20000, .features = 500,
	                   .nnz_per_example = 12, .noise = 0.02 };
	hog_gen_opts r = { .kind = HOG_KIND_RATINGS, .seed = 12, .examples = 20000, .users = 300, .items = 200 };
	hog_err err;
	const char *a = tu_path("safety_sp.lmdb"), *b = tu_path("safety_rt.lmdb");
	if (hog_gen(a, &g, &err) || hog_gen(b, &r, &err) || hog_data_load(&sp_tr, a, &err) ||
	    hog_data_load(&rt_tr, b, &err)) {
		fprintf(stderr, "fixture: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int free_sets(void)
{
	hog_data_free(sp_tr);
	hog_data_free(rt_tr);
	return 0;
}

static hog_train_opts opts(enum hog_model_kind kind, int threads, int epochs)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = kind;
	o.threads = threads;
	o.epochs = epochs;
	o.bind = HOG_BIND_NONE;
	return o;
}

/* Each model's default: one of its modes, the one measured fastest
 * (bench/results), and lockfree where that one does not take the options. */
static void test_default_mode_per_model(void)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	CU_ASSERT_EQUAL(o.mode, HOG_MODE_LOCKFREE); /* the library's own default stays */
	struct {
		enum hog_model_kind model;
		enum hog_loss loss;
		enum hog_rule rule;
		int delay;
		enum hog_mode want;
		enum hog_model_kind kind;
	} cases[] = {
		{ HOG_MODEL_LINEAR, HOG_LOSS_LOGISTIC, HOG_RULE_SGD, 0, HOG_MODE_BUFFERED, HOG_MODEL_LINEAR },
		{ HOG_MODEL_LINEAR, HOG_LOSS_SQUARED, HOG_RULE_ADAGRAD, 0, HOG_MODE_BUFFERED, HOG_MODEL_LINEAR },
		{ HOG_MODEL_LINEAR, HOG_LOSS_LOGISTIC, HOG_RULE_ADAREVISION, 0, HOG_MODE_LOCKFREE, HOG_MODEL_LINEAR },
		{ HOG_MODEL_LINEAR, HOG_LOSS_HINGE, HOG_RULE_SGD, 4, HOG_MODE_LOCKFREE, HOG_MODEL_LINEAR },
		{ HOG_MODEL_LINEAR, HOG_LOSS_SOFTMAX, HOG_RULE_SGD, 0, HOG_MODE_LOCKFREE, HOG_MODEL_MLP },
		{ HOG_MODEL_MF, HOG_LOSS_LOGISTIC, HOG_RULE_SGD, 0, HOG_MODE_GRID, HOG_MODEL_MF },
		{ HOG_MODEL_MF, HOG_LOSS_SQUARED, HOG_RULE_ADAGRAD, 0, HOG_MODE_GRID, HOG_MODEL_MF },
		{ HOG_MODEL_MLP, HOG_LOSS_LOGISTIC, HOG_RULE_SGD, 0, HOG_MODE_LOCKFREE, HOG_MODEL_MLP },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		o = opts(cases[i].model, 2, 1);
		o.loss = cases[i].loss;
		o.rule = cases[i].rule;
		o.delay = cases[i].delay;
		enum hog_mode m = hog_train_default_mode(&o);
		if (m != cases[i].want)
			fprintf(stderr, "\ncase %zu: %s, wanted %s\n", i, hog_mode_name(m), hog_mode_name(cases[i].want));
		CU_ASSERT_EQUAL(m, cases[i].want);
		CU_ASSERT(hog_train_modes(&o) >> m & 1u);
		CU_ASSERT_EQUAL(hog_train_kind(&o), cases[i].kind);
	}
	/* ... and for a known set (the command line reads its header): the linear
	 * model's replica where D / mean nonzeros <= 1024, so that its flush
	 * interval at SGD's stride (16 x that, a power of two) is within 16384,
	 * else buffered; on each side of the edge, SGD and AdaGrad alike (AdaGrad's
	 * records of 2 floats do not move it) */
	struct {
		enum hog_model_kind model;
		enum hog_rule rule;
		uint64_t features;
		enum hog_mode want;
	} shaped[] = {
		{ HOG_MODEL_LINEAR, HOG_RULE_SGD, 10239, HOG_MODE_REPLICA },
		{ HOG_MODEL_LINEAR, HOG_RULE_SGD, 10240, HOG_MODE_BUFFERED },
		{ HOG_MODEL_LINEAR, HOG_RULE_ADAGRAD, 5120, HOG_MODE_REPLICA },
		{ HOG_MODEL_LINEAR, HOG_RULE_ADAGRAD, 10239, HOG_MODE_REPLICA },
		{ HOG_MODEL_LINEAR, HOG_RULE_ADAGRAD, 10240, HOG_MODE_BUFFERED },
		{ HOG_MODEL_LINEAR, HOG_RULE_ADAREVISION, 100, HOG_MODE_LOCKFREE },
		{ HOG_MODEL_MF, HOG_RULE_SGD, 100, HOG_MODE_GRID },
	};
	for (size_t i = 0; i < sizeof shaped / sizeof *shaped; i++) {
		o = opts(shaped[i].model, 2, 1);
		o.rule = shaped[i].rule;
		hog_meta m = { .kind = shaped[i].model == HOG_MODEL_MF ? HOG_KIND_RATINGS : HOG_KIND_SPARSE,
		               .examples = 1000, .features = shaped[i].features, .nnz = 10000 };
		const enum hog_mode got = hog_train_default_mode_data(&o, 0, &m);
		if (got != shaped[i].want)
			fprintf(stderr, "\nshaped case %zu: %s, wanted %s\n", i, hog_mode_name(got),
			        hog_mode_name(shaped[i].want));
		CU_ASSERT_EQUAL(got, shaped[i].want);
		CU_ASSERT_EQUAL(hog_train_default_mode_data(&o, 0, NULL), hog_train_default_mode(&o));
	}
}

/* The default for the set (replica for the linear model's 500 features here)
 * trains: the run reports the mode it took, ends below a serial
 * run of one epoch, and within 10% of a serial run of as many epochs (the modes'
 * own accuracy is tested elsewhere). Not closer: the parallel runs' order of
 * updates depends on the schedule -- mf's grid, at 2 threads, ended 0.2-3.2%
 * above serial in twelve runs of an ordinary build, and a sanitizer's timing
 * moves it again. */
static void test_default_mode_trains(void)
{
	const enum hog_model_kind kinds[] = { HOG_MODEL_LINEAR, HOG_MODEL_MF };
	for (size_t i = 0; i < 2; i++) {
		const hog_data *d = kinds[i] == HOG_MODEL_MF ? rt_tr : sp_tr;
		hog_train_opts o = opts(kinds[i], 2, 3), s = opts(kinds[i], 1, 3), s1 = opts(kinds[i], 1, 1);
		o.mode = hog_train_default_mode_data(&o, 0, &d->meta);
		CU_ASSERT_EQUAL(o.mode, kinds[i] == HOG_MODEL_MF ? HOG_MODE_GRID : HOG_MODE_REPLICA);
		s.mode = s1.mode = HOG_MODE_SERIAL;
		hog_train_result r, rs, rs1;
		hog_err err = { 0 };
		hog_model *m = NULL, *ms = NULL, *ms1 = NULL;
		int rc = hog_train(d, NULL, &o, &m, &r, &err);
		if (rc)
			fprintf(stderr, "\n%s: %s\n", hog_model_kind_name(kinds[i]), err.msg);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &s, &ms, &rs, &err), 0);
		CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &s1, &ms1, &rs1, &err), 0);
		CU_ASSERT_EQUAL(r.mode, o.mode);
		CU_ASSERT_EQUAL(r.last.mode, o.mode);
		if (!(r.last.train_loss < rs1.last.train_loss && r.last.train_loss <= rs.last.train_loss * 1.10))
			fprintf(stderr, "\n%s: default %g, serial %g (1 epoch: %g)\n", hog_model_kind_name(kinds[i]),
			        r.last.train_loss, rs.last.train_loss, rs1.last.train_loss);
		CU_ASSERT(r.last.train_loss < rs1.last.train_loss);
		CU_ASSERT(r.last.train_loss <= rs.last.train_loss * 1.10);
		hog_model_free(m);
		hog_model_free(ms);
		hog_model_free(ms1);
	}
}

/* A small dense regression set (300 examples, 10 features in every example,
 * labels around 150): the default flush intervals of buffered and replica hold
 * a fraction of a worker's epoch, so the workers' summed changes to the dense
 * features do not overshoot. With buffered's 1024 (more than a worker's whole
 * epoch here) the last model's loss ended far above serial's (diabetes: test
 * RMSE 95.6 against 52.5). The set is made here by a plain loop. */
static void test_flush_interval_small_dense(void)
{
	const char *path = tu_path("safety_dense.lmdb");
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = HOG_TASK_REGRESSION };
	hog_writer *w;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, path, &wo, &err), 0);
	uint64_t seed = 5;
	for (int i = 0; i < 300; i++) {
		uint32_t ids[10];
		float x[10];
		double y = 150;
		for (int j = 0; j < 10; j++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			ids[j] = (uint32_t)j;
			x[j] = (float)((double)(seed >> 11) / 9007199254740992.0 * 2 - 1);
			y += (j % 3 - 1) * 30.0 * x[j];
		}
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		y += ((double)(seed >> 11) / 9007199254740992.0 - 0.5) * 40;
		CU_ASSERT_EQUAL_FATAL(hog_writer_add_sparse(w, (float)y, ids, x, 10, &err), 0);
	}
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	hog_data *d;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, path, &err), 0);
	hog_train_opts s = opts(HOG_MODEL_LINEAR, 1, 300);
	s.loss = HOG_LOSS_SQUARED;
	s.backoff = 0.995; /* the step stays up long, as --epochs auto's stretched backoff keeps it */
	s.linear.average = 1;   /* the command line's default */
	s.mode = HOG_MODE_SERIAL;
	hog_train_result rs;
	hog_model *ms = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_train(d, d, &s, &ms, &rs, &err), 0);
	/* The parallel modes' losses move with the workers' interleaving (one CI run:
	 * replica 70.7 against serial's 63.7, where 60 runs here gave 63.5-66.5,
	 * and 12 more with both cores busy 63.6-64.6), so each mode gets up to three
	 * tries and the best must be within the bound: an overshoot built into the
	 * flushes fails every try. (Since the merge's factors, merge_shares, the
	 * uncapped intervals end here at 65.9, inside the bound: the test now holds
	 * the flushes and the merge together to serial's loss, not the cap alone.) */
	const enum hog_mode modes[] = { HOG_MODE_BUFFERED, HOG_MODE_REPLICA, HOG_MODE_LOCKFREE };
	for (int k = 0; k < 3; k++) {
		hog_train_opts o = s;
		o.threads = 2;
		o.mode = modes[k];
		const double bound = rs.last.test_loss * 1.08;
		double best = INFINITY;
		for (int t = 0; t < 3 && !(best <= bound); t++) {
			hog_train_result r;
			hog_model *m = NULL;
			CU_ASSERT_EQUAL_FATAL(hog_train(d, d, &o, &m, &r, &err), 0);
			if (getenv("HOG_TEST_SHOW") || !(r.last.test_loss <= bound))
				fprintf(stderr, "\n%s (try %d): test loss %g, serial %g\n", hog_mode_name(modes[k]), t + 1,
				        r.last.test_loss, rs.last.test_loss);
			best = r.last.test_loss < best ? r.last.test_loss : best;
			hog_model_free(m);
		}
		CU_ASSERT(best <= bound);
	}
	hog_model_free(ms);
	hog_data_free(d);
}

/* The largest delay and the samples over every epoch of a run. */
typedef struct delays {
	double max, sum;
	uint64_t samples;
} delays;

static void on_epoch_delays(void *ud, const hog_epoch_stats *s)
{
	delays *d = ud;
	d->samples += s->delay_samples;
	if (s->delay_samples) {
		d->sum += s->delay_mean * (double)s->delay_samples;
		if (s->delay_max > d->max)
			d->max = s->delay_max;
	}
}

/* mf's default, grid, on a set with fewer ratings than the automatic
 * (2T+1)^2 blocks: the automatic grid shrinks to one that has a rating a
 * block (4 workers: 9 x 9 = 81 blocks > 60 ratings, so 7 x 7), and trains to
 * a finite loss; an explicit --grid is taken as given and refused. */
static void test_grid_default_small_set(void)
{
	hog_gen_opts g = { .kind = HOG_KIND_RATINGS, .seed = 13, .examples = 60, .users = 12, .items = 10 };
	hog_err err = { 0 };
	hog_data *d = NULL;
	const char *p = tu_path("safety_tiny.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_gen(p, &g, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, p, &err), 0);
	hog_train_opts o = opts(HOG_MODEL_MF, 4, 2);
	o.mode = hog_train_default_mode(&o);
	CU_ASSERT_EQUAL(o.mode, HOG_MODE_GRID);
	hog_train_result r;
	int rc = hog_train(d, NULL, &o, NULL, &r, &err);
	if (rc)
		fprintf(stderr, "\ntiny grid: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(rc || isfinite(r.last.train_loss));
	o.mf.grid = 9;
	CU_ASSERT_EQUAL(hog_train(d, NULL, &o, NULL, &r, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--grid 9"));
	hog_data_free(d);
}

/* One global lock: no update lands between a worker's read and its write, so
 * every sampled delay is 0 (before the count was read inside the lock, two
 * workers gave max 4-49 on a9a). Linear and mf, every epoch's samples. */
static void test_locked_staleness_zero(void)
{
	for (int model = 0; model < 2; model++) {
		/* epochs enough for the two workers to overlap (a short epoch may end
		 * one worker's share before the other starts: nothing to measure) */
		const hog_data *d = model ? rt_tr : sp_tr;
		hog_train_opts o = opts(model ? HOG_MODEL_MF : HOG_MODEL_LINEAR, 2, 100);
		o.mode = HOG_MODE_LOCKED;
		o.measure_delay = 1;
		delays dl = { 0 };
		o.on_epoch = on_epoch_delays;
		o.ud = &dl;
		hog_err err = { 0 };
		CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &o, NULL, NULL, &err), 0);
		/* 1 in 64 examples sampled: an independent count */
		CU_ASSERT(dl.samples >= (d->n / 64 - 2) * (uint64_t)o.epochs);
		if (dl.max != 0)
			fprintf(stderr, "\n%s locked: delay max %g, mean %g\n", model ? "mf" : "linear", dl.max,
			        dl.sum / (double)dl.samples);
		CU_ASSERT_EQUAL(dl.max, 0.0);
		CU_ASSERT_EQUAL(dl.sum, 0.0);
	}
	/* the lock-free mode takes samples too (its delays may be anything >= 0) */
	hog_train_opts o = opts(HOG_MODEL_LINEAR, 2, 1);
	o.mode = HOG_MODE_LOCKFREE;
	o.measure_delay = 1;
	hog_train_result r;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_train(sp_tr, NULL, &o, NULL, &r, &err), 0);
	CU_ASSERT(r.last.delay_samples > 0 && r.last.delay_max >= 0);
	/* replica's reads are of private copies: none sampled (NaN), not the team's
	 * updates during an example, which said nothing of their lag */
	o.mode = HOG_MODE_REPLICA;
	CU_ASSERT_EQUAL_FATAL(hog_train(sp_tr, NULL, &o, NULL, &r, &err), 0);
	CU_ASSERT_EQUAL(r.last.delay_samples, 0);
	CU_ASSERT(isnan(r.last.delay_mean));
}

/* What the tables print: the loss trained (mf: squared, whatever was asked)
 * and the unit of the work column, which counts what it says: every nonzero
 * of the set (linear), every rating (mf). */
static void test_epoch_stats_name_loss_and_unit(void)
{
	uint64_t nnz = 0;
	for (uint64_t i = 0; i < sp_tr->n; i++)
		nnz += sp_tr->offsets[i + 1] - sp_tr->offsets[i];
	struct {
		enum hog_model_kind model;
		const hog_data *d;
		const char *unit;
		enum hog_loss loss;
		uint64_t units;
	} cases[] = {
		{ HOG_MODEL_LINEAR, sp_tr, "nnz", HOG_LOSS_LOGISTIC, nnz },
		{ HOG_MODEL_MF, rt_tr, "ratings", HOG_LOSS_SQUARED, rt_tr->n },
		{ HOG_MODEL_MLP, sp_tr, "flop", HOG_LOSS_LOGISTIC, 0 },
	};
	for (size_t i = 0; i < 3; i++) {
		hog_train_opts o = opts(cases[i].model, 1, 1);
		o.mode = HOG_MODE_SERIAL;
		hog_train_result r;
		hog_err err = { 0 };
		int rc = hog_train(cases[i].d, NULL, &o, NULL, &r, &err);
		if (rc)
			fprintf(stderr, "\n%s: %s\n", hog_model_kind_name(cases[i].model), err.msg);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r.last.unit);
		CU_ASSERT_STRING_EQUAL(r.last.unit, cases[i].unit);
		CU_ASSERT_EQUAL(r.last.loss, cases[i].loss);
		if (cases[i].units)
			CU_ASSERT_EQUAL(r.last.nnz, cases[i].units);
		CU_ASSERT(isnan(r.last.test_loss)); /* no test set: no figure, not 0 */
	}
}

static volatile int stop_now;
static void stop_in_second(void *ud, const hog_progress *p)
{
	(void)ud;
	if (p->epoch == 2 && p->done > 0)
		__atomic_store_n(&stop_now, 1, __ATOMIC_RELAXED);
}

/* A stopped run hands back the model it trained so far (what `train --save`
 * writes on SIGINT): one epoch and a part done, so it differs from the
 * one-epoch model, and it is whole (every parameter finite). */
static void test_stop_hands_back_model(void)
{
	hog_train_opts o = opts(HOG_MODEL_LINEAR, 1, 5);
	o.mode = HOG_MODE_SERIAL;
	o.round_examples = 1000;
	hog_model *one = NULL, *m = NULL;
	hog_train_result r;
	hog_err err = { 0 };
	o.epochs = 1;
	CU_ASSERT_EQUAL_FATAL(hog_train(sp_tr, NULL, &o, &one, &r, &err), 0);
	o.epochs = 5;
	o.stop = &stop_now;
	o.on_progress = stop_in_second;
	stop_now = 0;
	CU_ASSERT_EQUAL(hog_train(sp_tr, NULL, &o, &m, &r, &err), HOG_EINTR);
	CU_ASSERT_EQUAL(r.epochs_done, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	hog_model_info a;
	hog_model_info_get(m, &a);
	CU_ASSERT_EQUAL(a.kind, HOG_MODEL_LINEAR);
	int differs = 0, finite = 1;
	CU_ASSERT_EQUAL_FATAL(m->nparams, one->nparams);
	const float *pm = m->params, *p1 = one->params;
	for (uint64_t i = 0; i < m->nparams; i++) {
		differs |= pm[i] != p1[i];
		finite &= isfinite(pm[i]) != 0;
	}
	CU_ASSERT(differs);
	CU_ASSERT(finite);
	hog_model_free(m);
	hog_model_free(one);
	stop_now = 0;
}

int test_safety_register(void)
{
	CU_pSuite s = CU_add_suite("safety", make_sets, free_sets);
	if (!s)
		return -1;
	TU_ADD(s, test_default_mode_per_model);
	TU_ADD(s, test_default_mode_trains);
	TU_ADD(s, test_grid_default_small_set);
	TU_ADD(s, test_locked_staleness_zero);
	TU_ADD(s, test_epoch_stats_name_loss_and_unit);
	TU_ADD(s, test_stop_hands_back_model);
	TU_ADD(s, test_flush_interval_small_dense);
	return 0;
}
