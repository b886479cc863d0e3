/* Training options shared by train and compare (see train_opts.h), data loading
 * for them, and the signal handlers that ask a run to stop cleanly. */
#include "cli/train_opts.h"
#include "data/store.h"
#include "sys/mpi.h"
#include "train/engine.h" /* eng_class_weights_parse */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

void cli_train_opts_init(hog_train_opts *o)
{
	hog_train_opts_init(o);
	o->linear.average = 1;
	o->loss_from_task = 1; /* until --loss is given */
	o->epochs = 0;         /* auto: 20, more for small sets (bench/results/accuracy.md) */
	o->backoff = 0;        /* 0.9, or --epochs auto's for a small set (run_opts.c, epochs_auto) */
	o->mlp.momentum_auto = 1;  /* mlp with hidden layers, sgd: 0.9 until --momentum is given */
	o->normalize = HOG_NORMALIZE_AUTO; /* raw scales work as given (bench/results/accuracy.md) */
	/* mf: the global mean and user and item biases, until --biases=off. Without
	 * them MovieLens latest-small (10% held out, the defaults otherwise) ended
	 * at test RMSE 0.873 at 2 threads, behind a model of the biases alone
	 * (0.856, ridge, lambda 3); with them 0.847 */
	o->mf.biases = 1;
}

static int bad(const char *cmd, const char *opt, const char *arg, const char *want)
{
	return cli_usage_error(cmd, NULL, "--%s: '%s' is not %s", opt, arg, want);
}

/* "B", "auto" (from 32 up to 1024) or "auto:MIN:MAX". */
static int parse_batch(const char *cmd, const char *arg, hog_train_opts *o)
{
	const char *want = "a batch size 1..65536, auto or auto:MIN:MAX";
	long l;
	o->mlp.batch_auto = 0;
	if (strncmp(arg, "auto", 4) != 0) {
		if (cli_parse_int(arg, 1, 65536, &l)) return bad(cmd, "batch", arg, want);
		o->mlp.batch = (uint32_t)l;
		return 0;
	}
	o->mlp.batch_auto = 1;
	o->mlp.batch = 32;
	o->mlp.batch_max = 1024;
	if (!arg[4])
		return 0;
	char lo[16], hi[16], extra;
	if (sscanf(arg + 4, ":%15[^:]:%15[^:]%c", lo, hi, &extra) != 2) return bad(cmd, "batch", arg, want);
	long a, b;
	if (cli_parse_int(lo, 1, 65536, &a) || cli_parse_int(hi, 1, 65536, &b) || b < a)
		return bad(cmd, "batch", arg, "auto:MIN:MAX with 1 <= MIN <= MAX <= 65536");
	o->mlp.batch = (uint32_t)a;
	o->mlp.batch_max = (uint32_t)b;
	return 0;
}

/* "256,256": hidden widths; "" or "none": no hidden layer. */
static int parse_layers(const char *cmd, const char *arg, hog_train_opts *o)
{
	o->mlp.nlayers = 0;
	if (!*arg || !strcmp(arg, "none"))
		return 0;
	char buf[256];
	const size_t n = strlen(arg);
	if (n >= sizeof buf || arg[0] == ',' || arg[n - 1] == ',' || strstr(arg, ",,")) /* (strtok took "32,,8" for 32,8) */
		return bad(cmd, "layers", arg, "a list of widths such as 256,256");
	strcpy(buf, arg);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long w;
		if (o->mlp.nlayers == 8 || cli_parse_int(t, 1, 65535, &w))
			return bad(cmd, "layers", arg, "up to 8 comma-separated widths 1..65535");
		o->mlp.layers[o->mlp.nlayers++] = (uint32_t)w;
	}
	return 0;
}

#define NOT_MINE (-1) /* a group helper's answer for another group's option */

