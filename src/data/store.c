/* The data set store on LMDB (docs/architecture.md §3, man/hogwild-data.5): one file per data
 * set (MDB_NOSUBDIR), named databases "meta" (text key/values and binary id maps)
 * and "blocks" (big-endian u64 block number -> block, see block.c).
 *
 * Readers open read-only without a lock file (MDB_RDONLY|MDB_NOLOCK) so any number
 * of trainers can share one file, hold one read transaction for the store's life
 * and hand out views that point into the memory map (LMDB's overflow pages keep
 * large values contiguous; we check alignment and copy when it does not hold).
 * Writers fill a temporary file beside the target with MDB_APPEND puts and rename
 * it into place after a full sync, so a data set is either whole or absent. */
#include "data/store_impl.h"
#include "data/block.h"
#include "data/lmdb_check.h"
#include "sys/file.h"
#include "sys/names.h"
#include "sys/err.h"
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define META_FORMAT "hogwild-data"

/* ---------------------------------------------------------------- helpers */

static enum hog_kind kind_parse(const char *s)
{
	for (int k = HOG_KIND_SPARSE; k <= HOG_KIND_DENSE; k++)
		if (!strcmp(s, hog_kind_name((enum hog_kind)k)))
			return (enum hog_kind)k;
	return 0;
}

/* ---------------------------------------------------------------- reader */

static int meta_get(hog_store *s, const char *key, MDB_val *v)
{
	MDB_val k = { strlen(key), (void *)key };
	return mdb_get(s->txn, s->meta_dbi, &k, v);
}

int hog_store_meta_get(hog_store *s, const char *key, char *buf, size_t size)
{
	MDB_val v;
	if (size == 0)
		return ERANGE;
	if (meta_get(s, key, &v) != 0)
		return ENOENT;
	size_t n = v.mv_size < size - 1 ? v.mv_size : size - 1;
	memcpy(buf, v.mv_data, n);
	buf[n] = 0;
	return 0;
}

int hog_store_meta_whole(hog_store *s, const char *key, char *buf, size_t size)
{
	MDB_val v;
	if (size == 0 || meta_get(s, key, &v) != 0)
		return ENOENT;
	if (v.mv_size >= size || memchr(v.mv_data, 0, v.mv_size))
		return EINVAL;
	memcpy(buf, v.mv_data, v.mv_size);
	buf[v.mv_size] = 0;
	return 0;
}

int hog_store_meta_dup(hog_store *s, const char *key, size_t max, char **out)
{
	MDB_val v;
	*out = NULL;
	if (meta_get(s, key, &v) != 0)
		return ENOENT;
	if (v.mv_size > max || memchr(v.mv_data, 0, v.mv_size))
		return EINVAL;
	if (!(*out = malloc(v.mv_size + 1)))
		return ENOMEM;
	memcpy(*out, v.mv_data, v.mv_size);
	(*out)[v.mv_size] = 0;
	return 0;
}

/* Reads a required unsigned meta entry. */
static int meta_u64(hog_store *s, const char *key, uint64_t *out, int required, hog_err *err)
{
	char buf[64], *end;
	*out = 0;
	if (hog_store_meta_get(s, key, buf, sizeof buf) != 0)
		return required ? hog_err_set(err, HOG_ECORRUPT, "%s: meta entry '%s' is missing", s->path, key) : 0;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end || buf[0] == '-')
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry '%s' = '%s' is not a count", s->path, key, buf);
	*out = v;
	return 0;
}

static int meta_f64(hog_store *s, const char *key, double *out)
{
	char buf[64];
	*out = 0;
	if (hog_store_meta_get(s, key, buf, sizeof buf) == 0)
		*out = strtod(buf, NULL);
	return 0;
}

#define BAD_COUNT(...) hog_err_set(err, HOG_ECORRUPT, __VA_ARGS__)

/* Every count in the meta data sizes an allocation somewhere (the loader's
 * arrays, the trainer's model), so none is trusted alone: they are checked
 * against each other and against what the blocks hold. One pass over the block
 * headers (64 bytes each, no checksum yet) sums their example and nonzero counts;
 * each header's counts must give exactly the stored value's length, so the sums
 * are bounded by the file's size. All arithmetic is overflow-checked. */
