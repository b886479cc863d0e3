/* hogwild eval and hogwild predict: use a saved model on a data set. */
#include "cli/cli.h"
#include "sys/err.h"
#include "sys/file.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char eval_usage[] =
	"usage: hogwild eval --model FILE --data D.lmdb [--json] [--confusion] [--strict]\n"
	"                    [--stream]\n"
	"Evaluates a saved model: loss, and for binary labels log loss, accuracy and AUC;\n"
	"for multiclass labels log loss and accuracy; for regression and ratings (mf models)\n"
	"RMSE and MAE. A ratings set's users and items are matched to the model's by\n"
	"the ids of the files imported; ratings of users or items the model lacks are\n"
	"counted (unseen), as are a sparse set's features beyond the model's (zero\n"
	"weight).\n"
	"      --model FILE   model written by hogwild train --save (required)\n"
	"      --data D.lmdb  data set (required)\n"
	"      --json         one JSON object instead of text\n"
	"      --confusion    multiclass: also the confusion matrix (rows: true class,\n"
	"                     columns: predicted)\n"
	"      --strict       refuse (exit 1) a data set that may hold the model's\n"
	"                     training examples: a half of another split of its\n"
	"                     training set's input, or that set's own half (off: a\n"
	"                     warning)\n"
	"      --stream       read the set a chunk at a time (8 MB decoded), not whole:\n"
	"                     the same figures in bounded memory; automatic when the\n"
	"                     set would take over half the memory available\n"
	"  -h, --help         this text\n";

static const char predict_usage[] =
	"usage: hogwild predict --model FILE (--data D.lmdb | --pairs FILE) [--out FILE]\n"
	"                       [--labels|--probabilities] [--stream]\n"
	"Writes one prediction per example: the margin w.x+b (default), the predicted\n"
	"label (-1/+1, or 0/1 as the training set's) or the probability of the\n"
	"positive class (logistic models).\n"
	"Multiclass models write the class (default, or --labels) or, with\n"
	"--probabilities, the classes' probabilities separated by spaces; mf models:\n"
	"'user item rating' per line, the ids as in the files imported (a test set's\n"
	"ids are matched to the model's by these original ids).\n"
	"      --model FILE      model written by hogwild train --save (required)\n"
	"      --data D.lmdb     data set\n"
	"      --pairs FILE      mf: score the 'user item' pairs of this text file, one\n"
	"                        a line (more fields are ignored)\n"
	"      --out FILE        write here, atomically (default: standard output); an\n"
	"                        existing FILE is replaced only if empty or predictions\n"
	"      --labels          print the labels: -1/+1, or 0/1 where the training\n"
	"                        set's were, or the classes' names (classifiers)\n"
	"      --probabilities   print sigmoid(margin) (the logistic loss); multiclass:\n"
	"                        each class's probability, in the classes' order (said\n"
	"                        on stderr)\n"
	"      --stream          read --data a chunk at a time (8 MB decoded), not whole:\n"
	"                        the same output in bounded memory; automatic when the\n"
	"                        set would take over half the memory available\n"
	"  -h, --help            this text\n";

/* Loads the model and the data set and puts the set in the model's terms
 * (hog_model_prepare: its ids, labels; a set that cannot fit is refused here,
 * naming both files), telling what did not fit on standard error. */
static int prepare(const char *cmd, const char *model, const char *data, hog_model **m, hog_data **d,
                   hog_data_fit *fit)
{
	hog_err err = { 0 };
	int rc = hog_model_prepare(*m, *d, data, model, fit, &err);
	if (rc) {
		hog_model_free(*m);
		hog_data_free(*d);
		return cli_fail(&err, rc);
	}
	cli_fit_note(cmd, fit, *d, data, model);
	return 0;
}

static int load_model(const char *cmd, const char *model, hog_model **m)
{
	hog_err err = { 0 };
	int rc;
	if (cli_check_input(cmd, "--model", model))
		return 1;
	if ((rc = hog_model_load(m, model, &err)))
		return cli_fail(&err, rc);
	return 0;
}

static int load_data(const char *cmd, const char *data, hog_model **m, hog_data **d)
{
	hog_err err = { 0 };
	int rc;
	if (cli_check_input(cmd, "--data", data)) {
		hog_model_free(*m);
		return 1;
	}
	if ((rc = hog_data_load(d, data, &err))) {
		hog_model_free(*m);
		return cli_fail(&err, rc);
	}
	return 0;
}

