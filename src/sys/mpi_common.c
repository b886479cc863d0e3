/* What both MPI implementations (mpi.c, mpi_stub.c) share, and what the
 * program without MPI says about the one with it. */
#include "sys/mpi.h"
#include <stdlib.h>

int hog_mpi_launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

const char *hog_mpi_missing(void)
{
#if HOG_MPI_PROGRAM
	return "this program trains on one machine; across ranks, start hogwild-mpi, the program built "
	       "with MPI, beside it (mpirun -np N hogwild-mpi train ...)";
#else
	return "this hogwild was built without MPI: install libopenmpi-dev and openmpi-bin and rebuild "
	       "(make MPI=1), which builds hogwild-mpi, the program mpirun starts";
#endif
}
