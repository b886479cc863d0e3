/* The importers behind hog_import(): one function per input format, each reading
 * its inputs through hog_input and filling a writer opened by the caller. They
 * report malformed input as "FILE:LINE:COLUMN: what is wrong" (HOG_EDATA). */
#ifndef HOG_DATA_IMPORT_H
#define HOG_DATA_IMPORT_H
#include "data/input.h"
#include "hogwild.h"

/** What every importer gets. */
typedef struct hog_import_ctx {
	const char *const *in;
	int nin;
	const char *out;
	const hog_import_opts *o;
	uint64_t total_bytes; /* sum of the input sizes, for progress */
	uint64_t done_bytes;  /* inputs finished so far */
	hog_input wf;         /* o->weights_file, open while importing */
	int wf_open;
	uint64_t wf_count;    /* weights read from it */
} hog_import_ctx;
/** Before each example is added: its weight from o->weights_file, set on @p w
 * (nothing without one). @return 0 or HOG_EDATA naming the file and line (the
 * file ended, or a weight that is not a finite number > 0). */
int hog_import_weight(hog_import_ctx *c, hog_writer *w, hog_err *err);

/** Each opens its own writer on ctx->out and commits it on success. */
int hog_import_libsvm(hog_import_ctx *c, hog_err *err);
int hog_import_csv(hog_import_ctx *c, hog_err *err);
int hog_import_ratings(hog_import_ctx *c, hog_err *err);
int hog_import_idx(hog_import_ctx *c, hog_err *err);
int hog_import_vw(hog_import_ctx *c, hog_err *err);

/** Calls the progress hook with the bytes read so far (cheap; rate-limit inside). */
void hog_import_progress(hog_import_ctx *c, const hog_input *in);
/** Counts @p len more bytes and calls the progress hook every 8 MB. */
void hog_import_tick(hog_import_ctx *c, const hog_input *in, size_t len, uint64_t *since);
/** Closes a finished input, adds its size to the bytes done, and turns the last
 * line-reader status into the importer's return code. */
int hog_import_file_done(hog_import_ctx *c, hog_input *in, int rc);
/** The importer's end: @p w aborted after an error @p rc (returned), else
 * committed; an input with no example is said as such. */
int hog_import_close(hog_import_ctx *c, hog_writer *w, int rc, hog_err *err);
/** "a.txt, b.txt" (truncated) into buf, for the meta 'source' entry. */
void hog_import_source(const hog_import_ctx *c, char *buf, size_t size);

#endif
