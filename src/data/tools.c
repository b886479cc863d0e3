/* Data set tools that read one set and write others: hog_data_split() (a random
 * train/test split) and hog_export_libsvm() (sparse sets back to LIBSVM text).
 *
 * A per-user split of a ratings set (hog_data_split_users) keeps each user's
 * first rating on the training side, so no user of the held-out side is new.
 *
 * Both stream block by block through a hog_store, so neither needs the data set
 * in memory. The split decides each example by a hash of (seed, index) rather
 * than a random stream: the decision for an example does not depend on the ones
 * before it, and the same seed splits the same way every time. Export prints
 * floats with 9 significant digits, which is enough for every float to come back
 * bit for bit through the importer's decimal-to-double-to-float path. */
#include "data/classes.h"
#include "data/parse.h"
#include "data/store.h"
#include "sys/err.h"
#include "sys/hash.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- split */

/* A hash of (seed, index) mapped to [0, 1): the splitmix64 finalizer of both. */
static double hog_tools_coin(uint64_t seed, uint64_t i)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ull ^ (i + 0x632be59bd9b4e019ull);
	for (int r = 0; r < 2; r++) { /* two rounds: consecutive indices decorrelate fully */
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
	}
	return (double)(z >> 11) * 0x1p-53;
}

static const char *hog_tools_base(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

uint64_t hog_tools_from(hog_store *s)
{
	static const char *const keys[] = { "kind", "task", "examples", "features", "nnz", "blocks", "positives",
	                                    "label_min", "label_max", "label_sum", "source", "users", "items" };
	uint64_t h = HOG_FNV0;
	char buf[512];
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		h = hog_fnv(h, keys[i], strlen(keys[i]) + 1);
		if (hog_store_meta_get(s, keys[i], buf, sizeof buf) == 0)
			h = hog_fnv(h, buf, strlen(buf));
	}
	return h;
}

/* A pair id no other run of the split shares: the clock, the process and the
 * seed, mixed. */
static uint64_t hog_tools_pair(uint64_t seed)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	uint64_t h = hog_fnv(HOG_FNV0, &t, sizeof t);
	pid_t pid = getpid();
	h = hog_fnv(h, &pid, sizeof pid);
	return hog_fnv(h, &seed, sizeof seed);
}

int hog_split_id_check(const char *buf, hog_split_id *id)
{
	static const char hex[] = "0123456789abcdef";
	memset(id, 0, sizeof *id);
	const char *p = strstr(buf, "pair="), *f = strstr(buf, "from="), *h = strstr(buf, "part=");
	const int half = h && (h[5] == 'a' || h[5] == 'b');
	if (!p && !f)
		return half ? 1 : -1; /* (a split made before pair ids names its half alone) */
	if (!p || !f || !half || strspn(p + 5, hex) != 16 || strspn(f + 5, hex) != 16)
		return -1;
	memcpy(id->pair, p + 5, 16);
	memcpy(id->from, f + 5, 16);
	id->part = h[5];
	return 0;
}

int hog_split_id_parse(const char *buf, hog_split_id *id)
{
	return hog_split_id_check(buf, id) == 0 ? 0 : -1;
}

int hog_split_id_read(hog_store *s, hog_split_id *id, char *buf, size_t size)
{
	char own[HOG_SPLIT_META_MAX];
	memset(id, 0, sizeof *id);
	int rc = hog_store_meta_whole(s, "split", own, sizeof own);
	if (buf && size && hog_store_meta_get(s, "split", buf, size) != 0) /* (cut at a NUL: for a message) */
		buf[0] = 0;
	if (rc == ENOENT)
		return 2;
	return rc ? -1 : hog_split_id_check(own, id);
}

int hog_split_id_get(hog_store *s, hog_split_id *id)
{
	return hog_split_id_read(s, id, NULL, 0) == 0 ? 0 : -1;
}

void hog_split_id_text(const hog_split_id *id, char *buf, size_t size)
{
	snprintf(buf, size, "pair=%.16s from=%.16s part=%c", id->pair, id->from, id->part);
}

/* Opens one side of the split with the input's kind, task and dimensions, and
 * carries over the generator description, column names and id maps. Its
 * "split" meta names the half, the run (pair) and the input (from). */
