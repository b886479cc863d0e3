/* Tests of the data set tools: hog_data_stats() against numbers worked out by hand
 * on a four-example set, hog_store_stats() giving the same numbers block by block
 * (raw and packed sets), hog_data_split() (counts add up, the fraction holds, the
 * order of examples is kept on both sides, dimensions and id maps carry over,
 * empty sides are refused) and hog_export_libsvm() (LIBSVM -> LMDB -> LIBSVM ->
 * LMDB gives the same floats bit for bit; ratings are refused; a closed pipe is
 * an error, not a crash), hog_export_ratings() (original ids, ratings and weights
 * as imported). */
#include "hogwild.h"
#include "data/store.h"
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static int tt_import(const char *text_path, const char *out, uint64_t features)
{
	hog_import_opts io = { .format = HOG_FORMAT_LIBSVM, .features = features };
	hog_err e = { 0 };
	const char *in[1] = { text_path };
	int rc = hog_import(in, 1, out, &io, &e);
	if (rc)
		fprintf(stderr, "import: %s\n", e.msg);
	return rc;
}

static hog_data *tt_load(const char *path)
{
	hog_data *d = NULL;
	hog_err e;
	int rc = hog_data_load(&d, path, &e);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "load: %s\n", e.msg);
	return d;
}

static int tt_same_sparse(const hog_data *a, const hog_data *b)
{
	return a->n == b->n && a->nnz == b->nnz && a->dim == b->dim && !memcmp(a->labels, b->labels, a->n * 4) &&
	       !memcmp(a->offsets, b->offsets, (a->n + 1) * 8) && !memcmp(a->ids, b->ids, a->nnz * 4) &&
	       (a->vals == NULL) == (b->vals == NULL) && (!a->vals || !memcmp(a->vals, b->vals, a->nnz * 4));
}

/* ---------------------------------------------------------------- stats */

/* Examples (0-based ids) e0 {0,1}, e1 {1,2}, e2 {3}, e3 {1,4}, dimension 6.
 * Feature counts 1,3,1,1,1,0: nnz 7, used 5, Delta = 3/4 (feature 1). Neighbours:
 * e0 -> e1,e3; e1 -> e0,e3; e2 -> none; e3 -> e0,e1: rho_max = 2/3, rho_mean =
 * (2+2+0+2)/3/4 = 1/2. 1% of 6 features rounds up to the top one: 3/7. */
static void test_stats_hand(void)
{
	const char *txt = tu_write("stats.svm", "1 1:1 2:0.5\n-1 2:1 3:1\n1 4:2\n-1 2:1 5:1\n", (size_t)-1);
	CU_ASSERT_EQUAL_FATAL(tt_import(txt, tu_path("stats.lmdb"), 6), 0);
	hog_data *d = tt_load(tu_path("stats.lmdb"));
	if (!d)
		return;
	hog_stats st;
	hog_err e;
	CU_ASSERT_EQUAL_FATAL(hog_data_stats(d, 1000, 1, &st, &e), 0);
	CU_ASSERT_EQUAL(st.examples, 4);
	CU_ASSERT_EQUAL(st.features, 6);
	CU_ASSERT_EQUAL(st.nnz, 7);
	CU_ASSERT_EQUAL(st.used_features, 5);
	CU_ASSERT_DOUBLE_EQUAL(st.nnz_mean, 1.75, 1e-12);
	CU_ASSERT_EQUAL(st.nnz_min, 1);
	CU_ASSERT_EQUAL(st.nnz_max, 2);
	CU_ASSERT_DOUBLE_EQUAL(st.delta, 0.75, 1e-12);
	CU_ASSERT_EQUAL(st.top_feature, 1);
	CU_ASSERT_EQUAL(st.top_count, 3);
	CU_ASSERT_DOUBLE_EQUAL(st.rho_max, 2.0 / 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.rho_mean, 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.hot1pct_share, 3.0 / 7, 1e-12);
	/* a sample of 2 of 4: each rho is 0 or 1 */
	CU_ASSERT_EQUAL(hog_data_stats(d, 2, 7, &st, &e), 0);
	CU_ASSERT(st.rho_max == 0 || st.rho_max == 1);
	CU_ASSERT_DOUBLE_EQUAL(st.delta, 0.75, 1e-12); /* exact, whatever the sample */
	hog_data_free(d);
}

