/* The model record of every kind, the dispatch to each kind's table, and the
 * model file.
 *
 * Model file (little-endian), written atomically (temp, fsync, rename):
 *    0 "HOGMODEL"  8 u32 version  12 u32 kind  16 u32 loss  20 u32 rule
 *   24 u64 shape[0]  32 u32 stride  36 u32 nworkers  40 i32 epochs done  44 u32 in_epoch
 *   48 f64 lr, l2, beta, backoff  80 u64 seed  88 u64 t  96 u64 nparams
 *  104 u32 schedule  108 u32 flags  112 f64 t0  120 u64 warmup
 *  version 2 and later:
 *  128 u64 shape[1], shape[2], shape[3]  152 f64 aux  160 u64 data hash  168 u64 options hash
 *  176 u32 task of the training set (0: unknown)  180 u32 0  184 u64 S, bytes of sections
 *  (version 2 files hold zeros in 176..191: no task, no sections)
 *  then u64 positions[nworkers] (a checkpoint written inside an epoch), f32
 *  params[nparams] in the kind's layout, S bytes of sections, and a u32 CRC-32
 *  of everything before.
 * A section: u32 tag, u32 0, u64 length L, L bytes, zeros to a multiple of 8.
 * Tags: 1 the users' original ids (u64 each, shape[0] of them), 2 the items'
 * (shape[1]), 3 the training set's column names (text, no NUL), 4 the training
 * set's split id when it is a half of a split ("pair=P from=F part=X", text,
 * no NUL, 1..256 bytes), 5 the training set's class names (hog_data.class_names:
 * text, each name ended by a newline), 6 its categories (u64 the first one's
 * feature id, then hog_data.categories's text), 7.. (model_sections.c). Unknown
 * tags are skipped, so a later section does not need a new version.
 * Version 1 files (linear models of hogwild 0.1, a 128-byte header) still load.
 */
#include "kinds.h"
#include "model/model.h"
#include "sys/err.h"
#include "sys/file.h"
#include "sys/names.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define MODEL_MAGIC "HOGMODEL"
#define MODEL_VERSION 3
#define HEADER_V1 128
#define HEADER_V2 192
#define MAX_WORKERS 65536
#define SECTIONS_MAX (1ull << 40)

/* The kinds built in: their descriptors (kinds.c, the one list). */
const hog_model_kind_ops *hog_model_kind_get(enum hog_model_kind kind)
{
	const hog_kind_desc *d = hog_kind_desc_get(kind);
	return d ? d->model : NULL;
}

hog_model *hog_model_alloc(enum hog_model_kind kind, enum hog_loss loss, enum hog_rule rule,
                           const uint64_t shape[4], uint32_t flags)
{
	const hog_model_kind_ops *k = hog_model_kind_get(kind);
	hog_model *m = k ? calloc(1, sizeof *m) : NULL;
	if (!m)
		return NULL;
	m->kind = kind;
	m->loss = loss;
	m->rule = rule;
	m->stride = hog_rule_stride(rule);
	memcpy(m->shape, shape, sizeof m->shape);
	m->flags = flags;
	m->nparams = k->nparams(m);
	if (!m->nparams || m->nparams > (UINT64_MAX >> 3) ||
	    !(m->params = aligned_alloc(64, (m->nparams * sizeof(float) + 63) & ~(size_t)63))) {
		free(m);
		return NULL;
	}
	memset(m->params, 0, m->nparams * sizeof(float));
	return m;
}

void hog_model_free(hog_model *m)
{
	if (!m)
		return;
	free(m->params);
	free(m->weights);
	free(m->user_ids);
	free(m->item_ids);
	free(m->columns);
	free(m->class_names);
	free(m->categories);
	free(m->split);
	free(m);
}

static uint64_t *ids_dup(const uint64_t *ids, uint64_t n)
{
	uint64_t *c = ids && n ? malloc(n * sizeof *c) : NULL;
	if (c)
		memcpy(c, ids, n * sizeof *c);
	return c;
}

