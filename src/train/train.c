/* hog_train(): the engine every model trains on (engine.h) -- the worker team,
 * epochs of rounds, evaluation, checkpoints and resume.
 *
 * Before the threads start, the model's check() and setup() build its shared
 * parameters. In the parallel region each worker binds itself (hwloc), builds
 * its shard on its own NUMA node (the model's worker_init; first touch places
 * it), and then runs epochs of rounds. Between rounds the team meets at a
 * barrier (sync.h) and thread 0 checks for a stop request, divergence and a due
 * checkpoint, and reports progress. After each epoch the team evaluates the
 * test set together and thread 0 reports the epoch.
 *
 * The visiting order of epoch e in worker k is seeded by (seed, e, k), so a
 * serial run is bit-reproducible and a run resumed from a checkpoint continues
 * exactly where it stopped.
 *
 * Several MPI ranks (sys/mpi.h; one rank when MPI is not started) train data
 * parallel: each rank its own slice of the examples (eng_worker_share) with
 * its own team. Every round ends in an averaging of the ranks' models, done by
 * thread 0 between rounds while the team waits (rounds are sized so that one
 * holds --sync-every examples of a rank), after the ranks have shared their
 * stop, divergence and error flags, so that all of them take the same path and
 * meet in the same collectives. Rank 0 alone reports and writes checkpoints.
 *
 * Three ways in, one engine: hog_train() reads a loaded set (models copy their
 * shards from it); hog_train_consume() hands the set over, so a model may train
 * on it in place (one copy in memory, e->own); hog_train_stream() gives the
 * store's blocks instead (e->store, models with .streams).
 */
#include "kinds.h"
#include "train/engine.h"
#include "sys/err.h"
#include "sys/mpi.h"
#include "sys/names.h"
#include <errno.h>
#include <stdio.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void eng_model_hyper(const hog_engine *e, hog_model *m)
{
	m->sched = e->o.sched;
	m->lr = e->o.lr;
	m->l2 = e->o.l2;
	m->beta = e->o.adagrad_beta;
	m->backoff = e->o.backoff;
	m->t0 = e->o.t0;
	m->warmup = e->o.warmup;
	m->seed = e->o.seed;
	m->epochs_done = e->epochs_done;
	m->t = (uint64_t)e->epochs_done * e->tr->n;
	/* the training set's task, id maps and column names, which a test set is
	 * matched against later (hog_model_prepare); out of memory leaves them out,
	 * and the model is still right for sets numbered as its training set */
	hog_model_set_origin(m, e->tr);
}

/* ------------------------------------------------------------ the team */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void team_fail(hog_engine *e, int rc, const char *what);


/* Thread 0 after an epoch, o.test_eval: the caller's held-out set evaluated
 * on the model as it stands (what early_check keeps: the --average model
 * where there is one), its figures the epoch's test figures. */
static void held_eval(hog_engine *e, hog_epoch_stats *s)
{
	hog_model_free(e->held);
	e->held = e->ops->result ? e->ops->result(e) : e->ops->snapshot(e);
	if (!e->held) {
		team_fail(e, ENOMEM, "evaluating the test set");
		return;
	}
	eng_model_hyper(e, e->held);
	hog_eval ev;
	int rc = e->o.test_eval(e->o.ud, e->held, &ev, &e->werr);
	if (rc) {
		if (!e->werr.code)
			hog_err_set(&e->werr, rc, "evaluating the test set: %s", hog_strerror(rc));
		atomic_store(&e->action, 3);
		return;
	}
	s->test_loss = ev.loss;
	s->test_acc = ev.accuracy;
	s->test_auc = ev.auc;
	s->test_rmse = ev.rmse;
	s->test_mae = ev.mae;
}

static void delay_stats(hog_engine *e, hog_epoch_stats *s)
{
	uint64_t total = 0;
	for (int k = 0; k < e->T; k++)
		total += e->w[k]->ndsamples;
	s->delay_samples = total;
	s->delay_mean = s->delay_p99 = s->delay_max = NAN;
	if (!total)
		return;
	uint64_t *all = malloc(total * sizeof *all);
	if (!all)
		return;
	uint64_t at = 0;
	double sum = 0;
	for (int k = 0; k < e->T; k++) {
		memcpy(all + at, e->w[k]->dsamples, e->w[k]->ndsamples * sizeof *all);
		at += e->w[k]->ndsamples;
		e->w[k]->ndsamples = 0;
	}
	qsort(all, total, sizeof *all, cmp_u64);
	for (uint64_t i = 0; i < total; i++)
		sum += (double)all[i];
	s->delay_mean = sum / total;
	s->delay_p99 = (double)all[(uint64_t)(0.99 * (total - 1))];
	s->delay_max = (double)all[total - 1];
	free(all);
}

