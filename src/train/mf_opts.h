/* The mf model's own options (hog_train_opts.mf) and the shared ones as mf
 * takes them: the entries of its trainer table (mf_train.c) that fill their
 * defaults, check them, pick the default mode and hash them (mf_opts.c). */
#ifndef HOG_TRAIN_MF_OPTS_H
#define HOG_TRAIN_MF_OPTS_H
#include "hogwild.h"
#include <stdint.h>

/* hog_trainer_ops.opts_init: the defaults of hog_train_opts.mf. */
void mf_opts_init(hog_train_opts *o);
/* hog_trainer_ops.opts_hash: hog_train_opts.mf (rank, biases, grid) onto @p h. */
uint64_t mf_opts_hash(const hog_train_opts *o, uint64_t h);
/* hog_trainer_ops.check. */
int mf_opts_check(hog_train_opts *o, const hog_data *tr, const hog_data *te, hog_err *err);
/* The l2 mf trains with: 0.05 times @p scale (mf_scale) for hog_train_opts_init's
 * 1e-6, else the one given (the header of mf_opts.c says why). */
double mf_l2_of(const hog_train_opts *o, double scale);
/* How many times MovieLens's 0.5..5 the ratings of @p m span (the range over
 * 4.5), at least 1: the defaults' step is divided by it, their l2 multiplied. */
double mf_scale(const hog_meta *m);
/* The step when --lr is not given, for ratings @p scale (mf_scale) times as wide
 * as 0.5..5 (the header of mf_opts.c says why). */
double mf_default_lr(const hog_train_opts *o, double scale);
/* hog_trainer_ops.default_mode. */
enum hog_mode mf_opts_default_mode(const hog_train_opts *o, int stream, const hog_meta *m);

#endif
