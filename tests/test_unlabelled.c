/* Data sets without labels (issue 24): the writer's and the importers' meta
 * entry "labels" = "none", read back by the store and checked by verify (a
 * value other than none, labels that are not 0), older sets without the entry
 * read as labelled, LIBSVM lines without labels detected, and what the model
 * layer does with such a set: predictions as on the same features with labels,
 * no evaluation, the task and the CSV columns matched as the model's. */
#include "data/store.h"
#include "model/linear.h"
#include "model/model.h"
#include "util.h"
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has(const hog_err *err, const char *s)
{
	int ok = strstr(err->msg, s) != NULL;
	if (!ok)
		fprintf(stderr, "\nwanted '%s' in '%s'\n", s, err->msg);
	return ok;
}

/* Sets meta entry @p key of the data set at @p path behind the writer's back. */
static void meta_put(const char *path, const char *key, const char *value)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	CU_ASSERT_EQUAL_FATAL(mdb_env_create(&env), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_env_set_maxdbs(env, 4), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_NOLOCK, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_txn_begin(env, NULL, 0, &txn), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_dbi_open(txn, "meta", 0, &dbi), 0);
	MDB_val k = { strlen(key), (void *)key }, v = { strlen(value), (void *)value };
	CU_ASSERT_EQUAL(mdb_put(txn, dbi, &k, &v, 0), 0);
	CU_ASSERT_EQUAL(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
}

static const char *import(const char *name, const char *text, enum hog_format f, int no_label, hog_err *err,
                          int *rc)
{
	char in[600];
	snprintf(in, sizeof in, "%s", tu_write(name, text, (size_t)-1));
	static char out[700];
	snprintf(out, sizeof out, "%s.lmdb", in);
	const char *ins[1] = { in };
	hog_import_opts o = { .format = f, .header = -1, .no_label = no_label };
	*rc = hog_import(ins, 1, out, &o, err);
	return out;
}

static void test_unlabelled_meta(void)
{
	hog_err err = { 0 };
	int rc;
	const char *p = import("u.svm", "1:0.5 3:1\n2:2\n", HOG_FORMAT_LIBSVM, 0, &err, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	hog_store *s;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, p, &err), 0);
	char buf[32];
	CU_ASSERT(hog_store_meta_get(s, "labels", buf, sizeof buf) == 0 && !strcmp(buf, "none"));
	CU_ASSERT_EQUAL(hog_store_meta(s)->unlabelled, 1);
	CU_ASSERT_EQUAL(hog_store_meta(s)->examples, 2);
	CU_ASSERT_EQUAL(hog_store_meta(s)->features, 3);
	hog_store_close(s);
	CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), 0);
	/* a labelled set has no entry, and reads as labelled (as every older set) */
	const char *l = import("l.svm", "1 1:0.5 3:1\n-1 2:2\n", HOG_FORMAT_LIBSVM, 0, &err, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, l, &err), 0);
	CU_ASSERT(hog_store_meta_get(s, "labels", buf, sizeof buf) == ENOENT);
	CU_ASSERT_EQUAL(hog_store_meta(s)->unlabelled, 0);
	hog_store_close(s);
	/* the entry is the format's own: a writer's caller cannot set it */
	hog_writer *w;
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE };
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, tu_path("w.lmdb"), &wo, &err), 0);
	CU_ASSERT_EQUAL(hog_writer_meta_set(w, "labels", "none", &err), HOG_ECONFIG);
	hog_writer_abort(w);
	/* damage: another value; labels that are not 0 */
	meta_put(p, "labels", "some");
	CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, "meta entry 'labels' = 'some': the one value it takes is 'none'"));
	meta_put(l, "labels", "none");
	CU_ASSERT_EQUAL(hog_store_verify(l, NULL, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, "meta entry 'labels' = 'none' (a set without labels), but the blocks hold labels -1..1"));
}

