/* The linear model's deterministic mode, shared by its two ways of keeping a
 * round's changes (linear_determ.c: the lists, and the rest of the mode;
 * linear_dsum.c: the sums). */
#ifndef HOG_LINEAR_DETERM_H
#define HOG_LINEAR_DETERM_H

#include "train/engine.h"
#include "train/linear_train.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

#define DET_BUCKETS 64u            /* lists: the merge's buckets, coordinate i in bucket i mod 64 */
#define DET_L1_ZEROED 0x80000000u  /* lists: a delta id's flag, --l1 zeroed the shard's weight */
#define DET_STACK 40               /* sums: nodes a worker holds at most (2 log2 65536 + 1, and room) */
#define DET_BLK 256                /* sums: the merge's coordinates at a time */

typedef struct lin_dshard {
	uint64_t n;                 /* its examples */
	uint32_t *order;            /* n: this epoch's order (indices into the worker's rows) */
	const uint32_t *items;      /* n: what the order is a shuffle of */
	uint32_t *ids;              /* lists: the delta, coordinates (| DET_L1_ZEROED), by bucket */
	float *d;                   /* ... and stride floats each */
	uint64_t cap;               /* room in ids (entries) */
	uint64_t boff[DET_BUCKETS + 1]; /* bucket b's entries: [boff[b], boff[b + 1]) */
} lin_dshard;

/* Sums: a node of the shards' tree, [a, b), its shards' changes summed. */
typedef struct det_node {
	uint32_t a, b;
	uint32_t bias;              /* its shards that changed the bias */
	float *buf;                 /* D x np floats; NULL: nothing changed (zero) */
} det_node;

struct lin_det {
	uint32_t S;                 /* shards */
	uint64_t maxn;              /* the largest shard's examples (the engine's w->n) */
	int sums;                   /* 1: the sums (linear_dsum.c); 0: the lists */
	uint32_t np;                /* sums: floats per coordinate in a node (stride, a count, a zeroed count) */
	lin_dshard *sh;
	uint16_t *cnt;              /* lists: D, the merge's count of shards per coordinate (0 between merges) */
	float *p0;                  /* lists with --l1: D, the round's value of a weight a shard zeroed */
	float *fb;                  /* lists with adagrad, adarevision: D, a changed feature's factor
	                               (det_blend, from the round's model, at its bucket's first
	                               pass), -1 between merges; the bias keeps cnt */
	struct lin_dwork **work;    /* sums: each worker's, for the merge (T) */
	/* adagrad, adarevision: the round's common direction (det_common), summed by
	 * part -- the lists' buckets, the sums' blocks of DET_BLK coordinates -- so
	 * that its sums do not depend on which worker merged which part */
	double *cw, *cz;            /* nparts each: sum of m^2 eta f, of m^2 eta over the changed features */
	uint32_t nparts;
	double ca;                  /* K h lr: the common direction's a is ca times its Z */
};

struct lin_dwork {
	uint32_t s0, s1;            /* its shards: [s0, s1), a run (eng_share(S, id, T)) */
	float *rec;                 /* D x stride: the private copy */
	uint8_t *mark;              /* lists: D bits, touched by the shard running */
	uint32_t *touched;          /* lists: the touched coordinates, in first-touch order (D + 1) */
	float *old;                 /* lists: their values in the round's model, stride floats each
	                               (D + 1), then take_delta's changes */
	uint32_t *rows;             /* the worker's rows (data set row numbers) */
	uint32_t *items;            /* copied shard: 0..n-1; in place: NULL (rows) */
	uint32_t *dorder;           /* the shards' orders, one after another */
	uint32_t *eorder;           /* the engine's ew->order (maxn entries, unused) */
	uint32_t *chunks;           /* eng_chunk_order's scratch */
	int own_order;              /* dorder was malloc'ed (in place), not in the shard block */
	det_node stk[DET_STACK];    /* sums: this round's nodes, in shard order */
	uint32_t top;
	float *bufs[DET_STACK];     /* sums: every node buffer allocated ... */
	float *pool[DET_STACK];     /* ... and the free ones */
	uint32_t nbufs, npool;
	float *scratch;             /* sums: the merge's, (log2 S + 2) x DET_BLK x np floats */
	float *stash;               /* sums with adagrad, adarevision: the root's sums of the worker's
	                               blocks, between the merge's two passes (det_sum_merge) */
	uint8_t *stashed;           /* ... a byte a block: 1 where it holds them, 0 nothing changed */
};

