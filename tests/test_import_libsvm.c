/* Tests of the LIBSVM/SVMlight importer (src/data/import.c, input.c): what it
 * accepts (labels of every common kind, qid:, comments, blank lines, CRLF, gzip,
 * several files, a given dimension) comes back out of hog_data_load() as written;
 * every malformed input fails with HOG_EDATA and "FILE:LINE:COLUMN: what", and
 * leaves nothing at the output path (nor replaces what was there). */
#include "util.h"
#include "hogwild.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static hog_err err;

/* Writes @p text to NAME.txt and imports it to NAME.lmdb with @p o (NULL: defaults). */
static int import_text(const char *name, const char *text, const hog_import_opts *o)
{
	char in_name[64], out_name[64];
	snprintf(in_name, sizeof in_name, "%s.txt", name);
	snprintf(out_name, sizeof out_name, "%s.lmdb", name);
	const char *in = tu_write(in_name, text, (size_t)-1);
	hog_import_opts def = { .format = HOG_FORMAT_LIBSVM };
	memset(&err, 0, sizeof err);
	return hog_import(&in, 1, tu_path(out_name), o ? o : &def, &err);
}

static hog_data *load(const char *name)
{
	char out_name[64];
	snprintf(out_name, sizeof out_name, "%s.lmdb", name);
	hog_data *d = NULL;
	hog_err e;
	int rc = hog_data_load(&d, tu_path(out_name), &e);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "\n  load %s: %s\n", out_name, e.msg);
	return d;
}

/* ---------------------------------------------------------------- accepted */

static void test_libsvm_labels_01(void)
{
	CU_ASSERT_EQUAL_FATAL(import_text("l01", "1 1:0.5 3:2\n0 2:1\n1 4:-1.25\n", NULL), 0);
	hog_data *d = load("l01");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL(d->n, 3);
	CU_ASSERT_EQUAL(d->dim, 4);
	CU_ASSERT_EQUAL(d->nnz, 4);
	CU_ASSERT_EQUAL(d->meta.positives, 2);
	CU_ASSERT_EQUAL(d->labels[0], 1.0f);
	CU_ASSERT_EQUAL(d->labels[1], -1.0f); /* 0 becomes -1 */
	static const uint64_t offsets[4] = { 0, 2, 3, 4 };
	static const uint32_t ids[4] = { 0, 2, 1, 3 }; /* from 0 */
	static const float vals[4] = { 0.5f, 2, 1, -1.25f };
	CU_ASSERT_EQUAL(memcmp(d->offsets, offsets, sizeof offsets), 0);
	CU_ASSERT_EQUAL(memcmp(d->ids, ids, sizeof ids), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->vals);
	CU_ASSERT_EQUAL(memcmp(d->vals, vals, sizeof vals), 0);
	hog_data_free(d);
}

static void test_libsvm_labels_pm1(void)
{
	CU_ASSERT_EQUAL_FATAL(import_text("lpm", "+1 1:1 2:1\n-1 2:1\n-1 7:1\n", NULL), 0);
	hog_data *d = load("lpm");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL(d->meta.positives, 1);
	CU_ASSERT_EQUAL(d->meta.label_min, -1);
	CU_ASSERT_EQUAL(d->dim, 7);
	CU_ASSERT_PTR_NULL(d->vals); /* every value is 1 */
	CU_ASSERT_EQUAL(d->labels[2], -1.0f);
	hog_data_free(d);
}

static void test_libsvm_labels_real(void)
{
	CU_ASSERT_EQUAL_FATAL(import_text("lreal", "2.5 1:1\n-0.75 2:3e-2\n1e2 1:1\n", NULL), 0);
	hog_data *d = load("lreal");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_REGRESSION);
	CU_ASSERT_EQUAL(d->labels[0], 2.5f);
	CU_ASSERT_EQUAL(d->labels[1], -0.75f);
	CU_ASSERT_EQUAL(d->labels[2], 100.0f);
	CU_ASSERT_EQUAL(d->vals[1], 3e-2f);
	CU_ASSERT_EQUAL(d->meta.label_max, 100);
	hog_data_free(d);
	/* small non-negative integers: classes */
	CU_ASSERT_EQUAL_FATAL(import_text("lmc", "0 1:1\n2 1:1\n1 2:1\n2 2:1\n", NULL), 0);
	d = load("lmc");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_MULTICLASS);
	CU_ASSERT_EQUAL(d->meta.classes, 3);
	hog_data_free(d);
	/* ... unless the task is given */
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM, .task = HOG_TASK_REGRESSION };
	CU_ASSERT_EQUAL_FATAL(import_text("lmc2", "0 1:1\n2 1:1\n1 2:1\n", &o), 0);
	d = load("lmc2");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_REGRESSION);
	hog_data_free(d);
}

