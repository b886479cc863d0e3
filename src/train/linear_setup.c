/* The linear trainer's setup (linear_train.h), before the threads start:
 *  - features are renumbered by falling frequency (internal id 0 is the bias), so
 *    hot coordinates share cache lines and come first in every row; the per-
 *    coordinate regularizer l2 * n / d_v (Hogwild! paper, §5: lambda w_v / d_v
 *    summed over an epoch is lambda w_v) is precomputed;
 *  - buffered and replica modes' private coordinates and flush intervals, and
 *    replica's node replicas on several NUMA nodes;
 *  - the examples are dealt to the workers by a seeded permutation;
 *  - the model, the locks, --average's accumulators, the test set's ids.
 * And the default step (lin_default_lr, --lr 0's in lin_check).
 */
#include "model/linear.h"
#include "sys/err.h"
#include "train/engine.h"
#include "train/linear_train.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The default step: SGD's 1/(1 + mean |x|^2) keeps the first steps below the
 * curvature of the loss whatever the scale of the features (0.5 for unit-norm
 * rows like RCV1's; ~0.067 for a9a's 14 binary features). AdaGrad and
 * AdaRevision normalize by the gradients themselves, so their steps do not grow
 * with the labels: alpha 0.1 is in the units of a margin, and a regression's
 * weights, in the labels' units, moved 0.1 at a time (scikit-learn's diabetes,
 * labels of spread 79: test RMSE 66.5 where SGD reached 56.5 and least squares
 * 56.4; labels 2000 +- 3.5: 1865 against 1.97). For the squared loss alpha is
 * the labels' standard deviation @p ysd, 0.1 at least: with the bias started at
 * their mean, on six sets (diabetes, five generated: 0.05 to 5,400 of spread,
 * 5 to 792 epochs) 0.1 x and 0.3 x the spread were never better and up to
 * 13% worse (diabetes, 5 epochs: 65.3, 60.9 against 58.4; SGD 57.5). */
double lin_default_lr_of(enum hog_rule rule, double sq, double ysd)
{
	return rule != HOG_RULE_SGD ? (ysd > 0.1 ? ysd : 0.1) : 1.0 / (1.0 + sq);
}

double lin_label_mean(const hog_data *d, enum hog_loss loss, double *sd)
{
	eng_moments m = { 0 };
	if (loss == HOG_LOSS_SQUARED && d->labels)
		eng_moments_add(&m, d->labels, d->weights, d->n);
	return eng_moments_mean(&m, sd);
}

double lin_default_lr(const hog_data *d, const hog_train_opts *o, const float *scale, const double *mu)
{
	double ysd = 0;
	if (o->rule != HOG_RULE_SGD)
		lin_label_mean(d, o->loss, &ysd);
	return lin_default_lr_of(o->rule, o->rule != HOG_RULE_SGD ? 0 : eng_mean_sq(d, scale, mu), ysd);
}

/* A default flush interval: @p dflt examples, fewer when @p cap (a share of a
 * worker's epoch) is smaller, never below 8. */
static uint32_t lin_flush_cap(uint32_t dflt, uint64_t cap)
{
	return cap >= dflt ? dflt : cap < 8 ? 8 : (uint32_t)cap;
}

/* The factor on a worker's change to a feature at a flush, for plain SGD
 * (merge_shares). Within a flush interval each of the T workers moves a
 * coordinate from the same shared value with its own examples. Where the
 * coordinate is rare, those moves are a few independent steps each and their
 * sum is what serial SGD would make. Where it is frequent, each worker corrects
 * much of the same error: on a quadratic with curvature h per touch, a worker's
 * F p touches at step lr shrink the error by exp(-a), a = F p lr h, so the sum
 * of the T changes corrects c = T (1 - exp(-a)) times the error. Past c = 2 the
 * error grows at every flush: on 16 cores the most frequent features overshot
 * 16-fold and replica diverged (test loss 7.13 against serial's 0.255 on the
 * RCV1-shaped set, bench/results/scaling-h200-16c-before.md). The factor keeps
 * c at most a cap (LIN_MERGE_CMAX, 1.5, or LIN_MERGE_CMAX_LAST, 1; below)
 * and leaves every coordinate below it summed, whole.
 *
 * The workers do not flush at once. Each flushes when its own interval ends,
 * so a worker's change corrects the error it saw at its last flush, T - 1
 * other flushes ago: e' = e - (c / T) e_{T-1 flushes ago}. That recursion is
 * stable only for c below T 2 sin(pi / (2 (2T - 1))) (2 at T = 2, 1.67 at 8,
 * 1.62 at 16, pi/2 for many), and near that bound the error swings for
 * hundreds of flushes: at 1.5 its largest root shrinks the error only to
 * 0.87-0.96 of itself in T flushes at 4-64 workers, at 1 to 0.63-0.72. With
 * --average (the default) the model is the iterates' average, over which the
 * swings cancel: the cap stays 1.5, below the bound at every T, and the
 * common direction is capped there too (merge_shares). Without it the model
 * is the last iterate: the cap is 1 per feature and 1.25 for the common
 * direction. Measured on the 16-core machine (3 epochs, test loss, seeds 1
 * and 2, bench/results/merge-caps-h200.md): with --average off, the per-feature
 * cap at 1.5 alone (the rule before) diverged on a Zipf 0.8 binary set at 8
 * and 16 threads (replica 2.0-40.4 against serial's 0.2494; buffered 0.37-1.21);
 * 1 and 1.25 gave 0.2445-0.2462 there, and 0.2554-0.2563 on the RCV1-shaped
 * set at 16 threads (serial 0.2553); with --average on, 1.5 and 1.5 gave
 * 0.2543 and 0.2448 at 16 threads (serial 0.2549 and 0.2446) against 0.2570
 * and 0.2466 for the last iterate's caps. Deterministic mode's merges are
 * made at once, after a barrier: 1.5 (det_shares). */
