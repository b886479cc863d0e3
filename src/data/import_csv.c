/* The CSV importer: delimiter-separated numbers, one of the columns the label and
 * every other column a feature. Feature j is the j-th non-label column (from 0);
 * zeros are omitted, so the result is a sparse data set whose dimension is the
 * number of feature columns. The delimiter (',', tab, ';' or runs of blanks) and
 * a header line are detected from the first line unless the options fix them:
 * a first line is a header when none of its fields is a number (so "1,NA,3" is a
 * data line with an error in column 3, not a header), or when the line after it
 * says so (import_csv_head.c: names over numbers, column numbers), and the caller is told
 * through the note hook when one was skipped. A header's names are kept in the
 * meta entry "columns" when they match the data's fields. A detected header's
 * field count is enforced on the data; with --header yes it is not (some files
 * start with a line of counts).
 * Every data line must have the same number of fields as the first; an empty
 * field, a value that is not a number, NaN or Inf is an error with
 * FILE:LINE:COLUMN, never a silent skip. Blank lines and the --skip lines at the
 * start of each file are skipped. Quoted fields ("a,b") are split correctly so
 * that a header with quoted names works, and a quoted field reads as what it
 * quotes ("5.1" is 5.1, as a file that quotes every field writes it). */
#include "data/import.h"
#include "data/import_csv.h"
#include "data/import_csv_fields.h"
#include "data/import_csv_names.h"
#include "data/parse.h"
#include "sys/err.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>


#define BAD(col, ...) do { \
	char what_[400]; snprintf(what_, sizeof what_, __VA_ARGS__); \
	rc = hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: %s", in.path, (unsigned long long)in.line, \
	                 (size_t)((col) - line) + 1, what_); \
	goto done; } while (0)

/* Each column's kind (not known yet), missing value and name prefix. */
static int csv_kinds_alloc(csv_state *st, uint32_t nf)
{
	st->kind = calloc(nf, 1);
	st->missing_at = calloc(nf, sizeof *st->missing_at);
	st->cat = malloc(nf * sizeof *st->cat);
	st->pre = calloc(nf, sizeof *st->pre);
	st->ncat = calloc(nf, sizeof *st->ncat);
	st->counts = malloc(nf);
	st->first = malloc(nf * sizeof *st->first);
	st->prev = malloc(nf * sizeof *st->prev);
	if (st->counts)
		memset(st->counts, 1, nf);
	return st->kind && st->missing_at && st->cat && st->pre && st->ncat && st->counts && st->first && st->prev
	       ? 0 : ENOMEM;
}

/* The first line of the first file fixes the number of fields and the label
 * column, and opens the writer (whose dimension depends on them). Without a
 * column named or given, the label is the one field of the first data line
 * (@p data, NULL at a header) that is not a number, where there is exactly one,
 * it is the first or the last, and it is no mark of a missing value (a column
 * of class names: "5.1,3.5,1.4,0.2,setosa"); else, after a header that names
 * every column, the last; else, where the first pass tallied the first and
 * last columns of a file of numbers, the last if its values look more like
 * classes (csv_tally_last); else column 0 ("1,NA,3" stays a data line with an
 * error in column 1). */
