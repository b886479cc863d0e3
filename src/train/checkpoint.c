/* A run's identity and its checkpoints (engine.h): the hashes of the training
 * set and of the options that change the result, which a checkpoint carries and
 * MPI ranks compare; writing a checkpoint (rank 0 for every rank) and resuming
 * from one, refusing a checkpoint of another run unless --force. */
#include "train/engine.h"
#include "sys/err.h"
#include "sys/mpi.h"
#include "sys/names.h"
#include "sys/file.h"
#include <errno.h>
#include "sys/hash.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The training set: its counts and up to 4096 examples spread over it (their
 * labels and contents), so another set of the same shape is told apart without
 * reading all of a large one. */
uint64_t eng_data_hash(const hog_data *d)
{
	uint64_t h = hog_fnv(HOG_FNV0, &d->meta.kind, sizeof d->meta.kind);
	h = hog_fnv(h, &d->n, 8);
	h = hog_fnv(h, &d->dim, 8);
	h = hog_fnv(h, &d->nnz, 8);
	uint64_t step = d->n > 4096 ? d->n / 4096 : 1;
	for (uint64_t i = 0; i < d->n; i += step) {
		if (d->labels)
			h = hog_fnv(h, &d->labels[i], 4);
		if (d->offsets)
			h = hog_fnv(h, d->ids + d->offsets[i], (d->offsets[i + 1] - d->offsets[i]) * 4);
		if (d->users) {
			h = hog_fnv(h, &d->users[i], 4);
			h = hog_fnv(h, &d->items[i], 4);
			h = hog_fnv(h, &d->ratings[i], 4);
		}
	}
	return h;
}

/* The options that change the result and are not in the model header (which
 * keeps lr, l2, schedule, seed ... and is compared field by field): the shared
 * ones here, then the model's own (its trainer's opts_hash). The rank count
 * and averaging interval enter only on several ranks (the interval means
 * nothing on one); --shuffle-chunk only when it chunks. Checkpoints written
 * before this formula carry eng_opts_hash_v1's (opts_hash_v1.c). */
uint64_t eng_opts_hash(const hog_trainer_ops *ops, const hog_train_opts *o, int ranks)
{
	const int chunked = o->shuffle_chunk > 1 && !o->no_shuffle;
	int64_t v[] = { o->model, o->mode, o->delay, o->flush_every, o->normalize, o->no_shuffle,
		            chunked ? (int64_t)o->shuffle_chunk : 0, ranks > 1 ? ranks : 1,
		            ranks > 1 ? (int64_t)o->sync_every : 0 };
	uint64_t h = hog_fnv(hog_fnv(HOG_FNV0, "opts2", 5), v, sizeof v);
	if (o->lr_scale) { /* (only when given, as the class weights) */
		int64_t s = o->lr_scale;
		h = hog_fnv(hog_fnv(h, "lr_scale", 8), &s, sizeof s);
	}
	if (ranks > 1 && o->compress) { /* (only when compressed: an uncompressed run's hash is the one it was) */
		double c[] = { o->compress, o->compress_rank, o->compress == HOG_COMPRESS_TOPK ? o->compress_frac : 0 };
		h = hog_fnv(hog_fnv(h, "compress", 8), c, sizeof c);
	}
	if (o->mode == HOG_MODE_DETERMINISTIC) /* (only there: every other run's hash is the one it was) */
		h = hog_fnv(hog_fnv(h, "shards", 6), &o->shards, sizeof o->shards);
	if (o->class_weight) /* (only when given: the hash of a run without them is the one it was) */
		h = hog_fnv(hog_fnv(h, "class_weight", 12), o->class_weight, strlen(o->class_weight));
	return ops && ops->opts_hash ? ops->opts_hash(o, h) : h;
}

/* Everything that must be the same on every MPI rank: opts_hash and the
 * hyper-parameters the model header keeps. */
