/* The CSV importer: delimiter-separated numbers, one of the columns the label and
 * every other column a feature. Feature j is the j-th non-label column (from 0);
 * zeros are omitted, so the result is a sparse data set whose dimension is the
 * number of feature columns. The delimiter (',', tab, ';' or runs of blanks) and
 * a header line are detected from the first line unless the options fix them:
 * a first line is a header when none of its fields is a number (so "1,NA,3" is a
 * data line with an error in column 3, not a header), and the caller is told
 * through the note hook when one was skipped. A header's names are kept in the
 * meta entry "columns" when they match the data's fields. A detected header's
 * field count is enforced on the data; with --header yes it is not (some files
 * start with a line of counts).
 * Every data line must have the same number of fields as the first; an empty
 * field, a value that is not a number, NaN or Inf is an error with
 * FILE:LINE:COLUMN, never a silent skip. Blank lines and the --skip lines at the
 * start of each file are skipped. Quoted fields ("a,b") are split correctly so
 * that a header with quoted names works; a quoted value in a data line is an
 * error. */
#include "data/import.h"
#include "data/parse.h"
#include "sys/err.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Longest "columns" meta entry kept; longer headers end with ",...". */
#define CSV_COLUMNS_MAX 16384

/* What is shared by the input files of one import. */
typedef struct csv_state {
	hog_import_ctx *c;
	hog_writer *w;      /* opened once the number of fields is known */
	char sep;           /* field separator; 0: runs of blanks */
	int sep_known;
	uint32_t nfields;   /* fields per line, from the first line; 0 until then */
	uint32_t label;     /* label column, resolved */
	uint32_t wcol;      /* --weight-col, resolved (UINT32_MAX: none) */
	long named;         /* the label column a header names (csv_named_label), -1: none */
	char named_what[96];/* that column's name, for the note */
	uint32_t *ids;      /* scratch for one example */
	float *vals;
	char *columns;      /* header names joined by ',' (first file), or NULL */
	uint32_t header_fields; /* fields of that header */
	int by_text;        /* the label column is the first data line's one field of text */
	int label_names;    /* 0 until the first label; 1 numbers; 2 names (classes.c) */
	char first_label[300]; /* where the labels' kind was decided (FILE:LINE) */
	char *names;        /* the classes' names, each ended by '\n', in order of first appearance */
	size_t names_len, names_cap;
	uint32_t nnames;
	uint32_t *slot;     /* open addressing over the names: class + 1, 0 empty */
	uint32_t nslot;     /* a power of two, > 2 nnames */
	uint32_t *name_at;  /* each class's name's offset in names */
	char src[256];      /* the writer keeps a pointer to it until the commit */
} csv_state;

/* Walks the fields of one line. */
typedef struct csv_split {
	const char *p;
	char sep;
	int done;
} csv_split;

/* Blanks around a field: spaces and tabs, unless the tab is the separator. */
static int csv_pad(char ch, char sep) { return (ch == ' ' || ch == '\t') && ch != sep; }

/* Next field as [*s, *e), blanks trimmed; 0 when the line has no more fields. */
static int csv_next(csv_split *sp, const char **s, const char **e)
{
	if (sp->done)
		return 0;
	const char *p = sp->p;
	if (!sp->sep) {
		p = hog_skip_space(p);
		if (!*p) {
			sp->done = 1;
			return 0;
		}
		*s = p;
		while (*p && !hog_is_space(*p))
			p++;
		*e = p;
		sp->p = p;
		return 1;
	}
	while (csv_pad(*p, sp->sep))
		p++;
	*s = p;
	if (*p == '"') { /* RFC 4180 quoting: "" inside stands for one quote */
		for (p++; *p; p++) {
			if (*p == '"' && p[1] != '"')
				break;
			if (*p == '"')
				p++;
		}
		if (*p)
			p++;
	}
	while (*p && *p != sp->sep)
		p++;
	const char *end = p;
	while (end > *s && csv_pad(end[-1], sp->sep))
		end--;
	*e = end;
	if (*p == sp->sep)
		p++;
	else
		sp->done = 1;
	sp->p = p;
	return 1;
}