static int csv_first_line(csv_state *st, const hog_input *in, uint32_t nf, const char *data, hog_err *err)
{
	const hog_import_opts *o = st->c->o;
	if (nf < 2 - !!o->no_label)
		return hog_err_set(err, HOG_EDATA, "%s:%llu:1: found %u field%s: a label and at least one "
		                   "feature column are needed%s", in->path, (unsigned long long)in->line, nf,
		                   nf == 1 ? "" : "s", st->sep ? "" : " (no ',', tab or ';' in the line)");
	if (!(st->ids = malloc(nf * sizeof *st->ids)) || !(st->vals = malloc(nf * sizeof *st->vals)) ||
	    csv_kinds_alloc(st, nf))
		return hog_err_set(err, ENOMEM, "out of memory for %u columns", nf);
	int rc = csv_ignore(st, in, nf, err);
	if (rc)
		return rc;
	if (o->no_label) { /* every column a feature: no label column to find */
		st->nfields = nf;
		st->label = st->wcol = UINT32_MAX;
		st->nfeat = nf - st->nignored;
		if ((rc = csv_ignore_check(st, in, err)))
			return rc;
		hog_import_source(st->c, st->src, sizeof st->src);
		hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = o->task, .features = st->nfeat, .unlabelled = 1,
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
			if (k < (long)nf && st->kind[k] != 3 && s < e && !csv_is_number(s, e, st->sep)) {
				text = k;
				ntext++;
				missing |= csv_is_missing(s, e);
			}
		long first = 0, last = (long)nf - 1; /* (the first and last columns kept) */
		while (first < last && st->kind[first] == 3)
			first++;
		while (last > first && st->kind[last] == 3)
			last--;
		if (ntext == 1 && !missing && (text == first || text == last)) {
			lc = text;
			st->by_text = 1;
		} else if (ntext == 0 && first < last && !(st->columns && st->header_fields == nf)) {
			/* numbers, no header naming them: the first pass tallies the first and
			 * last columns, and the last is the label where its values look more
			 * like classes (pima, haberman, covtype, digits.csv keep it there) */
			if (st->scan && !(st->tally = calloc(2, sizeof *st->tally)))
				return hog_err_set(err, ENOMEM, "out of memory");
			if (st->tally) {
				st->tally[0].whole = st->tally[1].whole = 1;
				st->tally_col[0] = (uint32_t)first;
				st->tally_col[1] = (uint32_t)last;
			}
			if (st->by_values)
				lc = last;
		}
	}
	/* a header that names every column but none of them the label: the last
	 * (where CSV files keep it: UCI's, scikit-learn's, a data frame's with its
	 * target appended); LIBSVM's first is for files without names */
	if (st->named < 0 && !o->label_given && !st->by_text && st->columns && st->header_fields == nf) {
		for (lc = (long)nf - 1; lc > 0 && st->kind[lc] == 3; lc--)
			;
		st->by_last = 1;
	}
	if (lc < 0 || lc >= (long)nf)
		return hog_err_set(err, HOG_ECONFIG, "%s:%llu: label column %d is out of range: lines have %u fields",
		                   in->path, (unsigned long long)in->line, o->label_col, nf);
	st->nfields = nf;
	st->label = (uint32_t)lc;
	st->wcol = UINT32_MAX;
	if (o->weight_given) {
		long wc = o->weight_col < 0 ? (long)nf + o->weight_col : o->weight_col;
		if (o->weight_name && (wc = csv_column_named(st, nf, o->weight_name)) < 0)
			return hog_err_set(err, HOG_ECONFIG, "%s:%llu: --weight-col: no column named '%s'%s", in->path,
			                   (unsigned long long)in->line, o->weight_name,
			                   st->columns ? "" : " (the file has no header line; give a column number)");
		if (wc < 0 || wc >= (long)nf || wc == lc || nf < 3)
			return hog_err_set(err, HOG_ECONFIG, "%s:%llu: weight column %d is %s: lines have %u fields", in->path,
			                   (unsigned long long)in->line, o->weight_col,
			                   wc == lc ? "the label column" : nf < 3 ? "the only feature" : "out of range", nf);
		st->wcol = (uint32_t)wc;
	}
	if ((rc = csv_ignore_check(st, in, err)))
		return rc;
	if ((st->columns || !o->label_given) && o->note) /* (said when it was a guess, or of a header's name) */
		csv_note_label(st, in);
	st->nfeat = nf - 1 - (st->wcol != UINT32_MAX) - st->nignored;
	hog_import_source(st->c, st->src, sizeof st->src);
	hog_writer_opts wo = { .kind = HOG_KIND_SPARSE, .task = o->task, .features = st->nfeat,
	                       .block_examples = o->block_examples, .value_precision = o->value_precision,
	                       .raw_blocks = o->raw_blocks, .source = st->src };
	return st->scan ? 0 : hog_writer_open(&st->w, st->c->out, &wo, err);
}

