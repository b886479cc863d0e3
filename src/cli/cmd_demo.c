/* hogwild demo: the built-in comparison. Generates an RCV1-like data set sized
 * to finish in about a minute on two cores (reused when it is already there),
 * holds out a tenth for testing, and runs compare over every mode with 1..all
 * cores. What `make demo` runs. */
#include "cli/compare.h"
#include "cli/train_opts.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: hogwild demo [--quick] [--dir DIR] [--threads LIST] [--repeat R] [--epochs E]\n"
	"The built-in comparison: lock-free against locking updates on a generated\n"
	"RCV1-like data set (logistic regression, 47,236 features, ~71 per example).\n"
	"      --dir DIR        where the data set, CSV, JSON and plots go (hogwild-demo)\n"
	"      --quick          a small set and few epochs (seconds; for tests)\n"
	"      --examples N     examples to generate (400000; --quick 20000)\n"
	"      --threads LIST   thread counts (1, 2, 4, ... up to every core)\n"
	"      --repeat R       runs per cell, medians reported (2; --quick 1)\n"
	"      --epochs E       epochs per run (8; --quick 2)\n"
	"  -h, --help           this text\n";

static void gen_progress(void *ud, uint64_t done, uint64_t total)
{
	cli_progress_cb(ud, done, total);
}

int cmd_demo(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dir", required_argument, NULL, 'd' }, { "quick", no_argument, NULL, 'q' },
		{ "examples", required_argument, NULL, 'n' }, { "threads", required_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'r' }, { "epochs", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *dir = "hogwild-demo", *threads = NULL;
	int quick = 0, c;
	long repeat = -1, epochs = -1;
	uint64_t examples = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'q': quick = 1; break;
		case 'n':
			if (cli_parse_u64(optarg, 100, 100000000, &examples))
				return cli_usage_error("demo", NULL, "--examples: '%s' is not a count 100..1e8", optarg);
			break;
		case 't': threads = optarg; break;
		case 'r':
			if (cli_parse_int(optarg, 1, 100, &repeat))
				return cli_usage_error("demo", NULL, "--repeat: '%s' is not a count 1..100", optarg);
			break;
		case 'e':
			if (cli_parse_int(optarg, 1, 1000, &epochs))
				return cli_usage_error("demo", NULL, "--epochs: '%s' is not a count 1..1000", optarg);
			break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return cli_usage_error("demo", usage, "%s needs a value", argv[optind - 1]);
		default: return cli_unknown_option("demo", usage, lo, argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("demo", usage, "unexpected argument '%s'", argv[optind]);
	if (!examples)
		examples = quick ? 20000 : 400000;
	if (repeat < 0)
		repeat = quick ? 1 : 2;
	if (epochs < 0)
		epochs = quick ? 2 : 8;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "hogwild demo: cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	char all[4096], tr[4096], te[4096], csv[4096], json[4096], plot[4096];
	snprintf(all, sizeof all, "%s/rcv1like-%llu.lmdb", dir, (unsigned long long)examples);
	snprintf(tr, sizeof tr, "%s/train-%llu.lmdb", dir, (unsigned long long)examples);
	snprintf(te, sizeof te, "%s/test-%llu.lmdb", dir, (unsigned long long)examples);
	snprintf(csv, sizeof csv, "%s/compare.csv", dir);
	snprintf(json, sizeof json, "%s/compare.json", dir);
	snprintf(plot, sizeof plot, "%s/compare", dir);
	hog_err err = { 0 };
	int rc;
	if (access(tr, R_OK) != 0 || access(te, R_OK) != 0) {
		cli_progress pr = { .label = "generating", .unit = "ex" };
		hog_gen_opts g = { .kind = HOG_KIND_SPARSE, .seed = 1, .examples = examples };
		if (cli_progress_wanted(0)) {
			g.progress = gen_progress;
			g.progress_ud = &pr;
		}
		fprintf(stderr, "hogwild demo: generating an RCV1-like data set of %llu examples in %s/\n",
		        (unsigned long long)examples, dir);
		rc = hog_gen(all, &g, &err);
		cli_progress_end(&pr);
		if (rc || (rc = hog_data_split(all, tr, te, 0.1, 1, &err)))
			return cli_fail(&err, rc);
		unlink(all);
	}
	cmp_plan plan;
	memset(&plan, 0, sizeof plan);
	cli_train_opts_init(&plan.base);
	plan.base.epochs = (int)epochs;
	plan.repeat = (int)repeat;
	plan.target = NAN;
	plan.csv = csv;
	plan.json = json;
	plan.plot = plot;
	if (threads) {
		char buf[256];
		snprintf(buf, sizeof buf, "%s", threads);
		for (char *s = NULL, *t = strtok_r(buf, ",", &s); t; t = strtok_r(NULL, ",", &s)) {
			long l;
			if (plan.nthreads == CMP_MAX_THREADS || cli_parse_int(t, 1, 4096, &l))
				return cli_usage_error("demo", NULL, "--threads: '%s' is not a list of thread counts", threads);
			plan.threads[plan.nthreads++] = (int)l;
		}
	}
	/* the lock-free and locking modes; not deterministic, whose trade is
	 * reproducibility, not speed (compare shows it) */
	const unsigned takes = hog_train_modes(&plan.base);
	for (int m = HOG_MODE_SERIAL + 1; m < HOG_MODE_ALL && plan.nmodes < CMP_MAX_MODES; m++)
		if ((takes & 1u << m) && m != HOG_MODE_DETERMINISTIC)
			plan.modes[plan.nmodes++] = m;
	cli_train_args a = { .data = tr, .test = te };
	hog_data *dtr, *dte;
	if ((rc = cli_load_data("demo", &a, &dtr, &dte, 0)))
		return rc;
	fprintf(stderr, "hogwild demo: %d epochs per run, %ld run%s per cell; every mode against serial\n\n",
	        (int)epochs, repeat, repeat == 1 ? "" : "s");
	rc = cmp_run_plan(&plan, dtr, dte, tr);
	hog_data_free(dtr);
	hog_data_free(dte);
	if (rc == 0)
		printf("\nwritten: %s,\n         %s (plots: %s-*.png with gnuplot)\n"
		       "modes: lockfree = plain Hogwild! (relaxed atomic loads and stores);\n"
		       "       buffered = lock-free, the hot coordinates kept per worker and\n"
		       "                  merged every 1024 examples;\n"
		       "       replica = lock-free, the whole model kept per worker and\n"
		       "                 merged every 16384 examples;\n"
		       "       atomic = CAS per coordinate; striped = a lock per 64 coordinates;\n"
		       "       locked = one global lock.\n"
		       "train without --mode takes the model's fastest measured mode (linear:\n"
		       "replica on a narrow model like this one, buffered on a wide one; mf:\n"
		       "grid; mlp: lockfree); --mode lockfree is plain Hogwild!.\n",
		       csv, json, plot);
	return rc;
}
