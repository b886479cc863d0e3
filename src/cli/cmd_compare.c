/* hogwild compare: the same training under every update mode and thread count,
 * on the same data, seed, epochs and schedule, with the serial run as the
 * reference. Prints a table that fits 80 columns, writes CSV/JSON, and draws
 * plots with gnuplot when it is installed. SIGINT prints the rows that finished
 * and exits 130. The data is loaded once for all runs. */
#include "cli/compare.h"
#include "cli/train_opts.h"
#include "sys/mpi.h"
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: hogwild compare --data D.lmdb [--test T.lmdb] [options]\n"
	"Runs every (mode, threads) pair on the same data, seed, epochs and schedule,\n"
	"with the serial run as the reference, and prints them side by side. An option\n"
	"that every compared mode would ignore is refused (exit 2).\n"
	"\n";
static const char usage_tail[] =
	"Exit: 0 done, 1 data or run-time error, 2 usage, 130/143 stopped (finished rows printed).\n";

static int parse_list(const char *s, int *out, int max, int (*parse)(const char *, int *))
{
	char buf[512];
	int n = 0;
	snprintf(buf, sizeof buf, "%s", s);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max || parse(tok, &out[n]))
			return -1;
		n++;
	}
	return n;
}

static int parse_mode(const char *s, int *v)
{
	*v = hog_mode_parse(s);
	return *v < 0 || *v == HOG_MODE_SERIAL ? -1 : 0;
}

static int parse_threads(const char *s, int *v)
{
	long l;
	if (cli_parse_int(s, 1, 4096, &l))
		return -1;
	*v = (int)l;
	return 0;
}

/* The modes compare runs: serial, and --modes or every mode of the model. */
static unsigned cmp_modes(const cmp_plan *p)
{
	unsigned m = 1u << HOG_MODE_SERIAL;
	for (int i = 0; i < p->nmodes; i++)
		m |= 1u << p->modes[i];
	return p->nmodes ? m : m | hog_train_modes(&p->base);
}

static void on_epoch(void *ud, const hog_epoch_stats *s)
{
	cmp_run *r = ud;
	if (r->nepochs < CMP_MAX_EPOCHS)
		r->epochs[r->nepochs++] = *s;
}

static void on_progress(void *ud, const hog_progress *p)
{
	cmp_run *r = ud;
	if (!r->show)
		return;
	char of[16] = "";
	if (r->reps)
		snprintf(of, sizeof of, "/%d", r->reps);
	fprintf(stderr, "\r%-9s %2d thr  run %d%s  epoch %d/%d %3.0f%%   ", hog_mode_name(r->mode), r->threads,
	        r->rep + 1, of, p->epoch, p->epochs, 100.0 * p->done / (p->total ? p->total : 1));
}

