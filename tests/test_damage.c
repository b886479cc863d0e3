/* Damaged and crafted data set files (issue 9): the reader trusts nothing.
 * Meta counts that would size an allocation (2^62 nonzeros, 2^64-1 examples)
 * are refused at open with HOG_ECORRUPT naming the field; a file cut short at
 * any length is refused as "truncated" with both sizes before LMDB maps it; and a
 * flipped byte anywhere in LMDB's own pages (meta, branch, leaf, overflow
 * headers) gives an error or, when harmless, the same data as before: never a
 * crash, never an out-of-bounds access (run under `make asan` to see the
 * latter), never different data with success. Files are made by the writer and
 * damaged with the LMDB C API or by editing bytes. */
#include "util.h"
#include "data/store.h"
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Example i: label +1 when i % 3 == 0 else -1; i % 5 nonzeros at ids 3j + i % 3,
 * value j + 1. */
static const char *write_set(const char *name, uint64_t n, uint32_t block)
{
	const char *path = tu_path(name);
	hog_writer_opts o = { .kind = HOG_KIND_SPARSE, .block_examples = block, .features = 20 };
	hog_writer *w;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, path, &o, &err), 0);
	for (uint64_t i = 0; i < n; i++) {
		uint32_t ids[5];
		float vals[5];
		uint32_t k = (uint32_t)(i % 5);
		for (uint32_t j = 0; j < k; j++) {
			ids[j] = 3 * j + (uint32_t)(i % 3);
			vals[j] = (float)(j + 1);
		}
		CU_ASSERT_EQUAL_FATAL(hog_writer_add_sparse(w, i % 3 ? -1.0f : 1.0f, ids, vals, k, &err), 0);
	}
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	return path;
}

static void meta_set(const char *path, const char *key, const char *value)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	CU_ASSERT_EQUAL_FATAL(mdb_env_create(&env), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_env_set_maxdbs(env, 4), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_NOLOCK, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_txn_begin(env, NULL, 0, &txn), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_dbi_open(txn, "meta", 0, &dbi), 0);
	MDB_val k = { strlen(key), (void *)key }, v = { strlen(value), (void *)value };
	CU_ASSERT_EQUAL(mdb_put(txn, dbi, &k, &v, 0), 0);
	CU_ASSERT_EQUAL(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	unsigned char *b = malloc(*len + 1);
	CU_ASSERT_FATAL(b && fread(b, 1, *len, f) == *len);
	fclose(f);
	return b;
}

static void spit(const char *path, const unsigned char *b, size_t len)
{
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_FATAL(fwrite(b, 1, len, f) == len);
	CU_ASSERT_FATAL(fclose(f) == 0);
}

static int has(const hog_err *e, const char *what)
{
	if (strstr(e->msg, what))
		return 1;
	fprintf(stderr, "\n  expected '%s' in '%s'\n", what, e->msg);
	return 0;
}

/* The exploit: counts in meta that size the loader's arrays. Each must
 * be refused by open, load and verify, naming the field, before any allocation
 * (under ASan a wrapped size shows as heap-buffer-overflow). */
static void test_damage_meta_counts(void)
{
	static const struct { const char *key, *value, *what; } cases[] = {
		{ "nnz", "4611686018427387904", "'nnz' = 4611686018427387904" },   /* 2^62: nnz*4+4 wraps */
		{ "nnz", "1", "'nnz' = 1, but the blocks hold" },
		{ "examples", "18446744073709551615", "'examples' = 18446744073709551615" }, /* 2^64-1 */
		{ "examples", "4611686018427387904", "'examples'" },
		{ "examples", "0", "'examples'" },
		{ "blocks", "18446744073709551615", "blocks" },
		{ "blocks", "0", "'blocks'" },
		{ "positives", "1000", "'positives' = 1000" },
		{ "classes", "7", "'classes' = 7" }, /* a binary task with classes */
		{ "features", "0", "'features'" },
		{ "dense_u8", "1", "'dense_u8'" },
		{ "task", "ratings", "'task'" },
		{ "version", "0", "'version' = 0" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char name[32];
		snprintf(name, sizeof name, "count%zu.lmdb", i);
		const char *p = write_set(name, 50, 16);
		meta_set(p, cases[i].key, cases[i].value);
		hog_store *s = (hog_store *)1;
		hog_data *d = (hog_data *)1;
		hog_err err = { 0 };
		CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), HOG_ECORRUPT);
		CU_ASSERT_PTR_NULL(s);
		CU_ASSERT(has(&err, cases[i].what));
		CU_ASSERT(has(&err, p));
		CU_ASSERT_EQUAL(hog_data_load(&d, p, &err), HOG_ECORRUPT);
		CU_ASSERT_PTR_NULL(d);
		CU_ASSERT(has(&err, cases[i].what));
		CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), HOG_ECORRUPT);
	}
	/* the untouched set opens: the checks above are not refusing everything */
	const char *p = write_set("count_ok.lmdb", 50, 16);
	hog_data *d;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, p, &err), 0);
	CU_ASSERT_EQUAL(d->n, 50);
	CU_ASSERT_EQUAL(d->nnz, 100); /* 0+1+2+3+4 per 5 examples */
	hog_data_free(d);
}

