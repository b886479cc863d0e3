/* Tests of the block codec (src/data/block.c): every kind encodes and decodes
 * back to the same arrays, and every kind of damage is caught by the decoder
 * with HOG_ECORRUPT (or HOG_EVERSION) and a message that names the block. Damage
 * that the checksum would catch anyway (ids, offsets, values) is made by
 * encoding bad arrays, so that the CRC is valid and the later checks must act. */
#include "util.h"
#include "data/block.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_INDEX 7
#define FIRST 100

/* An 8-aligned buffer holding one encoded block. */
struct enc {
	uint64_t *buf;
	size_t len;
};

static struct enc enc_block(const hog_block *b, uint32_t flags)
{
	uint64_t m = b->kind == HOG_KIND_SPARSE ? b->nnz : b->kind == HOG_KIND_DENSE ? b->cols : 0;
	struct enc e;
	e.len = hog_block_bytes(b->kind, b->n, m, flags);
	e.buf = calloc(1, e.len + 64); /* room to test a length that is too long */
	CU_ASSERT_FATAL(e.buf != NULL);
	hog_block_encode(e.buf, b, flags);
	return e;
}

static int dec(const struct enc *e, size_t len, const hog_meta *m, hog_block *out, hog_err *err)
{
	memset(err, 0, sizeof *err);
	return hog_block_decode(e->buf, len, BLOCK_INDEX, FIRST, m, out, NULL, err);
}

/* Decoding must fail with @p code and a message naming block 7 and @p what. */
static void expect_bad(const struct enc *e, size_t len, const hog_meta *m, int code, const char *what)
{
	hog_block out;
	hog_err err;
	int rc = dec(e, len, m, &out, &err);
	CU_ASSERT_EQUAL(rc, code);
	CU_ASSERT_EQUAL(err.code, code);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "block 7"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
	if (rc != code || !strstr(err.msg, what))
		fprintf(stderr, "\n  expected '%s', got %d '%s'\n", what, rc, err.msg);
}

/* ---------------------------------------------------------------- fixtures */

static float sp_labels[3] = { 1, -1, 0.5f };
static uint32_t sp_offsets[4] = { 0, 2, 2, 5 };
static uint32_t sp_ids[5] = { 0, 3, 1, 2, 9 };
static float sp_vals[5] = { 0.5f, 2, -1, 3.25f, 1e-3f };

static hog_meta sparse_meta(void)
{
	hog_meta m = { .version = 1, .kind = HOG_KIND_SPARSE, .task = HOG_TASK_REGRESSION,
	               .examples = 1000, .features = 10 };
	return m;
}

static hog_block sparse_block(void)
{
	hog_block b = { .kind = HOG_KIND_SPARSE, .first = FIRST, .n = 3, .nnz = 5, .labels = sp_labels,
	                .offsets = sp_offsets, .ids = sp_ids, .vals = sp_vals };
	return b;
}

static uint32_t rt_users[4] = { 0, 4, 2, 4 }, rt_items[4] = { 6, 0, 3, 1 };
static float rt_ratings[4] = { 1, 5, 3.5f, 2 };

static hog_meta ratings_meta(void)
{
	hog_meta m = { .version = 1, .kind = HOG_KIND_RATINGS, .task = HOG_TASK_RATINGS,
	               .examples = 1000, .users = 5, .items = 7 };
	return m;
}

static hog_block ratings_block(void)
{
	hog_block b = { .kind = HOG_KIND_RATINGS, .first = FIRST, .n = 4, .users = rt_users,
	                .items = rt_items, .ratings = rt_ratings };
	return b;
}

static float dn_labels[2] = { 0, 2 };
static float dn_xf[6] = { 0.25f, -1, 3, 4, 5.5f, 6 };
static uint8_t dn_xu8[6] = { 0, 1, 255, 128, 7, 9 };

static hog_meta dense_meta(int u8)
{
	hog_meta m = { .version = 1, .kind = HOG_KIND_DENSE, .task = HOG_TASK_MULTICLASS,
	               .examples = 1000, .features = 3, .classes = 3, .dense_u8 = (uint32_t)u8,
	               .dense_scale = u8 ? 0.5f : 0 };
	return m;
}

