/* The mlp's deterministic mode (issue 25; also --model linear --loss softmax,
 * which trains as the mlp): the model after every epoch is a pure function of
 * the data, the options, the seed and --shards S -- the same bits from run to
 * run and for any --threads.
 *
 * Synchronous data-parallel steps, not the linear model's local SGD: the
 * examples are dealt once (the seeded permutation every mode uses) to S
 * logical shards, shard s the s-th slice of it; each epoch shard s visits its
 * slice in an order drawn from (seed, epoch, s). A step is one round of the
 * engine (round_examples = --batch B): every shard computes the gradient of
 * its next B examples at the same weights (the round's), into a buffer of its
 * own; after the round's barrier the team sums the S gradients coordinate by
 * coordinate in shard order -- each one weighed rows_s / rows, so the sum is
 * the gradient of the mean loss of the step's S x B examples, as a serial
 * batch of S x B would have it -- and applies the step rule once (sgd,
 * momentum, adagrad, adam, adamw: mlp_step.h's upd) with one optimizer state,
 * the one the model file keeps after the weights. So --shards S --batch B
 * steps as a serial run at --batch S x B, and --lr is that batch's step (the
 * default softmax-regression step is computed for S x B). Each thread sums
 * and steps its part of the coordinates, whole blocks of 256, so that the
 * arithmetic of a coordinate (even where the compiler vectorizes) does not
 * depend on the number of threads.
 *
 * Why this and not the linear model's merge of private deltas: every weight of
 * a dense network is touched by every shard, so averaging the shards' deltas
 * is plain model averaging, and each shard would need an optimizer state of
 * its own (Adam's moments x S). A step on the summed gradient keeps the
 * optimizer's semantics exactly (one state, one step count).
 *
 * Thread t computes shards t, t + T ... one after another on its backend
 * handle. Memory beyond the other modes': S x np floats (the shards'
 * gradients) and np floats (their sum). With a sparse first layer the sum is
 * dense (rows no batch touched have zero gradient) and the step updates every
 * weight, as a full-batch step would (l2, momentum and Adam move untouched
 * rows too); the cost is S x np per step, fine for the dense sets this mode is
 * for, large for a wide sparse input.
 *
 * Not with: --batch auto, --lars, several MPI ranks. No gradient noise scale
 * is measured. The reported epoch loss is summed per thread, so its last
 * digits may change with T; the model does not.
 */
#include "sys/err.h"
#include "train/mlp_step.h"
#include "train/mlp_train.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DET_BLOCK 256u /* the threads' parts of the coordinates: whole blocks */

typedef struct mlp_dshard {
	uint64_t n;                 /* its examples */
	uint32_t *items;            /* n: its positions in the permutation */
	uint32_t *order;            /* n: this epoch's order of them */
	uint32_t *chunks;           /* eng_chunk_order's scratch */
	int rows;                   /* rows of this step's batch */
} mlp_dshard;

struct mlp_det {
	uint32_t S;
	uint64_t maxn;              /* the largest shard's examples (the engine's w->n) */
	mlp_dshard *sh;
	float *g;                   /* S x np: each shard's gradient of this step */
	float *sum;                 /* np: their weighted sum */
};

int mlp_det_check(hog_train_opts *o, const hog_data *tr, hog_err *err)
{
	if (o->shards == 0)
		o->shards = eng_det_shards(tr->n);
	if (o->shards < 1 || o->shards > 65536)
		return hog_err_set(err, HOG_ECONFIG, "--shards must be 1..65536, not %d", o->shards);
	if (o->mlp.batch_auto)
		return hog_err_set(err, HOG_ECONFIG, "--mode deterministic takes a fixed --batch, not auto");
	if (o->mlp.lars > 0)
		return hog_err_set(err, HOG_ECONFIG, "--mode deterministic does not take --lars yet");
	if (o->sync_every)
		return hog_err_set(err, HOG_ECONFIG, "--mode deterministic trains on one MPI rank: no --sync-every");
	if (o->flush_every)
		return hog_err_set(err, HOG_ECONFIG, "--flush-every: the mlp's deterministic mode steps once per "
		                   "--batch examples of every shard");
	o->round_examples = o->mlp.batch;
	return 0;
}

