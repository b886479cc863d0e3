/* The mlp on the training engine (engine.h): shared weights, the workers'
 * mini-batches through a compute backend, the update modes, and evaluation.
 * The backend is opened through the public API (hog_backend_open) and used
 * through model/mlp.h (the passes, the buffers): this file includes no
 * backend/ header (cli -> train -> model -> backend). Multinomial logistic
 * regression (--model linear --loss softmax) is this trainer with no hidden
 * layers (train.c routes it here).
 *
 * A worker's batch: gather B examples of its shard (dense rows, or a CSR block
 * whose first layer is a sparse-times-dense product), read the shared weights
 * into its own buffer, forward and backward on its backend handle (the gradient
 * of the batch's mean cross-entropy; with example or class weights, of
 * sum w_i l_i / (B * the set's mean weight): batch_weights), then write the
 * step into the shared weights in the run's mode:
 *   serial, lockfree  relaxed loads and stores (Hogwild!, as PyTorch's
 *                     mnist_hogwild): see "The race" below
 *   atomic            the weight change added with compare-and-swap
 *   locked            one lock around the whole update of a batch
 *   buffered          the worker trains a private replica and adds its change
 *                     since the last flush to the shared weights every
 *                     --flush-every examples (and at the end of each round);
 *                     then takes the shared weights back
 *   deterministic     mlp_determ.c: the shards' gradients summed in a fixed
 *                     order, one step with one optimizer state
 * The step rule's state (momentum's velocity, AdaGrad's sums, Adam's moments)
 * is each worker's own, as each process of PyTorch's mnist_hogwild has its own
 * optimizer; it is stored beside the shared weights after each round for
 * checkpoints. Adam's bias correction counts the worker's batches from its
 * position (adam_t()), so that a resumed run takes the same steps.
 * With a sparse first layer only the rows of W_0 the batch touches are read and
 * written (the state of the other rows waits, as in lazy sparse updates:
 * TensorFlow's LazyAdam, PyTorch's SparseAdam).
 *
 * The race (lockfree, and buffered's flush): another worker may store between
 * our load and our store of a weight, and one of the two changes is lost; a
 * forward pass may read weights half-way through another worker's update. Both
 * are Hogwild!'s bargain (Niu et al. 2011): rare and small against the noise of
 * SGD. Every shared float is an _Atomic float touched with relaxed order (plain
 * moves on x86), so no access is a data race in the C sense.
 *
 * Work units (hog_epoch_stats.nnz): the floating-point operations of the
 * batch's matrix products (2 per multiply-add, forward and backward).
 *
 * The gradient noise scale (train/mlp_noise.c) is measured in every run, in
 * windows of NOISE_K full batches every NOISE_EVERY batches of each worker
 * (one more pass over the gradient in 1 batch of 8), over every weight, or
 * with a sparse first layer over the weights after W_0 (the rows a batch
 * touches change from batch to batch). With --batch auto, thread 0 grows the
 * batch between epochs towards it (batch_grow) and scales the step to match.
 */
#include "model/mlp.h"
#include "sys/err.h"
#include "sys/names.h"
#include "train/engine.h"
#include "train/mlp_opts.h"
#include "train/mlp_step.h"
#include "train/mlp_train.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ald, ast, cas_add (relaxed accessors) and the spin lock: train/sync.h, through engine.h */

/* mlp_state, mlp_worker: train/mlp_train.h */

/* A backend buffer and its host view (the same memory on a host backend). */
static int wbuf(mlp_worker *w, size_t bytes, void *dev, void *host)
{
	void *d = NULL, *h = NULL;
	if (w->nbufs >= MAX_BUFS) /* (a new buffer needs a larger MAX_BUFS) */
		return hog_err_set(&w->err, ENOMEM, "mlp: more than %d work buffers", MAX_BUFS);
	int rc = hog_mlp_buf_alloc(w->b, bytes ? bytes : 4, &d, &w->err);
	if (rc)
		return rc;
	if (w->host)
		h = d;
	else if (!(h = malloc(bytes ? bytes : 4)))
		rc = ENOMEM;
	w->bufs[w->nbufs][0] = d;
	w->bufs[w->nbufs++][1] = w->host ? NULL : h;
	memcpy(dev, &d, sizeof d);
	if (host)
		memcpy(host, &h, sizeof h);
	return rc;
}

static int up(mlp_worker *w, void *d, const void *h, size_t bytes)
{
	return w->host || !bytes ? 0 : hog_mlp_buf_upload(w->b, d, h, bytes, &w->err);
}

static int down(mlp_worker *w, void *h, const void *d, size_t bytes)
{
	return w->host || !bytes ? 0 : hog_mlp_buf_download(w->b, h, d, bytes, &w->err);
}

