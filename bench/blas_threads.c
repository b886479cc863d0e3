/* blas_threads: does openblas_set_num_threads(1) hold in the OpenBLAS build that
 * is loaded, and what does it do to OpenMP? Prints the build (pthread/OpenMP),
 * the BLAS thread count before and after the call, omp_get_max_threads() before
 * and after (the OpenMP build implements the call with omp_set_num_threads), and
 * the threads of the process around a 1024^3 sgemm, outside and inside a
 * two-thread OpenMP team (our workers' situation), checking each result.
 * usage: blas_threads [set]    ("set": call openblas_set_num_threads(1) first)
 * Another build without installing it: apt-get download libopenblas0-openmp;
 * dpkg -x *.deb root; LD_LIBRARY_PATH=root/usr/lib/x86_64-linux-gnu/openblas-openmp */
#include <cblas.h>
#include <dirent.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int tasks(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	(void)argv;
	enum { N = 1024 };
	float *A = malloc(sizeof(float) * N * N), *B = malloc(sizeof(float) * N * N);
	for (int i = 0; i < N * N; i++)
		A[i] = B[i] = 1;
	static const char *const par[] = { "sequential", "pthread", "OpenMP" };
	int p = openblas_get_parallel();
	printf("build %s, kernels %s; blas threads %d, omp_get_max_threads %d, process threads %d\n",
	       p >= 0 && p <= 2 ? par[p] : "?", openblas_get_corename(), openblas_get_num_threads(),
	       omp_get_max_threads(), tasks());
	if (argc > 1)
		openblas_set_num_threads(1);
	printf("after %s: blas threads %d, omp_get_max_threads %d\n",
	       argc > 1 ? "openblas_set_num_threads(1)" : "nothing", openblas_get_num_threads(),
	       omp_get_max_threads());
	float *C = malloc(sizeof(float) * N * N);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1, A, N, B, N, 0, C, N);
	printf("sgemm outside a team: process threads %d, C ok %d\n", tasks(), C[N + 5] == N);
#pragma omp parallel num_threads(2)
	{
		float *Ct = malloc(sizeof(float) * N * N);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1, A, N, B, N, 0, Ct,
		            N);
		int bad = 0;
		for (int i = 0; i < N * N; i++)
			bad += Ct[i] != N;
		free(Ct);
#pragma omp critical
		printf("sgemm in team member %d: blas threads %d, process threads %d, wrong %d\n",
		       omp_get_thread_num(), openblas_get_num_threads(), tasks(), bad);
	}
	free(A), free(B), free(C);
	return 0;
}
