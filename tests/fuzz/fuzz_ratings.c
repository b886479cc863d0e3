/* libFuzzer harness: the ratings importer (hog_import, format HOG_FORMAT_RATINGS) on one
 * input file (header detected). A damaged input must fail with a message, and leave no
 * output behind; a good one must give a data set that verifies. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in[1] = { fz_write("in.txt", data, size) };
	hog_import_opts o = { .format = HOG_FORMAT_RATINGS, .header = -1, .max_line = 1 << 16 };
	return fz_import(in, 1, &o);
}
