/* bench_gemm: sgemm GFLOP/s through the backend (hog_backend_gemm) on the shapes
 * the MLP runs: the forward product of a layer (batch x in) * (in x out), and the
 * two backward ones (dW = X^T dY, dX = dY W^T), for 784-256-256-10 and 4096-wide
 * layers at a given batch, plus the 512x512 at batch 128. One line per
 * shape: "shape m n k ta tb GFLOP/s". Each shape runs for --seconds (after a warm
 * call); the median of several runs is the caller's job (bench/gemm.sh), since
 * this machine is shared and noisy.
 *
 * usage: bench_gemm [--device cpu|cuda[:N]] [--batch B] [--seconds S] [--wide]
 *                   [--tf32] [--shape M,N,K]
 * The first line names the device and the BLAS kernels (openblas_get_corename). */
#include "backend/backend.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int bench_shape(hog_backend *b, const char *name, int m, int n, int k, int ta, int tb,
                       double seconds)
{
	hog_err err = { 0 };
	size_t sa = (size_t)m * k, sb = (size_t)k * n, sc = (size_t)m * n;
	size_t big = sa > sb ? (sa > sc ? sa : sc) : (sb > sc ? sb : sc);
	float *h = malloc(big * sizeof *h);
	void *A, *B, *C;
	for (size_t i = 0; i < big; i++)
		h[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
	if (hog_backend_alloc(b, sa * 4, &A, &err) || hog_backend_alloc(b, sb * 4, &B, &err) ||
	    hog_backend_alloc(b, sc * 4, &C, &err) || hog_backend_upload(b, A, h, sa * 4, &err) ||
	    hog_backend_upload(b, B, h, sb * 4, &err) || hog_backend_upload(b, C, h, sc * 4, &err)) {
		fprintf(stderr, "bench_gemm: %s\n", err.msg);
		return 1;
	}
	int lda = ta ? m : k, ldb = tb ? k : n;
	/* warm: the first call allocates BLAS buffers / loads cuBLAS kernels */
	hog_backend_gemm(b, ta, tb, m, n, k, 1, A, lda, B, ldb, 0, C, n, &err);
	hog_backend_sync(b, &err);
	long reps = 0;
	double t0 = now(), t;
	do {
		for (int r = 0; r < 8; r++)
			if (hog_backend_gemm(b, ta, tb, m, n, k, 1, A, lda, B, ldb, 0, C, n, &err)) {
				fprintf(stderr, "bench_gemm: %s\n", err.msg);
				return 1;
			}
		reps += 8;
		hog_backend_sync(b, &err);
		t = now() - t0;
	} while (t < seconds);
	printf("%-12s %5d %5d %5d %d %d %8.1f\n", name, m, n, k, ta, tb,
	       2.0 * m * n * k * reps / t / 1e9);
	fflush(stdout);
	hog_backend_release(b, A);
	hog_backend_release(b, B);
	hog_backend_release(b, C);
	free(h);
	return 0;
}

/* A layer in -> out at batch B: forward, weight gradient, input gradient. */
static int bench_layer(hog_backend *b, int B, int in, int out, double s)
{
	char name[32];
	snprintf(name, sizeof name, "fwd%d-%d", in, out);
	int rc = bench_shape(b, name, B, out, in, 0, 0, s);     /* Y = X W */
	snprintf(name, sizeof name, "dW%d-%d", in, out);
	rc |= bench_shape(b, name, in, out, B, 1, 0, s);        /* dW = X^T dY */
	snprintf(name, sizeof name, "dX%d-%d", in, out);
	rc |= bench_shape(b, name, B, in, out, 0, 1, s);        /* dX = dY W^T */
	return rc;
}

int main(int argc, char **argv)
{
	hog_backend_blas_tune(); /* as ./hogwild does: a plain run gets what hogwild gets */
	const char *device = "cpu";
	int batch = 128, wide = 0, shape[3] = { 0, 0, 0 };
	unsigned flags = 0;
	double seconds = 0.3;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc)
			device = argv[++i];
		else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
			batch = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--wide"))
			wide = 1;
		else if (!strcmp(argv[i], "--tf32"))
			flags |= HOG_BACKEND_TF32;
		else if (!strcmp(argv[i], "--shape") && i + 1 < argc &&
		         sscanf(argv[++i], "%d,%d,%d", &shape[0], &shape[1], &shape[2]) == 3)
			;
		else {
			fprintf(stderr, "usage: bench_gemm [--device cpu|cuda[:N]] [--batch B] "
			        "[--seconds S] [--wide] [--tf32] [--shape M,N,K]\n");
			return 2;
		}
	}
	if (batch < 1 || seconds <= 0)
		return 2;
	hog_backend *b;
	hog_err err = { 0 };
	int rc = hog_backend_open(&b, device, flags, &err);
	if (rc) {
		fprintf(stderr, "bench_gemm: %s\n", err.msg);
		return rc == HOG_ENOTSUP || rc == HOG_ECONFIG ? 2 : 1;
	}
	char line[256];
	hog_backend_blas_describe(line, sizeof line);
	printf("# device %s%s batch %d; %s\n", hog_backend_name(b),
	       flags & HOG_BACKEND_TF32 ? " (tf32)" : "", batch, line);
	printf("# shape            m     n     k ta tb  GFLOP/s\n");
	if (shape[0])
		rc = bench_shape(b, "shape", shape[0], shape[1], shape[2], 0, 0, seconds);
	else if (wide)
		rc = bench_layer(b, batch, 4096, 4096, seconds);
	else
		rc = bench_shape(b, "issue512", 128, 512, 512, 0, 0, seconds) |
		     bench_layer(b, batch, 784, 256, seconds) | bench_layer(b, batch, 256, 256, seconds) |
		     bench_layer(b, batch, 256, 10, seconds);
	hog_backend_close(b);
	return rc;
}
