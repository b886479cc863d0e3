/* Tests of hog_gen(): the generated sets have the asked sizes and a valid shape
 * (sorted distinct ids, unit-norm rows, balanced labels), the same seed gives the
 * same data and another seed other data, label noise flips about the asked share
 * of labels without touching the rows, the noise-free labels come from a linear
 * model (a perceptron separates them), popularity is skewed but not onto ids
 * 0..k, and the ratings and dense kinds hold what they promise. Sizes are small:
 * the suite runs in well under a second. */
#include "hogwild.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Generates into tu_path(name) and loads it; NULL (and a failed assertion) on error. */
static hog_data *tg_gen(const char *name, const hog_gen_opts *o)
{
	hog_err e = { 0 };
	hog_data *d = NULL;
	const char *p = tu_path(name);
	int rc = hog_gen(p, o, &e);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc) {
		fprintf(stderr, "hog_gen: %s\n", e.msg);
		return NULL;
	}
	rc = hog_data_load(&d, p, &e);
	CU_ASSERT_EQUAL(rc, 0);
	return rc ? NULL : d;
}

static int tg_same_sparse(const hog_data *a, const hog_data *b)
{
	return a->n == b->n && a->nnz == b->nnz && !memcmp(a->labels, b->labels, a->n * 4) &&
	       !memcmp(a->offsets, b->offsets, (a->n + 1) * 8) && !memcmp(a->ids, b->ids, a->nnz * 4) &&
	       (a->vals == NULL) == (b->vals == NULL) && (!a->vals || !memcmp(a->vals, b->vals, a->nnz * 4));
}

static void test_gen_sparse_shape(void)
{
	hog_gen_opts o = { .seed = 7, .examples = 3000, .features = 800, .nnz_per_example = 20 };
	hog_data *d = tg_gen("shape.lmdb", &o);
	if (!d)
		return;
	CU_ASSERT_EQUAL(d->meta.kind, HOG_KIND_SPARSE);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL(d->n, 3000);
	CU_ASSERT_EQUAL(d->dim, 800);
	CU_ASSERT_PTR_NOT_NULL(d->vals);
	CU_ASSERT_PTR_NOT_NULL(strstr(d->meta.source, "generated"));
	int bad_ids = 0, bad_norm = 0, bad_len = 0, pos = 0;
	for (uint64_t i = 0; i < d->n; i++) {
		uint64_t a = d->offsets[i], b = d->offsets[i + 1];
		double ss = 0;
		bad_len += b == a;
		for (uint64_t j = a; j < b; j++) {
			bad_ids += d->ids[j] >= 800 || (j > a && d->ids[j] <= d->ids[j - 1]) || !(d->vals[j] > 0);
			ss += (double)d->vals[j] * d->vals[j];
		}
		bad_norm += fabs(sqrt(ss) - 1) > 1e-5;
		pos += d->labels[i] > 0;
	}
	CU_ASSERT_EQUAL(bad_ids, 0);
	CU_ASSERT_EQUAL(bad_norm, 0);
	CU_ASSERT_EQUAL(bad_len, 0);
	double mean = (double)d->nnz / (double)d->n;
	CU_ASSERT(mean > 18 && mean < 22);
	CU_ASSERT(pos > 0.42 * 3000 && pos < 0.58 * 3000);
	hog_data_free(d);

	hog_store *s;
	hog_err e;
	char buf[256];
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, tu_path("shape.lmdb"), &e), 0);
	CU_ASSERT_EQUAL(hog_store_meta_get(s, "generator", buf, sizeof buf), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "sparse seed=7 examples=3000 features=800"));
	hog_store_close(s);
}

static void test_gen_sparse_seed(void)
{
	hog_gen_opts o = { .seed = 11, .examples = 1500, .features = 400, .nnz_per_example = 12 };
	hog_data *a = tg_gen("seed_a.lmdb", &o), *b = tg_gen("seed_b.lmdb", &o);
	o.seed = 12;
	hog_data *c = tg_gen("seed_c.lmdb", &o);
	if (a && b && c) {
		CU_ASSERT(tg_same_sparse(a, b));
		CU_ASSERT(!tg_same_sparse(a, c));
		CU_ASSERT(a->nnz != c->nnz || memcmp(a->ids, c->ids, a->nnz * 4) != 0);
	}
	hog_data_free(a);
	hog_data_free(b);
	hog_data_free(c);
}

