/* The training engine and what a model plugs into it.
 *
 * train.c is the engine, written once for every model: the worker team (OpenMP,
 * pinned with hwloc, NUMA-local shards), epochs of rounds with barriers between
 * them, step-size schedules, stop requests and divergence, checkpoints and
 * resume, progress and per-epoch figures, delay sampling.
 *
 * A model brings a hog_trainer_ops table, chosen once per run from
 * hog_train_opts.model (the ggml habit: no `if (model == ...)` in the engine):
 * its shared parameters and their layout, each worker's shard, a round of its
 * kernel specialized per (mode, rule, loss) and picked once, evaluation, and the
 * conversion to and from a hog_model. The engine calls the model once per round
 * (tens of thousands of examples), never per example.
 */
#ifndef HOG_TRAIN_ENGINE_H
#define HOG_TRAIN_ENGINE_H
#include "hogwild.h"
#include "model/model.h"
#include "sys/topo.h"
#include "train/auto.h" /* --mode auto: eng_auto_mode() */
#include "train/compress.h" /* --compress: the ranks' averaging */
#include "train/sync.h"
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define HOG_DELAY_SAMPLE_MASK 63u     /* sample 1 in 64 examples for the delay figures */
#define HOG_DELAY_SAMPLES_MAX (1u << 16)

/* The engine's part of one worker; the model keeps its own in `m`. */
typedef struct eng_worker {
	int id;
	uint64_t n;                 /* examples this worker does in an epoch (set by worker_init) */
	uint32_t *order;            /* n: this epoch's visiting order (the engine shuffles it); --stream:
	                               the held block's, for positions from order_at (eng_stream); NULL:
	                               the model's rounds read none (mf's grid and strata) */
	uint64_t order_at;          /* the position order[0] is for: 0 but with --stream */
	const uint32_t *rows;       /* optional (worker_init): the n items the order is a shuffle
	                               of; NULL: 0..n-1 (the model's own shard) */
	uint64_t pos;               /* examples done in this epoch */
	uint64_t ex_done;           /* examples done in this epoch (this run) */
	uint64_t units_done;        /* the model's work unit (linear: nonzeros) in this epoch */
	double loss;                /* progressive loss of this epoch (weighted: sum of w * loss) */
	double wdone;               /* with e->weighted: the weights of the examples done in this
	                               epoch (the model adds them; the loss's denominator) */
	void *m;                    /* the model's per-worker state */
	uint32_t *chunks;           /* --shuffle-chunk: eng_chunk_order()'s scratch */
	uint64_t *dsamples;         /* sampled delays */
	uint32_t ndsamples;
	_Alignas(64) _Atomic uint64_t applied; /* examples written, read by delay samplers */
	char pad[56];
} eng_worker;

typedef struct hog_engine hog_engine;

/* A run of parameters that the MPI ranks share: n floats at p; a matrix of
 * rows x cols (row-major, rows * cols == n) when the model says so (cols 0: a
 * plain vector), which --compress powersgd sends as low-rank factors. Only
 * parameters that may be approximated by any real matrix are matrices: a step
 * rule's sums of squares (which a low-rank change could make negative) are
 * vectors. */
typedef struct eng_span {
	float *p;
	size_t n;
	size_t rows, cols;
} eng_span;

/* Examples [from, to) of the worker's order in @p epoch. Returns the position
 * reached: `to`, less when a stop was requested, or (grid) a little more. */
typedef uint64_t (*eng_round_fn)(hog_engine *e, eng_worker *w, int epoch, uint64_t from, uint64_t to);

