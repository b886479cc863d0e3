/* Tests of the data set store (src/data/store.c, writer.c): what a writer puts
 * in comes back out of hog_store_block() and hog_data_load(); several readers
 * share one file; files that are not ours, newer than us or damaged are refused
 * with the documented code and a message that names the path or the block; and
 * a writer leaves either the whole data set or nothing. Damage is made by
 * editing a finished file through LMDB itself, or by flipping a byte of the file
 * found by searching for a known pattern. */
#include "util.h"
#include "data/store.h"
#include <errno.h>
#include <lmdb.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- fixtures */

/* Example i of the sparse fixture: i % 4 nonzeros at ids i%7, i%7+2, i%7+5 with
 * value (i+1)/2 on the first one and 1 on the others; label 1 when i % 3 == 0,
 * else 0 or -1 (labels01 chooses). */
static uint32_t fx_nnz(uint64_t i) { return (uint32_t)(i % 4); }

static void fx_row(uint64_t i, uint32_t ids[3], float vals[3])
{
	static const uint32_t step[3] = { 0, 2, 5 };
	for (int j = 0; j < 3; j++) {
		ids[j] = (uint32_t)(i % 7) + step[j];
		vals[j] = j == 0 ? (float)(i + 1) / 2 : 1.0f;
	}
}

static float fx_label(uint64_t i, int labels01) { return i % 3 == 0 ? 1.0f : labels01 ? 0.0f : -1.0f; }

static uint64_t fx_total_nnz(uint64_t n)
{
	uint64_t t = 0;
	for (uint64_t i = 0; i < n; i++)
		t += fx_nnz(i);
	return t;
}

/* 1 + the largest id of the first n examples: the dimension a writer infers */
static uint64_t fx_dim(uint64_t n)
{
	uint64_t d = 0;
	uint32_t ids[3];
	float vals[3];
	for (uint64_t i = 0; i < n; i++) {
		fx_row(i, ids, vals);
		if (fx_nnz(i) && ids[fx_nnz(i) - 1] + 1u > d)
			d = ids[fx_nnz(i) - 1] + 1u;
	}
	return d;
}

