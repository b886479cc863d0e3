/* The training commands' option table (src/cli/opts.c): every option given to
 * a run that would ignore it is refused, the rest accepted. The expectations are
 * written here, by hand: the issue's list of options that used to be ignored,
 * and a second description of where each option applies (names and words, not
 * the table's bit masks) that the whole matrix of options x models x modes x
 * conditions is checked against. The help text is checked too. */
#include "cli/opts.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

static hog_train_opts opts_for(enum hog_model_kind model, enum hog_loss loss, int mode)
{
	hog_train_opts o;
	hog_train_opts_init(&o);
	o.model = model;
	o.loss = loss;
	o.mode = (enum hog_mode)mode;
	return o;
}

static int find_id(unsigned cmd, const char *name)
{
	for (size_t i = 0; i < cli_nopts; i++)
		if (cli_opt_takes(&cli_opts[i], cmd) && !strcmp(cli_opts[i].name, name))
			return cli_opts[i].id;
	return -1;
}

/* 1 when option @p name given alone to the run (with option @p beside when
 * it is not 0: --save, --test) is refused; checks that the message names it. */
static int refused_with(unsigned cmd, const hog_train_opts *o, unsigned modes, const char *name, int beside)
{
	int id = find_id(cmd, name);
	CU_ASSERT_FATAL(id >= 0);
	cli_given g;
	memset(&g, 0, sizeof g);
	cli_given_set(&g, id);
	if (beside)
		cli_given_set(&g, beside);
	char msg[512], want[64];
	int r = cli_opt_check(cmd, o, modes, &g, msg, sizeof msg);
	if (r >= 0) {
		snprintf(want, sizeof want, "--%s ", name);
		CU_ASSERT_EQUAL(r, id);
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
	}
	return r >= 0;
}

static int refused(unsigned cmd, const hog_train_opts *o, unsigned modes, const char *name)
{
	return refused_with(cmd, o, modes, name, 0);
}

static unsigned train_modes(const hog_train_opts *o) { return cli_opt_train_modes(o); }

/* ------------------------------------------------------------ the issue's cases */

enum { R = 1, A = 0 }; /* refused, accepted */

typedef struct icase {
	unsigned cmd;
	enum hog_model_kind model;
	enum hog_loss loss;
	int mode;
	enum hog_rule rule;
	enum hog_sched sched;
	const char *checkpoint, *resume;
	const char *opt;
	int want;
	unsigned compare_modes; /* compare: the modes compared besides serial (0: every mode) */
} icase;

#define LIN HOG_MODEL_LINEAR
#define MF HOG_MODEL_MF
#define MLP HOG_MODEL_MLP
#define LOG HOG_LOSS_LOGISTIC
#define SQ HOG_LOSS_SQUARED
#define SMX HOG_LOSS_SOFTMAX
#define SGD HOG_RULE_SGD
#define ADA HOG_RULE_ADAGRAD
#define BKF HOG_SCHED_BACKOFF
#define CST HOG_SCHED_CONSTANT
#define INV HOG_SCHED_INVT
#define T CLI_TRAIN
#define C CLI_COMPARE
#define MD(m) HOG_MODE_##m

