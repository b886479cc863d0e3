/* The sparse linear model on the training engine (engine.h): its shared
 * parameters, the workers' shards, the specialized rounds, buffered mode's hot
 * coordinates, the --delay queue, and evaluation.
 *
 * Setup (before the threads start):
 *  - features are renumbered by falling frequency (internal id 0 is the bias), so
 *    hot coordinates share cache lines and come first in every row; the per-
 *    coordinate regularizer l2 * n / d_v (Hogwild! paper, §5: lambda w_v / d_v
 *    summed over an epoch is lambda w_v) is precomputed;
 *  - the examples are dealt to the workers by a seeded permutation.
 * Each worker copies its share into memory on its own NUMA node with ids
 * renumbered (rows sorted where a mode needs it) -- or, handed the data set
 * (hog_train_consume), rewrites its share in place and trains there; or, given
 * the store (--stream), decodes one block at a time. The per-example kernel is
 * kernel.h's, instantiated once per (mode, rule, loss, has-values). --average
 * and --normalize change what the model hands back (weight_of).
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
#include "sys/names.h"
#include "train/engine.h"
#include "train/kernel.h"
#include "train/replica.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pending { /* one example read but not yet written (--delay) */
	uint32_t row;
	float g;
	uint64_t seen; /* team's applied count at the read; UINT64_MAX: not sampled */
} pending;

typedef struct lin_seg { /* --stream: a run of an epoch's order inside one block */
	uint32_t slot;              /* the worker's block (index into its list) */
	uint64_t from, to;          /* positions in the epoch's order */
} lin_seg;

typedef struct lin_worker {
	kern_worker k;
	/* --stream: the worker's blocks, the current one decoded into the shard's
	 * arrays (sized for the largest block), and the epoch's segments */
	const uint32_t *sblk;       /* its blocks (numbers), nsblk of them */
	uint64_t nsblk;
	uint64_t *sfirst;           /* nsblk + 1: its examples before each block */
	lin_seg *seg;
	uint64_t nseg, cur_seg;
	int64_t loaded;             /* the slot whose block is in the arrays, -1: none */
	float *stmp;                /* buffered: hot_first()'s room */
	/* the shard, in memory on the worker's node */
	uint64_t nnz, nnz_max;
	float *y;
	uint64_t *off;
	uint32_t *ids;
	float *xs;
	void *shard;
	size_t shard_bytes;
	uint32_t since_flush;
	uint32_t flushes;           /* node replicas: the owner's flushes, for its sync phase */
	/* delay queue */
	pending *q;
	float *qsnap;               /* (delay+1) * (nnz_max+1) g-bar snapshots */
	float *gsnap_own;           /* k.gsnap's own buffer (k.gsnap points into qsnap with --delay) */
	uint32_t qhead, qlen;
} lin_worker;

typedef struct lin_pos { /* --average: a worker's position in the epoch, read by the others */
	_Alignas(64) _Atomic uint64_t v;
	char pad[56];
} lin_pos;

typedef struct lin_state {
	uint64_t dim, D;            /* features; coordinates = dim + 1 */
	uint32_t S;
	_Atomic float *P;
	size_t P_bytes;
	float *reg;
	uint32_t *map;              /* data set feature id -> internal id */
	uint32_t *inv;              /* internal id -> data set feature id (0 = bias) */
	uint32_t *perm;             /* examples dealt to workers */
	uint32_t *test_ids;         /* test ids mapped to internal ids (UINT32_MAX: unknown) */
	float *test_margins;
	hog_spin *locks;
	uint32_t nlocks;
	_Atomic uint64_t *A;        /* --average: D (mean, time) words (kernel.h, avg_touch) */
	lin_pos *pos;               /* --average: T positions */
	float *xscale;              /* --normalize: per internal id, the factor on its values (a
	                               power of two: 1 / max |x| rounded up), 1 for the bias */
	kern_shared ks;
	float bias_start;           /* the bias when the epoch began */
	/* --stream */
	hog_block *blk;             /* every block's view (read and checked once in setup) */
	uint64_t nb;
	uint32_t *bperm;            /* blocks dealt to workers */
	int svals;                  /* some block has values */
	uint64_t blk_n, blk_nnz, row_nnz; /* the largest block's examples, nonzeros; longest row */
	int private_;               /* buffered, replica: workers keep records 0..ks.hot-1 privately */
	uint32_t avg;               /* ... and flush records 0..avg-1 averaged (divided by T) and the
	                               rest summed */
	uint32_t flush_every;       /* examples between flushes */
	/* replica on several NUMA nodes (replica.h); np.nodes <= 1: none, flat mode */
	hog_node_plan np;
	struct lin_node {           /* one per node: set by its owner in worker_init */
		_Atomic float *N;       /* the node replica (D * S), on the node */
		float *base;            /* the global values N last took (the owner's) */
	} *node;
	uint32_t node_sync;         /* the owner's flushes between syncs */
} lin_state;

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
 * serial SGD would apply them (see setup_features for the measurements). On one
 * thread this is serial SGD. AdaGrad's sums of squared gradients (record
 * component 1) are counts, not corrections: summed.
 *
 * A relaxed load and store, not a CAS: lock-prefixed instructions drain the
 * store buffer and cost ~25 cycles each, a quarter of the single-thread time for
 * ~2000 coordinates every 256 examples; a change can be lost when two workers
 * flush one coordinate at the same instant, so each starts its sweep elsewhere. */
static void node_flush(const hog_engine *e, int id, lin_worker *w, int may_sync);

static void flush_hot(const hog_engine *e, int id, lin_worker *w)
{
	const lin_state *L = e->model;
	if (L->node) { /* replica on several nodes (a branch at every flush) */
		node_flush(e, id, w, 1);
		return;
	}
	/* replica.h's rep_flush with --average's touch: not a call to it, which
	 * would read L->ks.A up front; here it is read only for a coordinate that
	 * changed, never in the epoch's opening flush (nothing changed), which runs
	 * while thread 0 sets ks.A for the epoch (lin_epoch_started; TSan) */
	const uint32_t S = L->S, n = L->ks.hot * S, navg = L->avg * S;
	const float share = 1.0f / (float)e->T;
	_Atomic float *P = L->P;
	float *rec = w->k.hrec, *base = w->k.hbase;
	uint32_t start = (uint32_t)((uint64_t)L->ks.hot * (uint32_t)id / (uint32_t)e->T) * S;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = start + k < n ? start + k : start + k - n;
		float d = rec[i] - base[i], p = ald(&P[i]);
		if (d != 0.0f) {
			if (L->ks.A && (S == 1 || i % S == 0)) /* the shared value changes here only */
				avg_touch(HOG_MODE_LOCKFREE, &L->ks.A[i / S], p, w->k.avg_c, w->k.avg_inv);
			p += i < navg && (S == 1 || i % S == 0) ? d * share : d;
			ast(&P[i], p);
		}
		rec[i] = base[i] = p;
	}
	w->since_flush = 0;
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
		               1.0f / (float)L->np.nodes, start, L->ks.A, w->k.avg_c, w->k.avg_inv);
	} else {
		uint32_t start = (uint32_t)((uint64_t)L->ks.hot * (uint32_t)L->np.slot[id] / (uint32_t)m) * S;
		rep_flush(nd->N, w->k.hrec, w->k.hbase, n, navg, S, 1.0f / (float)m, start);
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
		         w0->k.avg_c, w0->k.avg_inv);
	for (int r = 0; r < L->np.nodes; r++)
		rep_take(L->P, L->node[r].N, L->node[r].base, n);
}

