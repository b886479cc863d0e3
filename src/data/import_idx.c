/* The idx importer: MNIST and Fashion-MNIST come as two idx files (LeCun's
 * format), an images file (magic 0x00000803: unsigned bytes, 3 dimensions
 * n x rows x cols, big-endian counts) and a labels file (magic 0x00000801: n
 * class bytes), each plain or gzip. They may be given in either order: the magic
 * says which is which. Both are streamed side by side a block of examples at a
 * time, never held whole, into a dense data set of bytes scaled by 1/255. The
 * headers are checked against each other and against the data: a file that ends
 * early or goes on after the last example is an error, so a truncated download
 * cannot pass for a smaller data set. */
#include "data/import.h"
#include "sys/err.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDX_MAGIC_IMAGES 0x00000803u
#define IDX_MAGIC_LABELS 0x00000801u
#define IDX_PIXELS_MAX (1u << 24)
/* Images read per chunk stay under this many bytes (and within one block). */
#define IDX_CHUNK_BYTES ((size_t)4 << 20)

/* One of the two inputs. */
typedef struct idx_file {
	hog_input in;
	int open;
	uint32_t magic, n, rows, cols;
} idx_file;

static uint32_t idx_be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Reads exactly @p n bytes of a header; short input is an error naming @p what. */
static int idx_read_header(idx_file *f, unsigned char *buf, size_t n, hog_err *err)
{
	size_t got;
	int rc = hog_input_read(&f->in, buf, n, &got, err);
	if (rc)
		return rc;
	if (got < n)
		return hog_err_set(err, HOG_EDATA, "%s: file ends inside the idx header (%zu bytes)",
		                   f->in.path, got);
	return 0;
}

/* Opens an input and reads its header, whichever kind of idx file it is. */
static int idx_open(idx_file *f, const char *path, size_t max_line, hog_err *err)
{
	int rc = hog_input_open(&f->in, path, max_line, err);
	if (rc)
		return rc;
	f->open = 1;
	unsigned char h[12];
	if ((rc = idx_read_header(f, h, 8, err)))
		return rc;
	f->magic = idx_be32(h);
	f->n = idx_be32(h + 4);
	if (f->magic == IDX_MAGIC_LABELS)
		return 0;
	if (f->magic != IDX_MAGIC_IMAGES)
		return hog_err_set(err, HOG_EDATA, "%s: magic number 0x%08x is not that of an idx images "
		                   "(0x%08x) or labels (0x%08x) file of unsigned bytes", path, f->magic,
		                   IDX_MAGIC_IMAGES, IDX_MAGIC_LABELS);
	if ((rc = idx_read_header(f, h, 8, err)))
		return rc;
	f->rows = idx_be32(h);
	f->cols = idx_be32(h + 4);
	if (f->rows == 0 || f->cols == 0 || (uint64_t)f->rows * f->cols > IDX_PIXELS_MAX)
		return hog_err_set(err, HOG_EDATA, "%s: images of %u x %u pixels (1 to 2^24 pixels expected)",
		                   path, f->rows, f->cols);
	return 0;
}

/* Reads @p n examples' bytes; fewer means the file ends before its header says. */
static int idx_read(idx_file *f, void *dst, size_t n, size_t unit, uint64_t done, hog_err *err)
{
	size_t got;
	int rc = hog_input_read(&f->in, dst, n, &got, err);
	if (rc)
		return rc;
	if (got < n)
		return hog_err_set(err, HOG_EDATA, "%s: header says %u %s but data ends after %llu", f->in.path,
		                   f->n, f->magic == IDX_MAGIC_IMAGES ? "images" : "labels",
		                   (unsigned long long)(done + got / unit));
	return 0;
}

/* After the last example there must be nothing more. */
static int idx_check_end(idx_file *f, hog_err *err)
{
	unsigned char extra[64];
	size_t got;
	int rc = hog_input_read(&f->in, extra, sizeof extra, &got, err);
	if (rc)
		return rc;
	if (got)
		return hog_err_set(err, HOG_EDATA, "%s: data goes on after the %u %s the header says "
		                   "(trailing bytes at offset %llu)", f->in.path, f->n,
		                   f->magic == IDX_MAGIC_IMAGES ? "images" : "labels",
		                   (unsigned long long)(f->magic == IDX_MAGIC_IMAGES
		                       ? 16 + (uint64_t)f->n * f->rows * f->cols : 8 + (uint64_t)f->n));
	return 0;
}