static int fx_add(hog_writer *w, uint64_t from, uint64_t n, int labels01)
{
	uint32_t ids[3];
	float vals[3];
	hog_err err;
	for (uint64_t i = from; i < from + n; i++) {
		fx_row(i, ids, vals);
		int rc = hog_writer_add_sparse(w, fx_label(i, labels01), ids, vals, fx_nnz(i), &err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Writes the sparse fixture; returns its path. */
static const char *write_sparse(const char *name, uint64_t n, uint32_t block, int labels01)
{
	const char *path = tu_path(name);
	hog_writer_opts o = { .kind = HOG_KIND_SPARSE, .block_examples = block, .source = "unit test" };
	hog_writer *w;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, path, &o, &err), 0);
	CU_ASSERT_EQUAL(hog_writer_meta_set(w, "origin", "test_store", &err), 0);
	CU_ASSERT_EQUAL_FATAL(fx_add(w, 0, n, labels01), 0);
	CU_ASSERT_EQUAL(hog_writer_count(w), n);
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	return path;
}

static int has(const hog_err *err, const char *what)
{
	if (strstr(err->msg, what))
		return 1;
	fprintf(stderr, "\n  expected '%s' in '%s'\n", what, err->msg);
	return 0;
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* ---------------------------------------------------------------- LMDB surgery */

static MDB_env *lm_env;
static MDB_txn *lm_txn;
static MDB_dbi lm_meta, lm_blocks;

static void lm_begin(const char *path)
{
	CU_ASSERT_EQUAL_FATAL(mdb_env_create(&lm_env), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_env_set_maxdbs(lm_env, 4), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_env_open(lm_env, path, MDB_NOSUBDIR | MDB_NOLOCK, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_txn_begin(lm_env, NULL, 0, &lm_txn), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_dbi_open(lm_txn, "meta", 0, &lm_meta), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_dbi_open(lm_txn, "blocks", 0, &lm_blocks), 0);
}

static void lm_end(void)
{
	CU_ASSERT_EQUAL(mdb_txn_commit(lm_txn), 0);
	mdb_env_close(lm_env);
}

static void lm_meta_set(const char *path, const char *key, const char *value)
{
	lm_begin(path);
	MDB_val k = { strlen(key), (void *)key }, v = { strlen(value), (void *)value };
	CU_ASSERT_EQUAL(mdb_put(lm_txn, lm_meta, &k, &v, 0), 0);
	lm_end();
}

static MDB_val lm_block_key(uint64_t index, unsigned char kb[8])
{
	for (int i = 7; i >= 0; i--, index >>= 8)
		kb[i] = (unsigned char)index;
	MDB_val k = { 8, kb };
	return k;
}

/* Flips one bit at byte @p at of block @p index. */
static void lm_block_flip(const char *path, uint64_t index, size_t at)
{
	unsigned char kb[8];
	lm_begin(path);
	MDB_val k = lm_block_key(index, kb), v;
	CU_ASSERT_EQUAL_FATAL(mdb_get(lm_txn, lm_blocks, &k, &v), 0);
	CU_ASSERT_FATAL(at < v.mv_size);
	unsigned char *copy = malloc(v.mv_size);
	CU_ASSERT_FATAL(copy != NULL);
	memcpy(copy, v.mv_data, v.mv_size);
	copy[at] ^= 0x04;
	MDB_val nv = { v.mv_size, copy };
	CU_ASSERT_EQUAL(mdb_put(lm_txn, lm_blocks, &k, &nv, 0), 0);
	lm_end();
	free(copy);
}

static void lm_block_del(const char *path, uint64_t index)
{
	unsigned char kb[8];
	lm_begin(path);
	MDB_val k = lm_block_key(index, kb);
	CU_ASSERT_EQUAL(mdb_del(lm_txn, lm_blocks, &k, NULL), 0);
	lm_end();
}

/* ---------------------------------------------------------------- round trips */

static void check_sparse_block(const hog_block *b, uint64_t index, uint64_t first, uint32_t n, int labels01)
{
	CU_ASSERT_EQUAL(b->kind, HOG_KIND_SPARSE);
	CU_ASSERT_EQUAL(b->index, index);
	CU_ASSERT_EQUAL(b->first, first);
	CU_ASSERT_EQUAL_FATAL(b->n, n);
	CU_ASSERT_EQUAL(b->offsets[0], 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b->vals); /* some values are not 1 */
	for (uint32_t r = 0; r < n; r++) {
		uint64_t i = first + r;
		uint32_t ids[3];
		float vals[3];
		fx_row(i, ids, vals);
		CU_ASSERT_EQUAL(b->labels[r], fx_label(i, labels01));
		CU_ASSERT_EQUAL_FATAL(b->offsets[r + 1] - b->offsets[r], fx_nnz(i));
		for (uint32_t j = 0; j < fx_nnz(i); j++) {
			CU_ASSERT_EQUAL(b->ids[b->offsets[r] + j], ids[j]);
			CU_ASSERT_EQUAL(b->vals[b->offsets[r] + j], vals[j]);
		}
	}
}

static void test_store_sparse_roundtrip(void)
{
	const char *path = write_sparse("rt.lmdb", 10, 4, 0);
	hog_store *s;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, path, &err), 0);
	const hog_meta *m = hog_store_meta(s);
	CU_ASSERT_EQUAL(m->version, HOG_FORMAT_PACKED); /* packed blocks (smaller); raw: test_encoding */
	CU_ASSERT_EQUAL(m->kind, HOG_KIND_SPARSE);
	CU_ASSERT_EQUAL(m->task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL(m->examples, 10);
	CU_ASSERT_EQUAL(m->blocks, 3);
	CU_ASSERT_EQUAL(m->features, fx_dim(10));
	CU_ASSERT_EQUAL(m->nnz, fx_total_nnz(10));
	CU_ASSERT_EQUAL(m->positives, 4); /* 0, 3, 6, 9 */
	CU_ASSERT_EQUAL(m->label_min, -1);
	CU_ASSERT_EQUAL(m->label_max, 1);
	CU_ASSERT_EQUAL(m->label_sum, -2);
	CU_ASSERT_STRING_EQUAL(m->source, "unit test");
	char buf[64];
	CU_ASSERT_EQUAL(hog_store_meta_get(s, "origin", buf, sizeof buf), 0);
	CU_ASSERT_STRING_EQUAL(buf, "test_store");
	CU_ASSERT_EQUAL(hog_store_meta_get(s, "format", buf, sizeof buf), 0);
	CU_ASSERT_STRING_EQUAL(buf, "hogwild-data");
	CU_ASSERT_EQUAL(hog_store_meta_get(s, "origin", buf, 5), 0); /* truncated, terminated */
	CU_ASSERT_STRING_EQUAL(buf, "test");
	CU_ASSERT_EQUAL(hog_store_meta_get(s, "no-such-key", buf, sizeof buf), ENOENT);
	uint64_t nmap;
	CU_ASSERT_PTR_NULL(hog_store_idmap(s, "users", &nmap));
	static const uint32_t sizes[3] = { 4, 4, 2 };
	for (uint64_t i = 0; i < 3; i++) {
		hog_block b;
		CU_ASSERT_EQUAL_FATAL(hog_store_block(s, i, &b, &err), 0);
		check_sparse_block(&b, i, 4 * i, sizes[i], 0);
	}
	hog_block b;
	CU_ASSERT_EQUAL(hog_store_block(s, 3, &b, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, "block 3"));
	hog_store_close(s);
	uint64_t checked = 0;
	CU_ASSERT_EQUAL(hog_store_verify(path, &checked, &err), 0);
	CU_ASSERT_EQUAL(checked, 3);
}

static void test_store_ratings_dense_roundtrip(void)
{
	hog_err err;
	hog_writer *w;
	hog_store *s;
	hog_block b;
	/* ratings with an id map */
	const char *rp = tu_path("ratings.lmdb");
	hog_writer_opts ro = { .kind = HOG_KIND_RATINGS, .block_examples = 3 };
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, rp, &ro, &err), 0);
	for (uint32_t i = 0; i < 7; i++)
		CU_ASSERT_EQUAL(hog_writer_add_rating(w, i % 4, i % 5, 1.0f + (float)i / 2, &err), 0);
	static const uint64_t orig[4] = { 1001, 2002, 3003, 4004 };
	CU_ASSERT_EQUAL(hog_writer_idmap_set(w, "users", orig, 4, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, rp, &err), 0);
	const hog_meta *m = hog_store_meta(s);
	CU_ASSERT_EQUAL(m->kind, HOG_KIND_RATINGS);
	CU_ASSERT_EQUAL(m->task, HOG_TASK_RATINGS);
	CU_ASSERT_EQUAL(m->examples, 7);
	CU_ASSERT_EQUAL(m->users, 4);
	CU_ASSERT_EQUAL(m->items, 5);
	CU_ASSERT_EQUAL(m->blocks, 3);
	CU_ASSERT_EQUAL(hog_store_block(s, 2, &b, &err), 0);
	CU_ASSERT_EQUAL(b.n, 1);
	CU_ASSERT_EQUAL(b.first, 6);
	CU_ASSERT_EQUAL(b.users[0], 2);
	CU_ASSERT_EQUAL(b.items[0], 1);
	CU_ASSERT_EQUAL(b.ratings[0], 4.0f);
	uint64_t n;
	const uint64_t *map = hog_store_idmap(s, "users", &n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(map);
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_EQUAL(memcmp(map, orig, sizeof orig), 0);
	hog_store_close(s);

	/* dense rows as bytes with a scale */
	const char *dp = tu_path("dense.lmdb");
	hog_writer_opts dopt = { .kind = HOG_KIND_DENSE, .features = 3, .dense_u8 = 1, .dense_scale = 0.25f };
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, dp, &dopt, &err), 0);
	for (int i = 0; i < 5; i++) {
		uint8_t row[3] = { (uint8_t)i, (uint8_t)(10 * i), 255 };
		CU_ASSERT_EQUAL(hog_writer_add_dense(w, (float)(i % 2), NULL, row, &err), 0);
	}
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, dp, &err), 0);
	m = hog_store_meta(s);
	CU_ASSERT_EQUAL(m->kind, HOG_KIND_DENSE);
	CU_ASSERT_EQUAL(m->features, 3);
	CU_ASSERT_EQUAL(m->dense_u8, 1);
	CU_ASSERT_EQUAL(m->dense_scale, 0.25f);
	CU_ASSERT_EQUAL(m->nnz, 15);
	CU_ASSERT_EQUAL(hog_store_block(s, 0, &b, &err), 0);
	CU_ASSERT_EQUAL(b.cols, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b.xu8);
	CU_ASSERT_EQUAL(b.xu8[3 * 4 + 1], 40);
	CU_ASSERT_EQUAL(b.labels[3], 1.0f);
	hog_store_close(s);
}

