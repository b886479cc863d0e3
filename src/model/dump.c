/* A model file as text and back (hogwild(1), model dump and model load).
 *
 * A dump is a header of "key value" lines, then one line per record of
 * parameters (hog_model_rec: each kind lists its own through its table):
 *
 *   hogwild-model-dump 1
 *   kind K / loss L / rule R / schedule S      the names hogwild.h's enums take
 *   shape S0 S1 S2 S3 / flags F / aux A        the model record's shapes (model.h)
 *   epochs E / examples T                      training state
 *   lr / l2 / beta / backoff / t0 / seed / warmup   hyper-parameters
 *   task T|none / ids yes|no                   the training set's task; mf: id maps kept
 *   columns TEXT / class_names TEXT / split TEXT  optional ('\' and newlines escaped)
 *   category_from N, categories TEXT          optional, together
 *   negative_label 0                           optional: a binary training set's negatives were 0
 *   hashes DATA OPTS / positions N P1..PN      optional: a checkpoint's bookkeeping
 *   records N                                  then exactly N record lines
 *
 * Blank lines and lines starting with '#' are allowed in the header only. The
 * header's keys may come in any order; each once. Floats print as "%.9g" and
 * doubles as "%.17g", which read back to the same bits, so a dump read back
 * gives the file dumped, byte for byte (hog_model_undump).
 */
#include "model/model.h"
#include "sys/err.h"
#include "sys/file.h"
#include "sys/names.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DUMP_MAGIC "hogwild-model-dump"
#define DUMP_VERSION 1
#define OUT_CAP (1u << 20)

/* ------------------------------------------------------------------ writing */

typedef struct dump_out {
	int fd;
	char *buf;
	size_t pos;
	int rc; /* the first write error */
} dump_out;