/* Meta entries the loaders read beyond the counts: a byte-valued dense set's
 * scale (0, negative, NaN, infinite: refused at open), and a ratings set's id
 * maps (verify: whole 8-byte ids, one per user and item the meta counts). */
static void test_damage_meta_scale_idmaps(void)
{
	static const char *const scales[] = { "0", "-1", "nan", "inf" };
	for (size_t i = 0; i < sizeof scales / sizeof *scales; i++) {
		const char *p = tu_path("scale.lmdb");
		hog_writer_opts o = { .kind = HOG_KIND_DENSE, .features = 3, .dense_u8 = 1, .dense_scale = 1.0f / 255 };
		hog_writer *w;
		hog_err err;
		CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, p, &o, &err), 0);
		for (int k = 0; k < 10; k++) {
			uint8_t x[3] = { (uint8_t)k, 7, 200 };
			CU_ASSERT_EQUAL_FATAL(hog_writer_add_dense(w, (float)(k % 2), NULL, x, &err), 0);
		}
		CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
		hog_store *s;
		CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, p, &err), 0); /* as written: fine */
		hog_store_close(s);
		meta_set(p, "dense_scale", scales[i]);
		CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), HOG_ECORRUPT);
		CU_ASSERT(has(&err, "'dense_scale'") && has(&err, p));
		CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), HOG_ECORRUPT);
	}
	static const struct { const char *key, *value, *what; } maps[] = {
		{ "idmap.users", "x", "'idmap.users' has 1 bytes, not whole 8-byte ids" },
		{ "idmap.items", "0123456789abcdef", "'idmap.items' holds 2 ids, but meta entry 'items' = 4" },
		{ "users", "9", "'idmap.users' holds 3 ids, but meta entry 'users' = 9" },
	};
	for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) {
		const char *p = tu_path("idmaps.lmdb");
		hog_writer_opts o = { .kind = HOG_KIND_RATINGS, .users = 3, .items = 4 };
		hog_writer *w;
		hog_err err;
		CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, p, &o, &err), 0);
		for (uint32_t k = 0; k < 12; k++)
			CU_ASSERT_EQUAL_FATAL(hog_writer_add_rating(w, k % 3, k % 4, 1.0f + k % 5, &err), 0);
		const uint64_t users[3] = { 101, 205, 7 }, items[4] = { 9, 8, 7, 6 };
		CU_ASSERT_EQUAL_FATAL(hog_writer_idmap_set(w, "users", users, 3, &err), 0);
		CU_ASSERT_EQUAL_FATAL(hog_writer_idmap_set(w, "items", items, 4, &err), 0);
		CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
		CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), 0);
		meta_set(p, maps[i].key, maps[i].value);
		CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), HOG_ECORRUPT);
		if (!has(&err, maps[i].what))
			fprintf(stderr, "\n  %s: %s\n", maps[i].key, err.msg);
		CU_ASSERT(has(&err, maps[i].what) && has(&err, p));
	}
}

/* verify recomputes what meta states: each edit below keeps the counts
 * consistent (open succeeds) but states a wrong statistic or class count. */
