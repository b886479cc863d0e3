/* The linear trainer's shards (linear_train.h): each worker copies its share
 * of the examples into memory on its own NUMA node with ids renumbered (rows
 * sorted where a mode needs it) -- or, handed the data set
 * (hog_train_consume), rewrites its share in place and trains there; or, given
 * the store (--stream, the second part of this file), decodes one block at a
 * time.
 */
#include "sys/err.h"
#include "train/engine.h"
#include "train/linear_train.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sorts one row by internal id, carrying its values (rows are short: insertion). */
static void sort_row(uint32_t *ids, float *xs, uint64_t n)
{
	for (uint64_t i = 1; i < n; i++) {
		uint32_t id = ids[i];
		float x = xs ? xs[i] : 0;
		uint64_t j = i;
		for (; j > 0 && ids[j - 1] > id; j--) {
			ids[j] = ids[j - 1];
			if (xs)
				xs[j] = xs[j - 1];
		}
		ids[j] = id;
		if (xs)
			xs[j] = x;
	}
}

/* Moves the ids below @p hot (and their values) to the front of a row, keeping
 * the order within each part; tmp has room for 2n floats. */
static void hot_first(uint32_t *ids, float *xs, uint64_t n, uint32_t hot, float *tmp)
{
	uint32_t *cid = (uint32_t *)tmp;
	float *cx = tmp + n;
	uint64_t h = 0, c = 0;
	for (uint64_t j = 0; j < n; j++) {
		if (ids[j] < hot) {
			ids[h] = ids[j];
			if (xs)
				xs[h] = xs[j];
			h++;
		} else {
			cid[c] = ids[j];
			if (xs)
				cx[c] = xs[j];
			c++;
		}
	}
	memcpy(ids + h, cid, c * sizeof *ids);
	if (xs)
		memcpy(xs + h, cx, c * sizeof *xs);
}

/* The worker's shard arrays in one allocation on its node (the worker is
 * bound: first touch places it), each 64-byte aligned: rows rows of labels and
 * offsets, nnz ids (and values), and an order of norder entries. */
static int shard_alloc(hog_engine *e, eng_worker *ew, lin_worker *w, uint64_t rows, uint64_t nnz, int vals,
                       uint64_t norder)
{
	const int wts = e->weighted;
	size_t bytes = rows * 4 + (rows + 1) * 8 + nnz * 4 + (vals ? nnz * 4 : 0) + norder * 4 + (wts ? rows * 4 : 0) +
	               64 * 6;
	char *p = hog_topo_alloc_local(e->topo, bytes);
	if (!p)
		return ENOMEM;
	w->shard = p;
	w->shard_bytes = bytes;
#define TAKE(ptr, sz) do { ptr = (void *)p; p += ((sz) + 63) & ~(size_t)63; } while (0)
	TAKE(w->y, rows * 4);
	TAKE(w->off, (rows + 1) * 8);
	TAKE(w->ids, nnz * 4);
	if (vals)
		TAKE(w->xs, nnz * 4);
	if (norder) /* (--stream: eng_stream's, a block's) */
		TAKE(ew->order, norder * 4);
	if (wts)
		TAKE(w->wt, rows * 4);
#undef TAKE
	return 0;
}

/* hog_train_consume(): the worker's share stays where the data set holds it,
 * its rows rewritten in place as lin_build_shard() would copy them (the workers'
 * rows are disjoint: no two touch one). With @p rows NULL the share is the run
 * of rows from @p first (the set is in the deal's order, L->dealt): the arrays
 * are views from there and the engine visits 0..n-1, as in a copied shard,
 * with --shuffle-chunk's chunks consecutive in memory. Otherwise the engine
 * visits a shuffle of the rows' numbers (ew->rows), which makes the same swaps
 * as the shuffle of 0..n-1 that a copied shard gets: the same examples in the
 * same order, but a chunk is rows scattered over the set. What is lost either
 * way is a copy's placement on the worker's NUMA node (lin_setup copies the
 * shards where the workers span several nodes, when they fit). */
