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
	"usage: hogwild eval --model FILE --data D.lmdb [--json] [--confusion]\n"
	"Evaluates a saved model: loss, and for binary labels log loss, accuracy and AUC;\n"
	"for multiclass labels log loss and accuracy; for regression and ratings (mf models)\n"
	"RMSE and MAE.\n"
	"      --model FILE   model written by hogwild train --save (required)\n"
	"      --data D.lmdb  data set (required)\n"
	"      --json         one JSON object instead of text\n"
	"      --confusion    multiclass: also the confusion matrix (rows: true class,\n"
	"                     columns: predicted)\n"
	"  -h, --help         this text\n";

static const char predict_usage[] =
	"usage: hogwild predict --model FILE --data D.lmdb [--out FILE] [--labels|--probabilities]\n"
	"Writes one prediction per example: the margin w.x+b (default), the predicted\n"
	"label (-1/+1) or the probability of the positive class (logistic models).\n"
	"Multiclass models write the class (default, or --labels) or, with\n"
	"--probabilities, the classes' probabilities separated by spaces; mf models:\n"
	"the predicted rating of each (user, item) of a ratings set.\n"
	"      --model FILE      model written by hogwild train --save (required)\n"
	"      --data D.lmdb     data set (required)\n"
	"      --out FILE        write here, atomically (default: standard output)\n"
	"      --labels          print -1/+1 labels\n"
	"      --probabilities   print sigmoid(margin)\n"
	"  -h, --help            this text\n";

static int load_both(const char *cmd, const char *model, const char *data, hog_model **m, hog_data **d)
{
	hog_err err = { 0 };
	int rc;
	if (!model || !data)
		return cli_usage_error(cmd, NULL, "--model and --data are both required");
	if (cli_check_input(cmd, "--model", model) || cli_check_input(cmd, "--data", data))
		return 1;
	if ((rc = hog_model_load(m, model, &err)))
		return cli_fail(&err, rc);
	if ((rc = hog_data_load(d, data, &err))) {
		hog_model_free(*m);
		return cli_fail(&err, rc);
	}
	return 0;
}