/* A set where every example shares feature 0: rho = Delta = 1. */
static void test_stats_all_shared(void)
{
	const char *txt = tu_write("shared.svm", "1 1:1 2:1\n-1 1:1 3:1\n1 1:1\n", (size_t)-1);
	CU_ASSERT_EQUAL_FATAL(tt_import(txt, tu_path("shared.lmdb"), 0), 0);
	hog_data *d = tt_load(tu_path("shared.lmdb"));
	hog_stats st;
	hog_err e;
	if (!d)
		return;
	CU_ASSERT_EQUAL(hog_data_stats(d, 10, 1, &st, &e), 0);
	CU_ASSERT_DOUBLE_EQUAL(st.delta, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.rho_max, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.rho_mean, 1.0, 1e-12);
	CU_ASSERT_EQUAL(st.top_feature, 0);
	hog_data_free(d);
}

static void test_stats_not_sparse(void)
{
	hog_gen_opts o = { .kind = HOG_KIND_RATINGS, .examples = 100, .users = 10, .items = 10 };
	hog_err e;
	CU_ASSERT_EQUAL_FATAL(hog_gen(tu_path("st_r.lmdb"), &o, &e), 0);
	hog_data *d = tt_load(tu_path("st_r.lmdb"));
	hog_stats st;
	if (!d)
		return;
	CU_ASSERT_EQUAL(hog_data_stats(d, 10, 1, &st, &e), HOG_ENOTSUP);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "ratings"));
	hog_data_free(d);
}

/* hog_store_stats() reads the blocks one at a time; it must give the numbers
 * hog_data_stats() gives on the loaded set, bit for bit, for every sample size. */
static void tt_stats_same(const char *path, int want_packed)
{
	hog_data *d = tt_load(path);
	hog_store *s = NULL;
	hog_err e;
	if (!d)
		return;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, path, &e), 0);
	CU_ASSERT_EQUAL(hog_store_meta(s)->version == HOG_FORMAT_PACKED, want_packed);
	CU_ASSERT(hog_store_meta(s)->blocks > 3);
	const uint64_t samples[] = { 0, 1, 2, 100, 2999, 3000, 10000 };
	for (size_t i = 0; i < sizeof samples / sizeof *samples; i++)
		for (uint64_t seed = 1; seed <= 2; seed++) {
			hog_stats a, b;
			CU_ASSERT_EQUAL(hog_data_stats(d, samples[i], seed, &a, &e), 0);
			CU_ASSERT_EQUAL(hog_store_stats(s, samples[i], seed, &b, &e), 0);
			CU_ASSERT(memcmp(&a, &b, sizeof a) == 0);
			if (samples[i] > 1)
				CU_ASSERT(b.rho_max > 0);
		}
	hog_store_close(s);
	hog_data_free(d);
}

static void test_stats_store_same(void)
{
	hog_gen_opts o = { .kind = HOG_KIND_SPARSE, .examples = 3000, .features = 2000, .nnz_per_example = 12,
	                   .block_examples = 256, .seed = 5 };
	hog_err e;
	const char *packed = tu_path("st_packed.lmdb"), *txt = tu_path("st_gen.svm"), *raw = tu_path("st_raw.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_gen(packed, &o, &e), 0);
	tt_stats_same(packed, 1);
	/* the same examples in raw blocks of another size */
	int fd = open(txt, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(hog_export_libsvm(packed, fd, &e), 0);
	close(fd);
	hog_import_opts io = { .format = HOG_FORMAT_LIBSVM, .features = 2000, .raw_blocks = 1, .block_examples = 700 };
	const char *in[1] = { txt };
	CU_ASSERT_EQUAL_FATAL(hog_import(in, 1, raw, &io, &e), 0);
	tt_stats_same(raw, 0);
	/* not sparse: refused like hog_data_stats() */
	hog_gen_opts r = { .kind = HOG_KIND_RATINGS, .examples = 100, .users = 10, .items = 10 };
	hog_store *s;
	hog_stats st;
	CU_ASSERT_EQUAL_FATAL(hog_gen(tu_path("st_r2.lmdb"), &r, &e), 0);
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, tu_path("st_r2.lmdb"), &e), 0);
	CU_ASSERT_EQUAL(hog_store_stats(s, 10, 1, &st, &e), HOG_ENOTSUP);
	hog_store_close(s);
}

/* ---------------------------------------------------------------- split */

/* Both sides keep the input's order, so walking the input and taking each
 * example from the front of a or of b must account for all of them. Returns
 * the number of examples that matched. */
