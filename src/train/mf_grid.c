/* The grid scheduler of the mf trainer: see mf_grid.h. */
#include "train/mf_grid.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int hog_mf_grid_init(hog_mf_grid *g, uint32_t G, const uint64_t *size, uint64_t seed)
{
	memset(g, 0, sizeof *g);
	g->G = G;
	atomic_init(&g->lock.v, 0);
	uint64_t nb = (uint64_t)G * G;
	g->row_owner = malloc(G * sizeof *g->row_owner);
	g->col_owner = malloc(G * sizeof *g->col_owner);
	g->size = malloc(nb * sizeof *g->size);
	g->done = calloc(nb, sizeof *g->done);
	g->cursor = calloc(nb, sizeof *g->cursor);
	if (!g->row_owner || !g->col_owner || !g->size || !g->done || !g->cursor) {
		hog_mf_grid_free(g);
		return ENOMEM;
	}
	for (uint32_t k = 0; k < G; k++)
		g->row_owner[k] = g->col_owner[k] = -1;
	memcpy(g->size, size, nb * sizeof *g->size);
	g->rng = seed ^ 0x6D66677269640000ull; /* "mfgrid" */
	return 0;
}

void hog_mf_grid_free(hog_mf_grid *g)
{
	free(g->row_owner);
	free(g->col_owner);
	free(g->size);
	free(g->done);
	free(g->cursor);
	memset(g, 0, sizeof *g);
}

static uint64_t grid_rand(hog_mf_grid *g)
{
	uint64_t z = (g->rng += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

int64_t hog_mf_grid_take(hog_mf_grid *g, int w, uint64_t *start, uint64_t *avail)
{
	const uint64_t G = g->G, nb = G * G;
	hog_spin_lock(&g->lock);
	/* scan from a random block so that equal progress is broken at random */
	uint64_t first = grid_rand(g) % nb;
	int64_t best = -1;
	for (uint64_t s = 0; s < nb; s++) {
		uint64_t b = first + s < nb ? first + s : first + s - nb;
		if (!g->size[b] || g->row_owner[b / G] >= 0 || g->col_owner[b % G] >= 0)
			continue;
		/* done[b]/size[b] < done[best]/size[best], without division (both < 2^63 / 2^31
		 * in practice: blocks of up to 2^32 ratings done up to 2^31 times) */
		if (best < 0 || (unsigned __int128)g->done[b] * g->size[best] <
		                        (unsigned __int128)g->done[best] * g->size[b])
			best = (int64_t)b;
	}
	if (best >= 0) {
		uint64_t r = (uint64_t)best / G, c = (uint64_t)best % G;
		if (g->row_owner[r] >= 0 || g->col_owner[c] >= 0)
			g->conflicts++;
		g->row_owner[r] = g->col_owner[c] = w;
		*start = g->cursor[best];
		*avail = g->size[best] - g->cursor[best];
		g->takes++;
	}
	hog_spin_unlock(&g->lock);
	return best;
}

void hog_mf_grid_give(hog_mf_grid *g, int w, uint64_t b, uint64_t done)
{
	const uint64_t G = g->G;
	hog_spin_lock(&g->lock);
	uint64_t r = b / G, c = b % G;
	if (g->row_owner[r] != w || g->col_owner[c] != w || g->cursor[b] + done > g->size[b])
		g->conflicts++;
	g->row_owner[r] = g->col_owner[c] = -1;
	g->done[b] += done;
	g->cursor[b] += done;
	if (g->cursor[b] >= g->size[b])
		g->cursor[b] = 0;
	hog_spin_unlock(&g->lock);
}
