/* The gradient noise scale (McCandlish, Kaplan, Amodei et al., "An Empirical
 * Model of Large-Batch Training", 2018, appendix A), the batch size above which
 * a larger batch stops buying fewer steps: B_simple = tr(Sigma) / |G|^2, where
 * G is the true gradient and Sigma the covariance of one example's gradient.
 *
 * From mini-batch gradients at two sizes: E|G_B|^2 = |G|^2 + tr(Sigma)/B, so a
 * small size Bs and a big one Bb give the unbiased estimates
 *   |G|^2       = (Bb |G_Bb|^2 - Bs |G_Bs|^2) / (Bb - Bs)
 *   tr(Sigma)   = (|G_Bs|^2 - |G_Bb|^2) / (1/Bs - 1/Bb)
 * Both are linear in the two squared norms, so the means of many windows give
 * the estimates of their means; the ratio is taken of the means (the paper's
 * advice: a ratio of noisy estimates is biased).
 *
 * A trainer measures in windows: K consecutive batches of B examples, their
 * squared norms averaged (|G_Bs|^2, Bs = B) and the squared norm of their mean
 * (|G_Bb|^2, Bb = K B). The model moves between the K batches; with small steps
 * the mean is the gradient of K B examples at nearly one point.
 */
#ifndef HOG_TRAIN_NOISE_H
#define HOG_TRAIN_NOISE_H
#include <math.h>
#include <stdint.h>

typedef struct noise_sums {
	double small, big;   /* sums over windows of |G_Bs|^2 and |G_Bb|^2 */
	uint64_t windows;
} noise_sums;

static inline void noise_add(noise_sums *s, double g2_small, double g2_big)
{
	s->small += g2_small;
	s->big += g2_big;
	s->windows++;
}

static inline void noise_merge(noise_sums *to, const noise_sums *from)
{
	to->small += from->small;
	to->big += from->big;
	to->windows += from->windows;
}

/* B_simple from the sums of windows of sizes @p bs < @p bb, with the two
 * estimates in *g2 and *trs (either may be NULL): NAN with no window; +INF
 * when the estimate of |G|^2 is not positive (the noise drowns the signal). */
static inline double noise_scale(const noise_sums *s, double bs, double bb, double *g2, double *trs)
{
	double G2 = NAN, S = NAN, b = NAN;
	if (s->windows && bb > bs) {
		double ms = s->small / (double)s->windows, mb = s->big / (double)s->windows;
		G2 = (bb * mb - bs * ms) / (bb - bs);
		S = (ms - mb) / (1.0 / bs - 1.0 / bb);
		b = G2 > 0 ? (S > 0 ? S / G2 : 0.0) : INFINITY;
	}
	if (g2)
		*g2 = G2;
	if (trs)
		*trs = S;
	return b;
}

#endif
