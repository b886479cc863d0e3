/* Tests of the packed block encoding (src/data/block_pack.c, format version 3):
 * packed blocks decode to the arrays they were made from, bit for bit where the
 * encoding is exact; a version-1 block written out byte by byte still decodes;
 * damaged varints are HOG_ECORRUPT naming the block; lossy value precisions stay
 * within their rounding and are never chosen when exact was asked for; the
 * writer packs only when smaller and versions the set by what it wrote. */
#include "util.h"
#include "data/block.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define BLOCK_INDEX 7
#define FIRST 100

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static hog_meta meta_of(enum hog_kind kind, uint64_t features, int weighted)
{
	return (hog_meta){ .version = HOG_FORMAT_PACKED, .kind = kind, .task = HOG_TASK_REGRESSION,
	                   .features = features, .users = 5000, .items = 70000, .weighted = weighted };
}

/* Packs @p b and decodes it back into @p out (8-aligned buffer in *buf, the
 * decoded arrays in @p bb). Returns the decoder's code. */
static int pack_decode(const hog_block *b, uint32_t flags, int prec, const hog_meta *m, hog_pack_plan *pl,
                       void **buf, hog_block *out, hog_blockbuf *bb, hog_err *err)
{
	CU_ASSERT_EQUAL_FATAL(hog_block_pack_plan(b, flags, prec, pl), 0);
	*buf = aligned_alloc(8, pl->bytes);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*buf);
	hog_block_pack(*buf, b, flags, pl);
	memset(err, 0, sizeof *err);
	return hog_block_decode(*buf, pl->bytes, BLOCK_INDEX, FIRST, m, out, bb, err);
}

/* A random sparse block: @p n rows, some empty, one long, ids up to @p maxid. */
struct sp {
	hog_block b;
	float labels[600], w[600], *vals;
	uint32_t off[601], *ids;
};

static void sp_make(struct sp *s, uint32_t n, uint64_t maxid, int vkind)
{
	memset(&s->b, 0, sizeof s->b);
	s->ids = malloc(200000 * 4);
	s->vals = malloc(200000 * 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->ids);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->vals);
	uint32_t nz = 0;
	s->off[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = i % 7 == 3 ? 0 : i == 5 ? 50000 : rnd() % 40; /* empty rows, a long one */
		uint64_t id = rnd() % 50;
		for (uint32_t j = 0; j < k && id <= maxid; j++) {
			s->ids[nz] = (uint32_t)id;
			float x;
			switch (vkind) {
			case 0: x = (float)(rnd() % 11) * 0.5f; break;               /* u8 times 0.5 */
			case 1: x = ldexpf((float)(rnd() % 2048), -(int)(rnd() % 20)); /* f16 holds it */
				x = rnd() & 1 ? -x : x;
				break;
			case 2: x = (float)rnd() / 4096.0f - 1000.0f; break;         /* needs f32 */
			default: x = ldexpf(1.0f + (float)(rnd() % 128) / 128, 40); break; /* bf16 only */
			}
			s->vals[nz++] = x;
			uint64_t gap = i == 5 ? 0 : rnd() % 5 == 0 ? (uint64_t)rnd() * 64 : rnd() % 300; /* big gaps too */
			id += 1 + gap;
		}
		s->off[i + 1] = nz;
		s->labels[i] = (float)(rnd() % 1000) / 7;
		s->w[i] = 0.25f + (float)(rnd() % 8);
	}
	/* the largest ids: the last row ends at 2^32 - 2 (the dimension is at most 2^32 - 1) */
	if (maxid == UINT32_MAX - 1) {
		nz = s->off[n - 1];
		s->ids[nz] = 7;
		s->ids[nz + 1] = UINT32_MAX - 2;
		s->ids[nz + 2] = UINT32_MAX - 1;
		s->vals[nz] = s->vals[nz + 1] = s->vals[nz + 2] = vkind == 2 ? 3.1f : 1.0f;
		nz += 3;
		s->off[n] = nz;
	}
	s->b = (hog_block){ .kind = HOG_KIND_SPARSE, .first = FIRST, .n = n, .nnz = nz, .labels = s->labels,
	                    .offsets = s->off, .ids = s->ids, .vals = s->vals, .weights = s->w };
}

