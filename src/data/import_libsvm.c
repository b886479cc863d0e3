/* The LIBSVM/SVMlight importer.
 *
 * LIBSVM lines are "label [qid:N] id:value id:value ... [# comment]" with ids
 * from 1, strictly increasing. We store ids from 0. Blank lines and lines that
 * are only a comment are skipped. Everything else that is off is an error with
 * FILE:LINE:COLUMN, never a silent skip.
 *
 * A set without labels (to predict on): lines that start with a feature
 * ("3:0.5 7:1"). The first line says which the set is (or --no-label does), and
 * every line must agree with it; such a set stores labels of 0 and says it has
 * none (meta "labels").
 *
 * Example weights (XGBoost's LIBSVM convention): "label:weight id:value ...".
 * A first token "A:B" is label:weight when A cannot be a feature index (a sign,
 * a point, an exponent or 0: "+1:2", "-1:0.5", "0:3"), or once an earlier line
 * of the set had a weight; otherwise "1:2" is a feature, of a line without a
 * label (so a line that lost its label is still caught in a labelled set).
 * Export writes positive labels with weights as "+1:2". */
#include "data/import.h"
#include "data/parse.h"
#include "data/store.h"
#include "sys/err.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BAD(col, ...) do { \
	char what_[840]; snprintf(what_, sizeof what_, __VA_ARGS__); \
	rc = hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: %s", in.path, (unsigned long long)in.line, \
	                 (size_t)((col) - line) + 1, what_); \
	goto done; } while (0)

/* Whether the lines have labels: decided by --no-label or the first line (where, for messages). */
typedef struct libsvm_labels {
	int state; /* -1 not known yet, 0 no labels, 1 labels */
	int weighted; /* a line had label:weight */
	char where[300], why[800];
	char tok[44]; /* the first line's "A:B", read as a feature (no labels): for the messages' hint */
} libsvm_labels;

/* What a set without labels decided by its first line's "A:B" says where its
 * lines then do not fit: that token may have been a label with its weight. */
static const char *libsvm_hint(const libsvm_labels *lb, char *buf, size_t n)
{
	if (lb->state || !lb->tok[0])
		return "";
	snprintf(buf, n, " (line %.*s began with '%s', read as a feature of a set without labels; a label with an "
	         "example weight is written with its sign: '+%s')", 20, strrchr(lb->where, ':') + 1, lb->tok, lb->tok);
	return buf;
}

/* Whether the token p..q reads as a LIBSVM feature index (digits, not 0). */
static int libsvm_index_like(const char *p, const char *q)
{
	int nonzero = 0;
	for (; p < q; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		nonzero |= *p != '0';
	}
	return nonzero;
}

/* The label of the line at @p p into *y, and where its features start (or its
 * ":weight", at which the caller reads the weight); NULL with *why set when the
 * line does not agree with the set's labels. */
static const char *libsvm_label(libsvm_labels *lb, const hog_import_opts *o, const hog_input *in, const char *p,
                                double *y, const char **why)
{
	const char *q = hog_parse_f64(p, y);
	int none = (q && *q == ':') || !strncmp(p, "qid:", 4); /* a feature where the label would be */
	if (none && q && *q == ':' && !o->no_label && (lb->weighted || !libsvm_index_like(p, q)))
		none = 0; /* label:weight */
	if (none)
		*y = 0;
	if (lb->state < 0) {
		lb->state = !none;
		snprintf(lb->where, sizeof lb->where, "%.200s:%llu", in->path, (unsigned long long)in->line);
		if (none && q && *q == ':' && !o->no_label) /* (a value after the ':' up to a blank) */
			snprintf(lb->tok, sizeof lb->tok, "%.*s", (int)(strcspn(p, " \t") < 40 ? strcspn(p, " \t") : 40), p);
	}
	*why = NULL;
	if (none && lb->state)
		snprintf(lb->why, sizeof lb->why, "no label, but %s has one (a set is labelled throughout or not at all; "
		         "label:weight? write the label with its sign, +1:2)", lb->where);
	else if (!none && !lb->state && o->no_label)
		snprintf(lb->why, sizeof lb->why, "a label (or no feature): --no-label says the lines have none "
		         "(id:value ...)");
	else if (!none && !lb->state) {
		char h[320];
		snprintf(lb->why, sizeof lb->why, "a label (or no feature), but %.180s has none (a set without labels is "
		         "one of features only, id:value ...)%s", lb->where, libsvm_hint(lb, h, sizeof h));
	}
	else
		return none ? p : q;
	*why = lb->why;
	return NULL;
}

