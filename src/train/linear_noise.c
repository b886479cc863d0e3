/* The linear model's gradient noise scale (linear_train.h, lin_noise_scale):
 * B = tr(Sigma)/|G|^2 of the loss's per-example gradient at the epoch's model
 * (McCandlish et al. 2018; train/noise.h has the mlp's two-batch estimator).
 * A linear model's per-example gradient is known in closed form, g_i =
 * w_i l'(m_i, y_i) x_i (the bias's coordinate x = 1), so it is measured
 * directly on a sample of M examples spread evenly over the workers' shards:
 *   tr(Sigma) = M/(M-1) (mean |g_i|^2 - |g|^2),  |G|^2 = |g|^2 - tr(Sigma)/M
 * (g the sample's mean gradient; both unbiased), of M = 16384 examples (or
 * all, on a smaller set), each of the two in a moving average over the epochs
 * (the paper's advice; 0.3 the new epoch's share: near the optimum |G|^2 is
 * small against tr(Sigma)/M and one epoch's estimate is noisy). Thread 0 at an epoch's end,
 * while the team waits: M margins and a sum in a dense accumulator of D floats
 * kept for the run (one pass over it per epoch). l2's gradient, the same for
 * every example, is left out. NAN with --stream (the shards are not in
 * memory). */
#include "model/linear.h"
#include "train/engine.h"
#include "train/linear_train.h"
#include <math.h>
#include <stdlib.h>

enum { NOISE_SAMPLE = 16384 };
#define NOISE_EMA 0.3 /* the new epoch's share in the moving averages */

double lin_noise_scale(hog_engine *e)
{
	lin_state *L = e->model;
	const uint64_t n = e->tr->n;
	if (e->store || n < 2)
		return NAN;
	if (!L->gacc && !(L->gacc = calloc(L->D, sizeof *L->gacc)))
		return NAN;
	const uint32_t S = L->S;
	uint64_t M = 0;
	double sq = 0;
	for (int q = 0; q < e->T; q++) {
		const eng_worker *ew = e->w[q];
		const lin_worker *w = ew->m;
		const uint64_t rows = ew->n, mq = rows * (NOISE_SAMPLE < n ? NOISE_SAMPLE : n) / n;
		for (uint64_t k = 0; k < mq; k++) {
			const uint64_t r = k * rows / mq, lo = w->off[r], hi = w->off[r + 1];
			float m = ald(&L->P[0]);
			double xx = 1.0; /* the bias */
			for (uint64_t j = lo; j < hi; j++) {
				const float x = w->xs ? w->xs[j] : 1.0f;
				m += ald(&L->P[(size_t)w->ids[j] * S]) * x;
				xx += (double)x * x;
			}
			const double d = (double)hog_loss_deriv(e->o.loss, m, w->y[r]) * (w->wt ? w->wt[r] : 1.0f);
			sq += d * d * xx;
			L->gacc[0] += (float)d;
			for (uint64_t j = lo; j < hi; j++)
				L->gacc[w->ids[j]] += (float)(d * (w->xs ? w->xs[j] : 1.0f));
			M++;
		}
	}
	double gg = 0; /* |the sample's summed gradient|^2, and the accumulator back to zero */
	for (uint64_t v = 0; v < L->D; v++) {
		gg += (double)L->gacc[v] * L->gacc[v];
		L->gacc[v] = 0.0f;
	}
	if (M < 2)
		return NAN;
	gg /= (double)M * (double)M; /* |mean gradient|^2 */
	const double trs = (double)M / (double)(M - 1) * (sq / (double)M - gg), g2 = gg - trs / (double)M;
	if (L->noise_epochs++ == 0) {
		L->noise_trs = trs;
		L->noise_g2 = g2;
	} else {
		L->noise_trs += NOISE_EMA * (trs - L->noise_trs);
		L->noise_g2 += NOISE_EMA * (g2 - L->noise_g2);
	}
	return L->noise_g2 > 0 ? (L->noise_trs > 0 ? L->noise_trs / L->noise_g2 : 0.0) : INFINITY;
}
