/* Data sets into memory: hog_data_load() (every block, decoded in parallel
 * straight into the arrays), hog_data_load_header() (the meta data alone), and
 * the parts of a set beyond its blocks that both carry (id maps, CSV column
 * names). The store itself is store.c. */
#include "data/store_impl.h"
#include "data/block.h"
#include "sys/err.h"
#include "sys/file.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Opens @p path and a hog_data holding its meta data and counts (no arrays). */
static int data_open(const char *path, hog_store **s, hog_data **d, hog_err *err)
{
	int rc = hog_store_open(s, path, err);
	if (rc)
		return rc;
	if (!(*d = calloc(1, sizeof **d))) {
		hog_store_close(*s);
		return hog_err_set(err, ENOMEM, "out of memory");
	}
	(*d)->meta = (*s)->meta;
	(*d)->n = (*s)->meta.examples;
	(*d)->dim = (*s)->meta.features;
	(*d)->nnz = (*s)->meta.nnz;
	return 0;
}

#define COLUMNS_MAX 16400 /* the CSV importer keeps at most 16384 bytes of names */
#define CLASS_NAMES_MAX (1 << 20) /* 65535 names of at most 15 bytes, or fewer longer ones */
#define CATEGORIES_MAX (256 << 20) /* LMDB holds a meta value of any size: a bound for a damaged one */

/* The class names (classes.c), checked against the labels' task: the names
 * a prediction is written as must be the classes' own. */
static int load_class_names(hog_store *s, hog_data *d, hog_err *err)
{
	char *buf;
	int rc = hog_store_meta_dup(s, "class_names", CLASS_NAMES_MAX, &buf);
	if (rc == ENOENT)
		return 0;
	if (rc == ENOMEM)
		return hog_err_set(err, ENOMEM, "out of memory");
	const uint32_t k = rc ? 0 : hog_class_count(buf), len = rc ? 0 : (uint32_t)strlen(buf);
	const int fits = d->meta.task == HOG_TASK_MULTICLASS ? k == d->meta.classes
	                 : d->meta.task == HOG_TASK_BINARY   ? k >= 1 && k <= 2
	                                                     : d->meta.unlabelled;
	if (rc || !fits || !hog_class_names_ok(buf, len)) {
		free(buf);
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta class_names is damaged (%s)", s->path,
		                   rc ? "too long" : !fits ? "not one name a class" : "an empty name or a control character");
	}
	d->class_names = buf;
	return 0;
}

/* The categories (import_csv.c): names that number features category_from..
 * to the set's dimension, one each. */
static int load_categories(hog_store *s, hog_data *d, hog_err *err)
{
	char from[32];
	if (hog_store_meta_whole(s, "category_from", from, sizeof from) == ENOENT)
		return 0;
	char *buf, *end = NULL;
	int rc = hog_store_meta_dup(s, "categories", CATEGORIES_MAX, &buf);
	if (rc == ENOMEM)
		return hog_err_set(err, ENOMEM, "out of memory");
	const unsigned long long f = strtoull(from, &end, 10);
	const size_t len = rc ? 0 : strlen(buf);
	if (rc || !end || *end || end == from || d->meta.kind != HOG_KIND_SPARSE || !hog_class_names_ok(buf, len) ||
	    f + hog_class_count(buf) != d->dim) {
		free(buf);
		return hog_err_set(err, HOG_ECORRUPT, "%s: meta categories is damaged (not one name a feature from "
		                   "category_from to the dimension)", s->path);
	}
	d->categories = buf;
	d->category_from = f;
	return 0;
}

