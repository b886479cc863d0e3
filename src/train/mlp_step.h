/* The mlp's step rules on a run of weights (train/mlp_train.c's update): the
 * rule's change from the gradient and the worker's own state, then the write
 * in the run's mode, specialized by constant arguments. */
#ifndef HOG_TRAIN_MLP_STEP_H
#define HOG_TRAIN_MLP_STEP_H
#include "train/engine.h"

enum { RK_SGD, RK_MOMENTUM, RK_ADAGRAD, RK_ADAM, RK_ADAMW }; /* step rules */
enum { UM_RELAXED, UM_CAS, UM_PLAIN };            /* how a weight is written */

/* The constants of one batch's step. */
typedef struct step_k {
	float lr, l2, mu, beta;
	float b1, b2, eps;          /* adam */
	float a1, a2;               /* adam: lr / (1 - b1^t), 1 / sqrt(1 - b2^t) (bias corrections) */
	float decay;                /* adamw: 1 - lr l2 */
} step_k;

/* LARS (You, Gitman, Ginsburg 2017): a layer's step times the trust ratio
 * eta |w| / (|g| + l2 |w|) of its weights' norm to its gradient's, from the
 * sums of squares @p ww and @p gg; 1 where either norm is zero (a layer at
 * zero, as softmax regression starts, takes the global step). */
static inline double lars_ratio(double ww, double gg, double eta, double l2)
{
	const double wn = sqrt(ww), gn = sqrt(gg);
	return wn > 0 && gn > 0 ? eta * wn / (gn + l2 * wn) : 1.0;
}

/* Adds the sums of squares of n weights and their gradients to *ww and *gg. */
static inline void lars_sums(const float *restrict w, const float *restrict g, uint64_t n, double *ww, double *gg)
{
	double a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
	for (uint64_t k = 0; k < n; k++) {
		a += (double)w[k] * w[k];
		b += (double)g[k] * g[k];
	}
	*ww += a;
	*gg += b;
}

/* The write of change d to one weight in mode UM; *hw gets the result. */
static inline __attribute__((always_inline)) void upd_write(const int UM, _Atomic float *P, float *hw, float d)
{
	if (UM == UM_PLAIN) {
		*hw += d;
	} else if (UM == UM_CAS) {
		*hw = cas_add(P, d) + d;
	} else { /* serial, lockfree, locked: see "The race" in train/mlp_train.c */
		float p = ald(P) + d;
		ast(P, p);
		*hw = p;
	}
}

/* The step on n weights in one pass, specialized by the constant arguments:
 * the rule's change from the gradient g, the worker's own state rs (velocity,
 * AdaGrad sums, Adam's first moment; rv: Adam's second; each process of
 * PyTorch's mnist_hogwild has its own optimizer too) and the l2 term of the
 * weights hw the batch used (AdamW: decoupled, the weight shrunk by
 * 1 - lr l2 beside the step, as PyTorch's AdamW); then the write in mode UM,
 * whose result is also the worker's copy for its next batch (dense inputs read
 * the shared weights only once: see batch_step()). One pass over the arrays,
 * not one per operation: at batch 32 the update moves as many bytes as the
 * products do flops/10, and it is memory that bounds it. Adam's square root
 * and division are done in SIMD on a chunk of 256 that stays in L1, then
 * written (the shared weights' relaxed atomics do not vectorize). */
static inline __attribute__((always_inline)) void upd(const int UM, const int RK, _Atomic float *P,
                                                      float *restrict hw, float *restrict rs,
                                                      float *restrict rv, const float *restrict g,
                                                      uint64_t n, const step_k *K)
{
	const float lr = K->lr, l2 = K->l2;
	if (RK == RK_ADAM || RK == RK_ADAMW) { /* the arithmetic in SIMD on a chunk, then the writes */
		enum { CH = 256 };
		float dk[CH];
		for (uint64_t a = 0; a < n; a += CH) {
			const int m = n - a < CH ? (int)(n - a) : CH;
			float *restrict s1 = rs + a, *restrict s2 = rv + a;
			const float *restrict ga = g + a, *restrict wa = hw + a;
#pragma omp simd
			for (int k = 0; k < m; k++) {
				float gk = RK == RK_ADAMW ? ga[k] : ga[k] + l2 * wa[k];
				s1[k] = K->b1 * s1[k] + (1.0f - K->b1) * gk;
				s2[k] = K->b2 * s2[k] + (1.0f - K->b2) * gk * gk;
				dk[k] = -K->a1 * s1[k] / (sqrtf(s2[k]) * K->a2 + K->eps);
				if (RK == RK_ADAMW)
					dk[k] -= (1.0f - K->decay) * wa[k];
			}
			for (int k = 0; k < m; k++)
				upd_write(UM, P + a + k, hw + a + k, dk[k]);
		}
		return;
	}
	for (uint64_t k = 0; k < n; k++) {
		float gk = g[k] + l2 * hw[k], d;
		if (RK == RK_SGD) {
			d = -lr * gk;
		} else if (RK == RK_MOMENTUM) {
			rs[k] = K->mu * rs[k] + gk;
			d = -lr * rs[k];
		} else {
			rs[k] += gk * gk;
			d = -lr * gk / (K->beta + sqrtf(rs[k]));
		}
		upd_write(UM, P + k, hw + k, d);
	}
}

#endif