static void test_libsvm_syntax_accepted(void)
{
	/* qid ignored; comments whole-line and trailing; blank and space-only
	 * lines; tabs; CRLF; an empty feature list; no newline at the end */
	const char *text =
		"# a comment line\n"
		"1 qid:3 1:1 3:0.5 # trailing comment\r\n"
		"\n"
		"   \t \n"
		"-1\tqid:4\t2:2\t\t5:1   \r\n"
		"-1\n"
		"1 4:1 # 9:9\n"
		"\r\n"
		"-1 1:0.25";
	CU_ASSERT_EQUAL_FATAL(import_text("syntax", text, NULL), 0);
	hog_data *d = load("syntax");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->n, 5);
	CU_ASSERT_EQUAL(d->dim, 5);
	CU_ASSERT_EQUAL(d->nnz, 6);
	static const uint64_t offsets[6] = { 0, 2, 4, 4, 5, 6 };
	static const uint32_t ids[6] = { 0, 2, 1, 4, 3, 0 };
	CU_ASSERT_EQUAL(memcmp(d->offsets, offsets, sizeof offsets), 0);
	CU_ASSERT_EQUAL(memcmp(d->ids, ids, sizeof ids), 0);
	CU_ASSERT_EQUAL(d->vals[5], 0.25f);
	CU_ASSERT_EQUAL(d->labels[2], -1.0f);
	hog_data_free(d);
}

static void test_libsvm_gzip_and_files(void)
{
	const char *t1 = "1 1:1 2:1\n-1 3:1\n";
	const char *t2 = "-1 4:0.5\n1 1:1 6:2\n";
	const char *in[3];
	in[0] = tu_write_gz("part1.txt.gz", t1, strlen(t1));
	in[1] = tu_write("part2.txt", t2, (size_t)-1);
	in[2] = tu_write_gz("part3.gz", t1, strlen(t1));
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM, .block_examples = 2 };
	CU_ASSERT_EQUAL_FATAL(hog_import(in, 3, tu_path("parts.lmdb"), &o, &err), 0);
	hog_data *d = load("parts");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->n, 6);
	CU_ASSERT_EQUAL(d->meta.blocks, 3);
	CU_ASSERT_EQUAL(d->dim, 6);
	CU_ASSERT_EQUAL(d->ids[d->offsets[3]], 0); /* first example of part 2's second line */
	CU_ASSERT_EQUAL(d->ids[d->offsets[3] + 1], 5);
	CU_ASSERT_EQUAL(d->ids[d->offsets[5]], 2); /* last example: part 3's second line */
	CU_ASSERT_PTR_NOT_NULL(strstr(d->meta.source, "part1.txt.gz"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d->meta.source, "part2.txt"));
	hog_data_free(d);
}

static void test_libsvm_dim(void)
{
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM, .features = 100 };
	CU_ASSERT_EQUAL_FATAL(import_text("dim", "1 1:1 100:1\n-1 3:1\n", &o), 0);
	hog_data *d = load("dim");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->dim, 100);
	CU_ASSERT_EQUAL(d->ids[1], 99);
	hog_data_free(d);
	/* an index beyond the dimension given is an error */
	o.features = 50;
	CU_ASSERT_EQUAL(import_text("dim2", "1 1:1\n-1 3:1 51:1\n", &o), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "dim2.txt:2:8:"));
	CU_ASSERT(access(tu_path("dim2.lmdb"), F_OK) != 0);
}

/* zero_based: index i is stored as feature i (one-based files store i - 1):
 * the file with every index one less gives the same set; the dimension counts
 * index 0; a duplicate, an index beyond the dimension and 2^32-1 itself are
 * refused with the file's own numbering. */
