/* Streaming line reader over plain or compressed files. See input.h.
 * The file's first bytes say how it is compressed; the decompressors are the
 * libraries' own (zlib, libbz2, liblzma, libzstd), fed from one buffer of the
 * file's bytes, so a pipe works as a file does. */
#include "data/input.h"
#include "data/store.h"
#include "sys/err.h"
#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define CHUNK ((size_t)1 << 20)
#define RAW ((size_t)256 << 10)
/* How long a FIFO given as input may stay without a writer before it is an error. */
#define HOG_INPUT_FIFO_WAIT_MS 10000

enum { HOG_IN_PLAIN, HOG_IN_GZIP, HOG_IN_BZIP2, HOG_IN_XZ, HOG_IN_ZSTD };
static const char *const kind_names[] = { "plain", "gzip", "bzip2", "xz", "zstd" };

const char *hog_input_kind(const hog_input *in)
{
	return kind_names[in->kind];
}

/* The kind of a file beginning with the @p n bytes at @p b; a bzip2 file is
 * "BZh", its block size and a block's or the end's magic, so text that begins
 * with BZh is still text. */
static int sniff(const unsigned char *b, size_t n)
{
	static const unsigned char xz[6] = { 0xFD, '7', 'z', 'X', 'Z', 0 }, zst[4] = { 0x28, 0xB5, 0x2F, 0xFD },
	                           blk[6] = { 0x31, 0x41, 0x59, 0x26, 0x53, 0x59 },
	                           eos[6] = { 0x17, 0x72, 0x45, 0x38, 0x50, 0x90 };
	if (n >= 2 && b[0] == 0x1F && b[1] == 0x8B)
		return HOG_IN_GZIP;
	if (n >= 10 && !memcmp(b, "BZh", 3) && b[3] >= '1' && b[3] <= '9' && (!memcmp(b + 4, blk, 6) || !memcmp(b + 4, eos, 6)))
		return HOG_IN_BZIP2;
	if (n >= 6 && !memcmp(b, xz, 6))
		return HOG_IN_XZ;
	if (n >= 4 && !memcmp(b, zst, 4))
		return HOG_IN_ZSTD;
	return HOG_IN_PLAIN;
}

/* Keeps the unread bytes, then reads more after them (a short read is fine). */
static int raw_read(hog_input *in, hog_err *err)
{
	if (in->raw_pos) {
		memmove(in->raw, in->raw + in->raw_pos, in->raw_len - in->raw_pos);
		in->raw_len -= in->raw_pos;
		in->raw_pos = 0;
	}
	ssize_t k;
	while ((k = read(in->fd, in->raw + in->raw_len, RAW - in->raw_len)) < 0 && errno == EINTR)
		;
	if (k < 0)
		return hog_err_set(err, HOG_EDATA, "%s:%llu: read error: %s", in->path, (unsigned long long)in->line + 1,
		                   strerror(errno));
	if (k == 0)
		in->raw_eof = 1;
	in->raw_len += (size_t)k;
	in->consumed += (uint64_t)k;
	return 0;
}

/* Starts (or, between two members, starts again) the decompressor. */
static int dec_start(hog_input *in)
{
	switch (in->kind) {
	case HOG_IN_GZIP: {
		z_stream *z = in->dec;
		if (z)
			return inflateReset(z) == Z_OK ? 0 : -1;
		if (!(z = in->dec = calloc(1, sizeof *z)))
			return -1;
		return inflateInit2(z, 16 + MAX_WBITS) == Z_OK ? 0 : (free(z), in->dec = NULL, -1);
	}
	case HOG_IN_BZIP2: {
		bz_stream *b = in->dec;
		if (b)
			BZ2_bzDecompressEnd(b);
		else if (!(b = in->dec = calloc(1, sizeof *b)))
			return -1;
		memset(b, 0, sizeof *b);
		return BZ2_bzDecompressInit(b, 0, 0) == BZ_OK ? 0 : (free(b), in->dec = NULL, -1);
	}
	case HOG_IN_XZ: {
		lzma_stream *s = malloc(sizeof *s), init = LZMA_STREAM_INIT;
		if (!(in->dec = s))
			return -1;
		*s = init;
		return lzma_stream_decoder(s, UINT64_MAX, LZMA_CONCATENATED) == LZMA_OK ? 0 : (free(s), in->dec = NULL, -1);
	}
	case HOG_IN_ZSTD:
		return (in->dec = ZSTD_createDStream()) && !ZSTD_isError(ZSTD_initDStream(in->dec)) ? 0 : -1;
	}
	return 0;
}