uint64_t eng_run_hash(const hog_engine *e)
{
	const hog_train_opts *o = &e->o;
	double d[] = { o->lr, o->backoff, o->t0, o->l2, o->adagrad_beta };
	int64_t v[] = { o->loss, o->rule, o->sched, (int64_t)o->warmup, (int64_t)o->seed, o->epochs,
		            (int64_t)o->sync_every, o->measure_delay,
		            /* (collectives depend on these) */ o->checkpoint != NULL, eng_has_test(e),
		            o->keep_diverged };
	uint64_t h = hog_fnv(e->opts_hash, d, sizeof d);
	return hog_fnv(h, v, sizeof v);
}

/* ---------------------------------------------------------- checkpoints */

/* MPI, inside an epoch (collective): every rank's worker positions, rank r's
 * worker k at r Tmax + k (Tmax: the most threads of any rank), in *n. The
 * ranks' shares differ (mf deals users, so their ratings), so rank 0's own
 * positions do not say where the others are. */
static uint64_t *all_positions(hog_engine *e, uint32_t *n)
{
	uint64_t t = (uint64_t)e->T, lo, hi;
	if (hog_mpi_minmax_u64(&t, &lo, &hi, 1, &e->werr))
		return NULL;
	const size_t len = (size_t)hi * (size_t)e->ranks;
	double *d = calloc(len, sizeof *d); /* (positions < 2^32: exact in a double) */
	uint64_t *p = malloc(len * sizeof *p);
	if (!d || !p) {
		free(d);
		free(p);
		hog_err_set(&e->werr, ENOMEM, "%s: out of memory writing the checkpoint", e->o.checkpoint);
		return NULL;
	}
	for (int k = 0; k < e->T; k++)
		d[(size_t)e->rank * hi + k] = (double)e->w[k]->pos;
	if (hog_mpi_sum_f64(d, len, &e->werr)) {
		free(d);
		free(p);
		return NULL;
	}
	for (size_t i = 0; i < len; i++)
		p[i] = (uint64_t)d[i];
	free(d);
	*n = (uint32_t)len;
	return p;
}

/* ----------------------------------------------------- reservations */

/* "<path>: cannot reserve N MB ..." in e->err, for hog_reserve()'s @p rc. */
static int reserve_failed(hog_engine *e, const char *path, const char *what, uint64_t bytes, int rc)
{
	return hog_err_set(e->err, rc, "%s: cannot reserve the %.1f MB %s needs on its file system before "
	                   "training: %s; nothing was trained (free some space, or write it elsewhere)",
	                   path, (double)bytes / 1e6, what, strerror(rc));
}

int eng_reserve(hog_engine *e)
{
	if (e->rank || (!e->o.checkpoint && !e->o.save))
		return 0;
	hog_model *m = e->ops->snapshot(e);
	if (!m)
		return hog_err_set(e->err, ENOMEM, "out of memory");
	eng_model_hyper(e, m);
	/* a checkpoint inside an epoch keeps every worker's position: room for
	 * this rank's count on every rank, and a page for more on others */
	e->ckpt_bytes = hog_model_file_bytes(m, (uint32_t)(e->T * e->ranks)) + 4096;
	const uint64_t save = hog_model_file_bytes(m, 0);
	hog_model_free(m);
	int rc;
	if (e->o.checkpoint && (rc = hog_reserve(e->o.checkpoint, e->ckpt_bytes)))
		return reserve_failed(e, e->o.checkpoint, "a checkpoint", e->ckpt_bytes, rc);
	if (e->o.save && (rc = hog_reserve(e->o.save, save))) {
		if (e->o.checkpoint)
			hog_reserve_drop(e->o.checkpoint);
		return reserve_failed(e, e->o.save, "the model file", save, rc);
	}
	return 0;
}

void eng_unreserve(hog_engine *e, int handed_back)
{
	if (e->rank)
		return;
	if (e->o.checkpoint)
		hog_reserve_drop(e->o.checkpoint);
	if (e->o.save && !handed_back)
		hog_reserve_drop(e->o.save);
}

/* The next checkpoint's space, after one was written (it used up the last);
 * a disk that has filled up meanwhile is said once, and the write will try. */
