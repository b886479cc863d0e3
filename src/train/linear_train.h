/* What the files of the linear trainer share: linear_train.c (the rounds, the
 * workers' life, model I/O, evaluation and the trainer's table), linear_setup.c
 * (the setup), linear_shard.c (the workers' shards and --stream) and
 * linear_delay.c (the --delay queue). Private to them: the state of a run and
 * of one worker, and the functions one file calls in another.
 */
#ifndef HOG_TRAIN_LINEAR_TRAIN_H
#define HOG_TRAIN_LINEAR_TRAIN_H
#include "train/engine.h"
#include "train/kernel.h"
#include <math.h>
#include <stdint.h>

typedef struct pending { /* one example read but not yet written (--delay) */
	uint32_t row;
	float g;
	uint64_t seen; /* team's applied count at the read; UINT64_MAX: not sampled */
} pending;

typedef struct lin_worker {
	kern_worker k;
	/* --stream: the worker's blocks (eng_stream), the one held decoded into
	 * the shard's arrays (sized for the largest block) */
	eng_stream st;
	float *stmp;                /* buffered: hot_first()'s room */
	hog_blockbuf sbb;           /* a packed block decoded (the largest block's size) */
	/* the shard, in memory on the worker's node */
	uint64_t nnz, nnz_max;
	float *y;
	float *wt;                  /* effective example weights (e->wts), or NULL: all 1 */
	uint64_t *off;
	uint32_t *ids;
	float *xs;
	void *shard;
	size_t shard_bytes;
	uint32_t since_flush;
	uint32_t flush_c;           /* replica, --average: the team's clock at the worker's last flush */
	uint32_t flushes;           /* node replicas: the owner's flushes, for its sync phase */
	/* delay queue */
	pending *q;
	float *qsnap;               /* (delay+1) * (nnz_max+1) g-bar snapshots */
	float *gsnap_own;           /* k.gsnap's own buffer (k.gsnap points into qsnap with --delay) */
	uint32_t qhead, qlen;
	struct lin_dwork *det;      /* deterministic mode: the private copy (linear_determ.c) */
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
	float *l1;                  /* --l1: per coordinate l1 * n / d_v (ks.l1); NULL when off */
	uint32_t *map;              /* data set feature id -> internal id */
	uint32_t *inv;              /* internal id -> data set feature id (0 = bias) */
	uint32_t *perm;             /* examples dealt to workers (NULL when dealt: 0..n-1) */
	int in_place;               /* hog_train_consume: the shards are views of the set, rewritten in
	                               place (lin_setup says when they are copies instead) */
	int dealt;                  /* in place: the set is in the deal's order (perm 0..n-1, not
	                               kept), so a worker's share is a run of its rows */
	float *test_margins;
	float *wserve;              /* with a test set, --average or --normalize: the weights the model
	                               would hand back (D), made by the team before the test margins */
	hog_spin *locks;
	uint32_t nlocks;
	_Atomic uint64_t *A;        /* --average: D (mean, time) words (kernel.h, avg_touch); NULL with U */
	double *U;                  /* --average in serial mode on one rank without --delay, and in
	                               deterministic mode's merges: D sums (kernel.h, avg_add,
	                               KERN_AVG_SUMS); NULL otherwise */
	lin_pos *pos;               /* --average: T positions */
	double *xshift;             /* centered features (o.centered, scale.c): per internal id the
	                               offset taken from its values before the scale (0: none) */
	uint32_t *center_r;         /* ... the centered internal ids, ncenter of them */
	uint32_t ncenter;
	float *xscale;              /* --normalize: per internal id, the factor on its values (a
	                               power of two: 1 / max |x| rounded up), 1 for the bias */
	kern_shared ks;
	float bias_start;           /* the bias when the epoch began */
	int avg_final;              /* --average: this epoch's mean of the iterates is the model handed back
	                               (the last epoch), which no checkpoint holds: lin_holds_updates */
	float bias0;                /* the bias's start (lin_setup): the squared loss's labels' mean, else 0 */
	float *gacc;                /* lin_noise_scale's accumulator (D floats), made at first use */
	double noise_trs, noise_g2; /* ... its moving averages of tr(Sigma) and |G|^2 */
	int noise_epochs;
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
	float *share;               /* buffered, replica (flat): per record, the factor on a worker's
	                               change to component 0 at a flush (merge_shares in
	                               linear_setup.c); NULL: records < avg 1/T, the rest 1;
	                               deterministic with SGD: D factors on the shards' changes
	                               (det_shares; NULL: other rules, the mean) */
	/* replica on several NUMA nodes (replica.h); np.nodes <= 1: none, flat mode */
	hog_node_plan np;
	struct lin_node {           /* one per node: set by its owner in worker_init */
		_Atomic float *N;       /* the node replica (D * S), on the node */
		float *base;            /* the global values N last took (the owner's) */
	} *node;
	uint32_t node_sync;         /* the owner's flushes between syncs */
	struct lin_det_feat {       /* deterministic with adagrad or adarevision (S > 1), per feature: */
		float a0;               /* K p lr h x2, its blend's a times the divisor of lr in its step */
		float m2;               /* the square of its mean value (the common direction's part) */
	} *det_a0;                  /* (det_shares, det_blend, det_common); NULL otherwise */
	int damped;                 /* hog_train_result.damped: features whose share is below 1 */
	int hot_shown;              /* hog_train_result.hot: buffered's hot coordinates a worker keeps,
	                               replica's features averaged at flushes */
	int node_replicas;          /* hog_train_result.node_replicas: np.nodes once the replicas are
	                               made (0: none, the flat mode) */
	struct lin_det *det;        /* deterministic mode: the shards and their deltas (NULL: another
	                               mode) */
} lin_state;