float lin_merge_share(double a, int T, double cmax)
{
	if (T <= 1 || a <= 0)
		return 1.0f;
	const double c = -(double)T * expm1(-a);
	return c > cmax ? (float)(cmax / c) : 1.0f;
}

/* The factor on every summed feature's share that keeps the merge's
 * correction of the features' common direction -- the mean row m, which every
 * worker (or shard) corrects whole within an interval -- at most @p cmax: that
 * correction is T times the m^2-weighted mean of the factors,
 * T (W0 + Ws) / Z, where Ws = sum m^2 f over the summed features (the ones to
 * scale), W0 = sum m^2 / T over the averaged or shared ones (the bias's m is
 * 1) and Z = sum m^2 (the bias's 1 in it). 1 where the correction is below
 * the cap. */
double lin_common_cap(double W0, double Ws, double Z, int T, double cmax)
{
	if ((double)T * (W0 + Ws) <= cmax * Z || Ws <= 0)
		return 1.0;
	const double g = (cmax * Z / (double)T - W0) / Ws;
	return g > 0 ? g : 0;
}

/* A feature's mean value over the examples (m of lin_common_cap): from its
 * sum of values @p sx (NULL: binary, its count), scaled as the model sees it. */
static double lin_mean_value(const lin_state *L, uint32_t r, double n, const uint64_t *cnt, const double *sx)
{
	const double xs = L->xscale ? (double)L->xscale[r] : 1.0;
	return (sx ? sx[L->inv[r]] : (double)cnt[L->inv[r]]) * xs / n;
}

/* L->share for buffered and replica modes, the factor of every private record:
 * the bias and --hot's features (records < avg) 1/T, as before; with SGD,
 * merge_share per feature from its frequency p = cnt / n, the mean of its
 * squared values @p sq (NULL: 1, binary features or a --stream set), the step
 * size and the loss's curvature (1 for squared loss, at most 1/4 for logistic
 * and hinge's smooth part: the cap then holds where the curvature is highest).
 * Then, as deterministic mode's merge does (det_shares), the common direction
 * capped (lin_common_cap, the mean values from @p sx; buffered's shared
 * features, written at once, count as averaged): rows that share their
 * frequent features move them together, each factor below the cap and their
 * sum T-fold (lin_merge_share says what it fixed). Other rules keep the rest
 * summed, 1: AdaGrad's own step shrinks as a coordinate is touched. */
static int merge_shares(hog_engine *e, lin_state *L, const uint64_t *cnt, const double *sq, const double *sx)
{
	if (!(L->share = malloc(L->ks.hot * sizeof *L->share)))
		return ENOMEM;
	const int sgd = e->o.rule == HOG_RULE_SGD && e->T > 1;
	const double n = (double)(e->tr->n ? e->tr->n : 1), lr = e->o.lr * e->lr_factor;
	const double h = e->o.loss == HOG_LOSS_SQUARED ? 1.0 : 0.25, F = (double)L->flush_every;
	const int last = !e->o.linear.average; /* the model is the last iterate (lin_merge_share) */
	double W0 = 1.0 / e->T, Ws = 0, Z = 1; /* lin_common_cap's sums; the bias's m = 1 */
	for (uint32_t r = 0; r < L->ks.hot; r++) {
		if (r < L->avg || !sgd) {
			L->share[r] = r < L->avg ? 1.0f / (float)e->T : 1.0f;
			continue;
		}
		const uint64_t c = cnt[L->inv[r]];
		double x2 = sq && c ? sq[L->inv[r]] / (double)c : 1.0;
		if (L->xscale)
			x2 *= (double)L->xscale[r] * L->xscale[r];
		const double p = c / n < 1.0 ? c / n : 1.0;
		L->share[r] = lin_merge_share(F * p * lr * h * x2, e->T, last ? LIN_MERGE_CMAX_LAST : LIN_MERGE_CMAX);
	}
	if (sgd) {
		for (uint32_t r = 1; r < L->D; r++) {
			const double m = lin_mean_value(L, r, n, cnt, sx), m2 = m * m;
			Z += m2;
			if (r < L->avg || r >= L->ks.hot)
				W0 += m2 / e->T;
			else
				Ws += m2 * L->share[r];
		}
		const double g = lin_common_cap(W0, Ws, Z, e->T, last ? LIN_MERGE_COMMON_LAST : LIN_MERGE_CMAX);
		for (uint32_t r = L->avg; r < L->ks.hot; r++) {
			if (g < 1.0)
				L->share[r] = (float)((double)L->share[r] * g);
			L->damped += L->share[r] < 1.0f;
		}
	}
	return 0;
}