static uint64_t tt_merge_check(const hog_data *in, const hog_data *a, const hog_data *b)
{
	uint64_t ia = 0, ib = 0, i;
	for (i = 0; i < in->n; i++) {
		uint64_t k = in->offsets[i + 1] - in->offsets[i];
		const hog_data *side[2] = { a, b };
		uint64_t *at[2] = { &ia, &ib };
		int ok = 0;
		for (int s = 0; s < 2 && !ok; s++) {
			const hog_data *d = side[s];
			uint64_t j = *at[s];
			if (j >= d->n || d->labels[j] != in->labels[i] || d->offsets[j + 1] - d->offsets[j] != k ||
			    memcmp(d->ids + d->offsets[j], in->ids + in->offsets[i], k * 4) ||
			    memcmp(d->vals + d->offsets[j], in->vals + in->offsets[i], k * 4))
				continue;
			(*at[s])++;
			ok = 1;
		}
		if (!ok)
			break;
	}
	return ia + ib == a->n + b->n ? i : 0;
}

static void test_split_sparse(void)
{
	hog_gen_opts o = { .seed = 21, .examples = 3000, .features = 300, .nnz_per_example = 8 };
	hog_err e;
	char in[512]; /* tu_path() reuses its buffers after eight calls */
	snprintf(in, sizeof in, "%s", tu_path("sp_in.lmdb"));
	CU_ASSERT_EQUAL_FATAL(hog_gen(in, &o, &e), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_split(in, tu_path("sp_a.lmdb"), tu_path("sp_b.lmdb"), 0.25, 5, &e), 0);
	hog_data *d = tt_load(in), *a = tt_load(tu_path("sp_a.lmdb")), *b = tt_load(tu_path("sp_b.lmdb"));
	if (!d || !a || !b)
		goto done;
	CU_ASSERT_EQUAL(a->n + b->n, 3000);
	CU_ASSERT_EQUAL(a->nnz + b->nnz, d->nnz);
	CU_ASSERT(b->n > 0.21 * 3000 && b->n < 0.29 * 3000);
	CU_ASSERT_EQUAL(a->dim, 300);
	CU_ASSERT_EQUAL(b->dim, 300);
	CU_ASSERT_EQUAL(a->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL(tt_merge_check(d, a, b), 3000);
	/* the same seed splits the same way; another seed another way */
	CU_ASSERT_EQUAL_FATAL(hog_data_split(in, tu_path("sp_a2.lmdb"), tu_path("sp_b2.lmdb"), 0.25, 5, &e), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_split(in, tu_path("sp_a3.lmdb"), tu_path("sp_b3.lmdb"), 0.25, 6, &e), 0);
	hog_data *b2 = tt_load(tu_path("sp_b2.lmdb")), *b3 = tt_load(tu_path("sp_b3.lmdb"));
	if (b2 && b3) {
		CU_ASSERT(tt_same_sparse(b, b2));
		CU_ASSERT(!tt_same_sparse(b, b3));
	}
	hog_data_free(b2);
	hog_data_free(b3);
	hog_store *s;
	char buf[512];
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, tu_path("sp_b.lmdb"), &e), 0);
	CU_ASSERT_EQUAL(hog_store_meta_get(s, "generator", buf, sizeof buf), 0);
	CU_ASSERT_EQUAL(hog_store_meta_get(s, "split", buf, sizeof buf), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "part=b"));
	hog_store_close(s);
done:
	hog_data_free(d);
	hog_data_free(a);
	hog_data_free(b);
}

static void test_split_ratings(void)
{
	hog_gen_opts o = { .kind = HOG_KIND_RATINGS, .seed = 8, .examples = 2000, .users = 100, .items = 40 };
	hog_err e;
	const char *in = tu_path("sr_in.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_gen(in, &o, &e), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_split(in, tu_path("sr_a.lmdb"), tu_path("sr_b.lmdb"), 0.5, 1, &e), 0);
	const char *outs[2] = { tu_path("sr_a.lmdb"), tu_path("sr_b.lmdb") };
	uint64_t total = 0;
	for (int k = 0; k < 2; k++) {
		hog_store *s;
		CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, outs[k], &e), 0);
		const hog_meta *m = hog_store_meta(s);
		CU_ASSERT_EQUAL(m->kind, HOG_KIND_RATINGS);
		CU_ASSERT_EQUAL(m->users, 100);
		CU_ASSERT_EQUAL(m->items, 40);
		total += m->examples;
		uint64_t n;
		const uint64_t *map = hog_store_idmap(s, "users", &n);
		CU_ASSERT(map && n == 100 && map[99] == 99);
		CU_ASSERT_PTR_NOT_NULL(hog_store_idmap(s, "items", &n));
		CU_ASSERT_EQUAL(n, 40);
		hog_store_close(s);
	}
	CU_ASSERT_EQUAL(total, 2000);
}

