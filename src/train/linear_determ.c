/* The linear model's deterministic mode (issue 25): the model after every
 * epoch is a pure function of the data, the options and the seed -- the same
 * bits from run to run and for any --threads, with the same --shards.
 *
 * The examples are dealt once (the seeded permutation every mode uses) to S
 * logical shards, shard s the s-th slice of it (eng_share(n, s, S)). Each epoch
 * shard s visits its slice in an order drawn from (seed, epoch, s), never from
 * a thread. An epoch is rounds of K examples per shard (--flush-every K; the
 * engine's round_examples is K and its position a shard's position): in each
 * round every shard runs its next K examples serially, from the round's model,
 * on a private copy; at the round's end what the shards changed is added to
 * the shared model, each coordinate by one thread, in an order fixed by the
 * shards alone. Two ways to gather the changes (lin_det_setup picks one from
 * the model's width, never from T; hog_linear_opts.det_dense forces one):
 *   - the sums (linear_dsum.c), for narrow models: each thread sums its
 *     shards' changes over the whole copy in a fixed binary tree of the
 *     shards, and the merge adds the threads' nodes up the same tree -- no
 *     per-nonzero bookkeeping in the kernel, one pass over the copy a shard;
 *   - the lists (here), for wide ones: each shard lists the coordinates it
 *     changed (the kernel notes every nonzero it touches), with their
 *     changes, and the merge adds them one shard after another (each
 *     coordinate by one thread: its bucket, id mod 64, dealt to the threads).
 * The two apply the same rule and agree to rounding, not bit for bit.
 *
 * The merge's rule. With SGD a feature's deltas are summed, each times the
 * feature's factor (L->share, det_shares in linear_setup.c): the blend
 * f = (1 - e^-Sa) / (S (1 - e^-a)), a = K p lr h x2 (p the share of rows
 * holding it, x2 its mean squared value, h the loss's curvature, 1/4 for
 * logistic), which makes S shards' K touches correct a coordinate's own error
 * as much as S K serial touches would: a rare feature's changes (a -> 0) are
 * summed whole, a saturated one's (a large) averaged. Features are not
 * independent, though: their common direction, the mean row m (the bias 1,
 * a feature its mean value), is corrected by every shard alike, and gets S
 * times the m^2-weighted mean of the factors (the bias's 1/S); where that
 * passes 1.5 (LIN_MERGE_CMAX: the merges are made at once) every
 * feature's factor is scaled down to bring it there. The bias: the mean of
 * the changes of the shards that changed it (each shard corrects it whole). AdaGrad and AdaRevision:
 * a feature's changes summed times the same blend, but with a coordinate's
 * own step, lr / (beta + sqrt(G)) at the round's accumulator G (det_blend:
 * a shrinks as the coordinate is touched); the step rule's sums (components
 * 1..) summed. Their common direction is capped at each merge, from the
 * round's steps (det_common, linear_determ.h): the features the shards
 * changed move the mean row by the mean of their factors weighted by m^2 eta
 * (eta = 1 / (beta + sqrt(G)), the bias's 1/S among them), held to
 * LIN_DET_ACMAX (3.5) times the blend the direction would have alone, at
 * a = K h lr (eta_bias + sum m^2 eta): the merge needs every worker's part of
 * these sums, so it makes two passes with a barrier between. Each weight's
 * mean over the shards that changed it, the rule before, moved a frequent
 * feature by one shard's change a round: test loss 0.611 against serial's
 * 0.323 on the RCV1-shaped set after 5 epochs, 0.322 now; 2 M features 0.662
 * and 0.449 against 0.449; Zipf 0.319 against 0.250. The blend without the
 * cap left a9a, whose rows share their frequent features, swinging at its
 * second epoch (0.359 after 5 against serial's 0.324; 0.325 with it), and
 * sets like it behind serial (a Zipf 1.5 binary set of 5,000 features 0.266
 * against 0.246; 0.255); where nothing shares its features that much
 * (the RCV1-shaped set, 2 M features) the cap never binds
 * (bench/results/det-loss.md). The factors come from the data, the options,
 * S and the round's model, never from T.
 *
 * Why. The mean for every coordinate (the rule before) divided a frequent
 * feature's progress by up to S: on the RCV1-shaped set (data gen --seed 1,
 * 90/10), 10 epochs at the defaults, test loss 0.2775 against serial's
 * 0.2548. The plain sum diverged on a9a in its first epoch (16 shards' whole
 * steps). Replica's per-feature cap (lin_merge_share with T = S) fixed the
 * RCV1-shaped set (0.2548) but overshot the common direction of sets whose
 * rows share frequent features: a dense-ish set (300 features, 60 nonzeros a
 * row) 0.43 against serial's 0.227 and the mean's 0.266, a Zipf 0.8 binary
 * set 0.52 against 0.267 and 0.294. The blend alone: 0.2277 and 0.332 (S
 * times the mean row's factors 2.4 on the Zipf set); with the common
 * direction capped (this rule), test loss over seeds 1-3 (serial / mean /
 * this): RCV1-shaped 0.2549 / 0.2775 / 0.2548, a9a 0.3244 / 0.3240 / 0.3246,
 * dense-ish 0.2273 / 0.2660 / 0.2281, Zipf 0.2667 / 0.2939 / 0.2584, a skewed
 * binary set (Zipf 1.5, 5000 features) 0.2499 / 0.2470 / 0.2490; at 64 shards
 * the dense-ish and Zipf sets 0.256 and 0.274 against the mean's 0.380 and
 * 0.371 (bench/results/deterministic-merge.md). With --l1, a weight some
 * shard's threshold zeroed moves from the round's value at most to zero, not
 * across it (kernel.h, l1_hand_up). A shard "changed" a coordinate where its
 * copy's bits differ from the round's model's; a touch that changed nothing
 * counts for nothing.
 *
 * Thread t runs a run of shards (eng_share(S, t, T)) one after another, each
 * on the thread's one dense copy of the model (taken from the shared model at
 * the round's start, put back after each shard). Nothing
 * a shard computes depends on which thread runs it or when, and the merge's
 * order is fixed: so the model does not depend on T. The step size of a shard
 * at position i is the schedule's at epoch * n + i * S examples.
 *
 * The kernel is replica's (kernel.h, process_example) on the private copy --
 * AdaRevision's lockfree's, on the copy, whose delayed-gradient term is then
 * zero, as in a serial run -- so every rule the linear model takes (sgd,
 * adagrad, adarevision) and --l1 work unchanged.
 *
 * Memory, beyond the data: per thread one copy of the model (D x stride
 * floats). The sums: per thread at most 2 log2 S + 1 nodes of D x np floats
 * (np: the stride, and a count each with AdaGrad, AdaRevision and --l1) --
 * with the default 16 shards and SGD at most 9 x 4D bytes a thread, 4 x 4D
 * when one thread runs them all (nodes [0, 8), [8, 12), [12, 14), [14, 15)
 * held at once). The lists: per
 * thread a bit per coordinate, a list of the touched ones (D words) and their
 * values in the round's model (D x stride floats, of which a round writes
 * only what its shard touches: the pages beyond are never used); per shard
 * its delta, one id and stride floats per coordinate its K examples
 * changed: at most min(D, K x longest row + 1) entries, grown on demand and
 * kept between rounds. AdaGrad and AdaRevision: per feature its a's part and
 * m^2 (8 bytes), and with the sums per thread its run of the root's sums
 * (D x np / T floats) between the merge's passes.
 *
 * --average: the model held during a round counts as the iterate of each of
 * its examples; at the merge each changed coordinate's sum takes in its change
 * at the clock of the round's end (kernel.h, avg_add: one worker merges each
 * coordinate, so nothing races and the sums serve as serial's do): the suffix
 * average at round granularity, also a pure function of the options (a
 * coordinate's changes are added in round and shard order whatever the thread
 * count).
 *
 * Not with: --delay, --stream, several MPI ranks (refused). The reported epoch loss is summed per thread, so its
 * last digits may change with T; the model does not.
 */
