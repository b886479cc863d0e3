/* No MPI: the library and the hogwild program (hogwild-mpi links mpi.c ahead of
 * the library instead, which defines every symbol here). One rank, and every
 * reduction over one rank is the identity. hog_mpi_start() says how to get the
 * real one. See mpi.h and the hog_mpi_* block of hogwild.h; mpi.c is the real
 * implementation. */
#include "sys/mpi.h"
#include "sys/err.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *hog_mpi_backend(void) { return "none"; }
int hog_mpi_built(void) { return 0; }

int hog_mpi_start(hog_err *err)
{
	return hog_err_set(err, HOG_ENOTSUP, "%s", hog_mpi_missing());
}

int hog_mpi_rank(void) { return 0; }
int hog_mpi_size(void) { return 1; }
int hog_mpi_world(void) { return 1; }

int hog_mpi_team(int n, hog_err *err)
{
	if (n > 1)
		return hog_err_set(err, HOG_ENOTSUP, "%d ranks: %s", n, hog_mpi_missing());
	return 1;
}

void hog_mpi_barrier(void) {}
void hog_mpi_finish(void) {}
void hog_mpi_abort(int code) { (void)code; } /* one rank: the caller returns its status itself */

int hog_mpi_sum_f32(float *buf, size_t n, hog_err *err) { (void)buf, (void)n, (void)err; return 0; }
int hog_mpi_sum_to_rank0_f32(float *buf, size_t n, hog_err *err) { (void)buf, (void)n, (void)err; return 0; }
int hog_mpi_sum_f64(double *buf, size_t n, hog_err *err) { (void)buf, (void)n, (void)err; return 0; }
int hog_mpi_max_int(int *buf, size_t n, hog_err *err) { (void)buf, (void)n, (void)err; return 0; }

int hog_mpi_minmax_u64(const uint64_t *v, uint64_t *lo, uint64_t *hi, size_t n, hog_err *err)
{
	(void)err;
	memcpy(lo, v, n * sizeof *v);
	memcpy(hi, v, n * sizeof *v);
	return 0;
}

void hog_mpi_local(int *rank, int *size)
{
	*rank = 0;
	*size = 1;
}

double hog_mpi_time(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