static void test_store_data_load(void)
{
	hog_err err;
	hog_data *d;
	/* sparse, labels 0/1 come back as -1/+1, offsets run on across blocks */
	const char *path = write_sparse("load.lmdb", 11, 4, 1);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, path, &err), 0);
	CU_ASSERT_EQUAL(d->n, 11);
	CU_ASSERT_EQUAL(d->dim, fx_dim(11));
	CU_ASSERT_EQUAL(d->nnz, fx_total_nnz(11));
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->vals);
	CU_ASSERT_EQUAL(d->offsets[0], 0);
	for (uint64_t i = 0; i < 11; i++) {
		uint32_t ids[3];
		float vals[3];
		fx_row(i, ids, vals);
		CU_ASSERT_EQUAL(d->labels[i], i % 3 == 0 ? 1.0f : -1.0f);
		CU_ASSERT_EQUAL_FATAL(d->offsets[i + 1] - d->offsets[i], fx_nnz(i));
		for (uint32_t j = 0; j < fx_nnz(i); j++) {
			CU_ASSERT_EQUAL(d->ids[d->offsets[i] + j], ids[j]);
			CU_ASSERT_EQUAL(d->vals[d->offsets[i] + j], vals[j]);
		}
	}
	hog_data_free(d);

	/* all values 1: no value array; labels 0, 1, 2: multiclass */
	path = tu_path("load-mc.lmdb");
	hog_writer_opts o = { .kind = HOG_KIND_SPARSE, .block_examples = 2 };
	hog_writer *w;
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, path, &o, &err), 0);
	for (uint32_t i = 0; i < 5; i++) {
		uint32_t ids[2] = { i, i + 1 };
		CU_ASSERT_EQUAL(hog_writer_add_sparse(w, (float)(i % 3), ids, NULL, 2, &err), 0);
	}
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, path, &err), 0);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_MULTICLASS);
	CU_ASSERT_EQUAL(d->meta.classes, 3);
	CU_ASSERT_PTR_NULL(d->vals);
	CU_ASSERT_EQUAL(d->labels[4], 1.0f);
	CU_ASSERT_EQUAL(d->offsets[5], 10);
	CU_ASSERT_EQUAL(d->ids[9], 5);
	hog_data_free(d);

	/* dense bytes are scaled to floats */
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path("dense.lmdb"), &err), 0);
	CU_ASSERT_EQUAL(d->n, 5);
	CU_ASSERT_EQUAL(d->dim, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->x);
	CU_ASSERT_EQUAL(d->x[3 * 4 + 1], 10.0f);
	CU_ASSERT_EQUAL(d->x[3 * 2 + 2], 63.75f);
	hog_data_free(d);

	/* ratings */
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path("ratings.lmdb"), &err), 0);
	CU_ASSERT_EQUAL(d->n, 7);
	CU_ASSERT_EQUAL(d->users[5], 1);
	CU_ASSERT_EQUAL(d->items[5], 0);
	CU_ASSERT_EQUAL(d->ratings[5], 3.5f);
	hog_data_free(d);
	hog_data_free(NULL);
}

