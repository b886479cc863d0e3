/* The one table of the training commands' options (train, compare): for each,
 * the commands that take it, its usage text, and where it applies: the models
 * (by the kind whose trainer runs: `--model linear --loss softmax` trains as
 * the mlp), the update modes (intersected with the modes each model's trainer
 * takes, hog_model_kind_modes) and any other condition. The getopt table, the
 * help text, the refusal of an option that would be ignored and the tests all
 * read it, so they cannot drift apart.
 *
 * This file and opts.c depend on the library alone (no other CLI file but
 * suggest.h, a declaration opts.c defines), so that the unit tests link them. */
#ifndef HOG_CLI_OPTS_H
#define HOG_CLI_OPTS_H
#include "hogwild.h"
#include "cli/suggest.h"
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* Option ids (getopt's val): one range for every command. */
enum {
	OPT_FIRST = 1000,
	OPT_DATA = OPT_FIRST, OPT_TEST, OPT_MODEL, OPT_LOSS, OPT_MODE, OPT_THREADS, OPT_EPOCHS, OPT_LR,
	OPT_SCHEDULE, OPT_BACKOFF, OPT_T0, OPT_WARMUP, OPT_L2, OPT_OPTIMIZER, OPT_ADAGRAD_BETA,
	OPT_DELAY, OPT_HOT, OPT_FLUSH_EVERY, OPT_SHARDS, OPT_NODE_SYNC, OPT_STRIPE_SIZE, OPT_BIND, OPT_SEED, OPT_MEASURE_DELAY,
	OPT_TOPOLOGY, OPT_QUIET, OPT_CONFIG, OPT_SYNC_EVERY, OPT_COMPRESS, OPT_NO_SHUFFLE, OPT_SHUFFLE_CHUNK, OPT_AVERAGE, OPT_NORMALIZE,
	OPT_LAYERS, OPT_BATCH, OPT_MOMENTUM, OPT_DEVICE,
	OPT_RANK, OPT_BIASES, OPT_GRID, OPT_STRICT, OPT_L1, OPT_ADAM_BETA1, OPT_ADAM_BETA2, OPT_ADAM_EPS,
	OPT_CLASS_WEIGHT, OPT_LR_SCALE, OPT_LARS,
	OPT_TRAIN_LAST, /* the options above are parsed by cli_train_option() */
	/* train's own */
	OPT_SAVE = OPT_TRAIN_LAST, OPT_CHECKPOINT, OPT_CHECKPOINT_EVERY, OPT_RESUME, OPT_FORCE, OPT_METRICS,
	OPT_STREAM, OPT_KEEP_DIVERGED, OPT_VALIDATION, OPT_EARLY_STOP, OPT_DIAGNOSTICS,
	/* compare's own */
	OPT_MODES, OPT_THREADS_LIST, OPT_RANKS, OPT_REPEAT, OPT_TARGET, OPT_CSV, OPT_JSON, OPT_PLOT,
	/* tune's own */
	OPT_FOLDS, OPT_BUDGET, OPT_SAVE_CONFIG, OPT_METRIC, OPT_TEAMS, OPT_RUNGS,
	OPT_HELP,
	OPT_LAST
};
#define CLI_NOPT_IDS (OPT_LAST - OPT_FIRST)

/* The commands that take an option. Tune takes every option of both train and
 * compare (BOTH in opts.c) except those it has an entry of its own for (the
 * searched ones take lists: --lr 0.01:1), and its own (cli_opt_takes). */
enum { CLI_TRAIN = 1u, CLI_COMPARE = 2u, CLI_TUNE = 4u };

/* A condition on the other options besides model and mode. */
enum cli_cond {
	COND_NONE = 0,
	COND_SGD,         /* --optimizer sgd */
	COND_ADAPTIVE,    /* --optimizer adagrad or adarevision */
	COND_ADAM,        /* --optimizer adam or adamw */
	COND_BACKOFF,     /* --schedule backoff with sgd */
	COND_INVT,        /* --schedule invt with sgd */
	COND_CHECKPOINT,  /* --checkpoint (or --resume, which checkpoints where it resumed from) */
	COND_RESUME,      /* --resume */
	COND_MODEL_MLP,   /* --model mlp itself, not linear with --loss softmax (hidden layers) */
	COND_SAVE,        /* --save given */
	COND_TEST,        /* --test given */
	COND_HELDOUT,     /* --test or --validation given */
	COND_NOT_ADAREV,  /* --optimizer sgd or adagrad */
};

typedef struct cli_opt {
	const char *name;   /* long name, without "--" */
	char short_name;    /* 'c', 'h' or 0 */
	int has_arg;        /* getopt's no_argument / required_argument */
	int id;             /* OPT_* */
	unsigned cmds;      /* CLI_TRAIN | CLI_COMPARE */
	unsigned kinds;     /* bit (1 << hog_model_kind) of the trainers it applies to; 0: every model */
	unsigned modes;     /* bit (1 << hog_mode) of the modes it applies to; 0: every mode */
	enum cli_cond cond;
	const char *arg;    /* the value's name in the help ("N"), NULL for a flag */
	const char *help;   /* one paragraph, wrapped when printed; "{MODES}" is replaced by the
	                       modes with the models that take them; NULL: a synonym not listed */
} cli_opt;

extern const cli_opt cli_opts[];
extern const size_t cli_nopts;

/* 1 when @p word, the word after the bare option @p name (no "--"), is one of
 * the listed values ("on|off|auto") of an option whose value is optional:
 * `--normalize off` means --normalize=off, not --normalize and a stray word. */
int cli_opt_optional_value(const char *name, const char *word);

/* 1 when command @p cmd takes the table's entry @p op. */
int cli_opt_takes(const cli_opt *op, unsigned cmd);

/* The entry of option @p id for command @p cmd, or NULL. */
const cli_opt *cli_opt_find(unsigned cmd, int id);

/* Fills @p out (room for @p cap entries) with the getopt table of @p cmd and a
 * terminating zero entry. Returns the number of options. */
size_t cli_opt_getopt(unsigned cmd, struct option *out, size_t cap);

/* Writes the options of @p cmd, one paragraph each, to @p f. */
void cli_opt_usage(FILE *f, unsigned cmd);

/* Where an option applies, in words ("the linear model, buffered and replica
 * modes"); "" when everywhere. */
void cli_opt_scope(const cli_opt *op, char *buf, size_t len);

/* The options given explicitly (on the command line or by a config file),
 * indexed by id - OPT_FIRST. */
typedef struct cli_given {
	unsigned char on[CLI_NOPT_IDS];
} cli_given;

static inline void cli_given_set(cli_given *g, int id)
{
	if (id >= OPT_FIRST && id < OPT_LAST)
		g->on[id - OPT_FIRST] = 1;
}

/* The check itself, pure: is every option in @p given applied by the run @p o
 * of command @p cmd, whose runs train in the modes of @p modes (bit (1 << mode);
 * train: its --mode, or every mode of the model for auto; compare: serial and
 * the modes compared)? Returns -1 when so, else the id of the first option that
 * would be ignored, with a message naming it and why in @p msg. */
int cli_opt_check(unsigned cmd, const hog_train_opts *o, unsigned modes, const cli_given *given, char *msg,
                  size_t len);

/* The modes a train run of @p o trains in: its mode, or for auto every mode of
 * its model (auto may choose any). */
unsigned cli_opt_train_modes(const hog_train_opts *o);
#endif