static const icase issue_cases[] = {
	/* accepted and ignored before: the issue's list */
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "layers", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "momentum", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "batch", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "rank", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "biases", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "grid", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "device", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "stripe-size", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "flush-every", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "hot", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "node-sync", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, CST, NULL, NULL, "backoff", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "adagrad-beta", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "checkpoint-every", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "force", R, 0 },
	{ T, MF, SQ, MD(LOCKFREE), SGD, BKF, NULL, NULL, "normalize", R, 0 },
	{ T, MF, SQ, MD(LOCKFREE), SGD, BKF, NULL, NULL, "average", R, 0 },
	/* and where they do apply */
	{ T, MLP, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "layers", A, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "momentum", A, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), ADA, BKF, NULL, NULL, "momentum", R, 0 },
	{ T, MLP, LOG, MD(SERIAL), SGD, BKF, NULL, NULL, "batch", A, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "device", A, 0 },
	{ T, MF, SQ, MD(LOCKFREE), SGD, BKF, NULL, NULL, "rank", A, 0 },
	{ T, MF, SQ, MD(ATOMIC), SGD, BKF, NULL, NULL, "biases", A, 0 },
	{ T, MF, SQ, MD(GRID), SGD, BKF, NULL, NULL, "grid", A, 0 },
	{ T, MF, SQ, MD(LOCKFREE), SGD, BKF, NULL, NULL, "grid", R, 0 },
	{ T, LIN, LOG, MD(STRIPED), SGD, BKF, NULL, NULL, "stripe-size", A, 0 },
	{ T, MF, SQ, MD(STRIPED), SGD, BKF, NULL, NULL, "stripe-size", R, 0 }, /* mf locks rows */
	{ T, LIN, LOG, MD(BUFFERED), SGD, BKF, NULL, NULL, "flush-every", A, 0 },
	{ T, LIN, LOG, MD(REPLICA), SGD, BKF, NULL, NULL, "flush-every", A, 0 },
	{ T, LIN, LOG, MD(DETERMINISTIC), SGD, BKF, NULL, NULL, "flush-every", A, 0 },
	{ T, LIN, LOG, MD(DETERMINISTIC), ADA, BKF, NULL, NULL, "shards", A, 0 },
	{ T, LIN, LOG, MD(REPLICA), SGD, BKF, NULL, NULL, "shards", R, 0 },
	{ T, MF, SQ, MD(LOCKFREE), SGD, BKF, NULL, NULL, "shards", R, 0 },
	{ T, MLP, LOG, MD(DETERMINISTIC), ADA, BKF, NULL, NULL, "shards", A, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "shards", R, 0 },
	{ T, MLP, LOG, MD(BUFFERED), SGD, BKF, NULL, NULL, "flush-every", A, 0 },
	{ T, MLP, LOG, MD(BUFFERED), SGD, BKF, NULL, NULL, "hot", R, 0 },
	{ T, LIN, LOG, MD(BUFFERED), SGD, BKF, NULL, NULL, "hot", A, 0 },
	{ T, LIN, LOG, MD(REPLICA), SGD, BKF, NULL, NULL, "node-sync", A, 0 },
	{ T, LIN, LOG, MD(BUFFERED), SGD, BKF, NULL, NULL, "node-sync", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "backoff", A, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), ADA, BKF, NULL, NULL, "backoff", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, INV, NULL, NULL, "t0", A, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "t0", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), ADA, BKF, NULL, NULL, "schedule", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), ADA, BKF, NULL, NULL, "adagrad-beta", A, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), HOG_RULE_ADAM, BKF, NULL, NULL, "adagrad-beta", R, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), HOG_RULE_ADAM, BKF, NULL, NULL, "adam-beta1", A, 0 },
	{ T, MLP, LOG, MD(BUFFERED), HOG_RULE_ADAMW, BKF, NULL, NULL, "adam-eps", A, 0 },
	{ T, LIN, SMX, MD(LOCKFREE), HOG_RULE_ADAM, BKF, NULL, NULL, "adam-beta2", A, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "adam-beta2", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), HOG_RULE_ADAM, BKF, NULL, NULL, "adam-beta1", R, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), HOG_RULE_ADAM, BKF, NULL, NULL, "schedule", R, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), HOG_RULE_ADAM, BKF, NULL, NULL, "momentum", R, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, "c.ckpt", NULL, "checkpoint-every", A, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, "c.ckpt", "checkpoint-every", A, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, "c.ckpt", "force", A, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "normalize", A, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "normalize", A, 0 },
	{ T, LIN, SMX, MD(LOCKFREE), SGD, BKF, NULL, NULL, "normalize", A, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "average", A, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "average", R, 0 }, /* the mlp has no average */
	/* --l1: the linear trainer's, with sgd or adagrad in every mode it takes */
	{ T, LIN, LOG, MD(BUFFERED), SGD, BKF, NULL, NULL, "l1", A, 0 },
	{ T, LIN, LOG, MD(REPLICA), ADA, BKF, NULL, NULL, "l1", A, 0 },
	{ C, LIN, LOG, MD(ATOMIC), ADA, BKF, NULL, NULL, "l1", A, 0 },
	{ T, LIN, LOG, MD(LOCKFREE), HOG_RULE_ADAREVISION, BKF, NULL, NULL, "l1", R, 0 },
	{ T, LIN, SMX, MD(LOCKFREE), SGD, BKF, NULL, NULL, "l1", R, 0 },
	{ T, MF, SQ, MD(LOCKFREE), SGD, BKF, NULL, NULL, "l1", R, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "l1", R, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "delay", R, 0 },
	{ T, LIN, LOG, MD(BUFFERED), SGD, BKF, NULL, NULL, "delay", R, 0 },
	{ T, MLP, LOG, MD(LOCKFREE), SGD, BKF, NULL, NULL, "measure-delay", R, 0 },
	{ T, MF, SQ, MD(GRID), SGD, BKF, NULL, NULL, "measure-delay", A, 0 },
	{ T, MF, SQ, MD(LOCKFREE), SGD, BKF, NULL, NULL, "stream", A, 0 }, /* every trainer streams */
	{ T, MLP, LOG, MD(BUFFERED), SGD, BKF, NULL, NULL, "stream", A, 0 },
	{ T, MF, SQ, MD(DETERMINISTIC), SGD, BKF, NULL, NULL, "shards", A, 0 },
	{ T, LIN, LOG, MD(REPLICA), SGD, BKF, NULL, NULL, "stream", A, 0 },
	/* --loss softmax with --model linear trains as the mlp without hidden layers */
	{ T, LIN, SMX, MD(LOCKFREE), SGD, BKF, NULL, NULL, "batch", A, 0 },
	{ T, LIN, SMX, MD(LOCKFREE), SGD, BKF, NULL, NULL, "layers", R, 0 },
	{ T, LIN, SMX, MD(LOCKFREE), SGD, BKF, NULL, NULL, "average", R, 0 },
	{ T, LIN, SMX, MD(BUFFERED), SGD, BKF, NULL, NULL, "hot", R, 0 },
	/* auto may choose any of the model's modes */
	{ T, LIN, LOG, MD(AUTO), SGD, BKF, NULL, NULL, "hot", A, 0 },
	{ T, LIN, LOG, MD(AUTO), SGD, BKF, NULL, NULL, "stripe-size", A, 0 },
	{ T, MF, SQ, MD(AUTO), SGD, BKF, NULL, NULL, "grid", A, 0 },
	{ T, MLP, LOG, MD(AUTO), SGD, BKF, NULL, NULL, "flush-every", A, 0 },
	{ T, MLP, LOG, MD(AUTO), SGD, BKF, NULL, NULL, "node-sync", R, 0 },
	/* compare: fine when one compared mode applies it (serial always runs) */
	{ C, LIN, LOG, 0, SGD, BKF, NULL, NULL, "stripe-size", R, 1u << MD(LOCKFREE) },
	{ C, LIN, LOG, 0, SGD, BKF, NULL, NULL, "stripe-size", A, 1u << MD(LOCKFREE) | 1u << MD(STRIPED) },
	{ C, LIN, LOG, 0, SGD, BKF, NULL, NULL, "stripe-size", A, 0 },
	{ C, LIN, LOG, 0, SGD, BKF, NULL, NULL, "delay", A, 1u << MD(BUFFERED) }, /* serial takes it */
	{ C, MF, SQ, 0, SGD, BKF, NULL, NULL, "grid", A, 0 },
	{ C, MF, SQ, 0, SGD, BKF, NULL, NULL, "grid", R, 1u << MD(LOCKFREE) },
	{ C, LIN, LOG, 0, SGD, BKF, NULL, NULL, "rank", R, 0 },
	/* a --loss the model has not (mf used to train --loss logistic as squared, silently) */
	{ T, MF, LOG, MD(GRID), SGD, BKF, NULL, NULL, "loss", R, 0 },
	{ T, MF, HOG_LOSS_HINGE, MD(GRID), SGD, BKF, NULL, NULL, "loss", R, 0 },
	{ C, MF, LOG, 0, SGD, BKF, NULL, NULL, "loss", R, 0 },
	{ T, MF, SQ, MD(GRID), SGD, BKF, NULL, NULL, "loss", A, 0 },
	{ T, MLP, HOG_LOSS_HINGE, MD(LOCKFREE), SGD, BKF, NULL, NULL, "loss", R, 0 },
	{ T, MLP, SQ, MD(LOCKFREE), SGD, BKF, NULL, NULL, "loss", R, 0 },
	{ T, MLP, SMX, MD(LOCKFREE), SGD, BKF, NULL, NULL, "loss", A, 0 },
	{ T, LIN, HOG_LOSS_HINGE, MD(BUFFERED), SGD, BKF, NULL, NULL, "loss", A, 0 },
	{ T, LIN, SQ, MD(BUFFERED), SGD, BKF, NULL, NULL, "loss", A, 0 },
};

