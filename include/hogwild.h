/** @file hogwild.h
 * @brief hogwild: lock-free parallel stochastic gradient descent on one machine.
 *
 * This header is the manual of the library behind the `hogwild` command. It has
 * three parts:
 *
 *  - **Errors**: every function that can fail returns an int: 0 for success, a
 *    positive errno value for a system error, or a negative HOG_E* code. Detail
 *    (the file, line, column or block and what was wrong) goes into a #hog_err
 *    context that the caller passes in and prints as it likes. hog_strerror()
 *    names any code. The library never prints and never exits.
 *  - **Data sets** (hogwild_data.h, included below): one LMDB file per data set
 *    (see hogwild-data(5)), written by a
 *    #hog_writer, read by a #hog_store (block by block, zero copy) or loaded whole
 *    into a #hog_data (arrays in memory for training). Importers and generators
 *    fill a writer.
 *  - **Training** (see the second half): models, update modes, step rules.
 *
 * Names: hog_<object>_<verb>; macros and enum values HOG_; each enum value carries
 * its enum's name (HOG_KIND_SPARSE). Opaque handles come in open/close or
 * init/free pairs. The format is little-endian; big-endian hosts are refused at
 * compile time.
 */
#ifndef HOGWILD_H
#define HOGWILD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HOG_VERSION_STRING "0.1.0"

/* ------------------------------------------------------------------------- */
/** @defgroup errors Errors
 * @{ */

/** Codes of our own; positive values are errno values. Every function here that
 * returns int and takes a hog_err returns 0 on success or one of these codes
 * (the same as err->code, with err->msg naming the file, record or option); any
 * call may also return ENOMEM, and any call that touches a file that file's
 * errno (ENOENT, EACCES, ENOSPC ...) or HOG_ELMDB. The codes a function can
 * return beyond those are listed with it. */
enum hog_error {
	HOG_OK = 0,
	HOG_EDATA = -1001,     /**< malformed input data (a line, a record, a value) */
	HOG_ECONFIG = -1002,   /**< a bad option or parameter value */
	HOG_ENOTSUP = -1003,   /**< not supported in this build or for this kind of data */
	HOG_ECORRUPT = -1004,  /**< a file of ours that is damaged (checksum, bounds) */
	HOG_EVERSION = -1005,  /**< a file of ours written by a newer format version */
	HOG_EFORMAT = -1006,   /**< a file that is not one of ours */
	HOG_EDIVERGED = -1007, /**< training produced NaN or Inf */
	HOG_EINTR = -1008,     /**< stopped by a signal (a checkpoint was written) */
	HOG_ELMDB = -1009,     /**< LMDB reported an error; the message says which */
	HOG_ECUDA = -1010,     /**< the CUDA backend failed */
	HOG_EMISMATCH = -1011, /**< a file that does not fit what it is used with */
	HOG_EMPI = -1020,      /**< MPI failed, or the ranks of a job disagree (options, data) */
};

/** Error context: filled by a failing call, read by the caller. */
typedef struct hog_err {
	int code;       /**< the code the failing call returned */
	char msg[768];  /**< "where: what is wrong", without a trailing newline */
} hog_err;

/** Name of an error code: a HOG_E* code or an errno value. Never NULL. */
const char *hog_strerror(int code);

/** @} */

/* ------------------------------------------------------------------------- */
/* Data sets: in a header of their own, read here, at this point of the manual. */
#include "hogwild_data.h"

/* ------------------------------------------------------------------------- */
/** @defgroup topo Threads and placement
 * @{ */

/** How workers are pinned (hwloc): to one core each, to a NUMA node, or not at all. */
enum hog_bind {
	HOG_BIND_CORE = 0,
	HOG_BIND_NUMA = 1,
	HOG_BIND_NONE = 2,
};

/** @} */

/* ------------------------------------------------------------------------- */
/** @defgroup train Training
 *
 * The shared model is an array of per-coordinate records that every worker reads
 * and writes at once. How the writes are made is the update mode:
 *
 * | mode     | read              | write                                   |
 * |----------|-------------------|-----------------------------------------|
 * | serial   | one thread        | plain (the reference; bit-reproducible) |
 * | lockfree | relaxed atomic    | relaxed atomic store (Hogwild!)         |
 * | buffered | private replica   | every K examples, each worker adds its  |
 * |          | of hot coordinates| change / T to the hot coordinates       |
 * |          |                   | (averaging); the rest as lockfree       |
 * | atomic   | relaxed atomic    | compare-and-swap add per coordinate     |
 * | striped  | under the locks of the touched stripes, taken in order      |
 * | locked   | under one global lock                                       |
 *
 * Every shared float is a C11 `_Atomic float` touched only with
 * memory_order_relaxed (plain moves on x86): races are on purpose, but none is a
 * data race in the C sense, so ThreadSanitizer stays quiet and the compiler
 * cannot invent stores.
 * @{ */