#include "sys/err.h"
#include "train/engine.h"
#include "train/kernel.h"
#include "train/linear_determ.h"
#include "train/linear_train.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The options deterministic mode takes (check()); fills --shards' default (16)
 * and the round: --flush-every K examples per shard, by default 1024 or a
 * quarter of a shard's epoch when that is less (replica mode's cap). */
int lin_det_check(hog_train_opts *o, const hog_data *tr, hog_err *err)
{
	if (o->shards == 0)
		o->shards = eng_det_shards(tr->n);
	if (o->shards < 1 || o->shards > 65536)
		return hog_err_set(err, HOG_ECONFIG, "--shards must be 1..65536, not %d", o->shards);
	if (o->delay)
		return hog_err_set(err, HOG_ECONFIG, "--mode deterministic does not take --delay");
	if (tr->nnz && !tr->ids)
		return hog_err_set(err, HOG_ECONFIG, "--mode deterministic trains a loaded set, not --stream");
	if (o->sync_every)
		return hog_err_set(err, HOG_ECONFIG, "--mode deterministic trains on one MPI rank: no --sync-every");
	if (tr->dim >= DET_L1_ZEROED - 1)
		return hog_err_set(err, HOG_EMISMATCH, "--mode deterministic takes up to 2^31 - 2 features");
	const uint64_t q = tr->n / (uint64_t)o->shards / 4;
	o->round_examples = o->flush_every ? (uint32_t)o->flush_every : q >= 1024 ? 1024 : q < 8 ? 8 : (uint32_t)q;
	return 0;
}