static hog_block dense_block(int u8)
{
	hog_block b = { .kind = HOG_KIND_DENSE, .first = FIRST, .n = 2, .cols = 3, .labels = dn_labels,
	                .scale = u8 ? 0.5f : 0, .xf = u8 ? NULL : dn_xf, .xu8 = u8 ? dn_xu8 : NULL };
	return b;
}

/* ---------------------------------------------------------------- round trips */

static void test_block_sparse_values(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block(), out;
	hog_err err;
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	CU_ASSERT_EQUAL(e.len % 8, 0);
	CU_ASSERT_EQUAL_FATAL(dec(&e, e.len, &m, &out, &err), 0);
	CU_ASSERT_EQUAL(out.kind, HOG_KIND_SPARSE);
	CU_ASSERT_EQUAL(out.index, BLOCK_INDEX);
	CU_ASSERT_EQUAL(out.first, FIRST);
	CU_ASSERT_EQUAL(out.n, 3);
	CU_ASSERT_EQUAL(out.nnz, 5);
	CU_ASSERT_EQUAL(memcmp(out.labels, sp_labels, sizeof sp_labels), 0);
	CU_ASSERT_EQUAL(memcmp(out.offsets, sp_offsets, sizeof sp_offsets), 0);
	CU_ASSERT_EQUAL(memcmp(out.ids, sp_ids, sizeof sp_ids), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out.vals);
	CU_ASSERT_EQUAL(memcmp(out.vals, sp_vals, sizeof sp_vals), 0);
	CU_ASSERT_PTR_NULL(out.users);
	CU_ASSERT_PTR_NULL(out.xf);
	/* views point into the buffer: zero copy */
	CU_ASSERT((const char *)out.labels >= (const char *)e.buf &&
	          (const char *)out.labels < (const char *)e.buf + e.len);
	uint32_t n;
	uint64_t first;
	CU_ASSERT_EQUAL(hog_block_peek(e.buf, e.len, &n, &first, NULL, NULL), 0);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(first, FIRST);
	free(e.buf);
}

static void test_block_sparse_no_values(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block(), out;
	hog_err err;
	b.vals = NULL;
	struct enc e = enc_block(&b, 0);
	CU_ASSERT(e.len < hog_block_bytes(HOG_KIND_SPARSE, 3, 5, HOG_BLOCK_F_VALUES));
	CU_ASSERT_EQUAL_FATAL(dec(&e, e.len, &m, &out, &err), 0);
	CU_ASSERT_PTR_NULL(out.vals);
	CU_ASSERT_EQUAL(memcmp(out.ids, sp_ids, sizeof sp_ids), 0);
	CU_ASSERT_EQUAL(memcmp(out.offsets, sp_offsets, sizeof sp_offsets), 0);
	free(e.buf);
}

static void test_block_sparse_empty_rows(void)
{
	/* examples without any feature are legal: offsets all 0, nnz 0 */
	hog_meta m = sparse_meta();
	float labels[2] = { 1, -1 };
	uint32_t offsets[3] = { 0, 0, 0 };
	hog_block b = { .kind = HOG_KIND_SPARSE, .first = FIRST, .n = 2, .nnz = 0, .labels = labels,
	                .offsets = offsets, .ids = sp_ids }, out;
	hog_err err;
	struct enc e = enc_block(&b, 0);
	CU_ASSERT_EQUAL(dec(&e, e.len, &m, &out, &err), 0);
	CU_ASSERT_EQUAL(out.nnz, 0);
	CU_ASSERT_EQUAL(out.offsets[2], 0);
	free(e.buf);
}

static void test_block_ratings(void)
{
	hog_meta m = ratings_meta();
	hog_block b = ratings_block(), out;
	hog_err err;
	struct enc e = enc_block(&b, 0);
	CU_ASSERT_EQUAL_FATAL(dec(&e, e.len, &m, &out, &err), 0);
	CU_ASSERT_EQUAL(out.kind, HOG_KIND_RATINGS);
	CU_ASSERT_EQUAL(out.n, 4);
	CU_ASSERT_EQUAL(memcmp(out.users, rt_users, sizeof rt_users), 0);
	CU_ASSERT_EQUAL(memcmp(out.items, rt_items, sizeof rt_items), 0);
	CU_ASSERT_EQUAL(memcmp(out.ratings, rt_ratings, sizeof rt_ratings), 0);
	CU_ASSERT_PTR_NULL(out.labels);
	CU_ASSERT_PTR_NULL(out.ids);
	free(e.buf);
}

