/* A data set read a chunk of examples at a time (hog_chunks_open()): what
 * eval, predict and a streamed training run's test set read instead of
 * hog_data_load() when the set need not (or cannot) be in memory whole. Each
 * chunk is a hog_data of its own, decoded as hog_data_load() decodes (binary
 * labels -1/+1, u8 rows scaled to floats, missing values 1), in buffers reused
 * from chunk to chunk, so memory is one chunk's whatever the set's size. The
 * chunks cut the set at fixed example counts, not at blocks: a consumer that
 * works in batches from the set's start (the mlp's 256 rows) sees the same
 * batches as on the whole set. */
#include "data/store.h"
#include "sys/err.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct hog_chunks {
	hog_store *s;
	hog_data *head;     /* meta, id maps, columns, split; no examples */
	hog_data chunk;     /* the current chunk (its arrays are the buffers below) */
	uint64_t want;      /* examples per chunk */
	uint64_t at;        /* examples handed out so far */
	uint64_t first;     /* global index of the current chunk's first example */
	uint64_t next_block;
	uint32_t off;       /* examples of b already copied */
	int have;           /* b holds a block */
	hog_block b;
	hog_blockbuf bb;    /* a packed block's decoded arrays (b points into it until the next block) */
	uint64_t cap_n, cap_nnz;
	float *vbuf;        /* values (chunk.vals points here when the chunk has any) */
	char *path;
};

/* Grows *p to hold @p count items of @p size (and 4 bytes more). */
static int grow(void *p, uint64_t count, size_t size)
{
	size_t bytes;
	if (count > SIZE_MAX || __builtin_mul_overflow((size_t)count, size, &bytes) ||
	    __builtin_add_overflow(bytes, 4, &bytes))
		return ENOMEM;
	void *q = realloc(*(void **)p, bytes);
	if (!q)
		return ENOMEM;
	*(void **)p = q;
	return 0;
}

int hog_chunks_open(hog_chunks **out, const char *path, uint64_t examples, hog_err *err)
{
	*out = NULL;
	hog_chunks *c = calloc(1, sizeof *c);
	if (!c)
		return hog_err_set(err, ENOMEM, "out of memory");
	if (!(c->path = strdup(path))) {
		free(c);
		return hog_err_set(err, ENOMEM, "out of memory");
	}
	int rc = hog_data_load_header(&c->head, path, err);
	if (!rc)
		rc = hog_store_open(&c->s, path, err);
	if (rc) {
		hog_chunks_close(c);
		return rc;
	}
	c->want = examples ? examples : hog_chunks_size(&c->head->meta, 8u << 20);
	c->chunk.meta = c->head->meta;
	c->chunk.dim = c->head->dim;
	*out = c;
	return 0;
}

hog_data *hog_chunks_header(hog_chunks *c)
{
	return c->head;
}

void hog_chunks_rewind(hog_chunks *c)
{
	if (c->have)
		hog_store_release(c->s, &c->b);
	c->have = 0;
	c->next_block = c->at = c->first = 0;
	c->off = 0;
}

void hog_chunks_resize(hog_chunks *c, uint64_t examples)
{
	if (examples)
		c->want = examples;
}

uint64_t hog_chunks_first(const hog_chunks *c)
{
	return c->first;
}

/* Makes room in the chunk for @p n examples. */
static int chunk_room(hog_chunks *c, uint64_t n)
{
	hog_data *d = &c->chunk;
	if (n <= c->cap_n)
		return 0;
	const hog_meta *m = &c->head->meta;
	uint64_t cells;
	int rc = 0;
	switch (m->kind) {
	case HOG_KIND_SPARSE:
		rc = grow(&d->labels, n, 4) || grow(&d->offsets, n + 1, 8);
		break;
	case HOG_KIND_DENSE:
		rc = grow(&d->labels, n, 4) || __builtin_mul_overflow(n, d->dim, &cells) || grow(&d->x, cells, 4);
		break;
	case HOG_KIND_RATINGS:
		rc = grow(&d->users, n, 4) || grow(&d->items, n, 4) || grow(&d->ratings, n, 4);
		break;
	}
	if (!rc && m->weighted)
		rc = grow(&d->weights, n, 4);
	if (rc)
		return ENOMEM;
	c->cap_n = n;
	return 0;
}