int lin_det_setup(hog_engine *e, lin_state *L)
{
	if (e->ranks > 1)
		return hog_err_set(e->err, HOG_ENOTSUP, "--mode deterministic trains on one MPI rank");
	struct lin_det *det = calloc(1, sizeof *det);
	if (!det)
		return hog_err_set(e->err, ENOMEM, "out of memory");
	L->det = det;
	det->S = (uint32_t)e->o.shards;
	/* sums where a pass over the model costs less than listing a round's
	 * nonzeros (a store, a byte and a count each, then the list's own pass):
	 * D x np <= 4 x a shard's round of nonzeros; and the worker's nodes (at
	 * most 2 log2 S + 1 at once) within 1 GiB */
	det->np = L->S + (L->share == NULL) + (L->l1 != NULL);
	const double width = (double)L->D * det->np, n = e->tr->n ? (double)e->tr->n : 1,
	             round_nnz = (double)e->o.round_examples * ((double)e->tr->nnz / n) + 1;
	det->sums = e->o.linear.det_dense > 0 || (e->o.linear.det_dense == 0 && width <= 4 * round_nnz &&
	                                          width * 4 * (2 * det_depth(det->S) + 1) <= 1073741824.0);
	if (!(det->sh = calloc(det->S, sizeof *det->sh)) || !(det->work = calloc((size_t)e->T, sizeof *det->work)) ||
	    (!det->sums && !(det->cnt = calloc(L->D, sizeof *det->cnt))) ||
	    (!det->sums && L->l1 && !(det->p0 = malloc(L->D * sizeof *det->p0))) ||
	    (!det->sums && L->det_a0 && !(det->fb = malloc(L->D * sizeof *det->fb))))
		return hog_err_set(e->err, ENOMEM, "out of memory");
	for (uint64_t i = 0; det->fb && i < L->D; i++)
		det->fb[i] = -1.0f; /* (lin_det_share: no factor taken yet) */
	if (L->det_a0) { /* the common direction's sums by part (det_common) */
		det->nparts = det->sums ? (uint32_t)((L->D + DET_BLK - 1) / DET_BLK) : DET_BUCKETS;
		if (!(det->cw = calloc(det->nparts, sizeof *det->cw)) || !(det->cz = calloc(det->nparts, sizeof *det->cz)))
			return hog_err_set(e->err, ENOMEM, "out of memory");
		det->ca = (double)e->o.round_examples * (e->o.loss == HOG_LOSS_SQUARED ? 1.0 : 0.25) * e->o.lr * e->lr_factor;
	}
	for (uint32_t s = 0; s < det->S; s++) {
		uint64_t a, b;
		eng_share(e->tr->n, (int)s, (int)det->S, &a, &b);
		det->sh[s].n = b - a;
		det->maxn = b - a > det->maxn ? b - a : det->maxn;
	}
	return 0;
}

void lin_det_free(lin_state *L)
{
	struct lin_det *det = L->det;
	if (!det)
		return;
	for (uint32_t s = 0; det->sh && s < det->S; s++) {
		free(det->sh[s].ids);
		free(det->sh[s].d);
	}
	free(det->sh);
	free(det->cnt);
	free(det->p0);
	free(det->fb);
	free(det->cw);
	free(det->cz);
	free(det->work);
	free(det);
	L->det = NULL;
}

/* The worker's shards' rows, copied (or rewritten in place) as one shard of the
 * other modes, and its private copy. */
