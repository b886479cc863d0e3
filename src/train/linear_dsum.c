/* The linear model's deterministic mode, its sums: where the model is narrow
 * (linear_determ.c's lin_det_setup chooses), each worker sums its shards'
 * changes over the whole model instead of listing them.
 *
 * The shards' tree. Node [a, b) of shards, b - a >= 2, has the children
 * [a, m) and [m, b), m = a + (b - a) / 2; the root is [0, S). A node's sum is
 * its left child's plus its right child's, in that order, float by float: so a
 * round's total is one fixed expression of the shards' changes, whichever
 * threads computed which part of it. A worker runs a run of shards, [s0, s1);
 * after each it pushes the shard's change (its copy less the round's model,
 * the copy put back in the same pass) and adds up every two nodes that are
 * siblings -- a shard whose left sibling is on the stack is added into it in
 * that pass. What stays on its stack are the largest nodes inside its run. The
 * merge evaluates the root for a slice of the coordinates (each worker its
 * own), from the nodes the workers hold, adding children where a node spans
 * two workers. A shard with no examples in the round, or a node with no
 * change, is zero (NULL), and zero + x is x.
 *
 * A node holds np floats per coordinate: the stride's changes, then (rules
 * without per-feature factors: AdaGrad, AdaRevision) the count of shards that
 * changed it, then (--l1) the count of shards whose threshold zeroed it. Counts
 * are small integers, exact in float. The bias's count is kept apart.
 *
 * What the merge does with the total (the rule of linear_determ.c's header):
 * SGD, a feature i: w += f_i x sum; the bias, and every coordinate's weight
 * without factors: w += sum / count; other components: += sum. With --l1, a
 * weight some shard zeroed does not cross zero (l1_hand_up from the round's
 * value). A coordinate nothing changed is left alone (and the average not
 * touched), as the lists do. Float sums in another order than the lists'
 * one-by-one additions: the two ways agree to rounding, not bit for bit; each
 * is the same bits at any thread count.
 *
 * Memory per worker: its copy (D x stride floats), at most 2 log2(S) + 1 nodes
 * of D x np floats held at once (allocated on first use, kept), and the
 * merge's scratch ((log2 S + 2) x 256 x np floats). */
#include "train/kernel.h"
#include "train/linear_determ.h"
#include <errno.h>
#include <stdlib.h>

int det_sum_worker_init(hog_engine *e, struct lin_dwork *dw)
{
	const lin_state *L = e->model;
	const struct lin_det *det = L->det;
	dw->scratch = malloc((size_t)(det_depth(det->S) + 2) * DET_BLK * det->np * sizeof *dw->scratch);
	if (!dw->scratch)
		return ENOMEM;
	if (L->det_a0) { /* the merge's stash: the worker's run of blocks, at most ceil(blocks / T) */
		const uint64_t nb = ((L->D + DET_BLK - 1) / DET_BLK + (uint64_t)e->T - 1) / (uint64_t)e->T;
		if (!(dw->stash = malloc(nb * DET_BLK * det->np * sizeof *dw->stash)) || !(dw->stashed = malloc(nb)))
			return ENOMEM;
	}
	return 0;
}

void det_sum_worker_free(hog_engine *e, struct lin_dwork *dw)
{
	const lin_state *L = e->model;
	for (uint32_t k = 0; k < dw->nbufs; k++)
		hog_topo_free(e->topo, dw->bufs[k], (size_t)L->D * L->det->np * sizeof(float));
	dw->nbufs = dw->npool = 0;
	free(dw->scratch);
	dw->scratch = NULL;
	free(dw->stash);
	dw->stash = NULL;
	free(dw->stashed);
	dw->stashed = NULL;
}

/* The round's start: the nodes of the last round handed back (the merge that
 * read them is behind a barrier). */
void det_sum_round_start(struct lin_dwork *dw)
{
	for (uint32_t k = 0; k < dw->top; k++)
		if (dw->stk[k].buf)
			dw->pool[dw->npool++] = dw->stk[k].buf;
	dw->top = 0;
}

