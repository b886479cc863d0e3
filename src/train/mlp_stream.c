/* The mlp (and softmax regression) trained from a stream of blocks
 * (hog_train_stream, --stream; issue 23): the set is never loaded whole.
 * Setup reads every block once for what a loaded run takes from the whole set
 * (the --normalize scales from the largest |x| of each input, the default
 * step's mean squared norm, the longest sparse row, the sum of the weights);
 * the blocks are dealt and visited as every model's are (stream.c,
 * eng_stream), in mini-batches that end at a block's end. A worker holds one decoded block (its view: a hog_data of the
 * block's examples in the worker's arrays) and runs the in-memory round over
 * it, whose batches read the view instead of the training set. With
 * --no-shuffle on one worker and blocks a multiple of --batch long, the
 * batches are the loaded run's, and so is the model, bit for bit.
 *
 * Modes: lockfree, buffered, locked and serial; deterministic deals examples
 * to its shards and needs them loaded (refused by the check). One MPI rank. */
#include "sys/err.h"
#include "train/mlp_train.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mlp_scan {
	mlp_state *M;
	int dense, pass;
	uint64_t D;
	float *mx;   /* pass 0: the largest |x| of each input */
	uint64_t *cnt; /* pass 0: each input's nonzero values (auto's small columns, scale.c) */
	double sq;   /* pass 1: the sum of the squared scaled values */
	double wsum; /* pass 0: the examples' effective weights */
};

/* Pass 0: a block's sizes, each input's largest |x| and the weights; pass 1:
 * its squared values at the scales (M->xscale) pass 0 settled. */
static int mlp_scan_block(hog_engine *e, const hog_block *k, uint64_t b, void *ctx)
{
	struct mlp_scan *c = ctx;
	mlp_state *M = c->M;
	const uint64_t D = c->D;
	const float *sc = c->pass == 1 && M->xscale ? M->xscale : NULL;
	(void)b;
	if (c->dense) {
		for (uint64_t q = 0; q < (uint64_t)k->n * D; q++) {
			const float x = k->xu8 ? (float)k->xu8[q] * k->scale : k->xf[q];
			if (c->pass == 0) {
				c->mx[q % D] = fmaxf(c->mx[q % D], fabsf(x));
				c->cnt[q % D] += x != 0.0f;
			} else {
				const double y = (double)x * (sc ? sc[q % D] : 1.0f);
				c->sq += y * y;
			}
		}
	} else {
		for (uint64_t q = 0; q < k->nnz; q++) {
			const float x = k->vals ? k->vals[q] : 1.0f;
			if (c->pass == 0) {
				c->mx[k->ids[q]] = fmaxf(c->mx[k->ids[q]], fabsf(x));
				c->cnt[k->ids[q]] += x != 0.0f;
			} else {
				const double y = (double)x * (sc ? sc[k->ids[q]] : 1.0f);
				c->sq += y * y;
			}
		}
	}
	if (c->pass == 0) {
		M->blk_n = k->n > M->blk_n ? k->n : M->blk_n;
		M->blk_nnz = k->nnz > M->blk_nnz ? k->nnz : M->blk_nnz;
		M->svals |= k->vals != NULL;
		for (uint32_t i = 0; !c->dense && i < k->n; i++) {
			const uint32_t nz = k->offsets[i + 1] - k->offsets[i];
			M->max_row = nz > M->max_row ? nz : M->max_row;
		}
		for (uint32_t i = 0; e->weighted && i < k->n; i++)
			c->wsum += eng_weight(e, k->weights ? k->weights[i] : 1.0f, k->labels[i]);
	}
	return 0;
}

