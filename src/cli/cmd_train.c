/* hogwild train: load a data set, train a linear model with the chosen update
 * mode and step rule, report every epoch on stdout (and as JSON lines with
 * --metrics), save the model. SIGINT/SIGTERM stop at the next round with a
 * checkpoint (exit 130/143). Under mpirun every rank runs this; rank 0 alone
 * reports, writes --metrics, --save and the checkpoints. A stop writes --save
 * too, with the model trained so far. */
#include "cli/train_opts.h"
#include "train/engine.h" /* eng_det_shards */
#include "train/mlp_opts.h"
#include "sys/topo.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An epoch of fewer nonzeros takes well under a millisecond (about 0.5 ms
 * at 2.5e8 a second): threads save nothing there (cmd_train's note) */

static const char usage_head[] =
	"usage: hogwild train --data D.lmdb [--test T.lmdb] [options]\n"
	"Trains a model with every core at once and reports each epoch. An option that\n"
	"the model, mode or other options would ignore is refused (exit 2).\n"
	"\n";
static const char usage_tail[] =
	"Exit: 0 done, 1 data or run-time error, 2 usage, 130/143 stopped by SIGINT/SIGTERM.\n";

typedef struct train_ui {
	int quiet, progress_drawn;
	int header_done;        /* the table's header printed (a resumed run's first row is not epoch 1) */
	int resume_said;        /* --resume: where the run went on, said at its first epoch (printed or not) */
	int threads;            /* the workers the run uses (o->threads may be 0: every core) */
	FILE *metrics;
	const char *metrics_path;
	int metrics_errno;      /* first failed write to --metrics, 0 if none */
	const hog_train_opts *o;
	int validation;         /* the test columns are --validation's */
	cli_held *held;         /* the held-out set read a chunk at a time (NULL: in memory) */
} train_ui;

/* hog_train_opts.test_eval: the held-out set read a chunk at a time. */
static int held_eval(void *ud, const struct hog_model *m, struct hog_eval *ev, hog_err *err)
{
	return cli_held_eval(((train_ui *)ud)->held, m, ev, err);
}

/* The workers hog_train() will start: one for serial, --threads, or every core
 * of the topology it plans on (the same rule as the trainer's). */
static int train_threads(const hog_train_opts *o)
{
	if (o->mode == HOG_MODE_SERIAL)
		return 1;
	if (o->threads > 0)
		return o->threads;
	hog_topo *t;
	hog_err e = { 0 };
	int n = 0;
	if (hog_topo_open(&t, o->topology, &e) == 0) {
		n = hog_topo_cores(t);
		hog_topo_close(t);
	}
	return n > 0 ? n : 1;
}

static void on_progress(void *ud, const hog_progress *p)
{
	train_ui *u = ud;
	if (u->quiet)
		return;
	double rate = p->seconds > 0 ? p->done / p->seconds : 0;
	double eta = rate > 0 ? (p->total - p->done) / rate + (p->epochs - p->epoch) * (p->total / rate) : 0;
	fprintf(stderr, "\repoch %d/%d %3.0f%%  %.3g ex/s/thread  lr %.3g  loss %.4f  ETA %.0fs   ", p->epoch,
	        p->epochs, 100.0 * p->done / (p->total ? p->total : 1), rate / u->threads, p->lr, p->train_loss, eta);
	u->progress_drawn = 1;
}

/* a note from the trainer (--mode auto's choice, replica's node replicas): on
 * stderr, and a line of its own in --metrics */
static void on_note(void *ud, const char *note)
{
	train_ui *u = ud;
	fprintf(stderr, "hogwild: %s\n", note);
	if (u->metrics) {
		fputs("{\"note\":", u->metrics);
		cli_json_str(u->metrics, note);
		fputs("}\n", u->metrics);
	}
}

static void on_epoch(void *ud, const hog_epoch_stats *s)
{
	train_ui *u = ud;
	if (u->progress_drawn) {
		fputs("\r\033[K", stderr);
		u->progress_drawn = 0;
	}
	/* binary and multiclass labels: accuracy and AUC; real labels and ratings
	 * (the squared loss): RMSE and MAE */
	const int real = isnan(s->test_acc) && (!isnan(s->test_rmse) || s->loss == HOG_LOSS_SQUARED);
	/* the work column in the model's own unit: nonzeros, ratings, flops */
	char rate[32];
	snprintf(rate, sizeof rate, "%s/s/thr", s->unit ? s->unit : "nnz");
	const int rw = strlen(rate) > 10 ? (int)strlen(rate) : 10;
	/* the squared loss is half the squared error: said in the header */
	const int half = s->loss == HOG_LOSS_SQUARED;
	/* a long run (--epochs auto on a small set: up to 1000) shows about 20 rows;
	 * --metrics keeps every epoch */
	const int every = s->epochs > 40 && !u->o->early_stop ? s->epochs / 20 : 1; /* (early stopping: every row) */
	if (!u->resume_said++ && u->o->resume) { /* (the first row said where the run went on, and nothing else; the
		                                      * first epoch, not the first row shown: 113, not 150 of 1000) */
		fflush(stdout);
		fprintf(stderr, "hogwild train: resumed from %s: epoch %d of %d on\n", u->o->resume, s->epoch, s->epochs);
	}
	if (s->epoch > 1 && s->epoch % every && s->epoch != s->epochs)
		goto metrics;
	if (!u->header_done++ || u->quiet < 0)
		printf("%5s %8s %10s %*s %9s %9s %9s %7s %7s\n", "epoch", "sec", "ex/s", rw, rate, "lr",
		       half ? "trn mse/2" : "train", half ? (u->validation ? "val mse/2" : "tst mse/2") : u->validation ? "valid" : "test",
		       real ? "rmse" : "acc%", real ? "mae" : "auc");
	char trl[32], tl[32], q1[32], q2[32];
	printf("%5d %8.3f %10.4g %*.4g %9.3g %9s %9s %7s %7s", s->epoch, s->seconds, s->ex_per_s, rw,
	       s->nnz_per_s_per_thread, s->lr, cli_fmt_num(trl, sizeof trl, "%.5f", s->train_loss),
	       cli_fmt_num(tl, sizeof tl, "%.5f", s->test_loss),
	       real ? cli_fmt_num(q1, sizeof q1, "%.4f", s->test_rmse) : cli_fmt_num(q1, sizeof q1, "%.2f", 100 * s->test_acc),
	       cli_fmt_num(q2, sizeof q2, "%.4f", real ? s->test_mae : s->test_auc));
	if (s->delay_samples)
		printf("  delay %.1f/%.0f/%.0f", s->delay_mean, s->delay_p99, s->delay_max);
	if (u->o->mlp.batch_auto && s->batch) /* the batch it ran and the noise scale it measured */
		printf("  batch %u noise %s", s->batch,
		       isinf(s->noise_scale) ? "inf" : cli_fmt_num(q1, sizeof q1, "%.4g", s->noise_scale));
	putchar('\n');
	fflush(stdout);
metrics:
	if (u->metrics) {
		FILE *f = u->metrics;
		fprintf(f, "{\"epoch\":%d,\"threads\":%d,\"mode\":\"%s\",\"optimizer\":\"%s\",\"examples\":%llu,\"nnz\":%llu",
		        s->epoch, s->threads, hog_mode_name(s->mode), hog_rule_name(u->o->rule),
		        (unsigned long long)s->examples, (unsigned long long)s->nnz);
		cli_json_num(f, "seconds", s->seconds, 1);
		cli_json_num(f, "wall", s->wall, 1);
		cli_json_num(f, "elapsed", s->elapsed, 1);
		cli_json_num(f, "ex_per_s", s->ex_per_s, 1);
		cli_json_num(f, "nnz_per_s_per_thread", s->nnz_per_s_per_thread, 1);
		cli_json_num(f, "lr", s->lr, 1);
		cli_json_num(f, "train_loss", s->train_loss, 1);
		/* (test_*: the held-out set's figures, --validation's where it is given: said) */
		fprintf(f, ",\"heldout\":%s", isnan(s->test_loss) ? "null" : u->validation ? "\"validation\"" : "\"test\"");
		cli_json_num(f, "test_loss", s->test_loss, 1);
		cli_json_num(f, "test_acc", s->test_acc, 1);
		cli_json_num(f, "test_auc", s->test_auc, 1);
		cli_json_num(f, "test_rmse", s->test_rmse, 1);
		cli_json_num(f, "test_mae", s->test_mae, 1);
		cli_json_num(f, "delay_mean", s->delay_mean, 1);
		cli_json_num(f, "delay_p99", s->delay_p99, 1);
		cli_json_num(f, "delay_max", s->delay_max, 1);
		if (s->nonzeros >= 0) /* linear: nonzero weights, the bias excluded */
			fprintf(f, ",\"nonzeros\":%lld", (long long)s->nonzeros);
		if (s->batch) /* the mlp's batch */
			fprintf(f, ",\"batch\":%u", s->batch);
		if (s->batch || !isnan(s->noise_scale)) { /* the gradient noise scale (null: not measured; inf: noise only) */
			if (isinf(s->noise_scale))
				fputs(",\"noise_scale\":\"inf\"", f);
			else
				cli_json_num(f, "noise_scale", s->noise_scale, 1);
		}
		if (s->syncs) /* MPI: the averagings and their payload per rank */
			fprintf(f, ",\"syncs\":%llu,\"sync_bytes\":%llu,\"compress\":\"%s\"", (unsigned long long)s->syncs,
			        (unsigned long long)s->sync_bytes, cli_compress_str(u->o, trl, sizeof trl));
		fprintf(f, ",\"loss\":\"%s\",\"unit\":\"%s\"}\n", hog_loss_name(s->loss), s->unit ? s->unit : "nnz");
		/* checked every epoch: a full disk must not pass for a finished log */
		if ((fflush(f) != 0 || ferror(f)) && !u->metrics_errno)
			u->metrics_errno = errno ? errno : EIO;
	}
}

/* Writes the model to --save. When that fails after training (a disk filled up
 * beyond the space reserved at the start, a directory removed or replaced, a
 * rename refused) the model is not lost: it is written beside that path, or
 * else in $TMPDIR, and the user told where. Returns 0 when saved to @p save, 1
 * (with the messages out) when not. */
static int save_model(const hog_model *m, const char *save)
{
	hog_err err = { 0 };
	if (hog_model_save(m, save, &err) == 0)
		return 0;
	fprintf(stderr, "hogwild: --save %s\n", err.msg);
	const char *tmpdir = getenv("TMPDIR"), *slash = strrchr(save, '/');
	char alt[2][4400];
	snprintf(alt[0], sizeof alt[0], "%s.rescued-%ld", save, (long)getpid());
	snprintf(alt[1], sizeof alt[1], "%s/hogwild-rescued-%ld-%s", tmpdir && *tmpdir ? tmpdir : "/tmp",
	         (long)getpid(), slash ? slash + 1 : save);
	for (int i = 0; i < 2; i++) {
		hog_err e2 = { 0 };
		if (hog_model_save(m, alt[i], &e2) == 0) {
			fprintf(stderr, "hogwild: the trained model is kept in %s instead: move it to %s (it is a "
			        "complete model file)\n", alt[i], save);
			return 1;
		}
		fprintf(stderr, "hogwild: ... nor could it be written to %s: %s\n", alt[i], e2.msg);
	}
	fprintf(stderr, "hogwild: the trained model is lost\n");
	return 1;
}

/* A stop (SIGINT, SIGTERM) with --save: the model as it stood is written, as a
 * checkpoint is, and the user is told either way. Returns @p rc, or 1 when the
 * model could not be written. (Rank 0 alone has a save path.) */
static int save_stopped(const hog_model *m, const char *save, const hog_train_opts *o, const hog_train_result *res,
                        int rc)
{
	if (!save || !m) {
		if (hog_mpi_rank() == 0 && !o->checkpoint)
			fprintf(stderr, "hogwild: nothing saved (no --save or --checkpoint)\n");
		return rc;
	}
	if (save_model(m, save))
		return 1;
	char of[32] = ""; /* (--epochs auto's count is the trainer's: not said) */
	if (o->epochs > 0)
		snprintf(of, sizeof of, " of %d", o->epochs);
	fprintf(stderr, "hogwild: model trained so far (%d%s epochs done, stopped inside epoch %d) saved to %s\n",
	        res->epochs_done, of, res->epochs_done + 1, save);
	return rc;
}

/* A run that diverged (the message is out): nothing saved, or with
 * --keep-diverged the model as it stood, to look at. Returns 1, the exit
 * status of a diverged run either way. (Rank 0 alone has a save path.) */
static int save_diverged(const hog_model *m, const char *save, const hog_train_opts *o, int rank)
{
	if (rank)
		return 1;
	if (o->checkpoint)
		fprintf(stderr, "hogwild: the diverged state is not written to the checkpoint %s (it holds the last "
		        "state written before, if any)\n", o->checkpoint);
	if (!save)
		return 1;
	if (!o->keep_diverged)
		fprintf(stderr, "hogwild: nothing saved to %s (--keep-diverged saves a diverged model)\n", save);
	else if (!m)
		fprintf(stderr, "hogwild: --keep-diverged: the model's parameters are not finite; nothing saved to %s\n",
		        save);
	else if (save_model(m, save) == 0)
		fprintf(stderr, "hogwild: the diverged model saved to %s (--keep-diverged)\n", save);
	return 1;
}

/* What train takes beyond the training options (cli_train_option). */
typedef struct train_args {
	cli_train_args a;
	const char *save, *metrics;
	const char *validation; /* --validation: a file, or a fraction of --data (vfrac > 0) */
	double vfrac;
	int stream;
	int diagnostics; /* --diagnostics: 1 on, 0 off, -1 not given (on with --metrics) */
} train_args;

/* The command line into *o and *t: -1 to go on, else the exit status (-h: 0). */
static int parse_args(int argc, char **argv, const struct option *lopts, hog_train_opts *o, train_args *t)
{
	int rc = -1, c;
	double d;
	optind = 1;
	opterr = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, ":hqc:", lopts, NULL)) != -1) {
		c = c == 'q' ? OPT_QUIET : c; /* (-q: --quiet, as data's commands take it) */
		cli_given_set(&t->a.given, c);
		switch (c) {
		case 'h':
		case OPT_HELP:
			fputs(usage_head, stdout);
			cli_opt_usage(stdout, CLI_TRAIN);
			fputs(usage_tail, stdout);
			rc = 0;
			break;
		case 'c': break;
		case OPT_SAVE: t->save = optarg; break;
		case OPT_CHECKPOINT: o->checkpoint = optarg; break;
		case OPT_CHECKPOINT_EVERY:
			if (cli_parse_double(optarg, 0, 1e9, &d))
				rc = cli_usage_error("train", NULL, "--checkpoint-every: '%s' is not a number of seconds", optarg);
			o->checkpoint_every = d;
			break;
		case OPT_RESUME: o->resume = optarg; break;
		case OPT_FORCE: o->force_resume = 1; break;
		case OPT_METRICS: t->metrics = optarg; break;
		case OPT_DIAGNOSTICS:
			if (!optarg || !strcmp(optarg, "on")) t->diagnostics = 1;
			else if (!strcmp(optarg, "off")) t->diagnostics = 0;
			else rc = cli_usage_error("train", NULL, "--diagnostics: '%s' is not on or off (write --diagnostics=off)",
			                          optarg);
			break;
		case OPT_STREAM: t->stream = 1; break;
		case OPT_KEEP_DIVERGED: o->keep_diverged = 1; break;
		case OPT_VALIDATION:
			t->validation = optarg;
			t->vfrac = 0;
			if (cli_parse_double(optarg, -1e300, 1e300, &d) == 0 && access(optarg, F_OK) != 0) {
				if (!(d > 0 && d < 1))
					rc = cli_usage_error("train", NULL, "--validation: '%s' is not a fraction of the "
					                     "training set above 0 and below 1, nor a data set", optarg);
				t->vfrac = d;
			}
			break;
		case OPT_EARLY_STOP: {
			long n;
			if (cli_parse_int(optarg, 1, 1000000, &n))
				rc = cli_usage_error("train", NULL, "--early-stop: '%s' is not a count of epochs 1..1000000",
				                     optarg);
			o->early_stop = (int)n;
			break;
		}
		case ':': rc = cli_usage_error("train", NULL, "%s needs a value", argv[optind - 1]); break;
		case '?': rc = cli_unknown_option("train", NULL, lopts, argv[optind - 1]); break;
		default:
			if ((c = cli_train_option("train", c, optarg, o, &t->a)))
				rc = c;
		}
	}
	if (rc < 0 && optind < argc)
		rc = cli_usage_error("train", NULL, "unexpected argument '%s'", argv[optind]);
	return rc;
}

