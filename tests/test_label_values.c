/* Labels that are two whole numbers other than {0,1} and {-1,1} (LIBSVM's
 * covtype.binary and mushrooms: 1 and 2; breast-cancer: 2 and 4): a binary set
 * whose classes are named by the numbers, the smaller the negative class (and
 * classes numbered from 1, from -1 or with gaps: a multiclass set so named),
 * across blocks written before the second value was met, raw and packed; a
 * test set imported apart that holds only one of the values (a multiclass set
 * of numbers, or a binary one) matched to them by value, whole and a chunk at
 * a time; a value the reference lacks refused naming it; names that are
 * numbers against a multiclass set of numbers (and 0s and 1s read as binary,
 * the numbers of two of its classes), and against regression values
 * (the numbers again); what stays as it was. */
#include "util.h"
#include "hogwild.h"
#include "model/linear.h"
#include "model/model.h"
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hog_err err;

static void import_text(const char *name, const char *text, enum hog_task task, int raw)
{
	char in_name[64], out_name[64];
	snprintf(in_name, sizeof in_name, "%s.txt", name);
	snprintf(out_name, sizeof out_name, "%s.lmdb", name);
	const char *in = tu_write(in_name, text, (size_t)-1);
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM, .task = task, .block_examples = 3, .raw_blocks = raw };
	int rc = hog_import(&in, 1, tu_path(out_name), &o, &err);
	if (rc)
		fprintf(stderr, "\n  import %s: %s\n", name, err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static hog_data *load(const char *name)
{
	char out_name[64];
	snprintf(out_name, sizeof out_name, "%s.lmdb", name);
	hog_data *d = NULL;
	int rc = hog_data_load(&d, tu_path(out_name), &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return d;
}

/* seven examples, the first four (two blocks of three) all 2 */
static const char *const pair12 = "2 1:1\n2 2:1\n2 1:1 3:1\n2 2:1\n1 3:1\n2 1:0.5\n1 4:1\n";
static const float want12[] = { 1, 1, 1, 1, -1, 1, -1 };

static void test_named_numbers_import(void)
{
	for (int raw = 0; raw < 2; raw++) {
		import_text(raw ? "lv_raw" : "lv_packed", pair12, 0, raw);
		hog_data *d = load(raw ? "lv_raw" : "lv_packed");
		CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_BINARY);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d->class_names);
		CU_ASSERT_STRING_EQUAL(d->class_names, "1\n2\n");
		CU_ASSERT_EQUAL(d->meta.positives, 5);
		CU_ASSERT_EQUAL(d->meta.label_min, 0);
		CU_ASSERT_EQUAL(d->meta.label_max, 1);
		CU_ASSERT_EQUAL(d->meta.blocks, 3);
		for (uint64_t i = 0; i < 7; i++)
			CU_ASSERT_EQUAL(d->labels[i], want12[i]);
		hog_data_free(d);
	}
	/* 4 and 2, --task binary: the same, 2 the negative class (it was: every example positive) */
	import_text("lv_24", "4 1:1\n2 2:1\n4 3:1\n", HOG_TASK_BINARY, 0);
	hog_data *d = load("lv_24");
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_STRING_EQUAL(d->class_names, "2\n4\n");
	CU_ASSERT_EQUAL(d->labels[0], 1.0f);
	CU_ASSERT_EQUAL(d->labels[1], -1.0f);
	hog_data_free(d);
	/* what stays: --task multiclass (classes 0..2), three values, {0,1}, fractions */
	import_text("lv_mc", pair12, HOG_TASK_MULTICLASS, 0);
	d = load("lv_mc");
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_MULTICLASS);
	CU_ASSERT_EQUAL(d->meta.classes, 3);
	CU_ASSERT_PTR_NULL(d->class_names);
	CU_ASSERT_EQUAL(d->labels[4], 1.0f);
	hog_data_free(d);
	/* classes from 1 (covtype: 1..7), from -1 (connect-4), with a gap (satimage): named, in order */
	static const struct {
		const char *text, *names;
		float label0;
	} mc[] = {
		{ "3 1:1\n1 2:1\n2 3:1\n", "1\n2\n3\n", 2 },
		{ "0 1:1\n-1 2:1\n1 3:1\n", "-1\n0\n1\n", 1 },
		{ "7 1:1\n1 2:1\n2 3:1\n7 1:1\n", "1\n2\n7\n", 2 },
	};
	for (int k = 0; k < 3; k++) {
		import_text("lv_mcn", mc[k].text, 0, k == 1);
		d = load("lv_mcn");
		CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_MULTICLASS);
		CU_ASSERT_EQUAL(d->meta.classes, 3);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d->class_names);
		CU_ASSERT_STRING_EQUAL(d->class_names, mc[k].names);
		CU_ASSERT_EQUAL(d->labels[0], mc[k].label0);
		hog_data_free(d);
	}
	/* classes 0..K-1 with every one met: the numbers are the classes, as before */
	import_text("lv_0k", "2 1:1\n0 2:1\n1 3:1\n", 0, 0);
	d = load("lv_0k");
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_MULTICLASS);
	CU_ASSERT_EQUAL(d->meta.classes, 3);
	CU_ASSERT_PTR_NULL(d->class_names);
	hog_data_free(d);
	import_text("lv_01", "1 1:1\n0 2:1\n", 0, 0);
	d = load("lv_01");
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_PTR_NULL(d->class_names);
	hog_data_free(d);
	import_text("lv_frac", "1.5 1:1\n0.5 2:1\n", 0, 0);
	d = load("lv_frac");
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_REGRESSION);
	CU_ASSERT_PTR_NULL(d->class_names);
	hog_data_free(d);
}