/* The factor on a worker's change to a feature at a flush of buffered or
 * replica mode with T workers, where a = F p lr h measures how much of a
 * coordinate's error one worker corrects in an interval: 1, or less where the
 * T changes together would correct more than @p cmax times the error
 * (linear_setup.c). */
float lin_merge_share(double a, int T, double cmax);
/* The caps: with --average (and deterministic mode's merges), per feature and
 * for the common direction; without it, per feature and common (linear_setup.c
 * says why). */
#define LIN_MERGE_CMAX 1.5
#define LIN_MERGE_CMAX_LAST 1.0
/* deterministic with adagrad and adarevision: the common direction's weighted
 * mean factor at most this times its own blend's (det_common) */
#define LIN_DET_ACMAX 3.5
#define LIN_MERGE_COMMON_LAST 1.25
/* The factor on every summed feature's share that keeps the merge's
 * correction of the features' common direction at most @p cmax (linear_setup.c:
 * W0, Ws and Z are its sums of squared mean values). */
double lin_common_cap(double W0, double Ws, double Z, int T, double cmax);
/* Deterministic mode's blend (linear_setup.c, det_shares): the factor on the
 * sum of @p S shards' changes to a coordinate whose own error one shard's
 * round shrinks by e^-a, (1 - e^-Sa) / (S (1 - e^-a)); 1 at a = 0. */
static inline double lin_blend(double a, int S)
{
	return a > 0 ? expm1(-(double)S * a) / ((double)S * expm1(-a)) : 1.0;
}
/* The step between features of consecutive frequency rank in the model's
 * layout for @p mode and @p dim features (linear_setup.c): 1, or the smallest
 * K >= 17 prime to dim where every worker writes the shared model. */
uint64_t lin_layout_step(enum hog_mode mode, uint64_t dim);
/* Whether the kernel asks for an example's per-coordinate state ahead
 * (kern_shared.prefetch): 1 when a tenth or more of the @p nnz nonzeros fall on
 * features beyond the @p fit most frequent, @p cnt the features' counts and
 * @p key their order by falling count (low 32 bits: the feature), @p dim of
 * them (linear_setup.c). */
int lin_prefetch_state(const uint64_t *cnt, const uint64_t *key, uint64_t dim, uint64_t nnz, uint64_t fit);

/* --average: the examples the team has done in this epoch, from the workers'
 * positions, published and read every 64 examples (between two readings each
 * worker is taken to advance at the same pace). Not i * T: a worker that waits
 * for locks or the scheduler falls behind, and the average's accumulators then
 * count its updates at the wrong time (measured: striped and atomic test
 * accuracy scattered over 2 points from run to run with 2 threads).
 *
 * Defined here, static and not inline: the rounds (linear_train.c) and
 * --delay's round (linear_delay.c) each call their own copy out of line, as
 * when they were one file. (One exported copy is called by another convention,
 * which changed the rounds' code; declared inline, it is inlined by other
 * rules.) */
static __attribute__((unused)) uint64_t lin_team_pos(const hog_engine *e, const eng_worker *ew, uint64_t i)
{
	const lin_state *L = e->model;
	atomic_store_explicit(&L->pos[ew->id].v, i, memory_order_relaxed);
	uint64_t c = 0;
	for (int q = 0; q < e->T; q++)
		c += atomic_load_explicit(&L->pos[q].v, memory_order_relaxed);
	return c;
}

/* linear_train.c: the in-memory round of this run's mode, rule, loss and
 * values (the specialized rounds). */
eng_round_fn lin_in_memory_round(const hog_engine *e);

/* linear_setup.c: the trainer's setup (hog_trainer_ops.setup); the default
 * step, the features scaled by @p scale (NULL: unscaled). */
int lin_setup(hog_engine *e);
double lin_noise_scale(hog_engine *e);
double lin_default_lr(const hog_data *d, const hog_train_opts *o, const float *scale, const double *mu);
/* The squared loss's labels of @p d: their mean (the bias's start) and, in
 * *sd, their standard deviation (the adaptive rules' default step); 0 and 0 for
 * other losses and sets without labels in memory. */