static void progress(hog_engine *e, int epoch, double t_epoch)
{
	if (!e->o.on_progress || e->rank)
		return;
	hog_progress p = { .epoch = epoch + 1, .epochs = e->o.epochs, .total = e->tr->n,
	                   .seconds = eng_now() - t_epoch };
	double loss = 0, wdone = 0;
	for (int k = 0; k < e->T; k++) {
		p.done += e->w[k]->ex_done;
		loss += e->w[k]->loss;
		wdone += e->w[k]->wdone;
	}
	const double den = eng_loss_denominator(e, (double)p.done, wdone);
	p.done *= (uint64_t)e->ranks; /* rank 0's view: the others are about as far */
	p.train_loss = den > 0 ? loss / den : NAN;
	p.lr = eng_lr_at(e, epoch, (uint64_t)epoch * e->tr->n + p.done);
	e->o.on_progress(e->o.ud, &p);
}

static void team_fail(hog_engine *e, int rc, const char *what)
{
#pragma omp critical(hog_team_fail)
	if (!e->werr.code) {
		if (rc == HOG_EMISMATCH || rc == HOG_ECORRUPT)
			hog_err_set(&e->werr, rc, "%s", what);
		else
			hog_err_set(&e->werr, rc, "%s: %s", what, hog_strerror(rc));
	}
	atomic_store(&e->action, 3);
}

void eng_fail(hog_engine *e, int rc, const char *msg)
{
	team_fail(e, rc, msg);
}

/* Thread 0 after the last round of an epoch: the epoch's figures. */
static void epoch_report(hog_engine *e, int ep, double spent)
{
	double wdone = 0;
	hog_epoch_stats s = { .epoch = ep + 1, .epochs = e->o.epochs, .threads = e->T, .mode = e->o.mode, .seconds = spent };
	for (int q = 0; q < e->T; q++) {
		s.examples += e->w[q]->ex_done;
		s.nnz += e->w[q]->units_done;
		s.train_loss += e->w[q]->loss;
		wdone += e->w[q]->wdone;
	}
	if (e->ranks > 1) { /* the job's figures: every rank's examples and loss */
		double t[] = { (double)s.examples, (double)s.nnz, s.train_loss, wdone };
		int rc = hog_mpi_sum_f64(t, 4, &e->werr);
		if (rc)
			atomic_store(&e->action, 3);
		s.examples = (uint64_t)t[0];
		s.nnz = (uint64_t)t[1];
		s.train_loss = t[2];
		wdone = t[3];
	}
	e->elapsed += spent;
	e->epochs_done = ep + 1;
	s.elapsed = e->elapsed;
	const double den = eng_loss_denominator(e, (double)s.examples, wdone);
	s.train_loss /= den > 0 ? den : 1.0;
	s.bias_lost = NAN;
	s.ex_per_s = spent > 0 ? s.examples / spent : 0;
	s.nnz_per_s_per_thread = spent > 0 ? s.nnz / spent / e->T / e->ranks : 0;
	s.lr = eng_lr_at(e, ep, (uint64_t)(ep + 1) * e->tr->n - 1);
	s.test_loss = s.test_acc = s.test_auc = s.test_rmse = s.test_mae = NAN;
	s.loss = e->o.loss;
	s.unit = e->ops->unit ? e->ops->unit : "units";
	s.nonzeros = -1; /* (the linear model counts its own) */
	s.noise_scale = NAN; /* (the mlp measures its own, with its batch) */
	s.syncs = e->cmp ? e->cmp->syncs : 0;
	s.sync_bytes = e->cmp ? e->cmp->bytes : 0;
	/* the job's loss (every rank alike): a diverged epoch is reported, and no
	 * checkpoint is written of it */
	eng_check_diverged(e, ep, s.train_loss, 1);
	e->ops->epoch_stats(e, &s);
	if (e->o.test_eval)
		held_eval(e, &s);
	delay_stats(e, &s);
	s.wall = eng_now() - e->t_begin;
	e->last = s;
	if (e->o.on_epoch && e->rank == 0)
		e->o.on_epoch(e->o.ud, &s);
}

/* Thread 0, MPI: every rank takes the gravest action any rank wants (error >
 * diverged > stop > go on), so all of them stay in step; a rank that learns of
 * another's trouble says so. *due (when not NULL): a checkpoint is due on some
 * rank (rank 0's clock decides), so that every rank takes part in it. */
