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
 * and results into text. import's options are cmd_data_import.c's, info's
 * cmd_data_info.c's. */
#include "cli/cli.h"
#include "cli/cmd_data.h"
#include "data/classes.h"
#include "cli/suggest.h"
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
int data_opt_error(const char *cmd, const char *usage, const struct option *lo, int c, char **argv)
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
	if (!strcmp(name, "-o") || !strcmp(name, "--output") || !strcmp(name, "--out"))
		return cli_usage_error(cmd, usage, "unknown option %s: the output file is the last operand", name);
	char hint[240];
	cli_opt_suggest(lo, a, hint, sizeof hint);
	return cli_usage_error(cmd, usage, "unknown option %s%s", name, hint);
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
int data_size(const char *cmd, const char *usage, const char *opt, const char *s, uint64_t *out)
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
int data_pick(const char *cmd, const char *usage, const char *opt, const char *s, const char *names, int *out)
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
int data_check_output(const char *cmd, const char *path)
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

/* --task given where the labels say otherwise: one class for binary (labels
 * > 0 are positive), labels of more than two values beyond -1..1 read as
 * label > 0 against the rest,
 * or as many classes as examples for multiclass (values, most likely). */
static void data_task_warn(const char *out, const hog_meta *m)
{
	if (m->task == HOG_TASK_BINARY && (m->positives == 0 || m->positives == m->examples))
		fprintf(stderr, "hogwild data import: warning: --task binary: %s example is positive (label > 0): one "
		        "class (nothing to learn from as a training set)%s\n", m->positives ? "every" : "no",
		        m->label_max - m->label_min > 1 ? " (values? --task regression)" : "");
	else if (m->task == HOG_TASK_BINARY && (m->label_min < -1 || m->label_max > 1) &&
	         fabs(m->label_sum - (m->label_min * (double)(m->examples - m->positives) +
	                              m->label_max * (double)m->positives)) > 1e-9 * (1 + fabs(m->label_sum)))
		/* (two numbers, as covtype.binary's 1 and 2, are two classes: their sum tells them apart) */
		fprintf(stderr, "hogwild data import: warning: --task binary: the labels run from %g to %g: read as label "
		        "> 0 (%llu of %llu) against the rest%s\n", m->label_min, m->label_max, (ull)m->positives,
		        (ull)m->examples, m->label_min >= 0 && m->label_max < 100 ? " (classes? --task multiclass)" : "");
	else if (m->task == HOG_TASK_MULTICLASS && m->classes > 10 && 2 * (uint64_t)m->classes > m->examples)
		fprintf(stderr, "hogwild data import: warning: --task multiclass: %u classes for %llu examples in %s: "
		        "values rather than classes? (--task regression)\n", m->classes, (ull)m->examples, out);
}

/* Runs an import or a generator with a progress line, then prints
 * "OUT: counts; ..." with the input bytes (import) or the time (gen). */
int data_make(const char *out, const char *label, hog_import_opts *io, hog_gen_opts *go,
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
	if (io && bytes) /* (a pipe or standard input: no size known, no rate) */
		printf("%s: %s; %.1f MB in %.2f s (%.1f MB/s)\n", out, counts, bytes / 1e6, dt,
		       dt > 0 ? bytes / 1e6 / dt : 0.0);
	else if (io)
		printf("%s: %s; read in %.2f s\n", out, counts, dt);
	else
		printf("%s: %s; generated in %.2f s\n", out, counts, dt);
	if (io && !io->task && m.kind != HOG_KIND_RATINGS && !m.unlabelled && !quiet) { /* a guess the user should see */
		char cls[32] = "";
		if (m.task == HOG_TASK_MULTICLASS)
			snprintf(cls, sizeof cls, ", %llu classes", (ull)m.classes);
		fprintf(stderr, "hogwild data import: task %s%s, from the labels (--task binary, multiclass or "
		        "regression chooses)\n", hog_task_name(m.task), cls);
	}
	if (io && io->task && !m.unlabelled) /* a task given that the labels do not fit: said even with --quiet */
		data_task_warn(out, &m);
	return 0;
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
		default: return data_opt_error(cmd, U, lo, c, argv);
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
		return c == 'h' ? (fputs(U, stdout), 0) : data_opt_error(cmd, U, lo, c, argv);
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
		default: return data_opt_error(cmd, U, lo, c, argv);
		}
		if (rc)
			return rc;
	}
	if (frac == 0)
		return cli_usage_error(cmd, U, "--fraction is required");
	if (argc - optind != 3)
		return cli_usage_error(cmd, U, "needs three operands: IN.lmdb A.lmdb B.lmdb");
	const char *in = argv[optind], *a = argv[optind + 1], *b = argv[optind + 2];
	if (cli_same_file(a, b) || cli_same_file(in, a) || cli_same_file(in, b))
		return cli_usage_error(cmd, U, "IN.lmdb, A.lmdb and B.lmdb must be three different files");
	if (cli_check_input(cmd, NULL, in))
		return 1;
	hog_err err = { 0 };
	hog_data *h = NULL; /* --per-user of a set that is no ratings set: an option that does not fit it, exit 2, as
	                     * data export's --format ratings of a sparse set */
	if (per_user && !hog_data_load_header(&h, in, &err) && h->meta.kind != HOG_KIND_RATINGS) {
		rc = cli_usage_error(cmd, NULL, "--per-user: %s is a %s set; a per-user split is for ratings sets", in,
		                     hog_kind_name(h->meta.kind));
		hog_data_free(h);
		return rc;
	}
	hog_data_free(h);
	if ((rc = data_check_output("split", a)) || (rc = data_check_output("split", b)))
		return rc;
	cli_catch_cleanup_signals(); /* a stop removes both temporary files */
	hog_meta ma, mb;
	if ((rc = (per_user ? hog_data_split_users : hog_data_split)(in, a, b, frac, seed, &err)) ||
	    (rc = data_meta(a, &ma, &err)) ||
	    (rc = data_meta(b, &mb, &err))) {
		/* the library's "split: ..." said as this command's other refusals are */
		if (strncmp(err.msg, "split: ", 7))
			return cli_fail(&err, rc);
		fprintf(stderr, "hogwild %s: %s\n", cmd, err.msg + 7);
		return rc == HOG_ECONFIG ? EXIT_USAGE : 1;
	}
	double n = (double)(ma.examples + mb.examples);
	printf("%s: %llu examples -> %s: %llu (%.1f%%), %s: %llu (%.1f%%)\n", in,
	       (ull)(ma.examples + mb.examples), a, (ull)ma.examples, n ? 100.0 * ma.examples / n : 0.0, b,
	       (ull)mb.examples, n ? 100.0 * mb.examples / n : 0.0);
	return 0;
}