int cmd_compare(int argc0, char **argv0)
{
	struct option lopts[80];
	cli_opt_getopt(CLI_COMPARE, lopts, 80);

	int argc;
	char **argv;
	int rc = cli_config_expand("compare", lopts, argc0, argv0, &argc, &argv);
	if (rc)
		return rc;
	cmp_plan plan;
	memset(&plan, 0, sizeof plan);
	cli_train_opts_init(&plan.base);
	plan.base.epochs = 20; /* (the report names one count for every cell; train's default is auto) */
	plan.repeat = 0; /* chosen from the first serial run (auto_repeat) */
	plan.target = NAN;
	cli_train_args a = { 0 };
	int c;
	long l;
	optind = 1;
	opterr = 0;
	rc = -1;
	while (rc < 0 && (c = getopt_long(argc, argv, ":hqc:", lopts, NULL)) != -1) {
		c = c == 'q' ? OPT_QUIET : c; /* (-q: --quiet, as data's commands take it) */
		cli_given_set(&a.given, c);
		switch (c) {
		case 'h':
		case OPT_HELP:
			fputs(usage_head, stdout);
			cli_opt_usage(stdout, CLI_COMPARE);
			fputs(usage_tail, stdout);
			rc = 0;
			break;
		case 'c': break;
		case OPT_MODES:
			if ((plan.nmodes = parse_list(optarg, plan.modes, CMP_MAX_MODES, parse_mode)) <= 0)
				rc = cli_usage_error("compare", NULL, "--modes: '%s' is not a list of modes other than "
				                     "serial (see hogwild compare -h)", optarg);
			break;
		case OPT_THREADS_LIST:
			if ((plan.nthreads = parse_list(optarg, plan.threads, CMP_MAX_THREADS, parse_threads)) <= 0)
				rc = cli_usage_error("compare", NULL, "--threads: '%s' is not a list of thread counts "
				                     "1..4096", optarg);
			break;
		case OPT_RANKS:
			if (!hog_mpi_built())
				rc = cli_usage_error("compare", NULL, "--ranks: %s", hog_mpi_missing());
			else if ((plan.nranks = parse_list(optarg, plan.ranks, CMP_MAX_THREADS, parse_threads)) <= 0)
				rc = cli_usage_error("compare", NULL, "--ranks: '%s' is not a list of rank counts", optarg);
			break;
		case OPT_REPEAT:
			if (cli_parse_int(optarg, 1, 1000, &l))
				rc = cli_usage_error("compare", NULL, "--repeat: '%s' is not a count 1..1000", optarg);
			plan.repeat = (int)l;
			break;
		case OPT_TARGET:
			if (cli_parse_double(optarg, 0, 1e9, &plan.target))
				rc = cli_usage_error("compare", NULL, "--target-loss: '%s' is not a loss", optarg);
			break;
		case OPT_CSV: plan.csv = optarg; break;
		case OPT_JSON: plan.json = optarg; break;
		case OPT_PLOT: plan.plot = optarg; break;
		case ':': rc = cli_usage_error("compare", NULL, "%s needs a value", argv[optind - 1]); break;
		case '?': rc = cli_unknown_option("compare", NULL, lopts, argv[optind - 1]); break;
		default:
			if ((c = cli_train_option("compare", c, optarg, &plan.base, &a)))
				rc = c;
		}
	}
	if (rc < 0 && optind < argc)
		rc = cli_usage_error("compare", NULL, "unexpected argument '%s'", argv[optind]);
	if (rc < 0)
		cli_task_loss(&plan.base, a.data, &a.given, "compare", a.quiet);
	if (rc < 0 && (c = cli_train_refuse(CLI_COMPARE, &plan.base, cmp_modes(&plan), &a.given)))
		rc = c;
	if (rc >= 0) {
		cli_config_free(argc, argv);
		return rc;
	}
	/* outputs are checked before the data is loaded and every run made */
	if ((plan.csv && (rc = cli_check_output("compare", "--csv", plan.csv, 0))) ||
	    (plan.csv && (rc = cli_check_replace("compare", "--csv", plan.csv, 0))) ||
	    (plan.json && (rc = cli_check_output("compare", "--json", plan.json, 0))) ||
	    (plan.json && (rc = cli_check_replace("compare", "--json", plan.json, 0))) ||
	    (plan.plot && (rc = cli_check_output("compare", "--plot", plan.plot, 0))) ||
	    (a.data && (rc = cli_check_input("compare", "--data", a.data))) ||
	    (a.test && (rc = cli_check_input("compare", "--test", a.test)))) {
		cli_config_free(argc, argv);
		return rc;
	}
	if ((rc = cli_mpi_start("compare"))) {
		cli_config_free(argc, argv);
		return rc;
	}
	for (int i = 0; i < plan.nranks; i++)
		if (plan.ranks[i] > hog_mpi_world()) {
			rc = cli_usage_error("compare", NULL, "--ranks %d: start under mpirun -np %d (or more); this job has "
			                     "%d rank%s", plan.ranks[i], plan.ranks[i], hog_mpi_world(),
			                     hog_mpi_world() == 1 ? "" : "s");
			cli_config_free(argc, argv);
			hog_mpi_finish();
			return rc;
		}
	if (hog_mpi_rank())
		a.quiet = 1;
	hog_data *tr, *te;
	if ((rc = cli_load_data("compare", &a, &tr, &te, a.quiet))) {
		cli_config_free(argc, argv);
		hog_mpi_finish();
		return rc;
	}
	plan.quiet = a.quiet;
	rc = cmp_run_plan(&plan, tr, te, a.data);
	hog_data_free(tr);
	hog_data_free(te);
	cli_config_free(argc, argv);
	hog_mpi_finish();
	return rc;
}

