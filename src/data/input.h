/* Streaming input for the importers: plain text or a compressed file (gzip,
 * bzip2, xz, zstd: told by its first bytes, not by its name), read in large
 * chunks and handed out line by line (or as raw bytes for idx files) with the
 * line number kept for error messages. A file of several compressed members
 * (pigz's, pbzip2's, cat a.gz b.gz) reads as their concatenation. Memory is
 * bounded by the buffers and the longest line accepted, never by the file's
 * size. A pipe reads as a file does: nothing is read twice. */
#ifndef HOG_DATA_INPUT_H
#define HOG_DATA_INPUT_H
#include "hogwild.h"
#include <stddef.h>
#include <stdint.h>

typedef struct hog_input {
	const char *path;
	int fd;                 /* (valid where has_fd: a zeroed hog_input closes nothing) */
	int has_fd;
	int kind;               /* HOG_IN_PLAIN, ... (input.c) */
	void *dec;              /* the decompressor's state */
	int end;                /* the decompressor stands between two members */
	unsigned char *raw;     /* bytes read from the file, not yet decompressed */
	size_t raw_len, raw_pos;
	int raw_eof;
	char *buf;
	size_t cap, len, pos;   /* buffer, bytes in it, read position */
	size_t max_line;
	uint64_t line;          /* number of the line last returned, from 1 */
	uint64_t consumed;      /* bytes read from the file so far (for progress) */
	uint64_t size;          /* file size in bytes */
	int eof;
} hog_input;

/** Opens @p path (refusing directories, unreadable files and zip archives). */
int hog_input_open(hog_input *in, const char *path, size_t max_line, hog_err *err);
/** "plain", "gzip", "bzip2", "xz" or "zstd": what hog_input_open found. */
const char *hog_input_kind(const hog_input *in);
/** Next line without its newline (and '\r'), NUL-terminated in place; a UTF-8
 * byte-order mark at the start of the file is dropped.
 * @return 1 with a line, 0 at the end, or a negative code (HOG_EDATA for a line
 * longer than max_line or a truncated or damaged compressed file). */
int hog_input_line(hog_input *in, char **line, size_t *len, hog_err *err);
/** Reads up to @p n raw bytes; *got < n only at the end of the input. */
int hog_input_read(hog_input *in, void *dst, size_t n, size_t *got, hog_err *err);
void hog_input_close(hog_input *in);

#endif
