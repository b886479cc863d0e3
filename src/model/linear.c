/* Linear model: names of the training enums, prediction and evaluation
 * (logistic loss, accuracy, ROC AUC, RMSE), and the model file.
 *
 * Model file (little-endian), written atomically:
 *    0 "HOGMODEL"  8 u32 version  12 u32 kind (1 linear)  16 u32 loss  20 u32 rule
 *   24 u64 dim    32 u32 stride  36 u32 nworkers  40 i32 epochs done  44 u32 in_epoch
 *   48 f64 lr, l2, beta, backoff  80 u64 seed  88 u64 t  96 u64 nparams
 *  104 u32 schedule  108 u32 0  112 f64 t0  120 u64 warmup
 *  128 u64 positions[nworkers], then f32 params[nparams], then u32 CRC-32 of all before. */
#include "model/linear.h"
#include "sys/file.h"
#include "sys/names.h"
#include "sys/err.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define MODEL_MAGIC "HOGMODEL"
#define MODEL_VERSION 1
#define MODEL_HEADER 128

hog_model *hog_model_new(uint64_t dim, enum hog_loss loss, enum hog_rule rule)
{
	hog_model *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->dim = dim;
	m->loss = loss;
	m->rule = rule;
	m->stride = hog_rule_stride(rule);
	if (!(m->params = calloc((dim + 1) * m->stride, sizeof(float)))) {
		free(m);
		return NULL;
	}
	return m;
}

void hog_model_free(hog_model *m)
{
	if (!m)
		return;
	free(m->params);
	free(m->weights);
	free(m->positions);
	free(m);
}

void hog_model_info_get(const hog_model *m, hog_model_info *info)
{
	hog_model *mm = (hog_model *)m; /* the weight copy is a cache */
	if (!mm->weights && (mm->weights = malloc((m->dim + 1) * sizeof(float))))
		for (uint64_t i = 0; i < m->dim; i++)
			mm->weights[i] = m->params[i * m->stride];
	info->dim = m->dim;
	info->loss = m->loss;
	info->rule = m->rule;
	info->epochs_done = m->epochs_done;
	info->bias = m->params[m->dim * m->stride];
	info->weights = mm->weights;
}

static float margin(const hog_model *m, const hog_data *d, uint64_t i)
{
	const uint32_t S = m->stride;
	float s = m->params[m->dim * S];
	for (uint64_t j = d->offsets[i]; j < d->offsets[i + 1]; j++) {
		uint32_t v = d->ids[j];
		if (v < m->dim)
			s += m->params[(uint64_t)v * S] * (d->vals ? d->vals[j] : 1.0f);
	}
	return s;
}

int hog_model_predict(const hog_model *m, const hog_data *d, float *out, hog_err *err)
{
	if (d->meta.kind != HOG_KIND_SPARSE)
		return hog_err_set(err, HOG_EMISMATCH, "a linear model needs a sparse data set, not %s",
		                   hog_kind_name(d->meta.kind));
	/* one thread: fast enough for evaluation, and OpenMP's own synchronization is
	 * invisible to ThreadSanitizer (the trainer's team evaluates in parallel) */
	for (uint64_t i = 0; i < d->n; i++)
		out[i] = margin(m, d, i);
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	const float *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* ROC AUC by ranking (ties get the mean rank): the Mann-Whitney statistic. */
static double auc_of(const float *margins, const float *labels, uint64_t n)
{
	float *pairs = malloc(n * 2 * sizeof(float));
	if (!pairs)
		return NAN;
	for (uint64_t i = 0; i < n; i++) {
		pairs[2 * i] = margins[i];
		pairs[2 * i + 1] = labels[i];
	}
	qsort(pairs, n, 2 * sizeof(float), cmp_pair);
	double rank_sum = 0, pos = 0;
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i;
		while (j < n && pairs[2 * j] == pairs[2 * i])
			j++;
		double mean_rank = (i + 1 + j) / 2.0; /* ranks i+1..j */
		for (uint64_t k = i; k < j; k++)
			if (pairs[2 * k + 1] > 0) {
				rank_sum += mean_rank;
				pos++;
			}
		i = j;
	}
	free(pairs);
	double neg = (double)n - pos;
	if (pos == 0 || neg == 0)
		return NAN;
	return (rank_sum - pos * (pos + 1) / 2) / (pos * neg);
}

