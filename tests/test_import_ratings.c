/* Tests of the ratings importer (src/data/import_ratings.c): the MovieLens
 * layouts (u.data tabs, ratings.csv with its header, ml-1m '::') and blanks, the
 * renumbering of user and item ids in order of first appearance with the id maps
 * stored beside them, a random round trip through ids up to 2^63 that makes the
 * hash map grow many times, and bad input failing with FILE:LINE:COLUMN and
 * leaving no output file behind. */
#include "hogwild.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rat_import(const char *in, const char *out, const hog_import_opts *o, hog_err *err)
{
	hog_import_opts d = { .header = -1 };
	hog_import_opts x = o ? *o : d;
	x.format = HOG_FORMAT_RATINGS;
	memset(err, 0, sizeof *err);
	return hog_import(&in, 1, out, &x, err);
}

/* The id map @p which, expected to hold @p want ids. hog_store_idmap() answers
 * NULL for a map that LMDB keeps inside a leaf page, where its bytes are never
 * 8-byte aligned (the key "idmap.users" is 11 bytes): every map of fewer than
 * about 250 ids. Until store.c copies such maps to aligned memory, those are read
 * here through hog_store_meta_get(), whose length the sentinel bytes give away.
 * @p strict insists on hog_store_idmap() itself. */
static const uint64_t *rat_idmap(hog_store *s, const char *which, uint64_t want, int strict,
                                 uint64_t **copy, uint64_t *n)
{
	*copy = NULL;
	const uint64_t *m = hog_store_idmap(s, which, n);
	if (m || strict)
		return m;
	char key[32];
	snprintf(key, sizeof key, "idmap.%s", which);
	size_t size = want * 8 + 16;
	unsigned char *buf = malloc(size);
	if (!buf || hog_store_meta_get(s, key, (char *)buf, size) != 0) {
		free(buf);
		return NULL;
	}
	memset(buf, 0xa5, size);
	hog_store_meta_get(s, key, (char *)buf, size);
	size_t len = size - 1;
	while (len > 0 && buf[len] == 0xa5)
		len--;
	/* buf[len] is the NUL written after the copied bytes */
	if (len % 8 || len >= size - 1) {
		free(buf);
		return NULL;
	}
	*n = len / 8;
	*copy = (uint64_t *)(void *)buf;
	return *copy;
}

/* The data set at @p path holds exactly these triples (in original ids). */
static void rat_check_map(const char *path, size_t n, const uint64_t *users, const uint64_t *items,
                          const float *ratings, uint64_t nu, uint64_t ni, int strict)
{
	hog_data *d = NULL;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, path, &err), 0);
	CU_ASSERT_EQUAL(d->meta.kind, HOG_KIND_RATINGS);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_RATINGS);
	CU_ASSERT_EQUAL(d->n, n);
	CU_ASSERT_EQUAL(d->meta.users, nu);
	CU_ASSERT_EQUAL(d->meta.items, ni);
	hog_store *s;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, path, &err), 0);
	uint64_t mu = 0, mi = 0, *cu, *ci;
	const uint64_t *um = rat_idmap(s, "users", nu, strict, &cu, &mu);
	const uint64_t *im = rat_idmap(s, "items", ni, strict, &ci, &mi);
	CU_ASSERT_PTR_NOT_NULL(um);
	CU_ASSERT_PTR_NOT_NULL(im);
	CU_ASSERT_EQUAL(mu, nu);
	CU_ASSERT_EQUAL(mi, ni);
	int bad = 0;
	if (um && im && d->n == n && mu == nu && mi == ni) {
		/* dense ids are given in order of first appearance */
		uint32_t next_u = 0, next_i = 0;
		for (size_t k = 0; k < n; k++) {
			bad += d->users[k] >= nu || d->items[k] >= ni;
			if (d->users[k] >= nu || d->items[k] >= ni)
				continue;
			bad += um[d->users[k]] != users[k] || im[d->items[k]] != items[k];
			bad += d->ratings[k] != ratings[k];
			if (d->users[k] == next_u)
				next_u++;
			else
				bad += d->users[k] > next_u;
			if (d->items[k] == next_i)
				next_i++;
			else
				bad += d->items[k] > next_i;
		}
		bad += next_u != nu || next_i != ni;
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(cu);
	free(ci);
	hog_store_close(s);
	hog_data_free(d);
}

static void rat_check(const char *path, size_t n, const uint64_t *users, const uint64_t *items,
                      const float *ratings, uint64_t nu, uint64_t ni)
{
	rat_check_map(path, n, users, items, ratings, nu, ni, 0);
}