static void test_libsvm_zero_based(void)
{
	CU_ASSERT_EQUAL_FATAL(import_text("zb1", "1 1:0.5 3:2\n0 2:1\n1 4:-1.25\n", NULL), 0);
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM, .zero_based = 1 };
	CU_ASSERT_EQUAL_FATAL(import_text("zb0", "1 0:0.5 2:2\n0 1:1\n1 3:-1.25\n", &o), 0);
	hog_data *a = load("zb1"), *b = load("zb0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->dim, 4);
	CU_ASSERT_EQUAL_FATAL(b->nnz, a->nnz);
	CU_ASSERT_EQUAL(memcmp(a->offsets, b->offsets, (a->n + 1) * sizeof *a->offsets), 0);
	CU_ASSERT_EQUAL(memcmp(a->ids, b->ids, a->nnz * sizeof *a->ids), 0);
	CU_ASSERT_EQUAL(memcmp(a->vals, b->vals, a->nnz * sizeof *a->vals), 0);
	CU_ASSERT_EQUAL(memcmp(a->labels, b->labels, a->n * sizeof *a->labels), 0);
	hog_data_free(a);
	hog_data_free(b);
	o.features = 3; /* indices 0..2 */
	CU_ASSERT_EQUAL(import_text("zb_dim", "1 0:1 2:1\n-1 3:1\n", &o), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "zb_dim.txt:2:4:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "beyond the dimension 3 (indices from 0)"));
	o.features = 0;
	CU_ASSERT_EQUAL(import_text("zb_dup", "1 0:1 0:2\n", &o), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "duplicate feature index 0"));
	CU_ASSERT_EQUAL(import_text("zb_max", "1 4294967295:1\n", &o), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "beyond 2^32-2"));
	/* without it, index 0 is refused, naming the option */
	CU_ASSERT_EQUAL(import_text("zb_no", "1 0:1\n", NULL), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--zero-based"));
}

static void test_libsvm_big_line_ok(void)
{
	/* a long line under the limit, across the reader's buffer refills */
	size_t n = 200000;
	char *text = malloc(n * 16 + 64);
	CU_ASSERT_FATAL(text != NULL);
	size_t at = (size_t)sprintf(text, "1");
	for (size_t i = 1; i <= n; i++)
		at += (size_t)sprintf(text + at, " %zu:%zu", i, i % 7 + 1);
	strcpy(text + at, "\n-1 2:1\n");
	CU_ASSERT_EQUAL_FATAL(import_text("bigline", text, NULL), 0);
	free(text);
	hog_data *d = load("bigline");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->n, 2);
	CU_ASSERT_EQUAL(d->nnz, n + 1);
	CU_ASSERT_EQUAL(d->vals[n - 1], (float)(n % 7 + 1));
	hog_data_free(d);
}

/* ---------------------------------------------------------------- refused */

/* Imports @p text as NAME.txt: it must fail with HOG_EDATA, name
 * "NAME.txt:@p where" (LINE:COLUMN:) and @p what, and leave no output. */
static void expect_bad(const char *name, const char *text, const char *where, const char *what)
{
	int rc = import_text(name, text, NULL);
	char loc[128], out_name[64];
	snprintf(loc, sizeof loc, "%s.txt:%s", name, where);
	snprintf(out_name, sizeof out_name, "%s.lmdb", name);
	CU_ASSERT_EQUAL(rc, HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, loc));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, tu_dir())); /* the full path, as given */
	if (what)
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
	if (rc != HOG_EDATA || !strstr(err.msg, loc) || (what && !strstr(err.msg, what)))
		fprintf(stderr, "\n  %s: expected %s ... %s, got %d '%s'\n", name, loc, what ? what : "", rc,
		        err.msg);
	CU_ASSERT(access(tu_path(out_name), F_OK) != 0);
}