/* Noise comes from its own random stream: the rows stay, about `noise` of the
 * labels flip. With (almost) no noise the labels are a linear function of the
 * rows with a margin, so a perceptron separates the training set. */
static void test_gen_sparse_noise(void)
{
	hog_gen_opts o = { .seed = 3, .examples = 4000, .features = 300, .nnz_per_example = 10, .noise = 1e-9 };
	hog_data *clean = tg_gen("noise0.lmdb", &o);
	o.noise = 0.2;
	hog_data *noisy = tg_gen("noise2.lmdb", &o);
	if (!clean || !noisy)
		goto done;
	CU_ASSERT_EQUAL_FATAL(clean->nnz, noisy->nnz);
	CU_ASSERT(!memcmp(clean->ids, noisy->ids, clean->nnz * 4));
	CU_ASSERT(!memcmp(clean->vals, noisy->vals, clean->nnz * 4));
	uint64_t flips = 0;
	for (uint64_t i = 0; i < clean->n; i++)
		flips += clean->labels[i] != noisy->labels[i];
	double rate = (double)flips / (double)clean->n;
	CU_ASSERT(rate > 0.17 && rate < 0.23);

	float *w = calloc(clean->dim + 1, sizeof *w);
	uint64_t wrong = 0;
	for (int ep = 0; ep < 50; ep++) {
		wrong = 0;
		for (uint64_t i = 0; i < clean->n; i++) {
			double m = w[clean->dim];
			for (uint64_t j = clean->offsets[i]; j < clean->offsets[i + 1]; j++)
				m += w[clean->ids[j]] * clean->vals[j];
			float y = clean->labels[i];
			if (y * m <= 0) {
				wrong++;
				for (uint64_t j = clean->offsets[i]; j < clean->offsets[i + 1]; j++)
					w[clean->ids[j]] += y * clean->vals[j];
				w[clean->dim] += y;
			}
		}
	}
	free(w);
	CU_ASSERT(wrong < clean->n / 50); /* under 2% mistakes in the last pass */
done:
	hog_data_free(clean);
	hog_data_free(noisy);
}

static void test_gen_binary_values(void)
{
	hog_gen_opts o = { .seed = 5, .examples = 800, .features = 100, .nnz_per_example = 6, .binary_values = 1 };
	hog_data *d = tg_gen("binary.lmdb", &o);
	if (!d)
		return;
	CU_ASSERT_PTR_NULL(d->vals);
	CU_ASSERT_EQUAL(d->n, 800);
	int bad = 0;
	for (uint64_t i = 0; i < d->n; i++)
		for (uint64_t j = d->offsets[i] + 1; j < d->offsets[i + 1]; j++)
			bad += d->ids[j] <= d->ids[j - 1] || d->ids[j] >= 100;
	CU_ASSERT_EQUAL(bad, 0);
	hog_data_free(d);
}

/* Beyond 2^20 features the ids are sorted rather than walked out of the bitmap. */
static void test_gen_sparse_wide(void)
{
	hog_gen_opts o = { .seed = 6, .examples = 300, .features = (1u << 21) + 5, .nnz_per_example = 30 };
	hog_data *d = tg_gen("wide.lmdb", &o);
	if (!d)
		return;
	CU_ASSERT_EQUAL(d->dim, (1u << 21) + 5);
	int bad = 0;
	for (uint64_t i = 0; i < d->n; i++)
		for (uint64_t j = d->offsets[i] + 1; j < d->offsets[i + 1]; j++)
			bad += d->ids[j] <= d->ids[j - 1];
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(d->nnz > 25 * 300 && d->nnz < 35 * 300);
	hog_data_free(d);
}