/* ------------------------------------------------------------ updates */

#define UPD_RK(UM)                                                             \
	switch (M->rk) {                                                           \
	case RK_SGD: upd(UM, RK_SGD, P, hw, rs, rv, g, n, K); break;               \
	case RK_MOMENTUM: upd(UM, RK_MOMENTUM, P, hw, rs, rv, g, n, K); break;     \
	case RK_ADAGRAD: upd(UM, RK_ADAGRAD, P, hw, rs, rv, g, n, K); break;       \
	case RK_ADAM: upd(UM, RK_ADAM, P, hw, rs, rv, g, n, K); break;             \
	default: upd(UM, RK_ADAMW, P, hw, rs, rv, g, n, K); break;                 \
	}

/* The step on weights [a, a+n) in the run's mode (locked: the caller holds the lock). */
static void write_range(const hog_engine *e, mlp_worker *w, uint64_t a, uint64_t n, const step_k *K)
{
	const mlp_state *M = e->model;
	float *hw = w->hW + a, *rs = w->rs ? w->rs + a : NULL, *rv = M->state > 1 ? w->rs + M->s.np + a : NULL;
	const float *g = w->hG + a;
	_Atomic float *P = M->P + a;
	if (e->o.mode == HOG_MODE_BUFFERED) {
		UPD_RK(UM_PLAIN)
	} else if (e->o.mode == HOG_MODE_ATOMIC) {
		UPD_RK(UM_CAS)
	} else {
		UPD_RK(UM_RELAXED)
	}
}

/* --lars: each layer's weights W_l at the step times its trust ratio (the
 * norms over the rows of W_0 the batch touches when the first layer is
 * sparse), the biases at the global step, as You et al. leave them. */
static void lars_step(const hog_engine *e, mlp_worker *w, const step_k *K)
{
	const mlp_state *M = e->model;
	const hog_mlp_shape *s = &M->s;
	for (int l = 0; l < s->L; l++) {
		const uint64_t row = s->n[l + 1];
		/* W_l as runs: every touched row of a sparse W_0, else one run of n_l rows */
		const int touched = s->sparse && l == 0;
		const uint64_t runs = touched ? w->ntouched : 1, len = touched ? row : s->n[l] * row;
#define RUN_AT(r) (s->woff[l] + (touched ? (uint64_t)w->touched[r] * row : 0))
		double ww = 0, gg = 0;
		for (uint64_t r = 0; r < runs; r++)
			lars_sums(w->hW + RUN_AT(r), w->hG + RUN_AT(r), len, &ww, &gg);
		step_k kl = *K;
		kl.lr = (float)(K->lr * lars_ratio(ww, gg, M->lars, M->l2));
		for (uint64_t r = 0; r < runs; r++)
			write_range(e, w, RUN_AT(r), len, &kl);
#undef RUN_AT
		write_range(e, w, s->boff[l], row, K);
	}
}

static void apply_step(const hog_engine *e, mlp_worker *w, float lr)
{
	mlp_state *M = e->model;
	const hog_mlp_shape *s = &M->s;
	step_k k = { .lr = lr, .l2 = M->l2, .mu = M->mu, .beta = M->beta, .b1 = (float)M->b1, .b2 = (float)M->b2,
	             .eps = M->eps };
	if (M->rk == RK_ADAM || M->rk == RK_ADAMW) {
		k.a1 = (float)(lr / (1.0 - pow(M->b1, w->t)));
		k.a2 = (float)(1.0 / sqrt(1.0 - pow(M->b2, w->t)));
		k.decay = 1.0f - lr * M->l2;
	}
	const step_k *K = &k;
	if (e->o.mode == HOG_MODE_LOCKED)
		hog_spin_lock(&M->lock);
	if (M->lars > 0) {
		lars_step(e, w, K);
	} else if (s->sparse) {
		for (uint32_t t = 0; t < w->ntouched; t++)
			write_range(e, w, s->woff[0] + (uint64_t)w->touched[t] * s->n[1], s->n[1], K);
		write_range(e, w, s->boff[0], s->np - s->boff[0], K);
	} else {
		write_range(e, w, 0, s->np, K);
	}
	if (e->o.mode == HOG_MODE_LOCKED)
		hog_spin_unlock(&M->lock);
	w->fresh = 1;
}

/* Buffered: add the replica's change since the last flush to the shared
 * weights, then take the shared values. */
static void flush(const hog_engine *e, mlp_worker *w)
{
	const mlp_state *M = e->model;
	float *rep = w->hW, *base = w->base;
	for (uint64_t k = 0; k < M->s.np; k++) {
		float d = rep[k] - base[k], p = ald(&M->P[k]);
		if (d != 0.0f) {
			p += d;
			ast(&M->P[k], p);
		}
		rep[k] = base[k] = p;
	}
	w->since_flush = 0;
}

