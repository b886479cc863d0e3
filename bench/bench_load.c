/* Times hog_data_load(): the whole data set from LMDB into training arrays, with
 * every block's checksum and bounds checked. Prints seconds and GB/s of file. */
#include "hogwild.h"
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bench_load D.lmdb\n");
		return 2;
	}
	struct stat st;
	if (stat(argv[1], &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	struct timespec a, b;
	hog_err err;
	hog_data *d;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int rc = hog_data_load(&d, argv[1], &err);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (rc) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	double s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
	printf("%.4f s %.3f GB/s %llu examples\n", s, st.st_size / s / 1e9, (unsigned long long)d->n);
	hog_data_free(d);
	return 0;
}
