/* The mf model's part of the training engine (engine.h): its trainer table
 * (its options' defaults, checks and hash are in mf_opts.c), the shared
 * factors and their initialization, each worker's shard, the rounds of its
 * kernel (mf_kernel.h) specialized per (mode, rule, biases) and picked once,
 * the grid mode's blocks (mf_grid.h), test evaluation, and the conversion to
 * and from a hog_model. The layout and the race are described in model/mf.h.
 *
 * Several MPI ranks (engine.h): users are dealt over the ranks (rank r trains
 * the ratings of users eng_share(users, r, ranks), in data order, split over
 * its workers as one rank's are), so a user's factors, bias and accumulators
 * are written by one rank only and stay there; the items' side (factors,
 * biases, accumulators: hog_mf_segments side 1) is what the ranks average at
 * every sync. mu is the whole training set's mean on every rank, never
 * trained. Each rank keeps zeros in the other ranks' users' rows, so that a sum
 * over the ranks (mf_gather) gives rank 0 the whole model before it writes; and
 * each rank evaluates the test ratings of its own users, the squared errors
 * summed over the ranks.
 * Deterministic mode (issue 25): the model after every epoch is a pure
 * function of the data, the options and the seed, the same bits for any
 * --threads. The ratings are cut into S x S blocks (S = --shards, default 16)
 * as grid mode cuts them (seeded bands of users and items, each block shuffled
 * once), and an epoch is S strata, in an order drawn from (seed, epoch): stratum
 * s holds the S blocks (r, (r + s) mod S), which share no user and no item, so
 * that running them at once on any number of workers writes what running them
 * one after another would (DSGD: Gemulla, Nijkamp, Haas & Sismanis, KDD 2011).
 * A worker takes the stratum's next block from a counter and runs it whole, in
 * its stored order, with the plain (grid) step; the team meets at the end of
 * every stratum, which orders one stratum's writes before the next's reads. The
 * step of a block's j-th rating is the schedule's at epoch n + s n / S + j S
 * (about where a serial run would be), never from a thread. A worker's position
 * in an epoch counts strata (round_examples 1): a stop comes at a stratum's end,
 * and a checkpoint's positions are the same on every worker, so that it resumes
 * at any thread count. Memory: the grid's copy of the ratings (12 bytes each)
 * and S x S block offsets, no replica. One MPI rank (refused on more).
 *
 * Initialization: factors uniform in [0, 1/sqrt(k)) (LIBMF's), each row from
 * its own splitmix64 stream of (seed, row), so it does not depend on threads,
 * and never exactly 0 (a row of zeros marks an unseen user or item);
 * biases 0; AdaGrad accumulators 1 (LIBMF's); rows of users and items with no
 * training rating all 0.
 */
#include "model/mf.h"
#include "sys/err.h"
#include "sys/mpi.h"
#include "train/engine.h"
#include "train/mf_grid.h"
#include "train/mf_kernel.h"
#include "train/mf_opts.h"
#include "train/mf_train.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MF_STOP_CHECK 1024u  /* examples between looks at the stop flag */
#define MF_LR_EVERY 64u      /* examples between step-size updates */
#define MF_AHEAD 4u          /* ratings ahead whose rows are prefetched */

/* Each round is compiled three times -- AVX-512, AVX2+FMA and the baseline the
 * Makefile builds for (x86-64-v2) -- and mf_round() picks one from the CPU's
 * features. Not target_clones: its ifunc resolvers run while the dynamic
 * loader relocates, before a sanitizer's runtime is up, and crash ASan and TSan
 * builds. fp-contract lets a*b+c become one FMA (ISO C mode turns it off). */
#ifdef __clang__ /* (the fuzzing build: clang contracts to FMA by default and has no optimize attribute) */
#define MF_FPC
#else
#define MF_FPC , optimize("fp-contract=fast")
#endif
#define MF_ISA_512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma") MF_FPC))
#define MF_ISA_256 __attribute__((target("avx2,fma") MF_FPC))
#define MF_ISA_128 __attribute__((target("sse2") MF_FPC))

static void *mf_aligned(uint64_t bytes)
{
	bytes = (bytes + 63) / 64 * 64;
	return aligned_alloc(64, bytes ? bytes : 64);
}

/* ------------------------------------------------------------------ setup */

static void mf_state_free(mf_state *st)
{
	if (!st)
		return;
	free(st->params);
	free(st->sh.ulock);
	free(st->sh.ilock);
	if (st->has_grid)
		hog_mf_grid_free(&st->grid);
	if (!st->gown) {
		free(st->gu);
		free(st->gi);
		free(st->gr);
	}
	free(st->gw);
	free(st->gstart);
	free(st->dperm);
	free(st->dnext);
	free(st->pred);
	free(st->mine);
	free(st->blk);
	free(st->bperm);
	free(st);
}