/* Deterministic mode's factors (linear_determ.c says why): with SGD and S > 1
 * shards, feature r's summed change at a merge is scaled by the blend
 * (1 - e^-Sa) / (S (1 - e^-a)), a = K p lr h x2 as in merge_shares with the
 * round's K examples a shard: what makes S shards' K touches correct a lone
 * coordinate's error as much as S K serial ones (1: a rare feature's changes
 * summed; 1/S: a saturated one's averaged). Features are not alone: their
 * common direction, the mean row m (the bias 1, feature r its mean value),
 * gets S times the m^2-weighted mean of the factors (the bias's 1/S); past
 * LIN_MERGE_CMAX every feature's factor is scaled down to bring it there. The
 * bias keeps the mean (L->share[0] unread). AdaGrad and AdaRevision: the same
 * blend, but a coordinate's step is lr / (beta + sqrt(G)), its own, which
 * shrinks as it is touched; so a is taken at each merge from the round's G
 * (det_blend), and here only its part the data fix, K p lr h x2, is kept,
 * with the square of the mean value for the common direction's cap, which is
 * taken at each merge from the round's step sizes too (L->det_a0; det_common,
 * linear_determ.h). A pure function of the data, the options and S, never of
 * the threads. */
static int det_shares(hog_engine *e, lin_state *L, const uint64_t *cnt, const double *sq, const double *sx)
{
	const int S = e->o.shards, sgd = e->o.rule == HOG_RULE_SGD;
	if (S <= 1)
		return 0;
	float *const out = sgd ? malloc(L->D * sizeof *out) : NULL; /* SGD: the factors */
	struct lin_det_feat *const af = sgd ? NULL : malloc(L->D * sizeof *af); /* else a's part and m^2 */
	if (!out && !af)
		return ENOMEM;
	L->share = out;
	L->det_a0 = af;
	const double n = (double)(e->tr->n ? e->tr->n : 1), lr = e->o.lr * e->lr_factor;
	const double h = e->o.loss == HOG_LOSS_SQUARED ? 1.0 : 0.25, K = (double)e->o.round_examples;
	double W = 0, Z = 1; /* sum m^2 f over the features; 1 + sum m^2 */
	if (sgd)
		out[0] = 1.0f / (float)S;
	else
		af[0] = (struct lin_det_feat){ 0.0f, 0.0f };
	for (uint32_t r = 1; r < L->D; r++) {
		const uint64_t c = cnt[L->inv[r]];
		const double xs = L->xscale ? (double)L->xscale[r] : 1.0;
		const double x2 = (sq && c ? sq[L->inv[r]] / (double)c : 1.0) * xs * xs;
		const double p = c / n < 1.0 ? c / n : 1.0, a = K * p * lr * h * x2;
		const double m = lin_mean_value(L, r, n, cnt, sx);
		if (!sgd) {
			af[r] = (struct lin_det_feat){ (float)a, (float)(m * m) };
			continue;
		}
		const double f = lin_blend(a, S);
		out[r] = (float)f;
		W += m * m * f;
		Z += m * m;
	}
	if (!sgd)
		return 0;
	const double g = lin_common_cap(1.0 / S, W, Z, S, LIN_MERGE_CMAX);
	for (uint32_t r = 1; r < L->D; r++) {
		if (g < 1.0)
			out[r] = (float)((double)out[r] * g);
		L->damped += out[r] < 1.0f;
	}
	return 0;
}

/* Buffered and replica modes: which coordinates a worker keeps private (ks.hot),
 * which of them a flush averages (avg), and the examples between flushes, from
 * the features' counts @p cnt (data set ids); then the merge's factors (merge_shares;
 * deterministic mode's, every feature's, det_shares). */
