/* A run's options: the model kinds' queries the command line asks (which
 * modes and losses a kind takes, its default mode), the library's defaults,
 * and the options of one run settled before the engine starts (the loss from
 * the set's task, the epochs from its size, the checks every model shares and
 * --mode auto's choice). */
#include "kinds.h"
#include "train/auto.h"
#include "train/engine.h"
#include "sys/err.h"
#include "sys/names.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The trainer of model kind @p k (its descriptor, kinds.c), or NULL. */
static const hog_trainer_ops *trainer_of_kind(enum hog_model_kind k)
{
	const hog_kind_desc *d = hog_kind_desc_get(k);
	return d ? d->trainer : NULL;
}

/* The trainer of a run: by model kind, and then the one that kind hands these
 * options to (hog_trainer_ops.route: --model linear --loss softmax trains as
 * the mlp). */
static const hog_trainer_ops *trainer_of(const hog_train_opts *o)
{
	const hog_trainer_ops *ops = trainer_of_kind(o->model);
	return ops && ops->route ? ops->route(o) : ops;
}

int hog_model_kind_built(enum hog_model_kind k)
{
	return trainer_of_kind(k) != NULL;
}

unsigned hog_model_kind_modes(enum hog_model_kind k)
{
	return hog_model_kind_built(k) ? trainer_of_kind(k)->modes : 0;
}

unsigned hog_model_kind_losses(enum hog_model_kind k)
{
	return hog_model_kind_built(k) ? trainer_of_kind(k)->losses : 0;
}

unsigned hog_train_modes(const hog_train_opts *o)
{
	const hog_trainer_ops *ops = trainer_of(o);
	return ops ? ops->modes : 0;
}

enum hog_model_kind hog_train_kind(const hog_train_opts *o)
{
	const hog_trainer_ops *ops = trainer_of(o);
	return ops ? ops->kind : o->model;
}

enum hog_mode hog_train_default_mode_data(const hog_train_opts *o, int stream, const hog_meta *m)
{
	const hog_trainer_ops *ops = trainer_of(o);
	return ops && ops->default_mode ? ops->default_mode(o, stream, m) : HOG_MODE_LOCKFREE;
}

enum hog_mode hog_train_default_mode_for(const hog_train_opts *o, int stream)
{
	return hog_train_default_mode_data(o, stream, NULL);
}

enum hog_mode hog_train_default_mode(const hog_train_opts *o)
{
	return hog_train_default_mode_for(o, 0);
}

void hog_train_opts_init(hog_train_opts *o)
{
	memset(o, 0, sizeof *o);
	o->model = HOG_MODEL_LINEAR;
	o->mode = HOG_MODE_LOCKFREE;
	o->loss = HOG_LOSS_LOGISTIC;
	o->rule = HOG_RULE_SGD;
	o->sched = HOG_SCHED_BACKOFF;
	o->bind = HOG_BIND_CORE;
	o->epochs = 20;
	o->lr = 0; /* chosen by the model from the data's scale */
	o->backoff = 0.9;
	o->l2 = 1e-6;
	o->adagrad_beta = 1.0;
	o->seed = 1;
	o->round_examples = 1u << 15;
	for (int k = 0; k <= HOG_MODEL_KIND_MAX; k++) { /* each model's own group (hog_linear_opts ...) */
		const hog_trainer_ops *ops = trainer_of_kind((enum hog_model_kind)k);
		if (ops && ops->opts_init)
			ops->opts_init(o);
	}
}

/* What every model shares; the model's check() does the rest (the update
 * modes' own options: eng_check_mode_opts). */
static int check_common(const hog_train_opts *o, const hog_data *tr, hog_err *err)
{
	if (!tr || tr->n == 0 || tr->n >= UINT32_MAX)
		return hog_err_set(err, HOG_EMISMATCH, "data set size out of range (%llu examples)",
		                   tr ? (unsigned long long)tr->n : 0ull);
	if ((unsigned)o->mode >= HOG_MODE_ALL)
		return hog_err_set(err, HOG_ECONFIG, "unknown mode");
	if ((unsigned)o->loss > HOG_LOSS_SOFTMAX || (unsigned)o->rule > HOG_RULE_ADAMW ||
	    (unsigned)o->sched > HOG_SCHED_INVT || (unsigned)o->bind > HOG_BIND_NONE)
		return hog_err_set(err, HOG_ECONFIG, "unknown loss, step rule, schedule or binding");
	if (o->threads < 0 || o->threads > 4096)
		return hog_err_set(err, HOG_ECONFIG, "--threads must be 1..4096 (or 0 for every core), not %d", o->threads);
	if (o->epochs < 1)
		return hog_err_set(err, HOG_ECONFIG, "--epochs must be at least 1, not %d", o->epochs);
	if (!(o->lr >= 0) || !isfinite(o->lr))
		return hog_err_set(err, HOG_ECONFIG, "--lr must be positive, not %g", o->lr);
	if (!(o->backoff > 0 && o->backoff <= 1))
		return hog_err_set(err, HOG_ECONFIG, "--backoff must be in (0, 1], not %g", o->backoff);
	if (!(o->l2 >= 0) || !isfinite(o->l2))
		return hog_err_set(err, HOG_ECONFIG, "--l2 must be zero or positive, not %g", o->l2);
	if (!(o->adagrad_beta > 0))
		return hog_err_set(err, HOG_ECONFIG, "--adagrad-beta must be positive, not %g", o->adagrad_beta);
	return 0;
}