/* The factors' start, seeded: small positive values for every user and item
 * rated at least once (a row never rated stays 0 and predicts mu + biases);
 * AdaGrad's sums start at 1. */
static void mf_init_params(mf_state *st, uint64_t seed, const uint32_t *ucnt, const uint32_t *icnt)
{
	const hog_mf_layout *l = &st->l;
	float *P = st->params + l->P, *Q = st->params + l->Q;
	const float scale = (float)(1.0 / sqrt((double)l->k));
	for (int side = 0; side < 2; side++) {
		uint64_t rows = side ? l->items : l->users;
		const uint32_t *cnt = side ? icnt : ucnt;
		float *X = side ? Q : P;
		for (uint64_t r = 0; r < rows; r++) {
			if (!cnt[r])
				continue; /* never rated: stays 0, predicts mu + biases */
			uint64_t s = (seed * 2 + (uint64_t)side) * 0xD1B54A32D192ED03ull ^ r;
			for (uint64_t d = 0; d < l->k; d++)
				X[r * l->kp + d] = ((float)(eng_mix64(&s) >> 40) + 0.5f) * 0x1p-24f * scale; /* never 0 */
		}
	}
	if (l->adagrad) {
		for (uint64_t r = 0; r < l->users; r++)
			st->params[l->gu + r] = 1;
		for (uint64_t r = 0; r < l->items; r++)
			st->params[l->gi + r] = 1;
		if (l->biases) {
			for (uint64_t r = 0; r < l->users; r++)
				st->params[l->gbu + r] = 1;
			for (uint64_t r = 0; r < l->items; r++)
				st->params[l->gbi + r] = 1;
		}
	}
}

/* What the kernels read (mf_kernel.h's mf_shared): the parameters' places in
 * st->params and the constants of the run (st->mu set). */
static void mf_shared_init(mf_state *st, const hog_train_opts *o)
{
	const hog_mf_layout *l = &st->l;
	mf_shared *sh = &st->sh;
	sh->P = st->params + l->P;
	sh->Q = st->params + l->Q;
	float *nul = NULL;
	sh->bu = l->biases ? st->params + l->bu : nul;
	sh->bi = l->biases ? st->params + l->bi : nul;
	sh->gu = l->adagrad ? st->params + l->gu : nul;
	sh->gi = l->adagrad ? st->params + l->gi : nul;
	sh->gbu = l->adagrad && l->biases ? st->params + l->gbu : nul;
	sh->gbi = l->adagrad && l->biases ? st->params + l->gbi : nul;
	sh->k = l->k;
	sh->kp = l->kp;
	sh->mu = l->biases ? st->mu : 0; /* the kernel adds it only with biases */
	sh->l2 = (float)o->l2;
	sh->cb = o->mf.bias_step > 0 ? (float)o->mf.bias_step : 1.0f;
	sh->inv_k = 1.0f / (float)l->k;
	atomic_init(&st->glock.v, 0);
	sh->glock = &st->glock;
}