static const uint64_t rat_u[] = { 196, 186, 22, 196, 186 };
static const uint64_t rat_i[] = { 242, 302, 377, 377, 242 };
static const float rat_r[] = { 3, 3, 1, 4.5f, 2 };

static void test_ratings_udata_tabs(void)
{
	const char *in = tu_write("u.data", "196\t242\t3\t881250949\n186\t302\t3\t891717742\n"
	                                    "22\t377\t1\t878887116\n196\t377\t4.5\t1\n\n186\t242\t2\t5\r\n",
	                          (size_t)-1);
	const char *out = tu_path("u.hog");
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(rat_import(in, out, NULL, &err), 0);
	rat_check(out, 5, rat_u, rat_i, rat_r, 3, 3);
	hog_data *d;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, out, &err), 0);
	uint32_t du[] = { 0, 1, 2, 0, 1 }, di[] = { 0, 1, 2, 2, 0 };
	for (int k = 0; k < 5; k++) {
		CU_ASSERT_EQUAL(d->users[k], du[k]);
		CU_ASSERT_EQUAL(d->items[k], di[k]);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(d->meta.source, "u.data"));
	CU_ASSERT_EQUAL(d->meta.label_min, 1);
	CU_ASSERT_EQUAL(d->meta.label_max, 4.5);
	hog_data_free(d);
}

static void test_ratings_csv_header_and_ml1m(void)
{
	const char *in = tu_write("ratings.csv", "userId,movieId,rating,timestamp\n196,242,3.0,964982703\n"
	                                         "186,302,3.0,964981247\n22,377,1.0,964982224\n"
	                                         "196,377,4.5,964983815\n186,242,2.0,964982931\n",
	                          (size_t)-1);
	const char *out = tu_path("rcsv.hog");
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(rat_import(in, out, NULL, &err), 0);
	rat_check(out, 5, rat_u, rat_i, rat_r, 3, 3);
	/* every field quoted (Python's csv.QUOTE_ALL): the same set */
	in = tu_write("rq.csv", "\"userId\",\"movieId\",\"rating\",\"timestamp\"\n\"196\",\"242\",\"3.0\",\"964982703\"\n"
	                        "\"186\",\"302\",\"3.0\",\"964981247\"\n\"22\",\"377\",\"1.0\",\"964982224\"\n"
	                        "\"196\",\"377\",\"4.5\",\"964983815\"\n\"186\",\"242\",\"2.0\",\"964982931\"\n",
	              (size_t)-1);
	out = tu_path("rq.hog");
	CU_ASSERT_EQUAL_FATAL(rat_import(in, out, NULL, &err), 0);
	rat_check(out, 5, rat_u, rat_i, rat_r, 3, 3);

	static const char ml1m[] = "196::242::3::978300760\n186::302::3::978302109\n22::377::1::978301968\n"
	                           "196::377::4.5::978300275\n186::242::2::978824291\n";
	in = tu_write_gz("ratings.dat.gz", ml1m, sizeof ml1m - 1);
	out = tu_path("ml1m.hog");
	CU_ASSERT_EQUAL_FATAL(rat_import(in, out, NULL, &err), 0);
	rat_check(out, 5, rat_u, rat_i, rat_r, 3, 3);

	/* blanks, no timestamp; a forced header and a given delimiter */
	in = tu_write("r.txt", "  196 242   3\n186\t302 3\n22 377 1\n196 377 4.5\n186 242 2  \n", (size_t)-1);
	out = tu_path("rtxt.hog");
	CU_ASSERT_EQUAL_FATAL(rat_import(in, out, NULL, &err), 0);
	rat_check(out, 5, rat_u, rat_i, rat_r, 3, 3);
	in = tu_write("r.psv", "1|2|3\n196|242|3\n186 | 302 | 3\n22|377|1|x\n196|377|4.5\n186|242|2\n", (size_t)-1);
	out = tu_path("rpsv.hog");
	hog_import_opts o = { .header = 1, .delim = '|', .block_examples = 2 };
	CU_ASSERT_EQUAL_FATAL(rat_import(in, out, &o, &err), 0);
	rat_check(out, 5, rat_u, rat_i, rat_r, 3, 3);
	hog_store *s;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, out, &err), 0);
	CU_ASSERT_EQUAL(hog_store_meta(s)->blocks, 3);
	hog_store_close(s);
}

