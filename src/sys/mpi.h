/* The collective operations the training engine needs between ranks, over the
 * training team's communicator (hog_mpi_team()). Two implementations chosen by
 * the Makefile: mpi.c (MPI=1: Open MPI or any MPI) and mpi_stub.c (no MPI: one
 * rank, every reduction is the identity). Only the thread that called
 * hog_mpi_start() may call these (MPI_THREAD_FUNNELED): in the engine, thread 0
 * between rounds while the rest of the team waits at the barrier.
 *
 * Errors (a peer that died, a broken link) come back as HOG_EMPI with MPI's own
 * words in err; the communicators return errors rather than abort, so the caller
 * can say what it was doing. */
#ifndef HOG_SYS_MPI_H
#define HOG_SYS_MPI_H
#include "hogwild.h"
#include <stddef.h>
#include <stdint.h>

/* How to train on several ranks, for messages of the program without MPI:
 * hogwild-mpi where it was built alongside, else how to build it (mpi_common.c). */
const char *hog_mpi_missing(void);
/* "Open MPI 4.1.4" or "none": the build line and hogwild --version. */
const char *hog_mpi_backend(void);
/* In place: buf[i] = sum over ranks of buf[i]. */
int hog_mpi_sum_f32(float *buf, size_t n, hog_err *err);
int hog_mpi_sum_f64(double *buf, size_t n, hog_err *err);
/* Rank 0's buf[i] = sum over ranks of buf[i]; the others' buffers are left as
 * they were. For parameters each rank owns a part of (mf's user factors: a
 * rank holds its own users' rows and zeros elsewhere), so that rank 0 has the
 * whole model before it writes a checkpoint. */
int hog_mpi_sum_to_rank0_f32(float *buf, size_t n, hog_err *err);
/* In place: buf[i] = max over ranks (stop and error flags). */
int hog_mpi_max_int(int *buf, size_t n, hog_err *err);
/* lo[i], hi[i] = min and max over ranks of v[i] (do all ranks agree?). */
int hog_mpi_minmax_u64(const uint64_t *v, uint64_t *lo, uint64_t *hi, size_t n, hog_err *err);
/* This rank's place among the team's ranks on the same machine (shared
 * memory), and how many there are: 0 and 1 when MPI is not started. */
void hog_mpi_local(int *rank, int *size);
/* Seconds on MPI's clock (the all-reduce benchmark). */
double hog_mpi_time(void);
#endif