static int load_both(const char *cmd, const char *model, const char *data, hog_model **m, hog_data **d,
                     hog_data_fit *fit)
{
	int rc;
	if (!model || !data)
		return cli_usage_error(cmd, NULL, "--model and --data are both required");
	if ((rc = load_model(cmd, model, m)) || (rc = load_data(cmd, data, m, d)))
		return rc;
	if (cli_refuse_unlabelled(cmd, data, *d)) { /* (eval's: predict takes such a set) */
		hog_model_free(*m);
		hog_data_free(*d);
		return 1;
	}
	return prepare(cmd, model, data, m, d, fit);
}

/* predict reads no labels, so a set's are left out of its match with the
 * model, as an unlabelled set's are (it takes the model's task): a class the
 * model lacks (a new user's iris file with the species the model never saw),
 * or whole numbers read as classes beside a regression model, refused eval's
 * figures and predict's predictions alike. */
static void labels_unread(hog_data *d)
{
	if (d->meta.kind == HOG_KIND_RATINGS || d->meta.unlabelled)
		return;
	d->meta.unlabelled = 1;
	d->meta.classes = 0;
	free(d->class_names);
	d->class_names = NULL;
	if (d->labels)
		memset(d->labels, 0, d->n * sizeof *d->labels);
}

/* ------------------------------------------------------------ streamed */

/* Whether to read @p data a chunk at a time: asked (*stream), or the set would
 * not fit (cli_stream_auto(), which says so). Returns 0 or an exit code. */
static int want_stream(const char *cmd, const char *data, int *stream)
{
	hog_data *h;
	hog_err err = { 0 };
	if (*stream || !data)
		return 0;
	if (cli_check_input(cmd, "--data", data))
		return 1;
	if (hog_data_load_header(&h, data, &err))
		return 0; /* (refused when it is loaded, with its message) */
	*stream = cli_stream_auto(cmd, data, &h->meta);
	hog_data_free(h);
	return 0;
}

/* Opens @p data for chunks and matches its header to the model (*x; the
 * chunks are matched one by one as they are read). Frees *m on failure. */
static int open_stream(const char *cmd, const char *model, const char *data, hog_model **m, hog_chunks **c,
                       hog_data_match **x)
{
	hog_err err = { 0 };
	int rc = 0;
	*c = NULL;
	*x = NULL;
	if (cli_check_input(cmd, "--data", data))
		rc = 1;
	else if ((rc = hog_chunks_open(c, data, 0, &err)) != 0)
		rc = cli_fail(&err, rc);
	else if (hog_chunks_resize(*c, cli_chunk_examples(&hog_chunks_header(*c)->meta)), 0)
		rc = 1;
	else if (strcmp(cmd, "predict") && cli_refuse_unlabelled(cmd, data, hog_chunks_header(*c)))
		rc = 1;
	else {
		if (!strcmp(cmd, "predict"))
			labels_unread(hog_chunks_header(*c));
		if ((rc = hog_model_match(*m, *c, data, model, x, &err)) != 0)
			rc = cli_fail(&err, rc);
	}
	if (rc) {
		hog_chunks_close(*c);
		hog_model_free(*m);
		*c = NULL;
	}
	return rc;
}

/* hog_model_eval() (and hog_model_confusion() into @p cm) over the chunks. */
static int eval_chunks(const hog_model *m, hog_chunks *c, hog_data_match *x, hog_eval *ev, uint64_t *cm,
                       hog_err *err)
{
	hog_eval_acc *a;
	hog_data *d;
	int rc = hog_model_eval_begin(m, hog_chunks_header(c), cm != NULL, &a, err);
	while (!rc && !(rc = hog_chunks_next(c, &d, err)) && d) {
		hog_data_match_chunk(x, d);
		rc = hog_model_eval_add(a, d, err);
	}
	hog_model_eval_end(a, rc ? NULL : ev, rc ? NULL : cm);
	return rc;
}

/* ------------------------------------------------------------ pairs */