static void test_ratings_two_files_share_ids(void)
{
	char a[512], b[512];
	snprintf(a, sizeof a, "%s", tu_write("r2a.csv", "userId,movieId,rating\n7,70,1\n8,80,2\n", (size_t)-1));
	snprintf(b, sizeof b, "%s", tu_write("r2b.csv", "userId,movieId,rating\n8,70,3\n9,90,4\n", (size_t)-1));
	const char *in[2] = { a, b };
	hog_import_opts o = { .format = HOG_FORMAT_RATINGS, .header = -1 };
	hog_err err;
	const char *out = tu_path("r2.hog");
	CU_ASSERT_EQUAL_FATAL(hog_import(in, 2, out, &o, &err), 0);
	rat_check(out, 4, (uint64_t[]){ 7, 8, 8, 9 }, (uint64_t[]){ 70, 80, 70, 90 }, (float[]){ 1, 2, 3, 4 }, 3, 3);
}

/* Many random ids, some near 2^63, in every layout: the maps must come back whole. */
static void test_ratings_round_trip_big_ids(void)
{
	enum { N = 60000 };
	uint64_t *u = malloc(N * sizeof *u), *it = malloc(N * sizeof *it);
	float *r = malloc(N * sizeof *r);
	size_t cap = (size_t)N * 64;
	char *text = malloc(cap);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	CU_ASSERT_PTR_NOT_NULL_FATAL(it);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	uint64_t x = 99;
	for (int k = 0; k < N; k++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* ~20000 distinct users with big ids, items with ids that collide in low bits */
		u[k] = (1ull << 63) - ((x >> 33) % 20000) * 1000003ull;
		it[k] = ((x >> 13) % 3000) << 20;
		r[k] = (float)((x >> 5) % 10) / 2 + 0.5f;
	}
	u[0] = 1ull << 63;
	u[1] = 0;
	it[2] = 0;
	static const char *const seps[] = { "\t", ",", "::", " " };
	for (int f = 0; f < 4; f++) {
		size_t at = 0;
		for (int k = 0; k < N; k++)
			at += (size_t)snprintf(text + at, cap - at, "%llu%s%llu%s%g%s%d\n", (unsigned long long)u[k],
			                       seps[f], (unsigned long long)it[k], seps[f], r[k], seps[f], k);
		char name[32];
		snprintf(name, sizeof name, "big%d.gz", f);
		const char *in = tu_write_gz(name, text, at);
		char in2[512];
		snprintf(in2, sizeof in2, "%s", in);
		snprintf(name, sizeof name, "big%d.hog", f);
		hog_err err;
		hog_import_opts o = { .header = -1, .block_examples = 1000 };
		CU_ASSERT_EQUAL_FATAL(rat_import(in2, tu_path(name), &o, &err), 0);
		/* count the distinct ids the slow way */
		uint64_t nu = 0, ni = 0;
		{
			char *seen = calloc(20000 + 3000 + 2, 1);
			CU_ASSERT_PTR_NOT_NULL_FATAL(seen);
			for (int k = 0; k < N; k++) {
				size_t a = u[k] == 0 ? 20000 : (size_t)(((1ull << 63) - u[k]) / 1000003ull);
				size_t b = 20001 + (size_t)(it[k] >> 20);
				nu += !seen[a];
				seen[a] = 1;
				ni += !seen[b];
				seen[b] = 1;
			}
			free(seen);
		}
		rat_check_map(tu_path(name), N, u, it, r, nu, ni, 1);
	}
	free(u);
	free(it);
	free(r);
	free(text);
}

/* An import that must fail with @p code, a message containing @p where and
 * @p what, and no output file. */
static void rat_fails(const char *name, const char *text, const hog_import_opts *o, int code,
                      const char *where, const char *what)
{
	char in[512], out[520];
	snprintf(in, sizeof in, "%s", tu_write(name, text, (size_t)-1));
	snprintf(out, sizeof out, "%s.hog", in);
	hog_err err;
	int rc = rat_import(in, out, o, &err);
	CU_ASSERT_EQUAL(rc, code);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, where));
	if (what)
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
	if (rc != code || !strstr(err.msg, where) || (what && !strstr(err.msg, what)))
		fprintf(stderr, "\n%s: rc %d, got '%s'\n", name, rc, err.msg);
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	CU_ASSERT_EQUAL(tu_sh("ls '%s' | grep -q '%s.hog.tmp'", tu_dir(), name), 1);
}