/* Every output is checked before the data is loaded: a typo in a directory
 * must not cost a whole training run. Opens --metrics (rank 0) into ui. */
static int check_files(const train_args *t, const hog_train_opts *o, int rank, train_ui *ui)
{
	const char *save = t->save, *metrics = t->metrics;
	const int kind = hog_train_kind(o); /* what --save and --checkpoint will hold */
	int rc = 0;
	if ((save && (rc = cli_check_output("train", "--save", save, 0))) ||
	    (save && (rc = cli_check_replace("train", "--save", save, kind))) ||
	    (o->checkpoint && (rc = cli_check_output("train", "--checkpoint", o->checkpoint, 0))) ||
	    (o->checkpoint && (rc = cli_check_replace("train", "--checkpoint", o->checkpoint, kind))) ||
	    (o->checkpoint && (rc = cli_check_checkpoint("train", o->checkpoint, o->resume))) ||
	    (metrics && (rc = cli_check_output("train", "--metrics", metrics, 1))) ||
	    (metrics && (rc = cli_check_replace("train", "--metrics", metrics, 0))) ||
	    (o->resume && (rc = cli_check_input("train", "--resume", o->resume))))
		return rc;
	if (metrics && rank == 0 && !(ui->metrics = fopen(metrics, "a"))) { /* rank 0 alone reports */
		fprintf(stderr, "hogwild train: --metrics %s: %s\n", metrics, strerror(errno));
		return 1;
	}
	if ((t->a.data && (rc = cli_check_input("train", "--data", t->a.data))) ||
	    (t->a.test && (rc = cli_check_input("train", "--test", t->a.test))) ||
	    (t->validation && !t->vfrac && (rc = cli_check_input("train", "--validation", t->validation))))
		return rc;
	return 0;
}

