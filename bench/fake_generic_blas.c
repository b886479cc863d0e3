/* LD_PRELOAD shim for bench/gemm.sh: makes OpenBLAS report the generic
 * "Prescott" kernels while OPENBLAS_CORETYPE is unset, the way Debian's 0.3.21
 * does on a Sapphire Rapids it does not recognize, so the re-exec of
 * hog_backend_blas_reexec() can be checked on any AVX-512 machine. With the
 * variable set it forwards to the real library (whose kernels then follow the
 * variable). Only the name is faked: the kernels are what OpenBLAS picked. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

char *openblas_get_corename(void)
{
	static char generic[] = "Prescott";
	if (!getenv("OPENBLAS_CORETYPE"))
		return generic;
	char *(*real)(void) = (char *(*)(void))dlsym(RTLD_NEXT, "openblas_get_corename");
	return real ? real() : generic;
}