static int setup_private(hog_engine *e, lin_state *L, const uint64_t *cnt, const double *sq, const double *sx)
{
	const hog_data *d = e->tr;
	/* buffered: hot = coordinates written at least once per flush interval on
	 * average, kept private; at flushes the bias is averaged and the rest summed.
	 * (Averaging every hot coordinate, as before, left the test loss 11% above
	 * serial's on a small binary set and 4% on the RCV1-shaped one, 5 epochs, 2
	 * threads; averaging the bias alone, 0.3% and 1.9%: bench/results/scaling.md.) */
	/* Default flush intervals hold at most a quarter of a worker's epoch: on a
	 * small set an interval longer than the worker's share let each worker make a
	 * whole epoch's change to the dense features alone, and their sum overshot
	 * T-fold, as the bias's did (diabetes, 353 examples, 2 threads, the CLI's
	 * defaults: test RMSE 95.6 buffered against 52.5 serial; 51.6-52.7 capped;
	 * replica on a9a, test loss 0.445 against serial's 0.324; 0.327 capped).
	 * Sets of more than 8192 (buffered) or 131072 (replica) examples a worker
	 * keep 1024 and 16384. */
	const uint64_t share = d->n / (uint64_t)(e->T > 0 ? e->T : 1);
	if (e->o.mode == HOG_MODE_BUFFERED) {
		uint32_t hot = 1;
		L->flush_every = e->o.flush_every ? (uint32_t)e->o.flush_every : lin_flush_cap(1024, share / 4);
		if (e->o.linear.hot >= 0)
			hot = (uint32_t)e->o.linear.hot + 1;
		else
			while (hot < L->D && hot <= 65536 && cnt[L->inv[hot]] * (uint64_t)L->flush_every >= d->n)
				hot++;
		L->ks.hot = hot > L->D ? (uint32_t)L->D : hot;
		L->avg = 1; /* the bias; the hot features' changes are summed (see replica below) */
		L->private_ = 1;
		L->hot_shown = (int)L->ks.hot - (L->ks.hot > 0);
	}
	/* replica: every coordinate private; at a flush the bias (and the --hot most
	 * frequent features) averaged, every other change summed: buffered with
	 * nothing shared between flushes.
	 *
	 * Why the bias alone: within a flush interval each worker corrects the bias by
	 * (nearly) the same whole amount, so summing T corrections overshoots T-fold
	 * and it oscillates (buffered's history). Features are different: averaging
	 * them divides each worker's progress on them by T. Measured at 2 threads, 5
	 * epochs, test loss against serial's (bench/results/scaling.md): averaging
	 * the bias only, 0.1944 / 0.27066 / 0.33483 against serial's 0.1958 / 0.27124 /
	 * 0.33453 on a small binary set, the RCV1-shaped set and a9a; averaging the
	 * features whose lr * K * mean x^2 reaches 1 as well (705, 79 and 82 of them),
	 * 0.2127 / 0.27138 / 0.3278: 8.6% worse on the first.
	 *
	 * Every 16384 examples with --average, 4096 without: a flush sweeps the
	 * whole model, and at 4096 the sweeps held two threads to 84-89% of the
	 * no-sharing bound; at 16384, 94-102% (three interleaved runs on three sets,
	 * --average on), the test loss still within 0.2% of serial's
	 * (bench/results/scaling.md). The average of the iterates absorbs the
	 * replicas' longer drift; the last iterate, without it, does not (0.5% worse
	 * on the node-replica test's small set at 16384).
	 *
	 * A narrower model flushes sooner (lin_replica_width_flush): the interval
	 * only has to outweigh a sweep of the copy, 16-fold in nonzeros, and a
	 * shorter one is nearer serial, its average's points too. a9a (124
	 * coordinates, 14 nonzeros a row): every 256 examples instead of a quarter
	 * of a worker's epoch (4070), test loss at 2 threads after 5 and 10 epochs
	 * +0.05/-0.04/+0.05% and +0.08/+0.11/+0.02% of serial's (seeds 1-3) against
	 * +0.37/+0.28/+0.17% and +0.42/+0.29/+0.03%. The RCV1-shaped set (47,237,
	 * 71) keeps 16384. */
	if (e->o.mode == HOG_MODE_REPLICA) {
		const uint64_t wf = lin_replica_width_flush((double)L->D * L->S, d->n ? (double)d->nnz / (double)d->n : 1);
		const uint32_t dflt = e->o.linear.average ? 16384 : 4096;
		L->flush_every = e->o.flush_every ? (uint32_t)e->o.flush_every
		                                  : lin_flush_cap(wf < dflt ? (uint32_t)wf : dflt, share / 4);
		L->ks.hot = (uint32_t)L->D;
		const int hot = e->o.linear.hot;
		L->avg = hot > 0 ? (uint32_t)(hot + 1 < (int64_t)L->D ? hot + 1 : (int64_t)L->D) : 1;
		L->private_ = 1;
		L->hot_shown = (int)L->avg - 1;
	}
	if (e->o.mode == HOG_MODE_DETERMINISTIC)
		return det_shares(e, L, cnt, sq, sx);
	return L->private_ ? merge_shares(e, L, cnt, sq, sx) : 0; /* (unused by node replicas: replica.h) */
}

/* The step between features of consecutive frequency rank in the model's
 * layout (setup_features: rank r at internal id 1 + (r K + 16) mod dim). 1 -- the
 * most frequent features packed together, the bias first -- except in the
 * modes whose workers all write the shared model at every example (lockfree,
 * atomic), where it is the smallest K >= 17 prime to dim: the hot features
 * then sit 17 floats (68 bytes, 136 with AdaGrad's sums) apart, on lines of
 * their own, so that a worker's write to one does not take from the other
 * workers the lines of the next fifteen, which they did not touch. Measured
 * at 2 threads where a cache line costs 247 ns (AMD EPYC VM), lockfree on the
 * RCV1-shaped set, --average off, 3 epochs, s/epoch of epochs 2-3 over three
 * interleaved rounds: packed 0.74-0.83, K = 17 0.47-0.50, K = 33 0.46-0.50;
 * at 1 thread no change (0.24-0.30 either way). Two rounds each, packed
 * against K = 17: the Zipf 0.8 binary set lockfree 0.59-0.61 against
 * 0.32-0.33, atomic 1.26-1.28 against 0.70-0.71; the RCV1-shaped set with
 * --average on (its accumulators spread too) 1.09-1.15 against 0.65-0.67; the
 * 2 M-feature set 0.26 against 0.16-0.18. Only where the model is wide enough
 * for its hot features to have lines of their own, dim >= 4096: a9a's 123
 * features span 8 lines whatever the order, and spread they ran 0.027-0.030
 * s/epoch against 0.018-0.026; a 2,000-feature set of 413 nonzeros a row
 * (scikit-learn's make_classification) ran the same either way. The rows keep
 * their order, so the arithmetic is the same, bit for bit. Striped keeps 1
 * (Zipf set: 1.85-1.93 spread against 1.86-1.97); buffered, replica and
 * deterministic write private copies. Rank r sits at 1 + (r K + 16) mod dim:
 * the hottest feature off the bias's line (lockfree at 2 threads, three
 * interleaved rounds: 0.47-0.48 s/epoch against 0.49-0.50 on the RCV1-shaped
 * set, 0.33-0.36 against 0.34-0.36 on the Zipf set). */
