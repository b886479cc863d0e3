/* The mlp's options (mlp_opts.h): its own group, hog_train_opts.mlp
 * (--layers, --batch, --momentum, --device), its defaults and its part of the
 * options hash, and the check of every option as the mlp takes it (also for
 * --model linear --loss softmax, which trains as the mlp with no hidden
 * layers), with the default step size. */
#include "train/engine.h"
#include "train/mlp_opts.h"
#include "train/mlp_train.h"
#include "model/mlp.h"
#include "sys/err.h"
#include "sys/hash.h"
#include "sys/names.h"
#include <errno.h>
#include <stdlib.h>

/* hog_train_opts.mlp's defaults (hog_trainer_ops.opts_init): a batch of 32;
 * Adam's constants as Kingma and Ba's paper and PyTorch have them. */
void mlp_opts_init(hog_train_opts *o)
{
	o->mlp.batch = 32;
	o->mlp.adam_beta1 = 0.9;
	o->mlp.adam_beta2 = 0.999;
	o->mlp.adam_eps = 1e-8;
}

static int is_adam(enum hog_rule r)
{
	return r == HOG_RULE_ADAM || r == HOG_RULE_ADAMW;
}

/* hog_train_opts.mlp's part of the options hash (hog_trainer_ops.opts_hash):
 * the layers, the batch and the momentum (as check settled it), and with adam
 * or adamw its constants (only then: the hash of every other run is the one
 * hogwild 0.1 wrote, so that its checkpoints resume); not the device, which a
 * run may change on resume. */
uint64_t mlp_opts_hash(const hog_train_opts *o, uint64_t h)
{
	const hog_mlp_opts *m = &o->mlp;
	int64_t v[] = { m->batch, m->nlayers, (int64_t)(m->momentum * 1e9) };
	h = hog_fnv(h, v, sizeof v);
	h = hog_fnv(h, m->layers, (size_t)(m->nlayers > 0 ? m->nlayers : 0) * sizeof *m->layers);
	if (is_adam(o->rule)) {
		double a[] = { m->adam_beta1, m->adam_beta2, m->adam_eps };
		h = hog_fnv(h, a, sizeof a);
	}
	if (m->lars > 0) {
		double l = m->lars;
		h = hog_fnv(hog_fnv(h, "lars", 4), &l, sizeof l);
	}
	if (m->batch_auto) {
		int64_t b[] = { 1, m->batch_max };
		h = hog_fnv(h, b, sizeof b);
	}
	return h;
}

/* Step size when none is given: softmax regression takes the linear model's
 * 1/(1 + mean |x|^2) of the (scaled: @p sc, may be NULL) inputs for a batch of
 * B, B/(B + mean |x|^2): the step on the batch's mean gradient, each example
 * weighing 1/B in it, goes B times as far (at most 1) before an example's
 * share overshoots as one example's step would (0.006 rather than 0.16 on
 * Fashion-MNIST's pixels underfits: bench/results/accuracy.md); a network with
 * hidden layers 0.05 for sgd (He-initialized ReLU layers, the batch's mean
 * loss), 0.01 for adagrad; adam and adamw 0.001 (Kingma and Ba's, PyTorch's,
 * with or without hidden layers: the step's size does not follow the
 * gradient's scale). */
double mlp_default_lr_of(const hog_train_opts *o, double sq, uint64_t n)
{
	/* (deterministic: a step's batch is --batch of each of the shards) */
	const double B = (double)o->mlp.batch * (o->mode == HOG_MODE_DETERMINISTIC ? o->shards : 1);
	if (is_adam(o->rule))
		return 0.001;
	if (o->mlp.nlayers)
		return o->rule == HOG_RULE_SGD ? 0.05 : 0.01;
	if (o->rule != HOG_RULE_SGD)
		return 0.1;
	return B / (B + sq / (double)(n ? n : 1));
}

static double mlp_default_lr(const hog_train_opts *o, const hog_data *tr, const float *sc, const double *mu)
{
	if (is_adam(o->rule) || o->mlp.nlayers || o->rule != HOG_RULE_SGD) /* (not from the data) */
		return mlp_default_lr_of(o, 0, tr->n);
	return mlp_default_lr_of(o, eng_mean_sq(tr, sc, mu), 1); /* (sq as the mean, n as 1) */
}