/* A field [s, e) of feature column @p k whose kind is categories or not known
 * yet. A column's first value fixes its kind: a number, numbers (-2: the
 * caller reads it as one); text, categories: each value "NAME=value" a
 * feature of its own (st->cats), 1 where the line has it; an empty field or a
 * mark of a missing value (NA, ?, ...) is no feature. A column of numbers must
 * have a value on every line, so a number after a missing value of a column
 * not known yet is an error naming that line; and text is read as categories
 * only where the label column was named or given: otherwise the label may well
 * be a column of text itself (adult.data's last), and every column not known
 * yet is read as numbers, a missing value an error where it is. Returns the category's
 * number, -1 for no feature, -2 for a number; *rc and @p err on an error. */
static long csv_category(csv_state *st, const hog_input *in, const char *line, uint32_t k, const char *s,
                         const char *e, int *rc, hog_err *err)
{
	const hog_import_opts *o = st->c->o;
	const unsigned long long ln = (unsigned long long)in->line;
	*rc = 0;
	if (!st->kind[k] && st->named < 0 && !o->label_given && !o->no_label &&
	    (s == e || csv_is_number(s, e, st->sep) || csv_is_missing(s, e))) {
		/* (no categories without a label named: a column of numbers, its errors where they are) */
		st->kind[k] = s < e && csv_is_number(s, e, st->sep) ? 1 : 0;
		return -2;
	}
	if (s == e || csv_is_missing(s, e)) {
		if (!st->kind[k] && !st->missing_at[k])
			st->missing_at[k] = ((uint64_t)st->file << 40) | in->line;
		return -1;
	}
	if (!st->kind[k] && csv_is_number(s, e, st->sep)) {
		if (st->missing_at[k] && !o->missing_zero) {
			const uint64_t m = st->missing_at[k];
			char col[100];
			*rc = hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: a number in %s, which had no value at %s:%llu: "
			                  "a column of numbers needs one on every line (--missing zero reads such a field "
			                  "as 0)", in->path, ln, (size_t)(s - line) + 1, csv_col(st, k, col, sizeof col),
			                  st->c->in[m >> 40], (unsigned long long)(m & ((1ull << 40) - 1)));
			return 0;
		}
		st->kind[k] = 1;
		return -2;
	}
	char why[160];
	if (!st->kind[k]) {
		if (st->named < 0 && !o->label_given && !o->no_label) {
			char col[100], last[120] = "";
			csv_split sp = { line, st->sep, 0 }; /* (the line's last field: text, where UCI's files keep the class) */
			const char *fs = NULL, *fe = NULL, *ls = NULL, *le = NULL;
			uint32_t nf = 0;
			while (csv_next(&sp, &fs, &fe)) {
				ls = fs;
				le = fe;
				nf++;
			}
			if (!st->columns && st->label == 0 && nf > 2 && k + 1 < nf && ls && ls < le &&
			    !csv_is_number(ls, le, st->sep) && !csv_is_missing(ls, le))
				snprintf(last, sizeof last, "; its last column holds text too ('%.*s'): --label-col -1 if that "
				         "is the label", (int)(le - ls > 30 ? 30 : le - ls), ls);
			*rc = hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: %s holds text ('%.*s'): a column of text is read "
			                  "as categories (a feature a value) once the label column is named or given: "
			                  "--label-col N or NAME (the label is --label-col %u by default%s)%s", in->path, ln,
			                  (size_t)(s - line) + 1, csv_col(st, k, col, sizeof col), (int)(e - s > 40 ? 40 : e - s),
			                  s, st->label, last,
			                  in->line == o->skip_lines + 1 && o->header <= 0 ? " (a header line? then give "
			                                                                      "--header yes)" : "");
			return 0;
		}
		const char *p = st->columns; /* its header name, or its number (from 1) */
		for (uint32_t i = 0; p && i < k; i++)
			p = (p = strchr(p, ',')) ? p + 1 : NULL;
		char name[300];
		if (p && st->header_fields == st->nfields)
			snprintf(name, sizeof name, "%.*s=", (int)(strcspn(p, ",") > 255 ? 255 : strcspn(p, ",")), p);
		else
			snprintf(name, sizeof name, "%u=", k + 1);
		for (char *q = name; *q; q++)
			*q = *q == '\n' ? '_' : *q;
		if (!(st->pre[k] = strdup(name))) {
			*rc = hog_err_set(err, ENOMEM, "out of memory");
			return 0;
		}
		st->kind[k] = 2;
		if (st->cats.n == 0 && st->w && (*rc = hog_writer_set_features(st->w, 0, err)))
			return 0;
	}
	const uint32_t before = st->cats.n;
	long id = csv_name_field(&s, &e, "a category", why, sizeof why) ? -1
	          : csv_names_id(&st->cats, st->pre[k], strlen(st->pre[k]), s, (size_t)(e - s), why, sizeof why);
	st->ncat[k] += st->cats.n > before;
	if (id < 0)
		*rc = hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: %s", in->path, ln, (size_t)(s - line) + 1, why);
	return id;
}