/* The data, the model, its loss, the mode and the run's machinery. */
static int run_option(const char *cmd, int c, const char *arg, hog_train_opts *o, cli_train_args *a)
{
	long l;
	uint64_t u;
	int e;
	switch (c) {
	case OPT_DATA: a->data = arg; break;
	case OPT_TEST: a->test = arg; break;
	case OPT_MODEL:
		if ((e = hog_model_kind_parse(arg)) < 0)
			return bad(cmd, "model", arg, "linear, mf or mlp");
		if (!hog_model_kind_built((enum hog_model_kind)e))
			return cli_usage_error(cmd, NULL, "--model %s: not built in this version", arg);
		o->model = (enum hog_model_kind)e;
		a->model = arg;
		break;
	case OPT_LOSS:
		if ((e = hog_loss_parse(arg)) < 0) return bad(cmd, "loss", arg, "logistic, hinge, squared or softmax");
		o->loss = (enum hog_loss)e;
		o->loss_from_task = 0;
		break;
	case OPT_MODE:
		if ((e = hog_mode_parse(arg)) < 0) {
			char all[160] = "";
			for (int m = 0; m < HOG_MODE_ALL; m++)
				snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", m == 0 ? "" :
				         m == HOG_MODE_ALL - 1 ? " or " : ", ", hog_mode_name((enum hog_mode)m));
			return bad(cmd, "mode", arg, all);
		}
		o->mode = (enum hog_mode)e;
		a->mode = arg;
		break;
	case OPT_THREADS:
		if (cli_parse_int(arg, 0, 4096, &l)) return bad(cmd, "threads", arg, "a thread count 0..4096 (0: every core)");
		o->threads = (int)l;
		break;
	case OPT_EPOCHS:
		if (!strcmp(arg, "auto")) { o->epochs = 0; break; }
		if (cli_parse_int(arg, 1, 1000000, &l)) return bad(cmd, "epochs", arg, "a count 1..1000000, or auto");
		o->epochs = (int)l;
		break;
	case OPT_BIND:
		if ((e = hog_bind_parse(arg)) < 0) return bad(cmd, "bind", arg, "core, numa or none");
		o->bind = (enum hog_bind)e;
		break;
	case OPT_SEED:
		if (cli_parse_u64(arg, 0, UINT64_MAX, &u)) return bad(cmd, "seed", arg, "an unsigned integer");
		o->seed = u;
		break;
	case OPT_MEASURE_DELAY: o->measure_delay = 1; break;
	case OPT_AVERAGE:
		if (strcmp(arg, "on") && strcmp(arg, "off")) return bad(cmd, "average", arg, "on or off");
		o->linear.average = !strcmp(arg, "on");
		break;
	case OPT_NORMALIZE:
		if (!arg || !strcmp(arg, "on")) o->normalize = HOG_NORMALIZE_ON;
		else if (!strcmp(arg, "off")) o->normalize = HOG_NORMALIZE_OFF;
		else if (!strcmp(arg, "auto")) o->normalize = HOG_NORMALIZE_AUTO;
		else return bad(cmd, "normalize", arg, "on, off or auto (write --normalize=off)");
		break;
	case OPT_TOPOLOGY: o->topology = arg; break;
	case OPT_QUIET: a->quiet = 1; break;
	case OPT_STRICT: a->strict = 1; break;
	case OPT_CONFIG: break; /* expanded before parsing */
	default: return NOT_MINE;
	}
	return 0;
}

