/* `hogwild model`: inspect and convert model files. Three subcommands: info
 * (what a model or checkpoint file holds: kind, loss, shapes, hyper-parameters,
 * the training set it came from), dump (the file as text, one record of
 * parameters a line with its raw id) and load (a dump back into a model file).
 * The text format is the model layer's (model/dump.c, hogwild(1)); this file
 * turns argv into calls and results into text, with the exit codes of every
 * command: 0 ok, 1 a data or run-time error, 2 a usage error. */
#include "cli/cli.h"
#include "model/model.h"
#include "sys/file.h"
#include "sys/names.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef unsigned long long ull;

static const char model_usage[] =
	"usage: hogwild model <subcommand> [options] ...\n"
	"\n"
	"subcommands:\n"
	"  info     what a model or checkpoint file holds\n"
	"  dump     write a model file as text, one record of parameters a line\n"
	"  load     rebuild a model file from its dump\n"
	"\n"
	"  hogwild model <subcommand> -h    options of a subcommand\n";

static const char info_usage[] =
	"usage: hogwild model info [--json] FILE\n"
	"\n"
	"What a model file (or a checkpoint) holds: its kind, loss, step rule and\n"
	"shapes, the hyper-parameters it was trained with, the epochs done, the task\n"
	"of its training set and what it kept of it (split id, id maps, column names),\n"
	"and the file's size; for a checkpoint, that it is one and where it stands.\n"
	"\n"
	"  -j, --json   one JSON object instead of text\n"
	"  -h, --help   this text\n";

static const char dump_usage[] =
	"usage: hogwild model dump [--out FILE] FILE\n"
	"\n"
	"Writes a model file (or a checkpoint) as text: a header of 'key value' lines\n"
	"(kind, loss, rule, shapes, hyper-parameters, the training set's task, ids,\n"
	"columns, label column, class names and split), then one record a line: linear 'FEATURE_ID WEIGHT' (LIBSVM\n"
	"ids, from 1) and 'bias B'; mf 'u USER F1..Fk', 'i ITEM F1..Fk', 'bu'/'bi' biases;\n"
	"mlp 'Wl ROW V1..Vn' and 'bl V1..Vn' per layer; the step rule's state after the\n"
	"weight (linear) or on lines of its own. Floats read back exactly: hogwild model\n"
	"load rebuilds the same file.\n"
	"\n"
	"  -o, --out FILE  write FILE atomically: FILE.tmp.PID, synced, then renamed\n"
	"                  (default: standard output)\n"
	"  -h, --help      this text\n";

static const char load_usage[] =
	"usage: hogwild model load DUMP OUT.model\n"
	"\n"
	"Rebuilds a model file from the text hogwild model dump wrote (edited or not):\n"
	"the same bytes as the file dumped. A line that does not fit its place is an\n"
	"error naming DUMP:LINE (exit 1); nothing is written then. OUT.model is written\n"
	"atomically and may replace a model of the same kind or an empty file only.\n"
	"\n"
	"  -h, --help   this text\n";

/* Parses options of a subcommand that takes @p want operands; *json and *out
 * may be NULL when the subcommand has no such option. Returns -1 to go on,
 * else the exit code. */
static int sub_opts(const char *cmd, const char *usage, int argc, char **argv, int want, int *json,
                    const char **out)
{
	static const struct option lo[] = {
		{ "json", no_argument, 0, 'j' }, { "out", required_argument, 0, 'o' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, ":jo:h", lo, NULL)) != -1) {
		const char *a = argv[optind - 1];
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		} else if (c == 'j' && json) {
			*json = 1;
		} else if (c == 'o' && out) {
			if (!*optarg)
				return cli_usage_error(cmd, usage, "--out: empty file name");
			*out = optarg;
		} else if (c == ':') {
			return cli_usage_error(cmd, usage, "option %s needs a value", a);
		} else {
			return cli_unknown_option(cmd, usage, lo, a);
		}
	}
	if (argc - optind != want)
		return cli_usage_error(cmd, usage, argc - optind < want ? "%s" : "unexpected argument '%s'",
		                       argc - optind < want ? (want == 1 ? "no model file given" : "a dump and an output "
		                       "file are both required") : argv[optind + want]);
	return -1;
}

