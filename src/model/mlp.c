/* The mlp kind (layout in mlp.h): shapes, the forward pass on a backend, and
 * prediction and evaluation of a saved model on the CPU backend, batch by batch. */
#include "model/mlp.h"
#include "backend/backend.h"
#include "sys/err.h"
#include "sys/names.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PREDICT_BATCH 256

void hog_mlp_pack(uint64_t shape[4], uint64_t inputs, uint64_t outputs, const uint32_t *hidden, int nh)
{
	shape[0] = inputs;
	shape[1] = outputs;
	shape[2] = shape[3] = 0;
	for (int i = 0; i < nh && i < HOG_MLP_MAX_HIDDEN; i++)
		shape[2 + i / 4] |= (uint64_t)(hidden[i] & 0xFFFFu) << (16 * (i % 4));
}

int hog_mlp_shape_of(const uint64_t shape[4], uint32_t flags, hog_mlp_shape *s)
{
	memset(s, 0, sizeof *s);
	if (flags & ~(HOG_MLP_SPARSE | HOG_MLP_MOMENTUM) || shape[0] == 0 || shape[0] >= UINT32_MAX ||
	    shape[1] == 0 || shape[1] > 65536)
		return -1;
	s->sparse = (flags & HOG_MLP_SPARSE) != 0;
	s->n[0] = shape[0];
	int nh = 0, ended = 0;
	for (int i = 0; i < HOG_MLP_MAX_HIDDEN; i++) {
		uint64_t w = shape[2 + i / 4] >> (16 * (i % 4)) & 0xFFFFu;
		if (!w)
			ended = 1;
		else if (ended) /* a gap in the list */
			return -1;
		else
			s->n[++nh] = w;
	}
	s->L = nh + 1;
	s->n[s->L] = shape[1];
	uint64_t at = 0;
	for (int l = 0; l < s->L; l++) {
		s->woff[l] = at;
		at += s->n[l] * s->n[l + 1];
		s->boff[l] = at;
		at += s->n[l + 1];
		if (s->n[l + 1] > s->widest)
			s->widest = s->n[l + 1];
	}
	s->np = at;
	return at > (UINT64_MAX >> 4) ? -1 : 0;
}

int hog_mlp_forward(hog_backend *b, const hog_mlp_shape *s, const float *W, const hog_mlp_batch *x,
                    float *const *A, hog_err *err)
{
	int rc = 0;
	for (int l = 0; l < s->L && !rc; l++) {
		const int in = (int)s->n[l], out = (int)s->n[l + 1];
		const enum hog_act act = l + 1 < s->L ? HOG_ACT_RELU : HOG_ACT_NONE;
		if (l > 0 || !s->sparse) {
			rc = hog_backend_dense_fwd(b, x->rows, in, out, l ? A[l - 1] : x->x, W + s->woff[l], W + s->boff[l],
			                           act, A[l], err);
			continue;
		}
		/* the sparse first layer: X W_0 gathers the rows of its nonzeros */
		rc = hog_backend_spmm(b, x->rows, x->offsets, x->ids, x->vals, out, W + s->woff[0], out, 0.0f, A[0], out, err);
		if (!rc)
			rc = hog_backend_bias_add(b, x->rows, out, A[0], W + s->boff[0], err);
		if (!rc && act != HOG_ACT_NONE)
			rc = hog_backend_act_fwd(b, act, (size_t)x->rows * out, A[0], A[0], err);
	}
	return rc;
}

int hog_mlp_loss(hog_backend *b, const hog_mlp_shape *s, int rows, float *const *A, const int32_t *labels,
                 const float *weights, float *dZ, double *loss, hog_err *err)
{
	return hog_backend_xent(b, rows, (int)s->n[s->L], A[s->L - 1], labels, weights, NULL, dZ, loss, err);
}

int hog_mlp_probs(hog_backend *b, const hog_mlp_shape *s, int rows, float *const *A, hog_err *err)
{
	float *Z = A[s->L - 1];
	return hog_backend_xent(b, rows, (int)s->n[s->L], Z, NULL, NULL, Z, NULL, NULL, err);
}