static float *take_buf(hog_engine *e, struct lin_dwork *dw)
{
	if (dw->npool)
		return dw->pool[--dw->npool];
	const lin_state *L = e->model;
	if (dw->nbufs == DET_STACK)
		return NULL;
	float *b = hog_topo_alloc_local(e->topo, (size_t)L->D * L->det->np * sizeof(float));
	if (b)
		dw->bufs[dw->nbufs++] = b;
	return b;
}

/* [a, b) is a node of the tree over S shards and splits at m. */
static int tree_split(uint32_t S, uint32_t a, uint32_t m, uint32_t b)
{
	uint32_t lo = 0, hi = S;
	while (hi - lo >= 2) {
		const uint32_t mid = lo + (hi - lo) / 2;
		if (lo == a && hi == b)
			return mid == m;
		if (b <= mid)
			hi = mid;
		else if (a >= mid)
			lo = mid;
		else
			return 0;
	}
	return 0;
}

/* x += y over n floats (the node sum: left + right). */
static void add_into(float *restrict x, const float *restrict y, uint64_t n)
{
#pragma omp simd
	for (uint64_t k = 0; k < n; k++)
		x[k] = x[k] + y[k];
}

/* leaf_pass's loop for a record of S floats and a node entry of S + COUNTED +
 * L1 floats (the changes, then the counts). Inlined with constants for the
 * rules' strides (leaf_pass): with S, the counts and ADD known the loops
 * unroll; with them read at run time, AdaGrad's leaf passes took more of
 * deterministic mode's samples than its kernel on the RCV1-shaped set (11,580
 * against 8,606, perf, 2 threads), the copy's put-back a libc call a
 * coordinate. */
static inline __attribute__((always_inline)) void leaf_loop(const uint32_t S, const int COUNTED, const int L1,
                                                            const int ADD, uint64_t D, float *restrict rec,
                                                            float *restrict out, const float *restrict P)
{
	const uint32_t np = S + (COUNTED != 0) + (L1 != 0);
	for (uint64_t i = 0; i < D; i++) {
		float *restrict r = rec + i * S, *restrict o = out + i * np, v[6] = { 0 };
		const float *restrict p = P + i * S;
		uint32_t ch = 0, k = S;
#pragma GCC unroll 6
		for (uint32_t c = 0; c < S; c++) {
			v[c] = r[c] - p[c];
			ch |= det_bits(r[c]) ^ det_bits(p[c]);
		}
		if (COUNTED)
			v[k++] = ch != 0;
		if (L1)
			v[k++] = ch && i && r[0] == 0.0f;
#pragma GCC unroll 6
		for (uint32_t c = 0; c < np; c++)
			o[c] = ADD ? o[c] + v[c] : v[c];
#pragma GCC unroll 6
		for (uint32_t c = 0; c < S; c++)
			r[c] = p[c];
	}
}

/* The shard's change from the worker's copy into @p out (or added to it,
 * @p add), the copy put back to the round's model. */
static void leaf_pass(const lin_state *L, const struct lin_det *det, float *restrict rec, float *restrict out, int add)
{
	const float *restrict P = (const float *)(const void *)L->P; /* (the round's model: read only until the merge) */
	const uint64_t D = L->D;
	const uint32_t S = L->S, np = det->np;
	/* SGD without --l1 (the default) apart, as plain vector loops: through
	 * leaf_loop (1, 0, 0) its pass took 1.3x the perf samples (10 epochs, 2
	 * threads, the RCV1-shaped set), models the same */
	if (np == 1) {
		if (add) {
#pragma omp simd
			for (uint64_t i = 0; i < D; i++) {
				out[i] = out[i] + (rec[i] - P[i]);
				rec[i] = P[i];
			}
		} else {
#pragma omp simd
			for (uint64_t i = 0; i < D; i++) {
				out[i] = rec[i] - P[i];
				rec[i] = P[i];
			}
		}
		return;
	}
	const int counted = L->share == NULL, l1 = L->l1 != NULL;
#define LEAF(S_, C_, L1_)                                  \
	(add ? leaf_loop(S_, C_, L1_, 1, D, rec, out, P) \
	     : leaf_loop(S_, C_, L1_, 0, D, rec, out, P))
	if (S == 1 && !counted && l1) /* SGD with --l1 */
		LEAF(1, 0, 1);
	else if (S == 2 && counted && !l1) /* AdaGrad */
		LEAF(2, 1, 0);
	else if (S == 2 && counted && l1) /* AdaGrad with --l1 */
		LEAF(2, 1, 1);
	else if (S == 4 && counted && !l1) /* AdaRevision */
		LEAF(4, 1, 0);
	else /* (any other: the same loop, read at run time; strides are at most 4, v[6] holds them) */
		LEAF(S, counted, l1);
#undef LEAF
}

