/* Names of the public enums (hogwild.h) as the command line, meta data and
 * messages spell them, and the reverse. */
#include "sys/names.h"
#include <string.h>

const char *hog_kind_name(enum hog_kind k)
{
	switch (k) {
	case HOG_KIND_SPARSE: return "sparse";
	case HOG_KIND_RATINGS: return "ratings";
	case HOG_KIND_DENSE: return "dense";
	}
	return "unknown";
}

const char *hog_task_name(enum hog_task t)
{
	switch (t) {
	case HOG_TASK_BINARY: return "binary";
	case HOG_TASK_MULTICLASS: return "multiclass";
	case HOG_TASK_REGRESSION: return "regression";
	case HOG_TASK_RATINGS: return "ratings";
	}
	return "unknown";
}

enum hog_task hog_task_parse(const char *s)
{
	for (int t = HOG_TASK_BINARY; t <= HOG_TASK_RATINGS; t++)
		if (!strcmp(s, hog_task_name((enum hog_task)t)))
			return (enum hog_task)t;
	return 0;
}

static const char *const mode_names[] = { "serial", "lockfree", "buffered", "atomic", "striped", "locked", "grid", "replica",
	                                          "auto", "deterministic" };
static const char *const loss_names[] = { "logistic", "hinge", "squared", "softmax" };
static const char *const rule_names[] = { "sgd", "adagrad", "adarevision", "adam", "adamw" };
static const char *const sched_names[] = { "constant", "backoff", "invt" };
static const char *const bind_names[] = { "core", "numa", "none" };

#define NAMEFN(fn, parse, T, tab) \
	const char *fn(T v) { return (unsigned)v < sizeof tab / sizeof *tab ? tab[v] : "unknown"; } \
	int parse(const char *s) { \
		for (unsigned i = 0; s && i < sizeof tab / sizeof *tab; i++) \
			if (!strcmp(s, tab[i])) return (int)i; \
		return -1; }
NAMEFN(hog_mode_name, hog_mode_parse, enum hog_mode, mode_names)
NAMEFN(hog_loss_name, hog_loss_parse, enum hog_loss, loss_names)
NAMEFN(hog_rule_name, hog_rule_parse, enum hog_rule, rule_names)
NAMEFN(hog_sched_name, hog_sched_parse, enum hog_sched, sched_names)
NAMEFN(hog_bind_name, hog_bind_parse, enum hog_bind, bind_names)