int hog_model_set_origin(hog_model *m, const hog_data *tr)
{
	free(m->user_ids);
	free(m->item_ids);
	free(m->columns);
	free(m->class_names);
	free(m->categories);
	free(m->split);
	m->user_ids = m->item_ids = NULL;
	m->columns = m->class_names = m->categories = m->split = NULL;
	m->category_from = 0;
	m->nuser_ids = m->nitem_ids = 0;
	m->task = tr->meta.task;
	m->neg_zero = tr->meta.task == HOG_TASK_BINARY && !tr->class_names && tr->meta.label_min == 0;
	if (tr->user_ids && tr->item_ids) {
		m->user_ids = ids_dup(tr->user_ids, tr->meta.users);
		m->item_ids = ids_dup(tr->item_ids, tr->meta.items);
		if ((tr->meta.users && !m->user_ids) || (tr->meta.items && !m->item_ids))
			return ENOMEM;
		m->nuser_ids = tr->meta.users;
		m->nitem_ids = tr->meta.items;
	}
	if (tr->columns && !(m->columns = strdup(tr->columns)))
		return ENOMEM;
	if (tr->class_names && !(m->class_names = strdup(tr->class_names)))
		return ENOMEM;
	if (tr->categories && !(m->categories = strdup(tr->categories)))
		return ENOMEM;
	m->category_from = tr->category_from;
	m->csv_label = tr->csv_label;
	m->csv_fields = tr->csv_fields;
	m->vw_bits = tr->vw_bits;
	if (tr->split && !(m->split = strdup(tr->split)))
		return ENOMEM;
	return 0;
}

void hog_model_info_get(const hog_model *m, hog_model_info *info)
{
	memset(info, 0, sizeof *info);
	info->kind = m->kind;
	info->loss = m->loss;
	info->rule = m->rule;
	info->epochs_done = m->epochs_done;
	info->task = m->task;
	info->split = m->split;
	info->sched = m->sched;
	info->lr = m->lr;
	info->l2 = m->l2;
	info->beta = m->beta;
	info->backoff = m->backoff;
	info->t0 = m->t0;
	info->seed = m->seed;
	info->warmup = m->warmup;
	info->examples_seen = m->t;
	info->params = m->nparams;
	info->user_ids = m->user_ids ? m->nuser_ids : 0;
	info->item_ids = m->item_ids ? m->nitem_ids : 0;
	info->columns = m->columns;
	info->class_names = m->class_names;
	info->categories = m->categories;
	info->category_from = m->category_from;
	info->csv_label = m->csv_label;
	info->csv_fields = m->csv_fields;
	info->vw_bits = m->vw_bits;
	info->neg_zero = m->neg_zero;
	hog_model_kind_get(m->kind)->info(m, info);
}

int hog_model_predict(const hog_model *m, const hog_data *d, float *out, hog_err *err)
{
	const hog_model_kind_ops *k = hog_model_kind_get(m->kind);
	int rc = k->fits(m, d, err);
	if (!rc)
		k->predict(m, d, out);
	return rc;
}

int hog_model_eval(const hog_model *m, const hog_data *d, hog_eval *ev, hog_err *err)
{
	hog_eval_acc *a;
	int rc = hog_model_eval_begin(m, d, 0, &a, err);
	if (!rc && (rc = hog_model_eval_add(a, d, err)) == 0)
		hog_model_eval_end(a, ev, NULL);
	else
		hog_model_eval_end(a, NULL, NULL);
	return rc;
}

int hog_model_prepare(const hog_model *m, hog_data *d, const char *d_name, const char *m_name, hog_data_fit *fit,
                      hog_err *err)
{
	hog_model_info info;
	hog_model_info_get(m, &info);
	hog_data_ref ref = { .task = m->task, .features = info.dim, .users = info.users, .items = info.items,
		                 .user_ids = m->user_ids, .item_ids = m->item_ids, .columns = m->columns,
		                 .class_names = m->class_names,
		                 .categories = m->categories, .category_from = m->category_from,
		                 .csv_label = m->csv_label, .csv_fields = m->csv_fields, .vw_bits = m->vw_bits };
	const hog_model_kind_ops *k = hog_model_kind_get(m->kind);
	if (d->meta.unlabelled && m->task) /* no labels: the task is the model's, not the importer's guess */
		d->meta.task = m->task;
	/* (labels that are names: the model's task, before its check of the set's) */
	int rc = hog_data_reconcile_names(d, d_name, &ref, m_name, err);
	if (!rc)
		rc = k->fits(m, d, err);
	if (rc) {
		hog_err_prefix(err, "%s and %s", m_name, d_name);
		return rc;
	}
	/* (out of memory: ids in range count as trained, the prediction is the same) */
	if (k->rated && info.users && (ref.user_rated = calloc(info.users + 1, 1)) &&
	    (ref.item_rated = calloc(info.items + 1, 1)))
		k->rated(m, ref.user_rated, ref.item_rated);
	else
		hog_data_ref_free(&ref);
	rc = hog_data_reconcile(d, d_name, &ref, m_name, fit, err);
	hog_data_ref_free(&ref);
	return rc;
}

