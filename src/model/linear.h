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

/* The logistic loss's derivative, and its loss in two parts, with one expf for
 * both: with z = -y m and e = exp(-|z|), loss = *lin + log1p(*e), *lin =
 * max(z,0), and dloss/dm = -y / (1 + exp(y m)) = -y / (1 + e) when z > 0,
 * -y e / (1 + e) else. (The training kernel sums the log1p parts as one
 * product, process_example in train/kernel.h: a log per thousand or so
 * examples, not one each.) */
static inline float hog_logistic_parts(float m, float y, float *lin, float *e)
{
	float z = -y * m, x = expf(-fabsf(z));
	*lin = z > 0 ? z : 0.0f;
	*e = x;
	return z > 0 ? -y / (1.0f + x) : -y * x / (1.0f + x);
}

/* The same, the loss whole: max(z,0) + log1p(e). */
static inline float hog_loss_both(enum hog_loss l, float m, float y, float *loss)
{
	if (l == HOG_LOSS_LOGISTIC) {
		float lin, e, g = hog_logistic_parts(m, y, &lin, &e);
		*loss = lin + log1pf(e);
		return g;
	}
	*loss = hog_loss_value(l, m, y);
	return hog_loss_deriv(l, m, y);
}

/** A zeroed linear model. */
hog_model *hog_model_new(uint64_t dim, enum hog_loss loss, enum hog_rule rule);

#endif