uint64_t lin_layout_step(enum hog_mode mode, uint64_t dim)
{
	if ((mode != HOG_MODE_LOCKFREE && mode != HOG_MODE_ATOMIC) || dim < 4096)
		return 1;
	uint64_t K = 17;
	for (;; K++) {
		uint64_t a = dim, b = K;
		while (b) {
			const uint64_t t = a % b;
			a = b;
			b = t;
		}
		if (a == 1)
			return K;
	}
}

/* The features beyond the @p fit most frequent are the ones whose state an
 * L2 cache does not hold across examples (features are renumbered by falling
 * count, so the hottest share lines). Where they carry a tenth of the nonzeros
 * or more, an example's update waits on a few misses to L3 or memory, each
 * worth dozens of the prefetch loop's instructions a nonzero: measured with
 * 1 MB of L2 (kern_prefetch_state), 400,000 and 2 M features, 17% and 26% of
 * the nonzeros beyond it: 2.2x and 1.9x faster serial epochs; a model that
 * fits (47,236 features, 0%): 7-13% slower, hence the test. */
int lin_prefetch_state(const uint64_t *cnt, const uint64_t *key, uint64_t dim, uint64_t nnz, uint64_t fit)
{
	uint64_t hot = 0;
	for (uint64_t r = 0; r < dim && r < fit; r++)
		hot += cnt[(uint32_t)key[r]];
	return nnz > 0 && 10 * (nnz - hot) >= nnz;
}

/* A warning where features sit far from zero next to their spread (a year
 * column, 2000 +- 1; raw ids, timestamps) and were not centered (scale.c:
 * --normalize=off, or a feature missing from some examples): scaled by max|x|
 * or not, such a feature is nearly a constant beside the bias, and SGD fits
 * it slowly. A set of five such columns (offsets 50 to 10,000, unit spread,
 * 4,000 rows) ended 66 epochs at test RMSE 37.8 where least squares reached
 * 0.995, and 75.9% accuracy where logistic regression reached 92.6%; centered,
 * 0.994 and 97.2%. A feature counts when it is in 90% of the examples or more
 * and far from zero by centering's rule (eng_far_from_zero; the centered ones'
 * means are 0 here: their stats are taken less the means). */
static void offset_note(const hog_engine *e, const uint64_t *cnt, const double *sq, const double *sx, uint64_t dim)
{
	const double n = (double)e->tr->n;
	uint64_t many = 0, worst = 0;
	double wr = 0, wm = 0, ws = 0;
	for (uint64_t v = 0; e->o.on_note && n >= 10 && v < dim; v++) {
		if ((double)cnt[v] < 0.9 * n)
			continue;
		const double m = sx[v] / (double)cnt[v], var = sq[v] / (double)cnt[v] - m * m, sd = sqrt(var);
		if (!eng_far_from_zero(m, var))
			continue;
		if (!many++ || fabs(m) / sd > wr) {
			wr = fabs(m) / sd;
			worst = v;
			wm = m;
			ws = sd;
		}
	}
	if (!many)
		return;
	char msg[512];
	snprintf(msg, sizeof msg, "warning: %llu feature%s far from zero next to %s spread (feature %llu: mean %.6g, "
	         "standard deviation %.3g): nearly a constant beside the bias, which SGD fits slowly (one such set: test "
	         "RMSE 37.8 where least squares reached 1.0); --normalize (auto, the default) centers such a feature "
	         "where it is in every example, else subtract its training mean before import",
	         (unsigned long long)many, many == 1 ? " sits" : "s sit", many == 1 ? "its" : "their",
	         (unsigned long long)worst, wm, ws);
	e->o.on_note(e->o.ud, msg);
}

/* Renumbers features by falling frequency and precomputes the regularizer;
 * then the modes' private coordinates (setup_private). */