static int store_check_counts(hog_store *s, hog_err *err)
{
	hog_meta *m = &s->meta;
	const char *p = s->path;
	typedef unsigned long long ull;
	if (m->blocks == 0 || m->examples == 0)
		return BAD_COUNT("%s: meta entries 'examples' = %llu and 'blocks' = %llu: an empty data set", p,
		                 (ull)m->examples, (ull)m->blocks);
	if (m->blocks > m->examples)
		return BAD_COUNT("%s: meta entry 'blocks' = %llu is more than the %llu examples", p, (ull)m->blocks,
		                 (ull)m->examples);
	if (m->positives > m->examples)
		return BAD_COUNT("%s: meta entry 'positives' = %llu is more than the %llu examples", p,
		                 (ull)m->positives, (ull)m->examples);
	if ((m->kind == HOG_KIND_RATINGS) != (m->task == HOG_TASK_RATINGS))
		return BAD_COUNT("%s: meta entries 'kind' = %s and 'task' = %s do not go together", p,
		                 hog_kind_name(m->kind), hog_task_name(m->task));
	if (m->kind != HOG_KIND_RATINGS && (m->features == 0))
		return BAD_COUNT("%s: meta entry 'features' is 0", p);
	if (m->task == HOG_TASK_MULTICLASS ? m->classes < 1 || m->classes > 65536 : m->classes != 0)
		return BAD_COUNT("%s: meta entry 'classes' = %u does not fit a %s task", p, m->classes,
		                 hog_task_name(m->task));
	if (m->dense_u8 > 1 || (m->dense_u8 && m->kind != HOG_KIND_DENSE))
		return BAD_COUNT("%s: meta entry 'dense_u8' = %u is not 0 or 1 (1 only for dense sets)", p,
		                 m->dense_u8);
	if (m->kind == HOG_KIND_DENSE) {
		uint64_t cells;
		if (__builtin_mul_overflow(m->examples, m->features, &cells) || cells != m->nnz)
			return BAD_COUNT("%s: meta entry 'nnz' = %llu is not 'examples' x 'features' = %llu x %llu", p,
			                 (ull)m->nnz, (ull)m->examples, (ull)m->features);
	}
	MDB_cursor *cur;
	int rc = mdb_cursor_open(s->txn, s->blocks_dbi, &cur);
	if (rc)
		return hog_err_lmdb(err, rc, "reading blocks", p);
	MDB_val k, v;
	uint64_t i = 0, ex = 0, nz = 0;
	int c;
	for (c = mdb_cursor_get(cur, &k, &v, MDB_FIRST); c == 0; c = mdb_cursor_get(cur, &k, &v, MDB_NEXT), i++) {
		uint32_t n, flags;
		uint64_t bm;
		if (hog_block_peek(v.mv_data, v.mv_size, &n, NULL, &bm, &flags) != 0) {
			rc = BAD_COUNT("%s: block %llu: bad header", p, (ull)i);
			break;
		}
		/* each example takes at least 2 bytes (a packed rating: two varints and
		 * a byte; else 4 and more), each nonzero or cell at least 1: counts
		 * beyond the value's length cannot be right, and below that bound
		 * hog_block_bytes() cannot overflow */
		uint64_t cells = 0;
		if (n == 0 || (uint64_t)n > v.mv_size / 2 || bm > v.mv_size ||
		    (m->kind == HOG_KIND_DENSE && (__builtin_mul_overflow((uint64_t)n, bm, &cells) || cells > v.mv_size)) ||
		    hog_block_stored_bytes(v.mv_data, m->kind, n, bm, flags) != v.mv_size) {
			rc = BAD_COUNT("%s: block %llu: its header's counts (n=%u, m=%llu) do not fit its %zu bytes", p,
			               (ull)i, n, (ull)bm, v.mv_size);
			break;
		}
		if (__builtin_add_overflow(ex, n, &ex) ||
		    (m->kind == HOG_KIND_SPARSE && __builtin_add_overflow(nz, bm, &nz))) {
			rc = BAD_COUNT("%s: block %llu: counts beyond 2^64", p, (ull)i);
			break;
		}
	}
	mdb_cursor_close(cur);
	if (rc)
		return rc;
	if (c != MDB_NOTFOUND)
		return hog_err_lmdb(err, c, "reading blocks", p);
	if (i != m->blocks)
		return BAD_COUNT("%s: meta entry 'blocks' = %llu, but the file holds %llu blocks", p, (ull)m->blocks,
		                 (ull)i);
	if (ex != m->examples)
		return BAD_COUNT("%s: meta entry 'examples' = %llu, but the blocks hold %llu examples", p,
		                 (ull)m->examples, (ull)ex);
	if (m->kind == HOG_KIND_SPARSE && nz != m->nnz)
		return BAD_COUNT("%s: meta entry 'nnz' = %llu, but the blocks hold %llu nonzeros", p, (ull)m->nnz,
		                 (ull)nz);
	return 0;
}

