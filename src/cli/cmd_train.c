/* hogwild train: load a data set, train a linear model with the chosen update
 * mode and step rule, report every epoch on stdout (and as JSON lines with
 * --metrics), save the model. SIGINT/SIGTERM stop at the next round with a
 * checkpoint (exit 130/143). Under mpirun every rank runs this; rank 0 alone
 * reports, writes --metrics, --save and the checkpoints. */
#include "cli/train_opts.h"
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_SAVE = OPT_TRAIN_LAST, OPT_CHECKPOINT, OPT_CHECKPOINT_EVERY, OPT_RESUME, OPT_FORCE, OPT_METRICS, OPT_HELP };

static const char usage[] =
	"usage: hogwild train --data D.lmdb [--test T.lmdb] [options]\n"
	"Trains a linear model with every core at once and reports each epoch.\n"
	"\n"
	"      --mode M           serial | lockfree | buffered | atomic | striped | locked\n"
	"                         (lockfree: plain Hogwild!; buffered: lock-free with the hot\n"
	"                         coordinates summed per worker and flushed every K examples)\n"
	"      --threads N        workers, pinned one per core (0: every core; serial: 1)\n"
	"%s"
	"      --save FILE        write the trained model here (atomically)\n"
	"      --checkpoint FILE  write a checkpoint after every epoch and when stopped\n"
	"      --checkpoint-every SECONDS  also every SECONDS inside an epoch (0: off)\n"
	"      --resume FILE      continue from a checkpoint (same data and options)\n"
	"      --force            resume even when the data set or options differ from the\n"
	"                         checkpoint's (the model's shapes must still fit)\n"
	"      --metrics FILE     append one JSON line per epoch\n"
	"  -h, --help             this text\n"
	"Exit: 0 done, 1 data or run-time error, 2 usage, 130/143 stopped by SIGINT/SIGTERM.\n";

typedef struct train_ui {
	int quiet, progress_drawn;
	FILE *metrics;
	const hog_train_opts *o;
} train_ui;

static void on_progress(void *ud, const hog_progress *p)
{
	train_ui *u = ud;
	if (u->quiet)
		return;
	double rate = p->seconds > 0 ? p->done / p->seconds : 0;
	double eta = rate > 0 ? (p->total - p->done) / rate + (p->epochs - p->epoch) * (p->total / rate) : 0;
	fprintf(stderr, "\repoch %d/%d %3.0f%%  %.3g ex/s/thread  lr %.3g  loss %.4f  ETA %.0fs   ", p->epoch,
	        p->epochs, 100.0 * p->done / (p->total ? p->total : 1), rate / u->o->threads, p->lr, p->train_loss, eta);
	u->progress_drawn = 1;
}

static void on_epoch(void *ud, const hog_epoch_stats *s)
{
	train_ui *u = ud;
	if (u->progress_drawn) {
		fputs("\r\033[K", stderr);
		u->progress_drawn = 0;
	}
	/* binary labels: accuracy and AUC; real labels and ratings: RMSE and MAE */
	const int real = isnan(s->test_acc) && !isnan(s->test_rmse);
	if (s->epoch == 1 || u->quiet < 0)
		printf("%5s %8s %10s %10s %9s %9s %9s %7s %7s\n", "epoch", "sec", "ex/s", "nnz/s/thr", "lr",
		       "train", "test", real ? "rmse" : "acc%", real ? "mae" : "auc");
	printf("%5d %8.3f %10.4g %10.4g %9.3g %9.5f %9.5f %7.*f %7.4f", s->epoch, s->seconds, s->ex_per_s,
	       s->nnz_per_s_per_thread, s->lr, s->train_loss, s->test_loss, real ? 4 : 2,
	       real ? s->test_rmse : 100 * s->test_acc, real ? s->test_mae : s->test_auc);
	if (s->delay_samples)
		printf("  delay %.1f/%.0f/%.0f", s->delay_mean, s->delay_p99, s->delay_max);
	putchar('\n');
	fflush(stdout);
	if (u->metrics) {
		FILE *f = u->metrics;
		fprintf(f, "{\"epoch\":%d,\"threads\":%d,\"mode\":\"%s\",\"optimizer\":\"%s\",\"examples\":%llu,\"nnz\":%llu",
		        s->epoch, s->threads, hog_mode_name(u->o->mode), hog_rule_name(u->o->rule),
		        (unsigned long long)s->examples, (unsigned long long)s->nnz);
		cli_json_num(f, "seconds", s->seconds, 1);
		cli_json_num(f, "elapsed", s->elapsed, 1);
		cli_json_num(f, "ex_per_s", s->ex_per_s, 1);
		cli_json_num(f, "nnz_per_s_per_thread", s->nnz_per_s_per_thread, 1);
		cli_json_num(f, "lr", s->lr, 1);
		cli_json_num(f, "train_loss", s->train_loss, 1);
		cli_json_num(f, "test_loss", s->test_loss, 1);
		cli_json_num(f, "test_acc", s->test_acc, 1);
		cli_json_num(f, "test_auc", s->test_auc, 1);
		cli_json_num(f, "test_rmse", s->test_rmse, 1);
		cli_json_num(f, "test_mae", s->test_mae, 1);
		cli_json_num(f, "delay_mean", s->delay_mean, 1);
		cli_json_num(f, "delay_p99", s->delay_p99, 1);
		cli_json_num(f, "delay_max", s->delay_max, 1);
		fputs("}\n", f);
		fflush(f);
	}
}