static int mf_setup(hog_engine *e)
{
	const hog_data *tr = e->tr;
	const hog_train_opts *o = &e->o;
	mf_state *st = calloc(1, sizeof *st);
	uint32_t *ucnt = NULL, *icnt = NULL;
	int rc = ENOMEM;
	if (!st)
		return hog_err_set(e->err, ENOMEM, "out of memory");
	const uint64_t shape[4] = { tr->meta.users, tr->meta.items, o->mf.rank, hog_mf_pad(o->mf.rank) };
	uint32_t flags = o->mf.biases ? HOG_MF_BIASES : 0;
	if (!hog_mf_layout_get(&st->l, shape, flags, o->rule)) {
		rc = hog_err_set(e->err, HOG_ECONFIG, "mf: %llu users x %llu items at rank %u is not a valid shape",
		                 (unsigned long long)shape[0], (unsigned long long)shape[1], o->mf.rank);
		goto fail;
	}
	const hog_mf_layout *l = &st->l;
	if (!(st->params = mf_aligned(l->total * sizeof(float))))
		goto nomem;
	memset(st->params, 0, l->total * sizeof(float));
	if (!(ucnt = calloc(l->users, sizeof *ucnt)) || !(icnt = calloc(l->items, sizeof *icnt)))
		goto nomem;
	double sum = 0, wsum = (double)tr->n; /* (weighted: sum w r over sum w, so that a rating of weight 2
	                                          counts as its duplicate) */
	if (e->store && e->ranks > 1) {
		rc = hog_err_set(e->err, HOG_ENOTSUP, "mf trains --stream on one MPI rank");
		goto fail;
	}
	if (e->store && (rc = mf_stream_scan(e, st, ucnt, icnt, &sum, &wsum)))
		goto fail;
	for (uint64_t j = 0; !e->store && j < tr->n; j++) {
		ucnt[tr->users[j]]++;
		icnt[tr->items[j]]++;
		sum += e->wts ? (double)e->wts[j] * tr->ratings[j] : tr->ratings[j];
	}
	if (!e->store && e->wts)
		wsum = e->weight_sum;
	mf_init_params(st, o->seed, ucnt, icnt);
	/* this rank's users and their ratings; the other users' rows are not this
	 * rank's to keep (mf_gather) */
	eng_share(l->users, e->rank, e->ranks, &st->ulo, &st->uhi);
	st->nmine = tr->n;
	if (e->ranks > 1) {
		st->nmine = hog_mf_rank_ratings(tr->users, tr->n, st->ulo, st->uhi, NULL);
		if (!(st->mine = malloc((st->nmine ? st->nmine : 1) * sizeof *st->mine)))
			goto nomem;
		hog_mf_rank_ratings(tr->users, tr->n, st->ulo, st->uhi, st->mine);
		hog_mf_zero_users_outside(l, st->params, st->ulo, st->uhi);
	}
	uint64_t top = 0;
	for (uint64_t r = 1; r < l->items; r++)
		if (icnt[r] > icnt[top])
			top = r;
	st->probe_at = top;

	st->mu = (float)(sum / wsum);
	mf_shared_init(st, o);
	if (o->mode == HOG_MODE_STRIPED) {
		mf_shared *sh = &st->sh;
		if (!(sh->ulock = calloc(l->users, sizeof *sh->ulock)) ||
		    !(sh->ilock = calloc(l->items, sizeof *sh->ilock)))
			goto nomem;
	}
	if (o->mode == HOG_MODE_GRID && (rc = mf_grid_setup(e, st)))
		goto fail;
	if (o->mode == HOG_MODE_DETERMINISTIC) {
		const uint32_t S = (uint32_t)o->shards;
		if (e->ranks > 1) {
			rc = hog_err_set(e->err, HOG_ENOTSUP, "--mode deterministic trains on one MPI rank");
			goto fail;
		}
		if (mf_grid_build(e, st, S) || !(st->dperm = malloc(S * sizeof *st->dperm)) ||
		    !(st->dnext = calloc(S, sizeof *st->dnext)))
			goto nomem;
	}
	if (e->te && e->te->n && !(st->pred = malloc(e->te->n * sizeof *st->pred)))
		goto nomem;
	free(ucnt);
	free(icnt);
	e->model = st;
	return 0;
nomem:
	rc = hog_err_set(e->err, ENOMEM, "mf: out of memory for %llu users x %llu items at rank %u",
	                 (unsigned long long)shape[0], (unsigned long long)shape[1], o->mf.rank);
fail:
	free(ucnt);
	free(icnt);
	mf_state_free(st);
	return rc;
}

static void mf_free(hog_engine *e)
{
	mf_state_free(e->model);
	e->model = NULL;
}

/* ---------------------------------------------------------------- workers */

static int mf_worker_init(hog_engine *e, eng_worker *w)
{
	mf_state *st = e->model;
	mf_worker *mw = calloc(1, sizeof *mw);
	if (!mw)
		return ENOMEM;
	w->m = mw;
	const uint64_t kp = st->l.kp;
	if (!(mw->cp = mf_aligned(kp * sizeof(float))) || !(mw->cq = mf_aligned(kp * sizeof(float))))
		return ENOMEM;
	memset(mw->cp, 0, kp * sizeof(float));
	memset(mw->cq, 0, kp * sizeof(float));
	if (e->store)
		return mf_stream_shard(e, w, mw);
	uint64_t lo, hi;
	eng_share(st->nmine, w->id, e->T, &lo, &hi); /* (the rank's ratings: eng_worker_share by users) */
	w->n = hi - lo; /* grid: the epoch's quota of ratings, from any block */
	if (e->o.mode == HOG_MODE_DETERMINISTIC)
		w->n = (uint64_t)e->o.shards; /* its positions are the epoch's strata */
	if (e->o.mode != HOG_MODE_GRID && e->o.mode != HOG_MODE_DETERMINISTIC) { /* (the blocks': no order) */
		if (!(w->order = malloc((w->n ? w->n : 1) * sizeof *w->order)))
			return ENOMEM;
		/* a copy on the worker's own node (first touch) */
		if (!(mw->recs = mf_aligned(w->n * sizeof *mw->recs)) ||
		    (e->wts && !(mw->wts = malloc((w->n ? w->n : 1) * sizeof *mw->wts))))
			return ENOMEM;
		const hog_data *tr = e->tr;
		for (uint64_t x = lo; x < hi; x++) {
			const uint64_t j = MF_RATING(st, x);
			mw->recs[x - lo] = (mf_rec){ tr->users[j], tr->items[j], tr->ratings[j] };
			if (mw->wts)
				mw->wts[x - lo] = e->wts[j];
		}
	}
	return 0;
}

