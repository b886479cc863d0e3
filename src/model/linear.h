/* The sparse linear model: losses and their derivatives (inline, shared by the
 * training kernel and evaluation). Layout of its parameters: (dim + 1) records
 * of `stride` floats, feature v's at v * stride, the bias's last. */
#ifndef HOG_MODEL_LINEAR_H
#define HOG_MODEL_LINEAR_H
#include "hogwild.h"
#include "model/model.h"
#include <math.h>

/* Loss of margin m for label y (binary labels are -1/+1). */
static inline float hog_loss_value(enum hog_loss l, float m, float y)
{
	switch (l) {
	case HOG_LOSS_LOGISTIC: {
		float z = -y * m; /* log(1 + e^z), without overflow */
		return z > 0 ? z + log1pf(expf(-z)) : log1pf(expf(z));
	}
	case HOG_LOSS_HINGE: return fmaxf(0.0f, 1.0f - y * m);
	case HOG_LOSS_SQUARED: return 0.5f * (m - y) * (m - y);
	case HOG_LOSS_SOFTMAX: break; /* not a margin loss: the mlp's (model/mlp.h) */
	}
	return 0;
}

/* d loss / d m. */
static inline float hog_loss_deriv(enum hog_loss l, float m, float y)
{
	switch (l) {
	case HOG_LOSS_LOGISTIC: return -y / (1.0f + expf(y * m));
	case HOG_LOSS_HINGE: return y * m < 1.0f ? -y : 0.0f;
	case HOG_LOSS_SQUARED: return m - y;
	case HOG_LOSS_SOFTMAX: break;
	}
	return 0;
}

/* Loss and derivative together: the logistic loss needs one expf for both
 * (with z = -y m and e = exp(-|z|): loss = max(z,0) + log1p(e), and
 * dloss/dm = -y / (1 + exp(y m)) = -y / (1 + e) when z > 0, -y e / (1 + e) else). */
static inline float hog_loss_both(enum hog_loss l, float m, float y, float *loss)
{
	if (l == HOG_LOSS_LOGISTIC) {
		float z = -y * m, e = expf(-fabsf(z));
		*loss = (z > 0 ? z : 0.0f) + log1pf(e);
		return z > 0 ? -y / (1.0f + e) : -y * e / (1.0f + e);
	}
	*loss = hog_loss_value(l, m, y);
	return hog_loss_deriv(l, m, y);
}

/** A zeroed linear model. */
hog_model *hog_model_new(uint64_t dim, enum hog_loss loss, enum hog_rule rule);

#endif
