/* Divergence: when a run's training loss has left the range that a run which
 * learns anything keeps to, the engine stops it (HOG_EDIVERGED) rather than
 * hand back a model that only looks trained. NaN and Inf were all it caught
 * once; a step of 1e9 kept the loss finite, near 1e9, and passed for success
 * (issue 19).
 *
 * The rule is the same for every model, from the loss function and the labels
 * alone (eng_zero_loss): the loss of a model of zeros, which predicts margin 0
 * (probability 1/2, every class alike, or the value 0), is what a run starts
 * near and what any learning improves on. An epoch's mean training loss
 * diverges when it is
 *   - not finite, or
 *   - above HOG_DIVERGE_FACTOR times that loss (floored at HOG_DIVERGE_FLOOR,
 *     for labels near zero), or
 *   - above HOG_DIVERGE_GROWTH times the best epoch of this run so far, when
 *     that is also above the zero model's loss: a run that had learned and has
 *     since become worse than knowing nothing.
 * Why so far from the zero model's loss: a step much too large is not yet a
 * diverged one. a9a (UCI Adult) with --lr 4, 60 times the default, trains to
 * 85% test accuracy, as the default does, at a training loss of 6.5, ten times
 * log 2 (the logistic loss of a linear model grows with the step, its
 * accuracy does not); at --lr 100 the loss is 170, past the bound, with the
 * accuracy still 85% (stopped as diverged: --keep-diverged keeps such a
 * model); at --lr 1e9 it is 1e8-1e9. Healthy runs (the defaults of every
 * model on generated sets of every kind, a9a, MovieLens; adagrad, adarevision,
 * every mode, --stream, MPI) stay within 1.3 times the zero model's loss.
 * Inside an epoch (the progressive loss of the rounds so far, checked before a
 * checkpoint is written between rounds) only the first two apply. The epoch's
 * figure is the whole job's (every MPI rank's examples), so every rank decides
 * alike; the best epoch is this process's, so a resumed run starts it again.
 */
#include "train/engine.h"
#include "sys/err.h"
#include <stdio.h>

double eng_zero_loss(enum hog_loss loss, const hog_meta *m)
{
	double z = HOG_DIVERGE_FLOOR;
	switch (loss) {
	case HOG_LOSS_LOGISTIC: z = log(2.0); break;
	case HOG_LOSS_HINGE: z = 1.0; break;
	case HOG_LOSS_SOFTMAX: z = log(m->classes > 2 ? (double)m->classes : 2.0); break;
	case HOG_LOSS_SQUARED: {
		/* half the largest squared label (binary labels train as -1/+1): at
		 * least what predicting 0 loses on average */
		double a = m->task == HOG_TASK_BINARY ? 1.0 : fmax(fabs(m->label_min), fabs(m->label_max));
		z = isfinite(a) ? 0.5 * a * a : HOG_DIVERGE_FLOOR;
		break;
	}
	}
	return z > HOG_DIVERGE_FLOOR ? z : HOG_DIVERGE_FLOOR;
}

double eng_loss_bound(double zero, double best, int *growth)
{
	double b = HOG_DIVERGE_FACTOR * zero;
	*growth = 0;
	if (best >= 0 && isfinite(best)) {
		double g = HOG_DIVERGE_GROWTH * best;
		g = g > zero ? g : zero;
		if (g < b) {
			b = g;
			*growth = 1;
		}
	}
	return b;
}

int eng_loss_diverged(double loss, double bound)
{
	return !isfinite(loss) || !(loss <= bound); /* (NaN is never within) */
}

int eng_diverge_seq(const double *loss, int n, double zero)
{
	double best = NAN;
	for (int i = 0; i < n; i++) {
		int growth;
		if (eng_loss_diverged(loss[i], eng_loss_bound(zero, best, &growth)))
			return i;
		best = isnan(best) || loss[i] < best ? loss[i] : best;
	}
	return -1;
}

int eng_check_diverged(hog_engine *e, int ep, double loss, int whole_epoch)
{
	int growth;
	if (atomic_load(&e->action) >= 2)
		return 0; /* (diverged or failed already: the first word stands) */
	double bound = eng_loss_bound(e->loss_zero, whole_epoch ? e->loss_best : NAN, &growth);
	if (!eng_loss_diverged(loss, bound)) {
		if (whole_epoch && !(loss >= e->loss_best))
			e->loss_best = loss;
		return 0;
	}
	atomic_store(&e->action, 2);
	if (e->werr.code)
		return 1;
	char lr[64], why[256];
	const double at = eng_lr_at(e, ep, (uint64_t)ep * e->tr->n);
	snprintf(lr, sizeof lr, "%s%g", e->o.rule == HOG_RULE_SGD ? "step size " : "adaptive step alpha ", at);
	const char *what = whole_epoch ? "the training loss" : "the training loss so far in the epoch";
	if (!isfinite(loss))
		snprintf(why, sizeof why, "%s is %s", what, isnan(loss) ? "NaN" : "infinite");
	else if (growth)
		snprintf(why, sizeof why, "%s, %.6g, is past its bound %.6g (%g x %.6g, this run's best epoch's, and "
		         "above the all-zero model's %.4g)", what, loss, bound, HOG_DIVERGE_GROWTH, e->loss_best,
		         e->loss_zero);
	else
		snprintf(why, sizeof why, "%s, %.6g, is past its bound %.6g (%g x %.4g, the most an all-zero model loses "
		         "on these labels)", what, loss, bound, HOG_DIVERGE_FACTOR, e->loss_zero);
	hog_err_set(&e->werr, HOG_EDIVERGED, "training diverged in epoch %d at %s: %s; try a smaller --lr%s", ep + 1,
	            lr, why, e->o.rule == HOG_RULE_SGD ? " or --optimizer adagrad" : "");
	return 1;
}

int eng_model_finite(const hog_model *m)
{
	for (uint64_t i = 0; i < m->nparams; i++)
		if (!isfinite(m->params[i]))
			return 0;
	return 1;
}
