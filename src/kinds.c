/* The model kinds built in: one descriptor each (kinds.h). */
#include "kinds.h"
#include "train/engine.h"

static const hog_kind_desc descs[HOG_MODEL_KIND_MAX + 1] = {
	[HOG_MODEL_LINEAR] = { HOG_MODEL_LINEAR, &hog_linear_kind, &hog_linear_trainer },
	[HOG_MODEL_MLP] = { HOG_MODEL_MLP, &hog_mlp_kind, &hog_mlp_trainer },
	[HOG_MODEL_MF] = { HOG_MODEL_MF, &hog_mf_kind, &hog_mf_trainer },
};

const hog_kind_desc *hog_kind_desc_get(enum hog_model_kind kind)
{
	return (unsigned)kind <= HOG_MODEL_KIND_MAX && descs[kind].model ? &descs[kind] : NULL;
}
