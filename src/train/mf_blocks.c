/* The mf trainer's blocks (grid and deterministic modes): the ratings cut into
 * G x G blocks by seeded bands of users and items, in place when the set is
 * the run's (mf_train.h: mf_grid_build, mf_grid_setup). */
#include "sys/err.h"
#include "train/mf_train.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Swaps ratings x and y of the grid's arrays. */
static void mf_grid_swap(mf_state *st, uint64_t x, uint64_t y)
{
	uint32_t t = st->gu[x];
	st->gu[x] = st->gu[y];
	st->gu[y] = t;
	t = st->gi[x];
	st->gi[x] = st->gi[y];
	st->gi[y] = t;
	float f = st->gr[x];
	st->gr[x] = st->gr[y];
	st->gr[y] = f;
	if (st->gw) {
		f = st->gw[x];
		st->gw[x] = st->gw[y];
		st->gw[y] = f;
	}
}

/* Each user's and item's band of G (seeded permutations), the seed stream then
 * at @p seed (its continuation shuffles the blocks: mf_grid_finish). */
static int mf_bands(const hog_engine *e, const mf_state *st, uint32_t G, uint32_t **bu_out, uint32_t **bi_out, uint64_t *seed)
{
	const uint64_t U = st->l.users, I = st->l.items;
	uint32_t *pu = malloc(U * sizeof *pu), *pi = malloc(I * sizeof *pi);
	uint32_t *bu = malloc(U * sizeof *bu), *bi = malloc(I * sizeof *bi);
	if (!pu || !pi || !bu || !bi) {
		free(pu);
		free(pi);
		free(bu);
		free(bi);
		return ENOMEM;
	}
	*seed = e->o.seed * 0x9E3779B97F4A7C15ull + 0x6772696400ull;
	for (uint64_t j = 0; j < U; j++)
		pu[j] = (uint32_t)j;
	eng_shuffle_u32(pu, U, eng_mix64(seed));
	for (uint64_t j = 0; j < I; j++)
		pi[j] = (uint32_t)j;
	eng_shuffle_u32(pi, I, eng_mix64(seed));
	for (uint64_t j = 0; j < U; j++) /* the user at place j of the permutation: band j G / U */
		bu[pu[j]] = (uint32_t)(j * G / U);
	for (uint64_t j = 0; j < I; j++)
		bi[pi[j]] = (uint32_t)(j * G / I);
	free(pu);
	free(pi);
	*bu_out = bu;
	*bi_out = bi;
	return 0;
}

/* The @p n ratings in gu, gi, gr (gw), in data order, put in block order in
 * place (gstart: the blocks). */
static int mf_grid_partition(mf_state *st, const uint32_t *bu, const uint32_t *bi, uint32_t G, uint64_t n)
{
	const uint64_t nb = (uint64_t)G * G;
	uint64_t *next = malloc((nb + 1) * sizeof *next);
	if (!next || !(st->gstart = calloc(nb + 1, sizeof *st->gstart))) {
		free(next);
		return ENOMEM;
	}
#define GRID_KEY(x) ((uint64_t)bu[st->gu[x]] * G + bi[st->gi[x]])
	for (uint64_t x = 0; x < n; x++)
		st->gstart[GRID_KEY(x) + 1]++;
	for (uint64_t b = 0; b < nb; b++)
		st->gstart[b + 1] += st->gstart[b];
	memcpy(next, st->gstart, (nb + 1) * sizeof *next);
	for (uint64_t b = 0; b < nb; b++) /* each slot of block b filled with one of its ratings */
		while (next[b] < st->gstart[b + 1]) {
			const uint64_t x = next[b], k = GRID_KEY(x);
			if (k != b)
				mf_grid_swap(st, x, next[k]);
			next[k]++;
		}
#undef GRID_KEY
	free(next);
	return 0;
}

/* Each block shuffled from @p seed, and the scheduler's sizes. */
static int mf_grid_finish(hog_engine *e, mf_state *st, uint32_t G, uint64_t seed)
{
	const uint64_t nb = (uint64_t)G * G;
	uint64_t *size = malloc((nb ? nb : 1) * sizeof *size);
	if (!size)
		return ENOMEM;
	for (uint64_t b = 0; b < nb; b++) {
		const uint64_t a = st->gstart[b], n = st->gstart[b + 1] - a;
		size[b] = n;
		for (uint64_t j = n; j > 1; j--) /* Fisher-Yates (the weights along) */
			mf_grid_swap(st, a + j - 1, a + eng_mix64(&seed) % j);
	}
	int rc = hog_mf_grid_init(&st->grid, G, size, e->o.seed);
	free(size);
	if (!rc)
		st->has_grid = 1;
	return rc;
}