static int store_read_meta(hog_store *s, hog_err *err)
{
	char buf[64];
	hog_meta *m = &s->meta;
	if (hog_store_meta_get(s, "format", buf, sizeof buf) != 0 || strcmp(buf, META_FORMAT) != 0)
		return hog_err_set(err, HOG_EFORMAT, "%s: an LMDB file, but not a hogwild data set", s->path);
	uint64_t v;
	int rc;
	if ((rc = meta_u64(s, "version", &v, 1, err)))
		return rc;
	if (v > HOG_FORMAT_VERSION)
		return hog_err_set(err, HOG_EVERSION,
		                   "%s: data set format version %llu is newer than this hogwild reads (%d); upgrade hogwild",
		                   s->path, (unsigned long long)v, HOG_FORMAT_VERSION);
	if (v == 0)
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'version' = 0: format versions start at 1", s->path);
	m->version = (uint32_t)v;
	if (hog_store_meta_get(s, "kind", buf, sizeof buf) != 0 || !(m->kind = kind_parse(buf)))
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'kind' is missing or unknown", s->path);
	if (hog_store_meta_get(s, "task", buf, sizeof buf) != 0 || !(m->task = hog_task_parse(buf)))
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'task' is missing or unknown", s->path);
	uint64_t classes = 0, u8 = 0;
	if ((rc = meta_u64(s, "examples", &m->examples, 1, err)) ||
	    (rc = meta_u64(s, "features", &m->features, 1, err)) ||
	    (rc = meta_u64(s, "nnz", &m->nnz, 1, err)) ||
	    (rc = meta_u64(s, "blocks", &m->blocks, 1, err)) ||
	    (rc = meta_u64(s, "users", &m->users, 0, err)) ||
	    (rc = meta_u64(s, "items", &m->items, 0, err)) ||
	    (rc = meta_u64(s, "classes", &classes, 0, err)) ||
	    (rc = meta_u64(s, "dense_u8", &u8, 0, err)) ||
	    (rc = meta_u64(s, "positives", &m->positives, 0, err)))
		return rc;
	m->classes = (uint32_t)classes;
	m->dense_u8 = (uint32_t)u8;
	double scale = 0;
	meta_f64(s, "dense_scale", &scale);
	m->dense_scale = (float)scale;
	if (m->kind == HOG_KIND_DENSE && m->dense_u8 && !(isfinite(m->dense_scale) && m->dense_scale > 0))
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'dense_scale' = %g: a byte-valued dense set needs a "
		                   "positive, finite scale", s->path, scale);
	meta_f64(s, "label_min", &m->label_min);
	meta_f64(s, "label_max", &m->label_max);
	meta_f64(s, "label_sum", &m->label_sum);
	hog_store_meta_get(s, "source", m->source, sizeof m->source);
	/* "labels": absent in a labelled set (and in every set made before it) */
	if (hog_store_meta_get(s, "labels", buf, sizeof buf) == 0) {
		if (strcmp(buf, "none"))
			return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'labels' = '%.20s': the one value it takes is "
			                   "'none' (a set without labels)", s->path, buf);
		m->unlabelled = 1;
	}
	/* "weights": absent in an unweighted set (and in every set made before them) */
	m->weight_sum = (double)m->examples;
	if (hog_store_meta_get(s, "weights", buf, sizeof buf) == 0) {
		if (strcmp(buf, "1") || m->version < HOG_FORMAT_WEIGHTS)
			return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'weights' = '%.20s' in a version %u set: "
			                   "weighted sets say '1' and are version %d", s->path, buf, m->version,
			                   HOG_FORMAT_WEIGHTS);
		m->weighted = 1;
		meta_f64(s, "weight_sum", &m->weight_sum);
		if (!(isfinite(m->weight_sum) && m->weight_sum > 0))
			return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'weight_sum' is missing or not a positive number",
			                   s->path);
	}
	if (m->features > UINT32_MAX || m->users > UINT32_MAX || m->items > UINT32_MAX)
		return hog_err_set(err, HOG_ECORRUPT, "%s: dimensions beyond 2^32 are not supported", s->path);
	if (m->kind == HOG_KIND_RATINGS && (m->users == 0 || m->items == 0))
		return hog_err_set(err, HOG_ECORRUPT, "%s: a ratings data set without users or items", s->path);
	MDB_stat st;
	if ((rc = mdb_stat(s->txn, s->blocks_dbi, &st)) != 0)
		return hog_err_lmdb(err, rc, "reading blocks", s->path);
	if (st.ms_entries != m->blocks)
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'blocks' = %llu, but the file holds %zu blocks",
		                   s->path, (unsigned long long)m->blocks, (size_t)st.ms_entries);
	return store_check_counts(s, err);
}

