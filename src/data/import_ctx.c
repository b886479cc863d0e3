/* What every importer shares (import.h): progress over the inputs' bytes, the
 * end of one input file, and the meta 'source' entry. Apart from import.c, which
 * calls the importers, so that the importers and it do not include each other. */
#include "data/import.h"
#include "sys/err.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

void hog_import_progress(hog_import_ctx *c, const hog_input *in)
{
	if (c->o->progress)
		c->o->progress(c->o->progress_ud, c->done_bytes + in->consumed, c->total_bytes);
}

void hog_import_tick(hog_import_ctx *c, const hog_input *in, size_t len, uint64_t *since)
{
	if ((*since += len) > (8u << 20)) {
		*since = 0;
		hog_import_progress(c, in);
	}
}

int hog_import_file_done(hog_import_ctx *c, hog_input *in, int rc)
{
	c->done_bytes += in->size;
	hog_input_close(in);
	return rc < 0 || rc > 1 ? rc : 0; /* 1 is "a line was read": not an error */
}

void hog_import_source(const hog_import_ctx *c, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = 0;
	for (int i = 0; i < c->nin && at + 1 < size; i++) {
		const char *base = strrchr(c->in[i], '/');
		base = base ? base + 1 : c->in[i];
		int k = snprintf(buf + at, size - at, "%s%s", i ? ", " : "", base);
		if (k < 0)
			break;
		at += (size_t)k;
	}
}

int hog_import_close(hog_import_ctx *c, hog_writer *w, int rc, hog_err *err)
{
	if (rc) {
		hog_writer_abort(w);
		return rc;
	}
	if ((rc = hog_writer_commit(w, err)) && strstr(err ? err->msg : "", "empty"))
		hog_err_set(err, rc, "%s: no examples in the input", c->in[0]);
	return rc;
}