static void test_block_dense_f32(void)
{
	hog_meta m = dense_meta(0);
	hog_block b = dense_block(0), out;
	hog_err err;
	struct enc e = enc_block(&b, 0);
	CU_ASSERT_EQUAL_FATAL(dec(&e, e.len, &m, &out, &err), 0);
	CU_ASSERT_EQUAL(out.kind, HOG_KIND_DENSE);
	CU_ASSERT_EQUAL(out.n, 2);
	CU_ASSERT_EQUAL(out.cols, 3);
	CU_ASSERT_EQUAL(memcmp(out.labels, dn_labels, sizeof dn_labels), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out.xf);
	CU_ASSERT_EQUAL(memcmp(out.xf, dn_xf, sizeof dn_xf), 0);
	CU_ASSERT_PTR_NULL(out.xu8);
	free(e.buf);
}

static void test_block_dense_u8(void)
{
	hog_meta m = dense_meta(1);
	hog_block b = dense_block(1), out;
	hog_err err;
	struct enc e = enc_block(&b, HOG_BLOCK_F_U8);
	CU_ASSERT_EQUAL(e.len, hog_block_bytes(HOG_KIND_DENSE, 2, 3, HOG_BLOCK_F_U8));
	CU_ASSERT_EQUAL_FATAL(dec(&e, e.len, &m, &out, &err), 0);
	CU_ASSERT_PTR_NULL(out.xf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out.xu8);
	CU_ASSERT_EQUAL(memcmp(out.xu8, dn_xu8, sizeof dn_xu8), 0);
	CU_ASSERT_EQUAL(out.scale, 0.5f);
	CU_ASSERT_EQUAL(memcmp(out.labels, dn_labels, sizeof dn_labels), 0);
	free(e.buf);
}

/* ---------------------------------------------------------------- damage */

static void test_block_bad_magic(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block();
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	((unsigned char *)e.buf)[0] ^= 0x20;
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "magic");
	uint32_t n;
	uint64_t first;
	CU_ASSERT_EQUAL(hog_block_peek(e.buf, e.len, &n, &first, NULL, NULL), HOG_ECORRUPT);
	free(e.buf);
}

static void test_block_checksum(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block();
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	/* one bit anywhere in the payload, then in a header field no other check reads */
	for (size_t at = HOG_BLOCK_HEADER; at < e.len; at += 13) {
		((unsigned char *)e.buf)[at] ^= 0x01;
		expect_bad(&e, e.len, &m, HOG_ECORRUPT, "checksum");
		((unsigned char *)e.buf)[at] ^= 0x01;
	}
	((unsigned char *)e.buf)[40] ^= 0x10; /* the scale field, unused by sparse blocks */
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "checksum");
	((unsigned char *)e.buf)[40] ^= 0x10;
	((unsigned char *)e.buf)[12] ^= 0x80; /* the stored CRC itself */
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "checksum");
	free(e.buf);
}

static void test_block_newer_version(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block();
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	uint16_t v = HOG_FORMAT_VERSION + 1;
	memcpy((char *)e.buf + 4, &v, 2);
	expect_bad(&e, e.len, &m, HOG_EVERSION, "version");
	free(e.buf);
}

static void test_block_wrong_kind(void)
{
	hog_meta m = ratings_meta(); /* a sparse block in a ratings data set */
	hog_block b = sparse_block();
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "kind");
	/* and a kind number that does not exist at all */
	hog_meta ms = sparse_meta();
	uint16_t k = 9;
	memcpy((char *)e.buf + 6, &k, 2);
	expect_bad(&e, e.len, &ms, HOG_ECORRUPT, "kind 9");
	free(e.buf);
}

static void test_block_ids_out_of_range(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block();
	uint32_t ids[5] = { 0, 3, 1, 2, 10 }; /* 10 == features */
	b.ids = ids;
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "feature id 10");
	free(e.buf);
	ids[4] = UINT32_MAX;
	e = enc_block(&b, HOG_BLOCK_F_VALUES);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "out of range");
	free(e.buf);
}