static int setup_features(hog_engine *e, lin_state *L)
{
	const hog_data *d = e->tr;
	uint64_t *cnt = calloc(L->dim + 1, sizeof *cnt);
	uint64_t *key = malloc((L->dim + 1) * sizeof *key);
	L->map = malloc((L->dim + 1) * sizeof *L->map);
	L->inv = malloc((L->D + 1) * sizeof *L->inv);
	L->reg = malloc(L->D * sizeof *L->reg);
	if (!cnt || !key || !L->map || !L->inv || !L->reg) {
		free(cnt);
		free(key);
		return hog_err_set(e->err, ENOMEM, "out of memory for %llu features", (unsigned long long)L->dim);
	}
	float *scales = NULL;
	int rc = e->store ? lin_stream_scan(e, L, cnt, &scales) : 0;
	if (rc) {
		free(cnt);
		free(key);
		return rc;
	}
	/* buffered, replica and deterministic: each feature's sum of squared
	 * values and its sum of values (sx, after sq in one block), for the
	 * merge's factors (merge_shares, det_shares); none for binary sets and
	 * --stream */
	double *sq = NULL, *sx = NULL;
	const int det = e->o.mode == HOG_MODE_DETERMINISTIC;
	/* (the other modes: for offset_note, on a set narrow enough that the two
	 * arrays cost little, and for the centers; the pass is the count's) */
	if (!e->store && d->vals &&
	    (e->o.mode == HOG_MODE_BUFFERED || e->o.mode == HOG_MODE_REPLICA || det || L->dim <= (1u << 20) ||
	     e->o.centered) &&
	    !(sq = calloc((L->dim + 1) * 2, sizeof *sq))) {
		free(cnt);
		free(key);
		return hog_err_set(e->err, ENOMEM, "out of memory for %llu features", (unsigned long long)L->dim);
	}
	if (sq) { /* (one pass over the values for the three) */
		sx = sq + L->dim + 1;
		for (uint64_t j = 0; j < d->nnz; j++) {
			const uint32_t v = d->ids[j];
			const double x = (double)d->vals[j];
			cnt[v]++;
			sq[v] += x * x;
			sx[v] += x;
		}
	} else if (!e->store) {
		for (uint64_t j = 0; j < d->nnz; j++)
			cnt[d->ids[j]]++;
	}
	/* the features lin_check centered (eng_feature_centers' rule, from these
	 * sums: the same values added in the same order, so the same means), then
	 * their stats as the model sees them, less the means */
	double *mu = e->o.centered && sq ? calloc(L->dim + 1, sizeof *mu) : NULL;
	for (uint64_t v = 0; mu && v < L->dim; v++) {
		const double m = sx[v] / (double)(cnt[v] ? cnt[v] : 1);
		if (cnt[v] == d->n && eng_far_from_zero(m, sq[v] / (double)cnt[v] - m * m)) {
			mu[v] = m;
			sq[v] += (double)cnt[v] * m * m - 2 * m * sx[v];
			sx[v] -= (double)cnt[v] * m;
		}
	}
	if (sq)
		offset_note(e, cnt, sq, sx, L->dim);
	/* sort (count desc, id asc) by packing: counts < 2^32 for n < 2^32 examples */
	for (uint64_t v = 0; v < L->dim; v++)
		key[v] = ((uint64_t)(UINT32_MAX - (cnt[v] > UINT32_MAX ? UINT32_MAX : cnt[v])) << 32) | v;
	qsort(key, L->dim, sizeof *key, cmp_key);
	L->inv[0] = UINT32_MAX;
	const uint64_t K = lin_layout_step(e->o.mode, L->dim);
	for (uint64_t r = 0; r < L->dim; r++) {
		uint32_t v = (uint32_t)key[r];
		const uint64_t pos = K == 1 ? r : (r * K + 16) % L->dim; /* (+16: rank 0 off the bias's line) */
		L->map[v] = (uint32_t)(pos + 1);
		L->inv[pos + 1] = v;
	}
	if (e->o.normalize || mu) {
		float *s = scales ? scales : eng_feature_scales(d, e->o.normalize, NULL, mu);
		if (!s || !(L->xscale = malloc(L->D * sizeof *L->xscale)) ||
		    (mu && (!(L->xshift = calloc(L->D, sizeof *L->xshift)) ||
		            !(L->center_r = malloc((size_t)e->o.centered * sizeof *L->center_r))))) {
			free(s);
			free(mu);
			free(sq);
			free(cnt);
			free(key);
			return hog_err_set(e->err, ENOMEM, "out of memory for %llu features", (unsigned long long)L->dim);
		}
		L->xscale[0] = 1;
		for (uint64_t r = 1; r < L->D; r++) {
			L->xscale[r] = s[L->inv[r]];
			if (mu && mu[L->inv[r]] != 0 && L->ncenter < (uint32_t)e->o.centered) {
				L->xshift[r] = mu[L->inv[r]];
				L->center_r[L->ncenter++] = (uint32_t)r;
			}
		}
		free(s);
	}
	free(mu);
	free(e->o.normalize ? NULL : scales);
	/* l2 * n / d_v, clamped so that one step never more than zeroes a weight */
	const double lr = e->o.lr * e->lr_factor;
	double cap = e->o.rule == HOG_RULE_SGD ? 1.0 / lr : e->o.adagrad_beta / lr;
	L->reg[0] = 0;
	for (uint64_t r = 1; r < L->D; r++) {
		uint64_t c = cnt[L->inv[r]];
		double g = c ? e->o.l2 * (double)d->n / (double)c : 0;
		L->reg[r] = (float)(g < cap ? g : cap);
	}
	/* --l1: l1 * n / d_v, the threshold per touch (kernel.h, l1_soft); not
	 * clamped, as the threshold never takes a weight past zero */
	if (e->o.linear.l1 > 0) {
		if (!(L->l1 = malloc(L->D * sizeof *L->l1))) {
			free(sq);
			free(cnt);
			free(key);
			return hog_err_set(e->err, ENOMEM, "out of memory for %llu features", (unsigned long long)L->dim);
		}
		L->l1[0] = 0;
		for (uint64_t r = 1; r < L->D; r++) {
			uint64_t c = cnt[L->inv[r]];
			L->l1[r] = c ? (float)(e->o.linear.l1 * (double)d->n / (double)c) : 0.0f;
		}
	}
	/* a coordinate's state: its record (replica and buffered: a private one
	 * too), the regularizer's factor, --average's word, --l1's threshold; the
	 * L2 size when the topology does not say: the smallest in common use */
	size_t l2 = hog_topo_l2_bytes(e->topo);
	l2 = l2 ? l2 : 512u << 10;
	const uint64_t per = 4u * L->S * (e->o.mode == HOG_MODE_REPLICA || e->o.mode == HOG_MODE_BUFFERED ? 2 : 1) +
	                     4 + (e->o.linear.average ? 8 : 0) + (L->l1 ? 4 : 0);
	uint64_t nnz = 0;
	for (uint64_t v = 0; v < L->dim; v++)
		nnz += cnt[v];
	L->ks.prefetch = lin_prefetch_state(cnt, key, L->dim, nnz, l2 / per);
	rc = setup_private(e, L, cnt, sq, sx);
	free(sq);
	free(cnt);
	free(key);
	return rc ? hog_err_set(e->err, rc, "out of memory for %llu features", (unsigned long long)L->dim) : 0;
}