static void test_libsvm_bad_values(void)
{
	expect_bad("b_label", "1 1:1\nabc 2:1\n", "2:1:", "label");
	expect_bad("b_label2", "1 1:1\n\n1x 2:1\n", "3:1:", "label");
	/* a first line without a label makes a set without labels (issue 24): then a label is out of place */
	expect_bad("b_label3", "3:1 4:1\n1 2:1\n", "2:1:", "label");
	expect_bad("b_nanlabel", "nan 1:1\n", "1:1:", "finite");
	expect_bad("b_multi", "1 1:1\n2,7 2:1\n", "2:1:", "a list of labels ('2,7'): a multi-label file");
	expect_bad("b_lovf", "1 1:1\n1e40 1:1\n", "2:", "finite"); /* a double, but not a float */
	expect_bad("b_zero", "1 1:1\n-1 0:1\n", "2:4:", "index 0");
	expect_bad("b_neg", "1 -2:1\n", "1:3:", "negative");
	expect_bad("b_order", "1 3:1 2:1\n", "1:7:", "not increasing");
	expect_bad("b_dup", "1 1:1\n1 3:1 3:2\n", "2:7:", "duplicate");
	expect_bad("b_nan", "1 3:nan\n", "1:5:", "finite");
	expect_bad("b_inf", "1 1:1 3:inf\n", "1:9:", "finite");
	expect_bad("b_ninf", "1 3:-Infinity\n", "1:5:", "finite");
	expect_bad("b_ovf", "1 3:1e40\n", "1:5:", "beyond a float's range"); /* finite double, not a float */
	expect_bad("b_colon", "1 3 4:1\n", "1:4:", "':'");
	expect_bad("b_noval", "1 3:\n", "1:5:", "value");
	expect_bad("b_noval2", "1 3: 4:1\n", "1:5:", "value");
	expect_bad("b_spaceval", "1 3: 5\n", "1:5:", "value"); /* not 3:5 */
	expect_bad("b_junkval", "1 3:1.5x\n", "1:5:", "value");
	expect_bad("b_word", "1 color:red\n", "1:3:", "index");
	expect_bad("b_qid", "1 1:1 qid:3\n", "1:7:", "qid");
	expect_bad("b_crlf", "1 1:1\r\n-1 2:x\r\n", "2:6:", "value");
	expect_bad("b_huge", "1 99999999999:1\n", "1:3:", "2^32");
	/* a NUL byte (binary or UTF-16 input) must not end the line silently */
	const char *in = tu_write("b_nul.txt", "1\0 1:1\n-1\0 2:1\n", 16);
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM };
	CU_ASSERT_EQUAL(hog_import(&in, 1, tu_path("b_nul.lmdb"), &o, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "b_nul.txt:1:2:"));
	CU_ASSERT(access(tu_path("b_nul.lmdb"), F_OK) != 0);
}

static void test_libsvm_long_line(void)
{
	char *text = malloc(4000);
	CU_ASSERT_FATAL(text != NULL);
	size_t at = (size_t)sprintf(text, "1 1:1\n-1");
	for (int i = 1; at < 2000; i++)
		at += (size_t)sprintf(text + at, " %d:1", i);
	strcpy(text + at, "\n1 2:1\n");
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM, .max_line = 1000 };
	CU_ASSERT_EQUAL(import_text("b_long", text, &o), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "b_long.txt:2:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "1000"));
	CU_ASSERT(access(tu_path("b_long.lmdb"), F_OK) != 0);
	/* the same line under a larger limit is fine */
	o.max_line = 4000;
	CU_ASSERT_EQUAL(import_text("b_long_ok", text, &o), 0);
	/* a last line without a newline is held to the limit too */
	text[at] = 0;
	o.max_line = 1000;
	CU_ASSERT_EQUAL(import_text("b_long_eof", text, &o), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "b_long_eof.txt:2:"));
	free(text);
}

