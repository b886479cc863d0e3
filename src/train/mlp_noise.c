/* The mlp's gradient noise scale (train/noise.h) and --batch auto, split out
 * of train/mlp_train.c: the windows of NOISE_K full batches every
 * NOISE_EVERY batches of each worker, one more pass over the gradient in one
 * batch of 8 (with a sparse first layer over the weights after W_0), and
 * thread 0's growth of the batch between epochs. */
#include "sys/mpi.h"
#include "train/engine.h"
#include "train/mlp_train.h"
#include "train/noise.h"
#include <math.h>
#include <string.h>

/* After a batch's gradient: inside a window (the first NOISE_K batches of
 * every NOISE_EVERY), its squared norm and the window's sum; at the window's
 * end, the two norms into the epoch's sums (train/noise.h). A window with a
 * short batch (a round's or the epoch's end) is dropped. */
void mlp_noise_window(const mlp_state *M, mlp_worker *w, int rows)
{
	const uint64_t phase = w->nb++ % NOISE_EVERY;
	if (phase >= NOISE_K)
		return;
	const hog_mlp_shape *s = &M->s;
	const uint64_t a = s->sparse ? s->boff[0] : 0, n = s->np - a;
	float *restrict acc = w->acc + a;
	const float *restrict g = w->hG + a;
	if (phase == 0) {
		memset(acc, 0, n * sizeof *acc);
		w->win_g2 = 0;
		w->win_full = 1;
	}
	w->win_full &= rows == w->B;
	double q = 0;
#pragma omp simd reduction(+ : q)
	for (uint64_t k = 0; k < n; k++) {
		acc[k] += g[k];
		q += (double)g[k] * g[k];
	}
	w->win_g2 += q;
	if (phase + 1 < NOISE_K || !w->win_full)
		return;
	double big = 0;
#pragma omp simd reduction(+ : big)
	for (uint64_t k = 0; k < n; k++)
		big += (double)acc[k] * acc[k];
	noise_add(&w->ns, w->win_g2 / NOISE_K, big / ((double)NOISE_K * NOISE_K));
}

/* --batch auto, thread 0 after an epoch whose noise scale was @p bn: the next
 * epoch's batch, grown towards bn when bn is over twice the batch (by powers
 * of two, at most 4 times an epoch, at most --batch auto's bound; never
 * shrunk). The step follows McCandlish et al.'s eq. 2.6, the best step at
 * batch B being e_max / (1 + bn / B): times (1 + bn/B_old) / (1 + bn/B_new) for
 * sgd (and momentum), the square root of that for the adaptive rules (as
 * the square-root rule for Adam: Malladi et al., NeurIPS 2022). */
static void batch_grow(hog_engine *e, mlp_state *M, double bn)
{
	const uint32_t b0 = M->batch;
	uint32_t b = b0;
	while (isfinite(bn) && bn > 2.0 * b && b * 2 <= M->cap && b < 4 * b0)
		b *= 2;
	if (b == b0)
		return;
	double f = fmin((1.0 + bn / b0) / (1.0 + bn / b), sqrt((double)b / b0));
	M->lr_mult *= e->o.rule == HOG_RULE_SGD ? f : sqrt(f);
	M->batch = b;
}

/* Thread 0 after an epoch: every worker's windows (and every rank's, so that
 * the ranks grow their batches alike) into the epoch's noise scale, its
 * batch and step in @p s, and with --batch auto the next epoch's batch. */
void mlp_noise_epoch(hog_engine *e, hog_epoch_stats *s)
{
	mlp_state *M = e->model;
	noise_sums ns = { 0 };
	for (int k = 0; k < e->T; k++)
		noise_merge(&ns, &((mlp_worker *)e->w[k]->m)->ns);
	if (e->ranks > 1) {
		double v[] = { ns.small, ns.big, (double)ns.windows };
		if (!hog_mpi_sum_f64(v, 3, &e->werr))
			ns = (noise_sums){ v[0], v[1], (uint64_t)v[2] };
	}
	s->batch = M->batch;
	s->lr *= M->lr_mult;
	s->noise_scale = M->noise = noise_scale(&ns, M->batch, (double)M->batch * NOISE_K, NULL, NULL);
	if (e->o.mlp.batch_auto)
		batch_grow(e, M, s->noise_scale);
}
