/* Tests of the CSV importer (src/data/import_csv.c): every label, id and value
 * read back after import, delimiter and header detection, the "columns" meta
 * entry, a random round trip checked against the LIBSVM importer on the same
 * numbers, and each kind of bad input failing with FILE:LINE:COLUMN and leaving
 * no output file behind. */
#include "hogwild.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int csv_import(const char *in, const char *out, const hog_import_opts *o, hog_err *err)
{
	hog_import_opts d = { .header = -1 };
	if (!o)
		o = &d;
	hog_import_opts x = *o;
	x.format = HOG_FORMAT_CSV;
	memset(err, 0, sizeof *err);
	return hog_import(&in, 1, out, &x, err);
}

static hog_data *csv_load(const char *path)
{
	hog_data *d = NULL;
	hog_err err = { 0 };
	int rc = hog_data_load(&d, path, &err);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "load %s: %s\n", path, err.msg);
	return d;
}

static void csv_meta_is(const char *path, const char *key, const char *want)
{
	hog_store *s;
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, path, &err), 0);
	char buf[4096];
	int rc = hog_store_meta_get(s, key, buf, sizeof buf);
	if (want) {
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_STRING_EQUAL(buf, want);
	} else {
		CU_ASSERT_EQUAL(rc, ENOENT);
	}
	hog_store_close(s);
}

/* Sparse row i of d is exactly the (id, value) pairs given. */
static void csv_row_is(const hog_data *d, uint64_t i, uint32_t nnz, const uint32_t *ids, const float *vals)
{
	CU_ASSERT_EQUAL_FATAL(d->offsets[i + 1] - d->offsets[i], nnz);
	for (uint32_t j = 0; j < nnz; j++) {
		uint64_t at = d->offsets[i] + j;
		CU_ASSERT_EQUAL(d->ids[at], ids[j]);
		CU_ASSERT_EQUAL(d->vals ? d->vals[at] : 1.0f, vals[j]);
	}
}

static void test_csv_header_comma(void)
{
	const char *in = tu_write("h.csv", "y,a,b,c\n1,0,2.5,3\n0,1,0,0\n\n2, 0 ,0,-1\r\n", (size_t)-1);
	const char *out = tu_path("h.hog");
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, NULL, &err), 0);
	hog_data *d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->meta.kind, HOG_KIND_SPARSE);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_MULTICLASS);
	CU_ASSERT_EQUAL(d->meta.classes, 3);
	CU_ASSERT_EQUAL(d->n, 3);
	CU_ASSERT_EQUAL(d->dim, 3);
	CU_ASSERT_EQUAL(d->nnz, 4);
	CU_ASSERT_EQUAL(d->labels[0], 1.0f);
	CU_ASSERT_EQUAL(d->labels[1], 0.0f);
	CU_ASSERT_EQUAL(d->labels[2], 2.0f);
	csv_row_is(d, 0, 2, (uint32_t[]){ 1, 2 }, (float[]){ 2.5f, 3 });
	csv_row_is(d, 1, 1, (uint32_t[]){ 0 }, (float[]){ 1 });
	csv_row_is(d, 2, 1, (uint32_t[]){ 2 }, (float[]){ -1 });
	CU_ASSERT_PTR_NOT_NULL(strstr(d->meta.source, "h.csv"));
	hog_data_free(d);
	csv_meta_is(out, "columns", "y,a,b,c");
}

static void test_csv_label_last_tab(void)
{
	/* no header, tabs, label in the last column, regression labels */
	const char *in = tu_write("t.tsv", "0\t1.5\t0.25\n-2\t0\t3.75\n", (size_t)-1);
	const char *out = tu_path("t.hog");
	hog_import_opts o = { .header = -1, .label_col = -1 };
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &o, &err), 0);
	hog_data *d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_REGRESSION);
	CU_ASSERT_EQUAL(d->n, 2);
	CU_ASSERT_EQUAL(d->dim, 2);
	CU_ASSERT_EQUAL(d->labels[0], 0.25f);
	CU_ASSERT_EQUAL(d->labels[1], 3.75f);
	csv_row_is(d, 0, 1, (uint32_t[]){ 1 }, (float[]){ 1.5f });
	csv_row_is(d, 1, 1, (uint32_t[]){ 0 }, (float[]){ -2 });
	hog_data_free(d);
	csv_meta_is(out, "columns", NULL);
}