static void test_issue_cases(void)
{
	for (size_t i = 0; i < sizeof issue_cases / sizeof *issue_cases; i++) {
		const icase *c = &issue_cases[i];
		hog_train_opts o = opts_for(c->model, c->loss, c->mode);
		o.rule = c->rule;
		o.sched = c->sched;
		o.checkpoint = c->checkpoint;
		o.resume = c->resume;
		unsigned modes = c->cmd == T ? train_modes(&o)
		               : 1u << MD(SERIAL) | (c->compare_modes ? c->compare_modes : hog_train_modes(&o));
		int got = refused(c->cmd, &o, modes, c->opt);
		if (got != c->want)
			fprintf(stderr, "\n  case %zu: --%s with %s/%s mode %s: %s, wanted %s\n", i, c->opt,
			        hog_model_kind_name(c->model), hog_loss_name(c->loss), hog_mode_name((enum hog_mode)c->mode),
			        got ? "refused" : "accepted", c->want ? "refused" : "accepted");
		CU_ASSERT_EQUAL(got, c->want);
	}
}

/* `--normalize off` is --normalize=off (config.c joins the two words): only a
 * listed value of an option whose value is optional, whole. */
static void test_optional_value(void)
{
	CU_ASSERT_TRUE(cli_opt_optional_value("normalize", "off"));
	CU_ASSERT_TRUE(cli_opt_optional_value("normalize", "on"));
	CU_ASSERT_TRUE(cli_opt_optional_value("normalize", "auto"));
	CU_ASSERT_FALSE(cli_opt_optional_value("normalize", "of"));
	CU_ASSERT_FALSE(cli_opt_optional_value("normalize", "offf"));
	CU_ASSERT_FALSE(cli_opt_optional_value("normalize", ""));
	CU_ASSERT_FALSE(cli_opt_optional_value("normalize", "--epochs"));
	CU_ASSERT_FALSE(cli_opt_optional_value("normalize=off", "on"));
	CU_ASSERT_FALSE(cli_opt_optional_value("loss", "squared")); /* a required value: getopt takes the word */
	CU_ASSERT_FALSE(cli_opt_optional_value("quiet", "on"));
}