static void dec_end(hog_input *in)
{
	if (!in->dec)
		return;
	switch (in->kind) {
	case HOG_IN_GZIP: inflateEnd(in->dec); break;
	case HOG_IN_BZIP2: BZ2_bzDecompressEnd(in->dec); break;
	case HOG_IN_XZ: lzma_end(in->dec); break;
	case HOG_IN_ZSTD: ZSTD_freeDStream(in->dec); in->dec = NULL; return;
	}
	free(in->dec);
	in->dec = NULL;
}

static int damaged(hog_input *in, hog_err *err, const char *why)
{
	return hog_err_set(err, HOG_EDATA, "%s:%llu: damaged %s file (%s)", in->path, (unsigned long long)in->line + 1,
	                   kind_names[in->kind], why);
}

/* One step of the decompressor: the raw bytes it takes, up to @p room bytes
 * out at @p out (*made). 1 where a member (gzip, bzip2), a frame (zstd) or the
 * file (xz) ended, 0 where it goes on, < 0 on damage. */
static int dec_step(hog_input *in, char *out, size_t room, size_t *made, hog_err *err)
{
	unsigned char *src = in->raw + in->raw_pos;
	const size_t avail = in->raw_len - in->raw_pos;
	size_t used = 0;
	int end = 0;
	switch (in->kind) {
	case HOG_IN_GZIP: {
		z_stream *z = in->dec;
		z->next_in = src;
		z->avail_in = avail > UINT_MAX ? UINT_MAX : (uInt)avail;
		z->next_out = (Bytef *)out;
		z->avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
		const uInt ain = z->avail_in, aout = z->avail_out;
		const int rc = inflate(z, Z_NO_FLUSH);
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
			return damaged(in, err, z->msg ? z->msg : "not a gzip stream");
		used = ain - z->avail_in;
		*made = aout - z->avail_out;
		end = rc == Z_STREAM_END;
		break;
	}
	case HOG_IN_BZIP2: {
		bz_stream *b = in->dec;
		b->next_in = (char *)src;
		b->avail_in = avail > UINT_MAX ? UINT_MAX : (unsigned)avail;
		b->next_out = out;
		b->avail_out = room > UINT_MAX ? UINT_MAX : (unsigned)room;
		const unsigned ain = b->avail_in, aout = b->avail_out;
		const int rc = BZ2_bzDecompress(b);
		if (rc != BZ_OK && rc != BZ_STREAM_END)
			return damaged(in, err, rc == BZ_MEM_ERROR ? "out of memory" : "its data does not check");
		used = ain - b->avail_in;
		*made = aout - b->avail_out;
		end = rc == BZ_STREAM_END;
		break;
	}
	case HOG_IN_XZ: {
		lzma_stream *s = in->dec;
		s->next_in = src;
		s->avail_in = avail;
		s->next_out = (uint8_t *)out;
		s->avail_out = room;
		const lzma_ret rc = lzma_code(s, in->raw_eof && !avail ? LZMA_FINISH : LZMA_RUN);
		if (rc == LZMA_BUF_ERROR)
			return hog_err_set(err, HOG_EDATA, "%s:%llu: truncated xz file (it ends inside its compressed data)",
			                   in->path, (unsigned long long)in->line + 1);
		if (rc != LZMA_OK && rc != LZMA_STREAM_END)
			return damaged(in, err, rc == LZMA_MEM_ERROR ? "out of memory" : "its data does not check");
		used = avail - s->avail_in;
		*made = room - s->avail_out;
		end = rc == LZMA_STREAM_END;
		break;
	}
	case HOG_IN_ZSTD: {
		ZSTD_inBuffer zi = { src, avail, 0 };
		ZSTD_outBuffer zo = { out, room, 0 };
		const size_t rc = ZSTD_decompressStream(in->dec, &zo, &zi);
		if (ZSTD_isError(rc))
			return damaged(in, err, ZSTD_getErrorName(rc));
		used = zi.pos;
		*made = zo.pos;
		end = rc == 0;
		break;
	}
	}
	in->raw_pos += used;
	return end;
}

