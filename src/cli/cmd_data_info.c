/* `hogwild data info`: what a data set holds and, for a sparse set, its
 * statistics in the Hogwild! paper's terms (Delta, rho, Omega), as text or JSON. */
#include "cli/cli.h"
#include "cli/cmd_data.h"
#include "data/store.h"
#include "sys/err.h"
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char info_usage[] =
	"usage: hogwild data info [--json] [--sample N] D.lmdb\n"
	"\n"
	"Says what a data set holds. For sparse sets it also reads the set, a block at\n"
	"a time, and gives its statistics in the Hogwild! paper's terms (Delta, rho,\n"
	"Omega), and for a multiclass set the examples of each class.\n"
	"\n"
	"  -j, --json        one JSON object instead of text\n"
	"      --sample N    sparse: examples sampled to estimate rho (default 1000;\n"
	"                    0 skips the statistics, the class sizes and the passes\n"
	"                    they need)\n"
	"  -h, --help        this text\n";

struct info {
	const char *path;
	char format[64];
	uint64_t size;
	hog_meta m;
	int has_stats;
	uint64_t sample;
	hog_stats st;
	int split;          /* the "split" meta: 2 none, 0 a split id, 1 before pair ids, -1 damaged */
	hog_split_id sid;
	const char *class_names; /* labels that were names (classes.c), or NULL */
	const char *categories;  /* columns of text: their values' names, or NULL */
	uint64_t category_from;
	const hog_data *h;       /* the header: how the input was read (csv_label, libsvm_base, vw_bits) */
	uint64_t *class_size;    /* multiclass: each class's examples, or NULL */
};

/* Counts each class's examples into f->class_size, a block at a time. */
static int info_class_sizes(hog_store *s, struct info *f, hog_err *err)
{
	const hog_meta *m = &f->m;
	if (!(f->class_size = calloc(m->classes, sizeof *f->class_size)))
		return hog_err_set(err, ENOMEM, "out of memory for %u classes", m->classes);
	hog_blockbuf bb = { 0 };
	int rc = 0;
	for (uint64_t bi = 0; bi < m->blocks && !rc; bi++) {
		hog_block b;
		if ((rc = hog_store_block_buf(s, bi, &b, &bb, err)))
			break;
		for (uint32_t i = 0; i < b.n; i++) {
			const float y = b.labels[i];
			if (y >= 0 && y < (float)m->classes) /* (the block check holds them to the classes) */
				f->class_size[(uint32_t)y]++;
		}
		hog_store_release(s, &b);
	}
	hog_blockbuf_free(&bb);
	return rc;
}

/* "'name'" or "k": how the text names class @p k. */
static const char *info_class(const struct info *f, uint32_t k, char *buf, size_t size)
{
	size_t n;
	const char *name = f->class_names ? hog_class_name(f->class_names, k, &n) : NULL;
	if (name)
		snprintf(buf, size, "'%.*s'", (int)(n > 40 ? 40 : n), name);
	else
		snprintf(buf, size, "%u", k);
	return buf;
}

/* The "split" meta entry of @p s into f->split and f->sid. */
static void info_split(hog_store *s, struct info *f)
{
	f->split = hog_split_id_read(s, &f->sid, NULL, 0);
}

static void json_num(const char *key, double v)
{
	printf(",\"%s\":", key);
	if (isfinite(v))
		printf("%.9g", v);
	else
		fputs("null", stdout);
}

static void json_u64(const char *key, uint64_t v) { printf(",\"%s\":%llu", key, (ull)v); }