/* The label field [s, e) of @p line: a number, or where the first label was
 * not one, a class name (csv_names_id), numbered in the names' sorted order
 * (csv_scan_names), or where the inputs cannot be read twice as first met. */
static int csv_label(csv_state *st, const hog_input *in, const char *s, const char *e, const char *line, double *y,
                     hog_err *err)
{
	const hog_import_opts *o = st->c->o;
	const unsigned long long ln = (unsigned long long)in->line;
	const size_t col = (size_t)(s - line) + 1;
	const int w = (int)(e - s > 40 ? 40 : e - s);
	char lab[100]; /* (the label's column, named on an error only) */
	double v = 0;
	const int number = hog_parse_f64(s, &v) == e || (st->sep != ',' && csv_parse(s, e, st->sep, &v) == e);
	if (!st->label_names) {
		st->label_names = number || o->task == HOG_TASK_REGRESSION ? 1 : 2;
		snprintf(st->first_label, sizeof st->first_label, "%.200s:%llu", in->path, ln);
	}
	if (st->label_names == 2) {
		char why[120];
		const long k = csv_name_field(&s, &e, "a class name", why, sizeof why) ? -1
		               : csv_names_id(&st->classes, "", 0, s, (size_t)(e - s), why, sizeof why);
		if (k < 0)
			return hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: %s", in->path, ln, col, why);
		*y = (double)k;
		return 0;
	}
	if (!number && o->task == HOG_TASK_REGRESSION)
		return hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: expected a number in %s (the label), found "
		                   "'%.*s' (--task regression takes numbers)", in->path, ln, col,
		                   csv_col(st, st->label, lab, sizeof lab), w, s);
	if (!number)
		return hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: expected a number in %s (the label), found "
		                   "'%.*s': the first label (%s) is a number, so every label must be one (a column of "
		                   "class names is read as names from its first label on)", in->path, ln, col,
		                   csv_col(st, st->label, lab, sizeof lab), w, s, st->first_label);
	if (!isfinite(v) || !isfinite((float)v))
		return hog_err_set(err, HOG_EDATA, "%s:%llu:%zu: the label in %s is not finite", in->path, ln, col,
		                   csv_col(st, st->label, lab, sizeof lab));
	if (st->nlabels++ == 0)
		st->label0 = v;
	else if (v != st->label0)
		st->labels_vary = 1;
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
	uint32_t g1 = 0, g2 = 0; /* (the fields of the first two lines, where guessed) */
	const int guess = c->o->header < 0 ? csv_header_guess(path, c->o->skip_lines, st->sep_known, st->sep,
	                                                       c->o->delim, c->o->max_line, &g1, &g2)
	                                   : -1;
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
				if (csv_is_number(s, e, st->sep))
					any_number = 1;
				else if (s < e)
					any_text = 1;
				nf++;
			}
			if (guess == 2 && any_number) { /* (counts and names before the data: skipped, not kept; a
			                                  * line of names alone is a header whose count holds) */
				if (c->o->note) {
					char msg[400];
					snprintf(msg, sizeof msg, "%.80s:%llu: a first line of %u fields before lines of %u, skipped as "
					         "a header, its names not kept: '%.40s%s' (--header no reads it as data)", path,
					         (unsigned long long)in.line, g1, g2, line, len > 40 ? "..." : "");
					c->o->note(c->o->note_ud, msg);
				}
				continue;
			}
			int header = c->o->header < 0 ? (!any_number && any_text) || guess == 1 : c->o->header > 0;
			if (header) {
				/* A detected header fixes the field count, as a safety; one the
				 * user vouched for (--header yes) may be anything (counts, a
				 * title), and the first data line fixes it. */
				if (!st->columns) {
					st->named = csv_named_label(st, line);
					if ((rc = csv_keep_header(st, line, err)))
						goto done;
					st->header_fields = nf;
				} else if ((rc = csv_header_same(st, &in, line, nf, err))) {
					goto done; /* (a file of other columns, or of the same in another order) */
				}
				if (c->o->header < 0 && c->o->note) {
					char msg[400];
					snprintf(msg, sizeof msg, "%.80s:%llu: a header line%s, skipped: '%.40s%s' "
					         "(--header no reads it as data)", path, (unsigned long long)in.line,
					         any_number ? (any_text ? " (names over the next line's numbers)" : " (column numbers)")
					                    : "", line, len > 40 ? "..." : "");
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
		uint32_t k = 0, nnz = 0, j = 0, ncat = 0;
		char col[100];
		double y = 0, wt = 1;
		while (csv_next(&sp, &s, &e)) {
			if (k == st->nfields) {
				const char *extra = s;
				const int empty = s == e;
				while (csv_next(&sp, &s, &e))
					k++;
				BAD(extra, "expected %u fields, found %u%s", st->nfields, k + 1,
				    empty && k == st->nfields ? " (the line ends with a separator, the first line does not)"
				                              : csv_count_hint(st, line));
			}
			if (st->tally && (k == st->tally_col[0] || k == st->tally_col[1]))
				csv_tally_add(&st->tally[k == st->tally_col[1]], s, e, st->sep);
			/* (the first pass reads the labels alone, or the columns tallied) */
			if (st->kind[k] == 3 || (st->scan && (k != st->label || st->tally))) {
				k++;
				continue;
			}
			if (k != st->label && k != st->wcol && st->kind[k] != 1) { /* a column of categories, or not known yet */
				long id = csv_category(st, &in, line, k, s, e, &rc, err);
				if (rc)
					goto done;
				if (id != -2) { /* (-2: a number, the column's first: a column of numbers from here) */
					if (id >= 0)
						st->cat[ncat++] = st->nfeat + (uint32_t)id;
					j++;
					k++;
					continue;
				}
			}
			if (k == st->label) {
				if (s == e)
					BAD(s, "no label: %s is empty%s", csv_col(st, k, col, sizeof col), csv_label_why(st));
				if ((rc = csv_label(st, &in, s, e, line, &y, err)))
					goto done;
				k++;
				continue;
			}
			double v;
			const char *q = s < e ? hog_parse_f64(s, &v) : NULL; /* (inline: the hot path) */
			if (q != e && s < e && st->sep != ',')
				q = csv_parse(s, e, st->sep, &v); /* (a decimal comma) */
			/* (a field that is no number: a mark of no value, looked for only then) */
			if (q != e && k != st->wcol && (s == e || csv_is_missing(s, e))) {
				if (c->o->missing_zero) { /* (the feature absent from the line) */
					st->counts[k] = 0;
					j++;
					k++;
					continue;
				}
				BAD(s, "no value in %s ('%.*s'): a column of numbers needs one on every line (--missing "
				    "zero reads such a field as 0, the feature absent from the line; or fill them in first)",
				    csv_col(st, k, col, sizeof col), (int)(e - s > 20 ? 20 : e - s), s);
			}
			if (s == e)
				BAD(s, "empty field (%s)", csv_col(st, k, col, sizeof col));
			if (q != e)
				BAD(s, "expected a number in %s, found '%.*s'%s", csv_col(st, k, col, sizeof col),
				    (int)(e - s > 40 ? 40 : e - s), s,
				    in.line == c->o->skip_lines + 1 && c->o->header <= 0
				        ? " (a header line? then give --header yes)"
				        : " (features are numbers: a column of names is read as the label with --label-col, "
				          "others must be encoded as numbers first)");
			if (isnan(v) && k != st->wcol && c->o->missing_zero) { /* (NaN: numpy's and pandas' no value) */
				st->counts[k] = 0;
				j++;
				k++;
				continue;
			}
			if (!isfinite(v) || !isfinite((float)v))
				BAD(s, "the value in %s is not finite%s", csv_col(st, k, col, sizeof col),
				    isnan(v) && k != st->wcol ? " (NaN marks no value? --missing zero reads it as 0, the "
				                                "feature absent from the line)" : "");
			if (st->sep != ',' && !st->comma_line && !st->scan && memchr(s, ',', (size_t)(e - s))) {
				st->comma_line = in.line; /* (a decimal comma, csv_parse's: said at the end) */
				st->comma_file = st->file;
			}
			if (k == st->wcol) {
				if (!(v > 0 && (float)v > 0))
					BAD(s, "weight %g in %s: a weight must be a finite number > 0", v, csv_col(st, k, col, sizeof col));
				wt = v;
			} else {
				if (st->counts[k]) { /* (a count of the lines so far: an identifier, csv_note_columns) */
					if (st->counts[k] == 2 && v != st->prev[k] + 1)
						st->counts[k] = 0;
					else if (st->counts[k] == 1)
						st->first[k] = v, st->counts[k] = 2;
					st->prev[k] = v;
				}
				if (v != 0) {
					st->ids[nnz] = j;
					st->vals[nnz++] = (float)v;
				}
				j++;
			}
			k++;
		}
		if (k != st->nfields)
			BAD(line + len, "expected %u fields, found %u%s", st->nfields, k, csv_count_hint(st, line));
		if (st->scan) {
			if (st->tally && ++st->tally_lines < CSV_TALLY_LINES)
				continue;
			if (st->tally || st->label_names == 1)
				break; /* numbers: nothing to sort */
			continue;
		}
		for (uint32_t a = 1; a < ncat; a++) /* the categories' ids, after the numbers', in order */
			for (uint32_t b = a; b > 0 && st->cat[b - 1] > st->cat[b]; b--) {
				const uint32_t t = st->cat[b];
				st->cat[b] = st->cat[b - 1];
				st->cat[b - 1] = t;
			}
		for (uint32_t a = 0; a < ncat; a++) {
			st->ids[nnz] = st->cat[a];
			st->vals[nnz++] = 1.0f;
		}
		if ((wt != 1 && (rc = hog_writer_set_weight(st->w, wt, err))) || (rc = hog_import_weight(c, st->w, err)))
			goto done;
		st->examples++;
		if ((rc = hog_writer_add_sparse(st->w, (float)y, st->ids, st->vals, nnz, err))) {
			hog_err_prefix(err, "%s:%llu", path, (unsigned long long)in.line);
			goto done;
		}
		hog_import_tick(c, &in, len, &since_progress);
	}
done:
	if (st->scan) {
		hog_input_close(&in);
		return rc < 0 || rc > 1 ? rc : 0;
	}
	return hog_import_file_done(c, &in, rc);
}

