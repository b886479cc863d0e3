/* hogwild tune: a search over the step size, L2 (and L1 for the linear model,
 * the rank for mf, the hidden widths for the mlp) judged on k folds or a
 * validation set, the trials run side by side on the cores (tune_run.c). It
 * prints a table of every trial, writes the best configuration as an INI file
 * that `train -c` reads (--save-config) and the model that configuration
 * trains on the whole of --data (--save). Outputs are checked before any
 * training; SIGINT/SIGTERM stop the trials and report the best finished one. */
#include "cli/tune.h"
#include "sys/err.h"
#include "sys/topo.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: hogwild tune --data D.lmdb [--folds K | --validation V] [options]\n"
	"Searches the step size and L2 (L1 for the linear model when --l1 is given, the\n"
	"rank for mf, the hidden widths for the mlp when --layers lists choices), each\n"
	"trial judged on held-out examples, several trials at once on the cores, with\n"
	"successive halving: every configuration a few epochs, the best third again\n"
	"with three times as many, up to --epochs (auto: train's default for the set,\n"
	"20, or more for a small set). Other training options are fixed for every\n"
	"trial and written to --save-config as given.\n"
	"\n";
static const char usage_tail[] =
	"Exit: 0 done, 1 data or run-time error, 2 usage, 130/143 stopped (the best finished trial reported).\n";

/* What tune takes beyond the plan: the files, and the fixed options given, to
 * write back into the config as they were written. */
typedef struct tune_args {
	cli_train_args a;
	const char *save, *save_config, *json, *mode;
	const char *keys[128], *vals[128];
	int nkeys;
} tune_args;

/* Options the config does not take back: the files, the machine's share. */
static int fixed_kept(int id)
{
	return id != OPT_DATA && id != OPT_TEST && id != OPT_QUIET && id != OPT_CONFIG && id != OPT_THREADS &&
	       id != OPT_BIND && id != OPT_TOPOLOGY && id != OPT_STRICT && id != OPT_EARLY_STOP;
}

static int parse_metric(const char *s, tune_metric *m)
{
	static const char *const names[] = { "loss", "acc", "auc", "rmse" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*m = (tune_metric)i;
			return 0;
		}
	return cli_usage_error("tune", NULL, "--metric: '%s' is not loss, acc, auc or rmse", s);
}

static int axis_of(int id)
{
	return id == OPT_LR ? TP_LR : id == OPT_L2 ? TP_L2 : id == OPT_L1 ? TP_L1 : id == OPT_RANK ? TP_RANK
	     : id == OPT_LAYERS ? TP_LAYERS : -1;
}

