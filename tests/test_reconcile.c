/* A test set against its model or training set (hog_data_reconcile,
 * hog_model_prepare): ratings split into two text files and imported
 * separately score exactly as the same split inside one import, and as a plain
 * loop over the model's parameters written here (users and items the model
 * lacks: the training mean plus the known side's bias), with the unseen ratings
 * counted; the model file's id maps, task and column names round trip (and a
 * version 2 file still loads); a LIBSVM test set with features the model lacks
 * scores as a plain loop that skips them, with the count; and sets of another
 * kind, task, column names or ids are refused naming both files. */
#include "hogwild.h"
#include "model/linear.h"
#include "model/mf.h"
#include "model/model.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ------------------------------------------------- mf on a published split */

#define NU 60  /* users 50..59 and items 70..79 are in the test file only */
#define NI 80
#define NTR 1600
#define NTE 400

typedef struct rating {
	uint64_t u, i;
	float r;
} rating;

static rating tr_r[NTR], te_r[NTE];

static uint64_t raw_user(uint32_t u) { return 1000 + 13ull * u; }
static uint64_t raw_item(uint32_t i) { return 50000 + 7ull * i; }

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static float rate(uint32_t u, uint32_t i)
{
	float r = 3.0f + 0.8f * sinf((float)u) + 0.6f * cosf(1.7f * (float)i) + 0.4f * sinf((float)(u * i % 11));
	return r < 1 ? 1 : r > 5 ? 5 : r;
}

/* The two files (test lines in another order than the training's, so that the
 * separate imports number ids differently) and their concatenation. */
static void write_split(void)
{
	uint64_t s = 42;
	FILE *a = fopen(tu_path("mtr.txt"), "w"), *b = fopen(tu_path("mte.txt"), "w"),
	     *c = fopen(tu_path("mall.txt"), "w");
	CU_ASSERT_FATAL(a && b && c);
	for (int j = 0; j < NTR; j++) {
		uint32_t u = j < 50 ? (uint32_t)j : (uint32_t)(lcg(&s) % 50), i = j < 70 ? (uint32_t)j : (uint32_t)(lcg(&s) % 70);
		tr_r[j] = (rating){ raw_user(u), raw_item(i), rate(u, i) };
	}
	for (int j = 0; j < NTE; j++) {
		/* the last users and items first: the test import's id 0 is not the training's */
		uint32_t u = j < 10 ? 59 - (uint32_t)j : (uint32_t)(lcg(&s) % NU);
		uint32_t i = j < 10 ? 79 - (uint32_t)j : (uint32_t)(lcg(&s) % NI);
		te_r[j] = (rating){ raw_user(u), raw_item(i), rate(u, i) };
	}
	for (int j = 0; j < NTR; j++) {
		fprintf(a, "%llu\t%llu\t%.1f\n", (unsigned long long)tr_r[j].u, (unsigned long long)tr_r[j].i, tr_r[j].r);
		fprintf(c, "%llu\t%llu\t%.1f\n", (unsigned long long)tr_r[j].u, (unsigned long long)tr_r[j].i, tr_r[j].r);
	}
	for (int j = 0; j < NTE; j++) {
		fprintf(b, "%llu\t%llu\t%.1f\n", (unsigned long long)te_r[j].u, (unsigned long long)te_r[j].i, te_r[j].r);
		fprintf(c, "%llu\t%llu\t%.1f\n", (unsigned long long)te_r[j].u, (unsigned long long)te_r[j].i, te_r[j].r);
		char buf[32]; /* the rating as the file holds it */
		snprintf(buf, sizeof buf, "%.1f", te_r[j].r);
		te_r[j].r = strtof(buf, NULL);
	}
	fclose(a);
	fclose(b);
	fclose(c);
}

