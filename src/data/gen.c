/* hog_gen(): synthetic data sets with known structure, for benchmarks and tests.
 *
 * sparse (the default) has RCV1's shape (Niu et al. 2011 train on it): 781,265
 * examples over 47,236 features with about 71 nonzeros each. Row lengths are
 * lognormal; feature popularity is Zipf-like over a random permutation of the ids,
 * so the hot features (the ones cores fight over) sit anywhere in the id range.
 * Values are tf-idf-like and each row has unit L2 norm. Labels come from a hidden
 * sparse linear model, thresholded at the median margin (balanced classes) with
 * the rows nearest the threshold drawn again, then flipped with probability
 * `noise`: a linear model trained on the set gets close to 1 - noise.
 *
 * ratings: (user, item, rating) from rank-k factors plus biases plus Gaussian
 * noise, clipped to [1, 5]; item popularity is Zipf-like. dense: Gaussian clusters,
 * one per class.
 *
 * Everything is a function of the seed: independent xoshiro256** streams (seeded
 * through splitmix64) for the model, the rows and the label flips, so the same
 * seed gives the same file, and changing only `noise` flips labels without
 * changing any row. */
#include "data/store.h"
#include "sys/err.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- random numbers */

typedef struct hog_gen_rng {
	uint64_t s[4];
	double spare; /* the second Box-Muller value */
	int has_spare;
} hog_gen_rng;

static uint64_t hog_gen_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* One stream per purpose: streams stay independent whatever the others draw. */
static void hog_gen_rng_init(hog_gen_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed, h = hog_gen_splitmix(&x);
	x = h ^ (stream * 0xd1b54a32d192ed03ull);
	for (int i = 0; i < 4; i++)
		r->s[i] = hog_gen_splitmix(&x);
	r->has_spare = 0;
}

static inline uint64_t hog_gen_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** (Blackman & Vigna 2018). */
static inline uint64_t hog_gen_next(hog_gen_rng *r)
{
	uint64_t *s = r->s, out = hog_gen_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = hog_gen_rotl(s[3], 45);
	return out;
}

/* Uniform in [0, 1) with 53 bits. */
static inline double hog_gen_unif(hog_gen_rng *r) { return (double)(hog_gen_next(r) >> 11) * 0x1p-53; }

/* Uniform in [0, n) for n <= 2^32 (Lemire's multiply-shift; the bias is below 2^-32). */
static inline uint64_t hog_gen_below(hog_gen_rng *r, uint64_t n) { return ((hog_gen_next(r) >> 32) * n) >> 32; }

/* Standard normal by Box-Muller, both values used. */
static double hog_gen_gauss(hog_gen_rng *r)
{
	if (r->has_spare) {
		r->has_spare = 0;
		return r->spare;
	}
	double u = 1.0 - hog_gen_unif(r), v = hog_gen_unif(r), m = sqrt(-2.0 * log(u));
	r->spare = m * sin(2 * M_PI * v);
	r->has_spare = 1;
	return m * cos(2 * M_PI * v);
}

