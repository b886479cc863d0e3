/* The linear kind: prediction (margins w.x + b), evaluation (logistic loss,
 * accuracy, ROC AUC, RMSE, MAE) and its table for model.c. The file format is
 * model.c's. */
#include "model/linear.h"
#include "sys/names.h"
#include "sys/err.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_MAGIC "HOGMODEL"
#define MODEL_VERSION 1
#define MODEL_HEADER 128

hog_model *hog_model_new(uint64_t dim, enum hog_loss loss, enum hog_rule rule)
{
	const uint64_t shape[4] = { dim, 0, 0, 0 };
	return hog_model_alloc(HOG_MODEL_LINEAR, loss, rule, shape, 0);
}

static uint64_t linear_nparams(const hog_model *m)
{
	if (m->dim >= UINT32_MAX || m->shape[1] || m->shape[2] || m->shape[3] || m->flags ||
	    m->rule > HOG_RULE_ADAREVISION)
		return 0;
	return (m->dim + 1) * m->stride;
}

static void linear_info(const hog_model *m, hog_model_info *info)
{
	hog_model *mm = (hog_model *)m; /* the weight copy is a cache */
	if (!mm->weights && (mm->weights = malloc((m->dim + 1) * sizeof(float))))
		for (uint64_t i = 0; i < m->dim; i++)
			mm->weights[i] = m->params[i * m->stride];
	info->dim = m->dim;
	info->bias = m->params[m->dim * m->stride];
	info->weights = mm->weights;
}

static float margin(const hog_model *m, const hog_data *d, uint64_t i)
{
	const uint32_t S = m->stride;
	float s = m->params[m->dim * S];
	for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++) {
		uint32_t v = d->ids[j];
		if (v < m->dim)
			s += m->params[(uint64_t)v * S] * (d->vals ? d->vals[j] : 1.0f);
	}
	return s;
}

/* A linear model takes sparse sets of its task of any dimension (ids map one to
 * one; features the model lacks weigh nothing); a set of another kind or task
 * is refused. */
static int linear_fits(const hog_model *m, const hog_data *d, hog_err *err)
{
	if (d->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_EMISMATCH, "a linear model needs a sparse data set, not %s",
		                   hog_kind_name(d->meta.kind));
	if (d->meta.task == HOG_TASK_MULTICLASS)
		return hog_err_set(err, HOG_EMISMATCH, "the linear model takes binary or regression labels, "
		                   "not multiclass (%u classes)", d->meta.classes);
	if ((m->loss == HOG_LOSS_LOGISTIC || m->loss == HOG_LOSS_HINGE) && d->meta.task != HOG_TASK_BINARY)
		return hog_err_set(err, HOG_EMISMATCH, "a %s model needs binary labels; this data set's task is %s",
		                   hog_loss_name(m->loss), hog_task_name(d->meta.task));
	/* features beyond the model's dimension score as zero weight (margin()),
	 * as liblinear does; hog_model_prepare() counts them */
	return 0;
}

static void linear_predict(const hog_model *m, const hog_data *d, float *out)
{
	/* one thread: fast enough for evaluation, and OpenMP's own synchronization is
	 * invisible to ThreadSanitizer (the trainer's team evaluates in parallel) */
	for (uint64_t i = 0; i < d->n; i++)
		out[i] = margin(m, d, i);
}

static int cmp_pair(const void *a, const void *b)
{
	const float *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* ROC AUC by ranking (ties get the mean rank): the Mann-Whitney statistic. */
static double auc_of(const float *margins, const float *labels, uint64_t n)
{
	float *pairs = malloc(n * 2 * sizeof(float));
	if (!pairs)
		return NAN;
	for (uint64_t i = 0; i < n; i++) {
		pairs[2 * i] = margins[i];
		pairs[2 * i + 1] = labels[i];
	}
	qsort(pairs, n, 2 * sizeof(float), cmp_pair);
	double rank_sum = 0, pos = 0;
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i;
		while (j < n && pairs[2 * j] == pairs[2 * i])
			j++;
		double mean_rank = (i + 1 + j) / 2.0; /* ranks i+1..j */
		for (uint64_t k = i; k < j; k++)
			if (pairs[2 * k + 1] > 0) {
				rank_sum += mean_rank;
				pos++;
			}
		i = j;
	}
	free(pairs);
	double neg = (double)n - pos;
	if (pos == 0 || neg == 0)
		return NAN;
	return (rank_sum - pos * (pos + 1) / 2) / (pos * neg);
}

int hog_model_eval_margins(enum hog_loss loss, const float *margins, const float *labels, uint64_t n,
                           int binary, hog_eval *ev)
{
	double sl = 0, sll = 0, sse = 0, sae = 0;
	uint64_t right = 0;
	for (uint64_t i = 0; i < n; i++) {
		float m = margins[i], y = labels[i];
		sl += hog_loss_value(loss, m, y);
		if (binary) {
			sll += hog_loss_value(HOG_LOSS_LOGISTIC, m, y);
			right += (m > 0) == (y > 0);
		} else {
			sse += (double)(m - y) * (m - y);
			sae += fabs((double)m - y);
		}
	}
	memset(ev, 0, sizeof *ev);
	ev->examples = n;
	ev->loss = n ? sl / n : NAN;
	ev->logloss = binary && n ? sll / n : NAN;
	ev->accuracy = binary && n ? (double)right / n : NAN;
	ev->auc = binary ? auc_of(margins, labels, n) : NAN;
	ev->rmse = !binary && n ? sqrt(sse / n) : NAN;
	ev->mae = !binary && n ? sae / n : NAN;
	return 0;
}

static void linear_eval(const hog_model *m, const hog_data *d, const float *pred, hog_eval *ev)
{
	hog_model_eval_margins(m->loss, pred, d->labels, d->n, d->meta.task == HOG_TASK_BINARY, ev);
}

/* Dump records: one per feature, "ID w [state]" with the LIBSVM id (the stored
 * index + 1, as data export writes it), then "bias b [state]"; the step rule's
 * state (stride - 1 floats) follows the weight on its line. */
static uint64_t linear_records(const hog_model *m)
{
	return m->dim + 1;
}

static void linear_record(const hog_model *m, uint64_t r, hog_model_rec *rec)
{
	memset(rec, 0, sizeof *rec);
	rec->at = r * m->stride;
	rec->len = m->stride;
	if (r < m->dim) {
		rec->has_id = 1;
		rec->id = r + 1;
	} else {
		memcpy(rec->tag, "bias", 5);
	}
}

const hog_model_kind_ops hog_linear_kind = {
	.name = "linear",
	.nparams = linear_nparams,
	.fits = linear_fits,
	.predict = linear_predict,
	.eval = linear_eval,
	.info = linear_info,
	.records = linear_records,
	.record = linear_record,
};