int hog_store_open(hog_store **out, const char *path, hog_err *err)
{
	*out = NULL;
	struct stat st;
	if (stat(path, &st) != 0)
		return hog_err_set(err, errno, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return hog_err_set(err, EISDIR, "%s: is a directory, not a data set file", path);
	if (access(path, R_OK) != 0)
		return hog_err_set(err, errno, "%s: %s", path, strerror(errno));
	if (st.st_size == 0)
		return hog_err_set(err, HOG_EFORMAT, "%s: empty file, not a hogwild data set", path);
	int rc = hog_lmdb_check(path, err); /* before LMDB maps and trusts the file */
	if (rc)
		return rc;
	hog_store *s = calloc(1, sizeof *s);
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return hog_err_set(err, ENOMEM, "%s: out of memory", path);
	}
	/* the map spans the file, whatever the meta page's map size says (a damaged
	 * one would ask for exabytes): a reader never needs more */
	if ((rc = mdb_env_create(&s->env)) != 0 || (rc = mdb_env_set_maxdbs(s->env, 4)) != 0 ||
	    (rc = mdb_env_set_mapsize(s->env, (size_t)st.st_size)) != 0) {
		rc = hog_err_lmdb(err, rc, "creating environment", path);
		goto fail;
	}
	rc = mdb_env_open(s->env, path, MDB_RDONLY | MDB_NOLOCK | MDB_NOSUBDIR, 0644);
	if (rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH || rc == EINVAL) {
		rc = hog_err_set(err, HOG_EFORMAT, "%s" HOG_NOT_LMDB, path);
		goto fail;
	} else if (rc != 0) {
		rc = hog_err_lmdb(err, rc, "opening", path);
		goto fail;
	}
	if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->txn)) != 0) {
		rc = hog_err_lmdb(err, rc, "starting a read transaction", path);
		goto fail;
	}
	if (mdb_dbi_open(s->txn, "meta", 0, &s->meta_dbi) != 0 ||
	    mdb_dbi_open(s->txn, "blocks", 0, &s->blocks_dbi) != 0) {
		rc = hog_err_set(err, HOG_EFORMAT, "%s: an LMDB file, but not a hogwild data set", path);
		goto fail;
	}
	if ((rc = store_read_meta(s, err)) != 0)
		goto fail;
	s->block_copy = calloc(s->meta.blocks + 1, sizeof *s->block_copy); /* NULL: copies are not cached */
	*out = s;
	return 0;
fail:
	hog_store_close(s);
	return rc;
}

const hog_meta *hog_store_meta(const hog_store *s) { return &s->meta; }

/* (store_impl.h) */
const void *store_aligned(hog_store *s, const MDB_val *v, uint64_t block)
{
	if (!((uintptr_t)v->mv_data & 7))
		return v->mv_data;
	int cached = block < s->meta.blocks && s->block_copy;
	if (cached && s->block_copy[block])
		return s->block_copy[block]; /* the file is read-only: the copy stays valid */
	void **c = realloc(s->copies, (s->ncopies + 1) * sizeof *c);
	if (!c)
		return NULL;
	s->copies = c;
	if (!(c[s->ncopies] = aligned_alloc(8, v->mv_size ? (v->mv_size + 7) & ~(size_t)7 : 8)))
		return NULL;
	memcpy(c[s->ncopies], v->mv_data, v->mv_size);
	if (cached)
		s->block_copy[block] = c[s->ncopies];
	return c[s->ncopies++];
}