/* Replica mode: the node replicas' plan from the workers' places; on several
 * nodes, the two levels (the owners allocate the replicas in worker_init) and a
 * line for the user naming them. */
static int setup_nodes(hog_engine *e, lin_state *L)
{
	if (e->o.linear.node_sync < 0) /* off: one level whatever the nodes */
		return 0;
	if (e->o.bind == HOG_BIND_NONE && hog_topo_is_real(e->topo)) { /* unbound workers run on any node: no replica is theirs */
		if (e->o.linear.node_sync > 0 && e->o.on_note)
			e->o.on_note(e->o.ud, "--node-sync: with --bind none the workers run on any NUMA node, so there are no "
			                      "node replicas to sync (one level)");
		return 0;
	}
	L->node_sync = e->o.linear.node_sync ? (uint32_t)e->o.linear.node_sync : 1;
	int rc = hog_topo_node_plan(e->plan, e->T, (int)L->node_sync, &L->np, e->err);
	if (!rc && L->np.nodes < 2 && e->o.linear.node_sync > 0 && e->o.on_note) /* (given, and nothing to sync) */
		e->o.on_note(e->o.ud, "--node-sync: the workers are on one NUMA node, so there is no node replica to "
		                      "sync (one level, as --node-sync off)");
	if (rc || L->np.nodes < 2)
		return rc;
	if (!(L->node = calloc((size_t)L->np.nodes, sizeof *L->node)))
		return hog_err_set(e->err, ENOMEM, "out of memory");
	L->damped = 0; /* the node replicas' flushes keep replica.h's rule (L->share unread): the bias
	                * averaged, the rest summed */
	L->node_replicas = L->np.nodes;
	if (e->o.on_note) {
		char note[512];
		size_t k = (size_t)snprintf(note, sizeof note,
		                            "replica: %d node replicas, synced with the global model every %u flush%s "
		                            "of each node's first worker (%llu of its examples); ",
		                            L->np.nodes, L->node_sync, L->node_sync == 1 ? "" : "es",
		                            (unsigned long long)L->node_sync * L->flush_every);
		for (int r = 0; r < L->np.nodes && k < sizeof note; r++)
			k += (size_t)snprintf(note + k, sizeof note - k, "%sNUMA node %d: %d worker%s", r ? ", " : "",
			                      L->np.numa[r], L->np.members[r], L->np.members[r] == 1 ? "" : "s");
		e->o.on_note(e->o.ud, note);
	}
	return 0;
}