/* A set matched to the training set (@p tr, NULL with --stream: its header is
 * read from --data) into *d; 0 or an exit status. */
static int load_matched(const train_args *t, const hog_data *tr, const char *path, hog_data **d)
{
	hog_err err = { 0 };
	int rc = hog_data_load(d, path, &err);
	if (rc)
		return cli_fail(&err, rc);
	if (cli_refuse_unlabelled("train", path, *d))
		return 1;
	return cli_match_test("train", tr, t->a.data, *d, path, t->a.quiet, t->a.strict);
}

/* --validation with --test: the test set, evaluated once at the end as `eval`
 * would (hog_model_prepare puts it in the model's terms then); a half of
 * another split of --data's input is named now, or refused with --strict. */
static int load_final_test(const train_args *t, hog_data **te)
{
	hog_err err = { 0 };
	hog_data *h = NULL;
	int rc = hog_data_load(te, t->a.test, &err);
	if (rc)
		return cli_fail(&err, rc);
	if (cli_refuse_unlabelled("train", t->a.test, *te))
		return 1;
	if ((rc = hog_data_load_header(&h, t->a.data, &err)))
		return cli_fail(&err, rc);
	rc = cli_split_overlap("train", t->a.data, h->split, h->origin, t->a.test, (*te)->split, (*te)->origin,
	                       t->a.strict) |
	     cli_same_set("train", t->a.data, &h->meta, t->a.test, &(*te)->meta, t->a.strict);
	hog_data_free(h);
	return rc;
}