enum hog_mode {
	HOG_MODE_SERIAL = 0,
	HOG_MODE_LOCKFREE = 1,
	HOG_MODE_BUFFERED = 2,
	HOG_MODE_ATOMIC = 3,
	HOG_MODE_STRIPED = 4,
	HOG_MODE_LOCKED = 5,
	HOG_MODE_GRID = 6,     /**< mf only: conflict-free blocks (FPSGD): no two workers hold one row */
	HOG_MODE_REPLICA = 7,  /**< linear: every coordinate in a private replica per worker; every
	                            K examples stiff coordinates are averaged, the rest summed. On
	                            several NUMA nodes, into a replica per node, which syncs with
	                            the global model by the same rule (node_sync) */
	HOG_MODE_AUTO = 8,     /**< probe the model's modes on a sample and train with the fastest
	                            that reaches serial's loss (hog_train_result says which, and why) */
	HOG_MODE_DETERMINISTIC = 9, /**< linear: a fixed number of logical shards (shards), each
	                            running K examples a round on a private sparse delta from the
	                            round's model, merged in shard order: the model is a pure
	                            function of the data, the options and the seed, whatever the
	                            threads or their timing */
};
/** The modes every model takes are those below HOG_MODE_COUNT; model-specific
 * ones (grid) follow, up to HOG_MODE_ALL. */
#define HOG_MODE_COUNT 6
#define HOG_MODE_ALL 10

/** The models (docs/architecture.md §4): one training engine serves them all. */
enum hog_model_kind {
	HOG_MODEL_LINEAR = 1, /**< sparse linear: w.x + b */
	HOG_MODEL_MF = 2,     /**< matrix factorization of (user, item, rating) triples */
	HOG_MODEL_MLP = 3,    /**< dense layers: ReLU hidden layers, softmax (or sigmoid) output */
};

/** Losses. HOG_LOSS_SOFTMAX is the multinomial cross-entropy of a softmax output
 * (multiclass labels; the mlp trains it, and `--model linear --loss softmax` is
 * the mlp with no hidden layers). */
enum hog_loss { HOG_LOSS_LOGISTIC = 0, HOG_LOSS_HINGE = 1, HOG_LOSS_SQUARED = 2, HOG_LOSS_SOFTMAX = 3 };

/** Per-feature scaling of the inputs (hog_train_opts.normalize). */
enum hog_normalize {
	HOG_NORMALIZE_OFF = 0,  /**< the features as they are */
	HOG_NORMALIZE_ON = 1,   /**< every feature scaled to a largest |x| in (1/2, 1] */
	HOG_NORMALIZE_AUTO = 2, /**< on when some feature has values beyond [-1, 1] (raw scales),
	                             off (bit for bit) when every value is within it */
};

/** MPI: how the ranks' averaging travels (hog_train_opts.compress). */
enum hog_compress {
	HOG_COMPRESS_NONE = 0,     /**< the whole shared model summed (MPI_Allreduce) */
	HOG_COMPRESS_POWERSGD = 1, /**< matrices as rank-R factors of the change, error feedback */
	HOG_COMPRESS_TOPK = 2,     /**< a fraction F of each span's change at coordinates every rank
	                                picks alike, error feedback */
};

/** Step rules (docs/architecture.md §6). */
enum hog_rule {
	HOG_RULE_SGD = 0,         /**< w -= lr_t * g */
	HOG_RULE_ADAGRAD = 1,     /**< per coordinate: w -= lr/(beta+sqrt(sum g^2)) * g */
	HOG_RULE_ADAREVISION = 2, /**< McMahan & Streeter 2014, delay-tolerant AdaGrad */
	HOG_RULE_ADAM = 3,        /**< the mlp: Kingma & Ba 2015, l2 added to the gradient */
	HOG_RULE_ADAMW = 4,       /**< the mlp: Adam with decoupled weight decay (Loshchilov &
	                               Hutter 2019): w -= lr l2 w beside Adam's step */
};

/** Step size scaled with the team (hog_train_opts.lr_scale). */
enum hog_lr_scale {
	HOG_LR_SCALE_NONE = 0,   /**< lr as given */
	HOG_LR_SCALE_LINEAR = 1, /**< lr times the workers of every rank (Goyal et al. 2017) */
	HOG_LR_SCALE_SQRT = 2,   /**< lr times the square root of that (Krizhevsky 2014) */
};

/** SGD step-size schedules: lr_t for epoch e (from 0) and example count t. */
enum hog_sched {
	HOG_SCHED_CONSTANT = 0, /**< lr */
	HOG_SCHED_BACKOFF = 1,  /**< lr * backoff^e (the Hogwild! paper's, backoff 0.9) */
	HOG_SCHED_INVT = 2,     /**< lr / (1 + t/t0) */
};

/** Names of the enums above ("lockfree", "logistic", "adagrad", "backoff"...), and
 * the reverse; parse functions return -1 for an unknown name. */
const char *hog_mode_name(enum hog_mode m);
const char *hog_loss_name(enum hog_loss l);
const char *hog_rule_name(enum hog_rule r);
const char *hog_sched_name(enum hog_sched s);
const char *hog_bind_name(enum hog_bind b);
const char *hog_model_kind_name(enum hog_model_kind k);
int hog_model_kind_parse(const char *s);
/** 1 when this build can train models of kind @p k, else 0. */
int hog_model_kind_built(enum hog_model_kind k);
/** The update modes a model of kind @p k takes: bit (1 << mode) for each. */
unsigned hog_model_kind_modes(enum hog_model_kind k);
int hog_mode_parse(const char *s);
int hog_loss_parse(const char *s);
int hog_rule_parse(const char *s);
int hog_sched_parse(const char *s);
int hog_bind_parse(const char *s);