static void test_ratings_bad_lines(void)
{
	rat_fails("e1.tsv", "1\t2\t3\n1\t2\n", NULL, HOG_EDATA, "e1.tsv:2:4:", "missing rating");
	rat_fails("e2.tsv", "1\t2\t3\n1\n", NULL, HOG_EDATA, "e2.tsv:2:2:", "missing item");
	rat_fails("e3.csv", "1,2,3\n1,2.5,3\n", NULL, HOG_EDATA, "e3.csv:2:3:", "item id '2.5' is not an unsigned integer");
	rat_fails("e4.csv", "1,2,3\n-1,2,3\n", NULL, HOG_EDATA, "e4.csv:2:1:", "user id '-1' is negative");
	rat_fails("e5.csv", "1,2,3\n1,-2,3\n", NULL, HOG_EDATA, "e5.csv:2:3:", "item id '-2' is negative");
	rat_fails("e6.csv", "1,2,3\n1,2,x\n", NULL, HOG_EDATA, "e6.csv:2:5:", "numeric rating");
	rat_fails("e7.csv", "1,2,3\n1,2,nan\n", NULL, HOG_EDATA, "e7.csv:2:5:", "not finite");
	rat_fails("e8.csv", "1,2,3\n1,2,-inf\n", NULL, HOG_EDATA, "e8.csv:2:5:", "not finite");
	rat_fails("e9.csv", "1,2,3\n1,2,1e40\n", NULL, HOG_EDATA, "e9.csv:2:5:", "not finite");
	rat_fails("e10.csv", "1,2,3\n9223372036854775809,2,3\n", NULL, HOG_EDATA, "e10.csv:2:1:", "beyond 2^63");
	rat_fails("e11.csv", "1,2,3\n1,123456789012345678901,3\n", NULL, HOG_EDATA, "e11.csv:2:3:", "beyond 2^63");
	rat_fails("e12.csv", "1,2,3\n1,2,3,4,5\n", NULL, HOG_EDATA, "e12.csv:2:9:", "too many fields");
	rat_fails("e13.csv", "1,2,3\n1,2,3,\n", NULL, HOG_EDATA, "e13.csv:2:7:", "empty timestamp");
	rat_fails("e14.csv", "1,2,3\n1,,3\n", NULL, HOG_EDATA, "e14.csv:2:3:", "item id '' is not an unsigned integer");
	rat_fails("e15.csv", "1,2,3\nu1,2,3\n", NULL, HOG_EDATA, "e15.csv:2:1:", "user id 'u1' is not an unsigned integer");
	rat_fails("e16.txt", "1 2 3\n1 2 3 4 5\n", NULL, HOG_EDATA, "e16.txt:2:9:", "too many fields");
	rat_fails("e17.dat", "1::2::3\n1::2:3\n", NULL, HOG_EDATA, "e17.dat:2:4:", "item id '2:3' is not an unsigned integer");
	hog_import_opts o = { .header = 0 };
	rat_fails("e18.csv", "userId,movieId,rating\n1,2,3\n", &o, HOG_EDATA, "e18.csv:1:1:", "user id");
}

static void test_ratings_bad_files(void)
{
	rat_fails("f1.csv", "", NULL, HOG_EDATA, "f1.csv", "no examples");
	rat_fails("f2.csv", "userId,movieId,rating,timestamp\n", NULL, HOG_EDATA, "f2.csv", "no examples");
	hog_err err;
	char dir[512];
	snprintf(dir, sizeof dir, "%s", tu_path("rdir"));
	CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
	const char *out = tu_path("rdir.hog");
	CU_ASSERT_EQUAL(rat_import(dir, out, NULL, &err), EISDIR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rdir"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);

	size_t cap = 300000, at = 0;
	char *text = malloc(cap);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (int k = 0; at + 64 < cap; k++)
		at += (size_t)snprintf(text + at, cap - at, "%d\t%d\t%d\t%d\n", k % 977, k % 1013, k % 5 + 1, k);
	char gz[512];
	snprintf(gz, sizeof gz, "%s", tu_write_gz("rcut.gz", text, at));
	free(text);
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(stat(gz, &st), 0);
	CU_ASSERT_EQUAL_FATAL(truncate(gz, st.st_size - 100), 0);
	out = tu_path("rcut.hog");
	CU_ASSERT_EQUAL(rat_import(gz, out, NULL, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rcut.gz:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gzip"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
}

int test_import_ratings_register(void)
{
	CU_pSuite s = CU_add_suite("import_ratings", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_ratings_udata_tabs);
	TU_ADD(s, test_ratings_csv_header_and_ml1m);
	TU_ADD(s, test_ratings_two_files_share_ids);
	TU_ADD(s, test_ratings_round_trip_big_ids);
	TU_ADD(s, test_ratings_bad_lines);
	TU_ADD(s, test_ratings_bad_files);
	return 0;
}
