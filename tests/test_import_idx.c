/* Tests of the idx importer (src/data/import_idx.c): MNIST-shaped files built at
 * test time, plain and gzip, in either order; every pixel and label read back
 * both through hog_data_load (scaled floats) and through the store's blocks (the
 * bytes themselves); and every way the two headers can disagree with each other
 * or with the data, each failing with the file named and no output left. */
#include "hogwild.h"
#include "util.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void idx_be(unsigned char *b, uint32_t v)
{
	b[0] = (unsigned char)(v >> 24);
	b[1] = (unsigned char)(v >> 16);
	b[2] = (unsigned char)(v >> 8);
	b[3] = (unsigned char)v;
}

/* An images file of @p n images (header count @p hn) with @p extra bytes after. */
static unsigned char *idx_images(uint32_t hn, uint32_t n, uint32_t rows, uint32_t cols, size_t extra,
                                 uint64_t seed, size_t *len)
{
	size_t body = (size_t)n * rows * cols;
	unsigned char *b = malloc(16 + body + extra);
	if (!b)
		abort();
	idx_be(b, 0x803);
	idx_be(b + 4, hn);
	idx_be(b + 8, rows);
	idx_be(b + 12, cols);
	for (size_t k = 0; k < body + extra; k++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		b[16 + k] = (seed >> 60) < 6 ? 0 : (unsigned char)(seed >> 40);
	}
	*len = 16 + body + extra;
	return b;
}

/* A labels file of @p n labels (header count @p hn) with @p extra bytes after. */
static unsigned char *idx_labels(uint32_t hn, uint32_t n, size_t extra, uint64_t seed, size_t *len)
{
	unsigned char *b = malloc(8 + n + extra);
	if (!b)
		abort();
	idx_be(b, 0x801);
	idx_be(b + 4, hn);
	for (size_t k = 0; k < n + extra; k++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		b[8 + k] = (unsigned char)((seed >> 33) % 10);
	}
	*len = 8 + n + extra;
	return b;
}

static int idx_import(const char *a, const char *b, const char *out, uint32_t block, hog_err *err)
{
	const char *in[2] = { a, b };
	hog_import_opts o = { .format = HOG_FORMAT_IDX, .block_examples = block };
	memset(err, 0, sizeof *err);
	return hog_import(in, b ? 2 : 1, out, &o, err);
}

/* The data set at @p out holds exactly these images and labels. */
static void idx_check(const char *out, const unsigned char *img, const unsigned char *lab, uint32_t n,
                      uint32_t rows, uint32_t cols, uint32_t block)
{
	size_t m = (size_t)rows * cols;
	hog_err err;
	hog_data *d = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, out, &err), 0);
	CU_ASSERT_EQUAL(d->meta.kind, HOG_KIND_DENSE);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_MULTICLASS);
	CU_ASSERT_EQUAL(d->meta.dense_u8, 1);
	CU_ASSERT_EQUAL(d->meta.dense_scale, 1 / 255.f);
	CU_ASSERT_EQUAL(d->n, n);
	CU_ASSERT_EQUAL(d->dim, m);
	CU_ASSERT_EQUAL(d->meta.blocks, (n + block - 1) / block);
	unsigned maxl = 0;
	int bad = 0;
	for (uint32_t i = 0; i < n; i++) {
		bad += d->labels[i] != (float)lab[8 + i];
		maxl = lab[8 + i] > maxl ? lab[8 + i] : maxl;
		for (size_t j = 0; j < m; j++)
			bad += d->x[i * m + j] != img[16 + i * m + j] * (1 / 255.f);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(d->meta.classes, maxl + 1);
	hog_data_free(d);

	hog_store *s;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, out, &err), 0);
	char buf[32];
	CU_ASSERT_EQUAL(hog_store_meta_get(s, "rows", buf, sizeof buf), 0);
	CU_ASSERT_EQUAL(strtoul(buf, NULL, 10), rows);
	CU_ASSERT_EQUAL(hog_store_meta_get(s, "cols", buf, sizeof buf), 0);
	CU_ASSERT_EQUAL(strtoul(buf, NULL, 10), cols);
	uint64_t seen = 0;
	for (uint64_t k = 0; k < hog_store_meta(s)->blocks; k++) {
		hog_block b;
		CU_ASSERT_EQUAL_FATAL(hog_store_block(s, k, &b, &err), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b.xu8);
		CU_ASSERT_EQUAL(b.first, seen);
		CU_ASSERT_EQUAL(b.cols, m);
		CU_ASSERT_EQUAL(memcmp(b.xu8, img + 16 + seen * m, (size_t)b.n * m), 0);
		seen += b.n;
	}
	CU_ASSERT_EQUAL(seen, n);
	hog_store_close(s);
}