double lin_label_mean(const hog_data *d, enum hog_loss loss, double *sd);
/* A value @p x of internal feature @p r as the model trains on it: less its
 * center (L->xshift), times its scale (L->xscale; both NULL: as stored). */
static inline float lin_value(const lin_state *L, uint32_t r, float x)
{
	if (L->xshift)
		return (float)(((double)x - L->xshift[r]) * L->xscale[r]);
	return L->xscale ? x * L->xscale[r] : x;
}
/* The same from the mean |x|^2 @p sq of the features as scaled (tune's grid). */
double lin_default_lr_of(enum hog_rule rule, double sq, double ysd);

/* linear_shard.c: the worker's shard in memory (worker_init); --stream: the
 * scan of every block in setup, the worker's blocks (worker_init), its epoch's
 * order (epoch_begin), its round. */
int lin_build_shard(hog_engine *e, eng_worker *ew, lin_worker *w);
int lin_build_rows(hog_engine *e, eng_worker *ew, lin_worker *w, const uint32_t *rows, uint64_t n);
int lin_stream_scan(hog_engine *e, lin_state *L, uint64_t *cnt, float **scales);
/* linear_opts.c: the trainer table's option entries (opts_init, opts_hash,
 * check, default_mode, default_chunk, route) */
void lin_opts_init(hog_train_opts *o);
uint64_t lin_opts_hash(const hog_train_opts *o, uint64_t h);
int lin_check(hog_train_opts *o, const hog_data *tr, const hog_data *te, hog_err *err);
enum hog_mode lin_default_mode(const hog_train_opts *o, int stream, const hog_meta *m);

/* Replica's flush interval for a model of @p width floats (D x stride) whose
 * rows hold @p nnz nonzeros on average: the smallest power of two, at least
 * 256, whose examples' nonzeros outnumber the floats a flush sweeps 16-fold
 * (linear_setup.c says why). Where it passes 16384 the model is wide for
 * replica (lin_default_mode). */
static inline uint64_t lin_replica_width_flush(double width, double nnz)
{
	const double want = 16.0 * width / (nnz > 1 ? nnz : 1);
	uint64_t f = 256;
	while ((double)f < want && f < ((uint64_t)1 << 40))
		f *= 2;
	return f;
}
uint32_t lin_default_chunk(const hog_train_opts *o, int stream);
const hog_trainer_ops *lin_route(const hog_train_opts *o);
int lin_stream_shard(hog_engine *e, eng_worker *ew, lin_worker *w);
uint64_t lin_round_stream(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to);

/* linear_delay.c: --delay's round; the queue written out (the last round's
 * end, a stop). */
uint64_t lin_round_delayed(hog_engine *e, eng_worker *ew, int epoch, uint64_t from, uint64_t to);
void lin_drain_pending(hog_engine *e, eng_worker *ew, float lr);

/* linear_determ.c: deterministic mode -- its state (setup, free), a worker's
 * shards (worker_init, worker_free), their orders (epoch_begin), the round and
 * the merge (round_share). */
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

/* The model's words that row r will read, asked for an example ahead (the
 * private record of a coordinate the mode keeps private, else the shared one),
 * where the model outgrows the L2 (kern_shared.prefetch): prefetch_row brings
 * the row's ids, this the misses they lead to, which otherwise each waited
 * in the margin's loop. 2 M features, interleaved A/B, 3 rounds: the default
 * (buffered) 1.29x and 1.23x the speed at 1 and 2 threads, serial 1.22x, 400,000
 * features 1.14x; two examples ahead: 1.24x and 1.13x. */
#define MODEL_AHEAD 1
HOG_INLINE void prefetch_model(const enum hog_mode MODE, const kern_shared *sh, uint32_t S, const kern_worker *k,
                               const lin_worker *w, uint32_t r)
{
	for (uint64_t q = w->off[r], hi = w->off[r + 1]; q < hi; q++) {
		const uint32_t v = w->ids[q];
		if (MODE == HOG_MODE_REPLICA || (MODE == HOG_MODE_BUFFERED && v < sh->hot))
			__builtin_prefetch(&k->hrec[(size_t)v * S]);
		else
			__builtin_prefetch((const void *)&sh->P[(size_t)v * S]);
	}
}

int lin_det_check(hog_train_opts *o, const hog_data *tr, hog_err *err);
int lin_det_setup(hog_engine *e, lin_state *L);
void lin_det_free(lin_state *L);
int lin_det_worker_init(hog_engine *e, eng_worker *ew, lin_worker *w);
void lin_det_worker_free(hog_engine *e, eng_worker *ew, lin_worker *w);
void lin_det_epoch_order(hog_engine *e, eng_worker *ew, int epoch);
eng_round_fn lin_det_round(const hog_engine *e);
int lin_det_share(hog_engine *e, eng_worker *ew, int epoch);

#endif