/* Train's own options are not compare's: its parser refuses them as unknown. */
static void test_commands(void)
{
	CU_ASSERT_PTR_NULL(cli_opt_find(CLI_COMPARE, OPT_CHECKPOINT_EVERY));
	CU_ASSERT_PTR_NULL(cli_opt_find(CLI_COMPARE, OPT_SAVE));
	CU_ASSERT_PTR_NULL(cli_opt_find(CLI_TRAIN, OPT_REPEAT));
	CU_ASSERT_PTR_NOT_NULL(cli_opt_find(CLI_COMPARE, OPT_HOT));
	/* unique names per command, and getopt's table matches */
	for (unsigned cmd = 1; cmd <= 2; cmd++) {
		struct option lo[100];
		size_t n = cli_opt_getopt(cmd, lo, 100);
		CU_ASSERT(n > 20 && n < 99);
		CU_ASSERT_PTR_NULL(lo[n].name);
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				CU_ASSERT(strcmp(lo[i].name, lo[j].name) != 0);
	}
}

/* ------------------------------------------------------------ the matrix */

/* Where each option applies, written again here in words: the contexts
 * (linear: the linear trainer; softmax: --model linear --loss softmax; mlp;
 * mf; "*": all), the modes ("" all) and the condition. */
static const struct ref {
	const char *name, *contexts, *modes, *cond;
} refs[] = {
	{ "config", "*", "", "" }, { "data", "*", "", "" }, { "test", "*", "", "" }, { "model", "*", "", "" },
	{ "loss", "*", "", "" }, { "mode", "*", "", "" }, { "modes", "*", "", "" }, { "threads", "*", "", "" },
	{ "layers", "mlp", "", "" }, { "batch", "mlp softmax", "", "" }, { "momentum", "mlp softmax", "", "sgd" },
	{ "device", "mlp softmax", "", "" }, { "lars", "mlp softmax", "", "sgd" }, { "rank", "mf", "", "" }, { "biases", "mf", "", "" },
	{ "grid", "mf", "grid", "" }, { "epochs", "*", "", "" }, { "lr", "*", "", "" },
	{ "schedule", "*", "", "sgd" }, { "backoff", "*", "", "backoff" }, { "t0", "*", "", "invt" },
	{ "warmup", "*", "", "" }, { "lr-scale", "*", "", "" }, { "l2", "*", "", "" }, { "l1", "linear", "", "sgd-adagrad" },
	{ "class-weight", "linear softmax mlp", "", "" },
	{ "optimizer", "*", "", "" },
	{ "adagrad-beta", "*", "", "adaptive" }, { "average", "linear", "", "" },
	{ "adam-beta1", "mlp softmax", "", "adam" }, { "adam-beta2", "mlp softmax", "", "adam" },
	{ "adam-eps", "mlp softmax", "", "adam" },
	{ "normalize", "linear mlp softmax", "", "" },
	{ "delay", "linear", "serial lockfree atomic striped locked", "" },
	{ "measure-delay", "linear mf", "", "" }, { "hot", "linear", "buffered replica", "" },
	{ "flush-every", "linear mlp softmax", "buffered replica deterministic", "" },
	{ "shards", "linear mlp softmax mf", "deterministic", "" }, { "node-sync", "linear", "replica", "" },
	{ "stripe-size", "linear", "striped", "" }, { "bind", "*", "", "" }, { "seed", "*", "", "" },
	{ "topology", "*", "", "" }, { "sync-every", "*", "", "" }, { "compress", "*", "", "" }, { "no-shuffle", "*", "", "" },
	{ "shuffle-chunk", "linear", "", "" },
	{ "quiet", "*", "", "" }, { "save", "*", "", "" }, { "checkpoint", "*", "", "" },
	{ "checkpoint-every", "*", "", "checkpoint" }, { "resume", "*", "", "" }, { "force", "*", "", "resume" },
	{ "metrics", "*", "", "" }, { "diagnostics", "linear", "", "" }, { "stream", "*", "", "" },
	{ "keep-diverged", "*", "", "save" },
	{ "strict", "*", "", "test" }, { "validation", "*", "", "" }, { "early-stop", "*", "", "heldout" },
	{ "ranks", "*", "", "" }, { "repeat", "*", "", "" },
	{ "target-loss", "*", "", "" }, { "csv", "*", "", "" }, { "json", "*", "", "" }, { "plot", "*", "", "" },
	{ "teams", "*", "", "" }, { "folds", "*", "", "" }, { "rungs", "*", "", "" }, { "budget", "*", "", "" },
	{ "metric", "*", "", "" }, { "save-config", "*", "", "" },
	{ "help", "*", "", "" },
};