static void mf_worker_free(hog_engine *e, eng_worker *w)
{
	(void)e;
	mf_worker *mw = w->m;
	if (mw) {
		mf_stream_worker_free(mw);
		free(mw->recs);
		free(mw->wts);
		free(mw->cp);
		free(mw->cq);
		free(mw);
	}
	w->m = NULL;
	free(w->order);
	w->order = NULL;
}

/* ----------------------------------------------------------------- rounds */

MF_INLINE void mf_prefetch_ui(const mf_shared *s, uint32_t u, uint32_t i, const int BIAS)
{
	const char *p = (const char *)(s->P + (uint64_t)u * s->kp);
	const char *q = (const char *)(s->Q + (uint64_t)i * s->kp);
	for (uint64_t b = 0; b < s->kp * sizeof(float); b += 64) {
		__builtin_prefetch(p + b);
		__builtin_prefetch(q + b);
	}
	if (BIAS) {
		__builtin_prefetch(&s->bu[u]);
		__builtin_prefetch(&s->bi[i]);
	}
}

MF_INLINE void mf_prefetch(const mf_shared *s, const mf_rec *x, const int BIAS)
{
	mf_prefetch_ui(s, x->u, x->i, BIAS);
}

/* Ratings [from, to) of the worker's shuffled order. */
MF_INLINE uint64_t mf_order_round(hog_engine *e, eng_worker *w, int epoch, uint64_t from, uint64_t to,
                                  const enum hog_mode MODE, const enum hog_rule RULE, const int BIAS)
{
	const mf_state *st = e->model;
	const mf_worker *mw = w->m;
	const mf_shared *s = &st->sh;
	const mf_rec *recs = mw->recs;
	const float *const wts = mw->wts; /* NULL: unweighted, every weight 1 */
	const uint32_t *ord = w->order; /* (--stream: a block's, from position order_at) */
	const uint64_t at = w->order_at;
	const int measure = e->o.measure_delay;
	const uint64_t T = (uint64_t)e->T * (uint64_t)e->ranks, base = (uint64_t)epoch * e->tr->n;
	double loss = 0, wsum = 0;
	uint64_t i = from;
	while (i < to && !eng_stop_requested(e)) {
		const uint64_t end = to - i > MF_STOP_CHECK ? i + MF_STOP_CHECK : to;
		while (i < end) {
			const float lr = eng_lr_at(e, epoch, base + i * T);
			const uint64_t end2 = end - i > MF_LR_EVERY ? i + MF_LR_EVERY : end;
			for (; i < end2; i++) {
				if (i + 4 * MF_AHEAD < to)
					__builtin_prefetch(&recs[ord[i + 4 * MF_AHEAD - at]]);
				if (i + MF_AHEAD < to)
					mf_prefetch(s, &recs[ord[i + MF_AHEAD - at]], BIAS);
				const mf_rec x = recs[ord[i - at]];
				const float wt = wts ? wts[ord[i - at]] : 1.0f;
				wsum += wt;
				const int sample = measure && (i & HOG_DELAY_SAMPLE_MASK) == 0;
				if (measure && (MODE == HOG_MODE_LOCKED || MODE == HOG_MODE_STRIPED)) {
					/* the count read once the rating's locks are held and this
					 * update counted before they go: the delay is what landed
					 * between its read and its write (none under one lock), not
					 * what it waited for at the lock. The plain step (grid's):
					 * the locks are already held. */
					mf_lock_rating(MODE, s, x.u, x.i);
					const uint64_t seen = sample ? eng_team_applied(e) : 0;
					loss += mf_update(HOG_MODE_GRID, RULE, BIAS, s, mw->cp, mw->cq, x.u, x.i, x.r, wt, lr);
					eng_count_applied(w);
					if (sample)
						eng_note_delay(w, eng_team_applied(e) - seen - 1);
					mf_unlock_rating(MODE, s, x.u, x.i);
					continue;
				}
				const uint64_t seen = sample ? eng_team_applied(e) : 0;
				loss += mf_update(MODE, RULE, BIAS, s, mw->cp, mw->cq, x.u, x.i, x.r, wt, lr);
				if (measure) {
					eng_count_applied(w);
					if (sample)
						eng_note_delay(w, eng_team_applied(e) - seen - 1);
				}
			}
		}
	}
	w->loss += loss;
	w->wdone += wsum;
	w->ex_done += i - from;
	w->units_done += i - from;
	return i;
}