/* ---------------------------------------------------------- the rounds */

/* Rows are visited in a fresh random order every epoch, so the hardware cannot
 * guess the next one: fetch a whole row's ids and values a few examples ahead,
 * or every row costs a few serialized trips to memory (measured: 0.30 s an epoch
 * on the RCV1-shaped set without, see bench/results). */
#define PREFETCH_AHEAD 4
HOG_INLINE void prefetch_row(const lin_worker *w, uint32_t r, const int VALS)
{
	uint64_t lo = w->off[r], hi = w->off[r + 1];
	const char *a = (const char *)&w->ids[lo], *ae = (const char *)&w->ids[hi];
	for (; a < ae; a += 64)
		__builtin_prefetch(a);
	if (VALS) {
		const char *b = (const char *)&w->xs[lo], *be = (const char *)&w->xs[hi];
		for (; b < be; b += 64)
			__builtin_prefetch(b);
	}
	__builtin_prefetch(&w->y[r]);
}

/* --average: the examples the team has done in this epoch, from the workers'
 * positions, published and read every 64 examples (between two readings each
 * worker is taken to advance at the same pace). Not i * T: a worker that waits
 * for locks or the scheduler falls behind, and the average's accumulators then
 * count its updates at the wrong time (measured: striped and atomic test
 * accuracy scattered over 2 points from run to run with 2 threads). */
static uint64_t team_pos(const hog_engine *e, const eng_worker *ew, uint64_t i)
{
	const lin_state *L = e->model;
	atomic_store_explicit(&L->pos[ew->id].v, i, memory_order_relaxed);
	uint64_t c = 0;
	for (int q = 0; q < e->T; q++)
		c += atomic_load_explicit(&L->pos[q].v, memory_order_relaxed);
	return c;
}

/* One example with --measure-delay in the modes that lock (locked, striped):
 * the team's count is read once the example's locks are held and its own
 * update counted before they are let go, so the delay is the updates that
 * landed between its read and its write -- none under one global lock -- and
 * not those it waited for at the lock. Inside the locks the example is the
 * lock-free one (the same reads and writes: only atomic and buffered differ). */
HOG_INLINE void measured_locked(const enum hog_mode MODE, const enum hog_rule RULE, const enum hog_loss LOSS,
                                const int VALS, const hog_engine *e, eng_worker *ew, const kern_shared *sh,
                                kern_worker *wk, const uint32_t *ids, const float *xs, uint32_t nnz, float y,
                                float lr, int sample)
{
	lock_example(MODE, sh, ids, nnz);
	const uint64_t seen = sample ? eng_team_applied(e) : 0;
	process_example(HOG_MODE_LOCKFREE, RULE, LOSS, VALS, sh, wk, ids, xs, nnz, y, lr);
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
		const uint32_t *order = ew->order;                                                       \
		const int measure = e->o.measure_delay;                                                  \
		const uint64_t T = (uint64_t)e->T * e->ranks, base = (uint64_t)epoch * e->tr->n;         \
		uint64_t i = from, nnz_done = 0;                                                         \
		for (uint32_t chunk = 1; i < to; chunk++) {                                              \
			if ((chunk & 15) == 0 && eng_stop_requested(e))                                      \
				break;                                                                           \
			const float lr = eng_lr_at(e, epoch, base + i * T);                                  \
			const uint64_t end = to - i > 64 ? i + 64 : to;                                      \
			const uint64_t c0 = sh->A ? team_pos(e, ew, i) - i * T : 0;                          \
			for (; i < end; i++) {                                                               \
				uint32_t r = order[i];                                                           \
				uint64_t lo = w->off[r];                                                         \
				uint32_t nnz = (uint32_t)(w->off[r + 1] - lo);                                   \
				if (i + 4 * PREFETCH_AHEAD < to)                                                 \
					__builtin_prefetch(&w->off[order[i + 4 * PREFETCH_AHEAD]]);                  \
				if (i + PREFETCH_AHEAD < to)                                                     \
					prefetch_row(w, order[i + PREFETCH_AHEAD], VALS);                            \
				uint64_t seen = 0;                                                               \
				int sample = measure && (i & HOG_DELAY_SAMPLE_MASK) == 0;                        \
				if (L->A) { /* the average's clock, read only with --average */                  \
					w->k.avg_c = (uint32_t)(c0 + i * T);                                         \
					w->k.avg_inv = 1.0f / (float)w->k.avg_c;                                     \
				}                                                                                \
				nnz_done += nnz;                                                                 \
				if (measure && (MODE == HOG_MODE_LOCKED || MODE == HOG_MODE_STRIPED)) {          \
					measured_locked(MODE, RULE, LOSS, VALS, e, ew, sh, &w->k, w->ids + lo,       \
					                VALS ? w->xs + lo : NULL, nnz, w->y[r], lr, sample);         \
					continue;                                                                    \
				}                                                                                \
				if (sample) seen = eng_team_applied(e);                                          \
				process_example(MODE, RULE, LOSS, VALS, sh, &w->k, w->ids + lo,                  \
				                VALS ? w->xs + lo : NULL, nnz, w->y[r], lr);                     \
				if (measure) {                                                                   \
					eng_count_applied(ew);                                                       \
					if (sample) eng_note_delay(ew, eng_team_applied(e) - seen - 1);              \
				}                                                                                \
				if (MODE == HOG_MODE_BUFFERED && ++w->since_flush >= L->flush_every)             \
					flush_hot(e, ew->id, w);                                                     \
			}                                                                                    \
		}                                                                                        \
		ew->ex_done += i - from;                                                                 \
		ew->units_done += nnz_done;                                                              \
		ew->loss += w->k.loss;                                                                   \
		w->k.loss = 0;                                                                           \
		return i;                                                                                \
	}