/* Tells the caller the classes the names became: class k is the k-th name met. */
static void csv_note_classes(const csv_state *st)
{
	char msg[400];
	int at = snprintf(msg, sizeof msg, "the labels are class names, numbered in sorted order:");
	uint32_t k = 0;
	for (; k < st->classes.n && at < (int)sizeof msg - 80; k++) {
		size_t n;
		const char *name = hog_class_name(st->classes.buf, k, &n);
		at += snprintf(msg + at, sizeof msg - (size_t)at, "%s %u '%.*s'", k ? "," : "", k, (int)(n > 40 ? 40 : n),
		               name);
	}
	if (k < st->classes.n)
		snprintf(msg + at, sizeof msg - (size_t)at, ", ... (%u in all)", st->classes.n);
	else if (st->classes.n == 2)
		snprintf(msg + at, sizeof msg - (size_t)at, " (binary: 1 the positive class)");
	st->c->o->note(st->c->o->note_ud, msg);
}

/* What a csv_state holds (not its writer). */
static void csv_state_free(csv_state *st)
{
	csv_names_free(&st->classes);
	csv_names_free(&st->cats);
	for (uint32_t k = 0; st->pre && k < st->nfields; k++)
		free(st->pre[k]);
	free(st->pre);
	free(st->cat);
	free(st->ncat);
	free(st->kind);
	free(st->missing_at);
	free(st->tally);
	free(st->counts);
	free(st->first);
	free(st->prev);
	free(st->ids);
	free(st->vals);
	free(st->columns);
}