/* Grid: ratings from the blocks the scheduler hands out until the worker has
 * done `to - from` more; a block is given back when the round's share is done,
 * the block's pass ends, or a stop is requested. */
MF_INLINE uint64_t mf_grid_round(hog_engine *e, eng_worker *w, int epoch, uint64_t from, uint64_t to,
                                 const enum hog_rule RULE, const int BIAS)
{
	mf_state *st = e->model;
	const mf_worker *mw = w->m;
	const mf_shared *s = &st->sh;
	const int measure = e->o.measure_delay;
	const uint64_t T = (uint64_t)e->T * (uint64_t)e->ranks, base = (uint64_t)epoch * e->tr->n;
	double loss = 0, wsum = 0;
	uint64_t pos = from;
	int stop = 0;
	while (pos < to && !stop) {
		uint64_t start, avail;
		int64_t b = hog_mf_grid_take(&st->grid, w->id, &start, &avail);
		if (b < 0) {
			if (eng_stop_requested(e))
				break;
			hog_cpu_relax();
			continue;
		}
		const uint64_t at = st->gstart[b] + start;
		const uint32_t *const bu = st->gu + at, *const bi = st->gi + at;
		const float *const br = st->gr + at, *const bw = st->gw ? st->gw + at : NULL; /* NULL: all 1 */
		const uint64_t want = avail < to - pos ? avail : to - pos;
		uint64_t j = 0;
		while (j < want) {
			if (eng_stop_requested(e)) {
				stop = 1;
				break;
			}
			const uint64_t end = want - j > MF_STOP_CHECK ? j + MF_STOP_CHECK : want;
			while (j < end) {
				const float lr = eng_lr_at(e, epoch, base + (pos + j) * T);
				const uint64_t end2 = end - j > MF_LR_EVERY ? j + MF_LR_EVERY : end;
				for (; j < end2; j++) {
					if (j + MF_AHEAD < want)
						mf_prefetch_ui(s, bu[j + MF_AHEAD], bi[j + MF_AHEAD], BIAS);
					const int sample = measure && ((pos + j) & HOG_DELAY_SAMPLE_MASK) == 0;
					const uint64_t seen = sample ? eng_team_applied(e) : 0;
					const float wt = bw ? bw[j] : 1.0f;
					wsum += wt;
					loss += mf_update(HOG_MODE_GRID, RULE, BIAS, s, mw->cp, mw->cq, bu[j], bi[j], br[j], wt,
					                  lr);
					if (measure) {
						eng_count_applied(w);
						if (sample)
							eng_note_delay(w, eng_team_applied(e) - seen - 1);
					}
				}
			}
		}
		hog_mf_grid_give(&st->grid, w->id, (uint64_t)b, j);
		pos += j;
	}
	w->loss += loss;
	w->wdone += wsum;
	w->ex_done += pos - from;
	w->units_done += pos - from;
	return pos;
}

/* Deterministic: strata [from, to) of the epoch (one a round), each the
 * stratum's blocks taken from its counter and run whole. Never stops inside a
 * stratum: a stop comes at the round's end. */