#define DEF_ROUND(M, R, L, V) \
	static uint64_t round_##M##_##R##_##L##_##V(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to) \
	ROUND_BODY(HOG_MODE_##M, HOG_RULE_##R, HOG_LOSS_##L, V)
#define DEF_ROUND_V(M, R, L) DEF_ROUND(M, R, L, 0) DEF_ROUND(M, R, L, 1)
#define DEF_ROUND_L(M, R) DEF_ROUND_V(M, R, LOGISTIC) DEF_ROUND_V(M, R, HINGE) DEF_ROUND_V(M, R, SQUARED)
#define DEF_ROUND_R(M) DEF_ROUND_L(M, SGD) DEF_ROUND_L(M, ADAGRAD) DEF_ROUND_L(M, ADAREVISION)
DEF_ROUND_R(LOCKFREE)
DEF_ROUND_R(ATOMIC)
DEF_ROUND_R(STRIPED)
DEF_ROUND_R(LOCKED)
DEF_ROUND_L(BUFFERED, SGD)
DEF_ROUND_L(BUFFERED, ADAGRAD)

#define REF_V(M, R, L) { round_##M##_##R##_##L##_0, round_##M##_##R##_##L##_1 }
#define REF_L(M, R) { REF_V(M, R, LOGISTIC), REF_V(M, R, HINGE), REF_V(M, R, SQUARED) }
#define REF_R(M) { REF_L(M, SGD), REF_L(M, ADAGRAD), REF_L(M, ADAREVISION) }
static const eng_round_fn round_table[HOG_MODE_ALL][3][3][2] = {
	[HOG_MODE_SERIAL] = REF_R(LOCKFREE), /* one worker: the same loop, bit for bit */
	[HOG_MODE_LOCKFREE] = REF_R(LOCKFREE),
	[HOG_MODE_BUFFERED] = { REF_L(BUFFERED, SGD), REF_L(BUFFERED, ADAGRAD) },
	/* replica is buffered's kernel with every coordinate private */
	[HOG_MODE_REPLICA] = { REF_L(BUFFERED, SGD), REF_L(BUFFERED, ADAGRAD) },
	[HOG_MODE_ATOMIC] = REF_R(ATOMIC),
	[HOG_MODE_STRIPED] = REF_R(STRIPED),
	[HOG_MODE_LOCKED] = REF_R(LOCKED),
};

/* --delay K: each example's update is queued and written K examples later. The
 * read and the write each take the mode's locks on their own. Not specialized by
 * loss and values: this path is for studying step rules under delay. */
static void apply_pending(hog_engine *e, eng_worker *ew, pending *p, float *snap, float lr)
{
	const lin_state *L = e->model;
	lin_worker *w = ew->m;
	const enum hog_mode mode = e->o.mode == HOG_MODE_SERIAL ? HOG_MODE_LOCKFREE : e->o.mode;
	uint64_t lo = w->off[p->row];
	uint32_t nnz = (uint32_t)(w->off[p->row + 1] - lo);
	const uint32_t *ids = w->ids + lo;
	const float *xs = w->xs ? w->xs + lo : NULL;
	w->k.gsnap = snap;
	uint64_t applied = 0;
#define APPLY(M, R)                                                                                    \
	do {                                                                                               \
		lock_example(M, &L->ks, ids, nnz);                                                             \
		if (xs) write_update(M, R, 1, &L->ks, &w->k, ids, xs, nnz, 0, p->g, lr);                      \
		else write_update(M, R, 0, &L->ks, &w->k, ids, xs, nnz, 0, p->g, lr);                         \
		eng_count_applied(ew); /* inside the locks, as the read's count (read_pending) */             \
		applied = eng_team_applied(e);                                                                 \
		unlock_example(M, &L->ks, ids, nnz);                                                           \
	} while (0)
#define APPLY_R(M)                                                                 \
	do {                                                                           \
		switch (e->o.rule) {                                                       \
		case HOG_RULE_SGD: APPLY(M, HOG_RULE_SGD); break;                          \
		case HOG_RULE_ADAGRAD: APPLY(M, HOG_RULE_ADAGRAD); break;                  \
		case HOG_RULE_ADAREVISION: APPLY(M, HOG_RULE_ADAREVISION); break;          \
		}                                                                          \
	} while (0)
	switch (mode) {
	case HOG_MODE_ATOMIC: APPLY_R(HOG_MODE_ATOMIC); break;
	case HOG_MODE_STRIPED: APPLY_R(HOG_MODE_STRIPED); break;
	case HOG_MODE_LOCKED: APPLY_R(HOG_MODE_LOCKED); break;
	default: APPLY_R(HOG_MODE_LOCKFREE); break;
	}
	if (p->seen != UINT64_MAX)
		eng_note_delay(ew, applied - p->seen - 1);
}

/* The margin of @p row under the mode's locks; *seen (when not NULL): the
 * team's count at the read, taken inside the locks. */
static float read_pending(hog_engine *e, eng_worker *ew, uint32_t row, float *snap, uint64_t *seen)
{
	const lin_state *L = e->model;
	lin_worker *w = ew->m;
	const enum hog_mode mode = e->o.mode == HOG_MODE_SERIAL ? HOG_MODE_LOCKFREE : e->o.mode;
	uint64_t lo = w->off[row];
	uint32_t nnz = (uint32_t)(w->off[row + 1] - lo);
	const uint32_t *ids = w->ids + lo;
	const float *xs = w->xs ? w->xs + lo : NULL;
	w->k.gsnap = snap;
	float m = 0;
#define READ(M, R)                                                                         \
	do {                                                                                   \
		lock_example(M, &L->ks, ids, nnz);                                                 \
		if (seen)                                                                          \
			*seen = eng_team_applied(e);                                                   \
		m = xs ? read_margin(M, R, 1, &L->ks, &w->k, ids, xs, nnz, 0)                      \
		       : read_margin(M, R, 0, &L->ks, &w->k, ids, xs, nnz, 0);                     \
		unlock_example(M, &L->ks, ids, nnz);                                               \
	} while (0)
#define READ_R(M)                                                                  \
	do {                                                                           \
		switch (e->o.rule) { /* the rule sets the record stride: all three */      \
		case HOG_RULE_SGD: READ(M, HOG_RULE_SGD); break;                           \
		case HOG_RULE_ADAGRAD: READ(M, HOG_RULE_ADAGRAD); break;                   \
		case HOG_RULE_ADAREVISION: READ(M, HOG_RULE_ADAREVISION); break;           \
		}                                                                          \
	} while (0)
	switch (mode) {
	case HOG_MODE_ATOMIC: READ_R(HOG_MODE_ATOMIC); break;
	case HOG_MODE_STRIPED: READ_R(HOG_MODE_STRIPED); break;
	case HOG_MODE_LOCKED: READ_R(HOG_MODE_LOCKED); break;
	default: READ_R(HOG_MODE_LOCKFREE); break;
	}
	return m;
}

static void drain_pending(hog_engine *e, eng_worker *ew, float lr)
{
	lin_worker *w = ew->m;
	const uint32_t K1 = (uint32_t)e->o.delay + 1;
	while (w->qlen) {
		uint32_t slot = (w->qhead + K1 - w->qlen) % K1;
		apply_pending(e, ew, &w->q[slot], w->qsnap + (size_t)slot * (w->nnz_max + 1), lr);
		w->qlen--;
	}
}

static uint64_t round_delayed(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to)
{
	lin_worker *w = ew->m;
	const uint32_t K1 = (uint32_t)e->o.delay + 1;
	const uint64_t T = (uint64_t)e->T * e->ranks, base = (uint64_t)epoch * e->tr->n;
	const enum hog_loss loss = e->o.loss;
	const lin_state *L = e->model;
	uint64_t i, c0 = L->ks.A ? team_pos(e, ew, from) - from * T : 0;
	for (i = from; i < to; i++) {
		if ((i & 1023) == 0 && eng_stop_requested(e))
			break;
		float lr = eng_lr_at(e, epoch, base + i * T);
		if (L->ks.A && (i & 63) == 0)
			c0 = team_pos(e, ew, i) - i * T;
		w->k.avg_c = (uint32_t)(c0 + i * T);
		w->k.avg_inv = 1.0f / (float)w->k.avg_c;
		uint32_t row = ew->order[i], slot = w->qhead;
		pending *p = &w->q[slot];
		float *snap = w->qsnap + (size_t)slot * (w->nnz_max + 1);
		p->row = row;
		p->seen = UINT64_MAX;
		float m = read_pending(e, ew, row, snap, (i & HOG_DELAY_SAMPLE_MASK) == 0 ? &p->seen : NULL);
		float y = w->y[row];
		ew->loss += hog_loss_value(loss, m, y);
		p->g = hog_loss_deriv(loss, m, y);
		ew->units_done += w->off[row + 1] - w->off[row];
		w->qhead = (slot + 1) % K1;
		if (++w->qlen == K1) { /* the oldest has waited K further reads */
			uint32_t old = w->qhead; /* slot after the newest = oldest */
			apply_pending(e, ew, &w->q[old], w->qsnap + (size_t)old * (w->nnz_max + 1), lr);
			w->qlen--;
		}
	}
	ew->ex_done += i - from;
	return i;
}

static uint64_t round_stream(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to);

static eng_round_fn in_memory_round(const hog_engine *e)
{
	const lin_state *L = e->model;
	return round_table[e->o.mode][e->o.rule][e->o.loss][e->store ? L->svals : e->tr->vals != NULL];
}

static eng_round_fn lin_round(const hog_engine *e)
{
	if (e->o.delay)
		return round_delayed;
	return e->store ? round_stream : in_memory_round(e);
}

/* ------------------------------------------------------------ --stream
 *
 * hog_train_stream(): no hog_data, only the store's blocks. Setup reads every
 * block once (checksums, feature counts, the largest block) and keeps its view;
 * the blocks are dealt to the workers by a seeded shuffle. Each epoch a worker
 * visits its blocks in a shuffled order and each block's examples in a shuffled
 * order (stream_order), so its epoch is a run of segments, one per block. A
 * round decodes the segment's block into the worker's arrays (ids renumbered,
 * values scaled, rows sorted as build_shard() does) and runs the in-memory
 * round of this run's mode, rule and loss over it: the kernel is the same. The
 * block's pages then leave the resident set; the page cache keeps them while
 * memory allows, and reads them again from the file when it does not. */

static void sort_row(uint32_t *ids, float *xs, uint64_t n);
static void hot_first(uint32_t *ids, float *xs, uint64_t n, uint32_t hot, float *tmp);

/* Every block once: its view, feature counts, the largest |x| and sum of x^2
 * per feature (the default step and --normalize's scales), the sizes the
 * workers' arrays need. Sets o.lr when it is 0, as check() does for a loaded set. */
static int stream_scan(hog_engine *e, lin_state *L, uint64_t *cnt, float **scales)
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
	int rc = 0;
	uint64_t ex = 0;
	for (uint64_t b = 0; b < L->nb && !rc; b++) {
		hog_block *k = &L->blk[b];
		if ((rc = hog_store_block(e->store, b, k, e->err)))
			break;
		if (k->kind != HOG_KIND_SPARSE || k->first != ex) {
			rc = hog_err_set(e->err, HOG_ECORRUPT, "block %llu does not follow on from the one before",
			                 (unsigned long long)b);
			break;
		}
		ex += k->n;
		L->svals |= k->vals != NULL;
		L->blk_n = k->n > L->blk_n ? k->n : L->blk_n;
		L->blk_nnz = k->nnz > L->blk_nnz ? k->nnz : L->blk_nnz;
		for (uint32_t i = 0; i < k->n; i++) {
			uint64_t r = k->offsets[i + 1] - k->offsets[i];
			L->row_nnz = r > L->row_nnz ? r : L->row_nnz;
		}
		for (uint64_t j = 0; j < k->nnz; j++) {
			uint32_t v = k->ids[j];
			float x = k->vals ? k->vals[j] : 1.0f;
			cnt[v]++;
			mx[v] = fmaxf(mx[v], fabsf(x));
			sq[v] += (double)x * x;
		}
		hog_store_release(e->store, k);
	}
	if (!rc && ex != e->tr->n)
		rc = hog_err_set(e->err, HOG_ECORRUPT, "the blocks hold %llu examples, the meta data says %llu",
		                 (unsigned long long)ex, (unsigned long long)e->tr->n);
	/* the scales of eng_feature_scales(), from the largest |x| */
	uint64_t changed = 0;
	if (!rc)
		eng_scales_from_max(mx, L->dim + 1, e->o.normalize, &changed);
	if (!rc)
		eng_scales_settle(&e->o, changed, L->dim);
	if (!rc && e->o.lr == 0) {
		double t = 0;
		for (uint64_t v = 0; v < L->dim; v++)
			t += sq[v] * (double)mx[v] * mx[v];
		e->o.lr = e->o.rule == HOG_RULE_SGD ? 1.0 / (1.0 + t / (double)(e->tr->n ? e->tr->n : 1)) : 0.1;
	}
	free(sq);
	if (rc) {
		free(mx);
		return rc;
	}
	for (uint64_t b = 0; b < L->nb; b++)
		L->bperm[b] = (uint32_t)b;
	eng_shuffle_u32(L->bperm, L->nb, e->o.seed ^ 0xB10Cull);
	*scales = mx;
	return 0;
}