/* Shard @p s of the worker's run has finished the round's examples on the
 * worker's copy: its change goes on the stack, siblings added up. */
int det_sum_leaf(hog_engine *e, struct lin_dwork *dw, uint32_t s, int active)
{
	const lin_state *L = e->model;
	const struct lin_det *det = L->det;
	det_node nd = { s, s + 1, 0, NULL };
	if (active) {
		nd.bias = det_bits(dw->rec[0]) != det_bits(ald(&L->P[0]));
		det_node *t = dw->top ? &dw->stk[dw->top - 1] : NULL;
		if (t && t->buf && tree_split(det->S, t->a, s, s + 1)) { /* into its left sibling, in one pass */
			leaf_pass(L, det, dw->rec, t->buf, 1);
			t->b = s + 1;
			t->bias += nd.bias;
			goto carry;
		}
		if (!(nd.buf = take_buf(e, dw)))
			return ENOMEM;
		leaf_pass(L, det, dw->rec, nd.buf, 0);
	}
	dw->stk[dw->top++] = nd;
carry:
	while (dw->top >= 2 && tree_split(det->S, dw->stk[dw->top - 2].a, dw->stk[dw->top - 1].a, dw->stk[dw->top - 1].b)) {
		det_node *x = &dw->stk[dw->top - 2], *y = &dw->stk[dw->top - 1];
		if (y->buf && !x->buf) {
			x->buf = y->buf;
		} else if (y->buf) {
			add_into(x->buf, y->buf, L->D * det->np);
			dw->pool[dw->npool++] = y->buf;
		}
		x->b = y->b;
		x->bias += y->bias;
		dw->top--;
	}
	return 0;
}

/* Node [a, b)'s sums of coordinates [i, i + m): a worker's node where one holds
 * it, else its children's sum, in @p out (m x np floats; the levels below use
 * the scratch after it). NULL: zero. */
static const float *node_sum(const hog_engine *e, uint32_t a, uint32_t b, uint64_t i, uint32_t m, float *out)
{
	const lin_state *L = e->model;
	const struct lin_det *det = L->det;
	const uint32_t np = det->np;
	for (int t = 0; t < e->T; t++) {
		const struct lin_dwork *w = det->work[t];
		if (!w || a < w->s0 || b > w->s1)
			continue;
		for (uint32_t k = 0; k < w->top; k++)
			if (w->stk[k].a == a && w->stk[k].b == b)
				return w->stk[k].buf ? w->stk[k].buf + i * np : NULL;
	}
	if (b - a < 2) /* (every shard is in a worker's run: not reached) */
		return NULL;
	const uint32_t mid = a + (b - a) / 2;
	float *const below = out + (size_t)DET_BLK * np;
	const float *x = node_sum(e, a, mid, i, m, below);
	if (x) {
		memcpy(out, x, (size_t)m * np * sizeof *out);
		x = out;
	}
	const float *y = node_sum(e, mid, b, i, m, below);
	if (!y)
		return x;
	if (!x) /* (zero + y: y, where it is; the caller reads it before its next call) */
		return y;
	add_into(out, y, (uint64_t)m * np);
	return out;
}

/* The merge of worker @p id's slice of the coordinates: its run of the blocks
 * of DET_BLK (eng_share over the blocks, so that a block's sums are one
 * worker's). Under AdaGrad and AdaRevision in two passes: the first takes
 * the root's sums of each block into the worker's stash, each changed
 * feature's blend in place of its count, and the block's part of the common
 * direction (det_common_add); then, every worker's blocks summed, the second
 * applies them, each blend times the round's g (det_common). */