static void sp_check(const struct sp *s, const hog_block *o, uint32_t flags)
{
	CU_ASSERT_EQUAL_FATAL(o->n, s->b.n);
	CU_ASSERT_EQUAL_FATAL(o->nnz, s->b.nnz);
	CU_ASSERT(o->packed);
	CU_ASSERT_EQUAL(memcmp(o->labels, s->labels, 4 * s->b.n), 0);
	CU_ASSERT_EQUAL(memcmp(o->offsets, s->off, 4 * (s->b.n + 1)), 0);
	CU_ASSERT_EQUAL(memcmp(o->ids, s->ids, 4 * s->b.nnz), 0);
	if (flags & HOG_BLOCK_F_VALUES) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(o->vals);
		CU_ASSERT_EQUAL(memcmp(o->vals, s->vals, 4 * s->b.nnz), 0); /* bit for bit */
	} else {
		CU_ASSERT_PTR_NULL(o->vals);
	}
	if (flags & HOG_BLOCK_F_WEIGHTS) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(o->weights);
		CU_ASSERT_EQUAL(memcmp(o->weights, s->w, 4 * s->b.n), 0);
	} else {
		CU_ASSERT_PTR_NULL(o->weights);
	}
}

/* Every flag combination and value shape, exact: the narrowest exact code. */
static void test_enc_sparse_round_trip(void)
{
	static const unsigned want[] = { HOG_VC_U8, HOG_VC_F16, HOG_VC_F32, HOG_VC_BF16 };
	hog_blockbuf bb = { 0 };
	for (int vk = 0; vk < 4; vk++)
		for (uint32_t flags = 0; flags < 8; flags++) {
			if (flags & HOG_BLOCK_F_U8)
				continue; /* dense only */
			uint32_t n = 1 + rnd() % 599;
			uint64_t maxid = flags & HOG_BLOCK_F_WEIGHTS ? UINT32_MAX - 1 : 100000;
			struct sp s;
			sp_make(&s, n < 8 ? 8 : n, maxid, vk);
			hog_meta m = meta_of(HOG_KIND_SPARSE, maxid + 1, (flags & HOG_BLOCK_F_WEIGHTS) != 0);
			hog_pack_plan pl;
			void *buf;
			hog_block o;
			hog_err err;
			CU_ASSERT_EQUAL_FATAL(pack_decode(&s.b, flags, HOG_PREC_EXACT, &m, &pl, &buf, &o, &bb, &err), 0);
			if (flags & HOG_BLOCK_F_VALUES)
				CU_ASSERT_EQUAL(pl.vcode, want[vk]);
			CU_ASSERT(pl.bytes < hog_block_bytes(HOG_KIND_SPARSE, s.b.n, s.b.nnz, flags));
			CU_ASSERT_EQUAL(hog_block_stored_bytes(buf, HOG_KIND_SPARSE, s.b.n, s.b.nnz, flags | HOG_BLOCK_F_PACKED),
			                pl.bytes);
			sp_check(&s, &o, flags);
			free(buf);
			free(s.ids);
			free(s.vals);
		}
	hog_blockbuf_free(&bb);
}

/* A ratings block: users as zigzag deltas (up and down), items, halves. */
static void test_enc_ratings_round_trip(void)
{
	enum { N = 3000 };
	static uint32_t u[N], it[N];
	static float r[N], w[N];
	for (int i = 0; i < N; i++) {
		u[i] = i < 2 ? (uint32_t)(4999 * i) : rnd() % 5000;
		it[i] = i == 2 ? 69999 : rnd() % 70000;
		r[i] = (float)(1 + rnd() % 10) * 0.5f;
		w[i] = 1 + (float)(rnd() % 3);
	}
	hog_blockbuf bb = { 0 };
	for (int weighted = 0; weighted < 2; weighted++) {
		hog_block b = { .kind = HOG_KIND_RATINGS, .first = FIRST, .n = N, .users = u, .items = it, .ratings = r,
		                .weights = weighted ? w : NULL };
		uint32_t flags = weighted ? HOG_BLOCK_F_WEIGHTS : 0;
		hog_meta m = meta_of(HOG_KIND_RATINGS, 0, weighted);
		hog_pack_plan pl;
		void *buf;
		hog_block o;
		hog_err err;
		CU_ASSERT_EQUAL_FATAL(pack_decode(&b, flags, HOG_PREC_EXACT, &m, &pl, &buf, &o, &bb, &err), 0);
		CU_ASSERT_EQUAL(pl.vcode, HOG_VC_U8);
		CU_ASSERT(pl.bytes < hog_block_bytes(HOG_KIND_RATINGS, N, 0, flags) * (weighted ? 3 : 2) / 4);
		CU_ASSERT_EQUAL(memcmp(o.users, u, sizeof u), 0);
		CU_ASSERT_EQUAL(memcmp(o.items, it, sizeof it), 0);
		CU_ASSERT_EQUAL(memcmp(o.ratings, r, sizeof r), 0);
		CU_ASSERT(weighted ? o.weights && !memcmp(o.weights, w, sizeof w) : !o.weights);
		free(buf);
	}
	hog_blockbuf_free(&bb);
}

