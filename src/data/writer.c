/* Writing a data set: examples are gathered into one block's arrays, encoded
 * straight into LMDB's reserved space (MDB_APPEND|MDB_RESERVE: no extra copy, keys
 * in order), and the write transaction is committed every ~256 MB to keep LMDB's
 * dirty list small. All of it goes to "<path>.tmp.<pid>"; commit writes the meta
 * entries, syncs and renames. The temporary file is registered (sys/file.h) so
 * that the command line's signal handler can remove it. The task (binary/multiclass/regression) can be left
 * to the end: labels are stored as given and their statistics decide. */
#include "data/block.h"
#include "data/writer_impl.h"
#include "data/store.h"
#include "sys/err.h"
#include <errno.h>
#include <lmdb.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MAP_START ((size_t)256 << 20) /* grown by doubling as the file grows */
#define TXN_BYTES ((size_t)8 << 20) /* committed every 8 MiB: LMDB holds a transaction's dirty pages in anonymous memory (no WRITEMAP), so that is what a writer holds beyond its block; a split holds two */
/* A block's per-example arrays stay under this many bytes whatever the examples
 * per block asked for: a 2^24-pixel image is 16 MiB (64 MiB as floats), and
 * 4096 of them would be 64 GiB reserved up front. */
#define BLOCK_BYTES ((size_t)64 << 20)

int w_meta_has(const hog_writer *w, const char *key)
{
	for (size_t i = 0; i < w->nkv; i++)
		if (!strcmp(w->kv[i].key, key))
			return 1;
	return 0;
}

int w_oom(hog_writer *w, hog_err *err)
{
	return hog_err_set(err, ENOMEM, "%s: out of memory", w->path);
}

/* An LMDB error while writing the temporary file. LMDB turns a short write (the
 * disk filled up in the middle of a page run) into EIO; when the file system has
 * no room left, ENOSPC is what happened and what the user must read. */
int w_lmdb(hog_writer *w, hog_err *err, int rc, const char *what)
{
	struct statvfs vfs;
	if ((rc == EIO || rc == ENOSPC) && statvfs(w->tmp, &vfs) == 0 && vfs.f_bavail * (uint64_t)vfs.f_frsize <
	    ((uint64_t)1 << 20) + hog_block_bytes(w->o.kind, w->bmax, w->o.kind == HOG_KIND_DENSE ? w->o.features : 0, 0))
		rc = ENOSPC;
	if (rc == ENOSPC)
		return hog_err_set(err, ENOSPC, "%s: %s: %s", w->path, what, strerror(ENOSPC));
	return hog_err_lmdb(err, rc, what, w->path);
}

/* Examples per block: what was asked for, fewer when a block's arrays would
 * pass BLOCK_BYTES (at least one example per block). */
static uint32_t w_block_examples(const hog_writer_opts *o)
{
	size_t per = 12; /* ratings: user, item, rating; sparse: label, offset, a few ids */
	if (o->kind == HOG_KIND_DENSE)
		per = 4 + (size_t)o->features * (o->dense_u8 ? 1 : 4);
	uint32_t n = o->block_examples ? o->block_examples : HOG_BLOCK_EXAMPLES;
	if ((size_t)n * per > BLOCK_BYTES)
		n = (uint32_t)(BLOCK_BYTES / per);
	return n ? n : 1;
}

