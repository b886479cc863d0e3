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

static void linear_eval(const hog_model *m, const hog_data *d, const float *pred, hog_eval_acc *a)
{
	(void)m;
	hog_acc_margins(a, pred, d->labels, d->n);
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