/* A version-1 block as hogwild before packing wrote it, byte by byte: sparse,
 * flag VALUES, n = 2, nnz = 3, first 100; labels 1, -1; offsets 0 2 3; ids 3 5 0;
 * values 0.5 2 1.25 (crc 0x94de6c17). */
static const unsigned char v1_block[120] = {
	0x48, 0x42, 0x4c, 0x4b, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x17, 0x6c, 0xde, 0x94,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x38, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x80, 0xbf, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3f, 0x00, 0x00, 0x00, 0x40,
	0x00, 0x00, 0xa0, 0x3f, 0x00, 0x00, 0x00, 0x00,
};

static void test_enc_old_version_block(void)
{
	uint64_t *buf = malloc(sizeof v1_block);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	memcpy(buf, v1_block, sizeof v1_block);
	for (uint32_t mv = 1; mv <= HOG_FORMAT_VERSION; mv++) { /* in a set of any version */
		hog_meta m = meta_of(HOG_KIND_SPARSE, 10, 0);
		m.version = mv;
		hog_block o;
		hog_err err = { 0 };
		CU_ASSERT_EQUAL_FATAL(hog_block_decode(buf, sizeof v1_block, BLOCK_INDEX, FIRST, &m, &o, NULL, &err), 0);
		CU_ASSERT(!o.packed && o.n == 2 && o.nnz == 3 && o.first == FIRST);
		CU_ASSERT(o.labels[0] == 1 && o.labels[1] == -1);
		CU_ASSERT(o.offsets[0] == 0 && o.offsets[1] == 2 && o.offsets[2] == 3);
		CU_ASSERT(o.ids[0] == 3 && o.ids[1] == 5 && o.ids[2] == 0);
		CU_ASSERT(o.vals && o.vals[0] == 0.5f && o.vals[1] == 2 && o.vals[2] == 1.25f);
		CU_ASSERT((const void *)o.ids > (const void *)buf); /* a view, no copy */
	}
	free(buf);
}

static void reseal(void *buf, size_t len)
{
	memset((char *)buf + 12, 0, 4);
	uint32_t c = (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf, (uInt)len);
	memcpy((char *)buf + 12, &c, 4);
}

static void expect_corrupt(void *buf, size_t len, const hog_meta *m, hog_blockbuf *bb, const char *what)
{
	hog_block o;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL(hog_block_decode(buf, len, BLOCK_INDEX, FIRST, m, &o, bb, &err), HOG_ECORRUPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "block 7"));
	if (!strstr(err.msg, what))
		fprintf(stderr, "\n  got '%s', wanted '%s'\n", err.msg, what);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
}