int hog_writer_open(hog_writer **out, const char *path, const hog_writer_opts *o, hog_err *err)
{
	*out = NULL;
	if (!o || o->kind < HOG_KIND_SPARSE || o->kind > HOG_KIND_DENSE)
		return hog_err_set(err, HOG_ECONFIG, "%s: unknown data set kind", path);
	if (o->kind == HOG_KIND_SPARSE && o->features > UINT32_MAX)
		return hog_err_set(err, HOG_ECONFIG, "%s: dimensions beyond 2^32-1 are not supported", path);
	if (o->kind == HOG_KIND_DENSE && (o->features == 0 || o->features > (1u << 24)))
		return hog_err_set(err, HOG_ECONFIG, "%s: a dense data set needs 1..2^24 columns", path);
	hog_writer *w = calloc(1, sizeof *w);
	if (!w)
		return hog_err_set(err, ENOMEM, "out of memory");
	w->o = *o;
	/* the caller's string may not outlive this call (the split's does not): keep a copy */
	snprintf(w->source, sizeof w->source, "%s", o->source ? o->source : "");
	w->o.source = w->source;
	w->tmp_slot = -1;
	w->bmax = w_block_examples(o);
	w->all_pm1 = w->all_01 = w->all_small_int = w->all_int = 1;
	w->lmin = INFINITY;
	w->lmax = -INFINITY;
	w->next_w = 1.0f;
	int rc;
	if (!(w->path = strdup(path)) || !(w->tmp = hog_tmp_path(path))) {
		rc = w_oom(w, err);
		goto fail;
	}
	size_t n = w->bmax;
	int oom = 0;
	switch (o->kind) {
	case HOG_KIND_SPARSE:
		w->cap_nnz = (size_t)n * 64 > BLOCK_BYTES / 8 ? BLOCK_BYTES / 8 : (size_t)n * 64;
		oom = !(w->labels = malloc(n * 4)) || !(w->offsets = malloc((n + 1) * 4)) ||
		      !(w->ids = malloc(w->cap_nnz * 4)) || !(w->vals = malloc(w->cap_nnz * 4));
		if (!oom)
			w->offsets[0] = 0;
		break;
	case HOG_KIND_RATINGS:
		oom = !(w->users = malloc(n * 4)) || !(w->items = malloc(n * 4)) || !(w->ratings = malloc(n * 4));
		break;
	case HOG_KIND_DENSE:
		oom = !(w->labels = malloc(n * 4)) ||
		      (o->dense_u8 ? !(w->xu8 = malloc(n * o->features)) : !(w->xf = malloc(n * o->features * 4)));
		break;
	}
	if (o->kind != HOG_KIND_RATINGS && !o->unlabelled && !(w->seen = calloc(65537, sizeof *w->seen)))
		oom = 1;
	if (oom || !(w->weights = malloc(n * 4))) {
		rc = w_oom(w, err);
		goto fail;
	}
	unlink(w->tmp);
	w->tmp_slot = hog_tmp_track(w->tmp); /* before the file exists: a signal may come any time */
	if ((rc = mdb_env_create(&w->env)) || (rc = mdb_env_set_maxdbs(w->env, 4)) ||
	    (rc = mdb_env_set_mapsize(w->env, w->mapsize = MAP_START))) {
		rc = hog_err_lmdb(err, rc, "creating environment", w->tmp);
		goto fail;
	}
	/* Our own temp file: no lock file; durability comes from the sync at commit. */
	if ((rc = mdb_env_open(w->env, w->tmp, MDB_NOSUBDIR | MDB_NOLOCK | MDB_NOSYNC | MDB_NOMETASYNC, 0644))) {
		rc = hog_err_lmdb(err, rc, "creating", w->tmp);
		goto fail;
	}
	if ((rc = mdb_txn_begin(w->env, NULL, 0, &w->txn)) ||
	    (rc = mdb_dbi_open(w->txn, "meta", MDB_CREATE, &w->meta_dbi)) ||
	    (rc = mdb_dbi_open(w->txn, "blocks", MDB_CREATE, &w->blocks_dbi))) {
		rc = hog_err_lmdb(err, rc, "creating databases", w->tmp);
		goto fail;
	}
	*out = w;
	return 0;
fail:
	hog_writer_abort(w);
	return rc;
}

/* Grows the map before a put of @p bytes can fill it: LMDB can only resize
 * between transactions, and reserving a huge map up front fails where address
 * space is short (sanitizers, 32-bit limits). Slack covers page rounding and
 * the tree. */
int w_room(hog_writer *w, size_t bytes, hog_err *err)
{
	int rc;
	size_t need = w->committed + w->txn_bytes + bytes + bytes / 8 + ((size_t)64 << 20);
	if (need > w->mapsize) {
		if ((rc = mdb_txn_commit(w->txn)) != 0) {
			w->txn = NULL;
			return w_lmdb(w, err, rc, "committing");
		}
		w->txn = NULL;
		w->committed += w->txn_bytes;
		w->txn_bytes = 0;
		while (w->mapsize < 2 * need)
			w->mapsize *= 2;
		if ((rc = mdb_env_set_mapsize(w->env, w->mapsize)) != 0 ||
		    (rc = mdb_txn_begin(w->env, NULL, 0, &w->txn)) != 0)
			return w_lmdb(w, err, rc, "growing the map");
	}
	return 0;
}

