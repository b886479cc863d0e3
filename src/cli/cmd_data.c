/* `hogwild data`: make and inspect data sets. Six subcommands, one function
 * each: import (LIBSVM, CSV, ratings or MNIST idx files into an LMDB data set),
 * gen (a synthetic set), info (what a set holds and, for sparse sets, its
 * statistics in the Hogwild! paper's terms), verify (every block's checksum and
 * bounds), split (in two by fraction) and export (back to LIBSVM text).
 *
 * Each subcommand parses its own options with getopt_long. -h prints its usage,
 * which lists every option with its default, to stdout and exits 0; a usage
 * error (unknown option, missing operand, a number out of range) names the
 * option, prints the usage to stderr and exits 2; a library error exits 1. The
 * work itself is the library's: this file only turns argv into option structs
 * and results into text. */
#include "cli/cli.h"
#include "cli/cmd_data.h"
#include "data/classes.h"
#include "data/store.h"
#include "sys/file.h"
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char data_usage[] =
	"usage: hogwild data <subcommand> [options] ...\n"
	"\n"
	"subcommands:\n"
	"  import   read LIBSVM, CSV, ratings or MNIST idx files into a data set\n"
	"  gen      generate a synthetic data set\n"
	"  info     what a data set holds; for sparse sets, its Hogwild! statistics\n"
	"  verify   check every block of a data set\n"
	"  split    split a data set in two by fraction\n"
	"  export   write a sparse data set as LIBSVM text\n"
	"\n"
	"  hogwild data <subcommand> -h    options of a subcommand\n";

/* ------------------------------------------------------------ shared helpers */


/* (cmd_data.h) */
int data_opt_error(const char *cmd, const char *usage, int c, char **argv)
{
	const char *a = optind > 0 ? argv[optind - 1] : "";
	char name[64];
	if (a && !strncmp(a, "--", 2))
		snprintf(name, sizeof name, "%.*s", (int)strcspn(a, "="), a);
	else if (optopt > ' ' && optopt < 127)
		snprintf(name, sizeof name, "-%c", optopt);
	else
		snprintf(name, sizeof name, "%s", a ? a : "?");
	if (c == ':')
		return cli_usage_error(cmd, usage, "option %s needs a value", name);
	if (optopt && a && !strncmp(a, "--", 2) && strchr(a, '='))
		return cli_usage_error(cmd, usage, "option %s takes no value", name);
	return cli_usage_error(cmd, usage, "unknown option %s", name);
}

/* (cmd_data.h) */
int data_u64(const char *cmd, const char *usage, const char *opt, const char *s, uint64_t lo,
             uint64_t hi, uint64_t *out)
{
	if (cli_parse_u64(s, lo, hi, out) == 0)
		return 0;
	return cli_usage_error(cmd, usage, "%s: '%s' is not a whole number in %llu..%llu", opt, s,
	                       (ull)lo, (ull)hi);
}

/* Numbers in [lo, hi], or in (lo, hi) when @p open. */
static int data_f64(const char *cmd, const char *usage, const char *opt, const char *s, double lo,
                    double hi, int open, double *out)
{
	if (cli_parse_double(s, lo, hi, out) == 0 && (!open || (*out > lo && *out < hi)))
		return 0;
	return cli_usage_error(cmd, usage, "%s: '%s' is not a number in %s%g, %g%s", opt, s,
	                       open ? "(" : "[", lo, hi, open ? ")" : "]");
}

/* A byte count with an optional K, M or G suffix (powers of 1024). */
static int data_size(const char *cmd, const char *usage, const char *opt, const char *s, uint64_t *out)
{
	char num[32];
	size_t n = strlen(s);
	unsigned shift = 0;
	if (n > 0 && n < sizeof num) {
		memcpy(num, s, n + 1);
		switch (num[n - 1]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		}
		if (shift)
			num[n - 1] = 0;
		uint64_t v;
		if (cli_parse_u64(num, 1, (1ull << 40) >> shift, &v) == 0) {
			*out = v << shift;
			return 0;
		}
	}
	return cli_usage_error(cmd, usage, "%s: '%s' is not a byte count in 1..1T (K, M, G suffixes)", opt, s);
}

/* The position of @p s in the '|'-separated @p names, or 2 after a usage error. */
static int data_pick(const char *cmd, const char *usage, const char *opt, const char *s,
                     const char *names, int *out)
{
	*out = 0;
	for (const char *p = names;; p += strcspn(p, "|") + 1, ++*out) {
		size_t n = strcspn(p, "|");
		if (n == strlen(s) && !strncmp(p, s, n))
			return 0;
		if (!p[n])
			break;
	}
	*out = 0;
	return cli_usage_error(cmd, usage, "%s: '%s' is not one of %s", opt, s, names);
}

/* Refuses to replace what is not a data set of ours: the last operand of a
 * mistyped command line is often an input. Returns 0 or 1 after a message. */
