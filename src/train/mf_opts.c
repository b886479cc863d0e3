/* The mf model's options (mf_opts.h): its own group, hog_train_opts.mf
 * (--rank, --biases, --grid), its defaults and its part of the options hash,
 * and the check of every option as mf takes it.
 *
 * Defaults when left unset (why):
 *   lr   sgd 0.03, adagrad 0.1 (LIBMF's alpha for the same per-row rule). On
 *        MovieLens latest-small (rank 32 and 100, l2 0.05, 20 epochs, backoff)
 *        sgd at 0.01 / 0.03 / 0.05 / 0.1 gave test RMSE 0.90 / 0.87 / 0.87 /
 *        0.88 without biases; 0.03 is at the bottom there and stable on the
 *        generated sets (bench/results/mf.md).
 *   l2   0.05 when o.l2 is the generic default 1e-6: that value is tuned for
 *        the linear model's per-coordinate L2 scaled by feature frequency and
 *        does not regularize factors at all; 0.05 is LIBMF's usual setting and
 *        what bench/mf.sh compares at. Any other value is taken as given.
 *   loss squared (the only one mf has; logistic, the generic default, becomes
 *        squared, hinge is refused).
 *   rank 32.  grid: 2 T + 1 blocks per side (LIBMF's advice: more blocks than
 *        threads so a worker always finds a free one).
 * The two are in the units of MovieLens's ratings (0.5..5). Ratings c times
 * as wide (mf_scale: the range over 4.5, where above 1) have errors c times,
 * factors sqrt(c) times and gradients c^1.5 times as large: the default step
 * is then lr / c and the default l2 l2 c, and sgd's biases (c times as large,
 * their gradient c times) weigh their error c times (hog_mf_opts.bias_step):
 * then every update is the 0.5..5 run's in the wider units. MovieLens doubled
 * (1..10): test RMSE 1.7752 with the 0.5..5 defaults against a user+item bias
 * model's 1.7219; 1.7069 with the step and l2 scaled, 1.7018 with the biases'
 * step too (the plain set's 0.853 doubled: 1.706); times 20 diverged, then
 * 17.52, then 17.10 (17.06; the bias model 17.22). Narrower ratings (1..5,
 * 0/1) keep the defaults, byte for byte.
 */
#include "train/engine.h"
#include "train/mf_opts.h"
#include "model/mf.h"
#include "sys/err.h"
#include "sys/hash.h"
#include "sys/names.h"
#include <math.h>

#define MF_DEFAULT_RANK 32u
#define MF_DEFAULT_L2 0.05
#define MF_GENERIC_L2 1e-6   /* hog_train_opts_init's l2: "not set" for mf */
#define MF_DET_SHARDS 16      /* --shards' default: 16 x 16 blocks, 16 at a time (1-16 cores) */
#define MF_DET_SHARDS_MAX 4096

void mf_opts_init(hog_train_opts *o)
{
	o->mf.rank = MF_DEFAULT_RANK;
}

uint64_t mf_opts_hash(const hog_train_opts *o, uint64_t h)
{
	const hog_mf_opts *m = &o->mf;
	int64_t v[] = { m->rank, m->biases, m->grid };
	return hog_fnv(h, v, sizeof v);
}