/* The step: size, schedule, regularization, rule. */
static int step_option(const char *cmd, int c, const char *arg, hog_train_opts *o)
{
	double d;
	uint64_t u;
	int e;
	switch (c) {
	case OPT_LR:
		if (cli_parse_double(arg, 0, 1e9, &d) || !(d > 0)) return bad(cmd, "lr", arg, "a positive step size, at most 1e9");
		o->lr = d;
		break;
	case OPT_SCHEDULE:
		if ((e = hog_sched_parse(arg)) < 0) return bad(cmd, "schedule", arg, "constant, backoff or invt");
		o->sched = (enum hog_sched)e;
		break;
	case OPT_BACKOFF:
		if (cli_parse_double(arg, 0, 1, &d) || !(d > 0)) return bad(cmd, "backoff", arg, "a factor in (0, 1]");
		o->backoff = d;
		break;
	case OPT_T0:
		if (cli_parse_double(arg, 0, 1e18, &d) || !(d > 0)) return bad(cmd, "t0", arg, "a positive number of examples, at most 1e18");
		o->t0 = d;
		break;
	case OPT_LR_SCALE:
		if (!strcmp(arg, "none")) o->lr_scale = HOG_LR_SCALE_NONE;
		else if (!strcmp(arg, "linear")) o->lr_scale = HOG_LR_SCALE_LINEAR;
		else if (!strcmp(arg, "sqrt")) o->lr_scale = HOG_LR_SCALE_SQRT;
		else return bad(cmd, "lr-scale", arg, "none, linear or sqrt");
		break;
	case OPT_WARMUP:
		if (cli_parse_u64(arg, 0, UINT64_MAX, &u)) return bad(cmd, "warmup", arg, "a number of examples");
		o->warmup = u;
		break;
	case OPT_L2:
		if (cli_parse_double(arg, 0, 1e9, &d)) return bad(cmd, "l2", arg, "a number 0..1e9");
		o->l2 = d;
		break;
	case OPT_CLASS_WEIGHT: {
		/* the syntax now; the classes against the training set when it is read */
		char why[200];
		if (eng_class_weights_parse(arg, 0, 0, NULL, NULL, why, sizeof why)) /* (the classes: the set's, later) */
			return bad(cmd, "class-weight", arg, "balanced or CLASS=WEIGHT,... (a weight a finite number > 0)");
		o->class_weight = arg;
		break;
	}
	case OPT_L1:
		if (cli_parse_double(arg, 0, 1e9, &d)) return bad(cmd, "l1", arg, "a number 0..1e9");
		o->linear.l1 = d;
		break;
	case OPT_OPTIMIZER:
		if ((e = hog_rule_parse(arg)) < 0) return bad(cmd, "optimizer", arg, "sgd, adagrad, adarevision, adam or adamw");
		o->rule = (enum hog_rule)e;
		break;
	case OPT_ADAGRAD_BETA:
		if (cli_parse_double(arg, 0, 1e9, &d) || !(d > 0)) return bad(cmd, "adagrad-beta", arg, "a positive number, at most 1e9");
		o->adagrad_beta = d;
		break;
	default: return NOT_MINE;
	}
	return 0;
}

/* The update modes' own options (linear's, and the mlp's --flush-every). */
static int mode_option(const char *cmd, int c, const char *arg, hog_train_opts *o)
{
	long l;
	switch (c) {
	case OPT_DELAY:
		if (cli_parse_int(arg, 0, 1 << 20, &l)) return bad(cmd, "delay", arg, "a count 0..1048576");
		o->delay = (int)l;
		break;
	case OPT_HOT:
		if (cli_parse_int(arg, 0, 1 << 24, &l)) return bad(cmd, "hot", arg, "a count of coordinates 0..16777216");
		o->linear.hot = (int)l;
		break;
	case OPT_FLUSH_EVERY:
		if (cli_parse_int(arg, 1, 1 << 24, &l)) return bad(cmd, "flush-every", arg, "a count 1..16777216");
		o->flush_every = (int)l;
		break;
	case OPT_SHARDS:
		if (cli_parse_int(arg, 1, 65536, &l)) return bad(cmd, "shards", arg, "a count 1..65536");
		o->shards = (int)l;
		break;
	case OPT_NODE_SYNC:
		if (!strcmp(arg, "off"))
			l = -1;
		else if (cli_parse_int(arg, 1, 1 << 24, &l))
			return bad(cmd, "node-sync", arg, "off or a count 1..16777216");
		o->linear.node_sync = (int)l;
		break;
	case OPT_STRIPE_SIZE:
		if (cli_parse_int(arg, 1, 1 << 20, &l) || (l & (l - 1))) return bad(cmd, "stripe-size", arg, "a power of two 1..1048576");
		o->linear.stripes = (int)l;
		break;
	default: return NOT_MINE;
	}
	return 0;
}

/* The options of one model: mf (--rank, --biases, --grid), the mlp (--layers, --batch,
 * --momentum, --device), and MPI's --sync-every and --no-shuffle. */