/* @p name's labels after matching to @p ref whole, and a chunk of 2 at a time,
 * against @p want */
static void match_both_ways(const char *name, const hog_data_ref *ref, const float *want, uint64_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s.lmdb", name);
	hog_data *d = load(name);
	hog_data_fit fit;
	CU_ASSERT_EQUAL_FATAL(hog_data_reconcile(d, path, ref, "ref", &fit, &err), 0);
	CU_ASSERT_EQUAL(d->meta.task, ref->task);
	CU_ASSERT_EQUAL_FATAL(d->n, n);
	for (uint64_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(d->labels[i], want[i]);
	hog_data_free(d);
	hog_chunks *c = NULL;
	hog_data_match *x = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_chunks_open(&c, tu_path(path), 2, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_match_begin(&x, c, path, ref, "ref", &err), 0);
	uint64_t at = 0;
	while (hog_chunks_next(c, &d, &err) == 0 && d) {
		hog_data_match_chunk(x, d);
		for (uint64_t i = 0; i < d->n; i++, at++)
			CU_ASSERT_EQUAL(d->labels[i], want[at]);
	}
	CU_ASSERT_EQUAL(at, n);
	hog_data_match_end(x, NULL);
	hog_chunks_close(c);
}

static void test_named_numbers_match(void)
{
	import_text("lv_tr", pair12, 0, 0);
	hog_data *tr = load("lv_tr");
	hog_data_ref ref;
	hog_data_ref_of(tr, &ref);
	/* only 2s: a multiclass set of 3 classes by itself; only 1s: binary {0,1} */
	import_text("lv_2s", "2 1:1\n2 3:1\n2 2:1\n", 0, 0);
	import_text("lv_1s", "1 1:1\n1 3:1\n", 0, 0);
	const float pos[] = { 1, 1, 1 }, neg[] = { -1, -1 };
	match_both_ways("lv_2s", &ref, pos, 3);
	match_both_ways("lv_1s", &ref, neg, 2);
	/* a value the training set never had */
	import_text("lv_3s", "3 1:1\n", 0, 0);
	hog_data *d = load("lv_3s");
	hog_data_fit fit;
	CU_ASSERT_EQUAL(hog_data_reconcile(d, "lv_3s.lmdb", &ref, "lv_tr.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "lv_3s.lmdb has the class '3', which lv_tr.lmdb has not (lv_tr.lmdb "
	                                      "has '1', '2')"));
	hog_data_free(d);
	hog_data_ref_free(&ref);
	/* names that are numbers against a multiclass set of numbers: classes 1 and 3 of 0..3 */
	import_text("lv_mc4", "0 1:1\n1 2:1\n2 3:1\n3 4:1\n", 0, 0);
	import_text("lv_13", "3 1:1\n1 2:1\n3 3:1\n", 0, 0);
	hog_data *mc = load("lv_mc4"), *te = load("lv_13");
	CU_ASSERT_STRING_EQUAL(te->class_names, "1\n3\n");
	hog_data_free(te);
	hog_data_ref_of(mc, &ref);
	const float cls[] = { 3, 1, 3 };
	match_both_ways("lv_13", &ref, cls, 3);
	/* 0s and 1s, or only 1s, without names (read as binary) against it: classes 0 and 1 (a digits test
	 * file of its 0s and 1s was refused, "the model has 10 classes; the data set's labels are binary") */
	import_text("lv_01b", "1 1:1\n0 2:1\n1 3:1\n0 1:1\n", 0, 0);
	const float c01[] = { 1, 0, 1, 0 }, c11[] = { 1, 1 };
	match_both_ways("lv_01b", &ref, c01, 4);
	match_both_ways("lv_1s", &ref, c11, 2);
	hog_data *b01 = load("lv_01b");
	CU_ASSERT_EQUAL_FATAL(hog_data_reconcile(b01, "lv_01b.lmdb", &ref, "lv_mc4.lmdb", &fit, &err), 0);
	CU_ASSERT_EQUAL(b01->meta.classes, 2);
	hog_data_free(b01);
	/* -1 and +1 are no class numbers: binary still (the model's check refuses it) */
	import_text("lv_pm", "-1 1:1\n1 2:1\n", 0, 0);
	d = load("lv_pm");
	CU_ASSERT_EQUAL(hog_data_reconcile(d, "lv_pm.lmdb", &ref, "lv_mc4.lmdb", &fit, &err), 0);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_BINARY);
	hog_data_free(d);
	hog_data_ref_free(&ref);
	hog_data_free(mc);
	/* two values against a regression: the values again (3 and 5, not 0 and 1) */
	import_text("lv_rg", "3.5 1:1\n4.25 2:1\n5 1:1\n", 0, 0);
	import_text("lv_35", "5 1:1\n3 2:1\n5 3:1\n", 0, 0);
	hog_data *rg = load("lv_rg");
	CU_ASSERT_EQUAL(rg->meta.task, HOG_TASK_REGRESSION);
	hog_data_ref_of(rg, &ref);
	const float vals[] = { 5, 3, 5 };
	match_both_ways("lv_35", &ref, vals, 3);
	/* three values (classes) against a regression: refused, saying how to import them */
	import_text("lv_357", "5 1:1\n3 2:1\n7 3:1\n", 0, 0);
	d = load("lv_357");
	CU_ASSERT_EQUAL(hog_data_reconcile(d, "lv_357.lmdb", &ref, "lv_rg.lmdb", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "lv_357.lmdb's labels are whole numbers read as classes and "
	                                      "lv_rg.lmdb's are regression values: import lv_357.lmdb with --task "
	                                      "regression"));
	hog_data_free(d);
	hog_data_ref_free(&ref);
	hog_data_free(rg);
	hog_data_free(tr);
}

/* A binary training set of 0 and 1 (a Kaggle file's Survived): the model
 * keeps that its negatives were 0 -- saved, loaded, dumped and read back the
 * same bytes -- so that predict --labels writes 0, not -1; -1/+1 and named
 * classes keep none; a damaged section 7 is refused. */
static void test_negative_label_kept(void)
{
	static const struct {
		const char *name, *text;
		int neg_zero;
	} sets[] = {
		{ "nz01", "0 1:1\n1 2:1\n0 1:1 2:1\n1 2:2\n", 1 },
		{ "nzpm", "-1 1:1\n+1 2:1\n-1 1:1 2:1\n+1 2:2\n", 0 },
		{ "nz12", "1 1:1\n2 2:1\n1 1:1 2:1\n2 2:2\n", 0 }, /* (named '1' and '2': the names are written) */
	};
	for (int k = 0; k < 3; k++) {
		import_text(sets[k].name, sets[k].text, 0, 0);
		hog_data *d = load(sets[k].name);
		hog_model *m = hog_model_new(2, HOG_LOSS_LOGISTIC, HOG_RULE_SGD);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL_FATAL(hog_model_set_origin(m, d), 0);
		char path[64], dump[64], back[64];
		snprintf(path, sizeof path, "%s.model", sets[k].name);
		snprintf(dump, sizeof dump, "%s.txt", sets[k].name);
		snprintf(back, sizeof back, "%s-back.model", sets[k].name);
		CU_ASSERT_EQUAL_FATAL(hog_model_save(m, tu_path(path), &err), 0);
		hog_model_free(m);
		CU_ASSERT_EQUAL_FATAL(hog_model_load(&m, tu_path(path), &err), 0);
		hog_model_info info;
		hog_model_info_get(m, &info);
		CU_ASSERT_EQUAL(info.neg_zero, sets[k].neg_zero);
		hog_model_free(m);
		int fd = open(tu_path(dump), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_EQUAL(hog_model_dump(tu_path(path), fd, &err), 0);
		close(fd);
		CU_ASSERT_EQUAL(tu_sh("grep -qx 'negative_label 0' '%s'", tu_path(dump)), sets[k].neg_zero ? 0 : 1);
		CU_ASSERT_EQUAL(hog_model_undump(tu_path(dump), tu_path(back), &err), 0);
		CU_ASSERT_EQUAL(tu_sh("cmp -s '%s' '%s'", tu_path(path), tu_path(back)), 0);
		hog_data_free(d);
	}
	/* section 7 holding 2: damaged (its value at byte 16 of the section, 8 + 4 bytes before the end's CRC) */
	CU_ASSERT_EQUAL(tu_sh("cp '%s' '%s' && printf '\\002' | dd of='%s' bs=1 seek=$(($(stat -c %%s '%s') - 12)) "
	                      "conv=notrunc 2>/dev/null", tu_path("nz01.model"), tu_path("nzbad.model"),
	                      tu_path("nzbad.model"), tu_path("nzbad.model")), 0);
	hog_model *bad = NULL;
	const int rc = hog_model_load(&bad, tu_path("nzbad.model"), &err);
	CU_ASSERT_EQUAL(rc, HOG_ECORRUPT); /* (the CRC, or the section itself) */
	hog_model_free(bad);
}

int test_label_values_register(void)
{
	CU_pSuite s = CU_add_suite("label_values", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_named_numbers_import);
	TU_ADD(s, test_named_numbers_match);
	TU_ADD(s, test_negative_label_kept);
	return 0;
}
