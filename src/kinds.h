/* One descriptor per model kind: the one list of the kinds built in (kinds.c).
 *
 * This is the composition root of the library: the only file that names every
 * model's tables. The model layer reads a kind's model ops from it (loading a
 * file of that kind, predicting), the engine its trainer ops (training, the
 * modes and losses it takes, its routing: linear --loss softmax trains as the
 * mlp), and the CLI asks the public queries built on it (hog_model_kind_name,
 * _parse, _built, _modes, _losses). Adding a model is a model/ file with its
 * hog_model_kind_ops, a train/ file with its hog_trainer_ops, and one line in
 * kinds.c (docs/architecture.md, "Adding a model"). */
#ifndef HOG_KINDS_H
#define HOG_KINDS_H
#include "model/model.h"

struct hog_trainer_ops;

typedef struct hog_kind_desc {
	enum hog_model_kind kind;
	const hog_model_kind_ops *model;       /* its record, file sections, predictions (model/) */
	const struct hog_trainer_ops *trainer; /* its training (train/engine.h) */
} hog_kind_desc;

/* The descriptor of @p kind, or NULL when the kind is unknown or not built. */
const hog_kind_desc *hog_kind_desc_get(enum hog_model_kind kind);

#endif
