/* eng_permute_rows (train/permute.c): a sparse set's rows put into another
 * order in place equal the rows copied in that order -- labels, example
 * weights, offsets, ids, values and the engine's weights -- for sets of a few
 * rows (fewer than the buckets), with empty and long rows, with and without
 * values, and one large enough that the passes give pages back many times. */
#include "hogwild.h"
#include "train/engine.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 23;
static uint64_t rnd(uint64_t m)
{
	rs = rs * 6364136223846793005ull + 1442695040888963407ull;
	return (rs >> 33) % (m ? m : 1);
}

/* A set of @p n rows of 0..2*mean nonzeros (and every 97th row long), each
 * nonzero naming its row and place, so that a misplaced one shows. */
static hog_data *make(uint64_t n, uint64_t mean, int vals, int weights)
{
	hog_data *d = calloc(1, sizeof *d);
	d->n = n;
	d->dim = 1u << 30;
	d->labels = malloc(n * 4 + 4);
	d->offsets = malloc((n + 1) * 8);
	d->weights = weights ? malloc(n * 4 + 4) : NULL;
	d->offsets[0] = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = i % 97 == 5 ? 40 * mean : rnd(2 * mean + 1);
		d->offsets[i + 1] = d->offsets[i] + k;
		d->labels[i] = (float)i;
		if (d->weights)
			d->weights[i] = (float)i + 0.5f;
	}
	d->nnz = d->offsets[n];
	d->ids = malloc(d->nnz * 4 + 4);
	d->vals = vals ? malloc(d->nnz * 4 + 4) : NULL;
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++) {
			d->ids[j] = (uint32_t)(i * 7 + (j - d->offsets[i]));
			if (d->vals)
				d->vals[j] = (float)(i % 1000) + (float)(j - d->offsets[i]) / 1024.0f;
		}
	return d;
}

/* permutes a copy of @p d by @p perm with eng_permute_rows and checks it
 * against @p d read in that order */
static void check(const hog_data *d, const uint32_t *perm, int with_wts)
{
	const uint64_t n = d->n;
	hog_data *p = calloc(1, sizeof *p);
	*p = (hog_data){ .n = n, .dim = d->dim, .nnz = d->nnz };
	p->labels = malloc(n * 4 + 4);
	memcpy(p->labels, d->labels, n * 4);
	p->offsets = malloc((n + 1) * 8);
	memcpy(p->offsets, d->offsets, (n + 1) * 8);
	p->ids = malloc(d->nnz * 4 + 4);
	memcpy(p->ids, d->ids, d->nnz * 4);
	if (d->vals) {
		p->vals = malloc(d->nnz * 4 + 4);
		memcpy(p->vals, d->vals, d->nnz * 4);
	}
	if (d->weights) {
		p->weights = malloc(n * 4 + 4);
		memcpy(p->weights, d->weights, n * 4);
	}
	float *wts = NULL;
	if (with_wts) {
		wts = malloc(n * 4 + 4);
		for (uint64_t i = 0; i < n; i++)
			wts[i] = -(float)i;
	}
	CU_ASSERT_EQUAL_FATAL(eng_permute_rows(p, perm, wts), 0);
	int bad = 0;
	CU_ASSERT_EQUAL(p->offsets[0], 0);
	CU_ASSERT_EQUAL(p->offsets[n], d->nnz);
	for (uint64_t i = 0; i < n && !bad; i++) {
		const uint32_t r = perm[i];
		const uint64_t lo = d->offsets[r], k = d->offsets[r + 1] - lo, at = p->offsets[i];
		bad |= p->offsets[i + 1] - at != k || p->labels[i] != d->labels[r];
		bad |= d->weights && p->weights[i] != d->weights[r];
		bad |= wts && wts[i] != -(float)r;
		bad |= !bad && memcmp(p->ids + at, d->ids + lo, k * 4) != 0;
		bad |= !bad && d->vals && memcmp(p->vals + at, d->vals + lo, k * 4) != 0;
	}
	CU_ASSERT_FALSE(bad);
	free(wts);
	hog_data_free(p);
}

static void run_set(uint64_t n, uint64_t mean, int vals, int weights)
{
	hog_data *d = make(n, mean, vals, weights);
	uint32_t *perm = malloc(n * 4 + 4);
	for (int q = 0; q < 3; q++) {
		eng_deal(perm, n, q == 0, 7 + (uint64_t)q); /* q 0: 0..n-1 */
		if (q == 2)                                  /* reversed */
			for (uint64_t i = 0; i < n; i++)
				perm[i] = (uint32_t)(n - 1 - i);
		check(d, perm, q != 1);
	}
	free(perm);
	hog_data_free(d);
}

static void test_small(void)
{
	for (uint64_t n = 0; n < 12; n++)
		run_set(n, 3, (int)(n & 1), (int)(n % 3 == 0));
	run_set(100, 5, 1, 1);
	run_set(1000, 0, 1, 0); /* every row empty but the long ones */
	run_set(1000, 8, 0, 1);
}

/* ~16 MB an array: many 2 MB runs given back in each pass */
static void test_large(void)
{
	run_set(200000, 20, 1, 1);
	run_set(150000, 25, 0, 0);
}

int test_permute_register(void)
{
	CU_pSuite s = CU_add_suite("permute", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_small);
	TU_ADD(s, test_large);
	return 0;
}