int mlp_stream_scan(hog_engine *e, mlp_state *M)
{
	const hog_data *tr = e->tr;
	hog_train_opts *o = &e->o;
	const int dense = tr->meta.kind == HOG_KIND_DENSE;
	const uint64_t D = tr->dim;
	if (e->ranks > 1)
		return hog_err_set(e->err, HOG_ENOTSUP, "the mlp trains --stream on one MPI rank");
	M->nb = tr->meta.blocks;
	float *mx = calloc(D + 1, sizeof *mx);
	uint64_t *cnt = calloc(D + 1, sizeof *cnt);
	if (!mx || !cnt || !(M->blk = calloc(M->nb + 1, sizeof *M->blk)) ||
	    !(M->bperm = malloc((M->nb + 1) * sizeof *M->bperm))) {
		free(mx);
		free(cnt);
		return hog_err_set(e->err, ENOMEM, "out of memory for %llu inputs", (unsigned long long)D);
	}
	struct mlp_scan c = { .M = M, .dense = dense, .D = D, .mx = mx, .cnt = cnt };
	int rc = 0;
	/* two passes: the scales (from every block), then the squared norms at those scales */
	for (int pass = 0; pass < 2 && !rc; pass++) {
		const int need_sq = pass == 1 && o->lr == 0 && !o->mlp.nlayers && o->rule == HOG_RULE_SGD;
		if (pass == 1 && !need_sq)
			break;
		c.pass = pass;
		c.sq = 0;
		rc = eng_stream_scan(e, M->blk, M->nb, tr->meta.kind, "examples", mlp_scan_block, &c);
		double sq = c.sq;
		if (!rc && pass == 0 && M->s.L > 1)
			mlp_unseen_inputs(M, c.cnt); /* (as a loaded set's) */
		if (!rc && pass == 0 && o->normalize) { /* eng_feature_scales()'s, from the largest |x| (a value
		                                          of 1 where a block has none: a loaded set's) */
			uint64_t changed = 0;
			eng_scales_from_max(mx, D + 1, o->normalize, &changed, c.cnt, tr->meta.examples);
			eng_scales_settle(o, changed, D);
			if (o->normalize) {
				M->xscale = mx;
				mx = c.mx = NULL;
			}
		}
		if (!rc && pass == 1 && !dense && !M->svals)
			sq = (double)tr->nnz; /* (as a loaded binary set's: every value 1, unscaled) */
		if (!rc && need_sq)
			o->lr = mlp_default_lr_of(o, sq, tr->n);
	}
	free(mx);
	free(cnt);
	if (rc)
		return rc;
	if (o->lr == 0)
		o->lr = mlp_default_lr_of(o, 0, tr->n);
	if (e->weighted)
		e->weight_sum = c.wsum;
	if (M->s.sparse && e->te)
		for (uint64_t i = 0; i < e->te->n; i++) {
			const uint64_t nz = e->te->offsets[i + 1] - e->te->offsets[i];
			M->max_row = nz > M->max_row ? (uint32_t)nz : M->max_row;
		}
	eng_stream_deal(M->bperm, M->nb, o);
	return 0;
}

int mlp_stream_shard(hog_engine *e, eng_worker *ew, mlp_worker *w)
{
	const mlp_state *M = e->model;
	const hog_data *tr = e->tr;
	int rc = eng_stream_share(&w->st, e, ew, M->bperm, M->nb, M->blk);
	if (rc)
		return rc;
	hog_data *v = &w->view;
	const uint64_t cap = M->blk_n ? M->blk_n : 1, nz = M->blk_nnz ? M->blk_nnz : 1;
	v->meta = tr->meta;
	v->dim = tr->dim;
	if (!(v->labels = malloc(cap * sizeof *v->labels)) || (e->weighted && !(v->weights = malloc(cap * sizeof(float)))))
		return ENOMEM;
	if (tr->meta.kind == HOG_KIND_DENSE)
		return (v->x = malloc(cap * tr->dim * sizeof *v->x)) ? 0 : ENOMEM;
	if (!(v->offsets = malloc((cap + 1) * sizeof *v->offsets)) || !(v->ids = malloc(nz * sizeof *v->ids)) ||
	    (M->svals && !(v->vals = malloc(nz * sizeof *v->vals))))
		return ENOMEM;
	return 0;
}

/* The worker's block @p slot into its view, as hog_data_load() loads a set
 * (binary labels -1/+1, byte rows scaled to floats), with the run's weights. */
int mlp_stream_load(hog_engine *e, eng_worker *ew, uint32_t slot)
{
	const mlp_state *M = e->model;
	mlp_worker *w = ew->m;
	const hog_block *b = &M->blk[w->st.blk[slot]];
	hog_block dec;
	if (!(b = eng_stream_block(e, b, &dec, &w->sbb)))
		return 1;
	hog_data *v = &w->view;
	const int binary = v->meta.task == HOG_TASK_BINARY;
	v->n = b->n;
	for (uint32_t i = 0; i < b->n; i++) {
		v->labels[i] = binary ? (b->labels[i] > 0 ? 1.0f : -1.0f) : b->labels[i];
		if (v->weights)
			v->weights[i] = eng_weight(e, b->weights ? b->weights[i] : 1.0f, b->labels[i]);
	}
	if (v->x) {
		const uint64_t m = (uint64_t)b->n * v->dim;
		for (uint64_t q = 0; q < m; q++)
			v->x[q] = b->xu8 ? (float)b->xu8[q] * b->scale : b->xf[q];
	} else {
		for (uint32_t i = 0; i <= b->n; i++)
			v->offsets[i] = b->offsets[i];
		v->nnz = b->nnz;
		memcpy(v->ids, b->ids, b->nnz * sizeof *v->ids);
		for (uint64_t q = 0; v->vals && q < b->nnz; q++)
			v->vals[q] = b->vals ? b->vals[q] : 1.0f;
	}
	hog_store_release(e->store, b);
	return 0;
}

void mlp_stream_worker_free(mlp_worker *w)
{
	hog_data *v = &w->view;
	free(v->labels);
	free(v->weights);
	free(v->x);
	free(v->offsets);
	free(v->ids);
	free(v->vals);
	eng_stream_free(&w->st);
	hog_blockbuf_free(&w->sbb);
	memset(v, 0, sizeof *v);
}