/* The shared weights into the worker's buffer: the rows of W_0 a sparse batch
 * touches, and unless @p rows_only every other weight. */
static void read_weights(const mlp_state *M, mlp_worker *w, int rows_only)
{
	const hog_mlp_shape *s = &M->s;
	uint64_t from = 0;
	if (s->sparse) {
		for (uint32_t t = 0; t < w->ntouched; t++) {
			uint64_t a = s->woff[0] + (uint64_t)w->touched[t] * s->n[1];
			for (uint64_t k = a; k < a + s->n[1]; k++)
				w->hW[k] = ald(&M->P[k]);
		}
		from = s->boff[0];
	}
	if (!rows_only)
		for (uint64_t k = from; k < s->np; k++)
			w->hW[k] = ald(&M->P[k]);
}

/* ------------------------------------------------------------ batches */

/* Rows idx[0..rows) of @p d into the batch buffers (host side, then uploaded). */
static int gather(const mlp_state *M, mlp_worker *w, const hog_data *d, const uint32_t *idx, int rows,
                  int train, hog_mlp_batch *x)
{
	const hog_mlp_shape *s = &M->s;
	*x = (hog_mlp_batch){ .rows = rows };
	int rc;
	if (!s->sparse) {
		const uint64_t n0 = s->n[0];
		for (int r = 0; r < rows; r++)
			memcpy(w->hX + r * n0, d->x + idx[r] * n0, n0 * sizeof(float));
		if (M->xscale)
			for (int r = 0; r < rows; r++)
				for (uint64_t v = 0; v < n0; v++)
					w->hX[r * n0 + v] *= M->xscale[v];
		x->x = w->X;
		if ((rc = up(w, w->X, w->hX, rows * n0 * sizeof(float))))
			return rc;
	} else {
		uint32_t at = 0;
		if (train && ++w->stamp == 0) { /* the stamps wrapped: clear the marks */
			memset(w->mark, 0, s->n[0] * sizeof *w->mark);
			w->stamp = 1;
		}
		w->ntouched = 0;
		for (int r = 0; r < rows; r++) {
			uint64_t lo = d->offsets[idx[r]], hi = d->offsets[idx[r] + 1];
			w->hoff[r] = at;
			for (uint64_t p = lo; p < hi; p++, at++) {
				uint32_t v = d->ids[p];
				w->hids[at] = v;
				if (w->hvals) { /* (a set without values, a test set's, holds 1s: centered like any value) */
					const float xv = d->vals ? d->vals[p] : 1.0f;
					w->hvals[at] = M->xshift ? (float)(((double)xv - M->xshift[v]) * M->xscale[v])
					                         : xv * (M->xscale ? M->xscale[v] : 1.0f);
				}
				if (train && w->mark[v] != w->stamp) {
					w->mark[v] = w->stamp;
					w->touched[w->ntouched++] = v;
				}
			}
		}
		w->hoff[rows] = at;
		x->offsets = w->off;
		x->ids = w->ids;
		x->vals = w->vals;
		x->nnz = at;
		if ((rc = up(w, w->off, w->hoff, (rows + 1) * 4)) || (rc = up(w, w->ids, w->hids, at * 4)) ||
		    (w->vals && (rc = up(w, w->vals, w->hvals, at * 4))))
			return rc;
	}
	return 0;
}

/* A weighted run's batch (issue 24): row i's factor in the batch loss is
 * w_i / (rows * mean w), the mean weight the training set's, so the batch loss
 * sum_i w_i l_i / (rows * mean w) is an unbiased estimate of the set's
 * weighted mean loss sum w l / sum w whatever the batch: a batch of one still
 * steps by its weight (a per-batch sum w_i l_i / sum_i w_i would not: its
 * weights would cancel), the scale of the weights does not change the step
 * (all weights 2 train as none), and a batch of the whole set is exactly the
 * weighted mean, where an example of weight 2 is its duplicate. Returns the
 * denominator, rows * mean w; adds the batch's weights to *wsum. */
static int batch_weights(hog_engine *e, mlp_worker *w, int rows, double *den, double *wsum)
{
	/* (rows * sum / n, not rows * (sum / n): with the whole set, rows = n and den = sum exactly) */
	*den = (double)rows * e->weight_sum / (double)e->tr->n;
	const float f = (float)(1.0 / *den);
	const float *const wts = w->view.weights ? w->view.weights : e->wts; /* (--stream: the block's) */
	double s = 0;
	for (int r = 0; r < rows; r++) {
		const float wi = wts[w->idx[r]];
		w->hwt[r] = wi * f;
		s += wi;
	}
	*wsum += s;
	return up(w, w->wt, w->hwt, rows * sizeof(float));
}