/* The closing lines of a run with a held-out set: the epoch whose model it
 * handed back (early stopping), and with --validation the --test set's
 * figures for that model, on standard output after the table. Returns 0 or
 * an exit status. */
static int report_heldout(const train_args *t, const hog_train_opts *o, const hog_train_result *res,
                          const hog_model *m, hog_data *te, cli_held *fin, FILE *metrics)
{
	if (o->early_stop && res->best_epoch) {
		char why[96] = "every epoch ran";
		if (res->stopped_early)
			snprintf(why, sizeof why, "stopped early: the held-out loss had not improved for %d epoch%s "
			         "(--early-stop)", o->early_stop, o->early_stop == 1 ? "" : "s");
		fprintf(stderr, "hogwild: %s; the model is that of epoch %d, whose %s loss was best (%.5f)\n", why,
		        res->best_epoch, t->validation ? "validation" : "test", res->best_loss);
	}
	if ((!te && !fin->c) || !m)
		return 0;
	hog_err err = { 0 };
	hog_data_fit fit;
	hog_eval ev;
	int rc;
	if (fin->c) { /* read a chunk at a time (its note: cli_held_close) */
		if ((rc = cli_held_eval(fin, m, &ev, &err)))
			return cli_fail(&err, rc);
	} else {
		rc = hog_model_prepare(m, te, t->a.test, "the trained model", &fit, &err);
		if (!rc)
			cli_fit_note("train", &fit, te, t->a.test, "the trained model");
		if (rc || (rc = hog_model_eval(m, te, &ev, &err)))
			return cli_fail(&err, rc);
	}
	if (metrics) { /* (the epochs' lines hold the validation figures: this is the --test set's, once) */
		fputs("{\"final_test\":", metrics);
		cli_json_str(metrics, t->a.test);
		cli_json_num(metrics, "test_loss", ev.loss, 1);
		cli_json_num(metrics, "test_acc", ev.accuracy, 1);
		cli_json_num(metrics, "test_auc", ev.auc, 1);
		cli_json_num(metrics, "test_rmse", ev.rmse, 1);
		cli_json_num(metrics, "test_mae", ev.mae, 1);
		fputs("}\n", metrics);
		fflush(metrics);
	}
	printf("test %s: loss %.5f, ", t->a.test, ev.loss);
	if (isnan(ev.accuracy))
		printf("rmse %.4f, mae %.4f\n", ev.rmse, ev.mae);
	else if (isnan(ev.auc))
		printf("accuracy %.2f%%\n", 100 * ev.accuracy);
	else
		printf("accuracy %.2f%%, auc %.4f\n", 100 * ev.accuracy, ev.auc);
	return 0;
}

