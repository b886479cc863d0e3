/* Matrix factorization of (user, item, rating) triples: the parameter layout,
 * the prediction shared by training and evaluation, and THE RACE of the mf
 * trainer, documented here in one place.
 *
 * Model (Koren, Bell & Volinsky 2009; LIBMF's "L2-MFR" without scaling):
 *     pred(u, i) = [mu + b_u + b_i] + p_u . q_i        ([..] only with --biases)
 * mu is the training set's mean rating, fixed; loss 0.5 (pred - r)^2 per rating
 * plus, LIBMF-style, per update 0.5 l2 (|p_u|^2 + |q_i|^2 + b_u^2 + b_i^2): the
 * gradient step for p_u is p_u -= lr (-e q_i + l2 p_u) with e = r - pred.
 *
 * Shapes: shape[0] users, shape[1] items, shape[2] rank k, shape[3] the padded
 * rank kp = k rounded up to HOG_MF_VEC (16 floats: one AVX-512 register, two
 * AVX2 ones, one 64-byte cache line). flags bit 0 (HOG_MF_BIASES): the
 * biases are learned and mu is part of every prediction; aux: mu, the training
 * mean, kept without --biases too (the prediction for unseen users and items).
 *
 * params, in this order, each segment starting on a 16-float boundary so that
 * every row is 64-byte aligned when params is:
 *     P    users*kp   user u's factors at P + u*kp; lanes k..kp-1 are 0 and stay 0
 *                     (their gradient is 0*e + l2*0), so loops run over kp with no
 *                     mask
 *     Q    items*kp   item i's factors
 *     bu   users      user biases            } with HOG_MF_BIASES
 *     bi   items      item biases            }
 *     gu   users      adagrad: per user row, the accumulated mean (over the k
 *     gi   items      coordinates) squared gradient, from 1 (LIBMF, Chin et al.
 *                     PAKDD 2015); the step is lr / sqrt(g) before adding
 *     gbu  users      adagrad and biases: the same for each bias
 *     gbi  items
 * Rows of users or items with no rating in the training set are all zeros, so
 * that their prediction is mu plus the biases that exist (never random factors);
 * ids beyond the shapes count as unseen too (hog_mf_predict_one).
 *
 * THE RACE (memory model of the mf trainer). The parameters are one plain float
 * array, 64-byte aligned. An update reads and writes one user row and one item
 * row (and their biases and accumulators). How the modes share rows:
 *   serial   one thread; plain vector loads and stores.
 *   grid     a worker holds a block whose row band and column band no other
 *            worker holds (mf_grid.h); ownership passes through the scheduler's
 *            lock (acquire/release), so plain vector loads and stores are
 *            race-free in the C11 sense.
 *   locked   one global spinlock around each update; plain access inside.
 *   striped  a spinlock per user row and one per item row, the user's always
 *            taken first (no deadlock); plain access inside.
 *   lockfree Hogwild!: the rows are read with relaxed atomic loads (two floats
 *            per 8-byte load) into private aligned copies, the update is
 *            computed with vectors on the copies, and stored back with relaxed
 *            atomic 8-byte stores. A float is never torn or invented; an update
 *            may be lost (or part of a row's update) when two workers write one
 *            row at once.
 *   atomic   the same reads; each coordinate's change is added with a relaxed
 *            compare-and-swap: no update is lost.
 * Relaxed atomics are plain moves on x86, but scalar ones (compilers do not
 * vectorize atomics): lockfree and atomic pay for the copies, serial and grid
 * do not (bench/results/mf-hotloop.md).
 */
#ifndef HOG_MODEL_MF_H
#define HOG_MODEL_MF_H
#include "model/model.h"
#include <stdint.h>

#define HOG_MF_BIASES 1u
#define HOG_MF_VEC 16u        /* floats per vector step and per segment alignment */
#define HOG_MF_RANK_MAX 4096u

/* Offsets (in floats) of the segments of params; UINT64_MAX for an absent one. */
typedef struct hog_mf_layout {
	uint64_t users, items, k, kp;
	int biases, adagrad;
	uint64_t P, Q, bu, bi, gu, gi, gbu, gbi;
	uint64_t total;
} hog_mf_layout;

static inline uint64_t hog_mf_pad(uint64_t n)
{
	return (n + HOG_MF_VEC - 1) / HOG_MF_VEC * HOG_MF_VEC;
}

/* The layout for these shapes; 0 when they are inconsistent (kp is not k
 * padded, sizes overflow). */
int hog_mf_layout_get(hog_mf_layout *l, const uint64_t shape[4], uint32_t flags, enum hog_rule rule);

/* One segment of params as rows: `rows` rows of `per_row` floats from `at`,
 * `len` floats in all with the padding to the next segment (zeros). */
typedef struct hog_mf_seg {
	uint64_t at, len, rows, per_row;
} hog_mf_seg;

/* The segments of one side of the model: side 0 the users' (P, bu, gu, gbu),
 * side 1 the items' (Q, bi, gi, gbi), those the layout has, in seg[]; returns
 * how many (1 to 4). The two sides cover params exactly once: on several MPI
 * ranks the items' side is what the ranks average and the users' side what
 * each rank keeps for its own users (train/mf_train.c). */
int hog_mf_segments(const hog_mf_layout *l, int side, hog_mf_seg seg[4]);

/* Zeros every user's parameters (factors, bias, accumulators) except those of
 * users [lo, hi): what a rank contributes to the sum that gives rank 0 the
 * whole model (hog_mpi_sum_to_rank0_f32), each user's rows coming from the one
 * rank that trains them. */
void hog_mf_zero_users_outside(const hog_mf_layout *l, float *params, uint64_t lo, uint64_t hi);

/* The ratings of users [lo, hi) among n (users[j]: rating j's user): their
 * indices j in increasing order into out (when not NULL); returns how many.
 * An MPI rank's share of the training set (train/mf_train.c). */
uint64_t hog_mf_rank_ratings(const uint32_t *users, uint64_t n, uint64_t lo, uint64_t hi, uint32_t *out);

/* A factor row that is all zeros belongs to a user or item with no training
 * rating (rows of rated ones start in (0, 1/sqrt(k)) and an SGD step never
 * lands every coordinate on exactly 0). */
static inline int hog_mf_row_unseen(const float *row, uint64_t k)
{
	for (uint64_t j = 0; j < k; j++)
		if (row[j] != 0)
			return 0;
	return 1;
}

/* Prediction for (u, i) from a model's params (any thread, no writer running).
 * A user or item never seen in training (an id beyond the shapes, or a row of
 * zeros) contributes no factors: the prediction is mu plus the biases that
 * exist, with or without --biases (LIBMF predicts its mean there too). */
static inline float hog_mf_predict_one(const hog_mf_layout *l, const float *params, float mu, uint64_t u,
                                       uint64_t i)
{
	const float *p = u < l->users ? params + l->P + u * l->kp : NULL;
	const float *q = i < l->items ? params + l->Q + i * l->kp : NULL;
	int seen = p && q && !hog_mf_row_unseen(p, l->k) && !hog_mf_row_unseen(q, l->k);
	float s = 0;
	if (l->biases || !seen) {
		s = mu;
		if (l->biases && p)
			s += params[l->bu + u];
		if (l->biases && q)
			s += params[l->bi + i];
	}
	if (seen) {
		float d = 0;
		for (uint64_t j = 0; j < l->k; j++)
			d += p[j] * q[j];
		s += d;
	}
	return s;
}

#endif