/* What a model brings to the engine. Entries marked optional may be NULL. */
typedef struct hog_trainer_ops {
	enum hog_model_kind kind;   /* the kind of model the run makes and saves */
	const char *unit;           /* the work a worker's units_done counts, for the tables
	                               (hog_epoch_stats.unit): "nnz", "ratings", "flop" */
	unsigned modes;             /* bit (1 << hog_mode) for every mode the model takes */
	unsigned losses;            /* bit (1 << hog_loss) for every --loss the model takes
	                               (through its route: linear's softmax is the mlp's) */
	/* optional: the mode a run takes when none is asked for, chosen from the
	 * measurements in bench/results (NULL: lockfree); one of `modes` that
	 * takes these options. @p m: the training set's header, where known
	 * (NULL: not) */
	enum hog_mode (*default_mode)(const hog_train_opts *o, int stream, const hog_meta *m);
	/* optional: the --shuffle-chunk a run takes when it asks for none
	 * (hog_train_opts.shuffle_chunk 0), @p stream 1 for hog_train_stream (NULL:
	 * 1, the row shuffle) */
	uint32_t (*default_chunk)(const hog_train_opts *o, int stream);
	/* optional: the trainer that trains these options when it is another
	 * model's (linear --loss softmax: the mlp's, with no hidden layers, so that
	 * multiclass training has one code path; that check() makes the run's
	 * model kind its own); NULL: this one, always */
	const struct hog_trainer_ops *(*route)(const hog_train_opts *o);
	int streams;                /* 1: trains from e->store's blocks (hog_train_stream) */
	int rank_step;              /* 1: on several MPI ranks SGD's default step (no --lr, no
	                               --lr-scale) is taken times the ranks (at most 8): the ranks'
	                               averaged models take each example's step 1/ranks, which the
	                               model's default step does not weather (mf: train.c) */
	int weighs;                 /* 1: honours example and class weights (e->wts, eng_weight,
	                               adding them to eng_worker.wdone); 0: a weighted run is refused */
	/* optional: the defaults of the model's own options, its group of
	 * hog_train_opts (hog_train_opts.linear, .mf, .mlp): hog_train_opts_init()
	 * calls every built kind's, so that the engine names no model's option */
	void (*opts_init)(hog_train_opts *o);
	/* optional: the model's own options that change the result (its group of
	 * hog_train_opts, and none of another model's), hashed onto @p h: the
	 * engine hashes the shared ones and then this (eng_opts_hash), so that a
	 * checkpoint of other options is refused on resume. Must be a pure
	 * function of the options, the same on every MPI rank */
	uint64_t (*opts_hash)(const hog_train_opts *o, uint64_t h);
	/* the options opts_hash hashes, as the user names them, for the message
	 * that refuses a checkpoint of other options ("--rank, --biases, --grid") */
	const char *opts_names;
	/* The data sets and options this model takes, with a message naming what is
	 * wrong; fills the model's defaults into *o (step size, rank ...). */
	int (*check)(hog_train_opts *o, const hog_data *tr, const hog_data *te, hog_err *err);
	/* Before the team starts: shared parameters and tables (sets e->model). */
	int (*setup)(hog_engine *e);
	/* On the worker's own thread, after binding (first touch places memory on
	 * its node): the shard; sets w->n, allocates w->order (n entries) and w->m,
	 * and may set w->rows. With e->own the shard may be a view of the data set,
	 * with w->rows naming its examples: one copy of the data in memory. */
	int (*worker_init)(hog_engine *e, eng_worker *w);
	void (*worker_free)(hog_engine *e, eng_worker *w);
	/* The round for this run's options, chosen once. */
	eng_round_fn (*round)(const hog_engine *e);
	/* optional: a worker before its epoch starts, and after each round (flushes) */
	void (*epoch_begin)(hog_engine *e, eng_worker *w, int epoch);
	void (*round_end)(hog_engine *e, eng_worker *w, int epoch, int last);
	/* optional: thread 0 after every round, once every worker's round_end is
	 * done and before the team's meeting (MPI averaging, checkpoints, stop,
	 * evaluation): fold what the model keeps between the workers and the
	 * shared parameters (linear replica mode's node replicas) into the latter */
	void (*round_merge)(hog_engine *e, int epoch);
	/* optional: every worker after the round's barrier, before round_merge: its
	 * part of a merge that needs every worker's round done first (linear
	 * deterministic mode: its share of the coordinates, every shard's delta in
	 * shard order). Returns 1 when it did something, and the team then meets
	 * again before thread 0 goes on; it must return the same on every worker.
	 * Every worker calls it, so it may meet the team inside too (hog_barrier_wait
	 * on e->bar: the adaptive rules' merge, in two passes) */
	int (*round_share)(hog_engine *e, eng_worker *w, int epoch);
	/* optional: a worker when the run stops inside an epoch, before the
	 * checkpoint: write back what it still holds (queued or private updates) */
	void (*stop)(hog_engine *e, eng_worker *w, int epoch);
	/* optional: nonzero when updates wait in the model's private queues
	 * between rounds (linear --delay), so that the parameters are not a state
	 * to resume from: checkpoints then come at epoch ends only */
	int (*holds_updates)(const hog_engine *e);
	/* optional: nonzero while what the run hands back accumulates beside the
	 * parameters, in no checkpoint (linear --average's last epoch): no
	 * checkpoint is written inside that epoch, a stop's included (the one at
	 * the previous epoch's end stays, and a resume goes on from there) */
	int (*epoch_end_only)(const hog_engine *e);
	/* optional: thread 0 before an epoch starts, when every worker has finished
	 * the previous one (so the model it sees is the one the epoch starts from) */
	void (*epoch_started)(hog_engine *e, int epoch);
	/* A value that is NaN or Inf once training has diverged (the bias, say). */
	float (*probe)(const hog_engine *e);
	/* optional: the test set, slice k of T, in parallel (predictions into the
	 * model's own buffer) */
	void (*eval_slice)(hog_engine *e, int k);
	/* thread 0 after an epoch: test figures (when there is a test set) and any of
	 * the model's own (bias_lost) */
	void (*epoch_stats)(hog_engine *e, hog_epoch_stats *s);
	/* optional, needed to train on more than one MPI rank: the parameters the
	 * ranks share and average, as up to @p cap runs of floats in spans[];
	 * returns how many runs (more than cap: nothing filled, call again with
	 * room). Called on thread 0 while the team waits at a barrier, so plain
	 * reads and writes are safe. Everything a step rule keeps per coordinate
	 * (AdaGrad's sums) is averaged with the weights. Parameters that each rank
	 * keeps for itself (mf: the factors, biases and sums of the users in its
	 * share, eng_share of the users) are left out. The same pointers and
	 * shapes at every call. */
	size_t (*shared_params)(hog_engine *e, eng_span *spans, size_t cap);
	/* optional, for a model whose ranks each keep parameters of their own
	 * (mf: its users' rows): makes rank 0's model whole before rank 0 takes a
	 * snapshot to write (a checkpoint, the final model). Called collectively on
	 * thread 0 of every rank, the team waiting at a barrier. The model must go
	 * on training as before on every rank afterwards. */
	int (*gather)(hog_engine *e);
	/* The model as it stands; and back from a checkpoint (shapes checked). */
	hog_model *(*snapshot)(const hog_engine *e);
	/* optional: the model handed back after a run that finished, when it is not
	 * the state training continues from (linear --average: the last epoch's
	 * average, while checkpoints keep the state); NULL: snapshot */
	hog_model *(*result)(const hog_engine *e);
	/* optional: thread 0 after the team is done, when the run set up: the
	 * model's own figures of the run in @p res (linear: the hot coordinates
	 * and node replicas its modes kept; the engine fills the rest) */
	void (*report)(const hog_engine *e, hog_train_result *res);
	int (*restore)(hog_engine *e, const hog_model *m);
	void (*free)(hog_engine *e);
} hog_trainer_ops;