static int shard_in_place(hog_engine *e, eng_worker *ew, lin_worker *w, const uint32_t *rows, uint64_t first)
{
	const lin_state *L = e->model;
	hog_data *d = e->own;
	float *tmp = e->o.mode == HOG_MODE_BUFFERED ? malloc((w->nnz_max + 1) * 8) : NULL;
	if ((e->o.mode == HOG_MODE_BUFFERED && !tmp) || !(ew->order = malloc((ew->n ? ew->n : 1) * 4))) {
		free(tmp);
		return ENOMEM;
	}
	for (uint64_t i = 0; i < ew->n; i++) {
		const uint64_t r = rows ? rows[i] : first + i, lo = d->offsets[r], k = d->offsets[r + 1] - lo;
		uint32_t *ids = d->ids + lo;
		float *xs = d->vals ? d->vals + lo : NULL;
		for (uint64_t j = 0; j < k; j++) {
			ids[j] = L->map[ids[j]];
			if (xs && L->xscale)
				xs[j] = lin_value(L, ids[j], xs[j]);
		}
		if (e->o.mode == HOG_MODE_STRIPED)
			sort_row(ids, xs, k);
		else if (e->o.mode == HOG_MODE_BUFFERED)
			hot_first(ids, xs, k, L->ks.hot, tmp);
	}
	free(tmp);
	const uint64_t at = rows ? 0 : first;
	w->y = d->labels + at;
	w->wt = e->wts ? e->wts + at : NULL;
	w->off = d->offsets + at;
	w->ids = d->ids;
	w->xs = d->vals;
	ew->rows = rows;
	return 0;
}

/* Copies worker k's share of the examples into memory on its node (the worker
 * is bound: first touch places it), with ids renumbered. Rows keep their order
 * except where a mode needs another: striped sorts them (locks are taken in
 * order), buffered moves the hot coordinates to the front. Sorting every row
 * cost 40% of a one-epoch run, so the other modes skip it. */
int lin_build_shard(hog_engine *e, eng_worker *ew, lin_worker *w)
{
	const lin_state *L = e->model;
	uint64_t n0, n1;
	eng_worker_share(e, ew, e->tr->n, &n0, &n1); /* with MPI, this rank's slice */
	if (!(L->in_place && L->dealt))
		return lin_build_rows(e, ew, w, L->perm + n0, n1 - n0);
	const hog_data *d = e->tr;
	uint64_t nnz_max = 0;
	for (uint64_t r = n0; r < n1; r++)
		nnz_max = d->offsets[r + 1] - d->offsets[r] > nnz_max ? d->offsets[r + 1] - d->offsets[r] : nnz_max;
	ew->n = n1 - n0;
	w->nnz = d->offsets[n1] - d->offsets[n0];
	w->nnz_max = nnz_max;
	return shard_in_place(e, ew, w, NULL, n0);
}

/* The same for the @p n examples @p rows (deterministic mode: the worker's
 * logical shards, one after another). */