int lin_det_worker_init(hog_engine *e, eng_worker *ew, lin_worker *w)
{
	const lin_state *L = e->model;
	struct lin_det *det = L->det;
	struct lin_dwork *dw = calloc(1, sizeof *dw);
	if (!dw)
		return ENOMEM;
	w->det = dw;
	uint64_t n = 0, at = 0, cmax = 0, s0, s1;
	eng_share(det->S, ew->id, e->T, &s0, &s1);
	dw->s0 = (uint32_t)s0;
	dw->s1 = (uint32_t)s1;
	for (uint32_t s = dw->s0; s < dw->s1; s++)
		n += det->sh[s].n;
	if (!(dw->rows = malloc((n ? n : 1) * sizeof *dw->rows)))
		return ENOMEM;
	for (uint32_t s = dw->s0; s < dw->s1; s++) {
		uint64_t a, b;
		eng_share(e->tr->n, (int)s, (int)det->S, &a, &b);
		for (uint64_t i = a; i < b; i++) /* (dealt in place: the set is in the deal's order) */
			dw->rows[at + i - a] = L->perm ? L->perm[i] : (uint32_t)i;
		at += b - a;
	}
	int rc = lin_build_rows(e, ew, w, dw->rows, n);
	if (rc)
		return rc;
	dw->own_order = L->in_place;
	dw->dorder = ew->order; /* (the shards' orders; the engine gets one of its own) */
	ew->order = dw->eorder = malloc((det->maxn ? det->maxn : 1) * sizeof *ew->order);
	ew->rows = NULL;
	ew->n = det->maxn;
	if (!dw->eorder)
		return ENOMEM;
	if (!L->in_place) {
		if (!(dw->items = malloc((n ? n : 1) * sizeof *dw->items)))
			return ENOMEM;
		for (uint64_t i = 0; i < n; i++)
			dw->items[i] = (uint32_t)i;
	}
	at = 0;
	for (uint32_t s = dw->s0; s < dw->s1; s++) {
		lin_dshard *sh = &det->sh[s];
		sh->order = dw->dorder + at;
		sh->items = (dw->items ? dw->items : dw->rows) + at;
		at += sh->n;
		cmax = eng_chunk_count(sh->n, e->o.shuffle_chunk) > cmax ? eng_chunk_count(sh->n, e->o.shuffle_chunk) : cmax;
	}
	const size_t D = L->D, bytes = D * L->S * sizeof(float);
	if (!(dw->chunks = malloc((cmax + 1) * sizeof *dw->chunks)))
		return ENOMEM;
	if (!(dw->rec = hog_topo_alloc_local(e->topo, bytes)))
		return ENOMEM;
	w->k.hrec = dw->rec; /* (replica's kernel, all private; lin_det_worker_free takes it back) */
	w->k.tmark = NULL;
	if (det->sums) {
		det->work[ew->id] = dw;
		return det_sum_worker_init(e, dw);
	}
	dw->mark = calloc(D / 8 + 1, 1); /* (a bit a coordinate: on 2 M features 256 KB, within L2) */
	dw->touched = malloc((D + 1) * sizeof *dw->touched);
	dw->old = malloc((D + 1) * L->S * sizeof *dw->old); /* (only what a round touches is ever written) */
	return dw->mark && dw->touched && dw->old ? 0 : ENOMEM;
}

void lin_det_worker_free(hog_engine *e, eng_worker *ew, lin_worker *w)
{
	const lin_state *L = e->model;
	struct lin_dwork *dw = w->det;
	if (!dw)
		return;
	if (ew->order == dw->eorder) /* (lin_worker_free frees an in-place shard's order: the shards') */
		ew->order = dw->own_order ? dw->dorder : NULL;
	free(dw->eorder);
	det_sum_worker_free(e, dw);
	if (w->k.hrec == dw->rec)
		w->k.hrec = NULL;
	if (L->det->work)
		L->det->work[ew->id] = NULL;
	if (dw->rec)
		hog_topo_free(e->topo, dw->rec, (size_t)L->D * L->S * sizeof(float));
	free(dw->mark);
	free(dw->touched);
	free(dw->old);
	free(dw->rows);
	free(dw->items);
	free(dw->chunks);
	free(dw);
	w->det = NULL;
}

/* Each shard's order for @p epoch, from (seed, epoch, shard). */
void lin_det_epoch_order(hog_engine *e, eng_worker *ew, int epoch)
{
	const lin_state *L = e->model;
	const struct lin_det *det = L->det;
	const lin_worker *w = ew->m;
	for (uint32_t s = w->det->s0; s < w->det->s1; s++) {
		lin_dshard *sh = &det->sh[s];
		if (e->o.no_shuffle) {
			memcpy(sh->order, sh->items, sh->n * sizeof *sh->order);
			continue;
		}
		uint64_t seed = e->o.seed ^ 0xDE7E5EEDull;
		seed = eng_mix64(&seed) ^ ((uint64_t)epoch << 24) ^ s;
		eng_chunk_order(sh->order, sh->items, sh->n, e->o.shuffle_chunk, eng_mix64(&seed), w->det->chunks);
	}
}

