/* The CSV importer's state (import_csv.c) and its columns (import_csv_cols.c):
 * the header's names, which column is the label and which are left out, and how
 * messages name a column. */
#ifndef HOG_DATA_IMPORT_CSV_H
#define HOG_DATA_IMPORT_CSV_H
#include "data/import.h"
#include "data/import_csv_names.h"
#include "sys/err.h"
#include <stddef.h>
#include <stdint.h>

/* Longest "columns" meta entry kept; longer headers end with ",...". */
#define CSV_COLUMNS_MAX 16384

/* The values of a column in the first lines, to tell whether they look like
 * classes (csv_tally_add): whole numbers, and how many distinct ones. */
#define CSV_TALLY_MAX 100      /* more distinct values than this: not classes */
#define CSV_TALLY_LINES 10000  /* lines looked at */
typedef struct csv_tally {
	int whole;          /* every value so far a whole number (1 until one is not) */
	uint32_t n;         /* distinct values, up to CSV_TALLY_MAX + 1 */
	uint32_t lines;     /* values counted */
	uint8_t used[256];  /* open addressing over v */
	double v[256];
	uint32_t count[256]; /* lines with value v[h] */
} csv_tally;

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
	uint32_t *ids;      /* scratch for one example */
	float *vals;
	char *columns;      /* header names joined by ',' (first file), or NULL */
	uint32_t header_fields; /* fields of that header */
	int by_text;        /* the label column is the first data line's one field of text */
	int by_last;        /* the label column is the last, a header naming none */
	int by_values;      /* the label column is the last, its values like classes and the first's not (or more
	                       of them): a file without a header or text, tallied by the first pass */
	csv_tally *tally;   /* the first pass: the first and last columns' values (tally[0], [1]), or NULL */
	uint32_t tally_col[2]; /* those columns */
	uint64_t tally_lines;  /* lines tallied */
	char why_values[240]; /* by_values: what the first pass found, for the notes */
	int piped;          /* an input that cannot be read twice: no first pass */
	double label0;      /* the first label (numbers) */
	int labels_vary;    /* some label differs from the first */
	uint64_t nlabels;   /* numbers read so far */
	int label_names;    /* 0 until the first label; 1 numbers; 2 names (classes.c) */
	char first_label[300]; /* where the labels' kind was decided (FILE:LINE) */
	csv_names classes;  /* the labels' names (classes.c), where they are names */
	csv_names cats;     /* the categories: "column=value", feature nfeat + k */
	uint8_t *kind;      /* each field's: 0 not known yet, 1 numbers, 2 categories, 3 left out (--ignore-col) */
	uint32_t nignored;  /* the columns left out */
	int index_out;      /* column 0, without a name in the header, is one of them (a data frame's index) */
	uint8_t *counts;    /* a column of numbers: 0 not a count of the lines, 1 no value yet, 2 each value the
	                       one before + 1 so far (csv_note_columns) */
	double *first, *prev; /* such a column's first and latest value */
	uint64_t examples;  /* examples read (the main pass) */
	uint64_t comma_line;/* the first feature read with a decimal comma (csv_parse), or 0 */
	int comma_file;     /* its file */
	uint64_t *missing_at; /* a field of unknown kind: the first line that had no value, or 0 */
	uint32_t nfeat;     /* the feature columns (the first category's id) */
	uint32_t *cat;      /* scratch: one example's categories' ids */
	char **pre;         /* a column of categories: "NAME=" (its header name, or its number) */
	uint32_t *ncat;     /* a column of categories: its values */
	int file;           /* the file being read (c->in[file]) */
	int scan;           /* a first pass for the labels' names alone (csv_scan_names) */
	char src[256];      /* the writer keeps a pointer to it until the commit */
} csv_state;

/* Counts value [s, e) of a column into @p t. */
void csv_tally_add(csv_tally *t, const char *s, const char *e, char sep);
/* Whether the last column's tally (@p t[1]) looks more like classes than the
 * first's (t[0]): whole numbers of 2 to CSV_TALLY_MAX values, none on more
 * than 98% of the lines (a pixel that is almost always 0 is no label), where
 * the first's are not, or fewer of them; then why, for the notes, into @p why (columns
 * @p col, @p lines tallied). */
int csv_tally_last(const csv_tally *t, const uint32_t *col, uint64_t lines, char *why, size_t size);

/* Keeps the header's names in st->columns: quotes removed, commas and control
 * characters replaced by '_', cut at a name boundary when too long. */
int csv_keep_header(csv_state *st, const char *line, hog_err *err);
/* A later file's header @p line (@p nf fields) against the first's names:
 * HOG_EDATA naming the first column that differs, else 0. */
int csv_header_same(csv_state *st, const hog_input *in, const char *line, uint32_t nf, hog_err *err);
/* The column of header @p line that holds the label (csv_label_names[]); -1: none. */
long csv_named_label(csv_state *st, const char *line);
/* Marks the columns o->ignore_cols names (kind 3) among the @p nf of a line:
 * 0, or HOG_ECONFIG naming the entry (no such name or number). */
int csv_ignore(csv_state *st, const hog_input *in, uint32_t nf, hog_err *err);
/* The column of @p nf named @p name in the header kept (st->columns), or -1. */
long csv_column_named(const csv_state *st, uint32_t nf, const char *name);
/* An --ignore-col column that is the label or the weights': HOG_ECONFIG, else 0. */
int csv_ignore_check(csv_state *st, const hog_input *in, hog_err *err);
/* The header's names of the columns kept (not --ignore-col's), malloc'd; NULL
 * when out of memory. */
char *csv_kept_columns(const csv_state *st);
/* Says which columns were left out, and warns of columns kept that look like
 * identifiers: text with a value on almost every line, a count of the lines. */
void csv_note_columns(const csv_state *st, uint64_t examples);
/* Why a line's field count may differ from the first line's, " (...)", or "":
 * a first line without ',', ';' or a tab split at blanks (a title: adult.test's
 * "|1x3 Cross validator"), or a header's count. */
const char *csv_count_hint(const csv_state *st, const char *line);
/* "column K 'NAME'" (K from 0, as --label-col counts; the header's name where
 * there is one) into @p buf, which is returned: how messages name a column. */
const char *csv_col(const csv_state *st, uint32_t k, char *buf, size_t size);
/* How the label column was chosen, " (...)" where it was a guess, else "". */
const char *csv_label_why(const csv_state *st);
/* Tells the caller which column became the label, and how it was chosen. */
void csv_note_label(csv_state *st, const hog_input *in);

#endif