static void test_store_many_readers(void)
{
	const char *path = write_sparse("readers.lmdb", 50, 8, 0);
	hog_store *s[4];
	hog_err err;
	for (int r = 0; r < 4; r++)
		CU_ASSERT_EQUAL_FATAL(hog_store_open(&s[r], path, &err), 0);
	hog_data *d; /* a loader beside them */
	CU_ASSERT_EQUAL(hog_data_load(&d, path, &err), 0);
	hog_data_free(d);
	for (uint64_t i = 0; i < 7; i++)
		for (int r = 0; r < 4; r++) {
			hog_block b;
			CU_ASSERT_EQUAL_FATAL(hog_store_block(s[(r + (int)i) % 4], i, &b, &err), 0);
			check_sparse_block(&b, i, 8 * i, i < 6 ? 8 : 2, 0);
		}
	hog_store_close(s[2]);
	hog_store_close(s[0]);
	hog_block b;
	CU_ASSERT_EQUAL(hog_store_block(s[3], 6, &b, &err), 0);
	hog_store_close(s[3]);
	hog_store_close(s[1]);
	hog_store_close(NULL);
}

static void test_store_meta_reserved(void)
{
	static const char *const keys[] = { "format", "version", "kind", "task", "examples", "features",
	                                    "nnz", "blocks", "users", "items", "classes", "dense_u8",
	                                    "dense_scale", "positives", "label_min", "label_max",
	                                    "label_sum", "source", "idmap.users", "idmap.x" };
	hog_writer_opts o = { .kind = HOG_KIND_SPARSE };
	hog_writer *w;
	hog_err err;
	const char *path = tu_path("reserved.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, path, &o, &err), 0);
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		CU_ASSERT_EQUAL(hog_writer_meta_set(w, keys[i], "1", &err), HOG_ECONFIG);
		CU_ASSERT(has(&err, keys[i]));
	}
	CU_ASSERT_EQUAL(hog_writer_meta_set(w, "versionx", "ok", &err), 0);
	hog_writer_abort(w);
	CU_ASSERT(!exists(path));
}

/* ---------------------------------------------------------------- refusals */

static void test_store_not_ours(void)
{
	hog_store *s = (hog_store *)1;
	hog_err err;
	unsigned char junk[65536];
	srand(7);
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (unsigned char)rand();
	const char *p = tu_write("random.lmdb", junk, sizeof junk);
	CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), HOG_EFORMAT);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT(has(&err, p));
	p = tu_write("short.lmdb", junk, 100);
	CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), HOG_EFORMAT);
	p = tu_write("text.lmdb", "1 1:1\n-1 2:1\n", (size_t)-1);
	CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), HOG_EFORMAT);
	p = tu_write("empty.lmdb", "", 0);
	CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), HOG_EFORMAT);
	CU_ASSERT(has(&err, "empty"));
	CU_ASSERT_EQUAL(hog_store_open(&s, tu_dir(), &err), EISDIR);
	CU_ASSERT(has(&err, tu_dir()));
	p = tu_path("no-such.lmdb");
	CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), ENOENT);
	CU_ASSERT(has(&err, p));
	hog_data *d = (hog_data *)1;
	CU_ASSERT_EQUAL(hog_data_load(&d, p, &err), ENOENT);
	CU_ASSERT_PTR_NULL(d);
	CU_ASSERT_EQUAL(hog_store_verify(tu_path("random.lmdb"), NULL, &err), HOG_EFORMAT);
	CU_ASSERT_EQUAL(hog_store_open(&s, tu_path("random.lmdb"), NULL), HOG_EFORMAT); /* err may be NULL */
}