/** Figures of one epoch, handed to hog_train_opts.on_epoch. */
typedef struct hog_epoch_stats {
	int epoch;                 /**< from 1 */
	int epochs;                /**< of the run (the count --epochs auto chose) */
	int threads;
	enum hog_mode mode;        /**< the update mode (the one chosen by HOG_MODE_AUTO)*/
	double seconds;            /**< wall time of this epoch's updates (evaluation excluded) */
	double elapsed;            /**< wall time of all epochs so far (evaluation excluded) */
	double wall;               /**< wall time since the first epoch began, to this epoch's figures
	                                (evaluation, checks and every epoch's end included): the
	                                difference of two epochs' is the time an epoch really takes */
	uint64_t examples, nnz;    /**< processed in this epoch */
	double ex_per_s, nnz_per_s_per_thread;
	double lr;                 /**< step size at the end of the epoch */
	double train_loss;         /**< progressive: mean loss of the examples before their update */
	double test_loss, test_acc, test_auc; /**< NAN when there is no test set (or not binary) */
	double test_rmse, test_mae;  /**< regression and ratings; NAN otherwise */
	double delay_mean, delay_p99, delay_max; /**< sampled updates between read and write */
	uint64_t delay_samples;
	double bias_lost;          /**< sgd: |intended - actual| change of the bias over the summed
	                                size of the changes made: update mass lost to races on the
	                                hottest coordinate (~1e-6 from rounding alone) */
	enum hog_loss loss;        /**< the loss of train_loss and test_loss, as trained (mf:
	                                squared); the squared loss is half the squared error */
	const char *unit;          /**< what nnz and nnz_per_s_per_thread count, per model:
	                                "nnz" (linear: nonzeros), "ratings" (mf), "flop" (mlp:
	                                multiply-adds x 2 of every product) */
	int64_t nonzeros;          /**< linear, with opts.diagnostics: the weights (bias excluded)
	                                of the model as it would be handed back now that are not
	                                zero; -1 otherwise */
	double noise_scale;        /**< the gradient noise scale tr(Sigma)/|G|^2 measured in this
	                                epoch, in examples (McCandlish et al. 2018): the mlp's
	                                always, the linear model's with opts.diagnostics; NAN
	                                when not measured, +INF when the noise drowned the signal */
	uint32_t batch;            /**< the mlp: this epoch's mini-batch; 0 for the other models */
	uint64_t syncs;            /**< MPI: averagings of the ranks' models so far (0: one rank) */
	uint64_t sync_bytes;       /**< MPI: payload bytes one rank sends per averaging (the
	                                MPI_Allreduce buffers, compressed or whole) */
} hog_epoch_stats;

/** Training progress inside an epoch (for a progress line). */
typedef struct hog_progress {
	int epoch, epochs;
	uint64_t done, total;      /**< examples of this epoch */
	double seconds;            /**< since the epoch began */
	double lr, train_loss;
} hog_progress;

/** hog_train_opts.epochs = 0 (the command line's default): 20 epochs, or for a
 * set of n < HOG_EPOCHS_VISITS / 20 examples enough to visit HOG_EPOCHS_VISITS
 * examples in all (at most 1000 epochs), a small set needing more passes for
 * as many steps; the backoff factor is then raised to the power 20 / epochs (and
 * the default t0 multiplied by epochs / 20), so that the step decays over the
 * run as over 20 epochs. */
#define HOG_EPOCHS_VISITS (1u << 18)

/** hog_train_opts.shuffle_chunk = 0 for the linear model in memory with --average (the
 * command line's default; without it the last iterate ends up to 2% worse in chunks): chunks of this many
 * consecutive shard rows (bench/results/order.md: the final test loss with --average
 * within 0.1% of the row shuffle's on every set measured, a label-sorted one included,
 * as with 4096, 1% faster an epoch, where a shard of up to 4096 rows would be one chunk,
 * the same order every epoch; 1024 and 64 were not). */
#define HOG_SHUFFLE_CHUNK_DEFAULT 256

/** @name Each model's own options
 * hog_train_opts keeps the options every model (or the engine) reads at its top
 * level, and each model's own in a group named after the model, read by that
 * model's trainer alone (its file in src/train/ fills the group's defaults,
 * checks it and adds it to the options hash a checkpoint keeps); another
 * model's group is ignored. An option two models read (--delay, --flush-every)
 * stays at the top level.
 * @{ */
/** The linear model's (hog_train_opts.linear). */
typedef struct hog_linear_opts {
	int hot;                   /**< buffered: hot coordinates (-1, the default: chosen from
	                                frequencies); replica: features averaged */
	int node_sync;             /**< replica on several NUMA nodes: flushes of each node's first
	                                worker between syncs of its node replica with the global
	                                model (0, the default: 1; bound workers only, not
	                                HOG_BIND_NONE on this machine); -1: no node replicas, the
	                                one-level mode whatever the nodes (to compare the two) */
	int stripes;               /**< striped: coordinates per lock; default 64 */
	int average;               /**< hand back (and evaluate) the average of the last epoch's
	                                iterates instead of the last one (averaged SGD, kept
	                                sparse); checkpoints keep the iterate itself. Default 0 here;
	                                the command line turns it on */
	double l1;                 /**< lambda of lambda |w|_1 beside the mean loss (the bias
	                                not regularized); default 0: off. Applied lazily per touch,
	                                soft thresholding by the step times l1 * n / d_v, so that
	                                weights are exactly zero (sgd and adagrad; adarevision is
	                                refused). With average, the averaged model keeps the last
	                                iterate's zeros */
	int det_dense;             /**< deterministic: how a round's changes are gathered. 0 (the
	                                default): chosen from the model's width (dense where D x
	                                stride is at most 4 x a shard's round of nonzeros); 1:
	                                dense, each worker sums its shards' changes over the whole
	                                model in a fixed tree; -1: a list of the coordinates each
	                                shard changed, added in shard order. Either is the same
	                                bits at any thread count; the two agree to rounding */
} hog_linear_opts;