/* The modes each model takes, written out (the trainers' tables must agree). */
static const struct ctx {
	const char *name;
	enum hog_model_kind model;
	enum hog_loss loss;
	const char *modes;
} ctxs[] = {
	{ "linear", LIN, LOG, "serial lockfree buffered atomic striped locked replica deterministic" },
	{ "softmax", LIN, SMX, "serial lockfree buffered atomic locked deterministic" },
	{ "mlp", MLP, LOG, "serial lockfree buffered atomic locked deterministic" },
	{ "mf", MF, SQ, "serial lockfree atomic striped locked grid deterministic" },
};

static int has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
			return 1;
	return 0;
}

static const struct ref *ref_of(const char *name)
{
	for (size_t i = 0; i < sizeof refs / sizeof *refs; i++)
		if (!strcmp(refs[i].name, name))
			return &refs[i];
	return NULL;
}

/* Sets the options so that condition @p cond holds (met) or not. */
static void set_cond(hog_train_opts *o, const char *cond, int met)
{
	if (!strcmp(cond, "sgd-adagrad"))
		o->rule = met ? HOG_RULE_ADAGRAD : HOG_RULE_ADAREVISION;
	else if (!strcmp(cond, "adam"))
		o->rule = met ? HOG_RULE_ADAMW : HOG_RULE_ADAGRAD;
	else if (!strcmp(cond, "sgd") || !strcmp(cond, "adaptive"))
		o->rule = (!strcmp(cond, "sgd")) == met ? HOG_RULE_SGD : HOG_RULE_ADAGRAD;
	else if (!strcmp(cond, "backoff") || !strcmp(cond, "invt")) {
		o->rule = HOG_RULE_SGD;
		if (met)
			o->sched = !strcmp(cond, "backoff") ? HOG_SCHED_BACKOFF : HOG_SCHED_INVT;
		else
			o->sched = HOG_SCHED_CONSTANT;
	} else if (!strcmp(cond, "checkpoint"))
		o->checkpoint = met ? "c.ckpt" : NULL;
	else if (!strcmp(cond, "resume"))
		o->resume = met ? "c.ckpt" : NULL;
}

