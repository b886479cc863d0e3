/* Tests of the CSV importer's columns (src/data/import_csv_cols.c): columns
 * left out with --ignore-col (by name, by number from either end, each once),
 * every value read back against the same file without those columns, the
 * label guessed among the columns kept, the "columns" entry and a test set's
 * match against it, every bad list refused; and the warnings of columns that
 * look like identifiers (a count of the lines, text with a value a line); the
 * label of a file of numbers by its values; decimal commas; a data frame's
 * index left out; a header told from the line after it. */
#include "hogwild.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char notes[4096];

static void keep_note(void *ud, const char *msg)
{
	(void)ud;
	const size_t at = strlen(notes);
	snprintf(notes + at, sizeof notes - at, "%s\n", msg);
}

/* Imports @p text (a file named @p name) with @p ignore as --ignore-col; the
 * set, or NULL with @p err set. */
static hog_data *import_ignoring(const char *name, const char *text, const char *ignore, const char *label,
                                 int no_label, hog_err *err)
{
	char in[512], out[520];
	snprintf(in, sizeof in, "%s", tu_write(name, text, (size_t)-1));
	snprintf(out, sizeof out, "%s.lmdb", in);
	unlink(out);
	hog_import_opts o = { .format = HOG_FORMAT_CSV, .header = -1, .ignore_cols = ignore, .label_name = label,
	                      .label_given = label != NULL, .no_label = no_label, .note = keep_note };
	notes[0] = 0;
	memset(err, 0, sizeof *err);
	const char *ins[] = { in };
	if (hog_import(ins, 1, out, &o, err))
		return NULL;
	hog_data *d = NULL;
	CU_ASSERT_EQUAL(hog_data_load(&d, out, err), 0);
	return d;
}

/* @p a and @p b hold the same examples: labels, ids, values. */
static void same_rows(const hog_data *a, const hog_data *b)
{
	CU_ASSERT_EQUAL_FATAL(a->n, b->n);
	CU_ASSERT_EQUAL(a->dim, b->dim);
	CU_ASSERT_EQUAL_FATAL(a->nnz, b->nnz);
	for (uint64_t i = 0; i < a->n; i++) {
		CU_ASSERT_EQUAL(a->labels[i], b->labels[i]);
		CU_ASSERT_EQUAL(a->offsets[i + 1], b->offsets[i + 1]);
	}
	for (uint64_t j = 0; j < a->nnz; j++) {
		CU_ASSERT_EQUAL(a->ids[j], b->ids[j]);
		CU_ASSERT_EQUAL(a->vals ? a->vals[j] : 1.0f, b->vals ? b->vals[j] : 1.0f);
	}
}