static void test_block_ids_not_increasing(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block();
	uint32_t ids_dup[5] = { 0, 3, 2, 2, 9 }, ids_down[5] = { 3, 0, 1, 2, 9 };
	b.ids = ids_dup;
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "example 102");
	free(e.buf);
	b.ids = ids_down;
	e = enc_block(&b, HOG_BLOCK_F_VALUES);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "example 100");
	free(e.buf);
	/* decreasing across rows is fine: order is per row */
	uint32_t ids_rows[5] = { 5, 9, 0, 1, 2 };
	b.ids = ids_rows;
	e = enc_block(&b, HOG_BLOCK_F_VALUES);
	hog_block out;
	hog_err err;
	CU_ASSERT_EQUAL(dec(&e, e.len, &m, &out, &err), 0);
	free(e.buf);
}

static void test_block_offsets(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block();
	static const uint32_t ids[5] = { 0, 1, 2, 3, 4 }; /* increasing whatever the rows */
	b.ids = ids;
	uint32_t first_not_0[4] = { 1, 2, 2, 5 }, short_end[4] = { 0, 2, 2, 4 }, down[4] = { 0, 3, 2, 5 },
	         beyond[4] = { 0, 6, 6, 5 };
	const uint32_t *cases[] = { first_not_0, short_end, down, beyond };
	const char *what[] = { "offsets", "offsets", "offset", "offset" };
	for (int i = 0; i < 4; i++) {
		b.offsets = cases[i];
		struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
		expect_bad(&e, e.len, &m, HOG_ECORRUPT, what[i]);
		free(e.buf);
	}
}

static void test_block_not_finite(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block();
	float vals[5] = { 0.5f, 2, NAN, 3, 1 }, labels[3] = { 1, INFINITY, 0 };
	b.vals = vals;
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "value 2 is not finite");
	free(e.buf);
	b.vals = sp_vals;
	b.labels = labels;
	e = enc_block(&b, HOG_BLOCK_F_VALUES);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "example 101: label is not finite");
	free(e.buf);

	hog_meta rm = ratings_meta();
	hog_block rb = ratings_block();
	float ratings[4] = { 1, 2, -INFINITY, 4 };
	rb.ratings = ratings;
	e = enc_block(&rb, 0);
	expect_bad(&e, e.len, &rm, HOG_ECORRUPT, "rating 102");
	free(e.buf);

	hog_meta dm = dense_meta(0);
	hog_block db = dense_block(0);
	float xf[6] = { 0, 1, 2, 3, NAN, 5 }, dl[2] = { NAN, 0 };
	db.xf = xf;
	e = enc_block(&db, 0);
	expect_bad(&e, e.len, &dm, HOG_ECORRUPT, "value 4 is not finite");
	free(e.buf);
	db.xf = dn_xf;
	db.labels = dl;
	e = enc_block(&db, 0);
	expect_bad(&e, e.len, &dm, HOG_ECORRUPT, "label is not finite");
	free(e.buf);
}

static void test_block_ratings_ids(void)
{
	hog_meta m = ratings_meta();
	hog_block b = ratings_block();
	uint32_t users[4] = { 0, 5, 1, 1 }, items[4] = { 0, 1, 7, 1 };
	b.users = users; /* 5 == users */
	struct enc e = enc_block(&b, 0);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "rating 101");
	free(e.buf);
	b.users = rt_users;
	b.items = items; /* 7 == items */
	e = enc_block(&b, 0);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "rating 102");
	free(e.buf);
}

static void test_block_dense_shape(void)
{
	hog_meta m = dense_meta(0);
	m.features = 4; /* the block has 3 columns */
	hog_block b = dense_block(0);
	struct enc e = enc_block(&b, 0);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "columns");
	free(e.buf);
	hog_meta mu = dense_meta(1); /* float block in a u8 data set */
	e = enc_block(&b, 0);
	expect_bad(&e, e.len, &mu, HOG_ECORRUPT, "value type");
	free(e.buf);
}