/* --validation FRACTION: --data split in two (hog_data_split, by --seed) into a
 * temporary folder ($TMPDIR or /tmp), the larger part loaded as the training
 * set and the fraction as the held-out set, the files removed once loaded. */
static int load_fraction(const train_args *t, uint64_t seed, hog_data **tr, hog_data **held)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], a[4200], b[4200];
	snprintf(dir, sizeof dir, "%s/hogwild-valid-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "hogwild train: --validation %s: cannot make a temporary folder %s: %s\n", t->validation,
		        dir, strerror(errno));
		return 1;
	}
	snprintf(a, sizeof a, "%s/train.lmdb", dir);
	snprintf(b, sizeof b, "%s/valid.lmdb", dir);
	hog_err err = { 0 };
	int rc = hog_data_split(t->a.data, a, b, t->vfrac, seed, &err);
	if (rc == HOG_EDATA) { /* (a half left empty: said of --data, not of the temporary files) */
		unlink(a);
		unlink(b);
		rmdir(dir);
		fprintf(stderr, "hogwild train: --validation %s: %s is too small to hold out that fraction (one of the "
		        "two parts would be empty); give a larger fraction or a validation data set\n", t->validation,
		        t->a.data);
		return 1;
	}
	if (!rc && !(rc = hog_data_load(tr, a, &err)))
		rc = hog_data_load(held, b, &err);
	if (rc)
		rc = cli_fail(&err, rc);
	else if ((*held)->n < 30) /* (early stopping on a handful: noise) */
		fprintf(stderr, "hogwild train: warning: --validation %s holds out %llu example%s of %s: a held-out "
		        "loss of so few is noise to stop on\n", t->validation, (unsigned long long)(*held)->n,
		        (*held)->n == 1 ? "" : "s", t->a.data);
	unlink(a);
	unlink(b);
	rmdir(dir);
	return rc;
}

/* The sets: the training set (not with --stream: read block by block), the
 * held-out set the run evaluates every epoch and stops early on (*held:
 * --validation, else --test), and with --validation the --test set, evaluated
 * once at the end (*te, or *fin when it is read a chunk at a time: with
 * --stream, or when it would not fit). */
static int load_sets(const train_args *t, const hog_train_opts *o, hog_data **tr, hog_data **held, hog_data **te,
                     cli_held *hs, int streamed, cli_held *fin)
{
	const cli_train_args *a = &t->a;
	int rc = 0;
	if (t->validation) {
		if (!a->data)
			return cli_usage_error("train", NULL, "--data is required (a data set made by 'hogwild data "
			                       "import' or 'gen')");
		hog_err err = { 0 };
		if (cli_refuse_unlabelled("train", a->data, NULL))
			return 1;
		if (t->vfrac > 0)
			rc = load_fraction(t, o->seed, tr, held);
		else if (!t->stream && (rc = hog_data_load(tr, a->data, &err)))
			rc = cli_fail(&err, rc);
		if (!rc && t->vfrac == 0)
			rc = streamed ? cli_held_open(hs, "train", *tr, a->data, t->validation, a->strict)
			              : load_matched(t, *tr, t->validation, held);
		if (!rc && a->test)
			rc = cli_held_wanted("train", a->test, t->stream)
			     ? cli_held_open(fin, "train", t->stream ? NULL : *tr, a->data, a->test, a->strict)
			     : load_final_test(t, te);
		return rc;
	}
	cli_train_args ta = *a;
	if (streamed) /* (the test set: below) */
		ta.test = NULL;
	if (!t->stream && !(rc = cli_load_data("train", &ta, tr, held, a->quiet)) && streamed)
		rc = cli_held_open(hs, "train", *tr, a->data, a->test, a->strict);
	if (!t->stream)
		return rc;
	hog_data **te_ = held;
	ta.data = a->test;
	ta.test = NULL;
	if (!a->data)
		rc = cli_usage_error("train", NULL, "--data is required (a data set made by 'hogwild data import' or 'gen')");
	else if (cli_refuse_unlabelled("train", a->data, NULL))
		rc = 1;
	else if (a->test && streamed)
		rc = cli_held_open(hs, "train", NULL, a->data, a->test, a->strict);
	else if (a->test && !(rc = cli_load_data("train", &ta, te_, tr, a->quiet)))
		rc = cli_match_test("train", NULL, a->data, *te_, a->test, a->quiet, a->strict);
	return rc;
}