/* ------------------------------------------------------------------ driver */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y; /* NaN sorts last (never reached) */
}

static double median(double *v, int n)
{
	if (n == 0)
		return NAN;
	for (int i = 0; i < n; i++)
		if (isnan(v[i]))
			v[i] = INFINITY;
	qsort(v, n, sizeof *v, cmp_dbl);
	double m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	return isinf(m) ? NAN : m;
}

/* A run's seconds per epoch: the median epoch, leaving out the first when
 * there are three or more (it pays for first touches: page faults, caches,
 * the model's memory), as bench/scaling.sh does. On a set whose epoch takes
 * milliseconds the first one alone moved the mean by half. */
static double epoch_seconds(const cmp_run *run)
{
	double v[CMP_MAX_EPOCHS];
	const int skip = run->nepochs >= 3;
	int n = 0;
	for (int e = skip; e < run->nepochs; e++)
		v[n++] = run->epochs[e].seconds;
	return median(v, n);
}

/* Figures of one cell from its repeats: medians. */
static void summarize(cmp_cell *cell, double target)
{
	double ep[1024], ttt[1024], tl[1024], acc[1024], rmse[1024], trl[1024], lost[1024], dm[1024], dp[1024], dx[1024];
	int k = 0;
	for (int r = 0; r < cell->nruns && r < 1024; r++) {
		const cmp_run *run = &cell->runs[r];
		if (run->nepochs == 0 || run->diverged) /* (a diverged run's epochs are in no median) */
			continue;
		const hog_epoch_stats *last = &run->epochs[run->nepochs - 1];
		ep[k] = epoch_seconds(run);
		tl[k] = last->test_loss;
		acc[k] = last->test_acc;
		rmse[k] = last->test_rmse;
		trl[k] = last->train_loss;
		lost[k] = last->bias_lost;
		dm[k] = last->delay_mean;
		dp[k] = last->delay_p99;
		dx[k] = last->delay_max;
		ttt[k] = NAN;
		for (int e = 0; e < run->nepochs; e++) {
			double loss = isnan(run->epochs[e].test_loss) ? run->epochs[e].train_loss : run->epochs[e].test_loss;
			if (loss <= target) {
				ttt[k] = run->epochs[e].elapsed;
				break;
			}
		}
		cell->examples = last->examples;
		cell->nnz = last->nnz;
		k++;
	}
	cell->epoch_s = median(ep, k);
	cell->test_loss = median(tl, k);
	cell->test_acc = median(acc, k);
	cell->test_rmse = median(rmse, k);
	cell->train_loss = median(trl, k);
	cell->time_to_target = median(ttt, k);
	cell->bias_lost = median(lost, k);
	cell->delay_mean = median(dm, k);
	cell->delay_p99 = median(dp, k);
	cell->delay_max = median(dx, k);
	cell->done = k > 0;
	/* the curve shown: the run of the median final loss, so that its last
	 * epoch is the cell's figure (the first run's was another repeat's) */
	cell->curve = -1;
	const double want = isnan(cell->test_loss) ? cell->train_loss : cell->test_loss;
	double best = INFINITY;
	for (int r = 0; r < cell->nruns; r++) {
		const cmp_run *run = &cell->runs[r];
		if (run->nepochs == 0 || run->diverged)
			continue;
		const hog_epoch_stats *last = &run->epochs[run->nepochs - 1];
		const double d = fabs((isnan(last->test_loss) ? last->train_loss : last->test_loss) - want);
		if (cell->curve < 0 || d < best) {
			best = d;
			cell->curve = r;
		}
	}
}

/* 1 (exit status) when every run of the @p n cells diverged: nothing to
 * compare, said by the @p lead rank (each diverged run was said, and is a row;
 * under MPI a rank outside a row's team has no figures of it and nothing
 * diverged); else 0. */
static int all_diverged(const cmp_cell *cells, int n, int lead)
{
	int finished = 0, diverged = 0;
	for (int i = 0; i < n; i++) {
		finished += cells[i].done;
		diverged += cells[i].ndiverged;
	}
	if (!diverged || finished)
		return 0;
	if (lead)
		fprintf(stderr, "hogwild compare: every run diverged: nothing to compare; try a smaller --lr\n");
	return 1;
}

