/* The hog_backend_* wrappers: each forwards to the backend's table entry, and
 * where the entry is NULL falls back to the CPU op (ggml's habit: NULL means "not
 * supported", the caller never has to care). On a backend whose buffers are host
 * memory the CPU op runs on them in place; otherwise the operands are staged:
 * downloaded into one host block, computed there, the outputs uploaded back. The
 * staging path is for correctness (a new backend can start with gemm alone), not
 * speed. */
#include "backend/backend.h"
#include "sys/err.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- buffers ---- */

int hog_backend_alloc(hog_backend *b, size_t bytes, void **out, hog_err *err)
{
	if (b->ops->alloc)
		return b->ops->alloc(b, bytes, out, err);
	/* 64-byte rows for the vector loops; a zero-byte buffer is still a pointer */
	size_t sz = (bytes + 63) & ~(size_t)63;
	*out = aligned_alloc(64, sz ? sz : 64);
	if (!*out)
		return hog_err_set(err, ENOMEM, "backend %s: out of memory allocating %zu bytes",
		                   b->device, bytes);
	return 0;
}

void hog_backend_release(hog_backend *b, void *p)
{
	if (!p)
		return;
	if (b->ops->release)
		b->ops->release(b, p);
	else
		free(p);
}

int hog_backend_upload(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err)
{
	if (b->ops->upload)
		return b->ops->upload(b, dst, src, bytes, err);
	if (bytes)
		memcpy(dst, src, bytes);
	return 0;
}

int hog_backend_download(hog_backend *b, void *dst, const void *src, size_t bytes, hog_err *err)
{
	if (b->ops->download)
		return b->ops->download(b, dst, src, bytes, err);
	if (bytes)
		memcpy(dst, src, bytes);
	return 0;
}

int hog_backend_sync(hog_backend *b, hog_err *err)
{
	return b->ops->sync ? b->ops->sync(b, err) : 0;
}

/* ---- staging for the fallback of a non-host backend ---- */

/* One host block per handle, carved into 64-byte aligned pieces per call. */
typedef struct {
	hog_backend *b;
	size_t used;
} stage;

/* Bytes a row-major matrix of r rows, c columns, leading dimension ld spans. */
static size_t span(int r, int c, int ld)
{
	return r <= 0 || c <= 0 ? 0 : ((size_t)(r - 1) * ld + c) * sizeof(float);
}

static int stage_reserve(hog_backend *b, size_t bytes, hog_err *err)
{
	if (bytes <= b->stage_size)
		return 0;
	void *p = realloc(b->stage, bytes);
	if (!p)
		return hog_err_set(err, ENOMEM, "backend %s: out of memory staging %zu bytes",
		                   b->device, bytes);
	b->stage = p;
	b->stage_size = bytes;
	return 0;
}

/* Takes the next piece of the block (reserved beforehand); downloads src into it
 * when src is not NULL. */
static void *stage_take(stage *s, const void *src, size_t bytes, int *rc, hog_err *err)
{
	char *p = (char *)s->b->stage + s->used;
	s->used += (bytes + 63) & ~(size_t)63;
	if (*rc == 0 && src && bytes)
		*rc = hog_backend_download(s->b, p, src, bytes, err);
	return p;
}

#define PAD(x) ((((size_t)(x)) + 63) & ~(size_t)63)

/* ---- operations ---- */

static int spmm_shape(const char *op, int rows, int n, int ldw, int ldy, hog_err *err)
{
	return hog_err_set(err, HOG_ECONFIG, "%s: %d rows of width %d with leading dimensions %d, %d do not fit", op,
	                   rows, n, ldw, ldy);
}