int hog_model_match(const hog_model *m, hog_chunks *c, const char *d_name, const char *m_name, hog_data_match **x,
                    hog_err *err)
{
	*x = NULL;
	hog_data *h = hog_chunks_header(c);
	hog_model_info info;
	hog_model_info_get(m, &info);
	hog_data_ref ref = { .task = m->task, .features = info.dim, .users = info.users, .items = info.items,
		                 .user_ids = m->user_ids, .item_ids = m->item_ids, .columns = m->columns,
		                 .class_names = m->class_names,
		                 .categories = m->categories, .category_from = m->category_from,
		                 .csv_label = m->csv_label, .csv_fields = m->csv_fields, .vw_bits = m->vw_bits };
	const hog_model_kind_ops *k = hog_model_kind_get(m->kind);
	if (h->meta.unlabelled && m->task)
		h->meta.task = m->task;
	int rc = hog_data_reconcile_names(h, d_name, &ref, m_name, err);
	if (!rc)
		rc = k->fits(m, h, err);
	if (rc) {
		hog_err_prefix(err, "%s and %s", m_name, d_name);
		return rc;
	}
	if (k->rated && info.users && (ref.user_rated = calloc(info.users + 1, 1)) &&
	    (ref.item_rated = calloc(info.items + 1, 1)))
		k->rated(m, ref.user_rated, ref.item_rated);
	else
		hog_data_ref_free(&ref);
	rc = hog_data_match_begin(x, c, d_name, &ref, m_name, err); /* (which takes the rated arrays) */
	if (rc)
		hog_data_ref_free(&ref);
	return rc;
}

const uint64_t *hog_model_ids(const hog_model *m, int items, uint64_t *n)
{
	*n = items ? m->nitem_ids : m->nuser_ids;
	return items ? m->item_ids : m->user_ids;
}

/* The class count of a model with class probabilities, after fits(); 0 with
 * err set when it has none. */
static uint32_t model_classes(const hog_model *m, const hog_data *d, hog_err *err, int *rc)
{
	const hog_model_kind_ops *k = hog_model_kind_get(m->kind);
	hog_model_info info;
	hog_model_info_get(m, &info);
	if ((*rc = k->fits(m, d, err)))
		return 0;
	if (!k->proba || info.classes < 2) {
		*rc = hog_err_set(err, HOG_ENOTSUP, "the %s model has no class probabilities (it is not multiclass)",
		                  hog_model_kind_name(m->kind));
		return 0;
	}
	return info.classes;
}

int hog_model_predict_proba(const hog_model *m, const hog_data *d, float *out, hog_err *err)
{
	int rc;
	if (model_classes(m, d, err, &rc))
		hog_model_kind_get(m->kind)->proba(m, d, out);
	return rc;
}

int hog_model_confusion(const hog_model *m, const hog_data *d, uint64_t *counts, hog_err *err)
{
	int rc;
	uint32_t C = model_classes(m, d, err, &rc);
	if (!C)
		return rc;
	float *pred = malloc((d->n + 1) * sizeof *pred);
	if (!pred)
		return hog_err_set(err, ENOMEM, "out of memory");
	hog_model_kind_get(m->kind)->predict(m, d, pred);
	memset(counts, 0, (size_t)C * C * sizeof *counts);
	for (uint64_t i = 0; i < d->n; i++) {
		uint32_t t = d->meta.task == HOG_TASK_BINARY ? d->labels[i] > 0 : (uint32_t)d->labels[i];
		uint32_t p = pred[i] >= 0 && pred[i] < C ? (uint32_t)pred[i] : 0;
		if (t < C)
			counts[(size_t)t * C + p]++;
	}
	free(pred);
	return 0;
}

/* A kind's name is its model table's (kinds.c: one list of the kinds). */
const char *hog_model_kind_name(enum hog_model_kind k)
{
	const hog_model_kind_ops *ops = hog_model_kind_get(k);
	return ops ? ops->name : "unknown";
}

