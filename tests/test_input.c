/* Tests of the importers' reader (src/data/input.c): plain text and text
 * compressed with gzip, bzip2, xz and zstd -- each compressed here by its own
 * library, never by the reader's code -- read back line for line and byte for
 * byte, the kind told by the first bytes whatever the name; files of several
 * members read as their concatenation; a FIFO fed a few bytes at a time reads
 * as a file does; a truncated or damaged file of each kind, and a zip archive,
 * are HOG_EDATA naming the file and what is wrong. */
#include "util.h"
#include "data/input.h"
#include "hogwild.h"
#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

enum { K_GZIP, K_BZIP2, K_XZ, K_ZSTD, K_COUNT };
static const char *const names[K_COUNT] = { "gzip", "bzip2", "xz", "zstd" };

/* @p text compressed as kind @p k into a new buffer (*out_n bytes), each with
 * its format's check of the data (zstd's is optional: asked for). */
static unsigned char *compress_as(int k, const char *text, size_t n, size_t *out_n)
{
	size_t cap = n + n / 2 + 4096;
	unsigned char *out = malloc(cap);
	CU_ASSERT_FATAL(out != NULL);
	switch (k) {
	case K_GZIP: {
		z_stream z = { 0 };
		CU_ASSERT_FATAL(deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
		z.next_in = (Bytef *)text;
		z.avail_in = (uInt)n;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		CU_ASSERT_FATAL(deflate(&z, Z_FINISH) == Z_STREAM_END);
		*out_n = z.total_out;
		deflateEnd(&z);
		break;
	}
	case K_BZIP2: {
		unsigned int m = (unsigned)cap;
		CU_ASSERT_FATAL(BZ2_bzBuffToBuffCompress((char *)out, &m, (char *)text, (unsigned)n, 1, 0, 0) == BZ_OK);
		*out_n = m;
		break;
	}
	case K_XZ:
		*out_n = 0;
		CU_ASSERT_FATAL(lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, (const uint8_t *)text, n, out, out_n,
		                                        cap) == LZMA_OK);
		break;
	case K_ZSTD: {
		ZSTD_CCtx *c = ZSTD_createCCtx();
		CU_ASSERT_FATAL(c != NULL);
		ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
		*out_n = ZSTD_compress2(c, out, cap, text, n);
		CU_ASSERT_FATAL(!ZSTD_isError(*out_n));
		ZSTD_freeCCtx(c);
		break;
	}
	}
	return out;
}

/* Numbered lines, @p n bytes of them, every 7th with a CR before its newline. */
static char *make_text(size_t n)
{
	char *t = malloc(n + 64);
	CU_ASSERT_FATAL(t != NULL);
	size_t at = 0;
	for (unsigned i = 0; at < n; i++)
		at += (size_t)sprintf(t + at, "%u %u:%u %u:0.%u%s\n", i % 2, i % 97 + 1, i % 13, i * 7919u % 50000 + 100,
		                      i * 31u % 1000, i % 7 == 3 ? "\r" : "");
	t[at] = 0;
	return t;
}

/* Reads @p path line by line and compares the lines with @p text's (CRs
 * dropped as the reader drops them); 0 when they all match. */
static int lines_match(const char *path, const char *text, const char *kind)
{
	hog_input in;
	hog_err err = { 0 };
	CU_ASSERT_EQUAL_FATAL(hog_input_open(&in, path, 0, &err), 0);
	CU_ASSERT_STRING_EQUAL(hog_input_kind(&in), kind);
	int bad = 0;
	uint64_t lines = 0;
	const char *p = text;
	char *line;
	size_t len;
	int rc;
	while ((rc = hog_input_line(&in, &line, &len, &err)) == 1) {
		const char *nl = strchr(p, '\n');
		size_t want = nl ? (size_t)(nl - p) : strlen(p);
		if (want && p[want - 1] == '\r')
			want--;
		if (!nl || want != len || memcmp(p, line, len))
			bad = 1;
		lines++;
		p = nl ? nl + 1 : p + strlen(p);
	}
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(*p, 0); /* every line came back */
	CU_ASSERT_EQUAL(in.line, lines);
	hog_input_close(&in);
	return bad || rc || *p;
}

/* Each kind, a text longer than the reader's buffers, as one member and as
 * two (the text cut in the middle of a line), under a name that says
 * nothing of the kind */
static void test_input_kinds_and_members(void)
{
	const size_t n = (size_t)3 << 19; /* (beyond the reader's 1 MiB buffer) */
	char *text = make_text(n);
	const size_t len = strlen(text), half = len / 2 + 3;
	CU_ASSERT_EQUAL(lines_match(tu_write("in_plain.txt", text, len), text, "plain"), 0);
	for (int k = 0; k < K_COUNT; k++) {
		size_t a, b, c;
		unsigned char *whole = compress_as(k, text, len, &a);
		unsigned char *first = compress_as(k, text, half, &b), *second = compress_as(k, text + half, len - half, &c);
		char name[64];
		snprintf(name, sizeof name, "in_whole_%d.txt", k);
		CU_ASSERT_EQUAL(lines_match(tu_write(name, whole, a), text, names[k]), 0);
		unsigned char *two = malloc(b + c);
		CU_ASSERT_FATAL(two != NULL);
		memcpy(two, first, b);
		memcpy(two + b, second, c);
		snprintf(name, sizeof name, "in_two_%d.data", k);
		CU_ASSERT_EQUAL(lines_match(tu_write(name, two, b + c), text, names[k]), 0);
		/* raw bytes (the idx importer's way), in odd-sized pieces */
		hog_input in;
		hog_err err = { 0 };
		CU_ASSERT_EQUAL_FATAL(hog_input_open(&in, tu_path(name), 0, &err), 0);
		char *back = malloc(len + 1);
		size_t at = 0, got = 0;
		do {
			CU_ASSERT_EQUAL_FATAL(hog_input_read(&in, back + at, len + 1 - at < 77777 ? len + 1 - at : 77777, &got,
			                                     &err), 0);
			at += got;
		} while (got && at <= len);
		CU_ASSERT_EQUAL(at, len);
		CU_ASSERT(memcmp(back, text, len) == 0);
		hog_input_close(&in);
		free(back);
		free(two);
		free(whole);
		free(first);
		free(second);
	}
	free(text);
}