static int parse_args(int argc, char **argv, const struct option *lopts, tune_plan *pl, tune_args *t)
{
	int rc = -1, c, idx;
	long l;
	double d;
	optind = 1;
	opterr = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, ":hqc:", lopts, &idx)) != -1) {
		c = c == 'q' ? OPT_QUIET : c; /* (-q: --quiet, as data's commands take it) */
		cli_given_set(&t->a.given, c);
		switch (c) {
		case 'h':
		case OPT_HELP:
			fputs(usage_head, stdout);
			cli_opt_usage(stdout, CLI_TUNE);
			fputs(usage_tail, stdout);
			rc = 0;
			break;
		case 'c': break;
		case OPT_SAVE: t->save = optarg; break;
		case OPT_SAVE_CONFIG: t->save_config = optarg; break;
		case OPT_JSON: t->json = optarg; break;
		case OPT_METRIC: rc = parse_metric(optarg, &pl->metric) ? 2 : -1; break;
		case OPT_FOLDS:
			if (cli_parse_int(optarg, 2, TUNE_MAX_FOLDS, &l))
				rc = cli_usage_error("tune", NULL, "--folds: '%s' is not a count of folds 2..%d", optarg,
				                     TUNE_MAX_FOLDS);
			pl->folds = (int)l;
			break;
		case OPT_TEAMS:
			if (cli_parse_int(optarg, 1, 256, &l))
				rc = cli_usage_error("tune", NULL, "--teams: '%s' is not a count 1..256", optarg);
			pl->teams = (int)l;
			break;
		case OPT_RUNGS:
			if (cli_parse_int(optarg, 1, 8, &l))
				rc = cli_usage_error("tune", NULL, "--rungs: '%s' is not a count 1..8", optarg);
			pl->rungs = (int)l;
			break;
		case OPT_BUDGET:
			if (cli_parse_double(optarg, 0, 1e9, &d) || !(d > 0))
				rc = cli_usage_error("tune", NULL, "--budget: '%s' is not a number of seconds", optarg);
			pl->budget = d;
			break;
		case OPT_EARLY_STOP:
			if (cli_parse_int(optarg, 1, 1000000, &l))
				rc = cli_usage_error("tune", NULL, "--early-stop: '%s' is not a count of epochs", optarg);
			pl->base.early_stop = (int)l;
			break;
		case OPT_VALIDATION:
			pl->validation = optarg;
			pl->vfrac = 0;
			if (cli_parse_double(optarg, -1e300, 1e300, &d) == 0 && access(optarg, F_OK) != 0) {
				if (!(d > 0 && d < 1))
					rc = cli_usage_error("tune", NULL, "--validation: '%s' is not a fraction of the training "
					                     "set above 0 and below 1, nor a data set", optarg);
				pl->vfrac = d;
				pl->validation = NULL;
			}
			break;
		case ':': rc = cli_usage_error("tune", NULL, "%s needs a value", argv[optind - 1]); break;
		case '?': rc = cli_unknown_option("tune", NULL, lopts, argv[optind - 1]); break;
		default:
			if (axis_of(c) >= 0) {
				if (tune_axis_parse(axis_of(c), optarg, &pl->ax[axis_of(c)]))
					rc = 2;
				break;
			}
			if ((rc = cli_train_option("tune", c, optarg, &pl->base, &t->a))) /* (an exit code; 0: taken) */
				break;
			rc = -1;
			/* (the option by its id: getopt_long leaves idx as it was at a short
			 * option, and -q after --save-config once wrote 'save-config = on' into
			 * the config, which train then refused) */
			const struct option *lo = NULL;
			for (idx = 0; lopts[idx].name && !lo; idx++)
				lo = lopts[idx].val == c ? &lopts[idx] : NULL;
			if (lo && fixed_kept(c) && t->nkeys < 128) { /* written back to --save-config as given */
				t->keys[t->nkeys] = lo->name;
				t->vals[t->nkeys++] = lo->has_arg == no_argument ? "yes" : optarg ? optarg : "on";
			}
			if (c == OPT_MODE)
				t->mode = optarg;
		}
	}
	if (rc < 0 && optind < argc)
		rc = cli_usage_error("tune", NULL, "unexpected argument '%s'", argv[optind]);
	if (rc < 0 && pl->folds && (pl->validation || pl->vfrac))
		rc = cli_usage_error("tune", NULL, "--folds and --validation: give one (k folds, or one held-out set)");
	return rc;
}

/* ------------------------------------------------------------ report */

static const char *metric_name(tune_metric m)
{
	return m == TM_LOSS ? "loss" : m == TM_ACC ? "acc" : m == TM_AUC ? "auc" : "rmse";
}

