/* The time of one all-reduce of a model against its size: what a rank pays at
 * every --sync-every (hog_mpi_sum_f32, the call the engine makes, plus the scale
 * by 1/ranks). Run under mpirun -np N; rank 0 prints one line per size:
 * floats, bytes, median microseconds over REPS calls, and GB/s of model moved.
 *   mpirun -np 2 build/bench_allreduce [REPS]
 * Without MPI (or with one rank) the sum is the identity: the figures are the
 * scaling loop alone. */
#include "sys/mpi.h"
#include <stdio.h>
#include <stdlib.h>

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	hog_err err = { 0 };
	int reps = argc > 1 ? atoi(argv[1]) : 21;
	if (reps < 1 || reps > 1000)
		reps = 21;
	if (hog_mpi_built() && hog_mpi_start(&err)) {
		fprintf(stderr, "bench_allreduce: %s\n", err.msg);
		return 1;
	}
	static const size_t sizes[] = { 1000, 10000, 47237, 100000, 1000000, 3000000, 10000000 };
	const int R = hog_mpi_size();
	if (hog_mpi_rank() == 0)
		printf("# %d ranks (%s); floats bytes median_us GB_per_s\n", R, hog_mpi_backend());
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		size_t n = sizes[s];
		float *p = malloc(n * sizeof *p);
		double *t = malloc((size_t)reps * sizeof *t);
		if (!p || !t)
			return 1;
		for (size_t i = 0; i < n; i++)
			p[i] = (float)(i % 97) * 0.01f;
		for (int r = -2; r < reps; r++) { /* two warm-up calls */
			double t0 = hog_mpi_time();
			if (hog_mpi_sum_f32(p, n, &err)) {
				fprintf(stderr, "bench_allreduce: %s\n", err.msg);
				return 1;
			}
			const float inv = 1.0f / (float)R;
			for (size_t i = 0; i < n; i++)
				p[i] *= inv;
			if (r >= 0)
				t[r] = hog_mpi_time() - t0;
		}
		qsort(t, (size_t)reps, sizeof *t, cmp_d);
		double med = t[reps / 2];
		if (hog_mpi_rank() == 0)
			printf("%zu %zu %.1f %.3f\n", n, n * 4, med * 1e6, (double)n * 4 / med / 1e9);
		free(p);
		free(t);
	}
	hog_mpi_finish();
	return 0;
}