static void reserve_next(hog_engine *e)
{
	int rc = e->ckpt_bytes ? hog_reserve(e->o.checkpoint, e->ckpt_bytes) : 0;
	if (rc && !e->ckpt_unreserved && e->o.on_note) {
		char msg[4400];
		snprintf(msg, sizeof msg, "warning: %s: cannot reserve the space of the next checkpoint (%s); the "
		         "one written stays until another is", e->o.checkpoint, strerror(rc));
		e->o.on_note(e->o.ud, msg);
	}
	e->ckpt_unreserved = rc != 0;
}

/* Thread 0 of every rank at the same point (MPI: collective); rank 0 writes
 * for all: the shared parameters are the same on every rank, a gather gives
 * rank 0 what each rank keeps for itself, and the positions are every rank's. */
/* A periodic checkpoint that could not be written (a full disk, an I/O
 * error): said, naming the file, and the run goes on -- the last checkpoint
 * written stays, and --save still gets the model (a failed write ended the run
 * and lost both); hog_train_result.checkpoint_failures counts them. */
void eng_ckpt_failed(hog_engine *e, int rc)
{
	char msg[1200];
	snprintf(msg, sizeof msg, "warning: the checkpoint %.300s was not written (%.700s); the last one written "
	         "stays, and the run goes on", e->o.checkpoint, e->err->code ? e->err->msg : hog_strerror(rc));
	memset(e->err, 0, sizeof *e->err);
	e->ckpt_failures++;
	if (e->o.on_note)
		e->o.on_note(e->o.ud, msg);
}

int eng_write_checkpoint(hog_engine *e, int in_epoch)
{
	if (!e->o.checkpoint)
		return 0;
	uint64_t *pos = NULL;
	uint32_t npos = 0;
	if (e->ranks > 1) {
		int rc = e->ops->gather ? e->ops->gather(e) : 0;
		if (rc)
			return rc;
		if (in_epoch && !(pos = all_positions(e, &npos)))
			return e->werr.code ? e->werr.code : ENOMEM;
	}
	if (e->rank) {
		free(pos);
		return 0;
	}
	hog_model *m = e->ops->snapshot(e);
	if (!m) {
		free(pos);
		return hog_err_set(e->err, ENOMEM, "%s: out of memory writing the checkpoint", e->o.checkpoint);
	}
	eng_model_hyper(e, m);
	hog_ckpt ck = { .data_hash = e->data_hash, .opts_hash = e->opts_hash };
	if (pos) {
		ck.in_epoch = 1;
		ck.nworkers = npos;
		ck.positions = pos;
	} else if (in_epoch && (ck.positions = malloc(e->T * sizeof *ck.positions))) {
		ck.in_epoch = 1;
		ck.nworkers = (uint32_t)e->T;
		for (int k = 0; k < e->T; k++)
			ck.positions[k] = e->w[k]->pos;
	}
	int rc = hog_model_save_ckpt(m, &ck, e->o.checkpoint, e->err);
	free(ck.positions);
	hog_model_free(m);
	if (!rc)
		reserve_next(e);
	e->last_ckpt = eng_now();
	return rc;
}

/* Whether a checkpoint's options hash @p h is that of this run's options on
 * @p ranks ranks: this version's formula, or that of the checkpoints written
 * before it (eng_opts_hash_v1), so those still resume. */
static int ckpt_opts_fit(const hog_engine *e, uint64_t h, int ranks)
{
	const uint64_t now = ranks == e->ranks ? e->opts_hash : eng_opts_hash(e->ops, &e->o, ranks);
	return h == now || h == eng_opts_hash_v1(&e->o, ranks);
}

