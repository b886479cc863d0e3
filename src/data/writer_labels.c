/* The writer's labels (writer_impl.h): the set's task from their statistics,
 * whole-number labels that are not the classes 0..K-1 named by their values
 * (the written blocks relabelled), and the note of classes that look counted. */
#include "data/block.h"
#include "data/writer_impl.h"
#include "sys/err.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whole-number labels are classes, unless there are so many of them for so
 * few examples that they read as measured values (a disease score of 25..346
 * over 442 patients): beyond 100 classes, at least 20 examples a class. */
static int reads_as_classes(const hog_writer *w)
{
	return w->lmax < 1000 && (w->lmax < 100 || (double)w->examples >= 20.0 * (w->lmax + 1));
}

/* Labels that are whole numbers but not the classes 0..K-1 as they are:
 * two values other than {0, 1} and {-1, 1} (LIBSVM's covtype.binary,
 * mushrooms and skin_nonskin are 1 and 2, breast-cancer 2 and 4), or classes
 * numbered from 1 (covtype, news20, SVHN), with gaps (satimage: 1..5 and 7) or
 * from -1 (connect-4: -1, 0, 1). They were 3 or 5 classes of which two had
 * examples (and with --task binary every example a positive: labels > 0),
 * classes that never occur, or (a -1 among them) regression values. Now the
 * values, in increasing order, are the classes, named by the numbers as text
 * labels are: binary for two (the smaller the negative class; with --task
 * binary too), else multiclass where the labels read as classes (below,
 * reads_as_classes). --task multiclass, or a class count given, keeps the
 * numbers as the classes. @return the task, or 0 where the labels stay. */
enum hog_task named_task(const hog_writer *w)
{
	if (w->o.kind == HOG_KIND_RATINGS || w->o.unlabelled || !w->seen || !w->all_int || w->nvals < 2 ||
	    w->all_pm1 || w->all_01 || w->o.classes || w_meta_has(w, "class_names"))
		return 0;
	if (w->nvals == 2 && (!w->o.task || w->o.task == HOG_TASK_BINARY))
		return HOG_TASK_BINARY;
	if (w->o.task || (w->lmin == 0 && w->lmax == w->nvals - 1))
		return 0;
	return reads_as_classes(w) ? HOG_TASK_MULTICLASS : 0;
}

/* The blocks written hold named_task()'s labels as read: each block's labels
 * (the f32 array after the header, in raw and packed blocks alike) become the
 * classes' numbers 0..K-1 and the block is sealed again; the values become the
 * class names, and the label statistics the classes'. */
int relabel_named(hog_writer *w, hog_err *err)
{
	unsigned char *buf = NULL;
	size_t cap = 0, nlen = 0;
	int rc = 0;
	int32_t *cls = malloc(65537 * sizeof *cls);
	char *names = malloc((size_t)w->nvals * 7 + 1);
	if (!cls || !names) {
		free(cls);
		free(names);
		return w_oom(w, err);
	}
	for (uint32_t b = 0, k = 0; b < 65537; b++)
		if (w->seen[b]) {
			cls[b] = (int32_t)k++;
			nlen += (size_t)sprintf(names + nlen, "%ld\n", (long)b - 1);
		}
	double lsum = 0;
	uint64_t pos = 0;
	for (uint64_t i = 0; i < w->blocks && !rc; i++) {
		unsigned char kb[8];
		hog_block_key(i, kb);
		MDB_val k = { 8, kb }, v;
		if ((rc = mdb_get(w->txn, w->blocks_dbi, &k, &v))) {
			rc = w_lmdb(w, err, rc, "reading a block back");
			break;
		}
		const size_t len = v.mv_size;
		uint32_t n;
		if (len > cap) {
			unsigned char *nb = realloc(buf, len);
			if (!nb) {
				rc = w_oom(w, err);
				break;
			}
			buf = nb;
			cap = len;
		}
		memcpy(buf, v.mv_data, len);
		if (hog_block_peek(buf, len, &n, NULL, NULL, NULL)) {
			rc = hog_err_set(err, HOG_ECORRUPT, "%s: block %llu read back damaged", w->path, (unsigned long long)i);
			break;
		}
		for (uint64_t j = 0; j < n && HOG_BLOCK_HEADER + 4 * (j + 1) <= len; j++) {
			float y;
			memcpy(&y, buf + HOG_BLOCK_HEADER + 4 * j, 4);
			y = (float)cls[(int32_t)y + 1];
			lsum += y;
			pos += y > 0;
			memcpy(buf + HOG_BLOCK_HEADER + 4 * j, &y, 4);
		}
		hog_block_seal(buf, len);
		if ((rc = w_room(w, len, err)))
			break;
		MDB_val nv = { len, NULL };
		if ((rc = mdb_put(w->txn, w->blocks_dbi, &k, &nv, MDB_RESERVE))) {
			rc = w_lmdb(w, err, rc, "writing a block");
			break;
		}
		memcpy(nv.mv_data, buf, len);
		rc = w_wrote(w, len, err);
	}
	free(buf);
	free(cls);
	if (!rc) {
		w->positives = pos;
		w->lmin = 0;
		w->lmax = w->nvals - 1;
		w->lsum = lsum;
		rc = w_meta_add(w, "class_names", names, nlen, err);
	}
	free(names);
	return rc;
}

/* The set's task; @p named is named_task()'s. */
enum hog_task decide_task(const hog_writer *w, enum hog_task named)
{
	if (w->o.kind == HOG_KIND_RATINGS)
		return HOG_TASK_RATINGS;
	if (w->o.task)
		return w->o.task;
	if (w->all_pm1 || w->all_01)
		return HOG_TASK_BINARY;
	if (named)
		return named;
	return w->all_small_int && reads_as_classes(w) ? HOG_TASK_MULTICLASS : HOG_TASK_REGRESSION;
}

int hog_writer_counted(const hog_writer *w, char *msg, size_t size)
{
	if (w->o.task || w->o.classes || !w->seen || !w->all_int || w->nvals < 10 || w->examples < 100 ||
	    w_meta_has(w, "class_names") || decide_task(w, named_task(w)) != HOG_TASK_MULTICLASS)
		return 0; /* (classes of text names, or a task given: nothing to say) */
	uint32_t lo = UINT32_MAX;
	for (uint32_t b = 0; b < 65537; b++)
		if (w->seen[b] && (lo == UINT32_MAX || w->seen[b] < w->seen[lo]))
			lo = b;
	if (w->seen[lo] > 2)
		return 0;
	char cls[32];
	snprintf(cls, sizeof cls, named_task(w) ? "'%ld'" : "%ld", (long)lo - 1);
	snprintf(msg, size, "note: the labels are %u whole numbers, class %s met %llu time%s: a quantity counted (a "
	         "regression)? --task regression reads them as numbers", w->nvals, cls, (unsigned long long)w->seen[lo],
	         w->seen[lo] == 1 ? "" : "s");
	return 1;
}

