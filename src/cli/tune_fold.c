/* tune's folds (tune.h): which examples each fold holds out. No other CLI
 * file is needed, so that the unit tests link it. */
#include "cli/tune.h"
#include <stdlib.h>

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint64_t tune_cut_ids(uint64_t n, uint64_t lo, uint64_t hi, uint64_t seed, int in, uint64_t *idx)
{
	uint64_t *perm = malloc((n + 1) * sizeof *perm);
	unsigned char *mark = calloc(n + 1, 1);
	uint64_t k = 0;
	if (perm && mark) {
		for (uint64_t i = 0; i < n; i++)
			perm[i] = i;
		for (uint64_t i = n; i > 1; i--) {
			uint64_t j = mix(&seed) % i, t = perm[i - 1];
			perm[i - 1] = perm[j];
			perm[j] = t;
		}
		for (uint64_t i = lo; i < hi; i++)
			mark[perm[i]] = 1;
		for (uint64_t i = 0; i < n; i++)
			if (mark[i] == in)
				idx[k++] = i;
	}
	free(perm);
	free(mark);
	return k;
}

uint64_t tune_fold(uint64_t n, int k, int f, uint64_t seed, uint64_t *idx)
{
	return tune_cut_ids(n, n * (uint64_t)f / (uint64_t)k, n * (uint64_t)(f + 1) / (uint64_t)k, seed, 1, idx);
}

