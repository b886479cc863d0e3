/* gemm_timer: an LD_PRELOAD shim that times every cblas_sgemm call of a process
 * and counts its flops (2 m n k), so that bench/mlp.sh can say what GFLOP/s the
 * training loop gets inside its gemm calls and what share of its time is spent
 * outside BLAS, without touching the trainer. At exit it writes one line,
 * "sgemm calls N seconds S gflop G", to $GEMM_TIMER_OUT (or stderr).
 *
 *   cc -shared -fPIC -O2 -o build/gemm_timer.so bench/gemm_timer.c -ldl
 *   LD_PRELOAD=build/gemm_timer.so GEMM_TIMER_OUT=t.txt ./hogwild train ...
 *
 * The timer costs two clock reads per call (~50 ns against the ~10-100 us of an
 * MLP layer's product). Seconds are summed over threads. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                         float *, int);

static _Atomic uint64_t calls, nanos, flops;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc)
{
	static sgemm_fn real;
	if (!real)
		real = (sgemm_fn)dlsym(RTLD_NEXT, "cblas_sgemm");
	uint64_t t0 = now_ns();
	real(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
	atomic_fetch_add_explicit(&nanos, now_ns() - t0, memory_order_relaxed);
	atomic_fetch_add_explicit(&flops, 2ull * (uint64_t)m * (uint64_t)n * (uint64_t)k, memory_order_relaxed);
	atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
}

__attribute__((destructor)) static void report(void)
{
	if (!calls)
		return;
	const char *path = getenv("GEMM_TIMER_OUT");
	FILE *f = path ? fopen(path, "w") : stderr;
	if (!f)
		return;
	fprintf(f, "sgemm calls %llu seconds %.6f gflop %.6f\n", (unsigned long long)calls, nanos * 1e-9,
	        flops * 1e-9);
	if (f != stderr)
		fclose(f);
}