/** Matrix factorization's (hog_train_opts.mf). */
typedef struct hog_mf_opts {
	uint32_t rank;             /**< factors per user and item; default 32 */
	int biases;                /**< learn a global mean and user and item biases */
	uint32_t grid;             /**< grid mode: blocks per side (0: 2 * threads + 1) */
	double bias_step;          /**< set by training, not the caller: sgd's biases step this many
	                                times the factors' step (the ratings' scale where the default
	                                step was scaled down for it; 0 or 1: the same step) */
} hog_mf_opts;

/** The mlp's (hog_train_opts.mlp); also what linear with the softmax loss
 * trains with, as the mlp with no hidden layers. */
typedef struct hog_mlp_opts {
	uint32_t layers[8];        /**< widths of the hidden layers (ReLU) */
	int nlayers;               /**< hidden layers, 0..8 (default 0: softmax regression) */
	uint32_t batch;            /**< examples per mini-batch (default 32); with batch_auto the
	                                first epoch's */
	int batch_auto;            /**< 1: the batch grows between epochs towards the measured
	                                gradient noise scale, up to batch_max, the step scaled to
	                                match (hog_epoch_stats.noise_scale) */
	uint32_t batch_max;        /**< batch_auto's bound (default 1024) */
	double lars;               /**< sgd: LARS's trust coefficient eta, each layer's weights at
	                                lr eta |w_l| / (|g_l| + l2 |w_l|) (You et al. 2017); 0: off */
	double momentum;           /**< sgd: momentum mu of v = mu v + g, w -= lr v (default 0) */
	int momentum_auto;         /**< 1: a network with hidden layers trained with sgd and
	                                momentum 0 takes 0.9 (scikit-learn's sgd solver's; the
	                                command line sets it until --momentum is given) */
	const char *device;        /**< backend of every worker, "cpu" (NULL) or "cuda[:N]" */
	double adam_beta1;         /**< adam, adamw: decay of the gradient's mean (default 0.9) */
	double adam_beta2;         /**< adam, adamw: decay of its square's mean (default 0.999) */
	double adam_eps;           /**< adam, adamw: added to the root (default 1e-8) */
} hog_mlp_opts;
/** @} */

struct hog_model;
struct hog_eval;