int mlp_det_setup(hog_engine *e, mlp_state *M)
{
	if (e->ranks > 1)
		return hog_err_set(e->err, HOG_ENOTSUP, "--mode deterministic trains on one MPI rank");
	struct mlp_det *det = calloc(1, sizeof *det);
	if (!det)
		return hog_err_set(e->err, ENOMEM, "out of memory");
	M->det = det;
	det->S = (uint32_t)e->o.shards;
	const uint64_t np = M->s.np;
	if (!(det->sh = calloc(det->S, sizeof *det->sh)) || !(det->g = malloc(det->S * np * sizeof *det->g)) ||
	    !(det->sum = malloc(np * sizeof *det->sum)))
		return hog_err_set(e->err, ENOMEM, "out of memory for %u shards' gradients of %llu weights", det->S,
		                   (unsigned long long)np);
	for (uint32_t s = 0; s < det->S; s++) {
		mlp_dshard *sh = &det->sh[s];
		uint64_t a, b;
		eng_share(e->tr->n, (int)s, (int)det->S, &a, &b);
		sh->n = b - a;
		det->maxn = sh->n > det->maxn ? sh->n : det->maxn;
		sh->items = malloc((sh->n + 1) * sizeof *sh->items);
		sh->order = malloc((sh->n + 1) * sizeof *sh->order);
		sh->chunks = malloc((eng_chunk_count(sh->n, e->o.shuffle_chunk) + 1) * sizeof *sh->chunks);
		if (!sh->items || !sh->order || !sh->chunks)
			return hog_err_set(e->err, ENOMEM, "out of memory");
		for (uint64_t i = 0; i < sh->n; i++)
			sh->items[i] = (uint32_t)(a + i);
	}
	return 0;
}

void mlp_det_free(mlp_state *M)
{
	struct mlp_det *det = M->det;
	if (!det)
		return;
	for (uint32_t s = 0; det->sh && s < det->S; s++) {
		free(det->sh[s].items);
		free(det->sh[s].order);
		free(det->sh[s].chunks);
	}
	free(det->sh);
	free(det->g);
	free(det->sum);
	free(det);
	M->det = NULL;
}

/* The worker reads the whole permutation (its shards' orders index it) and
 * goes through as many positions as the largest shard has examples. */
int mlp_det_worker_init(hog_engine *e, eng_worker *ew)
{
	const mlp_state *M = e->model;
	mlp_worker *w = ew->m;
	w->rows = M->perm;
	ew->n = M->det->maxn;
	return 0;
}

/* Each of the worker's shards' order for @p epoch, from (seed, epoch, shard). */
void mlp_det_epoch_order(hog_engine *e, eng_worker *ew, int epoch)
{
	const mlp_state *M = e->model;
	const struct mlp_det *det = M->det;
	for (uint32_t s = (uint32_t)ew->id; s < det->S; s += (uint32_t)e->T) {
		mlp_dshard *sh = &det->sh[s];
		if (e->o.no_shuffle) {
			memcpy(sh->order, sh->items, sh->n * sizeof *sh->order);
			continue;
		}
		uint64_t seed = e->o.seed ^ 0xDE7E5EEDull;
		seed = eng_mix64(&seed) ^ ((uint64_t)epoch << 24) ^ s;
		eng_chunk_order(sh->order, sh->items, sh->n, e->o.shuffle_chunk, eng_mix64(&seed), sh->chunks);
	}
}

/* Positions [from, to) of every shard of the worker: each shard's batch's
 * gradient at the round's weights into its buffer. Never stops inside a
 * round (a stop comes at the round's end, after the step). */