int hog_model_kind_parse(const char *s)
{
	for (int k = 1; s && k <= HOG_MODEL_KIND_MAX; k++) {
		const hog_model_kind_ops *ops = hog_model_kind_get((enum hog_model_kind)k);
		if (ops && !strcmp(s, ops->name))
			return k;
	}
	return -1;
}

/* ------------------------------------------------------------------ file */

static void w32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void w64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static void wf64(unsigned char *p, double v) { memcpy(p, &v, 8); }
static uint32_t r32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t r64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static double rf64(const unsigned char *p) { double v; memcpy(&v, p, 8); return v; }

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static uLong crc_big(uLong crc, const void *p, uint64_t n)
{
	for (uint64_t off = 0; off < n;) {
		uInt k = n - off > (1u << 30) ? (1u << 30) : (uInt)(n - off);
		crc = crc32(crc, (const unsigned char *)p + off, k);
		off += k;
	}
	return crc;
}

uint64_t hog_model_file_bytes(const hog_model *m, uint32_t nworkers)
{
	return HEADER_V2 + 8ull * nworkers + 4 * m->nparams + hog_model_sections_size(m) + 4;
}

void hog_model_unreserve(const char *path)
{
	hog_reserve_drop(path);
}

int hog_model_save(const hog_model *m, const char *path, hog_err *err)
{
	return hog_model_save_ckpt(m, NULL, path, err);
}

int hog_model_save_ckpt(const hog_model *m, const hog_ckpt *ck, const char *path, hog_err *err)
{
	unsigned char h[HEADER_V2] = { 0 };
	uint32_t nw = ck && ck->in_epoch ? ck->nworkers : 0;
	memcpy(h, MODEL_MAGIC, 8);
	w32(h + 8, MODEL_VERSION);
	w32(h + 12, m->kind);
	w32(h + 16, m->loss);
	w32(h + 20, m->rule);
	w64(h + 24, m->shape[0]);
	w32(h + 32, m->stride);
	w32(h + 36, nw);
	w32(h + 40, (uint32_t)m->epochs_done);
	w32(h + 44, nw ? 1 : 0);
	wf64(h + 48, m->lr);
	wf64(h + 56, m->l2);
	wf64(h + 64, m->beta);
	wf64(h + 72, m->backoff);
	w64(h + 80, m->seed);
	w64(h + 88, m->t);
	w64(h + 96, m->nparams);
	w32(h + 104, m->sched);
	w32(h + 108, m->flags);
	wf64(h + 112, m->t0);
	w64(h + 120, m->warmup);
	w64(h + 128, m->shape[1]);
	w64(h + 136, m->shape[2]);
	w64(h + 144, m->shape[3]);
	wf64(h + 152, m->aux);
	w64(h + 160, ck ? ck->data_hash : 0);
	w64(h + 168, ck ? ck->opts_hash : 0);
	w32(h + 176, m->task);
	uint64_t slen;
	unsigned char *sec = hog_model_sections_build(m, &slen);
	w64(h + 184, sec ? slen : 0);
	char *tmp = sec || !slen ? hog_tmp_path(path) : NULL;
	if (!tmp) {
		free(sec);
		return hog_err_set(err, ENOMEM, "out of memory");
	}
	int slot = hog_tmp_track(tmp); /* a signal while we write removes it (the CLI's handler) */
	/* not truncated: the space hog_reserve() may hold under this name is
	 * written into, and the file cut to its length at the end */
	int rc = 0, fd = open(tmp, O_WRONLY | O_CREAT, 0644);
	if (fd < 0) {
		rc = hog_err_set(err, errno, "%s: cannot create: %s", path, strerror(errno));
		hog_tmp_untrack(slot);
		free(tmp);
		free(sec);
		return rc;
	}
	const uint64_t total = HEADER_V2 + 8ull * nw + 4 * m->nparams + (sec ? slen : 0) + 4;
	uLong crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, h, HEADER_V2);
	if (nw)
		crc = crc_big(crc, ck->positions, nw * 8ull);
	crc = crc_big(crc, m->params, m->nparams * 4);
	if (sec)
		crc = crc_big(crc, sec, slen);
	uint32_t c = (uint32_t)crc;
	if ((rc = write_all(fd, h, HEADER_V2)) || (nw && (rc = write_all(fd, ck->positions, nw * 8ull))) ||
	    (rc = write_all(fd, m->params, m->nparams * 4)) || (sec && (rc = write_all(fd, sec, slen))) ||
	    (rc = write_all(fd, &c, 4)) || (ftruncate(fd, (off_t)total) ? (rc = errno) : 0) ||
	    (fsync(fd) ? (rc = errno) : 0)) {
		free(sec);
		close(fd);
		unlink(tmp);
		hog_err_set(err, rc, "%s: cannot write: %s", path, strerror(rc));
		hog_tmp_untrack(slot);
		free(tmp);
		return rc;
	}
	free(sec);
	if (close(fd) != 0) {
		rc = errno;
		unlink(tmp);
		hog_err_set(err, rc, "%s: cannot write: %s", path, strerror(rc));
	} else if (rename(tmp, path) != 0) {
		rc = errno;
		unlink(tmp);
		hog_err_set(err, rc, "%s: cannot rename into place: %s", path, strerror(rc));
	} else {
		hog_fsync_dir(path);
	}
	hog_tmp_untrack(slot);
	free(tmp);
	return rc;
}

