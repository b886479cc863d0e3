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
 * features of (sample count)^2, a few million steps for 1000 examples of RCV1.
 *
 * hog_store_stats() computes the same numbers from the blocks, one at a time:
 * a count per feature and a copy of the sampled examples' rows are all it keeps,
 * so a set larger than memory gets its statistics too (issue 23). */
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

/* The sampled examples' rows, copied out of the set: row k is
 * ids[off[k]..off[k+1]). All that rho needs, whether the set is loaded or read
 * a block at a time. */
typedef struct hog_stats_rows {
	uint64_t m, cap;
	uint64_t *off;
	uint32_t *ids;
} hog_stats_rows;

static void hog_stats_rows_free(hog_stats_rows *r)
{
	free(r->off);
	free(r->ids);
}

static int hog_stats_rows_init(hog_stats_rows *r, uint64_t m, hog_err *err)
{
	memset(r, 0, sizeof *r);
	if (!(r->off = calloc(m + 1, 8)))
		return hog_err_set(err, ENOMEM, "stats: out of memory for the sample");
	return 0;
}

/* Appends the row ids[0..k) as the next sampled row. */
static int hog_stats_rows_add(hog_stats_rows *r, const uint32_t *ids, uint64_t k, hog_err *err)
{
	uint64_t at = r->off[r->m];
	if (at + k > r->cap) {
		uint64_t cap = r->cap ? r->cap : 1024;
		while (cap < at + k)
			cap *= 2;
		uint32_t *p = realloc(r->ids, cap * 4);
		if (!p)
			return hog_err_set(err, ENOMEM, "stats: out of memory for the sample");
		r->ids = p;
		r->cap = cap;
	}
	if (k)
		memcpy(r->ids + at, ids, k * 4);
	r->off[++r->m] = at + k;
	return 0;
}

/* rho over the sampled rows r (r->m of them, ids below dim): fills rho_max and rho_mean. */
static int hog_stats_rho(const hog_stats_rows *r, uint64_t dim, hog_stats *st, hog_err *err)
{
	st->rho_max = st->rho_mean = 0;
	uint64_t m = r->m;
	if (m < 2)
		return 0;
	const uint64_t *off = r->off;
	const uint32_t *ids = r->ids;
	uint64_t tot = off[m];
	/* inverted index in compressed form: start[f]..start[f+1] in list */
	uint64_t *start = calloc(dim + 1, 8);
	uint32_t *list = malloc(tot * 4 + 4), *seen = calloc(m, 4);
	if (!start || !list || !seen) {
		free(start);
		free(list);
		free(seen);
		return hog_err_set(err, ENOMEM, "stats: out of memory for the sample");
	}
	for (uint64_t j = 0; j < tot; j++)
		start[ids[j] + 1]++;
	for (uint64_t f = 0; f < dim; f++)
		start[f + 1] += start[f];
	for (uint64_t k = 0; k < m; k++) /* k increases, so each list is sorted */
		for (uint64_t j = off[k]; j < off[k + 1]; j++)
			list[start[ids[j]]++] = (uint32_t)k;
	for (uint64_t f = dim; f > 0; f--) /* the fill moved each start to the next one's */
		start[f] = start[f - 1];
	start[0] = 0;
	double sum = 0;
	for (uint64_t k = 0; k < m; k++) {
		uint32_t stamp = (uint32_t)k + 1, c = 0;
		seen[k] = stamp; /* the example itself is not its own neighbour */
		for (uint64_t j = off[k]; j < off[k + 1] && c < m - 1; j++) {
			uint32_t f = ids[j];
			for (uint64_t q = start[f]; q < start[f + 1]; q++)
				if (seen[list[q]] != stamp) {
					seen[list[q]] = stamp;
					c++;
				}
		}
		double rr = (double)c / (double)(m - 1);
		sum += rr;
		if (rr > st->rho_max)
			st->rho_max = rr;
	}
	st->rho_mean = sum / (double)m;
	free(start);
	free(list);
	free(seen);
	return 0;
}

/* The start both versions share: the counts from the meta data, or 1 when there
 * is nothing to count (no examples or no features). */
static int hog_stats_begin(const hog_meta *meta, uint64_t n, uint64_t dim, uint64_t nnz, hog_stats *st,
                           hog_err *err)
{
	memset(st, 0, sizeof *st);
	if (meta->kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_ENOTSUP, "stats: only sparse data sets have features shared by examples "
		                   "(this one is %s)", hog_kind_name(meta->kind));
	st->examples = n;
	st->features = dim;
	st->nnz = nnz;
	if (n == 0 || dim == 0)
		return 1;
	st->nnz_min = UINT64_MAX;
	st->nnz_mean = (double)nnz / (double)n;
	return 0;
}

/* The sample's size for n examples, and its indices (increasing) in *out. */
static int hog_stats_pick(uint64_t n, uint64_t sample, uint64_t seed, uint64_t **out, uint64_t *m_out,
                          hog_err *err)
{
	uint64_t m = sample < n ? sample : n;
	if (m > UINT32_MAX - 1)
		m = UINT32_MAX - 1;
	if (!(*out = malloc(m * 8 + 8)))
		return hog_err_set(err, ENOMEM, "stats: out of memory for the sample");
	hog_stats_sample(n, m, seed, *out);
	*m_out = m;
	return 0;
}