/* One mini-batch's gradient (mlp_train.h). */
int mlp_batch_grad(hog_engine *e, mlp_worker *w, const uint32_t *order, int rows, int ready, double *loss,
                   double *wsum, uint64_t *units)
{
	mlp_state *M = e->model;
	const hog_mlp_shape *s = &M->s;
	const hog_data *d = w->view.labels ? &w->view : e->tr; /* (--stream: the block's view) */
	const int L = s->L;
	uint32_t *idx = w->idx;
	for (int r = 0; r < rows; r++) {
		idx[r] = w->rows ? w->rows[order[r]] : order[r];
		w->hlab[r] = hog_mlp_class(d, idx[r]);
	}
	hog_mlp_batch x;
	hog_err *err = &w->err;
	int rc = gather(M, w, d, idx, rows, 1, &x);
	double den = rows; /* the loss's denominator: the mean's rows, or rows * mean w */
	if (!rc)
		rc = up(w, w->lab, w->hlab, rows * sizeof(int32_t));
	if (!rc && e->weighted)
		rc = batch_weights(e, w, rows, &den, wsum);
	if (rc)
		return rc;
	/* Dense: the weights this worker wrote after its last batch (each write-back
	 * also loads what the others wrote; a fresh read would see at most one
	 * batch's more of their updates, at the cost of another pass over every
	 * weight). Sparse: the rows of W_0 this batch touches, read now. */
	if (!ready && e->o.mode != HOG_MODE_BUFFERED)
		read_weights(M, w, w->fresh);
	if (!ready && (rc = up(w, w->W, w->hW, s->np * sizeof(float))))
		return rc;
	if ((rc = hog_mlp_forward(w->b, s, w->W, &x, w->A, err)))
		return rc;
	double bl = 0;
	if ((rc = hog_mlp_loss(w->b, s, rows, w->A, w->lab, e->weighted ? w->wt : NULL, w->D[0], &bl, err)))
		return rc;
	*loss += bl * den;
	if (s->sparse) /* spmm_grad adds into the rows of W_0 the batch touches */
		for (uint32_t t = 0; t < w->ntouched; t++) {
			uint64_t a = s->woff[0] + (uint64_t)w->touched[t] * s->n[1];
			memset(w->hG + a, 0, s->n[1] * sizeof(float));
			if ((rc = up(w, w->G + a, w->hG + a, s->n[1] * sizeof(float))))
				return rc;
		}
	uint64_t flops = 0;
	if ((rc = hog_mlp_backward(w->b, s, w->W, &x, w->A, w->D, w->G, &flops, err)))
		return rc;
	if ((rc = down(w, w->hG, w->G, s->np * sizeof(float))))
		return rc;
	for (int l = 0; l < L; l++) /* the forward's products: rows x n_l times n_l x n_l+1 */
		flops += 2ull * s->n[l + 1] * (l == 0 && s->sparse ? w->hoff[rows] : (uint64_t)rows * s->n[l]);
	*units += flops;
	return 0;
}

int mlp_upload(mlp_worker *w, void *d, const void *h, size_t bytes)
{
	return up(w, d, h, bytes);
}

/* One mini-batch: the gradient, then the step. */
static int batch_step(hog_engine *e, mlp_worker *w, const uint32_t *order, int rows, float lr, double *loss,
                      double *wsum, uint64_t *units)
{
	int rc = mlp_batch_grad(e, w, order, rows, 0, loss, wsum, units);
	if (rc)
		return rc;
	mlp_noise_window(e->model, w, rows);
	apply_step(e, w, lr);
	return 0;
}

/* Adam's step number for the batch at position @p i of the worker's order:
 * the worker's batches before it, from 1 (exact when the batches start at
 * multiples of B, as they do unless a round ends inside one; a pure function
 * of the position and the epochs' batches, so that a resumed run counts as
 * the straight one). */
static double adam_t(const mlp_worker *w, int B, uint64_t i)
{
	return w->t_base + (double)((i + B - 1) / B) + 1.0;
}

static uint64_t mlp_round_fn(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to)
{
	const mlp_state *M = e->model;
	mlp_worker *w = ew->m;
	const uint64_t T = (uint64_t)e->T * (uint64_t)e->ranks, base = (uint64_t)epoch * e->tr->n;
	const int buffered = e->o.mode == HOG_MODE_BUFFERED;
	uint64_t i = from, units = 0;
	double loss = 0, wsum = 0;
	for (uint32_t nb = 1; i < to; nb++) {
		if ((nb & 15) == 0 && eng_stop_requested(e))
			break;
		int rows = to - i < (uint64_t)w->B ? (int)(to - i) : w->B;
		w->t = adam_t(w, w->B, i);
		int rc = batch_step(e, w, ew->order + (i - ew->order_at), rows, (float)(eng_lr_at(e, epoch, base + i * T) * M->lr_mult),
		                    &loss, &wsum, &units);
		if (rc) {
			eng_fail(e, rc, w->err.msg);
			break;
		}
		i += rows;
		if (buffered && (w->since_flush += rows) >= (uint64_t)e->o.flush_every)
			flush(e, w);
	}
	ew->ex_done += i - from;
	ew->units_done += units;
	ew->loss += loss;
	ew->wdone += wsum;
	return i;
}