static void out_flush(dump_out *o)
{
	size_t at = 0;
	while (!o->rc && at < o->pos) {
		ssize_t k = write(o->fd, o->buf + at, o->pos - at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			o->rc = k < 0 ? errno : EIO;
		else
			at += (size_t)k;
	}
	o->pos = 0;
}

static void out_bytes(dump_out *o, const char *p, size_t n)
{
	while (n) {
		if (o->pos == OUT_CAP)
			out_flush(o);
		size_t k = n < OUT_CAP - o->pos ? n : OUT_CAP - o->pos;
		memcpy(o->buf + o->pos, p, k);
		o->pos += k;
		p += k;
		n -= k;
	}
}

static void __attribute__((format(printf, 2, 3))) out_fmt(dump_out *o, const char *fmt, ...)
{
	char t[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t, sizeof t, fmt, ap);
	va_end(ap);
	out_bytes(o, t, n < 0 ? 0 : (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

/* "key TEXT" with '\' as "\\" and a newline as "\n" (a CSV header's quoted names). */
static void out_text(dump_out *o, const char *key, const char *s)
{
	out_fmt(o, "%s ", key);
	for (; *s; s++)
		if (*s == '\\' || *s == '\n')
			out_bytes(o, *s == '\\' ? "\\\\" : "\\n", 2);
		else
			out_bytes(o, s, 1);
	out_bytes(o, "\n", 1);
}

static const char *const layout_note[] = {
	[HOG_MODEL_LINEAR] = "# linear: FEATURE_ID WEIGHT [STATE...] per feature (LIBSVM ids, from 1), then bias B [STATE...]",
	[HOG_MODEL_MF] = "# mf: u USER F1..Fk, i ITEM F1..Fk, then bu/bi ID BIAS, gu/gi/gbu/gbi ID ACCUMULATOR",
	[HOG_MODEL_MLP] = "# mlp: Wl ROW V1..Vn (input ROW's weights to layer l+1's n units), bl V1..Vn; sWl, sbl: the state (Adam: the first moment; vWl, vbl: the second)",
};

static void dump_header(dump_out *o, const hog_model *m, const hog_ckpt *ck, uint64_t nrec)
{
	out_fmt(o, "%s %d\nkind %s\nloss %s\nrule %s\nschedule %s\n", DUMP_MAGIC, DUMP_VERSION,
	        hog_model_kind_name(m->kind), hog_loss_name(m->loss), hog_rule_name(m->rule), hog_sched_name(m->sched));
	out_fmt(o, "shape %llu %llu %llu %llu\nflags %u\naux %.17g\n", (unsigned long long)m->shape[0],
	        (unsigned long long)m->shape[1], (unsigned long long)m->shape[2], (unsigned long long)m->shape[3],
	        m->flags, m->aux);
	out_fmt(o, "epochs %d\nexamples %llu\nlr %.17g\nl2 %.17g\nbeta %.17g\nbackoff %.17g\nt0 %.17g\n", m->epochs_done,
	        (unsigned long long)m->t, m->lr, m->l2, m->beta, m->backoff, m->t0);
	out_fmt(o, "seed %llu\nwarmup %llu\ntask %s\nids %s\n", (unsigned long long)m->seed,
	        (unsigned long long)m->warmup, m->task ? hog_task_name(m->task) : "none",
	        m->user_ids && m->item_ids && m->nuser_ids == m->shape[0] && m->nitem_ids == m->shape[1] ? "yes" : "no");
	if (m->columns)
		out_text(o, "columns", m->columns);
	if (m->class_names)
		out_text(o, "class_names", m->class_names);
	if (m->categories) {
		out_fmt(o, "category_from %llu\n", (unsigned long long)m->category_from);
		out_text(o, "categories", m->categories);
	}
	if (m->split)
		out_text(o, "split", m->split);
	if (m->neg_zero)
		out_fmt(o, "negative_label 0\n");
	if (m->csv_fields)
		out_fmt(o, "label_column %u %u\n", m->csv_label, m->csv_fields);
	if (m->vw_bits)
		out_fmt(o, "vw_bits %u\n", m->vw_bits);
	if (ck->data_hash || ck->opts_hash)
		out_fmt(o, "hashes %llu %llu\n", (unsigned long long)ck->data_hash, (unsigned long long)ck->opts_hash);
	if (ck->in_epoch) {
		out_fmt(o, "positions %u", ck->nworkers);
		for (uint32_t w = 0; w < ck->nworkers; w++)
			out_fmt(o, " %llu", (unsigned long long)ck->positions[w]);
		out_bytes(o, "\n", 1);
	}
	out_fmt(o, "%s\nrecords %llu\n", layout_note[m->kind], (unsigned long long)nrec);
}

int hog_model_dump(const char *path, int fd, hog_err *err)
{
	hog_model *m;
	hog_ckpt ck;
	int rc = hog_model_load_ckpt(&m, &ck, path, err);
	if (rc)
		return rc;
	dump_out o = { .fd = fd, .buf = malloc(OUT_CAP) };
	if (!o.buf) {
		hog_model_free(m);
		free(ck.positions);
		return hog_err_set(err, ENOMEM, "%s: out of memory", path);
	}
	const hog_model_kind_ops *k = hog_model_kind_get(m->kind);
	const uint64_t n = k->records(m);
	dump_header(&o, m, &ck, n);
	for (uint64_t r = 0; r < n && !o.rc; r++) {
		hog_model_rec rec;
		k->record(m, r, &rec);
		int first = 1;
		if (rec.tag[0]) {
			out_bytes(&o, rec.tag, strlen(rec.tag));
			first = 0;
		}
		if (rec.has_id) {
			out_fmt(&o, first ? "%llu" : " %llu", (unsigned long long)rec.id);
			first = 0;
		}
		for (uint64_t j = 0; j < rec.len; j++) {
			out_fmt(&o, first ? "%.9g" : " %.9g", (double)m->params[rec.at + j]);
			first = 0;
		}
		out_bytes(&o, "\n", 1);
	}
	out_flush(&o);
	if (o.rc)
		rc = hog_err_set(err, o.rc, "model dump: writing: %s%s", strerror(o.rc),
		                 o.rc == EPIPE ? " (the reader went away)" : "");
	free(o.buf);
	free(ck.positions);
	hog_model_free(m);
	return rc;
}

/* ------------------------------------------------------------------ reading */

typedef struct dump_in {
	FILE *f;
	const char *path;
	char *line;
	size_t cap;
	uint64_t lineno;
	uint64_t size; /* the file's bytes: what its records can fill */
	hog_err *err;
} dump_in;

/* The next line without its end of line; 0 at the end of the file. */
static int in_line(dump_in *in)
{
	ssize_t n = getline(&in->line, &in->cap, in->f);
	if (n < 0)
		return 0;
	in->lineno++;
	while (n > 0 && (in->line[n - 1] == '\n' || in->line[n - 1] == '\r'))
		in->line[--n] = 0;
	return 1;
}

static int __attribute__((format(printf, 2, 3))) in_bad(dump_in *in, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return hog_err_set(in->err, HOG_EDATA, "%s:%llu: %s", in->path, (unsigned long long)in->lineno, msg);
}

/* The next blank-separated word at *p (advanced past it) into w (NUL-ended,
 * at most @p n - 1 bytes: a longer word is cut); 0 when there is none. */
static int word(const char **p, char *w, size_t n)
{
	const char *s = *p + strspn(*p, " \t");
	size_t l = strcspn(s, " \t");
	if (!l)
		return 0;
	snprintf(w, n, "%.*s", (int)(l < n ? l : n - 1), s);
	*p = s + l;
	return 1;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static int parse_f64(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return !*s || *end || !isfinite(*v) ? -1 : 0;
}

/* Undoes out_text()'s escapes in place. */
static int unescape(char *s)
{
	char *d = s;
	for (; *s; s++) {
		if (*s != '\\')
			*d++ = *s;
		else if (s[1] == '\\' || s[1] == 'n')
			*d++ = *++s == 'n' ? '\n' : '\\';
		else
			return -1;
	}
	*d = 0;
	return 0;
}

/* What the header says, before the model exists. */
typedef struct dump_head {
	hog_model m; /* kind, loss, rule, sched, shapes, flags, hyper-parameters, task */
	hog_ckpt ck;
	int ids;
	char *columns, *split, *class_names, *categories;
	int has_from; /* a category_from line */
	uint64_t records;
} dump_head;

enum { K_KIND, K_LOSS, K_RULE, K_SCHED, K_SHAPE, K_FLAGS, K_AUX, K_EPOCHS, K_EXAMPLES, K_LR, K_L2, K_BETA,
       K_BACKOFF, K_T0, K_SEED, K_WARMUP, K_TASK, K_IDS, K_RECORDS, K_REQUIRED, K_COLUMNS = K_REQUIRED, K_SPLIT,
       K_HASHES, K_POSITIONS, K_CLASS_NAMES, K_CATEGORIES, K_CATEGORY_FROM, K_NEGATIVE_LABEL, K_LABEL_COLUMN,
       K_VW_BITS, K_COUNT };
static const char *const keys[K_COUNT] = { "kind", "loss", "rule", "schedule", "shape", "flags", "aux", "epochs",
	"examples", "lr", "l2", "beta", "backoff", "t0", "seed", "warmup", "task", "ids", "records", "columns",
	"split", "hashes", "positions", "class_names", "categories", "category_from", "negative_label",
	"label_column", "vw_bits" };

/* An enum's value by name (@p parse), or a message listing the names. */
static int head_enum(dump_in *in, const char *key, const char *v, int (*parse)(const char *), const char *names,
                     uint32_t *out)
{
	int x = parse(v);
	if (x < 0)
		return in_bad(in, "%s: '%.40s' is not one of %s", key, v, names);
	*out = (uint32_t)x;
	return 0;
}

static int task_parse(const char *s)
{
	return !strcmp(s, "none") ? 0 : hog_task_parse(s) ? (int)hog_task_parse(s) : -1;
}

static int kind_parse(const char *s)
{
	int k = hog_model_kind_parse(s);
	return k > 0 && hog_model_kind_get((enum hog_model_kind)k) ? k : -1;
}

/* "positions N P1 .. PN" */
static int head_positions(dump_in *in, const char *p, hog_ckpt *ck)
{
	char w[32];
	uint64_t n;
	if (!word(&p, w, sizeof w) || parse_u64(w, &n) || n < 1 || n > 65536)
		return in_bad(in, "positions: the worker count must be 1 to 65536");
	if (!(ck->positions = calloc(n, sizeof *ck->positions)))
		return hog_err_set(in->err, ENOMEM, "%s: out of memory", in->path);
	ck->in_epoch = 1;
	ck->nworkers = (uint32_t)n;
	for (uint64_t i = 0; i < n; i++)
		if (!word(&p, w, sizeof w) || parse_u64(w, &ck->positions[i]))
			return in_bad(in, "positions: %llu workers need %llu positions (whole numbers)", (unsigned long long)n,
			              (unsigned long long)n);
	return word(&p, w, sizeof w) ? in_bad(in, "positions: more than %llu positions", (unsigned long long)n) : 0;
}

/* The value of header key @p k, the rest of the line at @p p. */
static int head_value(dump_in *in, dump_head *h, int k, const char *p)
{
	hog_model *m = &h->m;
	char w[64];
	uint64_t u[4] = { 0 };
	double d = 0;
	p += strspn(p, " \t");
	if (k == K_COLUMNS || k == K_SPLIT || k == K_CLASS_NAMES || k == K_CATEGORIES) {
		char **dst = k == K_COLUMNS ? &h->columns : k == K_SPLIT ? &h->split : k == K_CLASS_NAMES ? &h->class_names
		                                                                                          : &h->categories;
		if (!*p || !(*dst = strdup(p)) || unescape(*dst) || (k == K_SPLIT && strlen(*dst) > 256))
			return *p && !*dst ? hog_err_set(in->err, ENOMEM, "%s: out of memory", in->path)
			                   : in_bad(in, "%s: empty, too long or a bad escape (\\\\ and \\n only)", keys[k]);
		if ((k == K_CLASS_NAMES || k == K_CATEGORIES) && !hog_class_names_ok(*dst, strlen(*dst)))
			return in_bad(in, "%s: each name must be non-empty and end with \\n, with no other control "
			              "character", keys[k]);
		return 0;
	}
	if (k == K_POSITIONS)
		return head_positions(in, p, &h->ck);
	if (k == K_NEGATIVE_LABEL) { /* a binary training set's negatives: 0 (-1, the default, is not written) */
		if (strcmp(p, "0") && strcmp(p, "-1"))
			return in_bad(in, "negative_label: '%.40s' is not 0 or -1", p);
		h->m.neg_zero = !strcmp(p, "0");
		return 0;
	}
	int nw = k == K_SHAPE ? 4 : k == K_HASHES || k == K_LABEL_COLUMN ? 2 : 1;
	char v[4][64];
	for (int i = 0; i < nw; i++)
		if (!word(&p, v[i], sizeof v[i]))
			return in_bad(in, "%s needs %d value%s", keys[k], nw, nw > 1 ? "s" : "");
	if (word(&p, w, sizeof w))
		return in_bad(in, "%s: '%.40s' after its value%s", keys[k], w, nw > 1 ? "s" : "");
	switch (k) {
	case K_KIND: return head_enum(in, "kind", v[0], kind_parse, "linear, mf, mlp", &m->kind);
	case K_LOSS: return head_enum(in, "loss", v[0], hog_loss_parse, "logistic, hinge, squared, softmax", &m->loss);
	case K_RULE: return head_enum(in, "rule", v[0], hog_rule_parse, "sgd, adagrad, adarevision", &m->rule);
	case K_SCHED: return head_enum(in, "schedule", v[0], hog_sched_parse, "constant, backoff, invt", &m->sched);
	case K_TASK: return head_enum(in, "task", v[0], task_parse, "none, binary, multiclass, regression, ratings",
		                          &m->task);
	case K_IDS:
		if (strcmp(v[0], "yes") && strcmp(v[0], "no"))
			return in_bad(in, "ids: '%.40s' is not yes or no", v[0]);
		h->ids = !strcmp(v[0], "yes");
		return 0;
	}
	const int real = k == K_AUX || (k >= K_LR && k <= K_T0);
	for (int i = 0; i < nw; i++)
		if (real ? parse_f64(v[i], &d) : parse_u64(v[i], &u[i]))
			return in_bad(in, "%s: '%.40s' is not a %s", keys[k], v[i], real ? "finite number" : "whole number");
	if ((k == K_FLAGS && u[0] > UINT32_MAX) || (k == K_EPOCHS && u[0] > INT32_MAX) ||
	    (k >= K_LR && k <= K_BACKOFF && d < 0))
		return in_bad(in, "%s: %s is out of range", keys[k], v[0]);
	switch (k) {
	case K_SHAPE: memcpy(m->shape, u, sizeof m->shape); break;
	case K_FLAGS: m->flags = (uint32_t)u[0]; break;
	case K_AUX: m->aux = d; break;
	case K_EPOCHS: m->epochs_done = (int)u[0]; break;
	case K_EXAMPLES: m->t = u[0]; break;
	case K_LR: m->lr = d; break;
	case K_L2: m->l2 = d; break;
	case K_BETA: m->beta = d; break;
	case K_BACKOFF: m->backoff = d; break;
	case K_T0: m->t0 = d; break;
	case K_SEED: m->seed = u[0]; break;
	case K_WARMUP: m->warmup = u[0]; break;
	case K_HASHES: h->ck.data_hash = u[0]; h->ck.opts_hash = u[1]; break;
	case K_RECORDS: h->records = u[0]; break;
	case K_LABEL_COLUMN: /* "label_column K N": a CSV training set's label, field K of N */
		if (u[0] >= u[1] || u[1] > UINT32_MAX)
			return in_bad(in, "label_column: column %llu of %llu fields", (unsigned long long)u[0],
			              (unsigned long long)u[1]);
		m->csv_label = (uint32_t)u[0];
		m->csv_fields = (uint32_t)u[1];
		break;
	case K_VW_BITS:
		if (u[0] < 1 || u[0] > 31)
			return in_bad(in, "vw_bits: %llu is not 1..31", (unsigned long long)u[0]);
		m->vw_bits = (uint32_t)u[0];
		break;
	case K_CATEGORY_FROM:
		m->category_from = u[0];
		h->has_from = 1;
		break;
	}
	return 0;
}

/* Reads the header up to and with its "records" line. */
static int read_head(dump_in *in, dump_head *h)
{
	char w[64];
	const char *p;
	if (!in_line(in))
		return hog_err_set(in->err, HOG_EDATA, "%s: empty: not a hogwild model dump", in->path);
	if ((p = in->line, !word(&p, w, sizeof w)) || strcmp(w, DUMP_MAGIC))
		return in_bad(in, "not a hogwild model dump (the first line is not '%s %d')", DUMP_MAGIC, DUMP_VERSION);
	uint64_t ver;
	if (!word(&p, w, sizeof w) || parse_u64(w, &ver) || ver == 0)
		return in_bad(in, "not a hogwild model dump (no format version after '%s')", DUMP_MAGIC);
	if (ver > DUMP_VERSION)
		return in_bad(in, "dump format version %llu is newer than this hogwild reads (%d)", (unsigned long long)ver,
		              DUMP_VERSION);
	unsigned seen = 0;
	while (in_line(in)) {
		p = in->line;
		if (!word(&p, w, sizeof w) || w[0] == '#')
			continue;
		int k = 0;
		while (k < K_COUNT && strcmp(w, keys[k]))
			k++;
		if (k == K_COUNT)
			return in_bad(in, "unknown header key '%.40s'", w);
		if (seen & (1u << k))
			return in_bad(in, "'%s' is given twice", keys[k]);
		seen |= 1u << k;
		int rc = head_value(in, h, k, p);
		if (rc)
			return rc;
		if (k == K_RECORDS)
			break;
	}
	if (!(seen & (1u << K_RECORDS)))
		return in_bad(in, "the dump ends in its header (no 'records' line)");
	for (int k = 0; k < K_REQUIRED; k++)
		if (!(seen & (1u << k)))
			return in_bad(in, "the header lacks '%s'", keys[k]);
	if ((h->categories != NULL) != h->has_from)
		return in_bad(in, "'categories' and 'category_from' go together");
	return 0;
}

/* The model the header describes, its id maps allocated when it keeps them. */
static int head_model(dump_in *in, dump_head *h, hog_model **out)
{
	const hog_model *hm = &h->m;
	hog_model probe = { .kind = hm->kind, .loss = hm->loss, .rule = hm->rule, .flags = hm->flags };
	probe.stride = hm->rule == HOG_RULE_SGD ? 1 : hm->rule == HOG_RULE_ADAGRAD ? 2 : 4;
	memcpy(probe.shape, hm->shape, sizeof probe.shape);
	const hog_model_kind_ops *k = hog_model_kind_get(hm->kind);
	const uint64_t np = k->nparams(&probe);
	if (!np)
		return in_bad(in, "the header's shapes, flags, loss and rule do not make a %s model", k->name);
	/* every value takes two bytes of a record line at least (16 floats a
	 * value where mf pads its rows): no allocation beyond what the file holds */
	if (np / 16 > in->size / 2 + 64 || h->records > in->size / 2 + 1)
		return in_bad(in, "the dump is too short for the shapes its header gives (%llu parameters in %llu "
		              "records)", (unsigned long long)np, (unsigned long long)h->records);
	hog_model *m = hog_model_alloc(hm->kind, hm->loss, hm->rule, hm->shape, hm->flags);
	if (!m)
		return hog_err_set(in->err, ENOMEM, "%s: out of memory", in->path);
	m->sched = hm->sched;
	m->aux = hm->aux;
	m->epochs_done = hm->epochs_done;
	m->t = hm->t;
	m->lr = hm->lr;
	m->l2 = hm->l2;
	m->beta = hm->beta;
	m->backoff = hm->backoff;
	m->t0 = hm->t0;
	m->seed = hm->seed;
	m->warmup = hm->warmup;
	m->task = hm->task;
	m->columns = h->columns;
	m->split = h->split;
	m->class_names = h->class_names;
	m->categories = h->categories;
	m->category_from = hm->category_from;
	m->neg_zero = hm->neg_zero;
	m->csv_label = hm->csv_label;
	m->csv_fields = hm->csv_fields;
	m->vw_bits = hm->vw_bits;
	h->columns = h->split = h->class_names = h->categories = NULL;
	*out = m;
	if (h->ids && (!(m->user_ids = calloc(m->shape[0] + 1, 8)) || !(m->item_ids = calloc(m->shape[1] + 1, 8))))
		return hog_err_set(in->err, ENOMEM, "%s: out of memory", in->path);
	m->nuser_ids = h->ids ? m->shape[0] : 0;
	m->nitem_ids = h->ids ? m->shape[1] : 0;
	const uint64_t n = k->records(m);
	if (h->records != n)
		return in_bad(in, "records %llu: the shapes call for %llu", (unsigned long long)h->records,
		              (unsigned long long)n);
	/* the maps must be the model's to keep: its records carry every entry */
	uint64_t slots = 0;
	for (uint64_t r = 0; h->ids && r < n; r++) {
		hog_model_rec rec;
		k->record(m, r, &rec);
		slots += rec.id_slot != NULL;
	}
	if (h->ids && (!m->nuser_ids || !m->nitem_ids || slots != m->nuser_ids + m->nitem_ids))
		return in_bad(in, "ids yes: a %s model of these shapes keeps no id maps", k->name);
	return 0;
}

/* Record @p r's line: its tag, its id (kept in the model's map, or checked),
 * its values. */
static int read_record(dump_in *in, hog_model *m, const hog_model_rec *rec)
{
	const char *p = in->line;
	char w[64];
	if (rec->tag[0] && (!word(&p, w, sizeof w) || strcmp(w, rec->tag)))
		return in_bad(in, "expected a '%s' record here, found '%.40s'", rec->tag, p == in->line ? in->line : w);
	uint64_t id = 0;
	if (rec->has_id && (!word(&p, w, sizeof w) || parse_u64(w, &id)))
		return in_bad(in, "%s%sno id (a whole number) where one was expected", rec->tag, rec->tag[0] ? ": " : "");
	if (rec->has_id && !rec->id_slot && id != rec->id)
		return in_bad(in, "%s%sid %llu, expected %llu (records come in the dump's order)", rec->tag,
		              rec->tag[0] ? ": " : "", (unsigned long long)id, (unsigned long long)rec->id);
	if (rec->id_slot)
		*rec->id_slot = id;
	uint64_t j = 0;
	for (; j < rec->len && word(&p, w, sizeof w); j++) {
		char *end;
		float v = strtof(w, &end);
		if (*end || !isfinite(v))
			return in_bad(in, "'%.40s' is not a finite number (value %llu of the record)", w,
			              (unsigned long long)j + 1);
		m->params[rec->at + j] = v;
	}
	if (j < rec->len || word(&p, w, sizeof w))
		return in_bad(in, "%s%s%s values, the record has %llu", rec->tag, rec->tag[0] ? ": " : "",
		              j < rec->len ? "too few" : "too many", (unsigned long long)rec->len);
	return 0;
}

typedef struct id_at {
	uint64_t id, r;
} id_at;

static int cmp_id_at(const void *a, const void *b)
{
	const id_at *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id ? 1 : x->r < y->r ? -1 : x->r > y->r;
}

/* The records that set id map entries name each id once: the line of the
 * second record of an id that repeats. @p first is the first record's line. */
static int check_ids(dump_in *in, const hog_model *m, uint64_t first)
{
	const hog_model_kind_ops *k = hog_model_kind_get(m->kind);
	const uint64_t n = k->records(m);
	id_at *v = malloc((m->nuser_ids + m->nitem_ids + 1) * sizeof *v);
	if (!v)
		return hog_err_set(in->err, ENOMEM, "%s: out of memory", in->path);
	for (int side = 0; side < 2; side++) {
		uint64_t c = 0;
		const uint64_t *map = side ? m->item_ids : m->user_ids;
		for (uint64_t r = 0; r < n; r++) {
			hog_model_rec rec;
			k->record(m, r, &rec);
			if (rec.id_slot && rec.id_slot >= map && rec.id_slot < map + (side ? m->nitem_ids : m->nuser_ids))
				v[c++] = (id_at){ rec.id, r };
		}
		qsort(v, c, sizeof *v, cmp_id_at);
		for (uint64_t i = 1; i < c; i++)
			if (v[i].id == v[i - 1].id) {
				const id_at a = v[i - 1], b = v[i];
				free(v);
				in->lineno = first + b.r;
				return in_bad(in, "id %llu is given twice (first on line %llu)", (unsigned long long)b.id,
				              (unsigned long long)(first + a.r));
			}
	}
	free(v);
	return 0;
}

static int read_dump(dump_in *in, hog_model **mp, hog_ckpt *ck)
{
	dump_head h = { 0 };
	int rc = read_head(in, &h);
	if (!rc)
		rc = head_model(in, &h, mp);
	free(h.columns);
	free(h.split);
	free(h.class_names);
	free(h.categories);
	*ck = h.ck;
	if (rc)
		return rc;
	hog_model *m = *mp;
	const hog_model_kind_ops *k = hog_model_kind_get(m->kind);
	const uint64_t first = in->lineno + 1;
	for (uint64_t r = 0; r < h.records; r++) {
		hog_model_rec rec;
		k->record(m, r, &rec);
		if (!in_line(in))
			return in_bad(in, "the dump ends after %llu of its %llu records", (unsigned long long)r,
			              (unsigned long long)h.records);
		if ((rc = read_record(in, m, &rec)))
			return rc;
	}
	if (in_line(in))
		return in_bad(in, "more lines after the last of the %llu records", (unsigned long long)h.records);
	if (ferror(in->f))
		return hog_err_set(in->err, EIO, "%s: read error", in->path);
	return m->user_ids ? check_ids(in, m, first) : 0;
}

int hog_model_undump(const char *dump, const char *out, hog_err *err)
{
	int rc = hog_check_regular_input(dump, err);
	if (rc)
		return rc;
	dump_in in = { .f = fopen(dump, "r"), .path = dump, .err = err };
	if (!in.f)
		return hog_err_set(err, errno, "%s: %s", dump, strerror(errno));
	struct stat st;
	in.size = fstat(fileno(in.f), &st) == 0 ? (uint64_t)st.st_size : 0;
	hog_model *m = NULL;
	hog_ckpt ck = { 0 };
	rc = read_dump(&in, &m, &ck);
	fclose(in.f);
	free(in.line);
	if (!rc)
		rc = hog_model_save_ckpt(m, &ck, out, err);
	free(ck.positions);
	hog_model_free(m);
	return rc;
}
