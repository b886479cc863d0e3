/* The MPI ranks' averaging (engine.h): the model's shared spans handed to
 * train/compress.c (--compress, or none, which counts the bytes) and summed
 * with MPI_Allreduce. Split out of train.c, which calls it between rounds and
 * at the end of a run. */
#include "kinds.h"
#include "sys/err.h"
#include "sys/mpi.h"
#include "sys/names.h"
#include "train/engine.h"
#include <errno.h>
#include <stdlib.h>

enum { MAX_SPANS = 32 };

/* The model's shared spans as the averaging takes them; returns how many, or
 * -1 (too many: HOG_ENOTSUP in e->werr). */
static long shared_spans(hog_engine *e, cmp_shape *out)
{
	eng_span sp[MAX_SPANS];
	size_t n = e->ops->shared_params(e, sp, MAX_SPANS);
	if (n > MAX_SPANS) {
		hog_err_set(&e->werr, HOG_ENOTSUP, "the %s model shares more than %d runs of parameters",
		            hog_model_kind_name(e->ops->kind), MAX_SPANS);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = (cmp_shape){ sp[i].p, sp[i].n, sp[i].rows, sp[i].cols };
	return (long)n;
}

/* Thread 0 of every rank, after setup and resume (the model every rank starts
 * from): the averaging's state for --compress (none too: it counts the
 * bytes). A scheme that does not fit the model is HOG_ECONFIG naming the option. */
int eng_averaging_setup(hog_engine *e)
{
	cmp_shape sh[MAX_SPANS];
	long n = shared_spans(e, sh);
	if (n < 0)
		return hog_err_set(e->err, e->werr.code, "%s", e->werr.msg);
	if (!(e->cmp = calloc(1, sizeof *e->cmp)))
		return hog_err_set(e->err, ENOMEM, "out of memory");
	char why[160] = "";
	int rc = cmp_init(e->cmp, e->o.compress, e->o.compress_rank, e->o.compress_frac, e->o.seed ^ 0xC0113C7ull, sh,
	                  (size_t)n, why, sizeof why);
	if (rc == EINVAL)
		return hog_err_set(e->err, HOG_ECONFIG, "--compress: %s", why);
	if (rc)
		return hog_err_set(e->err, ENOMEM, "out of memory for --compress's residuals and copies of the model");
	return 0;
}

static int mpi_sum(void *ctx, float *p, size_t n)
{
	return hog_mpi_sum_f32(p, n, ctx);
}

/* Thread 0, MPI: the ranks' models replaced by their mean, in place, or with
 * --compress by the model at the last sync plus the decompressed mean change. */
int eng_average_models(hog_engine *e)
{
	cmp_shape sh[MAX_SPANS];
	long n = shared_spans(e, sh);
	if (n < 0)
		return e->werr.code;
	double t0 = eng_now();
	int rc = cmp_sync(e->cmp, sh, e->ranks, mpi_sum, &e->werr);
	e->sync_seconds += eng_now() - t0;
	return rc;
}

/* Thread 0 of every rank at the end of a --compress run: one whole averaging
 * (the ranks' models differ by their residuals). Returns 0 or the code, with
 * the message in e->werr. */
int eng_average_finish(hog_engine *e)
{
	cmp_shape sh[MAX_SPANS];
	long n = shared_spans(e, sh);
	if (n < 0)
		return e->werr.code;
	return cmp_finish(e->cmp, sh, e->ranks, mpi_sum, &e->werr);
}
