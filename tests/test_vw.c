/* data import --format vw: the hash against the values Vowpal Wabbit's own
 * tests give for its uniform_hash (MurmurHash3 x86 32), VW's name rule (digits
 * are numbers plus the seed, blanks trimmed), and the importer's ids worked
 * out here from the hash alone: namespaces as seeds, values and namespace
 * scales, -q pairs, collisions added, the mask; every malformed line named. */
#include "data/vwhash.h"
#include "hogwild.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_murmur_vectors(void)
{
	static const struct { const char *s; uint32_t seed, want; } v[] = {
		{ "t", 0, 3397902157u }, { "te", 0, 3988319771u }, { "tes", 0, 196677210u },
		{ "test", 0, 3127628307u }, { "tested", 0, 2247989476u },
		{ "8hv20cjwicnsj vw m000'.'.][][]...!!@3", 0, 4212741639u },
		{ "t", 25436347, 960607349u }, { "te", 25436347, 2834341637u }, { "tes", 25436347, 1163171263u },
		{ "test", 25436347, 1661171760u }, { "tested", 25436347, 3592599130u },
		{ "8hv20cjwicnsj vw m000'.'.][][]...!!@3", 25436347, 2503360452u },
		{ "a\xe0\xae\x9c\xe0\xaf\x86\xe0\xae\xaf\xe0\xaf\x8d", 0, 2574050673u },
		{ "a\xe0\xae\x9c\xe0\xaf\x86\xe0\xae\xaf\xe0\xaf\x8d", 2493003127u, 2630240042u },
	};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		uint32_t h = hog_murmur3_32(v[i].s, strlen(v[i].s), v[i].seed);
		if (h != v[i].want)
			fprintf(stderr, "\n  murmur3('%s', %u) = %u, VW gives %u\n", v[i].s, v[i].seed, h, v[i].want);
		CU_ASSERT_EQUAL(h, v[i].want);
	}
}

static void test_name_rule(void)
{
	CU_ASSERT_EQUAL(hog_vw_hash("123", 3, 5), 128u);
	CU_ASSERT_EQUAL(hog_vw_hash(" 42\t", 4, 0), 42u);          /* blanks trimmed */
	CU_ASSERT_EQUAL(hog_vw_hash("4294967295", 10, 1), 0u);      /* modulo 2^32 */
	CU_ASSERT_EQUAL(hog_vw_hash("12a", 3, 7), hog_murmur3_32("12a", 3, 7));
	CU_ASSERT_EQUAL(hog_vw_hash(" test ", 6, 0), 3127628307u);  /* trimmed, then hashed */
	CU_ASSERT_EQUAL(hog_vw_hash("", 0, 9), 9u);                 /* (the default namespace: the seed) */
	CU_ASSERT_EQUAL(hog_vw_pair(3, 5), (uint32_t)(3u * 16777619u) ^ 5u);
}

typedef struct fv {
	uint32_t id;
	float v;
} fv;

static int cmp_fv(const void *a, const void *b)
{
	uint32_t x = ((const fv *)a)->id, y = ((const fv *)b)->id;
	return x < y ? -1 : x > y;
}

/* The example @p i of @p d against @p want (n features, any order, ids masked here). */
static void check_row(const hog_data *d, uint64_t i, fv *want, int n, uint32_t mask, float y)
{
	for (int k = 0; k < n; k++)
		want[k].id &= mask;
	qsort(want, n, sizeof *want, cmp_fv);
	CU_ASSERT_EQUAL(d->labels[i], y);
	uint64_t lo = d->offsets[i], hi = d->offsets[i + 1];
	CU_ASSERT_EQUAL_FATAL(hi - lo, (uint64_t)n);
	for (int k = 0; k < n; k++) {
		CU_ASSERT_EQUAL(d->ids[lo + k], want[k].id);
		CU_ASSERT_DOUBLE_EQUAL(d->vals ? d->vals[lo + k] : 1.0f, want[k].v, 1e-6);
	}
}

static uint32_t H(const char *s, uint32_t seed)
{
	return hog_murmur3_32(s, strlen(s), seed);
}