/* ------------------------------------------------------------ info */

struct minfo {
	const char *path;
	uint64_t size;
	hog_model_info i;
	hog_ckpt ck;
};

/* The file's shapes (JSON members after the first). */
static void shape_json(const hog_model_info *i)
{
	switch (i->kind) {
	case HOG_MODEL_LINEAR:
		printf(",\"features\":%llu", (ull)i->dim);
		if (cli_linear_nonzeros(i) >= 0) /* (--l1's sparsity) */
			printf(",\"nonzeros\":%lld", (long long)cli_linear_nonzeros(i));
		break;
	case HOG_MODEL_MF:
		printf(",\"users\":%llu,\"items\":%llu,\"rank\":%u,\"biases\":%s", (ull)i->users, (ull)i->items, i->rank,
		       i->biases ? "true" : "false");
		cli_json_num(stdout, "mean", i->mean, 1);
		break;
	case HOG_MODEL_MLP:
		printf(",\"layers\":[%llu", (ull)i->dim);
		for (int l = 0; l < i->nlayers; l++)
			printf(",%u", i->layers[l]);
		printf(",%u],\"classes\":%u,\"sparse_input\":%s", i->classes ? i->classes : 1, i->classes,
		       i->sparse ? "true" : "false");
		cli_json_num(stdout, "momentum", i->momentum, 1);
		break;
	}
}

static void json_str_or_null(const char *key, const char *s)
{
	printf(",\"%s\":", key);
	if (s)
		cli_json_str(stdout, s);
	else
		fputs("null", stdout);
}

static void info_json(const struct minfo *f)
{
	const hog_model_info *i = &f->i;
	fputs("{\"file\":", stdout);
	cli_json_str(stdout, f->path);
	printf(",\"size\":%llu,\"kind\":\"%s\",\"loss\":\"%s\",\"rule\":\"%s\",\"schedule\":\"%s\"", (ull)f->size,
	       hog_model_kind_name(i->kind), hog_loss_name(i->loss), hog_rule_name(i->rule), hog_sched_name(i->sched));
	printf(",\"params\":%llu", (ull)i->params);
	shape_json(i);
	cli_json_num(stdout, "lr", i->lr, 1);
	cli_json_num(stdout, "l2", i->l2, 1);
	cli_json_num(stdout, "beta", i->beta, 1);
	cli_json_num(stdout, "backoff", i->backoff, 1);
	cli_json_num(stdout, "t0", i->t0, 1);
	printf(",\"seed\":%llu,\"warmup\":%llu,\"epochs_done\":%d,\"examples_seen\":%llu", (ull)i->seed,
	       (ull)i->warmup, i->epochs_done, (ull)i->examples_seen);
	json_str_or_null("task", i->task ? hog_task_name(i->task) : NULL);
	if (i->task == HOG_TASK_BINARY && !i->class_names)
		printf(",\"negative_label\":%d", i->neg_zero ? 0 : -1);
	json_str_or_null("split", i->split);
	json_str_or_null("columns", i->columns);
	if (i->csv_fields)
		printf(",\"label_column\":%u,\"csv_fields\":%u", i->csv_label, i->csv_fields);
	if (i->vw_bits)
		printf(",\"vw_bits\":%u", i->vw_bits);
	if (i->class_names)
		cli_json_classes(stdout, i->class_names);
	if (i->categories)
		printf(",\"categories\":%u,\"category_from\":%llu", hog_class_count(i->categories),
		       (unsigned long long)i->category_from);
	printf(",\"id_maps\":%s", i->user_ids || i->item_ids ? "true" : "false");
	printf(",\"checkpoint\":%s", f->ck.data_hash || f->ck.in_epoch ? "true" : "false");
	if (f->ck.in_epoch) {
		printf(",\"in_epoch\":%d,\"positions\":[", i->epochs_done + 1);
		for (uint32_t w = 0; w < f->ck.nworkers; w++)
			printf("%s%llu", w ? "," : "", (ull)f->ck.positions[w]);
		putchar(']');
	}
	fputs("}\n", stdout);
}