static void test_idx_plain(void)
{
	size_t li, ll;
	unsigned char *img = idx_images(5, 5, 3, 4, 0, 1, &li), *lab = idx_labels(5, 5, 0, 2, &ll);
	char pi[512], pl[512];
	snprintf(pi, sizeof pi, "%s", tu_write("p-images-idx3-ubyte", img, li));
	snprintf(pl, sizeof pl, "%s", tu_write("p-labels-idx1-ubyte", lab, ll));
	hog_err err;
	const char *out = tu_path("p.hog");
	CU_ASSERT_EQUAL_FATAL(idx_import(pi, pl, out, 0, &err), 0);
	idx_check(out, img, lab, 5, 3, 4, HOG_BLOCK_EXAMPLES);
	hog_data *d;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, out, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(d->meta.source, "p-images-idx3-ubyte"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d->meta.source, "p-labels-idx1-ubyte"));
	hog_data_free(d);
	/* labels first, gzip, small blocks */
	snprintf(pi, sizeof pi, "%s", tu_write_gz("g-images.gz", img, li));
	snprintf(pl, sizeof pl, "%s", tu_write_gz("g-labels.gz", lab, ll));
	out = tu_path("g.hog");
	CU_ASSERT_EQUAL_FATAL(idx_import(pl, pi, out, 2, &err), 0);
	idx_check(out, img, lab, 5, 3, 4, 2);
	free(img);
	free(lab);
}

struct idx_progress { int calls; uint64_t last, total; int bad; };

static void idx_on_progress(void *ud, uint64_t done, uint64_t total)
{
	struct idx_progress *p = ud;
	p->bad += done < p->last || done > total || (p->calls && total != p->total);
	p->calls++;
	p->last = done;
	p->total = total;
}

/* MNIST's shape, more images than one block and one read chunk, over 8 MB so
 * that progress is reported. */
static void test_idx_mnist_shape(void)
{
	enum { N = 12000 };
	size_t li, ll;
	unsigned char *img = idx_images(N, N, 28, 28, 0, 3, &li), *lab = idx_labels(N, N, 0, 4, &ll);
	char pi[512], pl[512];
	snprintf(pi, sizeof pi, "%s", tu_write_gz("train-images-idx3-ubyte.gz", img, li));
	snprintf(pl, sizeof pl, "%s", tu_write("train-labels-idx1-ubyte", lab, ll));
	hog_err err;
	const char *out = tu_path("mnist.hog");
	struct idx_progress pr = { 0 };
	const char *in[2] = { pi, pl };
	hog_import_opts o = { .format = HOG_FORMAT_IDX, .progress = idx_on_progress, .progress_ud = &pr };
	CU_ASSERT_EQUAL_FATAL(hog_import(in, 2, out, &o, &err), 0);
	CU_ASSERT(pr.calls >= 1);
	CU_ASSERT_EQUAL(pr.bad, 0);
	idx_check(out, img, lab, N, 28, 28, HOG_BLOCK_EXAMPLES);
	uint64_t blocks = 0;
	CU_ASSERT_EQUAL(hog_store_verify(out, &blocks, &err), 0);
	CU_ASSERT_EQUAL(blocks, (N + HOG_BLOCK_EXAMPLES - 1) / HOG_BLOCK_EXAMPLES);
	free(img);
	free(lab);
}