static void test_block_length(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block();
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	expect_bad(&e, e.len - 8, &m, HOG_ECORRUPT, "need");
	expect_bad(&e, e.len + 8, &m, HOG_ECORRUPT, "need");
	expect_bad(&e, e.len - 1, &m, HOG_ECORRUPT, "need");
	expect_bad(&e, HOG_BLOCK_HEADER - 1, &m, HOG_ECORRUPT, "header");
	expect_bad(&e, 0, &m, HOG_ECORRUPT, "header");
	/* a payload size field that disagrees with the counts */
	uint64_t payload;
	memcpy(&payload, (char *)e.buf + 48, 8);
	payload += 8;
	memcpy((char *)e.buf + 48, &payload, 8);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "need");
	free(e.buf);
}

static void test_block_counts(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block();
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	uint64_t v = 0; /* no examples */
	memcpy((char *)e.buf + 16, &v, 8);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "implausible");
	v = 1ull << 33; /* more than 2^32 examples */
	memcpy((char *)e.buf + 16, &v, 8);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "implausible");
	uint32_t n;
	uint64_t first;
	CU_ASSERT_EQUAL(hog_block_peek(e.buf, e.len, &n, &first, NULL, NULL), HOG_ECORRUPT);
	v = 3;
	memcpy((char *)e.buf + 16, &v, 8);
	v = 1ull << 41; /* absurd nnz */
	memcpy((char *)e.buf + 24, &v, 8);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "implausible");
	free(e.buf);
}

static void test_block_first_and_flags(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block(), out;
	hog_err err;
	b.first = FIRST + 1;
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "first example 101, expected 100");
	free(e.buf);
	b.first = FIRST;
	e = enc_block(&b, HOG_BLOCK_F_VALUES | 0x100);
	expect_bad(&e, e.len, &m, HOG_ECORRUPT, "unknown flags");
	free(e.buf);
	e = enc_block(&b, HOG_BLOCK_F_VALUES);
	CU_ASSERT_EQUAL(dec(&e, e.len, &m, &out, &err), 0);
	free(e.buf);
}

static void test_block_misaligned(void)
{
	hog_meta m = sparse_meta();
	hog_block b = sparse_block(), out;
	hog_err err;
	struct enc e = enc_block(&b, HOG_BLOCK_F_VALUES);
	unsigned char *raw = malloc(e.len + 16);
	CU_ASSERT_FATAL(raw != NULL);
	unsigned char *p = raw + (8 - ((uintptr_t)raw & 7)) + 4; /* 4 mod 8 */
	memcpy(p, e.buf, e.len);
	memset(&err, 0, sizeof err);
	CU_ASSERT_EQUAL(hog_block_decode(p, e.len, BLOCK_INDEX, FIRST, &m, &out, NULL, &err), HOG_ECORRUPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "block 7"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "aligned"));
	/* copied back to an aligned address it decodes */
	unsigned char *q = raw + (8 - ((uintptr_t)raw & 7));
	memmove(q, p, e.len);
	CU_ASSERT_EQUAL(hog_block_decode(q, e.len, BLOCK_INDEX, FIRST, &m, &out, NULL, &err), 0);
	free(raw);
	free(e.buf);
}

int test_block_register(void)
{
	CU_pSuite s = CU_add_suite("block", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_block_sparse_values);
	TU_ADD(s, test_block_sparse_no_values);
	TU_ADD(s, test_block_sparse_empty_rows);
	TU_ADD(s, test_block_ratings);
	TU_ADD(s, test_block_dense_f32);
	TU_ADD(s, test_block_dense_u8);
	TU_ADD(s, test_block_bad_magic);
	TU_ADD(s, test_block_checksum);
	TU_ADD(s, test_block_newer_version);
	TU_ADD(s, test_block_wrong_kind);
	TU_ADD(s, test_block_ids_out_of_range);
	TU_ADD(s, test_block_ids_not_increasing);
	TU_ADD(s, test_block_offsets);
	TU_ADD(s, test_block_not_finite);
	TU_ADD(s, test_block_ratings_ids);
	TU_ADD(s, test_block_dense_shape);
	TU_ADD(s, test_block_length);
	TU_ADD(s, test_block_counts);
	TU_ADD(s, test_block_first_and_flags);
	TU_ADD(s, test_block_misaligned);
	return 0;
}