int hog_model_eval_margins(enum hog_loss loss, const float *margins, const float *labels, uint64_t n,
                           int binary, hog_eval *ev)
{
	double sl = 0, sll = 0, sse = 0;
	uint64_t right = 0;
	for (uint64_t i = 0; i < n; i++) {
		float m = margins[i], y = labels[i];
		sl += hog_loss_value(loss, m, y);
		if (binary) {
			sll += hog_loss_value(HOG_LOSS_LOGISTIC, m, y);
			right += (m > 0) == (y > 0);
		} else {
			sse += (double)(m - y) * (m - y);
		}
	}
	memset(ev, 0, sizeof *ev);
	ev->examples = n;
	ev->loss = n ? sl / n : NAN;
	ev->logloss = binary && n ? sll / n : NAN;
	ev->accuracy = binary && n ? (double)right / n : NAN;
	ev->auc = binary ? auc_of(margins, labels, n) : NAN;
	ev->rmse = !binary && n ? sqrt(sse / n) : NAN;
	return 0;
}

int hog_model_eval(const hog_model *m, const hog_data *d, hog_eval *ev, hog_err *err)
{
	float *mg = malloc((d->n + 1) * sizeof(float));
	if (!mg)
		return hog_err_set(err, ENOMEM, "out of memory");
	int rc = hog_model_predict(m, d, mg, err);
	if (!rc)
		rc = hog_model_eval_margins(m->loss, mg, d->labels, d->n, d->meta.task == HOG_TASK_BINARY, ev);
	free(mg);
	return rc;
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

int hog_model_save(const hog_model *m, const char *path, hog_err *err)
{
	unsigned char h[MODEL_HEADER] = { 0 };
	uint64_t np = (m->dim + 1) * m->stride;
	memcpy(h, MODEL_MAGIC, 8);
	w32(h + 8, MODEL_VERSION);
	w32(h + 12, 1);
	w32(h + 16, m->loss);
	w32(h + 20, m->rule);
	w64(h + 24, m->dim);
	w32(h + 32, m->stride);
	w32(h + 36, m->in_epoch ? m->nworkers : 0);
	w32(h + 40, (uint32_t)m->epochs_done);
	w32(h + 44, (uint32_t)m->in_epoch);
	wf64(h + 48, m->lr);
	wf64(h + 56, m->l2);
	wf64(h + 64, m->beta);
	wf64(h + 72, m->backoff);
	w64(h + 80, m->seed);
	w64(h + 88, m->t);
	w64(h + 96, np);
	w32(h + 104, m->sched);
	wf64(h + 112, m->t0);
	w64(h + 120, m->warmup);
	char *tmp = hog_tmp_path(path);
	if (!tmp)
		return hog_err_set(err, ENOMEM, "out of memory");
	int rc = 0, fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		rc = hog_err_set(err, errno, "%s: cannot create: %s", tmp, strerror(errno));
		free(tmp);
		return rc;
	}
	uLong crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, h, MODEL_HEADER);
	uint32_t nw = m->in_epoch ? m->nworkers : 0;
	if (nw)
		crc = crc32(crc, (const unsigned char *)m->positions, nw * 8);
	for (uint64_t off = 0; off < np * 4;) {
		uInt k = np * 4 - off > (1u << 30) ? (1u << 30) : (uInt)(np * 4 - off);
		crc = crc32(crc, (const unsigned char *)m->params + off, k);
		off += k;
	}
	uint32_t c = (uint32_t)crc;
	if ((rc = write_all(fd, h, MODEL_HEADER)) || (nw && (rc = write_all(fd, m->positions, nw * 8))) ||
	    (rc = write_all(fd, m->params, np * 4)) || (rc = write_all(fd, &c, 4)) || (fsync(fd) ? (rc = errno) : 0)) {
		close(fd);
		unlink(tmp);
		hog_err_set(err, rc, "%s: cannot write: %s", path, strerror(rc));
		free(tmp);
		return rc;
	}
	close(fd);
	if (rename(tmp, path) != 0) {
		rc = errno;
		unlink(tmp);
		hog_err_set(err, rc, "%s: cannot rename into place: %s", path, strerror(rc));
	} else {
		hog_fsync_dir(path);
	}
	free(tmp);
	return rc;
}