static void share_action(hog_engine *e, int *due)
{
	int mine = atomic_load(&e->action), all[2] = { mine, due ? *due : 0 };
	if (hog_mpi_max_int(all, 2, &e->werr)) {
		atomic_store(&e->action, 3);
		return;
	}
	if (due)
		*due = all[1];
	if (all[0] > mine && !e->werr.code)
		hog_err_set(&e->werr, all[0] == 2 ? HOG_EDIVERGED : HOG_EMPI, "%s",
		            all[0] == 2 ? "training diverged on another rank (its message says where)"
		                        : "another rank failed; its own message says why");
	atomic_store(&e->action, all[0]);
}

/* Thread 0 between two rounds: divergence, stop, the ranks' average (MPI), a
 * due checkpoint, progress. */
static void between_rounds(hog_engine *e, int ep, int last_round, double t_epoch)
{
	int rc;
	double loss = 0, ex = 0;
	for (int q = 0; q < e->T; q++) {
		loss += e->w[q]->loss;
		ex += eng_loss_denominator(e, (double)e->w[q]->ex_done, e->w[q]->wdone);
	}
	const float probe = e->ops->probe(e);
	double t[2] = { loss, ex }; /* the job's loss so far: every rank decides alike */
	if (e->ranks > 1 && hog_mpi_sum_f64(t, 2, &e->werr))
		atomic_store(&e->action, 3);
	if (eng_check_diverged(e, ep, !isfinite(probe) ? probe : t[1] > 0 ? t[0] / t[1] : t[0], 0)) {
		/* diverged: said */
	} else if (eng_stop_requested(e)) {
		atomic_store(&e->action, 1);
	}
	int due = e->o.checkpoint_every > 0 && !last_round && e->rank == 0 &&
	          !(e->ops->holds_updates && e->ops->holds_updates(e)) &&
	          !(e->ops->epoch_end_only && e->ops->epoch_end_only(e)) && eng_now() - e->last_ckpt >= e->o.checkpoint_every;
	if (e->ranks > 1) {
		share_action(e, &due);
		if (atomic_load(&e->action) == 0 && (rc = eng_average_models(e)))
			atomic_store(&e->action, 3);
	}
	if (!atomic_load(&e->action) && due) {
		/* (a model that holds updates between rounds, linear's --delay queues:
		 * checkpoints only at epoch ends) */
		if ((rc = eng_write_checkpoint(e, 1)))
			eng_ckpt_failed(e, rc);
	}
	progress(e, ep, t_epoch);
}

/* Thread 0 after epoch @p ep was reported (early_stop): the model of a new best
 * test loss is kept; once the loss has not improved for early_stop epochs the
 * run ends there (action 4, a finished run). A loss must beat the best by a
 * part in 10^6 to count, so that a plateau read to the last digit ends too. */
static void early_check(hog_engine *e, int ep)
{
	const double loss = e->last.test_loss;
	if (isfinite(loss) && (e->best_epoch < 0 || loss < e->best_loss - 1e-6 * fabs(e->best_loss))) {
		hog_model *m = e->held ? e->held : e->ops->result ? e->ops->result(e) : e->ops->snapshot(e);
		e->held = NULL; /* (the evaluated model: taken) */
		if (!m) {
			team_fail(e, ENOMEM, "keeping the best epoch's model");
			return;
		}
		eng_model_hyper(e, m);
		hog_model_free(e->best);
		e->best = m;
		e->best_loss = loss;
		e->best_epoch = ep;
	} else if (ep - e->best_epoch >= e->o.early_stop && ep + 1 < e->o.epochs) {
		atomic_store(&e->action, 4);
	}
}