/* From the per-feature example counts cnt[0..dim) (sorted, so changed):
 * used features, the top feature, Delta and the hottest 1%'s share. */
static void hog_stats_features(uint64_t *cnt, uint64_t dim, hog_stats *st)
{
	for (uint64_t f = 0; f < dim; f++) {
		st->used_features += cnt[f] > 0;
		if (cnt[f] > st->top_count) {
			st->top_count = cnt[f];
			st->top_feature = f;
		}
	}
	st->delta = (double)st->top_count / (double)st->examples;
	/* "1% most used": 1% of the dimension (at least one feature), ties broken anyhow */
	uint64_t hot = dim / 100 ? dim / 100 : 1, hot_nnz = 0;
	qsort(cnt, dim, 8, hog_stats_cmp_desc);
	for (uint64_t f = 0; f < hot; f++)
		hot_nnz += cnt[f];
	st->hot1pct_share = st->nnz ? (double)hot_nnz / (double)st->nnz : 0;
}

int hog_data_stats(const hog_data *d, uint64_t sample, uint64_t seed, hog_stats *st, hog_err *err)
{
	int rc = hog_stats_begin(&d->meta, d->n, d->dim, d->nnz, st, err);
	if (rc)
		return rc > 0 ? 0 : rc;
	uint64_t n = d->n, dim = d->dim, m = 0, *s = NULL, *cnt = calloc(dim, 8);
	if (!cnt)
		return hog_err_set(err, ENOMEM, "stats: out of memory for %llu feature counts", (unsigned long long)dim);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = d->offsets[i + 1] - d->offsets[i];
		if (k < st->nnz_min) st->nnz_min = k;
		if (k > st->nnz_max) st->nnz_max = k;
	}
	/* ids are distinct within an example, so a feature's count is its example count */
	for (uint64_t j = 0; j < d->nnz; j++)
		cnt[d->ids[j]]++;
	hog_stats_features(cnt, dim, st);
	free(cnt);
	hog_stats_rows r;
	if ((rc = hog_stats_pick(n, sample, seed, &s, &m, err)))
		return rc;
	if ((rc = hog_stats_rows_init(&r, m, err))) {
		free(s);
		return rc;
	}
	for (uint64_t k = 0; k < m && !rc; k++)
		rc = hog_stats_rows_add(&r, d->ids + d->offsets[s[k]], d->offsets[s[k] + 1] - d->offsets[s[k]], err);
	if (!rc)
		rc = hog_stats_rho(&r, dim, st, err);
	hog_stats_rows_free(&r);
	free(s);
	return rc;
}

/* The same numbers as hog_data_stats() on the loaded set, in one pass over the
 * blocks: the feature counts and the sampled rows are all it keeps. */
int hog_store_stats(hog_store *s, uint64_t sample, uint64_t seed, hog_stats *st, hog_err *err)
{
	const hog_meta *meta = hog_store_meta(s);
	uint64_t n = meta->examples, dim = meta->features;
	int rc = hog_stats_begin(meta, n, dim, meta->nnz, st, err);
	if (rc)
		return rc > 0 ? 0 : rc;
	uint64_t m = 0, *pick = NULL, *cnt = calloc(dim, 8), seen = 0;
	hog_stats_rows r = { 0 };
	hog_blockbuf bb = { 0 };
	if (!cnt)
		return hog_err_set(err, ENOMEM, "stats: out of memory for %llu feature counts", (unsigned long long)dim);
	if ((rc = hog_stats_pick(n, sample, seed, &pick, &m, err)) || (rc = hog_stats_rows_init(&r, m, err)))
		goto out;
	for (uint64_t bi = 0; bi < meta->blocks; bi++) {
		hog_block b;
		if ((rc = hog_store_block_buf(s, bi, &b, &bb, err)))
			goto out;
		if (b.kind != HOG_KIND_SPARSE || b.first != seen || b.n > n - seen) {
			rc = hog_err_set(err, HOG_ECORRUPT, "stats: block %llu does not follow the one before it",
			                 (unsigned long long)bi);
			goto out;
		}
		for (uint32_t i = 0; i < b.n; i++) {
			uint64_t k = b.offsets[i + 1] - b.offsets[i];
			const uint32_t *ids = b.ids + b.offsets[i];
			if (k < st->nnz_min) st->nnz_min = k;
			if (k > st->nnz_max) st->nnz_max = k;
			for (uint64_t j = 0; j < k; j++)
				cnt[ids[j]]++;
			if (r.m < m && pick[r.m] == b.first + i && (rc = hog_stats_rows_add(&r, ids, k, err)))
				goto out;
		}
		seen += b.n;
		hog_store_release(s, &b);
	}
	if (seen != n) {
		rc = hog_err_set(err, HOG_ECORRUPT, "stats: the blocks hold %llu examples, the meta data says %llu",
		                 (unsigned long long)seen, (unsigned long long)n);
		goto out;
	}
	hog_stats_features(cnt, dim, st);
	rc = hog_stats_rho(&r, dim, st, err);
out:
	hog_blockbuf_free(&bb);
	hog_stats_rows_free(&r);
	free(pick);
	free(cnt);
	return rc;
}
