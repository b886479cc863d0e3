/* The mlp trainer's shared state and workers (mlp_train.c), for the files
 * that train it in a mode of their own (mlp_determ.c). */
#ifndef HOG_TRAIN_MLP_TRAIN_H
#define HOG_TRAIN_MLP_TRAIN_H
#include "model/mlp.h"
#include "train/engine.h"
#include "train/noise.h"

enum { NOISE_K = 4, NOISE_EVERY = 32 };           /* the noise scale's windows */
#define MAX_BUFS 32

typedef struct mlp_state {
	hog_mlp_shape s;
	uint32_t flags;             /* HOG_MLP_* */
	int state;                  /* blocks of np floats of rule state after the weights (snapshots):
	                               hog_mlp_states() */
	uint64_t nrec;              /* np * (1 + state) */
	_Atomic float *P;
	uint32_t *perm;             /* examples dealt to the workers */
	hog_spin lock;              /* locked mode */
	float *test_prob;           /* te->n x outputs */
	uint32_t max_row;           /* sparse: most nonzeros in a row (train and test) */
	float *xscale;              /* --normalize: n[0] factors on the inputs (powers of two), or
	                               NULL; W_0 is kept for the scaled inputs, handed back for the
	                               raw ones (snapshot) */
	double *xshift;             /* --normalize, in memory: n[0] centers on the inputs before their
	                               scales (eng_feature_centers; 0 for the others), or NULL; b_0
	                               is kept for the centered inputs, handed back for the raw ones */
	int rk;
	float l2, mu, beta;
	double b1, b2;              /* adam, adamw: the moments' decays */
	float eps;
	uint32_t batch;             /* this epoch's batch (thread 0 sets it between epochs) */
	uint32_t cap;               /* the largest batch the buffers take */
	double lr_mult;             /* --batch auto: the step's factor for the batch grown */
	double noise;               /* the last epoch's noise scale (NAN: none) */
	double lars;                /* --lars: the trust coefficient eta (0: off) */
	struct mlp_det *det;        /* --mode deterministic (mlp_determ.c), or NULL */
	/* --stream (mlp_stream.c): the blocks (views of the map, or only their
	 * counts when packed), dealt to the workers in the order of bperm */
	hog_block *blk;
	uint64_t nb;
	uint32_t blk_n;             /* the largest block's examples */
	uint64_t blk_nnz;           /* ... nonzeros (sparse) */
	int svals;                  /* some block has values (sparse) */
	uint32_t *bperm;
} mlp_state;


typedef struct mlp_worker {
	hog_backend *b;
	int host;                   /* backend buffers are host memory: no staging */
	const uint32_t *rows;       /* its examples (indices into the training set) */
	int B;
	uint32_t cap_nnz;
	float *W, *hW;              /* weights (buffered: the replica) */
	int fresh;                  /* hW holds what this worker last wrote */
	float *rs;                  /* the step rule's state (np floats per state), or NULL */
	double t;                   /* adam: this batch's step number, from 1 (adam_t) */
	double t_base;              /* adam: the worker's batches before this epoch */
	float *acc;                 /* the noise window's sum of gradients (np floats) */
	uint64_t nb;                /* batches this epoch, for the windows' phase */
	double win_g2;              /* the window's sum of squared batch-gradient norms */
	int win_full;               /* every batch of the window had B rows */
	noise_sums ns;              /* this epoch's windows */
	float *G, *hG;              /* gradient, np floats */
	float *X, *hX;              /* dense batch */
	uint32_t *off, *hoff, *ids, *hids;
	float *vals, *hvals;        /* sparse batch */
	int32_t *lab, *hlab;
	float *wt, *hwt;            /* weighted runs: the rows' factors in the batch loss (B floats) */
	uint32_t *idx;              /* B example numbers */
	float *A[HOG_MLP_MAX_HIDDEN + 1], *D[2];
	uint32_t *touched, ntouched, *mark, stamp; /* sparse: rows of W_0 in the batch */
	float *base;                /* buffered: the replica at the last flush */
	uint64_t since_flush;
	hog_err err;
	/* --stream: the block being trained on as a data set of its own (its
	 * arrays the worker's, sized for the largest block), which mlp_batch_grad
	 * reads instead of e->tr; the worker's blocks (eng_stream) */
	hog_data view;
	eng_stream st;
	hog_blockbuf sbb;           /* packed blocks decode into it */
	void *bufs[MAX_BUFS][2];
	int nbufs;
} mlp_worker;

/* One mini-batch's gradient (into w->hG; with a sparse first layer only the
 * rows of W_0 the batch touches, w->touched, are this batch's) at the weights
 * in w->W: rows order[0..rows) of w->rows. @p ready: w->W already holds the
 * weights to use (else they are read from the shared ones as the mode reads
 * them). Adds the batch's summed loss (weighted: sum w l) to *loss, its
 * weights to *wsum and its flops to *units. */
int mlp_batch_grad(hog_engine *e, mlp_worker *w, const uint32_t *order, int rows, int ready, double *loss,
                   double *wsum, uint64_t *units);
/* Host memory to the backend's buffer (a no-op on a host backend). */
int mlp_upload(mlp_worker *w, void *d, const void *h, size_t bytes);

/* mlp_stream.c: --stream. Setup's pass over every block (the scales, the
 * default step, the longest row, the weights' sum); a worker's blocks
 * (eng_stream) and view; the decode of a block into the view (eng_load_fn); a
 * worker's stream buffers freed. */
int mlp_stream_scan(hog_engine *e, mlp_state *M);
/* The first layer's weights of the inputs with no nonzero value in training
 * (@p cnt[v] 0) set to 0: He's random start stayed on them, no gradient ever
 * reaching them, and a test row that had the input scored noise (moons with a
 * column 0 in training and 3 in test: 74.9% for 97.8%, scikit-learn's 97.8%). */
void mlp_unseen_inputs(mlp_state *M, const uint64_t *cnt);
int mlp_stream_shard(hog_engine *e, eng_worker *ew, mlp_worker *w);
int mlp_stream_load(hog_engine *e, eng_worker *ew, uint32_t slot);
void mlp_stream_worker_free(mlp_worker *w);
/* mlp_opts.c: the default step from the inputs' mean squared norm (sq summed
 * over @p n examples, scaled) */
double mlp_default_lr_of(const hog_train_opts *o, double sq, uint64_t n);

/* mlp_determ.c: --mode deterministic */
struct mlp_det;
int mlp_det_check(hog_train_opts *o, const hog_data *tr, hog_err *err);
int mlp_det_setup(hog_engine *e, mlp_state *M);
/* train/mlp_noise.c: a batch's gradient into the noise windows; thread 0's
 * epoch figures (noise scale, batch, step) and --batch auto's next batch */
void mlp_noise_window(const mlp_state *M, mlp_worker *w, int rows);
void mlp_noise_epoch(hog_engine *e, hog_epoch_stats *s);
void mlp_det_free(mlp_state *M);
int mlp_det_worker_init(hog_engine *e, eng_worker *ew);
void mlp_det_epoch_order(hog_engine *e, eng_worker *ew, int epoch);
eng_round_fn mlp_det_round(const hog_engine *e);
int mlp_det_share(hog_engine *e, eng_worker *ew, int epoch);
/* train/mlp_io.c: hog_trainer_ops.snapshot (the network for the raw inputs)
 * and .restore (a checkpoint back into the trained inputs' terms). */
hog_model *mlp_snapshot(const hog_engine *e);
int mlp_restore(hog_engine *e, const hog_model *m);

#endif