static void run_team(hog_engine *e)
{
	const int k = omp_get_thread_num();
	const hog_trainer_ops *ops = e->ops;
	eng_worker *w = e->w[k];
	hog_err berr;
	int rc = hog_topo_bind_self(e->topo, &e->plan[k], e->o.bind, &berr);
	(void)rc; /* a container may refuse binding: run unbound rather than fail */
	if ((rc = ops->worker_init(e, w)))
		team_fail(e, rc, "setting up a worker");
	else if (e->o.shuffle_chunk > 1 && !e->o.no_shuffle &&
	         !(w->chunks = malloc((eng_chunk_count(w->n, e->o.shuffle_chunk) + 1) * sizeof *w->chunks)))
		team_fail(e, ENOMEM, "ordering the epochs in chunks");
	else if (e->ranks > 1 && e->start_pos[k] > w->n) /* rank 0's positions: shares differ by one */
		e->start_pos[k] = w->n;
	else if (e->start_pos[k] > w->n)
		team_fail(e, HOG_ECORRUPT, "the checkpoint puts a worker past the end of its share of the examples "
		                           "(damaged checkpoint?)");
	hog_barrier_wait(&e->bar);
	const uint64_t R = e->o.round_examples;
	if (k == 0) {
		uint64_t nmax = 0;
		for (int q = 0; q < e->T; q++)
			nmax = e->w[q]->n > nmax ? e->w[q]->n : nmax;
		e->rounds = (nmax + R - 1) / R;
		if (e->ranks > 1) { /* every rank goes through as many rounds (collectives) */
			uint64_t lo, hi;
			share_action(e, NULL);
			if (hog_mpi_minmax_u64(&e->rounds, &lo, &hi, 1, &e->werr))
				atomic_store(&e->action, 3);
			e->rounds = hi;
		}
		e->t_begin = eng_now();
	}
	hog_barrier_wait(&e->bar);
	if (atomic_load(&e->action))
		return;
	const eng_round_fn fn = ops->round(e);
	const uint64_t rounds = e->rounds;
	for (int ep = e->start_epoch; ep < e->o.epochs; ep++) {
		if (!e->store && w->order) /* (streamed: eng_stream draws a block's order as it comes; none: a
		                              model whose rounds read no order, mf's grid) */
			eng_epoch_order(&e->o, w->order, w->rows, w->n, ep, k, w->chunks);
		w->pos = ep == e->start_epoch ? e->start_pos[k] : 0;
		w->ex_done = w->units_done = 0;
		w->loss = w->wdone = 0;
		if (ops->epoch_begin)
			ops->epoch_begin(e, w, ep);
		/* every worker has finished the previous epoch (the barrier at its end):
		 * thread 0 sees the model before anyone starts this one */
		if (k == 0 && ops->epoch_started)
			ops->epoch_started(e, ep);
		hog_barrier_wait(&e->bar);
		double t_epoch = eng_now(), spent = 0;
		int act = 0;
		for (uint64_t r = 0; r < rounds && !act; r++) {
			double t_round = eng_now();
			uint64_t to = (r + 1) * R < w->n ? (r + 1) * R : w->n;
			if (w->pos < to)
				w->pos = fn(e, w, ep, w->pos, to);
			if (ops->round_end)
				ops->round_end(e, w, ep, r + 1 == rounds);
			hog_barrier_wait(&e->bar);
			if (ops->round_share && ops->round_share(e, w, ep))
				hog_barrier_wait(&e->bar);
			if (k == 0) {
				double synced = e->sync_seconds;
				if (ops->round_merge)
					ops->round_merge(e, ep);
				spent += eng_now() - t_round;
				between_rounds(e, ep, r + 1 == rounds, t_epoch);
				spent += e->sync_seconds - synced; /* the ranks' averaging is training time */
			}
			hog_barrier_wait(&e->bar);
			act = atomic_load(&e->action);
		}
		if (act == 1) { /* stopped: write back what workers hold, then the checkpoint */
			if (ops->stop)
				ops->stop(e, w, ep);
			hog_barrier_wait(&e->bar);
			if (k == 0 && e->ranks > 1 && eng_average_models(e)) /* what the checkpoint holds */
				return;
			if (k == 0 && e->o.checkpoint && ops->epoch_end_only && ops->epoch_end_only(e))
				return; /* (the previous epoch's end's stays: a resume runs this epoch again, exactly) */
			if (k == 0 && (rc = eng_write_checkpoint(e, 1)))
				team_fail(e, rc, "writing a checkpoint");
			return;
		}
		if (act)
			return;
		if (e->te && ops->eval_slice)
			ops->eval_slice(e, k);
		hog_barrier_wait(&e->bar);
		if (k == 0) {
			epoch_report(e, ep, spent);
			if (e->o.checkpoint && !atomic_load(&e->action) && (rc = eng_write_checkpoint(e, 0)))
				eng_ckpt_failed(e, rc);
			if (e->o.early_stop && !atomic_load(&e->action))
				early_check(e, ep);
		}
		hog_barrier_wait(&e->bar);
		if (atomic_load(&e->action))
			return;
	}
}

/* ------------------------------------------------------------ hog_train */

/* MPI: every rank checks that all of them train the same data set with the
 * same options from the same checkpoint, and refuses to start otherwise (a
 * rank that failed on its own, @p rc, makes the others stop with it). */