/* A hyper-parameter of the checkpoint that differs from this run's, or NULL. */
static const char *ckpt_differs(const hog_engine *e, const hog_model *m, const hog_ckpt *ck)
{
	const hog_train_opts *o = &e->o;
	if (m->loss != o->loss)
		return "loss";
	if (m->rule != o->rule)
		return "optimizer";
	if (m->sched != o->sched)
		return "schedule";
	if (m->lr != o->lr)
		return "lr";
	if (m->l2 != o->l2)
		return "l2";
	if (m->beta != o->adagrad_beta)
		return "adagrad-beta";
	if (m->backoff != o->backoff)
		return "backoff";
	if (m->t0 != o->t0)
		return "t0";
	if (m->warmup != o->warmup)
		return "warmup";
	if (m->seed != o->seed)
		return "seed";
	if (ck->opts_hash && !ckpt_opts_fit(e, ck->opts_hash, e->ranks)) {
		static _Thread_local char what[300];
		/* the mode alone, named: --threads 1 (or a small set) makes serial the
		 * default, and a 2-thread replica run's checkpoint was refused with the
		 * list below, which never said so */
		hog_train_opts alt = *o;
		for (int md = 0; md < HOG_MODE_ALL; md++) {
			alt.mode = (enum hog_mode)md;
			if (md != (int)o->mode && eng_opts_hash(e->ops, &alt, e->ranks) == ck->opts_hash) {
				snprintf(what, sizeof what, "mode (the checkpoint's run trained in %s mode, this one in %s: "
				         "--threads 1 and a small set default to serial; give --mode %s)", hog_mode_name(alt.mode),
				         hog_mode_name(o->mode), hog_mode_name(alt.mode));
				return what;
			}
		}
		snprintf(what, sizeof what, "mode or other options that change the result (--delay, --flush-every, "
		         "--normalize, --shuffle-chunk%s%s)", e->ops->opts_names ? ", " : "",
		         e->ops->opts_names ? e->ops->opts_names : "");
		return what;
	}
	return NULL;
}

/* When the checkpoint's option hash is this run's with another MPI rank count
 * (the ranks' shares and positions depend on it), a message saying so. */
static const char *ckpt_ranks(const hog_engine *e, const hog_ckpt *ck)
{
	static _Thread_local char msg[200];
	for (int r = 1; r <= 4096; r++)
		if (r != e->ranks && ckpt_opts_fit(e, ck->opts_hash, r)) {
			snprintf(msg, sizeof msg, "the checkpoint was written by a run on %d MPI rank%s and this run has %d; "
			         "resume with mpirun -np %d (each rank's share of the examples depends on it)",
			         r, r == 1 ? "" : "s", e->ranks, r);
			return msg;
		}
	return NULL;
}

/* A checkpoint of a run that took the default order before issue 22 (the row
 * shuffle) resumed by a run that takes it now (the linear model's chunks): the
 * run goes on with the row shuffle, which the checkpoint's hash fits, instead
 * of refusing it (-- "the same flags" resume). An explicit --shuffle-chunk is
 * kept (and refused by the hash if it is another order). */
static void ckpt_default_order(hog_engine *e, uint64_t h)
{
	if (!e->chunk_default || e->o.shuffle_chunk <= 1 || e->o.no_shuffle || !h)
		return;
	for (int r = 1; r <= 4096; r++)
		if (ckpt_opts_fit(e, h, r))
			return; /* (this run's order, or only the rank count differs) */
	const uint32_t c = e->o.shuffle_chunk;
	const uint64_t was = e->opts_hash;
	e->o.shuffle_chunk = 1;
	e->opts_hash = eng_opts_hash(e->ops, &e->o, e->ranks);
	for (int r = 1; r <= 4096; r++)
		if (ckpt_opts_fit(e, h, r)) {
			if (e->o.on_note)
				e->o.on_note(e->o.ud, "resume: the checkpoint was written with the row shuffle, the default "
				                      "order before chunks (--shuffle-chunk 1); the run goes on with it");
			return;
		}
	e->o.shuffle_chunk = c;
	e->opts_hash = was;
}

/* Whether every worker of the checkpoint stopped at one position. */
static int ckpt_same_pos(const hog_ckpt *ck)
{
	for (uint32_t k = 1; k < ck->nworkers; k++)
		if (ck->positions[k] != ck->positions[0])
			return 0;
	return ck->nworkers > 0;
}

