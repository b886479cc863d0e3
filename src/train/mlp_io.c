/* The mlp's model I/O (mlp_train.h): the network handed over for the raw
 * inputs, and a checkpoint taken back into the trained inputs' terms. The
 * trainer keeps W_0 for the inputs as scaled (--normalize: powers of two, so
 * the round trip is exact) and b_0 for them as centered (a feature far from
 * zero, scale.c: the round trip is to rounding); the model file holds the
 * network of the raw inputs, which predicts without either. */
#include "model/mlp.h"
#include "sys/err.h"
#include "train/engine.h"
#include "train/mlp_step.h"
#include "train/mlp_train.h"
#include <string.h>

hog_model *mlp_snapshot(const hog_engine *e)
{
	const mlp_state *M = e->model;
	uint64_t shape[4];
	hog_mlp_pack(shape, M->s.n[0], M->s.n[M->s.L], e->o.mlp.layers, e->o.mlp.nlayers);
	hog_model *m = hog_model_alloc(HOG_MODEL_MLP, e->o.loss, e->o.rule, shape, M->flags);
	if (!m)
		return NULL;
	for (uint64_t k = 0; k < M->nrec; k++)
		m->params[k] = ald(&M->P[k]);
	if (M->xscale) /* W_0 for the raw inputs: row v times its scale (a power of two: exact) */
		for (uint64_t v = 0; v < M->s.n[0]; v++)
			for (uint64_t k = 0; k < M->s.n[1]; k++)
				m->params[M->s.woff[0] + v * M->s.n[1] + k] *= M->xscale[v];
	if (M->xshift) /* b_0 for the raw inputs: less W_0 (raw) times the centers */
		for (uint64_t k = 0; k < M->s.n[1]; k++) {
			double b = m->params[M->s.boff[0] + k];
			for (uint64_t v = 0; v < M->s.n[0]; v++)
				b -= (double)m->params[M->s.woff[0] + v * M->s.n[1] + k] * M->xshift[v];
			m->params[M->s.boff[0] + k] = (float)b;
		}
	m->aux = e->o.mlp.momentum;
	return m;
}

int mlp_restore(hog_engine *e, const hog_model *m)
{
	mlp_state *M = e->model;
	hog_mlp_shape s;
	if (hog_mlp_shape_of(m->shape, m->flags, &s) || s.L != M->s.L || memcmp(s.n, M->s.n, sizeof s.n) ||
	    m->flags != M->flags || m->nparams != M->nrec)
		return hog_err_set(e->err, HOG_EMISMATCH, "%s: the checkpoint's network (%llu inputs, %d hidden layers, "
		                   "%llu outputs) is not this run's (%llu inputs, %d hidden layers, %llu outputs, "
		                   "--momentum %s)", e->o.resume, (unsigned long long)m->shape[0], s.L - 1,
		                   (unsigned long long)m->shape[1], (unsigned long long)M->s.n[0], M->s.L - 1,
		                   (unsigned long long)M->s.n[M->s.L], M->state && M->rk == RK_MOMENTUM ? "on" : "off");
	for (uint64_t k = 0; k < M->nrec; k++)
		ast(&M->P[k], m->params[k]);
	if (M->xshift) /* back to the centered inputs' b_0 (snapshot's, undone: to rounding) */
		for (uint64_t k = 0; k < M->s.n[1]; k++) {
			double b = m->params[M->s.boff[0] + k];
			for (uint64_t v = 0; v < M->s.n[0]; v++)
				b += (double)m->params[M->s.woff[0] + v * M->s.n[1] + k] * M->xshift[v];
			ast(&M->P[M->s.boff[0] + k], (float)b);
		}
	if (M->xscale) /* back to the scaled inputs' W_0 (as snapshot wrote it) */
		for (uint64_t v = 0; v < M->s.n[0]; v++)
			for (uint64_t k = 0; k < M->s.n[1]; k++) {
				_Atomic float *p = &M->P[M->s.woff[0] + v * M->s.n[1] + k];
				ast(p, ald(p) / M->xscale[v]);
			}
	return 0;
}
