/* Streaming line reader over zlib's gzread (which passes plain files through).
 * See input.h. */
#include "data/input.h"
#include "data/store.h"
#include "sys/err.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK ((size_t)1 << 20)
/* How long a FIFO given as input may stay without a writer before it is an error. */
#define HOG_INPUT_FIFO_WAIT_MS 10000

int hog_input_open(hog_input *in, const char *path, size_t max_line, hog_err *err)
{
	memset(in, 0, sizeof *in);
	in->path = path;
	in->max_line = max_line ? max_line : ((size_t)16 << 20);
	int rc = hog_check_stream_input(path, err);
	if (rc)
		return rc;
	int fd = hog_open_stream(path, HOG_INPUT_FIFO_WAIT_MS, err);
	if (fd < 0)
		return -fd;
	struct stat st;
	if (fstat(fd, &st) == 0)
		in->size = (uint64_t)st.st_size;
	if (!(in->gz = gzdopen(fd, "rb"))) {
		close(fd);
		return hog_err_set(err, ENOMEM, "%s: cannot start reading", path);
	}
	gzbuffer(in->gz, 256 * 1024);
	in->cap = CHUNK + 1;
	if (!(in->buf = malloc(in->cap))) {
		hog_input_close(in);
		return hog_err_set(err, ENOMEM, "%s: out of memory", path);
	}
	return 0;
}

/* Appends more input after buf[len]; returns bytes added (0 at the end) or < 0. */
static int64_t fill(hog_input *in, hog_err *err)
{
	if (in->eof)
		return 0;
	size_t room = in->cap - 1 - in->len;
	if (room > (1u << 30))
		room = 1u << 30;
	int k = gzread(in->gz, in->buf + in->len, (unsigned)room);
	if (k < 0) {
		int zerr;
		const char *msg = gzerror(in->gz, &zerr);
		return hog_err_set(err, HOG_EDATA, "%s:%llu: read error: %s", in->path,
		                   (unsigned long long)in->line + 1, zerr == Z_ERRNO ? strerror(errno) : msg);
	}
	if (k == 0 || (size_t)k < room) {
		/* gzread reports a truncated gzip stream only through gzerror */
		int zerr;
		const char *msg = gzerror(in->gz, &zerr);
		if (zerr != Z_OK && zerr != Z_STREAM_END)
			return hog_err_set(err, HOG_EDATA, "%s:%llu: %s (truncated or damaged gzip file?)", in->path,
			                   (unsigned long long)in->line + 1, msg);
		if (k == 0)
			in->eof = 1;
	}
	in->len += (size_t)k;
	in->consumed = (uint64_t)gzoffset(in->gz);
	return k;
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
	if (in->gz)
		gzclose(in->gz);
	free(in->buf);
	in->gz = NULL;
	in->buf = NULL;
}