static int csv_name_cmp(const void *x, const void *y)
{
	const char *a = *(const char *const *)x, *b = *(const char *const *)y;
	const size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
	const int c = memcmp(a, b, na < nb ? na : nb);
	return c ? c : (na > nb) - (na < nb);
}

/* Where the labels are names, the classes are numbered in the names' sorted
 * (byte) order, not as the files first meet them: two files with the same
 * classes number them alike whatever their rows' order, and a binary set's
 * positive class (1) is the later name: "yes" of no/yes, "malignant" of
 * benign/malignant, ">50K" of <=50K/>50K, "spam", "True", "Y". A first pass
 * reads the labels alone (to the first label, where that is a number) and
 * leaves the sorted names in st->classes. Inputs that are not regular files
 * (a FIFO cannot be read twice) keep the order of first appearance. */
static int csv_scan_names(csv_state *st, hog_err *err)
{
	hog_import_ctx *c = st->c;
	for (int i = 0; i < c->nin; i++) {
		struct stat sb;
		if (stat(c->in[i], &sb) || !S_ISREG(sb.st_mode)) {
			st->piped = 1; /* (no first pass: neither class names sorted nor the last column looked at) */
			return 0;
		}
	}
	hog_import_opts o = *c->o;
	o.note = NULL;
	hog_import_ctx cx = *c;
	cx.o = &o;
	csv_state sc = { .c = &cx, .named = -1, .scan = 1, .classes = { .max = 65535 }, .cats = { .max = 1u << 24 } };
	int rc = 0;
	for (int i = 0; i < c->nin && !rc && sc.label_names != 1 && !(sc.tally && sc.tally_lines >= CSV_TALLY_LINES);
	     i++) {
		sc.file = i;
		rc = csv_file(&sc, c->in[i], err);
	}
	if (!rc && sc.tally && sc.tally_lines) {
		st->by_values = csv_tally_last(sc.tally, sc.tally_col, sc.tally_lines, st->why_values, sizeof st->why_values);
	}
	const char **names = sc.label_names == 2 && !rc ? malloc(sc.classes.n * sizeof *names) : NULL;
	if (names) {
		for (uint32_t k = 0; k < sc.classes.n; k++)
			names[k] = sc.classes.buf + sc.classes.at[k];
		qsort(names, sc.classes.n, sizeof *names, csv_name_cmp);
		char why[120];
		for (uint32_t k = 0; k < sc.classes.n && !rc; k++)
			if (csv_names_id(&st->classes, "", 0, names[k], strcspn(names[k], "\n"), why, sizeof why) < 0)
				rc = hog_err_set(err, ENOMEM, "%s", why);
		free(names);
	} else if (sc.label_names == 2 && !rc) {
		rc = hog_err_set(err, ENOMEM, "out of memory for the class names");
	}
	csv_state_free(&sc);
	return rc;
}