static void print_table(const tune_plan *pl, FILE *f)
{
	const int real = pl->base.loss == HOG_LOSS_SQUARED || pl->base.model == HOG_MODEL_MF;
	fprintf(f, "%5s %6s", "round", "epochs");
	for (int p = 0; p < TP_N; p++)
		if (pl->ax[p].n)
			fprintf(f, " %*s", p == TP_LAYERS ? 12 : p == TP_RANK ? 5 : 10, tune_axis_name(p));
	fprintf(f, " %6s %9s %7s %7s %8s\n", "ran", "val loss", real ? "rmse" : "acc%", real ? "" : "auc", "sec");
	for (int i = 0; i < pl->ntrials; i++) {
		const tune_trial *t = &pl->trials[i];
		char v[64], a[32], b[32], s[32];
		fprintf(f, "%5d %6d", t->rung + 1, t->epochs);
		for (int p = 0; p < TP_N; p++)
			if (pl->ax[p].n) {
				tune_value(pl, t->cfg, p, v, sizeof v);
				if (p == TP_LR || p == TP_L2 || p == TP_L1)
					snprintf(v, sizeof v, "%.4g", atof(v));
				fprintf(f, " %*s", p == TP_LAYERS ? 12 : p == TP_RANK ? 5 : 10, v);
			}
		if (t->diverged || t->folds_done < pl->nsets) {
			fprintf(f, " %6s %9s\n", "-", t->diverged ? "diverged" : "stopped");
			continue;
		}
		fprintf(f, " %6.1f %9s %7s %7s %8.2f%s%s\n", t->epochs_run, cli_fmt_num(s, sizeof s, "%.5f", t->loss),
		        real ? cli_fmt_num(a, sizeof a, "%.4f", t->rmse) : cli_fmt_num(a, sizeof a, "%.2f", 100 * t->acc),
		        real ? "" : cli_fmt_num(b, sizeof b, "%.4f", t->auc), t->seconds,
		        t->cfg == pl->dflt ? "  (defaults)" : "", i == pl->best ? "  *" : "");
	}
}

/* The epochs the saved configuration trains: the trial's, or with early
 * stopping the mean of its folds' best epochs. */
static int best_epochs(const tune_plan *pl)
{
	const tune_trial *t = &pl->trials[pl->best];
	int e = pl->base.early_stop ? (int)lround(t->epochs_run) : t->epochs;
	return e < 1 ? 1 : e;
}

typedef struct cfg_out {
	const tune_plan *pl;
	const tune_args *t;
} cfg_out;

static int fill_config(void *ud, int fd, hog_err *err)
{
	const cfg_out *c = ud;
	const tune_plan *pl = c->pl;
	const tune_trial *b = &pl->trials[pl->best];
	char buf[16384], v[96];
	size_t n = 0;
	n += (size_t)snprintf(buf + n, sizeof buf - n,
	                      "# written by hogwild tune: the best of %d trials by held-out %s (%s %.6g)\n"
	                      "# hogwild train -c THIS --data D.lmdb [--save M]\n[train]\n",
	                      pl->ntrials, metric_name(pl->metric), metric_name(pl->metric),
	                      pl->metric == TM_ACC || pl->metric == TM_AUC ? -b->metric : b->metric);
	for (int i = 0; i < c->t->nkeys && n < sizeof buf; i++)
		if (strcmp(c->t->keys[i], "epochs"))
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s = %s\n", c->t->keys[i], c->t->vals[i]);
	for (int p = 0; p < TP_N && n < sizeof buf; p++)
		if (pl->ax[p].n && pl->ax[p].given) {
			tune_value(pl, b->cfg, p, v, sizeof v);
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s = %s\n", tune_axis_name(p), v);
		}
	if (n < sizeof buf)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "epochs = %d\n", best_epochs(pl));
	if (n >= sizeof buf)
		return hog_err_set(err, HOG_ECONFIG, "the configuration is too long");
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, buf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return hog_err_set(err, errno ? errno : EIO, "write: %s", strerror(errno ? errno : EIO));
		off += (size_t)w;
	}
	return 0;
}