int hog_backend_gemm(hog_backend *b, int ta, int tb, int m, int n, int k, float alpha,
                     const float *A, int lda, const float *B, int ldb, float beta, float *C,
                     int ldc, hog_err *err)
{
	if (m < 0 || n < 0 || k < 0 || lda < (ta ? (m > 1 ? m : 1) : (k > 1 ? k : 1)) ||
	    ldb < (tb ? (k > 1 ? k : 1) : (n > 1 ? n : 1)) || ldc < (n > 1 ? n : 1))
		return hog_err_set(err, HOG_ECONFIG, "gemm: shapes m %d, n %d, k %d with leading dimensions %d, %d, %d "
		                   "do not fit", m, n, k, lda, ldb, ldc);
	if (b->ops->gemm)
		return b->ops->gemm(b, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, err);
	if (hog_backend_is_host(b)) {
		hog_cpu_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
		return 0;
	}
	size_t sa = span(ta ? k : m, ta ? m : k, lda), sb = span(tb ? n : k, tb ? k : n, ldb);
	size_t sc = span(m, n, ldc);
	int rc = stage_reserve(b, PAD(sa) + PAD(sb) + PAD(sc), err);
	if (rc)
		return rc;
	stage s = { b, 0 };
	float *hA = stage_take(&s, A, sa, &rc, err), *hB = stage_take(&s, B, sb, &rc, err);
	/* C is read only when beta is not 0; ld gaps keep what C holds either way */
	float *hC = stage_take(&s, C, sc, &rc, err);
	if (rc)
		return rc;
	hog_cpu_gemm(ta, tb, m, n, k, alpha, hA, lda, hB, ldb, beta, hC, ldc);
	return hog_backend_upload(b, C, hC, sc, err);
}

int hog_backend_bias_add(hog_backend *b, int rows, int cols, float *X, const float *bias,
                         hog_err *err)
{
	if (b->ops->bias_add)
		return b->ops->bias_add(b, rows, cols, X, bias, err);
	if (hog_backend_is_host(b)) {
		hog_cpu_bias_add(rows, cols, X, bias);
		return 0;
	}
	size_t sx = span(rows, cols, cols), sv = span(1, cols, cols);
	int rc = stage_reserve(b, PAD(sx) + PAD(sv), err);
	if (rc)
		return rc;
	stage s = { b, 0 };
	float *hX = stage_take(&s, X, sx, &rc, err), *hv = stage_take(&s, bias, sv, &rc, err);
	if (rc)
		return rc;
	hog_cpu_bias_add(rows, cols, hX, hv);
	return hog_backend_upload(b, X, hX, sx, err);
}

int hog_backend_bias_grad(hog_backend *b, int rows, int cols, const float *dY, float beta,
                          float *db, hog_err *err)
{
	if (b->ops->bias_grad)
		return b->ops->bias_grad(b, rows, cols, dY, beta, db, err);
	if (hog_backend_is_host(b)) {
		hog_cpu_bias_grad(rows, cols, dY, beta, db);
		return 0;
	}
	size_t sy = span(rows, cols, cols), sv = span(1, cols, cols);
	int rc = stage_reserve(b, PAD(sy) + PAD(sv), err);
	if (rc)
		return rc;
	stage s = { b, 0 };
	float *hY = stage_take(&s, dY, sy, &rc, err);
	float *hd = stage_take(&s, beta != 0 ? db : NULL, sv, &rc, err);
	if (rc)
		return rc;
	hog_cpu_bias_grad(rows, cols, hY, beta, hd);
	return hog_backend_upload(b, db, hd, sv, err);
}

int hog_backend_act_fwd(hog_backend *b, enum hog_act act, size_t n, const float *X, float *Y,
                        hog_err *err)
{
	if (b->ops->act_fwd)
		return b->ops->act_fwd(b, act, n, X, Y, err);
	if (hog_backend_is_host(b)) {
		hog_cpu_act_fwd(act, n, X, Y);
		return 0;
	}
	size_t sx = n * sizeof(float);
	int rc = stage_reserve(b, PAD(sx), err);
	if (rc)
		return rc;
	stage s = { b, 0 };
	float *h = stage_take(&s, X, sx, &rc, err);
	if (rc)
		return rc;
	hog_cpu_act_fwd(act, n, h, h);
	return hog_backend_upload(b, Y, h, sx, err);
}

int hog_backend_act_bwd(hog_backend *b, enum hog_act act, size_t n, const float *Y,
                        const float *dY, float *dX, hog_err *err)
{
	if (b->ops->act_bwd)
		return b->ops->act_bwd(b, act, n, Y, dY, dX, err);
	if (hog_backend_is_host(b)) {
		hog_cpu_act_bwd(act, n, Y, dY, dX);
		return 0;
	}
	size_t sx = n * sizeof(float);
	int rc = stage_reserve(b, 2 * PAD(sx), err);
	if (rc)
		return rc;
	stage s = { b, 0 };
	float *hY = stage_take(&s, Y, sx, &rc, err), *hd = stage_take(&s, dY, sx, &rc, err);
	if (rc)
		return rc;
	hog_cpu_act_bwd(act, n, hY, hd, hd);
	return hog_backend_upload(b, dX, hd, sx, err);
}

