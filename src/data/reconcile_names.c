/* A test set's class names and categories against its reference's
 * (reconcile.c's names part, reconcile.h): each importer numbers names as its
 * own file meets them, so two files' numbers need not agree; the names do.
 * Class names that are numbers (writer.c, named_task) also match a side
 * without names, by value. */
#include "data/classes.h"
#include "data/reconcile.h"
#include "sys/err.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cls_name {
	const char *p;
	size_t n;
	uint32_t k;
} cls_name;

static int cls_cmp(const void *x, const void *y)
{
	const cls_name *a = x, *b = y;
	const int c = memcmp(a->p, b->p, a->n < b->n ? a->n : b->n);
	return c ? c : (a->n > b->n) - (a->n < b->n);
}

/* For each of the names @p a (classes.c's form), the number of the same name
 * among @p b, or UINT32_MAX; NULL when out of memory. */
static uint32_t *names_map(const char *a, const char *b)
{
	const uint32_t na = hog_class_count(a), nb = hog_class_count(b);
	cls_name *sorted = malloc((nb + 1) * sizeof *sorted);
	uint32_t *map = malloc((na + 1) * sizeof *map);
	if (!sorted || !map) {
		free(sorted);
		free(map);
		return NULL;
	}
	const char *p = b;
	for (uint32_t k = 0; k < nb; k++) { /* (one pass: hog_class_name from the start each time is quadratic) */
		const char *e = strchr(p, '\n');
		sorted[k] = (cls_name){ p, (size_t)(e - p), k };
		p = e + 1;
	}
	qsort(sorted, nb, sizeof *sorted, cls_cmp);
	p = a;
	for (uint32_t k = 0; k < na; k++) {
		const char *e = strchr(p, '\n');
		const cls_name key = { p, (size_t)(e - p), k };
		const cls_name *hit = bsearch(&key, sorted, nb, sizeof *sorted, cls_cmp);
		map[k] = hit ? hit->k : UINT32_MAX;
		p = e + 1;
	}
	free(sorted);
	return map;
}

/* The names of @p k classes numbered from @p lo: a binary set's labels (its
 * lowest value, -1 or 0, and 1) or a multiclass set's (0 .. k-1). */
static char *number_names(long lo, long k)
{
	char *s = malloc((size_t)k * 8 + 1), *p = s;
	for (long v = 0; s && v < k; v++)
		p += sprintf(p, "%ld\n", v ? v : lo);
	if (s)
		*p = 0;
	return s;
}

/* A class of a set without names (named by number_names) that has no example:
 * out of its label range, or (where its labels are loaded) met by none. */
static int class_unused(const hog_data *d, uint32_t k)
{
	const double v = d->meta.task == HOG_TASK_BINARY ? (k ? 1.0 : d->meta.label_min < 0 ? -1.0 : 0.0) : k;
	if (v < d->meta.label_min || v > d->meta.label_max)
		return 1;
	if (!d->labels)
		return 0;
	for (uint64_t i = 0; i < d->n; i++)
		if ((d->meta.task == HOG_TASK_BINARY ? (uint32_t)(d->labels[i] > 0) : (uint32_t)d->labels[i]) == k)
			return 0;
	return 1;
}

/* Classes numbered 0..K-1 without names (a multiclass reference), and a set
 * without names whose labels are one or two of those numbers, which the
 * importer read as binary (a test file of digits' 0s and 1s, or only the 1s;
 * two other numbers are named, and matched by name below): the set becomes
 * multiclass, its classes the numbers. A loaded set's labels, decoded as -1
 * and +1, are put back; a header's blocks hold the numbers, which its chunks
 * then decode as classes. Labels of -1 and +1 stay binary (the model's check
 * refuses them). */
static void binary_as_classes(hog_data *d, const hog_data_ref *ref)
{
	const double lo = d->meta.label_min, hi = d->meta.label_max;
	if (ref->task != HOG_TASK_MULTICLASS || d->meta.task != HOG_TASK_BINARY || !(lo >= 0) || !(hi < 65536) ||
	    lo != floor(lo) || hi != floor(hi))
		return;
	for (uint64_t i = 0; d->labels && i < d->n; i++)
		d->labels[i] = (float)(d->labels[i] > 0 ? hi : lo);
	d->meta.task = HOG_TASK_MULTICLASS;
	d->meta.classes = (uint32_t)hi + 1;
}

/* A set whose labels were names against its reference's names: *out[k] the
 * reference's class of the set's class k (each importer numbers the names in
 * its own file's order of first appearance, so the numbers of two files need
 * not agree: the names do), and the set's task and class count become the
 * reference's. *out NULL where neither has names (or the set no labels). A
 * name the reference lacks, or names on one side only, is refused. */