static int ranks_agree(hog_engine *e, int rc)
{
	uint64_t v[] = { rc != 0, e->data_hash, eng_run_hash(e), (uint64_t)e->start_epoch }, lo[4], hi[4];
	int mrc = hog_mpi_minmax_u64(v, lo, hi, 4, e->err);
	if (rc || mrc)
		return rc ? rc : mrc;
	if (hi[0])
		return hog_err_set(e->err, HOG_EMPI, "another rank could not start; its own message says why");
	if (lo[1] != hi[1])
		return hog_err_set(e->err, HOG_EMISMATCH, "the ranks opened different training sets (rank %d: %llu "
		                   "examples): give every rank the same --data", e->rank, (unsigned long long)e->tr->n);
	if (lo[2] != hi[2])
		return hog_err_set(e->err, HOG_ECONFIG, "the ranks were given different training options: start "
		                   "every rank with the same command line");
	if (lo[3] != hi[3])
		return hog_err_set(e->err, HOG_EMISMATCH, "the ranks resumed from different checkpoints (rank %d is "
		                   "at epoch %d): give every rank the same --resume file", e->rank, e->start_epoch);
	return 0;
}

/* The model a run hands back after it ended with @p rc (any but HOG_EDIVERGED,
 * or that with keep_diverged): the result or snapshot, whole on rank 0 (gather,
 * after a finished, stopped or kept run) and averaged over the ranks; a
 * diverged one only when every parameter is finite. Returns @p rc or the
 * error that came up. */
static int hand_back(hog_engine *e, int rc, hog_model **model_out, hog_err *err)
{
	const hog_trainer_ops *ops = e->ops;
	const int keep = rc == HOG_EDIVERGED;
	/* rank 0 gets what the ranks kept for themselves (the action was shared:
	 * every rank is here with the same rc) */
	int grc = 0;
	/* --compress: the ranks' models differ by their residuals; one whole
	 * averaging makes them the mean (not counted in the bytes per sync) */
	if (e->ranks > 1 && e->cmp && e->cmp->scheme && (rc == 0 || rc == HOG_EINTR || keep) &&
	    (grc = eng_average_finish(e))) {
		hog_err_set(err, grc, "%s", e->werr.msg);
		return grc;
	}
	if (e->ranks > 1 && ops->gather && (rc == 0 || rc == HOG_EINTR || keep) && (grc = ops->gather(e))) {
		hog_err_set(err, grc, "%s", e->werr.msg);
		rc = grc;
	}
	if (!rc && e->best) { /* early stopping: the best epoch's model (one rank) */
		*model_out = e->best;
		e->best = NULL;
		return rc;
	}
	int averaged = !rc && ops->result; /* (the same on every rank: the action is shared) */
	hog_model_free(e->held); /* (the last held-out evaluation's copy: not the model in memory a third time) */
	e->held = NULL;
	if (e->own) { /* hog_train_consume(): training is over and the set is the run's to free; its arrays go
	                 before the model is copied out, so that the end holds the data or the copy, not both
	                 (the meta data and id maps stay: a model's origin is read from them) */
		hog_data *d = e->own;
		float **fa[] = { &d->labels, &d->vals, &d->ratings, &d->weights, &d->x };
		uint32_t **ua[] = { &d->ids, &d->users, &d->items };
		for (size_t k = 0; k < sizeof fa / sizeof *fa; k++) {
			free(*fa[k]);
			*fa[k] = NULL;
		}
		for (size_t k = 0; k < sizeof ua / sizeof *ua; k++) {
			free(*ua[k]);
			*ua[k] = NULL;
		}
		free(d->offsets);
		d->offsets = NULL;
		free(e->wts);
		e->wts = NULL;
	}
	if ((*model_out = averaged ? ops->result(e) : ops->snapshot(e)))
		eng_model_hyper(e, *model_out);
	else if (!rc)
		rc = hog_err_set(err, ENOMEM, "out of memory");
	/* the state the ranks share was averaged at every sync; a model of its
	 * own (linear --average: each rank's average of its iterates) is
	 * averaged over the ranks here, once. Every rank takes part. */
	if (averaged && e->ranks > 1 && *model_out &&
	    !(rc = hog_mpi_sum_f32((*model_out)->params, (*model_out)->nparams, err)))
		for (uint64_t i = 0; i < (*model_out)->nparams; i++)
			(*model_out)->params[i] /= (float)e->ranks;
	if (keep && *model_out && !eng_model_finite(*model_out)) { /* (a file nothing could load) */
		hog_model_free(*model_out);
		*model_out = NULL;
	}
	return rc;
}