int hog_input_open(hog_input *in, const char *path, size_t max_line, hog_err *err)
{
	memset(in, 0, sizeof *in);
	in->fd = -1;
	in->path = path;
	in->max_line = max_line ? max_line : ((size_t)16 << 20);
	int rc = hog_check_stream_input(path, err);
	if (rc)
		return rc;
	int fd = hog_open_stream(path, HOG_INPUT_FIFO_WAIT_MS, err);
	if (fd < 0)
		return -fd;
	in->fd = fd;
	in->has_fd = 1;
	struct stat st;
	if (fstat(fd, &st) == 0)
		in->size = (uint64_t)st.st_size;
	in->cap = CHUNK + 1;
	if (!(in->buf = malloc(in->cap)) || !(in->raw = malloc(RAW))) {
		hog_input_close(in);
		return hog_err_set(err, ENOMEM, "%s: out of memory", path);
	}
	while (in->raw_len < 10 && !in->raw_eof) /* (a pipe may give its first bytes a few at a time) */
		if ((rc = raw_read(in, err))) {
			hog_input_close(in);
			return rc;
		}
	if (in->raw_len >= 4 && !memcmp(in->raw, "PK\3\4", 4)) {
		hog_input_close(in);
		return hog_err_set(err, HOG_EDATA, "%s: a zip archive: hogwild reads text files, plain or compressed "
		                   "(gzip, bzip2, xz, zstd); take the file out first (unzip -p ARCHIVE > FILE)", path);
	}
	in->kind = sniff(in->raw, in->raw_len);
	if (dec_start(in)) {
		hog_input_close(in);
		return hog_err_set(err, ENOMEM, "%s: cannot start the %s decompressor", path, kind_names[in->kind]);
	}
	return 0;
}

/* Appends more input after buf[len]; returns bytes added (0 at the end) or < 0. */
static int64_t fill(hog_input *in, hog_err *err)
{
	if (in->eof)
		return 0;
	size_t room = in->cap - 1 - in->len, made = 0;
	if (room > (1u << 30))
		room = 1u << 30;
	char *out = in->buf + in->len;
	while (!made && !in->eof) {
		if (in->kind == HOG_IN_PLAIN && in->raw_pos == in->raw_len && !in->raw_eof) {
			ssize_t k; /* (plain text: straight into the buffer) */
			while ((k = read(in->fd, out, room)) < 0 && errno == EINTR)
				;
			if (k < 0)
				return hog_err_set(err, HOG_EDATA, "%s:%llu: read error: %s", in->path,
				                   (unsigned long long)in->line + 1, strerror(errno));
			in->consumed += (uint64_t)k;
			in->eof = k == 0;
			made = (size_t)k;
			break;
		}
		int rc;
		if (in->raw_pos == in->raw_len && !in->raw_eof && (rc = raw_read(in, err)))
			return rc;
		const size_t avail = in->raw_len - in->raw_pos;
		if (in->kind == HOG_IN_PLAIN) {
			made = avail < room ? avail : room;
			memcpy(out, in->raw + in->raw_pos, made);
			in->raw_pos += made;
			in->eof = !made && in->raw_eof;
			break;
		}
		if (in->end) { /* between two members: another, or the end (bytes after the last are left, as gzip does) */
			if (!avail && in->raw_eof) {
				in->eof = 1;
				break;
			}
			if (in->kind == HOG_IN_GZIP || in->kind == HOG_IN_BZIP2) {
				if (avail < 10 && !in->raw_eof) {
					if ((rc = raw_read(in, err)))
						return rc;
					continue;
				}
				if (sniff(in->raw + in->raw_pos, avail) != in->kind) {
					in->eof = 1;
					break;
				}
				if (dec_start(in))
					return hog_err_set(err, ENOMEM, "%s: cannot start the %s decompressor", in->path,
					                   kind_names[in->kind]);
			}
			in->end = 0;
		}
		if (!avail && in->raw_eof && in->kind != HOG_IN_XZ)
			return hog_err_set(err, HOG_EDATA, "%s:%llu: truncated %s file (it ends inside its compressed data)",
			                   in->path, (unsigned long long)in->line + 1, kind_names[in->kind]);
		if ((rc = dec_step(in, out, room, &made, err)) < 0)
			return rc;
		in->end = rc;
	}
	in->len += made;
	return (int64_t)made;
}