int rec_class_map(hog_data *d, const char *dn, const hog_data_ref *ref, const char *rn, uint32_t **out,
                  hog_err *err)
{
	*out = NULL;
	const char *a = d->class_names, *b = ref->class_names;
	if (!d->meta.unlabelled && !a && !b)
		binary_as_classes(d, ref);
	/* (ratings against classes: no labels to match, the kinds differ, which
	 * the model's check or reconcile_head says; "class names against
	 * numbers" sent a new user to import the files alike) */
	if (d->meta.unlabelled || (!a && !b) || !ref->task || d->meta.kind == HOG_KIND_RATINGS ||
	    ref->task == HOG_TASK_RATINGS)
		return 0;
	/* numbers on one side, names that are numbers on the other (1 and 2, or
	 * 1..7, named; a test file holding only some of them): the numbers'
	 * classes named as the importer would, or against regression values, two
	 * values put back (as {0,1} read as binary are: reconcile_head) */
	long top = -1;
	float two[2];
	int rc;
	const enum hog_task plain = a ? ref->task : d->meta.task; /* (the side without names) */
	const uint32_t numbered = a && b ? 0 : hog_class_numbers(a ? a : b, NULL, &top);
	char *own = NULL;
	if (numbered && plain == HOG_TASK_REGRESSION) {
		if (!a || d->meta.task != HOG_TASK_BINARY || numbered != 2)
			return hog_err_set(err, HOG_EMISMATCH, "%s's labels are whole numbers read as classes and %s's are "
			                   "regression values: import %s with --task regression to match them", a ? dn : rn,
			                   a ? rn : dn, a ? dn : rn);
		hog_class_numbers(a, two, NULL);
		d->meta.label_min = two[0];
		d->meta.label_max = two[1];
		free(d->class_names);
		d->class_names = NULL;
		return 0;
	}
	if (numbered && (plain == HOG_TASK_BINARY || plain == HOG_TASK_MULTICLASS)) {
		if (!a)
			a = own = d->meta.task == HOG_TASK_BINARY ? number_names(d->meta.label_min < 0 ? -1 : 0, 2)
			                                          : number_names(0, d->meta.classes);
		else
			b = own = ref->task == HOG_TASK_BINARY ? number_names(0, 2) : number_names(0, top + 1);
		if (!own)
			return hog_err_set(err, ENOMEM, "out of memory matching the class names");
	}
	if (!a || !b)
		return hog_err_set(err, HOG_EMISMATCH, "%s's labels are class names and %s's are numbers: their classes "
		                   "cannot be matched (import both from files that give the labels the same way)",
		                   a ? dn : rn, a ? rn : dn);
	const uint32_t na = hog_class_count(a), nb = hog_class_count(b);
	uint32_t *map = names_map(a, b);
	if (!map) {
		free(own);
		return hog_err_set(err, ENOMEM, "out of memory matching the class names");
	}
	for (uint32_t k = 0; k < na; k++) {
		if (map[k] != UINT32_MAX)
			continue;
		if (own && a == own && class_unused(d, k)) {
			map[k] = 0; /* (no label reads it) */
			continue;
		}
		size_t n;
		const char *name = hog_class_name(a, k, &n);
		char list[200];
		int at = 0;
		for (uint32_t j = 0; j < nb && at < (int)sizeof list - 50; j++) {
			size_t m;
			const char *other = hog_class_name(b, j, &m);
			at += snprintf(list + at, sizeof list - (size_t)at, "%s'%.*s'", j ? ", " : "", (int)(m > 40 ? 40 : m),
			               other);
		}
		free(map);
		const char *dot = ""; /* (adult.test's labels end with a '.' that adult.data's have not) */
		for (uint32_t j = 0; j < nb && n > 1; j++) {
			size_t m;
			const char *other = hog_class_name(b, j, &m);
			if ((m + 1 == n && name[m] == '.' && !memcmp(name, other, m)) ||
			    (n + 1 == m && other[n] == '.' && !memcmp(name, other, n)))
				dot = "; the same names but for a final '.': remove it from one file's labels and import it again";
		}
		rc = hog_err_set(err, HOG_EMISMATCH, "%s has the class '%.*s', which %s has not (%s has %s%s%s)", dn,
		                 (int)(n > 60 ? 60 : n), name, rn, rn, list, at >= (int)sizeof list - 50 ? ", ..." : "", dot);
		free(own);
		return rc;
	}
	if (own && a == own) { /* the set's classes keep the reference's names: the match is made again alike */
		/* A multiclass set against binary classes holds one value v (two would
		 * have been named, three are not all the reference's): its labels, read
		 * as the reference's task a chunk at a time, are v > 0; read whole, v */
		if (d->meta.task == HOG_TASK_MULTICLASS && ref->task == HOG_TASK_BINARY &&
		    d->meta.label_min == d->meta.label_max && d->meta.label_min >= 0 && d->meta.label_min < na)
			map[d->meta.label_min > 0] = map[(uint32_t)d->meta.label_min];
		size_t len = 1, n;
		for (uint32_t k = 0; k < na; k++)
			len += (hog_class_name(b, map[k], &n), n + 1);
		char *kept = malloc(len), *p = kept;
		for (uint32_t k = 0; kept && k < na; k++) {
			const char *name = hog_class_name(b, map[k], &n);
			memcpy(p, name, n);
			p[n] = '\n';
			p += n + 1;
		}
		if (!kept) {
			free(map);
			free(own);
			return hog_err_set(err, ENOMEM, "out of memory matching the class names");
		}
		*p = 0;
		d->class_names = kept;
	}
	free(own);
	d->meta.task = ref->task;
	d->meta.classes = ref->task == HOG_TASK_MULTICLASS ? nb : 0;
	*out = map;
	return 0;
}