/* The team's places and workers: the threads (--threads, or every core of this
 * rank's part of the machine), their plan on the topology, and each worker's
 * engine part. */
static int team_setup(hog_engine *e, const hog_train_opts *opts, hog_err *err)
{
	int rc;
	if ((rc = hog_topo_open(&e->topo, opts->topology, err)))
		return rc;
	/* Ranks sharing a machine share its cores: the plan is made for all their
	 * workers and each rank takes its part (hwloc sees the whole machine
	 * whatever mpirun bound the process to); --threads 0 is every core of the
	 * rank's part. */
	int lrank, lsize;
	hog_mpi_local(&lrank, &lsize);
	e->T = opts->mode == HOG_MODE_SERIAL ? 1 : opts->threads ? opts->threads : hog_topo_cores(e->topo) / lsize;
	if (e->T < 1)
		e->T = 1;
	if ((uint64_t)e->T * (uint64_t)e->ranks > e->tr->n)
		e->T = (int)(e->tr->n / (uint64_t)e->ranks) > 0 ? (int)(e->tr->n / (uint64_t)e->ranks) : 1;
	if (e->o.sync_every) /* a round holds sync_every examples of the rank: one averaging each */
		e->o.round_examples = (uint32_t)((e->o.sync_every + (uint64_t)e->T - 1) / (uint64_t)e->T);
	if (!(e->plan = calloc(e->T, sizeof *e->plan)) || !(e->w = calloc(e->T, sizeof *e->w)) ||
	    !(e->start_pos = calloc(e->T, sizeof *e->start_pos))) {
		rc = hog_err_set(err, ENOMEM, "out of memory");
		return rc;
	}
	if (lsize > 1) {
		hog_place *all = calloc((size_t)e->T * lsize, sizeof *all);
		if (!all) {
			rc = hog_err_set(err, ENOMEM, "out of memory");
			return rc;
		}
		if ((rc = hog_topo_plan(e->topo, e->T * lsize, opts->bind, all, NULL, err))) {
			free(all);
			return rc;
		}
		memcpy(e->plan, all + (size_t)lrank * e->T, e->T * sizeof *all);
		free(all);
	} else {
		int over = 0;
		if ((rc = hog_topo_plan(e->topo, e->T, opts->bind, e->plan, &over, err)))
			return rc;
		if (over && e->T > 1 && e->o.on_note) { /* (topo says it; train was silent) */
			char msg[200];
			snprintf(msg, sizeof msg, "--threads %d on %d CPUs: oversubscribed, the workers take turns on them "
			         "(the racing modes slow down most; deterministic mode trains the same model)", e->T,
			         hog_topo_pus(e->topo));
			e->o.on_note(e->o.ud, msg);
		}
	}
	for (int k = 0; k < e->T; k++) {
		if (!(e->w[k] = aligned_alloc(64, sizeof(eng_worker)))) {
			rc = hog_err_set(err, ENOMEM, "out of memory");
			return rc;
		}
		memset(e->w[k], 0, sizeof(eng_worker));
		e->w[k]->id = k;
		atomic_init(&e->w[k]->applied, 0);
		if (!(e->w[k]->dsamples = malloc(HOG_DELAY_SAMPLES_MAX * sizeof *e->w[k]->dsamples))) {
			rc = hog_err_set(err, ENOMEM, "out of memory");
			return rc;
		}
	}
	return 0;
}

/* Runs the team to the end of the run (or its stop) and turns how it ended
 * into the run's code. */