/* 1 when [s, e) is nothing but a number. */
static int csv_is_number(const char *s, const char *e)
{
	double v;
	const char *q = s < e ? hog_parse_f64(s, &v) : NULL;
	return q == e;
}

/* Labels that are names: the class of name [s, e) (quotes removed), a new one
 * numbered in order of first appearance; -1 with a message in @p why. */
#define CSV_NAME_MAX 255
static uint32_t csv_name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static long csv_class_of(csv_state *st, const char *s, const char *e, char *why, size_t size)
{
	if (e - s >= 2 && *s == '"' && e[-1] == '"') {
		s++;
		e--;
	}
	const size_t n = (size_t)(e - s);
	if (n == 0 || n > CSV_NAME_MAX) {
		snprintf(why, size, "a class name of %zu bytes (1 to %d)", n, CSV_NAME_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 32 || s[i] == '"') {
			snprintf(why, size, "a class name with a %s in it", s[i] == '"' ? "quote" : "control character");
			return -1;
		}
	uint32_t h = csv_name_hash(s, n);
	for (uint32_t at = h & (st->nslot - 1); st->nslot && st->slot[at]; at = (at + 1) & (st->nslot - 1)) {
		const uint32_t k = st->slot[at] - 1;
		const char *name = st->names + st->name_at[k];
		if (!strncmp(name, s, n) && name[n] == '\n')
			return k;
	}
	if (st->nnames == 65535) {
		snprintf(why, size, "more than 65535 class names");
		return -1;
	}
	if (2 * (st->nnames + 1) >= st->nslot) { /* grow the table (and the offsets) */
		const uint32_t ns = st->nslot ? 2 * st->nslot : 64;
		uint32_t *slot = calloc(ns, sizeof *slot), *at = realloc(st->name_at, ns / 2 * sizeof *at);
		if (!slot || !at) {
			free(slot);
			if (at)
				st->name_at = at;
			snprintf(why, size, "out of memory for the class names");
			return -1;
		}
		st->name_at = at;
		for (uint32_t k = 0; k < st->nnames; k++) {
			const char *name = st->names + at[k];
			uint32_t j = csv_name_hash(name, strcspn(name, "\n")) & (ns - 1);
			while (slot[j])
				j = (j + 1) & (ns - 1);
			slot[j] = k + 1;
		}
		free(st->slot);
		st->slot = slot;
		st->nslot = ns;
	}
	if (st->names_len + n + 2 > st->names_cap) {
		size_t cap = st->names_cap ? 2 * st->names_cap : 1024;
		while (cap < st->names_len + n + 2)
			cap *= 2;
		char *b = realloc(st->names, cap);
		if (!b) {
			snprintf(why, size, "out of memory for the class names");
			return -1;
		}
		st->names = b;
		st->names_cap = cap;
	}
	const uint32_t k = st->nnames++;
	st->name_at[k] = (uint32_t)st->names_len;
	memcpy(st->names + st->names_len, s, n);
	st->names_len += n;
	st->names[st->names_len++] = '\n';
	st->names[st->names_len] = 0;
	uint32_t j = h & (st->nslot - 1);
	while (st->slot[j])
		j = (j + 1) & (st->nslot - 1);
	st->slot[j] = k + 1;
	return k;
}

/* The separator most frequent in the first line, among ',', tab and ';';
 * 0 (blanks) when none of them occurs. */
static char csv_detect_sep(const char *line)
{
	static const char cand[3] = { ',', '\t', ';' };
	size_t best = 0;
	char sep = 0;
	for (int k = 0; k < 3; k++) {
		size_t n = 0;
		for (const char *p = line; *p; p++)
			n += *p == cand[k];
		if (n > best) {
			best = n;
			sep = cand[k];
		}
	}
	return sep;
}

/* Keeps the header's names in st->columns: quotes removed, commas and control
 * characters replaced by '_', cut at a name boundary when too long. */
static int csv_keep_header(csv_state *st, const char *line, hog_err *err)
{
	char *out = malloc(CSV_COLUMNS_MAX + 8);
	if (!out)
		return hog_err_set(err, ENOMEM, "out of memory");
	size_t at = 0;
	csv_split sp = { line, st->sep, 0 };
	const char *s, *e;
	for (uint32_t k = 0; csv_next(&sp, &s, &e); k++) {
		if (e - s >= 2 && *s == '"' && e[-1] == '"') {
			s++;
			e--;
		}
		size_t need = (size_t)(e - s) + (k ? 1 : 0);
		if (at + need > CSV_COLUMNS_MAX) {
			memcpy(out + at, ",...", 4);
			at += 4;
			break;
		}
		if (k)
			out[at++] = ',';
		for (const char *p = s; p < e; p++) {
			if (*p == '"' && p + 1 < e && p[1] == '"')
				p++; /* "" in a quoted name */
			out[at++] = *p == ',' || (unsigned char)*p < 32 ? '_' : *p;
		}
	}
	out[at] = 0;
	st->columns = out;
	return 0;
}

#define BAD(col, ...) do { \
	char what_[400]; snprintf(what_, sizeof what_, __VA_ARGS__); \
	rc = hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: %s", in.path, (unsigned long long)in.line, \
	                 (size_t)((col) - line) + 1, what_); \
	goto done; } while (0)

/* The names a header's label column goes by when --label-col is not given,
 * in order of preference (compared without case). */
static const char *const csv_label_names[] = { "label", "target", "class", "y", NULL };

static int csv_name_is(const char *s, const char *e, const char *name)
{
	size_t n = strlen(name);
	return (size_t)(e - s) == n && !strncasecmp(s, name, n);
}

/* The column of header @p line that holds the label: the one named o->label_name,
 * or when the caller chose no column, the first of csv_label_names[] found;
 * -1 when there is none. Its name goes to st->named_what. */
static long csv_named_label(csv_state *st, const char *line)
{
	const hog_import_opts *o = st->c->o;
	if (o->label_given && !o->label_name)
		return -1;
	long best = -1;
	int best_rank = INT_MAX;
	csv_split sp = { line, st->sep, 0 };
	const char *s, *e;
	for (long k = 0; csv_next(&sp, &s, &e); k++) {
		if (e - s >= 2 && *s == '"' && e[-1] == '"') {
			s++;
			e--;
		}
		for (int r = 0; o->label_name ? r == 0 : csv_label_names[r] != NULL; r++)
			if (r < best_rank && csv_name_is(s, e, o->label_name ? o->label_name : csv_label_names[r])) {
				best = k;
				best_rank = r;
				snprintf(st->named_what, sizeof st->named_what, "%.*s", (int)(e - s < 80 ? e - s : 80), s);
			}
	}
	return best;
}

/* Tells the caller which header column became the label, and how it was chosen. */
static void csv_note_label(csv_state *st, const hog_input *in)
{
	const hog_import_opts *o = st->c->o;
	char name[96] = "";
	if (st->named >= 0) {
		snprintf(name, sizeof name, "%s", st->named_what);
	} else { /* the label-th name of st->columns */
		const char *p = st->columns;
		for (uint32_t k = 0; p && k < st->label; k++)
			p = (p = strchr(p, ',')) ? p + 1 : NULL;
		if (p)
			snprintf(name, sizeof name, "%.*s", (int)strcspn(p, ","), p);
	}
	char msg[300];
	snprintf(msg, sizeof msg, "%.80s:%llu: the label is column %u, '%s'%s", in->path,
	         (unsigned long long)in->line, st->label, name,
	         st->named >= 0 ? (o->label_name ? "" : " (by its name; --label-col N or NAME chooses another)")
	         : o->label_given ? ""
	         : st->by_text    ? " (the one column of names, not numbers; --label-col N or NAME chooses another)"
	                          : " (no column is named label, target, class or y; --label-col N or NAME chooses)");
	o->note(o->note_ud, msg);
}

/* How files say "no value": NA, N/A, null, None, nil, ? or - (any case). */
static int csv_is_missing(const char *s, const char *e)
{
	static const char *const marks[] = { "na", "n/a", "null", "none", "nil", "?", "-", NULL };
	for (int k = 0; marks[k]; k++)
		if (csv_name_is(s, e, marks[k]))
			return 1;
	return 0;
}

/* The first line of the first file fixes the number of fields and the label
 * column, and opens the writer (whose dimension depends on them). Without a
 * column named or given, the label is the one field of the first data line
 * (@p data, NULL at a header) that is not a number, where there is exactly one,
 * it is the first or the last, and it is no mark of a missing value (a column
 * of class names: "5.1,3.5,1.4,0.2,setosa"); else column 0 ("1,NA,3" stays a
 * data line with an error in column 2). */
static int csv_first_line(csv_state *st, const hog_input *in, uint32_t nf, const char *data, hog_err *err)
{
	const hog_import_opts *o = st->c->o;
	if (nf < 2 - !!o->no_label)
		return hog_err_set(err, HOG_EDATA, "%s:%llu:1: found %u field%s: a label and at least one "
		                   "feature column are needed%s", in->path, (unsigned long long)in->line, nf,
		                   nf == 1 ? "" : "s", st->sep ? "" : " (no ',', tab or ';' in the line)");
	if (o->no_label) { /* every column a feature: no label column to find */
		st->nfields = nf;
		st->label = st->wcol = UINT32_MAX;
		if (!(st->ids = malloc(nf * sizeof *st->ids)) || !(st->vals = malloc(nf * sizeof *st->vals)))
			return hog_err_set(err, ENOMEM, "out of memory for %u columns", nf);
		hog_import_source(st->c, st->src, sizeof st->src);
		hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = o->task, .features = nf, .unlabelled = 1,
		                       .block_examples = o->block_examples, .value_precision = o->value_precision,
	                       .raw_blocks = o->raw_blocks, .source = st->src };
		return hog_writer_open(&st->w, st->c->out, &wo, err);
	}
	if (o->label_name && st->named < 0)
		return hog_err_set(err, HOG_ECONFIG, "%s:%llu: no column named '%s'%s", in->path,
		                   (unsigned long long)in->line, o->label_name,
		                   st->columns ? "" : " (the file has no header line; give --label-col a number)");
	long lc = st->named >= 0 ? st->named : o->label_col < 0 ? (long)nf + o->label_col : o->label_col;
	if (st->named < 0 && !o->label_given && data) { /* the one field of text, where there is one */
		csv_split sp = { data, st->sep, 0 };
		const char *s, *e;
		long text = -1, ntext = 0;
		int missing = 0;
		for (long k = 0; csv_next(&sp, &s, &e); k++)
			if (s < e && !csv_is_number(s, e)) {
				text = k;
				ntext++;
				missing |= csv_is_missing(s, e);
			}
		if (ntext == 1 && !missing && (text == 0 || text == (long)nf - 1)) {
			lc = text;
			st->by_text = 1;
		}
	}
	if (lc < 0 || lc >= (long)nf)
		return hog_err_set(err, HOG_ECONFIG, "%s:%llu: label column %d is out of range: lines have %u fields",
		                   in->path, (unsigned long long)in->line, o->label_col, nf);
	st->nfields = nf;
	st->label = (uint32_t)lc;
	st->wcol = UINT32_MAX;
	if (o->weight_given) {
		long wc = o->weight_col < 0 ? (long)nf + o->weight_col : o->weight_col;
		if (wc < 0 || wc >= (long)nf || wc == lc || nf < 3)
			return hog_err_set(err, HOG_ECONFIG, "%s:%llu: weight column %d is %s: lines have %u fields", in->path,
			                   (unsigned long long)in->line, o->weight_col,
			                   wc == lc ? "the label column" : nf < 3 ? "the only feature" : "out of range", nf);
		st->wcol = (uint32_t)wc;
	}
	if (st->columns && o->note)
		csv_note_label(st, in);
	if (!(st->ids = malloc(nf * sizeof *st->ids)) || !(st->vals = malloc(nf * sizeof *st->vals)))
		return hog_err_set(err, ENOMEM, "out of memory for %u columns", nf);
	hog_import_source(st->c, st->src, sizeof st->src);
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = o->task, .features = nf - 1 - (st->wcol != UINT32_MAX),
	                       .block_examples = o->block_examples, .value_precision = o->value_precision,
	                       .raw_blocks = o->raw_blocks, .source = st->src };
	return hog_writer_open(&st->w, st->c->out, &wo, err);
}

