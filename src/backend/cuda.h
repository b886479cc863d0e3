/* The CUDA plugin's interface. The CUDA backend (cuda.cu) is built by nvcc into
 * a shared object of its own, libhogwild-cuda.so, which links cuBLAS and the CUDA
 * runtime; the programs and the library link neither. backend.c loads the plugin
 * with dlopen the first time a GPU is asked for (--device cuda, topo's GPU line)
 * and never on the CPU path.
 *
 * The plugin exports one symbol, HOG_CUDA_PLUGIN_ENTRY. The host hands it the few
 * library functions the backend uses (so the plugin carries no copy of the
 * library) and the sizes of the structures the two share; the plugin refuses a
 * host whose ABI or sizes differ from its own, and fills in its two entry points.
 * The backend table (backend.h) stays the one interface to the backend itself. */
#ifndef HOG_BACKEND_CUDA_H
#define HOG_BACKEND_CUDA_H
#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HOG_CUDA_PLUGIN_ABI 1
#define HOG_CUDA_PLUGIN_ENTRY "hog_cuda_plugin_v1"
#define HOG_CUDA_PLUGIN_FILE "libhogwild-cuda.so"

/** What the program gives the plugin. */
typedef struct hog_cuda_host {
	int abi;                  /**< HOG_CUDA_PLUGIN_ABI of the program */
	const char *version;      /**< the program's HOG_VERSION_STRING */
	size_t backend_size, ops_size, err_size; /**< sizeof hog_backend, hog_backend_ops, hog_err */
	int (*err_set)(hog_err *err, int code, const char *fmt, ...);
	int (*err_prefix)(hog_err *err, const char *fmt, ...);
	int (*backend_wrap)(hog_backend **out, const hog_backend_ops *ops, void *ctx,
	                    const char *device, unsigned flags, hog_err *err);
	void (*backend_close)(hog_backend *b);
} hog_cuda_host;

/** What the plugin gives back. */
typedef struct hog_cuda_plugin {
	const char *version; /**< the plugin's HOG_VERSION_STRING */
	/** Opens GPU @p ordinal: a stream, a cuBLAS handle on it (math mode FP32, or
	 * TF32 with HOG_BACKEND_TF32), pinned staging memory. @return 0 or HOG_ECUDA. */
	int (*open)(hog_backend **out, int ordinal, unsigned flags, hog_err *err);
	/** The GPUs the driver sees (see hog_backend_gpus()). */
	int (*gpus)(hog_gpu *out, int max, int *count, char *why, size_t why_size);
} hog_cuda_plugin;

/** The entry point: 0 and *out filled, or -1 with the reason in @p why. */
typedef int (*hog_cuda_plugin_entry)(const hog_cuda_host *host, hog_cuda_plugin *out, char *why,
                                     size_t why_size);

/** Loads the plugin at @p path (no search, nothing cached): 0 and *out, or
 * HOG_ENOTSUP naming the file and what is wrong (dlopen's own words, a library
 * that is no hogwild plugin, one built for another hogwild). For the loader in
 * backend.c and the tests. */
int hog_cuda_plugin_load(const char *path, hog_cuda_plugin *out, hog_err *err);
/** How many times the plugin was asked for in this process, loaded or not (the
 * tests: the CPU path must never ask). */
unsigned hog_cuda_plugin_lookups(void);

#ifdef __cplusplus
}
#endif
#endif