void det_sum_merge(hog_engine *e, int id, double clk)
{
	const lin_state *L = e->model;
	const struct lin_det *det = L->det;
	const uint32_t S = L->S, np = det->np, l1 = L->l1 != NULL, zc = np - 1;
	_Atomic float *const P = L->P;
	double *const U = L->ks.U;
	const float *const f = L->share;
	const struct lin_det_feat *const a0 = L->det_a0;
	const uint32_t acc = det_acc(e->o.rule);
	uint64_t k0, k1;
	eng_share((L->D + DET_BLK - 1) / DET_BLK, id, e->T, &k0, &k1);
	const uint64_t i0 = k0 * DET_BLK, i1 = k1 * DET_BLK < L->D ? k1 * DET_BLK : L->D;
	uint32_t bias = 0;
	for (int t = 0; i0 == 0 && i1 > 0 && t < e->T; t++)
		for (uint32_t k = 0; det->work[t] && k < det->work[t]->top; k++)
			bias += det->work[t]->stk[k].bias;
	struct lin_dwork *const dw = det->work[id];
	float *const scratch = dw->scratch;
	/* the round's model, from the worker's copy (put back after every shard: the
	 * same bits, and in its own cache) */
	const float *const W = dw->rec;
	float g = 1.0f;
	if (a0) {
		for (uint64_t i = i0; i < i1; i += DET_BLK) {
			const uint32_t m = (uint32_t)(i1 - i < DET_BLK ? i1 - i : DET_BLK);
			const float *r = node_sum(e, 0, det->S, i, m, scratch);
			double cw = 0, cz = 0;
			float *const st = dw->stash + (i - i0) * np;
			dw->stashed[(i - i0) / DET_BLK] = r != NULL;
			if (r) {
				memcpy(st, r, (size_t)m * np * sizeof *st);
				for (uint32_t j = 0; j < m; j++) {
					const uint64_t c0 = i + j;
					float *const x = st + (size_t)j * np;
					if (c0 && x[S] > 0) { /* (changed: its blend where its count was) */
						x[S] = det_blend(a0, L->ks.beta, det->S, c0, W[c0 * S + acc]);
						det_common_add(a0, L->ks.beta, c0, W[c0 * S + acc], x[S], &cw, &cz);
					}
				}
			}
			det->cw[i / DET_BLK] = cw;
			det->cz[i / DET_BLK] = cz;
		}
		hog_barrier_wait(&e->bar);
		g = det_common(det, 1.0 / ((double)L->ks.beta + sqrt((double)W[acc])));
	}
	for (uint64_t i = i0; i < i1; i += DET_BLK) {
		const uint32_t m = (uint32_t)(i1 - i < DET_BLK ? i1 - i : DET_BLK);
		const float *r = !a0 ? node_sum(e, 0, det->S, i, m, scratch)
		                     : dw->stashed[(i - i0) / DET_BLK] ? dw->stash + (i - i0) * np : NULL;
		if (!r)
			continue;
		for (uint32_t j = 0; j < m; j++, r += np) {
			const uint64_t c0 = i + j;
			_Atomic float *rec = P + c0 * S;
			const float cnt = !f ? r[S] : c0 ? 1.0f : (float)bias; /* (a0: a feature's blend, > 0 where changed) */
			uint32_t any = 0;
			for (uint32_t c = 0; c < S; c++)
				any |= det_bits(r[c]) << 1; /* (a change to -0 or +0 and back sums to zero: none) */
			if (!(f && c0 ? any : cnt > 0))
				continue;
			const float p = W[c0 * S];
			const float q = a0 && c0 ? p + cnt * g * r[0] : det_step0(p, r[0], f, c0, cnt),
			            nq = l1 && r[zc] > 0 ? l1_hand_up(p, q) : q;
			ast(&rec[0], nq);
			if (U)
				avg_add(&U[c0], p, nq, clk);
			for (uint32_t c = 1; c < S; c++)
				ast(&rec[c], W[c0 * S + c] + r[c]);
		}
	}
}