int lin_build_rows(hog_engine *e, eng_worker *ew, lin_worker *w, const uint32_t *rows, uint64_t n)
{
	const lin_state *L = e->model;
	const hog_data *d = e->tr;
	uint64_t nnz = 0, nnz_max = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = d->offsets[rows[i] + 1] - d->offsets[rows[i]];
		nnz += k;
		if (k > nnz_max)
			nnz_max = k;
	}
	ew->n = n;
	w->nnz = nnz;
	w->nnz_max = nnz_max;
	if (L->in_place)
		return shard_in_place(e, ew, w, rows, 0);
	int rc = shard_alloc(e, ew, w, n, nnz, d->vals != NULL, n);
	if (rc)
		return rc;
	float *tmp = e->o.mode == HOG_MODE_BUFFERED ? malloc((nnz_max + 1) * 8) : NULL; /* replica: all private */
	if (e->o.mode == HOG_MODE_BUFFERED && !tmp)
		return ENOMEM;
	w->off[0] = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t r = rows[i];
		uint64_t lo = d->offsets[r], k = d->offsets[r + 1] - lo, at = w->off[i];
		w->y[i] = d->labels[r];
		if (w->wt)
			w->wt[i] = e->wts[r];
		w->off[i + 1] = at + k;
		for (uint64_t j = 0; j < k; j++)
			w->ids[at + j] = L->map[d->ids[lo + j]];
		if (d->vals && L->xscale)
			for (uint64_t j = 0; j < k; j++)
				w->xs[at + j] = lin_value(L, w->ids[at + j], d->vals[lo + j]);
		else if (d->vals)
			memcpy(w->xs + at, d->vals + lo, k * sizeof(float));
		if (e->o.mode == HOG_MODE_STRIPED) /* stripes must be locked in order */
			sort_row(w->ids + at, d->vals ? w->xs + at : NULL, k);
		else if (e->o.mode == HOG_MODE_BUFFERED) /* the hot coordinates lead */
			hot_first(w->ids + at, d->vals ? w->xs + at : NULL, k, L->ks.hot, tmp);
	}
	free(tmp);
	return 0;
}

/* ------------------------------------------------------------ --stream
 *
 * hog_train_stream(): no hog_data, only the store's blocks. Setup reads every
 * block once (checksums, feature counts, the largest block) and keeps its view;
 * the blocks are dealt to the workers by a seeded shuffle. Each epoch a worker
 * visits its blocks in a shuffled order and each block's examples in a shuffled
 * order (lin_stream_order), so its epoch is a run of segments, one per block. A
 * round decodes the segment's block into the worker's arrays (ids renumbered,
 * values scaled, rows sorted as lin_build_shard() does) and runs the in-memory
 * round of this run's mode, rule and loss over it: the kernel is the same. The
 * block's pages then leave the resident set; the page cache keeps them while
 * memory allows, and reads them again from the file when it does not. */

struct lin_scan {
	lin_state *L;
	uint64_t *cnt;
	float *mx;
	double *sq;
	eng_moments y;              /* the labels' */
};

/* A block's sizes, and per feature its count, largest |x| and sum of x^2. */
static int lin_scan_block(hog_engine *e, const hog_block *k, uint64_t b, void *ctx)
{
	struct lin_scan *c = ctx;
	lin_state *L = c->L;
	(void)e;
	(void)b;
	L->svals |= k->vals != NULL;
	eng_moments_add(&c->y, k->labels, k->weights, k->n);
	L->blk_n = k->n > L->blk_n ? k->n : L->blk_n;
	L->blk_nnz = k->nnz > L->blk_nnz ? k->nnz : L->blk_nnz;
	for (uint32_t i = 0; i < k->n; i++) {
		uint64_t r = k->offsets[i + 1] - k->offsets[i];
		L->row_nnz = r > L->row_nnz ? r : L->row_nnz;
	}
	for (uint64_t j = 0; j < k->nnz; j++) {
		uint32_t v = k->ids[j];
		float x = k->vals ? k->vals[j] : 1.0f;
		c->cnt[v]++;
		c->mx[v] = fmaxf(c->mx[v], fabsf(x));
		c->sq[v] += (double)x * x;
	}
	return 0;
}

/* Every block once: its view, feature counts, the largest |x| and sum of x^2
 * per feature (the default step and --normalize's scales), the sizes the
 * workers' arrays need. Sets o.lr when it is 0, as check() does for a loaded set. */
