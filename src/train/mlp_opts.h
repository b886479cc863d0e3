/* The mlp's own options (hog_train_opts.mlp) and the shared ones as the mlp
 * takes them: the entries of its trainer table (mlp_train.c) that fill their
 * defaults, hash them and check them (mlp_opts.c). */
#ifndef HOG_TRAIN_MLP_OPTS_H
#define HOG_TRAIN_MLP_OPTS_H
#include "hogwild.h"
#include <stdint.h>

/* hog_trainer_ops.opts_init: the defaults of hog_train_opts.mlp. */
void mlp_opts_init(hog_train_opts *o);
/* hog_trainer_ops.opts_hash: hog_train_opts.mlp (batch, layers, momentum) onto @p h. */
uint64_t mlp_opts_hash(const hog_train_opts *o, uint64_t h);
/* hog_trainer_ops.check: also settles the momentum (momentum_auto), the loss
 * (softmax for multiclass labels), the model kind (mlp: what a routed linear
 * run saves), --normalize's scaling and the default step size. */
int mlp_opts_check(hog_train_opts *o, const hog_data *tr, const hog_data *te, hog_err *err);
/* Whether the check gives @p o the default momentum 0.9 (momentum_auto: hidden
 * layers, sgd, no --momentum given): what train says on stderr. */
static inline int mlp_momentum_default(const hog_train_opts *o)
{
	return o->mlp.momentum_auto && o->mlp.nlayers && o->rule == HOG_RULE_SGD && o->mlp.momentum == 0;
}

#endif