/* Lists: how far ahead take_delta asks for the copy's lines of the
 * coordinates it reads (a wide model's are misses) */
#define DET_AHEAD 48

/* Lists: the shard's delta from the private copy -- the coordinates it changed,
 * bucketed -- and the copy's touched coordinates put back to the round's model.
 * The round's values are dw->old's, kept by the kernel's loop at each
 * coordinate's first touch (DET_BODY), so the shared model is not read here: a
 * coordinate costs one miss in the copy, not two in the copy and two in the
 * model (the copy and the model read in a pass to find the changed ones and
 * again in a pass to take them, the lines of a long list gone in between:
 * take_delta was 22% of deterministic mode's CPU time on 2 M features at 2
 * threads, 11% after; bench/results/det-ratio-wide-623a040.md). Neither a
 * pass over the touched bits in ascending order against the model (2x this
 * one's time: the model's lines come from the core that merged them) nor the
 * copy taken from the model at first touches instead of copied whole at each
 * round (0.71-0.96x the mode's speed, median 0.81, six rounds) did better, nor
 * records of only the touched coordinates, found through a hash table of ids
 * and filled (with reg and l1) from the round's model at first touches, the
 * kernel run on them through renumbered ids: no copy a round, but the model's
 * and reg's lines read at each first touch cost more than the copy's (2 M
 * features, at 1 thread 0.46 s an epoch against 0.41, at 2 threads 0.24 and
 * 0.28 against 0.22 and 0.27, a build of it beside 9f2ba85's). A
 * coordinate "changed" where any component's bits differ from the round's (a
 * touch that changed nothing counts for nothing: both ways of keeping the
 * changes count the same shards). The changes are gathered in dw->old in the
 * order of touched, then dealt to the buckets. */
static int take_delta(const lin_state *L, struct lin_dwork *dw, lin_dshard *sh, uint32_t nt)
{
	const uint32_t S = L->S;
	const int l1 = L->l1 != NULL;
	float *const old = dw->old;
	uint64_t fill[DET_BUCKETS] = { 0 };
	uint32_t m = 0; /* the changed ones, moved to the front of touched and their changes to old's */
	for (uint32_t k = 0; k < nt; k++) {
		const uint32_t i = dw->touched[k];
		if (k + DET_AHEAD < nt)
			__builtin_prefetch(dw->rec + (size_t)dw->touched[k + DET_AHEAD] * S, 1);
		float *rec = dw->rec + (size_t)i * S;
		const float *o = old + (size_t)k * S;
		dw->mark[i >> 3] = 0; /* (every touched one is cleared: whole bytes will do) */
		uint32_t x = 0;
		for (uint32_t c = 0; c < S; c++)
			x |= det_bits(rec[c]) ^ det_bits(o[c]);
		if (!x)
			continue;
		const uint32_t z = l1 && i && rec[0] == 0.0f ? DET_L1_ZEROED : 0u;
		for (uint32_t c = 0; c < S; c++) { /* (m <= k: o's component c is read before it is written) */
			const float p = o[c];
			old[(size_t)m * S + c] = rec[c] - p;
			rec[c] = p;
		}
		dw->touched[m++] = i | z;
		fill[i % DET_BUCKETS]++;
	}
	if (m > sh->cap) {
		uint64_t cap = sh->cap ? sh->cap : 1024;
		while (cap < m)
			cap *= 2;
		uint32_t *ids = realloc(sh->ids, cap * sizeof *ids);
		if (ids)
			sh->ids = ids;
		float *d = realloc(sh->d, cap * S * sizeof *d);
		if (d)
			sh->d = d;
		if (!ids || !d)
			return ENOMEM;
		sh->cap = cap;
	}
	sh->boff[0] = 0;
	for (uint32_t b = 0; b < DET_BUCKETS; b++) {
		sh->boff[b + 1] = sh->boff[b] + fill[b];
		fill[b] = sh->boff[b];
	}
	for (uint32_t k = 0; k < m; k++) {
		const uint32_t id = dw->touched[k];
		const uint64_t at = fill[(id & ~DET_L1_ZEROED) % DET_BUCKETS]++;
		sh->ids[at] = id;
		for (uint32_t c = 0; c < S; c++) /* (a loop: memcpy of S floats was a libc call an entry) */
			sh->d[at * S + c] = old[(size_t)k * S + c];
	}
	return 0;
}