/* The label field [s, e) of @p line: a number, or where the first label was
 * not one, a class name (csv_class_of), numbered in order of first appearance. */
static int csv_label(csv_state *st, const hog_input *in, const char *s, const char *e, const char *line, double *y,
                     hog_err *err)
{
	const hog_import_opts *o = st->c->o;
	const unsigned long long ln = (unsigned long long)in->line;
	const size_t col = (size_t)(s - line) + 1;
	const int w = (int)(e - s > 40 ? 40 : e - s);
	double v = 0;
	const int number = hog_parse_f64(s, &v) == e;
	if (!st->label_names) {
		st->label_names = number || o->task == HOG_TASK_REGRESSION ? 1 : 2;
		snprintf(st->first_label, sizeof st->first_label, "%.200s:%llu", in->path, ln);
	}
	if (st->label_names == 2) {
		char why[120];
		const long k = csv_class_of(st, s, e, why, sizeof why);
		if (k < 0)
			return hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: %s", in->path, ln, col, why);
		*y = (double)k;
		return 0;
	}
	if (!number && o->task == HOG_TASK_REGRESSION)
		return hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: expected a number in column %u (the label), found "
		                   "'%.*s' (--task regression takes numbers)", in->path, ln, col, st->label + 1, w, s);
	if (!number)
		return hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: expected a number in column %u (the label), found "
		                   "'%.*s': the first label (%s) is a number, so every label must be one (a column of "
		                   "class names is read as names from its first label on)", in->path, ln, col,
		                   st->label + 1, w, s, st->first_label);
	if (!isfinite(v) || !isfinite((float)v))
		return hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: label in column %u is not finite", in->path, ln, col,
		                   st->label + 1);
	*y = v;
	return 0;
}

