/* The sparse linear model on the training engine (engine.h): its shared
 * parameters, the specialized rounds, buffered mode's hot coordinates, the
 * workers' life (worker_init, worker_free), model I/O and evaluation, and the
 * trainer's table. The rest is in files of their own that share
 * linear_train.h: the setup (linear_setup.c), the workers' shards and
 * --stream (linear_shard.c), the --delay queue (linear_delay.c).
 *
 * Setup renumbers the features by falling frequency (internal id 0 is the
 * bias), so hot coordinates share cache lines and come first in every row.
 * Each worker trains on its share of the examples with ids renumbered: a copy
 * on its own NUMA node, its share rewritten in place (hog_train_consume), or
 * one --stream block at a time. The per-example kernel is kernel.h's,
 * instantiated here once per (mode, rule, loss, has-values): the rounds stay in
 * one file with the kernel they inline. --average and --normalize change what
 * the model hands back (weight_of).
 *
 * Replica mode on several NUMA nodes (the workers' places span more than one
 * node, hog_topo_node_plan): two levels (replica.h). Each worker's private
 * copy flushes into a replica of the model on its own node, allocated and
 * first touched by the node's first worker (its owner); the owner syncs the
 * node replica with the global model every --node-sync of its own flushes (1
 * by default: the level itself already cuts the interconnect's traffic by the
 * node's worker count, and each further factor adds as much staleness between
 * nodes; not measured, no multi-node machine here). At each round's end thread
 * 0 folds every node replica into the global model (round_merge), so what the
 * engine evaluates, checkpoints and averages over MPI ranks is complete. On one
 * node nothing of this exists: flat replica mode, the same code as before.
 */
#include "model/linear.h"
#include "sys/err.h"
#include "sys/hash.h"
#include "sys/names.h"
#include "train/engine.h"
#include "train/kernel.h"
#include "train/linear_train.h"
#include "train/replica.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Buffered and replica modes: add to each private coordinate's shared value
 * this worker's change since the last flush -- divided by the number of workers
 * for the averaged ones (the bias, and --hot features in replica mode), whole
 * for the rest -- and take the others' changes into the private copy.
 *
 * Why the bias is divided: every worker sees examples from the same
 * distribution, so within a flush interval each one makes (nearly) the same
 * whole correction to it. Summing T such corrections overshoots by T: the error
 * flips sign at every flush (measured: test accuracy jumping between 52% and 95%
 * from epoch to epoch on the RCV1-shaped set with 2 workers). Averaging it is
 * local SGD with model averaging there, stable for any interval and team size.
 * A feature's changes are a few independent steps each and are summed, as
 * serial SGD would apply them (see setup_private in linear_setup.c for the
 * measurements). On one thread this is serial SGD. AdaGrad's sums of squared
 * gradients (record component 1) are counts, not corrections: summed.
 *
 * A relaxed load and store, not a CAS: lock-prefixed instructions drain the
 * store buffer and cost ~25 cycles each, a quarter of the single-thread time for
 * ~2000 coordinates every 256 examples; a change can be lost when two workers
 * flush one coordinate at the same instant, so each starts its sweep elsewhere. */
static void node_flush(const hog_engine *e, int id, lin_worker *w, int may_sync);

/* One float of a flush: the worker's change since its last flush into the
 * shared value, times its record's factor (L->share, merge_shares in
 * linear_setup.c; AdaGrad's sums, component 1, whole), and the shared value
 * back into the private copy. */
HOG_INLINE void flush_one(const lin_state *L, lin_worker *w, uint32_t i, uint32_t S, int l1)
{
	float *rec = w->k.hrec, *base = w->k.hbase;
	float d = rec[i] - base[i], p = ald(&L->P[i]);
	if (d != 0.0f) {
		const int c0 = S == 1 || i % S == 0; /* component 0, the weight */
		float q = p + (c0 ? d * L->share[i / S] : d);
		q = l1 && rec[i] == 0.0f && rep_l1_weight(i, S) ? l1_hand_up(p, q) : q; /* (replica.h) */
		if (L->ks.A && c0) /* the shared value changes here only */
			avg_touch_ramp(&L->ks.A[i / S], p, q - p, w->k.avg_c, w->k.avg_inv, w->k.avg_ramp);
		ast(&L->P[i], p = q);
	}
	rec[i] = base[i] = p;
}

/* A flush of buffered's hot records or replica's whole copy. Replica's flushes
 * inside a round (@p full 0) sweep only the blocks the worker changed since its
 * last flush (kernel.h's marks); the flush at each round's end and the epoch's
 * start sweeps the whole copy. The cost of a flush then follows what was
 * touched, not the model's width, and a coordinate the worker did not touch
 * takes the others' changes at most a round late.
 *
 * --average's accumulator is read only for a coordinate that changed, never in
 * the epoch's opening flush (nothing changed), which runs while thread 0 sets
 * ks.A for the epoch (lin_epoch_started; TSan).
 *
 * The sweep takes the record's stride @p S as a constant where flush_hot_sweep
 * calls it so: flush_one's i % S and i / S are then shifts, not a division
 * each (replica with AdaGrad on 2 M features: its flushes took 6,928 samples
 * against its kernel's 8,213, perf, 6 epochs at 2 threads). */