static void test_ignore_by_name_and_number(void)
{
	hog_err err;
	/* the columns kept, written as a file of their own: the reference */
	hog_data *want = import_ignoring("kept.csv", "a,b,label\n5,6,1\n7,0,0\n0,8,1\n", NULL, NULL, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	const char *full = "Id,a,Name,b,label\n1,5,\"Smith, J\",6,1\n2,7,,0,0\n3,0,NA,8,1\n";
	const char *lists[] = { "id,NAME", "0,2", "-5,-3", "Id,0,name,2", NULL };
	for (int k = 0; lists[k]; k++) {
		hog_data *d = import_ignoring("full.csv", full, lists[k], NULL, 0, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		same_rows(d, want);
		CU_ASSERT_STRING_EQUAL(d->columns, "a,b,label");
		CU_ASSERT_PTR_NULL(d->categories); /* (the text of a column left out is never read) */
		CU_ASSERT_PTR_NOT_NULL(strstr(notes, "columns left out (--ignore-col): column 0 'Id', column 2 'Name'\n"));
		hog_data_free(d);
	}
	/* a set to predict on: the same list, and it matches the model's columns */
	hog_data *u = import_ignoring("unl.csv", "Id,a,Name,b\n9,1,x,2\n", "Id,Name", NULL, 1, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	CU_ASSERT_EQUAL(u->dim, 2);
	CU_ASSERT_STRING_EQUAL(u->columns, "a,b");
	hog_data_ref ref;
	hog_data_fit fit;
	hog_data_ref_of(want, &ref);
	CU_ASSERT_EQUAL(hog_data_reconcile(u, "unl", &ref, "kept", &fit, &err), 0);
	/* a set imported without the list is refused, naming the columns */
	hog_data *all = import_ignoring("all.csv", full, NULL, "label", 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(all);
	CU_ASSERT_EQUAL(hog_data_reconcile(all, "all", &ref, "kept", &fit, &err), HOG_EMISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "kept has 3 columns and all 5 ('Id', 'Name' only in all; imported with "
	                                       "another --ignore-col?)"));
	hog_data_ref_free(&ref);
	hog_data_free(all);
	hog_data_free(u);
	hog_data_free(want);
}

/* The label guessed among the columns kept: the one of text, the last. */
static void test_ignore_label_guess(void)
{
	hog_err err;
	const char *weather = "date,rain,wind,weather\n2012/01/01,0.5,4.7,drizzle\n2012/01/02,10.9,4.5,rain\n";
	CU_ASSERT_PTR_NULL(import_ignoring("w1.csv", weather, NULL, NULL, 0, &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "column 0 'date' holds text ('2012/01/01')"));
	hog_data *d = import_ignoring("w2.csv", weather, "date", NULL, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "the label is column 3 'weather' (the one column of names"));
	CU_ASSERT_EQUAL(d->meta.task, HOG_TASK_BINARY);
	CU_ASSERT_EQUAL(d->dim, 2);
	CU_ASSERT_EQUAL(d->labels[0], -1.0f); /* drizzle < rain (binary labels load as -1/+1) */
	CU_ASSERT_EQUAL(d->labels[1], 1.0f);
	hog_data_free(d);
	/* the last column left out: the last kept is the label */
	d = import_ignoring("w3.csv", "a,b,c,row\n1,2,0,1\n3,4,1,2\n", "row", NULL, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "the label is column 2 'c' (the last"));
	CU_ASSERT_EQUAL(d->dim, 2);
	CU_ASSERT_EQUAL(d->labels[1], 1.0f);
	CU_ASSERT_STRING_EQUAL(d->columns, "a,b,c");
	hog_data_free(d);
	/* without a header, by number */
	d = import_ignoring("w4.csv", "1,7,2\n0,8,3\n", "1", NULL, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->dim, 1);
	CU_ASSERT_EQUAL(d->vals[1], 3.0f);
	CU_ASSERT_PTR_NULL(d->columns);
	hog_data_free(d);
}

static void ignore_fails(const char *text, const char *ignore, const char *what)
{
	hog_err err;
	hog_data *d = import_ignoring("bad.csv", text, ignore, NULL, 0, &err);
	CU_ASSERT_PTR_NULL(d);
	CU_ASSERT_EQUAL(err.code, HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
	if (d || !strstr(err.msg, what))
		fprintf(stderr, "\n--ignore-col %s: got '%s'\n", ignore, err.msg);
	hog_data_free(d);
	CU_ASSERT_EQUAL(tu_sh("ls '%s' | grep -q 'bad.csv.lmdb'", tu_dir()), 1); /* nothing left behind */
}

static void test_ignore_refused(void)
{
	const char *t = "id,a,b,label\n1,2,3,0\n2,3,4,1\n";
	ignore_fails(t, "zz", "bad.csv:1: --ignore-col: no column named 'zz'");
	ignore_fails(t, "4", "--ignore-col 4 is out of range: lines have 4 fields");
	ignore_fails(t, "-5", "--ignore-col -5 is out of range");
	ignore_fails(t, "id,,a", "--ignore-col: an empty entry in 'id,,a'");
	ignore_fails(t, "label", "--ignore-col: column 3 'label' is the label (by its name;");
	ignore_fails(t, "id,a,b", "--ignore-col leaves no feature column (lines have 4 fields)");
	ignore_fails("1,2,3\n0,3,4\n", "a", "no column named 'a' (the file has no header line; give column numbers)");
	hog_err err;
	hog_import_opts o = { .format = HOG_FORMAT_CSV, .header = -1, .ignore_cols = "w", .weight_col = 1,
	                      .weight_given = 1 };
	const char *in = tu_write("wt.csv", "y,w,a\n1,2,3\n", (size_t)-1);
	CU_ASSERT_EQUAL(hog_import(&in, 1, tu_path("wt.lmdb"), &o, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--ignore-col: column 1 'w' is the weights' column"));
}

/* --weight-col by the header's name, as --label-col and --ignore-col take
 * (a new user's 'wt' was refused as no column number). */
static void test_weight_by_name(void)
{
	hog_err err;
	hog_import_opts o = { .format = HOG_FORMAT_CSV, .header = -1, .label_col = -1, .weight_given = 1,
	                      .weight_name = "wt" };
	const char *in = tu_write("wn.csv", "a,wt,b,y\n1,0.5,2,1\n3,2,1,0\n", (size_t)-1);
	CU_ASSERT_EQUAL_FATAL(hog_import(&in, 1, tu_path("wn.lmdb"), &o, &err), 0);
	hog_data *d = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path("wn.lmdb"), &err), 0);
	CU_ASSERT_EQUAL(d->dim, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->weights);
	CU_ASSERT_EQUAL(d->weights[0], 0.5f);
	CU_ASSERT_EQUAL(d->weights[1], 2.0f);
	CU_ASSERT_EQUAL(d->vals[0], 1.0f); /* (a, then b: the weights' column is no feature) */
	CU_ASSERT_EQUAL(d->vals[1], 2.0f);
	hog_data_free(d);
	o.weight_name = "w";
	CU_ASSERT_EQUAL(hog_import(&in, 1, tu_path("wn2.lmdb"), &o, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "wn.csv:1: --weight-col: no column named 'w'"));
	in = tu_write("wn3.csv", "1,0.5,2,1\n3,2,1,0\n", (size_t)-1);
	CU_ASSERT_EQUAL(hog_import(&in, 1, tu_path("wn3.lmdb"), &o, &err), HOG_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "(the file has no header line; give a column number)"));
}

/* Columns that look like identifiers are warned of, with the option to give. */
static void test_identifier_warnings(void)
{
	char text[8192];
	int at = snprintf(text, sizeof text, "PassengerId,name,pclass,label\n");
	for (int i = 0; i < 60; i++)
		at += snprintf(text + at, sizeof text - (size_t)at, "%d,person %d,%d,%d\n", 101 + i, i, 1 + i % 3, i % 2);
	hog_err err;
	hog_data *d = import_ignoring("ids.csv", text, NULL, "label", 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "warning: column 0 'PassengerId' counts the lines (101, 102, ...): a row "
	                                     "number?"));
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "--ignore-col PassengerId leaves it out"));
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "warning: column 1 'name' has 60 values in 60 lines: an identifier"));
	CU_ASSERT_PTR_NULL(strstr(notes, "'pclass'")); /* three values; a count that restarts */
	hog_data_free(d);
	d = import_ignoring("ids2.csv", text, "passengerid,name", "label", 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NULL(strstr(notes, "warning"));
	CU_ASSERT_EQUAL(d->dim, 1);
	hog_data_free(d);
	/* a count with one line out of order is no count; a short file says nothing */
	char *swap = strstr(text, "\n105,");
	CU_ASSERT_PTR_NOT_NULL_FATAL(swap);
	swap[3] = '9';
	d = import_ignoring("ids3.csv", text, "name", "label", 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NULL(strstr(notes, "warning"));
	hog_data_free(d);
	d = import_ignoring("ids4.csv", "id,name,label\n1,a,0\n2,b,1\n3,c,0\n", NULL, "label", 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NULL(strstr(notes, "warning"));
	hog_data_free(d);
}

/* A file of numbers without a header: the label is the last column where its
 * values look like classes and the first's do not, or are more; else column 0.
 * Each file is written with its label where the test says, the other column
 * at the other end made to look like what it is in the public file named. */
static void test_label_by_values(void)
{
	static const struct {
		const char *what;
		int label_last;
		int first_kind, last_kind; /* 0 fractions, 1 0/1, 2 1..3, 3 many whole numbers, 4 all 0 but 1 in 200,
		                              5 1..18, 6 one value */
		const char *why;           /* in the note, where the last is the label */
	} cases[] = {
		{ "pima: pregnancies first, 0/1 last", 1, 5, 1, "2 distinct in the first 400 lines, where column 0 has "
		                                                "18 values" },
		{ "spambase: a frequency first", 1, 0, 1, "where column 0 has values that are not all whole numbers" },
		{ "glass: an id first, classes last", 1, 3, 2, "where column 0 has more than 100 values" },
		{ "digits.csv: a pixel of 0 first", 1, 6, 2, "where column 0 has one value" },
		{ "HIGGS: 0/1 first, fractions last", 0, 1, 0, NULL },
		{ "UCI wine: 1..3 first, proline last", 0, 2, 3, NULL },
		{ "MNIST as CSV: digits first, a corner pixel last", 0, 5, 4, NULL },
		{ "both 0/1: the first, as LIBSVM", 0, 1, 1, NULL },
		{ "a regression file: the first, as before", 0, 0, 0, NULL },
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char *text = malloc(400 * 64), *p = text;
		uint64_t x = 12345 + c;
		int kinds[2] = { cases[c].first_kind, cases[c].last_kind };
		for (int i = 0; i < 400; i++) {
			for (int col = 0; col < 3; col++) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				const unsigned r = (unsigned)(x >> 33);
				if (col == 1) {
					p += sprintf(p, ",%.3f,", (r % 1000) / 7.0);
					continue;
				}
				switch (kinds[col / 2]) {
				case 0: p += sprintf(p, "%.2f", (r % 10000) / 100.0 + 0.01); break;
				case 1: p += sprintf(p, "%u", r % 2); break;
				case 2: p += sprintf(p, "%u", 1 + r % 3); break;
				case 3: p += sprintf(p, "%u", 1000 + i * 7); break;
				case 4: p += sprintf(p, "%u", i % 200 == 199 ? 1 + r % 255 : 0); break;
				case 5: p += sprintf(p, "%u", i < 18 ? (unsigned)i : r % 18); break;
				default: p += sprintf(p, "0"); break;
				}
			}
			*p++ = '\n';
		}
		*p = 0;
		hog_err err;
		hog_data *d = import_ignoring("byval.csv", text, NULL, NULL, 0, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		char want[300];
		if (cases[c].label_last)
			snprintf(want, sizeof want, "the label is column 2 (the last: its values are whole numbers, ");
		else
			snprintf(want, sizeof want, "the label is column 0 (the first: the file has no header");
		CU_ASSERT_PTR_NOT_NULL(strstr(notes, want));
		if (cases[c].why)
			CU_ASSERT_PTR_NOT_NULL(strstr(notes, cases[c].why));
		if (!strstr(notes, want) || (cases[c].why && !strstr(notes, cases[c].why)))
			fprintf(stderr, "\n%s: notes '%s'\n", cases[c].what, notes);
		/* the other end is a feature: line 1's value of it, the first feature or the second */
		double v0, v2, got = 0;
		CU_ASSERT_EQUAL_FATAL(sscanf(text, "%lf,%*[^,],%lf", &v0, &v2), 2);
		CU_ASSERT_EQUAL(d->dim, 2);
		for (uint64_t j = d->offsets[0]; j < d->offsets[1]; j++)
			if (d->ids[j] == (cases[c].label_last ? 0u : 1u))
				got = d->vals[j];
		CU_ASSERT_DOUBLE_EQUAL(got, cases[c].label_last ? v0 : v2, 1e-4 * (1 + fabs(v0) + fabs(v2)));
		hog_data_free(d);
		free(text);
	}
	/* a pipe is read once: no first pass, column 0 as before, and the note says why */
	hog_err err;
	const char *fifo = tu_path("byval.fifo");
	CU_ASSERT_EQUAL_FATAL(tu_sh("mkfifo '%s' && (printf '5,1.5,0\\n3,2.5,1\\n7,3.5,0\\n' > '%s' &)", fifo, fifo), 0);
	hog_import_opts o = { .format = HOG_FORMAT_CSV, .header = -1, .note = keep_note };
	notes[0] = 0;
	CU_ASSERT_EQUAL(hog_import(&fifo, 1, tu_path("byval-fifo.lmdb"), &o, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "the label is column 0 (the first: the file has no header to name it, and "
	                                     "a pipe is read once, so its last column's values were not looked at"));
}

/* Decimal commas, where a ';' or a tab is between fields: read as points,
 * each value against the same file written with points; a comma file keeps
 * its commas as separators, and "1.234,5" is no number. */
static void test_decimal_commas(void)
{
	hog_err err;
	hog_data *want = import_ignoring("pt.csv", "a,b,y\n1.5,2.25,1\n3.5,-0.5,0\n12,0.125,1\n", NULL, NULL, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	const char *files[] = { "a;b;y\n1,5;2,25;1\n3,5;-0,5;0\n12;0,125;1\n", "1,5;2,25;1\n3,5;-0,5;0\n12;0,125;1\n",
		                    "a\tb\ty\n1,5\t2,25\t1\n3,5\t-0,5\t0\n12\t0,125\t1\n", NULL };
	for (int k = 0; files[k]; k++) {
		hog_data *d = import_ignoring("dc.csv", files[k], NULL, NULL, 0, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		same_rows(d, want);
		CU_ASSERT_PTR_NOT_NULL(strstr(notes, ":2: decimal commas read as points") ||
		                       strstr(notes, ":1: decimal commas read as points"));
		hog_data_free(d);
	}
	hog_data_free(want);
	/* commas between fields: three fields, no decimal */
	hog_data *d = import_ignoring("cm.csv", "1,5,1\n3,5,0\n", NULL, NULL, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->dim, 2);
	CU_ASSERT_PTR_NULL(strstr(notes, "decimal"));
	hog_data_free(d);
	/* points between thousands before the comma; elsewhere no number */
	d = import_ignoring("th.csv", "a;b;y\n1.234,5;-12.345.678,25;1\n0,5;1;0\n", NULL, NULL, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->vals[0], 1234.5f);
	CU_ASSERT_EQUAL(d->vals[1], -12345678.25f);
	hog_data_free(d);
	const char *bad[] = { "1.23,5", "1.2345,5", "1,234,5", ".234,5", "1.234", NULL };
	for (int k = 0; bad[k]; k++) {
		char text[100], msg[100];
		snprintf(text, sizeof text, "a;b;c\n1;%s;2\n", bad[k]);
		snprintf(msg, sizeof msg, "column 1 'b' holds text ('%s')", bad[k]);
		d = import_ignoring("th.csv", text, NULL, NULL, 0, &err);
		if (!strcmp(bad[k], "1.234")) { /* (a point alone is a decimal point, as everywhere) */
			CU_ASSERT_PTR_NOT_NULL_FATAL(d);
			CU_ASSERT_EQUAL(d->vals[1], 1.234f);
			hog_data_free(d);
			continue;
		}
		CU_ASSERT_PTR_NULL(d);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, msg));
	}
}

/* A first column without a name in the header is a data frame's index
 * (pandas' to_csv, R's write.csv): left out, with a note; a set to predict on
 * written the same way matches the training set. */
static void test_index_column(void)
{
	hog_err err;
	hog_data *want = import_ignoring("noidx.csv", "a,b,label\n1.5,2,1\n2.5,3,0\n0.5,1,1\n", NULL, NULL, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	const char *files[] = { ",a,b,label\n0,1.5,2,1\n1,2.5,3,0\n2,0.5,1,1\n",
		                    "\"\",\"a\",\"b\",\"label\"\n\"1\",1.5,2,1\n\"2\",2.5,3,0\n\"3\",0.5,1,1\n", NULL };
	for (int k = 0; files[k]; k++) {
		hog_data *d = import_ignoring("idx.csv", files[k], NULL, NULL, 0, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		same_rows(d, want);
		CU_ASSERT_STRING_EQUAL(d->columns, "a,b,label");
		CU_ASSERT_PTR_NOT_NULL(strstr(notes, "column 0, without a name in the header, left out: a data frame's index"));
		CU_ASSERT_PTR_NULL(strstr(notes, "--ignore-col)")); /* (not the user's list) */
		hog_data_free(d);
	}
	hog_data *u = import_ignoring("idxu.csv", ",a,b\n7,1,2\n", NULL, NULL, 1, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	CU_ASSERT_EQUAL(u->dim, 2);
	hog_data_ref ref;
	hog_data_fit fit;
	hog_data_ref_of(want, &ref);
	CU_ASSERT_EQUAL(hog_data_reconcile(u, "idxu", &ref, "noidx", &fit, &err), 0);
	hog_data_ref_free(&ref);
	hog_data_free(u);
	hog_data_free(want);
	/* the label given as column 0: kept, as asked */
	hog_import_opts o = { .format = HOG_FORMAT_CSV, .header = -1, .label_given = 1, .label_col = 0 };
	const char *in = tu_write("idx0.csv", ",a,b\n1,2,3\n0,4,5\n", (size_t)-1);
	CU_ASSERT_EQUAL(hog_import(&in, 1, tu_path("idx0.lmdb"), &o, &err), 0);
	/* a column without a name elsewhere stays, and its warning names its number */
	char text[4096];
	int at = snprintf(text, sizeof text, "a,,label\n");
	for (int i = 0; i < 60; i++)
		at += snprintf(text + at, sizeof text - (size_t)at, "%d.5,%d,%d\n", i % 7, 10 + i, i % 2);
	hog_data *d = import_ignoring("mid.csv", text, NULL, NULL, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->dim, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "warning: column 1 (no name) counts the lines (10, 11, ...)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(notes, "--ignore-col 1 leaves it out"));
	hog_data_free(d);
}

/* The header guessed from the line after it (src/data/import_csv_head.c):
 * column numbers (pandas' names for a frame without any, with its index's
 * empty name or not), names over numbers where some names are numbers, a line
 * of counts and names of another field count (skipped, names not kept); and
 * what stays data: a line the same as the next, numbers that are no column
 * numbers, two columns, an NA in the first line (an error). Each case's
 * examples, features and first label as written here. */
static void test_header_guess(void)
{
	static const struct {
		const char *text;
		uint64_t n;
		uint32_t dim;
		float label0;     /* (NAN: which column is the label is not what these check) */
		const char *note; /* in the notes, or NULL: no header line said */
	} cases[] = {
		{ "0,1,2,3\n5,6,7,1\n8,9,10,0\n", 2, 3, 1, "a header line (column numbers), skipped: '0,1,2,3'" },
		{ "1,2,3,4\n5,6,7,1\n8,9,10,0\n", 3, 3, NAN, NULL },
		{ ",0,1,2,target\n0,1.5,2.5,3,1\n1,2,1,1,0\n", 2, 3, 1, "(names over the next line's numbers)" },
		{ "id,2019,2020,y\n7,1.5,2.5,1\n8,3,4,0\n", 2, 3, 1, "(names over the next line's numbers)" },
		{ "150,4,setosa,versicolor,virginica\n5.1,3.5,1.4,0.2,0\n4.9,3,1.4,0.2,1\n", 2, 4, -1,
		  "the label is column 4 'virginica'" }, /* (binary: 0 loads as -1) */
		{ "3,2,a,b\n1,2,3,4,1\n4,5,6,7,0\n5,6,7,8,1\n", 3, 4, 1,
		  "a first line of 4 fields before lines of 5, skipped as a header, its names not kept" },
		{ "0,1,2\n0,1,2\n5,6,1\n", 3, 2, NAN, NULL },
		{ "2,3,4\n5,6,1\n7,8,0\n", 3, 2, NAN, NULL },
		{ "0,1\n5,1\n7,0\n", 3, 1, NAN, NULL },
	};
	hog_err err;
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		hog_data *d = import_ignoring("guess.csv", cases[k].text, NULL, NULL, 0, &err);
		if (!d)
			fprintf(stderr, "case %zu: %s\n", k, err.msg);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->n, cases[k].n);
		CU_ASSERT_EQUAL(d->dim, cases[k].dim);
		CU_ASSERT(isnan(cases[k].label0) || d->labels[0] == cases[k].label0);
		if (d->n != cases[k].n || d->dim != cases[k].dim || !(isnan(cases[k].label0) || d->labels[0] == cases[k].label0))
			fprintf(stderr, "case %zu: %llu examples, %u features, label %g; notes '%s'\n", k,
			        (unsigned long long)d->n, (unsigned)d->dim, d->labels[0], notes);
		if (cases[k].note && !strstr(notes, cases[k].note))
			fprintf(stderr, "case %zu: notes '%s' lack '%s'\n", k, notes, cases[k].note);
		CU_ASSERT(cases[k].note ? strstr(notes, cases[k].note) != NULL : strstr(notes, "a header line") == NULL);
		hog_data_free(d);
	}
	/* an NA in the first line: a data line with an error, not a header */
	CU_ASSERT_PTR_NULL(import_ignoring("guess-na.csv", "1,NA,3\n2,5,4\n", NULL, NULL, 0, &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "guess-na.csv:1:3: no value in column 1 ('NA')"));
	/* --header no reads column numbers as data */
	const char *in = tu_write("guess-no.csv", "0,1,2\n5,6,1\n", (size_t)-1);
	hog_import_opts o = { .format = HOG_FORMAT_CSV, .header = 0 };
	CU_ASSERT_EQUAL(hog_import(&in, 1, tu_path("guess-no.lmdb"), &o, &err), 0);
	hog_data *d = NULL;
	CU_ASSERT_EQUAL_FATAL(hog_data_load(&d, tu_path("guess-no.lmdb"), &err), 0);
	CU_ASSERT_EQUAL(d->n, 2);
	hog_data_free(d);
}

int test_import_csv_cols_register(void)
{
	CU_pSuite s = CU_add_suite("import_csv_cols", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_ignore_by_name_and_number);
	TU_ADD(s, test_ignore_label_guess);
	TU_ADD(s, test_weight_by_name);
	TU_ADD(s, test_ignore_refused);
	TU_ADD(s, test_identifier_warnings);
	TU_ADD(s, test_label_by_values);
	TU_ADD(s, test_decimal_commas);
	TU_ADD(s, test_index_column);
	TU_ADD(s, test_header_guess);
	return 0;
}