static void test_store_foreign_lmdb(void)
{
	/* an LMDB file with a named database of someone else's */
	const char *p = tu_path("other.lmdb");
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	CU_ASSERT_EQUAL_FATAL(mdb_env_create(&env), 0);
	mdb_env_set_maxdbs(env, 2);
	CU_ASSERT_EQUAL_FATAL(mdb_env_open(env, p, MDB_NOSUBDIR | MDB_NOLOCK, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_txn_begin(env, NULL, 0, &txn), 0);
	CU_ASSERT_EQUAL_FATAL(mdb_dbi_open(txn, "other", MDB_CREATE, &dbi), 0);
	MDB_val k = { 3, "key" }, v = { 5, "value" };
	CU_ASSERT_EQUAL(mdb_put(txn, dbi, &k, &v, 0), 0);
	CU_ASSERT_EQUAL(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
	hog_store *s;
	hog_err err;
	CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), HOG_EFORMAT);
	CU_ASSERT(has(&err, "not a hogwild data set"));

	/* our two databases, but a format name of someone else's */
	const char *q = write_sparse("alien.lmdb", 5, 4, 0);
	lm_meta_set(q, "format", "something-else");
	CU_ASSERT_EQUAL(hog_store_open(&s, q, &err), HOG_EFORMAT);
}

static void test_store_newer_version(void)
{
	const char *p = write_sparse("v99.lmdb", 5, 4, 0);
	lm_meta_set(p, "version", "99");
	hog_store *s;
	hog_err err;
	CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), HOG_EVERSION);
	CU_ASSERT(has(&err, "99"));
	CU_ASSERT(has(&err, p));
	hog_data *d;
	CU_ASSERT_EQUAL(hog_data_load(&d, p, &err), HOG_EVERSION);
	CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), HOG_EVERSION);
}

static void test_store_meta_damage(void)
{
	hog_store *s;
	hog_err err;
	static const struct { const char *key, *value, *what; } cases[] = {
		{ "kind", "spiky", "kind" },
		{ "task", "guessing", "task" },
		{ "examples", "ten", "examples" },
		{ "examples", "-10", "examples" },
		{ "blocks", "4", "blocks" },
		{ "features", "99999999999", "2^32" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char name[32];
		snprintf(name, sizeof name, "meta%zu.lmdb", i);
		const char *p = write_sparse(name, 10, 4, 0);
		lm_meta_set(p, cases[i].key, cases[i].value);
		CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), HOG_ECORRUPT);
		CU_ASSERT(has(&err, cases[i].what));
	}
	/* a block gone: the count in meta no longer holds */
	const char *p = write_sparse("gone.lmdb", 10, 4, 0);
	lm_block_del(p, 2);
	CU_ASSERT_EQUAL(hog_store_open(&s, p, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, "blocks"));
	/* meta claims more examples than the blocks hold */
	p = write_sparse("more.lmdb", 10, 4, 0);
	lm_meta_set(p, "examples", "11");
	CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, "11"));
	hog_data *d;
	CU_ASSERT_EQUAL(hog_data_load(&d, p, &err), HOG_ECORRUPT);
	/* ... or fewer: caught at open, by the sum of the block headers */
	p = write_sparse("fewer.lmdb", 10, 4, 0);
	lm_meta_set(p, "examples", "9");
	CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, "'examples' = 9, but the blocks hold 10"));
}

/* The loader checks blocks on several threads: with several damaged blocks it
 * must name the first one, whichever thread finds which. */
static void test_store_load_names_first_damage(void)
{
	for (int rep = 0; rep < 4; rep++) {
		const char *p = write_sparse("crc_many.lmdb", 400, 8, 0); /* 50 blocks */
		lm_block_flip(p, 17, 64 + 5);
		lm_block_flip(p, 9, 64 + 5);
		lm_block_flip(p, 42, 64 + 5);
		hog_data *d = NULL;
		hog_err err;
		CU_ASSERT_EQUAL(hog_data_load(&d, p, &err), HOG_ECORRUPT);
		CU_ASSERT_PTR_NULL(d);
		CU_ASSERT(has(&err, "block 9:"));
		CU_ASSERT(has(&err, p));
	}
}