/* Damage behind a valid checksum: each is refused, naming block 7. */
static void test_enc_damaged(void)
{
	/* 2 rows: ids {1, 300} and {}: varints 02 00 | 01 | ab 02 (300 - 1 - 1 = 298) */
	static const float labels[2] = { 1, 2 }, vals[2] = { 0.5f, 1.5f };
	static const uint32_t off[3] = { 0, 2, 2 }, ids[2] = { 1, 300 };
	hog_block b = { .kind = HOG_KIND_SPARSE, .first = FIRST, .n = 2, .nnz = 2, .labels = labels, .offsets = off,
	                .ids = ids, .vals = vals };
	hog_meta m = meta_of(HOG_KIND_SPARSE, 1000, 0);
	hog_pack_plan pl;
	CU_ASSERT_EQUAL_FATAL(hog_block_pack_plan(&b, HOG_BLOCK_F_VALUES, 0, &pl), 0);
	CU_ASSERT_EQUAL(pl.varint_bytes, 5);
	CU_ASSERT_EQUAL(pl.vcode, HOG_VC_U8);
	unsigned char *buf = aligned_alloc(8, pl.bytes), *v = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	hog_blockbuf bb = { 0 };
	v = buf + HOG_BLOCK_HEADER + 8; /* the varints, after the labels */
	/* the section is 02 00 | 01 aa 02 */
	struct { int at; unsigned char byte; const char *what; } cases[] = {
		{ 0, 0x01, "row lengths add up" },        /* 1 + 0 != 2 */
		{ 0, 0x03, "bad row length" },            /* 3 > the block's 2 nonzeros */
		{ 3, 0x2a, "packed ids left over" },      /* a one-byte gap: 02 is left */
		{ 4, 0x82, "damaged packed feature id" }, /* runs past the section */
		{ 2, 0x81, "damaged packed feature id" }, /* the first id takes the second's bytes */
		{ 2, 0x7f, "out of range" },              /* 127, then 127 + 1 + 298 >= 400 */
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		hog_block_pack(buf, &b, HOG_BLOCK_F_VALUES, &pl);
		v[cases[k].at] = cases[k].byte;
		if (cases[k].byte == 0x7f)
			m.features = 400;
		if (cases[k].byte == 0x81) /* (the first id, 38145, in range) */
			m.features = 100000;
		reseal(buf, pl.bytes);
		expect_corrupt(buf, pl.bytes, &m, &bb, cases[k].what);
		m.features = 1000;
	}
	/* a varint of 6 bytes / beyond 32 bits, in a longer section */
	static const uint32_t ids2[2] = { 1, 0xfffffff0u };
	b.ids = ids2;
	m.features = UINT32_MAX;
	CU_ASSERT_EQUAL_FATAL(hog_block_pack_plan(&b, HOG_BLOCK_F_VALUES, 0, &pl), 0);
	unsigned char *buf2 = aligned_alloc(8, pl.bytes);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf2);
	hog_block_pack(buf2, &b, HOG_BLOCK_F_VALUES, &pl);
	v = buf2 + HOG_BLOCK_HEADER + 8;
	CU_ASSERT_EQUAL(v[3 + 4], 0x0f); /* 0xffffffee's fifth byte */
	v[3 + 4] = 0x1f;
	reseal(buf2, pl.bytes);
	expect_corrupt(buf2, pl.bytes, &m, &bb, "damaged packed feature id");
	/* a packed block in a set that says version 2, a value code that does not exist, a bad scale */
	hog_block_pack(buf2, &b, HOG_BLOCK_F_VALUES, &pl);
	m.version = 2;
	expect_corrupt(buf2, pl.bytes, &m, &bb, "packed");
	m.version = HOG_FORMAT_PACKED;
	uint32_t vc = HOG_VC_COUNT;
	memcpy(buf2 + 44, &vc, 4);
	reseal(buf2, pl.bytes);
	expect_corrupt(buf2, pl.bytes, &m, &bb, "its counts need");
	hog_block_pack(buf2, &b, HOG_BLOCK_F_VALUES, &pl);
	float sc = -1;
	memcpy(buf2 + 40, &sc, 4);
	reseal(buf2, pl.bytes);
	expect_corrupt(buf2, pl.bytes, &m, &bb, "scale");
	/* a binary block (no values: its nonzero count is not in its length) claiming 2^32 nonzeros
	 * that 5 bytes of varints cannot hold: refused before it sizes the decode buffer (the
	 * fuzzer found it asking for 16 GiB) */
	hog_pack_plan pb;
	CU_ASSERT_EQUAL_FATAL(hog_block_pack_plan(&b, 0, 0, &pb), 0);
	CU_ASSERT_FATAL(pb.bytes <= pl.bytes);
	hog_block_pack(buf2, &b, 0, &pb);
	uint64_t huge = 1ull << 32;
	memcpy(buf2 + 24, &huge, 8);
	reseal(buf2, pb.bytes);
	expect_corrupt(buf2, pb.bytes, &m, &bb, "cannot hold");
	CU_ASSERT(bb.cap < 1024);
	/* no buffer to decode into */
	hog_block_pack(buf2, &b, HOG_BLOCK_F_VALUES, &pl);
	hog_block o;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL(hog_block_decode(buf2, pl.bytes, BLOCK_INDEX, FIRST, &m, &o, NULL, &err), HOG_ECORRUPT);
	/* a newer version than this reader's */
	uint16_t ver = HOG_FORMAT_VERSION + 1;
	memcpy(buf2 + 4, &ver, 2);
	reseal(buf2, pl.bytes);
	CU_ASSERT_EQUAL(hog_block_decode(buf2, pl.bytes, BLOCK_INDEX, FIRST, &m, &o, &bb, &err), HOG_EVERSION);
	free(buf);
	free(buf2);
	hog_blockbuf_free(&bb);
}