static void test_csv_middle_label_semicolon_blanks(void)
{
	/* semicolons detected; the label in column 1 */
	const char *in = tu_write("s.csv", "5;1;7\n0;0;8\n", (size_t)-1);
	const char *out = tu_path("s.hog");
	hog_import_opts o = { .header = 0, .label_col = 1 };
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &o, &err), 0);
	hog_data *d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL(d->labels[0], 1.0f);
	CU_ASSERT_EQUAL(d->labels[1], -1.0f); /* binary labels load as -1/+1 */
	csv_row_is(d, 0, 2, (uint32_t[]){ 0, 1 }, (float[]){ 5, 7 });
	csv_row_is(d, 1, 1, (uint32_t[]){ 1 }, (float[]){ 8 });
	hog_data_free(d);

	/* runs of blanks when there is no ',', tab or ';' */
	in = tu_write("w.txt", "  3 1e2   0\n4.5 0 -0.5  \n", (size_t)-1); /* (3 and 4 would be two classes) */
	out = tu_path("w.hog");
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, NULL, &err), 0);
	d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->n, 2);
	CU_ASSERT_EQUAL(d->labels[0], 3.0f);
	CU_ASSERT_EQUAL(d->labels[1], 4.5f);
	csv_row_is(d, 0, 1, (uint32_t[]){ 0 }, (float[]){ 100 });
	csv_row_is(d, 1, 1, (uint32_t[]){ 1 }, (float[]){ -0.5f });
	hog_data_free(d);

	/* an explicit delimiter, and a forced header that looks numeric (it names
	 * every column, none the label: the label is the last) */
	in = tu_write("p.txt", "1|2|3\n1|0|9\n", (size_t)-1);
	out = tu_path("p.hog");
	o = (hog_import_opts){ .header = 1, .delim = '|' };
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &o, &err), 0);
	d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->n, 1);
	CU_ASSERT_EQUAL(d->labels[0], 9.0f);
	csv_row_is(d, 0, 1, (uint32_t[]){ 0 }, (float[]){ 1 });
	hog_data_free(d);
	csv_meta_is(out, "columns", "1,2,3");
}

static void test_csv_quoted_header_gzip_blocks(void)
{
	char text[4096];
	size_t at = (size_t)snprintf(text, sizeof text, "\"label\",\"a,b\",\"say \"\"hi\"\"\"\n");
	for (int i = 0; i < 10; i++)
		at += (size_t)snprintf(text + at, sizeof text - at, "%d,%d,%d.5\n", i % 3, i, -i);
	const char *in = tu_write_gz("q.csv.gz", text, at);
	const char *out = tu_path("q.hog");
	hog_import_opts o = { .header = -1, .block_examples = 4 };
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &o, &err), 0);
	csv_meta_is(out, "columns", "label,a_b,say \"hi\"");
	hog_store *s;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, out, &err), 0);
	CU_ASSERT_EQUAL(hog_store_meta(s)->blocks, 3);
	CU_ASSERT_EQUAL(hog_store_meta(s)->examples, 10);
	hog_store_close(s);
	hog_data *d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (int i = 0; i < 10; i++) {
		CU_ASSERT_EQUAL(d->labels[i], (float)(i % 3));
		if (i == 0)
			csv_row_is(d, 0, 1, (uint32_t[]){ 1 }, (float[]){ 0.5f });
		else
			csv_row_is(d, (uint64_t)i, 2, (uint32_t[]){ 0, 1 }, (float[]){ (float)i, (float)-i - 0.5f });
	}
	hog_data_free(d);
}

/* A file that quotes every field (Python's csv.QUOTE_ALL, some databases'
 * exports): each field reads as what it quotes, the same set as unquoted. */
static void test_csv_quote_all(void)
{
	const char *plain = "a,b,y\n5.1,-3,setosa\n6.2,NA,versicolor\n0,1e3,setosa\n";
	const char *quoted = "\"a\",\"b\",\"y\"\n\"5.1\",\"-3\",\"setosa\"\n\"6.2\",\"NA\",\"versicolor\"\n"
	                     "\"0\",\"1e3\",\"setosa\"\n";
	hog_import_opts o = { .header = -1, .missing_zero = 1 };
	hog_err err;
	const char *outs[2] = { tu_path("qa-plain.hog"), tu_path("qa-quoted.hog") };
	CU_ASSERT_EQUAL_FATAL(csv_import(tu_write("qa-plain.csv", plain, (size_t)-1), outs[0], &o, &err), 0);
	CU_ASSERT_EQUAL_FATAL(csv_import(tu_write("qa-quoted.csv", quoted, (size_t)-1), outs[1], &o, &err), 0);
	hog_data *a = csv_load(outs[0]), *b = csv_load(outs[1]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL_FATAL(a->nnz, b->nnz);
	CU_ASSERT_EQUAL(b->nnz, 4); /* (NA and 0 are absent) */
	for (uint64_t j = 0; j < a->nnz; j++) {
		CU_ASSERT_EQUAL(a->ids[j], b->ids[j]);
		CU_ASSERT_EQUAL(a->vals[j], b->vals[j]);
	}
	for (uint64_t i = 0; i < a->n; i++)
		CU_ASSERT_EQUAL(a->labels[i], b->labels[i]);
	CU_ASSERT_STRING_EQUAL(b->columns, "a,b,y");
	hog_data_free(a);
	hog_data_free(b);
}

/* A very wide header is kept up to a name boundary, then ",...". */
static void test_csv_wide_header(void)
{
	enum { M = 3000 };
	size_t cap = (size_t)M * 16 + 64, at = 0;
	char *text = malloc(cap);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	at += (size_t)snprintf(text, cap, "label");
	for (int j = 0; j < M; j++)
		at += (size_t)snprintf(text + at, cap - at, ",column_%04d", j);
	at += (size_t)snprintf(text + at, cap - at, "\n1");
	for (int j = 0; j < M; j++)
		at += (size_t)snprintf(text + at, cap - at, ",%d", j % 2);
	text[at++] = '\n';
	const char *in = tu_write("wide.csv", text, at);
	const char *out = tu_path("wide.hog");
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, NULL, &err), 0);
	hog_store *s;
	CU_ASSERT_EQUAL_FATAL(hog_store_open(&s, out, &err), 0);
	CU_ASSERT_EQUAL(hog_store_meta(s)->features, M);
	CU_ASSERT_EQUAL(hog_store_meta(s)->nnz, M / 2);
	char *cols = malloc(65536);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cols);
	CU_ASSERT_EQUAL(hog_store_meta_get(s, "columns", cols, 65536), 0);
	size_t n = strlen(cols);
	CU_ASSERT(n > 8000 && n <= 16384 + 4);
	CU_ASSERT_EQUAL(strncmp(cols, "label,column_0000,column_0001,", 30), 0);
	CU_ASSERT_STRING_EQUAL(cols + n - 4, ",...");
	CU_ASSERT_EQUAL(strncmp(cols + n - 16, ",column_", 8), 0); /* the last name is whole */
	hog_store_close(s);
	free(cols);
	free(text);
}