static void test_unlabelled_import(void)
{
	hog_err err = { 0 };
	int rc;
	import("mix1.svm", "1:1\n1 2:1\n", HOG_FORMAT_LIBSVM, 0, &err, &rc);
	CU_ASSERT_EQUAL(rc, HOG_EDATA);
	CU_ASSERT(has(&err, "mix1.svm:2:1: a label (or no feature), but ") && has(&err, "mix1.svm:1 has none"));
	import("mix2.svm", "1 2:1\n\n# c\n3:1\n", HOG_FORMAT_LIBSVM, 0, &err, &rc);
	CU_ASSERT_EQUAL(rc, HOG_EDATA);
	CU_ASSERT(has(&err, "mix2.svm:4:1: no label, but ") && has(&err, "mix2.svm:1 has one"));
	import("forced.svm", "1 2:1\n", HOG_FORMAT_LIBSVM, 1, &err, &rc);
	CU_ASSERT_EQUAL(rc, HOG_EDATA);
	CU_ASSERT(has(&err, "forced.svm:1:1: a label (or no feature): --no-label says the lines have none"));
	import("p.txt", "5 7 1\n", HOG_FORMAT_RATINGS, 1, &err, &rc);
	CU_ASSERT_EQUAL(rc, HOG_EDATA);
	CU_ASSERT(has(&err, "p.txt:1:5: a third field: --no-label reads 'user item' pairs"));
	import("p2.txt", "5 7\n", HOG_FORMAT_RATINGS, 0, &err, &rc);
	CU_ASSERT_EQUAL(rc, HOG_EDATA);
	CU_ASSERT(has(&err, "(pairs without ratings: --no-label)"));
	const char *p = import("p3.txt", "5 7\n6 7\n5 9\n", HOG_FORMAT_RATINGS, 1, &err, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	hog_data *d;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, p, &err), 0);
	CU_ASSERT(d->meta.unlabelled && d->n == 3 && d->meta.users == 2 && d->meta.items == 2);
	CU_ASSERT(d->ratings[0] == 0 && d->ratings[2] == 0 && d->user_ids[1] == 6 && d->item_ids[1] == 9);
	hog_data_free(d);
	CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), 0);
	/* csv: every column a feature */
	p = import("c.csv", "a,b,c\n1,0,2\n0,3,0\n", HOG_FORMAT_CSV, 1, &err, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, p, &err), 0);
	CU_ASSERT(d->meta.unlabelled && d->n == 2 && d->dim == 3 && d->nnz == 3 && !strcmp(d->columns, "a,b,c"));
	hog_data_free(d);
}

/* A linear model of a CSV set "y,a,b" predicts on "a,b" without labels as on
 * the labelled set; it does not evaluate on it. */
static void test_unlabelled_model(void)
{
	hog_err err = { 0 };
	int rc;
	const char *lp = import("ml.csv", "a,y,b\n0.5,1,2\n1,0,0\n3,1,1\n", HOG_FORMAT_CSV, 0, &err, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	char lpath[600];
	snprintf(lpath, sizeof lpath, "%s", lp);
	const char *up = import("mu.csv", "a,b\n0.5,2\n1,0\n3,1\n", HOG_FORMAT_CSV, 1, &err, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	hog_data *l, *u;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&l, lpath, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&u, up, &err), 0);
	hog_model *m = hog_model_new(2, HOG_LOSS_SQUARED, HOG_RULE_SGD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	m->params[0] = 0.25f;
	m->params[1] = -1.5f;
	m->params[2] = 0.125f;
	CU_ASSERT_EQUAL_FATAL(hog_model_set_origin(m, l), 0);
	m->task = HOG_TASK_REGRESSION; /* a task the importer's placeholder (binary) is not */
	hog_data_fit fit;
	CU_ASSERT_EQUAL(hog_model_prepare(m, l, "ml", "model", &fit, &err), 0);
	CU_ASSERT_EQUAL(hog_model_prepare(m, u, "mu", "model", &fit, &err), 0);
	CU_ASSERT_EQUAL(u->meta.task, HOG_TASK_REGRESSION);
	CU_ASSERT_EQUAL(fit.relabelled, 0);
	float pl[3], pu[3];
	CU_ASSERT_EQUAL(hog_model_predict(m, l, pl, &err), 0);
	CU_ASSERT_EQUAL(hog_model_predict(m, u, pu, &err), 0);
	CU_ASSERT(memcmp(pl, pu, sizeof pl) == 0);
	CU_ASSERT(pu[0] == 0.25f * 0.5f - 1.5f * 2 + 0.125f);
	hog_eval ev;
	CU_ASSERT_EQUAL(hog_model_eval(m, u, &ev, &err), HOG_EMISMATCH);
	CU_ASSERT(has(&err, "the data set has no labels"));
	/* columns that are not the model's but its label's are refused still */
	hog_data *v;
	const char *vp = import("mv.csv", "a,c\n1,2\n", HOG_FORMAT_CSV, 1, &err, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&v, vp, &err), 0);
	CU_ASSERT_EQUAL(hog_model_prepare(m, v, "mv", "model", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT(has(&err, "the column names differ"));
	hog_data_free(v);
	hog_model_free(m);
	hog_data_free(l);
	hog_data_free(u);
}

int test_unlabelled_register(void)
{
	CU_pSuite s = CU_add_suite("unlabelled", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_unlabelled_meta);
	TU_ADD(s, test_unlabelled_import);
	TU_ADD(s, test_unlabelled_model);
	return 0;
}