static void info_json(const struct info *f)
{
	const hog_meta *m = &f->m;
	double n = m->examples ? (double)m->examples : 1;
	fputs("{\"file\":", stdout);
	cli_json_str(stdout, f->path);
	json_u64("size", f->size);
	fputs(",\"format\":", stdout);
	cli_json_str(stdout, f->format);
	json_u64("version", m->version);
	printf(",\"kind\":\"%s\",\"task\":\"%s\"", hog_kind_name(m->kind), hog_task_name(m->task));
	json_u64("examples", m->examples);
	if (m->kind == HOG_KIND_RATINGS) {
		json_u64("users", m->users);
		json_u64("items", m->items);
	} else {
		json_u64(m->kind == HOG_KIND_DENSE ? "columns" : "features", m->features);
	}
	json_u64("nnz", m->nnz);
	json_u64("blocks", m->blocks);
	const uint64_t need = cli_data_bytes(m), avail = cli_mem_available(NULL, 0);
	json_u64("decoded_bytes", need);
	if (avail) {
		json_u64("available_bytes", avail);
		printf(",\"fits\":%s", need <= avail / 2 ? "true" : "false");
	}
	fputs(",\"source\":", stdout);
	cli_json_str(stdout, m->source);
	if (f->h->csv_fields)
		printf(",\"csv_label\":%u,\"csv_fields\":%u", f->h->csv_label, f->h->csv_fields);
	if (f->h->libsvm_base)
		printf(",\"libsvm_base\":%d", f->h->libsvm_base - 1);
	if (f->h->vw_bits)
		printf(",\"vw_bits\":%u", f->h->vw_bits);
	if (m->task == HOG_TASK_BINARY) {
		json_u64("positives", m->positives);
		json_num("positive_share", (double)m->positives / n);
	}
	if (m->task == HOG_TASK_MULTICLASS)
		json_u64("classes", m->classes);
	if (f->class_names)
		cli_json_classes(stdout, f->class_names);
	if (f->categories)
		printf(",\"categories\":%u,\"category_from\":%llu", hog_class_count(f->categories),
		       (ull)f->category_from);
	if (f->class_size) {
		fputs(",\"class_sizes\":[", stdout);
		for (uint32_t k = 0; k < m->classes; k++)
			printf("%s%llu", k ? "," : "", (ull)f->class_size[k]);
		putchar(']');
	}
	if (m->kind == HOG_KIND_DENSE) {
		printf(",\"values\":\"%s\"", m->dense_u8 ? "u8" : "f32");
		if (m->dense_u8)
			json_num("scale", m->dense_scale);
	}
	printf(",\"labelled\":%s", m->unlabelled ? "false" : "true");
	printf(",\"weighted\":%s", m->weighted ? "true" : "false");
	json_num("weight_sum", m->weight_sum);
	json_num("label_min", m->label_min);
	json_num("label_max", m->label_max);
	json_num("label_mean", m->label_sum / n);
	if (f->split == 0)
		printf(",\"split\":{\"part\":\"%c\",\"pair\":\"%s\",\"from\":\"%s\"}", f->sid.part, f->sid.pair,
		       f->sid.from);
	else if (f->split != 2)
		printf(",\"split\":\"%s\"", f->split == 1 ? "no pair id" : "damaged");
	if (f->has_stats) { /* counts and shares of a loaded set: all finite */
		const hog_stats *s = &f->st;
		printf(",\"stats\":{\"examples\":%llu,\"nnz_mean\":%.9g,\"nnz_min\":%llu,\"nnz_max\":%llu,"
		       "\"used_features\":%llu,\"delta\":%.9g,\"rho_max\":%.9g,\"rho_mean\":%.9g,"
		       "\"rho_sample\":%llu,\"top_feature\":%llu,\"top_count\":%llu,\"top_share\":%.9g,"
		       "\"hot1pct_share\":%.9g}",
		       (ull)s->examples, s->nnz_mean, (ull)s->nnz_min, (ull)s->nnz_max, (ull)s->used_features,
		       s->delta, s->rho_max, s->rho_mean,
		       (ull)(f->sample < m->examples ? f->sample : m->examples), (ull)s->top_feature,
		       (ull)s->top_count, s->nnz ? (double)s->top_count / s->nnz : 0.0, s->hot1pct_share);
	}
	fputs("}\n", stdout);
}

#define ROW(label, ...) (printf("%-14s", label), printf(__VA_ARGS__), putchar('\n'))