int hog_model_load(hog_model **out, const char *path, hog_err *err)
{
	return hog_model_load_ckpt(out, NULL, path, err);
}

/* Every header field that must hold before anything is allocated. */
static int check_header(const unsigned char *h, uint32_t version, const char *path, hog_err *err)
{
	uint32_t kind = r32(h + 12), loss = r32(h + 16), rule = r32(h + 20), stride = r32(h + 32);
	uint32_t nw = r32(h + 36), in_epoch = r32(h + 44), sched = r32(h + 104);
	int32_t epochs = (int32_t)r32(h + 40);
	const char *bad = NULL;
	if (!hog_model_kind_get(kind) || (version == 1 && kind != HOG_MODEL_LINEAR))
		bad = "model kind";
	else if (loss > HOG_LOSS_SOFTMAX)
		bad = "loss";
	else if (rule > HOG_RULE_ADAMW || stride != hog_rule_stride(rule))
		bad = "step rule";
	else if (sched > HOG_SCHED_INVT)
		bad = "schedule";
	else if (nw > MAX_WORKERS || in_epoch > 1 || (in_epoch && !nw) || (!in_epoch && nw))
		bad = "worker positions";
	else if (epochs < 0)
		bad = "epochs done";
	else
		for (int i = 0; i < 4 && !bad; i++) {
			double v = rf64(h + 48 + 8 * i);
			if (!isfinite(v) || v < 0)
				bad = "hyper-parameters";
		}
	if (!bad && (!isfinite(rf64(h + 112)) || (version >= 2 && !isfinite(rf64(h + 152)))))
		bad = "hyper-parameters";
	if (bad)
		return hog_err_set(err, HOG_ECORRUPT, "%s: model header is inconsistent: %s (damaged file?)", path, bad);
	return 0;
}

/* The hyper-parameters and training state of header @p h into @p m. */
static void header_hyper(hog_model *m, const unsigned char *h, uint32_t version)
{
	m->epochs_done = (int)r32(h + 40);
	m->lr = rf64(h + 48);
	m->l2 = rf64(h + 56);
	m->beta = rf64(h + 64);
	m->backoff = rf64(h + 72);
	m->seed = r64(h + 80);
	m->t = r64(h + 88);
	m->sched = r32(h + 104);
	m->t0 = rf64(h + 112);
	m->warmup = r64(h + 120);
	m->aux = version >= 2 ? rf64(h + 152) : 0;
}

