/* Example weights and class weights (issue 24): what one example counts for in
 * the loss and its gradient. An example's effective weight is its own weight
 * (the data set's, hog_block.weights; 1 when the set has none) times its
 * class's weight (--class-weight). The engine works them out once per run
 * (eng_weights_setup) into e->wts, one per training example, or leaves it NULL
 * when every weight is 1: then the models' kernels run as they did before
 * weights existed, multiplying the example's gradient by 1.0f. A streaming
 * model computes them per block with eng_weight(). */
#include "train/engine.h"
#include "sys/err.h"
#include "sys/names.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The class named @p s..e of a set of @p task with @p classes: one of the
 * set's class @p names (NULL: none), else 0/1 for binary (negative/positive),
 * the class number for multiclass; -1 when it is none. Task 0 (not known yet,
 * the command line's check): any name. */
static long cw_class(const char *s, size_t n, enum hog_task task, uint32_t classes, const char *names)
{
	char buf[32];
	size_t len;
	const char *nm;
	for (uint32_t k = 0; names && (nm = hog_class_name(names, k, &len)); k++)
		if (len == n && !memcmp(nm, s, n))
			return k;
	if (n == 0 || (n >= sizeof buf && task))
		return -1;
	if (!task)
		return 0;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (task == HOG_TASK_BINARY) {
		if (!strcmp(buf, "1") || !strcmp(buf, "+1") || !strcmp(buf, "pos"))
			return 1;
		if (!strcmp(buf, "0") || !strcmp(buf, "-1") || !strcmp(buf, "neg"))
			return 0;
		return -1;
	}
	char *end;
	errno = 0;
	long c = strtol(buf, &end, 10);
	if (*end || errno || c < 0 || (task == HOG_TASK_MULTICLASS && (unsigned long)c >= classes))
		return -1;
	return c;
}

int eng_class_weights_parse(const char *spec, enum hog_task task, uint32_t classes, const char *names, float *cw,
                            char *why, size_t wlen)
{
	uint32_t n = task == HOG_TASK_BINARY ? 2 : classes;
	for (uint32_t c = 0; cw && c < n; c++)
		cw[c] = 1.0f;
	if (!strcmp(spec, "balanced"))
		return 0; /* (the counts are the set's: eng_weights_setup) */
	if (!*spec) {
		snprintf(why, wlen, "empty: give balanced or C=W,C=W,...");
		return -1;
	}
	for (const char *p = spec; *p;) {
		const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p), *eq = memchr(p, '=', (size_t)(end - p));
		if (!eq) {
			snprintf(why, wlen, "'%.*s': expected CLASS=WEIGHT", (int)(end - p > 40 ? 40 : end - p), p);
			return -1;
		}
		long c = cw_class(p, (size_t)(eq - p), task, classes, names);
		if (c < 0) {
			char list[120];
			if (names) {
				size_t len, at = 0;
				const char *nm;
				uint32_t k = 0;
				list[0] = 0;
				for (; (nm = hog_class_name(names, k, &len)) && at + len + 8 < sizeof list; k++)
					at += (size_t)snprintf(list + at, sizeof list - at, "%s%.*s", k ? ", " : "", (int)len, nm);
				snprintf(why, wlen, "class '%.*s' is not one of the set's classes (%s%s)",
				         (int)(eq - p > 20 ? 20 : eq - p), p, list, k < hog_class_count(names) ? ", ..." : "");
			} else if (task == HOG_TASK_BINARY)
				snprintf(why, wlen, "class '%.*s': a binary set's classes are 1 (+1, pos) and 0 (-1, neg)",
				         (int)(eq - p > 20 ? 20 : eq - p), p);
			else if (task == HOG_TASK_MULTICLASS)
				snprintf(why, wlen, "class '%.*s' is not one of the set's classes 0..%u", (int)(eq - p > 20 ? 20 : eq - p),
				         p, classes - 1);
			else
				snprintf(why, wlen, "class '%.*s' is not a class number", (int)(eq - p > 20 ? 20 : eq - p), p);
			return -1;
		}
		char *wend;
		errno = 0;
		double w = strtod(eq + 1, &wend);
		if (wend != end || eq + 1 == end || errno || !(isfinite(w) && w > 0 && (float)w > 0 && isfinite((float)w))) {
			snprintf(why, wlen, "weight '%.*s' of class %ld: a weight is a finite number > 0",
			         (int)(end - eq - 1 > 20 ? 20 : end - eq - 1), eq + 1, c);
			return -1;
		}
		if (cw && (uint32_t)c < n)
			cw[c] = (float)w;
		p = comma ? comma + 1 : end;
		if (comma && !*p) {
			snprintf(why, wlen, "a trailing ','");
			return -1;
		}
	}
	return 0;
}