/* The worker's shard arrays in one allocation on its node (the worker is
 * bound: first touch places it), each 64-byte aligned: rows rows of labels and
 * offsets, nnz ids (and values), and an order of norder entries. */
static int shard_alloc(hog_engine *e, eng_worker *ew, lin_worker *w, uint64_t rows, uint64_t nnz, int vals,
                       uint64_t norder)
{
	size_t bytes = rows * 4 + (rows + 1) * 8 + nnz * 4 + (vals ? nnz * 4 : 0) + norder * 4 + 64 * 5;
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
	TAKE(ew->order, norder * 4);
#undef TAKE
	return 0;
}

/* The worker's blocks and arrays sized for the largest block. */
static int stream_shard(hog_engine *e, eng_worker *ew, lin_worker *w)
{
	const lin_state *L = e->model;
	uint64_t b0, b1;
	eng_worker_share(e, ew, L->nb, &b0, &b1); /* with MPI, this rank's blocks */
	w->sblk = L->bperm + b0;
	w->nsblk = b1 - b0;
	w->loaded = -1;
	if (!(w->sfirst = malloc((w->nsblk + 1) * sizeof *w->sfirst)) ||
	    !(w->seg = malloc((w->nsblk + 1) * sizeof *w->seg)))
		return ENOMEM;
	uint64_t n = 0;
	for (uint64_t j = 0; j < w->nsblk; j++) {
		w->sfirst[j] = n;
		n += L->blk[w->sblk[j]].n;
	}
	w->sfirst[w->nsblk] = n;
	ew->n = n;
	w->nnz_max = L->row_nnz;
	if (e->o.mode == HOG_MODE_BUFFERED && !(w->stmp = malloc((w->nnz_max + 1) * 8)))
		return ENOMEM;
	return shard_alloc(e, ew, w, L->blk_n, L->blk_nnz, L->svals, n);
}

/* This epoch's order: the worker's blocks shuffled, and inside each block its
 * examples shuffled, seeded by (seed, epoch, worker) so that a resumed run
 * visits the same order. The order holds example numbers inside their block;
 * the segments say which block each run of positions reads. */