int lin_stream_scan(hog_engine *e, lin_state *L, uint64_t *cnt, float **scales)
{
	const hog_meta *m = &e->tr->meta;
	L->nb = m->blocks;
	float *mx = calloc(L->dim + 1, sizeof *mx);
	double *sq = calloc(L->dim + 1, sizeof *sq);
	if (!mx || !sq || !(L->bperm = malloc((L->nb + 1) * sizeof *L->bperm))) {
		free(mx);
		free(sq);
		return hog_err_set(e->err, ENOMEM, "out of memory for %llu features", (unsigned long long)L->dim);
	}
	struct lin_scan c = { .L = L, .cnt = cnt, .mx = mx, .sq = sq };
	int rc = eng_stream_scan(e, L->blk, L->nb, HOG_KIND_SPARSE, "examples", lin_scan_block, &c);
	/* the scales of eng_feature_scales(), from the largest |x| */
	uint64_t changed = 0;
	if (!rc)
		eng_scales_from_max(mx, L->dim + 1, e->o.normalize, &changed, cnt, m->examples);
	if (!rc)
		eng_scales_settle(&e->o, changed, L->dim);
	double ysd = 0, ymean = eng_moments_mean(&c.y, &ysd);
	if (e->o.loss == HOG_LOSS_SQUARED) /* (lin_label_mean's, from the blocks) */
		L->bias0 = (float)ymean;
	else
		ysd = 0;
	if (!rc && e->o.lr == 0) {
		double t = 0;
		for (uint64_t v = 0; v < L->dim; v++)
			t += sq[v] * (double)mx[v] * mx[v];
		e->o.lr = lin_default_lr_of(e->o.rule, t / (double)(e->tr->n ? e->tr->n : 1), ysd);
	}
	free(sq);
	if (rc) {
		free(mx);
		return rc;
	}
	eng_stream_deal(L->bperm, L->nb, &e->o);
	*scales = mx;
	return 0;
}

/* The worker's blocks (eng_stream) and arrays sized for the largest block. */
int lin_stream_shard(hog_engine *e, eng_worker *ew, lin_worker *w)
{
	const lin_state *L = e->model;
	int rc = eng_stream_share(&w->st, e, ew, L->bperm, L->nb, L->blk); /* (with MPI, this rank's blocks) */
	if (rc)
		return rc;
	w->nnz_max = L->row_nnz;
	if (e->o.mode == HOG_MODE_BUFFERED && !(w->stmp = malloc((w->nnz_max + 1) * 8)))
		return ENOMEM;
	return shard_alloc(e, ew, w, L->blk_n, L->blk_nnz, L->svals, 0);
}

/* Decodes the worker's block @p slot into its arrays, as lin_build_shard() copies rows. */
static int stream_load(hog_engine *e, eng_worker *ew, uint32_t slot)
{
	const lin_state *L = e->model;
	lin_worker *w = ew->m;
	const hog_block *b = &L->blk[w->st.blk[slot]];
	hog_block dec;
	if (!(b = eng_stream_block(e, b, &dec, &w->sbb)))
		return 1;
	const int binary = e->tr->meta.task == HOG_TASK_BINARY;
	float *tmp = w->stmp;
	w->off[0] = 0;
	for (uint32_t i = 0; i < b->n; i++) {
		uint64_t lo = b->offsets[i], k = b->offsets[i + 1] - lo;
		w->y[i] = binary ? (b->labels[i] > 0 ? 1.0f : -1.0f) : b->labels[i];
		if (w->wt)
			w->wt[i] = eng_weight(e, b->weights ? b->weights[i] : 1.0f, b->labels[i]);
		w->off[i + 1] = b->offsets[i + 1];
		uint32_t *ids = w->ids + lo;
		float *xs = w->xs ? w->xs + lo : NULL;
		for (uint64_t j = 0; j < k; j++) {
			ids[j] = L->map[b->ids[lo + j]];
			if (xs)
				xs[j] = (b->vals ? b->vals[lo + j] : 1.0f) * (L->xscale ? L->xscale[ids[j]] : 1.0f);
		}
		if (e->o.mode == HOG_MODE_STRIPED)
			sort_row(ids, xs, k);
		else if (e->o.mode == HOG_MODE_BUFFERED)
			hot_first(ids, xs, k, L->ks.hot, tmp);
	}
	hog_store_release(e->store, b);
	return 0;
}

uint64_t lin_round_stream(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to)
{
	lin_worker *w = ew->m;
	return eng_stream_round(e, ew, &w->st, epoch, from, to, stream_load, lin_in_memory_round(e));
}