int mf_opts_check(hog_train_opts *o, const hog_data *tr, const hog_data *te, hog_err *err)
{
	int rc = eng_check_mode_opts(o, err);
	if (rc)
		return rc;
	if (tr->meta.kind != HOG_KIND_RATINGS)
		return hog_err_set(err, HOG_EMISMATCH,
		                   "--model mf needs a ratings data set (user, item, rating: data import "
		                   "--format ratings, data gen --kind ratings); the training set is %s",
		                   tr->meta.kind == HOG_KIND_SPARSE ? "sparse" : "dense");
	if (te && te->meta.kind != HOG_KIND_RATINGS)
		return hog_err_set(err, HOG_EMISMATCH,
		                   "--model mf needs a ratings data set; the test set is %s",
		                   te->meta.kind == HOG_KIND_SPARSE ? "sparse" : "dense");
	if (o->rule != HOG_RULE_SGD && o->rule != HOG_RULE_ADAGRAD)
		return hog_err_set(err, HOG_ECONFIG, "--optimizer %s is not available for --model mf (use sgd or adagrad)",
		                   hog_rule_name(o->rule));
	if (o->mode == HOG_MODE_BUFFERED)
		return hog_err_set(err, HOG_ECONFIG,
		                   "--mode buffered is not available for --model mf (an update touches one "
		                   "user row and one item row: there are no hot coordinates to buffer); use "
		                   "lockfree, atomic, striped, locked, grid, deterministic or serial");
	if (o->mode != HOG_MODE_GRID && o->mf.grid)
		return hog_err_set(err, HOG_ECONFIG, "--grid %u needs --mode grid", o->mf.grid);
	if (o->mode == HOG_MODE_DETERMINISTIC) { /* (mf_train.c, "Deterministic mode") */
		if (o->shards == 0)
			o->shards = MF_DET_SHARDS;
		if (o->shards < 1 || o->shards > MF_DET_SHARDS_MAX)
			return hog_err_set(err, HOG_ECONFIG, "--shards must be 1..%d for --model mf (a grid of "
			                   "shards x shards blocks), not %d", MF_DET_SHARDS_MAX, o->shards);
		if (o->sync_every)
			return hog_err_set(err, HOG_ECONFIG, "--mode deterministic trains on one MPI rank: no --sync-every");
		o->round_examples = 1; /* a round is a stratum: a worker's position counts strata */
	}
	if (o->delay)
		return hog_err_set(err, HOG_ECONFIG, "--delay is not available for --model mf");
	if (o->loss == HOG_LOSS_HINGE)
		return hog_err_set(err, HOG_ECONFIG, "--model mf takes the squared loss only, not hinge");
	o->loss = HOG_LOSS_SQUARED;
	if (!o->mf.rank)
		o->mf.rank = MF_DEFAULT_RANK;
	if (tr->n && !tr->users && (o->mode == HOG_MODE_GRID || o->mode == HOG_MODE_DETERMINISTIC))
		return hog_err_set(err, HOG_ECONFIG, "--mode %s cuts the ratings into blocks of users and items, which needs "
		                   "them loaded: with --stream, mf trains in lockfree (its default there), atomic, striped, "
		                   "locked or serial mode", hog_mode_name(o->mode));
	if (o->mf.rank > HOG_MF_RANK_MAX)
		return hog_err_set(err, HOG_ECONFIG, "--rank %u is too large (at most %u)", o->mf.rank,
		                   HOG_MF_RANK_MAX);
	if (tr->meta.users == 0 || tr->meta.items == 0 || tr->n == 0)
		return hog_err_set(err, HOG_EDATA, "the training set has no ratings");
	if (!(o->l2 >= 0) || !isfinite(o->l2))
		return hog_err_set(err, HOG_ECONFIG, "--l2 must be a number >= 0");
	const double c = mf_scale(&tr->meta);
	o->mf.bias_step = o->lr == 0 && o->l2 == MF_GENERIC_L2 ? c : 1; /* (both defaults scaled: the biases' step too) */
	o->l2 = mf_l2_of(o, c);
	if (o->lr == 0)
		o->lr = mf_default_lr(o, c);
	return 0;
}

double mf_scale(const hog_meta *m)
{
	const double w = (double)m->label_max - (double)m->label_min;
	return isfinite(w) && w > 4.5 ? w / 4.5 : 1.0;
}

double mf_l2_of(const hog_train_opts *o, double scale)
{
	return o->l2 == MF_GENERIC_L2 ? MF_DEFAULT_L2 * scale : o->l2;
}

double mf_default_lr(const hog_train_opts *o, double scale)
{
	return (o->rule == HOG_RULE_ADAGRAD ? 0.1 : 0.03) / scale;
}

/* The default mode: grid, conflict-free blocks, 2.6x plain lockfree at 2
 * threads on MovieLens-shaped data (bench/results/mf.md: sgd rank 32, 72.2 M
 * updates/s against 27.4; adagrad 51.8 against 19.3) at the same RMSE after 20
 * epochs (0.8714 against 0.8694). Streamed (--stream): lockfree, the grid
 * being built from the loaded ratings. */
enum hog_mode mf_opts_default_mode(const hog_train_opts *o, int stream, const hog_meta *m)
{
	(void)o;
	(void)m;
	return stream ? HOG_MODE_LOCKFREE : HOG_MODE_GRID; /* (grid's blocks need the ratings loaded) */
}