static int model_option(const char *cmd, int c, const char *arg, hog_train_opts *o)
{
	long l;
	double d;
	uint64_t u;
	switch (c) {
	case OPT_RANK:
		if (cli_parse_int(arg, 1, 4096, &l)) return bad(cmd, "rank", arg, "a rank 1..4096");
		o->mf.rank = (uint32_t)l;
		break;
	case OPT_BIASES:
		if (!arg || !strcmp(arg, "on") || !strcmp(arg, "yes") || !strcmp(arg, "true") || !strcmp(arg, "1"))
			o->mf.biases = 1;
		else if (!strcmp(arg, "off") || !strcmp(arg, "no") || !strcmp(arg, "false") || !strcmp(arg, "0"))
			o->mf.biases = 0;
		else
			return bad(cmd, "biases", arg, "on or off (write --biases=off)");
		break;
	case OPT_GRID:
		if (cli_parse_int(arg, 0, 65535, &l)) return bad(cmd, "grid", arg, "a block count per side 0..65535 (0: 2 * threads + 1)");
		o->mf.grid = (uint32_t)l;
		break;
	case OPT_SYNC_EVERY:
		if (!hog_mpi_built())
			return cli_usage_error(cmd, NULL, "--sync-every: %s", hog_mpi_missing());
		if (cli_parse_u64(arg, 1, UINT32_MAX, &u)) return bad(cmd, "sync-every", arg, "a number of examples");
		o->sync_every = u;
		break;
	case OPT_COMPRESS: {
		char why[128];
		int scheme;
		if (!hog_mpi_built())
			return cli_usage_error(cmd, NULL, "--compress: %s", hog_mpi_missing());
		if (cmp_parse(arg, &scheme, &o->compress_rank, &o->compress_frac, why, sizeof why))
			return bad(cmd, "compress", arg, why);
		o->compress = scheme;
		break;
	}
	case OPT_NO_SHUFFLE: o->no_shuffle = 1; break;
	case OPT_SHUFFLE_CHUNK:
		if (cli_parse_int(arg, 1, 1 << 20, &l)) return bad(cmd, "shuffle-chunk", arg, "a chunk of 1..1048576 examples");
		o->shuffle_chunk = (uint32_t)l;
		break;
	case OPT_LAYERS: return parse_layers(cmd, arg, o);
	case OPT_BATCH: return parse_batch(cmd, arg, o);
	case OPT_ADAM_BETA1:
	case OPT_ADAM_BETA2:
		if (cli_parse_double(arg, 0, 1, &d) || !(d < 1))
			return bad(cmd, c == OPT_ADAM_BETA1 ? "adam-beta1" : "adam-beta2", arg, "a decay in [0, 1)");
		*(c == OPT_ADAM_BETA1 ? &o->mlp.adam_beta1 : &o->mlp.adam_beta2) = d;
		break;
	case OPT_LARS:
		if (cli_parse_double(arg, 0, 1e3, &d)) return bad(cmd, "lars", arg, "a trust coefficient 0..1000");
		o->mlp.lars = d;
		break;
	case OPT_ADAM_EPS:
		if (cli_parse_double(arg, 0, 1, &d) || !(d > 0)) return bad(cmd, "adam-eps", arg, "a number in (0, 1]");
		o->mlp.adam_eps = d;
		break;
	case OPT_MOMENTUM:
		if (cli_parse_double(arg, 0, 1, &d) || !(d < 1)) return bad(cmd, "momentum", arg, "a momentum in [0, 1)");
		o->mlp.momentum = d;
		o->mlp.momentum_auto = 0;
		break;
	case OPT_DEVICE: o->mlp.device = arg; break; /* (opened by cli_train_refuse, once the model is known) */
	default: return NOT_MINE;
	}
	return 0;
}

int cli_train_option(const char *cmd, int c, const char *arg, hog_train_opts *o, cli_train_args *a)
{
	int rc = run_option(cmd, c, arg, o, a);
	if (rc == NOT_MINE)
		rc = step_option(cmd, c, arg, o);
	if (rc == NOT_MINE)
		rc = mode_option(cmd, c, arg, o);
	if (rc == NOT_MINE)
		rc = model_option(cmd, c, arg, o);
	return rc == NOT_MINE ? cli_usage_error(cmd, NULL, "unknown option") : rc;
}