static void test_split_dense(void)
{
	hog_gen_opts o = { .kind = HOG_KIND_DENSE, .seed = 8, .examples = 500, .features = 7, .classes = 3 };
	hog_err e;
	const char *in = tu_path("sd_in.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_gen(in, &o, &e), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_split(in, tu_path("sd_a.lmdb"), tu_path("sd_b.lmdb"), 0.3, 2, &e), 0);
	hog_data *d = tt_load(in), *a = tt_load(tu_path("sd_a.lmdb")), *b = tt_load(tu_path("sd_b.lmdb"));
	if (d && a && b) {
		CU_ASSERT_EQUAL(a->n + b->n, 500);
		CU_ASSERT_EQUAL(a->dim, 7);
		CU_ASSERT_EQUAL(b->meta.task, HOG_TASK_MULTICLASS);
		/* the first rows of the input, in order, are the first rows of a and b */
		uint64_t ia = 0, ib = 0, bad = 0;
		for (uint64_t i = 0; i < d->n; i++) {
			const float *x = d->x + i * 7;
			if (ia < a->n && !memcmp(a->x + ia * 7, x, 28) && a->labels[ia] == d->labels[i])
				ia++;
			else if (ib < b->n && !memcmp(b->x + ib * 7, x, 28) && b->labels[ib] == d->labels[i])
				ib++;
			else
				bad++;
		}
		CU_ASSERT_EQUAL(bad, 0);
	}
	hog_data_free(d);
	hog_data_free(a);
	hog_data_free(b);
}

static void test_split_errors(void)
{
	hog_gen_opts o = { .examples = 50, .features = 20, .nnz_per_example = 3 };
	hog_err e;
	const char *in = tu_path("se_in.lmdb"), *a = tu_path("se_a.lmdb"), *b = tu_path("se_b.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_gen(in, &o, &e), 0);
	CU_ASSERT_EQUAL(hog_data_split(in, a, b, 0, 1, &e), HOG_ECONFIG);
	CU_ASSERT_EQUAL(hog_data_split(in, a, b, 1, 1, &e), HOG_ECONFIG);
	CU_ASSERT_EQUAL(hog_data_split(in, a, b, NAN, 1, &e), HOG_ECONFIG);
	CU_ASSERT_EQUAL(hog_data_split(in, a, a, 0.5, 1, &e), HOG_ECONFIG);
	CU_ASSERT_EQUAL(hog_data_split(in, a, b, 1e-9, 1, &e), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "empty"));
	CU_ASSERT_NOT_EQUAL(access(a, F_OK), 0);
	CU_ASSERT_NOT_EQUAL(access(b, F_OK), 0);
	CU_ASSERT_EQUAL(hog_data_split(tu_path("missing.lmdb"), a, b, 0.5, 1, &e), ENOENT);
}

/* The split's "split" meta: the half, one pair id for both halves of a run, a
 * different one for another run, and the same input id for both runs. */
static int tt_split_id(const char *path, hog_split_id *id)
{
	hog_store *s;
	hog_err e;
	if (hog_store_open(&s, path, &e))
		return -1;
	int rc = hog_split_id_get(s, id);
	hog_store_close(s);
	return rc;
}

static void test_split_pair_ids(void)
{
	hog_gen_opts o = { .examples = 400, .features = 30, .nnz_per_example = 4 }, o2 = o;
	o2.seed = 9;
	hog_err e;
	char in[512], in2[512]; /* (tu_path's buffers rotate: keep copies) */
	snprintf(in, sizeof in, "%s", tu_path("pi_in.lmdb"));
	snprintf(in2, sizeof in2, "%s", tu_path("pi_in2.lmdb"));
	CU_ASSERT_EQUAL_FATAL(hog_gen(in, &o, &e), 0);
	CU_ASSERT_EQUAL_FATAL(hog_gen(in2, &o2, &e), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_split(in, tu_path("pi_a.lmdb"), tu_path("pi_b.lmdb"), 0.3, 1, &e), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_split(in, tu_path("pi_a2.lmdb"), tu_path("pi_b2.lmdb"), 0.3, 1, &e), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_split(in2, tu_path("pi_a3.lmdb"), tu_path("pi_b3.lmdb"), 0.3, 1, &e), 0);
	hog_split_id a, b, a2, a3;
	CU_ASSERT_EQUAL_FATAL(tt_split_id(tu_path("pi_a.lmdb"), &a), 0);
	CU_ASSERT_EQUAL_FATAL(tt_split_id(tu_path("pi_b.lmdb"), &b), 0);
	CU_ASSERT_EQUAL_FATAL(tt_split_id(tu_path("pi_a2.lmdb"), &a2), 0);
	CU_ASSERT_EQUAL_FATAL(tt_split_id(tu_path("pi_a3.lmdb"), &a3), 0);
	CU_ASSERT(a.part == 'a' && b.part == 'b');
	CU_ASSERT_STRING_EQUAL(a.pair, b.pair);
	CU_ASSERT_STRING_NOT_EQUAL(a.pair, a2.pair); /* the same split run again: another pair */
	CU_ASSERT_STRING_EQUAL(a.from, a2.from);
	CU_ASSERT_STRING_NOT_EQUAL(a.from, a3.from); /* another input */
	CU_ASSERT_EQUAL(tt_split_id(in, &a), -1);   /* a set that is no split has none */
	/* the halves' "source" names them (the writer keeps its own copy of it) */
	hog_store *s;
	char src[256] = "";
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, tu_path("pi_b.lmdb"), &e), 0);
	CU_ASSERT(hog_store_meta_get(s, "source", src, sizeof src) == 0);
	CU_ASSERT_STRING_EQUAL(src, "split b of pi_in.lmdb");
	hog_store_close(s);
}