int hog_model_load(hog_model **out, const char *path, hog_err *err)
{
	*out = NULL;
	int rc = hog_check_regular_input(path, err);
	if (rc)
		return rc;
	FILE *f = fopen(path, "rb");
	if (!f)
		return hog_err_set(err, errno, "%s: %s", path, strerror(errno));
	unsigned char h[MODEL_HEADER];
	hog_model *m = NULL;
	struct stat st;
	fstat(fileno(f), &st);
	if (fread(h, 1, MODEL_HEADER, f) != MODEL_HEADER || memcmp(h, MODEL_MAGIC, 8) != 0) {
		rc = hog_err_set(err, HOG_EFORMAT, "%s: not a hogwild model file", path);
		goto done;
	}
	if (r32(h + 8) > MODEL_VERSION) {
		rc = hog_err_set(err, HOG_EVERSION, "%s: model format version %u is newer than this hogwild reads (%d)",
		                 path, r32(h + 8), MODEL_VERSION);
		goto done;
	}
	uint32_t kind = r32(h + 12), loss = r32(h + 16), rule = r32(h + 20), stride = r32(h + 32);
	uint32_t nw = r32(h + 36);
	uint64_t dim = r64(h + 24), np = r64(h + 96);
	if (kind != 1 || loss > HOG_LOSS_SQUARED || rule > HOG_RULE_ADAREVISION ||
	    stride != hog_rule_stride(rule) || dim > UINT32_MAX || np != (dim + 1) * stride || nw > 65536) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: model header is inconsistent (damaged file?)", path);
		goto done;
	}
	uint64_t want = MODEL_HEADER + nw * 8ull + np * 4 + 4;
	if ((uint64_t)st.st_size != want) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: %lld bytes, the header says %llu (truncated?)", path,
		                 (long long)st.st_size, (unsigned long long)want);
		goto done;
	}
	if (!(m = hog_model_new(dim, loss, rule)) || (nw && !(m->positions = malloc(nw * 8ull)))) {
		rc = hog_err_set(err, ENOMEM, "%s: out of memory", path);
		goto done;
	}
	uint32_t c;
	if ((nw && fread(m->positions, 8, nw, f) != nw) || fread(m->params, 4, np, f) != np || fread(&c, 4, 1, f) != 1) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: truncated", path);
		goto done;
	}
	uLong crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, h, MODEL_HEADER);
	if (nw)
		crc = crc32(crc, (const unsigned char *)m->positions, nw * 8);
	for (uint64_t off = 0; off < np * 4;) {
		uInt k = np * 4 - off > (1u << 30) ? (1u << 30) : (uInt)(np * 4 - off);
		crc = crc32(crc, (const unsigned char *)m->params + off, k);
		off += k;
	}
	if ((uint32_t)crc != c) {
		rc = hog_err_set(err, HOG_ECORRUPT, "%s: checksum mismatch (damaged file)", path);
		goto done;
	}
	m->nworkers = nw;
	m->epochs_done = (int)r32(h + 40);
	m->in_epoch = (int)r32(h + 44) && nw;
	m->lr = rf64(h + 48);
	m->l2 = rf64(h + 56);
	m->beta = rf64(h + 64);
	m->backoff = rf64(h + 72);
	m->seed = r64(h + 80);
	m->t = r64(h + 88);
	m->sched = r32(h + 104);
	m->t0 = rf64(h + 112);
	m->warmup = r64(h + 120);
	for (uint64_t i = 0; i < np; i++)
		if (!isfinite(m->params[i])) {
			rc = hog_err_set(err, HOG_ECORRUPT, "%s: parameter %llu is not finite", path, (unsigned long long)i);
			goto done;
		}
	*out = m;
	m = NULL;
done:
	hog_model_free(m);
	fclose(f);
	return rc;
}