static int data_check_output(const char *cmd, const char *path)
{
	struct stat st;
	char full[32];
	snprintf(full, sizeof full, "data %s", cmd);
	cli_catch_cleanup_signals(); /* from here on a stop removes what we write */
	int rc = cli_check_output(full, NULL, path, 0);
	if (rc)
		return rc;
	if (stat(path, &st) != 0)
		return 0;
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "hogwild data %s: %s: not a regular file; not replacing it\n", cmd, path);
		return 1;
	}
	if (st.st_size == 0)
		return 0;
	hog_store *s;
	hog_err e = { 0 };
	rc = hog_store_open(&s, path, &e);
	hog_store_close(s);
	if (rc == HOG_EFORMAT) {
		fprintf(stderr, "hogwild data %s: %s exists and is not a hogwild data set; not replacing it\n",
		        cmd, path);
		return 1;
	}
	return 0;
}

/* 1 when both paths name the same existing file. */
static int data_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!strcmp(a, b))
		return 1;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* "N examples, F features, Z nonzeros, B blocks" as fits the kind. */
static void data_counts(const hog_meta *m, char *buf, size_t size)
{
	const char *bl = m->blocks == 1 ? "block" : "blocks";
	if (m->kind == HOG_KIND_RATINGS)
		snprintf(buf, size, "%llu ratings, %llu users x %llu items, %llu %s", (ull)m->examples,
		         (ull)m->users, (ull)m->items, (ull)m->blocks, bl);
	else if (m->kind == HOG_KIND_DENSE)
		snprintf(buf, size, "%llu examples, %llu columns, %llu %s", (ull)m->examples, (ull)m->features,
		         (ull)m->blocks, bl);
	else
		snprintf(buf, size, "%llu examples, %llu features, %llu nonzeros, %llu %s", (ull)m->examples,
		         (ull)m->features, (ull)m->nnz, (ull)m->blocks, bl);
}

/* Opens a finished data set just to read its meta data. */
static int data_meta(const char *path, hog_meta *m, hog_err *err)
{
	hog_store *s;
	int rc = hog_store_open(&s, path, err);
	if (rc == 0) {
		*m = *hog_store_meta(s);
		hog_store_close(s);
	}
	return rc;
}

/* The importer's notes (a header line detected and skipped...) go to stderr. */
static void data_note(void *ud, const char *msg)
{
	cli_progress *p = ud;
	cli_progress_end(p);
	fprintf(stderr, "hogwild data import: %s\n", msg);
}

/* Whole-number classes, many, the rarest met once or twice (abalone's rings,
 * cpusmall's percentages): most likely a quantity counted, said with the
 * option that reads it as one. Silent where anything cannot be read. */
static void data_note_counted(const char *out, const hog_meta *m)
{
	hog_err err = { 0 };
	hog_data *h = NULL;
	hog_store *s = NULL;
	uint64_t *size = NULL;
	long top = -1;
	if (hog_data_load_header(&h, out, &err) || (h->class_names && !hog_class_numbers(h->class_names, NULL, &top)) ||
	    hog_store_open(&s, out, &err) || data_class_sizes(s, &size, &err))
		goto done;
	uint32_t lo = 0;
	for (uint32_t k = 1; k < m->classes; k++)
		lo = size[k] < size[lo] ? k : lo;
	if (size[lo] <= 2 && m->examples >= 100) {
		size_t n = 0;
		const char *name = h->class_names ? hog_class_name(h->class_names, lo, &n) : NULL;
		char cls[80];
		if (name)
			snprintf(cls, sizeof cls, "'%.*s'", (int)(n > 40 ? 40 : n), name);
		else
			snprintf(cls, sizeof cls, "%u", lo);
		fprintf(stderr, "hogwild data import: note: the labels are %u whole numbers, class %s met %llu time%s: a "
		        "quantity counted (a regression)? --task regression reads them as numbers\n", m->classes, cls,
		        (ull)size[lo], size[lo] == 1 ? "" : "s");
	}
done:
	free(size);
	if (s)
		hog_store_close(s);
	hog_data_free(h);
}

/* Runs an import or a generator with a progress line, then prints
 * "OUT: counts; ..." with the input bytes (import) or the time (gen). */
static int data_make(const char *out, const char *label, hog_import_opts *io, hog_gen_opts *go,
                     char **in, int nin, int quiet, uint64_t bytes)
{
	cli_progress p = { .label = label, .unit = io ? "B" : "ex" };
	hog_progress_fn fn = cli_progress_wanted(quiet) ? cli_progress_cb : NULL;
	hog_err err = { 0 };
	hog_meta m;
	double t0 = cli_now();
	int rc;
	cli_catch_cleanup_signals(); /* a stop removes the temporary file */
	if (io) {
		io->progress = fn;
		io->progress_ud = &p;
		io->note = data_note;
		io->note_ud = &p;
		rc = hog_import((const char *const *)in, nin, out, io, &err);
	} else {
		go->progress = fn;
		go->progress_ud = &p;
		rc = hog_gen(out, go, &err);
	}
	double dt = cli_now() - t0;
	cli_progress_end(&p);
	if (rc || (rc = data_meta(out, &m, &err)))
		return cli_fail(&err, rc);
	char counts[256];
	data_counts(&m, counts, sizeof counts);
	if (io)
		printf("%s: %s; %.1f MB in %.2f s (%.1f MB/s)\n", out, counts, bytes / 1e6, dt,
		       dt > 0 ? bytes / 1e6 / dt : 0.0);
	else
		printf("%s: %s; generated in %.2f s\n", out, counts, dt);
	if (io && !io->task && m.kind != HOG_KIND_RATINGS && !quiet) { /* a guess the user should see */
		char cls[32] = "";
		if (m.task == HOG_TASK_MULTICLASS)
			snprintf(cls, sizeof cls, ", %llu classes", (ull)m.classes);
		fprintf(stderr, "hogwild data import: task %s%s, from the labels (--task binary, multiclass or "
		        "regression chooses)\n", hog_task_name(m.task), cls);
		if (m.task == HOG_TASK_MULTICLASS && m.classes >= 10)
			data_note_counted(out, &m);
	}
	return 0;
}