static int fill_json(void *ud, int fd, hog_err *err)
{
	const cfg_out *c = ud;
	const tune_plan *pl = c->pl;
	FILE *f = fdopen(dup(fd), "w");
	if (!f)
		return hog_err_set(err, errno, "write: %s", strerror(errno));
	fprintf(f, "{\"folds\":%d,\"metric\":\"%s\",\"threads\":%d,\"teams\":%d,\"rungs\":%d,\"best\":%d", pl->folds,
	        metric_name(pl->metric), pl->threads, pl->teams, pl->rungs, pl->best);
	cli_json_num(f, "validation", pl->vfrac, 1);
	cli_json_num(f, "seconds", pl->seconds, 1);
	fputs(",\"trials\":[", f);
	for (int i = 0; i < pl->ntrials; i++) {
		const tune_trial *t = &pl->trials[i];
		char v[96];
		fprintf(f, "%s{\"round\":%d,\"epochs\":%d", i ? "," : "", t->rung + 1, t->epochs);
		for (int p = 0; p < TP_N; p++)
			if (pl->ax[p].n) {
				tune_value(pl, t->cfg, p, v, sizeof v);
				fprintf(f, ",\"%s\":", tune_axis_name(p));
				if (p == TP_LAYERS)
					cli_json_str(f, v);
				else
					fputs(v, f);
			}
		fprintf(f, ",\"defaults\":%s,\"done\":%s,\"diverged\":%s", t->cfg == pl->dflt ? "true" : "false",
		        t->folds_done == pl->nsets ? "true" : "false", t->diverged ? "true" : "false");
		cli_json_num(f, "epochs_run", t->epochs_run, 1);
		cli_json_num(f, "loss", t->loss, 1);
		cli_json_num(f, "acc", t->acc, 1);
		cli_json_num(f, "auc", t->auc, 1);
		cli_json_num(f, "rmse", t->rmse, 1);
		cli_json_num(f, "seconds", t->seconds, 1);
		fputc('}', f);
	}
	fputs("]}\n", f);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return hog_err_set(err, errno ? errno : EIO, "write: %s", strerror(errno ? errno : EIO));
	return 0;
}

/* --save: the best configuration trained on the whole of --data, as `train -c
 * CONFIG --data D` trains it (its mode, every core). */
static int save_best(const tune_plan *pl, const tune_args *t, const hog_data *full)
{
	hog_train_opts o;
	tune_apply(pl, pl->trials[pl->best].cfg, &o);
	o.epochs = best_epochs(pl);
	o.early_stop = 0;
	o.threads = 0;
	o.bind = pl->base.bind;
	if (!t->mode) /* (and a small set as one sequence, as train without --mode and --threads trains it) */
		o.mode = cli_small_epoch(&full->meta) && !t->a.given.on[OPT_THREADS - OPT_FIRST] &&
		                 cli_small_serial_fits(&o, &t->a.given)
		         ? HOG_MODE_SERIAL : hog_train_default_mode_data(&o, 0, &full->meta);
	o.stop = pl->stop;
	o.save = t->save;
	hog_model *m = NULL;
	hog_train_result res;
	hog_err err = { 0 };
	int rc = hog_train(full, NULL, &o, &m, &res, &err);
	if (!rc && (rc = hog_model_save(m, t->save, &err)) == 0 && !pl->quiet)
		fprintf(stderr, "hogwild tune: the best configuration trained on all of %s (%d epochs, %.2fs) saved to %s\n",
		        t->a.data, o.epochs, res.seconds, t->save);
	hog_model_free(m);
	hog_model_unreserve(t->save);
	return rc ? cli_fail(&err, rc) : 0;
}

/* ------------------------------------------------------------ the command */

static int check_files(const tune_plan *pl, const tune_args *t)
{
	int rc = 0;
	const int kind = hog_train_kind(&pl->base);
	if ((t->save && (rc = cli_check_output("tune", "--save", t->save, 0))) ||
	    (t->save && (rc = cli_check_replace("tune", "--save", t->save, kind))) ||
	    (t->save_config && (rc = cli_check_output("tune", "--save-config", t->save_config, 0))) ||
	    (t->save_config && (rc = cli_check_replace("tune", "--save-config", t->save_config, 0))) ||
	    (t->json && (rc = cli_check_output("tune", "--json", t->json, 0))) ||
	    (t->json && (rc = cli_check_replace("tune", "--json", t->json, 0))) ||
	    (t->a.data && (rc = cli_check_input("tune", "--data", t->a.data))) ||
	    (pl->validation && (rc = cli_check_input("tune", "--validation", pl->validation))))
		return rc;
	return 0;
}

/* The teams: --threads workers a trial (1), as many trials at once as the
 * cores hold (--teams). Several teams run unbound: each run would pin its
 * workers to the same first cores. */