/* Examples [from, to) of every shard of the worker's run, each from the
 * round's model on the worker's private copy; the sums then take the shard's
 * change over the whole copy (det_sum_leaf), the lists the coordinates each
 * example touched (listed as it goes with its round value: stores, no branch). Both put the
 * copy back. Never stops inside a round: a stop comes at the round's end, where
 * the model is merged. */
/* The kernel on the private copy: replica's (plain loads and stores), but
 * AdaRevision's, whose private step is not its own, lockfree's (on the copy) */
#define DET_KERNEL(RULE) ((RULE) == HOG_RULE_ADAREVISION ? HOG_MODE_LOCKFREE : HOG_MODE_REPLICA)
#define DET_BODY(RULE, LOSS, VALS)                                                                   \
	{                                                                                                \
		const lin_state *L = e->model;                                                               \
		const struct lin_det *det = L->det;                                                          \
		lin_worker *w = ew->m;                                                                       \
		struct lin_dwork *dw = w->det;                                                               \
		kern_shared ks = L->ks;                                                                      \
		ks.P = (_Atomic float *)dw->rec;                                                             \
		ks.A = NULL;                                                                                 \
		ks.U = NULL;                                                                                 \
		uint8_t *const mark = dw->mark; /* (lists; sums: NULL) */                                    \
		uint32_t *const touched = dw->touched;                                                       \
		float *const old = dw->old;                                                                  \
		const uint32_t SR = hog_rule_stride(RULE);                                                   \
		const float *const wts = w->wt;                                                              \
		const uint64_t base = (uint64_t)epoch * e->tr->n;                                            \
		uint64_t done = 0, nnz_done = 0;                                                             \
		double wsum = 0;                                                                             \
		/* the round's model (the barrier after the merge orders these reads) */                   \
		memcpy(dw->rec, (const void *)L->P, (size_t)L->D * L->S * sizeof(float));                   \
		if (det->sums)                                                                               \
			det_sum_round_start(dw);                                                                 \
		for (uint32_t s = dw->s0; s < dw->s1; s++) {                                                 \
			lin_dshard *sh = &det->sh[s];                                                            \
			const uint64_t hi = to < sh->n ? to : sh->n;                                             \
			uint32_t nt = hi > from; /* lists: the bias, when the shard has examples in the round */ \
			if (mark) {                                                                              \
				touched[0] = 0;                                                                      \
				mark[0] = (uint8_t)nt; /* (bit 0) */                                                 \
				memcpy(old, dw->rec, SR * sizeof *old); /* (the bias's round value) */                \
			}                                                                                        \
			float lr = 0;                                                                            \
			for (uint64_t i = from; i < hi; i++) {                                                   \
				if ((i - from) % 64 == 0)                                                            \
					lr = eng_lr_at(e, epoch, base + i * det->S);                                     \
				const uint32_t r = sh->order[i];                                                     \
				const uint64_t lo = w->off[r];                                                       \
				const uint32_t nnz = (uint32_t)(w->off[r + 1] - lo);                                 \
				if (i + 4 * PREFETCH_AHEAD < hi)                                                     \
					__builtin_prefetch(&w->off[sh->order[i + 4 * PREFETCH_AHEAD]]);                  \
				if (i + PREFETCH_AHEAD < hi)                                                         \
					prefetch_row(w, sh->order[i + PREFETCH_AHEAD], VALS);                            \
				if (ks.prefetch && i + MODEL_AHEAD < hi)                                             \
					prefetch_model(DET_KERNEL(RULE), &ks, L->S, &w->k, w, sh->order[i + MODEL_AHEAD]); \
				const uint32_t *ids = w->ids + lo;                                                   \
				if (mark)                                                                            \
					for (uint32_t j = 0; j < nnz; j++) {                                             \
						const uint32_t id = ids[j];                                                  \
						const uint8_t m = mark[id >> 3], bit = (uint8_t)(1u << (id & 7));            \
						touched[nt] = id;                                                            \
						for (uint32_t c = 0; c < SR; c++) /* (its round value, at a first touch) */ \
							old[(size_t)nt * SR + c] = dw->rec[(size_t)id * SR + c];                 \
						nt += !(m & bit);                                                            \
						mark[id >> 3] = m | bit;                                                     \
					}                                                                                \
				const float wt = wts ? wts[r] : 1.0f;                                                \
				wsum += wt;                                                                          \
				nnz_done += nnz;                                                                     \
				process_example(DET_KERNEL(RULE), RULE, LOSS, VALS, &ks, &w->k, ids,                 \
				                VALS ? w->xs + lo : NULL, nnz, w->y[r], wt, lr);                     \
			}                                                                                        \
			done += hi > from ? hi - from : 0;                                                       \
			if (mark ? take_delta(L, dw, sh, nt) : det_sum_leaf(e, dw, s, hi > from))                \
				eng_fail(e, ENOMEM, "out of memory for a shard's changes");                          \
		}                                                                                            \
		ew->ex_done += done;                                                                         \
		ew->units_done += nnz_done;                                                                  \
		ew->wdone += wsum;                                                                           \
		ew->loss += kern_loss_take(&w->k);                                                           \
		return to;                                                                                   \
	}

