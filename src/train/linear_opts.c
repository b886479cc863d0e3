/* The linear model's options (hog_train_opts.linear and the shared ones as it
 * takes them): the entries of its trainer table (linear_train.c) that fill
 * their defaults, hash and check them, pick the default mode and order, and
 * route --loss softmax to the mlp's trainer. */
#include "model/linear.h"
#include "sys/err.h"
#include "sys/hash.h"
#include "sys/names.h"
#include "train/engine.h"
#include "train/linear_train.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hog_train_opts.linear's defaults (hog_trainer_ops.opts_init): --hot chosen
 * from the features' frequencies, 64 coordinates per stripe's lock; --average
 * off (the command line turns it on). */
void lin_opts_init(hog_train_opts *o)
{
	o->linear.hot = -1;
	o->linear.stripes = 64;
}

/* hog_train_opts.linear's part of the options hash (hog_trainer_ops.opts_hash):
 * --hot, --stripe-size, --average, and --l1 when it is on (so that off, the
 * hash of every checkpoint written before it stays). --node-sync is left out,
 * as it always was: a checkpoint resumes on a machine of other NUMA nodes. */
uint64_t lin_opts_hash(const hog_train_opts *o, uint64_t h)
{
	const hog_linear_opts *lo = &o->linear;
	int64_t v[] = { lo->hot, lo->stripes, lo->average };
	h = hog_fnv(h, v, sizeof v);
	return lo->l1 != 0 ? hog_fnv(h, &lo->l1, sizeof lo->l1) : h;
}

int lin_check(hog_train_opts *o, const hog_data *tr, const hog_data *te, hog_err *err)
{
	int rc = eng_check_mode_opts(o, err);
	if (rc)
		return rc;
	const hog_linear_opts *lo = &o->linear;
	if (lo->node_sync < -1)
		return hog_err_set(err, HOG_ECONFIG, "--node-sync must be off (-1) or at least 1, not %d", lo->node_sync);
	if (lo->stripes < 1 || (lo->stripes & (lo->stripes - 1)))
		return hog_err_set(err, HOG_ECONFIG, "--flush-every must be >= 1 and --stripe-size a power of two");
	if (!(lo->l1 >= 0 && lo->l1 <= 1e9)) /* (NaN too) */
		return hog_err_set(err, HOG_ECONFIG, "--l1 must be a number 0..1e9, not %g", lo->l1);
	if (o->rule == HOG_RULE_ADAM || o->rule == HOG_RULE_ADAMW)
		return hog_err_set(err, HOG_ECONFIG, "--optimizer %s is for --model mlp (and --loss softmax); the "
		                   "linear model takes sgd, adagrad or adarevision", hog_rule_name(o->rule));
	if (o->mode == HOG_MODE_DETERMINISTIC && (rc = lin_det_check(o, tr, err)))
		return rc;
	if (lo->l1 > 0 && o->rule == HOG_RULE_ADAREVISION)
		return hog_err_set(err, HOG_ECONFIG, "--l1 takes --optimizer sgd or adagrad, not adarevision "
		                   "(its revisions assume the step without the threshold)");
	if (tr->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_EMISMATCH, "a linear model needs a sparse data set, not %s%s",
		                   hog_kind_name(tr->meta.kind),
		                   tr->meta.kind == HOG_KIND_RATINGS ? " (train ratings with --model mf)"
		                   : " (train dense columns with --loss softmax or logistic, or --model mlp)");
	if (tr->meta.task == HOG_TASK_MULTICLASS)
		return hog_err_set(err, HOG_EMISMATCH, "the linear model takes binary or regression labels, "
		                   "not multiclass (%u classes): train it with --loss softmax (multinomial logistic "
		                   "regression), or --model mlp", tr->meta.classes);
	if (te && te->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_EMISMATCH, "the test set is %s, not sparse", hog_kind_name(te->meta.kind));
	if (te && te->meta.task != tr->meta.task)
		return hog_err_set(err, HOG_EMISMATCH, "the test set's task is %s, the training set's %s",
		                   hog_task_name(te->meta.task), hog_task_name(tr->meta.task));
	/* (a test set's features beyond the training set's score as zero weight:
	 * lin_eval_slice, as liblinear does; the CLI counts them, hog_data_reconcile) */
	if (tr->dim >= UINT32_MAX - 1)
		return hog_err_set(err, HOG_EMISMATCH, "data set dimension out of range (%llu features)",
		                   (unsigned long long)tr->dim);
	if ((o->mode == HOG_MODE_BUFFERED || o->mode == HOG_MODE_REPLICA) &&
	    (o->rule == HOG_RULE_ADAREVISION || o->delay))
		return hog_err_set(err, HOG_ECONFIG, "%s mode supports sgd and adagrad without --delay; "
		                   "use lockfree or atomic for adarevision or --delay", hog_mode_name(o->mode));
	if ((o->loss == HOG_LOSS_LOGISTIC || o->loss == HOG_LOSS_HINGE) && tr->meta.task != HOG_TASK_BINARY)
		return hog_err_set(err, HOG_EMISMATCH, "%s loss needs binary labels; this data set's task is %s: "
		                   "train it with --loss squared (or, if its labels are two classes, import it again "
		                   "with --task binary)", hog_loss_name(o->loss), hog_task_name(tr->meta.task));
	/* the squared loss fits values: labels read as binary (0 and 1, say) would
	 * train as the classes -1 and +1, the explicit model flipped by the task
	 * inferred from them; -1 and +1 are the same either way */
	const hog_meta *lm = &tr->meta;
	if (o->loss == HOG_LOSS_SQUARED && lm->task == HOG_TASK_BINARY &&
	    !(fabs(lm->label_min) == 1 && fabs(lm->label_max) == 1))
		return hog_err_set(err, HOG_EMISMATCH, "the squared loss fits values, and this data set's labels (%g to "
		                   "%g) were read as binary classes, which would train as -1 and +1: to fit their "
		                   "values, import the set again with --task regression; for a classifier, --loss "
		                   "logistic or hinge", lm->label_min, lm->label_max);
	const int stream = tr->nnz && !tr->ids; /* hog_train_stream(): counts, no arrays */
	if (stream && o->delay)
		return hog_err_set(err, HOG_ECONFIG, "--delay holds updates across blocks: not with --stream");
	o->centered = 0;
	if (!stream && o->normalize) { /* (streaming: from the blocks, in setup) */
		uint64_t changed, nc;
		double *mu = eng_feature_centers(tr, &nc); /* (features far from zero next to their spread) */
		float *s = eng_feature_scales(tr, o->normalize, &changed, mu);
		if (!s) {
			free(mu);
			return hog_err_set(err, ENOMEM, "out of memory");
		}
		o->centered = (int)(nc < INT32_MAX ? nc : INT32_MAX);
		eng_scales_settle(o, changed, tr->dim);
		eng_centered_note(o, nc);
		if (o->lr == 0) /* (no scale but 1: the same sum without a scale read a nonzero) */
			o->lr = lin_default_lr(tr, o, changed ? s : NULL, mu);
		free(s);
		free(mu);
	}
	if (o->lr == 0 && !stream)
		o->lr = lin_default_lr(tr, o, NULL, NULL);
	return 0;
}