static int hog_tools_split_open(hog_writer **w, hog_store *s, const char *in, const char *out,
                                char part, double fraction, uint64_t seed, uint64_t pair, hog_err *err)
{
	const hog_meta *m = hog_store_meta(s);
	char src[256], buf[512];
	snprintf(src, sizeof src, "split %c of %.200s", part, hog_tools_base(in));
	hog_writer_opts wo = { .kind = m->kind, .task = m->task, .source = src, .dense_u8 = (int)m->dense_u8,
	                       .dense_scale = m->dense_scale, .users = m->users, .items = m->items,
	                       .classes = m->classes, .unlabelled = m->unlabelled,
	                       /* a set older readers read stays one; a packed set's values are exact as they are */
	                       .raw_blocks = m->version < HOG_FORMAT_PACKED };
	if (m->kind != HOG_KIND_RATINGS)
		wo.features = m->features;
	int rc = hog_writer_open(w, out, &wo, err);
	if (rc)
		return rc;
	snprintf(buf, sizeof buf, "part=%c fraction=%.17g seed=%llu pair=%016llx from=%016llx source=%.255s", part,
	         fraction, (unsigned long long)seed, (unsigned long long)pair, (unsigned long long)hog_tools_from(s),
	         m->source);
	if ((rc = hog_writer_meta_set(*w, "split", buf, err)))
		return rc;
	if (hog_store_meta_get(s, "generator", buf, sizeof buf) == 0 &&
	    (rc = hog_writer_meta_set(*w, "generator", buf, err)))
		return rc;
	/* a CSV set's column names (a test set is matched against them), its class
	 * names, which its halves' labels number, and its categories, which number
	 * their features: as they are (the halves keep the input's task and width) */
	static const char *const names[] = { "columns", "class_names", "category_from", "categories", "csv_label",
	                                     "libsvm_base", "vw_bits" };
	for (size_t k = 0; k < sizeof names / sizeof *names && !rc; k++) {
		char *v;
		int got = hog_store_meta_dup(s, names[k], (size_t)1 << 30, &v);
		if (got == ENOMEM)
			return hog_err_set(err, ENOMEM, "split: out of memory");
		if (!got && v[0])
			rc = hog_writer_meta_set(*w, names[k], v, err);
		free(v);
	}
	if (rc)
		return rc;
	static const char *const maps[] = { "users", "items" };
	for (int k = 0; k < 2; k++) {
		uint64_t n;
		const uint64_t *ids = hog_store_idmap(s, maps[k], &n);
		if (ids && (rc = hog_writer_idmap_set(*w, maps[k], ids, n, err)))
			return rc;
	}
	return 0;
}

static int hog_tools_split_add(hog_writer *w, const hog_block *b, uint32_t i, hog_err *err)
{
	int rc;
	if (b->weights && (rc = hog_writer_set_weight(w, b->weights[i], err)))
		return rc;
	switch (b->kind) {
	case HOG_KIND_SPARSE: {
		uint32_t o = b->offsets[i];
		return hog_writer_add_sparse(w, b->labels[i], b->ids + o, b->vals ? b->vals + o : NULL,
		                             b->offsets[i + 1] - o, err);
	}
	case HOG_KIND_RATINGS:
		return hog_writer_add_rating(w, b->users[i], b->items[i], b->ratings[i], err);
	case HOG_KIND_DENSE: {
		size_t at = (size_t)i * b->cols;
		return hog_writer_add_dense(w, b->labels[i], b->xf ? b->xf + at : NULL, b->xu8 ? b->xu8 + at : NULL,
		                            err);
	}
	}
	return hog_err_set(err, HOG_ECORRUPT, "unknown block kind");
}

/* by_user: a ratings set's per-user hold-out -- each user's first rating (in
 * the set's order) stays in A, so every user of B has ratings to learn from in
 * A; the others go by the coin as usual. */