/* Lossy precisions: within their rounding, refused (kept exact) where they do
 * not hold a value, never chosen when exact was asked for. */
static void test_enc_lossy(void)
{
	enum { M = 2000 };
	static float x[M];
	static uint32_t ids[M], off[2] = { 0, M };
	static const float label = 1;
	for (int j = 0; j < M; j++) {
		ids[j] = (uint32_t)j;
		x[j] = (float)(rnd() % 100000 + 1) / 314159.0f; /* tf-idf-like: f16 is not exact */
	}
	hog_block b = { .kind = HOG_KIND_SPARSE, .first = FIRST, .n = 1, .nnz = M, .labels = &label, .offsets = off,
	                .ids = ids, .vals = x };
	hog_meta m = meta_of(HOG_KIND_SPARSE, M, 0);
	hog_blockbuf bb = { 0 };
	static const struct { int prec; unsigned vc; float tol; } cases[] = {
		{ HOG_PREC_EXACT, HOG_VC_F32, 0 }, { HOG_PREC_F16, HOG_VC_F16, 0x1p-11f },
		{ HOG_PREC_BF16, HOG_VC_BF16, 0x1p-8f },
	};
	for (size_t k = 0; k < 3; k++) {
		hog_pack_plan pl;
		void *buf;
		hog_block o;
		hog_err err;
		CU_ASSERT_EQUAL_FATAL(pack_decode(&b, HOG_BLOCK_F_VALUES, cases[k].prec, &m, &pl, &buf, &o, &bb, &err), 0);
		CU_ASSERT_EQUAL(pl.vcode, cases[k].vc);
		int worse = 0, differ = 0;
		for (int j = 0; j < M; j++) {
			worse += fabsf(o.vals[j] - x[j]) > cases[k].tol * fabsf(x[j]);
			differ += o.vals[j] != x[j];
		}
		CU_ASSERT_EQUAL(worse, 0);
		CU_ASSERT(cases[k].tol == 0 ? differ == 0 : differ > 0); /* lossy modes do round */
		free(buf);
	}
	/* values f16 cannot hold (beyond 65504, below its normals): kept exact, f32 */
	x[7] = 1e6f;
	hog_pack_plan pl;
	CU_ASSERT_EQUAL(hog_block_pack_plan(&b, HOG_BLOCK_F_VALUES, HOG_PREC_F16, &pl), 0);
	CU_ASSERT_EQUAL(pl.vcode, HOG_VC_F32);
	x[7] = 1e-7f;
	CU_ASSERT_EQUAL(hog_block_pack_plan(&b, HOG_BLOCK_F_VALUES, HOG_PREC_F16, &pl), 0);
	CU_ASSERT_EQUAL(pl.vcode, HOG_VC_F32);
	CU_ASSERT_EQUAL(hog_block_pack_plan(&b, HOG_BLOCK_F_VALUES, HOG_PREC_BF16, &pl), 0);
	CU_ASSERT_EQUAL(pl.vcode, HOG_VC_BF16);
	/* f16's edges, exact: the largest half, the smallest subnormal, -0 */
	x[0] = 65504.0f;
	x[1] = 0x1p-24f;
	x[2] = -0.0f;
	for (int j = 3; j < M; j++)
		x[j] = (float)(j % 1024) * 0x1p-10f;
	void *buf;
	hog_block o;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(pack_decode(&b, HOG_BLOCK_F_VALUES, HOG_PREC_EXACT, &m, &pl, &buf, &o, &bb, &err), 0);
	CU_ASSERT_EQUAL(pl.vcode, HOG_VC_F16);
	CU_ASSERT_EQUAL(memcmp(o.vals, x, sizeof x), 0);
	free(buf);
	hog_blockbuf_free(&bb);
}