/* Cuts the rank's ratings into G x G blocks by bands of randomly permuted users
 * and items (as LIBMF does: ids in files are often ordered by popularity, and
 * bands of consecutive ids would be very uneven), and shuffles each block once.
 * A set handed over (hog_train_consume, one MPI rank) is put in block order in
 * its own arrays, in place: one copy of the ratings in memory (a weighted set's
 * weights are copied, 4 bytes a rating); otherwise the rank's ratings are
 * copied first. The blocks' order is an in-place partition (American flag
 * sort: each rating swapped into the next free slot of its block), then each
 * block is shuffled from the seed: the same blocks, in the same order, either
 * way. */
int mf_grid_build(hog_engine *e, mf_state *st, uint32_t G)
{
	const hog_data *tr = e->tr;
	const uint64_t nr = st->nmine;
	uint32_t *bu = NULL, *bi = NULL;
	uint64_t seed;
	int rc = mf_bands(e, st, G, &bu, &bi, &seed);
	if (rc)
		return rc;
	rc = ENOMEM;
	if (e->own && !st->mine) { /* the set's own arrays */
		st->gu = e->own->users;
		st->gi = e->own->items;
		st->gr = e->own->ratings;
		st->gown = 1;
	} else {
		const uint64_t m = nr ? nr : 1;
		if (!(st->gu = malloc(m * sizeof *st->gu)) || !(st->gi = malloc(m * sizeof *st->gi)) ||
		    !(st->gr = malloc(m * sizeof *st->gr)))
			goto out;
		for (uint64_t x = 0; x < nr; x++) {
			const uint64_t j = MF_RATING(st, x);
			st->gu[x] = tr->users[j];
			st->gi[x] = tr->items[j];
			st->gr[x] = tr->ratings[j];
		}
	}
	if (e->wts) {
		if (!(st->gw = malloc((nr ? nr : 1) * sizeof *st->gw)))
			goto out;
		for (uint64_t x = 0; x < nr; x++)
			st->gw[x] = e->wts[MF_RATING(st, x)];
	}
	if (!(rc = mf_grid_partition(st, bu, bi, G, nr)))
		rc = mf_grid_finish(e, st, G, seed);
out:
	free(bu);
	free(bi);
	return rc;
}

/* Grid mode: the side G (--grid, or from the threads) and the blocks of this
 * rank's ratings. Returns 0, HOG_ECONFIG or ENOMEM, with the message. */
int mf_grid_setup(hog_engine *e, mf_state *st)
{
	const hog_train_opts *o = &e->o;
	uint32_t G = o->mf.grid ? o->mf.grid : 2u * (uint32_t)e->T + 1u;
	/* grid is mf's default mode: on a set with fewer ratings than the
	 * automatic G x G blocks (many cores, a small set), take the largest G
	 * that has a rating a block, while every worker can still find one */
	while (!o->mf.grid && G > (uint32_t)e->T && (uint64_t)G * G > st->nmine)
		G--;
	if (G < (uint32_t)e->T)
		return hog_err_set(e->err, HOG_ECONFIG,
		                   "--grid %u is smaller than the %d threads: some workers would never find "
		                   "a free block (use --grid %d or more)", G, e->T, e->T);
	if ((uint64_t)G * G > st->nmine)
		return hog_err_set(e->err, HOG_ECONFIG, "--grid %u makes more blocks than there are ratings (%llu%s)%s",
		                   G, (unsigned long long)st->nmine, e->ranks > 1 ? " on this MPI rank" : "",
		                   o->mf.grid ? "" : "; use fewer --threads or --mode lockfree");
	if (mf_grid_build(e, st, G))
		return hog_err_set(e->err, ENOMEM, "mf: out of memory for %llu users x %llu items at rank %u",
		                   (unsigned long long)st->l.users, (unsigned long long)st->l.items, o->mf.rank);
	return 0;
}