/* Random permutation of 0..n-1 (Fisher-Yates). */
static void hog_gen_shuffle(hog_gen_rng *r, uint32_t *a, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		a[i] = (uint32_t)i;
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = hog_gen_below(r, i);
		uint32_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* ---------------------------------------------------------------- Zipf sampling */

/* Walker's alias table (Vose's construction): one draw costs one random number,
 * whose high half picks a slot and low half decides between it and its alias.
 * Ranks are placed on a random permutation of the ids (perm), and each slot keeps
 * its own id and its alias's id side by side so that a draw touches one cache
 * line: at RCV1's dimension the table lives in L2 and those misses dominate. */
typedef struct hog_gen_slot {
	uint32_t thr; /* keep the slot when the low 32 bits are below this */
	uint32_t id, alias;
} hog_gen_slot;

typedef struct hog_gen_alias {
	uint64_t n;
	hog_gen_slot *slot;
	uint32_t *perm;  /* rank -> id */
} hog_gen_alias;

static void hog_gen_alias_free(hog_gen_alias *a)
{
	free(a->slot);
	free(a->perm);
	a->slot = NULL; /* callers free again on their error paths */
	a->perm = NULL;
}

/* Weights (r+1)^-s over n ranks. */
static int hog_gen_alias_zipf(hog_gen_alias *a, uint64_t n, double s, hog_gen_rng *r)
{
	memset(a, 0, sizeof *a);
	a->n = n;
	double *p = malloc(n * sizeof *p);
	uint32_t *work = malloc(n * sizeof *work);
	a->slot = malloc(n * sizeof *a->slot);
	a->perm = malloc(n * 4);
	if (!p || !work || !a->slot || !a->perm) {
		free(p);
		free(work);
		hog_gen_alias_free(a);
		return ENOMEM;
	}
	hog_gen_shuffle(r, a->perm, n);
	double sum = 0;
	for (uint64_t i = 0; i < n; i++)
		sum += p[i] = pow((double)(i + 1), -s);
	/* small slots fill work from the front, large ones from the back */
	uint64_t ns = 0, nl = n;
	for (uint64_t i = 0; i < n; i++) {
		p[i] *= (double)n / sum;
		a->slot[i] = (hog_gen_slot){ UINT32_MAX, a->perm[i], a->perm[i] };
		if (p[i] < 1.0)
			work[ns++] = (uint32_t)i;
		else
			work[--nl] = (uint32_t)i;
	}
	uint64_t si = 0, li = nl;
	while (si < ns && li < n) {
		uint32_t sm = work[si++], lg = work[li];
		a->slot[sm].thr = (uint32_t)(p[sm] * 4294967296.0);
		a->slot[sm].alias = a->perm[lg];
		p[lg] -= 1.0 - p[sm];
		if (p[lg] < 1.0) { /* the large one became small: it moves to the small list */
			li++;
			work[--si] = lg;
		}
	}
	/* slots left on either list have probability 1 up to rounding: they keep the
	 * initial threshold UINT32_MAX and themselves as alias */
	free(p);
	free(work);
	return 0;
}

/* An id with probability proportional to the weight of its rank. */
static inline uint32_t hog_gen_alias_draw(const hog_gen_alias *a, hog_gen_rng *r)
{
	uint64_t x = hog_gen_next(r);
	const hog_gen_slot *sl = &a->slot[((x >> 32) * a->n) >> 32];
	return (uint32_t)x < sl->thr ? sl->id : sl->alias;
}

static int hog_gen_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void hog_gen_progress(const hog_gen_opts *o, uint64_t done, uint64_t total)
{
	if (o->progress && (done % 65536 == 0 || done == total))
		o->progress(o->progress_ud, done, total);
}

/* ---------------------------------------------------------------- sparse */

typedef struct hog_gen_sparse {
	uint64_t features;
	double mu, sigma;   /* lognormal row length */
	uint32_t kmax;
	int binary;
	hog_gen_alias zipf;
	float *idf;         /* by id */
	float *w;           /* hidden model, by id */
	uint64_t *bits, *sum; /* the row's ids, see hog_gen_take() */
	uint32_t got;
	uint32_t *ids;
	float *vals;
	float ltf[24];      /* 1 + ln(tf) */
} hog_gen_sparse;

/* Ids of the row being drawn: a bitmap (one bit per feature, L1-sized at RCV1's
 * dimension) for the distinctness test, and a summary bit per bitmap word. Up to
 * 2^20 features the ids come out sorted by walking the summary; that is several
 * times cheaper than sorting them, whose mispredicted branches would cost more
 * than all the rest of the generator. Beyond, where the walk would be long, they
 * are sorted. */
#define HOG_GEN_WALK_MAX (1ull << 20)

static inline int hog_gen_take(hog_gen_sparse *g, uint32_t id)
{
	uint64_t wi = id >> 6, bit = 1ull << (id & 63);
	if (g->bits[wi] & bit)
		return 0;
	g->bits[wi] |= bit;
	g->sum[wi >> 6] |= 1ull << (wi & 63);
	if (g->features > HOG_GEN_WALK_MAX)
		g->ids[g->got] = id;
	g->got++;
	return 1;
}

/* Empties the bitmap into g->ids in increasing order. */
static void hog_gen_collect(hog_gen_sparse *g, uint32_t k)
{
	if (g->features > HOG_GEN_WALK_MAX) {
		for (uint32_t j = 0; j < k; j++) {
			g->bits[g->ids[j] >> 6] = 0;
			g->sum[g->ids[j] >> 12] = 0;
		}
		qsort(g->ids, k, 4, hog_gen_cmp_u32);
		return;
	}
	uint32_t out = 0;
	for (uint64_t s = 0; out < k; s++) {
		for (uint64_t x = g->sum[s]; x; x &= x - 1) {
			uint64_t wi = s * 64 + (uint64_t)__builtin_ctzll(x);
			for (uint64_t y = g->bits[wi]; y; y &= y - 1)
				g->ids[out++] = (uint32_t)(wi * 64 + (uint64_t)__builtin_ctzll(y));
			g->bits[wi] = 0;
		}
		g->sum[s] = 0;
	}
}

/* Draws one row into g->ids/g->vals; returns its length and the hidden margin. */
static uint32_t hog_gen_sparse_row(hog_gen_sparse *g, hog_gen_rng *r, double *margin)
{
	double len = exp(g->mu + g->sigma * hog_gen_gauss(r));
	uint32_t k = len < 1.5 ? 1 : len >= g->kmax ? g->kmax : (uint32_t)(len + 0.5);
	uint64_t tries = 8ull * k + 64;
	g->got = 0;
	while (g->got < k && tries--)
		hog_gen_take(g, hog_gen_alias_draw(&g->zipf, r));
	/* Zipf draws stall on very long rows (the tail is rarely drawn): finish those
	 * uniformly. k <= features, so this ends. */
	while (g->got < k)
		hog_gen_take(g, (uint32_t)hog_gen_below(r, g->features));
	hog_gen_collect(g, k);
	double m = 0, ss = 0;
	if (g->binary) {
		for (uint32_t j = 0; j < k; j++)
			m += g->w[g->ids[j]];
		*margin = m;
		return k;
	}
	for (uint32_t j = 0; j < k; j++) {
		/* term frequency geometric with ratio 1/4, from two random bits per step */
		uint64_t x = hog_gen_next(r) | (1ull << 44);
		float v = g->ltf[__builtin_ctzll(x) >> 1] * g->idf[g->ids[j]];
		g->vals[j] = v;
		ss += (double)v * v;
	}
	double inv = 1.0 / sqrt(ss);
	for (uint32_t j = 0; j < k; j++) {
		g->vals[j] = (float)(g->vals[j] * inv);
		m += (double)g->w[g->ids[j]] * g->vals[j];
	}
	*margin = m;
	return k;
}

static int hog_gen_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void hog_gen_sparse_free(hog_gen_sparse *g)
{
	hog_gen_alias_free(&g->zipf);
	free(g->idf);
	free(g->w);
	free(g->bits);
	free(g->sum);
	free(g->ids);
	free(g->vals);
}

static int hog_gen_sparse_run(hog_writer *w, const hog_gen_opts *o, uint64_t seed, uint64_t n,
                              uint64_t features, double mean, double zipf, double noise, hog_err *err)
{
	hog_gen_sparse g = { .features = features, .sigma = 0.6, .binary = o->binary_values };
	g.mu = log(mean) - g.sigma * g.sigma / 2; /* so that the lognormal's mean is `mean` */
	/* rows are capped at the dimension, and at 50x the mean so the scratch rows stay
	 * small on huge dimensions (the lognormal gets there with odds of about 1e-11) */
	double kcap = 50 * mean > 1000 ? 50 * mean : 1000;
	g.kmax = (double)features < kcap ? (uint32_t)features : (uint32_t)kcap;
	hog_gen_rng rm, rr, rf, rp;
	hog_gen_rng_init(&rm, seed, 1); /* model: popularity, idf, hidden weights */
	hog_gen_rng_init(&rr, seed, 2); /* rows */
	hog_gen_rng_init(&rf, seed, 3); /* label flips */
	hog_gen_rng_init(&rp, seed, 4); /* pilot rows for the threshold */
	int rc = hog_gen_alias_zipf(&g.zipf, features, zipf, &rm);
	double *pm = NULL;
	uint64_t pilot = n < 4096 ? 4096 : n > 16384 ? 16384 : n;
	if (rc || !(g.idf = malloc(features * 4)) || !(g.w = malloc(features * 4)) ||
	    !(g.bits = calloc(features / 64 + 1, 8)) ||
	    !(g.sum = calloc(features / 4096 + 1, 8)) || !(g.ids = malloc(g.kmax * 4)) ||
	    !(g.vals = malloc(g.kmax * 4)) || !(pm = malloc(pilot * sizeof *pm))) {
		rc = hog_err_set(err, ENOMEM, "gen: out of memory for %llu features", (unsigned long long)features);
		goto done;
	}
	for (int t = 0; t < 24; t++)
		g.ltf[t] = (float)(1.0 + log(1.0 + t));
	/* Hidden model: Gaussian weights on a random 30% of the features. A feature in
	 * fewer than 2.5% of the rows gets its weight scaled by sqrt(share / 2.5%):
	 * rare features carry little of the signal, as rare words do for a topic, so
	 * a model trained on the data can learn what decides the label. */
	for (uint64_t i = 0; i < features; i++) {
		int on = hog_gen_unif(&rm) < 0.3;
		double z = hog_gen_gauss(&rm);
		g.w[i] = on ? (float)z : 0.0f;
	}
	/* idf from the expected share of rows holding a feature: 1 for the hottest,
	 * about 10 for the rarest at RCV1's size */
	double zsum = 0;
	for (uint64_t i = 0; i < features; i++)
		zsum += pow((double)(i + 1), -zipf);
	for (uint64_t i = 0; i < features; i++) {
		double df = mean * pow((double)(i + 1), -zipf) / zsum;
		uint32_t id = g.zipf.perm[i];
		g.idf[id] = (float)(1.0 + log(1.0 / (df < 1 ? df : 1)));
		if (df < 0.025)
			g.w[id] *= (float)sqrt(df / 0.025);
	}
	/* Threshold: the median margin of pilot rows, so classes come out balanced.
	 * Rows whose margin falls in the 20% of pilot margins nearest the threshold
	 * are drawn again: the gap keeps the noise-free problem learnable to ~99%
	 * (SGD on the default set: 95.5% test accuracy of the 96% that 4% noise
	 * leaves, in a few epochs) instead of ~94% without it. */
	for (uint64_t i = 0; i < pilot; i++)
		hog_gen_sparse_row(&g, &rp, &pm[i]);
	qsort(pm, pilot, sizeof *pm, hog_gen_cmp_double);
	double thr = pm[pilot / 2];
	for (uint64_t i = 0; i < pilot; i++)
		pm[i] = fabs(pm[i] - thr);
	qsort(pm, pilot, sizeof *pm, hog_gen_cmp_double);
	double gap = pm[pilot / 5];
	for (uint64_t i = 0; i < n; i++) {
		double m;
		uint32_t k;
		do
			k = hog_gen_sparse_row(&g, &rr, &m);
		while (fabs(m - thr) < gap);
		float y = m > thr ? 1.0f : -1.0f;
		if (hog_gen_unif(&rf) < noise)
			y = -y;
		if ((rc = hog_writer_add_sparse(w, y, g.ids, g.binary ? NULL : g.vals, k, err)))
			goto done;
		hog_gen_progress(o, i + 1, n);
	}
done:
	free(pm);
	hog_gen_sparse_free(&g);
	return rc;
}

/* ---------------------------------------------------------------- ratings */

/* Open-addressing set of (user, item) pairs; key 0 marks an empty slot. */
static int hog_gen_pair_add(uint64_t *set, uint64_t mask, uint64_t key)
{
	key++;
	uint64_t h = key * 0x9e3779b97f4a7c15ull;
	for (uint64_t i = h >> 20;; i++) {
		uint64_t *s = &set[i & mask];
		if (*s == key)
			return 0;
		if (!*s) {
			*s = key;
			return 1;
		}
	}
}

static int hog_gen_ratings_run(hog_writer *w, const hog_gen_opts *o, uint64_t seed, uint64_t n,
                               uint64_t nu, uint64_t ni, uint32_t rank, double zipf, double noise,
                               hog_err *err)
{
	hog_gen_rng rm, rr;
	hog_gen_rng_init(&rm, seed, 1);
	hog_gen_rng_init(&rr, seed, 2);
	hog_gen_alias ua = { 0 }, ia = { 0 };
	float *uf = malloc(nu * rank * 4), *vf = malloc(ni * rank * 4), *ub = malloc(nu * 4), *ib = malloc(ni * 4);
	/* Repeated pairs are avoided up to a set of 2^26 pairs (1 GiB at most): a
	 * pair drawn again is drawn anew, 64 times by popularity, then uniformly,
	 * then the next free cell after it. (Only up to a quarter full before, and
	 * the 64th repeat kept: 1,000 users x 100 items and 50,000 ratings held 8,342
	 * repeated pairs, and a split of them put 4,011 of its 7,446 test pairs in
	 * training too.) More ratings than pairs are refused (hog_gen). */
	int dedup = n <= (1ull << 26);
	uint64_t cap = 1;
	while (cap < 2 * n)
		cap *= 2;
	uint64_t *set = dedup ? calloc(cap, 8) : NULL;
	/* users are drawn Zipf-like too but flatter (exponent 0.5): some users rate far
	 * more than others, yet no user dominates the way hot items do */
	int rc;
	if (!uf || !vf || !ub || !ib || (dedup && !set) || (rc = hog_gen_alias_zipf(&ua, nu, 0.5, &rm)) ||
	    (rc = hog_gen_alias_zipf(&ia, ni, zipf, &rm))) {
		rc = hog_err_set(err, ENOMEM, "gen: out of memory for %llu users x %llu items",
		                 (unsigned long long)nu, (unsigned long long)ni);
		goto done;
	}
	/* factor entries with variance sqrt(0.8/rank): u.v has variance 0.8 at any rank */
	double fs = pow(0.8 / rank, 0.25);
	for (uint64_t i = 0; i < nu * rank; i++)
		uf[i] = (float)(fs * hog_gen_gauss(&rm));
	for (uint64_t i = 0; i < ni * rank; i++)
		vf[i] = (float)(fs * hog_gen_gauss(&rm));
	for (uint64_t i = 0; i < nu; i++)
		ub[i] = (float)(0.3 * hog_gen_gauss(&rm));
	for (uint64_t i = 0; i < ni; i++)
		ib[i] = (float)(0.4 * hog_gen_gauss(&rm));
	for (uint64_t e = 0; e < n; e++) {
		uint32_t u, it;
		if (e == 0) {
			/* the writer takes the dimensions from the largest ids: make sure they occur */
			u = (uint32_t)(nu - 1);
			it = (uint32_t)(ni - 1);
		} else {
			int tries = 64;
			do {
				u = hog_gen_alias_draw(&ua, &rr);
				it = hog_gen_alias_draw(&ia, &rr);
			} while (dedup && !hog_gen_pair_add(set, cap - 1, (uint64_t)u << 32 | it) && --tries);
			if (dedup && !tries) { /* (64 repeats: uniformly, the cells popular draws miss) */
				int in = 0;
				for (int more = 4096; more > 0 && !in; more--) {
					u = (uint32_t)hog_gen_below(&rr, nu);
					it = (uint32_t)hog_gen_below(&rr, ni);
					in = hog_gen_pair_add(set, cap - 1, (uint64_t)u << 32 | it);
				}
				for (uint64_t c = (uint64_t)u * ni + it; !in;) { /* (a matrix this full: the next free cell) */
					c = (c + 1) % (nu * ni);
					u = (uint32_t)(c / ni);
					it = (uint32_t)(c % ni);
					in = hog_gen_pair_add(set, cap - 1, (uint64_t)u << 32 | it);
				}
			}
		}
		if (dedup && e == 0)
			hog_gen_pair_add(set, cap - 1, (uint64_t)u << 32 | it);
		double r = 3.6 + ub[u] + ib[it] + noise * hog_gen_gauss(&rr);
		for (uint32_t f = 0; f < rank; f++)
			r += (double)uf[(size_t)u * rank + f] * vf[(size_t)it * rank + f];
		r = r < 1 ? 1 : r > 5 ? 5 : r;
		if ((rc = hog_writer_add_rating(w, u, it, (float)r, err)))
			goto done;
		hog_gen_progress(o, e + 1, n);
	}
	/* identity id maps: generated ids are their own original ids */
	uint64_t *map = malloc((nu > ni ? nu : ni) * 8);
	if (!map) {
		rc = hog_err_set(err, ENOMEM, "gen: out of memory");
		goto done;
	}
	for (uint64_t i = 0; i < nu || i < ni; i++)
		map[i] = i;
	if (!(rc = hog_writer_idmap_set(w, "users", map, nu, err)))
		rc = hog_writer_idmap_set(w, "items", map, ni, err);
	free(map);
done:
	hog_gen_alias_free(&ua);
	hog_gen_alias_free(&ia);
	free(uf); free(vf); free(ub); free(ib); free(set);
	return rc;
}

/* ---------------------------------------------------------------- dense */

/* Class centres N(0, s^2) per column with s = 5/sqrt(2d): two centres lie about 5
 * standard deviations of the unit noise apart, so classes overlap a little. */
static int hog_gen_dense_run(hog_writer *w, const hog_gen_opts *o, uint64_t seed, uint64_t n,
                             uint64_t d, uint32_t classes, hog_err *err)
{
	hog_gen_rng rm, rr;
	hog_gen_rng_init(&rm, seed, 1);
	hog_gen_rng_init(&rr, seed, 2);
	float *c = malloc(classes * d * 4), *x = malloc(d * 4);
	uint32_t *first = malloc(classes * 4);
	int rc = 0;
	if (!c || !x || !first) {
		rc = hog_err_set(err, ENOMEM, "gen: out of memory");
		goto done;
	}
	double s = 5.0 / sqrt(2.0 * (double)d);
	for (uint64_t i = 0; i < classes * d; i++)
		c[i] = (float)(s * hog_gen_gauss(&rm));
	/* the first rows take every class once, so the class count is right even on
	 * tiny sets (the writer counts classes from the largest label) */
	hog_gen_shuffle(&rm, first, classes);
	for (uint64_t e = 0; e < n; e++) {
		uint32_t y = e < classes ? first[e] : (uint32_t)hog_gen_below(&rr, classes);
		for (uint64_t j = 0; j < d; j++)
			x[j] = (float)(c[(size_t)y * d + j] + hog_gen_gauss(&rr));
		if ((rc = hog_writer_add_dense(w, (float)y, x, NULL, err)))
			goto done;
		hog_gen_progress(o, e + 1, n);
	}
done:
	free(c); free(x); free(first);
	return rc;
}

/* ---------------------------------------------------------------- entry */

int hog_gen(const char *out, const hog_gen_opts *opts, hog_err *err)
{
	hog_gen_opts z = { 0 };
	const hog_gen_opts *o = opts ? opts : &z;
	enum hog_kind kind = o->kind ? o->kind : HOG_KIND_SPARSE;
	uint64_t seed = o->seed ? o->seed : 1;
	double zipf = o->zipf ? o->zipf : 1.0;
	hog_writer_opts wo = { .kind = kind, .block_examples = o->block_examples };
	char desc[256];
	uint64_t n, f = 0, nu = 0, ni = 0;
	uint32_t rank = 0, classes = 0;
	double mean = 0, noise = 0;
	if (!(zipf >= 0 && zipf <= 10))
		return hog_err_set(err, HOG_ECONFIG, "gen: zipf exponent %g out of 0..10", zipf);
	switch (kind) {
	case HOG_KIND_SPARSE:
		n = o->examples ? o->examples : 781265;
		f = o->features ? o->features : 47236;
		mean = o->nnz_per_example ? o->nnz_per_example : 71;
		noise = o->noise ? o->noise : 0.04;
		if (f > UINT32_MAX)
			return hog_err_set(err, HOG_ECONFIG, "gen: %llu features: at most 2^32-1", (unsigned long long)f);
		if (!(mean >= 1 && mean <= (double)f))
			return hog_err_set(err, HOG_ECONFIG, "gen: %g nonzeros per example: need 1..%llu (the features)",
			                   mean, (unsigned long long)f);
		if (!(noise >= 0 && noise <= 0.5))
			return hog_err_set(err, HOG_ECONFIG, "gen: label noise %g out of 0..0.5", noise);
		wo.task = HOG_TASK_BINARY;
		wo.features = f;
		snprintf(desc, sizeof desc, "sparse seed=%llu examples=%llu features=%llu nnz=%g zipf=%g noise=%g binary=%d",
		         (unsigned long long)seed, (unsigned long long)n, (unsigned long long)f, mean, zipf, noise,
		         o->binary_values ? 1 : 0);
		break;
	case HOG_KIND_RATINGS:
		n = o->examples ? o->examples : 1000000;
		nu = o->users ? o->users : 20000;
		ni = o->items ? o->items : 2000;
		rank = o->rank ? o->rank : 10;
		noise = o->noise ? o->noise : 0.5;
		if (nu >= UINT32_MAX || ni >= UINT32_MAX)
			return hog_err_set(err, HOG_ECONFIG, "gen: users and items must be below 2^32-1");
		if (n <= (1ull << 26) && (double)n > (double)nu * (double)ni) /* (the pairs repeat past that) */
			return hog_err_set(err, HOG_ECONFIG, "gen: %llu ratings of %llu users x %llu items: more ratings "
			                   "than user-item pairs (at most %.0f)", (unsigned long long)n, (unsigned long long)nu,
			                   (unsigned long long)ni, (double)nu * (double)ni);
		if (rank > 1024)
			return hog_err_set(err, HOG_ECONFIG, "gen: rank %u: at most 1024", rank);
		if (!(noise >= 0 && noise <= 10))
			return hog_err_set(err, HOG_ECONFIG, "gen: rating noise sd %g out of 0..10", noise);
		wo.task = HOG_TASK_RATINGS;
		snprintf(desc, sizeof desc, "ratings seed=%llu ratings=%llu users=%llu items=%llu rank=%u zipf=%g noise=%g",
		         (unsigned long long)seed, (unsigned long long)n, (unsigned long long)nu,
		         (unsigned long long)ni, rank, zipf, noise);
		break;
	case HOG_KIND_DENSE:
		n = o->examples ? o->examples : 60000;
		f = o->features ? o->features : 64;
		classes = o->classes ? o->classes : 10;
		if (f > (1u << 24))
			return hog_err_set(err, HOG_ECONFIG, "gen: %llu columns: at most 2^24", (unsigned long long)f);
		if (classes > 65536)
			return hog_err_set(err, HOG_ECONFIG, "gen: %u classes: at most 65536", classes);
		wo.task = HOG_TASK_MULTICLASS;
		wo.features = f;
		snprintf(desc, sizeof desc, "dense seed=%llu examples=%llu columns=%llu classes=%u",
		         (unsigned long long)seed, (unsigned long long)n, (unsigned long long)f, classes);
		break;
	default:
		return hog_err_set(err, HOG_ECONFIG, "gen: unknown data set kind %d", (int)kind);
	}
	char src[256];
	snprintf(src, sizeof src, "generated: %.200s", desc);
	wo.source = src;
	hog_writer *w;
	int rc = hog_writer_open(&w, out, &wo, err);
	if (rc)
		return rc;
	if ((rc = hog_writer_meta_set(w, "generator", desc, err)))
		goto fail;
	if (kind == HOG_KIND_SPARSE)
		rc = hog_gen_sparse_run(w, o, seed, n, f, mean, zipf, noise, err);
	else if (kind == HOG_KIND_RATINGS)
		rc = hog_gen_ratings_run(w, o, seed, n, nu, ni, rank, zipf, noise, err);
	else
		rc = hog_gen_dense_run(w, o, seed, n, f, classes, err);
	if (rc)
		goto fail;
	return hog_writer_commit(w, err);
fail:
	hog_writer_abort(w);
	return rc;
}