int hog_backend_xent(hog_backend *b, int rows, int classes, const float *Z,
                     const int32_t *labels, const float *weights, float *P, float *dZ, double *loss,
                     hog_err *err)
{
	if (rows < 0 || classes < 1 || (!labels && (dZ || loss)))
		return hog_err_set(err, HOG_ECONFIG, "xent: %d rows of %d classes%s", rows, classes,
		                   !labels && (dZ || loss) ? ", a loss or gradient without labels" : "");
	if (b->ops->xent)
		return b->ops->xent(b, rows, classes, Z, labels, weights, P, dZ, loss, err);
	if (hog_backend_is_host(b))
		return hog_cpu_xent_bad(hog_cpu_xent(rows, classes, Z, labels, weights, P, dZ, loss), classes, err);
	size_t sz = (size_t)rows * classes * sizeof(float), sl = (size_t)rows * sizeof(int32_t),
	       sw = (size_t)rows * sizeof(float);
	int rc = stage_reserve(b, 3 * PAD(sz) + PAD(sl) + PAD(sw), err);
	if (rc)
		return rc;
	stage s = { b, 0 };
	float *hZ = stage_take(&s, Z, sz, &rc, err);
	int32_t *hl = labels ? stage_take(&s, labels, sl, &rc, err) : NULL;
	float *hw = weights ? stage_take(&s, weights, sw, &rc, err) : NULL;
	float *hP = stage_take(&s, NULL, sz, &rc, err), *hd = stage_take(&s, NULL, sz, &rc, err);
	if (rc)
		return rc;
	if ((rc = hog_cpu_xent_bad(hog_cpu_xent(rows, classes, hZ, hl, hw, P ? hP : NULL, dZ ? hd : NULL, loss), classes,
	                           err)))
		return rc;
	if (P && (rc = hog_backend_upload(b, P, hP, sz, err)))
		return rc;
	return dZ ? hog_backend_upload(b, dZ, hd, sz, err) : 0;
}

/* Downloads a batch's CSR arrays: offsets, then ids and vals up to offsets[rows]
 * (the CPU op indexes them with the offsets as given). *rows_w: max id + 1. */
static int stage_csr(stage *s, int rows, const uint32_t *offsets, const uint32_t *ids,
                     const float *vals, uint32_t **ho, uint32_t **hi, float **hv,
                     size_t *rows_w, hog_err *err)
{
	uint32_t last;
	int rc;
	if ((rc = hog_backend_download(s->b, &last, offsets + rows, sizeof last, err)))
		return rc;
	size_t so = (size_t)(rows + 1) * 4, si = (size_t)last * 4;
	if ((rc = stage_reserve(s->b, PAD(so) + 2 * PAD(si), err)))
		return rc;
	*ho = stage_take(s, offsets, so, &rc, err);
	*hi = stage_take(s, ids, si, &rc, err);
	*hv = vals ? stage_take(s, vals, si, &rc, err) : NULL;
	if (rc)
		return rc;
	size_t mx = 0;
	for (uint32_t p = (*ho)[0]; p < (*ho)[rows]; p++)
		mx = (*hi)[p] + 1u > mx ? (*hi)[p] + 1u : mx;
	*rows_w = mx;
	return 0;
}

/* The sparse ops' fallback: the CSR matrix staged, and room behind it for the
 * dense W (as many rows as the largest id needs, sw bytes) and Y (sy bytes).
 * W's rows are known only after the ids are in, so the CSR part is reserved
 * first and the block grown after, which may move it: the CSR pointers are
 * recomputed. */