int eng_weights_setup(hog_engine *e)
{
	const hog_data *tr = e->tr;
	const char *spec = e->o.class_weight;
	e->weighted = tr->meta.weighted;
	if (spec) {
		enum hog_task t = tr->meta.task;
		if (t != HOG_TASK_BINARY && t != HOG_TASK_MULTICLASS)
			return hog_err_set(e->err, HOG_ECONFIG, "--class-weight: the training set's task is %s; class weights "
			                   "apply to binary and multiclass sets (example weights apply to every set)",
			                   hog_task_name(t));
		e->ncw = t == HOG_TASK_BINARY ? 2 : tr->meta.classes;
		if (!(e->cw = malloc(e->ncw * sizeof *e->cw)))
			return hog_err_set(e->err, ENOMEM, "out of memory for %u class weights", e->ncw);
		char why[200];
		if (eng_class_weights_parse(spec, t, tr->meta.classes, tr->class_names, e->cw, why, sizeof why))
			return hog_err_set(e->err, HOG_ECONFIG, "--class-weight %s: %s", spec, why);
		if (!strcmp(spec, "balanced")) {
			uint64_t *cnt = calloc(e->ncw, sizeof *cnt);
			if (!cnt)
				return hog_err_set(e->err, ENOMEM, "out of memory");
			if (t == HOG_TASK_BINARY) {
				cnt[1] = tr->meta.positives;
				cnt[0] = tr->meta.examples - tr->meta.positives;
			} else if (tr->labels) {
				for (uint64_t i = 0; i < tr->n; i++)
					cnt[(uint32_t)tr->labels[i]]++;
			} else {
				free(cnt);
				return hog_err_set(e->err, HOG_ECONFIG, "--class-weight balanced: a multiclass set's class counts "
				                   "need it loaded (not --stream)");
			}
			for (uint32_t c = 0; c < e->ncw; c++) /* n / (classes * n_c); a class without examples: 1 */
				e->cw[c] = cnt[c] ? (float)((double)tr->meta.examples / ((double)e->ncw * (double)cnt[c])) : 1.0f;
			free(cnt);
		}
		e->weighted = 1;
	}
	if (!e->weighted)
		return 0;
	if (!e->ops->weighs)
		return hog_err_set(e->err, HOG_ENOTSUP, "the %s model does not take example or class weights yet "
		                   "(the training set %s)", hog_model_kind_name(e->ops->kind),
		                   spec ? "is given --class-weight" : "has example weights");
	if (!tr->labels && !tr->ratings)
		return 0; /* streamed: eng_weight() per block */
	if (!(e->wts = malloc((tr->n ? tr->n : 1) * sizeof *e->wts)))
		return hog_err_set(e->err, ENOMEM, "out of memory for %llu example weights", (unsigned long long)tr->n);
	double sum = 0;
	for (uint64_t i = 0; i < tr->n; i++)
		sum += e->wts[i] = eng_weight(e, tr->weights ? tr->weights[i] : 1.0f, tr->labels ? tr->labels[i] : 0.0f);
	e->weight_sum = sum;
	return 0;
}