/* A put of @p bytes done: the transaction is committed every TXN_BYTES. */
int w_wrote(hog_writer *w, size_t bytes, hog_err *err)
{
	int rc;
	w->txn_bytes += bytes;
	if (w->txn_bytes > TXN_BYTES) {
		if ((rc = mdb_txn_commit(w->txn)) != 0) {
			w->txn = NULL;
			return w_lmdb(w, err, rc, "committing");
		}
		w->txn = NULL;
		if ((rc = mdb_txn_begin(w->env, NULL, 0, &w->txn)) != 0)
			return hog_err_lmdb(err, rc, "starting a transaction", w->tmp);
		w->committed += w->txn_bytes;
		w->txn_bytes = 0;
	}
	return 0;
}

static int flush_block(hog_writer *w, hog_err *err)
{
	if (w->n == 0)
		return 0;
	hog_block b = { .kind = w->o.kind, .first = w->examples - w->n, .n = w->n, .nnz = w->nnz,
	                .cols = (uint32_t)w->o.features, .scale = w->o.dense_scale, .labels = w->labels,
	                .offsets = w->offsets, .ids = w->ids, .vals = w->vals, .users = w->users,
	                .items = w->items, .ratings = w->ratings, .xf = w->xf, .xu8 = w->xu8,
	                .weights = w->weights };
	uint32_t flags = w->blk_w ? HOG_BLOCK_F_WEIGHTS : 0;
	if (w->o.kind == HOG_KIND_SPARSE && w->blk_vals)
		flags |= HOG_BLOCK_F_VALUES;
	if (w->o.kind == HOG_KIND_DENSE && w->o.dense_u8)
		flags |= HOG_BLOCK_F_U8;
	uint64_t m = w->o.kind == HOG_KIND_SPARSE ? w->nnz : w->o.kind == HOG_KIND_DENSE ? w->o.features : 0;
	size_t bytes = hog_block_bytes(w->o.kind, w->n, m, flags);
	/* packed when that is smaller (the narrowest values the precision allows) */
	hog_pack_plan plan;
	int packed = !w->o.raw_blocks && hog_block_pack_plan(&b, flags, w->o.value_precision, &plan) == 0 &&
	             plan.bytes < bytes;
	if (packed) {
		bytes = plan.bytes;
		w->packed = 1;
	}
	int rc = w_room(w, bytes, err);
	if (rc)
		return rc;
	unsigned char kb[8];
	hog_block_key(w->blocks, kb);
	MDB_val k = { 8, kb }, v = { bytes, NULL };
	rc = mdb_put(w->txn, w->blocks_dbi, &k, &v, MDB_APPEND | MDB_RESERVE);
	if (rc)
		return w_lmdb(w, err, rc, "writing a block");
	void *dst = v.mv_data, *tmpbuf = NULL;
	if ((uintptr_t)dst & 7) { /* small blocks can sit unaligned in a leaf page */
		if (!(tmpbuf = malloc(bytes)))
			return w_oom(w, err);
		dst = tmpbuf;
	}
	if (packed)
		hog_block_pack(dst, &b, flags, &plan);
	else
		hog_block_encode(dst, &b, flags);
	if (tmpbuf) {
		memcpy(v.mv_data, tmpbuf, bytes);
		free(tmpbuf);
	}
	w->blocks++;
	w->total_nnz += w->nnz;
	w->n = 0;
	w->nnz = 0;
	w->blk_vals = 0;
	w->blk_w = 0;
	return w_wrote(w, bytes, err);
}

int hog_writer_set_weight(hog_writer *w, double weight, hog_err *err)
{
	if (!(isfinite(weight) && weight > 0 && (float)weight > 0 && isfinite((float)weight)))
		return hog_err_set(err, HOG_EDATA, "example %llu: weight %g: a weight must be a finite number > 0",
		                   (unsigned long long)w->examples, weight);
	w->next_w = (float)weight;
	return 0;
}

/* The example being added takes the pending weight (and the next one is 1). */
static void note_weight(hog_writer *w)
{
	float x = w->next_w;
	w->weights[w->n] = x;
	w->wsum += x;
	if (x != 1.0f)
		w->blk_w = w->weighted = 1;
	w->next_w = 1.0f;
}