int lin_setup(hog_engine *e)
{
	const hog_data *tr = e->tr, *te = e->te;
	lin_state *L = calloc(1, sizeof *L);
	if (L && e->store && !(L->blk = calloc(tr->meta.blocks + 1, sizeof *L->blk))) {
		free(L);
		L = NULL;
	}
	if (!L)
		return hog_err_set(e->err, ENOMEM, "out of memory");
	e->model = L;
	L->dim = tr->dim;
	L->D = tr->dim + 1;
	L->S = hog_rule_stride(e->o.rule);
	int rc = setup_features(e, L);
	if (rc)
		return rc;
	L->P_bytes = L->D * L->S * sizeof(float);
	L->P = hog_topo_alloc_interleaved(e->topo, L->P_bytes);
	L->perm = e->store ? NULL : malloc(tr->n * sizeof *L->perm);
	if (!L->P || (!e->store && !L->perm))
		return hog_err_set(e->err, ENOMEM, "out of memory for the model");
	/* the squared loss's bias starts at the labels' mean (--stream: the scan's;
	 * a resumed run's is the checkpoint's): from 0 a bias of 152 (diabetes)
	 * took AdaGrad hundreds of epochs, years or prices far longer */
	if (!e->store)
		L->bias0 = (float)lin_label_mean(tr, e->o.loss, &(double){ 0 });
	ast(&L->P[0], L->bias0);
	if (e->o.mode == HOG_MODE_REPLICA && (rc = setup_nodes(e, L)))
		return rc;
	if (e->o.mode == HOG_MODE_DETERMINISTIC && (rc = lin_det_setup(e, L)))
		return rc;
	/* serial's kernel and deterministic mode's merges keep --average's sums
	 * (--delay's queue runs lockfree's; the ranks' averaging would move weights
	 * behind them; deterministic mode takes neither) */
	const int sums = (e->o.mode == HOG_MODE_SERIAL && !e->o.delay && e->ranks == 1) ||
	                 e->o.mode == HOG_MODE_DETERMINISTIC;
	if (e->o.linear.average) {
		if (sums ? !(L->U = hog_topo_alloc_interleaved(e->topo, L->D * sizeof *L->U)) /* (zeroed) */
		         : !(L->A = hog_topo_alloc_interleaved(e->topo, L->D * sizeof *L->A)))
			return hog_err_set(e->err, ENOMEM, "out of memory for the averaged model");
		for (uint64_t v = 0; L->A && v < L->D; v++)
			atomic_init(&L->A[v], 0);
		if (!(L->pos = aligned_alloc(64, (size_t)e->T * sizeof *L->pos)))
			return hog_err_set(e->err, ENOMEM, "out of memory");
		for (int q = 0; q < e->T; q++)
			atomic_init(&L->pos[q].v, 0);
	}
	L->ks.A = L->A; /* (per epoch: lin_epoch_started) */
	L->ks.U = L->U;
	/* the deal: a seeded shuffle of the rows, whatever the epochs' order, so
	 * that a worker's shard (copied in this order) is in random order once;
	 * --shuffle-chunk then visits chunks of consecutive shard rows, which
	 * stream from memory (issue 22: chunks of the data set's own order visited
	 * a set stored sorted, by label or time, in long runs of one kind). The
	 * same permutation as before for the row shuffle. */
	if (L->perm)
		eng_deal(L->perm, tr->n, e->o.no_shuffle, e->o.seed);
	/* A handed-over set (hog_train_consume) is trained on in place, one copy in
	 * memory (issue 23). With --shuffle-chunk its rows are first put into the
	 * deal's order (eng_permute_rows): a worker's shard is then a run of rows
	 * and a chunk streams from memory as a copied shard's does; the same
	 * examples in the same order either way, so the same model. What a copy
	 * adds is placement on the worker's NUMA node: the shards are copied when
	 * the workers span several nodes and the copies fit in half the free
	 * memory. */
	if (e->own) {
		const uint64_t bytes = tr->nnz * (tr->vals ? 8 : 4) + tr->n * 16;
		const long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
		const int chunks = e->o.shuffle_chunk > 1 && !e->o.no_shuffle;
		L->in_place = !(chunks && hog_topo_plan_nodes(e->plan, e->T) > 1 && pages > 0 && psz > 0 &&
		                bytes <= (uint64_t)pages * (uint64_t)psz / 2);
		L->dealt = L->in_place && (e->o.no_shuffle || (chunks && eng_permute_rows(e->own, L->perm, e->wts) == 0));
		if (L->dealt) { /* the deal is 0..n-1 now: perm is not kept (a few bytes a row) */
			free(L->perm);
			L->perm = NULL;
		} /* (else rows scattered over the set: the same model, without the chunks' locality) */
	}
	L->ks.P = L->P;
	L->ks.reg = L->reg;
	L->ks.l1 = L->l1;
	L->ks.beta = (float)e->o.adagrad_beta;
	L->ks.stripe_shift = (uint32_t)__builtin_ctz((unsigned)e->o.linear.stripes);
	L->nlocks = e->o.mode == HOG_MODE_STRIPED ? (uint32_t)((L->D >> L->ks.stripe_shift) + 1) : 1;
	if (!(L->locks = aligned_alloc(64, L->nlocks * sizeof *L->locks)))
		return hog_err_set(e->err, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < L->nlocks; i++)
		atomic_init(&L->locks[i].v, 0);
	L->ks.locks = L->locks;
	/* the test set's margins (its ids are mapped as they are read: a mapped
	 * copy of them was half a test set with values more in memory) */
	if (te && !(L->test_margins = malloc(te->n * sizeof *L->test_margins + 4)))
		return hog_err_set(e->err, ENOMEM, "out of memory for the test set");
	if (te && (L->A || L->U || L->xscale) && !(L->wserve = malloc(L->D * sizeof *L->wserve)))
		return hog_err_set(e->err, ENOMEM, "out of memory for the test set");
	return 0;
}