/* Tells the caller the columns read as categories and their values' count. */
static void csv_note_categories(const csv_state *st)
{
	char msg[400];
	int at = snprintf(msg, sizeof msg, "columns of text read as categories, a feature a value (features %u.. of "
	                  "the %u):", st->nfeat, st->nfeat + st->cats.n);
	uint32_t shown = 0, cols = 0;
	for (uint32_t k = 0; k < st->nfields; k++) {
		if (st->kind[k] != 2)
			continue;
		cols++;
		const int np = (int)strlen(st->pre[k]) - 1;
		char num[16]; /* (a file without a header names a column's features by its number from 1: said so) */
		snprintf(num, sizeof num, "%u=", k + 1);
		if (at < (int)sizeof msg - 80 && !strcmp(st->pre[k], num)) {
			at += snprintf(msg + at, sizeof msg - (size_t)at, "%s column %u (%u, features %sVALUE)", shown ? "," : "",
			               k, st->ncat[k], num);
			shown++;
		} else if (at < (int)sizeof msg - 80) {
			at += snprintf(msg + at, sizeof msg - (size_t)at, "%s '%.*s' (%u)", shown ? "," : "", np > 40 ? 40 : np,
			               st->pre[k], st->ncat[k]);
			shown++;
		}
	}
	if (shown < cols)
		snprintf(msg + at, sizeof msg - (size_t)at, ", ... (%u columns)", cols);
	st->c->o->note(st->c->o->note_ud, msg);
}