int eng_load_resume(hog_engine *e)
{
	hog_model *m;
	hog_ckpt ck;
	const char *path = e->o.resume;
	int rc = hog_model_load_ckpt(&m, &ck, path, e->err);
	if (rc)
		return rc;
	const char *what;
	ckpt_default_order(e, ck.opts_hash);
	const double ours = e->o.backoff;
	const int took = e->backoff_ours && m->backoff != e->o.backoff && m->backoff > 0 && m->backoff <= 1;
	if (took) /* a backoff this run chose, not given (a checkpoint written before the rule of
	           * epochs_auto, run_opts.c): the schedule the checkpoint's run started with goes on */
		e->o.backoff = m->backoff;
	if (m->kind != e->o.model) {
		rc = hog_err_set(e->err, HOG_EMISMATCH, "%s: the checkpoint holds a %s model; this run trains %s", path,
		                 hog_model_kind_name(m->kind), hog_model_kind_name(e->o.model));
	} else if (!ck.data_hash && !ck.in_epoch && !e->o.force_resume) {
		/* (a model saved at a run's end: its weights may be the last epoch's
		 * average, not the iterate a run goes on from, and --resume would write
		 * checkpoints over it) */
		rc = hog_err_set(e->err, HOG_EMISMATCH, "%s is a trained model (train --save), not a checkpoint: its "
		                 "weights are what the run handed back (with --average the last epoch's mean), not the "
		                 "state a run goes on from; --checkpoint FILE writes checkpoints to resume (--force starts "
		                 "from its weights anyway)", path);
	} else if (ck.data_hash && ck.data_hash != e->data_hash && !e->o.force_resume) {
		rc = hog_err_set(e->err, HOG_EMISMATCH, "%s: the checkpoint was written for another training set "
		                 "(its size or contents differ); resume with the same --data (or --force)", path);
	} else if (!e->o.force_resume && ck.opts_hash && !ckpt_opts_fit(e, ck.opts_hash, e->ranks) &&
	           (what = ckpt_ranks(e, &ck))) {
		rc = hog_err_set(e->err, HOG_EMISMATCH, "%s: %s", path, what);
	} else if (!e->o.force_resume && (what = ckpt_differs(e, m, &ck))) {
		rc = hog_err_set(e->err, HOG_EMISMATCH, "%s: the checkpoint was written with another %s; resume with "
		                 "the options it was started with (only --epochs, --threads and the outputs may change; "
		                 "--force continues anyway)",
		                 path, what);
	} else if ((rc = e->ops->restore(e, m)) == 0) {
		e->start_epoch = e->epochs_done = m->epochs_done;
		if (took && e->o.on_note && e->o.sched == HOG_SCHED_BACKOFF && e->o.rule == HOG_RULE_SGD) {
			char msg[200]; /* (said once the run goes on: a refused resume is said alone) */
			snprintf(msg, sizeof msg, "resume: the step's backoff goes on as the checkpoint's run had it, %.4g an "
			         "epoch (this run's default: %.4g)", m->backoff, ours);
			e->o.on_note(e->o.ud, msg);
		}
		/* one rank: its workers'; several: every rank's workers (all_positions)
		 * when each rank has the threads it had, else (written before that) rank
		 * 0's; otherwise the epoch starts over */
		const uint32_t all = (uint32_t)e->T * (uint32_t)e->ranks;
		if (ck.in_epoch && e->ranks > 1 && ck.nworkers == all)
			for (int k = 0; k < e->T; k++)
				e->start_pos[k] = ck.positions[(size_t)e->rank * e->T + k];
		else if (ck.in_epoch && ck.nworkers == (uint32_t)e->T)
			for (int k = 0; k < e->T; k++)
				e->start_pos[k] = ck.positions[k];
		else if (ck.in_epoch && e->o.mode == HOG_MODE_DETERMINISTIC && e->ranks == 1 && ckpt_same_pos(&ck))
			/* deterministic: every worker stops at the same round of the epoch,
			 * whatever their number; the run goes on from there at any thread count */
			for (int k = 0; k < e->T; k++)
				e->start_pos[k] = ck.positions[0];
	}
	free(ck.positions);
	hog_model_free(m);
	return rc;
}