extern const hog_trainer_ops hog_linear_trainer, hog_mf_trainer, hog_mlp_trainer;

struct hog_engine {
	hog_train_opts o;           /* with the model's defaults filled in */
	const hog_trainer_ops *ops;
	int chunk_default;          /* o.shuffle_chunk was 0, the model's default order: a checkpoint
	                               of the row shuffle (the default before issue 22) resumes with it */
	int backoff_ours;           /* o.backoff was chosen here (backoff 0 or epochs 0: from the set's
	                               size), not given: a resumed run takes the checkpoint's */
	const hog_data *tr, *te;
	hog_data *own;              /* hog_train_consume(): tr, the model's to rearrange and train
	                               on in place rather than copy (NULL: tr is read-only) */
	hog_store *store;           /* hog_train_stream(): the blocks to train from; tr then holds
	                               the meta data and counts only (no arrays) */
	void *model;                /* the model's shared state */
	int T;                      /* workers */
	hog_topo *topo;
	hog_place *plan;
	eng_worker **w;
	hog_barrier bar;
	atomic_int action;          /* 0 go on, 1 stop (signal), 2 diverged, 3 error, 4 early stop
	                               (a finished run: the test loss stopped improving) */
	atomic_int go, gone, short_team; /* hand-over into and out of the parallel region */
	int start_epoch;
	uint64_t *start_pos;
	int epochs_done;
	double elapsed, last_ckpt;
	int ckpt_failures;          /* periodic checkpoints that could not be written (said; the run goes on) */
	double t_begin;             /* when the team began its first epoch (hog_epoch_stats.wall) */
	hog_epoch_stats last;
	hog_err *err;
	hog_err werr;               /* errors inside the team, reported once */
	uint64_t data_hash, opts_hash;
	int rank, ranks;            /* MPI: this process's rank and the team's size (0 and 1 alone) */
	uint64_t rounds;            /* rounds in an epoch (the same on every rank) */
	double sync_seconds;        /* MPI: time spent averaging the models */
	cmp_state *cmp;             /* MPI: the averaging's state (--compress; also none: bytes) */
	double loss_zero;           /* what an all-zero model loses (eng_zero_loss) */
	double lr_factor;           /* --lr-scale: the step's factor for the team's size (1: none) */
	double loss_best;           /* this run's best epoch's training loss (NaN: none yet) */
	hog_model *best;            /* early_stop: the best epoch's model (thread 0 keeps it) */
	hog_model *held;            /* o.test_eval: the model its last figures are of (early_check
	                               keeps it rather than take another snapshot) */
	double best_loss;           /* ... its test loss (NaN: none yet) */
	int best_epoch;             /* ... and its epoch, 0-based (-1: none) */
	uint64_t ckpt_bytes;        /* rank 0: the space reserved for the next checkpoint */
	int ckpt_unreserved;        /* the last try to reserve it failed (said once) */
	/* weights.c: example and class weights */
	int weighted;               /* some example's effective weight is not 1 */
	float *cw;                  /* --class-weight: per class (binary: [0] negative, [1] positive) */
	uint32_t ncw;
	float *wts;                 /* loaded set: each training example's effective weight (NULL:
	                               all 1, or a streamed set: eng_weight per block) */
	double weight_sum;          /* the sum of wts */
};