static void test_libsvm_truncated_gzip(void)
{
	/* enough text that the compressed stream spans many bytes, cut in half */
	size_t cap = 400000, at = 0;
	char *text = malloc(cap);
	CU_ASSERT_FATAL(text != NULL);
	for (unsigned i = 0; at + 64 < cap; i++)
		at += (size_t)sprintf(text + at, "%d %u:%u %u:0.%u\n", i % 2 ? 1 : -1, i % 50 + 1, i % 9,
		                      i % 50 + 60, i * 7919u % 1000);
	const char *gz = tu_write_gz("b_trunc.gz", text, at);
	free(text);
	FILE *f = fopen(gz, "rb");
	CU_ASSERT_FATAL(f != NULL);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	CU_ASSERT_FATAL(size > 1000);
	CU_ASSERT_EQUAL_FATAL(truncate(gz, size / 2), 0);
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM };
	const char *out = tu_path("b_trunc.lmdb");
	CU_ASSERT_EQUAL(hog_import(&gz, 1, out, &o, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "b_trunc.gz:"));
	CU_ASSERT(access(out, F_OK) != 0);
	/* cut in the gzip trailer only (the CRC and length): still refused */
	const char *t = "1 1:1\n-1 2:1\n";
	gz = tu_write_gz("b_trail.gz", t, strlen(t));
	f = fopen(gz, "rb");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(truncate(gz, size - 4), 0);
	out = tu_path("b_trail.lmdb");
	CU_ASSERT_EQUAL(hog_import(&gz, 1, out, &o, &err), HOG_EDATA);
	CU_ASSERT(access(out, F_OK) != 0);
}

static void test_libsvm_empty_and_dir(void)
{
	CU_ASSERT_EQUAL(import_text("b_empty", "", NULL), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "b_empty.txt"));
	CU_ASSERT(access(tu_path("b_empty.lmdb"), F_OK) != 0);
	/* only comments and blank lines: no examples either */
	CU_ASSERT_EQUAL(import_text("b_blank", "# nothing\n\n  \n", NULL), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "b_blank.txt"));
	CU_ASSERT(access(tu_path("b_blank.lmdb"), F_OK) != 0);
	/* a directory */
	const char *in = tu_dir();
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM };
	CU_ASSERT_EQUAL(hog_import(&in, 1, tu_path("b_dir.lmdb"), &o, &err), EISDIR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, tu_dir()));
	CU_ASSERT(access(tu_path("b_dir.lmdb"), F_OK) != 0);
	/* a missing file */
	in = tu_path("no-such.txt");
	CU_ASSERT_EQUAL(hog_import(&in, 1, tu_path("b_missing.lmdb"), &o, &err), ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no-such.txt"));
	CU_ASSERT(access(tu_path("b_missing.lmdb"), F_OK) != 0);
	/* no input at all */
	CU_ASSERT_EQUAL(hog_import(&in, 0, tu_path("b_none.lmdb"), &o, &err), HOG_ECONFIG);
}

static void test_libsvm_bad_second_file(void)
{
	/* the error names the file and its own line, and the output that was
	 * there before the failed import is left as it was */
	const char *in[2];
	in[0] = tu_write("good.txt", "1 1:1\n-1 2:1\n", (size_t)-1);
	in[1] = tu_write("bad2.txt", "1 1:1\n\n-1 2:1 2:1\n", (size_t)-1);
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM };
	const char *out = tu_path("keep.lmdb");
	CU_ASSERT_EQUAL_FATAL(hog_import(in, 1, out, &o, &err), 0);
	CU_ASSERT_EQUAL(hog_import(in, 2, out, &o, &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad2.txt:3:8:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "duplicate"));
	hog_data *d = load("keep");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->n, 2);
	hog_data_free(d);
	char tmp[600];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
	CU_ASSERT(access(tmp, F_OK) != 0);
}

int test_import_libsvm_register(void)
{
	CU_pSuite s = CU_add_suite("import_libsvm", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_libsvm_labels_01);
	TU_ADD(s, test_libsvm_labels_pm1);
	TU_ADD(s, test_libsvm_labels_real);
	TU_ADD(s, test_libsvm_syntax_accepted);
	TU_ADD(s, test_libsvm_gzip_and_files);
	TU_ADD(s, test_libsvm_dim);
	TU_ADD(s, test_libsvm_zero_based);
	TU_ADD(s, test_libsvm_big_line_ok);
	TU_ADD(s, test_libsvm_bad_values);
	TU_ADD(s, test_libsvm_long_line);
	TU_ADD(s, test_libsvm_truncated_gzip);
	TU_ADD(s, test_libsvm_empty_and_dir);
	TU_ADD(s, test_libsvm_bad_second_file);
	return 0;
}