static int team_run(hog_engine *e, const hog_train_opts *opts, hog_err *err)
{
	int rc = 0;
	hog_barrier_init(&e->bar, (unsigned)e->T);
	atomic_init(&e->action, 0);
	e->last_ckpt = eng_now();
	omp_set_dynamic(0);
	/* Release everything set up so far to the workers, and acquire what they did
	 * when they are done: libgomp's own fork and join are futexes that
	 * ThreadSanitizer cannot see, these atomics it can. */
	atomic_init(&e->gone, 0);
	atomic_init(&e->short_team, 0);
	atomic_store_explicit(&e->go, 1, memory_order_release);
#pragma omp parallel num_threads(e->T)
	{
		(void)atomic_load_explicit(&e->go, memory_order_acquire);
		if (omp_get_num_threads() == e->T)
			run_team(e);
		else if (omp_get_thread_num() == 0)
			atomic_store(&e->short_team, omp_get_num_threads());
		atomic_fetch_add_explicit(&e->gone, 1, memory_order_release);
	}
	(void)atomic_load_explicit(&e->gone, memory_order_acquire);
	if (atomic_load(&e->short_team)) {
		return hog_err_set(err, EAGAIN, "asked for %d threads, OpenMP gave %d", e->T, atomic_load(&e->short_team));
	}
	/* (the stop wrote none inside an epoch_end_only epoch: the last one stays) */
	const int kept = opts->checkpoint && e->ops->epoch_end_only && e->ops->epoch_end_only(e);
	switch (atomic_load(&e->action)) {
	case 1:
		rc = hog_err_set(err, HOG_EINTR, "stopped in epoch %d%s%s%s", e->epochs_done + 1,
		                 !opts->checkpoint ? "" : kept ? "; the checkpoint " : "; checkpoint written to ",
		                 opts->checkpoint ? opts->checkpoint : "", kept ? " stays at the previous epoch's end (this "
		                 "epoch's average, the model handed back, is in no checkpoint: a resume runs it again)" : "");
		break;
	case 2:
	case 3:
		rc = e->werr.code ? e->werr.code : HOG_EDATA;
		hog_err_set(err, rc, "%s", e->werr.msg);
		break;
	case 4: /* early stop: finished */
		break;
	}
	return rc;
}

static void engine_free(hog_engine *e)
{
	const hog_trainer_ops *ops = e->ops;
	if (e->w) {
		for (int k = 0; k < e->T; k++)
			if (e->w[k]) {
				if (e->model)
					ops->worker_free(e, e->w[k]);
				free(e->w[k]->dsamples);
				free(e->w[k]->chunks);
				free(e->w[k]);
			}
	}
	if (e->model)
		ops->free(e);
	hog_model_free(e->best);
	hog_model_free(e->held);
	free(e->w);
	free(e->plan);
	free(e->start_pos);
	free(e->cw);
	free(e->wts);
	hog_topo_close(e->topo);
	if (e->cmp)
		cmp_free(e->cmp);
	free(e->cmp);
	free(e);
}