/* Rank 0's closing lines of a run that finished or stopped. */
static void report_run(const hog_train_result *res, const hog_train_opts *o, int trc, int ranks, const hog_model *m)
{
	char nz[96] = ""; /* the linear model: its nonzero weights (--l1) */
	hog_model_info info;
	if (m)
		hog_model_info_get(m, &info);
	if (m && cli_linear_nonzeros(&info) >= 0)
		snprintf(nz, sizeof nz, ", %lld of %llu weights nonzero", (long long)cli_linear_nonzeros(&info),
		         (unsigned long long)info.dim);
	char on[48] = "";
	if (ranks > 1)
		snprintf(on, sizeof on, " on each of %d MPI ranks", ranks);
	char avg[48] = "";
	if (ranks > 1)
		snprintf(avg, sizeof avg, " (%.2fs of it averaging)", res->sync_seconds);
	fprintf(stderr, "hogwild: %s mode, %d thread%s%s, %s, %d epoch%s in %.2fs%s%s%s\n", hog_mode_name(res->mode),
	        res->threads, res->threads == 1 ? "" : "s", on, hog_rule_name(o->rule), res->epochs_done,
	        res->epochs_done == 1 ? "" : "s", res->seconds, avg, nz, trc ? " (stopped)" : "");
	char cz[32];
	if (ranks > 1) /* the allreduce payloads: what --compress changes */
		fprintf(stderr, "hogwild: %llu averagings, %llu bytes sent per averaging by each rank (--compress %s)\n",
		        (unsigned long long)res->syncs, (unsigned long long)res->sync_bytes, cli_compress_str(o, cz, sizeof cz));
	char dz[160] = "";
	if (res->damped)
		snprintf(dz, sizeof dz, "; %d frequent feature%s scaled down at flushes, where the workers' changes "
		         "together would overshoot", res->damped, res->damped == 1 ? "" : "s");
	if (res->mode == HOG_MODE_BUFFERED)
		fprintf(stderr, "hogwild: buffered mode kept %d hot coordinates per worker%s\n", res->hot, dz);
	if (res->mode == HOG_MODE_REPLICA)
		fprintf(stderr, "hogwild: replica mode averaged the bias and %d features at flushes, summed "
		        "the rest%s%s\n", res->hot, dz, res->node_replicas > 1 ? ", through the node replicas" : "");
}

