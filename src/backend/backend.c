/* The backend registry: the one file that knows which backends were compiled in
 * (HOG_CUDA, set by the Makefile when it builds src/backend/cuda.cu), and the
 * only `#if` of the backends. Everything else calls hog_backend_open() with a
 * device name and works on whatever comes back. */
#include "backend/backend.h"
#include "sys/err.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if HOG_CUDA
#include "backend/cuda.h"
#endif

int hog_backend_has_cuda(void)
{
#if HOG_CUDA
	return 1;
#else
	return 0;
#endif
}

/* "cuda" -> 0, "cuda:N" -> N; -1 for anything else. */
static int backend_parse_cuda(const char *device)
{
	if (!strcmp(device, "cuda"))
		return 0;
	if (strncmp(device, "cuda:", 5) || device[5] < '0' || device[5] > '9')
		return -1;
	char *end;
	errno = 0;
	long n = strtol(device + 5, &end, 10);
	return errno || *end || n > 1024 ? -1 : (int)n;
}

int hog_backend_open(hog_backend **out, const char *device, unsigned flags, hog_err *err)
{
	*out = NULL;
	if (!device || !strcmp(device, "cpu"))
		return hog_cpu_backend_open(out, flags, err);
	int ordinal = backend_parse_cuda(device);
	if (ordinal < 0)
		return hog_err_set(err, HOG_ECONFIG, "device '%s': expected cpu, cuda or cuda:N",
		                   device);
#if HOG_CUDA
	return hog_cuda_backend_open(out, ordinal, flags, err);
#else
	return hog_err_set(err, HOG_ENOTSUP, "device '%s': this hogwild was built without CUDA "
	                   "(rebuild with 'make CUDA=1' where nvcc and the CUDA toolkit are "
	                   "installed)", device);
#endif
}

int hog_backend_gpus(hog_gpu *out, int max, int *count, char *why, size_t why_size)
{
	*count = 0;
#if HOG_CUDA
	return hog_cuda_gpus(out, max, count, why, why_size);
#else
	(void)out, (void)max;
	if (why && why_size)
		snprintf(why, why_size, "built without CUDA");
	return 0;
#endif
}