int hog_model_load_ckpt(hog_model **out, hog_ckpt *ck, const char *path, hog_err *err)
{
	*out = NULL;
	if (ck)
		memset(ck, 0, sizeof *ck);
	int rc = hog_check_regular_input(path, err);
	if (rc)
		return rc;
	FILE *f = fopen(path, "rb");
	if (!f)
		return hog_err_set(err, errno, "%s: %s", path, strerror(errno));
	unsigned char h[HEADER_V2] = { 0 };
	hog_model *m = NULL;
	uint64_t *pos = NULL;
	unsigned char *sec = NULL;
	struct stat st;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = hog_err_set(err, HOG_EFORMAT, "%s: not a regular file", path);
		goto done;
	}
	if (fread(h, 1, HEADER_V1, f) != HEADER_V1 || memcmp(h, MODEL_MAGIC, 8) != 0) {
		rc = hog_err_set(err, HOG_EFORMAT, "%s: not a hogwild model file", path);
		goto done;
	}
	uint32_t version = r32(h + 8);
	if (version > MODEL_VERSION + 8) { /* (a flipped byte read as version 165: no hogwild writes such) */
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: model format version %u, far past this hogwild's %d: the file is "
		                 "damaged", path, version, MODEL_VERSION);
		goto done;
	}
	if (version > MODEL_VERSION) {
		rc = hog_err_set(err, HOG_EVERSION, "%s: model format version %u is newer than this hogwild reads (%d)",
		                 path, version, MODEL_VERSION);
		goto done;
	}
	if (version == 0) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: model format version 0 (damaged file?)", path);
		goto done;
	}
	size_t hlen = version >= 2 ? HEADER_V2 : HEADER_V1;
	if (hlen > HEADER_V1 && fread(h + HEADER_V1, 1, hlen - HEADER_V1, f) != hlen - HEADER_V1) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: truncated header", path);
		goto done;
	}
	if ((rc = check_header(h, version, path, err)))
		goto done;
	uint64_t shape[4] = { r64(h + 24), 0, 0, 0 };
	if (version >= 2)
		for (int i = 1; i < 4; i++)
			shape[i] = r64(h + 120 + 8 * i);
	uint32_t nw = r32(h + 36), flags = version >= 2 ? r32(h + 108) : 0;
	uint64_t np = r64(h + 96);
	/* the shapes must call for exactly nparams floats and the file must hold them:
	 * checked before anything of that size is allocated */
	hog_model probe = { .kind = r32(h + 12), .loss = r32(h + 16), .rule = r32(h + 20), .stride = r32(h + 32),
	                     .flags = flags };
	memcpy(probe.shape, shape, sizeof shape);
	uint64_t want_np = hog_model_kind_get(probe.kind)->nparams(&probe);
	if (!want_np || np != want_np) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: model header is inconsistent: the shapes call for %llu "
		                 "parameters, the header says %llu (damaged file?)", path,
		                 (unsigned long long)want_np, (unsigned long long)np);
		goto done;
	}
	uint64_t slen = version >= 2 ? r64(h + 184) : 0;
	uint32_t task = version >= 2 ? r32(h + 176) : 0;
	if (slen > SECTIONS_MAX || (slen & 7) || task > HOG_TASK_RATINGS || (version == 2 && (slen || task))) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: model header is inconsistent: sections (damaged file?)", path);
		goto done;
	}
	uint64_t want = hlen + nw * 8ull + np * 4 + slen + 4;
	if ((uint64_t)st.st_size != want) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: %lld bytes, the header says %llu (truncated?)", path,
		                 (long long)st.st_size, (unsigned long long)want);
		goto done;
	}
	m = hog_model_alloc(probe.kind, r32(h + 16), probe.rule, shape, flags);
	uint32_t c;
	if (!m || (nw && !(pos = malloc(nw * 8ull))) || (slen && !(sec = malloc(slen)))) {
		rc = hog_err_set(err, ENOMEM, "%s: out of memory", path);
		goto done;
	}
	if ((nw && fread(pos, 8, nw, f) != nw) || fread(m->params, 4, np, f) != np ||
	    (slen && fread(sec, 1, slen, f) != slen) || fread(&c, 4, 1, f) != 1) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: truncated", path);
		goto done;
	}
	uLong crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, h, (uInt)hlen);
	if (nw)
		crc = crc_big(crc, pos, nw * 8ull);
	crc = crc_big(crc, m->params, np * 4);
	if (slen)
		crc = crc_big(crc, sec, slen);
	if ((uint32_t)crc != c) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: checksum mismatch (damaged file)", path);
		goto done;
	}
	for (uint64_t i = 0; i < np; i++)
		if (!isfinite(m->params[i])) {
			rc = hog_err_set(err, HOG_ECORRUPT, "%s: parameter %llu is not finite", path, (unsigned long long)i);
			goto done;
		}
	header_hyper(m, h, version);
	m->task = task;
	if (slen && (rc = hog_model_sections_parse(m, sec, slen, path, err)))
		goto done;
	if (ck) {
		ck->in_epoch = nw > 0;
		ck->nworkers = nw;
		ck->positions = pos;
		pos = NULL;
		ck->data_hash = version >= 2 ? r64(h + 160) : 0;
		ck->opts_hash = version >= 2 ? r64(h + 168) : 0;
	}
	*out = m;
	m = NULL;
done:
	hog_model_free(m);
	free(pos);
	free(sec);
	fclose(f);
	return rc;
}