int cmd_train(int argc0, char **argv0)
{
	static const struct option own[] = {
		{ "save", required_argument, NULL, OPT_SAVE },
		{ "checkpoint", required_argument, NULL, OPT_CHECKPOINT },
		{ "checkpoint-every", required_argument, NULL, OPT_CHECKPOINT_EVERY },
		{ "resume", required_argument, NULL, OPT_RESUME },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct option lopts[64];
	cli_train_table(lopts, 64, own);

	int argc;
	char **argv;
	int rc = cli_config_expand("train", lopts, argc0, argv0, &argc, &argv);
	if (rc)
		return rc;
	hog_train_opts o;
	hog_train_opts_init(&o);
	cli_train_args a = { 0 };
	const char *save = NULL, *metrics = NULL;
	int c;
	double d;
	optind = 1;
	opterr = 0;
	rc = -1;
	while (rc < 0 && (c = getopt_long(argc, argv, ":hc:", lopts, NULL)) != -1) {
		switch (c) {
		case 'h':
		case OPT_HELP:
			printf(usage, cli_train_usage);
			rc = 0;
			break;
		case 'c': break;
		case OPT_SAVE: save = optarg; break;
		case OPT_CHECKPOINT: o.checkpoint = optarg; break;
		case OPT_CHECKPOINT_EVERY:
			if (cli_parse_double(optarg, 0, 1e9, &d))
				rc = cli_usage_error("train", NULL, "--checkpoint-every: '%s' is not a number of seconds", optarg);
			o.checkpoint_every = d;
			break;
		case OPT_RESUME: o.resume = optarg; break;
		case OPT_FORCE: o.force_resume = 1; break;
		case OPT_METRICS: metrics = optarg; break;
		case ':': rc = cli_usage_error("train", NULL, "%s needs a value", argv[optind - 1]); break;
		case '?': rc = cli_usage_error("train", NULL, "unknown option '%s' (see hogwild train -h)", argv[optind - 1]); break;
		default:
			if ((c = cli_train_option("train", c, optarg, &o, &a)))
				rc = c;
		}
	}
	if (rc < 0 && optind < argc)
		rc = cli_usage_error("train", NULL, "unexpected argument '%s'", argv[optind]);
	if (rc >= 0) {
		cli_config_free(argc, argv);
		return rc;
	}
	if (o.resume && !o.checkpoint)
		o.checkpoint = o.resume; /* keep checkpointing where we resumed from */
	if ((rc = cli_mpi_start("train"))) {
		cli_config_free(argc, argv);
		return rc;
	}
	const int rank = hog_mpi_rank(), ranks = hog_mpi_size();
	if (rank)
		a.quiet = 1;
	hog_data *tr, *te;
	if ((rc = cli_load_data("train", &a, &tr, &te, a.quiet))) {
		cli_config_free(argc, argv);
		hog_mpi_finish();
		return rc;
	}
	train_ui ui = { .quiet = a.quiet || !cli_progress_wanted(0), .o = &o };
	if (metrics && rank == 0 && !(ui.metrics = fopen(metrics, "a"))) {
		fprintf(stderr, "hogwild: %s: cannot open for writing\n", metrics);
		rc = 1;
		goto out;
	}
	o.on_epoch = on_epoch;
	o.on_progress = on_progress;
	o.ud = &ui;
	o.stop = cli_stop_flag();
	cli_catch_signals();
	hog_model *m = NULL;
	hog_train_result res;
	hog_err err = { 0 };
	hog_train_opts shown = o;
	if (!shown.threads)
		shown.threads = 1;
	int trc = hog_train(tr, te, &o, &m, &res, &err);
	shown.threads = res.threads ? res.threads : 1;
	if (rank)
		save = NULL;
	if ((trc == 0 || trc == HOG_EINTR) && rank == 0) {
		char on[48] = "";
		if (ranks > 1)
			snprintf(on, sizeof on, " on each of %d MPI ranks", ranks);
		char avg[48] = "";
		if (ranks > 1)
			snprintf(avg, sizeof avg, " (%.2fs of it averaging)", res.sync_seconds);
		fprintf(stderr, "hogwild: %s mode, %d thread%s%s, %s, %d epoch%s in %.2fs%s%s\n", hog_mode_name(o.mode),
		        res.threads, res.threads == 1 ? "" : "s", on, hog_rule_name(o.rule), res.epochs_done,
		        res.epochs_done == 1 ? "" : "s", res.seconds, avg, trc ? " (stopped)" : "");
		if (o.mode == HOG_MODE_BUFFERED)
			fprintf(stderr, "hogwild: buffered mode kept %d hot coordinates per worker\n", res.hot);
	}
	if (trc == 0 && save && m && (rc = hog_model_save(m, save, &err))) {
		rc = cli_fail(&err, rc);
	} else if (trc == HOG_EINTR) {
		if (rank == 0)
			fprintf(stderr, "hogwild: %s\n", err.msg);
		int sig = *cli_stop_flag();
		rc = 128 + (sig ? sig : SIGINT);
	} else if (trc) {
		rc = cli_fail(&err, trc);
	} else {
		rc = 0;
		if (save)
			fprintf(stderr, "hogwild: model saved to %s\n", save);
	}
	hog_model_free(m);
out:
	if (ui.metrics)
		fclose(ui.metrics);
	hog_data_free(tr);
	hog_data_free(te);
	cli_config_free(argc, argv);
	hog_mpi_finish();
	return rc;
}