HOG_INLINE void sweep_stride(const hog_engine *e, int id, lin_worker *w, int full, const uint32_t S)
{
	const lin_state *L = e->model;
	const uint32_t n = L->ks.hot * S, B = 1u << KERN_TBLK_SHIFT, nb = (n + B - 1) / B;
	const int l1 = L->l1 != NULL; /* (read once: the stores below would make the compiler read it again) */
	uint8_t *tm = w->k.tmark;
	if (tm && !full) {
		const uint32_t b0 = (uint32_t)((uint64_t)nb * (uint32_t)id / (uint32_t)e->T);
		for (uint32_t k = 0; k < nb; k++) {
			uint32_t b = b0 + k < nb ? b0 + k : b0 + k - nb;
			if (!tm[b])
				continue;
			tm[b] = 0;
			for (uint32_t i = b * B, hi = i + B < n ? i + B : n; i < hi; i++)
				flush_one(L, w, i, S, l1);
		}
	} else {
		uint32_t start = (uint32_t)((uint64_t)L->ks.hot * (uint32_t)id / (uint32_t)e->T) * S;
		for (uint32_t k = 0; k < n; k++)
			flush_one(L, w, start + k < n ? start + k : start + k - n, S, l1);
		if (tm)
			memset(tm, 0, nb);
	}
}

static void flush_hot_sweep(const hog_engine *e, int id, lin_worker *w, int full)
{
	const lin_state *L = e->model;
	if (L->node) { /* replica on several nodes (a branch at every flush) */
		node_flush(e, id, w, 1);
		return;
	}
	if (L->S == 1) /* sgd */
		sweep_stride(e, id, w, full, 1);
	else if (L->S == 2) /* adagrad (the rules replica and buffered take: linear_opts.c) */
		sweep_stride(e, id, w, full, 2);
	else
		sweep_stride(e, id, w, full, L->S);
	w->since_flush = 0;
}

static void flush_hot(const hog_engine *e, int id, lin_worker *w)
{
	flush_hot_sweep(e, id, w, 1);
}

/* Replica reads --average's clock (the team's examples, every worker's
 * position) only for its flushes: nothing shared between them. */
static void replica_clock(const hog_engine *e, const eng_worker *ew, lin_worker *w, uint64_t i)
{
	w->k.avg_c = (uint32_t)lin_team_pos(e, ew, i);
	w->k.avg_inv = 1.0f / (float)w->k.avg_c;
	/* (the interval since its last flush, the ramp of avg_touch_ramp) */
	w->k.avg_ramp = w->k.avg_c > w->flush_c ? 0.5f * (float)(w->k.avg_c - w->flush_c) * w->k.avg_inv : 0.0f;
	w->flush_c = w->k.avg_c;
}

/* Replica mode on several nodes: the worker's flush into its node replica,
 * with the node's sync with the global model when the worker is the node's
 * owner and its phase says so (replica.h). Sweeps start at the worker's share
 * of the node, the owners' syncs at the node's share of the model. */
static void node_flush(const hog_engine *e, int id, lin_worker *w, int may_sync)
{
	const lin_state *L = e->model;
	const int r = L->np.replica[id], m = L->np.members[r];
	const struct lin_node *nd = &L->node[r];
	const uint32_t S = L->S, n = L->ks.hot * S, navg = L->avg * S;
	if (may_sync && L->np.owner[r] == id && (++w->flushes + (uint32_t)L->np.phase[r]) % L->node_sync == 0) {
		uint32_t start = (uint32_t)((uint64_t)L->ks.hot * (uint32_t)r / (uint32_t)L->np.nodes) * S;
		rep_flush_sync(L->P, nd->N, nd->base, w->k.hrec, w->k.hbase, n, navg, S, 1.0f / (float)m,
		               1.0f / (float)L->np.nodes, start, L->ks.A, w->k.avg_c, w->k.avg_inv, L->l1 != NULL);
	} else {
		uint32_t start = (uint32_t)((uint64_t)L->ks.hot * (uint32_t)L->np.slot[id] / (uint32_t)m) * S;
		rep_flush(nd->N, w->k.hrec, w->k.hbase, n, navg, S, 1.0f / (float)m, start, L->l1 != NULL);
	}
	w->since_flush = 0;
}

/* Thread 0 at a round's end, every worker's change in its node replica: each
 * node's change since its sync into the global model, then every node takes
 * the global model back. The clock for --average is worker 0's. */