/* Reads the whole of @p path; the code of the first failure, its message in @p err. */
static int read_all(const char *path, hog_err *err)
{
	hog_input in;
	memset(err, 0, sizeof *err);
	int rc = hog_input_open(&in, path, 0, err);
	if (rc)
		return rc;
	char *line;
	size_t len;
	while ((rc = hog_input_line(&in, &line, &len, err)) == 1)
		;
	hog_input_close(&in);
	return rc;
}

/* Cut anywhere (inside the data, inside the end's check), or a byte changed in
 * the middle: HOG_EDATA naming the file and the kind, for each kind */
static void test_input_truncated_and_damaged(void)
{
	char *text = make_text(200000);
	const size_t len = strlen(text);
	for (int k = 0; k < K_COUNT; k++) {
		size_t n;
		unsigned char *z = compress_as(k, text, len, &n);
		const size_t cuts[] = { n / 2, n - 3, 12 };
		for (int c = 0; c < 3; c++) {
			char name[64], want[64];
			snprintf(name, sizeof name, "in_cut_%d_%d.txt", k, c);
			hog_err err;
			CU_ASSERT_EQUAL(read_all(tu_write(name, z, cuts[c]), &err), HOG_EDATA);
			snprintf(want, sizeof want, "truncated %s file", names[k]);
			CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
			CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, name));
		}
		z[n / 2] ^= 0x55;
		char name[64], want[64];
		snprintf(name, sizeof name, "in_bad_%d.txt", k);
		hog_err err;
		CU_ASSERT_EQUAL(read_all(tu_write(name, z, n), &err), HOG_EDATA);
		snprintf(want, sizeof want, "damaged %s file", names[k]);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, name));
		free(z);
	}
	free(text);
}

/* Text that begins like a compressed file's magic stays text; a zip archive is
 * refused by name; an empty file is an empty plain file */
static void test_input_look_alikes(void)
{
	CU_ASSERT_EQUAL(lines_match(tu_write("in_bzh.txt", "BZh9 is a header\n1,2\n", (size_t)-1),
	                            "BZh9 is a header\n1,2\n", "plain"), 0);
	CU_ASSERT_EQUAL(lines_match(tu_write("in_empty.txt", "", 0), "", "plain"), 0);
	hog_err err;
	CU_ASSERT_EQUAL(read_all(tu_write("in_a.zip", "PK\003\004\024\000\000\000rest", 12), &err), HOG_EDATA);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "in_a.zip: a zip archive"));
}

/* A FIFO whose writer sends a bzip2 file two bytes, then five, then the rest:
 * the kind is still found, and the lines come back */
static void test_input_fifo(void)
{
	char *text = make_text(100000);
	const size_t len = strlen(text);
	size_t n;
	unsigned char *z = compress_as(K_BZIP2, text, len, &n);
	const char *fifo = tu_path("in_fifo");
	unlink(fifo);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int fd = open(fifo, O_WRONLY);
		const size_t parts[] = { 2, 5, n - 7 };
		size_t at = 0;
		for (int i = 0; fd >= 0 && i < 3; i++) {
			if (write(fd, z + at, parts[i]) != (ssize_t)parts[i])
				_exit(1);
			at += parts[i];
			usleep(20000);
		}
		_exit(fd >= 0 ? 0 : 1);
	}
	CU_ASSERT_EQUAL(lines_match(fifo, text, "bzip2"), 0);
	int st = 0;
	waitpid(pid, &st, 0);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unlink(fifo);
	free(z);
	free(text);
}

/* The importer on an xz file and a zstd one: the set the plain text makes */
static void test_input_import(void)
{
	const char *text = "1 1:1 3:0.5\n0 2:2\n1 4:1.5 5:1\n";
	const char *in[2];
	size_t a, b;
	unsigned char *x = compress_as(K_XZ, text, strlen(text), &a), *s = compress_as(K_ZSTD, text, strlen(text), &b);
	in[0] = tu_write("in_imp.xz", x, a);
	in[1] = tu_write("in_imp.zst", s, b);
	free(x);
	free(s);
	hog_import_opts o = { .format = HOG_FORMAT_LIBSVM };
	hog_err err;
	CU_ASSERT_EQUAL_FATAL(hog_import(in, 2, tu_path("in_imp.lmdb"), &o, &err), 0);
	hog_data *d = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path("in_imp.lmdb"), &err), 0);
	CU_ASSERT_EQUAL(d->n, 6);
	CU_ASSERT_EQUAL(d->dim, 5);
	CU_ASSERT_EQUAL(d->offsets[6], 10);
	CU_ASSERT_EQUAL(d->ids[d->offsets[4]], 1); /* the second file's second line: 0 2:2 */
	CU_ASSERT_EQUAL(d->vals[d->offsets[4]], 2.0f);
	CU_ASSERT_EQUAL(d->labels[5], 1.0f);
	hog_data_free(d);
}

int test_input_register(void)
{
	CU_pSuite s = CU_add_suite("input", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_input_kinds_and_members);
	TU_ADD(s, test_input_truncated_and_damaged);
	TU_ADD(s, test_input_look_alikes);
	TU_ADD(s, test_input_fifo);
	TU_ADD(s, test_input_import);
	return 0;
}