int cli_data_meta(const char *data, hog_meta *m)
{
	hog_data *h = NULL;
	hog_err err = { 0 };
	if (!data || hog_data_load_header(&h, data, &err))
		return 0;
	*m = h->meta;
	hog_data_free(h);
	return 1;
}

void cli_task_loss(hog_train_opts *o, const char *data, const cli_given *given, const char *cmd, int quiet)
{
	hog_data *h = NULL;
	hog_err err = { 0 };
	const int model_given = given->on[OPT_MODEL - OPT_FIRST];
	if ((!o->loss_from_task && model_given) || !data || hog_data_load_header(&h, data, &err))
		return; /* (a set that cannot be read is refused when it is loaded, with its message) */
	if (!model_given && h->meta.kind == HOG_KIND_RATINGS && o->model != HOG_MODEL_MF) {
		o->model = HOG_MODEL_MF;
		if (!quiet)
			fprintf(stderr, "hogwild %s: model mf (matrix factorization), for the ratings of %s (--model "
			        "chooses)\n", cmd, data);
	}
	if (!o->loss_from_task) {
		hog_data_free(h);
		return;
	}
	if (h->meta.task == HOG_TASK_MULTICLASS)
		o->loss = HOG_LOSS_SOFTMAX;
	else if (h->meta.task == HOG_TASK_REGRESSION || h->meta.task == HOG_TASK_RATINGS)
		o->loss = HOG_LOSS_SQUARED;
	hog_data_free(h);
}

int cli_train_refuse(unsigned cmd, const hog_train_opts *o, unsigned modes, const cli_given *given)
{
	char msg[512];
	const char *name = cmd == CLI_TRAIN ? "train" : cmd == CLI_TUNE ? "tune" : "compare";
	if (cli_opt_check(cmd, o, modes, given, msg, sizeof msg) >= 0)
		return cli_usage_error(name, NULL, "%s", msg);
	/* the loss the labels chose (cli_task_loss): regression values for the mlp, which
	 * fits classes -- refused before the notes of a run that would not start */
	if (o->model == HOG_MODEL_MLP && o->loss == HOG_LOSS_SQUARED && !given->on[OPT_LOSS - OPT_FIRST])
		return cli_usage_error(name, NULL, "--model mlp takes binary or multiclass labels (the logistic or "
		                       "softmax loss); the data set's are regression values: --model linear fits them "
		                       "(the squared loss)");
	/* --device opened once here, after the model it applies to is known (an mf
	 * run given --device cuda is told so, not that no GPU answers): a device
	 * this build or machine lacks is a usage error now, not a failure after the
	 * data set has loaded */
	hog_backend *b;
	hog_err err = { 0 };
	if (o->mlp.device && given->on[OPT_DEVICE - OPT_FIRST]) {
		if (hog_backend_open(&b, o->mlp.device, 0, &err))
			return cli_usage_error(name, NULL, "--device %s: %s", o->mlp.device, err.msg);
		hog_backend_close(b);
	}
	return 0;
}

int cli_load_data(const char *cmd, const cli_train_args *a, hog_data **tr, hog_data **te, int quiet)
{
	hog_err err = { 0 };
	int rc;
	*tr = *te = NULL;
	if (!a->data)
		return cli_usage_error(cmd, NULL, "--data is required (a data set made by 'hogwild data import' or 'gen')");
	if (!quiet && cli_progress_wanted(0))
		fprintf(stderr, "loading %s...", a->data);
	if ((rc = hog_data_load(tr, a->data, &err)))
		return cli_fail(&err, rc);
	if (a->test && (rc = hog_data_load(te, a->test, &err))) {
		hog_data_free(*tr);
		*tr = NULL;
		return cli_fail(&err, rc);
	}
	if (!quiet && cli_progress_wanted(0))
		fputs("\r\033[K", stderr);
	if (cli_refuse_unlabelled(cmd, a->data, *tr) || (*te && cli_refuse_unlabelled(cmd, a->test, *te))) {
		hog_data_free(*tr);
		hog_data_free(*te);
		*tr = *te = NULL;
		return 1;
	}
	if (*te && (rc = cli_match_test(cmd, *tr, a->data, *te, a->test, quiet, a->strict))) {
		hog_data_free(*tr);
		hog_data_free(*te);
		*tr = *te = NULL;
	}
	return rc;
}

