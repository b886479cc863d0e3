/* Node replicas: the arithmetic of replica mode's two levels on a machine with
 * several NUMA nodes (DimmWitted's PerNode), on plain arrays so that tests can
 * drive it step by step.
 *
 * Flat replica mode (one node) has one level: every worker keeps a private copy
 * of the model (rec) and the shared values it last took (base); a flush hands
 * rec - base into the shared model -- the bias divided by the workers, every
 * other coordinate whole -- and takes the shared values back. On several nodes
 * the shared model the workers flush into would sit on one node (or
 * interleaved), so every flush of every worker would cross the interconnect.
 * Here the workers flush into a replica N on their own node by the same rule
 * (the bias divided by the node's workers: rep_flush), and the node's owner
 * hands N's change since the node's last sync (N - nbase) into the global
 * model G by the same rule again (the bias divided by the nodes), then takes G
 * back into N and its own copy (rep_flush_sync, one sweep). What reaches G is
 * then, feature by feature, the sum of every worker's change and, for the
 * bias, the mean over the nodes of the mean over each node's workers: the flat
 * rule when the nodes have as many workers each. Per sync interval the
 * interconnect carries one sweep per node instead of one per worker.
 *
 * The races are flat replica mode's (kernel.h, THE RACE): relaxed loads and
 * stores on N and G, no CAS, so a change can be lost when two sweeps write one
 * coordinate at the same instant; each sweep starts at its own offset (the
 * caller's @p start) so that they rarely meet. nbase belongs to the owner (and
 * to thread 0 at a round's end, when the team waits at a barrier).
 *
 * Sizes: @p n floats in a replica (coordinates x stride S); the records
 * 0..navg/S - 1 have their component 0 averaged (the bias, --hot features), all
 * other floats (AdaGrad's sums, component 1, are counts) summed.
 *
 * @p l1 (--l1): a level whose weight is zero after the change (the threshold
 * zeroed it) hands the change up without crossing zero (kernel.h, l1_hand_up),
 * so that the model stays sparse through every level.
 */
#ifndef HOG_TRAIN_REPLICA_H
#define HOG_TRAIN_REPLICA_H
#include "train/kernel.h"

/* Whether float i is a weight other than the bias (what --l1 thresholds). */
HOG_INLINE int rep_l1_weight(uint32_t i, uint32_t S)
{
	return i >= S && (S == 1 || i % S == 0);
}

/* Float i's change, d, as its level hands it up: divided (averaged) or whole. */
HOG_INLINE float rep_share(uint32_t i, uint32_t navg, uint32_t S, float d, float share)
{
	return i < navg && (S == 1 || i % S == 0) ? d * share : d;
}

/* A worker's flush into its node replica @p N: N gets rec - base (averaged
 * floats times @p share, 1 / the node's workers), and rec = base = N. */
static inline void rep_flush(_Atomic float *N, float *rec, float *base, uint32_t n, uint32_t navg, uint32_t S,
                             float share, uint32_t start, int l1)
{
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = start + k < n ? start + k : start + k - n;
		float d = rec[i] - base[i], p = ald(&N[i]);
		if (d != 0.0f) {
			float q = p + rep_share(i, navg, S, d, share);
			p = l1 && rec[i] == 0.0f && rep_l1_weight(i, S) ? l1_hand_up(p, q) : q;
			ast(&N[i], p);
		}
		rec[i] = base[i] = p;
	}
}

/* The owner's flush with a sync, one sweep: its own change into @p N as
 * rep_flush() (@p share_w), N's change since the last sync (N - nbase) into
 * the global model @p G (averaged floats times @p share_n, 1 / the nodes), and
 * G's value back into N, nbase, rec and base. @p A (NULL: off) is --average's
 * accumulator of G (kernel.h, avg_touch), told of every change of G at the
 * team's clock @p c. */
static inline void rep_flush_sync(_Atomic float *G, _Atomic float *N, float *nbase, float *rec, float *base,
                                  uint32_t n, uint32_t navg, uint32_t S, float share_w, float share_n,
                                  uint32_t start, _Atomic uint64_t *A, uint32_t c, float inv_c, int l1)
{
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = start + k < n ? start + k : start + k - n;
		float d = rec[i] - base[i], x0 = ald(&N[i]), x = x0;
		const int l1w = l1 && rep_l1_weight(i, S);
		if (d != 0.0f) {
			x += rep_share(i, navg, S, d, share_w);
			if (l1w && rec[i] == 0.0f)
				x = l1_hand_up(x0, x);
		}
		float dn = x - nbase[i], g = ald(&G[i]);
		if (dn != 0.0f) {
			if (A && (S == 1 || i % S == 0)) /* G changes here only */
				avg_touch(HOG_MODE_LOCKFREE, &A[i / S], g, c, inv_c);
			float g1 = g + rep_share(i, navg, S, dn, share_n);
			g = l1w && x == 0.0f ? l1_hand_up(g, g1) : g1;
			ast(&G[i], g);
		}
		if (g != x0)
			ast(&N[i], g);
		nbase[i] = rec[i] = base[i] = g;
	}
}

/* Node to global without a worker (thread 0 at a round's end, every worker's
 * change already in its node replica): G gets N - nbase as above. Call
 * rep_take() for every node after every node's rep_sync(). */
static inline void rep_sync(_Atomic float *G, const _Atomic float *N, const float *nbase, uint32_t n, uint32_t navg,
                            uint32_t S, float share_n, _Atomic uint64_t *A, uint32_t c, float inv_c, int l1)
{
	for (uint32_t i = 0; i < n; i++) {
		float x = ald(&N[i]), dn = x - nbase[i];
		if (dn != 0.0f) {
			float g = ald(&G[i]), g1 = g + rep_share(i, navg, S, dn, share_n);
			if (A && (S == 1 || i % S == 0))
				avg_touch(HOG_MODE_LOCKFREE, &A[i / S], g, c, inv_c);
			ast(&G[i], l1 && x == 0.0f && rep_l1_weight(i, S) ? l1_hand_up(g, g1) : g1);
		}
	}
}

/* The node takes the global model back: N = nbase = G. */
static inline void rep_take(const _Atomic float *G, _Atomic float *N, float *nbase, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		float g = ald(&G[i]);
		nbase[i] = g;
		ast(&N[i], g);
	}
}

#endif