static inline uint32_t det_bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

/* The shards' tree's height, ceil(log2 S), at least 1: a worker holds at most
 * 2 of it + 1 nodes at once, the merge's recursion goes that deep. */
static inline uint32_t det_depth(uint32_t S)
{
	uint32_t l = 1;
	while ((1u << l) < S)
		l++;
	return l;
}

/* The merge's rule for a weight (component 0, linear_determ.c's header) at
 * @p p, its shards' change @p d: with factors @p f (SGD) a feature's change
 * times its factor, else (the bias; every weight under AdaGrad and
 * AdaRevision) the mean over the @p cnt shards that changed it. */
static inline float det_step0(float p, float d, const float *f, uint64_t i, float cnt)
{
	return p + (f && i ? f[i] * d : cnt > 1 ? d / cnt : d);
}

/* AdaGrad and AdaRevision: feature @p i's factor on its shards' summed change
 * (the blend of det_shares, linear_setup.c) from @p G, its step's accumulator
 * in the round's model (AdaGrad's G, AdaRevision's z'), and beta. */
static inline float det_blend(const struct lin_det_feat *af, float beta, uint32_t S, uint64_t i, float G)
{
	const double a = (double)af[i].a0 / ((double)beta + sqrt((double)G));
	if ((double)S * a < 1e-3) /* (a rare feature, most of a wide model's: the series, to 1e-7, not two expm1) */
		return (float)(1.0 - 0.5 * (double)(S - 1) * a);
	return (float)lin_blend(a, (int)S);
}

/* A changed feature's part of the round's common direction (adaptive rules):
 * its m^2 eta f and m^2 eta into *w and *z, eta = 1 / (beta + sqrt(G)) its
 * step's divisor at the round's accumulator @p G, f its factor @p f. */
static inline void det_common_add(const struct lin_det_feat *af, float beta, uint64_t i, float G, float f,
                                  double *w, double *z)
{
	const double eta = 1.0 / ((double)beta + sqrt((double)G)), me = (double)af[i].m2 * eta;
	*w += me * f;
	*z += me;
}

/* The round's common-direction factor g of every feature's blend under AdaGrad
 * and AdaRevision (linear_determ.c's header): the features the shards changed
 * move the mean row m together, by the eta-and-m^2-weighted mean of their
 * factors (the bias's 1/S among them, @p eta_b its eta); that mean is held to
 * LIN_DET_ACMAX times the blend the common direction would have alone, at
 * a = K h lr Z. The parts' sums are added in their order: the same g on every
 * worker, at any T. */
static inline float det_common(const struct lin_det *det, double eta_b)
{
	double W = 0, Z = eta_b;
	for (uint32_t k = 0; k < det->nparts; k++) {
		W += det->cw[k];
		Z += det->cz[k];
	}
	const double fc = lin_blend(det->ca * Z, (int)det->S);
	return (float)lin_common_cap(eta_b / det->S, W, Z, 1, LIN_DET_ACMAX * fc);
}

/* The component of a record that holds its step's accumulator (det_blend):
 * AdaGrad's G (1), AdaRevision's z' (3). */
static inline uint32_t det_acc(enum hog_rule rule)
{
	return rule == HOG_RULE_ADAREVISION ? 3u : 1u;
}

int det_sum_worker_init(hog_engine *e, struct lin_dwork *dw);
void det_sum_worker_free(hog_engine *e, struct lin_dwork *dw);
void det_sum_round_start(struct lin_dwork *dw);
int det_sum_leaf(hog_engine *e, struct lin_dwork *dw, uint32_t s, int active);
void det_sum_merge(hog_engine *e, int id, double clk);

#endif
