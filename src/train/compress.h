/* Compressed averaging of the MPI ranks' models (--compress, issue 27).
 *
 * Without compression the ranks replace their shared parameters by the mean
 * (MPI_Allreduce of the whole spans). With it, each rank sends a compressed
 * form of its change since the last sync plus what compression dropped at
 * earlier syncs (error feedback), the compressed parts are summed with one
 * MPI_Allreduce per phase, and every rank applies the same decompressed mean
 * change to the model as it stood at the last sync. Only schemes whose
 * compressed form is linear fit a sum:
 *
 *   powersgd:R  (Vogels, Karimireddy, Jaggi, NeurIPS 2019) for the spans that
 *               are matrices (rows x cols): M = change + residual, P = M Q
 *               (Q shared: the previous sync's, first drawn from a seed every
 *               rank shares), allreduce P, orthonormalise P (Gram-Schmidt,
 *               twice, in double: every rank gets the same P), Q = M^T P,
 *               allreduce Q; mean change P Q^T / ranks; residual M - P Q_own^T.
 *               Vectors (biases, step-rule sums) are averaged whole.
 *               A matrix whose factors ((rows + cols) r floats) would be no
 *               smaller than itself goes whole (so a full rank is exact).
 *   topk:F      every span: the values of k = ceil(F n) coordinates as a dense
 *               k-vector, the coordinates chosen alike on every rank without
 *               sending them (a per-rank top-k does not sum): drawn at random
 *               from a seed every rank shares and the sync's number (random-k).
 *               Measured against choosing half or 90% of them as the largest
 *               mean changes of the last sync (the rest random): random-k
 *               reached the uncompressed test loss as close or closer at
 *               F = 0.1 and 0.01 on two generated sets (docs/architecture.md).
 *
 * Error feedback. Rank i's model is x_i = xbar + e_i: the shared model of the
 * last sync plus its own residual. At a sync M_i = x_i - xbar (its change since
 * the last sync plus its residual) is compressed to C(M_i); xbar += mean C(M_i)
 * on every rank alike; e_i = M_i - C(M_i). So the applied mean changes over the
 * syncs plus the mean residual add up to the mean of the ranks' true changes.
 * Each rank keeps its residual in its model (it trains on from xbar + e_i):
 * taking it out (x_i = xbar, the residual only in the next message) made each
 * rank redo the steps it had not sent, and the residual grew with every round
 * until sent (topk:0.1 on a 400-feature set: 87.5% accuracy against 94.7%
 * uncompressed; kept in the model, 94.4%). cmp_finish() averages the ranks'
 * models whole once at the end of a run, so that they agree.
 *
 * QSGD/signSGD-style quantization is not offered: quantized values do not sum
 * to the quantized sum, so it needs an all-gather (p times the bytes at p ranks)
 * where these keep MPI_Allreduce's ring (2 (p-1)/p times the bytes).
 *
 * The arithmetic is here, with plain arrays and no MPI: cmp_sync() takes the
 * sum as a callback (train.c passes MPI_Allreduce), and the phases are exported
 * so that tests can play several ranks in one process. Checkpoints hold the
 * shared model, not the residuals: a resumed run starts with them at zero. */
#ifndef HOG_TRAIN_COMPRESS_H
#define HOG_TRAIN_COMPRESS_H
#include <stddef.h>
#include <stdint.h>

enum { CMP_WHOLE, CMP_PSGD, CMP_TOPK }; /* how one span travels */

typedef struct cmp_span {
	int how;
	size_t n, rows, cols;       /* cols 0: a plain vector */
	float *last;                /* n: the span at the last sync (compressed spans only) */
	float *resid;               /* n: this rank's residual (what compression dropped) */
	/* powersgd */
	uint32_t r;                 /* the rank used: min(R, rows, cols) */
	float *P;                   /* rows x r */
	float *Q;                   /* cols x r: the shared Q (the last sync's summed Q) */
	/* topk */
	size_t k;                   /* coordinates sent */
	uint32_t *idx;              /* k, increasing */
	uint8_t *mark;              /* n: scratch */
} cmp_span;

typedef struct cmp_state {
	int scheme;                 /* enum hog_compress */
	uint32_t R;
	double F;
	uint64_t seed;
	uint64_t syncs;             /* syncs done */
	size_t nspans;
	cmp_span *sp;
	float *buf[2];              /* the two phases' payloads, packed */
	size_t len[2];              /* their floats */
	uint64_t bytes;             /* payload bytes one rank sends per sync (both phases) */
} cmp_state;

/* A span as the model describes it (engine.h's eng_span without the engine). */
typedef struct cmp_shape {
	float *p;
	size_t n, rows, cols;
} cmp_shape;

/* Sums @p n floats at @p p over the ranks in place; returns 0 or an error code. */
typedef int (*cmp_sum_fn)(void *ctx, float *p, size_t n);

/* Sets @p c up for @p ns spans of these shapes as they stand now (the model
 * every rank starts from): copies of them, zero residuals, powersgd's Q drawn
 * from @p seed. scheme HOG_COMPRESS_NONE (0) sends everything whole. Returns 0,
 * ENOMEM, or EINVAL (powersgd with no matrix among the spans, and a message in
 * @p why). */
int cmp_init(cmp_state *c, int scheme, uint32_t R, double F, uint64_t seed, const cmp_shape *s, size_t ns,
             char *why, size_t wlen);
void cmp_free(cmp_state *c);

/* One sync: the spans (the same shapes as at cmp_init) replaced by the last
 * sync's model plus the decompressed mean change of @p ranks ranks, through
 * @p sum (two calls with compression, one without). Returns 0 or sum's code. */
int cmp_sync(cmp_state *c, const cmp_shape *s, int ranks, cmp_sum_fn sum, void *ctx);

/* The compressed spans averaged whole (sum, divide), residuals folded in and
 * zeroed: every rank then holds the mean of the ranks' models. */
int cmp_finish(cmp_state *c, const cmp_shape *s, int ranks, cmp_sum_fn sum, void *ctx);

/* The phases, for tests that play the ranks: pack phase 0 (this rank's P,
 * top-k values, whole vectors into c->buf[0]); after buf[0] is summed, phase 1
 * (powersgd's Q into c->buf[1], and the residuals); after that is summed,
 * apply. */
void cmp_pack0(cmp_state *c, const cmp_shape *s);
void cmp_pack1(cmp_state *c);
void cmp_apply(cmp_state *c, const cmp_shape *s, int ranks);

/* Gram-Schmidt (two passes, in double) of the r columns of the rows x r
 * row-major @p P, in place; a column that is (nearly) in the span of the ones
 * before it becomes zero. */
void cmp_orthonormalise(float *P, size_t rows, uint32_t r);

/* Parses "none", "powersgd:R" (R 1..65535), "topk:F" (0 < F <= 1) into
 * *scheme, *R, *F; returns 0, or -1 with what is wrong in @p why. */
int cmp_parse(const char *spec, int *scheme, uint32_t *R, double *F, char *why, size_t wlen);

#endif
