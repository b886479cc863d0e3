/* MPI for hogwild (Makefile MPI=1): the one file that includes <mpi.h>. It keeps
 * the training team's communicator (the whole job, or its first n ranks for
 * hogwild compare --ranks) and wraps the few collectives the engine needs
 * (mpi.h). mpi_stub.c is the build without MPI.
 *
 * Communicators return errors (MPI_ERRORS_RETURN) instead of aborting, so a
 * failed collective becomes HOG_EMPI with MPI's words and what we were doing;
 * the CLI then ends the job. A rank that dies is noticed by mpirun, which ends
 * the others. Buffers larger than INT_MAX elements go in pieces: MPI counts are
 * ints. */
#include "sys/mpi.h"
#include "sys/err.h"
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int started;
static MPI_Comm team = MPI_COMM_NULL; /* the ranks that train (MPI_COMM_NULL: this one sits out) */

const char *hog_mpi_backend(void)
{
	static char name[64];
#ifdef OMPI_MAJOR_VERSION
	snprintf(name, sizeof name, "Open MPI %d.%d.%d", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, OMPI_RELEASE_VERSION);
#else
	snprintf(name, sizeof name, "MPI %d.%d", MPI_VERSION, MPI_SUBVERSION);
#endif
	return name;
}

int hog_mpi_built(void) { return 1; }

static int fail(hog_err *err, int rc, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof msg, "MPI error %d", rc);
	return hog_err_set(err, HOG_EMPI, "%s: %s (a rank died or the network failed?)", what, msg);
}

int hog_mpi_start(hog_err *err)
{
	if (started)
		return 0;
	int provided = 0, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
	if (rc != MPI_SUCCESS)
		return hog_err_set(err, HOG_EMPI, "MPI_Init_thread failed (code %d)", rc);
	if (provided < MPI_THREAD_FUNNELED) {
		MPI_Finalize();
		return hog_err_set(err, HOG_EMPI, "this MPI gives no thread support (funneled needed)");
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &team)) != MPI_SUCCESS)
		return fail(err, rc, "MPI_Comm_dup");
	started = 1;
	return 0;
}

int hog_mpi_rank(void)
{
	int r = 0;
	if (started && team != MPI_COMM_NULL)
		MPI_Comm_rank(team, &r);
	return r;
}

int hog_mpi_size(void)
{
	int n = 1;
	if (started && team != MPI_COMM_NULL)
		MPI_Comm_size(team, &n);
	return n;
}

int hog_mpi_world(void)
{
	int n = 1;
	if (started)
		MPI_Comm_size(MPI_COMM_WORLD, &n);
	return n;
}

int hog_mpi_team(int n, hog_err *err)
{
	if (!started)
		return n > 1 ? hog_err_set(err, HOG_ECONFIG, "%d ranks: start under mpirun -np %d (or more)", n, n) : 1;
	int world, me, rc;
	MPI_Comm_size(MPI_COMM_WORLD, &world);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	if (n <= 0)
		n = world;
	if (n > world)
		return hog_err_set(err, HOG_ECONFIG, "%d ranks asked for, the job has %d (mpirun -np %d)", n, world, n);
	if (team != MPI_COMM_NULL)
		MPI_Comm_free(&team);
	if ((rc = MPI_Comm_split(MPI_COMM_WORLD, me < n ? 0 : MPI_UNDEFINED, me, &team)) != MPI_SUCCESS)
		return fail(err, rc, "MPI_Comm_split");
	if (team != MPI_COMM_NULL)
		MPI_Comm_set_errhandler(team, MPI_ERRORS_RETURN);
	return team != MPI_COMM_NULL;
}

void hog_mpi_barrier(void)
{
	if (started)
		MPI_Barrier(MPI_COMM_WORLD);
}

void hog_mpi_finish(void)
{
	if (!started)
		return;
	if (team != MPI_COMM_NULL)
		MPI_Comm_free(&team);
	MPI_Finalize();
	started = 0;
}

void hog_mpi_abort(int code)
{
	if (started)
		MPI_Abort(MPI_COMM_WORLD, code);
}

/* In place over the team, in pieces of at most INT_MAX elements. */
static int reduce(void *buf, size_t n, size_t size, MPI_Datatype t, MPI_Op op, hog_err *err, const char *what)
{
	if (!started || team == MPI_COMM_NULL)
		return 0;
	char *p = buf;
	while (n) {
		int k = n > INT_MAX ? INT_MAX : (int)n;
		int rc = MPI_Allreduce(MPI_IN_PLACE, p, k, t, op, team);
		if (rc != MPI_SUCCESS)
			return fail(err, rc, what);
		p += (size_t)k * size;
		n -= (size_t)k;
	}
	return 0;
}

int hog_mpi_sum_f32(float *buf, size_t n, hog_err *err)
{
	return reduce(buf, n, sizeof *buf, MPI_FLOAT, MPI_SUM, err, "averaging the models of the ranks");
}

int hog_mpi_sum_to_rank0_f32(float *buf, size_t n, hog_err *err)
{
	if (!started || team == MPI_COMM_NULL)
		return 0;
	int me;
	MPI_Comm_rank(team, &me);
	float *p = buf;
	while (n) {
		int k = n > INT_MAX ? INT_MAX : (int)n;
		int rc = MPI_Reduce(me == 0 ? MPI_IN_PLACE : p, me == 0 ? p : NULL, k, MPI_FLOAT, MPI_SUM, 0, team);
		if (rc != MPI_SUCCESS)
			return fail(err, rc, "gathering the ranks' own parameters on rank 0");
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int hog_mpi_sum_f64(double *buf, size_t n, hog_err *err)
{
	return reduce(buf, n, sizeof *buf, MPI_DOUBLE, MPI_SUM, err, "summing the ranks' figures");
}

int hog_mpi_max_int(int *buf, size_t n, hog_err *err)
{
	return reduce(buf, n, sizeof *buf, MPI_INT, MPI_MAX, err, "sharing the ranks' stop and error flags");
}

int hog_mpi_minmax_u64(const uint64_t *v, uint64_t *lo, uint64_t *hi, size_t n, hog_err *err)
{
	for (size_t i = 0; i < n; i++)
		lo[i] = hi[i] = v[i];
	int rc = reduce(lo, n, sizeof *lo, MPI_UINT64_T, MPI_MIN, err, "comparing the ranks' options and data");
	return rc ? rc : reduce(hi, n, sizeof *hi, MPI_UINT64_T, MPI_MAX, err, "comparing the ranks' options and data");
}

void hog_mpi_local(int *rank, int *size)
{
	MPI_Comm node;
	*rank = 0;
	*size = 1;
	if (!started || team == MPI_COMM_NULL)
		return;
	if (MPI_Comm_split_type(team, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
		return;
	MPI_Comm_rank(node, rank);
	MPI_Comm_size(node, size);
	MPI_Comm_free(&node);
}

double hog_mpi_time(void)
{
	return MPI_Wtime();
}
