/* hogwild: the command-line front end. Dispatches to one file per subcommand and
 * holds the helpers they share (errors, number parsing, progress lines). */
#include "cli/cli.h"
#include "data/lmdb_check.h" /* HOG_NOT_LMDB */
#include "sys/mpi.h"
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: hogwild <command> [options]\n"
	"\n"
	"commands:\n"
	"  data import|gen|info|verify|split|export   make and inspect data sets (LMDB)\n"
	"  train     train a model (lock-free or locking update modes)\n"
	"  eval      evaluate a saved model on a data set\n"
	"  predict   write a model's predictions\n"
	"  model info|dump|load   inspect a model file; as text and back\n"
	"  compare   run every update mode and thread count side by side\n"
	"  tune      search step size, L2/L1, rank or widths on held-out data\n"
	"  topo      show the machine and the thread placement plan\n"
	"  demo      the built-in comparison: lock-free vs locked on a generated set\n"
	"\n"
	"  hogwild <command> -h    options of a command;  man hogwild  the manual\n"
	"  hogwild --version\n";

int cli_dispatch(const char *group, const char *usage, const cli_sub *subs, size_t n, int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error(group, usage, "no subcommand given");
	const char *c = argv[1];
	if (!strcmp(c, "-h") || !strcmp(c, "--help") || !strcmp(c, "help")) {
		fputs(usage, stdout);
		return 0;
	}
	optind = 1; /* each subcommand runs getopt_long once, reporting errors itself */
	opterr = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c, subs[i].name))
			return subs[i].fn(argc - 1, argv + 1);
	return cli_usage_error(group, usage, "unknown subcommand '%s'", c);
}

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "hogwild%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (usage) { /* (a long text's synopsis, up to its first blank line: the whole would bury the message) */
		size_t lines = 0;
		for (const char *q = usage; (q = strchr(q, '\n')); q++)
			lines++;
		const char *end = lines > 16 ? strchr(usage, '\n') : NULL; /* (its lines that go on with a space) */
		while (end && end[1] == ' ')
			end = strchr(end + 1, '\n');
		size_t n = end ? (size_t)(end - usage) + 1 : strlen(usage);
		fwrite(usage, 1, n, stderr);
		if (end)
			fprintf(stderr, "(hogwild%s%s --help: every option)\n", cmd ? " " : "", cmd ? cmd : "");
	}
	return EXIT_USAGE;
}

int cli_unknown_option(const char *cmd, const char *usage, const struct option *lo, const char *arg)
{
	char hint[240];
	cli_opt_suggest(lo, arg, hint, sizeof hint);
	if (usage)
		return cli_usage_error(cmd, usage, "unknown option '%s'%s", arg, hint);
	return cli_usage_error(cmd, NULL, "unknown option '%s'%s (see hogwild %s -h)", arg, hint, cmd);
}

/* After "PATH: not an LMDB file" (the store's refusal): where PATH is text of
 * a format `data import` reads, how to make a data set of it. */
static void not_lmdb_hint(const hog_err *err, int rc)
{
	static const char tail[] = HOG_NOT_LMDB;
	const char *at = err && rc == HOG_EFORMAT ? strstr(err->msg, tail) : NULL;
	char path[sizeof err->msg], what[96];
	if (!at || at[sizeof tail - 1] || (size_t)(at - err->msg) >= sizeof path)
		return;
	memcpy(path, err->msg, (size_t)(at - err->msg));
	path[at - err->msg] = 0;
	const char *note, *g = cli_file_kind(path) == 2 ? NULL : cli_import_guess(path, what, sizeof what, &note);
	if (cli_file_kind(path) == 2)
		fprintf(stderr, "hogwild: %s is a hogwild model file (hogwild model info %s tells what it holds; a data "
		        "set is what hogwild data import makes)\n", path, path);
	else if (g && !strcmp(g, "idx"))
		fprintf(stderr, "hogwild: %s begins with %s: make a data set of the images and their labels first "
		        "(hogwild data import --format idx IMAGES LABELS OUT.lmdb)\n", path, what);
	else if (g)
		fprintf(stderr, "hogwild: %s begins with %s, which `data import --format %s` reads%s: make a data set "
		        "of it first (hogwild data import --format %s %s OUT.lmdb)\n", path, what, g, note, g, path);
}