/* A run that diverged: said, kept out of its cell's figures (summarize), and
 * its step size named in the header when no run finished to name it. */
static void run_diverged(cmp_cell *cell, cmp_run *run, const hog_err *err, const hog_train_result *res,
                         double *lr_used, enum hog_loss *loss_used)
{
	fprintf(stderr, "hogwild compare: %s with %d threads: %s\n", hog_mode_name(cell->mode), cell->threads, err->msg);
	run->diverged = 1;
	cell->ndiverged++;
	if (isnan(*lr_used)) {
		*lr_used = res->lr;
		*loss_used = res->loss;
	}
}

/* Run @p r of @p cell. Returns 0, or the exit code that ends the comparison
 * (an error, or 128 + the signal that stopped it). */
static int run_cell(const cmp_plan *p, cmp_cell *cell, int r, const hog_data *tr, const hog_data *te,
                    volatile int *stop, int show, double *lr_used, enum hog_loss *loss_used)
{
	cmp_run *run = &cell->runs[r];
	run->mode = cell->mode;
	run->threads = cell->threads;
	run->rep = r;
	run->reps = p->repeat;
	run->show = show;
	hog_train_opts o = p->base;
	o.mode = cell->mode;
	o.threads = cell->threads;
	o.measure_delay = 1; /* cheap (1 in 64 examples), and the table shows it */
	o.on_epoch = on_epoch;
	o.on_progress = on_progress;
	o.ud = run;
	o.stop = stop;
	o.checkpoint = NULL;
	o.resume = NULL;
	hog_train_result res;
	memset(&res, 0, sizeof res);
	hog_err err = { 0 };
	int in = hog_mpi_team(cell->ranks, &err), trc = 0;
	if (in < 0)
		trc = in;
	else if (in)
		trc = hog_train(tr, te, &o, NULL, &res, &err);
	hog_mpi_team(0, NULL);
	hog_mpi_barrier();
	if (show)
		fputs("\r\033[K", stderr);
	if (trc == HOG_EINTR)
		return 128 + (*stop ? *stop : SIGINT);
	if (trc == HOG_EDIVERGED) { /* (not counted in nruns: the JSON's runs are those that finished) */
		run_diverged(cell, run, &err, &res, lr_used, loss_used);
		return 0;
	}
	if (trc)
		return cli_fail(&err, trc);
	cell->nruns = r + 1;
	*lr_used = res.lr;
	*loss_used = res.loss;
	return 0;
}

/* Runs per cell when --repeat is not given, from the serial run of the first
 * round: a run of under CMP_AUTO_SECONDS of training is timed to a few
 * milliseconds an epoch, where one run's noise is the size of the differences
 * between modes, so it is repeated (an odd count, for a median) up to
 * CMP_AUTO_MAX times; a longer run once. */
static int auto_repeat(const cmp_cell *serial)
{
	if (serial->nruns < 1 || serial->runs[0].nepochs < 1)
		return 1;
	const cmp_run *run = &serial->runs[0];
	double t = run->epochs[run->nepochs - 1].elapsed;
	if (!(t < CMP_AUTO_SECONDS))
		return 1;
	int n = t > 0 ? (int)ceil(CMP_AUTO_SECONDS / t) : CMP_AUTO_MAX;
	n |= 1;
	return n < 3 ? 3 : n > CMP_AUTO_MAX ? CMP_AUTO_MAX : n;
}

