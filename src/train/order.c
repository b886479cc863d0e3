/* The order an epoch visits a worker's examples in: a seeded shuffle of them,
 * or chunks of consecutive ones in a seeded order (--shuffle-chunk: the rows of
 * a worker's copied shard stream from memory); and the linear model's deal of
 * the examples to the workers, a seeded shuffle of the rows whatever the
 * epochs' order, so that chunks of a shard are chunks of a random order (issue
 * 22). engine.h declares them. */
#include "train/engine.h"

void eng_shuffle_u32(uint32_t *a, uint64_t n, uint64_t seed)
{
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = eng_mix64(&seed) % i;
		uint32_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

void eng_chunk_order(uint32_t *out, const uint32_t *items, uint64_t n, uint64_t chunk, uint64_t seed,
                     uint32_t *c)
{
	if (chunk <= 1) {
		for (uint64_t i = 0; i < n; i++)
			out[i] = items ? items[i] : (uint32_t)i;
		eng_shuffle_u32(out, n, seed);
		return;
	}
	const uint64_t nc = eng_chunk_count(n, chunk);
	for (uint64_t j = 0; j < nc; j++)
		c[j] = (uint32_t)j;
	eng_shuffle_u32(c, nc, seed);
	uint64_t at = 0;
	for (uint64_t j = 0; j < nc; j++)
		for (uint64_t i = c[j] * chunk, end = i + chunk < n ? i + chunk : n; i < end; i++)
			out[at++] = items ? items[i] : (uint32_t)i;
}

void eng_deal(uint32_t *perm, uint64_t n, int no_shuffle, uint64_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	if (!no_shuffle)
		eng_shuffle_u32(perm, n, seed);
}

void eng_epoch_order(const hog_train_opts *o, uint32_t *out, const uint32_t *items, uint64_t n, int epoch,
                     int worker, uint32_t *scratch)
{
	if (o->no_shuffle) {
		for (uint64_t i = 0; i < n; i++)
			out[i] = items ? items[i] : (uint32_t)i;
		return;
	}
	uint64_t seed = o->seed ^ 0x5EEDull;
	seed = eng_mix64(&seed) ^ ((uint64_t)epoch << 20) ^ (uint64_t)worker;
	/* (the same swaps whatever the items) */
	eng_chunk_order(out, items, n, o->shuffle_chunk, eng_mix64(&seed), scratch);
}