/* Popularity: skewed (more so with a larger exponent) and the hot ids spread out. */
static void test_gen_sparse_zipf(void)
{
	hog_gen_opts o = { .seed = 9, .examples = 5000, .features = 1000, .nnz_per_example = 20, .zipf = 0.5 };
	hog_data *flat = tg_gen("zipf05.lmdb", &o);
	o.zipf = 1.5;
	hog_data *steep = tg_gen("zipf15.lmdb", &o);
	hog_stats sf, ss;
	hog_err e;
	if (!flat || !steep)
		goto done;
	CU_ASSERT_EQUAL(hog_data_stats(flat, 200, 1, &sf, &e), 0);
	CU_ASSERT_EQUAL(hog_data_stats(steep, 200, 1, &ss, &e), 0);
	CU_ASSERT(ss.hot1pct_share > sf.hot1pct_share);
	CU_ASSERT(ss.hot1pct_share > 0.2);
	CU_ASSERT(ss.delta > 0.5);
	CU_ASSERT(ss.top_count > 10 * (steep->nnz / 1000));
	/* the ten most used ids are not 0..9 */
	uint64_t *cnt = calloc(1000, 8);
	for (uint64_t j = 0; j < steep->nnz; j++)
		cnt[steep->ids[j]]++;
	int high = 0;
	for (int t = 0; t < 10; t++) {
		uint64_t best = 0;
		for (uint64_t f = 1; f < 1000; f++)
			if (cnt[f] > cnt[best])
				best = f;
		high += best >= 10;
		cnt[best] = 0;
	}
	free(cnt);
	CU_ASSERT(high >= 5);
done:
	hog_data_free(flat);
	hog_data_free(steep);
}

static void test_gen_ratings(void)
{
	hog_gen_opts o = { .kind = HOG_KIND_RATINGS, .seed = 4, .examples = 3000, .users = 300, .items = 50,
	                   .rank = 4 };
	hog_data *d = tg_gen("ratings.lmdb", &o), *d2 = tg_gen("ratings2.lmdb", &o);
	if (!d || !d2)
		goto done;
	CU_ASSERT_EQUAL(d->meta.kind, HOG_KIND_RATINGS);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_RATINGS);
	CU_ASSERT_EQUAL(d->n, 3000);
	CU_ASSERT_EQUAL(d->meta.users, 300);
	CU_ASSERT_EQUAL(d->meta.items, 50);
	CU_ASSERT(!memcmp(d->ratings, d2->ratings, 3000 * 4) && !memcmp(d->users, d2->users, 3000 * 4));
	double sum = 0, sq = 0;
	int out = 0, dup = 0;
	unsigned char *seen = calloc(300 * 50, 1);
	for (uint64_t i = 0; i < d->n; i++) {
		float r = d->ratings[i];
		out += !(r >= 1 && r <= 5) || d->users[i] >= 300 || d->items[i] >= 50;
		sum += r;
		sq += (double)r * r;
		if (d->users[i] < 300 && d->items[i] < 50)
			dup += seen[d->users[i] * 50 + d->items[i]]++ > 0;
	}
	free(seen);
	CU_ASSERT_EQUAL(out, 0);
	CU_ASSERT_EQUAL(dup, 0); /* 3000 of 15000 pairs: cheap to keep distinct */
	double mean = sum / 3000, var = sq / 3000 - mean * mean;
	CU_ASSERT(mean > 2.5 && mean < 4.5);
	CU_ASSERT(var > 0.5); /* noise 0.25 plus the factors and biases */

	hog_store *s;
	hog_err e;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, tu_path("ratings.lmdb"), &e), 0);
	uint64_t nu, ni;
	const uint64_t *um = hog_store_idmap(s, "users", &nu), *im = hog_store_idmap(s, "items", &ni);
	CU_ASSERT(um && nu == 300 && um[0] == 0 && um[299] == 299);
	CU_ASSERT(im && ni == 50 && im[49] == 49);
	hog_store_close(s);
	/* a matrix half full, and a full one: every pair once still (the popular
	 * draws' repeats drawn again, then uniformly, then the next free cell) */
	for (int full = 0; full < 2; full++) {
		hog_gen_opts q = { .kind = HOG_KIND_RATINGS, .seed = 5, .examples = full ? 600 : 300, .users = 30,
		                   .items = 20, .rank = 2 };
		hog_data *h = tg_gen("ratings-dense.lmdb", &q);
		CU_ASSERT_PTR_NOT_NULL_FATAL(h);
		unsigned char cell[600] = { 0 };
		int rep = 0;
		for (uint64_t i = 0; i < h->n; i++)
			rep += cell[h->users[i] * 20 + h->items[i]]++ > 0;
		CU_ASSERT_EQUAL(h->n, q.examples);
		CU_ASSERT_EQUAL(rep, 0);
		hog_data_free(h);
	}
done:
	hog_data_free(d);
	hog_data_free(d2);
}