static void stream_order(hog_engine *e, eng_worker *ew, int epoch)
{
	lin_worker *w = ew->m;
	uint64_t s = e->o.seed ^ 0x5EEDull;
	s = eng_mix64(&s) ^ ((uint64_t)epoch << 20) ^ (uint64_t)ew->id;
	uint32_t *slots = (uint32_t *)w->seg; /* (room: a lin_seg is larger than a slot) */
	for (uint64_t j = 0; j < w->nsblk; j++)
		slots[j] = (uint32_t)j;
	eng_shuffle_u32(slots, w->nsblk, eng_mix64(&s));
	/* (filled back to front: slots[j] is read before seg[j] overwrites it) */
	uint64_t at = ew->n;
	for (uint64_t q = w->nsblk; q-- > 0;) {
		uint32_t j = slots[q];
		uint64_t m = w->sfirst[j + 1] - w->sfirst[j];
		at -= m;
		w->seg[q] = (lin_seg){ .slot = j, .from = at, .to = at + m };
	}
	for (uint64_t q = 0; q < w->nsblk; q++) {
		uint32_t *o = ew->order + w->seg[q].from;
		uint64_t m = w->seg[q].to - w->seg[q].from;
		for (uint64_t i = 0; i < m; i++)
			o[i] = (uint32_t)i;
		eng_shuffle_u32(o, m, eng_mix64(&s));
	}
	w->nseg = w->nsblk;
	w->cur_seg = 0;
}

