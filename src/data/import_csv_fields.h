/* The CSV importer's fields of a line (import_csv_fields.c): walking them,
 * RFC 4180 quotes and blanks, the separator, and what a field holds. */
#ifndef HOG_DATA_IMPORT_CSV_FIELDS_H
#define HOG_DATA_IMPORT_CSV_FIELDS_H
#include <stddef.h>
#include <stdint.h>

/* Walks the fields of one line. */
typedef struct csv_split {
	const char *p;
	char sep;       /* 0: runs of blanks */
	int done;
} csv_split;

/* Next field as [*s, *e), blanks trimmed and the quotes of a quoted field
 * without a quote inside removed ("5.1": 5.1); 0 when the line has no more
 * fields. */
int csv_next(csv_split *sp, const char **s, const char **e);
/* Parses [s, e) as a number into *v: the end of what was read (e for a whole
 * field). Where the separator @p sep is not ',', a decimal comma ("1,5": 1.5;
 * a digit on each side, points before it only between groups of three digits,
 * "1.234,5": 1234.5) reads as a point, as files written where ',' is the
 * decimal mark have it (a ';' or a tab between fields). */
const char *csv_parse(const char *s, const char *e, char sep, double *v);
/* 1 when [s, e) is nothing but a number (csv_parse's). */
int csv_is_number(const char *s, const char *e, char sep);
/* The separator most frequent in the first line, among ',', tab and ';' (a
 * comma counting for none where each is between two digits and the line has a
 * ';' or a tab: a decimal mark); 0 (blanks) when none of them occurs. */
char csv_detect_sep(const char *line);
/* 1 when [s, e) is @p name, compared without case. */
int csv_name_is(const char *s, const char *e, const char *name);
/* How files say "no value": NA, N/A, null, None, nil, ? or - (any case). */
int csv_is_missing(const char *s, const char *e);
/* The header guess from the first two lines of file @p path (after @p skip
 * lines; import_csv_head.c): -1 none (a pipe, or one line), 0 data, 1 a
 * header, 2 a header of another field count than the line after it (@p nf1
 * and @p nf2 fields). @p sep as the importer has it where @p sep_known, else
 * found as it finds it (@p delim: --delim). */
int csv_header_guess(const char *path, uint64_t skip, int sep_known, char sep, char delim, size_t max_line,
                     uint32_t *nf1, uint32_t *nf2);

#endif