/* The split meta's text: what counts as a split id, and what is ignored as
 * damaged or older (nothing is compared with it). */
static void test_split_id_parse(void)
{
	static const char *const good = "part=b fraction=0.3 seed=1 pair=0123456789abcdef from=fedcba9876543210 "
	                                 "source=x.lmdb";
	hog_split_id id, back;
	char t[64];
	CU_ASSERT_EQUAL_FATAL(hog_split_id_parse(good, &id), 0);
	CU_ASSERT_STRING_EQUAL(id.pair, "0123456789abcdef");
	CU_ASSERT_STRING_EQUAL(id.from, "fedcba9876543210");
	CU_ASSERT_EQUAL(id.part, 'b');
	hog_split_id_text(&id, t, sizeof t); /* the canonical text parses back to the same id */
	CU_ASSERT_STRING_EQUAL(t, "pair=0123456789abcdef from=fedcba9876543210 part=b");
	CU_ASSERT_EQUAL(strlen(t), 50);
	CU_ASSERT_EQUAL(hog_split_id_parse(t, &back), 0);
	CU_ASSERT(memcmp(&id, &back, sizeof id) == 0);
	static const char *const bad[] = {
		"",
		"part=a fraction=0.3 seed=1 source=x",                        /* before pair ids */
		"part=a pair=0123456789abcdef",                               /* no from */
		"part=a pair=0123456789abcde from=fedcba9876543210",          /* 15 digits */
		"part=a pair=0123456789abcdef0 from=fedcba9876543210",        /* 17 */
		"part=a pair=0123456789ABCDEF from=fedcba9876543210",         /* not ours */
		"part=c pair=0123456789abcdef from=fedcba9876543210",         /* no such half */
		"part= pair=0123456789abcdef from=fedcba9876543210",
		"pair=0123456789abcdef from=fedcba9876543210",                /* no part */
		"part=a pair=0123456789abcdef from=fedcba98765432\x01\x02",   /* junk bytes */
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		if (hog_split_id_parse(bad[i], &id) != -1)
			fprintf(stderr, "\n  taken as a split id: '%s'\n", bad[i]);
		CU_ASSERT_EQUAL(hog_split_id_parse(bad[i], &id), -1);
		/* what data verify reports: damage, but a split from before pair ids */
		CU_ASSERT_EQUAL(hog_split_id_check(bad[i], &id), i == 1 ? 1 : -1);
	}
	CU_ASSERT_EQUAL(hog_split_id_check("part=b", &id), 1);
	CU_ASSERT_EQUAL(hog_split_id_check(good, &id), 0);
}

/* A loaded half keeps its split id (hog_data.split), its header too, and a
 * model trained on it keeps it through its file (section 4); a damaged one
 * there is refused, naming the file. */