static void test_csv_two_files(void)
{
	const char *in[2];
	char p0[512], p1[512];
	snprintf(p0, sizeof p0, "%s", tu_write("m0.csv", "y,x0,x1\n1,2,3\n", (size_t)-1));
	snprintf(p1, sizeof p1, "%s", tu_write("m1.csv", "y,x0,x1\n0,4,0\n", (size_t)-1));
	in[0] = p0;
	in[1] = p1;
	hog_import_opts o = { .format = HOG_FORMAT_CSV, .header = -1 };
	hog_err err;
	const char *out = tu_path("m.hog");
	CU_ASSERT_EQUAL_FATAL(hog_import(in, 2, out, &o, &err), 0);
	hog_data *d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->n, 2);
	csv_row_is(d, 0, 2, (uint32_t[]){ 0, 1 }, (float[]){ 2, 3 });
	csv_row_is(d, 1, 1, (uint32_t[]){ 0 }, (float[]){ 4 });
	hog_data_free(d);
	/* a second file with another number of columns */
	snprintf(p1, sizeof p1, "%s", tu_write("m2.csv", "0,4\n", (size_t)-1));
	out = tu_path("m2.hog");
	CU_ASSERT_EQUAL(hog_import(in, 2, out, &o, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "m2.csv:1:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected 3 fields, found 2"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	/* the same columns in another order: refused, not read by position */
	snprintf(p1, sizeof p1, "%s", tu_write("m3.csv", "y,x1,x0\n0,4,0\n", (size_t)-1));
	out = tu_path("m3.hog");
	CU_ASSERT_EQUAL(hog_import(in, 2, out, &o, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "m3.csv:1: this file's header differs from "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "m0.csv's: column 1 is 'x1' here and 'x0' there"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	/* the same header quoted: the same names */
	snprintf(p1, sizeof p1, "%s", tu_write("m4.csv", "\"y\",\"x0\",\"x1\"\n0,4,0\n", (size_t)-1));
	CU_ASSERT_EQUAL(hog_import(in, 2, tu_path("m4.hog"), &o, &err), 0);
}

/* Random rows written as CSV and as LIBSVM must import to the same data set. */
static void test_csv_round_trip_vs_libsvm(void)
{
	enum { N = 300, M = 17 };
	size_t cap = (size_t)N * M * 20 + 64;
	char *csv = malloc(cap), *svm = malloc(cap);
	float *x = malloc(sizeof(float) * N * M), y[N];
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(svm);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	uint64_t r = 12345;
	size_t a = 0, b = 0;
	for (int i = 0; i < N; i++) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		y[i] = (float)((r >> 33) % 1000) / 7.0f - 50;
		a += (size_t)snprintf(csv + a, cap - a, "%.9g", y[i]);
		b += (size_t)snprintf(svm + b, cap - b, "%.9g", y[i]);
		for (int j = 0; j < M; j++) {
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			float v = (r >> 60) < 10 ? 0.0f : (float)((int64_t)((r >> 20) % 2000000) - 1000000) / 1024.0f;
			x[i * M + j] = v;
			a += (size_t)snprintf(csv + a, cap - a, ",%.9g", v);
			if (v != 0)
				b += (size_t)snprintf(svm + b, cap - b, " %d:%.9g", j + 1, v);
		}
		csv[a++] = '\n';
		svm[b++] = '\n';
	}
	const char *pc = tu_write("rt.csv", csv, a);
	char pcs[512];
	snprintf(pcs, sizeof pcs, "%s", pc);
	const char *ps = tu_write("rt.svm", svm, b);
	hog_err err;
	hog_import_opts o = { .header = -1, .block_examples = 64 };
	CU_ASSERT_EQUAL_FATAL(csv_import(pcs, tu_path("rt-csv.hog"), &o, &err), 0);
	hog_import_opts ol = { .format = HOG_FORMAT_LIBSVM, .features = M, .block_examples = 64 };
	CU_ASSERT_EQUAL_FATAL(hog_import(&ps, 1, tu_path("rt-svm.hog"), &ol, &err), 0);
	hog_data *d = csv_load(tu_path("rt-csv.hog")), *e = csv_load(tu_path("rt-svm.hog"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(d->n, N);
	CU_ASSERT_EQUAL(d->dim, M);
	CU_ASSERT_EQUAL(d->nnz, e->nnz);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_REGRESSION);
	CU_ASSERT_EQUAL(d->meta.blocks, (N + 63) / 64);
	int bad = 0;
	for (int i = 0; i < N; i++) {
		bad += d->labels[i] != y[i] || e->labels[i] != y[i];
		bad += d->offsets[i + 1] != e->offsets[i + 1];
		uint64_t k = d->offsets[i];
		for (int j = 0; j < M && k <= d->offsets[i + 1]; j++) {
			if (x[i * M + j] == 0)
				continue;
			bad += k == d->offsets[i + 1] || d->ids[k] != (uint32_t)j || d->vals[k] != x[i * M + j];
			k++;
		}
		bad += k != d->offsets[i + 1];
	}
	for (uint64_t k = 0; k < d->nnz && k < e->nnz; k++)
		bad += d->ids[k] != e->ids[k] || d->vals[k] != e->vals[k];
	CU_ASSERT_EQUAL(bad, 0);
	hog_data_free(d);
	hog_data_free(e);
	uint64_t blocks = 0;
	CU_ASSERT_EQUAL(hog_store_verify(tu_path("rt-csv.hog"), &blocks, &err), 0);
	CU_ASSERT_EQUAL(blocks, (N + 63) / 64);
	free(csv);
	free(svm);
	free(x);
}

/* An import that must fail with @p code, a message containing @p where and
 * @p what, and no output file. */
static void csv_fails(const char *name, const char *text, const hog_import_opts *o, int code,
                      const char *where, const char *what)
{
	char in[512], out[520];
	snprintf(in, sizeof in, "%s", tu_write(name, text, (size_t)-1));
	snprintf(out, sizeof out, "%s.hog", in);
	hog_err err;
	int rc = csv_import(in, out, o, &err);
	CU_ASSERT_EQUAL(rc, code);
	CU_ASSERT_EQUAL(err.code, code);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, where));
	if (what)
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
	if (rc != code || !strstr(err.msg, where) || (what && !strstr(err.msg, what)))
		fprintf(stderr, "\n%s: rc %d, got '%s'\n", name, rc, err.msg);
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	/* no temporary file left beside it either */
	CU_ASSERT_EQUAL(tu_sh("ls '%s' | grep -q '%s.hog.tmp'", tu_dir(), name), 1);
}

static void test_csv_bad_values(void)
{
	csv_fails("b1.csv", "y,a,b\n1,2,3\n1,abc,3\n", NULL, HOG_EDATA, "b1.csv:3:3:", "expected a number");
	csv_fails("b2.csv", "1,2,3\n1,nan,3\n", NULL, HOG_EDATA, "b2.csv:2:3:", "not finite");
	csv_fails("b3.csv", "1,2,3\n1,2,inf\n", NULL, HOG_EDATA, "b3.csv:2:5:", "not finite");
	csv_fails("b4.csv", "1,2,3\nNaN,2,3\n", NULL, HOG_EDATA, "b4.csv:2:1:", "label");
	csv_fails("b5.csv", "1,2,3\n1,,3\n", NULL, HOG_EDATA, "b5.csv:2:3:", "no value in column 1 (''): a column of "
	          "numbers needs one on every line (--missing zero");
	csv_fails("b5b.csv", "1,2,3\n1,2,?\n", NULL, HOG_EDATA, "b5b.csv:2:5:", "no value in column 2 ('?')");
	csv_fails("b6.csv", "1,2,3\n1,2,1e39\n", NULL, HOG_EDATA, "b6.csv:2:5:", "not finite");
	csv_fails("b7.csv", "1,2,3\n1,2,3x\n", NULL, HOG_EDATA, "b7.csv:2:5:", "expected a number");
	csv_fails("b8.csv", "1,2,3\n1,2,\"3x\"\n", NULL, HOG_EDATA, "b8.csv:2:6:", "expected a number");
	csv_fails("b9.csv", "1,2,3\n1,2,3,\n", NULL, HOG_EDATA, "b9.csv:2:7:", "expected 3 fields, found 4");
	/* a header refused when the options say there is none */
	hog_import_opts o = { .header = 0 };
	/* ('y' the first label: a class name; 'a' a feature) */
	csv_fails("b10.csv", "y,a\n1,2\n", &o, HOG_EDATA, "b10.csv:1:3:", "a header line?");
}

/* --missing zero: a feature field with no value in a column of numbers is the
 * feature absent from the line, a column's first value too, NaN too; a label
 * with no value stays an error */
static void test_csv_missing_zero(void)
{
	const char *in = tu_write("mz.csv", "a,b,c,label\n1,2,3,0\n4,?,6,1\n7,8,,0\nNA,n/a,2.5,1\n", (size_t)-1);
	const char *out = tu_path("mz.lmdb");
	hog_import_opts o = { .header = -1, .missing_zero = 1 };
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &o, &err), 0);
	hog_data *d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->n, 4);
	CU_ASSERT_EQUAL(d->dim, 3);
	csv_row_is(d, 0, 3, (uint32_t[]){ 0, 1, 2 }, (float[]){ 1, 2, 3 });
	csv_row_is(d, 1, 2, (uint32_t[]){ 0, 2 }, (float[]){ 4, 6 });
	csv_row_is(d, 2, 2, (uint32_t[]){ 0, 1 }, (float[]){ 7, 8 });
	csv_row_is(d, 3, 1, (uint32_t[]){ 2 }, (float[]){ 2.5f });
	hog_data_free(d);
	/* NaN, as numpy and pandas write no value, is one too (any case); without the option an
	 * error that says so */
	in = tu_write("mzn.csv", "a,b,label\n1,nan,0\nNaN,3,1\n", (size_t)-1);
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &o, &err), 0);
	d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	csv_row_is(d, 0, 1, (uint32_t[]){ 0 }, (float[]){ 1 });
	csv_row_is(d, 1, 1, (uint32_t[]){ 1 }, (float[]){ 3 });
	hog_data_free(d);
	csv_fails("mzn2.csv", "a,b,label\n1,nan,0\n", NULL, HOG_EDATA, "mzn2.csv:2:3:",
	          "not finite (NaN marks no value? --missing zero reads it as 0");
	/* a column whose first value is missing, then numbers (an error without the option) */
	in = tu_write("mz2.csv", "a,b,label\nNA,2,0\n3,4,1\n", (size_t)-1);
	out = tu_path("mz2.lmdb");
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &o, &err), 0);
	d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	csv_row_is(d, 0, 1, (uint32_t[]){ 1 }, (float[]){ 2 });
	csv_row_is(d, 1, 2, (uint32_t[]){ 0, 1 }, (float[]){ 3, 4 });
	hog_data_free(d);
	unlink(out);
	hog_import_opts plain = { .header = -1 };
	CU_ASSERT_EQUAL(csv_import(in, out, &plain, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mz2.csv:3:1: a number in column 0 'a', which had no value at"));
	csv_fails("mz3.csv", "a,label\n1,0\n2,\n", &o, HOG_EDATA, "mz3.csv:3:3:",
	          "no label: column 1 'label' is empty (by its name;");
}

static void test_csv_bad_shape(void)
{
	csv_fails("c1.csv", "1,2,3\n4,5,6,7\n", NULL, HOG_EDATA, "c1.csv:2:7:", "expected 3 fields, found 4");
	csv_fails("c2.csv", "1,2,3\n4,5\n1,2,3\n", NULL, HOG_EDATA, "c2.csv:2:4:", "expected 3 fields, found 2");
	csv_fails("c3.txt", "1 2 3\n4 5\n", NULL, HOG_EDATA, "c3.txt:2:4:", "expected 3 fields, found 2");
	csv_fails("c4.csv", "a,b,c\n1,2\n", NULL, HOG_EDATA, "c4.csv:2:", "expected 3 fields, found 2 (the header's "
	          "count: a first line that is a title? --skip 1 passes over it)");
	/* a title line without separators (adult.test's "|1x3 Cross validator"): split at blanks */
	csv_fails("c4b.csv", "|1x3 Cross validator\n25,x,1\n", NULL, HOG_EDATA, "c4b.csv:2:",
	          "expected 3 fields, found 1 (the first line has no ',', ';' or tab and was split at blanks");
	csv_fails("c5.csv", "a,b\n1,2,3\n", NULL, HOG_EDATA, "c5.csv:2:5:", "expected 2 fields, found 3");
	csv_fails("c5b.csv", "a,b,y\n1,2,1,\n", NULL, HOG_EDATA, "c5b.csv:2:7:", "expected 3 fields, found 4 (the line "
	          "ends with a separator, the first line does not)");
	csv_fails("c6.csv", "", NULL, HOG_EDATA, "c6.csv", "no examples");
	csv_fails("c7.csv", "\n  \n", NULL, HOG_EDATA, "c7.csv", "no examples");
	csv_fails("c8.csv", "a,b,c\n", NULL, HOG_EDATA, "c8.csv", "no examples");
	csv_fails("c9.csv", "1\n2\n", NULL, HOG_EDATA, "c9.csv:1:1:", "at least one feature");
	hog_import_opts o = { .header = -1, .label_col = 3 };
	csv_fails("c10.csv", "1,2,3\n", &o, HOG_ECONFIG, "c10.csv:1", "label column 3");
	o.label_col = -4;
	csv_fails("c11.csv", "1,2,3\n", &o, HOG_ECONFIG, "c11.csv:1", "label column -4");
	o = (hog_import_opts){ .header = -1, .max_line = 8 };
	csv_fails("c12.csv", "1,2\n1,2,3,4,5,6,7,8\n", &o, HOG_EDATA, "c12.csv:2:1:", "longer than 8");
}

static void test_csv_bad_files(void)
{
	hog_err err;
	const char *out = tu_path("dir.hog");
	char dir[512];
	snprintf(dir, sizeof dir, "%s", tu_path("a-directory.csv"));
	CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
	CU_ASSERT_EQUAL(csv_import(dir, out, NULL, &err), EISDIR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a-directory.csv"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	CU_ASSERT_EQUAL(csv_import(tu_path("missing.csv"), out, NULL, &err), ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "missing.csv"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);

	/* a gzip file cut in the middle */
	size_t cap = 200000, at = 0;
	char *text = malloc(cap);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	uint64_t r = 7;
	while (at + 64 < cap) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		at += (size_t)snprintf(text + at, cap - at, "%u,%u,%u\n", (unsigned)(r >> 62),
		                       (unsigned)(r >> 40) & 0xffff, (unsigned)(r >> 20) & 0xfffff);
	}
	char gz[512];
	snprintf(gz, sizeof gz, "%s", tu_write_gz("cut.csv.gz", text, at));
	free(text);
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(stat(gz, &st), 0);
	CU_ASSERT_EQUAL_FATAL(truncate(gz, st.st_size / 2), 0);
	out = tu_path("cut.hog");
	CU_ASSERT_EQUAL(csv_import(gz, out, NULL, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cut.csv.gz:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gzip"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
}

/* Notes the importer hands its caller, kept for the test. */
static void csv_note_keep(void *ud, const char *msg)
{
	char *buf = ud;
	size_t at = strlen(buf);
	snprintf(buf + at, 2048 - at, "%s\n", msg);
}

/* The label column a header names: "label", "target", "class" or "y" in any
 * case, preferred in that order, wherever it stands; --label-col by name; a
 * header without such a name takes the last column and says so; a number the
 * caller gave wins over the names. Each expectation is the column written here. */
static void test_csv_label_by_name(void)
{
	static const struct {
		const char *text, *name;
		int given, col;
		float label0;      /* the first example's label */
		uint32_t id0;      /* its first feature's id */
		const char *note;  /* in the notes */
	} cases[] = {
		{ "a,b,label\n5,6,1\n7,8,0\n", NULL, 0, 0, 1, 0, "column 2 'label' (by its name" },
		{ "a,TARGET,b\n5,1,6\n7,0,8\n", NULL, 0, 0, 1, 0, "column 1 'TARGET'" },
		{ "y,a,class\n0,5,1\n1,7,0\n", NULL, 0, 0, 1, 1, "column 2 'class'" },  /* class before y; y = 0 is not stored */
		{ "a,b,c\n1,6,7\n0,8,9.5\n", NULL, 0, 0, 7, 0, "column 2 'c' (the last: the header names no" },
		{ "a,b,label\n1,6,0\n0,8,1\n", NULL, 1, 0, 1, 0, "column 0 'a'\n" },    /* the number wins */
		{ "a,\"Price\",b\n5,2.5,6\n7,1.5,8\n", "price", 1, 0, 2.5f, 0, "column 1 'Price'\n" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		const char *in = tu_write("name.csv", cases[k].text, (size_t)-1);
		const char *out = tu_path("name.hog");
		unlink(out);
		char notes[2048] = "";
		hog_import_opts o = { .header = -1, .label_col = cases[k].col, .label_given = cases[k].given,
		                      .label_name = cases[k].name, .note = csv_note_keep, .note_ud = notes };
		hog_err err;
		CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &o, &err), 0);
		hog_data *d = csv_load(out);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->dim, 2);
		CU_ASSERT_EQUAL(d->labels[0], cases[k].label0);
		CU_ASSERT_EQUAL(d->ids[0], cases[k].id0);
		if (!strstr(notes, cases[k].note))
			fprintf(stderr, "case %zu: notes '%s' lack '%s'\n", k, notes, cases[k].note);
		CU_ASSERT_PTR_NOT_NULL(strstr(notes, cases[k].note));
		hog_data_free(d);
	}
	/* a name no column has, with a header and without one */
	hog_import_opts o = { .header = -1, .label_given = 1, .label_name = "price" };
	hog_err err;
	const char *in = tu_write("noname.csv", "a,b\n1,2\n", (size_t)-1);
	const char *out = tu_path("noname.hog");
	CU_ASSERT_EQUAL(csv_import(in, out, &o, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "noname.csv:1: no column named 'price'"));
	in = tu_write("nohead.csv", "1,2\n3,4\n", (size_t)-1);
	CU_ASSERT_EQUAL(csv_import(in, out, &o, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no header line"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
}

/* Labels that are names: the one column of text the label without a name or
 * --label-col; classes numbered in order of first appearance (across files),
 * kept in meta "class_names"; two names binary (-1/+1 loaded), more
 * multiclass; quotes removed. And what is refused: a name after numbers, names
 * for --task regression, three names for --task binary, a name too long. */
static void test_csv_class_names(void)
{
	char notes[2048] = "";
	hog_import_opts o = { .header = -1, .note = csv_note_keep, .note_ud = notes };
	hog_err err;
	const char *in = tu_write("iris.csv", "sl,sw,species\n5.1,3.5,setosa\n6.2,2.9,versicolor\n5.0,3.4,setosa\n"
	                          "7.1,3.0,\"virginica\"\n", (size_t)-1);
	const char *out = tu_path("iris.hog");
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &o, &err), 0);
	hog_data *d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_MULTICLASS);
	CU_ASSERT_EQUAL(d->meta.classes, 3);
	CU_ASSERT_EQUAL(d->dim, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->class_names);
	CU_ASSERT_STRING_EQUAL(d->class_names, "setosa\nversicolor\nvirginica\n");
	static const float want[] = { 0, 1, 0, 2 };
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(d->labels[i], want[i]);
	CU_ASSERT_EQUAL(d->ids[0], 0);
	CU_ASSERT_EQUAL(d->vals[1], 3.5f);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "the label is column 2 'species' (the one column of names"));
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "0 'setosa', 1 'versicolor', 2 'virginica'"));
	hog_data_free(d);
	/* two files, one numbering; two names: binary */
	const char *in2[2];
	char a[4096], b[4096];
	snprintf(a, sizeof a, "%s", tu_write("yn1.csv", "2,no\n3,yes\n", (size_t)-1));
	snprintf(b, sizeof b, "%s", tu_write("yn2.csv", "4,yes\n5,no\n6,no\n", (size_t)-1));
	in2[0] = a;
	in2[1] = b;
	hog_import_opts x = { .header = -1, .format = HOG_FORMAT_CSV };
	out = tu_path("yn.hog");
	CU_ASSERT_EQUAL_FATAL(hog_import(in2, 2, out, &x, &err), 0);
	d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_STRING_EQUAL(d->class_names, "no\nyes\n");
	static const float yn[] = { -1, 1, 1, -1, -1 };
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(d->labels[i], yn[i]);
	CU_ASSERT_EQUAL(d->meta.positives, 2);
	hog_data_free(d);
	/* sorted, not as met: "yes" first, still class 1 */
	out = tu_path("yn2.hog");
	in = tu_write("yn3.csv", "2,yes\n3,no\n4,yes\n", (size_t)-1);
	hog_import_opts y = { .header = -1 };
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &y, &err), 0);
	d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_STRING_EQUAL(d->class_names, "no\nyes\n");
	CU_ASSERT_EQUAL(d->labels[0], 1.0f);
	CU_ASSERT_EQUAL(d->labels[1], -1.0f);
	hog_data_free(d);
	/* one label value: a warning (the label column is most likely the wrong one; the last's
	 * values are no classes either, or the label would be the last) */
	notes[0] = 0;
	hog_import_opts w1 = { .header = -1, .note = csv_note_keep, .note_ud = notes };
	out = tu_path("one.hog");
	CU_ASSERT_EQUAL_FATAL(csv_import(tu_write("one.csv", "0,1,2.5\n0,3,4.5\n0,5,6.5\n", (size_t)-1), out, &w1, &err),
	                      0);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "warning: every label is 0 (column 0)"));
	notes[0] = 0;
	unlink(out);
	CU_ASSERT_EQUAL_FATAL(csv_import(tu_write("two.csv", "0,1,2\n1,3,4\n0,5,6\n", (size_t)-1), out, &w1, &err), 0);
	CU_ASSERT_PTR_NULL(strstr(notes, "warning"));
	unlink(out);
	CU_ASSERT_EQUAL_FATAL(csv_import(tu_write("onen.csv", "a,kind\n1,x\n2,x\n", (size_t)-1), out, &w1, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "warning: every label is 'x' (column 1 'kind')"));
	/* --task multiclass keeps two names two classes */
	out = tu_path("yn.hog");
	x.task = HOG_TASK_MULTICLASS;
	unlink(out);
	CU_ASSERT_EQUAL_FATAL(hog_import(in2, 2, out, &x, &err), 0);
	d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_MULTICLASS);
	CU_ASSERT_EQUAL(d->meta.classes, 2);
	CU_ASSERT_EQUAL(d->labels[1], 1.0f);
	hog_data_free(d);
	/* refused */
	csv_fails("n1.csv", "y,a\n1,2\nfoo,3\n", NULL, HOG_EDATA, "n1.csv:3:1:", "the first label (");
	hog_import_opts r = { .header = -1, .task = HOG_TASK_REGRESSION };
	csv_fails("n2.csv", "y,a\nfoo,2\n", &r, HOG_EDATA, "n2.csv:2:1:", "--task regression takes numbers");
	r.task = HOG_TASK_BINARY;
	csv_fails("n3.csv", "y,a\nr,2\ng,3\nb,4\n", &r, HOG_ECONFIG, "n3.csv", "3 class names for binary labels");
	char longname[400] = "y,a\n";
	memset(longname + 4, 'x', 300);
	strcpy(longname + 304, ",1\n");
	csv_fails("n4.csv", longname, NULL, HOG_EDATA, "n4.csv:2:1:", "a class name of 300 bytes");
	/* two columns of text: no guess by text; the header's last is the label, and
	 * the other column of text, with the label a guess, is refused */
	csv_fails("n5.csv", "a,b,c\nred,1,x\n", NULL, HOG_EDATA, "n5.csv:2:1:", "column 0 'a' holds text ('red')");
}