static void test_damage_verify_stats(void)
{
	static const struct { const char *key, *value, *what; } cases[] = {
		{ "positives", "3", "'positives' = 3, but the blocks hold 17 labels > 0" }, /* 17 of 50: i % 3 == 0 */
		{ "label_min", "-2", "'label_min', 'label_max' = -2, 1" },
		{ "label_max", "0.5", "but the labels span -1..1" },
		{ "label_sum", "5", "'label_sum' = 5, but the labels add up to -16" }, /* 17 - 33 */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *p = write_set("stats.lmdb", 50, 16);
		uint64_t nb;
		hog_err err;
		CU_ASSERT_EQUAL(hog_store_verify(p, &nb, &err), 0);
		meta_set(p, cases[i].key, cases[i].value);
		CU_ASSERT_EQUAL(hog_store_verify(p, &nb, &err), HOG_ECORRUPT);
		CU_ASSERT(has(&err, cases[i].what));
		CU_ASSERT(has(&err, p));
	}
	/* multiclass labels 0, 1, 2; meta then says 2 classes: label 2 is out */
	const char *p = tu_path("classes.lmdb");
	hog_writer_opts o = { .kind = HOG_KIND_SPARSE, .task = HOG_TASK_MULTICLASS, .block_examples = 4 };
	hog_writer *w;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, p, &o, &err), 0);
	for (uint32_t i = 0; i < 12; i++)
		CU_ASSERT_EQUAL_FATAL(hog_writer_add_sparse(w, (float)(i % 3), &i, NULL, 1, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), 0);
	meta_set(p, "classes", "2");
	CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, "block 0, example 2: class 2 out of 0..1"));
	CU_ASSERT(has(&err, p));
}

/* A block header whose counts are changed (its checksum then fails too, but
 * the counts are read first, to size things): refused at open. */
static void test_damage_block_counts(void)
{
	const char *p = write_set("hdr.lmdb", 50, 16);
	size_t len;
	unsigned char *b = slurp(p, &len);
	/* find block 1's header: magic "HBLK", then first example 16 at byte 32 */
	size_t at = 0;
	for (size_t o = 0; o + 64 <= len; o++)
		if (!memcmp(b + o, "HBLK", 4) && b[o + 32] == 16) {
			at = o;
			break;
		}
	CU_ASSERT_FATAL(at != 0);
	static const struct { size_t off; unsigned char v; } edits[] = { { 16, 17 }, { 23, 0x40 }, { 24, 99 }, { 31, 0x10 } };
	for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
		unsigned char *c = malloc(len);
		CU_ASSERT_FATAL(c != NULL);
		memcpy(c, b, len);
		c[at + edits[i].off] = edits[i].v;
		const char *q = tu_path("hdr_bad.lmdb");
		spit(q, c, len);
		free(c);
		hog_store *s;
		hog_err err;
		CU_ASSERT_EQUAL(hog_store_open(&s, q, &err), HOG_ECORRUPT);
		CU_ASSERT(has(&err, "block 1"));
	}
	free(b);
}

/* Cut at every page boundary, one byte either side of it, and at odd lengths:
 * every length short of the whole file is refused, none crashes. */
static void test_damage_truncated(void)
{
	const char *p = write_set("trunc.lmdb", 3000, 1000); /* blocks in overflow pages */
	size_t len;
	unsigned char *b = slurp(p, &len);
	const char *q = tu_path("trunc_cut.lmdb");
	int tried = 0;
	for (size_t cut = 1; cut < len; cut += cut < 200 ? 7 : cut % 4096 == 0 ? 1 : cut % 4096 == 1 ? 4094 : 997) {
		spit(q, b, cut);
		hog_store *s = NULL;
		hog_data *d = NULL;
		hog_err err = { 0 };
		int rc = hog_store_open(&s, q, &err);
		CU_ASSERT(rc == HOG_ECORRUPT || rc == HOG_EFORMAT);
		if (cut >= 24) { /* LMDB's magic number is in the file: say truncated, with the size */
			char size[64];
			snprintf(size, sizeof size, "truncated: the file has %zu bytes", cut);
			CU_ASSERT(rc == HOG_ECORRUPT && has(&err, size));
		}
		CU_ASSERT_NOT_EQUAL(hog_data_load(&d, q, &err), 0);
		CU_ASSERT_NOT_EQUAL(hog_store_verify(q, NULL, &err), 0);
		tried++;
	}
	CU_ASSERT(tried > 50);
	/* the whole file is fine, and one page short names both sizes */
	spit(q, b, len);
	hog_store *s;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, q, &err), 0);
	hog_store_close(s);
	spit(q, b, len - 4096);
	char msg[128];
	snprintf(msg, sizeof msg, "truncated: the file has %zu bytes, LMDB's meta page says %zu", len - 4096, len);
	CU_ASSERT_EQUAL(hog_store_open(&s, q, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, msg));
	free(b);
}

