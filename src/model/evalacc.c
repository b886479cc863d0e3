/* Evaluation figures accumulated example by example (hog_eval_acc), so that a
 * set evaluated chunk by chunk (eval --stream, a streamed run's test set) gets
 * the figures of the whole set evaluated at once, to the last bit: the sums
 * run over the examples in the same order either way, and AUC is counted from
 * every margin kept (4 bytes an example: the positives' and the negatives'
 * apart, sorted at the end; the Mann-Whitney count is exact in doubles, as the
 * rank sum it replaces). hog_model_eval() and the trainers' epoch figures go
 * through it too: one code for both. */
#include "model/model.h"
#include "model/linear.h"
#include "model/mlp.h"
#include "sys/err.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void hog_acc_init(hog_eval_acc *a, enum hog_loss loss, int binary)
{
	memset(a, 0, sizeof *a);
	a->loss = loss;
	a->binary = binary;
}

static void keep(hog_eval_acc *a, float m, int positive)
{
	float **v = positive ? &a->pos : &a->neg;
	uint64_t *n = positive ? &a->npos : &a->nneg, *cap = positive ? &a->cpos : &a->cneg;
	if (a->auc_oom)
		return;
	if (*n == *cap) {
		uint64_t c = *cap ? 2 * *cap : 4096;
		float *p = c < SIZE_MAX / sizeof *p ? realloc(*v, c * sizeof *p) : NULL;
		if (!p) {
			a->auc_oom = 1;
			return;
		}
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = m;
}

void hog_acc_margins(hog_eval_acc *a, const float *margins, const float *labels, uint64_t n)
{
	a->mode = HOG_ACC_MARGINS;
	for (uint64_t i = 0; i < n; i++) {
		float m = margins[i], y = labels[i];
		a->sl += hog_loss_value(a->loss, m, y);
		if (a->binary) {
			a->sll += hog_loss_value(HOG_LOSS_LOGISTIC, m, y);
			a->right += (m > 0) == (y > 0);
			keep(a, m, y > 0);
		} else {
			a->sse += (double)(m - y) * (m - y);
			a->sae += fabs((double)m - y);
		}
	}
	a->n += n;
}

void hog_acc_ratings(hog_eval_acc *a, const float *pred, const float *ratings, uint64_t n)
{
	a->mode = HOG_ACC_RATINGS;
	for (uint64_t j = 0; j < n; j++) {
		double e = (double)pred[j] - ratings[j];
		a->sse += e * e;
		a->sae += fabs(e);
	}
	a->n += n;
}

void hog_acc_probs(hog_eval_acc *a, const float *prob, uint64_t outputs, const hog_data *d)
{
	if (d->meta.task == HOG_TASK_BINARY) {
		/* back to margins (the logit, or z1 - z0 of two softmax outputs: the same
		 * ranking) so that binary figures are the linear model's, AUC included */
		float mg[256];
		a->loss = HOG_LOSS_LOGISTIC;
		a->binary = 1;
		for (uint64_t i0 = 0; i0 < d->n; i0 += 256) {
			uint64_t k = d->n - i0 < 256 ? d->n - i0 : 256;
			for (uint64_t i = 0; i < k; i++) {
				double p = outputs == 1 ? prob[i0 + i] : prob[(i0 + i) * 2 + 1];
				p = p < 1e-30 ? 1e-30 : p > 1 - 1e-7 ? 1 - 1e-7 : p;
				mg[i] = (float)log(p / (1 - p));
			}
			hog_acc_margins(a, mg, d->labels + i0, k);
		}
		return;
	}
	a->mode = HOG_ACC_CLASSES;
	a->classes = (uint32_t)outputs;
	for (uint64_t i = 0; i < d->n; i++) {
		const float *p = prob + i * outputs;
		int y = hog_mlp_class(d, i);
		uint64_t best = 0;
		for (uint64_t j = 1; j < outputs; j++)
			best = p[j] > p[best] ? j : best;
		a->right += (int)best == y;
		double py = (uint64_t)y < outputs ? p[y] : 0;
		a->sll -= log(py > 1e-30 ? py : 1e-30);
	}
	a->n += d->n;
}

static int cmp_float(const void *x, const void *y)
{
	float a = *(const float *)x, b = *(const float *)y;
	return a < b ? -1 : a > b;
}

/* A float's bits as an unsigned key in the floats' order (negatives' bits
 * reversed, positives' sign bit set): -0 just below +0, which compare equal
 * and so count alike below. */
static uint32_t fkey(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u & 0x80000000u ? ~u : u | 0x80000000u;
}

/* Sorts @p v (n floats; a NaN, which no order holds, sorts to an end) ascending: an LSD radix sort of three passes
 * of 11 bits, O(n) where qsort's comparisons were a trainer's every epoch's
 * largest serial step after its test margins (0.1 s a million test examples).
 * The count below reads only the values' order, so its result is qsort's.
 * Small sets, or no memory for the second buffer: qsort. */
static void sort_floats(float *v, uint64_t n)
{
	float *t = n >= 2048 ? malloc(n * sizeof *t) : NULL;
	if (!t) {
		qsort(v, n, sizeof *v, cmp_float);
		return;
	}
	float *src = v, *dst = t;
	for (int pass = 0; pass < 3; pass++) {
		const int sh = 11 * pass;
		uint64_t cnt[2048] = { 0 };
		for (uint64_t i = 0; i < n; i++)
			cnt[fkey(src[i]) >> sh & 2047u]++;
		uint64_t at = 0;
		for (int b = 0; b < 2048; b++) {
			uint64_t c = cnt[b];
			cnt[b] = at;
			at += c;
		}
		for (uint64_t i = 0; i < n; i++)
			dst[cnt[fkey(src[i]) >> sh & 2047u]++] = src[i];
		float *x = src;
		src = dst;
		dst = x;
	}
	if (src != v) /* (three passes: the result is in t) */
		memcpy(v, src, n * sizeof *v);
	free(t);
}

/* ROC AUC: the Mann-Whitney count of (positive, negative) pairs ranked right,
 * ties a half: the rank-sum statistic, each term exact in a double. */
static double auc(hog_eval_acc *a)
{
	if (a->auc_oom || !a->npos || !a->nneg)
		return NAN;
	sort_floats(a->pos, a->npos);
	sort_floats(a->neg, a->nneg);
	double u = 0;
	uint64_t lo = 0, hi = 0; /* negatives below, and up to, the positive */
	for (uint64_t i = 0; i < a->npos; i++) {
		float p = a->pos[i];
		while (lo < a->nneg && a->neg[lo] < p)
			lo++;
		if (hi < lo)
			hi = lo;
		while (hi < a->nneg && a->neg[hi] == p)
			hi++;
		u += (double)lo + (double)(hi - lo) / 2;
	}
	return u / ((double)a->npos * (double)a->nneg);
}

void hog_acc_finish(hog_eval_acc *a, hog_eval *ev)
{
	uint64_t n = a->n;
	memset(ev, 0, sizeof *ev);
	ev->examples = n;
	ev->loss = ev->logloss = ev->accuracy = ev->auc = ev->rmse = ev->mae = NAN;
	switch (a->mode) {
	case HOG_ACC_MARGINS:
		ev->loss = n ? a->sl / n : NAN;
		ev->logloss = a->binary && n ? a->sll / n : NAN;
		ev->accuracy = a->binary && n ? (double)a->right / n : NAN;
		ev->auc = a->binary ? auc(a) : NAN;
		ev->rmse = !a->binary && n ? sqrt(a->sse / n) : NAN;
		ev->mae = !a->binary && n ? a->sae / n : NAN;
		break;
	case HOG_ACC_RATINGS:
		ev->loss = n ? 0.5 * a->sse / n : NAN;
		ev->rmse = n ? sqrt(a->sse / n) : NAN;
		ev->mae = n ? a->sae / n : NAN;
		break;
	case HOG_ACC_CLASSES:
		ev->classes = a->classes;
		ev->loss = ev->logloss = n ? a->sll / n : NAN;
		ev->accuracy = n ? (double)a->right / n : NAN;
		break;
	}
	free(a->pos);
	free(a->neg);
	a->pos = a->neg = NULL;
}

int hog_model_eval_margins(enum hog_loss loss, const float *margins, const float *labels, uint64_t n,
                           int binary, hog_eval *ev)
{
	hog_eval_acc a;
	hog_acc_init(&a, loss, binary);
	hog_acc_margins(&a, margins, labels, n);
	hog_acc_finish(&a, ev);
	return 0;
}

/* ------------------------------------------------------------ a model, chunk by chunk */

int hog_model_eval_begin(const hog_model *m, const hog_data *head, int confusion, hog_eval_acc **out,
                         hog_err *err)
{
	*out = NULL;
	const hog_model_kind_ops *k = hog_model_kind_get(m->kind);
	if (head->meta.unlabelled)
		return hog_err_set(err, HOG_EMISMATCH, "the data set has no labels (imported without them): there is "
		                   "nothing to evaluate against; predictions need none");
	int rc = k->fits(m, head, err);
	if (rc)
		return rc;
	hog_model_info info;
	hog_model_info_get(m, &info);
	if (confusion && info.classes < 2)
		return hog_err_set(err, HOG_ENOTSUP, "the %s model has no class probabilities (it is not multiclass)",
		                   hog_model_kind_name(m->kind));
	hog_eval_acc *a = calloc(1, sizeof *a);
	if (!a || (confusion && !(a->cm = calloc((size_t)info.classes * info.classes, sizeof *a->cm)))) {
		free(a);
		return hog_err_set(err, ENOMEM, "out of memory");
	}
	uint64_t *cm = a->cm;
	hog_acc_init(a, m->loss, head->meta.task == HOG_TASK_BINARY);
	a->cm = cm;
	a->C = confusion ? info.classes : 0;
	a->m = m;
	*out = a;
	return 0;
}

int hog_model_eval_add(hog_eval_acc *a, const hog_data *d, hog_err *err)
{
	const hog_model_kind_ops *k = hog_model_kind_get(a->m->kind);
	int rc = k->fits(a->m, d, err);
	if (rc)
		return rc;
	if (d->n + 1 > a->cap) {
		float *p = realloc(a->pred, (d->n + 1) * sizeof *p);
		if (!p)
			return hog_err_set(err, ENOMEM, "out of memory");
		a->pred = p;
		a->cap = d->n + 1;
	}
	k->predict(a->m, d, a->pred);
	k->eval(a->m, d, a->pred, a);
	if (a->cm) /* hog_model_confusion()'s count */
		for (uint64_t i = 0; i < d->n; i++) {
			uint32_t t = d->meta.task == HOG_TASK_BINARY ? d->labels[i] > 0 : (uint32_t)d->labels[i];
			uint32_t p = a->pred[i] >= 0 && a->pred[i] < a->C ? (uint32_t)a->pred[i] : 0;
			if (t < a->C)
				a->cm[(size_t)t * a->C + p]++;
		}
	return a->oom ? hog_err_set(err, ENOMEM, "out of memory") : 0;
}

void hog_model_eval_end(hog_eval_acc *a, hog_eval *ev, uint64_t *confusion)
{
	if (!a)
		return;
	if (ev)
		hog_acc_finish(a, ev);
	if (confusion && a->cm)
		memcpy(confusion, a->cm, (size_t)a->C * a->C * sizeof *a->cm);
	free(a->pos);
	free(a->neg);
	free(a->pred);
	free(a->cm);
	free(a);
}