/* Reads one CSV file into the writer. */
static int csv_file(csv_state *st, const char *path, hog_err *err)
{
	hog_import_ctx *c = st->c;
	hog_input in;
	int rc = hog_input_open(&in, path, c->o->max_line, err);
	if (rc)
		return rc;
	char *line;
	size_t len;
	uint64_t since_progress = 0;
	int first = 1;
	while ((rc = hog_input_line(&in, &line, &len, err)) == 1) {
		if (in.line <= c->o->skip_lines || *hog_skip_space(line) == 0)
			continue; /* skipped or blank line */
		if (!st->sep_known) {
			st->sep = c->o->delim == ' ' ? 0 : c->o->delim ? c->o->delim : csv_detect_sep(line);
			st->sep_known = 1;
		}
		csv_split sp = { line, st->sep, 0 };
		const char *s, *e;
		if (first) {
			first = 0;
			uint32_t nf = 0;
			int any_number = 0, any_text = 0;
			while (csv_next(&sp, &s, &e)) {
				if (csv_is_number(s, e))
					any_number = 1;
				else if (s < e)
					any_text = 1;
				nf++;
			}
			int header = c->o->header < 0 ? !any_number && any_text : c->o->header > 0;
			if (header) {
				/* A detected header fixes the field count, as a safety; one the
				 * user vouched for (--header yes) may be anything (counts, a
				 * title), and the first data line fixes it. */
				if (!st->columns) {
					st->named = csv_named_label(st, line);
					if ((rc = csv_keep_header(st, line, err)))
						goto done;
					st->header_fields = nf;
				}
				if (c->o->header < 0 && c->o->note) {
					char msg[200];
					snprintf(msg, sizeof msg, "%.80s:%llu: a header line, skipped: '%.40s%s' "
					         "(--header no reads it as data)", path, (unsigned long long)in.line, line,
					         len > 40 ? "..." : "");
					c->o->note(c->o->note_ud, msg);
				}
				/* (without a label column named or given, the first data line
				 * says: csv_first_line's one field of text) */
				if (c->o->header < 0 && !st->nfields && (st->named >= 0 || c->o->label_given || c->o->no_label) &&
				    (rc = csv_first_line(st, &in, nf, NULL, err)))
					goto done;
				continue;
			}
			sp = (csv_split){ line, st->sep, 0 };
		}
		if (!st->nfields) {
			uint32_t nf = 0;
			while (csv_next(&sp, &s, &e))
				nf++;
			/* (a detected header's count holds the data to it: the check below) */
			if ((rc = csv_first_line(st, &in, st->header_fields && c->o->header < 0 ? st->header_fields : nf,
			                         line, err)))
				goto done;
			sp = (csv_split){ line, st->sep, 0 };
		}
		uint32_t k = 0, nnz = 0, j = 0;
		double y = 0, wt = 1;
		while (csv_next(&sp, &s, &e)) {
			if (k == st->nfields) {
				const char *extra = s;
				while (csv_next(&sp, &s, &e))
					k++;
				BAD(extra, "expected %u fields, found %u", st->nfields, k + 1);
			}
			if (s == e)
				BAD(s, "empty field (column %u)", k + 1);
			if (k == st->label) {
				if ((rc = csv_label(st, &in, s, e, line, &y, err)))
					goto done;
				k++;
				continue;
			}
			double v;
			const char *q = hog_parse_f64(s, &v);
			if (q != e)
				BAD(s, "expected a number in column %u, found '%.*s'%s", k + 1,
				    (int)(e - s > 40 ? 40 : e - s), s,
				    in.line == c->o->skip_lines + 1 && c->o->header <= 0
				        ? " (a header line? then give --header yes)"
				        : " (features are numbers: a column of names is read as the label with --label-col, "
				          "others must be encoded as numbers first)");
			if (!isfinite(v) || !isfinite((float)v))
				BAD(s, "value in column %u is not finite", k + 1);
			if (k == st->wcol) {
				if (!(v > 0 && (float)v > 0))
					BAD(s, "weight %g in column %u: a weight must be a finite number > 0", v, k + 1);
				wt = v;
			} else {
				if (v != 0) {
					st->ids[nnz] = j;
					st->vals[nnz++] = (float)v;
				}
				j++;
			}
			k++;
		}
		if (k != st->nfields)
			BAD(line + len, "expected %u fields, found %u", st->nfields, k);
		if ((wt != 1 && (rc = hog_writer_set_weight(st->w, wt, err))) || (rc = hog_import_weight(c, st->w, err)))
			goto done;
		if ((rc = hog_writer_add_sparse(st->w, (float)y, st->ids, st->vals, nnz, err))) {
			hog_err_prefix(err, "%s:%llu", path, (unsigned long long)in.line);
			goto done;
		}
		hog_import_tick(c, &in, len, &since_progress);
	}
done:
	return hog_import_file_done(c, &in, rc);
}