int cli_fail(const hog_err *err, int rc)
{
	if (err && err->msg[0])
		fprintf(stderr, "hogwild: %s\n", err->msg);
	else
		fprintf(stderr, "hogwild: %s\n", hog_strerror(rc));
	not_lmdb_hint(err, rc);
	static const char nm[] = ": not a hogwild model file"; /* (the model loader's refusal: a data set there?) */
	const char *at = err && rc == HOG_EFORMAT ? strstr(err->msg, nm) : NULL;
	if (at && !at[sizeof nm - 1] && (size_t)(at - err->msg) < sizeof err->msg) {
		char path[sizeof err->msg];
		memcpy(path, err->msg, (size_t)(at - err->msg));
		path[at - err->msg] = 0;
		if (cli_file_kind(path) == 1)
			fprintf(stderr, "hogwild: %s is a data set (a model is what hogwild train --save writes)\n", path);
	}
	return rc == HOG_ECONFIG ? EXIT_USAGE : 1;
}

int cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

double cli_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int cli_progress_wanted(int quiet)
{
	return !quiet && isatty(2);
}

void cli_progress_cb(void *ud, uint64_t done, uint64_t total)
{
	cli_progress *p = ud;
	double t = cli_now();
	if (p->t0 == 0)
		p->t0 = t;
	if (t - p->last < 0.2 && done < total)
		return;
	p->last = t;
	double el = t - p->t0, rate = el > 0 ? done / el : 0;
	char r[48] = "";
	if (p->unit && !strcmp(p->unit, "B"))
		snprintf(r, sizeof r, "%.0f MB/s", rate / 1e6);
	else
		snprintf(r, sizeof r, "%.3g %s/s", rate, p->unit ? p->unit : "");
	if (total)
		fprintf(stderr, "\r%s: %3.0f%%  %s  ETA %.0fs   ", p->label, 100.0 * done / total, r,
		        rate > 0 && total > done ? (total - done) / rate : 0.0);
	else
		fprintf(stderr, "\r%s: %llu  %s   ", p->label, (unsigned long long)done, r);
	p->drawn = 1;
}

void cli_progress_end(cli_progress *p)
{
	if (p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = 0;
}

int main(int argc, char **argv)
{
	hog_backend_blas_tune(); /* fast OpenBLAS kernels on CPUs it does not know */
	cli_supervise_rank(argc, argv); /* under mpirun: a killed rank ends the job with exit 1 */
	setlocale(LC_ALL, "C"); /* numbers in files and output use '.' whatever the user's locale */
	/* A closed pipe is EPIPE, which the commands take as "stop writing, quietly"
	 * (files.c): never a death in the middle of writing a temporary file. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2)
		return cli_usage_error(NULL, usage_text, "no command given");
	const char *c = argv[1];
	if (!strcmp(c, "-h") || !strcmp(c, "--help") || !strcmp(c, "help")) {
		fputs(usage_text, stdout);
		return cli_close_stdout(0);
	}
	if (!strcmp(c, "--version") || !strcmp(c, "-V")) {
		if (hog_mpi_built())
			printf("hogwild-mpi %s (data format %d) with MPI (%s)\n", HOG_VERSION_STRING,
			       HOG_FORMAT_VERSION, hog_mpi_backend());
		else
			printf("hogwild %s (data format %d)\n", HOG_VERSION_STRING, HOG_FORMAT_VERSION);
		return cli_close_stdout(0);
	}
	static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
		{ "data", cmd_data }, { "train", cmd_train }, { "eval", cmd_eval },
		{ "predict", cmd_predict }, { "compare", cmd_compare }, { "topo", cmd_topo },
		{ "demo", cmd_demo }, { "model", cmd_model }, { "tune", cmd_tune },
	};
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		if (!strcmp(c, cmds[i].name))
			return cli_close_stdout(cmds[i].fn(argc - 1, argv + 1));
	return cli_usage_error(NULL, usage_text, "unknown command '%s'", c);
}