static int hog_tools_split(const char *in, const char *out_a, const char *out_b, double fraction,
                           uint64_t seed, int by_user, hog_err *err)
{
	if (!(fraction > 0 && fraction < 1))
		return hog_err_set(err, HOG_ECONFIG, "split: fraction %g must lie strictly between 0 and 1", fraction);
	if (!strcmp(out_a, out_b) || !strcmp(in, out_a) || !strcmp(in, out_b))
		return hog_err_set(err, HOG_ECONFIG, "split: the input and the two outputs must be three different files");
	hog_store *s;
	hog_writer *wa = NULL, *wb = NULL;
	hog_blockbuf bb = { 0 }; /* packed blocks, one at a time */
	int rc = hog_store_open(&s, in, err);
	if (rc)
		return rc;
	const hog_meta *m = hog_store_meta(s);
	uint8_t *seen = NULL; /* by_user: a bit per user that has a rating in A */
	if (by_user && m->kind != HOG_KIND_RATINGS) {
		rc = hog_err_set(err, HOG_ECONFIG, "split: %s: a per-user split needs a ratings set, not %s", in,
		                 m->kind == HOG_KIND_SPARSE ? "a sparse one" : "a dense one");
		goto fail;
	}
	if (by_user && !(seen = calloc(m->users / 8 + 1, 1))) {
		rc = hog_err_set(err, ENOMEM, "split: out of memory for %llu users", (unsigned long long)m->users);
		goto fail;
	}
	const uint64_t pair = hog_tools_pair(seed);
	if ((rc = hog_tools_split_open(&wa, s, in, out_a, 'a', fraction, seed, pair, err)) ||
	    (rc = hog_tools_split_open(&wb, s, in, out_b, 'b', fraction, seed, pair, err)))
		goto fail;
	for (uint64_t bi = 0; bi < m->blocks; bi++) {
		hog_block b;
		if ((rc = hog_store_block_buf(s, bi, &b, &bb, err)))
			goto fail;
		for (uint32_t i = 0; i < b.n; i++) {
			hog_writer *w = hog_tools_coin(seed, b.first + i) < fraction ? wb : wa;
			if (seen) {
				uint32_t u = b.users[i];
				if (!(seen[u / 8] & (1u << (u % 8)))) {
					seen[u / 8] |= (uint8_t)(1u << (u % 8));
					w = wa;
				}
			}
			if ((rc = hog_tools_split_add(w, &b, i, err))) {
				hog_err_prefix(err, "split: %s: example %llu", in, (unsigned long long)(b.first + i));
				goto fail;
			}
		}
	}
	uint64_t na = hog_writer_count(wa), nb = hog_writer_count(wb);
	if (na == 0 || nb == 0) {
		rc = hog_err_set(err, HOG_EDATA, "split: fraction %g of %llu examples leaves %s empty", fraction,
		                 (unsigned long long)m->examples, na == 0 ? out_a : out_b);
		goto fail;
	}
	/* The two halves are a set: both are finished (written, committed, synced
	 * as temporary files) before either is renamed into place, so an error or a
	 * signal until then leaves the user's A and B as they were. The two renames
	 * follow each other at once, the signals a caller catches held back between
	 * them (a SIGTERM at the first rename left a new A beside the old B, and a
	 * handler's "nothing was put in place"); a kill -9 between them would leave
	 * a new A beside an old B, which their pair ids tell apart
	 * (hog_split_id_get). */
	rc = hog_writer_finish(wa, err);
	if (rc) {
		wa = NULL; /* (freed by the failure) */
		goto fail;
	}
	rc = hog_writer_finish(wb, err);
	if (rc) {
		wb = NULL;
		goto fail;
	}
	sigset_t held, was;
	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	sigaddset(&held, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &held, &was);
	const int ra = hog_writer_publish(wa, err);
	int rb = 0;
	wa = NULL;
	if (!ra) {
		rb = hog_writer_publish(wb, err);
		wb = NULL;
	}
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if ((rc = ra))
		goto fail; /* A's path as it was; B's temporary file removed below */
	if ((rc = rb)) {
		hog_err_prefix(err, "split: %s is in place, but %s is not: the old %s does not go with the new %s "
		               "(run the split again)", out_a, out_b, out_b, out_a);
		goto fail;
	}
	hog_store_close(s);
	hog_blockbuf_free(&bb);
	free(seen);
	return 0;
fail:
	hog_writer_abort(wa);
	hog_writer_abort(wb);
	hog_store_close(s);
	hog_blockbuf_free(&bb);
	free(seen);
	return rc;
}

int hog_data_split(const char *in, const char *out_a, const char *out_b, double fraction, uint64_t seed,
                   hog_err *err)
{
	return hog_tools_split(in, out_a, out_b, fraction, seed, 0, err);
}

int hog_data_split_users(const char *in, const char *out_a, const char *out_b, double fraction, uint64_t seed,
                         hog_err *err)
{
	return hog_tools_split(in, out_a, out_b, fraction, seed, 1, err);
}

/* ---------------------------------------------------------------- export */

#define HOG_TOOLS_BUF (4u << 20)

typedef struct hog_tools_out {
	int fd;
	char *buf;
	size_t pos;
} hog_tools_out;

/* Writes out the buffer; a short write is continued, EINTR retried, anything else
 * (EPIPE when the reader went away, ENOSPC...) is the caller's error. */
static int hog_tools_flush(hog_tools_out *o, hog_err *err)
{
	size_t at = 0;
	while (at < o->pos) {
		ssize_t k = write(o->fd, o->buf + at, o->pos - at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : EIO;
			return hog_err_set(err, e, "export: writing the text: %s%s", strerror(e),
			                   e == EPIPE ? " (the reader went away)" : "");
		}
		at += (size_t)k;
	}
	o->pos = 0;
	return 0;
}