/* Whether the run has a held-out set to report on after every epoch: one in
 * memory (e->te), or the caller's (o.test_eval, a set read a chunk at a time). */
static inline int eng_has_test(const hog_engine *e)
{
	return e->te || e->o.test_eval;
}

/* An example's effective weight: its own @p w times its class's (label > 0 is
 * binary's positive class; a multiclass label is its class number). */
static inline float eng_weight(const hog_engine *e, float w, float label)
{
	if (!e->cw)
		return w;
	uint32_t c = e->ncw == 2 && e->tr->meta.task == HOG_TASK_BINARY ? label > 0 : (uint32_t)label;
	return w * e->cw[c < e->ncw ? c : 0];
}
/* Fills e->weighted, e->cw and e->wts from the training set and --class-weight,
 * refusing (HOG_ECONFIG) class weights on a set without classes and (HOG_ENOTSUP)
 * weights for a model that does not take them. */
int eng_weights_setup(hog_engine *e);
/* Parses a --class-weight spec for a set of @p task and @p classes into @p cw
 * (2 or classes floats; NULL: only checked); a class by its number (binary:
 * 1, +1, pos, 0, -1, neg) or by one of the set's class @p names (NULL: none);
 * task 0 checks the spec's form alone; "balanced" leaves 1s (the counts are
 * the set's). Returns 0, or -1 with the reason in @p why. */
int eng_class_weights_parse(const char *spec, enum hog_task task, uint32_t classes, const char *names, float *cw,
                            char *why, size_t wlen);
/* The mean of an epoch's loss: over the weights done when the run is weighted. */
static inline double eng_loss_denominator(const hog_engine *e, double examples, double weights)
{
	return e->weighted ? weights : examples;
}

/* ---------------------------------------------------------------- helpers */

/* The stop flag is set from a signal handler: read it atomically. */
static inline int eng_stop_requested(const hog_engine *e)
{
	return e->o.stop && __atomic_load_n(e->o.stop, __ATOMIC_RELAXED);
}

/* Step size for epoch @p ep after @p ex examples in all, every worker of every
 * rank counted (a worker at position i of its order: about ep n + i T ranks):
 * the schedule, then the warm-up ramp. AdaGrad and AdaRevision take o.lr as
 * their alpha. */