/** Everything that says how to train; hog_train_opts_init() fills the defaults. */
typedef struct hog_train_opts {
	enum hog_model_kind model; /**< default linear */
	enum hog_mode mode;        /**< default lockfree */
	enum hog_loss loss;        /**< default logistic */
	enum hog_rule rule;        /**< default sgd */
	enum hog_sched sched;      /**< default backoff */
	enum hog_bind bind;        /**< default core */
	int threads;               /**< default 0: every core */
	int epochs;                /**< default 20; 0: HOG_EPOCHS_AUTO's rule */
	double lr;                 /**< step size (alpha for AdaGrad/AdaRevision); 0 (the default):
	                                sgd 1/(1 + mean |x|^2), a step that suits the data's scale
	                                (0.5 for unit-norm rows; softmax regression, whose step is on
	                                a batch's mean gradient, B/(B + mean |x|^2); |x| after
	                                normalize's scaling); adagrad/adarevision 0.1 */
	double backoff;            /**< per-epoch factor for HOG_SCHED_BACKOFF; default 0.9; 0 (the
	                                command line's default): that of HOG_EPOCHS_VISITS' rule
	                                whatever the epochs, 0.9^(20 / its epochs): 0.9 for a set of
	                                HOG_EPOCHS_VISITS / 20 examples or more, nearer 1 for a smaller
	                                one; a resumed run then keeps its checkpoint's */
	double t0;                 /**< HOG_SCHED_INVT: examples; default = examples in one epoch */
	uint64_t warmup;           /**< examples over which lr ramps up linearly; default 0 (with
	                                lr_scale: one epoch of examples) */
	enum hog_lr_scale lr_scale; /**< lr times the team's workers, threads x MPI ranks, or its
	                                square root; default none */
	double l2;                 /**< lambda of (lambda/2)|w|^2 next to the mean loss; default 1e-6 */
	double adagrad_beta;       /**< beta of AdaGrad/AdaRevision; default 1 */
	uint64_t seed;             /**< shuffling and sharding; default 1 */
	int delay;                 /**< apply each update K examples after its read; default 0
	                                (linear; the other models refuse it) */
	int shards;                /**< deterministic: logical shards (0, the default: 16, or for a
	                                set of n < 16384 examples n / 1024, at least 1; mf: 16);
	                                the model depends on it, never on threads */
	int flush_every;           /**< buffered, replica: examples between flushes (0, the default:
	                                linear buffered 1024, replica 16384 with average, 4096
	                                without; the mlp's buffered mode reads it too) */
	int measure_delay;         /**< sample the delay between read and write (1 in 64 examples) */
	int diagnostics;           /**< linear: measure hog_epoch_stats.noise_scale and .nonzeros at
	                                every epoch's end (a pass over a sample and over the model
	                                while the team waits; 0: NAN and -1). The CLI asks for them
	                                with --metrics, which writes them */
	int normalize;             /**< enum hog_normalize: every model that takes features scales
	                                each feature by 1 / max |x| over the training set (rounded
	                                to a power of two; the mlp its first layer's inputs); the
	                                model file holds weights for the unscaled features. Default
	                                HOG_NORMALIZE_OFF here; the command line's is auto */
	int centered;              /**< set by the linear model's and the mlp's checks (not an option): features
	                                they center, with normalize on or auto (scale.c); 0 here */
	int loss_from_task;        /**< 1: the loss follows the training set's task: multiclass
	                                labels train softmax, regression labels squared (a note
	                                says so); 0 (the default here): the loss as given. The
	                                command line sets it when --loss is not given */
	uint64_t sync_every;       /**< MPI: examples per rank between averagings of the ranks'
	                                models (0: every round, 32768 per worker); rounds are
	                                sized so that an averaging falls on a round boundary */
	int compress;              /**< MPI: enum hog_compress, for the averagings (one rank: unused) */
	uint32_t compress_rank;    /**< HOG_COMPRESS_POWERSGD: the rank R of the factors */
	double compress_frac;      /**< HOG_COMPRESS_TOPK: the fraction F of coordinates sent */
	int no_shuffle;            /**< visit the examples in the data set's order, the same every
	                                epoch (tests that compare against a written-out order) */
	uint32_t shuffle_chunk;    /**< 0 (the default): the model's default order, for the linear
	                                model in memory with linear.average chunks of
	                                HOG_SHUFFLE_CHUNK_DEFAULT, else (without averaging, mf, the
	                                mlp, hog_train_stream) the row shuffle. 1: every
	                                epoch visits each worker's examples in a new random order
	                                (the default before issue 22). C > 1 (the linear model):
	                                in chunks of C examples consecutive in the worker's shard
	                                -- dealt by a seeded shuffle of the rows, so a chunk is
	                                not a run of the data set's own order --, the chunks in a
	                                new random order each epoch, each chunk's examples in
	                                turn (the rows stream from memory instead of one random
	                                row per example). A checkpoint of the row shuffle
	                                resumes with 0 (its run goes on with the row shuffle) */
	const char *class_weight;  /**< binary and multiclass sets: weights of the classes, which
	                                multiply the examples' own (hog_block.weights): "balanced"
	                                (class c weighs n / (classes * n_c), as scikit-learn's) or
	                                "C=W,C=W,..." (binary: C is 1, +1 or pos for the positive
	                                class, 0, -1 or neg for the negative; multiclass: the class
	                                number; classes not named weigh 1). NULL: every class 1.
	                                Regression and ratings sets refuse it (HOG_ECONFIG) */
	hog_linear_opts linear;    /**< --model linear's own options */
	hog_mf_opts mf;            /**< --model mf's own options */
	hog_mlp_opts mlp;          /**< --model mlp's own options (and linear --loss softmax's) */
	uint32_t round_examples;   /**< examples per worker between meetings of the team, where
	                                stop requests, checkpoints and progress are handled
	                                (default 32768) */
	const char *checkpoint;    /**< path written at the end of every epoch, every
	                                checkpoint_every seconds, and when stopped; its space is
	                                reserved before the first epoch, as save's is */
	const char *save;          /**< where the caller will save the model handed back
	                                (hog_model_save): the file's size is reserved on its file
	                                system before the first epoch, so that a full disk fails
	                                the run at its start (ENOSPC naming the path) rather than
	                                the save at its end. The caller then saves there or calls
	                                hog_model_unreserve(); with no model handed back the
	                                reservation is gone already. NULL: nothing reserved */
	double checkpoint_every;   /**< seconds; 0: at epoch ends only */
	const char *resume;        /**< checkpoint to continue from: refused when it was written for
	                                another data set or other options (a hash of each is kept) */
	int force_resume;          /**< resume even so (the shapes must still fit) */
	int early_stop;            /**< N > 0: early stopping on the test set (the held-out set
	                                the caller evaluates on, its validation set): the run ends
	                                once the test loss has not improved for N epochs in a row,
	                                and hands back the model of its best epoch
	                                (hog_train_result.best_epoch). Needs a test set; one MPI
	                                rank. Default 0: every epoch, the last one's model */
	int keep_diverged;         /**< a run that diverges (HOG_EDIVERGED) still hands back its
	                                model, when every parameter is finite (default 0: NULL) */
	const char *topology;      /**< hwloc synthetic description or XML (tests); NULL: this machine */
	volatile int *stop;        /**< set non-zero (by a signal handler) to stop cleanly */
	void (*on_epoch)(void *ud, const hog_epoch_stats *s);
	void (*on_progress)(void *ud, const hog_progress *p);
	/** a line for the user before training starts (the mode --mode auto chose,
	 * and what it measured); may be NULL */
	void (*on_note)(void *ud, const char *note);
	/** optional, instead of a @p test set in memory (which is then NULL): the
	 * caller's held-out set (the CLI's, read a chunk at a time), evaluated
	 * after every epoch on thread 0 while the team waits: @p m is the model
	 * as it stands (the one an early stop keeps, with its hyper-parameters and
	 * origin), *ev its figures; they count as the test figures (the table,
	 * early stopping). Nonzero fails the run with that code and @p err's
	 * message. One MPI rank (HOG_ENOTSUP otherwise). */
	int (*test_eval)(void *ud, const struct hog_model *m, struct hog_eval *ev, hog_err *err);
	void *ud;
} hog_train_opts;

/** Fills @p o with the defaults. */
void hog_train_opts_init(hog_train_opts *o);

/** The update modes the run @p o describes takes: bit (1 << mode) for each (as
 * hog_model_kind_modes(); linear with softmax loss trains as an mlp with no
 * hidden layer). */
unsigned hog_train_modes(const hog_train_opts *o);
/** The losses (--loss) model kind @p k takes: bit (1 << hog_loss) for each
 * (linear's softmax trains as the mlp). A library run of mf given the generic
 * default, logistic, trains the squared loss. */