int cmp_run_plan(cmp_plan *p, const hog_data *tr, const hog_data *te, const char *data_name)
{
	if (!p->nmodes) { /* every mode the model takes */
		/* linear with the softmax loss trains as the mlp (hog_train) */
		unsigned mask = hog_train_modes(&p->base);
		for (int m = HOG_MODE_SERIAL + 1; m < HOG_MODE_ALL && p->nmodes < CMP_MAX_MODES; m++)
			if (mask >> m & 1u)
				p->modes[p->nmodes++] = m;
	}
	double lr_used = NAN;
	enum hog_loss loss_used = p->base.loss;
	int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (!p->nthreads) {
		for (int t = 1; t < cores && p->nthreads < CMP_MAX_THREADS - 1; t *= 2)
			p->threads[p->nthreads++] = t;
		p->threads[p->nthreads++] = cores > 0 ? cores : 1;
	}
	for (int t = 0, said = 0; t < p->nthreads && !said && !p->quiet && cores > 0; t++)
		if ((said = p->threads[t] > cores)) /* (as train says it: its runs here are quiet) */
			fprintf(stderr, "hogwild compare: note: --threads %d on %d CPUs: oversubscribed, the workers take "
			        "turns on them (the racing modes slow down most; the rows beyond %d threads measure that)\n",
			        p->threads[t], cores, cores);
	if (!p->nranks)
		p->ranks[p->nranks++] = 1;
	int ncells = 1 + p->nmodes * p->nthreads * p->nranks;
	cmp_cell *cells = calloc(ncells, sizeof *cells);
	if (!cells)
		return 1;
	cells[0].mode = HOG_MODE_SERIAL;
	cells[0].threads = cells[0].ranks = 1;
	for (int m = 0, i = 1; m < p->nmodes; m++)
		for (int t = 0; t < p->nthreads; t++)
			for (int q = 0; q < p->nranks; q++, i++) {
				cells[i].mode = p->modes[m];
				cells[i].threads = p->threads[t];
				cells[i].ranks = p->ranks[q];
			}
	/* under mpirun: each row trains on its first `ranks` ranks while the others
	 * wait; the job's rank 0 is in every row and alone prints */
	const int lead = hog_mpi_rank() == 0;
	volatile int *stop = cli_stop_flag();
	cli_catch_signals();
	int show = !p->quiet && cli_progress_wanted(0), rc = 0, done_cells = 0;
	/* Rounds: every cell once per round, so that a machine that speeds up or
	 * slows down meanwhile moves every row alike (not the rows run last). */
	const int cap = p->repeat ? p->repeat : CMP_AUTO_MAX;
	for (int i = 0; i < ncells && !rc; i++)
		if (!(cells[i].runs = calloc(cap, sizeof *cells[i].runs)))
			rc = 1;
	int rounds = p->repeat ? p->repeat : 1;
	for (int r = 0; r < rounds && !rc; r++) {
		for (int i = 0; i < ncells && !rc; i++) {
			rc = run_cell(p, &cells[i], r, tr, te, stop, show, &lr_used, &loss_used);
			if (!rc && r == 0)
				done_cells = i + 1;
		}
		if (r == 0 && !p->repeat && !rc) {
			/* every MPI rank runs as many rounds (rows are collective): the
			 * count of the serial row's rank 0, the others having none */
			int n = auto_repeat(&cells[0]);
			hog_err err = { 0 };
			if (hog_mpi_size() > 1 && hog_mpi_max_int(&n, 1, &err))
				rc = cli_fail(&err, err.code ? err.code : HOG_EMPI);
			rounds = p->repeat = n;
			p->repeat_auto = 1;
		}
	}
	if (!p->repeat)
		p->repeat = 1; /* (stopped in the first round) */
	double target = p->target;
	if (cells[0].nruns) {
		summarize(&cells[0], INFINITY);
		if (isnan(target))
			target = (isnan(cells[0].test_loss) ? cells[0].train_loss : cells[0].test_loss) * 1.01;
	}
	for (int i = 0; i < done_cells; i++)
		summarize(&cells[i], target);
	cmp_report rep = { .plan = p, .cells = cells, .ncells = done_cells, .target = target, .lr = lr_used, .loss = loss_used,
	                   .data = data_name, .train = tr, .test = te };
	int wrc = 0;
	if (lead) {
		cmp_print_table(&rep, stdout);
		wrc = cmp_write_files(&rep);
	}
	if (!rc)
		rc = all_diverged(cells, done_cells, lead);
	if (!rc)
		rc = wrc;
	if (rc >= 128)
		fprintf(stderr, "hogwild compare: stopped; the rows above are the ones that finished\n");
	for (int i = 0; i < ncells; i++)
		free(cells[i].runs);
	free(cells);
	return rc;
}