static void test_split_id_kept(void)
{
	hog_err e = { 0 };
	hog_split_id want;
	char t[64], path[512];
	CU_ASSERT_EQUAL_FATAL(tt_split_id(tu_path("pi_a.lmdb"), &want), 0); /* (test_split_pair_ids made it) */
	hog_split_id_text(&want, t, sizeof t);
	hog_data *d = NULL, *h = NULL, *in = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path("pi_a.lmdb"), &e), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->split);
	CU_ASSERT_STRING_EQUAL(d->split, t);
	CU_ASSERT_EQUAL_FATAL(hog_data_load_header(&h, tu_path("pi_a.lmdb"), &e), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h->split);
	CU_ASSERT_STRING_EQUAL(h->split, t);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&in, tu_path("pi_in.lmdb"), &e), 0);
	CU_ASSERT_PTR_NULL(in->split); /* no split, no id */
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.epochs = 1;
	o.threads = 1;
	o.bind = HOG_BIND_NONE;
	hog_model *m = NULL, *back = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_train(d, NULL, &o, &m, NULL, &e), 0);
	snprintf(path, sizeof path, "%s", tu_path("pi.model"));
	CU_ASSERT_EQUAL_FATAL(hog_model_save(m, path, &e), 0);
	CU_ASSERT_EQUAL_FATAL(hog_model_load(&back, path, &e), 0);
	hog_model_info info;
	hog_model_info_get(back, &info);
	CU_ASSERT_PTR_NOT_NULL_FATAL(info.split);
	CU_ASSERT_STRING_EQUAL(info.split, t);
	hog_model_free(back);
	back = NULL;
	/* a NUL inside the section, the CRC made good again: damage all the same */
	FILE *f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	unsigned char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	CU_ASSERT_FATAL(n > 100 && n < sizeof buf);
	unsigned char *at = memmem(buf, n, "pair=", 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	at[2] = 0;
	uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf, (uInt)(n - 4));
	for (int k = 0; k < 4; k++)
		buf[n - 4 + k] = (unsigned char)(crc >> (8 * k));
	tu_write("pi-bad.model", buf, n);
	CU_ASSERT_EQUAL(hog_model_load(&back, tu_path("pi-bad.model"), &e), HOG_ECORRUPT);
	CU_ASSERT_PTR_NULL(back);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "pi-bad.model"));
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "split id"));
	hog_model_free(m);
	hog_data_free(d);
	hog_data_free(h);
	hog_data_free(in);
}

/* A split whose second half cannot be written (its file would pass the size the
 * process may write: a full disk, as far as the writer can tell) leaves both
 * earlier halves as they were, and no temporary file: the two are finished
 * before either is renamed. (Before, A was renamed into place, then removed when
 * B failed: the user's A was gone.) */
static void test_split_fails_whole(void)
{
	hog_gen_opts o = { .examples = 6000, .features = 200, .nnz_per_example = 10 };
	hog_err e;
	const char *in = tu_path("sw_in.lmdb"), *a = tu_path("sw_a.lmdb"), *b = tu_path("sw_b.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_gen(in, &o, &e), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_split(in, a, b, 0.8, 1, &e), 0); /* B: 80% */
	hog_split_id old_a, old_b, now;
	CU_ASSERT_EQUAL_FATAL(tt_split_id(a, &old_a), 0);
	CU_ASSERT_EQUAL_FATAL(tt_split_id(b, &old_b), 0);
	struct stat sa, sb;
	CU_ASSERT_EQUAL_FATAL(stat(a, &sa), 0);
	CU_ASSERT_EQUAL_FATAL(stat(b, &sb), 0);
	CU_ASSERT_FATAL(sb.st_size > 2 * sa.st_size);
	struct rlimit old, lim;
	CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &old), 0);
	void (*prev)(int) = signal(SIGXFSZ, SIG_IGN); /* a write past the limit: EFBIG, not a signal */
	lim = old;
	lim.rlim_cur = (rlim_t)(sa.st_size + (sb.st_size - sa.st_size) / 2);
	CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int rc = hog_data_split(in, a, b, 0.8, 2, &e);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, prev);
	CU_ASSERT_NOT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(tt_split_id(a, &now), 0); /* A is the old A */
	CU_ASSERT_STRING_EQUAL(now.pair, old_a.pair);
	CU_ASSERT_EQUAL(tt_split_id(b, &now), 0);
	CU_ASSERT_STRING_EQUAL(now.pair, old_b.pair);
	char tmp[600];
	snprintf(tmp, sizeof tmp, "ls %s.tmp.* %s.tmp.* >/dev/null 2>&1", a, b);
	CU_ASSERT_NOT_EQUAL(system(tmp), 0); /* no temporary file left */
}

/* ---------------------------------------------------------------- export */