unsigned hog_model_kind_losses(enum hog_model_kind k);
/** The kind of model a run of @p o makes, checkpoints and saves (linear with
 * softmax loss: mlp). */
enum hog_model_kind hog_train_kind(const hog_train_opts *o);
/** The update mode the command line trains @p o's model with when no --mode is
 * given and the training set is not known: the model's fastest mode in the
 * measurements of bench/results that takes @p o's options (linear: buffered;
 * mf: grid; mlp: lockfree; hog_train_default_mode_data for a known set). The
 * library's own default (hog_train_opts_init) stays lockfree, the mode every
 * model takes. */
enum hog_mode hog_train_default_mode(const hog_train_opts *o);
/** hog_train_default_mode() for a run of hog_train_stream() when @p stream is
 * 1 (mf: lockfree, grid's blocks need the ratings loaded). */
enum hog_mode hog_train_default_mode_for(const hog_train_opts *o, int stream);
/** The same for the training set whose header is @p m (hog_data.meta, or
 * hog_data_load_header's; NULL: unknown, as hog_train_default_mode_for). The
 * linear model's default depends on the set's shape: replica where the model
 * is narrow against what a worker touches between two flushes, buffered
 * otherwise (lin_default_mode in src/train/linear_opts.c says why). */
enum hog_mode hog_train_default_mode_data(const hog_train_opts *o, int stream, const hog_meta *m);

/** @name Several machines (MPI)
 * Built with MPI (Makefile MPI=1, or auto when Open MPI is installed), a program
 * started by mpirun calls hog_mpi_start() once; hog_train() then trains data
 * parallel: each rank its own share of the examples with its own team of
 * threads, the ranks averaging their models every hog_train_opts.sync_every
 * examples and at every epoch's end; rank 0 alone calls on_epoch/on_progress
 * and writes checkpoints. Without MPI these say so and hog_train() runs alone.
 * @{ */
/** 1 when this build has MPI. */
int hog_mpi_built(void);
/** 1 when the environment says mpirun/mpiexec started this process. */
int hog_mpi_launched(void);
/** Starts MPI (thread support "funneled": only the calling thread talks MPI;
 * hog_train() keeps to that). @return 0; HOG_ENOTSUP (built without MPI);
 * HOG_EMPI. */
int hog_mpi_start(hog_err *err);
/** This process's rank in the training team (0 when MPI is not started). */
int hog_mpi_rank(void);
/** Ranks in the training team (1 when MPI is not started). */
int hog_mpi_size(void);
/** Ranks in the whole job (1 when MPI is not started). */
int hog_mpi_world(void);
/** Trains with the first @p n ranks of the job only (hogwild compare --ranks);
 * 0: all of them. @return 1 when this rank is in the team, 0 when it sits out. */
int hog_mpi_team(int n, hog_err *err);
/** Waits for every rank of the job. */
void hog_mpi_barrier(void);
/** Ends MPI (after the last hog_train()). */
void hog_mpi_finish(void);
/** Ends every rank of the job with status @p code (a rank that cannot go on
 * while the others wait in a collective); without MPI it does nothing. */
void hog_mpi_abort(int code);
/** @} */

/** A trained model of any kind (hog_model_kind): its shapes, parameters and the
 * step rule's state. One file format serves every kind (hog_model_save()). */
typedef struct hog_model hog_model;

/** Summary of a finished run. */
typedef struct hog_train_result {
	int epochs_done;
	int threads;
	double seconds;            /**< training time (evaluation excluded) */
	hog_epoch_stats last;      /**< the last epoch's figures */
	int hot;                   /**< buffered: hot coordinates used; replica: features averaged */
	int node_replicas;         /**< replica: node replicas, one per NUMA node with workers
	                                (0: the one-level mode, the workers on one node) */
	double lr;                 /**< the step size (alpha) used, after the model's default */
	enum hog_loss loss;        /**< the loss used (mf: always squared) */
	double sync_seconds;       /**< MPI: of seconds, the time spent averaging the ranks'
	                                models, waits for the slowest rank included */
	enum hog_mode mode;        /**< the mode trained with (the one HOG_MODE_AUTO chose) */
	char mode_why[320];        /**< HOG_MODE_AUTO: what the probe measured and why it chose so */
	int best_epoch;            /**< early_stop: the epoch (1-based) whose model was handed back
	                                (0: no early stopping, or no epoch had a finite test loss) */
	double best_loss;          /**< ... and its test loss */
	int stopped_early;         /**< 1: the run ended before o.epochs because the test loss had
	                                stopped improving */
	uint64_t syncs;            /**< MPI: averagings of the ranks' models (0: one rank) */
	uint64_t sync_bytes;       /**< MPI: payload bytes one rank sends per averaging */
	int damped;                /**< buffered and replica with sgd: features whose change a flush
	                                scales down, where the workers' changes together would
	                                overshoot (the merge factor; the bias not counted) */
	int checkpoint_failures;   /**< checkpoints that could not be written (a full disk): each said
	                                through on_note, the run going on; the last one written stays */
	int prefetch;              /**< linear: 1 when the kernel asked for each example's
	                                regularizer and average ahead, a tenth of the nonzeros or
	                                more falling beyond what the L2 cache holds */
} hog_train_result;