int hog_import_csv(hog_import_ctx *c, hog_err *err)
{
	csv_state st = { .c = c, .named = -1, .classes = { .max = 65535 }, .cats = { .max = 1u << 24 } };
	int rc = c->o->no_label ? 0 : csv_scan_names(&st, err);
	for (int i = 0; i < c->nin && !rc; i++) {
		st.file = i;
		rc = csv_file(&st, c->in[i], err);
	}
	if (!rc && !st.w)
		rc = hog_err_set(err, HOG_EDATA, "%s: no examples in the input", c->in[0]);
	if (!rc && st.columns && st.header_fields == st.nfields) { /* names that fit the columns: those kept */
		char *kept = csv_kept_columns(&st);
		rc = kept ? hog_writer_meta_set(st.w, "columns", kept, err) : hog_err_set(err, ENOMEM, "out of memory");
		free(kept);
	}
	if (!rc && st.label != UINT32_MAX) { /* the label's field: a set imported apart is checked against it */
		char lc[32];
		snprintf(lc, sizeof lc, "%u/%u", st.label, st.nfields);
		rc = hog_writer_meta_set(st.w, "csv_label", lc, err);
	}
	if (!rc && c->o->note)
		csv_note_columns(&st, st.examples);
	if (!rc && c->o->note && st.comma_line) {
		char msg[400];
		snprintf(msg, sizeof msg, "%.200s:%llu: decimal commas read as points ('1,5' as 1.5), as files with '%s' "
		         "between fields write them where ',' is the decimal mark", c->in[st.comma_file],
		         (unsigned long long)st.comma_line, st.sep == ';' ? ";" : st.sep == '\t' ? "tab" : "blanks");
		c->o->note(c->o->note_ud, msg);
	}
	if (!rc && c->o->note && !c->o->no_label && ((st.label_names == 1 && !st.labels_vary) ||
	                                             (st.label_names == 2 && st.classes.n == 1))) {
		char msg[300], what[120];
		size_t n;
		const char *name = hog_class_name(st.classes.buf, 0, &n);
		if (st.label_names == 2)
			snprintf(what, sizeof what, "'%.*s'", (int)(n > 60 ? 60 : n), name);
		else
			snprintf(what, sizeof what, "%g", st.label0);
		char col[100];
		snprintf(msg, sizeof msg, "warning: every label is %s (%s): a model learns nothing from one value; "
		         "if the label is another column, --label-col N or NAME", what, csv_col(&st, st.label, col, sizeof col));
		c->o->note(c->o->note_ud, msg);
	}
	if (!rc && st.label_names == 2) {
		if ((rc = hog_writer_set_class_names(st.w, st.classes.buf, err)))
			hog_err_prefix(err, "%s", c->in[0]);
		else if (c->o->note)
			csv_note_classes(&st);
	}
	if (!rc && st.cats.n) {
		char from[32];
		snprintf(from, sizeof from, "%u", st.nfeat);
		if ((rc = hog_writer_set_features(st.w, (uint64_t)st.nfeat + st.cats.n, err)) ||
		    (rc = hog_writer_meta_set(st.w, "category_from", from, err)) ||
		    (rc = hog_writer_meta_set(st.w, "categories", st.cats.buf, err)))
			hog_err_prefix(err, "%s", c->in[0]);
		else if (c->o->note)
			csv_note_categories(&st);
	}
	csv_state_free(&st);
	return hog_import_close(c, st.w, rc, err);
}
