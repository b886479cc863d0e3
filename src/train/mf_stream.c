/* mf trained from a stream of blocks (hog_train_stream, --stream; issue 23):
 * the ratings are never loaded whole. Setup reads every block once for the
 * counts of users and items (which rows start non-zero) and the training mean;
 * the blocks are dealt to the workers (a seeded permutation of them, contiguous
 * shares of it; in data order with --no-shuffle), and each epoch a worker
 * visits its blocks in an order drawn from (seed, epoch, worker) and each
 * block's ratings in a shuffled order. A worker holds one decoded block at a
 * time (12 bytes a rating, and its weights) and runs the in-memory round of the
 * run's mode over it: the kernel is the one a loaded set trains with. With
 * --no-shuffle on one worker the visiting order is the data order, as in
 * memory, so a serial run streamed is the loaded one bit for bit.
 *
 * Modes: serial, lockfree, atomic, striped and locked. Grid and deterministic
 * need every rating in its block of the grid (mf_grid_build): refused by the
 * check; a streamed run's default mode is lockfree (mf_opts_default_mode).
 * One MPI rank (a rank's share of the users is cut from the loaded set). */
#include "sys/err.h"
#include "train/mf_train.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct mf_scan {
	mf_state *st;
	uint32_t *ucnt, *icnt;
	double sum, wsum;
};

/* A block's ratings into the counts of users and items and the weighted sum. */
static int mf_scan_block(hog_engine *e, const hog_block *k, uint64_t b, void *ctx)
{
	struct mf_scan *c = ctx;
	mf_state *st = c->st;
	st->blk_n = k->n > st->blk_n ? k->n : st->blk_n;
	for (uint32_t i = 0; i < k->n; i++) {
		if (k->users[i] >= st->l.users || k->items[i] >= st->l.items)
			return hog_err_set(e->err, HOG_ECORRUPT, "block %llu, rating %llu: user or item beyond the meta data's",
			                   (unsigned long long)b, (unsigned long long)(k->first + i));
		c->ucnt[k->users[i]]++;
		c->icnt[k->items[i]]++;
		const double w = eng_weight(e, k->weights ? k->weights[i] : 1.0f, k->ratings[i]);
		c->sum += w * k->ratings[i];
		c->wsum += w;
	}
	return 0;
}

int mf_stream_scan(hog_engine *e, mf_state *st, uint32_t *ucnt, uint32_t *icnt, double *sum, double *wsum)
{
	st->nb = e->tr->meta.blocks;
	if (!(st->blk = calloc(st->nb + 1, sizeof *st->blk)) || !(st->bperm = malloc((st->nb + 1) * sizeof *st->bperm)))
		return hog_err_set(e->err, ENOMEM, "out of memory for %llu blocks", (unsigned long long)st->nb);
	struct mf_scan c = { .st = st, .ucnt = ucnt, .icnt = icnt };
	int rc = eng_stream_scan(e, st->blk, st->nb, HOG_KIND_RATINGS, "ratings", mf_scan_block, &c);
	*sum = c.sum;
	*wsum = c.wsum;
	if (rc)
		return rc;
	eng_stream_deal(st->bperm, st->nb, &e->o);
	return 0;
}

int mf_stream_shard(hog_engine *e, eng_worker *w, mf_worker *mw)
{
	const mf_state *st = e->model;
	int rc = eng_stream_share(&mw->st, e, w, st->bperm, st->nb, st->blk);
	if (rc)
		return rc;
	const uint64_t cap = st->blk_n ? st->blk_n : 1;
	if (!(mw->recs = malloc(cap * sizeof *mw->recs)) || (e->weighted && !(mw->wts = malloc(cap * sizeof *mw->wts))))
		return ENOMEM;
	return 0;
}

/* The worker's block @p slot into its recs (and weights). */
static int stream_load(hog_engine *e, eng_worker *w, uint32_t slot)
{
	const mf_state *st = e->model;
	mf_worker *mw = w->m;
	const hog_block *b = &st->blk[mw->st.blk[slot]];
	hog_block dec;
	if (!(b = eng_stream_block(e, b, &dec, &mw->sbb)))
		return 1;
	for (uint32_t i = 0; i < b->n; i++) {
		mw->recs[i] = (mf_rec){ b->users[i], b->items[i], b->ratings[i] };
		if (mw->wts)
			mw->wts[i] = eng_weight(e, b->weights ? b->weights[i] : 1.0f, b->ratings[i]);
	}
	hog_store_release(e->store, b);
	return 0;
}

uint64_t mf_stream_round(hog_engine *e, eng_worker *w, int epoch, uint64_t from, uint64_t to)
{
	mf_worker *mw = w->m;
	return eng_stream_round(e, w, &mw->st, epoch, from, to, stream_load, mf_memory_round(e));
}

void mf_stream_worker_free(mf_worker *mw)
{
	eng_stream_free(&mw->st);
	hog_blockbuf_free(&mw->sbb);
}