static void lin_round_merge(hog_engine *e, int epoch)
{
	lin_state *L = e->model;
	(void)epoch;
	if (!L->node)
		return;
	const lin_worker *w0 = e->w[0]->m;
	const uint32_t n = L->ks.hot * L->S;
	for (int r = 0; r < L->np.nodes; r++)
		rep_sync(L->P, L->node[r].N, L->node[r].base, n, L->avg * L->S, L->S, 1.0f / (float)L->np.nodes, L->ks.A,
		         w0->k.avg_c, w0->k.avg_inv, L->l1 != NULL);
	for (int r = 0; r < L->np.nodes; r++)
		rep_take(L->P, L->node[r].N, L->node[r].base, n);
}

/* ---------------------------------------------------------- the rounds */

/* One example with --measure-delay in the modes that lock (locked, striped):
 * the team's count is read once the example's locks are held and its own
 * update counted before they are let go, so the delay is the updates that
 * landed between its read and its write -- none under one global lock -- and
 * not those it waited for at the lock. Inside the locks the example is the
 * lock-free one (the same reads and writes: only atomic and buffered differ). */
HOG_INLINE void measured_locked(const enum hog_mode MODE, const enum hog_rule RULE, const enum hog_loss LOSS,
                                const int VALS, const hog_engine *e, eng_worker *ew, const kern_shared *sh,
                                kern_worker *wk, const uint32_t *ids, const float *xs, uint32_t nnz, float y,
                                float wt, float lr, int sample)
{
	lock_example(MODE, sh, ids, nnz);
	const uint64_t seen = sample ? eng_team_applied(e) : 0;
	process_example(HOG_MODE_LOCKFREE, RULE, LOSS, VALS, sh, wk, ids, xs, nnz, y, wt, lr);
	eng_count_applied(ew);
	if (sample)
		eng_note_delay(ew, eng_team_applied(e) - seen - 1);
	unlock_example(MODE, sh, ids, nnz);
}

/* Examples [from, to) of the worker's order for this epoch, specialized. Checks
 * the stop flag and recomputes the step size every 64 examples. */
#define ROUND_BODY(MODE, RULE, LOSS, VALS)                                                       \
	{                                                                                            \
		const lin_state *L = e->model;                                                           \
		lin_worker *w = ew->m;                                                                   \
		const kern_shared *sh = &L->ks;                                                          \
		const uint32_t *order = ew->order; /* (--stream: a block's, from position order_at) */   \
		const uint64_t at = ew->order_at;                                                        \
		const float *const wts = w->wt; /* NULL: unweighted, every weight 1 */                   \
		const int measure = e->o.measure_delay;                                                  \
		const uint64_t T = (uint64_t)e->T * e->ranks, base = (uint64_t)epoch * e->tr->n;         \
		uint64_t i = from, nnz_done = 0;                                                         \
		double wsum = 0;                                                                         \
		/* the average's clock (--average this epoch; replica reads it at its flushes only:   \
		 * nothing shared in between) */                                                        \
		const int avg_clock = (sh->A || sh->U) && MODE != HOG_MODE_REPLICA;                      \
		for (uint32_t chunk = 1; i < to; chunk++) {                                              \
			if ((chunk & 15) == 0 && eng_stop_requested(e))                                      \
				break;                                                                           \
			const float lr = eng_lr_at(e, epoch, base + i * T);                                  \
			const uint64_t end = to - i > 64 ? i + 64 : to;                                      \
			const uint64_t c0 = avg_clock ? lin_team_pos(e, ew, i) - i * T : 0;                  \
			for (; i < end; i++) {                                                               \
				uint32_t r = order[i - at];                                                      \
				uint64_t lo = w->off[r];                                                         \
				uint32_t nnz = (uint32_t)(w->off[r + 1] - lo);                                   \
				if (i + 4 * PREFETCH_AHEAD < to)                                                 \
					__builtin_prefetch(&w->off[order[i + 4 * PREFETCH_AHEAD - at]]);             \
				if (i + PREFETCH_AHEAD < to)                                                     \
					prefetch_row(w, order[i + PREFETCH_AHEAD - at], VALS);                       \
				if (sh->prefetch && i + MODEL_AHEAD < to)                                        \
					prefetch_model(MODE, sh, L->S, &w->k, w, order[i + MODEL_AHEAD - at]);       \
				uint64_t seen = 0;                                                               \
				/* (not replica: its reads are of its private copy, which lags the others by   \
				 * up to a flush interval of their examples; the team's updates during one   \
				 * example said 0.7 on the demo's set, where lockfree's say 0.9) */          \
				int sample = measure && MODE != HOG_MODE_REPLICA && (i & HOG_DELAY_SAMPLE_MASK) == 0; \
				if (avg_clock) {                                                                 \
					w->k.avg_c = (uint32_t)(c0 + i * T);                                         \
					if (!KERN_AVG_SUMS(MODE)) /* (the sums need no 1 / c) */                     \
						w->k.avg_inv = 1.0f / (float)w->k.avg_c;                                 \
				}                                                                                \
				nnz_done += nnz;                                                                 \
				const float wt = wts ? wts[r] : 1.0f;                                            \
				wsum += wt;                                                                      \
				if (measure && (MODE == HOG_MODE_LOCKED || MODE == HOG_MODE_STRIPED)) {          \
					measured_locked(MODE, RULE, LOSS, VALS, e, ew, sh, &w->k, w->ids + lo,       \
					                VALS ? w->xs + lo : NULL, nnz, w->y[r], wt, lr, sample);     \
					continue;                                                                    \
				}                                                                                \
				if (sample) seen = eng_team_applied(e);                                          \
				process_example(MODE, RULE, LOSS, VALS, sh, &w->k, w->ids + lo,                  \
				                VALS ? w->xs + lo : NULL, nnz, w->y[r], wt, lr);                 \
				if (measure) {                                                                   \
					eng_count_applied(ew);                                                       \
					if (sample) eng_note_delay(ew, eng_team_applied(e) - seen - 1);              \
				}                                                                                \
				/* (not at the round's last example: its end flushes the whole copy right after) */ \
				if (KERN_PRIVATE(MODE) && ++w->since_flush >= L->flush_every && i + 1 < to) {    \
					if (MODE == HOG_MODE_REPLICA && sh->A)                                       \
						replica_clock(e, ew, w, i + 1);                                          \
					flush_hot_sweep(e, ew->id, w, 0);                                            \
				}                                                                                \
			}                                                                                    \
		}                                                                                        \
		if (MODE == HOG_MODE_REPLICA && sh->A && i > from) /* the round-end flush's clock */    \
			replica_clock(e, ew, w, i);                                                          \
		ew->ex_done += i - from;                                                                 \
		ew->units_done += nnz_done;                                                              \
		ew->wdone += wsum;                                                                       \
		ew->loss += kern_loss_take(&w->k);                                                       \
		return i;                                                                                \
	}