static void info_text(const struct info *f)
{
	const hog_meta *m = &f->m;
	double n = m->examples ? (double)m->examples : 1;
	ROW("file", "%s", f->path);
	ROW("size", "%.1f %s (%llu bytes)", f->size < 1000000 ? f->size / 1e3 : f->size / 1e6,
	    f->size < 1000000 ? "kB" : "MB", (ull)f->size);
	ROW("format", "%s, version %u", f->format, m->version);
	ROW("kind", "%s", hog_kind_name(m->kind));
	ROW("task", "%s%s", hog_task_name(m->task), m->unlabelled ? " (no labels: the model's task is taken)" : "");
	ROW(m->kind == HOG_KIND_RATINGS ? "ratings" : "examples", "%llu", (ull)m->examples);
	switch (m->kind) {
	case HOG_KIND_SPARSE:
		ROW("features", "%llu", (ull)m->features);
		ROW("nonzeros", "%llu (%.1f per example, density %.3g%%)", (ull)m->nnz, m->nnz / n,
		    m->features ? 100.0 * m->nnz / n / m->features : 0.0);
		break;
	case HOG_KIND_RATINGS:
		ROW("users x items", "%llu x %llu (density %.3g%%)", (ull)m->users, (ull)m->items,
		    m->users && m->items ? 100.0 * m->examples / ((double)m->users * m->items) : 0.0);
		break;
	case HOG_KIND_DENSE:
		ROW("columns", "%llu", (ull)m->features);
		if (m->dense_u8)
			ROW("values", "u8, value = byte x %g", m->dense_scale);
		else
			ROW("values", "float");
		break;
	}
	ROW("blocks", "%llu", (ull)m->blocks);
	const uint64_t need = cli_data_bytes(m), avail = cli_mem_available(NULL, 0);
	if (avail) { /* the rule eval, predict and train's test sets follow (cli_stream_auto) */
		ROW("in memory", "%.1f MB decoded, %.1f MB available here: %s", need / 1e6, avail / 1e6,
		    need <= avail / 2 ? "fits" : "too large");
		if (need > avail / 2)
			ROW("", "eval, predict, --test stream it; train: --stream%s",
			    m->kind == HOG_KIND_RATINGS ? " (mf: lockfree, not grid)" : "");
	}
	ROW("source", "%.60s%s", m->source[0] ? m->source : "-", strlen(m->source) > 60 ? "..." : "");
	const hog_data *h = f->h; /* (what a set imported apart must be read with to line up with it) */
	if (h->csv_fields)
		ROW("read as", "CSV, the label field %u of %u (--label-col %u)", h->csv_label, h->csv_fields, h->csv_label);
	if (h->libsvm_base)
		ROW("read as", "LIBSVM, indices from %d%s", h->libsvm_base - 1, h->libsvm_base == 1 ? " (--zero-based)" : "");
	if (h->vw_bits)
		ROW("read as", "VW, names hashed into %u bits (--bits %u)", h->vw_bits, h->vw_bits);
	if (m->task == HOG_TASK_BINARY && !m->unlabelled)
		ROW("positives", "%llu (%.1f%%)", (ull)m->positives, 100.0 * m->positives / n);
	if (m->task == HOG_TASK_MULTICLASS)
		ROW("classes", "%u", m->classes);
	cli_names_rows(f->class_names, f->categories, f->category_from);
	if (f->class_size) { /* (the sizes, and the smallest and largest class: more than a label range says) */
		char line[200], a[60], b[60];
		int at = 0;
		uint32_t lo = 0, hi = 0, k = 0;
		for (; k < m->classes; k++) {
			lo = f->class_size[k] < f->class_size[lo] ? k : lo;
			hi = f->class_size[k] > f->class_size[hi] ? k : hi;
			if (at < (int)sizeof line - 30)
				at += snprintf(line + at, sizeof line - (size_t)at, "%s%llu", k ? " " : "", (ull)f->class_size[k]);
			else if (at < (int)sizeof line - 4)
				at += snprintf(line + at, sizeof line - (size_t)at, " ...");
		}
		ROW("class sizes", "%s", line);
		if (f->class_size[lo] == f->class_size[hi])
			ROW("", "every class %.3g%%", 100.0 * f->class_size[lo] / n);
		else
			ROW("", "smallest %s: %.3g%%, largest %s: %.3g%%", info_class(f, lo, a, sizeof a),
			    100.0 * f->class_size[lo] / n, info_class(f, hi, b, sizeof b), 100.0 * f->class_size[hi] / n);
	}
	if (m->unlabelled)
		ROW("labels", "none: a set to predict on (eval and training refuse it)");
	else if (!f->class_size)
		ROW(m->kind == HOG_KIND_RATINGS ? "rating range" : "label range", "%g .. %g (mean %.4g)",
		    m->label_min, m->label_max, m->label_sum / n);
	if (m->weighted)
		ROW("weights", "sum %.6g (mean %.4g per example)", m->weight_sum, m->weight_sum / n);
	if (f->split == 0)
		ROW("split", "half %c, pair %s, input %s", f->sid.part, f->sid.pair, f->sid.from);
	else if (f->split == 1)
		ROW("split", "a half made before pair ids (nothing to compare a test set with)");
	else if (f->split < 0)
		ROW("split", "meta entry damaged: ignored (no pair id; data verify says more)");
	if (!f->has_stats)
		return;
	const hog_stats *s = &f->st;
	ROW("nnz/example", "mean %.1f, min %llu, max %llu (Omega)", s->nnz_mean, (ull)s->nnz_min,
	    (ull)s->nnz_max);
	ROW("used features", "%llu of %llu (%.1f%%)", (ull)s->used_features, (ull)m->features,
	    m->features ? 100.0 * s->used_features / m->features : 0.0);
	ROW("Delta", "%.4g (largest share of examples with one feature)", s->delta);
	ROW("rho", "max %.4g, mean %.4g (sample of %llu examples)", s->rho_max, s->rho_mean,
	    (ull)(f->sample < m->examples ? f->sample : m->examples));
	ROW("top feature", "id %llu (LIBSVM index %llu): %.3g%% of nonzeros", (ull)s->top_feature,
	    (ull)s->top_feature + 1, s->nnz ? 100.0 * s->top_count / s->nnz : 0.0);
	ROW("hottest 1%", "of the features hold %.3g%% of the nonzeros", 100.0 * s->hot1pct_share);
}