int hog_input_line(hog_input *in, char **line, size_t *len, hog_err *err)
{
	for (;;) {
		char *start = in->buf + in->pos;
		size_t avail = in->len - in->pos;
		char *nl = avail ? memchr(start, '\n', avail) : NULL;
		if (nl || (in->eof && avail)) {
			size_t n = nl ? (size_t)(nl - start) : avail;
			if (n > in->max_line)
				goto too_long;
			const char *nul = memchr(start, 0, n);
			if (nul)
				return hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: NUL byte (a binary or UTF-16 file?)", in->path,
				                   (unsigned long long)in->line + 1, (size_t)(nul - start) + 1);
			in->pos += n + (nl ? 1 : 0);
			if (n && start[n - 1] == '\r')
				n--;
			start[n] = 0; /* the buffer keeps one spare byte for the end */
			in->line++;
			if (in->line == 1 && n >= 3 && !memcmp(start, "\xef\xbb\xbf", 3)) {
				start += 3; /* a UTF-8 byte-order mark (Excel's CSV) is no part of the data */
				n -= 3;
			}
			*line = start;
			*len = n;
			return 1;
		}
		if (in->eof)
			return 0;
		if (avail > in->max_line)
			goto too_long;
		/* move the partial line to the front, grow if it fills the buffer */
		memmove(in->buf, start, avail);
		in->len = avail;
		in->pos = 0;
		if (in->len + 1 >= in->cap) {
			size_t cap = in->cap * 2;
			if (cap > in->max_line + CHUNK + 1)
				cap = in->max_line + CHUNK + 1;
			char *b = realloc(in->buf, cap);
			if (!b)
				return hog_err_set(err, ENOMEM, "%s:%llu: out of memory", in->path,
				                   (unsigned long long)in->line + 1);
			in->buf = b;
			in->cap = cap;
		}
		int64_t k = fill(in, err);
		if (k < 0)
			return (int)k;
	}
too_long:
	return hog_err_set(err, HOG_EDATA, "%s:%llu:1: line longer than %zu bytes (raise the limit with --max-line)",
	                   in->path, (unsigned long long)in->line + 1, in->max_line);
}

int hog_input_read(hog_input *in, void *dst, size_t n, size_t *got, hog_err *err)
{
	size_t done = 0;
	char *d = dst;
	while (done < n) {
		if (in->pos == in->len) {
			in->pos = in->len = 0;
			int64_t k = fill(in, err);
			if (k < 0)
				return (int)k;
			if (k == 0)
				break;
		}
		size_t take = in->len - in->pos;
		if (take > n - done)
			take = n - done;
		memcpy(d + done, in->buf + in->pos, take);
		in->pos += take;
		done += take;
	}
	*got = done;
	return 0;
}

void hog_input_close(hog_input *in)
{
	dec_end(in);
	if (in->has_fd)
		close(in->fd);
	in->has_fd = 0;
	free(in->buf);
	free(in->raw);
	in->fd = -1;
	in->buf = NULL;
	in->raw = NULL;
}