#define DEF_ROUND(M, R, L, V) \
	static uint64_t round_##M##_##R##_##L##_##V(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to) \
	ROUND_BODY(HOG_MODE_##M, HOG_RULE_##R, HOG_LOSS_##L, V)
#define DEF_ROUND_V(M, R, L) DEF_ROUND(M, R, L, 0) DEF_ROUND(M, R, L, 1)
#define DEF_ROUND_L(M, R) DEF_ROUND_V(M, R, LOGISTIC) DEF_ROUND_V(M, R, HINGE) DEF_ROUND_V(M, R, SQUARED)
#define DEF_ROUND_R(M) DEF_ROUND_L(M, SGD) DEF_ROUND_L(M, ADAGRAD) DEF_ROUND_L(M, ADAREVISION)
DEF_ROUND_R(SERIAL)
DEF_ROUND_R(LOCKFREE)
DEF_ROUND_R(ATOMIC)
DEF_ROUND_R(STRIPED)
DEF_ROUND_R(LOCKED)
DEF_ROUND_L(BUFFERED, SGD)
DEF_ROUND_L(BUFFERED, ADAGRAD)
DEF_ROUND_L(REPLICA, SGD)
DEF_ROUND_L(REPLICA, ADAGRAD)

#define REF_V(M, R, L) { round_##M##_##R##_##L##_0, round_##M##_##R##_##L##_1 }
#define REF_L(M, R) { REF_V(M, R, LOGISTIC), REF_V(M, R, HINGE), REF_V(M, R, SQUARED) }
#define REF_R(M) { REF_L(M, SGD), REF_L(M, ADAGRAD), REF_L(M, ADAREVISION) }
static const eng_round_fn round_table[HOG_MODE_ALL][3][3][2] = {
	[HOG_MODE_SERIAL] = REF_R(SERIAL), /* lockfree's loop with --average's sums (kernel.h, KERN_AVG_SUMS) */
	[HOG_MODE_LOCKFREE] = REF_R(LOCKFREE),
	[HOG_MODE_BUFFERED] = { REF_L(BUFFERED, SGD), REF_L(BUFFERED, ADAGRAD) },
	/* replica: buffered's kernel with every coordinate private, no shared access */
	[HOG_MODE_REPLICA] = { REF_L(REPLICA, SGD), REF_L(REPLICA, ADAGRAD) },
	[HOG_MODE_ATOMIC] = REF_R(ATOMIC),
	[HOG_MODE_STRIPED] = REF_R(STRIPED),
	[HOG_MODE_LOCKED] = REF_R(LOCKED),
};

/* The in-memory round of this run's mode, rule, loss and values (also
 * --stream's, on each block: lin_round_stream). */
eng_round_fn lin_in_memory_round(const hog_engine *e)
{
	const lin_state *L = e->model;
	/* (MPI ranks running serial: lockfree's loop, one worker, the time-stamped average) */
	const enum hog_mode m = e->o.mode == HOG_MODE_SERIAL && L->A ? HOG_MODE_LOCKFREE : e->o.mode;
	return round_table[m][e->o.rule][e->o.loss][e->store ? L->svals : e->tr->vals != NULL];
}

static eng_round_fn lin_round(const hog_engine *e)
{
	if (e->o.mode == HOG_MODE_DETERMINISTIC)
		return lin_det_round(e);
	if (e->o.delay)
		return lin_round_delayed;
	return e->store ? lin_round_stream : lin_in_memory_round(e);
}

static void lin_epoch_begin(hog_engine *e, eng_worker *ew, int epoch)
{
	lin_worker *w = ew->m;
	const lin_state *L = e->model;
	(void)epoch;
	if (L->pos) /* (the barrier after this: nobody reads the last epoch's) */
		atomic_store_explicit(&L->pos[ew->id].v, 0, memory_order_relaxed);
	if (e->store)
		eng_stream_epoch(&w->st, e, ew, epoch);
	if (L->det)
		lin_det_epoch_order(e, ew, epoch);
	w->k.loss = w->k.lq = 0;
	w->k.bias_sum = w->k.bias_abs = 0;
	w->flush_c = 0; /* (replica_clock's interval starts with the epoch) */
	w->k.avg_ramp = 0;
	if (((lin_state *)e->model)->node)
		node_flush(e, ew->id, w, 0); /* fresh private copy (the node took the global model at the merge) */
	else if (((lin_state *)e->model)->private_)
		flush_hot(e, ew->id, w); /* fresh private copy */
}

static void lin_round_end(hog_engine *e, eng_worker *ew, int epoch, int last)
{
	if (last && e->o.delay)
		lin_drain_pending(e, ew, eng_lr_at(e, epoch, (uint64_t)(epoch + 1) * e->tr->n));
	if (((lin_state *)e->model)->private_)
		flush_hot(e, ew->id, ew->m);
}

static void lin_stop(hog_engine *e, eng_worker *ew, int epoch)
{
	if (e->o.delay)
		lin_drain_pending(e, ew, eng_lr_at(e, epoch, (uint64_t)epoch * e->tr->n + ew->pos * e->T * e->ranks));
}

static void lin_epoch_started(hog_engine *e, int epoch)
{
	lin_state *L = e->model;
	(void)epoch;
	L->bias_start = ald(&L->P[0]);
	/* Each epoch's average starts afresh (suffix averaging, kernel.h), so only
	 * the last epoch's reaches the model handed back: without a test set to
	 * report on after every epoch, the earlier epochs skip the work (measured:
	 * +60-80% a serial epoch on 71-nonzero rows, bench/results/bias-step.md). */
	const int on = eng_has_test(e) || epoch == e->o.epochs - 1;
	L->ks.A = on ? L->A : NULL;
	L->ks.U = on ? L->U : NULL;
	L->avg_final = (L->A || L->U) && epoch == e->o.epochs - 1;
	if (L->ks.A)
		for (uint64_t v = 0; v < L->D; v++)
			atomic_store_explicit(&L->A[v], 0, memory_order_relaxed);
	if (L->ks.U)
		memset(L->U, 0, L->D * sizeof *L->U);
}

static float lin_probe(const hog_engine *e)
{
	const lin_state *L = e->model;
	return ald(&L->P[0]);
}

/* ------------------------------------------ the state and the workers
 *
 * Set up in linear_setup.c, the workers' shards built in linear_shard.c. */

static void lin_free(hog_engine *e)
{
	lin_state *L = e->model;
	if (!L)
		return;
	if (L->P)
		hog_topo_free(e->topo, (void *)L->P, L->P_bytes);
	free(L->reg);
	free(L->l1);
	free(L->share);
	free(L->det_a0);
	free(L->map);
	free(L->inv);
	free(L->perm);
	free(L->test_margins);
	free(L->wserve);
	free(L->locks);
	free(L->xscale);
	free(L->xshift);
	free(L->center_r);
	free(L->gacc);
	free(L->pos);
	free(L->blk);
	free(L->bperm);
	for (int r = 0; L->node && r < L->np.nodes; r++) {
		hog_topo_free(e->topo, (void *)L->node[r].N, (size_t)L->D * L->S * 4);
		hog_topo_free(e->topo, L->node[r].base, (size_t)L->D * L->S * 4);
	}
	free(L->node);
	lin_det_free(L);
	hog_topo_node_plan_free(&L->np);
	if (L->A)
		hog_topo_free(e->topo, (void *)L->A, L->D * sizeof *L->A);
	if (L->U)
		hog_topo_free(e->topo, L->U, L->D * sizeof *L->U);
	free(L);
	e->model = NULL;
}

/* Whether replica's marks pay on this worker's rows. A flush inside a round
 * sweeps the blocks the kernel marked (a byte store a nonzero), or without
 * marks the whole copy; a block left out spares the sweep of its 16 floats, each
 * a shared load and store, from another core's cache where it changed there:
 * taken as 4 marks' cost. Counted over the worker's first flush interval of
 * rows: marks when the floats they would spare, times 4, outnumber the
 * nonzeros they cost. On the RCV1-shaped set (47,236 features) every block is
 * touched between two flushes, so marks cost without sparing; on a model of
 * 2 M features they spare most of it. Node replicas sweep whole copies
 * (node_flush); a streamed shard is not in memory yet (marks kept). @p tm: the
 * worker's marks, zero, left zero. */
static int lin_replica_marks(const hog_engine *e, const eng_worker *ew, const lin_worker *w, uint8_t *tm)
{
	const lin_state *L = e->model;
	if (e->store)
		return 1;
	if (L->node)
		return 0;
	const uint32_t S = L->S;
	const uint64_t n = ew->n < L->flush_every ? ew->n : L->flush_every, nb = (((uint64_t)L->ks.hot * S) >> KERN_TBLK_SHIFT) + 1;
	uint64_t z = 0, marked = 0;
	for (uint64_t r = 0; r < n; r++)
		for (uint64_t p = w->off[r]; p < w->off[r + 1]; p++, z++) {
			const uint64_t b = ((uint64_t)w->ids[p] * S) >> KERN_TBLK_SHIFT;
			marked += !tm[b];
			tm[b] = 1;
		}
	memset(tm, 0, nb);
	return (double)(nb - marked) * (1u << KERN_TBLK_SHIFT) * 4.0 > (double)z;
}

static int lin_worker_init(hog_engine *e, eng_worker *ew)
{
	lin_state *L = e->model;
	lin_worker *w = calloc(1, sizeof *w);
	if (!w)
		return ENOMEM;
	ew->m = w;
	int rc = e->store ? lin_stream_shard(e, ew, w) : L->det ? lin_det_worker_init(e, ew, w) : lin_build_shard(e, ew, w);
	if (rc)
		return rc;
	const uint32_t S = L->S;
	if (L->private_) {
		w->k.hrec = hog_topo_alloc_local(e->topo, (size_t)L->ks.hot * S * 4);
		w->k.hbase = hog_topo_alloc_local(e->topo, (size_t)L->ks.hot * S * 4);
		if (!w->k.hrec || !w->k.hbase)
			return ENOMEM;
	}
	/* replica's kernel marks the blocks it changes (flush_hot_sweep reads them), where that pays */
	if (e->o.mode == HOG_MODE_REPLICA) {
		if (!(w->k.tmark = calloc((((size_t)L->ks.hot * S) >> KERN_TBLK_SHIFT) + 1, 1)))
			return ENOMEM;
		if (!lin_replica_marks(e, ew, w, w->k.tmark)) {
			free(w->k.tmark);
			w->k.tmark = NULL;
		}
	}
	if (L->node && L->np.owner[L->np.replica[ew->id]] == ew->id) {
		/* the node replica, from the bound owner: on its node; the others read
		 * the pointers after the barrier that follows worker_init */
		struct lin_node *nd = &L->node[L->np.replica[ew->id]];
		const size_t n = (size_t)L->D * S;
		nd->N = hog_topo_alloc_local(e->topo, n * 4);
		nd->base = hog_topo_alloc_local(e->topo, n * 4);
		if (!nd->N || !nd->base)
			return ENOMEM;
		rep_take(L->P, nd->N, nd->base, (uint32_t)n);
	}
	uint32_t K1 = (uint32_t)e->o.delay + 1;
	w->k.gsnap = w->gsnap_own = malloc((w->nnz_max + 1) * 4);
	if (!w->k.gsnap)
		return ENOMEM;
	if (e->o.delay) {
		w->q = malloc(K1 * sizeof *w->q);
		w->qsnap = malloc((size_t)K1 * (w->nnz_max + 1) * 4);
		if (!w->q || !w->qsnap)
			return ENOMEM;
	}
	return 0;
}

static void lin_worker_free(hog_engine *e, eng_worker *ew)
{
	const lin_state *L = e->model;
	lin_worker *w = ew->m;
	if (!w)
		return;
	lin_det_worker_free(e, ew, w);
	if (w->shard)
		hog_topo_free(e->topo, w->shard, w->shard_bytes);
	if ((!w->shard && L->in_place) || e->store) /* a view, or streamed: only the order is the worker's */
		free(ew->order);
	eng_stream_free(&w->st);
	free(w->stmp);
	hog_blockbuf_free(&w->sbb);
	if (w->k.hrec)
		hog_topo_free(e->topo, w->k.hrec, (size_t)L->ks.hot * L->S * 4);
	if (w->k.hbase)
		hog_topo_free(e->topo, w->k.hbase, (size_t)L->ks.hot * L->S * 4);
	free(w->gsnap_own);
	free(w->k.tmark);
	free(w->q);
	free(w->qsnap);
	free(w);
	ew->m = NULL;
}

/* ------------------------------------------------------------ model I/O */

/* Weight of internal coordinate r as training left it, or its average over the
 * last epoch (kernel.h), in the data set's units (--normalize). With --l1 the
 * average keeps the last iterate's zeros: averaging iterates would make nonzero
 * every weight that was nonzero once in the epoch, and the model is to be the
 * sparse one; its support is the iterate's, its values the average's. */
static float weight_of(const hog_engine *e, uint64_t r, int averaged)
{
	const lin_state *L = e->model;
	float w = ald(&L->P[(size_t)r * L->S]);
	if (averaged && !(L->l1 && r && w == 0.0f))
		w = (float)(L->U ? avg_final_sums(L->U[r], w, e->tr->n)
		                 : avg_final(atomic_load_explicit(&L->A[r], memory_order_relaxed), w, e->tr->n));
	if (!r && L->ncenter) { /* the bias takes the centered features' means back: b - sum w_r mean_r (raw units) */
		double b = w;
		for (uint32_t k = 0; k < L->ncenter; k++)
			b -= (double)weight_of(e, L->center_r[k], averaged) * L->xshift[L->center_r[k]];
		return (float)b;
	}
	return L->xscale ? w * L->xscale[r] : w;
}

/* The model in the data set's feature order: as it stands (checkpoints: what
 * resuming continues from), or with the last epoch's average as its weights. */
static hog_model *model_out(const hog_engine *e, int averaged)
{
	const lin_state *L = e->model;
	hog_model *m = hog_model_new(L->dim, e->o.loss, e->o.rule);
	if (!m)
		return NULL;
	const uint32_t S = L->S;
	for (uint64_t v = 0; v < L->dim; v++)
		for (uint32_t k = 0; k < S; k++)
			m->params[v * S + k] = k ? ald(&L->P[(size_t)L->map[v] * S + k]) : weight_of(e, L->map[v], averaged);
	for (uint32_t k = 0; k < S; k++)
		m->params[L->dim * S + k] = k ? ald(&L->P[k]) : weight_of(e, 0, averaged);
	return m;
}

static hog_model *lin_snapshot(const hog_engine *e)
{
	return model_out(e, 0);
}

static hog_model *lin_result(const hog_engine *e)
{
	return model_out(e, e->o.linear.average);
}

/* --delay: updates wait in the workers' queues between rounds. */
static int lin_holds_updates(const hog_engine *e)
{
	return e->o.delay != 0;
}

/* --average's last epoch: the mean of its iterates, the model handed back, is
 * in no checkpoint (one written inside it resumed into another model: log
 * loss 0.4257 for 0.4379, every weight different). */
static int lin_epoch_end_only(const hog_engine *e)
{
	const lin_state *L = e->model;
	return L->avg_final;
}

/* What the run's mode kept, for the CLI's closing lines. */
static void lin_report(const hog_engine *e, hog_train_result *res)
{
	const lin_state *L = e->model;
	res->hot = L->hot_shown;
	res->damped = L->damped;
	res->node_replicas = L->node_replicas;
	res->prefetch = L->ks.prefetch;
}

static int lin_restore(hog_engine *e, const hog_model *m)
{
	lin_state *L = e->model;
	if (m->dim != L->dim)
		return hog_err_set(e->err, HOG_EMISMATCH, "%s: the checkpoint is for %llu features; this data set has %llu",
		                   e->o.resume, (unsigned long long)m->dim, (unsigned long long)L->dim);
	const uint32_t S = L->S;
	for (uint64_t v = 0; v < L->dim; v++)
		for (uint32_t k = 0; k < S; k++) { /* (the scales are powers of two: exact) */
			float p = m->params[v * S + k];
			ast(&L->P[(size_t)L->map[v] * S + k], k || !L->xscale ? p : p / L->xscale[L->map[v]]);
		}
	for (uint32_t k = 0; k < S; k++)
		ast(&L->P[k], m->params[L->dim * S + k]);
	if (L->ncenter) { /* (the checkpoint's bias is in raw units: weight_of's, undone) */
		double b = m->params[L->dim * S];
		for (uint64_t v = 0; v < L->dim; v++)
			if (L->xshift[L->map[v]] != 0)
				b += (double)m->params[v * S] * L->xshift[L->map[v]];
		ast(&L->P[0], (float)b);
	}
	return 0;
}

/* MPI: the whole parameter vector, weights and the step rule's sums. Sending
 * only the coordinates the ranks touched since the last averaging costs an id
 * and a value (8 bytes) per touched coordinate and rank, against 4 bytes per
 * coordinate dense: it wins only when fewer than half of them change between
 * two averagings. Measured on the RCV1-shaped set: 20000 examples touch 99.4%
 * of the coordinates, 1000 examples 38% (bench/results/mpi.md), so dense. */
static size_t lin_shared_params(hog_engine *e, eng_span *sp, size_t cap)
{
	lin_state *L = e->model;
	if (cap >= 1)
		sp[0] = (eng_span){ (float *)L->P, (size_t)L->D * L->S, 0, 0 }; /* a vector (weights and sums interleaved) */
	return 1;
}

/* ------------------------------------------------------------ evaluation */

/* The team computes the test margins, one slice each. */
static void lin_eval_slice(hog_engine *e, int k)
{
	lin_state *L = e->model;
	const hog_data *d = e->te;
	const uint32_t S = L->S;
	uint64_t a, b;
	eng_share(d->n, k, e->T, &a, &b);
	const uint32_t *const map = L->map;
	const uint64_t dim = L->dim;
	if (L->A || L->U || L->xscale) { /* the weights the model file will hold: made once, a slice each, then
	                            read as the weights are below (weight_of at every nonzero of the
	                            test set, its average's double arithmetic, had cost thread 0 as
	                            much as a tenth of an epoch) */
		float *const W = L->wserve;
		uint64_t c0, c1;
		eng_share(L->D, k, e->T, &c0, &c1);
		for (uint64_t r = c0; r < c1; r++)
			W[r] = weight_of(e, r, L->A || L->U);
		hog_barrier_wait(&e->bar); /* (every worker evaluates: engine.h, eval_slice) */
		for (uint64_t i = a; i < b; i++) {
			float m = W[0];
			for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++)
				if (d->ids[j] < dim)
					m += W[map[d->ids[j]]] * (d->vals ? d->vals[j] : 1.0f);
			L->test_margins[i] = m;
		}
		return;
	}
	for (uint64_t i = a; i < b; i++) {
		float m = ald(&L->P[0]);
		for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++)
			if (d->ids[j] < dim)
				m += ald(&L->P[(size_t)map[d->ids[j]] * S]) * (d->vals ? d->vals[j] : 1.0f);
		L->test_margins[i] = m;
	}
}