static void import_ratings(const char *txt, const char *lmdb)
{
	hog_import_opts o = { .format = HOG_FORMAT_RATINGS, .header = -1 };
	hog_err err;
	const char *in[1] = { tu_path(txt) };
	char out[4096];
	snprintf(out, sizeof out, "%s", tu_path(lmdb));
	int rc = hog_import(in, 1, out, &o, &err);
	if (rc)
		fprintf(stderr, "import %s: %s\n", txt, err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static hog_data *load(const char *name)
{
	hog_data *d = NULL;
	hog_err err;
	int rc = hog_data_load(&d, tu_path(name), &err);
	if (rc)
		fprintf(stderr, "load %s: %s\n", name, err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return d;
}

static void mf_opts(hog_train_opts *o)
{
	hog_train_opts_init(o);
	o->model = HOG_MODEL_MF;
	o->mode = HOG_MODE_SERIAL;
	o->threads = 1;
	o->mf.rank = 8;
	o->mf.biases = 1;
	o->epochs = 10;
	o->lr = 0.05;
	o->l2 = 0.05;
	o->seed = 7;
	o->bind = HOG_BIND_NONE;
}

/* Ratings [lo, hi) of @p d as a set of their own, with d's meta and id maps:
 * a split inside one import. */
static hog_data *slice(const hog_data *d, uint64_t lo, uint64_t hi)
{
	hog_data *s = calloc(1, sizeof *s);
	uint64_t n = hi - lo;
	s->meta = d->meta;
	s->meta.examples = s->n = n;
	s->users = malloc(n * 4);
	s->items = malloc(n * 4);
	s->ratings = malloc(n * 4);
	s->user_ids = malloc(d->meta.users * 8);
	s->item_ids = malloc(d->meta.items * 8);
	memcpy(s->users, d->users + lo, n * 4);
	memcpy(s->items, d->items + lo, n * 4);
	memcpy(s->ratings, d->ratings + lo, n * 4);
	memcpy(s->user_ids, d->user_ids, d->meta.users * 8);
	memcpy(s->item_ids, d->item_ids, d->meta.items * 8);
	return s;
}

static int64_t find(const uint64_t *ids, uint64_t n, uint64_t x)
{
	for (uint64_t j = 0; j < n; j++)
		if (ids[j] == x)
			return (int64_t)j;
	return -1;
}

/* The test RMSE of @p m by a plain loop over its parameters: each rating's
 * original ids looked up in the model's maps; a user or item it lacks adds no
 * factors and no bias of its own. Also counts those ratings. */
static double ref_rmse(const hog_model *m, uint64_t *unseen)
{
	hog_mf_layout l;
	CU_ASSERT_FATAL(hog_mf_layout_get(&l, m->shape, m->flags, m->rule));
	double se = 0;
	*unseen = 0;
	for (int j = 0; j < NTE; j++) {
		int64_t u = find(m->user_ids, m->nuser_ids, te_r[j].u), i = find(m->item_ids, m->nitem_ids, te_r[j].i);
		double p = m->aux;
		if (u >= 0)
			p += m->params[l.bu + (uint64_t)u];
		if (i >= 0)
			p += m->params[l.bi + (uint64_t)i];
		if (u >= 0 && i >= 0)
			for (uint64_t k = 0; k < l.k; k++)
				p += (double)m->params[l.P + (uint64_t)u * l.kp + k] * m->params[l.Q + (uint64_t)i * l.kp + k];
		else
			(*unseen)++;
		se += (p - te_r[j].r) * (p - te_r[j].r);
	}
	return sqrt(se / NTE);
}

static void test_mf_separate_imports(void)
{
	write_split();
	import_ratings("mtr.txt", "mtr.lmdb");
	import_ratings("mte.txt", "mte.lmdb");
	import_ratings("mall.txt", "mall.lmdb");
	hog_train_opts o;
	mf_opts(&o);
	hog_err err;
	hog_train_result r1, r2, r0;

	/* the same split inside one import */
	hog_data *all = load("mall.lmdb");
	CU_ASSERT_EQUAL_FATAL(all->n, NTR + NTE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(all->user_ids);
	hog_data *tr1 = slice(all, 0, NTR), *te1 = slice(all, NTR, NTR + NTE);
	hog_model *m1 = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_train(tr1, te1, &o, &m1, &r1, &err), 0);

	/* two files imported separately, the test set matched to the training set */
	hog_data *tr = load("mtr.lmdb"), *te = load("mte.lmdb"), *raw_te = load("mte.lmdb");
	CU_ASSERT_EQUAL(tr->meta.users, 50);
	CU_ASSERT_EQUAL(te->meta.users, NU);
	hog_data_ref ref;
	hog_data_fit fit;
	hog_data_ref_of(tr, &ref);
	CU_ASSERT_EQUAL_FATAL(hog_data_reconcile(te, "mte.lmdb", &ref, "mtr.lmdb", &fit, &err), 0);
	hog_data_ref_free(&ref);
	CU_ASSERT_EQUAL(fit.mapped, 1);
	CU_ASSERT_EQUAL(fit.new_users, 10);
	CU_ASSERT_EQUAL(fit.new_items, 10);
	hog_model *m2 = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_train(tr, te, &o, &m2, &r2, &err), 0);
	CU_ASSERT(fabs(r1.last.test_rmse - r2.last.test_rmse) < 1e-6);
	CU_ASSERT(r2.last.test_rmse < 1.0);

	/* the model kept the training set's maps: eval on the test file as imported
	 * agrees with training's figure and with the plain loop */
	uint64_t unseen;
	double want = ref_rmse(m2, &unseen);
	CU_ASSERT(unseen > 10 && unseen < NTE / 2);
	CU_ASSERT_EQUAL(fit.unseen, unseen);
	CU_ASSERT(fabs(want - r2.last.test_rmse) < 1e-5);
	hog_data *te2 = load("mte.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_model_prepare(m2, te2, "mte.lmdb", "m.model", &fit, &err), 0);
	CU_ASSERT_EQUAL(fit.unseen, unseen);
	/* the one import's split: the same ratings count as unseen (their ids are
	 * in its maps, but without a training rating) */
	hog_data_fit fit1;
	hog_data_ref_of(tr1, &ref);
	CU_ASSERT_EQUAL(hog_data_reconcile(te1, "te1", &ref, "tr1", &fit1, &err), 0);
	hog_data_ref_free(&ref);
	CU_ASSERT_EQUAL(fit1.unseen, unseen);
	CU_ASSERT_EQUAL(fit1.new_users, 10);
	hog_model_prepare(m1, te1, "te1", "m1", &fit1, &err);
	CU_ASSERT_EQUAL(fit1.unseen, unseen);
	hog_eval ev;
	CU_ASSERT_EQUAL_FATAL(hog_model_eval(m2, te2, &ev, &err), 0);
	CU_ASSERT(fabs(ev.rmse - want) < 1e-5);

	/* what the ids matched by position gave (the bug): a worse figure, so the
	 * checks above can fail */
	CU_ASSERT_EQUAL_FATAL(hog_train(tr, raw_te, &o, NULL, &r0, &err), 0);
	CU_ASSERT(r0.last.test_rmse > r2.last.test_rmse + 0.05);

	/* the maps round trip through the model file */
	const char *path = tu_path("msplit.model");
	CU_ASSERT_EQUAL_FATAL(hog_model_save(m2, path, &err), 0);
	hog_model *m3 = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_model_load(&m3, path, &err), 0);
	CU_ASSERT_EQUAL(m3->task, HOG_TASK_RATINGS);
	CU_ASSERT_EQUAL_FATAL(m3->nuser_ids, 50);
	CU_ASSERT_EQUAL_FATAL(m3->nitem_ids, 70);
	CU_ASSERT_EQUAL(memcmp(m3->user_ids, m2->user_ids, 50 * 8), 0);
	CU_ASSERT_EQUAL(memcmp(m3->item_ids, m2->item_ids, 70 * 8), 0);
	CU_ASSERT_EQUAL(m3->user_ids[0], raw_user(0));
	CU_ASSERT_EQUAL(m3->user_ids[49], raw_user(49));

	hog_model_free(m1);
	hog_model_free(m2);
	hog_model_free(m3);
	hog_data_free(all);
	hog_data_free(tr1);
	hog_data_free(te1);
	hog_data_free(tr);
	hog_data_free(te);
	hog_data_free(te2);
	hog_data_free(raw_te);
}

/* Ratings whose ids cannot be matched are refused, naming both files. */
static void test_mf_ids_refused(void)
{
	hog_data *tr = load("mtr.lmdb");
	hog_data_ref ref;
	hog_data_fit fit;
	hog_err err;
	hog_data_ref_of(tr, &ref);
	/* no user and no item in common */
	FILE *f = fopen(tu_path("mother.txt"), "w");
	CU_ASSERT_FATAL(f != NULL);
	for (int j = 0; j < 20; j++)
		fprintf(f, "%d %d 3\n", 7 + j, 9 + j % 5);
	fclose(f);
	import_ratings("mother.txt", "mother.lmdb");
	hog_data *o = load("mother.lmdb");
	CU_ASSERT_EQUAL(hog_data_reconcile(o, "mother.lmdb", &ref, "mtr.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mother.lmdb"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mtr.lmdb"));
	/* a set without id maps whose dense ids exceed the reference's: no way to match them */
	free(o->user_ids);
	free(o->item_ids);
	o->user_ids = o->item_ids = NULL;
	o->users[0] = 55; /* (its own range is 20 users) */
	o->meta.users = 56;
	CU_ASSERT_EQUAL(hog_data_reconcile(o, "mother.lmdb", &ref, "mtr.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "id maps"));
	/* ... and one whose dense ids fit keeps them (today's behaviour) */
	o->users[0] = 3;
	uint32_t u1 = o->users[1];
	CU_ASSERT_EQUAL(hog_data_reconcile(o, "mother.lmdb", &ref, "mtr.lmdb", &fit, &err), 0);
	CU_ASSERT_EQUAL(o->users[0], 3);
	CU_ASSERT_EQUAL(o->users[1], u1);
	CU_ASSERT_EQUAL(fit.unseen, 0);
	hog_data_ref_free(&ref);
	hog_data_ref_of(tr, &ref);
	/* a sparse set against ratings */
	hog_data sp = { .meta = { .kind = HOG_KIND_SPARSE, .task = HOG_TASK_BINARY } };
	CU_ASSERT_EQUAL(hog_data_reconcile(&sp, "a.lmdb", &ref, "mtr.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a.lmdb"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mtr.lmdb"));
	hog_data_ref_free(&ref);
	hog_data_free(o);
	hog_data_free(tr);
}

/* ------------------------------------------------- linear, extra features */

static void write_text(const char *name, const char *text) { tu_write(name, text, (size_t)-1); }

static void import_as(const char *txt, const char *lmdb, enum hog_format fmt)
{
	hog_import_opts o = { .format = fmt, .header = -1, .label_col = -1 };
	hog_err err;
	const char *in[1] = { tu_path(txt) };
	char out[4096];
	snprintf(out, sizeof out, "%s", tu_path(lmdb));
	int rc = hog_import(in, 1, out, &o, &err);
	if (rc)
		fprintf(stderr, "import %s: %s\n", txt, err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static void test_linear_extra_features(void)
{
	char *tr = malloc(1 << 16), *te = malloc(1 << 16);
	size_t a = 0, b = 0;
	uint64_t s = 3;
	for (int j = 0; j < 300; j++) {
		int f1 = 1 + (int)(lcg(&s) % 9), f2 = f1 + 1 + (int)(lcg(&s) % (uint64_t)(10 - f1));
		a += (size_t)sprintf(tr + a, "%s %d:1 %d:0.5\n", f1 < 5 ? "+1" : "-1", f1, f2);
	}
	for (int j = 0; j < 60; j++) /* features 11..15 are the test file's own */
		b += (size_t)sprintf(te + b, "%s %d:1 %d:2\n", j % 2 ? "+1" : "-1", 1 + j % 10, 11 + j % 5);
	write_text("ltr.svm", tr);
	write_text("lte.svm", te);
	free(tr);
	free(te);
	import_as("ltr.svm", "ltr.lmdb", HOG_FORMAT_LIBSVM);
	import_as("lte.svm", "lte.lmdb", HOG_FORMAT_LIBSVM);
	hog_data *dtr = load("ltr.lmdb"), *dte = load("lte.lmdb");
	CU_ASSERT_FATAL(dte->dim > dtr->dim);
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.mode = HOG_MODE_SERIAL;
	o.threads = 1;
	o.epochs = 5;
	o.bind = HOG_BIND_NONE;
	hog_model *m = NULL;
	hog_train_result res;
	hog_err err;
	/* train --test takes it too */
	CU_ASSERT_EQUAL_FATAL(hog_train(dtr, dte, &o, &m, &res, &err), 0);
	hog_model_info info;
	hog_model_info_get(m, &info);
	CU_ASSERT_EQUAL_FATAL(info.dim, dtr->dim);
	/* the expected count and margins, by a plain loop that skips what the model lacks */
	uint64_t extra_nnz = 0, distinct = 0;
	unsigned char seen[64] = { 0 };
	float *want = malloc(dte->n * sizeof *want), *got = malloc(dte->n * sizeof *got);
	for (uint64_t i = 0; i < dte->n; i++) {
		double mg = info.bias;
		for (uint64_t j = dte->offsets[i]; j < dte->offsets[i + 1]; j++) {
			if (dte->ids[j] >= info.dim) {
				extra_nnz++;
				distinct += !seen[dte->ids[j]]++;
				continue;
			}
			mg += (double)info.weights[dte->ids[j]] * (dte->vals ? dte->vals[j] : 1.0f);
		}
		want[i] = (float)mg;
	}
	CU_ASSERT_EQUAL(distinct, 5);
	hog_data_fit fit;
	CU_ASSERT_EQUAL_FATAL(hog_model_prepare(m, dte, "lte.lmdb", "l.model", &fit, &err), 0);
	CU_ASSERT_EQUAL(fit.extra_features, distinct);
	CU_ASSERT_EQUAL(fit.extra_nnz, extra_nnz);
	CU_ASSERT_EQUAL_FATAL(hog_model_predict(m, dte, got, &err), 0);
	for (uint64_t i = 0; i < dte->n; i++)
		CU_ASSERT(fabsf(got[i] - want[i]) < 1e-5f * (1 + fabsf(want[i])));
	free(want);
	free(got);

	/* a fit not wanted (NULL: it wrote through it) */
	hog_data *dte2 = load("lte.lmdb");
	CU_ASSERT_EQUAL(hog_model_prepare(m, dte2, "lte.lmdb", "l.model", NULL, &err), 0);
	hog_data_free(dte2);
	/* a regression set refused by the logistic model, naming both */
	write_text("lreg.svm", "0.5 1:1\n1.7 2:1\n2.5 3:1\n");
	import_as("lreg.svm", "lreg.lmdb", HOG_FORMAT_LIBSVM);
	hog_data *reg = load("lreg.lmdb");
	CU_ASSERT_EQUAL(hog_model_prepare(m, reg, "lreg.lmdb", "l.model", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "lreg.lmdb"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "l.model"));
	/* a ratings set refused by the linear model */
	hog_data *rat = load("mtr.lmdb");
	CU_ASSERT_EQUAL(hog_model_prepare(m, rat, "mtr.lmdb", "l.model", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mtr.lmdb"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "l.model"));

	/* a squared-loss model of regression labels takes a test set whose labels
	 * happen to be {0,1} (read as binary): as the values 0 and 1 */
	hog_model *mr = NULL;
	o.loss = HOG_LOSS_SQUARED;
	CU_ASSERT_EQUAL_FATAL(hog_train(reg, NULL, &o, &mr, &res, &err), 0);
	CU_ASSERT_EQUAL(mr->task, HOG_TASK_REGRESSION);
	write_text("l01.svm", "0 1:1\n1 2:1\n1 3:1\n");
	import_as("l01.svm", "l01.lmdb", HOG_FORMAT_LIBSVM);
	hog_data *b01 = load("l01.lmdb");
	CU_ASSERT_EQUAL_FATAL(b01->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL_FATAL(hog_model_prepare(mr, b01, "l01.lmdb", "r.model", &fit, &err), 0);
	CU_ASSERT_EQUAL(fit.relabelled, 1);
	CU_ASSERT_EQUAL(b01->meta.task, HOG_TASK_REGRESSION);
	CU_ASSERT_EQUAL(b01->labels[0], 0.0f);
	CU_ASSERT_EQUAL(b01->labels[1], 1.0f);
	/* ... but a logistic model of binary labels refuses a regression set */
	hog_data *reg2 = load("lreg.lmdb");
	hog_data_ref ref;
	hog_data_ref_of(dtr, &ref);
	CU_ASSERT_EQUAL(hog_data_reconcile(reg2, "lreg.lmdb", &ref, "ltr.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "binary"));
	hog_data_ref_free(&ref);

	hog_data_free(reg2);
	hog_data_free(b01);
	hog_data_free(reg);
	hog_data_free(rat);
	hog_data_free(dtr);
	hog_data_free(dte);
	hog_model_free(m);
	hog_model_free(mr);
}

/* The squared loss and labels read as binary: a model says what task it trained
 * on (hog_model_info.task; a model made by the API says nothing), and the
 * squared loss never trains labels read as binary, 0 and 1, as the classes -1
 * and +1: refused, naming --task regression; -1 and +1 are the same either way
 * (least squares on classes). */
static void test_squared_task(void)
{
	write_text("sq01.svm", "0 1:1\n1 2:1\n1 3:1\n0 1:1 2:1\n");
	write_text("sqpm.svm", "-1 1:1\n1 2:1\n1 3:1\n-1 1:1 2:1\n");
	write_text("sqreg.svm", "0.5 1:1\n1.7 2:1\n2.5 3:1\n");
	import_as("sq01.svm", "sq01.lmdb", HOG_FORMAT_LIBSVM);
	import_as("sqpm.svm", "sqpm.lmdb", HOG_FORMAT_LIBSVM);
	import_as("sqreg.svm", "sqreg.lmdb", HOG_FORMAT_LIBSVM);
	hog_data *b01 = load("sq01.lmdb"), *pm = load("sqpm.lmdb"), *reg = load("sqreg.lmdb");
	CU_ASSERT_EQUAL_FATAL(b01->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL_FATAL(pm->meta.task, HOG_TASK_BINARY);
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.mode = HOG_MODE_SERIAL;
	o.threads = 1;
	o.epochs = 2;
	o.bind = HOG_BIND_NONE;
	hog_train_result res;
	hog_err err;
	hog_model *mr = NULL, *mc = NULL, *ms = NULL;
	hog_model_info mi;
	CU_ASSERT_EQUAL_FATAL(hog_train(pm, NULL, &o, &mc, &res, &err), 0); /* logistic, classes */
	hog_model_info_get(mc, &mi);
	CU_ASSERT_EQUAL(mi.task, HOG_TASK_BINARY);
	o.loss = HOG_LOSS_SQUARED;
	CU_ASSERT_EQUAL_FATAL(hog_train(reg, NULL, &o, &mr, &res, &err), 0);
	hog_model_info_get(mr, &mi);
	CU_ASSERT_EQUAL(mi.task, HOG_TASK_REGRESSION);
	hog_model *bare = hog_model_new(4, HOG_LOSS_SQUARED, HOG_RULE_SGD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bare);
	hog_model_info_get(bare, &mi);
	CU_ASSERT_EQUAL(mi.task, 0);
	CU_ASSERT_EQUAL(hog_train(b01, NULL, &o, &ms, &res, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NULL(ms);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--task regression"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "0 to 1"));
	CU_ASSERT_EQUAL(hog_train(pm, NULL, &o, &ms, &res, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(ms);
	hog_model_free(bare);
	hog_model_free(ms);
	hog_model_free(mr);
	hog_model_free(mc);
	hog_data_free(b01);
	hog_data_free(pm);
	hog_data_free(reg);
}

/* ------------------------------------------------- csv column names */

static void test_csv_columns(void)
{
	write_text("c1.csv", "a,b,label\n1,2,0\n2,1,1\n3,3,0\n1,1,1\n");
	write_text("c2.csv", "b,a,label\n2,1,0\n1,2,1\n");
	write_text("c3.csv", "a,b,label\n2,1,0\n1,2,1\n");
	write_text("c4.csv", "a,b,c,label\n2,1,0,0\n1,2,0,1\n");
	import_as("c1.csv", "c1.lmdb", HOG_FORMAT_CSV);
	import_as("c2.csv", "c2.lmdb", HOG_FORMAT_CSV);
	import_as("c3.csv", "c3.lmdb", HOG_FORMAT_CSV);
	import_as("c4.csv", "c4.lmdb", HOG_FORMAT_CSV);
	hog_data *c1 = load("c1.lmdb"), *c2 = load("c2.lmdb"), *c3 = load("c3.lmdb"), *c4 = load("c4.lmdb");
	CU_ASSERT_STRING_EQUAL(c1->columns, "a,b,label");
	hog_data_ref ref;
	hog_data_fit fit;
	hog_err err;
	hog_data_ref_of(c1, &ref);
	CU_ASSERT_EQUAL(hog_data_reconcile(c3, "c3.lmdb", &ref, "c1.lmdb", &fit, &err), 0);
	CU_ASSERT_EQUAL(hog_data_reconcile(c2, "c2.lmdb", &ref, "c1.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "column 0 is 'a' in c1.lmdb and 'b' in c2.lmdb"));
	CU_ASSERT_EQUAL(hog_data_reconcile(c4, "c4.lmdb", &ref, "c1.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "c1.lmdb has 3 columns and c4.lmdb 4 ('c' only in c4.lmdb; imported with "
	                                       "another --ignore-col?)"));
	hog_data_ref_free(&ref);
	/* the model keeps them: eval refuses the same way */
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.mode = HOG_MODE_SERIAL;
	o.threads = 1;
	o.epochs = 1;
	o.bind = HOG_BIND_NONE;
	hog_model *m = NULL;
	hog_train_result res;
	CU_ASSERT_EQUAL_FATAL(hog_train(c1, NULL, &o, &m, &res, &err), 0);
	CU_ASSERT_STRING_EQUAL(m->columns, "a,b,label");
	const char *path = tu_path("c.model");
	hog_model *m2 = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_model_save(m, path, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_model_load(&m2, path, &err), 0);
	CU_ASSERT_STRING_EQUAL(m2->columns, "a,b,label");
	CU_ASSERT_EQUAL(m2->task, HOG_TASK_BINARY);
	/* a split keeps the names */
	char pa[4096], pb[4096];
	snprintf(pa, sizeof pa, "%s", tu_path("c2a.lmdb"));
	snprintf(pb, sizeof pb, "%s", tu_path("c2b.lmdb"));
	CU_ASSERT_EQUAL_FATAL(hog_data_split(tu_path("c2.lmdb"), pa, pb, 0.5, 1, &err), 0);
	hog_data *part = load("c2a.lmdb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(part->columns);
	CU_ASSERT_STRING_EQUAL(part->columns, "b,a,label");
	hog_data_free(part);
	hog_data *c2b = load("c2.lmdb");
	CU_ASSERT_EQUAL(hog_model_prepare(m2, c2b, "c2.lmdb", "c.model", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'a' in c.model and 'b' in c2.lmdb"));
	hog_data_free(c1);
	hog_data_free(c2);
	hog_data_free(c2b);
	hog_data_free(c3);
	hog_data_free(c4);
	hog_model_free(m);
	hog_model_free(m2);
}

/* ------------------------------------------------- class names */

/* The class a test example's name is in the training file's numbering: the
 * names sorted, a, b, c (the test file has no b: its own c is 1). */
/* @p m saved to NAME.model and loaded back (*loaded), dumped to NAME.txt and
 * loaded from the text into NAME2.model (*undumped), which must be the same
 * bytes; the text's path. */
static const char *model_round_trip(hog_model *m, const char *name, hog_model **loaded, hog_model **undumped)
{
	static char txt[4096];
	char file[4096], back[4096], n[64];
	hog_err err;
	snprintf(n, sizeof n, "%s.model", name);
	snprintf(file, sizeof file, "%s", tu_path(n));
	snprintf(n, sizeof n, "%s.txt", name);
	snprintf(txt, sizeof txt, "%s", tu_path(n));
	snprintf(n, sizeof n, "%s2.model", name);
	snprintf(back, sizeof back, "%s", tu_path(n));
	CU_ASSERT_EQUAL_FATAL(hog_model_save(m, file, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_model_load(loaded, file, &err), 0);
	FILE *f = fopen(txt, "w");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL_FATAL(hog_model_dump(file, fileno(f), &err), 0);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(hog_model_undump(txt, back, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_model_load(undumped, back, &err), 0);
	CU_ASSERT_EQUAL(tu_sh("cmp -s '%s' '%s'", file, back), 0);
	return txt;
}

/* NAME.lmdb split in halves NAMEa and NAMEb (fraction 0.5, seed 1); the
 * second half loaded where @p second, else the first. */
static hog_data *split_half(const char *name, int second)
{
	char in[64], pa[4096], pb[4096], n[64];
	hog_err err;
	snprintf(in, sizeof in, "%s.lmdb", name);
	snprintf(n, sizeof n, "%sa.lmdb", name);
	snprintf(pa, sizeof pa, "%s", tu_path(n));
	snprintf(n, sizeof n, "%sb.lmdb", name);
	snprintf(pb, sizeof pb, "%s", tu_path(n));
	CU_ASSERT_EQUAL_FATAL(hog_data_split(tu_path(in), pa, pb, 0.5, 1, &err), 0);
	snprintf(n, sizeof n, "%s%s.lmdb", name, second ? "b" : "a");
	return load(n);
}

static float want_class(const char *name) { return name[0] == 'a' ? 0.0f : name[0] == 'b' ? 1.0f : 2.0f; }

/* Labels that are names, in a test file imported apart whose importer numbered
 * them in another order: renumbered by name, on a loaded set, chunk by chunk
 * and through a model (saved, loaded, dumped as text and loaded back); a split
 * keeps the names; a binary set's two names likewise (-1/+1 by name); a name
 * the reference lacks, or names on one side only, is refused naming both. */
static void test_class_names(void)
{
	static const char *const te_names[] = { "c", "a", "c", "c", "a", "c", "a" };
	write_text("n1.csv", "p,q,kind\n1,0,b\n0,1,c\n1,1,a\n2,0,b\n0,2,c\n2,2,a\n");
	write_text("n2.csv", "p,q,kind\n1,1,c\n0,1,a\n1,0,c\n2,0,c\n3,3,a\n0,2,c\n1,1,a\n");
	write_text("n3.csv", "p,q,kind\n1,1,a\n0,1,d\n");
	write_text("n4.csv", "p,q,kind\n1,1,0\n0,1,2\n2,2,1\n"); /* (three values: two would be named) */
	import_as("n1.csv", "n1.lmdb", HOG_FORMAT_CSV);
	import_as("n2.csv", "n2.lmdb", HOG_FORMAT_CSV);
	import_as("n3.csv", "n3.lmdb", HOG_FORMAT_CSV);
	import_as("n4.csv", "n4.lmdb", HOG_FORMAT_CSV);
	hog_data *tr = load("n1.lmdb"), *te = load("n2.lmdb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tr->class_names);
	CU_ASSERT_STRING_EQUAL(tr->class_names, "a\nb\nc\n"); /* (sorted, not as met) */
	CU_ASSERT_STRING_EQUAL(te->class_names, "a\nc\n");
	CU_ASSERT_EQUAL(tr->meta.task, HOG_TASK_MULTICLASS);
	CU_ASSERT_EQUAL(te->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL(te->labels[0], 1.0f); /* (its own numbering: c is 1, +1 as a binary label) */
	hog_data_ref ref;
	hog_data_fit fit;
	hog_err err;
	hog_data_ref_of(tr, &ref);
	CU_ASSERT_EQUAL_FATAL(hog_data_reconcile(te, "n2.lmdb", &ref, "n1.lmdb", &fit, &err), 0);
	CU_ASSERT_EQUAL(fit.renamed, 1);
	for (uint64_t i = 0; i < te->n; i++)
		CU_ASSERT_EQUAL(te->labels[i], want_class(te_names[i]));
	/* chunk by chunk, 3 examples a chunk */
	hog_chunks *c = NULL;
	hog_data_match *x = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_chunks_open(&c, tu_path("n2.lmdb"), 3, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_match_begin(&x, c, "n2.lmdb", &ref, "n1.lmdb", &err), 0);
	CU_ASSERT_EQUAL(hog_chunks_header(c)->meta.task, HOG_TASK_MULTICLASS);
	hog_data *d;
	uint64_t at = 0;
	while (hog_chunks_next(c, &d, &err) == 0 && d) {
		hog_data_match_chunk(x, d);
		for (uint64_t i = 0; i < d->n; i++, at++)
			CU_ASSERT_EQUAL(d->labels[i], want_class(te_names[at]));
	}
	CU_ASSERT_EQUAL(at, 7);
	CU_ASSERT_EQUAL(hog_chunks_header(c)->meta.classes, 3);
	hog_data_match_end(x, NULL);
	hog_chunks_close(c);
	/* refusals: a name the reference lacks; numbers against names, both ways */
	hog_data *n3 = load("n3.lmdb"), *n4 = load("n4.lmdb");
	CU_ASSERT_EQUAL(hog_data_reconcile(n3, "n3.lmdb", &ref, "n1.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "n3.lmdb has the class 'd', which n1.lmdb has not"));
	CU_ASSERT_PTR_NULL(strstr(err.msg, "final '.'"));
	/* adult.test's labels: adult.data's with a final '.' -- said so */
	write_text("n5.csv", "p,q,kind\n1,1,a.\n0,1,b.\n");
	import_as("n5.csv", "n5.lmdb", HOG_FORMAT_CSV);
	hog_data *n5 = load("n5.lmdb");
	CU_ASSERT_EQUAL(hog_data_reconcile(n5, "n5.lmdb", &ref, "n1.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "n5.lmdb has the class 'a.', which n1.lmdb has not (n1.lmdb has 'a', 'b', "
	                                       "'c'; the same names but for a final '.'"));
	hog_data_free(n5);
	CU_ASSERT_EQUAL(hog_data_reconcile(n4, "n4.lmdb", &ref, "n1.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "n1.lmdb's labels are class names and n4.lmdb's are numbers"));
	hog_data_ref_free(&ref);
	hog_data_ref_of(n4, &ref);
	hog_data *te2 = load("n2.lmdb");
	CU_ASSERT_EQUAL(hog_data_reconcile(te2, "n2.lmdb", &ref, "n4.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "n2.lmdb's labels are class names and n4.lmdb's are numbers"));
	hog_data_ref_free(&ref);
	/* the model keeps the names through its file and its text */
	hog_model *m = hog_model_new(2, HOG_LOSS_LOGISTIC, HOG_RULE_SGD), *m2 = NULL, *m3 = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL_FATAL(hog_model_set_origin(m, tr), 0);
	const char *txt = model_round_trip(m, "n", &m2, &m3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m2->class_names);
	CU_ASSERT_STRING_EQUAL(m2->class_names, "a\nb\nc\n");
	CU_ASSERT_EQUAL(tu_sh("grep -qx 'class_names a\\\\nb\\\\nc\\\\n' '%s'", txt), 0);
	CU_ASSERT_STRING_EQUAL(m3->class_names, "a\nb\nc\n");
	/* a split's halves keep the names */
	hog_data *half = split_half("n2", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(half->class_names);
	CU_ASSERT_STRING_EQUAL(half->class_names, "a\nc\n");
	CU_ASSERT_EQUAL(half->meta.task, HOG_TASK_BINARY);
	/* two names: binary, -1/+1 by name */
	write_text("y1.csv", "p,q,label\n1,0,no\n0,1,yes\n1,1,no\n");
	write_text("y2.csv", "p,q,label\n0,1,yes\n1,0,yes\n0,0,yes\n");
	import_as("y1.csv", "y1.lmdb", HOG_FORMAT_CSV);
	import_as("y2.csv", "y2.lmdb", HOG_FORMAT_CSV);
	hog_data *y1 = load("y1.lmdb"), *y2 = load("y2.lmdb");
	CU_ASSERT_EQUAL(y1->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL(y2->labels[0], -1.0f); /* ("yes" is its class 0: its only name) */
	hog_data_ref_of(y1, &ref);
	CU_ASSERT_EQUAL_FATAL(hog_data_reconcile(y2, "y2.lmdb", &ref, "y1.lmdb", &fit, &err), 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(y2->labels[i], 1.0f);
	hog_data_ref_free(&ref);
	hog_data_free(y1);
	hog_data_free(y2);
	hog_data_free(half);
	hog_model_free(m);
	hog_model_free(m2);
	hog_model_free(m3);
	hog_data_free(te2);
	hog_data_free(n3);
	hog_data_free(n4);
	hog_data_free(tr);
	hog_data_free(te);
}

/* The ids a test row of categories should have in the training set's numbers:
 * its 'w' column's value x, y or z (the training file met y, x, z: features
 * 3, 4, 5 after the three feature columns' ids); q the training set lacks. */
static uint32_t want_feature(char v) { return v == 'y' ? 3 : v == 'x' ? 4 : v == 'z' ? 5 : UINT32_MAX; }

/* Columns of text in a test file imported apart, which met the values in
 * another order and one the training file never had: renumbered by name on a
 * loaded set and chunk by chunk (the unknown value dropped and counted as an
 * extra feature), the dimension the training set's; a model keeps the
 * categories through its file and its text; a split keeps them; text where the
 * training set has numbers is refused. */
static void test_categories(void)
{
	static const char te_w[] = "zqxyzx";
	write_text("g1.csv", "a,w,b,label\n1,y,2,0\n0,x,1,1\n1,z,1,0\n2,y,0,1\n");
	write_text("g2.csv", "a,w,b,label\n1,z,1,0\n0,q,2,1\n1,x,1,0\n2,y,0,1\n3,z,1,1\n1,x,0,0\n");
	write_text("g3.csv", "a,w,b,label\n1,7,1,0\n0,5,2,1\n");
	import_as("g1.csv", "g1.lmdb", HOG_FORMAT_CSV);
	import_as("g2.csv", "g2.lmdb", HOG_FORMAT_CSV);
	import_as("g3.csv", "g3.lmdb", HOG_FORMAT_CSV);
	hog_data *tr = load("g1.lmdb"), *te = load("g2.lmdb"), *g3 = load("g3.lmdb");
	CU_ASSERT_EQUAL(tr->dim, 6);
	CU_ASSERT_EQUAL(te->dim, 7);
	CU_ASSERT_STRING_EQUAL(tr->categories, "w=y\nw=x\nw=z\n");
	hog_data_ref ref;
	hog_data_fit fit;
	hog_err err;
	hog_data_ref_of(tr, &ref);
	CU_ASSERT_EQUAL_FATAL(hog_data_reconcile(te, "g2.lmdb", &ref, "g1.lmdb", &fit, &err), 0);
	CU_ASSERT_EQUAL(fit.recoded, 1);
	CU_ASSERT_EQUAL(fit.extra_features, 1);
	CU_ASSERT_EQUAL(fit.extra_nnz, 1);
	CU_ASSERT_EQUAL(te->dim, 6);
	for (uint64_t i = 0; i < te->n; i++) { /* a, b (features 0 and 2, where not 0), then w's */
		uint32_t want = want_feature(te_w[i]), found = UINT32_MAX;
		for (uint64_t j = te->offsets[i]; j < te->offsets[i + 1]; j++) {
			CU_ASSERT(j == te->offsets[i] || te->ids[j] > te->ids[j - 1]);
			if (te->ids[j] >= 3)
				found = te->ids[j];
		}
		CU_ASSERT_EQUAL(found, want);
	}
	/* chunk by chunk, 4 examples a chunk */
	hog_chunks *c = NULL;
	hog_data_match *x = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_chunks_open(&c, tu_path("g2.lmdb"), 4, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_match_begin(&x, c, "g2.lmdb", &ref, "g1.lmdb", &err), 0);
	hog_data *d;
	uint64_t at = 0;
	while (hog_chunks_next(c, &d, &err) == 0 && d) {
		hog_data_match_chunk(x, d);
		CU_ASSERT_EQUAL(d->dim, 6);
		for (uint64_t i = 0; i < d->n; i++, at++) {
			uint32_t found = UINT32_MAX;
			for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++)
				if (d->ids[j] >= 3)
					found = d->ids[j];
			CU_ASSERT_EQUAL(found, want_feature(te_w[at]));
		}
	}
	CU_ASSERT_EQUAL(at, 6);
	hog_data_match_fit(x, &fit);
	CU_ASSERT_EQUAL(fit.extra_features, 1);
	hog_data_match_end(x, NULL);
	hog_chunks_close(c);
	hog_data_ref_free(&ref);
	/* text where the reference has numbers */
	hog_data_ref_of(g3, &ref);
	hog_data *te2 = load("g2.lmdb");
	CU_ASSERT_EQUAL(hog_data_reconcile(te2, "g2.lmdb", &ref, "g3.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "g2.lmdb has columns of text (read as categories: 'w=z', ...) where "
	                                       "g3.lmdb has numbers"));
	hog_data_ref_free(&ref);
	/* the model file and its text keep them */
	hog_model *m = hog_model_new(6, HOG_LOSS_LOGISTIC, HOG_RULE_SGD), *m2 = NULL, *m3 = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL_FATAL(hog_model_set_origin(m, tr), 0);
	model_round_trip(m, "g", &m2, &m3);
	CU_ASSERT_STRING_EQUAL(m2->categories, "w=y\nw=x\nw=z\n");
	CU_ASSERT_EQUAL(m2->category_from, 3);
	CU_ASSERT_STRING_EQUAL(m3->categories, "w=y\nw=x\nw=z\n");
	/* through the model: the same recoding (prepare) */
	hog_data *te3 = load("g2.lmdb");
	CU_ASSERT_EQUAL(hog_model_prepare(m2, te3, "g2.lmdb", "g.model", &fit, &err), 0);
	CU_ASSERT_EQUAL(te3->dim, 6);
	CU_ASSERT_EQUAL(fit.extra_features, 1);
	/* a split's halves keep them */
	hog_data *half = split_half("g2", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(half->categories);
	CU_ASSERT_STRING_EQUAL(half->categories, "w=z\nw=q\nw=x\nw=y\n");
	CU_ASSERT_EQUAL(half->category_from, 3);
	hog_data_free(half);
	hog_data_free(te3);
	hog_model_free(m);
	hog_model_free(m2);
	hog_model_free(m3);
	hog_data_free(te2);
	hog_data_free(g3);
	hog_data_free(tr);
	hog_data_free(te);
}

/* ------------------------------------------------- the model file */

static unsigned char *slurp(const char *path, long *n)
{
	FILE *f = fopen(path, "rb");
	CU_ASSERT_FATAL(f != NULL);
	fseek(f, 0, SEEK_END);
	*n = ftell(f);
	rewind(f);
	unsigned char *b = malloc((size_t)*n);
	CU_ASSERT_FATAL(fread(b, 1, (size_t)*n, f) == (size_t)*n);
	fclose(f);
	return b;
}

static void spit(const char *path, const unsigned char *b, long n, int fix_crc)
{
	unsigned char *c = malloc((size_t)n);
	memcpy(c, b, (size_t)n);
	if (fix_crc) {
		uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), c, (uInt)(n - 4));
		memcpy(c + n - 4, &crc, 4);
	}
	FILE *f = fopen(path, "wb");
	CU_ASSERT_FATAL(f && fwrite(c, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	free(c);
}

static void test_model_file_versions(void)
{
	hog_err err;
	hog_model *m = NULL, *l = NULL;
	const char *path = tu_path("msplit.model"), *p2 = tu_path("v2.model");
	CU_ASSERT_EQUAL_FATAL(hog_model_load(&m, path, &err), 0);
	long n;
	unsigned char *b = slurp(path, &n);
	uint32_t version, task;
	uint64_t slen;
	memcpy(&version, b + 8, 4);
	memcpy(&task, b + 176, 4);
	memcpy(&slen, b + 184, 8);
	CU_ASSERT_EQUAL(version, 3);
	CU_ASSERT_EQUAL(task, HOG_TASK_RATINGS);
	/* two sections: 16 bytes of head and the ids of 50 users, 70 items */
	CU_ASSERT_EQUAL(slen, 32 + 8 * (50 + 70));
	CU_ASSERT_EQUAL((uint64_t)n, 192 + m->nparams * 4 + slen + 4);
	/* the layout hogwild-data(5) gives, computed here: rank 8 padded to 16; P
	 * (50 x 16), Q (70 x 16), bu (50, padded to 64), bi (70, padded to 80) */
	CU_ASSERT_EQUAL_FATAL(m->nparams, 50 * 16 + 70 * 16 + 64 + 80);
	float f;
	for (int u = 0; u < 50; u++) {
		memcpy(&f, b + 192 + 4 * (50 * 16 + 70 * 16 + u), 4); /* bu[u] */
		CU_ASSERT_EQUAL(f, m->params[50 * 16 + 70 * 16 + u]);
		CU_ASSERT(f != 0.0f || u > 49);
		memcpy(&f, b + 192 + 4 * (16 * u + 8), 4); /* P[u]'s padding */
		CU_ASSERT_EQUAL(f, 0.0f);
	}
	/* the sections: tag 1, the users' original ids */
	uint32_t tag;
	uint64_t len, id0;
	memcpy(&tag, b + 192 + m->nparams * 4, 4);
	memcpy(&len, b + 192 + m->nparams * 4 + 8, 8);
	memcpy(&id0, b + 192 + m->nparams * 4 + 16, 8);
	CU_ASSERT_EQUAL(tag, 1);
	CU_ASSERT_EQUAL(len, 50 * 8);
	CU_ASSERT_EQUAL(id0, raw_user(0));
	/* a damaged section length is refused */
	unsigned char *c = malloc((size_t)n);
	memcpy(c, b, (size_t)n);
	uint64_t bad = 8 * 50 + 1;
	memcpy(c + 192 + m->nparams * 4 + 8, &bad, 8);
	spit(p2, c, n, 1);
	CU_ASSERT_EQUAL(hog_model_load(&l, p2, &err), HOG_ECORRUPT);
	/* a version 2 file (no task, no sections) loads, without maps */
	memcpy(c, b, (size_t)n);
	uint32_t two = 2;
	memcpy(c + 8, &two, 4);
	memset(c + 176, 0, 16);
	memmove(c + 192 + m->nparams * 4, c + n - 4, 4);
	spit(p2, c, n - (long)slen, 1);
	CU_ASSERT_EQUAL_FATAL(hog_model_load(&l, p2, &err), 0);
	CU_ASSERT_EQUAL(l->task, 0);
	CU_ASSERT_PTR_NULL(l->user_ids);
	CU_ASSERT_EQUAL(memcmp(l->params, m->params, m->nparams * 4), 0);
	hog_model_free(l);
	l = NULL;
	/* ... but not one that claims sections */
	memcpy(c + 184, &slen, 8);
	spit(p2, c, n - (long)slen, 1);
	CU_ASSERT_EQUAL(hog_model_load(&l, p2, &err), HOG_ECORRUPT);
	free(b);
	free(c);
	hog_model_free(m);
}

int test_reconcile_register(void)
{
	CU_pSuite s = CU_add_suite("reconcile", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_mf_separate_imports);
	TU_ADD(s, test_mf_ids_refused);
	TU_ADD(s, test_linear_extra_features);
	TU_ADD(s, test_squared_task);
	TU_ADD(s, test_csv_columns);
	TU_ADD(s, test_class_names);
	TU_ADD(s, test_categories);
	TU_ADD(s, test_model_file_versions);
	return 0;
}