/** Trains the model o->model names: linear on sparse sets (binary or regression
 * labels), mf on ratings sets, mlp on dense or sparse sets with binary or
 * multiclass labels (linear with HOG_LOSS_SOFTMAX is the mlp without hidden
 * layers, and returns an mlp model);
 * evaluating on @p test (may be NULL) after every epoch.
 * @return 0; HOG_ECONFIG (bad option, named in err); HOG_EMISMATCH (data of the
 * wrong kind, a checkpoint that does not fit); HOG_EDIVERGED (an epoch's training
 * loss NaN, Inf, over 100 times an all-zero model's, or over 10 times this run's
 * best epoch's and worse than the zero model's, the same rule for every model
 * (hogwild(1), Divergence); the message names the epoch, the loss, its
 * bound and the step size; the last checkpoint stays, the diverged state is not
 * written to it; *model_out is NULL unless o->keep_diverged); HOG_EINTR
 * (*o->stop was set: a checkpoint was written when o->checkpoint is set). On every
 * other return *model_out (if not NULL) gets the model as it stands, or NULL. */
int hog_train(const hog_data *train, const hog_data *test, const hog_train_opts *o,
              hog_model **model_out, hog_train_result *res, hog_err *err);

/** hog_train() that keeps one copy of the training set in memory: @p train
 * becomes the trainer's, which may rearrange it in place (linear: ids
 * renumbered, each row's nonzeros reordered, values scaled) and trains on it
 * there instead of copying it into per-worker shards. It is freed before the
 * call returns, whatever the outcome. The model is the one hog_train() gives
 * (bit for bit in serial mode). */
int hog_train_consume(hog_data *train, const hog_data *test, const hog_train_opts *o,
                      hog_model **model_out, hog_train_result *res, hog_err *err);

/** Trains on the data set at @p path without loading it, for sets larger than
 * memory: each worker reads its own blocks from the memory map, a shuffled order
 * of blocks per epoch and a shuffled order of examples inside each, and the page
 * cache does the I/O (a block's pages leave the resident set when the worker is
 * done with it). Setup reads the whole set once (feature counts). The test set
 * is in memory. Every model streams: mf in serial, lockfree, atomic, striped
 * and locked modes (grid and deterministic refuse with HOG_ECONFIG), the mlp
 * in all but deterministic (HOG_ECONFIG). */
int hog_train_stream(const char *path, const hog_data *test, const hog_train_opts *o,
                     hog_model **model_out, hog_train_result *res, hog_err *err);

/** Evaluation of a model on a data set. */
typedef struct hog_eval {
	uint64_t examples;
	double loss;       /**< mean loss of the model's loss function (no regularizer) */
	double logloss;    /**< binary: mean logistic loss of sigmoid(margin); multiclass:
	                        mean -log p(label) */
	double accuracy;   /**< binary: share of sign(margin) == label; multiclass: of argmax == label */
	double auc;        /**< binary: area under the ROC curve */
	double rmse;       /**< regression, ratings */
	double mae;        /**< regression, ratings: mean absolute error */
	uint32_t classes;  /**< multiclass: the model's classes (0 otherwise) */
} hog_eval;

/** Predictions for every example of @p d: linear, the margins w.x + b (ids
 * beyond the model's dimension count as zero weight); mf, the predicted rating
 * (users or items never seen in training get the global mean plus the biases
 * that exist); mlp, the class number (softmax output) or the margin (one
 * sigmoid output). @p out has d->n entries.
 * @return 0 or HOG_EMISMATCH (a data set of the wrong kind for the model). */
int hog_model_predict(const hog_model *m, const hog_data *d, float *out, hog_err *err);
/** Class probabilities of a multiclass model (hog_model_info.classes > 0):
 * @p out has d->n * classes entries, example by example.
 * @return 0, HOG_EMISMATCH (wrong data set), HOG_ENOTSUP (not a multiclass model). */
int hog_model_predict_proba(const hog_model *m, const hog_data *d, float *out, hog_err *err);
/** Confusion matrix of a multiclass model on @p d: @p counts[t * classes + p]
 * examples of true class t predicted as p (classes * classes entries).
 * @return as hog_model_predict_proba(). */
int hog_model_confusion(const hog_model *m, const hog_data *d, uint64_t *counts, hog_err *err);
/** Checks that data set @p d fits model @p m and puts it in the model's terms
 * (hog_data_reconcile() against what the model kept of its training set: task,
 * id maps, column names, dimension), in place. @p d_name and @p m_name (the
 * files) are named in a refusal; *@p fit (may be NULL) gets what was done.
 * @return 0, HOG_EMISMATCH or ENOMEM. */
int hog_model_prepare(const hog_model *m, hog_data *d, const char *d_name, const char *m_name, hog_data_fit *fit,
                      hog_err *err);
/** hog_model_prepare() for a set read in chunks: hog_data_match_begin()
 * against what the model kept of its training set; each chunk then goes
 * through hog_data_match_chunk(). @return as hog_model_prepare(). */
int hog_model_match(const hog_model *m, hog_chunks *c, const char *d_name, const char *m_name, hog_data_match **x,
                    hog_err *err);
/** The original ids of a model's users and items (NULL, 0 when it kept none). */
const uint64_t *hog_model_ids(const hog_model *m, int items, uint64_t *n);
/** Evaluates @p m on @p d (prepared with hog_model_prepare()). @return 0 or ENOMEM. */
int hog_model_eval(const hog_model *m, const hog_data *d, hog_eval *ev, hog_err *err);
/** hog_model_eval() a chunk at a time (hog_chunks_next(), each chunk put in
 * the model's terms by hog_data_match_chunk()): the figures of the whole set,
 * to the last bit, the chunks taken in the set's order. Memory: one chunk's
 * predictions, and 4 bytes an example of a binary set for its AUC. */