int data_info(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json", no_argument, 0, 'j' }, { "sample", required_argument, 0, OPT_SAMPLE },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	const char *cmd = "data info", *U = info_usage;
	int json = 0, c, rc;
	struct info f = { .sample = 1000 };
	while ((c = getopt_long(argc, argv, ":jh", lo, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case OPT_SAMPLE:
			rc = data_u64(cmd, U, "--sample", optarg, 0, 1ull << 40, &f.sample);
			break;
		case 'h': fputs(U, stdout); return 0;
		default: return data_opt_error(cmd, U, lo, c, argv);
		}
		if (rc)
			return rc;
	}
	if (argc - optind != 1)
		return cli_usage_error(cmd, U, argc == optind ? "no data set given" : "one data set at a time");
	f.path = argv[optind];
	if (cli_check_input(cmd, NULL, f.path))
		return 1;
	hog_err err = { 0 };
	hog_store *s;
	if ((rc = hog_store_open(&s, f.path, &err)))
		return cli_fail(&err, rc);
	f.m = *hog_store_meta(s);
	if (hog_store_meta_get(s, "format", f.format, sizeof f.format) != 0)
		strcpy(f.format, "?");
	info_split(s, &f);
	/* block by block: the set may be larger than memory (issue 23) */
	if (f.m.kind == HOG_KIND_SPARSE && f.sample > 0) {
		if ((rc = hog_store_stats(s, f.sample, 1, &f.st, &err))) {
			hog_store_close(s);
			return cli_fail(&err, rc);
		}
		f.has_stats = 1;
	}
	if (f.m.task == HOG_TASK_MULTICLASS && !f.m.unlabelled && f.m.classes && f.sample > 0 &&
	    (rc = info_class_sizes(s, &f, &err))) {
		hog_store_close(s);
		free(f.class_size);
		return cli_fail(&err, rc);
	}
	hog_store_close(s);
	hog_data *h = NULL; /* (the class names, checked) */
	if ((rc = hog_data_load_header(&h, f.path, &err))) {
		free(f.class_size);
		return cli_fail(&err, rc);
	}
	f.class_names = h->class_names;
	f.categories = h->categories;
	f.category_from = h->category_from;
	f.h = h;
	struct stat st;
	if (stat(f.path, &st) == 0)
		f.size = (uint64_t)st.st_size;
	if (json)
		info_json(&f);
	else
		info_text(&f);
	hog_data_free(h);
	free(f.class_size);
	return 0;
}