/* Columns of text (import_csv.c's categories): *out[k] the reference's
 * feature of the set's feature category_from + k, by name (each importer
 * numbers the values as its file first meets them), UINT32_MAX for a value the
 * reference never met (the feature is dropped: it has no weight); the set's
 * dimension becomes the reference's. *out NULL where the set has none. Text
 * where the reference has numbers, or columns that start elsewhere, is
 * refused; so is a set of the same CSV header without categories where the
 * reference has them (its columns of text hold numbers, or nothing, there). */
int rec_cat_map(hog_data *d, const char *dn, const hog_data_ref *ref, const char *rn, uint32_t **out,
                hog_err *err)
{
	*out = NULL;
	if (!d->categories && ref->categories && d->columns && ref->columns) { /* (the same header: columns_differ) */
		size_t n;
		const char *first = hog_class_name(ref->categories, 0, &n);
		return hog_err_set(err, HOG_EMISMATCH, "%s has columns of text (read as categories: '%.*s', ...) where %s "
		                   "has numbers or no values", rn, (int)(n > 60 ? 60 : n), first, dn);
	}
	if (!d->categories)
		return 0;
	if (!ref->categories || ref->category_from != d->category_from) {
		size_t n;
		const char *first = hog_class_name(d->categories, 0, &n);
		return hog_err_set(err, HOG_EMISMATCH, "%s has columns of text (read as categories: '%.*s', ...) where %s "
		                   "has %s", dn, (int)(n > 60 ? 60 : n), first, rn,
		                   ref->categories ? "other columns (its categories' features start elsewhere)" : "numbers");
	}
	uint32_t *map = names_map(d->categories, ref->categories);
	if (!map)
		return hog_err_set(err, ENOMEM, "out of memory matching the categories");
	const uint64_t dim = ref->category_from + hog_class_count(ref->categories);
	d->dim = d->meta.features = dim;
	*out = map;
	return 0;
}

/* @p d's features in the reference's numbers (cat_map's @p map from feature
 * @p from on), the dropped ones counted into @p fit; rows keep their ids
 * ascending. */
void rec_cat_recode(hog_data *d, const uint32_t *map, uint64_t from, hog_data_fit *fit, unsigned char *seen)
{
	uint64_t out = d->n ? d->offsets[0] : 0;
	for (uint64_t i = 0; i < d->n; i++) {
		const uint64_t lo = d->offsets[i], hi = d->offsets[i + 1], at = out;
		for (uint64_t j = lo; j < hi; j++) {
			uint32_t id = d->ids[j];
			if (id >= from) {
				const uint32_t to = map[id - from];
				if (to == UINT32_MAX) {
					fit->extra_nnz++;
					if (!seen[id - from]) {
						seen[id - from] = 1;
						fit->extra_features++;
					}
					continue;
				}
				id = (uint32_t)from + to;
			}
			const float v = d->vals ? d->vals[j] : 1.0f; /* (read before the moves below: k may reach j) */
			uint64_t k = out++; /* (insertion: only the categories, a few a row, move) */
			for (; k > at && d->ids[k - 1] > id; k--) {
				d->ids[k] = d->ids[k - 1];
				if (d->vals)
					d->vals[k] = d->vals[k - 1];
			}
			d->ids[k] = id;
			if (d->vals)
				d->vals[k] = v;
		}
		d->offsets[i] = at;
	}
	d->offsets[d->n] = out;
	d->nnz = d->meta.nnz = out;
	fit->recoded = 1;
}

/* The labels of @p d (n of them) in the reference's classes: a label is the
 * set's class (-1/+1 or 0/1 of a binary one: 0 and 1), the map its reference
 * class, written as the reference's task has it (binary -1/+1). */
void rec_class_relabel(float *labels, uint64_t n, const uint32_t *map, enum hog_task task)
{
	for (uint64_t i = 0; i < n; i++) {
		const uint32_t k = map[labels[i] > 0 ? (uint32_t)labels[i] : 0];
		labels[i] = task == HOG_TASK_BINARY ? (k ? 1.0f : -1.0f) : (float)k;
	}
}

int hog_data_reconcile_names(hog_data *d, const char *dn, const hog_data_ref *ref, const char *rn, hog_err *err)
{
	uint32_t *map = NULL, *fmap = NULL;
	int rc = rec_columns(d, dn, ref, rn, err);
	if (!rc)
		rc = rec_class_map(d, dn, ref, rn, &map, err);
	free(map);
	if (!rc)
		rc = rec_cat_map(d, dn, ref, rn, &fmap, err);
	free(fmap);
	return rc;
}

