/* The CSV importer's columns: the header's names, which column is the label,
 * which are left out (--ignore-col), and how messages name a column. */
#include "data/import_csv.h"
#include "data/import_csv_fields.h"
#include "data/parse.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A name's field [*s, *e) without its quotes, where csv_next left them (a
 * quote inside: "say ""hi"""). */
static void csv_unquote(const char **s, const char **e)
{
	if (*e - *s >= 2 && **s == '"' && (*e)[-1] == '"') {
		(*s)++;
		(*e)--;
	}
}

/* The header @p line's names as st->columns keeps them: quotes removed, commas
 * and control characters replaced by '_', cut at a name boundary when too
 * long; malloc'd, NULL when out of memory. */
static char *csv_header_text(char sep, const char *line)
{
	char *out = malloc(CSV_COLUMNS_MAX + 8);
	if (!out)
		return NULL;
	size_t at = 0;
	csv_split sp = { line, sep, 0 };
	const char *s, *e;
	for (uint32_t k = 0; csv_next(&sp, &s, &e); k++) {
		csv_unquote(&s, &e);
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
	return out;
}

int csv_keep_header(csv_state *st, const char *line, hog_err *err)
{
	if (!(st->columns = csv_header_text(st->sep, line)))
		return hog_err_set(err, ENOMEM, "out of memory");
	return 0;
}

int csv_header_same(csv_state *st, const hog_input *in, const char *line, uint32_t nf, hog_err *err)
{
	if (!st->columns || st->header_fields != nf)
		return 0; /* (a first line of other things than names: --header yes) */
	char *h = csv_header_text(st->sep, line);
	if (!h)
		return hog_err_set(err, ENOMEM, "out of memory");
	int rc = 0;
	const char *a = st->columns, *b = h;
	for (uint32_t k = 0; strcmp(a, b); k++) {
		const size_t la = strcspn(a, ","), lb = strcspn(b, ",");
		if (la != lb || memcmp(a, b, la)) {
			rc = hog_err_set(err, HOG_EDATA, "%s:%llu: this file's header differs from %s's: column %u is '%.*s' "
			                 "here and '%.*s' there (the files of one import give the same columns in the same "
			                 "order)", in->path, (unsigned long long)in->line, st->c->in[0], k,
			                 (int)(lb > 60 ? 60 : lb), b, (int)(la > 60 ? 60 : la), a);
			break;
		}
		a += la + (a[la] == ',');
		b += lb + (b[lb] == ',');
	}
	free(h);
	return rc;
}

/* The names a header's label column goes by when --label-col is not given,
 * in order of preference (compared without case). */
static const char *const csv_label_names[] = { "label", "target", "class", "y", NULL };

/* The column of header @p line that holds the label: the one named o->label_name,
 * or when the caller chose no column, the first of csv_label_names[] found;
 * -1 when there is none. */
long csv_named_label(csv_state *st, const char *line)
{
	const hog_import_opts *o = st->c->o;
	if (o->label_given && !o->label_name)
		return -1;
	long best = -1;
	int best_rank = INT_MAX;
	csv_split sp = { line, st->sep, 0 };
	const char *s, *e;
	for (long k = 0; csv_next(&sp, &s, &e); k++) {
		csv_unquote(&s, &e);
		for (int r = 0; o->label_name ? r == 0 : csv_label_names[r] != NULL; r++)
			if (r < best_rank && csv_name_is(s, e, o->label_name ? o->label_name : csv_label_names[r])) {
				best = k;
				best_rank = r;
			}
	}
	return best;
}

/* The @p k-th name of st->columns as [*name, return), or NULL (no header). */
static const char *csv_column_name(const csv_state *st, uint32_t k, const char **end)
{
	const char *p = st->columns;
	if (!p || (st->nfields && st->header_fields != st->nfields))
		return NULL; /* (a header that does not fit the lines names nothing) */
	for (uint32_t i = 0; p && i < k; i++)
		p = (p = strchr(p, ',')) ? p + 1 : NULL;
	if (p)
		*end = p + strcspn(p, ",");
	return p;
}

const char *csv_col(const csv_state *st, uint32_t k, char *buf, size_t size)
{
	const char *e, *name = csv_column_name(st, k, &e);
	if (name && name == e)
		snprintf(buf, size, "column %u (no name)", k);
	else if (name)
		snprintf(buf, size, "column %u '%.*s'", k, (int)(e - name > 60 ? 60 : e - name), name);
	else
		snprintf(buf, size, "column %u", k);
	return buf;
}

const char *csv_label_why(const csv_state *st)
{
	const hog_import_opts *o = st->c->o;
	return st->named >= 0 ? (o->label_name ? "" : " (by its name; --label-col N or NAME chooses another)")
	       : o->label_given ? ""
	       : st->by_text    ? " (the one column of names, not numbers; --label-col N or NAME chooses another)"
	       : st->by_last    ? " (the last: the header names no column label, target, class or y; --label-col N "
	                          "or NAME chooses another)"
	       : st->by_values  ? st->why_values
	       : !st->columns && st->piped
	                        ? " (the first: the file has no header to name it, and a pipe is read once, so its last "
	                          "column's values were not looked at; --label-col N chooses another)"
	       : !st->columns   ? " (the first: the file has no header to name it; --label-col N chooses another)"
	                        : " (no column is named label, target, class or y; --label-col N or NAME chooses)";
}

/* A header of ratings ("userId,movieId,rating,timestamp"): a column named
 * rating(s) that is not the label, after two columns whose names start with
 * user and item or movie. */
static int csv_ratings_header(const csv_state *st)
{
	const char *e0, *e1, *n0 = csv_column_name(st, 0, &e0), *n1 = csv_column_name(st, 1, &e1);
	if (!n0 || !n1 || e0 - n0 < 4 || e1 - n1 < 4 || strncasecmp(n0, "user", 4) ||
	    (strncasecmp(n1, "item", 4) && strncasecmp(n1, "movie", 5)))
		return 0;
	for (uint32_t k = 2; k < st->nfields; k++) {
		const char *e, *n = csv_column_name(st, k, &e);
		if (n && k != st->label && (csv_name_is(n, e, "rating") || csv_name_is(n, e, "ratings")))
			return 1;
	}
	return 0;
}

void csv_note_label(csv_state *st, const hog_input *in)
{
	char msg[600], col[100];
	snprintf(msg, sizeof msg, "%.80s:%llu: the label is %s%s%s", in->path, (unsigned long long)in->line,
	         csv_col(st, st->label, col, sizeof col), csv_label_why(st),
	         csv_ratings_header(st) ? "; the columns are a user's ratings of items: --format ratings makes a set "
	                                  "for --model mf of them" : "");
	st->c->o->note(st->c->o->note_ud, msg);
}

int csv_ignore(csv_state *st, const hog_input *in, uint32_t nf, hog_err *err)
{
	const hog_import_opts *o = st->c->o;
	const char *p = o->ignore_cols;
	const unsigned long long ln = (unsigned long long)in->line;
	const char *e0, *name0 = csv_column_name(st, 0, &e0);
	if (name0 && name0 == e0 && st->header_fields == nf && nf >= 3 && !(o->label_given && !o->label_name &&
	                                                                    (o->label_col == 0 || o->label_col == -(int)nf))) {
		st->kind[0] = 3; /* a first column without a name: a data frame's index (pandas' to_csv, R's write.csv) */
		st->nignored = 1;
		st->index_out = 1;
	}
	while (p && *p) {
		const size_t n = strcspn(p, ",");
		char item[CSV_NAME_MAX + 1], *end;
		if (!n)
			return hog_err_set(err, HOG_ECONFIG, "--ignore-col: an empty entry in '%s'", o->ignore_cols);
		snprintf(item, sizeof item, "%.*s", (int)(n > CSV_NAME_MAX ? CSV_NAME_MAX : n), p);
		errno = 0;
		const long v = strtol(item, &end, 10);
		long k = -1;
		if (*item && !*end && !errno) { /* a number, from 0 or (negative) from the end */
			if (v >= (long)nf || v < -(long)nf)
				return hog_err_set(err, HOG_ECONFIG, "%s:%llu: --ignore-col %ld is out of range: lines have %u "
				                   "fields (from 0; negative from the end)", in->path, ln, v, nf);
			k = v < 0 ? (long)nf + v : v;
		} else {
			k = csv_column_named(st, nf, item);
			if (k < 0)
				return hog_err_set(err, HOG_ECONFIG, "%s:%llu: --ignore-col: no column named '%s'%s", in->path, ln,
				                   item, st->columns ? "" : " (the file has no header line; give column numbers)");
		}
		st->nignored += st->kind[k] != 3;
		st->kind[k] = 3;
		p += n + (p[n] == ',');
	}
	return 0;
}

long csv_column_named(const csv_state *st, uint32_t nf, const char *name)
{
	const char *p = st->columns, *e;
	for (uint32_t i = 0; p && i < nf; i++, p = *e ? e + 1 : NULL)
		if (csv_name_is(p, e = p + strcspn(p, ","), name))
			return i;
	return -1;
}

int csv_ignore_check(csv_state *st, const hog_input *in, hog_err *err)
{
	char col[100];
	if (st->label != UINT32_MAX && st->kind[st->label] == 3)
		return hog_err_set(err, HOG_ECONFIG, "%s:%llu: --ignore-col: %s is the label%s", in->path,
		                   (unsigned long long)in->line, csv_col(st, st->label, col, sizeof col),
		                   st->c->o->label_given ? "" : csv_label_why(st));
	if (st->wcol != UINT32_MAX && st->kind[st->wcol] == 3)
		return hog_err_set(err, HOG_ECONFIG, "%s:%llu: --ignore-col: %s is the weights' column (--weight-col)",
		                   in->path, (unsigned long long)in->line, csv_col(st, st->wcol, col, sizeof col));
	if (st->nfields - st->nignored - (st->label != UINT32_MAX) - (st->wcol != UINT32_MAX) == 0)
		return hog_err_set(err, HOG_ECONFIG, "%s:%llu: --ignore-col leaves no feature column (lines have %u fields)",
		                   in->path, (unsigned long long)in->line, st->nfields);
	return 0;
}

char *csv_kept_columns(const csv_state *st)
{
	char *out = strdup(st->columns);
	if (!out || !st->nignored)
		return out;
	size_t at = 0;
	const char *p = st->columns;
	for (uint32_t k = 0; *p; k++) {
		const size_t n = strcspn(p, ",");
		if (k >= st->nfields || st->kind[k] != 3) { /* (",..." of a long header stays) */
			if (at)
				out[at++] = ',';
			memcpy(out + at, p, n);
			at += n;
		}
		p += n + (p[n] == ',');
	}
	out[at] = 0;
	return out;
}

void csv_note_columns(const csv_state *st, uint64_t examples)
{
	const hog_import_opts *o = st->c->o;
	char msg[600], col[100];
	if (st->index_out)
		o->note(o->note_ud, "column 0, without a name in the header, left out: a data frame's index (pandas' "
		                    "to_csv, R's write.csv); a name in the header keeps it");
	if (st->nignored > (uint32_t)st->index_out) {
		int at = snprintf(msg, sizeof msg, "columns left out (--ignore-col):");
		for (uint32_t k = st->index_out, shown = 0; k < st->nfields; k++)
			if (st->kind[k] == 3 && at < (int)sizeof msg - 100)
				at += snprintf(msg + at, sizeof msg - (size_t)at, "%s %s", shown++ ? "," : "",
				               csv_col(st, k, col, sizeof col));
		o->note(o->note_ud, msg);
	}
	if (examples < 50)
		return; /* (too few lines to tell an identifier) */
	for (uint32_t k = 0; k < st->nfields; k++) {
		const char *e, *name = csv_column_name(st, k, &e);
		char how[80]; /* (what --ignore-col takes: its name, or its number where it has none) */
		if (name && name != e)
			snprintf(how, sizeof how, "%.*s", (int)(e - name > 60 ? 60 : e - name), name);
		else
			snprintf(how, sizeof how, "%u", k);
		if (st->kind[k] == 2 && st->ncat[k] >= examples / 2)
			snprintf(msg, sizeof msg, "warning: %s has %u values in %llu lines: an identifier or a date? a value "
			         "met once teaches the model nothing it can use on other data; --ignore-col %s leaves it out",
			         csv_col(st, k, col, sizeof col), st->ncat[k], (unsigned long long)examples, how);
		else if (st->kind[k] == 1 && st->counts && st->counts[k] == 2 && k != st->label && k != st->wcol)
			snprintf(msg, sizeof msg, "warning: %s counts the lines (%.15g, %.15g, ...): a row number? as a "
			         "feature it tells the model only the rows' order; --ignore-col %s leaves it out",
			         csv_col(st, k, col, sizeof col), st->first[k], st->first[k] + 1, how);
		else
			continue;
		o->note(o->note_ud, msg);
	}
}

void csv_tally_add(csv_tally *t, const char *s, const char *e, char sep)
{
	double v = 0;
	if (s == e || csv_parse(s, e, sep, &v) != e || !(v == floor(v) && fabs(v) < 1e9)) {
		t->whole = 0; /* (an empty field, text, a fraction: no class) */
		return;
	}
	if (t->n > CSV_TALLY_MAX)
		return;
	t->lines++;
	uint64_t b;
	const double z = v + 0.0; /* (-0 as 0) */
	memcpy(&b, &z, sizeof b);
	for (uint32_t h = (uint32_t)((b * 0x9e3779b97f4a7c15ull) >> 56);; h = (h + 1) & 255) {
		if (!t->used[h]) {
			t->used[h] = 1;
			t->v[h] = z;
			t->count[h] = 1;
			t->n++;
			return;
		}
		if (t->v[h] == z) {
			t->count[h]++;
			return;
		}
	}
}

/* The lines of the most common value. */
static uint32_t csv_tally_top(const csv_tally *t)
{
	uint32_t top = 0;
	for (int h = 0; h < 256; h++)
		top = t->used[h] && t->count[h] > top ? t->count[h] : top;
	return top;
}

static int csv_tally_classes(const csv_tally *t)
{
	return t->whole && t->n >= 2 && t->n <= CSV_TALLY_MAX && csv_tally_top(t) <= 0.98 * t->lines;
}

int csv_tally_last(const csv_tally *t, const uint32_t *col, uint64_t lines, char *why, size_t size)
{
	if (!csv_tally_classes(&t[1]) || (csv_tally_classes(&t[0]) && t[1].n >= t[0].n))
		return 0;
	char first[64];
	if (!t[0].whole)
		snprintf(first, sizeof first, "values that are not all whole numbers");
	else if (t[0].n < 2)
		snprintf(first, sizeof first, "one value");
	else if (t[0].n <= CSV_TALLY_MAX && csv_tally_top(&t[0]) > 0.98 * t[0].lines)
		snprintf(first, sizeof first, "almost only one value");
	else
		snprintf(first, sizeof first, "%s%u values", t[0].n > CSV_TALLY_MAX ? "more than " : "",
		         t[0].n > CSV_TALLY_MAX ? CSV_TALLY_MAX : t[0].n);
	snprintf(why, size, " (the last: its values are whole numbers, %u distinct in the first %llu lines, "
	         "where column %u has %s; --label-col N chooses another)", t[1].n, (unsigned long long)lines, col[0],
	         first);
	return 1;
}

const char *csv_count_hint(const csv_state *st, const char *line)
{
	if (!st->sep && strpbrk(line, ",;\t"))
		return " (the first line has no ',', ';' or tab and was split at blanks; this one has them: --skip 1 "
		       "passes over a first line that is a title, --delim sets the separator)";
	if (st->columns && st->header_fields == st->nfields)
		return " (the header's count: a first line that is a title? --skip 1 passes over it)";
	return "";
}