/* ------------------------------------------------------------ import */

static const char import_usage[] =
	"usage: hogwild data import --format FMT [options] IN... OUT.lmdb\n"
	"\n"
	"Reads the IN files (plain, or gzip, bzip2, xz or zstd text) into a new data\n"
	"set OUT.lmdb, written to a temporary file and renamed into place when\n"
	"complete. Malformed input is reported as FILE:LINE:COLUMN and leaves\n"
	"nothing behind.\n"
	"\n"
	"  -f, --format FMT      libsvm | csv | ratings | idx | vw (required: without\n"
	"                        it the refusal says what IN's first line reads as;\n"
	"                        idx takes the image file, then the label file; vw:\n"
	"                        Vowpal Wabbit's text, names hashed as VW hashes them)\n"
	"  -t, --task TASK       binary | multiclass | regression (default: from the\n"
	"                        labels: binary for {0,1} or {-1,1}, or two whole\n"
	"                        numbers (1 and 2: classes named 1 and 2, the\n"
	"                        smaller negative), multiclass for integers below\n"
	"                        100, or below 1000 with 20 examples a class (1..7,\n"
	"                        or -1, 0, 1: classes named by the numbers, 0..K-1:\n"
	"                        the classes as they are), else regression)\n"
	"  -d, --dim N           libsvm: dimension (default: 1 + largest index)\n"
	"      --zero-based      libsvm: feature indices start at 0 (scikit-learn's\n"
	"                        dump_svmlight_file writes them so by default), not 1\n"
	"      --label-col N     csv: label column from 0, negative from the end, or\n"
	"                        its name in the header (default: a header column\n"
	"                        named label, target, class or y; else the one\n"
	"                        field of text of the first data line, first or\n"
	"                        last; else the last column after a header; else\n"
	"                        the last where its values look like classes and\n"
	"                        column 0's do not, or are more (pima, covtype);\n"
	"                        else column 0; the import says which it took).\n"
	"                        Labels may be class names (setosa, ...);\n"
	"                        with the label named or given, a column of text\n"
	"                        is categories, a feature a value\n"
	"      --ignore-col LIST csv: columns left out, neither label nor feature:\n"
	"                        numbers from 0 (negative from the end) or header\n"
	"                        names, comma-separated, the option repeatable\n"
	"                        (PassengerId,Name: an identifier, a free text); a\n"
	"                        set to evaluate or predict on needs the same list\n"
	"      --missing M       csv: error | zero, a feature field with no value\n"
	"                        (empty, NA, ?, -, null) in a column of numbers:\n"
	"                        an error naming it (default), or 0, the feature\n"
	"                        absent from its line\n"
	"      --header H        csv, ratings: yes | no | auto (default auto: a first\n"
	"                        line with a field that is not a number is a header;\n"
	"                        a header is skipped with a note on stderr)\n"
	"      --skip N          csv, ratings: skip the first N lines of each file\n"
	"                        before looking for a header (default 0)\n"
	"      --delim C         csv, ratings: , | tab | ; | space (default: detect;\n"
	"                        not ',': decimal commas read, 1,5 as 1.5)\n"
	"      --no-label        the inputs have no labels, a set to predict on: csv\n"
	"                        lines of features only, ratings 'user item' pairs,\n"
	"                        libsvm lines of id:value only (libsvm: also detected\n"
	"                        from the first line); eval, train and compare refuse\n"
	"                        such a set\n"
	"      --bits B          vw: feature ids of B bits, 1..31, the set's dimension\n"
	"                        2^B (default 18, as VW's -b)\n"
	"      --quadratic PAIRS vw: pairs of namespaces (first letters) whose\n"
	"                        features' products are features too: ab,cd is VW's\n"
	"                        -q ab -q cd (default none)\n"
	"      --weight-col N    csv: the column (from 0, negative from the end) of\n"
	"                        example weights, neither label nor feature;\n"
	"                        ratings: 3, the fourth field is a weight rather\n"
	"                        than a timestamp (libsvm lines give label:weight,\n"
	"                        vw lines the importance)\n"
	"      --weights FILE    one example weight a line, in the input's order\n"
	"                        (the counts must match; replaces weights the input\n"
	"                        gives); weights are finite numbers > 0\n"
	"      --max-line BYTES  longest line accepted, K/M/G suffixes (default 16M)\n"
	"  -b, --block N         examples per block (default 4096)\n"
	"      --encoding E      packed | raw (default packed: a block's ids as\n"
	"                        varint gaps and its values narrowed where exact,\n"
	"                        when that is smaller, format version 3; raw: 4\n"
	"                        bytes an id and a value, a set hogwild before\n"
	"                        version 3 of the format reads)\n"
	"      --value-precision P  exact | f16 | bf16 (default exact: packed values\n"
	"                        come back bit for bit, as a byte times a scale,\n"
	"                        f16 or bf16 when they hold them, else f32; f16,\n"
	"                        bf16: rounded to that type, within relative 2^-11\n"
	"                        or 2^-8, a block where that fails stays exact)\n"
	"  -q, --quiet           no progress line on stderr\n"
	"  -h, --help            this text\n";