/* The option given beside the one checked so that condition @p cond holds
 * (met), or 0: conditions on options that hog_train_opts does not hold. */
static int cond_beside(const char *cond, int met)
{
	return !met ? 0 : !strcmp(cond, "save") ? OPT_SAVE : !strcmp(cond, "test") ? OPT_TEST
	     : !strcmp(cond, "heldout") ? OPT_VALIDATION : 0; /* (--test meets it too: as "test") */
}

/* The expected answer for option @p r in context @p c trained in the modes
 * named by @p runs (a space-separated list). */
static int applies(const struct ref *r, const struct ctx *c, const char *runs)
{
	if (strcmp(r->contexts, "*") && !has_word(r->contexts, c->name))
		return 0;
	if (!*r->modes)
		return 1;
	char buf[128];
	snprintf(buf, sizeof buf, "%s", runs);
	for (char *sv = NULL, *m = strtok_r(buf, " ", &sv); m; m = strtok_r(NULL, " ", &sv))
		if (has_word(r->modes, m) && has_word(c->modes, m))
			return 1;
	return 0;
}

static void check_cell(unsigned cmd, const cli_opt *op, const struct ref *r, const struct ctx *c, int mode,
                       unsigned modes, const char *runs, int *cells)
{
	for (int met = 1; met >= (*r->cond ? 0 : 1); met--) {
		hog_train_opts o = opts_for(c->model, c->loss, mode);
		set_cond(&o, r->cond, met);
		int want = applies(r, c, runs) && met;
		int got = !refused_with(cmd, &o, modes, op->name, cond_beside(r->cond, met));
		if (got != want)
			fprintf(stderr, "\n  %s --%s, %s in '%s', condition %s %s: %s, wanted %s\n",
			        cmd == CLI_TRAIN ? "train" : cmd == CLI_TUNE ? "tune" : "compare", op->name, c->name, runs, r->cond,
			        met ? "met" : "unmet", got ? "accepted" : "refused", want ? "accepted" : "refused");
		CU_ASSERT_EQUAL(got, want);
		(*cells)++;
	}
}