int cmd_train(int argc0, char **argv0)
{
	struct option lopts[80];
	cli_opt_getopt(CLI_TRAIN, lopts, 80);

	int argc;
	char **argv;
	int rc = cli_config_expand("train", lopts, argc0, argv0, &argc, &argv);
	if (rc)
		return rc;
	hog_train_opts o;
	cli_train_opts_init(&o);
	train_args t = { .diagnostics = -1 };
	cli_train_args *a = &t.a;
	if ((rc = parse_args(argc, argv, lopts, &o, &t)) >= 0) {
		cli_config_free(argc, argv);
		return rc;
	}
	cli_task_loss(&o, a->data, &a->given, "train", a->quiet);
	uint64_t small = 0; /* the training set's nonzeros, where an epoch of them is small */
	if (!a->mode) { /* the model's fastest measured mode for the set's shape; plain Hogwild! is --mode lockfree */
		hog_meta hm;
		const int known = cli_data_meta(a->data, &hm);
		o.mode = hog_train_default_mode_data(&o, t.stream, known ? &hm : NULL);
		/* a set whose epoch takes well under a millisecond gains nothing from
		 * threads, and each worker's shorter run of steps costs accuracy
		 * (bench/results/default-mode.md: a 435-row set 7-14% above serial's
		 * test loss at 2 threads, in either mode): say so */
		if (known)
			small = cli_small_epoch(&hm);
		/* one worker: serial, whose --average sums every example's iterate; the
		 * parallel modes' machinery would only coarsen it (replica's average,
		 * taken at its flushes, left a 20,000-row set at test loss 0.477 against
		 * serial's 0.456 after 2 epochs, the iterates the same) */
		if (o.threads == 1 && cli_small_serial_fits(&o, &a->given)) /* (--grid, --shards...: the parallel default) */
			o.mode = HOG_MODE_SERIAL;
	}
	if (o.resume && !o.checkpoint)
		o.checkpoint = o.resume; /* keep checkpointing where we resumed from */
	rc = 0;
	if (t.stream && a->given.on[OPT_SHUFFLE_CHUNK - OPT_FIRST])
		rc = cli_usage_error("train", NULL, "--shuffle-chunk does not apply with --stream, whose epochs visit the "
		                     "set's blocks in a random order and each block's examples in a random order");
	else if (t.diagnostics > 0 && !t.metrics) /* (measured, each epoch a pause, then written nowhere) */
		rc = cli_usage_error("train", NULL, "--diagnostics: its figures go to --metrics FILE, which is not given "
		                     "(the table does not show them)");
	else if (t.stream && t.vfrac > 0)
		rc = cli_usage_error("train", NULL, "--validation %s: a fraction of the training set needs it loaded; with "
		                     "--stream give a validation data set (data split makes one)", t.validation);
	if (rc || (rc = cli_train_refuse(CLI_TRAIN, &o, cli_opt_train_modes(&o), &a->given))) {
		cli_config_free(argc, argv);
		return rc;
	}
	if ((rc = cli_mpi_start("train"))) {
		cli_config_free(argc, argv);
		return rc;
	}
	const int rank = hog_mpi_rank(), ranks = hog_mpi_size();
	if (rank)
		a->quiet = 1;
	/* options that change nothing in this run: said, not silently dropped */
	if (!a->quiet && o.mode == HOG_MODE_SERIAL && o.threads > 1)
		fprintf(stderr, "hogwild train: note: --mode serial runs one thread: --threads %d does not apply\n", o.threads);
	if (!a->quiet && o.no_shuffle && o.mode == HOG_MODE_SERIAL && a->given.on[OPT_SEED - OPT_FIRST] &&
	    hog_train_kind(&o) == HOG_MODEL_LINEAR) /* (the weights start at 0: nothing else is drawn) */
		fprintf(stderr, "hogwild train: note: the linear model in serial mode with --no-shuffle draws nothing: "
		        "--seed %llu does not apply\n", (unsigned long long)o.seed);
	hog_meta dm;
	if (!a->quiet && o.mode == HOG_MODE_DETERMINISTIC && hog_train_kind(&o) == HOG_MODEL_MLP &&
	    cli_data_meta(a->data, &dm)) { /* (synchronous steps: fewer of them an epoch than serial's) */
		const int S = o.shards ? o.shards : eng_det_shards(dm.examples);
		const unsigned B = o.mlp.batch ? o.mlp.batch : 32;
		if (S > 1)
			fprintf(stderr, "hogwild train: note: deterministic mode steps on the %d shards' batches summed, %llu "
			        "examples a step (as serial --batch %llu would): %d times fewer steps an epoch than serial's, "
			        "which costs accuracy on a small set (a 9,000-row set: 86%% for serial's 95%%); more --epochs, "
			        "or fewer --shards\n", S, (unsigned long long)S * B, (unsigned long long)S * B, S);
	}
	if (o.resume && o.early_stop) /* (a warning: said with --quiet) */
		fprintf(stderr, "hogwild train: warning: --early-stop with --resume: the checkpoint holds the run's weights, "
		        "not its best epoch's model nor its count of epochs without improvement; both start over at the "
		        "resume, so the model handed back is the best of the epochs run from there (a straight run may "
		        "have kept an earlier one)\n");
	if (!a->quiet && o.no_shuffle && a->given.on[OPT_SHUFFLE_CHUNK - OPT_FIRST])
		fprintf(stderr, "hogwild train: note: --no-shuffle visits the examples in the set's order: --shuffle-chunk "
		        "does not apply\n");
	const int threads = o.threads ? o.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (small && o.mode != HOG_MODE_SERIAL && threads > 1) {
		if (!a->given.on[OPT_THREADS - OPT_FIRST] && cli_small_serial_fits(&o, &a->given)) {
			/* nor --threads: the set trains as one sequence. Threads save no
			 * time on it, and each worker's 1/T of the steps costs accuracy
			 * the more workers there are: scikit-learn's breast-cancer set
			 * (455 training rows, 30 features, 114 test rows), test loss,
			 * serial against 2 and 16 workers (on 2 cores): 0.163 / 0.178 /
			 * 0.364 after 5 epochs, 0.127 / 0.139 / 0.270 after 20, and
			 * 0.089-0.093 / 0.090-0.093 / 0.099-0.100 after --epochs auto's
			 * 603 (seeds 1-3) */
			o.mode = HOG_MODE_SERIAL;
			if (!a->quiet)
				fprintf(stderr, "hogwild train: note: %s is small (%llu nonzeros an epoch): trained as one "
				        "sequence (serial mode): %d workers would save no time on it and each take 1/%d of an "
				        "epoch's steps, which costs accuracy; --threads N or a --mode trains it in parallel\n",
				        a->data, (unsigned long long)small, threads, threads);
		} else if (!a->quiet)
			fprintf(stderr, "hogwild train: note: %s is small (%llu nonzeros an epoch): each of %d workers takes "
			        "1/%d of an epoch's steps, which costs accuracy on a set this small and saves no time; --mode "
			        "serial trains it as one sequence\n", a->data, (unsigned long long)small, threads, threads);
	}
	hog_meta lm; /* one label value: nothing to learn (a wrong --label-col, most often; a warning: said with --quiet) */
	if (!rank && cli_data_meta(a->data, &lm) && !lm.unlabelled && lm.examples > 1 &&
	    lm.kind != HOG_KIND_RATINGS && lm.label_min == lm.label_max)
		fprintf(stderr, "hogwild train: warning: every label of %s is %g: the model learns nothing but that "
		        "(was the label column chosen right? data import --label-col)\n", a->data, lm.label_min);
	if (o.model == HOG_MODEL_MLP && o.mlp.nlayers == 0 && !a->given.on[OPT_LAYERS - OPT_FIRST] && !a->quiet)
		/* (the mlp's default is no hidden layer: said, as a user asking for an
		 * MLP may not expect a linear model -- on Fashion-MNIST 84.4% after 20
		 * epochs, 86-88% with --layers 128 after 10) */
		fprintf(stderr, "hogwild train: note: --model mlp without --layers has no hidden layer: it trains a linear "
		        "model (softmax regression for classes); --layers 128 adds a hidden layer of 128 ReLUs\n");
	else if (o.model == HOG_MODEL_MLP && mlp_momentum_default(&o) && !a->quiet) /* (said, as the README says) */
		fprintf(stderr, "hogwild train: note: momentum 0.9, the mlp's default with hidden layers and sgd "
		        "(--momentum 0 turns it off)\n");
	const char *save = t.save;
	/* the noise scale and the nonzeros: what --metrics writes, unless told not to */
	o.diagnostics = t.diagnostics < 0 ? t.metrics != NULL : t.diagnostics;
	if (!a->quiet && o.measure_delay && (o.mode == HOG_MODE_REPLICA || o.mode == HOG_MODE_DETERMINISTIC))
		fprintf(stderr, "hogwild train: note: --measure-delay: %s mode's workers read private copies, so there is "
		        "no delay between a read and a write to sample (compare --modes lockfree,... shows the others')\n",
		        hog_mode_name(o.mode));
	train_ui ui = { .quiet = a->quiet || !cli_progress_wanted(0), .o = &o, .metrics_path = t.metrics,
	                .validation = t.validation != NULL };
	hog_data *tr = NULL, *held = NULL, *te = NULL;
	cli_held hs = { 0 }, fin = { 0 };
	/* the held-out set read a chunk at a time: with --stream, or when it would
	 * not fit (a --validation fraction is cut from the loaded training set) */
	const char *heldp = t.validation ? (t.vfrac > 0 ? NULL : t.validation) : a->test;
	int streamed = 0;
	if ((rc = check_files(&t, &o, rank, &ui)))
		goto out;
	if ((streamed = cli_held_wanted("train", heldp, t.stream && heldp)))
		ui.held = &hs;
	if ((rc = load_sets(&t, &o, &tr, &held, &te, &hs, streamed, &fin)))
		goto out;
	if (streamed)
		o.test_eval = held_eval;
	ui.threads = train_threads(&o);
	o.on_epoch = on_epoch;
	o.on_progress = on_progress;
	o.on_note = on_note;
	o.ud = &ui;
	o.stop = cli_stop_flag();
	cli_catch_signals();
	hog_model *m = NULL;
	hog_train_result res;
	hog_err err = { 0 };
	hog_train_opts shown = o;
	if (!shown.threads)
		shown.threads = 1;
	/* one copy of the data in memory: the trainer rearranges it and frees it */
	o.save = save; /* its space reserved before the first epoch (rank 0 writes it) */
	int trc = t.stream ? hog_train_stream(a->data, held, &o, &m, &res, &err)
	                   : hog_train_consume(tr, held, &o, &m, &res, &err);
	tr = NULL;
	shown.threads = res.threads ? res.threads : 1;
	if (rank)
		save = NULL;
	if ((trc == 0 || trc == HOG_EINTR) && rank == 0)
		report_run(&res, &o, trc, ranks, m);
	if (trc == 0 && rank == 0 && (rc = report_heldout(&t, &o, &res, m, te, &fin, ui.metrics))) {
		/* (said; the model is still saved) */
	}
	if (trc == 0 && save && m && save_model(m, save)) {
		rc = 1;
	} else if (trc == HOG_EINTR) {
		if (rank == 0)
			fprintf(stderr, "hogwild: %s\n", err.msg);
		int sig = *cli_stop_flag();
		rc = save_stopped(m, save, &o, &res, 128 + (sig ? sig : SIGINT));
	} else if (trc == HOG_EDIVERGED) {
		cli_fail(&err, trc);
		rc = save_diverged(m, save, &o, rank);
	} else if (trc) {
		rc = cli_fail(&err, trc);
	} else if (save) {
		fprintf(stderr, "hogwild: model saved to %s\n", save);
	}
	if (trc == 0 && rank == 0 && res.checkpoint_failures) { /* (each said as it failed; the run went on) */
		fprintf(stderr, "hogwild train: %d checkpoint%s of %s could not be written (said above): the run finished, "
		        "but a resume would go on from an older one\n", res.checkpoint_failures,
		        res.checkpoint_failures == 1 ? "" : "s", o.checkpoint);
		if (rc == 0)
			rc = 1;
	}
	hog_model_free(m);
	if (save)
		hog_model_unreserve(save); /* (used up by a save; left by a run that saved nothing) */
out:
	if (ui.metrics && (fclose(ui.metrics) != 0 || ui.metrics_errno)) {
		int e = ui.metrics_errno ? ui.metrics_errno : errno;
		fprintf(stderr, "hogwild train: --metrics %s: %s; the metrics log is incomplete\n", t.metrics,
		        strerror(e ? e : EIO));
		if (rc == 0)
			rc = 1;
	}
	hog_data_free(tr);
	hog_data_free(held);
	hog_data_free(te);
	cli_held_close(&hs, "train", a->data, a->quiet || rank);
	if (fin.c)
		cli_held_close(&fin, "train", a->data, a->quiet || rank);
	cli_config_free(argc, argv);
	hog_mpi_finish();
	return rc;
}