typedef struct hog_eval_acc hog_eval_acc;
/** Starts an evaluation of @p m on the set whose header is @p head;
 * @p confusion: count the confusion matrix too (multiclass models).
 * @return 0, HOG_EMISMATCH (unlabelled, not the model's kind), HOG_ENOTSUP, ENOMEM. */
int hog_model_eval_begin(const hog_model *m, const hog_data *head, int confusion, hog_eval_acc **out,
                         hog_err *err);
/** Adds chunk @p d. @return 0, HOG_EMISMATCH or ENOMEM. */
int hog_model_eval_add(hog_eval_acc *a, const hog_data *d, hog_err *err);
/** The figures into @p ev and the confusion counts into @p confusion
 * (either may be NULL: hog_model_confusion()'s layout); frees @p a (NULL is fine). */
void hog_model_eval_end(hog_eval_acc *a, hog_eval *ev, uint64_t *confusion);
/** Writes a model file atomically (temp, fsync, rename): magic, version, shapes,
 * hyper-parameters, training state, parameters, CRC-32. @return 0 or the errno
 * of the write, sync or rename (nothing is left at @p path then). */
int hog_model_save(const hog_model *m, const char *path, hog_err *err);
/** Gives back the space a run reserved for saving its model to @p path
 * (hog_train_opts.save) when the caller does not save it there after all;
 * nothing when there is no such reservation. hog_model_save() uses it up. */
void hog_model_unreserve(const char *path);
/** Reads a model file, checking magic, version, sizes and checksum.
 * @return 0, HOG_EFORMAT, HOG_EVERSION, HOG_ECORRUPT (truncated, checksum), errno. */
int hog_model_load(hog_model **m, const char *path, hog_err *err);
/** Writes model file @p path (a checkpoint too) to @p fd as text that reads back
 * exactly (hog_model_undump()): a header of "key value" lines (kind, loss, step
 * rule, shapes, hyper-parameters, the training set's task, id maps, columns and
 * split, a checkpoint's positions), then one record of parameters a line, each
 * with its raw id; floats as "%.9g" (hogwild(1), model dump).
 * @return 0, hog_model_load()'s codes, or the errno of a write. */
int hog_model_dump(const char *path, int fd, hog_err *err);
/** Rebuilds the model file a dump describes (hog_model_dump()) at @p out,
 * atomically: the same bytes as the file dumped (a file of an older format
 * version is written in the current one). @return 0, HOG_EDATA (the message
 * names DUMP:LINE and what is wrong), ENOMEM or errno. */
int hog_model_undump(const char *dump, const char *out, hog_err *err);
/** Frees a model and everything it owns. NULL is fine. */
void hog_model_free(hog_model *m);
/** Shapes and hyper-parameters of a model. */
typedef struct hog_model_info {
	enum hog_model_kind kind;
	uint64_t dim;              /**< linear: features; mlp: inputs (its weights are not here) */
	uint64_t users, items;     /**< mf */
	uint32_t rank;             /**< mf: factors per row */
	int biases;                /**< mf: global mean and biases learned */
	double mean;               /**< mf: the training mean (predicted for unseen users and items) */
	enum hog_loss loss;
	enum hog_rule rule;
	int epochs_done;           /**< epochs completed (a checkpoint inside an epoch counts it not) */
	double bias;               /**< linear */
	const float *weights;      /**< linear: dim weights, stride 1 (a copy owned by the model) */
	uint32_t classes;          /**< mlp with a softmax output: classes (0: one output) */
	int nlayers;               /**< mlp: hidden layers */
	uint32_t layers[8];        /**< mlp: their widths */
	double momentum;           /**< mlp: sgd momentum trained with */
	enum hog_task task;        /**< the training set's task (0: not recorded, a model file of an
	                                older hogwild or a model made by the API) */
	const char *split;         /**< the training set's hog_data.split when it was a half of a
	                                split (owned by the model), or NULL */
	enum hog_sched sched;      /**< the step-size schedule trained with */
	double lr, l2, beta, backoff, t0; /**< hyper-parameters trained with */
	uint64_t seed, warmup;
	uint64_t examples_seen;    /**< examples processed in all (the 1/t schedule's t) */
	uint64_t params;           /**< floats in the file: parameters and the step rule's state */
	uint64_t user_ids, item_ids; /**< mf: the id maps kept (their lengths; 0: none, ids are dense) */
	const char *columns;       /**< csv: the training set's column names joined by ',' (owned
	                                by the model), or NULL */
	uint32_t csv_label, csv_fields; /**< csv: the training set's label column of its lines' fields
	                                     (from 0; 0, 0: unknown) */
	uint32_t vw_bits;          /**< vw: the bits the training set's names were hashed into (0: unknown) */
	int neg_zero;              /**< binary without class names: the training set's negatives were 0,
	                                not -1 (predict --labels writes them so) */
	const char *class_names;   /**< the training set's class names (hog_data.class_names, owned
	                                by the model): predict writes them; or NULL */
	const char *categories;    /**< the training set's categories (hog_data.categories, owned by
	                                the model), or NULL */
	uint64_t category_from;    /**< and the first one's feature id */
	int sparse;                /**< mlp: trained on a sparse set (a sparse first layer) */
} hog_model_info;
/** Fills @p info from @p m (nothing can fail). */
void hog_model_info_get(const hog_model *m, hog_model_info *info);

/** @} */

/* ------------------------------------------------------------------------- */
/* Dense compute backends: in a header of their own, read here. */
#include "hogwild_backend.h"

#ifdef __cplusplus
}
#endif
#endif /* HOGWILD_H */