int cmd_eval(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "model", required_argument, NULL, 'm' }, { "data", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' }, { "confusion", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *model = NULL, *data = NULL;
	int json = 0, confusion = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'm': model = optarg; break;
		case 'd': data = optarg; break;
		case 'j': json = 1; break;
		case 'C': confusion = 1; break;
		case 'h': fputs(eval_usage, stdout); return 0;
		case ':': return cli_usage_error("eval", eval_usage, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error("eval", eval_usage, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("eval", eval_usage, "unexpected argument '%s'", argv[optind]);
	hog_model *m;
	hog_data *d;
	int rc = load_both("eval", model, data, &m, &d);
	if (rc)
		return rc;
	hog_eval ev;
	hog_err err = { 0 };
	hog_model_info info;
	hog_model_info_get(m, &info);
	uint64_t *cm = NULL;
	const uint32_t C = info.classes;
	if (confusion && C < 2) {
		rc = cli_usage_error("eval", NULL, "--confusion: the %s model is not multiclass", hog_model_kind_name(info.kind));
		goto done;
	}
	if (confusion && !(cm = malloc((size_t)C * C * sizeof *cm))) {
		fprintf(stderr, "hogwild: out of memory\n");
		rc = 1;
		goto done;
	}
	if ((rc = hog_model_eval(m, d, &ev, &err)) || (cm && (rc = hog_model_confusion(m, d, cm, &err)))) {
		rc = cli_fail(&err, rc);
	} else if (json) {
		printf("{\"examples\":%llu", (unsigned long long)ev.examples);
		cli_json_num(stdout, "loss", ev.loss, 1);
		cli_json_num(stdout, "logloss", ev.logloss, 1);
		cli_json_num(stdout, "accuracy", ev.accuracy, 1);
		cli_json_num(stdout, "auc", ev.auc, 1);
		cli_json_num(stdout, "rmse", ev.rmse, 1);
		cli_json_num(stdout, "mae", ev.mae, 1);
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
		printf("examples   %llu\nloss       %.6f (%s)\n", (unsigned long long)ev.examples, ev.loss,
		       hog_loss_name(info.loss));
		if (ev.classes)
			printf("logloss    %.6f\naccuracy   %.4f%%\nclasses    %u\n", ev.logloss, 100 * ev.accuracy, ev.classes);
		else if (d->meta.task == HOG_TASK_BINARY)
			printf("logloss    %.6f\naccuracy   %.4f%%\nauc        %.6f\n", ev.logloss, 100 * ev.accuracy, ev.auc);
		else
			printf("rmse       %.6f\nmae        %.6f\n", ev.rmse, ev.mae);
		if (cm) {
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
	hog_model_free(m);
	hog_data_free(d);
	return rc;
}

int cmd_predict(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "model", required_argument, NULL, 'm' }, { "data", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' }, { "labels", no_argument, NULL, 'l' },
		{ "probabilities", no_argument, NULL, 'p' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *model = NULL, *data = NULL, *out = NULL;
	int what = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1) {
		switch (c) {
		case 'm': model = optarg; break;
		case 'd': data = optarg; break;
		case 'o': out = optarg; break;
		case 'l': what = 1; break;
		case 'p': what = 2; break;
		case 'h': fputs(predict_usage, stdout); return 0;
		case ':': return cli_usage_error("predict", predict_usage, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error("predict", predict_usage, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("predict", predict_usage, "unexpected argument '%s'", argv[optind]);
	hog_model *m;
	hog_data *d;
	int rc;
	if (out && ((rc = cli_check_output("predict", "--out", out, 0)) || (rc = cli_check_replace("predict", "--out", out, 0))))
		return rc;
	if ((rc = load_both("predict", model, data, &m, &d)))
		return rc;
	hog_model_info info;
	hog_model_info_get(m, &info);
	if (what && info.kind == HOG_MODEL_MF) {
		hog_model_free(m);
		hog_data_free(d);
		return cli_usage_error("predict", predict_usage, "--labels and --probabilities are for linear and "
		                       "mlp models; a %s model predicts ratings", hog_model_kind_name(info.kind));
	}
	const uint32_t C = info.classes; /* multiclass: classes, else 0 */
	float *mg = malloc((d->n * (C && what == 2 ? C : 1) + 1) * sizeof *mg);
	hog_err err = { 0 };
	char tmp[4200] = "";
	int slot = -1;
	FILE *f = stdout;
	if (!mg) {
		rc = 1;
		fprintf(stderr, "hogwild: out of memory\n");
		goto done;
	}
	if ((rc = C && what == 2 ? hog_model_predict_proba(m, d, mg, &err) : hog_model_predict(m, d, mg, &err))) {
		rc = cli_fail(&err, rc);
		goto done;
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
	for (uint64_t i = 0; i < d->n; i++) {
		if (C && what == 2)
			for (uint32_t j = 0; j < C; j++)
				fprintf(f, "%.6g%c", mg[i * C + j], j + 1 == C ? '\n' : ' ');
		else if (C)
			fprintf(f, "%.0f\n", mg[i]);
		else if (what == 1)
			fputs(mg[i] > 0 ? "1\n" : "-1\n", f);
		else if (what == 2)
			fprintf(f, "%.6g\n", 1.0 / (1.0 + exp(-(double)mg[i])));
		else
			fprintf(f, "%.9g\n", mg[i]);
		if ((i & 4095) == 4095 && ferror(f))
			break; /* a full disk or a reader gone: no point in writing the rest */
	}
	errno = 0;
	if (fflush(f) != 0 || ferror(f) || (out && fsync(fileno(f)) != 0)) {
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
	free(mg);
	hog_model_free(m);
	hog_data_free(d);
	return rc;
}