/* Streams both files into the writer, a chunk of examples at a time. */
static int idx_copy(hog_import_ctx *c, idx_file *img, idx_file *lab, hog_writer *w, hog_err *err)
{
	size_t pixels = (size_t)img->rows * img->cols;
	size_t chunk = IDX_CHUNK_BYTES / pixels;
	uint32_t bmax = c->o->block_examples ? c->o->block_examples : HOG_BLOCK_EXAMPLES;
	if (chunk > bmax)
		chunk = bmax;
	if (chunk == 0)
		chunk = 1;
	unsigned char *x = malloc(chunk * pixels), *y = malloc(chunk);
	int rc = 0;
	if (!x || !y) {
		rc = hog_err_set(err, ENOMEM, "out of memory");
		goto done;
	}
	uint64_t since_progress = 0;
	for (uint64_t at = 0; at < img->n;) {
		size_t k = img->n - at < chunk ? (size_t)(img->n - at) : chunk;
		if ((rc = idx_read(img, x, k * pixels, pixels, at, err)) ||
		    (rc = idx_read(lab, y, k, 1, at, err)))
			goto done;
		for (size_t i = 0; i < k; i++)
			if ((rc = hog_writer_add_dense(w, (float)y[i], NULL, x + i * pixels, err))) {
				hog_err_prefix(err, "%s: image %llu", img->in.path, (unsigned long long)(at + i));
				goto done;
			}
		at += k;
		if ((since_progress += k * pixels) > (8u << 20)) {
			since_progress = 0;
			hog_import_progress(c, &img->in);
		}
	}
	if (!(rc = idx_check_end(img, err)))
		rc = idx_check_end(lab, err);
done:
	free(x);
	free(y);
	return rc;
}

int hog_import_idx(hog_import_ctx *c, hog_err *err)
{
	if (c->nin != 2)
		return hog_err_set(err, HOG_ECONFIG, "idx: expected two files (images and labels), got %d", c->nin);
	idx_file f[2];
	memset(f, 0, sizeof f);
	hog_writer *w = NULL;
	int rc = 0;
	for (int i = 0; i < 2 && !rc; i++)
		rc = idx_open(&f[i], c->in[i], c->o->max_line, err);
	if (rc)
		goto done;
	if (f[0].magic == f[1].magic) {
		rc = hog_err_set(err, HOG_EDATA, "%s, %s: both are idx %s files; one images and one labels file "
		                 "are needed", c->in[0], c->in[1], f[0].magic == IDX_MAGIC_IMAGES ? "images" : "labels");
		goto done;
	}
	idx_file *img = f[0].magic == IDX_MAGIC_IMAGES ? &f[0] : &f[1];
	idx_file *lab = img == &f[0] ? &f[1] : &f[0];
	if (img->n != lab->n) {
		rc = hog_err_set(err, HOG_EDATA, "%s has %u images but %s has %u labels", img->in.path, img->n,
		                 lab->in.path, lab->n);
		goto done;
	}
	if (img->n == 0) {
		rc = hog_err_set(err, HOG_EDATA, "%s: no examples in the input (the header says 0 images)",
		                 img->in.path);
		goto done;
	}
	char src[256], num[32];
	hog_import_source(c, src, sizeof src);
	hog_writer_opts wo = { .kind = HOG_KIND_DENSE, .task = c->o->task ? c->o->task : HOG_TASK_MULTICLASS,
	                       .features = (uint64_t)img->rows * img->cols, .block_examples = c->o->block_examples,
	                       .value_precision = c->o->value_precision, .raw_blocks = c->o->raw_blocks,
	                       .dense_u8 = 1, .dense_scale = 1 / 255.f, .source = src };
	if ((rc = hog_writer_open(&w, c->out, &wo, err)))
		goto done;
	snprintf(num, sizeof num, "%u", img->rows);
	if ((rc = hog_writer_meta_set(w, "rows", num, err)))
		goto done;
	snprintf(num, sizeof num, "%u", img->cols);
	if ((rc = hog_writer_meta_set(w, "cols", num, err)) || (rc = idx_copy(c, img, lab, w, err)))
		goto done;
	rc = hog_writer_commit(w, err);
	w = NULL; /* committed or aborted by the commit */
done:
	hog_writer_abort(w);
	for (int i = 0; i < 2; i++) {
		if (f[i].open) {
			c->done_bytes += f[i].in.size;
			hog_input_close(&f[i].in);
		}
	}
	return rc;
}