static inline float eng_lr_at(const hog_engine *e, int ep, uint64_t ex)
{
	double lr = e->o.lr * e->lr_factor;
	if (e->o.rule == HOG_RULE_SGD) {
		if (e->o.sched == HOG_SCHED_BACKOFF)
			lr *= pow(e->o.backoff, ep);
		else if (e->o.sched == HOG_SCHED_INVT)
			lr /= 1.0 + (double)ex / e->o.t0;
	}
	if (e->o.warmup && ex < e->o.warmup)
		lr *= (double)(ex + 1) / (double)e->o.warmup;
	return (float)lr;
}

/* Seconds on the monotonic clock. */
static inline double eng_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Examples the whole team has written (for delay sampling). */
static inline uint64_t eng_team_applied(const hog_engine *e)
{
	uint64_t s = 0;
	for (int k = 0; k < e->T; k++)
		s += atomic_load_explicit(&e->w[k]->applied, memory_order_relaxed);
	return s;
}

/* One more example written by @p w (only its own thread writes it). */
static inline void eng_count_applied(eng_worker *w)
{
	atomic_store_explicit(&w->applied, atomic_load_explicit(&w->applied, memory_order_relaxed) + 1,
	                      memory_order_relaxed);
}

static inline void eng_note_delay(eng_worker *w, uint64_t d)
{
	if (w->ndsamples < HOG_DELAY_SAMPLES_MAX)
		w->dsamples[w->ndsamples++] = d;
}

/* splitmix64: seeds and shuffles */
static inline uint64_t eng_mix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void eng_shuffle_u32(uint32_t *a, uint64_t n, uint64_t seed);
/* run_opts.c: the step's factor for the team (--lr-scale, a trainer's rank step). */
void eng_lr_factor(hog_engine *e, int lr_default);
/* --epochs auto's count for a set of @p n examples: HOG_EPOCHS_VISITS / n,
 * within 20..1000 (run_opts.c). */
int eng_epochs_of_visits(uint64_t n);
/* The options a run trains with, settled (run_opts.c): the loss from the set's
 * task, the epochs for its size, the trainer, the checks every model shares and
 * --mode auto's measurement (its reason in @p why). *@p opts is repointed into
 * @p buf when anything changed. */
int eng_settle_opts(const hog_data *train, const hog_train_opts **opts, hog_train_opts buf[3],
                    const struct hog_trainer_ops **ops_out, char *why, size_t why_len, hog_err *err);
/* @p out (n entries) = @p items (NULL: 0..n-1) in chunks of @p chunk
 * consecutive entries, the chunks in a random order drawn from @p seed (a
 * shorter last chunk among them); chunk <= 1: every entry shuffled, as
 * eng_shuffle_u32. A pure function of its arguments; @p scratch holds
 * eng_chunk_count(n, chunk) entries. */
void eng_chunk_order(uint32_t *out, const uint32_t *items, uint64_t n, uint64_t chunk, uint64_t seed,
                     uint32_t *scratch);
/* The linear model's deal: @p perm = 0..n-1, shuffled from @p seed unless
 * @p no_shuffle; the workers' shares are slices of it, whatever
 * --shuffle-chunk (a shard is copied in this order, so its chunks are chunks
 * of a random order, not of the data set's). */
void eng_deal(uint32_t *perm, uint64_t n, int no_shuffle, uint64_t seed);
/* Puts sparse set @p d's rows into the order @p perm (n entries: row i becomes
 * old row perm[i]), in place -- labels, example weights, offsets, ids, values,
 * and @p wts (n floats, or NULL) with them -- with memory beside the set for
 * about a 64th of its nonzeros, a byte a row and a few pages (permute.c).
 * @return 0, or before anything changed ENOMEM, or EOVERFLOW (a row of 2^24
 * nonzeros, a set of 2^40). */
int eng_permute_rows(hog_data *d, const uint32_t *perm, float *wts);
/* Worker @p worker's order of its @p n items (NULL: 0..n-1) for @p epoch: the
 * items in turn with --no-shuffle, else eng_chunk_order() with o->shuffle_chunk
 * from a seed drawn from (o->seed, epoch, worker) -- a pure function of them,
 * so that a resumed run visits the same order. @p scratch as eng_chunk_order's. */
void eng_epoch_order(const hog_train_opts *o, uint32_t *out, const uint32_t *items, uint64_t n, int epoch,
                     int worker, uint32_t *scratch);
static inline uint64_t eng_chunk_count(uint64_t n, uint64_t chunk)
{
	return chunk > 1 ? (n + chunk - 1) / chunk : 0;
}