static void test_matrix(void)
{
	int cells = 0;
	for (size_t i = 0; i < cli_nopts; i++) {
		const cli_opt *op = &cli_opts[i];
		const struct ref *r = ref_of(op->name);
		if (!r)
			fprintf(stderr, "\n  --%s: no expectation written in the test\n", op->name);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		for (size_t k = 0; k < sizeof ctxs / sizeof *ctxs; k++) {
			const struct ctx *c = &ctxs[k];
			if (!hog_model_kind_built(c->model))
				continue;
			hog_train_opts o = opts_for(c->model, c->loss, HOG_MODE_SERIAL);
			const unsigned takes = hog_train_modes(&o);
			for (int m = 0; m < HOG_MODE_ALL; m++) {
				const char *name = hog_mode_name((enum hog_mode)m);
				/* the trainers' tables agree with the words above */
				if (m != HOG_MODE_AUTO)
					CU_ASSERT_EQUAL(!!(takes >> m & 1u), has_word(c->modes, name));
				if (m != HOG_MODE_AUTO && !(takes >> m & 1u))
					continue;
				if (op->cmds & CLI_TRAIN) { /* auto: any mode of the model */
					char runs[128];
					snprintf(runs, sizeof runs, "%s", m == HOG_MODE_AUTO ? c->modes : name);
					hog_train_opts t = opts_for(c->model, c->loss, m);
					check_cell(CLI_TRAIN, op, r, c, m, cli_opt_train_modes(&t), runs, &cells);
				}
				if (cli_opt_takes(op, CLI_TUNE)) { /* every trial in its mode, as train */
					hog_train_opts t = opts_for(c->model, c->loss, m);
					check_cell(CLI_TUNE, op, r, c, m, cli_opt_train_modes(&t),
					           m == HOG_MODE_AUTO ? c->modes : name, &cells);
				}
				if ((op->cmds & CLI_COMPARE) && m != HOG_MODE_AUTO) { /* serial and mode m */
					char runs[128];
					snprintf(runs, sizeof runs, "serial %s", name);
					check_cell(CLI_COMPARE, op, r, c, 0, 1u << HOG_MODE_SERIAL | 1u << m, runs, &cells);
				}
			}
		}
	}
	for (size_t i = 0; i < sizeof refs / sizeof *refs; i++) /* and no expectation without an option */
		CU_ASSERT(find_id(CLI_TRAIN | CLI_COMPARE | CLI_TUNE, refs[i].name) >= 0);
	CU_ASSERT(cells > 1000);
}

/* Two ignored options: the first one in the table's order is named. */
static void test_first_named(void)
{
	hog_train_opts o = opts_for(LIN, LOG, HOG_MODE_LOCKFREE);
	cli_given g;
	memset(&g, 0, sizeof g);
	cli_given_set(&g, OPT_HOT);
	cli_given_set(&g, OPT_RANK);
	cli_given_set(&g, OPT_EPOCHS);
	char msg[512];
	int r = cli_opt_check(CLI_TRAIN, &o, cli_opt_train_modes(&o), &g, msg, sizeof msg);
	CU_ASSERT(r == OPT_HOT || r == OPT_RANK);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, r == OPT_HOT ? "--hot" : "--rank"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, r == OPT_HOT ? "lockfree" : "linear"));
	memset(&g, 0, sizeof g);
	cli_given_set(&g, OPT_EPOCHS);
	cli_given_set(&g, OPT_LR);
	CU_ASSERT_EQUAL(cli_opt_check(CLI_TRAIN, &o, cli_opt_train_modes(&o), &g, msg, sizeof msg), -1);
	/* ids outside the table's range are not recorded */
	memset(&g, 0, sizeof g);
	cli_given_set(&g, 'h');
	cli_given_set(&g, OPT_LAST);
	for (int i = 0; i < CLI_NOPT_IDS; i++)
		CU_ASSERT_EQUAL(g.on[i], 0);
}