static void test_store_block_checksum(void)
{
	const char *p = write_sparse("crc.lmdb", 10, 4, 0);
	lm_block_flip(p, 1, 64 + 5); /* a label byte of block 1 */
	hog_store *s;
	hog_err err;
	hog_block b;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, p, &err), 0); /* open checks meta only */
	CU_ASSERT_EQUAL(hog_store_block(s, 0, &b, &err), 0);
	CU_ASSERT_EQUAL(hog_store_block(s, 1, &b, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, "block 1"));
	CU_ASSERT(has(&err, "checksum"));
	CU_ASSERT(has(&err, p));
	CU_ASSERT_EQUAL(hog_store_block(s, 2, &b, &err), 0);
	hog_store_close(s);
	uint64_t checked = 99;
	CU_ASSERT_EQUAL(hog_store_verify(p, &checked, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, "block 1"));
	CU_ASSERT_EQUAL(checked, 1);
	hog_data *d = (hog_data *)1;
	CU_ASSERT_EQUAL(hog_data_load(&d, p, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, "block 1"));
	CU_ASSERT(has(&err, "checksum"));
	CU_ASSERT_PTR_NULL(d);
}

/* A byte of the file itself, in a block large enough for LMDB's overflow pages
 * (the zero-copy path), found by its values. */
static void test_store_file_byte(void)
{
	const char *p = tu_path("raw.lmdb");
	hog_writer_opts o = { .kind = HOG_KIND_SPARSE, .block_examples = 4096 };
	hog_writer *w;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, p, &o, &err), 0);
	uint32_t ids[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	float vals[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	for (int i = 0; i < 3000; i++) {
		float marked[8] = { 1234.5f, -7654.25f, 0.125f, 99.5f, 5, 6, 7, 8 };
		CU_ASSERT_EQUAL(hog_writer_add_sparse(w, 1, ids, i == 2500 ? marked : vals, 8, &err), 0);
	}
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	CU_ASSERT_EQUAL_FATAL(hog_store_verify(p, NULL, &err), 0);
	FILE *f = fopen(p, "r+b");
	CU_ASSERT_FATAL(f != NULL);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	unsigned char *buf = malloc((size_t)size);
	CU_ASSERT_FATAL(buf != NULL);
	rewind(f);
	CU_ASSERT_FATAL(fread(buf, 1, (size_t)size, f) == (size_t)size);
	static const float pattern[4] = { 1234.5f, -7654.25f, 0.125f, 99.5f };
	unsigned char *at = memmem(buf, (size_t)size, pattern, sizeof pattern);
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	CU_ASSERT_PTR_NULL(memmem(at + 1, (size_t)(buf + size - at - 1), pattern, sizeof pattern));
	fseek(f, (long)(at - buf) + 6, SEEK_SET); /* inside -7654.25 */
	fputc(at[6] ^ 0x01, f);
	fclose(f);
	free(buf);
	CU_ASSERT_EQUAL(hog_store_verify(p, NULL, &err), HOG_ECORRUPT);
	CU_ASSERT(has(&err, "block 0"));
	CU_ASSERT(has(&err, "checksum"));
}

/* ---------------------------------------------------------------- writing */

static void test_store_writer_abort(void)
{
	const char *p = tu_path("aborted.lmdb");
	hog_writer_opts o = { .kind = HOG_KIND_SPARSE, .block_examples = 4 };
	hog_writer *w;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, p, &o, &err), 0);
	CU_ASSERT_EQUAL(fx_add(w, 0, 30, 0), 0);
	char *tmp = hog_tmp_path(p);
	CU_ASSERT(exists(tmp));
	CU_ASSERT(!exists(p));
	hog_writer_abort(w);
	CU_ASSERT(!exists(tmp));
	CU_ASSERT(!exists(p));
	hog_writer_abort(NULL);
	/* an empty data set is refused at commit, and leaves nothing */
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, p, &o, &err), 0);
	CU_ASSERT_EQUAL(hog_writer_commit(w, &err), HOG_EDATA);
	CU_ASSERT(!exists(tmp));
	CU_ASSERT(!exists(p));
	free(tmp);
}

static void test_store_commit_atomic(void)
{
	const char *p = write_sparse("atomic.lmdb", 10, 4, 0);
	char *tmp = hog_tmp_path(p);
	hog_writer_opts o = { .kind = HOG_KIND_SPARSE, .block_examples = 2 };
	hog_writer *w;
	hog_err err;
	hog_meta m;
	hog_store *s;
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, p, &o, &err), 0);
	CU_ASSERT_EQUAL(fx_add(w, 0, 5, 0), 0);
	CU_ASSERT(exists(tmp));
	/* while the new one is written, the old one is whole and readable */
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, p, &err), 0);
	CU_ASSERT_EQUAL(hog_store_meta(s)->examples, 10);
	hog_store_close(s);
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	CU_ASSERT(!exists(tmp));
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, p, &err), 0);
	m = *hog_store_meta(s);
	hog_store_close(s);
	CU_ASSERT_EQUAL(m.examples, 5);
	CU_ASSERT_EQUAL(m.blocks, 3);
	/* no lock file beside it (readers and writers use MDB_NOLOCK) */
	char lock[600];
	snprintf(lock, sizeof lock, "%s-lock", p);
	CU_ASSERT(!exists(lock));
	free(tmp);
}