#define ROW(label, ...) (printf("%-14s", label), printf(__VA_ARGS__), putchar('\n'))

static void shape_text(const hog_model_info *i)
{
	switch (i->kind) {
	case HOG_MODEL_LINEAR:
		ROW("features", "%llu (and the bias)", (ull)i->dim);
		if (cli_linear_nonzeros(i) >= 0) /* (--l1's sparsity) */
			ROW("nonzeros", "%lld of the %llu weights (the bias excluded)", (long long)cli_linear_nonzeros(i),
			    (ull)i->dim);
		break;
	case HOG_MODEL_MF:
		ROW("users x items", "%llu x %llu, rank %u", (ull)i->users, (ull)i->items, i->rank);
		ROW("biases", "%s (global mean %.6g)", i->biases ? "yes: user and item biases" : "no", i->mean);
		break;
	case HOG_MODEL_MLP:
		printf("%-14s%llu", "layers", (ull)i->dim);
		for (int l = 0; l < i->nlayers; l++)
			printf(" -> %u", i->layers[l]);
		printf(" -> %u (%s input, %s output)\n", i->classes ? i->classes : 1, i->sparse ? "sparse" : "dense",
		       i->classes ? "softmax" : "sigmoid");
		if (i->momentum > 0)
			ROW("momentum", "%g", i->momentum);
		break;
	}
}

static void info_text(const struct minfo *f)
{
	const hog_model_info *i = &f->i;
	ROW("file", "%s", f->path);
	ROW("size", "%.1f %s (%llu bytes)", f->size < 1000000 ? f->size / 1e3 : f->size / 1e6,
	    f->size < 1000000 ? "kB" : "MB", (ull)f->size);
	if (f->ck.in_epoch)
		ROW("checkpoint", "yes: inside epoch %d, %u workers at %s", i->epochs_done + 1, f->ck.nworkers,
		    "the positions below");
	else if (f->ck.data_hash)
		ROW("checkpoint", "yes: at the end of epoch %d", i->epochs_done);
	if (f->ck.in_epoch) {
		printf("%-14s", "positions");
		for (uint32_t w = 0; w < f->ck.nworkers; w++)
			printf("%s%llu", w ? " " : "", (ull)f->ck.positions[w]);
		putchar('\n');
	}
	ROW("kind", "%s", hog_model_kind_name(i->kind));
	ROW("loss", "%s", hog_loss_name(i->loss));
	ROW("step rule", "%s", hog_rule_name(i->rule));
	shape_text(i);
	ROW("parameters", "%llu floats (with the step rule's state)", (ull)i->params);
	if (i->rule == HOG_RULE_SGD)
		ROW("schedule", "%s (lr %g, backoff %g, t0 %g)", hog_sched_name(i->sched), i->lr, i->backoff, i->t0);
	else /* (the adaptive rules take no schedule: their steps are their own) */
		ROW("step", "lr %g (%s's own steps, no schedule)", i->lr, hog_rule_name(i->rule));
	ROW("l2", "%g", i->l2);
	if (i->beta > 0)
		ROW("beta", "%g", i->beta);
	ROW("seed", "%llu", (ull)i->seed);
	if (i->warmup)
		ROW("warmup", "%llu examples", (ull)i->warmup);
	ROW("epochs done", "%d (%llu examples seen)", i->epochs_done, (ull)i->examples_seen);
	ROW("task", "%s%s", i->task ? hog_task_name(i->task) : "not recorded (an older model file)",
	    i->neg_zero ? ", labels 0 and 1 (predict --labels writes them so)" : "");
	if (i->split)
		ROW("trained on", "a half of a split: %s", i->split);
	if (i->user_ids || i->item_ids)
		ROW("id maps", "%llu user and %llu item ids of the files imported", (ull)i->user_ids, (ull)i->item_ids);
	if (i->columns)
		ROW("columns", "%.200s%s", i->columns, strlen(i->columns) > 200 ? "..." : "");
	if (i->csv_fields) /* (a set imported apart must take the same column: eval checks it) */
		ROW("label column", "%u of %u fields a line, from 0 (--label-col %u)", i->csv_label, i->csv_fields,
		    i->csv_label);
	if (i->vw_bits) /* (likewise its --bits) */
		ROW("hashed", "VW names into %u bits (--bits %u)", i->vw_bits, i->vw_bits);
	cli_names_rows(i->class_names, i->categories, i->category_from);
}