static uint64_t det_round(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to)
{
	(void)epoch;
	const mlp_state *M = e->model;
	const hog_mlp_shape *s = &M->s;
	const struct mlp_det *det = M->det;
	mlp_worker *w = ew->m;
	const uint64_t np = s->np;
	uint64_t done = 0, units = 0;
	double loss = 0, wsum = 0;
	/* the round's weights (the barrier after the last step orders these reads) */
	for (uint64_t k = 0; k < np; k++)
		w->hW[k] = ald(&M->P[k]);
	int rc = mlp_upload(w, w->W, w->hW, np * sizeof(float));
	for (uint32_t q = (uint32_t)ew->id; q < det->S && !rc; q += (uint32_t)e->T) {
		mlp_dshard *sh = &det->sh[q];
		const uint64_t hi = to < sh->n ? to : sh->n;
		sh->rows = hi > from ? (int)(hi - from) : 0;
		if (!sh->rows)
			continue;
		if ((rc = mlp_batch_grad(e, w, sh->order + from, sh->rows, 1, &loss, &wsum, &units)))
			break;
		done += (uint64_t)sh->rows;
		float *g = det->g + (size_t)q * np;
		if (!s->sparse) {
			memcpy(g, w->hG, np * sizeof *g);
			continue;
		}
		/* sparse: the rows of W_0 this batch touched (the others' gradient is zero), and every later weight */
		memset(g, 0, s->boff[0] * sizeof *g);
		for (uint32_t t = 0; t < w->ntouched; t++) {
			const uint64_t a = s->woff[0] + (uint64_t)w->touched[t] * s->n[1];
			memcpy(g + a, w->hG + a, s->n[1] * sizeof *g);
		}
		memcpy(g + s->boff[0], w->hG + s->boff[0], (np - s->boff[0]) * sizeof *g);
	}
	if (rc)
		eng_fail(e, rc, w->err.msg);
	ew->ex_done += done;
	ew->units_done += units;
	ew->loss += loss;
	ew->wdone += wsum;
	return to;
}

eng_round_fn mlp_det_round(const hog_engine *e)
{
	(void)e;
	return det_round;
}

#define DET_UPD(RK) upd(UM_PLAIN, RK, M->P + a, P + a, rs ? rs + a : NULL, rv ? rv + a : NULL, det->sum + a, z - a, &k)

/* The step (hog_trainer_ops.round_share): the worker's blocks of coordinates,
 * the shards' gradients summed in shard order, then the rule. */
int mlp_det_share(hog_engine *e, eng_worker *ew, int epoch)
{
	mlp_state *M = e->model;
	const struct mlp_det *det = M->det;
	if (!det)
		return 0;
	const uint64_t np = M->s.np, B = e->o.round_examples;
	int rows = 0;
	for (uint32_t q = 0; q < det->S; q++)
		rows += det->sh[q].rows;
	if (!rows || atomic_load(&e->action) == 3) /* (nothing to step, or a shard's gradient failed) */
		return 1;
	const uint64_t nb = (np + DET_BLOCK - 1) / DET_BLOCK;
	const uint64_t a = nb * (uint64_t)ew->id / (uint64_t)e->T * DET_BLOCK,
	               zb = nb * (uint64_t)(ew->id + 1) / (uint64_t)e->T * DET_BLOCK, z = zb < np ? zb : np;
	for (uint64_t c = a; c < z; c++)
		det->sum[c] = 0.0f;
	for (uint32_t q = 0; q < det->S; q++) {
		if (!det->sh[q].rows)
			continue;
		const float f = (float)det->sh[q].rows / (float)rows;
		const float *restrict g = det->g + (size_t)q * np;
		float *restrict sum = det->sum;
		for (uint64_t c = a; c < z; c++)
			sum[c] += f * g[c];
	}
	/* the step number (from 1) and the examples before it: every shard's positions are the round's */
	const uint64_t pos = ew->pos, steps = (pos + B - 1) / B;
	const double t = (double)epoch * (double)e->rounds + (double)steps;
	const float lr = eng_lr_at(e, epoch, (uint64_t)epoch * e->tr->n + (steps - 1) * B * det->S);
	step_k k = { .lr = lr, .l2 = M->l2, .mu = M->mu, .beta = M->beta, .b1 = (float)M->b1, .b2 = (float)M->b2,
	             .eps = M->eps };
	if (M->rk == RK_ADAM || M->rk == RK_ADAMW) {
		k.a1 = (float)(lr / (1.0 - pow(M->b1, t)));
		k.a2 = (float)(1.0 / sqrt(1.0 - pow(M->b2, t)));
		k.decay = 1.0f - lr * M->l2;
	}
	/* (the team is between barriers and each coordinate is this worker's alone: plain access) */
	float *P = (float *)M->P, *rs = M->state ? P + np : NULL, *rv = M->state > 1 ? P + 2 * np : NULL;
	if (a < z)
		switch (M->rk) {
		case RK_SGD: DET_UPD(RK_SGD); break;
		case RK_MOMENTUM: DET_UPD(RK_MOMENTUM); break;
		case RK_ADAGRAD: DET_UPD(RK_ADAGRAD); break;
		case RK_ADAM: DET_UPD(RK_ADAM); break;
		default: DET_UPD(RK_ADAMW); break;
		}
	return 1;
}