/* ------------------------------------------------------------ help text */

static char *usage_of(unsigned cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	cli_opt_usage(f, cmd);
	fclose(f);
	return buf;
}

/* Occurrences of "--NAME" at the start of a help entry. */
/* (an option with an optional value is listed as --name[=VALUE]) */
static int entries(const char *text, const char *name)
{
	char want[64];
	int n = 0;
	snprintf(want, sizeof want, "--%s", name);
	size_t w = strlen(want);
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line;
		while (*p == ' ')
			p++;
		if (p[0] == '-' && p[1] != '-')
			p += 4; /* "-c, " */
		if (!strncmp(p, want, w) && (p[w] == ' ' || p[w] == '\n' || p[w] == '['))
			n++;
	}
	return n;
}

static void test_usage(void)
{
	char *tr = usage_of(CLI_TRAIN), *cmp = usage_of(CLI_COMPARE);
	/* every listed option once (train -h listed --loss twice) */
	for (size_t i = 0; i < cli_nopts; i++) {
		const cli_opt *op = &cli_opts[i];
		if (!op->help)
			continue;
		if (op->cmds & CLI_TRAIN)
			CU_ASSERT_EQUAL(entries(tr, op->name), 1);
		if (op->cmds & CLI_COMPARE)
			CU_ASSERT_EQUAL(entries(cmp, op->name), 1);
	}
	CU_ASSERT_EQUAL(entries(tr, "loss"), 1);
	CU_ASSERT_EQUAL(entries(tr, "save"), 1);
	CU_ASSERT_EQUAL(entries(cmp, "save"), 0);
	CU_ASSERT_EQUAL(entries(cmp, "repeat"), 1);
	CU_ASSERT_EQUAL(entries(tr, "modes"), 0);
	/* the --mode entry names every mode, replica too (it lacked it) */
	const char *mode = strstr(tr, "--mode M");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mode);
	const char *end = strstr(mode, "\n      --");
	CU_ASSERT_PTR_NOT_NULL_FATAL(end);
	static const char *const names[] = { "serial", "lockfree", "buffered", "atomic", "striped",
	                                     "locked", "grid", "replica", "auto" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		const char *p = strstr(mode, names[i]);
		CU_ASSERT(p && p < end);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(mode, "grid (mf)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(mode, "replica (linear)"));
	/* the scope of an option comes from the table: */
	CU_ASSERT_PTR_NOT_NULL(strstr(tr, "--stripe-size N    linear; striped mode:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(tr, "--force            with --resume:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(tr, "--keep-diverged    with --save:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(tr, "--strict           with --test:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cmp, "--strict           with --test:"));
	/* no line wider than 80 columns */
	for (const char *line = tr; *line;) {
		const char *nl = strchr(line, '\n');
		CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
		CU_ASSERT(nl - line <= 80);
		line = nl + 1;
	}
	free(tr);
	free(cmp);
}

int test_opts_register(void)
{
	CU_pSuite s = CU_add_suite("opts", NULL, NULL);
	if (!s)
		return -1;
	TU_ADD(s, test_issue_cases);
	TU_ADD(s, test_optional_value);
	TU_ADD(s, test_commands);
	TU_ADD(s, test_matrix);
	TU_ADD(s, test_first_named);
	TU_ADD(s, test_usage);
	return 0;
}