/* --stream: each block loaded into the worker's view as its positions come */
static uint64_t mlp_round_stream(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to)
{
	mlp_worker *w = ew->m;
	return eng_stream_round(e, ew, &w->st, epoch, from, to, mlp_stream_load, mlp_round_fn);
}

static eng_round_fn mlp_round(const hog_engine *e)
{
	return e->o.mode == HOG_MODE_DETERMINISTIC ? mlp_det_round(e) : e->store ? mlp_round_stream : mlp_round_fn;
}

/* Before each epoch: the epoch's batch (thread 0 set it after the last),
 * Adam's step count so far, and the noise windows from zero. */
static void mlp_epoch_begin(hog_engine *e, eng_worker *ew, int epoch)
{
	const mlp_state *M = e->model;
	mlp_worker *w = ew->m;
	if (e->o.mlp.batch_auto) { /* (no resume: mlp_opts_check) */
		if (epoch > e->start_epoch)
			w->t_base += (double)((ew->n + w->B - 1) / w->B);
	} else {
		w->t_base = (double)epoch * (double)((ew->n + M->batch - 1) / M->batch);
	}
	w->B = (int)M->batch;
	w->nb = 0;
	w->ns = (noise_sums){ 0 };
	if (M->det)
		mlp_det_epoch_order(e, ew, epoch);
	if (e->store)
		eng_stream_epoch(&w->st, e, ew, epoch);
}

/* After each round: buffered flushes, and every worker stores its step-rule
 * state where snapshots find it (the last to store wins; one worker's state is
 * exact, so a serial run resumes bit for bit). */
static void mlp_round_end(hog_engine *e, eng_worker *ew, int epoch, int last)
{
	(void)epoch, (void)last;
	const mlp_state *M = e->model;
	mlp_worker *w = ew->m;
	if (e->o.mode == HOG_MODE_BUFFERED)
		flush(e, w);
	if (w->rs)
		for (uint64_t k = 0; k < M->s.np * M->state; k++)
			ast(&M->P[M->s.np + k], w->rs[k]);
}

static void mlp_stop(hog_engine *e, eng_worker *ew, int epoch)
{
	mlp_round_end(e, ew, epoch, 1);
}

/* ------------------------------------------------------------ setup */

void mlp_unseen_inputs(mlp_state *M, const uint64_t *cnt)
{
	const uint64_t n1 = M->s.n[1];
	for (uint64_t v = 0; v < M->s.n[0]; v++)
		if (!cnt[v])
			for (uint64_t k = 0; k < n1; k++)
				ast(&M->P[M->s.woff[0] + v * n1 + k], 0.0f);
}