const uint64_t *hog_store_idmap(hog_store *s, const char *which, uint64_t *n)
{
	char key[64];
	MDB_val v;
	snprintf(key, sizeof key, "idmap.%s", which);
	*n = 0;
	if (meta_get(s, key, &v) != 0 || v.mv_size % 8 != 0)
		return NULL;
	const void *p = store_aligned(s, &v, UINT64_MAX);
	if (p)
		*n = v.mv_size / 8;
	return p;
}

/* Views a stored value as a block, copying it to aligned memory if needed; a
 * packed block is decoded into @p bb, and its pages of the map released. */
static int store_view(hog_store *s, uint64_t index, MDB_val *v, uint64_t expect_first,
                      hog_block *b, hog_blockbuf *bb, hog_err *err)
{
	const void *p = store_aligned(s, v, index);
	if (!p)
		return hog_err_set(err, ENOMEM, "%s: out of memory", s->path);
	int rc = hog_block_decode(p, v->mv_size, index, expect_first, &s->meta, b, bb, err);
	if (rc)
		return hog_err_prefix(err, "%s", s->path);
	if (b->packed && p == v->mv_data)
		hog_map_release(p, v->mv_size);
	if (b->first + b->n > s->meta.examples)
		return hog_err_set(err, HOG_ECORRUPT, "%s: block %llu: runs past the %llu examples the data set has",
		                   s->path, (unsigned long long)index, (unsigned long long)s->meta.examples);
	return 0;
}

/* Block @p index's value and the first example its header names. */
static int store_get(hog_store *s, uint64_t index, MDB_val *v, uint64_t *first, uint32_t *flags, hog_err *err)
{
	unsigned char kb[8];
	hog_block_key(index, kb);
	MDB_val k = { 8, kb };
	int rc = mdb_get(s->txn, s->blocks_dbi, &k, v);
	if (rc == MDB_NOTFOUND)
		return hog_err_set(err, HOG_ECORRUPT, "%s: block %llu is missing", s->path, (unsigned long long)index);
	if (rc)
		return hog_err_lmdb(err, rc, "reading a block", s->path);
	if (hog_block_peek(v->mv_data, v->mv_size, NULL, first, NULL, flags) != 0)
		return hog_err_set(err, HOG_ECORRUPT, "%s: block %llu: bad header", s->path, (unsigned long long)index);
	return 0;
}

int hog_store_block(hog_store *s, uint64_t index, hog_block *b, hog_err *err)
{
	MDB_val v;
	uint64_t first;
	uint32_t flags;
	int rc = store_get(s, index, &v, &first, &flags, err);
	if (rc)
		return rc;
	if (!(flags & HOG_BLOCK_F_PACKED) || index >= s->meta.blocks)
		return store_view(s, index, &v, first, b, NULL, err);
	/* packed: decoded once, kept until close (the view's promise) */
	if (!s->decoded && (!(s->decoded = calloc(s->meta.blocks, sizeof *s->decoded)) ||
	                    !(s->decoded_view = calloc(s->meta.blocks, sizeof *s->decoded_view)))) {
		free(s->decoded);
		s->decoded = NULL;
		return hog_err_set(err, ENOMEM, "%s: out of memory", s->path);
	}
	if (s->decoded_view[index].packed) {
		*b = s->decoded_view[index];
		return 0;
	}
	if ((rc = store_view(s, index, &v, first, b, &s->decoded[index], err)))
		return rc;
	s->decoded_view[index] = *b;
	return 0;
}

int hog_store_block_buf(hog_store *s, uint64_t index, hog_block *b, hog_blockbuf *bb, hog_err *err)
{
	MDB_val v;
	uint64_t first;
	int rc = store_get(s, index, &v, &first, NULL, err);
	return rc ? rc : store_view(s, index, &v, first, b, bb, err);
}