/* Exports @p in to the file tu_path(name); returns hog_export_libsvm()'s code. */
static int tt_export(const char *in, const char *name)
{
	hog_err e = { 0 };
	int fd = open(tu_path(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	int rc = hog_export_libsvm(in, fd, &e);
	if (rc)
		fprintf(stderr, "export: %s\n", e.msg);
	close(fd);
	return rc;
}

/* Floats that are hard to print: not exact in decimal, tiny, huge, subnormal,
 * negative zero; and a row with no features. */
static void test_export_roundtrip_text(void)
{
	const char *txt = tu_write("rt.svm",
	                           "1 1:0.1 3:0.333333343 7:1\n"
	                           "-1 2:1e-30 4:3.40282347e+38 5:1.17549435e-38 6:1.40129846e-45\n"
	                           "1 1:-0 2:-2.5 8:123456789\n"
	                           "-1\n"
	                           "1 8:0.7\n", (size_t)-1);
	CU_ASSERT_EQUAL_FATAL(tt_import(txt, tu_path("rt1.lmdb"), 9), 0);
	CU_ASSERT_EQUAL_FATAL(tt_export(tu_path("rt1.lmdb"), "rt1.svm"), 0);
	CU_ASSERT_EQUAL_FATAL(tt_import(tu_path("rt1.svm"), tu_path("rt2.lmdb"), 9), 0);
	CU_ASSERT_EQUAL_FATAL(tt_export(tu_path("rt2.lmdb"), "rt2.svm"), 0);
	hog_data *a = tt_load(tu_path("rt1.lmdb")), *b = tt_load(tu_path("rt2.lmdb"));
	if (a && b) {
		CU_ASSERT(tt_same_sparse(a, b));
		CU_ASSERT_EQUAL(a->n, 5);
		CU_ASSERT_EQUAL(a->nnz, 11);
	}
	hog_data_free(a);
	hog_data_free(b);
	/* the text is stable, 1 prints as "1", and each value in the fewest digits that read back the same float */
	CU_ASSERT_EQUAL(tu_sh("cmp -s '%s' '%s'", tu_path("rt1.svm"), tu_path("rt2.svm")), 0);
	CU_ASSERT_EQUAL(tu_sh("head -n 1 '%s' | grep -qx '1 1:0.1 3:0.33333334 7:1'", tu_path("rt1.svm")), 0);
	CU_ASSERT_EQUAL(tu_sh("sed -n 4p '%s' | grep -qx -- '-1'", tu_path("rt1.svm")), 0);
}

/* A generated set (unit-norm float values), and one with all values 1. */
static void test_export_roundtrip_gen(void)
{
	for (int binary = 0; binary < 2; binary++) {
		hog_gen_opts o = { .seed = 33, .examples = 2500, .features = 500, .nnz_per_example = 15,
		                   .binary_values = binary };
		hog_err e;
		const char *in = tu_path("xg.lmdb");
		CU_ASSERT_EQUAL_FATAL(hog_gen(in, &o, &e), 0);
		CU_ASSERT_EQUAL_FATAL(tt_export(in, "xg.svm"), 0);
		CU_ASSERT_EQUAL_FATAL(tt_import(tu_path("xg.svm"), tu_path("xg2.lmdb"), 500), 0);
		hog_data *a = tt_load(in), *b = tt_load(tu_path("xg2.lmdb"));
		if (a && b) {
			CU_ASSERT(tt_same_sparse(a, b));
			CU_ASSERT_EQUAL(b->vals == NULL, binary);
		}
		hog_data_free(a);
		hog_data_free(b);
	}
}

static void test_export_refused(void)
{
	hog_gen_opts o = { .kind = HOG_KIND_RATINGS, .examples = 100, .users = 10, .items = 10 };
	hog_err e;
	CU_ASSERT_EQUAL_FATAL(hog_gen(tu_path("xr.lmdb"), &o, &e), 0);
	int fd = open("/dev/null", O_WRONLY);
	CU_ASSERT_EQUAL(hog_export_libsvm(tu_path("xr.lmdb"), fd, &e), HOG_ENOTSUP);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "ratings"));
	o = (hog_gen_opts){ .kind = HOG_KIND_DENSE, .examples = 10, .features = 3 };
	CU_ASSERT_EQUAL_FATAL(hog_gen(tu_path("xd.lmdb"), &o, &e), 0);
	CU_ASSERT_EQUAL(hog_export_libsvm(tu_path("xd.lmdb"), fd, &e), HOG_ENOTSUP);
	CU_ASSERT_EQUAL(hog_export_libsvm(tu_path("missing.lmdb"), fd, &e), ENOENT);
	close(fd);
}

/* Ratings as text: the original ids and the ratings as written here, and
 * imported again, the same ratings of the same ids; a weighted set's weights a
 * fourth field (read back with weight_col 3); other kinds refused. */