/* A standard normal from the seed (Box-Muller). */
static double normal(uint64_t *seed)
{
	double u1 = ((eng_mix64(seed) >> 11) + 0.5) * 0x1p-53, u2 = (eng_mix64(seed) >> 11) * 0x1p-53;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static int mlp_setup(hog_engine *e)
{
	const hog_train_opts *o = &e->o;
	const hog_data *tr = e->tr;
	mlp_state *M = calloc(1, sizeof *M);
	if (!M)
		return hog_err_set(e->err, ENOMEM, "out of memory");
	e->model = M;
	hog_backend_blas_one_thread(); /* no BLAS threads inside our workers (the cpu backend's gemm) */
	uint64_t shape[4];
	uint64_t outputs = tr->meta.task == HOG_TASK_MULTICLASS ? tr->meta.classes : o->loss == HOG_LOSS_SOFTMAX ? 2 : 1;
	hog_mlp_pack(shape, tr->dim, outputs, o->mlp.layers, o->mlp.nlayers);
	M->flags = (tr->meta.kind == HOG_KIND_SPARSE ? HOG_MLP_SPARSE : 0) | (o->mlp.momentum > 0 ? HOG_MLP_MOMENTUM : 0);
	if (hog_mlp_shape_of(shape, M->flags, &M->s))
		return hog_err_set(e->err, HOG_ECONFIG, "the network's shapes are out of range");
	M->rk = o->rule == HOG_RULE_ADAGRAD ? RK_ADAGRAD : o->rule == HOG_RULE_ADAM ? RK_ADAM
	        : o->rule == HOG_RULE_ADAMW ? RK_ADAMW : o->mlp.momentum > 0 ? RK_MOMENTUM : RK_SGD;
	M->state = hog_mlp_states(o->rule, M->flags);
	M->nrec = M->s.np * (1 + (uint64_t)M->state);
	M->l2 = (float)o->l2;
	M->mu = (float)o->mlp.momentum;
	M->beta = (float)o->adagrad_beta;
	M->b1 = o->mlp.adam_beta1;
	M->b2 = o->mlp.adam_beta2;
	M->eps = (float)o->mlp.adam_eps;
	M->batch = o->mlp.batch;
	M->cap = o->mlp.batch_auto ? o->mlp.batch_max : o->mlp.batch;
	M->lr_mult = 1.0;
	M->noise = NAN;
	M->lars = o->mlp.lars;
	atomic_init(&M->lock.v, 0);
	M->P = aligned_alloc(64, (M->nrec * sizeof(float) + 63) & ~(size_t)63);
	M->perm = e->store ? NULL : malloc(tr->n * sizeof *M->perm); /* (--stream: blocks are dealt) */
	if (e->te)
		M->test_prob = malloc((e->te->n * outputs + 1) * sizeof(float));
	if (!M->P || (!e->store && !M->perm) || (e->te && !M->test_prob))
		return hog_err_set(e->err, ENOMEM, "out of memory for %llu weights", (unsigned long long)M->s.np);
	/* He initialization, seeded: N(0, 2/fan_in) weights and zero biases; a model
	 * with no hidden layer (softmax regression) starts at zero, as the linear one */
	uint64_t seed = o->seed ^ 0x4D4C50ull;
	for (uint64_t k = 0; k < M->nrec; k++)
		atomic_init(&M->P[k], 0.0f);
	if (M->s.L > 1)
		for (int l = 0; l < M->s.L; l++) {
			double sd = sqrt(2.0 / (double)M->s.n[l]);
			for (uint64_t k = M->s.woff[l]; k < M->s.boff[l]; k++)
				ast(&M->P[k], (float)(sd * normal(&seed)));
		}
	int rc;
	if (e->store) /* the scales, the default step, the longest row: from every block */
		return mlp_stream_scan(e, M);
	if (M->s.L > 1) { /* inputs never nonzero in training: their first-layer weights 0 (mlp_unseen_inputs) */
		uint64_t *cnt = calloc(M->s.n[0] + 1, sizeof *cnt);
		if (!cnt)
			return hog_err_set(e->err, ENOMEM, "out of memory");
		if (tr->meta.kind == HOG_KIND_DENSE && tr->x)
			for (uint64_t k = 0; k < tr->n * M->s.n[0]; k++)
				cnt[k % M->s.n[0]] += tr->x[k] != 0.0f;
		else
			for (uint64_t j = 0; j < tr->nnz && tr->ids; j++)
				cnt[tr->ids[j]] += !tr->vals || tr->vals[j] != 0.0f;
		mlp_unseen_inputs(M, cnt);
		free(cnt);
	}
	eng_deal(M->perm, tr->n, o->no_shuffle, o->seed ^ 0xD1CEull); /* (--no-shuffle: in data order, as --stream's) */
	if (o->normalize || o->centered) { /* (the centers and scales of mlp_opts_check: auto, its centered
	                                    * values within [-1, 1], settles off and keeps the centers) */
		if ((o->centered && !(M->xshift = eng_feature_centers(tr, NULL))) ||
		    !(M->xscale = eng_feature_scales(tr, o->normalize, NULL, M->xshift)))
			return hog_err_set(e->err, ENOMEM, "out of memory");
	}
	if (o->mode == HOG_MODE_DETERMINISTIC && (rc = mlp_det_setup(e, M)))
		return rc;
	if (M->s.sparse) {
		const hog_data *sets[2] = { tr, e->te };
		for (int k = 0; k < 2; k++)
			for (uint64_t i = 0; sets[k] && i < sets[k]->n; i++) {
				uint64_t nz = sets[k]->offsets[i + 1] - sets[k]->offsets[i];
				M->max_row = nz > M->max_row ? (uint32_t)nz : M->max_row;
			}
	}
	return 0;
}

static int mlp_worker_init(hog_engine *e, eng_worker *ew)
{
	const mlp_state *M = e->model;
	const hog_mlp_shape *s = &M->s;
	mlp_worker *w = calloc(1, sizeof *w);
	if (!w)
		return ENOMEM;
	ew->m = w;
	uint64_t lo, hi; /* (MPI: this rank's slice of the shuffled examples, then the worker's) */
	int rc;
	if (e->store) { /* its blocks; w->rows NULL: the order holds rows of the block's view */
		if ((rc = mlp_stream_shard(e, ew, w)))
			return rc;
	} else {
		eng_worker_share(e, ew, e->tr->n, &lo, &hi);
		w->rows = M->perm + lo;
		ew->n = hi - lo;
	}
	if (M->det) /* (its shards: w->rows the whole permutation, ew->n the largest shard's) */
		mlp_det_worker_init(e, ew);
	if ((!e->store && !(ew->order = malloc((ew->n + 1) * sizeof *ew->order))) || /* (streamed: eng_stream's) */
	    !(w->idx = malloc(M->cap * sizeof *w->idx)))
		return ENOMEM;
	rc = hog_backend_open(&w->b, e->o.mlp.device, 0, &w->err);
	if (rc)
		return rc;
	w->host = hog_mlp_buf_host(w->b);
	const size_t B = M->cap, F = sizeof(float);
	w->B = (int)M->batch;
	if (!(w->acc = malloc(s->np * F)))
		return ENOMEM;
	const int buffered = e->o.mode == HOG_MODE_BUFFERED;
	if ((rc = wbuf(w, s->np * F, &w->W, &w->hW)) ||
	    (rc = wbuf(w, s->np * F, &w->G, &w->hG)) || (rc = wbuf(w, B * 4, &w->lab, &w->hlab)) ||
	    (e->weighted && (rc = wbuf(w, B * F, &w->wt, &w->hwt))) ||
	    (rc = wbuf(w, B * s->widest * F, &w->D[0], NULL)) || (rc = wbuf(w, B * s->widest * F, &w->D[1], NULL)))
		return rc;
	for (int l = 0; l < s->L; l++)
		if ((rc = wbuf(w, B * s->n[l + 1] * F, &w->A[l], NULL)))
			return rc;
	if (!s->sparse) {
		if ((rc = wbuf(w, B * s->n[0] * F, &w->X, &w->hX)))
			return rc;
	} else {
		w->cap_nnz = (uint32_t)(B * M->max_row);
		if ((rc = wbuf(w, (B + 1) * 4, &w->off, &w->hoff)) || (rc = wbuf(w, w->cap_nnz * 4ull, &w->ids, &w->hids)) ||
		    ((e->tr->vals || M->svals || (e->te && e->te->vals)) &&
		     (rc = wbuf(w, w->cap_nnz * 4ull, &w->vals, &w->hvals))))
			return rc;
		w->mark = calloc(s->n[0], sizeof *w->mark);
		w->touched = malloc((w->cap_nnz + 1) * sizeof *w->touched);
		if (!w->mark || !w->touched)
			return ENOMEM;
		memset(w->hG, 0, s->np * F); /* rows of W_0 are zeroed as batches touch them */
		if ((rc = up(w, w->G, w->hG, s->np * F)))
			return rc;
	}
	if (buffered) {
		if (!(w->base = malloc(s->np * F)))
			return ENOMEM;
		for (uint64_t k = 0; k < s->np; k++)
			w->hW[k] = w->base[k] = ald(&M->P[k]);
	}
	if (M->state && !M->det) { /* from the checkpoint, or zero (deterministic: the one state in M->P) */
		if (!(w->rs = malloc(s->np * M->state * F)))
			return ENOMEM;
		for (uint64_t k = 0; k < s->np * M->state; k++)
			w->rs[k] = ald(&M->P[s->np + k]);
	}
	return 0;
}

static void mlp_worker_free(hog_engine *e, eng_worker *ew)
{
	(void)e;
	mlp_worker *w = ew->m;
	free(ew->order);
	ew->order = NULL;
	if (!w)
		return;
	for (int k = 0; k < w->nbufs; k++) {
		hog_mlp_buf_release(w->b, w->bufs[k][0]);
		free(w->bufs[k][1]);
	}
	hog_backend_close(w->b);
	free(w->mark);
	free(w->touched);
	free(w->base);
	free(w->rs);
	free(w->idx);
	free(w->acc);
	mlp_stream_worker_free(w);
	free(w);
	ew->m = NULL;
}

static void mlp_free(hog_engine *e)
{
	mlp_state *M = e->model;
	free(M->P);
	free(M->perm);
	free(M->test_prob);
	free(M->xscale);
	free(M->xshift);
	free(M->blk);
	free(M->bperm);
	mlp_det_free(M);
	free(M);
	e->model = NULL;
}

static float mlp_probe(const hog_engine *e)
{
	const mlp_state *M = e->model;
	return ald(&M->P[M->s.boff[M->s.L - 1]]);
}

/* ------------------------------------------------------------ evaluation */

/* The team computes the test probabilities, one slice each, with the weights
 * as they stand (buffered: the replica starts again from them). */
static void mlp_eval_slice(hog_engine *e, int k)
{
	mlp_state *M = e->model;
	mlp_worker *w = e->w[k]->m;
	const hog_data *d = e->te;
	const hog_mlp_shape *s = &M->s;
	const uint64_t C = s->n[s->L];
	for (uint64_t q = 0; q < s->np; q++)
		w->hW[q] = ald(&M->P[q]);
	if (e->o.mode == HOG_MODE_BUFFERED)
		memcpy(w->base, w->hW, s->np * sizeof(float));
	int rc = up(w, w->W, w->hW, s->np * sizeof(float));
	uint64_t a, b;
	eng_share(d->n, k, e->T, &a, &b);
	uint32_t *idx = w->idx;
	for (uint64_t i = a; i < b && !rc; i += (uint64_t)w->B) {
		int rows = b - i < (uint64_t)w->B ? (int)(b - i) : w->B;
		for (int r = 0; r < rows; r++)
			idx[r] = (uint32_t)(i + r);
		hog_mlp_batch x;
		float *Z = w->A[s->L - 1];
		if (!(rc = gather(M, w, d, idx, rows, 0, &x)) && !(rc = hog_mlp_forward(w->b, s, w->W, &x, w->A, &w->err)) &&
		    !(rc = hog_mlp_probs(w->b, s, rows, w->A, &w->err)))
			rc = w->host ? (memcpy(M->test_prob + i * C, Z, rows * C * sizeof(float)), 0)
			             : down(w, M->test_prob + i * C, Z, rows * C * sizeof(float));
	}
	if (rc)
		eng_fail(e, rc, w->err.msg);
}

static void mlp_epoch_stats(hog_engine *e, hog_epoch_stats *s)
{
	mlp_state *M = e->model;
	mlp_noise_epoch(e, s);
	if (!e->te)
		return;
	hog_eval ev;
	hog_mlp_eval_probs(M->test_prob, M->s.n[M->s.L], e->te, &ev);
	s->test_loss = ev.loss;
	s->test_acc = ev.accuracy;
	s->test_auc = ev.auc;
}

/* MPI: the weights the ranks average, W_l as n_l x n_{l+1} matrices and b_l
 * as vectors (model/mlp.h's layout). The step rule's state is each worker's
 * own (w->rs; the block after the weights only mirrors it for checkpoints),
 * on every rank as on one, and is not averaged. */
static size_t mlp_shared_params(hog_engine *e, eng_span *sp, size_t cap)
{
	const mlp_state *M = e->model;
	const hog_mlp_shape *s = &M->s;
	float *P = (float *)M->P; /* (the team waits at a barrier: plain access) */
	const size_t n = 2 * (size_t)s->L;
	for (int l = 0; l < s->L && n <= cap; l++) {
		sp[2 * l] = (eng_span){ P + s->woff[l], s->n[l] * s->n[l + 1], s->n[l], s->n[l + 1] };
		sp[2 * l + 1] = (eng_span){ P + s->boff[l], s->n[l + 1], 0, 0 };
	}
	return n;
}

const hog_trainer_ops hog_mlp_trainer = {
	.kind = HOG_MODEL_MLP,
	.unit = "flop",
	.weighs = 1, /* (example and class weights: batch_weights) */
	.streams = 1, /* (mlp_stream.c) */
	/* default mode lockfree (NULL): the only mode measured for the mlp
	 * (bench/results/mlp.md, 1.6x one thread at 2 threads); each worker's
	 * mini-batch gradient is one write of every weight, no hot coordinates */
	.losses = 1u << HOG_LOSS_LOGISTIC | 1u << HOG_LOSS_SOFTMAX, /* cross-entropy */
	.modes = 1u << HOG_MODE_SERIAL | 1u << HOG_MODE_LOCKFREE | 1u << HOG_MODE_BUFFERED | 1u << HOG_MODE_ATOMIC |
	         1u << HOG_MODE_LOCKED | 1u << HOG_MODE_DETERMINISTIC,
	.opts_init = mlp_opts_init,
	.opts_hash = mlp_opts_hash,
	.opts_names = "--batch, --layers, --momentum",
	.check = mlp_opts_check,
	.setup = mlp_setup,
	.worker_init = mlp_worker_init,
	.worker_free = mlp_worker_free,
	.round = mlp_round,
	.epoch_begin = mlp_epoch_begin,
	.round_end = mlp_round_end,
	.round_share = mlp_det_share,
	.stop = mlp_stop,
	.probe = mlp_probe,
	.eval_slice = mlp_eval_slice,
	.epoch_stats = mlp_epoch_stats,
	.shared_params = mlp_shared_params,
	.snapshot = mlp_snapshot,
	.restore = mlp_restore,
	.free = mlp_free,
};