/* The loaded set's id maps and column names, from its store. */
static int hog_data_load_extras(hog_store *s, hog_data *d, hog_err *err)
{
	if (d->meta.kind == HOG_KIND_RATINGS) {
		uint64_t nu, ni;
		const uint64_t *u = hog_store_idmap(s, "users", &nu), *i = hog_store_idmap(s, "items", &ni);
		/* maps that do not cover the ranges are not used (the set then keeps its dense ids) */
		if (u && i && nu == d->meta.users && ni == d->meta.items) {
			if (!(d->user_ids = malloc(nu * 8 + 8)) || !(d->item_ids = malloc(ni * 8 + 8)))
				return hog_err_set(err, ENOMEM, "out of memory for the id maps");
			memcpy(d->user_ids, u, nu * 8);
			memcpy(d->item_ids, i, ni * 8);
		}
	}
	char *buf = malloc(COLUMNS_MAX + 1);
	if (!buf)
		return hog_err_set(err, ENOMEM, "out of memory");
	if (hog_store_meta_get(s, "columns", buf, COLUMNS_MAX + 1) == 0 && buf[0])
		d->columns = buf;
	else
		free(buf);
	char lc[32];
	unsigned k, nf;
	char end;
	if (hog_store_meta_get(s, "csv_label", lc, sizeof lc) == 0 && sscanf(lc, "%u/%u%c", &k, &nf, &end) == 2 &&
	    k < nf) { /* (damaged: unknown, nothing checked) */
		d->csv_label = k;
		d->csv_fields = nf;
	}
	unsigned v;
	if (hog_store_meta_get(s, "libsvm_base", lc, sizeof lc) == 0 && sscanf(lc, "%u%c", &v, &end) == 1 && v <= 1)
		d->libsvm_base = (uint8_t)(v + 1);
	if (hog_store_meta_get(s, "vw_bits", lc, sizeof lc) == 0 && sscanf(lc, "%u%c", &v, &end) == 1 && v >= 1 &&
	    v <= 31)
		d->vw_bits = v;
	int rc = load_class_names(s, d, err);
	if (!rc)
		rc = load_categories(s, d, err);
	if (rc)
		return rc;
	/* a split's half: which run of the split and which input (damaged or
	 * older split meta is no id: nothing to compare it with) */
	snprintf(d->origin, sizeof d->origin, "%016llx", (unsigned long long)hog_tools_from(s));
	hog_split_id id;
	char t[64];
	if (hog_split_id_get(s, &id) == 0) {
		hog_split_id_text(&id, t, sizeof t);
		if (!(d->split = strdup(t)))
			return hog_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

int hog_data_load_header(hog_data **out, const char *path, hog_err *err)
{
	*out = NULL;
	hog_store *s;
	hog_data *d;
	int rc = data_open(path, &s, &d, err);
	if (rc)
		return rc;
	if ((rc = hog_data_load_extras(s, d, err))) {
		hog_data_free(d);
		d = NULL;
	}
	hog_store_close(s);
	*out = d;
	return rc;
}

/* count * size bytes and 4 more (so an empty array is not NULL), or NULL when
 * that overflows or memory is short; zeroed when asked. */
static void *array_alloc(uint64_t count, size_t size, int zero)
{
	size_t bytes;
	if (count > SIZE_MAX || __builtin_mul_overflow((size_t)count, size, &bytes) ||
	    __builtin_add_overflow(bytes, 4, &bytes))
		return NULL;
	void *p = zero ? calloc(1, bytes) : malloc(bytes);
	hog_huge_pages(p, bytes);
	return p;
}

struct load_state {
	hog_data *d;
	uint64_t at, nnz_at;
	int has_vals;
};

static int load_block(void *ud, const hog_block *b, hog_err *err)
{
	struct load_state *ls = ud;
	hog_data *d = ls->d;
	uint64_t i0 = ls->at, n = b->n;
	switch (b->kind) {
	case HOG_KIND_SPARSE:
		if (ls->nnz_at + b->nnz > d->nnz)
			return hog_err_set(err, HOG_ECORRUPT, "block %llu: more nonzeros than the data set's %llu",
			                   (unsigned long long)b->index, (unsigned long long)d->nnz);
		if (b->vals && !d->vals) {
			if (!(d->vals = array_alloc(d->nnz, sizeof *d->vals, 0)))
				return hog_err_set(err, ENOMEM, "out of memory for values");
			for (uint64_t j = 0; j < ls->nnz_at; j++)
				d->vals[j] = 1.0f;
		}
		memcpy(d->ids + ls->nnz_at, b->ids, b->nnz * 4);
		if (d->vals) {
			if (b->vals)
				memcpy(d->vals + ls->nnz_at, b->vals, b->nnz * 4);
			else
				for (uint64_t j = 0; j < b->nnz; j++)
					d->vals[ls->nnz_at + j] = 1.0f;
		}
		for (uint64_t i = 0; i < n; i++)
			d->offsets[i0 + i + 1] = ls->nnz_at + b->offsets[i + 1];
		ls->nnz_at += b->nnz;
		__attribute__((fallthrough)); /* labels, as for dense */
	case HOG_KIND_DENSE:
		if (d->meta.task == HOG_TASK_BINARY)
			for (uint64_t i = 0; i < n; i++)
				d->labels[i0 + i] = b->labels[i] > 0 ? 1.0f : -1.0f;
		else
			memcpy(d->labels + i0, b->labels, n * 4);
		if (b->kind == HOG_KIND_DENSE) {
			size_t m = (size_t)n * b->cols;
			float *x = d->x + i0 * d->dim;
			if (b->xu8)
				for (size_t j = 0; j < m; j++)
					x[j] = b->xu8[j] * b->scale;
			else
				memcpy(x, b->xf, m * 4);
		}
		break;
	case HOG_KIND_RATINGS:
		memcpy(d->users + i0, b->users, n * 4);
		memcpy(d->items + i0, b->items, n * 4);
		memcpy(d->ratings + i0, b->ratings, n * 4);
		break;
	}
	if (d->weights) {
		if (b->weights)
			memcpy(d->weights + i0, b->weights, n * 4);
		else
			for (uint64_t i = 0; i < n; i++)
				d->weights[i0 + i] = 1.0f;
	}
	if (d->meta.task == HOG_TASK_MULTICLASS && b->labels)
		for (uint64_t i = 0; i < n; i++) {
			float y = b->labels[i];
			if (y < 0 || y >= d->meta.classes || y != (float)(uint32_t)y)
				return hog_err_set(err, HOG_ECORRUPT, "block %llu, example %llu: class %g out of 0..%u",
				                   (unsigned long long)b->index, (unsigned long long)(i0 + i), y,
				                   d->meta.classes - 1);
		}
	ls->at += n;
	return 0;
}

/* Loading in parallel: one pass over the cursor collects every block's place and
 * header counts (and makes the rare aligned copy); then threads check and copy
 * disjoint blocks into their final places. The lowest damaged block is the one
 * reported, so messages do not depend on timing. */
typedef struct load_job {
	hog_store *s;
	hog_data *d;
	const void **ptr;
	size_t *len;
	const unsigned char *mapped; /* block i is read in the map (not an aligned copy) */
	uint64_t *ex_at, *nnz_at, nblocks;
	unsigned k, T;
	uint64_t bad;    /* lowest failing block, UINT64_MAX if none */
	int rc;
	hog_err err;
} load_job;

static void *load_worker(void *arg)
{
	load_job *j = arg;
	j->bad = UINT64_MAX;
	hog_blockbuf bb = { 0 }; /* this thread's packed blocks, decoded then copied */
	for (uint64_t i = j->k; i < j->nblocks; i += j->T) {
		hog_block b;
		hog_err e = { 0 };
		int rc = hog_block_decode(j->ptr[i], j->len[i], i, j->ex_at[i], &j->s->meta, &b, &bb, &e);
		if (!rc) {
			struct load_state ls = { .d = j->d, .at = j->ex_at[i], .nnz_at = j->nnz_at[i] };
			rc = load_block(&ls, &b, &e);
		}
		/* copied: its pages of the map leave the resident set, or loading holds
		 * the data set twice at its peak (the map and the arrays) */
		if (!rc && j->mapped[i])
			hog_map_release(j->ptr[i], j->len[i]);
		if (rc) {
			j->bad = i;
			j->rc = rc;
			j->err = e;
			break; /* later blocks of this thread have higher numbers */
		}
	}
	hog_blockbuf_free(&bb);
	return NULL;
}

/* Returns 0 (loaded), a negative/errno code (error in err), or 1 when the block
 * headers' counts do not add up to the meta data: the caller then reads in order,
 * which names the damaged block precisely. */
static int load_parallel(hog_store *s, hog_data *d, const char *path, hog_err *err)
{
	uint64_t nb = s->meta.blocks;
	const void **ptr = calloc(nb + 1, sizeof *ptr);
	size_t *len = calloc(nb + 1, sizeof *len);
	uint64_t *ex_at = calloc(nb + 1, sizeof *ex_at), *nnz_at = calloc(nb + 1, sizeof *nnz_at);
	unsigned char *mapped = calloc(nb + 1, 1);
	int rc = 0, any_vals = 0;
	if (!ptr || !len || !ex_at || !nnz_at || !mapped) {
		rc = hog_err_set(err, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	MDB_cursor *cur;
	if ((rc = mdb_cursor_open(s->txn, s->blocks_dbi, &cur))) {
		rc = hog_err_lmdb(err, rc, "reading blocks", path);
		goto out;
	}
	MDB_val k, v;
	uint64_t i = 0, ex = 0, nz = 0;
	for (int c = mdb_cursor_get(cur, &k, &v, MDB_FIRST); c == 0; c = mdb_cursor_get(cur, &k, &v, MDB_NEXT), i++) {
		unsigned char kb[8];
		hog_block_key(i, kb);
		uint32_t n, flags;
		uint64_t m;
		if (i >= nb || k.mv_size != 8 || memcmp(k.mv_data, kb, 8) != 0 ||
		    hog_block_peek(v.mv_data, v.mv_size, &n, NULL, &m, &flags) != 0) {
			rc = 1;
			break;
		}
		const void *p = store_aligned(s, &v, i);
		if (!p) {
			rc = hog_err_set(err, ENOMEM, "%s: out of memory", path);
			break;
		}
		ptr[i] = p;
		len[i] = v.mv_size;
		mapped[i] = p == v.mv_data;
		ex_at[i] = ex;
		nnz_at[i] = nz;
		ex += n;
		if (d->meta.kind == HOG_KIND_SPARSE) {
			nz += m;
			any_vals |= (flags & HOG_BLOCK_F_VALUES) != 0;
		}
	}
	mdb_cursor_close(cur);
	if (!rc && (i != nb || ex != d->n || (d->meta.kind == HOG_KIND_SPARSE && nz != d->nnz)))
		rc = 1;
	if (rc)
		goto out;
	if (any_vals && !(d->vals = array_alloc(d->nnz, sizeof *d->vals, 0))) {
		rc = hog_err_set(err, ENOMEM, "%s: out of memory for values", path);
		goto out;
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned T = (unsigned)(ncpu < 1 ? 1 : ncpu > 8 ? 8 : ncpu);
	if (T > nb)
		T = nb ? (unsigned)nb : 1;
	load_job jobs[8];
	pthread_t th[8];
	unsigned started = 0;
	for (unsigned t = 0; t < T; t++) {
		jobs[t] = (load_job){ .s = s, .d = d, .ptr = ptr, .len = len, .mapped = mapped, .ex_at = ex_at, .nnz_at = nnz_at,
		                      .nblocks = nb, .k = t, .T = T };
		if (t == 0 || pthread_create(&th[t], NULL, load_worker, &jobs[t]) != 0)
			continue; /* thread 0 is this one; a refused thread's blocks are done below */
		started |= 1u << t;
	}
	load_worker(&jobs[0]);
	for (unsigned t = 1; t < T; t++) {
		if (started & (1u << t))
			pthread_join(th[t], NULL);
		else
			load_worker(&jobs[t]);
	}
	uint64_t worst = UINT64_MAX;
	for (unsigned t = 0; t < T; t++)
		if (jobs[t].bad < worst) {
			worst = jobs[t].bad;
			rc = jobs[t].rc;
			if (err)
				*err = jobs[t].err;
		}
	if (worst != UINT64_MAX && strncmp(err ? err->msg : "", path, strlen(path)) != 0)
		hog_err_prefix(err, "%s", path);
out:
	free(ptr);
	free(len);
	free(mapped);
	free(ex_at);
	free(nnz_at);
	return rc;
}

int hog_data_load(hog_data **out, const char *path, hog_err *err)
{
	*out = NULL;
	hog_store *s;
	hog_data *d;
	int rc = data_open(path, &s, &d, err);
	if (rc)
		return rc;
	/* the counts were checked against the blocks at open; the sizes are still
	 * computed overflow-safe, a wrapped size being a heap overflow */
	uint64_t n = d->n, cells = 0;
	int oom = 0;
	switch (d->meta.kind) {
	case HOG_KIND_SPARSE:
		oom = !(d->labels = array_alloc(n, 4, 0)) || !(d->offsets = array_alloc(n + 1, 8, 1)) ||
		      !(d->ids = array_alloc(d->nnz, 4, 0));
		break;
	case HOG_KIND_DENSE:
		oom = __builtin_mul_overflow(n, d->dim, &cells) || !(d->labels = array_alloc(n, 4, 0)) ||
		      !(d->x = array_alloc(cells, 4, 0));
		break;
	case HOG_KIND_RATINGS:
		oom = !(d->users = array_alloc(n, 4, 0)) || !(d->items = array_alloc(n, 4, 0)) ||
		      !(d->ratings = array_alloc(n, 4, 0));
		break;
	}
	if (d->meta.weighted && !oom)
		oom = !(d->weights = array_alloc(n, 4, 0));
	if (oom) {
		rc = hog_err_set(err, ENOMEM, "%s: out of memory loading %llu examples", path, (unsigned long long)n);
		goto fail;
	}
	if ((rc = hog_data_load_extras(s, d, err)))
		goto fail;
	if ((rc = load_parallel(s, d, path, err)) <= 0) { /* > 0: counts disagree, read in order */
		if (rc)
			goto fail;
		hog_store_close(s);
		*out = d;
		return 0;
	}
	if (d->vals) { /* the sequential reader allocates values itself */
		free(d->vals);
		d->vals = NULL;
	}
	struct load_state ls = { .d = d };
	if ((rc = store_each(s, load_block, &ls, err)) != 0) {
		if (strncmp(err ? err->msg : "", path, strlen(path)) != 0)
			hog_err_prefix(err, "%s", path);
		goto fail;
	}
	if (d->meta.kind == HOG_KIND_SPARSE && ls.nnz_at != d->nnz) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: blocks hold %llu nonzeros, meta says %llu", path,
		                 (unsigned long long)ls.nnz_at, (unsigned long long)d->nnz);
		goto fail;
	}
	hog_store_close(s);
	*out = d;
	return 0;
fail:
	hog_store_close(s);
	hog_data_free(d);
	return rc;
}

void hog_data_free(hog_data *d)
{
	if (!d)
		return;
	free(d->labels);
	free(d->offsets);
	free(d->ids);
	free(d->vals);
	free(d->users);
	free(d->items);
	free(d->ratings);
	free(d->weights);
	free(d->x);
	free(d->user_ids);
	free(d->item_ids);
	free(d->columns);
	free(d->class_names);
	free(d->categories);
	free(d->split);
	free(d);
}