static int train_run(const hog_data *train, hog_data *own, hog_store *store, const hog_data *test,
                     const hog_train_opts *opts, hog_model **model_out, hog_train_result *res, hog_err *err)
{
	if (model_out)
		*model_out = NULL;
	if (res)
		memset(res, 0, sizeof *res);
	hog_train_opts buf[3];
	char why[sizeof res->mode_why] = "";
	const hog_trainer_ops *ops = NULL;
	const int backoff_ours = opts->backoff == 0 || opts->epochs == 0;
	int rc = eng_settle_opts(train, &opts, buf, &ops, why, sizeof why, err);
	if (rc)
		return rc;
	if (!(ops->modes >> opts->mode & 1u))
		return hog_err_set(err, HOG_ECONFIG, "%s mode is not available for the %s model", hog_mode_name(opts->mode),
		                   hog_model_kind_name(ops->kind));
	if (store && !ops->streams)
		return hog_err_set(err, HOG_ENOTSUP, "the %s model cannot train from a stream of blocks (--stream)",
		                   hog_model_kind_name(opts->model));
	hog_engine *e = calloc(1, sizeof *e);
	if (!e)
		return hog_err_set(err, ENOMEM, "out of memory");
	e->o = *opts;
	e->ops = ops;
	e->backoff_ours = backoff_ours;
	if (!e->o.shuffle_chunk) { /* the model's default order */
		e->chunk_default = 1;
		e->o.shuffle_chunk = ops->default_chunk ? ops->default_chunk(&e->o, store != NULL) : 1;
	}
	e->tr = train;
	e->own = own;
	e->store = store;
	e->te = test;
	e->err = err;
	const int lr_default = e->o.lr == 0; /* (the model's default step: rank_step) */
	if ((rc = ops->check(&e->o, train, test, err))) {
		free(e);
		return rc;
	}
	if (e->o.t0 <= 0)
		e->o.t0 = (double)train->n;
	if (!e->o.round_examples)
		e->o.round_examples = 1u << 15;
	e->rank = hog_mpi_rank();
	e->ranks = hog_mpi_size();
	if (e->o.early_stop && (!eng_has_test(e) || e->ranks > 1)) {
		rc = hog_err_set(err, HOG_ECONFIG, "early stopping needs %s", !eng_has_test(e) ? "a test (validation) set to watch"
		                 : "one MPI rank (several are not supported yet)");
		free(e);
		return rc;
	}
	if (e->o.test_eval && (test || e->ranks > 1)) {
		rc = hog_err_set(err, test ? HOG_ECONFIG : HOG_ENOTSUP, "%s", test
		                 ? "a test set in memory and one evaluated by the caller (test_eval): give one"
		                 : "a test set read a chunk at a time needs one MPI rank (several are not supported yet)");
		free(e);
		return rc;
	}
	if (e->ranks > 1 && !ops->shared_params) {
		rc = hog_err_set(err, HOG_ENOTSUP, "the %s model cannot train on several MPI ranks yet",
		                 hog_model_kind_name(ops->kind));
		free(e);
		return rc;
	}
	if ((rc = eng_weights_setup(e))) {
		free(e->cw);
		free(e->wts);
		free(e);
		return rc;
	}
	if ((unsigned)e->o.lr_scale > HOG_LR_SCALE_SQRT) {
		rc = hog_err_set(err, HOG_ECONFIG, "unknown --lr-scale");
		free(e);
		return rc;
	}
	if (e->o.lr_scale && !e->o.warmup) /* Goyal et al.'s warm-up, one epoch here */
		e->o.warmup = train->n;
	e->lr_factor = 1.0;
	e->loss_zero = eng_zero_loss(e->o.loss, &train->meta);
	e->loss_best = NAN;
	e->best_loss = NAN;
	e->best_epoch = -1;
	e->data_hash = eng_data_hash(train);
	e->opts_hash = eng_opts_hash(ops, &e->o, e->ranks);

	if ((rc = team_setup(e, opts, err)))
		goto done;
	eng_lr_factor(e, lr_default);
	/* (a rank whose setup failed still meets the others in ranks_agree, which
	 * stops them all) */
	if ((rc = ops->setup(e)) == 0 && opts->resume)
		rc = eng_load_resume(e);
	if (rc == 0)
		rc = eng_reserve(e);
	if (rc == 0 && e->ranks > 1)
		rc = eng_averaging_setup(e);
	if (e->ranks > 1)
		rc = ranks_agree(e, rc);
	if (rc)
		goto done;
	if (e->start_epoch >= opts->epochs) {
		rc = hog_err_set(err, HOG_ECONFIG, "the checkpoint has done %d epochs already; ask for more with --epochs",
		                 e->start_epoch);
		goto done;
	}
	rc = team_run(e, opts, err);
	if (res) {
		res->lr = e->o.lr;
		res->loss = e->o.loss;
		res->mode = e->o.mode;
		memcpy(res->mode_why, why, sizeof why);
		res->epochs_done = e->epochs_done;
		res->checkpoint_failures = e->ckpt_failures;
		res->threads = e->T;
		res->seconds = e->elapsed;
		res->last = e->last;
		res->sync_seconds = e->sync_seconds;
		res->syncs = e->cmp ? e->cmp->syncs : 0;
		res->sync_bytes = e->cmp ? e->cmp->bytes : 0;
		res->best_epoch = e->best ? e->best_epoch + 1 : 0;
		res->best_loss = e->best ? e->best_loss : NAN;
		res->stopped_early = atomic_load(&e->action) == 4;
		if (ops->report)
			ops->report(e, res);
	}
	if (model_out && (rc != HOG_EDIVERGED || opts->keep_diverged))
		rc = hand_back(e, rc, model_out, err);
done:
	eng_unreserve(e, model_out && *model_out);
	engine_free(e);
	return rc;
}

int hog_train(const hog_data *train, const hog_data *test, const hog_train_opts *opts, hog_model **model_out,
              hog_train_result *res, hog_err *err)
{
	return train_run(train, NULL, NULL, test, opts, model_out, res, err);
}

int hog_train_consume(hog_data *train, const hog_data *test, const hog_train_opts *opts, hog_model **model_out,
                      hog_train_result *res, hog_err *err)
{
	int rc = train_run(train, train, NULL, test, opts, model_out, res, err);
	hog_data_free(train);
	return rc;
}

int hog_train_stream(const char *path, const hog_data *test, const hog_train_opts *opts, hog_model **model_out,
                     hog_train_result *res, hog_err *err)
{
	if (model_out)
		*model_out = NULL;
	if (res)
		memset(res, 0, sizeof *res);
	hog_store *s;
	hog_data *d; /* the counts without the arrays: what the engine and check() read */
	int rc = hog_data_load_header(&d, path, err);
	if (rc)
		return rc;
	if (!(rc = hog_store_open(&s, path, err))) {
		rc = train_run(d, NULL, s, test, opts, model_out, res, err);
		hog_store_close(s);
	}
	hog_data_free(d);
	return rc;
}