/* Deterministic mode's default shard count for a set of @p n examples (the
 * linear model and the mlp; mf's strata have their own): 16, or one shard per
 * 1,024 examples (at least 1) below 16,384. On a small set 16 shards were
 * slices of a few dozen examples whose merged rounds (linear) or 16 x --batch
 * steps (the mlp) took far fewer steps than serial's. Test loss, serial / this
 * default / 16 shards: sklearn's breast cancer (398 rows, 20 epochs) 0.114 /
 * 0.116 / 0.227, and at --epochs auto 0.097 / 0.097 / 0.112; digits (1257 rows,
 * softmax) 0.126 / 0.126 / 0.210; Fashion-MNIST samples of 5964 and 8974 rows
 * (softmax, 5 and 8 shards) 0.499 / 0.507 / 0.518 and 0.482 / 0.498 / 0.509. */
static inline int eng_det_shards(uint64_t n)
{
	return n >= 16384 ? 16 : n < 2048 ? 1 : (int)(n / 1024);
}

/* Worker k's share [*lo, *hi) of n items dealt evenly. */
static inline void eng_share(uint64_t n, int k, int T, uint64_t *lo, uint64_t *hi)
{
	*lo = n * (uint64_t)k / (uint64_t)T;
	*hi = n * (uint64_t)(k + 1) / (uint64_t)T;
}

/* Worker @p w's share [*lo, *hi) of n items (examples, or mf's users) dealt
 * over the ranks and then over each rank's workers: rank r takes the r-th
 * slice, its worker k the k-th part of that. Ranks may run different numbers of
 * threads. With one rank it is eng_share(n, w->id, T). */
static inline void eng_worker_share(const hog_engine *e, const eng_worker *w, uint64_t n, uint64_t *lo,
                                    uint64_t *hi)
{
	uint64_t a, b;
	eng_share(n, e->rank, e->ranks, &a, &b);
	eng_share(b - a, w->id, e->T, lo, hi);
	*lo += a;
	*hi += a;
}
/* stream.c: a worker's share of a streamed training set (hog_train_stream),
 * the same for every model that streams. eng_stream_deal: the blocks' deal
 * (identity with --no-shuffle, else seeded). eng_stream_share: the worker's
 * contiguous share of @p bperm (its rank's, with MPI), the positions before
 * each block, ew->n, and ew->order sized for its largest block (the model
 * frees it as any order). eng_stream_epoch (the model's epoch_begin): the
 * epoch's segments, its blocks in an order from (seed, epoch, worker).
 * eng_stream_round (the model's round): from position @p from to @p to, each
 * segment's block decoded by @p load when it is not the one held, its
 * examples' order drawn into ew->order (order_at: the segment's first
 * position), then @p fn, the model's in-memory round, over the segment. */
typedef struct eng_seg {
	uint32_t slot;              /* the worker's block (index into its share) */
	uint64_t from, to;          /* positions in the epoch */
} eng_seg;
typedef struct eng_stream {
	const uint32_t *blk;        /* the worker's blocks (numbers into the set), n of them */
	uint64_t n;
	uint64_t *first;            /* n + 1: its examples before each block */
	eng_seg *seg;               /* n: this epoch's segments, in its order */
	uint64_t cur;               /* the segment last run */
	int64_t loaded;             /* the segment whose block and order the worker holds, -1: none */
	uint64_t eseed;             /* this epoch's seed of the blocks' example orders */
} eng_stream;
/* The model's decode of the worker's block @p slot (of its eng_stream) into its
 * own arrays; nonzero after eng_fail(). */
typedef int (*eng_load_fn)(hog_engine *e, eng_worker *w, uint32_t slot);
void eng_stream_deal(uint32_t *bperm, uint64_t nb, const hog_train_opts *o);
int eng_stream_share(eng_stream *s, const hog_engine *e, eng_worker *ew, const uint32_t *bperm, uint64_t nb,
                     const hog_block *blocks);
void eng_stream_epoch(eng_stream *s, const hog_engine *e, const eng_worker *ew, int epoch);
uint64_t eng_stream_round(hog_engine *e, eng_worker *ew, eng_stream *s, int epoch, uint64_t from, uint64_t to,
                          eng_load_fn load, eng_round_fn fn);