int hog_mlp_backward(hog_backend *b, const hog_mlp_shape *s, const float *W, const hog_mlp_batch *x,
                     float *const *A, float *const *D, float *G, uint64_t *flops, hog_err *err)
{
	const int rows = x->rows;
	int c = 0, rc = 0;
	for (int l = s->L - 1; l >= 0 && !rc; l--) {
		const int in = (int)s->n[l], out = (int)s->n[l + 1];
		const enum hog_act act = l + 1 < s->L ? HOG_ACT_RELU : HOG_ACT_NONE;
		/* D[c]: the loss's gradient with respect to this layer's output A[l] */
		if (l > 0 || !s->sparse) {
			rc = hog_backend_dense_bwd(b, rows, in, out, l ? A[l - 1] : x->x, W + s->woff[l], act, A[l], D[c], 0.0f,
			                           G + s->woff[l], G + s->boff[l], l ? D[c ^ 1] : NULL, err);
			*flops += 2ull * rows * in * out * (l ? 2 : 1);
			c ^= 1;
			continue;
		}
		/* the sparse first layer: dW_0 scattered into the rows the batch touches */
		if (act != HOG_ACT_NONE)
			rc = hog_backend_act_bwd(b, act, (size_t)rows * out, A[0], D[c], D[c], err);
		if (!rc)
			rc = hog_backend_spmm_grad(b, rows, x->offsets, x->ids, x->vals, out, D[c], out, 1.0f, G + s->woff[0], out,
			                           err);
		if (!rc)
			rc = hog_backend_bias_grad(b, rows, out, D[c], 0.0f, G + s->boff[0], err);
		*flops += 2ull * x->nnz * out; /* x->offsets may be device memory: never read here */
	}
	return rc;
}

void hog_mlp_eval_probs(const float *prob, uint64_t outputs, const hog_data *d, hog_eval *ev)
{
	hog_eval_acc a;
	hog_acc_init(&a, HOG_LOSS_LOGISTIC, 0);
	hog_acc_probs(&a, prob, outputs, d);
	hog_acc_finish(&a, ev);
}

/* ------------------------------------------------------------ the kind */

static uint64_t mlp_nparams(const hog_model *m)
{
	hog_mlp_shape s;
	if (hog_mlp_shape_of(m->shape, m->flags, &s) || m->rule == HOG_RULE_ADAREVISION || m->rule > HOG_RULE_ADAMW)
		return 0;
	if ((m->flags & HOG_MLP_MOMENTUM) && m->rule != HOG_RULE_SGD)
		return 0;
	if ((m->loss == HOG_LOSS_SOFTMAX) != (m->shape[1] >= 2))
		return 0;
	return s.np * (1 + (uint64_t)hog_mlp_states(m->rule, m->flags));
}

/* The data set must be of the kind the model was trained on, with the model's
 * input width (a sparse test set may have fewer features), and labels the
 * output layer can take. */
static int mlp_fits(const hog_model *m, const hog_data *d, hog_err *err)
{
	const int sparse = (m->flags & HOG_MLP_SPARSE) != 0;
	if (d->meta.kind != (sparse ? HOG_KIND_SPARSE : HOG_KIND_DENSE))
		return hog_err_set(err, HOG_EMISMATCH, "the mlp model was trained on a %s data set; this one is %s",
		                   sparse ? "sparse" : "dense", hog_kind_name(d->meta.kind));
	if (sparse ? d->dim > m->shape[0] : d->dim != m->shape[0])
		return hog_err_set(err, HOG_EMISMATCH, "the data set has %llu %s, the model's input layer %llu",
		                   (unsigned long long)d->dim, sparse ? "features" : "columns",
		                   (unsigned long long)m->shape[0]);
	if (d->meta.task == HOG_TASK_BINARY)
		return m->shape[1] <= 2 ? 0 : hog_err_set(err, HOG_EMISMATCH, "the model has %llu classes; the data "
		                                          "set's labels are binary", (unsigned long long)m->shape[1]);
	if (d->meta.task != HOG_TASK_MULTICLASS)
		return hog_err_set(err, HOG_EMISMATCH, "the mlp model takes binary or multiclass labels, not %s",
		                   hog_task_name(d->meta.task));
	if (m->shape[1] < 2 || d->meta.classes > m->shape[1])
		return hog_err_set(err, HOG_EMISMATCH, "the data set has %u classes, the model's output layer %llu",
		                   d->meta.classes, (unsigned long long)m->shape[1]);
	return 0;
}

