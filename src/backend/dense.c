/* A fully connected layer on any backend, composed from the table's ops: the
 * `dense_fwd`/`dense_bwd` of docs/architecture.md §8. Composition rather than table entries:
 * every backend gets them for free, and a backend that wants a fused kernel can
 * still add one behind these names later.
 *
 * Forward:  Z = X W + 1 b^T,  Y = act(Z)                 (X: rows x in, W: in x out)
 * Backward: dZ = dY * act'(Z) (from Y), dW = X^T dZ, db = 1^T dZ, dX = dZ W^T
 * (the standard back-propagation of a layer, e.g. Goodfellow et al., Deep
 * Learning, 6.5.4). */
#include "backend/backend.h"

int hog_backend_dense_fwd(hog_backend *b, int rows, int in, int out, const float *X,
                          const float *W, const float *bias, enum hog_act act, float *Y,
                          hog_err *err)
{
	int rc = hog_backend_gemm(b, 0, 0, rows, out, in, 1.0f, X, in, W, out, 0.0f, Y, out, err);
	if (!rc && bias)
		rc = hog_backend_bias_add(b, rows, out, Y, bias, err);
	if (!rc && act != HOG_ACT_NONE)
		rc = hog_backend_act_fwd(b, act, (size_t)rows * out, Y, Y, err);
	return rc;
}

int hog_backend_dense_bwd(hog_backend *b, int rows, int in, int out, const float *X,
                          const float *W, enum hog_act act, const float *Y, float *dY,
                          float beta, float *dW, float *db, float *dX, hog_err *err)
{
	int rc = 0;
	if (act != HOG_ACT_NONE)
		rc = hog_backend_act_bwd(b, act, (size_t)rows * out, Y, dY, dY, err);
	if (!rc && dW)
		rc = hog_backend_gemm(b, 1, 0, in, out, rows, 1.0f, X, in, dY, out, beta, dW, out, err);
	if (!rc && db)
		rc = hog_backend_bias_grad(b, rows, out, dY, beta, db, err);
	if (!rc && dX)
		rc = hog_backend_gemm(b, 0, 1, rows, in, out, 1.0f, dY, out, W, out, 0.0f, dX, in, err);
	return rc;
}