/* Decodes the worker's block @p slot into its arrays, as build_shard() copies rows. */
static void stream_load(hog_engine *e, lin_worker *w, uint32_t slot)
{
	const lin_state *L = e->model;
	const hog_block *b = &L->blk[w->sblk[slot]];
	const int binary = e->tr->meta.task == HOG_TASK_BINARY;
	float *tmp = w->stmp;
	w->off[0] = 0;
	for (uint32_t i = 0; i < b->n; i++) {
		uint64_t lo = b->offsets[i], k = b->offsets[i + 1] - lo;
		w->y[i] = binary ? (b->labels[i] > 0 ? 1.0f : -1.0f) : b->labels[i];
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
	w->loaded = slot;
}

static uint64_t round_stream(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to)
{
	lin_worker *w = ew->m;
	const eng_round_fn fn = in_memory_round(e);
	while (from < to) {
		while (w->cur_seg + 1 < w->nseg && w->seg[w->cur_seg].to <= from)
			w->cur_seg++;
		while (w->cur_seg > 0 && w->seg[w->cur_seg].from > from) /* (resumed inside an epoch) */
			w->cur_seg--;
		const lin_seg *g = &w->seg[w->cur_seg];
		if (w->loaded != (int64_t)g->slot)
			stream_load(e, w, g->slot);
		uint64_t end = g->to < to ? g->to : to, got = fn(e, ew, epoch, from, end);
		if (got < end)
			return got; /* a stop request */
		from = end;
	}
	return from;
}

static void lin_epoch_begin(hog_engine *e, eng_worker *ew, int epoch)
{
	lin_worker *w = ew->m;
	const lin_state *L = e->model;
	(void)epoch;
	if (L->pos) /* (the barrier after this: nobody reads the last epoch's) */
		atomic_store_explicit(&L->pos[ew->id].v, 0, memory_order_relaxed);
	if (e->store)
		stream_order(e, ew, epoch);
	w->k.loss = 0;
	w->k.bias_sum = w->k.bias_abs = 0;
	if (((lin_state *)e->model)->node)
		node_flush(e, ew->id, w, 0); /* fresh private copy (the node took the global model at the merge) */
	else if (((lin_state *)e->model)->private_)
		flush_hot(e, ew->id, w); /* fresh private copy */
}

static void lin_round_end(hog_engine *e, eng_worker *ew, int epoch, int last)
{
	if (last && e->o.delay)
		drain_pending(e, ew, eng_lr_at(e, epoch, (uint64_t)(epoch + 1) * e->tr->n));
	if (((lin_state *)e->model)->private_)
		flush_hot(e, ew->id, ew->m);
}

static void lin_stop(hog_engine *e, eng_worker *ew, int epoch)
{
	if (e->o.delay)
		drain_pending(e, ew, eng_lr_at(e, epoch, (uint64_t)epoch * e->tr->n + ew->pos * e->T * e->ranks));
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
	L->ks.A = e->te || epoch == e->o.epochs - 1 ? L->A : NULL;
	if (L->ks.A)
		for (uint64_t v = 0; v < L->D; v++)
			atomic_store_explicit(&L->A[v], 0, memory_order_relaxed);
}

static float lin_probe(const hog_engine *e)
{
	const lin_state *L = e->model;
	return ald(&L->P[0]);
}

/* ------------------------------------------------------------ setup */

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The default step: SGD's 1/(1 + mean |x|^2) keeps the first steps below the
 * curvature of the loss whatever the scale of the features (0.5 for unit-norm
 * rows like RCV1's; ~0.067 for a9a's 14 binary features); AdaGrad normalizes by
 * the gradients itself, so its alpha needs no scale. */
static double default_lr(const hog_data *d, enum hog_rule rule, const float *scale)
{
	if (rule != HOG_RULE_SGD)
		return 0.1;
	double sq = 0;
	if (d->vals)
		for (uint64_t j = 0; j < d->nnz; j++) {
			double x = (double)d->vals[j] * (scale ? scale[d->ids[j]] : 1.0f);
			sq += x * x;
		}
	else
		sq = (double)d->nnz;
	return 1.0 / (1.0 + sq / (double)(d->n ? d->n : 1));
}

double hog_default_lr(const hog_data *d, enum hog_rule rule)
{
	return default_lr(d, rule, NULL);
}

/* A default flush interval: @p dflt examples, fewer when @p cap (a share of a
 * worker's epoch) is smaller, never below 8. */
static uint32_t lin_flush_cap(uint32_t dflt, uint64_t cap)
{
	return cap >= dflt ? dflt : cap < 8 ? 8 : (uint32_t)cap;
}

/* Renumbers features by falling frequency and precomputes the regularizer. */
static int setup_features(hog_engine *e, lin_state *L)
{
	const hog_data *d = e->tr;
	uint64_t *cnt = calloc(L->dim + 1, sizeof *cnt);
	uint64_t *key = malloc((L->dim + 1) * sizeof *key);
	L->map = malloc((L->dim + 1) * sizeof *L->map);
	L->inv = malloc((L->D + 1) * sizeof *L->inv);
	L->reg = malloc(L->D * sizeof *L->reg);
	if (!cnt || !key || !L->map || !L->inv || !L->reg) {
		free(cnt);
		free(key);
		return hog_err_set(e->err, ENOMEM, "out of memory for %llu features", (unsigned long long)L->dim);
	}
	float *scales = NULL;
	int rc = e->store ? stream_scan(e, L, cnt, &scales) : 0;
	if (rc) {
		free(cnt);
		free(key);
		return rc;
	}
	if (!e->store)
		for (uint64_t j = 0; j < d->nnz; j++)
			cnt[d->ids[j]]++;
	/* sort (count desc, id asc) by packing: counts < 2^32 for n < 2^32 examples */
	for (uint64_t v = 0; v < L->dim; v++)
		key[v] = ((uint64_t)(UINT32_MAX - (cnt[v] > UINT32_MAX ? UINT32_MAX : cnt[v])) << 32) | v;
	qsort(key, L->dim, sizeof *key, cmp_key);
	L->inv[0] = UINT32_MAX;
	for (uint64_t r = 0; r < L->dim; r++) {
		uint32_t v = (uint32_t)key[r];
		L->map[v] = (uint32_t)(r + 1);
		L->inv[r + 1] = v;
	}
	if (e->o.normalize) {
		float *s = scales ? scales : eng_feature_scales(d, e->o.normalize, NULL);
		if (!s || !(L->xscale = malloc(L->D * sizeof *L->xscale))) {
			free(s);
			free(cnt);
			free(key);
			return hog_err_set(e->err, ENOMEM, "out of memory for %llu features", (unsigned long long)L->dim);
		}
		L->xscale[0] = 1;
		for (uint64_t r = 1; r < L->D; r++)
			L->xscale[r] = s[L->inv[r]];
		free(s);
	}
	free(e->o.normalize ? NULL : scales);
	/* l2 * n / d_v, clamped so that one step never more than zeroes a weight */
	double cap = e->o.rule == HOG_RULE_SGD ? 1.0 / e->o.lr : e->o.adagrad_beta / e->o.lr;
	L->reg[0] = 0;
	for (uint64_t r = 1; r < L->D; r++) {
		uint64_t c = cnt[L->inv[r]];
		double g = c ? e->o.l2 * (double)d->n / (double)c : 0;
		L->reg[r] = (float)(g < cap ? g : cap);
	}
	/* buffered: hot = coordinates written at least once per flush interval on
	 * average, kept private; at flushes the bias is averaged and the rest summed.
	 * (Averaging every hot coordinate, as before, left the test loss 11% above
	 * serial's on a small binary set and 4% on the RCV1-shaped one, 5 epochs, 2
	 * threads; averaging the bias alone, 0.3% and 1.9%: bench/results/scaling.md.) */
	/* Default flush intervals hold at most a quarter of a worker's epoch: on a
	 * small set an interval longer than the worker's share let each worker make a
	 * whole epoch's change to the dense features alone, and their sum overshot
	 * T-fold, as the bias's did (diabetes, 353 examples, 2 threads, the CLI's
	 * defaults: test RMSE 95.6 buffered against 52.5 serial; 51.6-52.7 capped;
	 * replica on a9a, test loss 0.445 against serial's 0.324; 0.327 capped).
	 * Sets of more than 8192 (buffered) or 131072 (replica) examples a worker
	 * keep 1024 and 16384. */
	const uint64_t share = d->n / (uint64_t)(e->T > 0 ? e->T : 1);
	if (e->o.mode == HOG_MODE_BUFFERED) {
		uint32_t hot = 1;
		L->flush_every = e->o.flush_every ? (uint32_t)e->o.flush_every : lin_flush_cap(1024, share / 4);
		if (e->o.hot >= 0)
			hot = (uint32_t)e->o.hot + 1;
		else
			while (hot < L->D && hot <= 65536 && cnt[L->inv[hot]] * (uint64_t)L->flush_every >= d->n)
				hot++;
		L->ks.hot = hot > L->D ? (uint32_t)L->D : hot;
		L->avg = 1; /* the bias; the hot features' changes are summed (see replica below) */
		L->private_ = 1;
		e->hot = (int)L->ks.hot - (L->ks.hot > 0);
	}
	/* replica: every coordinate private; at a flush the bias (and the --hot most
	 * frequent features) averaged, every other change summed: buffered with
	 * nothing shared between flushes.
	 *
	 * Why the bias alone: within a flush interval each worker corrects the bias by
	 * (nearly) the same whole amount, so summing T corrections overshoots T-fold
	 * and it oscillates (buffered's history). Features are different: averaging
	 * them divides each worker's progress on them by T. Measured at 2 threads, 5
	 * epochs, test loss against serial's (bench/results/scaling.md): averaging
	 * the bias only, 0.1944 / 0.27066 / 0.33483 against serial's 0.1958 / 0.27124 /
	 * 0.33453 on a small binary set, the RCV1-shaped set and a9a; averaging the
	 * features whose lr * K * mean x^2 reaches 1 as well (705, 79 and 82 of them),
	 * 0.2127 / 0.27138 / 0.3278: 8.6% worse on the first.
	 *
	 * Every 16384 examples with --average, 4096 without: a flush sweeps the
	 * whole model, and at 4096 the sweeps held two threads to 84-89% of the
	 * no-sharing bound; at 16384, 94-102% (three interleaved runs on three sets,
	 * --average on), the test loss still within 0.2% of serial's
	 * (bench/results/scaling.md). The average of the iterates absorbs the
	 * replicas' longer drift; the last iterate, without it, does not (0.5% worse
	 * on the node-replica test's small set at 16384). */
	if (e->o.mode == HOG_MODE_REPLICA) {
		L->flush_every = e->o.flush_every ? (uint32_t)e->o.flush_every
		                                  : lin_flush_cap(e->o.average ? 16384 : 4096, share / 4);
		L->ks.hot = (uint32_t)L->D;
		L->avg = e->o.hot > 0 ? (uint32_t)(e->o.hot + 1 < (int64_t)L->D ? e->o.hot + 1 : (int64_t)L->D) : 1;
		L->private_ = 1;
		e->hot = (int)L->avg - 1;
	}
	free(cnt);
	free(key);
	return 0;
}

static void lin_free(hog_engine *e)
{
	lin_state *L = e->model;
	if (!L)
		return;
	if (L->P)
		hog_topo_free(e->topo, (void *)L->P, L->P_bytes);
	free(L->reg);
	free(L->map);
	free(L->inv);
	free(L->perm);
	free(L->test_ids);
	free(L->test_margins);
	free(L->locks);
	free(L->xscale);
	free(L->pos);
	free(L->blk);
	free(L->bperm);
	for (int r = 0; L->node && r < L->np.nodes; r++) {
		hog_topo_free(e->topo, (void *)L->node[r].N, (size_t)L->D * L->S * 4);
		hog_topo_free(e->topo, L->node[r].base, (size_t)L->D * L->S * 4);
	}
	free(L->node);
	hog_topo_node_plan_free(&L->np);
	if (L->A)
		hog_topo_free(e->topo, (void *)L->A, L->D * sizeof *L->A);
	free(L);
	e->model = NULL;
}

/* Replica mode: the node replicas' plan from the workers' places; on several
 * nodes, the two levels (the owners allocate the replicas in worker_init) and a
 * line for the user naming them. */
static int setup_nodes(hog_engine *e, lin_state *L)
{
	if (e->o.node_sync < 0) /* off: one level whatever the nodes */
		return 0;
	if (e->o.bind == HOG_BIND_NONE && hog_topo_is_real(e->topo))
		return 0; /* unbound workers run on any node: no replica is theirs */
	L->node_sync = e->o.node_sync ? (uint32_t)e->o.node_sync : 1;
	int rc = hog_topo_node_plan(e->plan, e->T, (int)L->node_sync, &L->np, e->err);
	if (rc || L->np.nodes < 2)
		return rc;
	if (!(L->node = calloc((size_t)L->np.nodes, sizeof *L->node)))
		return hog_err_set(e->err, ENOMEM, "out of memory");
	e->node_replicas = L->np.nodes;
	if (e->o.on_note) {
		char note[512];
		size_t k = (size_t)snprintf(note, sizeof note,
		                            "replica: %d node replicas, synced with the global model every %u flush%s "
		                            "of each node's first worker (%llu of its examples); ",
		                            L->np.nodes, L->node_sync, L->node_sync == 1 ? "" : "es",
		                            (unsigned long long)L->node_sync * L->flush_every);
		for (int r = 0; r < L->np.nodes && k < sizeof note; r++)
			k += (size_t)snprintf(note + k, sizeof note - k, "%sNUMA node %d: %d worker%s", r ? ", " : "",
			                      L->np.numa[r], L->np.members[r], L->np.members[r] == 1 ? "" : "s");
		e->o.on_note(e->o.ud, note);
	}
	return 0;
}

static int lin_setup(hog_engine *e)
{
	const hog_data *tr = e->tr, *te = e->te;
	lin_state *L = calloc(1, sizeof *L);
	if (L && e->store && !(L->blk = calloc(tr->meta.blocks + 1, sizeof *L->blk))) {
		free(L);
		L = NULL;
	}
	if (!L)
		return hog_err_set(e->err, ENOMEM, "out of memory");
	e->model = L;
	L->dim = tr->dim;
	L->D = tr->dim + 1;
	L->S = hog_rule_stride(e->o.rule);
	int rc = setup_features(e, L);
	if (rc)
		return rc;
	L->P_bytes = L->D * L->S * sizeof(float);
	L->P = hog_topo_alloc_interleaved(e->topo, L->P_bytes);
	L->perm = e->store ? NULL : malloc(tr->n * sizeof *L->perm);
	if (!L->P || (!e->store && !L->perm))
		return hog_err_set(e->err, ENOMEM, "out of memory for the model");
	if (e->o.mode == HOG_MODE_REPLICA && (rc = setup_nodes(e, L)))
		return rc;
	if (e->o.average) {
		if (!(L->A = hog_topo_alloc_interleaved(e->topo, L->D * sizeof *L->A)))
			return hog_err_set(e->err, ENOMEM, "out of memory for the averaged model");
		for (uint64_t v = 0; v < L->D; v++)
			atomic_init(&L->A[v], 0);
		if (!(L->pos = aligned_alloc(64, (size_t)e->T * sizeof *L->pos)))
			return hog_err_set(e->err, ENOMEM, "out of memory");
		for (int q = 0; q < e->T; q++)
			atomic_init(&L->pos[q].v, 0);
	}
	L->ks.A = L->A; /* (per epoch: lin_epoch_started) */
	if (L->perm) {
		for (uint64_t i = 0; i < tr->n; i++)
			L->perm[i] = (uint32_t)i;
		if (!e->o.no_shuffle)
			eng_shuffle_u32(L->perm, tr->n, e->o.seed);
	}
	L->ks.P = L->P;
	L->ks.reg = L->reg;
	L->ks.beta = (float)e->o.adagrad_beta;
	L->ks.stripe_shift = (uint32_t)__builtin_ctz((unsigned)e->o.stripes);
	L->nlocks = e->o.mode == HOG_MODE_STRIPED ? (uint32_t)((L->D >> L->ks.stripe_shift) + 1) : 1;
	if (!(L->locks = aligned_alloc(64, L->nlocks * sizeof *L->locks)))
		return hog_err_set(e->err, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < L->nlocks; i++)
		atomic_init(&L->locks[i].v, 0);
	L->ks.locks = L->locks;
	if (te) {
		L->test_ids = malloc(te->nnz * sizeof *L->test_ids + 4);
		L->test_margins = malloc(te->n * sizeof *L->test_margins + 4);
		if (!L->test_ids || !L->test_margins)
			return hog_err_set(e->err, ENOMEM, "out of memory for the test set");
		for (uint64_t j = 0; j < te->nnz; j++)
			L->test_ids[j] = te->ids[j] < L->dim ? L->map[te->ids[j]] : UINT32_MAX;
	}
	return 0;
}

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

/* hog_train_consume(): the worker's share stays where the data set holds it,
 * its rows rewritten in place as build_shard() would copy them (the workers'
 * rows are disjoint: no two touch one). The engine visits a shuffle of the rows'
 * numbers (ew->rows), which makes the same swaps as the shuffle of 0..n-1 that
 * a copied shard gets: the same examples in the same order. What is lost is
 * the copy's placement on the worker's NUMA node. */
static int shard_in_place(hog_engine *e, eng_worker *ew, lin_worker *w, const uint32_t *rows)
{
	const lin_state *L = e->model;
	hog_data *d = e->own;
	float *tmp = e->o.mode == HOG_MODE_BUFFERED ? malloc((w->nnz_max + 1) * 8) : NULL;
	if ((e->o.mode == HOG_MODE_BUFFERED && !tmp) || !(ew->order = malloc((ew->n ? ew->n : 1) * 4))) {
		free(tmp);
		return ENOMEM;
	}
	for (uint64_t i = 0; i < ew->n; i++) {
		uint64_t lo = d->offsets[rows[i]], k = d->offsets[rows[i] + 1] - lo;
		uint32_t *ids = d->ids + lo;
		float *xs = d->vals ? d->vals + lo : NULL;
		for (uint64_t j = 0; j < k; j++) {
			ids[j] = L->map[ids[j]];
			if (xs && L->xscale)
				xs[j] *= L->xscale[ids[j]];
		}
		if (e->o.mode == HOG_MODE_STRIPED)
			sort_row(ids, xs, k);
		else if (e->o.mode == HOG_MODE_BUFFERED)
			hot_first(ids, xs, k, L->ks.hot, tmp);
	}
	free(tmp);
	w->y = d->labels;
	w->off = d->offsets;
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
static int build_shard(hog_engine *e, eng_worker *ew, lin_worker *w)
{
	const lin_state *L = e->model;
	const hog_data *d = e->tr;
	uint64_t n0, n1;
	eng_worker_share(e, ew, d->n, &n0, &n1); /* with MPI, this rank's slice */
	const uint32_t *rows = L->perm + n0;
	uint64_t n = n1 - n0, nnz = 0, nnz_max = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = d->offsets[rows[i] + 1] - d->offsets[rows[i]];
		nnz += k;
		if (k > nnz_max)
			nnz_max = k;
	}
	ew->n = n;
	w->nnz = nnz;
	w->nnz_max = nnz_max;
	if (e->own)
		return shard_in_place(e, ew, w, rows);
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
		w->off[i + 1] = at + k;
		for (uint64_t j = 0; j < k; j++)
			w->ids[at + j] = L->map[d->ids[lo + j]];
		if (d->vals && L->xscale)
			for (uint64_t j = 0; j < k; j++)
				w->xs[at + j] = d->vals[lo + j] * L->xscale[w->ids[at + j]];
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

static int lin_worker_init(hog_engine *e, eng_worker *ew)
{
	lin_state *L = e->model;
	lin_worker *w = calloc(1, sizeof *w);
	if (!w)
		return ENOMEM;
	ew->m = w;
	int rc = e->store ? stream_shard(e, ew, w) : build_shard(e, ew, w);
	if (rc)
		return rc;
	const uint32_t S = L->S;
	if (L->private_) {
		w->k.hrec = hog_topo_alloc_local(e->topo, (size_t)L->ks.hot * S * 4);
		w->k.hbase = hog_topo_alloc_local(e->topo, (size_t)L->ks.hot * S * 4);
		if (!w->k.hrec || !w->k.hbase)
			return ENOMEM;
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
	if (w->shard)
		hog_topo_free(e->topo, w->shard, w->shard_bytes);
	else if (e->own) /* a view: only the order is the worker's */
		free(ew->order);
	free(w->sfirst);
	free(w->seg);
	free(w->stmp);
	if (w->k.hrec)
		hog_topo_free(e->topo, w->k.hrec, (size_t)L->ks.hot * L->S * 4);
	if (w->k.hbase)
		hog_topo_free(e->topo, w->k.hbase, (size_t)L->ks.hot * L->S * 4);
	free(w->gsnap_own);
	free(w->q);
	free(w->qsnap);
	free(w);
	ew->m = NULL;
}

/* ------------------------------------------------------------ model I/O */

/* Weight of internal coordinate r as training left it, or its average over the
 * last epoch (kernel.h), in the data set's units (--normalize). */
static float weight_of(const hog_engine *e, uint64_t r, int averaged)
{
	const lin_state *L = e->model;
	float w = ald(&L->P[(size_t)r * L->S]);
	if (averaged)
		w = (float)avg_final(atomic_load_explicit(&L->A[r], memory_order_relaxed), w, e->tr->n);
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
	return model_out(e, e->o.average);
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
		sp[0] = (eng_span){ (float *)L->P, (size_t)L->D * L->S };
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
	if (L->A || L->xscale) { /* the weights the model file will hold */
		for (uint64_t i = a; i < b; i++) {
			float m = weight_of(e, 0, L->A != NULL);
			for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++)
				if (L->test_ids[j] != UINT32_MAX)
					m += weight_of(e, L->test_ids[j], L->A != NULL) * (d->vals ? d->vals[j] : 1.0f);
			L->test_margins[i] = m;
		}
		return;
	}
	for (uint64_t i = a; i < b; i++) {
		float m = ald(&L->P[0]);
		for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++)
			if (L->test_ids[j] != UINT32_MAX)
				m += ald(&L->P[(size_t)L->test_ids[j] * S]) * (d->vals ? d->vals[j] : 1.0f);
		L->test_margins[i] = m;
	}
}

static void lin_epoch_stats(hog_engine *e, hog_epoch_stats *s)
{
	const lin_state *L = e->model;
	if (e->o.rule == HOG_RULE_SGD) {
		/* |what the bias should have moved - what it moved| over the total size of
		 * the changes made: the share of update mass lost to overwrites (float
		 * rounding alone leaves ~1e-6) */
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

static int lin_check(hog_train_opts *o, const hog_data *tr, const hog_data *te, hog_err *err)
{
	if (tr->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_EMISMATCH, "a linear model needs a sparse data set, not %s%s",
		                   hog_kind_name(tr->meta.kind),
		                   tr->meta.kind == HOG_KIND_RATINGS ? " (train ratings with --model mf)" : "");
	if (tr->meta.task == HOG_TASK_MULTICLASS)
		return hog_err_set(err, HOG_EMISMATCH, "the linear model takes binary or regression labels, "
		                   "not multiclass (%u classes): train it with --loss softmax (multinomial logistic "
		                   "regression), or --model mlp", tr->meta.classes);
	if (te && te->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_EMISMATCH, "the test set is %s, not sparse", hog_kind_name(te->meta.kind));
	if (te && te->meta.task != tr->meta.task)
		return hog_err_set(err, HOG_EMISMATCH, "the test set's task is %s, the training set's %s",
		                   hog_task_name(te->meta.task), hog_task_name(tr->meta.task));
	/* (a test set's features beyond the training set's score as zero weight:
	 * test_ids, as liblinear does; the CLI counts them, hog_data_reconcile) */
	if (tr->dim >= UINT32_MAX - 1)
		return hog_err_set(err, HOG_EMISMATCH, "data set dimension out of range (%llu features)",
		                   (unsigned long long)tr->dim);
	if ((o->mode == HOG_MODE_BUFFERED || o->mode == HOG_MODE_REPLICA) &&
	    (o->rule == HOG_RULE_ADAREVISION || o->delay))
		return hog_err_set(err, HOG_ECONFIG, "%s mode supports sgd and adagrad without --delay; "
		                   "use lockfree or atomic for adarevision or --delay", hog_mode_name(o->mode));
	if ((o->loss == HOG_LOSS_LOGISTIC || o->loss == HOG_LOSS_HINGE) && tr->meta.task != HOG_TASK_BINARY)
		return hog_err_set(err, HOG_EMISMATCH, "%s loss needs binary labels; this data set's task is %s: "
		                   "train it with --loss squared (or, if its labels are two classes, import it again "
		                   "with --task binary)", hog_loss_name(o->loss), hog_task_name(tr->meta.task));
	const int stream = tr->nnz && !tr->ids; /* hog_train_stream(): counts, no arrays */
	if (stream && o->delay)
		return hog_err_set(err, HOG_ECONFIG, "--delay holds updates across blocks: not with --stream");
	if (!stream && o->normalize) { /* (streaming: from the blocks, in setup) */
		uint64_t changed;
		float *s = eng_feature_scales(tr, o->normalize, &changed);
		if (!s)
			return hog_err_set(err, ENOMEM, "out of memory");
		eng_scales_settle(o, changed, tr->dim);
		if (o->lr == 0)
			o->lr = default_lr(tr, o->rule, s);
		free(s);
	}
	if (o->lr == 0 && !stream)
		o->lr = default_lr(tr, o->rule, NULL);
	return 0;
}

/* The default mode: buffered. At 2 threads on the five sets of
 * bench/results/scaling.md it runs 1.36-2.43x serial (the fastest mode on the
 * 2 M-feature set), where plain lockfree runs 0.38-0.47x on the four sets with
 * hot features and 1.08x on the wide one, with the test loss within 0.05% of
 * serial's everywhere. Replica is faster on those four (2.2-2.5x); on a9a (2
 * threads, default flags) it ended at test loss 0.445 against serial's 0.324
 * until its flush interval was capped at a quarter of a worker's epoch
 * (setup_features), and at 0.327 since, while buffered ends at 0.324: buffered
 * stays the default until replica is measured again. Buffered takes neither adarevision nor
 * --delay: those runs keep lockfree. (--mode auto measures instead, at the
 * price of probing every mode, 3 x 2 short epochs each.) */
static enum hog_mode lin_default_mode(const hog_train_opts *o)
{
	return o->rule == HOG_RULE_ADAREVISION || o->delay ? HOG_MODE_LOCKFREE : HOG_MODE_BUFFERED;
}

const hog_trainer_ops hog_linear_trainer = {
	.name = "linear",
	.kind = HOG_MODEL_LINEAR,
	.unit = "nnz",
	.default_mode = lin_default_mode,
	.modes = ((1u << HOG_MODE_COUNT) - 1) | 1u << HOG_MODE_REPLICA, /* every common mode, replica; not grid */
	.streams = 1,
	.check = lin_check,
	.setup = lin_setup,
	.worker_init = lin_worker_init,
	.worker_free = lin_worker_free,
	.round = lin_round,
	.epoch_begin = lin_epoch_begin,
	.round_end = lin_round_end,
	.round_merge = lin_round_merge,
	.stop = lin_stop,
	.epoch_started = lin_epoch_started,
	.probe = lin_probe,
	.eval_slice = lin_eval_slice,
	.epoch_stats = lin_epoch_stats,
	.shared_params = lin_shared_params,
	.snapshot = lin_snapshot,
	.result = lin_result,
	.restore = lin_restore,
	.free = lin_free,
};