/* Flips bytes of every LMDB structural page of @p p (meta, branch, leaf, and
 * the headers of overflow pages): all bytes of the first @p dense bytes of a
 * page, every 5th after. Each damaged file is opened, verified and loaded: an
 * error, or success with exactly the original data. Returns the flips tried. */
static int flip_pages(const char *p, size_t dense)
{
	size_t len;
	unsigned char *b = slurp(p, &len), *c = malloc(len);
	CU_ASSERT_FATAL(c != NULL);
	hog_data *ref;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&ref, p, &err), 0);
	const char *q = tu_path("flip.lmdb");
	int tried = 0, caught = 0, branch = 0;
	for (size_t pg = 0; pg < len / 4096; pg++) {
		const unsigned char *h = b + pg * 4096;
		uint64_t no;
		memcpy(&no, h, 8);
		unsigned flags = h[10] | h[11] << 8;
		if (no != pg || !(flags == 1 || flags == 2 || flags == 4 || flags == 8))
			continue; /* data inside an overflow run */
		branch += flags == 1;
		size_t span = flags == 4 ? 16 : 4096;
		for (size_t o = 0; o < span; o += o < dense ? 1 : 5) {
			memcpy(c, b, len);
			c[pg * 4096 + o] ^= (unsigned char)(0x5a ^ (o & 0xff)) | 1;
			spit(q, c, len);
			hog_data *d = NULL;
			int rc = hog_data_load(&d, q, &err);
			int known = rc == 0 || rc == HOG_ECORRUPT || rc == HOG_EFORMAT || rc == HOG_ELMDB || rc == HOG_EVERSION;
			if (!known)
				fprintf(stderr, "\n  page %zu byte %zu: %d %s\n", pg, o, rc, err.msg);
			CU_ASSERT(known);
			if (rc == 0) { /* a harmless byte: then the data is exactly the same */
				CU_ASSERT_FATAL(d->n == ref->n && d->nnz == ref->nnz);
				CU_ASSERT(!memcmp(d->labels, ref->labels, ref->n * 4));
				CU_ASSERT(!memcmp(d->offsets, ref->offsets, (ref->n + 1) * 8));
				CU_ASSERT(!memcmp(d->ids, ref->ids, ref->nnz * 4));
				CU_ASSERT(!ref->vals || !memcmp(d->vals, ref->vals, ref->nnz * 4));
				hog_data_free(d);
			} else {
				caught++;
			}
			uint64_t nb;
			hog_store_verify(q, &nb, &err);
			tried++;
		}
	}
	if (getenv("HOG_TEST_VERBOSE"))
		fprintf(stderr, "\n  %s: %d flips, %d refused\n", p, tried, caught);
	CU_ASSERT(caught >= 100); /* structural bytes matter (free space in a page does not) */
	hog_data_free(ref);
	free(b);
	free(c);
	return branch ? tried : -tried;
}

static void test_damage_flips_inline(void)
{
	/* 600 one-example blocks of ~100 bytes: values inline in leaf pages, and
	 * enough leaves for a branch page above them */
	int tried = flip_pages(write_set("flip_small.lmdb", 600, 1), 64);
	CU_ASSERT(tried > 1000); /* positive: a branch page was among them */
}

static void test_damage_flips_overflow(void)
{
	/* blocks of 1000 examples: values in overflow pages */
	int tried = flip_pages(write_set("flip_big.lmdb", 3000, 1000), 1024);
	CU_ASSERT(tried < -1000 || tried > 1000);
}

int test_damage_register(void)
{
	CU_pSuite s = CU_add_suite("damage", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_damage_meta_counts);
	TU_ADD(s, test_damage_block_counts);
	TU_ADD(s, test_damage_verify_stats);
	TU_ADD(s, test_damage_meta_scale_idmaps);
	TU_ADD(s, test_damage_truncated);
	TU_ADD(s, test_damage_flips_inline);
	TU_ADD(s, test_damage_flips_overflow);
	return 0;
}
