/* `hogwild data import`: its options into a hog_import_opts, checked against
 * the format before any file is read, then the library's import (cmd_data.c's
 * data_make: the progress line, the notes and the counts). */
#include "cli/cli.h"
#include "cli/cmd_data.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char import_usage[] =
	"usage: hogwild data import --format FMT [options] IN... OUT.lmdb\n"
	"\n"
	"Reads the IN files (plain, or gzip, bzip2, xz or zstd text; '-': standard\n"
	"input) into a new data set OUT.lmdb, written to a temporary file and\n"
	"renamed into place when complete. Malformed input is reported as\n"
	"FILE:LINE:COLUMN and leaves nothing behind.\n"
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
	"  -d, --dim N           libsvm: dimension (default: the largest index)\n"
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
	"                        (empty, NA, ?, -, null, NaN) in a column of numbers:\n"
	"                        an error naming it (default), or 0, the feature\n"
	"                        absent from its line\n"
	"      --header H        csv, ratings: yes | no | auto (default auto: a first\n"
	"                        line is a header when it has text and no number;\n"
	"                        csv also when a column has text in it and a number\n"
	"                        in the next line (not NA, ...), or when it is the\n"
	"                        column numbers 0,1,2,...; a header is skipped with\n"
	"                        a note on stderr)\n"
	"      --skip N          csv, ratings: skip the first N lines of each file\n"
	"                        before looking for a header (default 0)\n"
	"      --delim C         csv, ratings: , | tab | ; | space (default: detect;\n"
	"                        csv, not ',': decimal commas read, 1,5 as 1.5)\n"
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
	"      --weight-col N    csv: the column (from 0, negative from the end, or\n"
	"                        a header's name) of example weights, neither label\n"
	"                        nor feature;\n"
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

int data_import(int argc, char **argv)
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
			if (cli_parse_int(optarg, -65536, 65535, &lv) == 0)
				o.weight_col = (int)lv;
			else if (*optarg && !strchr(optarg, ','))
				o.weight_name = optarg; /* a header column's name, as --label-col takes */
			else
				return cli_usage_error(cmd, U, "--weight-col: '%s' is neither a column number nor a name", optarg);
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
		default: return data_opt_error(cmd, U, lo, c, argv);
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
	if (o.weight_given && o.format != HOG_FORMAT_CSV &&
	    !(o.format == HOG_FORMAT_RATINGS && o.weight_col == 3 && !o.weight_name))
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
	for (int i = 0, dash = 0; i < nin; i++) /* '-': standard input, read as /dev/stdin (once) */
		if (!strcmp(in[i], "-")) {
			if (dash++)
				return cli_usage_error(cmd, U, "'-' (standard input) given twice: it can be read once");
			in[i] = (char *)"/dev/stdin";
		}
	if (!strcmp(out, "-"))
		return cli_usage_error(cmd, U, "'-': the output is a data set file, not standard output: give its name");
	for (int i = 0; i < nin; i++)
		if (cli_same_file(in[i], out)) {
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