/* hog_store_release() drops a block's pages from the resident set, never its
 * contents: every block reads the same after it, against copies taken before. */
static void test_store_release(void)
{
	hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .seed = 4, .examples = 9000, .features = 2000,
	                   .nnz_per_example = 30, .block_examples = 1000 };
	hog_err err;
	const char *path = tu_path("release.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_gen(path, &g, &err), 0);
	hog_store *st;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&st, path, &err), 0);
	uint64_t nb = hog_store_meta(st)->blocks;
	CU_ASSERT_EQUAL(nb, 9);
	hog_block *b = calloc(nb, sizeof *b);
	uint32_t **ids = calloc(nb, sizeof *ids);
	float **vals = calloc(nb, sizeof *vals);
	for (uint64_t k = 0; k < nb; k++) {
		CU_ASSERT_EQUAL_FATAL(hog_store_block(st, k, &b[k], &err), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b[k].vals);
		ids[k] = malloc(b[k].nnz * 4);
		vals[k] = malloc(b[k].nnz * 4);
		memcpy(ids[k], b[k].ids, b[k].nnz * 4);
		memcpy(vals[k], b[k].vals, b[k].nnz * 4);
	}
	for (int pass = 0; pass < 2; pass++) /* (twice: released pages fault back in) */
		for (uint64_t k = 0; k < nb; k++) {
			hog_store_release(st, &b[k]);
			CU_ASSERT(!memcmp(ids[k], b[k].ids, b[k].nnz * 4));
			CU_ASSERT(!memcmp(vals[k], b[k].vals, b[k].nnz * 4));
			CU_ASSERT_EQUAL(b[k].offsets[b[k].n], b[k].nnz);
		}
	for (uint64_t k = 0; k < nb; k++) {
		free(ids[k]);
		free(vals[k]);
	}
	free(ids);
	free(vals);
	free(b);
	hog_store_close(st);
}

static void test_store_writer_errors(void)
{
	const char *p = tu_path("errors.lmdb");
	hog_writer_opts o = { .kind = HOG_KIND_SPARSE, .features = 10 };
	hog_writer *w;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, p, &o, &err), 0);
	uint32_t down[2] = { 3, 2 }, dup[2] = { 3, 3 }, big[2] = { 3, 10 }, ok[2] = { 3, 9 };
	float nan_val[2] = { 1, NAN };
	CU_ASSERT_EQUAL(hog_writer_add_sparse(w, 1, down, NULL, 2, &err), HOG_EDATA);
	CU_ASSERT_EQUAL(hog_writer_add_sparse(w, 1, dup, NULL, 2, &err), HOG_EDATA);
	CU_ASSERT_EQUAL(hog_writer_add_sparse(w, 1, big, NULL, 2, &err), HOG_EDATA);
	CU_ASSERT(has(&err, "10"));
	CU_ASSERT_EQUAL(hog_writer_add_sparse(w, 1, ok, nan_val, 2, &err), HOG_EDATA);
	CU_ASSERT_EQUAL(hog_writer_add_sparse(w, INFINITY, ok, NULL, 2, &err), HOG_EDATA);
	CU_ASSERT_EQUAL(hog_writer_add_rating(w, 1, 2, 3, &err), HOG_ECONFIG);
	CU_ASSERT_EQUAL(hog_writer_add_dense(w, 1, nan_val, NULL, &err), HOG_ECONFIG);
	CU_ASSERT_EQUAL(hog_writer_count(w), 0);
	CU_ASSERT_EQUAL(hog_writer_add_sparse(w, 0.5f, ok, NULL, 2, &err), 0);
	CU_ASSERT_EQUAL(hog_writer_add_sparse(w, 2.5f, ok, NULL, 0, &err), 0); /* an empty row */
	CU_ASSERT_EQUAL(hog_writer_count(w), 2);
	CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
	hog_meta m;
	hog_store *s;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, p, &err), 0);
	m = *hog_store_meta(s);
	hog_store_close(s);
	CU_ASSERT_EQUAL(m.task, HOG_TASK_REGRESSION);
	CU_ASSERT_EQUAL(m.features, 10); /* as given, not 1 + largest id */
	CU_ASSERT_EQUAL(m.nnz, 2);

	/* the largest id a u32 holds: refused, or else the committed set must open
	 * (its dimension, 1 + the id, must fit what readers accept) */
	hog_writer_opts auto_dim = { .kind = HOG_KIND_SPARSE };
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, tu_path("maxid.lmdb"), &auto_dim, &err), 0);
	uint32_t top[1] = { UINT32_MAX };
	int rc = hog_writer_add_sparse(w, 1, top, NULL, 1, &err);
	if (rc) {
		CU_ASSERT_EQUAL(rc, HOG_EDATA);
		hog_writer_abort(w);
	} else {
		CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
		CU_ASSERT_EQUAL(hog_store_open(&s, tu_path("maxid.lmdb"), &err), 0);
		hog_store_close(s);
	}

	hog_writer_opts bad = { .kind = HOG_KIND_DENSE }; /* no columns */
	CU_ASSERT_EQUAL(hog_writer_open(&w, tu_path("bad.lmdb"), &bad, &err), HOG_ECONFIG);
	bad.kind = (enum hog_kind)0;
	CU_ASSERT_EQUAL(hog_writer_open(&w, tu_path("bad.lmdb"), &bad, &err), HOG_ECONFIG);
	CU_ASSERT(!exists(tu_path("bad.lmdb")));
	hog_writer_opts dn = { .kind = HOG_KIND_DENSE, .features = 2, .task = HOG_TASK_REGRESSION };
	CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, tu_path("dn.lmdb"), &dn, &err), 0);
	CU_ASSERT_EQUAL(hog_writer_add_dense(w, 1, nan_val, NULL, &err), HOG_EDATA);
	CU_ASSERT_EQUAL(hog_writer_add_dense(w, 1, NULL, (const uint8_t *)"ab", &err), HOG_ECONFIG);
	float row[2] = { 1, 2 };
	CU_ASSERT_EQUAL(hog_writer_add_dense(w, 1, row, NULL, &err), 0);
	CU_ASSERT_EQUAL(hog_writer_commit(w, &err), 0);
	CU_ASSERT_EQUAL(hog_store_open(&s, tu_path("dn.lmdb"), &err), 0);
	CU_ASSERT_EQUAL(hog_store_meta(s)->task, HOG_TASK_REGRESSION); /* as asked, though labels are 1 */
	hog_store_close(s);
}