/* A test set cut from the training set's own input by another run of the split
 * (a split run twice, or killed between its two renames), or the training set's
 * own half, may hold training examples (the pair ids in the halves' meta,
 * hog_split_id_get, which a loaded set and a model keep). */
int cli_split_overlap(const char *cmd, const char *an, const char *ax, const char *ao, const char *tn, const char *tx,
                      const char *to, int strict)
{
	hog_split_id x, y;
	const char *how = strict ? "--strict: refused:" : "warning:";
	const int xs = ax && !hog_split_id_parse(ax, &x), ys = tx && !hog_split_id_parse(tx, &y);
	/* the set a half was cut from, on the other side: most of it, or all, is the other's */
	if (xs && to && to[0] && !strcmp(x.from, to)) {
		fprintf(stderr, "hogwild %s: %s the held-out set %s is the set %s was cut from (its half %c): it holds "
		        "the training examples; test on the split's other half%s\n", cmd, how, tn, an, x.part,
		        strict ? "" : " (--strict refuses it)");
		return strict;
	}
	if (ys && ao && ao[0] && !strcmp(y.from, ao)) {
		fprintf(stderr, "hogwild %s: %s the held-out set %s is a half (%c) of the training set %s itself: every "
		        "one of its examples is a training example; train on the split's other half%s\n", cmd, how, tn,
		        y.part, an, strict ? "" : " (--strict refuses it)");
		return strict;
	}
	if (!xs || !ys || strcmp(x.from, y.from))
		return 0;
	if (strcmp(x.pair, y.pair))
		fprintf(stderr, "hogwild %s: %s %s and %s are halves of two different splits of one data set (pair ids %s "
		        "and %s): the test set may hold training examples; train and test on the two halves of one split%s\n",
		        cmd, how, an, tn, x.pair, y.pair, strict ? "" : " (--strict refuses them)");
	else if (x.part == y.part)
		fprintf(stderr, "hogwild %s: %s %s and %s are the same half (%c) of one split: the test set holds the "
		        "training examples%s\n", cmd, how, an, tn, x.part, strict ? "" : " (--strict refuses them)");
	else
		return 0;
	return strict;
}

int cli_same_set(const char *cmd, const char *an, const hog_meta *am, const char *tn, const hog_meta *tm, int strict)
{
	const int file = cli_same_file(an, tn);
	/* (a copy: what the header counts is the same, down to the labels' sum; the source names the input) */
	const int copy = am->examples == tm->examples && am->nnz == tm->nnz && am->features == tm->features &&
	                 am->label_sum == tm->label_sum && am->label_min == tm->label_min &&
	                 am->label_max == tm->label_max && am->weight_sum == tm->weight_sum &&
	                 !strcmp(am->source, tm->source);
	if (!file && !copy)
		return 0;
	const char *how = strict ? "--strict: refused:" : "warning:";
	if (file)
		fprintf(stderr, "hogwild %s: %s the held-out set %s is the training set %s itself: its figures are the fit "
		        "to the training examples, not a test%s\n", cmd, how, tn, an, strict ? "" : " (--strict refuses it)");
	else
		fprintf(stderr, "hogwild %s: %s the held-out set %s holds what the training set %s holds (as many examples "
		        "and nonzeros, the same labels' sum, from the same source %.80s): its figures are likely the fit to "
		        "the training examples, not a test%s\n", cmd, how, tn, an, am->source,
		        strict ? "" : " (--strict refuses it)");
	return strict;
}