static void size_teams(tune_plan *pl, const tune_args *t)
{
	hog_topo *topo;
	hog_err e = { 0 };
	int cores = 0;
	if (hog_topo_open(&topo, pl->base.topology, &e) == 0) {
		cores = hog_topo_cores(topo);
		hog_topo_close(topo);
	}
	if (cores < 1)
		cores = 1;
	if (pl->threads < 1)
		pl->threads = 1;
	if (!pl->teams)
		pl->teams = cores / pl->threads > 0 ? cores / pl->threads : 1;
	if (!t->mode && pl->threads == 1) {
		pl->base.mode = HOG_MODE_SERIAL;
	} else if (!t->mode) { /* (train's default for the set's shape, from its header) */
		hog_meta hm;
		const int known = cli_data_meta(t->a.data, &hm);
		pl->base.mode = hog_train_default_mode_data(&pl->base, 0, known ? &hm : NULL);
	}
	if (pl->teams > 1)
		pl->base.bind = HOG_BIND_NONE;
}

static int load(tune_plan *pl, const tune_args *t, hog_data **full)
{
	hog_err err = { 0 };
	int rc;
	if (!pl->validation) {
		cli_train_args a = t->a;
		a.test = NULL;
		if ((rc = cli_load_data("tune", &a, full, &pl->held[0], pl->quiet)))
			return rc;
		if (pl->folds > 0 && (uint64_t)pl->folds > (*full)->n)
			return cli_usage_error("tune", NULL, "--folds %d: %s has %llu examples", pl->folds, t->a.data,
			                       (unsigned long long)(*full)->n);
		if ((rc = tune_resolve(pl, *full)))
			return rc;
		return tune_cut(pl, *full);
	}
	cli_train_args a = t->a;
	a.test = pl->validation; /* checked against --data as train --validation FILE is */
	if ((rc = cli_load_data("tune", &a, full, &pl->held[0], pl->quiet)))
		return rc;
	pl->train[0] = *full;
	pl->borrowed = *full;
	pl->nsets = 1;
	(void)err;
	return tune_resolve(pl, *full);
}

/* --metric against the set's task, from its header, before any trial: accuracy
 * needs classes, AUC two of them, RMSE values (regression, ratings). 0, or the
 * usage error's exit status. */
static int metric_fits(const tune_plan *pl, const char *data)
{
	hog_meta hm;
	if (pl->metric == TM_LOSS || !cli_data_meta(data, &hm) || hm.unlabelled)
		return 0; /* (a set that cannot be read is refused where it is loaded) */
	const int values = hm.kind == HOG_KIND_RATINGS || hm.task == HOG_TASK_REGRESSION;
	const char *what = hm.kind == HOG_KIND_RATINGS ? "ratings" : hm.task == HOG_TASK_REGRESSION ? "regression values"
	                   : hm.task == HOG_TASK_MULTICLASS ? "multiclass labels" : "binary labels";
	if ((pl->metric == TM_RMSE && !values) || (pl->metric == TM_ACC && values) ||
	    (pl->metric == TM_AUC && (values || hm.task == HOG_TASK_MULTICLASS)))
		return cli_usage_error("tune", NULL, "--metric %s: %s holds %s, which have no %s (%s)",
		                       metric_name(pl->metric), data, what, metric_name(pl->metric),
		                       values ? "--metric loss or rmse" : hm.task == HOG_TASK_MULTICLASS ? "--metric loss or acc"
		                                                                                 : "--metric loss, acc or auc");
	return 0;
}

