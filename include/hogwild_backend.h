/** @file hogwild_backend.h
 * @brief hogwild's dense compute backends (the CPU's OpenBLAS, a GPU's cuBLAS).
 *
 * Part of the manual in hogwild.h, which includes this file after Training;
 * include hogwild.h, not this.
 */
#ifndef HOGWILD_BACKEND_H
#define HOGWILD_BACKEND_H
#ifndef HOGWILD_H
#error "include <hogwild.h>, which includes hogwild_backend.h"
#endif
/** @defgroup backend Dense compute backends
 * The dense layers (the MLP) run on a backend: the CPU (OpenBLAS sgemm, one BLAS
 * thread per worker) or, when built with CUDA, an NVIDIA GPU (cuBLAS). The
 * operations themselves are internal (src/backend/backend.h); this is what the
 * command line and a caller choosing a device need.
 * @{ */

/** A backend handle: one per worker thread (a CUDA one owns a stream). */
typedef struct hog_backend hog_backend;

/** hog_backend_open() flag: let cuBLAS use TF32 tensor cores for sgemm (faster,
 * about 10 bits of mantissa in products). Without it the math is full FP32. */
#define HOG_BACKEND_TF32 1u

/** Opens a backend by device name: "cpu", "cuda" (GPU 0) or "cuda:N".
 * @return 0; HOG_ECONFIG for a name that is none of these; HOG_ENOTSUP for
 *         "cuda" when the CUDA plugin is missing or does not load (the message
 *         names the file and why, or where it was looked for); HOG_ECUDA when
 *         there is no driver, no such GPU, or CUDA fails
 *         (the message names the call and CUDA's text); ENOMEM. */
int hog_backend_open(hog_backend **out, const char *device, unsigned flags, hog_err *err);
/** Closes a backend and frees what it holds (not the buffers: release those
 * first). NULL is fine. */
void hog_backend_close(hog_backend *b);
/** The device the handle runs on: "cpu", "cuda:0". */
const char *hog_backend_name(const hog_backend *b);
/** 1 when the CUDA backend's plugin (libhogwild-cuda.so) is found and loads;
 * this looks for it, which hog_backend_open() with "cpu" never does. */
int hog_backend_has_cuda(void);

/** The OpenBLAS kernel set in use (openblas_get_corename(): "SkylakeX",
 * "Haswell", "Prescott" ...). Never NULL. */
const char *hog_backend_blas_core(void);
/** One line about the BLAS: version, pthread/OpenMP build, kernels, threads. */
void hog_backend_blas_describe(char *buf, size_t size);
/** Sets OpenBLAS to one thread, once per process: each training worker makes
 * its own BLAS calls, so the CPU backend does this when it opens; call it
 * first to see (hog_backend_blas_describe()) what a training run gets. Safe
 * from several threads. */
void hog_backend_blas_one_thread(void);
/** The OPENBLAS_CORETYPE that would run faster here than the generic kernels
 * OpenBLAS chose ("SKYLAKEX" with AVX-512, "HASWELL" with AVX2, on a CPU this
 * OpenBLAS does not know), or NULL when its choice is already the fast one. */
const char *hog_backend_blas_better_core(void);
/** Call first thing in main(), before any BLAS call: when OPENBLAS_CORETYPE
 * and HOG_BLAS_KEEP are unset and hog_backend_blas_better_core() names a
 * faster kernel set, sets OPENBLAS_CORETYPE and has OpenBLAS pick its kernels
 * again in this process (docs/architecture.md §9).
 * @return 1 when it switched, 0 when there was nothing to do, -1 when it could
 *         not (the process goes on with the kernels it had). */
int hog_backend_blas_tune(void);

/** A GPU as CUDA reports it. */
typedef struct hog_gpu {
	int index;            /**< N of "cuda:N" */
	char name[96];        /**< "NVIDIA H100 80GB HBM3" */
	uint64_t memory;      /**< total device memory, bytes */
	int major, minor;     /**< compute capability */
	int multiprocessors;
} hog_gpu;

/** Lists up to @p max GPUs into @p out and their number into @p *count. No
 * driver, no device, or no CUDA plugin is 0 GPUs, not an error; @p why (may be
 * NULL) then receives the reason (where the plugin was looked for, CUDA's text).
 * @return 0. */
int hog_backend_gpus(hog_gpu *out, int max, int *count, char *why, size_t why_size);

/** @} */

#endif /* HOGWILD_BACKEND_H */