static int stage_csr_room(stage *s, int rows, const uint32_t *offsets, const uint32_t *ids, const float *vals,
                          int n, int ldw, int ldy, uint32_t **ho, uint32_t **hi, float **hv, size_t *sw,
                          size_t *sy, hog_err *err)
{
	size_t rw;
	int rc = stage_csr(s, rows, offsets, ids, vals, ho, hi, hv, &rw, err);
	if (rc)
		return rc;
	*sw = span((int)rw, n, ldw);
	*sy = span(rows, n, ldy);
	if ((rc = stage_reserve(s->b, s->used + PAD(*sw) + PAD(*sy), err)))
		return rc;
	*ho = s->b->stage;
	*hi = (uint32_t *)((char *)s->b->stage + PAD((size_t)(rows + 1) * 4));
	if (vals)
		*hv = (float *)((char *)*hi + PAD((size_t)(*ho)[rows] * 4));
	return 0;
}

int hog_backend_spmm(hog_backend *b, int rows, const uint32_t *offsets, const uint32_t *ids,
                     const float *vals, int n, const float *W, int ldw, float beta, float *Y,
                     int ldy, hog_err *err)
{
	if (rows < 0 || n < 0 || ldw < n || ldy < n)
		return spmm_shape("spmm", rows, n, ldw, ldy, err);
	if (b->ops->spmm)
		return b->ops->spmm(b, rows, offsets, ids, vals, n, W, ldw, beta, Y, ldy, err);
	if (hog_backend_is_host(b)) {
		hog_cpu_spmm(rows, offsets, ids, vals, n, W, ldw, beta, Y, ldy);
		return 0;
	}
	stage s = { b, 0 };
	uint32_t *ho, *hi;
	float *hv;
	size_t sw, sy;
	int rc = stage_csr_room(&s, rows, offsets, ids, vals, n, ldw, ldy, &ho, &hi, &hv, &sw, &sy, err);
	if (rc)
		return rc;
	float *hW = stage_take(&s, W, sw, &rc, err), *hY = stage_take(&s, Y, sy, &rc, err);
	if (rc)
		return rc;
	hog_cpu_spmm(rows, ho, hi, hv, n, hW, ldw, beta, hY, ldy);
	return hog_backend_upload(b, Y, hY, sy, err);
}

int hog_backend_spmm_grad(hog_backend *b, int rows, const uint32_t *offsets,
                          const uint32_t *ids, const float *vals, int n, const float *dY,
                          int ldy, float alpha, float *dW, int ldw, hog_err *err)
{
	if (rows < 0 || n < 0 || ldw < n || ldy < n)
		return spmm_shape("spmm_grad", rows, n, ldw, ldy, err);
	if (b->ops->spmm_grad)
		return b->ops->spmm_grad(b, rows, offsets, ids, vals, n, dY, ldy, alpha, dW, ldw,
		                         err);
	if (hog_backend_is_host(b)) {
		hog_cpu_spmm_grad(rows, offsets, ids, vals, n, dY, ldy, alpha, dW, ldw);
		return 0;
	}
	stage s = { b, 0 };
	uint32_t *ho, *hi;
	float *hv;
	size_t sw, sy;
	int rc = stage_csr_room(&s, rows, offsets, ids, vals, n, ldw, ldy, &ho, &hi, &hv, &sw, &sy, err);
	if (rc)
		return rc;
	float *hW = stage_take(&s, dW, sw, &rc, err), *hY = stage_take(&s, dY, sy, &rc, err);
	if (rc)
		return rc;
	hog_cpu_spmm_grad(rows, ho, hi, hv, n, hY, ldy, alpha, hW, ldw);
	return hog_backend_upload(b, dW, hW, sw, err);
}

int hog_backend_axpy(hog_backend *b, size_t n, float alpha, const float *X, float *Y,
                     hog_err *err)
{
	if (b->ops->axpy)
		return b->ops->axpy(b, n, alpha, X, Y, err);
	if (hog_backend_is_host(b)) {
		hog_cpu_axpy(n, alpha, X, Y);
		return 0;
	}
	size_t sx = n * sizeof(float);
	int rc = stage_reserve(b, 2 * PAD(sx), err);
	if (rc)
		return rc;
	stage s = { b, 0 };
	float *hX = stage_take(&s, X, sx, &rc, err), *hY = stage_take(&s, Y, sx, &rc, err);
	if (rc)
		return rc;
	hog_cpu_axpy(n, alpha, hX, hY);
	return hog_backend_upload(b, Y, hY, sx, err);
}