static void test_import_ids(void)
{
	const char *txt = tu_write("t.vw", "1 'first |animal cat:2 dog |b 7\n"
	                                   "-1 |animal:0.5 cat |b z\n", (size_t)-1);
	const char *out = tu_path("t_vw.lmdb");
	hog_import_opts o = { .format = HOG_FORMAT_VW, .vw_bits = 20, .vw_quadratic = "ab" };
	hog_err err;
	hog_data *d = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_import(&txt, 1, out, &o, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, out, &err), 0);
	CU_ASSERT_EQUAL(d->dim, 1u << 20);
	const uint32_t mask = (1u << 20) - 1, na = H("animal", 0), nb = H("b", 0);
	const uint32_t cat = H("cat", na), dog = H("dog", na), seven = 7 + nb, z = H("z", nb);
	fv r0[] = { { cat, 2 }, { dog, 1 }, { seven, 1 },
		        { hog_vw_pair(cat, seven), 2 }, { hog_vw_pair(dog, seven), 1 } };
	check_row(d, 0, r0, 5, mask, 1);
	fv r1[] = { { cat, 0.5f }, { z, 1 }, { hog_vw_pair(cat, z), 0.5f } };
	check_row(d, 1, r1, 3, mask, -1);
	hog_data_free(d);
	/* two names on one id at 1 bit: their values added */
	const char *two = tu_write("two.vw", "1 | p q r s t u v w\n", (size_t)-1);
	hog_import_opts o1 = { .format = HOG_FORMAT_VW, .vw_bits = 1 };
	CU_ASSERT_EQUAL_FATAL(hog_import(&two, 1, tu_path("two.lmdb"), &o1, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path("two.lmdb"), &err), 0);
	float sum[2] = { 0, 0 };
	for (const char *n = "pqrstuvw"; *n; n++)
		sum[H((char[]){ *n, 0 }, 0) & 1] += 1;
	uint64_t lo = d->offsets[0], hi = d->offsets[1];
	float got[2] = { 0, 0 };
	for (uint64_t k = lo; k < hi; k++)
		got[d->ids[k]] = d->vals ? d->vals[k] : 1;
	CU_ASSERT_EQUAL(got[0], sum[0]);
	CU_ASSERT_EQUAL(got[1], sum[1]);
	hog_data_free(d);
}

static void test_bad_lines(void)
{
	static const struct { const char *text, *want; } c[] = {
		{ "1 -2 |a x\n", "t.vw:1:1: importance weight -2: an example weight must be a finite number > 0" },
		{ "1 0 |a x\n", "t.vw:1:1: importance weight 0: an example weight must be a finite number > 0" },
		{ "1 a x\n", "t.vw:1:1: no '|'" },
		{ "one |a x\n", "t.vw:1:1: expected a numeric label" },
		{ "1 |a x:y\n", "t.vw:1:3: expected a numeric value after 'x:'" },
		{ "1 |a :3\n", "t.vw:1:3: a feature without a name" },
		{ "1 |a:q x\n", "t.vw:1:3: expected a numeric scale after namespace 'a:'" },
		{ "1 |a x\n|a y\n", "t.vw:2:1: no label, but " },
		{ "|a x\n1 |a y\n", "t.vw:2:1: a label, but " },
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		const char *txt = tu_write("t.vw", c[i].text, (size_t)-1);
		hog_import_opts o = { .format = HOG_FORMAT_VW };
		hog_err err = { 0 };
		CU_ASSERT_EQUAL(hog_import(&txt, 1, tu_path("bad_vw.lmdb"), &o, &err), HOG_EDATA);
		if (!strstr(err.msg, c[i].want))
			fprintf(stderr, "\n  '%s': got '%s', wanted '%s'\n", c[i].text, err.msg, c[i].want);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, c[i].want));
	}
	const char *txt = tu_write("t.vw", "1 |a x\n", (size_t)-1);
	hog_import_opts o = { .format = HOG_FORMAT_VW, .vw_quadratic = "abc" };
	hog_err err = { 0 };
	CU_ASSERT_EQUAL(hog_import(&txt, 1, tu_path("bad_vw.lmdb"), &o, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pairs of two namespace letters"));
}

int test_vw_register(void)
{
	CU_pSuite s = CU_add_suite("vw", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_murmur_vectors);
	TU_ADD(s, test_name_rule);
	TU_ADD(s, test_import_ids);
	TU_ADD(s, test_bad_lines);
	return 0;
}