static void note_label(hog_writer *w, float y)
{
	if (y < w->lmin) w->lmin = y;
	if (y > w->lmax) w->lmax = y;
	w->lsum += y;
	if (y > 0) w->positives++;
	if (y != 1 && y != -1) w->all_pm1 = 0;
	if (y != 0 && y != 1) w->all_01 = 0;
	if (!(y >= 0 && y < 65536 && y == floorf(y))) w->all_small_int = 0;
	if (w->all_int && w->seen && y >= -1 && y <= 65535 && y == floorf(y)) {
		w->nvals += w->seen[(uint32_t)(y + 1)]++ == 0;
	} else {
		w->all_int = 0;
	}
}

int hog_writer_add_sparse(hog_writer *w, float label, const uint32_t *ids, const float *vals,
                          uint32_t nnz, hog_err *err)
{
	if (w->o.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_ECONFIG, "%s: not a sparse data set", w->path);
	if (!isfinite(label))
		return hog_err_set(err, HOG_EDATA, "example %llu: label is not finite", (unsigned long long)w->examples);
	for (uint32_t j = 0; j < nnz; j++) {
		if (j && ids[j] <= ids[j - 1])
			return hog_err_set(err, HOG_EDATA, "example %llu: feature ids not strictly increasing",
			                   (unsigned long long)w->examples);
		if (ids[j] == UINT32_MAX)
			return hog_err_set(err, HOG_EDATA, "example %llu: feature id %u too large",
			                   (unsigned long long)w->examples, ids[j]);
		if (w->o.features && ids[j] >= w->o.features)
			return hog_err_set(err, HOG_EDATA, "example %llu: feature id %u beyond the dimension %llu",
			                   (unsigned long long)w->examples, ids[j], (unsigned long long)w->o.features);
		if (vals && !isfinite(vals[j]))
			return hog_err_set(err, HOG_EDATA, "example %llu: value of feature %u is not finite",
			                   (unsigned long long)w->examples, ids[j]);
	}
	if (w->nnz + nnz >= UINT32_MAX || (w->n > 0 && w->nnz + nnz > (64u << 20))) {
		int rc = flush_block(w, err); /* keep u32 offsets and blocks of sane size */
		if (rc)
			return rc;
	}
	if (w->nnz + nnz > w->cap_nnz) {
		uint64_t cap = w->cap_nnz * 2;
		while (cap < w->nnz + nnz)
			cap *= 2;
		uint32_t *ni = realloc(w->ids, cap * 4);
		if (ni) w->ids = ni;
		float *nv = realloc(w->vals, cap * 4);
		if (nv) w->vals = nv;
		if (!ni || !nv)
			return w_oom(w, err);
		w->cap_nnz = cap;
	}
	if (nnz)
		memcpy(w->ids + w->nnz, ids, (size_t)nnz * 4);
	if (vals && nnz) {
		memcpy(w->vals + w->nnz, vals, (size_t)nnz * 4);
		for (uint32_t j = 0; j < nnz && !w->blk_vals; j++)
			w->blk_vals = vals[j] != 1.0f;
	} else if (!vals) {
		for (uint32_t j = 0; j < nnz; j++)
			w->vals[w->nnz + j] = 1.0f;
	}
	if (nnz) {
		if (!w->any_id || ids[nnz - 1] > w->max_id)
			w->max_id = ids[nnz - 1];
		w->any_id = 1;
	}
	w->labels[w->n] = label;
	note_label(w, label);
	note_weight(w);
	w->nnz += nnz;
	w->offsets[++w->n] = (uint32_t)w->nnz;
	w->examples++;
	return w->n == w->bmax ? flush_block(w, err) : 0;
}

int hog_writer_add_rating(hog_writer *w, uint32_t user, uint32_t item, float rating, hog_err *err)
{
	if (w->o.kind != HOG_KIND_RATINGS)
		return hog_err_set(err, HOG_ECONFIG, "%s: not a ratings data set", w->path);
	if (!isfinite(rating))
		return hog_err_set(err, HOG_EDATA, "rating %llu: not finite", (unsigned long long)w->examples);
	if (user == UINT32_MAX || item == UINT32_MAX)
		return hog_err_set(err, HOG_EDATA, "rating %llu: id too large", (unsigned long long)w->examples);
	w->users[w->n] = user;
	w->items[w->n] = item;
	w->ratings[w->n] = rating;
	if (user + 1ull > w->max_user) w->max_user = user + 1ull;
	if (item + 1ull > w->max_item) w->max_item = item + 1ull;
	note_label(w, rating);
	note_weight(w);
	w->n++;
	w->examples++;
	return w->n == w->bmax ? flush_block(w, err) : 0;
}