/* Tells the caller the classes the names became: class k is the k-th name met. */
static void csv_note_classes(const csv_state *st)
{
	char msg[400];
	int at = snprintf(msg, sizeof msg, "the labels are class names, numbered as first met:");
	uint32_t k = 0;
	for (; k < st->nnames && at < (int)sizeof msg - 80; k++) {
		size_t n;
		const char *name = hog_class_name(st->names, k, &n);
		at += snprintf(msg + at, sizeof msg - (size_t)at, "%s %u '%.*s'", k ? "," : "", k, (int)(n > 40 ? 40 : n),
		               name);
	}
	if (k < st->nnames)
		snprintf(msg + at, sizeof msg - (size_t)at, ", ... (%u in all)", st->nnames);
	else if (st->nnames == 2)
		snprintf(msg + at, sizeof msg - (size_t)at, " (binary: 1 the positive class)");
	st->c->o->note(st->c->o->note_ud, msg);
}

int hog_import_csv(hog_import_ctx *c, hog_err *err)
{
	csv_state st = { .c = c, .named = -1 };
	int rc = 0;
	for (int i = 0; i < c->nin && !rc; i++)
		rc = csv_file(&st, c->in[i], err);
	if (!rc && !st.w)
		rc = hog_err_set(err, HOG_EDATA, "%s: no examples in the input", c->in[0]);
	if (!rc && st.columns && st.header_fields == st.nfields) /* names that fit the columns */
		rc = hog_writer_meta_set(st.w, "columns", st.columns, err);
	if (!rc && st.label_names == 2) {
		if ((rc = hog_writer_set_class_names(st.w, st.names, err)))
			hog_err_prefix(err, "%s", c->in[0]);
		else if (c->o->note)
			csv_note_classes(&st);
	}
	free(st.names);
	free(st.slot);
	free(st.name_at);
	free(st.ids);
	free(st.vals);
	free(st.columns);
	return hog_import_close(c, st.w, rc, err);
}