static void lin_epoch_stats(hog_engine *e, hog_epoch_stats *s)
{
	const lin_state *L = e->model;
	if (e->o.diagnostics) { /* (thread 0 alone, the team waiting: asked for, not by default) */
		s->noise_scale = lin_noise_scale(e);
		s->nonzeros = 0; /* of the weights the model would hand back now (evaluated with the test set) */
		for (uint64_t r = 1; r < L->D; r++)
			s->nonzeros += weight_of(e, r, L->ks.A || L->ks.U) != 0.0f;
	}
	if (e->o.rule == HOG_RULE_SGD && e->o.mode != HOG_MODE_DETERMINISTIC) {
		/* |what the bias should have moved - what it moved| over the total size of
		 * the changes made: the share of update mass lost to overwrites (float
		 * rounding alone leaves ~1e-6). Not for deterministic mode, where nothing
		 * races and the merge's mean of the shards' changes (linear_determ.c) is
		 * by design: unset (NaN, shown as -) */
		double want = 0, gross = 0, got = (double)ald(&L->P[0]) - L->bias_start;
		for (int q = 0; q < e->T; q++) {
			const lin_worker *w = e->w[q]->m;
			want += w->k.bias_sum;
			gross += w->k.bias_abs;
		}
		s->bias_lost = gross > 0 ? fabs(want - got) / gross : 0;
	}
	if (e->te) {
		hog_eval ev;
		hog_model_eval_margins(e->o.loss, L->test_margins, e->te->labels, e->te->n,
		                       e->te->meta.task == HOG_TASK_BINARY, &ev);
		s->test_loss = ev.loss;
		s->test_acc = ev.accuracy;
		s->test_auc = ev.auc;
		s->test_rmse = ev.rmse;
		s->test_mae = ev.mae;
	}
}

