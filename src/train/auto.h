/* --mode auto (auto.c), apart from the engine: auto.c measures the modes
 * through the public hog_train() and needs nothing of the engine's insides,
 * so it includes this header, not engine.h, and engine.h includes it for
 * train.c (issue 20: the include circle auto.c <-> train.c). */
#ifndef HOG_TRAIN_AUTO_H
#define HOG_TRAIN_AUTO_H
#include "hogwild.h"
#include <stddef.h>

/* --mode auto (auto.c): probes the modes in @p modes (a hog_trainer_ops mask) on a
 * sample of @p tr with the options @p o and @p cores cores; the chosen mode in
 * *out, what was measured in @p why. */
int eng_auto_mode(const hog_data *tr, const hog_train_opts *o, unsigned modes, int cores, enum hog_mode *out,
                  char *why, size_t whylen, hog_err *err);
/* What the probe measured of one mode: median throughput and training loss
 * (INFINITY: the mode diverged or does not take the options). */
typedef struct eng_probe {
	int mode;
	double ex_per_s, loss;
	int threads;
	int diverged; /* 1: the probe's run diverged (HOG_EDIVERGED), said in the note */
} eng_probe;
/* auto's rule, apart from the measuring: p[0] is serial, the reference; a mode
 * qualifies when its loss is within 1% of serial's; the fastest qualifying one
 * wins, serial included (the first of equals). Returns its index, and the
 * number of parallel modes that qualified in *qualified. */
int eng_auto_choose(const eng_probe *p, int np, int *qualified);
/* Whether probe @p p qualifies against serial's @p ref. */
int eng_auto_qualifies(const eng_probe *p, const eng_probe *ref);
#endif
