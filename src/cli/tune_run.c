/* hogwild tune's search (tune.h): the values of the searched options, the
 * folds, and successive halving run by teams of threads side by side.
 *
 * Every trial trains with hog_train() on sets cut once from --data and shared
 * read-only (hog_train copies its shards from them). A team is a plain pthread
 * that takes the next training of the rung's queue; hog_train() starts its own
 * OpenMP team inside it (an outer pthread, not an OpenMP region, so the inner
 * team is never a nested one that OpenMP would shrink to one thread). The
 * engine keeps no global state of a run, so trainings side by side are
 * independent; only pinning is shared (every run plans on the same first
 * cores), so with several teams the trials run unbound (cmd_tune.c). */
#include "cli/tune.h"
#include "train/linear_train.h"
#include "train/mf_opts.h"
#include "train/mlp_train.h"
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *const axis_names[TP_N] = { "lr", "l2", "l1", "rank", "layers" };

const char *tune_axis_name(int p) { return axis_names[p]; }

/* ------------------------------------------------------------ the values */

/* One value of a numeric option: "0.1", or "x0.5" (lr: a multiple of the
 * default step), within train's bounds of the option. */
static int parse_value(int p, const char *s, double *v, int *rel)
{
	long l;
	*rel = p == TP_LR && *s == 'x';
	if (*rel)
		s++;
	if (p == TP_RANK) {
		*v = 0;
		if (cli_parse_int(s, 1, 4096, &l))
			return -1;
		*v = (double)l;
		return 0;
	}
	return cli_parse_double(s, 0, 1e9, v) || (p == TP_LR && !(*v > 0)) ? -1 : 0;
}

static int add_value(tune_axis *ax, double v)
{
	for (int i = 0; i < ax->n; i++)
		if (ax->v[i] == v)
			return 0; /* (a rank range rounds to the same value twice) */
	if (ax->n == TUNE_MAX_VALUES)
		return -1;
	ax->v[ax->n++] = v;
	return 0;
}

static int axis_bad(int p, const char *arg, const char *why)
{
	return cli_usage_error("tune", NULL, "--%s: '%s' is not %s (see hogwild tune -h)", axis_names[p], arg, why);
}