/* The task read from integer labels: classes while they are few or well
 * filled (100 classes on 100 examples, 200 on 4000), measured values when a
 * wide range of integers has few examples each (200 values on 300 examples, a
 * clinical score); {0,1} is binary, a fraction regression. Expectations are the
 * rule's cases written out here. */
static void test_writer_task_from_labels(void)
{
	static const struct {
		uint32_t n, range;  /* examples; label i is i % range */
		float add;          /* added to every label */
		enum hog_task want;
	} cases[] = {
		{ 10, 2, 0, HOG_TASK_BINARY },        { 30, 10, 0, HOG_TASK_MULTICLASS },
		{ 100, 100, 0, HOG_TASK_MULTICLASS }, { 4000, 200, 0, HOG_TASK_MULTICLASS },
		{ 300, 200, 0, HOG_TASK_REGRESSION }, { 3999, 200, 0, HOG_TASK_REGRESSION },
		{ 30, 10, 0.5f, HOG_TASK_REGRESSION },{ 30000, 1001, 0, HOG_TASK_REGRESSION },
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		const char *path = tu_path("task.lmdb");
		unlink(path);
		hog_writer_opts o = { .kind = HOG_KIND_SPARSE };
		hog_writer *w;
		hog_err err;
		CU_ASSERT_EQUAL_FATAL(hog_writer_open(&w, path, &o, &err), 0);
		for (uint32_t i = 0; i < cases[k].n; i++) {
			uint32_t id = i % 7;
			CU_ASSERT_EQUAL_FATAL(hog_writer_add_sparse(w, (float)(i % cases[k].range) + cases[k].add, &id,
			                                            NULL, 1, &err), 0);
		}
		CU_ASSERT_EQUAL_FATAL(hog_writer_commit(w, &err), 0);
		hog_data *d;
		CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, path, &err), 0);
		if (d->meta.task != cases[k].want)
			fprintf(stderr, "case %zu: task %d, wanted %d\n", k, d->meta.task, cases[k].want);
		CU_ASSERT_EQUAL(d->meta.task, cases[k].want);
		if (cases[k].want == HOG_TASK_MULTICLASS)
			CU_ASSERT_EQUAL(d->meta.classes, cases[k].range);
		hog_data_free(d);
	}
}

int test_store_register(void)
{
	CU_pSuite s = CU_add_suite("store", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_store_sparse_roundtrip);
	TU_ADD(s, test_store_ratings_dense_roundtrip);
	TU_ADD(s, test_store_data_load); /* reads the sets of the test above */
	TU_ADD(s, test_store_load_names_first_damage);
	TU_ADD(s, test_store_many_readers);
	TU_ADD(s, test_store_meta_reserved);
	TU_ADD(s, test_store_not_ours);
	TU_ADD(s, test_store_foreign_lmdb);
	TU_ADD(s, test_store_newer_version);
	TU_ADD(s, test_store_meta_damage);
	TU_ADD(s, test_store_block_checksum);
	TU_ADD(s, test_store_file_byte);
	TU_ADD(s, test_store_writer_abort);
	TU_ADD(s, test_store_commit_atomic);
	TU_ADD(s, test_store_writer_errors);
	TU_ADD(s, test_store_release);
	TU_ADD(s, test_writer_task_from_labels);
	return 0;
}