/* Appends an unsigned integer in decimal. */
static void hog_tools_put_u64(hog_tools_out *o, uint64_t v)
{
	char t[24];
	int n = 0;
	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		o->buf[o->pos++] = t[--n];
}

/* Appends a float so that parsing it back gives the same float: 9 significant
 * digits always suffice; 1 (the common value) takes the short way. */
static void hog_tools_put_float(hog_tools_out *o, float v)
{
	if (v == 1.0f) {
		o->buf[o->pos++] = '1';
		return;
	}
	/* the fewest digits that import back to v through the importers' own
	 * parse (a double, then a float), so that 5.1 reads 5.1, not 5.0999999 */
	for (int prec = 6; prec < 9; prec++) {
		char t[32];
		double d;
		const int n = snprintf(t, sizeof t, "%.*g", prec, (double)v);
		if (hog_parse_f64(t, &d) && (float)d == v) {
			memcpy(o->buf + o->pos, t, (size_t)n);
			o->pos += (size_t)n;
			return;
		}
	}
	o->pos += (size_t)snprintf(o->buf + o->pos, 32, "%.9g", (double)v);
}

/* The values of a set's classes where its labels were whole numbers (writer.c,
 * named_task: 1 and 2, or 1..7, became classes named "1", "2", ...), to be
 * written back as imported; NULL where the set has no such names. */
static float *numbered_classes(hog_store *s, uint32_t *k)
{
	char *names = NULL;
	*k = 0;
	if (hog_store_meta_dup(s, "class_names", (size_t)1 << 20, &names))
		return NULL;
	float *v = malloc((hog_class_count(names) + 1) * sizeof *v);
	if (v && !(*k = hog_class_numbers(names, v, NULL))) {
		free(v);
		v = NULL;
	}
	free(names);
	return v;
}

/* An export: the example @p i of block @p b as one line into @p o (the
 * frame has made room for a line's fixed part; a line of many values flushes
 * as it goes), from what the export's prepare took of the open store. */
typedef struct export_fmt {
	enum hog_kind kind;         /* the sets it writes */
	const char *refusal;        /* ... and what it says of another kind's: "%s is a %s data set; ..." */
	int (*prepare)(hog_store *s, const hog_meta *m, void *ctx, hog_tools_out *o, hog_err *err);
	int (*line)(hog_tools_out *o, const hog_meta *m, const hog_block *b, uint32_t i, const void *ctx, hog_err *err);
} export_fmt;

/* One frame for every export: @p in opened and refused unless of @p f's kind,
 * its blocks read one at a time, each example written by f->line, the text
 * flushed to @p fd as it fills. */
static int export_frame(const char *in, int fd, const export_fmt *f, void *ctx, hog_err *err)
{
	hog_store *s;
	int rc = hog_store_open(&s, in, err);
	if (rc)
		return rc;
	const hog_meta *m = hog_store_meta(s);
	if (m->kind != f->kind) {
		enum hog_kind kind = m->kind; /* m dies with the store */
		hog_store_close(s);
		return hog_err_set(err, HOG_ENOTSUP, f->refusal, in, hog_kind_name(kind));
	}
	hog_tools_out o = { .fd = fd, .buf = malloc(HOG_TOOLS_BUF) };
	if (!o.buf || (rc = f->prepare(s, m, ctx, &o, err))) {
		free(o.buf);
		hog_store_close(s);
		return o.buf ? rc : hog_err_set(err, ENOMEM, "export: out of memory");
	}
	hog_blockbuf bb = { 0 }; /* packed blocks, one at a time */
	for (uint64_t bi = 0; bi < m->blocks && !rc; bi++) {
		hog_block b;
		if ((rc = hog_store_block_buf(s, bi, &b, &bb, err)))
			break;
		for (uint32_t i = 0; i < b.n && !rc; i++) /* (a line's fixed part: at most 128 bytes) */
			if (!(o.pos + 128 > HOG_TOOLS_BUF && (rc = hog_tools_flush(&o, err))))
				rc = f->line(&o, m, &b, i, ctx, err);
	}
	if (!rc)
		rc = hog_tools_flush(&o, err);
	free(o.buf);
	hog_blockbuf_free(&bb);
	hog_store_close(s);
	return rc;
}

/* LIBSVM: the classes' values where the labels were whole numbers (1 and 2
 * imported: 1 and 2 written, not 0 and 1). */
struct libsvm_ctx {
	float *val;
	uint32_t nv;
};