void hog_store_release(hog_store *s, const hog_block *b)
{
	const void *arr[] = { b->labels, b->offsets, b->ids, b->vals, b->users, b->items, b->ratings, b->xf, b->xu8 };
	const size_t len[] = { b->n * 4u, (b->n + 1u) * 4u, b->nnz * 4, b->nnz * 4, b->n * 4u, b->n * 4u, b->n * 4u,
		                   (size_t)b->n * b->cols * 4, (size_t)b->n * b->cols };
	/* a copy of ours must never be released (its contents would be lost): only a
	 * block known to have none (without the table of copies, none is released);
	 * a packed block's arrays are the heap's, not the map's */
	if (b->packed || !s->block_copy || b->index >= s->meta.blocks || s->block_copy[b->index])
		return;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (size_t i = 0; i < sizeof arr / sizeof *arr; i++)
		if (arr[i]) {
			uintptr_t a = (uintptr_t)arr[i];
			lo = a < lo ? a : lo;
			hi = a + len[i] > hi ? a + len[i] : hi;
		}
	if (hi > lo)
		hog_map_release((const void *)lo, hi - lo);
}

/* (store_impl.h) */
int store_each(hog_store *s, block_fn fn, void *ud, hog_err *err)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(s->txn, s->blocks_dbi, &cur);
	if (rc)
		return hog_err_lmdb(err, rc, "reading blocks", s->path);
	MDB_val k, v;
	uint64_t index = 0, next = 0;
	int ours = 0; /* rc came from us, not from the cursor */
	hog_blockbuf bb = { 0 }; /* packed blocks, one at a time */
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		ours = 1;
		unsigned char kb[8];
		hog_block_key(index, kb);
		if (k.mv_size != 8 || memcmp(k.mv_data, kb, 8) != 0) {
			rc = hog_err_set(err, HOG_ECORRUPT, "%s: block %llu is missing or misnumbered", s->path,
			                 (unsigned long long)index);
			break;
		}
		hog_block b;
		if ((rc = store_view(s, index, &v, next, &b, &bb, err)) || (rc = fn(ud, &b, err)))
			break;
		next += b.n;
		index++;
		ours = 0;
	}
	mdb_cursor_close(cur);
	hog_blockbuf_free(&bb);
	if (rc == MDB_NOTFOUND) {
		rc = 0;
		if (next != s->meta.examples)
			rc = hog_err_set(err, HOG_ECORRUPT, "%s: blocks hold %llu examples, meta says %llu", s->path,
			                 (unsigned long long)next, (unsigned long long)s->meta.examples);
	} else if (rc && !ours) {
		rc = hog_err_lmdb(err, rc, "reading blocks", s->path);
	}
	return rc;
}

void hog_store_close(hog_store *s)
{
	if (!s)
		return;
	if (s->txn)
		mdb_txn_abort(s->txn);
	if (s->env)
		mdb_env_close(s->env);
	for (size_t i = 0; i < s->ncopies; i++)
		free(s->copies[i]);
	free(s->copies);
	free(s->block_copy);
	for (uint64_t i = 0; s->decoded && i < s->meta.blocks; i++)
		hog_blockbuf_free(&s->decoded[i]);
	free(s->decoded);
	free(s->decoded_view);
	free(s->path);
	free(s);
}

/* What verify recomputes from the blocks, to compare with the meta data. */
typedef struct verify_state {
	const hog_meta *m;
	uint64_t blocks, nnz, positives;
	double min, max, sum, abs_sum;
} verify_state;

static int verify_block(void *ud, const hog_block *b, hog_err *err)
{
	verify_state *v = ud;
	const float *y = b->kind == HOG_KIND_RATINGS ? b->ratings : b->labels;
	for (uint32_t i = 0; i < b->n; i++) {
		double l = y[i];
		if (v->m->task == HOG_TASK_MULTICLASS && !(l >= 0 && l < v->m->classes && l == floor(l)))
			return hog_err_set(err, HOG_ECORRUPT, "block %llu, example %llu: class %g out of 0..%u",
			                   (unsigned long long)b->index, (unsigned long long)(b->first + i), l,
			                   v->m->classes - 1);
		v->min = l < v->min ? l : v->min;
		v->max = l > v->max ? l : v->max;
		v->sum += l; /* in the writer's order and precision, so equal up to rounding of the text */
		v->abs_sum += fabs(l);
		v->positives += l > 0;
	}
	v->nnz += b->nnz;
	v->blocks++;
	return 0;
}