/* hog_train_opts.loss_from_task: the loss of the training set's task (the
 * model's check() refuses what it cannot train, naming the fix). */
static const hog_train_opts *loss_of_task(const hog_train_opts *o, const hog_data *tr, hog_train_opts *buf)
{
	enum hog_task t = tr->meta.task;
	enum hog_loss l = t == HOG_TASK_MULTICLASS ? HOG_LOSS_SOFTMAX
	                : t == HOG_TASK_REGRESSION || t == HOG_TASK_RATINGS ? HOG_LOSS_SQUARED : o->loss;
	if (!o->loss_from_task || t == HOG_TASK_BINARY) /* (the caller may have set l from the set's header) */
		return o;
	*buf = *o;
	buf->loss = l;
	if (o->on_note && t != HOG_TASK_RATINGS) { /* (ratings train mf, whose one loss is squared) */
		char msg[256];
		snprintf(msg, sizeof msg, "loss: %s, for the data set's %s labels (--loss sets another%s)", hog_loss_name(l),
		         hog_task_name(t), t == HOG_TASK_MULTICLASS ? "; labels that are amounts, not classes: import "
		         "the set again with --task regression" : "");
		o->on_note(o->ud, msg);
	}
	return buf;
}

/* hog_train_opts.epochs 0: the epochs of HOG_EPOCHS_VISITS for @p n examples,
 * the schedule stretched over them; backoff 0 (the command line's default):
 * auto's factor whatever --epochs, 0.9^(20 / auto's epochs), about 0.9 per
 * 13,107 examples visited -- 0.9 an epoch on a set of 13,108 examples or more.
 *
 * Why the backoff of auto's count with a given --epochs too: at 0.9 an epoch
 * the step of a small set fell to 2.7e-5 of its start in 100 epochs, before
 * the few hundred steps each took had trained it, so --epochs below auto's
 * count ended far from the default run and more bought nothing. Test log-loss
 * (sklearn's 70/30 splits; 0.9 an epoch / this rule / the default run): UCI
 * wine (124 rows, 1000 auto epochs) --epochs 40 0.536 / 0.286, 100 0.533 /
 * 0.206, 5000 0.533 / 0.119 against 0.125; digits (1257 rows, 209 epochs) 40
 * 0.205 / 0.151, 400 0.204 / 0.124 against 0.126; breast cancer (398 rows) 40
 * 0.139 / 0.095, 100 0.138 / 0.085 against 0.097; diabetes (309 rows, squared
 * loss) 100 1565.2 / 1567.3, 400 1565.2 / 1563.5. Stretching 0.9 over the
 * given epochs instead did as well on the small sets but worse on large ones
 * (a9a at 100 epochs 0.32458 against 0.32419 at 0.9, MovieLens' half MSE 0.398
 * against 0.377, its step higher to the end), where this rule is 0.9. */
int eng_epochs_of_visits(uint64_t n)
{
	const uint64_t want = (HOG_EPOCHS_VISITS + n - 1) / n;
	return want < 20 ? 20 : want > 1000 ? 1000 : (int)want;
}