/* Copies examples [off, off + k) of block @p b to the chunk's example @p i. */
static int copy_part(hog_chunks *c, const hog_block *b, uint32_t off, uint32_t k, uint64_t i, hog_err *err)
{
	hog_data *d = &c->chunk;
	const hog_meta *m = &c->head->meta;
	switch (b->kind) {
	case HOG_KIND_SPARSE: {
		uint64_t z0 = b->offsets[off], z = b->offsets[off + k] - z0, at = d->nnz;
		if (at + z > c->cap_nnz) {
			uint64_t cap = (at + z) * 2;
			if (grow(&d->ids, cap, 4) || grow(&c->vbuf, cap, 4))
				return hog_err_set(err, ENOMEM, "out of memory for a chunk of %llu nonzeros",
				                   (unsigned long long)(at + z));
			c->cap_nnz = cap;
			if (d->vals)
				d->vals = c->vbuf;
		}
		if (b->vals && !d->vals) { /* the first values of the chunk: the rows before are all 1 */
			d->vals = c->vbuf;
			for (uint64_t j = 0; j < at; j++)
				d->vals[j] = 1.0f;
		}
		memcpy(d->ids + at, b->ids + z0, z * 4);
		if (d->vals) {
			if (b->vals)
				memcpy(d->vals + at, b->vals + z0, z * 4);
			else
				for (uint64_t j = 0; j < z; j++)
					d->vals[at + j] = 1.0f;
		}
		for (uint32_t r = 0; r < k; r++)
			d->offsets[i + r + 1] = at + (b->offsets[off + r + 1] - z0);
		d->nnz = at + z;
	}
		__attribute__((fallthrough)); /* labels, as for dense */
	case HOG_KIND_DENSE:
		if (m->task == HOG_TASK_BINARY)
			for (uint32_t r = 0; r < k; r++)
				d->labels[i + r] = b->labels[off + r] > 0 ? 1.0f : -1.0f;
		else
			memcpy(d->labels + i, b->labels + off, (size_t)k * 4);
		if (b->kind == HOG_KIND_DENSE) {
			size_t cells = (size_t)k * b->cols, from = (size_t)off * b->cols;
			float *x = d->x + i * d->dim;
			if (b->xu8)
				for (size_t j = 0; j < cells; j++)
					x[j] = b->xu8[from + j] * b->scale;
			else
				memcpy(x, b->xf + from, cells * 4);
		}
		break;
	case HOG_KIND_RATINGS:
		memcpy(d->users + i, b->users + off, (size_t)k * 4);
		memcpy(d->items + i, b->items + off, (size_t)k * 4);
		memcpy(d->ratings + i, b->ratings + off, (size_t)k * 4);
		break;
	}
	if (d->weights) {
		if (b->weights)
			memcpy(d->weights + i, b->weights + off, (size_t)k * 4);
		else
			for (uint32_t r = 0; r < k; r++)
				d->weights[i + r] = 1.0f;
	}
	if (m->task == HOG_TASK_MULTICLASS && b->labels && !m->unlabelled) /* (unlabelled: not read) */
		for (uint32_t r = 0; r < k; r++) {
			float y = b->labels[off + r];
			if (y < 0 || y >= m->classes || y != (float)(uint32_t)y)
				return hog_err_set(err, HOG_ECORRUPT, "block %llu, example %llu: class %g out of 0..%u",
				                   (unsigned long long)b->index, (unsigned long long)(b->first + off + r), y,
				                   m->classes - 1);
		}
	return 0;
}

int hog_chunks_next(hog_chunks *c, hog_data **out, hog_err *err)
{
	*out = NULL;
	const hog_meta *m = &c->head->meta;
	uint64_t n = m->examples - c->at < c->want ? m->examples - c->at : c->want;
	if (!n)
		return 0;
	hog_data *d = &c->chunk;
	d->meta = c->head->meta; /* (as the caller's matching left it: hog_data_match_begin()) */
	d->dim = c->head->dim;
	if (chunk_room(c, n))
		return hog_err_set(err, ENOMEM, "%s: out of memory for a chunk of %llu examples", m->source,
		                   (unsigned long long)n);
	d->n = 0;
	d->nnz = 0;
	d->vals = NULL;
	if (d->offsets)
		d->offsets[0] = 0;
	while (d->n < n) {
		if (!c->have || c->off == c->b.n) {
			if (c->have)
				hog_store_release(c->s, &c->b);
			c->have = 0;
			if (c->next_block >= m->blocks)
				return hog_err_set(err, HOG_ECORRUPT, "%s: the blocks hold fewer examples than the meta data's %llu",
				                   c->path, (unsigned long long)m->examples);
			int rc = hog_store_block_buf(c->s, c->next_block, &c->b, &c->bb, err);
			if (rc) {
				if (strncmp(err ? err->msg : "", c->path, strlen(c->path)) != 0)
					hog_err_prefix(err, "%s", c->path);
				return rc;
			}
			c->next_block++;
			c->have = 1;
			c->off = 0;
			if (c->b.n == 0)
				continue;
		}
		uint32_t k = c->b.n - c->off;
		if (k > n - d->n)
			k = (uint32_t)(n - d->n);
		int rc = copy_part(c, &c->b, c->off, k, d->n, err);
		if (rc) {
			hog_err_prefix(err, "%s", c->path);
			return rc;
		}
		c->off += k;
		d->n += k;
	}
	c->first = c->at;
	c->at += n;
	*out = d;
	return 0;
}

void hog_chunks_close(hog_chunks *c)
{
	if (!c)
		return;
	if (c->have)
		hog_store_release(c->s, &c->b);
	hog_store_close(c->s);
	hog_blockbuf_free(&c->bb);
	hog_data_free(c->head);
	hog_data *d = &c->chunk;
	d->vals = NULL;
	free(c->vbuf);
	free(d->labels);
	free(d->offsets);
	free(d->ids);
	free(d->users);
	free(d->items);
	free(d->ratings);
	free(d->weights);
	free(d->x);
	free(c->path);
	free(c);
}

uint64_t hog_chunks_size(const hog_meta *m, uint64_t bytes)
{
	uint64_t per = 16; /* label, weight, offset */
	if (m->kind == HOG_KIND_SPARSE && m->examples)
		per += 8 * (m->nnz / m->examples + 1);
	else if (m->kind == HOG_KIND_DENSE)
		per += 4 * m->features;
	uint64_t n = bytes / per;
	n -= n % 256; /* whole batches of the mlp's prediction */
	return n < 256 ? 256 : n;
}