static void test_export_ratings(void)
{
	const char *txt = tu_write("xrt.csv", "userId,movieId,rating,timestamp\n"
	                                      "1001,50007,3.5,964982703\n7,50007,0.5,964982224\n1001,12,5,1\n"
	                                      "90000000000,12,4.25,2\n", (size_t)-1);
	hog_import_opts io = { .format = HOG_FORMAT_RATINGS, .header = -1 };
	hog_err e;
	const char *in[1] = { txt };
	CU_ASSERT_EQUAL_FATAL(hog_import(in, 1, tu_path("xrt.lmdb"), &io, &e), 0);
	int fd = open(tu_path("xrt.out"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(hog_export_ratings(tu_path("xrt.lmdb"), fd, &e), 0);
	close(fd);
	CU_ASSERT_EQUAL(tu_sh("printf 'user,item,rating\\n1001,50007,3.5\\n7,50007,0.5\\n1001,12,5\\n"
	                      "90000000000,12,4.25\\n' | cmp -s - '%s'", tu_path("xrt.out")), 0);
	in[0] = tu_path("xrt.out");
	CU_ASSERT_EQUAL_FATAL(hog_import(in, 1, tu_path("xrt2.lmdb"), &io, &e), 0);
	hog_data *a = tt_load(tu_path("xrt.lmdb")), *b = tt_load(tu_path("xrt2.lmdb"));
	CU_ASSERT_FATAL(a && b && a->n == b->n && a->user_ids && b->user_ids);
	for (uint64_t j = 0; j < a->n; j++) {
		CU_ASSERT_EQUAL(a->user_ids[a->users[j]], b->user_ids[b->users[j]]);
		CU_ASSERT_EQUAL(a->item_ids[a->items[j]], b->item_ids[b->items[j]]);
		CU_ASSERT_EQUAL(a->ratings[j], b->ratings[j]);
	}
	hog_data_free(a);
	hog_data_free(b);
	/* weights: a fourth field */
	txt = tu_write("xrw.csv", "1 2 3 0.25\n4 2 1 2\n", (size_t)-1);
	hog_import_opts iw = { .format = HOG_FORMAT_RATINGS, .header = -1, .weight_col = 3, .weight_given = 1 };
	in[0] = txt;
	CU_ASSERT_EQUAL_FATAL(hog_import(in, 1, tu_path("xrw.lmdb"), &iw, &e), 0);
	fd = open(tu_path("xrw.out"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_EQUAL_FATAL(hog_export_ratings(tu_path("xrw.lmdb"), fd, &e), 0);
	close(fd);
	CU_ASSERT_EQUAL(tu_sh("printf 'user,item,rating,weight\\n1,2,3,0.25\\n4,2,1,2\\n' | cmp -s - '%s'",
	                      tu_path("xrw.out")), 0);
	/* other kinds */
	hog_gen_opts o = { .examples = 10, .features = 5, .nnz_per_example = 2 };
	CU_ASSERT_EQUAL_FATAL(hog_gen(tu_path("xrs.lmdb"), &o, &e), 0);
	fd = open("/dev/null", O_WRONLY);
	CU_ASSERT_EQUAL(hog_export_ratings(tu_path("xrs.lmdb"), fd, &e), HOG_ENOTSUP);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is a sparse data set"));
	close(fd);
}

/* A reader that went away (EPIPE, with SIGPIPE ignored as the CLI does) and an
 * fd that cannot be written are errors with the errno, never a crash. */
static void test_export_write_errors(void)
{
	hog_gen_opts o = { .examples = 200, .features = 50, .nnz_per_example = 5 };
	hog_err e;
	const char *in = tu_path("xp.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_gen(in, &o, &e), 0);
	int p[2];
	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	close(p[0]);
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	CU_ASSERT_EQUAL(hog_export_libsvm(in, p[1], &e), EPIPE);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "export"));
	signal(SIGPIPE, old);
	close(p[1]);
	int fd = open(in, O_RDONLY);
	CU_ASSERT_EQUAL(hog_export_libsvm(in, fd, &e), EBADF);
	close(fd);
}

int test_tools_register(void)
{
	CU_pSuite s = CU_add_suite("tools", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_stats_hand);
	TU_ADD(s, test_stats_all_shared);
	TU_ADD(s, test_stats_not_sparse);
	TU_ADD(s, test_stats_store_same);
	TU_ADD(s, test_split_sparse);
	TU_ADD(s, test_split_ratings);
	TU_ADD(s, test_split_dense);
	TU_ADD(s, test_split_errors);
	TU_ADD(s, test_export_roundtrip_text);
	TU_ADD(s, test_export_roundtrip_gen);
	TU_ADD(s, test_export_refused);
	TU_ADD(s, test_export_write_errors);
	TU_ADD(s, test_export_ratings);
	TU_ADD(s, test_split_pair_ids);
	TU_ADD(s, test_split_id_parse);
	TU_ADD(s, test_split_id_kept);
	TU_ADD(s, test_split_fails_whole);
	return 0;
}