/* Forward over every example, handing each batch's logits to @p fn. */
typedef void (*out_fn)(const hog_model *m, uint64_t first, int rows, float *Z, void *ud);

static int forward_all(const hog_model *m, const hog_data *d, out_fn fn, void *ud)
{
	hog_mlp_shape s;
	hog_backend *b = NULL;
	hog_err err;
	float *A[HOG_MLP_MAX_HIDDEN + 1] = { 0 };
	uint32_t *off = malloc((PREDICT_BATCH + 1) * sizeof *off);
	int rc = hog_mlp_shape_of(m->shape, m->flags, &s) ? HOG_ECORRUPT : 0;
	if (!rc && !off)
		rc = ENOMEM;
	if (!rc)
		rc = hog_backend_open(&b, "cpu", 0, &err);
	for (int l = 0; l < s.L && !rc; l++)
		if (!(A[l] = malloc(PREDICT_BATCH * s.n[l + 1] * sizeof(float))))
			rc = ENOMEM;
	for (uint64_t i = 0; i < d->n && !rc; i += PREDICT_BATCH) {
		hog_mlp_batch x = { .rows = d->n - i < PREDICT_BATCH ? (int)(d->n - i) : PREDICT_BATCH };
		if (s.sparse) {
			for (int r = 0; r <= x.rows; r++)
				off[r] = (uint32_t)(d->offsets[i + r] - d->offsets[i]);
			x.offsets = off;
			x.ids = d->ids + d->offsets[i];
			x.vals = d->vals ? d->vals + d->offsets[i] : NULL;
			x.nnz = d->offsets[i + x.rows] - d->offsets[i];
		} else {
			x.x = d->x + i * d->dim;
		}
		if (!(rc = hog_mlp_forward(b, &s, m->params, &x, A, &err)))
			fn(m, i, x.rows, A[s.L - 1], ud);
	}
	for (int l = 0; l < s.L; l++)
		free(A[l]);
	free(off);
	hog_backend_close(b);
	return rc;
}

static void put_pred(const hog_model *m, uint64_t first, int rows, float *Z, void *ud)
{
	float *out = (float *)ud + first;
	const uint64_t C = m->shape[1];
	for (int r = 0; r < rows; r++) {
		const float *z = Z + (uint64_t)r * C;
		if (C == 1) {
			out[r] = z[0];
		} else {
			uint64_t best = 0;
			for (uint64_t j = 1; j < C; j++)
				best = z[j] > z[best] ? j : best;
			out[r] = (float)best;
		}
	}
}

static void put_proba(const hog_model *m, uint64_t first, int rows, float *Z, void *ud)
{
	const uint64_t C = m->shape[1];
	hog_cpu_xent(rows, (int)C, Z, NULL, NULL, (float *)ud + first * C, NULL, NULL);
}

/* Predictions: the class (softmax) or the margin (one sigmoid output); NaN when
 * memory runs out (predict cannot fail once fits() has passed). */
static void mlp_predict(const hog_model *m, const hog_data *d, float *out)
{
	if (forward_all(m, d, put_pred, out))
		for (uint64_t i = 0; i < d->n; i++)
			out[i] = NAN;
}

static void mlp_proba(const hog_model *m, const hog_data *d, float *out)
{
	if (forward_all(m, d, put_proba, out))
		for (uint64_t i = 0; i < d->n * m->shape[1]; i++)
			out[i] = NAN;
}

