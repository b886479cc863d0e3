/* OpenBLAS as the CPU backend uses it: one BLAS thread inside each worker, the
 * kernel set ("core") it picked, and the switch that makes a plain run use the
 * fast kernels on a CPU this OpenBLAS does not recognize.
 *
 * Threads. Debian ships OpenBLAS in a pthread and an OpenMP variant (chosen with
 * update-alternatives for libblas.so.3 / libopenblas.so.0; the pthread one is the
 * default). In both, openblas_set_num_threads(1) holds for every later call
 * (bench/results/blas-threads.md, measured with bench/blas_threads.c on 0.3.21).
 * The OpenMP variant implements it with omp_set_num_threads(1) on the calling
 * thread, so a later `#pragma omp parallel` there without a num_threads clause
 * gets one thread: parallel regions in hogwild name their thread count. Inside
 * an OpenMP team (our workers) that variant runs each call on the calling thread
 * anyway. test_backend checks openblas_get_num_threads() == 1 after a backend
 * opens.
 *
 * Kernels. Debian's OpenBLAS 0.3.21 is built DYNAMIC_ARCH and chooses its kernels
 * by CPUID when the library loads; it does not know Sapphire Rapids and falls
 * back to "Prescott" (SSE3): 3-4x slower sgemm than its SkylakeX (AVX-512)
 * kernels on the same CPU (bench/results/gemm.md). OPENBLAS_CORETYPE overrides
 * the choice, but OpenBLAS reads it when it loads. hog_backend_blas_tune() sets
 * it and has OpenBLAS choose again in the running process: a DYNAMIC_ARCH build
 * exports gotoblas_dynamic_quit() and gotoblas_dynamic_init(), which forget the
 * kernel table and pick one again (reading the variable), and nothing has called
 * a BLAS routine yet. They are not OpenBLAS's documented API, so they are looked
 * up with dlsym, and the kernels are checked afterwards: a build without them, or
 * one that did not switch, keeps its kernels and topo says which would be faster.
 * (Not every AVX-512 machine is misdetected: on the family 6 model 167 VM of
 * bench/results/gemm.md OpenBLAS picks SkylakeX unaided, and nothing switches.)
 * This replaced re-executing the program with the variable set, which paid the
 * whole start twice. */
#include "backend/backend.h"
#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

static void blas_set_one(void)
{
	openblas_set_num_threads(1);
}

void hog_backend_blas_one_thread(void)
{
	/* once: the setter writes a process global that concurrent workers would race on */
	pthread_once(&blas_once, blas_set_one);
}

int hog_backend_blas_threads(void)
{
	return openblas_get_num_threads();
}

const char *hog_backend_blas_core(void)
{
	const char *c = openblas_get_corename();
	return c && *c ? c : "unknown";
}

void hog_backend_blas_describe(char *buf, size_t size)
{
	static const char *const par[] = { "sequential", "pthread", "OpenMP" };
	int p = openblas_get_parallel();
	const char *cfg = openblas_get_config();
	/* "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Prescott MAX_THREADS=64": keep the version */
	char ver[32] = "OpenBLAS";
	if (cfg && !strncmp(cfg, "OpenBLAS ", 9)) {
		size_t n = strcspn(cfg + 9, " ");
		snprintf(ver, sizeof ver, "OpenBLAS %.*s", (int)(n < 20 ? n : 20), cfg + 9);
	}
	const char *ct = getenv("OPENBLAS_CORETYPE");
	snprintf(buf, size, "%s (%s build), kernels %s%s%s%s, %d thread%s per worker", ver,
	         p >= 0 && p <= 2 ? par[p] : "unknown", hog_backend_blas_core(),
	         ct ? " (OPENBLAS_CORETYPE=" : "", ct ? ct : "", ct ? ")" : "",
	         openblas_get_num_threads(), openblas_get_num_threads() == 1 ? "" : "s");
}

/* The core names OpenBLAS falls back to on a CPU it does not know, or that
 * predate AVX2: worth replacing when the CPU can do better. */
static int blas_core_is_generic(const char *core)
{
	static const char *const generic[] = {
		"unknown", "prescott", "core2", "penryn", "dunnington", "nehalem", "atom",
		"sandybridge", "katmai", "coppermine", "northwood", "banias", "athlon", "opteron",
		"barcelona", "nano",
	};
	for (size_t i = 0; i < sizeof generic / sizeof *generic; i++)
		if (!strcasecmp(core, generic[i]))
			return 1;
	return 0;
}

const char *hog_backend_blas_better_core(void)
{
	if (!blas_core_is_generic(hog_backend_blas_core()))
		return NULL;
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
	    __builtin_cpu_supports("avx512cd"))
		return "SKYLAKEX";
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return "HASWELL";
	return NULL;
}

int hog_backend_blas_tune(void)
{
	/* the user chose (HOG_BLAS_REEXEC: the name of the guard before there was a switch) */
	if (getenv("OPENBLAS_CORETYPE") || getenv("HOG_BLAS_KEEP") || getenv("HOG_BLAS_REEXEC"))
		return 0;
	const char *core = hog_backend_blas_better_core();
	if (!core)
		return 0;
	void *q = dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"), *i = dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init");
	if (!q || !i)
		return -1; /* not a DYNAMIC_ARCH OpenBLAS: its one kernel set stays */
	void (*quit)(void), (*init)(void);
	memcpy(&quit, &q, sizeof quit); /* ISO C has no cast from void * to a function pointer */
	memcpy(&init, &i, sizeof init);
	if (setenv("OPENBLAS_CORETYPE", core, 1))
		return -1;
	quit();
	init();
	if (blas_core_is_generic(hog_backend_blas_core())) {
		unsetenv("OPENBLAS_CORETYPE"); /* it did not take: say so in topo, as before */
		return -1;
	}
	return 1;
}
