/* hog_data_stats(): how much the examples of a sparse data set collide, in the
 * terms of the Hogwild! paper (Niu, Recht, Re, Wright 2011, §2). The examples are
 * hyperedges over the features; the paper's speed-up argument rests on three
 * numbers: Omega (the longest example, nnz_max here), Delta (the largest share of
 * examples that touch one feature) and rho (the largest share of examples that
 * share a feature with a given one). Delta and Omega are exact; rho is estimated
 * on a sample of examples, since the exact value costs a pass per example.
 *
 * rho on a sample: an inverted index (feature -> sampled examples holding it) over
 * the sample, then for each sampled example a walk over the lists of its features
 * with a stamp array that counts each neighbour once. The work is the sum over
 * features of (sample count)^2, a few million steps for 1000 examples of RCV1. */
#include "data/store.h"
#include "sys/err.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: enough randomness to pick a sample, reproducible from the seed. */
static uint64_t hog_stats_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int hog_stats_cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x < y) - (x > y);
}

/* Picks m of n examples, each subset equally likely, in increasing order (Knuth's
 * selection sampling, TAOCP vol. 2, 3.4.2 algorithm S): one pass, no set. */
static void hog_stats_sample(uint64_t n, uint64_t m, uint64_t seed, uint64_t *out)
{
	uint64_t x = seed, got = 0;
	for (uint64_t i = 0; i < n && got < m; i++) {
		double u = (double)(hog_stats_next(&x) >> 11) * 0x1p-53;
		if ((double)(n - i) * u < (double)(m - got))
			out[got++] = i;
	}
}

/* rho over the sample s[0..m): fills rho_max and rho_mean. */
static int hog_stats_rho(const hog_data *d, const uint64_t *s, uint64_t m, hog_stats *st, hog_err *err)
{
	st->rho_max = st->rho_mean = 0;
	if (m < 2)
		return 0;
	uint64_t dim = d->dim, tot = 0;
	for (uint64_t k = 0; k < m; k++)
		tot += d->offsets[s[k] + 1] - d->offsets[s[k]];
	/* inverted index in compressed form: start[f]..start[f+1] in list */
	uint64_t *start = calloc(dim + 1, 8);
	uint32_t *list = malloc(tot * 4 + 4), *seen = calloc(m, 4);
	if (!start || !list || !seen) {
		free(start);
		free(list);
		free(seen);
		return hog_err_set(err, ENOMEM, "stats: out of memory for the sample");
	}
	for (uint64_t k = 0; k < m; k++)
		for (uint64_t j = d->offsets[s[k]]; j < d->offsets[s[k] + 1]; j++)
			start[d->ids[j] + 1]++;
	for (uint64_t f = 0; f < dim; f++)
		start[f + 1] += start[f];
	for (uint64_t k = 0; k < m; k++) /* k increases, so each list is sorted */
		for (uint64_t j = d->offsets[s[k]]; j < d->offsets[s[k] + 1]; j++)
			list[start[d->ids[j]]++] = (uint32_t)k;
	for (uint64_t f = dim; f > 0; f--) /* the fill moved each start to the next one's */
		start[f] = start[f - 1];
	start[0] = 0;
	double sum = 0;
	for (uint64_t k = 0; k < m; k++) {
		uint32_t stamp = (uint32_t)k + 1, c = 0;
		seen[k] = stamp; /* the example itself is not its own neighbour */
		for (uint64_t j = d->offsets[s[k]]; j < d->offsets[s[k] + 1] && c < m - 1; j++) {
			uint32_t f = d->ids[j];
			for (uint64_t q = start[f]; q < start[f + 1]; q++)
				if (seen[list[q]] != stamp) {
					seen[list[q]] = stamp;
					c++;
				}
		}
		double r = (double)c / (double)(m - 1);
		sum += r;
		if (r > st->rho_max)
			st->rho_max = r;
	}
	st->rho_mean = sum / (double)m;
	free(start);
	free(list);
	free(seen);
	return 0;
}

int hog_data_stats(const hog_data *d, uint64_t sample, uint64_t seed, hog_stats *st, hog_err *err)
{
	memset(st, 0, sizeof *st);
	if (d->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_ENOTSUP, "stats: only sparse data sets have features shared by examples "
		                   "(this one is %s)", hog_kind_name(d->meta.kind));
	uint64_t n = d->n, dim = d->dim;
	st->examples = n;
	st->features = dim;
	st->nnz = d->nnz;
	if (n == 0 || dim == 0)
		return 0;
	uint64_t *cnt = calloc(dim, 8);
	if (!cnt)
		return hog_err_set(err, ENOMEM, "stats: out of memory for %llu feature counts", (unsigned long long)dim);
	st->nnz_min = UINT64_MAX;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = d->offsets[i + 1] - d->offsets[i];
		if (k < st->nnz_min) st->nnz_min = k;
		if (k > st->nnz_max) st->nnz_max = k;
	}
	st->nnz_mean = (double)d->nnz / (double)n;
	/* ids are distinct within an example, so a feature's count is its example count */
	for (uint64_t j = 0; j < d->nnz; j++)
		cnt[d->ids[j]]++;
	for (uint64_t f = 0; f < dim; f++) {
		st->used_features += cnt[f] > 0;
		if (cnt[f] > st->top_count) {
			st->top_count = cnt[f];
			st->top_feature = f;
		}
	}
	st->delta = (double)st->top_count / (double)n;
	/* "1% most used": 1% of the dimension (at least one feature), ties broken anyhow */
	uint64_t hot = dim / 100 ? dim / 100 : 1, hot_nnz = 0;
	qsort(cnt, dim, 8, hog_stats_cmp_desc);
	for (uint64_t f = 0; f < hot; f++)
		hot_nnz += cnt[f];
	st->hot1pct_share = d->nnz ? (double)hot_nnz / (double)d->nnz : 0;
	free(cnt);
	uint64_t m = sample < n ? sample : n;
	if (m > UINT32_MAX - 1)
		m = UINT32_MAX - 1;
	uint64_t *s = malloc(m * 8 + 8);
	if (!s)
		return hog_err_set(err, ENOMEM, "stats: out of memory for the sample");
	hog_stats_sample(n, m, seed, s);
	int rc = hog_stats_rho(d, s, m, st, err);
	free(s);
	return rc;
}
