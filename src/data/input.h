/* Streaming input for the importers: plain or gzip files read through zlib in
 * large chunks, handed out line by line (or as raw bytes for idx files) with the
 * line number kept for error messages. Memory is bounded by the buffer size and
 * the longest line accepted, never by the file's size. */
#ifndef HOG_DATA_INPUT_H
#define HOG_DATA_INPUT_H
#include "hogwild.h"
#include <zlib.h>

typedef struct hog_input {
	const char *path;
	gzFile gz;
	char *buf;
	size_t cap, len, pos;   /* buffer, bytes in it, read position */
	size_t max_line;
	uint64_t line;          /* number of the line last returned, from 1 */
	uint64_t consumed;      /* compressed bytes read so far (for progress) */
	uint64_t size;          /* file size in bytes */
	int eof;
} hog_input;

/** Opens @p path (refusing directories and unreadable files). */
int hog_input_open(hog_input *in, const char *path, size_t max_line, hog_err *err);
/** Next line without its newline (and '\r'), NUL-terminated in place; a UTF-8
 * byte-order mark at the start of the file is dropped.
 * @return 1 with a line, 0 at the end, or a negative code (HOG_EDATA for a line
 * longer than max_line or a truncated gzip stream). */
int hog_input_line(hog_input *in, char **line, size_t *len, hog_err *err);
/** Reads up to @p n raw bytes; *got < n only at the end of the input. */
int hog_input_read(hog_input *in, void *dst, size_t n, size_t *got, hog_err *err);
void hog_input_close(hog_input *in);

#endif