/* A setup's scan of a streamed set: every block in order, read into
 * @p blocks[b] (a view of the map; a packed block is decoded into a buffer of
 * the scan's own, after which blocks[b] keeps its counts only and
 * eng_stream_block() decodes it again), checked to be of @p kind and to follow
 * on from the one before, and handed to @p visit (nonzero: stop, e->err set);
 * then the blocks' examples counted against the meta data's, @p what naming
 * them ("examples", "ratings"). HOG_ECORRUPT naming the block or the counts. */
typedef int (*eng_visit_fn)(hog_engine *e, const hog_block *k, uint64_t b, void *ctx);
int eng_stream_scan(hog_engine *e, hog_block *blocks, uint64_t nb, enum hog_kind kind, const char *what,
                    eng_visit_fn visit, void *ctx);
/* A block the setup's scan kept (@p b: a view of the map, or a packed one's
 * counts) as arrays to read: @p b, or the packed one decoded again into @p bb
 * (checked once by the scan) through @p dec; NULL after eng_fail(). */
const hog_block *eng_stream_block(hog_engine *e, const hog_block *b, hog_block *dec, hog_blockbuf *bb);
void eng_stream_free(eng_stream *s);
/* mode_opts.c: the ranges of the update modes' options that more than one
 * model reads (--delay, --flush-every), HOG_ECONFIG naming the option; every
 * trainer's check() calls it first, whether or not it uses them. */
int eng_check_mode_opts(const hog_train_opts *o, hog_err *err);
/* A worker's run-time error inside a round (a backend call that failed): the
 * team stops after the round and hog_train returns @p rc with @p msg. */
void eng_fail(hog_engine *e, int rc, const char *msg);
/* MPI averaging (train/average.c), on thread 0: its state for --compress
 * after setup; the ranks' models averaged (between rounds); the whole
 * averaging that ends a --compress run. 0 or an error code. */
int eng_averaging_setup(hog_engine *e);
int eng_average_models(hog_engine *e);
int eng_average_finish(hog_engine *e);

/* --normalize (scale.c): the scale of each of the dim + 1 features of @p d (a
 * power of two bringing its largest |value| into (1/2, 1]; 1 for a feature that
 * mode @p mode (enum hog_normalize) leaves alone); *changed (may be NULL) gets
 * how many are not 1. NULL when out of memory. */
float *eng_feature_scales(const hog_data *d, int mode, uint64_t *changed, const double *mu);
/* The linear model's centering (scale.c): each feature's mean where it is in
 * every example of @p d (a sparse set with values) and over ENG_CENTER_RATIO
 * standard deviations from zero, else 0 (dim + 1 doubles, *ncentered of them
 * set); NULL when none is (or out of memory). eng_feature_scales and
 * eng_mean_sq take them (@p mu, NULL: none) as the values' offsets. */
#define ENG_CENTER_RATIO 20.0
double *eng_feature_centers(const hog_data *d, uint64_t *ncentered);
/* The rule of both: a feature of mean @p m and variance @p var (over the
 * examples that hold it) is far from zero next to its spread. */
static inline int eng_far_from_zero(double m, double var)
{
	return var > 0 && fabs(m) > ENG_CENTER_RATIO * sqrt(var);
}
/* The same from the largest |value| of each of @p n features, in place; @p cnt
 * (NULL: unknown) each feature's count of nonzero values over @p examples, for
 * auto's rule of small columns (scale.c). */
void eng_scales_from_max(float *mx, uint64_t n, int mode, uint64_t *changed, const uint64_t *cnt,
                         uint64_t examples);
/* Settles o->normalize once the scales are known: the note (o->on_note) that
 * auto scaled @p changed of @p dim features, and off when none changed (a set
 * within [-1, 1] then trains as with off, bit for bit). */
/* The mean over @p d's examples of |x|^2, each feature times @p sc (NULL: as
 * stored): the statistic of the default steps, 1/(1 + it) and its batch form
 * (lin_default_lr, the mlp's, tune's grid). */
double eng_mean_sq(const hog_data *d, const float *sc, const double *mu);
/* The labels' weighted sums (scale.c), shifted by the first label so that a
 * mean far from zero (years, prices) keeps its spread: the squared loss's
 * starting bias and its adaptive rules' default step. eng_moments_add takes
 * @p n labels and their weights (NULL: all 1); eng_moments_mean returns the
 * mean and its standard deviation in *sd (0 and 0 before any label). */