/* One field of a pairs line: an original id (an unsigned integer below 2^63). */
static int pair_id(const char *s, size_t n, uint64_t *v)
{
	char buf[32];
	if (n == 0 || n >= sizeof buf || s[0] == '-' || s[0] == '+')
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(buf, &end, 10);
	if (errno || *end || x >= (1ull << 63))
		return -1;
	*v = x;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The distinct values of v[k], v[k+2], ... (n of them), sorted, into *ids; each
 * one's rank into dense[]. Returns how many, or UINT64_MAX when out of memory. */
static uint64_t pairs_dense(const uint64_t *v, uint64_t n, int k, uint64_t **ids, uint32_t *dense)
{
	uint64_t *u = malloc((n + 1) * sizeof *u), c = 0;
	if (!(*ids = u))
		return UINT64_MAX;
	for (uint64_t j = 0; j < n; j++)
		u[j] = v[2 * j + k];
	qsort(u, n, sizeof *u, cmp_u64);
	for (uint64_t j = 0; j < n; j++)
		if (!c || u[j] != u[c - 1])
			u[c++] = u[j];
	for (uint64_t j = 0; j < n; j++) {
		uint64_t lo = 0, hi = c, x = v[2 * j + k];
		while (hi - lo > 1)
			(u[lo + (hi - lo) / 2] <= x ? (lo = lo + (hi - lo) / 2) : (hi = lo + (hi - lo) / 2));
		dense[j] = (uint32_t)lo;
	}
	return c;
}

/* Reads "user item" lines (blank, ',', ';', ':' or tab separated; more fields
 * are ignored: a ratings file works) into the raw pairs *raw (user, item, ...)
 * and a ratings set of them, whose id maps hold those ids when the model has
 * maps (hog_model_prepare then maps them) or whose dense ids are the ids. A
 * first line with no number is a header; '#' starts a comment line. */
static int read_pairs(const char *path, const hog_model *m, hog_data **out, uint64_t **raw, hog_err *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return hog_err_set(err, errno, "--pairs %s: %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0, vcap = 0;
	uint64_t n = 0, lineno = 0, *v = NULL;
	int rc = 0;
	uint64_t nids;
	const int maps = hog_model_ids(m, 0, &nids) != NULL;
	while (!rc && getline(&line, &cap, f) >= 0) {
		lineno++;
		const char *p = line, *sep = " \t,;:\r\n\""; /* ('"': "1","47", a QUOTE_ALL file's ids) */
		p += strspn(p, sep);
		if (!*p || *p == '#')
			continue;
		uint64_t id[2];
		size_t l0 = strcspn(p, sep);
		const char *q = p + l0 + strspn(p + l0, sep);
		size_t l1 = strcspn(q, sep);
		int bad0 = pair_id(p, l0, &id[0]), bad1 = l1 ? pair_id(q, l1, &id[1]) : -1;
		if (lineno == 1 && bad0 && bad1 && !(*p >= '0' && *p <= '9'))
			continue; /* a header */
		if (!l1) {
			rc = hog_err_set(err, HOG_EDATA, "%s:%llu: one field ('%.*s'); a line is 'USER ITEM', two ids", path,
			                 (unsigned long long)lineno, l0 > 40 ? 40 : (int)l0, p);
			break;
		}
		if (bad0 || bad1 || (!maps && (id[0] >= UINT32_MAX || id[1] >= UINT32_MAX))) {
			const size_t bl = bad0 ? l0 : l1;
			rc = hog_err_set(err, HOG_EDATA, "%s:%llu: '%.*s' is not %s id (an unsigned integer below 2^%d)", path,
			                 (unsigned long long)lineno, bl > 40 ? 40 : (int)bl, bad0 ? p : q,
			                 bad0 ? "a user" : "an item", maps ? 63 : 32);
			break;
		}
		if (2 * n + 2 > vcap) {
			vcap = vcap ? 2 * vcap : 4096;
			uint64_t *nv = realloc(v, vcap * sizeof *v);
			if (!nv) {
				rc = hog_err_set(err, ENOMEM, "--pairs %s: out of memory", path);
				break;
			}
			v = nv;
		}
		v[2 * n] = id[0];
		v[2 * n + 1] = id[1];
		n++;
	}
	if (!rc && ferror(f))
		rc = hog_err_set(err, errno ? errno : EIO, "--pairs %s: %s", path, errno ? strerror(errno) : "read error");
	else if (!rc && !n) /* (nothing written and exit 0 was all a header-only file got) */
		rc = hog_err_set(err, HOG_EDATA, "--pairs %s: no 'USER ITEM' pairs in it%s", path,
		                 lineno ? " (a first line of no ids is a header)" : "");
	free(line);
	fclose(f);
	hog_data *d = rc ? NULL : calloc(1, sizeof *d);
	if (!rc && (!d || !(d->users = malloc(n * 4 + 4)) || !(d->items = malloc(n * 4 + 4)) ||
	            !(d->ratings = calloc(n + 1, 4))))
		rc = hog_err_set(err, ENOMEM, "--pairs %s: out of memory", path);
	if (!rc) {
		d->meta.kind = HOG_KIND_RATINGS;
		d->meta.task = HOG_TASK_RATINGS;
		d->meta.examples = d->n = n;
		snprintf(d->meta.source, sizeof d->meta.source, "%.200s", path);
		if (maps) {
			d->meta.users = pairs_dense(v, n, 0, &d->user_ids, d->users);
			d->meta.items = pairs_dense(v, n, 1, &d->item_ids, d->items);
			if (d->meta.users == UINT64_MAX || d->meta.items == UINT64_MAX)
				rc = hog_err_set(err, ENOMEM, "--pairs %s: out of memory", path);
		} else {
			for (uint64_t j = 0; j < n; j++) {
				d->users[j] = (uint32_t)v[2 * j];
				d->items[j] = (uint32_t)v[2 * j + 1];
				d->meta.users = d->users[j] >= d->meta.users ? d->users[j] + 1ull : d->meta.users;
				d->meta.items = d->items[j] >= d->meta.items ? d->items[j] + 1ull : d->meta.items;
			}
		}
	}
	if (rc) {
		hog_data_free(d);
		free(v);
		return rc;
	}
	*out = d;
	*raw = v;
	return 0;
}

/* A ratings set's original (user, item) per rating, before its ids are mapped
 * to a model's: from its id maps, or its dense ids when it has none. NULL for
 * other sets (and when out of memory: the output then has no ids). */
static uint64_t *raw_pairs(const hog_data *d, const uint64_t *user_ids, const uint64_t *item_ids)
{
	uint64_t *v = d->users ? malloc((2 * d->n + 1) * sizeof *v) : NULL;
	for (uint64_t j = 0; v && j < d->n; j++) {
		v[2 * j] = user_ids ? user_ids[d->users[j]] : d->users[j];
		v[2 * j + 1] = item_ids ? item_ids[d->items[j]] : d->items[j];
	}
	return v;
}

/* @p v with six decimals, or in six significant digits below 1e-3 (a loss of
 * targets near 1e-4 read "0.000000"). */
static const char *fixed6(char buf[32], double v)
{
	snprintf(buf, 32, fabs(v) >= 1e-3 || v == 0 || !isfinite(v) ? "%.6f" : "%.6g", v);
	return buf;
}

int cmd_eval(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "model", required_argument, NULL, 'm' }, { "data", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' }, { "confusion", no_argument, NULL, 'C' },
		{ "strict", no_argument, NULL, 'S' }, { "help", no_argument, NULL, 'h' },
		{ "stream", no_argument, NULL, 's' }, { NULL, 0, NULL, 0 },
	};
	const char *model = NULL, *data = NULL;
	int json = 0, confusion = 0, strict = 0, stream = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'm': model = optarg; break;
		case 'd': data = optarg; break;
		case 'j': json = 1; break;
		case 'C': confusion = 1; break;
		case 'S': strict = 1; break;
		case 's': stream = 1; break;
		case 'h': fputs(eval_usage, stdout); return 0;
		case ':': return cli_usage_error("eval", eval_usage, "%s needs a value", argv[optind - 1]);
		default: return cli_unknown_option("eval", eval_usage, lo, argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("eval", eval_usage, "unexpected argument '%s'", argv[optind]);
	hog_model *m;
	hog_data *d, *own = NULL;
	hog_data_fit fit;
	hog_chunks *ch = NULL;
	hog_data_match *x = NULL;
	int rc = model && data ? want_stream("eval", data, &stream) : 0;
	if (rc)
		return rc;
	if (stream && model && data) {
		if ((rc = load_model("eval", model, &m)) || (rc = open_stream("eval", model, data, &m, &ch, &x)))
			return rc;
		d = hog_chunks_header(ch);
	} else if ((rc = load_both("eval", model, data, &m, &d, &fit)) != 0) {
		return rc;
	} else {
		own = d;
	}
	hog_eval ev;
	hog_err err = { 0 };
	hog_model_info info;
	hog_model_info_get(m, &info);
	uint64_t *cm = NULL;
	const uint32_t C = info.classes;
	char trained[4200];
	snprintf(trained, sizeof trained, "%s's training set", model);
	if (cli_split_overlap("eval", trained, info.split, NULL, data, d->split, d->origin, strict)) {
		rc = 1;
		goto done;
	}
	/* a squared-loss model fits values: one that does not say what it trained
	 * on (an older file) cannot tell whether labels read as binary, 0 and 1
	 * say, are classes (as -1/+1) or values, so it does not guess */
	if (info.loss == HOG_LOSS_SQUARED && !info.task && d->meta.task == HOG_TASK_BINARY &&
	    !(fabs(d->meta.label_min) == 1 && fabs(d->meta.label_max) == 1)) {
		fprintf(stderr, "hogwild eval: %s is a squared-loss model that does not record its training labels' task "
		        "(an older model file), and %s's labels (%g to %g) were read as binary classes: import %s again "
		        "with --task regression to evaluate its values (RMSE, MAE)\n", model, data, d->meta.label_min,
		        d->meta.label_max, data);
		rc = 1;
		goto done;
	}
	if (confusion && C < 2) {
		rc = cli_usage_error("eval", NULL, "--confusion: the %s model is not multiclass", hog_model_kind_name(info.kind));
		goto done;
	}
	if (confusion && !(cm = malloc((size_t)C * C * sizeof *cm))) {
		fprintf(stderr, "hogwild: out of memory\n");
		rc = 1;
		goto done;
	}
	if (ch) {
		rc = eval_chunks(m, ch, x, &ev, cm, &err);
		hog_data_match_end(x, &fit);
		x = NULL;
		if (!rc)
			cli_fit_note("eval", &fit, d, data, model);
	} else {
		rc = hog_model_eval(m, d, &ev, &err);
		if (!rc && cm)
			rc = hog_model_confusion(m, d, cm, &err);
	}
	/* a hinge or squared-loss classifier's margin is no probability: no log loss of it (predict refuses
	 * --probabilities of it alike) */
	if (!rc && !ev.classes && info.loss != HOG_LOSS_LOGISTIC && info.loss != HOG_LOSS_SOFTMAX)
		ev.logloss = NAN; /* (softmax of two classes: its margin's logistic is the class probability) */
	if (rc) {
		rc = cli_fail(&err, rc);
	} else if (json) {
		printf("{\"examples\":%llu", (unsigned long long)ev.examples);
		cli_json_num(stdout, "loss", ev.loss, 1);
		cli_json_num(stdout, "logloss", ev.logloss, 1);
		cli_json_num(stdout, "accuracy", ev.accuracy, 1);
		cli_json_num(stdout, "auc", ev.auc, 1);
		cli_json_num(stdout, "rmse", ev.rmse, 1);
		cli_json_num(stdout, "mae", ev.mae, 1);
		printf(",\"unseen\":%llu,\"extra_features\":%llu", (unsigned long long)fit.unseen,
		       (unsigned long long)fit.extra_features);
		if (cli_linear_nonzeros(&info) >= 0)
			printf(",\"nonzeros\":%lld", (long long)cli_linear_nonzeros(&info));
		if (ev.classes)
			printf(",\"classes\":%u", ev.classes);
		if (cm) {
			fputs(",\"confusion\":[", stdout);
			for (uint32_t t = 0; t < C; t++)
				for (uint32_t p = 0; p < C; p++)
					printf("%s%s%llu%s", p ? "," : t ? ",[" : "[", "", (unsigned long long)cm[(size_t)t * C + p],
					       p + 1 == C ? "]" : "");
			putchar(']');
		}
		puts("}");
	} else {
		char f6[3][32]; /* (six decimals, or six digits where they would read 0.000000: targets near 1e-4) */
		printf("examples   %llu\nloss       %s (%s%s)\n", (unsigned long long)ev.examples, fixed6(f6[0], ev.loss),
		       hog_loss_name(info.loss), info.loss == HOG_LOSS_SQUARED ? ": half the mean squared error" : "");
		char auc[64] = "-- (one class: no AUC)"; /* (JSON: null) */
		if (!isnan(ev.auc))
			snprintf(auc, sizeof auc, "%.6f", ev.auc);
		if (ev.classes)
			printf("logloss    %.6f\naccuracy   %.4f%%\nclasses    %u\n", ev.logloss, 100 * ev.accuracy, ev.classes);
		else if (d->meta.task == HOG_TASK_BINARY && isnan(ev.logloss))
			printf("accuracy   %.4f%%\nauc        %s\n", 100 * ev.accuracy, auc);
		else if (d->meta.task == HOG_TASK_BINARY)
			printf("logloss    %.6f\naccuracy   %.4f%%\nauc        %s\n", ev.logloss, 100 * ev.accuracy, auc);
		else
			printf("rmse       %s\nmae        %s\n", fixed6(f6[1], ev.rmse), fixed6(f6[2], ev.mae));
		if (fit.unseen || d->meta.task == HOG_TASK_RATINGS)
			printf("unseen     %llu (ratings of users or items the model has not trained)\n", (unsigned long long)fit.unseen);
		if (cli_linear_nonzeros(&info) >= 0)
			printf("nonzeros   %lld of the model's %llu weights (the bias excluded)\n",
			       (long long)cli_linear_nonzeros(&info), (unsigned long long)info.dim);
		if (fit.extra_features)
			printf("extra      %llu features the model lacks (%llu nonzeros, zero weight)\n",
			       (unsigned long long)fit.extra_features, (unsigned long long)fit.extra_nnz);
		if (cm) {
			char names[240];
			if (info.class_names)
				printf("names      %s\n", cli_class_list(names, sizeof names, info.class_names));
			printf("confusion (rows: true class, columns: predicted)\n%6s", "");
			for (uint32_t p = 0; p < C; p++)
				printf(" %7u", p);
			putchar('\n');
			for (uint32_t t = 0; t < C; t++) {
				printf("%6u", t);
				for (uint32_t p = 0; p < C; p++)
					printf(" %7llu", (unsigned long long)cm[(size_t)t * C + p]);
				putchar('\n');
			}
		}
	}
done:
	free(cm);
	hog_data_match_end(x, NULL);
	hog_chunks_close(ch);
	hog_model_free(m);
	hog_data_free(own);
	return rc;
}

/* Class @p k as the training set named it (@p names; @p at, where each of
 * its @p K names starts, or NULL), or its number. */
static void put_class(FILE *f, const char *names, const char *const *at, uint32_t K, uint32_t k,
                      const char *number)
{
	size_t n = 0;
	const char *name = at ? (k < K ? at[k] : NULL) : names ? hog_class_name(names, k, &n) : NULL;
	if (name)
		fprintf(f, "%.*s\n", (int)(at ? strcspn(name, "\n") : n), name);
	else
		fputs(number, f);
}

/* One line per example: classes' probabilities, the class, "user item rating"
 * (@p raw: original ids), the label, the probability or the margin; a class
 * or label by its name where the training labels were names (@p names). */
static void write_predictions(FILE *f, const float *mg, uint64_t n, uint32_t C, int what, const uint64_t *raw,
                              const char *names, int neg_zero, int binary)
{
	char num[32];
	/* where each name starts, found once (hog_class_name() walks from the first;
	 * it serves where this cannot be had) */
	const uint32_t K = names && (C || what == 1) ? hog_class_count(names) : 0;
	const char **at = K ? malloc(K * sizeof *at) : NULL;
	for (uint32_t k = 0; at && k < K; k++)
		at[k] = k ? strchr(at[k - 1], '\n') + 1 : names;
	for (uint64_t i = 0; i < n; i++) {
		if (C && what == 2)
			for (uint32_t j = 0; j < C; j++)
				fprintf(f, "%.6g%c", mg[i * C + j], j + 1 == C ? '\n' : ' ');
		else if (C) { /* (softmax of a binary set without names: its labels, -1/+1 or 0/1, as logistic's) */
			if (binary && !K)
				snprintf(num, sizeof num, "%s\n", mg[i] > 0 ? "1" : neg_zero ? "0" : "-1");
			else
				snprintf(num, sizeof num, "%.0f\n", mg[i]);
			put_class(f, names, at, K, (uint32_t)mg[i], num);
		} else if (raw)
			fprintf(f, "%llu %llu %.9g\n", (unsigned long long)raw[2 * i], (unsigned long long)raw[2 * i + 1], mg[i]);
		else if (what == 1)
			put_class(f, names, at, K, mg[i] > 0, mg[i] > 0 ? "1\n" : neg_zero ? "0\n" : "-1\n");
		else if (what == 2)
			fprintf(f, "%.6g\n", 1.0 / (1.0 + exp(-(double)mg[i])));
		else
			fprintf(f, "%.9g\n", mg[i]);
		if ((i & 4095) == 4095 && ferror(f))
			break; /* a full disk or a reader gone: no point in writing the rest */
	}
	free(at);
}

int cmd_predict(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "model", required_argument, NULL, 'm' }, { "data", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' }, { "labels", no_argument, NULL, 'l' },
		{ "probabilities", no_argument, NULL, 'p' }, { "help", no_argument, NULL, 'h' },
		{ "pairs", required_argument, NULL, 'P' }, { "stream", no_argument, NULL, 's' }, { NULL, 0, NULL, 0 },
	};
	const char *model = NULL, *data = NULL, *out = NULL, *pairs = NULL;
	int what = 0, stream = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1) {
		switch (c) {
		case 'm': model = optarg; break;
		case 'd': data = optarg; break;
		case 'o': out = optarg; break;
		case 'l':
		case 'p':
			if (what && what != (c == 'l' ? 1 : 2))
				return cli_usage_error("predict", predict_usage, "--labels or --probabilities, not both");
			what = c == 'l' ? 1 : 2;
			break;
		case 'P': pairs = optarg; break;
		case 's': stream = 1; break;
		case 'h': fputs(predict_usage, stdout); return 0;
		case ':': return cli_usage_error("predict", predict_usage, "%s needs a value", argv[optind - 1]);
		default: return cli_unknown_option("predict", predict_usage, lo, argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("predict", predict_usage, "unexpected argument '%s'", argv[optind]);
	hog_model *m;
	hog_data *d = NULL;
	hog_data_fit fit;
	hog_err err = { 0 };
	hog_chunks *ch = NULL;
	hog_data_match *x = NULL;
	uint64_t *raw = NULL; /* ratings: the original (user, item) of each prediction */
	int rc;
	if (!model || !data == !pairs)
		return cli_usage_error("predict", predict_usage, !model  ? "--model is required"
		                                                 : data ? "--data or --pairs, not both"
		                                                        : "--data or --pairs is required");
	if (stream && pairs)
		return cli_usage_error("predict", predict_usage, "--stream reads --data; --pairs is read whole");
	if (out && ((rc = cli_check_output("predict", "--out", out, 0)) || (rc = cli_check_replace("predict", "--out", out, 0))))
		return rc;
	if ((rc = want_stream("predict", data, &stream)) || (rc = load_model("predict", model, &m)))
		return rc;
	hog_model_info info;
	hog_model_info_get(m, &info);
	const int mf = info.kind == HOG_MODEL_MF;
	if ((what && mf) || (pairs && !mf)) {
		hog_model_free(m);
		return cli_usage_error("predict", predict_usage, mf ? "--labels and --probabilities are for linear and "
		                       "mlp models; a %s model predicts ratings" : "--pairs is for mf models, not %s",
		                       hog_model_kind_name(info.kind));
	}
	const uint32_t C = info.classes; /* multiclass: classes, else 0 */
	/* classes from a model of values, probabilities from margins that are none: refused, as mf's are */
	const int values = info.task == HOG_TASK_REGRESSION || (!info.task && info.loss == HOG_LOSS_SQUARED);
	if (!mf && what && !C && (values || (what == 2 && info.loss != HOG_LOSS_LOGISTIC))) {
		hog_model_free(m);
		return cli_usage_error("predict", predict_usage,
		                       values ? "%s: %s was trained for regression (%s loss): it predicts values, not classes "
		                                "or their probabilities"
		                              : "%s: %s was trained with the %s loss, whose margin is no probability "
		                                "(--labels gives its classes; the logistic loss gives probabilities)",
		                       what == 1 ? "--labels" : "--probabilities", model, hog_loss_name(info.loss));
	}
	if (out && (rc = cli_check_predictions("predict", out, pairs, info.class_names))) {
		hog_model_free(m);
		return rc;
	}
	const uint64_t width = C && what == 2 ? C : 1;
	if (C && what == 2) { /* (which column is which class: the names in their order, else numbers) */
		char line[240];
		if (info.class_names)
			fprintf(stderr, "hogwild predict: a column a class, in this order: %s\n",
			        cli_class_list(line, sizeof line, info.class_names));
		else
			fprintf(stderr, "hogwild predict: a column a class, in this order: classes 0 .. %u\n", C - 1);
	}
	if (!C && what == 2 && info.class_names && hog_class_count(info.class_names) == 2) { /* (which class's) */
		size_t n0, n1;
		const char *c0 = hog_class_name(info.class_names, 0, &n0), *c1 = hog_class_name(info.class_names, 1, &n1);
		fprintf(stderr, "hogwild predict: the probability of class '%.*s' (against '%.*s')\n", (int)(n1 > 60 ? 60 : n1),
		        c1, (int)(n0 > 60 ? 60 : n0), c0);
	}
	float *mg = NULL;
	char tmp[4200] = "";
	int slot = -1;
	FILE *f = stdout;
	if (stream) {
		if ((rc = open_stream("predict", model, data, &m, &ch, &x)))
			return rc;
		d = hog_chunks_header(ch);
	} else {
		if (pairs ? (rc = read_pairs(pairs, m, &d, &raw, &err)) != 0 : (rc = load_data("predict", data, &m, &d)) != 0) {
			if (pairs) {
				hog_model_free(m);
				rc = cli_fail(&err, rc);
			}
			return rc;
		}
		if (!raw)
			raw = raw_pairs(d, d->user_ids, d->item_ids);
		labels_unread(d);
		if ((rc = prepare("predict", model, pairs ? pairs : data, &m, &d, &fit))) {
			free(raw);
			return rc;
		}
		if (!(mg = malloc((d->n * width + 1) * sizeof *mg))) {
			rc = 1;
			fprintf(stderr, "hogwild: out of memory\n");
			goto done;
		}
		if ((rc = C && what == 2 ? hog_model_predict_proba(m, d, mg, &err) : hog_model_predict(m, d, mg, &err))) {
			rc = cli_fail(&err, rc);
			goto done;
		}
	}
	if (out) {
		snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
		slot = hog_tmp_track(tmp);
		cli_catch_cleanup_signals(); /* a stop removes the temporary file */
		if (!(f = fopen(tmp, "w"))) {
			fprintf(stderr, "hogwild predict: --out %s: %s\n", out, strerror(errno));
			rc = 1;
			goto done;
		}
	}
	if (ch) {
		hog_data *k;
		uint64_t cap = 0;
		while (!rc && !(rc = hog_chunks_next(ch, &k, &err)) && k) {
			if (k->n * width + 1 > cap) {
				float *p = realloc(mg, (cap = k->n * width + 1) * sizeof *p);
				if (!p) {
					rc = hog_err_set(&err, ENOMEM, "out of memory");
					break;
				}
				mg = p;
			}
			free(raw);
			raw = raw_pairs(k, d->user_ids, d->item_ids); /* (before the ids become the model's) */
			hog_data_match_chunk(x, k);
			if ((rc = C && what == 2 ? hog_model_predict_proba(m, k, mg, &err) : hog_model_predict(m, k, mg, &err)))
				break;
			write_predictions(f, mg, k->n, C, what, raw, info.class_names, info.neg_zero,
			                  info.task == HOG_TASK_BINARY);
			if (ferror(f))
				break;
		}
		hog_data_match_end(x, &fit);
		x = NULL;
		if (rc)
			rc = cli_fail(&err, rc);
		else
			cli_fit_note("predict", &fit, d, data, model);
	} else {
		write_predictions(f, mg, d->n, C, what, raw, info.class_names, info.neg_zero,
		                  info.task == HOG_TASK_BINARY);
	}
	errno = 0;
	if (!rc && (fflush(f) != 0 || ferror(f) || (out && fsync(fileno(f)) != 0))) {
		int e = errno ? errno : EIO;
		if (!out && (e == EPIPE || cli_stdout_gone()))
			goto done; /* the reader (| head) had enough: quietly, like any filter */
		fprintf(stderr, "hogwild predict: %s: %s\n", out ? out : "standard output", strerror(e));
		rc = 1;
	}
	if (out) {
		if (fclose(f) != 0 && !rc) {
			fprintf(stderr, "hogwild predict: --out %s: %s\n", out, strerror(errno));
			rc = 1;
		}
		if (rc || rename(tmp, out) != 0) {
			if (!rc)
				fprintf(stderr, "hogwild predict: --out %s: %s\n", out, strerror(errno));
			unlink(tmp);
			rc = 1;
		} else {
			hog_fsync_dir(out);
		}
	}
done:
	hog_tmp_untrack(slot);
	free(raw);
	free(mg);
	hog_data_match_end(x, NULL);
	hog_chunks_close(ch);
	hog_model_free(m);
	if (!ch)
		hog_data_free(d);
	return rc;
}