MF_INLINE uint64_t mf_det_round(hog_engine *e, eng_worker *w, int epoch, uint64_t from, uint64_t to,
                                const enum hog_rule RULE, const int BIAS)
{
	mf_state *st = e->model;
	const mf_worker *mw = w->m;
	const mf_shared *s = &st->sh;
	const uint64_t S = st->grid.G, n = e->tr->n;
	double loss = 0, wsum = 0;
	uint64_t done = 0;
	for (uint64_t f = from; f < to; f++) {
		const uint64_t shift = st->dperm[f];
		const uint64_t base = (uint64_t)epoch * n + (uint64_t)((unsigned __int128)f * n / S);
		uint32_t r;
		while ((r = atomic_fetch_add_explicit(&st->dnext[f], 1, memory_order_relaxed)) < S) {
			const uint64_t b = (uint64_t)r * S + (r + shift) % S;
			const uint64_t at = st->gstart[b], nb = st->gstart[b + 1] - at;
			const uint32_t *const bu = st->gu + at, *const bi = st->gi + at;
			const float *const br = st->gr + at, *const bw = st->gw ? st->gw + at : NULL; /* NULL: all 1 */
			for (uint64_t j = 0; j < nb;) {
				const float lr = eng_lr_at(e, epoch, base + j * S);
				const uint64_t end = nb - j > MF_LR_EVERY ? j + MF_LR_EVERY : nb;
				for (; j < end; j++) {
					if (j + MF_AHEAD < nb)
						mf_prefetch_ui(s, bu[j + MF_AHEAD], bi[j + MF_AHEAD], BIAS);
					const float wt = bw ? bw[j] : 1.0f;
					wsum += wt;
					loss += mf_update(HOG_MODE_GRID, RULE, BIAS, s, mw->cp, mw->cq, bu[j], bi[j], br[j], wt, lr);
				}
			}
			done += nb;
		}
	}
	w->loss += loss;
	w->wdone += wsum;
	w->ex_done += done;
	w->units_done += done;
	return to;
}

/* Deterministic: the strata's order of @p epoch, from (seed, epoch), and their
 * counters from 0 (thread 0, every worker done with the epoch before). */
static void mf_epoch_started(hog_engine *e, int epoch)
{
	mf_state *st = e->model;
	if (!st->dperm)
		return;
	const uint32_t S = st->grid.G;
	for (uint32_t k = 0; k < S; k++) {
		st->dperm[k] = k;
		atomic_store_explicit(&st->dnext[k], 0, memory_order_relaxed);
	}
	if (!e->o.no_shuffle) {
		uint64_t seed = e->o.seed ^ 0x6D66646574000000ull; /* "mfdet" */
		seed = eng_mix64(&seed) ^ (uint64_t)epoch;
		eng_shuffle_u32(st->dperm, S, eng_mix64(&seed));
	}
}