/* Writes the two files (gzip when @p gz), imports them, and expects failure with
 * @p code, both @p what1 and @p what2 in the message, and no output file. */
static void idx_fails(const char *name, const unsigned char *a, size_t la, const unsigned char *b, size_t lb,
                      int gz, int code, const char *what1, const char *what2)
{
	char pa[512], pb[512], na[64], nb[64], out[512];
	snprintf(na, sizeof na, "%s-a", name);
	snprintf(nb, sizeof nb, "%s-b", name);
	snprintf(pa, sizeof pa, "%s", gz ? tu_write_gz(na, a, la) : tu_write(na, a, la));
	if (b)
		snprintf(pb, sizeof pb, "%s", gz ? tu_write_gz(nb, b, lb) : tu_write(nb, b, lb));
	snprintf(out, sizeof out, "%s", tu_path(name));
	hog_err err;
	int rc = idx_import(pa, b ? pb : NULL, out, 0, &err);
	CU_ASSERT_EQUAL(rc, code);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what1));
	if (what2)
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what2));
	if (rc != code || !strstr(err.msg, what1) || (what2 && !strstr(err.msg, what2)))
		fprintf(stderr, "\n%s: rc %d, got '%s'\n", name, rc, err.msg);
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	CU_ASSERT_EQUAL(tu_sh("ls '%s' | grep -q '^%s.tmp'", tu_dir(), name), 1);
}

static void test_idx_bad_sizes(void)
{
	size_t li, ll;
	unsigned char *img, *lab;
	/* the images header promises 6 but there are 4 */
	img = idx_images(6, 4, 5, 5, 0, 5, &li);
	lab = idx_labels(6, 6, 0, 6, &ll);
	idx_fails("t1", img, li, lab, ll, 0, HOG_EDATA, "t1-a: header says 6 images but data ends after 4", NULL);
	idx_fails("t1g", img, li, lab, ll, 1, HOG_EDATA, "t1g-a: header says 6 images but data ends after 4", NULL);
	/* a partial image at the end counts as missing */
	idx_fails("t2", img, li - 3, lab, ll, 0, HOG_EDATA, "t2-a: header says 6 images but data ends after 3", NULL);
	free(img);
	free(lab);
	/* labels cut short, files given labels first */
	img = idx_images(6, 6, 5, 5, 0, 5, &li);
	lab = idx_labels(6, 2, 0, 6, &ll);
	idx_fails("t3", lab, ll, img, li, 0, HOG_EDATA, "t3-a: header says 6 labels but data ends after 2", NULL);
	free(lab);
	/* trailing bytes after the images, then after the labels */
	lab = idx_labels(6, 6, 0, 6, &ll);
	free(img);
	img = idx_images(6, 6, 5, 5, 1, 5, &li);
	idx_fails("t4", img, li, lab, ll, 0, HOG_EDATA, "t4-a: data goes on after the 6 images", NULL);
	idx_fails("t4g", img, li, lab, ll, 1, HOG_EDATA, "t4g-a: data goes on after the 6 images", NULL);
	free(img);
	free(lab);
	img = idx_images(6, 6, 5, 5, 0, 5, &li);
	lab = idx_labels(6, 6, 10, 6, &ll);
	idx_fails("t5", img, li, lab, ll, 0, HOG_EDATA, "t5-b: data goes on after the 6 labels", NULL);
	free(lab);
	/* the two headers disagree */
	lab = idx_labels(7, 7, 0, 6, &ll);
	idx_fails("t6", img, li, lab, ll, 0, HOG_EDATA, "t6-a has 6 images but ", "t6-b has 7 labels");
	free(lab);
	free(img);
	/* zero images */
	img = idx_images(0, 0, 5, 5, 0, 5, &li);
	lab = idx_labels(0, 0, 0, 6, &ll);
	idx_fails("t7", img, li, lab, ll, 0, HOG_EDATA, "t7-a", "no examples");
	free(img);
	free(lab);
}