/* Reads one LIBSVM file into w; ids/vals are scratch arrays grown as needed. */
/* The ids' base: --zero-based, or the comment scikit-learn's dump_svmlight_file
 * writes above its lines ("# Column indices are zero-based"), and the smallest
 * index met (a --zero-based file that never has 0 may be one-based: said). */
typedef struct libsvm_base {
	uint64_t base;     /* the files' first index, stored as id 0 */
	int lines;         /* data lines read so far (the comment counts before the first) */
	int said;          /* the file said its base in that comment */
	uint64_t least;    /* the smallest index met (UINT64_MAX: none) */
} libsvm_base;

/* A comment line before the data: scikit-learn's words for the base. */
static void libsvm_base_comment(hog_import_ctx *c, libsvm_base *b, const hog_input *in, const char *p)
{
	const int zero = strstr(p, "Column indices are zero-based") != NULL,
	          one = strstr(p, "Column indices are one-based") != NULL;
	if (b->lines || !(zero || one))
		return;
	char msg[400];
	if (zero && !c->o->zero_based && b->base) {
		b->base = 0;
		b->said = 1;
		snprintf(msg, sizeof msg, "%.200s:%llu: the file says its column indices are zero-based (scikit-learn's "
		         "dump_svmlight_file): read so, as --zero-based reads them", in->path, (unsigned long long)in->line);
	} else if (one && c->o->zero_based) {
		snprintf(msg, sizeof msg, "warning: %.200s:%llu: the file says its column indices are one-based, but "
		         "--zero-based reads them from 0: every feature one off from a one-based set's", in->path,
		         (unsigned long long)in->line);
	} else {
		b->said = 1;
		return;
	}
	if (c->o->note)
		c->o->note(c->o->note_ud, msg);
}

static int libsvm_file(hog_import_ctx *c, libsvm_labels *lb, libsvm_base *bs, const char *path, hog_writer *w,
                       uint32_t **ids, float **vals, size_t *cap, hog_err *err)
{
	hog_input in;
	int rc = hog_input_open(&in, path, c->o->max_line, err);
	if (rc)
		return rc;
	uint64_t dim = c->o->features;
	char *line;
	size_t len;
	uint64_t since_progress = 0;
	while ((rc = hog_input_line(&in, &line, &len, err)) == 1) {
		const char *p = hog_skip_space(line);
		if (*p == '#')
			libsvm_base_comment(c, bs, &in, p);
		if (*p == 0 || *p == '#')
			continue;
		bs->lines++;
		const uint64_t base = bs->base;
		double y;
		const char *why, *q = libsvm_label(lb, c->o, &in, p, &y, &why);
		if (why)
			BAD(p, "%s", why);
		if (lb->state && q && *q == ':') { /* label:weight */
			double wt;
			const char *ws = q + 1;
			if (!(q = hog_parse_f64(ws, &wt)) || !(hog_is_space(*q) || *q == 0 || *q == '#'))
				BAD(ws, "expected a numeric example weight after the label's ':' (label:weight)");
			if (!(isfinite(wt) && wt > 0 && isfinite((float)wt) && (float)wt > 0))
				BAD(ws, "example weight %g: a weight must be a finite number > 0", wt);
			if ((rc = hog_writer_set_weight(w, wt, err)))
				goto done;
			lb->weighted = 1;
		}
		if (lb->state && q && *q == ',') /* (LIBSVM's multilabel sets: rcv1v2 topics, mediamill) */
			BAD(p, "a list of labels ('%.*s'): a multi-label file, which hogwild does not train; one label a "
			    "line (binary, multiclass or a value)", (int)(strcspn(p, " \t") > 40 ? 40 : strcspn(p, " \t")), p);
		if (lb->state && (!q || !(hog_is_space(*q) || *q == 0 || *q == '#')))
			BAD(p, "expected a numeric label");
		if (lb->state && !isfinite(y))
			BAD(p, "label is not finite");
		p = hog_skip_space(q);
		uint32_t nnz = 0;
		while (*p && *p != '#') {
			const char *at = p;
			if (*p == 'q' && !strncmp(p, "qid:", 4)) { /* SVMlight query id: ignored */
				uint64_t qid;
				if (nnz || !(q = hog_parse_u64(p + 4, &qid)))
					BAD(at, "qid: must come right after the label, followed by a number");
				p = hog_skip_space(q);
				continue;
			}
			uint64_t id;
			if (*p == '-')
				BAD(at, "negative feature index");
			if (!(q = hog_parse_u64(p, &id)))
				BAD(at, "expected a feature index (id:value)");
			if (*q != ':')
				BAD(q, "expected ':' after feature index %llu", (unsigned long long)id);
			if (id == 0 && base)
				BAD(at, "feature index 0: LIBSVM indices start at 1 (a file whose indices start at 0, as "
				        "scikit-learn's dump_svmlight_file writes by default: --zero-based)");
			if (id - base >= UINT32_MAX)
				BAD(at, "feature index %llu beyond 2^32-%d", (unsigned long long)id, (int)(2 - base));
			if (dim && id - base >= dim)
				BAD(at, "feature index %llu beyond the dimension %llu%s", (unsigned long long)id,
				    (unsigned long long)dim, base ? "" : " (indices from 0)");
			char h[320];
			if (nnz && id - base <= (*ids)[nnz - 1])
				BAD(at, id - base == (*ids)[nnz - 1] ? "duplicate feature index %llu%s"
				                                      : "feature index %llu not increasing%s", (unsigned long long)id,
				    libsvm_hint(lb, h, sizeof h));
			double v;
			const char *vs = q + 1;
			if (!(q = hog_parse_f64(vs, &v)) || !(hog_is_space(*q) || *q == 0 || *q == '#'))
				BAD(vs, "expected a numeric value after '%llu:'", (unsigned long long)id);
			if (!isfinite(v) || !isfinite((float)v))
				BAD(vs, isfinite(v) ? "value of feature %llu is beyond a float's range (3.4e38)"
				                    : "value of feature %llu is not finite", (unsigned long long)id);
			if (nnz == *cap) {
				size_t nc = *cap * 2;
				uint32_t *ni = realloc(*ids, nc * 4);
				if (ni) *ids = ni;
				float *nv = realloc(*vals, nc * 4);
				if (nv) *vals = nv;
				if (!ni || !nv) {
					rc = hog_err_set(err, ENOMEM, "%s:%llu: out of memory", path, (unsigned long long)in.line);
					goto done;
				}
				*cap = nc;
			}
			bs->least = id < bs->least ? id : bs->least;
			(*ids)[nnz] = (uint32_t)(id - base);
			(*vals)[nnz++] = (float)v;
			p = hog_skip_space(q);
		}
		if ((rc = hog_import_weight(c, w, err)))
			goto done;
		if ((rc = hog_writer_add_sparse(w, (float)y, *ids, *vals, nnz, err))) {
			hog_err_prefix(err, "%s:%llu", path, (unsigned long long)in.line);
			goto done;
		}
		hog_import_tick(c, &in, len, &since_progress);
	}
done:
	return hog_import_file_done(c, &in, rc);
}

