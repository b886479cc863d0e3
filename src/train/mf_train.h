/* The mf trainer's state, shared by its files: mf_train.c (the trainer
 * table, setup, the rounds in memory, grid and deterministic modes) and
 * mf_stream.c (--stream: the ratings read block by block). */
#ifndef HOG_TRAIN_MF_TRAIN_H
#define HOG_TRAIN_MF_TRAIN_H
#include "model/mf.h"
#include "train/engine.h"
#include "train/mf_grid.h"
#include "train/mf_kernel.h"

typedef struct mf_rec {
	uint32_t u, i;
	float r;
} mf_rec;

typedef struct mf_state {
	hog_mf_layout l;
	float *params;       /* l.total floats, 64-byte aligned */
	mf_shared sh;
	uint64_t probe_at;   /* the most rated item's row */
	float mu;            /* the training mean */
	hog_spin glock;
	/* grid */
	hog_mf_grid grid;
	int has_grid;
	uint32_t *gu, *gi;   /* the ratings by block, each block shuffled: users, items, */
	float *gr;           /* ratings (a handed-over set's own arrays, in block order: gown) */
	float *gw;           /* their effective weights (e->wts), or NULL: all 1 */
	int gown;            /* gu, gi, gr are the set's (hog_train_consume), not freed here */
	uint64_t *gstart;    /* G*G + 1 */
	/* deterministic: this epoch's order of the strata, and each stratum's next block */
	uint32_t *dperm;
	_Atomic uint32_t *dnext;
	float *pred;         /* test predictions */
	/* MPI: this rank's users [ulo, uhi) (all of them on one rank) and, on
	 * several ranks, their ratings: indices into the training set in data order */
	uint64_t ulo, uhi;
	uint32_t *mine;
	uint64_t nmine;
	/* --stream: the blocks (views of the map, or only their counts when
	 * packed), dealt to the workers in the order of bperm */
	hog_block *blk;
	uint64_t nb;
	uint32_t blk_n;      /* the largest block's ratings */
	uint32_t *bperm;
} mf_state;

typedef struct mf_worker {
	mf_rec *recs;        /* this worker's ratings (not grid) */
	float *wts;          /* their effective weights (e->wts), or NULL: all 1 */
	float *cp, *cq;      /* scratch rows (lockfree, atomic) */
	eng_stream st;       /* --stream: the worker's blocks (recs: the one held) */
	hog_blockbuf sbb;    /* packed blocks decode into it */
} mf_worker;

/* The rank's ratings: the j-th is the training set's MF_RATING(st, j). */
#define MF_RATING(st, j) ((st)->mine ? (uint64_t)(st)->mine[j] : (uint64_t)(j))

/* mf_blocks.c: the rank's ratings in G x G blocks (gu, gi, gr, gw, gstart, the
 * grid scheduler); and grid mode's G (--grid, or from the threads) with its
 * blocks. 0 or ENOMEM (build), HOG_ECONFIG or ENOMEM with the message (setup). */
int mf_grid_build(hog_engine *e, mf_state *st, uint32_t G);
int mf_grid_setup(hog_engine *e, mf_state *st);

/* The in-memory round for this run's mode, rule and biases (mf_train.c). */
eng_round_fn mf_memory_round(const hog_engine *e);

/* --stream (mf_stream.c): every block once for the counts of users and items
 * and the weighted sum and weight of the ratings (mu); the worker's blocks and
 * arrays (eng_stream); the round, which decodes each block as its positions
 * come and runs mf_memory_round() over it; what a worker frees. */
int mf_stream_scan(hog_engine *e, mf_state *st, uint32_t *ucnt, uint32_t *icnt, double *sum, double *wsum);
int mf_stream_shard(hog_engine *e, eng_worker *w, mf_worker *mw);
uint64_t mf_stream_round(hog_engine *e, eng_worker *w, int epoch, uint64_t from, uint64_t to);
void mf_stream_worker_free(mf_worker *mw);
#endif