/* Dense: class clusters, so the nearest class mean (from the data) is nearly always right. */
static void test_gen_dense(void)
{
	hog_gen_opts o = { .kind = HOG_KIND_DENSE, .seed = 2, .examples = 2000, .features = 16, .classes = 5 };
	hog_data *d = tg_gen("dense.lmdb", &o);
	if (!d)
		return;
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_MULTICLASS);
	CU_ASSERT_EQUAL(d->meta.classes, 5);
	CU_ASSERT_EQUAL(d->n, 2000);
	CU_ASSERT_EQUAL(d->dim, 16);
	double mu[5][16] = { { 0 } }, cnt[5] = { 0 };
	int bad = 0;
	for (uint64_t i = 0; i < d->n; i++) {
		int y = (int)d->labels[i];
		if (y < 0 || y > 4 || (float)y != d->labels[i]) {
			bad++;
			continue;
		}
		cnt[y]++;
		for (int j = 0; j < 16; j++)
			mu[y][j] += d->x[i * 16 + j];
	}
	CU_ASSERT_EQUAL_FATAL(bad, 0);
	for (int c = 0; c < 5; c++) {
		CU_ASSERT(cnt[c] > 300);
		for (int j = 0; j < 16; j++)
			mu[c][j] /= cnt[c] ? cnt[c] : 1;
	}
	int right = 0;
	for (uint64_t i = 0; i < d->n; i++) {
		int best = 0;
		double bd = INFINITY;
		for (int c = 0; c < 5; c++) {
			double dd = 0;
			for (int j = 0; j < 16; j++)
				dd += (d->x[i * 16 + j] - mu[c][j]) * (d->x[i * 16 + j] - mu[c][j]);
			if (dd < bd)
				bd = dd, best = c;
		}
		right += best == (int)d->labels[i];
	}
	CU_ASSERT(right > 0.9 * 2000);
	hog_data_free(d);
}

struct tg_prog { int calls; uint64_t last, total; };

static void tg_progress(void *ud, uint64_t done, uint64_t total)
{
	struct tg_prog *p = ud;
	p->calls++;
	p->last = done;
	p->total = total;
}

static void test_gen_progress(void)
{
	struct tg_prog p = { 0 };
	hog_gen_opts o = { .kind = HOG_KIND_DENSE, .examples = 70000, .features = 1, .classes = 2,
	                   .progress = tg_progress, .progress_ud = &p };
	hog_err e;
	CU_ASSERT_EQUAL(hog_gen(tu_path("progress.lmdb"), &o, &e), 0);
	CU_ASSERT_EQUAL(p.calls, 2); /* at 65536 and at the end */
	CU_ASSERT_EQUAL(p.last, 70000);
	CU_ASSERT_EQUAL(p.total, 70000);
}

static void test_gen_bad_options(void)
{
	hog_err e;
	const char *p = tu_path("bad.lmdb");
	hog_gen_opts o = { .examples = 10, .features = 5, .nnz_per_example = 6 };
	CU_ASSERT_EQUAL(hog_gen(p, &o, &e), HOG_ECONFIG);
	o = (hog_gen_opts){ .examples = 10, .features = 1ull << 33 };
	CU_ASSERT_EQUAL(hog_gen(p, &o, &e), HOG_ECONFIG);
	o = (hog_gen_opts){ .examples = 10, .features = 50, .nnz_per_example = 5, .noise = 0.7 };
	CU_ASSERT_EQUAL(hog_gen(p, &o, &e), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "noise"));
	o = (hog_gen_opts){ .kind = 9 };
	CU_ASSERT_EQUAL(hog_gen(p, &o, &e), HOG_ECONFIG);
	o = (hog_gen_opts){ .kind = HOG_KIND_RATINGS, .rank = 5000 };
	CU_ASSERT_EQUAL(hog_gen(p, &o, &e), HOG_ECONFIG);
	o = (hog_gen_opts){ .kind = HOG_KIND_RATINGS, .examples = 26, .users = 5, .items = 5 };
	CU_ASSERT_EQUAL(hog_gen(p, &o, &e), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "more ratings than user-item pairs (at most 25)"));
	CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
}

int test_gen_register(void)
{
	CU_pSuite s = CU_add_suite("gen", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_gen_sparse_shape);
	TU_ADD(s, test_gen_sparse_seed);
	TU_ADD(s, test_gen_sparse_noise);
	TU_ADD(s, test_gen_binary_values);
	TU_ADD(s, test_gen_sparse_wide);
	TU_ADD(s, test_gen_sparse_zipf);
	TU_ADD(s, test_gen_ratings);
	TU_ADD(s, test_gen_dense);
	TU_ADD(s, test_gen_progress);
	TU_ADD(s, test_gen_bad_options);
	return 0;
}