int hog_writer_add_dense(hog_writer *w, float label, const float *xf, const uint8_t *xu8, hog_err *err)
{
	if (w->o.kind != HOG_KIND_DENSE)
		return hog_err_set(err, HOG_ECONFIG, "%s: not a dense data set", w->path);
	if (!isfinite(label))
		return hog_err_set(err, HOG_EDATA, "example %llu: label is not finite", (unsigned long long)w->examples);
	size_t m = w->o.features;
	if (w->o.dense_u8) {
		if (!xu8)
			return hog_err_set(err, HOG_ECONFIG, "%s: this dense data set stores bytes", w->path);
		memcpy(w->xu8 + (size_t)w->n * m, xu8, m);
	} else {
		if (!xf)
			return hog_err_set(err, HOG_ECONFIG, "%s: this dense data set stores floats", w->path);
		for (size_t j = 0; j < m; j++)
			if (!isfinite(xf[j]))
				return hog_err_set(err, HOG_EDATA, "example %llu: column %zu is not finite",
				                   (unsigned long long)w->examples, j);
		memcpy(w->xf + (size_t)w->n * m, xf, m * 4);
	}
	w->labels[w->n] = label;
	note_label(w, label);
	note_weight(w);
	w->n++;
	w->examples++;
	return w->n == w->bmax ? flush_block(w, err) : 0;
}

static const char *const reserved_keys[] = {
	"format", "version", "kind", "task", "examples", "features", "nnz", "blocks", "users", "items",
	"classes", "dense_u8", "dense_scale", "positives", "label_min", "label_max", "label_sum", "source",
	"labels", "weights", "weight_sum",
};

int w_meta_add(hog_writer *w, const char *key, const void *val, size_t len, hog_err *err)
{
	struct meta_kv *kv = realloc(w->kv, (w->nkv + 1) * sizeof *kv);
	if (!kv)
		return w_oom(w, err);
	w->kv = kv;
	kv += w->nkv;
	kv->key = strdup(key);
	kv->val = malloc(len ? len : 1);
	kv->len = len;
	if (!kv->key || !kv->val) {
		free(kv->key);
		free(kv->val);
		return w_oom(w, err);
	}
	memcpy(kv->val, val, len);
	w->nkv++;
	return 0;
}

int hog_writer_meta_set(hog_writer *w, const char *key, const char *value, hog_err *err)
{
	for (size_t i = 0; i < sizeof reserved_keys / sizeof *reserved_keys; i++)
		if (!strcmp(key, reserved_keys[i]))
			return hog_err_set(err, HOG_ECONFIG, "meta key '%s' is the format's own", key);
	if (!strncmp(key, "idmap.", 6))
		return hog_err_set(err, HOG_ECONFIG, "meta key '%s' is the format's own", key);
	return w_meta_add(w, key, value, strlen(value), err);
}

int hog_writer_idmap_set(hog_writer *w, const char *which, const uint64_t *ids, uint64_t n, hog_err *err)
{
	char key[64];
	snprintf(key, sizeof key, "idmap.%s", which);
	return w_meta_add(w, key, ids, n * 8, err);
}

uint64_t hog_writer_count(const hog_writer *w) { return w->examples; }

int hog_writer_set_features(hog_writer *w, uint64_t features, hog_err *err)
{
	if (w->o.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_ECONFIG, "%s: not a sparse data set", w->path);
	if (features && w->any_id && w->max_id >= features)
		return hog_err_set(err, HOG_ECONFIG, "%s: a dimension of %llu, below feature id %llu", w->path,
		                   (unsigned long long)features, (unsigned long long)w->max_id);
	w->o.features = features;
	return 0;
}