const hog_trainer_ops hog_linear_trainer = {
	.kind = HOG_MODEL_LINEAR,
	.unit = "nnz",
	.weighs = 1,
	.default_mode = lin_default_mode,
	.default_chunk = lin_default_chunk,
	.route = lin_route,
	.losses = 1u << HOG_LOSS_LOGISTIC | 1u << HOG_LOSS_HINGE | 1u << HOG_LOSS_SQUARED | 1u << HOG_LOSS_SOFTMAX,
	.modes = ((1u << HOG_MODE_COUNT) - 1) | 1u << HOG_MODE_REPLICA | 1u << HOG_MODE_DETERMINISTIC, /* not grid */
	.streams = 1,
	.opts_init = lin_opts_init,
	.opts_hash = lin_opts_hash,
	.opts_names = "--hot, --stripe-size, --average, --l1",
	.check = lin_check,
	.setup = lin_setup,
	.worker_init = lin_worker_init,
	.worker_free = lin_worker_free,
	.round = lin_round,
	.epoch_begin = lin_epoch_begin,
	.round_end = lin_round_end,
	.round_merge = lin_round_merge,
	.round_share = lin_det_share,
	.stop = lin_stop,
	.holds_updates = lin_holds_updates,
	.epoch_end_only = lin_epoch_end_only,
	.epoch_started = lin_epoch_started,
	.probe = lin_probe,
	.eval_slice = lin_eval_slice,
	.epoch_stats = lin_epoch_stats,
	.shared_params = lin_shared_params,
	.snapshot = lin_snapshot,
	.result = lin_result,
	.report = lin_report,
	.restore = lin_restore,
	.free = lin_free,
};