#define DEF_DET(R, L, V) \
	static uint64_t det_##R##_##L##_##V(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to) \
	DET_BODY(HOG_RULE_##R, HOG_LOSS_##L, V)
#define DEF_DET_V(R, L) DEF_DET(R, L, 0) DEF_DET(R, L, 1)
#define DEF_DET_L(R) DEF_DET_V(R, LOGISTIC) DEF_DET_V(R, HINGE) DEF_DET_V(R, SQUARED)
DEF_DET_L(SGD)
DEF_DET_L(ADAGRAD)
DEF_DET_L(ADAREVISION)
#define REF_DET_V(R, L) { det_##R##_##L##_0, det_##R##_##L##_1 }
#define REF_DET_L(R) { REF_DET_V(R, LOGISTIC), REF_DET_V(R, HINGE), REF_DET_V(R, SQUARED) }
static const eng_round_fn det_table[3][3][2] = { REF_DET_L(SGD), REF_DET_L(ADAGRAD), REF_DET_L(ADAREVISION) };

eng_round_fn lin_det_round(const hog_engine *e)
{
	return det_table[e->o.rule][e->o.loss][e->tr->vals != NULL];
}

/* Lists: one coordinate's merge, shard s's change d_s (the shards in order)
 * onto its value; component 0 by the rule (the header), the others summed.
 * @p cnt the shards that changed it (at most UINT16_MAX counted). */
HOG_INLINE void merge_one(_Atomic float *rec, const float *d, uint32_t S, uint64_t i, const float *f, float g,
                          uint32_t cnt)
{
	ast(&rec[0], f && i ? ald(&rec[0]) + f[i] * g * d[0] : det_step0(ald(&rec[0]), d[0], NULL, i, (float)cnt));
	for (uint32_t c = 1; c < S; c++)
		ast(&rec[c], ald(&rec[c]) + d[c]);
}

/* The merge (hog_trainer_ops.round_share): the worker's coordinates (sums: a
 * slice of them, det_sum_merge; lists: its buckets), every shard's change of
 * them in shard order. */
int lin_det_share(hog_engine *e, eng_worker *ew, int epoch)
{
	const lin_state *L = e->model;
	const struct lin_det *det = L->det;
	(void)epoch;
	if (!det)
		return 0;
	const uint32_t S = L->S;
	_Atomic float *P = L->P;
	double *const U = L->ks.U;
	uint64_t clk = 0; /* --average: the epoch's examples at this round's end (every worker's pos is the round's) */
	for (uint32_t s = 0; U && s < det->S; s++)
		clk += ew->pos < det->sh[s].n ? ew->pos : det->sh[s].n;
	if (det->sums) {
		det_sum_merge(e, ew->id, (double)clk);
		return 1;
	}
	const uint32_t b0 = (uint32_t)((uint64_t)DET_BUCKETS * (uint32_t)ew->id / (uint32_t)e->T),
	               b1 = (uint32_t)((uint64_t)DET_BUCKETS * (uint32_t)(ew->id + 1) / (uint32_t)e->T);
	uint16_t *cnt = det->cnt;
	float *const p0 = det->p0;
	/* SGD: each feature's factor (det_shares); AdaGrad, AdaRevision: each changed
	 * feature's, taken at its first count below; S = 1: NULL, the mean */
	const float *const f = L->share ? L->share : det->fb;
	float *const fb = det->fb;
	float g = 1.0f; /* the common direction's factor (SGD: in L->share already) */
	if (fb) {
		/* the adaptive rules: each changed feature's factor at its first entry
		 * (the round's accumulator: nothing is merged yet; fb < 0: not yet), the
		 * bias's count, and the common direction's sums of each bucket; then,
		 * once every worker has its buckets', g (det_common) */
		const uint32_t acc = det_acc(e->o.rule);
		const float Gb = ((const lin_worker *)ew->m)->det->rec[acc]; /* (the copy: the round's model) */
		for (uint32_t b = b0; b < b1; b++) {
			double cw = 0, cz = 0;
			for (uint32_t s = 0; s < det->S; s++)
				for (uint64_t k = det->sh[s].boff[b]; k < det->sh[s].boff[b + 1]; k++) {
					const uint32_t i = det->sh[s].ids[k] & ~DET_L1_ZEROED;
					if (k + DET_AHEAD < det->sh[s].boff[b + 1]) { /* (misses on a wide model) */
						const uint32_t a = det->sh[s].ids[k + DET_AHEAD] & ~DET_L1_ZEROED;
						__builtin_prefetch((const void *)(P + (size_t)a * S));
						__builtin_prefetch(&L->det_a0[a]);
						__builtin_prefetch(&fb[a], 1);
					}
					if (!i) {
						cnt[0] += cnt[0] < UINT16_MAX;
					} else if (fb[i] < 0) {
						const float G = ald(&P[(size_t)i * S + acc]);
						fb[i] = det_blend(L->det_a0, L->ks.beta, det->S, i, G);
						det_common_add(L->det_a0, L->ks.beta, i, G, fb[i], &cw, &cz);
					}
				}
			det->cw[b] = cw;
			det->cz[b] = cz;
		}
		hog_barrier_wait(&e->bar);
		g = det_common(det, 1.0 / ((double)L->ks.beta + sqrt((double)Gb)));
	}
	for (uint32_t b = b0; b < b1; b++) {
		/* the shards that changed each coordinate (saturating): without factors every
		 * one's, with SGD's the bias's alone (the adaptive rules': counted above) */
		const int counted = !f || b == 0;
		for (uint32_t s = 0; !fb && counted && s < det->S; s++)
			for (uint64_t k = det->sh[s].boff[b]; k < det->sh[s].boff[b + 1]; k++) {
				const uint32_t i = det->sh[s].ids[k] & ~DET_L1_ZEROED;
				cnt[i] += cnt[i] < UINT16_MAX;
			}
		for (uint32_t s = 0; p0 && s < det->S; s++) /* --l1: the round's values of the weights shards zeroed */
			for (uint64_t k = det->sh[s].boff[b]; k < det->sh[s].boff[b + 1]; k++)
				if (det->sh[s].ids[k] & DET_L1_ZEROED)
					p0[det->sh[s].ids[k] & ~DET_L1_ZEROED] = ald(&P[(size_t)(det->sh[s].ids[k] & ~DET_L1_ZEROED) * S]);
		for (uint32_t s = 0; s < det->S; s++) {
			const lin_dshard *sh = &det->sh[s];
			for (uint64_t k = sh->boff[b]; k < sh->boff[b + 1]; k++) {
				const uint32_t i = sh->ids[k] & ~DET_L1_ZEROED;
				if (k + DET_AHEAD < sh->boff[b + 1]) {
					const uint32_t a = sh->ids[k + DET_AHEAD] & ~DET_L1_ZEROED;
					__builtin_prefetch((const void *)(P + (size_t)a * S), 1);
					__builtin_prefetch(f ? (const void *)&f[a] : (const void *)&cnt[a]);
					if (U)
						__builtin_prefetch(&U[a], 1);
				}
				_Atomic float *rec = P + (size_t)i * S;
				const float p = ald(&rec[0]);
				/* (the count only where it is read: with the factors, a feature's is a miss for nothing) */
				merge_one(rec, sh->d + k * S, S, i, f, g, f && i ? 0 : cnt[i]);
				if (U) /* (each shard's step: together the round's change, at the round's clock) */
					avg_add(&U[i], p, ald(&rec[0]), (double)clk);
			}
		}
		for (uint32_t s = 0; p0 && s < det->S; s++) /* ... do not cross zero (a second time: a no-op) */
			for (uint64_t k = det->sh[s].boff[b]; k < det->sh[s].boff[b + 1]; k++)
				if (det->sh[s].ids[k] & DET_L1_ZEROED) {
					const uint32_t i = det->sh[s].ids[k] & ~DET_L1_ZEROED;
					ast(&P[(size_t)i * S], l1_hand_up(p0[i], ald(&P[(size_t)i * S])));
				}
		for (uint32_t s = 0; (counted || fb) && s < det->S; s++)
			for (uint64_t k = det->sh[s].boff[b]; k < det->sh[s].boff[b + 1]; k++) {
				const uint32_t i = det->sh[s].ids[k] & ~DET_L1_ZEROED;
				if (fb && i)
					fb[i] = -1.0f;
				else
					cnt[i] = 0;
			}
	}
	return 1;
}