static int model_info(int argc, char **argv)
{
	const char *cmd = "model info";
	int json = 0, rc = sub_opts(cmd, info_usage, argc, argv, 1, &json, NULL);
	if (rc >= 0)
		return rc;
	const char *path = argv[optind];
	if (cli_check_input(cmd, NULL, path))
		return 1;
	hog_model *m;
	hog_err err = { 0 };
	struct minfo f = { .path = path };
	if ((rc = hog_model_load_ckpt(&m, &f.ck, path, &err)))
		return cli_fail(&err, rc);
	struct stat st;
	f.size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
	hog_model_info_get(m, &f.i);
	if (json)
		info_json(&f);
	else
		info_text(&f);
	free(f.ck.positions);
	hog_model_free(m);
	return 0;
}

/* ------------------------------------------------------------ dump */

/* cli_write_atomic's filler: the dump of the model file @p ud. */
static int dump_fill(void *ud, int fd, hog_err *err)
{
	return hog_model_dump((const char *)ud, fd, err);
}

static int model_dump(int argc, char **argv)
{
	const char *cmd = "model dump", *outp = NULL;
	int rc = sub_opts(cmd, dump_usage, argc, argv, 1, NULL, &outp);
	if (rc >= 0)
		return rc;
	const char *in = argv[optind];
	hog_err err = { 0 };
	if (cli_check_input(cmd, NULL, in))
		return 1;
	if (!outp) {
		rc = hog_model_dump(in, STDOUT_FILENO, &err);
		if (rc == EPIPE && cli_stdout_gone())
			return 0; /* the reader (| head) had enough: quietly, like any filter */
		return rc ? cli_fail(&err, rc) : 0;
	}
	cli_catch_cleanup_signals(); /* from here on a stop removes what we write */
	if ((rc = cli_check_output(cmd, "--out", outp, 0)) || (rc = cli_check_replace(cmd, "--out", outp, 0)))
		return rc;
	return cli_write_atomic(cmd, outp, dump_fill, (void *)in, "model dump: writing");
}

/* ------------------------------------------------------------ load */

/* The kind a dump's header names ("kind K"), or 0: what the output may replace. */
static int dump_kind(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int k = 0;
	for (int n = 0; f && !k && n < 64 && fgets(line, sizeof line, f); n++) {
		char name[32];
		if (sscanf(line, "kind %31s", name) == 1)
			k = hog_model_kind_parse(name) > 0 ? hog_model_kind_parse(name) : 0;
	}
	if (f)
		fclose(f);
	return k;
}

static int model_load(int argc, char **argv)
{
	const char *cmd = "model load";
	int rc = sub_opts(cmd, load_usage, argc, argv, 2, NULL, NULL);
	if (rc >= 0)
		return rc;
	const char *in = argv[optind], *outp = argv[optind + 1];
	hog_err err = { 0 };
	if (cli_check_input(cmd, NULL, in))
		return 1;
	cli_catch_cleanup_signals(); /* from here on a stop removes what we write */
	if ((rc = cli_check_output(cmd, NULL, outp, 0)))
		return rc;
	int kind = dump_kind(in);
	if (kind && (rc = cli_check_replace(cmd, NULL, outp, kind)))
		return rc;
	if ((rc = hog_model_undump(in, outp, &err)))
		return cli_fail(&err, rc);
	return 0;
}

/* ------------------------------------------------------------ dispatch */

int cmd_model(int argc, char **argv)
{
	static const cli_sub subs[] = {
		{ "info", model_info }, { "dump", model_dump }, { "load", model_load },
	};
	return cli_dispatch("model", model_usage, subs, sizeof subs / sizeof *subs, argc, argv);
}