static const hog_train_opts *epochs_auto(const hog_train_opts *o, uint64_t n, hog_train_opts *buf)
{
	if (!n || (o->epochs && o->backoff != 0))
		return o;
	*buf = *o;
	const int ev = eng_epochs_of_visits(n);
	buf->backoff = pow(o->backoff != 0 ? o->backoff : 0.9, 20.0 / ev);
	if (o->epochs) { /* backoff 0 */
		/* (said where it matters: past 20 epochs, 0.9 an epoch had left less than 0.9^20 of the step) */
		if (o->on_note && !o->resume && ev > 20 && o->epochs > 20 && o->sched == HOG_SCHED_BACKOFF &&
		    o->rule == HOG_RULE_SGD) {
			char msg[200];
			snprintf(msg, sizeof msg, "schedule: backoff %.4g an epoch on a set of %llu examples, the default run's "
			         "over its %d epochs (--backoff sets another)", buf->backoff, (unsigned long long)n, ev);
			o->on_note(o->ud, msg);
		}
		return buf;
	}
	buf->epochs = ev;
	if (buf->t0 <= 0)
		buf->t0 = (double)n * buf->epochs / 20.0;
	if (o->on_note && buf->epochs > 20) {
		char msg[160];
		snprintf(msg, sizeof msg, "epochs: %d, a small set's share of %u example visits (backoff %.4g; --epochs "
		         "sets another)", buf->epochs, HOG_EPOCHS_VISITS, buf->backoff);
		o->on_note(o->ud, msg);
	}
	return buf;
}

/* The options a run trains with, settled: the loss from the set's task, the
 * epochs for its size, the trainer, the common checks and --mode auto's
 * measurement (its reason in @p why). *@p opts is repointed into @p buf. */
int eng_settle_opts(const hog_data *train, const hog_train_opts **opts, hog_train_opts buf[3],
                       const hog_trainer_ops **ops_out, char *why, size_t why_len, hog_err *err)
{
	const hog_train_opts *o = *opts;
	if (train) {
		o = loss_of_task(o, train, &buf[0]);
		o = epochs_auto(o, train->n, &buf[1]);
	}
	const hog_trainer_ops *ops = trainer_of(o);
	if (!ops)
		return hog_err_set(err, HOG_ENOTSUP, "the %s model is not built in this version",
		                   hog_model_kind_name(o->model));
	int rc = check_common(o, train, err);
	if (rc)
		return rc;
	if (o->mode == HOG_MODE_AUTO) {
		hog_topo *tp;
		enum hog_mode m;
		if ((rc = hog_topo_open(&tp, o->topology, err)))
			return rc;
		rc = eng_auto_mode(train, o, ops->modes, hog_topo_cores(tp), &m, why, why_len, err);
		hog_topo_close(tp);
		if (rc)
			return rc;
		buf[2] = *o;
		buf[2].mode = m;
		o = &buf[2];
		if (o->on_note)
			o->on_note(o->ud, why);
	}
	*opts = o;
	*ops_out = ops;
	return 0;
}

/* The step's factor (hog_engine.lr_factor) once the team is set up: --lr-scale's
 * for the team's size, or a trainer's rank step (hog_trainer_ops.rank_step)
 * where the model's default step (@p lr_default: no --lr) runs on several
 * ranks. */
void eng_lr_factor(hog_engine *e, int lr_default)
{
	const hog_trainer_ops *ops = e->ops;
	if (e->o.lr_scale) { /* the whole team's workers: this rank's threads times the ranks (deterministic:
	                        its shards, which do what workers do elsewhere, so that the step is not the threads') */
		double n = e->o.mode == HOG_MODE_DETERMINISTIC ? (double)e->o.shards : (double)e->T * (double)e->ranks;
		e->lr_factor = e->o.lr_scale == HOG_LR_SCALE_LINEAR ? n : sqrt(n);
	}
	/* Every rank trains its share of the examples and the ranks' models are
	 * averaged: each example's step then counts 1/ranks. The linear model's
	 * default step weathers it; mf's SGD did not: MovieLens latest-small (90%,
	 * 20 epochs, one thread a rank) tested at RMSE 0.8562, 0.8667, 0.8780 and
	 * 0.8904 on 2, 4, 8 and 16 ranks against 0.8462 on one process, and at the
	 * step times the ranks 0.8458, 0.8465 and 0.8500 on 2, 4 and 8; on 16, 16
	 * times diverged (as 0.48 does on one process) and 8 times reached 0.8515,
	 * so the factor stops at 8. AdaGrad's steps gained nothing from it (2 ranks:
	 * 0.8575 at its 0.1 against 0.8669 at 0.2; one process 0.8660). */
	if (ops->rank_step && lr_default && !e->o.lr_scale && e->ranks > 1 && e->o.rule == HOG_RULE_SGD) {
		e->lr_factor = e->ranks < 8 ? e->ranks : 8;
		if (e->rank == 0 && e->o.on_note) {
			char msg[200];
			snprintf(msg, sizeof msg, "%d MPI ranks: the default step times %g, %g (the ranks' averaged models take "
			         "each example's step 1/ranks; --lr sets another)", e->ranks, e->lr_factor,
			         e->o.lr * e->lr_factor);
			e->o.on_note(e->o.ud, msg);
		}
	}
}