static void test_idx_bad_headers(void)
{
	size_t li, ll;
	unsigned char *img = idx_images(3, 3, 2, 2, 0, 7, &li), *lab = idx_labels(3, 3, 0, 8, &ll);
	/* wrong number of files */
	idx_fails("h1", img, li, NULL, 0, 0, HOG_ECONFIG, "two files", NULL);
	/* two images files, two labels files */
	idx_fails("h2", img, li, img, li, 0, HOG_EDATA, "h2-a", "both are idx images files");
	idx_fails("h3", lab, ll, lab, ll, 1, HOG_EDATA, "h3-a", "both are idx labels files");
	/* a bad magic number: a float idx file, and text */
	unsigned char *f = malloc(li);
	memcpy(f, img, li);
	f[2] = 0x0d;
	idx_fails("h4", f, li, lab, ll, 0, HOG_EDATA, "h4-a: magic number 0x00000d03", NULL);
	idx_fails("h5", lab, ll, (const unsigned char *)"hello, world\n", 13, 0, HOG_EDATA, "h5-b: magic", NULL);
	/* headers cut short */
	idx_fails("h6", img, 12, lab, ll, 0, HOG_EDATA, "h6-a: file ends inside the idx header", NULL);
	idx_fails("h7", img, li, lab, 5, 1, HOG_EDATA, "h7-b: file ends inside the idx header", NULL);
	idx_fails("h8", img, li, lab, 0, 0, HOG_EDATA, "h8-b: file ends inside the idx header", NULL);
	/* absurd image sizes */
	memcpy(f, img, li);
	idx_be(f + 8, 0);
	idx_fails("h9", f, li, lab, ll, 0, HOG_EDATA, "h9-a: images of 0 x 2 pixels", NULL);
	idx_be(f + 8, 5000);
	idx_be(f + 12, 5000);
	idx_fails("h10", f, li, lab, ll, 0, HOG_EDATA, "h10-a: images of 5000 x 5000 pixels", NULL);
	free(f);
	free(img);
	free(lab);
}

static void test_idx_bad_files(void)
{
	size_t li, ll;
	unsigned char *img = idx_images(2000, 2000, 28, 28, 0, 9, &li), *lab = idx_labels(2000, 2000, 0, 10, &ll);
	hog_err err;
	char dir[512], pi[512], pl[512];
	snprintf(dir, sizeof dir, "%s", tu_path("idxdir"));
	CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
	snprintf(pl, sizeof pl, "%s", tu_write("d-labels", lab, ll));
	const char *out = tu_path("idxdir.hog");
	CU_ASSERT_EQUAL(idx_import(dir, pl, out, 0, &err), EISDIR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "idxdir"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	/* a gzip images file cut in the middle */
	snprintf(pi, sizeof pi, "%s", tu_write_gz("cut-images.gz", img, li));
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(stat(pi, &st), 0);
	CU_ASSERT_EQUAL_FATAL(truncate(pi, st.st_size / 2), 0);
	out = tu_path("cut.hog");
	CU_ASSERT_EQUAL(idx_import(pi, pl, out, 0, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cut-images.gz"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gzip"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	free(img);
	free(lab);
}

int test_import_idx_register(void)
{
	CU_pSuite s = CU_add_suite("import_idx", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_idx_plain);
	TU_ADD(s, test_idx_mnist_shape);
	TU_ADD(s, test_idx_bad_sizes);
	TU_ADD(s, test_idx_bad_headers);
	TU_ADD(s, test_idx_bad_files);
	return 0;
}