int cmd_tune(int argc0, char **argv0)
{
	struct option lopts[100];
	cli_opt_getopt(CLI_TUNE, lopts, 100);
	int argc;
	char **argv;
	int rc = cli_config_expand("tune", lopts, argc0, argv0, &argc, &argv);
	if (rc)
		return rc;
	tune_plan pl;
	memset(&pl, 0, sizeof pl);
	cli_train_opts_init(&pl.base);
	/* (halving needs a count, the config written says it: 0, --epochs auto,
	 * is train's default count for the set, tune_resolve) */
	pl.base.epochs = 0;
	tune_args t;
	memset(&t, 0, sizeof t);
	if ((rc = parse_args(argc, argv, lopts, &pl, &t)) >= 0)
		goto out;
	pl.quiet = t.a.quiet;
	pl.threads = pl.base.threads;
	if (t.a.test) { /* (taken, then not used: refused, as train refuses what it would ignore) */
		rc = cli_usage_error("tune", NULL, "--test: tune chooses on held-out parts of --data (--folds, "
		                     "--validation); evaluate the saved model on %s with hogwild eval", t.a.test);
		goto out;
	}
	cli_task_loss(&pl.base, t.a.data, &t.a.given, "tune", t.a.quiet);
	if ((rc = metric_fits(&pl, t.a.data)))
		goto out;
	size_teams(&pl, &t);
	if (!pl.folds && !pl.validation && !pl.vfrac)
		pl.vfrac = 0.2;
	cli_given_set(&t.a.given, OPT_VALIDATION); /* (every trial has held-out examples: --early-stop applies) */
	if ((rc = cli_train_refuse(CLI_TUNE, &pl.base, cli_opt_train_modes(&pl.base), &t.a.given)) ||
	    (rc = check_files(&pl, &t)))
		goto out;
	hog_data *full = NULL;
	if ((rc = load(&pl, &t, &full))) {
		hog_data_free(full);
		goto out;
	}
	pl.stop = cli_stop_flag();
	cli_catch_signals();
	pl.t0 = cli_now();
	if (!pl.quiet)
		fprintf(stderr, "hogwild tune: %d configurations, %s, %d trial%s at once of %d thread%s (%s mode)\n",
		        pl.ncfgs, pl.folds ? "k-fold" : "a validation set", pl.teams, pl.teams == 1 ? "" : "s", pl.threads,
		        pl.threads == 1 ? "" : "s", hog_mode_name(pl.base.mode));
	rc = tune_search(&pl);
	print_table(&pl, stdout);
	const int sig = *pl.stop;
	if (!rc && pl.best < 0) { /* (a run-time end, exit 1: the options were fine) */
		fprintf(stderr, "hogwild tune: no trial finished with a held-out %s (%s; try smaller step sizes, --lr "
		        "x0.05:x0.5)\n", metric_name(pl.metric), pl.metric == TM_LOSS ? "every one diverged"
		        : "every one diverged, or the labels have none: try --metric loss");
		rc = 1;
	}
	cfg_out co = { &pl, &t };
	if (!rc && pl.best >= 0) {
		char v[96];
		printf("best (held-out %s):", metric_name(pl.metric));
		for (int p = 0; p < TP_N; p++)
			if (pl.ax[p].n) {
				tune_value(&pl, pl.trials[pl.best].cfg, p, v, sizeof v);
				printf(" --%s %s", tune_axis_name(p), v);
			}
		printf(" --epochs %d\n%d trainings in %.2fs%s%s\n", best_epochs(&pl), pl.ntrials * pl.nsets, pl.seconds,
		       pl.budget_hit ? " (--budget reached)" : "", sig ? " (stopped)" : "");
		fflush(stdout);
		if (t.save_config && (rc = cli_write_atomic("tune", t.save_config, fill_config, &co, "write")) == 0 &&
		    !pl.quiet)
			fprintf(stderr, "hogwild tune: the best configuration written to %s\n", t.save_config);
		if (!rc && t.save && sig)
			fprintf(stderr, "hogwild tune: stopped: nothing trained for --save %s\n", t.save);
		else if (!rc && t.save)
			rc = save_best(&pl, &t, full);
	}
	if (!rc && t.json)
		rc = cli_write_atomic("tune", t.json, fill_json, &co, "write");
	if (sig)
		rc = 128 + sig;
	hog_data_free(full);
out:
	tune_plan_free(&pl);
	cli_config_free(argc, argv);
	return rc < 0 ? 0 : rc;
}
