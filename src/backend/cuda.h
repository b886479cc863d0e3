/* The CUDA backend's entry points (cuda.cu), seen from C. Only backend.c calls
 * them, and only in a build with HOG_CUDA. */
#ifndef HOG_BACKEND_CUDA_H
#define HOG_BACKEND_CUDA_H
#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opens GPU @p ordinal: a stream, a cuBLAS handle on it (math mode FP32, or TF32
 * with HOG_BACKEND_TF32), pinned staging memory. @return 0 or HOG_ECUDA. */
int hog_cuda_backend_open(hog_backend **out, int ordinal, unsigned flags, hog_err *err);
/** The GPUs the driver sees (see hog_backend_gpus()). */
int hog_cuda_gpus(hog_gpu *out, int max, int *count, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif
#endif
