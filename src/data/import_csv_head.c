/* The CSV importer's header guess from a file's first two lines
 * (import_csv_fields.h, csv_header_guess). The first line alone says "header"
 * when none of its fields is a number (import_csv.c); these are the headers it
 * cannot tell from data without the line after it:
 *  - names over numbers: a column whose first field is text where the second
 *    line has a number ("x1,x2,2019,2020,target" over "0.5,0.3,1,2,0"; a mark
 *    of no value, "1,NA,3", is no text: that line stays data, its NA an error);
 *  - column numbers: 0, 1, ..., n - 1 (n >= 3) in order, integers, after
 *    an empty field or not (pandas' to_csv of a frame without names writes
 *    "0,1,2,3,4", with its index ",0,1,2,3"; "1,2,3" stays data, a toy
 *    file's first row);
 *  - names over numbers with another field count: a line of counts and names
 *    before the data (scikit-learn's iris.csv, "150,4,setosa,versicolor,
 *    virginica" over rows of five fields, wine_data.csv over rows of 14):
 *    skipped as --header yes skips a line, its names not kept.
 * A file that cannot be read twice (a pipe) gets no guess. */
#include "data/import_csv_fields.h"
#include "data/input.h"
#include "data/parse.h"
#include "sys/err.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A field of digits alone, as an integer (-1: not one, or too long). */
static long csv_small_int(const char *s, const char *e)
{
	if (s == e || e - s > 9)
		return -1;
	long v = 0;
	for (const char *p = s; p < e; p++) {
		if ((unsigned)(*p - '0') > 9)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v;
}

/* Whether @p line's fields are column numbers (see above). */
static int csv_column_numbers(const char *line, char sep)
{
	csv_split sp = { line, sep, 0 };
	const char *s, *e;
	long k = 0, base = -1;
	int lead = 0;
	while (csv_next(&sp, &s, &e)) {
		if (k == 0 && base < 0 && !lead && s == e && sep) {
			lead = 1; /* (an index column's empty name) */
			continue;
		}
		const long v = csv_small_int(s, e);
		if (base < 0 && v == 0)
			base = 0;
		if (v < 0 || v != base + k)
			return 0;
		k++;
	}
	return k >= 3;
}

int csv_header_guess(const char *path, uint64_t skip, int sep_known, char sep, char delim, size_t max_line,
                     uint32_t *nf1, uint32_t *nf2)
{
	struct stat sb;
	if (stat(path, &sb) || !S_ISREG(sb.st_mode))
		return -1;
	hog_input in;
	hog_err err = { 0 };
	if (hog_input_open(&in, path, max_line, &err))
		return -1;
	char *line, *first = NULL;
	size_t len;
	int guess = -1;
	while (hog_input_line(&in, &line, &len, &err) == 1) {
		if (in.line <= skip || *hog_skip_space(line) == 0)
			continue;
		if (!sep_known) {
			sep = delim == ' ' ? 0 : delim ? delim : csv_detect_sep(line);
			sep_known = 1;
		}
		if (!first) {
			if (!(first = strdup(line)))
				break;
			continue;
		}
		/* the second line: the first's kinds of field against its own */
		csv_split a = { first, sep, 0 }, b = { line, sep, 0 };
		const char *s, *e, *t, *u;
		uint32_t n1 = 0, n2 = 0;
		int named = 0, other = 0;
		for (;;) {
			const int ha = csv_next(&a, &s, &e), hb = csv_next(&b, &t, &u);
			if (!ha && !hb)
				break;
			n1 += ha;
			n2 += hb;
			if (ha && hb && s < e && !csv_is_number(s, e, sep) && !csv_is_missing(s, e) &&
			    csv_is_number(t, u, sep))
				named = 1;
			other |= ha && hb && ((size_t)(e - s) != (size_t)(u - t) || memcmp(s, t, (size_t)(e - s)));
		}
		*nf1 = n1;
		*nf2 = n2;
		if (named)
			guess = n1 == n2 ? 1 : 2;
		else if (n1 == n2 && other && csv_column_numbers(first, sep))
			guess = 1;
		else
			guess = 0;
		break;
	}
	free(first);
	hog_input_close(&in);
	return guess;
}