int hog_import_libsvm(hog_import_ctx *c, hog_err *err)
{
	char src[256];
	hog_import_source(c, src, sizeof src);
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = c->o->task, .features = c->o->features,
	                       .block_examples = c->o->block_examples,
	                       .value_precision = c->o->value_precision, .raw_blocks = c->o->raw_blocks, .source = src };
	hog_writer *w;
	int rc = hog_writer_open(&w, c->out, &wo, err);
	if (rc)
		return rc;
	size_t cap = 1024;
	uint32_t *ids = malloc(cap * 4);
	float *vals = malloc(cap * 4);
	if (!ids || !vals)
		rc = hog_err_set(err, ENOMEM, "out of memory");
	libsvm_labels lb = { .state = c->o->no_label ? 0 : -1 };
	libsvm_base bs = { .base = c->o->zero_based ? 0 : 1, .least = UINT64_MAX };
	for (int i = 0; i < c->nin && !rc; i++)
		rc = libsvm_file(c, &lb, &bs, c->in[i], w, &ids, &vals, &cap, err);
	if (lb.state == 0)
		hog_writer_set_unlabelled(w);
	if (!rc && !bs.base && !bs.said && bs.least != UINT64_MAX && bs.least > 0 && c->o->note) {
		char msg[400]; /* (a one-based file read from 0: its features one off from its test file's) */
		snprintf(msg, sizeof msg, "warning: --zero-based, but no line has feature index 0 (the least is %llu): if "
		         "the file is one-based, as LIBSVM's own are, import it without --zero-based",
		         (unsigned long long)bs.least);
		c->o->note(c->o->note_ud, msg);
	}
	if (!rc) { /* (a set imported apart from another base is refused beside it: reconcile.c) */
		rc = hog_writer_meta_set(w, "libsvm_base", bs.base ? "1" : "0", err);
	}
	free(ids);
	free(vals);
	return hog_import_close(c, w, rc, err);
}