/* The default mode, from the training set's header @p m where known: replica
 * where the model is narrow -- its flush interval (lin_replica_width_flush: 16
 * times the model's width in nonzeros) within 16384 examples --, else
 * buffered. Replica's loop shares nothing between flushes: at 2 threads on the
 * four narrow sets of bench/results/scaling.md (Xeon, 60-70 ns cache line) it
 * runs 2.2-2.5x serial against buffered's 1.36-1.81x, at 16 threads on the
 * RCV1-shaped set 9.1x against 5.1x (scaling-h200-16c-6edca5b.md), and where a cache
 * line costs 247 ns 2.9x against 0.91x (deterministic.md: buffered's cold
 * writes move lines). On the 2 M-feature set buffered runs 2.43x, replica 1.67x
 * (its flushes sweep more). Replica was not the default because it ended a9a
 * 0.3-0.6% above serial's test loss at its quarter-epoch flush interval; a
 * narrow model's replicas now flush every few hundred examples (a9a: 256),
 * within 0.11% of serial's after 5, 10 and 20 epochs (3 seeds), and the
 * RCV1-shaped and Zipf sets within 0.04% after 20. Neither takes adarevision
 * nor --delay: those runs keep lockfree. Without @p m: buffered. (--mode auto
 * measures instead, at the price of probing every mode, 3 x 2 short epochs
 * each.) The model's width here is its features, whatever the step rule:
 * with AdaGrad's two floats a feature counted, the RCV1-shaped and Zipf sets
 * (47,236 features, 71-74 nonzeros a row) and a 70,000-feature one fell on
 * buffered's side, where replica runs 1.4-2.8x buffered at 2 threads; its test
 * loss there is 0.14-0.94% below serial's, but on the Zipf set 0.24-0.28%
 * above after 5 epochs (0.12-0.14% after 20; bench/results/
 * default-mode-adagrad.md). */
enum hog_mode lin_default_mode(const hog_train_opts *o, int stream, const hog_meta *m)
{
	(void)stream; /* (every mode streams) */
	if (o->rule == HOG_RULE_ADAREVISION || o->delay)
		return HOG_MODE_LOCKFREE;
	if (m && m->kind == HOG_KIND_SPARSE && m->examples &&
	    lin_replica_width_flush((double)(m->features + 1), (double)m->nnz / (double)m->examples) <= 16384)
		return HOG_MODE_REPLICA;
	return HOG_MODE_BUFFERED;
}

/* The default order: chunks of HOG_SHUFFLE_CHUNK_DEFAULT shard rows where the
 * shards are in memory and the model averaged (the last iterate ends worse in
 * chunks: bench/results/order.md), else the row shuffle. */
uint32_t lin_default_chunk(const hog_train_opts *o, int stream)
{
	return !stream && o->linear.average ? HOG_SHUFFLE_CHUNK_DEFAULT : 1;
}

/* Multinomial logistic regression (--loss softmax) is the mlp with no hidden
 * layers: its trainer runs it (mlp_opts_check makes the run's model kind mlp). */
const hog_trainer_ops *lin_route(const hog_train_opts *o)
{
	return o->loss == HOG_LOSS_SOFTMAX ? &hog_mlp_trainer : &hog_linear_trainer;
}