/* ------------------------------------------------------------ export */

static const char export_usage[] =
	"usage: hogwild data export [--format libsvm|ratings] [--out FILE] D.lmdb\n"
	"\n"
	"Writes a sparse data set as LIBSVM text (ids from 1), a ratings set as\n"
	"'user,item,rating' lines under that header (the original ids; a weighted\n"
	"set's weights a fourth field, for --weight-col 3); floats printed so that\n"
	"importing the text again gives the same values. A dense set (an idx\n"
	"import's) is refused.\n"
	"\n"
	"  -f, --format FMT  libsvm (sparse sets) | ratings (ratings sets); default:\n"
	"                    the set's own\n"
	"  -o, --out FILE    write FILE atomically: FILE.tmp.PID, synced, then renamed\n"
	"                    (default: standard output)\n"
	"  -h, --help        this text\n";

/* The set's path and whether it is ratings (data_export). */
struct export_job {
	const char *in;
	int ratings;
};

/* cli_write_atomic's filler: the data set as LIBSVM or ratings text. */
static int export_fill(void *ud, int fd, hog_err *err)
{
	const struct export_job *j = ud;
	return j->ratings ? hog_export_ratings(j->in, fd, err) : hog_export_libsvm(j->in, fd, err);
}

static int data_export(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", required_argument, 0, 'f' }, { "out", required_argument, 0, 'o' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	const char *cmd = "data export", *U = export_usage, *outp = NULL;
	int c, k, rc, fmt = -1;
	while ((c = getopt_long(argc, argv, ":f:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			rc = data_pick(cmd, U, "--format", optarg, "libsvm|ratings", &k);
			fmt = k;
			break;
		case 'o':
			if (!*optarg)
				return cli_usage_error(cmd, U, "--out: empty file name");
			outp = optarg;
			break;
		case 'h': fputs(U, stdout); return 0;
		default: return data_opt_error(cmd, U, lo, c, argv);
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
	hog_data *h = NULL; /* (class names, which LIBSVM has not: said) */
	struct export_job job = { in, 0 };
	if (!hog_data_load_header(&h, in, &err)) {
		job.ratings = fmt < 0 ? h->meta.kind == HOG_KIND_RATINGS : fmt == 1;
		if (h->meta.kind == HOG_KIND_DENSE) { /* (an idx import's images: no text format of its own here) */
			rc = cli_usage_error(cmd, NULL, "%s is a dense set (an idx import's): data export writes sparse sets "
			                     "as LIBSVM text and ratings sets as ratings", in);
			hog_data_free(h);
			return rc;
		}
		if ((h->meta.kind == HOG_KIND_RATINGS) != job.ratings) {
			rc = cli_usage_error(cmd, U, "--format %s: %s is a %s set (--format %s)", fmt ? "ratings" : "libsvm",
			                     in, hog_kind_name(h->meta.kind),
			                     h->meta.kind == HOG_KIND_RATINGS ? "ratings" : "libsvm, for sparse sets");
			hog_data_free(h);
			return rc;
		}
		float *nv = h->class_names ? malloc((hog_class_count(h->class_names) + 1) * sizeof *nv) : NULL;
		if (h->class_names && !(nv && hog_class_numbers(h->class_names, nv, NULL))) { /* (names that are numbers:
			                                                                              * written as they are) */
			char list[240];
			fprintf(stderr, "hogwild data export: note: %s's labels are class names, which LIBSVM text has not: "
			        "written as the classes' numbers (%s)\n", in, cli_class_list(list, sizeof list, h->class_names));
		}
		free(nv);
		if (job.ratings && h->meta.weighted)
			fprintf(stderr, "hogwild data export: note: %s is weighted: the weights are a fourth field, which "
			        "data import reads with --weight-col 3\n", in);
	}
	hog_data_free(h);
	err = (hog_err){ 0 };
	if (!outp) {
		rc = export_fill(&job, STDOUT_FILENO, &err);
		if (rc == EPIPE && cli_stdout_gone())
			return 0; /* the reader (| head) had enough: quietly, like any filter */
		return rc ? cli_fail(&err, rc) : 0;
	}
	if (cli_same_file(in, outp)) {
		fprintf(stderr, "hogwild %s: %s is both the input and the output\n", cmd, outp);
		return 1;
	}
	cli_catch_cleanup_signals(); /* from here on a stop removes what we write */
	if ((rc = cli_check_output(cmd, "--out", outp, 0)) || (rc = cli_check_replace(cmd, "--out", outp, 0)))
		return rc; /* (a data set or a model is not overwritten with text) */
	return cli_write_atomic(cmd, outp, export_fill, &job, "export: writing");
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
