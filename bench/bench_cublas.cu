/* bench_cublas: the ceiling for bench_gemm --device cuda: cublasSgemm alone (no
 * hogwild code) on the same shapes, the same row-major operand swap, the same
 * timing loop (8 calls, then a stream sync, until --seconds have passed). Output
 * lines match bench_gemm's: "shape m n k ta tb GFLOP/s".
 * usage: bench_cublas [--batch B] [--seconds S] [--wide] [--tf32] */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) do { if ((x) != 0) { fprintf(stderr, "bench_cublas: %s failed\n", #x); exit(1); } } while (0)

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static cublasHandle_t h;
static cudaStream_t st;

static void shape(const char *name, int m, int n, int k, int ta, int tb, double seconds)
{
	float *A, *B, *C, one = 1, zero = 0;
	CK(cudaMalloc(&A, sizeof(float) * m * k));
	CK(cudaMalloc(&B, sizeof(float) * k * n));
	CK(cudaMalloc(&C, sizeof(float) * m * n));
	CK(cudaMemset(A, 0, sizeof(float) * m * k));
	CK(cudaMemset(B, 0, sizeof(float) * k * n));
	int lda = ta ? m : k, ldb = tb ? k : n;
	cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
	CK(cublasSgemm(h, ob, oa, n, m, k, &one, B, ldb, A, lda, &zero, C, n));
	CK(cudaStreamSynchronize(st));
	long reps = 0;
	double t0 = now(), t;
	do {
		for (int r = 0; r < 8; r++)
			CK(cublasSgemm(h, ob, oa, n, m, k, &one, B, ldb, A, lda, &zero, C, n));
		reps += 8;
		CK(cudaStreamSynchronize(st));
		t = now() - t0;
	} while (t < seconds);
	printf("%-12s %5d %5d %5d %d %d %8.1f\n", name, m, n, k, ta, tb, 2.0 * m * n * k * reps / t / 1e9);
	cudaFree(A);
	cudaFree(B);
	cudaFree(C);
}

static void layer(int b, int in, int out, double s)
{
	char name[32];
	snprintf(name, sizeof name, "fwd%d-%d", in, out);
	shape(name, b, out, in, 0, 0, s);
	snprintf(name, sizeof name, "dW%d-%d", in, out);
	shape(name, in, out, b, 1, 0, s);
	snprintf(name, sizeof name, "dX%d-%d", in, out);
	shape(name, b, in, out, 0, 1, s);
}

int main(int argc, char **argv)
{
	int batch = 128, wide = 0, tf32 = 0;
	double seconds = 0.3;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--batch") && i + 1 < argc)
			batch = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--wide"))
			wide = 1;
		else if (!strcmp(argv[i], "--tf32"))
			tf32 = 1;
		else {
			fprintf(stderr, "usage: bench_cublas [--batch B] [--seconds S] [--wide] [--tf32]\n");
			return 2;
		}
	}
	cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
		fprintf(stderr, "bench_cublas: no GPU\n");
		return 1;
	}
	CK(cudaStreamCreate(&st));
	CK(cublasCreate(&h));
	CK(cublasSetStream(h, st));
	CK(cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
	printf("# cuBLAS alone on %s%s batch %d\n", p.name, tf32 ? " (tf32)" : "", batch);
	printf("# shape            m     n     k ta tb  GFLOP/s\n");
	if (wide)
		layer(batch, 4096, 4096, seconds);
	else {
		shape("issue512", 128, 512, 512, 0, 0, seconds);
		layer(batch, 784, 256, seconds);
		layer(batch, 256, 256, seconds);
		layer(batch, 256, 10, seconds);
	}
	cublasDestroy(h);
	return 0;
}