/* LO:HI[:N]: N values evenly spaced on a log scale from LO to HI. */
static int parse_range(int p, const char *arg, tune_axis *ax)
{
	char lo[64], hi[64];
	long n = 4;
	const char *c1 = strchr(arg, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if ((size_t)(c1 - arg) >= sizeof lo || strlen(c1 + 1) >= sizeof hi)
		return axis_bad(p, arg, "a range LO:HI[:N]");
	snprintf(lo, sizeof lo, "%.*s", (int)(c1 - arg), arg);
	snprintf(hi, sizeof hi, "%.*s", (int)(c2 ? c2 - c1 - 1 : (long)strlen(c1 + 1)), c1 + 1);
	if (c2 && cli_parse_int(c2 + 1, 1, TUNE_MAX_VALUES, &n))
		return axis_bad(p, arg, "a range LO:HI[:N] with N 1..16");
	double a, b;
	int ra, rb;
	if (parse_value(p, lo, &a, &ra) || parse_value(p, hi, &b, &rb) || ra != rb || !(a > 0) || !(b >= a))
		return axis_bad(p, arg, "a range LO:HI[:N] of two values, 0 < LO <= HI, both or neither written xM");
	ax->rel = ra;
	for (long i = 0; i < n; i++) {
		double v = n == 1 ? a : exp(log(a) + (log(b) - log(a)) * (double)i / (double)(n - 1));
		char tidy[32]; /* 1e-4, not 0.00010000000000000009: the config file shows it */
		snprintf(tidy, sizeof tidy, "%.12g", i == n - 1 ? b : v);
		v = strtod(tidy, NULL);
		add_value(ax, p == TP_RANK ? round(v) : v);
	}
	return 0;
}

int tune_axis_parse(int p, const char *arg, tune_axis *ax)
{
	memset(ax, 0, sizeof *ax);
	ax->given = 1;
	char buf[1024];
	if (strlen(arg) >= sizeof buf || !*arg)
		return axis_bad(p, arg, "a list of values");
	if (p != TP_LAYERS && strchr(arg, ':'))
		return parse_range(p, arg, ax);
	snprintf(buf, sizeof buf, "%s", arg);
	const char *sep = p == TP_LAYERS ? "/" : ",";
	int rel = -1;
	for (char *sv = NULL, *t = strtok_r(buf, sep, &sv); t; t = strtok_r(NULL, sep, &sv)) {
		if (ax->n == TUNE_MAX_VALUES)
			return axis_bad(p, arg, "a list of at most 16 values");
		if (p == TP_LAYERS) {
			hog_train_opts o;
			cli_train_args a = { 0 };
			hog_train_opts_init(&o);
			if (strlen(t) >= sizeof ax->layers[0] || cli_train_option("tune", OPT_LAYERS, t, &o, &a))
				return 2;
			snprintf(ax->layers[ax->n++], sizeof ax->layers[0], "%s", t);
			continue;
		}
		double v;
		int r;
		if (parse_value(p, t, &v, &r) || (rel >= 0 && r != rel))
			return axis_bad(p, arg, p == TP_LR ? "a list of step sizes, all or none written xM" : "a list of values");
		rel = r;
		add_value(ax, v);
	}
	ax->rel = rel > 0;
	if (!ax->n)
		return axis_bad(p, arg, "a list of values");
	return 0;
}

/* ------------------------------------------------------------ the space */

/* Each model's default space: the searched options' values when not given
 * (lr as multiples of the model's default step). */
static const struct tune_space {
	const char *lr, *l2, *rank;
} spaces[HOG_MODEL_KIND_MAX + 1] = {
	[HOG_MODEL_LINEAR] = { "x0.25:x2", "1e-7:1e-2:6", NULL },
	[HOG_MODEL_MF] = { "x0.5:x2:3", "0.025:0.1:3", "16,32,64" }, /* (l2: train's 0.05 in the middle) */
	[HOG_MODEL_MLP] = { "x0.5:x2:3", "1e-6:1e-4:3", NULL },
};

/* mean |x|^2 over the examples of --data (sparse and dense sets), for the
 * default steps (1/(1 + mean |x|^2) and its batch form), of the features as
 * the trials train on them: scaled as --normalize @p mode scales them
 * (eng_feature_scales). Taken on the raw values, the steps of a raw-scale set
 * were the raw set's: on sklearn's breast cancer (398 training rows, areas
 * near 1000) the grid ran 1.4e-7..1.1e-6, no trial learnt anything (held-out
 * loss 0.693, 60% accuracy: the majority class), and tune named one of them
 * best, where the training it tunes, scaling the features, steps at ~0.08. */
static double mean_sq(const hog_data *d, int mode)
{
	uint64_t changed = 0;
	double *mu = mode ? eng_feature_centers(d, NULL) : NULL; /* (the linear model's and the mlp's centering) */
	float *sc = d->x || d->vals ? eng_feature_scales(d, mode, &changed, mu) : NULL;
	const double s = eng_mean_sq(d, changed ? sc : NULL, mu);
	free(sc);
	free(mu);
	return s;
}

/* The model's default step for options @p o, the trainers' own rule on the
 * features as scaled (mean |x|^2 @p sq) of a trial's training set of @p n examples.
 * tune's grid is in multiples of it. Its own copy of the rules had fallen
 * behind them: adam's grid centred on 0.01 (0.1 without --layers) where train
 * steps at 0.001, and the mlp's deterministic mode on one shard's batch where
 * a step takes --batch of each of the shards. */
static double ysd_of_plan; /* (the labels' standard deviation: tune_resolve's) */
static double mfc_of_plan = 1; /* (mf: the ratings' scale, mf_scale: its defaults' step / c, l2 * c) */

static double default_lr(const hog_train_opts *o, double sq, uint64_t n)
{
	switch (hog_train_kind(o)) {
	case HOG_MODEL_MF: return mf_default_lr(o, mfc_of_plan);
	case HOG_MODEL_MLP: {
		hog_train_opts d = *o;
		if (d.mode == HOG_MODE_DETERMINISTIC && d.shards == 0)
			d.shards = eng_det_shards(n); /* (as the trial's check will fill it) */
		return mlp_default_lr_of(&d, sq, 1); /* (sq the mean, n as 1) */
	}
	default: return lin_default_lr_of(o->rule, sq, o->loss == HOG_LOSS_SQUARED ? ysd_of_plan : 0);
	}
}

static double sq_of_plan; /* (set once by tune_resolve, before any team starts) */
static uint64_t n_of_plan;

/* The l2 a configuration trains with (mf's generic default is its own). */
static double l2_of(const hog_train_opts *o)
{
	return hog_train_kind(o) == HOG_MODEL_MF ? mf_l2_of(o, mfc_of_plan) : o->l2;
}

/* The configuration that trains what train does without the searched options
 * (their defaults), or -1 where the grid lacks it (or searches --layers).
 * Successive halving judges the first rounds on a ninth and a third of the
 * epochs, where the least regularized configurations lead; MovieLens
 * latest-small's 27 mf configurations kept l2 0.01 to the last round, whose
 * winner overfitted at 20 epochs (validation RMSE 0.870) and tested at 0.856-0.860
 * over three seeds where no tuning gave 0.846. Carried to the last round, the
 * defaults' configuration is judged beside the winners at the full epochs, so
 * that tune's choice is never worse on the held-out examples than not tuning. */
static int default_cfg(const tune_plan *pl)
{
	if (pl->ax[TP_LAYERS].n)
		return -1;
	const hog_train_opts *b = &pl->base;
	const double lr = b->lr ? b->lr : default_lr(b, sq_of_plan, n_of_plan);
	for (int c = 0; c < pl->ncfgs; c++) {
		hog_train_opts o;
		tune_apply(pl, c, &o);
		if (o.lr == lr && l2_of(&o) == l2_of(b) && o.linear.l1 == b->linear.l1 && o.mf.rank == b->mf.rank)
			return c;
	}
	return -1;
}

int tune_resolve(tune_plan *pl, const hog_data *full)
{
	const enum hog_model_kind kind = hog_train_kind(&pl->base);
	const struct tune_space *sp = &spaces[kind];
	sq_of_plan = mean_sq(full, pl->base.normalize);
	lin_label_mean(full, HOG_LOSS_SQUARED, &ysd_of_plan);
	/* (a trial's training set: all of a file's, k-1 folds, or 1 - the fraction) */
	n_of_plan = pl->folds > 0 ? full->n - full->n / (uint64_t)pl->folds
	                          : full->n - (uint64_t)((double)full->n * pl->vfrac);
	/* --epochs auto (the default): train's count for the set, so that the best
	 * configuration is judged, and written, at the epochs a default run takes.
	 * 20 whatever the set was 3% of the steps train gives breast cancer's 398
	 * rows (659 epochs): tune's best config, written with 20, trained a model
	 * worse than no tuning (and --epochs auto trained one epoch). */
	if (pl->base.epochs == 0)
		pl->base.epochs = eng_epochs_of_visits(full->n);
	if (!pl->ax[TP_LR].given && tune_axis_parse(TP_LR, sp->lr, &pl->ax[TP_LR]))
		return 2;
	const int l2_ours = !pl->ax[TP_L2].given; /* (tune_axis_parse marks it given) */
	if (l2_ours && tune_axis_parse(TP_L2, sp->l2, &pl->ax[TP_L2]))
		return 2;
	mfc_of_plan = kind == HOG_MODEL_MF ? mf_scale(&full->meta) : 1.0;
	for (int k = 0; kind == HOG_MODEL_MF && l2_ours && k < pl->ax[TP_L2].n; k++)
		pl->ax[TP_L2].v[k] *= mfc_of_plan; /* (the grid around train's default, as it scales it) */
	if (pl->base.model == HOG_MODEL_MF && !pl->ax[TP_RANK].given && tune_axis_parse(TP_RANK, sp->rank, &pl->ax[TP_RANK]))
		return 2;
	pl->ax[TP_LR].given = pl->ax[TP_L2].given = 1; /* (both always written to the config) */
	if (pl->base.model == HOG_MODEL_MF)
		pl->ax[TP_RANK].given = 1;
	int n = 1;
	for (int p = 0; p < TP_N; p++)
		n *= pl->ax[p].n ? pl->ax[p].n : 1;
	if (!(pl->cfgs = calloc((size_t)n, sizeof *pl->cfgs)))
		return cli_usage_error("tune", NULL, "out of memory");
	for (int c = 0; c < n; c++) /* the last option varies fastest */
		for (int p = TP_N - 1, r = c; p >= 0; p--) {
			const int k = pl->ax[p].n ? pl->ax[p].n : 1;
			pl->cfgs[c].at[p] = r % k;
			r /= k;
		}
	pl->ncfgs = n;
	pl->dflt = default_cfg(pl);
	return 0;
}

void tune_apply(const tune_plan *pl, int c, hog_train_opts *o)
{
	*o = pl->base;
	const int *at = pl->cfgs[c].at;
	if (pl->ax[TP_LAYERS].n) {
		cli_train_args a = { 0 };
		cli_train_option("tune", OPT_LAYERS, pl->ax[TP_LAYERS].layers[at[TP_LAYERS]], o, &a); /* (checked) */
	}
	if (pl->ax[TP_L2].n)
		o->l2 = pl->ax[TP_L2].v[at[TP_L2]];
	if (pl->ax[TP_L1].n)
		o->linear.l1 = pl->ax[TP_L1].v[at[TP_L1]];
	if (pl->ax[TP_RANK].n)
		o->mf.rank = (uint32_t)pl->ax[TP_RANK].v[at[TP_RANK]];
	if (pl->ax[TP_LR].n)
		o->lr = pl->ax[TP_LR].v[at[TP_LR]] * (pl->ax[TP_LR].rel ? default_lr(o, sq_of_plan, n_of_plan) : 1.0);
}

/* @p v in the fewest digits that read back as the same double ("0.03", not
 * "0.029999999999999999"): what the table, the best line and the config file
 * show, and the config still retrains the same model. */
static void shortest(char *buf, size_t n, double v)
{
	for (int digits = 6; digits <= 17; digits++) {
		snprintf(buf, n, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

void tune_value(const tune_plan *pl, int c, int p, char *buf, size_t n)
{
	hog_train_opts o;
	tune_apply(pl, c, &o);
	switch (p) {
	case TP_LR: shortest(buf, n, o.lr); break;
	case TP_L2: shortest(buf, n, o.l2); break;
	case TP_L1: shortest(buf, n, o.linear.l1); break;
	case TP_RANK: snprintf(buf, n, "%u", o.mf.rank); break;
	default: snprintf(buf, n, "%s", pl->ax[TP_LAYERS].n ? pl->ax[TP_LAYERS].layers[pl->cfgs[c].at[p]] : "none");
	}
}

/* ------------------------------------------------------------ the folds */

int tune_cut(tune_plan *pl, const hog_data *full)
{
	const uint64_t n = full->n;
	const int sets = pl->folds ? pl->folds : 1;
	uint64_t *idx = malloc((n + 1) * sizeof *idx);
	hog_err err = { 0 };
	int rc = idx ? 0 : ENOMEM;
	for (int f = 0; f < sets && !rc; f++) {
		uint64_t lo = pl->folds ? n * (uint64_t)f / (uint64_t)sets : 0;
		uint64_t hi = pl->folds ? n * (uint64_t)(f + 1) / (uint64_t)sets : (uint64_t)llround(pl->vfrac * (double)n);
		uint64_t m = tune_cut_ids(n, lo, hi, pl->base.seed, 1, idx);
		if (m != hi - lo || !m || m == n) {
			rc = m == hi - lo ? 0 : ENOMEM;
			if (!rc)
				return free(idx), cli_usage_error("tune", NULL, "--validation %g of %llu examples holds %s out: "
				                                  "nothing to %s on", pl->vfrac, (unsigned long long)n,
				                                  m ? "every one" : "none", m ? "train" : "judge");
			break;
		}
		if ((rc = hog_data_subset(full, idx, m, &pl->held[f], &err)))
			break;
		m = tune_cut_ids(n, lo, hi, pl->base.seed, 0, idx);
		if ((rc = hog_data_subset(full, idx, m, &pl->train[f], &err)))
			break;
		pl->nsets = f + 1;
	}
	free(idx);
	if (rc && !err.msg[0])
		snprintf(err.msg, sizeof err.msg, "out of memory cutting %d folds of %llu examples", sets,
		         (unsigned long long)n);
	return rc ? cli_fail(&err, rc) : 0;
}

/* ------------------------------------------------------------ the teams */

typedef struct tune_queue {
	tune_plan *pl;
	tune_item *items;
	int nitems, rung, rungs;
	atomic_int next, done;
	pthread_mutex_t lock;          /* the progress line and the first error */
	hog_err err;                   /* the first failure that is not a divergence */
	int err_rc;
} tune_queue;

/* The figures a training is judged by: its last epoch's, or with early
 * stopping its best epoch's (the model it hands back). */
typedef struct item_watch {
	hog_epoch_stats last, best;
	int have_best;
} item_watch;

static void on_epoch(void *ud, const hog_epoch_stats *s)
{
	item_watch *w = ud;
	w->last = *s;
	if (!w->have_best || s->test_loss < w->best.test_loss) {
		w->best = *s;
		w->have_best = 1;
	}
}

static void run_item(tune_queue *q, tune_item *it)
{
	tune_plan *pl = q->pl;
	const tune_trial *t = &pl->trials[it->trial];
	hog_train_opts o;
	tune_apply(pl, t->cfg, &o);
	o.epochs = t->epochs;
	o.threads = pl->threads;
	item_watch w;
	memset(&w, 0, sizeof w);
	o.on_epoch = on_epoch;
	o.on_progress = NULL;
	o.on_note = NULL;
	o.ud = &w;
	o.stop = pl->stop;
	o.save = o.checkpoint = o.resume = NULL;
	hog_train_result res;
	hog_err err = { 0 };
	it->rc = hog_train(pl->train[it->fold], pl->held[it->fold], &o, NULL, &res, &err);
	const hog_epoch_stats *s = o.early_stop ? &w.best : &w.last;
	it->epochs_run = s->epoch;
	it->loss = s->test_loss;
	it->acc = s->test_acc;
	it->auc = s->test_auc;
	it->rmse = s->test_rmse;
	it->seconds = res.seconds;
	pthread_mutex_lock(&q->lock);
	if (it->rc && it->rc != HOG_EDIVERGED && it->rc != HOG_EINTR && !q->err_rc) {
		q->err_rc = it->rc;
		q->err = err;
	}
	const int done = atomic_fetch_add(&q->done, 1) + 1;
	if (!pl->quiet && cli_progress_wanted(0))
		fprintf(stderr, "\rtune: round %d/%d, %d/%d trainings done   ", q->rung + 1, q->rungs, done, q->nitems);
	pthread_mutex_unlock(&q->lock);
}

static void *team_main(void *ud)
{
	tune_queue *q = ud;
	tune_plan *pl = q->pl;
	for (;;) {
		if (*pl->stop || pl->budget_hit)
			break;
		if (pl->budget > 0 && cli_now() - pl->t0 > pl->budget) {
			pl->budget_hit = 1; /* (a flag only ever set: a late reader starts one more training at most) */
			break;
		}
		const int i = atomic_fetch_add(&q->next, 1);
		if (i >= q->nitems)
			break;
		run_item(q, &q->items[i]);
	}
	return NULL;
}

static double metric_of(tune_metric m, const tune_trial *t)
{
	double v = m == TM_LOSS ? t->loss : m == TM_ACC ? -t->acc : m == TM_AUC ? -t->auc : t->rmse;
	return isnan(v) || t->diverged ? INFINITY : v;
}

/* The rung's trials' figures from their folds. */
static void summarize(tune_plan *pl, const tune_item *items, int nitems)
{
	for (int i = 0; i < nitems; i++) {
		tune_trial *t = &pl->trials[items[i].trial];
		const tune_item *it = &items[i];
		if (it->rc == HOG_EDIVERGED)
			t->diverged = 1;
		if (it->rc) /* diverged, stopped, failed or never run (-1) */
			continue;
		t->loss += it->loss;
		t->acc += it->acc;
		t->auc += it->auc;
		t->rmse += it->rmse;
		t->epochs_run += it->epochs_run;
		t->seconds += it->seconds;
		t->folds_done++;
	}
	for (int i = 0; i < nitems; i += pl->nsets) {
		tune_trial *t = &pl->trials[items[i].trial];
		const int k = t->folds_done ? t->folds_done : 1;
		t->loss /= k;
		t->acc /= k;
		t->auc /= k;
		t->rmse /= k;
		t->epochs_run /= k;
		if (t->diverged || t->folds_done < pl->nsets) {
			t->metric = INFINITY;
			t->stopped = !t->diverged;
		} else
			t->metric = metric_of(pl->metric, t);
	}
}

static int by_metric(const void *a, const void *b, void *ud)
{
	const tune_trial *tr = ud;
	double x = tr[*(const int *)a].metric, y = tr[*(const int *)b].metric;
	return x < y ? -1 : x > y ? 1 : *(const int *)a - *(const int *)b;
}

/* Runs trials [first, pl->ntrials) on the teams. Returns 0 or an exit code. */
static int run_rung(tune_plan *pl, int first, int rung)
{
	tune_queue q;
	memset(&q, 0, sizeof q);
	q.pl = pl;
	q.rung = rung;
	q.rungs = pl->rungs;
	q.nitems = (pl->ntrials - first) * pl->nsets;
	if (!(q.items = calloc((size_t)q.nitems, sizeof *q.items)))
		return cli_usage_error("tune", NULL, "out of memory");
	for (int i = 0; i < q.nitems; i++) /* fold by fold: a trial's folds are not all at once */
		q.items[i] = (tune_item){ .trial = first + i / pl->nsets, .fold = i % pl->nsets, .rc = -1 };
	atomic_init(&q.next, 0);
	atomic_init(&q.done, 0);
	pthread_mutex_init(&q.lock, NULL);
	const int teams = pl->teams < q.nitems ? pl->teams : q.nitems;
	pthread_t th[256];
	int started = 0;
	for (int k = 0; k < teams && k < 256; k++)
		if (pthread_create(&th[k], NULL, team_main, &q) == 0)
			started++;
	if (!started)
		team_main(&q);
	for (int k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	if (!pl->quiet && cli_progress_wanted(0))
		fputs("\r\033[K", stderr);
	pthread_mutex_destroy(&q.lock);
	summarize(pl, q.items, q.nitems);
	int rc = 0;
	if (q.err_rc) /* a failure that is not the trial's own result (a bad option, memory) */
		rc = cli_fail(&q.err, q.err_rc);
	free(q.items);
	return rc;
}

static int add_trial(tune_plan *pl, int cfg, int rung, int epochs)
{
	if (pl->ntrials == pl->cap) {
		int cap = pl->cap ? 2 * pl->cap : 64;
		tune_trial *t = realloc(pl->trials, (size_t)cap * sizeof *t);
		if (!t)
			return -1;
		pl->trials = t;
		pl->cap = cap;
	}
	pl->trials[pl->ntrials++] = (tune_trial){ .cfg = cfg, .rung = rung, .epochs = epochs, .metric = INFINITY };
	return 0;
}

int tune_search(tune_plan *pl)
{
	const int E = pl->base.epochs;
	if (!pl->rungs) /* three rounds for 9 configurations or more, two for 3..8 */
		pl->rungs = pl->ncfgs >= 9 ? 3 : pl->ncfgs >= 3 ? 2 : 1;
	while (pl->rungs > 1 && E / (int)pow(3, pl->rungs - 1) < 1)
		pl->rungs--;
	int *alive = malloc((size_t)pl->ncfgs * sizeof *alive), nalive = pl->ncfgs, rc = 0;
	if (!alive)
		return cli_usage_error("tune", NULL, "out of memory");
	for (int c = 0; c < nalive; c++)
		alive[c] = c;
	pl->best = -1;
	for (int r = 0; r < pl->rungs && !rc && nalive; r++) {
		const int epochs = r == pl->rungs - 1 ? E : (int)lround(E / pow(3, pl->rungs - 1 - r));
		const int first = pl->ntrials;
		for (int i = 0; i < nalive; i++)
			if (add_trial(pl, alive[i], r, epochs < 1 ? 1 : epochs)) {
				free(alive);
				return cli_usage_error("tune", NULL, "out of memory");
			}
		rc = run_rung(pl, first, r);
		/* the rung's best third (at least one) goes on, in the order of their figures */
		int *order = alive;
		for (int i = 0; i < nalive; i++)
			order[i] = first + i;
		qsort_r(order, (size_t)nalive, sizeof *order, by_metric, pl->trials);
		if (isfinite(pl->trials[order[0]].metric))
			pl->best = order[0];
		int keep = (nalive + 2) / 3;
		while (keep > 0 && !isfinite(pl->trials[order[keep - 1]].metric))
			keep--;
		int kept_dflt = 0;
		for (int i = 0; i < keep; i++) {
			alive[i] = pl->trials[order[i]].cfg;
			kept_dflt |= alive[i] == pl->dflt;
		}
		for (int i = keep; i < nalive && !kept_dflt && pl->dflt >= 0; i++) /* (default_cfg says why) */
			if (pl->trials[order[i]].cfg == pl->dflt && isfinite(pl->trials[order[i]].metric)) {
				alive[keep++] = pl->dflt;
				kept_dflt = 1;
			}
		nalive = keep;
		if (*pl->stop || pl->budget_hit)
			break;
	}
	free(alive);
	pl->seconds = cli_now() - pl->t0;
	return rc;
}

void tune_plan_free(tune_plan *pl)
{
	for (int f = 0; f < pl->nsets; f++) {
		if (pl->train[f] != pl->borrowed)
			hog_data_free(pl->train[f]);
		hog_data_free(pl->held[f]);
	}
	free(pl->cfgs);
	free(pl->trials);
}
