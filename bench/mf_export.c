/* Writes a ratings data set as "user item rating" text lines with its dense
 * (0-based) ids, for LIBMF's mf-train in bench/mf.sh: the training and test
 * halves made by `hogwild data split` keep one id space, which separate imports
 * of two text files would not. Ratings are printed with %.9g (exact floats). */
#include "hogwild.h"
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mf_export R.lmdb > R.txt\n");
		return 2;
	}
	hog_err err;
	hog_data *d;
	if (hog_data_load(&d, argv[1], &err)) {
		fprintf(stderr, "mf_export: %s\n", err.msg);
		return 1;
	}
	if (d->meta.kind != HOG_KIND_RATINGS) {
		fprintf(stderr, "mf_export: %s is not a ratings set\n", argv[1]);
		return 1;
	}
	for (uint64_t j = 0; j < d->n; j++)
		printf("%u %u %.9g\n", d->users[j], d->items[j], d->ratings[j]);
	hog_data_free(d);
	return fflush(stdout) ? 1 : 0;
}
