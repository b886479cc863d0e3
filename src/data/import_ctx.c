/* What every importer shares (import.h): progress over the inputs' bytes, the
 * end of one input file, and the meta 'source' entry. Apart from import.c, which
 * calls the importers, so that the importers and it do not include each other. */
#include "data/import.h"
#include "data/store.h"
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

#include "data/parse.h"
#include <math.h>

int hog_import_weight(hog_import_ctx *c, hog_writer *w, hog_err *err)
{
	if (!c->o->weights_file)
		return 0;
	int rc;
	if (!c->wf_open) {
		if ((rc = hog_input_open(&c->wf, c->o->weights_file, 1 << 20, err)))
			return rc;
		c->wf_open = 1;
	}
	char *line;
	size_t len;
	while ((rc = hog_input_line(&c->wf, &line, &len, err)) == 1) {
		const char *p = hog_skip_space(line);
		if (*p == 0 || *p == '#')
			continue;
		double x;
		const char *q = hog_parse_f64(p, &x);
		if (!q || *hog_skip_space(q) != 0)
			return hog_err_set(err, HOG_EDATA, "%s:%llu: expected one number, an example weight",
			                   c->wf.path, (unsigned long long)c->wf.line);
		if (!(isfinite(x) && x > 0 && isfinite((float)x) && (float)x > 0))
			return hog_err_set(err, HOG_EDATA, "%s:%llu: weight %g: a weight must be a finite number > 0",
			                   c->wf.path, (unsigned long long)c->wf.line, x);
		c->wf_count++;
		return hog_writer_set_weight(w, x, err);
	}
	if (rc < 0 || rc > 1)
		return rc;
	return hog_err_set(err, HOG_EDATA, "%s: %llu weights, but the input has more examples (one weight a line, "
	                   "one line an example)", c->wf.path, (unsigned long long)c->wf_count);
}

/* The weights file's end: no weight may be left over. */
static int import_weights_end(hog_import_ctx *c, hog_err *err)
{
	int rc = 0;
	char *line;
	size_t len;
	if (!c->wf_open)
		return 0;
	while (!rc && (rc = hog_input_line(&c->wf, &line, &len, err)) == 1) {
		const char *p = hog_skip_space(line);
		if (*p == 0 || *p == '#') {
			rc = 0;
			continue;
		}
		rc = hog_err_set(err, HOG_EDATA, "%s:%llu: more weights than the input's %llu examples (one weight a line, "
		                 "one line an example)", c->wf.path, (unsigned long long)c->wf.line,
		                 (unsigned long long)c->wf_count);
	}
	hog_input_close(&c->wf);
	c->wf_open = 0;
	return rc < 0 || rc > 1 ? rc : 0;
}

int hog_import_close(hog_import_ctx *c, hog_writer *w, int rc, hog_err *err)
{
	int rw = import_weights_end(c, rc ? NULL : err);
	if (!rc)
		rc = rw;
	if (rc) {
		hog_writer_abort(w);
		return rc;
	}
	char msg[300];
	if (c->o->note && hog_writer_counted(w, msg, sizeof msg))
		c->o->note(c->o->note_ud, msg);
	if ((rc = hog_writer_commit(w, err)) && strstr(err ? err->msg : "", "empty"))
		hog_err_set(err, rc, "%s: no examples in the input", c->in[0]);
	return rc;
}
