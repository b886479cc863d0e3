/* Shared pieces of the command-line front end: the only code that prints to the
 * terminal, reads argv and calls exit(). Exit codes: 0 success, 1 data or
 * run-time error, 2 usage error, 130/143 interrupted. */
#ifndef HOG_CLI_H
#define HOG_CLI_H
#include "cli/suggest.h"
#include "hogwild.h"
#include <stdint.h>
#include <stdio.h>

#define EXIT_USAGE 2

/** Each subcommand: argc/argv start at the subcommand's own name. */
/* Under mpirun, train and compare run in a child watched by this process (supervise.c):
 * returns 0 in the child (and when not under mpirun); the parent never returns. */
int cli_supervise_rank(int argc, char **argv);
int cmd_data(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_tune(int argc, char **argv);

/** A subcommand of a command group (data, model). */
typedef struct cli_sub {
	const char *name;
	int (*fn)(int argc, char **argv);
} cli_sub;
/** Runs the subcommand argv[1] of group @p group (its usage text @p usage for
 * -h and errors) among the @p n in @p subs, with argv shifted past the group. */
int cli_dispatch(const char *group, const char *usage, const cli_sub *subs, size_t n, int argc, char **argv);
/** Prints "hogwild CMD: message" to stderr and returns 2 (usage) — callers
 * `return cli_usage_error(...)`; prints the usage line too when @p usage. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** getopt's '?' for the word @p arg: "unknown option 'ARG'", what it may have
 * meant (cli_opt_suggest over @p lo), and the usage's synopsis, or where
 * @p usage is NULL a pointer to CMD -h. Returns 2. */
int cli_unknown_option(const char *cmd, const char *usage, const struct option *lo, const char *arg);
/** Prints a library error ("hogwild: <msg>") and returns 1 (or 2 for HOG_ECONFIG). */
int cli_fail(const hog_err *err, int rc);

/** Strict number parsing for option values: the whole string must be a number
 * within [lo, hi]. Return 0 on success, -1 otherwise. */
int cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
int cli_parse_int(const char *s, long lo, long hi, long *out);
int cli_parse_double(const char *s, double lo, double hi, double *out);

/** 1 when progress should be drawn on stderr (a terminal, not --quiet). */
int cli_progress_wanted(int quiet);
/** A progress callback that draws "label: 42% 123 MB/s ETA 3s" on stderr. */
typedef struct cli_progress {
	const char *label;
	const char *unit;      /* "B" for bytes (shown as MB/s) or "ex" */
	double t0, last;
	int drawn;
} cli_progress;
void cli_progress_cb(void *ud, uint64_t done, uint64_t total);
void cli_progress_end(cli_progress *p);
double cli_now(void);

/* Output and input files (files.c). */
/** Checks, before any work, that @p path can be written: not a directory, its
 * directory exists and takes a new file. Removes stale temporaries of @p path
 * (cli_remove_stale). @p opt ("--save") names the option in the message; NULL
 * for an operand. An existing target that is not a regular file is refused
 * (the rename would replace it) unless @p append (--metrics: /dev/null, a FIFO).
 * Returns 0, or 1 (2 for an empty name) after the message. */
int cli_check_output(const char *cmd, const char *opt, const char *path, int append);
/** Writes @p outp atomically: a temporary file beside it (removed by a signal,
 * cli_catch_cleanup_signals), filled by @p fill, synced and renamed into place.
 * @p fill returns 0 or an error code with its message in err; an error of its
 * own writes (a message starting with @p write_prefix) is said naming @p outp
 * rather than the temporary file. Returns 0, or 1 after the message. */
int cli_write_atomic(const char *cmd, const char *outp, int (*fill)(void *ud, int fd, hog_err *err), void *ud,
                     const char *write_prefix);
/** Refuses to replace what the user owns with an output (after
 * cli_check_output, before any work): an existing data set (an LMDB file), a
 * model file when the output is not a model (@p kind 0: predictions, tables,
 * metrics), and for a model output (@p kind: the hog_model_kind written) a
 * model of another kind or a file that is no model. An empty file, a model of
 * the same kind (a retrained model, the checkpoint resumed from) and, for text
 * outputs, any other file may be replaced. Returns 0, or 1 after a message
 * naming the option, the file and what it holds (as `data import` refuses). */
int cli_check_replace(const char *cmd, const char *opt, const char *path, int kind);
/** Refuses predict's --out @p path (after cli_check_replace, the model read)
 * where it exists and is no earlier output of predict: the --pairs file read
 * (@p pairs, or NULL), or a file whose lines (its first 4 kB) are not
 * predictions -- numbers separated by spaces, or the class names @p names
 * (NULL: none) of the model's. Returns 0, or 1 after a message naming the file
 * and its first line that is none. */
int cli_check_predictions(const char *cmd, const char *path, const char *pairs, const char *names);
/** Removes "PATH.tmp.PID" files of processes that no longer exist, saying so. */
void cli_remove_stale(const char *cmd, const char *path);
/** Refuses an input that is not a regular file (a FIFO, a device, a directory):
 * data sets and models are mapped or read whole. @p what ("--model") may be NULL.
 * Returns 0 or 1 after the message. */
int cli_check_input(const char *cmd, const char *what, const char *path);
/** Refuses a data set without labels (hog_meta.unlabelled) where labels are
 * needed (eval, train, compare): a message naming @p path and what takes such a
 * set. @p d is the set loaded, or NULL: its header is read from @p path (a
 * streamed training set). Returns 0, or 1 after the message. */
int cli_refuse_unlabelled(const char *cmd, const char *path, const hog_data *d);
/** Tells on standard error what hog_data_reconcile() found in data set @p dn
 * against @p rn (ratings of users or items @p rn lacks, features beyond its
 * dimension, labels read back as regression values); nothing when all fit. */
void cli_fit_note(const char *cmd, const hog_data_fit *fit, const hog_data *d, const char *dn, const char *rn);
/** A test set @p tn (split id @p tx: hog_data.split, or NULL; its own id
 * @p to: hog_data.origin, or NULL) that may hold the examples of a training
 * set @p an (split id @p ax, own id @p ao, or NULL: a model's): a half of
 * another split of the same input, the same half, the set the training half
 * was cut from, or a half of the training set itself. Says so on standard error, as a
 * warning, or with @p strict as a refusal naming both. Returns 1 when refused,
 * else 0. */
int cli_split_overlap(const char *cmd, const char *an, const char *ax, const char *ao, const char *tn, const char *tx,
                      const char *to, int strict);
/** A test set @p tn that is the training set @p an itself (the same file) or
 * a copy of it (headers @p am and @p tm that count the same examples,
 * nonzeros and features, with the same labels' sum, range and weights, from
 * the same source). Said as cli_split_overlap says its case; 1 when refused. */
int cli_same_set(const char *cmd, const char *an, const hog_meta *am, const char *tn, const hog_meta *tm, int strict);
/** What @p path holds by its first bytes: 1 a data set (LMDB), 2 a hogwild
 * model or checkpoint, 0 anything else (or nothing readable). */
int cli_file_kind(const char *path);
/** 1 when both paths name the same file (the same string, or one existing file). */
int cli_same_file(const char *a, const char *b);
/** Refuses --checkpoint @p path where it holds a checkpoint that this run does
 * not continue (--resume @p resume, NULL: none, is another file): another
 * run's state, or this one's started again without --resume, which the first
 * checkpoint written would replace for good; likewise a finished model (train
 * --save's). Returns 0, or 1 after a message saying what the file holds (where
 * that run stands and how to continue it). */
int cli_check_checkpoint(const char *cmd, const char *path, const char *resume);
/** The memory this process may still use: MemAvailable, or the memory
 * cgroup's limit less its use where that is less (each cgroup up the tree), or
 * HOGWILD_MEMORY (bytes, or with K, M or G) when set; 0 when none is known. What it
 * came from goes into @p why (may be NULL). */
uint64_t cli_mem_available(char *why, size_t size);
/** What the first bytes of file @p path look like (quoted into @p what) and the
 * `data import --format` they read as (with *@p note, a remark to print after
 * it, "" when none), or NULL: nothing to go by, or not a regular file (a pipe
 * is not read). For the refusal of an import without --format and of a text
 * file given where a data set is wanted; a hint, never acted on
 * (import_guess.c). */
const char *cli_import_guess(const char *path, char *what, size_t size, const char **note);
/** A data set's size decoded in memory (hog_data_load()'s arrays). */
uint64_t cli_data_bytes(const hog_meta *m);
/** The automatic rule: 1 (and a note on standard error naming @p path and the
 * figures) when the set decoded would take more than half of
 * cli_mem_available(), so that @p cmd reads it a chunk at a time; else 0. */
int cli_stream_auto(const char *cmd, const char *path, const hog_meta *m);
/** Examples per chunk of a streamed set: 8 MB decoded, or a sixteenth of
 * cli_mem_available() when that is less (at least 256 examples). */
uint64_t cli_chunk_examples(const hog_meta *m);
/** SIGINT/SIGTERM/SIGHUP remove the registered temporary files (sys/file.h)
 * and end the process with the signal (exit status 130/143/129). For commands
 * that have nothing to save when stopped: the data subcommands. */
void cli_catch_cleanup_signals(void);
/** 1 when standard output is a pipe or socket whose reader has gone away. */
int cli_stdout_gone(void);
/** Flushes and closes standard output at exit. A failed write is an error
 * ("standard output: No space left on device", @p rc or 1); a reader that went
 * away is not (returns @p rc). */
int cli_close_stdout(int rc);

#endif

#include <getopt.h>
/** Expands "-c FILE" / "--config FILE" in argv: the file's keys (outside any
 * section or in the section named @p cmd) become "--key value" options placed
 * before the command line's own, so flags override the file. A key that is no
 * long option of @p lopts is a usage error naming FILE:LINE. On success *nargv
 * is a new argv (free with cli_config_free). Returns 0 or an exit code. */
int cli_config_expand(const char *cmd, const struct option *lopts, int argc, char **argv, int *nargc,
                      char ***nargv);
void cli_config_free(int argc, char **argv);
/** A figure for a text table: @p v printed with @p fmt into @p buf, or "-"
 * when there is none (NaN or Inf: no test set, no AUC for multiclass labels,
 * no delay sampled). The one way tables show a missing value; CSV leaves the
 * field empty and JSON writes null. Returns @p buf. */
const char *cli_fmt_num(char *buf, size_t n, const char *fmt, double v);
/** Prints a double as JSON (null for NaN/Inf). */
void cli_json_num(FILE *f, const char *key, double v, int comma);
/* Writes @p s as a JSON string (quoted, escaped). */
void cli_json_str(FILE *f, const char *s);
/* ,"class_names":[...] of hog_data.class_names @p names. */
void cli_json_classes(FILE *f, const char *names);
/* data info's and model info's rows of a set's class names and categories (either NULL). */
void cli_names_rows(const char *class_names, const char *categories, uint64_t from);
/* "N, features F..G ('work=Private', ...)" of categories @p names from @p from. */
void cli_categories(char *buf, size_t size, const char *names, uint64_t from);
/* "0 'setosa', 1 'versicolor', ..." of @p names in @p buf (cut with the count). */
const char *cli_class_list(char *buf, size_t size, const char *names);
/* --compress as the user writes it ("none", "powersgd:4", "topk:0.05"), in @p buf. */
static inline const char *cli_compress_str(const hog_train_opts *o, char *buf, size_t n)
{
	if (o->compress == HOG_COMPRESS_POWERSGD)
		snprintf(buf, n, "powersgd:%u", (unsigned)o->compress_rank);
	else if (o->compress == HOG_COMPRESS_TOPK)
		snprintf(buf, n, "topk:%g", o->compress_frac);
	else
		snprintf(buf, n, "none");
	return buf;
}
/* A linear model's weights that are not zero (the bias excluded; --l1 makes
 * most of them zero); -1 for the other kinds. */
static inline int64_t cli_linear_nonzeros(const hog_model_info *i)
{
	if (i->kind != HOG_MODEL_LINEAR || !i->weights)
		return -1;
	int64_t n = 0;
	for (uint64_t v = 0; v < i->dim; v++)
		n += i->weights[v] != 0.0f;
	return n;
}