/* Compares the statistics the meta data states with the recomputed ones. */
static int verify_stats(const hog_store *s, const verify_state *v, hog_err *err)
{
	const hog_meta *m = &s->meta;
	typedef unsigned long long ull;
	if (m->kind == HOG_KIND_SPARSE && v->nnz != m->nnz)
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'nnz' = %llu, but the blocks hold %llu nonzeros",
		                   s->path, (ull)m->nnz, (ull)v->nnz);
	if (v->positives != m->positives)
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'positives' = %llu, but the blocks hold %llu labels > 0",
		                   s->path, (ull)m->positives, (ull)v->positives);
	if (v->min != m->label_min || v->max != m->label_max)
		return hog_err_set(err, HOG_ECORRUPT,
		                   "%s: meta entries 'label_min', 'label_max' = %.9g, %.9g, but the labels span %.9g..%.9g",
		                   s->path, m->label_min, m->label_max, v->min, v->max);
	if (m->unlabelled && (v->min != 0 || v->max != 0))
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'labels' = 'none' (a set without labels), but the "
		                   "blocks hold labels %.9g..%.9g, not 0", s->path, v->min, v->max);
	if (fabs(v->sum - m->label_sum) > 1e-9 * (1 + v->abs_sum))
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'label_sum' = %.17g, but the labels add up to %.17g",
		                   s->path, m->label_sum, v->sum);
	return 0;
}

/* The id maps of a ratings set, when it has them: whole 8-byte ids, one per
 * user and item the meta counts (the loaders ignore a map that is not). */
static int verify_idmaps(hog_store *s, hog_err *err)
{
	static const char *const which[] = { "users", "items" };
	for (int k = 0; k < 2; k++) {
		char key[32];
		MDB_val v;
		snprintf(key, sizeof key, "idmap.%s", which[k]);
		if (meta_get(s, key, &v) != 0)
			continue;
		uint64_t want = k ? s->meta.items : s->meta.users;
		if (s->meta.kind != HOG_KIND_RATINGS)
			return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry '%s' in a set that is not ratings", s->path, key);
		if (v.mv_size % 8)
			return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry '%s' has %zu bytes, not whole 8-byte ids",
			                   s->path, key, (size_t)v.mv_size);
		if (v.mv_size / 8 != want)
			return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry '%s' holds %llu ids, but meta entry '%s' = %llu",
			                   s->path, key, (unsigned long long)(v.mv_size / 8), which[k], (unsigned long long)want);
	}
	return 0;
}

/* The "split" meta of a half of a split, when there is one: its id whole, or
 * a split made before pair ids (the loaders ignore a damaged one: no id). */
static int verify_split(hog_store *s, hog_err *err)
{
	char buf[HOG_SPLIT_META_MAX];
	hog_split_id id;
	int state = hog_split_id_read(s, &id, buf, sizeof buf);
	if (state >= 0)
		return 0;
	size_t n = strlen(buf);
	for (size_t i = 0; i < n; i++) /* (said as text: no control bytes to the terminal) */
		buf[i] = (unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f ? '?' : buf[i];
	return hog_err_set(err, HOG_ECORRUPT, "%s: meta entry 'split' is damaged ('%.80s%s'): a half of a split names "
	                   "part=a or b, and pair= and from= with 16 hex digits each, in at most %d bytes without a "
	                   "NUL; its pair id is ignored", s->path, buf, n > 80 ? "..." : "", HOG_SPLIT_META_MAX - 1);
}

int hog_store_verify(const char *path, uint64_t *blocks_checked, hog_err *err)
{
	hog_store *s;
	verify_state v = { .min = INFINITY, .max = -INFINITY };
	int rc = hog_store_open(&s, path, err);
	if (rc == 0) {
		v.m = &s->meta;
		rc = store_each(s, verify_block, &v, err);
		if (rc && strncmp(err ? err->msg : "", path, strlen(path)) != 0)
			hog_err_prefix(err, "%s", path);
		if (rc == 0)
			rc = verify_stats(s, &v, err);
		if (rc == 0)
			rc = verify_idmaps(s, err);
		if (rc == 0)
			rc = verify_split(s, err);
		hog_store_close(s);
	}
	if (blocks_checked)
		*blocks_checked = v.blocks;
	return rc;
}