int cli_match_test(const char *cmd, const hog_data *tr, const char *trn, hog_data *te, const char *ten, int quiet,
                   int strict)
{
	hog_err err = { 0 };
	hog_data *head = NULL;
	hog_data_ref ref;
	hog_data_fit fit;
	int rc = tr ? 0 : hog_data_load_header(&head, trn, &err); /* a streamed training set */
	if (!rc) {
		hog_data_ref_of(tr ? tr : head, &ref);
		rc = hog_data_reconcile(te, ten, &ref, trn, &fit, &err);
		hog_data_ref_free(&ref);
	}
	/* (a warning: said even with --quiet) */
	const int refused = !rc && (cli_split_overlap(cmd, trn, (tr ? tr : head)->split, (tr ? tr : head)->origin, ten,
	                                              te->split, te->origin, strict) |
	                            cli_same_set(cmd, trn, &(tr ? tr : head)->meta, ten, &te->meta, strict));
	hog_data_free(head);
	if (rc)
		return cli_fail(&err, rc);
	if (refused)
		return 1;
	if (!quiet)
		cli_fit_note(cmd, &fit, te, ten, trn);
	return 0;
}

void cli_fit_note(const char *cmd, const hog_data_fit *fit, const hog_data *d, const char *dn, const char *rn)
{
	if (fit->unseen)
		fprintf(stderr, "hogwild %s: note: %llu of %llu ratings of %s have a user or item that %s has no rating "
		        "of (%llu such users, %llu such items): predicted as the training mean, plus the known side's bias "
		        "where the model has biases\n",
		        cmd, (unsigned long long)fit->unseen, (unsigned long long)d->n, dn, rn,
		        (unsigned long long)fit->new_users, (unsigned long long)fit->new_items);
	/* most of the values on features the model never had: another data set
	 * (a new user's 30-column breast-cancer model scored a9a's 123 features,
	 * 31% accuracy, with a note) */
	const int most = d->meta.nnz && fit->extra_nnz * 2 > d->meta.nnz;
	if (fit->extra_features)
		fprintf(stderr, "hogwild %s: %s: %s has %llu feature%s that %s lacks (%llu nonzero%s%s): "
		        "scored as zero weight%s\n", cmd, most ? "warning" : "note", dn,
		        (unsigned long long)fit->extra_features, fit->extra_features == 1 ? "" : "s", rn,
		        (unsigned long long)fit->extra_nnz, fit->extra_nnz == 1 ? "" : "s",
		        most ? ", most of its values" : "", most ? "; is it the kind of data the model was trained on?" : "");
	if (fit->narrow)
		fprintf(stderr, "hogwild %s: warning: %s has %llu features, most of them in every row, and %s %llu: its "
		        "features are matched by their ids, its columns by position; is it the kind of data the model was "
		        "trained on?\n", cmd, dn, (unsigned long long)d->dim, rn, (unsigned long long)fit->narrow);
	if (fit->relabelled)
		fprintf(stderr, "hogwild %s: note: %s's labels look binary but %s's are regression values: read as "
		        "regression values\n", cmd, dn, rn);
}

uint64_t cli_small_epoch(const hog_meta *m)
{
	return (m->kind == HOG_KIND_SPARSE || m->kind == HOG_KIND_DENSE) && m->nnz < ((uint64_t)1 << 17)
	       ? (m->nnz ? m->nnz : 1) : 0;
}

int cli_small_serial_fits(const hog_train_opts *o, const cli_given *given)
{
	hog_train_opts s = *o;
	char msg[512];
	s.mode = HOG_MODE_SERIAL;
	return (hog_model_kind_modes(o->model) >> HOG_MODE_SERIAL & 1u) &&
	       cli_opt_check(CLI_TRAIN, &s, cli_opt_train_modes(&s), given, msg, sizeof msg) < 0;
}

int cli_mpi_start(const char *cmd)
{
	const char *np = getenv("OMPI_COMM_WORLD_SIZE");
	if (!hog_mpi_launched())
		return 0;
	if (!hog_mpi_built()) {
		if (np && strcmp(np, "1"))
			return cli_usage_error(cmd, NULL, "started by mpirun as %s ranks, but each would train alone: %s",
			                       np, hog_mpi_missing());
		return 0;
	}
	hog_err err = { 0 };
	int rc = hog_mpi_start(&err);
	return rc ? cli_fail(&err, rc) : 0;
}

static volatile int stop_flag;
volatile int *cli_stop_flag(void) { return &stop_flag; }

static void on_signal(int sig)
{
	__atomic_store_n(&stop_flag, sig, __ATOMIC_RELAXED); /* read by the workers */
}

void cli_catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