static int data_import(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", required_argument, 0, 'f' }, { "task", required_argument, 0, 't' },
		{ "dim", required_argument, 0, 'd' }, { "label-col", required_argument, 0, OPT_LABEL_COL },
		{ "header", required_argument, 0, OPT_HEADER }, { "delim", required_argument, 0, OPT_DELIM },
		{ "max-line", required_argument, 0, OPT_MAX_LINE }, { "block", required_argument, 0, 'b' },
		{ "skip", required_argument, 0, OPT_SKIP }, { "no-label", no_argument, 0, OPT_NO_LABEL },
		{ "bits", required_argument, 0, OPT_BITS }, { "quadratic", required_argument, 0, OPT_QUADRATIC },
		{ "weight-col", required_argument, 0, OPT_WEIGHT_COL }, { "weights", required_argument, 0, OPT_WEIGHTS },
		{ "value-precision", required_argument, 0, OPT_VALUE_PRECISION },
		{ "encoding", required_argument, 0, OPT_ENCODING }, { "zero-based", no_argument, 0, OPT_ZERO_BASED },
		{ "missing", required_argument, 0, OPT_MISSING },
		{ "ignore-col", required_argument, 0, OPT_IGNORE_COL },
		{ "quiet", no_argument, 0, 'q' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	const char *cmd = "data import", *U = import_usage;
	hog_import_opts o = { .header = -1 };
	int quiet = 0, c, k = 0, rc = 0, set_dim = 0, set_text = 0, set_task = 0;
	char ignore[4096] = "";
	uint64_t v = 0;
	long lv;
	while ((c = getopt_long(argc, argv, ":f:t:d:b:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'f': /* in the order of enum hog_format */
			rc = data_pick(cmd, U, "--format", optarg, "libsvm|csv|ratings|idx|vw", &k);
			o.format = (enum hog_format)(HOG_FORMAT_LIBSVM + k);
			break;
		case 't': /* in the order of enum hog_task */
			rc = data_pick(cmd, U, "--task", optarg, "binary|multiclass|regression", &k);
			o.task = (enum hog_task)(HOG_TASK_BINARY + k);
			set_task = 1;
			break;
		case 'd':
			rc = data_u64(cmd, U, "--dim", optarg, 1, UINT32_MAX, &o.features);
			set_dim = 1;
			break;
		case OPT_LABEL_COL:
			if (cli_parse_int(optarg, -65536, 65535, &lv) == 0)
				o.label_col = (int)lv;
			else if (*optarg && !strchr(optarg, ','))
				o.label_name = optarg; /* a header column's name */
			else
				return cli_usage_error(cmd, U, "--label-col: '%s' is neither a column number nor a name", optarg);
			o.label_given = 1;
			set_text |= 1;
			break;
		case OPT_HEADER:
			rc = data_pick(cmd, U, "--header", optarg, "no|yes|auto", &k);
			o.header = k == 2 ? -1 : k;
			set_text |= 2;
			break;
		case OPT_DELIM:
			rc = data_pick(cmd, U, "--delim", optarg, ",|tab|;|space|comma|semicolon", &k);
			o.delim = ",\t; ,;"[k];
			set_text |= 2;
			break;
		case OPT_MAX_LINE: rc = data_size(cmd, U, "--max-line", optarg, &v); o.max_line = (size_t)v; break;
		case OPT_SKIP:
			rc = data_u64(cmd, U, "--skip", optarg, 0, UINT64_MAX, &o.skip_lines);
			set_text |= 4;
			break;
		case 'b':
			rc = data_u64(cmd, U, "--block", optarg, 1, 1u << 24, &v);
			o.block_examples = (uint32_t)v;
			break;
		case OPT_NO_LABEL: o.no_label = 1; break;
		case OPT_BITS:
			rc = data_u64(cmd, U, "--bits", optarg, 1, 31, &v);
			o.vw_bits = (uint32_t)v;
			set_text |= 8;
			break;
		case OPT_QUADRATIC:
			o.vw_quadratic = optarg;
			set_text |= 8;
			break;
		case OPT_WEIGHT_COL:
			if (cli_parse_int(optarg, -65536, 65535, &lv) != 0)
				return cli_usage_error(cmd, U, "--weight-col: '%s' is not a column number", optarg);
			o.weight_col = (int)lv;
			o.weight_given = 1;
			break;
		case OPT_WEIGHTS: o.weights_file = optarg; break;
		case OPT_VALUE_PRECISION:
			rc = data_pick(cmd, U, "--value-precision", optarg, "exact|f16|bf16", &k);
			o.value_precision = k; /* the order of enum hog_value_precision */
			break;
		case OPT_ENCODING:
			rc = data_pick(cmd, U, "--encoding", optarg, "packed|raw", &k);
			o.raw_blocks = k == 1;
			break;
		case OPT_ZERO_BASED: o.zero_based = 1; break;
		case OPT_MISSING:
			rc = data_pick(cmd, U, "--missing", optarg, "error|zero", &k);
			o.missing_zero = k == 1;
			set_text |= 16;
			break;
		case OPT_IGNORE_COL: { /* (repeated: the lists joined) */
			const size_t at = strlen(ignore);
			if (!*optarg || at + strlen(optarg) + 2 > sizeof ignore)
				return cli_usage_error(cmd, U, *optarg ? "--ignore-col: the lists are too long (%zu bytes at most)"
				                                       : "--ignore-col: no column given", sizeof ignore - 2);
			snprintf(ignore + at, sizeof ignore - at, "%s%s", at ? "," : "", optarg);
			o.ignore_cols = ignore;
			set_text |= 32;
			break;
		}
		case 'q': quiet = 1; break;
		case 'h': fputs(U, stdout); return 0;
		default: return data_opt_error(cmd, U, c, argv);
		}
		if (rc)
			return rc;
	}
	int npos = argc - optind;
	if (o.no_label && (o.format == HOG_FORMAT_IDX || (set_text & 1)))
		return cli_usage_error(cmd, U, o.format == HOG_FORMAT_IDX ? "--no-label applies to --format libsvm, csv "
		                       "and ratings (idx takes a label file)" : "--no-label: there is no label column to "
		                       "choose (--label-col)");
	if (!o.format) { /* (with what the first input looks like, when it says) */
		char what[96];
		const char *note, *g = npos ? cli_import_guess(argv[optind], what, sizeof what, &note) : NULL;
		if (g)
			return cli_usage_error(cmd, U, "--format is required: %s begins with %s, which reads as --format %s%s",
			                       argv[optind], what, g, note);
		return cli_usage_error(cmd, U, "--format is required");
	}
	if (npos < 2)
		return cli_usage_error(cmd, U, npos ? "no output file given (the last operand is the output)"
		                                    : "no input and output files given");
	if (set_dim && o.format != HOG_FORMAT_LIBSVM)
		return cli_usage_error(cmd, U, "--dim applies to --format libsvm only");
	if (o.zero_based && o.format != HOG_FORMAT_LIBSVM)
		return cli_usage_error(cmd, U, "--zero-based applies to --format libsvm only");
	if ((set_text & 1) && o.format != HOG_FORMAT_CSV)
		return cli_usage_error(cmd, U, "--label-col applies to --format csv only");
	if ((set_text & 32) && o.format != HOG_FORMAT_CSV)
		return cli_usage_error(cmd, U, "--ignore-col applies to --format csv only");
	if ((set_text & 16) && o.format != HOG_FORMAT_CSV)
		return cli_usage_error(cmd, U, "--missing applies to --format csv only");
	if ((set_text & 2) && o.format != HOG_FORMAT_CSV && o.format != HOG_FORMAT_RATINGS)
		return cli_usage_error(cmd, U, "--header and --delim apply to --format csv and ratings only");
	if ((set_text & 4) && o.format != HOG_FORMAT_CSV && o.format != HOG_FORMAT_RATINGS)
		return cli_usage_error(cmd, U, "--skip applies to --format csv and ratings only");
	if ((set_text & 8) && o.format != HOG_FORMAT_VW)
		return cli_usage_error(cmd, U, "--bits and --quadratic apply to --format vw only");
	if (o.weight_given && o.format != HOG_FORMAT_CSV && !(o.format == HOG_FORMAT_RATINGS && o.weight_col == 3))
		return cli_usage_error(cmd, U, o.format == HOG_FORMAT_RATINGS ? "--weight-col: ratings take 3 only (the "
		                       "fourth field a weight, not a timestamp)" : "--weight-col applies to --format csv "
		                       "and ratings only (libsvm: label:weight; vw: the importance; any: --weights FILE)");
	if ((o.weight_given || o.weights_file) && (o.no_label || o.format == HOG_FORMAT_IDX))
		return cli_usage_error(cmd, U, "%s does not apply to %s", o.weight_given ? "--weight-col" : "--weights",
		                       o.no_label ? "a set without labels (--no-label)" : "--format idx");
	if (o.weight_given && o.weights_file)
		return cli_usage_error(cmd, U, "--weight-col and --weights: give the weights one way");
	if (set_task && o.format == HOG_FORMAT_RATINGS)
		return cli_usage_error(cmd, U, "--task does not apply to --format ratings");
	if (o.format == HOG_FORMAT_IDX && npos != 3)
		return cli_usage_error(cmd, U, "--format idx takes two inputs (images, labels) and the output");
	char **in = argv + optind;
	int nin = npos - 1;
	const char *out = argv[argc - 1];
	for (int i = 0; i < nin; i++)
		if (data_same_file(in[i], out)) {
			fprintf(stderr, "hogwild %s: %s is both an input and the output\n", cmd, out);
			return 1;
		}
	if ((rc = data_check_output("import", out)))
		return rc;

	uint64_t bytes = 0;
	for (int i = 0; i < nin; i++) {
		struct stat st;
		if (stat(in[i], &st) == 0 && S_ISREG(st.st_mode))
			bytes += (uint64_t)st.st_size;
	}
	return data_make(out, "import", &o, NULL, in, nin, quiet, bytes);
}

/* ------------------------------------------------------------ gen */

static void data_given(const char *bad[4], const char *opt, unsigned kinds)
{
	for (unsigned k = HOG_KIND_SPARSE; k <= HOG_KIND_DENSE; k++)
		if (!(kinds & 1u << k) && !bad[k])
			bad[k] = opt;
}

static const char gen_usage[] =
	"usage: hogwild data gen [options] OUT.lmdb\n"
	"\n"
	"Generates a synthetic data set. The defaults give RCV1's shape for sparse\n"
	"sets (781265 examples, 47236 features, 71 nonzeros each, binary labels).\n"
	"\n"
	"  -k, --kind KIND     sparse | ratings | dense (default sparse)\n"
	"  -n, --examples N    examples; ratings: number of ratings (default: sparse\n"
	"                      781265, ratings 1000000, dense 60000)\n"
	"  -d, --features N    sparse: dimension (default 47236);\n"
	"                      dense: columns (default 64)\n"
	"      --nnz MEAN      sparse: mean nonzeros per example (default 71)\n"
	"      --zipf S        sparse, ratings: popularity exponent of features or\n"
	"                      items, 0..10 (default 1.0)\n"
	"      --noise P       sparse: label flip rate, 0..0.5 (default 0.04);\n"
	"                      ratings: noise standard deviation, 0..10 (default 0.5)\n"
	"      --binary        sparse: all values 1 (default: unit-norm rows)\n"
	"      --users N       ratings: users (default 20000)\n"
	"      --items N       ratings: items (default 2000)\n"
	"      --rank K        ratings: rank of the hidden factors, 1..1024 (default 10)\n"
	"      --classes C     dense: classes, 2..65536 (default 10)\n"
	"  -s, --seed S        random seed, from 1 (default 1)\n"
	"  -b, --block N       examples per block (default 4096)\n"
	"  -q, --quiet         no progress line on stderr\n"
	"  -h, --help          this text\n";

static int data_gen(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "kind", required_argument, 0, 'k' }, { "examples", required_argument, 0, 'n' },
		{ "features", required_argument, 0, 'd' }, { "nnz", required_argument, 0, OPT_NNZ },
		{ "zipf", required_argument, 0, OPT_ZIPF }, { "noise", required_argument, 0, OPT_NOISE },
		{ "binary", no_argument, 0, OPT_BINARY }, { "users", required_argument, 0, OPT_USERS },
		{ "items", required_argument, 0, OPT_ITEMS }, { "rank", required_argument, 0, OPT_RANK },
		{ "classes", required_argument, 0, OPT_CLASSES }, { "seed", required_argument, 0, 's' },
		{ "block", required_argument, 0, 'b' }, { "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	const char *cmd = "data gen", *U = gen_usage;
	hog_gen_opts o = { .kind = HOG_KIND_SPARSE };
	/* options that fit some kinds only: bad[kind] is the first given that does not fit */
	enum { KS = 1u << HOG_KIND_SPARSE, KR = 1u << HOG_KIND_RATINGS, KD = 1u << HOG_KIND_DENSE };
	const char *bad[4] = { 0 }, *noise_arg = NULL;
#define GIVEN(name, kinds) data_given(bad, name, kinds)
	int quiet = 0, c, k = 0, rc = 0;
	uint64_t v = 0;
	double d = 0;
	while ((c = getopt_long(argc, argv, ":k:n:d:s:b:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'k': /* in the order of enum hog_kind */
			rc = data_pick(cmd, U, "--kind", optarg, "sparse|ratings|dense", &k);
			o.kind = (enum hog_kind)(HOG_KIND_SPARSE + k);
			break;
		case 'n': rc = data_u64(cmd, U, "--examples", optarg, 1, 1ull << 40, &o.examples); break;
		case 'd':
			rc = data_u64(cmd, U, "--features", optarg, 1, UINT32_MAX, &o.features);
			GIVEN("--features", KS | KD);
			break;
		case OPT_NNZ:
			rc = data_f64(cmd, U, "--nnz", optarg, 1, 4294967295.0, 0, &o.nnz_per_example);
			GIVEN("--nnz", KS);
			break;
		case OPT_ZIPF:
			rc = data_f64(cmd, U, "--zipf", optarg, 0, 10, 0, &d);
			o.zipf = d > 0 ? d : DBL_MIN; /* 0 means "default" in hog_gen_opts: ask for the nearest */
			GIVEN("--zipf", KS | KR);
			break;
		case OPT_NOISE: noise_arg = optarg; GIVEN("--noise", KS | KR); break; /* range: below */
		case OPT_BINARY: o.binary_values = 1; GIVEN("--binary", KS); break;
		case OPT_USERS: rc = data_u64(cmd, U, "--users", optarg, 1, UINT32_MAX - 1ull, &o.users);
			GIVEN("--users", KR);
			break;
		case OPT_ITEMS: rc = data_u64(cmd, U, "--items", optarg, 1, UINT32_MAX - 1ull, &o.items);
			GIVEN("--items", KR);
			break;
		case OPT_RANK:
			rc = data_u64(cmd, U, "--rank", optarg, 1, 1024, &v);
			o.rank = (uint32_t)v;
			GIVEN("--rank", KR);
			break;
		case OPT_CLASSES:
			rc = data_u64(cmd, U, "--classes", optarg, 2, 65536, &v);
			o.classes = (uint32_t)v;
			GIVEN("--classes", KD);
			break;
		case 's': rc = data_u64(cmd, U, "--seed", optarg, 1, UINT64_MAX, &o.seed); break;
		case 'b':
			rc = data_u64(cmd, U, "--block", optarg, 1, 1u << 24, &v);
			o.block_examples = (uint32_t)v;
			break;
		case 'q': quiet = 1; break;
		case 'h': fputs(U, stdout); return 0;
		default: return data_opt_error(cmd, U, c, argv);
		}
		if (rc)
			return rc;
	}
#undef GIVEN
	if (argc - optind != 1)
		return cli_usage_error(cmd, U, argc == optind ? "no output file given" : "too many operands");
	if (bad[o.kind])
		return cli_usage_error(cmd, U, "%s does not apply to --kind %s", bad[o.kind], hog_kind_name(o.kind));
	if (o.kind == HOG_KIND_DENSE && o.features > (1u << 24))
		return cli_usage_error(cmd, U, "--features: %llu columns; a dense set has at most %u",
		                       (ull)o.features, 1u << 24);
	if (noise_arg) {
		if ((rc = data_f64(cmd, U, "--noise", noise_arg, 0, o.kind == HOG_KIND_SPARSE ? 0.5 : 10, 0, &d)))
			return rc;
		o.noise = d > 0 ? d : DBL_MIN; /* as for --zipf */
	}
	const char *out = argv[optind];
	if ((rc = data_check_output("gen", out)))
		return rc;
	return data_make(out, "gen", NULL, &o, NULL, 0, quiet, 0);
}

/* ------------------------------------------------------------ verify */

static const char verify_usage[] =
	"usage: hogwild data verify D.lmdb\n"
	"\n"
	"Checks every block of a data set: checksum, counts, offsets, ids, values.\n"
	"Prints \"ok: N blocks, M examples\", or the first damage found and exits 1.\n"
	"\n"
	"  -h, --help        this text\n";

static int data_verify(int argc, char **argv)
{
	static const struct option lo[] = { { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
	const char *cmd = "data verify", *U = verify_usage;
	int c, rc;
	if ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1)
		return c == 'h' ? (fputs(U, stdout), 0) : data_opt_error(cmd, U, c, argv);
	if (argc - optind != 1)
		return cli_usage_error(cmd, U, argc == optind ? "no data set given" : "one data set at a time");
	const char *path = argv[optind];
	if (cli_check_input(cmd, NULL, path))
		return 1;
	hog_err err = { 0 };
	uint64_t blocks = 0;
	hog_meta m;
	if ((rc = hog_store_verify(path, &blocks, &err)) || (rc = data_meta(path, &m, &err)))
		return cli_fail(&err, rc);
	printf("ok: %llu blocks, %llu examples\n", (ull)blocks, (ull)m.examples);
	return 0;
}

/* ------------------------------------------------------------ split */

static const char split_usage[] =
	"usage: hogwild data split --fraction F [--seed S] [--per-user] IN.lmdb A.lmdb B.lmdb\n"
	"\n"
	"Splits a data set in two: each example goes to B.lmdb with probability F,\n"
	"decided by a hash of the seed and its index, else to A.lmdb.\n"
	"\n"
	"  -f, --fraction F  share going to B.lmdb, in (0, 1) (required)\n"
	"  -s, --seed S      seed of the hash (default 1)\n"
	"      --per-user    ratings sets: each user's first rating stays in A.lmdb, so\n"
	"                    every user of B.lmdb has ratings to train on (off)\n"
	"  -h, --help        this text\n";

static int data_split(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "fraction", required_argument, 0, 'f' }, { "seed", required_argument, 0, 's' },
		{ "per-user", no_argument, 0, 'u' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	const char *cmd = "data split", *U = split_usage;
	double frac = 0;
	uint64_t seed = 1;
	int c, rc, per_user = 0;
	while ((c = getopt_long(argc, argv, ":f:s:h", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			rc = data_f64(cmd, U, "--fraction", optarg, 0, 1, 1, &frac);
			break;
		case 's':
			rc = data_u64(cmd, U, "--seed", optarg, 0, UINT64_MAX, &seed);
			break;
		case 'u':
			per_user = 1;
			rc = 0;
			break;
		case 'h': fputs(U, stdout); return 0;
		default: return data_opt_error(cmd, U, c, argv);
		}
		if (rc)
			return rc;
	}
	if (frac == 0)
		return cli_usage_error(cmd, U, "--fraction is required");
	if (argc - optind != 3)
		return cli_usage_error(cmd, U, "needs three operands: IN.lmdb A.lmdb B.lmdb");
	const char *in = argv[optind], *a = argv[optind + 1], *b = argv[optind + 2];
	if (data_same_file(a, b) || data_same_file(in, a) || data_same_file(in, b))
		return cli_usage_error(cmd, U, "IN.lmdb, A.lmdb and B.lmdb must be three different files");
	if (cli_check_input(cmd, NULL, in))
		return 1;
	if ((rc = data_check_output("split", a)) || (rc = data_check_output("split", b)))
		return rc;
	cli_catch_cleanup_signals(); /* a stop removes both temporary files */
	hog_err err = { 0 };
	hog_meta ma, mb;
	if ((rc = (per_user ? hog_data_split_users : hog_data_split)(in, a, b, frac, seed, &err)) ||
	    (rc = data_meta(a, &ma, &err)) ||
	    (rc = data_meta(b, &mb, &err)))
		return cli_fail(&err, rc);
	double n = (double)(ma.examples + mb.examples);
	printf("%s: %llu examples -> %s: %llu (%.1f%%), %s: %llu (%.1f%%)\n", in,
	       (ull)(ma.examples + mb.examples), a, (ull)ma.examples, n ? 100.0 * ma.examples / n : 0.0, b,
	       (ull)mb.examples, n ? 100.0 * mb.examples / n : 0.0);
	return 0;
}

/* ------------------------------------------------------------ export */

static const char export_usage[] =
	"usage: hogwild data export [--format libsvm] [--out FILE] D.lmdb\n"
	"\n"
	"Writes a sparse data set as LIBSVM text (ids from 1; floats printed so that\n"
	"importing the text again gives the same values).\n"
	"\n"
	"  -f, --format FMT  libsvm, the only one (default libsvm)\n"
	"  -o, --out FILE    write FILE atomically: FILE.tmp.PID, synced, then renamed\n"
	"                    (default: standard output)\n"
	"  -h, --help        this text\n";

/* cli_write_atomic's filler: the data set @p ud as LIBSVM text. */
static int export_fill(void *ud, int fd, hog_err *err)
{
	return hog_export_libsvm((const char *)ud, fd, err);
}

static int data_export(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", required_argument, 0, 'f' }, { "out", required_argument, 0, 'o' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	const char *cmd = "data export", *U = export_usage, *outp = NULL;
	int c, k, rc;
	while ((c = getopt_long(argc, argv, ":f:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			rc = data_pick(cmd, U, "--format", optarg, "libsvm", &k);
			break;
		case 'o':
			if (!*optarg)
				return cli_usage_error(cmd, U, "--out: empty file name");
			outp = optarg;
			break;
		case 'h': fputs(U, stdout); return 0;
		default: return data_opt_error(cmd, U, c, argv);
		}
		if (rc)
			return rc;
	}
	if (argc - optind != 1)
		return cli_usage_error(cmd, U, argc == optind ? "no data set given" : "one data set at a time");
	const char *in = argv[optind];
	hog_err err = { 0 };
	if (cli_check_input(cmd, NULL, in))
		return 1;
	if (!outp) {
		rc = hog_export_libsvm(in, STDOUT_FILENO, &err);
		if (rc == EPIPE && cli_stdout_gone())
			return 0; /* the reader (| head) had enough: quietly, like any filter */
		return rc ? cli_fail(&err, rc) : 0;
	}
	if (data_same_file(in, outp)) {
		fprintf(stderr, "hogwild %s: %s is both the input and the output\n", cmd, outp);
		return 1;
	}
	cli_catch_cleanup_signals(); /* from here on a stop removes what we write */
	if ((rc = cli_check_output(cmd, "--out", outp, 0)))
		return rc;
	return cli_write_atomic(cmd, outp, export_fill, (void *)in, "export: writing");
}

/* ------------------------------------------------------------ dispatch */

int cmd_data(int argc, char **argv)
{
	static const cli_sub subs[] = {
		{ "import", data_import }, { "gen", data_gen }, { "info", data_info },
		{ "verify", data_verify }, { "split", data_split }, { "export", data_export },
	};
	return cli_dispatch("data", data_usage, subs, sizeof subs / sizeof *subs, argc, argv);
}