#define MF_DEF(ISA, M, R, B)                                                                          \
	static MF_ISA_##ISA uint64_t mf_round_##ISA##_##M##_##R##_##B(hog_engine *e, eng_worker *w, int epoch, \
	                                                             uint64_t from, uint64_t to)           \
	{                                                                                                 \
		return HOG_MODE_##M == HOG_MODE_GRID ? mf_grid_round(e, w, epoch, from, to, HOG_RULE_##R, B)  \
		       : HOG_MODE_##M == HOG_MODE_DETERMINISTIC                                               \
		           ? mf_det_round(e, w, epoch, from, to, HOG_RULE_##R, B)                             \
		           : mf_order_round(e, w, epoch, from, to, HOG_MODE_##M, HOG_RULE_##R, B);            \
	}
#define MF_DEF_RB(ISA, M) MF_DEF(ISA, M, SGD, 0) MF_DEF(ISA, M, SGD, 1) MF_DEF(ISA, M, ADAGRAD, 0) MF_DEF(ISA, M, ADAGRAD, 1)
#define MF_DEF_ISA(ISA) MF_DEF_RB(ISA, SERIAL) MF_DEF_RB(ISA, LOCKFREE) MF_DEF_RB(ISA, ATOMIC) \
	MF_DEF_RB(ISA, STRIPED) MF_DEF_RB(ISA, LOCKED) MF_DEF_RB(ISA, GRID) MF_DEF_RB(ISA, DETERMINISTIC)
MF_DEF_ISA(512)
MF_DEF_ISA(256)
MF_DEF_ISA(128)

#define MF_ROW(ISA, M)                                                                             \
	{ { mf_round_##ISA##_##M##_SGD_0, mf_round_##ISA##_##M##_SGD_1 },                              \
	  { mf_round_##ISA##_##M##_ADAGRAD_0, mf_round_##ISA##_##M##_ADAGRAD_1 } }
#define MF_TABLE(ISA)                                                                              \
	{ [HOG_MODE_SERIAL] = MF_ROW(ISA, SERIAL), [HOG_MODE_LOCKFREE] = MF_ROW(ISA, LOCKFREE),           \
	  [HOG_MODE_ATOMIC] = MF_ROW(ISA, ATOMIC), [HOG_MODE_STRIPED] = MF_ROW(ISA, STRIPED),             \
	  [HOG_MODE_LOCKED] = MF_ROW(ISA, LOCKED), [HOG_MODE_GRID] = MF_ROW(ISA, GRID),                 \
	  [HOG_MODE_DETERMINISTIC] = MF_ROW(ISA, DETERMINISTIC) }
static const eng_round_fn mf_rounds[3][HOG_MODE_ALL][2][2] = { MF_TABLE(128), MF_TABLE(256), MF_TABLE(512) };

/* 2: AVX-512, 1: AVX2 and FMA, 0: the baseline. */
static int mf_isa(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
		return 2;
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return 1;
	return 0;
}

eng_round_fn mf_memory_round(const hog_engine *e)
{
	const mf_state *st = e->model;
	return mf_rounds[mf_isa()][e->o.mode][e->o.rule == HOG_RULE_ADAGRAD][st->l.biases];
}

static eng_round_fn mf_round(const hog_engine *e)
{
	return e->store ? mf_stream_round : mf_memory_round(e);
}

/* --stream: the worker's blocks in this epoch's order. */
static void mf_epoch_begin(hog_engine *e, eng_worker *w, int epoch)
{
	if (e->store)
		eng_stream_epoch(&((mf_worker *)w->m)->st, e, w, epoch);
}

/* ------------------------------------------------------------- evaluation */

static float mf_probe(const hog_engine *e)
{
	const mf_state *st = e->model;
	const float *q = st->sh.Q + st->probe_at * st->l.kp;
	float s = 0;
	for (uint64_t d = 0; d < st->l.k; d++)
		s += mf_ald(q + d);
	if (st->l.biases)
		s += mf_ald(&st->sh.bi[st->probe_at]);
	return s;
}

/* Whether this rank evaluates test rating j: its user is the rank's (users
 * the training set does not have: rank 0's), so that each test rating is
 * counted on exactly one rank, the one holding its user's rows. */
static int mf_owns_test(const hog_engine *e, const mf_state *st, uint64_t j)
{
	const uint64_t u = e->te->users[j];
	return (u >= st->ulo && u < st->uhi) || (e->rank == 0 && u >= st->l.users);
}

static void mf_eval_slice(hog_engine *e, int k)
{
	mf_state *st = e->model;
	const hog_data *te = e->te;
	if (!te || !st->pred)
		return;
	uint64_t lo, hi;
	eng_share(te->n, k, e->T, &lo, &hi);
	for (uint64_t j = lo; j < hi; j++)
		if (mf_owns_test(e, st, j))
			st->pred[j] = hog_mf_predict_one(&st->l, st->params, st->mu, te->users[j], te->items[j]);
}

static void mf_epoch_stats(hog_engine *e, hog_epoch_stats *s)
{
	const mf_state *st = e->model;
	const hog_data *te = e->te;
	s->test_acc = s->test_auc = NAN;
	s->bias_lost = NAN;
	if (!te || !st->pred) {
		s->test_loss = s->test_rmse = s->test_mae = NAN;
		return;
	}
	double t[3] = { 0, 0, 0 }; /* squared and absolute errors, ratings */
	for (uint64_t j = 0; j < te->n; j++) {
		if (!mf_owns_test(e, st, j))
			continue;
		double d = (double)st->pred[j] - te->ratings[j];
		t[0] += d * d;
		t[1] += fabs(d);
		t[2]++;
	}
	hog_err err;
	int rc;
	if (e->ranks > 1 && (rc = hog_mpi_sum_f64(t, 3, &err))) /* the job's figures: every rank's users */
		eng_fail(e, rc, err.msg);
	const double n = t[2] > 0 ? t[2] : 1;
	s->test_loss = 0.5 * t[0] / n;
	s->test_rmse = sqrt(t[0] / n);
	s->test_mae = t[1] / n;
}

/* ------------------------------------------------------------ MPI ranks */

/* The items' side: factors, biases and their accumulators (model/mf.h). The
 * factors Q are a matrix of items x kp (the padded rank: the padding columns
 * stay zero, so a change's rank is at most --rank); the biases and AdaGrad's
 * sums are vectors (--compress powersgd sends them whole). */
static size_t mf_shared_params(hog_engine *e, eng_span *sp, size_t cap)
{
	mf_state *st = e->model;
	hog_mf_seg seg[4];
	int n = hog_mf_segments(&st->l, 1, seg);
	for (int s = 0; s < n && (size_t)s < cap; s++)
		sp[s] = (eng_span){ st->params + seg[s].at, seg[s].len, seg[s].at == st->l.Q ? seg[s].rows : 0,
		                    seg[s].at == st->l.Q ? seg[s].per_row : 0 };
	return (size_t)n;
}

/* Rank 0 gets every rank's users: each rank adds its own users' rows and
 * zeros elsewhere. Rank 0 zeros first the other users' rows it got last time
 * (it never trains them); the other ranks' buffers are left as they were. */
static int mf_gather(hog_engine *e)
{
	mf_state *st = e->model;
	hog_mf_seg seg[4];
	int n = hog_mf_segments(&st->l, 0, seg);
	if (e->rank == 0)
		hog_mf_zero_users_outside(&st->l, st->params, st->ulo, st->uhi);
	for (int s = 0; s < n; s++) {
		int rc = hog_mpi_sum_to_rank0_f32(st->params + seg[s].at, seg[s].len, &e->werr);
		if (rc)
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------ model conversion */

static hog_model *mf_snapshot(const hog_engine *e)
{
	const mf_state *st = e->model;
	const uint64_t shape[4] = { st->l.users, st->l.items, st->l.k, st->l.kp };
	hog_model *m = hog_model_alloc(HOG_MODEL_MF, HOG_LOSS_SQUARED, e->o.rule, shape,
	                               st->l.biases ? HOG_MF_BIASES : 0);
	if (!m)
		return NULL;
	memcpy(m->params, st->params, st->l.total * sizeof(float));
	m->aux = st->mu;
	eng_model_hyper(e, m);
	return m;
}

static int mf_restore(hog_engine *e, const hog_model *m)
{
	mf_state *st = e->model;
	if (m->kind != HOG_MODEL_MF)
		return hog_err_set(e->err, HOG_EMISMATCH, "the checkpoint holds a %s model, not mf",
		                   hog_model_kind_name(m->kind));
	const hog_mf_layout *l = &st->l;
	if (m->shape[0] != l->users || m->shape[1] != l->items || m->shape[2] != l->k ||
	    m->shape[3] != l->kp || ((m->flags & HOG_MF_BIASES) != 0) != l->biases ||
	    (m->rule == HOG_RULE_ADAGRAD) != l->adagrad || m->nparams != l->total)
		return hog_err_set(e->err, HOG_EMISMATCH,
		                   "the checkpoint's mf model (%llu users x %llu items, rank %llu%s, %s) does "
		                   "not fit this run (%llu x %llu, rank %llu%s, %s)",
		                   (unsigned long long)m->shape[0], (unsigned long long)m->shape[1],
		                   (unsigned long long)m->shape[2], (m->flags & HOG_MF_BIASES) ? ", biases" : "",
		                   hog_rule_name(m->rule), (unsigned long long)l->users,
		                   (unsigned long long)l->items, (unsigned long long)l->k,
		                   l->biases ? ", biases" : "", hog_rule_name(e->o.rule));
	memcpy(st->params, m->params, l->total * sizeof(float));
	if (e->ranks > 1) /* (a model file holds every user: keep this rank's own) */
		hog_mf_zero_users_outside(l, st->params, st->ulo, st->uhi);
	st->mu = (float)m->aux;
	st->sh.mu = st->l.biases ? st->mu : 0;
	return 0;
}

const hog_trainer_ops hog_mf_trainer = {
	.kind = HOG_MODEL_MF,
	.unit = "ratings",
	.weighs = 1, /* (example weights; --class-weight is refused: ratings have no classes) */
	.streams = 1, /* (mf_stream.c) */
	.rank_step = 1, /* (train.c says why) */
	.default_mode = mf_opts_default_mode,
	/* not buffered: an update touches one user row and one item row, there are
	 * no hot coordinates to keep per worker */
	.losses = 1u << HOG_LOSS_SQUARED, /* (the library's generic default, logistic, becomes squared) */
	.modes = 1u << HOG_MODE_SERIAL | 1u << HOG_MODE_LOCKFREE | 1u << HOG_MODE_ATOMIC | 1u << HOG_MODE_STRIPED |
	         1u << HOG_MODE_LOCKED | 1u << HOG_MODE_GRID | 1u << HOG_MODE_DETERMINISTIC,
	.opts_init = mf_opts_init,
	.opts_hash = mf_opts_hash,
	.opts_names = "--rank, --biases, --grid",
	.check = mf_opts_check,
	.setup = mf_setup,
	.worker_init = mf_worker_init,
	.worker_free = mf_worker_free,
	.round = mf_round,
	.epoch_begin = mf_epoch_begin,
	.epoch_started = mf_epoch_started,
	.probe = mf_probe,
	.eval_slice = mf_eval_slice,
	.epoch_stats = mf_epoch_stats,
	.shared_params = mf_shared_params,
	.gather = mf_gather,
	.snapshot = mf_snapshot,
	.restore = mf_restore,
	.free = mf_free,
};