int hog_writer_set_class_names(hog_writer *w, const char *names, hog_err *err)
{
	const uint32_t k = hog_class_count(names);
	if (w->o.task && w->o.task != HOG_TASK_BINARY && w->o.task != HOG_TASK_MULTICLASS)
		return hog_err_set(err, HOG_ECONFIG, "labels that are names are classes, not %s values",
		                   hog_task_name(w->o.task));
	if (w->o.task == HOG_TASK_BINARY && k > 2)
		return hog_err_set(err, HOG_ECONFIG, "%u class names for binary labels", k);
	if (k == 0 || k > 65535)
		return hog_err_set(err, HOG_ECONFIG, "%u class names (1 to 65535)", k);
	if (!hog_class_names_ok(names, strlen(names)))
		return hog_err_set(err, HOG_ECONFIG, "class names must be non-empty, each ended by a newline, with no "
		                   "other control character");
	w->o.task = k <= 2 && w->o.task != HOG_TASK_MULTICLASS ? HOG_TASK_BINARY : HOG_TASK_MULTICLASS;
	w->o.classes = w->o.task == HOG_TASK_MULTICLASS ? k : 0;
	return w_meta_add(w, "class_names", names, strlen(names), err);
}

static int put_meta(hog_writer *w, const char *key, const void *val, size_t len, hog_err *err)
{
	MDB_val k = { strlen(key), (void *)key }, v = { len, (void *)val };
	int rc = mdb_put(w->txn, w->meta_dbi, &k, &v, 0);
	return rc ? w_lmdb(w, err, rc, "writing meta data") : 0;
}

