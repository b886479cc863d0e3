/* The CPU backend: sgemm through OpenBLAS (cblas, one thread per worker, see
 * blas.c), every other op a plain loop over contiguous rows that the compiler
 * vectorizes (the inner loops run over a row of n floats with no dependence
 * between iterations). The hog_cpu_* functions are also the fallback the
 * wrappers in ops.c use when another backend leaves a table entry NULL. */
#include "backend/backend.h"
#include "sys/err.h"
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void hog_cpu_gemm(int ta, int tb, int m, int n, int k, float alpha, const float *A, int lda,
                  const float *B, int ldb, float beta, float *C, int ldc)
{
	if (m == 0 || n == 0)
		return;
	if (k == 0) { /* cblas may skip the beta scaling when k is 0: do it here */
		for (int i = 0; i < m; i++)
			for (int j = 0; j < n; j++)
				C[(size_t)i * ldc + j] = beta == 0 ? 0 : beta * C[(size_t)i * ldc + j];
		return;
	}
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
	            m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void hog_cpu_bias_add(int rows, int cols, float *X, const float *bias)
{
	for (int i = 0; i < rows; i++) {
		float *restrict x = X + (size_t)i * cols;
		for (int j = 0; j < cols; j++)
			x[j] += bias[j];
	}
}

void hog_cpu_bias_grad(int rows, int cols, const float *dY, float beta, float *db)
{
	/* Row by row so the inner loop is a contiguous, vectorizable add. */
	if (beta == 0)
		memset(db, 0, (size_t)cols * sizeof *db);
	else if (beta != 1)
		for (int j = 0; j < cols; j++)
			db[j] *= beta;
	for (int i = 0; i < rows; i++) {
		const float *restrict g = dY + (size_t)i * cols;
		float *restrict d = db;
		for (int j = 0; j < cols; j++)
			d[j] += g[j];
	}
}

void hog_cpu_act_fwd(enum hog_act act, size_t n, const float *X, float *Y)
{
	switch (act) {
	case HOG_ACT_NONE:
		if (X != Y)
			memmove(Y, X, n * sizeof *Y);
		break;
	case HOG_ACT_RELU:
		for (size_t i = 0; i < n; i++)
			Y[i] = X[i] > 0 ? X[i] : 0;
		break;
	case HOG_ACT_SIGMOID:
		for (size_t i = 0; i < n; i++)
			Y[i] = 1.0f / (1.0f + expf(-X[i]));
		break;
	}
}

void hog_cpu_act_bwd(enum hog_act act, size_t n, const float *Y, const float *dY, float *dX)
{
	switch (act) {
	case HOG_ACT_NONE:
		if (dX != dY)
			memmove(dX, dY, n * sizeof *dX);
		break;
	case HOG_ACT_RELU:
		for (size_t i = 0; i < n; i++)
			dX[i] = Y[i] > 0 ? dY[i] : 0;
		break;
	case HOG_ACT_SIGMOID:
		for (size_t i = 0; i < n; i++)
			dX[i] = dY[i] * Y[i] * (1 - Y[i]);
		break;
	}
}

int hog_cpu_xent(int rows, int classes, const float *Z, const int32_t *labels, const float *weights,
                 float *P, float *dZ, double *loss)
{
	int bad = 0;
	const float inv = rows ? 1.0f / rows : 0;
	double sum = 0;
	if (classes == 1) {
		/* Logistic: the loss from the logit, log(1 + e^-|z|) + max(z, 0) - y z, is exact
		 * where log(p) would underflow. */
		for (int i = 0; i < rows; i++) {
			float z = Z[i], p = 1.0f / (1.0f + expf(-z)), f = weights ? weights[i] : inv;
			float y = labels && labels[i] > 0 ? 1.0f : 0.0f;
			if (loss) {
				double l = log1p(exp(-fabs((double)z))) + (z > 0 ? z : 0) - y * (double)z;
				sum += weights ? f * l : l;
			}
			if (P)
				P[i] = p;
			/* p - 1 = -1 / (1 + e^z): no cancellation where p rounds to 1 */
			if (dZ)
				dZ[i] = (y > 0 ? -1.0f / (1.0f + expf(z)) : p) * f;
		}
	} else {
		for (int i = 0; i < rows; i++) {
			const float *z = Z + (size_t)i * classes;
			float *p = P ? P + (size_t)i * classes : NULL;
			float m = z[0];
			for (int j = 1; j < classes; j++)
				m = z[j] > m ? z[j] : m;
			int y = labels ? labels[i] : -1;
			if (labels && (y < 0 || y >= classes)) {
				bad++;
				continue;
			}
			/* s_other, the sum without the label's term, gives p_y - 1 = -s_other / s
			 * without the cancellation of p_y - 1 where p_y rounds to 1 */
			float s = 0, so = 0;
			for (int j = 0; j < classes; j++) {
				float e = expf(z[j] - m);
				s += e;
				so += j != y ? e : 0;
			}
			/* -log p_y = log s - (z_y - m): no log of a tiny probability */
			const float f = weights ? weights[i] : inv;
			if (loss) {
				double l = log((double)s) - ((double)z[y] - m);
				sum += weights ? f * l : l;
			}
			float is = 1.0f / s;
			float *d = dZ ? dZ + (size_t)i * classes : NULL;
			for (int j = 0; j < classes; j++) {
				float pj = expf(z[j] - m) * is;
				if (p)
					p[j] = pj;
				if (d)
					d[j] = (j == y ? -so * is : pj) * f;
			}
		}
	}
	if (loss)
		*loss = weights ? sum : rows ? sum / rows : 0;
	return bad;
}

int hog_cpu_xent_bad(int bad, int classes, hog_err *err)
{
	return bad ? hog_err_set(err, HOG_EDATA, "%d labels outside 0..%d", bad, classes - 1) : 0;
}

void hog_cpu_spmm(int rows, const uint32_t *offsets, const uint32_t *ids, const float *vals,
                  int n, const float *W, int ldw, float beta, float *Y, int ldy)
{
	for (int i = 0; i < rows; i++) {
		float *restrict y = Y + (size_t)i * ldy;
		if (beta == 0)
			memset(y, 0, (size_t)n * sizeof *y);
		else if (beta != 1)
			for (int j = 0; j < n; j++)
				y[j] *= beta;
		for (uint32_t p = offsets[i]; p < offsets[i + 1]; p++) {
			const float *restrict w = W + (size_t)ids[p] * ldw;
			float v = vals ? vals[p] : 1.0f;
			for (int j = 0; j < n; j++)
				y[j] += v * w[j];
		}
	}
}

void hog_cpu_spmm_grad(int rows, const uint32_t *offsets, const uint32_t *ids,
                       const float *vals, int n, const float *dY, int ldy, float alpha,
                       float *dW, int ldw)
{
	for (int i = 0; i < rows; i++) {
		const float *restrict g = dY + (size_t)i * ldy;
		for (uint32_t p = offsets[i]; p < offsets[i + 1]; p++) {
			float *restrict d = dW + (size_t)ids[p] * ldw;
			float a = alpha * (vals ? vals[p] : 1.0f);
			for (int j = 0; j < n; j++)
				d[j] += a * g[j];
		}
	}
}

void hog_cpu_axpy(size_t n, float alpha, const float *X, float *Y)
{
	for (size_t i = 0; i < n; i++)
		Y[i] += alpha * X[i];
}

/* ---- the backend table: host buffers, ops that cannot fail ---- */

static int cpu_gemm(hog_backend *b, int ta, int tb, int m, int n, int k, float alpha,
                    const float *A, int lda, const float *B, int ldb, float beta, float *C,
                    int ldc, hog_err *err)
{
	(void)b, (void)err;
	hog_cpu_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
	return 0;
}

static int cpu_bias_add(hog_backend *b, int rows, int cols, float *X, const float *bias,
                        hog_err *err)
{
	(void)b, (void)err;
	hog_cpu_bias_add(rows, cols, X, bias);
	return 0;
}

static int cpu_bias_grad(hog_backend *b, int rows, int cols, const float *dY, float beta,
                         float *db, hog_err *err)
{
	(void)b, (void)err;
	hog_cpu_bias_grad(rows, cols, dY, beta, db);
	return 0;
}

static int cpu_act_fwd(hog_backend *b, enum hog_act act, size_t n, const float *X, float *Y,
                       hog_err *err)
{
	(void)b, (void)err;
	hog_cpu_act_fwd(act, n, X, Y);
	return 0;
}

static int cpu_act_bwd(hog_backend *b, enum hog_act act, size_t n, const float *Y,
                       const float *dY, float *dX, hog_err *err)
{
	(void)b, (void)err;
	hog_cpu_act_bwd(act, n, Y, dY, dX);
	return 0;
}

static int cpu_xent(hog_backend *b, int rows, int classes, const float *Z,
                    const int32_t *labels, const float *weights, float *P, float *dZ, double *loss,
                    hog_err *err)
{
	(void)b;
	return hog_cpu_xent_bad(hog_cpu_xent(rows, classes, Z, labels, weights, P, dZ, loss), classes, err);
}

static int cpu_spmm(hog_backend *b, int rows, const uint32_t *offsets, const uint32_t *ids,
                    const float *vals, int n, const float *W, int ldw, float beta, float *Y,
                    int ldy, hog_err *err)
{
	(void)b, (void)err;
	hog_cpu_spmm(rows, offsets, ids, vals, n, W, ldw, beta, Y, ldy);
	return 0;
}

static int cpu_spmm_grad(hog_backend *b, int rows, const uint32_t *offsets,
                         const uint32_t *ids, const float *vals, int n, const float *dY,
                         int ldy, float alpha, float *dW, int ldw, hog_err *err)
{
	(void)b, (void)err;
	hog_cpu_spmm_grad(rows, offsets, ids, vals, n, dY, ldy, alpha, dW, ldw);
	return 0;
}

static int cpu_axpy(hog_backend *b, size_t n, float alpha, const float *X, float *Y,
                    hog_err *err)
{
	(void)b, (void)err;
	hog_cpu_axpy(n, alpha, X, Y);
	return 0;
}

/* alloc/upload/download stay NULL: the wrappers use aligned host memory and memcpy. */
static const hog_backend_ops cpu_ops = {
	.name = "cpu",
	.gemm = cpu_gemm,
	.bias_add = cpu_bias_add,
	.bias_grad = cpu_bias_grad,
	.act_fwd = cpu_act_fwd,
	.act_bwd = cpu_act_bwd,
	.xent = cpu_xent,
	.spmm = cpu_spmm,
	.spmm_grad = cpu_spmm_grad,
	.axpy = cpu_axpy,
};

int hog_cpu_backend_open(hog_backend **out, unsigned flags, hog_err *err)
{
	hog_backend_blas_one_thread();
	return hog_backend_wrap(out, &cpu_ops, NULL, "cpu", flags, err);
}