typedef struct eng_moments {
	double k, w, s, ss;
} eng_moments;
void eng_moments_add(eng_moments *m, const float *y, const float *wt, uint64_t n);
double eng_moments_mean(const eng_moments *m, double *sd);
void eng_scales_settle(hog_train_opts *o, uint64_t changed, uint64_t dim);
/* The note (o->on_note) that @p nc features were centered (eng_feature_centers). */
void eng_centered_note(const hog_train_opts *o, uint64_t nc);

/* checkpoint.c: hashes of the training set and of the options that change the
 * result (checkpoints keep both; the options': the shared ones, then @p ops's
 * opts_hash of the model's own), and of everything MPI ranks must share. */
uint64_t eng_data_hash(const hog_data *d);
uint64_t eng_opts_hash(const struct hog_trainer_ops *ops, const hog_train_opts *o, int ranks);
/* LEGACY (opts_hash_v1.c): the options hash of the checkpoints written before
 * each trainer hashed its own options (up to 7103803), which resume still
 * accepts. Nothing else may use it. */
uint64_t eng_opts_hash_v1(const hog_train_opts *o, int ranks);
uint64_t eng_run_hash(const hog_engine *e);
/* Writes o.checkpoint (thread 0 of every rank, collective under MPI; @p in_epoch:
 * inside an epoch, with every worker's position). Returns 0 or a HOG_E* code. */
int eng_write_checkpoint(hog_engine *e, int in_epoch);
/* A periodic checkpoint that eng_write_checkpoint could not write: said
 * (o.on_note, the file and why), counted, the run going on (checkpoint.c). */
void eng_ckpt_failed(hog_engine *e, int rc);
/* Rank 0, after setup and resume and before the first epoch: the space of a
 * checkpoint (o.checkpoint) and of the model file (o.save) reserved on their
 * file systems (hog_reserve), so that a full disk fails the run now, with a
 * message naming the path, instead of the save after hours of training. */
int eng_reserve(hog_engine *e);
/* Rank 0, at the end: the checkpoint's reservation given back, and the save's
 * unless a model was handed back (the caller's hog_model_save uses it). */
void eng_unreserve(hog_engine *e, int handed_back);
/* Restores o.resume into the engine's model and positions, refusing a
 * checkpoint of another data set or options unless o.force. */
int eng_load_resume(hog_engine *e);

/* diverge.c: when a run has diverged, one rule for every model (the file
 * says why it is this one). An epoch's mean training loss is bounded by
 * HOG_DIVERGE_FACTOR times the all-zero model's loss, and once the run has a
 * best epoch by HOG_DIVERGE_GROWTH times that epoch's, or the zero model's
 * loss, whichever is more. */
#define HOG_DIVERGE_FACTOR 100.0
#define HOG_DIVERGE_GROWTH 10.0
#define HOG_DIVERGE_FLOOR 0.5       /* the zero model's loss is taken as at least this */
/* What a model of zeros loses per example under @p loss on a set with meta
 * @p m, at most (the squared loss: half the largest squared label). */
double eng_zero_loss(enum hog_loss loss, const hog_meta *m);
/* The bound of an epoch's loss given the zero model's and the best epoch's
 * (NaN: none); *growth: 1 when the best epoch's sets it. */
double eng_loss_bound(double zero, double best, int *growth);
/* 1 when @p loss is past @p bound, or not a number. */
int eng_loss_diverged(double loss, double bound);
/* The rule over a run's epoch losses: the first epoch (0-based) that diverges,
 * or -1 (the engine applies it epoch by epoch; this is for the tests). */
int eng_diverge_seq(const double *loss, int n, double zero);
/* Thread 0: applies the rule to @p loss, epoch @p ep's mean training loss
 * (@p whole_epoch 0: the rounds so far, without the best-epoch part); when it
 * diverged, sets the action and the message (epoch, loss, bound, the step
 * size and what to try) and returns 1. Keeps the best epoch. */
int eng_check_diverged(hog_engine *e, int ep, double loss, int whole_epoch);
/* Whether every parameter of @p m is finite: a diverged model kept
 * (keep_diverged) must be, as a model file must. */
int eng_model_finite(const hog_model *m);

/* The hog_model fields every kind takes from the run's options. */
void eng_model_hyper(const hog_engine *e, hog_model *m);

#endif