/* The writer: packed only when smaller, the set's version by what it wrote;
 * hog_store_block, hog_store_block_buf and hog_data_load agree with a raw copy. */
static void test_enc_writer(void)
{
	hog_err err;
	for (int raw = 0; raw < 2; raw++) {
		const char *path = tu_path(raw ? "enc_raw.lmdb" : "enc_packed.lmdb");
		hog_writer *w;
		hog_writer_opts o = { .kind = HOG_KIND_SPARSE, .block_examples = 100, .raw_blocks = raw };
		CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, path, &o, &err), 0);
		rng = 12345;
		for (int i = 0; i < 1000; i++) {
			uint32_t ids[30];
			float v[30];
			uint32_t k = rnd() % 30, id = rnd() % 10;
			for (uint32_t j = 0; j < k; j++, id += 1 + rnd() % 1000) {
				ids[j] = id;
				v[j] = (float)(rnd() % 4);
			}
			CU_ASSERT_EQUAL_FATAL(hog_writer_add_sparse(w, (float)(i % 2), ids, v, k, &err), 0);
		}
		CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	}
	hog_store *s[2];
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s[0], tu_path("enc_packed.lmdb"), &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s[1], tu_path("enc_raw.lmdb"), &err), 0);
	CU_ASSERT_EQUAL(hog_store_meta(s[0])->version, HOG_FORMAT_PACKED);
	CU_ASSERT_EQUAL(hog_store_meta(s[1])->version, 1);
	hog_blockbuf bb = { 0 };
	for (uint64_t k = 0; k < hog_store_meta(s[0])->blocks; k++) {
		hog_block a, a2, r;
		CU_ASSERT_EQUAL_FATAL(hog_store_block(s[0], k, &a, &err), 0);
		CU_ASSERT_EQUAL_FATAL(hog_store_block_buf(s[0], k, &a2, &bb, &err), 0);
		CU_ASSERT_EQUAL_FATAL(hog_store_block(s[1], k, &r, &err), 0);
		CU_ASSERT(a.packed && a2.packed && !r.packed);
		CU_ASSERT_EQUAL_FATAL(a.nnz, r.nnz);
		CU_ASSERT(!memcmp(a.ids, r.ids, 4 * r.nnz) && !memcmp(a2.ids, r.ids, 4 * r.nnz));
		CU_ASSERT(!memcmp(a.vals, r.vals, 4 * r.nnz) && !memcmp(a.offsets, r.offsets, 4 * (r.n + 1)));
		hog_block again;
		CU_ASSERT_EQUAL(hog_store_block(s[0], k, &again, &err), 0);
		CU_ASSERT_PTR_EQUAL(again.ids, a.ids); /* decoded once, kept until close */
		hog_store_release(s[0], &a);           /* heap memory: left alone */
		CU_ASSERT(!memcmp(a.ids, r.ids, 4 * r.nnz));
	}
	hog_blockbuf_free(&bb);
	hog_store_close(s[0]);
	hog_store_close(s[1]);
	hog_data *d[2];
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d[0], tu_path("enc_packed.lmdb"), &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d[1], tu_path("enc_raw.lmdb"), &err), 0);
	CU_ASSERT_EQUAL_FATAL(d[0]->nnz, d[1]->nnz);
	CU_ASSERT(!memcmp(d[0]->ids, d[1]->ids, 4 * d[1]->nnz) && !memcmp(d[0]->vals, d[1]->vals, 4 * d[1]->nnz));
	CU_ASSERT(!memcmp(d[0]->offsets, d[1]->offsets, 8 * (d[1]->n + 1)));
	CU_ASSERT(!memcmp(d[0]->labels, d[1]->labels, 4 * d[1]->n));
	CU_ASSERT_EQUAL(hog_store_verify(tu_path("enc_packed.lmdb"), NULL, &err), 0);
	hog_data_free(d[0]);
	hog_data_free(d[1]);
}

int test_encoding_register(void)
{
	CU_pSuite s = CU_add_suite("encoding", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_enc_sparse_round_trip);
	TU_ADD(s, test_enc_ratings_round_trip);
	TU_ADD(s, test_enc_old_version_block);
	TU_ADD(s, test_enc_damaged);
	TU_ADD(s, test_enc_lossy);
	TU_ADD(s, test_enc_writer);
	return 0;
}