int mlp_opts_check(hog_train_opts *o, const hog_data *tr, const hog_data *te, hog_err *err)
{
	int rc = eng_check_mode_opts(o, err);
	if (rc)
		return rc;
	const int linear = o->model == HOG_MODEL_LINEAR;
	const char *who = linear ? "linear model with --loss softmax" : "mlp model";
	if (linear && o->mlp.nlayers)
		return hog_err_set(err, HOG_ECONFIG, "--layers is for --model mlp (the linear model has no hidden layers)");
	if (tr->meta.kind != HOG_KIND_DENSE && tr->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_EMISMATCH, "the %s needs a dense or sparse data set, not %s%s", who,
		                   hog_kind_name(tr->meta.kind),
		                   tr->meta.kind == HOG_KIND_RATINGS ? " (train ratings with --model mf)" : "");
	if (tr->meta.task != HOG_TASK_BINARY && tr->meta.task != HOG_TASK_MULTICLASS)
		return hog_err_set(err, HOG_EMISMATCH, "the %s takes binary or multiclass labels; this data set's task is "
		                   "%s (train it with --model linear --loss squared)", who, hog_task_name(tr->meta.task));
	if (tr->meta.task == HOG_TASK_MULTICLASS && (tr->meta.classes < 2 || tr->meta.classes > 65536))
		return hog_err_set(err, HOG_EMISMATCH, "the data set has %u classes: need 2..65536", tr->meta.classes);
	if (o->loss != HOG_LOSS_LOGISTIC && o->loss != HOG_LOSS_SOFTMAX)
		return hog_err_set(err, HOG_ECONFIG, "--loss %s: the %s trains cross-entropy (logistic for binary labels, "
		                   "softmax)", hog_loss_name(o->loss), who);
	if (te && te->meta.kind != tr->meta.kind)
		return hog_err_set(err, HOG_EMISMATCH, "the test set is %s, the training set %s",
		                   hog_kind_name(te->meta.kind), hog_kind_name(tr->meta.kind));
	if (te && te->meta.task != tr->meta.task)
		return hog_err_set(err, HOG_EMISMATCH, "the test set's task is %s, the training set's %s",
		                   hog_task_name(te->meta.task), hog_task_name(tr->meta.task));
	if (te && (tr->meta.kind == HOG_KIND_DENSE ? te->dim != tr->dim : te->dim > tr->dim))
		return hog_err_set(err, HOG_EMISMATCH, "the test set has %llu %s, the training set %llu",
		                   (unsigned long long)te->dim, tr->meta.kind == HOG_KIND_DENSE ? "columns" : "features",
		                   (unsigned long long)tr->dim);
	if (te && tr->meta.task == HOG_TASK_MULTICLASS && te->meta.classes > tr->meta.classes)
		return hog_err_set(err, HOG_EMISMATCH, "the test set has %u classes, the training set %u",
		                   te->meta.classes, tr->meta.classes);
	if (tr->dim == 0 || tr->dim >= (1u << 31))
		return hog_err_set(err, HOG_EMISMATCH, "data set width out of range (%llu)", (unsigned long long)tr->dim);
	if (o->rule == HOG_RULE_ADAREVISION)
		return hog_err_set(err, HOG_ECONFIG, "the %s takes --optimizer sgd, adagrad, adam or adamw", who);
	if (!(o->mlp.adam_beta1 >= 0 && o->mlp.adam_beta1 < 1) || !(o->mlp.adam_beta2 >= 0 && o->mlp.adam_beta2 < 1))
		return hog_err_set(err, HOG_ECONFIG, "--adam-beta1 and --adam-beta2 must be in [0, 1), not %g and %g",
		                   o->mlp.adam_beta1, o->mlp.adam_beta2);
	if (!(o->mlp.adam_eps > 0 && o->mlp.adam_eps <= 1))
		return hog_err_set(err, HOG_ECONFIG, "--adam-eps must be in (0, 1], not %g", o->mlp.adam_eps);
	if (mlp_momentum_default(o))
		o->mlp.momentum = 0.9; /* (bench/results/accuracy.md: 0.05 alone underfit breast cancer and raw sets) */
	if (!(o->mlp.momentum >= 0 && o->mlp.momentum < 1))
		return hog_err_set(err, HOG_ECONFIG, "--momentum must be in [0, 1), not %g", o->mlp.momentum);
	if (o->mlp.momentum > 0 && o->rule != HOG_RULE_SGD)
		return hog_err_set(err, HOG_ECONFIG, "--momentum goes with --optimizer sgd");
	if (o->delay)
		return hog_err_set(err, HOG_ECONFIG, "--delay is not available for the %s", who);
	if (o->mlp.nlayers < 0 || o->mlp.nlayers > HOG_MLP_MAX_HIDDEN)
		return hog_err_set(err, HOG_ECONFIG, "--layers: at most %d hidden layers", HOG_MLP_MAX_HIDDEN);
	for (int l = 0; l < o->mlp.nlayers; l++)
		if (o->mlp.layers[l] < 1 || o->mlp.layers[l] > HOG_MLP_MAX_WIDTH)
			return hog_err_set(err, HOG_ECONFIG, "--layers: widths must be 1..%u, not %u", HOG_MLP_MAX_WIDTH,
			                   o->mlp.layers[l]);
	if (o->mlp.batch < 1 || o->mlp.batch > 65536)
		return hog_err_set(err, HOG_ECONFIG, "--batch must be 1..65536, not %u", o->mlp.batch);
	if (o->mlp.batch_auto && (o->mlp.batch_max < o->mlp.batch || o->mlp.batch_max > 65536))
		return hog_err_set(err, HOG_ECONFIG, "--batch auto: the bound %u must be %u..65536", o->mlp.batch_max,
		                   o->mlp.batch);
	if (!(o->mlp.lars >= 0 && o->mlp.lars <= 1e3))
		return hog_err_set(err, HOG_ECONFIG, "--lars must be a trust coefficient 0..1000, not %g", o->mlp.lars);
	if (o->mlp.lars > 0 && o->rule != HOG_RULE_SGD)
		return hog_err_set(err, HOG_ECONFIG, "--lars goes with --optimizer sgd (LARS is SGD's layer-wise rule; "
		                   "Adam's is LAMB)");
	if (o->mode == HOG_MODE_DETERMINISTIC && (rc = mlp_det_check(o, tr, err)))
		return rc;
	const int stream = tr->n && !tr->labels; /* (hog_train_stream: the counts, no arrays) */
	if (stream && o->mode == HOG_MODE_DETERMINISTIC)
		return hog_err_set(err, HOG_ECONFIG, "--mode deterministic deals the examples to its shards, which needs "
		                   "them loaded: with --stream, the %s trains in lockfree, buffered, locked or serial mode",
		                   who);
	if (o->mlp.batch_auto && o->resume)
		return hog_err_set(err, HOG_ECONFIG, "--batch auto cannot --resume yet: the batches it grew and its step's "
		                   "factor are not in the checkpoint (resume with --batch set to the last epoch's)");
	hog_backend *b;
	rc = hog_backend_open(&b, o->mlp.device, 0, err); /* a bad device fails here, with its message */
	if (rc)
		return rc;
	hog_backend_close(b);
	if (tr->meta.task == HOG_TASK_MULTICLASS)
		o->loss = HOG_LOSS_SOFTMAX;
	o->model = HOG_MODEL_MLP; /* what the checkpoints and the saved model hold */
	o->centered = 0;
	if (stream) /* (the scales and the default step: mlp_stream_scan, from every block) */
		return 0;
	uint64_t changed = 0, nc = 0;
	double *mu = o->normalize ? eng_feature_centers(tr, &nc) : NULL; /* (as the linear model's: scale.c) */
	float *sc = o->normalize ? eng_feature_scales(tr, o->normalize, &changed, mu) : NULL;
	if (o->normalize && !sc) {
		free(mu);
		return hog_err_set(err, ENOMEM, "out of memory");
	}
	o->centered = (int)(nc < INT32_MAX ? nc : INT32_MAX); /* (auto may settle off: the centers stay) */
	eng_scales_settle(o, changed, tr->dim);
	eng_centered_note(o, nc);
	if (o->lr == 0)
		o->lr = mlp_default_lr(o, tr, sc, mu);
	free(sc);
	free(mu);
	return 0;
}