static int put_meta_fmt(hog_writer *w, const char *key, hog_err *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int put_meta_fmt(hog_writer *w, const char *key, hog_err *err, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return put_meta(w, key, buf, strlen(buf), err);
}

int hog_writer_finish(hog_writer *w, hog_err *err)
{
	int rc = flush_block(w, err);
	if (rc)
		goto fail;
	if (w->examples == 0) {
		rc = hog_err_set(err, HOG_EDATA, "no examples: the input is empty");
		goto fail;
	}
	const enum hog_task named_as = named_task(w), task = decide_task(w, named_as);
	const int named = named_as != 0;
	if (named && (rc = relabel_named(w, err)))
		goto fail;
	uint64_t features = w->o.features, classes = 0, nnz = w->total_nnz;
	if (w->o.kind == HOG_KIND_SPARSE && !features)
		features = w->any_id ? w->max_id + 1 : 1;
	if (w->o.kind == HOG_KIND_DENSE)
		nnz = w->examples * w->o.features;
	if (task == HOG_TASK_MULTICLASS) {
		if (!w->all_small_int && !named) {
			rc = hog_err_set(err, HOG_EDATA, "multiclass labels must be integers 0..65535 (found %g..%g)",
			                 w->lmin, w->lmax);
			goto fail;
		}
		classes = named ? w->nvals : (uint64_t)w->lmax + 1;
		if (w->o.classes) {
			if (w->o.classes < classes) {
				rc = hog_err_set(err, HOG_EDATA, "label %g beyond the %u classes asked for", w->lmax, w->o.classes);
				goto fail;
			}
			classes = w->o.classes;
		}
	}
	if (w->o.kind == HOG_KIND_RATINGS) {
		if ((w->o.users && w->o.users < w->max_user) || (w->o.items && w->o.items < w->max_item)) {
			rc = hog_err_set(err, HOG_EDATA, "user or item id beyond the ranges asked for");
			goto fail;
		}
		if (w->o.users)
			w->max_user = w->o.users;
		if (w->o.items)
			w->max_item = w->o.items;
	}
	const char *src = w->o.source ? w->o.source : "";
	if ((rc = put_meta(w, "format", "hogwild-data", 12, err)) ||
	    (rc = put_meta_fmt(w, "version", err, "%d", w->packed ? HOG_FORMAT_PACKED : w->weighted ? HOG_FORMAT_WEIGHTS : 1)) ||
	    (rc = put_meta_fmt(w, "kind", err, "%s", hog_kind_name(w->o.kind))) ||
	    (rc = put_meta_fmt(w, "task", err, "%s", hog_task_name(task))) ||
	    (rc = put_meta_fmt(w, "examples", err, "%llu", (unsigned long long)w->examples)) ||
	    (rc = put_meta_fmt(w, "features", err, "%llu", (unsigned long long)features)) ||
	    (rc = put_meta_fmt(w, "nnz", err, "%llu", (unsigned long long)nnz)) ||
	    (rc = put_meta_fmt(w, "blocks", err, "%llu", (unsigned long long)w->blocks)) ||
	    (rc = put_meta_fmt(w, "positives", err, "%llu", (unsigned long long)w->positives)) ||
	    (rc = put_meta_fmt(w, "label_min", err, "%.17g", w->lmin)) ||
	    (rc = put_meta_fmt(w, "label_max", err, "%.17g", w->lmax)) ||
	    (rc = put_meta_fmt(w, "label_sum", err, "%.17g", w->lsum)) ||
	    (rc = put_meta_fmt(w, "source", err, "%.255s", src)))
		goto fail;
	if (w->o.kind == HOG_KIND_RATINGS &&
	    ((rc = put_meta_fmt(w, "users", err, "%llu", (unsigned long long)w->max_user)) ||
	     (rc = put_meta_fmt(w, "items", err, "%llu", (unsigned long long)w->max_item))))
		goto fail;
	if (classes && (rc = put_meta_fmt(w, "classes", err, "%llu", (unsigned long long)classes)))
		goto fail;
	if (w->o.unlabelled && (rc = put_meta_fmt(w, "labels", err, "none")))
		goto fail;
	if (w->weighted && ((rc = put_meta_fmt(w, "weights", err, "1")) ||
	                    (rc = put_meta_fmt(w, "weight_sum", err, "%.17g", w->wsum))))
		goto fail;
	if (w->o.kind == HOG_KIND_DENSE && w->o.dense_u8 &&
	    ((rc = put_meta_fmt(w, "dense_u8", err, "1")) ||
	     (rc = put_meta_fmt(w, "dense_scale", err, "%.9g", w->o.dense_scale))))
		goto fail;
	for (size_t i = 0; i < w->nkv; i++)
		if ((rc = put_meta(w, w->kv[i].key, w->kv[i].val, w->kv[i].len, err)))
			goto fail;
	rc = mdb_txn_commit(w->txn);
	w->txn = NULL;
	if (rc) {
		rc = w_lmdb(w, err, rc, "committing");
		goto fail;
	}
	if ((rc = mdb_env_sync(w->env, 1))) {
		rc = w_lmdb(w, err, rc, "syncing");
		goto fail;
	}
	mdb_env_close(w->env);
	w->env = NULL;
	w->finished = 1;
	return 0;
fail:
	hog_writer_abort(w);
	return rc;
}

int hog_writer_publish(hog_writer *w, hog_err *err)
{
	if (!w->finished) {
		int rc = hog_err_set(err, HOG_ECONFIG, "%s: published before it was finished", w->path);
		hog_writer_abort(w);
		return rc;
	}
	if (rename(w->tmp, w->path) != 0) {
		int rc = hog_err_set(err, errno, "%s: cannot rename into place: %s", w->path, strerror(errno));
		hog_writer_abort(w);
		return rc;
	}
	hog_tmp_untrack(w->tmp_slot);
	w->tmp_slot = -1;
	hog_fsync_dir(w->path);
	free(w->tmp);
	w->tmp = NULL;
	hog_writer_abort(w); /* frees what is left; nothing to remove any more */
	return 0;
}

int hog_writer_commit(hog_writer *w, hog_err *err)
{
	int rc = hog_writer_finish(w, err);
	return rc ? rc : hog_writer_publish(w, err);
}

void hog_writer_abort(hog_writer *w)
{
	if (!w)
		return;
	if (w->txn)
		mdb_txn_abort(w->txn);
	if (w->env)
		mdb_env_close(w->env);
	if (w->tmp)
		unlink(w->tmp);
	hog_tmp_untrack(w->tmp_slot);
	for (size_t i = 0; i < w->nkv; i++) {
		free(w->kv[i].key);
		free(w->kv[i].val);
	}
	free(w->kv);
	free(w->labels); free(w->offsets); free(w->ids); free(w->vals); free(w->seen);
	free(w->users); free(w->items); free(w->ratings); free(w->xf); free(w->xu8); free(w->weights);
	free(w->path);
	free(w->tmp);
	free(w);
}

void hog_writer_set_unlabelled(hog_writer *w)
{
	w->o.unlabelled = 1;
}