/* Columns of text as categories: each value "COLUMN=value" a feature of its own
 * after the numbers' columns, numbered as the files first meet them, 1 where a
 * line has it; an empty field or NA no feature; the set keeps the names (meta
 * categories, category_from) and its dimension is theirs. Refused: text while
 * the label column is a default guess, a number in a column whose earlier line
 * had no value, text in a column of numbers. */
static void test_csv_categories(void)
{
	char notes[2048] = "";
	hog_import_opts o = { .header = -1, .label_name = "y", .label_given = 1, .note = csv_note_keep,
	                      .note_ud = notes };
	hog_err err;
	const char *in = tu_write("cat.csv", "age,work,y,edu\n39,State-gov,1,Bachelors\n50,NA,0,HS\n"
	                          "38,Private,1,\n28,Private,0,Bachelors\n", (size_t)-1);
	const char *out = tu_path("cat.hog");
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &o, &err), 0);
	hog_data *d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->category_from, 3);
	CU_ASSERT_EQUAL(d->dim, 3 + 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->categories);
	CU_ASSERT_STRING_EQUAL(d->categories, "work=State-gov\nedu=Bachelors\nedu=HS\nwork=Private\n");
	/* rows: age (feature 0), then the categories' features 3 + k, ascending */
	static const uint32_t r0[] = { 0, 3, 4 }, r1[] = { 0, 5 }, r2[] = { 0, 6 }, r3[] = { 0, 4, 6 };
	static const float v0[] = { 39, 1, 1 }, v1[] = { 50, 1 }, v2[] = { 38, 1 }, v3[] = { 28, 1, 1 };
	csv_row_is(d, 0, 3, r0, v0);
	csv_row_is(d, 1, 2, r1, v1);
	csv_row_is(d, 2, 2, r2, v2);
	csv_row_is(d, 3, 3, r3, v3);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "columns of text read as categories, a feature a value (features 3.. of "
	                                     "the 7): 'work' (2), 'edu' (2)"));
	hog_data_free(d);
	/* no header: the columns' numbers name them */
	in = tu_write("cat2.csv", "1,a,5\n0,b,6\n", (size_t)-1);
	hog_import_opts o2 = { .header = -1, .label_col = 0, .label_given = 1 };
	out = tu_path("cat2.hog");
	CU_ASSERT_EQUAL_FATAL(csv_import(in, out, &o2, &err), 0);
	d = csv_load(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_STRING_EQUAL(d->categories, "2=a\n2=b\n");
	hog_data_free(d);
	/* refused */
	csv_fails("cat3.csv", "age,work,z\n39,Private,1\n", NULL, HOG_EDATA, "cat3.csv:2:4:",
	          "once the label column is named or given");
	hog_import_opts g = { .header = -1, .label_name = "y", .label_given = 1 };
	csv_fails("cat4.csv", "a,b,y\n1,NA,1\n2,3,0\n", &g, HOG_EDATA, "cat4.csv:3:3:", "which had no value at ");
	csv_fails("cat5.csv", "a,b,y\n1,2,1\n2,x,0\n", &g, HOG_EDATA, "cat5.csv:3:3:",
	          "expected a number in column 1 'b', found 'x'");
}

int test_import_csv_register(void)
{
	CU_pSuite s = CU_add_suite("import_csv", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_csv_header_comma);
	TU_ADD(s, test_csv_label_last_tab);
	TU_ADD(s, test_csv_middle_label_semicolon_blanks);
	TU_ADD(s, test_csv_quoted_header_gzip_blocks);
	TU_ADD(s, test_csv_quote_all);
	TU_ADD(s, test_csv_wide_header);
	TU_ADD(s, test_csv_two_files);
	TU_ADD(s, test_csv_round_trip_vs_libsvm);
	TU_ADD(s, test_csv_bad_values);
	TU_ADD(s, test_csv_missing_zero);
	TU_ADD(s, test_csv_bad_shape);
	TU_ADD(s, test_csv_bad_files);
	TU_ADD(s, test_csv_label_by_name);
	TU_ADD(s, test_csv_class_names);
	TU_ADD(s, test_csv_categories);
	return 0;
}