static void mlp_eval(const hog_model *m, const hog_data *d, const float *pred, hog_eval_acc *a)
{
	(void)pred; /* classes lose the probabilities: recompute them */
	float *p = malloc((d->n * m->shape[1] + 1) * sizeof *p);
	if (!p) {
		a->oom = 1;
		return;
	}
	mlp_proba(m, d, p);
	hog_acc_probs(a, p, m->shape[1], d);
	free(p);
}

static void mlp_info(const hog_model *m, hog_model_info *info)
{
	hog_mlp_shape s;
	if (hog_mlp_shape_of(m->shape, m->flags, &s))
		return;
	info->dim = m->shape[0];
	info->classes = m->shape[1] >= 2 ? (uint32_t)m->shape[1] : 0;
	info->nlayers = s.L - 1;
	for (int l = 1; l < s.L; l++)
		info->layers[l - 1] = (uint32_t)s.n[l];
	info->momentum = m->aux;
	info->sparse = s.sparse;
}

/* Dump records, layer by layer: "Wl ROW v..." for each of W_l's n_l rows (row
 * i: input i's weights to the n_{l+1} units, rows from 0), then "bl v..." (its
 * n_{l+1} biases); when the step rule keeps state (momentum's velocity,
 * adagrad's sums, Adam's first moment), the same again as "sWl ROW v..." and
 * "sbl v...", and Adam's second moment as "vWl ROW v..." and "vbl v...". */
static uint64_t mlp_records(const hog_model *m)
{
	hog_mlp_shape s;
	if (hog_mlp_shape_of(m->shape, m->flags, &s) || !s.np)
		return 0;
	uint64_t n = 0;
	for (int l = 0; l < s.L; l++)
		n += s.n[l] + 1;
	return n * (m->nparams / s.np);
}

static void mlp_record(const hog_model *m, uint64_t r, hog_model_rec *rec)
{
	hog_mlp_shape s;
	memset(rec, 0, sizeof *rec);
	if (hog_mlp_shape_of(m->shape, m->flags, &s) || !s.np)
		return;
	const uint64_t per = mlp_records(m) / (m->nparams / s.np);
	const uint64_t state = r / per; /* 0: the weights, 1 and 2: the states */
	r -= state * per;
	for (int l = 0; l < s.L; l++) {
		if (r > s.n[l]) {
			r -= s.n[l] + 1;
			continue;
		}
		const int bias = r == s.n[l];
		char *t = rec->tag; /* "W3", "sb0": l is one digit (at most HOG_MLP_MAX_HIDDEN) */
		if (state)
			*t++ = state == 1 ? 's' : 'v';
		*t++ = bias ? 'b' : 'W';
		*t++ = (char)('0' + l);
		*t = 0;
		rec->has_id = !bias;
		rec->id = bias ? 0 : r;
		rec->at = state * s.np + (bias ? s.boff[l] : s.woff[l] + r * s.n[l + 1]);
		rec->len = s.n[l + 1];
		return;
	}
}

const hog_model_kind_ops hog_mlp_kind = {
	.name = "mlp",
	.nparams = mlp_nparams,
	.fits = mlp_fits,
	.predict = mlp_predict,
	.proba = mlp_proba,
	.eval = mlp_eval,
	.info = mlp_info,
	.records = mlp_records,
	.record = mlp_record,
};

/* ---------------------------------------------- a trainer's buffers */

int hog_mlp_buf_alloc(hog_backend *b, size_t bytes, void **out, hog_err *err)
{
	return hog_backend_alloc(b, bytes, out, err);
}

void hog_mlp_buf_release(hog_backend *b, void *p)
{
	hog_backend_release(b, p);
}

int hog_mlp_buf_upload(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err)
{
	return hog_backend_upload(b, dst, src, bytes, err);
}

int hog_mlp_buf_download(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err)
{
	return hog_backend_download(b, dst, src, bytes, err);
}

int hog_mlp_buf_host(const hog_backend *b)
{
	return hog_backend_is_host(b);
}