static int libsvm_prepare(hog_store *s, const hog_meta *m, void *ctx, hog_tools_out *o, hog_err *err)
{
	struct libsvm_ctx *c = ctx;
	(void)o;
	(void)err;
	c->val = m->task == HOG_TASK_BINARY || m->task == HOG_TASK_MULTICLASS ? numbered_classes(s, &c->nv) : NULL;
	return 0;
}

static int libsvm_line(hog_tools_out *o, const hog_meta *m, const hog_block *b, uint32_t i, const void *ctx,
                       hog_err *err)
{
	const struct libsvm_ctx *c = ctx;
	const float *val = c->val;
	/* label:weight, as imported; a positive label with a '+', as a first line's "1:2"
	 * would read as a feature of a set without labels */
	const float y = !val ? b->labels[i]
	                : m->task == HOG_TASK_BINARY ? val[b->labels[i] > 0 && c->nv > 1]
	                : b->labels[i] < c->nv ? val[(uint32_t)b->labels[i]] : b->labels[i];
	if (!m->unlabelled && b->weights && b->weights[i] != 1.0f && y > 0)
		o->buf[o->pos++] = '+';
	if (!m->unlabelled) /* a set without labels: lines of features only, as imported */
		hog_tools_put_float(o, y);
	if (!m->unlabelled && b->weights && b->weights[i] != 1.0f) {
		o->buf[o->pos++] = ':';
		hog_tools_put_float(o, b->weights[i]);
	}
	/* one token (" id:value") is at most 1 + 20 + 1 + 16 bytes */
	for (uint32_t j = b->offsets[i]; j < b->offsets[i + 1]; j++) {
		int rc;
		if (o->pos + 64 > HOG_TOOLS_BUF && (rc = hog_tools_flush(o, err)))
			return rc;
		if (j > b->offsets[i] || !m->unlabelled)
			o->buf[o->pos++] = ' ';
		hog_tools_put_u64(o, (uint64_t)b->ids[j] + 1);
		o->buf[o->pos++] = ':';
		hog_tools_put_float(o, b->vals ? b->vals[j] : 1.0f);
	}
	o->buf[o->pos++] = '\n';
	return 0;
}

int hog_export_libsvm(const char *in, int fd, hog_err *err)
{
	static const export_fmt f = { HOG_KIND_SPARSE, "export: %s is a %s data set; LIBSVM text is for sparse data "
	                              "sets only (a ratings set exports as ratings)", libsvm_prepare, libsvm_line };
	struct libsvm_ctx c = { NULL, 0 };
	const int rc = export_frame(in, fd, &f, &c, err);
	free(c.val);
	return rc;
}

/* Ratings: the id maps (the original ids where they cover the ranges, else the
 * dense ids, as load.c keeps them), and the header line. */
struct ratings_ctx {
	const uint64_t *u, *it;
};

static int ratings_prepare(hog_store *s, const hog_meta *m, void *ctx, hog_tools_out *o, hog_err *err)
{
	struct ratings_ctx *c = ctx;
	uint64_t nu, ni;
	(void)err;
	c->u = hog_store_idmap(s, "users", &nu);
	c->it = hog_store_idmap(s, "items", &ni);
	if (!c->u || !c->it || nu != m->users || ni != m->items)
		c->u = c->it = NULL;
	o->pos = (size_t)snprintf(o->buf, 64, "user,item%s%s\n", m->unlabelled ? "" : ",rating",
	                          m->weighted ? ",weight" : "");
	return 0;
}

static int ratings_line(hog_tools_out *o, const hog_meta *m, const hog_block *b, uint32_t i, const void *ctx,
                        hog_err *err)
{
	const struct ratings_ctx *c = ctx;
	(void)err;
	hog_tools_put_u64(o, c->u ? c->u[b->users[i]] : b->users[i]);
	o->buf[o->pos++] = ',';
	hog_tools_put_u64(o, c->it ? c->it[b->items[i]] : b->items[i]);
	if (!m->unlabelled) {
		o->buf[o->pos++] = ',';
		hog_tools_put_float(o, b->ratings[i]);
	}
	if (m->weighted) {
		o->buf[o->pos++] = ',';
		hog_tools_put_float(o, b->weights ? b->weights[i] : 1.0f);
	}
	o->buf[o->pos++] = '\n';
	return 0;
}

int hog_export_ratings(const char *in, int fd, hog_err *err)
{
	static const export_fmt f = { HOG_KIND_RATINGS, "export: %s is a %s data set; ratings text is for ratings "
	                              "sets only", ratings_prepare, ratings_line };
	struct ratings_ctx c = { NULL, NULL };
	return export_frame(in, fd, &f, &c, err);
}
